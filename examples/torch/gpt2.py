"""A GPT-2-style decoder: token and position embeddings, pre-LayerNorm
blocks of causal multi-head self-attention and a GELU MLP with dropout,
a final LayerNorm, an LM head tied to the token embedding, and
cross-entropy against the next tokens. GPT-2 small is layers=12, width=768,
heads=12; the defaults are scaled down to run in seconds on a CPU."""

import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint


class Attention(nn.Module):
    def __init__(self, width, heads, context, dropout):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.attn_drop = nn.Dropout(dropout)
        self.resid_drop = nn.Dropout(dropout)
        causal = torch.tril(torch.ones(context, context, dtype=torch.bool))
        self.register_buffer("causal", causal.view(1, 1, context, context))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.qkv(x).split(C, dim=2)
        q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(~self.causal[:, :, :T, :T], float("-inf"))
        att = self.attn_drop(F.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        return self.resid_drop(self.proj(y))


class Block(nn.Module):
    def __init__(self, width, heads, context, dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(width)
        self.attn = Attention(width, heads, context, dropout)
        self.ln_2 = nn.LayerNorm(width)
        self.fc = nn.Linear(width, 4 * width)
        self.mlp_proj = nn.Linear(4 * width, width)
        self.mlp_drop = nn.Dropout(dropout)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        h = F.gelu(self.fc(self.ln_2(x)), approximate="tanh")
        return x + self.mlp_drop(self.mlp_proj(h))


class Gpt2(nn.Module):
    def __init__(self, vocab=512, context=32, layers=4, width=64, heads=4,
                 dropout=0.1, checkpoint_blocks=False):
        super().__init__()
        self.wte = nn.Embedding(vocab, width)
        self.wpe = nn.Embedding(context, width)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(Block(width, heads, context, dropout)
                                    for _ in range(layers))
        self.ln_f = nn.LayerNorm(width)
        self.checkpoint_blocks = checkpoint_blocks

    def forward(self, tokens, labels):
        B, T = tokens.size()
        positions = torch.arange(0, T, dtype=torch.long, device=tokens.device)
        x = self.drop(self.wte(tokens) + self.wpe(positions))
        for block in self.blocks:
            x = (checkpoint(block, x, use_reentrant=False)
                 if self.checkpoint_blocks else block(x))
        logits = F.linear(self.ln_f(x), self.wte.weight)
        return F.cross_entropy(logits.view(B * T, -1), labels.view(B * T))
