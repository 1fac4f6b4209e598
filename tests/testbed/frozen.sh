#!/usr/bin/env bash
# ctest testbed.frozen: scripts/testbed/frozen.sh judges each protocol file by its own
# registration (docs/VALIDATION.md §0.1). In a throwaway repository: a protocol file not
# committed is no run; committed with the code, its code is frozen; a model change committed
# after it makes its runs "code changed", while a second protocol registered after that change
# is frozen at its own commit; an uncommitted change to a model file or to the protocol file
# itself is caught too; a change outside the model's folders (docs) is not; a third protocol
# registered after a second change is frozen at its own commit; a fourth committed with its
# "registered at" line pending is no run until that line is filled in a commit of its own (then
# frozen at that commit); protocol.sh's default is the newest protocol file.
# Usage: frozen.sh TOP
set -euo pipefail
top=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "frozen: $*" >&2; exit 1; }
cd "$tmp"
git init -q .
git config user.email t@example.org
git config user.name test
mkdir -p devices docs runner/testbed scripts/testbed
echo 'a = 1' > devices/cpu.c
echo 'id: protocol-1' > runner/testbed/p1.yaml
cp "$top/scripts/testbed/frozen.sh" scripts/testbed/
f() { bash scripts/testbed/frozen.sh "$1"; }
expect() { # protocol, the line's start
  local got; got=$(f "$1")
  case $got in "$2"*) ;; *) fail "$1: '$got', want '$2...'" ;; esac
}
expect runner/testbed/p1.yaml "protocol file not committed"
git add -A && git commit -qm register-1
r1=$(git log -1 --format=%h)
expect runner/testbed/p1.yaml "code frozen at $r1"
echo 'notes' > docs/x.md && git add -A && git commit -qm docs
expect runner/testbed/p1.yaml "code frozen at $r1"
echo 'a = 2' > devices/cpu.c && git add -A && git commit -qm model
expect runner/testbed/p1.yaml "code changed since $r1"
echo 'id: protocol-2' > runner/testbed/p2.yaml && git add -A && git commit -qm register-2
r2=$(git log -1 --format=%h)
expect runner/testbed/p2.yaml "code frozen at $r2"
expect runner/testbed/p1.yaml "code changed since $r1"
echo 'a = 3' > devices/cpu.c
expect runner/testbed/p2.yaml "code changed since $r2"
git checkout -q devices/cpu.c
echo 'id: protocol-2 # edited' > runner/testbed/p2.yaml
expect runner/testbed/p2.yaml "protocol file changed since $r2"
git checkout -q runner/testbed/p2.yaml
# A third protocol after a second model change (protocol-3's case): each file keeps its own.
echo 'a = 4' > devices/cpu.c && git add -A && git commit -qm model-2
echo 'id: protocol-3' > runner/testbed/p3.yaml && git add -A && git commit -qm register-3
r3=$(git log -1 --format=%h)
expect runner/testbed/p3.yaml "code frozen at $r3"
expect runner/testbed/p2.yaml "code changed since $r2"
expect runner/testbed/p1.yaml "code changed since $r1"
# A fourth written and committed but not registered (protocol-4's case): no run until the line is filled.
printf '# registered at: pending\nid: protocol-4\n' > runner/testbed/p4.yaml && git add -A && git commit -qm write-4
expect runner/testbed/p4.yaml "protocol file not registered"
printf '# registered at: 2026-11-28, after the merge\nid: protocol-4\n' > runner/testbed/p4.yaml
expect runner/testbed/p4.yaml "protocol file changed since"
git add -A && git commit -qm register-4
r4=$(git log -1 --format=%h)
expect runner/testbed/p4.yaml "code frozen at $r4"
# make testbed's default (scripts/testbed/protocol.sh) is the newest protocol file of the tree.
newest=$(grep -l '^id: protocol-' "$top"/runner/testbed/protocol*.yaml | while read -r p; do
  echo "$(sed -n 's/^id: protocol-//p' "$p") ${p#"$top"/}"; done | sort -n | tail -1 | cut -d' ' -f2)
grep -qF "proto=\${1:-$newest}" "$top/scripts/testbed/protocol.sh" ||
  fail "scripts/testbed/protocol.sh's default is not the newest protocol, $newest"
echo "frozen: each protocol file judged by its own registration"
