"""Modules ckpt-import-torch must refuse, each with a clear message."""

import torch
import torch.nn.functional as F
from torch import nn


class Unsupported(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = torch.cumsum(self.fc(x).exp(), dim=-1)
        h = torch.sort(h, dim=-1)[0]
        return h.sum()


class Iterates(nn.Module):
    """A loop over a tensor's rows: export unrolls it (the shape is fixed)."""

    def forward(self, x):
        total = 0
        for row in x:
            total = total + row.sum()
        return total


class DataDependent(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x.sum()
        return -x.sum()


class NotScalar(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return F.relu(self.fc(x))


class Unpacks(nn.Module):
    """Tensor sizes unpack (on Python 3.11, plain torch.fx fails here)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 24)

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.fc(x).split(C, dim=2)
        return (q * k + v).view(B * T, C).sum()


class CumulativeBatchNorm(nn.Module):
    """momentum=None: the running average's weight is 1 / the batch count,
    a buffer's value that export cannot know."""

    def __init__(self):
        super().__init__()
        self.norm = nn.BatchNorm2d(4, momentum=None)

    def forward(self, x):
        return self.norm(x).sum()


class UnsupportedVision(nn.Module):
    """Vision layers with options the ckpt ops lack; each reads the input
    directly, so every one is reported."""

    def __init__(self):
        super().__init__()
        self.reflect = nn.Conv2d(4, 4, 3, padding=1, padding_mode="reflect")
        self.same = nn.Conv2d(4, 4, 3, padding="same")
        self.dilated = nn.MaxPool2d(2, dilation=2)
        self.divisor = nn.AvgPool2d(2, divisor_override=3)
        self.bilinear = nn.Upsample(scale_factor=2, mode="bilinear")
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        outputs = [
            self.reflect(x),
            self.same(x),
            F.conv2d(x, self.same.weight, padding="valid"),
            self.dilated(x),
            F.max_pool2d(x, 2, return_indices=True)[0],
            self.divisor(x),
            self.bilinear(x),
            F.interpolate(x, scale_factor=1.5),
        ]
        h = x * 2
        outputs.append(self.relu(h) + h)
        return sum(o.sum() for o in outputs)


class OutOfRange(nn.Module):
    """Export runs on symbolic values; the index fails only on real ones."""

    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.zeros(4))

    def forward(self, x):
        return (self.table[torch.arange(6)] * x).sum()


class ComputedMask(nn.Module):
    """Attention whose boolean mask is an input, and attention on rank-3
    tensors."""

    def forward(self, x, keep):
        q = x.view(2, 1, 4, 2)
        masked = F.scaled_dot_product_attention(q, q, q, attn_mask=keep)
        flat = F.scaled_dot_product_attention(q[0], q[0], q[0])
        return masked.sum() + flat.sum()


class IntegerCast(nn.Module):
    """Float to integer and back: not a cast between float types."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return self.fc(x).long().float().sum()


class L1Norm(nn.Module):
    """A vector norm other than the Euclidean one."""

    def forward(self, x):
        return torch.linalg.vector_norm(x, ord=1, dim=1).sum()
