#!/usr/bin/env bash
# Runs the whole test suite on a build with AddressSanitizer and
# UndefinedBehaviorSanitizer (CKPT_ENABLE_SANITIZERS) in build-sanitized/
# (or $CKPT_SANITIZED_BUILD_DIR): any report fails the test that triggered
# it. Ends with test.sh's "N passed, N failed" line.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CKPT_SANITIZED_BUILD_DIR:-$root/build-sanitized}

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCKPT_ENABLE_SANITIZERS=ON \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
# MLIR's uninstrumented libraries fill containers the instrumented code
# reads, which container-overflow checks would misreport.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_container_overflow=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
CKPT_BUILD_DIR=$build exec bash "$root/scripts/test.sh"
