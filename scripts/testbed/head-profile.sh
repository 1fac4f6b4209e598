#!/usr/bin/env bash
# scripts/testbed/head-profile.sh DB OUT.yaml: the testbed's base profile with the output
# projection's own rates set from the run's `rows` passes in DB (`leversim testbed head-rate`,
# docs/VALIDATION.md §3.5 and §3.6): N tokens asking for all N output rows against the same N
# asking for one give the rate of a further row (cpu.head_bandwidth: their difference is the
# head computed N - 1 more times); one row against none (`rows-0`, llama.cpp then computes no
# output projection) gives the rate of a pass's first row (cpu.head_first_bandwidth; absent
# for a run made before the rows-0 passes). When the run has the draft's rows passes, both
# rates come from them (the head is most of a draft's pass, some % of a target's), the
# target's shown beside as a comment. Calibration inputs like the stream: they read no
# held-out pass. Written before calibrating, so that the layers' weight rate is fitted with
# the head priced at its own rates. The base's max_bandwidth is an assumption (one VM's share
# of the host's memory bandwidth) that caps every rate the CPU model uses; when the head's
# measured rates exceed it, one thread has streamed the head faster than the cap, so the cap
# is raised to the larger measured rate (run V: 31.9 GB/s against the assumed 20, which had
# priced each further row of the target's 215 MB head at 10.8 ms instead of 6.8 ms;
# docs/VALIDATION.md §3.15). Environment: LEVERSIM (default build/leversim).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 2 ] || { echo "usage: head-profile.sh DB OUT.yaml" >&2; exit 64; }
db=$1
out=$2
LEVERSIM=${LEVERSIM:-$top/build/leversim}
base=$top/scripts/testbed/base-profile.yaml
"$LEVERSIM" testbed head-rate --db "$db" > "$out.lines"
sed 's/^ *//' "$out.lines" >&2
# The lines go after head_batched_from (the head's other key); the profile reader checks them.
n=$(grep -c '^  head_batched_from:' "$base" || true)
if [ "$n" != 1 ]; then
  echo "head-profile.sh: $base has no single cpu.head_batched_from line to follow" >&2; rm -f "$out.lines"; exit 65
fi
# The largest measured head rate, in GB/s, and the base's cap. At two or more threads the lines
# state one core's rate and a comment the threads' measured rates together (`testbed
# head-rate`), which the cap must not cut: the cap is raised to the largest of those.
threads=$(sed -n 's/^  # threads \([0-9]*\): .*/\1/p' "$out.lines")
if [ -n "$threads" ]; then
  measured=$(sed -n 's/^  # threads [0-9]*: .*together measured//p' "$out.lines" | grep -o '[0-9.]* GB/s' |
    sed 's/ GB\/s//' | sort -g | tail -n 1)
else
  measured=$(sed -n 's/^ *head_\(first_\)\{0,1\}bandwidth: \([0-9.]*\) GB\/s.*/\2/p' "$out.lines" | sort -g | tail -n 1)
fi
cap=$(sed -n 's/^  max_bandwidth: \([0-9.]*\) GB\/s.*/\1/p' "$base")
if [ -z "$measured" ] || [ -z "$cap" ]; then
  echo "head-profile.sh: no head rate in GB/s, or no cpu.max_bandwidth in GB/s in $base" >&2; rm -f "$out.lines"; exit 65
fi
sed "/^  head_batched_from:/r $out.lines" "$base" > "$out.tmp"
rm -f "$out.lines"
if awk -v m="$measured" -v c="$cap" 'BEGIN { exit !(m > c) }'; then
  sed -i "s|^  max_bandwidth: .*|  max_bandwidth: $measured GB/s  # src:testbed-run: the head's rate measured above (the base assumed $cap GB/s, one VM's share of host memory bandwidth, and one thread exceeded it); held in the fit|" "$out.tmp"
  echo "head-profile.sh: cpu.max_bandwidth raised from $cap to $measured GB/s, the head's measured rate" >&2
fi
# The one-token kernel's rate is fitted from a start of one core's share of the base's (16 GB/s
# for one thread): a start that the threads' sum puts above the cap gives the fit no gradient
# (the rate is capped whatever it is), and calibrate keeps it "not determined". That refused
# protocol-1's 2-thread, width-4096 configuration (2 x 16 GB/s above its 30.48 GB/s cap;
# docs/VALIDATION.md §0.6).
if [ -n "$threads" ] && [ "$threads" -gt 1 ]; then
  start=$(sed -n 's/^  single_bandwidth: \([0-9.]*\) GB\/s .*/\1/p' "$out.tmp")
  if [ -n "$start" ]; then
    share=$(awk -v s="$start" -v t="$threads" 'BEGIN { printf "%.4g", s / t }')
    sed -i "s|^  single_bandwidth: $start GB/s |  single_bandwidth: $share GB/s # assumed: one core's share over $threads threads of the one-thread start $start GB/s (head-profile.sh);|" "$out.tmp"
    echo "head-profile.sh: cpu.single_bandwidth's start set to one core's share, $share GB/s ($threads threads)" >&2
  fi
fi
mv "$out.tmp" "$out"
