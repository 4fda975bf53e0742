"""PyTorch as the oracle of the PyTorch bridge.

  gradients FILE.py:NAME --input NAME=SHAPE[:int64:BOUND] ... --out DIR
      imports the module with its weights and example inputs (DIR/model.mlir,
      DIR/args/argN.npy) and writes the gradients PyTorch's autograd
      computes for the same weights and inputs as DIR/ref/gradN.npy, N the
      parameter's argument number, for `ckpt-run --reference`.
"""

import argparse
import ast
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "tools", "ckpt-import-torch"))
import ckpt_import_torch  # noqa: E402


def load(spec, arguments):
    path, _, name = spec.rpartition(":")
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    module = __import__(os.path.splitext(os.path.basename(path))[0])
    kwargs = {k: ast.literal_eval(v) for k, _, v in
              (a.partition("=") for a in arguments)}
    torch.manual_seed(0)
    return getattr(module, name)(**kwargs)


def make_inputs(specs):
    """NAME=D0,D1[:int64:BOUND]: floats normal, indices uniform below BOUND."""
    generator = torch.Generator().manual_seed(1)
    inputs = []
    for spec in specs:
        _, _, rest = spec.partition("=")
        shape, _, kind = rest.partition(":")
        shape = tuple(int(d) for d in shape.split(","))
        if kind:
            bound = int(kind.split(":")[1])
            inputs.append(torch.randint(0, bound, shape, generator=generator))
        else:
            inputs.append(torch.randn(shape, generator=generator))
    return tuple(inputs)


def gradients(options):
    model = load(options.model, options.arg)
    inputs = make_inputs(options.input)
    imported = ckpt_import_torch.import_module(model, inputs, "model")
    os.makedirs(options.out, exist_ok=True)
    with open(os.path.join(options.out, "model.mlir"), "w") as f:
        f.write(imported.text)
    imported.write_weights(os.path.join(options.out, "args"),
                           with_inputs=True)
    model.zero_grad()
    model(*inputs).backward()
    parameters = dict(model.named_parameters())
    reference = os.path.join(options.out, "ref")
    os.makedirs(reference, exist_ok=True)
    for index, (name, kind, _) in enumerate(imported.arguments):
        if kind == "parameter":
            np.save(os.path.join(reference, f"grad{index}.npy"),
                    parameters[name].grad.numpy())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["gradients"])
    parser.add_argument("model")
    parser.add_argument("--input", action="append", default=[])
    parser.add_argument("--arg", action="append", default=[])
    parser.add_argument("--out", required=True)
    options = parser.parse_args()
    {"gradients": gradients}[options.command](options)


if __name__ == "__main__":
    main()
