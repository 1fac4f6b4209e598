#!/usr/bin/env bash
# Guarding one's own study (not a paper replay): `check --write-baseline` from a sweep's
# database, `check --baseline` of the same database exits 0 (twice, the second time from a
# re-run into a fresh database), and after a planted change of one device value (the OnePlus
# 12's flash link bandwidth, 4.2 -> 4.0 GB/s, in a copy of the data root) exit 2 with a report
# whose first lines give the verdict and the largest move, then the headline before/after.
# Usage: guard_study.sh SOURCE_DIR LEVERSIM
set -euo pipefail
src=$1 bin=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ls_guard.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/data/runner"
cp -R "$src/devices" "$src/workloads" "$src/plots" "$tmp/data/"
cp -R "$src/runner/experiments" "$tmp/data/runner/"
study() { # DB
  LEVERSIM_DATA=$tmp/data "$bin" sweep --axis draft.budget=8,16 --axis system=lever,specinfer \
    --axis device=oneplus-12,honor-500-pro --axis model=qwen3-4b --axis dataset=gsm8k \
    --set workload.prompts=5 --set workload.max_tokens=16 --db "$1" > "$tmp/sweep.log" 2>&1
}
fail() { echo "guard_study: $*"; cat "$tmp/report.txt" 2>/dev/null || true; exit 1; }
study "$tmp/mine.db"
"$bin" check --db "$tmp/mine.db" --write-baseline "$tmp/mine.yaml" > "$tmp/report.txt" 2>&1 || fail "write-baseline failed"
grep -q '^replay: study$' "$tmp/mine.yaml" || fail "the baseline is not a study's"
rc=0; "$bin" check --db "$tmp/mine.db" --baseline "$tmp/mine.yaml" > "$tmp/report.txt" 2>&1 || rc=$?
[ $rc -eq 0 ] || fail "the untouched database: exit $rc, expected 0"
grep -q ' 0 regressions' "$tmp/report.txt" || fail "no '0 regressions'"
study "$tmp/again.db"
rc=0; "$bin" check --db "$tmp/again.db" --baseline "$tmp/mine.yaml" > "$tmp/report.txt" 2>&1 || rc=$?
[ $rc -eq 0 ] || fail "a re-run of the untouched study: exit $rc, expected 0"
# the planted change: one device value
sed -i 's|  link_bandwidth: 4.2 GB/s |  link_bandwidth: 4.0 GB/s |' "$tmp/data/devices/profiles/oneplus-12.yaml"
grep -q 'link_bandwidth: 4.0 GB/s' "$tmp/data/devices/profiles/oneplus-12.yaml" || fail "the plant did not apply"
study "$tmp/planted.db"
rc=0; "$bin" check --db "$tmp/planted.db" --baseline "$tmp/mine.yaml" > "$tmp/report.txt" 2>&1 || rc=$?
[ $rc -eq 2 ] || fail "after the planted change: exit $rc, expected 2"
sed -n 1p "$tmp/report.txt" | grep -Eq '[1-9][0-9]* regressions? ' || fail "line 1 is not the verdict"
sed -n 2p "$tmp/report.txt" | grep -q '^largest change: throughput_tps of .* on oneplus-12/' || fail "line 2 does not name the largest move (a oneplus-12 run's throughput)"
sed -n 3p "$tmp/report.txt" | grep -q '^headline: geometric mean throughput of 8 runs, baseline .* now ' || fail "line 3 is not the headline"
sed -n 5p "$tmp/report.txt" | grep -q '%.* throughput_tps of lever on oneplus-12/' || fail "line 5 is not the largest move"
grep -q 'honor-500-pro' "$tmp/report.txt" && fail "a run of the untouched device moved"
lines=$(wc -l < "$tmp/report.txt")
[ "$lines" -le 20 ] || fail "the short report has $lines lines"
"$bin" check --verbose --db "$tmp/planted.db" --baseline "$tmp/mine.yaml" > "$tmp/verbose.txt" 2>&1 || true
grep -q '^device  *model' "$tmp/verbose.txt" || grep -q '^metric ' "$tmp/verbose.txt" || fail "--verbose shows no table"
echo "guard_study: untouched 0 (twice), planted change 2; $(sed -n 2p "$tmp/report.txt")"
