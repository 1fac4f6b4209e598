#!/usr/bin/env bash
# tests/docs/run_doc_examples.sh BINARY SRC DOC.md: runs every ```sh block of DOC, in order, in
# one shell, in a temporary folder holding a copy of examples/ (so `make -C examples/...`
# never writes into the checkout) with `leversim` on PATH (BINARY). A block fails the test
# when a command in it fails (set -e, pipefail). A block whose first line is
# "# needs: CMD" is skipped, saying so, when CMD is not available (e.g. python3 with pandas).
# A ```c block must be an excerpt, word for word, of a file under examples/ (the doc quotes the
# code that the sh blocks build and run).
set -u
bin=$1 src=$2 doc=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ls_docex.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" && ln -s "$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" "$tmp/bin/leversim"
cp -R "$src/examples" "$tmp/examples" && rm -f "$tmp"/examples/*/*.so
# the public policy header and what it includes, where examples/*/Makefile looks by default
# (../..): a plug-in must build from these alone
for h in policies/policy.h sim/error.h sim/kv.h sim/units.h workloads/view.h; do
  mkdir -p "$tmp/$(dirname "$h")" && cp "$src/$h" "$tmp/$h"
done
export PATH="$tmp/bin:$PATH" LEVERSIM_DATA="$src"
n=0 ran=0 skipped=0
script="$tmp/blocks.sh"
printf 'set -eo pipefail\ncd %q\n' "$tmp" > "$script"
in=0 block="" first="" excerpts=0
quote_of_example() { # BLOCK: 0 when it occurs in a file of examples/
  local f
  for f in "$src"/examples/*/*.c "$src"/examples/*/Makefile; do
    [[ "$(cat "$f")"$'\n' == *"$1"* ]] && return 0
  done
  return 1
}
while IFS= read -r line || [ -n "$line" ]; do
  if [ $in -eq 0 ] && [ "$line" = '```sh' ]; then in=1 block="" first=""; continue; fi
  if [ $in -eq 0 ] && [ "$line" = '```c' ]; then in=2 block=""; continue; fi
  if [ $in -eq 2 ] && [ "$line" = '```' ]; then
    in=0 excerpts=$((excerpts + 1))
    quote_of_example "$block" || { echo "$doc: a \`\`\`c block is not an excerpt of examples/:"; printf '%s' "$block"; exit 1; }
    continue
  fi
  if [ $in -eq 2 ]; then block="$block$line"$'\n'; continue; fi
  if [ $in -eq 1 ] && [ "$line" = '```' ]; then
    in=0 n=$((n + 1))
    need=""
    case $first in "# needs: "*) need=${first#\# needs: } ;; esac
    if [ -n "$need" ] && ! bash -c "$need" >/dev/null 2>&1; then
      skipped=$((skipped + 1)); echo "block $n: skipped ($need is not available here)"; continue
    fi
    ran=$((ran + 1))
    printf 'echo "== block %d" >&2\n%s\n' "$n" "$block" >> "$script"
    continue
  fi
  if [ $in -eq 1 ]; then
    [ -z "$block" ] && first=$line
    block="$block$line"$'\n'
  fi
done < "$src/$doc"
[ $n -gt 0 ] || { echo "$doc: no \`\`\`sh block"; exit 1; }
if ! bash "$script" > "$tmp/out.log" 2>&1; then
  echo "$doc: an example failed:"; tail -40 "$tmp/out.log"; exit 1
fi
echo "$doc: $ran of $n sh blocks ran, every command succeeded ($skipped skipped); $excerpts c excerpts match examples/"
