#!/usr/bin/env bash
# Planning time against depth: the GPT-2-style PyTorch model of
# examples/torch/gpt2.py (context 64, tokens and labels 4x64, dropout 0.1)
# imported at 12, 24, 48 and 96 layers, planned by
# `ckpt-opt --ckpt-pipeline='strategy=S budget=B'` (64 MiB; 128 MiB at 96
# layers) with sqrt and dp, and dp without a budget (its smallest peak).
# Prints a Markdown table: wall seconds of each run (one run each, on
# whatever else the machine is doing), dp's time over sqrt's, and dp's
# simulated peak and recompute FLOPs at the budget and at its smallest peak.
# With CKPT_BASELINE_OPT=PATH (another build's ckpt-opt), its dp columns
# come beside, for before/after tables.
#
# usage: bench/planner-scale.sh [LAYERS...]   (after scripts/setup.sh)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CKPT_BUILD_DIR:-$root/build}
baseline=${CKPT_BASELINE_OPT:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
layers=("$@")
[ ${#layers[@]} -gt 0 ] || layers=(12 24 48 96)

# OPT MODEL PIPELINE: "seconds peak flops" of one planned run.
plan() {
  python3 - "$@" <<'PY'
import json, subprocess, sys, time
opt, model, pipeline = sys.argv[1:4]
start = time.perf_counter()
subprocess.run([opt, model, f"--ckpt-pipeline={pipeline}", "-o", "/dev/null",
                "--ckpt-report=format=json output=" + model + ".json"],
               check=True, stderr=subprocess.DEVNULL)
seconds = time.perf_counter() - start
step = json.load(open(model + ".json"))[0]
flops = sum(segment["flops"] for segment in step["plan"]["segments"])
print(f"{seconds:.2f} {step['peak']['bytes']} {flops}")
PY
}

header="| layers | sqrt s | dp s | dp / sqrt | dp peak at budget | dp FLOPs at budget | dp smallest peak | its FLOPs | dp s without budget |"
rule="|---|---|---|---|---|---|---|---|---|"
if [ -n "$baseline" ]; then
  header+=" baseline dp s | baseline peak at budget | baseline FLOPs at budget | baseline smallest peak | its FLOPs |"
  rule+="---|---|---|---|---|"
fi
echo "$header"
echo "$rule"
for n in "${layers[@]}"; do
  budget=64MiB
  [ "$n" -ge 96 ] && budget=128MiB
  model="$work/gpt2-$n.mlir"
  "$build/bin/ckpt-import-torch" "$root/examples/torch/gpt2.py:Gpt2" \
    --arg layers="$n" --arg context=64 --input-shape tokens=4,64:int64:512 \
    --input-shape labels=4,64:int64:512 -o "$model" > /dev/null
  read -r sqrt_s _ _ < <(plan "$build/bin/ckpt-opt" "$model" "strategy=sqrt budget=$budget")
  read -r dp_s dp_peak dp_flops < <(plan "$build/bin/ckpt-opt" "$model" "strategy=dp budget=$budget")
  read -r low_s low_peak low_flops < <(plan "$build/bin/ckpt-opt" "$model" "strategy=dp")
  row="| $n | $sqrt_s | $dp_s | $(python3 -c "print(f'{$dp_s / $sqrt_s:.1f}x')") | $dp_peak | $dp_flops | $low_peak | $low_flops | $low_s |"
  if [ -n "$baseline" ]; then
    read -r base_s base_peak base_flops < <(plan "$baseline" "$model" "strategy=dp budget=$budget")
    read -r _ base_low_peak base_low_flops < <(plan "$baseline" "$model" "strategy=dp")
    row+=" $base_s | $base_peak | $base_flops | $base_low_peak | $base_low_flops |"
  fi
  echo "$row"
done
