#!/usr/bin/env bash
# The regression guard's power: each planted change of tests/results/plants.txt (one device,
# model or acceptance parameter moved by 2-10 %) is applied to a copy of the data root
# (LEVERSIM_DATA), the replay is run into a temporary database, and `leversim check` against
# the committed baseline must exit 2; the untouched data root must pass (exit 0).
# Usage: guard_power.sh SOURCE_DIR LEVERSIM [quick|full] [BASELINE]
#   quick (ctest results.guard_power): reproduce --quick against results/baseline/quick.yaml.
#   full: reproduce (the default replay) against BASELINE (default results/baseline/full.yaml).
# A fifth field marks a change that moves the full replay's headline ratios, Table 1 and AR
# from DRAM by less than 2 % (measured with `full`): the quick guard may miss it.
# Each line names the largest move of the headline values (Lever over ar-flash and specinfer,
# part main), of Table 1 (the I/O share of part table1's ar-flash runs), of AR from DRAM (the
# throughput of ar-mem) and of any guarded value: with `full`, the table of
# docs/STATISTICS.md ("The regression guard's power").
set -euo pipefail
src=$1 bin=$2 mode=${3:-quick}
base=${4:-$src/results/baseline/$mode.yaml}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flag=""
[ "$mode" = quick ] && flag=--quick

replay() { # DATA_ROOT DB
  LEVERSIM_DATA=$1 "$bin" reproduce $flag --jobs 1 --no-figures --db "$2" > "$tmp/replay.log" 2>&1 < /dev/null
}

check() { # DB -> sets rc to the exit status of check; the report into $tmp/report.txt
  rc=0
  "$bin" check --verbose --db "$1" --baseline "$base" > "$tmp/report.txt" 2>&1 || rc=$?
}

# Largest |move| in % of the headline ratios, Table 1 and AR from DRAM in the report.
moves() {
  awk '
    function absd(s) { gsub(/[%+]/, "", s); s = s + 0; return s < 0 ? -s : s }
    $NF == "ok" || /^device|^metric|^\(none\)|^note|^largest|values checked/ { next }
    $1 == "throughput_tps" && $3 == "of" { if ($4 == "ar-mem") { v = absd($(NF-4)); if (v > ar) ar = v }; next }
    $1 == "io_share" && $3 == "of" { if ($4 == "ar-flash" && /\(part table1\)/) { v = absd($(NF-4)); if (v > t1) t1 = v }; next }
    NF >= 9 && ($4 == "ar-flash" || $4 == "specinfer") { v = absd($7); if (v > hl) hl = v; next }
    NF >= 10 && ($5 == "ar-flash" || $5 == "specinfer") { v = absd($8); if (v > hl) hl = v }
    END { printf "headline %.3g %%, Table 1 %.3g %%, AR from DRAM %.3g %%", hl, t1, ar }
  ' "$tmp/report.txt"
}

failures=0
replay "$src" "$tmp/untouched.db"
check "$tmp/untouched.db"
if [ "$rc" -eq 0 ]; then
  echo "untouched: check exit 0 ($(grep '^largest change' "$tmp/report.txt" || true))"
else
  echo "FAIL untouched: check exit $rc (expected 0)"; tail -3 "$tmp/report.txt"; failures=$((failures + 1))
fi

n=0
while IFS='|' read -r label file find repl minor; do
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
  if ! replay "$root" "$tmp/plant.db"; then
    echo "FAIL $label: the replay failed:"; tail -3 "$tmp/replay.log"; failures=$((failures + 1)); continue
  fi
  check "$tmp/plant.db"
  moved=$(grep '^largest change' "$tmp/report.txt" | sed 's/^largest change: //' || true)
  if [ "$rc" -eq 2 ]; then
    echo "caught   $label: check exit 2; $(moves); largest of all: $moved"
  elif [ "$rc" -eq 0 ] && [ -n "$(echo $minor)" ]; then
    echo "missed   $label: check exit 0, allowed: it moves the full replay's headline ratios, Table 1 and AR from DRAM by < 2 % ($(echo $minor))"
  else
    echo "MISSED   $label: check exit $rc (expected 2); $(moves); largest of all: $moved"
    failures=$((failures + 1))
  fi
  rm -rf "$root" "$tmp/plant.db"*
done < "$src/tests/results/plants.txt"
echo "$n planted changes, $failures failure(s)"
[ "$n" -ge 10 ] && [ "$failures" -eq 0 ]
