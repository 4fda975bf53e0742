"""Checks that two --out directories hold the same arrays, bit for bit.

usage: same_outputs.py DIR DIR

Both must hold the same .npy names, each with the same dtype, shape and
data bytes (headers may be written differently, as NumPy's and ckpt-run's
are). Reads .npy version 1 itself, so it needs no NumPy.
"""
import ast
import os
import sys


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        sys.exit(f"{path}: not a .npy file")
    length = int.from_bytes(data[8:10], "little")
    header = ast.literal_eval(data[10:10 + length].decode("latin-1"))
    descr = header["descr"].replace("|", "<").replace("=", "<")
    return descr, tuple(header["shape"]), data[10 + length:]


first, second = sys.argv[1:3]
names = sorted(n for n in os.listdir(first) if n.endswith(".npy"))
other = sorted(n for n in os.listdir(second) if n.endswith(".npy"))
if not names or names != other:
    sys.exit(f"different files: {names} and {other}")
for name in names:
    a, b = read(os.path.join(first, name)), read(os.path.join(second, name))
    if a != b:
        sys.exit(f"{name} differs")
print(f"{len(names)} arrays identical")
