"""A small U-Net: three levels down, each two 3x3 convolution-batch
norm-ReLU layers and a 2x2 max pool; a bottleneck; three levels up, each
a nearest-neighbour 2x upsampling, the concatenation with the same
level's skip connection and two more convolution-batch norm-ReLU layers;
a final 1x1 convolution and an MSE loss against a target image. The
defaults (widths 8/16/32 on 32x32 images) run a step in well under a
second on a CPU."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint


class DoubleConv(nn.Module):
    def __init__(self, inputs, outputs):
        super().__init__()
        self.conv1 = nn.Conv2d(inputs, outputs, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(outputs)
        self.conv2 = nn.Conv2d(outputs, outputs, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(outputs)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(x)))


class UNet(nn.Module):
    def __init__(self, channels=3, widths=(8, 16, 32),
                 checkpoint_levels=False):
        super().__init__()
        self.down = nn.ModuleList()
        inputs = channels
        for width in widths:
            self.down.append(DoubleConv(inputs, width))
            inputs = width
        self.bottleneck = DoubleConv(widths[-1], 2 * widths[-1])
        self.up = nn.ModuleList()
        inputs = 2 * widths[-1]
        for width in reversed(widths):
            self.up.append(DoubleConv(inputs + width, width))
            inputs = width
        self.head = nn.Conv2d(widths[0], channels, 1)
        self.checkpoint_levels = checkpoint_levels

    def level(self, layer, x):
        return (checkpoint(layer, x, use_reentrant=False)
                if self.checkpoint_levels else layer(x))

    def forward(self, image, target):
        skips = []
        x = image
        for layer in self.down:
            x = self.level(layer, x)
            skips.append(x)
            x = F.max_pool2d(x, 2)
        x = self.level(self.bottleneck, x)
        for layer, skip in zip(self.up, reversed(skips)):
            x = F.interpolate(x, scale_factor=2, mode="nearest")
            x = self.level(layer, torch.cat((x, skip), dim=1))
        return F.mse_loss(self.head(x), target)
