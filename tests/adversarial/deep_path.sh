#!/bin/sh
# tests/adversarial/deep_path.sh [LEVERSIM]: leversim at deep paths (issue 35: a clone in a
# folder deeper than 63 characters failed "use a shorter path"). Every input and output
# lives in a folder whose path is over 200 characters (the depth of a clone the issue names):
# a run of a profile given by path, a sweep, export, merge, figures, plot, trace record and
# info, profiles validate, calibrate. Then the commands that take no database at a path of
# over 1400 characters (file names are never cut: paths up to PATH_MAX work). A database path
# is bounded by SQLite (512 bytes): past it the refusal says so.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-$ROOT/build/leversim}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
W=$(mktemp -d "${TMPDIR:-/tmp}/leversim-deep-XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
export LEVERSIM_DATA=$ROOT/tests/runner/data
seg=$(printf '%0100d' 0 | tr 0 d)
D=$W/$seg/$seg          # over 200 characters
mkdir -p "$D" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# ok WHAT COMMAND...: exit 0 expected
ok() {
  what=$1
  shift
  "$BIN" "$@" > "$W/out.txt" 2> "$W/err.txt" || fail "$what: exit $? ($(head -c 300 "$W/err.txt"))"
}
cp "$LEVERSIM_DATA/devices/profiles/tiny.yaml" "$D/phone.yaml"
printf 'name: deep\nseed: 1\nparts:\n  - name: p\n    devices: [tiny]\n    models: [tiny-target]\n    datasets: [iid]\n    systems: [lever, specinfer]\n    settings: {workload.prompts: 2, workload.max_tokens: 16}\n' > "$D/exp.yaml"
RUN="run --model tiny-target --dataset iid --system lever --prompts 1 --tokens 4"
ok "run --device PATH --db" $RUN --device "$D/phone.yaml" --db "$D/r.db"
ok "sweep" sweep "$D/exp.yaml" --db "$D/s.db"
ok "export --out" export --db "$D/s.db" --out "$D/e.csv"
[ "$(grep -c ',tiny,tiny-target,iid,' "$D/e.csv" 2>/dev/null)" = 2 ] || fail "export: not the sweep's two runs"
ok "merge" merge "$D/m.db" "$D/s.db" "$D/r.db"
[ "$(sqlite3 "$D/m.db" 'SELECT count(*) FROM runs' 2>/dev/null)" = 3 ] || fail "merge: not three runs"
ok "figures" figures table1 summary --db "$D/s.db" --out "$D/figs"
ok "plot" plot --db "$D/s.db" --x system --y throughput_tps --format csv
ok "trace record" trace record --dataset iid --model tiny-target --prompts 1 --out "$D/t.trace"
ok "trace info" trace info "$D/t.trace"
ok "profiles validate" profiles validate "$D/phone.yaml"
# Deeper than any fixed buffer of 1024 bytes: commands without a database.
E=$D
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do E=$E/$seg$i; done
mkdir -p "$E" || exit 1
cp "$D/phone.yaml" "$D/exp.yaml" "$E/"
[ ${#E} -gt 1400 ] || fail "setup: the deep path is only ${#E} characters"
ok "run --device at ${#E} characters" $RUN --device "$E/phone.yaml"
ok "sweep --check at ${#E} characters" sweep "$E/exp.yaml" --check
ok "trace record at ${#E} characters" trace record --dataset iid --model tiny-target --prompts 1 --out "$E/t.trace"
ok "trace info at ${#E} characters" trace info "$E/t.trace"
ok "profiles validate at ${#E} characters" profiles validate "$E/phone.yaml"
# plot's files beside the image (.dat) were named in 1100-byte buffers: cut, the data went to
# another file (a name made of the cut path), outside the folder asked for
if command -v gnuplot > /dev/null; then
  LEVERSIM_DATA=$ROOT ok "plot --out at ${#E} characters" plot --db "$D/s.db" --x system --y throughput_tps --out "$E/T.png"
  [ -s "$E/T.png" ] && [ -s "$E/T.png.dat" ] || fail "plot at ${#E} characters: no T.png and T.png.dat beside it"
  [ -z "$(find "$W" -type f -name 'ddd*')" ] || fail "plot at ${#E} characters wrote $(find "$W" -type f -name 'ddd*' | head -1)"
fi
"$BIN" profiles validate "$E/none.yaml" 2> "$W/err.txt"
grep -qF "$E/none.yaml" "$W/err.txt" || fail "a missing file at ${#E} characters is not named whole"
"$BIN" sweep "$E/exp.yaml" --db "$E/s.db" > /dev/null 2> "$W/err.txt"
code=$?
[ $code = 74 ] && grep -q "SQLite" "$W/err.txt" || fail "a database path of ${#E}+ characters: exit $code ($(head -c 200 "$W/err.txt" | tail -c 120))"
[ $fails = 0 ] && echo "deep_path: all checks passed (paths of ${#D} and ${#E} characters)" && exit 0
exit 1
