#!/usr/bin/env python3
"""The zoo's checks, one table row per model: torchvision's classifiers
(as bench/torchvision-zoo.py builds them, but the ViTs at two patches a
side, and its SMALL_FAMILIES by family name) and transformers' decoders
and encoders (examples/torch/transformers_models.py, "sdpa" attention
where the library has it).

For each model it imports the step, runs it with ckpt-run and checks:
- f64 gradients against PyTorch's autograd: global relative L2 over all
  gradients (and the loss) <= 1e-8, or <= 1e-6 where the model computes
  parts in f32 whatever its type (its import casts: Llama's RMSNorm
  upcasts its input), marked "f32 inside";
- f32 the same, <= 1e-4, or, where two f32 runs cannot agree that well
  (batch norm over 2 values per channel, a max pool's near-ties), our f32
  gradients within 1e-4 of PyTorch's f64 ones, or as close to them as
  PyTorch's f32 gradients are (within 2x);
- saved activation bytes against what autograd saves
  (test/Torch/Inputs/torch_oracle.py: node by node, documented
  differences apart);
- bit-identical gradients and loss under the plans none, sqrt, dp and
  tensor (dp and tensor at 90% of the unplanned simulated peak, or the
  smallest budget they meet when that is more);
with dropout and stochastic depth off (PyTorch's random numbers are not
ours).
- the measured peak (with and without the returned gradients) equal to
  the simulated one under every plan.

usage: .venv/bin/python bench/zoo-checks.py [--plans none,dp] [--f64-only]
       [MODEL...]   (all models and plans by default; --f64-only runs the
       plans in f64 and skips f32)
The build's bin/ must be on PATH (ckpt-opt, ckpt-run).
"""

import argparse
import filecmp
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy
import torch
import torchvision

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "test", "Torch", "Inputs"))
sys.path.insert(0, os.path.join(root, "bench"))
from ckpt_torch import importer as ckpt_import_torch  # noqa: E402
import torch_oracle  # noqa: E402

zoo = __import__("torchvision-zoo")

# transformers' models: the builder in examples/torch/transformers_models.py
# and its arguments (the attention "sdpa" unless given); decoders take
# tokens, encoders tokens and labels.
DECODERS = {
    "gpt2": ("gpt2", []), "llama": ("llama", []),
    "mistral": ("causal_lm", ['architecture="mistral"', "num_key_value_heads=2"]),
    "qwen2": ("causal_lm", ['architecture="qwen2"', "num_key_value_heads=2"]),
    "gemma": ("causal_lm", ['architecture="gemma"', "num_key_value_heads=2",
                            "head_dim=16"]),
    "phi": ("causal_lm", ['architecture="phi"']),
    "phi3": ("causal_lm", ['architecture="phi3"', "num_key_value_heads=2",
                           "pad_token_id=0"]),
    "olmo": ("causal_lm", ['architecture="olmo"']),
    "gpt_neox": ("causal_lm", ['architecture="gpt_neox"']),
    "gptj": ("causal_lm", ['architecture="gptj"', "rotary_dim=8"]),
    "gpt_bigcode": ("causal_lm", ['architecture="gpt_bigcode"']),
    "falcon": ("causal_lm", ['architecture="falcon"']),
    "opt": ("causal_lm", ['architecture="opt"']),
    # The library has no sdpa attention for BLOOM (ALiBi biases).
    "bloom": ("causal_lm", ['architecture="bloom"', 'attention="eager"']),
}
ENCODERS = {
    "bert": ("bert", []),
    "distilbert": ("masked_lm", ['architecture="distilbert"']),
    "electra": ("masked_lm", ['architecture="electra"']),
    "albert": ("masked_lm", ['architecture="albert"']),
}
TRANSFORMERS = {**DECODERS, **ENCODERS}
PLANS = ("none", "sqrt", "dp", "tensor")
# f64 gradients against autograd's: a model computed in f64 throughout,
# and one that computes parts in f32 whatever its type (float32 rounding
# in both, summed in different orders).
F64_TOLERANCE, F32_INSIDE_TOLERANCE = 1e-8, 1e-6


def vit_size(name):
    """Two patches a side for a ViT; None for other models."""
    return 2 * int(name.split("_")[-1]) if name.startswith("vit_") else None


def image_size(name):
    """A ViT's two patches a side; a small family's own size; at least 64
    for the other builders: on 32x32 images the last batch norms of a
    stride-32 network normalise 2 values per channel (a 1x1 map, a batch
    of 2), too ill-conditioned for even two f64 runs to agree within 1e-8
    (resnet34: 3e-8; 6e-14 at 64) or f32 ones within 1e-4."""
    if name in zoo.SMALL_FAMILIES:
        return zoo.image_size(name)
    return vit_size(name) or max(zoo.image_size(name), 64)


def build(name, dtype):
    """The module and its example inputs, in `dtype`."""
    torch.manual_seed(0)
    if name in TRANSFORMERS:
        builder, arguments = TRANSFORMERS[name]
        spec = os.path.join(root, "examples", "torch",
                            "transformers_models.py") + ":" + builder
        shapes = [f"{n}=2,16:int64:256" for n in
                  (["tokens"] if name in DECODERS else ["tokens", "labels"])]
        if not any(a.startswith("attention=") for a in arguments):
            arguments = arguments + ['attention="sdpa"']
        # In f64, the decoders' loss in f64 too: the library's upcasts
        # the logits to f32 (examples/torch/transformers_models.py).
        if dtype == torch.float64 and name in DECODERS:
            arguments = arguments + ["library_loss=False"]
        model, inputs = ckpt_import_torch.load_model(spec, arguments, shapes)
    else:
        # Dropout and stochastic depth off: PyTorch's random numbers are
        # not ours (test/Torch/dropout-plans.test checks plans with
        # dropout on). ViTs at two patches a side: the checks need no
        # 224-pixel image.
        size = image_size(name)
        options = {"image_size": size} if vit_size(name) else {}
        model = zoo.build(name, deterministic=True, **options)
        inputs = (torch.randn(2, 3, size, size), torch.randint(0, 10, (2,)))
    model = model.to(dtype)
    inputs = tuple(x.to(dtype) if x.is_floating_point() else x
                   for x in inputs)
    return model, inputs


def run(command, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        raise RuntimeError(f"{command[0]} failed: "
                           f"{(done.stderr or done.stdout).strip()[-400:]}")
    return done.stdout


def imported_step(name, dtype, directory):
    """Imports the model in `dtype`; writes its arguments and PyTorch's
    loss and gradients; returns the import and the module."""
    model, inputs = build(name, dtype)
    result = ckpt_import_torch.import_module(model, inputs, "model")
    result.write_weights(os.path.join(directory, "args"), with_inputs=True)
    ckpt_import_torch._write_reference(model, inputs, result,
                                       os.path.join(directory, "ref"))
    with open(os.path.join(directory, "model.mlir"), "w") as f:
        f.write(result.text)
    return result, model, inputs


def run_plan(directory, plan, tolerance, budget=None, reference=None):
    """Plans, runs and compares with PyTorch (the gradients in `reference`,
    by default the directory's): (relative L2, largest difference
    of measured and simulated peak in bytes, simulated peak). A budget below what the plan can meet becomes the smallest it
    meets."""
    step = os.path.join(directory, f"{plan}.mlir")
    try:
        run(["ckpt-opt", os.path.join(directory, "model.mlir"),
             f"--ckpt-pipeline=strategy={plan}" +
             (f" budget={budget}" if budget else ""), "-o", step])
    except RuntimeError as failure:
        smallest = re.search(r"smallest budget this strategy meets is (\d+)",
                             str(failure))
        if not smallest:
            raise
        run(["ckpt-opt", os.path.join(directory, "model.mlir"),
             f"--ckpt-pipeline=strategy={plan} budget={smallest.group(1)}",
             "-o", step])
    # The verdict is read from the output; ckpt-run fails when the
    # reference disagrees.
    out = subprocess.run(
        ["ckpt-run", step, "--inputs", os.path.join(directory, "args"),
         "--reference", reference or os.path.join(directory, "ref"),
         "--reference-tolerance", str(tolerance),
         "--out", os.path.join(directory, "out-" + plan)],
        capture_output=True, text=True).stdout
    if "relative L2 difference" not in out:
        raise RuntimeError(f"ckpt-run {plan} failed: {out.strip()[-300:]}")
    error = float(re.search(r"relative L2 difference ([0-9.e+-]+) over all",
                            out).group(1))
    # Both peaks: with and without the returned gradients.
    peaks = re.findall(r"^peak bytes.*: measured (\d+) .*, simulated (\d+)",
                       out, re.M)
    deviation = max(abs(int(m) - int(p)) for m, p in peaks)
    return error, deviation, int(peaks[0][1])


def gradient_difference(directory, reference):
    """Global relative L2 of the gradients in `directory` against those in
    `reference` (PyTorch's f32 against its f64)."""
    difference = norm = 0.0
    for name in os.listdir(reference):
        if name.startswith("grad"):
            theirs = numpy.load(os.path.join(reference, name))
            ours = numpy.load(os.path.join(directory, name)).astype(
                theirs.dtype)
            difference += float(((ours - theirs) ** 2).sum())
            norm += float((theirs ** 2).sum())
    return (difference / norm) ** 0.5 if norm else difference ** 0.5


def same_outputs(a, b):
    names = sorted(os.listdir(a))
    return names == sorted(os.listdir(b)) and all(
        filecmp.cmp(os.path.join(a, n), os.path.join(b, n), shallow=False)
        for n in names)


def saved_bytes(result, model, inputs):
    """Ours, PyTorch's and the nodes where they differ beyond the
    documented differences (masks, constants, slices PyTorch keeps
    whole)."""
    report = run(["ckpt-opt", "-", "--ckpt-pipeline=strategy=none",
                  "--ckpt-report=format=json", "-o", os.devnull],
                 input=result.text)
    ours, _, _, partial = torch_oracle.ckpt_saved(result,
                                                  json.loads(report)[0])
    theirs, _ = torch_oracle.pytorch_saved(result, model, inputs)
    differing, _ = torch_oracle.compare(ours, partial, theirs)
    return sum(ours.values()), sum(theirs.values()), len(differing)


def check(name, plans, with_f32):
    """One row: the plans run in f32 (the precision users train in) and
    f64 checks the arithmetic; without f32, the plans run in f64."""
    row = {"model": name}
    planned_dtype = torch.float32 if with_f32 else torch.float64
    with tempfile.TemporaryDirectory() as scratch:
        planned = os.path.join(scratch, "planned")
        f64 = os.path.join(scratch, "f64")
        os.makedirs(planned)
        os.makedirs(f64)
        start = time.time()
        result, model, inputs = imported_step(name, planned_dtype, planned)
        row["import s"] = time.time() - start
        f64_text = imported_step(name, torch.float64, f64)[0].text \
            if with_f32 else result.text
        row["f32 inside"] = "ckpt.cast" in f64_text
        row["f64 tolerance"] = F32_INSIDE_TOLERANCE if row["f32 inside"] \
            else F64_TOLERANCE
        tolerance = 1e-4 if with_f32 else row["f64 tolerance"]
        row["ops"] = sum(1 for line in result.text.splitlines()
                         if "= ckpt." in line)
        row["saved"] = saved_bytes(result, model, inputs)
        errors, exact, peaks = {}, {}, {}
        errors["none"], exact["none"], peaks["none"] = run_plan(
            planned, "none", tolerance)
        budget = int(peaks["none"] * 0.9)
        for plan in plans[1:]:
            try:
                errors[plan], exact[plan], peaks[plan] = run_plan(
                    planned, plan, tolerance, budget if plan != "sqrt" else None)
            except RuntimeError as failure:
                errors[plan], exact[plan] = None, None
                row.setdefault("notes", []).append(f"{plan}: {failure}")
        if with_f32:
            row["f32"] = errors["none"]
            row["f64"] = run_plan(f64, "none", row["f64 tolerance"])[0]
            # f32 against f64: ours, and PyTorch's own.
            row["f32 vs f64"] = gradient_difference(
                os.path.join(planned, "out-none"), os.path.join(f64, "ref"))
            row["torch f32 vs f64"] = gradient_difference(
                os.path.join(planned, "ref"), os.path.join(f64, "ref"))
        else:
            row["f64"] = errors["none"]
        row["identical"] = [p for p in plans[1:] if errors[p] is not None
                            and same_outputs(os.path.join(planned, "out-none"),
                                             os.path.join(planned, "out-" + p))]
        row["planned"] = [p for p in plans[1:] if errors[p] is not None]
        row["peak deviation"] = max(v for v in exact.values() if v is not None)
        row["peaks exact"] = row["peak deviation"] == 0
    row["total s"] = time.time() - start
    return row


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="*", metavar="MODEL",
                        help="models to check (default: all)")
    parser.add_argument("--plans", default=",".join(PLANS),
                        help="plans to run, none first (default: %(default)s)")
    parser.add_argument("--f64-only", action="store_true",
                        help="run the plans in f64 and skip f32 (quicker)")
    args = parser.parse_args()
    plans = args.plans.split(",")
    if plans[0] != "none" or not set(plans) <= set(PLANS):
        parser.error(f"--plans must start with none and name only "
                     f"{', '.join(PLANS)}")
    names = args.models or (
        torchvision.models.list_models(module=torchvision.models) +
        list(TRANSFORMERS))
    with_f32 = not args.f64_only
    print(f"torch {torch.__version__}")
    print("| model | ckpt ops | saved bytes, ckpt | PyTorch | differing "
          "nodes | f64 | f32 | f32 vs PyTorch f64 (PyTorch's own) | plans "
          "bit-identical to none | peak = simulated | import s | checks s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- "
          "| ---: | ---: |")
    failed = 0
    for name in names:
        try:
            r = check(name, plans, with_f32)
        except (RuntimeError, ckpt_import_torch.ImportFailure) as failure:
            print(f"| {name} | failed: "
                  f"{str(failure).splitlines()[0][:200]} |||||||||", flush=True)
            failed += 1
            continue
        ours, theirs, differing = r["saved"]
        # In f32 the gradients match PyTorch's f32 ones, or the f64 ones
        # within 1e-4, or as closely as PyTorch's own f32 ones do (within
        # 2x): where two f32 runs cannot agree (batch norm over 2 values
        # per channel, a max pool's near-ties), PyTorch's f32 gradients
        # stray from the exact ones too.
        f32_good = not with_f32 or r["f32"] <= 1e-4 or \
            r["f32 vs f64"] <= max(1e-4, 2 * r["torch f32 vs f64"])
        good = (r["f64"] <= r["f64 tolerance"] and f32_good and differing == 0
                and r["peaks exact"] and r["identical"] == r["planned"]
                and len(r["planned"]) == len(plans) - 1)
        failed += not good
        f32 = (f"{r['f32']:.1e} | {r['f32 vs f64']:.1e} "
               f"({r['torch f32 vs f64']:.1e})") if with_f32 else "- | -"
        f64 = f"{r['f64']:.1e}" + (" (f32 inside)" if r["f32 inside"]
                                    else "")
        print(f"| {name} | {r['ops']} | {ours} | {theirs} | {differing} | "
              f"{f64} | {f32} | "
              f"{', '.join(r['identical']) or 'none'}"
              f"{'' if r['identical'] == r['planned'] else ' (not all)'} | "
              f"{'yes' if r['peaks exact'] else 'no, %d B off' % r['peak deviation']}"
              f" | {r['import s']:.1f} | "
              f"{r['total s']:.0f} |", flush=True)
        for note in r.get("notes", []):
            print(f"  {name}: {note[:300]}", file=sys.stderr)
    print(f"\n{len(names) - failed} of {len(names)} pass every check")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
