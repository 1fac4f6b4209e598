#!/usr/bin/env bash
# ctest testbed.probe_nodes: scripts/testbed/probe/nodes-sum.sh on the committed node-by-node
# probe (results/testbed/probe-nodes.txt.xz) gives what docs/VALIDATION.md §3.16 quotes: for the
# fastest cold pass of each size, the wait before layer 1 (0.029 to 0.038 s at every size), the
# layers' excess (about their whole read below N = 5, 0.018 to 0.041 s from N = 5 up) and the
# head's (0.052 to 0.057 s).
# Usage: probe_nodes.sh TOP
set -euo pipefail
top=$1
out=$(bash "$top/scripts/testbed/probe/nodes-sum.sh" "$top/results/testbed/probe-nodes.txt.xz")
fail() { echo "probe_nodes: $*" >&2; echo "$out" >&2; exit 1; }
[ "$(echo "$out" | wc -l)" -eq 30 ] || fail "not 30 cold passes (6 sizes x 5)"
# the fastest of each size: N rep pass start layers waiting head
want="1 1 0.2599 0.0372 0.1242 15 0.0571
2 3 0.3053 0.0366 0.1130 15 0.0567
4 2 0.3110 0.0384 0.0985 14 0.0525
5 2 0.3127 0.0339 0.0413 14 0.0561
8 1 0.2851 0.0291 0.0227 7 0.0542
16 1 0.4158 0.0357 0.0179 10 0.0540"
got=$(echo "$out" | awk '!seen[$1]++')
[ "$got" = "$want" ] || fail "fastest passes differ from §3.16: $got"
echo "probe_nodes: ok"
