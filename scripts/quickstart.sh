#!/usr/bin/env bash
# Quick start: sets up and builds (scripts/setup.sh), then runs the
# checkpointing pipeline on the bundled 12-block MLP stack with every block
# in a checkpoint segment: builds its training step, turns the segments
# into recompute regions and prints the report (kept and recomputed
# tensors, simulated peak memory, FLOPs with the recomputation's share).
# Then imports a PyTorch model, plans it within a budget, runs it and
# compares its gradients with PyTorch's.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CKPT_BUILD_DIR:-$root/build}

bash "$root/scripts/setup.sh"
echo "== ckpt-opt examples/mlp_stack_checkpointed.mlir --ckpt-pipeline" \
  "--ckpt-report"
"$build/bin/ckpt-opt" "$root/examples/mlp_stack_checkpointed.mlir" \
  --ckpt-pipeline --ckpt-report -o /dev/null

# The same from PyTorch: import the GPT-2-style model of examples/torch/
# with its weights (and PyTorch's gradients for the example inputs), plan
# it with dp within 3 MiB, run the step and compare with PyTorch.
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "== ckpt-import-torch examples/torch/gpt2.py:Gpt2 --reference, then" \
  "--ckpt-pipeline='strategy=dp budget=3MiB', then ckpt-run --reference"
"$build/bin/ckpt-import-torch" "$root/examples/torch/gpt2.py:Gpt2" \
  --arg dropout=0.0 --input-shape tokens=4,32:int64:512 \
  --input-shape labels=4,32:int64:512 -o "$out/gpt2.mlir" \
  --weights "$out/weights" --reference "$out/pytorch"
"$build/bin/ckpt-opt" "$out/gpt2.mlir" \
  --ckpt-pipeline='strategy=dp budget=3MiB' -o "$out/step.mlir"
"$build/bin/ckpt-run" "$out/step.mlir" --inputs "$out/weights" \
  --reference "$out/pytorch" --reference-tolerance 1e-5 |
  grep -v -e '^grad of' -e '% of the squared difference'
