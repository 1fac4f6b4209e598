/* results/check: the CI regression check of speedup ratios against a committed baseline.
 *
 * The quantity checked is lever_speedup = throughput(lever) / throughput(system) of v_speedup
 * (part 'main'), averaged over seeds when a configuration was run with several. A baseline
 * entry regresses when the database's ratio is below ratio * (1 - tolerance), or when the
 * configuration is missing from the database; ratios above ratio * (1 + tolerance) are shown
 * as "improved" but pass (refresh the baseline to lock them in).
 *
 * Baseline file format (YAML, written by `leversim check --write-baseline`):
 *   tolerance: 0.05            # default relative tolerance, in [0, 1)
 *   entries:                   # one per (configuration, system); lever itself is not listed
 *     - {device: oneplus-12, model: llama-3.1-8b, dataset: gsm8k, axes: "{}",
 *        system: ar-flash, ratio: 2.91}          # optional per-entry "tolerance: 0.1"
 * axes is the configuration's axes_json as stored (optional, default "{}"). Unknown or
 * duplicate keys, a duplicated entry, a ratio <= 0 are errors with file:line:col.
 * The command line's --tolerance overrides the file's default (not per-entry values). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "results/db_int.h"
#include "sim/yaml.h"

typedef struct entry {
  const char *device, *model, *dataset, *axes, *system; /* borrowed from the YAML document */
  double ratio, tol;
  int has_tol;
  ls_ynode node;
} entry;

/* Materialises the database side once: per (device, model, dataset, axes, system). */
static const char table_sql[] =
    "DROP TABLE IF EXISTS temp.check_ratio;"
    "CREATE TEMP TABLE check_ratio AS SELECT device, model, dataset, axes_json, system,"
    " avg(lever_speedup) AS ratio, count(*) AS seeds, 0 AS used FROM v_speedup"
    " WHERE system <> 'lever' GROUP BY device, model, dataset, axes_json, system;"
    "CREATE UNIQUE INDEX temp.check_ratio_key ON check_ratio(device, model, dataset,"
    " axes_json, system);";

static int read_entry(const ls_ynode *n, entry *e, ls_error *err)
{
  int rc = ls_ynode_expect(n, LS_Y_MAP, err);
  if (!rc) rc = ls_yreq_string(n, "device", &e->device, err);
  if (!rc) rc = ls_yreq_string(n, "model", &e->model, err);
  if (!rc) rc = ls_yreq_string(n, "dataset", &e->dataset, err);
  if (!rc) rc = ls_yopt_string(n, "axes", "{}", &e->axes, err);
  if (!rc) rc = ls_yreq_string(n, "system", &e->system, err);
  if (!rc) rc = ls_yreq_double(n, "ratio", LS_Y_POS, 1e9, &e->ratio, err);
  ls_ynode t;
  e->has_tol = ls_ymap_find(n, "tolerance", &t);
  if (!rc && e->has_tol) rc = ls_yas_double(&t, 0, 0.999999, &e->tol, err);
  if (!rc) rc = ls_ymap_finish(n, err);
  e->node = *n;
  return rc;
}

static int same_key(const entry *a, const entry *b)
{
  return !strcmp(a->device, b->device) && !strcmp(a->model, b->model) &&
         !strcmp(a->dataset, b->dataset) && !strcmp(a->axes, b->axes) &&
         !strcmp(a->system, b->system);
}

/* Reads the whole baseline; *es is owned by the caller (free), strings borrow from doc. */
static int read_baseline(ls_ydoc *doc, double *tol, entry **es, int *n, ls_error *err)
{
  ls_ynode root = ls_ydoc_root(doc), seq;
  int rc = ls_ynode_expect(&root, LS_Y_MAP, err);
  if (!rc) rc = ls_yreq_double(&root, "tolerance", 0, 0.999999, tol, err);
  if (!rc) rc = ls_ymap_require(&root, "entries", &seq, err);
  if (!rc) rc = ls_ynode_expect(&seq, LS_Y_SEQ, err);
  if (!rc) rc = ls_ymap_finish(&root, err);
  if (rc) return rc;
  *n = ls_yseq_len(&seq);
  *es = calloc((size_t)*n + 1, sizeof **es);
  if (!*es) return ls_error_set(err, LS_ENOMEM, "baseline: out of memory");
  for (int i = 0; !rc && i < *n; i++) {
    ls_ynode it = ls_yseq_at(&seq, i);
    rc = read_entry(&it, &(*es)[i], err);
    for (int j = 0; !rc && j < i; j++)
      if (same_key(&(*es)[i], &(*es)[j]))
        rc = ls_ynode_error(&it, err, LS_ESCHEMA, "duplicate entry (same as entry %d, line %d)",
                            j + 1, ls_ynode_line(&(*es)[j].node));
  }
  return rc;
}

/* The database ratio of e: 1 found (value may be NaN when throughput was missing), 0 absent. */
static int lookup(ls_db *db, sqlite3_stmt *st, const entry *e, double *ratio, ls_error *err)
{
  const char *k[] = {e->device, e->model, e->dataset, e->axes, e->system};
  for (int i = 0; i < 5; i++) sqlite3_bind_text(st, i + 1, k[i], -1, SQLITE_STATIC);
  int s = sqlite3_step(st), found = 0;
  if (s == SQLITE_ROW) {
    found = 1;
    *ratio = sqlite3_column_type(st, 0) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 0);
  } else if (s != SQLITE_DONE) {
    found = ls_db_fail(db, err, "reading ratios");
  }
  sqlite3_reset(st);
  return found;
}

static void report_row(FILE *f, const entry *e, double ratio, int found, double tol,
                       int *regress)
{
  const char *status = "ok";
  if (!found || !(ratio >= e->ratio * (1 - tol))) {
    status = found ? "REGRESSION" : "MISSING";
    ++*regress;
  } else if (ratio > e->ratio * (1 + tol)) {
    status = "improved";
  }
  if (!f) return;
  char rb[32] = "-", db[16] = "-";
  if (found && isfinite(ratio)) {
    snprintf(rb, sizeof rb, "%.4f", ratio);
    snprintf(db, sizeof db, "%+.2f%%", 100 * (ratio / e->ratio - 1));
  }
  fprintf(f, "%-16s %-14s %-10s %-24s %-17s %9s %9.4f %9s  %s\n", e->device, e->model,
          e->dataset, strcmp(e->axes, "{}") ? e->axes : "", e->system, rb, e->ratio, db, status);
}

static int compare(ls_db *db, const entry *es, int n, double tol, FILE *f, int *regress,
                   ls_error *err)
{
  sqlite3_stmt *st = NULL, *mark = NULL;
  if (sqlite3_prepare_v2(db->h, "SELECT ratio FROM check_ratio WHERE (device, model, dataset,"
                                " axes_json, system) = (?1, ?2, ?3, ?4, ?5)", -1, &st, NULL) ||
      sqlite3_prepare_v2(db->h, "UPDATE check_ratio SET used = 1 WHERE (device, model, dataset,"
                                " axes_json, system) = (?1, ?2, ?3, ?4, ?5)", -1, &mark, NULL)) {
    sqlite3_finalize(st);
    return ls_db_fail(db, err, "preparing the check");
  }
  if (f)
    fprintf(f, "%-16s %-14s %-10s %-24s %-17s %9s %9s %9s  %s\n", "device", "model", "dataset",
            "axes", "system", "ratio", "baseline", "delta", "status");
  int rc = LS_OK;
  for (int i = 0; i < n && rc == LS_OK; i++) {
    double ratio = NAN;
    int found = lookup(db, st, &es[i], &ratio, err);
    if (found < 0) {
      rc = found;
      break;
    }
    report_row(f, &es[i], ratio, found, es[i].has_tol ? es[i].tol : tol, regress);
    const char *k[] = {es[i].device, es[i].model, es[i].dataset, es[i].axes, es[i].system};
    for (int j = 0; j < 5; j++) sqlite3_bind_text(mark, j + 1, k[j], -1, SQLITE_STATIC);
    if (sqlite3_step(mark) != SQLITE_DONE) rc = ls_db_fail(db, err, "marking checked rows");
    sqlite3_reset(mark);
  }
  sqlite3_finalize(st);
  sqlite3_finalize(mark);
  return rc;
}

/* Rows of the database not covered by the baseline: reported, not failed. */
static void report_unchecked(ls_db *db, FILE *f)
{
  sqlite3_stmt *st = NULL;
  if (!f || sqlite3_prepare_v2(db->h, "SELECT count(*) FROM check_ratio WHERE used = 0", -1,
                               &st, NULL) != SQLITE_OK)
    return;
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0)
    fprintf(f, "note: %d (configuration, system) pairs in the database are not in the baseline "
               "(not checked)\n", sqlite3_column_int(st, 0));
  sqlite3_finalize(st);
}

int ls_db_check(ls_db *db, const char *baseline_path, double tolerance, FILE *report,
                int *regressions, ls_error *err)
{
  *regressions = 0;
  ls_ydoc *doc = NULL;
  entry *es = NULL;
  int n = 0;
  double tol = 0;
  int rc = ls_ydoc_load_file(&doc, baseline_path, err);
  if (rc == LS_OK) rc = read_baseline(doc, &tol, &es, &n, err);
  if (rc == LS_OK && tolerance >= 0) tol = tolerance;
  if (rc == LS_OK) rc = ls_db_exec(db, table_sql, err);
  if (rc == LS_OK) rc = compare(db, es, n, tol, report, regressions, err);
  if (rc == LS_OK) {
    report_unchecked(db, report);
    if (report)
      fprintf(report, "%d entries checked, %d regression%s (tolerance %g%%)\n", n, *regressions,
                      *regressions == 1 ? "" : "s", 100 * tol);
  }
  free(es);
  ls_ydoc_free(doc);
  return rc;
}

/* A YAML double-quoted scalar. */
static void yaml_quoted(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* Provenance comment: which database, leversim version and commit the ratios came from. */
static void write_header(ls_db *db, FILE *out)
{
  const char *base = strrchr(db->path, '/');
  base = base ? base + 1 : db->path;
  char ver[64] = "?", sha[64] = "?";
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db->h, "SELECT coalesce(max(version), '?'), coalesce(max(git_sha), '?')"
                                " FROM runs", -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    snprintf(ver, sizeof ver, "%s", (const char *)sqlite3_column_text(st, 0));
    snprintf(sha, sizeof sha, "%s", (const char *)sqlite3_column_text(st, 1));
  }
  sqlite3_finalize(st);
  fprintf(out, "# leversim regression baseline: throughput(lever) / throughput(system) per "
               "configuration (view v_speedup).\n# Ratios: simulated, written from %s by "
               "leversim %s (git %s).\n# Check: leversim check --db DB --baseline FILE; "
               "format: results/check.c.\n", base, ver, sha);
}

int ls_db_write_baseline(ls_db *db, double tolerance, FILE *out, ls_error *err)
{
  if (!(tolerance >= 0 && tolerance < 1))
    return ls_error_set(err, LS_ERANGE, "baseline tolerance %g: expected a value in [0, 1)",
                        tolerance);
  int rc = ls_db_exec(db, table_sql, err);
  sqlite3_stmt *st = NULL;
  if (rc == LS_OK &&
      sqlite3_prepare_v2(db->h, "SELECT device, model, dataset, axes_json, system, ratio"
                                " FROM check_ratio WHERE ratio > 0 ORDER BY 1, 2, 3, 4, 5",
                         -1, &st, NULL) != SQLITE_OK)
    rc = ls_db_fail(db, err, "reading ratios");
  if (rc != LS_OK) return rc;
  write_header(db, out);
  fprintf(out, "tolerance: %g  # assumed: relative slack for model or calibration changes\n"
               "entries:\n", tolerance);
  int s;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    static const char *const keys[] = {"device", "model", "dataset", "axes", "system"};
    fputs("  - {", out);
    for (int i = 0; i < 5; i++) {
      fprintf(out, "%s%s: ", i ? ", " : "", keys[i]);
      yaml_quoted(out, (const char *)sqlite3_column_text(st, i));
    }
    char num[32];
    ls_db_format_real(sqlite3_column_double(st, 5), num, sizeof num);
    fprintf(out, ", ratio: %s}\n", num);
  }
  if (s != SQLITE_DONE) rc = ls_db_fail(db, err, "reading ratios");
  sqlite3_finalize(st);
  if (rc == LS_OK && ferror(out)) rc = ls_error_set(err, LS_EIO, "writing the baseline failed");
  return rc;
}
