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
POST='test "$(cat T)" = x' t "symbolic link to a foreign file as --db" 74 "is a symbolic link" "foreign T; ln -s T L" sweep "$ADV_EXP" --db L
POST='cmp G.db G.db.orig && test -L L' t "symbolic link to a leversim database as --db (written through before the fix)" 74 "is a symbolic link" 'good_db G.db && cp G.db G.db.orig && ln -s G.db L' sweep "$ADV_EXP" --db L --force
POST='test ! -e elsewhere.db' t "dangling symbolic link as --db (created the file it points to before the fix)" 74 "is a symbolic link" "ln -s elsewhere.db L" sweep "$ADV_EXP" --db L
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
POST='right_rows out.txt' t "export of a database of mode 0444 in a folder of mode 0555" 0 "" 'mkdir ro && good_db ro/x.db && chmod 0444 ro/x.db && chmod 0555 ro' export --db ro/x.db
POST='test -s figs/table1.csv' t "figures from a database of mode 0444 in a folder of mode 0555" 0 "" 'mkdir ro && good_db ro/x.db && chmod 0444 ro/x.db && chmod 0555 ro' figures table1 --db ro/x.db --out figs

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

# ---- 11. databases that carry code: never run, refused naming the object, or read right ----
section "Databases that carry code or another shape (issue 35: a view that never ends, a trigger that deletes)"
# Inputs: the file's views and triggers never run (leversim's views are its own); a leversim
# table that is not a table is refused naming it; columns are read by name. The file is never
# changed.
for h in loop_view extra_view trigger reordered; do
  POST="cmp H.db H.db.orig && right_rows out.txt" t "export --db: $h (read right)" 0 "" "hostile_db $h H.db" export --db H.db
  POST="cmp H.db H.db.orig && \$BIN export --db m.db --out m.csv && right_rows m.csv" t "merge input: $h (read right)" 0 "2 runs added" "hostile_db $h H.db" merge m.db H.db
done
POST="cmp H.db H.db.orig" t "figures --db: a view that never ends as v_runs" 0 "" "hostile_db loop_view H.db" figures table1 --db H.db --out figs
for c in "export --db H.db" "figures --db H.db --out figs" "merge m.db H.db" "check --db H.db --write-baseline b.yaml"; do
  POST="cmp H.db H.db.orig && test ! -e m.db" t "${c%% *}: runs is a view that never ends" 65 "'runs' is a view, but leversim's 'runs' is a table" "hostile_db runs_view H.db" $c
done
POST="cmp H.db H.db.orig" t "export --db: a generated column (code run on read)" 65 "generated column" "hostile_db gen_column H.db" export --db H.db
POST="cmp H.db H.db.orig && test \$(grep -c tiny out.txt) = 2" t "plot --db: a view that never ends as v_runs (read right)" 0 "" "hostile_db loop_view H.db" plot --db H.db --x system --y throughput_tps --by device --format csv
POST="cmp H.db H.db.orig" t "plot --db: runs is a view that never ends" 65 "'runs' is a view" "hostile_db runs_view H.db" plot --db H.db --x system --y throughput_tps --format csv
# Outputs: anything leversim did not create is refused before a byte is written.
for c in "sweep $ADV_EXP --db H.db" "$RUNFX --db H.db" "merge H.db $ADV_GOOD"; do
  POST="cmp H.db H.db.orig" t "${c%% *} into a database with a deleting trigger (deleted runs, exit 0, before the fix)" 65 "holds a trigger 'wipe' that leversim did not create" "hostile_db trigger H.db" $c
  POST="cmp H.db H.db.orig" t "${c%% *} into a database with a view of its own" 65 "holds a view 'evil'" "hostile_db extra_view H.db" $c
  POST="cmp H.db H.db.orig" t "${c%% *} into a database whose runs is a view" 65 "'runs' is a view" "hostile_db runs_view H.db" $c
done
POST="cmp H.db H.db.orig" DATA=root t "reproduce into a database with a deleting trigger" 65 "holds a trigger 'wipe'" "hostile_db trigger H.db" reproduce --quick --no-figures --db H.db
POST="cmp H.db H.db.orig" DATA=root t "reproduce --resume into a database with a deleting trigger" 65 "holds a trigger 'wipe'" "hostile_db trigger H.db" reproduce --quick --no-figures --resume --db H.db
POST='sqlite3 H.db "SELECT count(*) FROM runs" | grep -qx 2' t "sweep into a database whose v_runs never ends (views are leversim's, made again)" 0 "" "hostile_db loop_view H.db" sweep "$ADV_EXP" --db H.db --resume
POST='$BIN export --db H.db --out e.csv && right_rows e.csv 3' t "run --db into a database whose columns stand in another order (written by name)" 0 "" "hostile_db reordered H.db" $RUNFX --db H.db
POST="cmp H.db H.db.orig" t "a newer schema version is refused, naming it" 74 "schema_version '4', this leversim reads 3" 'good_db H.db && sqlite3 H.db "UPDATE meta SET value = 4 WHERE key = \"schema_version\"" && cp H.db H.db.orig' export --db H.db

# ---- 12. one output rule for every file leversim writes, gnuplot's images included ----
section "Outputs written by gnuplot and beside them (issue 35: through a link, over a foreign file)"
PLOT="plot --db $ADV_GOOD --x system --y throughput_tps"
POST="unchanged foreign T.png" DATA=root t "plot --out over a foreign FILE.png (overwritten before the fix)" 74 "was not written by leversim" "foreign T.png" $PLOT --out T.png
POST="unchanged foreign T.png.dat && test ! -e T.png" DATA=root t "plot --out beside a foreign FILE.png.dat (overwritten before the fix)" 74 "was not written by leversim" "foreign T.png.dat" $PLOT --out T.png
POST='test "$(cat victim.png)" = PNG && test -f L.png && test ! -L L.png && no_temp' DATA=root t "plot --out through a link to an image (written through before the fix)" 0 "" "printf PNG > victim.png && ln -s victim.png L.png" $PLOT --out L.png
POST='test ! -e outside.csv && test -f figs/table1.csv && test ! -L figs/table1.csv' t "figures: a dangling link inside --out is replaced, never followed" 0 "" "mkdir figs && ln -s ../outside.csv figs/table1.csv" figures table1 --db "$ADV_GOOD" --out figs
POST='test "$(head -1 victim.dat)" = "# measured: x" && test ! -L plots/calibrate-flash.dat && no_temp' DATA=root t "calibrate --plot through a link to its own kind of file (written through before the fix)" 0 "" "mkdir plots && printf '# measured: x\n' > victim.dat && ln -s ../victim.dat plots/calibrate-flash.dat" calibrate --base oneplus-12 --fio "$FIO" --only flash --out o.yaml --plot plots
POST='test ! -e h/pwned && test -s T.png' HOME_IN=h DATA=root t "plot with a start-up file .gnuplot in HOME that runs a command (ran before the fix)" 0 "" "mkdir h && printf 'system \"touch %s/h/pwned\"\n' \"\$(pwd)\" > h/.gnuplot" $PLOT --out T.png
POST='test ! -e m.gguf && no_temp' DATA=root t "testbed model of a huge shape (a multi-terabyte write began, partial file left, before the fix)" 74 "free; nothing written" "" testbed model --model qwen3-14b --layers 1024 --width 65536 --out m.gguf

# ---- 13. one range for a value wherever it is written; empty values; valid output text ----
section "Ranges, empty values, text (issue 35)"
POST="" t "profile: flash at 1 B/s (passed validate, then run exited 70, before the fix)" 65 "link_bandwidth" "sed 's|^  link_bandwidth:.*|  link_bandwidth: 1 B/s|' $PROFILE > p.yaml" profiles validate p.yaml
t "profile: DRAM bandwidth of 1 B/s (ordinary-looking results before the fix)" 65 "dram.bandwidth" "awk '/^dram:/ {d = 1} d && /^  bandwidth:/ {print \"  bandwidth: 1 B/s\"; d = 0; next} {print}' $PROFILE > p.yaml" profiles validate p.yaml
t "profile: NPU compute of 1 FLOP/s" 65 "npu.flops" "awk '/^npu:/ {d = 1} d && /^  flops:/ {print \"  flops: 1 FLOP/s\"; d = 0; next} {print}' $PROFILE > p.yaml" profiles validate p.yaml
t "--set workload.trace= (an I/O error before the fix)" 64 "an empty value" "" $RUNFX --set workload.trace=
t "figures --out '' (an I/O error before the fix)" 64 "an empty value" "" figures --db "$ADV_GOOD" --out ''
t "check against a baseline without entries (passed before the fix)" 65 "no entries" "printf 'experiment: paper\nreplay: quick\nspec_hash: \"0123456789abcdef\"\nprompts: \"8\"\nmax_tokens: \"64\"\nk: 1\nfloor: 0.001\nno_interval: 0.02\nentries: []\n' > b.yaml" check --db "$ADV_GOOD" --baseline b.yaml
POST='iconv -f UTF-8 -t UTF-8 out.txt > /dev/null && grep -qF "p\\ufffdq" out.txt' t "export --format json of text that is not UTF-8 (passed through before the fix)" 0 "" "good_db H.db && sqlite3 H.db \"UPDATE runs SET part = CAST(X'70FF71' AS TEXT)\"" export --db H.db --format json
t "YAML of 40000 nested flow mappings (about a minute, quadratic, before the fix)" 65 "nesting deeper than 256 levels" "awk 'BEGIN { printf \"x: \"; for (i = 0; i < 40000; i++) printf \"{a: \"; printf \"1\"; for (i = 0; i < 40000; i++) printf \"}\"; print \"\" }' > p.yaml" profiles validate p.yaml
POST='test ! -e T.png && no_temp' ENV_IN="LEVERSIM_GNUPLOT=@D@/gp LEVERSIM_GNUPLOT_LIMIT=1" DATA=root t "plot with a gnuplot that never returns (waited forever before the fix)" 70 "time limit" "printf '#!/bin/sh\nexec sleep 1000\n' > gp && chmod +x gp" $PLOT --out T.png
POST='test ! -e figs/fig04.png && no_temp' ENV_IN="LEVERSIM_GNUPLOT=@D@/gp LEVERSIM_GNUPLOT_LIMIT=1" DATA=root t "figures with a gnuplot that never returns (waited forever before the fix)" 70 "time limit" "printf '#!/bin/sh\nexec sleep 1000\n' > gp && chmod +x gp" figures fig04 --db "$ADV_GOOD" --out figs
t "trace with the same off path twice at a position (accepted before the fix)" 65 "duplicate off record" "printf 'leversim-trace 1\nmeta dataset iid\nprompt 0 10 1\npos 0 0 2 0.5 0.3\noff 0 1 2 0.6 0.2\noff 0 1 2 0.6 0.2\nend\n' > t.trace" trace info t.trace

# ---- 14. one range table (issue 35): the same bounds in a file and on the command line ----
section "One range table: a file, the command line and a stored database hold the same values (issue 35)"
PAPERFX="run --device oneplus-12 --model qwen3-8b --dataset gsm8k --system lever --prompts 1 --tokens 4"
DATA=root t "--set device.npu.vec_flops of 0.5 GFLOP/s, which a profile may hold (refused on the command line alone before the fix)" 0 "" "" $PAPERFX --set "device.npu.vec_flops=0.5 GFLOP/s"
DATA=root t "--set device.npu.vec_flops above the table's 10 PFLOP/s" 64 "out of range" "" $PAPERFX --set "device.npu.vec_flops=20000 TFLOP/s"
t "profile: vec_flops above the table's 10 PFLOP/s (the same bound as --set)" 65 "vec_flops" "sed 's|^    vec_flops:.*|    vec_flops: 20000 TFLOP/s|' $PROFILE > p.yaml" profiles validate p.yaml
DATA=root t "--set device.dram.budget above the profile's app budget" 64 "must not exceed the profile's dram.app_budget" "" $PAPERFX --set device.dram.budget=100GB
t "reproduce --prompts above the table's 100000 (1000000 was accepted before the fix)" 64 "expected a whole number in [1, 100000]" "" reproduce --quick --no-figures --prompts 200000 --db r.db
t "experiment sizing: prompts above the table's 100000" 65 "out of range" "printf 'name: big\nseed: 1\nsizing:\n  parts: [p]\n  systems: [lever]\n  prompts:\n    tiny-target: 200000\nparts:\n  - name: p\n    devices: [tiny]\n    models: [tiny-target]\n    datasets: [iid]\n    systems: [lever]\n' > x.yaml" sweep x.yaml --db x.db --check

# a run's size: the documented maxima of prompts and tokens bounded together (prompts x tokens <= 2e7)
t "run at the bound: 20 prompts x 1000000 tokens (a cheap system: iid ends at 256 tokens)" 0 "" "" run --device tiny --model tiny-target --dataset iid --system lever --prompts 20 --tokens 1000000
t "run above the bound: 21 prompts x 1000000 tokens (never ended at the documented maxima before the fix)" 64 "above the 20000000 tokens one run may generate" "" run --device tiny --model tiny-target --dataset iid --system lever --prompts 21 --tokens 1000000
t "experiment above the bound: settings of 100000 prompts x 1000 tokens" 65 "above the 20000000 tokens one run may generate" "printf 'name: big\nseed: 1\nparts:\n  - name: p\n    devices: [tiny]\n    models: [tiny-target]\n    datasets: [iid]\n    systems: [lever]\n    settings: {workload.prompts: 100000, workload.max_tokens: 1000}\n' > x.yaml" sweep x.yaml --db x.db --check

# values stored in an input database are checked again: its CHECK constraints are the file's own
for c in "export --db H.db" "merge m.db H.db" "figures --db H.db --out figs" "check --db H.db --write-baseline b.yaml"; do
  POST="cmp H.db H.db.orig && test ! -e m.db && test ! -e b.yaml" t "${c%% *}: a run status leversim never writes (past the file's CHECK)" 65 "status 'great' is not one of ok, failed, invalid" "hostile_db bad_status H.db" $c
done
POST="cmp H.db H.db.orig" t "export: run_settings.is_default 2 (past the file's CHECK)" 65 "is_default '2' is not 0 or 1" "hostile_db bad_default H.db" export --db H.db
POST="cmp H.db H.db.orig && test ! -e m.db" t "merge: a stored device.flash.bandwidth of 1 B/s, outside the range table" 65 "device.flash.bandwidth '1 B/s' lies outside [1 MB/s, 1 TB/s]" "hostile_db bad_setting H.db" merge m.db H.db


# models and datasets have a validate command too, with the checks a run makes of them
DS=$ROOT/workloads/datasets/gsm8k.yaml
MODEL=$ROOT/workloads/models/qwen3-8b.yaml
DATA=root t "workloads validate: a dataset's AUC above the table's 0.9999" 65 "early_exit.auc: value '1.5' out of range" "sed 's/^  auc: .*/  auc: 1.5/' $DS > gsm8k.yaml" workloads validate gsm8k.yaml
DATA=root t "workloads validate: a dataset without the process a target of the data root needs (only run refused it before)" 65 "with target llama-3.1-8b: dataset gsm8k has no acceptance process 'llama3-eagle3'" "awk '/^  llama3(-eagle3)?:/{s=1; next} s && /^  [a-z]/{s=0} !s' $DS > gsm8k.yaml" workloads validate gsm8k.yaml
DATA=root t "workloads validate: a model of 0 layers" 65 "arch.n_layers: value '0' out of range (must be in [1, 1000])" "sed 's/^  n_layers: .*/  n_layers: 0/' $MODEL > qwen3-8b.yaml" workloads validate qwen3-8b.yaml
DATA=root t "workloads validate: a target whose default_draft names no model" 66 "default_draft 'qwen3-99b': unknown model" "sed 's/^default_draft: .*/default_draft: qwen3-99b/' $MODEL > qwen3-8b.yaml" workloads validate qwen3-8b.yaml
DATA=root t "workloads validate: a file that is neither a model nor a dataset" 65 "neither a model" "printf 'id: x\n' > x.yaml" workloads validate x.yaml
DATA=root POST="test ! -e u.db" t "uncertainty: a sampled range of device.npu.vec_flops beyond the range table (sampled runs beyond it were refused before)" 65 "leaves [1e+06 FLOP/s, 10000 TFLOP/s], the range device.npu.vec_flops is read in" "sed 's/^    range: \[99e9, 295.6e9\]/    range: [99e9, 2e16]/' $ROOT/runner/experiments/ranges.yaml > r.yaml" uncertainty --ranges r.yaml --quick --no-figure --db u.db
t "trace record --prompts above the table's 1000 (100000 would write about 33 GB: 330 MB per 1000 measured)" 64 "expected a whole number in [1, 1000]" "" trace record --dataset iid --model tiny-target --prompts 1001 --out t.trace
POST="test ! -e t.trace" t "trace record with --set workload.prompts above the trace's 1000" 64 "a trace records [1, 1000] prompts" "" trace record --dataset iid --model tiny-target --set workload.prompts=5000 --out t.trace
t "settings prints the one range table, each bound with its keys and reason" 0 "in: profile flash.link_bandwidth" "" settings
t "profile: app budget above the DRAM capacity (a relation, checked with both values named)" 65 "app_budget (64 GB) exceeds capacity (16 GB)" "awk '/^dram:/ {d = 1} d && /^  app_budget:/ {print \"  app_budget: 64 GB\"; d = 0; next} {print}' $PROFILE > p.yaml" profiles validate p.yaml

# ---- 15. found by the outside battery (issue 35, part b) ----
section "Found by an outside battery of hostile cases (issue 35)"
# ctor_so NAME BODY: a plug-in whose constructor runs BODY (skipped without a C compiler)
ctor_so='command -v cc > /dev/null || exit 77; printf "#include <signal.h>\n#include <stdlib.h>\n__attribute__((constructor)) static void f(void) { %s; }\n" "$BODY" > c.c && cc -shared -fPIC -o c.so c.c'
POST='test -p x.so' t "policy check of a plug-in that is a FIFO (hung for ever before the fix)" 74 "x.so: cannot read the plug-in: a FIFO" "mkfifo x.so" policy check ./x.so
POST='test -p x.so' t "run --plugin of a FIFO (hung for ever before the fix)" 74 "x.so: cannot read the plug-in: a FIFO" "mkfifo x.so" $RUNFX --plugin ./x.so
t "policy check of a plug-in whose constructor crashes (the checker died of SIGSEGV before the fix)" 1 "its constructors crash, exit or hang when loaded" "BODY='raise(SIGSEGV)'; eval \"\$ctor_so\"" policy check ./c.so
t "policy check of a plug-in whose constructor calls exit(0) (exit 0, nothing checked, before the fix)" 1 "loading it ended the process (exit 0)" "BODY='exit(0)'; eval \"\$ctor_so\"" policy check ./c.so
t "tree --acceptance with a value above 1 (65 before the fix: typed on the command line)" 64 "p_1 = 2 is not a probability" "" tree --acceptance 2,0.5
POST="cmp H.db H.db.orig" t "export of a database without leversim's metrics table (SQLite's 'no such table', 74, before the fix)" 65 "has no table 'metrics'" 'good_db H.db && sqlite3 H.db "DROP TABLE metrics" && cp H.db H.db.orig' export --db H.db
POST="cmp H.db H.db.orig && test ! -e m.db" t "merge of an input without leversim's metrics table (74 before the fix)" 65 "has no table 'metrics'" 'good_db H.db && sqlite3 H.db "DROP TABLE metrics" && cp H.db H.db.orig' merge m.db H.db
POST="test -e H.db-journal" t "export of a database with a hot journal ('attempt to write a readonly database' before the fix)" 74 "H.db-journal is a hot journal" 'good_db H.db && python3 -c "
import sqlite3, os
c = sqlite3.connect(\"H.db\", isolation_level=None); c.execute(\"PRAGMA journal_mode=DELETE\"); c.execute(\"PRAGMA cache_size=1\")
c.execute(\"BEGIN\"); c.execute(\"UPDATE runs SET message = hex(randomblob(2000))\"); c.execute(\"UPDATE metrics SET unit = hex(randomblob(200))\"); os._exit(0)" && test -e H.db-journal' export --db H.db
POST="cmp H.db H.db.orig" t "merge of an input whose axes_json is not JSON (a CHECK of the output, 74, before the fix)" 65 "axes_json '{' is not a JSON object" 'good_db H.db && sqlite3 H.db "PRAGMA ignore_check_constraints = 1; UPDATE runs SET axes_json = '"'"'{'"'"'" && cp H.db H.db.orig' merge m.db H.db
# a table written without STRICT (its CREATE text edited) may hold a TEXT value in a REAL column:
# the input check passes it (leversim's rules, not the types), the merge's INSERT into the
# output's STRICT table refuses it, and merge names that as the input's fault (65), not a
# database error (74); the output holds nothing of it (mutant merge-input-constraint-as-io)
POST='cmp H.db H.db.orig && { test ! -e m.db || test "$(sqlite3 m.db "SELECT count(*) FROM metrics")" = 0; }' t "merge of an input whose metrics table is not STRICT and holds a TEXT value" 65 "breaks a rule of leversim's schema (cannot store TEXT value in REAL column metrics.value); it was not merged" 'good_db H.db && sqlite3 H.db "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, '"'"'STRICT, WITHOUT ROWID'"'"', '"'"'WITHOUT ROWID'"'"') WHERE name = '"'"'metrics'"'"'" && sqlite3 H.db "UPDATE metrics SET value = '"'"'abc'"'"' WHERE name = (SELECT min(name) FROM metrics)" && cp H.db H.db.orig' merge m.db H.db
POST='test -p p.tsv' DATA=root t "testbed verdict --points of a FIFO (hung for ever before the fix)" 74 "p.tsv: cannot read the points: a FIFO" "mkfifo p.tsv" testbed verdict --protocol "$ROOT/runner/testbed/protocol.yaml" --points p.tsv
t "profile with a !!binary tag on a value (read as plain text, exit 0, before the fix)" 65 "YAML tag 'tag:yaml.org,2002:binary' is not supported" "sed 's|^name: |name: !!binary |' $PROFILE > p.yaml" profiles validate p.yaml
t "experiment with a local tag (!python/object, ignored before the fix)" 65 "YAML tag '!python/object' is not supported" "sed 's|^name: |name: !python/object |' $ADV_EXP > e.yaml" sweep e.yaml --check
POST="unchanged foreign u.db" DATA=root t "uncertainty --db of somebody's text file (74 'file is not a database' before the fix)" 65 "u.db: not a SQLite database" "foreign u.db" uncertainty --quick --samples 2 --prompts 1 --tokens 1 --jobs 1 --no-figure --db u.db --out .
POST="test ! -e o.yaml && unchanged foreign plots/calibrate-flash.png" DATA=root t "calibrate --plot refused over a foreign image leaves no profile (o.yaml was written, exit 74, before the fix)" 74 "plots/calibrate-flash.png: exists and was not written by leversim" "mkdir plots && foreign plots/calibrate-flash.png" calibrate --base oneplus-12 --fio "$FIO" --only flash --out o.yaml --plot plots
POST="cmp H.db H.db.orig" t "best over a database whose axes_json is not JSON (a database error, 74, before the fix)" 65 "axes_json '{' is not a JSON object" 'good_db H.db && sqlite3 H.db "PRAGMA ignore_check_constraints = 1; UPDATE runs SET axes_json = '"'"'{'"'"'" && cp H.db H.db.orig' best --db H.db --y throughput_tps --over system
POST='test ! -e T.png && test ! -e T.png.dat && no_temp' t "plot with a data root without plots/plot.gp (gnuplot failed, exit 70, .dat left, before the fix)" 66 "the plot script is missing" "" plot --db "$ADV_GOOD" --x system --y throughput_tps --out T.png
POST="cmp H.db H.db.orig" t "testbed head-rate of a results database (the testbed's tables were written into it before the fix)" 65 "without the testbed's tables (tb_run)" 'good_db H.db && cp H.db H.db.orig' testbed head-rate --db H.db
POST="unchanged foreign H.db" t "testbed validate of somebody's text file (74 'file is not a database' before the fix)" 65 "not a SQLite database, so not a testbed database" "foreign H.db" testbed validate --db H.db --profile tiny

# ---- 16. what the outside battery still found (issue 35, part c) ----
section "Found by the outside battery, second pass (issue 35)"
# loose_db F: a copy of the good database whose runs table is made again without STRICT (the
# other tables' foreign keys then name runs_old, a table it no longer has)
loose_db='good_db H.db && sqlite3 H.db "PRAGMA journal_mode=DELETE; PRAGMA foreign_keys=OFF; ALTER TABLE runs RENAME TO runs_old; CREATE TABLE runs AS SELECT * FROM runs_old; DROP TABLE runs_old;" > /dev/null && cp H.db H.db.orig'
POST="cmp H.db H.db.orig && test ! -e H.db-wal" t "run --db of a database whose runs table is not STRICT (switched to WAL and its views rebuilt, then 74, before the fix)" 65 "not STRICT" "eval \"\$loose_db\"" $RUNFX --db H.db --force
POST="cmp H.db H.db.orig && test ! -e H.db-wal" t "sweep --db of a database with damaged pages (switched to WAL before 'malformed', 74, before the fix)" 65 "the database is damaged" 'good_db H.db && sqlite3 H.db "PRAGMA journal_mode=DELETE" > /dev/null && head -c 8192 /dev/zero | tr "\000" "\377" | dd of=H.db bs=4096 seek=2 conv=notrunc 2> /dev/null && cp H.db H.db.orig' sweep "$ADV_EXP" --db H.db --force
POST='test -f I.db && test ! -s I.db && test ! -e I.db-journal' t "testbed head-rate of a 0-byte file (the testbed's schema was written into it, then 66, before the fix)" 65 "I.db: an empty file, not a testbed database" ": > I.db" testbed head-rate --db I.db
POST='test ! -s I.db' t "testbed validate of a 0-byte file (the same)" 65 "I.db: an empty file, not a testbed database" ": > I.db" testbed validate --db I.db --profile tiny
POST="cmp T.db T.db.orig" t "testbed validate of a database whose tb_run has another shape, with a trigger (given the testbed's other tables, then 74, before the fix)" 65 "table 'tb_run' has no column 'created'" 'sqlite3 T.db "CREATE TABLE tb_run(run_id TEXT, x); CREATE TABLE log(y); CREATE TRIGGER t AFTER INSERT ON tb_run BEGIN INSERT INTO log VALUES(1); END;" && cp T.db T.db.orig' testbed validate --db T.db --profile tiny
POST="cmp R.db R.db.orig && test -L L.db" t "testbed validate --db of a symbolic link (written through before the fix)" 74 "L.db: is a symbolic link; refusing to write through it" 'good_db R.db && cp R.db R.db.orig && ln -s R.db L.db' testbed validate --db L.db --profile tiny
POST='test ! -s p.tsv' DATA=root t "testbed verdict of an empty points file (judged: NaN median, exit 2, before the fix)" 65 "p.tsv: empty, not a points file" ": > p.tsv" testbed verdict --protocol "$ROOT/runner/testbed/protocol.yaml" --points p.tsv
POST="cmp r.db r.db.orig && test ! -e r.db-wal && test ! -e r.db-shm" AS_OTHER=1 t "run --db of a read-only database of another user (refused, but an empty r.db-wal and r.db-shm were left, before the fix)" 74 "r.db: cannot write the database: Permission denied" 'good_db r.db && cp r.db r.db.orig && chmod 0444 r.db' $RUNFX --db r.db
t "run --set workload.trace=<600 characters> (65 'sweep point longer than 511 characters', naming no option, before the fix)" 64 "--set workload.trace: the value (600 characters)" "" $RUNFX --set "workload.trace=$(printf 'a%.0s' $(seq 1 600))"
t "run --tokens ' 4' (a leading blank: accepted before the fix, where every other number reader refuses it)" 64 "--tokens: bad value ' 4'" "" $RUNFX --tokens ' 4'
for v in LEVERSIM_DB_READ_LIMIT LEVERSIM_GNUPLOT_LIMIT LEVERSIM_DB_LOCK_WAIT; do
  ENV_IN="$v=abc" t "export with $v=abc (the default was used in silence before the fix)" 64 "$v='abc': expected a number of seconds" "" export --db "$ADV_GOOD"
done
POST='test -p f.gguf' t "testbed measure --target of a FIFO (a plain fopen hung for ever before the fix)" 74 "f.gguf: cannot read the GGUF model: a FIFO" "mkfifo f.gguf" testbed measure --lib . --target f.gguf --model tiny-target --db m.db
POST='test ! -e x.db' DATA=case t "sweep with a data root whose paper experiment is a FIFO (the probe for its roles hung for ever before the fix)" 74 "paper.yaml: cannot read the paper experiment: a FIFO" 'cp -r "$FX" data && mkdir -p data/runner/experiments && mkfifo data/runner/experiments/paper.yaml && cp "$ADV_EXP" e.yaml' sweep e.yaml --db x.db
DATA=root t "check against a baseline of another replay, with a FIFO named *.yaml beside it (the search for a fitting baseline hung on it before the fix)" 65 "is from the quick replay" 'LEVERSIM_DATA=$ROOT "$BIN" reproduce --quick --no-figures --prompts 1 --tokens 4 --db r.db > /dev/null && LEVERSIM_DATA=$ROOT "$BIN" check --db r.db --write-baseline b.yaml > /dev/null && sqlite3 r.db "UPDATE meta SET value = '"'"'quick'"'"' WHERE key = '"'"'replay'"'"'" && sed -i "s/^replay: .*/replay: quick/; s/^spec_hash: .*/spec_hash: \"0000000000000000\"/" b.yaml && mkfifo z.yaml' check --db r.db --baseline b.yaml
POST="cmp H.db H.db.orig" t "best --y of a metric no ok run has (66, where plot says 64 for the same slip, before the fix)" 64 "--y 'tau': no ok run in the database has this metric" 'good_db H.db && sqlite3 H.db "DELETE FROM metrics WHERE name = '"'"'tau'"'"'" && cp H.db H.db.orig' best --db H.db --y tau --over system
t "best --y of a metric without a per-prompt definition (the message was printed into itself, cut and garbled, before the fix)" 64 "--y: metric 'nosuch' has no per-prompt definition (those that do: throughput_tps" "" best --db "$ADV_GOOD" --y nosuch --over system
DATA=case t "run with LEVERSIM_DATA naming no folder ('unknown device', naming no data root, before the fix)" 66 "/data: No such file or directory (the data root" "" $RUNFX
POST='test "$(sqlite3 H.db "SELECT count(*) FROM runs WHERE axes_json = '"'"'{'"'"'")" = 2' t "run --db of a database holding another run's value that breaks a CHECK rule (still written beside it: a broken rule is data, not a damaged page)" 0 "" 'good_db H.db && sqlite3 H.db "PRAGMA ignore_check_constraints = 1; UPDATE runs SET axes_json = '"'"'{'"'"'" > /dev/null' $RUNFX --db H.db

# ---- 17. noticed at the end of session 14 (exit statuses of names, the sweep point's record) ----
section "Noticed after issue 35: names on the command line, the sweep point's record"
LB='cp "$ROOT/devices/measurements/8elite-llama-3.2-1b-hexagon.csv" b.csv'
POST='test ! -e o.yaml' DATA=root t "calibrate --llama-bench FILE:MODEL naming no model (65, where run --model gpt-9 says 66, before the fix)" 66 "unknown model 'gpt-9' (valid: " "$LB" calibrate --base oneplus-12 --llama-bench b.csv:gpt-9 --out o.yaml
POST='test ! -e o.yaml' DATA=root t "calibrate --model naming no model (65 before the fix)" 66 "unknown model 'gpt-9' (valid: " "$LB" calibrate --base oneplus-12 --model gpt-9 --llama-bench b.csv --out o.yaml
K=$(printf 'k%.0s' $(seq 1 120)) V=$(printf 'v%.0s' $(seq 1 60))
POST='test ! -e x.db' DATA=root t "sweep --axis settings whose point overflows the run's record of it (65, naming the part but no axis, before the fix)" 64 "sweep axis ${K}3 (value 'vvvv" "" sweep --axis device=oneplus-12 --axis model=qwen3-4b --axis dataset=gsm8k --axis system=lever --axis "${K}1=$V" --axis "${K}2=$V" --axis "${K}3=$V" --db x.db
