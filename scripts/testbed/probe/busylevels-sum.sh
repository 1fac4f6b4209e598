#!/usr/bin/env bash
# scripts/testbed/probe/busylevels-sum.sh: sums up the output of the probe busylevels.c (removed in issue 32; git show eafd053:scripts/testbed/probe/busylevels.c)
# (docs/VALIDATION.md §3.18): per level, in the order the file first gives them, the medians
# over the repetitions of the plain cold stream, of the arithmetic over the cached file (alone)
# and of the busy cold stream, and the busy stream less the arithmetic alone:
#   level % stream_s alone_s busy_s busy_less_alone_s
# Medians, because this VM stalls some reads for about twice a stream's time at random (§3.9).
# Usage: busylevels-sum.sh FILE
set -euo pipefail
file=${1:?usage: busylevels-sum.sh FILE}
awk '
  function med(s,   a, n, i, j, t) {
    n = split(s, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return a[int((n + 1) / 2)]
  }
  NF == 5 {
    if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
    s[$1] = s[$1] " " $3; b[$1] = b[$1] " " $4; a[$1] = a[$1] " " $5
  }
  END {
    for (i = 1; i <= n; i++) {
      k = order[i]
      printf "%d %% %.3f %.3f %.3f %+.3f\n", k, med(s[k]), med(a[k]), med(b[k]), med(b[k]) - med(a[k])
    }
  }' "$file"
