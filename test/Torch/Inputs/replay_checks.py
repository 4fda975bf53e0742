"""ckpt_torch's model of PyTorch's step (memory.py) against PyTorch itself,
on random plans.

  replay_checks.py MODEL [--plans N] [--seed S]
      traces MODEL's step (as sac_checks.py builds it, dropout 0.1 where
      the model has dropout), then for N random plans (each drops a random
      share of the storages forward makes, whole, but those an op writes
      that it did not make; a batch norm's reruns write scratch copies of
      its running statistics, as the import finds) runs one step with the
      executor and checks that the peak PyTorch's allocator reaches is the
      replay's prediction to the byte, that backward reran each op call as
      predicted, and that the loss, gradients and buffers are bit-identical
      to the step without a plan. Exits 1 on a failed check.
"""

import argparse
import copy
import random
import sys

import torch

import sac_checks
from ckpt_torch import executor, importer, memory


def step(model, inputs, ops, dropped, scratch):
    """One seeded step under the plan that drops `dropped`: its loss,
    gradients and buffers, reruns and peak (what the allocator held before
    included)."""
    per_call = executor.OpPlan(tuple(ops),
                               frozenset(dropped)).dropped_outputs()
    found = {}

    def run():
        torch.manual_seed(5)
        loss, stats = executor.run_forward(model, list(ops), per_call,
                                           inputs, {}, scratch=scratch)
        loss.backward()
        found["loss"], found["stats"] = loss.detach(), stats

    # Gradients freed outside the measured step, as a training loop's
    # zero_grad frees them before its forward.
    model.zero_grad(set_to_none=True)
    peak = memory.allocator_peak(run) + memory.held_before(model, inputs)
    return (found["loss"], [p.grad.clone() for p in model.parameters()] +
            [b.clone() for b in model.buffers()], found["stats"].recomputed,
            peak)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--plans", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    model, inputs = sac_checks.build(options.model, 0.1, 2)
    reference = copy.deepcopy(model)
    with memory.state_kept(model):
        scratch = executor.scratch_by_call(
            importer.PyTorchCalls(model, inputs).scratch)
    trace = memory.trace_step(model, inputs, scratch=scratch)
    ops = trace.ops
    # Storages no plan may drop: those an op writes that it did not make.
    fixed = {storage for facts in trace.calls
             if any(facts.leaves[p] is None for p, _ in facts.writes)
             for storage in facts.outputs}
    storages = sorted({s for facts in trace.calls for s in facts.outputs
                       if s is not None and s not in fixed})
    loss, grads, _, unplanned = step(reference, inputs, ops, frozenset(),
                                     scratch)
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
        planned = copy.deepcopy(model)
        planned_loss, planned_grads, reruns, peak = step(planned, inputs,
                                                         ops, dropped, scratch)
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
