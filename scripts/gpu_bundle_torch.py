#!/usr/bin/env python3
"""The PyTorch half of scripts/gpu-bundle.sh: imports small models of the
zoo (examples/torch) with their weights and inputs, plans each training
step with ckpt-opt (none, and dp), keeps ckpt-opt's plan for
python/ckpt_torch, and compiles each planned step for the GPU (or, to check the bundle without
one, the CPU).

usage: gpu_bundle_torch.py --build BUILD [--device cuda|cpu] --chip CHIP
                           [--models A,B] DIR

DIR/models.json lists, per model, its constructor (the module and keyword
arguments of examples/torch), its inputs' seed and shapes, and its plans;
DIR/steps/MODEL.PLAN is the compiled step, DIR/args/MODEL/ its weights and
inputs (argN.npy, as ckpt-run --inputs reads them), DIR/plans/MODEL.PLAN.json
ckpt-opt's plan for ckpt_torch.apply_plan.
"""

import argparse
import json
import os
import subprocess
import sys

import torch

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "examples", "torch"))
from ckpt_torch import importer as ckpt_import_torch  # noqa: E402
# The models and inputs are made as the bundle's own check makes them.
from gpu_bundle_run_torch import make_inputs, make_model  # noqa: E402

# name: (module, class, keyword arguments, inputs as (kind, shape, bound)).
# Small enough that weights, inputs and steps fit the bundle's 64 MiB.
MODELS = {
    "mlp_stack": ("mlp_stack", "MlpStack",
                  dict(width=128, hidden=512, blocks=4),
                  [("randn", [4, 128, 128], None),
                   ("randn", [4, 128, 128], None)]),
    "gpt2": ("gpt2", "Gpt2",
             dict(vocab=1024, context=64, layers=4, width=128, heads=4,
                  dropout=0.0),
             [("randint", [4, 64], 1024), ("randint", [4, 64], 1024)]),
    "llama": ("llama", "Llama",
              dict(vocab=512, context=64, layers=4, width=192, heads=6,
                   hidden=512),
              [("randint", [2, 64], 512), ("randint", [2, 64], 512)]),
    "mixer": ("mixer", "Mixer", {},
              [("randn", [4, 3, 28, 28], None), ("randint", [4], 10)]),
    "unet": ("unet", "UNet", {},
             [("randn", [4, 3, 64, 64], None),
              ("randn", [4, 3, 64, 64], None)]),
}
PLANS = ["none", "dp"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--chip", required=True)
    parser.add_argument("--models", default=",".join(MODELS),
                        help="comma-separated (default: all): "
                        + ", ".join(MODELS))
    parser.add_argument("out")
    options = parser.parse_args()
    chosen = options.models.split(",")
    unknown = [m for m in chosen if m not in MODELS]
    if unknown:
        parser.error(f"unknown model {unknown[0]} (known: "
                     f"{', '.join(MODELS)})")
    bin_dir = os.path.join(options.build, "bin")
    for folder in ("steps", "args", "plans", "work"):
        os.makedirs(os.path.join(options.out, folder), exist_ok=True)
    listing = {}
    for model_name in chosen:
        module, name, kwargs, specs = MODELS[model_name]
        inputs = make_inputs(specs)
        model = make_model(module, name, kwargs)
        imported = ckpt_import_torch.import_module(model, inputs, "model",
                                                   record_calls=True)
        work = os.path.join(options.out, "work")
        step = os.path.join(work, model_name + ".mlir")
        with open(step, "w") as f:
            f.write(imported.text)
        imported.write_weights(os.path.join(options.out, "args", model_name),
                               with_inputs=True)
        for plan in PLANS:
            planned = os.path.join(work, f"{model_name}.{plan}.mlir")
            plan_json = os.path.join(options.out, "plans",
                                     f"{model_name}.{plan}.json")
            subprocess.run(
                [os.path.join(bin_dir, "ckpt-opt"), step,
                 f"--ckpt-pipeline=strategy={plan}",
                 f"--ckpt-export-torch-plan=output={plan_json}", "-o",
                 planned], check=True)
            subprocess.run(
                [os.path.join(bin_dir, "ckpt-compile"), planned,
                 f"--device={options.device}", f"--chip={options.chip}", "-o",
                 os.path.join(options.out, "steps", f"{model_name}.{plan}")],
                check=True)
            print(f"  {model_name}: {plan}", flush=True)
        listing[model_name] = dict(module=module, name=name, kwargs=kwargs,
                                   inputs=specs, plans=PLANS)
    for leftover in os.listdir(os.path.join(options.out, "work")):
        os.remove(os.path.join(options.out, "work", leftover))
    os.rmdir(os.path.join(options.out, "work"))
    with open(os.path.join(options.out, "models.json"), "w") as f:
        json.dump(listing, f, indent=1)


if __name__ == "__main__":
    main()
