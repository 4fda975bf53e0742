#!/usr/bin/env python3
"""Plans for a pipeline stage holding N microbatches in flight (1F1B).

For each N, dp and tensor (and auto, which takes the better) plan the
GPT-2 stack (examples/gpt2_stack.mlir) under one budget with
`ckpt-pipeline="strategy=S budget=B microbatches-in-flight=N"`; the table
gives, from ckpt-opt's report on the materialised step, one step's
simulated peak, the activations it holds from forward to backward, the
peak with N in flight (peak + (N - 1) x held), recompute FLOPs in percent
of one forward, wall seconds (one run each, on whatever else the machine
is doing) and how the plan was found. A plan that does not fit says so.

usage: bench/microbatches.py [BUDGET]   (after scripts/setup.sh; default 24MiB)
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPT = os.path.join(os.environ.get("CKPT_BUILD_DIR", os.path.join(ROOT, "build")),
                   "bin", "ckpt-opt")
MODEL = os.path.join(ROOT, "examples", "gpt2_stack.mlir")


def plan(strategy, budget, microbatches, scratch):
    report = os.path.join(scratch, "report.json")
    options = (f"strategy={strategy} budget={budget} "
               f"microbatches-in-flight={microbatches} remarks=1")
    start = time.perf_counter()
    run = subprocess.run(
        [OPT, MODEL, f"--ckpt-pipeline={options}",
         f"--ckpt-report=format=json output={report}", "-o", os.devnull],
        capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if run.returncode != 0:
        smallest = re.search(r"smallest budget this strategy meets is (\d+)",
                             run.stderr)
        return {"seconds": seconds,
                "error": f"does not fit (its smallest: {smallest.group(1)} B)"
                if smallest else run.stderr.strip().splitlines()[0]}
    step = json.load(open(report))[0]
    found = re.search(r"strategy '([^']*)'", run.stderr)
    return {"seconds": seconds, "peak": step["peak"]["bytes"],
            "held": step["peak"]["activation_bytes_at_backward"],
            "in_flight": step["plan"]["peak_bytes_in_flight"],
            "percent": step["plan"]["recompute_percent_of_forward"],
            "how": found.group(1) if found else strategy}


def main():
    budget = sys.argv[1] if len(sys.argv) > 1 else "24MiB"
    print(f"GPT-2 stack (examples/gpt2_stack.mlir), budget {budget}\n")
    print("| microbatches in flight | strategy | one step's peak B | held "
          "forward to backward B | peak in flight B | recompute % | s | "
          "plan |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        for microbatches in (1, 2, 4, 8):
            for strategy in ("dp", "tensor", "auto"):
                row = plan(strategy, budget, microbatches, scratch)
                if "error" in row:
                    print(f"| {microbatches} | {strategy} | | | | | "
                          f"{row['seconds']:.2f} | {row['error']} |")
                    continue
                print(f"| {microbatches} | {strategy} | {row['peak']} | "
                      f"{row['held']} | {row['in_flight']} | "
                      f"{row['percent']:.2f} | {row['seconds']:.2f} | "
                      f"{row['how']} |")


if __name__ == "__main__":
    main()
