#!/usr/bin/env bash
# ctest testbed.replay: scripts/testbed/replay.sh on protocol-1's two published runs gives the
# development numbers of docs/VALIDATION.md §0.6 (every configuration calibrated and validated
# again from its stored measurements with this build): the idle run of 05:42 48 points over 6
# configurations, median 7.6 % (baseline 9.1 %), spec -3.2 %, every configuration predicted (its
# stored verdict: 40 points, one configuration refused); the loaded run of 00:48 32 points over
# 4, 16.7 % (21.7 %), +0.9 %. Both exit 2 (targets missed). The three 1-thread configurations of
# 05:42 give their stored validate output byte for byte. A folder that is no earlier replay is
# refused (64), and left as it was. protocol-2's two runs and protocol-3's one replay to their stored verdict lines
# and validate outputs byte for byte.
# Usage: replay.sh LEVERSIM TOP
set -euo pipefail
leversim=$1; top=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "replay: $*" >&2; exit 1; }
p1=$top/results/testbed/protocol-1
check() { # run, its line
  local st=0 got
  got=$(LEVERSIM=$leversim bash "$top/scripts/testbed/replay.sh" "$p1/$1" "$tmp/$1" 2> /dev/null) || st=$?
  [ "$st" -eq 2 ] || fail "$1: exit $st, want 2"
  [ "$got" = "$2" ] || fail "$1: '$got', want '$2'"
}
check run-20261128T0542Z "held-out: 48 points over 6 configurations; median absolute error 7.6 % (trivial baseline 9.1 %); spec per-token error -3.2 %; targets NOT met: median 7.6 % > 0.5 x baseline 9.1 %"
check run-20261128T0048Z "held-out: 32 points over 4 configurations; median absolute error 16.7 % (trivial baseline 21.7 %); spec per-token error +0.9 %; targets NOT met: 4 configurations < 6, median 16.7 % > 10 %, median 16.7 % > 0.5 x baseline 21.7 %"
for c in w1024-l8-t1-d2 w2048-l12-t1-d4 w4096-l4-t1-d2; do
  cmp -s "$tmp/run-20261128T0542Z/build/testbed/protocol/$c/validate.txt" "$p1/run-20261128T0542Z/$c/validate.txt" ||
    fail "$c: the 1-thread validation differs from the stored one"
done
# protocol-2's and protocol-3's runs (their databases name build/testbed/<id>/NAME/): a replay with
# this build gives each run's own verdict line and every configuration's validate output byte for byte.
for pr in protocol-2:run-20261128T0731Z:7 protocol-2:run-20261128T0853Z:7 protocol-3:run-20261128T0957Z:6; do
  p=${pr%%:*}; r=${pr#*:}; k=${r#*:}; r=${r%:*}
  pd=$top/results/testbed/$p
  st=0
  got=$(LEVERSIM=$leversim bash "$top/scripts/testbed/replay.sh" "$pd/$r" "$tmp/$p-$r" "$top/runner/testbed/$p.yaml" 2> /dev/null) || st=$?
  [ "$st" -eq 2 ] || fail "$p $r: exit $st, want 2"
  [ "$got" = "$(tail -n 1 "$pd/$r/verdict.txt")" ] || fail "$p $r: '$got' is not its stored verdict"
  n=0
  for d in "$pd/$r"/w*/; do
    c=$(basename "$d")
    cmp -s "$tmp/$p-$r/build/testbed/$p/$c/validate.txt" "$d/validate.txt" ||
      fail "$p $r $c: the validation differs from the stored one"
    n=$((n + 1))
  done
  [ "$n" -eq "$k" ] || fail "$p $r: $n configurations, want $k"
done
mkdir "$tmp/mine" && echo keep > "$tmp/mine/notes.txt"
st=0; LEVERSIM=$leversim bash "$top/scripts/testbed/replay.sh" "$p1/run-20261128T0542Z" "$tmp/mine" 2> /dev/null || st=$?
[ "$st" -eq 64 ] || fail "a folder that is no replay: exit $st, want 64"
[ "$(cat "$tmp/mine/notes.txt")" = keep ] || fail "a folder that is no replay was touched"
echo "replay: protocol-1's two runs as docs/VALIDATION.md §0.6 says; protocol-2's two and protocol-3's one as published"
