#!/usr/bin/env python3
"""dp's chain model against the memory simulator on random training steps.

For each seed, random_graph.py makes a forward graph (chains and DAGs of
dense, attention, normalisation, vision and pointwise ops, dropout, skip
connections, prints and collectives that may not be recomputed); its
training step is checked by `ckpt-opt --ckpt-verify-chain-model` with one
to three stage crossings and a random threshold for the results a run may
keep: for every run of stages and each way it may be a segment, the
model's peak, freed bytes and recompute FLOPs must equal those of the run
materialised and simulated, byte for byte. A failure prints the seed and
the command that reproduces it, and the exit status is 1. ckpt-opt is
taken from PATH.

    check_chain_model.py [--first-seed S] [--count N] [--jobs J]
"""

import argparse
import concurrent.futures
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from random_graph import generate  # noqa: E402

CHECKED = re.compile(r"chain model matches the simulator: (\d+) stages, "
                     r"(\d+) runs, (\d+) run options")


def check(seed, work):
    """(steps, stages, run options) checked for `seed`, or a failure."""
    text, _ = generate(seed)
    forward = os.path.join(work, f"forward-{seed}.mlir")
    with open(forward, "w") as f:
        f.write(text)
    options_rng = random.Random(seed)
    totals = [0, 0, 0]
    for crossings in (1, 2, 3):
        threshold = options_rng.choice([8, 16, 64, 256])
        cmd = ["ckpt-opt", forward, "--mlir-print-op-on-diagnostic=false",
               "--ckpt-thread-rng", "--ckpt-autodiff",
               "--ckpt-verify-chain-model=stage-crossings="
               f"{crossings} selective-flops-per-element={threshold}",
               "-o", os.devnull]
        result = subprocess.run(cmd, capture_output=True, text=True,
                                timeout=300)
        found = CHECKED.findall(result.stderr)
        if result.returncode != 0 or not found:
            return None, (f"seed {seed}: {result.stderr.strip()}\n"
                          f"  graph:     random_graph.py {seed} > "
                          f"{os.path.basename(forward)}\n"
                          f"  reproduce: {shlex.join(cmd)}")
        for stages, _, options in found:
            totals[0] += 1
            totals[1] += int(stages)
            totals[2] += int(options)
    return totals, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    seeds = range(args.first_seed, args.first_seed + args.count)
    totals, failures = [0, 0, 0], []
    with tempfile.TemporaryDirectory() as work, \
            concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for counted, failure in pool.map(lambda s: check(s, work), seeds):
            if failure:
                failures.append(failure)
                continue
            totals = [a + b for a, b in zip(totals, counted)]
    for failure in failures:
        print(failure)
    print(f"{args.count} seeds from {args.first_seed}: {totals[0]} steps, "
          f"{totals[1]} stages, {totals[2]} run options checked, "
          f"{len(failures)} failed seeds")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
