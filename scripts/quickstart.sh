#!/usr/bin/env bash
# Quick start: sets up and builds (scripts/setup.sh), then runs the
# checkpointing pipeline on the bundled 12-block MLP stack with every block
# in a checkpoint segment: builds its training step, turns the segments
# into recompute regions and prints the report (kept and recomputed
# tensors, simulated peak memory, FLOPs with the recomputation's share).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CKPT_BUILD_DIR:-$root/build}

bash "$root/scripts/setup.sh"
echo "== ckpt-opt examples/mlp_stack_checkpointed.mlir --ckpt-thread-rng" \
  "--ckpt-autodiff --ckpt-plan --ckpt-insert-recompute --ckpt-report"
"$build/bin/ckpt-opt" "$root/examples/mlp_stack_checkpointed.mlir" \
  --ckpt-thread-rng --ckpt-autodiff --ckpt-plan --ckpt-insert-recompute \
  --ckpt-report -o /dev/null
