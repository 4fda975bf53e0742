"""ckpt-opt's plans in PyTorch's own training.

`plan(module, example_inputs, budget="2GiB")` imports the module, plans its
training step with ckpt-opt under the budget, and returns the module with
the plan applied; `apply_plan(module, "plan.json")` applies a plan that
`ckpt-opt --ckpt-export-torch-plan` wrote. Applying a plan wraps each of its
regions (a submodule) with `checkpoint_wrapper`, as
`apply_activation_checkpointing` does: `torch.utils.checkpoint` without
reentrance, with PyTorch's random state preserved and replayed, and a
selective checkpointing policy built fresh for each call of the region that
saves the op calls the plan keeps and recomputes the others. A region whose
op calls differ from the plan's stops the forward with a PlanMismatch
naming the first difference.

Put the repository's python/ directory on sys.path to import it; it needs
PyTorch 2.5 or later, and `plan` needs ckpt-opt (the CKPT_OPT
environment variable, else PATH, else the repository's build/bin/).
"""

import contextlib
import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (
    CheckpointImpl, apply_activation_checkpointing, checkpoint_wrapper)
from torch.utils.checkpoint import (CheckpointPolicy,
                                    create_selective_checkpoint_contexts)

__all__ = ["PlanError", "PlanMismatch", "apply_plan", "plan", "plan_of",
           "load_plan"]

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# Path components that wrappers add and that the plan does not name.
_WRAPPER_COMPONENTS = ("_checkpoint_wrapped_module", "_fsdp_wrapped_module",
                       "_orig_mod")
_FORMAT = "ckpt-torch-plan"
_VERSION = 1


class PlanError(Exception):
    """The plan cannot be made, read or applied; the message says why."""


class PlanMismatch(PlanError):
    """The module's op calls differ from those the plan was made for."""


def _ops_sha256(ops):
    return hashlib.sha256("\n".join(o["op"] for o in ops).encode()).hexdigest()


def load_plan(plan):
    """The plan (a path to ckpt-export-torch-plan's JSON, or its dict),
    checked: its format and version, and each region's op sequence against
    its SHA-256."""
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
    for region in plan["regions"]:
        if _ops_sha256(region["ops"]) != region["ops_sha256"]:
            raise PlanError(f"region '{region['module']}' (call "
                            f"{region['call']}): its op list does not match "
                            "its SHA-256; the file was edited")
    return plan


def _path_of(names, module):
    """The module's path with the wrappers' components left out."""
    return ".".join(p for p in names[module].split(".")
                    if p not in _WRAPPER_COMPONENTS)


class _RegionCall:
    """One call of a region: the policy for its op calls, in order, which
    checks each op against the plan's."""

    def __init__(self, region):
        self.region = region
        self.position = 0

    def where(self):
        return f"region '{self.region['module']}' (call {self.region['call']})"

    def policy(self, ctx, func, *args, **kwargs):
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
    def checked(self, context):
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
        self.counts = {}

    def reset(self, *unused):
        self.counts.clear()

    def next(self, path):
        number = self.counts.get(path, 0)
        self.counts[path] = number + 1
        return number


def apply_plan(module, plan):
    """Wraps `module`'s region submodules so that PyTorch trains it with
    `plan` (a path to ckpt-export-torch-plan's JSON, or its dict); returns
    the module, changed in place."""
    plan = load_plan(plan)
    regions = {}  # path -> {call: region}
    for region in plan["regions"]:
        regions.setdefault(region["module"], {})[region["call"]] = region
    names = {m: n for n, m in reversed(list(
        module.named_modules(remove_duplicate=False)))}
    targets = {}
    for candidate, name in names.items():
        path = _path_of(names, candidate)
        if path in regions and path not in targets.values():
            targets[candidate] = path
    missing = sorted(set(regions) - set(targets.values()))
    if missing:
        raise PlanMismatch(f"the module has no submodule '{missing[0]}' that "
                           "the plan checkpoints; the plan is for another "
                           "model")
    calls = _Calls()

    def context_fn(path):
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

    def wrap(child):
        return checkpoint_wrapper(
            child, checkpoint_impl=CheckpointImpl.NO_REENTRANT,
            preserve_rng_state=True,
            context_fn=functools.partial(context_fn, targets[child]))

    apply_activation_checkpointing(module, checkpoint_wrapper_fn=wrap,
                                   check_fn=lambda m: m in targets)
    module.register_forward_pre_hook(calls.reset)
    module._ckpt_torch_plan = plan
    return module


def plan_of(module):
    """The plan `apply_plan` or `plan` applied to `module` (its dict), or
    None."""
    return getattr(module, "_ckpt_torch_plan", None)


def _ckpt_opt(explicit):
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


def _importer():
    directory = os.path.join(_ROOT, "tools", "ckpt-import-torch")
    if directory not in sys.path:
        sys.path.insert(0, directory)
    import ckpt_import_torch
    return ckpt_import_torch


def plan(module, example_inputs, budget=None, strategy="auto", modules=None,
         ckpt_opt=None, keep=None, microbatches_in_flight=1, autocast=None):
    """Imports `module` (whose forward returns the loss) on
    `example_inputs`, plans its training step with ckpt-opt (`strategy`
    under `budget`, bytes as an int or ckpt-opt's spelling: "2GiB",
    "512MiB"; `modules`: glob patterns of the region modules instead of
    the automatic choice; `microbatches_in_flight`: for a pipeline stage
    running 1F1B, the budget holds that many microbatches' activations and
    the parameters once), and returns the module with the plan applied.
    `ckpt_opt` is the ckpt-opt to run (default: $CKPT_OPT, PATH, the
    repository's build). With `keep` (a directory), the step, the plan and
    ckpt-opt's report are written there. With `autocast` (torch.bfloat16
    or torch.float16), the plan is for the forward that
    `torch.autocast("cpu", dtype=autocast)` runs, its casts included: train
    under that autocast."""
    if (not isinstance(microbatches_in_flight, int)
            or isinstance(microbatches_in_flight, bool)
            or microbatches_in_flight < 1):
        raise PlanError("microbatches_in_flight must be a positive int, not "
                        f"{microbatches_in_flight!r}")
    importer = _importer()
    try:
        imported = importer.import_module(module, tuple(example_inputs),
                                          "model", record_calls=True,
                                          autocast=autocast)
    except importer.ImportFailure as failure:
        raise PlanError(f"cannot import the module: {failure}") from None
    pipeline = f"strategy={strategy}"
    if budget is not None:
        pipeline += f" budget={budget}"
    if microbatches_in_flight != 1:
        pipeline += f" microbatches-in-flight={microbatches_in_flight}"
    with tempfile.TemporaryDirectory() as scratch:
        directory = keep or scratch
        os.makedirs(directory, exist_ok=True)
        step = os.path.join(directory, "step.mlir")
        plan_path = os.path.join(directory, "plan.json")
        with open(step, "w") as f:
            f.write(imported.text)
        export = f"output={plan_path}"
        if modules:
            export += f" modules={','.join(modules)}"
        command = [_ckpt_opt(ckpt_opt), step,
                   f"--ckpt-pipeline={pipeline}",
                   f"--ckpt-export-torch-plan={export}",
                   f"--ckpt-report=output="
                   f"{os.path.join(directory, 'report.txt')}",
                   "-o", os.devnull]
        run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode != 0:
            raise PlanError("ckpt-opt failed:\n" + run.stderr.strip())
        return apply_plan(module, plan_path)
