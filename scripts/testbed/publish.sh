#!/usr/bin/env bash
# scripts/testbed/publish.sh [RUN_DIR [DEST]]: copies a full testbed run (default build/testbed/full)
# into DEST (default results/testbed/; committed: the database, the warm rows, fio, the tree), then refits the
# base profile with the head's rate (base-profile.yaml, from the copied rows passes) and the layers'
# kernel form (kernel-form.txt, scripts/testbed/kernel-form.sh),
# profile and redraws the validation from those copies, so every file names only repository
# paths. The refit is the same deterministic fit as the run's.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
run=${1:-build/testbed/full}
dst=${2:-results/testbed}
LEVERSIM=${LEVERSIM:-$top/build/leversim}
mkdir -p "$dst"
for f in testbed.db warm.csv fio-direct1.json fio-mmap.json tree.json; do cp "$run/$f" "$dst/$f"; done
# fio records the file it read as given; keep only its name (a run started elsewhere gave a
# machine's absolute path).
sed -i 's|"filename" : ".*/\([^/"]*\)"|"filename" : "\1"|' "$dst/fio-direct1.json" "$dst/fio-mmap.json"
# The models' shapes the simulator costs them by travel with the database, and the database
# names files by repository paths only.
draft_yaml=$(sqlite3 "$dst/testbed.db" "SELECT draft_model FROM tb_run ORDER BY created DESC LIMIT 1")
if [ -n "$draft_yaml" ]; then
  base=$(basename "$draft_yaml")
  cp "$run/$base" "$dst/$base"
  sqlite3 "$dst/testbed.db" "UPDATE tb_run SET draft_model = '$dst/$base'"
fi
sqlite3 "$dst/testbed.db" "DELETE FROM tb_prediction" # the run's own validations named its folders
sqlite3 "$dst/testbed.db" "UPDATE tb_run SET target = replace(target, rtrim(target, replace(target, '/', '')), ''),
  draft = replace(draft, rtrim(draft, replace(draft, '/', '')), '')"
# The base profile with the head's rate from the copied database's rows passes (as run.sh).
LEVERSIM=$LEVERSIM bash scripts/testbed/head-profile.sh "$dst/testbed.db" "$dst/base-profile.yaml"
# The layers' kernel form chosen from the copied warm rows (as run.sh); the fits' files are not kept.
LEVERSIM=$LEVERSIM bash scripts/testbed/kernel-form.sh "$dst/base-profile.yaml" "$dst/warm.csv" > "$dst/kernel-form.txt"
rm -f "$dst"/base-profile-groups.yaml "$dst"/base-profile-onepass.yaml "$dst"/kernel-groups.* "$dst"/kernel-onepass.*
# The calibration as run.sh makes it (the CPU alone when the flash fit is refused).
LEVERSIM=$LEVERSIM bash scripts/testbed/fit-profile.sh "$dst/base-profile.yaml" "$dst/warm.csv" \
  "$dst/fio-direct1.json" "$dst/testbed-vm.yaml" > "$dst/calibrate.txt"
# Validate stores its predictions in the database, replacing the run's earlier ones: the
# default's, with the figure, go last, so the committed tb_prediction and tb_error are the
# default's. Before it: the serial bound, the storage measurements at their own fastest
# (the default until 2026-11-27), and the share slowing every read (the rule before
# docs/VALIDATION.md §3.18).
"$LEVERSIM" testbed validate --db "$dst/testbed.db" --profile "$dst/testbed-vm.yaml" --fio-mmap "$dst/fio-mmap.json" \
  --mode serial > "$dst/validate-serial.txt"
"$LEVERSIM" testbed validate --db "$dst/testbed.db" --profile "$dst/testbed-vm.yaml" --fio-mmap "$dst/fio-mmap.json" \
  --stat fastest > "$dst/validate-fastest.txt"
"$LEVERSIM" testbed validate --db "$dst/testbed.db" --profile "$dst/testbed-vm.yaml" --fio-mmap "$dst/fio-mmap.json" \
  --io-rule every > "$dst/validate-every.txt"
"$LEVERSIM" testbed validate --db "$dst/testbed.db" --profile "$dst/testbed-vm.yaml" --fio-mmap "$dst/fio-mmap.json" \
  --plot "$dst" > "$dst/validate.txt"
rm -f "$dst/testbed-validation.dat" "$dst/testbed-validation.gp"
sqlite3 "$dst/testbed.db" "VACUUM"
cat "$dst/validate.txt"
