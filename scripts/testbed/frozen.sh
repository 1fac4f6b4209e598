#!/usr/bin/env bash
# scripts/testbed/frozen.sh PROTOCOL.yaml: whether the model's code is the code a protocol froze,
# one line on standard output, for protocol.sh to print and record. Each protocol file freezes
# the model's files (devices/, runner/decode/, runner/testbed/, workloads/, policies/,
# scripts/testbed/) as they were at the last commit that changed that file; a run with any of
# them changed since (committed or not), or with the protocol file itself changed and not
# committed, is "not a run of this protocol". Each protocol is judged by its own file, so
# registering protocol-2 leaves protocol-1 runnable and marks its new runs as made with changed
# code (docs/VALIDATION.md §0.1). A protocol file whose "# registered at:" line says pending was
# written but not registered: no run of it is frozen. Run from the top of the repository. Exit 0 (the line says which).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: frozen.sh PROTOCOL.yaml" >&2; exit 64; }
proto=$1
reg=$(git log -1 --format=%h -- "$proto" 2>/dev/null || true)
if [ -z "$reg" ]; then
  echo "protocol file not committed: not a run of this protocol"
elif grep -q '^# registered at: pending' "$proto"; then
  echo "protocol file not registered (its 'registered at' line says pending): not a run of this protocol"
elif ! git diff --quiet "$reg" -- "$proto" 2>/dev/null; then
  echo "protocol file changed since $reg: not a run of this protocol"
elif ! git diff --quiet "$reg" -- devices runner/decode runner/testbed workloads policies scripts/testbed 2>/dev/null; then
  echo "code changed since $reg: not a run of this protocol"
else
  echo "code frozen at $reg"
fi
