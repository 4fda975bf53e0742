#!/usr/bin/env python3
"""ckpt-opt's plans trained by PyTorch through selective checkpointing
(python/ckpt_torch) on the zoo: one table row per model of
bench/zoo-checks.py (torchvision's classifiers or families, transformers'
architectures; f32, batch 2, dropout off as that script builds them), the
checks of test/Torch/Inputs/sac_checks.py: the loss and gradients with
dp's plan (no budget: its smallest peak) bit-identical to PyTorch's
without it, and the activation bytes PyTorch holds after forward as the
exported plan predicts (measured less predicted the same with and without
the plan, the random state of each recomputing region counted).

usage: .venv/bin/python bench/sac-zoo.py [--strategy S] [MODEL...]
       (by default the families and architectures the test suite's zoo
       tests cover; ckpt-opt from PATH or build/bin)
"""

import argparse
import os
import sys
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "test", "Torch", "Inputs"))
sys.path.insert(0, os.path.join(root, "bench"))
import sac_checks  # noqa: E402

checks = __import__("zoo-checks")
zoo = __import__("torchvision-zoo")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", default="dp")
    parser.add_argument("models", nargs="*",
                        default=list(zoo.SMALL_FAMILIES) +
                        list(checks.TRANSFORMERS))
    options = parser.parse_args()
    print("| model | regions | saved calls | held, no plan: measured / "
          "predicted B | held, plan: measured / predicted + random state B "
          "| measured less predicted | ckpt-opt keeps B | not saved as "
          "planned | gradients | s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- "
          "| ---: |")
    passed = 0
    for name in options.models:
        start = time.perf_counter()
        try:
            found = sac_checks.measure("zoo:" + name,
                                       strategy=options.strategy)
        except Exception as error:  # a model the bridge cannot take
            print(f"| {name} | failed: {type(error).__name__}: "
                  f"{str(error).splitlines()[0][:120]} | | | | | | | | |",
                  flush=True)
            continue
        plan = found["plan"]
        predicted = plan["held_bytes"]
        agrees = found["unplanned_delta"] == found["planned_delta"]
        passed += agrees and found["same"]
        count, size = found["not_as_planned"]
        print(f"| {name} | {len(plan['regions'])} | {found['saved_calls']} "
              f"| {found['held']} / {predicted['without_plan']} | "
              f"{found['planned_held']} / {predicted['with_plan']} + "
              f"{found['state']} | "
              f"{found['planned_delta'] if agrees else 'DIFFERS: ' + str(found['unplanned_delta']) + ' / ' + str(found['planned_delta'])} | "
              f"{plan['ckpt_saved_bytes']} | {count} ({size} B) | "
              f"{'bit-identical' if found['same'] else 'DIFFERENT'} | "
              f"{time.perf_counter() - start:.0f} |", flush=True)
    print(f"\n{passed} of {len(options.models)} pass both checks")
    return 0 if passed == len(options.models) else 1


if __name__ == "__main__":
    sys.exit(main())
