# tests/adversarial/lib.sh: setup and post-check helpers of the adversarial cases (sourced in
# each case's folder). A target T of each kind, with a copy to compare against afterwards.
foreign() { printf 'x\n' > "$1"; }                       # somebody's text file
foreign_sqlite() {                                       # somebody's SQLite database
  sqlite3 "$1" "CREATE TABLE notes(x); INSERT INTO notes VALUES(1);" && cp "$1" "$1.orig"
}
device() { mknod "$1" c 1 3 || exit 77; }               # a device node (like /dev/null); root only
fifo() { mkfifo "$1"; }
folder() { mkdir "$1"; }
# make KIND T: one of the above by name
make_target() { "$1" "$2"; }
# unchanged KIND T: the target is what it was, and nothing was left beside it
unchanged() {
  case $1 in
  foreign) test "$(cat "$2")" = x ;;
  foreign_sqlite) cmp "$2" "$2.orig" && test ! -e "$2-journal" && test ! -e "$2-wal" ;;
  device) test -c "$2" && test ! -e "$2-journal" && test ! -e "$2-wal" ;;
  fifo) test -p "$2" && test ! -e "$2-journal" ;;
  folder) test -d "$2" && test -z "$(ls -A "$2")" ;;
  esac && no_temp
}
no_temp() { ! ls -a | grep -q -e '\.tmp-' -e '\.tmp$'; }
# good_db PATH: a small finished leversim database (one sweep of the fixture experiment)
good_db() { cp "$ADV_GOOD" "$1"; }
# nul_yaml IN OUT KEY: IN with the first line starting with KEY given a "\0" in its value
nul_value() { awk -v k="$3" 'd == 0 && index($0, k) == 1 { sub(/: .*/, ": \"a\\0b\""); d = 1 } { print }' "$1" > "$2"; }
nul_key() { awk -v k="$3" 'd == 0 && index($0, k) == 1 { sub(k, "\"" k "\\0x\""); d = 1 } { print }' "$1" > "$2"; }
# hostile_db KIND PATH: a copy of the shared good database that carries code of its own or
# another shape (issue 35), with PATH.orig to compare against afterwards:
#   loop_view   leversim's view v_runs replaced by a view that never ends
#   extra_view  a view of its own that never ends
#   trigger     a trigger that deletes every other run when one is written
#   runs_view   the table runs replaced by a view that never ends
#   gen_column  runs rebuilt with a generated column
#   reordered   every table kept, runs with model and dataset in the other order
#   bad_status  a run whose status leversim never writes (stored past the CHECK constraint)
#   bad_default run_settings.is_default 2 (past the CHECK constraint)
#   bad_setting a run's device.flash.bandwidth of 1 B/s, outside the range table's row
LOOP='WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x'
hostile_db() {
  case $1 in
  reordered) reordered_db "$2" ;;
  *) good_db "$2" ;;
  esac
  case $1 in
  loop_view) sqlite3 "$2" "DROP VIEW v_runs; CREATE VIEW v_runs AS $LOOP FROM c;" ;;
  extra_view) sqlite3 "$2" "CREATE VIEW evil AS $LOOP FROM c;" ;;
  trigger) sqlite3 "$2" "CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN DELETE FROM runs WHERE run_id <> NEW.run_id; END;" ;;
  runs_view) sqlite3 "$2" "DROP TABLE runs; CREATE VIEW runs AS $LOOP AS run_id, 'p' AS part, 'tiny' AS device, 'm' AS model, 'd' AS dataset, 'lever' AS system, '{}' AS axes_json, '{}' AS config_json, 1 AS seed, NULL AS git_sha, NULL AS version, 'ok' AS status, NULL AS message, 0.0 AS wall_s FROM c;" ;;
  gen_column) sqlite3 "$2" "ALTER TABLE runs ADD COLUMN extra TEXT GENERATED ALWAYS AS (zeroblob(100000000)) VIRTUAL;" ;;
  bad_status) sqlite3 "$2" "PRAGMA ignore_check_constraints = 1; UPDATE runs SET status = 'great' WHERE rowid = (SELECT min(rowid) FROM runs);" ;;
  bad_default) sqlite3 "$2" "PRAGMA ignore_check_constraints = 1; UPDATE run_settings SET is_default = 2 WHERE key = 'draft.budget';" ;;
  bad_setting) sqlite3 "$2" "UPDATE run_settings SET value_num = 1, value_text = '1 B/s' WHERE key = 'device.flash.bandwidth';" &&
    test "$(sqlite3 "$2" "SELECT count(*) FROM run_settings WHERE key = 'device.flash.bandwidth'")" -gt 0 ;;
  esac || return 1
  cp "$2" "$2.orig"
}
# reordered_db PATH: the good database's tables and rows, with runs' model and dataset swapped
# in place (every value still in its named column)
reordered_db() {
  sqlite3 "$ADV_GOOD" "SELECT sql || ';' FROM sqlite_master WHERE type IN ('table', 'index') AND name NOT LIKE 'sqlite_%'" |
    perl -0pe 's/model TEXT NOT NULL,(\s*)dataset TEXT NOT NULL,/dataset TEXT NOT NULL,$1model TEXT NOT NULL,/' > schema.sql &&
    grep -q 'dataset TEXT NOT NULL, *model TEXT' schema.sql && sqlite3 "$1" < schema.sql &&
    cols=run_id,part,device,model,dataset,system,axes_json,config_json,seed,git_sha,version,status,message,wall_s &&
    sqlite3 "$1" "ATTACH '$ADV_GOOD' AS g; PRAGMA application_id = 1280725587; INSERT INTO runs($cols) SELECT $cols FROM g.runs; INSERT INTO meta SELECT * FROM g.meta; INSERT INTO metrics SELECT * FROM g.metrics; INSERT INTO steps SELECT * FROM g.steps; INSERT INTO run_settings SELECT * FROM g.run_settings; INSERT INTO roles SELECT * FROM g.roles; INSERT INTO prompts SELECT * FROM g.prompts; INSERT INTO metric_ci SELECT * FROM g.metric_ci;"
}
# right_rows FILE [N]: FILE (an export) holds N (2: the shared database's) runs, model and
# dataset in their columns
right_rows() { test "$(grep -c ',tiny,tiny-target,iid,' "$1")" = "${2:-2}"; }
