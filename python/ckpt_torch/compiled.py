"""`compile`: torch.compile with ckpt-opt's plan deciding what the
partitioner saves and what backward recomputes.

AOTAutograd traces the module's forward and backward as one joint graph and
a partitioner splits it: what forward saves for backward, what backward
computes again. Inductor's own partitioner (a min cut) saves what backward
reads and recomputes only cheap, fusible ops, or meets
`activation_memory_budget` with a knapsack of its runtime estimates. Here
the plan ckpt_torch makes for the eager executor (planning.py) decides
instead: each op call whose outputs the plan drops has its nodes in the
joint graph (found by the ATen op they were traced from, functionalized as
the joint graph is: add_ as add, in forward order) marked MUST_RECOMPUTE,
and Inductor's partitioner does the rest (it still recomputes cheap ops on
its own, and never recomputes a random one: a random node is never marked,
so its values are saved, never drawn again).
The compiled step's peak is measured, not predicted: Inductor fuses and
frees on its own schedule. Inductor's own partition is tried first; while
the compiled step holds more than the budget, the plan is made again for
fewer eager bytes, as many as a secant through the last two tries (eager
peak predicted, compiled peak measured) says the compiled step needs; once
one fits with room to spare, a plan between it and the closest that did
not; a few compilations at most, the fitting one that holds most taken
(it recomputes least).
"""

from __future__ import annotations

import difflib
import operator
from typing import Any, Sequence

import torch
from torch._functorch.partitioners import (is_rng_op,
                                           min_cut_rematerialization_partition)
from torch._inductor.custom_graph_pass import CustomPartitionerFn
from torch.utils.checkpoint import CheckpointPolicy

from . import memory, planning
from .errors import OverBudget, PlanError

__all__ = ["compile"]

# Compilations the search may make (Inductor's own partition included),
# and the slack below the budget that ends it once a plan fits.
_MOST_COMPILES = 4
_CLOSE_ENOUGH = 0.03
# A budget no step reaches: the plan that drops nothing.
_NOTHING = 1 << 62


class PlanPartitioner(CustomPartitionerFn):
    """Inductor's partitioner with the joint graph's nodes of the dropped op
    calls marked MUST_RECOMPUTE. `ops` are the eager forward's op calls
    (by name) and `dropped` the numbers of those whose outputs the plan
    drops. `marked` counts the nodes it marked and `matched` the op calls
    it found in the joint graphs it partitioned (one per graph break)."""

    def __init__(self, ops: Sequence[str], dropped: set[int]):
        self.ops = list(ops)
        self.dropped = dropped
        self.marked = 0
        self.matched = 0

    def __call__(self, gm: torch.fx.GraphModule, joint_inputs: Sequence[Any],
                 **kwargs: Any):
        groups = _forward_groups(gm)
        matcher = difflib.SequenceMatcher(
            a=[functional_form(op) for op in self.ops],
            b=[op for op, _ in groups], autojunk=False)
        for block in matcher.get_matching_blocks():
            self.matched += block.size
            for offset in range(block.size):
                if block.a + offset not in self.dropped:
                    continue
                for node in groups[block.b + offset][1]:
                    # Neither a random node (it would draw again) nor the
                    # part a getitem takes (its tuple may be impossible to
                    # save or recompute; the partitioner places it).
                    if not is_rng_op(node) and \
                            node.target is not operator.getitem:
                        node.meta["recompute"] = \
                            CheckpointPolicy.MUST_RECOMPUTE
                        self.marked += 1
        return min_cut_rematerialization_partition(
            gm, joint_inputs, **kwargs)

    def uuid(self) -> Any:
        # The marks depend on the plan: no cached graph may stand for them.
        return None


# Ops whose functional form is not their name without the in-place mark.
_FUNCTIONAL_FORMS = {
    "aten.native_batch_norm.default":
        "aten._native_batch_norm_legit_functional.default",
    "aten._native_batch_norm_legit.default":
        "aten._native_batch_norm_legit_functional.default",
}


def functional_form(op: str) -> str:
    """The op that an eager call of `op` (ns.name.overload) is traced as in
    the joint graph, which AOTAutograd functionalizes: an in-place op
    (add_) as its out-of-place form (add), and batch norm, which writes
    its running statistics, as its functional variant."""
    if op in _FUNCTIONAL_FORMS:
        return _FUNCTIONAL_FORMS[op]
    parts = op.split(".")
    if len(parts) == 3 and parts[1].endswith("_") and \
            not parts[1].endswith("__"):
        return f"{parts[0]}.{parts[1][:-1]}.{parts[2]}"
    return op


def _forward_groups(gm: torch.fx.GraphModule
                    ) -> list[tuple[str, list[torch.fx.Node]]]:
    """The joint graph's forward nodes, grouped by the ATen op call they
    were traced from (its autograd sequence number and op), in order."""
    groups: dict[tuple, tuple[str, list[torch.fx.Node]]] = {}
    for node in gm.graph.nodes:
        if node.op != "call_function" or \
                node.meta.get("partitioner_tag") != "is_forward":
            continue
        original = node.meta.get("original_aten")
        if original is None:
            continue
        key = (node.meta.get("seq_nr"), str(original))
        groups.setdefault(key, (str(original), []))[1].append(node)
    return list(groups.values())


def _measure(compiled: torch.nn.Module, module: torch.nn.Module,
             inputs: tuple) -> int:
    """The compiled step's peak (the allocator's highest total, what it
    held before included), the first step compiling it; the module's
    buffers, gradients and random generators are left as they were."""
    def step() -> None:
        compiled(*inputs).backward()

    with memory.state_kept(module):
        step()
        # Gradients freed before the step, as a training loop frees them.
        module.zero_grad(set_to_none=True)
        return memory.allocator_peak(step, memory.device_of(module)) + \
            memory.held_before(module, inputs)


def compile(module: torch.nn.Module, example_inputs: Sequence[Any],
            budget: str | int | None = None, strategy: str = "auto",
            ckpt_opt: str | None = None, keep: str | None = None,
            **torch_compile_kwargs: Any) -> torch.nn.Module:
    """`torch.compile(module, **torch_compile_kwargs)` with the plan for
    `budget` (PyTorch's bytes, as `plan` takes them: the allocator's
    highest total in one training step, parameters, inputs and gradients
    included) deciding what the compiled step recomputes; the compiled
    module trains `module`'s own parameters. The compiled step's peak is
    measured on `example_inputs` (a step per compilation) and kept within
    the budget; `plan_of` on the result gives the plan, with `compiled`:
    its measured peak and the compilations tried (the first is Inductor's
    own partition, taken when it fits). Without a budget, it is
    torch.compile. Each try compiles the module's forward once more
    (torch._dynamo.config.recompile_limit counts them). With `keep` (a
    directory), the imported step, the tries (compiled.json) and the plan
    taken are written there."""
    if budget is None:
        return torch.compile(module, **torch_compile_kwargs)
    limit = planning.byte_size(budget)
    options = dict(torch_compile_kwargs.pop("options", None) or {})
    if "custom_partitioner_fn" in options:
        raise PlanError("ckpt_torch.compile sets the partitioner; leave "
                        "custom_partitioner_fn out of options")
    inputs = tuple(example_inputs)
    tries: list[dict] = []
    best = None

    def attempt(plan: dict, asked: int | None) -> int:
        """Compiles with `plan` and measures; returns the compiled peak."""
        nonlocal best
        dropped = {call for call, _ in plan["dropped"]}
        partitioner = PlanPartitioner(plan["ops"], dropped)
        # Each try's partitioner makes its own backend: torch.compile's
        # caches keep every try's code apart.
        compiled = torch.compile(
            module, **torch_compile_kwargs,
            options={**options, "custom_partitioner_fn": partitioner})
        peak = _measure(compiled, module, inputs)
        tries.append({"eager_budget_bytes": asked,
                      "measured_peak_bytes": peak,
                      "marked_nodes": partitioner.marked,
                      "matched_op_calls": partitioner.matched})
        if peak <= limit and (best is None or peak > best[2]):
            best = (compiled, plan, peak)
        return peak

    with planning.session(module, inputs, keep, ckpt_opt) as planning_:
        # Inductor's own partition first: within the budget, nothing is
        # worth recomputing.
        unplanned, _ = planning_.fit(strategy, _NOTHING)
        # (eager peak predicted, compiled peak measured) of each try.
        points = [(unplanned.predicted.peak,
                   attempt(unplanned.plan, None))]
        # Until a secant is known, the compiled step's activations taken
        # to shrink as the eager step's do.
        before = memory.held_before(module, inputs)
        slope = (points[0][1] - before) / max(points[0][0] - before, 1)
        while points[0][1] > limit and len(tries) < _MOST_COMPILES:
            fitting = [p for p in points if p[1] <= limit]
            if fitting:
                # A plan fits: one between it and the closest that does not
                # may fit with less recomputed.
                fit = max(fitting, key=lambda p: p[1])
                if fit[1] >= limit * (1 - _CLOSE_ENOUGH):
                    break
                above = min((p for p in points if p[1] > limit),
                            key=lambda p: p[0])
                asked = (fit[0] + above[0]) // 2
            else:
                eager, measured = points[-1]
                asked = int(eager - (measured - limit) / slope)
            try:
                planned, _ = planning_.fit(strategy, asked)
            except OverBudget as error:
                # The lowest plan tried already, nothing lower to try.
                if error.lowest <= asked or error.lowest >= points[-1][0]:
                    break
                asked = error.lowest
                planned, _ = planning_.fit(strategy, asked)
            if any(p[0] == planned.predicted.peak for p in points):
                break  # a plan tried already
            points.append((planned.predicted.peak,
                           attempt(planned.plan, asked)))
            (e1, c1), (e2, c2) = points[-2:]
            # Where the last plan gained nothing, ask for much less.
            slope = min((c1 - c2) / abs(e1 - e2), 1.0) \
                if e1 != e2 and c1 > c2 else slope / 2
        if keep:
            planning_.write("compiled.json", tries)
        if best is None:
            raise PlanError(
                f"no plan keeps the compiled step's peak within {limit} B: "
                f"the lowest measured is "
                f"{min(t['measured_peak_bytes'] for t in tries)} B; raise "
                "the budget")
        compiled, plan, _ = best
        if keep:
            planning_.write("plan.json", plan)
    compiled._ckpt_torch_plan = {**plan, "compiled": {
        "budget_bytes": limit, "tries": tries}}
    return compiled
