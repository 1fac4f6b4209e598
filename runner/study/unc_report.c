/* runner/study/unc_report: the uncertainty study's outputs (uncertainty.h): a table, JSON,
 * SQLite tables and views, and the figure's CSV.
 * Tables: unc_meta(key, value); unc_assumptions(assumption, setting, claim, scope, dflt,
 * domain, sources, why); unc_points(point, matrix 'A'|'B'|'AB', swapped (the assumption whose
 * column AB took from B), assumption, u, value); unc_values(claim, point, value, holds);
 * unc_claims(claim, label, test, points, median, p05, p95, p_holds, verdict, depends_on,
 * flip); unc_indices(claim, assumption, first_order, total, first_order_holds, total_holds);
 * unc_levels(claim, assumption, level, points, p_holds). Views: unc_summary (unc_claims
 * with the top assumption by total index), unc_top (per claim the assumption of the largest
 * total index). */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "sim/fileio.h"
#include "runner/study/unc_int.h"

static void json_str(FILE *f, const char *s)
{
  fputc('"', f);
  for (; s && *s; s++) {
    if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
    else fputc(*s, f);
  }
  fputc('"', f);
}

static void json_num(FILE *f, double v)
{
  if (isfinite(v)) fprintf(f, "%.6g", v);
  else fputs("null", f);
}

static void json_claim(const ls_unc_report *r, int c, FILE *f)
{
  const unc_claim_out *o = &r->c[c];
  fprintf(f, "    {\"claim\": ");
  json_str(f, ls_unc_claims[c].id);
  fprintf(f, ", \"label\": ");
  json_str(f, ls_unc_claims[c].label);
  fprintf(f, ", \"test\": ");
  json_str(f, ls_unc_claims[c].test);
  fprintf(f, ", \"points\": %d, \"median\": ", o->n);
  json_num(f, o->median);
  fprintf(f, ", \"p05\": ");
  json_num(f, o->p05);
  fprintf(f, ", \"p95\": ");
  json_num(f, o->p95);
  fprintf(f, ", \"p_holds\": ");
  json_num(f, o->p_holds);
  fprintf(f, ", \"verdict\": ");
  json_str(f, o->verdict);
  fprintf(f, ", \"depends_on\": ");
  if (o->depends_on >= 0) json_str(f, ls_unc_ranges_at(r->ranges, o->depends_on)->name);
  else fputs("null", f);
  fprintf(f, ", \"flip\": ");
  json_str(f, o->flip);
  fprintf(f, ",\n     \"indices\": [");
  for (int i = 0; i < r->k; i++) {
    fprintf(f, "%s{\"assumption\": ", i ? ", " : "");
    json_str(f, ls_unc_ranges_at(r->ranges, i)->name);
    fprintf(f, ", \"first_order\": ");
    json_num(f, o->s1[i]);
    fprintf(f, ", \"total\": ");
    json_num(f, o->st[i]);
    fprintf(f, ", \"first_order_holds\": ");
    json_num(f, o->s1h[i]);
    fprintf(f, ", \"total_holds\": ");
    json_num(f, o->sth[i]);
    fputc('}', f);
  }
  fprintf(f, "]}%s\n", c + 1 < UNC_NCLAIMS ? "," : "");
}

void ls_unc_report_json(const ls_unc_report *r, FILE *f)
{
  fprintf(f, "{\"samples\": %d, \"assumptions\": %d, \"points\": %d, \"runs\": %ld, \"distinct_runs\": %ld,"
             " \"prompts\": %d, \"tokens\": %d, \"cpu_s\": %.1f,\n \"assumption_names\": [",
          r->n, r->k, r->points, r->runs, r->runs_unique, r->opts.prompts, r->opts.tokens, r->cpu_s);
  for (int i = 0; i < r->k; i++) {
    if (i) fputs(", ", f);
    json_str(f, ls_unc_ranges_at(r->ranges, i)->name);
  }
  fprintf(f, "],\n \"claims\": [\n");
  for (int c = 0; c < UNC_NCLAIMS; c++) json_claim(r, c, f);
  fprintf(f, " ]}\n");
}

void ls_unc_report_print(const ls_unc_report *r, FILE *f)
{
  fprintf(f, "%d assumptions, %d samples (%d points), %ld runs (%ld distinct) of %d prompts x %d tokens, %.0f s CPU\n",
          r->k, r->n, r->points, r->runs, r->runs_unique, r->opts.prompts, r->opts.tokens, r->cpu_s);
  fprintf(f, "%-20s %9s %9s %9s %7s  %-9s %s\n", "claim", "median", "p05", "p95", "p_holds", "verdict", "depends on");
  for (int c = 0; c < UNC_NCLAIMS; c++) {
    const unc_claim_out *o = &r->c[c];
    fprintf(f, "%-20s %9.4g %9.4g %9.4g %7.3f  %-9s %s%s%s%s\n", ls_unc_claims[c].id, o->median, o->p05, o->p95,
            o->p_holds, o->verdict, o->depends_on >= 0 ? ls_unc_ranges_at(r->ranges, o->depends_on)->name : "",
            o->flip[0] ? " (" : "", o->flip, o->flip[0] ? ")" : "");
    fprintf(f, "%20s total index:", "");
    for (int i = 0; i < r->k; i++)
      if (o->st[i] >= 0.05) fprintf(f, " %s %.2f", ls_unc_ranges_at(r->ranges, i)->name, o->st[i]);
    fputc('\n', f);
  }
}

/* ---- SQLite ---- */

static const char SCHEMA[] =
    "DROP VIEW IF EXISTS unc_summary; DROP VIEW IF EXISTS unc_top;"
    "DROP TABLE IF EXISTS unc_meta; DROP TABLE IF EXISTS unc_assumptions; DROP TABLE IF EXISTS unc_points;"
    "DROP TABLE IF EXISTS unc_values; DROP TABLE IF EXISTS unc_claims; DROP TABLE IF EXISTS unc_indices;"
    "DROP TABLE IF EXISTS unc_levels;"
    "CREATE TABLE unc_meta(key TEXT PRIMARY KEY, value TEXT) STRICT;"
    "CREATE TABLE unc_assumptions(assumption TEXT PRIMARY KEY, setting TEXT, claim TEXT, dflt TEXT,"
    " domain TEXT, sources TEXT, why TEXT) STRICT;"
    "CREATE TABLE unc_points(point INTEGER, matrix TEXT, swapped TEXT, assumption TEXT, u REAL, value TEXT,"
    " PRIMARY KEY(point, assumption)) STRICT;"
    "CREATE TABLE unc_values(claim TEXT, point INTEGER, value REAL, holds INTEGER, PRIMARY KEY(claim, point)) STRICT;"
    "CREATE TABLE unc_claims(claim TEXT PRIMARY KEY, label TEXT, test TEXT, points INTEGER, median REAL, p05 REAL,"
    " p95 REAL, p_holds REAL, verdict TEXT, depends_on TEXT, flip TEXT) STRICT;"
    "CREATE TABLE unc_indices(claim TEXT, assumption TEXT, first_order REAL, total REAL, first_order_holds REAL,"
    " total_holds REAL, PRIMARY KEY(claim, assumption)) STRICT;"
    "CREATE TABLE unc_levels(claim TEXT, assumption TEXT, level TEXT, points INTEGER, p_holds REAL,"
    " PRIMARY KEY(claim, assumption, level)) STRICT;"
    "CREATE VIEW unc_top AS SELECT claim, assumption, total FROM (SELECT claim, assumption, total,"
    " row_number() OVER (PARTITION BY claim ORDER BY total DESC) AS rn FROM unc_indices) WHERE rn = 1;"
    "CREATE VIEW unc_summary AS SELECT c.claim, c.median, c.p05, c.p95, c.p_holds, c.verdict, c.depends_on,"
    " t.assumption AS top_assumption, t.total AS top_total, c.flip FROM unc_claims c LEFT JOIN unc_top t USING(claim);";

/* Binds "t..." text / "d..." real / "i..." integer arguments in order and steps st. */
static int put(sqlite3_stmt *st, const char *types, ...)
{
  va_list ap;
  va_start(ap, types);
  sqlite3_reset(st);
  for (int i = 0; types[i]; i++) {
    if (types[i] == 't') {
      const char *s = va_arg(ap, const char *);
      sqlite3_bind_text(st, i + 1, s, -1, SQLITE_TRANSIENT);
    } else if (types[i] == 'd') {
      double v = va_arg(ap, double);
      if (isfinite(v)) sqlite3_bind_double(st, i + 1, v);
      else sqlite3_bind_null(st, i + 1);
    } else {
      sqlite3_bind_int64(st, i + 1, va_arg(ap, long));
    }
  }
  va_end(ap);
  return sqlite3_step(st) == SQLITE_DONE ? 0 : 1;
}

static int write_assumptions(const ls_unc_report *r, sqlite3 *db)
{
  sqlite3_stmt *st = NULL;
  int bad = sqlite3_prepare_v2(db, "INSERT INTO unc_assumptions VALUES(?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK;
  for (int i = 0; !bad && i < r->k; i++) {
    const ls_unc_assumption *a = ls_unc_ranges_at(r->ranges, i);
    char dom[400];
    size_t n = 0;
    if (a->is_range)
      snprintf(dom, sizeof dom, "%.6g .. %.6g %s (%s)", a->lo, a->hi, a->unit, a->log_scale ? "log" : "linear");
    else
      for (int j = 0; j < a->n_values && n < sizeof dom; j++) n += (size_t)snprintf(dom + n, sizeof dom - n, "%s%s", j ? " | " : "", a->values[j]);
    bad = put(st, "ttttttt", a->name, a->setting, a->claim, a->dflt, dom, a->sources, a->why);
  }
  sqlite3_finalize(st);
  return bad;
}

static int write_points(const ls_unc_report *r, sqlite3 *db)
{
  sqlite3_stmt *st = NULL, *sv = NULL;
  int bad = sqlite3_prepare_v2(db, "INSERT INTO unc_points VALUES(?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK ||
            sqlite3_prepare_v2(db, "INSERT INTO unc_values VALUES(?,?,?,?)", -1, &sv, NULL) != SQLITE_OK;
  for (int p = 0; !bad && p < r->points; p++) {
    int blk = p / r->n;
    const char *mx = blk == 0 ? "A" : blk == 1 ? "B" : "AB";
    const char *sw = blk >= 2 ? ls_unc_ranges_at(r->ranges, blk - 2)->name : NULL;
    for (int i = 0; !bad && i < r->k; i++) {
      char v[128];
      double u = r->u[(size_t)p * r->k + i];
      ls_unc_value(ls_unc_ranges_at(r->ranges, i), u, v, sizeof v);
      bad = put(st, "itttdt", (long)p, mx, sw, ls_unc_ranges_at(r->ranges, i)->name, u, v);
    }
    for (int c = 0; !bad && c < UNC_NCLAIMS; c++)
      bad = put(sv, "tidi", ls_unc_claims[c].id, (long)p, r->val[(size_t)c * r->points + p],
                (long)r->holds[(size_t)c * r->points + p]);
  }
  sqlite3_finalize(st);
  sqlite3_finalize(sv);
  return bad;
}

static int write_claims(const ls_unc_report *r, sqlite3 *db)
{
  sqlite3_stmt *sc = NULL, *si = NULL, *sl = NULL;
  int bad = sqlite3_prepare_v2(db, "INSERT INTO unc_claims VALUES(?,?,?,?,?,?,?,?,?,?,?)", -1, &sc, NULL) != SQLITE_OK ||
            sqlite3_prepare_v2(db, "INSERT INTO unc_indices VALUES(?,?,?,?,?,?)", -1, &si, NULL) != SQLITE_OK ||
            sqlite3_prepare_v2(db, "INSERT INTO unc_levels VALUES(?,?,?,?,?)", -1, &sl, NULL) != SQLITE_OK;
  for (int c = 0; !bad && c < UNC_NCLAIMS; c++) {
    const unc_claim_out *o = &r->c[c];
    bad = put(sc, "tttiddddttt", ls_unc_claims[c].id, ls_unc_claims[c].label, ls_unc_claims[c].test, (long)o->n,
              o->median, o->p05, o->p95, o->p_holds, o->verdict,
              o->depends_on >= 0 ? ls_unc_ranges_at(r->ranges, o->depends_on)->name : NULL, o->flip);
    for (int i = 0; !bad && i < r->k; i++) {
      const ls_unc_assumption *a = ls_unc_ranges_at(r->ranges, i);
      bad = put(si, "ttdddd", ls_unc_claims[c].id, a->name, o->s1[i], o->st[i], o->s1h[i], o->sth[i]);
      for (int l = 0; !bad && l < ls_unc_levels(a); l++) {
        char name[96];
        ls_unc_level_name(a, l, name, sizeof name);
        bad = put(sl, "tttid", ls_unc_claims[c].id, a->name, name, (long)o->lvl_n[i][l], o->lvl_p[i][l]);
      }
    }
  }
  sqlite3_finalize(sc), sqlite3_finalize(si), sqlite3_finalize(sl);
  return bad;
}

/* LS_EDATA naming the first schema object of db that is not the uncertainty study's (unc_*),
 * or LS_OK; SQLite's own objects (sqlite_*) and automatic indices are not counted. */
static int foreign_object(sqlite3 *db, ls_error *err, const char *path)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, "SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'unc\\_%' ESCAPE '\\' "
                         "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name LIMIT 1", -1, &st, NULL) != SQLITE_OK) {
    int notdb = (sqlite3_errcode(db) & 0xff) == SQLITE_NOTADB; /* somebody's file: bad data, as every --db says */
    sqlite3_finalize(st);
    return notdb ? ls_error_set(err, LS_EPARSE, "%s: not a SQLite database, so not a leversim database; "
                                "refusing to write into it", path)
                 : ls_error_set(err, LS_EIO, "%s: %s", path, sqlite3_errmsg(db));
  }
  int rc = LS_OK, step = sqlite3_step(st);
  if (step == SQLITE_ROW)
    rc = ls_error_set(err, LS_EPARSE, "%s: holds %s '%s', which the uncertainty study did not create; "
                      "give --db a new file or one this command wrote", path, (const char *)sqlite3_column_text(st, 0),
                      (const char *)sqlite3_column_text(st, 1));
  else if (step != SQLITE_DONE) rc = ls_error_set(err, LS_EDB, "%s: %s", path, sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return rc;
}

int ls_unc_report_write_db(const ls_unc_report *r, const char *path, ls_error *err)
{
  sqlite3 *db = NULL;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
    int rc = ls_error_set(err, LS_EIO, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
    sqlite3_close(db);
    return rc;
  }
  sqlite3_busy_timeout(db, 10000);
  /* The output rule for databases (docs/BAD_INPUTS.md): no trigger or function stored in the
   * file runs, and a file holding anything but this study's own objects is not ours to write. */
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)0);
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
  int foreign = foreign_object(db, err, path);
  if (foreign) {
    sqlite3_close(db);
    return foreign;
  }
  char meta[512];
  snprintf(meta, sizeof meta,
           "INSERT INTO unc_meta VALUES('samples', '%d'),('assumptions', '%d'),('points', '%d'),('runs', '%ld'),"
           "('distinct_runs', '%ld'),('prompts', '%d'),('tokens', '%d'),('cpu_s', '%.1f');",
           r->n, r->k, r->points, r->runs, r->runs_unique, r->opts.prompts, r->opts.tokens, r->cpu_s);
  int bad = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(db, SCHEMA, NULL, NULL, NULL) != SQLITE_OK || sqlite3_exec(db, meta, NULL, NULL, NULL) != SQLITE_OK ||
            write_assumptions(r, db) || write_points(r, db) || write_claims(r, db) ||
            sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK;
  int rc = bad ? ls_error_set(err, LS_EIO, "%s: %s", path, sqlite3_errmsg(db)) : LS_OK;
  if (bad) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_close(db);
  return rc;
}

#define UNC_CSV_HEAD "claim,assumption,first_order,total"
int ls_unc_report_write_csv(const ls_unc_report *r, const char *dir, ls_error *err)
{
  size_t len = strlen(dir) + 32;
  char *path = malloc(len);
  if (!path) return ls_error_set(err, LS_ENOMEM, "uncertainty: out of memory");
  snprintf(path, len, "%s/uncertainty.csv", dir);
  ls_file_out o; /* the output rule of sim/fileio.h: never through a link, never over a foreign file */
  int rc = ls_file_out_open(&o, path, "uncertainty --out", UNC_CSV_HEAD, err);
  if (rc) {
    free(path);
    return rc;
  }
  FILE *f = o.f;
  fprintf(f, "%s\n", UNC_CSV_HEAD);
  for (int c = 0; c < UNC_NCLAIMS; c++)
    for (int i = 0; i < r->k; i++)
      fprintf(f, "%s,%s,%.6g,%.6g\n", ls_unc_claims[c].id, ls_unc_ranges_at(r->ranges, i)->name,
              isfinite(r->c[c].s1[i]) ? r->c[c].s1[i] : NAN, isfinite(r->c[c].st[i]) ? r->c[c].st[i] : NAN);
  rc = ls_file_out_commit(&o, err);
  free(path);
  return rc;
}
