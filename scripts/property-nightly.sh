#!/usr/bin/env bash
# Nightly property tests: checks random training graphs with every
# checkpointing strategy (test/Property/Inputs/check_plans.py lists the
# properties) for many more seeds than the lit test does. Without
# --first-seed, the seeds start from the date, so each night checks new
# graphs; the summary names the first seed and every failing one, and a
# failure prints the commands that reproduce it.
#
# usage: scripts/property-nightly.sh [--minutes M | --count N] [--first-seed S] [--jobs J] [--keep DIR]
# (defaults: 60 minutes, one job per core; ckpt-opt and ckpt-run from PATH,
# else from build/bin)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if ! command -v ckpt-run > /dev/null; then
  PATH=${CKPT_BUILD_DIR:-$root/build}/bin:$PATH
fi
args=("$@")
given() { [[ " ${args[*]} " == *" $1 "* || " ${args[*]} " == *" $1="* ]]; }
given --first-seed || args+=(--first-seed "$(($(date +%Y%m%d) * 1000))")
given --count || given --minutes || args+=(--minutes 60)
given --jobs || args+=(--jobs "$(nproc)")
exec python3 "$root/test/Property/Inputs/check_plans.py" "${args[@]}"
