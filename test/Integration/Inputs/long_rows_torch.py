"""PyTorch's own f32 steps of test/Integration/peak-long-rows.mlir.

Draws the inputs (parameters standard normal, labels uniform over the
classes) and writes them as INPUTS/argN.npy, then runs the same step in f32
on PyTorch's CPU kernels and writes the loss and the parameter's gradient as
REF/result0.npy and REF/grad0.npy for ckpt-run --reference.

usage: long_rows_torch.py wide|tall INPUTS REF
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

model, inputs, reference = sys.argv[1:4]
os.makedirs(inputs, exist_ok=True)
os.makedirs(reference, exist_ok=True)

rows, classes = {"wide": (64, 2048), "tall": (65536, 2)}[model]
generator = torch.Generator().manual_seed(0)
x = torch.randn((rows, classes), generator=generator, dtype=torch.float32)
labels = torch.randint(0, classes, (rows,), generator=generator)
np.save(os.path.join(inputs, "arg0.npy"), x.numpy())
np.save(os.path.join(inputs, "arg1.npy"), labels.numpy())

x.requires_grad_(True)
if model == "wide":
    t = torch.tanh(x)
    q = F.softmax(t, dim=1) * t
    loss = F.cross_entropy(F.log_softmax(q, dim=1), labels) + torch.amax(t)
else:
    loss = F.cross_entropy(x, labels)
loss.backward()
np.save(os.path.join(reference, "result0.npy"), loss.detach().numpy())
np.save(os.path.join(reference, "grad0.npy"), x.grad.numpy())
