/* sim/boot: see boot.h for the method. Cost: resamples x (sum of n) draws per interval; the
 * resampled sums are accumulated directly (no index array per replicate is kept). */
#include "sim/boot.h"
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include "sim/rng.h"

static double sum_ratio(double num, double den) { return den != 0 ? num / den : NAN; }

double ls_boot_stat(const ls_boot_pair *p, const int *idx)
{
  double an = 0, ad = 0, bn = 0, bd = 0;
  for (int j = 0; j < p->n; j++) {
    int u = idx ? idx[j] : j;
    an += p->a_num[u];
    ad += p->a_den[u];
    if (p->b_num) {
      bn += p->b_num[u];
      bd += p->b_den[u];
    }
  }
  double a = sum_ratio(an, ad);
  return p->b_num ? a / sum_ratio(bn, bd) : a;
}

/* Replicate r of pair p: n unit indices drawn with replacement from a SplitMix64 sequence
 * keyed by (seed, r) into idx, then the statistic over them. The multiply-shift maps 32 random
 * bits onto [0, n) with a bias below n / 2^32. */
static double replicate(const ls_boot_pair *p, uint64_t seed, int r, int *idx)
{
  uint64_t state = ls_key2(seed, (uint64_t)r);
  for (int j = 0; j < p->n; j++) {
    state += 0x9e3779b97f4a7c15ULL;
    idx[j] = (int)(((ls_mix64(state) >> 32) * (uint64_t)p->n) >> 32);
  }
  return ls_boot_stat(p, idx);
}

static double aggregate(const double *x, int m, ls_boot_agg agg)
{
  double s = 0;
  for (int i = 0; i < m; i++) s += agg == LS_BOOT_GEOMEAN ? log(x[i]) : x[i];
  return agg == LS_BOOT_GEOMEAN ? exp(s / m) : s / m;
}

/* Quantile f of x[0..n) as gsl_stats_quantile_from_sorted_data would give it on the sorted
 * data (the same interpolation between order statistics floor(f (n-1)) and the next), by two
 * selections (O(n)) instead of a sort: the two interval ends of every metric and ratio were a
 * tenth of a replay. x is reordered. */
static double quantile_select(double *x, size_t n, double f)
{
  double index = f * (double)(n - 1);
  size_t lhs = (size_t)index;
  double delta = index - (double)lhs, a = gsl_stats_select(x, 1, n, lhs);
  if (lhs == n - 1)
    return a;
  return (1 - delta) * a + delta * gsl_stats_select(x, 1, n, lhs + 1);
}

double ls_boot_rel_halfwidth(const ls_boot_ci *ci)
{
  if (!ci->reliable || !(fabs(ci->est) > 0)) return NAN;
  return (ci->hi - ci->lo) / 2 / fabs(ci->est);
}

int ls_boot_ci_agg(const ls_boot_pair *pairs, int m, ls_boot_agg agg, int resamples,
                   double level, ls_boot_ci *out, ls_error *err)
{
  if (m < 1 || resamples < 100 || !(level > 0 && level < 1))
    return ls_error_set(err, LS_ERANGE, "bootstrap: %d pairs, %d resamples, level %g", m,
                        resamples, level);
  int nmax = 1;
  for (int i = 0; i < m; i++)
    nmax = pairs[i].n > nmax ? pairs[i].n : nmax;
  double *x = malloc((size_t)m * sizeof *x), *rep = malloc((size_t)resamples * sizeof *rep);
  int *idx = malloc((size_t)nmax * sizeof *idx);
  if (!x || !rep || !idx) {
    free(x);
    free(rep);
    free(idx);
    return ls_error_set(err, LS_ENOMEM, "bootstrap: out of memory");
  }
  out->n = pairs[0].n;
  for (int i = 0; i < m; i++) {
    x[i] = ls_boot_stat(&pairs[i], NULL);
    if (pairs[i].n < out->n) out->n = pairs[i].n;
  }
  out->est = aggregate(x, m, agg);
  out->lo = out->hi = NAN;
  out->reliable = out->n >= LS_BOOT_MIN_UNITS && isfinite(out->est);
  for (int r = 0; out->reliable && r < resamples; r++) {
    for (int i = 0; i < m; i++) x[i] = replicate(&pairs[i], pairs[0].seed, r, idx);
    rep[r] = aggregate(x, m, agg);
    out->reliable = isfinite(rep[r]);
  }
  if (out->reliable) {
    double tail = (1 - level) / 2;
    out->lo = quantile_select(rep, (size_t)resamples, tail);
    out->hi = quantile_select(rep, (size_t)resamples, 1 - tail);
  }
  free(x);
  free(rep);
  free(idx);
  return LS_OK;
}

int ls_boot_ci_pair(const ls_boot_pair *p, int resamples, double level, ls_boot_ci *out,
                    ls_error *err)
{
  return ls_boot_ci_agg(p, 1, LS_BOOT_MEAN, resamples, level, out, err);
}
