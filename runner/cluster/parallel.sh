#!/usr/bin/env bash
# Runs a sharded leversim sweep over several hosts with GNU parallel and ssh, then merges.
#   runner/cluster/parallel.sh EXPERIMENT.yaml N host1,host2,...  [MERGED_DB]
# Each host needs leversim built at the same path (LEVERSIM, default build/leversim, relative
# to REMOTE_DIR) and the same checkout (REMOTE_DIR, default: this directory's path). Each
# shard's database is brought back with --return and removed remotely with --cleanup.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 EXPERIMENT.yaml N HOSTS [MERGED_DB]" >&2; exit 64; }
exp=$1 n=$2 hosts=$3 db=${4:-results/leversim.db}
remote=${REMOTE_DIR:-$PWD}
bin=${LEVERSIM:-build/leversim}
mkdir -p results/shards
seq 1 "$n" | parallel --jobs 1 -S "$hosts" --workdir "$remote" \
  --return "results/shards/shard-{}-of-$n.db" --cleanup \
  "$bin sweep $exp --shard {}/$n --jobs 2 --resume --db results/shards/shard-{}-of-$n.db"
"$bin" merge "$db" results/shards/shard-*-of-"$n".db
