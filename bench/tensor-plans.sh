#!/usr/bin/env bash
# Op-level plans against plans of stages: for each model, the budget is
# halfway between dp's smallest simulated peak and the unplanned one (the
# 2-block Llama: 13883908 B, issue 20's), and
# dp and tensor each plan it (`ckpt-opt --ckpt-pipeline='strategy=S budget=B'`,
# tensor with ilp-seconds=60). Prints a Markdown table: saved buffers
# (tensor's candidates), each plan's simulated peak, recompute FLOPs in
# percent of one forward, wall seconds (one run each, on whatever else the
# machine is doing), and how tensor's plan was found.
#
# usage: bench/tensor-plans.sh   (after scripts/setup.sh)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CKPT_BUILD_DIR:-$root/build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# MODEL OPTIONS: "seconds peak percent remark" of one planned run.
plan() {
  python3 - "$build/bin/ckpt-opt" "$@" <<'PY'
import json, re, subprocess, sys, time
opt, model, options = sys.argv[1:4]
start = time.perf_counter()
run = subprocess.run([opt, model, f"--ckpt-pipeline={options} remarks=1",
                      "-o", "/dev/null",
                      "--ckpt-report=format=json output=" + model + ".json"],
                     capture_output=True, text=True, check=True)
seconds = time.perf_counter() - start
plan = json.load(open(model + ".json"))[0]["plan"]["planned"]
remark = re.search(r"remark: tensor: (\d+) of (\d+) saved buffers.*\((.*), \d+ solves?", run.stderr)
found = f"{remark.group(2)} {remark.group(3)}" if remark else "- -"
print(f"{seconds:.2f} {plan['peak_bytes']} {plan['recompute_percent_of_forward']:.2f} {found}")
PY
}

echo "| model | saved buffers | budget B | dp peak B | dp recompute % | dp s | tensor peak B | tensor recompute % | tensor s | tensor's plan |"
echo "|---|---|---|---|---|---|---|---|---|---|"
row() {
  local name=$1 model=$2 budget=$3
  read -r dp_s dp_peak dp_pct _ < <(plan "$model" "strategy=dp budget=$budget")
  read -r t_s t_peak t_pct count how < <(plan "$model" "strategy=tensor budget=$budget ilp-seconds=60")
  echo "| $name | $count | $budget | $dp_peak | $dp_pct | $dp_s | $t_peak | $t_pct | $t_s | $how |"
}
# Halfway between dp's smallest simulated peak and the unplanned one, so
# that both planners have room to choose.
halfway() {
  local low high
  low=$("$build/bin/ckpt-opt" "$1" --ckpt-pipeline=strategy=dp \
    "--ckpt-report=format=json output=-" -o /dev/null |
    python3 -c "import json, sys; print(json.load(sys.stdin)[0]['peak']['bytes'])")
  high=$("$build/bin/ckpt-opt" "$1" --ckpt-pipeline=strategy=none \
    "--ckpt-report=format=json output=-" -o /dev/null |
    python3 -c "import json, sys; print(json.load(sys.stdin)[0]['peak']['bytes'])")
  echo $(((low + high) / 2))
}

cp "$root/test/Planner/Inputs/skip-dag.mlir" "$work/unet.mlir"
row "U-Net of linear layers (test/Planner/Inputs/skip-dag.mlir)" "$work/unet.mlir" "$(halfway "$work/unet.mlir")"
for n in 2 4 8 16; do
  "$build/bin/ckpt-import-torch" "$root/examples/torch/gpt2.py:Gpt2" \
    --arg layers="$n" --arg context=64 --input-shape tokens=4,64:int64:512 \
    --input-shape labels=4,64:int64:512 -o "$work/gpt2-$n.mlir" > /dev/null
  row "GPT-2-style, $n layers, B=4 T=64" "$work/gpt2-$n.mlir" "$(halfway "$work/gpt2-$n.mlir")"
done
"$build/bin/ckpt-import-torch" "$root/examples/torch/llama.py:Llama" \
  --arg layers=2 --arg context=512 --arg width=128 --arg heads=2 \
  --arg hidden=352 --input-shape tokens=1,512:int64:512 \
  --input-shape labels=1,512:int64:512 -o "$work/llama-2.mlir" > /dev/null
row "Llama-style, 2 blocks, T=512 D=128" "$work/llama-2.mlir" 13883908
