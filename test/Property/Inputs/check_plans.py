#!/usr/bin/env python3
"""Property tests of checkpointing on random training graphs.

For each seed, random_graph.py makes a forward graph; every strategy plans
its training step (thread-rng, autodiff, plan, insert-recompute, report)
under a random budget between below the smallest peak dp finds and above
keeping everything, and these must hold:

- the IR verifies after every pass (ckpt-opt --verify-each) and no tool
  crashes;
- a plan that succeeds has a simulated peak within its budget;
- a budget a plan cannot meet is an error naming the smallest budget the
  strategy meets, that budget is above the one given, and planning with it
  succeeds; dp (one crossing per stage) never fails a budget at or above
  its own smallest peak;
- the manual plan is an error exactly when a user segment holds an op that
  cannot be recomputed;
- no recompute region holds an op that cannot be recomputed (I/O,
  collectives, nondeterministic atomics, calls, implicit randomness);
- ckpt-run's loss and gradients are bit-identical (.npy bytes) to those of
  the plan that keeps everything, on the same seed, dropout included;
- the peak ckpt-run measures (with and without the returned gradients) is
  never above the simulated one, so a budget holds at run time too;
- auto (with a budget, on a step without user segments) fits wherever dp
  does, with at most dp's recompute FLOPs, and names its method.

Graphs with a collective or an index_add are planned but not run (they
are not lowered); prints are removed from a planned step before it runs.
A failure prints the seed, the plan and the commands that reproduce it,
and the exit status is 1. The tools are taken from PATH.

    check_plans.py [--first-seed S] [--count N | --minutes M] [--jobs J] [--keep DIR]
"""

import argparse
import concurrent.futures
import filecmp
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from random_graph import generate  # noqa: E402

STRATEGIES = ["manual", "none", "uniform", "sqrt", "selective", "dp", "ilp",
              "tensor", "auto"]
TOOL_TIMEOUT_S = 300
# Ops that must never run twice, as they appear in printed IR.
ILLEGAL_IN_RECOMPUTE = [
    (re.compile(r"\bckpt\.print\b"), "ckpt.print (I/O)"),
    (re.compile(r"\bckpt\.all_reduce\b"), "ckpt.all_reduce (collective)"),
    (re.compile(r"\bckpt\.index_add\b.*deterministic = false"),
     "nondeterministic ckpt.index_add"),
    (re.compile(r"\bfunc\.call\b"), "func.call (unknown effects)"),
    (re.compile(r"\bckpt\.dropout\b(?!.* rng )"),
     "ckpt.dropout without explicit random state"),
]
MEASURED_PEAK = re.compile(r"^(peak bytes.*): measured (\d+) .*, simulated (\d+) ",
                           re.MULTILINE)
BUDGET_ERROR = re.compile(
    r"above the budget of (\d+) B\b.*the smallest budget this strategy meets is (\d+) B")


class PropertyFailure(Exception):
    pass


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True,
                          timeout=TOOL_TIMEOUT_S)


def crashed(result):
    return result.returncode < 0 or "Stack dump" in result.stderr \
        or "PLEASE submit a bug report" in result.stderr


def illegal_ops_in_recompute_regions(ir):
    """(regions found, descriptions of illegal ops inside them)."""
    regions, found, depth = 0, [], 0
    for line in ir.splitlines():
        if depth == 0 and "ckpt.recompute(" in line:
            regions += 1
        elif depth > 0:
            found += [what for pattern, what in ILLEGAL_IN_RECOMPUTE
                      if pattern.search(line)]
        if depth > 0 or "ckpt.recompute(" in line:
            depth += line.count("{") - line.count("}")
    return regions, found


class Case:
    def __init__(self, seed, work):
        self.seed = seed
        self.work = work
        self.text, self.graph = generate(seed)
        self.forward = os.path.join(work, "forward.mlir")
        with open(self.forward, "w") as f:
            f.write(self.text)
        self.runnable = self.graph.side_effects != "unrunnable"
        self.segmented = "ckpt.checkpoint" in self.text
        self.plans = 0
        self.runs = 0

    def plan_command(self, name, options):
        return ["ckpt-opt", self.forward, "--verify-each=true",
                "--mlir-print-op-on-diagnostic=false", "--ckpt-thread-rng",
                "--ckpt-autodiff", f"--ckpt-plan={options}",
                "--ckpt-insert-recompute",
                f"--ckpt-report=format=json output={self.path(name + '.json')}",
                "-o", self.path(name + ".mlir")]

    def path(self, name):
        return os.path.join(self.work, name)

    def fail(self, options, what, cmd):
        raise PropertyFailure(
            f"seed {self.seed}: plan '{options}': {what}\n"
            f"  graph:     random_graph.py {self.seed} > forward.mlir\n"
            f"  reproduce: {shlex.join(cmd)}\n"
            f"  rerun:     check_plans.py --first-seed {self.seed} --count 1 --keep DIR"
            " (keeps the files the commands name in DIR/seed-N)")

    def plan(self, name, options):
        """Plans with `options`; returns the report, or the ckpt-opt result
        when it fails without crashing."""
        cmd = self.plan_command(name, options)
        self.plans += 1
        result = run(cmd)
        with open(self.path("plans.log"), "a") as log:
            log.write(f"{shlex.join(cmd)}\n  exit {result.returncode}\n{result.stderr}")
        if crashed(result):
            self.fail(options, f"ckpt-opt crashed:\n{result.stderr}", cmd)
        if result.returncode != 0:
            return None, result
        with open(self.path(name + ".json")) as f:
            reports = json.load(f)
        if len(reports) != 1:
            self.fail(options, f"{len(reports)} training steps reported", cmd)
        return reports[0], result

    def check_plan(self, name, strategy, options, budget, must_fit=False):
        """Plans and checks the properties; returns the planned step, or
        None when planning failed as it should. With `must_fit`, the budget
        is the smallest one an error named, and planning must succeed."""
        report, result = self.plan(name, options)
        cmd = self.plan_command(name, options)
        # auto without a budget, or on the user's segments, is manual.
        if strategy == "auto" and (budget is None or self.segmented):
            strategy = "manual"
        illegal_segment = strategy == "manual" and self.graph.manual_plan_illegal()
        if report is None:
            if must_fit:
                self.fail(options, "the smallest budget an error named is "
                          f"refused:\n{result.stderr}", cmd)
            if illegal_segment and "cannot be recomputed" in result.stderr:
                return None
            match = BUDGET_ERROR.search(result.stderr)
            if budget is None or not match or int(match.group(1)) != budget:
                self.fail(options, f"unexpected failure:\n{result.stderr}", cmd)
            smallest = int(match.group(2))
            if smallest <= budget:
                self.fail(options, f"budget {budget} B refused, but the error "
                          f"says {smallest} B is met", cmd)
            # dp's plans, and ilp's, include the smallest-peak plan dp
            # finds without a budget (with one crossing per stage).
            if strategy in ("dp", "ilp") and "stage-crossings" not in options \
                    and budget >= self.dp_smallest_peak:
                self.fail(options, f"budget {budget} B refused, but dp reaches "
                          f"{self.dp_smallest_peak} B without one", cmd)
            self.check_plan(name, strategy,
                            options.replace(f"budget={budget}", f"budget={smallest}"),
                            smallest, must_fit=True)
            return None
        if illegal_segment:
            self.fail(options, "a manual segment with an op that cannot be "
                      "recomputed was accepted", cmd)
        recorded = report["plan"]["strategy"]
        if recorded != strategy and not (strategy == "auto" and re.fullmatch(
                r"auto: (tensor \(.*\)|dp)", recorded)):
            self.fail(options, f"the step records strategy "
                      f"'{report['plan']['strategy']}'", cmd)
        peak = report["peak"]["bytes"]
        if budget is not None and peak > budget:
            self.fail(options, f"simulated peak {peak} B above the budget "
                      f"{budget} B, without an error", cmd)
        with open(self.path(name + ".mlir")) as f:
            step = f.read()
        regions, illegal = illegal_ops_in_recompute_regions(step)
        if regions != len(report["plan"]["segments"]):
            self.fail(options, f"{regions} recompute regions in the IR, "
                      f"{len(report['plan']['segments'])} in the report", cmd)
        if illegal:
            self.fail(options, "recomputed: " + ", ".join(illegal), cmd)
        return step

    def run_step(self, name, options, step):
        """Runs a planned step; returns its output directory."""
        runnable = self.path(name + ".run.mlir")
        with open(runnable, "w") as f:
            # print is not lowered; it has no results, so dropping it after
            # planning changes no value.
            f.write("\n".join(line for line in step.splitlines()
                              if "ckpt.print " not in line) + "\n")
        out = self.path(name + ".out")
        cmd = ["ckpt-run", runnable, "--seed", str(self.seed), "--out", out]
        self.runs += 1
        result = run(cmd)
        if result.returncode != 0:
            self.fail(options, f"ckpt-run failed:\n{result.stderr}", cmd)
        peaks = MEASURED_PEAK.findall(result.stdout)
        if len(peaks) != 2:
            self.fail(options, f"no measured peaks in:\n{result.stdout}", cmd)
        for label, measured, simulated in peaks:
            if int(measured) > int(simulated):
                self.fail(options, f"{label}: measured {measured} B, above the "
                          f"simulated {simulated} B", cmd)
        return out

    def compare_outputs(self, options, reference, out):
        cmd = ["diff", "-r", reference, out]
        names = sorted(os.listdir(reference))
        if not names or names != sorted(os.listdir(out)):
            self.fail(options, f"ckpt-run wrote {sorted(os.listdir(out))}, the "
                      f"none plan {names}", cmd)
        _, mismatch, errors = filecmp.cmpfiles(reference, out, names,
                                               shallow=False)
        if mismatch or errors:
            self.fail(options, "differs from the none plan: "
                      + ", ".join(mismatch + errors), cmd)

    def check(self):
        options_rng = random.Random(f"plans {self.seed}")
        step = self.check_plan("reference", "none", "strategy=none", None)
        keep_all_peak = self.peak("reference")
        self.check_plan("dp-smallest", "dp", "strategy=dp", None)
        self.dp_smallest_peak = self.peak("dp-smallest")
        reference = self.run_step("reference", "strategy=none", step) \
            if self.runnable else None
        for strategy in STRATEGIES:
            options = [f"strategy={strategy}"]
            if strategy in ("uniform", "selective") and options_rng.random() < 0.5:
                options.append(f"stages-per-segment={options_rng.randint(1, 4)}")
            if strategy in ("dp", "ilp") and options_rng.random() < 0.4:
                options.append(f"stage-crossings={options_rng.randint(2, 4)}")
            if strategy in ("ilp", "tensor", "auto"):
                options.append("ilp-seconds=20")
            budget = self.random_budget(options_rng, keep_all_peak)
            if budget is not None:
                options.append(f"budget={budget}")
            spelled = " ".join(options)
            step = self.check_plan(strategy, strategy, spelled, budget)
            if step is not None and reference is not None:
                self.compare_outputs(spelled, reference,
                                     self.run_step(strategy, spelled, step))
        if not self.segmented:
            self.check_auto_against_dp(options_rng, keep_all_peak)

    def check_auto_against_dp(self, rng, keep_all_peak):
        """auto under dp's budget: it fits wherever dp does, with at most
        dp's recompute FLOPs."""
        budget = self.random_budget(rng, keep_all_peak) or keep_all_peak
        dp, _ = self.plan("dp-at-budget", f"strategy=dp budget={budget}")
        if dp is None:
            return
        options = f"strategy=auto ilp-seconds=20 budget={budget}"
        auto, result = self.plan("auto-at-budget", options)
        if auto is None:
            self.fail(options, f"dp fits budget {budget} B, auto fails:\n"
                      f"{result.stderr}", self.plan_command("auto-at-budget",
                                                            options))

        def flops(report):
            return sum(region["flops"] for region in report["plan"]["segments"])
        if flops(auto) > flops(dp):
            self.fail(options, f"auto recomputes {flops(auto)} FLOPs, dp "
                      f"{flops(dp)}, at budget {budget} B",
                      self.plan_command("auto-at-budget", options))

    def peak(self, name):
        with open(self.path(name + ".json")) as f:
            return json.load(f)[0]["peak"]["bytes"]

    def random_budget(self, rng, keep_all_peak):
        """None, a boundary or a byte count from below dp's smallest peak
        to above keeping everything."""
        low = self.dp_smallest_peak
        choice = rng.random()
        if choice < 0.15:
            return None
        if choice < 0.3:
            return rng.choice([low - 1, low, keep_all_peak - 1, keep_all_peak])
        return rng.randint(int(low * 0.8), int(keep_all_peak * 1.1))


def check_seed(seed, keep):
    """Checks one seed; returns (seed, plans, runs, failure text or None)."""
    if keep:
        work = os.path.join(keep, f"seed-{seed}")
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
    else:
        work = tempfile.mkdtemp(prefix=f"ckpt-property-{seed}-")
    case = None
    try:
        case = Case(seed, work)
        case.check()
        return seed, case.plans, case.runs, None
    except PropertyFailure as failure:
        return seed, case.plans, case.runs, str(failure)
    except subprocess.TimeoutExpired as timeout:
        return seed, case.plans if case else 0, case.runs if case else 0, \
            f"seed {seed}: timed out: {shlex.join(timeout.cmd)}"
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first-seed", type=int, default=0)
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--count", type=int, default=10,
                        help="seeds to check, from the first one")
    length.add_argument("--minutes", type=float,
                        help="check seeds until this much time has passed")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--keep", help="keep each seed's files in DIR/seed-N")
    args = parser.parse_args()

    start = time.monotonic()
    deadline = start + args.minutes * 60 if args.minutes else None

    def seeds():
        seed = args.first_seed
        while deadline is not None or seed < args.first_seed + args.count:
            if deadline is not None and time.monotonic() > deadline:
                return
            yield seed
            seed += 1

    checked = plans = runs = 0
    failures = []
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        pending = set()
        for seed in seeds():
            pending.add(pool.submit(check_seed, seed, args.keep))
            if len(pending) < 2 * args.jobs:
                continue
            done, pending = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                checked, plans, runs = tally(future.result(), failures,
                                             checked, plans, runs)
        for future in concurrent.futures.as_completed(pending):
            checked, plans, runs = tally(future.result(), failures, checked,
                                         plans, runs)
    print(f"{checked} seeds from {args.first_seed}: {plans} plans, {runs} runs, "
          f"{len(failures)} failed seeds ({time.monotonic() - start:.0f} s)")
    if failures:
        print("failed seeds: " + " ".join(str(s) for s in sorted(failures)))
    return 1 if failures else 0


def tally(result, failures, checked, plans, runs):
    seed, case_plans, case_runs, failure = result
    if failure:
        print("FAIL " + failure, flush=True)
        failures.append(seed)
    return checked + 1, plans + case_plans, runs + case_runs


if __name__ == "__main__":
    sys.exit(main())
