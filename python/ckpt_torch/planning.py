"""`plan`: import a module, plan it with ckpt-opt within PyTorch's bytes,
apply the plan.

ckpt-opt plans the training step it imported, against its own simulator.
PyTorch's step holds other bytes (its own backward, its kernels' scratch,
the executor's reruns), so under the ops executor the budget is PyTorch's:
the step is traced once (memory.py) and every plan ckpt-opt makes is
replayed on the trace. The search moves the budget ckpt-opt plans for by
the difference it finds between the two, keeps the cheapest plan whose
predicted PyTorch peak fits, and ends when that plan comes within a small
margin of the budget or the bracket closes.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Any, Sequence

import torch

from . import memory
from .errors import PlanError
from .plans import apply_plan, op_plan

__all__ = ["plan"]

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# A plan whose predicted peak is this close below the budget ends the
# search; each rerun of ckpt-opt costs about as much as the gain past it.
_CLOSE_ENOUGH = 0.005
_MOST_ROUNDS = 8
# ckpt-opt's error for a budget below what its strategy can meet.
_SMALLEST = re.compile(r"the smallest budget this strategy meets is (\d+) B")


def _ckpt_opt(explicit: str | None) -> str:
    """The ckpt-opt to run: `explicit`, else $CKPT_OPT (either must be an
    executable), else the one on PATH, else the repository's build."""
    for given, what in ((explicit, "ckpt_opt"),
                        (os.environ.get("CKPT_OPT"), "CKPT_OPT")):
        if given:
            if not os.access(given, os.X_OK):
                raise PlanError(f"{what} '{given}' is not an executable")
            return given
    for candidate in (shutil.which("ckpt-opt"),
                      os.path.join(_ROOT, "build", "bin", "ckpt-opt")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise PlanError("cannot find ckpt-opt: build the repository, put it on "
                    "PATH, or set CKPT_OPT")


def _importer() -> Any:
    directory = os.path.join(_ROOT, "tools", "ckpt-import-torch")
    if directory not in sys.path:
        sys.path.insert(0, directory)
    import ckpt_import_torch
    return ckpt_import_torch


@dataclass
class _Planned:
    """One plan: as ckpt-opt exported it (its report: ckpt-opt's peak and
    recompute FLOPs; the budget it was asked for), and PyTorch's step under
    it where there is a trace (its dropped outputs, with those the repair
    added)."""

    plan: dict
    report: dict
    budget: int | None
    dropped: frozenset = frozenset()
    predicted: memory.Prediction | None = None
    repaired: int = 0  # storages dropped beyond ckpt-opt's plan

    @property
    def flops(self) -> int:
        return self.report["compute"]["recompute"]["flops"]

    @property
    def peak(self) -> int:
        return self.report["plan"]["peak_bytes_in_flight"]


class _CkptOpt:
    """Runs ckpt-opt on the imported step, one plan per run."""

    def __init__(self, program: str, step: str, directory: str,
                 executor: str, modules: Sequence[str] | None,
                 microbatches: int):
        self.program = program
        self.step = step
        self.directory = directory
        self.executor = executor
        self.modules = modules
        self.microbatches = microbatches
        self.runs = 0

    def run(self, strategy: str, budget: str | int | None) -> _Planned:
        """The plan of `strategy` within `budget` (ckpt-opt's bytes)."""
        self.runs += 1
        pipeline = f"strategy={strategy} fuse-pointwise=0"
        if budget is not None:
            pipeline += f" budget={budget}"
        if self.microbatches != 1:
            pipeline += f" microbatches-in-flight={self.microbatches}"
        plan_path = os.path.join(self.directory, "plan.json")
        report_path = os.path.join(self.directory, "report.json")
        export = f"output={plan_path} executor={self.executor}"
        if self.modules:
            export += f" modules={','.join(self.modules)}"
        command = [self.program, self.step, f"--ckpt-pipeline={pipeline}",
                   f"--ckpt-export-torch-plan={export}",
                   f"--ckpt-report=format=json output={report_path}",
                   "-o", os.devnull]
        run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode != 0:
            raise PlanError("ckpt-opt failed:\n" + run.stderr.strip())
        with open(plan_path) as f:
            plan = json.load(f)
        with open(report_path) as f:
            report = json.load(f)[0]
        return _Planned(plan, report,
                        report["plan"].get("budget_bytes"))


_UNITS = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9,
          "TB": 10**12, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30,
          "TiB": 2**40}
_BYTE_SIZE = re.compile(r"\s*([0-9.eE+-]+)\s*([A-Za-z]*)\s*")


def byte_size(size: str | int) -> int:
    """`size` in bytes: an int, or as ckpt-opt spells budgets: a number and
    a unit of _UNITS (24GiB, 1.5e9)."""
    if isinstance(size, int) and not isinstance(size, bool):
        value = size
    else:
        match = _BYTE_SIZE.fullmatch(str(size))
        try:
            value = int(float(match.group(1)) * _UNITS[match.group(2)])
        except (AttributeError, KeyError, ValueError):
            raise PlanError(
                f"invalid byte size {size!r}: expected an int, or a number "
                f"and a unit ({', '.join(u for u in _UNITS if u)})") from None
    if value < 1:
        raise PlanError(f"invalid byte size {size!r}: a budget must be at "
                        "least 1 byte")
    return value


def _fit(ckpt: _CkptOpt, trace: memory.StepTrace, strategy: str,
         budget: str | int, microbatches: int) -> tuple[_Planned, dict]:
    """The plan whose reruns take least time among those whose PyTorch
    peak (predicted on `trace`) is within `budget`: ckpt-opt's plans at
    the budgets a search over its own bytes tries, each repaired where
    PyTorch's step holds more than ckpt-opt's; and what the search saw."""
    limit = byte_size(budget)

    def predict(planned: _Planned) -> _Planned:
        planned.dropped = op_plan(planned.plan).dropped
        planned.predicted = trace.replay(planned.dropped, microbatches)
        return planned

    # Nothing dropped: what PyTorch does without a plan.
    none = ckpt.run("none", None)
    none.plan = {**none.plan, "dropped": []}
    none = predict(none)
    seen = [none]
    if none.predicted.peak <= limit:
        return none, _search_record(limit, seen)
    # Chain plans first: dp is fast, so the search moves its budget; the
    # op-level MILP (tensor, or auto's pick) runs once, at the budget
    # found.
    search = "dp" if strategy in ("auto", "tensor") else strategy
    fitting: list[_Planned] = []
    # ckpt-opt budgets: plans at `low` fit (or ckpt-opt meets no lower
    # one), at `high` PyTorch's peak is above the budget.
    low, high = 0, None
    asked = limit - (none.predicted.peak - none.peak)
    for _ in range(_MOST_ROUNDS):
        if asked <= low or (high is not None and asked >= high):
            asked = (low + high) // 2 if high is not None else 2 * low
        try:
            planned = predict(ckpt.run(search, asked))
        except PlanError as error:
            smallest = _SMALLEST.search(str(error))
            if smallest is None:
                raise
            low = max(low, asked)
            asked = int(smallest.group(1))
            continue
        seen.append(planned)
        if planned.predicted.peak <= limit:
            low = max(low, asked)
            fitting.append(planned)
            if planned.predicted.peak >= limit * (1 - _CLOSE_ENOUGH):
                break
        else:
            high = asked if high is None else min(high, asked)
        if high is not None and high - low <= limit * _CLOSE_ENOUGH:
            break
        asked = limit - (planned.predicted.peak - planned.peak)
    if strategy != search:
        planned = [p for p in seen if p.budget is not None]
        if fitting:
            at = max(fitting, key=lambda p: p.budget).budget
        else:
            at = min(planned, key=lambda p: p.predicted.peak).budget \
                if planned else None
        with contextlib.suppress(PlanError):
            finer = predict(ckpt.run(strategy, at))
            seen.append(finer)
            if finer.predicted.peak <= limit:
                fitting.append(finer)
    if not fitting:
        # ckpt-opt's plans all hold more in PyTorch than it thinks: drop
        # more where PyTorch peaks, starting from the lowest.
        for planned in sorted(seen[1:], key=lambda p: p.predicted.peak)[:2]:
            repaired = _repair(trace, planned, limit, microbatches)
            if repaired is not None:
                seen.append(repaired)
                fitting.append(repaired)
    if not fitting:
        lowest = min(seen, key=lambda p: p.predicted.peak)
        raise PlanError(
            f"no plan keeps PyTorch's peak within {limit} B: the lowest "
            f"found is {lowest.predicted.peak} B; raise the budget")
    best = min(fitting, key=lambda p: (p.predicted.rerun_ns,
                                       p.predicted.peak))
    return best, _search_record(limit, seen)


# The repair's rounds, each dropping one more storage.
_MOST_REPAIRS = 16


def _repair(trace: memory.StepTrace, planned: _Planned, limit: int,
            microbatches: int) -> _Planned | None:
    """`planned` with more dropped until PyTorch's peak fits `limit`, or
    None: each round drops the storage, of those forward made that are
    held at the peak and that any plan may drop, that lowers the peak
    most per nanosecond its reruns add."""
    fixed = {trace.calls[c].outputs[o] for c, o in planned.plan["fixed"]
             if c < len(trace.calls) and o < len(trace.calls[c].outputs)}
    dropped = planned.dropped
    now = planned.predicted
    added = 0
    for _ in range(_MOST_REPAIRS):
        if now.peak <= limit:
            break
        taken = {trace.calls[c].outputs[o] for c, o in dropped}
        best = None
        for storage in now.live_at_peak:
            if storage in taken or storage in fixed:
                continue
            trying = dropped | frozenset(trace.outputs_in(storage))
            then = trace.replay(trying, microbatches)
            gain = now.peak - then.peak
            if gain <= 0:
                continue
            score = gain / max(then.rerun_ns - now.rerun_ns, 1)
            if best is None or score > best[0]:
                best = (score, trying, then)
        if best is None:
            return None
        _, dropped, now = best
        added += 1
    if now.peak > limit:
        return None
    plan = dict(planned.plan)
    plan["dropped"] = sorted([list(d) for d in dropped])
    return _Planned(plan, planned.report, planned.budget, dropped, now,
                    planned.repaired + added)


def _search_record(limit: int, seen: list[_Planned]) -> dict:
    return {"budget": limit, "plans": [
        {"plan": p.plan.get("plan"), "ckpt_budget": p.budget,
         "ckpt_peak": p.peak, "ckpt_recompute_flops": p.flops,
         "repaired_storages": p.repaired,
         "predicted_peak": p.predicted.peak,
         "predicted_rerun_ns": p.predicted.rerun_ns} for p in seen]}


def plan(module: torch.nn.Module, example_inputs: Sequence[Any],
         budget: str | int | None = None, strategy: str = "auto",
         executor: str = "ops", modules: Sequence[str] | None = None,
         ckpt_opt: str | None = None, keep: str | None = None,
         microbatches_in_flight: int = 1,
         autocast: torch.dtype | None = None) -> torch.nn.Module:
    """Imports `module` (whose forward returns the loss) on
    `example_inputs`, plans its training step with ckpt-opt (`strategy`:
    auto, dp, tensor, ...; `budget`: bytes as an int or ckpt-opt's
    spelling, "2GiB", "512MiB"), and returns the module with the plan
    applied.

    `executor="ops"` (the default) runs the plan exactly (executor.py), and
    the budget is the highest total PyTorch's allocator holds in one
    training step (forward and backward, the parameters, inputs and
    gradients included), predicted by tracing the step once
    (memory.py); `microbatches_in_flight=N` (a pipeline stage running
    1F1B) adds N - 1 microbatches' bytes held from forward to backward.
    `executor="regions"` applies the plan as selective checkpointing of
    submodule calls (`modules`: glob patterns of those calls instead of
    the automatic choice), and the budget is ckpt-opt's simulated peak.

    `ckpt_opt` is the ckpt-opt to run (default: $CKPT_OPT, PATH, the
    repository's build). With `keep` (a directory), the imported step, the
    plan, ckpt-opt's report of it and the budget search are written there.
    With `autocast` (torch.bfloat16 or torch.float16), the plan is for the
    forward that `torch.autocast("cpu", dtype=autocast)` runs, its casts
    included: train under that autocast."""
    if (not isinstance(microbatches_in_flight, int)
            or isinstance(microbatches_in_flight, bool)
            or microbatches_in_flight < 1):
        raise PlanError("microbatches_in_flight must be a positive int, not "
                        f"{microbatches_in_flight!r}")
    if executor not in ("ops", "regions"):
        raise PlanError(f"unknown executor '{executor}'; expected ops or "
                        "regions")
    if modules and executor != "regions":
        raise PlanError("modules names the regions of executor='regions'")
    importer = _importer()
    inputs = tuple(example_inputs)
    try:
        imported = importer.import_module(module, inputs, "model",
                                          record_calls=True,
                                          autocast=autocast)
    except importer.ImportFailure as failure:
        raise PlanError(f"cannot import the module: {failure}") from None
    with tempfile.TemporaryDirectory() as scratch:
        directory = keep or scratch
        os.makedirs(directory, exist_ok=True)
        step = os.path.join(directory, "step.mlir")
        with open(step, "w") as f:
            f.write(imported.text)
        ckpt = _CkptOpt(_ckpt_opt(ckpt_opt), step, directory, executor,
                        modules, microbatches_in_flight)
        if executor == "ops" and budget is not None:
            def forward(*args: Any) -> Any:
                with importer.autocast_context(autocast):
                    return module(*args)
            trace = memory.trace_step(module, inputs, forward)
            chosen, search = _fit(ckpt, trace, strategy, budget,
                                  microbatches_in_flight)
            chosen.plan["pytorch"] = {
                "budget_bytes": search["budget"],
                "predicted_peak_bytes": chosen.predicted.peak,
                "unplanned_peak_bytes": search["plans"][0]["predicted_peak"],
                "reruns": {str(call): count for call, count
                           in sorted(chosen.predicted.reruns.items())},
                "repaired_storages": chosen.repaired,
                "ckpt_opt_runs": ckpt.runs}
            if keep:
                with open(os.path.join(directory, "search.json"), "w") as f:
                    json.dump(search, f, indent=2)
        else:
            chosen = ckpt.run(strategy, budget)
        if keep:
            with open(os.path.join(directory, "plan.json"), "w") as f:
                json.dump(chosen.plan, f, indent=2)
            with open(os.path.join(directory, "report.json"), "w") as f:
                json.dump([chosen.report], f, indent=2)
        return apply_plan(module, chosen.plan)
