"""The eager executor: trains a module with an op-level plan exactly.

While the module runs forward, a dispatch mode below autograd numbers the op
calls and checks each against the plan. Autograd's saved-tensor hooks keep
what the plan keeps; a tensor the plan drops is packed as a handle on the op
call that made it. Backward's first read of a handle makes the tensor again
by running only that call and the dropped calls it reads, from the tensors
the plan keeps (each random call with the generator state it had in
forward); a copy that later readers need is held until the last of them
reads it, and nothing else is kept.
"""

from __future__ import annotations

import contextlib
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_unflatten

__all__ = ["OpPlan", "PlanMismatch", "ExecutorStats", "run_forward",
           "is_recomputable", "is_random", "geometry"]


class PlanMismatch(Exception):
    """The module's op calls differ from those the plan was made for."""


def is_random(func: torch._ops.OpOverload) -> bool:
    """Whether the op draws from a random generator."""
    return torch.Tag.nondeterministic_seeded in func.tags


def is_recomputable(func: torch._ops.OpOverload, outputs: Sequence[Any]
                    ) -> bool:
    """Whether running the op again gives its outputs again: it writes no
    argument in place, returns only tensors and is bitwise deterministic
    (a random op replays its generator state)."""
    if torch.Tag.nondeterministic_bitwise in func.tags:
        return False
    if any(a.alias_info is not None and a.alias_info.is_write
           for a in func._schema.arguments):
        return False
    return all(isinstance(o, torch.Tensor) for o in outputs)


def geometry(tensor: torch.Tensor) -> tuple:
    """What tells two tensors apart while both live: their memory and how
    they view it. Equal for the tensor an op returned below autograd and
    the one autograd hands on."""
    return (tensor.untyped_storage().data_ptr(), tensor.storage_offset(),
            tensor.shape, tensor.stride(), tensor.dtype, tensor.device)


@dataclass(frozen=True)
class OpPlan:
    """What the executor needs of a plan: the op of each forward call, in
    order, and the outputs (call, output) whose tensors the plan drops."""

    ops: tuple[str, ...]
    dropped: frozenset[tuple[int, int]]

    def dropped_outputs(self) -> list[tuple[int, ...]]:
        """Per op call, the outputs it drops."""
        per_call: list[list[int]] = [[] for _ in self.ops]
        for call, output in sorted(self.dropped):
            per_call[call].append(output)
        return [tuple(d) for d in per_call]


@dataclass
class ExecutorStats:
    """What one forward and its backward did: op calls run again in
    backward, by op call."""

    recomputed: dict[int, int]

    def total(self) -> int:
        return sum(self.recomputed.values())


class _Record:
    """A forward op call whose outputs the plan drops: how to run it again.
    Its arguments are the tensors the plan keeps (held here) and
    (record, output) pairs for dropped ones."""

    __slots__ = ("call", "func", "spec", "leaves", "rng", "pending", "cache",
                 "stats")

    def __init__(self, call: int, func: torch._ops.OpOverload, spec: Any,
                 leaves: list, rng: Any, stats: ExecutorStats):
        self.call = call
        self.func = func
        self.spec = spec
        self.leaves = leaves
        self.rng = rng
        self.pending = 0  # unserved handles whose chain holds this call
        self.cache: list | None = None
        self.stats = stats

    def parents(self) -> list["_Record"]:
        """The dropped calls this one reads, each once."""
        found: dict[int, _Record] = {}
        for leaf in self.leaves:
            if type(leaf) is _Output:
                found.setdefault(id(leaf.record), leaf.record)
        return list(found.values())

    def run(self, values: dict[int, list]) -> list:
        """Runs the call again on its kept arguments and its parents'
        outputs in `values` (by the parent's id); its outputs, flat."""
        leaves = [values[id(leaf.record)][leaf.index]
                  if type(leaf) is _Output else leaf for leaf in self.leaves]
        args, kwargs = tree_unflatten(leaves, self.spec)
        with _replayed(self.rng):
            result = self.func(*args, **kwargs)
        self.stats.recomputed[self.call] = \
            self.stats.recomputed.get(self.call, 0) + 1
        return tree_flatten(result)[0]


def chain_of(target: _Record, stop: Callable[[_Record], bool]
             ) -> list[_Record]:
    """`target` and the records it reads, transitively, parents first, not
    going past those `stop` holds for."""
    order: list[_Record] = []
    seen: set[int] = set()
    stack: list[tuple[_Record, bool]] = [(target, False)]
    while stack:
        record, expanded = stack.pop()
        if expanded:
            order.append(record)
            continue
        if id(record) in seen:
            continue
        seen.add(id(record))
        stack.append((record, True))
        if not stop(record):
            stack.extend((p, False) for p in reversed(record.parents())
                         if id(p) not in seen)
    return order


def run_chain(chain: list[_Record]) -> dict[int, list]:
    """Runs `chain` (parents first; its last record the one wanted): a
    record with a cache gives it, the others run again. A record's
    outputs are let go once every record of the chain that reads them has
    run; the last record's are returned (by its id)."""
    readers: dict[int, int] = {}
    for record in chain:
        if record.cache is None:
            for parent in record.parents():
                readers[id(parent)] = readers.get(id(parent), 0) + 1
    values: dict[int, list] = {}
    for record in chain:
        if record.cache is not None:
            values[id(record)] = record.cache
            continue
        outputs = record.run(values)
        if record.pending > 1:
            record.cache = outputs
        values[id(record)] = outputs
        del outputs
        for parent in record.parents():
            readers[id(parent)] -= 1
            if readers[id(parent)] == 0:
                del values[id(parent)]
    return values


class _Output:
    """A dropped output of a recorded call, as an argument of another."""

    __slots__ = ("record", "index")

    def __init__(self, record: _Record, index: int):
        self.record = record
        self.index = index


class _Handle:
    """What autograd holds for a dropped tensor until backward reads it:
    the call that made it and every dropped call before it that a rerun
    may need, each counting this handle as pending until it is served."""

    __slots__ = ("output", "chain", "served")

    def __init__(self, output: _Output):
        self.output = output
        self.chain = chain_of(output.record, lambda record: False)
        self.served = False
        for record in self.chain:
            record.pending += 1

    def unpack(self) -> torch.Tensor:
        target = self.output.record
        with torch.no_grad():
            values = run_chain(chain_of(
                target, lambda record: record.cache is not None))
        value = values[id(target)][self.output.index]
        del values
        self._serve()
        return value

    def _serve(self) -> None:
        if self.served:
            return
        self.served = True
        for record in self.chain:
            record.pending -= 1
            if record.pending == 0:
                record.cache = None

    def __del__(self) -> None:
        self._serve()


def _rng_state(leaves: list) -> Any:
    """The generator state a random op call reads, to replay it: the CPU
    generator's, and the CUDA device's where the op's tensors are."""
    devices = {leaf.device for leaf in leaves
               if isinstance(leaf, torch.Tensor) and leaf.device.type == "cuda"}
    cuda = {d.index: torch.cuda.get_rng_state(d) for d in devices}
    return torch.get_rng_state(), cuda


@contextlib.contextmanager
def _replayed(state: Any) -> Iterator[None]:
    if state is None:
        yield
        return
    cpu, cuda = state
    saved_cpu = torch.get_rng_state()
    saved_cuda = {d: torch.cuda.get_rng_state(d) for d in cuda}
    torch.set_rng_state(cpu)
    for device, value in cuda.items():
        torch.cuda.set_rng_state(value, device)
    try:
        yield
    finally:
        torch.set_rng_state(saved_cpu)
        for device, value in saved_cuda.items():
            torch.cuda.set_rng_state(value, device)


# Ops that only ask about a tensor, or view it whole (detach): not op calls
# of a plan, as selective checkpointing does not count them either.
IGNORED_OPS = torch.utils.checkpoint.SAC_IGNORED_OPS


class _Forward(TorchDispatchMode):
    """One forward under a plan: numbers and checks the op calls, records
    the calls whose outputs the plan drops, and packs saved tensors."""

    def __init__(self, ops: Sequence[str], dropped: Sequence[tuple[int, ...]],
                 stats: ExecutorStats):
        super().__init__()
        self.ops = ops
        self.dropped = dropped
        self.stats = stats
        self.position = 0
        # geometry -> the dropped output a live tensor of that geometry is;
        # an entry goes when its storage dies (another tensor may then take
        # its address) or a later output has its geometry
        self.made: dict[tuple, _Output] = {}
        self.forgetting: list[weakref.finalize] = []
        self.names: dict[torch._ops.OpOverload, str] = {}

    def check(self, func: torch._ops.OpOverload) -> int:
        """The number of this op call, checked against the plan's."""
        call = self.position
        self.position += 1
        if call >= len(self.ops):
            raise PlanMismatch(
                f"op call {call} is {func}, but the plan has "
                f"{len(self.ops)} op calls; the model changed since the plan "
                "was made: make the plan again")
        name = self.names.get(func)
        if name is None:
            name = self.names[func] = str(func)
        if name != self.ops[call]:
            raise PlanMismatch(
                f"op call {call} is {func}, the plan's is {self.ops[call]}; "
                "the model changed since the plan was made: make the plan "
                "again")
        return call

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in IGNORED_OPS:
            return func(*args, **kwargs)
        return self.run(self.check(func), func, args, kwargs)

    def run(self, call: int, func: torch._ops.OpOverload, args: tuple,
            kwargs: dict) -> Any:
        dropped = self.dropped[call]
        if not dropped:
            result = func(*args, **kwargs)
            for output in tree_flatten(result)[0]:
                if isinstance(output, torch.Tensor):
                    self.made.pop(geometry(output), None)
            return result
        given, spec = tree_flatten((args, kwargs))
        rng = _rng_state(given) if is_random(func) else None
        leaves = [self.made.get(geometry(leaf), leaf)
                  if isinstance(leaf, torch.Tensor) else leaf
                  for leaf in given]
        result = func(*args, **kwargs)
        record = _Record(call, func, spec, leaves, rng, self.stats)
        for index, output in enumerate(tree_flatten(result)[0]):
            if not isinstance(output, torch.Tensor):
                continue
            if index in dropped:
                shape = geometry(output)
                entry = self.made[shape] = _Output(record, index)
                self.forgetting.append(weakref.finalize(
                    output.untyped_storage(), forget, self.made, shape,
                    id(entry)))
            else:
                self.made.pop(geometry(output), None)
        return result

    def pack(self, tensor: torch.Tensor) -> Any:
        output = self.made.get(geometry(tensor))
        return tensor if output is None else _Handle(output)

    def finish(self) -> None:
        if self.position != len(self.ops):
            raise PlanMismatch(
                f"{self.position} op calls, the plan has {len(self.ops)}; "
                "the model changed since the plan was made: make the plan "
                "again")
        self.made.clear()
        for finalizer in self.forgetting:
            finalizer.detach()
        self.forgetting.clear()


def forget(known: dict, key: Any, what: int) -> None:
    """Removes `known[key]` if it is still the object numbered `what`."""
    if id(known.get(key)) == what:
        del known[key]


def _unpack(packed: Any) -> torch.Tensor:
    return packed.unpack() if type(packed) is _Handle else packed


def run_forward(forward: Callable[..., Any], plan: OpPlan,
                dropped: Sequence[tuple[int, ...]], args: tuple,
                kwargs: dict) -> tuple[Any, ExecutorStats]:
    """Runs `forward(*args, **kwargs)` under `plan` (`dropped` its
    per-call dropped outputs); returns its result and the statistics that
    its backward fills in."""
    stats = ExecutorStats({})
    mode = _Forward(plan.ops, dropped, stats)
    with torch.autograd.graph.saved_tensors_hooks(mode.pack, _unpack):
        with mode:
            result = forward(*args, **kwargs)
    mode.finish()
    return result, stats
