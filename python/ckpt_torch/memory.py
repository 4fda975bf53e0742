"""PyTorch's own bytes: the peak of a training step under an op-level plan.

`trace_step` runs the module's training step once to warm it, then once
keeping every saved tensor, under PyTorch's profiler with each forward op
call and each read of a saved tensor marked, and its forward once more
dropping every saved tensor the executor could drop, which shows when each
would die without autograd.
`StepTrace.peak(dropped)` then replays the kept run as the executor runs a
plan: dropped tensors freed where forward lets go of them, kept ones held
for the reruns that read them, and each rerun's allocations (the op's own,
as forward made them) where backward first reads what it makes. The replay
follows the executor's rules (executor.py) step by step, so that its peak is
the allocator's.
"""

from __future__ import annotations

import contextlib
import functools
import heapq
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

import torch
from torch._C._profiler import _EventType
from torch.profiler import ProfilerActivity, profile, record_function
from torch.utils._pytree import tree_flatten

from . import executor

__all__ = ["Prediction", "StepTrace", "allocator_peak", "held_before",
           "state_kept", "trace_step"]

_CALL = "ckpt.call"
_UNPACK = "ckpt.unpack#"
_FORWARD = "ckpt.forward"
_NODE = "autograd::engine::evaluate_function: "

Output = tuple[int, int]  # (op call, flat output)


@dataclass
class _Call:
    """A forward op call as the traced run made it."""

    op: str
    random: bool
    # per flat argument: the (call, output) a tensor argument is, or None
    leaves: tuple[Output | None, ...] = ()
    # per flat output: its storage (a number in StepTrace.storage_bytes),
    # None for a non-tensor or a storage made before the step
    outputs: tuple[int | None, ...] = ()
    # the allocations inside the call, in order: +bytes, and -bytes for
    # those freed before it returns; `made` numbers the ones that stay
    deltas: tuple[int, ...] = ()
    made: tuple[int, ...] = ()
    # per flat output: the later call whose output has its geometry (the
    # executor then forgets what it knew of this one), or None
    superseded: list[int | None] = field(default_factory=list)
    # (flat argument, bytes) of each tensor it writes in place
    writes: tuple[tuple[int, int], ...] = ()
    # bytes of each scratch copy its rerun writes (executor.OpPlan.scratch)
    scratch: tuple[int, ...] = ()
    start: int = 0  # ticks of the kept run
    end: int = 0
    duration_ns: int = 0  # in the kept run, under the profiler


@dataclass
class _Pack:
    """A tensor autograd saved in forward, and when backward reads it."""

    output: Output | None
    read: int | None = None  # the tick of the read
    released: int | None = None  # the tick its node lets go of it


@dataclass
class StepTrace:
    """One training step of the module, as the allocator saw it."""

    calls: list[_Call]
    packs: list[_Pack]
    storage_bytes: list[int]
    storage_maker: list[int]  # the call that made each storage
    storage_alloc: list[int]
    storage_free: list[int | None]  # keeping everything
    storage_death: list[int | None]  # dropping every saved tensor
    base: list[tuple[int, int]]  # (tick, bytes) of the other allocations
    forward_end: int
    end: int
    rng_bytes: int  # a random call's generator state, held per rerun
    before: int  # bytes allocated before the step (parameters, inputs)

    @property
    def ops(self) -> tuple[str, ...]:
        return tuple(call.op for call in self.calls)

    def replay(self, dropped: frozenset[Output], microbatches: int = 1
               ) -> Prediction:
        """The step under the plan that drops `dropped`, as the allocator
        and the executor will see it; with `microbatches` in flight (a
        pipeline stage), each of the others adds to the peak what one holds
        from its forward to its backward."""
        replay = _Replay(self, dropped)
        top, held, tick = replay.peak()
        reruns = replay.reran
        return Prediction(
            peak=self.before + top + (microbatches - 1) * held,
            peak_tick=tick, held_at_backward=held, reruns=reruns,
            rerun_ns=sum(self.calls[call].duration_ns * count
                         for call, count in reruns.items()),
            live_at_peak=[storage for storage, (alloc, free)
                          in enumerate(replay.lifetimes)
                          if alloc <= tick < free])

    def outputs_in(self, storage: int) -> list[Output]:
        """The outputs of forward's calls that are (views of) `storage`."""
        return self._outputs_by_storage.get(storage, [])

    @functools.cached_property
    def _outputs_by_storage(self) -> dict[int, list[Output]]:
        by_storage: dict[int, list[Output]] = {}
        for call, facts in enumerate(self.calls):
            for output, made in enumerate(facts.outputs):
                if made is not None:
                    by_storage.setdefault(made, []).append((call, output))
        return by_storage

    def peak(self, dropped: frozenset[Output], microbatches: int = 1) -> int:
        """The allocator's highest total in the step under the plan (the
        bytes allocated before it included)."""
        return self.replay(dropped, microbatches).peak


@dataclass
class Prediction:
    """A plan's step in PyTorch, predicted."""

    peak: int  # the allocator's highest total, with what it held before
    peak_tick: int  # where in the traced step it is
    held_at_backward: int  # the step's bytes when forward ends
    reruns: dict[int, int]  # op call -> how many times backward reruns it
    rerun_ns: int  # their time in the traced run
    live_at_peak: list[int]  # forward's storages then, by number


class _Replay:
    """The traced step, replayed under a plan (the executor's rules)."""

    def __init__(self, trace: StepTrace, dropped: frozenset[Output]):
        self.trace = trace
        self.dropped = dropped
        self.events: list[tuple[int, int, int]] = []  # (tick, order, bytes)
        self.order = 0
        self.reran: dict[int, int] = {}  # call -> reruns
        calls = trace.calls
        # The executor's records: calls with a dropped output, and the
        # dropped calls each reads.
        self.records = sorted({call for call, _ in dropped})
        self.parents: dict[int, list[int]] = {}
        # (call, output) -> the records that read it
        self.readers: dict[Output, list[int]] = {}
        for call in self.records:
            read = [leaf for leaf in calls[call].leaves
                    if leaf is not None and leaf in dropped]
            self.parents[call] = sorted({leaf[0] for leaf in read})
            for leaf in read:
                self.readers.setdefault(leaf, []).append(call)
        self.handles = [i for i, pack in enumerate(trace.packs)
                        if pack.output in dropped]
        self.chains = {i: executor.chain_of(trace.packs[i].output[0],
                                            self.parents.__getitem__,
                                            lambda call: False)
                       for i in self.handles}

    def add(self, tick: int, size: int) -> None:
        self.events.append((tick, self.order, size))
        self.order += 1

    def peak(self) -> tuple[int, int, int]:
        """The highest total, the total when forward ends, and the tick of
        the highest."""
        trace = self.trace
        never = trace.end + 1
        # Storages whose every saved tensor is a handle die where forward
        # lets go of them; the others where the kept run freed them, or
        # later while a record holds them (below).
        kept_by_autograd = {trace.calls[p.output[0]].outputs[p.output[1]]
                            for p in trace.packs
                            if p.output is not None
                            and p.output not in self.dropped}
        free = [never if tick is None else tick
                for tick in trace.storage_free]
        for storage, death in enumerate(trace.storage_death):
            if storage not in kept_by_autograd and death is not None:
                free[storage] = death
        record_end = self.record_ends(free)
        held: dict[int, int] = {}  # storage -> until when a record holds it
        for call in self.records:
            for leaf in trace.calls[call].leaves:
                if leaf is None or leaf in self.dropped:
                    continue
                storage = trace.calls[leaf[0]].outputs[leaf[1]]
                if storage is not None:
                    held[storage] = max(held.get(storage, 0),
                                        record_end[call])
            if trace.calls[call].random:
                self.add(trace.calls[call].start, trace.rng_bytes)
                self.add(record_end[call], -trace.rng_bytes)
        self.lifetimes = [(trace.storage_alloc[storage],
                           max(free[storage], held.get(storage, 0)))
                          for storage in range(len(trace.storage_bytes))]
        for (alloc, end), size in zip(self.lifetimes, trace.storage_bytes):
            self.add(alloc, size)
            self.add(end, -size)
        for tick, size in trace.base:
            self.add(tick, size)
        self.reruns()
        total = top = top_tick = 0
        held = None  # when backward starts
        for tick, _, size in sorted(self.events):
            if held is None and tick > trace.forward_end:
                held = total
            total += size
            if total > top:
                top, top_tick = total, tick
        return top, total if held is None else held, top_tick

    def record_ends(self, free: list[int]) -> dict[int, int]:
        """When each record dies: once the executor forgets each of its
        dropped outputs (its storage dies, a later output has its geometry,
        or forward ends), no later record reads it, and no handle whose
        chain holds it lives."""
        trace = self.trace
        ends = {}
        for call in self.records:
            facts = trace.calls[call]
            ends[call] = max(
                min(trace.forward_end,
                    free[facts.outputs[output]]
                    if facts.outputs[output] is not None else trace.end,
                    trace.calls[later].end if later is not None
                    else trace.end)
                for output, later in enumerate(facts.superseded)
                if (call, output) in self.dropped)
        for handle in self.handles:
            released = trace.packs[handle].released
            for call in self.chains[handle]:
                ends[call] = max(ends[call], trace.end + 1
                                 if released is None else released)
        for call in reversed(self.records):
            for parent in self.parents[call]:
                ends[parent] = max(ends[parent], ends[call])
        return ends

    def reruns(self) -> None:
        """Backward's reads of handles, as executor._Handle.unpack serves
        them."""
        trace = self.trace
        # call -> {unserved handle whose chain holds it: its target}
        users: dict[int, dict[int, int]] = {call: {}
                                            for call in self.records}
        for handle in self.handles:
            for call in self.chains[handle]:
                users[call][handle] = trace.packs[handle].output[0]
        holds: dict[int, int] = {}  # storage instance -> holders
        sizes: dict[int, int] = {}
        cache: dict[int, list[int]] = {}  # call -> the instances it holds
        # per call that ran: its outputs' instances (None: kept storage)
        outputs: dict[int, list[int | None]] = {}
        instances = iter(range(1 << 62))

        def hold(held: list[int]) -> None:
            for instance in held:
                holds[instance] = holds.get(instance, 0) + 1

        def release(tick: int, held: list[int]) -> None:
            for instance in held:
                holds[instance] -= 1
                if holds[instance] == 0:
                    self.add(tick, -sizes[instance])

        reads = sorted((trace.packs[h].read, h) for h in self.handles
                       if trace.packs[h].read is not None)
        # (tick, instance): what nodes hold until they end
        held_by_nodes: list[tuple[int, int]] = []
        for tick, handle in reads:
            while held_by_nodes and held_by_nodes[0][0] <= tick:
                end, instance = heapq.heappop(held_by_nodes)
                release(end, [instance])
            for call in self.chains[handle]:
                users[call].pop(handle, None)
            wanted, index = trace.packs[handle].output
            chain = executor.chain_of(wanted, self.parents.__getitem__,
                                      cache.__contains__)
            keep = executor.still_needed(
                set(cache).union(chain), lambda call: users[call].values(),
                self.parents.__getitem__)
            readers: dict[int, int] = {}
            for call in chain:
                if call not in cache:
                    for parent in self.parents[call]:
                        readers[parent] = readers.get(parent, 0) + 1
            values: dict[int, list[int]] = {}
            for call in chain:
                if call in cache:
                    hold(cache[call])
                    values[call] = cache[call]
                    continue
                facts = trace.calls[call]
                self.reran[call] = self.reran.get(call, 0) + 1
                made_here: dict[int, int] = {}
                # A parent's output written in place is copied first where
                # another record reads it (executor._shared).
                for position, size in facts.writes:
                    parent, output = facts.leaves[position]
                    if readers[parent] > 1 or parent in cache and any(
                            reader != call and reader not in cache
                            and users[reader]
                            for reader in self.readers[(parent, output)]):
                        self.add(tick, size)
                        storage = trace.calls[parent].outputs[output]
                        made_here[storage] = instance = next(instances)
                        sizes[instance] = size
                if facts.random:
                    self.add(tick, trace.rng_bytes)
                for size in facts.scratch:
                    self.add(tick, size)
                for size in facts.deltas:
                    self.add(tick, size)
                for size in facts.scratch:
                    self.add(tick, -size)
                if facts.random:
                    self.add(tick, -trace.rng_bytes)
                for storage in facts.made:
                    made_here[storage] = instance = next(instances)
                    sizes[instance] = trace.storage_bytes[storage]
                outputs[call] = [
                    made_here[storage] if storage in made_here
                    else self.viewed(call, storage, outputs, values)
                    for storage in facts.outputs]
                held = sorted({i for i in outputs[call] if i is not None})
                hold(held)
                values[call] = held
                if call in keep:
                    hold(held)
                    cache[call] = held
                for parent in self.parents[call]:
                    readers[parent] -= 1
                    if readers[parent] == 0:
                        release(tick, values.pop(parent))
            value = outputs[wanted][index]
            released = trace.packs[handle].released
            if value is not None and released is not None:
                hold([value])
                heapq.heappush(held_by_nodes, (released, value))
            for held in values.values():
                release(tick, held)
            for call in [c for c in cache if c not in keep]:
                release(tick, cache.pop(call))
        for end, instance in sorted(held_by_nodes):
            release(end, [instance])

    def viewed(self, call: int, storage: int | None,
               outputs: dict[int, list[int | None]],
               values: dict[int, list[int]]) -> int | None:
        """The instance in this rerun of a storage that `call` did not make:
        that of the argument it views, when a parent's rerun made it (the
        parent's outputs at hand, in `values`); None when the plan keeps
        it."""
        if storage is None:
            return None
        for leaf in self.trace.calls[call].leaves:
            if leaf is not None and leaf[0] in values and \
                    self.trace.calls[leaf[0]].outputs[leaf[1]] == storage:
                return outputs[leaf[0]][leaf[1]]
        return None


# ---------------------------------------------------------------------------
# Tracing
# ---------------------------------------------------------------------------


@dataclass
class _Run:
    """What a traced run's modes saw, beside the profiler's events."""

    calls: list[_Call] = field(default_factory=list)
    # per call: its outputs' storage addresses (0 for none)
    addresses: list[tuple[int, ...]] = field(default_factory=list)
    packs: list[Output | None] = field(default_factory=list)
    pack_addresses: list[int] = field(default_factory=list)
    pack_calls: list[int] = field(default_factory=list)  # the last call


class _TracedForward(executor._Forward):
    """The executor's forward, with each op call marked in the profiler and
    what it reads and makes recorded."""

    def __init__(self, run: _Run, scratch: dict[int, tuple[int, ...]] | None,
                 ops: Sequence[str] | None = None,
                 dropped: Sequence[tuple[int, ...]] = ()):
        # Without ops, it learns them and drops nothing. With them, it drops
        # what it is told to, whole storages or not.
        self.learning = ops is None
        super().__init__(list(ops or ()), dropped,
                         executor.ExecutorStats({}), False, scratch)
        self.record = run
        self.producers: dict[tuple, Output] = {}

    def check(self, func):
        if not self.learning:
            return super().check(func)
        self.position += 1
        return self.position - 1

    def run(self, call, func, args, kwargs):
        given = tree_flatten((args, kwargs))[0]
        # What a SHAPE_ONLY op reads is no argument of its rerun.
        leaves = tuple(self.producers.get(executor.geometry(leaf))
                       if isinstance(leaf, torch.Tensor)
                       and func not in executor.SHAPE_ONLY else None
                       for leaf in given)
        writes = tuple((position, given[position].nbytes) for position in
                       executor.written(func, given, args, kwargs))
        with record_function(_CALL):
            result = super().run(call, func, args, kwargs) \
                if not self.learning else func(*args, **kwargs)
        outputs = tree_flatten(result)[0]
        addresses = []
        for index, output in enumerate(outputs):
            if isinstance(output, torch.Tensor):
                shape = executor.geometry(output)
                earlier = self.producers.get(shape)
                if earlier is not None and earlier[0] != call:
                    self.record.calls[earlier[0]].superseded[earlier[1]] = \
                        call
                entry = self.producers[shape] = (call, index)
                self.forgetting.append(weakref.finalize(
                    output.untyped_storage(), executor.forget,
                    self.producers, shape, id(entry)))
                addresses.append(output.untyped_storage().data_ptr())
            else:
                addresses.append(0)
        self.record.calls.append(_Call(
            str(func), executor.is_random(func), leaves,
            superseded=[None] * len(outputs), writes=writes,
            scratch=tuple(given[position].nbytes for position in
                          executor.tensor_positions(
                              given, self.scratch.get(call, ())))))
        self.record.addresses.append(tuple(addresses))
        return result

    def pack(self, tensor):
        self.record.packs.append(
            self.producers.get(executor.geometry(tensor)))
        self.record.pack_addresses.append(tensor.untyped_storage().data_ptr())
        self.record.pack_calls.append(self.position - 1)
        return _Marked(super().pack(tensor), len(self.record.packs) - 1)


class _Marked:
    """A saved tensor (or the executor's handle for it), marking its read."""

    __slots__ = ("packed", "number")

    def __init__(self, packed: Any, number: int):
        self.packed = packed
        self.number = number


def _unpack_marked(marked: _Marked) -> torch.Tensor:
    with record_function(_UNPACK + str(marked.number)):
        return executor._unpack(marked.packed)


def _events(profiled) -> list:
    """The profiler's events, flattened, in time order: (time, order,
    kind, payload); kinds: 'alloc' (bytes, address), 'call' (start or end),
    'unpack' (pack number), 'node' (inner end time), 'forward' (end)."""
    found = []

    def walk(events, depth):
        for event in events:
            if event.tag == _EventType.Allocation:
                fields = event.extra_fields
                found.append((event.start_time_ns, depth, "alloc",
                              (fields.alloc_size, fields.ptr)))
            elif event.name == _CALL:
                found.append((event.start_time_ns, depth, "call", "start"))
                found.append((event.end_time_ns, -depth, "call", "end"))
            elif event.name.startswith(_UNPACK):
                found.append((event.start_time_ns, depth, "unpack",
                              int(event.name[len(_UNPACK):])))
            elif event.name.startswith(_NODE):
                inner = [c for c in event.children
                         if c.tag != _EventType.Allocation]
                end = inner[0].end_time_ns if inner else event.end_time_ns
                found.append((end, -depth, "node", None))
            elif event.name == _FORWARD:
                found.append((event.end_time_ns, -depth, "forward", None))
            walk(event.children, depth + 1)

    walk(profiled.profiler.kineto_results.experimental_event_tree(), 0)
    found.sort(key=lambda e: (e[0], e[1]))
    return found


@contextlib.contextmanager
def state_kept(module: torch.nn.Module) -> Iterator[None]:
    """Leaves the module's buffers, gradients and the random generators as
    they were."""
    buffers = [(b, b.detach().clone()) for b in module.buffers()]
    grads = [(p, p.grad) for p in module.parameters()]
    devices = sorted({p.device.index for p in module.parameters()
                      if p.device.type == "cuda"})
    with torch.random.fork_rng(devices=devices):
        try:
            yield
        finally:
            with torch.no_grad():
                for buffer, value in buffers:
                    buffer.copy_(value)
            for parameter, grad in grads:
                parameter.grad = grad


def device_of(module: torch.nn.Module) -> str:
    """Whose allocator holds the module's step: "cuda" or "cpu"."""
    return "cuda" if any(p.device.type == "cuda"
                         for p in module.parameters()) else "cpu"


def _activities(module: torch.nn.Module) -> list:
    return [ProfilerActivity.CUDA] if device_of(module) == "cuda" \
        else [ProfilerActivity.CPU]


def held_before(module: torch.nn.Module, inputs: Sequence[Any]) -> int:
    """What the allocator holds for the module and its inputs: each storage
    of its parameters, buffers and tensor inputs once."""
    storages = {}
    for tensor in [*module.parameters(), *module.buffers(),
                   *[t for t in tree_flatten(list(inputs))[0]
                     if isinstance(t, torch.Tensor)]]:
        storage = tensor.untyped_storage()
        storages[storage.data_ptr()] = storage.nbytes()
    return sum(storages.values())


def trace_step(module: torch.nn.Module, inputs: Sequence[Any],
               forward: Callable[..., Any] | None = None,
               scratch: dict[int, tuple[int, ...]] | None = None
               ) -> StepTrace:
    """Traces one training step of `module` on `inputs` (its forward
    returns the loss): see the module's docstring. `scratch` is the plans'
    (executor.scratch_by_call). The module's buffers, gradients
    and the random generators are left as they were."""
    forward = forward or module
    with state_kept(module):
        # A first step fills what a module caches on its first call (masks,
        # rotary tables), which the steps a plan is for find made.
        module.zero_grad(set_to_none=True)
        forward(*inputs).backward()
        kept = _Run()
        ticks, first = _trace_kept(module, forward, inputs, kept, scratch)
        dropping = _Run()
        deaths = _trace_dropping(module, forward, inputs, kept, dropping,
                                 scratch)
    return _assemble(module, inputs, kept, dropping, ticks, first, deaths)


def _trace_kept(module, forward, inputs, run, scratch):
    module.zero_grad(set_to_none=True)
    mode = _TracedForward(run, scratch)
    with profile(activities=_activities(module), profile_memory=True) as p:
        with record_function(_FORWARD):
            with torch.autograd.graph.saved_tensors_hooks(mode.pack,
                                                          _unpack_marked):
                with mode:
                    loss = forward(*inputs)
        loss.backward()
        del loss
    return _events(p), run


def _trace_dropping(module, forward, inputs, kept, run, scratch):
    """The forward alone, dropping every tensor it makes: when forward lets
    go of each saved tensor. Returns the events."""
    ops = tuple(c.op for c in kept.calls)
    dropped = [tuple(o for o, a in enumerate(addresses) if a)
               for addresses in kept.addresses]
    mode = _TracedForward(run, scratch, ops, dropped)
    with profile(activities=_activities(module), profile_memory=True) as p:
        with record_function(_FORWARD):
            with torch.autograd.graph.saved_tensors_hooks(mode.pack,
                                                          _unpack_marked):
                with mode:
                    loss = forward(*inputs)
        mode.finish()
        del loss
    return _events(p)


def _assemble(module, inputs, kept: _Run, dropping: _Run, events, run,
              death_events) -> StepTrace:
    calls = kept.calls
    storage_bytes: list[int] = []
    storage_maker: list[int] = []
    storage_alloc: list[int] = []
    storage_free: list[int | None] = []
    live: dict[int, int] = {}  # address -> allocation number
    allocations: list[list] = []  # [tick, bytes, free tick, call, storage]
    call = -1
    inside = False
    call_ticks: list[list[int]] = []
    packs = [_Pack(output) for output in kept.packs]
    forward_end = None
    started = 0
    for tick, (time_ns, _, kind, payload) in enumerate(events):
        if kind == "alloc":
            size, address = payload
            if size > 0:
                live[address] = len(allocations)
                allocations.append([tick, size, None,
                                    call if inside else None, None])
            elif address in live:
                allocations[live.pop(address)][2] = tick
        elif kind == "call" and payload == "start":
            call += 1
            inside = True
            call_ticks.append([tick, tick])
            started = time_ns
        elif kind == "call":
            inside = False
            call_ticks[call][1] = tick
            calls[call].duration_ns = time_ns - started
            outputs = []
            for address in kept.addresses[call]:
                number = live.get(address) if address else None
                if number is None:
                    outputs.append(None)
                    continue
                allocation = allocations[number]
                if allocation[4] is None:
                    allocation[4] = len(storage_bytes)
                    storage_bytes.append(allocation[1])
                    storage_maker.append(allocation[3] if allocation[3]
                                         is not None else call)
                    storage_alloc.append(allocation[0])
                outputs.append(allocation[4])
            calls[call].outputs = tuple(outputs)
        elif kind == "unpack":
            if packs[payload].read is None:
                packs[payload].read = tick
        elif kind == "node":
            for pack in packs:
                if pack.read is not None and pack.released is None:
                    pack.released = tick
        elif kind == "forward":
            forward_end = tick
    if forward_end is None or call + 1 != len(calls):
        raise RuntimeError("the traced step's profile is incomplete")
    # Other allocations stay as they were; a call's own (its outputs, and
    # what it frees before it returns) are what its rerun allocates.
    base: list[tuple[int, int]] = []
    inner: list[list[tuple[int, int]]] = [[] for _ in calls]
    made: list[list[int]] = [[] for _ in calls]
    storage_free = [None] * len(storage_bytes)
    for tick, size, free, maker, storage in allocations:
        if storage is not None:
            storage_free[storage] = free
            if storage_maker[storage] == maker:
                inner[maker].append((tick, size))
                made[maker].append(storage)
            continue
        base.append((tick, size))
        if free is not None:
            base.append((free, -size))
            if maker is not None and free <= call_ticks[maker][1]:
                inner[maker] += [(tick, size), (free, -size)]
    for index, facts in enumerate(calls):
        facts.deltas = tuple(size for _, size in sorted(inner[index]))
        facts.made = tuple(made[index])
        facts.start, facts.end = call_ticks[index]
    deaths = _deaths(dropping, death_events, call_ticks, kept, calls)
    storage_death: list[int | None] = [None] * len(storage_bytes)
    for output, tick in deaths.items():
        storage = calls[output[0]].outputs[output[1]]
        if storage is not None:
            storage_death[storage] = tick
    return StepTrace(
        calls=calls, packs=packs, storage_bytes=storage_bytes,
        storage_maker=storage_maker, storage_alloc=storage_alloc,
        storage_free=storage_free, storage_death=storage_death, base=base,
        forward_end=forward_end, end=len(events),
        rng_bytes=torch.get_rng_state().untyped_storage().nbytes()
        if _activities(module) == [ProfilerActivity.CPU] else 0,
        before=held_before(module, inputs))


def _deaths(dropping: _Run, events, call_ticks, kept: _Run,
            calls: list[_Call]) -> dict[Output, int]:
    """When forward lets go of each saved output that the dropping run
    dropped, as a tick of the kept run: right after the op call during or
    after which it died."""
    if [c.op for c in dropping.calls] != [c.op for c in calls]:
        raise RuntimeError("the module's op calls differ between two runs")
    # address -> the saved outputs there, with the call they were saved at
    watched: dict[int, list[tuple[Output, int]]] = {}
    for output, address, at in zip(dropping.packs, dropping.pack_addresses,
                                   dropping.pack_calls):
        if output is not None and address:
            watched.setdefault(address, []).append((output, at))
    deaths: dict[Output, int] = {}
    call = -1
    for _, _, kind, payload in events:
        if kind == "call" and payload == "start":
            call += 1
        elif kind == "forward":
            break
        elif kind == "alloc" and payload[0] < 0 and payload[1] in watched:
            waiting = watched[payload[1]]
            for output, at in [w for w in waiting if w[1] <= call]:
                deaths[output] = call_ticks[call][1]
            watched[payload[1]] = [w for w in waiting if w[1] > call]
    return deaths


def allocator_peak(step: Callable[[], Any], device: str = "cpu") -> int:
    """The highest total PyTorch's allocator reaches while `step` runs,
    above what it held before (the profiler's allocation events)."""
    activities = [ProfilerActivity.CUDA if device == "cuda"
                  else ProfilerActivity.CPU]
    with profile(activities=activities, profile_memory=True) as p:
        step()
    total = top = 0
    for _, _, kind, payload in _events(p):
        if kind == "alloc":
            total += payload[0]
            top = max(top, total)
    return top
