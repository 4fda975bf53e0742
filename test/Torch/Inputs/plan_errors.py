"""ckpt_torch's errors, one per line of output: each bad plan file, a plan
for another model, a model that makes other op calls than the plan has (or
calls a region more often), a plan that drops part of a storage, bad
arguments, a failed import and a failed ckpt-opt run."""

import copy
import json
import os
import tempfile

import torch
from torch import nn

import ckpt_torch


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return torch.tanh(self.fc(x))


class Model(nn.Module):
    def __init__(self, calls=1):
        super().__init__()
        self.first = Block()
        self.second = Block()
        self.calls = calls

    def forward(self, x):
        for _ in range(self.calls):
            x = self.second(self.first(x))
        return x.square().mean()


class InPlace(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return self.fc(x).relu_().square().mean()


def report(what, action):
    try:
        action()
        print(f"{what}: no error")
    except ckpt_torch.PlanError as error:
        print(f"{what}: {type(error).__name__}: {error}")


def main():
    torch.manual_seed(0)
    x = torch.randn(4, 8)
    with tempfile.TemporaryDirectory() as directory:
        def written(name, value):
            target = os.path.join(directory, name)
            with open(target, "w") as f:
                f.write(value if isinstance(value, str) else
                        json.dumps(value))
            return target

        ckpt_torch.plan(Model(), (x,), strategy="sqrt", executor="regions",
                        keep=directory)
        path = os.path.join(directory, "plan.json")
        with open(path) as f:
            plan = json.load(f)
        report("missing file", lambda: ckpt_torch.apply_plan(
            Model(), os.path.join(directory, "none.json")))
        report("not JSON", lambda: ckpt_torch.apply_plan(
            Model(), written("text.json", "plan")))
        report("other format", lambda: ckpt_torch.apply_plan(
            Model(), written("other.json", {**plan, "version": 1})))
        report("other executor", lambda: ckpt_torch.apply_plan(
            Model(), written("executor.json", {**plan, "executor": "sac"})))
        edited = copy.deepcopy(plan)
        edited["regions"][0]["ops"][0]["op"] = "aten.mm.default"
        report("edited", lambda: ckpt_torch.apply_plan(
            Model(), written("edited.json", edited)))
        renamed = copy.deepcopy(plan)
        renamed["regions"][0]["module"] = "third"
        report("other model", lambda: ckpt_torch.apply_plan(
            Model(), written("renamed.json", renamed)))
        twice = ckpt_torch.apply_plan(Model(calls=2), path)
        report("called twice", lambda: twice(x))
        shorter = ckpt_torch.apply_plan(Model(), path)
        block = shorter.first._checkpoint_wrapped_module
        block.forward = lambda v: block.fc(v)
        report("fewer op calls", lambda: shorter(x))

        # The ops executor's plans.
        ckpt_torch.plan(Model(), (x,), strategy="sqrt", keep=directory)
        with open(path) as f:
            plan = json.load(f)
        edited = {**plan, "ops": ["aten.mm.default"] + plan["ops"][1:]}
        report("ops edited", lambda: ckpt_torch.apply_plan(
            Model(), written("ops-edited.json", edited)))
        report("ops out of range", lambda: ckpt_torch.apply_plan(
            Model(), written("range.json", {**plan, "dropped": [[99, 0]]})))
        report("scratch out of range", lambda: ckpt_torch.apply_plan(
            Model(), written("scratch.json", {**plan, "scratch": [[99, 0]]})))
        twice = ckpt_torch.apply_plan(Model(calls=2), path)
        report("ops called twice", lambda: twice(x))
        shorter = ckpt_torch.apply_plan(Model(), path)
        shorter.first.forward = lambda v: shorter.first.fc(v)
        report("ops other call", lambda: shorter(x))
        # A plan that drops fc's output but keeps the ReLU that writes it
        # in place.
        ckpt_torch.plan(InPlace(), (x,), strategy="none", keep=directory)
        with open(path) as f:
            plan = json.load(f)
        made = plan["ops"].index("aten.addmm.default")
        partial = ckpt_torch.apply_plan(InPlace(), written(
            "partial.json", {**plan, "dropped": [[made, 0]]}))
        report("part of a storage", lambda: partial(x))

        report("import fails", lambda: ckpt_torch.plan(Model(), (x, x)))
        report("ckpt-opt fails", lambda: ckpt_torch.plan(
            Model(), (x,), strategy="often"))
        report("bad budget", lambda: ckpt_torch.plan(
            Model(), (x,), budget="nothing"))
        report("budget too small", lambda: ckpt_torch.plan(
            Model(), (x,), budget=1024))
        report("unknown executor", lambda: ckpt_torch.plan(
            Model(), (x,), executor="sac"))
        report("modules without regions", lambda: ckpt_torch.plan(
            Model(), (x,), modules=["first"]))
        report("no microbatches", lambda: ckpt_torch.plan(
            Model(), (x,), microbatches_in_flight=0))
        report("no ckpt-opt", lambda: ckpt_torch.plan(
            Model(), (x,), ckpt_opt=os.path.join(directory, "ckpt-opt")))


if __name__ == "__main__":
    main()
