/* tests/sim/test_stats: Welford moments, merge, quantiles, histograms (sim/stats). */
#include <math.h>
#include <stdint.h>
#include "ls_test.h"
#include "sim/rng.h"
#include "sim/stats.h"
#include "sim_suites.h"

static void test_moments(void)
{
  /* x = c + 1..n: mean c + (n+1)/2, sample variance n(n+1)/12, with c = 1e9 to expose the
   * cancellation a sum-of-squares formula would suffer. */
  const long n = 100000;
  const double c = 1e9;
  ls_stats s = {0};
  CU_ASSERT_EQUAL(ls_stats_var(&s), 0.0);
  for (long i = 1; i <= n; i++)
    ls_stats_add(&s, c + (double)i);
  CU_ASSERT_EQUAL(s.n, n);
  CU_ASSERT_DOUBLE_EQUAL(s.mean, c + (n + 1) / 2.0, 1e-6);
  LS_ASSERT_CLOSE(ls_stats_var(&s), (double)n * (n + 1) / 12.0, 1e-9);
  LS_ASSERT_CLOSE(ls_stats_sd(&s), sqrt((double)n * (n + 1) / 12.0), 1e-9);
  CU_ASSERT_EQUAL(s.min, c + 1);
  CU_ASSERT_EQUAL(s.max, c + n);
  CU_ASSERT_DOUBLE_EQUAL(s.sum, c * n + (double)n * (n + 1) / 2.0, 1.0);
  ls_stats one = {0};
  ls_stats_add(&one, -3.5);
  CU_ASSERT_EQUAL(one.min, -3.5);
  CU_ASSERT_EQUAL(one.max, -3.5);
  CU_ASSERT_EQUAL(ls_stats_var(&one), 0.0);
}

static void test_merge(void)
{
  ls_stats all = {0}, a = {0}, b = {0}, empty = {0};
  for (uint64_t i = 0; i < 30000; i++) {
    double x = ls_normal(LS_KEY(5, i)) * 3.0 + 10.0;
    ls_stats_add(&all, x);
    ls_stats_add(i < 7000 ? &a : &b, x);
  }
  ls_stats m = a;
  ls_stats_merge(&m, &b);
  CU_ASSERT_EQUAL(m.n, all.n);
  CU_ASSERT_DOUBLE_EQUAL(m.mean, all.mean, 1e-12);
  LS_ASSERT_CLOSE(ls_stats_var(&m), ls_stats_var(&all), 1e-12);
  CU_ASSERT_EQUAL(m.min, all.min);
  CU_ASSERT_EQUAL(m.max, all.max);
  LS_ASSERT_CLOSE(m.sum, all.sum, 1e-13);
  ls_stats e = empty;
  ls_stats_merge(&e, &a); /* into empty */
  CU_ASSERT_EQUAL(e.n, a.n);
  CU_ASSERT_EQUAL(e.mean, a.mean);
  ls_stats_merge(&e, &empty); /* empty into something */
  CU_ASSERT_EQUAL(e.n, a.n);
  CU_ASSERT_EQUAL(ls_stats_var(&e), ls_stats_var(&a));
}

static void test_quantiles(void)
{
  ls_sample *s = NULL;
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_sample_create(&s, &err), LS_OK);
  CU_ASSERT(isnan(ls_sample_quantile(s, 0.5))); /* empty */
  /* 1..101 in a scrambled order (37 is coprime with 101): type-7 quantiles of 1..101 are
   * 1 + 100 q exactly. */
  for (int i = 0; i < 101; i++)
    CU_ASSERT_EQUAL(ls_sample_add(s, (double)((i * 37) % 101 + 1)), LS_OK);
  CU_ASSERT_EQUAL(ls_sample_count(s), 101);
  CU_ASSERT_DOUBLE_EQUAL(ls_sample_quantile(s, 0.5), 51.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(ls_sample_quantile(s, 0.9), 91.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(ls_sample_quantile(s, 0.99), 100.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(ls_sample_quantile(s, 0.0), 1.0, 0);
  CU_ASSERT_DOUBLE_EQUAL(ls_sample_quantile(s, 1.0), 101.0, 0);
  CU_ASSERT(isnan(ls_sample_quantile(s, 1.5)));
  CU_ASSERT(isnan(ls_sample_quantile(s, NAN)));
  CU_ASSERT_EQUAL(ls_sample_add(s, NAN), LS_ERANGE);
  CU_ASSERT_EQUAL(ls_sample_count(s), 101);
  /* Interpolation between order statistics: {1..10} -> p50 5.5, p90 9.1. Adding after a
   * quantile re-sorts. */
  ls_sample_clear(s);
  CU_ASSERT_EQUAL(ls_sample_count(s), 0);
  for (int i = 10; i >= 6; i--)
    ls_sample_add(s, i);
  CU_ASSERT_DOUBLE_EQUAL(ls_sample_quantile(s, 0.5), 8.0, 1e-12);
  for (int i = 1; i <= 5; i++)
    ls_sample_add(s, i);
  CU_ASSERT_DOUBLE_EQUAL(ls_sample_quantile(s, 0.5), 5.5, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(ls_sample_quantile(s, 0.9), 9.1, 1e-12);
  /* Exponential(1) quantiles from 10^5 draws: -ln(1 - q). */
  ls_sample_clear(s);
  for (uint64_t i = 0; i < 100000; i++)
    ls_sample_add(s, -log(ls_uniform_open(LS_KEY(11, i))));
  CU_ASSERT(fabs(ls_sample_quantile(s, 0.5) - log(2.0)) < 0.02);
  CU_ASSERT(fabs(ls_sample_quantile(s, 0.9) - log(10.0)) < 0.04);
  CU_ASSERT(fabs(ls_sample_quantile(s, 0.99) - log(100.0)) < 0.15);
  ls_sample_free(s);
}

static void test_histogram(void)
{
  ls_hist *h = NULL;
  ls_error err;
  ls_error_clear(&err);
  CU_ASSERT_EQUAL(ls_hist_create(&h, 1.0, 1.0, 4, &err), LS_ERANGE);
  CU_ASSERT_EQUAL(ls_hist_create(&h, 0.0, 1.0, 0, &err), LS_ERANGE);
  CU_ASSERT_EQUAL(ls_hist_create(&h, 0.0, INFINITY, 3, &err), LS_ERANGE);
  CU_ASSERT_PTR_NULL(h);
  CU_ASSERT_EQUAL_FATAL(ls_hist_create(&h, 0.0, 10.0, 5, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_hist_bins(h), 5);
  static const double xs[] = {-1.0, 0.0, 1.999, 2.0, 9.999, 10.0, 11.0, NAN, 5.0};
  for (unsigned i = 0; i < sizeof xs / sizeof xs[0]; i++)
    ls_hist_add(h, xs[i]);
  CU_ASSERT_EQUAL(ls_hist_count(h, -1), 1);
  CU_ASSERT_EQUAL(ls_hist_count(h, 0), 2); /* [0, 2): 0 and 1.999 */
  CU_ASSERT_EQUAL(ls_hist_count(h, 1), 1); /* [2, 4): 2 */
  CU_ASSERT_EQUAL(ls_hist_count(h, 2), 1); /* [4, 6): 5 */
  CU_ASSERT_EQUAL(ls_hist_count(h, 3), 0);
  CU_ASSERT_EQUAL(ls_hist_count(h, 4), 1); /* 9.999 */
  CU_ASSERT_EQUAL(ls_hist_count(h, 5), 3); /* 10, 11, NaN */
  CU_ASSERT_DOUBLE_EQUAL(ls_hist_bin_lo(h, 0), 0.0, 0);
  CU_ASSERT_DOUBLE_EQUAL(ls_hist_bin_lo(h, 2), 4.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(ls_hist_bin_lo(h, 5), 10.0, 0);
  ls_hist_free(h);
  /* 10^5 uniforms in 10 bins: each count 10^4 (s.d. 95); 5 s.d. bands. */
  CU_ASSERT_EQUAL_FATAL(ls_hist_create(&h, 0.0, 1.0, 10, &err), LS_OK);
  for (uint64_t i = 0; i < 100000; i++)
    ls_hist_add(h, ls_uniform(LS_KEY(12, i)));
  long total = 0;
  for (int b = -1; b <= 10; b++)
    total += ls_hist_count(h, b);
  CU_ASSERT_EQUAL(total, 100000);
  CU_ASSERT_EQUAL(ls_hist_count(h, -1) + ls_hist_count(h, 10), 0);
  for (int b = 0; b < 10; b++)
    CU_ASSERT(labs(ls_hist_count(h, b) - 10000) < 5 * 95);
  ls_hist_free(h);
}

CU_TestInfo ls_t_stats[] = {
    {"Welford mean/variance against closed forms", test_moments},
    {"merge equals one pass", test_merge},
    {"quantiles of known samples", test_quantiles},
    {"histogram counts, under/overflow", test_histogram},
    CU_TEST_INFO_NULL,
};
