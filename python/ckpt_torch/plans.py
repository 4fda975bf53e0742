"""Plan files: reading and checking them, and applying them to a module."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import torch

from . import executor
from .errors import PlanError
from .regions import apply_regions

__all__ = ["apply_plan", "load_plan", "op_plan", "plan_of", "stats_of"]

_FORMAT = "ckpt-torch-plan"
_VERSION = 2


def _ops_sha256(ops: list[str]) -> str:
    return hashlib.sha256("\n".join(ops).encode()).hexdigest()


def load_plan(plan: str | dict) -> dict:
    """The plan (a path to ckpt-export-torch-plan's JSON, or its dict),
    checked: its format and version, and each op sequence against its
    SHA-256."""
    if not isinstance(plan, dict):
        try:
            with open(plan) as f:
                plan = json.load(f)
        except OSError as error:
            raise PlanError(f"cannot read the plan '{plan}': "
                            f"{error.strerror}") from None
        except json.JSONDecodeError as error:
            raise PlanError(f"'{plan}' is not JSON: {error}") from None
    if plan.get("format") != _FORMAT or plan.get("version") != _VERSION:
        raise PlanError(f"not a plan of format '{_FORMAT}' version "
                        f"{_VERSION} (ckpt-opt --ckpt-export-torch-plan)")
    if plan.get("executor") == "ops":
        if _ops_sha256(plan["ops"]) != plan["ops_sha256"]:
            raise PlanError("the plan's op list does not match its SHA-256; "
                            "the file was edited")
    elif plan.get("executor") == "regions":
        for region in plan["regions"]:
            if _ops_sha256([o["op"] for o in region["ops"]]) != \
                    region["ops_sha256"]:
                raise PlanError(
                    f"region '{region['module']}' (call {region['call']}): "
                    "its op list does not match its SHA-256; the file was "
                    "edited")
    else:
        raise PlanError(f"unknown executor '{plan.get('executor')}'; "
                        "expected ops or regions")
    return plan


def op_plan(plan: dict) -> executor.OpPlan:
    """An ops plan's op calls, dropped outputs and scratch arguments, as
    the executor takes them."""
    ops = tuple(plan["ops"])
    dropped = frozenset((int(c), int(o)) for c, o in plan["dropped"])
    scratch = frozenset((int(c), int(a)) for c, a in plan.get("scratch", []))
    if any(not 0 <= c < len(ops) for c, _ in dropped):
        raise PlanError("the plan drops outputs of op calls it does not "
                        "have")
    if any(not 0 <= c < len(ops) for c, _ in scratch):
        raise PlanError("the plan's scratch arguments name op calls it "
                        "does not have")
    return executor.OpPlan(ops, dropped, scratch)


def apply_plan(module: torch.nn.Module, plan: str | dict) -> torch.nn.Module:
    """Makes PyTorch train `module` with `plan` (a path to
    ckpt-export-torch-plan's JSON, or its dict); returns the module,
    changed in place."""
    plan = load_plan(plan)
    if plan["executor"] == "ops":
        module.forward = executor.PlannedForward(module.forward,
                                                 op_plan(plan))
    else:
        apply_regions(module, plan)
    module._ckpt_torch_plan = plan
    return module


def plan_of(module: torch.nn.Module) -> dict | None:
    """The plan `apply_plan` or `plan` applied to `module` (its dict), or
    None."""
    return getattr(module, "_ckpt_torch_plan", None)


def stats_of(module: torch.nn.Module) -> dict[int, int] | None:
    """For a module under an ops plan: how many times its last step reran
    each op call (by number) in backward; None before its first planned
    forward or under a plan of regions."""
    forward = module.__dict__.get("forward")
    if isinstance(forward, executor.PlannedForward) and forward.stats:
        return dict(forward.stats.recomputed)
    return None
