#!/usr/bin/env python3
"""Imports every classification model builder of torchvision
(`torchvision.models.list_models(module=torchvision.models)`) with
ckpt-import-torch's `import_module`, each in training mode with 10 classes
on a batch of 2 small images under cross-entropy, and prints one table row
per model: whether it imports, the ATen ops that stop it (with their
count), the number of ckpt ops written and the import time.

Images are 32x32 but where a model needs more: 64 for alexnet (its
features need 63), 96 for inception_v3 (75), 224 for the ViTs and
maxvit_t (their patch and window grids are fixed). googlenet and inception_v3 are built without their
auxiliary classifiers (their outputs are not a loss).

usage: .venv/bin/python bench/torchvision-zoo.py [MODEL...]   (all by default)
"""

import collections
import os
import sys
import time

import torch
import torch.nn.functional as F
import torchvision

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "tools", "ckpt-import-torch"))
import ckpt_import_torch  # noqa: E402

IMAGE_SIZES = {"alexnet": 64, "inception_v3": 96, "maxvit_t": 224}


class Classifier(torch.nn.Module):
    """A classifier under cross-entropy: forward returns the loss."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, images, labels):
        return F.cross_entropy(self.model(images), labels)


def build(name, deterministic=False, **options):
    """The classifier `name` with 10 classes; `deterministic` turns dropout
    and stochastic depth off (PyTorch's random numbers are not ckpt's, so
    gradient checks need them off). `options` go to the builder."""
    options["num_classes"] = 10
    if name in ("googlenet", "inception_v3"):
        options.update(aux_logits=False, init_weights=False)
    model = Classifier(torchvision.models.get_model(name, **options))
    if deterministic:
        for module in model.modules():
            if isinstance(module, (torch.nn.modules.dropout._DropoutNd,
                                   torchvision.ops.StochasticDepth)):
                module.p = 0.0
    return model


def image_size(name):
    return 224 if name.startswith("vit_") else IMAGE_SIZES.get(name, 32)


def main():
    names = sys.argv[1:] or torchvision.models.list_models(
        module=torchvision.models)
    print(f"torch {torch.__version__}, torchvision {torchvision.__version__}")
    print("| model | image | imports | stopped by | ckpt ops | import s |")
    print("| --- | ---: | --- | --- | ---: | ---: |")
    imported = 0
    for name in names:
        torch.manual_seed(0)
        size = image_size(name)
        model = build(name)
        inputs = (torch.randn(2, 3, size, size), torch.randint(0, 10, (2,)))
        start = time.time()
        try:
            result = ckpt_import_torch.import_module(model, inputs, "model")
            ops = sum(1 for line in result.text.splitlines()
                      if "= ckpt." in line)
            row = ("yes", "", str(ops))
            imported += 1
        except ckpt_import_torch.ImportFailure as failure:
            lines = str(failure).splitlines()
            stops = collections.Counter(
                line.split(": ", 1)[1] for line in lines[1:] if ": " in line)
            why = ", ".join(f"{op} ({count})" for op, count in
                            sorted(stops.items())) or lines[0]
            row = ("no", why.replace("|", "\\|"), "")
        print(f"| {name} | {size} | {row[0]} | {row[1]} | {row[2]} | "
              f"{time.time() - start:.1f} |", flush=True)
    print(f"\n{imported} of {len(names)} import")


if __name__ == "__main__":
    main()
