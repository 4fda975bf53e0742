#!/usr/bin/env bash
# Usage: compare-plans.sh MODEL.mlir OUTDIR PLAN...
# Plans the training step of MODEL with each PLAN (a ckpt-plan option
# string, e.g. "strategy=uniform stages-per-segment=3"), runs it with the
# same seed, and checks that every plan's loss and gradients (.npy bytes)
# equal those of the first plan. Prints one line per plan with its
# measured and simulated peak; fails on the first difference.
set -euo pipefail
model=$1 out=$2
shift 2
mkdir -p "$out"
reference=
for plan in "$@"; do
  name=$(printf '%s' "$plan" | tr -c 'a-z0-9' '_')
  ckpt-opt "$model" --ckpt-thread-rng --ckpt-autodiff \
    --ckpt-plan="$plan" --ckpt-insert-recompute -o "$out/$name.mlir" \
    --mlir-print-op-on-diagnostic=false 2> "$out/$name.log"
  peak=$(ckpt-run "$out/$name.mlir" --seed 7 --out "$out/$name" \
           --check-peak=0.01 | grep '^peak bytes:')
  if [[ -z $reference ]]; then
    reference=$out/$name
  elif ! diff -r "$reference" "$out/$name" > /dev/null; then
    echo "plan '$plan': outputs differ from plan '$1'" >&2
    exit 1
  fi
  echo "plan '$plan': bit-identical; $peak"
done
