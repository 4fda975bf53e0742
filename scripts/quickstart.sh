#!/usr/bin/env bash
# Quick start: sets up and builds (scripts/setup.sh), then runs ckpt-opt on
# the bundled 12-block MLP stack, which it parses, verifies and prints back.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CKPT_BUILD_DIR:-$root/build}

bash "$root/scripts/setup.sh"
echo "== ckpt-opt examples/mlp_stack.mlir"
"$build/bin/ckpt-opt" "$root/examples/mlp_stack.mlir"
