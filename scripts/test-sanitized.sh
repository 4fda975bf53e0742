#!/usr/bin/env bash
# Runs the whole test suite on a build with AddressSanitizer,
# UndefinedBehaviorSanitizer and libFuzzer's instrumentation
# (CKPT_ENABLE_SANITIZERS, CKPT_ENABLE_FUZZERS; clang-22) in
# build-sanitized/ (or $CKPT_SANITIZED_BUILD_DIR): any report fails the test
# that triggered it. Ends with test.sh's "N passed, N failed" line.
# With --configure-only, only configures (scripts/fuzz.sh uses the build).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CKPT_SANITIZED_BUILD_DIR:-$root/build-sanitized}

bash "$root/scripts/install-packages.sh" "$root/scripts/debian-packages.txt" \
  "$root/scripts/debian-packages-sanitized.txt"
python=$(bash "$root/scripts/install-python.sh")
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCKPT_ENABLE_SANITIZERS=ON -DCKPT_ENABLE_FUZZERS=ON \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DCKPT_TORCH_PYTHON="$python"
fi
[ "${1:-}" != --configure-only ] || exit 0
source "$root/scripts/sanitizer-env.sh"
CKPT_BUILD_DIR=$build exec bash "$root/scripts/test.sh"
