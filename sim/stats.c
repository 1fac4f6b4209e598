/* sim/stats: see stats.h.
 *
 * Online moments (Welford 1962): after x_n,
 *   d = x_n - mean_{n-1};  mean_n = mean_{n-1} + d / n;  M2_n = M2_{n-1} + d (x_n - mean_n)
 * and the sample variance is M2_n / (n - 1). Merging two summaries A, B (Chan, Golub and
 * LeVeque 1979): d = mean_B - mean_A, n = n_A + n_B,
 *   mean = mean_A + d n_B / n;  M2 = M2_A + M2_B + d^2 n_A n_B / n.
 * Both avoid the cancellation of the textbook sum-of-squares formula.
 *
 * Quantiles: linear interpolation at position q (n - 1) between order statistics, as
 * gsl_stats_quantile_from_sorted_data reads them from the sorted data (Hyndman and Fan
 * type 7): read directly when the values were added in order, else taken by selection
 * (ls_boot_quantile, O(n), which reorders the store) instead of sorting it first (gsl_sort's
 * heapsort of a run's token latencies was 1.7 % of a replay). An order statistic is one value
 * whatever finds it, so the answers are the same. The same data in any insertion order give
 * the same answer.
 * NaN values are refused (they have no place in a sort order).
 *
 * Histograms wrap gsl_histogram with uniform ranges (range[0] = lo and range[bins] = hi
 * exactly), plus underflow (x < lo) and overflow (x >= hi) counters; a NaN counts as overflow
 * so the counters always add up to the number of values added. */
#include "sim/stats.h"
#include "sim/boot.h"
#include <gsl/gsl_histogram.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>

void ls_stats_add(ls_stats *s, double x)
{
  s->n++;
  if (s->n == 1) {
    s->min = s->max = x;
  } else {
    if (x < s->min)
      s->min = x;
    if (x > s->max)
      s->max = x;
  }
  double d = x - s->mean;
  s->mean += d / (double)s->n;
  s->m2 += d * (x - s->mean);
  s->sum += x;
}

double ls_stats_var(const ls_stats *s) { return s->n < 2 ? 0.0 : s->m2 / (double)(s->n - 1); }
double ls_stats_sd(const ls_stats *s) { return sqrt(ls_stats_var(s)); }

void ls_stats_merge(ls_stats *into, const ls_stats *other)
{
  if (other->n == 0)
    return;
  if (into->n == 0) {
    *into = *other;
    return;
  }
  double na = (double)into->n, nb = (double)other->n, n = na + nb;
  double d = other->mean - into->mean;
  into->mean += d * nb / n;
  into->m2 += other->m2 + d * d * na * nb / n;
  into->n += other->n;
  into->sum += other->sum;
  if (other->min < into->min)
    into->min = other->min;
  if (other->max > into->max)
    into->max = other->max;
}

/* ---- sample store ---- */

struct ls_sample {
  double *x;
  size_t n, cap;
  int sorted;
};

int ls_sample_create(ls_sample **out, ls_error *err)
{
  *out = calloc(1, sizeof **out);
  return *out ? LS_OK : ls_error_set(err, LS_ENOMEM, "sample: out of memory");
}

void ls_sample_free(ls_sample *s)
{
  if (!s)
    return;
  free(s->x);
  free(s);
}

int ls_sample_add(ls_sample *s, double x)
{
  if (isnan(x))
    return LS_ERANGE;
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 256;
    double *p = realloc(s->x, cap * sizeof *p);
    if (!p)
      return LS_ENOMEM;
    s->x = p;
    s->cap = cap;
  }
  /* Appending in order keeps a sorted store sorted (common for times that only grow). */
  if (s->sorted && s->n > 0 && x < s->x[s->n - 1])
    s->sorted = 0;
  else if (s->n == 0)
    s->sorted = 1;
  s->x[s->n++] = x;
  return LS_OK;
}

size_t ls_sample_count(const ls_sample *s) { return s->n; }

double ls_sample_quantile(ls_sample *s, double q)
{
  if (s->n == 0 || !(q >= 0.0 && q <= 1.0))
    return NAN;
  if (!s->sorted)
    return ls_boot_quantile(s->x, s->n, q);
  return gsl_stats_quantile_from_sorted_data(s->x, 1, s->n, q);
}

void ls_sample_clear(ls_sample *s)
{
  s->n = 0;
  s->sorted = 0;
}

/* ---- histogram ---- */

struct ls_hist {
  gsl_histogram *h;
  double lo, hi;
  long under, over;
};

int ls_hist_create(ls_hist **out, double lo, double hi, int bins, ls_error *err)
{
  *out = NULL;
  if (!(isfinite(lo) && isfinite(hi) && lo < hi) || bins < 1)
    return ls_error_set(err, LS_ERANGE, "histogram: bad range [%g, %g) with %d bins (need lo < hi, bins >= 1)",
                        lo, hi, bins);
  ls_hist *h = calloc(1, sizeof *h);
  if (!h || !(h->h = gsl_histogram_alloc((size_t)bins))) {
    free(h);
    return ls_error_set(err, LS_ENOMEM, "histogram: out of memory (%d bins)", bins);
  }
  if (gsl_histogram_set_ranges_uniform(h->h, lo, hi) != 0) {
    ls_hist_free(h);
    return ls_error_set(err, LS_ENUMERIC, "histogram: cannot set range [%g, %g)", lo, hi);
  }
  h->lo = lo;
  h->hi = hi;
  *out = h;
  return LS_OK;
}

void ls_hist_free(ls_hist *h)
{
  if (!h)
    return;
  if (h->h)
    gsl_histogram_free(h->h);
  free(h);
}

void ls_hist_add(ls_hist *h, double x)
{
  if (x < h->lo)
    h->under++;
  else if (!(x < h->hi) || gsl_histogram_increment(h->h, x) != 0)
    h->over++; /* x >= hi or NaN */
}

int ls_hist_bins(const ls_hist *h) { return (int)gsl_histogram_bins(h->h); }

long ls_hist_count(const ls_hist *h, int bin)
{
  int n = ls_hist_bins(h);
  if (bin == -1)
    return h->under;
  if (bin == n)
    return h->over;
  if (bin < -1 || bin > n)
    return 0;
  return (long)gsl_histogram_get(h->h, (size_t)bin);
}

double ls_hist_bin_lo(const ls_hist *h, int bin)
{
  int n = ls_hist_bins(h);
  if (bin < 0)
    return -INFINITY;
  if (bin >= n)
    return h->hi;
  double lo, hi;
  gsl_histogram_get_range(h->h, (size_t)bin, &lo, &hi);
  return lo;
}
