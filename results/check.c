/* results/check: the CI regression check of a paper replay against a baseline.
 *
 * Two kinds of values are guarded, per configuration (device, model, dataset, axes):
 *  - entries: lever_speedup = throughput(lever) / throughput(system) of v_speedup (part
 *    'main'), with its paired 95 % interval (lever_speedup_lo/hi, results/stats.c);
 *  - metrics: every run's throughput_tps (every system, AR from DRAM included) and io_share
 *    (Table 1 is the io_share of part table1's ar-flash runs), of every part of the replay,
 *    with their 95 % intervals. With several seeds per configuration, values are averaged.
 * Two ways to compare (the baseline's `compare:`):
 *  - exact (what `--write-baseline` writes): a replay is deterministic, with common random
 *    numbers, so the same code and inputs give bit-identical values on any machine (.ci/run
 *    checks --jobs 1 against 2). A value regresses when
 *        |value - baseline| > exact_tolerance * |baseline|     (exact_tolerance 1e-9)
 *    i.e. when it moved at all beyond floating-point noise. This is the paired comparison
 *    over the same prompts: the difference of two replays of one prompt set has no sampling
 *    noise, so any change of a model input that reaches a guarded value is caught, however
 *    small (docs/STATISTICS.md gives the measured power). A refactor passes only when it is
 *    bit-identical (to 1e-9).
 *  - interval (baselines without `compare:`): an entry regresses when
 *        |value - baseline| > k * sqrt(hw^2 + hw_base^2) + floor * |baseline|
 *    (hw: the half-widths (hi - lo) / 2 of the database's and of the baseline's interval),
 *    or, where either side has no interval, when it moves by more than no_interval x baseline.
 * Either way the check is two-sided (a bug that flatters Lever is as wrong as one that hurts
 * it), a value missing from the database regresses, and the report gives each changed value's
 * move in % and the statistical view: whether it lies beyond the interval tolerance above
 * (an intended model change that moves values only within their intervals is not a result).
 * A baseline belongs to one replay: it records the experiment, the replay (quick, full or regime), the
 * spec hash (of the expanded run specs, stored in the database's meta by `leversim reproduce`)
 * and the replay size. A database of another replay is refused (LS_EINVALID, exit 65) with the
 * name of the baseline file beside this one that fits it, if there is one.
 *
 * Baseline file format (YAML, written only by `leversim check --write-baseline`):
 *   experiment: paper
 *   replay: quick                # quick | full | regime (the regime study, regime.yaml)
 *   spec_hash: "1f0c..."         # 16 hex digits
 *   prompts: "8"                 # workload.prompts ("MIN-MAX" when sized per system) and
 *                                # workload.max_tokens of the replay
 *   max_tokens: 128
 *   compare: exact               # exact | interval (absent: interval)
 *   exact_tolerance: 1e-09       # relative; only with compare: exact
 *   k: 1                         # multiplier of the combined half-width
 *   floor: 0.001                 # relative floor of the tolerance
 *   no_interval: 0.02            # relative tolerance where an interval is missing
 *   entries:                     # one per (configuration, system); lever itself not listed
 *     - {device: oneplus-12, model: llama-3.1-8b, dataset: gsm8k, axes: "{}",
 *        system: ar-flash, ratio: 2.91, lo: 2.85, hi: 2.97}   # lo/hi absent: no interval
 *   metrics:                     # optional; one per (part, configuration, system)
 *     - {part: main, device: oneplus-12, model: llama-3.1-8b, dataset: gsm8k, axes: "{}",
 *        system: ar-mem, throughput_tps: 8.5, throughput_tps_lo: 8.4, throughput_tps_hi: 8.6,
 *        io_share: 0}            # each value optional, its lo/hi both or neither
 * Unknown or duplicate keys, a duplicated entry, a ratio <= 0, lo > hi or only one of them
 * are errors with file:line:col. */
#include <dirent.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "results/db_int.h"
#include "sim/fileio.h"
#include "sim/yaml.h"

/* A guarded value: v, and its 95 % interval [lo, hi] (NaN: none). v NaN: absent. */
typedef struct val { double v, lo, hi; } val;

typedef struct entry {
  const char *device, *model, *dataset, *axes, *system; /* borrowed from the YAML document */
  double ratio, lo, hi;                                  /* lo/hi NaN: no interval */
  ls_ynode node;
} entry;

/* The metrics guarded per run (columns of v_runs; io_share's interval from metric_ci). */
#define N_MET 2
static const char *const MET[N_MET] = {"throughput_tps", "io_share"};

typedef struct mrow {
  const char *part, *device, *model, *dataset, *axes, *system; /* borrowed */
  val m[N_MET];
  ls_ynode node;
} mrow;

typedef enum { CMP_INTERVAL = 0, CMP_EXACT = 1 } cmp_mode;

typedef struct baseline {
  const char *experiment, *replay, *spec_hash, *prompts; /* borrowed from the document */
  long max_tokens;
  cmp_mode mode;
  double exact_tol, k, floor, no_interval;
  entry *es; /* owned */
  int n;
  mrow *ms; /* owned */
  int nm;
} baseline;

/* Materialises the database side once: per (device, model, dataset, axes, system), and the
 * metrics per (part, device, model, dataset, axes, system). */
static const char table_sql[] =
    "DROP TABLE IF EXISTS temp.check_ratio;"
    "CREATE TEMP TABLE check_ratio AS SELECT device, model, dataset, axes_json, system,"
    " avg(lever_speedup) AS ratio, avg(lever_speedup_lo) AS lo, avg(lever_speedup_hi) AS hi,"
    " count(*) AS seeds, 0 AS used FROM v_speedup"
    " WHERE system <> (SELECT value FROM roles WHERE role = 'system.reference') GROUP BY device, model, dataset, axes_json, system;"
    "CREATE UNIQUE INDEX temp.check_ratio_key ON check_ratio(device, model, dataset,"
    " axes_json, system);"
    "DROP TABLE IF EXISTS temp.check_metric;"
    "CREATE TEMP TABLE check_metric AS SELECT r.part, r.device, r.model, r.dataset,"
    " r.axes_json, r.system, avg(r.throughput_tps) AS tps, avg(r.throughput_tps_lo) AS tps_lo,"
    " avg(r.throughput_tps_hi) AS tps_hi, avg(r.io_share) AS io, avg(c.lo) AS io_lo,"
    " avg(c.hi) AS io_hi, 0 AS used FROM v_runs r"
    " LEFT JOIN metric_ci c ON c.run_id = r.run_id AND c.name = 'io_share'"
    " GROUP BY r.part, r.device, r.model, r.dataset, r.axes_json, r.system;"
    "CREATE UNIQUE INDEX temp.check_metric_key ON check_metric(part, device, model, dataset,"
    " axes_json, system);";

/* lo/hi keys of a value (both or neither, lo <= hi). */
static int read_interval(const ls_ynode *n, const char *lo_key, const char *hi_key, double min,
                         val *v, ls_error *err)
{
  ls_ynode t;
  int rc = LS_OK;
  v->lo = v->hi = NAN;
  if (ls_ymap_find(n, lo_key, &t)) rc = ls_yas_double(&t, min, 1e9, &v->lo, err);
  if (!rc && ls_ymap_find(n, hi_key, &t)) rc = ls_yas_double(&t, min, 1e9, &v->hi, err);
  if (!rc && (isnan(v->lo) != isnan(v->hi) || v->lo > v->hi))
    rc = ls_ynode_error(n, err, LS_ESCHEMA, "%s and %s: give both (%s <= %s), or neither",
                        lo_key, hi_key, lo_key, hi_key);
  return rc;
}

static int read_entry(const ls_ynode *n, entry *e, ls_error *err)
{
  int rc = ls_ynode_expect(n, LS_Y_MAP, err);
  if (!rc) rc = ls_yreq_string(n, "device", &e->device, err);
  if (!rc) rc = ls_yreq_string(n, "model", &e->model, err);
  if (!rc) rc = ls_yreq_string(n, "dataset", &e->dataset, err);
  if (!rc) rc = ls_yopt_string(n, "axes", "{}", &e->axes, err);
  if (!rc) rc = ls_yreq_string(n, "system", &e->system, err);
  if (!rc) rc = ls_yreq_double(n, "ratio", LS_Y_POS, 1e9, &e->ratio, err);
  val iv = {NAN, NAN, NAN};
  if (!rc) rc = read_interval(n, "lo", "hi", LS_Y_POS, &iv, err);
  e->lo = iv.lo;
  e->hi = iv.hi;
  if (!rc) rc = ls_ymap_finish(n, err);
  e->node = *n;
  return rc;
}

static int read_mrow(const ls_ynode *n, mrow *r, ls_error *err)
{
  int rc = ls_ynode_expect(n, LS_Y_MAP, err);
  if (!rc) rc = ls_yreq_string(n, "part", &r->part, err);
  if (!rc) rc = ls_yreq_string(n, "device", &r->device, err);
  if (!rc) rc = ls_yreq_string(n, "model", &r->model, err);
  if (!rc) rc = ls_yreq_string(n, "dataset", &r->dataset, err);
  if (!rc) rc = ls_yopt_string(n, "axes", "{}", &r->axes, err);
  if (!rc) rc = ls_yreq_string(n, "system", &r->system, err);
  for (int k = 0; k < N_MET && !rc; k++) {
    char lo[40], hi[40];
    snprintf(lo, sizeof lo, "%s_lo", MET[k]);
    snprintf(hi, sizeof hi, "%s_hi", MET[k]);
    r->m[k].v = NAN;
    ls_ynode t;
    if (ls_ymap_find(n, MET[k], &t)) rc = ls_yas_double(&t, 0, 1e9, &r->m[k].v, err);
    if (!rc) rc = read_interval(n, lo, hi, 0, &r->m[k], err);
    if (!rc && isnan(r->m[k].v) && !isnan(r->m[k].lo))
      rc = ls_ynode_error(n, err, LS_ESCHEMA, "%s given without %s", lo, MET[k]);
  }
  if (!rc) rc = ls_ymap_finish(n, err);
  r->node = *n;
  return rc;
}

static int same_key(const entry *a, const entry *b)
{
  return !strcmp(a->device, b->device) && !strcmp(a->model, b->model) &&
         !strcmp(a->dataset, b->dataset) && !strcmp(a->axes, b->axes) &&
         !strcmp(a->system, b->system);
}

static int same_mkey(const mrow *a, const mrow *b)
{
  return !strcmp(a->part, b->part) && !strcmp(a->device, b->device) &&
         !strcmp(a->model, b->model) && !strcmp(a->dataset, b->dataset) &&
         !strcmp(a->axes, b->axes) && !strcmp(a->system, b->system);
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
  static const char *const modes[] = {"interval", "exact", NULL};
  int rc = ls_ynode_expect(root, LS_Y_MAP, err), mode = CMP_INTERVAL;
  ls_ynode t;
  if (!rc) rc = ls_yreq_string(root, "experiment", &b->experiment, err);
  if (!rc) rc = ls_yreq_string(root, "replay", &b->replay, err);
  if (!rc) rc = ls_yreq_string(root, "spec_hash", &b->spec_hash, err);
  if (!rc) rc = read_prompts(root, &b->prompts, err);
  if (!rc) rc = ls_yreq_int(root, "max_tokens", 1, 1000000, &b->max_tokens, err);
  if (!rc && ls_ymap_find(root, "compare", &t)) rc = ls_yreq_enum(root, "compare", modes, &mode, err);
  b->mode = (cmp_mode)mode;
  if (!rc) rc = ls_yopt_double(root, "exact_tolerance", 0, 1e-3, 1e-9, &b->exact_tol, err);
  if (!rc && b->mode != CMP_EXACT && ls_ymap_find(root, "exact_tolerance", &t))
    rc = ls_ynode_error(&t, err, LS_ESCHEMA, "exact_tolerance needs compare: exact");
  if (!rc) rc = ls_yreq_double(root, "k", LS_Y_POS, 100, &b->k, err);
  if (!rc) rc = ls_yreq_double(root, "floor", 0, 0.5, &b->floor, err);
  if (!rc) rc = ls_yreq_double(root, "no_interval", 0, 0.5, &b->no_interval, err);
  return rc;
}

/* Reads the whole baseline; b->es and b->ms are owned by the caller (free), strings borrow
 * from doc. */
static int read_baseline(ls_ydoc *doc, baseline *b, ls_error *err)
{
  ls_ynode root = ls_ydoc_root(doc), seq, mseq;
  int rc = read_header(&root, b, err), has_m = 0;
  if (!rc) rc = ls_ymap_require(&root, "entries", &seq, err);
  if (!rc) rc = ls_ynode_expect(&seq, LS_Y_SEQ, err);
  if (!rc && (has_m = ls_ymap_find(&root, "metrics", &mseq))) rc = ls_ynode_expect(&mseq, LS_Y_SEQ, err);
  if (!rc) rc = ls_ymap_finish(&root, err);
  if (rc) return rc;
  b->n = ls_yseq_len(&seq);
  b->nm = has_m ? ls_yseq_len(&mseq) : 0;
  if (b->n == 0 && b->nm == 0) /* it would pass any database: a check that cannot fail */
    return ls_ynode_error(&seq, err, LS_ESCHEMA, "no entries: a baseline without entries or metrics "
                          "checks nothing (write one with --write-baseline)");
  b->es = calloc((size_t)b->n + 1, sizeof *b->es);
  b->ms = calloc((size_t)b->nm + 1, sizeof *b->ms);
  if (!b->es || !b->ms) return ls_error_set(err, LS_ENOMEM, "baseline: out of memory");
  for (int i = 0; !rc && i < b->n; i++) {
    ls_ynode it = ls_yseq_at(&seq, i);
    rc = read_entry(&it, &b->es[i], err);
    for (int j = 0; !rc && j < i; j++)
      if (same_key(&b->es[i], &b->es[j]))
        rc = ls_ynode_error(&it, err, LS_ESCHEMA, "duplicate entry (same as entry %d, line %d)",
                            j + 1, ls_ynode_line(&b->es[j].node));
  }
  for (int i = 0; !rc && i < b->nm; i++) {
    ls_ynode it = ls_yseq_at(&mseq, i);
    rc = read_mrow(&it, &b->ms[i], err);
    for (int j = 0; !rc && j < i; j++)
      if (same_mkey(&b->ms[i], &b->ms[j]))
        rc = ls_ynode_error(&it, err, LS_ESCHEMA, "duplicate metrics row (same as row %d, line %d)",
                            j + 1, ls_ynode_line(&b->ms[j].node));
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

/* The first column of the first row of sql as text ("" when none). */
static void query_text(ls_db *db, const char *sql, char *out, size_t size)
{
  sqlite3_stmt *st = NULL;
  out[0] = '\0';
  if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
      sqlite3_column_type(st, 0) != SQLITE_NULL)
    snprintf(out, size, "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
}

/* A replay of `reproduce` records itself in meta; any other database (a sweep, runs) is a
 * "study": its sizes are read from its runs (prompts per run, workload.max_tokens). */
static void db_replay(ls_db *db, replay_id *r)
{
  meta_text(db, "experiment", r->experiment, sizeof r->experiment);
  meta_text(db, "replay", r->replay, sizeof r->replay);
  meta_text(db, "spec_hash", r->spec_hash, sizeof r->spec_hash);
  meta_text(db, "prompts", r->prompts, sizeof r->prompts);
  meta_text(db, "max_tokens", r->max_tokens, sizeof r->max_tokens);
  if (r->spec_hash[0] && (!strcmp(r->replay, "quick") || !strcmp(r->replay, "full") || !strcmp(r->replay, "regime")))
    return;
  r->spec_hash[0] = '\0';
  snprintf(r->replay, sizeof r->replay, "study");
  if (!r->experiment[0]) snprintf(r->experiment, sizeof r->experiment, "study");
  query_text(db, "SELECT CASE WHEN min(n) = max(n) THEN CAST(max(n) AS TEXT) ELSE min(n) || '-' || max(n) END"
                 " FROM (SELECT count(*) AS n FROM prompts GROUP BY run_id)", r->prompts, sizeof r->prompts);
  query_text(db, "SELECT CAST(max(value_num) AS INTEGER) FROM run_settings WHERE key = 'workload.max_tokens'",
             r->max_tokens, sizeof r->max_tokens);
  if (!r->prompts[0] || r->prompts[0] == '0') snprintf(r->prompts, sizeof r->prompts, "1");
  if (!r->max_tokens[0] || r->max_tokens[0] == '0') snprintf(r->max_tokens, sizeof r->max_tokens, "1");
}

/* The .yaml file in the folder of `path` whose spec_hash line names `hash` (into out). */
static int find_fitting(const char *path, const char *hash, char *out, size_t size)
{
  char dir[LS_PATH_MAX];
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
    FILE *f = NULL; /* a FIFO or folder named *.yaml there is skipped, never waited on */
    ls_error skip;
    ls_error_clear(&skip);
    if (ls_file_open_read(&f, out, NULL, &skip) != LS_OK) f = NULL;
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
  if (!strcmp(b->replay, "study")) /* any database: its runs are matched by configuration */
    return LS_OK;
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

/* Reads columns col..col+2 of st as a value (NULL: NaN). */
static val col_val(sqlite3_stmt *st, int col)
{
  double x[3];
  for (int i = 0; i < 3; i++)
    x[i] = sqlite3_column_type(st, col + i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, col + i);
  return (val){x[0], x[1], x[2]};
}

/* Binds the n key strings to st from parameter 1 on. */
static void bind_keys(sqlite3_stmt *st, const char *const *k, int n)
{
  for (int i = 0; i < n; i++) sqlite3_bind_text(st, i + 1, k[i], -1, SQLITE_STATIC);
}

/* The interval tolerance of baseline value b against database value d; *interval = 0 when
 * one side has none (then no_interval x baseline). */
static double interval_tol(const baseline *B, const val *b, const val *d, int *interval)
{
  *interval = !isnan(b->lo) && !isnan(d->lo) && !isnan(d->hi);
  if (!*interval) return B->no_interval * fabs(b->v);
  double hb = (b->hi - b->lo) / 2, hd = (d->hi - d->lo) / 2;
  return B->k * sqrt(hb * hb + hd * hd) + B->floor * fabs(b->v);
}

/* The verdict on one value. */
typedef struct verdict {
  int flagged;          /* regresses under the baseline's compare mode */
  int beyond;           /* outside the interval tolerance (the statistical view) */
  int interval;         /* both sides have intervals */
  double d, rel, tol;   /* database - baseline, relative to the baseline, interval tolerance */
} verdict;

static verdict judge(const baseline *B, const val *b, const val *d)
{
  verdict v = {0, 0, 0, d->v - b->v, NAN, NAN};
  v.rel = b->v != 0 ? v.d / fabs(b->v) : (v.d == 0 ? 0 : copysign(INFINITY, v.d));
  v.tol = interval_tol(B, b, d, &v.interval);
  v.beyond = !(fabs(v.d) <= v.tol);
  if (B->mode == CMP_EXACT)
    v.flagged = !(fabs(v.d) <= B->exact_tol * fabs(b->v));
  else
    v.flagged = v.beyond;
  return v;
}

/* Running totals of a check. */
typedef struct move {
  char what[320];
  const char *status;
  double before, after, rel;
} move;

typedef struct tally {
  int values, flagged, missing, beyond;
  double worst;            /* largest |relative change| seen */
  char worst_what[320];
  move *moves;             /* owned: every flagged or missing value, for the short report */
  int n_moves, cap_moves;
  double log_before, log_after; /* the headline: sums of ln throughput over runs in both */
  int n_head;
} tally;

/* Keeps a flagged or missing value for the short report (out of memory: only counted). */
static void keep_move(tally *t, const char *what, const char *status, double before, double after, double rel)
{
  if (t->n_moves == t->cap_moves) {
    int cap = t->cap_moves ? 2 * t->cap_moves : 32;
    move *m = realloc(t->moves, (size_t)cap * sizeof *m);
    if (!m) return;
    t->moves = m;
    t->cap_moves = cap;
  }
  move *m = &t->moves[t->n_moves++];
  snprintf(m->what, sizeof m->what, "%s", what);
  m->status = status;
  m->before = before;
  m->after = after;
  m->rel = rel;
}

static void note_worst(tally *t, const verdict *v, const char *what)
{
  if (!(fabs(v->rel) > t->worst)) return;
  t->worst = fabs(v->rel);
  snprintf(t->worst_what, sizeof t->worst_what, "%s: %+.4g %% (%s its interval tolerance)", what,
           100 * v->rel, v->beyond ? "beyond" : "within");
}

static const char *status_of(const baseline *B, const verdict *v, int found)
{
  if (!found) return "MISSING";
  if (!v->flagged) return "ok";
  if (B->mode == CMP_EXACT) return v->beyond ? "CHANGED (beyond interval)" : "CHANGED (within interval)";
  return v->d > 0 ? "REGRESSION (higher)" : "REGRESSION (lower)";
}

static void report_row(FILE *f, const baseline *b, const entry *e, const val *r, int found,
                       tally *t)
{
  val bv = {e->ratio, e->lo, e->hi};
  verdict v = found ? judge(b, &bv, r) : (verdict){1, 1, 0, NAN, NAN, NAN};
  const char *status = status_of(b, &v, found);
  t->values++;
  t->flagged += found && v.flagged;
  t->missing += !found;
  t->beyond += found && v.beyond;
  char what[320];
  snprintf(what, sizeof what, "lever_speedup over %s on %s/%s/%s%s%s", e->system, e->device, e->model,
           e->dataset, strcmp(e->axes, "{}") ? " " : "", strcmp(e->axes, "{}") ? e->axes : "");
  if (found) note_worst(t, &v, what);
  if (!found || v.flagged) keep_move(t, what, status, e->ratio, found ? r->v : NAN, found ? v.rel : NAN);
  if (!f) return;
  char rb[32] = "-", db[16] = "-", tb[16] = "-";
  if (found && isfinite(r->v)) {
    snprintf(rb, sizeof rb, "%.4f", r->v);
    snprintf(db, sizeof db, "%+.2f%%", 100 * v.rel);
    snprintf(tb, sizeof tb, "%.2f%%%s", 100 * v.tol / e->ratio, v.interval ? "" : "*");
  }
  fprintf(f, "%-16s %-14s %-10s %-24s %-17s %9s %9.4f %9s %9s  %s\n", e->device, e->model,
          e->dataset, strcmp(e->axes, "{}") ? e->axes : "", e->system, rb, e->ratio, db, tb,
          status);
}

static int compare(ls_db *db, const baseline *b, FILE *f, tally *t, ls_error *err)
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
    const entry *e = &b->es[i];
    const char *k[] = {e->device, e->model, e->dataset, e->axes, e->system};
    val r = {NAN, NAN, NAN};
    bind_keys(st, k, 5);
    int s = sqlite3_step(st), found = s == SQLITE_ROW;
    if (found) r = col_val(st, 0);
    else if (s != SQLITE_DONE) rc = ls_db_fail(db, err, "reading ratios");
    sqlite3_reset(st);
    if (rc) break;
    report_row(f, b, e, &r, found, t);
    bind_keys(mark, k, 5);
    if (sqlite3_step(mark) != SQLITE_DONE) rc = ls_db_fail(db, err, "marking checked rows");
    sqlite3_reset(mark);
  }
  sqlite3_finalize(st);
  sqlite3_finalize(mark);
  return rc;
}

/* One metrics row against the database: each of its values judged; changed ones printed. */
static int compare_mrow(ls_db *db, sqlite3_stmt *st, const baseline *b, const mrow *m, FILE *f,
                        tally *t, ls_error *err)
{
  const char *k[] = {m->part, m->device, m->model, m->dataset, m->axes, m->system};
  bind_keys(st, k, 6);
  int s = sqlite3_step(st), found = s == SQLITE_ROW;
  val d[N_MET];
  for (int j = 0; found && j < N_MET; j++) d[j] = col_val(st, 3 * j);
  sqlite3_reset(st);
  if (!found && s != SQLITE_DONE) return ls_db_fail(db, err, "reading metrics");
  for (int j = 0; j < N_MET; j++) {
    if (isnan(m->m[j].v)) continue;
    t->values++;
    char what[320];
    snprintf(what, sizeof what, "%s of %s on %s/%s/%s (part %s%s%s)", MET[j], m->system, m->device,
             m->model, m->dataset, m->part, strcmp(m->axes, "{}") ? ", " : "",
             strcmp(m->axes, "{}") ? m->axes : "");
    verdict v = {1, 1, 0, NAN, NAN, NAN};
    if (found && !isnan(d[j].v)) {
      v = judge(b, &m->m[j], &d[j]);
      note_worst(t, &v, what);
      t->beyond += v.beyond;
    } else {
      t->missing++;
    }
    if (j == 0 && found && d[j].v > 0 && m->m[j].v > 0) { /* the headline: all runs' throughput */
      t->log_before += log(m->m[j].v);
      t->log_after += log(d[j].v);
      t->n_head++;
    }
    if (!v.flagged) continue;
    t->flagged += found && !isnan(d[j].v);
    keep_move(t, what, status_of(b, &v, found && !isnan(d[j].v)), m->m[j].v, found ? d[j].v : NAN,
              found && !isnan(d[j].v) ? v.rel : NAN);
    if (f)
      fprintf(f, "%-28s %-76s %12.6g %12.6g %+9.4f%% %9.2f%%%s  %s\n", MET[j], what, m->m[j].v,
              found ? d[j].v : NAN, 100 * v.rel, 100 * v.tol / fabs(m->m[j].v),
              v.interval ? "" : "*", status_of(b, &v, found && !isnan(d[j].v)));
  }
  return LS_OK;
}

static int compare_metrics(ls_db *db, const baseline *b, FILE *f, tally *t, ls_error *err)
{
  if (b->nm == 0) return LS_OK;
  sqlite3_stmt *st = NULL, *mark = NULL;
  if (sqlite3_prepare_v2(db->h, "SELECT tps, tps_lo, tps_hi, io, io_lo, io_hi FROM check_metric"
                                " WHERE (part, device, model, dataset, axes_json, system) ="
                                " (?1, ?2, ?3, ?4, ?5, ?6)", -1, &st, NULL) ||
      sqlite3_prepare_v2(db->h, "UPDATE check_metric SET used = 1 WHERE (part, device, model,"
                                " dataset, axes_json, system) = (?1, ?2, ?3, ?4, ?5, ?6)", -1,
                         &mark, NULL)) {
    sqlite3_finalize(st);
    return ls_db_fail(db, err, "preparing the check");
  }
  if (f)
    fprintf(f, "\nmetrics of every run (throughput of every system, I/O share), changed ones only:\n"
               "%-28s %-76s %12s %12s %10s %10s  %s\n", "metric", "run", "baseline", "value",
            "delta", "tolerance", "status");
  int rc = LS_OK, before = t->flagged + t->missing;
  for (int i = 0; i < b->nm && rc == LS_OK; i++) {
    const mrow *m = &b->ms[i];
    rc = compare_mrow(db, st, b, m, f, t, err);
    const char *k[] = {m->part, m->device, m->model, m->dataset, m->axes, m->system};
    bind_keys(mark, k, 6);
    if (!rc && sqlite3_step(mark) != SQLITE_DONE) rc = ls_db_fail(db, err, "marking checked rows");
    sqlite3_reset(mark);
  }
  if (f && rc == LS_OK && t->flagged + t->missing == before) fprintf(f, "(none)\n");
  sqlite3_finalize(st);
  sqlite3_finalize(mark);
  return rc;
}

/* Rows of the database not covered by the baseline: reported, not failed. */
static void report_unchecked(ls_db *db, FILE *f)
{
  static const char *const q[] = {"SELECT count(*) FROM check_ratio WHERE used = 0",
                                  "SELECT count(*) FROM check_metric WHERE used = 0"};
  static const char *const what[] = {"(configuration, system) ratio", "(part, configuration, system) metrics"};
  for (int i = 0; f && i < 2; i++) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->h, q[i], -1, &st, NULL) != SQLITE_OK) continue;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0)
      fprintf(f, "note: %d %s rows in the database are not in the baseline (not checked)\n",
              sqlite3_column_int(st, 0), what[i]);
    sqlite3_finalize(st);
  }
}

static void summary(FILE *f, const baseline *b, const tally *t, int regressions)
{
  if (!f) return;
  fprintf(f, "%d values checked (%d speedup ratios, %d metrics rows; %s replay), %d regression%s",
          t->values, b->n, b->nm, b->replay, regressions, regressions == 1 ? "" : "s");
  if (b->mode == CMP_EXACT)
    fprintf(f, " (exact: any move beyond %g relative; %d of the moves lie beyond their interval"
               " tolerance)\n", b->exact_tol, t->beyond);
  else
    fprintf(f, " (two-sided: |value - baseline| > %g x combined half-width + %g%%; * no interval:"
               " %g%%)\n", b->k, 100 * b->floor, 100 * b->no_interval);
  if (t->worst > 0) fprintf(f, "largest change: %s\n", t->worst_what);
  else fprintf(f, "largest change: none (every value identical)\n");
}

static int by_size(const void *a, const void *b)
{
  double x = fabs(((const move *)a)->rel), y = fabs(((const move *)b)->rel);
  if (isnan(x)) x = INFINITY; /* a missing value first: nothing is a larger change */
  if (isnan(y)) y = INFINITY;
  return (x < y) - (x > y);
}

/* The short report: what moved, by how much, largest first, and the headline before/after. */
#define BRIEF_MOVES 10
static void brief(FILE *f, const tally *t, int verbose)
{
  if (!f) return;
  if (t->n_head > 0) {
    double before = exp(t->log_before / t->n_head), after = exp(t->log_after / t->n_head);
    fprintf(f, "headline: geometric mean throughput of %d run%s, baseline %.6g tok/s, now %.6g (%+.4g %%)\n",
            t->n_head, t->n_head == 1 ? "" : "s", before, after, 100 * (after / before - 1));
  }
  if (t->n_moves == 0) return;
  qsort(t->moves, (size_t)t->n_moves, sizeof *t->moves, by_size);
  int shown = t->n_moves < BRIEF_MOVES ? t->n_moves : BRIEF_MOVES;
  fprintf(f, "moved (largest first, %d of %d):\n", shown, t->n_moves);
  for (int i = 0; i < shown; i++) {
    const move *m = &t->moves[i];
    if (isnan(m->after))
      fprintf(f, "  %-9s %-26s %s (baseline %.6g)\n", "missing", m->status, m->what, m->before);
    else
      fprintf(f, "  %+8.4f%% %-26s %s: %.6g -> %.6g\n", 100 * m->rel, m->status, m->what, m->before, m->after);
  }
  if (!verbose) fprintf(f, "(every value and the full table: --verbose)\n");
}

int ls_db_check(ls_db *db, const char *baseline_path, double k, FILE *report, int *regressions,
                ls_error *err)
{
  return ls_db_check_report(db, baseline_path, k, 1, report, regressions, err);
}

int ls_db_check_report(ls_db *db, const char *baseline_path, double k, int verbose, FILE *report,
                       int *regressions, ls_error *err)
{
  *regressions = 0;
  ls_ydoc *doc = NULL;
  baseline b;
  memset(&b, 0, sizeof b);
  tally t;
  memset(&t, 0, sizeof t);
  int rc = ls_ydoc_load_file(&doc, baseline_path, err);
  if (rc == LS_OK) rc = read_baseline(doc, &b, err);
  if (rc == LS_OK && k > 0) b.k = k;
  if (rc == LS_OK) rc = refuse_replay(db, baseline_path, &b, err);
  if (rc == LS_OK) rc = ls_db_exec(db, table_sql, err);
  /* the table is written aside and printed after the short report, with --verbose only */
  char *table = NULL;
  size_t len = 0;
  FILE *tf = rc == LS_OK && report && verbose ? open_memstream(&table, &len) : NULL;
  if (rc == LS_OK && report && verbose && !tf) rc = ls_error_set(err, LS_ENOMEM, "check: out of memory");
  if (rc == LS_OK) rc = compare(db, &b, tf, &t, err);
  if (rc == LS_OK) rc = compare_metrics(db, &b, tf, &t, err);
  if (tf) fclose(tf);
  if (rc == LS_OK) {
    *regressions = t.flagged + t.missing;
    summary(report, &b, &t, *regressions);
    brief(report, &t, verbose);
    report_unchecked(db, report);
    if (report && table) fprintf(report, "\n%s", table);
  }
  free(table);
  free(t.moves);
  free(b.es);
  free(b.ms);
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
               "configuration (view v_speedup)\n# with its paired 95 %% interval, and every run's "
               "throughput and I/O share (metrics). Written from\n# %s by leversim %s (git %s); "
               "never edit by hand: results/baseline/README.md\n# gives the command. Format and "
               "rule: results/check.c.\n", base, ver, sha);
  fprintf(out, "experiment: %s\nreplay: %s\nspec_hash: \"%s\"\nprompts: \"%s\"\nmax_tokens: %s\n"
               "compare: exact\nexact_tolerance: 1e-09\nk: %g\nfloor: 0.001\nno_interval: 0.02\n"
               "entries:", r->experiment, r->replay, r->spec_hash, r->prompts, r->max_tokens, k);
}

/* One value and its interval as YAML keys (nothing when the value is NULL). */
static void write_val(FILE *out, sqlite3_stmt *st, int col, const char *name)
{
  if (sqlite3_column_type(st, col) == SQLITE_NULL) return;
  char num[32];
  ls_db_format_real(sqlite3_column_double(st, col), num, sizeof num);
  fprintf(out, ", %s: %s", name, num);
  if (sqlite3_column_type(st, col + 1) == SQLITE_NULL || sqlite3_column_type(st, col + 2) == SQLITE_NULL)
    return;
  ls_db_format_real(sqlite3_column_double(st, col + 1), num, sizeof num);
  fprintf(out, ", %s_lo: %s", name, num);
  ls_db_format_real(sqlite3_column_double(st, col + 2), num, sizeof num);
  fprintf(out, ", %s_hi: %s", name, num);
}

/* The metrics list: every (part, configuration, system) of the replay. */
static int write_metrics(ls_db *db, FILE *out, ls_error *err)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db->h, "SELECT part, device, model, dataset, axes_json, system, tps, tps_lo,"
                                " tps_hi, io, io_lo, io_hi FROM check_metric ORDER BY 1, 2, 3, 4, 5, 6",
                         -1, &st, NULL) != SQLITE_OK)
    return ls_db_fail(db, err, "reading metrics");
  fputs("metrics:\n", out);
  int s;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    static const char *const keys[] = {"part", "device", "model", "dataset", "axes", "system"};
    fputs("  - {", out);
    for (int i = 0; i < 6; i++) {
      fprintf(out, "%s%s: ", i ? ", " : "", keys[i]);
      yaml_quoted(out, (const char *)sqlite3_column_text(st, i));
    }
    for (int k = 0; k < N_MET; k++) write_val(out, st, 6 + 3 * k, MET[k]);
    fputs("}\n", out);
  }
  int rc = s == SQLITE_DONE ? LS_OK : ls_db_fail(db, err, "reading metrics");
  sqlite3_finalize(st);
  return rc;
}

/* A reproduce database into a file named after its replay; a study's anywhere. */
static int writable(ls_db *db, const replay_id *r, const char *out_name, ls_error *err)
{
  int has = 0;
  char one[8];
  query_text(db, "SELECT 1 FROM runs WHERE status = 'ok' LIMIT 1", one, sizeof one);
  has = one[0] == '1';
  if (!has)
    return ls_error_set(err, LS_EINVALID, "%s holds no finished run: nothing to guard", db->path);
  const char *name = out_name ? strrchr(out_name, '/') : NULL;
  name = name ? name + 1 : out_name;
  if (name && !strcmp(r->replay, "study") && (!strcmp(name, "quick.yaml") || !strcmp(name, "full.yaml") ||
                                                !strcmp(name, "regime.yaml")))
    return ls_error_set(err, LS_EUSAGE, "%s: %s records no quick, full or regime replay (it is a study: a "
                        "sweep, runs or a trial); quick.yaml, full.yaml and regime.yaml are the replays' "
                        "baselines, name this one otherwise", out_name, db->path);
  if (!out_name || !strcmp(r->replay, "study")) return LS_OK;
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
  int s, n = 0;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    static const char *const keys[] = {"device", "model", "dataset", "axes", "system"};
    fputs(n++ ? "  - {" : "\n  - {", out);
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
  if (!n) fputs(" []   # no Lever ratio of part main (the regime study, or a study): the runs' metrics below are its check\n", out);
  if (rc == LS_OK) rc = write_metrics(db, out, err);
  if (rc == LS_OK && ferror(out)) rc = ls_error_set(err, LS_EIO, "writing the baseline failed");
  return rc;
}
