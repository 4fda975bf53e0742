"""What PyTorch's min-cut rematerialization partitioner saves and recomputes.

Reference numbers to set against ckpt-opt's plans: `min_cut_plan` traces a
module whose forward returns a scalar loss with functorch's `aot_module`,
partitions the joint graph with `min_cut_rematerialization_partition` (and,
for reference, `default_partition`), and measures the tensors saved for the
backward and the forward work the backward recomputes.

FLOP convention: the per-op counts of docs/CostModel.md, with aten ops
mapped onto ckpt ops:
  mm/bmm/matmul 2*batch*M*N*K; addmm (= linear with bias) adds M*N;
  add/sub/rsub/mul/div/neg/relu/where/masked_fill/threshold_backward 1 per
  result element; native_dropout(_backward) 2; rsqrt 2; exp/log/tanh/sigmoid 4;
  silu 5, silu_backward 8; gelu 8, gelu_backward 12; sigmoid_backward,
  tanh_backward, mse_loss_backward 3; _softmax/_log_softmax 5, their
  _backward_data 4; native_layer_norm 8 and native_layer_norm_backward 12
  per input element; sum/mean/amax 1 per input element; mse_loss 3 per input
  element; cross_entropy is _log_softmax + nll_loss, so nll_loss_forward
  counts 0 (5 per logit in total) and nll_loss_backward 2 per element (with
  _log_softmax_backward_data, 6 per logit); embedding_dense_backward 1 per
  accumulated element; convolution 2*N*OC*OH*OW*(C/groups)*KH*KW plus the
  bias, convolution_backward as much per gradient it makes; batch norm 8
  per input element, its backward 12; max and average pooling KH*KW per
  output element; views, copies, concatenation, upsampling and tensor
  factories 0; any other op 1 per result element.

Runs with the project's virtual environment (.venv: PyTorch 2.15, networkx).
"""
import operator

import torch
import torch.fx as fx
from functorch.compile import (aot_module, default_partition, make_boxed_func,
                               min_cut_rematerialization_partition)

# Factors per result element (ops not listed: 1).
_PER_ELEMENT = {
    "native_dropout": 2, "native_dropout_backward": 2,
    "exp": 4, "log": 4, "tanh": 4, "sigmoid": 4, "rsqrt": 2,
    "silu": 5, "silu_backward": 8, "gelu": 8, "gelu_backward": 12,
    "sigmoid_backward": 3, "tanh_backward": 3, "mse_loss_backward": 3,
    "_softmax": 5, "_log_softmax": 5,
    "_softmax_backward_data": 4, "_log_softmax_backward_data": 4,
    "nll_loss_forward": 0, "nll_loss2d_forward": 0, "nll_loss_backward": 2,
}
# Factors per element of the first operand (the output is smaller or a tuple).
_PER_INPUT_ELEMENT = {
    "native_layer_norm": 8, "native_layer_norm_backward": 12,
    "native_batch_norm": 8, "native_batch_norm_backward": 12,
    "sum": 1, "mean": 1, "amax": 1, "mse_loss": 3,
    "embedding_dense_backward": 1,
}
# Data movement and factories; schema-declared views are caught separately.
_ZERO = {
    "_unsafe_view", "clone", "_to_copy", "copy", "copy_", "contiguous", "cat",
    "stack", "embedding", "index_select", "zeros", "zeros_like", "ones",
    "ones_like", "full", "full_like", "new_zeros", "new_ones", "new_empty",
    "empty", "empty_like", "scalar_tensor", "lift_fresh_copy", "arange",
    "upsample_nearest2d",
}


def _name(node):
    t = node.target
    return t._overloadpacket.__name__ if hasattr(t, "_overloadpacket") else str(t)


def _is_view(node):
    # Views read no data and cost nothing; their schema says they alias an input.
    if node.op != "call_function":
        return False
    if node.target is operator.getitem:  # an element of split/unbind
        return any(_is_view(a) for a in node.args if isinstance(a, fx.Node))
    schema = getattr(node.target, "_schema", None)
    if schema is None:
        return False
    return _name(node) == "_unsafe_view" or any(
        r.alias_info is not None and not r.alias_info.is_write for r in schema.returns)


def _meta(node):
    tm = node.meta.get("tensor_meta") if isinstance(node, fx.Node) else None
    return tm if tm is not None and hasattr(tm, "shape") else None


def _numel(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _bytes(shape, dtype):
    return _numel(shape) * torch.empty((), dtype=dtype).element_size()


def node_flops(node):
    """FLOPs of one call_function node of an aten graph (see module docstring)."""
    if node.op != "call_function" or _is_view(node) or node.target is operator.getitem:
        return 0
    name, out = _name(node), _meta(node)
    ins = [_meta(a) for a in node.args if isinstance(a, fx.Node)]
    if name in ("mm", "bmm", "matmul", "addmm", "baddbmm"):
        lhs = ins[1] if name in ("addmm", "baddbmm") else ins[0]
        flops = 2 * _numel(out.shape) * int(lhs.shape[-1])  # batch*M*N outputs, K each
        return flops + (_numel(out.shape) if name in ("addmm", "baddbmm") else 0)
    if name == "convolution":
        # 2 x N x OC x OH x OW x (C / groups) x KH x KW, plus the bias.
        flops = 2 * _numel(out.shape) * _numel(ins[1].shape[1:])
        return flops + (_numel(out.shape) if node.args[2] is not None else 0)
    if name == "convolution_backward":
        # Each gradient it makes costs the forward's multiply-adds.
        made = sum(1 for wanted in node.args[-1][:2] if wanted)
        return made * 2 * _numel(ins[0].shape) * _numel(ins[2].shape[1:])
    if name in ("max_pool2d_with_indices", "avg_pool2d"):
        # max pooling returns (values, indices) without metadata: the
        # output size from the window (floor mode, as the zoo uses).
        kernel = list(node.args[1])
        stride = list(node.args[2]) if len(node.args) > 2 and node.args[2] else kernel
        padding = list(node.args[3]) if len(node.args) > 3 else [0, 0]
        shape = list(ins[0].shape)
        spatial = [(size + 2 * pad - k) // step + 1 for size, pad, k, step
                   in zip(shape[-2:], padding, kernel, stride)]
        return _numel(kernel) * _numel(shape[:-2] + spatial)
    if name in _ZERO:
        return 0
    if name in _PER_INPUT_ELEMENT:
        return _PER_INPUT_ELEMENT[name] * (_numel(ins[0].shape) if ins and ins[0] else 0)
    return _PER_ELEMENT.get(name, 1) * (_numel(out.shape) if out is not None else 0)


def _saved(fw_module, primals):
    """Bytes the forward hands to the backward, split into primals and activations.

    Saved values are the forward graph's outputs beyond the user output (the
    loss). Views are charged to the tensor they view, once per tensor, as
    memory is: a saved primal or a view of one (a transposed weight) counts
    as a parameter/input, not as an activation.
    """
    out_node = next(n for n in fw_module.graph.nodes if n.op == "output")
    saved = [n for n in list(out_node.args[0])[1:] if isinstance(n, fx.Node)]
    measured, roots = None, {}
    for node in saved:
        root = node
        while _is_view(root):
            root = root.args[0]
        tm = _meta(root)
        if tm is not None:
            roots[root] = _bytes(tm.shape, tm.dtype)
            continue
        # No metadata: run the forward once and measure the storage it returns.
        if measured is None:
            with torch.no_grad():
                measured = fw_module(*primals)
        t = measured[list(out_node.args[0]).index(node)]
        if isinstance(t, torch.Tensor):
            roots[root] = max(roots.get(root, 0), t.untyped_storage().nbytes())
    param = sum(b for r, b in roots.items() if r.op == "placeholder")
    return {"count": len(saved), "param": param, "act": sum(roots.values()) - param}


def min_cut_plan(module: torch.nn.Module, example_inputs: tuple, compiler: str = "nvfuser") -> dict:
    """Partition `module` (forward returns a scalar loss) with the min-cut partitioner.

    `compiler` is the partitioner's own knob: "nvfuser" lets it recompute
    only pointwise/reduction ops; "inductor" (the default) also lets it
    recompute views and a few more. The backward accumulates into the
    module's .grad as a real step would.
    """
    graphs = {}

    def partition(joint, joint_inputs, **options):
        primals = joint_inputs[0]
        # default_partition leaves the joint graph alone; the min-cut one
        # rewrites it (CSE), so it goes second.
        dfw, _ = default_partition(joint, joint_inputs, **options)
        graphs["default"] = _saved(dfw, primals)
        fw, bw = min_cut_rematerialization_partition(joint, joint_inputs, compiler=compiler,
                                                     **options)
        graphs.update(fw=fw, bw=bw, saved=_saved(fw, primals))
        return fw, bw

    def keep(gm, _args):  # run the graphs as they are (boxed: no warning)
        return make_boxed_func(gm.forward)

    compiled = aot_module(module, fw_compiler=keep, bw_compiler=keep, partition_fn=partition)
    compiled(*example_inputs).backward()

    fw, bw = graphs["fw"], graphs["bw"]
    # Both graphs are cut from the same joint graph and keep its node names:
    # a node computed in both is forward work the backward recomputes.
    fw_names = {n.name for n in fw.graph.nodes if n.op == "call_function"}
    recomputed = [n for n in bw.graph.nodes if n.op == "call_function" and n.name in fw_names]
    saved = graphs["saved"]
    return {
        "saved_count": saved["count"],
        "saved_bytes": saved["param"] + saved["act"],
        "saved_activation_bytes": saved["act"],
        "saved_param_bytes": saved["param"],
        "recomputed_ops": [_name(n) for n in recomputed],
        "recompute_flops": sum(node_flops(n) for n in recomputed),
        "forward_flops": sum(node_flops(n) for n in fw.graph.nodes),
        "default_saved_activation_bytes": graphs["default"]["act"],
    }
