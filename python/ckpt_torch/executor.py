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
import functools
import weakref
from dataclasses import dataclass
from typing import (Any, Callable, Hashable, Iterable, Iterator, Sequence,
                    TypeVar)

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_unflatten

from .errors import PlanError, PlanMismatch

__all__ = ["OpPlan", "ExecutorStats", "PlannedForward", "run_forward",
           "is_random", "geometry", "chain_of", "still_needed",
           "scratch_by_call"]


def is_random(func: torch._ops.OpOverload) -> bool:
    """Whether the op draws from a random generator."""
    return torch.Tag.nondeterministic_seeded in func.tags


def geometry(tensor: torch.Tensor) -> tuple:
    """What tells two tensors apart while both live: their memory and how
    they view it. Equal for the tensor an op returned below autograd and
    the one autograd hands on."""
    return (tensor.untyped_storage().data_ptr(), tensor.storage_offset(),
            tensor.shape, tensor.stride(), tensor.dtype, tensor.device)


@dataclass(frozen=True)
class OpPlan:
    """What the executor needs of a plan: the op of each forward call, in
    order, the outputs (call, output) whose tensors the plan drops, and
    the (call, tensor argument) that a rerun of the call writes a scratch
    copy of (it writes them, and none of its outputs reads them: a batch
    norm's running statistics)."""

    ops: tuple[str, ...]
    dropped: frozenset[tuple[int, int]]
    scratch: frozenset[tuple[int, int]] = frozenset()

    def dropped_outputs(self) -> list[tuple[int, ...]]:
        """Per op call, the outputs it drops."""
        per_call: list[list[int]] = [[] for _ in self.ops]
        for call, output in sorted(self.dropped):
            per_call[call].append(output)
        return [tuple(d) for d in per_call]


def scratch_by_call(scratch: Iterable[tuple[int, int]]
                    ) -> dict[int, tuple[int, ...]]:
    """(call, tensor argument) pairs as, per op call with any, its tensor
    arguments a rerun writes a scratch copy of."""
    per_call: dict[int, list[int]] = {}
    for call, argument in sorted(scratch):
        per_call.setdefault(call, []).append(argument)
    return {call: tuple(a) for call, a in per_call.items()}


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
    (record, output) pairs for dropped ones: `leaves`, the arguments
    flattened by `spec`, or `args` themselves when `spec` is None (no
    argument nests others). `users` maps each unserved handle whose chain
    holds it (by id) to the handle's target; `cache` holds its outputs
    while one needs them; `readers` has, per output, the records that read
    it (weakly: a record lives only while a handle needs it)."""

    __slots__ = ("call", "func", "spec", "leaves", "kwargs", "writes",
                 "scratch", "parents", "versions", "rng", "users", "cache",
                 "readers", "stats", "__weakref__")

    def __init__(self, call: int, func: Callable[..., Any], spec: Any,
                 leaves: list, kwargs: dict, writes: tuple[int, ...],
                 rng: Any, stats: ExecutorStats,
                 scratch: tuple[int, ...] = ()):
        self.call = call
        self.func = func
        self.spec = spec
        self.leaves = leaves
        self.kwargs = kwargs
        self.writes = writes  # positions of the leaves it writes in place
        # positions of the kept leaves its rerun writes scratch copies of
        self.scratch = scratch
        found: dict[int, _Record] = {}
        for leaf in leaves:
            if type(leaf) is _Output:
                found.setdefault(id(leaf.record), leaf.record)
                leaf.record.readers.setdefault(
                    leaf.index, weakref.WeakSet()).add(self)
        self.parents = tuple(found.values())  # dropped calls it reads
        self.readers: dict[int, weakref.WeakSet] = {}
        # the kept arguments' versions when forward ran
        self.versions = [leaf._version for leaf in leaves
                         if isinstance(leaf, torch.Tensor)]
        self.rng = rng
        self.users: dict[int, _Record] = {}
        self.cache: list | None = None
        self.stats = stats

    def run(self, values: dict["_Record", list],
            shared: Callable[["_Output", "_Record"], bool]) -> list:
        """Runs the call again on its kept arguments and its parents'
        outputs in `values`; its outputs, flat. A parent's output that the
        call writes in place is copied first where `shared` holds for it
        (another record reads it, now or in a later rerun)."""
        if [leaf._version for leaf in self.leaves
                if isinstance(leaf, torch.Tensor)] != self.versions:
            raise PlanError(
                f"op call {self.call} ({self.func}) cannot run again: a "
                "tensor it read was written in place since; the plan must "
                "keep its outputs")
        leaves = [values[leaf.record][leaf.index]
                  if type(leaf) is _Output else leaf for leaf in self.leaves]
        for position in self.writes:
            if shared(self.leaves[position], self):
                leaves[position] = leaves[position].clone()
        for position in self.scratch:
            leaves[position] = torch.empty_like(leaves[position])
        with _replayed(self.rng):
            if self.spec is None:
                result = self.func(*leaves, **self.kwargs)
            else:
                args, kwargs = tree_unflatten(leaves, self.spec)
                result = self.func(*args, **kwargs)
        self.stats.recomputed[self.call] = \
            self.stats.recomputed.get(self.call, 0) + 1
        return _flat(result)


@functools.cache
def _written_names(func: torch._ops.OpOverload) -> tuple[str, ...]:
    """The arguments the op's schema says it writes in place."""
    return tuple(a.name for a in func._schema.arguments
                 if a.alias_info is not None and a.alias_info.is_write)


def written(func: torch._ops.OpOverload, given: list, args: tuple,
            kwargs: dict) -> tuple[int, ...]:
    """The positions in `given` (a call's arguments, flattened) of the
    tensors the call writes in place, as its schema says."""
    names = _written_names(func)
    if not names:
        return ()
    bound = dict(zip((a.name for a in func._schema.arguments), args))
    bound.update(kwargs)
    targets = [bound[n] for n in names if isinstance(bound.get(n),
                                                     torch.Tensor)]
    return tuple(i for i, leaf in enumerate(given)
                 if any(leaf is t for t in targets))


def tensor_positions(given: list, ordinals: Sequence[int]
                     ) -> tuple[int, ...]:
    """The positions in `given` (a call's arguments, flattened) of its
    tensor arguments numbered `ordinals` (counting the tensors of `given`,
    as the import numbers a call's scratch arguments)."""
    if not ordinals:
        return ()
    tensors = [i for i, leaf in enumerate(given)
               if isinstance(leaf, torch.Tensor)]
    return tuple(tensors[a] for a in ordinals)


def _flat(result: Any) -> list:
    """An op's outputs, flattened as tree_flatten does (quickly for a
    tensor or a tuple of them)."""
    if isinstance(result, torch.Tensor):
        return [result]
    if isinstance(result, tuple) and all(isinstance(r, torch.Tensor)
                                         for r in result):
        return list(result)
    return tree_flatten(result)[0]


def _holds_tensors(value: Any) -> bool:
    """Whether an argument nests tensors (torch.cat's list does)."""
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, torch.Tensor) or _holds_tensors(v)
                   for v in value)
    return isinstance(value, dict)


def _parents(record: _Record) -> tuple[_Record, ...]:
    return record.parents


def _users(record: _Record) -> Iterable[_Record]:
    return record.users.values()


Call = TypeVar("Call", bound=Hashable)


def chain_of(target: Call, parents: Callable[[Call], Iterable[Call]],
             stop: Callable[[Call], bool]) -> list[Call]:
    """`target` and the calls it reads, transitively, parents first, not
    going past those `stop` holds for."""
    order: list[Call] = []
    seen: set[Call] = set()
    stack: list[tuple[Call, bool]] = [(target, False)]
    while stack:
        call, expanded = stack.pop()
        if expanded:
            order.append(call)
            continue
        if call in seen:
            continue
        seen.add(call)
        stack.append((call, True))
        if not stop(call):
            stack.extend((p, False) for p in reversed(list(parents(call)))
                         if p not in seen)
    return order


def still_needed(at_hand: set[Call], users: Callable[[Call], Iterable[Call]],
                 parents: Callable[[Call], Iterable[Call]]) -> set[Call]:
    """Of the calls whose outputs are at hand, those an unserved reader
    needs later (`users` of a call: the targets of the readers whose chain
    holds it): its target, or, where the target is not at hand, the calls
    at hand that the walk up its chain from the target meets first. The
    rest can go: keeping them would only spare reruns that no reader will
    ask for."""
    needed: set[Call] = set()
    walked: set[Call] = set()
    for call in at_hand:
        for wanted in users(call):
            if wanted in at_hand:
                needed.add(wanted)
                continue
            if wanted in walked:
                continue
            walked.add(wanted)
            stack = [wanted]
            while stack:
                for parent in parents(stack.pop()):
                    if parent in walked:
                        continue
                    walked.add(parent)
                    if parent in at_hand:
                        needed.add(parent)
                    else:
                        stack.append(parent)
    return needed


def run_chain(chain: list[_Record], keep: set[_Record]
              ) -> dict[_Record, list]:
    """Runs `chain` (parents first; its last record the one wanted): a
    record with a cache gives it, the others run again, and those in
    `keep` cache their outputs. A record's outputs are let go once every
    record of the chain that reads them has run; the last record's are
    returned."""
    readers: dict[_Record, int] = {}
    for record in chain:
        if record.cache is None:
            for parent in record.parents:
                readers[parent] = readers.get(parent, 0) + 1
    values: dict[_Record, list] = {}
    shared = functools.partial(_shared, readers)
    for record in chain:
        if record.cache is not None:
            values[record] = record.cache
            continue
        outputs = record.run(values, shared)
        if record in keep:
            record.cache = outputs
        values[record] = outputs
        del outputs
        for parent in record.parents:
            readers[parent] -= 1
            if readers[parent] == 0:
                del values[parent]
    return values


def _shared(readers: dict[_Record, int], output: "_Output",
            writer: _Record) -> bool:
    """Whether a record other than `writer` (which writes `output` in
    place) reads `output` after it: another record of this chain reads its
    record's outputs, or its record stays in cache and another reader of
    the output may run again (it is in an unserved handle's chain, not in
    cache itself)."""
    parent = output.record
    if readers[parent] > 1:
        return True
    return parent.cache is not None and any(
        reader is not writer and reader.cache is None and reader.users
        for reader in parent.readers.get(output.index, ()))


class _Output:
    """A dropped output of a recorded call, as an argument of another."""

    __slots__ = ("record", "index")

    def __init__(self, record: _Record, index: int):
        self.record = record
        self.index = index


class _Reruns:
    """The records of one forward whose outputs a backward read left in
    cache for later reads."""

    def __init__(self):
        self.cached: set[_Record] = set()


class _Handle:
    """What autograd holds for a dropped tensor until backward reads it:
    the call that made it and every dropped call before it that a rerun
    may need (each lists this handle among its users until it is served
    or let go)."""

    __slots__ = ("output", "chain", "reruns")

    def __init__(self, output: _Output, reruns: _Reruns):
        self.output = output
        self.reruns = reruns
        self.chain = chain_of(output.record, _parents, _never)
        for record in self.chain:
            record.users[id(self)] = output.record

    def unpack(self) -> torch.Tensor:
        """The tensor again: reruns what the cache does not hold, then
        keeps in cache what unserved handles still need."""
        self._serve()
        target = self.output.record
        chain = chain_of(target, _parents, _cached)
        cached = self.reruns.cached
        keep = still_needed(cached.union(chain), _users, _parents)
        with torch.no_grad():
            values = run_chain(chain, keep)
        value = values[target][self.output.index]
        del values
        for record in cached - keep:
            record.cache = None
        self.reruns.cached = {r for r in keep if r.cache is not None}
        return value

    def _serve(self) -> None:
        for record in self.chain:
            record.users.pop(id(self), None)

    def __del__(self) -> None:
        self._serve()


def _never(record: _Record) -> bool:
    return False


def _cached(record: _Record) -> bool:
    return record.cache is not None


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

_aten = torch.ops.aten
# Ops that read only their argument's shape, type and device, never its
# data, and what fills their result: their rerun makes a tensor of the
# result's geometry (and holds no argument).
SHAPE_ONLY: dict[torch._ops.OpOverload, Callable[[tuple], Any]] = {
    _aten.empty_like.default: lambda args: None,
    _aten.zeros_like.default: lambda args: 0,
    _aten.ones_like.default: lambda args: 1,
    _aten.full_like.default: lambda args: args[1],
    _aten.new_empty.default: lambda args: None,
    _aten.new_zeros.default: lambda args: 0,
    _aten.new_ones.default: lambda args: 1,
    _aten.new_full.default: lambda args: args[2],
}


def _like(shape: torch.Size, stride: tuple, dtype: torch.dtype,
          device: torch.device, fill: Any) -> torch.Tensor:
    """A SHAPE_ONLY op's result again."""
    made = torch.empty_strided(shape, stride, dtype=dtype, device=device)
    return made if fill is None else made.fill_(fill)


class _Forward(TorchDispatchMode):
    """One forward under a plan: numbers and checks the op calls, records
    the calls whose outputs the plan drops, and packs saved tensors."""

    def __init__(self, ops: list, dropped: Sequence[tuple[int, ...]],
                 stats: ExecutorStats, checking: bool = True,
                 scratch: dict[int, tuple[int, ...]] | None = None):
        super().__init__()
        self.checking = checking
        self.ops = ops
        self.dropped = dropped
        self.scratch = scratch or {}
        self.stats = stats
        self.position = 0
        # geometry -> the dropped output a live tensor of that geometry is;
        # an entry goes when its storage dies (another tensor may then take
        # its address) or a later output has its geometry
        self.made: dict[tuple, _Output] = {}
        self.forgetting: list[weakref.finalize] = []
        self.reruns = _Reruns()

    def check(self, func: torch._ops.OpOverload) -> int:
        """The number of this op call, checked against the plan's. `ops`
        holds names until a forward has met their op: then the op, which
        later forwards compare by identity."""
        call = self.position
        self.position += 1
        if call < len(self.ops) and func is self.ops[call]:
            return call
        if call >= len(self.ops):
            raise PlanMismatch(
                f"op call {call} is {func}, but the plan has "
                f"{len(self.ops)} op calls; the model changed since the plan "
                "was made: make the plan again")
        expected = str(self.ops[call])
        if str(func) != expected:
            raise PlanMismatch(
                f"op call {call} is {func}, the plan's is {expected}; the "
                "model changed since the plan was made: make the plan again")
        self.ops[call] = func
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
            if self.checking:
                self.check_kept(call, func, result)
            return result
        if func in SHAPE_ONLY:
            result = func(*args, **kwargs)
            record = _Record(call, functools.partial(
                _like, result.shape, result.stride(), result.dtype,
                result.device, SHAPE_ONLY[func](args)), None, [], {}, (),
                None, self.stats)
            self.remember(record, result, dropped)
            return result
        nested = any(_holds_tensors(a) for a in args) or \
            any(isinstance(v, torch.Tensor) or _holds_tensors(v)
                for v in kwargs.values())
        given, spec = tree_flatten((args, kwargs)) if nested \
            else (list(args), None)
        rng = _rng_state(given) if is_random(func) else None
        leaves = [self.made.get(geometry(leaf), leaf)
                  if isinstance(leaf, torch.Tensor) else leaf
                  for leaf in given]
        writes = written(func, given, args, kwargs)
        if self.checking and any(type(leaves[i]) is not _Output
                                 for i in writes):
            raise PlanError(
                f"op call {call} ({func}) writes in place a tensor the plan "
                "keeps, and drops what it makes: a plan drops whole "
                "storages; make the plan again")
        result = func(*args, **kwargs)
        record = _Record(call, func, spec, leaves, {} if nested else kwargs,
                         writes, rng, self.stats,
                         tensor_positions(given, self.scratch.get(call, ())))
        self.remember(record, result, dropped)
        return result

    def remember(self, record: _Record, result: Any,
                 dropped: tuple[int, ...]) -> None:
        """Knows each dropped output of `result` as the record's, until its
        storage dies."""
        for index, output in enumerate(_flat(result)):
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

    def check_kept(self, call: int, func: torch._ops.OpOverload,
                   result: Any) -> None:
        """A plan drops whole storages: no output of a call that drops
        nothing may view, or write, a tensor the plan drops (the
        executor would give back that tensor as it was before)."""
        for output in tree_flatten(result)[0]:
            if isinstance(output, torch.Tensor) and \
                    geometry(output) in self.made:
                raise PlanError(
                    f"op call {call} ({func}) views or writes a tensor the "
                    "plan drops, which it keeps: a plan drops whole "
                    "storages; make the plan again")

    def pack(self, tensor: torch.Tensor) -> Any:
        output = self.made.get(geometry(tensor))
        return tensor if output is None else _Handle(output, self.reruns)

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


def run_forward(forward: Callable[..., Any], ops: list,
                dropped: Sequence[tuple[int, ...]], args: tuple,
                kwargs: dict, checking: bool = True,
                scratch: dict[int, tuple[int, ...]] | None = None
                ) -> tuple[Any, ExecutorStats]:
    """Runs `forward(*args, **kwargs)` under a plan: `ops` its op calls (by
    name, or the op once met: _Forward.check), `dropped` its per-call
    dropped outputs, `scratch` the tensor arguments per call that a rerun
    writes scratch copies of; returns its result and the statistics that
    its backward fills in. `checking` checks that the plan drops whole
    storages (what views and writes what does not change from one forward
    to the next: once is enough)."""
    stats = ExecutorStats({})
    mode = _Forward(ops, dropped, stats, checking, scratch)
    with torch.autograd.graph.saved_tensors_hooks(mode.pack, _unpack):
        with mode:
            result = forward(*args, **kwargs)
    mode.finish()
    return result, stats


class PlannedForward:
    """A module's forward under an op-level plan: while autograd records,
    the executor runs it; otherwise (no_grad, inference) it runs as it
    was. `stats` is the last planned forward's (its backward fills in the
    reruns)."""

    def __init__(self, forward: Callable[..., Any], plan: OpPlan):
        self.forward = forward
        self.plan = plan
        self.ops: list = list(plan.ops)
        self.dropped = plan.dropped_outputs()
        self.scratch = scratch_by_call(plan.scratch)
        self.stats: ExecutorStats | None = None
        self.checked = False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not torch.is_grad_enabled():
            return self.forward(*args, **kwargs)
        result, self.stats = run_forward(self.forward, self.ops,
                                         self.dropped, args, kwargs,
                                         not self.checked, self.scratch)
        self.checked = True
        return result
