#!/usr/bin/env bash
# ctest testbed.probe_nodes: scripts/testbed/probe/nodes-sum.sh on the committed node-by-node
# probe (results/testbed/probe-nodes.txt.xz) gives what docs/VALIDATION.md §3.16 quotes: for the
# fastest cold pass of each size, the wait before layer 1 (0.029 to 0.038 s at every size), the
# layers' excess (about their whole read below N = 5, 0.018 to 0.041 s from N = 5 up) and the
# head's (0.052 to 0.057 s). Also the bursts probe (results/testbed/probe-bursts.txt): the same
# arithmetic in stretches of 4 KiB to 8 MiB loses the reads about the same (fastest cold
# 0.266 to 0.281 s), and in stretches of 32 MiB, past the read-ahead window, it is serial.
# And what §3.17 quotes: the layers' matmuls of the warm passes (scripts/testbed/probe/
# matmul-sum.sh) and the warm tiles probe on the AMD EPYC host (results/testbed/probe-tiles-epyc.txt,
# fastest of 7 per size), where a batch of 4k + r tokens costs its 4k tokens' pass plus 0.060,
# 0.075 to 0.078 and 0.088 to 0.094 s for r = 1, 2, 3.
# Usage: probe_nodes.sh TOP
set -euo pipefail
top=$1
out=$(bash "$top/scripts/testbed/probe/nodes-sum.sh" "$top/results/testbed/probe-nodes.txt.xz")
fail() { echo "probe_nodes: $*" >&2; echo "$out" >&2; exit 1; }
[ "$(echo "$out" | wc -l)" -eq 30 ] || fail "not 30 cold passes (6 sizes x 5)"
# the fastest of each size: N rep pass start layers waiting head
want="1 1 0.2599 0.0372 0.1242 15 0.0571 0.0311
2 3 0.3053 0.0366 0.1130 15 0.0567 0.0847
4 2 0.3110 0.0384 0.0985 14 0.0525 0.1060
5 2 0.3127 0.0339 0.0413 14 0.0561 0.1614
8 1 0.2851 0.0291 0.0227 7 0.0542 0.1593
16 1 0.4158 0.0357 0.0179 10 0.0540 0.2797"
got=$(echo "$out" | awk '!seen[$1]++')
[ "$got" = "$want" ] || fail "fastest passes differ from §3.16: $got"
bursts=$(awk '{k=$1" "$2; if (!(k in mn) || $4 < mn[k]) mn[k] = $4} END {for (k in mn) print k, mn[k]}' \
  "$top/results/testbed/probe-bursts.txt" | sort -k1,1 -k2,2n | tr '\n' ';')
want_b="cold 4 0.2807;cold 256 0.2789;cold 2048 0.2663;cold 8192 0.2744;cold 32768 0.3390;plain 0 0.2107;warm 4 0.1215;warm 256 0.1218;warm 2048 0.1219;warm 8192 0.1226;warm 32768 0.1220;"
[ "$bursts" = "$want_b" ] || fail "bursts probe differs from §3.16: $bursts"
mm=$(bash "$top/scripts/testbed/probe/matmul-sum.sh" "$top/results/testbed/probe-nodes.txt.xz" | tr '\n' ';')
want_mm="1 0.0311 0.0077;2 0.0877 0.0075;4 0.1086 0.0079;5 0.1668 0.0080;8 0.1622 0.0077;16 0.2843 0.0078;"
[ "$mm" = "$want_mm" ] || fail "the layers' matmuls differ from §3.17: $mm"
tiles=$(awk '{if (!($1 in mn) || $3 < mn[$1]) mn[$1] = $3} END {for (k in mn) print k, mn[k]}' \
  "$top/results/testbed/probe-tiles-epyc.txt" | sort -n | tr '\n' ';')
want_t="1 0.0415;2 0.0975;3 0.1126;4 0.1215;5 0.1813;6 0.1993;7 0.2097;8 0.1783;9 0.2395;10 0.2535;11 0.2718;12 0.2379;16 0.3078;"
[ "$tiles" = "$want_t" ] || fail "the tiles probe differs from §3.17: $tiles"
echo "probe_nodes: ok"
