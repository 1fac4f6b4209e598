#!/usr/bin/env bash
# Mutation testing: each mutant in mutants/*.mut plants one bug in the core (a find/replace of
# exact text in one file); the named ctest suites must then fail. The script copies the
# source tree once, builds it, and for each mutant applies the edit, rebuilds incrementally,
# runs the suites (in parallel, stopping at the first that fails: any failure kills the mutant)
# and restores the file. A mutant whose text no longer occurs is "stale" and counts as a
# failure of this script (the mutant must be updated with the code).
# Usage: tests/mutation/run.sh [--subset K/N] [MUTANT...]   (exit 0 only if every mutant is killed)
# `make mutation` runs them all; CI runs the share K = day of the year mod 3 (README.md here).
# Mutant file format:  file=PATH  tests=CTEST_REGEX  then "---find", the text, "---replace", the text.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
subset=""
if [ "${1:-}" = "--subset" ]; then subset=$2; shift 2; fi
mutants=("$@")
[ ${#mutants[@]} -gt 0 ] || mutants=("$here"/mutants/*.mut)
# Every mutant's text must still occur exactly once, whichever share runs today: a mutant made
# stale by a change is caught on the day of the change, not on the day its share comes round;
# text found twice would plant the bug in whichever copy comes first, maybe not the one meant.
unmatched=0
for m in "$here"/mutants/*.mut; do
  file=$(sed -n 's/^file=//p' "$m")
  find=$(awk '/^---find$/{f=1;next} /^---replace$/{f=0} f' "$m")
  if ! FIND="$find" perl -0ne 'BEGIN{$n=0} $n += () = /\Q$ENV{FIND}\E/g; END{exit($n == 1 ? 0 : 1)}' "$top/$file" 2>/dev/null; then
    echo "STALE    $(basename "$m" .mut): the text to replace no longer occurs exactly once in $file"; unmatched=$((unmatched + 1))
  fi
done
if [ -n "$subset" ]; then # a fixed rotating share: mutants whose index = K mod N
  k=${subset%/*}; n=${subset#*/}; sel=()
  for i in "${!mutants[@]}"; do [ $((i % n)) -eq "$k" ] && sel+=("${mutants[$i]}"); done
  mutants=("${sel[@]}")
fi
work=$(mktemp -d)
# mktemp's folder is private (0700); the adversarial cases that run the binary as another user
# (AS_OTHER: nobody, when run as root) skip themselves where nobody cannot reach the build, and
# a mutant only they can kill (output-db-readonly-opened) would survive.
chmod 0755 "$work"
trap 'rm -rf "$work"' EXIT
( cd "$top" && git ls-files -z | xargs -0 -I{} cp --parents {} "$work/" )
cmake -S "$work" -B "$work/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$work/build" -j "$(nproc)" >/dev/null
killed=0; survived=0; stale=0
for m in "${mutants[@]}"; do
  name=$(basename "$m" .mut)
  file=$(sed -n 's/^file=//p' "$m"); tests=$(sed -n 's/^tests=//p' "$m")
  find=$(awk '/^---find$/{f=1;next} /^---replace$/{f=0} f' "$m")
  repl=$(awk '/^---replace$/{f=1;next} f' "$m")
  cp "$work/$file" "$work/$file.orig"
  if ! FIND="$find" REPL="$repl" perl -0pi -e 'BEGIN{$n=0} $n += s/\Q$ENV{FIND}\E/$ENV{REPL}/; END{exit($n == 1 ? 0 : 1)}' "$work/$file"; then
    echo "STALE    $name: the text to replace no longer occurs exactly once in $file"; stale=$((stale + 1))
    mv "$work/$file.orig" "$work/$file"; continue
  fi
  if ! cmake --build "$work/build" -j "$(nproc)" >/dev/null 2>&1; then
    echo "KILLED   $name (does not build)"; killed=$((killed + 1))
  elif (cd "$work/build" && ctest -j "$(nproc)" --stop-on-failure -R "$tests" >/dev/null 2>&1); then
    echo "SURVIVED $name: suites '$tests' still pass"; survived=$((survived + 1))
  else
    echo "KILLED   $name"; killed=$((killed + 1))
  fi
  mv "$work/$file.orig" "$work/$file"
  touch "$work/$file"
done
stale=$((stale > unmatched ? stale : unmatched))
total=$((killed + survived + stale))
rate=$(awk -v k="$killed" -v t="$total" 'BEGIN { printf "%.1f", t ? 100 * k / t : 0 }')
echo "mutation: $killed killed, $survived survived, $stale stale of $total (kill rate $rate %)"
[ "$survived" -eq 0 ] && [ "$stale" -eq 0 ]
