#!/usr/bin/env bash
# Runs the whole test suite: sets up and builds if needed (scripts/setup.sh),
# then the lit regression tests and the GoogleTest unit tests together
# (the check-ckpt target). Ends with one "N passed, N failed" line; exits
# non-zero when any test fails.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CKPT_BUILD_DIR:-$root/build}

bash "$root/scripts/setup.sh"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cmake --build "$build" --target check-ckpt 2>&1 | tee "$log" || status=$?

count() { # lit's summary line "  <Label>: N (...)" (padded as "Label :"), or 0
  sed -n "s/^  $1 *: *\([0-9]*\).*/\1/p" "$log" | tail -n 1 | grep . || echo 0
}
passed=$(count Passed)
failed=$(( $(count Failed) + $(count 'Unexpectedly Passed') + $(count 'Timed Out') ))
skipped=$(( $(count Unsupported) + $(count Skipped) ))
if [ "$passed" -eq 0 ]; then
  echo "tests: no test passed; the suite did not run" >&2
  status=1
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit "$status"
