#!/usr/bin/env bash
# Builds llama.cpp's OpenAI-compatible HTTP server, `llama-server`, into the cache: a real
# local endpoint for `vista judge --endpoint` (tests/judge.rs judges one run through it and
# through the local model). Idempotent: prints the binary's path, building it only once
# (about 4 minutes on 2 cores).
#
#   scripts/llama_server.sh            # prints $VISTA_CACHE/llama-server/bin/llama-server
#   "$(scripts/llama_server.sh)" -m MODEL.gguf --port 8080 -c 4096
#
# Its sources: the llama.cpp vendored in the llama-cpp-python sdist on PyPI (pinned below;
# `pip download --no-deps --no-binary :all:`, or $LLAMA_CPP_PYTHON_SDIST, a downloaded
# .tar.gz). MIT, as llama.cpp. Built without its web UI (whose assets the sdist does not
# hold and which would otherwise be downloaded), without libcurl (it never downloads a
# model), CPU only, for this machine's instruction set.
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${VISTA_CACHE:-$HOME/.cache/vista}"
version="0.3.36"
work="$cache/llama-server"
bin="$work/bin/llama-server"
if [[ -x "$bin" && "$(cat "$work/version" 2>/dev/null)" == "$version" ]]; then
  echo "$bin"
  exit 0
fi
mkdir -p "$work"
sdist="${LLAMA_CPP_PYTHON_SDIST:-$work/sdist/llama_cpp_python-$version.tar.gz}"
if [[ ! -f "$sdist" ]]; then
  echo "llama_server: downloading llama-cpp-python==$version (sdist) from PyPI" >&2
  python3 -m pip download -q --no-deps --no-binary :all: "llama-cpp-python==$version" -d "$work/sdist" >&2
fi
top="llama_cpp_python-$version"
rm -rf "$work/src" "$work/build"
mkdir -p "$work/src"
echo "llama_server: unpacking $sdist" >&2
tar xzf "$sdist" -C "$work/src" "$top/vendor/llama.cpp"
echo "llama_server: building llama-server (a few minutes)" >&2
cmake -S "$work/src/$top/vendor/llama.cpp" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=ON -DLLAMA_CURL=OFF \
  -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF >"$work/cmake.log" 2>&1 ||
  { tail -20 "$work/cmake.log" >&2; exit 1; }
cmake --build "$work/build" --target llama-server -j "$(nproc)" >"$work/build.log" 2>&1 ||
  { tail -30 "$work/build.log" >&2; exit 1; }
mkdir -p "$work/bin"
cp "$work/build/bin/llama-server" "$bin"
echo "$version" >"$work/version"
# The sources and objects are not needed to run it.
rm -rf "$work/src" "$work/build"
echo "$bin"
