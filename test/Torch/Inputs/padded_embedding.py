"""A token embedding with a padding row (nn.Embedding(padding_idx=...), as
BERT's): lookups of the padding token read its row, but the row's
gradient stays zero."""

import torch.nn.functional as F
from torch import nn


class PaddedEmbedding(nn.Module):
    def __init__(self, vocab=6, width=8, padding=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, width, padding_idx=padding)
        self.fc = nn.Linear(width, width)

    def forward(self, tokens, target):
        return F.mse_loss(self.fc(self.embed(tokens)), target)
