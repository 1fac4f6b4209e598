#!/usr/bin/env bash
# ctest testbed.baseline: the trivial baseline beside the model (issue 32), on published run AV
# validated by default (no busy share):
# its constant is the mean excess of the run's two cold calibration passes over
# max(warm fit, stream), 0.0374 s beside the stream's 0.1930 s; every cold point whose warm fit
# is below the stream is predicted stream + constant; a warm point (tree-warm) is the warm fit,
# the model's own warm prediction; the held-out points file carries the near-copy flags (6 of
# 16: cold 8 to 32 at context 0 near the 16-token cold rows passes, and the tree near them).
# Usage: baseline.sh LEVERSIM TOP
set -euo pipefail
leversim=$1; top=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "baseline: $*" >&2; exit 1; }
run=$top/results/testbed/run-av
cp "$run/testbed.db" "$tmp/av.db"
(cd "$top" && "$leversim" testbed validate --db "$tmp/av.db" --profile "$run/testbed-vm.yaml" \
  --fio-mmap "$run/fio-mmap.json" --points "$tmp/av.tsv") > "$tmp/out.txt" || fail "validate: exit $?"
grep -q "^baseline: the trivial model: cold = max(warm fit, the stream's 0.1930 s) + 0.0374 s (the mean excess of 2 cold calibration passes); warm = the warm fit$" \
  "$tmp/out.txt" || fail "the constant: $(grep '^baseline:' "$tmp/out.txt")"
grep -Eq "^baseline spec +1 points: mean \|error\| model   2.9 %, baseline  16.4 %: the model is closer$" "$tmp/out.txt" ||
  fail "spec: $(grep '^baseline spec' "$tmp/out.txt")"
grep -q "^baseline median absolute error of the held-out points: model 3.0 %, baseline 9.4 % (6 of them near-copies" \
  "$tmp/out.txt" || fail "median: $(grep '^baseline median' "$tmp/out.txt")"
awk -F'\t' '!/^#/ {
    if ($1 == "cold" && $2 <= 6 && ($6 < 0.2304 - 1e-4 || $6 > 0.2304 + 1e-4)) { print "cold " $2 ": " $6; bad = 1 }
    if ($1 == "tree-warm" && $5 != $6) { print "tree-warm: " $5 " vs " $6; bad = 1 }
    near += $7; n++ }
  END { if (near != 6 || n != 16) { print "near " near " of " n; bad = 1 } exit bad }' "$tmp/av.tsv" ||
  fail "the points file"
# --points follows the output rule: a symbolic link, or a file leversim did not write, is refused
# and left as it was.
printf 'not ours\n' > "$tmp/foreign.txt"
ln -s "$tmp/foreign.txt" "$tmp/link.tsv"
for target in "$tmp/link.tsv" "$tmp/foreign.txt"; do
  if (cd "$top" && "$leversim" testbed validate --db "$tmp/av.db" --profile "$run/testbed-vm.yaml" \
    --fio-mmap "$run/fio-mmap.json" --points "$target") > "$tmp/refused.txt" 2>&1; then
    fail "--points $target was written"
  fi
done
[ "$(cat "$tmp/foreign.txt")" = "not ours" ] || fail "the foreign file changed"
echo "baseline: ok"
