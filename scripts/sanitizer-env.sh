# Sourced by the scripts that run the sanitized build: how its sanitizers
# report.
# MLIR's uninstrumented libraries fill containers the instrumented code
# reads, which container-overflow checks would misreport.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_container_overflow=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
