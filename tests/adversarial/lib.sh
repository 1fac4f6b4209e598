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
