#!/usr/bin/env bash
# GPU checks, for a machine with an NVIDIA GPU and its driver (H100/H200:
# the default chip is sm_90; ckpt-run compiles for the GPU it finds). Builds
# (scripts/setup.sh), runs the GPU tests (test/GPU: the cubin for every
# example, and the tests that need a device: every plan bit-identical on the
# GPU, GPU against CPU gradients and dropout masks, measured against
# simulated device peaks), then bench/vs-pytorch.py --device cuda: the same
# models in ckpt-run and in PyTorch on this GPU, peak memory and step time
# per plan.
# PyTorch must be installed with CUDA for the benchmark (PYTHON, default
# python3); without it the tests still run and the benchmark is skipped with
# a message.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CKPT_BUILD_DIR:-$root/build}
python=${PYTHON:-python3}

if ! nvidia-smi -L > /dev/null 2>&1; then
  echo "gpu-check: no GPU here (nvidia-smi -L failed)" >&2
  exit 1
fi
nvidia-smi -L
bash "$root/scripts/setup.sh"

lit=/usr/lib/llvm-22/bin/lit
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$lit" -v "$build/test/GPU" | tee "$log"
if grep -q '^UNSUPPORTED:.*plans-on-gpu' "$log"; then
  echo "gpu-check: the tests did not find the GPU (nvidia-smi from lit)" >&2
  exit 1
fi

if "$python" -c 'import sys, torch; sys.exit(not torch.cuda.is_available())' 2> /dev/null; then
  "$python" "$root/bench/vs-pytorch.py" --device cuda --plans none,manual \
    --build "$build"
else
  echo "gpu-check: $python has no torch with CUDA: benchmark skipped" >&2
fi
