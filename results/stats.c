/* results/stats: 95 % intervals of a run's metrics and of the ratios between the systems of a
 * configuration, from the per-prompt sums the runner writes (table prompts).
 *
 * Method (docs/STATISTICS.md; the bootstrap itself is sim/boot.c):
 *  - every metric with an interval is a ratio of per-prompt sums, computed exactly as the
 *    runner computes it over the whole run: throughput = sum tokens / sum decode time,
 *    tau = sum (accepted + 1) / sum cycles, io_share = sum flash waits / sum verification time,
 *    and so on (metric_defs below); a mean per prompt (ttft_s) is a ratio to the prompt count;
 *  - a run's interval resamples its prompts (2000 percentile-bootstrap replicates, seed from
 *    the run id); a ratio between two systems of one configuration resamples the prompts once
 *    for both (they decode the same prompts with the same text: common random numbers), seed
 *    from the two run ids; two runs of different sizes pair over the prompts both decoded;
 *    Lever's mean (and geometric mean) speedup over a system across the configurations of
 *    part main draws each configuration's indices from one shared sequence per replicate
 *    (sim/boot.c: configurations of equal size, e.g. the devices that share a target's texts,
 *    get the same indices) and averages;
 *  - under LS_BOOT_MIN_UNITS prompts there is no interval: lo/hi are NULL.
 * Tables written here: prompts, metric_ci (with the run, in its transaction), ratio_ci and
 * summary_ci (by ls_db_stats_refresh, after the runs). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "results/db_int.h"
#include "sim/boot.h"
#include "sim/rng.h"

/* Column offsets of ls_db_prompt used by the definitions. */
#define F(field) offsetof(ls_db_prompt, field)
#define ONE ((size_t)-1)  /* the denominator 1 per prompt: a mean over prompts */
typedef struct metric_def {
  const char *name;
  size_t num, num2, den; /* value = sum (num + num2) / sum den; num2 ONE when unused */
} metric_def;

static const metric_def metric_defs[] = {
    {"throughput_tps", F(tokens), ONE, F(decode_s)},
    {"tau", F(tau_sum), ONE, F(cycles)},
    {"ttft_s", F(ttft_s), ONE, ONE},
    {"io_share", F(io_wait_s), ONE, F(verify_s)}, /* den: verify_s + lmhead_s, see den_of */
    {"io_busy_share", F(flash_busy_s), ONE, F(verify_s)}, /* den as io_share's */
    {"wasted_verify", F(waste_s), ONE, F(compute_s)},
    {"wasted_verify_tokens", F(waste_layers), ONE, F(token_layers)},
    {"util_npu", F(npu_busy_s), ONE, F(decode_s)},
    {"util_cpu", F(cpu_busy_s), ONE, F(decode_s)},
    {"util_flash", F(flash_busy_s), ONE, F(decode_s)},
    {"energy_per_token_j", F(energy_j), ONE, F(tokens)},
    {"share_draft", F(draft_s), ONE, F(decode_s)},
    {"share_verify", F(verify_s), ONE, F(decode_s)},
    {"share_lmhead", F(lmhead_s), ONE, F(decode_s)},
    {"verify_s_mean", F(verify_s), F(lmhead_s), F(cycles)},
    {"draft_s_mean", F(draft_s), ONE, F(cycles)},
    {"draft_work_s_mean", F(draft_work_s), ONE, F(cycles)},
    {"lmhead_s_mean", F(lmhead_s), ONE, F(cycles)},
    {"tree_size_mean", F(tree_nodes), ONE, F(cycles)},
    {"verify_tokens_mean", F(verify_tok), ONE, F(cycles)},
    {"target_calls_per_token", F(cycles), ONE, F(tokens)},
};
#define N_DEFS ((int)(sizeof metric_defs / sizeof *metric_defs))

const char *ls_db_ci_metric_name(int i)
{
  return i >= 0 && i < N_DEFS ? metric_defs[i].name : NULL;
}

static double field(const ls_db_prompt *p, size_t off)
{
  if (off == ONE) return 1.0;
  double v;
  memcpy(&v, (const char *)p + off, sizeof v);
  return v;
}

/* Fills num/den (n each) for definition d. io_share's denominator is the whole verification
 * (layers + output projection), as the runner's. */
static void columns(const ls_db_prompt *p, int n, const metric_def *d, double *num, double *den)
{
  int io = !strcmp(d->name, "io_share") || !strcmp(d->name, "io_busy_share");
  for (int j = 0; j < n; j++) {
    num[j] = field(&p[j], d->num) + (d->num2 == ONE ? 0 : field(&p[j], d->num2));
    den[j] = field(&p[j], d->den) + (io ? p[j].lmhead_s : 0);
  }
}

static uint64_t seed_of(const char *a, const char *b)
{
  uint64_t h = ls_key_str(0x5eedb007ULL, a);
  return b ? ls_key_str(h, b) : h;
}

int ls_db_metric_ci(const ls_db_prompt *p, int n, const char *run_id, int i, double *est,
                    double *lo, double *hi, ls_error *err)
{
  if (i < 0 || i >= N_DEFS || n < 1)
    return ls_error_set(err, LS_ERANGE, "metric interval: metric %d, %d prompts", i, n);
  double *buf = malloc(2 * (size_t)n * sizeof *buf);
  if (!buf) return ls_error_set(err, LS_ENOMEM, "metric interval: out of memory");
  columns(p, n, &metric_defs[i], buf, buf + n);
  ls_boot_pair bp = {n, buf, buf + n, NULL, NULL, ls_key2(seed_of(run_id, NULL), (uint64_t)i)};
  ls_boot_ci ci;
  int rc = ls_boot_ci_pair(&bp, LS_BOOT_RESAMPLES, LS_BOOT_LEVEL, &ci, err);
  *est = ci.est;
  *lo = ci.lo;
  *hi = ci.hi;
  free(buf);
  return rc;
}

/* --- writing a run's prompts and metric intervals (inside ls_db_write_run's transaction) -- */

static void bind_real(sqlite3_stmt *st, int i, double v)
{
  if (isfinite(v)) sqlite3_bind_double(st, i, v);
  else sqlite3_bind_null(st, i);
}

static const char insert_prompt_sql[] =
    "INSERT INTO prompts VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
    " ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)";

static int insert_prompts(ls_db *db, const char *id, const ls_db_prompt *p, int n, ls_error *err)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db->h, insert_prompt_sql, -1, &st, NULL) != SQLITE_OK)
    return ls_db_fail(db, err, "writing prompts");
  int rc = LS_OK;
  for (int j = 0; j < n && rc == LS_OK; j++) {
    const double v[] = {p[j].tokens, p[j].cycles, p[j].tau_sum, p[j].decode_s, p[j].ttft_s,
                        p[j].draft_s, p[j].draft_work_s, p[j].verify_s, p[j].lmhead_s,
                        p[j].tree_nodes, p[j].verify_tok, p[j].io_wait_s, p[j].compute_s,
                        p[j].waste_s, p[j].token_layers, p[j].waste_layers, p[j].npu_busy_s,
                        p[j].cpu_busy_s, p[j].flash_busy_s, p[j].energy_j};
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, p[j].prompt);
    for (int k = 0; k < (int)(sizeof v / sizeof *v); k++) bind_real(st, k + 3, v[k]);
    if (sqlite3_step(st) != SQLITE_DONE) rc = ls_db_fail(db, err, "writing prompts");
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  return rc;
}

int ls_db_stats_write_run(ls_db *db, const char *id, const ls_db_prompt *p, int n, ls_error *err)
{
  if (n <= 0) return LS_OK;
  int rc = insert_prompts(db, id, p, n, err);
  sqlite3_stmt *st = NULL;
  if (rc == LS_OK &&
      sqlite3_prepare_v2(db->h, "INSERT INTO metric_ci VALUES(?1, ?2, ?3, ?4, ?5, ?6)", -1, &st,
                         NULL) != SQLITE_OK)
    rc = ls_db_fail(db, err, "writing metric intervals");
  for (int i = 0; rc == LS_OK && i < N_DEFS; i++) {
    double est, lo, hi;
    rc = ls_db_metric_ci(p, n, id, i, &est, &lo, &hi, err);
    if (rc != LS_OK) break;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, metric_defs[i].name, -1, SQLITE_STATIC);
    bind_real(st, 3, est);
    bind_real(st, 4, lo);
    bind_real(st, 5, hi);
    sqlite3_bind_int(st, 6, n);
    if (sqlite3_step(st) != SQLITE_DONE) rc = ls_db_fail(db, err, "writing metric intervals");
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  return rc;
}

/* --- paired ratios between runs (ls_db_stats_refresh) ------------------------------------ */

/* One prompt of a run as the ratios need it. */
typedef struct prow {
  int prompt;
  double tok, time, tau, cyc;
} prow;

/* Loads run id's prompts (ordered by prompt) into *rows (owned, realloc'd), *n rows. */
static int rows_load(ls_db *db, sqlite3_stmt *st, const char *id, prow **rows, int *n, int *cap,
                     ls_error *err)
{
  sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
  int s, rc = LS_OK;
  *n = 0;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    if (*n == *cap) {
      int c = *cap ? 2 * *cap : 64;
      prow *r = realloc(*rows, (size_t)c * sizeof *r);
      if (!r) {
        rc = ls_error_set(err, LS_ENOMEM, "intervals: out of memory");
        break;
      }
      *rows = r;
      *cap = c;
    }
    prow *r = &(*rows)[(*n)++];
    r->prompt = sqlite3_column_int(st, 0);
    r->tok = sqlite3_column_double(st, 1);
    r->time = sqlite3_column_double(st, 2);
    r->tau = sqlite3_column_double(st, 3);
    r->cyc = sqlite3_column_double(st, 4);
  }
  if (rc == LS_OK && s != SQLITE_DONE) rc = ls_db_fail(db, err, "reading prompts");
  sqlite3_reset(st);
  return rc;
}

/* Pairs A's and B's prompts for metric m (0 throughput, 1 tau) into buf (4 n doubles:
 * a_num, a_den, b_num, b_den) over the prompts both decoded. Prompt j is the same text
 * whatever the number of prompts of a run, so two runs of different sizes (the replay's
 * sizing gives the headline systems more prompts) pair over the first min(na, nb) prompts.
 * Returns n, or 0 when the runs' prompts do not line up (then there is no paired ratio). */
static int pair_fill(const prow *a, int na, const prow *b, int nb, int m, double *buf,
                     ls_boot_pair *p, uint64_t seed)
{
  if (nb < na) na = nb;
  if (na == 0) return 0;
  for (int j = 0; j < na; j++) {
    if (a[j].prompt != b[j].prompt) return 0;
    buf[j] = m ? a[j].tau : a[j].tok;
    buf[na + j] = m ? a[j].cyc : a[j].time;
    buf[2 * na + j] = m ? b[j].tau : b[j].tok;
    buf[3 * na + j] = m ? b[j].cyc : b[j].time;
  }
  *p = (ls_boot_pair){na, buf, buf + na, buf + 2 * na, buf + 3 * na, seed};
  return na;
}

static const char *const ratio_metrics[] = {"throughput_tps", "tau"};

/* Every ok run against each reference system's run of its configuration. */
static const char pairs_sql[] =
    "SELECT s.run_id, r.run_id, r.system FROM runs s JOIN runs r"
    " ON r.status = 'ok' AND r.system IN ('lever', 'ar-flash', 'specinfer', 'lever-no-prune')"
    " AND (r.part, r.device, r.model, r.dataset, r.axes_json, r.seed)"
    " = (s.part, s.device, s.model, s.dataset, s.axes_json, s.seed)"
    " WHERE s.status = 'ok' ORDER BY s.run_id, r.system";

typedef struct refresh_ctx {
  ls_db *db;
  sqlite3_stmt *load, *ins;
  prow *a, *b;
  int na, nb, cap_a, cap_b;
  double *buf;
  int cap_buf;
} refresh_ctx;

static int ensure_buf(refresh_ctx *c, int n, ls_error *err)
{
  if (4 * n <= c->cap_buf) return LS_OK;
  double *b = realloc(c->buf, 4 * (size_t)n * sizeof *b);
  if (!b) return ls_error_set(err, LS_ENOMEM, "intervals: out of memory");
  c->buf = b;
  c->cap_buf = 4 * n;
  return LS_OK;
}

static int insert_ratio(refresh_ctx *c, const char *id, const char *ref_id, const char *ref,
                        ls_error *err)
{
  int rc = ensure_buf(c, c->na, err);
  for (int m = 0; rc == LS_OK && m < 2; m++) {
    ls_boot_pair p;
    ls_boot_ci ci = {NAN, NAN, NAN, 0, 0};
    if (pair_fill(c->a, c->na, c->b, c->nb, m, c->buf, &p, ls_key2(seed_of(id, ref_id), (uint64_t)m)))
      rc = ls_boot_ci_pair(&p, LS_BOOT_RESAMPLES, LS_BOOT_LEVEL, &ci, err);
    if (rc != LS_OK) break;
    sqlite3_stmt *st = c->ins;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, ref, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, ref_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, ratio_metrics[m], -1, SQLITE_STATIC);
    bind_real(st, 5, ci.est);
    bind_real(st, 6, ci.lo);
    bind_real(st, 7, ci.hi);
    sqlite3_bind_int(st, 8, ci.n);
    if (sqlite3_step(st) != SQLITE_DONE) rc = ls_db_fail(c->db, err, "writing ratio intervals");
    sqlite3_reset(st);
  }
  return rc;
}

static int refresh_ratios(refresh_ctx *c, ls_error *err)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(c->db->h, pairs_sql, -1, &st, NULL) != SQLITE_OK)
    return ls_db_fail(c->db, err, "listing run pairs");
  char last[LS_DB_RUN_ID_LEN + 1] = "";
  int s, rc = LS_OK;
  while (rc == LS_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    char id[LS_DB_RUN_ID_LEN + 1], ref_id[LS_DB_RUN_ID_LEN + 1], ref[64];
    snprintf(id, sizeof id, "%s", (const char *)sqlite3_column_text(st, 0));
    snprintf(ref_id, sizeof ref_id, "%s", (const char *)sqlite3_column_text(st, 1));
    snprintf(ref, sizeof ref, "%s", (const char *)sqlite3_column_text(st, 2));
    if (strcmp(id, last)) /* rows come grouped by run: load each run once */
      rc = rows_load(c->db, c->load, id, &c->a, &c->na, &c->cap_a, err);
    snprintf(last, sizeof last, "%s", id);
    if (rc == LS_OK) rc = rows_load(c->db, c->load, ref_id, &c->b, &c->nb, &c->cap_b, err);
    if (rc == LS_OK) rc = insert_ratio(c, id, ref_id, ref, err);
  }
  if (rc == LS_OK && s != SQLITE_DONE) rc = ls_db_fail(c->db, err, "listing run pairs");
  sqlite3_finalize(st);
  return rc;
}

/* Lever's speedup over each system per configuration of part main, as (lever run, system
 * run) pairs; the seed is the one of the system's ratio_ci row, so replicate r of a
 * configuration is the same resample here and there. */
static const char summary_pairs_sql[] =
    "SELECT s.system, l.run_id, s.run_id FROM runs s JOIN runs l ON l.status = 'ok'"
    " AND l.system = 'lever' AND (l.part, l.device, l.model, l.dataset, l.axes_json, l.seed)"
    " = (s.part, s.device, s.model, s.dataset, s.axes_json, s.seed)"
    " JOIN metrics m ON m.run_id = s.run_id AND m.name = 'throughput_tps' AND m.value > 0"
    " WHERE s.status = 'ok' AND s.part = 'main' AND s.system <> 'lever'"
    " ORDER BY s.system, s.device, s.model, s.dataset, s.axes_json, s.seed";

typedef struct sys_set {
  ls_boot_pair *pairs;
  double **bufs;
  int n, cap, missing; /* missing: configurations without a paired interval */
} sys_set;

static void set_clear(sys_set *s)
{
  for (int i = 0; i < s->n; i++) free(s->bufs[i]);
  s->n = s->missing = 0;
}

static int set_add(refresh_ctx *c, sys_set *s, uint64_t seed, ls_error *err)
{
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 64;
    ls_boot_pair *p = realloc(s->pairs, (size_t)cap * sizeof *p);
    if (p) s->pairs = p;
    double **b = p ? realloc(s->bufs, (size_t)cap * sizeof *b) : NULL;
    if (!b) return ls_error_set(err, LS_ENOMEM, "intervals: out of memory");
    s->bufs = b;
    s->cap = cap;
  }
  double *buf = malloc(4 * (size_t)(c->na ? c->na : 1) * sizeof *buf);
  if (!buf) return ls_error_set(err, LS_ENOMEM, "intervals: out of memory");
  if (!pair_fill(c->a, c->na, c->b, c->nb, 0, buf, &s->pairs[s->n], seed)) {
    free(buf);
    s->missing++;
    return LS_OK;
  }
  s->bufs[s->n++] = buf;
  return LS_OK;
}

static int insert_summary(refresh_ctx *c, const char *system, sys_set *s, ls_error *err)
{
  ls_boot_ci m = {NAN, NAN, NAN, 0, 0}, g = m;
  int rc = LS_OK;
  if (s->n > 0) rc = ls_boot_ci_agg(s->pairs, s->n, LS_BOOT_MEAN, LS_BOOT_RESAMPLES, LS_BOOT_LEVEL, &m, err);
  if (rc == LS_OK && s->n > 0)
    rc = ls_boot_ci_agg(s->pairs, s->n, LS_BOOT_GEOMEAN, LS_BOOT_RESAMPLES, LS_BOOT_LEVEL, &g, err);
  if (rc != LS_OK) return rc;
  if (s->missing) m.lo = m.hi = g.lo = g.hi = NAN; /* a configuration could not be paired */
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(c->db->h, "INSERT INTO summary_ci VALUES('main', ?1, ?2, ?3, ?4, ?5,"
                         " ?6, ?7, ?8, ?9)", -1, &st, NULL) != SQLITE_OK)
    return ls_db_fail(c->db, err, "writing summary intervals");
  sqlite3_bind_text(st, 1, system, -1, SQLITE_STATIC);
  sqlite3_bind_int(st, 2, s->n + s->missing);
  sqlite3_bind_int(st, 3, m.n);
  const double v[] = {m.est, m.lo, m.hi, g.est, g.lo, g.hi};
  for (int k = 0; k < 6; k++) bind_real(st, 4 + k, v[k]);
  if (sqlite3_step(st) != SQLITE_DONE) rc = ls_db_fail(c->db, err, "writing summary intervals");
  sqlite3_finalize(st);
  return rc;
}

static int refresh_summary(refresh_ctx *c, ls_error *err)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(c->db->h, summary_pairs_sql, -1, &st, NULL) != SQLITE_OK)
    return ls_db_fail(c->db, err, "listing configurations");
  sys_set set = {0};
  char sys[64] = "";
  int s, rc = LS_OK;
  while (rc == LS_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 0);
    if (strcmp(name, sys) && set.n + set.missing > 0) {
      rc = insert_summary(c, sys, &set, err);
      set_clear(&set);
    }
    snprintf(sys, sizeof sys, "%s", name);
    char lid[LS_DB_RUN_ID_LEN + 1], sid[LS_DB_RUN_ID_LEN + 1];
    snprintf(lid, sizeof lid, "%s", (const char *)sqlite3_column_text(st, 1));
    snprintf(sid, sizeof sid, "%s", (const char *)sqlite3_column_text(st, 2));
    if (rc == LS_OK) rc = rows_load(c->db, c->load, lid, &c->a, &c->na, &c->cap_a, err);
    if (rc == LS_OK) rc = rows_load(c->db, c->load, sid, &c->b, &c->nb, &c->cap_b, err);
    if (rc == LS_OK) rc = set_add(c, &set, ls_key2(seed_of(sid, lid), 0), err);
  }
  if (rc == LS_OK && s != SQLITE_DONE) rc = ls_db_fail(c->db, err, "listing configurations");
  if (rc == LS_OK && set.n + set.missing > 0) rc = insert_summary(c, sys, &set, err);
  set_clear(&set);
  free(set.pairs);
  free(set.bufs);
  sqlite3_finalize(st);
  return rc;
}

int ls_db_stats_refresh(ls_db *db, ls_error *err)
{
  refresh_ctx c = {db, NULL, NULL, NULL, NULL, 0, 0, 0, 0, NULL, 0};
  int rc = ls_db_exec(db, "BEGIN IMMEDIATE; DELETE FROM ratio_ci; DELETE FROM summary_ci;", err);
  if (rc != LS_OK) return rc;
  if (sqlite3_prepare_v2(db->h, "SELECT prompt, tokens, decode_s, tau_sum, cycles FROM prompts"
                         " WHERE run_id = ?1 ORDER BY prompt", -1, &c.load, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db->h, "INSERT INTO ratio_ci VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                         -1, &c.ins, NULL) != SQLITE_OK)
    rc = ls_db_fail(db, err, "preparing the intervals");
  if (rc == LS_OK) rc = refresh_ratios(&c, err);
  if (rc == LS_OK) rc = refresh_summary(&c, err);
  sqlite3_finalize(c.load);
  sqlite3_finalize(c.ins);
  free(c.a);
  free(c.b);
  free(c.buf);
  if (rc == LS_OK) return ls_db_exec(db, "COMMIT", err);
  sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
  return rc;
}

/* --- the achieved precision of a replay ------------------------------------------------- */

/* The widest per-configuration Lever speedup: over the headline systems (?1 = 1), whose
 * ratios have the 3 % target, or over every system (?1 = 0). */
static const char worst_sql[] =
    "SELECT r.device || ' / ' || r.model || ' / ' || r.dataset || ' / lever vs ' || r.system,"
    " c.ratio * (c.hi - c.lo) / (2 * c.lo * c.hi), c.lo IS NULL"
    " FROM ratio_ci c JOIN runs r ON r.run_id = c.run_id"
    " WHERE r.part = 'main' AND r.system <> 'lever' AND c.ref_system = 'lever'"
    " AND c.metric = 'throughput_tps' AND c.ratio > 0"
    " AND (?1 = 0 OR r.system IN ('ar-flash', 'specinfer'))"
    " ORDER BY c.lo IS NULL DESC, 2 DESC LIMIT 1";

static int worst_get(ls_db *db, int headline, double *hw, char *what, size_t size, ls_error *err)
{
  sqlite3_stmt *st = NULL;
  *hw = NAN;
  if (sqlite3_prepare_v2(db->h, worst_sql, -1, &st, NULL) != SQLITE_OK)
    return ls_db_fail(db, err, "reading the precision");
  sqlite3_bind_int(st, 1, headline);
  if (sqlite3_step(st) == SQLITE_ROW) {
    snprintf(what, size, "%s", (const char *)sqlite3_column_text(st, 0));
    if (!sqlite3_column_int(st, 2)) *hw = sqlite3_column_double(st, 1);
  }
  sqlite3_finalize(st);
  return LS_OK;
}

static double summary_hw(ls_db *db, const char *system)
{
  sqlite3_stmt *st = NULL;
  double hw = NAN;
  if (sqlite3_prepare_v2(db->h, "SELECT (mean_hi - mean_lo) / 2 / mean FROM summary_ci"
                         " WHERE part = 'main' AND system = ?1", -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, system, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
      hw = sqlite3_column_double(st, 0);
  }
  sqlite3_finalize(st);
  return hw;
}

int ls_db_precision_get(ls_db *db, ls_db_precision *out, ls_error *err)
{
  memset(out, 0, sizeof *out);
  out->vs_ar_flash = summary_hw(db, "ar-flash");
  out->vs_specinfer = summary_hw(db, "specinfer");
  int rc = worst_get(db, 1, &out->worst_config, out->worst, sizeof out->worst, err);
  if (!rc) rc = worst_get(db, 0, &out->worst_any, out->worst_any_name, sizeof out->worst_any_name, err);
  if (rc) return rc;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db->h, "SELECT coalesce(min(n), 0), coalesce(max(n), 0) FROM (SELECT count(p.prompt) AS n"
                         " FROM runs r LEFT JOIN prompts p ON p.run_id = r.run_id"
                         " WHERE r.part = 'main' AND r.status = 'ok' GROUP BY r.run_id)", -1,
                         &st, NULL) != SQLITE_OK)
    return ls_db_fail(db, err, "reading the precision");
  if (sqlite3_step(st) == SQLITE_ROW) {
    out->prompts = sqlite3_column_int(st, 0);
    out->prompts_max = sqlite3_column_int(st, 1);
  }
  sqlite3_finalize(st);
  return LS_OK;
}
