#!/usr/bin/env python3
"""Plans for graphs with skip connections, at budgets from the smallest peak
any plan reaches to keeping everything: the extra forward FLOPs
(recomputation, % of one forward) of sqrt, selective, dp on the block chain
(one activation per cut), dp and ilp on stages cut where up to
--crossings activations cross; and how long dp and ilp take to plan (the
ckpt-plan pass, stage-chain measurement included). A budget a strategy
cannot meet shows "-". Simulated peaks (the simulator is exact for
ckpt-run's allocator).

usage: bench/dag-plans.py [--crossings N] [--budgets N] [MODEL.mlir ...]
(default models: the bundled U-Net, ResNet and FCN examples and the
planner tests' U-Net of linear layers; ckpt-opt from build/bin)
"""

import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPT = os.path.join(os.environ.get("CKPT_BUILD_DIR", os.path.join(ROOT, "build")),
                   "bin", "ckpt-opt")
DEFAULT_MODELS = ["examples/unet.mlir", "examples/resnet.mlir",
                  "examples/fcn.mlir", "test/Planner/Inputs/skip-dag.mlir"]


def plan(model, options):
    """(peak bytes, extra FLOPs %, plan seconds) of a plan, or None when it
    does not fit its budget."""
    run = subprocess.run(
        [OPT, model, "--ckpt-thread-rng", "--ckpt-autodiff",
         "--ckpt-plan=" + options, "--ckpt-insert-recompute",
         "--ckpt-report=format=json", "--mlir-timing",
         "--mlir-timing-display=list", "-o", os.devnull],
        capture_output=True, text=True)
    if run.returncode != 0:
        if "above the budget" in run.stderr:
            return None
        sys.exit(f"ckpt-opt failed on {model} with {options}:\n{run.stderr}")
    step = json.loads(run.stdout)[0]
    seconds = float(re.search(r"([0-9.]+) \(.*\)\s+CkptPlanPass",
                              run.stderr).group(1))
    return (step["peak"]["bytes"], step["plan"]["recompute_percent_of_forward"],
            seconds)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crossings", type=int, default=4)
    parser.add_argument("--budgets", type=int, default=5)
    parser.add_argument("models", nargs="*")
    args = parser.parse_args()
    models = args.models or [os.path.join(ROOT, m) for m in DEFAULT_MODELS
                             if os.path.exists(os.path.join(ROOT, m))]
    dag = f"stage-crossings={args.crossings}"
    print(f"| model | budget (B) | sqrt | selective | dp, 1 crossing | "
          f"dp, {args.crossings} crossings | ilp, {args.crossings} crossings "
          f"| dp ms | ilp ms |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for model in models:
        name = os.path.splitext(os.path.basename(model))[0]
        keep_all = plan(model, "strategy=none")[0]
        smallest = plan(model, f"strategy=ilp {dag}")[0]
        count = max(args.budgets, 2)
        budgets = [smallest + (keep_all - smallest) * i // (count - 1)
                   for i in range(count)]
        sqrt = plan(model, "strategy=sqrt")
        for budget in budgets:
            cells = []
            for options in ["strategy=selective", "strategy=dp",
                            f"strategy=dp {dag}", f"strategy=ilp {dag}"]:
                cells.append(plan(model, f"{options} budget={budget}"))
            fits = [sqrt if sqrt and sqrt[0] <= budget else None] + cells

            def extra(result):
                return "-" if result is None else f"{result[1]:.1f}%"

            def ms(result):
                return "-" if result is None else f"{1000 * result[2]:.0f}"

            print(f"| {name} | {budget} | " +
                  " | ".join(extra(r) for r in fits) +
                  f" | {ms(cells[2])} | {ms(cells[3])} |", flush=True)


if __name__ == "__main__":
    main()
