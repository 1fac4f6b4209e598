#!/usr/bin/env bash
# scripts/testbed/insample.sh OUT_DIR: the current model's in-sample reading of every stored
# configuration run of the protocols (results/testbed/protocol-N/run-*/), with and without the
# read path's work beside a compute on every core (devices/mapread.h, contend_s_per_byte;
# docs/VALIDATION.md §0.8). Each run is replayed twice by replay.sh from its stored measurements
# (no llama.cpp run): as the model is, and with TB_CONTENTION=off (the model before §0.8, whose
# points are those of the code each run was registered with). Development, never a protocol run.
# Output (standard output, stable; results/testbed/insample.txt is this script's output for the
# committed model, re-checked by ctest testbed.replay):
#   one line per configuration run: protocol, run, configuration, threads, held-out points (the
#   non-near ones), mean |error| of the model without and with the term, the baseline's, the
#   speculative error without and with;
#   per thread count: the mean over configuration runs of each mean, and how many runs the term
#   made better, worse, or left as they were;
#   per run: the verdict line without and with.
# OUT_DIR is made fresh (it must not exist, or hold only an earlier output: insample.txt marks it).
# Exit: 0; 64 usage; 66 no run. Environment: LEVERSIM (default build/leversim).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: insample.sh OUT_DIR" >&2; exit 64; }
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(bash "$top/scripts/testbed/fresh-dir.sh" "$1" insample.txt insample.sh "insample of $top/results/testbed") || exit 64
runs=()
for r in "$top"/results/testbed/protocol-*/run-*/; do runs+=("${r%/}"); done
[ ${#runs[@]} -gt 0 ] || { echo "insample.sh: no stored protocol run" >&2; exit 66; }
# mean_err POINTS COLUMN: the mean |column / measured - 1| over the non-near held-out points (5
# the model, 6 the baseline); spec_err POINTS: the speculative point's signed error.
mean_err() { awk -v c="$2" '!/^#/ && $7 == 0 {e = $c / $4 - 1; s += e < 0 ? -e : e; k++}
  END {if (k) printf "%.1f", 100 * s / k; else printf "nan"}' "$1"; }
spec_err() { awk '!/^#/ && $1 == "spec" {printf "%+.1f", 100 * ($5 / $4 - 1); f = 1} END {if (!f) printf "nan"}' "$1"; }
npts() { awk '!/^#/ && $7 == 0 {k++} END {print k + 0}' "$1"; }
verdicts=()
for r in "${runs[@]}"; do
  p=$(basename "$(dirname "$r")"); rn=$(basename "$r")
  proto=$top/runner/testbed/$p.yaml
  [ "$p" = protocol-1 ] && proto=$top/runner/testbed/protocol.yaml
  [ "$p" = protocol-1 ] && sub=protocol || sub=$p
  on=$(bash "$top/scripts/testbed/replay.sh" "$r" "$out/$p-$rn" "$proto" 2> /dev/null) || true
  off=$(TB_CONTENTION=off bash "$top/scripts/testbed/replay.sh" "$r" "$out/$p-$rn-off" "$proto" 2> /dev/null) || true
  verdicts+=("$p $rn without: ${off}" "$p $rn with: ${on}")
  for d in "$out/$p-$rn/build/testbed/$sub"/w*/; do
    c=$(basename "$d"); a=$out/$p-$rn-off/build/testbed/$sub/$c/points.tsv; b=$d/points.tsv
    [ "$(npts "$b")" -gt 0 ] || continue
    t=$(echo "$c" | sed -n 's/.*-t\([0-9]*\)-.*/\1/p')
    echo "$p $rn $c $t $(npts "$b") $(mean_err "$a" 5) $(mean_err "$b" 5) $(mean_err "$b" 6) $(spec_err "$a") $(spec_err "$b")"
  done
done > "$out/rows"
echo "protocol run configuration threads points model-without model-with baseline spec-without spec-with"
cat "$out/rows"
awk '{t = $4; n[t]++; a[t] += $6; b[t] += $7; z[t] += $8
      if ($7 < $6) better[t]++; else if ($7 > $6) worse[t]++; else same[t]++}
  END {for (t in n) printf "threads %s: %d configuration runs; mean of the mean |error|: model without %.1f %%, with %.1f %%, baseline %.1f %%; the term made %d better, %d worse, %d the same\n",
    t, n[t], a[t] / n[t], b[t] / n[t], z[t] / n[t], better[t] + 0, worse[t] + 0, same[t] + 0}' "$out/rows" | sort
printf '%s\n' "${verdicts[@]}"
