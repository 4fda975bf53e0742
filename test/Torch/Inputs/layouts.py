"""Cosine attention over windows as Swin V2 and MaxVit write it: queries
and keys divided by their norms (F.normalize divides by an expanded norm),
5-D einsums (they decompose into permutations that move dimensions of
size 1 around batched matrix products), a head that multiplies by its
weight transposed (falcon's x @ W.T), and a concatenation of one tensor
after a pool (DenseNet's first layer of a block)."""

import torch
import torch.nn.functional as F
from torch import nn


class Layouts(nn.Module):
    def __init__(self, width=8, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.head = nn.Parameter(torch.randn(4, width))

    def forward(self, x, target):
        b, g, n, d = x.shape  # batch, windows, positions, width
        q, k, v = (t.reshape(b, g, n, self.heads, d // self.heads)
                   .permute(0, 1, 3, 2, 4)
                   for t in self.qkv(x).chunk(3, dim=-1))
        q, k = F.normalize(q, dim=-1), F.normalize(k, dim=-1)
        weights = torch.einsum("bghid,bghjd->bghij", q, k).softmax(dim=-1)
        out = torch.einsum("bghij,bghjd->bghid", weights, v)
        out = self.proj(out.permute(0, 1, 3, 2, 4).reshape(b, g, n, d))
        pooled = F.max_pool2d(out @ self.head.T, 2)
        return F.mse_loss(torch.cat([pooled], dim=1), target)


class Expands(nn.Module):
    """Two expands that an add reads together: neither broadcasts the
    other to the sum's shape, so both stay."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 1))

    def forward(self, x):
        return ((x * self.w).expand(4, 4) + self.w.expand(4, 4)).sum()


class ZeroRows(nn.Module):
    """F.normalize of rows some of which are zero (as Swin V2's padded
    windows' keys): the norm's gradient there is 0, not 0 * inf."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 4))
        self.register_buffer("keep", torch.tensor([[1.0], [0.0], [1.0]]))

    def forward(self, x, target):
        rows = F.linear(x, self.w) * self.keep
        return F.mse_loss(F.normalize(rows, dim=-1), target)
