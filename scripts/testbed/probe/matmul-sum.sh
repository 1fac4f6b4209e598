#!/usr/bin/env bash
# scripts/testbed/probe/matmul-sum.sh: the layers' weighted matmuls in the warm passes of
# `testbed probe --kind nodes` (docs/VALIDATION.md §3.17). A node's time is its fastest over
# the warm passes of the same size (by its index in the pass); the matmuls are the first node of
# each run of nodes of one name in a layer (Qcur, Kcur and Vcur are followed by their reshapes
# and rotations under the same name), among attn_out, ffn_gate, ffn_up, ffn_out and those three.
# For every size it prints one line:
#   N matmuls_s head_s
# matmuls_s: the layers' matmuls summed over every layer; head_s: the output projection
# (result_output).
# Usage: matmul-sum.sh FILE (plain text, or .xz)
set -euo pipefail
file=${1:?usage: matmul-sum.sh FILE}
if [[ $file == *.xz ]]; then cat=(xz -dc -- "$file"); else cat=(cat -- "$file"); fi
"${cat[@]}" | awk '
  $1 != "warm" { next }
  {
    n = $2; i = $4; t = $NF
    name = $5; for (k = 6; k < NF; k++) name = name " " $k
    if (!((n, i) in best) || t < best[n, i]) best[n, i] = t
    nm[n, i] = name
    if (i > last[n]) last[n] = i
  }
  END {
    for (n in last) {
      mm = 0; head = 0; prev = ""
      for (i = 0; i <= last[n]; i++) {
        s = nm[n, i]
        if (s ~ /^(Qcur|Kcur|Vcur|attn_out|ffn_gate|ffn_up|ffn_out)-[0-9]+$/ && s != prev) mm += best[n, i]
        if (s == "result_output") head += best[n, i]
        prev = s
      }
      printf "%d %.4f %.4f\n", n, mm, head
    }
  }' | sort -n
