/* sim/boot: see boot.h for the method. Cost: resamples x (sum of n) draws per interval; a
 * table's resampled sums are accumulated as the indices are drawn (no index array is kept),
 * each stratum summing only its columns that are not 0; an aggregate draws one index list per
 * replicate and group of pairs of equal sizes. Every shortcut keeps the bits of the plain
 * method: the same draws, each column summed in draw order. */
#include "sim/boot.h"
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim/rng.h"

static double sum_ratio(double num, double den) { return den != 0 ? num / den : NAN; }

/* The larger run's ratio blended with its ratio over the shared units: all^(1 - beta) x
 * shared^beta (sim/boot.h, "Runs of unequal sizes"); beta 0 is `all` itself, bit for bit. */
static double blend(double all, double shared, double beta)
{
  return beta == 0 ? all : pow(all, 1 - beta) * pow(shared, beta);
}

static int unshared_units(const ls_boot_pair *p)
{
  return p->alone > 0 && p->alone < p->n ? p->alone : 0;
}

static int shared_units(const ls_boot_pair *p) { return p->n - unshared_units(p); }

/* The statistic of p from its sums s (A's num, den, B's num, den) over all the units drawn
 * and sh over the shared units drawn. */
static double pair_value(const ls_boot_pair *p, const double *s, const double *sh)
{
  double a = sum_ratio(s[0], s[1]), b = p->b_num ? sum_ratio(s[2], s[3]) : 1;
  if (unshared_units(p) && p->b_num) {
    if (p->larger_b) b = blend(b, sum_ratio(sh[2], sh[3]), p->beta);
    else a = blend(a, sum_ratio(sh[0], sh[1]), p->beta);
  }
  return p->b_num ? a / b : a;
}

/* The values of the units idx[from..to) (idx NULL: the units from..to themselves) added to
 * the sums s (A's num, den, then B's), each sum in unit order; the test for a B is made once,
 * not per unit (the summary's replicates: 2,000 x 48 pairs x up to 384 units). */
static inline void add_units(const ls_boot_pair *p, const int *idx, int from, int to, double *s)
{
  double s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];
  if (p->b_num) {
    for (int j = from; j < to; j++) {
      int u = idx ? idx[j] : j;
      s0 += p->a_num[u];
      s1 += p->a_den[u];
      s2 += p->b_num[u];
      s3 += p->b_den[u];
    }
  } else {
    for (int j = from; j < to; j++) {
      int u = idx ? idx[j] : j;
      s0 += p->a_num[u];
      s1 += p->a_den[u];
    }
  }
  s[0] = s0, s[1] = s1, s[2] = s2, s[3] = s3;
}

double ls_boot_stat(const ls_boot_pair *p, const int *idx)
{
  double s[4] = {0, 0, 0, 0}, sh[4];
  int m = shared_units(p);
  add_units(p, idx, 0, m, s);
  memcpy(sh, s, sizeof sh); /* the sums over the shared units drawn */
  add_units(p, idx, m, p->n, s);
  return pair_value(p, s, sh);
}

/* The unit index of draw j of a replicate: the SplitMix64 sequence keyed by ls_key2(seed, r)
 * (state = key + (j + 1) golden steps), 32 random bits mapped onto [0, n) by a multiply-shift,
 * with a bias below n / 2^32. */
#define BOOT_GOLDEN 0x9e3779b97f4a7c15ULL
static inline int draw_unit(uint64_t *state, uint64_t n)
{
  *state += BOOT_GOLDEN;
  return (int)(((ls_mix64(*state) >> 32) * n) >> 32);
}

/* The unit of draw j of a stratified replicate: the first n - alone draws fall on the shared
 * units [0, n - alone), the last alone draws on the units [n - alone, n) that one run alone
 * decoded (alone 0: one stratum, the plain paired bootstrap, the same draws as before). The
 * strata keep their sizes in every replicate, so the unshared units never stand in for
 * shared ones (which would break the pairing) nor the reverse. */
static inline int draw_strat(uint64_t *state, int j, int n, int alone)
{
  int m = n - alone;
  return j < m ? draw_unit(state, (uint64_t)m) : m + draw_unit(state, (uint64_t)alone);
}

/* Replicate r's unit indices of a pair of n units, `alone` of them unshared: idx[j] is draw j
 * of the SplitMix64 sequence keyed by ls_key2(seed, r), stratified (draw_strat). The list
 * depends on (seed, r, n, alone) alone, so pairs that agree on them share it. */
static void draw_list(uint64_t seed, int r, int n, int alone, int *idx)
{
  uint64_t state = ls_key2(seed, (uint64_t)r);
  for (int j = 0; j < n; j++) idx[j] = draw_strat(&state, j, n, alone);
}

static double aggregate(const double *x, int m, ls_boot_agg agg)
{
  double s = 0;
  for (int i = 0; i < m; i++) s += agg == LS_BOOT_GEOMEAN ? log(x[i]) : x[i];
  return agg == LS_BOOT_GEOMEAN ? exp(s / m) : s / m;
}

/* Order statistics near an end (an interval's 2.5 % and 97.5 % of 2,000 replicates: the 50th
 * and 51st from either end) are kept in a heap of the k smallest in one pass, O(n log k) with
 * few sifts on data in random order, instead of a selection over the whole array (about three
 * times the instructions); at most HEAP_MAX of them. */
#define HEAP_MAX 128

/* v added to the max-heap h[0..i) as its element i. */
static void heap_push(double *h, int i, double v)
{
  while (i > 0 && h[(i - 1) / 2] < v) {
    h[i] = h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h[i] = v;
}

/* The root of the max-heap h[0..k) replaced by v (v < the root). */
static void heap_replace_top(double *h, int k, double v)
{
  int i = 0;
  for (int c = 1; c < k; c = 2 * i + 1) {
    if (c + 1 < k && h[c + 1] > h[c])
      c++;
    if (!(h[c] > v))
      break;
    h[i] = h[c];
    i = c;
  }
  h[i] = v;
}

/* Order statistics k - 2 and k - 1 (0-based; 2 <= k <= min(n, HEAP_MAX)) of s x[i], s = 1 or
 * -1 (-x: the largest of x, a sign flip being exact): the k smallest in a max-heap, whose root
 * is statistic k - 1 and whose larger child of the root statistic k - 2. */
static void low_pair(const double *x, size_t n, double s, int k, double *a, double *b)
{
  double h[HEAP_MAX];
  h[0] = h[1] = h[2] = 0.0; /* every one is written below (k >= 2); the compiler cannot tell */
  for (int i = 0; i < k; i++)
    heap_push(h, i, s * x[i]);
  for (size_t i = (size_t)k; i < n; i++)
    if (s * x[i] < h[0])
      heap_replace_top(h, k, s * x[i]);
  *b = h[0];
  *a = k == 2 || h[1] > h[2] ? h[1] : h[2];
}

/* Quantile f of x[0..n) as gsl_stats_quantile_from_sorted_data would give it on the sorted
 * data: the interpolation between order statistics lhs = floor(f (n-1)) and lhs + 1, both
 * found without a sort: by the heap above when they are near an end, else by a selection
 * (O(n)) and one pass. The two interval ends of every metric and ratio were a tenth of a
 * replay. x may be reordered. */
double ls_boot_quantile(double *x, size_t n, double f)
{
  double index = f * (double)(n - 1);
  size_t lhs = (size_t)index;
  double delta = index - (double)lhs, a, b;
  if (lhs + 1 < n && lhs + 2 <= HEAP_MAX && lhs + 2 <= n / 4) {
    low_pair(x, n, 1.0, (int)(lhs + 2), &a, &b);
  } else if (lhs + 1 < n && n - lhs <= HEAP_MAX && n - lhs <= n / 4) { /* of -x: statistic i of x is -(n - 1 - i of -x) */
    double ya, yb;
    low_pair(x, n, -1.0, (int)(n - lhs), &ya, &yb);
    a = -yb;
    b = -ya;
  } else {
    a = gsl_stats_select(x, 1, n, lhs);
    if (lhs == n - 1)
      return a;
    /* order statistic lhs + 1, by one pass instead of a second selection: a itself when at
     * least lhs + 2 values are <= a, else the smallest value above a */
    size_t at_most = 0;
    double above = INFINITY;
    for (size_t i = 0; i < n; i++) {
      at_most += x[i] <= a;
      if (x[i] > a && x[i] < above)
        above = x[i];
    }
    b = at_most >= lhs + 2 ? a : above;
  }
  return (1 - delta) * a + delta * b;
}

double ls_boot_rel_halfwidth(const ls_boot_ci *ci)
{
  if (!ci->reliable || !(fabs(ci->est) > 0)) return NAN;
  return (ci->hi - ci->lo) / 2 / fabs(ci->est);
}

/* The two pairs of low_pair(x, n, 1, k1) and low_pair(x, n, -1, k2) in one pass over x: an
 * interval's ends each read the whole array for a few replacements of their heap's root, so
 * the loads and the loop are shared. Each heap meets its values in index order, as low_pair
 * alone (ties, such as -0 and +0, resolve alike). */
static void low_pairs_both_ends(const double *x, size_t n, int k1, int k2, double *a1, double *b1,
                                double *a2, double *b2)
{
  double h1[HEAP_MAX], h2[HEAP_MAX];
  h1[0] = h1[1] = h1[2] = h2[0] = h2[1] = h2[2] = 0.0; /* as in low_pair */
  int kmax = k1 > k2 ? k1 : k2;
  for (int i = 0; i < kmax; i++) {
    if (i < k1)
      heap_push(h1, i, x[i]);
    else if (x[i] < h1[0])
      heap_replace_top(h1, k1, x[i]);
    if (i < k2)
      heap_push(h2, i, -x[i]);
    else if (-x[i] < h2[0])
      heap_replace_top(h2, k2, -x[i]);
  }
  for (size_t i = (size_t)kmax; i < n; i++) {
    double v = x[i];
    if (v < h1[0])
      heap_replace_top(h1, k1, v);
    if (-v < h2[0])
      heap_replace_top(h2, k2, -v);
  }
  *b1 = h1[0];
  *a1 = k1 == 2 || h1[1] > h1[2] ? h1[1] : h1[2];
  *b2 = h2[0];
  *a2 = k2 == 2 || h2[1] > h2[2] ? h2[1] : h2[2];
}

/* Thresholds from a sample: the SAMPLE_RANK-th smallest and largest of x's first SAMPLE values
 * (replicates come in random order, so they are a random sample) bound about
 * SAMPLE_RANK n / SAMPLE values at either end (109 of 2,000, sd about 28), enough for the 51
 * an end needs but in about 2 % of the arrays. */
#define SAMPLE 256
#define SAMPLE_RANK 14
#define KEPT_MAX 512

/* low_pairs_both_ends by the values at either end alone: the values at most the sample's low
 * threshold, and those at least its high one, each in index order, go through the same heaps,
 * so the heaps read about a tenth of the array (each end read the whole array for about 190
 * replacements of its root, three-quarters of its cost). The k1 smallest values are among the
 * low ones when there are at least k1 of those, and the order statistics are then the same
 * values; signed zeros aside, equal doubles are the same bits, so a zero end, too few values
 * past a threshold, or more than KEPT_MAX of them return 0 and the caller takes the whole
 * array. */
static int low_pairs_by_sample(const double *x, size_t n, int k1, int k2, double *a1, double *b1,
                               double *a2, double *b2)
{
  double tlo, thi, s1, s2, low[KEPT_MAX], high[KEPT_MAX];
  low_pairs_both_ends(x, SAMPLE, SAMPLE_RANK, SAMPLE_RANK, &s1, &tlo, &s2, &thi);
  thi = -thi;
  size_t nl = 0, nh = 0;
  for (size_t i = 0; i < n; i++) {
    double v = x[i];
    if (v <= tlo) {
      if (nl == KEPT_MAX)
        return 0;
      low[nl++] = v;
    }
    if (v >= thi) {
      if (nh == KEPT_MAX)
        return 0;
      high[nh++] = v;
    }
  }
  if (nl < (size_t)k1 || nh < (size_t)k2)
    return 0;
  low_pair(low, nl, 1.0, k1, a1, b1);
  low_pair(high, nh, -1.0, k2, a2, b2);
  return *a1 != 0 && *b1 != 0 && *a2 != 0 && *b2 != 0;
}

void ls_boot_ends(double *x, size_t n, double tail, double *lo, double *hi)
{
  double ilo = tail * (double)(n - 1), ihi = (1 - tail) * (double)(n - 1);
  size_t llo = (size_t)ilo, lhi = (size_t)ihi;
  /* the lower end in ls_boot_quantile's first heap branch, the upper in its second */
  if (llo + 1 < n && llo + 2 <= HEAP_MAX && llo + 2 <= n / 4 && lhi + 1 < n &&
      !(lhi + 2 <= HEAP_MAX && lhi + 2 <= n / 4) && n - lhi <= HEAP_MAX && n - lhi <= n / 4) {
    double a, b, ya, yb, dlo = ilo - (double)llo, dhi = ihi - (double)lhi;
    int k1 = (int)(llo + 2), k2 = (int)(n - lhi);
    if (n < 4 * SAMPLE || !low_pairs_by_sample(x, n, k1, k2, &a, &b, &ya, &yb))
      low_pairs_both_ends(x, n, k1, k2, &a, &b, &ya, &yb);
    *lo = (1 - dlo) * a + dlo * b;
    *hi = (1 - dhi) * -yb + dhi * -ya;
    return;
  }
  *lo = ls_boot_quantile(x, n, tail);
  *hi = ls_boot_quantile(x, n, 1 - tail);
}

/* The interval of the replicates rep[0..resamples) (reordered) into out. */
static void interval(double *rep, int resamples, double level, ls_boot_ci *out)
{
  out->lo = out->hi = NAN;
  if (!out->reliable)
    return;
  ls_boot_ends(rep, (size_t)resamples, (1 - level) / 2, &out->lo, &out->hi);
}

static int check_args(int m, int resamples, double level, ls_error *err)
{
  if (m < 1 || resamples < 100 || !(level > 0 && level < 1))
    return ls_error_set(err, LS_ERANGE, "bootstrap: %d statistics, %d resamples, level %g", m,
                        resamples, level);
  return LS_OK;
}

/* The pairs grouped by their strata's sizes (n, unshared units): group[i] is pair i's group,
 * lead[g] the first pair of group g, at[g] the offset of g's index list in a buffer of at[ng]
 * ints. Returns the number of groups ng. */
static int size_groups(const ls_boot_pair *pairs, int m, int *group, int *lead, size_t *at)
{
  int ng = 0;
  at[0] = 0;
  for (int i = 0; i < m; i++) {
    int g = 0;
    while (g < ng && !(pairs[lead[g]].n == pairs[i].n &&
                       unshared_units(&pairs[lead[g]]) == unshared_units(&pairs[i])))
      g++;
    if (g == ng) {
      lead[ng] = i;
      at[ng + 1] = at[ng] + (size_t)(pairs[i].n > 0 ? pairs[i].n : 0);
      ng++;
    }
    group[i] = g;
  }
  return ng;
}

/* The estimates of both aggregates and the units they rest on; x[i] the pair's statistic. */
static void agg_estimates(const ls_boot_pair *pairs, int m, double *x, ls_boot_ci *out[2])
{
  int n = shared_units(&pairs[0]);
  for (int i = 0; i < m; i++) {
    x[i] = ls_boot_stat(&pairs[i], NULL);
    if (shared_units(&pairs[i]) < n) n = shared_units(&pairs[i]);
  }
  for (int k = 0; k < 2; k++) {
    out[k]->n = n;
    out[k]->est = aggregate(x, m, k ? LS_BOOT_GEOMEAN : LS_BOOT_MEAN);
    out[k]->reliable = n >= LS_BOOT_MIN_UNITS && isfinite(out[k]->est);
  }
}

/* Replicate r draws its index list once per group of pairs of equal sizes (a replay's summary:
 * 48 configurations, 4 sizes, the four targets) instead of once per pair: every pair of a
 * group would draw the same list (draw_list depends on the seed, which is pairs[0]'s for all,
 * r and the sizes alone), and ls_boot_stat sums each pair's units in list order, as a draw
 * loop summing each unit as it is drawn did, so every sum and replicate keeps its bits. */
int ls_boot_ci_agg2(const ls_boot_pair *pairs, int m, int resamples, double level,
                    ls_boot_ci *mean, ls_boot_ci *geomean, ls_error *err)
{
  int rc = check_args(m, resamples, level, err);
  if (rc)
    return rc;
  double *x = malloc((size_t)m * sizeof *x), *rep = malloc(2 * (size_t)resamples * sizeof *rep);
  int *group = malloc(2 * (size_t)m * sizeof *group);
  size_t *at = malloc(((size_t)m + 1) * sizeof *at);
  int ng = group && at ? size_groups(pairs, m, group, group + m, at) : 0;
  int *idx = group && at ? malloc((at[ng] ? at[ng] : 1) * sizeof *idx) : NULL;
  if (!x || !rep || !idx) {
    free(x), free(rep), free(group), free(at), free(idx);
    return ls_error_set(err, LS_ENOMEM, "bootstrap: out of memory");
  }
  ls_boot_ci *out[2] = {mean, geomean};
  agg_estimates(pairs, m, x, out);
  for (int r = 0; (mean->reliable || geomean->reliable) && r < resamples; r++) {
    for (int g = 0; g < ng; g++) {
      const ls_boot_pair *p = &pairs[group[m + g]];
      draw_list(pairs[0].seed, r, p->n, unshared_units(p), idx + at[g]);
    }
    for (int i = 0; i < m; i++) x[i] = ls_boot_stat(&pairs[i], idx + at[group[i]]);
    for (int k = 0; k < 2; k++) {
      if (!out[k]->reliable)
        continue;
      rep[k * resamples + r] = aggregate(x, m, k ? LS_BOOT_GEOMEAN : LS_BOOT_MEAN);
      out[k]->reliable = isfinite(rep[k * resamples + r]);
    }
  }
  for (int k = 0; k < 2; k++)
    interval(rep + (size_t)k * resamples, resamples, level, out[k]);
  free(x), free(rep), free(group), free(at), free(idx);
  return LS_OK;
}

int ls_boot_ci_agg(const ls_boot_pair *pairs, int m, ls_boot_agg agg, int resamples,
                   double level, ls_boot_ci *out, ls_error *err)
{
  ls_boot_ci other;
  return agg == LS_BOOT_GEOMEAN ? ls_boot_ci_agg2(pairs, m, resamples, level, &other, out, err)
                                : ls_boot_ci_agg2(pairs, m, resamples, level, out, &other, err);
}

/* Always inlined, so the callers' copies without a blend (bl NULL) drop its tests. */
static inline __attribute__((always_inline)) double cols_stat(const double *sum, const ls_boot_cols *c,
                                                              const ls_boot_blend *bl)
{
  double a = sum_ratio(sum[c->a_num], sum[c->a_den]);
  double b = c->b_num >= 0 ? sum_ratio(sum[c->b_num], sum[c->b_den]) : 1;
  if (bl && bl->side == 1) a = blend(a, sum_ratio(sum[bl->s_num], sum[bl->s_den]), bl->beta);
  if (bl && bl->side == 2) b = blend(b, sum_ratio(sum[bl->s_num], sum[bl->s_den]), bl->beta);
  return c->b_num >= 0 ? a / b : a;
}

/* One stratum's draws added to its columns [off, off + width) of a replicate's sums: `rows`
 * draws from the SplitMix64 sequence at *state, each among the stratum's rows (base: its first
 * row's column off; w: the padded table's width), each row added as it is drawn. The other
 * columns of the stratum are 0 on every row (stratum_span), so leaving them out changes no
 * bit: a sum starts at +0.0 and is never -0.0 (x + y is -0.0 only when both are, in the
 * default rounding), x + (+0.0) = x for every x but -0.0, and x + (-0.0) = x for every x
 * (NaN stays NaN; a NaN or infinite value is not 0, so it is summed). Each column is summed in draw
 * order whatever the width, so all widths give the same bits. The widths the replay uses (a
 * run's 21 metrics: 22 columns; a pair: 12 on the shared rows, the larger run's 4 on the
 * unshared ones; a few metrics: 2 or 4) get a copy whose width is a constant, so the unrolled
 * sums stay in registers; elsewhere each column costs a load, an add and a store per draw. */
static inline __attribute__((always_inline)) void stratum_fixed(const double *base, int rows, int w, int width,
                                                                int first, uint64_t *state, double *sum)
{
  double acc[LS_BOOT_MAX_COLS];
#pragma GCC unroll 64
  for (int c = 0; c < width; c++) acc[c] = first ? 0.0 : sum[c]; /* first: the sums start here */
  for (int j = 0; j < rows; j++) {
    const double *row = base + (size_t)draw_unit(state, (uint64_t)rows) * w;
#pragma GCC unroll 64
    for (int c = 0; c < width; c++) acc[c] += row[c];
  }
#pragma GCC unroll 64
  for (int c = 0; c < width; c++) sum[c] = acc[c];
}

/* The widths with a copy of their own (above); a span of another width is the whole row. */
static int kernel_width(int width)
{
  return width == 2 || width == 4 || width == 8 || width == 12 || width == 22 || width == 24;
}

static void stratum_sums(const double *base, int rows, int w, int width, int first, uint64_t *state,
                         double *sum)
{
  switch (width) {
  case 2: stratum_fixed(base, rows, w, 2, first, state, sum); return;
  case 4: stratum_fixed(base, rows, w, 4, first, state, sum); return;
  case 8: stratum_fixed(base, rows, w, 8, first, state, sum); return;
  case 12: stratum_fixed(base, rows, w, 12, first, state, sum); return;
  case 22: stratum_fixed(base, rows, w, 22, first, state, sum); return;
  case 24: stratum_fixed(base, rows, w, 24, first, state, sum); return;
  default: stratum_fixed(base, rows, w, width, first, state, sum); return;
  }
}

/* The columns a stratum sums: the padded table's rows [first, first + rows) are +0.0 or -0.0
 * outside the columns [off, off + width) (-0.0 may be left out too: x + (-0.0) = x for every
 * x). The span is the columns with a value that is not 0, widened to even ends, when its width
 * has a kernel; else the whole row (w). */
typedef struct span {
  int off, width;
} span;

static span stratum_span(const double *pad, int first, int rows, int w)
{
  int lo = w, hi = 0;
  for (int j = first; j < first + rows; j++)
    for (int c = 0; c < w; c++)
      if (pad[(size_t)j * w + c] != 0) {
        lo = c < lo ? c : lo;
        hi = c >= hi ? c + 1 : hi;
      }
  lo &= ~1, hi = (hi + 1) & ~1;
  return lo < hi && kernel_width(hi - lo) ? (span){lo, hi - lo} : (span){0, w};
}

/* One replicate's column sums of the padded table (w columns, even): the n - alone shared rows
 * drawn among themselves, then the alone unshared ones among themselves (draw_strat's draws,
 * one sequence from `state`), each stratum summing its span only. */
static void resample_sums(const double *pad, int n, int alone, int w, const span sp[2], uint64_t state,
                          double *sum)
{
  int m = n - alone;
  if (sp[0].width < w) /* columns the shared stratum leaves out: +0.0 until the other adds */
    memset(sum, 0, (size_t)w * sizeof *sum);
  stratum_sums(pad + sp[0].off, m, w, sp[0].width, 1, &state, sum + sp[0].off);
  if (alone > 0)
    stratum_sums(pad + (size_t)m * w + sp[1].off, alone, w, sp[1].width, 0, &state, sum + sp[1].off);
}

int ls_boot_ci_table(const double *rows, int n, int ncol, const ls_boot_cols *stats, int m,
                     uint64_t seed, int resamples, double level, ls_boot_ci *out, ls_error *err)
{
  return ls_boot_ci_strata(rows, n, 0, ncol, stats, NULL, m, seed, resamples, level, out, err);
}

/* The m statistics of one replicate's sums, statistic i to rep[i * stride]; a value that is
 * not finite makes its interval unreliable. Inlined twice, with and without blends (most
 * tables have none: the per-statistic calls were a sixth of a run's bootstrap). */
static inline __attribute__((always_inline)) void replicate_stats(const double *sum, const ls_boot_cols *stats,
                                                                  const ls_boot_blend *bl, int m, double *rep,
                                                                  int stride, ls_boot_ci *out)
{
  for (int i = 0; i < m; i++) {
    double v = cols_stat(sum, &stats[i], bl ? &bl[i] : NULL);
    rep[(size_t)i * stride] = v;
    out[i].reliable &= isfinite(v);
  }
}

/* The estimates of the m statistics on the table as measured (rows summed in order). */
static int table_estimates(const double *rows, int n, int shared, int ncol,
                           const ls_boot_cols *stats, const ls_boot_blend *bl, int m,
                           ls_boot_ci *out)
{
  double sum[LS_BOOT_MAX_COLS] = {0};
  int any = 0;
  for (int j = 0; j < n; j++)
    for (int c = 0; c < ncol; c++) sum[c] += rows[(size_t)j * ncol + c];
  for (int i = 0; i < m; i++) {
    out[i].n = shared;
    out[i].est = cols_stat(sum, &stats[i], bl ? &bl[i] : NULL);
    out[i].reliable = shared >= LS_BOOT_MIN_UNITS && isfinite(out[i].est);
    any |= out[i].reliable;
  }
  return any;
}

int ls_boot_ci_strata(const double *rows, int n, int alone, int ncol, const ls_boot_cols *stats,
                      const ls_boot_blend *bl, int m, uint64_t seed, int resamples, double level, ls_boot_ci *out,
                      ls_error *err)
{
  int rc = check_args(m, resamples, level, err);
  if (rc)
    return rc;
  if (n < 1 || ncol < 1 || alone < 0 || alone >= n)
    return ls_error_set(err, LS_ERANGE, "bootstrap: a table of %d units (%d unshared) x %d columns",
                        n, alone, ncol);
  if (ncol > LS_BOOT_MAX_COLS)
    return ls_error_set(err, LS_ERANGE, "bootstrap: %d columns (at most %d)", ncol, LS_BOOT_MAX_COLS);
  /* the rows padded with a zero column to an even width, the columns summed two at a time
   * (the compiler pairs them into vector adds); each column's sum keeps its order */
  int w = (ncol + 1) & ~1;
  double sum[LS_BOOT_MAX_COLS];
  double *pad = calloc((size_t)n * w, sizeof *pad), *rep = malloc((size_t)m * resamples * sizeof *rep);
  if (!pad || !rep) {
    free(pad);
    free(rep);
    return ls_error_set(err, LS_ENOMEM, "bootstrap: out of memory");
  }
  for (int j = 0; j < n; j++)
    memcpy(pad + (size_t)j * w, rows + (size_t)j * ncol, (size_t)ncol * sizeof *rows);
  int any = table_estimates(rows, n, n - alone, ncol, stats, bl, m, out);
  const span sp[2] = {stratum_span(pad, 0, n - alone, w), stratum_span(pad, n - alone, alone, w)};
  for (int r = 0; any && r < resamples; r++) {
    resample_sums(pad, n, alone, w, sp, ls_key2(seed, (uint64_t)r), sum);
    if (bl)
      replicate_stats(sum, stats, bl, m, rep + r, resamples, out);
    else
      replicate_stats(sum, stats, NULL, m, rep + r, resamples, out);
  }
  for (int i = 0; i < m; i++)
    interval(rep + (size_t)i * resamples, resamples, level, &out[i]);
  free(pad);
  free(rep);
  return LS_OK;
}

uint64_t ls_boot_seed_of(uint64_t h, const double *x, size_t count)
{
  for (size_t i = 0; i < count; i++) {
    uint64_t bits;
    memcpy(&bits, &x[i], sizeof bits);
    h = ls_key2(h, bits);
  }
  return h;
}

int ls_boot_ci_pair(const ls_boot_pair *p, int resamples, double level, ls_boot_ci *out,
                    ls_error *err)
{
  return ls_boot_ci_agg(p, 1, LS_BOOT_MEAN, resamples, level, out, err);
}
