"""Constant padding (F.pad with a value, as swin pads to whole windows), a
concatenation with constant blocks (a negative amount crops), and an
in-place assignment to a slice."""

import torch.nn.functional as F
from torch import nn
class Pads(nn.Module):
    def __init__(self):
        super().__init__(); self.fc = nn.Linear(6, 6)
    def forward(self, x, target):
        h = self.fc(x)
        a = F.pad(h, (1, 2, 0, 1), value=0.5)
        b = F.pad(h, (-1, 2))
        return F.mse_loss(a[:, :4, :5], target) + (b * b).mean()


class Scatters(nn.Module):
    """A slice written over (slice_scatter, as functionalized in-place
    assignment `h[:, 1:3] = ...` becomes): a concatenation."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, x, target):
        h = self.fc(x)
        h = h.clone()
        h[:, 1:3] = h[:, 1:3] * 2
        return F.mse_loss(h, target)
