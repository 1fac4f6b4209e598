#!/usr/bin/env bash
# ctest testbed.noise: the noise-or-model figures docs/VALIDATION.md §0.7 quotes, recomputed
# from protocol-2's two stored runs by scripts/testbed/noise.sh (no llama.cpp run): the model's
# and the baseline's systematic medians, the noise floor at two repetitions, the floor against
# the repetitions on the cold calibration passes, and the per-configuration rows of the cold
# passes; item 4's extra CPU time and cold slope of the two w3072 configurations; §0.8's figures
# from protocol-3's two runs and from results/testbed/insample.txt (the in-sample table). Each
# quoted string must be in the text; a doctored copy must fail the same check.
# Usage: noise.sh TOP
set -euo pipefail
top=$1
p2=$top/results/testbed/protocol-2
doc=$top/docs/VALIDATION.md
fail() { echo "noise: $*" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out=$(bash "$top/scripts/testbed/noise.sh" "$p2/run-20261128T0731Z" "$p2/run-20261128T0853Z") || fail "noise.sh: exit $?"
tr -s ' \n' '  ' < "$doc" > "$tmp/doc"   # the text as one line (sentences wrap)
line() { echo "$out" | grep -m1 "$1" || fail "noise.sh printed no '$1'"; }
sysl=$(line '^X sys'); floorl=$(line '^measured run-to-run')
xs=$(echo "$sysl" | sed -n 's/.*part): \([0-9.]*\) %.*/\1/p')
ys=$(echo "$sysl" | sed -n 's/.*the same): \([0-9.]*\) %.*/\1/p')
d=$(echo "$floorl" | sed -n 's/.*median |B \/ A - 1| \([0-9.]*\) %.*/\1/p')
fl=$(echo "$floorl" | sed -n 's/.*perfect model) \([0-9.]*\) %.*/\1/p')
if [ -z "$xs" ] || [ -z "$ys" ] || [ -z "$d" ] || [ -z "$fl" ]; then fail "unparsed: '$sysl' '$floorl'"; fi
quotes=("X sys $xs %" "Y sys $ys %" "median |B / A − 1| $d %; floor (a perfect model) $fl %")
# the floor against the repetitions: R = 1..5
reps=$(echo "$out" | sed -n 's/^fastest of [0-9]: .*median |B \/ A - 1| \([0-9.]*\) %.*/\1/p' | paste -sd' ')
# shellcheck disable=SC2086 # five numbers, one word each
set -- $reps
[ $# -eq 5 ] || fail "want five 'fastest of R' lines, got '$reps'"
quotes+=("is $1, $2, $3, $4 and $5 % for R = 1 to 5")
# the cold rows of the table, per configuration: sys, run, base, meas ("-1.0%" printed, "−1.0 %" quoted)
pct() { local v=${1%\%}; echo "${v/-/−} %"; }
while read -r name kind n sys run base meas; do
  [ "$kind" = cold ] || continue
  quotes+=("| $name | cold N 1–6 | $n | $(pct "$sys") | $(pct "$run") | $(pct "$base") | $(pct "$meas") |")
done < <(echo "$out" | awk '/^w[0-9]/')
# §0.7 item 4: w3072-l6-t2-d6's 16-token cold pass's extra CPU over its warm twin (both runs),
# and w3072-l6-t1-d3's slope of the cold passes on the compute, (cold 6 - cold 1) / (warm 6 - warm 1)
cpu=() slope=()
for r in run-20261128T0731Z run-20261128T0853Z; do
  cpu+=("$(sqlite3 "$p2/$r/w3072-l6-t2-d6/testbed.db" "SELECT printf('%.3f', (SELECT avg(cpu_s) FROM tb_pass WHERE
    kind = 'rows-0-cold') - (SELECT avg(cpu_s) FROM tb_pass WHERE kind = 'rows-0'))")")
  slope+=("$(awk '($1 == "warm" || $1 == "cold") && ($2 == 1 || $2 == 6) {v[$1 $2] = $4}
    END {printf "%.2f", (v["cold6"] - v["cold1"]) / (v["warm6"] - v["warm1"])}' "$p2/$r/w3072-l6-t1-d3/validate.txt")")
done
quotes+=("it used ${cpu[0]} and ${cpu[1]} s more CPU than warm in w3072-l6-t2-d6")
lo=$(printf '%s\n' "${slope[@]}" | sort -g | head -1); hi=$(printf '%s\n' "${slope[@]}" | sort -g | tail -1)
quotes+=("the measured slope is $lo and $hi (w3072-l6-t1-d3)")
[ ${#quotes[@]} -eq 13 ] || fail "want 13 quoted figures, have ${#quotes[@]}"
for q in "${quotes[@]}"; do
  grep -qF -- "$q" "$tmp/doc" || fail "docs/VALIDATION.md does not say '$q'"
done
# §0.8: protocol-3's pair at four repetitions (the systematic medians, the floor, the floor against
# R = 1..9, the per-thread table) and the in-sample table of results/testbed/insample.txt.
p3=$top/results/testbed/protocol-3
out3=$(bash "$top/scripts/testbed/noise.sh" "$p3/run-20261128T0957Z" "$p3/run-20261128T1124Z") || fail "noise.sh protocol-3: exit $?"
sys3=$(echo "$out3" | grep -m1 '^X sys') || fail "protocol-3: no X sys line"
fl3=$(echo "$out3" | grep -m1 '^measured run-to-run') || fail "protocol-3: no floor line"
q8=("X sys $(echo "$sys3" | sed -n 's/.*part): \([0-9.]*\) %.*/\1/p') %"
    "Y sys $(echo "$sys3" | sed -n 's/.*the same): \([0-9.]*\) %.*/\1/p') %"
    "run-to-run median is $(echo "$fl3" | sed -n 's/.*1| \([0-9.]*\) %;.*/\1/p') %"
    "a perfect model would get about $(echo "$fl3" | sed -n 's/.*perfect model) \([0-9.]*\) %.*/\1/p') %")
r9=$(echo "$out3" | sed -n 's/^fastest of [0-9]: .*median |B \/ A - 1| \([0-9.]*\) %.*/\1/p' | paste -sd' ')
# shellcheck disable=SC2086 # nine numbers
set -- $r9
[ $# -eq 9 ] || fail "protocol-3: want nine 'fastest of R' lines, got '$r9'"
q8+=("$1, $2, $3, $4, $5, $6, $7, $8 and $9 % for R = 1 to 9")
while read -r _ t n x1 x2 y1 y2 xs ys fl; do
  q8+=("| $t | $n | $x1, $x2 % | $y1, $y2 % | $xs % | $ys % | $fl % |")
done < <(echo "$out3" | sed -n 's/^threads \([0-9]*\) (\([0-9]*\) points): X \([0-9.]*\) and \([0-9.]*\) %, Y \([0-9.]*\) and \([0-9.]*\) %; X sys \([0-9.]*\) %, Y sys \([0-9.]*\) %; floor \([0-9.]*\) %$/x \1 \2 \3 \4 \5 \6 \7 \8 \9/p')
# §0.8's table is the development reading: the configuration runs of protocol-1 to -3 only (the
# data the term was developed on), summed from insample.txt's rows as insample.sh sums them all;
# a later protocol's runs (out of sample for the term) are in the file but not in that table.
while read -r t n a b z u w m; do
  q8+=("| $t | $n | $a % | $b % | $z % | $u, $w, $m |")
done < <(awk '$1 ~ /^protocol-[123]$/ && NF == 10 && $4 ~ /^[0-9]+$/ {t = $4; n[t]++; a[t] += $6; b[t] += $7; z[t] += $8
      if ($7 < $6) bt[t]++; else if ($7 > $6) wo[t]++; else sm[t]++}
  END {for (t in n) printf "%s %d %.1f %.1f %.1f %d %d %d\n", t, n[t], a[t] / n[t], b[t] / n[t], z[t] / n[t],
    bt[t] + 0, wo[t] + 0, sm[t] + 0}' "$top/results/testbed/insample.txt" | sort)
[ ${#q8[@]} -eq 9 ] || fail "§0.8: want 9 quoted figures, have ${#q8[@]}"
for q in "${q8[@]}"; do
  grep -qF -- "$q" "$tmp/doc" || fail "docs/VALIDATION.md §0.8 does not say '$q'"
done
quotes+=("${q8[@]}")
# the check can fail: a doctored figure in a copy of the text
sed "s/X sys $xs %/X sys 1.0 %/" "$tmp/doc" > "$tmp/v.md"
grep -qF "X sys $xs %" "$tmp/v.md" && fail "selftest: the doctored copy still matches"
echo "noise: ${#quotes[@]} figures of docs/VALIDATION.md §0.7 and §0.8 recomputed"
