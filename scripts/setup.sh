#!/usr/bin/env bash
# Sets up a Debian 12 machine and builds ckpt-opt: installs the packages of
# scripts/debian-packages.txt that are missing (install-packages.sh), the
# PyTorch bridge's Python packages into .venv (install-python.sh),
# configures with CMake + Ninja into build/ (or $CKPT_BUILD_DIR), and builds
# everything.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CKPT_BUILD_DIR:-$root/build}

bash "$root/scripts/install-packages.sh" "$root/scripts/debian-packages.txt"
python=$(bash "$root/scripts/install-python.sh")

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DCKPT_TORCH_PYTHON="$python"
fi
cmake --build "$build"
