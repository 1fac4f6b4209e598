#!/usr/bin/env bash
# ctest testbed.spec_trace: the acceptance of every stored speculative run is the trace that
# `leversim trace record` writes today (the command of scripts/testbed/run.sh and protocol.sh),
# read by the testbed's rule (runner/testbed/measure.c, spec_run: a cycle at text position T
# accepts while the ranks at T, T+1, ... are 0, at most k; T then moves by accepted + 1). For
# each run under results/testbed with a speculative run: the cycles, each cycle's accepted
# tokens (the steps of its verification passes' contexts, repetition 0) and the stored
# histogram of tb_spec. So the trace a `leversim run` must replay to see the testbed's cycles
# is known and can be regenerated (docs/VALIDATION.md §0.5). No llama.cpp run.
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
  runs=$((runs + 1))
done < <(find "$top/results/testbed" -name testbed.db | LC_ALL=C sort)
[ "$runs" -ge 13 ] || fail "only $runs stored runs with a speculative run (runs AN to AV and protocol-1's four expected)"
echo "spec_trace: $runs stored speculative runs follow today's recorded trace, cycle by cycle"
