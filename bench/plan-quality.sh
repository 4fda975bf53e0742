#!/usr/bin/env bash
# Plan quality on the bundled stacks: simulated peak and extra forward FLOPs
# (recomputation, % of one forward) of none, every block, every 3 blocks,
# sqrt, and of dp and selective at several budgets. A budget a strategy
# cannot meet shows "does not fit". Simulated values only (the memory
# simulator is exact for ckpt-run's allocator; see docs/Checkpointing.md
# for measured runs).
#
# usage: bench/plan-quality.sh   (after scripts/setup.sh)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
opt=${CKPT_BUILD_DIR:-$root/build}/bin/ckpt-opt

# PLAN (ckpt-pipeline options) on MODEL: "peak MiB / extra %", or "does not fit".
evaluate() {
  local model=$1 plan=$2 json
  if ! json=$("$opt" "$root/examples/$model.mlir" "--ckpt-pipeline=$plan" \
    --ckpt-report=format=json -o /dev/null 2> /dev/null); then
    echo "does not fit"
    return
  fi
  python3 -c 'import json, sys
step = json.loads(sys.argv[1])[0]
print("%.1f MiB / %.1f%%" % (step["peak"]["bytes"] / 2**20,
                             step["plan"]["recompute_percent_of_forward"]))' "$json"
}

table() {
  local model=$1 blocks_per_3=$2
  shift 2
  echo "## $model"
  echo
  echo "| plan | simulated peak / extra forward FLOPs |"
  echo "| --- | --- |"
  echo "| none | $(evaluate "$model" strategy=none) |"
  echo "| every stage (uniform) | $(evaluate "$model" strategy=uniform) |"
  echo "| every 3 blocks (uniform) | $(evaluate "$model" "strategy=uniform stages-per-segment=$blocks_per_3") |"
  echo "| sqrt | $(evaluate "$model" strategy=sqrt) |"
  echo "| dp, smallest peak | $(evaluate "$model" strategy=dp) |"
  echo
  echo "| budget | dp | selective |"
  echo "| --- | --- | --- |"
  for budget in "$@"; do
    echo "| $budget | $(evaluate "$model" "strategy=dp budget=$budget") | $(evaluate "$model" "strategy=selective budget=$budget") |"
  done
  echo
}

table mlp_stack 3 1100MiB 900MiB 700MiB 500MiB 400MiB 320MiB 300MiB
table gpt2_stack 6 9.5MiB 9MiB 8.6MiB 8.2MiB
