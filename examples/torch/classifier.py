"""A classifier under cross-entropy, so that its forward returns the loss:
how the benchmarks import torchvision's image classifiers."""

import torch.nn.functional as F
from torch import nn


class Classifier(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, images, labels):
        return F.cross_entropy(self.model(images), labels)
