/* sim/stats: online mean/variance (Welford), deterministic quantiles, histograms. */
#ifndef LS_SIM_STATS_H
#define LS_SIM_STATS_H
#include <stddef.h>
#include "sim/error.h"

/* Plain struct; zero-initialise ({0}) before use. */
typedef struct ls_stats {
  long n;
  double mean, m2, min, max, sum;
} ls_stats;

void ls_stats_add(ls_stats *s, double x);
double ls_stats_var(const ls_stats *s);   /* sample variance (n-1); 0 when n < 2 */
double ls_stats_sd(const ls_stats *s);
void ls_stats_merge(ls_stats *into, const ls_stats *other);

/* A sample store for exact quantiles (sorted on demand; same data -> same answer). */
typedef struct ls_sample ls_sample;
int ls_sample_create(ls_sample **out, ls_error *err); /* *out owned by caller */
void ls_sample_free(ls_sample *s);
int ls_sample_add(ls_sample *s, double x);
size_t ls_sample_count(const ls_sample *s);
/* Quantile q in [0,1] with GSL's interpolation rule (gsl_stats_quantile_from_sorted_data);
 * NAN when empty. */
double ls_sample_quantile(ls_sample *s, double q);
void ls_sample_clear(ls_sample *s);

/* Fixed-width histogram over [lo, hi) with n bins plus under/overflow counters. */
typedef struct ls_hist ls_hist;
int ls_hist_create(ls_hist **out, double lo, double hi, int bins, ls_error *err);
void ls_hist_free(ls_hist *h);
void ls_hist_add(ls_hist *h, double x);
int ls_hist_bins(const ls_hist *h);
long ls_hist_count(const ls_hist *h, int bin);  /* -1 = underflow, bins = overflow */
double ls_hist_bin_lo(const ls_hist *h, int bin);

#endif
