#!/usr/bin/env bash
# tests/docs/check_verdicts.sh ROOT: the README's verdict list is the uncertainty study's
# (results/uncertainty.json, written by `leversim uncertainty --json`), checked by
# check_verdicts.pl; and the checker can fail: a flipped verdict word in the text, and a file
# whose verdict disagrees with its own p_holds, are both refused.
set -u
root=$1
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
chk=$root/tests/docs/check_verdicts.pl
json=$root/results/uncertainty.json
fail=0
perl "$chk" "$json" "$root/README.md" || { echo "check_verdicts: README.md does not match $json"; fail=1; }
# a verdict word flipped in a copy of the README
sed -E '0,/(holds|fails|depends)<!-- u: ([^ ]+) verdict -->/s//WRONG<!-- u: \2 verdict -->/' "$root/README.md" >"$tmp/r.md"
cmp -s "$tmp/r.md" "$root/README.md" && { echo "selftest: no verdict marker to flip in README.md"; fail=1; }
perl "$chk" "$json" "$tmp/r.md" >/dev/null && { echo "selftest: a flipped verdict word passed"; fail=1; }
# a file whose verdict is not what its p_holds says
sed -E '0,/"verdict": "(holds|fails)"/s//"verdict": "depends"/' "$json" >"$tmp/u.json"
perl "$chk" "$tmp/u.json" "$root/README.md" >/dev/null && { echo "selftest: a verdict contradicting p_holds passed"; fail=1; }
exit $fail
