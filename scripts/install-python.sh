#!/usr/bin/env bash
# Creates the virtual environment of the PyTorch bridge, .venv (or
# $CKPT_VENV), with Debian's python3 and the packages of
# scripts/python-requirements.txt from PyPI, and installs the package of
# python/ (ckpt_torch and the importer) into it, editable: the environment
# imports the source tree's. Does nothing when the environment already
# holds exactly those requirements and this tree's package. Prints the
# environment's python.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${CKPT_VENV:-$root/.venv}
requirements=$root/scripts/python-requirements.txt
stamp=$venv/ckpt-requirements.txt

if ! cmp -s "$requirements" "$stamp" 2>/dev/null; then
  echo "setup: installing the Python packages of $requirements into $venv" >&2
  [ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --no-input -r "$requirements" >&2
  cp "$requirements" "$stamp"
fi
package=$root/python/ckpt_torch/__init__.py
if [ "$("$venv/bin/python" -c 'import ckpt_torch; print(ckpt_torch.__file__)' \
        2>/dev/null)" != "$package" ]; then
  echo "setup: installing $root/python into $venv (editable)" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --no-input --no-deps --no-build-isolation -e "$root/python" >&2
fi
echo "$venv/bin/python"
