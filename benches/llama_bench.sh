#!/usr/bin/env bash
# llama.cpp's own `llama-bench` against `vista bench lm` on the same GGUF and thread counts,
# run interleaved (llama-bench, vista, llama-bench, vista, …) so that both see the same load,
# and the ratio vista / llama-bench of their prompt and generation speeds. Not run in CI (it
# builds llama.cpp and its bench tool, ~15 min on 2 idle cores the first time).
#
#   benches/llama_bench.sh [GGUF] [THREADS,…] [ROUNDS]      # defaults: SmolLM2 Q4_1, "1,2", 5
#
# What is compared: prompt = 325 tokens from an empty cache (llama-bench `-p 325 -n 0`),
# generate = 64 tokens after a 325-token prompt (llama-bench `-p 0 -n 64 -d 325`; vista
# generates after its own 325-token prompt and its figure includes greedy sampling and
# detokenisation, llama-bench's only the decodes), with flash attention off as vista runs
# (`-fa 0`), and llama-bench's default on a CPU (`-fa 1`) for reference. Each round is one
# llama-bench run per figure (`-r 3`, its mean) and two `vista bench lm --repeats 3` (its
# median): in the assistant's 2,048-token window and in `--ctx 512`, the window llama-bench
# makes for these tests (llama.cpp rounds 325 + 64 up to 512; the window's size changes
# generation speed, see src/infer/llm/bench.rs); the script prints the median over rounds of each and of the per-round ratios, with
# the load average before and after.
#
# llama-bench is built from the very llama.cpp that vista links: the sources vendored in the
# `llama-cpp-sys-2` crate (found through `cargo metadata`). That crate ships llama.cpp without
# the tools' sources, so `tools/llama-bench` is taken from the llama-cpp-python sdist on PyPI
# (`pip download --no-deps --no-binary :all: llama-cpp-python`; or $LLAMA_CPP_PYTHON_SDIST, a
# downloaded .tar.gz), whose llama.cpp is a few weeks from the crate's and whose llama-bench.cpp
# compiles against it unchanged. It is configured as the crate's build script configures
# llama.cpp here (RelWithDebInfo, GGML_NATIVE, OpenMP, the same C/C++ flags), and the compile
# command of one ggml-cpu kernel is compared with vista's own build when that build is found.
# Work folder: $VISTA_CACHE/llama-bench (sources, build).
#
# VISTA_BIN: the vista binary (default: `cargo build --profile $VISTA_PROFILE`, default
# release; dev builds llama.cpp and every dependency optimised too, see Cargo.toml, and only
# vista's own code at opt-level 1). OUT_MD: also write the summary as Markdown to this file
# (docs/llama-bench.md), with the command, commit, date and load.
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${VISTA_CACHE:-$HOME/.cache/vista}"
model="${1:-${VISTA_MODELS:-$cache/models}/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf}"
threads_list="${2:-1,2}"
rounds="${3:-5}"
work="$cache/llama-bench"
mkdir -p "$work"
[[ -f "$model" ]] || { echo "llama_bench: $model not found (run models/fetch)" >&2; exit 1; }

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$cache/target}"
if [[ -n "${VISTA_BIN:-}" ]]; then
  vista="$VISTA_BIN"
else
  profile="${VISTA_PROFILE:-release}"
  cargo build --profile "$profile" --bin vista
  dir=$profile; [[ $profile == dev ]] && dir=debug
  vista="$CARGO_TARGET_DIR/$dir/vista"
fi

build="$work/build"
bench="$build/bin/llama-bench"
if [[ ! -x "$bench" ]]; then
  crate=$(cargo metadata --format-version 1 --filter-platform "$(rustc -vV | sed -n 's/^host: //p')" |
    python3 -c '
import json, os, sys
m = json.load(sys.stdin)
p = next(p for p in m["packages"] if p["name"] == "llama-cpp-sys-2")
print(os.path.join(os.path.dirname(p["manifest_path"]), "llama.cpp"))')
  sdist="${LLAMA_CPP_PYTHON_SDIST:-}"
  if [[ -z "$sdist" ]]; then
    sdist=$(ls "$work"/sdist/llama_cpp_python-*.tar.gz 2>/dev/null | tail -1 || true)
    if [[ -z "$sdist" ]]; then
      pip download --no-deps --no-binary :all: llama-cpp-python -d "$work/sdist"
      sdist=$(ls "$work"/sdist/llama_cpp_python-*.tar.gz | tail -1)
    fi
  fi
  # (Not `tar tzf | head -1`: under pipefail, tar killed by SIGPIPE fails the script.)
  top=$(python3 -c 'import sys, tarfile; print(tarfile.open(sys.argv[1]).next().name.split("/")[0])' "$sdist")
  rm -rf "$work/src" "$work/sdist-tools"
  mkdir -p "$work/sdist-tools"
  tar xzf "$sdist" -C "$work/sdist-tools" "$top/vendor/llama.cpp/tools/llama-bench"
  cp -a "$crate" "$work/src"
  rm -rf "$work/src/tools/llama-bench"
  cp -a "$work/sdist-tools/$top/vendor/llama.cpp/tools/llama-bench" "$work/src/tools/"
  # The crate's tools/ holds only READMEs: build llama-bench alone.
  printf 'find_package(Threads REQUIRED)\nllama_add_compile_flags()\nadd_subdirectory(llama-bench)\n' \
    >"$work/src/tools/CMakeLists.txt"
  flags="-ffunction-sections -fdata-sections -fPIC -m64 -w" # as the cc crate passes them
  cmake -S "$work/src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=ON -DGGML_OPENMP=ON -DLLAMA_CURL=OFF \
    -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_APP=OFF \
    -DLLAMA_BUILD_COMMON=ON -DLLAMA_BUILD_MTMD=OFF
  nice -n 10 cmake --build "$build" --target llama-bench -j "$(nproc)"
fi

# The same compiler flags as vista's llama.cpp? (one ggml-cpu kernel's compile command)
python3 - "$build" "$CARGO_TARGET_DIR" <<'PY'
import glob, json, os, re, sys
def flags(cc):
    for e in json.load(open(cc)):
        if e["file"].endswith("ggml-cpu/quants.c"):
            words = re.sub(r"\s+", " ", e["command"]).split(" ")
            return [w for w in words if w.startswith(("-O", "-m", "-f", "-D", "-g"))
                    and not w.startswith("-o")]
ours = flags(os.path.join(sys.argv[1], "compile_commands.json"))
theirs = [p for p in glob.glob(os.path.join(sys.argv[2], "*/build/llama-cpp-sys-2-*/out/build/compile_commands.json"))]
if not theirs:
    print("(vista's llama.cpp build folder not found: flags not compared)")
for t in theirs:
    f = flags(t)
    same = "same flags" if f == ours else f"DIFFERENT flags: {sorted(set(f) ^ set(ours))}"
    print(f"llama-bench vs {os.path.relpath(t, sys.argv[2])}: {same}")
print("llama-bench ggml-cpu flags:", " ".join(ours))
PY

echo "== $("$bench" --version 2>&1 | head -1 || true)"
echo "== $model; threads $threads_list; $rounds rounds; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
results="$work/results.jsonl"
: >"$results"
IFS=, read -ra tlist <<<"$threads_list"
for ((r = 1; r <= rounds; r++)); do
  for t in "${tlist[@]}"; do
    # Flash attention off (-fa 0) is vista's setting (src/infer/llm/raw_ctx.rs); on (-fa 1) is
    # what llama-bench's default (auto) picks on a CPU: both are measured.
    lb=$("$bench" -m "$model" -t "$t" -p 325 -n 0 -fa 0,1 -r 3 -o json)
    lbg=$("$bench" -m "$model" -t "$t" -p 0 -n 64 -d 325 -fa 0,1 -r 3 -o json)
    v=$("$vista" bench lm --model "$model" --threads "$t" --repeats 3 --json)
    v512=$("$vista" bench lm --model "$model" --threads "$t" --repeats 3 --ctx 512 --json)
    python3 - "$lb" "$lbg" "$v" "$t" "$r" "$(cut -d' ' -f1 /proc/loadavg)" "$v512" >>"$results" <<'PY'
import json, sys
lb, lbg, v = json.loads(sys.argv[1]), json.loads(sys.argv[2]), json.loads(sys.argv[3])["reports"][0]
w = json.loads(sys.argv[7])["reports"][0]
fa = lambda rows, on: next(x["avg_ts"] for x in rows if bool(int(x["flash_attn"])) == on)
print(json.dumps({
    "threads": int(sys.argv[4]), "round": int(sys.argv[5]), "load1": float(sys.argv[6]),
    "lb_pp": fa(lb, False), "lb_tg": fa(lbg, False), "lb_fa_pp": fa(lb, True), "lb_fa_tg": fa(lbg, True),
    "v_pp": v["prompt_tok_per_s"], "v_tg": v["gen_tok_per_s"], "v_fa": v["flash_attention"],
    "v_ctx": v["n_ctx"], "v512_pp": w["prompt_tok_per_s"], "v512_tg": w["gen_tok_per_s"],
    "v_ttft_cold_ms": v["ttft_cold_ms"], "v_ttft_prefix_ms": v["ttft_prefix_ms"],
    "v_question_tokens": v["question_tokens"], "v_system_tokens": v["system_tokens"],
}))
PY
    tail -1 "$results"
  done
done
echo "== load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$results" "${OUT_MD:-}" "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  "$threads_list" "$rounds" "$("$bench" --version 2>&1 | head -1 || true)" <<'PY'
import datetime, json, statistics as st, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
out_md, commit, threads_arg, rounds_arg, lb_version = sys.argv[2:7]
if out_md:
    md = ["# The language model against llama.cpp's own `llama-bench`", "",
          f"Generated by `benches/llama_bench.sh \"\" {threads_arg} {rounds_arg}` on "
          f"{datetime.date.today()} at commit `{commit}` ({lb_version}), "
          "SmolLM2-135M-Instruct Q4_1, flash attention off as the assistant runs it. Each round runs "
          "llama-bench and `vista bench lm` one after the other on the same load; a ratio is vista / "
          "llama-bench within a round, and the table gives the median over rounds (and the range). "
          "Prompt: 325 tokens from an empty cache; generation: 64 tokens after them. llama-bench "
          "makes a 512-token window for these tests; the assistant's window is "
          f"{rows[0]['v_ctx']} tokens. Load average (1 min) over the rounds: "
          f"{min(r['load1'] for r in rows):.2f}–{max(r['load1'] for r in rows):.2f}.", "",
          "```sh", f"OUT_MD=docs/llama-bench.md benches/llama_bench.sh \"\" {threads_arg} {rounds_arg}", "```", "",
          "| threads | figure | window | llama-bench | vista | vista / llama-bench (range) |",
          "|---|---|---|---|---|---|"]
    for t in sorted({r["threads"] for r in rows}):
        rs = [r for r in rows if r["threads"] == t]
        for name, a, b, win in [("prompt", "lb_pp", "v_pp", rows[0]["v_ctx"]), ("prompt", "lb_pp", "v512_pp", 512),
                                ("generation", "lb_tg", "v_tg", rows[0]["v_ctx"]), ("generation", "lb_tg", "v512_tg", 512)]:
            ratios = [r[b] / r[a] for r in rs]
            md.append(f"| {t} | {name} | {win} | {st.median(r[a] for r in rs):.1f} tokens/s | "
                      f"{st.median(r[b] for r in rs):.1f} tokens/s | {st.median(ratios):.3f} "
                      f"({min(ratios):.3f}–{max(ratios):.3f}) |")
    md.append("")
    open(out_md, "w").write("\n".join(md) + "\n")
print("medians over rounds; ratio = vista / llama-bench per round, then the median")
print(f"vista's window: {rows[0]['v_ctx']} tokens (the assistant's) and 512 (llama-bench's for these tests)")
print(f"{'threads':>7} {'figure':>14} {'llama-bench fa0':>16} {'vista':>9} {'ratio':>6} {'(min-max)':>13}"
      f" {'llama-bench fa1':>16} {'vista/fa1':>9}")
for t in sorted({r["threads"] for r in rows}):
    rs = [r for r in rows if r["threads"] == t]
    for name, a, b, c in [("prompt", "lb_pp", "v_pp", "lb_fa_pp"), ("generate", "lb_tg", "v_tg", "lb_fa_tg"),
                          ("prompt @512", "lb_pp", "v512_pp", "lb_fa_pp"), ("generate @512", "lb_tg", "v512_tg", "lb_fa_tg")]:
        ratios = [r[b] / r[a] for r in rs]
        print(f"{t:>7} {name:>14} {st.median(r[a] for r in rs):>14.1f}/s {st.median(r[b] for r in rs):>7.1f}/s"
              f" {st.median(ratios):>6.3f} ({min(ratios):.3f}-{max(ratios):.3f})"
              f" {st.median(r[c] for r in rs):>14.1f}/s {st.median(r[b] / r[c] for r in rs):>9.3f}")
    print(f"{t:>7} first token: cold {st.median(r['v_ttft_cold_ms'] for r in rs):.1f} ms "
          f"({rs[0]['v_system_tokens']}+{rs[0]['v_question_tokens']} tokens), "
          f"system turn reused {st.median(r['v_ttft_prefix_ms'] for r in rs):.1f} ms "
          f"({rs[0]['v_question_tokens']} tokens)")
PY
