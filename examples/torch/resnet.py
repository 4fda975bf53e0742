"""A ResNet-style classifier: a stem (7x7 stride-2 convolution, batch
norm, ReLU, 3x3 stride-2 max pool), two stages of two basic blocks (two
3x3 convolutions with batch norm; the shortcut is the identity, or a
strided 1x1 convolution with batch norm where the block halves the
resolution or changes the width), global average pooling, a linear
classifier and cross-entropy against integer labels. Scaled down to run
on 32x32 images in well under a second per step on a CPU."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint


class BasicBlock(nn.Module):
    def __init__(self, inputs, outputs, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(inputs, outputs, 3, stride=stride, padding=1,
                               bias=False)
        self.bn1 = nn.BatchNorm2d(outputs)
        self.conv2 = nn.Conv2d(outputs, outputs, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(outputs)
        self.shortcut = nn.Identity()
        if stride != 1 or inputs != outputs:
            self.shortcut = nn.Sequential(
                nn.Conv2d(inputs, outputs, 1, stride=stride, bias=False),
                nn.BatchNorm2d(outputs))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class ResNet(nn.Module):
    def __init__(self, classes=10, widths=(16, 32), blocks=2,
                 checkpoint_blocks=False):
        super().__init__()
        self.conv = nn.Conv2d(3, widths[0], 7, stride=2, padding=3,
                              bias=False)
        self.bn = nn.BatchNorm2d(widths[0])
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)
        self.blocks = nn.ModuleList()
        inputs = widths[0]
        for stage, width in enumerate(widths):
            for index in range(blocks):
                stride = 2 if stage > 0 and index == 0 else 1
                self.blocks.append(BasicBlock(inputs, width, stride))
                inputs = width
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(widths[-1], classes)
        self.checkpoint_blocks = checkpoint_blocks

    def forward(self, images, labels):
        x = self.pool(self.relu(self.bn(self.conv(images))))
        for block in self.blocks:
            x = (checkpoint(block, x, use_reentrant=False)
                 if self.checkpoint_blocks else block(x))
        logits = self.fc(torch.flatten(self.avgpool(x), 1))
        return F.cross_entropy(logits, labels)
