"""ckpt-opt's plans trained by PyTorch itself as selective activation
checkpointing (ckpt_torch's regions executor), checked against PyTorch
without them.

  sac_checks.py MODEL [--strategy S] [--budget B] [--dropout P]
               [--autocast bf16|f16]
      plans MODEL's step with ckpt-opt (under CPU autocast when given),
      applies the plan with ckpt_torch.plan, runs one training step with
      and without it under the same seed (and autocast) and checks that
      the loss and every gradient are bit-identical, and that the
      activation bytes PyTorch holds after
      forward (its CPU allocator's count, through the profiler) are the
      plan's prediction: measured less predicted is the same with and
      without the plan, but for the random state each region call keeps
      (torch.get_rng_state(), preserve_rng_state). Exits 1 on a failed
      check.
  sac_checks.py MODEL --changed
      applies MODEL's plan to the model with its first block changed and
      prints the error that names the first op call that differs.
  sac_checks.py MODEL --ddp
      trains with the plan in two processes (DistributedDataParallel,
      gloo, half the batch each) and checks the averaged gradients against
      one process on the whole batch, within 1e-6 relative, and bit for bit
      against the same two processes without the plan.

MODEL: mlp (the article's MLP stack), gpt2, llama (examples/torch),
resnet18 (torchvision), hf-gpt2 (transformers' GPT-2), or zoo:NAME for
any model of bench/zoo-checks.py (a torchvision classifier or family,
or a transformers architecture; batch 2 as that script builds them).
"""

import argparse
import copy
import os
import sys
import tempfile

import torch
import torch.nn.functional as F

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                    "..")
for directory in ("examples/torch", "bench"):
    sys.path.insert(0, os.path.join(root, directory))
from ckpt_torch import importer as ckpt_import_torch  # noqa: E402
import ckpt_torch  # noqa: E402


def build(name, dropout, batch):
    """The model (seeded) and its example inputs for `batch` sequences or
    images."""
    torch.manual_seed(0)
    tokens = lambda vocab: (torch.randint(0, vocab, (batch, 16)),  # noqa
                            torch.randint(0, vocab, (batch, 16)))
    if name == "mlp":
        import mlp_stack
        return (mlp_stack.MlpStack(width=32, hidden=128, blocks=4),
                (torch.randn(batch, 16, 32), torch.randn(batch, 16, 32)))
    if name == "gpt2":
        import gpt2
        return (gpt2.Gpt2(vocab=64, context=16, layers=3, width=32, heads=2,
                          dropout=dropout), tokens(64))
    if name == "llama":
        import llama
        return (llama.Llama(vocab=64, context=16, layers=3, width=32, heads=2,
                            hidden=64), tokens(64))
    if name == "resnet18":
        zoo = __import__("torchvision-zoo")
        return (zoo.build("resnet18"),
                (torch.randn(batch, 3, 32, 32), torch.randint(0, 10, (batch,))))
    if name.startswith("zoo:"):
        # bench/zoo-checks.py's models, in f32 (dropout and stochastic
        # depth off there; PyTorch's own random numbers would do here).
        checks = __import__("zoo-checks")
        return checks.build(name[len("zoo:"):], torch.float32)
    if name == "hf-gpt2":
        import transformers_models
        return (transformers_models.gpt2(layers=3, width=32, heads=2, vocab=64,
                                         context=16, dropout=dropout),
                tokens(64)[:1])
    raise SystemExit(f"unknown model '{name}'")


def held_after_forward(model, inputs, autocast=None):
    """The loss, and the bytes PyTorch's CPU allocator holds after forward
    (under CPU autocast to `autocast` when given, which frees its cached
    16-bit weight copies as it ends) beyond what it held before (the
    profiler's count of every allocation and free), the loss aside."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as p:
        with ckpt_import_torch.autocast_context(autocast):
            loss = model(*inputs)
    held = sum(event.self_cpu_memory_usage for event in p.events())
    return loss, held - loss.untyped_storage().nbytes()


def train_step(model, inputs, autocast=None):
    torch.manual_seed(1)
    model.zero_grad(set_to_none=True)
    loss, held = held_after_forward(model, inputs, autocast)
    loss.backward()
    return loss.detach(), held, [p.grad for p in model.parameters()]


def measure(name, dropout=0.0, strategy="dp", budget=None, autocast=None):
    """One training step with and without the plan: the plan, whether the
    loss and gradients are bit-identical, and the held bytes measured and
    predicted (bench/sac-zoo.py prints them as a table)."""
    model, inputs = build(name, dropout, 2)
    reference = copy.deepcopy(model)
    planned = ckpt_torch.plan(copy.deepcopy(model), inputs, budget=budget,
                              strategy=strategy, executor="regions",
                              autocast=autocast)
    plan = ckpt_torch.plan_of(planned)
    loss, held, gradients = train_step(reference, inputs, autocast)
    planned_loss, planned_held, planned_gradients = train_step(
        planned, inputs, autocast)
    predicted = plan["held_bytes"]
    state = torch.get_rng_state().nbytes * sum(
        r["recomputes"] for r in plan["regions"])
    return {
        "plan": plan, "gradients": len(gradients),
        "same": torch.equal(loss, planned_loss) and all(
            torch.equal(a, b) for a, b in zip(gradients, planned_gradients)),
        "held": held, "planned_held": planned_held, "state": state,
        "unplanned_delta": held - predicted["without_plan"],
        "planned_delta": planned_held - predicted["with_plan"] - state,
        "saved_calls": sum(o["policy"] == "MUST_SAVE"
                           for r in plan["regions"] for o in r["ops"]),
        "not_as_planned": (len(plan["not_saved_as_planned"]),
                           sum(v["bytes"]
                               for v in plan["not_saved_as_planned"]))}


def check(options):
    found = measure(options.model, options.dropout, options.strategy,
                    options.budget,
                    ckpt_import_torch._AUTOCAST_DTYPES.get(options.autocast))
    plan, predicted = found["plan"], found["plan"]["held_bytes"]
    print(f"{options.model}: plan {plan.get('plan')}, {len(plan['regions'])} "
          f"regions, {found['saved_calls']} op calls saved")
    print(f"loss and {found['gradients']} gradients: "
          f"{'bit-identical' if found['same'] else 'DIFFERENT'}")
    print(f"held after forward, no plan: {found['held']} B measured, "
          f"{predicted['without_plan']} B predicted")
    print(f"held after forward, plan: {found['planned_held']} B measured, "
          f"{predicted['with_plan']} B predicted + {found['state']} B "
          "random state")
    print(f"fall: {found['held'] - found['planned_held']} B measured, "
          f"{predicted['without_plan'] - predicted['with_plan'] - found['state']}"
          " B predicted")
    count, size = found["not_as_planned"]
    print(f"ckpt's plan keeps {plan['ckpt_saved_bytes']} B; {count} kept "
          f"values not saved as planned ({size} B)")
    if found["unplanned_delta"] != found["planned_delta"]:
        print(f"FAILED: measured less predicted is "
              f"{found['unplanned_delta']} B without the plan, "
              f"{found['planned_delta']} B with it")
        return 1
    print(f"measured less predicted: {found['planned_delta']} B with and "
          "without the plan")
    return int(not found["same"])


def changed(options):
    model, inputs = build(options.model, options.dropout, 2)
    with tempfile.TemporaryDirectory() as directory:
        ckpt_torch.plan(copy.deepcopy(model), inputs, strategy="dp",
                        executor="regions", keep=directory)
        first = next(m for m in model.modules()
                     if isinstance(m, (torch.nn.GELU, torch.nn.Linear)))
        first.forward = lambda x: F.relu(x)
        ckpt_torch.apply_plan(model, os.path.join(directory, "plan.json"))
        try:
            model(*inputs)
        except ckpt_torch.PlanMismatch as mismatch:
            print(f"PlanMismatch: {mismatch}")
            return 0
    print("FAILED: the changed model ran")
    return 1


def _ddp_rank(rank, plan_path, options, address, results):
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(address))
    dist.init_process_group("gloo", rank=rank, world_size=2)
    model, inputs = build(options.model, options.dropout, 4)
    half = tuple(t[2 * rank:2 * rank + 2] for t in inputs)
    gradients = {}
    for label, path in (("plan", plan_path), ("none", None)):
        copy_ = copy.deepcopy(model)
        if path:
            ckpt_torch.apply_plan(copy_, path)
        parallel = DistributedDataParallel(copy_)
        torch.manual_seed(1)
        parallel(*half).backward()
        gradients[label] = [p.grad for p in copy_.parameters()]
    if rank == 0:
        torch.save(gradients, results)
    # Both processes leave together: gloo aborts one whose peer has gone.
    dist.barrier()
    dist.destroy_process_group()


def ddp(options):
    import socket
    import torch.multiprocessing as mp
    model, inputs = build(options.model, options.dropout, 4)
    half = tuple(t[:2] for t in inputs)
    with tempfile.TemporaryDirectory() as directory:
        ckpt_torch.plan(copy.deepcopy(model), half, strategy="dp",
                        executor="regions", keep=directory)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            address = s.getsockname()[1]
        results = os.path.join(directory, "gradients.pt")
        mp.spawn(_ddp_rank, args=(os.path.join(directory, "plan.json"),
                                  options, address, results), nprocs=2)
        gradients = torch.load(results)
        single = ckpt_torch.apply_plan(copy.deepcopy(model),
                                       os.path.join(directory, "plan.json"))
    torch.manual_seed(1)
    single(*inputs).backward()
    reference = [p.grad for p in single.parameters()]
    same = all(torch.equal(a, b) for a, b in
               zip(gradients["plan"], gradients["none"]))
    difference = max(((a - b).norm() / b.norm().clamp_min(1e-30)).item()
                     for a, b in zip(gradients["plan"], reference))
    print(f"DDP on 2 processes, plan against none: "
          f"{'bit-identical' if same else 'DIFFERENT'}")
    print(f"DDP with the plan against one process on the whole batch: "
          f"largest relative difference {difference:.1e}")
    return int(not same or difference > 1e-6)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--strategy", default="dp")
    parser.add_argument("--budget")
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--autocast", choices=["bf16", "f16"])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--changed", action="store_true")
    group.add_argument("--ddp", action="store_true")
    options = parser.parse_args()
    if options.changed:
        sys.exit(changed(options))
    if options.ddp:
        sys.exit(ddp(options))
    sys.exit(1 if check(options) else 0)


if __name__ == "__main__":
    main()
