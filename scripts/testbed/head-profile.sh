#!/usr/bin/env bash
# scripts/testbed/head-profile.sh DB OUT.yaml: the testbed's base profile with the output
# projection's own streaming rate (cpu.head_bandwidth) set from the run's `rows` passes in DB:
# N tokens asking for all N output rows against the same N asking for one, so their difference
# is the head computed N - 1 more times (`leversim testbed head-rate`, docs/VALIDATION.md §3.5).
# A calibration input like the stream: it reads no held-out pass. Written before calibrating,
# so that the layers' weight rate is fitted with the head priced at its own rate.
# Environment: LEVERSIM (default build/leversim).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 2 ] || { echo "usage: head-profile.sh DB OUT.yaml" >&2; exit 64; }
db=$1
out=$2
LEVERSIM=${LEVERSIM:-$top/build/leversim}
base=$top/scripts/testbed/base-profile.yaml
line=$("$LEVERSIM" testbed head-rate --db "$db")
echo "$line" | sed 's/^ *//' >&2
# The line goes after head_batched_from (the head's other key); the profile reader checks it.
awk -v line="$line" '{ print } /^  head_batched_from:/ { print line; n++ } END { exit n == 1 ? 0 : 1 }' "$base" \
  > "$out.tmp" || { echo "head-profile.sh: $base has no single cpu.head_batched_from line to follow" >&2; rm -f "$out.tmp"; exit 65; }
mv "$out.tmp" "$out"
