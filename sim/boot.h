/* sim/boot: paired percentile bootstrap of ratios of sums over shared units.
 *
 * The setting: two systems A and B measured on the same n units (prompts), each unit giving a
 * numerator and a denominator per system (tokens and seconds, say). The statistic of one pair
 * is a ratio of sums, R = (sum a_num / sum a_den) / (sum b_num / sum b_den); without B it is
 * sum a_num / sum a_den. Its 95 % interval comes from resampling the units with replacement,
 * the SAME resample for A and B (common random numbers: the pairing cancels the unit-to-unit
 * variation both systems share), and taking the 2.5 % and 97.5 % quantiles of the resampled
 * statistic (percentile method, src:efron-tibshirani-1993 ch. 13; the quantile rule is GSL's,
 * see sim/stats.h).
 * An aggregate over m pairs (the mean or geometric mean of their ratios) is resampled jointly,
 * with unit j of every pair taken as the same unit: replicate r draws ONE list of unit indices
 * and applies it to every pair. The pairs may share their units (the configurations of a
 * replay decode the same prompt texts, so prompt j is correlated across them); resampling the
 * units independently per pair would treat the pairs as independent and understate the
 * variance of their mean.
 * Resamples are pure functions of (seed, replicate, draw): a SplitMix64 sequence keyed by
 * ls_key2(seed, replicate), the pair's own seed alone and the first pair's seed in an
 * aggregate, so results never depend on call order or threads. Callers derive the seed from
 * the data (ls_boot_seed_of), so that the stream depends only on what determines the data.
 * With fewer than LS_BOOT_MIN_UNITS units the percentile interval is far too narrow (with one
 * unit it is a point); such intervals are not computed: lo = hi = NaN, reliable = 0.
 * Runs of unequal sizes (a stratified bootstrap, as each sample of a two-sample problem is
 * resampled on its own, src:efron-tibshirani-1993): when A
 * decoded more units than B (or B more than A), the units both decoded are one stratum,
 * resampled jointly as above, and the units only the larger run decoded are a second stratum,
 * resampled among themselves (the other system's columns are 0 there); every replicate keeps
 * both strata's sizes. The estimate is a regression (double-sampling) estimator: the smaller run S
 * is known over the m shared units only, so its ratio over all n units is predicted from the
 * larger run L, log S(n) = log S(m) + beta (log L(n) - log L(m)), beta the slope of the units'
 * log ratios of S on L's over the shared units (src:cochran-1977 ch. 12, double sampling for
 * regression); hence L's ratio enters as L(n)^(1 - beta) L(m)^beta against S(m). beta = 0
 * (S's ratio the same on every unit, as AR decoding from flash): the quotient of the two runs'
 * own metrics, L over all its units. beta = 1 (S's ratio proportional to L's per unit, as a
 * variant of L): the ratio over the shared units, paired. beta is estimated once from the data
 * and held in the replicates (its own noise is not resampled). The interval needs at least
 * LS_BOOT_MIN_UNITS shared units. */
#ifndef LS_SIM_BOOT_H
#define LS_SIM_BOOT_H
#include <stdint.h>
#include "sim/error.h"

#define LS_BOOT_RESAMPLES 2000  /* replicates of every interval */
#define LS_BOOT_MIN_UNITS 5     /* fewer units: no interval (reliable = 0) */
#define LS_BOOT_LEVEL 0.95

/* One pair of systems on n shared units; arrays borrowed, each of length n. b_num and b_den
 * may be NULL (no B: the statistic is one system's ratio of sums). */
typedef struct ls_boot_pair {
  int n;
  const double *a_num, *a_den, *b_num, *b_den;
  uint64_t seed; /* resampling key: derive it from the data (ls_boot_seed_of) */
  int alone;     /* the last `alone` units were decoded by one of the two runs only (the
                    other's values 0 there): a stratum of their own; 0: all units shared */
  int larger_b;  /* with alone > 0: 1 when B is the larger run, 0 when A is */
  double beta;   /* the regression slope blending the larger run's ratio (above) */
} ls_boot_pair;

typedef struct ls_boot_ci {
  double est;    /* the statistic on the data as measured */
  double lo, hi; /* the interval; NaN when !reliable */
  int n;         /* shared units (the smallest over the pairs of an aggregate) */
  int reliable;  /* n >= LS_BOOT_MIN_UNITS and every replicate finite */
} ls_boot_ci;

typedef enum { LS_BOOT_MEAN, LS_BOOT_GEOMEAN } ls_boot_agg;

/* The statistic of p on the units idx[0..n-1] (idx NULL: the units as measured). NaN when a
 * sum of denominators is 0. */
double ls_boot_stat(const ls_boot_pair *p, const int *idx);

/* Interval of one pair (resamples >= 100, level in (0, 1)). */
int ls_boot_ci_pair(const ls_boot_pair *p, int resamples, double level, ls_boot_ci *out,
                    ls_error *err);

/* Interval of the mean (or geometric mean) of the m pairs' statistics, resampled jointly with
 * one list of unit indices per replicate (keyed by pairs[0].seed; a pair with fewer units
 * maps the draws onto its own n, each stratum onto its own units). */
int ls_boot_ci_agg(const ls_boot_pair *pairs, int m, ls_boot_agg agg, int resamples,
                   double level, ls_boot_ci *out, ls_error *err);

/* Both aggregates of the m pairs from one set of replicates: the same values as two calls of
 * ls_boot_ci_agg (LS_BOOT_MEAN, then LS_BOOT_GEOMEAN), for the cost of one. */
int ls_boot_ci_agg2(const ls_boot_pair *pairs, int m, int resamples, double level,
                    ls_boot_ci *mean, ls_boot_ci *geomean, ls_error *err);

/* A statistic on a table of units (ls_boot_ci_table): sum of column a_num / sum of column
 * a_den, divided by sum b_num / sum b_den when b_num >= 0 (b_num = b_den = -1: no B). */
#define LS_BOOT_MAX_COLS 64 /* columns of a table (ls_boot_ci_table) */
typedef struct ls_boot_cols {
  int a_num, a_den, b_num, b_den;
} ls_boot_cols;

/* Intervals of m statistics over one table of n units (rows, ncol values each, row-major;
 * borrowed), resampled jointly: replicate r draws ONE list of n unit indices (the sequence
 * of a pair keyed by seed) and every statistic is computed on it, so the draws are made once
 * for all m and each unit's row is added once per draw. out[i] belongs to stats[i]; its
 * estimate sums the units in order, exactly as ls_boot_stat. */
int ls_boot_ci_table(const double *rows, int n, int ncol, const ls_boot_cols *stats, int m,
                     uint64_t seed, int resamples, double level, ls_boot_ci *out, ls_error *err);

/* The regression blend of a statistic of ls_boot_ci_strata (above, "Runs of unequal sizes"):
 * side 1 blends A's ratio, side 2 B's (0: none), with the larger run's ratio over the shared
 * rows, sum of column s_num / sum of column s_den (columns 0 on the unshared rows). */
typedef struct ls_boot_blend {
  int side, s_num, s_den;
  double beta;
} ls_boot_blend;

/* ls_boot_ci_table over a table whose last `alone` rows (0 <= alone < n) are a stratum of
 * their own (the units one run alone decoded): each replicate draws n - alone rows among the
 * first n - alone and alone rows among the last alone, in that order, from the one sequence of
 * the seed. alone = 0 is ls_boot_ci_table, draw for draw. out[i].n is n - alone. bl (NULL: none)
 * holds statistic i's blend in bl[i]. */
int ls_boot_ci_strata(const double *rows, int n, int alone, int ncol, const ls_boot_cols *stats,
                      const ls_boot_blend *bl, int m, uint64_t seed, int resamples, double level, ls_boot_ci *out,
                      ls_error *err);

/* A resampling seed from the data itself: a hash of the bits of x[0..count) chained onto h.
 * Seeded so, identical data always gets identical intervals, whatever the run is called or
 * however its inputs were named. */
uint64_t ls_boot_seed_of(uint64_t h, const double *x, size_t count);

/* Quantile f of x[0..n) (n >= 1), the value gsl_stats_quantile_from_sorted_data gives on the
 * sorted data, without a sort (a heap near the ends, else a selection); x may be reordered.
 * The intervals' ends. */
double ls_boot_quantile(double *x, size_t n, double f);

/* Both ends of an interval: *lo = ls_boot_quantile(x, n, tail), *hi = ls_boot_quantile(x, n,
 * 1 - tail), the same bits, in one pass over x when both are near an end (an interval's
 * 2.5 % and 97.5 % of 2,000 replicates); x may be reordered. */
void ls_boot_ends(double *x, size_t n, double tail, double *lo, double *hi);

/* Relative half-width (hi - lo) / 2 / |est|; NaN when the interval is not reliable. */
double ls_boot_rel_halfwidth(const ls_boot_ci *ci);

#endif
