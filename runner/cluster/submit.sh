#!/usr/bin/env bash
# Submits a sharded leversim sweep to Slurm: an N-task job array, then the merge step that
# runs only if every shard succeeded (afterok).
#   runner/cluster/submit.sh EXPERIMENT.yaml N [OUT_DIR] [MERGED_DB]
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 EXPERIMENT.yaml N [OUT_DIR] [MERGED_DB]" >&2; exit 64; }
here=$(cd "$(dirname "$0")" && pwd)
exp=$1 n=$2 out=${3:-results/shards} db=${4:-results/leversim.db}
jid=$(sbatch --parsable --array=1-"$n" --export=ALL,EXP="$exp",OUT="$out" "$here/sweep.sbatch")
sbatch --dependency=afterok:"${jid%%;*}" --export=ALL,OUT="$out",DB="$db" "$here/merge.sbatch"
echo "sweep array $jid; merge queued after it"
