#!/usr/bin/env bash
# scripts/figures_check.sh: do the committed figures (results/figures) still match the replay?
#
# Draws the figures and tables from a full replay's database and the regime study's the way
# `make reproduce` and `make regime` do (`leversim figures --db FULL`, then `leversim figures
# --db REGIME regime`, into one folder) and compares what it drew with the committed folder:
#   - the Markdown tables (claims.md, summary.md, table1.md) and the data every figure is drawn
#     from (NAME.csv, the view or curve it plots, and regime_map.csv): byte for byte;
#   - the PNGs: by those data. PNG bytes depend on the gnuplot build that drew them (its
#     terminal: pngcairo or the libgd png fallback of plots/common.gp; cairo, pango and the
#     fonts 'Sans' resolves to), so an image that differs while its data do not is a note;
#     --strict-png makes it a failure too (for a machine known to have the committing
#     machine's gnuplot: it then also catches an edited plots/NAME.gp);
#   - files drawn but not committed (a new figure), and committed but not drawn (a figure the
#     replay no longer makes). Not checked: uncertainty.png, drawn by `leversim uncertainty`,
#     not by the replay; regime.csv, the regime study's runs (half a megabyte), which no figure
#     reads: regime.png is drawn from regime_map.csv, made from it and checked.
# Every differing file is named with what differs, then the command that redraws them.
# Exit: 0 the figures match, 2 some differ, 64 usage, 66 a database or the folder is missing,
# or the exit status of `leversim figures` when it fails (its output is shown).
#
# usage: scripts/figures_check.sh [--strict-png] [--bin LEVERSIM] [--full DB] [--regime DB]
#                                 [--figures DIR]
# defaults: build/leversim, results/leversim.db (make reproduce), results/regime.db (make
# regime), results/figures.
set -u
BIN=build/leversim FULL=results/leversim.db REGIME=results/regime.db FIGS=results/figures STRICT=0
usage() { echo "usage: $0 [--strict-png] [--bin LEVERSIM] [--full DB] [--regime DB] [--figures DIR]" >&2; exit 64; }
while [ $# -gt 0 ]; do
  case $1 in
  --strict-png) STRICT=1; shift ;;
  --bin | --full | --regime | --figures)
    [ $# -ge 2 ] && [ -n "$2" ] || usage
    case $1 in --bin) BIN=$2 ;; --full) FULL=$2 ;; --regime) REGIME=$2 ;; --figures) FIGS=$2 ;; esac
    shift 2 ;;
  *) echo "figures-check: unknown argument '$1'" >&2; usage ;;
  esac
done
missing() { echo "figures-check: $1 $2: no such $3 ($4)" >&2; exit 66; }
[ -x "$BIN" ] || missing "the binary" "$BIN" "program" "build it: make build, or pass --bin"
[ -f "$FULL" ] || missing "the full replay's database" "$FULL" "file" "make reproduce writes it, or pass --full"
[ -f "$REGIME" ] || missing "the regime study's database" "$REGIME" "file" "make regime writes it, or pass --regime"
[ -d "$FIGS" ] || missing "the committed figures folder" "$FIGS" "folder" "pass --figures"

W=$(mktemp -d "${TMPDIR:-/tmp}/leversim-figcheck-XXXXXX") || exit 74
trap 'rm -rf "$W"' EXIT INT TERM
D=$W/drawn
# the replay's way: every figure from the full replay, then the regime map from its study
draw() {
  "$BIN" figures "$@" >> "$W/log" 2>&1 && return 0
  rc=$?
  cat "$W/log" >&2
  echo "figures-check: leversim figures $* failed (exit $rc)" >&2
  exit "$rc"
}
draw --db "$FULL" --out "$D"
draw --db "$REGIME" --out "$D" regime

# what a figure NAME.png is drawn from: its data file, the verdicts on its face, the map
data_of() {
  case $1 in
  regime) echo "regime_map.csv claims.md" ;;
  *) echo "$1.csv claims.md" ;;
  esac
}
kind_ok() { case $1 in *.md | *.csv | *.png) return 0 ;; esac; return 1; }
bad=0 notes=0 checked=0
say() { printf '  %s\n' "$*"; }
same() { cmp -s "$D/$1" "$FIGS/$1"; }
for f in $( (cd "$FIGS" && ls -A) ; (cd "$D" && ls -A)); do echo "$f"; done | sort -u > "$W/names"
while IFS= read -r f; do
  kind_ok "$f" || continue
  case $f in uncertainty.png | regime.csv) continue ;; esac
  checked=$((checked + 1))
  if [ ! -e "$D/$f" ]; then
    case $f in
    *.png) if grep -q 'gnuplot not found' "$W/log" 2>/dev/null || ! command -v gnuplot > /dev/null 2>&1; then
             notes=$((notes + 1)); say "$f: not drawn here (gnuplot missing): judged by its data only"; continue
           fi ;;
    esac
    bad=$((bad + 1)); say "$f: committed, but the replay no longer draws it (remove it, or draw it again)"
  elif [ ! -e "$FIGS/$f" ]; then
    bad=$((bad + 1)); say "$f: drawn by the replay but not committed"
  elif ! same "$f"; then
    case $f in
    *.png)
      changed=
      for d in $(data_of "${f%.png}"); do
        [ -e "$D/$d" ] && ! same "$d" || continue
        [ -e "$FIGS/$d" ] && d2=$d || d2="$d not committed"
        changed="${changed:+$changed, }$d2"
      done
      if [ -n "$changed" ]; then
        bad=$((bad + 1)); say "$f: differs: its data differ ($changed)"
      elif [ $STRICT = 1 ]; then
        bad=$((bad + 1)); say "$f: differs in its pixels only, its data are the same (--strict-png: another gnuplot build, or plots/${f%.png}.gp changed)"
      else
        notes=$((notes + 1)); say "$f: note: pixels differ, data the same (another gnuplot build, or plots/${f%.png}.gp changed): not a failure"
      fi ;;
    *)
      bad=$((bad + 1))
      first=$(cmp "$D/$f" "$FIGS/$f" 2>/dev/null | sed -n 's/.* line \([0-9]*\)$/\1/p')
      say "$f: differs from the replay (first at line ${first:-?}; < committed, > replay):"
      diff "$FIGS/$f" "$D/$f" | grep '^[<>]' | head -6 | cut -c1-200 | sed 's/^/      /' ;;
    esac
  fi
done < "$W/names"

if [ $bad -gt 0 ]; then
  echo "figures-check: $bad file(s) of $FIGS differ from the replay in $FULL and $REGIME (above)."
  echo "redraw them from these databases with:"
  echo "  $BIN figures --db $FULL --out $FIGS && $BIN figures --db $REGIME --out $FIGS regime"
  echo "or replay and draw again: make reproduce && make regime"
  exit 2
fi
echo "figures-check: $FIGS matches the replay in $FULL and $REGIME ($checked files, $notes note(s))"
