"""ckpt-opt's plans in PyTorch's own training.

`plan(module, example_inputs, budget="2GiB")` imports the module, plans its
training step with ckpt-opt so that PyTorch's allocator stays within the
budget, and returns the module with the plan applied; `apply_plan(module,
"plan.json")` applies a plan that `ckpt-opt --ckpt-export-torch-plan` wrote.

`compile(module, example_inputs, budget=...)` is torch.compile with the plan
deciding what its partitioner recomputes, the compiled step's peak measured
within the budget (compiled.py).

In eager PyTorch a plan runs one of two ways. By default (`executor="ops"`) ckpt_torch's
executor runs it exactly: autograd's saved tensors that the plan drops are
freed in forward, and backward's first read of one reruns only the op calls
that make it from what the plan keeps (random ones with the generator state
they had), holding each copy until its last reader (executor.py). With
`executor="regions"` the plan is selective activation checkpointing of
submodule calls (regions.py): PyTorch reruns each region from its start.
A module whose op calls differ from the plan's stops with a PlanMismatch
naming the first difference.

The setup installs it into the project's .venv (`pip install ./python`
elsewhere); it needs PyTorch 2.9 or later, and `plan` and `compile` need
ckpt-opt (the CKPT_OPT environment variable, else PATH, else, installed
editable as the setup installs it, the repository's build/bin/).
"""

from .compiled import compile
from .errors import PlanError, PlanMismatch
from .planning import plan
from .plans import apply_plan, load_plan, plan_of, stats_of

__all__ = ["PlanError", "PlanMismatch", "apply_plan", "compile", "load_plan",
           "plan", "plan_of", "stats_of"]
