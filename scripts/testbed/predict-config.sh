#!/usr/bin/env bash
# scripts/testbed/predict-config.sh DIR NAME MODEL_ID: one protocol configuration's steps after
# its measuring, shared by protocol.sh (a run) and replay.sh (a published run again). From DIR's
# testbed.db, warm.csv, fio-direct1.json, fio-mmap.json and MODEL_ID.yaml (the target's shape,
# put into a data root DIR/data here): the base profile with the head's rates
# (head-profile.sh), the layers' kernel form (kernel-form.sh), the calibrated profile
# DIR/testbed-vm.yaml (fit-profile.sh), and the held-out points (`testbed validate --points
# DIR/points.tsv`, its report DIR/validate.txt). A calibration the data refuse is a missed
# configuration, not the end of the run: its points file then holds no point, which `testbed
# verdict` names (runner/testbed/protocol.h); this script says so on standard error and exits 0.
# Exit: validate's when it fails, else 0. Environment: LEVERSIM (required); TB_CONTENTION (off:
# validate without the read path's work beside a compute on every core, `--contention off`, the
# ablation of docs/VALIDATION.md §0.8 that scripts/testbed/insample.sh makes; protocol.sh refuses it).
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: predict-config.sh DIR NAME MODEL_ID" >&2; exit 64; }
d=$1; name=$2; tid=$3
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# A scaled shape is no workloads/models id: calibrate reads it from a data root beside the
# shipped ones (DIR/data: links to this tree's devices, runner and models, and the shape's file).
mkdir -p "$d/data/workloads/models"
ln -s "$top/devices" "$d/data/devices"
ln -s "$top/runner" "$d/data/runner"
for f in "$top"/workloads/models/*.yaml; do ln -s "$f" "$d/data/workloads/models/"; done
cp "$d/$tid.yaml" "$d/data/workloads/models/$tid.yaml"
if ! { bash "$here/head-profile.sh" "$d/testbed.db" "$d/base-profile.yaml" 2> "$d/head-profile.txt" &&
  LEVERSIM_DATA=$d/data bash "$here/kernel-form.sh" "$d/base-profile.yaml" "$d/warm.csv" --model "$tid" \
    > "$d/kernel-form.txt" &&
  LEVERSIM_DATA=$d/data bash "$here/fit-profile.sh" "$d/base-profile.yaml" "$d/warm.csv" "$d/fio-direct1.json" \
    "$d/testbed-vm.yaml" --model "$tid" > "$d/calibrate.txt" 2>&1; }; then
  printf '# leversim testbed points: %s: calibration refused (see its head-profile.txt, kernel-form.txt, calibrate.txt)\n' \
    "$name" > "$d/points.tsv"
  echo "predict-config.sh: $name: calibration refused; no prediction" >&2
  exit 0
fi
"$LEVERSIM" testbed validate --db "$d/testbed.db" --profile "$d/testbed-vm.yaml" --fio-mmap "$d/fio-mmap.json" \
  --points "$d/points.tsv" ${TB_CONTENTION:+--contention "$TB_CONTENTION"} > "$d/validate.txt"
grep -E '^(held-out points|baseline median)' "$d/validate.txt" >&2
