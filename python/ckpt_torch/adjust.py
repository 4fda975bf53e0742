"""A plan adjusted to PyTorch's own peak, on the traced step (memory.py).

ckpt-opt plans against its own step, which holds other bytes than
PyTorch's (dropout masks PyTorch keeps and ckpt-opt draws again, the
gradients PyTorch's backward materialises): its plan can hold more in
PyTorch than the budget, or less than the budget allows. `repair` drops
more where PyTorch peaks until the plan fits; `relax` keeps again what the
budget has room for, the costliest reruns first. Both change whole
storages, replaying each change exactly, and never touch those no plan may
drop (the plan's `fixed`).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import memory

__all__ = ["Adjusted", "repair", "relax"]

Output = memory.Output
# The repair's rounds, each dropping one more storage (a round replays the
# step once per storage held at the peak).
_MOST_REPAIRS = 16
# The storages the relaxation may keep again, a replay each.
_MOST_RELAXES = 24


@dataclass
class Adjusted:
    dropped: frozenset[Output]
    predicted: memory.Prediction
    changed: int  # storages dropped or kept beyond the plan's


def _storages(trace: memory.StepTrace, outputs) -> set[int]:
    return {trace.calls[c].outputs[o] for c, o in outputs
            if c < len(trace.calls) and o < len(trace.calls[c].outputs)
            and trace.calls[c].outputs[o] is not None}


def repair(trace: memory.StepTrace, dropped: frozenset[Output],
           predicted: memory.Prediction, fixed: list, limit: int,
           microbatches: int) -> Adjusted | None:
    """The plan with more dropped until PyTorch's peak fits `limit`, or
    None: each round drops the storage, of forward's held at the peak that
    a plan may drop, that lowers the peak most per nanosecond its reruns
    add. A drop lowers the peak by at most the storage's bytes and its
    reruns add at least the time of its calls that do not run again yet:
    storages are replayed by that bound, best first, until it cannot beat
    the best found (a deep model holds hundreds at its peak)."""
    never = _storages(trace, fixed)
    changed = 0
    for _ in range(_MOST_REPAIRS):
        if predicted.peak <= limit:
            return Adjusted(dropped, predicted, changed)
        taken = _storages(trace, dropped)
        bounds = {}
        for storage in predicted.live_at_peak:
            if storage not in taken and storage not in never:
                calls = {call for call, _ in trace.outputs_in(storage)}
                added = sum(trace.calls[call].duration_ns for call in calls
                            if call not in predicted.reruns)
                bounds[storage] = trace.storage_bytes[storage] / max(added, 1)
        best = None
        for storage in sorted(bounds, key=bounds.__getitem__, reverse=True):
            if best is not None and bounds[storage] <= best[0]:
                break
            trying = dropped | frozenset(trace.outputs_in(storage))
            then = trace.replay(trying, microbatches)
            gain = predicted.peak - then.peak
            if gain <= 0:
                continue
            score = gain / max(then.rerun_ns - predicted.rerun_ns, 1)
            if best is None or score > best[0]:
                best = (score, trying, then)
        if best is None:
            return None
        _, dropped, predicted = best
        changed += 1
    return Adjusted(dropped, predicted, changed) \
        if predicted.peak <= limit else None


def relax(trace: memory.StepTrace, dropped: frozenset[Output],
          predicted: memory.Prediction, limit: int,
          microbatches: int) -> Adjusted:
    """The plan with what the budget has room for kept again: the dropped
    storages whose calls took longest in the traced run first, each kept
    when the plan still fits `limit` and reruns less."""
    taken = sorted(_storages(trace, dropped), key=lambda storage: -sum(
        trace.calls[c].duration_ns for c, _ in trace.outputs_in(storage)))
    changed = 0
    for storage in taken[:_MOST_RELAXES]:
        trying = dropped - frozenset(trace.outputs_in(storage))
        then = trace.replay(trying, microbatches)
        if then.peak <= limit and then.rerun_ns < predicted.rerun_ns:
            dropped, predicted = trying, then
            changed += 1
    return Adjusted(dropped, predicted, changed)
