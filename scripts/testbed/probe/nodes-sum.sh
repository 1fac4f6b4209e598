#!/usr/bin/env bash
# scripts/testbed/probe/nodes-sum.sh: sums up the output of `testbed probe --kind nodes`
# (docs/VALIDATION.md §3.16). A cold node's excess is its time less the fastest time of the same
# node (by its index in the pass) over the warm passes of the same size. For every cold pass it
# prints one line:
#   N rep pass_s start_s layers_s waiting head_s warm_layers_s
# start_s: the excess of every node up to the end of layer 0 (the embedding rows and the first
# layer); layers_s: that of layers 1 to the last; waiting: how many of those layers exceed
# 1 ms; head_s: that of the nodes after the last layer (the output norm and projection);
# warm_layers_s: the fastest warm times of the nodes of layers 1 to the last, summed (their
# compute).
# Usage: nodes-sum.sh FILE (plain text, or .xz)
set -euo pipefail
file=${1:?usage: nodes-sum.sh FILE}
if [[ $file == *.xz ]]; then cat=(xz -dc -- "$file"); else cat=(cat -- "$file"); fi
"${cat[@]}" | awk '
  # a node line: state N rep index name... seconds; the name may hold spaces
  function layer(name) {
    if (match(name, /-[0-9]+$/)) return substr(name, RSTART + 1) + 0
    if (match(name, /_l[0-9]+$/)) return substr(name, RSTART + 2) + 0
    return -1
  }
  $1 == "pass" { pass[$2, $3, $4] = $5; next }
  {
    n = $2; r = $3; i = $4; t = $NF
    name = $5; for (k = 6; k < NF; k++) name = name " " $k
    if ($1 == "warm") {
      if (!((n, i) in best) || t < best[n, i]) best[n, i] = t
      wlay[n, i] = layer(name)
    } else {
      cold[n, r, i] = t; lay[n, r, i] = layer(name)
      if (i + 1 > count[n, r]) count[n, r] = i + 1
      if (!(n in seen)) { seen[n] = 1; sizes[++ns] = n }
      if (!((n, r) in seenr)) { seenr[n, r] = 1; reps[n] = reps[n] " " r }
    }
  }
  END {
    for (s = 1; s <= ns; s++) {
      n = sizes[s]; m = split(reps[n], rl, " ")
      for (q = 1; q <= m; q++) {
        r = rl[q]; st = 0; ly = 0; hd = 0; waiting = 0; last = -1; delete per
        for (i = 0; i < count[n, r]; i++) if (lay[n, r, i] > last) last = lay[n, r, i]
        past = 0
        for (i = 0; i < count[n, r]; i++) {
          e = cold[n, r, i] - best[n, i]; L = lay[n, r, i]
          if (L == last) past = 1
          if (L >= 1) { ly += e; per[L] += e }
          else if (L < 0 && past) hd += e
          else st += e
        }
        for (L = 1; L <= last; L++) if (per[L] > 0.001) waiting++
        wl = 0
        for (i = 0; i < count[n, r]; i++) if (wlay[n, i] >= 1) wl += best[n, i]
        printf "%d %d %.4f %.4f %.4f %d %.4f %.4f\n", n, r, pass["cold", n, r], st, ly, waiting, hd, wl
      }
    }
  }' | sort -k1,1n -k3,3n
