"""A float64 model whose loss runs in float32, as transformers' language
model losses upcast their logits (logits.float()), whatever they are, and
operands of two float types, which PyTorch computes in the wider (OLMo's
float32 rotary tables on float64 queries)."""

import torch
import torch.nn.functional as F
from torch import nn


class UpcastLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 10, dtype=torch.float64)
        self.register_buffer("scale", torch.linspace(0.5, 1.5, 10))

    def forward(self, x, labels):
        logits = self.fc(x)
        scaled = logits * self.scale
        return F.cross_entropy((scaled.float() + logits).float(), labels)
