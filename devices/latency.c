/* devices/latency: see latency.h.
 *
 * Model. A storage request's command latency (NAND array read tR plus controller/FTL and
 * host stack) has a narrow body and a heavy right tail (garbage collection, read retries,
 * thermal throttling). Parametric form: lognormal body mixed with a Pareto tail,
 *   F(x) = (1-p) Phi((ln x - mu)/sigma) + p * max(0, 1 - (xm/x)^alpha),  mu = ln(median),
 *   E[X] = (1-p) exp(mu + sigma^2/2) + p * alpha xm / (alpha - 1)   (alpha > 1).
 * Empirical form: a table of (p_i, x_i) with inverse CDF linear between points, so
 *   E[X] = sum_i (p_{i+1}-p_i)(x_i + x_{i+1})/2 exactly.
 * Sampling: mixture by component choice (gsl_ran_lognormal, gsl_ran_pareto); empirical by
 * inverse transform of one uniform. The counter-based form (ls_latency_from_uniforms) picks
 * the component with one uniform and inverts that component's CDF at a second, the same
 * mixture distribution: P(X <= x) = p P(Pareto <= x) + (1-p) P(Lognormal <= x). Quantiles of the mixture: bisection on F (monotone), used
 * by tests and reports only, never on a hot path.
 * Sources: the shape is a common model of SSD/UFS read latency (a body plus rare slow reads);
 * profile values say where their numbers come from. */
#include "devices/latency.h"
#include <math.h>
#include <string.h>
#include "sim/range.h"
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

static const char *const lat_models[] = {"lognormal_pareto", "empirical", NULL};

static int read_parametric(const ls_ynode *m, ls_latency_dist *d, ls_error *err)
{
  int rc;
  if ((rc = ls_range_yreq(m, "median", LS_R_LAT_TIME, &d->median_s, err)) ||
      (rc = ls_range_yreq(m, "sigma", LS_R_LAT_SIGMA, &d->sigma, err)) ||
      (rc = ls_range_yreq(m, "tail_prob", LS_R_LAT_TAIL_PROB, &d->tail_prob, err)) ||
      (rc = ls_range_yreq(m, "tail_start", LS_R_LAT_TIME, &d->tail_start_s, err)) ||
      (rc = ls_range_yreq(m, "tail_alpha", LS_R_LAT_TAIL_ALPHA, &d->tail_alpha, err)))
    return rc;
  return LS_OK;
}

static int read_empirical(const ls_ynode *m, ls_latency_dist *d, ls_error *err)
{
  ls_ynode cdf;
  int rc = ls_ymap_require(m, "cdf", &cdf, err);
  if (rc || (rc = ls_ynode_expect(&cdf, LS_Y_SEQ, err)))
    return rc;
  int n = ls_yseq_len(&cdf);
  if (n < 2 || n > LS_LAT_CDF_MAX)
    return ls_ynode_error(&cdf, err, LS_ERANGE, "needs 2..%d points, found %d", LS_LAT_CDF_MAX, n);
  for (int i = 0; i < n; i++) {
    ls_ynode pt = ls_yseq_at(&cdf, i);
    if ((rc = ls_ynode_expect(&pt, LS_Y_SEQ, err)))
      return rc;
    if (ls_yseq_len(&pt) != 2)
      return ls_ynode_error(&pt, err, LS_ESCHEMA, "expected [probability, latency]");
    ls_ynode pn = ls_yseq_at(&pt, 0), xn = ls_yseq_at(&pt, 1);
    if ((rc = ls_range_yas(&pn, LS_R_PROB, &d->p[i], err)) ||
        (rc = ls_range_yas(&xn, LS_R_LAT_TIME, &d->x_s[i], err)))
      return rc;
    if (i > 0 && d->p[i] <= d->p[i - 1])
      return ls_ynode_error(&pn, err, LS_EINVALID, "probabilities must rise strictly (%g after %g)",
                            d->p[i], d->p[i - 1]);
    if (i > 0 && d->x_s[i] < d->x_s[i - 1])
      return ls_ynode_error(&xn, err, LS_EINVALID, "latencies must not decrease");
  }
  d->n = n;
  if (d->p[0] != 0.0 || d->p[n - 1] != 1.0)
    return ls_ynode_error(&cdf, err, LS_EINVALID, "the table must start at probability 0 and end at 1");
  return LS_OK;
}

int ls_latency_read(const ls_ynode *map, ls_latency_dist *out, ls_error *err)
{
  memset(out, 0, sizeof *out);
  int rc = ls_ynode_expect(map, LS_Y_MAP, err);
  int kind = 0;
  if (rc || (rc = ls_yreq_enum(map, "model", lat_models, &kind, err)))
    return rc;
  out->kind = (ls_latency_kind)kind;
  rc = kind == LS_LAT_PARAMETRIC ? read_parametric(map, out, err) : read_empirical(map, out, err);
  if (rc || (rc = ls_ymap_finish(map, err)))
    return rc;
  ls_error chk;
  if (ls_latency_check(out, &chk))
    return ls_ynode_error(map, err, LS_EINVALID, "%s", chk.msg); /* located at the mapping */
  return LS_OK;
}

int ls_latency_check(const ls_latency_dist *d, ls_error *err)
{
  if (d->kind == LS_LAT_PARAMETRIC) {
    if (!(d->median_s > 0 && d->sigma > 0 && d->tail_prob >= 0 && d->tail_prob < 1 &&
          d->tail_start_s > 0 && d->tail_alpha > 1))
      return ls_error_set(err, LS_EINVALID, "latency: need median > 0, sigma > 0, 0 <= tail_prob < 1, "
                                            "tail_start > 0, tail_alpha > 1");
    return LS_OK;
  }
  if (d->n < 2 || d->n > LS_LAT_CDF_MAX || d->p[0] != 0.0 || d->p[d->n - 1] != 1.0)
    return ls_error_set(err, LS_EINVALID, "latency: empirical table needs 2..%d points from p=0 to p=1",
                        LS_LAT_CDF_MAX);
  for (int i = 1; i < d->n; i++)
    if (d->p[i] <= d->p[i - 1] || d->x_s[i] < d->x_s[i - 1] || d->x_s[i - 1] <= 0)
      return ls_error_set(err, LS_EINVALID, "latency: empirical table not monotone at point %d", i);
  return LS_OK;
}

/* Inverse of the linear-interpolated empirical CDF. */
static double empirical_inverse(const ls_latency_dist *d, double q)
{
  if (q <= 0)
    return d->x_s[0];
  for (int i = 1; i < d->n; i++)
    if (q <= d->p[i]) {
      double w = (q - d->p[i - 1]) / (d->p[i] - d->p[i - 1]);
      return d->x_s[i - 1] + w * (d->x_s[i] - d->x_s[i - 1]);
    }
  return d->x_s[d->n - 1];
}

double ls_latency_sample(const ls_latency_dist *d, gsl_rng *r)
{
  if (d->kind == LS_LAT_EMPIRICAL)
    return empirical_inverse(d, gsl_rng_uniform(r));
  if (d->tail_prob > 0 && gsl_rng_uniform(r) < d->tail_prob)
    return gsl_ran_pareto(r, d->tail_alpha, d->tail_start_s);
  /* Lognormal body as exp(mu + sigma Z); the ziggurat normal avoids the logarithms of
   * gsl_ran_lognormal's ratio method (this draw runs once per flash request). */
  return d->median_s * exp(d->sigma * gsl_ran_gaussian_ziggurat(r, 1.0));
}

double ls_latency_from_uniforms(const ls_latency_dist *d, double u_pick, double u)
{
  if (d->kind == LS_LAT_EMPIRICAL)
    return empirical_inverse(d, u);
  if (u_pick < d->tail_prob) /* Pareto survival (xm/x)^alpha = u */
    return d->tail_start_s * pow(u, -1.0 / d->tail_alpha);
  return d->median_s * exp(d->sigma * gsl_cdf_ugaussian_Pinv(u));
}

double ls_latency_cdf(const ls_latency_dist *d, double x)
{
  if (x <= 0)
    return 0.0;
  if (d->kind == LS_LAT_EMPIRICAL) {
    if (x < d->x_s[0])
      return 0.0;
    for (int i = 1; i < d->n; i++)
      if (x < d->x_s[i])
        return d->p[i - 1] + (d->p[i] - d->p[i - 1]) * (x - d->x_s[i - 1]) / (d->x_s[i] - d->x_s[i - 1]);
    return 1.0;
  }
  double body = gsl_cdf_ugaussian_P((log(x) - log(d->median_s)) / d->sigma);
  double tail = x < d->tail_start_s ? 0.0 : 1.0 - pow(d->tail_start_s / x, d->tail_alpha);
  return (1.0 - d->tail_prob) * body + d->tail_prob * tail;
}

double ls_latency_quantile(const ls_latency_dist *d, double q)
{
  if (d->kind == LS_LAT_EMPIRICAL)
    return empirical_inverse(d, q);
  /* Bracket: the body's and the tail's own quantiles bound the mixture's. */
  double lo = 1e-12, hi = d->median_s;
  while (ls_latency_cdf(d, hi) < q && hi < 1e6)
    hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
    double mid = 0.5 * (lo + hi);
    if (ls_latency_cdf(d, mid) < q)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

double ls_latency_mean(const ls_latency_dist *d)
{
  if (d->kind == LS_LAT_EMPIRICAL) {
    double m = 0;
    for (int i = 1; i < d->n; i++)
      m += (d->p[i] - d->p[i - 1]) * 0.5 * (d->x_s[i] + d->x_s[i - 1]);
    return m;
  }
  if (d->tail_alpha <= 1)
    return INFINITY;
  double body = exp(log(d->median_s) + 0.5 * d->sigma * d->sigma);
  double tail = d->tail_alpha * d->tail_start_s / (d->tail_alpha - 1.0);
  return (1.0 - d->tail_prob) * body + d->tail_prob * tail;
}
