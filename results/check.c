/* results/check: the CI regression check of Lever's speedup ratios against a baseline.
 *
 * The quantity checked is lever_speedup = throughput(lever) / throughput(system) of v_speedup
 * (part 'main') per configuration, with its paired 95 % interval (lever_speedup_lo/hi, see
 * results/stats.c); with several seeds per configuration, ratio and bounds are averaged.
 * The check is two-sided, since a bug that flatters Lever is as wrong as one that hurts it:
 * an entry regresses when
 *     |ratio - baseline| > k * sqrt(hw^2 + hw_base^2) + floor * baseline
 * (hw: the half-widths (hi - lo) / 2 of the database's and of the baseline's interval; the
 * floor absorbs rounding), or when it is missing from the database. Where either side has no
 * interval (a replay of fewer than 5 prompts) the tolerance is no_interval * baseline, and the
 * report says so.
 * A baseline belongs to one replay: it records the experiment, the replay (quick or full), the
 * spec hash (of the expanded run specs, stored in the database's meta by `leversim reproduce`)
 * and the replay size. A database of another replay is refused (LS_EINVALID, exit 65) with the
 * name of the baseline file beside this one that fits it, if there is one.
 *
 * Baseline file format (YAML, written only by `leversim check --write-baseline`):
 *   experiment: paper
 *   replay: quick                # quick | full
 *   spec_hash: "1f0c..."         # 16 hex digits
 *   prompts: "8"                 # workload.prompts ("MIN-MAX" when sized per system) and
 *                                # workload.max_tokens of the replay
 *   max_tokens: 128
 *   k: 1                         # multiplier of the combined half-width
 *   floor: 0.001                 # relative floor of the tolerance
 *   no_interval: 0.02            # relative tolerance where an interval is missing
 *   entries:                     # one per (configuration, system); lever itself not listed
 *     - {device: oneplus-12, model: llama-3.1-8b, dataset: gsm8k, axes: "{}",
 *        system: ar-flash, ratio: 2.91, lo: 2.85, hi: 2.97}   # lo/hi absent: no interval
 * Unknown or duplicate keys, a duplicated entry, a ratio <= 0, lo > hi or only one of them
 * are errors with file:line:col. */
#include <dirent.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "results/db_int.h"
#include "sim/yaml.h"

typedef struct entry {
  const char *device, *model, *dataset, *axes, *system; /* borrowed from the YAML document */
  double ratio, lo, hi;                                  /* lo/hi NaN: no interval */
  ls_ynode node;
} entry;

typedef struct baseline {
  const char *experiment, *replay, *spec_hash, *prompts; /* borrowed from the document */
  long max_tokens;
  double k, floor, no_interval;
  entry *es; /* owned */
  int n;
} baseline;

/* Materialises the database side once: per (device, model, dataset, axes, system). */
static const char table_sql[] =
    "DROP TABLE IF EXISTS temp.check_ratio;"
    "CREATE TEMP TABLE check_ratio AS SELECT device, model, dataset, axes_json, system,"
    " avg(lever_speedup) AS ratio, avg(lever_speedup_lo) AS lo, avg(lever_speedup_hi) AS hi,"
    " count(*) AS seeds, 0 AS used FROM v_speedup"
    " WHERE system <> (SELECT value FROM roles WHERE role = 'system.reference') GROUP BY device, model, dataset, axes_json, system;"
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
  e->lo = e->hi = NAN;
  ls_ynode t;
  if (!rc && ls_ymap_find(n, "lo", &t)) rc = ls_yas_double(&t, LS_Y_POS, 1e9, &e->lo, err);
  if (!rc && ls_ymap_find(n, "hi", &t)) rc = ls_yas_double(&t, LS_Y_POS, 1e9, &e->hi, err);
  if (!rc && (isnan(e->lo) != isnan(e->hi) || e->lo > e->hi))
    rc = ls_ynode_error(n, err, LS_ESCHEMA, "lo and hi: give both (lo <= hi), or neither");
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

/* prompts: "N" or "MIN-MAX" (a replay whose sizing gives some systems more prompts). */
static int read_prompts(const ls_ynode *root, const char **out, ls_error *err)
{
  ls_ynode v;
  int rc = ls_ymap_require(root, "prompts", &v, err);
  if (!rc) rc = ls_yas_string(&v, out, err);
  if (rc) return rc;
  char *end;
  long lo = strtol(*out, &end, 10), hi = lo;
  if (end != *out && *end == '-') hi = strtol(end + 1, &end, 10);
  if (!isdigit((unsigned char)**out) || *end || lo < 1 || hi < lo || hi > 1000000)
    return ls_ynode_error(&v, err, LS_ESCHEMA, "'%s' is not a prompt count N or range MIN-MAX",
                          *out);
  return LS_OK;
}

static int read_header(const ls_ynode *root, baseline *b, ls_error *err)
{
  int rc = ls_ynode_expect(root, LS_Y_MAP, err);
  if (!rc) rc = ls_yreq_string(root, "experiment", &b->experiment, err);
  if (!rc) rc = ls_yreq_string(root, "replay", &b->replay, err);
  if (!rc) rc = ls_yreq_string(root, "spec_hash", &b->spec_hash, err);
  if (!rc) rc = read_prompts(root, &b->prompts, err);
  if (!rc) rc = ls_yreq_int(root, "max_tokens", 1, 1000000, &b->max_tokens, err);
  if (!rc) rc = ls_yreq_double(root, "k", LS_Y_POS, 100, &b->k, err);
  if (!rc) rc = ls_yreq_double(root, "floor", 0, 0.5, &b->floor, err);
  if (!rc) rc = ls_yreq_double(root, "no_interval", 0, 0.5, &b->no_interval, err);
  return rc;
}

/* Reads the whole baseline; b->es is owned by the caller (free), strings borrow from doc. */
static int read_baseline(ls_ydoc *doc, baseline *b, ls_error *err)
{
  ls_ynode root = ls_ydoc_root(doc), seq;
  int rc = read_header(&root, b, err);
  if (!rc) rc = ls_ymap_require(&root, "entries", &seq, err);
  if (!rc) rc = ls_ynode_expect(&seq, LS_Y_SEQ, err);
  if (!rc) rc = ls_ymap_finish(&root, err);
  if (rc) return rc;
  b->n = ls_yseq_len(&seq);
  b->es = calloc((size_t)b->n + 1, sizeof *b->es);
  if (!b->es) return ls_error_set(err, LS_ENOMEM, "baseline: out of memory");
  for (int i = 0; !rc && i < b->n; i++) {
    ls_ynode it = ls_yseq_at(&seq, i);
    rc = read_entry(&it, &b->es[i], err);
    for (int j = 0; !rc && j < i; j++)
      if (same_key(&b->es[i], &b->es[j]))
        rc = ls_ynode_error(&it, err, LS_ESCHEMA, "duplicate entry (same as entry %d, line %d)",
                            j + 1, ls_ynode_line(&b->es[j].node));
  }
  return rc;
}

/* --- which replay a database holds --------------------------------------------------------- */

typedef struct replay_id {
  char experiment[64], replay[16], spec_hash[40], prompts[16], max_tokens[16];
} replay_id;

static void meta_text(ls_db *db, const char *key, char *out, size_t size)
{
  sqlite3_stmt *st = NULL;
  out[0] = '\0';
  if (sqlite3_prepare_v2(db->h, "SELECT value FROM meta WHERE key = ?1", -1, &st, NULL) ==
      SQLITE_OK) {
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) snprintf(out, size, "%s", sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
}

static void db_replay(ls_db *db, replay_id *r)
{
  meta_text(db, "experiment", r->experiment, sizeof r->experiment);
  meta_text(db, "replay", r->replay, sizeof r->replay);
  meta_text(db, "spec_hash", r->spec_hash, sizeof r->spec_hash);
  meta_text(db, "prompts", r->prompts, sizeof r->prompts);
  meta_text(db, "max_tokens", r->max_tokens, sizeof r->max_tokens);
}

/* The .yaml file in the folder of `path` whose spec_hash line names `hash` (into out). */
static int find_fitting(const char *path, const char *hash, char *out, size_t size)
{
  char dir[512];
  const char *slash = strrchr(path, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
  DIR *d = opendir(dir);
  if (!d) return 0;
  char want[64];
  snprintf(want, sizeof want, "spec_hash: \"%s\"", hash);
  int found = 0;
  struct dirent *e;
  while (!found && (e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".yaml")) continue;
    snprintf(out, size, "%s/%s", dir, e->d_name);
    FILE *f = fopen(out, "r");
    char line[256];
    while (f && !found && fgets(line, sizeof line, f)) found = strncmp(line, want, strlen(want)) == 0;
    if (f) fclose(f);
  }
  closedir(d);
  return found;
}

static int refuse_replay(ls_db *db, const char *path, const baseline *b, ls_error *err)
{
  replay_id r;
  db_replay(db, &r);
  if (!r.spec_hash[0])
    return ls_error_set(err, LS_EINVALID, "%s records no replay (it was not written by `leversim"
                        " reproduce`): %s is the baseline of the %s replay (%s prompts x %ld"
                        " tokens); compare a database from `leversim reproduce%s`", db->path,
                        path, b->replay, b->prompts, b->max_tokens,
                        strcmp(b->replay, "quick") ? "" : " --quick");
  if (!strcmp(r.spec_hash, b->spec_hash)) return LS_OK;
  char fit[768];
  int found = find_fitting(path, r.spec_hash, fit, sizeof fit);
  return ls_error_set(err, LS_EINVALID, "%s is from the %s replay (spec hash %s, %s prompts x %s"
                      " tokens) but %s is the baseline of the %s replay (spec hash %s, %s x %ld):"
                      " %s%s", db->path, r.replay, r.spec_hash, r.prompts, r.max_tokens, path,
                      b->replay, b->spec_hash, b->prompts, b->max_tokens,
                      found ? "compare it with " : "no baseline beside it fits; write one as"
                      " results/baseline/README.md says, e.g. results/baseline/",
                      found ? fit : r.replay[0] ? r.replay : "?");
}

/* --- the comparison ------------------------------------------------------------------------ */

typedef struct db_ratio { double ratio, lo, hi; } db_ratio;

/* The database ratio of e: 1 found (values may be NaN), 0 absent, < 0 error. */
static int lookup(ls_db *db, sqlite3_stmt *st, const entry *e, db_ratio *r, ls_error *err)
{
  const char *k[] = {e->device, e->model, e->dataset, e->axes, e->system};
  for (int i = 0; i < 5; i++) sqlite3_bind_text(st, i + 1, k[i], -1, SQLITE_STATIC);
  int s = sqlite3_step(st), found = 0;
  if (s == SQLITE_ROW) {
    found = 1;
    double *v[] = {&r->ratio, &r->lo, &r->hi};
    for (int i = 0; i < 3; i++)
      *v[i] = sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
  } else if (s != SQLITE_DONE) {
    found = ls_db_fail(db, err, "reading ratios");
  }
  sqlite3_reset(st);
  return found;
}

/* The tolerance of entry e against database ratio r; *interval = 0 when one side has none. */
static double tolerance(const baseline *b, const entry *e, const db_ratio *r, int *interval)
{
  *interval = !isnan(e->lo) && !isnan(r->lo) && !isnan(r->hi);
  if (!*interval) return b->no_interval * e->ratio;
  double hb = (e->hi - e->lo) / 2, hd = (r->hi - r->lo) / 2;
  return b->k * sqrt(hb * hb + hd * hd) + b->floor * e->ratio;
}

static void report_row(FILE *f, const baseline *b, const entry *e, const db_ratio *r, int found,
                       int *regress)
{
  int interval = 0;
  double tol = found ? tolerance(b, e, r, &interval) : NAN;
  double d = found ? r->ratio - e->ratio : NAN;
  const char *status = "ok";
  if (!found) status = "MISSING";
  else if (!(fabs(d) <= tol)) status = d > 0 ? "REGRESSION (higher)" : "REGRESSION (lower)";
  if (strcmp(status, "ok")) ++*regress;
  if (!f) return;
  char rb[32] = "-", db[16] = "-", tb[16] = "-";
  if (found && isfinite(r->ratio)) {
    snprintf(rb, sizeof rb, "%.4f", r->ratio);
    snprintf(db, sizeof db, "%+.2f%%", 100 * d / e->ratio);
    snprintf(tb, sizeof tb, "%.2f%%%s", 100 * tol / e->ratio, interval ? "" : "*");
  }
  fprintf(f, "%-16s %-14s %-10s %-24s %-17s %9s %9.4f %9s %9s  %s\n", e->device, e->model,
          e->dataset, strcmp(e->axes, "{}") ? e->axes : "", e->system, rb, e->ratio, db, tb,
          status);
}

static int compare(ls_db *db, const baseline *b, FILE *f, int *regress, ls_error *err)
{
  sqlite3_stmt *st = NULL, *mark = NULL;
  if (sqlite3_prepare_v2(db->h, "SELECT ratio, lo, hi FROM check_ratio WHERE (device, model,"
                                " dataset, axes_json, system) = (?1, ?2, ?3, ?4, ?5)", -1, &st,
                         NULL) ||
      sqlite3_prepare_v2(db->h, "UPDATE check_ratio SET used = 1 WHERE (device, model, dataset,"
                                " axes_json, system) = (?1, ?2, ?3, ?4, ?5)", -1, &mark, NULL)) {
    sqlite3_finalize(st);
    return ls_db_fail(db, err, "preparing the check");
  }
  if (f)
    fprintf(f, "%-16s %-14s %-10s %-24s %-17s %9s %9s %9s %9s  %s\n", "device", "model",
            "dataset", "axes", "system", "ratio", "baseline", "delta", "tolerance", "status");
  int rc = LS_OK;
  for (int i = 0; i < b->n && rc == LS_OK; i++) {
    db_ratio r = {NAN, NAN, NAN};
    int found = lookup(db, st, &b->es[i], &r, err);
    if (found < 0) {
      rc = found;
      break;
    }
    report_row(f, b, &b->es[i], &r, found, regress);
    const entry *e = &b->es[i];
    const char *k[] = {e->device, e->model, e->dataset, e->axes, e->system};
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

int ls_db_check(ls_db *db, const char *baseline_path, double k, FILE *report, int *regressions,
                ls_error *err)
{
  *regressions = 0;
  ls_ydoc *doc = NULL;
  baseline b;
  memset(&b, 0, sizeof b);
  int rc = ls_ydoc_load_file(&doc, baseline_path, err);
  if (rc == LS_OK) rc = read_baseline(doc, &b, err);
  if (rc == LS_OK && k > 0) b.k = k;
  if (rc == LS_OK) rc = refuse_replay(db, baseline_path, &b, err);
  if (rc == LS_OK) rc = ls_db_exec(db, table_sql, err);
  if (rc == LS_OK) rc = compare(db, &b, report, regressions, err);
  if (rc == LS_OK) {
    report_unchecked(db, report);
    if (report)
      fprintf(report, "%d entries checked (%s replay), %d regression%s (two-sided: |ratio -"
                      " baseline| > %g x combined half-width + %g%%; * no interval: %g%%)\n",
              b.n, b.replay, *regressions, *regressions == 1 ? "" : "s", b.k, 100 * b.floor,
              100 * b.no_interval);
  }
  free(b.es);
  ls_ydoc_free(doc);
  return rc;
}

/* --- writing a baseline --------------------------------------------------------------------- */

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

/* Provenance comment and header: which database, version, commit and replay. */
static void write_header(ls_db *db, const replay_id *r, double k, FILE *out)
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
               "configuration (view v_speedup)\n# with its paired 95 %% interval. Written from "
               "%s by leversim %s (git %s);\n# never edit by hand: results/baseline/README.md "
               "gives the command. Format: results/check.c.\n", base, ver, sha);
  fprintf(out, "experiment: %s\nreplay: %s\nspec_hash: \"%s\"\nprompts: \"%s\"\nmax_tokens: %s\n"
               "k: %g\nfloor: 0.001\nno_interval: 0.02\nentries:\n", r->experiment, r->replay,
          r->spec_hash, r->prompts, r->max_tokens, k);
}

/* Only a reproduce database, into a file named after its replay. */
static int writable(ls_db *db, const replay_id *r, const char *out_name, ls_error *err)
{
  if (!r->spec_hash[0] || (strcmp(r->replay, "quick") && strcmp(r->replay, "full")))
    return ls_error_set(err, LS_EINVALID, "%s records %s replay: baselines are written only "
                        "from a `leversim reproduce [--quick]` database with the experiment's "
                        "sizes", db->path, r->replay[0] ? "a custom" : "no");
  if (!out_name) return LS_OK;
  const char *base = strrchr(out_name, '/');
  base = base ? base + 1 : out_name;
  char want[32];
  snprintf(want, sizeof want, "%s.yaml", r->replay);
  if (strcmp(base, want))
    return ls_error_set(err, LS_EUSAGE, "%s: the baseline of the %s replay must be named %s",
                        out_name, r->replay, want);
  return LS_OK;
}

int ls_db_write_baseline(ls_db *db, double k, const char *out_name, FILE *out, ls_error *err)
{
  if (!(k > 0 && k <= 100))
    return ls_error_set(err, LS_ERANGE, "baseline k %g: expected a value in (0, 100]", k);
  replay_id r;
  db_replay(db, &r);
  int rc = writable(db, &r, out_name, err);
  if (rc == LS_OK) rc = ls_db_exec(db, table_sql, err);
  sqlite3_stmt *st = NULL;
  if (rc == LS_OK &&
      sqlite3_prepare_v2(db->h, "SELECT device, model, dataset, axes_json, system, ratio, lo, hi"
                                " FROM check_ratio WHERE ratio > 0 ORDER BY 1, 2, 3, 4, 5",
                         -1, &st, NULL) != SQLITE_OK)
    rc = ls_db_fail(db, err, "reading ratios");
  if (rc != LS_OK) return rc;
  write_header(db, &r, k, out);
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
    fprintf(out, ", ratio: %s", num);
    if (sqlite3_column_type(st, 6) != SQLITE_NULL && sqlite3_column_type(st, 7) != SQLITE_NULL) {
      ls_db_format_real(sqlite3_column_double(st, 6), num, sizeof num);
      fprintf(out, ", lo: %s", num);
      ls_db_format_real(sqlite3_column_double(st, 7), num, sizeof num);
      fprintf(out, ", hi: %s", num);
    }
    fputs("}\n", out);
  }
  if (s != SQLITE_DONE) rc = ls_db_fail(db, err, "reading ratios");
  sqlite3_finalize(st);
  if (rc == LS_OK && ferror(out)) rc = ls_error_set(err, LS_EIO, "writing the baseline failed");
  return rc;
}
