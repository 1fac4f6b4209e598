#!/usr/bin/env bash
# ctest testbed.host_spec: the speculative run's time per token that `testbed validate` prints is
# what the decode library predicts from a profile (issue 32, docs/VALIDATION.md §0.5). For each
# published run AN to AV: validate writes the host profile (--host-profile: the run's profile with
# a host section holding what it fitted); `leversim trace passes` on the recorded trace (the
# command of scripts/testbed/run.sh) makes the run's passes (ls_cpureplay_spec_passes) and prices
# them on that profile (ls_costmodel_pass_host, ls_cpureplay_run_s). The two must print the same
# time per token, and the same draft and verification parts. Then the refusals. No llama.cpp run.
# Usage: host_spec.sh LEVERSIM TOP
set -euo pipefail
leversim=$1; top=$2
command -v sqlite3 > /dev/null || { echo "host_spec: sqlite3 (the command) is missing" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "host_spec: $*" >&2; exit 1; }
cd "$top" # the runs' databases name their model files from the top of the tree
"$leversim" trace record --dataset mt-bench --model llama-3.1-8b --prompts 1 --out "$tmp/trace.txt" ||
  fail "trace record: exit $?"
runs=0
for r in an ao ap aq ar as at au av; do
  d=results/testbed/run-$r
  cp "$d/testbed.db" "$tmp/$r.db" # validate writes its points into the database it reads
  "$leversim" testbed validate --db "$tmp/$r.db" --profile "$d/testbed-vm.yaml" --fio-mmap "$d/fio-mmap.json" \
    --host-profile "$tmp/$r.yaml" > "$tmp/$r.txt" || fail "run $r: validate --host-profile: exit $?"
  read -r gen k < <(sqlite3 -separator ' ' "$tmp/$r.db" "SELECT generated, k FROM tb_spec")
  IFS='|' read -r model draft < <(sqlite3 "$tmp/$r.db" "SELECT model_id, draft_model FROM tb_run")
  # validate's lines: spec, spec-draft, spec-verify; the 5th column is the model's prediction
  want=$(awk '$1 == "spec" && NF == 6 {s = $5} $1 == "spec-draft" {d = $5} $1 == "spec-verify" {v = $5}
              END {printf "%s %s %s", s, d, v}' "$tmp/$r.txt")
  "$leversim" trace passes "$tmp/trace.txt" --k "$k" --tokens "$gen" --prompt-tokens 32 --device "$tmp/$r.yaml" \
    --model "$model" --draft "$draft" > "$tmp/$r.passes" || fail "run $r: trace passes --device: exit $?"
  got=$(sed -n 's/^predicted: \([0-9.]*\) s a generated token (draft \([0-9.]*\) s, verification \([0-9.]*\) s).*/\1 \2 \3/p' \
        "$tmp/$r.passes")
  [ -n "$want" ] && [ "$got" = "$want" ] ||
    fail "run $r: trace passes predicts '$got', validate '$want' (per token: all, draft, verification)"
  runs=$((runs + 1))
done
# refusals: a profile without a host section (65); the pricing options alone (64); a host
# profile of serial reads (65); a stream's bytes without its time (65, at the key)
set +e
"$leversim" trace passes "$tmp/trace.txt" --k 4 --tokens 48 --prompt-tokens 32 --device results/testbed/run-av/testbed-vm.yaml \
  --model llama-3.2-1b --draft llama-3.2-1b > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 65 ] && grep -q "has no host section" "$tmp/err" || fail "no host section: exit $rc, $(cat "$tmp/err")"
"$leversim" trace passes "$tmp/trace.txt" --k 4 --tokens 48 --prompt-tokens 32 --device "$tmp/av.yaml" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 64 ] && grep -q "go together (missing: --model)" "$tmp/err" || fail "--device alone: exit $rc, $(cat "$tmp/err")"
cp results/testbed/run-av/testbed.db "$tmp/s.db"
"$leversim" testbed validate --db "$tmp/s.db" --profile results/testbed/run-av/testbed-vm.yaml --mode serial \
  --host-profile "$tmp/s.yaml" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 65 ] && [ ! -e "$tmp/s.yaml" ] && grep -q "mapped reads without the busy share" "$tmp/err" ||
  fail "--mode serial --host-profile: exit $rc, $(cat "$tmp/err")"
grep -v '^  stream_time:' "$tmp/av.yaml" > "$tmp/half.yaml"
line=$(grep -n '^  stream_bytes:' "$tmp/half.yaml" | cut -d: -f1)
"$leversim" trace passes "$tmp/trace.txt" --k 4 --tokens 48 --prompt-tokens 32 --device "$tmp/half.yaml" \
  --model llama-3.2-1b --draft llama-3.2-1b > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 65 ] && grep -q "half.yaml:$line:[0-9]*: .*needs host.stream_time too" "$tmp/err" ||
  fail "stream_bytes alone: exit $rc, $(cat "$tmp/err")"
set -e
echo "host_spec: $runs runs, trace passes on validate's host profile prints validate's spec prediction"
