/* runner/calibrate: see calibrate.h.
 *
 * Measurements and predictions (all through the device models of devices/):
 *   llama-bench test (n_prompt P, n_gen G, threads T) of a model with L layers:
 *     measured  y = (P + G) / avg_ts seconds, sd = y * stddev_ts / avg_ts
 *     predicted y = pass(P, ctx P/2) + G * pass(1, ctx P + G/2), where a pass over N tokens is
 *       NPU rows: L * ls_npu_layer_ns(N) + ls_cpu_lmhead_ns(1 token, T threads)
 *       CPU rows: L * ls_cpu_layer_ns(N, T) + ls_cpu_lmhead_ns(1 token, T threads)
 *     The output projection runs on the CPU for ONE token per pass: llama-bench asks for the
 *     logits of the last token only, and llama.cpp's Hexagon backend leaves the head on the
 *     CPU (src:llamacpp-23647). Fits use pad_small off (llama-bench batches are not
 *     padded) and the matrix path on (rows with a matrix rate come from builds that have
 *     one); the written profile keeps its own choice of both.
 *   fio job (bs, iodepth Q, path): measured bw_bytes, sd max(bw_dev, 2 %); predicted
 *     4096 bs / ls_flash_read_ns_at(4096 bs, bs, Q') on that path, Q' the requests really in
 *     flight: Q, except buffered random reads (direct=0, rw=rand*) with an engine whose
 *     submission blocks (libaio, posixaio, psync, sync...): the kernel reads the page inside
 *     io_submit, so one request is in flight whatever iodepth says (fio's slat of such jobs
 *     holds the read, their clat is ~1 us); sequential ones keep theirs (readahead keeps the
 *     device busy). For direct QD-1 jobs, each completion-latency percentile p <= 95:
 *     measured clat_p + the job's mean slat (the submission cost every request pays; sd 3 %,
 *     fio's histogram bins), predicted ls_latency_quantile(p) + bs / effective bandwidth
 *     (QD 1: no queueing). The m percentiles of one job come from one run's histogram: they
 *     move together from run to run, so they weigh as one measurement, not m (each deviation
 *     x sqrt(m)), and do not outvote the job's bandwidth. Buffered jobs give no latency points
 *     (their clat is not the read); buffered jobs of blocks below 128 KiB are listed, not
 *     fitted: their time is the page cache's per-request work, which the model has not (the
 *     path is a rate efficiency on the transfer; weights stream in chunk-size reads).
 *     The page-cache path is its own quantity: flash.efficiency.page_cache, the fraction of
 *     the link a buffered read from flash sustains, fitted as a logit so that it stays in
 *     (0, 1): a buffered read faster than the link did not come from flash but from the page
 *     cache (DRAM copy speed), and the fit refuses it (below) instead of raising the link.
 *   A deviation of 0 (one repetition, or a published table) is replaced by 2 % and said so.
 *   Every deviation is combined with the models' resolution: sd_i^2 = sd_meas^2 + (TAU y_i)^2,
 *   TAU = 10 %. The device models are simplifications (flash.c: the MVA read time is within
 *   4 % of its own event model, up to 23 % for small random reads at high queue depth; a
 *   phone's measurements scatter by some % from run to run), so a point that a fit misses by
 *   less than about 10 % says nothing against the model, and weighting by fio's tiny
 *   histogram errors alone would let 30 latency percentiles outvote the bandwidths.
 * Refusal (a fit that does not explain its data writes nothing, exit 65): with residuals
 *   z_i = (fit_i - y_i) / sd_i, the fit is refused when max |z_i| > Z_MAX = 5 (one point
 *   missed by more than 5 of its standard deviations: P < 1e-6 for a Gaussian error, so not
 *   noise), or when the reduced chi2 (sum z_i^2 / dof, dof >= 3) exceeds CHI2_RED_MAX = 4
 *   (the points are missed systematically by twice their deviations). The message lists
 *   the worst points, their residuals and what they likely measured instead.
 * Physical ranges: a fitted link above lanes x 2.9 GB/s (the fastest UFS gear), or a fitted
 *   median latency below 10 us (faster than any NAND read), is refused: such reads came from
 *   the page cache. A buffered job whose requests average under 10 us hit the page cache
 *   and is reported with its copy speed, not fitted.
 * Fit: residuals r_i = (pred_i - y_i) / sd_i, parameters theta_j = ln(p_j / base_j) (keeps
 * rates positive), GSL's trust-region Levenberg-Marquardt; the Jacobian by central differences
 * with step 1e-3 in theta (the device models round to whole nanoseconds, so a tiny step would
 * see only rounding). Covariance C = (J'J)^-1 at the fit, scaled by chi2/dof when that exceeds
 * 1 (the deviations understated the scatter); se(p_j) = p_j sqrt(C_jj) (delta method). With as
 * many points as parameters the fit is exact (chi2 = 0) and the errors come from the
 * deviations alone.
 * Determinacy: a parameter whose Jacobian column is (nearly) zero at the start stays at the
 * base value, reported: no row depends on it (vec_flops without a prompt shorter than mat_min)
 * or so weakly that changing it e-fold moves no prediction by 1/20 of its deviation (the
 * flash latency seen through 512 KiB reads at QD 32).
 * The rest must be separable: fewer points than parameters, or J with a singular value below
 * 1e-7 x the largest, is refused naming the parameters of the weakest direction.
 * Discrete NPU parameters: (tile, mat_min) in {base, (16,16), (32,32), (64,64), (128,128)}
 * by profile likelihood: each refitted, the base kept unless another lowers chi2 by > 4.
 * Leave-one-out: each point's prediction after refitting without it (NAN when the rest
 * cannot determine the parameters); above 100 points, in linear time from the leverages
 * (loo_leverage: exact for a linear model, first order for ours), since a refit per point
 * makes the whole quadratic in the number of measurements (4000 fio jobs: minutes). */
#include "runner/calibrate/calibrate.h"
#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "policies/costmodel.h"
#include "workloads/model.h"

#define STEP 1e-3
#define SD_DEFAULT 0.02
#define SINGULAR 1e-7
#define SWITCH_CHI2 4.0
#define WEAK 0.05 /* |d residual / d ln p| below this everywhere: e-fold change < 1/20 sd */
#define TAU 0.10          /* the models' resolution, combined with every deviation (see top) */
#define Z_MAX 5.0         /* refusal: a point missed by more than this many deviations */
#define CHI2_RED_MAX 4.0  /* refusal: reduced chi2 above this (dof >= 3) */
#define WORST 3           /* points named by a refusal */
#define LOO_EXACT_MAX 100 /* refit once per point up to this many points; above, the leverage form */
/* The physical range of flash.link_bandwidth: at most the profile's lanes x the fastest UFS
 * gear (HS-G5, 23.32 Gb/s a lane: src:ufs40-samsung "UFS 4.0 is 2 lanes x 23.2 Gb/s"),
 * 2.9 GB/s a lane. */
#define LANE_MAX 2.915e9
/* No flash read completes faster than this (a NAND page read takes tens of us): a buffered job
 * whose requests take less on average was served by the page cache (DRAM copies). */
#define FLASH_FLOOR_S 10e-6

typedef enum { PT_BENCH = 0, PT_FIO_BW, PT_FIO_PCT } pt_kind;

typedef struct pt_src {
  pt_kind kind;
  const ls_bench_row *row;
  const ls_fio_job *job;
  int pct;                 /* percentile index for PT_FIO_PCT */
  ls_model_costs cost;     /* PT_BENCH */
} pt_src;

/* The CPU group's fixed parameters: 0 gemv_scale, 1 max_bandwidth, 2 flops_scale; then the
 * optional kernel rates (define_params). */
#define IX_MAX_BW 1

/* One fitting problem: working copies of the device parts the parameters go into. */
typedef struct prob {
  ls_calib_group *g;
  ls_calib_gid gid;
  ls_npu_params npu;
  ls_cpu_params cpu, cpu_base;
  ls_flash_params fl;
  pt_src *src;
  unsigned char *use;      /* 1: the point takes part (leave-one-out clears one) */
  int free_ix[LS_CALIB_MAXP], n_free;
  int ix_single, ix_rem;   /* CPU group: the optional kernel rates' parameter indices (-1: absent) */
  struct qcache *qc;       /* latency quantiles of the current parameters (fio_pct) */
} prob;

/* The latency quantiles already inverted for one latency distribution: every job asks for the
 * same few percentiles, and inverting the mixture's CDF is the costly step (a fit of 4000 jobs
 * would spend most of its time there). Reset whenever the distribution changes. */
#define QCACHE 64
typedef struct qcache {
  ls_latency_dist d;
  int n;
  double q[QCACHE], v[QCACHE];
} qcache;

/* Field by field (memcmp would read the struct's padding). */
static int same_dist(const ls_latency_dist *a, const ls_latency_dist *b)
{
  if (a->kind != b->kind || a->median_s != b->median_s || a->sigma != b->sigma || a->tail_prob != b->tail_prob ||
      a->tail_start_s != b->tail_start_s || a->tail_alpha != b->tail_alpha || a->n != b->n)
    return 0;
  for (int i = 0; i < a->n && i < LS_LAT_CDF_MAX; i++)
    if (a->p[i] != b->p[i] || a->x_s[i] != b->x_s[i])
      return 0;
  return 1;
}

static double quantile(const prob *P, const ls_latency_dist *d, double q)
{
  qcache *c = P->qc;
  if (!c)
    return ls_latency_quantile(d, q);
  if (c->n == 0 || !same_dist(&c->d, d)) {
    c->d = *d;
    c->n = 0;
  }
  for (int i = 0; i < c->n; i++)
    if (c->q[i] == q)
      return c->v[i];
  double v = ls_latency_quantile(d, q);
  if (c->n < QCACHE) {
    c->q[c->n] = q;
    c->v[c->n++] = v;
  }
  return v;
}

/* ---- parameters into the device structs ---- */

static void apply(prob *P, const double *p)
{
  switch (P->gid) {
  case LS_CALIB_GROUP_CPU:
    P->cpu = P->cpu_base;
    for (int c = 0; c < P->cpu.n_clusters; c++) {
      P->cpu.cluster[c].gemv_bw_per_core *= p[0];
      P->cpu.cluster[c].flops_per_cycle *= p[2];
    }
    P->cpu.max_bw = p[IX_MAX_BW];
    if (P->ix_single >= 0)
      P->cpu.single_bw = p[P->ix_single];
    if (P->ix_rem >= 0)
      P->cpu.remainder_bw = p[P->ix_rem];
    break;
  case LS_CALIB_GROUP_NPU:
    P->npu.dyn.op_call_s = p[0];
    P->npu.dyn.weight_bw = p[1];
    P->npu.dyn.vec_flops = p[2];
    P->npu.dyn.mat_flops = p[3];
    break;
  default:
    P->fl.link_bandwidth = p[0];
    P->fl.efficiency[LS_PATH_PAGE_CACHE] = p[1];
    P->fl.latency.median_s = p[2];
    P->fl.latency.sigma = p[3];
    break;
  }
}

static void set_param(ls_calib_param *q, const char *name, ls_unit_kind u, double base)
{
  snprintf(q->name, sizeof q->name, "%s", name);
  q->unit = u;
  q->base = q->value = base;
  q->status = LS_CALIB_FITTED;
  q->unit01 = 0;
  q->why[0] = '\0';
}

static void define_params(prob *P, const ls_device *base)
{
  ls_calib_group *g = P->g;
  g->n_par = P->gid == LS_CALIB_GROUP_CPU ? 3 : 4;
  P->ix_single = P->ix_rem = -1;
  if (P->gid == LS_CALIB_GROUP_CPU) {
    set_param(&g->par[0], "cpu.gemv_scale", LS_U_RATIO, 1.0);
    set_param(&g->par[IX_MAX_BW], "cpu.max_bandwidth", LS_U_BANDWIDTH, ls_device_cpu(base)->max_bw);
    set_param(&g->par[2], "cpu.flops_scale", LS_U_RATIO, 1.0);
    /* the one-token kernel's rate, only where the base profile models that kernel (cpu.c) */
    if (ls_device_cpu(base)->single_bw > 0)
      set_param(&g->par[P->ix_single = g->n_par++], "cpu.single_bandwidth", LS_U_BANDWIDTH,
                ls_device_cpu(base)->single_bw);
    /* the remainder's pass's rate, likewise (cpu.c) */
    if (ls_device_cpu(base)->remainder_bw > 0)
      set_param(&g->par[P->ix_rem = g->n_par++], "cpu.remainder_bandwidth", LS_U_BANDWIDTH,
                ls_device_cpu(base)->remainder_bw);
  } else if (P->gid == LS_CALIB_GROUP_NPU) {
    const ls_npu_dynamic *d = &ls_device_npu(base)->dyn;
    set_param(&g->par[0], "npu.q4_0_dynamic.op_call", LS_U_TIME, d->op_call_s);
    set_param(&g->par[1], "npu.q4_0_dynamic.weight_bandwidth", LS_U_BANDWIDTH, d->weight_bw);
    set_param(&g->par[2], "npu.q4_0_dynamic.vec_flops", LS_U_COMPUTE, d->vec_flops);
    set_param(&g->par[3], "npu.q4_0_dynamic.mat_flops", LS_U_COMPUTE, d->mat_flops);
  } else {
    const ls_flash_params *f = ls_device_flash(base);
    set_param(&g->par[0], "flash.link_bandwidth", LS_U_BANDWIDTH, f->link_bandwidth);
    set_param(&g->par[1], "flash.efficiency.page_cache", LS_U_RATIO, f->efficiency[LS_PATH_PAGE_CACHE]);
    g->par[1].unit01 = 1;
    set_param(&g->par[2], "flash.latency.median", LS_U_TIME, f->latency.median_s);
    set_param(&g->par[3], "flash.latency.sigma", LS_U_RATIO, f->latency.sigma);
  }
}

/* ---- predictions ---- */

static double pass_s(const prob *P, const pt_src *s, int tokens, int ctx)
{
  const ls_bench_row *r = s->row;
  ls_layer_work w = ls_costmodel_layer_work(&s->cost);
  double layer = r->backend == LS_CALIB_NPU ? (double)ls_npu_layer_ns(&P->npu, &w, tokens, ctx)
                                            : (double)ls_cpu_layer_ns(&P->cpu, &w, tokens, ctx, r->threads);
  double head = (double)ls_cpu_lmhead_ns(&P->cpu, s->cost.lmhead_bytes, s->cost.lmhead_flops_per_token, 1, r->threads);
  return (s->cost.n_layers * layer + head) * 1e-9;
}

static double bench_s(const prob *P, const pt_src *s)
{
  const ls_bench_row *r = s->row;
  double t = 0;
  if (r->n_prompt > 0)
    t += pass_s(P, s, r->n_prompt, r->n_depth + r->n_prompt / 2);
  if (r->n_gen > 0)
    t += r->n_gen * pass_s(P, s, 1, r->n_depth + r->n_prompt + r->n_gen / 2);
  return t;
}

static double fio_bw(const prob *P, const ls_fio_job *j)
{
  ls_flash_params f = P->fl;
  f.path = j->direct ? LS_PATH_DIRECT : LS_PATH_PAGE_CACHE;
  double bytes = 4096.0 * j->bs;
  return bytes / ((double)ls_flash_read_ns_at(&f, bytes, j->bs, j->eff_qd) * 1e-9);
}

static double fio_pct(const prob *P, const ls_fio_job *j, int k)
{
  ls_flash_params f = P->fl;
  f.path = j->direct ? LS_PATH_DIRECT : LS_PATH_PAGE_CACHE;
  return quantile(P, &f.latency, j->pct[k] / 100.0) + j->bs / ls_flash_effective_bw(&f) + j->slat_s;
}

static double predict(const prob *P, int i)
{
  const pt_src *s = &P->src[i];
  if (s->kind == PT_BENCH)
    return bench_s(P, s);
  if (s->kind == PT_FIO_BW)
    return fio_bw(P, s->job);
  return fio_pct(P, s->job, s->pct);
}

/* ---- the weighted least-squares engine ---- */

/* A parameter from its fit coordinate: p = base e^theta (a positive rate), or for a fraction
 * in (0, 1) the logistic of logit(base) + theta. */
static double from_theta(const ls_calib_param *q, double theta)
{
  if (!q->unit01)
    return q->base * exp(theta);
  double b = fmin(fmax(q->base, 1e-9), 1 - 1e-9);
  return 1.0 / (1.0 + exp(-(log(b / (1 - b)) + theta)));
}

/* dp / dtheta at p (the delta method's factor for the standard error). */
static double dp_dtheta(const ls_calib_param *q, double p)
{
  return q->unit01 ? p * (1 - p) : p;
}

static void full_params(const prob *P, const double *theta, double *p)
{
  for (int k = 0; k < P->g->n_par; k++)
    p[k] = P->g->par[k].value;
  for (int j = 0; j < P->n_free; j++) {
    int k = P->free_ix[j];
    p[k] = from_theta(&P->g->par[k], theta[j]);
  }
}

/* A measurement's deviation combined with the models' resolution (see top). */
static double sd_eff(double sd, double y)
{
  return sqrt(sd * sd + (TAU * y) * (TAU * y));
}

static void residuals(prob *P, const double *theta, double *f)
{
  double p[LS_CALIB_MAXP];
  full_params(P, theta, p);
  apply(P, p);
  for (int i = 0; i < P->g->n_pts; i++)
    f[i] = P->use[i] ? (predict(P, i) - P->g->pts[i].y) / P->g->pts[i].sigma : 0.0;
}

static int gsl_f(const gsl_vector *x, void *data, gsl_vector *f)
{
  prob *P = data;
  residuals(P, x->data, f->data);
  return GSL_SUCCESS;
}

/* Central-difference Jacobian at theta into J (n_pts x n_free). */
static void jacobian(prob *P, const double *theta, gsl_matrix *J)
{
  int n = P->g->n_pts;
  double t[LS_CALIB_MAXP], *fp = malloc(2 * (size_t)n * sizeof *fp), *fm = fp ? fp + n : NULL;
  if (!fp) {
    gsl_matrix_set_zero(J);
    return;
  }
  for (int j = 0; j < P->n_free; j++) {
    memcpy(t, theta, (size_t)P->n_free * sizeof *t); /* theta may be GSL's, n_free long */
    t[j] = theta[j] + STEP;
    residuals(P, t, fp);
    t[j] = theta[j] - STEP;
    residuals(P, t, fm);
    for (int i = 0; i < n; i++)
      gsl_matrix_set(J, (size_t)i, (size_t)j, (fp[i] - fm[i]) / (2 * STEP));
  }
  free(fp);
}

static int gsl_df(const gsl_vector *x, void *data, gsl_matrix *J)
{
  jacobian(data, x->data, J);
  return GSL_SUCCESS;
}

static int n_used(const prob *P)
{
  int n = 0;
  for (int i = 0; i < P->g->n_pts; i++)
    n += P->use[i];
  return n;
}

/* Index of the free parameter with the largest part in J's weakest direction, or -1 when J
 * (used rows) separates every free parameter. *second gets the next largest. */
static int weakest(prob *P, const double *theta, int *second)
{
  int n = P->g->n_pts, p = P->n_free;
  *second = -1;
  if (n_used(P) < p)
    return 0;
  gsl_matrix *J = gsl_matrix_alloc((size_t)n, (size_t)p), *V = gsl_matrix_alloc((size_t)p, (size_t)p);
  gsl_vector *S = gsl_vector_alloc((size_t)p), *work = gsl_vector_alloc((size_t)p);
  int bad = -1;
  if (J && V && S && work) {
    jacobian(P, theta, J);
    gsl_linalg_SV_decomp(J, V, S, work);
    double smax = gsl_vector_get(S, 0), smin = gsl_vector_get(S, (size_t)p - 1);
    if (!(smin > SINGULAR * smax)) {
      double b1 = -1, b2 = -1;
      for (int j = 0; j < p; j++) {
        double v = fabs(gsl_matrix_get(V, (size_t)j, (size_t)p - 1));
        if (v > b1) {
          b2 = b1, *second = bad;
          b1 = v, bad = j;
        } else if (v > b2) {
          b2 = v, *second = j;
        }
      }
    }
  }
  gsl_matrix_free(J);
  gsl_matrix_free(V);
  gsl_vector_free(S);
  gsl_vector_free(work);
  return bad;
}

/* Fits the free parameters from theta (in: start, out: fit). cov (n_free^2) may be NULL.
 * Returns 0, or 1 when the used points cannot determine them. */
static int wls(prob *P, double *theta, double *cov, double *chi2)
{
  int second;
  if (P->n_free == 0) {
    *chi2 = 0;
    double *r = malloc((size_t)P->g->n_pts * sizeof *r);
    if (!r)
      return 1;
    residuals(P, theta, r);
    for (int i = 0; i < P->g->n_pts; i++)
      *chi2 += r[i] * r[i];
    free(r);
    return 0;
  }
  if (weakest(P, theta, &second) >= 0)
    return 1;
  size_t n = (size_t)P->g->n_pts, p = (size_t)P->n_free;
  gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
  gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, n, p);
  if (!w)
    return 1;
  gsl_multifit_nlinear_fdf fdf = {gsl_f, gsl_df, NULL, n, p, P, 0, 0, 0};
  gsl_vector_view x0 = gsl_vector_view_array(theta, p);
  gsl_multifit_nlinear_init(&x0.vector, &fdf, w);
  int info;
  gsl_multifit_nlinear_driver(200, 1e-10, 1e-10, 1e-12, NULL, NULL, &info, w);
  const gsl_vector *x = gsl_multifit_nlinear_position(w);
  for (size_t j = 0; j < p; j++)
    theta[j] = gsl_vector_get(x, j);
  gsl_vector *f = gsl_multifit_nlinear_residual(w);
  double c2;
  gsl_blas_ddot(f, f, &c2);
  *chi2 = c2;
  if (cov) {
    gsl_matrix *J = gsl_matrix_alloc(n, p), *C = gsl_matrix_alloc(p, p);
    if (J && C) {
      jacobian(P, theta, J);
      gsl_multifit_nlinear_covar(J, 0.0, C);
      for (size_t k = 0; k < p * p; k++)
        cov[k] = C->data[k / p * C->tda + k % p];
    }
    gsl_matrix_free(J);
    gsl_matrix_free(C);
  }
  gsl_multifit_nlinear_free(w);
  double pf[LS_CALIB_MAXP];
  full_params(P, theta, pf);
  apply(P, pf);
  return 0;
}

/* ---- measurements into points ---- */

static int grow_points(prob *P, int n, ls_error *err)
{
  P->g->pts = calloc((size_t)n, sizeof *P->g->pts);
  P->src = calloc((size_t)n, sizeof *P->src);
  P->use = malloc((size_t)n);
  if (!P->g->pts || !P->src || !P->use)
    return ls_error_set(err, LS_ENOMEM, "calibrate: out of memory");
  memset(P->use, 1, (size_t)n);
  return LS_OK;
}

static void test_name(const ls_bench_row *r, char *buf, size_t size)
{
  if (r->n_prompt > 0 && r->n_gen > 0)
    snprintf(buf, size, "pp%d+tg%d", r->n_prompt, r->n_gen);
  else if (r->n_prompt > 0)
    snprintf(buf, size, "pp%d", r->n_prompt);
  else
    snprintf(buf, size, "tg%d", r->n_gen);
}

static int bench_points(prob *P, const ls_calib_inputs *in, ls_calib_backend want, const char *root, int *defaulted,
                        ls_error *err)
{
  int n = 0, rc;
  for (int i = 0; i < in->n_rows; i++)
    n += in->rows[i].backend == want;
  if (n == 0)
    return LS_OK;
  if ((rc = grow_points(P, n, err)))
    return rc;
  for (int i = 0; i < in->n_rows; i++) {
    const ls_bench_row *r = &in->rows[i];
    if (r->backend != want)
      continue;
    int k = P->g->n_pts++;
    ls_calib_point *pt = &P->g->pts[k];
    pt_src *s = &P->src[k];
    s->kind = PT_BENCH;
    s->row = r;
    ls_model *m;
    if ((rc = ls_model_load_id(&m, root, r->model, err)))
      return ls_error_wrap(err, "%s", r->where);
    rc = ls_model_costs_get(m, r->quant, &s->cost, err);
    ls_model_free(m);
    if (rc)
      return ls_error_wrap(err, "%s", r->where);
    char t[32];
    test_name(r, t, sizeof t);
    snprintf(pt->where, sizeof pt->where, "%s", r->where);
    snprintf(pt->label, sizeof pt->label, "%s %s, %d thread%s, %s", r->model, t, r->threads, r->threads == 1 ? "" : "s",
             r->backends);
    snprintf(pt->series, sizeof pt->series, "%s, %d threads", r->model, r->threads);
    double rel = r->stddev_ts / r->avg_ts;
    if (rel <= 0) {
      rel = SD_DEFAULT;
      (*defaulted)++;
    }
    pt->y = (r->n_prompt + r->n_gen) / r->avg_ts;
    pt->sigma = sd_eff(pt->y * rel, pt->y);
    pt->px = r->n_prompt > 0 ? r->n_prompt : 1;
    pt->py = r->avg_ts;
    pt->pe = r->avg_ts * rel;
  }
  return LS_OK;
}

static void size_text(double bytes, char *buf, size_t size)
{
  if (fmod(bytes, 1048576.0) == 0)
    snprintf(buf, size, "%g MiB", bytes / 1048576.0);
  else if (fmod(bytes, 1024.0) == 0)
    snprintf(buf, size, "%g KiB", bytes / 1024.0);
  else
    snprintf(buf, size, "%g B", bytes);
}

/* A job whose completion latencies are the device's: direct, one request in flight. */
static int latency_job(const ls_fio_job *j)
{
  return j->direct && j->eff_qd == 1;
}

/* Buffered reads of small blocks: their time is the page cache's per-request software cost
 * (page allocation, lookup, copy), which the device model does not have (flash.c: the path
 * is a rate efficiency on the transfer); weights stream in chunk-size reads. */
#define BUFFERED_MIN_BS 131072.0
static int cache_hits(const ls_fio_job *j)
{
  return !j->direct && j->eff_qd / j->iops < FLASH_FLOOR_S;
}

static int fitted_job(const ls_fio_job *j)
{
  return j->direct || (j->bs >= BUFFERED_MIN_BS && !cache_hits(j));
}

static int fio_points(prob *P, const ls_calib_inputs *in, int *defaulted, ls_error *err)
{
  int n = 0, rc, small = 0, hits = 0;
  double copy_bw = 0;
  for (int i = 0; i < in->n_jobs; i++) {
    if (cache_hits(&in->jobs[i])) {
      hits++;
      copy_bw = fmax(copy_bw, in->jobs[i].bw);
      continue;
    }
    if (!fitted_job(&in->jobs[i])) {
      small++;
      continue;
    }
    n++;
    for (int k = 0; latency_job(&in->jobs[i]) && k < in->jobs[i].n_pct; k++)
      n += in->jobs[i].pct[k] <= 95.0;
  }
  if (n == 0 && hits)
    return ls_error_set(err, LS_EINVALID, "calibrate flash: every fio job read from the page cache (requests "
                        "under 10 us, up to %.3g GB/s: DRAM copy speed), none from the flash: run fio with "
                        "--direct=1, or with --invalidate=1 on a file larger than RAM", copy_bw * 1e-9);
  if (n == 0)
    return LS_OK;
  if ((rc = grow_points(P, n, err)))
    return rc;
  if (hits) {
    size_t len = strlen(P->g->note);
    snprintf(P->g->note + len, sizeof P->g->note - len, "%s%d buffered job%s hit the page cache (requests under "
             "10 us, up to %.3g GB/s: DRAM copy speed, not the flash): not fitted", len ? "; " : "", hits,
             hits == 1 ? "" : "s", copy_bw * 1e-9);
  }
  if (small) {
    size_t len = strlen(P->g->note);
    snprintf(P->g->note + len, sizeof P->g->note - len, "%s%d buffered job%s below 128 KiB not fitted (a small "
             "buffered read costs the page cache's per-request work, which the model has not: weights stream in "
             "chunk-size reads)", len ? "; " : "", small, small == 1 ? "" : "s");
  }
  for (int i = 0; i < in->n_jobs; i++) {
    const ls_fio_job *j = &in->jobs[i];
    if (!fitted_job(j))
      continue;
    char bs[32];
    size_text(j->bs, bs, sizeof bs);
    ls_calib_point *pt = &P->g->pts[P->g->n_pts];
    pt_src *s = &P->src[P->g->n_pts++];
    s->kind = PT_FIO_BW;
    s->job = j;
    snprintf(pt->where, sizeof pt->where, "%s", j->where);
    snprintf(pt->label, sizeof pt->label, "bs %s qd %d %s: bandwidth", bs, j->iodepth, j->direct ? "direct" : "buffered");
    snprintf(pt->series, sizeof pt->series, "qd %d, %s", j->iodepth, j->direct ? "direct" : "page cache");
    pt->y = j->bw;
    pt->sigma = sd_eff(fmax(j->bw_dev, SD_DEFAULT * j->bw), j->bw);
    *defaulted += j->bw_dev <= 0;
    pt->px = j->bs;
    pt->py = j->bw;
    pt->pe = pt->sigma;
    int n_lat = 0;
    for (int k = 0; latency_job(j) && k < j->n_pct; k++)
      n_lat += j->pct[k] <= 95.0;
    for (int k = 0; latency_job(j) && k < j->n_pct; k++) {
      if (j->pct[k] > 95.0)
        continue;
      pt = &P->g->pts[P->g->n_pts];
      s = &P->src[P->g->n_pts++];
      s->kind = PT_FIO_PCT;
      s->job = j;
      s->pct = k;
      snprintf(pt->where, sizeof pt->where, "%s.read.clat_ns.percentile[\"%.6f\"]", j->where, j->pct[k]);
      snprintf(pt->label, sizeof pt->label, "bs %s qd 1: p%g latency", bs, j->pct[k]);
      snprintf(pt->series, sizeof pt->series, "latency, bs %s", bs);
      pt->y = j->clat_s[k] + j->slat_s;
      pt->sigma = sd_eff(0.03 * pt->y, pt->y) * sqrt((double)n_lat); /* one job's percentiles: one run */
      pt->px = j->pct[k];
      pt->py = pt->y;
      pt->pe = pt->sigma;
    }
  }
  return LS_OK;
}

/* ---- which parameters the points determine ---- */

static int is_fixed(const ls_calib_options *o, const char *name)
{
  for (int i = 0; o && o->fix && o->fix[i]; i++) {
    const char *f = o->fix[i], *dot = strrchr(name, '.');
    if (strcmp(f, name) == 0 || (dot && strcmp(f, dot + 1) == 0))
      return 1;
  }
  return 0;
}

static const char *hint(ls_calib_gid gid)
{
  static const char *const h[] = {
      "add CPU rows at other thread counts (-t 1,2,4) and prompt lengths, or hold one with --fix NAME "
      "(e.g. --fix flops_scale when every row is token generation)",
      "add Hexagon rows at several prompt lengths (-p 1,8,16,25,32,64,128 -n 0, and -n 32) or of a second model, "
      "or hold one with --fix NAME (e.g. --fix op_call, as `make calibrate-examples` does for one model's rows)",
      "add fio jobs at other block sizes and queue depths, or hold one with --fix NAME "
      "(e.g. --fix latency.sigma with a single queue depth)"};
  return h[gid];
}

static void keep(ls_calib_param *q, ls_calib_status st, const char *why)
{
  q->status = st;
  snprintf(q->why, sizeof q->why, "%s", why);
}

static int choose_free(prob *P, const ls_calib_options *o, ls_error *err)
{
  ls_calib_group *g = P->g;
  int direct = 0, buffered = 0, pcts = 0;
  for (int i = 0; i < g->n_pts; i++) {
    if (P->src[i].kind == PT_FIO_BW)
      P->src[i].job->direct ? direct++ : buffered++;
    pcts += P->src[i].kind == PT_FIO_PCT;
  }
  P->n_free = 0;
  for (int k = 0; k < g->n_par; k++) {
    if (is_fixed(o, g->par[k].name))
      keep(&g->par[k], LS_CALIB_FIXED, "");
    else if (P->gid == LS_CALIB_GROUP_FLASH && k == 1 && !(direct && buffered))
      keep(&g->par[k], LS_CALIB_UNDETERMINED, "fio measured one read path only (its rate is link x efficiency: "
           "the link rate is fitted)");
    else if (P->gid == LS_CALIB_GROUP_FLASH && k == 3 && !pcts)
      keep(&g->par[k], LS_CALIB_UNDETERMINED, "no latency percentiles (direct QD-1 jobs): the rates see only the "
           "mean latency");
    else
      P->free_ix[P->n_free++] = k;
  }
  /* Zero Jacobian columns at the base: no point depends on the parameter. */
  double theta[LS_CALIB_MAXP] = {0};
  gsl_matrix *J = gsl_matrix_alloc((size_t)g->n_pts, (size_t)(P->n_free ? P->n_free : 1));
  if (!J)
    return ls_error_set(err, LS_ENOMEM, "calibrate: out of memory");
  jacobian(P, theta, J);
  int nf = 0;
  for (int j = 0; j < P->n_free; j++) {
    double m = 0;
    for (int i = 0; i < g->n_pts; i++)
      m = fmax(m, fabs(gsl_matrix_get(J, (size_t)i, (size_t)j)));
    if (m < WEAK)
      keep(&g->par[P->free_ix[j]], LS_CALIB_UNDETERMINED, "no measurement depends on it");
    else
      P->free_ix[nf++] = P->free_ix[j];
  }
  gsl_matrix_free(J);
  P->n_free = nf;
  if (nf == 0)
    return LS_OK;
  char names[256] = "";
  for (int j = 0, len = 0; j < nf; j++)
    len += snprintf(names + len, sizeof names - (size_t)len, "%s%s", j ? ", " : "", g->par[P->free_ix[j]].name);
  if (g->n_pts < nf)
    return ls_error_set(err, LS_EINVALID, "calibrate %s: %d measurement%s cannot determine %d parameters (%s): %s",
                        g->name, g->n_pts, g->n_pts == 1 ? "" : "s", nf, names, hint(P->gid));
  int second, w = weakest(P, theta, &second);
  if (w >= 0)
    return ls_error_set(err, LS_EINVALID, "calibrate %s: the measurements cannot tell %s from %s (one prompt length, "
                        "one model or one block size moves them together): %s", g->name, g->par[P->free_ix[w]].name,
                        second >= 0 ? g->par[P->free_ix[second]].name : "the others", hint(P->gid));
  return LS_OK;
}

/* Adds "file rows a,b" groups of the points whose residual depends on free parameter j. */
static void param_rows(prob *P, const gsl_matrix *J, int j, char *buf, size_t size)
{
  ls_calib_group *g = P->g;
  double m = 0;
  for (int i = 0; i < g->n_pts; i++)
    m = fmax(m, fabs(gsl_matrix_get(J, (size_t)i, (size_t)j)));
  size_t len = 0;
  buf[0] = '\0';
  const char *last_file = NULL, *last_tag = NULL;
  for (int i = 0; i < g->n_pts && len + 1 < size; i++) {
    if (!(fabs(gsl_matrix_get(J, (size_t)i, (size_t)j)) > 1e-3 * m))
      continue;
    const pt_src *s = &P->src[i];
    const char *file = s->kind == PT_BENCH ? s->row->file : s->job->file;
    const char *tag = s->kind == PT_BENCH ? s->row->tag : s->job->tag;
    if (last_tag && strcmp(tag, last_tag) == 0 && strcmp(file, last_file) == 0)
      continue; /* several percentiles of one job */
    if (!last_file || strcmp(file, last_file) != 0)
      len += (size_t)snprintf(buf + len, size - len, "%s%s, rows %s", last_file ? "; " : "", file, tag);
    else
      len += (size_t)snprintf(buf + len, size - len, ",%s", tag);
    last_file = file;
    last_tag = tag;
  }
}

/* Leave-one-out for many points, in linear time: the leverage form. With J the Jacobian of
 * the weighted residuals at the fit and C = (J'J)^-1 (cov, unscaled), point i's leverage is
 * h_i = J_i C J_i', and its residual refitted without it is r_i / (1 - h_i): exact for a
 * linear model, the first-order (one Gauss-Newton step) value for ours. NAN when h_i ~ 1
 * (the point alone determines a direction). */
static int loo_leverage(prob *P, const double *theta, const double *cov, ls_error *err)
{
  ls_calib_group *g = P->g;
  int p = P->n_free;
  if (p == 0) {
    for (int i = 0; i < g->n_pts; i++)
      g->pts[i].loo = g->pts[i].fit;
    return LS_OK;
  }
  gsl_matrix *J = gsl_matrix_alloc((size_t)g->n_pts, (size_t)p);
  if (!J)
    return ls_error_set(err, LS_ENOMEM, "calibrate: out of memory");
  jacobian(P, theta, J);
  for (int i = 0; i < g->n_pts; i++) {
    double h = 0;
    for (int a = 0; a < p; a++)
      for (int b = 0; b < p; b++)
        h += gsl_matrix_get(J, (size_t)i, (size_t)a) * cov[a * p + b] * gsl_matrix_get(J, (size_t)i, (size_t)b);
    ls_calib_point *pt = &g->pts[i];
    pt->loo = h < 1 - 1e-9 ? pt->y + (pt->fit - pt->y) / (1 - h) : NAN;
  }
  gsl_matrix_free(J);
  return LS_OK;
}

/* A per-core CPU rate (cpu.single_bandwidth, cpu.remainder_bandwidth) the fit put past
 * cpu.max_bandwidth, which caps every rate the CPU model uses (devices/cpu.c): any value past
 * the cap prices every pass the same, so the measurements set only a lower bound. It is written
 * at the cap and says so (q->why), instead of an arbitrary value past it whose standard error
 * means nothing. */
static void capped(prob *P, int j, double *pf)
{
  int k = P->free_ix[j];
  ls_calib_param *q = &P->g->par[k];
  const double cap = pf[IX_MAX_BW]; /* fitted or held */
  if (P->gid != LS_CALIB_GROUP_CPU || (k != P->ix_single && k != P->ix_rem) || !(q->value > cap))
    return;
  pf[k] = q->value = cap;
  q->se = 0;
  snprintf(q->why, sizeof q->why, "at cpu.max_bandwidth, which caps it: the measurements set only a lower bound");
  /* the rows that bound it: those that depend on it at the base's values, below the cap */
  gsl_matrix *J0 = gsl_matrix_alloc((size_t)P->g->n_pts, (size_t)P->n_free);
  double zero[LS_CALIB_MAXP] = {0};
  if (J0) {
    jacobian(P, zero, J0);
    param_rows(P, J0, j, q->rows, sizeof q->rows);
    gsl_matrix_free(J0);
  }
}

/* Fits the free parameters, fills values, errors, fitted and leave-one-out predictions. */
static int fit_group(prob *P, ls_error *err)
{
  ls_calib_group *g = P->g;
  int p = P->n_free;
  double theta[LS_CALIB_MAXP] = {0}, cov[LS_CALIB_MAXP * LS_CALIB_MAXP] = {0}, chi2;
  if (wls(P, theta, cov, &chi2))
    return ls_error_set(err, LS_ENUMERIC, "calibrate %s: the fit did not converge", g->name);
  g->chi2 = chi2;
  g->dof = g->n_pts - p;
  double scale = (g->dof > 0 && chi2 / g->dof > 1.0) ? chi2 / g->dof : 1.0;
  double pf[LS_CALIB_MAXP];
  full_params(P, theta, pf);
  gsl_matrix *J = gsl_matrix_alloc((size_t)g->n_pts, (size_t)(p ? p : 1));
  if (!J)
    return ls_error_set(err, LS_ENOMEM, "calibrate: out of memory");
  jacobian(P, theta, J);
  for (int j = 0; j < p; j++) {
    ls_calib_param *q = &g->par[P->free_ix[j]];
    q->value = pf[P->free_ix[j]];
    q->se = dp_dtheta(q, q->value) * sqrt(cov[j * p + j] * scale);
    param_rows(P, J, j, q->rows, sizeof q->rows);
    capped(P, j, pf);
  }
  gsl_matrix_free(J);
  apply(P, pf);
  for (int i = 0; i < g->n_pts; i++)
    g->pts[i].fit = predict(P, i);
  if (g->n_pts <= LOO_EXACT_MAX) {
    for (int i = 0; i < g->n_pts; i++) {
      double t[LS_CALIB_MAXP], c2;
      memcpy(t, theta, sizeof t);
      P->use[i] = 0;
      g->pts[i].loo = wls(P, t, NULL, &c2) ? NAN : predict(P, i);
      P->use[i] = 1;
    }
  } else if (loo_leverage(P, theta, cov, err)) {
    return err->code;
  }
  apply(P, pf);
  return LS_OK;
}

/* What an off point likely measured instead (into pt->why). */
static void explain(const prob *P, int i)
{
  const pt_src *s = &P->src[i];
  ls_calib_point *pt = &P->g->pts[i];
  if (s->kind == PT_FIO_BW && !s->job->direct && pt->y > P->fl.link_bandwidth)
    snprintf(pt->why, sizeof pt->why, "buffered reads faster than the flash link (%.3g GB/s): they hit the page "
             "cache and measure DRAM copy speed, not the flash (drop caches, or use --invalidate=1 and a file "
             "larger than RAM)", P->fl.link_bandwidth * 1e-9);
  else if (s->kind == PT_FIO_PCT && pt->y < 5e-6)
    snprintf(pt->why, sizeof pt->why, "a latency below 5 us is not a flash read (a page-cache hit?)");
  else
    snprintf(pt->why, sizeof pt->why, "the model %s it by %.0f %%", pt->fit > pt->y ? "overestimates" : "underestimates",
             100 * fabs(pt->fit - pt->y) / pt->y);
}

/* The flash parameters' physical ranges (see top); page_cache is in (0, 1) by construction. */
static int physical_range(const prob *P, ls_error *err)
{
  if (P->gid != LS_CALIB_GROUP_FLASH)
    return LS_OK;
  const ls_calib_group *g = P->g;
  double max_link = P->fl.lanes * LANE_MAX;
  if (g->par[0].status == LS_CALIB_FITTED && P->fl.link_bandwidth > max_link)
    return ls_error_set(err, LS_EINVALID, "calibrate flash: the fitted link rate %.3g GB/s exceeds what %d lane%s of "
                        "the fastest UFS gear carry (%.3g GB/s): the reads did not come from flash (buffered reads "
                        "that hit the page cache measure DRAM copy speed); no profile is written. Measure with "
                        "--direct=1, or --invalidate=1 on a file larger than RAM", P->fl.link_bandwidth * 1e-9,
                        P->fl.lanes, P->fl.lanes == 1 ? "" : "s", max_link * 1e-9);
  if (g->par[2].status == LS_CALIB_FITTED && P->fl.latency.median_s < FLASH_FLOOR_S)
    return ls_error_set(err, LS_EINVALID, "calibrate flash: the fitted median read latency %.3g us is below any NAND "
                        "read (%g us): the reads were served by the page cache (DRAM copies), not the flash; no profile "
                        "is written. Measure with --direct=1, or --invalidate=1 on a file larger than RAM",
                        P->fl.latency.median_s * 1e6, FLASH_FLOOR_S * 1e6);
  return LS_OK;
}

/* The refusal rule (see top): LS_EINVALID naming the worst points when the fit does not
 * explain its measurements. */
static int check_fit(prob *P, ls_error *err)
{
  ls_calib_group *g = P->g;
  int worst[WORST], nw = 0;
  double zmax = 0;
  for (int i = 0; i < g->n_pts; i++) {
    double z = fabs(g->pts[i].fit - g->pts[i].y) / g->pts[i].sigma;
    zmax = fmax(zmax, z);
    int k = nw < WORST ? nw++ : WORST;   /* insertion into the WORST largest */
    while (k > 0 && fabs(g->pts[worst[k - 1]].fit - g->pts[worst[k - 1]].y) / g->pts[worst[k - 1]].sigma < z) {
      if (k < WORST)
        worst[k] = worst[k - 1];
      k--;
    }
    if (k < WORST)
      worst[k] = i;
  }
  int rc = physical_range(P, err);
  if (rc)
    return rc;
  double red = g->dof > 0 ? g->chi2 / g->dof : 0;
  int bad_z = zmax > Z_MAX, bad_chi2 = g->dof >= 3 && red > CHI2_RED_MAX;
  if (!bad_z && !bad_chi2)
    return LS_OK;
  char list[LS_ERR_MSG / 2 + 64];
  size_t len = 0;
  list[0] = '\0';
  for (int k = 0; k < nw && len + 1 < sizeof list; k++) {
    ls_calib_point *pt = &g->pts[worst[k]];
    explain(P, worst[k]);
    len += (size_t)snprintf(list + len, sizeof list - len, "\n  %s (%s): %+.0f %% (%+.1f sd): %s", pt->label, pt->where,
                            100 * (pt->fit - pt->y) / pt->y, (pt->fit - pt->y) / pt->sigma, pt->why);
  }
  return ls_error_set(err, LS_EINVALID, "calibrate %s: the model does not explain the measurements, so no profile is "
                      "written: worst point %.1f sd off (limit %g), reduced chi2 %.3g (limit %g, dof %d); deviations "
                      "include the models' %g %% resolution (docs/STATISTICS.md, \"Refusing a calibration\"). Worst "
                      "points:%s", g->name, zmax, Z_MAX, red, CHI2_RED_MAX, g->dof, 100 * TAU, list);
}

/* The CPU kernel's form by profile likelihood (issue 32): the roofline, max(W / BW, n f / F) from
 * batched_from on (no batch_group: every phone profile's form, devices/cpu.c), against the sum,
 * passes x W / BW + n f / F (the base's batch_group, or one pass over the weights for any batch,
 * LS_CALIB_ONEPASS, when the base has none). Each fitted with the same free parameters; the
 * base's form is kept unless the other lowers chi2 by more than SWITCH_CHI2, as the NPU's
 * tiles. A base with the tiles' remainder pass (batch_remainder) keeps its form: the roofline has
 * no remainder pass (scripts/testbed/kernel-form.sh ranks those forms). */
static void choose_cpu_form(prob *P)
{
  ls_calib_group *g = P->g;
  int base = P->cpu_base.batch_group;
  g->cpu_group = base;
  if (P->cpu_base.batch_remainder) {
    snprintf(g->note, sizeof g->note, "kernel form: the base's tiles (batch_group %d with its remainder pass)", base);
    return;
  }
  int form[2] = {base, base > 0 ? 0 : LS_CALIB_ONEPASS};
  double c2[2] = {INFINITY, INFINITY};
  for (int k = 0; k < 2; k++) {
    P->cpu_base.batch_group = form[k];
    double theta[LS_CALIB_MAXP] = {0};
    if (wls(P, theta, NULL, &c2[k]))
      c2[k] = INFINITY;
  }
  int pick = c2[1] < c2[0] - SWITCH_CHI2;
  P->cpu_base.batch_group = P->cpu.batch_group = g->cpu_group = form[pick];
  char f0[32], f1[32];
  snprintf(f0, sizeof f0, form[0] ? "sum (batch_group %d)" : "roofline", form[0]);
  snprintf(f1, sizeof f1, form[1] ? "sum (batch_group %d)" : "roofline", form[1]);
  snprintf(g->note, sizeof g->note, "kernel form by profile likelihood, chi2: %s %.4g (base), %s %.4g; chosen %s%s", f0,
           c2[0], f1, c2[1], pick ? f1 : f0, pick ? "" : " (the base: the other does not lower chi2 by more than 4)");
}

/* Profile likelihood over (tile, mat_min): keeps the base pair unless another fits clearly better. */
static void choose_tiles(prob *P)
{
  static const int cand[][2] = {{0, 0}, {16, 16}, {32, 32}, {64, 64}, {128, 128}};
  ls_calib_group *g = P->g;
  int bt = P->npu.dyn.tile, bm = P->npu.dyn.mat_min, best_t = bt, best_m = bm;
  double best = INFINITY, base_chi2 = INFINITY;
  size_t len = (size_t)snprintf(g->note, sizeof g->note, "tile/mat_min by profile likelihood, chi2:");
  for (size_t c = 0; c < sizeof cand / sizeof cand[0]; c++) {
    int t = c ? cand[c][0] : bt, m = c ? cand[c][1] : bm;
    if (c && t == bt && m == bm)
      continue;
    P->npu.dyn.tile = t;
    P->npu.dyn.mat_min = m;
    double theta[LS_CALIB_MAXP] = {0}, c2;
    if (wls(P, theta, NULL, &c2))
      continue;
    if (len + 1 < sizeof g->note)
      len += (size_t)snprintf(g->note + len, sizeof g->note - len, " %d/%d %.3g%s", t, m, c2, c ? "" : " (base)");
    if (c == 0)
      base_chi2 = c2;
    if (c2 < best) {
      best = c2;
      best_t = t;
      best_m = m;
    }
  }
  if (!(best < base_chi2 - SWITCH_CHI2)) {
    best_t = bt;
    best_m = bm;
  }
  if (len + 1 < sizeof g->note)
    snprintf(g->note + len, sizeof g->note - len, "; chosen %d/%d%s", best_t, best_m,
             best_t == bt && best_m == bm ? " (the base: no other pair lowers chi2 by more than 4)" : "");
  P->npu.dyn.tile = g->tile = best_t;
  P->npu.dyn.mat_min = g->mat_min = best_m;
}

/* ---- fitted curves for --plot ---- */

static ls_calib_curve *curve_for(ls_calib_group *g, const char *series)
{
  for (int c = 0; c < g->n_curves; c++)
    if (strcmp(g->curves[c].series, series) == 0)
      return NULL;
  if (g->n_curves == LS_CALIB_CURVES)
    return NULL;
  ls_calib_curve *c = &g->curves[g->n_curves++];
  snprintf(c->series, sizeof c->series, "%s", series);
  return c;
}

static void curves(prob *P)
{
  ls_calib_group *g = P->g;
  for (int i = 0; i < g->n_pts; i++) {
    const pt_src *s = &P->src[i];
    ls_calib_point *pt = &g->pts[i];
    if (s->kind == PT_BENCH)
      pt->pfit = (s->row->n_prompt + s->row->n_gen) / pt->fit;
    else
      pt->pfit = pt->fit;
    ls_calib_curve *c = curve_for(g, pt->series);
    if (!c)
      continue;
    for (int k = 0; k < LS_CALIB_CURVE_PTS; k++) {
      double u = k / (double)(LS_CALIB_CURVE_PTS - 1);
      if (s->kind == PT_BENCH) { /* prompt lengths 1..512, tokens/s of a ppN test */
        int n = (int)lround(pow(512.0, u));
        c->x[c->n] = n;
        c->y[c->n++] = n / pass_s(P, s, n, n / 2);
      } else if (s->kind == PT_FIO_BW) { /* block sizes 4 KiB..4 MiB */
        ls_fio_job j = *s->job;
        j.bs = 4096.0 * pow(1024.0, u);
        c->x[c->n] = j.bs;
        c->y[c->n++] = fio_bw(P, &j);
      } else { /* percentiles 1..95 */
        ls_fio_job j = *s->job;
        j.pct[0] = 1.0 + 94.0 * u;
        c->x[c->n] = j.pct[0];
        c->y[c->n++] = fio_pct(P, &j, 0);
      }
    }
  }
}

/* ---- the whole calibration ---- */

static int run_group(prob *P, const ls_device *base, const ls_calib_inputs *in, const char *root,
                     const ls_calib_options *o, ls_error *err)
{
  int defaulted = 0, rc;
  if (P->gid == LS_CALIB_GROUP_FLASH)
    rc = fio_points(P, in, &defaulted, err);
  else
    rc = bench_points(P, in, P->gid == LS_CALIB_GROUP_NPU ? LS_CALIB_NPU : LS_CALIB_CPU, root, &defaulted, err);
  if (rc)
    return rc;
  if (P->g->n_pts == 0)
    return (o && o->want[P->gid]) ? ls_error_set(err, LS_EINVALID, "calibrate %s: asked for, but no input has "
                                                  "measurements for it", P->g->name) : LS_OK;
  define_params(P, base);
  if ((rc = choose_free(P, o, err)))
    return rc;
  if (P->gid == LS_CALIB_GROUP_NPU)
    choose_tiles(P);
  else if (P->gid == LS_CALIB_GROUP_CPU && !(o && o->base_form))
    choose_cpu_form(P);
  else if (P->gid == LS_CALIB_GROUP_CPU)
    P->g->cpu_group = P->cpu_base.batch_group; /* the base's form, as asked */
  if ((rc = fit_group(P, err)) || (rc = check_fit(P, err)))
    return rc;
  if (defaulted) {
    size_t len = strlen(P->g->note);
    snprintf(P->g->note + len, sizeof P->g->note - len, "%s%d measurement%s without a deviation: %g %% assumed",
             len ? "; " : "", defaulted, defaulted == 1 ? "" : "s", SD_DEFAULT * 100);
  }
  curves(P);
  return LS_OK;
}

int ls_calibrate(const ls_device *base, const ls_calib_inputs *in, const char *data_root,
                 const ls_calib_options *opt, ls_calib_result *out, ls_error *err)
{
  static const char *const names[] = {"cpu", "npu", "flash"};
  memset(out, 0, sizeof *out);
  out->cpu = *ls_device_cpu(base);
  out->npu = *ls_device_npu(base);
  out->flash = *ls_device_flash(base);
  int has_npu_rows = 0;
  for (int i = 0; i < in->n_rows; i++)
    has_npu_rows |= in->rows[i].backend == LS_CALIB_NPU;
  if (has_npu_rows && !out->npu.dyn.present)
    return ls_error_set(err, LS_EINVALID, "calibrate: the base profile has no npu.q4_0_dynamic section to fit "
                        "the Hexagon rows to");
  int rc = LS_OK, only = opt && (opt->want[0] || opt->want[1] || opt->want[2]);
  for (int gid = 0; gid < LS_CALIB_GROUPS; gid++)
    snprintf(out->g[gid].name, sizeof out->g[gid].name, "%s", names[gid]);
  for (int gid = 0; gid < LS_CALIB_GROUPS && !rc; gid++) {
    if (only && !opt->want[gid])
      continue;
    prob P;
    memset(&P, 0, sizeof P);
    qcache qc;
    memset(&qc, 0, sizeof qc);
    P.qc = &qc;
    P.g = &out->g[gid];
    P.gid = (ls_calib_gid)gid;
    P.cpu = P.cpu_base = out->cpu;
    P.npu = out->npu;
    P.npu.regime = LS_NPU_Q4_0_DYNAMIC;
    P.npu.dyn.pad_small = 0;   /* llama-bench's batches are not padded */
    P.npu.dyn.matrix_path = 1; /* rows with a matrix rate come from builds that have one */
    P.fl = out->flash;
    rc = run_group(&P, base, in, data_root, opt, err);
    if (!rc && P.g->n_pts > 0) {
      if (gid == LS_CALIB_GROUP_CPU)
        out->cpu = P.cpu;
      else if (gid == LS_CALIB_GROUP_NPU) {
        int pad = out->npu.dyn.pad_small, mat = out->npu.dyn.matrix_path;
        out->npu.dyn = P.npu.dyn;
        out->npu.dyn.pad_small = pad; /* the profile's choices of build, not fitted */
        out->npu.dyn.matrix_path = mat;
      } else
        out->flash = P.fl;
    }
    free(P.src);
    free(P.use);
  }
  return rc;
}

int ls_calib_param_known(const char *name, char *list, unsigned size)
{
  static const char *const all[] = {"cpu.gemv_scale", "cpu.max_bandwidth", "cpu.flops_scale", "cpu.single_bandwidth",
                                    "cpu.remainder_bandwidth",
                                    "npu.q4_0_dynamic.op_call", "npu.q4_0_dynamic.weight_bandwidth",
                                    "npu.q4_0_dynamic.vec_flops", "npu.q4_0_dynamic.mat_flops",
                                    "flash.link_bandwidth", "flash.efficiency.page_cache", "flash.latency.median",
                                    "flash.latency.sigma"};
  int known = 0;
  size_t len = 0;
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    const char *dot = strrchr(all[i], '.');
    known |= strcmp(name, all[i]) == 0 || (dot && strcmp(name, dot + 1) == 0);
    if (list && len + 1 < size)
      len += (size_t)snprintf(list + len, size - len, "%s%s", i ? ", " : "", all[i]);
  }
  return known;
}

void ls_calib_result_free(ls_calib_result *r)
{
  for (int g = 0; g < LS_CALIB_GROUPS; g++) {
    free(r->g[g].pts);
    r->g[g].pts = NULL;
  }
}
