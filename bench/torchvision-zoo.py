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
import torchvision

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "examples", "torch"))
from ckpt_torch import importer as ckpt_import_torch  # noqa: E402
from classifier import Classifier  # noqa: E402

IMAGE_SIZES = {"alexnet": 64, "inception_v3": 96, "maxvit_t": 224}



def _small(name):
    """The family `name` of SMALL_FAMILIES at a small width and depth, with
    10 classes: its own class, or its builder where that is small."""
    from torchvision import models
    from torchvision.models import convnext, efficientnet, regnet, resnet
    from torchvision.models import swin_transformer as swin
    if name == "convnext":
        return models.ConvNeXt([convnext.CNBlockConfig(8, 16, 1),
                                convnext.CNBlockConfig(16, None, 1)],
                               stochastic_depth_prob=0.1, num_classes=10)
    if name == "densenet":
        return models.DenseNet(growth_rate=4, block_config=(2, 2),
                               num_init_features=8, bn_size=2, num_classes=10)
    if name == "efficientnet":  # a fused (v2) and a depthwise stage
        return models.EfficientNet(
            [efficientnet.FusedMBConvConfig(1, 3, 1, 8, 8, 1),
             efficientnet.MBConvConfig(4, 3, 2, 8, 16, 2)],
            dropout=0.2, stochastic_depth_prob=0.1, num_classes=10)
    if name == "maxvit":
        return models.MaxVit((16, 16), stem_channels=8, partition_size=2,
                             block_channels=[8, 16], block_layers=[1, 1],
                             head_dim=4, stochastic_depth_prob=0.1,
                             num_classes=10)
    if name == "regnet":  # RegNetY: grouped convolutions, squeeze-excite
        return models.RegNet(regnet.BlockParams.from_init_params(
            depth=2, w_0=8, w_a=8.0, w_m=2.0, group_width=4, se_ratio=0.25),
            stem_width=8, num_classes=10)
    if name == "resnext":  # bottlenecks of grouped convolutions
        return models.ResNet(resnet.Bottleneck, [1, 1, 1, 1], groups=4,
                             width_per_group=4, num_classes=10)
    if name in ("swin", "swin_v2"):
        v2 = {"block": swin.SwinTransformerBlockV2,
              "downsample_layer": swin.PatchMergingV2} if name == "swin_v2" \
            else {}
        return models.SwinTransformer([2, 2], 8, [1, 1], [2, 2], [2, 2],
                                      stochastic_depth_prob=0.1,
                                      num_classes=10, **v2)
    if name == "vit":
        return models.VisionTransformer(8, 4, num_layers=2, num_heads=2,
                                        hidden_dim=16, mlp_dim=32,
                                        num_classes=10)
    return models.get_model(SMALL_FAMILIES[name][0], num_classes=10,
                            **SMALL_FAMILIES[name][2])


# One small model per family of torchvision's classifiers, for the test
# suite (each of the builders takes seconds to minutes per check): family
# -> (what it is, image size, builder options for the families built by
# their builder). Stride-32 networks with batch norms take 64x64 images
# (their last maps are then 2x2, see bench/zoo-checks.py). VGG is left
# out: its classifier takes 7x7x512 features whatever the layers (102M
# weights), and its ops are alexnet's.
SMALL_FAMILIES = {
    "alexnet": ("alexnet", 64, {}),
    "convnext": ("ConvNeXt, 2 stages of 1 block, width 8", 32, None),
    "densenet": ("DenseNet, 2 blocks of 2 layers, growth 4", 32, None),
    "efficientnet": ("EfficientNet, a fused and a depthwise stage", 32, None),
    "googlenet": ("googlenet", 64, {"aux_logits": False,
                                    "init_weights": False}),
    "inception": ("inception_v3", 96, {"aux_logits": False,
                                       "init_weights": False}),
    "maxvit": ("MaxVit, 2 stages of 1 block, width 8", 16, None),
    "mnasnet": ("mnasnet0_5", 64, {}),
    "mobilenet": ("mobilenet_v3_small", 64, {"width_mult": 0.5}),
    "regnet": ("RegNetY, 2 blocks, width 8", 32, None),
    "resnet": ("resnet18", 64, {}),
    "resnext": ("ResNet, 4 bottlenecks of 4 groups", 64, None),
    "shufflenet": ("shufflenet_v2_x0_5", 64, {}),
    "squeezenet": ("squeezenet1_1", 32, {}),
    "swin": ("SwinTransformer, 2 stages of 1 block, width 8", 16, None),
    "swin_v2": ("SwinTransformer V2, 2 stages of 1 block, width 8", 16,
                None),
    "vit": ("VisionTransformer, 2 layers, width 16, 4x4 patches", 8, None),
}


def build(name, deterministic=False, **options):
    """The classifier `name` (a builder, or a family of SMALL_FAMILIES)
    with 10 classes; `deterministic` turns dropout and stochastic depth
    off (PyTorch's random numbers are not ckpt's, so gradient checks need
    them off). `options` go to the builder."""
    options["num_classes"] = 10
    if name in ("googlenet", "inception_v3"):
        options.update(aux_logits=False, init_weights=False)
    model = Classifier(_small(name) if name in SMALL_FAMILIES else
                       torchvision.models.get_model(name, **options))
    if deterministic:
        for module in model.modules():
            if isinstance(module, (torch.nn.modules.dropout._DropoutNd,
                                   torchvision.ops.StochasticDepth)):
                module.p = 0.0
    return model


def image_size(name):
    if name in SMALL_FAMILIES:
        return SMALL_FAMILIES[name][1]
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
