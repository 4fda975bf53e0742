#!/usr/bin/env bash
# Installs the Debian packages named in the given lists (one per line) that
# are not installed yet; needs root or sudo when any is missing.
#   scripts/install-packages.sh LIST...
set -euo pipefail

packages=()
for list in "$@"; do
  mapfile -t -O "${#packages[@]}" packages < "$list"
done
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null |
    grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y \
    --no-install-recommends "${missing[@]}"
fi
