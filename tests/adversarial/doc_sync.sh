#!/bin/sh
# tests/adversarial/doc_sync.sh [LEVERSIM]: docs/BAD_INPUTS.md's "Adversarial table" section
# must list exactly the cases of tests/adversarial/cases.sh, with the same commands (exit
# statuses are asserted by adversarial.cases; messages hold run-specific text). The table is
# listed (run.sh --list), not run a second time. Regenerate with
#   tests/fuzz/bad_inputs.sh build/leversim > docs/BAD_INPUTS.md
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-$ROOT/build/leversim}
W=$(mktemp -d "${TMPDIR:-/tmp}/leversim-docsync-XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
sh "$ROOT/tests/adversarial/run.sh" --list "$BIN" | grep '^| A' | cut -d'|' -f2-4 > "$W/table"
sed -n '/^## Adversarial table/,$p' "$ROOT/docs/BAD_INPUTS.md" | grep '^| A' | cut -d'|' -f2-4 > "$W/doc"
if ! diff "$W/doc" "$W/table" > "$W/diff"; then
  echo "docs/BAD_INPUTS.md differs from tests/adversarial/cases.sh (< doc, > table):"
  head -40 "$W/diff"
  echo "regenerate: tests/fuzz/bad_inputs.sh build/leversim > docs/BAD_INPUTS.md"
  exit 1
fi
echo "doc_sync: $(wc -l < "$W/table") adversarial rows match"
