"""Imports a PyTorch module into the ckpt dialect.

Exports the module with torch.export on example inputs, decomposes the
exported program to core ATen with a table of our own (the ops ckpt has as
one op stay one op), runs it once on the example inputs to learn every
value (and to fold what depends on neither inputs nor parameters), and
writes the forward function as ckpt-dialect MLIR whose ops carry the Python
line that made them. `torch.utils.checkpoint` calls become
`ckpt.checkpoint` regions; parameters become `{ckpt.param}` arguments whose
values are written as `.npy` files that `ckpt-run --inputs` loads.
"""

import argparse
import ast
import contextlib
import importlib.util
import inspect
import json
import linecache
import math
import operator
import os
import re
import struct
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.fx
import torch.utils.checkpoint

from .executor import SHAPE_ONLY, is_random, written as written_in_place

__all__ = ["ImportFailure", "TorchImport", "import_module", "load_model",
           "main"]

# Folded values up to this many elements are written inline as constants;
# larger ones (masks, tables) become arguments with their values on disk.
INLINE_CONSTANT_LIMIT = 1024

# torch.fx.traceback.annotate marks checkpoint regions (PyTorch 2.9).
MINIMUM_TORCH = (2, 9)

_TORCH_DIR = os.path.dirname(torch.__file__)
# This package's own frames are not the user's code.
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

aten = torch.ops.aten


class ImportFailure(Exception):
    """The module cannot be imported; the message says why and where."""


# ---------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------


def _is_user_file(path):
    """Whether `path` is the user's code: neither torch nor this package."""
    path = os.path.abspath(path)
    return not path.startswith(_TORCH_DIR) and \
        os.path.dirname(path) != _PACKAGE_DIR


def _display_path(path):
    """Paths under the working directory relative to it, as a user types
    them; others as they are."""
    relative = os.path.relpath(path) if os.path.isabs(path) else path
    return path if relative.startswith("..") else relative


_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')


def _node_location(node):
    """(file, line, column) of the innermost frame in the user's code of
    the node's stack trace. torch.export records lines, not columns: the
    column is that of the call on the line that names the node's module
    (`self.fc(`) or op (`gelu(`), else the statement's first character."""
    frames = [(m.group("file"), int(m.group("line"))) for m in
              _FRAME.finditer(node.meta.get("stack_trace") or "")]
    frames = [f for f in frames if _is_user_file(f[0])]
    if not frames:
        return None
    path, line = frames[-1]
    text = linecache.getline(path, line)
    column = len(text) - len(text.lstrip()) + 1 if text.strip() else 1
    stack = list((node.meta.get("nn_module_stack") or {}).values())
    callees = [stack[-1][0].rpartition(".")[2]] if stack else []
    if isinstance(node.target, torch._ops.OpOverload):
        callees.append(node.target._opname)
    for callee in callees:
        call = re.search(r"[\w.]*\b" + re.escape(callee) + r"\(", text)
        if callee and call:
            return (_display_path(path), line, call.start() + 1)
    return (_display_path(path), line, column)


# The arguments of torch.utils.checkpoint.checkpoint that configure it
# rather than pass to the function it checkpoints.
_CHECKPOINT_OPTIONS = ("use_reentrant", "preserve_rng_state", "context_fn",
                       "determinism_check", "debug")


class _CheckpointMarker:
    """Stands in for torch.utils.checkpoint.checkpoint while exporting:
    runs the function inline with its ops annotated as one segment (a
    nested checkpoint joins the outer one)."""

    def __init__(self):
        self.count = 0
        self.inside = False

    def __call__(self, function, *args, **kwargs):
        kwargs = {k: v for k, v in kwargs.items()
                  if k not in _CHECKPOINT_OPTIONS}
        if self.inside:
            return function(*args, **kwargs)
        self.inside = True
        self.count += 1
        try:
            with torch.fx.traceback.annotate({"ckpt_segment": self.count}):
                return function(*args, **kwargs)
        finally:
            self.inside = False


@contextlib.contextmanager
def _checkpoints_marked(module):
    """Rebinds torch.utils.checkpoint.checkpoint, also where the modules'
    files imported it by name, to a _CheckpointMarker."""
    original = torch.utils.checkpoint.checkpoint
    marker = _CheckpointMarker()
    patched = []  # (globals dict, name) rebound to the marker
    namespaces = {id(type(m).forward.__globals__): type(m).forward.__globals__
                  for m in module.modules()}
    for namespace in namespaces.values():
        for name, value in list(namespace.items()):
            if value is original:
                namespace[name] = marker
                patched.append((namespace, name))
    torch.utils.checkpoint.checkpoint = marker
    try:
        yield
    finally:
        torch.utils.checkpoint.checkpoint = original
        for namespace, name in patched:
            namespace[name] = original


# Ops ckpt has as one op: the decomposition to core ATen leaves them whole.
_KEPT_WHOLE = (
    aten.linear.default, aten.matmul.default, aten.layer_norm.default,
    aten.native_layer_norm.default, aten.rms_norm.default,
    aten._native_batch_norm_legit_functional.default,
    aten.gelu.default, aten.silu.default, aten.dropout.default,
    aten.cross_entropy_loss.default, aten.mse_loss.default,
    aten.embedding.default, aten.scaled_dot_product_attention.default,
    aten.linalg_vector_norm.default,
    aten.upsample_nearest2d.vec, aten.upsample_nearest2d.default,
    # Not ckpt ops, but named in the error listing as the user wrote them
    # rather than as the gathers they decompose to.
    aten.reflection_pad2d.default, aten.replication_pad2d.default,
)


def _decompositions():
    from torch._decomp import core_aten_decompositions
    table = core_aten_decompositions()
    for op in _KEPT_WHOLE:
        table.pop(op, None)
    return table


@contextlib.contextmanager
def _stderr_silenced():
    """Drops what is written to the standard error stream (file descriptor
    2): PyTorch logs the partial graph of an export that fails, and the
    import reports the failure itself."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 2)
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


def autocast_context(dtype):
    """CPU autocast to `dtype`, or nothing when it is None."""
    return torch.autocast("cpu", dtype=dtype) if dtype else \
        contextlib.nullcontext()


def _export(module, example_inputs, autocast=None):
    """The module's exported program, decomposed; under CPU autocast to
    `autocast` (a 16-bit dtype) when given, whose casts the decomposition
    makes explicit `_to_copy` ops."""
    if tuple(int(p) for p in re.findall(r"\d+", torch.__version__)[:2]) < \
            MINIMUM_TORCH:
        raise ImportFailure(
            f"PyTorch {torch.__version__} is too old: the importer needs "
            f"{'.'.join(map(str, MINIMUM_TORCH))} or later")
    # Exporting may run the modules' forwards, and a training-mode batch
    # norm's forward updates its running statistics in place; the import
    # leaves the module's buffers as it found them.
    buffers = [(b, b.clone()) for b in module.buffers()]
    try:
        with _checkpoints_marked(module), _stderr_silenced(), \
                torch.fx.traceback.preserve_node_meta():
            exported = torch.export.export(module, tuple(example_inputs),
                                           strict=False)
        with autocast_context(autocast):
            return exported.run_decompositions(_decompositions())
    except ImportFailure:
        raise
    except Exception as error:  # the user's code failed under export
        raise ImportFailure(_export_failure(error)) from None
    finally:
        with torch.no_grad():
            for buffer, value in buffers:
                buffer.copy_(value)


def _export_failure(error):
    frames = [f for f in inspect.getinnerframes(error.__traceback__)
              if _is_user_file(f.filename)]
    where = ""
    if frames:
        frame = frames[-1]
        source = frame.code_context[0].strip() if frame.code_context else ""
        where = f"{_display_path(frame.filename)}:{frame.lineno}: `{source}`: "
    message = (str(error) or type(error).__name__).strip().splitlines()[0]
    return (f"{where}torch.export cannot trace this: {message} (export "
            "runs forward on symbolic values, so control flow may not "
            "depend on tensor values)")


class _Recorder(torch.fx.Interpreter):
    """Runs the exported graph, keeping every node's value."""

    def __init__(self, graph_module):
        super().__init__(graph_module)
        self.recorded = {}

    def run_node(self, node):
        value = super().run_node(node)
        self.recorded[node] = value
        return value


# ---------------------------------------------------------------------------
# PyTorch's own op calls (for plans exported back to PyTorch)
# ---------------------------------------------------------------------------


# Random 64-bit weights of _digest, made in chunks each from its own seed,
# so that a weight depends on its position only.
_DIGEST_CHUNK = 1 << 16
_digest_weights = torch.empty(0, dtype=torch.int64)


def _weights(count):
    global _digest_weights
    while _digest_weights.numel() < count:
        chunk = _digest_weights.numel() // _DIGEST_CHUNK
        made = torch.randint(-2**63, 2**63 - 1, (_DIGEST_CHUNK,),
                             dtype=torch.int64,
                             generator=torch.Generator().manual_seed(chunk))
        _digest_weights = torch.cat([_digest_weights, made])
    return _digest_weights[:count]


def _digest(tensor):
    """A 64-bit digest of the elements' bits: their 8-byte words weighted
    by random 64-bit numbers and summed, wrapping (eight times as fast as
    CRC-32 and Adler-32 together; two tensors whose words differ by an odd
    number somewhere clash with a chance of 2**-64; a clash could match a
    node to another op call whose output has the same shape and type)."""
    flat = tensor.detach().contiguous().reshape(-1).view(torch.uint8)
    if flat.storage_offset() % 8:
        flat = flat.clone()
    whole = flat.numel() - flat.numel() % 8
    words = flat[:whole].view(torch.int64)
    digest = int((words * _weights(words.numel())).sum())
    return digest ^ int.from_bytes(flat[whole:].numpy().tobytes(), "little")


def _fingerprint(tensor):
    """Shape, type and a digest of the elements: equal for two tensors
    with the same values, whatever their strides."""
    return (tuple(tensor.shape), str(tensor.dtype), _digest(tensor))


def _writes_state_only(func, args, kwargs, result, written):
    """Whether the call's outputs read nothing of what it writes (the
    tensors whose ids are in `written`): it runs again with those tensors
    scrambled (NaN, or every bit flipped), and its outputs must come out
    bit for bit the same. A random op, or one whose output is what it
    writes, never does."""
    from torch.utils._pytree import tree_leaves, tree_map
    if is_random(func):
        return False
    outputs = [value for value in tree_leaves(result)
               if isinstance(value, torch.Tensor)]
    targets = {value.untyped_storage().data_ptr()
               for value in tree_leaves((args, kwargs))
               if isinstance(value, torch.Tensor) and id(value) in written}
    if any(out.untyped_storage().data_ptr() in targets for out in outputs):
        return False

    def scrambled(value):
        if not isinstance(value, torch.Tensor) or id(value) not in written:
            return value
        if value.dtype.is_floating_point or value.dtype.is_complex:
            return torch.full_like(value, float("nan"))
        return value.logical_not() if value.dtype == torch.bool \
            else value.bitwise_not()

    trial_args, trial_kwargs = tree_map(scrambled, (args, kwargs or {}))
    again = [value for value in tree_leaves(func(*trial_args, **trial_kwargs))
             if isinstance(value, torch.Tensor)]
    return len(again) == len(outputs) and all(
        torch.equal(_bits(a), _bits(b)) for a, b in zip(again, outputs))


def _bits(tensor):
    """A copy of the tensor's elements as bytes, to compare bit for bit."""
    return tensor.detach().contiguous().reshape(-1).view(torch.uint8).clone()


class _Storages:
    """Numbers the storages a recorded run touches, with their bytes and
    whether the run made them (activations) or found them (parameters,
    buffers, inputs). It keeps each alive, so no address is reused."""

    def __init__(self):
        self.ids = {}  # storage address -> number
        self.bytes = []
        self.found = []
        self.alive = []

    def number(self, tensor, found=False):
        storage = tensor.untyped_storage()
        address = storage.data_ptr()
        if address not in self.ids:
            self.ids[address] = len(self.bytes)
            self.bytes.append(storage.nbytes())
            self.alive.append(tensor)
            if found:
                self.found.append(self.ids[address])
        return self.ids[address]


class PyTorchCalls:
    """The op calls PyTorch's dispatcher makes below autograd while the
    module runs forward in training mode: what selective activation
    checkpointing sees and caches. For each call: the op (as
    `aten.addmm.default`), the storages of its tensor arguments, its
    outputs' storages and their fingerprints;
    for each module call: its path, the enclosing call, its op calls
    [first, end) and its tensor inputs' storages; the storages autograd
    saves and the module call saving each; the storages each op call
    writes in place (checkpointing cannot cache an output whose storage
    its call or a later one writes); the calls whose rerun may not repeat
    their bits. Under CPU autocast to `autocast` when given, whose casts
    are calls too."""

    def __init__(self, module, example_inputs, autocast=None):
        from torch.utils._python_dispatch import TorchDispatchMode
        from torch.utils._pytree import tree_leaves
        ignored = torch.utils.checkpoint.SAC_IGNORED_OPS
        self.storages = storages = _Storages()
        for tensor in [*module.parameters(), *module.buffers(),
                       *[t for t in example_inputs
                         if isinstance(t, torch.Tensor)]]:
            storages.number(tensor, found=True)
        self.calls = calls = []  # (op, storage per output, prints)
        self.modules = modules = []  # [path, parent, first, end, inputs]
        self.packs = packs = []  # (module call, storage)
        writes = []  # (call, storage) for each argument an op writes
        # (call, tensor argument) written where no output reads its old
        # values (running statistics): a rerun writes a scratch copy
        self.scratch = scratch = []
        self.reads = reads = []  # per call: its tensor arguments' storages
        # calls whose rerun may not repeat their bits (atomic accumulation)
        self.nondeterministic = nondeterministic = []
        stack = []
        paths = {}
        for path, child in module.named_modules(remove_duplicate=False):
            paths.setdefault(id(child), path)

        def enter(child, args, kwargs):
            inputs = [storages.number(t) for t in tree_leaves((args, kwargs))
                      if isinstance(t, torch.Tensor)]
            modules.append([paths[id(child)], stack[-1] if stack else -1,
                            len(calls), None, inputs])
            stack.append(len(modules) - 1)

        def leave(child, args, kwargs, output):
            modules[stack.pop()][3] = len(calls)

        def pack(tensor):
            packs.append((stack[-1] if stack else -1, storages.number(tensor)))
            return tensor

        class Recording(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                if func in ignored:
                    return func(*args, **kwargs)
                given = tree_leaves((args, kwargs))
                annotated = {id(given[position]) for position in
                             written_in_place(func, given, args, kwargs)}
                # Some ops write arguments their schema does not say they
                # write (native_batch_norm its running statistics): their
                # bits are compared across the call. Not those autograd
                # tracks: a write it is not told of would break gradients,
                # so no op makes one. Tensor arguments are numbered as
                # reads (below) numbers them.
                leaves = [value for value in given
                          if isinstance(value, torch.Tensor)]
                tensors = {id(value): value for value in leaves}
                before = {key: _digest(value)
                          for key, value in tensors.items()
                          if key not in annotated
                          and not value.requires_grad}
                result = func(*args, **kwargs)
                written = annotated.intersection(tensors) | {
                    key for key, digest in before.items()
                    if digest != _digest(tensors[key])}
                for key in written:
                    writes.append((len(calls), storages.number(tensors[key])))
                if written and _writes_state_only(func, args, kwargs, result,
                                                  written):
                    scratch.extend((len(calls), ordinal) for ordinal, value
                                   in enumerate(leaves)
                                   if id(value) in written)
                if torch.Tag.nondeterministic_bitwise in func.tags:
                    nondeterministic.append(len(calls))
                # A SHAPE_ONLY op's rerun reads no argument.
                reads.append([] if func in SHAPE_ONLY else
                             [storages.number(value) for value in leaves])
                numbers, prints = [], []
                for value in tree_leaves(result):
                    if isinstance(value, torch.Tensor):
                        numbers.append(storages.number(value))
                        prints.append(_fingerprint(value))
                    else:
                        numbers.append(-1)
                        prints.append(None)
                calls.append((str(func), numbers, prints))
                return result

        hooks = []
        for child in module.modules():
            hooks.append(child.register_forward_pre_hook(enter,
                                                         with_kwargs=True))
            hooks.append(child.register_forward_hook(leave, with_kwargs=True))
        try:
            with torch.enable_grad(), \
                    torch.autograd.graph.saved_tensors_hooks(pack,
                                                             lambda t: t), \
                    autocast_context(autocast), Recording():
                module(*example_inputs)
        finally:
            for hook in hooks:
                hook.remove()
        self.writes = writes
        storages.alive = []

    def match(self, graph, values, skip):
        """The call and output that make each node's value: the first
        call after the previous match whose output has the same values,
        else the same call (the parts of a split), else the nearest one
        before. Nodes whose values no call makes (the inner steps of a
        decomposition) are left out."""
        calls_by_print = {}
        for call, (_, _, prints) in enumerate(self.calls):
            for index, value_print in enumerate(prints):
                if value_print is not None:
                    calls_by_print.setdefault(value_print, []).append(
                        (call, index))
        position, matched = -1, {}
        for node in graph.nodes:
            value = values.get(node)
            if isinstance(value, (tuple, list)) and value:
                value = value[0]  # a multi-result op by its first result
            if node in skip or not isinstance(value, torch.Tensor):
                continue
            candidates = calls_by_print.get(_fingerprint(value))
            if not candidates:
                continue
            later = [c for c in candidates if c[0] > position] or \
                [c for c in candidates if c[0] == position]
            if later:
                matched[node] = later[0]
                position = later[0][0]
            else:
                matched[node] = candidates[-1]
        return matched

    def attribute(self, function_name, values):
        """The module attribute `ckpt.torch_calls` ckpt-export-torch-plan
        reads; `values` maps op names to (call, output)."""
        def ints(items):
            return f"array<i64{': ' if items else ''}" \
                f"{', '.join(str(i) for i in items)}>"
        modules = ",\n    ".join(
            f"{{path = {_mlir_string(path)}, parent = {parent} : i64, "
            f"calls = {ints([first, end])}, inputs = {ints(inputs)}}}"
            for path, parent, first, end, inputs in self.modules)
        named = ",\n    ".join(f"{_mlir_string(name)} = {ints(list(where))}"
                               for name, where in sorted(values.items()))
        return (
            f"ckpt.torch_calls = {{\n"
            f"  function = {_mlir_string(function_name)},\n"
            f"  ops = [{', '.join(_mlir_string(op) for op, _, _ in self.calls)}],\n"
            f"  outputs = [{', '.join(ints(n) for _, n, _ in self.calls)}],\n"
            f"  reads = [{', '.join(ints(r) for r in self.reads)}],\n"
            f"  storage_bytes = {ints(self.storages.bytes)},\n"
            f"  found_storages = {ints(self.storages.found)},\n"
            f"  modules = [\n    {modules}],\n"
            f"  packs = {ints([i for pack in self.packs for i in pack])},\n"
            f"  writes = {ints([i for w in self.writes for i in w])},\n"
            f"  nondeterministic = {ints(self.nondeterministic)},\n"
            f"  scratch = {ints([i for s in self.scratch for i in s])},\n"
            f"  values = {{\n    {named}}}}}")


# ---------------------------------------------------------------------------
# MLIR text
# ---------------------------------------------------------------------------

_ELEMENT_TYPES = {torch.float32: "f32", torch.float64: "f64",
                  torch.float16: "f16", torch.bfloat16: "bf16",
                  torch.int64: "i64", torch.bool: "i1"}

# The autocast dtypes of --autocast.
_AUTOCAST_DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}


def _numpy(tensor):
    """`tensor` as a NumPy array, bf16 (which NumPy lacks) as its uint16
    bits, as ckpt-run reads a bf16 .npy file."""
    tensor = tensor.detach().cpu()
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.int16).numpy().view(np.uint16)
    return tensor.numpy()


def _tensor_type(shape, dtype):
    element = _ELEMENT_TYPES[dtype]
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def _mlir_string(text):
    out = []
    for byte in text.encode("utf-8"):
        char = chr(byte)
        if char in '"\\' or not 32 <= byte < 127:
            out.append("\\%02X" % byte)
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _values(tensor):
    """`tensor`'s values as a NumPy array, bf16 widened exactly to f32 (for
    literals; _numpy keeps its bits)."""
    tensor = tensor.detach().cpu()
    if tensor.dtype == torch.bfloat16:
        tensor = tensor.float()
    return tensor.numpy()


def _float_literal(value, dtype):
    if math.isfinite(value):
        text = repr(float(value) if dtype == torch.float64 else
                    float(np.float32(value)))
        mantissa, e, exponent = text.partition("e")
        if "." not in mantissa:  # MLIR wants `1.0e-05`, not `1e-05`
            mantissa += ".0"
        return mantissa + e + exponent
    if dtype == torch.float64:
        return "0x%016X" % struct.unpack("<Q", struct.pack("<d", value))[0]
    if dtype in (torch.float16, torch.bfloat16):
        bits = torch.tensor(value, dtype=dtype).view(torch.int16).item()
        return "0x%04X" % (bits & 0xFFFF)
    return "0x%08X" % struct.unpack("<I", struct.pack("<f", value))[0]


def _dense_literal(array, dtype):
    def scalar(v):
        if dtype == torch.bool:
            return "true" if v else "false"
        if dtype == torch.int64:
            return str(int(v))
        return _float_literal(float(v), dtype)

    flat = array.reshape(-1)
    if flat.size > 0 and (flat == flat[0]).all() and not (
            dtype.is_floating_point and np.isnan(flat[0])):
        return "dense<" + scalar(flat[0]) + ">"

    def nested(a):
        if a.ndim == 0:
            return scalar(a.item())
        return "[" + ", ".join(nested(x) for x in a) + "]"

    return "dense<" + nested(array) + ">"


class _Value:
    """An SSA value: its name and tensor type."""

    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, tuple(shape), dtype

    @property
    def type(self):
        return _tensor_type(self.shape, self.dtype)


# ---------------------------------------------------------------------------
# Import
# ---------------------------------------------------------------------------


def _normalize_dim(dim, rank):
    return dim + rank if dim < 0 else dim


def _describe_target(node):
    """The op a node calls, as ATen names it: aten.cumsum.default."""
    return str(node.target)


def _schema_arguments(node):
    """An ATen node's arguments by their names in the op's schema, with
    the schema's defaults for those it leaves out."""
    values = {}
    for index, argument in enumerate(node.target._schema.arguments):
        if not argument.kwarg_only and index < len(node.args):
            values[argument.name] = node.args[index]
        elif argument.name in node.kwargs:
            values[argument.name] = node.kwargs[argument.name]
        else:
            values[argument.name] = argument.default_value \
                if argument.has_default_value() else None
    return values


def _is_random(node):
    return isinstance(node.target, torch._ops.OpOverload) and \
        torch.Tag.nondeterministic_seeded in node.target.tags


class _Unsupported(Exception):
    pass


# The value of a node that could not be imported.
_UNSUPPORTED = object()


class _Scope:
    """The function body, or a checkpoint region being written: its ops,
    its constants, and (for a region) the outside values it reads, by
    name: (outside value, block argument)."""

    def __init__(self, captures):
        self.lines, self.constant_lines = [], []
        self.constants = {}
        self.captures = captures


def graph_arguments(exported, module, example_inputs):
    """The values of the exported graph's placeholders, in order: the
    module's own parameters and buffers, the program's lifted constants and
    the example inputs."""
    inputs = iter(example_inputs)
    kinds = torch.export.graph_signature.InputKind
    values = []
    for spec in exported.graph_signature.input_specs:
        if spec.kind == kinds.PARAMETER:
            values.append(module.get_parameter(spec.target))
        elif spec.kind == kinds.BUFFER:
            values.append(module.get_buffer(spec.target))
        elif spec.kind in (kinds.CONSTANT_TENSOR, kinds.CUSTOM_OBJ):
            values.append(exported.constants[spec.target])
        else:
            values.append(next(inputs))
    return values


class TorchImport:
    """One import: the MLIR text and the values of its arguments."""

    def __init__(self, text, arguments, exported, folded, op_nodes,
                 updated_buffers):
        self.text = text
        # Names of the buffers whose updated values the function returns
        # after the loss, in order (forward results 1, 2, ...).
        self.updated_buffers = updated_buffers
        # The decomposed exported program; its node names name the MLIR
        # ops' locations.
        self.exported = exported
        self.graph_module = exported.graph_module
        # Names of the nodes folded into constants.
        self.folded = folded
        # The node each op's location names, by that name.
        self.op_nodes = op_nodes
        # [(name, kind, numpy array)] in argument order; kind is "input",
        # "parameter", "buffer" or "constant".
        self.arguments = arguments

    def write_weights(self, directory, with_inputs=False):
        """Writes argN.npy for every parameter and folded constant (and
        input, with `with_inputs`: the example values), and arguments.json
        naming every argument."""
        os.makedirs(directory, exist_ok=True)
        manifest = []
        for index, (name, kind, array) in enumerate(self.arguments):
            manifest.append(json.dumps(
                {"argument": index, "name": name, "kind": kind,
                 "shape": list(array.shape), "dtype": str(array.dtype)}))
            if kind != "input" or with_inputs:
                _atomic_write(os.path.join(directory, f"arg{index}.npy"),
                              lambda f, a=array: np.save(f, a))
        text = "[\n " + ",\n ".join(manifest) + "\n]\n"
        _atomic_write(os.path.join(directory, "arguments.json"),
                      lambda f: f.write(text.encode()))


def _atomic_write(path, write):
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=directory, suffix=".partial")
    try:
        with os.fdopen(handle, "wb") as f:
            write(f)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


class _Importer:
    def __init__(self, module, example_inputs, function_name, autocast):
        self.function_name = function_name
        self.exported = _export(module, example_inputs, autocast)
        self.graph = self.exported.graph_module.graph
        signature = self.exported.graph_signature
        # placeholder name -> (kind, name in the module)
        self.placeholders = {spec.arg.name: (spec.kind, spec.target)
                             for spec in signature.input_specs}
        recorder = _Recorder(self.exported.graph_module)
        # PyTorchCalls replays this run's random numbers.
        self.rng_state = torch.get_rng_state()
        try:
            with torch.no_grad():
                recorder.run(*graph_arguments(self.exported, module,
                                              example_inputs))
        except Exception as error:  # the program fails on these inputs
            failed = next((n for n in self.graph.nodes
                           if n.op != "placeholder" and
                           n not in recorder.recorded), None)
            location = _node_location(failed) if failed is not None else None
            where = f"{location[0]}:{location[1]}: " if location else ""
            message = (str(error) or type(error).__name__).splitlines()[0]
            raise ImportFailure(f"{where}the exported program fails on the "
                                f"example inputs: {message}") from None
        self.values = recorder.recorded
        # A shared parameter (a tied LM head) goes by its first name in the
        # module.
        named = list(module.named_parameters(remove_duplicate=False))
        self.first_names = {id(p): n for n, p in reversed(named)}
        self.module = module
        self.order = {name: i for i, name in enumerate(
            [n for n, _ in module.named_parameters(remove_duplicate=False)] +
            [n for n, _ in module.named_buffers(remove_duplicate=False)])}
        output = next(n for n in self.graph.nodes if n.op == "output")
        kinds = torch.export.graph_signature.OutputKind
        returned = list(zip(signature.output_specs, output.args[0]))
        self.results = [node for spec, node in returned
                        if spec.kind == kinds.USER_OUTPUT]
        # Updated float buffers (batch norm's running statistics) are
        # results of the step; integer ones (its batch count) are not.
        self.buffer_updates = [
            (spec.target, node) for spec, node in returned
            if spec.kind == kinds.BUFFER_MUTATION and
            self.values[node].dtype.is_floating_point]
        self.needed = self._find_needed(
            self.results + [node for _, node in self.buffer_updates])
        self.constant = self._find_constants()
        self.locations = {n: _node_location(n) for n in self.graph.nodes}
        self.leaf_modules = {path for path, m in module.named_modules()
                             if path and not any(True for _ in m.children())}
        self.op_names = {}  # node -> the name its ops and location carry
        # Transposed matrices that matrix products read as weights (their
        # value here is the matrix untransposed: _matmul).
        self.weight_transposes = set()
        # (_Value, kind, array, attributes, name in the module)
        self.arguments = []
        self.env = {}  # node -> _Value or list of _Value
        self.names = set()
        self.argument_values = {}  # placeholder -> _Value
        self.constant_arguments = {}  # folded value -> _Value
        self.scope = _Scope(captures=None)
        self.unsupported = []

    def _find_needed(self, results):
        """The nodes the results are computed from."""
        needed, stack = set(), [r for r in results
                                if isinstance(r, torch.fx.Node)]
        while stack:
            node = stack.pop()
            if node not in needed:
                needed.add(node)
                stack.extend(node.all_input_nodes)
        return needed

    def _find_constants(self):
        """Nodes that depend on neither inputs nor parameters; buffers
        (masks, tables) are constants."""
        constant = {}
        kinds = torch.export.graph_signature.InputKind
        for node in self.graph.nodes:
            if node.op == "placeholder":
                constant[node] = self.placeholders[node.name][0] not in (
                    kinds.USER_INPUT, kinds.PARAMETER)
            elif node.op == "output":
                constant[node] = False
            elif node.target in SHAPE_ONLY:
                # Its value depends on its operand's shape only: a
                # constant even when the operand is computed.
                constant[node] = True
            else:
                # Random ops are never folded: each run draws anew.
                constant[node] = not _is_random(node) and all(
                    constant[i] for i in node.all_input_nodes)
        return constant

    # -- names and locations -------------------------------------------------

    def _fresh(self, base):
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in base)
        if not base or base[0].isdigit():
            base = "v" + base
        name, counter = base, 0
        while name in self.names:
            counter += 1
            name = f"{base}_{counter}"
        self.names.add(name)
        return name

    def _op_name(self, node):
        """The name of a node's ops: the module's path for an op of a leaf
        module (`blocks_0_fc`), else the node's own (`add_3`)."""
        if node not in self.op_names:
            stack = list((node.meta.get("nn_module_stack") or {}).values())
            path = stack[-1][0] if stack else ""
            self.op_names[node] = self._fresh(
                path if path in self.leaf_modules else node.name)
        return self.op_names[node]

    def _loc(self, node):
        location = self.locations.get(node)
        name = _mlir_string(self._op_name(node))
        if location is None:
            return f"loc({name})"
        path, line, column = location
        return f"loc({name}({_mlir_string(path)}:{line}:{column}))"

    # -- operands ------------------------------------------------------------

    def _operand(self, arg, like=None):
        """The _Value of a node argument: a computed tensor, a parameter, a
        folded constant, or a Python number (as a scalar of `like`'s
        type)."""
        if isinstance(arg, torch.fx.Node):
            if self.constant[arg]:
                return self._constant(self.values[arg], arg.name)
            if arg.op == "placeholder":
                return self._placeholder(arg)
            value = self.env[arg]
            if isinstance(value, list):
                raise _Unsupported("a tuple used as a tensor")
            return value
        if isinstance(arg, (int, float, bool)) and like is not None:
            dtype = like.dtype if like.dtype.is_floating_point else torch.float32
            return self._constant(torch.tensor(arg, dtype=dtype), "cst")
        raise _Unsupported(f"operand {arg!r}")

    def _constant(self, tensor, name):
        if not isinstance(tensor, torch.Tensor):
            raise _Unsupported(f"non-tensor value {tensor!r} used as a tensor")
        if tensor.dtype not in _ELEMENT_TYPES:
            raise _Unsupported(f"element type {tensor.dtype}")
        array = _numpy(tensor)
        key = (array.dtype.str, array.shape, array.tobytes())
        flat = array.reshape(-1)
        if array.size > INLINE_CONSTANT_LIMIT and not (flat == flat[0]).all():
            if key not in self.constant_arguments:
                self.constant_arguments[key] = self._argument(
                    name, array, tensor.dtype, "constant")
            return self._local(self.constant_arguments[key])
        # Written where used: a checkpoint region cannot see the function's.
        if key not in self.scope.constants:
            value = _Value(self._fresh(name), array.shape, tensor.dtype)
            self.scope.constant_lines.append(
                f"%{value.name} = arith.constant "
                f"{_dense_literal(_values(tensor), tensor.dtype)} : "
                f"{value.type}")
            self.scope.constants[key] = value
        return self.scope.constants[key]

    def _argument(self, name, array, dtype, kind, attributes=""):
        value = _Value(self._fresh(name), array.shape, dtype)
        self.arguments.append((value, kind, array, attributes, name))
        return value

    def _placeholder(self, node):
        """The argument of an input, a parameter, or a buffer the step
        updates (batch norm's running statistics: an argument without
        {ckpt.param}, as it needs no gradient), made on first use."""
        if node not in self.argument_values:
            kind, target = self.placeholders[node.name]
            kinds = torch.export.graph_signature.InputKind
            value = self.values[node]
            if kind == kinds.PARAMETER:
                name = self.first_names[id(self.module.get_parameter(target))]
                made = (name, _numpy(value), "parameter", " {ckpt.param}")
            elif kind == kinds.BUFFER:
                # A copy: training the module later updates the buffer in
                # place, and the arguments must hold the values it was
                # imported with.
                made = (target, _numpy(value).copy(), "buffer", "")
            else:
                made = (node.name, _numpy(value), "input", "")
            name, array, kind_name, attributes = made
            self.argument_values[node] = self._argument(
                name, array, value.dtype, kind_name, attributes)
        return self._local(self.argument_values[node])

    def _buffer(self, arg):
        """A value the step reads and updates: the buffer's argument, or
        the value an earlier op updated it to."""
        if isinstance(arg, torch.fx.Node) and arg.op == "placeholder":
            return self._placeholder(arg)
        return self._operand(arg)

    def _local(self, value):
        """`value` (defined in the function body) as seen from the current
        scope: inside a checkpoint region, through a block argument."""
        if self.scope.captures is None:
            return value
        if value.name not in self.scope.captures:
            self.scope.captures[value.name] = (value, _Value(
                self._fresh("in_" + value.name.replace("#", "_")),
                value.shape, value.dtype))
        return self.scope.captures[value.name][1]

    # -- emitting --------------------------------------------------------------

    def _emit(self, node, text, results=1, dtype=None, shapes=None):
        """Writes `%name = text loc(...)`; returns the result _Value(s).
        `dtype` is every result's element type, or a list of one per
        result."""
        if shapes is None:
            value = self.values[node]
            shapes = [tuple(value.shape)]
            dtype = value.dtype
        dtypes = dtype if isinstance(dtype, list) else [dtype] * len(shapes)
        name = self._op_name(node) if node not in self.op_names else \
            self._fresh(self.op_names[node])
        values = [_Value(name if results == 1 else f"{name}#{i}", shape,
                         element)
                  for i, (shape, element) in enumerate(zip(shapes, dtypes))]
        lhs = f"%{name}" if results == 1 else f"%{name}:{results}"
        self.scope.lines.append(f"{lhs} = {text} {self._loc(node)}")
        return values[0] if results == 1 else values

    def _result_type(self, node):
        value = self.values[node]
        return _tensor_type(value.shape, value.dtype)

    def import_(self):
        kinds = torch.export.graph_signature.InputKind
        for node in self.graph.nodes:
            if node.op == "placeholder" and \
                    self.placeholders[node.name][0] == kinds.USER_INPUT:
                value = self.values[node]
                if not isinstance(value, torch.Tensor) or \
                        value.dtype not in _ELEMENT_TYPES:
                    raise ImportFailure(
                        f"input '{node.name}' must be a tensor of "
                        f"float32, float64, float16, bfloat16, int64 or "
                        f"bool")
                self.env[node] = self._placeholder(node)
        values = [self.values.get(r) if isinstance(r, torch.fx.Node) else r
                  for r in self.results]
        if len(values) != 1 or not isinstance(values[0], torch.Tensor) or \
                values[0].dim() != 0 or not values[0].dtype.is_floating_point:
            what = (f"a tensor of shape {tuple(values[0].shape)}"
                    if len(values) == 1 and isinstance(values[0], torch.Tensor)
                    else f"{len(values)} values" if len(values) != 1
                    else type(values[0]).__name__)
            raise ImportFailure(
                "forward must return the scalar loss (a 0-d float tensor) "
                "the training step differentiates; it returns " + what)
        # Inputs keep their order; parameters and folded constants follow
        # in order of first use.
        self._emit_nodes([n for n in self.graph.nodes
                          if n.op not in ("placeholder", "output")
                          and n in self.needed])
        if self.unsupported:
            listing = "\n".join(f"  {where}: {what}"
                                for where, what in self.unsupported)
            raise ImportFailure(
                f"{len(self.unsupported)} operation(s) have no ckpt "
                f"equivalent yet:\n{listing}")
        loss = self._operand(self.results[0])
        # The buffers' updated values follow the loss.
        returned = [loss] + [self._operand(node)
                             for _, node in self.buffer_updates]
        # Inputs, then parameters and buffers in the module's order, then
        # folded constants.
        order = ("input", "parameter", "buffer", "constant")
        self.arguments.sort(key=lambda a: (order.index(a[1]),
                                           self.order.get(a[4], 0)))
        # Each argument's location is its name in the module (the
        # parameter's qualified name), which the report prints.
        arguments = ",\n    ".join(
            f"%{v.name}: {v.type}{attributes} loc({_mlir_string(source)})"
            for v, _, _, attributes, source in self.arguments)
        body = "\n  ".join(self.scope.constant_lines + self.scope.lines)
        types = ", ".join(v.type for v in returned)
        text = (f"// Imported from PyTorch by ckpt-import-torch.\n"
                f"func.func @{self.function_name}(\n    {arguments})\n"
                f"    -> {f'({types})' if len(returned) > 1 else types} {{\n"
                f"  {body}\n"
                f"  return {', '.join('%' + v.name for v in returned)} : "
                f"{types}\n}}\n")
        return TorchImport(text, [(source, kind, array) for
                                  _, kind, array, _, source in self.arguments],
                           self.exported,
                           {n.name for n, folded in self.constant.items()
                            if folded},
                           {name: n for n, name in self.op_names.items()},
                           [name for name, _ in self.buffer_updates])

    def _emit_nodes(self, nodes):
        index = 0
        while index < len(nodes):
            node = nodes[index]
            segment = _segment(node)
            if segment is None:
                self._emit_node(node)
                index += 1
                continue
            end = index
            while end < len(nodes) and _segment(nodes[end]) == segment:
                end += 1
            self._emit_segment(nodes[index:end])
            index = end

    def _emit_node(self, node):
        if self.constant[node]:
            return
        try:
            # An op that reads an unsupported op's value is reported only
            # when it has no equivalent itself.
            if any(self._known(i) is _UNSUPPORTED
                   for i in node.all_input_nodes):
                self.env[node] = _UNSUPPORTED
                self._converter(node)
                return
            convert = self._converter(node)
            arguments = _schema_arguments(node) \
                if isinstance(node.target, torch._ops.OpOverload) else None
            self.env[node] = convert(self, node, arguments)
        except _Unsupported as why:
            location = self.locations.get(node)
            where = f"{location[0]}:{location[1]}" if location else "?"
            self.unsupported.append(
                (where, f"{_describe_target(node)}: {why}"
                 if str(why) else _describe_target(node)))
            self.env[node] = _UNSUPPORTED

    def _known(self, node):
        try:
            return self.env[node]
        except KeyError:  # a folded constant, or an argument
            return None

    def _emit_segment(self, nodes):
        """One checkpoint call: a ckpt.checkpoint region whose block
        arguments are the values it reads from outside (inputs,
        parameters, large constants) and whose results are the values
        read after it (and the buffers it updates)."""
        inside = set(nodes)
        outputs = [n for n in nodes if not self.constant[n]
                   and any(u not in inside for u in n.users)]
        if not outputs:
            return
        outer, outer_env = self.scope, self.env
        self.scope = _Scope(captures={})

        class RegionEnv(dict):
            def __missing__(env, node):
                value = outer_env[node]
                if value is _UNSUPPORTED:
                    return value
                if isinstance(value, list):
                    return [self._local(v) for v in value]
                return self._local(value)

        self.env = RegionEnv()
        try:
            for node in nodes:
                self._emit_node(node)
            results = [self.env[n] for n in outputs]
        finally:
            region, self.scope, self.env = self.scope, outer, outer_env
        if any(value is _UNSUPPORTED for value in results):
            for node in outputs:
                self.env[node] = _UNSUPPORTED
            return
        flat = [v for value in results
                for v in (value if isinstance(value, list) else [value])]
        captured = list(region.captures.values())
        operands = ", ".join(f"%{inner.name} = %{self._local(value).name}"
                             for value, inner in captured)
        operand_types = ", ".join(value.type for value, _ in captured)
        result_types = ", ".join(v.type for v in flat)
        name = self._fresh("checkpoint")
        lhs = f"%{name}"
        if len(flat) != 1:
            result_types, lhs = f"({result_types})", f"%{name}:{len(flat)}"
        body = "\n    ".join(region.constant_lines + region.lines)
        self.scope.lines.append(
            f"{lhs} = ckpt.checkpoint({operands}) : ({operand_types}) -> "
            f"{result_types} {{\n    {body}\n    ckpt.yield "
            f"{', '.join('%' + v.name for v in flat)} : "
            f"{', '.join(v.type for v in flat)}\n  }} {self._loc(nodes[0])}")
        made = iter(_Value(name if len(flat) == 1 else f"{name}#{i}",
                           v.shape, v.dtype) for i, v in enumerate(flat))
        for node, value in zip(outputs, results):
            self.env[node] = [next(made) for _ in value] \
                if isinstance(value, list) else next(made)

    # -- op conversion -------------------------------------------------------

    def _converter(self, node):
        """The function that writes `node`'s ops."""
        convert = _CONVERTERS.get(node.target)
        if convert is None:
            raise _Unsupported("")
        return convert

    def static(self, value):
        """A non-tensor argument's value (folded when exported)."""
        if isinstance(value, torch.fx.Node):
            if not self.constant[value]:
                raise _Unsupported(f"'{value.name}' must not depend on inputs")
            return self.values[value]
        if isinstance(value, (list, tuple)):
            return type(value)(self.static(v) for v in value)
        return value


def _segment(node):
    """The checkpoint call the node was exported in, if any."""
    return (node.meta.get("custom") or {}).get("ckpt_segment")


# -- converters ----------------------------------------------------------------
# Each takes the importer, the node and its arguments by schema name, and
# returns the node's _Value (or list of them, for ops with several results).


def _unary(mnemonic):
    def convert(self, node, a):
        x = self._operand(a["self"])
        if not x.dtype.is_floating_point:
            raise _Unsupported("integer operand")
        return self._emit(node, f"ckpt.{mnemonic} %{x.name} : {x.type}")
    return convert


def _gelu(self, node, a):
    x = self._operand(a["self"])
    suffix = " approximate = tanh" if a["approximate"] == "tanh" else ""
    return self._emit(node, f"ckpt.gelu %{x.name}{suffix} : {x.type}")


def _binary_op(self, node, mnemonic, a, b):
    # Either side may be a Python number (`2 - x` is rsub(x, 2)), in the
    # result's type.
    result_value = self.values[node]
    dtype = result_value.dtype

    def operand(arg):
        # Operands of two float types compute in the wider, as PyTorch
        # promotes them (OLMo's float32 rotary tables on float64
        # queries); a constant promoted is a constant still.
        if isinstance(arg, torch.fx.Node) and self.constant[arg] and \
                self.values[arg].dtype.is_floating_point:
            return self._constant(self.values[arg].to(dtype), arg.name)
        value = self._operand(arg, result_value)
        if not value.dtype.is_floating_point:
            raise _Unsupported("integer tensors")
        return _cast_op(self, node, value, dtype)

    lhs, rhs = operand(a), operand(b)
    result = self._result_type(node)
    if lhs.type == rhs.type == result:
        types = lhs.type
    else:
        types = f"({lhs.type}, {rhs.type}) -> {result}"
    return self._emit(node, f"ckpt.{mnemonic} %{lhs.name}, %{rhs.name} : "
                            f"{types}")


# The ATen ops _binary converts whose operands are both tensors: they
# broadcast with NumPy's rules.
_BROADCASTING = {aten.add.Tensor, aten.sub.Tensor, aten.rsub.Tensor,
                 aten.mul.Tensor, aten.div.Tensor}


def _binary(mnemonic, reflected=False):
    def convert(self, node, a):
        if a.get("alpha", 1) != 1:
            raise _Unsupported("alpha")
        lhs, rhs = (a["other"], a["self"]) if reflected else \
            (a["self"], a["other"])
        return _binary_op(self, node, mnemonic, lhs, rhs)
    return convert


def _pow(self, node, a):
    exponent = self.static(a["exponent"])
    x = self._operand(a["self"])
    if exponent == 2:
        return self._emit(node, f"ckpt.mul %{x.name}, %{x.name} : {x.type}")
    return self._emit(node, f"ckpt.pow %{x.name} exponent = "
                            f"{_float_literal(exponent, torch.float64)} : "
                            f"{x.type}")


def _clamp(low, high):
    """clamp(self, min, max) and the like: `low` and `high` name the
    bounds' arguments (None: the op has no such bound)."""
    def convert(self, node, a):
        x = self._operand(a["self"])
        if not x.dtype.is_floating_point:
            raise _Unsupported("integer operand")
        text = f"ckpt.clamp %{x.name}"
        for name, argument in (("min", low), ("max", high)):
            bound = self.static(a[argument]) if argument else None
            if isinstance(bound, torch.Tensor):
                raise _Unsupported(f"a tensor as the {name} bound")
            if bound is not None:
                text += f" {name} = {_float_literal(bound, torch.float64)}"
        return self._emit(node, f"{text} : {x.type}")
    return convert


def _softmax(mnemonic):
    def convert(self, node, a):
        x = self._operand(a["self"])
        dim = _normalize_dim(a["dim"], len(x.shape))
        return self._emit(node, f"ckpt.{mnemonic} %{x.name} dim = {dim} : "
                                f"{x.type}")
    return convert


def _linear(self, node, a):
    x, weight = self._operand(a["input"]), self._operand(a["weight"])
    bias = self._operand(a["bias"]) if a["bias"] is not None else None
    operands = [x, weight] + ([bias] if bias is not None else [])
    names = ", ".join(f"%{v.name}" for v in operands)
    types = ", ".join(v.type for v in operands)
    return self._emit(node, f"ckpt.linear {names} : ({types}) -> "
                            f"{self._result_type(node)}")


def _matmul_op(self, node, lhs, rhs, shape):
    if len(lhs.shape) < 2 or len(rhs.shape) < 2:
        raise _Unsupported("operands of rank below 2")
    return self._emit(node, f"ckpt.matmul %{lhs.name}, %{rhs.name} : "
                            f"({lhs.type}, {rhs.type}) -> "
                            f"{_tensor_type(shape, lhs.dtype)}",
                      dtype=lhs.dtype, shapes=[shape])


def _matmul(self, node, a):
    rhs_node = a["other" if "other" in a else "mat2"]
    lhs, rhs = self._operand(a["self"]), self._operand(rhs_node)
    if rhs_node in self.weight_transposes:
        # rhs is the matrix untransposed (_permute_node): x @ W.T.
        return self._emit(node, f"ckpt.linear %{lhs.name}, %{rhs.name} : "
                                f"({lhs.type}, {rhs.type}) -> "
                                f"{self._result_type(node)}")
    return _matmul_op(self, node, lhs, rhs, tuple(self.values[node].shape))


# The matrix products _matmul converts.
_MATRIX_PRODUCTS = {aten.matmul.default, aten.mm.default}


def _addmm(self, node, a):
    if self.static(a["beta"]) != 1 or self.static(a["alpha"]) != 1:
        raise _Unsupported("beta or alpha other than 1")
    lhs, rhs = self._operand(a["mat1"]), self._operand(a["mat2"])
    product = _matmul_op(self, node, lhs, rhs, tuple(self.values[node].shape))
    bias = self._operand(a["self"])
    types = product.type if bias.type == product.type else \
        f"({product.type}, {bias.type}) -> {product.type}"
    return self._emit(node, f"ckpt.add %{product.name}, %{bias.name} : "
                            f"{types}")


def _stats_shape(x, normalized):
    return tuple(x.shape[:len(x.shape) - len(normalized)]) + \
        (1,) * len(normalized)


def _layer_norm_op(self, node, a):
    x = self._operand(a["input"])
    shape = tuple(self.static(a["normalized_shape"]))
    weight = self._operand(a["weight"]) if a["weight"] is not None else None
    bias = self._operand(a["bias"]) if a["bias"] is not None else None
    operands = [x] + [v for v in (weight, bias) if v is not None]
    text = f"ckpt.layer_norm %{x.name}"
    if weight is not None:
        text += f" weight %{weight.name}"
    if bias is not None:
        text += f" bias %{bias.name}"
    stats = _stats_shape(x, shape)
    stats_type = _tensor_type(stats, x.dtype)
    text += (f" normalized_shape = [{', '.join(map(str, shape))}]"
             f" eps = {_float_literal(a['eps'], torch.float64)} : "
             f"({', '.join(v.type for v in operands)}) -> "
             f"({x.type}, {stats_type}, {stats_type})")
    return self._emit(node, text, results=3, dtype=x.dtype,
                      shapes=[x.shape, stats, stats])


def _layer_norm(self, node, a):
    return _layer_norm_op(self, node, a)[0]


def _rms_norm(self, node, a):
    x = self._operand(a["input"])
    shape = tuple(self.static(a["normalized_shape"]))
    weight = self._operand(a["weight"]) if a["weight"] is not None else None
    eps = a["eps"] if a["eps"] is not None else torch.finfo(x.dtype).eps
    stats = _stats_shape(x, shape)
    operands = [x] + ([weight] if weight is not None else [])
    text = f"ckpt.rms_norm %{x.name}" + \
        (f" weight %{weight.name}" if weight is not None else "") + \
        (f" normalized_shape = [{', '.join(map(str, shape))}]"
         f" eps = {_float_literal(eps, torch.float64)} : "
         f"({', '.join(v.type for v in operands)}) -> "
         f"({x.type}, {_tensor_type(stats, x.dtype)})")
    return self._emit(node, text, results=2, dtype=x.dtype,
                      shapes=[x.shape, stats])[0]


def _scaled_dot_product_attention(self, node, a):
    q, k, v = (self._operand(a[name]) for name in ("query", "key", "value"))
    if any(len(x.shape) != 4 for x in (q, k, v)):
        raise _Unsupported("attention on tensors of rank other than 4 "
                           "([batch, heads, sequence, features])")
    operands = [q, k, v]
    text = f"ckpt.scaled_dot_product_attention %{q.name}, %{k.name}, %{v.name}"
    mask = a["attn_mask"]
    if mask is not None:
        if isinstance(mask, torch.fx.Node) and \
                self.values[mask].dtype == torch.bool:
            # True takes part: the additive mask is 0 there and -inf
            # elsewhere.
            if not self.constant[mask]:
                raise _Unsupported("a boolean attention mask computed from "
                                   "the inputs (a constant one, or a float "
                                   "mask, imports)")
            keep = self.values[mask]
            additive = torch.zeros(keep.shape, dtype=q.dtype).masked_fill(
                ~keep, float("-inf"))
            mask_value = self._constant(additive, "mask")
        else:
            mask_value = self._operand(mask)
        operands.append(mask_value)
        text += f" mask %{mask_value.name}"
    if self.static(a["is_causal"]):
        text += " causal"
    scale = self.static(a["scale"])
    if scale is None:
        scale = 1 / math.sqrt(q.shape[-1])
    text += f" scale = {_float_literal(scale, torch.float64)}"
    p = self.static(a["dropout_p"])
    if p:
        text += f" p = {_float_literal(p, torch.float64)}"
    output = q.shape[:3] + v.shape[3:]
    text += (f" : ({', '.join(x.type for x in operands)}) -> "
             f"({_tensor_type(output, q.dtype)}, "
             f"{_tensor_type(q.shape[:3], q.dtype)})")
    return self._emit(node, text, results=2, dtype=q.dtype,
                      shapes=[output, q.shape[:3]])[0]


def _require_images(x):
    if len(x.shape) != 4:
        raise _Unsupported(f"a rank-{len(x.shape)} input (only batched "
                           "images, [N, C, H, W])")


def _batch_norm(self, node, a):
    if not a["training"]:
        raise _Unsupported("batch norm in eval mode")
    x = self._operand(a["input"])
    _require_images(x)
    operands = [x]
    text = f"ckpt.batch_norm %{x.name}"
    if a["weight"] is not None:
        weight, bias = self._operand(a["weight"]), self._operand(a["bias"])
        operands += [weight, bias]
        text += f" weight %{weight.name} bias %{bias.name}"
    channels = (x.shape[1],)
    statistic = _tensor_type(channels, x.dtype)
    # The batch mean and reciprocal standard deviation are what the
    # gradient reads.
    results = self._emit(
        node, text + _attributes(("eps", self.static(a["eps"]), 1e-5)) +
              f" : ({', '.join(v.type for v in operands)}) -> "
              f"({x.type}, {statistic}, {statistic})",
        results=3, dtype=x.dtype, shapes=[x.shape, channels, channels])
    if "running_mean" not in a:
        return results  # track_running_stats=False: nothing to update
    # The updated running statistics are results (the step does not mutate
    # its arguments), made from the batch mean by an op of their own.
    mean = results[1]
    running = [self._buffer(a["running_mean"]),
               self._buffer(a["running_var"])]
    return results + self._emit(
        node, f"ckpt.batch_norm_update_stats %{x.name}, %{mean.name} "
              f"running_mean %{running[0].name} "
              f"running_var %{running[1].name}" +
              _attributes(("momentum", self.static(a["momentum"]), 0.1)) +
              f" : ({x.type}, {statistic}, {statistic}, {statistic}) -> "
              f"({statistic}, {statistic})",
        results=2, dtype=x.dtype, shapes=[channels, channels])


def _dropout(self, node, a):
    x = self._operand(a["input"])
    p = self.static(a["p"])
    if not self.static(a["train"]) or p == 0:
        return x
    return self._emit(node, f"ckpt.dropout %{x.name} p = "
                            f"{_float_literal(p, torch.float64)} : {x.type}",
                      dtype=x.dtype, shapes=[x.shape])


def _native_dropout(self, node, a):
    # The mask, its second result, is not a value of ours: ckpt.dropout
    # regenerates it from the Philox counters.
    return [_dropout(self, node, a), None]


def _bernoulli(self, node, a):
    # Draws of probability p in the shape of `self` (whose values do not
    # matter): in-place dropout and stochastic depth draw their masks so.
    # dropout(ones, 1 - p) is 1 / p with probability p and 0 otherwise,
    # from the Philox stream ckpt.dropout replays.
    p = self.static(a["p"])
    value = self.values[node]
    if not value.dtype.is_floating_point:
        raise _Unsupported("integer draws")
    shape, dtype = tuple(value.shape), value.dtype
    if p == 0:
        return self._constant(torch.zeros(shape, dtype=dtype), "zeros")
    ones = self._constant(torch.ones(shape, dtype=dtype), "ones")
    if p == 1:
        return ones
    scaled = self._emit(node, f"ckpt.dropout %{ones.name} p = "
                              f"{_float_literal(1 - p, torch.float64)} : "
                              f"{ones.type}", dtype=dtype, shapes=[shape])
    keep = self._constant(torch.tensor(p, dtype=dtype), "cst")
    return self._emit(node, f"ckpt.mul %{scaled.name}, %{keep.name} : "
                            f"({scaled.type}, {keep.type}) -> {scaled.type}",
                      dtype=dtype, shapes=[shape])


def _embedding(self, node, a):
    if self.static(a["scale_grad_by_freq"]) or self.static(a["sparse"]):
        raise _Unsupported("scale_grad_by_freq and sparse")
    indices, weight = self._operand(a["indices"]), self._operand(a["weight"])
    # ATen's "no padding row" is -1; nn.Embedding makes others positive.
    padding = self.static(a["padding_idx"])
    padding = f" padding_idx = {padding}" if padding >= 0 else ""
    return self._emit(node, f"ckpt.embedding %{indices.name}, "
                            f"%{weight.name}{padding} : ({indices.type}, "
                            f"{weight.type}) -> {self._result_type(node)}")


def _gather_rows(self, node, table, indices):
    """table[indices] along the first dimension: an embedding lookup of the
    table as rows (relative position bias tables are read so)."""
    if indices.dtype != torch.int64:
        raise _Unsupported("indices that are not int64")
    rest = tuple(table.shape[1:])
    rows = (table.shape[0], math.prod(rest))
    if tuple(table.shape) != rows:
        table = self._emit(node, f"ckpt.reshape %{table.name} : {table.type} "
                                 f"-> {_tensor_type(rows, table.dtype)}",
                           dtype=table.dtype, shapes=[rows])
    shape = tuple(indices.shape) + rows[1:]
    gathered = self._emit(node, f"ckpt.embedding %{indices.name}, "
                                f"%{table.name} : ({indices.type}, "
                                f"{table.type}) -> "
                                f"{_tensor_type(shape, table.dtype)}",
                          dtype=table.dtype, shapes=[shape])
    result = tuple(indices.shape) + rest
    if shape == result:
        return gathered
    return self._emit(node, f"ckpt.reshape %{gathered.name} : "
                            f"{gathered.type} -> "
                            f"{_tensor_type(result, table.dtype)}",
                      dtype=table.dtype, shapes=[result])


def _index(self, node, a):
    # One index tensor, on any dimension (x[..., index, ...]): that
    # dimension's rows gathered, moved to the front and back (the index's
    # dimensions where the indexed one was).
    indices = list(a["indices"])
    given = [d for d, index in enumerate(indices) if index is not None]
    if len(given) != 1:
        raise _Unsupported("indices other than one tensor")
    x = self._operand(a["self"])
    dim = given[0]
    index = indices[dim]
    if self.constant[index] and (self.values[index] < 0).any():
        # A constant index counting from the end (falcon's qkv[..., [-2]]).
        index = self._constant(self.values[index] % x.shape[dim], "index")
    else:
        index = self._operand(index)
    order = [dim] + [d for d in range(len(x.shape)) if d != dim]
    gathered = _gather_rows(self, node, _permute_op(self, node, x, order),
                            index)
    k = len(index.shape)
    back = list(range(k, k + dim)) + list(range(k)) + \
        list(range(k + dim, len(gathered.shape)))
    return _permute_op(self, node, gathered, back)


def _index_select(self, node, a):
    # Along another dimension: moved to the front and back.
    x = self._operand(a["self"])
    dim = _normalize_dim(self.static(a["dim"]), len(x.shape))
    order = [dim] + [d for d in range(len(x.shape)) if d != dim]
    front = _permute_op(self, node, x, order)
    gathered = _gather_rows(self, node, front, self._operand(a["index"]))
    back = [order.index(d) for d in range(len(order))]
    return _permute_op(self, node, gathered, back)


def _reshape_op(self, node, x, shape):
    if tuple(shape) == tuple(x.shape):
        return x
    return self._emit(node, f"ckpt.reshape %{x.name} : {x.type} -> "
                            f"{_tensor_type(shape, x.dtype)}",
                      dtype=x.dtype, shapes=[tuple(shape)])


def _reshape(self, node, a):
    return _reshape_op(self, node, self._operand(a["self"]),
                       self.values[node].shape)


def _identity(self, node, a):
    return self._operand(a["self"])


def _copy(self, node, a):
    # copy(self, src) is src's values in self's shape: what an in-place
    # assignment functionalizes to.
    src = self._operand(a["src"])
    result = self._result_type(node)
    if src.dtype != self.values[node].dtype:
        raise _Unsupported("a change of element type")
    if src.type == result:
        return src
    return self._emit(node, f"ckpt.broadcast_to %{src.name} : {src.type} -> "
                            f"{result}")


def _as_strided(self, node, a):
    # Only as the identity: the operand's shape with its row-major strides
    # (any stride on a dimension of size 1), as adaptive pooling of a 1x1
    # image decomposes.
    x = self._operand(a["self"])
    size, stride = list(self.static(a["size"])), list(self.static(a["stride"]))
    row_major = [math.prod(x.shape[i + 1:]) for i in range(len(x.shape))]
    if size != list(x.shape) or self.static(a["storage_offset"]) or any(
            d != 1 and s != r for d, s, r in zip(size, stride, row_major)):
        raise _Unsupported("strides other than the operand's own")
    return x


def _cast_op(self, node, x, dtype):
    """x in `dtype`, both floating-point types."""
    if dtype == x.dtype:
        return x
    if not (dtype.is_floating_point and x.dtype.is_floating_point) or \
            dtype not in _ELEMENT_TYPES:
        raise _Unsupported(f"a change of element type from {x.dtype} to "
                           f"{dtype}")
    return self._emit(node, f"ckpt.cast %{x.name} : {x.type} -> "
                            f"{_tensor_type(x.shape, dtype)}",
                      dtype=dtype, shapes=[x.shape])


def _to_copy(self, node, a):
    # transformers' losses upcast the logits (.float()), whatever they are.
    return _cast_op(self, node, self._operand(a["self"]),
                    self.values[node].dtype)


def _permute_op(self, node, x, permutation):
    shape = tuple(x.shape[p] for p in permutation)
    # Moving only dimensions of size 1 keeps the elements' order: a view
    # (matmul's decomposition makes such permutations around a bmm).
    moved = [p for p in permutation if x.shape[p] != 1]
    if moved == sorted(moved):
        return _reshape_op(self, node, x, shape)
    return self._emit(node, f"ckpt.transpose %{x.name} permutation = "
                            f"[{', '.join(map(str, permutation))}] : "
                            f"{x.type} -> {_tensor_type(shape, x.dtype)}",
                      dtype=x.dtype, shapes=[shape])


def _permute_node(self, node, x, permutation):
    # A transposed matrix that only matrix products read, as their right
    # operand, stays as it is: they read it as a linear layer's weight
    # (x @ W.T is linear(x, W)), so no transposed copy is made or saved.
    if permutation == [1, 0] and node.users and all(
            user.target in _MATRIX_PRODUCTS and user.args[1] is node and
            user.args[0] is not node for user in node.users):
        self.weight_transposes.add(node)
        return x
    return _permute_op(self, node, x, permutation)


def _transpose(self, node, a):
    x = self._operand(a["self"])
    rank = len(x.shape)
    first, second = (_normalize_dim(self.static(a[d]), rank)
                     for d in ("dim0", "dim1"))
    permutation = list(range(rank))
    permutation[first], permutation[second] = second, first
    return _permute_node(self, node, x, permutation)


def _t(self, node, a):
    x = self._operand(a["self"])
    return _permute_node(self, node, x, list(reversed(range(len(x.shape)))))


def _permute(self, node, a):
    x = self._operand(a["self"])
    return _permute_node(self, node, x, [_normalize_dim(d, len(x.shape))
                                         for d in self.static(a["dims"])])


def _broadcasts_itself(self, user, expanded, shape):
    """Whether `user` is an elementwise op that gives the same result with
    `expanded` (an expand of a tensor of `shape`) unexpanded, and with its
    other operand unexpanded too where that is an expand."""
    if user.target not in _BROADCASTING:
        return False

    def unexpanded(arg):
        if arg is expanded:
            return shape
        if not isinstance(arg, torch.fx.Node):
            return ()
        if arg.target == aten.expand.default:
            arg = arg.args[0]
        return tuple(self.values[arg].shape)

    return torch.broadcast_shapes(*map(unexpanded, user.args[:2])) == \
        tuple(self.values[user].shape)


def _expand(self, node, a):
    x = self._operand(a["self"])
    result = self._result_type(node)
    if result == x.type:
        return x
    # PyTorch's expand is a view: an elementwise op that broadcasts by
    # itself reads the small tensor, and saves it (x / norm.expand_as(x)).
    if all(_broadcasts_itself(self, user, node, x.shape)
           for user in node.users):
        return x
    return self._emit(node, f"ckpt.broadcast_to %{x.name} : {x.type} -> "
                            f"{result}")


def _slice_op(self, node, x, dim, start, end, step):
    if start == 0 and end == x.shape[dim] and step == 1:
        return x
    size = max(0, -(-(end - start) // step))
    shape = x.shape[:dim] + (size,) + x.shape[dim + 1:]
    # The op's end is one past the last element taken.
    end = start + (size - 1) * step + 1 if size else start
    step_text = f" step = {step}" if step != 1 else ""
    return self._emit(node, f"ckpt.slice %{x.name} dim = {dim} start = "
                            f"{start} end = {end}{step_text} : {x.type} -> "
                            f"{_tensor_type(shape, x.dtype)}",
                      dtype=x.dtype, shapes=[shape])


def _drop_dim(self, node, x, dim):
    return _reshape_op(self, node, x, x.shape[:dim] + x.shape[dim + 1:])


def _slice(self, node, a):
    x = self._operand(a["self"])
    dim = _normalize_dim(self.static(a["dim"]), len(x.shape))
    start, end, step = slice(self.static(a["start"]), self.static(a["end"]),
                             self.static(a["step"])).indices(x.shape[dim])
    if step < 1:
        raise _Unsupported("negative slice steps")
    return _slice_op(self, node, x, dim, start, end, step)


def _select(self, node, a):
    x = self._operand(a["self"])
    dim = _normalize_dim(self.static(a["dim"]), len(x.shape))
    index = _normalize_dim(self.static(a["index"]), x.shape[dim])
    return _drop_dim(self, node,
                     _slice_op(self, node, x, dim, index, index + 1, 1), dim)


def _split_op(self, node, x, dim, sizes):
    values, start = [], 0
    for size in sizes:
        values.append(_slice_op(self, node, x, dim, start, start + size, 1))
        start += size
    return values


def _split(self, node, a):
    x = self._operand(a["self"])
    dim = _normalize_dim(self.static(a["dim"]), len(x.shape))
    total = x.shape[dim]
    if "split_sizes" in a:
        sizes = list(self.static(a["split_sizes"]))
    else:
        size = self.static(a["split_size"])
        sizes = [min(size, total - i) for i in range(0, total, size)]
    return _split_op(self, node, x, dim, sizes)


def _unbind(self, node, a):
    x = self._operand(a["self"])
    dim = _normalize_dim(self.static(a["dim"]), len(x.shape))
    return [_drop_dim(self, node, part, dim) for part in
            _split_op(self, node, x, dim, [1] * x.shape[dim])]


def _concat_op(self, node, values, dim):
    shape = values[0].shape[:dim] + (sum(v.shape[dim] for v in values),) + \
        values[0].shape[dim + 1:]
    return self._emit(
        node, f"ckpt.concat {', '.join('%' + v.name for v in values)} "
              f"dim = {dim} : ({', '.join(v.type for v in values)}) -> "
              f"{_tensor_type(shape, values[0].dtype)}",
        dtype=values[0].dtype, shapes=[shape])


def _cat(self, node, a):
    # PyTorch's cat skips 1-D empty operands whatever the others' rank (a
    # cache that starts empty).
    values = [self._operand(t) for t in a["tensors"]
              if tuple(self.values[t].shape) != (0,)
              or self.values[t].shape == self.values[node].shape]
    if len(values) == 1:
        return values[0]
    return _concat_op(self, node, values,
                      _normalize_dim(self.static(a["dim"]),
                                     len(values[0].shape)))


def _constant_pad(self, node, a):
    # Padding with a number is a concatenation with constant blocks (a
    # negative amount crops: a slice). Pairs run from the last dimension.
    x = self._operand(a["self"])
    pad, value = list(self.static(a["pad"])), self.static(a["value"])
    for pair in range(len(pad) // 2):
        dim = len(x.shape) - 1 - pair
        before, after = pad[2 * pair], pad[2 * pair + 1]
        if before < 0 or after < 0:
            x = _slice_op(self, node, x, dim, max(0, -before),
                          x.shape[dim] - max(0, -after), 1)
        parts = []
        for amount in (before, after):
            block = x.shape[:dim] + (max(0, amount),) + x.shape[dim + 1:]
            parts.append(self._constant(torch.full(block, value,
                                                   dtype=x.dtype), "pad")
                         if amount > 0 else None)
        values = [v for v in (parts[0], x, parts[1]) if v is not None]
        if len(values) > 1:
            x = _concat_op(self, node, values, dim)
    return x


def _slice_scatter(self, node, a):
    # src written over a contiguous slice of self: what is left of self on
    # either side, concatenated with src.
    x, src = self._operand(a["self"]), self._operand(a["src"])
    dim = _normalize_dim(self.static(a["dim"]), len(x.shape))
    start, end, step = slice(self.static(a["start"]), self.static(a["end"]),
                             self.static(a["step"])).indices(x.shape[dim])
    if step != 1:
        raise _Unsupported("a step other than 1")
    parts = [_slice_op(self, node, x, dim, 0, start, 1) if start > 0 else None,
             src,
             _slice_op(self, node, x, dim, end, x.shape[dim], 1)
             if end < x.shape[dim] else None]
    values = [v for v in parts if v is not None]
    return src if len(values) == 1 else _concat_op(self, node, values, dim)


def _where_op(self, node, condition, a, b):
    if condition.dtype != torch.bool:
        raise _Unsupported("a condition that is not bool")
    return self._emit(node, f"ckpt.where %{condition.name}, %{a.name}, %{b.name} : "
                            f"({condition.type}, {a.type}, {b.type}) -> "
                            f"{self._result_type(node)}")


def _where(self, node, a):
    like = self.values[node]
    return _where_op(self, node, self._operand(a["condition"]),
                     self._operand(a["self"], like),
                     self._operand(a["other"], like))


def _masked_fill(self, node, a):
    like = self.values[node]
    return _where_op(self, node, self._operand(a["mask"]),
                     self._operand(a["value"], like),
                     self._operand(a["self"]))


def _vector_norm(self, node, a):
    # Kept whole: as a square root of a sum of squares, its gradient at a
    # zero norm would be 0 * inf (F.normalize's clamp passes it none).
    if self.static(a["ord"]) != 2:
        raise _Unsupported("norms other than the Euclidean (ord 2)")
    return _reduce("reduce_norm")(self, node, a)


def _reduce(mnemonic):
    def convert(self, node, a):
        x = self._operand(a["self"])
        if a.get("dtype") is not None:
            raise _Unsupported("dtype")
        dims = self.static(a.get("dim"))
        text = f"ckpt.{mnemonic} %{x.name}"
        if dims:  # none or [] reduce over all dimensions
            dims = sorted(_normalize_dim(d, len(x.shape)) for d in dims)
            text += f" dims = [{', '.join(map(str, dims))}]"
        if a.get("keepdim"):
            text += " keepdim"
        return self._emit(node, f"{text} : {x.type} -> "
                                f"{self._result_type(node)}")
    return convert


# ATen's loss reductions: Reduction::None, Mean, Sum.
_MEAN = 1


def _cross_entropy(self, node, a):
    logits, labels = self._operand(a["self"]), self._operand(a["target"])
    if a["weight"] is not None:
        raise _Unsupported("weight")
    if self.static(a["label_smoothing"]) != 0:
        raise _Unsupported("label_smoothing")
    if self.static(a["reduction"]) != _MEAN:
        raise _Unsupported("reductions other than 'mean'")
    if len(logits.shape) != 2 or len(labels.shape) != 1:
        raise _Unsupported("logits must be [N, C] and labels [N]; reshape "
                           "them first")
    # PyTorch ignores rows labelled ignore_index (-100 by default) whatever
    # the labels hold, so the op always carries it.
    return self._emit(node, f"ckpt.cross_entropy %{logits.name}, "
                            f"%{labels.name} ignore_index = "
                            f"{self.static(a['ignore_index'])} : "
                            f"({logits.type}, {labels.type}) -> "
                            f"{self._result_type(node)}")


def _mse_loss(self, node, a):
    x, target = self._operand(a["self"]), self._operand(a["target"])
    if self.static(a["reduction"]) != _MEAN:
        raise _Unsupported("reductions other than 'mean'")
    return self._emit(node, f"ckpt.mse_loss %{x.name}, %{target.name} : "
                            f"({x.type}, {target.type}) -> "
                            f"{self._result_type(node)}")


# -- convolution, pooling, upsampling ------------------------------------------


def _pair(value, name):
    """A 2-D size given as one int or as two."""
    if isinstance(value, (tuple, list)) and len(value) == 1:
        value = value[0]
    if isinstance(value, int):
        return (value, value)
    if isinstance(value, (tuple, list)) and len(value) == 2 and \
            all(isinstance(v, int) for v in value):
        return tuple(value)
    raise _Unsupported(f"{name}={value!r} (expected an int or two)")


def _attributes(*attributes):
    """` name = value` for each (name, value, default) whose value is not
    the default: the ops print their defaults that way, omitted."""
    text = ""
    for name, value, default in attributes:
        if value == default:
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, float):
            value = _float_literal(value, torch.float64)
        elif isinstance(value, tuple):
            value = "[" + ", ".join(map(str, value)) + "]"
        text += f" {name} = {value}"
    return text


def _window(kernel, stride, padding, ceil_mode=False):
    """A pooling window's attributes; the stride is written when it is not
    the kernel size (ATen's default, [], and the ops')."""
    kernel = _pair(kernel, "kernel_size")
    stride = _pair(stride, "stride") if stride not in (None, [], ()) \
        else kernel
    return f" kernel = [{kernel[0]}, {kernel[1]}]" + _attributes(
        ("stride", stride, kernel),
        ("padding", _pair(padding, "padding"), (0, 0)),
        ("ceil_mode", bool(ceil_mode), False))


def _convolution(self, node, a):
    if self.static(a["transposed"]):
        raise _Unsupported("transposed convolution")
    x, weight = self._operand(a["input"]), self._operand(a["weight"])
    _require_images(x)
    bias = self._operand(a["bias"]) if a["bias"] is not None else None
    operands = [x, weight] + ([bias] if bias is not None else [])
    text = f"ckpt.conv2d %{x.name}, %{weight.name}"
    if bias is not None:
        text += f" bias %{bias.name}"
    text += _attributes(
        ("stride", _pair(self.static(a["stride"]), "stride"), (1, 1)),
        ("padding", _pair(self.static(a["padding"]), "padding"), (0, 0)),
        ("dilation", _pair(self.static(a["dilation"]), "dilation"), (1, 1)),
        ("groups", self.static(a["groups"]), 1))
    return self._emit(node, f"{text} : ({', '.join(v.type for v in operands)})"
                            f" -> {self._result_type(node)}")


def _max_pool2d(self, node, a):
    if _pair(self.static(a["dilation"]), "dilation") != (1, 1):
        raise _Unsupported(f"dilation={self.static(a['dilation'])!r} "
                           "(only 1)")
    x = self._operand(a["self"])
    _require_images(x)
    shape = tuple(self.values[node][0].shape)
    return self._emit(
        node, f"ckpt.max_pool2d %{x.name}" +
              _window(self.static(a["kernel_size"]), self.static(a["stride"]),
                      self.static(a["padding"]), self.static(a["ceil_mode"])) +
              f" : ({x.type}) -> ({_tensor_type(shape, x.dtype)}, "
              f"{_tensor_type(shape, torch.int64)})",
        results=2, dtype=[x.dtype, torch.int64], shapes=[shape] * 2)


def _avg_pool2d(self, node, a):
    if a["divisor_override"] is not None:
        raise _Unsupported("divisor_override")
    x = self._operand(a["self"])
    _require_images(x)
    return self._emit(
        node, f"ckpt.avg_pool2d %{x.name}" +
              _window(self.static(a["kernel_size"]), self.static(a["stride"]),
                      self.static(a["padding"]), self.static(a["ceil_mode"])) +
              _attributes(("count_include_pad",
                           bool(self.static(a["count_include_pad"])), True)) +
              f" : {x.type} -> {self._result_type(node)}")


def _pooling_matrix(size, pooled, dtype):
    """[pooled, size]: row i averages adaptive pooling's window i,
    [floor(i size / pooled), ceil((i + 1) size / pooled))."""
    matrix = torch.zeros(pooled, size, dtype=dtype)
    for i in range(pooled):
        start, end = (i * size) // pooled, -(-(i + 1) * size // pooled)
        matrix[i, start:end] = 1 / (end - start)
    return matrix


def _adaptive_pool_by_matmul(self, node, x, pooled):
    # Windows of uneven, overlapping sizes: the pool is separable, one
    # averaging matrix per spatial dimension: P_h @ x @ P_w^T.
    (height, width), dtype = x.shape[2:], x.dtype
    if pooled[1] != width:
        columns = self._constant(
            _pooling_matrix(width, pooled[1], dtype).t().contiguous(), "pool")
        x = _matmul_op(self, node, x, columns, x.shape[:3] + (pooled[1],))
    if pooled[0] != height:
        rows = self._constant(_pooling_matrix(height, pooled[0], dtype),
                              "pool")
        x = _matmul_op(self, node, rows, x, x.shape[:2] + pooled)
    return x


def _adaptive_avg_pool2d(self, node, a):
    x = self._operand(a["self"])
    _require_images(x)
    y = self.values[node]
    if tuple(y.shape[2:]) == (1, 1):
        return self._emit(node, f"ckpt.reduce_mean %{x.name} dims = [2, 3] "
                                f"keepdim : {x.type} -> "
                                f"{self._result_type(node)}")
    if all(pooled % size == 0
           for size, pooled in zip(x.shape[2:], y.shape[2:])):
        # Each window of an output that is a multiple of the input holds
        # one element (alexnet's and vgg's 6x6 and 7x7 pools of a small
        # image's 1x1 features): nearest upsampling.
        scale = [pooled // size
                 for size, pooled in zip(x.shape[2:], y.shape[2:])]
        return self._emit(node, f"ckpt.upsample_nearest2d %{x.name} scale = "
                                f"[{scale[0]}, {scale[1]}] : {x.type} -> "
                                f"{self._result_type(node)}")
    if any(size % pooled for size, pooled in zip(x.shape[2:], y.shape[2:])):
        return _adaptive_pool_by_matmul(self, node, x, tuple(y.shape[2:]))
    # Pooled windows of an evenly divided input do not overlap: a plain
    # average pool with the window as its stride.
    window = tuple(size // pooled
                   for size, pooled in zip(x.shape[2:], y.shape[2:]))
    return self._emit(node, f"ckpt.avg_pool2d %{x.name}" +
                      _window(window, window, 0) +
                      f" : {x.type} -> {self._result_type(node)}")


def _upsample_nearest2d(self, node, a):
    x = self._operand(a["input" if "input" in a else "self"])
    _require_images(x)
    y = self.values[node]
    if any(out % size for out, size in zip(y.shape[2:], x.shape[2:])):
        raise _Unsupported("a scale that is not a whole number")
    scale = tuple(out // size for out, size in zip(y.shape[2:], x.shape[2:]))
    return self._emit(node, f"ckpt.upsample_nearest2d %{x.name} scale = "
                            f"[{scale[0]}, {scale[1]}] : {x.type} -> "
                            f"{self._result_type(node)}")


def _getitem(self, node, _):
    source, index = node.args
    value = self.env[source]
    if not isinstance(value, list):
        raise _Unsupported("indexing a single value")
    if value[index] is None:
        raise _Unsupported(f"result {index} of {source.target}")
    return value[index]


_CONVERTERS = {
    operator.getitem: _getitem,
    aten.add.Tensor: _binary("add"), aten.add.Scalar: _binary("add"),
    aten.sub.Tensor: _binary("sub"), aten.sub.Scalar: _binary("sub"),
    aten.rsub.Scalar: _binary("sub", reflected=True),
    aten.rsub.Tensor: _binary("sub", reflected=True),
    aten.mul.Tensor: _binary("mul"), aten.mul.Scalar: _binary("mul"),
    aten.div.Tensor: _binary("div"), aten.div.Scalar: _binary("div"),
    aten.neg.default: _unary("neg"), aten.exp.default: _unary("exp"),
    aten.log.default: _unary("log"), aten.rsqrt.default: _unary("rsqrt"),
    aten.tanh.default: _unary("tanh"), aten.sigmoid.default: _unary("sigmoid"),
    aten.relu.default: _unary("relu"), aten.silu.default: _unary("silu"),
    aten.gelu.default: _gelu,
    aten.sqrt.default: _unary("sqrt"), aten.abs.default: _unary("abs"),
    aten.pow.Tensor_Scalar: _pow,
    aten.clamp.default: _clamp("min", "max"),
    aten.clamp_min.default: _clamp("min", None),
    aten.clamp_max.default: _clamp(None, "max"),
    aten.hardtanh.default: _clamp("min_val", "max_val"),
    aten._softmax.default: _softmax("softmax"),
    aten._log_softmax.default: _softmax("log_softmax"),
    aten.linear.default: _linear, aten.addmm.default: _addmm,
    aten.matmul.default: _matmul, aten.mm.default: _matmul,
    aten.bmm.default: _matmul,
    aten.layer_norm.default: _layer_norm,
    aten.native_layer_norm.default: _layer_norm_op,
    aten.rms_norm.default: _rms_norm,
    aten._native_batch_norm_legit_functional.default: _batch_norm,
    aten._native_batch_norm_legit.no_stats: _batch_norm,
    aten.dropout.default: _dropout, aten.native_dropout.default: _native_dropout,
    aten.scaled_dot_product_attention.default: _scaled_dot_product_attention,
    aten.bernoulli.p: _bernoulli,
    aten.embedding.default: _embedding,
    aten.view.default: _reshape, aten._unsafe_view.default: _reshape,
    aten.reshape.default: _reshape, aten.unsqueeze.default: _reshape,
    aten.squeeze.default: _reshape, aten.squeeze.dim: _reshape,
    aten.squeeze.dims: _reshape,
    aten.clone.default: _identity, aten.alias.default: _identity,
    aten._to_copy.default: _to_copy, aten.as_strided.default: _as_strided,
    aten.transpose.int: _transpose, aten.permute.default: _permute,
    aten.t.default: _t, aten.expand.default: _expand,
    aten.slice.Tensor: _slice, aten.select.int: _select,
    aten.split.Tensor: _split, aten.split_with_sizes.default: _split,
    aten.unbind.int: _unbind, aten.cat.default: _cat,
    aten.constant_pad_nd.default: _constant_pad,
    aten.index.Tensor: _index, aten.index_select.default: _index_select,
    aten.slice_scatter.default: _slice_scatter, aten.copy.default: _copy,
    aten.where.self: _where, aten.masked_fill.Scalar: _masked_fill,
    aten.masked_fill.Tensor: _masked_fill,
    aten.sum.default: _reduce("reduce_sum"),
    aten.sum.dim_IntList: _reduce("reduce_sum"),
    aten.mean.default: _reduce("reduce_mean"),
    aten.mean.dim: _reduce("reduce_mean"),
    aten.amax.default: _reduce("reduce_max"),
    aten.linalg_vector_norm.default: _vector_norm,
    aten.cross_entropy_loss.default: _cross_entropy,
    aten.mse_loss.default: _mse_loss,
    aten.convolution.default: _convolution,
    aten.max_pool2d_with_indices.default: _max_pool2d,
    aten.avg_pool2d.default: _avg_pool2d,
    aten._adaptive_avg_pool2d.default: _adaptive_avg_pool2d,
    aten.upsample_nearest2d.vec: _upsample_nearest2d,
    aten.upsample_nearest2d.default: _upsample_nearest2d,
}


def import_module(module, example_inputs, function_name="forward",
                  record_calls=False, autocast=None):
    """Imports `module` (in training mode) exported on `example_inputs` (a
    tuple of tensors, one per forward argument). Returns a TorchImport;
    raises ImportFailure naming what cannot be imported and where. With
    `record_calls`, the module also runs in PyTorch and the MLIR module
    carries PyTorch's op calls and which call makes each op's value
    (`ckpt.torch_calls`, for ckpt-export-torch-plan). With `autocast`
    (torch.bfloat16 or torch.float16), the forward is the one
    `torch.autocast("cpu", dtype=autocast)` runs, its casts explicit
    `ckpt.cast` ops."""
    if not function_name.replace("_", "a").isalnum():
        raise ImportFailure(f"function name '{function_name}' is not an "
                            "identifier")
    if autocast is not None and autocast not in _AUTOCAST_DTYPES.values():
        raise ImportFailure(f"autocast to {autocast}: only torch.bfloat16 "
                            "and torch.float16 are autocast dtypes")
    module.train()
    importer = _Importer(module, tuple(example_inputs), function_name,
                         autocast)
    result = importer.import_()
    if record_calls:
        buffers = [(b, b.clone()) for b in module.buffers()]
        with torch.random.fork_rng(devices=[]):
            torch.set_rng_state(importer.rng_state)
            calls = PyTorchCalls(module, tuple(example_inputs), autocast)
        with torch.no_grad():
            for buffer, value in buffers:
                buffer.copy_(value)
        matched = calls.match(importer.graph, importer.values,
                              {n for n, c in importer.constant.items() if c})
        # Ops are named (in their locations) after their node.
        values = {name: matched[node]
                  for node, name in importer.op_names.items()
                  if node in matched}
        header, _, body = result.text.partition("\n")
        result.text = (f"{header}\nmodule attributes "
                       f"{{{calls.attribute(function_name, values)}}} {{\n"
                       f"{body}}}\n")
        result.calls = calls
    return result


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------

_DTYPES = {"float32": torch.float32, "f32": torch.float32,
           "float64": torch.float64, "f64": torch.float64,
           "float16": torch.float16, "f16": torch.float16,
           "bfloat16": torch.bfloat16, "bf16": torch.bfloat16,
           "int64": torch.int64, "i64": torch.int64, "bool": torch.bool,
           "i1": torch.bool}


def _parse_shape(spec):
    """NAME=D0,D1,...[:DTYPE[:BOUND]] -> (name, shape, dtype, bound)."""
    name, _, rest = spec.partition("=")
    shape_text, _, type_text = rest.partition(":")
    dtype_text, _, bound_text = type_text.partition(":")
    try:
        shape = tuple(int(d) for d in shape_text.split(",")) if shape_text \
            else ()
        bound = int(bound_text) if bound_text else None
    except ValueError:
        shape = None
    dtype = _DTYPES.get(dtype_text or "float32")
    if not name or shape is None or any(d <= 0 for d in shape) or \
            dtype is None or (bound is not None and (
                dtype != torch.int64 or bound <= 0)):
        raise ImportFailure(
            f"--input-shape expects NAME=D0,D1,...[:DTYPE[:BOUND]] with "
            f"positive sizes, DTYPE one of {', '.join(sorted(_DTYPES))} and "
            f"a positive BOUND for int64 only; got '{spec}'")
    return name, shape, dtype, bound


def _load_class(spec):
    path, _, name = spec.rpartition(":")
    if not path or not name:
        raise ImportFailure(f"expected FILE.py:NAME, got '{spec}'")
    if not os.path.isfile(path):
        raise ImportFailure(f"cannot open '{path}'")
    module_name = os.path.splitext(os.path.basename(path))[0]
    spec_ = importlib.util.spec_from_file_location(module_name, path)
    loaded = importlib.util.module_from_spec(spec_)
    sys.modules[module_name] = loaded
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec_.loader.exec_module(loaded)
    factory = getattr(loaded, name, None)
    if factory is None:
        raise ImportFailure(f"'{path}' defines no '{name}'")
    return factory


def _example_input(shape, dtype, bound):
    # Zeros are valid indices for any table; floats need no particular value.
    if dtype.is_floating_point:
        return torch.randn(shape, dtype=dtype)
    if bound is not None:
        return torch.randint(0, bound, shape)
    return torch.zeros(shape, dtype=dtype)


def _write_reference(module, inputs, result, directory, autocast=None,
                     loss_scale=1.0):
    """PyTorch's loss and gradients for the example inputs as
    DIR/result0.npy and DIR/gradN.npy, N the parameter's argument number,
    and the buffers' updated values as DIR/resultK.npy, K = 1, 2, ... in
    the order the function returns them (ckpt-run --reference DIR); the
    forward under CPU autocast to `autocast` when given, as PyTorch's AMP
    runs it (backward outside, as autocast's documentation asks). With a
    `loss_scale`, the gradients are GradScaler's: backward from the loss
    times the scale, each gradient then times its inverse."""
    module.zero_grad()
    with autocast_context(autocast):
        loss = module(*inputs)
    # Taken before backward: recomputing a checkpointed batch norm in
    # PyTorch updates its running statistics a second time.
    buffers = dict(module.named_buffers())
    returned = [loss.detach().clone()] + [buffers[name].detach().clone()
                                          for name in result.updated_buffers]
    (loss * loss_scale if loss_scale != 1.0 else loss).backward()
    if loss_scale != 1.0:
        with torch.no_grad():
            for parameter in module.parameters():
                if parameter.grad is not None:
                    parameter.grad.mul_(1.0 / loss_scale)
    # Every name of a shared parameter (a tied LM head's) finds it.
    parameters = dict(module.named_parameters(remove_duplicate=False))
    os.makedirs(directory, exist_ok=True)
    for position, value in enumerate(returned):
        _atomic_write(os.path.join(directory, f"result{position}.npy"),
                      lambda f, v=value: np.save(f, _numpy(v)))
    for index, (name, kind, _) in enumerate(result.arguments):
        if kind == "parameter":
            gradient = parameters[name].grad
            gradient = torch.zeros_like(parameters[name]) if gradient is None \
                else gradient
            _atomic_write(os.path.join(directory, f"grad{index}.npy"),
                          lambda f, g=gradient: np.save(f, _numpy(g)))


def load_model(spec, arguments=(), input_shapes=(), seed=0):
    """The module FILE.py:NAME makes from KEY=VALUE arguments (Python
    literals) after seeding torch with `seed`, and example inputs for its
    forward from NAME=D0,D1,...[:DTYPE[:BOUND]] shapes, one per argument."""
    factory = _load_class(spec)
    kwargs = {}
    for item in arguments:
        key, _, text = item.partition("=")
        try:
            kwargs[key] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            raise ImportFailure(f"--arg {item}: '{text}' is not a Python "
                                "literal") from None
    torch.manual_seed(seed)
    try:
        module = factory(**kwargs)
    except Exception as error:  # the user's constructor failed
        raise ImportFailure(f"{spec}({', '.join(arguments)}) failed: "
                            f"{type(error).__name__}: {error}") from None
    if not isinstance(module, torch.nn.Module):
        raise ImportFailure(f"{spec} did not make a torch.nn.Module")
    names = list(inspect.signature(module.forward).parameters)
    shapes = {n: (s, d, b) for n, s, d, b in map(_parse_shape, input_shapes)}
    missing = [n for n in names if n not in shapes]
    extra = [n for n in shapes if n not in names]
    if missing or extra:
        raise ImportFailure(
            "give --input-shape for each argument of forward "
            f"({', '.join(names)})" +
            (f"; missing: {', '.join(missing)}" if missing else "") +
            (f"; forward has no: {', '.join(extra)}" if extra else ""))
    return module, tuple(_example_input(*shapes[n]) for n in names)


def _validate(text):
    """Parses the output with ckpt-opt when it sits beside this tool."""
    tool = os.path.join(os.path.dirname(os.path.realpath(sys.argv[0])),
                        "ckpt-opt")
    if os.access(tool, os.X_OK):
        run = subprocess.run([tool, "-", "-o", os.devnull], input=text,
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise ImportFailure("internal error: the written MLIR does "
                                "not verify:\n" + run.stderr)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="ckpt-import-torch",
        description="Imports a PyTorch module whose forward returns the "
                    "training loss into the ckpt dialect, tracing it with "
                    "torch.export on inputs of the given shapes.")
    parser.add_argument("model", metavar="FILE.py:NAME",
                        help="the module class (or a function returning the "
                             "module) to import, constructed with no "
                             "arguments unless --arg is given")
    parser.add_argument("--input-shape", action="append", default=[],
                        metavar="NAME=D0,D1,...[:DTYPE[:BOUND]]",
                        help="shape (and element type: float32 (default), "
                             "float64, int64, bool) of forward's argument "
                             "NAME; one per argument. The example input is "
                             "random normal for floats, zeros for the "
                             "others, uniform below BOUND for int64 with "
                             "one")
    parser.add_argument("--arg", action="append", default=[],
                        metavar="KEY=VALUE",
                        help="keyword argument for NAME (a Python literal)")
    parser.add_argument("-o", "--output", default="-",
                        help="MLIR file to write (default: standard output)")
    parser.add_argument("--weights", metavar="DIR",
                        help="write each parameter (and large folded "
                             "constant) as DIR/argN.npy, N its argument "
                             "number, for ckpt-run --inputs DIR; and "
                             "DIR/arguments.json naming every argument")
    parser.add_argument("--reference", metavar="DIR",
                        help="also write the example inputs to the --weights "
                             "directory and PyTorch's gradients for them as "
                             "DIR/gradN.npy, for ckpt-run --inputs WEIGHTS "
                             "--reference DIR (needs dropout off)")
    parser.add_argument("--function", default=None,
                        help="name of the MLIR function (default: NAME in "
                             "lower case)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of torch's generator before the module is "
                             "constructed (initial weights; default 0)")
    parser.add_argument("--autocast", choices=sorted(_AUTOCAST_DTYPES),
                        help="import the forward that torch.autocast("
                             "\"cpu\", dtype=...) runs (bf16 or f16): its "
                             "casts become ckpt.cast ops, so the ops autocast "
                             "narrows compute in 16 bits, their recompute "
                             "too; --reference runs PyTorch's forward under "
                             "the same autocast")
    parser.add_argument("--loss-scale", type=float, default=1.0,
                        metavar="S",
                        help="with --reference: PyTorch's gradients as "
                             "GradScaler makes them with the static scale S "
                             "(backward from S times the loss, gradients "
                             "times 1/S), for a step built with ckpt-opt's "
                             "loss-scale=S")
    parser.add_argument("--record-calls", action="store_true",
                        help="also run the module in PyTorch and record its "
                             "op calls and which one makes each value, so "
                             "that ckpt-export-torch-plan can write plans "
                             "for PyTorch's selective checkpointing")
    args = parser.parse_args(argv)
    try:
        if args.reference and not args.weights:
            raise ImportFailure("--reference needs --weights: the gradients "
                                "are for those weights and inputs")
        if args.loss_scale != 1.0 and not args.reference:
            raise ImportFailure("--loss-scale scales the --reference "
                                "gradients: give --reference too")
        if not args.loss_scale > 0 or \
                math.frexp(args.loss_scale)[0] != 0.5:
            raise ImportFailure(f"--loss-scale must be a positive power of "
                                f"two, as ckpt-opt's loss-scale; got "
                                f"{args.loss_scale:g}")
        module, inputs = load_model(args.model, args.arg, args.input_shape,
                                    args.seed)
        name = args.function or args.model.rpartition(":")[2].lower()
        autocast = _AUTOCAST_DTYPES.get(args.autocast)
        result = import_module(module, inputs, name, args.record_calls,
                               autocast)
        _validate(result.text)
        if args.reference and "ckpt.dropout" in result.text:
            raise ImportFailure(
                "--reference needs dropout off (p = 0): PyTorch's CPU "
                "generator is not Philox, so its dropout masks differ from "
                "ckpt's")
        if args.output == "-":
            sys.stdout.write(result.text)
        else:
            _atomic_write(args.output, lambda f: f.write(result.text.encode()))
        if args.weights:
            result.write_weights(args.weights, with_inputs=bool(args.reference))
        if args.reference:
            _write_reference(module, inputs, result, args.reference, autocast,
                             args.loss_scale)
    except ImportFailure as failure:
        print(f"ckpt-import-torch: error: {failure}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"ckpt-import-torch: error: cannot write "
              f"'{error.filename}': {error.strerror}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
