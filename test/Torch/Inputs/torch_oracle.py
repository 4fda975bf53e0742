"""PyTorch as the oracle of the PyTorch bridge's saved tensors.

  saved FILE.py:NAME --input NAME=D0,D1[:DTYPE[:BOUND]] ... [--arg KEY=VALUE]
      imports the module, builds its training step with ckpt-opt (from
      PATH), and compares what our analysis saves for backward with what
      autograd saves, node by node; exits 1 on a difference that is not one
      of the documented ones, which it lists.
"""

import argparse
import json
import operator
import os
import subprocess
import sys

import torch

from ckpt_torch import importer as ckpt_import_torch


aten = torch.ops.aten
# Ops whose result is their operand's storage in PyTorch (views) or value
# to ckpt: reshapes and as_strided as the identity (the only one the
# importer takes; views in both), copies that ckpt does not make,
# broadcasts and transposes (views in PyTorch; ckpt keeps one of the
# operand and the result, of the same bytes: grouped-query attention's
# repeated keys, a transposed key).
_SAME_VALUE = {aten.view.default, aten._unsafe_view.default,
               aten.reshape.default, aten.unsqueeze.default,
               aten.squeeze.default, aten.squeeze.dim, aten.squeeze.dims,
               aten.alias.default, aten.clone.default, aten._to_copy.default,
               aten.expand.default, aten.permute.default,
               aten.transpose.int, aten.t.default, aten.as_strided.default}


# Views of part of a tensor: PyTorch saves (and keeps alive) the whole
# base, ckpt a copy of the part; both are counted at the base.
_PART_OF = {aten.slice.Tensor, aten.select.int, aten.narrow.default}
_SPLITS = {aten.split.Tensor, aten.split_with_sizes.default,
           aten.unbind.int}


def viewed(node):
    """The node whose memory `node` views, or None: a split stands for its
    parts (ckpt names the slices it makes for one after the split), a
    getitem for a result of a multi-result op or a split's part, and a
    concatenation of one tensor is a copy that ckpt does not make
    (DenseNet's first layer of a block)."""
    if node.target in _SAME_VALUE or node.target in _PART_OF or \
            node.target in _SPLITS or node.target is operator.getitem:
        return node.args[0]
    if node.target == aten.cat.default and len(node.args[0]) == 1:
        return node.args[0][0]
    return None


def storage_owner(node):
    """The node whose memory a view chain ending at `node` shares."""
    while (view_of := viewed(node)) is not None:
        node = view_of
    return node


def storage(tensor):
    return tensor.untyped_storage()


def is_copy(tensor, operand):
    return tensor.numel() == operand.numel() and \
        tensor.dtype == operand.dtype and \
        torch.equal(tensor.reshape(-1), operand.contiguous().reshape(-1))


# Pools whose backward takes the input for its shape alone.
_POOLS = {aten.max_pool2d_with_indices.default, aten.avg_pool2d.default,
          aten._adaptive_avg_pool2d.default}


def pytorch_saved(imported, model, inputs):
    """What autograd saves while the traced module runs: bytes per storage
    owner node, and the documented differences apart (label -> bytes per
    node)."""
    graph_module = imported.graph_module
    nodes = {n.name: n for n in graph_module.graph.nodes}
    arguments = ckpt_import_torch.graph_arguments(imported.exported, model,
                                                  inputs)
    owners = {}  # storage address -> node name
    saved = {}  # storage address -> (saving node, tensor)
    parameters = {storage(p).data_ptr() for p in model.parameters()}
    buffers = {storage(b).data_ptr() for b in model.buffers()}
    current = [None]
    mask_storages = set()  # dropout's masks
    # Node outputs stay alive to the end, so no later storage reuses the
    # address of one.
    outputs = {}

    savers = {}  # storage address -> the ops of every node that saves it

    def pack(tensor):
        address = storage(tensor).data_ptr()
        if address not in parameters and address not in saved:
            saved[address] = (current[0], tensor)
        savers.setdefault(address, set()).add(current[0].target)
        return tensor

    class Run(torch.fx.Interpreter):
        def run_node(self, node):
            current[0] = node
            result = super().run_node(node)
            for value in (result if isinstance(result, (tuple, list))
                          else [result]):
                if isinstance(value, torch.Tensor):
                    owners.setdefault(storage(value).data_ptr(), node.name)
            if node.target == aten.native_dropout.default:
                mask_storages.add(storage(result[1]).data_ptr())
            outputs[node] = result
            return result

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        Run(graph_module).run(*arguments)
    activations, masks, scalars, constants, running, pooled = \
        {}, {}, {}, {}, {}, {}
    transposed, expanded = {}, {}

    def add(table, node, size):
        table[node] = table.get(node, 0) + size

    for address, (saver, tensor) in saved.items():
        size = storage(tensor).nbytes()
        owner = owners.get(address)
        if address in buffers and \
                saver.target == aten._native_batch_norm_legit_functional.default:
            # Batch norm keeps its running statistics for an eval-mode
            # backward; in training mode its gradient reads the batch's.
            add(running, saver.name, size)
        elif address in mask_storages:
            add(masks, owner, size)
        elif owner is not None and savers[address] <= _POOLS and \
                tensor.is_floating_point():
            # A pool's backward takes its input (not the max pool's
            # indices, integers) but reads only its shape; ckpt's
            # gradients read the max pool's indices alone.
            add(pooled, storage_owner(nodes[owner]).name, size)
        elif owner is not None:  # a node's output, or a view of one
            base = storage_owner(nodes[owner])
            copy = nodes[owner].target == aten.clone.default
            if copy and \
                    base.target == aten.scaled_dot_product_attention.default \
                    and transposes(nodes[owner], base):
                # A contiguous copy of an attention output transposed back
                # (its layout was [N, H, L, E]), as ckpt makes too.
                add(transposed, base.name, size)
            elif copy and expands(nodes[owner], base):
                # A copy of an expanded tensor (a reshape of it: Llama's
                # keys repeated for grouped-query heads), as ckpt makes.
                add(expanded, base.name, size)
            else:
                add(constants if base.name in imported.folded
                    else activations, base.name, size)
        elif tensor.dim() == 0:
            add(scalars, saver.name, size)
        else:
            # An internal tensor: one the op computed for its backward
            # (layer norm's statistics), or a copy of an operand (matmul
            # copies non-contiguous operands) whose place ckpt takes by
            # saving the operand.
            operands = [a for a in saver.all_input_nodes
                        if isinstance(outputs.get(a), torch.Tensor)]
            copied = [a for a in operands if is_copy(tensor, outputs[a])]
            same_shape = [a for a in operands
                          if outputs[a].shape == tensor.shape]
            # Attention keeps its boolean mask made additive.
            mask = saver.kwargs.get("attn_mask", saver.args[3] if
                                    len(saver.args) > 3 else None) \
                if saver.target == aten.scaled_dot_product_attention.default \
                else None
            if isinstance(mask, torch.fx.Node) and \
                    outputs[mask].shape == tensor.shape:
                copied = [mask]
            # A copy of a constant operand (attention's boolean mask made
            # additive) is a constant too.
            def add_at(operand):
                owner = storage_owner(operand).name
                add(constants if owner in imported.folded else activations,
                    owner, size)
            if copied:
                add_at(copied[0])
            elif same_shape:
                # cross_entropy keeps log_softmax(logits); ckpt keeps the
                # logits and recomputes it: the same bytes.
                add_at(same_shape[0])
            else:
                add(activations, saver.name, size)
    return activations, {"dropout masks (ckpt: none, it regenerates them)":
                         masks,
                         "0-d scalars (ckpt: constants)": scalars,
                         "constants (ckpt: not activations)": constants,
                         "batch-norm running statistics (ckpt: arguments "
                         "its gradient does not read)": running,
                         "transposed copies of attention outputs (ckpt "
                         "makes them too, listed below)": transposed,
                         "broadcast copies (ckpt makes them too, listed "
                         "below)": expanded,
                         "pooling inputs no other op saves (its backward "
                         "reads their shape; ckpt: max pools' indices "
                         "alone)": pooled}


def chain(node, owner):
    """The view nodes from `node` down to its storage owner, excluded."""
    while node is not owner:
        yield node
        node = viewed(node)


def transposes(node, owner):
    return any(n.target in (aten.permute.default, aten.transpose.int,
                            aten.t.default) for n in chain(node, owner))


def takes_part(node, owner):
    return any(n.target in _PART_OF or n.target in _SPLITS
               for n in chain(node, owner))


def expands(node, owner):
    return any(n.target == aten.expand.default for n in chain(node, owner))


def ckpt_saved(imported, report):
    """Our saved activations from the report: bytes per storage owner, and
    apart the transposed copies of attention outputs (PyTorch's CPU flash
    attention writes its output as a transposed view of an [N, L, H, E]
    buffer, so the transpose back that attention layers make is free
    there, and the output projection saves the attention's own output;
    ckpt's transpose copies it) and broadcast copies (an expand that
    PyTorch keeps as a view, read by an op that does not broadcast by
    itself: a multi-query attention's one key head repeated for every
    query head)."""
    activations, transposed, expanded, partial = {}, {}, {}, set()
    buffers = set()
    for tensor in report["saved_tensors"]:
        # The random state dropout's gradient reads takes no memory, and a
        # buffer that several saved views share counts once.
        buffer = tensor["views"] or tensor["value"]
        if tensor["kind"] != "activation" or tensor["dtype"] == "!ckpt.rng" \
                or buffer in buffers:
            continue
        buffers.add(buffer)
        table = activations
        if tensor["producer"].startswith("argument "):
            name, kind = \
                imported.arguments[int(tensor["producer"].split()[1])][:2]
            if kind == "constant":
                # A large constant (an index table) is an argument to
                # ckpt and a constant to PyTorch: not an activation.
                continue
        else:
            node = imported.op_nodes[tensor["source_name"]]
            owner = storage_owner(node)
            name = owner.name
            if owner.target == aten.scaled_dot_product_attention.default \
                    and transposes(node, owner):
                table = transposed
            elif expands(node, owner):
                table = expanded
            if takes_part(node, owner):
                partial.add(name)
        table[name] = table.get(name, 0) + tensor["bytes"]
    return activations, transposed, expanded, partial


def compare(ours, partial, theirs):
    """The nodes whose saved bytes differ, and apart those where PyTorch
    keeps a whole tensor whose parts (slices) ckpt saves as copies:
    name -> (ckpt's bytes, PyTorch's)."""
    differing, parts = [], {}
    for name in sorted(theirs.keys() | ours.keys()):
        mine, its = ours.get(name, 0), theirs.get(name, 0)
        if mine == its:
            continue
        if name in partial and mine < its:
            parts[name] = (mine, its)
        else:
            differing.append(name)
    return differing, parts


def saved(options):
    """Compares, node by node, the activations our analysis saves with the
    ones PyTorch's autograd saves; fails on any difference but the
    documented ones, which it lists."""
    model, inputs = ckpt_import_torch.load_model(options.model, options.arg,
                                                 options.input)
    autocast = {"bf16": torch.bfloat16, None: None}[options.autocast]
    imported = ckpt_import_torch.import_module(model, inputs, "model",
                                               autocast=autocast)
    run = subprocess.run(["ckpt-opt", "-", "--ckpt-pipeline=strategy=none",
                          "--ckpt-report=format=json", "-o", os.devnull],
                         input=imported.text, capture_output=True, text=True,
                         check=True)
    ours, transposed, expanded, partial = ckpt_saved(
        imported, json.loads(run.stdout)[0])
    theirs, differences = pytorch_saved(imported, model, inputs)
    # Nodes by the names their ops carry (a leaf module's path).
    shown = {node.name: name for name, node in imported.op_nodes.items()}
    differing, parts = compare(ours, partial, theirs)
    for name in differing:
        print(f"MISMATCH {shown.get(name, name)}: PyTorch saves "
              f"{theirs.get(name, 0)} B, ckpt {ours.get(name, 0)} B")
    mismatches = len(differing)
    print(f"saved activations: {len(ours)} nodes, {sum(ours.values())} B, "
          f"equal to PyTorch's but for {mismatches} nodes")
    for label, table in differences.items():
        print(f"PyTorch also saves {label}: " + (", ".join(
            f"{shown.get(name, name)} {size} B"
            for name, size in sorted(table.items()))
            or "none"))
    print("PyTorch keeps whole tensors where ckpt saves copies of slices "
          "of them: " + (", ".join(
              f"{shown.get(name, name)} {theirs_size} B (ckpt {ours_size} B)"
              for name, (ours_size, theirs_size) in parts.items())
              or "none"))
    print("ckpt also saves transposed copies of attention outputs "
          "(PyTorch: views of its flash output, or the copies above): " +
          (", ".join(
              f"{shown.get(name, name)} {size} B"
              for name, size in sorted(transposed.items())) or "none"))
    print("ckpt also saves broadcast copies (PyTorch: views of the tensor "
          "expanded, or the copies above): " + (", ".join(
              f"{shown.get(name, name)} {size} B"
              for name, size in sorted(expanded.items())) or "none"))
    for name, size in sorted(differences[next(iter(differences))].items()):
        elements = nodes_value(imported, name)[0].numel()
        if size != elements:
            print(f"MISMATCH dropout mask {name}: {size} B for {elements} "
                  "elements, not 1 B each")
            mismatches += 1
    sys.exit(1 if mismatches else 0)


def nodes_value(imported, name):
    return next(n for n in imported.graph_module.graph.nodes
                if n.name == name).meta["val"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["saved"])
    parser.add_argument("model")
    parser.add_argument("--input", action="append", default=[])
    parser.add_argument("--arg", action="append", default=[])
    # The program exported under autocast runs its casts as ops: autograd
    # saves what it saves under torch.autocast.
    parser.add_argument("--autocast", choices=["bf16"])
    options = parser.parse_args()
    saved(options)


if __name__ == "__main__":
    main()
