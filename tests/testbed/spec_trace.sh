#!/usr/bin/env bash
# ctest testbed.spec_trace: the acceptance of every stored speculative run is the trace that
# `leversim trace record` writes today (the command of scripts/testbed/run.sh and protocol.sh),
# read by the testbed's rule (runner/testbed/measure.c, spec_run: a cycle at text position T
# accepts while the ranks at T, T+1, ... are 0, at most k; T then moves by accepted + 1). For
# each run under results/testbed with a speculative run: the cycles, each cycle's accepted
# tokens (the steps of its verification passes' contexts, repetition 0) and the stored
# histogram of tb_spec. So the trace a `leversim run` must replay to see the testbed's cycles
# is known and can be regenerated (docs/VALIDATION.md §0.5). And the decode library's rule
# (`leversim trace passes`, ls_cpureplay_spec_passes in runner/decode/cpu_replay.c) gives every
# pass of repetition 0 in the order made (draft or target, tokens, context) and the histogram,
# at the testbed's prompt of 32 tokens (runner/testbed/measure.c). No llama.cpp run.
# Usage: spec_trace.sh LEVERSIM TOP
set -euo pipefail
leversim=$1; top=$2
command -v sqlite3 > /dev/null || { echo "spec_trace: sqlite3 (the command) is missing" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "spec_trace: $*" >&2; exit 1; }
"$leversim" trace record --dataset mt-bench --model llama-3.1-8b --prompts 1 --out "$tmp/trace.txt" ||
  fail "trace record: exit $?"
# The ranks of prompt 0, one per line, position order (the format requires it).
awk '$1 == "prompt" {p = $2} p == "0" && $1 == "pos" {print $3}' "$tmp/trace.txt" > "$tmp/ranks"
[ -s "$tmp/ranks" ] || fail "the trace has no positions for prompt 0"
runs=0
while IFS= read -r db; do
  spec=$(sqlite3 -separator ' ' "$db" "SELECT generated, cycles, k, accepted FROM tb_spec") || fail "$db: cannot read tb_spec"
  [ -n "$spec" ] || continue
  read -r gen cycles k hist <<< "$spec"
  # each cycle's accepted tokens, from the contexts of repetition 0's verification passes
  # (the context grows by accepted + 1; the last cycle's from the tokens generated)
  stored=$(sqlite3 "$db" "SELECT ctx FROM tb_pass WHERE kind = 'spec-verify' AND rep < 1000 ORDER BY rep" |
    awk -v gen="$gen" 'NR == 1 {c0 = $1} NR > 1 {printf "%d ", $1 - prev - 1} {prev = $1}
                       END {printf "%d", c0 + gen - prev - 1}')
  ours=$(awk -v k="$k" -v n="$gen" '{r[NR - 1] = $1}
    END {g = 0; while (g < n) {a = 0; while (a < k && r[g + a] == 0) a++; printf "%s%d", (g ? " " : ""), a; h[a]++; c++; g += a + 1}
         printf ";%d;", c; for (i = 0; i <= k; i++) printf "%s%d", (i ? "," : ""), h[i]}' "$tmp/ranks")
  want="$stored;$cycles;$hist"
  [ "$ours" = "$want" ] || fail "${db#"$top"/}: the trace gives '$ours', the run stored '$want' (accepted per cycle;cycles;histogram)"
  "$leversim" trace passes "$tmp/trace.txt" --k "$k" --tokens "$gen" --prompt-tokens 32 > "$tmp/passes" ||
    fail "trace passes: exit $?"
  sqlite3 "$db" "SELECT kind, rep, n_tokens, ctx FROM tb_pass WHERE kind LIKE 'spec-%' AND rep < 1000 ORDER BY rowid" \
    > "$tmp/stored" || fail "$db: cannot read tb_pass"
  awk '$1 == "cycles" {next} {print ($2 == "draft" ? "spec-draft" : "spec-verify") "|" $1 "|" $3 "|" $4}' \
    "$tmp/passes" > "$tmp/library"
  diff "$tmp/stored" "$tmp/library" > "$tmp/diff" ||
    fail "${db#"$top"/}: the decode library's passes differ from the run's (< stored, > library): $(head -4 "$tmp/diff")"
  grep -qx "cycles $cycles, generated $gen, accepted $hist" "$tmp/passes" ||
    fail "${db#"$top"/}: trace passes ends '$(tail -1 "$tmp/passes")', the run stored $cycles cycles, $gen tokens, $hist"
  runs=$((runs + 1))
done < <(find "$top/results/testbed" -name testbed.db | LC_ALL=C sort)
[ "$runs" -ge 13 ] || fail "only $runs stored runs with a speculative run (runs AN to AV and protocol-1's four expected)"
# a trace too short for the tokens asked: exit 65 (out of range), naming the file and what is missing
rc=0; "$leversim" trace passes "$tmp/trace.txt" --k 4 --tokens 400 --prompt-tokens 32 > /dev/null 2> "$tmp/err" || rc=$?
[ "$rc" = 65 ] && grep -q "trace.txt: prompt 0 has [0-9]* positions, too few for 400 tokens at k = 4" "$tmp/err" ||
  fail "trace passes on a short trace: exit $rc, '$(cat "$tmp/err")' (want 65 and the positions missing)"
echo "spec_trace: $runs stored speculative runs follow today's recorded trace, cycle by cycle and pass by pass"
