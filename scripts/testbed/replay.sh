#!/usr/bin/env bash
# scripts/testbed/replay.sh RUN_DIR OUT_DIR [PROTOCOL.yaml]: a published protocol run
# (results/testbed/protocol-N/run-*/, one folder per configuration) calibrated and validated
# again with this build and these scripts, from its stored measurements alone: for each
# configuration, protocol.sh's steps after the measuring (head-profile.sh, kernel-form.sh,
# fit-profile.sh, `testbed validate --points`), then `testbed verdict`, whose last line is this
# script's last line. No llama.cpp runs. What a model change does to a stored run is shown this
# way (docs/VALIDATION.md §0.6); a replay is development, never a run of a protocol.
# Each configuration's database names its model files by the path protocol.sh wrote them at
# (build/testbed/protocol/NAME/), so they are copied there under OUT_DIR, which is made fresh
# (it must not exist, or hold only an earlier replay: replay.txt marks it).
# PROTOCOL.yaml (default runner/testbed/protocol.yaml, protocol-1) gives the targets.
# Outputs under OUT_DIR: build/testbed/protocol/NAME/ (profiles, kernel-form.txt, calibrate.txt,
# validate.txt, points.tsv), verdict.txt. Exit: verdict's (0 met, 2 missed), 64 usage, 66 no run.
# Environment: LEVERSIM (default build/leversim).
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 3 ]; then echo "usage: replay.sh RUN_DIR OUT_DIR [PROTOCOL.yaml]" >&2; exit 64; fi
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/scripts/testbed
run=$(cd "$1" && pwd) || exit 66
proto=$(cd "$(dirname "${3:-$top/runner/testbed/protocol.yaml}")" && pwd)/$(basename "${3:-protocol.yaml}")
LEVERSIM=$(cd "$(dirname "${LEVERSIM:-$top/build/leversim}")" && pwd)/$(basename "${LEVERSIM:-leversim}")
export LEVERSIM
if [ -e "$2" ]; then
  if [ ! -f "$2/replay.txt" ] || [ -L "$2" ]; then echo "replay.sh: $2 exists and is no earlier replay" >&2; exit 64; fi
  rm -rf "$2"
fi
mkdir -p "$2"
out=$(cd "$2" && pwd)
echo "replay of $run" > "$out/replay.txt"
cd "$out"
points=()
for src in "$run"/*/; do
  [ -f "$src/testbed.db" ] || continue
  name=$(basename "$src")
  d=build/testbed/protocol/$name
  mkdir -p "$d/data/workloads/models"
  cp "$src"/testbed.db "$src"/warm.csv "$src"/fio-direct1.json "$src"/fio-mmap.json "$src"/*.yaml "$d/"
  rm -f "$d"/base-profile*.yaml "$d"/kernel-*.yaml "$d"/testbed-vm.yaml
  tid=$(basename "$(sqlite3 "$d/testbed.db" 'select model_id from tb_run limit 1')" .yaml)
  ln -s "$top/devices" "$d/data/devices"
  ln -s "$top/runner" "$d/data/runner"
  for f in "$top"/workloads/models/*.yaml; do ln -s "$f" "$d/data/workloads/models/"; done
  cp "$d/$tid.yaml" "$d/data/workloads/models/"
  if ! { bash "$here/head-profile.sh" "$d/testbed.db" "$d/base-profile.yaml" 2> "$d/head-profile.txt" &&
    LEVERSIM_DATA=$d/data bash "$here/kernel-form.sh" "$d/base-profile.yaml" "$d/warm.csv" --model "$tid" \
      > "$d/kernel-form.txt" &&
    LEVERSIM_DATA=$d/data bash "$here/fit-profile.sh" "$d/base-profile.yaml" "$d/warm.csv" "$d/fio-direct1.json" \
      "$d/testbed-vm.yaml" --model "$tid" > "$d/calibrate.txt" 2>&1; }; then
    printf '# leversim testbed points: %s: calibration refused (see its head-profile.txt, kernel-form.txt, calibrate.txt)\n' \
      "$name" > "$d/points.tsv"
    echo "replay.sh: $name: calibration refused; no prediction" >&2
  else
    "$LEVERSIM" testbed validate --db "$d/testbed.db" --profile "$d/testbed-vm.yaml" --fio-mmap "$d/fio-mmap.json" \
      --points "$d/points.tsv" > "$d/validate.txt"
  fi
  points+=("$d/points.tsv")
done
[ ${#points[@]} -gt 0 ] || { echo "replay.sh: $run holds no configuration (NAME/testbed.db)" >&2; exit 66; }
set +e
"$LEVERSIM" testbed verdict --protocol "$proto" --points "${points[@]}" > verdict.txt
st=$?
set -e
tail -n 1 verdict.txt
exit $st
