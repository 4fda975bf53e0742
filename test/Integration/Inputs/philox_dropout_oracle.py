"""Independent oracle for dropout in generated code.

Recomputes, from the Philox4x32-10 specification (Salmon et al., SC'11, as
in Random123), the input ckpt-run fills and the dropout mask the compiled
code must draw, and checks the result checksum ckpt-run printed.

usage: philox_dropout_oracle.py RUN_OUTPUT SEED COUNT OFFSET P [BASE]
"""
import math
import re
import sys

MASK = 0xFFFFFFFF


def philox4x32_10(counter, key):
    c = list(counter)
    k = list(key)
    for round_ in range(10):
        if round_ > 0:
            k = [(k[0] + 0x9E3779B9) & MASK, (k[1] + 0xBB67AE85) & MASK]
        p0 = 0xD2511F53 * c[0]
        p1 = 0xCD9E8D57 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k[0]) & MASK, p1 & MASK,
             ((p0 >> 32) ^ c[3] ^ k[1]) & MASK, p0 & MASK]
    return c


def word(seed, stream, index):
    block = index // 4
    counter = [block & MASK, (block >> 32) & MASK, stream, 0]
    return philox4x32_10(counter, [seed & MASK, (seed >> 32) & MASK])[index % 4]


def uniform(seed, stream, index):
    return (word(seed, stream, index) >> 8) / 16777216.0


def main():
    output, seed, count, offset, p = sys.argv[1:6]
    seed, count, offset, p = int(seed), int(count), int(offset), float(p)
    base = int(sys.argv[6]) if len(sys.argv) > 6 else 0
    total = squares = 0.0
    kept = 0
    for i in range(count):
        x = 2.0 * uniform(seed, 0, i) - 1.0  # argument 0, stream 0
        keep = uniform(seed, 0, 4 * (base + offset) + i) >= p
        kept += keep
        y = x * (1.0 / (1.0 - p)) if keep else 0.0
        total += y
        squares += y * y
    text = open(output).read()
    found = re.search(r"result 0: sum (\S+), l2 (\S+)", text)
    if not found:
        sys.exit("no result checksum in ckpt-run's output")
    got_sum, got_l2 = float(found.group(1)), float(found.group(2))
    expected_l2 = math.sqrt(squares)
    print(f"expected sum {total:.9g}, l2 {expected_l2:.9g}; "
          f"ckpt-run printed sum {got_sum:.9g}, l2 {got_l2:.9g}")
    if abs(got_sum - total) > 1e-6 * max(1.0, abs(total)) or \
            abs(got_l2 - expected_l2) > 1e-6 * max(1.0, expected_l2):
        sys.exit("dropout mask differs from the Philox4x32-10 reference")
    print("dropout matches the reference stream")
    # The kept fraction of a binomial(count, 1 - p), within 4 sigma.
    sigma = math.sqrt(p * (1 - p) / count)
    fraction = kept / count
    print(f"kept fraction {fraction:.4f}, expected {1 - p:.4f} +- {4 * sigma:.4f}")
    if abs(fraction - (1 - p)) > 4 * sigma:
        sys.exit("the kept fraction is implausible for p")
    print("kept fraction plausible")


main()
