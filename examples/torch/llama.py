"""A Llama-style decoder: RMSNorm, causal attention with rotary position
embeddings (precomputed cos/sin tables, rotate-half form), a SiLU-gated
MLP, residuals, and cross-entropy against the next tokens. Scaled down to
run in seconds on a CPU."""

import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint


class RMSNorm(nn.Module):
    def __init__(self, width, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))
        self.eps = eps

    def forward(self, x):
        scale = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return x * scale * self.weight


def rotate_half(x):
    half = x.size(-1) // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Attention(nn.Module):
    def __init__(self, width, heads, context):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(width, width, bias=False)
        self.k = nn.Linear(width, width, bias=False)
        self.v = nn.Linear(width, width, bias=False)
        self.o = nn.Linear(width, width, bias=False)
        head = width // heads
        inverse = 1.0 / (10000 ** (torch.arange(0, head, 2).float() / head))
        angles = torch.outer(torch.arange(context).float(), inverse)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", angles.cos())
        self.register_buffer("sin", angles.sin())
        causal = torch.tril(torch.ones(context, context, dtype=torch.bool))
        self.register_buffer("causal", causal)

    def forward(self, x):
        B, T, C = x.size()
        head = C // self.heads
        q = self.q(x).view(B, T, self.heads, head).transpose(1, 2)
        k = self.k(x).view(B, T, self.heads, head).transpose(1, 2)
        v = self.v(x).view(B, T, self.heads, head).transpose(1, 2)
        cos, sin = self.cos[:T], self.sin[:T]
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        att = (q @ k.transpose(-2, -1)) / math.sqrt(head)
        att = att.masked_fill(~self.causal[:T, :T], float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return self.o(y.transpose(1, 2).reshape(B, T, C))


class Block(nn.Module):
    def __init__(self, width, heads, context, hidden):
        super().__init__()
        self.attn_norm = RMSNorm(width)
        self.attn = Attention(width, heads, context)
        self.mlp_norm = RMSNorm(width)
        self.gate = nn.Linear(width, hidden, bias=False)
        self.up = nn.Linear(width, hidden, bias=False)
        self.down = nn.Linear(hidden, width, bias=False)

    def forward(self, x):
        x = x + self.attn(self.attn_norm(x))
        h = self.mlp_norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class Llama(nn.Module):
    def __init__(self, vocab=512, context=32, layers=2, width=64, heads=4,
                 hidden=172, checkpoint_blocks=False):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList(Block(width, heads, context, hidden)
                                    for _ in range(layers))
        self.norm = RMSNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        self.checkpoint_blocks = checkpoint_blocks

    def forward(self, tokens, labels):
        B, T = tokens.size()
        x = self.embed(tokens)
        for block in self.blocks:
            x = (checkpoint(block, x, use_reentrant=False)
                 if self.checkpoint_blocks else block(x))
        logits = self.head(self.norm(x))
        return F.cross_entropy(logits.view(B * T, -1), labels.view(B * T))
