#!/bin/sh
# tests/adversarial/killed.sh [LEVERSIM]: `leversim calibrate --out o.yaml` killed with SIGKILL
# at instants spread over its run (an outside battery found `o.yaml.tmp-XXXXXX` left beside
# the output). sim/fileio writes an output as a file without a name, named only when complete,
# so after each kill the folder holds nothing but o.yaml, and o.yaml, when there, is a whole
# profile (`profiles validate` accepts it). Replacing an o.yaml of calibrate's, one instant
# (between linkat and rename) may leave the new profile under o.yaml.tmp-<pid>-<k>: allowed,
# but it too must be whole. The kills' delays are spread, not timed: the checks hold whenever
# the kill comes, so a loaded machine changes only which instants are tried.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-$ROOT/build/leversim}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
W=$(mktemp -d "${TMPDIR:-/tmp}/leversim-killed-XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
FIO=$ROOT/devices/measurements/8gen3-ufs40-fio.json
fail=0 kills=0
whole() { "$BIN" profiles validate "$1" >/dev/null 2>&1; }
check() { # after one kill: only o.yaml, whole, and whole o.yaml.tmp-<pid>-<k>
  for f in "$W"/*; do
    [ -e "$f" ] || continue
    case ${f#"$W"/} in
      o.yaml) whole "$f" || { echo "FAIL ($1): o.yaml is not a whole profile"; fail=1; } ;;
      o.yaml.tmp-[0-9]*-[0-9]*) whole "$f" || { echo "FAIL ($1): ${f#"$W"/} left, not whole"; fail=1; }
        rm -f "$f" ;;
      *) echo "FAIL ($1): ${f#"$W"/} left behind"; fail=1; rm -f "$f" ;;
    esac
  done
}
for replace in 0 1; do
  for d in 0 0.002 0.005 0.01 0.015 0.02 0.03 0.04 0.05 0.06 0.08 0.1 0.15; do
    [ $replace = 1 ] || rm -f "$W/o.yaml"
    [ $replace = 0 ] || [ -e "$W/o.yaml" ] ||
      (cd "$W" && "$BIN" calibrate --base oneplus-12 --fio "$FIO" --only flash --out o.yaml >/dev/null 2>&1)
    (cd "$W" && exec "$BIN" calibrate --base oneplus-12 --fio "$FIO" --only flash --out o.yaml >/dev/null 2>&1) &
    pid=$!
    sleep "$d"
    kill -s KILL "$pid" 2>/dev/null && kills=$((kills + 1))
    wait "$pid" 2>/dev/null
    check "replace=$replace, killed after $d s"
  done
done
[ $fail = 0 ] || exit 1
echo "killed: $kills of 26 calibrate runs killed by SIGKILL, nothing but whole profiles left"
