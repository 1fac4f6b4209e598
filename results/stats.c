/* results/stats: 95 % intervals of a run's metrics and of the ratios between the systems of a
 * configuration, from the per-prompt sums the runner writes (table prompts).
 *
 * Method (docs/STATISTICS.md; the bootstrap itself is sim/boot.c):
 *  - every metric with an interval is a ratio of per-prompt sums, computed exactly as the
 *    runner computes it over the whole run: throughput = sum tokens / sum decode time,
 *    tau = sum (accepted + 1) / sum cycles, io_share = sum flash waits / sum verification time,
 *    and so on (metric_defs below); a mean per prompt (ttft_s) is a ratio to the prompt count;
 *  - a run's intervals resample its prompts (2000 percentile-bootstrap replicates), one list
 *    of prompts per replicate for all of its metrics (sim/boot.c, ls_boot_ci_table); a ratio
 *    between two systems of one configuration resamples the prompts once for both (they
 *    decode the same prompts with the same text: common random numbers), one list for its
 *    throughput and tau; two runs of different sizes pair the prompts both decoded and
 *    resample the larger run's other prompts as a stratum of their own (sim/boot.h), so each
 *    system may have its own number of prompts;
 *  - every seed is a hash of the data resampled (the run's prompt sums, the pair's paired
 *    rows), never of run ids or settings text: identical data, identical intervals;
 *    Lever's mean (and geometric mean) speedup over a system across the configurations of
 *    part main draws each configuration's indices from one shared sequence per replicate
 *    (sim/boot.c: configurations of equal sizes, e.g. the devices that share a target's texts,
 *    get the same indices, stratum by stratum) and averages;
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

/* A column of the unit table: field a, plus field b per prompt (b ONE when unused; io_share's
 * denominator and verify_s_mean's numerator are verify_s + lmhead_s, as the runner's). */
typedef struct col_def {
  size_t a, b;
} col_def;

#define MAX_COLS (2 * N_DEFS)

/* The distinct columns of the metrics sel[0..m) (indices into metric_defs), and each one's
 * pair of columns (stats[k] for sel[k]). */
static int table_layout(const int *sel, int m, col_def *cols, ls_boot_cols *stats)
{
  int ncol = 0;
  for (int k = 0; k < m; k++) {
    const metric_def *d = &metric_defs[sel[k]];
    int io = !strcmp(d->name, "io_share") || !strcmp(d->name, "io_busy_share");
    col_def want[2] = {{d->num, d->num2}, {d->den, io ? F(lmhead_s) : ONE}};
    int at[2];
    for (int h = 0; h < 2; h++) {
      at[h] = -1;
      for (int c = 0; c < ncol && at[h] < 0; c++)
        if (cols[c].a == want[h].a && cols[c].b == want[h].b) at[h] = c;
      if (at[h] < 0) {
        cols[ncol] = want[h];
        at[h] = ncol++;
      }
    }
    stats[k] = (ls_boot_cols){at[0], at[1], -1, -1};
  }
  return ncol;
}

/* Fills the table (n rows of ncol) of the prompts. */
static void table_fill(const ls_db_prompt *p, int n, const col_def *cols, int ncol, double *rows)
{
  for (int j = 0; j < n; j++)
    for (int c = 0; c < ncol; c++)
      rows[(size_t)j * ncol + c] = field(&p[j], cols[c].a) + (cols[c].b == ONE ? 0 : field(&p[j], cols[c].b));
}

/* The resampling seed of a run: a hash of its prompts' numbers (prompt index and sums), so
 * two runs with the same data get the same intervals whatever their ids (issue: budgets 64
 * and 128 decoding identically, a profile named by path or by id). */
#define PROMPT_FIELDS 21

/* Every number of a prompt (the whole of ls_db_prompt), in a fixed order. */
static void prompt_fields(const ls_db_prompt *p, double v[PROMPT_FIELDS])
{
  const double f[PROMPT_FIELDS] = {p->prompt, p->tokens, p->cycles, p->tau_sum, p->decode_s,
                                   p->ttft_s, p->draft_s, p->draft_work_s, p->verify_s,
                                   p->lmhead_s, p->tree_nodes, p->verify_tok, p->io_wait_s,
                                   p->compute_s, p->waste_s, p->token_layers, p->waste_layers,
                                   p->npu_busy_s, p->cpu_busy_s, p->flash_busy_s, p->energy_j};
  memcpy(v, f, sizeof f);
}

static uint64_t prompts_seed(const ls_db_prompt *p, int n)
{
  uint64_t h = 0x5eedb007ULL;
  for (int j = 0; j < n; j++) {
    double v[PROMPT_FIELDS];
    prompt_fields(&p[j], v);
    h = ls_boot_seed_of(h, v, PROMPT_FIELDS);
  }
  return h;
}

int ls_db_metric_parts(const char *name, const ls_db_prompt *p, double *num, double *den, ls_error *err)
{
  for (int i = 0; i < N_DEFS; i++)
    if (strcmp(metric_defs[i].name, name) == 0) {
      col_def cols[2];
      ls_boot_cols st;
      table_layout(&i, 1, cols, &st);
      const col_def *a = &cols[st.a_num], *b = &cols[st.a_den];
      *num = field(p, a->a) + (a->b == ONE ? 0 : field(p, a->b));
      *den = field(p, b->a) + (b->b == ONE ? 0 : field(p, b->b));
      return LS_OK;
    }
  char names[LS_ERR_MSG / 2] = "";
  size_t k = 0;
  for (int i = 0; i < N_DEFS && k < sizeof names; i++)
    k += (size_t)snprintf(names + k, sizeof names - k, "%s%s", i ? ", " : "", metric_defs[i].name);
  return ls_error_set(err, LS_ENOTFOUND, "metric '%s' has no per-prompt definition (those that do: "
                      "%s)", name, names);
}

/* The intervals of the metrics sel[0..m) into out[0..m): a table of their columns alone,
 * resampled with the run's seed. The draws depend only on the seed and n, and each column's
 * sums only on its own values (sim/boot.c sums every column in draw order whatever the
 * table's width), so a metric's interval is the same bits whichever others are drawn with
 * it; drawing fewer costs less (fewer columns summed, fewer quantiles selected). */
static int metric_cis_sel(const ls_db_prompt *p, int n, const int *sel, int m, ls_boot_ci *out,
                          ls_error *err)
{
  if (n < 1 || m < 1)
    return ls_error_set(err, LS_ERANGE, "metric intervals: %d metrics, %d prompts", m, n);
  col_def cols[MAX_COLS];
  ls_boot_cols stats[N_DEFS];
  int ncol = table_layout(sel, m, cols, stats);
  double *rows = malloc((size_t)n * ncol * sizeof *rows);
  if (!rows) return ls_error_set(err, LS_ENOMEM, "metric intervals: out of memory");
  table_fill(p, n, cols, ncol, rows);
  int rc = ls_boot_ci_table(rows, n, ncol, stats, m, prompts_seed(p, n), LS_BOOT_RESAMPLES,
                            LS_BOOT_LEVEL, out, err);
  free(rows);
  return rc;
}

int ls_db_metric_cis(const ls_db_prompt *p, int n, ls_boot_ci out[], ls_error *err)
{
  int all[N_DEFS];
  for (int i = 0; i < N_DEFS; i++) all[i] = i;
  return metric_cis_sel(p, n, all, N_DEFS, out, err);
}

/* Metric i alone: bit for bit metric i of ls_db_metric_cis (metric_cis_sel), at a twentieth
 * of the cost. */
int ls_db_metric_ci(const ls_db_prompt *p, int n, int i, double *est, double *lo, double *hi,
                    ls_error *err)
{
  if (i < 0 || i >= N_DEFS || n < 1)
    return ls_error_set(err, LS_ERANGE, "metric interval: metric %d, %d prompts", i, n);
  ls_boot_ci ci;
  int rc = metric_cis_sel(p, n, &i, 1, &ci, err);
  *est = ci.est;
  *lo = ci.lo;
  *hi = ci.hi;
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

/* *slot, the statement sql kept on the handle: prepared at its first use, reset after each
 * (persistent: SQLite prepares it again itself after a schema change); NULL on failure. */
static sqlite3_stmt *kept(ls_db *db, sqlite3_stmt **slot, const char *sql)
{
  if (!*slot && sqlite3_prepare_v3(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT, slot, NULL) != SQLITE_OK) {
    sqlite3_finalize(*slot);
    *slot = NULL;
  }
  return *slot;
}

static int insert_prompts(ls_db *db, const char *id, const ls_db_prompt *p, int n, ls_error *err)
{
  sqlite3_stmt *st = kept(db, &db->st_prompt, insert_prompt_sql);
  if (!st)
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
  sqlite3_clear_bindings(st); /* nothing of this run's stays bound to the kept statement */
  return rc;
}

/* --- the intervals a study declares (roles intervals.metrics, intervals.ratios) ---------- */

/* The metric index of name[0..len), or -1. */
static int metric_index(const char *name, size_t len)
{
  for (int i = 0; i < N_DEFS; i++)
    if (strlen(metric_defs[i].name) == len && strncmp(metric_defs[i].name, name, len) == 0) return i;
  return -1;
}

/* The metrics of value (comma-separated names, blanks around them allowed; "all") as bits. */
static int parse_metrics(const char *value, unsigned long *mask, char *why, size_t size)
{
  *mask = 0;
  if (strcmp(value, "all") == 0) {
    *mask = (1UL << N_DEFS) - 1;
    return 0;
  }
  for (const char *s = value;;) {
    while (*s == ' ') s++;
    size_t len = strcspn(s, ",");
    size_t t = len;
    while (t > 0 && s[t - 1] == ' ') t--;
    int i = metric_index(s, t);
    if (i < 0) {
      size_t k = (size_t)snprintf(why, size, "'%.*s' is not a metric with an interval (those: ", (int)t, s);
      for (int j = 0; j < N_DEFS && k < size; j++)
        k += (size_t)snprintf(why + k, size - k, "%s%s", j ? ", " : "", metric_defs[j].name);
      if (k < size) snprintf(why + k, size - k, "; or all)");
      return -1;
    }
    *mask |= 1UL << i;
    if (s[len] == '\0') return 0;
    s += len + 1;
  }
}

int ls_db_intervals_role_check(const char *role, const char *value, char *why, size_t size)
{
  unsigned long mask;
  if (strcmp(role, "intervals.metrics") == 0) return parse_metrics(value, &mask, why, size);
  if (strcmp(role, "intervals.ratios") == 0 && strcmp(value, "all") && strcmp(value, "none") &&
      strcmp(value, "shown")) {
    snprintf(why, size, "'%s' is not all, shown or none", value);
    return -1;
  }
  return 0;
}

/* Reads the database's declared intervals once per handle (a study's roles are written by
 * the parent before any run). */
static int want_read(ls_db *db, ls_error *err)
{
  if (db->ci_want_read) return LS_OK;
  db->ci_mask = (1UL << N_DEFS) - 1;
  db->ci_ratios = LS_CI_RATIOS_ALL;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db->h, "SELECT role, value FROM roles WHERE role IN ('intervals.metrics',"
                         " 'intervals.ratios')", -1, &st, NULL) != SQLITE_OK)
    return ls_db_fail(db, err, "reading the study's intervals (table roles)");
  int s, rc = LS_OK;
  while (rc == LS_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    const char *role = (const char *)sqlite3_column_text(st, 0);
    const char *value = (const char *)sqlite3_column_text(st, 1);
    char why[LS_ERR_MSG / 2];
    if (!role || !value || ls_db_intervals_role_check(role, value, why, sizeof why))
      rc = ls_error_set(err, LS_EDB, "database %s: table roles: role %s = '%s': %s", db->path,
                        role ? role : "?", value ? value : "NULL", value ? why : "no value");
    else if (strcmp(role, "intervals.metrics") == 0)
      parse_metrics(value, &db->ci_mask, why, sizeof why);
    else
      db->ci_ratios = strcmp(value, "none") == 0 ? LS_CI_RATIOS_NONE
                      : strcmp(value, "shown") == 0 ? LS_CI_RATIOS_SHOWN : LS_CI_RATIOS_ALL;
  }
  if (rc == LS_OK && s != SQLITE_DONE) rc = ls_db_fail(db, err, "reading the study's intervals (table roles)");
  sqlite3_finalize(st);
  db->ci_want_read = rc == LS_OK;
  return rc;
}

int ls_db_intervals_written(ls_db *db, const char *name, int *written, int *ratios, ls_error *err)
{
  int rc = want_read(db, err);
  if (rc) return rc;
  int i = name ? metric_index(name, strlen(name)) : -1;
  if (written) *written = i >= 0 && (db->ci_mask >> i & 1);
  if (ratios) *ratios = db->ci_ratios;
  return LS_OK;
}

/* --- writing a run's metric intervals ------------------------------------------------------ */

/* The intervals of the last run written through db, with its prompts' numbers. */
typedef struct ci_memo {
  int n;
  ls_boot_ci ci[N_DEFS];
  double f[]; /* n x PROMPT_FIELDS */
} ci_memo;

/* The intervals of the metrics sel[0..m) of p, or the last run's when its prompts are p's
 * number for number (bitwise): the intervals are a pure function of the prompts (their
 * resampling seed is a hash of them), and a run that reuses another's simulation
 * (runner/study/driver.c) is written right after it, so its bootstrap is not drawn twice.
 * sel is the handle's (db->ci_mask), the same for every run, so the memo's are sel's too. */
static int metric_cis_memo(ls_db *db, const ls_db_prompt *p, int n, const int *sel, int nsel,
                           ls_boot_ci ci[N_DEFS], ls_error *err)
{
  size_t nf = (size_t)n * PROMPT_FIELDS;
  ci_memo *m = malloc(sizeof *m + nf * sizeof(double));
  if (!m) /* no memo: the same intervals, drawn */
    return metric_cis_sel(p, n, sel, nsel, ci, err);
  m->n = n;
  for (int j = 0; j < n; j++)
    prompt_fields(&p[j], &m->f[(size_t)j * PROMPT_FIELDS]);
  const ci_memo *last = db->ci_last;
  if (last && last->n == n && memcmp(last->f, m->f, nf * sizeof(double)) == 0) {
    memcpy(ci, last->ci, sizeof last->ci);
    free(m);
    return LS_OK;
  }
  int rc = metric_cis_sel(p, n, sel, nsel, ci, err);
  if (rc != LS_OK) {
    free(m);
    return rc;
  }
  memcpy(m->ci, ci, sizeof m->ci);
  free(db->ci_last);
  db->ci_last = m;
  return LS_OK;
}

/* Writes the intervals of the metrics the study declares (want_read; all by default). */
static int write_metric_cis(ls_db *db, const char *id, const ls_db_prompt *p, int n, ls_error *err)
{
  int sel[N_DEFS], m = 0;
  for (int i = 0; i < N_DEFS; i++)
    if (db->ci_mask >> i & 1) sel[m++] = i;
  if (m == 0) return LS_OK;
  sqlite3_stmt *st = kept(db, &db->st_ci, "INSERT INTO metric_ci VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
  if (!st)
    return ls_db_fail(db, err, "writing metric intervals");
  ls_boot_ci ci[N_DEFS];
  int rc = metric_cis_memo(db, p, n, sel, m, ci, err);
  for (int k = 0; rc == LS_OK && k < m; k++) {
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, metric_defs[sel[k]].name, -1, SQLITE_STATIC);
    bind_real(st, 3, ci[k].est);
    bind_real(st, 4, ci[k].lo);
    bind_real(st, 5, ci[k].hi);
    sqlite3_bind_int(st, 6, n);
    if (sqlite3_step(st) != SQLITE_DONE) rc = ls_db_fail(db, err, "writing metric intervals");
    sqlite3_reset(st);
  }
  sqlite3_clear_bindings(st);
  return rc;
}

int ls_db_stats_write_run(ls_db *db, const char *id, const ls_db_prompt *p, int n, ls_error *err)
{
  if (n <= 0) return LS_OK;
  int rc = insert_prompts(db, id, p, n, err);
  if (rc == LS_OK) rc = want_read(db, err);
  if (rc == LS_OK) rc = write_metric_cis(db, id, p, n, err);
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

/* Pairs A's and B's prompts into the table rows (n rows of 12: A's tokens, time, tau sum,
 * cycles, then B's, then the larger run's four again on the shared rows only, 0 elsewhere).
 * Prompt j is the same text whatever the number of prompts of a run, so the first
 * min(na, nb) prompts are the ones both decoded (paired rows); the larger run's other
 * prompts follow, the other run's columns 0 there, and *alone counts them: the bootstrap
 * resamples them as a stratum of their own and blends the larger run's ratio over its own
 * prompts with its ratio over the shared ones (sim/boot.h, "Runs of unequal sizes"), so the
 * replay's sizing may give each system its own number. *larger_b: B is the larger run.
 * Returns n = max(na, nb), or 0 when the runs' prompts do not line up (then no ratio). */
#define PAIR_COLS 12
#define PAIR_DATA 8 /* the columns of the runs themselves (the seed's) */
static int pair_rows(const prow *a, int na, const prow *b, int nb, double *rows, int *alone,
                     int *larger_b)
{
  int m = na < nb ? na : nb, n = na < nb ? nb : na;
  for (int j = 0; j < n; j++) {
    if (j < m && a[j].prompt != b[j].prompt) return 0;
    double *r = rows + (size_t)j * PAIR_COLS;
    memset(r, 0, PAIR_COLS * sizeof *r);
    if (j < na) r[0] = a[j].tok, r[1] = a[j].time, r[2] = a[j].tau, r[3] = a[j].cyc;
    if (j < nb) r[4] = b[j].tok, r[5] = b[j].time, r[6] = b[j].tau, r[7] = b[j].cyc;
    if (j < m) memcpy(r + PAIR_DATA, r + (nb > na ? 4 : 0), 4 * sizeof *r);
  }
  *alone = n - m;
  *larger_b = nb > na;
  return m > 0 ? n : 0;
}

/* The two paired statistics (ratio_metrics order): throughput and tau, A over B. */
static const ls_boot_cols pair_stats[2] = {{0, 1, 4, 5}, {2, 3, 6, 7}};

/* The regression slope of the smaller run's log ratio (num / den) on the larger run's over
 * the m shared rows (column offsets within a run: num, num + 1), ordinary least squares; 0
 * when the larger run's ratios do not vary (then nothing is learnt from them) or m < 2. */
static double pair_slope(const double *rows, int m, int larger_b, int num)
{
  int lo = (larger_b ? 4 : 0) + num, so = (larger_b ? 0 : 4) + num;
  double mx = 0, my = 0, sxy = 0, sxx = 0;
  for (int j = 0; j < m; j++) {
    const double *r = rows + (size_t)j * PAIR_COLS;
    mx += log(r[lo] / r[lo + 1]) / m, my += log(r[so] / r[so + 1]) / m;
  }
  for (int j = 0; j < m; j++) {
    const double *r = rows + (size_t)j * PAIR_COLS;
    double dx = log(r[lo] / r[lo + 1]) - mx, dy = log(r[so] / r[so + 1]) - my;
    sxy += dx * dy, sxx += dx * dx;
  }
  double beta = sxx > 0 ? sxy / sxx : 0;
  return m >= 2 && isfinite(beta) ? beta : 0;
}

/* The blends of the two statistics (none when the runs are of one size). */
static void pair_blends(const double *rows, int n, int alone, int larger_b, ls_boot_blend *bl)
{
  for (int k = 0; k < 2; k++) {
    bl[k] = (ls_boot_blend){0, PAIR_DATA + 2 * k, PAIR_DATA + 2 * k + 1, 0.0};
    if (alone > 0) {
      bl[k].side = larger_b ? 2 : 1;
      bl[k].beta = pair_slope(rows, n - alone, larger_b, 2 * k);
    }
  }
}

/* The seed of a pair's resamples: a hash of its paired rows' data columns (the data alone). */
static uint64_t pair_seed(const double *rows, int n)
{
  uint64_t h = 0x9a12edULL;
  for (int j = 0; j < n; j++) h = ls_boot_seed_of(h, rows + (size_t)j * PAIR_COLS, PAIR_DATA);
  return h;
}

static const char *const ratio_metrics[] = {"throughput_tps", "tau"};

/* The value of a role of the study (results/schema.c, table roles), as SQL. */
#define R(role) "(SELECT value FROM roles WHERE role = '" role "')"

/* Reference run r is the only ok run of its system in its configuration. Two runs that share
 * a configuration key but differ in settings the key does not name (e.g. two experiment files
 * with one part name and different part settings) have no single reference: no ratio is
 * better than one against an arbitrary run (and ratio_ci keeps one row per reference). */
#define ONE_REF(r)                                                                          \
  "NOT EXISTS (SELECT 1 FROM runs d WHERE d.status = 'ok' AND d.system = " r ".system"      \
  " AND d.run_id <> " r ".run_id AND (d.part, d.device, d.model, d.dataset, d.axes_json,"   \
  " d.seed) = (" r ".part, " r ".device, " r ".model, " r ".dataset, " r ".axes_json, " r   \
  ".seed))"

/* Whether a view shows the interval of run s's ratio to reference run r (intervals.ratios =
 * shown; results/schema.c): against Lever and AR from flash every run's (v_vs_lever and the
 * views on it: fig10, v_speedup, lever_ratios, check, the sizing's precision); against the
 * tree policy the non-autoregressive systems of the main and draft-policy parts (fig11);
 * against Lever without pruning the runs of Lever and of itself in the main and pruning parts
 * (fig12). A reference against itself is a pair too (its interval the point 1). The views'
 * conditions, written the same way, so a pair is drawn exactly when one of them can show it. */
#define PAIR_SHOWN                                                                             \
  "CASE WHEN r.system IN (" R("system.reference") ", " R("system.baseline") ") THEN 1"         \
  " WHEN r.system = " R("system.tree") " AND s.part IN (" R("part.main") ", "                   \
  R("part.draft_policies") ") AND s.system NOT LIKE " R("system.ar_prefix") " || '%' THEN 1"   \
  " WHEN r.system = " R("system.no_prune") " AND s.part IN (" R("part.main") ", "               \
  R("part.pruning") ") AND s.system IN (" R("system.reference") ", " R("system.no_prune")     \
  ") THEN 1 ELSE 0 END"

/* Every ok run against each reference system's run of its configuration, and PAIR_SHOWN. */
#define PAIRS_SELECT                                                                          \
  "SELECT s.run_id, r.run_id, r.system, " PAIR_SHOWN " FROM runs s JOIN runs r"               \
  " ON r.status = 'ok' AND r.system IN (SELECT value FROM roles WHERE role IN ('system.reference'," \
  " 'system.baseline', 'system.tree', 'system.no_prune'))"                                    \
  " AND (r.part, r.device, r.model, r.dataset, r.axes_json, r.seed)"                          \
  " = (s.part, s.device, s.model, s.dataset, s.axes_json, s.seed)"                            \
  " WHERE s.status = 'ok' AND " ONE_REF("r")
static const char pairs_sql[] = PAIRS_SELECT " ORDER BY s.run_id, r.system";
/* The pairs that have no interval yet (ls_db_stats_pair_run): those of run ?1 (as the run,
 * or as the reference; two branches, so that each finds its partner through the runs_config
 * index), or all of them. */
#define PAIR_MISSING " AND NOT EXISTS (SELECT 1 FROM ratio_ci c WHERE c.run_id = s.run_id AND c.ref_system = r.system)"
static const char pairs_of_run_sql[] =
    PAIRS_SELECT " AND s.run_id = ?1" PAIR_MISSING " UNION ALL "
    PAIRS_SELECT " AND r.run_id = ?1 AND s.run_id <> ?1" PAIR_MISSING " ORDER BY 1, 3";
static const char pairs_missing_sql[] = PAIRS_SELECT PAIR_MISSING " ORDER BY s.run_id, r.system";

typedef struct refresh_ctx {
  ls_db *db;
  sqlite3_stmt *load, *ins;
  prow *a, *b;
  int na, nb, cap_a, cap_b;
  double *buf;
  int cap_buf;
} refresh_ctx;

/* The pair's table (PAIR_COLS a row) and, after it, room for its columns one by one
 * (pair_estimates): (PAIR_COLS + 4) x n doubles. */
static int ensure_buf(refresh_ctx *c, int n, ls_error *err)
{
  if ((PAIR_COLS + 4) * n <= c->cap_buf) return LS_OK;
  double *b = realloc(c->buf, (PAIR_COLS + 4) * (size_t)n * sizeof *b);
  if (!b) return ls_error_set(err, LS_ENOMEM, "intervals: out of memory");
  c->buf = b;
  c->cap_buf = (PAIR_COLS + 4) * n;
  return LS_OK;
}

/* The estimates of a pair's two statistics without their intervals (a pair whose interval no
 * view shows): ls_boot_stat over the n rows as measured, which sums each column in row order
 * and blends as ls_boot_ci_strata's estimate does, bit for bit (sim/boot.h). */
static void pair_estimates(refresh_ctx *c, int n, int alone, int larger_b, const ls_boot_blend *bl,
                           ls_boot_ci cis[2])
{
  double *col = c->buf + (size_t)PAIR_COLS * n;
  for (int k = 0; k < 2; k++) {
    const ls_boot_cols *st = &pair_stats[k];
    const int at[4] = {st->a_num, st->a_den, st->b_num, st->b_den};
    for (int q = 0; q < 4; q++)
      for (int j = 0; j < n; j++) col[(size_t)q * n + j] = c->buf[(size_t)j * PAIR_COLS + at[q]];
    const ls_boot_pair p = {n, col, col + n, col + 2 * n, col + 3 * n, 0, alone, larger_b, bl[k].beta};
    cis[k] = (ls_boot_ci){ls_boot_stat(&p, NULL), NAN, NAN, n - alone, 0};
  }
}

/* Whether every replicate of a run against itself is exactly 1: both sides sum the same draws
 * of the same rows, so each replicate's ratio is x / x, which is 1 exactly when x is finite
 * and not 0. Every value of every prompt in [1e-100, 1e100] and n <= 1e6 keeps every sum of n
 * draws, and their quotients, finite and non-zero. */
static int self_pair_ones(const prow *a, int n)
{
  if (n > 1000000) return 0;
  for (int j = 0; j < n; j++) {
    const double v[4] = {a[j].tok, a[j].time, a[j].tau, a[j].cyc};
    for (int k = 0; k < 4; k++)
      if (!(v[k] >= 1e-100 && v[k] <= 1e100)) return 0;
  }
  return 1;
}

/* The interval a run against itself gets (self_pair_ones): sim/boot.c's percentile interval
 * over LS_BOOT_RESAMPLES replicates, every one 1, without drawing them. fig10 shows Lever's
 * and AR from flash's own rows, fig11 SpecInfer's, fig12 Lever without pruning's: three of
 * the 27 drawn pairs of the sized systems' length in each configuration of the main part. */
static void self_pair_interval(ls_boot_ci cis[2])
{
  static const double tail = (1 - LS_BOOT_LEVEL) / 2;
  double ones[LS_BOOT_RESAMPLES];
  for (int k = 0; k < 2; k++) {
    cis[k].reliable = cis[k].n >= LS_BOOT_MIN_UNITS && isfinite(cis[k].est);
    if (!cis[k].reliable) continue;
    for (int r = 0; r < LS_BOOT_RESAMPLES; r++) ones[r] = 1.0;
    cis[k].lo = ls_boot_quantile(ones, LS_BOOT_RESAMPLES, tail);
    for (int r = 0; r < LS_BOOT_RESAMPLES; r++) ones[r] = 1.0;
    cis[k].hi = ls_boot_quantile(ones, LS_BOOT_RESAMPLES, 1 - tail);
  }
}

/* Writes the pair's two ratios; drawn: with their intervals, else their estimates alone. */
static int insert_ratio(refresh_ctx *c, const char *id, const char *ref_id, const char *ref,
                        int drawn, ls_error *err)
{
  int rc = ensure_buf(c, c->na > c->nb ? c->na : c->nb, err), alone = 0, larger_b = 0;
  ls_boot_ci cis[2] = {{NAN, NAN, NAN, 0, 0}, {NAN, NAN, NAN, 0, 0}};
  ls_boot_blend bl[2];
  int n = rc == LS_OK ? pair_rows(c->a, c->na, c->b, c->nb, c->buf, &alone, &larger_b) : 0;
  if (n > 0) pair_blends(c->buf, n, alone, larger_b, bl);
  int self = n > 0 && drawn && strcmp(id, ref_id) == 0 && self_pair_ones(c->a, c->na);
  if (n > 0 && (!drawn || self))
    pair_estimates(c, n, alone, larger_b, bl, cis);
  if (self)
    self_pair_interval(cis);
  else if (n > 0 && drawn) /* one resample list per replicate for both metrics */
    rc = ls_boot_ci_strata(c->buf, n, alone, PAIR_COLS, pair_stats, bl, 2, pair_seed(c->buf, n),
                           LS_BOOT_RESAMPLES, LS_BOOT_LEVEL, cis, err);
  for (int m = 0; rc == LS_OK && m < 2; m++) {
    const ls_boot_ci ci = cis[m];
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

/* The intervals of the pairs that sql lists (with ?1 = run_id when it is not NULL). */
/* sql with run_id (pairs_of_run_sql) is the statement kept on the handle (db->st_pairs). */
static int refresh_ratios(refresh_ctx *c, const char *sql, const char *run_id, ls_error *err)
{
  sqlite3_stmt *st = run_id ? c->db->st_pairs : NULL;
  if (!st && sqlite3_prepare_v2(c->db->h, sql, -1, &st, NULL) != SQLITE_OK) {
    sqlite3_finalize(st);
    return ls_db_fail(c->db, err, "listing run pairs");
  }
  if (run_id) {
    c->db->st_pairs = st;
    sqlite3_bind_text(st, 1, run_id, -1, SQLITE_TRANSIENT);
  }
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
    int drawn = c->db->ci_ratios == LS_CI_RATIOS_ALL || sqlite3_column_int(st, 3);
    if (rc == LS_OK) rc = rows_load(c->db, c->load, ref_id, &c->b, &c->nb, &c->cap_b, err);
    if (rc == LS_OK) rc = insert_ratio(c, id, ref_id, ref, drawn, err);
  }
  if (rc == LS_OK && s != SQLITE_DONE) rc = ls_db_fail(c->db, err, "listing run pairs");
  if (run_id) { /* kept for the next run: reset, and its binding dropped */
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
  } else {
    sqlite3_finalize(st);
  }
  return rc;
}

/* Lever's speedup over each system per configuration of part main, as (lever run, system
 * run) pairs; the seed is the one of the system's ratio_ci row, so replicate r of a
 * configuration is the same resample here and there. */
static const char summary_pairs_sql[] =
    "SELECT s.system, l.run_id, s.run_id FROM runs s JOIN runs l ON l.status = 'ok'"
    " AND l.system = " R("system.reference") " AND (l.part, l.device, l.model, l.dataset, l.axes_json, l.seed)"
    " = (s.part, s.device, s.model, s.dataset, s.axes_json, s.seed)"
    " JOIN metrics m ON m.run_id = s.run_id AND m.name = 'throughput_tps' AND m.value > 0"
    " WHERE s.status = 'ok' AND s.part = " R("part.main") " AND s.system <> " R("system.reference")
    " AND " ONE_REF("l")
    " AND " ONE_REF("s")
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

static int set_add(refresh_ctx *c, sys_set *s, ls_error *err)
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
  int na = c->na > c->nb ? c->na : c->nb, alone = 0, larger_b = 0;
  double *buf = malloc((PAIR_COLS + 4) * (size_t)(na ? na : 1) * sizeof *buf);
  if (!buf) return ls_error_set(err, LS_ENOMEM, "intervals: out of memory");
  int n = pair_rows(c->b, c->nb, c->a, c->na, buf, &alone, &larger_b); /* as the system's ratio_ci row: it, then lever */
  if (!n) {
    free(buf);
    s->missing++;
    return LS_OK;
  }
  /* Lever's throughput over the system's as a pair, with the seed of that ratio_ci row, so
   * replicate r of a configuration is the same resample here and there */
  double *col = buf + (size_t)PAIR_COLS * n;
  for (int j = 0; j < n; j++) {
    col[j] = buf[j * PAIR_COLS + 4], col[n + j] = buf[j * PAIR_COLS + 5];
    col[2 * n + j] = buf[j * PAIR_COLS], col[3 * n + j] = buf[j * PAIR_COLS + 1];
  }
  ls_boot_blend bl[2];
  pair_blends(buf, n, alone, larger_b, bl); /* here A is lever, the row's B: the sides swap */
  s->pairs[s->n] = (ls_boot_pair){n, col, col + n, col + 2 * n, col + 3 * n, pair_seed(buf, n),
                                  alone, !larger_b, bl[0].beta};
  s->bufs[s->n++] = buf;
  return LS_OK;
}

static int insert_summary(refresh_ctx *c, const char *system, sys_set *s, ls_error *err)
{
  ls_boot_ci m = {NAN, NAN, NAN, 0, 0}, g = m;
  int rc = LS_OK;
  if (s->n > 0) rc = ls_boot_ci_agg2(s->pairs, s->n, LS_BOOT_RESAMPLES, LS_BOOT_LEVEL, &m, &g, err);
  if (rc != LS_OK) return rc;
  if (s->missing) m.lo = m.hi = g.lo = g.hi = NAN; /* a configuration could not be paired */
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(c->db->h, "INSERT INTO summary_ci VALUES(" R("part.main") ", ?1, ?2, ?3, ?4, ?5,"
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
    if (rc == LS_OK) rc = set_add(c, &set, err);
  }
  if (rc == LS_OK && s != SQLITE_DONE) rc = ls_db_fail(c->db, err, "listing configurations");
  if (rc == LS_OK && set.n + set.missing > 0) rc = insert_summary(c, sys, &set, err);
  set_clear(&set);
  free(set.pairs);
  free(set.bufs);
  sqlite3_finalize(st);
  return rc;
}

static int ctx_open(refresh_ctx *c, ls_db *db, ls_error *err)
{
  memset(c, 0, sizeof *c);
  c->db = db;
  if (sqlite3_prepare_v2(db->h, "SELECT prompt, tokens, decode_s, tau_sum, cycles FROM prompts"
                         " WHERE run_id = ?1 ORDER BY prompt", -1, &c->load, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db->h, "INSERT INTO ratio_ci VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                         -1, &c->ins, NULL) != SQLITE_OK)
    return ls_db_fail(db, err, "preparing the intervals");
  return LS_OK;
}

static void ctx_close(refresh_ctx *c)
{
  sqlite3_finalize(c->load);
  sqlite3_finalize(c->ins);
  free(c->a);
  free(c->b);
  free(c->buf);
}

static int finish(ls_db *db, int rc, ls_error *err)
{
  if (rc == LS_OK) return ls_db_exec(db, "COMMIT", err);
  sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
  return rc;
}

/* A study that declares no ratio intervals (role intervals.ratios = none) gets none: the
 * tables are emptied and stay so. */
int ls_db_stats_refresh(ls_db *db, ls_error *err)
{
  refresh_ctx c;
  int rc = want_read(db, err);
  if (rc == LS_OK) rc = ls_db_exec(db, "BEGIN IMMEDIATE; DELETE FROM ratio_ci; DELETE FROM summary_ci;", err);
  if (rc != LS_OK) return rc;
  if (!db->ci_ratios) return finish(db, LS_OK, err);
  rc = ctx_open(&c, db, err);
  if (rc == LS_OK) rc = refresh_ratios(&c, pairs_sql, NULL, err);
  if (rc == LS_OK) rc = refresh_summary(&c, err);
  ctx_close(&c);
  return finish(db, rc, err);
}

int ls_db_stats_pair_run(ls_db *db, const char *run_id, ls_error *err)
{
  refresh_ctx c;
  int rc = want_read(db, err);
  if (rc != LS_OK || !db->ci_ratios) return rc;
  rc = ls_db_exec(db, "BEGIN IMMEDIATE", err); /* a pair's two runs may finish at once */
  if (rc != LS_OK) return rc;
  rc = ctx_open(&c, db, err);
  if (rc == LS_OK) rc = refresh_ratios(&c, run_id ? pairs_of_run_sql : pairs_missing_sql, run_id, err);
  ctx_close(&c);
  return finish(db, rc, err);
}

int ls_db_stats_summary(ls_db *db, ls_error *err)
{
  refresh_ctx c;
  int rc = want_read(db, err);
  if (rc == LS_OK) rc = ls_db_exec(db, "BEGIN IMMEDIATE; DELETE FROM summary_ci;", err);
  if (rc != LS_OK) return rc;
  if (!db->ci_ratios) return finish(db, LS_OK, err);
  rc = ctx_open(&c, db, err);
  if (rc == LS_OK) rc = refresh_summary(&c, err);
  ctx_close(&c);
  return finish(db, rc, err);
}

/* --- the achieved precision of a replay ------------------------------------------------- */

/* The widest per-configuration Lever speedup: over the headline systems (?1 = 1), whose
 * ratios have the 3 % target, or over every system (?1 = 0). */
static const char worst_sql[] =
    "SELECT r.device || ' / ' || r.model || ' / ' || r.dataset || ' / ' || " R("system.reference")
    " || ' vs ' || r.system,"
    " c.ratio * (c.hi - c.lo) / (2 * c.lo * c.hi), c.lo IS NULL"
    " FROM ratio_ci c JOIN runs r ON r.run_id = c.run_id"
    " WHERE r.part = " R("part.main") " AND r.system <> " R("system.reference")
    " AND c.ref_system = " R("system.reference")
    " AND c.metric = 'throughput_tps' AND c.ratio > 0"
    " AND (?1 = 0 OR r.system IN (" R("system.baseline") ", " R("system.tree") "))"
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

/* The sizing rule's measure: headline systems' main runs with fewer prompts than Lever's run
 * of their configuration, the widest half-width of their own throughput first (a run under
 * LS_BOOT_MIN_UNITS prompts, without an interval, before all). */
static const char own_smaller_sql[] =
    "SELECT s.device || ' / ' || s.model || ' / ' || s.dataset || ' / ' || s.system,"
    " (c.hi - c.lo) / 2 / c.value, c.lo IS NULL"
    " FROM runs s JOIN metric_ci c ON c.run_id = s.run_id AND c.name = 'throughput_tps'"
    " JOIN runs l ON l.status = 'ok' AND l.system = " R("system.reference")
    " AND (l.part, l.device, l.model, l.dataset, l.axes_json, l.seed)"
    " = (s.part, s.device, s.model, s.dataset, s.axes_json, s.seed)"
    " WHERE s.status = 'ok' AND s.part = " R("part.main")
    " AND s.system IN (" R("system.baseline") ", " R("system.tree") ")"
    " AND c.prompts < (SELECT count(*) FROM prompts p WHERE p.run_id = l.run_id)"
    " ORDER BY c.lo IS NULL DESC, 2 DESC LIMIT 1";

static int own_smaller_get(ls_db *db, ls_db_precision *out, ls_error *err)
{
  sqlite3_stmt *st = NULL;
  out->own_smaller = NAN;
  if (sqlite3_prepare_v2(db->h, own_smaller_sql, -1, &st, NULL) != SQLITE_OK)
    return ls_db_fail(db, err, "reading the precision");
  if (sqlite3_step(st) == SQLITE_ROW) {
    snprintf(out->own_smaller_name, sizeof out->own_smaller_name, "%s",
             (const char *)sqlite3_column_text(st, 0));
    out->own_smaller = sqlite3_column_int(st, 2) ? INFINITY : sqlite3_column_double(st, 1);
  }
  sqlite3_finalize(st);
  return LS_OK;
}

static double summary_hw(ls_db *db, const char *role)
{
  sqlite3_stmt *st = NULL;
  double hw = NAN;
  if (sqlite3_prepare_v2(db->h, "SELECT (mean_hi - mean_lo) / 2 / mean FROM summary_ci"
                         " WHERE part = " R("part.main") " AND system = (SELECT value FROM roles WHERE role = ?1)",
                         -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, role, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
      hw = sqlite3_column_double(st, 0);
  }
  sqlite3_finalize(st);
  return hw;
}

int ls_db_precision_get(ls_db *db, ls_db_precision *out, ls_error *err)
{
  memset(out, 0, sizeof *out);
  out->vs_ar_flash = summary_hw(db, "system.baseline");
  out->vs_specinfer = summary_hw(db, "system.tree");
  int rc = worst_get(db, 1, &out->worst_config, out->worst, sizeof out->worst, err);
  if (!rc) rc = worst_get(db, 0, &out->worst_any, out->worst_any_name, sizeof out->worst_any_name, err);
  if (!rc) rc = own_smaller_get(db, out, err);
  if (rc) return rc;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db->h, "SELECT coalesce(min(n), 0), coalesce(max(n), 0) FROM (SELECT count(p.prompt) AS n"
                         " FROM runs r LEFT JOIN prompts p ON p.run_id = r.run_id"
                         " WHERE r.part = " R("part.main") " AND r.status = 'ok' GROUP BY r.run_id)", -1,
                         &st, NULL) != SQLITE_OK)
    return ls_db_fail(db, err, "reading the precision");
  if (sqlite3_step(st) == SQLITE_ROW) {
    out->prompts = sqlite3_column_int(st, 0);
    out->prompts_max = sqlite3_column_int(st, 1);
  }
  sqlite3_finalize(st);
  return LS_OK;
}
