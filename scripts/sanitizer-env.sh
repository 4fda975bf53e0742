# Sourced by the scripts that run the sanitized build: how its sanitizers
# report.
# MLIR's uninstrumented libraries fill containers the instrumented code
# reads, which container-overflow checks would misreport. An allocation too
# large to satisfy returns null, as malloc does, so the tests of ckpt-run's
# out-of-memory errors run the code users get.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_container_overflow=0:allocator_may_return_null=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Leaks inside third-party libraries are not ours to fix (scripts/lsan.supp).
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lsan.supp}
