#!/usr/bin/env bash
# ctest testbed.plot: `testbed validate --plot DIR` writes DIR/testbed-validation.{dat,gp,png}
# through sim/fileio, so each is whole or absent, and never over a file it did not write: a
# symbolic link, or a foreign file, at one of the three names is refused (exit 74, the path
# named) before any of them is written, and whatever it points to stays as it was. The script
# it leaves draws the image again by hand. Stored run AN; no llama.cpp run.
# Usage: plot.sh LEVERSIM TOP
set -euo pipefail
leversim=$1; top=$2
command -v gnuplot > /dev/null || { echo "plot: gnuplot is missing" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "plot: $*" >&2; exit 1; }
cd "$top"
d=results/testbed/run-an
validate() { # DIR: validate run AN with --plot DIR; prints its exit status
  cp "$d/testbed.db" "$tmp/an.db"
  set +e
  "$leversim" testbed validate --db "$tmp/an.db" --profile "$d/testbed-vm.yaml" --fio-mmap "$d/fio-mmap.json" \
    --plot "$1" > "$tmp/out.txt" 2> "$tmp/err.txt"
  echo $?
  set -e
}
mkdir "$tmp/p" "$tmp/q 'quoted'"
for dir in "$tmp/p" "$tmp/q 'quoted'"; do
  rc=$(validate "$dir")
  [ "$rc" = 0 ] || fail "validate --plot '$dir': exit $rc: $(cat "$tmp/err.txt")"
  [ "$(ls "$dir" | tr '\n' ' ')" = "testbed-validation.dat testbed-validation.gp testbed-validation.png " ] ||
    fail "'$dir' holds: $(ls -a "$dir" | tr '\n' ' ')"
  [ "$(head -c 4 "$dir/testbed-validation.png" | od -An -tx1 | tr -d ' ')" = 89504e47 ] || fail "not a PNG in '$dir'"
  pts=$(grep -c '^[0-9]' "$dir/testbed-validation.dat")
  [ "$pts" -gt 0 ] || fail "no points in '$dir/testbed-validation.dat'"
done
# again over its own files: replaced
rc=$(validate "$tmp/p")
[ "$rc" = 0 ] || fail "validate --plot over its own files: exit $rc"
# the script draws again by hand
(cd "$tmp/p" && rm testbed-validation.png && gnuplot testbed-validation.gp) || fail "the script does not run by hand"
[ -s "$tmp/p/testbed-validation.png" ] || fail "the script drew nothing by hand"
# a link or a foreign file at each name: refused, the other side untouched
for name in dat gp png; do
  for kind in link foreign; do
    rm -rf "$tmp/r"; mkdir "$tmp/r"
    echo "someone else's file" > "$tmp/victim"
    if [ $kind = link ]; then ln -s "$tmp/victim" "$tmp/r/testbed-validation.$name"
    else cp "$tmp/victim" "$tmp/r/testbed-validation.$name"; fi
    rc=$(validate "$tmp/r")
    [ "$rc" = 74 ] || fail "$kind at .$name: exit $rc, not 74"
    grep -q "testbed-validation.$name" "$tmp/err.txt" || fail "$kind at .$name: the message names no path: $(cat "$tmp/err.txt")"
    [ "$(cat "$tmp/victim")" = "someone else's file" ] || fail "$kind at .$name: the file it reaches changed"
    [ $kind = foreign ] || [ -L "$tmp/r/testbed-validation.$name" ] || fail "link at .$name: replaced"
    [ "$(ls "$tmp/r")" = "testbed-validation.$name" ] || fail "$kind at .$name: the other names written: $(ls "$tmp/r" | tr '\n' ' ')"
  done
done
echo "plot: three files written whole (twice, and at a quoted path), drawn again by hand; a link or foreign file at each name refused"
