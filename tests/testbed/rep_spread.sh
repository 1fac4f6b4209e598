#!/usr/bin/env bash
# ctest testbed.rep_spread: the repeatability docs/VALIDATION.md §0.2 quotes for protocol-2's
# run. For each configuration of the stored run, each held-out pass of kind cold, step or
# tree-cold was measured twice (reps 0 and 1); its spread is slower / faster - 1. The median
# over all of them is the noise the fastest-of-two statistic sits on, which the docs compare
# with the model's and the baseline's median errors. Checks the quoted value, and that a
# doctored value is refused. No llama.cpp run.
# Usage: rep_spread.sh TOP
set -euo pipefail
top=$1
run=$top/results/testbed/protocol-2/run-20261128T0731Z
doc=$top/docs/VALIDATION.md
command -v sqlite3 > /dev/null || { echo "rep_spread: sqlite3 (the command) is missing" >&2; exit 1; }
spread() {
  for db in "$run"/w*/testbed.db; do
    sqlite3 -separator ' ' "$db" "SELECT min(time_s), max(time_s) FROM tb_pass WHERE kind IN
      ('cold', 'step', 'tree-cold') AND rep < 2 GROUP BY kind, n_tokens, ctx HAVING count(*) = 2"
  done | awk '{print $2 / $1 - 1}' | sort -g |
    awk '{a[NR] = $1} END {if (NR != 84) {print "points " NR; exit 1}
                           m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
                           printf "%.1f %%\n", 100 * m}'
}
got=$(spread) || { echo "rep_spread: want 84 held-out passes of two repetitions, $got" >&2; exit 1; }
want="the two repetitions of one held-out pass differ by a median of $got"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# the text as one line (the sentence may wrap)
tr -s ' \n' '  ' < "$doc" > "$tmp/doc"
grep -qF "$want" "$tmp/doc" || { echo "rep_spread: docs/VALIDATION.md does not say '$want'" >&2; exit 1; }
# the check can fail: a doctored value in a copy of the text
sed "s/differ by a median of $got/differ by a median of 1.0 %/" "$tmp/doc" > "$tmp/v.md"
grep -qF "$want" "$tmp/v.md" && { echo "rep_spread: selftest: the doctored copy still matches" >&2; exit 1; }
echo "rep_spread: $want"
