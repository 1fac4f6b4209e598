#!/usr/bin/env bash
# ctest testbed.ablation: docs/VALIDATION.md §0.4's ablations on the nine published runs AN to AV,
# each validated as published (the profile and fio files of its folder) and judged as the
# protocol judges (`testbed verdict`, near-copies left out): the default (no busy share), with
# the busy share as published (--io-share measured), without the wait at a cold pass's start,
# without the head's serial share, without both, and serial reads. Per variant: runs meeting
# validate's targets, then X, Y and Z of the verdict line. And §0.3's table, run by run.
# Usage: ablation.sh LEVERSIM TOP
set -euo pipefail
leversim=$1; top=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "ablation: $*" >&2; exit 1; }
got=""
for v in "" "--io-share measured" "--start off" "--head-serial off" "--start off --head-serial off" "--mode serial"; do
  met=0; pts=()
  for r in an ao ap aq ar as at au av; do
    d=$top/results/testbed/run-$r
    cp "$d/testbed.db" "$tmp/$r.db"
    # shellcheck disable=SC2086 # the variant's options, one word each
    (cd "$top" && "$leversim" testbed validate --db "$tmp/$r.db" --profile "$d/testbed-vm.yaml" \
      --fio-mmap "$d/fio-mmap.json" $v --points "$tmp/$r.tsv") > "$tmp/$r.txt" || fail "run $r ($v): exit $?"
    grep -q 'spec <= 10 %): met$' "$tmp/$r.txt" && met=$((met + 1))
    pts+=("$tmp/$r.tsv")
  done
  set +e # exit 2: a target missed, as some variants do (nine runs are fewer than six configurations too)
  out=$("$leversim" testbed verdict --protocol "$top/runner/testbed/protocol.yaml" --points "${pts[@]}")
  st=$?
  set -e
  [ $st -eq 0 ] || [ $st -eq 2 ] || fail "verdict ($v): exit $st"
  line=$(echo "$out" | tail -n 1 |
    sed -E 's/.*error ([0-9.]+) % \(trivial baseline ([0-9.]+) %\); spec per-token error ([-+0-9.]+) %.*/\1 \2 \3/')
  got="$got${v:-default}: $met $line;"
done
# §0.3's table: per run, X, Y and the speculative error of the model and of the baseline (the
# default validation; the last variant's files are the serial ones, so redo the default)
per=""
for r in an ao ap aq ar as at au av; do
  d=$top/results/testbed/run-$r
  (cd "$top" && "$leversim" testbed validate --db "$tmp/$r.db" --profile "$d/testbed-vm.yaml" \
    --fio-mmap "$d/fio-mmap.json" --points "$tmp/$r.tsv") > /dev/null || fail "run $r: exit $?"
  set +e
  out=$("$leversim" testbed verdict --protocol "$top/runner/testbed/protocol.yaml" --points "$tmp/$r.tsv")
  set -e
  xy=$(echo "$out" | tail -n 1 | sed -E 's/.*error ([0-9.]+) % \(trivial baseline ([0-9.]+) %\).*/\1 \2/')
  sp=$(awk '$1 == "spec" {printf "%+.1f %+.1f", 100 * ($5 / $4 - 1), 100 * ($6 / $4 - 1)}' "$tmp/$r.tsv")
  per="$per$r $xy $sp;"
done
want_per="an 7.5 9.2 +4.6 -9.8;ao 5.7 14.6 -5.6 -16.4;ap 4.0 14.7 +0.1 -14.5;aq 2.1 8.9 -3.6 -16.0;ar 3.3 15.5 -2.1 -19.5;as 1.7 14.0 -0.6 -17.0;at 3.9 9.1 -3.5 -15.2;au 2.2 12.5 -2.4 -17.6;av 3.0 10.7 -2.9 -16.4;"
[ "$per" = "$want_per" ] || { echo "got:  $per" >&2; echo "want: $want_per" >&2; fail "the runs differ from §0.3's table"; }
want="default: 9 3.4 10.3 -1.8;--io-share measured: 9 4.4 10.3 +1.2;--start off: 3 11.5 10.3 -9.9;--head-serial off: 7 5.4 10.3 -7.6;--start off --head-serial off: 0 14.2 10.3 -15.8;--mode serial: 0 11.0 10.3 +36.2;"
[ "$got" = "$want" ] || { echo "got:  $got" >&2; echo "want: $want" >&2; fail "the ablations differ from §0.4"; }
echo "ablation: §0.3's nine runs and §0.4's six variants as docs/VALIDATION.md says"
