#!/usr/bin/env python3
"""Peer plans: PyTorch's min-cut rematerialization partitioner
(functorch aot_module) against ckpt-opt's dp and tensor planners on the
model zoo (MLP stack, GPT-2, Llama, U-Net, ResNet, FCN).

For each model: what PyTorch saves for backward with no recompute
(default_partition) and with the min-cut partitioner (its two settings),
against ckpt-opt with no plan, dp and tensor at min-cut's saved bytes (the
budget is our no-plan peak less the bytes by which our no-plan saved
activations exceed the fewer min-cut saves), and their smallest peaks.
Saved activation bytes exclude parameters and inputs; recompute FLOPs use
docs/CostModel.md's counts on both sides. Dropout is off: PyTorch's
decomposed dropout saves a mask, ours none, which would flatter us.

usage: .venv/bin/python bench/torch-peer-plans.py [--build DIR]   (the
project's virtual environment, with PyTorch 2.15 and networkx; ckpt-opt
from DIR/bin, default build/)
"""

import argparse
import os
import sys

import torch

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "examples", "torch"))
sys.path.insert(0, os.path.join(root, "bench"))
from ckpt_torch import importer as ckpt_import_torch  # noqa: E402
import fcn  # noqa: E402
import gpt2  # noqa: E402
import llama  # noqa: E402
import mlp_stack  # noqa: E402
import resnet  # noqa: E402
import unet  # noqa: E402
from ckpt_plans import plan as ckpt_plan  # noqa: E402
from torch_min_cut import min_cut_plan  # noqa: E402


def models():
    tokens = lambda vocab, shape: torch.randint(0, vocab, shape)  # noqa: E731
    yield ("MLP stack, 8 blocks, B=8 L=128 D=256",
           lambda: mlp_stack.MlpStack(width=256, hidden=1024, blocks=8),
           lambda: (torch.randn(8, 128, 256), torch.randn(8, 128, 256)))
    yield ("GPT-2-style, 4 layers, B=4 T=128 D=128",
           lambda: gpt2.Gpt2(vocab=1024, context=128, layers=4, width=128,
                             heads=4, dropout=0.0),
           lambda: (tokens(1024, (4, 128)), tokens(1024, (4, 128))))
    yield ("Llama-style, 4 layers, B=4 T=128 D=128",
           lambda: llama.Llama(vocab=1024, context=128, layers=4, width=128,
                               heads=4, hidden=344),
           lambda: (tokens(1024, (4, 128)), tokens(1024, (4, 128))))
    images = lambda: torch.randn(8, 3, 32, 32)  # noqa: E731
    yield ("U-Net, widths 8/16/32, 8x3x32x32", lambda: unet.UNet(),
           lambda: (images(), torch.randn(8, 3, 32, 32)))
    yield ("ResNet-style, widths 16/32, 8x3x32x32", lambda: resnet.ResNet(),
           lambda: (images(), tokens(10, (8,))))
    yield ("FCN, width 16, 8x3x32x32", lambda: fcn.Fcn(),
           lambda: (images(), tokens(5, (8, 32, 32))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(root, "build"))
    options = parser.parse_args()
    ckpt_opt = os.path.join(options.build, "bin", "ckpt-opt")
    row = "| {:<52} | {:>14} | {:>16} | {:>9} | {:>12} |"
    print(row.format("model / plan", "saved act. B", "recompute FLOPs",
                     "% of fwd", "peak B"))
    print(row.format(*["---"] * 5))
    for title, make, inputs_of in models():
        torch.manual_seed(0)
        inputs = inputs_of()
        theirs = {setting: min_cut_plan(make(), inputs, compiler=setting)
                  for setting in ("nvfuser", "inductor")}
        text = ckpt_import_torch.import_module(make(), inputs, "model").text
        none = ckpt_plan(ckpt_opt, text, "strategy=none")
        print(row.format(f"**{title}**", "", "", "", ""))
        default = theirs["nvfuser"]["default_saved_activation_bytes"]
        print(row.format("PyTorch default_partition (no recompute)", default,
                         0, "0.0", "-"))
        for setting, plan in theirs.items():
            print(row.format(
                f"PyTorch min-cut ({setting} setting)",
                plan["saved_activation_bytes"], plan["recompute_flops"],
                f"{100 * plan['recompute_flops'] / plan['forward_flops']:.1f}",
                "-"))
        print(row.format("ckpt none", none["saved"], 0, "0.0", none["peak"]))
        fewest = min(p["saved_activation_bytes"] for p in theirs.values())
        budget = none["peak"] - max(0, none["saved"] - fewest)
        for label, plan in (
                (f"ckpt dp at min-cut's saved bytes (budget {budget} B)",
                 f"strategy=dp budget={budget}"),
                ("ckpt tensor at min-cut's saved bytes",
                 f"strategy=tensor budget={budget} ilp-seconds=60"),
                ("ckpt dp, smallest peak", "strategy=dp"),
                ("ckpt tensor, smallest peak",
                 "strategy=tensor ilp-seconds=60")):
            ours = ckpt_plan(ckpt_opt, text, plan)
            print(row.format(label, ours["saved"], ours["flops"],
                             f"{100 * ours['flops'] / ours['forward']:.1f}",
                             ours["peak"]))


if __name__ == "__main__":
    main()
