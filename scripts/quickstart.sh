#!/usr/bin/env bash
# Quick start: sets up and builds (scripts/setup.sh), then runs ckpt-opt on
# the bundled 12-block MLP stack: builds its training step and prints the
# report of its saved tensors, simulated peak memory and FLOPs.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CKPT_BUILD_DIR:-$root/build}

bash "$root/scripts/setup.sh"
echo "== ckpt-opt examples/mlp_stack.mlir --ckpt-thread-rng --ckpt-autodiff --ckpt-report"
"$build/bin/ckpt-opt" "$root/examples/mlp_stack.mlir" \
  --ckpt-thread-rng --ckpt-autodiff --ckpt-report -o /dev/null
