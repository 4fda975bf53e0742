"""Fused attention as transformers and torchvision call it:
F.scaled_dot_product_attention with a causal mask and grouped-query heads
(4 query heads share 2 key heads), with a constant boolean mask, and with
an additive float mask."""

import torch, torch.nn as nn, torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, width=16, heads=4, key_heads=2):
        super().__init__()
        self.heads, self.key_heads = heads, key_heads
        self.head = width // heads
        self.q = nn.Linear(width, width)
        self.kv = nn.Linear(width, 2 * key_heads * self.head)
        self.out = nn.Linear(width, width)

    def split(self, x, heads):
        n, t, _ = x.shape
        return x.view(n, t, heads, self.head).transpose(1, 2)

    def forward(self, x, target):
        n, t, width = x.shape
        q = self.split(self.q(x), self.heads)
        k, v = self.kv(x).chunk(2, dim=-1)
        k, v = self.split(k, self.key_heads), self.split(v, self.key_heads)
        causal = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        window = torch.ones(t, t, dtype=torch.bool).tril().triu(-2)
        banded = F.scaled_dot_product_attention(q, k, v, attn_mask=window, enable_gqa=True,
                                                scale=0.3)
        bias = torch.arange(t, dtype=x.dtype).view(1, 1, 1, t) * -0.25
        biased = F.scaled_dot_product_attention(q, k, v, attn_mask=bias, enable_gqa=True)
        y = (causal + banded * biased).transpose(1, 2).reshape(n, t, width)
        return F.mse_loss(self.out(y), target)


class MultiQuery(nn.Module):
    """One key and value head repeated for every query head by an expand
    before attention (as gpt_bigcode does), under a boolean mask passed
    explicitly (PyTorch keeps it made additive)."""

    def __init__(self, width=16, heads=4):
        super().__init__()
        self.heads, self.head = heads, width // heads
        self.qkv = nn.Linear(width, width + 2 * self.head)
        self.out = nn.Linear(width, width)

    def forward(self, x, target):
        n, t, width = x.shape
        q, k, v = self.qkv(x).split([width, self.head, self.head], dim=-1)
        q = q.view(n, t, self.heads, self.head).transpose(1, 2)
        k, v = (z.unsqueeze(1).expand(n, self.heads, t, self.head)
                for z in (k, v))
        mask = torch.ones(t, t, dtype=torch.bool).tril()
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return F.mse_loss(self.out(y.transpose(1, 2).reshape(n, t, width)),
                          target)
