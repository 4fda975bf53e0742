"""ckpt_torch.compile checked against torch.compile without a plan.

  compiled_checks.py MODEL [--budget-fraction F] [--dropout P] [--batch N]
      compiles MODEL (as sac_checks.py builds it) with torch.compile, and
      with ckpt_torch.compile within F times the peak PyTorch's allocator
      reaches in torch.compile's step (parameters and inputs included);
      checks that Inductor's own partition was tried first and, for F
      below 1, did not fit and the plans tried after it marked nodes of
      the joint graph (for F of 1 or more, that it was taken); prints how
      many of the eager op calls it found in the joint graph; checks
      that the compiled step with the plan stays within the budget, and
      that its loss and gradients (dropout on, same seed) are
      bit-identical to torch.compile's without the plan. Exits 1 on a
      failed check.
"""

import argparse
import copy
import sys

import torch
import torch._functorch.config as functorch_config
import torch._inductor.config as inductor_config

import ckpt_torch
import sac_checks
from ckpt_torch import memory


def train_step(compiled, model, inputs):
    """The loss and gradients of one step (seeded), and its peak, what the
    allocator held before included."""
    found = {}

    def step():
        torch.manual_seed(1)
        loss = compiled(*inputs)
        loss.backward()
        found["loss"] = loss.detach()

    step()  # compiles
    # Gradients freed before the step, as a training loop frees them.
    model.zero_grad(set_to_none=True)
    peak = memory.allocator_peak(step) + memory.held_before(model, inputs)
    return found["loss"], [p.grad for p in model.parameters()], peak


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--budget-fraction", type=float, default=0.95)
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--batch", type=int, default=2)
    options = parser.parse_args()
    # Every compilation anew: none from another's cache.
    inductor_config.fx_graph_cache = False
    functorch_config.enable_autograd_cache = False
    model, inputs = sac_checks.build(options.model, options.dropout,
                                     options.batch)
    reference = copy.deepcopy(model)
    loss, gradients, unplanned = train_step(torch.compile(reference),
                                            reference, inputs)
    budget = int(unplanned * options.budget_fraction)
    planned = copy.deepcopy(model)
    compiled = ckpt_torch.compile(planned, inputs, budget=budget)
    taken = ckpt_torch.plan_of(compiled)
    tries = taken["compiled"]["tries"]
    planned_loss, planned_gradients, peak = train_step(compiled, planned,
                                                       inputs)
    same = torch.equal(loss, planned_loss) and all(
        torch.equal(a, b) for a, b in zip(gradients, planned_gradients))
    marked = [t["marked_nodes"] for t in tries]
    print(f"{options.model}: {len(tries)} compilations, marked nodes "
          f"{marked}, op calls matched {tries[0]['matched_op_calls']} of "
          f"{len(taken['ops'])}")
    print(f"peak: {peak} B with the plan, budget {budget} B, {unplanned} B "
          f"without it: {'within' if peak <= budget else 'ABOVE'} the budget")
    print(f"loss and {len(gradients)} gradients against torch.compile's: "
          f"{'bit-identical' if same else 'DIFFERENT'}")
    # Below torch.compile's own peak, Inductor's own partition is tried
    # first and plans marking nodes after it; above, it is taken as it is.
    planned_tries = marked[0] == 0 and (
        len(marked) > 1 and all(marked[1:]) if budget < unplanned
        else len(marked) == 1)
    sys.exit(0 if same and peak <= budget and planned_tries else 1)


if __name__ == "__main__":
    main()
