#!/usr/bin/env bash
# ctest testbed.verdict: `leversim testbed verdict` on synthetic held-out points (no timing): the
# protocol's one-line result, exit 0 when every target is met and 2 naming each missed target,
# near-copies of calibration passes left out, a bad file named with its line (exit 65).
# Usage: verdict.sh LEVERSIM TOP
set -euo pipefail
leversim=$1; top=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "verdict: $*" >&2; exit 1; }
proto=$top/runner/testbed/protocol.yaml
# points FILE SPEC_PRED [ERR]: five cold points with the model ERR (default 0.04) off, the
# baseline 0.20 off, one near-copy 50 % off (must not count), and a spec point 0.100 s measured.
points() {
  local e=${3:-0.04}
  { printf '# leversim testbed points: synthetic\n# kind\tN\tctx\tmeasured_s\tpredicted_s\tbaseline_s\tnear\n'
    for n in 1 2 4 64 128; do
      awk -v n=$n -v e="$e" 'BEGIN{m = 0.2 + n / 100; printf "cold\t%d\t0\t%.6f\t%.6f\t%.6f\t0\n", n, m, m * (1 + e), m * 1.2}'
    done
    printf 'cold\t16\t0\t0.4\t0.6\t0.6\t1\n'
    printf 'spec\t24\t4\t0.100\t%s\t0.080\t0\n' "$2"; } > "$1"
}
for i in 1 2 3 4 5 6; do points "$tmp/c$i.tsv" 0.104; done
files=("$tmp"/c?.tsv)
out=$("$leversim" testbed verdict --protocol "$proto" --points "${files[@]}") || fail "met case: exit $?"
want="held-out: 36 points over 6 configurations; median absolute error 4.0 % (trivial baseline 20.0 %); spec per-token error +4.0 %; targets met"
[ "$(echo "$out" | tail -1)" = "$want" ] || fail "met case: got '$(echo "$out" | tail -1)'"
echo "$out" | grep -q "c1.tsv: 6 held-out points (1 near-copies left out)" || fail "the near-copy is not left out"
# Each target missed alone: exit 2 and the line names it.
check_miss() { # WHAT PATTERN FILES...
  local what=$1 pat=$2; shift 2
  set +e; out=$("$leversim" testbed verdict --protocol "$proto" --points "$@"); st=$?; set -e
  [ $st -eq 2 ] || fail "$what: exit $st, want 2"
  echo "$out" | tail -1 | grep -q "targets NOT met: .*$pat" || fail "$what: '$(echo "$out" | tail -1)' names no '$pat'"
}
check_miss "five configurations" "5 configurations < 6" "${files[@]:0:5}"
for i in 1 2 3 4 5 6; do points "$tmp/m$i.tsv" 0.104 0.12; done
check_miss "median" "median 12.0 % > 10 %" "$tmp"/m?.tsv
for i in 1 2 3 4 5 6; do points "$tmp/s$i.tsv" 0.115; done
check_miss "spec" "spec +15.0 % beyond 10 %" "$tmp"/s?.tsv
# The baseline as good as the model: X <= Y / 2 fails.
for i in 1 2 3 4 5 6; do points "$tmp/b$i.tsv" 0.104 0.04
  awk -F'\t' 'BEGIN{OFS="\t"} /^cold/ && $7 == 0 {$6 = $4 * 1.05} {print}' "$tmp/b$i.tsv" > "$tmp/b$i.x" && mv "$tmp/b$i.x" "$tmp/b$i.tsv"; done
check_miss "baseline" "median 4.0 % > 0.5 x baseline 5.0 %" "$tmp"/b?.tsv
# A configuration whose calibration was refused: a points file without a point, named.
printf '# leversim testbed points: c6: calibration refused\n' > "$tmp/refused.tsv"
check_miss "a refused configuration" "1 configurations without a prediction" "${files[@]:0:5}" "$tmp/refused.tsv"
# A malformed line: exit 65, the file and line named.
printf 'cold\t1\t0\tfast\t0.2\t0.2\t0\n' > "$tmp/bad.tsv"
set +e; err=$("$leversim" testbed verdict --protocol "$proto" --points "$tmp/bad.tsv" 2>&1 >/dev/null); st=$?; set -e
[ $st -eq 65 ] || fail "bad file: exit $st, want 65"
echo "$err" | grep -q "bad.tsv:1:" || fail "bad file: '$err' names no file:line"
# The protocol lists its configurations for the run script: K >= 6 of them, 1 and 2 threads,
# widths 1024 to 4096, step contexts 512 and 2048, two draft sizes.
list=$("$leversim" testbed protocol --file "$proto")
[ "$(echo "$list" | wc -l)" -ge 6 ] || fail "fewer than 6 configurations"
for col_vals in "4:1 2" "3:1024 2048 4096" "6:512 2048" "5:2 4"; do
  col=${col_vals%%:*}
  got=$(echo "$list" | awk -v c="$col" '{print $c}' | sort -un | tr '\n' ' ')
  [ "$got" = "${col_vals#*:} " ] || fail "protocol column $col: '$got', want '${col_vals#*:} '"
done
# Each configuration's own speculative error, information only (the target is on the sum): five
# at +4 % and one at -15 % meet Z (+0.8 %) and the line names the one outside 10 %, by its sign.
for i in 1 2 3 4 5; do points "$tmp/n$i.tsv" 0.104; done
points "$tmp/n6.tsv" 0.085
out=$("$leversim" testbed verdict --protocol "$proto" --points "$tmp"/n?.tsv) || fail "per-configuration spec: exit $?"
want="spec per configuration (information; the target is on the sum): |error| <= 10 % in 5 of 6; the largest -15.0 % ($tmp/n6.tsv)"
echo "$out" | grep -qxF "$want" || fail "per-configuration spec: got '$(echo "$out" | grep '^spec per' || true)'"
echo "$out" | tail -1 | grep -q "spec per-token error +0.8 %; targets met" || fail "per-configuration spec: '$(echo "$out" | tail -1)'"
# new_protocol FILE SEEN_LIST NAME: a later protocol is K >= 6, 1 and 2 threads, widths 1024 to
# 4096, two draft sizes, a step context of at least 2048, and nothing seen before: no shape
# (layers x width), step context or draft size of SEEN_LIST's configurations or of the
# development runs (16 layers at width 2048, context 64, a 2-layer draft) (docs/VALIDATION.md §0.1).
new_protocol() {
  local file=$1 seen=$2 id=$3 l
  l=$("$leversim" testbed protocol --file "$file")
  [ "$(echo "$l" | wc -l)" -ge 6 ] || fail "$id: fewer than 6 configurations"
  [ "$(echo "$l" | awk '{print $4}' | sort -un | tr '\n' ' ')" = "1 2 " ] || fail "$id: not 1 and 2 threads"
  [ "$(echo "$l" | awk '{print $5}' | sort -un | wc -l)" -ge 2 ] || fail "$id: one draft size"
  [ "$(echo "$l" | awk '{print $3}' | sort -n | sed -n '1p;$p' | tr '\n' ' ')" = "1024 4096 " ] ||
    fail "$id: widths do not span 1024 to 4096"
  [ "$(echo "$l" | awk '$6 >= 2048' | wc -l)" -ge 1 ] || fail "$id: no step context of 2048 or more"
  local seen_shapes seen_ctx seen_draft
  seen_shapes=$(echo "$seen" | awk '{print $2 "x" $3}'; echo 16x2048)
  seen_ctx=$(echo "$seen" | awk '{print $6}'; echo 64)
  seen_draft=$(echo "$seen" | awk '{print $5}'; echo 2)
  while read -r name layers width _ dl step _; do
    ! echo "$seen_shapes" | grep -qx "${layers}x$width" || fail "$id: $name: a shape seen before"
    ! echo "$seen_ctx" | grep -qx "$step" || fail "$id: $name: a step context seen before"
    ! echo "$seen_draft" | grep -qx "$dl" || fail "$id: $name: a draft size seen before"
  done <<< "$l"
}
list2=$("$leversim" testbed protocol --file "$top/runner/testbed/protocol-2.yaml")
new_protocol "$top/runner/testbed/protocol-2.yaml" "$list" protocol-2
new_protocol "$top/runner/testbed/protocol-3.yaml" "$list
$list2" protocol-3
# protocol-3's repetitions are item 1's choice (docs/VALIDATION.md §0.7): 4, not protocol-2's 2.
[ "$("$leversim" testbed protocol --file "$top/runner/testbed/protocol-3.yaml" | awk '{print $8}' | sort -u)" = 4 ] ||
  fail "protocol-3: not 4 repetitions"
# protocol-4 (docs/VALIDATION.md §0.8): nothing of protocol-1, -2 or -3 seen, not even a layer
# count, and their four repetitions.
list3=$("$leversim" testbed protocol --file "$top/runner/testbed/protocol-3.yaml")
new_protocol "$top/runner/testbed/protocol-4.yaml" "$list
$list2
$list3" protocol-4
l4=$("$leversim" testbed protocol --file "$top/runner/testbed/protocol-4.yaml")
seen_layers=$(printf '%s\n%s\n%s\n16\n' "$list" "$list2" "$list3" | awk '{print $2}')
for n in $(echo "$l4" | awk '{print $2}'); do
  ! echo "$seen_layers" | grep -qx "$n" || fail "protocol-4: a layer count seen before, $n"
done
[ "$(echo "$l4" | awk '{print $8}' | sort -u)" = 4 ] || fail "protocol-4: not 4 repetitions"
# The check can fail: protocol-2 judged against itself has seen every shape.
( new_protocol "$top/runner/testbed/protocol-2.yaml" "$list2" self ) 2> /dev/null && fail "selftest: protocol-2 not seen by itself"
echo "verdict: ok"
