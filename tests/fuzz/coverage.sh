#!/bin/sh
# tests/fuzz/coverage.sh [HARNESS...]: line coverage of the readers reached by the corpora in
# build-fuzz/corpus/ (grown by run.sh). Builds each harness with clang source-based coverage
# (no sanitizers) into build-fuzz/cov/, replays its corpus once, and prints llvm-cov's report
# for the files that harness targets.
set -eu
HARNESSES=${*:-device model dataset experiment yaml trace}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/build-fuzz/cov
CC=${CC:-clang}
PROFDATA=${LLVM_PROFDATA:-llvm-profdata}
LLVMCOV=${LLVM_COV:-llvm-cov}
CFLAGS="-std=c11 -g -O1 -ffp-contract=off -D_POSIX_C_SOURCE=200809L -I$ROOT -I$ROOT/tests/fuzz"
LIBS="$(pkg-config --libs yaml-0.1 gsl sqlite3 2>/dev/null || echo -lyaml -lgsl -lgslcblas -lsqlite3) -lm"
SRCS="$(ls "$ROOT"/sim/*.c "$ROOT"/devices/*.c "$ROOT"/workloads/*.c "$ROOT"/results/*.c) $ROOT/runner/study/experiment.c \
$ROOT/runner/decode/system.c $ROOT/tests/fuzz/fuzz_util.c"
mkdir -p "$OUT"
files_for() {
  case $1 in
  device) echo devices/device.c devices/latency.c devices/npu.c ;;
  model) echo workloads/model.c ;;
  dataset) echo workloads/dataset.c workloads/oracle.c ;;
  experiment) echo runner/study/experiment.c ;;
  yaml) echo sim/yaml.c sim/units.c sim/kv.c ;;
  trace) echo workloads/trace.c ;;
  esac
}
for h in $HARNESSES; do
  [ -d "$ROOT/build-fuzz/corpus/$h" ] || { echo "coverage: no corpus for $h (run run.sh first)" >&2; continue; }
  $CC $CFLAGS -fprofile-instr-generate -fcoverage-mapping -fsanitize=fuzzer "-DLS_SOURCE_DIR=\"$ROOT\"" \
    "$ROOT/tests/fuzz/fuzz_$h.c" $SRCS $LIBS -o "$OUT/fuzz_$h"
  rm -f "$OUT/$h".profraw*
  LLVM_PROFILE_FILE="$OUT/$h.profraw" "$OUT/fuzz_$h" -runs=0 -rss_limit_mb=2048 -timeout=20 \
    "$ROOT/build-fuzz/corpus/$h" > "$OUT/$h.log" 2>&1 || true
  "$PROFDATA" merge -sparse "$OUT/$h.profraw" -o "$OUT/$h.profdata"
  echo "== $h"
  files=""
  for f in $(files_for "$h"); do files="$files $ROOT/$f"; done
  # shellcheck disable=SC2086
  "$LLVMCOV" report "$OUT/fuzz_$h" -instr-profile="$OUT/$h.profdata" $files |
    awk 'NR == 1 || /\.c / || /^TOTAL/' | sed "s|$ROOT/||"
done
