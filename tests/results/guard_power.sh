#!/usr/bin/env bash
# The regression guard's power: each planted change of tests/results/plants.txt (one device,
# model or acceptance parameter moved by 2-10 %) is applied to a copy of the data root
# (LEVERSIM_DATA), the replay is run into a temporary database and `leversim check` against
# the committed baseline must exit 2; the untouched data root must pass (exit 0).
# Usage: guard_power.sh SOURCE_DIR LEVERSIM [quick|full] [BASELINE]
#   quick (ctest results.guard_power): reproduce --quick against results/baseline/quick.yaml.
#   full: reproduce (the default replay) against BASELINE (default results/baseline/full.yaml)
#         and print, per change, the largest move of any guarded value: the table of
#         docs/STATISTICS.md ("The regression guard's power").
set -euo pipefail
src=$1 bin=$2 mode=${3:-quick}
base=${4:-$src/results/baseline/$mode.yaml}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flag=""
[ "$mode" = quick ] && flag=--quick

replay() { # DATA_ROOT DB
  LEVERSIM_DATA=$1 "$bin" reproduce $flag --jobs 1 --no-figures --db "$2" > /dev/null 2>&1 < /dev/null
}

check() { # DB -> sets rc to the exit status of check; the report into $tmp/report.txt
  rc=0
  "$bin" check --db "$1" --baseline "$base" > "$tmp/report.txt" 2>&1 || rc=$?
}

failures=0
# The untouched data root: every value identical (exit 0).
replay "$src" "$tmp/untouched.db"
check "$tmp/untouched.db"
if [ "$rc" -eq 0 ]; then
  echo "untouched: check exit 0 ($(grep '^largest change' "$tmp/report.txt" || true))"
else
  echo "FAIL untouched: check exit $rc (expected 0)"; tail -3 "$tmp/report.txt"; failures=$((failures + 1))
fi

n=0
while IFS='|' read -r label file find repl; do
  label=$(echo $label) file=$(echo $file)
  find=$(echo "$find" | sed 's/^ *//; s/ *$//') repl=$(echo "$repl" | sed 's/^ *//; s/ *$//')
  case "$label" in ''|'#'*) continue ;; esac
  n=$((n + 1))
  root="$tmp/root-$n"
  mkdir -p "$root/runner"
  cp -r "$src/devices" "$src/workloads" "$root/"
  cp -r "$src/runner/experiments" "$root/runner/"
  text=$(cat "$root/$file"; echo x)
  text=${text%x}
  case "$text" in *"$find"*) ;; *) echo "FAIL $label: '$find' not in $file"; failures=$((failures + 1)); continue ;; esac
  printf '%s' "${text/"$find"/"$repl"}" > "$root/$file"   # the first occurrence only
  replay "$root" "$tmp/plant.db" || { echo "FAIL $label: the replay failed"; failures=$((failures + 1)); continue; }
  check "$tmp/plant.db"
  moved=$(grep '^largest change' "$tmp/report.txt" | sed 's/^largest change: //' || true)
  if [ "$rc" -eq 2 ]; then
    echo "caught   $label: check exit 2; largest change $moved"
  else
    echo "MISSED   $label: check exit $rc (expected 2); largest change $moved"
    failures=$((failures + 1))
  fi
  rm -rf "$root" "$tmp/plant.db"*
done < "$src/tests/results/plants.txt"
echo "$n planted changes, $failures failure(s)"
[ "$n" -ge 10 ] && [ "$failures" -eq 0 ]
