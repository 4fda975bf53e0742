"""An MLP-Mixer (Tolstikhin et al., 2021): a strided convolution cuts the
image into patch tokens; each layer mixes tokens with an MLP applied across
the patch axis (on the transposed activations) and channels with an MLP
across the width, both pre-LayerNorm with residuals; global average
pooling, a linear classifier and cross-entropy. Scaled down to run in
seconds on a CPU: 28x28 images in 4x4 patches give 49 tokens."""

import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint


class Mlp(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.fc = nn.Linear(width, hidden)
        self.proj = nn.Linear(hidden, width)

    def forward(self, x):
        return self.proj(F.gelu(self.fc(x)))


class MixerLayer(nn.Module):
    def __init__(self, tokens, width, token_hidden, channel_hidden):
        super().__init__()
        self.token_norm = nn.LayerNorm(width)
        self.token_mlp = Mlp(tokens, token_hidden)
        self.channel_norm = nn.LayerNorm(width)
        self.channel_mlp = Mlp(width, channel_hidden)

    def forward(self, x):
        mixed = self.token_mlp(self.token_norm(x).transpose(1, 2))
        x = x + mixed.transpose(1, 2)
        return x + self.channel_mlp(self.channel_norm(x))


class Mixer(nn.Module):
    def __init__(self, image=28, patch=4, channels=3, width=128, layers=4,
                 token_hidden=64, channel_hidden=512, classes=10,
                 checkpoint_layers=False):
        super().__init__()
        tokens = (image // patch) ** 2
        self.stem = nn.Conv2d(channels, width, patch, stride=patch)
        self.layers = nn.ModuleList(
            MixerLayer(tokens, width, token_hidden, channel_hidden)
            for _ in range(layers))
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, classes)
        self.checkpoint_layers = checkpoint_layers

    def forward(self, images, labels):
        x = self.stem(images).flatten(2).transpose(1, 2)
        for layer in self.layers:
            x = (checkpoint(layer, x, use_reentrant=False)
                 if self.checkpoint_layers else layer(x))
        logits = self.head(self.norm(x).mean(dim=1))
        return F.cross_entropy(logits, labels)
