"""ckpt-opt's plan of an imported step, summarised from its JSON report, for
the benchmarks that set ckpt-opt's plans beside PyTorch's."""

import json
import os
import subprocess
import sys


def plan(ckpt_opt, text, pipeline, output=os.devnull):
    """Plans the step `text` with --ckpt-pipeline=`pipeline`, writes the
    planned step to `output`, and returns its saved activation bytes (less
    the inputs: live throughout, and PyTorch does not count its primals),
    recompute and forward FLOPs, and simulated peak bytes."""
    run = subprocess.run(
        [ckpt_opt, "-", f"--ckpt-pipeline={pipeline}",
         "--ckpt-report=format=json", "-o", output],
        input=text, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"ckpt-opt --ckpt-pipeline={pipeline} failed:\n{run.stderr}")
    report = json.loads(run.stdout)[0]
    # An input (or a view of one, whose bytes are its) counts once.
    inputs = {}
    for tensor in report["saved_tensors"]:
        buffer = tensor["views"] or tensor["producer"]
        if tensor["kind"] == "activation" and buffer.startswith("argument"):
            inputs[buffer] = tensor["bytes"]
    inputs = sum(inputs.values())
    return {"saved": report["saved_totals"]["activations"]["bytes"] - inputs,
            "flops": report["compute"]["recompute"]["flops"],
            "forward": report["compute"]["forward"]["flops"],
            "peak": report["peak"]["bytes"]}
