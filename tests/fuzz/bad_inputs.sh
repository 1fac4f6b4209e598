#!/bin/sh
# tests/fuzz/bad_inputs.sh [--quick] [LEVERSIM]: feeds hostile and broken inputs to the leversim
# binary (default build/leversim) and prints docs/BAD_INPUTS.md (a Markdown table: input,
# command, exit status, first line of the message) on stdout. Every row is a real run;
# regenerate with
#   tests/fuzz/bad_inputs.sh build/leversim > docs/BAD_INPUTS.md
# --quick stops before the section of runs, sweeps and databases (the sections whose rows run
# in well under a second each; tests/adversarial/doc_sync.sh compares them with the file).
# The output is the same on a loaded machine: a signal is sent when the sweep has reached the
# state the row is about (its workers started, its first estimate printed), not after a fixed
# sleep; each signalled sweep writes its own files and its workers are gone before the next
# row; time limits are multiplied by LEVERSIM_TEST_TIME_FACTOR (a whole number, default 1).
set -u
QUICK=0
[ "${1:-}" = --quick ] && QUICK=1 && shift
F=${LEVERSIM_TEST_TIME_FACTOR:-1}
case $F in '' | *[!0-9]* | 0) echo "LEVERSIM_TEST_TIME_FACTOR must be a whole number >= 1, not '$F'" >&2; exit 2 ;; esac
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-$ROOT/build/leversim}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
W=$(mktemp -d "${TMPDIR:-/tmp}/leversim-bad-XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
# A private data root (copies of the shipped folders) for broken models and datasets.
mkdir -p "$W/data/devices" "$W/data/workloads" "$W/data/runner"
cp -r "$ROOT/devices/profiles" "$W/data/devices/"
cp -r "$ROOT/workloads/models" "$ROOT/workloads/datasets" "$W/data/workloads/"
PROFILE=$ROOT/devices/profiles/oneplus-12.yaml
TRACE=$ROOT/workloads/traces/sample.trace
RUN="run --device oneplus-12 --model llama-3.1-8b --dataset gsm8k --system lever --prompts 1 --tokens 4"

n=0
# row WHAT COMMAND...: runs leversim with the arguments (in $W, data root $W/data when
# DATA=1, the test fixture root when DATA=fixture; a file-size limit of LIMIT_F blocks when
# set) and prints one table row. The message is the first line of stderr that is not a
# warning (the first line matching PICK when set; the first line of stdout when stderr is
# empty); NUMS=1 writes the counts of an interrupted sweep, which vary from run to run, as N.
row() {
  what=$1
  shift
  n=$((n + 1))
  data=
  [ "${DATA:-0}" = 1 ] && data=$W/data
  [ "${DATA:-0}" = fixture ] && data=$ROOT/tests/runner/data
  out=$(cd "$W" && { [ -z "${LIMIT_F:-}" ] || ulimit -f "$LIMIT_F"; } &&
        LEVERSIM_DATA=${data:-${LEVERSIM_DATA:-}} timeout $((60 * F)) "$BIN" "$@" 2>&1 >"$W/stdout")
  code=$?
  report "$what" "$code" "$out" "$@"
}
# await SECONDS TEST...: runs TEST every 0.1 s until it succeeds or SECONDS (times F) pass.
await() {
  t=$(($1 * F * 10))
  shift
  while [ $t -gt 0 ] && ! "$@"; do sleep 0.1; t=$((t - 1)); done
}
workers_up() { [ "$(pgrep -P "$pid" | wc -l)" -ge 2 ]; } # the sweep's --jobs 2 started
said() { grep -q -e "$SIG_WHEN" "$W/async-$n.err"; }    # the sweep printed that line
gone() { for c in $kids; do kill -0 "$c" 2>/dev/null && return 1; done; return 0; }
# row_signal WHAT SIGNAL parent|worker COMMAND...: starts a sweep with --jobs 2 (fixture data
# root) in the background, and when both workers run (and, with SIG_WHEN, once its stderr
# holds a line matching SIG_WHEN) sends SIGNAL to the parent alone or to one worker; prints
# the row of what it says once it and its workers have ended.
row_signal() {
  what=$1 sig=$2 whom=$3
  shift 3
  n=$((n + 1))
  : > "$W/stdout"
  (cd "$W" && exec env LEVERSIM_DATA="$ROOT/tests/runner/data" "$BIN" "$@" 2>"$W/async-$n.err" >"$W/stdout") &
  pid=$!
  await 60 workers_up
  kids=$(pgrep -P "$pid")
  [ -z "${SIG_WHEN:-}" ] || await 120 said
  target=$pid
  [ "$whom" = worker ] && target=$(echo "$kids" | head -1)
  kill -s "$sig" "$target"
  wait $pid
  code=$?
  await 60 gone
  report "$what" "$code" "$(cat "$W/async-$n.err")" "$@"
}
report() {
  what=$1 code=$2 out=$3
  shift 3
  [ -z "$out" ] && out=$(cat "$W/stdout" 2>/dev/null)
  body=$(printf '%s\n' "$out" | grep -v '^$')
  printf '%s\n' "$body" | grep -q -v ': warning: ' && body=$(printf '%s\n' "$body" | grep -v ': warning: ')
  msg=$(printf '%s\n' "$body" | grep -e "${PICK:-.}" | head -1 | sed "s|$W/||g; s|$ROOT/||g; s/|/\\\\|/g" | shorten)
  [ "${NUMS:-0}" = 1 ] && msg=$(printf '%s' "$msg" |
    sed -E 's/[0-9]+( of |\/| runs| failed)/N\1/g; s/[0-9.]+ s( |$)/N s\1/g; s/worker [0-9]+/worker N/')
  args=$(for a in "$@"; do [ -n "$a" ] && printf '%s ' "$a" || printf "'' "; done | sed "s|$W/||g; s|$ROOT/||g; s/|/\\\\|/g; s/ *\$//" | shorten)
  printf '| %d | %s | `leversim %s` | %s | `%s` |\n' "$n" "$what" "$args" "$code" "$msg"
}
# shorten: a line over 240 characters keeps its start and its end (where the reason is).
shorten() {
  awk '{ if (length($0) > 240) print substr($0, 1, 100) " ... " substr($0, length($0) - 119); else print }'
}
# sub FILE FROM TO OUT: OUT is FILE with the first line containing FROM replaced by TO.
sub() {
  awk -v from="$2" -v to="$3" 'done == 0 && index($0, from) { print to; done = 1; next } { print }' "$1" > "$4"
}

cat <<'HEAD'
# Bad inputs and what leversim says

Every row was produced by running the `leversim` binary on the input described
(`tests/fuzz/bad_inputs.sh build/leversim > docs/BAD_INPUTS.md` regenerates this file).
Exit statuses: 1 a run failed, 64 usage, 65 bad input data, 66 not found, 70 internal,
74 I/O, 130 interrupted (`leversim --help` gives the table and its rule: a bad value typed on
the command line is 64, the same value read from a file is 65). The message is the first line
printed on stderr that is not a warning (a sweep warns first about values that take another
effect); paths are shown relative to the work folder. Inputs found by fuzzing are kept as seeds under
`tests/fuzz/seeds/` and replayed by `tests/fuzz/run.sh`.

## Device profiles (`profiles validate`)

| # | input | command | exit | message |
|---|---|---|---|---|
HEAD
row "file does not exist" profiles validate nothere.yaml
: > "$W/empty.yaml"; row "empty file" profiles validate empty.yaml
printf 'id: x\nflash: [1, 2\n' > "$W/malformed.yaml"; row "malformed YAML (unclosed flow sequence)" profiles validate malformed.yaml
printf 'id: x\0\001\002\377\376garbage\n' > "$W/binary.yaml"; row "binary bytes (NUL, 0xFF)" profiles validate binary.yaml
printf '\377\376i\000d\000:\000 \000x\000\n\000' > "$W/utf16.yaml"; row "UTF-16 text" profiles validate utf16.yaml
printf -- '- a\n- b\n' > "$W/seq.yaml"; row "top level is a sequence" profiles validate seq.yaml
printf 'id: x\n---\nid: y\n' > "$W/twodocs.yaml"; row "two YAML documents" profiles validate twodocs.yaml
printf 'id: x\n\tname: y\n' > "$W/tab.yaml"; row "tab indentation" profiles validate tab.yaml
sub "$PROFILE" "link_bandwidth:" "  link_bandwith: 4.2 GB/s" "$W/typo.yaml"; row "misspelt key (link_bandwith)" profiles validate typo.yaml
sub "$PROFILE" "queue_depth:" "  chunk: 256 KiB" "$W/dup.yaml"; row "duplicate key (chunk twice)" profiles validate dup.yaml
sub "$PROFILE" "link_bandwidth:" "" "$W/missing.yaml"; row "missing required key" profiles validate missing.yaml
sub "$PROFILE" "link_bandwidth:" "  link_bandwidth: 4.2" "$W/bare.yaml"; row "number without its unit" profiles validate bare.yaml
sub "$PROFILE" "link_bandwidth:" "  link_bandwidth: 4.2 GB" "$W/kind.yaml"; row "unit of the wrong kind (GB for a bandwidth)" profiles validate kind.yaml
sub "$PROFILE" "link_bandwidth:" "  link_bandwidth: 4.2 gb/s" "$W/case.yaml"; row "unit in the wrong case (gb/s)" profiles validate case.yaml
sub "$PROFILE" "link_bandwidth:" "  link_bandwidth: -4.2 GB/s" "$W/neg.yaml"; row "negative bandwidth" profiles validate neg.yaml
sub "$PROFILE" "link_bandwidth:" "  link_bandwidth: 0 GB/s" "$W/zero.yaml"; row "zero bandwidth" profiles validate zero.yaml
sub "$PROFILE" "link_bandwidth:" "  link_bandwidth: nan GB/s" "$W/nan.yaml"; row "NaN" profiles validate nan.yaml
sub "$PROFILE" "link_bandwidth:" "  link_bandwidth: inf GB/s" "$W/inf.yaml"; row "infinity" profiles validate inf.yaml
sub "$PROFILE" "link_bandwidth:" "  link_bandwidth: 1e999 GB/s" "$W/huge.yaml"; row "number that overflows a double (1e999)" profiles validate huge.yaml
sub "$PROFILE" "capacity:" "  capacity: 1e308 TB" "$W/ovf.yaml"; row "finite number that overflows with its unit (1e308 TB)" profiles validate ovf.yaml
sub "$PROFILE" "lanes:" "  lanes: 99999999999999999999" "$W/bigint.yaml"; row "integer beyond 64 bits" profiles validate bigint.yaml
sub "$PROFILE" "lanes:" "  lanes: 2.5" "$W/fracint.yaml"; row "fraction where an integer is required" profiles validate fracint.yaml
sub "$PROFILE" "lanes:" "  lanes: [2]" "$W/seqint.yaml"; row "sequence where a number is required" profiles validate seqint.yaml
sub "$PROFILE" "path: page_cache" "  path: mmap" "$W/enum.yaml"; row "unknown choice (path: mmap)" profiles validate enum.yaml
sub "$PROFILE" "[8, 1.10]" "    - [8, 0.90]" "$W/curve.yaml"; row "batch curve falls (8 tokens faster than 4)" profiles validate curve.yaml
sub "$PROFILE" "shapes:" "  shapes: [1, 2, 4, 8, 16, 32, 64, 256]" "$W/shape.yaml"; row "compiled shape beyond the batch curve" profiles validate shape.yaml
sub "$PROFILE" "resident_target:" "  resident_target: 9 GB" "$W/resident.yaml"; row "resident target above the app budget" profiles validate resident.yaml
sub "$PROFILE" "  threads: 4" "  threads: 64" "$W/threads.yaml"; row "more threads than cores" profiles validate threads.yaml
sub "$PROFILE" "id: oneplus-12" "id: $(head -c 300 /dev/zero | tr '\0' x)" "$W/longid.yaml"; row "300-character id" profiles validate longid.yaml
printf 'id: x\n? [a, b]\n: c\n' > "$W/cplxkey.yaml"; row "non-scalar mapping key" profiles validate cplxkey.yaml
sub "$PROFILE" "soc:" "soc: &a [*a]" "$W/cycle.yaml"; row "alias cycle (&a [*a])" profiles validate cycle.yaml
{ printf 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n'; i=1
  while [ $i -le 30 ]; do p=$((i - 1)); printf 'a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n' $i $i $p $p $p $p $p $p $p $p $p $p; i=$((i + 1)); done
  cat "$PROFILE"; } > "$W/laughs.yaml"; row "alias bomb (10^31 nodes if expanded)" profiles validate laughs.yaml
{ printf 'id: '; head -c 100000 /dev/zero | tr '\0' '['; } > "$W/deep.yaml"; row "100000 nested sequences" profiles validate deep.yaml
{ printf 'x: '; i=0; while [ $i -lt 300 ]; do printf '{a: '; i=$((i + 1)); done; printf '1'; i=0; while [ $i -lt 300 ]; do printf '}'; i=$((i + 1)); done; printf '\n'; cat "$PROFILE"; } > "$W/deepmap.yaml"; row "300 nested mappings" profiles validate deepmap.yaml
sub "$PROFILE" "model: lognormal_pareto" "    model: empirical" "$W/emp.yaml"; row "empirical latency without its table" profiles validate emp.yaml
row "a folder instead of a file" profiles validate .

cat <<'HEAD'

## Models and datasets (`run`, data root with the broken file)

| # | input | command | exit | message |
|---|---|---|---|---|
HEAD
M=$W/data/workloads/models/llama-3.1-8b.yaml
D=$W/data/workloads/datasets/gsm8k.yaml
cp "$M" "$W/m.orig"; cp "$D" "$W/d.orig"
sub "$W/m.orig" "n_kv_heads:" "  n_kv_heads: 5" "$M"; DATA=1 row "model: n_heads not a multiple of n_kv_heads" $RUN
sub "$W/m.orig" "id:" "id: llama-3.1-8b-v2" "$M"; DATA=1 row "model: id differs from the file name" $RUN
sub "$W/m.orig" "n_layers:" "  n_layers: 100000" "$M"; DATA=1 row "model: 100000 layers" $RUN
sub "$W/m.orig" "default_draft:" "default_draft: llama-9b" "$M"; DATA=1 row "model: default_draft names no model (no line before the fix)" $RUN
sub "$W/m.orig" "default_draft:" "default_draft: llama-3.1-8b" "$M"; DATA=1 row "model: a target as its own default_draft" $RUN
cp "$W/m.orig" "$M"
sub "$W/d.orig" "agree:" "      agree: 1.5" "$D"; DATA=1 row "dataset: probability above 1" $RUN
sub "$W/d.orig" "  min:" "  min: 100000" "$D"; DATA=1 row "dataset: min above max" $RUN
sub "$W/d.orig" "kind:" "kind: real" "$D"; DATA=1 row "dataset: unknown kind" $RUN
cp "$W/d.orig" "$D"
P=$W/data/workloads/datasets/positional.yaml
cp "$P" "$W/p.orig"
sub "$W/p.orig" "  p:" "  p: [0.2, 0.3, 0.1]" "$P"; DATA=1 row "positional dataset: p rises" run --device oneplus-12 --model llama-3.1-8b --dataset positional --system lever --prompts 1 --tokens 4
sub "$W/p.orig" "  p:" "  p: [0.6, 0.5]" "$P"; DATA=1 row "positional dataset: p sums above 1" run --device oneplus-12 --model llama-3.1-8b --dataset positional --system lever --prompts 1 --tokens 4
cp "$W/p.orig" "$P"
row "unknown model name" run --device oneplus-12 --model gpt-5 --dataset gsm8k --system lever
row "model name with a path" run --device oneplus-12 --model ../../etc/passwd --dataset gsm8k --system lever

cat <<'HEAD'

## Settings (`--set`)

| # | input | command | exit | message |
|---|---|---|---|---|
HEAD
row "unknown setting" $RUN --set draft.budgte=8
row "no '='" $RUN --set draft.budget
row "empty name" $RUN --set =8
row "not a number" $RUN --set draft.budget=many
row "bandwidth without a unit" $RUN --set device.flash.bandwidth=3
row "bandwidth overflowing to infinity" $RUN --set device.flash.bandwidth=1e308GB/s
row "list with an empty item" run --device oneplus-12 --model llama-3.1-8b --dataset positional --system lever --set workload.p=0.5,,0.1
row "300-character setting name" $RUN --set "$(head -c 300 /dev/zero | tr '\0' k)=1"
row "a target drafting for itself (accepted before the fix)" $RUN --set model.draft=llama-3.1-8b
row "scope naming no system" $RUN --set specinfr:draft.budget=8
row "draft model that does not exist" $RUN --set model.draft=tiny-7b
row "range in the key's own unit" $RUN --set "device.flash.bandwidth=0.5 MB/s"

cat <<'HEAD'

## Experiments (`sweep`)

| # | input | command | exit | message |
|---|---|---|---|---|
HEAD
EXP=$ROOT/runner/experiments/paper.yaml
exp_part() { # a one-part experiment with the given extra lines
  printf 'name: bad\nseed: 1\nparts:\n  - name: p\n    devices: [%s]\n    models: [llama-3.1-8b]\n    datasets: [gsm8k]\n    systems: [lever]\n' "${DEV:-oneplus-12}"
  printf '%s\n' "$@"
}
exp_part "    sweep:" "      draft.budget: []" > "$W/e1.yaml"; row "empty sweep axis" sweep e1.yaml --db e.db
DEV=pixel-99 exp_part > "$W/e2.yaml"; row "unknown device" sweep e2.yaml --db e.db
exp_part "    colour: red" > "$W/e3.yaml"; row "unknown key in a part" sweep e3.yaml --db e.db
exp_part "    sweep:" \
  "$(i=0; while [ $i -lt 8 ]; do printf '      a%d: [%s]\n' $i "$(seq -s, 0 31)"; i=$((i + 1)); done)" > "$W/e4.yaml"
row "expansion bomb (32^8 sweep points)" sweep e4.yaml --db e.db
exp_part "    sweep:" "$(i=0; while [ $i -lt 8 ]; do printf '      %s%d: [%s]\n' "$(head -c 120 /dev/zero | tr '\0' k)" $i "$(head -c 60 /dev/zero | tr '\0' v)"; i=$((i + 1)); done)" > "$W/e5.yaml"
row "sweep point too long for the run record (crashed before the fix)" sweep e5.yaml --db e.db
exp_part "    settings:" "      workload.p: [$(seq -s, 1 200 | sed 's/[0-9]*/0.001/g')]" > "$W/e6.yaml"; row "setting value longer than 511 characters" sweep e6.yaml --db e.db
row "shard 0/3" sweep "$EXP" --shard 0/3 --db e.db
row "shard 4/3" sweep "$EXP" --shard 4/3 --db e.db
printf 'name: bad\nseed: -1\nparts: []\n' > "$W/e7.yaml"; row "negative seed" sweep e7.yaml --db e.db
exp_part "    sweep:" "      device.npu.dispatch: ['100 us\"']" > "$W/e8.yaml"
row "quote in a sweep value (run failed with a database CHECK error before the fix)" sweep e8.yaml --db e.db
row "misspelt key in --set (612 failed rows and exit 1 before the fix)" sweep "$EXP" --quick --set draft.budgte=8 --db e.db
row "key only other systems read" sweep "$EXP" --quick --set draft.gamma=3 --db e.db
exp_part "    settings:" "      draft.budgte: 8" > "$W/e9.yaml"; row "misspelt key in a part's settings" sweep e9.yaml --db e.db
exp_part "    settings:" "      specinfr:draft.budget: 8" > "$W/e10.yaml"; row "misspelt system in a scoped setting" sweep e10.yaml --db e.db
exp_part "    sweep:" "      draft.budget: [4, 0]" > "$W/e11.yaml"; row "sweep value out of range" sweep e11.yaml --db e.db
exp_part "    sweep:" "      device.flash.bandwidth: [1 GB/s, 2 GB]" > "$W/e12.yaml"; row "sweep value of the wrong unit" sweep e12.yaml --db e.db
exp_part "    sweep:" "      draft.budget: [4, 8, 4]" > "$W/e13.yaml"; row "duplicate sweep value (counted twice before the fix)" sweep e13.yaml --db e.db
exp_part "    settings:" "      draft.budget: 16" "    sweep:" "      draft.budget: [4, 8]" > "$W/e14.yaml"
row "part setting shadowing its sweep axis (silently overridden before the fix)" sweep e14.yaml --db e.db
exp_part | sed 's/systems: \[lever\]/systems: [lever, specinfer, lever]/' > "$W/e15.yaml"; row "duplicate system (counted twice before the fix)" sweep e15.yaml --db e.db
{ exp_part; exp_part | sed -n '4,$p'; } > "$W/e16.yaml"; row "duplicate part name" sweep e16.yaml --db e.db
exp_part | sed "s/name: p\$/name: $(head -c 70 /dev/zero | tr '\0' p)/" > "$W/e17.yaml"; row "part name over 63 characters (cut silently before the fix)" sweep e17.yaml
exp_part | sed 's|^name: bad|name: ../../x|' > "$W/e18.yaml"; row "experiment name escaping results/ (accepted before the fix)" sweep e18.yaml
exp_part | sed "s|^name: bad|name: ''|" > "$W/e19.yaml"; row "empty experiment name (gave results/.db before the fix)" sweep e19.yaml
printf 'name: bad\nseed: 1\nparts: []\n' > "$W/e20.yaml"; row "no parts (exit 0 before the fix)" sweep e20.yaml --db e.db
exp_part "    quick: false" > "$W/e21.yaml"; row "no runs with --quick" sweep e21.yaml --quick --db e.db
exp_part "    settings:" "      specinfer:draft.budget: 8" > "$W/e22.yaml"; row "scope naming a system no run uses (ignored before the fix)" sweep e22.yaml --db e.db
{ exp_part "    settings:" "      specinfer:draft.expanson: 2"; exp_part | sed -n '4,$p' | sed 's/name: p$/name: q/; s/systems: \[lever\]/systems: [specinfer]/'; } > "$W/e23.yaml"
row "typo scoped to a system of another part (ignored before the fix)" sweep e23.yaml --db e.db

cat <<'HEAD'

## Traces (`trace info`)

| # | input | command | exit | message |
|---|---|---|---|---|
HEAD
tr_body() { printf 'leversim-trace 1\nprompt 0 10 1\n'; printf "$1"; } # $1 is a printf format
printf 'leversim-trace 2\nend\n' > "$W/t1.trace"; row "unsupported version" trace info t1.trace
printf 'hello\n' > "$W/t2.trace"; row "not a trace" trace info t2.trace
tr_body 'pos 0 0 1 0.5\n' > "$W/t3.trace"; row "missing end (truncated)" trace info t3.trace
head -c 3000 "$TRACE" > "$W/t3b.trace"; row "shipped trace cut in the middle of a line" trace info t3b.trace
tr_body 'pos 0 0 2 0.3 0.6\nend\n' > "$W/t4.trace"; row "probabilities rise" trace info t4.trace
tr_body 'pos 0 0 2 0.6 0.6\nend\n' > "$W/t5.trace"; row "probabilities sum above 1" trace info t5.trace
tr_body 'pos 0 0 1 nan\nend\n' > "$W/t6.trace"; row "NaN probability" trace info t6.trace
tr_body 'pos 1 0 1 0.5\nend\n' > "$W/t7.trace"; row "position out of order" trace info t7.trace
tr_body 'pos 0 0 17 0.5\nend\n' > "$W/t8.trace"; row "K above 16" trace info t8.trace
tr_body 'pos 0 0 2 0.6 0.3\noff 0 1.1.1.1.1.1.1.1.1 1 0.5\nend\n' > "$W/t9.trace"; row "off-path deeper than 8" trace info t9.trace
tr_body 'pos 0 0 1 0.5\0 junk\nend\n' > "$W/t10.trace"; row "NUL byte inside a line (ignored junk before the fix)" trace info t10.trace
tr_body 'pos 0 0 1 0.5\rjunk\nend\n' > "$W/t11.trace"; row "carriage return inside a line (ignored junk before the fix)" trace info t11.trace
{ tr_body 'pos 0 0 1 0.5'; head -c 5000 /dev/zero | tr '\0' ' '; printf '\nend\n'; } > "$W/t12.trace"; row "5000-character line" trace info t12.trace
tr_body 'pos 0 0 1 0.5\nend\nprompt 1 1 1\n' > "$W/t13.trace"; row "text after end" trace info t13.trace
printf 'leversim-trace 1\nprompt 0 10 8388608\nend\n' > "$W/t14.trace"; row "output length beyond the position limit" trace info t14.trace

[ $QUICK = 1 ] && exit 0
cat <<'HEAD'

## Runs, sweeps and results databases

Sweeps here use the test fixture's data root (`tests/runner/data`: a one-layer model), so
they take seconds; `N` stands for counts that depend on timing.

| # | input | command | exit | message |
|---|---|---|---|---|
HEAD
FX=$ROOT/tests/runner/data
cp "$W/m.orig" "$M"
sub "$W/m.orig" "n_layers:" "  n_layers: 1000" "$W/m1"; sub "$W/m1" "hidden:" "  hidden: 1048576" "$W/m2"
sub "$W/m2" "  ffn:" "  ffn: 4194304" "$M"
DATA=1 row "model whose layers are huge but each field in range (a 4-token run took minutes)" $RUN
cp "$W/m.orig" "$M"
row "a file without line ends (grew memory without bound, then said 'empty file')" trace info /dev/zero
printf 'name: x\nseed: 1\nparts:\n  - name: p\n    devices: [tiny]\n    models: [tiny-target]\n    datasets: [iid]\n    systems: [lever, specinfer, sequoia, eagle2]\n    settings: {workload.prompts: 8, workload.max_tokens: 400}\n    sweep:\n      draft.budget: [4, 8, 16, 32, 48, 64]\n      workload.alpha: [0.5, 0.6, 0.7, 0.8, 0.9]\n' > "$W/s1.yaml"
sed 's/workload.prompts: 8, workload.max_tokens: 400/workload.prompts: 1200, workload.max_tokens: 4000/' "$W/s1.yaml" > "$W/s2.yaml"
# a limit 10 times the size of a new database (about 90 KiB): the sweep fills it, not its set-up
rm -f "$W"/f.db*; LIMIT_F=2000 NUMS=1 DATA=fixture PICK=worker row "file-size limit (ulimit -f 2000) mid-sweep, like a full disk (exit 1 before the fix)" sweep s1.yaml --db f.db --steps --jobs 2
rm -f "$W"/k.db*; NUMS=1 PICK='killed by' row_signal "a worker killed by SIGKILL ('see messages above' before the fix)" KILL worker sweep s2.yaml --db k.db --jobs 2
rm -f "$W"/i.db*; PICK='resume with' row_signal "SIGINT to the parent alone (workers ran to the end and --jobs was dropped before the fix)" INT parent sweep s2.yaml --db i.db --jobs 2 --quick
rm -f "$W"/i.db*; NUMS=1 PICK='runs done.*left' SIG_WHEN='runs done.*left' row_signal "stderr not a terminal, a sweep of more than 5 s (silent until the end before the fix)" INT parent sweep s2.yaml --db i.db --jobs 2
DATA=fixture row "--db '' (exit 0, results lost before the fix)" sweep s1.yaml --db ''
DATA=fixture row "--db :memory: (exit 0, results lost before the fix)" sweep s1.yaml --db :memory:
rm -rf "$W/media" "$W"/ok.db*; NUMS=1 DATA=fixture row "(a finished sweep, for the next rows)" sweep s1.yaml --db ok.db --quick
mkdir "$W/media"; cp "$W/ok.db" "$W/media/"; chmod 0444 "$W/media/ok.db"; chmod 0555 "$W/media"
row "database on read-only media (WAL needed -shm: 'not a leversim results database' before the fix)" merge out.db media/ok.db
printf 'hello\n' > "$W/text.db"; row "merge input that is not SQLite" merge out.db text.db
chmod 0755 "$W/media"
row "unknown system name (66 before the fix)" run --device oneplus-12 --model llama-3.1-8b --dataset gsm8k --system levr
printf 'id: x\nname: y\nsoc: \001z\n' > "$W/ctl.yaml"; row "control character on line 3 (reported at 1:1 before the fix)" profiles validate ctl.yaml
sub "$PROFILE" "link_bandwidth:" "  link_bandwidth: 0x1p3 GB/s" "$W/hex.yaml"; row "hexadecimal float (accepted before the fix)" profiles validate hex.yaml
row "hexadecimal float in --set" $RUN --set device.flash.bandwidth=0x1p3GB/s
sub "$PROFILE" "link_bandwidth:" "  link_bandwidth: 2 TB/s" "$W/fast.yaml"; row "bandwidth above the range (printed in the key's unit)" profiles validate fast.yaml
sub "$ROOT/workloads/models/llama-3.1-8b.yaml" "n_layers:" "  n_layers: two" "$W/m.yaml"
row "run --model of a model file with a bad value (issue 32: a model file is read as an id is)" run --device oneplus-12 --model m.yaml --dataset gsm8k --system lever --prompts 1 --tokens 4
row "run --model of a model file that is not there" run --device oneplus-12 --model none.yaml --dataset gsm8k --system lever
row "run --draft of a model file that is not there" $RUN --draft none.yaml
row "run --draft and --set model.draft together" $RUN --draft llama-3.2-1b --set model.draft=qwen3-0.6b
PICK="not valid" row "system llama-spec on a phone's profile (no host section)" run --device oneplus-12 --model llama-3.1-8b --dataset gsm8k --system llama-spec --prompts 1 --tokens 4
printf 'name: host\nseed: 1\nparts:\n  - name: p\n    devices: [oneplus-12]\n    models: [llama-3.1-8b]\n    datasets: [gsm8k]\n    systems: [lever, llama-spec]\n' > "$W/host.yaml"
row "system llama-spec in an experiment (not one of the paper's systems)" sweep host.yaml --db host.db
sed 's/, llama-spec//' "$W/host.yaml" > "$W/host2.yaml"
row "system llama-spec as a sweep axis" sweep host2.yaml --db host.db --axis system=llama-spec

cat <<'HEAD'

## Adversarial table (`tests/adversarial/cases.sh`)

The cases of issue 22, run by ctest (`adversarial.cases`) with their expected exit status and
message fragment, and a post-check that the foreign file, database, device node, FIFO or
folder is as it was. Rows `A<n>` are generated from the same table
(`tests/adversarial/run.sh --markdown`); `tests/adversarial/doc_sync.sh` (ctest
`adversarial.doc`) fails when this section and the table differ, or when a row or the prose
of the sections before the runs section is not what leversim says today (a key list that
gained a key included); ctest `adversarial.doc_full` (labelled `long`) makes this whole file
again, the interrupted sweeps' rows included. Races between writers are
in `tests/adversarial/race.sh` (ctest `adversarial.race`); paths of 200 and 1400 characters
in `tests/adversarial/deep_path.sh` (ctest `adversarial.deep_path`); `calibrate --out` killed
by SIGKILL at instants spread over its run, leaving no temporary file, in
`tests/adversarial/killed.sh` (ctest `adversarial.killed`).

### Databases are data, never code (issue 35)

A SQLite file can carry code: views (any query, one that never ends), triggers (run by the
writes of whoever opens it), generated columns. leversim reads files others hand it, so
(results/trust.c):

- **Inputs** (`export`, `figures`, `check`, `plot`, `merge`'s inputs): opened read-only with
  SQLite's defensive mode, an untrusted schema, and views and triggers disabled; leversim's
  views are made again as TEMP views over the file's tables, so a view stored in the file
  never runs, whatever its name. An authorizer lets a statement read only leversim's tables
  and write only the TEMP database. Every statement on an input ends after 600 s
  (`LEVERSIM_DB_READ_LIMIT=SECONDS` changes it), exit 65 naming the limit, or at Ctrl-C.
- **Shape**: the file's schema is compared with leversim's, built in memory by the code that
  creates it. A leversim name of another type (`runs` as a view) is refused, exit 65 naming
  it; a leversim table without one of its columns, or with a generated column, likewise.
  Columns are found by name: a table whose columns stand in another order is read, and
  merged, right (merge copies column by column by name; it copied by position before).
- **Outputs** (`sweep`, `run --db`, `merge` into, `reproduce`): a database holding any object
  leversim did not create (a trigger, a view, a table, an index, a column) is refused before a
  byte is written, exit 65 naming the object; triggers are disabled on every connection too.
  An output database given as a symbolic link is refused (74): SQLite would write through it
  (and create the file a dangling link points to); an input may be a link.
- **Versions**: a database of another schema version is refused naming its version (exit 74);
  a fresh `reproduce` replaces an older leversim database.
- **gnuplot** (`figures`, `plot`, `calibrate --plot`; sim/gnuplot.c) runs with `-d`, so
  neither a system gnuplotrc nor `~/.gnuplot` runs; its input is /dev/null, its log never
  opened through a link, and it is killed after 120 s (`LEVERSIM_GNUPLOT_LIMIT=SECONDS`). It
  draws into a temporary file renamed over the image after it succeeded: every file leversim
  writes, images and `.dat` files included, follows one rule (sim/fileio.h): never through a
  symbolic link, never over a file leversim did not write, nothing partial left behind.
  `testbed model` checks the free space for the whole file before writing a byte.
- **Ranges**: a device value has one range wherever it is written (devices/device.c): a
  profile's bandwidths from 1 MB/s (the read rate of the flash path too), compute from
  1 MFLOP/s, clocks from 1 MHz, DRAM from 1 MB, as `--set` refuses them, so `profiles
  validate` refuses what a run would.
- **YAML** (sim/yaml.c): nesting beyond 256 levels and more than 1024 aliases are refused on
  libyaml's events before the document is built (reading stays linear in the input: 40000
  nested brackets took a minute); files of more than 64 MiB are refused. A tag other than the
  core schema's (`!!str`, `!!int`, ...) is refused: `!!binary` or `!python/object` would be read
  as plain text, not as the tag says.
- **Plug-ins** (`--plugin`, `policy check`): the file must be a regular file (a FIFO blocked
  the load for ever); `policy check` loads each plug-in in a child process first, so a
  constructor that crashes, exits or never returns is a `FAIL` (exit 1), not the checker's end.
- **Traces**: an off record whose path its position already has is refused (the replay took
  one of the two silently); a position holds at most 4096 off records.
- **Empty values**: `--set KEY=` and an empty file or folder name (`--out ''`) are usage
  errors (64), not I/O errors; a baseline without entries is refused (it would pass anything);
  `export --format json` writes valid UTF-8 (a byte that is not is written as U+FFFD).
- **Paths**: SQLite opens database paths of at most 512 bytes (absolute); a longer one is
  refused saying so (exit 74). Every other path may be as long as the system allows
  (PATH_MAX): no file name is cut.

### Test harness time limits

The harnesses' limits (`adversarial.cases`: 20 s a case; `adversarial.race`: waits of up to
60 s, "at once" meaning within 10 to 20 s) tell a hang or SQLite's minute-long lock wait from
"at once"; they never measure speed. Each is multiplied by `LEVERSIM_TEST_TIME_FACTOR` (a
whole number, default 1) that CI or a loaded machine raises. `make test` leaves out the checks
labelled `long` (`ctest -L long`); `make test-long` runs them; CI runs both.
HEAD
sh "$ROOT/tests/adversarial/run.sh" --markdown "$BIN"
