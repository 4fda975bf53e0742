"""Writes a .npy file with any header, for ckpt-run's bad-input tests.

usage: make_npy.py OUT DESCR SHAPE DATA_BYTES

The header says DESCR (e.g. '<f4') and SHAPE (the tuple's text, e.g.
'2, 3'), whatever the data that follows: DATA_BYTES zero bytes.
"""
import sys

out, descr, shape, data_bytes = sys.argv[1:5]
header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
    descr, shape)
# Magic (6), version (2) and length (2), then the header padded with
# spaces and ended by a newline to a multiple of 64 bytes.
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
with open(out, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00")
    f.write(len(header).to_bytes(2, "little"))
    f.write(header.encode("latin-1"))
    f.write(bytes(int(data_bytes)))
