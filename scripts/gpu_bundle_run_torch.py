#!/usr/bin/env python3
"""The PyTorch half of the GPU bundle's check (scripts/gpu-bundle.sh copies
it in as torch/run_torch.py): for each model of models.json and each plan,
the compiled step on the GPU (its weights and inputs from args/) against
PyTorch eager on the same GPU with the same plan (ckpt_torch.apply_plan of
ckpt-opt's plan; `none` runs the module as it is). Both build the same
model from the same seeds, so their losses agree to fp32 rounding. Step
times from CUDA events, mean of --repeat after a warm-up; PyTorch's peak is
torch.cuda.max_memory_allocated. Prints one Markdown table; exits 1 if a
step fails or the losses differ by more than 1e-4 relative.

usage: python3 run_torch.py DIR [--repeat N]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

import torch


def make_inputs(specs):
    """The inputs that models.json describes, from seed 1."""
    torch.manual_seed(1)
    return tuple(torch.randn(*shape) if kind == "randn"
                 else torch.randint(0, bound, tuple(shape))
                 for kind, shape, bound in specs)


def make_model(module, name, kwargs):
    """The model `name` of `module` (examples/torch) with `kwargs`, from
    seed 0."""
    torch.manual_seed(0)
    return getattr(__import__(module), name)(**kwargs)


def pytorch_step(model, inputs, repeat, device):
    """(loss, mean ms, peak bytes or None) of forward and backward."""
    cuda = device == "cuda"
    times = []
    for step in range(repeat + 1):  # the first is a warm-up
        model.zero_grad(set_to_none=True)
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            start, stop = torch.cuda.Event(True), torch.cuda.Event(True)
            start.record()
        began = time.perf_counter()
        loss = model(*inputs)
        loss.backward()
        if cuda:
            stop.record()
            torch.cuda.synchronize()
            elapsed = start.elapsed_time(stop)
        else:
            elapsed = (time.perf_counter() - began) * 1e3
        if step:
            times.append(elapsed)
    return (loss.item(), sum(times) / len(times),
            torch.cuda.max_memory_allocated() if cuda else None)


def ckpt_step(directory, model, plan, repeat):
    """(loss, mean ms, measured peak, simulated peak) of the compiled step."""
    run = subprocess.run(
        [os.path.join(directory, "steps", f"{model}.{plan}"), "--inputs",
         os.path.join(directory, "args", model), "--repeat", str(repeat)],
        capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        raise RuntimeError(f"{model}.{plan} failed:\n{run.stderr.strip()}")
    out = run.stdout
    loss = float(re.search(r"^loss: (\S+)", out, re.M).group(1))
    ms = float(re.search(r"^step time: ([0-9.]+) ms mean", out, re.M).group(1))
    peak = re.search(r"^peak bytes: measured (\d+) .*simulated (\d+)", out,
                     re.M)
    return loss, ms, int(peak.group(1)), int(peak.group(2))


def mib(b):
    return "-" if b is None else f"{b / 2**20:.2f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    options = parser.parse_args()
    if options.device == "cuda" and not torch.cuda.is_available():
        print("run_torch: this PyTorch sees no CUDA GPU", file=sys.stderr)
        return 1
    sys.path.insert(0, options.directory)
    import ckpt_torch
    with open(os.path.join(options.directory, "models.json")) as f:
        models = json.load(f)
    where = (torch.cuda.get_device_name() if options.device == "cuda"
             else "CPU")
    print(f"{where}, torch {torch.__version__}")
    print("| model | plan | ckpt ms | PyTorch ms | ratio | ckpt MiB: "
          "measured / simulated | PyTorch MiB | loss: ckpt / PyTorch |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
    failed = False
    for name, spec in models.items():
        inputs = [x.to(options.device) for x in make_inputs(spec["inputs"])]
        for plan in spec["plans"]:
            model = make_model(spec["module"], spec["name"],
                               spec["kwargs"]).to(options.device)
            if plan != "none":
                model = ckpt_torch.apply_plan(
                    model, os.path.join(options.directory, "plans",
                                        f"{name}.{plan}.json"))
            try:
                ours, ms, peak, simulated = ckpt_step(
                    options.directory, name, plan, options.repeat)
            except (RuntimeError, subprocess.TimeoutExpired) as error:
                print(f"| {name} | {plan} | FAILED: {error} | | | | | |")
                failed = True
                continue
            theirs, their_ms, their_peak = pytorch_step(
                model, inputs, options.repeat, options.device)
            agree = abs(ours - theirs) <= 1e-4 * max(abs(theirs), 1e-30)
            failed |= not agree
            print(f"| {name} | {plan} | {ms:.2f} | {their_ms:.2f} "
                  f"| {ms / their_ms:.2f}x | {mib(peak)} / {mib(simulated)} "
                  f"| {mib(their_peak)} | {ours:.6g} / {theirs:.6g}"
                  f"{'' if agree else ' DIFFER'} |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
