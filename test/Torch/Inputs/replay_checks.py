"""ckpt_torch's model of PyTorch's step (memory.py) against PyTorch itself,
on random plans.

  replay_checks.py MODEL [--plans N] [--seed S]
      traces MODEL's step (as sac_checks.py builds it, dropout 0.1 where
      the model has dropout), then for N random plans (each drops a random
      share of the storages forward makes, whole, but those a batch norm
      makes or an op writes that it did not make) runs one step with the
      executor and checks that the peak PyTorch's allocator reaches is the
      replay's prediction to the byte, that backward reran each op call as
      predicted, and that the loss and gradients are bit-identical to the
      step without a plan. Exits 1 on a failed check.
"""

import argparse
import random
import sys

import torch

import sac_checks
from ckpt_torch import executor, memory


def step(model, inputs, ops, dropped):
    """One seeded step under the plan that drops `dropped`: its loss,
    gradients, reruns and peak (what the allocator held before
    included)."""
    per_call = [tuple(o for c, o in sorted(dropped) if c == call)
                for call in range(len(ops))]
    found = {}

    def run():
        torch.manual_seed(5)
        loss, stats = executor.run_forward(model, list(ops), per_call,
                                           inputs, {})
        loss.backward()
        found["loss"], found["stats"] = loss.detach(), stats

    # Gradients freed outside the measured step, as a training loop's
    # zero_grad frees them before its forward.
    model.zero_grad(set_to_none=True)
    peak = memory.allocator_peak(run) + memory.held_before(model, inputs)
    return (found["loss"], [p.grad.clone() for p in model.parameters()],
            found["stats"].recomputed, peak)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--plans", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    model, inputs = sac_checks.build(options.model, 0.1, 2)
    trace = memory.trace_step(model, inputs)
    ops = trace.ops
    # Storages no plan may drop: a batch norm's (it writes its running
    # statistics) and those an op writes that it did not make.
    fixed = {storage for facts in trace.calls
             if "batch_norm" in facts.op
             or any(facts.leaves[p] is None for p, _ in facts.writes)
             for storage in facts.outputs}
    storages = sorted({s for facts in trace.calls for s in facts.outputs
                       if s is not None and s not in fixed})
    loss, grads, _, unplanned = step(model, inputs, ops, frozenset())
    chance = random.Random(options.seed)
    failed = 0
    for number in range(options.plans):
        share = chance.random()
        chosen = {s for s in storages if chance.random() < share}
        dropped = frozenset(
            (call, output) for call, facts in enumerate(trace.calls)
            for output, storage in enumerate(facts.outputs)
            if storage in chosen)
        predicted = trace.replay(dropped)
        planned_loss, planned_grads, reruns, peak = step(model, inputs, ops,
                                                         dropped)
        same = torch.equal(loss, planned_loss) and all(
            torch.equal(a, b) for a, b in zip(grads, planned_grads))
        ok = same and peak == predicted.peak and reruns == predicted.reruns
        failed += not ok
        print(f"plan {number}: {len(chosen)} of {len(storages)} storages "
              f"dropped, {sum(reruns.values())} reruns; peak {peak} B "
              f"measured, {predicted.peak} B predicted ({unplanned} B "
              f"without); reruns {'as' if reruns == predicted.reruns else 'NOT as'}"
              f" predicted; {'bit-identical' if same else 'DIFFERENT'}")
    print(f"{options.plans - failed} of {options.plans} plans as predicted")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
