"""Pools with ceil_mode (googlenet's and squeezenet's max pools), padded
and unpadded averages whose last window hangs over the input, an
adaptive average pool to a multiple of its input (alexnet's and vgg's on
small images), and adaptive pools whose windows are uneven and overlap
(10 -> 3, 10 -> 4) or even along one dimension only."""

import torch, torch.nn as nn, torch.nn.functional as F
class CeilPools(nn.Module):
    def __init__(self):
        super().__init__(); self.conv = nn.Conv2d(3, 4, 3)
    def forward(self, x, target):
        h = self.conv(x)
        a = F.max_pool2d(h, 3, 2, ceil_mode=True)
        b = F.avg_pool2d(h, 3, 2, padding=1, ceil_mode=True)
        c = F.avg_pool2d(h, 2, 3, ceil_mode=True, count_include_pad=False)
        d = F.adaptive_avg_pool2d(F.adaptive_avg_pool2d(h, 1), 3)
        e = F.adaptive_avg_pool2d(h, (3, 4))
        f = F.adaptive_avg_pool2d(h, (5, 3))
        return F.mse_loss(a, target) + (b * b).mean() + (c * c).mean() + (d * d).mean() + \
            (e * e).mean() + (f * f).mean()
