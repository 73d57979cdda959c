#!/usr/bin/env bash
# llama.cpp's own `llama-bench` against `vista bench lm` on the same GGUF and thread count,
# and the ratio of their prompt and generation speeds. Not run in CI (it builds llama.cpp
# from source, ~15 min on 2 cores).
#
#   benches/llama_bench.sh [GGUF] [THREADS]
#
# llama.cpp comes from the sources inside the PyPI sdist of `llama-cpp-python` (its
# vendor/llama.cpp), built once under $VISTA_CACHE/llama-bench.
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${VISTA_CACHE:-$HOME/.cache/vista}"
threads="${2:-2}"
work="$cache/llama-bench"
mkdir -p "$work"

if [[ -n "${1:-}" ]]; then
  model="$1"
else
  # The default model (made on first use by vista).
  model="${VISTA_MODELS:-$cache/models}/smollm2/SmolLM2-135M-Instruct.Q4_0.gguf"
fi

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$cache/target}"
cargo build --release --bin vista
vista="$CARGO_TARGET_DIR/release/vista"
[[ -f "$model" ]] || "$vista" ask --max-tokens 1 "hi" >/dev/null   # makes the Q4_0 file

bench="$work/build/bin/llama-bench"
if [[ ! -x "$bench" ]]; then
  python="${VISTA_PYTHON:-python3}"
  (cd "$work" && "$python" -m pip download --no-deps --no-binary :all: -d sdist llama-cpp-python)
  tarball=$(ls "$work"/sdist/llama_cpp_python-*.tar.gz | head -1)
  rm -rf "$work/src" && mkdir -p "$work/src"
  tar -xzf "$tarball" -C "$work/src" --strip-components=1
  cmake -S "$work/src/vendor/llama.cpp" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DGGML_NATIVE=ON -DGGML_OPENMP=ON -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_TOOLS=ON
  cmake --build "$work/build" --target llama-bench -j "$(nproc)"
fi

echo "== llama-bench ($("$bench" --version 2>&1 | head -1))"
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
print("(llama-bench generates from an empty context; vista after the 325-token prompt)")
PY
