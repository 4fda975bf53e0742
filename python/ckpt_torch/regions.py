"""Plans as selective activation checkpointing of submodule calls.

A plan that `ckpt-opt --ckpt-export-torch-plan=executor=regions` wrote names
regions (calls of submodules) and, for each op call in a region, whether to
save it. Applying it wraps each region's submodule with `checkpoint_wrapper`,
as `apply_activation_checkpointing` does: `torch.utils.checkpoint` without
reentrance, PyTorch's random state preserved and replayed, and a selective
checkpointing policy built fresh for each call of the region that saves the
op calls the plan keeps and recomputes the others. PyTorch reruns a region
from its start, every op call it does not save, up to the last one whose
output backward needs.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any

import torch
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (
    CheckpointImpl, apply_activation_checkpointing, checkpoint_wrapper)
from torch.utils.checkpoint import (CheckpointPolicy,
                                    create_selective_checkpoint_contexts)

from .errors import PlanMismatch

__all__ = ["apply_regions", "path_of"]

# Path components that wrappers add and that the plan does not name.
_WRAPPER_COMPONENTS = ("_checkpoint_wrapped_module", "_fsdp_wrapped_module",
                       "_orig_mod")


def path_of(names: dict, module: torch.nn.Module) -> str:
    """The module's path with the wrappers' components left out."""
    return ".".join(p for p in names[module].split(".")
                    if p not in _WRAPPER_COMPONENTS)


class _RegionCall:
    """One call of a region: the policy for its op calls, in order, which
    checks each op against the plan's."""

    def __init__(self, region: dict):
        self.region = region
        self.position = 0

    def where(self) -> str:
        return f"region '{self.region['module']}' (call {self.region['call']})"

    def policy(self, ctx: Any, func: Any, *args: Any, **kwargs: Any
               ) -> CheckpointPolicy:
        ops = self.region["ops"]
        position = self.position
        self.position += 1
        if position >= len(ops):
            raise PlanMismatch(
                f"{self.where()}: op call {position} is {func}, but the plan "
                f"has {len(ops)} op calls; the model changed since the plan "
                "was made: make the plan again")
        expected = ops[position]
        if str(func) != expected["op"]:
            raise PlanMismatch(
                f"{self.where()}: op call {position} is {func}, the plan's is "
                f"{expected['op']} (occurrence {expected['occurrence']}); the "
                "model changed since the plan was made: make the plan again")
        return CheckpointPolicy.MUST_SAVE if expected["policy"] == \
            "MUST_SAVE" else CheckpointPolicy.MUST_RECOMPUTE

    @contextlib.contextmanager
    def checked(self, context: Any):
        with context:
            yield
        if self.position != len(self.region["ops"]):
            raise PlanMismatch(
                f"{self.where()}: {self.position} op calls, the plan has "
                f"{len(self.region['ops'])}; the model changed since the plan "
                "was made: make the plan again")


class _Calls:
    """Counts each region module's calls in one forward of the model."""

    def __init__(self):
        self.counts: dict[str, int] = {}

    def reset(self, *unused: Any) -> None:
        self.counts.clear()

    def next(self, path: str) -> int:
        number = self.counts.get(path, 0)
        self.counts[path] = number + 1
        return number


def apply_regions(module: torch.nn.Module, plan: dict) -> torch.nn.Module:
    """Wraps `module`'s region submodules so that PyTorch trains it with
    `plan` (a checked plan of regions); returns the module, changed in
    place."""
    regions: dict[str, dict[int, dict]] = {}  # path -> {call: region}
    for region in plan["regions"]:
        regions.setdefault(region["module"], {})[region["call"]] = region
    names = {m: n for n, m in reversed(list(
        module.named_modules(remove_duplicate=False)))}
    targets = {}
    for candidate in names:
        path = path_of(names, candidate)
        if path in regions and path not in targets.values():
            targets[candidate] = path
    missing = sorted(set(regions) - set(targets.values()))
    if missing:
        raise PlanMismatch(f"the module has no submodule '{missing[0]}' that "
                           "the plan checkpoints; the plan is for another "
                           "model")
    calls = _Calls()

    def context_fn(path: str):
        number = calls.next(path)
        region = regions[path].get(number)
        if region is None:
            raise PlanMismatch(
                f"module '{path}' is called {number + 1} times in one "
                f"forward; the plan has regions for calls "
                f"{sorted(regions[path])} of it")
        call = _RegionCall(region)
        forward, recompute = create_selective_checkpoint_contexts(
            call.policy)
        return call.checked(forward), recompute

    def wrap(child: torch.nn.Module) -> torch.nn.Module:
        return checkpoint_wrapper(
            child, checkpoint_impl=CheckpointImpl.NO_REENTRANT,
            preserve_rng_state=True,
            context_fn=functools.partial(context_fn, targets[child]))

    apply_activation_checkpointing(module, checkpoint_wrapper_fn=wrap,
                                   check_fn=lambda m: m in targets)
    module.register_forward_pre_hook(calls.reset)
    return module
