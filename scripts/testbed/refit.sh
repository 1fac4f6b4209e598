#!/usr/bin/env bash
# scripts/testbed/refit.sh RUN_DIR OUT_DIR [VALIDATE OPTIONS...]: refits a published testbed run
# with this checkout's models and validates it again, as publish.sh fitted it when the run was
# published: the base profile with the head's rates from the run's rows passes
# (head-profile.sh), the layers' kernel form from its warm rows (kernel-form.sh), the CPU and
# flash calibration (`leversim calibrate`, the CPU alone when the flash fit is refused, as
# run.sh does), then `leversim testbed validate` on a copy of its database. Used when a model
# of the CPU changes after a run was published (docs/VALIDATION.md §3.17): the published files
# keep the numbers of their day; OUT_DIR gets today's. Only calibration inputs are read (the
# rows passes, the warm rows, fio); held-out passes are only predicted.
# Writes into OUT_DIR (created; must not be RUN_DIR): testbed.db (the copy), base-profile.yaml,
# kernel-form.txt, testbed-vm.yaml, calibrate.txt, validate.txt. Run from anywhere; paths in
# the database are the repository's. Environment: LEVERSIM (default build/leversim).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 2 ] || { echo "usage: refit.sh RUN_DIR OUT_DIR [VALIDATE OPTIONS...]" >&2; exit 64; }
run=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
shift 2
[ "$run" != "$out" ] || { echo "refit.sh: OUT_DIR is RUN_DIR; the published files stay as they are" >&2; exit 64; }
for f in testbed.db warm.csv fio-direct1.json fio-mmap.json; do
  [ -f "$run/$f" ] || { echo "refit.sh: $run/$f: missing (not a published testbed run)" >&2; exit 66; }
done
LEVERSIM=${LEVERSIM:-$top/build/leversim}
case $LEVERSIM in /*) ;; *) LEVERSIM=$PWD/$LEVERSIM ;; esac
export LEVERSIM
cd "$top"
# a run inside the checkout is named by its repository path, as publish.sh names it
case $run in "$top"/*) run=${run#"$top"/} ;; esac
cp "$run/testbed.db" "$out/testbed.db"
bash scripts/testbed/head-profile.sh "$out/testbed.db" "$out/base-profile.yaml" 2>/dev/null
bash scripts/testbed/kernel-form.sh "$out/base-profile.yaml" "$run/warm.csv" > "$out/kernel-form.txt"
bash scripts/testbed/fit-profile.sh "$out/base-profile.yaml" "$run/warm.csv" "$run/fio-direct1.json" \
  "$out/testbed-vm.yaml" > "$out/calibrate.txt" 2>&1 || { cat "$out/calibrate.txt" >&2; exit 65; }
# --io-share measured: the busy share as the published runs had it (off by default since issue
# 32); options given after it win.
"$LEVERSIM" testbed validate --db "$out/testbed.db" --profile "$out/testbed-vm.yaml" --fio-mmap "$run/fio-mmap.json" \
  --io-share measured "$@" > "$out/validate.txt"
