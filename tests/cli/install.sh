#!/usr/bin/env bash
# `make install PREFIX=...` in a temporary prefix: the binary runs from there (on the installed
# data root), its man page renders, the bash completion completes, and the example plug-in
# builds against the installed policy header and passes `policy check`.
# Usage: install.sh BUILD_DIR
set -euo pipefail
build=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ls_install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install: $*"; exit 1; }
cmake --install "$build" --prefix "$tmp/p" > "$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install failed"; }
p=$tmp/p
[ -x "$p/bin/leversim" ] || fail "no bin/leversim"
"$p/bin/leversim" --version | grep -q '^leversim ' || fail "--version"
LEVERSIM_DATA=$p/share/leversim "$p/bin/leversim" profiles list | grep -q oneplus-12 || fail "the installed data root"
man1=$(find "$p" -name leversim.1 | head -1)
[ -n "$man1" ] || fail "no man page"
grep -q '^\.TH LEVERSIM 1' "$man1" || fail "man page header"
grep -q '^\.SS "leversim policy check"' "$man1" || fail "man page lacks a command"
if command -v groff >/dev/null; then groff -man -Tutf8 "$man1" 2>"$tmp/groff.err" | grep -q 'conformance tests' || fail "man page does not render"; fi
comp=$p/share/bash-completion/completions/leversim
bash -n "$comp" || fail "completion syntax"
got=$(bash -c 'source "$1"; COMP_WORDS=(leversim plot --db x --pa); COMP_CWORD=4; _leversim; echo "${COMPREPLY[*]}"' _ "$comp")
[ "$got" = "--panel" ] || fail "completion of 'plot --pa': '$got'"
got=$(bash -c 'source "$1"; COMP_WORDS=(leversim policy ch); COMP_CWORD=2; _leversim; echo "${COMPREPLY[*]}"' _ "$comp")
[ "$got" = "check" ] || fail "completion of 'policy ch': '$got'"
[ -f "$p/include/leversim/policies/policy.h" ] || fail "no installed policy.h"
cp -R "$p/share/leversim/examples/policy-greedy" "$tmp/greedy"
make -s -C "$tmp/greedy" LEVERSIM_INCLUDE="$p/include/leversim" > "$tmp/make.log" 2>&1 || { cat "$tmp/make.log"; fail "the example does not build against the installed header"; }
"$p/bin/leversim" policy check "$tmp/greedy/libgreedy.so" --cycles 5 > "$tmp/check.log" || { cat "$tmp/check.log"; fail "policy check"; }
echo "install: binary, data root, man page, completion, header and example plug-in all work from $p"
