#!/usr/bin/env bash
# Step time and peak memory of the bundled examples on the CPU: builds each
# training step, runs it with ckpt-run (one warm-up, then --repeat runs) and
# prints a table, a row per model as planned (strategy=none) and one with
# its pointwise chains fused (fuse-pointwise=1). `--full` adds the 12-block
# MLP stack at B=8, L=512, D=512 (slow: minutes per step on one core).
#
# usage: bench/step-time.sh [--repeat N] [--full]   (after scripts/setup.sh)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${CKPT_BUILD_DIR:-$root/build}/bin
repeat=3
models=(checkpointed_mlp gpt2_stack)
while (($#)); do
  case "$1" in
    --repeat) repeat=$2; shift 2 ;;
    --full) models+=(mlp_stack); shift ;;
    *) echo "usage: $0 [--repeat N] [--full]" >&2; exit 2 ;;
  esac
done

printf '%-24s %12s %12s %14s %14s %8s\n' model "mean ms" "best ms" \
  "measured B" "simulated B" "diff"
for model in "${models[@]}"; do
  for fused in 0 1; do
    out=$("$bin/ckpt-opt" "$root/examples/$model.mlir" \
            --ckpt-pipeline="strategy=none fuse-pointwise=$fused" |
            "$bin/ckpt-run" - --repeat "$repeat")
    time=$(sed -n 's/^step time: \([0-9.]*\) ms mean, \([0-9.]*\) ms best.*/\1 \2/p' <<<"$out")
    peak=$(sed -n 's/^peak bytes: measured \([0-9]*\) .*simulated \([0-9]*\) (\(.*\))$/\1 \2 \3/p' <<<"$out")
    read -r mean best <<<"$time"
    read -r measured simulated diff <<<"$peak"
    name=$model
    ((fused)) && name+=" fused"
    printf '%-24s %12s %12s %14s %14s %8s\n' "$name" "$mean" "$best" \
      "$measured" "$simulated" "$diff"
  done
done
