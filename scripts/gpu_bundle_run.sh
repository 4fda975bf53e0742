#!/usr/bin/env bash
# The GPU check that scripts/gpu-bundle.sh bundles (this file is its
# run.sh): `bash run.sh` on a machine with an NVIDIA GPU and its driver;
# needs no MLIR, no build and no network. PYTHON (default python3) with
# PyTorch and CUDA unpacks bundle.tar.xz beside this file (unpacked/) and
# runs the PyTorch half; cuBLAS is found on the loader's path or in that
# PyTorch's own packages. The executables need glibc 2.34 and GCC 11's
# libstdc++ or later.
#
# For every bundled example and plan, the compiled step runs on the GPU
# (seed 1): its gradients and loss against an f64 run on the CPU (relative
# L2 difference of all gradients, at most 1e-4; where the bundle has only
# the f64 run's digest, each gradient's L2 norm and the loss within 1e-4),
# its measured peak device bytes against the simulator's (within 1%), and
# its step time (CUDA events, mean of 10); the dropout-mask step's
# gradients equal the CPU's byte for byte. Then torch/run_torch.py times
# the PyTorch models against PyTorch eager with the same plans. Prints one
# table each; exits 1 if any check failed.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=${PYTHON:-python3}

bundle=$here/unpacked
rm -rf "$bundle"
if ! "$python" -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
    "$here/bundle.tar.xz" "$bundle"; then
  echo "run.sh: cannot unpack $here/bundle.tar.xz with $python" >&2
  exit 1
fi
# A bundle for the CPU (gpu-bundle.sh --device cpu) checks the bundle itself.
device=$(cat "$bundle/device")
if [[ $device == cuda ]] && ! nvidia-smi -L; then
  echo "run.sh: no GPU here (nvidia-smi -L failed)" >&2
  exit 1
fi
if site=$("$python" -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))' 2> /dev/null); then
  for folder in $(find "$site/nvidia" "$site/torch/lib" -name 'libcublas.so*' 2> /dev/null | xargs -r -n1 dirname | sort -u); do
    LD_LIBRARY_PATH=$folder${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  done
  export LD_LIBRARY_PATH
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0

echo
echo "| example | plan | gradients against f64 | peak MiB: measured / simulated | step ms |"
echo "| --- | --- | --- | ---: | ---: |"
while read -r name plan; do
  step=$bundle/steps/$name.$plan
  log=$scratch/$name.$plan.txt
  reference=$bundle/f64/$name
  if [[ $name == dropout-mask ]]; then
    timeout 120 "$step" --seed 1 --out "$scratch/$name.$plan" > "$log" 2>&1
    status=$?
    verdict="masks identical"
    for expected in "$bundle/cpu/$name"/*.npy; do
      if ! cmp -s "$expected" "$scratch/$name.$plan/$(basename "$expected")"; then
        verdict="masks DIFFER: $(basename "$expected")"
        status=1
      fi
    done
  elif compgen -G "$reference/grad*.npy" > /dev/null; then
    timeout 300 "$step" --seed 1 --reference "$reference" --check-peak 0.01 \
      --repeat 10 > "$log" 2>&1
    status=$?
    verdict=$(sed -n 's/^reference: \([A-Za-z]*\) (gradients: relative L2 difference \([0-9.e+-]*\).*/\1, \2/p' "$log" | head -1)
  else
    timeout 300 "$step" --seed 1 --check-peak 0.01 --repeat 10 > "$log" 2>&1
    status=$?
    # The loss and each gradient's L2 norm against the f64 run's.
    verdict=$(awk '
      FNR == NR { f64[$0 ~ /^loss/ ? "loss" : $4] = $NF; expected++; next }
      /^loss:/ { key = "loss"; value = $2 }
      /^grad of argument/ { key = $4; value = $NF }
      /^(loss:|grad of argument)/ {
        if (!(key in f64)) { missing = 1; next }
        seen++
        d = value - f64[key]; d = d < 0 ? -d : d
        scale = f64[key] < 0 ? -f64[key] : f64[key]
        r = scale > 0 ? d / scale : d
        if (r > worst) worst = r
      }
      END {
        if (missing || seen != expected) print "norms MISSING"
        else printf "%s, worst %.3g (norms)\n", worst <= 1e-4 ? "agrees" : "DIFFERS", worst
      }' "$reference/digest.txt" "$log")
    [[ $verdict == agrees* ]] || status=1
  fi
  peak=$(sed -n 's/^peak bytes: measured \([0-9]*\) .*simulated \([0-9]*\).*/\1 \2/p' "$log" | head -1)
  ms=$(sed -n 's/^step time: \([0-9.]*\) ms mean.*/\1/p' "$log" | head -1)
  if [[ -n $peak ]]; then
    peak=$(awk -v m="${peak% *}" -v s="${peak#* }" 'BEGIN { printf "%.2f / %.2f", m / 1048576, s / 1048576 }')
  fi
  if ((status != 0)); then
    failed=1
    verdict="FAILED (exit $status): ${verdict:-$(grep -m1 -i error "$log")}"
  fi
  echo "| $name | $plan | $verdict | ${peak:--} | ${ms:--} |"
done < "$bundle/steps/list.txt"

echo
if ! "$python" "$bundle/torch/run_torch.py" "$bundle/torch" --device "$device"; then
  failed=1
fi
if ((failed)); then
  echo "run.sh: some checks FAILED (above)" >&2
fi
exit $failed
