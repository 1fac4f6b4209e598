/* devices/latency: per-request latency distributions of a storage device.
 *
 * Two forms, both from a profile's flash.latency section:
 *  - parametric: a lognormal body (median, sigma) mixed with a Pareto tail: with probability
 *    tail_prob a latency is Pareto(scale = tail_start, shape = tail_alpha), else lognormal.
 *    CDF F(x) = (1-p) Phi((ln x - ln median)/sigma) + p [x >= xm] (1 - (xm/x)^alpha).
 *  - empirical: a CDF table of (probability, latency) points, probabilities strictly rising
 *    from 0 to 1 and latencies non-decreasing; the inverse CDF is linear between points.
 * Sampling draws from a GSL generator (a named stream of sim/rng.h). Times are seconds. */
#ifndef LS_DEVICES_LATENCY_H
#define LS_DEVICES_LATENCY_H
#include <gsl/gsl_rng.h>
#include "sim/error.h"
#include "sim/yaml.h"

#define LS_LAT_CDF_MAX 64

typedef enum { LS_LAT_PARAMETRIC = 0, LS_LAT_EMPIRICAL = 1 } ls_latency_kind;

typedef struct ls_latency_dist {
  ls_latency_kind kind;
  /* parametric */
  double median_s, sigma, tail_prob, tail_start_s, tail_alpha;
  /* empirical: n points (p[i], x_s[i]), p[0] = 0, p[n-1] = 1 */
  int n;
  double p[LS_LAT_CDF_MAX], x_s[LS_LAT_CDF_MAX];
} ls_latency_dist;

/* Reads a latency mapping ({model: lognormal_pareto, median, sigma, tail_prob, tail_start,
 * tail_alpha} or {model: empirical, cdf: [[p, "80 us"], ...]}); errors located in the file. */
int ls_latency_read(const ls_ynode *map, ls_latency_dist *out, ls_error *err);
/* Checks invariants (ranges, monotone table); LS_EINVALID with a message when broken. */
int ls_latency_check(const ls_latency_dist *d, ls_error *err);
/* One draw, seconds. */
double ls_latency_sample(const ls_latency_dist *d, gsl_rng *r);
/* One draw from two uniforms (for counter-based streams): u_pick in [0,1) chooses the
 * component (tail when u_pick < tail_prob), u in (0,1) is inverted through that component's
 * CDF (lognormal body: median exp(sigma Phi^-1(u)); Pareto tail: tail_start u^(-1/alpha);
 * empirical: the table's inverse CDF, u_pick unused). Seconds; non-decreasing in u. */
double ls_latency_from_uniforms(const ls_latency_dist *d, double u_pick, double u);
/* Closed-form / numerical properties. */
double ls_latency_cdf(const ls_latency_dist *d, double x_s);
double ls_latency_quantile(const ls_latency_dist *d, double q); /* inverse CDF, q in (0,1) */
double ls_latency_mean(const ls_latency_dist *d);               /* +inf if tail_alpha <= 1 */

#endif
