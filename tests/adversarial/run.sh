#!/bin/sh
# tests/adversarial/run.sh [--markdown | --list] [LEVERSIM]: the adversarial table (cases.sh) against the
# leversim binary (default build/leversim). Each case runs in a fresh folder: a setup (files,
# FIFOs, device nodes, foreign databases), one command under a time limit, then checks:
#   - the exit status is the one the case expects (README "Exit codes");
#   - stderr (or stdout when stderr is empty) holds the expected fragment (the location and the
#     bad input);
#   - no death by a signal other than SIGINT's 130 (SIGXFSZ under ulimit -f, a crash), and no
#     run past the limit (a hang, or work quadratic in the input): 20 s times
#     LEVERSIM_TEST_TIME_FACTOR (default 1; CI or a loaded machine raises it). Every case
#     takes well under a second on an idle machine: the limit tells a hang from a slow
#     machine, it does not measure speed;
#   - the post-check holds (the foreign file is byte for byte as it was, the FIFO is still a
#     FIFO, no temporary or journal file was left).
# A case whose setup cannot be made here (mknod without root) is skipped and said so.
# Exit 0 when every case that ran passed. --markdown prints the table for docs/BAD_INPUTS.md
# instead (tests/fuzz/bad_inputs.sh appends it), one row per case, with what leversim said.
set -u
F=${LEVERSIM_TEST_TIME_FACTOR:-1}
case $F in '' | *[!0-9]* | 0) echo "LEVERSIM_TEST_TIME_FACTOR must be a whole number >= 1, not '$F'"; exit 2 ;; esac
LIMIT=$((20 * F))
MD=0
[ "${1:-}" = --markdown ] && MD=1 && shift
# --list: the rows' number, input and command only, without running anything (doc_sync.sh
# compares those columns; running the table twice only to print them doubled its cost)
[ "${1:-}" = --list ] && MD=2 && shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-$ROOT/build/leversim}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
W=$(mktemp -d "${TMPDIR:-/tmp}/leversim-adv-XXXXXX")
trap 'chmod -R u+w "$W" 2>/dev/null; rm -rf "$W"' EXIT INT TERM
FX=$ROOT/tests/runner/data
LIB=$ROOT/tests/adversarial/lib.sh
n=0 pass=0 fail=0 skip=0
# md_args ARGS...: the command's arguments as the table shows them ('' for an empty one, the
# case's folder and the repository left out, | escaped)
md_args() {
  for a in "$@"; do [ -n "$a" ] && printf '%s ' "$a" || printf "'' "; done |
    sed "s|$W/c$n/||g; s|$W/||g; s|$ROOT/||g; s/|/\\\\|/g; s/ *\$//"
}
section() {
  [ $MD = 1 ] && printf '\n### %s\n\n| # | input | command | exit | message |\n|---|---|---|---|---|\n' "$1"
  return 0
}
# t WHAT EXIT FRAGMENT SETUP ARGS...: one case. SETUP is shell run in the case's folder with
# lib.sh loaded (exit 77: skip). Environment of the call: POST (a shell check that must hold
# afterwards), DATA=root (the repository's data root; default the test fixture's; DATA=case:
# the case folder's data/, which SETUP makes), LIMIT_F (a
# file-size limit in blocks), STDOUT (a file stdout goes to; default out.txt), PIPE_IN (a file
# fed to stdin through a pipe, for /dev/stdin), HOME_IN (a folder of the case made HOME),
# ENV_IN (NAME=VALUE words for the call; @D@ stands for the case's folder), AS_OTHER=1 (the
# call runs as a user who does not own the case's files: nobody through setpriv when the
# harness runs as root, where file modes would not apply; skipped when root lacks setpriv).
t() {
  what=$1 want=$2 frag=$3 setup=$4
  shift 4
  n=$((n + 1))
  d=$W/c$n
  if [ $MD = 2 ]; then
    printf '| A%d | %s | `leversim %s` |\n' "$n" "$what" "$(md_args "$@")"
    return 0
  fi
  mkdir "$d"
  if ! (cd "$d" && export LEVERSIM_DATA="$FX" && . "$LIB" && eval "$setup") >"$d/.setup" 2>&1; then
    skip=$((skip + 1))
    [ $MD = 1 ] || echo "SKIP $n: $what (setup: $(tail -1 "$d/.setup"))"
    [ $MD = 1 ] && printf '| A%d | %s | `leversim %s` | %s | (not run here: %s) |\n' "$n" "$what" \
      "$(printf '%s ' "$@" | sed "s|$W/||g; s|$ROOT/||g; s/|/\\\\|/g; s/ *\$//")" "$want" "setup not permitted"
    return 0
  fi
  data=$FX
  [ "${DATA:-}" = root ] && data=
  [ "${DATA:-}" = case ] && data=$d/data
  as=
  if [ -n "${AS_OTHER:-}" ] && [ "$(id -u)" = 0 ]; then
    as="setpriv --reuid=65534 --regid=65534 --clear-groups"
    if ! command -v setpriv > /dev/null || ! $as test -x "$BIN" -a -r "$FX/devices/profiles/tiny.yaml"; then
      skip=$((skip + 1)) # nobody cannot reach the binary or the fixtures (a private home folder)
      [ $MD = 1 ] || echo "SKIP $n: $what (root without setpriv, or the build out of nobody's reach)"
      return 0
    fi
    chmod 0711 "$W" && chmod 0777 "$d"
  fi
  t0=$(date +%s)
  (cd "$d" && { [ -z "${LIMIT_F:-}" ] || ulimit -f "$LIMIT_F"; } &&
    cat "${PIPE_IN:-/dev/null}" | env ${HOME_IN:+HOME="$d/$HOME_IN"} $(printf '%s' "${ENV_IN:-}" | sed "s|@D@|$d|g") LEVERSIM_DATA="$data" timeout -s KILL "$LIMIT" $as "$BIN" "$@" \
      >"${STDOUT:-$d/out.txt}" 2>"$d/err.txt")
  code=$?
  t1=$(date +%s)
  msg=$(grep -v '^$' "$d/err.txt" | head -1)
  [ -z "$msg" ] && [ -f "$d/out.txt" ] && msg=$(grep -v '^$' "$d/out.txt" | head -1)
  why=
  [ "$code" = "$want" ] || why="exit $code, expected $want"
  [ "$code" -gt 128 ] && [ "$code" != 130 ] && why="killed by signal $((code - 128))${why:+; $why}"
  [ $((t1 - t0)) -gt "$LIMIT" ] && why="took $((t1 - t0)) s${why:+; $why}"
  if [ -n "$frag" ] && ! grep -qF -- "$frag" "$d/err.txt" "$d/out.txt" 2>/dev/null; then
    why="${why:+$why; }no '$frag' in: $msg"
  fi
  if [ -n "${POST:-}" ] && ! (cd "$d" && . "$LIB" && eval "$POST") >"$d/.post" 2>&1; then
    why="${why:+$why; }post-check failed: $POST $(tail -1 "$d/.post")"
  fi
  if [ $MD = 1 ]; then
    args=$(md_args "$@")
    # a sweep's time and a file system's free space vary from run to run: N, so the table made
    # again on a loaded machine or another disk is the same
    m=$(printf '%s' "$msg" | sed "s|$W/c$n/||g; s|$W/||g; s|$ROOT/||g; s/|/\\\\|/g" |
        sed -E 's/ in [0-9.]+ s -> / in N s -> /; s/has [0-9.e+]+ [KMGT]?B free/has N GB free/' | cut -c1-240)
    printf '| A%d | %s | `leversim %s` | %s | `%s` |\n' "$n" "$what" "$args" "$code" "$m"
  elif [ -z "$why" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $n: $what: leversim $*"
    echo "      $why"
  fi
}
# Shared inputs: a fixture experiment (2 runs of a one-layer model) and its finished database.
ADV_EXP=$W/exp.yaml
printf 'name: adv\nseed: 1\nparts:\n  - name: p\n    devices: [tiny]\n    models: [tiny-target]\n    datasets: [iid]\n    systems: [lever, specinfer]\n    settings: {workload.prompts: 2, workload.max_tokens: 16}\n' > "$ADV_EXP"
ADV_GOOD=$W/good.db
[ $MD = 2 ] || LEVERSIM_DATA=$FX "$BIN" sweep "$ADV_EXP" --db "$ADV_GOOD" >/dev/null 2>&1 ||
  { echo "adversarial: cannot make the shared database"; exit 1; }
export ADV_EXP ADV_GOOD FX ROOT
. "$ROOT/tests/adversarial/cases.sh"
[ $MD != 0 ] && exit 0
echo "adversarial: $n cases, $pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
