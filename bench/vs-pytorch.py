#!/usr/bin/env python3
"""ckpt-run against PyTorch eager on the same models, the same device and
the same threads: step time and peak memory, one Markdown table.

For each model of the zoo (examples/torch and torchvision's ResNet-18 and
RegNetX-400MF; dropout off, so both compute the same function), PyTorch
runs forward and backward after a warm-up step; the same module, imported
by ckpt-import-torch with its weights and inputs, is planned with each
`--plans` strategy (none: everything saved, as PyTorch without
checkpointing; manual: the module's own torch.utils.checkpoint calls, next
to PyTorch with them) and run by `ckpt-run` (one warm-up, then `--repeat`
runs; the first run also finishes JIT compilation). The two take turns
for `--rounds` rounds and the table gives each side's best round mean:
a shared machine's speed drifts over seconds to minutes (here the same
step ran at 12.6 ms and at 19.2 ms minutes apart), and taking turns gives
both sides the same chances. `first s` is the wall
time of planning, compiling and running the step once (ckpt-opt and
ckpt-run --repeat 1 --warmup 0 on the imported module). On the CPU,
`--threads` sets PyTorch's intra-op threads and ckpt-run's
`--cpu-threads` alike; ckpt-run's products on the CPU run OpenBLAS's
kernels, which the environment can pin (OPENBLAS_CORETYPE, shown in the
header). Peaks: ckpt-run's measured and simulated bytes; on
the GPU PyTorch's torch.cuda.max_memory_allocated.

usage: .venv/bin/python bench/vs-pytorch.py [--device cpu|cuda]
           [--threads N] [--repeat N] [--rounds N] [--opt-level N]
           [--plans none,manual]
           [MODEL...]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import torch

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "examples", "torch"))
from ckpt_torch import importer as ckpt_import_torch  # noqa: E402
sys.path.insert(0, os.path.join(root, "scripts"))
# PyTorch's step timed as the GPU bundle's check times it.
from gpu_bundle_run_torch import pytorch_step  # noqa: E402
import gpt2  # noqa: E402
from classifier import Classifier  # noqa: E402
import llama  # noqa: E402
import mixer  # noqa: E402
import mlp_stack  # noqa: E402
import unet  # noqa: E402


def torchvision_model(name):
    import torchvision
    return Classifier(torchvision.models.get_model(name, num_classes=10))


def tokens(batch, length, vocab):
    return (torch.randint(0, vocab, (batch, length)),
            torch.randint(0, vocab, (batch, length)))


def images(batch, size, classes=10):
    return (torch.randn(batch, 3, size, size),
            torch.randint(0, classes, (batch,)))


# name: (description, model builder taking `checkpointed`, inputs)
MODELS = {
    "mlp_stack": (
        "MLP stack, 12 blocks, B=8 L=512 D=512",
        lambda ckpt: mlp_stack.MlpStack(width=512, hidden=2048, blocks=12,
                                        checkpoint_every=1 if ckpt else 0),
        lambda: (torch.randn(8, 512, 512), torch.randn(8, 512, 512))),
    "gpt2": (
        "GPT-2 small, 12 layers, 4x64 tokens",
        lambda ckpt: gpt2.Gpt2(vocab=50257, context=64, layers=12, width=768,
                               heads=12, dropout=0.0, checkpoint_blocks=ckpt),
        lambda: tokens(4, 64, 50257)),
    "llama": (
        "Llama-style, 6 blocks, 2x64 tokens, D=192",
        lambda ckpt: llama.Llama(vocab=512, context=64, layers=6, width=192,
                                 heads=6, hidden=512, checkpoint_blocks=ckpt),
        lambda: tokens(2, 64, 512)),
    "mixer": (
        "MLP-Mixer, 4 layers, 4x49 tokens, D=128",
        lambda ckpt: mixer.Mixer(checkpoint_layers=ckpt),
        lambda: images(4, 28)),
    "unet": (
        "U-Net, widths 8/16/32, 4x3x64x64",
        lambda ckpt: unet.UNet(checkpoint_levels=ckpt),
        lambda: (torch.randn(4, 3, 64, 64), torch.randn(4, 3, 64, 64))),
    "resnet18": (
        "torchvision resnet18, 8x3x64x64",
        lambda ckpt: None if ckpt else torchvision_model("resnet18"),
        lambda: images(8, 64)),
    "regnet_x_400mf": (
        "torchvision regnet_x_400mf, 4x3x64x64",
        lambda ckpt: None if ckpt else torchvision_model("regnet_x_400mf"),
        lambda: images(4, 64)),
}


def ckpt_plan(options, directory, plan):
    """Plans the imported module, runs it once; (ckpt-run command, seconds
    planning and the first run took)."""
    bin_dir = os.path.join(options.build, "bin")
    step = os.path.join(directory, plan + ".mlir")
    run = [os.path.join(bin_dir, "ckpt-run"), step, "--device",
           options.device, "--inputs", os.path.join(directory, "args"),
           "--opt-level", str(options.opt_level)]
    if options.device == "cpu":
        run += ["--cpu-threads", str(options.threads)]
    start = time.perf_counter()
    subprocess.run([os.path.join(bin_dir, "ckpt-opt"),
                    os.path.join(directory, "model.mlir"),
                    f"--ckpt-pipeline=strategy={plan}", "-o", step],
                   check=True)
    subprocess.run(run + ["--repeat", "1", "--warmup", "0"], check=True,
                   capture_output=True)
    return run, time.perf_counter() - start


def ckpt_step(run, repeat):
    """(mean ms, measured peak, simulated peak) of one ckpt-run."""
    out = subprocess.run(run + ["--repeat", str(repeat)], check=True,
                         capture_output=True, text=True).stdout
    peak = re.search(r"^peak bytes: measured (\d+) .*simulated (\d+)", out,
                     re.M)
    ms = re.search(r"^step time: ([0-9.]+) ms mean", out, re.M)
    return float(ms.group(1)), int(peak.group(1)), int(peak.group(2))


def mib(b):
    return "-" if b is None else f"{b / 2**20:.1f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*",
                        help="models to run (default: all): "
                        + ", ".join(MODELS))
    parser.add_argument("--build", default=os.path.join(root, "build"))
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--threads", type=int, default=os.cpu_count(),
                        help="CPU threads for both (default: every core)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="timed steps per round (default 3)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds of ckpt-run then PyTorch; each side's "
                        "best round mean is reported (default 3)")
    parser.add_argument("--opt-level", type=int, default=1,
                        help="ckpt-run's --opt-level (default 1, as ckpt-run)")
    parser.add_argument("--plans", default="none",
                        help="comma-separated: none, manual (default none)")
    options = parser.parse_args()
    unknown = [m for m in options.models if m not in MODELS]
    if unknown:
        parser.error(f"unknown model {unknown[0]} (known: "
                     f"{', '.join(MODELS)})")
    if options.device == "cuda" and not torch.cuda.is_available():
        sys.exit("vs-pytorch: this torch sees no CUDA GPU")
    torch.set_num_threads(options.threads)
    where = (torch.cuda.get_device_name() if options.device == "cuda"
             else f"CPU, {options.threads} threads")
    coretype = os.environ.get("OPENBLAS_CORETYPE")
    kernels = (f"OPENBLAS_CORETYPE={coretype}" if coretype
               else "OpenBLAS's own choice")
    print(f"{where}, torch {torch.__version__}, ckpt-run --opt-level "
          f"{options.opt_level}, CPU products with {kernels}")
    print("| model | plan | ckpt-run ms | PyTorch ms | ratio | first s "
          "| measured MiB | simulated MiB | PyTorch MiB |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in options.models or MODELS:
        title, make, inputs_of = MODELS[name]
        torch.manual_seed(1)
        inputs = inputs_of()
        for plan in options.plans.split(","):
            checkpointed = plan == "manual"
            torch.manual_seed(0)
            model = make(checkpointed)
            if model is None:
                continue
            with tempfile.TemporaryDirectory() as directory:
                imported = ckpt_import_torch.import_module(model, inputs,
                                                           "model")
                with open(os.path.join(directory, "model.mlir"), "w") as f:
                    f.write(imported.text)
                imported.write_weights(os.path.join(directory, "args"),
                                       with_inputs=True)
                run, first = ckpt_plan(options, directory, plan)
                model.to(options.device)
                ms = theirs = float("inf")
                for _ in range(options.rounds):
                    mean, peak, simulated = ckpt_step(run, options.repeat)
                    ms = min(ms, mean)
                    _, mean, their_peak = pytorch_step(
                        model, [x.to(options.device) for x in inputs],
                        options.repeat, options.device)
                    theirs = min(theirs, mean)
            print(f"| {title} | {plan} | {ms:.1f} | {theirs:.1f} "
                  f"| {ms / theirs:.2f}x | {first:.1f} | {mib(peak)} "
                  f"| {mib(simulated)} | {mib(their_peak)} |", flush=True)


if __name__ == "__main__":
    main()
