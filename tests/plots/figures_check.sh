#!/usr/bin/env bash
# tests/plots/figures_check.sh LEVERSIM ROOT: scripts/figures_check.sh (make figures-check, run
# by CI after its full and regime replays) on a small replay, not the full one: a trial size
# of the quick replay (1 prompt of 4 tokens per run) stands for both databases. Its figures,
# drawn as the check draws them, match; a copy with one value of a figure's data edited (and
# its image), a table edited, a file missing and one too many does not, and the check names
# each of them and the command that redraws them; a PNG whose pixels alone differ is a note,
# a failure with --strict-png.
set -u
BIN=$1 ROOT=$2
CHECK=$ROOT/scripts/figures_check.sh
W=$(mktemp -d "${TMPDIR:-/tmp}/leversim-figcheck-test-XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
fail=0
ok() { printf 'ok   %s\n' "$1"; }
no() { printf 'FAIL %s\n' "$1"; sed 's/^/     | /' "$W/out" | head -30; fail=1; }
# expect STATUS FRAGMENT... -- ARGS: the check's exit status and fragments of its output
expect() {
  local want=$1 what=$2
  shift 2
  local frags=()
  while [ "$1" != -- ]; do frags+=("$1"); shift; done
  shift
  bash "$CHECK" --bin "$BIN" --full "$W/s.db" --regime "$W/s.db" "$@" > "$W/out" 2>&1
  local rc=$?
  [ "$rc" = "$want" ] || { no "$what: exit $rc, expected $want"; return; }
  for f in "${frags[@]}"; do grep -qF -- "$f" "$W/out" || { no "$what: no '$f' in the output"; return; }; done
  ok "$what"
}
"$BIN" reproduce --quick --prompts 1 --tokens 4 --no-figures --db "$W/s.db" > "$W/replay.log" 2>&1 ||
  { cat "$W/replay.log"; echo "FAIL the small replay"; exit 1; }
# the committed folder, drawn the way the check documents
"$BIN" figures --db "$W/s.db" --out "$W/figs" > /dev/null 2>&1 &&
  "$BIN" figures --db "$W/s.db" --out "$W/figs" regime > /dev/null 2>&1 || { echo "FAIL drawing"; exit 1; }
F=$W/figs
have_png=0
[ -e "$F/fig10.png" ] && have_png=1
expect 0 "the figures as drawn match" "matches the replay" -- --figures "$F"

# one copy with every kind of drift at once (each is named): one value of fig10's data (a
# number on its second line) edited, with its image; a table edited; a file missing; one
# file too many
cp -r "$F" "$W/a"
awk -F, -v OFS=, 'NR == 2 { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+$/) { $i = $i + 1; break } } { print }' \
  "$F/fig10.csv" > "$W/a/fig10.csv"
cmp -s "$F/fig10.csv" "$W/a/fig10.csv" && { echo "FAIL the edit changed nothing"; exit 1; }
[ $have_png = 1 ] && printf 'x' >> "$W/a/fig10.png" # drawn from the edited data, its image differs too
sed -i '3s/$/ edited/' "$W/a/summary.md"
rm "$W/a/fig12.csv" && : > "$W/a/fig99.csv"
frags=("fig10.csv: differs from the replay (first at line 2" "summary.md: differs from the replay (first at line 3"
       "fig12.csv: drawn by the replay but not committed" "fig99.csv: committed, but the replay no longer draws it"
       "figures-check: 4 file(s) of $W/a differ" "redraw them from these databases with:"
       "figures --db $W/s.db --out $W/a && " "make reproduce && make regime")
[ $have_png = 1 ] && frags[4]="figures-check: 5 file(s) of $W/a differ" &&
  frags+=("fig10.png: differs: its data differ (fig10.csv)")
expect 2 "edited data, an edited table, a file missing, one too many" "${frags[@]}" -- --figures "$W/a"
grep -q "fig05\|fig11\|table1" "$W/out" && no "files that match are named too"

if [ $have_png = 1 ]; then
  cp -r "$F" "$W/d"
  printf 'x' >> "$W/d/fig05.png"
  expect 0 "a PNG whose pixels alone differ: a note" "fig05.png: note: pixels differ, data the same" -- --figures "$W/d"
  expect 2 "the same with --strict-png: a failure" "fig05.png: differs in its pixels only" -- --figures "$W/d" --strict-png
else
  echo "skip the PNG cases (gnuplot missing)"
fi

# usage and missing inputs
bash "$CHECK" --bin "$BIN" --full "$W/none.db" --regime "$W/s.db" --figures "$F" > "$W/out" 2>&1
rc=$?
[ $rc = 66 ] && grep -qF "none.db: no such file (make reproduce writes it" "$W/out" && ok "a missing database: 66" || no "a missing database: exit $rc"
bash "$CHECK" --bogus > "$W/out" 2>&1
rc=$?
[ $rc = 64 ] && ok "an unknown argument: 64" || no "an unknown argument: exit $rc"
exit $fail
