#!/usr/bin/env bash
# scripts/testbed/noise.sh RUN_A RUN_B: noise or model (docs/VALIDATION.md §0.7). Two published
# runs of one protocol (results/testbed/protocol-N/run-*/, one folder per configuration with its
# points.tsv and testbed.db) measured the same configurations, so what repeats between them is
# the model's (systematic) and what does not is the measurement's (noise). No llama.cpp run, no
# prediction made: it reads the stored files only.
#   Per configuration and kind (the non-near held-out points: cold N = 1..6, step, spec):
#     sys   the model's signed error, mean over both runs and the kind's points (what repeats);
#     run   the model's run-to-run half difference, mean of |e_A - e_B| / 2 (what does not);
#     base  the baseline's signed error, mean over both runs;
#     meas  mean |m_B / m_A - 1| of the measured points (fastest of the repetitions).
#   floor: a perfect model predicts each point's expected statistic, so its error is the
#     statistic's own scatter. Two runs' measured values differ by d = m_B / m_A - 1, twice the
#     variance of one; the perfect model's median |error| is taken as median |d| / sqrt 2 (exact
#     for a normal scatter, which the pooled points are close enough to for a median).
#   per threads: X, Y, X sys, Y sys and the floor over the configurations of one thread count.
#   reps R: the same floor for the fastest of the first R repetitions, R = 1 to as many as the
#     run measured (5 at two repetitions, 9 at four), from the cold calibration passes every
#     configuration measures that many times (stream, rows-0-cold,
#     rows-cold, vshape-ref, vshape-rows, vshape-ctx): how the floor falls with repetitions.
#   rep: the median spread slower / faster - 1 of two repetitions of one held-out pass.
#   X, Y: each run's protocol statistic recomputed from the points files (the verdict's).
#   X sys: the median |mean of the two runs' errors| (the model with its run-to-run part removed).
# Output: plain text, one line per row, stable (sorted by configuration and kind).
# Exit: 0; 64 usage; 66 a run without configurations in common.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: noise.sh RUN_A RUN_B" >&2; exit 64; }
a=$1; b=$2
command -v sqlite3 > /dev/null || { echo "noise.sh: sqlite3 (the command) is missing" >&2; exit 69; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
names=()
for d in "$a"/w*/; do
  n=$(basename "$d")
  if grep -qv '^#' "$d/points.tsv" 2> /dev/null && grep -qv '^#' "$b/$n/points.tsv" 2> /dev/null; then names+=("$n"); fi
done
[ ${#names[@]} -gt 0 ] || { echo "noise.sh: $a and $b have no predicted configuration in common" >&2; exit 66; }

# pts RUN NAME: the non-near held-out points, "kind:N:ctx measured predicted baseline".
pts() { awk '!/^#/ && $7 == 0 {print $1 ":" $2 ":" $3, $4, $5, $6}' "$1/$2/points.tsv" | sort; }
# median: of the numbers on standard input, one a line.
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) {print "nan"; exit}
  print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }

for n in "${names[@]}"; do
  join <(pts "$a" "$n") <(pts "$b" "$n") | awk -v n="$n" '{
    split($1, k, ":"); kind = k[1]
    print n, kind, $3 / $2 - 1, $6 / $5 - 1, $4 / $2 - 1, $7 / $5 - 1, $5 / $2 - 1 }'
done > "$tmp/pairs"     # name kind eA eB bA bB d

echo "noise or model: $(basename "$a") against $(basename "$b"), ${#names[@]} configurations, $(wc -l < "$tmp/pairs") held-out points in both"
echo "configuration     kind   points    sys    run   base   meas"
awk '{k = $1 " " $2; n[k]++; s[k] += ($3 + $4) / 2; r[k] += ($3 > $4 ? $3 - $4 : $4 - $3) / 2
      bs[k] += ($5 + $6) / 2; m[k] += ($7 < 0 ? -$7 : $7)}
     END {for (k in n) {split(k, p, " ")
       printf "%-17s %-6s %6d %+5.1f%% %5.1f%% %+5.1f%% %5.1f%%\n", p[1], p[2], n[k],
         100 * s[k] / n[k], 100 * r[k] / n[k], 100 * bs[k] / n[k], 100 * m[k] / n[k]}}' "$tmp/pairs" | sort

d=$(awk '{print ($7 < 0 ? -$7 : $7)}' "$tmp/pairs" | median)
xa=$(awk '{print ($3 < 0 ? -$3 : $3)}' "$tmp/pairs" | median)
xb=$(awk '{print ($4 < 0 ? -$4 : $4)}' "$tmp/pairs" | median)
ya=$(awk '{print ($5 < 0 ? -$5 : $5)}' "$tmp/pairs" | median)
yb=$(awk '{print ($6 < 0 ? -$6 : $6)}' "$tmp/pairs" | median)
xs=$(awk '{s = ($3 + $4) / 2; print (s < 0 ? -s : s)}' "$tmp/pairs" | median)
ys=$(awk '{s = ($5 + $6) / 2; print (s < 0 ? -s : s)}' "$tmp/pairs" | median)
nrep=$(sqlite3 "$a/${names[0]}/testbed.db" 'SELECT reps FROM tb_run LIMIT 1')
awk -v d="$d" -v xa="$xa" -v xb="$xb" -v ya="$ya" -v yb="$yb" -v xs="$xs" -v ys="$ys" -v r="$nrep" 'BEGIN {
  printf "X: run A %.1f %%, run B %.1f %%; Y: run A %.1f %%, run B %.1f %%; Y / 2: %.1f %% and %.1f %%\n",
    100 * xa, 100 * xb, 100 * ya, 100 * yb, 50 * ya, 50 * yb
  printf "X sys (the model without its run-to-run part): %.1f %%; Y sys (the baseline the same): %.1f %%\n", 100 * xs, 100 * ys
  printf "measured run-to-run, fastest of %d: median |B / A - 1| %.1f %%; floor (a perfect model) %.1f %%\n", r, 100 * d, 100 * d / sqrt(2) }'
# The same per thread count (the configuration's name says it: -t1-, -t2-): where the baseline's
# own bias sits against the floor.
for t in $(awk '{print $1}' "$tmp/pairs" | sed -n 's/.*-t\([0-9]*\)-.*/\1/p' | sort -un); do
  awk -v t="-t$t-" 'index($1, t)' "$tmp/pairs" > "$tmp/pt"
  col() { awk "{v = $1; print (v < 0 ? -v : v)}" "$tmp/pt" | median; }
  awk -v t="$t" -v n="$(wc -l < "$tmp/pt")" -v xa="$(col '$3')" -v xb="$(col '$4')" -v ya="$(col '$5')" -v yb="$(col '$6')" \
    -v xs="$(col '($3 + $4) / 2')" -v ys="$(col '($5 + $6) / 2')" -v d="$(col '$7')" 'BEGIN {
    printf "threads %s (%d points): X %.1f and %.1f %%, Y %.1f and %.1f %%; X sys %.1f %%, Y sys %.1f %%; floor %.1f %%\n",
      t, n, 100 * xa, 100 * xb, 100 * ya, 100 * yb, 100 * xs, 100 * ys, 100 * d / sqrt(2) }'
done

# The rep-to-rep spread of the held-out passes (kinds cold, step, tree-cold), both runs.
for run in "$a" "$b"; do
  for n in "${names[@]}"; do
    sqlite3 -separator ' ' "$run/$n/testbed.db" "SELECT min(time_s), max(time_s) FROM tb_pass WHERE kind IN
      ('cold', 'step', 'tree-cold') AND rep < 2 GROUP BY kind, n_tokens, ctx HAVING count(*) = 2"
  done
done | awk '{print $2 / $1 - 1}' > "$tmp/rep"
printf 'rep-to-rep: two repetitions of one held-out pass differ by a median of %.1f %% (%d passes)\n' \
  "$(median < "$tmp/rep" | awk '{print 100 * $1}')" "$(wc -l < "$tmp/rep")"

# The floor against the repetitions: the cold calibration passes measured five times in both runs.
cal="('stream', 'rows-0-cold', 'rows-cold', 'vshape-ref', 'vshape-rows', 'vshape-ctx')"
rmax=$(sqlite3 "$a/${names[0]}/testbed.db" "SELECT count(*) FROM tb_pass WHERE kind = 'stream'")
for r in $(seq 1 "$rmax"); do
  for n in "${names[@]}"; do
    q="SELECT kind, n_tokens, ctx, min(time_s) FROM tb_pass WHERE kind IN $cal AND rep < $r GROUP BY kind, n_tokens, ctx"
    join <(sqlite3 -separator ' ' "$a/$n/testbed.db" "$q" | awk '{print $1 ":" $2 ":" $3, $4}' | sort) \
         <(sqlite3 -separator ' ' "$b/$n/testbed.db" "$q" | awk '{print $1 ":" $2 ":" $3, $4}' | sort)
  done | awk '{x = $3 / $2 - 1; print (x < 0 ? -x : x)}' > "$tmp/cal"
  printf 'fastest of %d: cold calibration passes run-to-run median |B / A - 1| %.1f %%, floor %.1f %% (%d passes)\n' \
    "$r" "$(median < "$tmp/cal" | awk '{print 100 * $1}')" "$(median < "$tmp/cal" | awk '{print 100 * $1 / sqrt(2)}')" \
    "$(wc -l < "$tmp/cal")"
done
