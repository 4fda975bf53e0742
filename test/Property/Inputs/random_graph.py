#!/usr/bin/env python3
"""Random forward graphs in the ckpt dialect, one per seed.

A graph is a chain of blocks over one activation shape: B x L x D (MLPs,
attention, normalisation, pointwise ops, dropout) or, for vision graphs,
N x C x H x W (convolutions, batch norms, pooling down and upsampling back,
pointwise ops, dropout), made a DAG by skip
connections, fan-out and concatenation with earlier activations, with a
random loss, random manual checkpoint segments (some nested) and, in some
graphs, ops that must never be recomputed: prints anywhere, and a
collective or a nondeterministic index_add on the input (they have no
gradient rule, so they may only touch values no parameter reaches).

    random_graph.py SEED        prints the graph of SEED
"""

import random
import sys

UNARY_OPS = ["relu", "gelu", "gelu_tanh", "tanh", "sigmoid", "silu", "neg"]
BINARY_OPS = ["add", "sub", "mul"]


class Op:
    """One forward op: `text` names its operands {0}, {1}, ... so that a
    checkpoint segment can rename the values it takes from outside."""

    def __init__(self, results, operands, text, illegal=False):
        self.results = results
        self.operands = operands
        self.text = text
        # Never recomputable: I/O, a collective, nondeterministic atomics.
        self.illegal = illegal


class Segment:
    """A manual checkpoint segment around consecutive items (ops or
    nested segments)."""

    def __init__(self, items):
        self.items = items


def defined(item):
    if isinstance(item, Op):
        return list(item.results)
    return [name for inner in item.items for name in defined(inner)]


def used(item):
    if isinstance(item, Op):
        return list(item.operands)
    return [name for inner in item.items for name in used(inner)]


def contains_illegal(item):
    if isinstance(item, Op):
        return item.illegal
    return any(contains_illegal(inner) for inner in item.items)


def tensor(shape, dtype="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


class GraphBuilder:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.seed = seed
        self.args = []      # (name, type, attribute text)
        self.ops = []
        self.types = {}
        self.counter = 0
        # Values some parameter reaches: ops without a gradient rule must
        # not read them.
        self.param_reached = set()
        # Values returned after the loss (updated running statistics).
        self.returned = []

    def fresh(self, stem="v"):
        self.counter += 1
        return f"%{stem}{self.counter}"

    def arg(self, shape, param, dtype="f32"):
        name = f"%arg{len(self.args)}"
        type_ = tensor(shape, dtype)
        self.args.append((name, type_, " {ckpt.param}" if param else ""))
        self.types[name] = type_
        if param:
            self.param_reached.add(name)
        return name

    def emit(self, text, operands, result_types, illegal=False):
        """Appends an op; `text` formats the operands as {0}, {1}, ...
        and its results are prefixed. Returns the result names."""
        results = [self.fresh() for _ in result_types]
        for name, type_ in zip(results, result_types):
            self.types[name] = type_
            if any(o in self.param_reached for o in operands):
                self.param_reached.add(name)
        self.ops.append(Op(results, operands, text, illegal))
        return results

    # Ops over the activation shape.

    def unary(self, x):
        kind = self.rng.choice(UNARY_OPS)
        t = self.types[x]
        if kind == "gelu_tanh":
            return self.emit("ckpt.gelu {0} approximate = tanh : " + t, [x], [t])[0]
        return self.emit(f"ckpt.{kind} {{0}} : {t}", [x], [t])[0]

    def binary(self, a, b):
        kind = self.rng.choice(BINARY_OPS)
        return self.emit(f"ckpt.{kind} {{0}}, {{1}} : {self.types[a]}", [a, b],
                         [self.types[a]])[0]

    def linear(self, x, out_features):
        shape = self.shape_of(x)
        in_features = shape[-1]
        out_shape = shape[:-1] + [out_features]
        w = self.arg([out_features, in_features], param=True)
        operands, bias_type = [x, w], ""
        if self.rng.random() < 0.6:
            operands.append(self.arg([out_features], param=True))
            bias_type = ", " + self.types[operands[2]]
        names = ", ".join("{%d}" % i for i in range(len(operands)))
        return self.emit(
            f"ckpt.linear {names} : ({self.types[x]}, {self.types[w]}{bias_type})"
            f" -> {tensor(out_shape)}", operands, [tensor(out_shape)])[0]

    def dropout(self, x):
        p = self.rng.choice([0.1, 0.25, 0.5])
        return self.emit(f"ckpt.dropout {{0}} p = {p} : {self.types[x]}", [x],
                         [self.types[x]])[0]

    def norm(self, x):
        t = self.types[x]
        b, l, d = self.shape_of(x)
        stats = tensor([b, l, 1])
        operands, spelled, types = [x], ["{0}"], [t]
        if self.rng.random() < 0.7:
            operands.append(self.arg([d], param=True))
            spelled.append("weight {%d}" % (len(operands) - 1))
            types.append(self.types[operands[-1]])
        if self.rng.random() < 0.5:
            layer_norm = True
            if self.rng.random() < 0.7:
                operands.append(self.arg([d], param=True))
                spelled.append("bias {%d}" % (len(operands) - 1))
                types.append(self.types[operands[-1]])
        else:
            layer_norm = False
        op = "layer_norm" if layer_norm else "rms_norm"
        results = [t, stats, stats] if layer_norm else [t, stats]
        return self.emit(
            f"ckpt.{op} {' '.join(spelled)} normalized_shape = [{d}] : "
            f"({', '.join(types)}) -> ({', '.join(results)})",
            operands, results)[0]

    def shape_of(self, name):
        dims = self.types[name][len("tensor<"):-1].split("x")[:-1]
        return [int(d) for d in dims]

    # Blocks: each maps the activation x to a new one of the same shape.

    def mlp(self, x, dims):
        h = self.linear(self.norm(x) if self.rng.random() < 0.5 else x, dims["H"])
        h = self.unary(h)
        if self.rng.random() < 0.4:
            h = self.dropout(h)
        return self.linear(h, dims["D"])

    def attention(self, x, dims):
        b, l, d = self.shape_of(x)
        q, k, v = (self.linear(x, d) for _ in range(3))
        kt = self.emit(f"ckpt.transpose {{0}} permutation = [0, 2, 1] : "
                       f"{tensor([b, l, d])} -> {tensor([b, d, l])}", [k],
                       [tensor([b, d, l])])[0]
        scores = self.emit(f"ckpt.matmul {{0}}, {{1}} : ({tensor([b, l, d])}, "
                           f"{tensor([b, d, l])}) -> {tensor([b, l, l])}",
                           [q, kt], [tensor([b, l, l])])[0]
        probs = self.emit(f"ckpt.softmax {{0}} dim = 2 : {tensor([b, l, l])}",
                          [scores], [tensor([b, l, l])])[0]
        if self.rng.random() < 0.5:
            probs = self.dropout(probs)
        return self.emit(f"ckpt.matmul {{0}}, {{1}} : ({tensor([b, l, l])}, "
                         f"{tensor([b, l, d])}) -> {tensor([b, l, d])}",
                         [probs, v], [tensor([b, l, d])])[0]

    def fan_out(self, x, dims):
        return self.binary(self.unary(x), self.linear(x, dims["D"]))

    def skip(self, x, earlier):
        return self.binary(x, self.rng.choice(earlier[:-1] or earlier))

    def concat(self, x, earlier, dims):
        b, l, d = self.shape_of(x)
        other = self.rng.choice(earlier)
        wide = tensor([b, l, 2 * d])
        both = self.emit(f"ckpt.concat {{0}}, {{1}} dim = 2 : ({self.types[x]}, "
                         f"{self.types[other]}) -> {wide}", [x, other], [wide])[0]
        return self.linear(both, d)

    def scale(self, x, dims):
        g = self.arg([dims["D"]], param=True)
        return self.emit(f"ckpt.mul {{0}}, {{1}} : ({self.types[x]}, "
                         f"{self.types[g]}) -> {self.types[x]}", [x, g],
                         [self.types[x]])[0]

    def print_op(self, x):
        self.emit(f'ckpt.print {{0}} prefix = "{x[1:]}" : {self.types[x]}', [x],
                  [], illegal=True)

    def collective_or_atomic(self, x):
        t = self.types[x]
        if self.rng.random() < 0.5:
            return self.emit(f"ckpt.all_reduce {{0}} reduction = mean : {t}",
                             [x], [t], illegal=True)[0]
        shape = self.shape_of(x)
        count = self.rng.randint(1, 2 * shape[0])
        idx = self.arg([count], param=False, dtype="i64")
        rows = self.arg([count] + shape[1:], param=False)
        return self.emit(
            f"ckpt.index_add {{0}}, {{1}}, {{2}} dim = 0 deterministic = false : "
            f"({t}, {self.types[idx]}, {self.types[rows]}) -> {t}",
            [x, idx, rows], [t], illegal=True)[0]

    # Vision blocks over N x C x H x W images.

    def conv(self, x):
        n, c, h, w = self.shape_of(x)
        weight = self.arg([c, c, 3, 3], param=True)
        operands, bias = [x, weight], ""
        if self.rng.random() < 0.5:
            operands.append(self.arg([c], param=True))
            bias = " bias {2}"
        types = ", ".join(self.types[o] for o in operands)
        return self.emit(f"ckpt.conv2d {{0}}, {{1}}{bias} padding = [1, 1] : "
                         f"({types}) -> {self.types[x]}", operands,
                         [self.types[x]])[0]

    def batch_norm(self, x):
        channels = tensor([self.shape_of(x)[1]])
        operands, spelled = [x], ["{0}"]
        for role in ["weight", "bias"]:
            if self.rng.random() < 0.3:
                continue
            operands.append(self.arg([self.shape_of(x)[1]], param=True))
            spelled.append(f"{role} {{{len(operands) - 1}}}")
        types = ", ".join(self.types[o] for o in operands)
        y, mean, _ = self.emit(
            f"ckpt.batch_norm {' '.join(spelled)} : ({types}) -> "
            f"({self.types[x]}, {channels}, {channels})",
            operands, [self.types[x]] + [channels] * 2)
        if self.rng.random() < 0.6:
            # Running statistics, returned after the loss as a model's are.
            running = [self.arg([self.shape_of(x)[1]], param=False)
                       for _ in range(2)]
            self.returned += self.emit(
                "ckpt.batch_norm_update_stats {0}, {1} running_mean {2} "
                f"running_var {{3}} : ({self.types[x]}, {channels}, "
                f"{channels}, {channels}) -> ({channels}, {channels})",
                [x, mean] + running, [channels] * 2)
        return y

    def down_up(self, x):
        """Pools to half size and upsamples back, as a U-Net level does."""
        n, c, h, w = self.shape_of(x)
        half = tensor([n, c, h // 2, w // 2])
        if self.rng.random() < 0.5:
            small = self.emit(f"ckpt.max_pool2d {{0}} kernel = [2, 2] : "
                              f"({self.types[x]}) -> ({half}, "
                              f"{tensor([n, c, h // 2, w // 2], 'i64')})", [x],
                              [half, tensor([n, c, h // 2, w // 2], "i64")])[0]
        else:
            small = self.emit(f"ckpt.avg_pool2d {{0}} kernel = [2, 2] : "
                              f"{self.types[x]} -> {half}", [x], [half])[0]
        if self.rng.random() < 0.5:
            small = self.conv(small)
        return self.emit(f"ckpt.upsample_nearest2d {{0}} scale = [2, 2] : "
                         f"{half} -> {self.types[x]}", [small], [self.types[x]])[0]

    def smooth(self, x):
        return self.emit(f"ckpt.avg_pool2d {{0}} kernel = [3, 3] stride = [1, 1] "
                         f"padding = [1, 1] : {self.types[x]} -> {self.types[x]}",
                         [x], [self.types[x]])[0]

    def loss(self, x, dims):
        shape = self.shape_of(x)
        kind = self.rng.choice(["mean", "mse", "cross_entropy"])
        scalar = "tensor<f32>"
        if kind == "mean":
            return self.emit(f"ckpt.reduce_mean {{0}} : {self.types[x]} -> {scalar}",
                             [x], [scalar])[0]
        if kind == "mse":
            target = self.arg(shape, param=False)
            return self.emit(f"ckpt.mse_loss {{0}}, {{1}} : ({self.types[x]}, "
                             f"{self.types[target]}) -> {scalar}", [x, target],
                             [scalar])[0]
        # Classes along the last dimension.
        b, l, d = shape[0], 1, shape[-1]
        for extent in shape[1:-1]:
            l *= extent
        rows = tensor([b * l, d])
        logits = self.emit(f"ckpt.reshape {{0}} : {self.types[x]} -> {rows}", [x],
                           [rows])[0]
        labels = self.arg([b * l], param=False, dtype="i64")
        return self.emit(f"ckpt.cross_entropy {{0}}, {{1}} : ({rows}, "
                         f"{self.types[labels]}) -> {scalar}", [logits, labels],
                         [scalar])[0]

    # The graph.

    def build(self):
        rng = self.rng
        vision = rng.random() < 0.3
        dims = {"B": rng.randint(1, 3), "L": rng.randint(2, 6),
                "D": rng.choice([4, 6, 8, 12]), "H": rng.choice([8, 12, 16])}
        self.side_effects = rng.choice(["none", "none", "print", "unrunnable"])
        if vision:
            side = rng.choice([4, 6, 8])
            x = self.arg([dims["B"], rng.randint(1, 4), side, side], param=False)
            blocks = ["conv", "conv", "batch_norm", "down_up", "smooth",
                      "pointwise", "skip", "dropout"]
        else:
            x = self.arg([dims["B"], dims["L"], dims["D"]], param=False)
            blocks = ["mlp", "mlp", "attention", "norm", "pointwise", "fan_out",
                      "skip", "concat", "scale"]
        if self.side_effects == "unrunnable":
            x = self.collective_or_atomic(x)
        earlier = [x]
        for _ in range(rng.randint(1, 6)):
            kind = rng.choice(blocks)
            if kind == "conv":
                y = self.conv(x)
            elif kind == "batch_norm":
                y = self.batch_norm(x)
            elif kind == "down_up":
                y = self.down_up(x)
            elif kind == "smooth":
                y = self.smooth(x)
            elif kind == "dropout":
                y = self.dropout(x)
            elif kind == "mlp":
                y = self.binary(x, self.mlp(x, dims)) if rng.random() < 0.7 \
                    else self.mlp(x, dims)
            elif kind == "attention":
                y = self.attention(x, dims)
                if rng.random() < 0.7:
                    y = self.binary(x, y)
            elif kind == "norm":
                y = self.norm(x)
            elif kind == "pointwise":
                y = self.unary(x)
            elif kind == "fan_out":
                y = self.fan_out(x, dims)
            elif kind == "skip":
                y = self.skip(x, earlier)
            elif kind == "concat":
                y = self.concat(x, earlier, dims)
            else:
                y = self.scale(x, dims)
            if self.side_effects == "print" and rng.random() < 0.4:
                self.print_op(y)
            earlier.append(y)
            x = y
        if x not in self.param_reached:
            x = self.conv(x) if vision else self.linear(x, dims["D"])
        if self.side_effects == "print" and not any(op.illegal for op in self.ops):
            self.print_op(x)
        self.result = self.loss(x, dims)
        self.items = self.segments(self.ops, depth=0)
        return self

    def segments(self, ops, depth):
        """Wraps random runs of `ops` in segments (one level of nesting)."""
        items, i = [], 0
        while i < len(ops):
            if len(ops) - i >= 2 and self.rng.random() < 0.15:
                length = self.rng.randint(2, min(8, len(ops) - i))
                inner = ops[i:i + length]
                if depth == 0 and length >= 3 and self.rng.random() < 0.3:
                    inner = self.segments(inner, depth + 1)
                items.append(Segment(inner))
                i += length
            else:
                items.append(ops[i])
                i += 1
        return items

    # Printing: segments take every outer value they read as a block
    # argument and yield every value a later op reads.

    def render(self):
        lines = []
        env = {}
        self.render_items(self.items, env, self.uses_after(), lines, "  ")
        args = ",\n    ".join(f"{n}: {t}{a}" for n, t, a in self.args)
        results = [self.result] + self.returned
        types = ", ".join(["tensor<f32>"] + [self.types[r] for r in self.returned])
        return (f"// Random training graph, seed {self.seed}.\n"
                f"func.func @random_graph({args}) -> ({types}) {{\n"
                + "\n".join(lines)
                + f"\n  return {', '.join(env.get(r, r) for r in results)} : "
                f"{types}\n}}\n")

    def uses_after(self):
        """For each item position, the values read after it (incl. return)."""
        order = []

        def flatten(items):
            for item in items:
                if isinstance(item, Op):
                    order.append(item)
                else:
                    flatten(item.items)
        flatten(self.items)
        later = {self.result, *self.returned}
        after = {}
        for op in reversed(order):
            after[id(op)] = set(later)
            later.update(op.operands)
        return after

    def render_items(self, items, env, after, lines, indent):
        for item in items:
            if isinstance(item, Op):
                spelled = [env.get(o, o) for o in item.operands]
                text = item.text.format(*spelled)
                if item.results:
                    text = ", ".join(item.results) + " = " + text
                lines.append(indent + text)
                continue
            self.render_segment(item, env, after, lines, indent)

    def render_segment(self, segment, env, after, lines, indent):
        inside = defined(segment)
        inputs = []
        for name in used(segment):
            if name not in inside and name not in inputs:
                inputs.append(name)
        last = segment
        while isinstance(last, Segment):
            last = last.items[-1]
        outputs = [n for n in inside if n in after[id(last)]]
        self.counter += 1
        seg = f"%seg{self.counter}"
        inner_env = dict(env)
        bindings = []
        for k, name in enumerate(inputs):
            block_arg = f"{seg}_in{k}"
            bindings.append(f"{block_arg} = {env.get(name, name)}")
            inner_env[name] = block_arg
        in_types = ", ".join(self.types[n] for n in inputs)
        out_types = ", ".join(self.types[n] for n in outputs)
        head = "" if not outputs else (
            f"{seg} = " if len(outputs) == 1 else f"{seg}:{len(outputs)} = ")
        lines.append(f"{indent}{head}ckpt.checkpoint({', '.join(bindings)}) : "
                     f"({in_types}) -> ({out_types}) {{")
        self.render_items(segment.items, inner_env, after, lines, indent + "  ")
        yielded = ", ".join(inner_env.get(n, n) for n in outputs)
        lines.append(f"{indent}  ckpt.yield {yielded}" +
                     (f" : {out_types}" if outputs else ""))
        lines.append(f"{indent}}}")
        for k, name in enumerate(outputs):
            env[name] = seg if len(outputs) == 1 else f"{seg}#{k}"

    def manual_plan_illegal(self):
        """Whether a manual segment holds an op that cannot be recomputed."""
        return any(isinstance(item, Segment) and contains_illegal(item)
                   for item in self.items)


def generate(seed):
    """The graph of `seed`: (MLIR text, builder with its metadata)."""
    graph = GraphBuilder(seed).build()
    return graph.render(), graph


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} SEED")
    sys.stdout.write(generate(int(sys.argv[1]))[0])
