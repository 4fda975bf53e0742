#!/usr/bin/env python3
"""FP32, AMP and AMP + checkpointing at a fixed batch, ours and PyTorch's.

The article's three configurations (its section 08) on the MLP stack,
GPT-2 and Llama examples, each as ckpt-opt plans and runs it and as
PyTorch runs it.

ckpt-opt's table: each model imported by ckpt-import-torch in f32 and
under `--autocast bf16` (torch.autocast's casts as ops), planned with no
recompute (none), with the module's own per-block torch.utils.checkpoint
(manual), and with dp at the manual plan's simulated peak as the budget
(the fewest recompute FLOPs that fit where PyTorch's checkpoint fits), and
run by ckpt-run on the CPU. Columns: saved activation bytes (less the
inputs), ours and PyTorch's for the same configuration (PyTorch has no
counterpart of our dp plan); simulated and measured peak; recompute FLOPs
(docs/CostModel.md's counts) as a share of the forward's; the relative L2
difference of all gradients from our FP32 step (AMP's rounding, reported,
not hidden) and from PyTorch's gradients in the same configuration; and
whether every output is bit-identical to our AMP step with no plan.

PyTorch's table: the same modules and weights in eager PyTorch, FP32, AMP
(torch.autocast("cpu", dtype=torch.bfloat16) around the forward, backward
outside it) and AMP with the module's checkpoint. Saved bytes are the bytes
the forward leaves allocated (the loss's included), peak the largest
allocated total over forward and backward above what was allocated before
(parameters and inputs, counted once), both from the CPU allocator's
events in PyTorch's profiler; recompute FLOPs are FlopCounterMode's
(matrix products only) of the step less those of the step without
checkpoint. Dropout is off: PyTorch's CPU generator is not Philox.

usage: .venv/bin/python bench/amp-table.py [--build DIR] [--keep DIR]
           [MODEL...]   (MODEL: mlp, gpt2, llama; default all)
"""

import argparse
import copy
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch
from torch._C._profiler import _EventType
from torch.profiler import ProfilerActivity, profile
from torch.utils.flop_counter import FlopCounterMode

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "bench"))
from ckpt_torch import importer as ckpt_import_torch  # noqa: E402
import ckpt_torch  # noqa: E402
from ckpt_plans import plan as ckpt_plan  # noqa: E402

examples = os.path.join(root, "examples", "torch")
# name: (title, FILE.py:NAME, constructor arguments, input shapes, the
# attribute that turns the module's own checkpoint on and its value).
MODELS = {
    "mlp": ("MLP stack, 8 blocks, B=4 L=128 D=128",
            f"{examples}/mlp_stack.py:MlpStack",
            ["width=128", "hidden=512", "blocks=8", "checkpoint_every=1"],
            ["x=4,128,128", "target=4,128,128"], ("checkpoint_every", 1)),
    "gpt2": ("GPT-2, 4 layers, B=4 T=128 D=128",
             f"{examples}/gpt2.py:Gpt2",
             ["vocab=1024", "context=128", "layers=4", "width=128",
              "heads=4", "dropout=0.0", "checkpoint_blocks=True"],
             ["tokens=4,128:int64:1024", "labels=4,128:int64:1024"],
             ("checkpoint_blocks", True)),
    "llama": ("Llama, 4 layers, B=4 T=128 D=128",
              f"{examples}/llama.py:Llama",
              ["vocab=1024", "context=128", "layers=4", "width=128",
               "heads=4", "hidden=344", "checkpoint_blocks=True"],
              ["tokens=4,128:int64:1024", "labels=4,128:int64:1024"],
              ("checkpoint_blocks", True)),
}
AMP = torch.bfloat16


def allocations(profiled):
    """The CPU allocator's signed sizes (frees negative) in time order."""
    def walk(events):
        for event in events:
            yield event
            yield from walk(event.children)
    tree = profiled.profiler.kineto_results.experimental_event_tree()
    events = [e for e in walk(tree) if e.tag == _EventType.Allocation]
    return [e.extra_fields.alloc_size
            for e in sorted(events, key=lambda e: e.start_time_ns)]


def highest(sizes, start=0):
    """(the largest running total from `start`, the final total)."""
    total = top = start
    for size in sizes:
        total += size
        top = max(top, total)
    return top, total


def pytorch_step(module, inputs, amp):
    """PyTorch's loss and gradients (by parameter name), the bytes its
    forward leaves allocated, its peak above the parameters and inputs,
    and the matrix-product FLOPs of the step."""
    module.zero_grad(set_to_none=True)
    activities = [ProfilerActivity.CPU]
    with FlopCounterMode(display=False) as flops:
        with profile(activities=activities, profile_memory=True) as forward:
            with ckpt_import_torch.autocast_context(AMP if amp else None):
                loss = module(*inputs)
        with profile(activities=activities, profile_memory=True) as backward:
            loss.backward()
    forward_top, saved = highest(allocations(forward))
    backward_top, _ = highest(allocations(backward), saved)
    # Named as in the module before ckpt_torch wrapped its regions.
    grads = {n.replace("._checkpoint_wrapped_module", ""): p.grad.clone()
             for n, p in module.named_parameters() if p.grad is not None}
    return {"loss": loss.detach().clone(), "grads": grads, "saved": saved,
            "peak": max(forward_top, backward_top),
            "flops": flops.get_total_flops()}


def storage_bytes(tensors):
    storages = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes()
                for t in tensors}
    return sum(storages.values())


def relative_l2(ours, reference):
    ours = np.concatenate([a.astype(np.float64).ravel() for a in ours])
    reference = np.concatenate([a.astype(np.float64).ravel()
                                for a in reference])
    return np.linalg.norm(ours - reference) / np.linalg.norm(reference)


def gradients(directory, names):
    """The gradN.npy files of a ckpt-run --out (or --reference) directory,
    in argument order, for the arguments in `names`."""
    return [np.load(os.path.join(directory, f"grad{index}.npy"))
            for index in sorted(names)]


def identical(directory, other):
    files = sorted(os.listdir(directory))
    if files != sorted(os.listdir(other)):
        return False
    for name in files:
        with open(os.path.join(directory, name), "rb") as a, \
                open(os.path.join(other, name), "rb") as b:
            if a.read() != b.read():
                return False
    return True


def run_step(ckpt_run, step, arguments, out):
    run = subprocess.run([ckpt_run, step, "--inputs", arguments, "--out", out,
                          "--warmup", "0"], capture_output=True, text=True)
    peak = re.search(r"^peak bytes: measured (\d+) .*simulated (\d+)",
                     run.stdout, re.M)
    if run.returncode != 0 or not peak:
        sys.exit(f"ckpt-run {step} failed:\n{run.stdout}{run.stderr}")
    return int(peak.group(1)), int(peak.group(2))


def ours(options, name, directory, amp):
    """Imports the model (in f32 or under AMP), plans it none, manual and
    dp, runs each; returns one row per plan and the gradient files' names."""
    _, spec, arguments, shapes, _ = MODELS[name]
    module, inputs = ckpt_import_torch.load_model(spec, arguments, shapes)
    imported = ckpt_import_torch.import_module(
        module, inputs, name, autocast=AMP if amp else None)
    weights = os.path.join(directory, "args")
    imported.write_weights(weights, with_inputs=True)
    reference = os.path.join(directory, "pytorch")
    ckpt_import_torch._write_reference(module, inputs, imported, reference,
                                       AMP if amp else None)
    graded = {int(f[4:-4]) for f in os.listdir(reference)
              if re.fullmatch(r"grad\d+\.npy", f)}
    bin_dir = os.path.join(options.build, "bin")
    rows = {}
    plans = [("none", "strategy=none"), ("manual", "strategy=manual")]
    if amp:
        plans.append(("dp", None))
    for label, pipeline in plans:
        if pipeline is None:
            pipeline = f"strategy=dp budget={rows['manual']['peak']}"
        step = os.path.join(directory, f"{label}.mlir")
        row = ckpt_plan(os.path.join(bin_dir, "ckpt-opt"), imported.text,
                        pipeline, step)
        out = os.path.join(directory, f"{label}-out")
        row["measured"], simulated = run_step(
            os.path.join(bin_dir, "ckpt-run"), step, weights, out)
        if simulated != row["peak"]:
            sys.exit(f"{step}: ckpt-run simulates {simulated} B, "
                     f"ckpt-opt {row['peak']} B")
        row["out"] = out
        row["vs_pytorch"] = relative_l2(gradients(out, graded),
                                        gradients(reference, graded))
        rows[label] = row
    return rows, graded


def pytorch(name, budget, ckpt_opt):
    """PyTorch's FP32, AMP, AMP + checkpoint and AMP + ckpt-opt's dp plan
    at `budget` (through ckpt_torch) steps on the module's weights and
    inputs as the import sees them."""
    _, spec, arguments, shapes, (switch, on) = MODELS[name]
    module, inputs = ckpt_import_torch.load_model(spec, arguments, shapes)
    base = storage_bytes(list(module.parameters()) + list(module.buffers())
                         + list(inputs))
    setattr(module, switch, type(on)())
    steps = {}
    for label, amp, checkpointed in (("FP32", False, False),
                                     ("AMP", True, False),
                                     ("AMP + checkpoint", True, True),
                                     ("AMP + dp (ckpt_torch)", True, False)):
        model = copy.deepcopy(module)
        setattr(model, switch, on if checkpointed else type(on)())
        if label.endswith("(ckpt_torch)"):
            model = ckpt_torch.plan(model, inputs, budget=budget,
                                    strategy="dp", executor="regions",
                                    autocast=AMP, ckpt_opt=ckpt_opt)
        steps[label] = pytorch_step(model, inputs, amp)
        steps[label]["peak"] += base
    return steps


def mib(size):
    return f"{size / 2**20:.2f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(root, "build"),
                        help="the build with bin/ckpt-opt and bin/ckpt-run "
                             "(default: the repository's build/)")
    parser.add_argument("--keep", metavar="DIR",
                        help="keep the imports, plans and outputs in DIR")
    parser.add_argument("models", nargs="*", metavar="MODEL",
                        help="mlp, gpt2, llama (default all)")
    options = parser.parse_args()
    unknown = [m for m in options.models if m not in MODELS]
    if unknown:
        parser.error(f"unknown model '{unknown[0]}': choose from "
                     f"{', '.join(MODELS)}")
    torch.set_num_threads(1)
    names = options.models or list(MODELS)
    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        directory = options.keep or scratch
        for name in names:
            print(f"{MODELS[name][0]}: importing, planning and running ...",
                  file=sys.stderr, flush=True)
            runs = {}
            for amp in (False, True):
                where = os.path.join(directory, name, "amp" if amp else "fp32")
                os.makedirs(where, exist_ok=True)
                runs[amp] = ours(options, name, where, amp)
            theirs = pytorch(name, runs[True][0]["manual"]["peak"],
                             os.path.join(options.build, "bin", "ckpt-opt"))
            results[name] = (runs, theirs)
        print_ours(names, results)
        print()
        print_pytorch(names, results)


def print_ours(names, results):
    row = ("| {:<34} | {:>10} | {:>10} | {:>10} | {:>10} | {:>8} "
           "| {:>9} | {:>9} | {:>10} |")
    print("ckpt-opt (MiB; bf16 autocast; dp at the manual plan's peak)")
    print()
    print(row.format("model / configuration", "saved", "PyTorch's",
                     "sim. peak", "meas. peak", "recomp.", "vs FP32",
                     "vs PyTorch", "= AMP"))
    print(row.format(*["---"] * 9))
    for name in names:
        (fp32, graded), (amp, _) = results[name][0][False], \
            results[name][0][True]
        theirs = results[name][1]
        reference = gradients(fp32["none"]["out"], graded)
        print(row.format(f"**{MODELS[name][0]}**", *[""] * 8))
        for label, plan, pytorch_label in (
                ("FP32", fp32["none"], "FP32"),
                ("AMP", amp["none"], "AMP"),
                ("AMP + manual (PyTorch's blocks)", amp["manual"],
                 "AMP + checkpoint"),
                ("AMP + dp", amp["dp"], "AMP + dp (ckpt_torch)")):
            theirs_saved = mib(theirs[pytorch_label]["saved"])
            amp_plan = plan is not fp32["none"]
            print(row.format(
                label, mib(plan["saved"]), theirs_saved, mib(plan["peak"]),
                mib(plan["measured"]),
                f"{100 * plan['flops'] / plan['forward']:.1f}%",
                f"{relative_l2(gradients(plan['out'], graded), reference):.2e}"
                if amp_plan else "0",
                f"{plan['vs_pytorch']:.2e}",
                ("yes" if identical(plan["out"], amp["none"]["out"])
                 else "NO") if amp_plan else "-"))


def print_pytorch(names, results):
    row = "| {:<34} | {:>10} | {:>10} | {:>12} | {:>9} | {:>6} |"
    print("PyTorch eager (MiB; its own torch.utils.checkpoint)")
    print()
    print(row.format("model / configuration", "saved", "peak",
                     "recomp. FLOPs", "vs FP32", "= AMP"))
    print(row.format(*["---"] * 6))
    for name in names:
        steps = results[name][1]
        print(row.format(f"**{MODELS[name][0]}**", *[""] * 5))
        fp32, amp = steps["FP32"], steps["AMP"]
        for label, step in steps.items():
            difference = relative_l2(
                [g.double().numpy() for g in step["grads"].values()],
                [fp32["grads"][n].double().numpy() for n in step["grads"]])
            same = all(torch.equal(g, amp["grads"][n])
                       for n, g in step["grads"].items()) and \
                torch.equal(step["loss"], amp["loss"])
            print(row.format(
                label, mib(step["saved"]), mib(step["peak"]),
                step["flops"] - amp["flops"] if step is not fp32 else 0,
                f"{difference:.2e}" if step is not fp32 else "0",
                ("yes" if same else "NO") if step is not fp32 else "-"))


if __name__ == "__main__":
    main()
