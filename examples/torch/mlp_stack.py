"""A stack of pre-LayerNorm residual MLP blocks with an MSE loss, as in
examples/mlp_stack.mlir; `checkpoint_every=k` wraps every k-th block in
torch.utils.checkpoint."""

import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fc = nn.Linear(width, hidden)
        self.proj = nn.Linear(hidden, width)

    def forward(self, x):
        h = F.gelu(self.fc(self.norm(x)), approximate="tanh")
        return x + self.proj(h)


class MlpStack(nn.Module):
    def __init__(self, width=64, hidden=256, blocks=4, checkpoint_every=0):
        super().__init__()
        self.blocks = nn.ModuleList(Block(width, hidden)
                                    for _ in range(blocks))
        self.checkpoint_every = checkpoint_every

    def forward(self, x, target):
        for index, block in enumerate(self.blocks):
            if self.checkpoint_every and index % self.checkpoint_every == 0:
                x = checkpoint(block, x, use_reentrant=False)
            else:
                x = block(x)
        return F.mse_loss(x, target)
