"""ckpt-opt's plans trained by PyTorch through ckpt_torch's executor, which
runs them op call by op call, checked against PyTorch without them.

  executor_checks.py MODEL [--budget-fraction F] [--strategy S]
                     [--dropout P] [--autocast bf16] [--batch N]
      plans MODEL's step with ckpt_torch.plan within F times the peak
      PyTorch's allocator reaches in the step without a plan (the
      parameters and inputs included), runs one training step with and
      without the plan under the same seed, and checks that the loss,
      every gradient and every buffer (batch norm's running statistics)
      are bit-identical; that the peak the allocator reaches
      is the plan's prediction, to the byte, and within the budget; and
      that backward reran each op call as many times as predicted, and only
      calls whose outputs the plan drops. Exits 1 on a failed check.
  executor_checks.py MODEL --ddp
      the same plan in two processes (DistributedDataParallel, gloo, half
      the batch each): gradients bit-identical to the two processes'
      without the plan, and within 1e-6 of one process on the whole batch.

MODEL as in sac_checks.py.
"""

import argparse
import copy
import os
import socket
import sys
import tempfile

import torch

import sac_checks
from sac_checks import ckpt_import_torch, ckpt_torch  # noqa: F401
from ckpt_torch import memory


def train_step(model, inputs, autocast=None):
    """The loss, gradients and buffers after one step (seeded), and the
    highest total PyTorch's allocator reaches in it, what it held before
    included."""
    found = {}

    def step():
        torch.manual_seed(1)
        with ckpt_import_torch.autocast_context(autocast):
            loss = model(*inputs)
        loss.backward()
        found["loss"] = loss.detach()

    # Gradients freed before the step, as a training loop frees them.
    model.zero_grad(set_to_none=True)
    peak = memory.allocator_peak(step) + memory.held_before(model, inputs)
    return found["loss"], [p.grad for p in model.parameters()] + \
        list(model.buffers()), peak


def check(options):
    autocast = ckpt_import_torch._AUTOCAST_DTYPES.get(options.autocast)
    model, inputs = sac_checks.build(options.model, options.dropout,
                                     options.batch)
    reference = copy.deepcopy(model)
    loss, gradients, unplanned = train_step(reference, inputs, autocast)
    budget = int(unplanned * options.budget_fraction)
    planned = ckpt_torch.plan(copy.deepcopy(model), inputs, budget=budget,
                              strategy=options.strategy, autocast=autocast)
    plan = ckpt_torch.plan_of(planned)
    predicted = plan["pytorch"]
    planned_loss, planned_gradients, peak = train_step(planned, inputs,
                                                       autocast)
    reruns = {str(call): count for call, count in
              (ckpt_torch.stats_of(planned) or {}).items()}
    dropping = {str(call) for call, _ in plan["dropped"]}
    same = torch.equal(loss, planned_loss) and all(
        torch.equal(a, b) for a, b in zip(gradients, planned_gradients))
    print(f"{options.model}: plan {plan.get('plan')}, "
          f"{len(plan['dropped'])} outputs of {len(dropping)} op calls "
          f"dropped, {predicted['adjusted_storages']} storages adjusted")
    buffers = len(list(model.buffers()))
    print(f"loss, {len(gradients) - buffers} gradients and {buffers} "
          "buffers: "
          f"{'bit-identical' if same else 'DIFFERENT'}")
    print(f"peak: {peak} B measured, {predicted['predicted_peak_bytes']} B "
          f"predicted, budget {budget} B, {unplanned} B without the plan")
    exact = peak == predicted["predicted_peak_bytes"]
    print(f"measured less predicted: {peak - predicted['predicted_peak_bytes']}"
          f" B; {'within' if peak <= budget else 'ABOVE'} the budget")
    as_predicted = reruns == predicted["reruns"]
    only_dropped = set(reruns) <= dropping
    print(f"reruns: {sum(reruns.values())} of {len(reruns)} op calls, "
          f"{'as predicted' if as_predicted else 'NOT as predicted'}, "
          f"{'each dropping outputs' if only_dropped else 'SOME KEEPING'}")
    scratch = {str(call) for call, _ in plan["scratch"]}
    print(f"reruns writing scratch copies: "
          f"{sum(n for call, n in reruns.items() if call in scratch)}")
    return 0 if same and exact and peak <= budget and as_predicted and \
        only_dropped and reruns else 1


def _ddp_rank(rank, plan_path, options, address, results):
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(address))
    dist.init_process_group("gloo", rank=rank, world_size=2)
    model, inputs = sac_checks.build(options.model, options.dropout, 4)
    half = tuple(t[2 * rank:2 * rank + 2] for t in inputs)
    gradients = {}
    for label, path in (("plan", plan_path), ("none", None)):
        copied = copy.deepcopy(model)
        if path:
            ckpt_torch.apply_plan(copied, path)
        parallel = DistributedDataParallel(copied)
        torch.manual_seed(1)
        parallel(*half).backward()
        gradients[label] = [p.grad for p in copied.parameters()]
    if rank == 0:
        torch.save(gradients, results)
    # Both processes leave together: gloo aborts one whose peer has gone.
    dist.barrier()
    dist.destroy_process_group()


def ddp(options):
    import torch.multiprocessing as mp
    model, inputs = sac_checks.build(options.model, options.dropout, 4)
    half = tuple(t[:2] for t in inputs)
    _, _, unplanned = train_step(copy.deepcopy(model), half)
    with tempfile.TemporaryDirectory() as directory:
        ckpt_torch.plan(copy.deepcopy(model), half,
                        budget=int(unplanned * options.budget_fraction),
                        keep=directory)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            address = s.getsockname()[1]
        results = os.path.join(directory, "gradients.pt")
        path = os.path.join(directory, "plan.json")
        mp.spawn(_ddp_rank, args=(path, options, address, results), nprocs=2)
        gradients = torch.load(results)
        single = ckpt_torch.apply_plan(copy.deepcopy(model), path)
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
    parser.add_argument("--budget-fraction", type=float, default=0.8)
    parser.add_argument("--strategy", default="auto")
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--autocast", choices=["bf16", "f16"])
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--ddp", action="store_true")
    options = parser.parse_args()
    sys.exit(ddp(options) if options.ddp else check(options))


if __name__ == "__main__":
    main()
