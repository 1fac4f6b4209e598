# tests/adversarial/cases.sh: the adversarial table, sourced by run.sh. One line per case:
#   t WHAT EXIT FRAGMENT SETUP ARGS...   (POST, DATA, LIMIT_F, STDOUT as run.sh says)
# Grouped by the classes of issue 22; docs/BAD_INPUTS.md ("Adversarial table") is generated
# from this file by tests/fuzz/bad_inputs.sh, so the two cannot differ.
KINDS="foreign foreign_sqlite device fifo folder"
RUNFX="run --device tiny --model tiny-target --dataset iid --system lever --prompts 1 --tokens 4"
FIO=$ROOT/devices/measurements/8gen3-ufs40-fio.json
PROFILE=$ROOT/devices/profiles/oneplus-12.yaml

# ---- 1. ownership of outputs: every writing command against each kind of foreign target ----
section "Outputs that are not leversim's (never deleted, truncated or replaced)"
db_code() { case $1 in foreign|foreign_sqlite) echo 65 ;; *) echo 74 ;; esac; }
db_frag() {
  case $1 in
  foreign) echo "not a SQLite database" ;; foreign_sqlite) echo "without leversim's tables" ;;
  device) echo "is a device" ;; fifo) echo "is a FIFO" ;; folder) echo "is a directory" ;;
  esac
}
out_frag() {
  case $1 in
  foreign|foreign_sqlite) echo "was not written by leversim" ;; device) echo "is a device" ;;
  fifo) echo "is a FIFO" ;; folder) echo "is a directory" ;;
  esac
}
for k in $KINDS; do
  POST="unchanged $k T" t "sweep --db: $k" "$(db_code $k)" "$(db_frag $k)" "make_target $k T" sweep "$ADV_EXP" --db T
  POST="unchanged $k T" DATA=root t "reproduce --db: $k (deleted a text file before the fix)" "$(db_code $k)" "$(db_frag $k)" "make_target $k T" reproduce --quick --no-figures --db T
  POST="unchanged $k T" t "run --db: $k" "$(db_code $k)" "$(db_frag $k)" "make_target $k T" $RUNFX --db T
  POST="unchanged $k T" t "merge into: $k" "$(db_code $k)" "$(db_frag $k)" "make_target $k T" merge T "$ADV_GOOD"
  POST="unchanged $k T" t "export --out: $k" 74 "$(out_frag $k)" "make_target $k T" export --db "$ADV_GOOD" --out T
  POST="unchanged $k T" t "check --write-baseline: $k" 74 "$(out_frag $k)" "make_target $k T" check --db "$ADV_GOOD" --write-baseline T
  POST="unchanged $k T" t "trace record --out: $k" 74 "$(out_frag $k)" "make_target $k T" trace record --dataset iid --model tiny-target --prompts 1 --out T
  POST="unchanged $k T" DATA=root t "calibrate --out: $k (renamed over a device before the fix)" 74 "$(out_frag $k)" "make_target $k T" calibrate --base oneplus-12 --fio "$FIO" --only flash --out T
done
for k in foreign foreign_sqlite device fifo; do
  POST="unchanged $k T" t "figures --out: $k" 74 "" "make_target $k T" figures --db "$ADV_GOOD" --out T
done
POST='test "$(cat plots/calibrate-flash.dat)" = x' DATA=root t "calibrate --plot: a foreign file named like a plot's data" 74 "calibrate-flash.dat: exists and was not written by leversim" "mkdir plots && foreign plots/calibrate-flash.dat" calibrate --base oneplus-12 --fio "$FIO" --only flash --out o.yaml --plot plots
POST='test "$(cat T)" = x' t "symbolic link to a foreign file as --db" 65 "not a SQLite database" "foreign T; ln -s T L" sweep "$ADV_EXP" --db L
POST='test ! -e /dev/null-journal && test ! -e /dev/null-wal' t "--db /dev/null (left /dev/null-journal before the fix)" 74 "is a device" "" sweep "$ADV_EXP" --db /dev/null
POST='test -s E.csv && test "$(cat keep.txt)" = x' t "export --out over its own earlier export is allowed" 0 "" "foreign keep.txt; cp $ADV_GOOD g.db; $BIN export --db g.db --out E.csv" export --db "$ADV_GOOD" --out E.csv
POST='test ! -s empty.db' t "figures --db on an empty file (wrote a schema into it before the fix)" 65 "not a leversim results database" ": > empty.db" figures --db empty.db --out figs
POST='test ! -s empty.db' t "export --db on an empty file" 65 "not a leversim results database" ": > empty.db" export --db empty.db
POST='sqlite3 other.db "SELECT count(*) FROM sqlite_master" | grep -qx 1' t "sweep into another program's SQLite file (added tables before the fix)" 65 "without leversim's tables" "foreign_sqlite other.db" sweep "$ADV_EXP" --db other.db
POST='cmp tagged.db tagged.db.orig' t "sweep into a SQLite file with another application_id" 65 "application_id" 'sqlite3 tagged.db "PRAGMA application_id=7; CREATE TABLE meta(key, value); INSERT INTO meta VALUES(\"schema_version\", \"2\");" && cp tagged.db tagged.db.orig' sweep "$ADV_EXP" --db tagged.db
POST='sqlite3 T.db "SELECT count(*) FROM runs" | grep -qx 2' t "sweep into an empty file adopts it" 0 "" ": > T.db" sweep "$ADV_EXP" --db T.db
POST='sqlite3 T.db "PRAGMA application_id" | grep -qx 1280725587' t "a new database carries leversim's application_id" 0 "" "" sweep "$ADV_EXP" --db T.db
t "--out '' (74 before the fix)" 64 "" "" export --db "$ADV_GOOD" --out ''
t "--db ''" 64 "not a file" "" sweep "$ADV_EXP" --db ''
t "--db :memory:" 64 "not a file" "" sweep "$ADV_EXP" --db :memory:

# ---- 2. database inputs that are not leversim databases: read-only commands agree ----
section "Database inputs that are not leversim's"
in_code() { case $1 in foreign|foreign_sqlite) echo 65 ;; *) echo 74 ;; esac; }
in_frag() {
  case $1 in
  foreign) echo "not a SQLite database" ;; foreign_sqlite) echo "not a leversim results database" ;;
  device) echo "is a device" ;; fifo) echo "is a FIFO" ;; folder) echo "is a directory" ;;
  esac
}
for k in $KINDS; do
  POST="unchanged $k T" t "export --db: $k" "$(in_code $k)" "$(in_frag $k)" "make_target $k T" export --db T
  POST="unchanged $k T" t "figures --db: $k (export and figures disagreed before the fix)" "$(in_code $k)" "$(in_frag $k)" "make_target $k T" figures --db T --out figs
  POST="unchanged $k T" t "check --db: $k" "$(in_code $k)" "$(in_frag $k)" "make_target $k T" check --db T --baseline "$ROOT/results/baseline/quick.yaml"
  POST="unchanged $k T && test ! -e out.db" t "merge input: $k (no output made)" "$(in_code $k)" "$(in_frag $k)" "make_target $k T" merge out.db T
done
t "export --db: missing" 66 "No such file" "" export --db none.db
t "figures --db: missing" 66 "No such file" "" figures --db none.db --out figs
t "merge input: missing" 66 "none.db" "" merge out.db none.db
t "schema_version 'two' (reported as 0 before the fix)" 74 "schema_version 'two'" 'good_db g.db; sqlite3 g.db "UPDATE meta SET value = \"two\" WHERE key = \"schema_version\""' export --db g.db
t "schema_version 'two' as sweep output" 74 "schema_version 'two'" 'good_db g.db; sqlite3 g.db "UPDATE meta SET value = \"two\" WHERE key = \"schema_version\""' sweep "$ADV_EXP" --db g.db
POST='test ! -e out.db || test "$(sqlite3 out.db "SELECT count(*) FROM runs")" = 0' t "merge: damaged input is blamed, not the output" 65 "bad.db" 'good_db bad.db; sqlite3 bad.db "PRAGMA writable_schema=1; UPDATE sqlite_master SET rootpage = 9999 WHERE name = \"metrics\"" 2>/dev/null; true' merge out.db bad.db
t "read-only folder holding a -wal (read a stale image before the fix)" 74 "-wal" 'mkdir ro && good_db ro/x.db && printf "junk" > ro/x.db-wal && chmod 0555 ro' export --db ro/x.db

# ---- 3. inputs read whole: FIFOs, devices, folders never hang ----
section "Inputs that are not regular files (never a hang)"
for k in device fifo folder; do
  POST="unchanged $k T" t "trace info: $k" 74 "not a regular file" "make_target $k T" trace info T
  POST="unchanged $k T" t "sweep --check experiment: $k (hung on a FIFO before the fix)" "$( [ $k = fifo ] && echo 65 || echo 74)" "$( [ $k = fifo ] && echo 'empty document' || echo 'not a regular file')" "make_target $k T" sweep T --check
  POST="unchanged $k T" t "profiles validate: $k" "$( [ $k = fifo ] && echo 65 || echo 74)" "$( [ $k = fifo ] && echo 'empty document' || echo 'not a regular file')" "make_target $k T" profiles validate T
  if [ $k = fifo ]; then # read with a time limit: no writer reads as empty
    POST="unchanged $k T" DATA=root t "calibrate --fio: $k" 65 "T:1:" "make_target $k T" calibrate --base oneplus-12 --fio T --out o.yaml
  else
    POST="unchanged $k T" DATA=root t "calibrate --fio: $k" 74 "not a regular file" "make_target $k T" calibrate --base oneplus-12 --fio T --out o.yaml
  fi
  POST="unchanged $k T" t "run --set workload.trace: $k" 74 "not a regular file" "make_target $k T" $RUNFX --set workload.trace=T
done
t "trace info: missing (74 before the fix)" 66 "cannot open" "" trace info none.trace
DATA=root t "calibrate --fio: missing (74 before the fix)" 66 "cannot open" "" calibrate --base oneplus-12 --fio none.json --out o.yaml
DATA=root t "calibrate --llama-bench: missing" 66 "cannot open" "" calibrate --base oneplus-12 --llama-bench none.csv --out o.yaml
t "run --set workload.trace: missing (74 before the fix)" 66 "cannot open" "" $RUNFX --set workload.trace=none.trace
t "experiment: missing" 66 "cannot open" "" sweep none.yaml --check
t "profile: missing" 66 "cannot open" "" profiles validate none.yaml

# ---- 4. NUL bytes in YAML ----
section "NUL bytes in YAML keys and values (silently cut before the fix)"
t "profile value with \\0" 65 'a NUL byte' "nul_value $PROFILE p.yaml name:" profiles validate p.yaml
t "profile key with \\0" 65 'a NUL byte' "nul_key $PROFILE p.yaml name" profiles validate p.yaml
t "profile nested value with \\0" 65 'p.yaml:' "nul_value $PROFILE p.yaml '  lanes:'" profiles validate p.yaml
t "experiment value with \\0" 65 'a NUL byte' "nul_value $ADV_EXP e.yaml name:" sweep e.yaml --check
t "experiment key with \\0" 65 'a NUL byte' "nul_key $ADV_EXP e.yaml seed" sweep e.yaml --check
t "experiment system name with \\0" 65 'a NUL byte' "sed 's/systems: \\[lever, specinfer\\]/systems: [\"lever\\\\0x\"]/' $ADV_EXP > e.yaml" sweep e.yaml --check
t "baseline with \\0" 65 'a NUL byte' "nul_value $ROOT/results/baseline/quick.yaml b.yaml experiment:" check --db "$ADV_GOOD" --baseline b.yaml
t "raw NUL byte in a profile" 65 'control characters' "head -c 20 $PROFILE > p.yaml; printf '\\000\\n' >> p.yaml" profiles validate p.yaml
PIPE_IN=ctl.yaml t "YAML from a pipe has a line:col (none before the fix)" 65 '/dev/stdin:2:1' "printf 'id: a\\n\\001\\n' > ctl.yaml" profiles validate /dev/stdin

# ---- 5. work bounded by input size ----
section "Inputs that would take long (each command < 5 s)"
t "mapping of 200000 keys (quadratic duplicate check before the fix)" 65 "" "awk 'BEGIN { for (i = 0; i < 200000; i++) print \"k\" i \": 1\" }' > big.yaml" profiles validate big.yaml
t "200000 keys with a duplicate at the end" 65 "duplicate key" "awk 'BEGIN { for (i = 0; i < 200000; i++) print \"k\" i \": 1\"; print \"k7: 2\" }' > big.yaml" profiles validate big.yaml
t "a trace line of 10 MB" 65 "line too long" "{ printf 'leversim-trace 1\\n'; head -c 10000000 /dev/zero | tr '\\\\0' 'x'; } > big.trace" trace info big.trace
t "a 100 MB YAML file of spaces" 65 "" "head -c 100000000 /dev/zero | tr '\\\\0' ' ' > big.yaml" profiles validate big.yaml

# ---- 6. traces checked against the run ----
section "Traces that do not fit the run"
t "trace of another dataset (replayed silently before the fix)" 64 "(--set): workload.trace=t.trace was recorded on dataset positional" "$BIN trace record --dataset positional --model tiny-target --prompts 1 --out t.trace" $RUNFX --set workload.trace=t.trace
t "--prompts beyond the trace's prompts (ran 1, recorded 50 before the fix)" 64 "holds 1 prompt, the run asks for 50" "$BIN trace record --dataset iid --model tiny-target --prompts 1 --out t.trace" run --device tiny --model tiny-target --dataset iid --system lever --prompts 50 --tokens 4 --set workload.trace=t.trace
t "duplicate prompt record" 65 "t.trace:" "$BIN trace record --dataset iid --model tiny-target --prompts 1 --out t0.trace && awk '/^prompt/ { n++ } { print } END { }' t0.trace > /dev/null && sed -n '/^prompt/,/^end/p' t0.trace | grep -v '^end' > body && { sed -n '1,/^prompt/p' t0.trace | grep -v '^prompt'; cat body body; echo end; } > t.trace" trace info t.trace

t "duplicate meta record (the second was ignored before the fix)" 65 "duplicate meta record" "$BIN trace record --dataset iid --model tiny-target --prompts 1 --out t0.trace && sed 's/^meta dataset iid/meta dataset iid\\nmeta dataset positional/' t0.trace > t.trace" trace info t.trace
t "trace of another draft" 64 "recorded with draft other-draft" "$BIN trace record --dataset iid --model tiny-target --prompts 1 --out t0.trace && sed 's/^meta draft tiny-draft/meta draft other-draft/' t0.trace > t.trace" $RUNFX --set workload.trace=t.trace

# ---- 7. experiments: the quick section ----
section "Experiment quick: sections"
# a wrong setting name is 64 wherever it is written (README, "Exit codes")
t "misspelt key in quick.settings (passed --check before the fix)" 64 "quick.settings (checked without --quick): e.yaml:12:22: workload.promts=1: unknown setting (did you mean workload.prompts?)" "cat $ADV_EXP > e.yaml; printf 'quick:\\n  settings:\\n    workload.promts: 1\\n' >> e.yaml" sweep e.yaml --check
t "misspelt key in quick.settings with --quick" 64 "e.yaml:12:22: workload.promts=1: unknown setting" "cat $ADV_EXP > e.yaml; printf 'quick:\\n  settings:\\n    workload.promts: 1\\n' >> e.yaml" sweep e.yaml --check --quick
t "quick.settings scoped to a system that does not read it" 64 "draft.budgt=3: unknown setting" "cat $ADV_EXP > e.yaml; printf 'quick:\\n  settings:\\n    lever:draft.budgt: 3\\n' >> e.yaml" sweep e.yaml --check
t "unknown key in quick:" 65 "quick.setings: unknown key" "cat $ADV_EXP > e.yaml; printf 'quick:\\n  setings:\\n    workload.prompts: 1\\n' >> e.yaml" sweep e.yaml --check
t "bad value in quick.settings without --quick" 65 "verify.overlap" "cat $ADV_EXP > e.yaml; printf 'quick:\\n  settings:\\n    verify.overlap: sideways\\n' >> e.yaml" sweep e.yaml --check

# ---- 8. exit codes and locations ----
section "Exit codes and locations"
# a value typed on the command line that does not fit is 64 and names its argument; the same
# in a file is 65 with file:line:col

t "wrong policy name (66 before the fix)" 64 "levr" "" run --device tiny --model tiny-target --dataset iid --system levr
t "bad --set model.quant (65 before the fix)" 64 "model.quant" "" $RUNFX --set model.quant=q9_9
RUNR="run --device oneplus-12 --model llama-3.1-8b --dataset gsm8k --system lever --prompts 1 --tokens 4"
DATA=root t "a draft of another family" 64 "(--set): model.draft=" "" $RUNR --set model.draft=qwen3-0.6b
DATA=root t "a target used as a draft" 64 "(--set): model.draft=" "" $RUNR --set model.draft=qwen3-8b
t "a draft model typed as the target (no argument before the fix)" 64 "--model tiny-draft: a draft model, not a target" "" run --device tiny --model tiny-draft --dataset iid --system lever --prompts 1 --tokens 4
t "a draft model listed as a target in an experiment (no line before the fix)" 65 "e.yaml:6:27: parts[0].models[1]: 'tiny-draft' is a draft model" "sed 's/models: \\[tiny-target\\]/models: [tiny-target, tiny-draft]/' $ADV_EXP > e.yaml" sweep e.yaml --check
t "unknown device" 66 "pixel-99" "" run --device pixel-99 --model tiny-target --dataset iid --system lever
t "unknown draft policy in --set (66 before the fix)" 64 "argument 15 (--set): policy.draft=nope: unknown draft policy" "" $RUNFX --set policy.draft=nope
t "unknown prune policy in an experiment" 64 "e.yaml:11:22: policy.prune=nope: unknown prune policy" "cat $ADV_EXP > e.yaml; printf '    sweep:\\n      policy.prune: [nope]\\n' >> e.yaml" sweep e.yaml --check

# ---- 9. failed writes never exit 0, never a signal ----
section "Failed writes (a full disk, ulimit -f)"
STDOUT=/dev/full t "run > /dev/full" 74 "" "" $RUNFX
STDOUT=/dev/full t "run --json > /dev/full" 74 "" "" $RUNFX --json
STDOUT=/dev/full DATA=root t "settings > /dev/full" 74 "" "" settings
STDOUT=/dev/full DATA=root t "profiles show > /dev/full" 74 "" "" profiles show oneplus-12
STDOUT=/dev/full DATA=root t "tree > /dev/full" 74 "" "" tree
STDOUT=/dev/full DATA=root t "devices curve --csv > /dev/full" 74 "" "" devices curve --device oneplus-12 --model llama-3.1-8b --csv
STDOUT=/dev/full t "export --format table > /dev/full" 74 "" "" export --db "$ADV_GOOD" --format table
STDOUT=/dev/full t "trace info > /dev/full" 74 "" "$BIN trace record --dataset iid --model tiny-target --prompts 1 --out t.trace" trace info t.trace
STDOUT=/dev/full t "trace record > /dev/full" 74 "" "" trace record --dataset iid --model tiny-target --prompts 1
STDOUT=/dev/full DATA=root t "calibrate --json > /dev/full" 74 "" "" calibrate --base oneplus-12 --fio "$FIO" --only flash --out o.yaml --json
POST=no_temp LIMIT_F=1 t "export --out under ulimit -f (SIGXFSZ before the fix)" 74 "" "" export --db "$ADV_GOOD" --out e.csv
POST=no_temp LIMIT_F=1 t "export to stdout under ulimit -f" 74 "" "" export --db "$ADV_GOOD"
LIMIT_F=1 t "merge under ulimit -f" 74 "" "" merge out.db "$ADV_GOOD"
LIMIT_F=1 t "sweep under ulimit -f" 74 "" "" sweep "$ADV_EXP" --db s.db
LIMIT_F=1 t "run --db under ulimit -f" 74 "" "" $RUNFX --db r.db
POST=no_temp LIMIT_F=1 t "trace record --out under ulimit -f" 74 "" "" trace record --dataset iid --model tiny-target --prompts 3 --out t.trace
POST=no_temp LIMIT_F=1 DATA=root t "calibrate --out under ulimit -f" 74 "" "" calibrate --base oneplus-12 --fio "$FIO" --only flash --out o.yaml
POST=no_temp LIMIT_F=1 t "check --write-baseline under ulimit -f" 74 "" "" check --db "$ADV_GOOD" --write-baseline quick.yaml
POST=no_temp LIMIT_F=1 t "figures under ulimit -f" 74 "File too large" "" figures --db "$ADV_GOOD" --out figs
