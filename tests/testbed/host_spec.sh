#!/usr/bin/env bash
# ctest testbed.host_spec: the speculative run's time per token that `testbed validate` prints is
# what the decode library predicts from a profile (issue 32, docs/VALIDATION.md §0.5). For each
# published run AN to AV: validate writes the host profile (--host-profile: the run's profile with
# a host section holding what it fitted); `leversim trace passes` on the recorded trace (the
# command of scripts/testbed/run.sh) makes the run's passes (ls_cpureplay_spec_passes) and prices
# them on that profile (ls_costmodel_pass_host, ls_cpureplay_run_s). The two must print the same
# time per token, and the same draft and verification parts. `leversim run --system llama-spec` on
# that profile, with the run's models, k, tokens, the runtime's 32-token prompt and the trace, must
# give the same time per generated token (time_per_token_s, to validate's printed precision), the
# run's cycles and tokens, and the same value when written to a database. Then the refusals. No
# llama.cpp run.
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
  read -r gen k cycles < <(sqlite3 -separator ' ' "$tmp/$r.db" "SELECT generated, k, cycles FROM tb_spec")
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
  "$leversim" run --device "$tmp/$r.yaml" --model "$model" --draft "$draft" --dataset mt-bench --system llama-spec \
    --prompts 1 --tokens "$gen" --set draft.gamma="$k" --set workload.prompt_tokens=32 \
    --set workload.trace="$tmp/trace.txt" --json --db "$tmp/runs.db" --steps > "$tmp/$r.json" ||
    fail "run $r: leversim run: exit $?"
  tpt=$(sed -n 's/.*"time_per_token_s":{"value":\([^,]*\),.*/\1/p' "$tmp/$r.json")
  got=$(awk -v v="$tpt" 'BEGIN {printf "%.4f", v}')
  [ -n "$tpt" ] && [ "$got" = "${want%% *}" ] ||
    fail "run $r: leversim run predicts '$tpt' s a token ('$got'), validate '${want%% *}'"
  grep -q '"tokens":{"value":'"$gen"',' "$tmp/$r.json" && grep -q '"cycles":{"value":'"$cycles"',' "$tmp/$r.json" ||
    fail "run $r: leversim run's tokens and cycles are not the run's ($gen, $cycles): $(cat "$tmp/$r.json")"
  id=$(sed -n 's/.*"run_id":"\([0-9a-f]*\)".*/\1/p' "$tmp/$r.json")
  # the stored double is the printed one (%.17g round-trips): compared as numbers, not as SQLite prints them
  same=$(sqlite3 "$tmp/runs.db" "SELECT count(*) FROM metrics WHERE run_id = '$id' AND name = 'time_per_token_s'
                                 AND value = $tpt")
  [ "$same" = 1 ] || fail "run $r: the database does not hold the printed $tpt s a token (run $id)"
  # the per-cycle series: one row a cycle, k drafted and k + 1 verified each, the accepted drafts
  # adding up to the tokens less one a cycle, and the cycles' times to the run's
  steps=$(sqlite3 -separator ' ' "$tmp/runs.db" "SELECT count(*), sum(accepted), min(tree_size), max(tree_size),
    min(verified_tokens), max(verified_tokens), printf('%.6f', (sum(draft_s) + sum(verify_s)) / $gen)
    FROM steps WHERE run_id = '$id'")
  [ "$steps" = "$cycles $((gen - cycles)) $k $k $((k + 1)) $((k + 1)) $(awk -v v="$tpt" 'BEGIN {printf "%.6f", v}')" ] ||
    fail "run $r: steps '$steps' (cycles, accepted, tree sizes, verified tokens, time a token)"
  runs=$((runs + 1))
done
# protocol-4's published run at two threads: there the read path's work beside a compute on every
# core is active (host.contention_rate, docs/VALIDATION.md §0.8), written into the host profile,
# and the decode library prices it as validate does (the host profile at the run's threads). The
# run's database names its model files in the run's folder (build/testbed/...), so a copy names
# the committed ones. Without the term the same profile gives another time in at least one of them
# (to the last digit: a speculative run's passes are short and mostly wait for their reads, which
# the term leaves alone; in two of the three the times are equal).
p4=results/testbed/protocol-4/run-20261128T1252Z
moved=0
for c in w1024-l17-t2-d8 w2304-l5-t2-d1 w3328-l5-t2-d8; do
  d=$p4/$c
  IFS='|' read -r model draft < <(sqlite3 "$d/testbed.db" "SELECT model_id, draft_model FROM tb_run")
  model=$tmp/$(basename "$model"); draft=$tmp/$(basename "$draft")
  cp "$d/$(basename "$model")" "$model" && cp "$d/$(basename "$draft")" "$draft" && cp "$d/testbed.db" "$tmp/$c.db"
  sqlite3 "$tmp/$c.db" "UPDATE tb_run SET model_id = '$model', draft_model = '$draft'"
  "$leversim" testbed validate --db "$tmp/$c.db" --profile "$d/testbed-vm.yaml" --fio-mmap "$d/fio-mmap.json" \
    --host-profile "$tmp/$c.yaml" > "$tmp/$c.txt" || fail "$c: validate --host-profile: exit $?"
  grep -q '^  contention_rate: ' "$tmp/$c.yaml" || fail "$c: the host profile has no contention_rate"
  read -r gen k cycles < <(sqlite3 -separator ' ' "$tmp/$c.db" "SELECT generated, k, cycles FROM tb_spec")
  want=$(awk '$1 == "spec" && NF == 6 {print $5}' "$tmp/$c.txt")
  stored=$(awk '$1 == "spec" && NF == 6 {print $5}' "$d/validate.txt")
  [ -n "$want" ] && [ "$want" = "$stored" ] || fail "$c: validate predicts '$want' s a token, the published run '$stored'"
  tpt=$("$leversim" run --device "$tmp/$c.yaml" --model "$model" --draft "$draft" --dataset mt-bench --system llama-spec \
      --prompts 1 --tokens "$gen" --set draft.gamma="$k" --set workload.prompt_tokens=32 \
      --set workload.trace="$tmp/trace.txt" --json | sed -n 's/.*"time_per_token_s":{"value":\([^,]*\),.*/\1/p')
  got=$(awk -v v="$tpt" 'BEGIN {printf "%.4f", v}')
  [ -n "$tpt" ] && [ "$got" = "$want" ] || fail "$c: leversim run predicts '$tpt' s a token ('$got'), validate '$want'"
  # without the term the same profile gives another time: the check can tell them apart
  grep -v '^  contention_rate: ' "$tmp/$c.yaml" > "$tmp/$c-off.yaml"
  off=$("$leversim" run --device "$tmp/$c-off.yaml" --model "$model" --draft "$draft" --dataset mt-bench --system llama-spec \
      --prompts 1 --tokens "$gen" --set draft.gamma="$k" --set workload.prompt_tokens=32 \
      --set workload.trace="$tmp/trace.txt" --json | sed -n 's/.*"time_per_token_s":{"value":\([^,]*\),.*/\1/p')
  [ -n "$off" ] && [ "$off" != "$tpt" ] && moved=$((moved + 1))
  runs=$((runs + 1))
done
[ "$moved" -ge 1 ] || fail "protocol-4: contention_rate moved no 2-thread configuration's time a token"
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
# run --model of a model file (the testbed's draft as the target, from its folder: a model's
# name holds at most 63 characters) prices as trace passes does with that file
cp results/testbed/run-av/llama-3.2-1b-tb2l1024w.yaml "$tmp/" # a file named by its id
got=$(cd "$tmp" && "$leversim" run --device av.yaml --model llama-3.2-1b-tb2l1024w.yaml --draft llama-3.2-1b --dataset mt-bench \
        --system llama-spec --prompts 1 --tokens 48 --set workload.prompt_tokens=32 --set workload.trace=trace.txt --json |
      sed -n 's/.*"time_per_token_s":{"value":\([^,]*\),.*/\1/p' | awk '{printf "%.4f", $1}')
want=$(cd "$tmp" && "$leversim" trace passes trace.txt --k 4 --tokens 48 --prompt-tokens 32 --device av.yaml --model llama-3.2-1b-tb2l1024w.yaml \
         --draft llama-3.2-1b | sed -n 's/^predicted: \([0-9.]*\) s a generated token.*/\1/p')
[ -n "$got" ] && [ "$got" = "$want" ] || fail "run --model FILE.yaml predicts '$got', trace passes '$want'"
# a run's identity follows a model file's content, not its path: the draft by two paths is one
# run (the second --db run is "already there"), an edited copy another
ida=$(sed -n 's/.*"run_id":"\([0-9a-f]*\)".*/\1/p' "$tmp/av.json")
"$leversim" run --device "$tmp/av.yaml" --model llama-3.2-1b --draft "$tmp/llama-3.2-1b-tb2l1024w.yaml" --dataset mt-bench \
  --system llama-spec --prompts 1 --tokens 48 --set draft.gamma=4 --set workload.prompt_tokens=32 \
  --set workload.trace="$tmp/trace.txt" --json --db "$tmp/runs.db" > "$tmp/again.json" 2> "$tmp/err" || fail "again: exit $?"
grep -q "{\"run_id\":\"$ida\",\"already_done\":true}" "$tmp/again.json" ||
  fail "the draft model file by another path is another run: $(cat "$tmp/again.json" "$tmp/err")"
mkdir "$tmp/edited" && { cat "$tmp/llama-3.2-1b-tb2l1024w.yaml"; echo "# edited"; } > "$tmp/edited/llama-3.2-1b-tb2l1024w.yaml"
"$leversim" run --device "$tmp/av.yaml" --model llama-3.2-1b --draft "$tmp/edited/llama-3.2-1b-tb2l1024w.yaml" \
  --dataset mt-bench --system llama-spec --prompts 1 --tokens 48 --set draft.gamma=4 --set workload.prompt_tokens=32 \
  --set workload.trace="$tmp/trace.txt" --json --db "$tmp/runs.db" > "$tmp/edited.json" || fail "edited: exit $?"
grep -q '"already_done"' "$tmp/edited.json" && fail "an edited draft model file is the same run"
# run --system llama-spec without a trace records the oracle's text in memory: the same run as with
# that text recorded by `trace record` (same dataset, target, seed), to the last bit
"$leversim" trace record --dataset mt-bench --model llama-3.1-8b --prompts 2 --seed 5 --out "$tmp/t5.txt" ||
  fail "trace record --seed 5: exit $?"
for with in "" "--set workload.trace=$tmp/t5.txt"; do
  "$leversim" run --device "$tmp/av.yaml" --model llama-3.1-8b --dataset mt-bench --system llama-spec --prompts 2 \
    --tokens 40 --seed 5 $with --json > "$tmp/o.json" || fail "run on the oracle ($with): exit $?"
  sed -n 's/.*"time_per_token_s":{"value":\([^,]*\),.*"tokens":{"value":\([^,]*\),.*/\1 \2/p' "$tmp/o.json" >> "$tmp/o.txt"
done
[ "$(wc -l < "$tmp/o.txt")" = 2 ] && [ "$(uniq "$tmp/o.txt" | wc -l)" = 1 ] ||
  fail "llama-spec on the oracle and on its recorded trace differ: $(cat "$tmp/o.txt")"
# run --system llama-spec: a profile without a host section is not valid (65); an experiment file
# naming it is refused at its line (65), as an --axis (64); --draft with --set model.draft (64);
# a model file that is not there (66) or has a bad value (65, at its key)
runargs=(--model llama-3.2-1b --draft results/testbed/run-av/llama-3.2-1b-tb2l1024w.yaml --dataset mt-bench
         --system llama-spec --prompts 1 --tokens 48 --set workload.trace="$tmp/trace.txt")
"$leversim" run --device results/testbed/run-av/testbed-vm.yaml "${runargs[@]}" > "$tmp/out" 2> "$tmp/err"; rc=$?
[ $rc = 65 ] && grep -q "not valid here: llama-spec: device testbed-vm has no host section" "$tmp/out" ||
  fail "run on a profile without a host section: exit $rc, $(cat "$tmp/out" "$tmp/err")"
printf 'name: x\nseed: 1\nparts:\n  - name: p\n    devices: [oneplus-12]\n    models: [llama-3.1-8b]\n    datasets: [mt-bench]\n    systems: [lever, llama-spec]\n' > "$tmp/x.yaml"
"$leversim" sweep "$tmp/x.yaml" --db "$tmp/x.db" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 65 ] && grep -q "x.yaml:8:[0-9]*: .*system 'llama-spec' is not one of the paper's systems" "$tmp/err" &&
  [ ! -e "$tmp/x.db" ] || fail "an experiment with llama-spec: exit $rc, $(cat "$tmp/err")"
"$leversim" run --device "$tmp/av.yaml" "${runargs[@]}" --set model.draft=llama-3.2-1b > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 64 ] && grep -q -- "--draft and argument .* both give model.draft" "$tmp/err" ||
  fail "--draft with --set model.draft: exit $rc, $(cat "$tmp/err")"
"$leversim" run --device "$tmp/av.yaml" "${runargs[@]/llama-3.2-1b-tb2l1024w.yaml/nothing-here.yaml}" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 66 ] && grep -q "nothing-here.yaml" "$tmp/err" || fail "a draft file that is not there: exit $rc, $(cat "$tmp/err")"
sed 's/^  n_layers: 2$/  n_layers: two/' results/testbed/run-av/llama-3.2-1b-tb2l1024w.yaml > "$tmp/bad.yaml"
line=$(grep -n '^  n_layers:' "$tmp/bad.yaml" | cut -d: -f1)
(cd "$tmp" && "$leversim" run --device av.yaml --model bad.yaml --dataset mt-bench --system sd-chain --prompts 1) \
  > /dev/null 2> "$tmp/err"; rc=$? # from its folder: a model's name holds at most 63 characters
[ $rc = 65 ] && grep -q "bad.yaml:$line:[0-9]*: .*n_layers.*two" "$tmp/err" ||
  fail "a model file with a bad value: exit $rc, $(cat "$tmp/err")"
set -e
echo "host_spec: $runs runs, trace passes and leversim run on validate's host profile print validate's spec prediction"
