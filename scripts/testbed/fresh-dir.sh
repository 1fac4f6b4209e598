#!/usr/bin/env bash
# scripts/testbed/fresh-dir.sh DIR MARK WHO LINE: make DIR fresh for a script that writes its
# outputs there (replay.sh, insample.sh) and print its absolute path. DIR must not exist, or be
# an earlier output of the same script: a folder (not a link) holding the file MARK, which the
# script wrote; anything else is refused (exit 64, WHO named), so no folder leversim did not
# make is ever removed. The new DIR/MARK holds LINE.
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: fresh-dir.sh DIR MARK WHO LINE" >&2; exit 64; }
dir=$1; mark=$2; who=$3
if [ -e "$dir" ] || [ -L "$dir" ]; then
  if [ -L "$dir" ] || [ ! -f "$dir/$mark" ]; then echo "$who: $dir exists and is no earlier output of it" >&2; exit 64; fi
  rm -rf "$dir"
fi
mkdir -p "$dir"
out=$(cd "$dir" && pwd)
echo "$4" > "$out/$mark"
echo "$out"
