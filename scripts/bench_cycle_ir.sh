#!/usr/bin/env bash
# scripts/bench_cycle_ir.sh BIN [SYSTEM ...]: instructions per simulated decode cycle of a leversim
# binary, counted by callgrind (docs/PERFORMANCE.md, "Method": the count issue 33's per-cycle
# targets are judged by, since a cycle's wall time on a shared virtual machine moves by more
# than the differences measured).
#
# For each system (default: ar-flash lever specinfer), BIN runs `run --device oneplus-12 --model
# llama-3.1-8b --dataset gsm8k --system S --prompts P --json` under callgrind at P = SMALL and
# LARGE (default 4 and 32); the count per cycle is (Ir(LARGE) - Ir(SMALL)) / (cycles(LARGE) -
# cycles(SMALL)), the cycles read from the --json output. The difference cancels what a run
# pays once (profiles, tables, the database); what grows with the prompts stays in, the run's
# bootstrap of its intervals included. Instruction counts do not depend on the machine's load,
# so two builds can be compared one after the other.
#
# Output: one line per system, "SYSTEM cycles C1 C2 instructions I1 I2 per-cycle N".
# Environment: LEVERSIM_DATA as for BIN (unset: the data of BIN's own source tree), SMALL, LARGE.
# Exit: 0; 64 usage; 69 valgrind missing; 1 when a run fails or the larger run has no more cycles.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: bench_cycle_ir.sh BIN [SYSTEM ...]" >&2; exit 64; }
bin=$1
shift
systems=${*:-ar-flash lever specinfer}
small=${SMALL:-4}
large=${LARGE:-32}
command -v valgrind >/dev/null || { echo "bench_cycle_ir.sh: valgrind not found" >&2; exit 69; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_cycle_ir.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

count() { # system prompts: "cycles instructions"
  valgrind --tool=callgrind --dump-instr=no --callgrind-out-file="$tmp/cg.out" \
    "$bin" run --device oneplus-12 --model llama-3.1-8b --dataset gsm8k --system "$1" \
    --prompts "$2" --json >"$tmp/run.json" 2>"$tmp/valgrind.err" ||
    { cat "$tmp/valgrind.err" >&2; exit 1; }
  local c i
  c=$(grep -o '"cycles":\({"value":\)\{0,1\}[0-9.e+]*' "$tmp/run.json" | head -1 | grep -o '[0-9.e+]*$')
  i=$(awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.out")
  [ -n "$c" ] && [ -n "$i" ] || { echo "bench_cycle_ir.sh: no cycles or count for $1 at $2 prompts" >&2; exit 1; }
  echo "$c $i"
}

for s in $systems; do
  a=$(count "$s" "$small")
  b=$(count "$s" "$large")
  read -r c1 i1 <<<"$a"
  read -r c2 i2 <<<"$b"
  awk -v s="$s" -v c1="$c1" -v c2="$c2" -v i1="$i1" -v i2="$i2" 'BEGIN {
    if (c2 <= c1) { print "bench_cycle_ir.sh: no more cycles at the larger size" > "/dev/stderr"; exit 1 }
    printf "%s cycles %d %d instructions %.0f %.0f per-cycle %.0f\n", s, c1, c2, i1, i2, (i2 - i1) / (c2 - c1) }'
done
