/* results/recheck: the values of an input database, checked again on read.
 *
 * An input's CHECK constraints are the file's own: a database leversim did not write (or one
 * written with another table definition) may hold a status, a JSON text or a setting leversim
 * never stores, and every reader after it (export, figures, check, merge into an output whose
 * constraints would then refuse it half-way) would trust it. So each input is read once, in
 * full, against leversim's rules before anything else reads it (issue 35):
 *  - runs: status one of ok, failed, invalid; axes_json a JSON object; config_json JSON;
 *  - run_settings: is_default 0 or 1; the numeric value of a setting that the one range table
 *    (sim/range.h) bounds within its row, as `run` and `--set` would have it.
 * A row that breaks one is refused with LS_EPARSE (exit 65) naming the file, table, run, key
 * and value. The statements read leversim's tables only, under the input's authorizer and
 * time limit (results/trust.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "results/db_int.h"
#include "sim/range.h"

static const char RUNS_SQL[] =
    "SELECT run_id, CASE WHEN status IS NULL OR status NOT IN ('ok', 'failed', 'invalid') THEN 'status'"
    " WHEN NOT json_valid(axes_json) OR json_type(axes_json) <> 'object' THEN 'axes_json'"
    " WHEN NOT json_valid(config_json) THEN 'config_json' END AS bad,"
    " CASE WHEN status IS NULL OR status NOT IN ('ok', 'failed', 'invalid') THEN status"
    " WHEN NOT json_valid(axes_json) OR json_type(axes_json) <> 'object' THEN axes_json"
    " ELSE config_json END FROM runs WHERE bad IS NOT NULL LIMIT 1";

static int refuse(ls_db *db, ls_error *err, const char *table, const char *run, const char *key,
                  const char *value, const char *rule)
{
  return ls_error_set(err, LS_EPARSE, "%s: table %s, run '%s': %s '%.80s' %s (the file's own CHECK "
                      "constraints are not leversim's; refusing to use the database)", db->path, table,
                      run ? run : "(null)", key, value ? value : "(null)", rule);
}

static int recheck_runs(ls_db *db, ls_error *err)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db->h, RUNS_SQL, -1, &st, NULL) != SQLITE_OK) {
    sqlite3_finalize(st);
    return ls_db_fail(db, err, "checking the runs' values");
  }
  int s = sqlite3_step(st), rc = LS_OK;
  if (s == SQLITE_ROW) {
    const char *bad = (const char *)sqlite3_column_text(st, 1);
    rc = refuse(db, err, "runs", (const char *)sqlite3_column_text(st, 0), bad,
                (const char *)sqlite3_column_text(st, 2),
                strcmp(bad, "status") == 0 ? "is not one of ok, failed, invalid"
                : strcmp(bad, "axes_json") == 0 ? "is not a JSON object" : "is not JSON");
  } else if (s != SQLITE_DONE) {
    rc = ls_db_fail(db, err, "checking the runs' values");
  }
  sqlite3_finalize(st);
  return rc;
}

static int recheck_settings(ls_db *db, ls_error *err)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db->h, "SELECT run_id, key, value_text, value_num, is_default FROM run_settings",
                         -1, &st, NULL) != SQLITE_OK) {
    sqlite3_finalize(st);
    return ls_db_fail(db, err, "checking the settings' values");
  }
  int s, rc = LS_OK;
  char range[96];
  while (rc == LS_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    const char *run = (const char *)sqlite3_column_text(st, 0), *key = (const char *)sqlite3_column_text(st, 1);
    const char *text = (const char *)sqlite3_column_text(st, 2);
    sqlite3_int64 dflt = sqlite3_column_int64(st, 4);
    if (sqlite3_column_type(st, 4) != SQLITE_INTEGER || (dflt != 0 && dflt != 1)) {
      rc = refuse(db, err, "run_settings", run, "is_default", (const char *)sqlite3_column_text(st, 4),
                  "is not 0 or 1");
      break;
    }
    int id = key ? ls_range_of_setting(key) : -1;
    if (id < 0 || sqlite3_column_type(st, 3) == SQLITE_NULL) continue; /* a text setting */
    if (ls_range_check((ls_range_id)id, sqlite3_column_double(st, 3)) != 0) {
      char why[160];
      snprintf(why, sizeof why, "lies outside %s, the range `run` reads it in (sim/range.h: %s)",
               ls_range_text((ls_range_id)id, range, sizeof range), ls_range_at((ls_range_id)id)->name);
      rc = refuse(db, err, "run_settings", run, key, text, why);
    }
  }
  if (rc == LS_OK && s != SQLITE_DONE) rc = ls_db_fail(db, err, "checking the settings' values");
  sqlite3_finalize(st);
  return rc;
}

int ls_db_recheck_input(ls_db *db, ls_error *err)
{
  int rc = recheck_runs(db, err);
  return rc ? rc : recheck_settings(db, err);
}
