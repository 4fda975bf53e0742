#!/usr/bin/env python3
"""ckpt-run on the GPU against PyTorch on the same GPU, same models.

For each model of examples/torch (the article's 12-block MLP stack and a
GPT-2-style decoder, dropout off so both compute the same function): PyTorch
eager with no checkpointing and with torch.utils.checkpoint per block
(peak = torch.cuda.max_memory_allocated, step = forward + backward, CUDA
events), and the same module imported by ckpt-import-torch, planned with
none, manual (the same per-block checkpoints) and dp (smallest peak), run by
`ckpt-run --device=cuda` (peak = device bytes of inputs, parameters and
every buffer the step allocates, which is what max_memory_allocated counts;
step time from CUDA events). Prints one Markdown table.

usage: bench/gpu-vs-pytorch.py [--build DIR] [--repeat N]
(a Python whose torch sees a CUDA GPU)
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import torch

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "tools", "ckpt-import-torch"))
sys.path.insert(0, os.path.join(root, "examples", "torch"))
import ckpt_import_torch  # noqa: E402
import gpt2  # noqa: E402
import mlp_stack  # noqa: E402

MODELS = [
    ("MLP stack, 12 blocks, B=8 L=512 D=512",
     lambda ckpt: mlp_stack.MlpStack(width=512, hidden=2048, blocks=12,
                                     checkpoint_every=1 if ckpt else 0),
     lambda: (torch.randn(8, 512, 512), torch.randn(8, 512, 512))),
    ("GPT-2-style, 6 layers, B=4 T=256 D=768",
     lambda ckpt: gpt2.Gpt2(vocab=8192, context=256, layers=6, width=768,
                            heads=12, dropout=0.0, checkpoint_blocks=ckpt),
     lambda: (torch.randint(0, 8192, (4, 256)),
              torch.randint(0, 8192, (4, 256)))),
]


def pytorch_step(make, inputs, checkpointed, repeat):
    torch.manual_seed(0)
    model = make(checkpointed).cuda()
    args = [x.cuda() for x in inputs]
    times = []
    for step in range(repeat + 1):  # the first is a warm-up
        model.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        model(*args).backward()
        stop.record()
        torch.cuda.synchronize()
        if step:
            times.append(start.elapsed_time(stop))
    peak = torch.cuda.max_memory_allocated()
    del model, args
    torch.cuda.empty_cache()
    return peak, sum(times) / len(times)


def ckpt_step(build, directory, plan, repeat):
    step = os.path.join(directory, plan.replace(" ", "_") + ".mlir")
    subprocess.run([os.path.join(build, "bin", "ckpt-opt"),
                    os.path.join(directory, "model.mlir"),
                    f"--ckpt-pipeline={plan}", "-o", step], check=True)
    run = subprocess.run([os.path.join(build, "bin", "ckpt-run"), step,
                          "--device=cuda", "--inputs",
                          os.path.join(directory, "args"),
                          "--repeat", str(repeat)],
                         check=True, capture_output=True, text=True).stdout
    peak = re.search(r"^peak bytes: measured (\d+) .*simulated (\d+)", run,
                     re.M)
    ms = re.search(r"^step time: ([0-9.]+) ms mean", run, re.M)
    return int(peak.group(1)), int(peak.group(2)), float(ms.group(1))


def mib(b):
    return f"{b / 2**20:.1f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(root, "build"))
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("gpu-vs-pytorch: this torch sees no CUDA GPU")
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print("| model | plan | ckpt-run peak MiB | simulated MiB | ckpt-run ms "
          "| PyTorch peak MiB | PyTorch ms |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for title, make, inputs_of in MODELS:
        torch.manual_seed(1)
        inputs = inputs_of()
        with tempfile.TemporaryDirectory() as directory:
            torch.manual_seed(0)
            imported = ckpt_import_torch.import_module(make(True), inputs,
                                                       "model")
            with open(os.path.join(directory, "model.mlir"), "w") as f:
                f.write(imported.text)
            imported.write_weights(os.path.join(directory, "args"),
                                   with_inputs=True)
            for plan, pytorch in (("strategy=none", False),
                                  ("strategy=manual", True),
                                  ("strategy=dp", None)):
                peak, simulated, ms = ckpt_step(options.build, directory,
                                                plan, options.repeat)
                theirs = ("-", "-") if pytorch is None else (
                    lambda p, t: (mib(p), f"{t:.1f}"))(
                        *pytorch_step(make, inputs, pytorch, options.repeat))
                print(f"| {title} | {plan} | {mib(peak)} | {mib(simulated)} "
                      f"| {ms:.1f} | {theirs[0]} | {theirs[1]} |")


if __name__ == "__main__":
    main()
