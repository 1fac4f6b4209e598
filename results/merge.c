/* results/merge: combining shard databases into one.
 *
 * Each input is first opened read-only on its own (ls_db_open_read: a missing input is an
 * error, never an empty file created by ATTACH) and its schema_version checked; then it is
 * ATTACHed read-only (immutable on read-only media) to the output connection and merged in one
 * transaction:
 *   1. conflicts: a run id present in both whose content differs — any of part, model,
 *      dataset, system, config_json, seed, status, message, or its set of metrics (name,
 *      value, unit) or steps — is an error naming the run; the transaction rolls back;
 *   2. runs absent from the output are copied with their metrics, steps, per-prompt sums and
 *      run intervals, column by column by name (an input whose columns stand in another order
 *      is copied right); the paired intervals between runs are then recomputed.
 * An input is data: its views and triggers never run, and it is checked again once attached
 * (results/trust.c).
 * device and axes_json say how a run was asked for (a profile by id or by path, a default
 * set explicitly or not), not what it is: one run id is one resolved configuration, which
 * config_json records (runner/study/driver.h), so they are not compared either; the output
 * keeps its own. wall_s, git_sha and version are provenance, not content: shards run on different hosts at
 * different speeds, so they are not compared. Idempotence follows: a second merge of the same
 * inputs finds every run present and equal, and copies nothing.
 * All inputs are checked against the output before any is copied; a conflict between two
 * inputs is found when the second is merged, after the first has been committed (re-running
 * after the fix is safe, since merging is idempotent). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "results/db_int.h"

static const char conflict_sql[] =
    "SELECT run_id, s.part, s.device, s.model, s.dataset, s.system, s.axes_json"
    " FROM src.runs s JOIN main.runs m USING(run_id) WHERE"
    " s.part IS NOT m.part OR s.model IS NOT m.model"
    " OR s.dataset IS NOT m.dataset OR s.system IS NOT m.system"
    " OR s.config_json IS NOT m.config_json"
    " OR s.seed IS NOT m.seed OR s.status IS NOT m.status OR s.message IS NOT m.message"
    " OR EXISTS (SELECT name, value, unit FROM src.metrics WHERE run_id = s.run_id"
    "   EXCEPT SELECT name, value, unit FROM main.metrics WHERE run_id = s.run_id)"
    " OR EXISTS (SELECT name, value, unit FROM main.metrics WHERE run_id = s.run_id"
    "   EXCEPT SELECT name, value, unit FROM src.metrics WHERE run_id = s.run_id)"
    " OR EXISTS (SELECT cycle, tree_size, verified_tokens, accepted, draft_s, verify_s, lmhead_s"
    "   FROM src.steps WHERE run_id = s.run_id EXCEPT SELECT cycle, tree_size,"
    "   verified_tokens, accepted, draft_s, verify_s, lmhead_s FROM main.steps"
    "   WHERE run_id = s.run_id)"
    " OR EXISTS (SELECT cycle, tree_size, verified_tokens, accepted, draft_s, verify_s, lmhead_s"
    "   FROM main.steps WHERE run_id = s.run_id EXCEPT SELECT cycle, tree_size,"
    "   verified_tokens, accepted, draft_s, verify_s, lmhead_s FROM src.steps"
    "   WHERE run_id = s.run_id)"
    " ORDER BY run_id LIMIT 1";

static const char new_runs_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS merge_new(run_id TEXT PRIMARY KEY);"
    "DELETE FROM temp.merge_new;"
    "INSERT INTO temp.merge_new SELECT run_id FROM src.runs"
    " WHERE run_id NOT IN (SELECT run_id FROM main.runs);";

/* The tables that travel with their runs, in an order that keeps the foreign keys; per-prompt
 * sums and run intervals last (an input written before these tables existed has none); the
 * paired intervals are recomputed after the merge. */
static const char *const copied[] = {"runs", "metrics", "steps", "run_settings", "prompts",
                                     "metric_ci"};

/* Copies the new runs' rows of table, naming every column of leversim's schema (its columns
 * by name: an input whose columns stand in another order is copied right, never shifted). */
static int copy_table(ls_db *db, const char *table, ls_error *err)
{
  const char *cols = ls_db_ref_columns(db->ref, table);
  if (!cols) return ls_error_set(err, LS_ESTATE, "merge: no table %s in the schema", table);
  size_t n = 2 * strlen(cols) + 3 * strlen(table) + 160;
  char *sql = malloc(n), *list = strdup(cols + 1);
  int rc = LS_OK;
  if (!sql || !list) rc = ls_error_set(err, LS_ENOMEM, "merge: out of memory");
  if (rc == LS_OK) {
    list[strlen(list) - 1] = '\0'; /* ",a,b," -> "a,b" */
    snprintf(sql, n, "INSERT INTO main.\"%s\"(%s) SELECT %s FROM src.\"%s\"%s", table, list,
             list, table, !strcmp(table, "roles") ? " WHERE true ON CONFLICT(role) DO NOTHING"
                                                 : " WHERE run_id IN temp.merge_new");
    rc = ls_db_exec(db, sql, err);
  }
  free(sql);
  free(list);
  return rc;
}

static int src_has_prompts(ls_db *db);
static int copy_runs(ls_db *db, ls_error *err)
{
  int rc = ls_db_exec(db, new_runs_sql, err);
  int stats = src_has_prompts(db);
  for (int i = 0; rc == LS_OK && i < (int)(sizeof copied / sizeof *copied); i++)
    if (i < 4 || stats) rc = copy_table(db, copied[i], err);
  /* The study's roles: the output keeps a role it already has (as ls_db_set_role does). */
  if (rc == LS_OK) rc = copy_table(db, "roles", err);
  return rc;
}

static int src_has_prompts(ls_db *db)
{
  sqlite3_stmt *st = NULL;
  int yes = sqlite3_prepare_v2(db->h, "SELECT 1 FROM src.sqlite_master WHERE name = 'metric_ci'",
                               -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return yes;
}

/* The input exists, is a leversim database of our schema version, and is intact (a
 * corrupt page would otherwise surface half-way through the copy, under the output's name). */
static int check_input(const char *path, ls_error *err)
{
  ls_db *in = NULL;
  int rc = ls_db_open_read(&in, path, err);
  sqlite3_stmt *st = NULL;
  if (!rc && (sqlite3_prepare_v2(in->h, "PRAGMA quick_check(1)", -1, &st, NULL) != SQLITE_OK ||
              sqlite3_step(st) != SQLITE_ROW ||
              strcmp((const char *)sqlite3_column_text(st, 0), "ok") != 0))
    rc = ls_error_set(err, LS_EPARSE, "%s: input database is damaged (%s); nothing was merged",
                      path, st && sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0)
                                                              : sqlite3_errmsg(in->h));
  sqlite3_finalize(st);
  ls_db_close(in);
  return rc;
}

static int attach(ls_db *db, const char *path, ls_error *err)
{
  sqlite3_stmt *st = NULL;
  size_t size = ls_db_input_uri_size(path);
  char *uri = malloc(size);
  if (!uri) return ls_error_set(err, LS_ENOMEM, "%s: out of memory", path);
  int rc = ls_db_input_uri_checked(path, uri, size, err);
  if (rc == LS_OK && sqlite3_prepare_v2(db->h, "ATTACH DATABASE ?1 AS src", -1, &st, NULL) !=
                         SQLITE_OK)
    rc = ls_db_fail(db, err, "attaching an input");
  if (rc == LS_OK) {
    sqlite3_bind_text(st, 1, uri, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE)
      rc = ls_error_set(err, LS_EDB, "%s: cannot attach: %s", path, sqlite3_errmsg(db->h));
  }
  sqlite3_finalize(st);
  free(uri);
  /* Checked again as attached: the file checked alone may have been replaced since. */
  if (rc == LS_OK) {
    char *out_path = db->path;
    db->path = (char *)path; /* errors name the input */
    rc = ls_db_check_objects(db, "src", 0, err);
    db->path = out_path;
  }
  return rc;
}

/* LS_EDB naming the first run of src whose content differs from the output's. */
static int find_conflict(ls_db *db, const char *input, ls_error *err)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db->h, conflict_sql, -1, &st, NULL) != SQLITE_OK)
    return ls_db_fail(db, err, "comparing runs");
  int s = sqlite3_step(st), rc = LS_OK;
  if (s == SQLITE_ROW) {
    const char *c[7];
    for (int i = 0; i < 7; i++) c[i] = (const char *)sqlite3_column_text(st, i);
    rc = ls_error_set(err, LS_EDB,
                      "%s: run %s (part %s, %s/%s/%s, system %s, axes %s) differs from the "
                      "run of the same id in %s (metrics, steps or configuration)",
                      input, c[0], c[1], c[2], c[3], c[4], c[5], c[6], db->path);
  } else if (s != SQLITE_DONE) {
    rc = ls_db_fail(db, err, "comparing runs");
  }
  sqlite3_finalize(st);
  return rc;
}

/* Attach, optionally copy, detach. */
static int merge_one(ls_db *db, const char *input, int copy, int *added, ls_error *err)
{
  int rc = attach(db, input, err);
  if (rc != LS_OK) return rc;
  rc = ls_db_exec(db, "BEGIN IMMEDIATE", err);
  if (rc == LS_OK) {
    rc = find_conflict(db, input, err);
    if (rc == LS_OK && copy) {
      rc = copy_runs(db, err);
      if (rc == LS_OK && added) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db->h, "SELECT count(*) FROM temp.merge_new", -1, &st, NULL) ==
                SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
          *added += sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
      }
    }
    if (rc == LS_OK) rc = ls_db_exec(db, copy ? "COMMIT" : "ROLLBACK", err);
    int code = sqlite3_errcode(db->h) & 0xff;
    int xcode = sqlite3_extended_errcode(db->h);
    if (rc != LS_OK && (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)) /* the input's fault */
      rc = ls_error_set(err, LS_EPARSE, "%s: input database is damaged (%s); it was not merged",
                        input, sqlite3_errmsg(db->h));
    else if (rc != LS_OK && (xcode == SQLITE_CONSTRAINT_CHECK || xcode == SQLITE_CONSTRAINT_DATATYPE ||
                             xcode == SQLITE_CONSTRAINT_NOTNULL)) /* a value leversim never writes */
      rc = ls_error_set(err, LS_EPARSE, "%s: a value of the input breaks a rule of leversim's "
                        "schema (%s); it was not merged", input, sqlite3_errmsg(db->h));
    if (rc != LS_OK) sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
  }
  sqlite3_exec(db->h, "DETACH DATABASE src", NULL, NULL, NULL);
  return rc;
}

static int same_file(const char *a, const char *b)
{
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int ls_db_merge(const char *out_path, const char *const *inputs, int n, int *added,
                ls_error *err)
{
  if (added) *added = 0;
  for (int i = 0; i < n; i++) {
    int rc = check_input(inputs[i], err);
    if (rc != LS_OK) return rc;
  }
  ls_db *db = NULL;
  int rc = ls_db_open_claim(&db, out_path, 0, "merge", err);
  for (int pass = 0; rc == LS_OK && pass < 2; pass++)
    for (int i = 0; rc == LS_OK && i < n; i++)
      if (!same_file(inputs[i], out_path)) rc = merge_one(db, inputs[i], pass, added, err);
  if (rc == LS_OK) rc = ls_db_roles_refresh(db, err); /* the roles may be new: views follow */
  if (rc == LS_OK) rc = ls_db_stats_refresh(db, err);
  ls_db_close(db);
  return rc;
}
