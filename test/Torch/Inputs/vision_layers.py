"""The vision layers ckpt-import-torch maps, with the options it takes
(tuples, non-default strides, dilation, groups, positional arguments),
in one small model: import.test checks the ops it writes, gradients.test
its gradients against autograd's."""

import torch
import torch.nn.functional as F
from torch import nn


class VisionLayers(nn.Module):
    def __init__(self):
        super().__init__()
        # No bias: the batch norm after it would cancel it (a zero gradient).
        self.conv = nn.Conv2d(4, 8, (3, 5), stride=(2, 1), padding=(1, 4),
                              dilation=(1, 2), bias=False)
        self.norm = nn.BatchNorm2d(8, affine=False, momentum=0.2, eps=1e-3)
        self.relu = nn.ReLU(inplace=True)
        self.grouped_weight = nn.Parameter(torch.randn(8, 4, 3, 3) / 6)
        self.grouped_bias = nn.Parameter(torch.randn(8))
        self.pool = nn.MaxPool2d((2, 4))
        self.up = nn.Upsample(scale_factor=2)
        self.avgpool = nn.AvgPool2d(2)
        self.adaptive = nn.AdaptiveAvgPool2d(2)

    def forward(self, x):
        a = self.relu(self.norm(self.conv(x)))
        b = F.conv2d(a, self.grouped_weight, self.grouped_bias, 1, 1, 1, 2)
        c = self.pool(b)
        merged = torch.cat([self.up(c), F.interpolate(c, size=(8, 8))], dim=1)
        smooth = F.avg_pool2d(merged, 3, stride=1, padding=1,
                              count_include_pad=False)
        pooled = F.adaptive_avg_pool2d(self.adaptive(self.avgpool(smooth)), 1)
        corners = F.max_pool2d(smooth, kernel_size=2, stride=2, padding=1)
        return (torch.flatten(pooled, 1).pow(2).sum() +
                corners.flatten(1).mean() + torch.max_pool2d(a, 2).mean() +
                F.batch_norm(c, None, None, training=True).pow(2).mean())
