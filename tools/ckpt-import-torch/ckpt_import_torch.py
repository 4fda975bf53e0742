#!/usr/bin/env python3
"""Imports a PyTorch module into the ckpt dialect.

Traces the module with torch.fx, runs the trace once on example inputs to
learn every tensor's shape (and to fold what does not depend on inputs or
parameters), and writes the forward function as ckpt-dialect MLIR whose
ops carry the Python source line that created them. `torch.utils.checkpoint`
calls become `ckpt.checkpoint` regions; parameters become `{ckpt.param}`
arguments whose values are written as `.npy` files that `ckpt-run --inputs`
loads.
"""

import argparse
import ast
import dis
import importlib.util
import inspect
import json
import math
import operator
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.fx
import torch.nn.functional as F
import torch.utils.checkpoint

__all__ = ["ImportFailure", "TorchImport", "import_module", "load_model",
           "main"]

# Folded values up to this many elements are written inline as constants;
# larger ones (masks, tables) become arguments with their values on disk.
INLINE_CONSTANT_LIMIT = 1024

_TORCH_DIR = os.path.dirname(torch.__file__)
_THIS_FILE = os.path.abspath(__file__)


class ImportFailure(Exception):
    """The module cannot be imported; the message says why and where."""


# ---------------------------------------------------------------------------
# Tracing
# ---------------------------------------------------------------------------


def _is_user_file(path):
    """Whether `path` is the user's code: neither torch nor this file."""
    path = os.path.abspath(path)
    return not path.startswith(_TORCH_DIR) and path != _THIS_FILE


def _user_frame():
    """The innermost frame in the user's code: the line being traced."""
    frame = sys._getframe(1)
    while frame is not None and not _is_user_file(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def _frame_location(frame):
    """(file, line, column) of the instruction a frame is running; the
    column is 1-based, 1 where Python does not record one."""
    code = frame.f_code
    line, column = frame.f_lineno, 1
    positions = getattr(code, "co_positions", None)  # Python >= 3.11
    if positions is not None:
        for index, position in enumerate(positions()):
            if index == frame.f_lasti // 2:
                if position[0] is not None:
                    line = position[0]
                if position[2] is not None:
                    column = position[2] + 1
                break
    return (_display_path(code.co_filename), line, column)


def _display_path(path):
    """Paths under the working directory relative to it, as a user types
    them; others as they are."""
    relative = os.path.relpath(path) if os.path.isabs(path) else path
    return path if relative.startswith("..") else relative


# Tensor properties that are known while tracing: each traced value also
# holds its value on the example inputs, so shapes are plain numbers.
_STATIC_ATTRIBUTES = ("shape", "dtype", "device", "ndim", "is_cuda")
_STATIC_METHODS = ("size", "dim", "numel")
_ORIGINAL_MODULE_GETATTR = torch.nn.Module.__getattr__
_ORIGINAL_MODULE_CALL = torch.nn.Module.__call__


class _Proxy(torch.fx.Proxy):
    def __getattr__(self, name):
        if name in _STATIC_ATTRIBUTES:
            return getattr(self.node.meta["ckpt_value"], name)
        return super().__getattr__(name)

    def __len__(self):
        return len(self.node.meta["ckpt_value"])

    def __iter__(self):
        # torch.fx finds the unpacking instruction by a bytecode index that
        # Python 3.11 moved (inline caches); find it by offset instead.
        frame = inspect.currentframe().f_back
        for instruction in dis.get_instructions(frame.f_code):
            if instruction.offset == frame.f_lasti:
                if instruction.opname == "UNPACK_SEQUENCE":
                    return (self[i] for i in range(instruction.argval))
                break
        raise torch.fx.proxy.TraceError(
            "cannot iterate over a traced value: only unpacking into a "
            "fixed number of names (`q, k, v = x.split(C, 2)`) is supported")


class _Tracer(torch.fx.Tracer):
    """Traces on example inputs: every node records its value, its source
    location and the checkpoint segment it was traced in. Shapes come out
    as numbers."""

    def __init__(self, example_inputs):
        super().__init__()
        self.example_inputs = list(example_inputs)
        self.segment = None
        self.segment_count = 0

    def proxy(self, node):
        return _Proxy(node, self)

    def create_node(self, kind, target, args, kwargs, *rest, **named):
        node = super().create_node(kind, target, args, kwargs, *rest, **named)
        frame = _user_frame()
        node.meta["ckpt_location"] = _frame_location(frame) if frame else None
        node.meta["ckpt_segment"] = self.segment
        node.meta["ckpt_value"] = self._evaluate(node)
        return node

    def _evaluate(self, node):
        # Tracing patches Module's attribute lookup and call to make
        # proxies; the real computation needs the originals back.
        traced = (torch.nn.Module.__getattr__, torch.nn.Module.__call__)
        torch.nn.Module.__getattr__ = _ORIGINAL_MODULE_GETATTR
        torch.nn.Module.__call__ = _ORIGINAL_MODULE_CALL
        try:
            return self._compute(node)
        finally:
            torch.nn.Module.__getattr__, torch.nn.Module.__call__ = traced

    def _compute(self, node):
        def real(value):
            return torch.fx.node.map_arg(value, lambda n: n.meta["ckpt_value"])

        args, kwargs = real(node.args), real(node.kwargs)
        if node.op == "placeholder":
            if not self.example_inputs:
                raise ImportFailure("forward takes more arguments than "
                                    "example inputs were given")
            return self.example_inputs.pop(0)
        if node.op == "get_attr":
            value = self.root
            for part in node.target.split("."):
                value = getattr(value, part)
            return value
        if node.op == "call_function":
            return node.target(*args, **kwargs)
        if node.op == "call_method":
            return getattr(args[0], node.target)(*args[1:], **kwargs)
        if node.op == "call_module":
            return self.root.get_submodule(node.target).forward(*args,
                                                                **kwargs)
        return None

    def create_proxy(self, kind, target, args, kwargs, *rest, **named):
        proxy = super().create_proxy(kind, target, args, kwargs, *rest,
                                     **named)
        if kind == "call_method" and target in _STATIC_METHODS:
            self.graph.erase_node(proxy.node)
            return proxy.node.meta["ckpt_value"]
        return proxy

    def traced_checkpoint(self, function, *args, **kwargs):
        """Stands in for torch.utils.checkpoint.checkpoint while tracing:
        traces `function` inline, marking its nodes as one segment (a
        nested checkpoint joins the outer one)."""
        if self.segment is not None:
            return function(*args)
        self.segment = self.segment_count
        self.segment_count += 1
        try:
            return function(*args)
        finally:
            self.segment = None


def _trace(module, example_inputs):
    tracer = _Tracer(example_inputs)
    original = torch.utils.checkpoint.checkpoint
    patched = []  # (globals dict, name) rebound to the stand-in
    namespaces = {id(type(m).forward.__globals__): type(m).forward.__globals__
                  for m in module.modules()}
    for namespace in namespaces.values():
        for name, value in list(namespace.items()):
            if value is original:
                namespace[name] = tracer.traced_checkpoint
                patched.append((namespace, name))
    torch.utils.checkpoint.checkpoint = tracer.traced_checkpoint
    # Tracing runs the modules' forwards, and a training-mode batch norm's
    # forward updates its running statistics in place; the import leaves
    # the module's buffers as it found them.
    buffers = [(b, b.clone()) for b in module.buffers()]
    try:
        with torch.no_grad():
            graph = tracer.trace(module)
    except ImportFailure:
        raise
    except Exception as error:  # the user's code failed under tracing
        raise ImportFailure(_trace_failure(error)) from None
    finally:
        torch.utils.checkpoint.checkpoint = original
        for namespace, name in patched:
            namespace[name] = original
        with torch.no_grad():
            for buffer, value in buffers:
                buffer.copy_(value)
    return torch.fx.GraphModule(tracer.root, graph), len(tracer.example_inputs)


def _trace_failure(error):
    frames = [f for f in inspect.getinnerframes(error.__traceback__)
              if _is_user_file(f.filename)]
    where = ""
    if frames:
        frame = frames[-1]
        source = frame.code_context[0].strip() if frame.code_context else ""
        where = f"{_display_path(frame.filename)}:{frame.lineno}: `{source}`: "
    message = str(error) or type(error).__name__
    return (f"{where}torch.fx cannot trace this: {message} (tracing runs "
            "forward on symbolic values, so control flow may not depend on "
            "tensor values)")


# ---------------------------------------------------------------------------
# MLIR text
# ---------------------------------------------------------------------------

_ELEMENT_TYPES = {torch.float32: "f32", torch.float64: "f64",
                  torch.int64: "i64", torch.bool: "i1"}


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
    if node.op == "call_module":
        return f"module {node.target} ({type(node.graph.owning_module.get_submodule(node.target)).__name__})"
    if node.op == "call_method":
        return f"method Tensor.{node.target}"
    target = node.target
    name = getattr(target, "__name__", str(target))
    module = getattr(target, "__module__", None) or ""
    if module in ("_operator", "operator"):
        return f"operator.{name}"
    if module.startswith("torch"):
        module = {"torch._C._nn": "torch.nn.functional",
                  "torch._C._VariableFunctions": "torch"}.get(module, module)
    return f"{module}.{name}" if module else name


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


class TorchImport:
    """One import: the MLIR text and the values of its arguments."""

    def __init__(self, text, arguments, graph_module, folded, updated_buffers):
        self.text = text
        # Names of the buffers whose updated values the function returns
        # after the loss, in order (forward results 1, 2, ...).
        self.updated_buffers = updated_buffers
        # The torch.fx trace; its node names name the MLIR ops' locations.
        self.graph_module = graph_module
        # Names of the nodes folded into constants.
        self.folded = folded
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
    def __init__(self, module, example_inputs, function_name):
        self.function_name = function_name
        self.graph_module, remaining = _trace(module, example_inputs)
        self.graph = self.graph_module.graph
        if remaining:
            raise ImportFailure(
                f"forward takes {len(example_inputs) - remaining} inputs but "
                f"{len(example_inputs)} example inputs were given")
        self.values = {n: n.meta["ckpt_value"] for n in self.graph.nodes}
        self.parameters = {id(p): name for name, p in
                           module.named_parameters()}
        self.buffers = {id(b): name for name, b in module.named_buffers()}
        self.constant = self._find_constants()
        # (_Value, kind, array, attributes, name in the module)
        self.arguments = []
        self.env = {}  # node -> _Value or list of _Value
        self.names = set()
        self.param_values = {}  # id(parameter) -> _Value
        self.buffer_values = {}  # id(buffer) -> _Value
        # id(buffer) -> its latest updated value, in order of first update:
        # the step returns them after the loss.
        self.buffer_updates = {}
        self.constant_arguments = {}  # folded value -> _Value
        self.scope = _Scope(captures=None)
        self.unsupported = []

    def _find_constants(self):
        """Nodes that depend on neither inputs nor parameters."""
        constant = {}
        for node in self.graph.nodes:
            if node.op == "placeholder" or node.op == "output":
                constant[node] = False
            elif node.op == "get_attr":
                constant[node] = not isinstance(self.values[node],
                                                torch.nn.Parameter)
            elif node.op == "call_module":
                sub = self.graph_module.get_submodule(node.target)
                constant[node] = not any(True for _ in sub.parameters()) and \
                    all(constant[i] for i in node.all_input_nodes)
            else:
                constant[node] = all(constant[i] for i in node.all_input_nodes)
            # Random ops are never folded: each run draws anew.
            if node.op in ("call_module", "call_function", "call_method") and \
                    _is_random(node, self.graph_module):
                constant[node] = False
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

    def _loc(self, node):
        location = node.meta.get("ckpt_location")
        name = _mlir_string(node.name)
        if location is None:
            return f"loc({name})"
        path, line, column = location
        return f"loc({name}({_mlir_string(path)}:{line}:{column}))"

    # -- operands ------------------------------------------------------------

    def _operand(self, arg, like=None):
        """The _Value of an FX argument: a traced tensor, a folded
        constant, or a Python number (as a scalar of `like`'s type)."""
        if isinstance(arg, torch.fx.Node):
            if self.constant[arg]:
                return self._constant(self.values[arg], arg.name)
            value = self.env[arg]
            if isinstance(value, list):
                raise _Unsupported("a tuple used as a tensor")
            return value
        if isinstance(arg, (int, float, bool)) and like is not None:
            dtype = like.dtype if like.dtype.is_floating_point else torch.float32
            return self._constant(torch.tensor(arg, dtype=dtype), "cst")
        raise _Unsupported(f"operand {arg!r}")

    def _constant(self, tensor, name):
        if isinstance(tensor, torch.nn.Parameter):
            return self._parameter(tensor)
        if not isinstance(tensor, torch.Tensor):
            raise _Unsupported(f"non-tensor value {tensor!r} used as a tensor")
        if tensor.dtype not in _ELEMENT_TYPES:
            raise _Unsupported(f"element type {tensor.dtype}")
        array = tensor.detach().cpu().numpy()
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
                f"{_dense_literal(array, tensor.dtype)} : {value.type}")
            self.scope.constants[key] = value
        return self.scope.constants[key]

    def _argument(self, name, array, dtype, kind, attributes=""):
        value = _Value(self._fresh(name), array.shape, dtype)
        self.arguments.append((value, kind, array, attributes, name))
        return value

    def _parameter(self, parameter):
        key = id(parameter)
        if key not in self.param_values:
            name = self.parameters.get(key)
            if name is None:
                raise _Unsupported("a parameter that is not the module's own")
            self.param_values[key] = self._argument(
                name, parameter.detach().cpu().numpy(), parameter.dtype,
                "parameter", " {ckpt.param}")
        return self._local(self.param_values[key])

    def _buffer(self, buffer):
        """A buffer the step reads and whose update it computes (batch
        norm's running statistics): an argument without {ckpt.param}, as
        it needs no gradient, or the value an earlier call updated it to."""
        key = id(buffer)
        if key in self.buffer_updates:
            return self._local(self.buffer_updates[key])
        if key not in self.buffer_values:
            # A copy: training the module later updates the buffer in
            # place, and the arguments must hold the values it was
            # imported with.
            self.buffer_values[key] = self._argument(
                self.buffers[key], buffer.detach().cpu().numpy().copy(),
                buffer.dtype, "buffer")
        return self._local(self.buffer_values[key])

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
        name = self._fresh(node.name)
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
        for node in self.graph.nodes:
            if node.op == "placeholder":
                value = self.values[node]
                if not isinstance(value, torch.Tensor) or \
                        value.dtype not in _ELEMENT_TYPES:
                    raise ImportFailure(
                        f"input '{node.target}' must be a tensor of "
                        f"float32, float64, int64 or bool")
                self.env[node] = self._argument(
                    node.target, value.numpy(), value.dtype, "input")
        # Inputs keep their order; parameters and folded constants follow
        # in order of first use.
        self._emit_nodes([n for n in self.graph.nodes
                          if n.op not in ("placeholder", "output")])
        if self.unsupported:
            listing = "\n".join(f"  {where}: {what}"
                                for where, what in self.unsupported)
            raise ImportFailure(
                f"{len(self.unsupported)} operation(s) have no ckpt "
                f"equivalent yet:\n{listing}")
        output = next(n for n in self.graph.nodes if n.op == "output")
        result = output.args[0]
        value = self.values.get(result) if isinstance(result, torch.fx.Node) \
            else None
        if not isinstance(value, torch.Tensor) or value.dim() != 0 or \
                not value.dtype.is_floating_point:
            raise ImportFailure(
                "forward must return the scalar loss (a 0-d float tensor) "
                "the training step differentiates; it returns "
                + (f"a tensor of shape {tuple(value.shape)}"
                   if isinstance(value, torch.Tensor) else type(value).__name__))
        loss = self._operand(result)
        # Inputs, then parameters and buffers in the module's order, then
        # folded constants.
        order = {name: i for i, name in enumerate(
            list(self.parameters.values()) + list(self.buffers.values()))}
        kinds = ("input", "parameter", "buffer", "constant")
        self.arguments.sort(key=lambda a: (kinds.index(a[1]),
                                           order.get(a[4], 0)))
        # Each argument's location is its name in the module (the
        # parameter's qualified name), which the report prints.
        arguments = ",\n    ".join(
            f"%{v.name}: {v.type}{attributes} loc({_mlir_string(source)})"
            for v, _, _, attributes, source in self.arguments)
        body = "\n  ".join(self.scope.constant_lines + self.scope.lines)
        # The loss, then the buffers' updated values (batch norm's running
        # statistics), which the training step returns after the loss.
        returned = [loss] + list(self.buffer_updates.values())
        types = ", ".join(v.type for v in returned)
        text = (f"// Imported from PyTorch by ckpt-import-torch.\n"
                f"func.func @{self.function_name}(\n    {arguments})\n"
                f"    -> {f'({types})' if len(returned) > 1 else types} {{\n"
                f"  {body}\n"
                f"  return {', '.join('%' + v.name for v in returned)} : "
                f"{types}\n}}\n")
        return TorchImport(text, [(source, kind, array) for
                                  _, kind, array, _, source in self.arguments],
                           self.graph_module,
                           {n.name for n, folded in self.constant.items()
                            if folded},
                           [self.buffers[key] for key in self.buffer_updates])

    def _emit_nodes(self, nodes):
        index = 0
        while index < len(nodes):
            node = nodes[index]
            segment = node.meta.get("ckpt_segment")
            if segment is None:
                self._emit_node(node)
                index += 1
                continue
            end = index
            while end < len(nodes) and nodes[end].meta.get(
                    "ckpt_segment") == segment:
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
            self.env[node] = self._converter(node)(self, node)
        except _Unsupported as why:
            location = node.meta.get("ckpt_location")
            where = f"{location[0]}:{location[1]}" if location else "?"
            self.unsupported.append(
                (where, f"{_describe_target(node)}: {why}"
                 if str(why) else _describe_target(node)))
            self.env[node] = _UNSUPPORTED

    def _known(self, node):
        try:
            return self.env[node]
        except KeyError:  # a folded constant
            return None

    def _emit_segment(self, nodes):
        """One checkpoint call: a ckpt.checkpoint region whose block
        arguments are the values it reads from outside (inputs,
        parameters, large constants) and whose results are the values
        read after it."""
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
        updates_before = dict(self.buffer_updates)
        try:
            for node in nodes:
                self._emit_node(node)
            results = [self.env[n] for n in outputs]
        finally:
            region, self.scope, self.env = self.scope, outer, outer_env
        # Buffers updated inside leave the region as results too.
        updated = [key for key, value in self.buffer_updates.items()
                   if updates_before.get(key) is not value]
        if any(value is _UNSUPPORTED for value in results):
            for node in outputs:
                self.env[node] = _UNSUPPORTED
            return
        flat = [v for value in results
                for v in (value if isinstance(value, list) else [value])]
        flat += [self.buffer_updates[key] for key in updated]
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
        for key in updated:
            self.buffer_updates[key] = next(made)

    # -- op conversion -------------------------------------------------------

    def _converter(self, node):
        """The function that writes `node`'s ops."""
        if node.op == "get_attr":
            return lambda self, node: self._constant(self.values[node],
                                                     node.name)
        if node.op == "call_module":
            module = self.graph_module.get_submodule(node.target)
            for kind, convert in _MODULE_CONVERTERS:
                if isinstance(module, kind):
                    return lambda self, node: convert(self, node, module)
            raise _Unsupported("")
        table = _METHOD_CONVERTERS if node.op == "call_method" else \
            _FUNCTION_CONVERTERS
        convert = table.get(node.target)
        if convert is None:
            raise _Unsupported("")
        return convert

    def arg(self, node, index, name, default=None):
        if index < len(node.args):
            return node.args[index]
        return node.kwargs.get(name, default)

    def static(self, node, index, name, default=None):
        """A non-tensor argument's value (folded when traced)."""
        value = self.arg(node, index, name, default)
        return self._static_value(value)

    def _static_value(self, value):
        if isinstance(value, torch.fx.Node):
            if not self.constant[value]:
                raise _Unsupported(f"'{value.name}' must not depend on inputs")
            return self.values[value]
        if isinstance(value, (list, tuple)):
            return type(value)(self._static_value(v) for v in value)
        return value


def _is_random(node, graph_module):
    if node.op == "call_module":
        return isinstance(graph_module.get_submodule(node.target),
                          torch.nn.Dropout)
    return node.target in (F.dropout, torch.dropout, torch.rand,
                           torch.randn, torch.rand_like, torch.randn_like,
                           torch.bernoulli)


# -- converters ----------------------------------------------------------------


def _unary(mnemonic):
    def convert(self, node, *_):
        x = self._operand(node.args[0])
        if not x.dtype.is_floating_point:
            raise _Unsupported("integer operand")
        return self._emit(node, f"ckpt.{mnemonic} %{x.name} : {x.type}")
    return convert


def _relu(self, node, module=None):
    inplace = module.inplace if module is not None else \
        self.static(node, 1, "inplace", False)
    source = node.args[0]
    # The import writes a new value; that is PyTorch's in-place ReLU only
    # while nothing else reads the value it overwrites.
    if inplace and isinstance(source, torch.fx.Node) and \
            len(source.users) > 1:
        raise _Unsupported("inplace=True on a value other operations read "
                           "too (use inplace=False)")
    return _unary("relu")(self, node)


def _gelu(self, node, module=None):
    x = self._operand(node.args[0])
    approximate = module.approximate if module is not None else \
        node.kwargs.get("approximate", "none")
    suffix = " approximate = tanh" if approximate == "tanh" else ""
    return self._emit(node, f"ckpt.gelu %{x.name}{suffix} : {x.type}")


def _binary(mnemonic):
    def convert(self, node):
        # Reflected operators (`2 - x`) arrive as operator.sub(2, x).
        a, b = node.args[0], node.args[1]
        if node.kwargs.get("alpha", 1) != 1:
            raise _Unsupported("alpha")
        tensor = next(v for v in (a, b) if isinstance(v, torch.fx.Node))
        like = self.values[tensor]
        lhs, rhs = self._operand(a, like), self._operand(b, like)
        if not (lhs.dtype.is_floating_point and rhs.dtype.is_floating_point):
            raise _Unsupported("integer tensors")
        result = self._result_type(node)
        if lhs.type == rhs.type == result:
            types = lhs.type
        else:
            types = f"({lhs.type}, {rhs.type}) -> {result}"
        return self._emit(node, f"ckpt.{mnemonic} %{lhs.name}, %{rhs.name} : "
                                f"{types}")
    return convert


def _pow(self, node):
    exponent = self._static_value(node.args[1])
    if exponent != 2:
        raise _Unsupported("only the exponent 2 (x * x) is supported")
    x = self._operand(node.args[0])
    return self._emit(node, f"ckpt.mul %{x.name}, %{x.name} : {x.type}")


def _softmax(mnemonic):
    def convert(self, node, module=None):
        x = self._operand(node.args[0])
        dim = module.dim if module is not None else \
            self.static(node, 1, "dim")
        if dim is None:
            raise _Unsupported("softmax without dim")
        dim = _normalize_dim(dim, len(x.shape))
        return self._emit(node, f"ckpt.{mnemonic} %{x.name} dim = {dim} : "
                                f"{x.type}")
    return convert


def _linear_op(self, node, x, weight, bias):
    operands = [x, weight] + ([bias] if bias is not None else [])
    names = ", ".join(f"%{v.name}" for v in operands)
    types = ", ".join(v.type for v in operands)
    return self._emit(node, f"ckpt.linear {names} : ({types}) -> "
                            f"{self._result_type(node)}")


def _linear_module(self, node, module):
    x = self._operand(node.args[0])
    bias = self._parameter(module.bias) if module.bias is not None else None
    return _linear_op(self, node, x, self._parameter(module.weight), bias)


def _linear_function(self, node):
    x = self._operand(node.args[0])
    weight = self._operand(self.arg(node, 1, "weight"))
    bias_arg = self.arg(node, 2, "bias")
    bias = self._operand(bias_arg) if bias_arg is not None else None
    return _linear_op(self, node, x, weight, bias)


def _matmul(self, node):
    lhs, rhs = self._operand(node.args[0]), self._operand(node.args[1])
    if len(lhs.shape) < 2 or len(rhs.shape) < 2:
        raise _Unsupported("operands of rank below 2")
    return self._emit(node, f"ckpt.matmul %{lhs.name}, %{rhs.name} : "
                            f"({lhs.type}, {rhs.type}) -> "
                            f"{self._result_type(node)}")


def _layer_norm_op(self, node, x, shape, weight, bias, eps):
    operands = [x] + [v for v in (weight, bias) if v is not None]
    text = f"ckpt.layer_norm %{x.name}"
    if weight is not None:
        text += f" weight %{weight.name}"
    if bias is not None:
        text += f" bias %{bias.name}"
    stats = tuple(x.shape[:len(x.shape) - len(shape)]) + (1,) * len(shape)
    stats_type = _tensor_type(stats, x.dtype)
    text += (f" normalized_shape = [{', '.join(map(str, shape))}]"
             f" eps = {_float_literal(eps, torch.float64)} : "
             f"({', '.join(v.type for v in operands)}) -> "
             f"({x.type}, {stats_type}, {stats_type})")
    values = self._emit(node, text, results=3, dtype=x.dtype,
                        shapes=[x.shape, stats, stats])
    return values[0]


def _layer_norm_module(self, node, module):
    x = self._operand(node.args[0])
    weight = self._parameter(module.weight) if module.weight is not None \
        else None
    bias = self._parameter(module.bias) if module.bias is not None else None
    return _layer_norm_op(self, node, x, tuple(module.normalized_shape),
                          weight, bias, module.eps)


def _layer_norm_function(self, node):
    x = self._operand(node.args[0])
    shape = tuple(self.static(node, 1, "normalized_shape"))
    weight, bias = (self.arg(node, i, n) for i, n in ((2, "weight"),
                                                      (3, "bias")))
    weight = self._operand(weight) if weight is not None else None
    bias = self._operand(bias) if bias is not None else None
    return _layer_norm_op(self, node, x, shape, weight, bias,
                          self.static(node, 4, "eps", 1e-5))


def _dropout_op(self, node, p, training):
    x = self._operand(node.args[0])
    if not training or p == 0:
        return x
    return self._emit(node, f"ckpt.dropout %{x.name} p = "
                            f"{_float_literal(p, torch.float64)} : {x.type}")


def _dropout_module(self, node, module):
    return _dropout_op(self, node, module.p, module.training)


def _dropout_function(self, node):
    return _dropout_op(self, node, self.static(node, 1, "p", 0.5),
                       self.static(node, 2, "training", True))


def _embedding_op(self, node, indices, weight):
    return self._emit(node, f"ckpt.embedding %{indices.name}, "
                            f"%{weight.name} : ({indices.type}, "
                            f"{weight.type}) -> {self._result_type(node)}")


def _embedding_module(self, node, module):
    if module.padding_idx is not None or module.max_norm is not None:
        raise _Unsupported("padding_idx and max_norm")
    return _embedding_op(self, node, self._operand(node.args[0]),
                         self._parameter(module.weight))


def _embedding_function(self, node):
    if any(self.static(node, i, n) is not None for i, n in
           ((2, "padding_idx"), (3, "max_norm"))):
        raise _Unsupported("padding_idx and max_norm")
    return _embedding_op(self, node, self._operand(node.args[0]),
                         self._operand(self.arg(node, 1, "weight")))


def _reshape(self, node, *_):
    x = self._operand(node.args[0])
    result = self._result_type(node)
    if result == x.type:
        return x
    return self._emit(node, f"ckpt.reshape %{x.name} : {x.type} -> {result}")


def _identity(self, node, *_):
    return self._operand(node.args[0])


def _to(self, node):
    x = self._operand(node.args[0])
    if self.values[node].dtype != x.dtype:
        raise _Unsupported("a change of element type")
    return x


def _permute_op(self, node, x, permutation):
    if list(permutation) == list(range(len(permutation))):
        return x
    return self._emit(node, f"ckpt.transpose %{x.name} permutation = "
                            f"[{', '.join(map(str, permutation))}] : "
                            f"{x.type} -> {self._result_type(node)}")


def _transpose(self, node):
    x = self._operand(node.args[0])
    rank = len(x.shape)
    a = _normalize_dim(self.static(node, 1, "dim0"), rank)
    b = _normalize_dim(self.static(node, 2, "dim1"), rank)
    permutation = list(range(rank))
    permutation[a], permutation[b] = b, a
    return _permute_op(self, node, x, permutation)


def _t(self, node):
    x = self._operand(node.args[0])
    return _permute_op(self, node, x, list(reversed(range(len(x.shape)))))


def _permute(self, node):
    x = self._operand(node.args[0])
    dims = node.args[1:] if len(node.args) > 2 else self.static(node, 1, "dims")
    dims = self._static_value(dims)
    if isinstance(dims, int):
        dims = [dims]
    return _permute_op(self, node, x,
                       [_normalize_dim(d, len(x.shape)) for d in dims])


def _expand(self, node):
    x = self._operand(node.args[0])
    result = self._result_type(node)
    if result == x.type:
        return x
    return self._emit(node, f"ckpt.broadcast_to %{x.name} : {x.type} -> "
                            f"{result}")


def _slice_op(self, node, x, dim, start, end, step, shape):
    if start == 0 and end == x.shape[dim] and step == 1:
        return x
    result = _Value(None, shape, x.dtype)
    step_text = f" step = {step}" if step != 1 else ""
    value = self._emit(node, f"ckpt.slice %{x.name} dim = {dim} start = "
                             f"{start} end = {end}{step_text} : {x.type} -> "
                             f"{result.type}", dtype=x.dtype, shapes=[shape])
    return value


def _getitem(self, node):
    source, index = node.args
    value = self.env[source] if isinstance(source, torch.fx.Node) else None
    if isinstance(value, list):
        return value[self._static_value(index)]
    x = self._operand(source)
    index = self._static_value(index)
    if not isinstance(index, tuple):
        index = (index,)
    if any(i is Ellipsis for i in index):
        at = index.index(Ellipsis)
        fill = len(x.shape) - (len(index) - 1 - index.count(None))
        index = index[:at] + (slice(None),) * fill + index[at + 1:]
    dim = 0
    current = x
    for item in index:
        if item is None:
            continue
        if isinstance(item, int):
            item = _normalize_dim(item, current.shape[dim])
            item = slice(item, item + 1)
            squeeze = True
        elif isinstance(item, slice):
            squeeze = False
        else:
            raise _Unsupported("indexing by a tensor")
        start, end, step = item.indices(current.shape[dim])
        if step < 1:
            raise _Unsupported("negative slice steps")
        size = max(0, -(-(end - start) // step))
        shape = current.shape[:dim] + (size,) + current.shape[dim + 1:]
        current = _slice_op(self, node, current, dim, start,
                            start + (size - 1) * step + 1 if size else start,
                            step, shape)
        dim += 0 if squeeze else 1
        if squeeze:
            shape = current.shape[:dim] + current.shape[dim + 1:]
            current = self._emit(
                node, f"ckpt.reshape %{current.name} : {current.type} -> "
                      f"{_tensor_type(shape, current.dtype)}",
                dtype=current.dtype, shapes=[shape])
    result = self._result_type(node)
    if current.type != result:  # None inserted unit dimensions
        current = self._emit(node, f"ckpt.reshape %{current.name} : "
                                   f"{current.type} -> {result}")
    return current


def _split_sizes(self, node, x, dim, chunks):
    total = x.shape[dim]
    if chunks is not None:
        size = -(-total // chunks)
        sizes = [min(size, total - i) for i in range(0, total, size)]
    else:
        split = self.static(node, 1, "split_size_or_sections")
        if split is None:
            split = self.static(node, 1, "split_size")
        if isinstance(split, int):
            sizes = [min(split, total - i) for i in range(0, total, split)]
        else:
            sizes = list(split)
    values, start = [], 0
    for size in sizes:
        shape = x.shape[:dim] + (size,) + x.shape[dim + 1:]
        values.append(_slice_op(self, node, x, dim, start, start + size, 1,
                                shape))
        start += size
    return values


def _split(self, node):
    x = self._operand(node.args[0])
    dim = _normalize_dim(self.static(node, 2, "dim", 0), len(x.shape))
    return _split_sizes(self, node, x, dim, None)


def _chunk(self, node):
    x = self._operand(node.args[0])
    dim = _normalize_dim(self.static(node, 2, "dim", 0), len(x.shape))
    return _split_sizes(self, node, x, dim, self.static(node, 1, "chunks"))


def _cat(self, node):
    tensors = self.arg(node, 0, "tensors")
    values = [self._operand(t) for t in tensors]
    dim = _normalize_dim(self.static(node, 1, "dim", 0), len(values[0].shape))
    return self._emit(node, f"ckpt.concat {', '.join('%' + v.name for v in values)} "
                            f"dim = {dim} : ({', '.join(v.type for v in values)}) "
                            f"-> {self._result_type(node)}")


def _masked_fill(self, node):
    x = self._operand(node.args[0])
    mask = self._operand(node.args[1])
    if mask.dtype != torch.bool:
        raise _Unsupported("a mask that is not bool")
    fill = self._operand(node.args[2], self.values[node.args[0]])
    return self._emit(node, f"ckpt.where %{mask.name}, %{fill.name}, %{x.name} : "
                            f"({mask.type}, {fill.type}, {x.type}) -> "
                            f"{self._result_type(node)}")


def _where(self, node):
    like = self.values[node]
    condition = self._operand(node.args[0])
    a, b = self._operand(node.args[1], like), self._operand(node.args[2], like)
    if condition.dtype != torch.bool:
        raise _Unsupported("a condition that is not bool")
    return self._emit(node, f"ckpt.where %{condition.name}, %{a.name}, %{b.name} : "
                            f"({condition.type}, {a.type}, {b.type}) -> "
                            f"{self._result_type(node)}")


def _reduce(mnemonic):
    def convert(self, node):
        x = self._operand(node.args[0])
        dims = self.static(node, 1, "dim")
        keepdim = self.static(node, 2, "keepdim", False)
        if node.kwargs.get("dtype") is not None:
            raise _Unsupported("dtype")
        text = f"ckpt.{mnemonic} %{x.name}"
        if dims is not None:
            if isinstance(dims, int):
                dims = [dims]
            dims = sorted(_normalize_dim(d, len(x.shape)) for d in dims)
            text += f" dims = [{', '.join(map(str, dims))}]"
        if keepdim:
            text += " keepdim"
        return self._emit(node, f"{text} : {x.type} -> "
                                f"{self._result_type(node)}")
    return convert


def _cross_entropy(self, node):
    logits = self._operand(node.args[0])
    labels = self._operand(self.arg(node, 1, "target"))
    for index, name, default in ((2, "weight", None), (4, "ignore_index", -100),
                                 (6, "label_smoothing", 0.0)):
        if self.static(node, index, name, default) != default:
            raise _Unsupported(f"{name}")
    if self.static(node, 5, "reduction", "mean") != "mean":
        raise _Unsupported("reductions other than 'mean'")
    if len(logits.shape) != 2 or len(labels.shape) != 1:
        raise _Unsupported("logits must be [N, C] and labels [N]; reshape "
                           "them first")
    return self._emit(node, f"ckpt.cross_entropy %{logits.name}, "
                            f"%{labels.name} : ({logits.type}, {labels.type}) "
                            f"-> {self._result_type(node)}")


def _mse_loss(self, node):
    x = self._operand(node.args[0])
    target = self._operand(self.arg(node, 1, "target"))
    if self.static(node, 4, "reduction", "mean") != "mean":
        raise _Unsupported("reductions other than 'mean'")
    return self._emit(node, f"ckpt.mse_loss %{x.name}, %{target.name} : "
                            f"({x.type}, {target.type}) -> "
                            f"{self._result_type(node)}")


# -- convolution, pooling, batch norm, upsampling ------------------------------


def _pair(value, name):
    """A 2-D size given as one int or as two."""
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


def _window(kernel, stride, padding):
    """A pooling window's attributes; the stride is written when it is not
    the kernel size (the default of PyTorch and of the ops: None, or []
    for torch.max_pool2d)."""
    kernel = _pair(kernel, "kernel_size")
    stride = _pair(stride, "stride") if stride not in (None, [], ()) \
        else kernel
    return f" kernel = [{kernel[0]}, {kernel[1]}]" + _attributes(
        ("stride", stride, kernel),
        ("padding", _pair(padding, "padding"), (0, 0)))


def _require_images(x):
    if len(x.shape) != 4:
        raise _Unsupported(f"a rank-{len(x.shape)} input (only batched "
                           "images, [N, C, H, W])")


def _conv2d_op(self, node, x, weight, bias, stride, padding, dilation,
               groups):
    if isinstance(padding, str):
        raise _Unsupported(f"padding='{padding}' (give the padding as "
                           "numbers)")
    _require_images(x)
    operands = [x, weight] + ([bias] if bias is not None else [])
    text = f"ckpt.conv2d %{x.name}, %{weight.name}"
    if bias is not None:
        text += f" bias %{bias.name}"
    text += _attributes(("stride", _pair(stride, "stride"), (1, 1)),
                        ("padding", _pair(padding, "padding"), (0, 0)),
                        ("dilation", _pair(dilation, "dilation"), (1, 1)),
                        ("groups", groups, 1))
    return self._emit(node, f"{text} : ({', '.join(v.type for v in operands)})"
                            f" -> {self._result_type(node)}")


def _conv2d_module(self, node, module):
    if module.padding_mode != "zeros":
        raise _Unsupported(f"padding_mode='{module.padding_mode}' (only "
                           "'zeros')")
    bias = self._parameter(module.bias) if module.bias is not None else None
    return _conv2d_op(self, node, self._operand(node.args[0]),
                      self._parameter(module.weight), bias, module.stride,
                      module.padding, module.dilation, module.groups)


def _conv2d_function(self, node):
    bias = self.arg(node, 2, "bias")
    return _conv2d_op(
        self, node, self._operand(node.args[0]),
        self._operand(self.arg(node, 1, "weight")),
        self._operand(bias) if bias is not None else None,
        self.static(node, 3, "stride", 1), self.static(node, 4, "padding", 0),
        self.static(node, 5, "dilation", 1), self.static(node, 6, "groups", 1))


def _batch_norm_module(self, node, module):
    if not module.track_running_stats:
        raise _Unsupported("track_running_stats=False (only batch norm "
                           "with running statistics)")
    if module.momentum is None:
        raise _Unsupported("momentum=None (a cumulative moving average)")
    x = self._operand(node.args[0])
    _require_images(x)
    operands = [x]
    text = f"ckpt.batch_norm %{x.name}"
    if module.affine:
        weight, bias = (self._parameter(module.weight),
                        self._parameter(module.bias))
        operands += [weight, bias]
        text += f" weight %{weight.name} bias %{bias.name}"
    mean, var = (self._buffer(module.running_mean),
                 self._buffer(module.running_var))
    operands += [mean, var]
    channels = (x.shape[1],)
    statistic = _tensor_type(channels, x.dtype)
    # The updated running statistics are results (the step does not
    # mutate its arguments); the batch mean and reciprocal standard
    # deviation are what the gradient reads.
    values = self._emit(
        node, f"{text} running_mean %{mean.name} running_var %{var.name}" +
              _attributes(("momentum", module.momentum, 0.1),
                          ("eps", module.eps, 1e-5)) +
              f" : ({', '.join(v.type for v in operands)}) -> "
              f"({x.type}, {', '.join([statistic] * 4)})",
        results=5, dtype=x.dtype, shapes=[x.shape] + [channels] * 4)
    self.buffer_updates[id(module.running_mean)] = values[3]
    self.buffer_updates[id(module.running_var)] = values[4]
    return values[0]


def _max_pool2d_op(self, node, x, kernel, stride, padding, dilation,
                   ceil_mode, return_indices):
    if return_indices:
        raise _Unsupported("return_indices=True")
    if ceil_mode:
        raise _Unsupported("ceil_mode=True")
    if _pair(dilation, "dilation") != (1, 1):
        raise _Unsupported(f"dilation={dilation!r} (only 1)")
    _require_images(x)
    y = self.values[node]
    values = self._emit(
        node, f"ckpt.max_pool2d %{x.name}" + _window(kernel, stride, padding) +
              f" : ({x.type}) -> ({_tensor_type(y.shape, y.dtype)}, "
              f"{_tensor_type(y.shape, torch.int64)})",
        results=2, dtype=[y.dtype, torch.int64], shapes=[y.shape] * 2)
    return values[0]


def _max_pool2d_module(self, node, module):
    return _max_pool2d_op(self, node, self._operand(node.args[0]),
                          module.kernel_size, module.stride, module.padding,
                          module.dilation, module.ceil_mode,
                          module.return_indices)


def _max_pool2d_function(self, node):
    return _max_pool2d_op(
        self, node, self._operand(node.args[0]),
        self.static(node, 1, "kernel_size"), self.static(node, 2, "stride"),
        self.static(node, 3, "padding", 0),
        self.static(node, 4, "dilation", 1),
        self.static(node, 5, "ceil_mode", False),
        self.static(node, 6, "return_indices", False))


def _avg_pool2d_op(self, node, x, kernel, stride, padding, ceil_mode,
                   count_include_pad, divisor_override):
    if ceil_mode:
        raise _Unsupported("ceil_mode=True")
    if divisor_override is not None:
        raise _Unsupported("divisor_override")
    _require_images(x)
    return self._emit(
        node, f"ckpt.avg_pool2d %{x.name}" + _window(kernel, stride, padding) +
              _attributes(("count_include_pad", bool(count_include_pad),
                           True)) +
              f" : {x.type} -> {self._result_type(node)}")


def _avg_pool2d_module(self, node, module):
    return _avg_pool2d_op(self, node, self._operand(node.args[0]),
                          module.kernel_size, module.stride, module.padding,
                          module.ceil_mode, module.count_include_pad,
                          module.divisor_override)


def _avg_pool2d_function(self, node):
    return _avg_pool2d_op(
        self, node, self._operand(node.args[0]),
        self.static(node, 1, "kernel_size"), self.static(node, 2, "stride"),
        self.static(node, 3, "padding", 0),
        self.static(node, 4, "ceil_mode", False),
        self.static(node, 5, "count_include_pad", True),
        self.static(node, 6, "divisor_override"))


def _adaptive_avg_pool2d(self, node, *_):
    x = self._operand(node.args[0])
    _require_images(x)
    y = self.values[node]
    if tuple(y.shape[2:]) == (1, 1):
        return self._emit(node, f"ckpt.reduce_mean %{x.name} dims = [2, 3] "
                                f"keepdim : {x.type} -> "
                                f"{self._result_type(node)}")
    if any(size % pooled for size, pooled in zip(x.shape[2:], y.shape[2:])):
        raise _Unsupported(f"an output size {tuple(y.shape[2:])} that does "
                           f"not divide the input's {tuple(x.shape[2:])}")
    # Pooled windows of an evenly divided input do not overlap: a plain
    # average pool with the window as its stride.
    window = tuple(size // pooled
                   for size, pooled in zip(x.shape[2:], y.shape[2:]))
    return self._emit(node, f"ckpt.avg_pool2d %{x.name}" +
                      _window(window, window, 0) +
                      f" : {x.type} -> {self._result_type(node)}")


def _upsample_op(self, node, x, mode, scale_factor):
    if mode != "nearest":
        raise _Unsupported(f"mode='{mode}' (only 'nearest')")
    _require_images(x)
    factors = scale_factor if isinstance(scale_factor, (tuple, list)) \
        else [scale_factor]
    y = self.values[node]
    if any(f is not None and not float(f).is_integer() for f in factors) or \
            any(out % size for out, size in zip(y.shape[2:], x.shape[2:])):
        raise _Unsupported("a scale that is not a whole number")
    scale = tuple(out // size for out, size in zip(y.shape[2:], x.shape[2:]))
    return self._emit(node, f"ckpt.upsample_nearest2d %{x.name} scale = "
                            f"[{scale[0]}, {scale[1]}] : {x.type} -> "
                            f"{self._result_type(node)}")


def _upsample_module(self, node, module):
    return _upsample_op(self, node, self._operand(node.args[0]), module.mode,
                        module.scale_factor)


def _interpolate(self, node):
    if self.static(node, 6, "antialias", False):
        raise _Unsupported("antialias=True")
    return _upsample_op(self, node, self._operand(node.args[0]),
                        self.static(node, 3, "mode", "nearest"),
                        self.static(node, 2, "scale_factor"))


_MODULE_CONVERTERS = [
    (torch.nn.Linear, _linear_module),
    (torch.nn.LayerNorm, _layer_norm_module),
    (torch.nn.GELU, _gelu),
    (torch.nn.ReLU, _relu),
    (torch.nn.SiLU, _unary("silu")),
    (torch.nn.Tanh, _unary("tanh")),
    (torch.nn.Sigmoid, _unary("sigmoid")),
    (torch.nn.Dropout, _dropout_module),
    (torch.nn.Embedding, _embedding_module),
    (torch.nn.Softmax, _softmax("softmax")),
    (torch.nn.LogSoftmax, _softmax("log_softmax")),
    (torch.nn.Identity, _identity),
    (torch.nn.Conv2d, _conv2d_module),
    (torch.nn.BatchNorm2d, _batch_norm_module),
    (torch.nn.MaxPool2d, _max_pool2d_module),
    (torch.nn.AvgPool2d, _avg_pool2d_module),
    (torch.nn.AdaptiveAvgPool2d, _adaptive_avg_pool2d),
    (torch.nn.Upsample, _upsample_module),
]

_FUNCTION_CONVERTERS = {
    operator.add: _binary("add"), torch.add: _binary("add"),
    operator.sub: _binary("sub"), torch.sub: _binary("sub"),
    operator.mul: _binary("mul"), torch.mul: _binary("mul"),
    operator.truediv: _binary("div"), torch.div: _binary("div"),
    operator.neg: _unary("neg"), torch.neg: _unary("neg"),
    operator.pow: _pow, torch.pow: _pow,
    operator.matmul: _matmul, torch.matmul: _matmul, torch.bmm: _matmul,
    torch.mm: _matmul,
    operator.getitem: _getitem,
    torch.exp: _unary("exp"), torch.log: _unary("log"),
    torch.rsqrt: _unary("rsqrt"),
    torch.tanh: _unary("tanh"), torch.sigmoid: _unary("sigmoid"),
    torch.relu: _unary("relu"), F.relu: _relu,
    F.silu: _unary("silu"), F.gelu: _gelu, F.tanh: _unary("tanh"),
    F.sigmoid: _unary("sigmoid"),
    F.softmax: _softmax("softmax"), torch.softmax: _softmax("softmax"),
    F.log_softmax: _softmax("log_softmax"),
    torch.log_softmax: _softmax("log_softmax"),
    F.linear: _linear_function, F.layer_norm: _layer_norm_function,
    F.dropout: _dropout_function, F.embedding: _embedding_function,
    torch.reshape: _reshape, torch.flatten: _reshape,
    torch.unsqueeze: _reshape, torch.squeeze: _reshape,
    torch.transpose: _transpose, torch.permute: _permute, torch.t: _t,
    torch.split: _split, torch.chunk: _chunk, torch.cat: _cat,
    torch.where: _where, torch.masked_fill: _masked_fill,
    torch.sum: _reduce("reduce_sum"), torch.mean: _reduce("reduce_mean"),
    torch.amax: _reduce("reduce_max"),
    F.cross_entropy: _cross_entropy, F.mse_loss: _mse_loss,
    torch.broadcast_to: _expand,
    F.conv2d: _conv2d_function,
    F.max_pool2d: _max_pool2d_function, torch.max_pool2d: _max_pool2d_function,
    F.avg_pool2d: _avg_pool2d_function,
    F.adaptive_avg_pool2d: _adaptive_avg_pool2d,
    F.interpolate: _interpolate,
}

_METHOD_CONVERTERS = {
    "add": _binary("add"), "sub": _binary("sub"), "mul": _binary("mul"),
    "div": _binary("div"), "neg": _unary("neg"), "pow": _pow,
    "matmul": _matmul, "bmm": _matmul, "exp": _unary("exp"),
    "log": _unary("log"), "rsqrt": _unary("rsqrt"), "tanh": _unary("tanh"),
    "sigmoid": _unary("sigmoid"), "relu": _unary("relu"),
    "softmax": _softmax("softmax"), "log_softmax": _softmax("log_softmax"),
    "view": _reshape, "reshape": _reshape, "flatten": _reshape,
    "unsqueeze": _reshape, "squeeze": _reshape, "view_as": _reshape,
    "reshape_as": _reshape, "contiguous": _identity, "clone": _identity,
    "float": _to, "to": _to, "type_as": _to,
    "transpose": _transpose, "permute": _permute, "t": _t,
    "expand": _expand, "expand_as": _expand,
    "split": _split, "chunk": _chunk, "masked_fill": _masked_fill,
    "sum": _reduce("reduce_sum"), "mean": _reduce("reduce_mean"),
    "amax": _reduce("reduce_max"),
}


def import_module(module, example_inputs, function_name="forward"):
    """Imports `module` (in training mode) traced on `example_inputs` (a
    tuple of tensors, one per forward argument). Returns a TorchImport;
    raises ImportFailure naming what cannot be imported and where."""
    if not function_name.replace("_", "a").isalnum():
        raise ImportFailure(f"function name '{function_name}' is not an "
                            "identifier")
    module.train()
    importer = _Importer(module, tuple(example_inputs), function_name)
    return importer.import_()


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------

_DTYPES = {"float32": torch.float32, "f32": torch.float32,
           "float64": torch.float64, "f64": torch.float64,
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


def _write_reference(module, inputs, result, directory):
    """PyTorch's loss and gradients for the example inputs as
    DIR/result0.npy and DIR/gradN.npy, N the parameter's argument number,
    and the buffers' updated values as DIR/resultK.npy, K = 1, 2, ... in
    the order the function returns them (ckpt-run --reference DIR)."""
    module.zero_grad()
    loss = module(*inputs)
    # Taken before backward: recomputing a checkpointed batch norm in
    # PyTorch updates its running statistics a second time.
    buffers = dict(module.named_buffers())
    returned = [loss.detach().clone()] + [buffers[name].detach().clone()
                                          for name in result.updated_buffers]
    loss.backward()
    parameters = dict(module.named_parameters())
    os.makedirs(directory, exist_ok=True)
    for position, value in enumerate(returned):
        _atomic_write(os.path.join(directory, f"result{position}.npy"),
                      lambda f, v=value: np.save(f, v.numpy()))
    for index, (name, kind, _) in enumerate(result.arguments):
        if kind == "parameter":
            gradient = parameters[name].grad
            gradient = torch.zeros_like(parameters[name]) if gradient is None \
                else gradient
            _atomic_write(os.path.join(directory, f"grad{index}.npy"),
                          lambda f, g=gradient: np.save(f, g.numpy()))


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
    module = factory(**kwargs)
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
    for directory in (os.path.dirname(_THIS_FILE),
                      os.path.dirname(os.path.realpath(sys.argv[0]))):
        tool = os.path.join(directory, "ckpt-opt")
        if os.access(tool, os.X_OK):
            run = subprocess.run([tool, "-", "-o", os.devnull], input=text,
                                 capture_output=True, text=True)
            if run.returncode != 0:
                raise ImportFailure("internal error: the written MLIR does "
                                    "not verify:\n" + run.stderr)
            return


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="ckpt-import-torch",
        description="Imports a PyTorch module whose forward returns the "
                    "training loss into the ckpt dialect, tracing it with "
                    "torch.fx on inputs of the given shapes.")
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
    args = parser.parse_args(argv)
    try:
        if args.reference and not args.weights:
            raise ImportFailure("--reference needs --weights: the gradients "
                                "are for those weights and inputs")
        module, inputs = load_model(args.model, args.arg, args.input_shape,
                                    args.seed)
        name = args.function or args.model.rpartition(":")[2].lower()
        result = import_module(module, inputs, name)
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
            _write_reference(module, inputs, result, args.reference)
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
