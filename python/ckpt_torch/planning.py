"""`plan`: import a module, plan it with ckpt-opt within PyTorch's bytes,
apply the plan.

ckpt-opt plans the training step it imported, against its own simulator.
PyTorch's step holds other bytes (its own backward, its kernels' scratch,
the executor's reruns), so under the ops executor the budget is PyTorch's:
the step is traced once (memory.py), and the plans ckpt-opt offers are
replayed on the trace. Those are points of dp's Pareto front spread over
its peaks (one ckpt-opt run that writes each plan for PyTorch), of which
the search takes the one whose reruns take least time among those that
fit, then the strategy's plan (dp's, or auto's op-level MILP's) at that
plan's peak plus the room PyTorch's budget leaves it. Where PyTorch's step
holds more than any of them lets fit, the lowest are repaired: more is
dropped where PyTorch peaks; and what the budget still has room for is
kept again (adjust.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import torch

from . import adjust, executor, importer, memory
from .errors import OverBudget, PlanError
from .plans import apply_plan, op_plan

__all__ = ["plan", "byte_size", "Session", "session"]

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# The front's plans on each side of the first that fits, replayed too: a
# front ordered by ckpt-opt's peak is nearly, not quite, ordered by
# PyTorch's.
_AROUND = 4
# The plans of dp's front the sweep exports, spread over its peaks (a deep
# model's front has thousands, each a materialisation and a simulation):
# the search narrows the budget among them and ckpt-opt then plans at it.
_FRONT_POINTS = 64


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


@dataclass
class _Planned:
    """One plan for PyTorch: ckpt-opt's (its peak and recompute FLOPs in
    ckpt-opt's model; its report where a run made it alone) and PyTorch's
    step under it where there is a trace (its dropped outputs, with those
    the adjustments dropped or kept again)."""

    plan: dict
    ckpt_peak: int
    ckpt_flops: int
    report: dict | None = None
    dropped: frozenset = frozenset()
    predicted: memory.Prediction | None = None
    adjusted: int = 0  # storages dropped or kept beyond ckpt-opt's plan


class _CkptOpt:
    """Runs ckpt-opt on the imported step."""

    _STEP = ["--ckpt-fold-transposes", "--ckpt-thread-rng", "--ckpt-autodiff"]

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
        self._front: list[_Planned] | None = None

    def _run(self, *passes: str) -> None:
        self.runs += 1
        run = subprocess.run([self.program, self.step, *passes, "-o",
                              os.devnull], capture_output=True, text=True)
        if run.returncode != 0:
            raise PlanError("ckpt-opt failed:\n" + run.stderr.strip())

    def run(self, strategy: str, budget: str | int | None) -> _Planned:
        """The plan of `strategy` within `budget` (ckpt-opt's bytes)."""
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
        self._run(f"--ckpt-pipeline={pipeline}",
                  f"--ckpt-export-torch-plan={export}",
                  f"--ckpt-report=format=json output={report_path}")
        with open(plan_path) as f:
            plan = json.load(f)
        with open(report_path) as f:
            report = json.load(f)[0]
        # Working files: what `keep` holds is the chosen plan's (plan()).
        os.remove(plan_path)
        os.remove(report_path)
        return _Planned(plan, report["plan"]["peak_bytes_in_flight"],
                        report["compute"]["recompute"]["flops"], report)

    def front(self) -> list[_Planned]:
        """_FRONT_POINTS plans of dp's Pareto front spread over its peaks,
        fewest recompute FLOPs first, each plan for
        the ops executor (made once)."""
        if self._front is None:
            self._front = self._sweep()
        return [_Planned(p.plan, p.ckpt_peak, p.ckpt_flops)
                for p in self._front]

    def _sweep(self) -> list[_Planned]:
        path = os.path.join(self.directory, "front.json")
        self._run(*self._STEP, "--ckpt-sweep=strategy=dp torch-plans=1 "
                  f"points={_FRONT_POINTS} output={path}")
        with open(path) as f:
            sweep = json.load(f)[0]
        shared = sweep["torch_plan"]
        return [_Planned({**shared, **point["torch_plan"],
                          "plan": f"dp ({point['setting']})"},
                         point["peak_bytes"], point["recompute_flops"])
                for point in sorted(sweep["points"],
                                    key=lambda p: p["recompute_flops"])
                if point["pareto"]]


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
         limit: int, microbatches: int) -> tuple[_Planned, list[_Planned]]:
    """The plan whose reruns take least time among those whose PyTorch
    peak (predicted on `trace`) is within `limit`, and every plan the
    search replayed."""
    seen: list[_Planned] = []

    def predict(planned: _Planned) -> _Planned:
        if planned.predicted is None:
            planned.dropped = op_plan(planned.plan).dropped
            planned.predicted = trace.replay(planned.dropped, microbatches)
            seen.append(planned)
        return planned

    def repaired(planned: _Planned) -> _Planned | None:
        """`planned` with more dropped where PyTorch peaks until it fits,
        or None."""
        fixed = _adjusted(planned, adjust.repair(
            trace, planned.dropped, planned.predicted, planned.plan["fixed"],
            limit, microbatches))
        if fixed is not None:
            seen.append(fixed)
        return fixed

    front = ckpt.front()
    # Its first plan recomputes nothing: without dropping anything, what
    # PyTorch does without a plan.
    none = predict(_Planned({**front[0].plan, "dropped": [], "plan": "none"},
                            front[0].ckpt_peak, 0))
    if none.predicted.peak <= limit:
        return none, seen
    if strategy not in ("auto", "tensor", "dp"):
        # A strategy that makes one plan.
        planned = predict(ckpt.run(strategy, None))
        fitting = [planned] if planned.predicted.peak <= limit else []
    else:
        # The first plan of the front that fits, by bisection (PyTorch's
        # peak falls along the front, nearly always), then its neighbours.
        low, high = 0, len(front)
        while low < high:
            middle = (low + high) // 2
            if predict(front[middle]).predicted.peak <= limit:
                high = middle
            else:
                low = middle + 1
        for planned in front[max(low - _AROUND, 0):low + _AROUND]:
            predict(planned)
        fitting = [p for p in seen if p.predicted.peak <= limit]
        if fitting:
            # The strategy's plan (for auto, dp's or the op-level MILP's) at
            # ckpt-opt's peak of the best of the front plus what PyTorch's
            # budget has left under it. Planned at one budget rather than
            # picked from the front's points, it reruns less, and may hold
            # a little more in PyTorch than ckpt-opt's model says: dropping
            # more where PyTorch peaks keeps most of the gain.
            best = _cheapest(fitting)
            finer = predict(ckpt.run(
                strategy, best.ckpt_peak + limit - best.predicted.peak))
            if finer.predicted.peak > limit:
                finer = repaired(finer)
            if finer is not None:
                fitting.append(finer)
    if not fitting:
        # Every plan holds more in PyTorch than ckpt-opt's model lets it
        # see: drop more where PyTorch peaks, from the lowest.
        for planned in sorted(seen, key=lambda p: p.predicted.peak)[:2]:
            fixed = repaired(planned)
            if fixed is not None:
                fitting.append(fixed)
    if not fitting:
        lowest = min(seen, key=lambda p: p.predicted.peak).predicted.peak
        raise OverBudget(
            f"no plan keeps PyTorch's peak within {limit} B: the lowest "
            f"found is {lowest} B; raise the budget", lowest)
    best = _cheapest(fitting)
    # Keep again what the budget still has room for.
    relaxed = _adjusted(best, adjust.relax(trace, best.dropped,
                                           best.predicted, limit,
                                           microbatches))
    if relaxed.adjusted > best.adjusted:
        seen.append(relaxed)
        best = relaxed
    return best, seen


def _cheapest(plans: list[_Planned]) -> _Planned:
    """The plan whose reruns take least time, then the lowest."""
    return min(plans, key=lambda p: (p.predicted.rerun_ns, p.predicted.peak))


def _adjusted(planned: _Planned, adjusted: adjust.Adjusted | None
              ) -> _Planned | None:
    """`planned` with the dropped outputs an adjustment gave it."""
    if adjusted is None:
        return None
    plan = {**planned.plan,
            "dropped": sorted([list(d) for d in adjusted.dropped])}
    return _Planned(plan, planned.ckpt_peak, planned.ckpt_flops,
                    planned.report, adjusted.dropped, adjusted.predicted,
                    planned.adjusted + adjusted.changed)


def _search_record(limit: int, seen: list[_Planned]) -> dict:
    return {"budget": limit, "plans": [
        {"plan": p.plan.get("plan"), "ckpt_peak": p.ckpt_peak,
         "ckpt_recompute_flops": p.ckpt_flops,
         "adjusted_storages": p.adjusted,
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
    plan, the budget search and ckpt-opt's report of the plan (where one
    ckpt-opt run made it as it is) are written there.
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
    with session(module, example_inputs, keep, ckpt_opt, executor, modules,
                 microbatches_in_flight, autocast) as planning:
        if executor == "ops" and budget is not None:
            limit = byte_size(budget)
            chosen, seen = planning.fit(strategy, limit)
            if keep:
                planning.write("search.json", _search_record(limit, seen))
        else:
            chosen = planning.ckpt.run(strategy, budget)
        if keep:
            planning.write("plan.json", chosen.plan)
            if chosen.report is not None:
                planning.write("report.json", [chosen.report])
        return apply_plan(module, chosen.plan)


class Session:
    """What planning one module takes: its import (with PyTorch's op
    calls), ckpt-opt on the imported step, and PyTorch's step traced (when
    first needed) for the plans to fit PyTorch's bytes."""

    def __init__(self, module: torch.nn.Module, inputs: tuple,
                 ckpt: _CkptOpt, autocast: torch.dtype | None,
                 scratch: frozenset[tuple[int, int]]):
        self.module = module
        self.scratch = scratch  # every plan's (executor.OpPlan.scratch)
        self.inputs = inputs
        self.ckpt = ckpt
        self.autocast = autocast
        self._trace: memory.StepTrace | None = None

    def trace(self) -> memory.StepTrace:
        if self._trace is None:
            def forward(*args: Any) -> Any:
                with importer.autocast_context(self.autocast):
                    return self.module(*args)
            self._trace = memory.trace_step(
                self.module, self.inputs, forward,
                executor.scratch_by_call(self.scratch))
        return self._trace

    def fit(self, strategy: str, limit: int
            ) -> tuple[_Planned, list[_Planned]]:
        """The plan of `strategy` that fits `limit` of PyTorch's bytes
        (see _fit), with what PyTorch will do under it in its `pytorch`
        field; and every plan the search replayed."""
        chosen, seen = _fit(self.ckpt, self.trace(), strategy, limit,
                            self.ckpt.microbatches)
        chosen.plan["pytorch"] = {
            "budget_bytes": limit,
            "predicted_peak_bytes": chosen.predicted.peak,
            "unplanned_peak_bytes": seen[0].predicted.peak,
            "reruns": {str(call): count for call, count
                       in sorted(chosen.predicted.reruns.items())},
            "adjusted_storages": chosen.adjusted,
            "ckpt_opt_runs": self.ckpt.runs}
        return chosen, seen

    def write(self, name: str, value: Any) -> None:
        with open(os.path.join(self.ckpt.directory, name), "w") as f:
            json.dump(value, f, indent=2)


@contextlib.contextmanager
def session(module: torch.nn.Module, example_inputs: Sequence[Any],
            keep: str | None, ckpt_opt: str | None, executor: str = "ops",
            modules: Sequence[str] | None = None, microbatches: int = 1,
            autocast: torch.dtype | None = None) -> Iterator[Session]:
    """Imports `module` on `example_inputs` (raising PlanError when it
    cannot) into `keep` (a directory; else a temporary one) and yields the
    Session that plans it."""
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
                        modules, microbatches)
        yield Session(module, inputs, ckpt, autocast,
                      frozenset(imported.calls.scratch))
