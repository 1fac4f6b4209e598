/* runner/testbed/calfit: see calfit.h. */
#include "runner/testbed/calfit.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "policies/costmodel.h"

static int cmp_d(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double ls_tbp_rep_stat(double *v, int n, int median)
{
  if (n == 0)
    return NAN;
  qsort(v, (size_t)n, sizeof v[0], cmp_d);
  if (!median)
    return v[0];
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double ls_tbp_fastest_of(const double *v, int n, int r)
{
  if (n <= 0 || n > LS_TBP_REPS_MAX)
    return NAN;
  double x[LS_TBP_REPS_MAX];
  memcpy(x, v, (size_t)n * sizeof x[0]);
  qsort(x, (size_t)n, sizeof x[0], cmp_d);
  if (r >= n)
    return x[0];
  if (r < 1)
    r = 1;
  /* w_i = C(n-1-i, r-1) / C(n, r), by the ratio w_{i+1} / w_i = (n-i-r) / (n-1-i) from
   * w_0 = r / n. */
  double w = (double)r / n, e = 0;
  for (int i = 0; i <= n - r; i++) {
    e += w * x[i];
    if (i < n - 1)
      w *= (double)(n - i - r) / (n - 1 - i);
  }
  return e;
}

double ls_tbp_pass_time(const ls_tbm_result *r, const char *kind, int n, int ctx, int median, int *reps)
{
  double v[LS_TBP_REPS_MAX];
  int k = 0;
  for (int i = 0; i < r->n && k < LS_TBP_REPS_MAX; i++)
    if (!strcmp(r->p[i].kind, kind) && r->p[i].n_tokens == n && r->p[i].ctx == ctx)
      v[k++] = r->p[i].c.time_s;
  if (reps)
    *reps = k;
  return ls_tbp_rep_stat(v, k, median);
}

/* The rates from the three rows kinds all, one, none (runner/testbed/calfit.h). */
static int rows_rates(const ls_tbm_result *r, const char *k_all, const char *k_one, const char *k_none,
                      double head_bytes, int median, ls_tbp_head_rate *out, ls_error *err)
{
  memset(out, 0, sizeof *out);
  int n = 0;
  for (int i = 0; i < r->n && !n; i++)
    if (!strcmp(r->p[i].kind, k_all) && r->p[i].n_tokens >= 2)
      n = r->p[i].n_tokens;
  double all = n ? ls_tbp_pass_time(r, k_all, n, 0, median, &out->reps_all) : NAN;
  double one = n ? ls_tbp_pass_time(r, k_one, n, 0, median, &out->reps_one) : NAN;
  if (isnan(all) || isnan(one))
    return ls_error_set(err, LS_ENOTFOUND, "the run has no '%s' and '%s' passes of one N >= 2 (measured by "
                        "leversim testbed measure since the head's rate became a calibration input)", k_all, k_one);
  out->n = n;
  out->t_all_s = all;
  out->t_one_s = one;
  out->head_bytes = head_bytes;
  out->per_row_s = (all - one) / (n - 1);
  if (!(out->per_row_s > 0) || !(head_bytes > 0))
    return ls_error_set(err, LS_ERANGE, "%d tokens with %d output rows took %.4f s, with one row %.4f s: no per-row "
                        "cost of the head (%.1f MB) was measured", n, n, all, one, head_bytes / 1e6);
  out->bw = head_bytes / out->per_row_s;
  double none = ls_tbp_pass_time(r, k_none, n, 0, median, &out->reps_none);
  if (isnan(none))
    return LS_OK; /* a run from before the rows-0 passes: the per-row rate alone */
  out->t_none_s = none;
  out->first_row_s = one - none;
  if (!(out->first_row_s > 0))
    return ls_error_set(err, LS_ERANGE, "%d tokens with one output row took %.4f s, with none %.4f s: no cost of the "
                        "head's first row (%.1f MB) was measured", n, one, none, head_bytes / 1e6);
  out->bw_first = head_bytes / out->first_row_s;
  out->has_first = 1;
  return LS_OK;
}

int ls_tbp_head_rate_get(const ls_tbm_result *r, double head_bytes, int median, ls_tbp_head_rate *out,
                         ls_error *err)
{
  return rows_rates(r, LS_TBM_ROWS_ALL, LS_TBM_ROWS_ONE, LS_TBM_ROWS_NONE, head_bytes, median, out, err);
}

int ls_tbp_head_rate_draft_get(const ls_tbm_result *r, double draft_head_bytes, int median, ls_tbp_head_rate *out,
                               ls_error *err)
{
  return rows_rates(r, LS_TBM_DRAFT_ROWS_ALL, LS_TBM_DRAFT_ROWS_ONE, LS_TBM_DRAFT_ROWS_NONE, draft_head_bytes, median,
                    out, err);
}

static double busy_model_s(const ls_flash_params *f, const ls_mapread_params *m, double bytes, double c, double share)
{
  ls_mapread_params q = *m;
  q.fault_s_per_byte = 0; /* the touch loop's own CPU is part of C, as in the stream */
  if (share < 0) { /* -x: a delay of x s instead of a share */
    q.io_cpu_share = 0;
    q.io_delay_s = -share;
  } else
    q.io_cpu_share = share;
  ls_mapread_seg s = {bytes, c, 0};
  return ls_mapread_time_s(f, &q, &s, 1);
}

static double busy_sse(const ls_tbp_io_share *o, const ls_flash_params *f, const ls_mapread_params *m, double bytes,
                       double share)
{
  double e = 0;
  for (int i = 0; i < o->levels; i++) {
    double d = busy_model_s(f, m, bytes, o->compute_s[i], share) / o->measured_s[i] - 1;
    e += d * d;
  }
  return e;
}

/* The x in [0, hi] that minimises busy_sse at sign x (sign 1: a share; -1: a delay, which
 * busy_model_s takes as a negative share): golden section to tol, ties kept to the smaller x. */
static double golden_busy(const ls_tbp_io_share *o, const ls_flash_params *f, const ls_mapread_params *m,
                          double bytes, double hi, double tol, double sign)
{
  const double g = 0.5 * (sqrt(5.0) - 1);
  double a = 0, b = hi, x1 = b - g * (b - a), x2 = a + g * (b - a);
  double f1 = busy_sse(o, f, m, bytes, sign * x1), f2 = busy_sse(o, f, m, bytes, sign * x2);
  while (b - a > tol) {
    if (f1 <= f2) {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - g * (b - a);
      f1 = busy_sse(o, f, m, bytes, sign * x1);
    } else {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + g * (b - a);
      f2 = busy_sse(o, f, m, bytes, sign * x2);
    }
  }
  return 0.5 * (a + b);
}

/* The statistic of the passes of kind at level (or size) lv and context 0 (see
 * ls_tbp_io_share_fit); *reps (may be NULL) their count. */
static double busy_stat(const ls_tbm_result *r, const char *kind, int lv, int median, int fastest_of, int *reps)
{
  if (median || fastest_of <= 0)
    return ls_tbp_pass_time(r, kind, lv, 0, median, reps);
  double v[LS_TBP_REPS_MAX];
  int k = 0;
  for (int i = 0; i < r->n && k < LS_TBP_REPS_MAX; i++)
    if (!strcmp(r->p[i].kind, kind) && r->p[i].n_tokens == lv && r->p[i].ctx == 0)
      v[k++] = r->p[i].c.time_s;
  if (reps)
    *reps = k;
  return ls_tbp_fastest_of(v, k, fastest_of);
}

/* The size of the run's first pass of kind; 0 when it has none. */
static int first_n(const ls_tbm_result *r, const char *kind)
{
  for (int i = 0; i < r->n; i++)
    if (!strcmp(r->p[i].kind, kind))
      return r->p[i].n_tokens;
  return 0;
}

/* The value of *x (a parameter inside q) in [lo, hi] at which a cold pass of n tokens asking
 * for `rows` rows, less base, takes target: bisection to 1e-6 on a time that grows with *x;
 * lo or hi when target lies outside what they give. *t_lo and *t_hi receive the pass less
 * base at lo and at hi. *x is left at the result. */
static double bisect_cold(ls_tbp *q, double *x, const ls_model_costs *m, int n, int rows, double base,
                          double target, double lo, double hi, double *t_lo, double *t_hi)
{
  *x = lo;
  *t_lo = ls_costmodel_pass_cold_s(q, m, n, 0, rows) - base;
  *x = hi;
  *t_hi = ls_costmodel_pass_cold_s(q, m, n, 0, rows) - base;
  if (target <= *t_lo)
    hi = lo;
  else if (target >= *t_hi)
    lo = hi;
  while (hi - lo > 1e-6) {
    *x = 0.5 * (lo + hi);
    if (ls_costmodel_pass_cold_s(q, m, n, 0, rows) - base < target)
      lo = *x;
    else
      hi = *x;
  }
  return *x = 0.5 * (lo + hi);
}

void ls_tbp_io_share_fit(const ls_tbm_result *r, const ls_flash_params *flash, const ls_mapread_params *m,
                         double bytes, int median, int fastest_of, int mem, ls_tbp_io_share *out)
{
  const char *busy = mem ? LS_TBM_STREAM_BUSY_MEM : LS_TBM_STREAM_BUSY, *warm = mem ? LS_TBM_BUSY_MEM_WARM : LS_TBM_BUSY_WARM;
  memset(out, 0, sizeof *out);
  for (int i = 0; i < r->n && out->levels < LS_TBP_BUSY_MAX; i++) {
    if (strcmp(r->p[i].kind, busy))
      continue;
    int lv = r->p[i].n_tokens, seen = 0;
    for (int k = 0; k < out->levels; k++)
      seen |= out->level[k] == lv;
    if (seen)
      continue;
    double c = busy_stat(r, warm, lv, median, fastest_of, NULL);
    double t = busy_stat(r, busy, lv, median, fastest_of, NULL);
    if (isnan(c) || isnan(t) || !(t > 0))
      continue;
    out->level[out->levels] = lv;
    out->compute_s[out->levels] = c;
    out->measured_s[out->levels++] = t;
  }
  if (!out->levels || !(bytes > 0))
    return;
  out->share = golden_busy(out, flash, m, bytes, 0.95, 1e-6, 1);
  /* the same levels described by a delay instead (share 0), on [0, 5 ms]: beyond a window's
   * compute every level is serial and the error no longer changes, and ties keep the smaller */
  out->delay = golden_busy(out, flash, m, bytes, 0.005, 1e-8, -1);
  for (int i = 0; i < out->levels; i++) {
    out->model_s[i] = busy_model_s(flash, m, bytes, out->compute_s[i], out->share);
    out->model0_s[i] = busy_model_s(flash, m, bytes, out->compute_s[i], 0);
    ls_mapread_params other = *m;
    other.share_waited = !m->share_waited;
    out->model_rule_s[i] = busy_model_s(flash, &other, bytes, out->compute_s[i], out->share);
  }
}

int ls_tbp_head_serial_fit(const ls_tbp *p, const ls_model_costs *m, const ls_tbm_result *r, int median,
                           ls_tbp_head_serial *out)
{
  memset(out, 0, sizeof *out);
  int n = first_n(r, LS_TBM_ROWS_COLD);
  double all = n ? ls_tbp_pass_time(r, LS_TBM_ROWS_COLD, n, 0, median, NULL) : NAN;
  double none = n ? ls_tbp_pass_time(r, LS_TBM_ROWS_NONE_COLD, n, 0, median, NULL) : NAN;
  if (isnan(all) || isnan(none))
    return 0;
  out->n = n;
  out->t_all_s = all;
  out->t_none_s = none;
  out->measured_s = all - none;
  ls_tbp q = *p;
  double base = ls_costmodel_pass_cold_s(&q, m, n, 0, 0);
  /* the head's phase grows with the serial share */
  out->serial = bisect_cold(&q, &q.head_serial, m, n, n, base, out->measured_s, 0, 1, &out->model0_s, &out->model1_s);
  return 1;
}

int ls_tbp_io_share_pass_fit(const ls_tbp *p, const ls_model_costs *m, const ls_tbm_result *r, int median,
                             int fastest_of, ls_tbp_io_pass *out)
{
  memset(out, 0, sizeof *out);
  int n = first_n(r, LS_TBM_ROWS_NONE_COLD);
  double t = n ? busy_stat(r, LS_TBM_ROWS_NONE_COLD, n, median, fastest_of, &out->reps) : NAN;
  if (isnan(t))
    return 0;
  out->n = n;
  out->measured_s = t;
  out->warm_s = ls_costmodel_pass_warm_s(p, m, n, 0, 0);
  ls_tbp q = *p;
  /* the pass slows as the share grows */
  out->share = bisect_cold(&q, &q.map.io_cpu_share, m, n, 0, 0, t, 0, 0.95, &out->model0_s, &out->model_max_s);
  return 1;
}

/* The mean process CPU time of the run's passes of kind with lv tokens at context 0; NAN when none. */
static double mean_cpu(const ls_tbm_result *r, const char *kind, int lv)
{
  double sum = 0;
  int k = 0;
  for (int i = 0; i < r->n; i++)
    if (!strcmp(r->p[i].kind, kind) && r->p[i].n_tokens == lv && r->p[i].ctx == 0) {
      sum += r->p[i].c.cpu_s;
      k++;
    }
  return k ? sum / k : NAN;
}

int ls_tbp_contention_fit(const ls_tbp *p, const ls_model_costs *m, const ls_tbm_result *r, ls_tbp_contention *out)
{
  memset(out, 0, sizeof *out);
  int n = first_n(r, LS_TBM_ROWS_NONE_COLD);
  double cold = n ? mean_cpu(r, LS_TBM_ROWS_NONE_COLD, n) : NAN, warm = n ? mean_cpu(r, LS_TBM_ROWS_NONE, n) : NAN;
  if (isnan(cold) || isnan(warm))
    return 0;
  int cores = ls_cpu_total_cores(ls_device_cpu(p->dev));
  out->n = n;
  out->active = cores > 0 && p->threads >= cores;
  out->cold_cpu_s = cold;
  out->warm_cpu_s = warm;
  out->bytes = m->n_layers * m->layer_bytes;
  out->fault_cpu_s = p->map.fault_s_per_byte * out->bytes;
  if (out->active && out->bytes > 0)
    out->contend_s_per_byte = fmax(0, cold - warm - out->fault_cpu_s) / cores / out->bytes;
  return 1;
}

int ls_tbp_start_fit(const ls_tbp *p, const ls_model_costs *m, const ls_tbm_result *r, int median, int fastest_of,
                     ls_tbp_start *out)
{
  memset(out, 0, sizeof *out);
  int n = first_n(r, LS_TBM_ROWS_NONE_COLD);
  double cold = n ? busy_stat(r, LS_TBM_ROWS_NONE_COLD, n, median, fastest_of, NULL) : NAN;
  double warm = n ? busy_stat(r, LS_TBM_ROWS_NONE, n, median, fastest_of, NULL) : NAN;
  if (isnan(cold) || isnan(warm))
    return 0;
  ls_tbp q = *p;
  q.map.start_s = 0;
  out->n = n;
  out->cold_s = cold;
  out->warm_s = warm;
  out->model_excess_s = ls_costmodel_pass_cold_s(&q, m, n, 0, 0) - ls_costmodel_pass_warm_s(&q, m, n, 0, 0);
  out->start_s = fmax(0, (cold - warm) - out->model_excess_s);
  return 1;
}
