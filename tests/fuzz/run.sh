#!/bin/sh
# tests/fuzz/run.sh [SECONDS] [HARNESS...]: builds the libFuzzer harnesses with clang into
# build-fuzz/ and fuzzes each for SECONDS (default 60), JOBS at a time (default: CPU count).
#
#   harnesses: device model dataset experiment yaml trace (default: all); SECONDS 0 = build only
#   environment: CC (default clang), JOBS, FUZZ_FLAGS (extra libFuzzer flags)
#
# Needs clang with its compiler-rt (libFuzzer + ASan + UBSan; Debian: clang, libclang-rt-14-dev
# or the compiler-rt bundled with clang-14), libyaml-dev and libgsl-dev.
# Before fuzzing, every input kept in tests/fuzz/seeds/<harness>/ (past crashes) is replayed
# once. Working corpora grow in build-fuzz/corpus/<harness>/ (seeded from the shipped data
# files and the broken test fixtures), logs go to build-fuzz/logs/, crash/leak/timeout inputs
# to build-fuzz/artifacts/<harness>/. Exit status: 0 when no harness found anything.
set -eu

SECS=${1:-60}
[ $# -gt 0 ] && shift
HARNESSES=${*:-device model dataset experiment yaml trace}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/build-fuzz
CC=${CC:-clang}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
CFLAGS="-std=c11 -g -O1 -ffp-contract=off -Wall -Wextra -D_POSIX_C_SOURCE=200809L -I$ROOT -I$ROOT/tests/fuzz"
LIBS="$(pkg-config --libs yaml-0.1 gsl sqlite3 2>/dev/null || echo -lyaml -lgsl -lgslcblas -lsqlite3) -lm"

mkdir -p "$OUT/obj" "$OUT/logs"

# ---- build: the readers' folders with coverage instrumentation, then one binary each ----
# Only the folders the readers need (sim, devices, workloads, results for the experiment
# reader's role names, and from runner/ the experiment reader and the system table), so work
# in progress elsewhere cannot break it.
SRCS="$(ls "$ROOT"/sim/*.c "$ROOT"/devices/*.c "$ROOT"/workloads/*.c "$ROOT"/results/*.c) \
$ROOT/runner/study/experiment.c $ROOT/runner/decode/system.c $ROOT/tests/fuzz/fuzz_util.c"
echo "fuzz: building in $OUT" >&2
rm -f "$OUT"/obj/*.o # a full rebuild takes seconds and never mixes stale objects
n=0
for src in $SRCS; do
  obj=$OUT/obj/$(echo "${src#$ROOT/}" | tr / _ | sed 's/\.c$/.o/')
  $CC $CFLAGS $SAN -fsanitize=fuzzer-no-link "-DLS_SOURCE_DIR=\"$ROOT\"" -c "$src" -o "$obj" &
  n=$((n + 1))
  if [ "$n" -ge "$JOBS" ]; then wait; n=0; fi
done
wait
for src in $SRCS; do # wait gives no status per job: check every object exists
  obj=$OUT/obj/$(echo "${src#$ROOT/}" | tr / _ | sed 's/\.c$/.o/')
  [ -f "$obj" ] || { echo "fuzz: failed to compile $src" >&2; exit 1; }
done
OBJS=$(ls "$OUT"/obj/*.o)
for h in $HARNESSES; do
  $CC $CFLAGS $SAN -fsanitize=fuzzer "-DLS_SOURCE_DIR=\"$ROOT\"" "$ROOT/tests/fuzz/fuzz_$h.c" $OBJS $LIBS -o "$OUT/fuzz_$h"
done
[ "$SECS" -gt 0 ] || exit 0 # 0 seconds: build only (libFuzzer would take 0 as "forever")

# ---- corpora: shipped files and fixtures (read only), plus the kept seeds ----
seeds_for() {
  case $1 in
  device) ls "$ROOT"/devices/profiles/*.yaml "$ROOT"/tests/devices/fixtures/*.yaml \
             "$ROOT"/tests/runner/data/devices/profiles/*.yaml ;;
  model) ls "$ROOT"/workloads/models/*.yaml "$ROOT"/tests/runner/data/workloads/models/*.yaml ;;
  dataset) ls "$ROOT"/workloads/datasets/*.yaml "$ROOT"/tests/runner/data/workloads/datasets/*.yaml ;;
  experiment) ls "$ROOT"/runner/experiments/*.yaml ;;
  yaml) ls "$ROOT"/tests/sim/fixtures/*.yaml "$ROOT"/devices/profiles/oneplus-12.yaml \
           "$ROOT"/runner/experiments/*.yaml "$ROOT"/workloads/datasets/mt-bench.yaml ;;
  trace) ls "$ROOT"/workloads/traces/*.trace ;;
  esac 2>/dev/null || true
}
# A dictionary: the keys of the shipped YAML files plus units and trace keywords.
DICT=$OUT/leversim.dict
{
  cat "$ROOT/tests/fuzz/leversim.dict"
  cat "$ROOT"/devices/profiles/*.yaml "$ROOT"/workloads/models/*.yaml "$ROOT"/workloads/datasets/*.yaml \
      "$ROOT"/runner/experiments/*.yaml 2>/dev/null |
    sed -n 's/^[ -]*\([A-Za-z_][A-Za-z0-9_.-]*\):.*/"\1:"/p' | sort -u
} > "$DICT"

status=0
pids=""
running=0
fuzz_one() {
  h=$1
  corpus=$OUT/corpus/$h
  art=$OUT/artifacts/$h/
  log=$OUT/logs/$h.log
  mkdir -p "$corpus" "$art"
  for f in $(seeds_for "$h"); do cp -f "$f" "$corpus/" 2>/dev/null || true; done
  kept=$(ls "$ROOT/tests/fuzz/seeds/$h"/* 2>/dev/null || true)
  maxlen=16384
  [ "$h" = trace ] && maxlen=32768
  : > "$log"
  if [ -n "$kept" ]; then # regression: every kept input once, must not crash
    "$OUT/fuzz_$h" -rss_limit_mb=2048 -timeout=20 $kept >> "$log" 2>&1 || {
      echo "fuzz: $h: a kept seed in tests/fuzz/seeds/$h fails (see $log)" >&2; return 1; }
    cp -f $kept "$corpus/"
  fi
  "$OUT/fuzz_$h" -max_total_time="$SECS" -timeout=20 -rss_limit_mb=2048 -max_len=$maxlen \
    -dict="$DICT" -artifact_prefix="$art" -print_final_stats=1 ${FUZZ_FLAGS:-} \
    "$corpus" >> "$log" 2>&1
}
for h in $HARNESSES; do
  ( if fuzz_one "$h"; then r=0; else r=1; fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/logs/$h.log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$OUT/logs/$h.log" | tail -1)
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$OUT/logs/$h.log" | tail -1)
    echo "fuzz: $h: ${execs:-?} executions, ${rate:-?}/s, $cov, $([ $r = 0 ] && echo ok || echo FINDING: see $OUT/logs/$h.log)"
    exit $r ) &
  pids="$pids $!"
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then
    for p in $pids; do wait "$p" || status=1; done
    pids=""
    running=0
  fi
done
for p in $pids; do wait "$p" || status=1; done
exit $status
