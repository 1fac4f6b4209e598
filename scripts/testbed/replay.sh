#!/usr/bin/env bash
# scripts/testbed/replay.sh RUN_DIR OUT_DIR [PROTOCOL.yaml]: a published protocol run
# (results/testbed/protocol-N/run-*/, one folder per configuration) calibrated and validated
# again with this build and these scripts, from its stored measurements alone: for each
# configuration, protocol.sh's steps after the measuring (predict-config.sh: head-profile.sh,
# kernel-form.sh, fit-profile.sh, `testbed validate --points`), then `testbed verdict`, whose last line is this
# script's last line. No llama.cpp runs. What a model change does to a stored run is shown this
# way (docs/VALIDATION.md §0.6); a replay is development, never a run of a protocol.
# Each configuration's database names its model files by the path protocol.sh wrote them at
# (build/testbed/protocol/NAME/ for protocol-1, build/testbed/<id>/NAME/ for the others), so
# they are copied there under OUT_DIR, which is made fresh
# (it must not exist, or hold only an earlier replay: replay.txt marks it).
# PROTOCOL.yaml (default runner/testbed/protocol.yaml, protocol-1) gives the targets.
# Outputs under OUT_DIR: build/testbed/<protocol>/NAME/ (profiles, kernel-form.txt, calibrate.txt,
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
out=$(bash "$here/fresh-dir.sh" "$2" replay.txt replay.sh "replay of $run") || exit 64
cd "$out"
points=()
for src in "$run"/*/; do
  [ -f "$src/testbed.db" ] || continue
  name=$(basename "$src")
  # The folder the run wrote it in, as its database names its target's file: protocol-1's
  # build/testbed/protocol/NAME/, any other protocol's build/testbed/<id>/NAME/. Taken only
  # when it is that shape (a relative path inside build/testbed, no "..").
  mid=$(sqlite3 "$src/testbed.db" 'select model_id from tb_run limit 1')
  d=$(dirname "$mid")
  case "$d" in
    */../* | ../* | */..) d= ;;
    build/testbed/*/"$name") ;;
    *) d= ;;
  esac
  [ -n "$d" ] || { echo "replay.sh: $src/testbed.db: its target '$mid' is not under build/testbed/<protocol>/$name/" >&2; exit 66; }
  mkdir -p "$d"
  cp "$src"/testbed.db "$src"/warm.csv "$src"/fio-direct1.json "$src"/fio-mmap.json "$src"/*.yaml "$d/"
  rm -f "$d"/base-profile*.yaml "$d"/kernel-*.yaml "$d"/testbed-vm.yaml
  tid=$(basename "$(sqlite3 "$d/testbed.db" 'select model_id from tb_run limit 1')" .yaml)
  bash "$here/predict-config.sh" "$d" "$name" "$tid" 2> "$d/predict.txt"
  points+=("$d/points.tsv")
done
[ ${#points[@]} -gt 0 ] || { echo "replay.sh: $run holds no configuration (NAME/testbed.db)" >&2; exit 66; }
set +e
"$LEVERSIM" testbed verdict --protocol "$proto" --points "${points[@]}" > verdict.txt
st=$?
set -e
tail -n 1 verdict.txt
exit $st
