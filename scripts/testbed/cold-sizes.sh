#!/usr/bin/env bash
# scripts/testbed/cold-sizes.sh VALIDATE.txt...: the cold passes of several validations, size by
# size (docs/VALIDATION.md §3.18). For every size N of cold pass at context 0 it prints, averaged
# over the files given (one per run):
#   N runs  measured_excess  predicted_excess  mean_error  min_error  max_error
# measured_excess: the cold pass less the warm pass of the same size, both measured (s);
# predicted_excess: the same difference, both predicted (s); the errors are the cold pass's
# (predicted / measured - 1, in %). Then one line per group of sizes
#   group FROM-TO points mean_error mean_abs_error
# for the groups 1, 2-4, 5-8 and 12 and up: where a read-bound pass turns into one whose compute
# about equals its reads (5 tokens and up, the kernel's second walk or wider tiles, §3.17).
# Reads only `leversim testbed validate` output (its "cold" and "warm" rows).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: cold-sizes.sh VALIDATE.txt..." >&2; exit 64; }
for f in "$@"; do [ -r "$f" ] || { echo "cold-sizes.sh: $f: cannot read" >&2; exit 66; }; done
awk '
  FNR == 1 { file++ }
  ($1 == "warm" || $1 == "cold") && $3 == 0 && NF >= 6 {
    key = file SUBSEP $2
    if ($1 == "warm") { wm[key] = $4; wp[key] = $5 } else { cm[key] = $4; cp[key] = $5; sizes[$2] = 1 }
  }
  END {
    n = 0
    for (s in sizes) list[++n] = s + 0
    for (i = 2; i <= n; i++) for (j = i; j > 1 && list[j - 1] > list[j]; j--) { t = list[j]; list[j] = list[j - 1]; list[j - 1] = t }
    split("1 2 5 12", lo, " "); split("1 4 8 1000000", hi, " ")
    for (i = 1; i <= n; i++) {
      s = list[i]; k = 0; me = pe = e = 0; mn = 1e9; mx = -1e9
      for (f = 1; f <= file; f++) {
        key = f SUBSEP s
        if (!(key in cm) || !(key in wm) || cm[key] <= 0) continue
        err = 100 * (cp[key] / cm[key] - 1)
        k++; me += cm[key] - wm[key]; pe += cp[key] - wp[key]; e += err
        if (err < mn) mn = err; if (err > mx) mx = err
        for (g = 1; g <= 4; g++) if (s >= lo[g] && s <= hi[g]) { gn[g]++; ge[g] += err; ga[g] += err < 0 ? -err : err }
      }
      if (k) printf "%5d %4d %9.3f %9.3f %+8.1f%% %+8.1f%% %+8.1f%%\n", s, k, me / k, pe / k, e / k, mn, mx
    }
    for (g = 1; g <= 4; g++)
      if (gn[g]) printf "group %d-%s %d %+.1f%% %.1f%%\n", lo[g], hi[g] == 1000000 ? "" : hi[g], gn[g], ge[g] / gn[g], ga[g] / gn[g]
  }' "$@"
