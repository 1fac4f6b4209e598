#!/usr/bin/env bash
# scripts/testbed/fit-profile.sh BASE WARM_CSV FIO_JSON OUT [CALIBRATE ARGS...]: the testbed
# profile's calibration, one place for run.sh, publish.sh and refit.sh. `leversim calibrate`
# fits the CPU to the warm rows and the flash to fio, with cpu.max_bandwidth held (one thread
# cannot reach it). calibrate refuses a fit its model does not explain (exit 65,
# docs/STATISTICS.md), and this VM's fio often is not (docs/VALIDATION.md §3.2): then the CPU is
# fitted alone and the flash numbers stay the base's. The cold predictions do not use fio's
# rate anyway; they read at the stream measurement's. The report goes to standard output.
# The kernel's form is the base's (--cpu-form base): kernel-form.sh has already chosen it among
# five, the roofline one of them.
# Exit: calibrate's (65 only when the CPU fit is refused too).
# Environment: LEVERSIM (default build/leversim).
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: fit-profile.sh BASE WARM_CSV FIO_JSON OUT [CALIBRATE ARGS...]" >&2; exit 64; }
base=$1; warm=$2; fio=$3; out=$4; shift 4
LEVERSIM=${LEVERSIM:-build/leversim}
set +e
"$LEVERSIM" calibrate --base "$base" --only cpu,flash --fix max_bandwidth --cpu-form base --llama-bench "$warm" --fio "$fio" "$@" \
  --out "$out"
st=$?
set -e
if [ $st -eq 65 ]; then
  echo "fit-profile.sh: the flash fit was refused; calibrating the CPU alone" >&2
  "$LEVERSIM" calibrate --base "$base" --only cpu --fix max_bandwidth --cpu-form base --llama-bench "$warm" "$@" \
    --out "$out"
  exit $?
fi
exit $st
