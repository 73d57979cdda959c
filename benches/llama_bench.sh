#!/usr/bin/env bash
# llama.cpp's own `llama-bench` against `vista bench lm` on the same GGUF and thread count,
# and the ratio of their prompt and generation speeds. Not run in CI (it builds llama.cpp's
# bench tool, ~10 min on 2 cores).
#
#   benches/llama_bench.sh [GGUF] [THREADS]
#
# llama-bench is built from the very llama.cpp that vista links: the sources vendored in
# the `llama-cpp-sys-2` crate (found through `cargo metadata`), configured as its build
# script configures them (RelWithDebInfo, GGML_NATIVE, OpenMP), under
# $VISTA_CACHE/llama-bench/build (or $LLAMA_BENCH_BUILD: an existing llama.cpp CMake build
# folder of the same sources, where only the bench tool is then compiled).
# VISTA_BIN: a vista binary to use (default: `cargo build --release`; llama.cpp is compiled
# with the same flags in the dev and release profiles here, both keep line tables).
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${VISTA_CACHE:-$HOME/.cache/vista}"
threads="${2:-2}"
work="$cache/llama-bench"
mkdir -p "$work"
model="${1:-${VISTA_MODELS:-$cache/models}/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf}"
[[ -f "$model" ]] || { echo "llama_bench: $model not found (run models/fetch)" >&2; exit 1; }

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$cache/target}"
if [[ -n "${VISTA_BIN:-}" ]]; then
  vista="$VISTA_BIN"
else
  cargo build --release --bin vista
  vista="$CARGO_TARGET_DIR/release/vista"
fi

build="${LLAMA_BENCH_BUILD:-$work/build}"
bench="$build/bin/llama-bench"
if [[ ! -x "$bench" ]]; then
  src=$(cargo metadata --format-version 1 | python3 -c '
import json, os, sys
m = json.load(sys.stdin)
p = next(p for p in m["packages"] if p["name"] == "llama-cpp-sys-2")
print(os.path.join(os.path.dirname(p["manifest_path"]), "llama.cpp"))')
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DGGML_NATIVE=ON -DGGML_OPENMP=ON -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_TOOLS=ON \
    -DLLAMA_BUILD_COMMON=ON
  nice -n 5 cmake --build "$build" --target llama-bench -j "$(nproc)"
fi

echo "== llama-bench ($("$bench" --version 2>&1 | head -1)), $model, $threads threads"
lb_json=$("$bench" -m "$model" -t "$threads" -p 325 -n 64 -r 5 -o json)
echo "$lb_json"
echo "== vista bench lm"
v_json=$("$vista" bench lm --model "$model" --threads "$threads" --json)
echo "$v_json"

python3 - "$lb_json" "$v_json" <<'PY'
import json, sys
lb = json.loads(sys.argv[1]); v = json.loads(sys.argv[2])["reports"][0]
pp = next(r["avg_ts"] for r in lb if r["n_prompt"] > 0)
tg = next(r["avg_ts"] for r in lb if r["n_gen"] > 0)
print(f"prompt   tok/s: llama-bench {pp:8.1f}  vista {v['prompt_tok_per_s']:8.1f}  ratio {v['prompt_tok_per_s']/pp:.2f}")
print(f"generate tok/s: llama-bench {tg:8.1f}  vista {v['gen_tok_per_s']:8.1f}  ratio {v['gen_tok_per_s']/tg:.2f}")
print(f"first token, {v['question_tokens']}-token question, system prompt reused: {v['ttft_prefix_ms']:.1f} ms")
print("(llama-bench generates from an empty context; vista after the 325-token prompt)")
PY
