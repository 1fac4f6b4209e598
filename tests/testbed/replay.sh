#!/usr/bin/env bash
# ctest testbed.replay: what the published protocol runs say under this build, from their stored
# measurements alone (no llama.cpp run; docs/VALIDATION.md §0.6, §0.8).
# 1. The current model's in-sample reading of every stored configuration run:
#    scripts/testbed/insample.sh prints results/testbed/insample.txt byte for byte (each run
#    replayed with and without the read path's work beside a compute on every core).
# 2. The code each run was registered with stays reproducible where this build's model is that
#    code's: without the term (TB_CONTENTION=off, `testbed validate --contention off`) protocol-2's
#    and protocol-3's runs replay to their stored verdict lines, and every configuration's
#    validation to its stored validate.txt byte for byte but the line that names the term;
#    protocol-1's two runs to docs/VALIDATION.md §0.6's lines (their stored verdicts predate
#    §0.6's fix of the 2-thread calibration). With the term, a 1-thread configuration's points are
#    those without it (the term needs every core busy).
# 3. A folder that is no earlier replay is refused (64) and left as it was.
# Usage: replay.sh LEVERSIM TOP
set -euo pipefail
leversim=$1; top=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "replay: $*" >&2; exit 1; }
export LEVERSIM=$leversim
bash "$top/scripts/testbed/insample.sh" "$tmp/ins" > "$tmp/insample.txt" || fail "insample.sh: exit $?"
cmp -s "$tmp/insample.txt" "$top/results/testbed/insample.txt" ||
  fail "the in-sample reading differs from results/testbed/insample.txt: $(diff "$top/results/testbed/insample.txt" "$tmp/insample.txt" | head -5)"
verdict() { sed -n "s/^$1 $2 $3: //p" "$tmp/insample.txt"; }
p1="held-out: 48 points over 6 configurations; median absolute error 7.6 % (trivial baseline 9.1 %); spec per-token error -3.2 %; targets NOT met: median 7.6 % > 0.5 x baseline 9.1 %"
[ "$(verdict protocol-1 run-20261128T0542Z without)" = "$p1" ] || fail "protocol-1 05:42 without the term is not §0.6's line"
p1="held-out: 32 points over 4 configurations; median absolute error 16.7 % (trivial baseline 21.7 %); spec per-token error +0.9 %; targets NOT met: 4 configurations < 6, median 16.7 % > 10 %, median 16.7 % > 0.5 x baseline 21.7 %"
[ "$(verdict protocol-1 run-20261128T0048Z without)" = "$p1" ] || fail "protocol-1 00:48 without the term is not §0.6's line"
n=0
for pr in protocol-2:run-20261128T0731Z protocol-2:run-20261128T0853Z protocol-3:run-20261128T0957Z protocol-3:run-20261128T1124Z; do
  p=${pr%%:*}; r=${pr#*:}; pd=$top/results/testbed/$p/$r
  [ "$(verdict "$p" "$r" without)" = "$(tail -n 1 "$pd/verdict.txt")" ] || fail "$p $r: without the term, not its stored verdict"
  for d in "$pd"/w*/; do
    c=$(basename "$d")
    grep -v '^the read path beside the compute' "$tmp/ins/$p-$r-off/build/testbed/$p/$c/validate.txt" | cmp -s - "$d/validate.txt" ||
      fail "$p $r $c: without the term, the validation differs from the stored one"
    n=$((n + 1))
  done
done
[ "$n" -eq 26 ] || fail "$n stored configurations compared, want 26"
for f in "$tmp"/ins/*/build/testbed/*/w*-t1-*/points.tsv; do
  case "$f" in */*-off/*) continue ;; esac
  off=$(echo "$f" | sed 's|\(/ins/[^/]*\)/build|\1-off/build|')
  cmp -s "$f" "$off" || fail "$f: a 1-thread configuration moved with the term"
done
mkdir "$tmp/mine" && echo keep > "$tmp/mine/notes.txt"
st=0; bash "$top/scripts/testbed/replay.sh" "$top/results/testbed/protocol-1/run-20261128T0542Z" "$tmp/mine" 2> /dev/null || st=$?
[ "$st" -eq 64 ] || fail "a folder that is no replay: exit $st, want 64"
[ "$(cat "$tmp/mine/notes.txt")" = keep ] || fail "a folder that is no replay was touched"
echo "replay: results/testbed/insample.txt reproduced; without the term, the 26 stored configurations of protocol-2 and -3 and §0.6's protocol-1 lines"
