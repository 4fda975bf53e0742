"""Rows gathered from tables by constant indices (swin's and maxvit's
relative position bias tables, table[index]), index_select along another
dimension, and an index tensor on an inner dimension counting from the
end (falcon's qkv[:, :, [-2]]): embedding lookups."""

import torch
import torch.nn.functional as F
from torch import nn
class Gathers(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.randn(9, 2))
        self.bias = nn.Parameter(torch.randn(9))
        self.scale = nn.Parameter(torch.randn(2))
        self.register_buffer("index", torch.tensor([[0, 3, 8], [8, 1, 3]]))
    def forward(self, x, target):
        a = self.table[self.index]
        b = self.bias[self.index.view(-1)]
        c = torch.index_select(x, 1, self.index.view(-1)[:4] % 4)
        y = x * self.scale
        d = y[:, [-1, 0]].sum(1) * y[:, :, [[-2], [1]]].sum((1, 3))
        return F.mse_loss(c, target) + (a * a).sum() + b.sum() + d.mean()


class LargeIndex(nn.Module):
    """A relative-position table read at an index buffer too large to
    write inline (swin's 49x49 at a 7x7 window): the index is an argument
    of kind "constant", not an activation."""

    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.randn(64, 2))
        self.register_buffer("index", torch.arange(2048) % 64)

    def forward(self, x):
        return (self.table[self.index] * x).sum()
