#!/bin/sh
# tests/adversarial/doc_sync.sh [--full] [LEVERSIM]: docs/BAD_INPUTS.md must be what
# tests/fuzz/bad_inputs.sh prints today:
#   - the sections before "Runs, sweeps and results databases" (the prose and the rows of
#     profiles, models, settings, experiments, traces: each well under a second) are made
#     again (bad_inputs.sh --quick) and must match the file line for line, every column, so a
#     message that changed (a key list that gained a key, as row 32's `host`) fails here;
#   - the "Adversarial table" section must list exactly the cases of
#     tests/adversarial/cases.sh, with the same commands (exit statuses are asserted by
#     adversarial.cases; messages hold run-specific text: times, free space). The table is
#     listed (run.sh --list), not run a second time;
#   - --full (ctest adversarial.doc_full, labelled long: its sweeps take half a minute idle)
#     makes the whole file again and compares every line, the adversarial rows' messages and
#     the rows of sweeps interrupted by signals and limits included: both scripts write what
#     varies from run to run (times, counts, free space) as N, so the file comes out the same
#     on a loaded machine.
# Regenerate with
#   tests/fuzz/bad_inputs.sh build/leversim > docs/BAD_INPUTS.md
set -u
FULL=0
[ "${1:-}" = --full ] && FULL=1 && shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-$ROOT/build/leversim}
DOC=$ROOT/docs/BAD_INPUTS.md
W=$(mktemp -d "${TMPDIR:-/tmp}/leversim-docsync-XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
fail=0
# differ WHAT DOC-PART MADE: prints the difference and marks the check failed
differ() {
  if ! diff "$2" "$3" > "$W/diff"; then
    echo "docs/BAD_INPUTS.md differs from $1 (< doc, > made now):"
    head -40 "$W/diff"
    fail=1
  fi
}
if [ $FULL = 1 ]; then
  sh "$ROOT/tests/fuzz/bad_inputs.sh" "$BIN" > "$W/made" || fail=1
  differ "tests/fuzz/bad_inputs.sh" "$DOC" "$W/made"
else
  sh "$ROOT/tests/fuzz/bad_inputs.sh" --quick "$BIN" > "$W/quick" || fail=1
  head -n "$(wc -l < "$W/quick")" "$DOC" > "$W/doc.quick"
  differ "tests/fuzz/bad_inputs.sh --quick" "$W/doc.quick" "$W/quick"
  sh "$ROOT/tests/adversarial/run.sh" --list "$BIN" | grep '^| A' | cut -d'|' -f2-4 > "$W/table"
  sed -n '/^## Adversarial table/,$p' "$DOC" | grep '^| A' | cut -d'|' -f2-4 > "$W/doc"
  differ "tests/adversarial/cases.sh" "$W/doc" "$W/table"
fi
if [ $fail = 1 ]; then
  echo "regenerate: tests/fuzz/bad_inputs.sh build/leversim > docs/BAD_INPUTS.md"
  exit 1
fi
if [ $FULL = 1 ]; then
  echo "doc_sync: all $(grep -c '^| ' "$W/made") rows and the prose match"
else
  echo "doc_sync: $(grep -c '^| [0-9]' "$W/quick") rows and the prose before the runs section, $(wc -l < "$W/table") adversarial rows match"
fi
