#!/usr/bin/env python3
"""Plans for graphs with skip connections, at budgets from the smallest peak
any plan reaches to keeping everything: the extra forward FLOPs
(recomputation, % of one forward) of sqrt, selective, dp on the block chain
(one activation per cut), dp and ilp on stages cut where up to
--crossings activations cross, and ilp's program alone (ilp-presolve=false,
with its gap when it stops at ilp-seconds); and how long dp and ilp take to
plan (the ckpt-plan pass, stage-chain measurement included). A budget a
strategy cannot meet shows "-". Simulated peaks.

usage: bench/dag-plans.py [--crossings N] [--budgets N] [--ilp-seconds S]
                          [MODEL.mlir ...]
(default models: the zoo's U-Net, ResNet and FCN imported from
examples/torch at the tests' sizes, and the planner tests' U-Net of linear
layers; tools from build/bin)
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(os.environ.get("CKPT_BUILD_DIR", os.path.join(ROOT, "build")),
                   "bin")
OPT = os.path.join(BIN, "ckpt-opt")
ZOO = [("unet", "UNet", ["image=2,3,32,32", "target=2,3,32,32"]),
       ("resnet", "ResNet", ["images=2,3,32,32", "labels=2:int64:10"]),
       ("fcn", "Fcn", ["images=2,3,32,32", "labels=2,32,32:int64:5"])]


def import_zoo(directory):
    """The zoo's vision models as MLIR files in `directory`."""
    models = []
    for name, cls, shapes in ZOO:
        out = os.path.join(directory, name + ".mlir")
        command = [os.path.join(BIN, "ckpt-import-torch"),
                   os.path.join(ROOT, "examples", "torch", name + ".py") + ":" + cls]
        for shape in shapes:
            command += ["--input-shape", shape]
        subprocess.run(command + ["-o", out], check=True)
        models.append(out)
    return models


def plan(model, options):
    """(peak bytes, extra FLOPs %, plan seconds, ilp's gap or "") of a plan,
    or None when it does not fit its budget."""
    run = subprocess.run(
        [OPT, model, "--ckpt-pipeline=" + options, "--ckpt-report=format=json", "--mlir-timing",
         "--mlir-timing-display=list", "-o", os.devnull],
        capture_output=True, text=True)
    if run.returncode != 0:
        if "above the budget" in run.stderr:
            return None
        sys.exit(f"ckpt-opt failed on {model} with {options}:\n{run.stderr}")
    step = json.loads(run.stdout)[0]
    seconds = float(re.search(r"([0-9.]+) \(.*\)\s+CkptPlanPass",
                              run.stderr).group(1))
    gap = re.search(r"at most ([0-9.]+%) more than the optimum", run.stderr)
    return (step["peak"]["bytes"], step["plan"]["recompute_percent_of_forward"],
            seconds, gap.group(1) if gap else "")


def extra(result):
    if result is None:
        return "-"
    return f"{result[1]:.1f}%" + (f" (gap {result[3]})" if result[3] else "")


def milliseconds(result):
    return "-" if result is None else f"{1000 * result[2]:.0f}"


def table(models, args):
    dag = f"stage-crossings={args.crossings}"
    ilp = f"strategy=ilp {dag} ilp-seconds={args.ilp_seconds}"
    print(f"| model | budget (B) | sqrt | selective | dp, 1 crossing | "
          f"dp, {args.crossings} crossings | ilp, {args.crossings} crossings "
          f"| ilp program alone | dp ms | ilp ms | ilp program alone ms |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for model in models:
        name = os.path.splitext(os.path.basename(model))[0]
        keep_all = plan(model, "strategy=none")[0]
        smallest = plan(model, ilp)[0]
        count = max(args.budgets, 2)
        budgets = [smallest + (keep_all - smallest) * i // (count - 1)
                   for i in range(count)]
        sqrt = plan(model, "strategy=sqrt")
        for budget in budgets:
            cells = [plan(model, f"{options} budget={budget}")
                     for options in ["strategy=selective", "strategy=dp",
                                     f"strategy=dp {dag}", ilp,
                                     ilp + " ilp-presolve=false"]]
            fits = [sqrt if sqrt and sqrt[0] <= budget else None] + cells
            print(f"| {name} | {budget} | " +
                  " | ".join(extra(r) for r in fits) +
                  f" | {milliseconds(cells[2])} | {milliseconds(cells[3])}"
                  f" | {milliseconds(cells[4])} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crossings", type=int, default=4)
    parser.add_argument("--budgets", type=int, default=5)
    parser.add_argument("--ilp-seconds", type=float, default=10)
    parser.add_argument("models", nargs="*")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        models = args.models or import_zoo(directory) + [
            os.path.join(ROOT, "test", "Planner", "Inputs", "skip-dag.mlir")]
        table(models, args)


if __name__ == "__main__":
    main()
