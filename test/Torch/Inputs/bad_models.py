"""Modules ckpt-import-torch must refuse, each with a clear message."""

import torch
import torch.nn.functional as F
from torch import nn


class Unsupported(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = torch.rsqrt(self.fc(x).exp())
        h = torch.sort(h, dim=-1)[0]
        return h.sum()


class Iterates(nn.Module):
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
