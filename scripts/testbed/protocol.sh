#!/usr/bin/env bash
# scripts/testbed/protocol.sh [PROTOCOL.yaml]: `make testbed`: a pre-registered protocol run end
# to end (default runner/testbed/protocol-4.yaml, the current one; runner/testbed/protocol.yaml,
# protocol-2.yaml and protocol-3.yaml stay runnable; docs/VALIDATION.md §0). For each of its
# configurations: write the target's shape and the draft (random weights), measure a real
# llama.cpp (`testbed measure` with the protocol's sizes, its threads and step context, no busy
# streams, no repacked case), run fio on the model file, calibrate this host's profile from the
# configuration's calibration passes only (the head's rates from the rows passes, the layers'
# kernel form and the CPU from the warm rows, the flash from fio), and validate (`testbed
# validate --points`). Then `testbed verdict` over every configuration; its last line is this
# script's last line, and its exit status (0 met, 2 a target missed) is the script's.
# Every run is appended to results/testbed/protocol-runs.md (date, commit, whether the model's
# code is the frozen code, load average before and after, the line), whatever its result: runs
# are published, never chosen.
# Outputs: build/testbed/protocol/<configuration>/ (models, testbed.db, warm.csv, fio-*.json,
# testbed-vm.yaml, validate.txt, points.tsv), build/testbed/protocol/verdict.txt (for
# protocol-1; build/testbed/<id>/ for any other protocol id, so two protocols' runs never mix).
# The frozen code is each protocol file's own: the model's files as at the last commit that
# changed that file.
# Environment: BUILD (default build), LEVERSIM (default $BUILD/leversim), TB_OUT (default
# as above), TB_ONLY (one configuration's name: measure only it; no record). TB_CONTENTION
# (predict-config.sh's ablation) is refused: a protocol run predicts with the model as frozen.
set -euo pipefail
[ -z "${TB_CONTENTION:-}" ] || { echo "protocol.sh: TB_CONTENTION is an ablation of replays, not of a protocol run" >&2; exit 64; }
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "$top"
proto=${1:-runner/testbed/protocol-4.yaml}
[ -f "$proto" ] || { echo "protocol.sh: $proto: no such protocol file" >&2; exit 66; }
BUILD=${BUILD:-build}
LEVERSIM=${LEVERSIM:-$top/$BUILD/leversim}
export LEVERSIM
pid=$(sed -n 's/^id: //p' "$proto")
[ "$pid" = protocol-1 ] && sub=protocol || sub=$pid
out=${TB_OUT:-$BUILD/testbed/$sub}
mkdir -p "$out"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# The frozen code (frozen.sh): the model's files as they were at the last commit that changed
# the protocol file. A run with any of them changed since (committed or not) is still
# recorded, marked "not a run of this protocol".
frozen=$(bash "$here/frozen.sh" "$proto")
echo "protocol.sh: $frozen" >&2
list=$("$LEVERSIM" testbed protocol --file "$proto")
set +e
lib=$(bash "$here/prereq.sh" "$BUILD")
st=$?
set -e
[ $st -eq 0 ] || exit $st
prio=()
[ "$(id -u)" -ne 0 ] || prio=(nice -n -20)
# This VM's free page reporting, held back while the run measures, as run.sh does
# (page-reporting.sh: a host effect the model has no term for).
# shellcheck source=scripts/testbed/page-reporting.sh
. "$here/page-reporting.sh" protocol.sh
# The tree and the acceptance trace are the same for every configuration (run.sh's).
"$LEVERSIM" tree --policy lever --json --device honor-500-pro --model llama-3.1-8b > "$out/tree.json"
"$LEVERSIM" trace record --dataset mt-bench --model llama-3.1-8b --prompts 1 --out "$out/trace.txt"

# write_model DIR LAYERS WIDTH SEED NAME: a random-weight GGUF of llama-3.2-1b's shape scaled,
# and its shape file for the simulator (named by its id); prints the id.
write_model() {
  local dir=$1 layers=$2 width=$3 seed=$4 name=$5
  "$LEVERSIM" testbed model --model llama-3.2-1b --layers "$layers" --width "$width" --seed "$seed" \
    --out "$dir/$name.gguf" --yaml "$dir/$name.yaml.tmp" >&2
  local id
  id=$(sed -n 's/^id: //p' "$dir/$name.yaml.tmp")
  mv "$dir/$name.yaml.tmp" "$dir/$id.yaml"
  echo "$id"
}

# one_config NAME LAYERS WIDTH THREADS DRAFT_LAYERS STEP_CTX SPEC_K REPS MAX_N TG ROWS SPEC_TOKENS
one_config() {
  local name=$1 layers=$2 width=$3 threads=$4 dl=$5 step=$6 k=$7 reps=$8 max_n=$9 tg=${10} rows=${11} spec=${12}
  local d=$out/$name
  rm -rf "$d" && mkdir -p "$d"
  echo "== $name: $layers layers at width $width, $threads thread(s), draft $dl layers, step context $step" >&2
  local tid did
  tid=$(write_model "$d" "$layers" "$width" 1 target)
  did=$(write_model "$d" "$dl" 1024 2 draft)
  "${prio[@]}" "$LEVERSIM" testbed measure --lib "$lib" --target "$d/target.gguf" --model "$d/$tid.yaml" \
    --db "$d/testbed.db" --csv "$d/warm.csv" --draft "$d/draft.gguf" --draft-model "$d/$did.yaml" \
    --trace "$out/trace.txt" --tree "$out/tree.json" --threads "$threads" --reps "$reps" --max-n "$max_n" \
    --tg "$tg" --rows "$rows" --spec-tokens "$spec" --spec-k "$k" --step-ctx "$step" --no-repack --no-busy \
    > "$d/measure.txt"
  "${prio[@]}" fio --filename="$d/target.gguf" --readonly --direct=1 --invalidate=1 --rw=randread --ioengine=libaio \
    --runtime=1 --time_based --stonewall --output-format=json --name=bs4k-qd1 --bs=4k --iodepth=1 \
    --name=bs128k-qd1 --bs=128k --iodepth=1 --name=bs512k-qd8 --bs=512k --iodepth=8 \
    --name=bs512k-qd32 --bs=512k --iodepth=32 > "$d/fio-direct1.json"
  "${prio[@]}" fio --filename="$d/target.gguf" --readonly --direct=0 --invalidate=1 --rw=read --ioengine=mmap \
    --bs=8m --stonewall --clat_percentiles=0 --output-format=json --name=mmap-seq-1 --name=mmap-seq-2 \
    > "$d/fio-mmap.json"
  # Calibrate and validate (predict-config.sh); a refused calibration is a missed configuration.
  bash "$here/predict-config.sh" "$d" "$name" "$tid"
}

points=()
while read -r name rest; do
  [ -z "${TB_ONLY:-}" ] || [ "$name" = "$TB_ONLY" ] || continue
  # shellcheck disable=SC2086 # the protocol's numbers, one word each
  one_config "$name" $rest
  points+=("$out/$name/points.tsv")
done <<< "$list"
set +e
"$LEVERSIM" testbed verdict --protocol "$proto" --points "${points[@]}" > "$out/verdict.txt"
st=$?
set -e
[ $st -eq 0 ] || [ $st -eq 2 ] || { cat "$out/verdict.txt"; exit $st; }
if [ -z "${TB_ONLY:-}" ]; then
  rec=results/testbed/protocol-runs.md
  printf '| %s | %s | %s (%s) | %s | %s | %s |\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$pid" \
    "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" "$frozen" \
    "$load_before" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(tail -n 1 "$out/verdict.txt")" >> "$rec"
  echo "protocol.sh: the run is recorded in $rec (commit it: every run is published)" >&2
fi
cat "$out/verdict.txt"
exit $st
