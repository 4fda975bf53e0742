#!/usr/bin/env bash
# Runs each fuzz target (tools/ckpt-fuzz) for SECONDS (default 60) on the
# sanitized build that scripts/test-sanitized.sh makes (clang, ASan, UBSan,
# libFuzzer), after seeding its corpus from examples/ and test/. Findings go
# to <build>/fuzz/findings/<target>/; exits non-zero when a target found
# one. A corpus persists between runs, so long runs build on short ones.
#   scripts/fuzz.sh [SECONDS] [TARGET...]   (targets: parse pipeline options)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CKPT_SANITIZED_BUILD_DIR:-$root/build-sanitized}
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(parse pipeline options)

CKPT_SANITIZED_BUILD_DIR=$build bash "$root/scripts/test-sanitized.sh" --configure-only
cmake --build "$build" --target "${targets[@]/#/ckpt-fuzz-}"
source "$root/scripts/sanitizer-env.sh"

# Seeds: test/Fuzz/Inputs/<target>/ (hand-written seeds and past
# findings), plus every .mlir of examples/ and test/ for the parser, and
# small forward graphs under each option line of
# test/Fuzz/Inputs/pipeline-options.txt for the pipeline.
seed() {
  local target=$1 corpus=$2
  cp -t "$corpus" "$root/test/Fuzz/Inputs/$target"/*
  case $target in
    parse)
      find "$root/examples" "$root/test" -name '*.mlir' -size -64k |
        while IFS= read -r file; do
          cp "$file" "$corpus/$(echo "${file#"$root"/}" | tr / -)"
        done ;;
    pipeline)
      local n=0 options forward
      local forwards=("$root"/examples/{checkpointed_mlp,small_cnn}.mlir
        "$root"/test/Planner/Inputs/*.mlir
        "$root"/test/Integration/Inputs/batch-norm-net.mlir)
      while IFS= read -r options; do
        for forward in "${forwards[@]}"; do
          n=$((n + 1))
          { echo "// $options"; cat "$forward"; } > "$corpus/seed-$n.mlir"
        done
      done < "$root/test/Fuzz/Inputs/pipeline-options.txt" ;;
  esac
}

status=0
for target in "${targets[@]}"; do
  corpus=$build/fuzz/corpus/$target
  findings=$build/fuzz/findings/$target
  mkdir -p "$corpus" "$findings"
  [ -n "$(ls -A "$corpus")" ] || seed "$target" "$corpus"
  echo "fuzz: $target for $seconds s ($(ls "$corpus" | wc -l) corpus inputs)"
  # A unit slower than 30 s is a finding (a timeout); libFuzzer would also
  # save any unit over 10 s as a "slow unit", which a sanitized build on a
  # shared 2-core machine reaches on large inputs without any defect.
  "$build/bin/ckpt-fuzz-$target" "$corpus" -max_total_time="$seconds" \
    -timeout=30 -report_slow_units=30 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$findings/" > "$build/fuzz/$target.log" 2>&1 || status=1
  grep -a -E "^stat::number_of_executed_units|^Done|ERROR|SUMMARY" \
    "$build/fuzz/$target.log" || true
  if [ -n "$(ls -A "$findings")" ]; then
    echo "fuzz: $target found inputs that fail: $findings" >&2
    tail -n 40 "$build/fuzz/$target.log" >&2
    status=1
  fi
done
exit "$status"
