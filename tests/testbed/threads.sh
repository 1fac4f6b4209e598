#!/usr/bin/env bash
# ctest testbed.threads: the head's rates of a run with two threads enter the profile as one
# core's, and the one-token kernel's start is one core's share (docs/VALIDATION.md §0.6). On
# protocol-1's 2-thread, width-4096 configuration of 05:42 (results/testbed/protocol-1/
# run-20261128T0542Z/w4096-l4-t2-d4), which no kernel form had explained (reduced chi2 6.6 to
# 9.0): `testbed head-rate` gives the draft's rows passes' rates halved, 30.48 / 2 = 15.24 GB/s
# a further row and 9.294 / 2 = 4.647 GB/s the first row, and names the two threads' rates;
# head-profile.sh raises the cap to the threads' 30.48 GB/s and starts the one-token rate at
# 16 / 2 = 8 GB/s; kernel-form.sh then fits every form but the groups and keeps the tiles
# (reduced chi2 0.56). The same shape at one thread (w4096-l4-t1-d2) gives the lines as before:
# no threads comment, the rates as measured, the 16 GB/s start.
# Usage: threads.sh LEVERSIM TOP
set -euo pipefail
leversim=$1; top=$2
run=$top/results/testbed/protocol-1/run-20261128T0542Z
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "threads: $*" >&2; exit 1; }
# The configuration's files where its database names them (build/testbed/protocol/NAME/).
stage() {
  local d=$tmp/build/testbed/protocol/$1
  mkdir -p "$d/data/workloads/models"
  cp "$run/$1"/testbed.db "$run/$1"/warm.csv "$run/$1"/llama-3.2-1b-tb*.yaml "$d/"
  ln -s "$top/devices" "$d/data/devices"
  ln -s "$top/runner" "$d/data/runner"
  for f in "$top"/workloads/models/*.yaml; do ln -s "$f" "$d/data/workloads/models/"; done
  cp "$d/llama-3.2-1b-tb4l4096w.yaml" "$d/data/workloads/models/"
}
stage w4096-l4-t2-d4
stage w4096-l4-t1-d2
cd "$tmp"
d=build/testbed/protocol/w4096-l4-t2-d4
"$leversim" testbed head-rate --db "$d/testbed.db" > two.txt
grep -q '^  head_bandwidth: 15.24 GB/s ' two.txt || fail "2 threads: a further row not one core's 15.24 GB/s: $(cat two.txt)"
grep -q '^  head_first_bandwidth: 4.647 GB/s ' two.txt || fail "2 threads: the first row not one core's 4.647 GB/s"
grep -q '^  # threads 2: .* a further row at 30.48 GB/s, the first row at 9.294 GB/s ' two.txt ||
  fail "2 threads: the threads' measured rates not named"
LEVERSIM=$leversim bash "$top/scripts/testbed/head-profile.sh" "$d/testbed.db" "$d/base-profile.yaml" 2> /dev/null
grep -q '^  max_bandwidth: 30.48 GB/s ' "$d/base-profile.yaml" || fail "2 threads: the cap not the threads' rate"
grep -q '^  single_bandwidth: 8 GB/s ' "$d/base-profile.yaml" || fail "2 threads: the one-token start not 16 / 2 GB/s"
LEVERSIM=$leversim LEVERSIM_DATA=$d/data bash "$top/scripts/testbed/kernel-form.sh" "$d/base-profile.yaml" \
  "$d/warm.csv" --model llama-3.2-1b-tb4l4096w > form.txt
for want in "onepass: reduced chi2 0.9062" "tiles: reduced chi2 0.56" "tiles-rate: reduced chi2 0.6271" \
  "roofline: reduced chi2 2.122" "kept: tiles"; do
  grep -qxF -- "$want" form.txt || { cat form.txt >&2; fail "2 threads: no line '$want'"; }
done
d=build/testbed/protocol/w4096-l4-t1-d2
"$leversim" testbed head-rate --db "$d/testbed.db" > one.txt
grep -q '# threads' one.txt && fail "1 thread: a threads comment"
grep -q '^  head_bandwidth: 17.46 GB/s ' one.txt || fail "1 thread: a further row not as measured, 17.46 GB/s"
LEVERSIM=$leversim bash "$top/scripts/testbed/head-profile.sh" "$d/testbed.db" "$d/base-profile.yaml" 2> /dev/null
cmp -s "$d/base-profile.yaml" "$run/w4096-l4-t1-d2/base-profile-groups.yaml" ||
  fail "1 thread: the base profile differs from the one the run wrote"
echo "threads: the 2-thread rates are one core's; the 1-thread profile as the run wrote it"
