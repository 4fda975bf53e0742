"""PyTorch's own 16-bit training step of examples/checkpointed_mlp.mlir.

Draws the inputs and parameters (uniform in [-1, 1), the weights divided by
8 so that f16 does not overflow), rounds them to DTYPE and writes them as
INPUTS/argN.npy, bf16 as its uint16 bits (the runtime's .npy convention).
Then runs the model in DTYPE on PyTorch's CPU kernels, which compute in f32
and round once, and writes the loss and every gradient, widened exactly to
f32, as REF/result0.npy and REF/gradN.npy for ckpt-run --reference.

usage: half_mlp_torch.py bf16|f16 INPUTS REF
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[sys.argv[1]]
inputs, reference = sys.argv[2], sys.argv[3]
os.makedirs(inputs, exist_ok=True)
os.makedirs(reference, exist_ok=True)

shapes = [(4, 32, 64), (4, 32, 64)] + [(256, 64), (256,), (64, 256), (64,)] * 2
generator = torch.Generator().manual_seed(0)
args = []
for index, shape in enumerate(shapes):
    value = torch.rand(shape, generator=generator, dtype=torch.float64) * 2 - 1
    if index >= 2:
        value = value / 8
    value = value.to(dtype)
    bits = (value.view(torch.int16).numpy().view(np.uint16)
            if dtype == torch.bfloat16 else value.numpy())
    np.save(os.path.join(inputs, f"arg{index}.npy"), bits)
    args.append(value.requires_grad_(index >= 2))


def block(x, w1, b1, w2, b2):
    return x + F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)


x, target = args[:2]
y0 = block(x, *args[2:6])
y1 = block(y0, *args[6:10])
loss = F.mse_loss(y1, target)
loss.backward()
np.save(os.path.join(reference, "result0.npy"), loss.detach().float().numpy())
for index in range(2, 10):
    np.save(os.path.join(reference, f"grad{index}.npy"),
            args[index].grad.float().numpy())
