"""Writes DIR/argN.npy for every argument of a compiled step but its random
state: floats normal, indices within their bound, masks random bits.

usage: random_inputs.py LIBRARY DIR
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "examples", "compiled-step"))
import numpy as np
from ckpt_step import CompiledStep

library, out = sys.argv[1:3]
os.makedirs(out, exist_ok=True)
generator = np.random.default_rng(7)
for i, spec in enumerate(CompiledStep(library).arguments):
    if spec["random_state"]:
        continue
    if spec["dtype"] == np.int64:
        array = generator.integers(0, max(spec["index_bound"], 1), spec["shape"])
    elif spec["dtype"] == np.bool_:
        array = generator.integers(0, 2, spec["shape"]).astype(np.bool_)
    else:
        array = generator.standard_normal(spec["shape"]).astype(spec["dtype"])
    np.save(os.path.join(out, f"arg{i}.npy"), array)
