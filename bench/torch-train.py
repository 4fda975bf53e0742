#!/usr/bin/env python3
"""PyTorch's training step under ckpt_torch's plans against what a user
would otherwise pick, as PyTorch itself measures them: one Markdown table.

For each model (transformers' Llama and GPT-2, dropout 0.1, and
torchvision's ResNet-50, at sizes whose steps take 0.1 to 1 s on 2 CPU
threads), one row per configuration:

- eager without checkpointing, and with per-block checkpointing (the
  library's `gradient_checkpointing_enable()`; for ResNet-50 each
  bottleneck block wrapped by `apply_activation_checkpointing`);
- `ckpt_torch.plan` at budgets between those two peaks (halfway, and at
  per-block's peak), run by ckpt_torch's executor;
- with `--compile`: `torch.compile` with `activation_memory_budget` 1.0,
  0.5 and 0.1, each followed by `ckpt_torch.compile` at its measured peak.

Columns: the peak PyTorch's allocator reaches in the step above what it
held before (parameters and inputs; the profiler's allocation events), in
MiB and against the budget the plan was given; the step time (forward and
backward, the configurations taking turns for `--rounds` rounds, each
configuration's best), also against eager without checkpointing; the time
`plan()` took, or the first compiled step (with `ckpt_torch.compile`'s
planning and tries);
and the gradients against the eager step without checkpointing (same
seed each step): bit-identical, or their relative L2 difference, all
gradients together. Compiled rows compare against the compiled module
without a plan, whose dropout draws its own numbers.

usage: .venv/bin/python bench/torch-train.py [--models llama,gpt2,resnet50]
           [--rounds N] [--threads N] [--compile] [--layers N]
"""

import argparse
import copy
import os
import sys
import time

import torch

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "examples", "torch"))
import ckpt_torch  # noqa: E402
from ckpt_torch import memory  # noqa: E402
import transformers_models  # noqa: E402


def build(name, layers=4):
    """The model (seeded; `layers` blocks of a transformer) and its inputs,
    and how to checkpoint its blocks."""
    torch.manual_seed(0)
    if name in ("llama", "gpt2"):
        model = transformers_models.causal_lm(
            name, layers=layers, width=256, heads=4, vocab=1024, context=256,
            attention="sdpa", dropout=0.1 if name == "gpt2" else 0.0)
        inputs = (torch.randint(0, 1024, (4, 256)),)

        def per_block(m):
            m.model.gradient_checkpointing_enable()
            return m
        return model, inputs, per_block
    if name == "resnet50":
        import torchvision
        from torch.distributed.algorithms._checkpoint.checkpoint_wrapper \
            import apply_activation_checkpointing
        model = __import__("torchvision-zoo").build("resnet50")
        inputs = (torch.randn(8, 3, 96, 96), torch.randint(0, 10, (8,)))

        def per_block(m):
            apply_activation_checkpointing(
                m, check_fn=lambda module: isinstance(
                    module, torchvision.models.resnet.Bottleneck))
            return m
        return model, inputs, per_block
    raise SystemExit(f"unknown model '{name}'")


class Config:
    """One row: a module to train, and what it was planned for."""

    def __init__(self, label, module, seconds=None, budget=None,
                 reference=None):
        self.label = label
        self.module = module
        self.seconds = seconds  # plan() or the first compiled step
        self.budget = budget
        self.reference = reference  # the label to compare gradients with
        self.times = []
        self.peak = None
        self.grads = None


def step(module, inputs, seed=1):
    torch.manual_seed(seed)
    module.zero_grad(set_to_none=True)
    module(*inputs).backward()


def measure(config, inputs):
    """The step's peak above what the allocator held before it (the
    gradients freed, as a training loop frees them), and its gradients."""
    step(config.module, inputs)  # warm-up (and compilation)
    config.module.zero_grad(set_to_none=True)
    config.peak = memory.allocator_peak(lambda: step(config.module, inputs))
    config.grads = [p.grad.detach().clone()
                    for p in config.module.parameters()]


def difference(grads, reference):
    if all(torch.equal(a, b) for a, b in zip(grads, reference)):
        return "bit-identical"
    num = sum(float((a.double() - b.double()).square().sum())
              for a, b in zip(grads, reference))
    den = sum(float(b.double().square().sum()) for b in reference)
    return f"{(num / den) ** 0.5:.1e}"


def planned(label, model, inputs, budget, before):
    start = time.perf_counter()
    module = ckpt_torch.plan(copy.deepcopy(model), inputs,
                             budget=budget + before)
    return Config(label, module, time.perf_counter() - start, budget,
                  "eager, no checkpointing")


def compiled_rows(model, inputs, before):
    """torch.compile at each activation_memory_budget, and ckpt_torch.compile
    at each one's measured peak."""
    import torch._functorch.config as functorch_config
    from torch._inductor.compile_fx import compile_fx

    def inductor_within(fraction):
        # A backend of its own per budget: torch.compile's caches keep
        # each compilation apart, and each partitions under its budget.
        def backend(graph, example_inputs):
            with functorch_config.patch(activation_memory_budget=fraction):
                return compile_fx(graph, example_inputs)
        return backend

    rows = []
    reference = "torch.compile, activation_memory_budget 1.0"
    for fraction in (1.0, 0.5, 0.1):
        compiled = torch.compile(copy.deepcopy(model),
                                 backend=inductor_within(fraction))
        start = time.perf_counter()
        step(compiled, inputs)
        seconds = time.perf_counter() - start
        theirs = Config(f"torch.compile, activation_memory_budget {fraction}",
                        compiled, seconds,
                        reference=reference if fraction != 1.0 else None)
        measure(theirs, inputs)
        rows.append(theirs)
        start = time.perf_counter()
        try:
            ours = ckpt_torch.compile(copy.deepcopy(model), inputs,
                                      budget=theirs.peak + before)
        except ckpt_torch.PlanError as error:
            print(f"ckpt_torch.compile at {theirs.label}'s peak: {error}",
                  file=sys.stderr)
            continue
        step(ours, inputs)
        ours = Config(f"ckpt_torch.compile at budget {fraction}'s peak", ours,
                      time.perf_counter() - start, theirs.peak, reference)
        measure(ours, inputs)
        rows.append(ours)
    return rows


def run_model(name, options):
    model, inputs, per_block = build(name, options.layers)
    before = memory.held_before(model, inputs)
    configs = [Config("eager, no checkpointing", copy.deepcopy(model)),
               Config("eager, per-block checkpointing",
                      per_block(copy.deepcopy(model)),
                      reference="eager, no checkpointing")]
    for config in configs:
        measure(config, inputs)
    none, block = configs[0].peak, configs[1].peak
    for label, budget in (("ckpt_torch.plan, halfway", (none + block) // 2),
                          ("ckpt_torch.plan, per-block's peak", block)):
        try:
            config = planned(label, model, inputs, budget, before)
        except ckpt_torch.PlanError as error:
            print(f"{name}: {label}: {error}", file=sys.stderr)
            continue
        measure(config, inputs)
        configs.append(config)
    if options.compile:
        configs += compiled_rows(model, inputs, before)
    for _ in range(options.rounds):
        for config in configs:
            start = time.perf_counter()
            step(config.module, inputs)
            config.times.append(time.perf_counter() - start)
    by_label = {c.label: c for c in configs}
    unplanned = min(configs[0].times)
    print(f"\n**{name}** ({sum(p.numel() for p in model.parameters())} "
          f"parameters, {before / 2**20:.1f} MiB held before the step)\n")
    print("| configuration | peak MiB | / budget | step ms | / no ckpt | "
          "plan or compile s | gradients |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for config in configs:
        best = min(config.times)
        budget = f"{config.peak / config.budget:.3f}" if config.budget \
            else "-"
        seconds = f"{config.seconds:.2f}" if config.seconds else "-"
        grads = difference(config.grads, by_label[config.reference].grads) \
            if config.reference else "-"
        print(f"| {config.label} | {config.peak / 2**20:.1f} | {budget} | "
              f"{best * 1000:.1f} | {best / unplanned:.3f} | {seconds} | "
              f"{grads} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="llama,gpt2,resnet50")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--compile", action="store_true")
    parser.add_argument("--layers", type=int, default=4,
                        help="blocks of the transformers models")
    options = parser.parse_args()
    torch.set_num_threads(options.threads)
    if options.compile:
        # Each configuration compiles anew, none from another's cache, and
        # every one keeps its code (all compile the same forward).
        import torch._dynamo.config as dynamo_config
        import torch._functorch.config as functorch_config
        import torch._inductor.config as inductor_config
        inductor_config.fx_graph_cache = False
        functorch_config.enable_autograd_cache = False
        dynamo_config.recompile_limit = 64
        dynamo_config.accumulated_recompile_limit = 1024
    print(f"torch {torch.__version__}, {options.threads} threads, "
          f"{options.rounds} rounds, {options.layers}-layer transformers")
    for name in options.models.split(","):
        run_model(name, options)


if __name__ == "__main__":
    main()
