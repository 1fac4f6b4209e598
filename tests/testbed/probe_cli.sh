#!/usr/bin/env bash
# ctest testbed.probe_cli: `leversim testbed probe` (the probes that were hand-built programs
# under scripts/testbed/probe/ until issue 32) on a 2-layer model: tiles prints one line a
# pass for N = 1 to 12 and 16; nodes one line a node and one a pass, cold and warm for N = 1, 2,
# 4, 5, 8, 16, every layer's first weighted node once a pass, which nodes-sum.sh sums. Formats
# and counts only: no time is checked. Exit 77 (a skip) when the pinned library cannot be had.
# Usage: probe_cli.sh LEVERSIM TOP BUILD
set -euo pipefail
leversim=$1; top=$2; build=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "probe_cli: $*" >&2; exit 1; }
set +e
lib=$(bash "$top/scripts/testbed/fetch.sh" "$build/testbed/pkg")
st=$?
set -e
[ $st -eq 0 ] || { echo "SKIP: the pinned llama.cpp cannot be fetched (fetch.sh exit $st)"; exit 77; }
"$leversim" testbed model --model llama-3.2-1b --layers 2 --width 256 --out "$tmp/m.gguf" > /dev/null
"$leversim" testbed probe --kind tiles --lib "$lib" --model "$tmp/m.gguf" --reps 2 > "$tmp/tiles.txt"
got=$(awk '{print $1}' "$tmp/tiles.txt" | tr '\n' ' ')
[ "$got" = "1 2 3 4 5 6 7 8 9 10 11 12 16 1 2 3 4 5 6 7 8 9 10 11 12 16 " ] || fail "tiles: sizes $got"
awk 'NF != 4 || $3 <= 0 || $2 !~ /^[01]$/ {exit 1}' "$tmp/tiles.txt" || fail "tiles: a malformed line"
"$leversim" testbed probe --kind nodes --lib "$lib" --model "$tmp/m.gguf" --reps 1 > "$tmp/nodes.txt"
[ "$(grep -c '^pass ' "$tmp/nodes.txt")" = 12 ] || fail "nodes: $(grep -c '^pass ' "$tmp/nodes.txt") passes, not 12"
for s in cold warm; do for n in 1 2 4 5 8 16; do
  c=$(awk -v s=$s -v n=$n '$1 == s && $2 == n && $5 ~ /^attn_norm-[01]$/' "$tmp/nodes.txt" | wc -l)
  [ "$c" = 2 ] || fail "nodes: $s N=$n: $c attn_norm nodes, not one a layer"
done; done
[ "$(bash "$top/scripts/testbed/probe/nodes-sum.sh" "$tmp/nodes.txt" | wc -l)" -ge 6 ] || fail "nodes-sum.sh read nothing"
set +e
"$leversim" testbed probe --kind bursts --lib "$lib" --model "$tmp/m.gguf" > /dev/null 2>&1; st=$?
set -e
[ $st -eq 64 ] || fail "an unknown kind: exit $st, not 64"
echo "probe_cli: ok"
