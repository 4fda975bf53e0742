"""What the import records of the op calls that write their arguments:
which arguments each writes (by its schema, or found by comparing their
bits across the call) and which of those none of its outputs reads (a
rerun may write a scratch copy instead).

  recorded_writes.py
      records a convolution, batch norm and in-place ReLU, and a custom op
      that writes a buffer it also reads into its output; prints, per call
      that writes, the op, the tensor arguments it writes (as ordinals
      among its tensor arguments) and those it may write to scratch.
"""

import torch

from ckpt_torch import executor, importer


@torch.library.custom_op("ckpt_test::accumulate", mutates_args=("total",))
def accumulate(x: torch.Tensor, total: torch.Tensor) -> torch.Tensor:
    """x plus the running total, which then grows by x's sum."""
    out = x + total
    total.add_(x.sum())
    return out


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.norm = torch.nn.BatchNorm2d(4)
        self.relu = torch.nn.ReLU(inplace=True)
        self.register_buffer("total", torch.zeros(()))

    def forward(self, x):
        return accumulate(self.relu(self.norm(self.conv(x))),
                          self.total).sum()


def main():
    torch.manual_seed(0)
    calls = importer.PyTorchCalls(Model(), (torch.randn(2, 3, 6, 6),))
    scratch = executor.scratch_by_call(calls.scratch)
    written = {}
    for call, storage in calls.writes:
        written.setdefault(call, []).append(
            calls.reads[call].index(storage))
    for call in sorted(written):
        print(f"{calls.calls[call][0]}: writes {sorted(written[call])}, "
              f"scratch {list(scratch.get(call, ()))}")


if __name__ == "__main__":
    main()
