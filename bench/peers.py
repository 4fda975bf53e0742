#!/usr/bin/env python3
"""The anchors side by side, in one run: on the same models and byte
budgets, what PyTorch holds and recomputes with no rematerialisation,
with plain per-block checkpointing, with torch.compile's budget partitioner
(`activation_memory_budget`, solvers dp and ilp) and with ckpt-opt's plans
(dp and tensor) applied through selective checkpointing (python/ckpt_torch).

Per model (test/Torch/Inputs/sac_checks.py builds them; "gpt2, dropout
0.1" runs with dropout on): ckpt-opt plans at a budget halfway between its
unplanned peak and dp's smallest peak; the partitioner gets the same
target, converted to its fraction as it normalises: (saved bytes - all
primals) / (its unbudgeted min-cut's saved bytes - all primals), with the
saved bytes ours keep (and the primals its plan saves) as the target.

Columns:
- saved activation bytes: what PyTorch holds after forward, measured by
  its CPU allocator (profiler) less the loss and the random state each
  recomputed region keeps, for the eager rows; the forward graph's saved
  activations for torch.compile's (its partitioner's own accounting); for
  ours also ckpt-opt's own figure (the plan's kept activations);
- recompute % of a forward: docs/CostModel.md's FLOP counts
  (bench/torch_min_cut.py) of the forward op calls each plan runs again,
  over a forward's (eager: every call of a recomputed region that the plan
  does not save, an upper bound where PyTorch stops a recompute early);
- planning s: the partition call; ckpt-opt's run (import apart: its own
  column);
- gradients: bit-identical to the same runtime without rematerialisation
  (eager to eager, the partitioned graphs to the unpartitioned ones), with
  the same seed.

usage: .venv/bin/python bench/peers.py [MODEL...]   (ckpt-opt from PATH or
build/bin)
"""

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
import time

import torch
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (
    CheckpointImpl, apply_activation_checkpointing, checkpoint_wrapper)

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for directory in ("test/Torch/Inputs", "bench"):
    sys.path.insert(0, os.path.join(root, directory))
from ckpt_torch import importer as ckpt_import_torch  # noqa: E402
import ckpt_torch  # noqa: E402
import sac_checks  # noqa: E402
import torch_min_cut  # noqa: E402

MODELS = {"mlp": ("MLP stack", 0.0), "gpt2": ("GPT-2", 0.0),
          "gpt2-dropout": ("GPT-2, dropout 0.1", 0.1),
          "llama": ("Llama", 0.0), "resnet18": ("ResNet-18", 0.0),
          "hf-gpt2": ("transformers GPT-2", 0.0)}


def ckpt_opt():
    return os.environ.get("CKPT_OPT") or ckpt_torch.planning._ckpt_opt(None)


def same(a, b):
    """"bit-identical", or the largest difference relative to the largest
    element, over the gradients."""
    worst = max(((x - y).abs().max() / y.abs().max().clamp_min(1e-30)).item()
                for x, y in zip(a, b))
    return "bit-identical" if worst == 0 else f"no ({worst:.1e} relative)"


def call_flops(model, inputs):
    """The FLOPs of each op call PyTorch makes below autograd in forward,
    in order (the calls ckpt_torch's regions list), by
    bench/torch_min_cut.py's count of one graph node per call."""
    from torch.fx.passes.shape_prop import _extract_tensor_metadata
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_leaves, tree_map
    ignored = torch.utils.checkpoint.SAC_IGNORED_OPS
    flops = []

    class Counting(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            result = func(*args, **(kwargs or {}))
            if func in ignored:
                return result
            graph = torch.fx.Graph()

            def node_of(value):
                if not isinstance(value, torch.Tensor):
                    return value
                node = graph.placeholder(f"input{len(graph.nodes)}")
                node.meta["tensor_meta"] = _extract_tensor_metadata(value)
                return node
            call = graph.call_function(func, tuple(tree_map(node_of, args)),
                                       {})
            first = tree_leaves(result)[0] if tree_leaves(result) else None
            if isinstance(result, torch.Tensor):
                call.meta["tensor_meta"] = _extract_tensor_metadata(result)
            elif isinstance(first, torch.Tensor) and func._schema.returns \
                    and len(tree_leaves(result)) == 1:
                call.meta["tensor_meta"] = _extract_tensor_metadata(first)
            flops.append((str(func), torch_min_cut.node_flops(call)))
            return result

    torch.manual_seed(1)
    with torch.enable_grad(), Counting():
        model(*inputs)
    return flops


def region_recompute(plan, flops, recompute_all):
    """Recompute % of a forward for the plan's regions: the calls each
    recomputing region runs again (all of them with `recompute_all`)."""
    if flops is None:
        return None
    forward = sum(f for _, f in flops) or 1
    # The regions' calls, in order, are a subsequence of the forward's.
    position, total = 0, 0
    for region in plan["regions"]:
        ops = region["ops"]
        while position < len(flops) and flops[position][0] != ops[0]["op"]:
            position += 1
        window = flops[position:position + len(ops)]
        if [op for op, _ in window] != [o["op"] for o in ops]:
            return None
        if region["recomputes"]:
            total += sum(f for (_, f), o in zip(window, ops)
                         if recompute_all or o["policy"] != "MUST_SAVE")
        position += len(ops)
    return 100.0 * total / forward


def ckpt_report(step, pipeline, directory, label):
    """ckpt-opt's report and exported plan for `pipeline`, and its time."""
    plan_path = os.path.join(directory, f"{label}.json")
    start = time.perf_counter()
    run = subprocess.run(
        [ckpt_opt(), step, f"--ckpt-pipeline={pipeline}",
         f"--ckpt-export-torch-plan=output={plan_path} executor=regions",
         "--ckpt-report=format=json", "-o", os.devnull],
        capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if run.returncode != 0:
        sys.exit(f"ckpt-opt --ckpt-pipeline={pipeline} failed:\n{run.stderr}")
    with open(plan_path) as f:
        plan = json.load(f)
    return json.loads(run.stdout)[0], plan, seconds


def compiled_step(model, inputs, budget=None, solver="dp"):
    """torch.compile (inductor) with its min-cut partitioner at `budget`
    (None: default_partition, no rematerialisation; then also the
    unbudgeted min-cut's saves, which the budget is a fraction of, from a
    copy of each joint graph): saved activation bytes, recompute and
    forward FLOPs, the partitions' seconds and the gradients."""
    import inspect
    import torch._functorch.config as functorch_config
    import torch._inductor.compile_fx as compile_fx
    from functorch.compile import default_partition
    original = compile_fx.min_cut_rematerialization_partition
    found = {"seconds": 0.0, "saved": 0, "recompute": 0, "forward": 0,
             "random": 0, "primals": 0, "unbudgeted": 0,
             "unbudgeted_primals": 0}

    def partition(joint, joint_inputs, **options):
        start = time.perf_counter()
        if budget is None:
            # The partitioner's normalisation, as it computes it: the sizes
            # of all primals, and of what the unbudgeted min-cut saves.
            from torch._functorch.partitioners import _size_of
            found["primals"] += sum(
                _size_of(n) for n in joint.graph.nodes
                if n.op == "placeholder" and "tangents" not in n.target)
            unbudgeted, _ = original(copy.deepcopy(joint), joint_inputs,
                                     **options)
            output = next(n for n in unbudgeted.graph.nodes
                          if n.op == "output")
            for node in output.args[0][options["num_fwd_outputs"]:]:
                if isinstance(node, torch.fx.Node):
                    found["unbudgeted"] += _size_of(node)
                    if node.op == "placeholder":
                        found["unbudgeted_primals"] += _size_of(node)
            accepted = inspect.signature(default_partition).parameters
            fw, bw = default_partition(
                joint, joint_inputs,
                **{k: v for k, v in options.items() if k in accepted})
        else:
            fw, bw = original(joint, joint_inputs, **options)
        found["seconds"] += time.perf_counter() - start
        found["saved"] += torch_min_cut._saved(fw, joint_inputs[0])["act"]
        names = {n.name for n in fw.graph.nodes if n.op == "call_function"}
        found["recompute"] += sum(torch_min_cut.node_flops(n)
                                  for n in bw.graph.nodes
                                  if n.op == "call_function"
                                  and n.name in names)
        found["random"] += sum(
            1 for n in bw.graph.nodes
            if n.op == "call_function" and n.name in names and any(
                word in str(n.target) for word in RANDOM_OPS))
        found["forward"] += sum(torch_min_cut.node_flops(n)
                                for n in fw.graph.nodes)
        return fw, bw

    settings = (functorch_config.activation_memory_budget,
                functorch_config.activation_memory_budget_solver)
    functorch_config.activation_memory_budget = 1.0 if budget is None \
        else budget
    functorch_config.activation_memory_budget_solver = solver
    compile_fx.min_cut_rematerialization_partition = partition
    # Every compile partitions afresh: no cached graphs.
    torch._inductor.config.fx_graph_cache = False
    functorch_config.enable_autograd_cache = False
    torch._dynamo.reset()
    try:
        compiled = torch.compile(model)
        model.zero_grad(set_to_none=True)
        torch.manual_seed(1)
        compiled(*inputs).backward()
    finally:
        compile_fx.min_cut_rematerialization_partition = original
        (functorch_config.activation_memory_budget,
         functorch_config.activation_memory_budget_solver) = settings
    found["gradients"] = [p.grad for p in model.parameters()]
    return found


def rows_for(name):
    title, dropout = MODELS[name]
    model, inputs = sac_checks.build(name.replace("-dropout", ""), dropout, 2)
    rows = []

    def row(plan, saved, recompute, seconds, match, note=""):
        rows.append((title, plan, saved, recompute, seconds, match, note))

    _, held, reference = sac_checks.train_step(copy.deepcopy(model),
                                               inputs)
    row("no rematerialisation (eager)", held, 0.0, None, "reference")
    flops = call_flops(copy.deepcopy(model), inputs)

    unpartitioned = compiled_step(copy.deepcopy(model), inputs)
    state = torch.get_rng_state().nbytes
    with tempfile.TemporaryDirectory() as directory:
        start = time.perf_counter()
        imported = ckpt_import_torch.import_module(
            copy.deepcopy(model), inputs, "model", record_calls=True)
        import_seconds = time.perf_counter() - start
        step = os.path.join(directory, "step.mlir")
        with open(step, "w") as f:
            f.write(imported.text)
        none, plan, _ = ckpt_report(step, "strategy=none", directory, "none")

        # Plain checkpointing of the regions ckpt-opt's plans use.
        blocks = copy.deepcopy(model)
        paths = {r["module"] for r in plan["regions"]}
        targets = {m for path, m in blocks.named_modules() if path in paths}
        apply_activation_checkpointing(
            blocks, checkpoint_wrapper_fn=lambda m: checkpoint_wrapper(
                m, checkpoint_impl=CheckpointImpl.NO_REENTRANT,
                preserve_rng_state=True),
            check_fn=lambda m: m in targets)
        _, blocks_held, gradients = sac_checks.train_step(blocks, inputs)
        row(f"per-block checkpoint ({len(paths)} modules)",
            blocks_held - state * sum(r["recomputes"] for r in plan["regions"]),
            region_recompute(plan, flops, True), None,
            same(reference, gradients))

        smallest, _, _ = ckpt_report(step, "strategy=dp", directory, "min")
        budgets = ((none["peak"]["bytes"] + smallest["peak"]["bytes"]) // 2,
                   smallest["peak"]["bytes"])
        for budget in budgets:
            for strategy in ("dp", "tensor"):
                report, plan, seconds = ckpt_report(
                    step, f"strategy={strategy} budget={budget}", directory,
                    strategy)
                applied = ckpt_torch.apply_plan(copy.deepcopy(model), plan)
                _, planned_held, gradients = sac_checks.train_step(
                    applied, inputs)
                regions = sum(r["recomputes"] for r in plan["regions"])
                kept = report["saved_totals"]["activations"]["bytes"]
                row(f"ckpt-opt {strategy}, budget {budget} B, through SAC",
                    planned_held - regions * state,
                    region_recompute(plan, flops, False), seconds,
                    same(reference, gradients),
                    f"ckpt-opt's own: {kept} B kept, "
                    f"{report['plan']['recompute_percent_of_forward']:.1f} "
                    f"%; import {import_seconds:.1f} s")
                if strategy == "dp":
                    target = kept
            # The partitioner's fraction: (saves - all primals) / (its
            # unbudgeted saves - all primals), its saves counting the
            # primals it saves (weights): ours are dp's kept activations
            # and those primals.
            primals = unpartitioned["primals"]
            fraction = min(1.0, max(0.0, (
                target + unpartitioned["unbudgeted_primals"] - primals) /
                max(1, unpartitioned["unbudgeted"] - primals)))
            for solver in ("dp", "ilp"):
                found = compiled_step(copy.deepcopy(model), inputs, fraction,
                                      solver)
                row(f"torch.compile partitioner, {solver}, budget "
                    f"{fraction:.3f} (dp's {target} B)", found["saved"],
                    100.0 * found["recompute"] / max(1, found["forward"]),
                    found["seconds"],
                    same(unpartitioned["gradients"], found["gradients"]))
    if dropout:
        # Budgets low enough that the partitioner recomputes the random
        # ops too: does it replay their randomness?
        for fraction in (0.1, 0.0):
            found = compiled_step(copy.deepcopy(model), inputs, fraction)
            row(f"torch.compile partitioner, dp, budget {fraction:.3f}",
                found["saved"],
                100.0 * found["recompute"] / max(1, found["forward"]),
                found["seconds"],
                same(unpartitioned["gradients"], found["gradients"]),
                f"recomputes {found['random']} random op(s)")
    if name in JAX_MODELS:
        rows.extend(jax_rows(title, JAX_MODELS[name], dropout))
    return rows


# Names of the ops that draw random numbers, in a partitioned graph.
RANDOM_OPS = ("rand", "bernoulli", "dropout", "philox", "seed")

# The models with a JAX version (bench/jax_models.py).
JAX_MODELS = {"mlp": "mlp_stack", "gpt2": "gpt2", "gpt2-dropout": "gpt2"}


def jax_rows(title, builder, dropout):
    """JAX's jax.checkpoint policies, each block under one, against the
    same JAX step without rematerialisation."""
    import jax
    import numpy
    import jax_models
    options = {"dropout": dropout} if builder == "gpt2" else {}
    params, inputs, loss = getattr(jax_models, builder)(
        jax.random.PRNGKey(0), **options)
    base = jax_models.measure(params, inputs, loss, None)
    rows = [(title, "JAX, no rematerialisation (jit, CPU)", base["saved"],
             0.0, base["seconds"], "reference",
             f"XLA temporaries {base['temp']} B")]
    for policy in jax_models.POLICIES:
        found = jax_models.measure(params, inputs, loss, policy)
        worst = max(float(numpy.max(numpy.abs(a - b)) /
                          max(float(numpy.max(numpy.abs(b))), 1e-30))
                    for a, b in zip(found["gradients"], base["gradients"]))
        rows.append((
            title, f"JAX, jax.checkpoint per block, {policy}",
            found["saved"],
            100.0 * (found["flops"] - base["flops"]) / base["forward_flops"],
            found["seconds"],
            "bit-identical" if worst == 0 else f"no ({worst:.1e} relative)",
            f"XLA temporaries {found['temp']} B"))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=list(MODELS))
    options = parser.parse_args()
    print("| model | plan | saved activation B | recompute % of fwd | "
          "planning s | gradients match | notes |")
    print("| --- | --- | ---: | ---: | ---: | --- | --- |")
    for name in options.models:
        for title, plan, saved, recompute, seconds, match, note in \
                rows_for(name):
            print(f"| {title} | {plan} | {saved} | "
                  f"{'n/a' if recompute is None else f'{recompute:.1f}'} | "
                  f"{'-' if seconds is None else f'{seconds:.2f}'} | "
                  f"{match} | "
                  f"{note} |", flush=True)


if __name__ == "__main__":
    main()
