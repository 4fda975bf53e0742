"""A Gemma-style RMSNorm, x * rsqrt(mean(x^2) + eps) * (1 + w), under a
class name that says RMSNorm, between two linear layers and an MSE loss:
the importer must take it for what it computes, not for its name."""

import torch
import torch.nn.functional as F
from torch import nn


class GemmaRMSNorm(nn.Module):
    def __init__(self, width, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.full((width,), 0.25))
        self.eps = eps

    def forward(self, x):
        scale = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return x * scale * (1 + self.weight)


class NormNet(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.up = nn.Linear(width, width)
        self.norm = GemmaRMSNorm(width)
        self.down = nn.Linear(width, width)

    def forward(self, x, target):
        return F.mse_loss(self.down(self.norm(self.up(x))), target)
