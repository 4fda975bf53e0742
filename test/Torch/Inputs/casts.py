"""A float64 model whose loss runs in float32, as transformers' language
model losses upcast their logits (logits.float()), whatever they are."""

import torch
import torch.nn.functional as F
from torch import nn


class UpcastLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 10, dtype=torch.float64)

    def forward(self, x, labels):
        return F.cross_entropy(self.fc(x).float(), labels)
