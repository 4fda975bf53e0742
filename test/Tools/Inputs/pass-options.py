"""Reads `ckpt-opt --help` from stdin and compares the options of the pass
or pipeline FROM with those of INTO: prints each option of FROM that INTO
lacks or describes otherwise, then "N of M options of FROM on INTO, same
help".

usage: ckpt-opt --help | python pass-options.py FROM INTO
"""

import re
import sys


def options(help_text, name):
    """{option: help} listed under `--name` in the help's pass list."""
    found, inside = {}, False
    for line in help_text.splitlines():
        entry = re.match(r"^( +)--([a-z0-9-]+)(=<[a-z]+>)? +- +(.*)$", line)
        if not entry:
            continue
        depth = len(entry.group(1))
        if not inside and entry.group(2) == name:
            inside, pass_depth = True, depth
        elif inside and depth > pass_depth:
            found[entry.group(2)] = entry.group(4).strip()
        elif inside:
            break
    return found


help_text = sys.stdin.read()
source, target = sys.argv[1:3]
theirs, ours = options(help_text, source), options(help_text, target)
if not theirs:
    sys.exit(f"no options of --{source} in the help")
same = 0
for option, text in sorted(theirs.items()):
    if option not in ours:
        print(f"--{option} of --{source} is missing from --{target}")
    elif ours[option] != text:
        print(f"--{option} has other help on --{target}: '{ours[option]}' "
              f"against '{text}'")
    else:
        same += 1
print(f"{same} of {len(theirs)} options of --{source} on --{target}, same help")
