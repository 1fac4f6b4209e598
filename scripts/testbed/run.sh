#!/usr/bin/env bash
# scripts/testbed/run.sh [full|small]: the whole sim-to-real check (docs/VALIDATION.md):
# fetch the pinned llama.cpp, write the random-weight models, measure (warm, cold, tree,
# speculative, repacked), run fio on the same file system, calibrate a profile of this machine
# from the warm rows and fio only (the head's own rates from its rows passes), then predict every
# held-out measurement and print the error table. `make testbed` runs `full` (about 15 minutes on 2 cores); CI runs `small`.
# Outputs: build/testbed/<config>/ (models, testbed.db, warm.csv, fio-*.json, the profile,
# testbed-validation.png). Environment: BUILD (default build), LEVERSIM (default
# $BUILD/leversim), TB_OUT (default $BUILD/testbed/<config>).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
config=${1:-full}
# Paths are kept relative to the checkout, so the files written (a profile's `calibrated:`
# comments, the database) name no machine's folders.
cd "$top"
BUILD=${BUILD:-build}
LEVERSIM=${LEVERSIM:-$top/$BUILD/leversim}
out=${TB_OUT:-$BUILD/testbed/$config}
mkdir -p "$out"
case $config in
  full)  layers=0; width=0; reps=3; max_n=128; fio_s=3; spec=48 ;;   # llama-3.2-1b as published: 16 layers, 763 MB
  small) layers=8; width=1024; reps=2; max_n=32; fio_s=1; spec=16 ;; # 8 layers at width 1024: 180 MB
  *) echo "run.sh: unknown configuration '$config' (full, small)" >&2; exit 64 ;;
esac
set +e
lib=$(bash "$here/prereq.sh" "$BUILD")
st=$?
set -e
[ $st -eq 0 ] || exit $st

target=$out/Llama-3.2-1B-testbed-Q4_0.gguf
draft=$out/draft-2l-1024.gguf
echo "== models"
target_yaml=$out/llama-3.2-1b-tb${layers}l${width}w.yaml
draft_yaml=$out/llama-3.2-1b-tb2l1024w.yaml
# A model is (re)written when its file or the shape file the simulator costs it by is missing
# (the full target is costed as the published llama-3.2-1b, so it needs none).
[ -f "$target" ] && { [ "$layers" = 0 ] || [ -f "$target_yaml" ]; } ||
  "$LEVERSIM" testbed model --model llama-3.2-1b --layers "$layers" --width "$width" \
    --out "$target" --yaml "$out/target.yaml.tmp"
[ -f "$draft" ] && [ -f "$draft_yaml" ] ||
  "$LEVERSIM" testbed model --model llama-3.2-1b --layers 2 --width 1024 --seed 2 \
    --out "$draft" --yaml "$out/draft.yaml.tmp"
# A model file's name is its id (workloads/model.h).
for m in target draft; do
  if [ -f "$out/$m.yaml.tmp" ]; then mv "$out/$m.yaml.tmp" "$out/$(sed -n 's/^id: //p' "$out/$m.yaml.tmp").yaml"; fi
done
# The verification tree: Lever's own, on the phone where its tree has branches and depth.
"$LEVERSIM" tree --policy lever --json --device honor-500-pro --model llama-3.1-8b > "$out/tree.json"
# Acceptance along a real text: the token oracle's trace (one MT-Bench prompt, EAGLE-3 pair).
"$LEVERSIM" trace record --dataset mt-bench --model llama-3.1-8b --prompts 1 --out "$out/trace.txt"

# Measurements run at the highest priority when allowed (root): other processes on a shared
# machine then wait for the measured thread, not the other way round. Time spent waiting for a
# core is taken out of every pass anyway (runner/testbed/llamadrv.h); fio cannot do that.
prio=()
[ "$(id -u)" -ne 0 ] || prio=(nice -n -20)

# This VM's free page reporting, held back while the run measures (page-reporting.sh).
# shellcheck source=scripts/testbed/page-reporting.sh
. "$here/page-reporting.sh" run.sh

echo "== measure"
if [ -n "${TB_REUSE:-}" ] && [ -f "$out/testbed.db" ]; then echo "(reusing $out/testbed.db: TB_REUSE is set)"; else
rm -f "$out/testbed.db"
model=llama-3.2-1b
[ "$layers" = 0 ] || model=$target_yaml
"${prio[@]}" "$LEVERSIM" testbed measure --lib "$lib" --target "$target" --model "$model" --db "$out/testbed.db" \
  --csv "$out/warm.csv" --draft "$draft" --draft-model "$draft_yaml" --trace "$out/trace.txt" \
  --tree "$out/tree.json" --reps "$reps" --max-n "$max_n" --spec-tokens "$spec"
fi

echo "== fio (the model file itself, read-only: the same file system and the same host caching)"
# The README's direct jobs (the link), and reads as llama.cpp's mapping does them: a cold
# mapped file front to back in read-ahead windows (ioengine=mmap, bs = the 8 MiB window, three
# times); the latter give the kernel CPU time per byte mapped in (docs/VALIDATION.md).
"${prio[@]}" fio --filename="$target" --readonly --direct=1 --invalidate=1 --rw=randread --ioengine=libaio \
  --runtime=$fio_s --time_based --stonewall --output-format=json \
  --name=bs4k-qd1 --bs=4k --iodepth=1 --name=bs128k-qd1 --bs=128k --iodepth=1 \
  --name=bs512k-qd8 --bs=512k --iodepth=8 --name=bs512k-qd32 --bs=512k --iodepth=32 > "$out/fio-direct1.json"
"${prio[@]}" fio --filename="$target" --readonly --direct=0 --invalidate=1 --rw=read --ioengine=mmap --bs=8m \
  --stonewall --clat_percentiles=0 --output-format=json --name=mmap-seq-1 --name=mmap-seq-2 --name=mmap-seq-3 \
  > "$out/fio-mmap.json"

echo "== the head's rates (rows passes: calibration inputs, docs/VALIDATION.md §3.5-3.6)"
LEVERSIM=$LEVERSIM bash "$here/head-profile.sh" "$out/testbed.db" "$out/base-profile.yaml"

calib_model=()
if [ "$layers" != 0 ]; then
  # A scaled shape is no workloads/models id: calibrate reads models from a data root that
  # adds it beside the shipped ones (LEVERSIM_DATA).
  id=$(sed -n 's/^id: //p' "$target_yaml")
  rm -rf "$out/data" && mkdir -p "$out/data/workloads/models"
  ln -s "$top/devices" "$out/data/devices"
  ln -s "$top/runner" "$out/data/runner"
  for f in "$top"/workloads/models/*.yaml; do ln -s "$f" "$out/data/workloads/models/"; done
  cp "$target_yaml" "$out/data/workloads/models/$id.yaml"
  export LEVERSIM_DATA=$out/data
  calib_model=(--model "$id")
fi

echo "== the layers' blocked kernel (warm rows only: docs/VALIDATION.md §3.12)"
LEVERSIM=$LEVERSIM bash "$here/kernel-form.sh" "$out/base-profile.yaml" "$out/warm.csv" "${calib_model[@]}"

echo "== calibrate (warm rows and fio only)"
LEVERSIM=$LEVERSIM bash "$here/fit-profile.sh" "$out/base-profile.yaml" "$out/warm.csv" "$out/fio-direct1.json" \
  "$out/testbed-vm.yaml" "${calib_model[@]}" --plot "$out"

echo "== validate (held-out points)"
"$LEVERSIM" testbed validate --db "$out/testbed.db" --profile "$out/testbed-vm.yaml" --fio-mmap "$out/fio-mmap.json" \
  --plot "$out"
