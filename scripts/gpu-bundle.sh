#!/usr/bin/env bash
# Writes DIR, a folder that checks the GPU path on a machine with an NVIDIA
# GPU, its driver and PyTorch with CUDA, but no MLIR, no build and no
# network: copy DIR there and run `bash DIR/run.sh`. Built here, from this
# checkout's build (CKPT_BUILD_DIR, default build/; scripts/setup.sh makes
# it) and the CUDA toolkit, for the chip CKPT_CHIP (default sm_90:
# H100/H200). DIR holds run.sh and bundle.tar.xz (xz: the kernels'
# binaries shrink to a fifth), which run.sh unpacks beside itself:
#   steps/   every bundled example (examples/*.mlir) and the dropout-mask
#            test input, planned with none, manual (examples with
#            checkpoint regions), dp and tensor (a plan identical to an
#            earlier one left out), their pointwise chains fused (as
#            the pipeline does: one kernel each), compiled by `ckpt-compile
#            --device=cuda`: executables that need no MLIR, no LLVM and no
#            OpenBLAS, with LLVM's OpenMP runtime beside them;
#   f64/     per example, an f64 run of the same graph on this CPU (seed 1):
#            its printed loss and gradient norms (digest.txt), and its
#            gradients and loss rounded to fp32 (--reference's files) where
#            the f64 ones take at most CKPT_BUNDLE_FULL_REFERENCE_MIB
#            (default 32; the 12-block MLP stack's take 200);
#   cpu/     the dropout-mask step's fp32 gradients on this CPU, which the
#            GPU must give bit for bit (they are the mask over 1 - p);
#   torch/   small PyTorch models of the zoo (examples/torch), imported with
#            their weights and inputs (args/) and planned with none and dp;
#            the steps compiled for the GPU, ckpt-opt's plans for
#            python/ckpt_torch (copied in), and run_torch.py, which times
#            PyTorch eager on the GPU with the same plans.
# Inputs of the examples are not stored: the executables fill them from
# --seed with the same generator as ckpt-run.
set -euo pipefail

usage() {
  echo "usage: scripts/gpu-bundle.sh [--examples A,B] [--torch-models A,B] [--device cuda|cpu] DIR" >&2
  echo "  --examples      bundled examples by name (default: all, and dropout-mask)" >&2
  echo "  --torch-models  PyTorch models (default: all of scripts/gpu_bundle_torch.py)" >&2
  echo "  --device        where the steps run (default cuda; cpu checks the bundle itself" >&2
  echo "                  on a machine without a GPU)" >&2
  exit 2
}
examples=
torch_models=
device=cuda
while [[ $# -gt 1 ]]; do
  case $1 in
    --examples) examples=$2 ;;
    --torch-models) torch_models=$2 ;;
    --device) device=$2 ;;
    *) usage ;;
  esac
  shift 2
done
[[ $# -eq 1 && $1 != -* && ($device == cuda || $device == cpu) ]] || usage

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CKPT_BUILD_DIR:-$root/build}
python=${PYTHON:-$root/.venv/bin/python}
chip=${CKPT_CHIP:-sm_90}
out=$1
bin=$build/bin

for tool in ckpt-opt ckpt-compile ckpt-run; do
  if [[ ! -x $bin/$tool ]]; then
    echo "gpu-bundle: $bin/$tool is missing: build first (bash scripts/setup.sh)" >&2
    exit 1
  fi
done
if [[ ! -x $python ]] || ! "$python" -c 'import ckpt_torch, numpy, torch' 2> /dev/null; then
  echo "gpu-bundle: $python cannot import ckpt_torch, numpy and torch (set PYTHON, or run scripts/setup.sh)" >&2
  exit 1
fi

# Only an earlier bundle is replaced.
if [[ -e $out && -n $(ls -A "$out" 2> /dev/null) && ! -f $out/bundle.tar.xz ]]; then
  echo "gpu-bundle: $out exists and is not a bundle: give a new folder" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bundle=$work/bundle
mkdir -p "$bundle/steps" "$bundle/f64" "$bundle/cpu" "$bundle/torch"

# Compiles STEP.mlir into the executable NAME; for the GPU, fails with the
# toolkit's message (ptxas) when there is none.
compile() {
  "$bin/ckpt-compile" "$1" --device="$device" --chip="$chip" -o "$2"
}

# The f64 form of an fp32 graph: every f32 becomes f64, and fp32's -inf
# (attention masks) f64's.
widen() {
  sed -e 's/f32/f64/g' -e 's/0xFF800000/0xFFF0000000000000/g' "$1"
}

sources=("$root"/examples/*.mlir "$root/test/GPU/Inputs/dropout-mask.mlir")
if [[ -n $examples ]]; then
  sources=()
  for name in ${examples//,/ }; do
    if [[ -f $root/examples/$name.mlir ]]; then
      sources+=("$root/examples/$name.mlir")
    elif [[ $name == dropout-mask ]]; then
      sources+=("$root/test/GPU/Inputs/$name.mlir")
    else
      echo "gpu-bundle: no example named $name (examples/NAME.mlir, or dropout-mask)" >&2
      exit 1
    fi
  done
fi

target=$device
[[ $device == cpu ]] || target="$device, $chip"
echo "gpu-bundle: examples, for $target"
echo "$device" > "$bundle/device"
for example in "${sources[@]}"; do
  name=$(basename "$example" .mlir)
  kept=()
  plans=(none dp tensor)
  if grep -q 'ckpt.checkpoint' "$example"; then
    plans=(none manual dp tensor)
  fi
  # Masks are compared across plans that recompute the dropout or not.
  [[ $name != dropout-mask ]] || plans=(none dp)
  for plan in "${plans[@]}"; do
    "$bin/ckpt-opt" "$example" --ckpt-pipeline=strategy=$plan -o "$work/$name.$plan.mlir"
    duplicate=
    for earlier in "${kept[@]}"; do
      if cmp -s "$work/$name.$earlier.mlir" "$work/$name.$plan.mlir"; then
        duplicate=$earlier
      fi
    done
    [[ -z $duplicate ]] || continue
    kept+=("$plan")
    compile "$work/$name.$plan.mlir" "$bundle/steps/$name.$plan"
    echo "$name $plan" >> "$bundle/steps/list.txt"
    echo "  $name: $plan"
  done
  if [[ $name == dropout-mask ]]; then
    "$bin/ckpt-run" "$work/$name.none.mlir" --seed 1 --out "$bundle/cpu/$name" > /dev/null
  else
    mkdir -p "$bundle/f64/$name"
    widen "$example" | "$bin/ckpt-opt" --ckpt-pipeline=strategy=none \
      | "$bin/ckpt-run" - --seed 1 --out "$work/f64-$name" \
      | grep -E '^(loss|grad of argument [0-9]+):' > "$bundle/f64/$name/digest.txt"
    if (($(du -sm "$work/f64-$name" | cut -f1) <= ${CKPT_BUNDLE_FULL_REFERENCE_MIB:-32})); then
      "$python" -c '
import sys, glob, os, numpy
for path in glob.glob(os.path.join(sys.argv[1], "*.npy")):
    numpy.save(os.path.join(sys.argv[2], os.path.basename(path)),
               numpy.load(path).astype(numpy.float32))
' "$work/f64-$name" "$bundle/f64/$name"
    fi
  fi
done

echo "gpu-bundle: PyTorch models"
"$python" "$root/scripts/gpu_bundle_torch.py" --build "$build" \
  --device "$device" --chip "$chip" \
  ${torch_models:+--models "$torch_models"} "$bundle/torch"
cp -r "$root/python/ckpt_torch" "$bundle/torch/"
rm -rf "$bundle/torch/ckpt_torch/__pycache__"
cp "$root/scripts/gpu_bundle_run_torch.py" "$bundle/torch/run_torch.py"
cp "$root/examples/torch/"{mlp_stack,gpt2,llama,mixer,unet}.py "$bundle/torch/"

# LLVM's OpenMP runtime, found beside the executables through their run path.
omp=$(ldd "$bundle/steps/$(head -1 "$bundle/steps/list.txt" | tr ' ' .)" | awk '/libomp/ {print $3}')
cp -L "$omp" "$bundle/steps/"
cp -L "$omp" "$bundle/torch/steps/"

echo "gpu-bundle: compressing"
rm -rf "$out"
mkdir -p "$out"
"$python" -c '
import sys, tarfile
with tarfile.open(sys.argv[2], "w:xz", preset=6) as bundle:
    bundle.add(sys.argv[1], arcname=".")
' "$bundle" "$out/bundle.tar.xz"
cp "$root/scripts/gpu_bundle_run.sh" "$out/run.sh"

size=$(du -sm "$out" | cut -f1)
echo "gpu-bundle: $out: $size MiB"
if ((size > 64)); then
  echo "gpu-bundle: $out is over 64 MiB" >&2
  exit 1
fi
