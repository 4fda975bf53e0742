#!/usr/bin/env bash
# Compares checkpointing plans of one forward graph. For each PLAN (a
# ckpt-pipeline option string, e.g. "strategy=uniform stages-per-segment=3")
# it builds the training step (--ckpt-pipeline: fold-transposes, thread-rng,
# autodiff, plan, insert-recompute, fuse-pointwise), runs it with ckpt-run on the same seed, and checks that
# its loss and gradients (.npy bytes) equal those of the first plan; it
# stops with an error at the first plan that differs. One table row per plan:
#   peak B        measured peak bytes (inputs + heap) and the simulated one
#   heap MiB      measured heap above the inputs, with the gradients the step
#                 returns and without them (as if accumulated into existing
#                 buffers, like PyTorch's .grad)
#   recompute     extra forward FLOPs in percent of one forward
#   ms            mean step time of --repeat runs after one warm-up
#
# usage: scripts/compare-plans.sh [--repeat N] [--device cpu|cuda] MODEL.mlir OUTDIR PLAN...
# (--device cuda runs every plan on the first GPU: peaks are device bytes)
# (ckpt-opt and ckpt-run from PATH, else from build/bin)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if ! command -v ckpt-run > /dev/null; then
  PATH=${CKPT_BUILD_DIR:-$root/build}/bin:$PATH
fi
repeat=1 device=cpu
while [[ ${1:-} == --repeat || ${1:-} == --device ]]; do
  case $1 in
    --repeat) repeat=$2 ;;
    --device) device=$2 ;;
  esac
  shift 2
done
if (($# < 3)); then
  echo "usage: $0 [--repeat N] [--device cpu|cuda] MODEL.mlir OUTDIR PLAN..." >&2
  exit 2
fi
model=$1 out=$2
shift 2
mkdir -p "$out"

mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
printf '%-42s %-9s %12s %12s %7s %9s %9s %9s %10s\n' plan identical \
  "peak B" "simulated B" diff "heap MiB" "w/o grads" recompute "ms"
reference=
for plan in "$@"; do
  name=$(printf '%s' "$plan" | tr -c 'a-z0-9' '_')
  ckpt-opt "$model" --ckpt-pipeline="$plan" --mlir-print-op-on-diagnostic=false \
    -o "$out/$name.mlir" 2> "$out/$name.log"
  extra=$(ckpt-opt "$out/$name.mlir" --ckpt-report -o /dev/null |
            sed -n 's/.*extra forward FLOPs \([0-9.]*%\).*/\1/p')
  run=$(ckpt-run "$out/$name.mlir" --seed 7 --out "$out/$name" \
          --device="$device" --warmup $((repeat > 1 ? 1 : 0)) \
          --repeat "$repeat" --check-peak=0.01)
  identical=yes
  if [[ -z $reference ]]; then
    reference=$out/$name
    identical=reference
  elif ! diff -r "$reference" "$out/$name" > /dev/null; then
    echo "$0: plan '$plan': loss or gradients differ from plan '$1'" >&2
    exit 1
  fi
  read -r measured inputs heap simulated diff < <(sed -n \
    's/^peak bytes: measured \([0-9]*\) (inputs \([0-9]*\) + heap \([0-9]*\)), simulated \([0-9]*\) (\(.*\))$/\1 \2 \3 \4 \5/p' <<<"$run")
  heapWithout=$(sed -n 's/^peak bytes without returned gradients: .*+ heap \([0-9]*\)).*/\1/p' <<<"$run")
  ms=$(sed -n 's/^step time: \([0-9.]*\) ms mean.*/\1/p' <<<"$run")
  printf '%-42s %-9s %12s %12s %7s %9s %9s %9s %10s\n' "$plan" "$identical" \
    "$measured" "$simulated" "$diff" "$(mib "$heap")" "$(mib "$heapWithout")" \
    "$extra" "$ms"
done
