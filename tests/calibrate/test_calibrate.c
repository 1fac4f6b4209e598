/* tests/calibrate: `leversim calibrate` and its modules (runner/calib_input, runner/calibrate,
 * runner/calib_write).
 *  synthetic: measurements generated from known parameters (+ 2 % Gaussian noise, fixed seed)
 *    are fitted back: every parameter within 3 reported standard errors, in under a second.
 *  loo: leave-one-out by hand arithmetic (one free parameter: a weighted mean), the
 *    exactly-determined case (no cross-prediction), and LOO errors at least the residuals.
 *  parse: RFC 4180 CSV (quoted commas, quotes, line breaks), JSON and JSONL, fio options.
 *  bad_input: every bad-input case: located message, exit 65, no output file (nor .tmp).
 *  end_to_end: the shipped example measurements -> profile that validates and runs; a real
 *    fio run (two block sizes, ~1 s) calibrated end to end; --plot. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ls_test.h"
#include "policies/costmodel.h"
#include "runner/calibrate/calib_input.h"
#include "runner/calibrate/calibrate.h"
#include "runner/calibrate/calib_write.h"
#include "runner/cli/commands.h"
#include "workloads/model.h"

static char g_tmp[256];

static int init(void)
{
  snprintf(g_tmp, sizeof g_tmp, "/tmp/leversim-calib-%ld", (long)getpid());
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", g_tmp, g_tmp);
  return system(cmd) == 0 ? 0 : -1;
}

static int clean(void)
{
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
  return system(cmd) == 0 ? 0 : -1;
}

static const char *tmp_path(char *buf, size_t size, const char *name)
{
  snprintf(buf, size, "%s/%s", g_tmp, name);
  return buf;
}

static void write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(text, f);
  fclose(f);
}

static int exists(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0;
}

static ls_device *load_dev(const char *id)
{
  ls_device *d = NULL;
  ls_error err;
  CU_ASSERT_EQUAL(ls_device_load_id(&d, ls_data_root(), id, &err), LS_OK);
  return d;
}

static void costs(const char *model, ls_model_costs *c)
{
  ls_model *m;
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_model_load_id(&m, ls_data_root(), model, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_model_costs_get(m, "q4_0", c, &err), LS_OK);
  ls_model_free(m);
}

/* ---- synthetic measurements from known parameters ---- */

/* Independent restatement of what a llama-bench test costs (calibrate.c's top comment). */
static double test_seconds(const ls_npu_params *n, const ls_cpu_params *c, const ls_model_costs *m, int npu,
                           int threads, int pp, int tg)
{
  ls_layer_work w = ls_costmodel_layer_work(m);
  double head = (double)ls_cpu_lmhead_ns(c, m->lmhead_bytes, m->lmhead_flops_per_token, 1, threads);
  double t = 0;
  if (pp > 0)
    t += m->n_layers * (double)(npu ? ls_npu_layer_ns(n, &w, pp, pp / 2) : ls_cpu_layer_ns(c, &w, pp, pp / 2, threads)) + head;
  if (tg > 0) {
    int ctx = pp + tg / 2;
    t += tg * (m->n_layers * (double)(npu ? ls_npu_layer_ns(n, &w, 1, ctx) : ls_cpu_layer_ns(c, &w, 1, ctx, threads)) + head);
  }
  return t * 1e-9;
}

static void add_row(ls_calib_inputs *in, const char *model, ls_calib_backend b, int threads, int pp, int tg,
                    double seconds, double rel_sd, gsl_rng *r)
{
  if (in->n_rows == in->cap_rows) {
    in->cap_rows = in->cap_rows ? 2 * in->cap_rows : 32;
    in->rows = realloc(in->rows, (size_t)in->cap_rows * sizeof *in->rows);
  }
  ls_bench_row *x = &in->rows[in->n_rows++];
  memset(x, 0, sizeof *x);
  snprintf(x->where, sizeof x->where, "synthetic:%d", in->n_rows);
  snprintf(x->file, sizeof x->file, "synthetic");
  snprintf(x->tag, sizeof x->tag, "r%d", in->n_rows);
  snprintf(x->model, sizeof x->model, "%s", model);
  snprintf(x->quant, sizeof x->quant, "q4_0");
  x->backend = b;
  x->threads = threads;
  x->n_prompt = pp;
  x->n_gen = tg;
  double noisy = seconds * (1.0 + (r ? gsl_ran_gaussian(r, rel_sd) : 0.0));
  x->avg_ts = (pp + tg) / noisy;
  x->stddev_ts = x->avg_ts * rel_sd;
}

static const int PROMPTS[] = {1, 4, 8, 16, 25, 32, 48, 64, 96, 128};

/* Rows of both models at every prompt length + tg32, NPU and CPU (threads 1, 4, 8). */
static void synthetic_rows(ls_calib_inputs *in, const ls_npu_params *n, const ls_cpu_params *c, gsl_rng *r)
{
  static const char *const models[] = {"llama-3.2-1b", "qwen3-0.6b"};
  for (int k = 0; k < 2; k++) {
    ls_model_costs m;
    costs(models[k], &m);
    for (size_t i = 0; i < sizeof PROMPTS / sizeof PROMPTS[0]; i++)
      add_row(in, models[k], LS_CALIB_NPU, 4, PROMPTS[i], 0, test_seconds(n, c, &m, 1, 4, PROMPTS[i], 0), 0.02, r);
    add_row(in, models[k], LS_CALIB_NPU, 4, 0, 32, test_seconds(n, c, &m, 1, 4, 0, 32), 0.02, r);
    static const int threads[] = {1, 4, 8};
    for (int t = 0; t < 3; t++) {
      add_row(in, models[k], LS_CALIB_CPU, threads[t], 0, 32, test_seconds(n, c, &m, 0, threads[t], 0, 32), 0.02, r);
      add_row(in, models[k], LS_CALIB_CPU, threads[t], 64, 0, test_seconds(n, c, &m, 0, threads[t], 64, 0), 0.02, r);
    }
  }
}

/* The 8 Elite profile and its NPU/CPU parts as the fits see them (dynamic regime, no padding). */
static ls_device *truth_base(ls_npu_params *n, ls_cpu_params *c)
{
  ls_device *base = load_dev("honor-magic-v5");
  *n = *ls_device_npu(base);
  *c = *ls_device_cpu(base);
  n->regime = LS_NPU_Q4_0_DYNAMIC;
  n->dyn.pad_small = 0;
  return base;
}

static void check_within(const ls_calib_param *q, double truth, double k_se)
{
  CU_ASSERT_EQUAL(q->status, LS_CALIB_FITTED);
  CU_ASSERT(q->se > 0);
  if (!(fabs(q->value - truth) <= k_se * q->se))
    fprintf(stderr, "%s: fitted %g, true %g, se %g\n", q->name, q->value, truth, q->se);
  CU_ASSERT(fabs(q->value - truth) <= k_se * q->se);
}

/* Every point of every fitted group has a finite leave-one-out prediction that differs from its
 * fit (the refit without it ran), and calibrating the same rows again gives the same values,
 * fits and leave-one-out predictions bit for bit (no state carried between calls). */
static void check_loo_and_repeat(const ls_device *base, const ls_calib_inputs *in, const ls_calib_result *res)
{
  ls_calib_result again;
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_calibrate(base, in, ls_data_root(), NULL, &again, &err), LS_OK);
  for (int g = 0; g < LS_CALIB_GROUPS; g++) {
    const ls_calib_group *a = &res->g[g], *b = &again.g[g];
    CU_ASSERT_EQUAL_FATAL(a->n_pts, b->n_pts);
    CU_ASSERT_EQUAL(memcmp(&a->chi2, &b->chi2, sizeof a->chi2), 0);
    for (int k = 0; k < a->n_par; k++)
      CU_ASSERT_EQUAL(memcmp(&a->par[k].value, &b->par[k].value, sizeof(double)), 0);
    for (int i = 0; i < a->n_pts; i++) {
      CU_ASSERT(isfinite(a->pts[i].loo));
      CU_ASSERT(a->pts[i].loo != a->pts[i].fit);
      CU_ASSERT_EQUAL(memcmp(&a->pts[i].fit, &b->pts[i].fit, sizeof(double)), 0);
      CU_ASSERT_EQUAL(memcmp(&a->pts[i].loo, &b->pts[i].loo, sizeof(double)), 0);
    }
  }
  ls_calib_result_free(&again);
}

static void synthetic_recovery(void)
{
  ls_npu_params n;
  ls_cpu_params c;
  ls_device *base = truth_base(&n, &c);
  /* the truth: every fitted parameter away from the base */
  n.dyn.op_call_s = 0.2e-3, n.dyn.weight_bw = 40e9, n.dyn.vec_flops = 250e9, n.dyn.mat_flops = 420e9;
  for (int i = 0; i < c.n_clusters; i++) {
    c.cluster[i].gemv_bw_per_core *= 0.8;
    c.cluster[i].flops_per_cycle *= 1.25;
  }
  c.max_bw = 38e9;
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, 12345);
  ls_calib_inputs in;
  memset(&in, 0, sizeof in);
  synthetic_rows(&in, &n, &c, r);
  ls_calib_result res;
  ls_error err;
  int rc = ls_calibrate(base, &in, ls_data_root(), NULL, &res, &err);
  if (rc)
    ls_error_print(&err, stderr);
  CU_ASSERT_EQUAL_FATAL(rc, LS_OK);
  const ls_calib_group *N = &res.g[LS_CALIB_GROUP_NPU], *C = &res.g[LS_CALIB_GROUP_CPU];
  /* a whole profile, two groups, every row left out once: each point has its own refit, and a
   * second calibration of the same rows gives the same profile bit for bit */
  check_loo_and_repeat(base, &in, &res);
  CU_ASSERT_EQUAL(N->n_pts, 22);
  CU_ASSERT_EQUAL(C->n_pts, 12);
  check_within(&N->par[0], 0.2e-3, 3);
  check_within(&N->par[1], 40e9, 3);
  check_within(&N->par[2], 250e9, 3);
  check_within(&N->par[3], 420e9, 3);
  check_within(&C->par[0], 0.8, 3);
  check_within(&C->par[1], 38e9, 3);
  check_within(&C->par[2], 1.25, 3);
  CU_ASSERT_EQUAL(N->tile, 32);
  /* chi2 of a correct model with the true deviations: about dof */
  CU_ASSERT(N->chi2 < 3.0 * N->dof && C->chi2 < 3.0 * C->dof);
  ls_calib_result_free(&res);
  /* without noise the truth comes back almost exactly */
  ls_calib_inputs_free(&in);
  synthetic_rows(&in, &n, &c, NULL);
  CU_ASSERT_EQUAL_FATAL(ls_calibrate(base, &in, ls_data_root(), NULL, &res, &err), LS_OK);
  LS_ASSERT_CLOSE(res.g[LS_CALIB_GROUP_NPU].par[0].value, 0.2e-3, 1e-3);
  LS_ASSERT_CLOSE(res.g[LS_CALIB_GROUP_NPU].par[3].value, 420e9, 1e-3);
  LS_ASSERT_CLOSE(res.g[LS_CALIB_GROUP_CPU].par[1].value, 38e9, 1e-3);
  ls_calib_result_free(&res);
  ls_calib_inputs_free(&in);
  gsl_rng_free(r);
  ls_device_free(base);
}

/* The Honor Magic V5 profile with `extra` (whole lines) after its cpu.call_overhead, written to
 * path and loaded: a base with CPU keys no shipped phone states. */
static ls_device *base_with_cpu_lines(const char *extra, char *path, size_t size, const char *tag)
{
  char line[1024];
  snprintf(path, size, "/tmp/ls-calib-%s-%ld.yaml", tag, (long)getpid());
  snprintf(line, sizeof line, "%s/devices/profiles/honor-magic-v5.yaml", ls_data_root());
  FILE *in_f = fopen(line, "r"), *out_f = fopen(path, "w");
  CU_ASSERT_FATAL(in_f && out_f);
  while (fgets(line, sizeof line, in_f)) {
    fputs(line, out_f);
    if (!strncmp(line, "  call_overhead:", 16))
      fputs(extra, out_f);
  }
  fclose(in_f);
  CU_ASSERT_EQUAL_FATAL(fclose(out_f), 0);
  ls_device *base = NULL;
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_device_load(&base, path, &err), LS_OK);
  return base;
}

/* cpu.single_bandwidth (devices/cpu.c): with the key in the base, the CPU fit frees the one-token
 * kernel's rate and gets it back from rows made with it (the one-token rows, tg, set it apart from
 * the blocked kernel's rate); without the key the fit keeps its three parameters. */
static void synthetic_single_rate(void)
{
  char path[256];
  ls_error err;
  ls_device *base = base_with_cpu_lines("  single_bandwidth: 12 GB/s\n", path, sizeof path, "single");
  ls_npu_params n = *ls_device_npu(base);
  ls_cpu_params c = *ls_device_cpu(base);
  c.single_bw = 30e9; /* the truth, far from the base's 12 GB/s */
  for (int i = 0; i < c.n_clusters; i++)
    c.cluster[i].gemv_bw_per_core *= 0.8;
  ls_calib_inputs in;
  memset(&in, 0, sizeof in);
  synthetic_rows(&in, &n, &c, NULL);
  /* short prompts on one thread, where the blocked kernel streams the weights: they set its rate
   * apart from the one-token kernel's (tg) */
  static const int short_pp[] = {2, 4, 8};
  for (int k = 0; k < 2; k++) {
    const char *model = k ? "qwen3-0.6b" : "llama-3.2-1b";
    ls_model_costs m;
    costs(model, &m);
    for (int i = 0; i < 3; i++)
      add_row(&in, model, LS_CALIB_CPU, 1, short_pp[i], 0, test_seconds(&n, &c, &m, 0, 1, short_pp[i], 0), 0.02, NULL);
  }
  ls_calib_result res;
  CU_ASSERT_EQUAL_FATAL(ls_calibrate(base, &in, ls_data_root(), NULL, &res, &err), LS_OK);
  const ls_calib_group *C = &res.g[LS_CALIB_GROUP_CPU];
  CU_ASSERT_EQUAL_FATAL(C->n_par, 4);
  CU_ASSERT_STRING_EQUAL(C->par[3].name, "cpu.single_bandwidth");
  if (fabs(C->par[3].value / 30e9 - 1) > 1e-3) fprintf(stderr, "single %g (%d) gemv %g flops %g maxbw %g chi2 %g\n", C->par[3].value, C->par[3].status, C->par[0].value, C->par[2].value, C->par[1].value, C->chi2);
  LS_ASSERT_CLOSE(C->par[3].value, 30e9, 1e-3);
  LS_ASSERT_CLOSE(C->par[0].value, 0.8, 1e-3);
  LS_ASSERT_CLOSE(res.cpu.single_bw, 30e9, 1e-3);
  ls_calib_result_free(&res);
  ls_calib_inputs_free(&in);
  ls_device_free(base);
  /* the shipped profile has no key: three parameters, as before */
  base = load_dev("honor-magic-v5");
  memset(&in, 0, sizeof in);
  synthetic_rows(&in, ls_device_npu(base), ls_device_cpu(base), NULL);
  CU_ASSERT_EQUAL_FATAL(ls_calibrate(base, &in, ls_data_root(), NULL, &res, &err), LS_OK);
  CU_ASSERT_EQUAL(res.g[LS_CALIB_GROUP_CPU].n_par, 3);
  CU_ASSERT_EQUAL(res.cpu.single_bw, 0);
  ls_calib_result_free(&res);
  ls_calib_inputs_free(&in);
  ls_device_free(base);
  CU_ASSERT_EQUAL(remove(path), 0);
}

/* One-thread rows of 2 to 12 tokens, with and without a remainder, of two models made with c. */
static void remainder_rows(ls_calib_inputs *in, const ls_npu_params *n, const ls_cpu_params *c)
{
  static const int pp[] = {2, 3, 4, 5, 6, 7, 8, 12};
  for (int k = 0; k < 2; k++) {
    const char *model = k ? "qwen3-0.6b" : "llama-3.2-1b";
    ls_model_costs m;
    costs(model, &m);
    for (int i = 0; i < 8; i++)
      add_row(in, model, LS_CALIB_CPU, 1, pp[i], 0, test_seconds(n, c, &m, 0, 1, pp[i], 0), 0.02, NULL);
  }
}

/* cpu.remainder_bandwidth (devices/cpu.c): with the key in a base whose layers' kernel works in
 * tiles with a remainder, the CPU fit frees the remainder's rate as its fifth parameter (after
 * the one-token kernel's) and gets it back from one-thread rows of batches with and without a
 * remainder (5, 6 and 7 tokens against 4 and 8); the others come back with it. */
static void synthetic_remainder_rate(void)
{
  char path[256];
  ls_error err;
  ls_device *base = base_with_cpu_lines("  batched_from: 1\n  batch_group: 4\n  batch_remainder: true\n"
                                        "  single_bandwidth: 12 GB/s\n  remainder_bandwidth: 10 GB/s\n",
                                        path, sizeof path, "rem");
  ls_npu_params n = *ls_device_npu(base);
  ls_cpu_params c = *ls_device_cpu(base);
  c.single_bw = 30e9;
  c.remainder_bw = 25e9; /* the truth, far from the base's 10 GB/s */
  for (int i = 0; i < c.n_clusters; i++)
    c.cluster[i].gemv_bw_per_core *= 0.8;
  ls_calib_inputs in;
  memset(&in, 0, sizeof in);
  synthetic_rows(&in, &n, &c, NULL);
  remainder_rows(&in, &n, &c);
  ls_calib_result res;
  CU_ASSERT_EQUAL_FATAL(ls_calibrate(base, &in, ls_data_root(), NULL, &res, &err), LS_OK);
  const ls_calib_group *C = &res.g[LS_CALIB_GROUP_CPU];
  CU_ASSERT_EQUAL_FATAL(C->n_par, 5);
  CU_ASSERT_STRING_EQUAL(C->par[3].name, "cpu.single_bandwidth");
  CU_ASSERT_STRING_EQUAL(C->par[4].name, "cpu.remainder_bandwidth");
  LS_ASSERT_CLOSE(C->par[4].value, 25e9, 1e-3);
  LS_ASSERT_CLOSE(C->par[3].value, 30e9, 1e-3);
  LS_ASSERT_CLOSE(C->par[0].value, 0.8, 1e-3);
  LS_ASSERT_CLOSE(res.cpu.remainder_bw, 25e9, 1e-3);
  LS_ASSERT_CLOSE(res.cpu.single_bw, 30e9, 1e-3);
  CU_ASSERT_EQUAL(C->par[4].why[0], '\0');
  ls_calib_result_free(&res);
  ls_calib_inputs_free(&in);
  /* a remainder faster than cpu.max_bandwidth allows: the data bound the rate from below only,
   * so it is written at the cap (the cap held, as the testbed holds it), saying so */
  c.remainder_bw = 200e9;
  memset(&in, 0, sizeof in);
  synthetic_rows(&in, &n, &c, NULL);
  remainder_rows(&in, &n, &c);
  static const char *const hold[] = {"max_bandwidth", NULL};
  ls_calib_options o = {hold, {0}, 0};
  CU_ASSERT_EQUAL_FATAL(ls_calibrate(base, &in, ls_data_root(), &o, &res, &err), LS_OK);
  C = &res.g[LS_CALIB_GROUP_CPU];
  CU_ASSERT_EQUAL(C->par[4].status, LS_CALIB_FITTED);
  CU_ASSERT_DOUBLE_EQUAL(C->par[4].value, ls_device_cpu(base)->max_bw, 1e-3);
  CU_ASSERT_DOUBLE_EQUAL(res.cpu.remainder_bw, ls_device_cpu(base)->max_bw, 1e-3);
  CU_ASSERT_PTR_NOT_NULL(strstr(C->par[4].why, "lower bound"));
  CU_ASSERT_PTR_NOT_NULL(strstr(C->par[4].rows, "r"));
  LS_ASSERT_CLOSE(C->par[3].value, 30e9, 1e-3);
  ls_calib_result_free(&res);
  ls_calib_inputs_free(&in);
  ls_device_free(base);
  CU_ASSERT_EQUAL(remove(path), 0);
}

/* Tile choice by profile likelihood: data made with 64-token tiles move the choice to 64. */
static void synthetic_tiles(void)
{
  ls_npu_params n;
  ls_cpu_params c;
  ls_device *base = truth_base(&n, &c);
  n.dyn.tile = n.dyn.mat_min = 64;
  ls_calib_inputs in;
  memset(&in, 0, sizeof in);
  synthetic_rows(&in, &n, &c, NULL);
  ls_calib_result res;
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_calibrate(base, &in, ls_data_root(), NULL, &res, &err), LS_OK);
  CU_ASSERT_EQUAL(res.g[LS_CALIB_GROUP_NPU].tile, 64);
  CU_ASSERT_EQUAL(res.npu.dyn.mat_min, 64);
  ls_calib_result_free(&res);
  ls_calib_inputs_free(&in);
  ls_device_free(base);
}

/* A base whose build has no matrix path (the OnePlus 12's default, the paper's era) fitted to
 * rows from a build with one: the fit runs in the rows' build (it recovers the matrix rate,
 * which a vector-only fit could not) and the result keeps the base's choice of build. */
static void synthetic_matrix_build(void)
{
  ls_device *base = load_dev("oneplus-12");
  CU_ASSERT_EQUAL_FATAL(ls_device_npu(base)->dyn.matrix_path, 0);
  ls_npu_params n = *ls_device_npu(base);
  ls_cpu_params c = *ls_device_cpu(base);
  n.regime = LS_NPU_Q4_0_DYNAMIC;
  n.dyn.pad_small = 0;
  n.dyn.matrix_path = 1;
  ls_calib_inputs in;
  memset(&in, 0, sizeof in);
  synthetic_rows(&in, &n, &c, NULL);
  ls_calib_result res;
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_calibrate(base, &in, ls_data_root(), NULL, &res, &err), LS_OK);
  LS_ASSERT_CLOSE(res.g[LS_CALIB_GROUP_NPU].par[3].value, n.dyn.mat_flops, 1e-3);
  LS_ASSERT_CLOSE(res.g[LS_CALIB_GROUP_NPU].par[2].value, n.dyn.vec_flops, 1e-3);
  CU_ASSERT_EQUAL(res.npu.dyn.matrix_path, 0);
  ls_calib_result_free(&res);
  ls_calib_inputs_free(&in);
  ls_device_free(base);
}


/* Fits `truth`'s rows (synthetic_rows and one-thread short prompts) on the base at base_path,
 * writes the calibrated profile and loads it back: *group the form the fit chose, *written the
 * written profile's batch_group; the written text holds `want` (NULL: not checked). */
static void form_case(ls_device *base, const char *base_path, const ls_cpu_params *truth, int *group, int *written,
                      const char *want)
{
  ls_npu_params n = *ls_device_npu(base);
  ls_calib_inputs in;
  memset(&in, 0, sizeof in);
  synthetic_rows(&in, &n, truth, NULL);
  remainder_rows(&in, &n, truth);
  ls_calib_result res;
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_calibrate(base, &in, ls_data_root(), NULL, &res, &err), LS_OK);
  *group = res.g[LS_CALIB_GROUP_CPU].cpu_group;
  CU_ASSERT_EQUAL(res.cpu.batch_group, *group);
  char out[256], text[65536];
  snprintf(out, sizeof out, "/tmp/ls-calib-formout-%ld.yaml", (long)getpid());
  remove(out);
  int wrc = ls_calib_write_profile(base_path, "base", &res, "form-test", out, &err);
  if (wrc)
    ls_error_print(&err, stderr);
  CU_ASSERT_EQUAL_FATAL(wrc, LS_OK);
  ls_device *w = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_device_load(&w, out, &err), LS_OK);
  *written = ls_device_cpu(w)->batch_group;
  FILE *f = fopen(out, "r");
  size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
  text[len] = '\0';
  if (f)
    fclose(f);
  if (want)
    CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
  ls_device_free(w);
  CU_ASSERT_EQUAL(remove(out), 0);
  ls_calib_result_free(&res);
  ls_calib_inputs_free(&in);
}

/* The CPU kernel's form chosen by profile likelihood (calibrate.c, choose_cpu_form): rows made
 * with the sum (one pass over the weights for any batch, then every token's arithmetic) on a
 * roofline base choose the sum and the written profile gains its batch_group; rows made with the
 * roofline on a base with the sum choose the roofline and the written profile drops the key
 * (its line commented out); rows of the base's own form keep it. */
static void synthetic_cpu_form(void)
{
  char base_path[1024], sum_path[256];
  snprintf(base_path, sizeof base_path, "%s/devices/profiles/honor-magic-v5.yaml", ls_data_root());
  ls_device *roof = load_dev("honor-magic-v5");
  ls_cpu_params t = *ls_device_cpu(roof);
  int group, written;
  t.batch_group = LS_CALIB_ONEPASS; /* the truth: the sum */
  form_case(roof, base_path, &t, &group, &written, "batch_group: 1000000");
  CU_ASSERT_EQUAL(group, LS_CALIB_ONEPASS);
  CU_ASSERT_EQUAL(written, LS_CALIB_ONEPASS);
  t.batch_group = 0; /* the truth: the roofline, the base's form */
  form_case(roof, base_path, &t, &group, &written, NULL);
  CU_ASSERT_EQUAL(group, 0);
  CU_ASSERT_EQUAL(written, 0);
  ls_device *sum = base_with_cpu_lines("  batch_group: 1000000\n", sum_path, sizeof sum_path, "form");
  form_case(sum, sum_path, &t, &group, &written, "# batch_group: 1000000");
  CU_ASSERT_EQUAL(group, 0);
  CU_ASSERT_EQUAL(written, 0);
  ls_device_free(sum);
  ls_device_free(roof);
  CU_ASSERT_EQUAL(remove(sum_path), 0);
}

static CU_TestInfo synthetic_tests[] = {
    {"known parameters + noise recovered within 3 standard errors, < 1 s", synthetic_recovery},
    {"tile/mat_min chosen by profile likelihood", synthetic_tiles},
    {"rows of a build with a matrix path fit a base without one, which stays without", synthetic_matrix_build},
    {"the one-token kernel's rate fitted back where the base has the key", synthetic_single_rate},
    {"the remainder's rate fitted back where the base has the key", synthetic_remainder_rate},
    {"the CPU kernel's form (roofline or sum) chosen by the data and written", synthetic_cpu_form},
    CU_TEST_INFO_NULL};

/* ---- leave-one-out ---- */

static void add_job(ls_calib_inputs *in, double bs, int qd, double bw)
{
  if (in->n_jobs == in->cap_jobs) {
    in->cap_jobs = in->cap_jobs ? 2 * in->cap_jobs : 8;
    in->jobs = realloc(in->jobs, (size_t)in->cap_jobs * sizeof *in->jobs);
  }
  ls_fio_job *j = &in->jobs[in->n_jobs++];
  memset(j, 0, sizeof *j);
  snprintf(j->where, sizeof j->where, "fio:%d", in->n_jobs);
  snprintf(j->file, sizeof j->file, "fio");
  snprintf(j->tag, sizeof j->tag, "j%d", in->n_jobs);
  j->bs = bs;
  j->iodepth = qd;
  j->eff_qd = qd;
  j->direct = 1;
  j->bw = bw;
  j->iops = bw / bs;
}

/* One free parameter (the link rate, through link-bound 4 MiB reads at QD 32): with
 * sd_i = c y_i (2 % combined with the models' 10 %: c = sqrt(0.02^2 + 0.1^2)) the fit is B = sum(1/y) / sum(1/y^2) x (the read's own small overhead),
 * and each leave-one-out prediction the same sum without that job. */
#define C_SD sqrt(0.02 * 0.02 + 0.1 * 0.1)
static void loo_by_hand(void)
{
  ls_device *base = load_dev("oneplus-12");
  const double y[3] = {3.8e9, 4.0e9, 4.3e9};
  ls_calib_inputs in;
  memset(&in, 0, sizeof in);
  for (int i = 0; i < 3; i++)
    add_job(&in, 4194304.0, 32, y[i]);
  ls_calib_result res;
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_calibrate(base, &in, ls_data_root(), NULL, &res, &err), LS_OK);
  const ls_calib_group *F = &res.g[LS_CALIB_GROUP_FLASH];
  CU_ASSERT_EQUAL(F->par[0].status, LS_CALIB_FITTED);
  CU_ASSERT_EQUAL(F->par[1].status, LS_CALIB_UNDETERMINED); /* one read path */
  CU_ASSERT_EQUAL(F->par[2].status, LS_CALIB_UNDETERMINED); /* latency hidden by QD 32 */
  double s1 = 0, s2 = 0;
  for (int i = 0; i < 3; i++)
    s1 += 1 / y[i], s2 += 1 / (y[i] * y[i]);
  LS_ASSERT_CLOSE(F->pts[0].fit, s1 / s2, 1e-4);
  for (int i = 0; i < 3; i++) {
    double a = s1 - 1 / y[i], b = s2 - 1 / (y[i] * y[i]);
    LS_ASSERT_CLOSE(F->pts[i].loo, a / b, 1e-4);
  }
  /* the standard error of a weighted mean of 3 with chi2/dof scaling when > 1 */
  double mean = s1 / s2, chi2 = 0;
  for (int i = 0; i < 3; i++)
    chi2 += pow((mean - y[i]) / (C_SD * y[i]), 2);
  double se = mean / sqrt(s2 * mean * mean / (C_SD * C_SD)) * sqrt(fmax(1.0, chi2 / 2));
  LS_ASSERT_CLOSE(F->par[0].se / F->par[0].value, se / mean, 0.01);
  ls_calib_result_free(&res);
  ls_calib_inputs_free(&in);
  ls_device_free(base);
}

/* Above 100 points leave-one-out comes from the leverages (one Gauss-Newton step): for the
 * one-parameter case above, with 120 jobs, it must match the exact refit formula. */
static void loo_leverage_by_hand(void)
{
  ls_device *base = load_dev("oneplus-12");
  enum { N = 120 };
  double y[N];
  ls_calib_inputs in;
  memset(&in, 0, sizeof in);
  for (int i = 0; i < N; i++) {
    y[i] = 4.0e9 * (1 + 0.05 * sin(i * 1.7));
    add_job(&in, 4194304.0, 32, y[i]);
  }
  ls_calib_result res;
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_calibrate(base, &in, ls_data_root(), NULL, &res, &err), LS_OK);
  const ls_calib_group *F = &res.g[LS_CALIB_GROUP_FLASH];
  double s1 = 0, s2 = 0;
  for (int i = 0; i < N; i++)
    s1 += 1 / y[i], s2 += 1 / (y[i] * y[i]);
  double worst = 0, moved = 0;
  for (int i = 0; i < N; i++) {
    double a = s1 - 1 / y[i], b = s2 - 1 / (y[i] * y[i]), exact = a / b;
    worst = fmax(worst, fabs(F->pts[i].loo / exact - 1));
    moved = fmax(moved, fabs(exact / F->pts[i].fit - 1)); /* how far a left-out point moves the fit */
  }
  fprintf(stderr, "(leverage vs exact: %.2g, fit vs exact: %.2g) ", worst, moved);
  CU_ASSERT(worst < 0.05 * moved); /* the approximation is far closer than doing nothing */
  ls_calib_result_free(&res);
  ls_calib_inputs_free(&in);
  ls_device_free(base);
}

static void loo_properties(void)
{
  ls_npu_params n;
  ls_cpu_params c;
  ls_device *base = truth_base(&n, &c);
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, 7);
  ls_calib_inputs in;
  memset(&in, 0, sizeof in);
  synthetic_rows(&in, &n, &c, r);
  ls_calib_result res;
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_calibrate(base, &in, ls_data_root(), NULL, &res, &err), LS_OK);
  const ls_calib_group *N = &res.g[LS_CALIB_GROUP_NPU];
  int larger = 0;
  for (int i = 0; i < N->n_pts; i++) {
    CU_ASSERT(isfinite(N->pts[i].loo));
    larger += fabs(N->pts[i].loo - N->pts[i].y) >= fabs(N->pts[i].fit - N->pts[i].y) * 0.999;
  }
  CU_ASSERT(larger >= N->n_pts - 1); /* a point left out is predicted no better than fitted */
  ls_calib_result_free(&res);
  ls_calib_inputs_free(&in);
  /* exactly determined: 2 measurements, 2 parameters -> no cross-prediction */
  add_job(&in, 524288.0, 32, 4.0e9);
  add_job(&in, 524288.0, 32, 2.5e9);
  in.jobs[1].direct = 0;
  CU_ASSERT_EQUAL_FATAL(ls_calibrate(base, &in, ls_data_root(), NULL, &res, &err), LS_OK);
  CU_ASSERT_EQUAL(res.g[LS_CALIB_GROUP_FLASH].dof, 0);
  CU_ASSERT(isnan(res.g[LS_CALIB_GROUP_FLASH].pts[0].loo) && isnan(res.g[LS_CALIB_GROUP_FLASH].pts[1].loo));
  LS_ASSERT_CLOSE(res.g[LS_CALIB_GROUP_FLASH].pts[1].fit, 2.5e9, 1e-6);
  ls_calib_result_free(&res);
  ls_calib_inputs_free(&in);
  gsl_rng_free(r);
  ls_device_free(base);
}

/* 4000 fio jobs (4000 bandwidths and 26,000 latency percentiles): the fit completes and every
 * point has its leave-one-out prediction, by the leverage form above 100 points rather than a
 * refit per point (its cost is a benchmark's matter; no test asserts a time). */
static void many_jobs_linear(void)
{
  ls_device *base = load_dev("oneplus-12");
  ls_calib_inputs in;
  memset(&in, 0, sizeof in);
  static const double bs[4] = {4096, 131072, 524288, 524288};
  static const int qd[4] = {1, 1, 8, 32};
  for (int i = 0; i < 4000; i++) {
    add_job(&in, bs[i % 4], qd[i % 4], bs[i % 4] == 4096 ? 60e6 : qd[i % 4] == 1 ? 0.9e9 : 1.0e9);
    ls_fio_job *j = &in.jobs[in.n_jobs - 1];
    if (qd[i % 4] == 1) {
      for (int k = 0; k < 13; k++) {
        j->pct[k] = k == 0 ? 1 : k == 1 ? 5 : k * 10 - 10 + (k == 12 ? -5 : 0);
        j->clat_s[k] = (30e-6 + k * 2e-6) + bs[i % 4] / 2e9;
      }
      j->pct[12] = 95;
      j->n_pct = 13;
    }
  }
  ls_calib_result res;
  ls_error err;
  int rc = ls_calibrate(base, &in, ls_data_root(), NULL, &res, &err);
  CU_ASSERT(rc == LS_OK || rc == LS_EINVALID);
  if (rc == LS_OK) /* every point left out (the leverage form above 100 points) */
    for (int i = 0; i < res.g[LS_CALIB_GROUP_FLASH].n_pts; i++)
      CU_ASSERT(isfinite(res.g[LS_CALIB_GROUP_FLASH].pts[i].loo));
  ls_calib_result_free(&res);
  ls_calib_inputs_free(&in);
  ls_device_free(base);
}

static CU_TestInfo loo_tests[] = {{"one parameter: fit and leave-one-out by hand", loo_by_hand},
                                  {"leave-one-out properties, exact fits have none", loo_properties},
                                  {"leverage leave-one-out above 100 points matches the refit", loo_leverage_by_hand},
                                  {"4000 fio jobs: every point left out", many_jobs_linear},
                                  CU_TEST_INFO_NULL};

/* ---- parsing ---- */

#define ROW_OK "\"Llama-3.2-1B-Q4_0.gguf\",\"llama 1B Q4_0\",\"HTP\",\"4\",\"99\",\"128\",\"0\",\"755505000\",\"169.42\",\"1.75\",\"\"\n"
#define HDR "model_filename,model_type,backends,n_threads,n_gpu_layers,n_prompt,n_gen,avg_ns,avg_ts,stddev_ts,cpu_info\n"

static void parse_csv_rfc4180(void)
{
  char p[512];
  tmp_path(p, sizeof p, "q.csv");
  write_file(p, HDR "\"Llama-3.2-1B, \"\"instruct\"\"-Q4_0.gguf\",\"llama 1B Q4_0\",\"HTP\",\"4\",\"99\",\"128\",\"0\","
                    "\"755505000\",\"169.42\",\"1.75\",\"Oryon\nline two, with comma\"\r\n"
                    "Llama-3.2-1B-Q4_0.gguf,llama 1B Q4_0,CPU,8,0,0,64,\"1241754000\",51.54,0,\n");
  ls_calib_inputs in;
  memset(&in, 0, sizeof in);
  ls_error err;
  int rc = ls_calib_read_bench(&in, p, ls_data_root(), NULL, &err);
  if (rc)
    ls_error_print(&err, stderr);
  CU_ASSERT_EQUAL_FATAL(rc, LS_OK);
  CU_ASSERT_EQUAL_FATAL(in.n_rows, 2);
  CU_ASSERT_STRING_EQUAL(in.rows[0].model, "llama-3.2-1b");
  CU_ASSERT_EQUAL(in.rows[0].backend, LS_CALIB_NPU);
  CU_ASSERT_EQUAL(in.rows[0].n_prompt, 128);
  CU_ASSERT_DOUBLE_EQUAL(in.rows[0].avg_ts, 169.42, 1e-12);
  CU_ASSERT_EQUAL(in.rows[1].backend, LS_CALIB_CPU);
  CU_ASSERT_EQUAL(in.rows[1].threads, 8);
  /* the second record starts on line 4: the first one's cpu_info spans lines 2-3 */
  CU_ASSERT_PTR_NOT_NULL(strstr(in.rows[1].where, "q.csv:4"));
  ls_calib_inputs_free(&in);
}

/* Outputs of several llama-bench runs concatenated into one file: the repeated header lines
 * are skipped, every row is read, and rows keep their thread count and backend. */
static void parse_concatenated(void)
{
  char p[512];
  write_file(tmp_path(p, sizeof p, "cat.csv"), HDR ROW_OK HDR "\"Llama-3.2-1B-Q4_0.gguf\",\"llama 1B Q4_0\",\"CPU\",\"8\","
             "\"0\",\"0\",\"64\",\"1241754000\",\"51.54\",\"0\",\"\"\n");
  ls_calib_inputs in;
  memset(&in, 0, sizeof in);
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_calib_read_bench(&in, p, ls_data_root(), NULL, &err), LS_OK);
  CU_ASSERT_EQUAL_FATAL(in.n_rows, 2);
  CU_ASSERT_STRING_EQUAL(in.rows[0].backends, "HTP");
  CU_ASSERT_STRING_EQUAL(in.rows[1].backends, "CPU");
  CU_ASSERT_EQUAL(in.rows[1].threads, 8);
  CU_ASSERT_PTR_NOT_NULL(strstr(in.rows[1].where, "cat.csv:4"));
  ls_calib_inputs_free(&in);
}

static void parse_json_and_fio(void)
{
  char p[512], q[512];
  write_file(tmp_path(p, sizeof p, "b.jsonl"),
             "{\"model_filename\": \"qwen3-0.6b-q4_0.gguf\", \"model_type\": \"qwen3 0.6B Q4_0\", \"backends\": \"HTP\", "
             "\"n_threads\": 4, \"n_gpu_layers\": 99, \"n_prompt\": 0, \"n_gen\": 32, \"avg_ts\": 68.5, \"stddev_ts\": 0.5, "
             "\"no_kv_offload\": false, \"samples_ts\": [68.5]}\n\n"
             "{\"model_filename\": \"qwen3-0.6b-q4_0.gguf\", \"model_type\": \"qwen3 0.6B Q8_0\", \"backends\": \"OpenCL\", "
             "\"n_threads\": 4, \"n_gpu_layers\": 99, \"n_prompt\": 64, \"n_gen\": 0, \"avg_ts\": 300, \"stddev_ts\": 3}\n");
  write_file(tmp_path(q, sizeof q, "f.json"), /* fio's stdout may open with notes before the JSON */
             "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1\n"
             "{\"fio version\": \"fio-3.33\", \"global options\": {\"bs\": \"512k,4k\", \"iodepth\": \"32\", \"direct\": \"1\"},"
             " \"jobs\": [{\"jobname\": \"a\", \"job options\": {\"bs\": \"4k\", \"iodepth\": \"1\"}, \"read\": {\"bw_bytes\": "
             "40960000, \"bw\": 40000, \"iops\": 10000, \"clat_ns\": {\"percentile\": {\"50.000000\": 90000, "
             "\"1.000000\": 60000, \"99.000000\": 300000}}}},"
             " {\"jobname\": \"b\", \"read\": {\"bw_bytes\": 4000000000, \"iops\": 7629.39453125, \"clat_ns\": {}}},"
             " {\"jobname\": \"w\", \"read\": {\"io_bytes\": 0, \"bw_bytes\": 0, \"iops\": 0}}]}");
  ls_calib_inputs in;
  memset(&in, 0, sizeof in);
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_calib_read_bench(&in, p, ls_data_root(), NULL, &err), LS_OK);
  CU_ASSERT_EQUAL_FATAL(in.n_rows, 2);
  CU_ASSERT_STRING_EQUAL(in.rows[0].model, "qwen3-0.6b");
  CU_ASSERT_STRING_EQUAL(in.rows[1].quant, "q8_0");
  CU_ASSERT_EQUAL(in.rows[1].backend, LS_CALIB_OTHER); /* the Adreno GPU: read, not fitted */
  CU_ASSERT_PTR_NOT_NULL(strstr(in.rows[1].where, "b.jsonl:3"));
  CU_ASSERT_EQUAL_FATAL(ls_calib_read_fio(&in, q, &err), LS_OK);
  CU_ASSERT_EQUAL_FATAL(in.n_jobs, 2); /* the write-only job skipped */
  CU_ASSERT_DOUBLE_EQUAL(in.jobs[0].bs, 4096, 0);
  CU_ASSERT_EQUAL(in.jobs[0].iodepth, 1);
  CU_ASSERT_EQUAL(in.jobs[1].iodepth, 32); /* from the global options */
  CU_ASSERT_DOUBLE_EQUAL(in.jobs[1].bs, 524288, 0);
  CU_ASSERT_EQUAL(in.jobs[0].n_pct, 3);
  CU_ASSERT_DOUBLE_EQUAL(in.jobs[0].pct[0], 1.0, 0); /* sorted */
  CU_ASSERT_DOUBLE_EQUAL(in.jobs[0].clat_s[1], 90e-6, 1e-15);
  ls_calib_inputs_free(&in);
  /* model mapping rule: the longest id contained in the file name */
  char id[64];
  CU_ASSERT_EQUAL(ls_calib_model_for(ls_data_root(), "/sdcard/Qwen3-14B-Q4_0.gguf", id, &err), LS_OK);
  CU_ASSERT_STRING_EQUAL(id, "qwen3-14b");
  CU_ASSERT_EQUAL(ls_calib_model_for(ls_data_root(), "EAGLE3-Qwen3-4B.gguf", id, &err), LS_OK);
  CU_ASSERT_STRING_EQUAL(id, "eagle3-qwen3-4b");
}

/* llama-bench's default output, a Markdown table (after log lines, with a build line after):
 * model_type for the model, threads/ngl columns, ppN / tgN / ppN+tgM / " @ dD" tests, "avg ±
 * stddev" rates; the model named per file (FILE:MODEL) when model_type matches no id. */
static void parse_markdown(void)
{
  char p[512], args[1536], msg[4096];
  write_file(tmp_path(p, sizeof p, "b.md"),
             "load_backend: loaded CPU backend\n"
             "| model                          |       size |     params | backend    | threads |            test |                  t/s |\n"
             "| ------------------------------ | ---------: | ---------: | ---------- | ------: | --------------: | -------------------: |\n"
             "| qwen3 4B Q4_0                  |   2.21 GiB |     4.02 B | CPU        |       4 |           pp128 |         45.38 \xc2\xb1 0.16 |\n"
             "| qwen3 4B Q4_0                  |   2.21 GiB |     4.02 B | CPU        |       2 |            tg32 |          6.10 \xc2\xb1 0.05 |\n"
             "| qwen3 4B Q4_0                  |   2.21 GiB |     4.02 B | CPU        |       1 |  pp64+tg16 @ d128 |         12.00 |\n"
             "\nbuild: 8d13541 (1234)\n");
  ls_calib_inputs in;
  memset(&in, 0, sizeof in);
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_calib_read_bench(&in, p, ls_data_root(), NULL, &err), LS_OK);
  CU_ASSERT_EQUAL_FATAL(in.n_rows, 3);
  CU_ASSERT_STRING_EQUAL(in.rows[0].model, "qwen3-4b"); /* "qwen34bq40" contains "qwen34b" */
  CU_ASSERT_STRING_EQUAL(in.rows[0].quant, "q4_0");
  CU_ASSERT_EQUAL(in.rows[0].backend, LS_CALIB_CPU);
  CU_ASSERT_EQUAL(in.rows[0].threads, 4);
  CU_ASSERT_EQUAL(in.rows[0].n_prompt, 128);
  CU_ASSERT_EQUAL(in.rows[0].n_gen, 0);
  CU_ASSERT_DOUBLE_EQUAL(in.rows[0].avg_ts, 45.38, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(in.rows[0].stddev_ts, 0.16, 1e-12);
  CU_ASSERT_EQUAL(in.rows[1].n_gen, 32);
  CU_ASSERT_EQUAL(in.rows[2].n_prompt, 64);
  CU_ASSERT_EQUAL(in.rows[2].n_gen, 16);
  CU_ASSERT_EQUAL(in.rows[2].n_depth, 128);
  CU_ASSERT_DOUBLE_EQUAL(in.rows[2].stddev_ts, 0, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(in.rows[1].where, "b.md:5"));
  ls_calib_inputs_free(&in);
  /* a model_type that names no id: the refusal names the flag that fixes it */
  write_file(tmp_path(p, sizeof p, "l.md"),
             "| model | size | params | backend | ngl | test | t/s |\n|---|--:|--:|---|--:|--:|--:|\n"
             "| llama 8B Q4_0 | 4.3 GiB | 8.03 B | HTP | 99 | tg32 | 9.50 \xc2\xb1 0.10 |\n");
  memset(&in, 0, sizeof in);
  CU_ASSERT_EQUAL(ls_calib_read_bench(&in, p, ls_data_root(), NULL, &err), LS_EINVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ":MODEL"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "l.md:3"));
  ls_calib_inputs_free(&in);
  memset(&in, 0, sizeof in);
  CU_ASSERT_EQUAL_FATAL(ls_calib_read_bench(&in, p, ls_data_root(), "llama-3.1-8b", &err), LS_OK);
  CU_ASSERT_EQUAL(in.rows[0].backend, LS_CALIB_NPU);
  ls_calib_inputs_free(&in);
  /* per file on the command line: FILE:MODEL */
  snprintf(args, sizeof args, "calibrate --base oneplus-12 --only npu --llama-bench '%s:llama-3.1-8b' --out '%s'", p,
           tmp_path(msg, sizeof msg, "never.yaml"));
  int rc = ls_test_cli(args, msg, sizeof msg);
  CU_ASSERT_EQUAL(rc, 65); /* one row cannot fit the NPU: the refusal says how to fix it */
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "--fix op_call"));
  CU_ASSERT_PTR_NULL(strstr(msg, "unknown model"));
}

static CU_TestInfo parse_tests[] = {{"llama-bench's default Markdown table, FILE:MODEL", parse_markdown},{"RFC 4180 CSV: quoted commas, quotes, line breaks", parse_csv_rfc4180},
                                    {"concatenated llama-bench CSVs, thread count and backend", parse_concatenated},
                                    {"llama-bench JSONL, fio JSON options, model rule", parse_json_and_fio},
                                    CU_TEST_INFO_NULL};

/* ---- bad input: located error, exit 65, no output ---- */

/* Runs calibrate on one input file; expects exit 65, a message with `where` and `what`, no output. */
static void expect_bad(const char *name, const char *text, const char *flag, const char *where, const char *what)
{
  char in[512], out[512], tmp[600], args[2048], msg[4096];
  write_file(tmp_path(in, sizeof in, name), text);
  tmp_path(out, sizeof out, "bad-out.yaml");
  snprintf(tmp, sizeof tmp, "%s.tmp", out);
  snprintf(args, sizeof args, "calibrate --base honor-magic-v5 %s '%s' --out '%s'", flag, in, out);
  int rc = ls_test_cli(args, msg, sizeof msg);
  if (rc != 65 || !strstr(msg, where) || !strstr(msg, what))
    fprintf(stderr, "case %s: exit %d, message: %s", name, rc, msg);
  CU_ASSERT_EQUAL(rc, 65);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, where));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, what));
  CU_ASSERT(!exists(out) && !exists(tmp));
}

static void bad_malformed(void)
{
  expect_bad("m1.csv", HDR ROW_OK "\"Llama-3.2-1B-Q4_0.gguf,llama 1B Q4_0\n", "--llama-bench", "m1.csv:3",
             "unterminated quoted field");
  expect_bad("m2.csv", HDR ROW_OK "Llama,llama 1B Q4_0,HTP\n", "--llama-bench", "m2.csv:3", "3 fields, the header has 11");
  expect_bad("m3.json", "[\n  {\"model_filename\": \"x\",\n   \"avg_ts\": 1,,\n]\n", "--llama-bench", "m3.json:3",
             "malformed JSON");
  expect_bad("m4.json", "{\"fio version\": \"fio-3.33\", \"jobs\": [ {\"read\": {\"bw_bytes\": 1}\n", "--fio", "m4.json:",
             "malformed JSON");
}

static void bad_missing_column(void)
{
  expect_bad("c1.csv",
             "model_filename,model_type,backends,n_threads,n_gpu_layers,n_prompt,n_gen,avg_ts\n"
             "Llama-3.2-1B-Q4_0.gguf,llama 1B Q4_0,HTP,4,99,128,0,169.42\n",
             "--llama-bench", "c1.csv:1", "missing column 'stddev_ts'");
  expect_bad("c2.json", "[{\"model_filename\": \"Llama-3.2-1B-Q4_0.gguf\", \"model_type\": \"llama 1B Q4_0\", "
             "\"backends\": \"HTP\", \"n_threads\": 4, \"n_gpu_layers\": 99, \"n_prompt\": 128, \"avg_ts\": 169.42, "
             "\"stddev_ts\": 1.75}]", "--llama-bench", "c2.json: $[0]", "missing key 'n_gen'");
  expect_bad("c3.json", "{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"a\", \"read\": {\"iops\": 5}}]}", "--fio",
             "c3.json: $.jobs[0]", "missing key 'bw_bytes'");
}

/* A model id typed on the command line (--model ID, --llama-bench FILE:ID) that names no model
 * is "not found", 66, as `leversim run --model gpt-9` is; the message names the id and the
 * valid ones, and nothing is written. */
static void expect_unknown_id(const char *name, const char *args_fmt, const char *id)
{
  char in[512], out[512], flags[1024], args[2048], msg[4096];
  write_file(tmp_path(in, sizeof in, name), HDR ROW_OK);
  tmp_path(out, sizeof out, "bad-out.yaml");
  snprintf(flags, sizeof flags, args_fmt, in);
  snprintf(args, sizeof args, "calibrate --base honor-magic-v5 %s --out '%s'", flags, out);
  int rc = ls_test_cli(args, msg, sizeof msg);
  if (rc != 66) fprintf(stderr, "case %s: exit %d, message: %s", name, rc, msg);
  CU_ASSERT_EQUAL(rc, 66);
  char want[128];
  snprintf(want, sizeof want, "unknown model '%s' (valid: ", id);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, ":MODEL"));
  CU_ASSERT(!exists(out));
}

static void bad_unknown_model(void)
{
  /* a file's own model_filename that matches no model: bad data in the file, 65, located */
  expect_bad("u1.csv", HDR "\"Mistral-7B-Q4_0.gguf\",\"llama 7B Q4_0\",\"HTP\",\"4\",\"99\",\"128\",\"0\",\"755505000\","
             "\"169.42\",\"1.75\",\"\"\n", "--llama-bench", "u1.csv:2", "unknown model: 'Mistral-7B-Q4_0.gguf'");
  expect_unknown_id("u2.csv", "--model gpt-2 --llama-bench '%s'", "gpt-2");
  expect_unknown_id("u3.csv", "--llama-bench '%s:gpt-9'", "gpt-9");
  char out[4096]; /* the rule it follows: an unknown model id on the command line is 66 */
  CU_ASSERT_EQUAL(ls_test_cli("run --device oneplus-12 --model gpt-9 --dataset gsm8k --system lever", out, sizeof out), 66);
}

/* Noisy repetitions are not mixed units: three repetitions of a 16-token pass at 0.05, 0.05 and
 * 0.15 s give avg_ts 248.9 (the mean of the rates) and avg_ns 83.3 ms (192 tokens/s), 23 % apart,
 * as llama-bench itself writes them; the spread it reports (stddev_ts 123.2) explains the gap. The
 * same two figures with a tight spread are refused. */
static void noisy_reps_are_not_mixed_units(void)
{
  char p[512];
  tmp_path(p, sizeof p, "noisy.csv");
  write_file(p, HDR "\"Llama-3.2-1B-Q4_0.gguf\",\"llama 1B Q4_0\",\"CPU\",\"1\",\"0\",\"16\",\"0\",\"83333333\","
                    "\"248.89\",\"123.17\",\"\"\n");
  ls_calib_inputs in;
  memset(&in, 0, sizeof in);
  ls_error err;
  CU_ASSERT_EQUAL(ls_calib_read_bench(&in, p, ls_data_root(), NULL, &err), LS_OK);
  ls_calib_inputs_free(&in);
  expect_bad("tight.csv", HDR "\"Llama-3.2-1B-Q4_0.gguf\",\"llama 1B Q4_0\",\"CPU\",\"1\",\"0\",\"16\",\"0\",\"83333333\","
             "\"248.89\",\"5\",\"\"\n", "--llama-bench", "tight.csv:2", "mixed units");
}

static void bad_mixed_units(void)
{
  /* avg_ts in tokens/s but avg_ns in ms (755.5 "ns" for a 128-token pass of 0.76 s) */
  expect_bad("x1.csv", HDR "\"Llama-3.2-1B-Q4_0.gguf\",\"llama 1B Q4_0\",\"HTP\",\"4\",\"99\",\"128\",\"0\",\"755.5\","
             "\"169.42\",\"1.75\",\"\"\n", "--llama-bench", "x1.csv:2", "mixed units");
  /* fio bw (KiB/s) and bw_bytes disagree */
  expect_bad("x2.json", "{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"a\", \"job options\": {\"bs\": \"512k\"}, "
             "\"read\": {\"bw_bytes\": 4000000000, \"bw\": 4000000000, \"iops\": 7629.39, \"clat_ns\": {}}}]}", "--fio",
             "x2.json: $.jobs[0]", "mixed units");
  /* block size given in KiB where fio means bytes: bw_bytes / iops is 1024 x bs */
  expect_bad("x3.json", "{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"a\", \"job options\": {\"bs\": \"512\"}, "
             "\"read\": {\"bw_bytes\": 4000000000, \"iops\": 7629.39, \"clat_ns\": {}}}]}", "--fio", "x3.json: $.jobs[0]",
             "mixed units");
  /* fio 2.x latencies in microseconds */
  expect_bad("x4.json", "{\"fio version\": \"fio-2.2\", \"jobs\": [{\"jobname\": \"a\", \"job options\": {\"bs\": \"512k\"}, "
             "\"read\": {\"bw_bytes\": 4000000000, \"iops\": 7629.39, \"clat_us\": {}}}]}", "--fio", "x4.json: $.jobs[0]",
             "mixed units");
}

static void bad_rates(void)
{
  expect_bad("r1.csv", HDR "\"Llama-3.2-1B-Q4_0.gguf\",\"llama 1B Q4_0\",\"HTP\",\"4\",\"99\",\"128\",\"0\",\"755505000\","
             "\"-169.42\",\"1.75\",\"\"\n", "--llama-bench", "r1.csv:2", "avg_ts = -169.42: must be > 0");
  expect_bad("r2.csv", HDR "\"Llama-3.2-1B-Q4_0.gguf\",\"llama 1B Q4_0\",\"HTP\",\"4\",\"99\",\"128\",\"0\",\"\","
             "\"0\",\"0\",\"\"\n", "--llama-bench", "r2.csv:2", "avg_ts = 0: must be > 0");
  expect_bad("r3.json", "{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"a\", \"read\": {\"bw_bytes\": -5, "
             "\"iops\": 3, \"clat_ns\": {}}}]}", "--fio", "r3.json: $.jobs[0].read.bw_bytes", "= -5: must be a rate > 0");
}

static void bad_nan(void)
{
  expect_bad("n1.csv", HDR "\"Llama-3.2-1B-Q4_0.gguf\",\"llama 1B Q4_0\",\"HTP\",\"4\",\"99\",\"128\",\"0\",\"755505000\","
             "\"nan\",\"1.75\",\"\"\n", "--llama-bench", "n1.csv:2:79", "avg_ts = 'nan': must be a finite number");
  /* avg_ns of nan: refused, not taken as absent */
  expect_bad("n3.csv", HDR "\"Llama-3.2-1B-Q4_0.gguf\",\"llama 1B Q4_0\",\"HTP\",\"4\",\"99\",\"128\",\"0\",\"nan\","
             "\"169.42\",\"1.75\",\"\"\n", "--llama-bench", "n3.csv:2:67", "avg_ns = 'nan': must be a finite number");
  /* llama-bench's JSON printer writes a NaN rate as `nan`: not JSON */
  expect_bad("n2.json", "[\n  {\"model_filename\": \"Llama-3.2-1B-Q4_0.gguf\",\n    \"avg_ts\": nan,\n  \"n_gen\": 0}\n]\n",
             "--llama-bench", "n2.json:3", "malformed JSON");
}

#define FIO_OK_READ "\"read\": {\"io_bytes\": 1000, \"bw_bytes\": 4000000000, \"iops\": 7629.39, \"clat_ns\": {}}"
/* Fields that are used are validated, located by JSON path or file:line:col, with the bad value. */
static void bad_fields(void)
{
  expect_bad("f1.json", "{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"a\", \"job options\": {\"bs\": "
             "\"512k\", \"direct\": \"maybe\"}, " FIO_OK_READ "}]}", "--fio", "f1.json: $.jobs[0][\"job options\"].direct",
             "'maybe': must be 0 or 1");
  expect_bad("f2.json", "{\"fio version\": \"fio-3.33\", \"global options\": {\"direct\": \"2\", \"bs\": \"512k\"}, "
             "\"jobs\": [{\"jobname\": \"a\", " FIO_OK_READ "}]}", "--fio", "f2.json: $[\"global options\"].direct",
             "'2': must be 0 or 1");
  expect_bad("f3.json", "{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"a\", \"error\": 5, \"job options\": "
             "{\"bs\": \"512k\"}, " FIO_OK_READ "}]}", "--fio", "f3.json: $.jobs[0].error", "= 5: fio reports that this job failed");
  expect_bad("f4.json", "{\"fio version\": \"fio-3.33\",\n \"jobs\": [{\"jobname\": \"a\", \"jobname\": \"b\", "
             FIO_OK_READ "}]}", "--fio", "f4.json:2:", "duplicate");
  expect_bad("f5.json", "{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"a\", \"job options\": {\"bs\": "
             "\"512k\", \"iodepth\": \"8x\"}, " FIO_OK_READ "}]}", "--fio", "f5.json: $.jobs[0][\"job options\"].iodepth",
             "'8x'");
  expect_bad("f6.json", "{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"a\", \"job options\": {\"bs\": "
             "\"huge\"}, " FIO_OK_READ "}]}", "--fio", "f6.json: $.jobs[0][\"job options\"].bs", "'huge': not a size");
  expect_bad("f7.json", "{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"a\", \"read\": {\"io_bytes\": 1, "
             "\"bw_bytes\": 4000000000, \"iops\": \"lots\", \"clat_ns\": {}}}]}", "--fio", "f7.json: $.jobs[0].read.iops",
             "expected a number");
  /* llama-bench: counts must be whole numbers, a NaN is not "absent" */
  expect_bad("l1.csv", HDR "\"Llama-3.2-1B-Q4_0.gguf\",\"llama 1B Q4_0\",\"HTP\",\"4\",\"99\",\"128.5\",\"0\",\"755505000\","
             "\"169.42\",\"1.75\",\"\"\n", "--llama-bench", "l1.csv:2:57", "n_prompt = 128.5: must be a whole number");
  expect_bad("l2.json", "[{\"model_filename\": \"Llama-3.2-1B-Q4_0.gguf\", \"model_type\": \"llama 1B Q4_0\", "
             "\"backends\": \"HTP\", \"n_threads\": 4, \"n_gpu_layers\": 99, \"n_prompt\": 128.5, \"n_gen\": 0, "
             "\"avg_ts\": 169.42, \"stddev_ts\": 1.75}]", "--llama-bench", "l2.json: $[0].n_prompt",
             "n_prompt = 128.5: must be a whole number");
  expect_bad("l3.json", "[{\"model_filename\": \"Llama-3.2-1B-Q4_0.gguf\", \"model_type\": \"llama 1B Q4_0\", "
             "\"backends\": \"HTP\", \"n_threads\": 4, \"n_gpu_layers\": 99, \"n_prompt\": 128, \"n_gen\": 0, "
             "\"avg_ts\": 169.42, \"stddev_ts\": 1.75, \"avg_ns\": \"nan\"}]", "--llama-bench", "l3.json: $[0].avg_ns",
             "must be a finite number");
  expect_bad("l4.json", "[{\"model_filename\": \"a\", \"model_filename\": \"b\"}]", "--llama-bench", "l4.json:1:",
             "duplicate");
}

/* Command-line checks made before anything is read or written. */
static void bad_command_line(void)
{
  char in[512], out[512], args[2048], msg[4096], plot[512];
  write_file(tmp_path(in, sizeof in, "ok.json"), "{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"a\", "
             "\"job options\": {\"bs\": \"512k\", \"iodepth\": \"32\", \"direct\": \"1\"}, " FIO_OK_READ "}]}");
  tmp_path(out, sizeof out, "cl-out.yaml");
  /* an unknown --fix name: usage, 64 */
  snprintf(args, sizeof args, "calibrate --base oneplus-12 --fio '%s' --out '%s' --fix op_cal", in, out);
  CU_ASSERT_EQUAL(ls_test_cli(args, msg, sizeof msg), 64);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "unknown parameter 'op_cal'"));
  CU_ASSERT(!exists(out));
  /* a missing measurement file: 66 */
  snprintf(args, sizeof args, "calibrate --base oneplus-12 --fio '%s.missing' --out '%s'", in, out);
  CU_ASSERT_EQUAL(ls_test_cli(args, msg, sizeof msg), 66);
  CU_ASSERT(!exists(out));
  /* --plot into a folder whose parent is missing: refused before the profile is written */
  tmp_path(plot, sizeof plot, "no/such/plots");
  snprintf(args, sizeof args, "calibrate --base oneplus-12 --fio '%s' --out '%s' --plot '%s'", in, out, plot);
  CU_ASSERT_NOT_EQUAL(ls_test_cli(args, msg, sizeof msg), 0);
  CU_ASSERT(!exists(out));
  /* a --plot folder that does not exist yet is made */
  tmp_path(plot, sizeof plot, "new-plots");
  snprintf(args, sizeof args, "calibrate --base oneplus-12 --fio '%s' --out '%s' --plot '%s'", in, out, plot);
  int rc = ls_test_cli(args, msg, sizeof msg);
  if (rc)
    fprintf(stderr, "%s\n", msg);
  CU_ASSERT_EQUAL(rc, 0);
  CU_ASSERT(exists(out));
  snprintf(args, sizeof args, "%s/calibrate-flash.png", plot);
  CU_ASSERT(exists(args));
  remove(out);
}

static void bad_other_tool(void)
{
  expect_bad("o1.csv", "terse_version_3,fio-3.33,job,0,0\n3;fio-3.33;job;0;0\n", "--llama-bench", "o1.csv:1",
             "not llama-bench output");
  expect_bad("o2.json", "{\"fio version\": \"fio-3.33\", \"jobs\": []}", "--llama-bench", "o2.json: $", "a fio result");
  expect_bad("o3.json", "[{\"model_filename\": \"x\", \"avg_ts\": 1}]", "--fio", "o3.json: $", "not fio JSON");
  expect_bad("o4.txt", "Device,Sequential Read\nUFS,4000 MB/s\n", "--fio", "o4.txt:1", "not fio JSON");
}

static void bad_undetermined(void)
{
  /* one prompt length of one model: op_call, weight_bandwidth and mat_flops cannot be separated */
  expect_bad("d1.csv", HDR ROW_OK, "--llama-bench", "calibrate npu", "cannot determine");
  expect_bad("d2.csv", HDR ROW_OK "\"Llama-3.2-1B-Q4_0.gguf\",\"llama 1B Q4_0\",\"HTP\",\"4\",\"99\",\"0\",\"64\",\"1241754000\","
             "\"51.54\",\"1.13\",\"\"\n\"Llama-3.2-1B-Q4_0.gguf\",\"llama 1B Q4_0\",\"HTP\",\"4\",\"99\",\"0\",\"32\","
             "\"620000000\",\"51.6\",\"1.13\",\"\"\n", "--llama-bench", "calibrate npu", "cannot tell");
}

static CU_TestInfo bad_tests[] = {{"malformed CSV and JSON", bad_malformed},
                                  {"missing column / key", bad_missing_column},
                                  {"unknown model", bad_unknown_model},
                                  {"mixed units", bad_mixed_units},
                                  {"noisy repetitions are not mixed units", noisy_reps_are_not_mixed_units},
                                  {"negative and zero rates", bad_rates},
                                  {"NaN", bad_nan},
                                  {"fio and llama-bench fields: located, with the bad value", bad_fields},
                                  {"--fix names, missing files, --plot folder", bad_command_line},
                                  {"a file from another tool", bad_other_tool},
                                  {"inputs that cannot determine the parameters", bad_undetermined},
                                  CU_TEST_INFO_NULL};

/* ---- end to end ---- */

static void examples_end_to_end(void)
{
  char out[512], args[2048], msg[16384];
  tmp_path(out, sizeof out, "p.yaml");
  snprintf(args, sizeof args, "calibrate --base oneplus-12 --model qwen3-4b --fix op_call --llama-bench "
           "devices/measurements/8gen3-qwen3.5-4b-hexagon.csv --fio devices/measurements/8gen3-ufs40-fio.json --out '%s'", out);
  int rc = ls_test_cli(args, msg, sizeof msg);
  if (rc)
    fprintf(stderr, "%s\n", msg);
  CU_ASSERT_EQUAL_FATAL(rc, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "leave-one-out"));
  snprintf(args, sizeof args, "profiles validate '%s'", out);
  CU_ASSERT_EQUAL(ls_test_cli(args, msg, sizeof msg), 0);
  /* the profile file runs (a relative path: run records keep the device name) */
  char cwd_out[64];
  snprintf(cwd_out, sizeof cwd_out, "build/calib-test-%ld.yaml", (long)getpid());
  snprintf(args, sizeof args, "cp '%s' '%s'", out, cwd_out);
  CU_ASSERT_EQUAL_FATAL(system(args), 0);
  snprintf(args, sizeof args, "run --device %s --model qwen3-4b --dataset mt-bench --system lever --prompts 1 --tokens 8",
           cwd_out);
  rc = ls_test_cli(args, msg, sizeof msg);
  if (rc)
    fprintf(stderr, "%s\n", msg);
  CU_ASSERT_EQUAL(rc, 0);
  remove(cwd_out);
  /* the fitted numbers carry their comments */
  FILE *f = fopen(out, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  size_t n = fread(msg, 1, sizeof msg - 1, f);
  msg[n] = '\0';
  fclose(f);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "weight_bandwidth: 22.06 GB/s # calibrated: devices/measurements/"
                                     "8gen3-qwen3.5-4b-hexagon.csv, rows r2, \u00b1"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "page_cache: 0.6049"));
}

/* Reads a whole small file into buf. */
static void slurp_into(const char *path, char *buf, size_t size)
{
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(buf, 1, size - 1, f) : 0;
  buf[n] = '\0';
  if (f)
    fclose(f);
}

/* The number after `key` in text (the first occurrence), NAN when absent. */
static double number_after(const char *text, const char *key)
{
  const char *p = strstr(text, key);
  return p ? strtod(p + strlen(key), NULL) : NAN;
}

/* The README's fio loop as run on the development machine (tests/calibrate/fixtures): both
 * files together calibrate to a sane profile that runs; the buffered file's small-block job is
 * listed, not fitted; the page-cache efficiency stays in (0, 1). */
static void fixture_fio(void)
{
  char dir[512], out[600], args[2048], msg[32768];
  tmp_path(dir, sizeof dir, "fixture-plots");
  snprintf(out, sizeof out, "build/calib-fixture-%ld.yaml", (long)getpid());
  snprintf(args, sizeof args, "calibrate --base oneplus-12 --fio tests/calibrate/fixtures/linux-vm-fio-direct1.json "
           "tests/calibrate/fixtures/linux-vm-fio-direct0.json --out %s --plot '%s'", out, dir);
  int rc = ls_test_cli(args, msg, sizeof msg);
  if (rc)
    fprintf(stderr, "%s\n", msg);
  CU_ASSERT_EQUAL_FATAL(rc, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "1 buffered job below 128 KiB not fitted"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "4 threads") == NULL ? msg : msg); /* no bench rows here */
  char prof[16384];
  slurp_into(out, prof, sizeof prof);
  double link = number_after(prof, "link_bandwidth: "), pc = number_after(prof, "page_cache: "),
         med = number_after(prof, "    median: ");
  CU_ASSERT(link > 1.0 && link < 2.0);  /* GB/s: the disk's direct reads top out near 1 GB/s */
  CU_ASSERT(pc > 0.15 && pc < 0.5);     /* buffered large reads ran at ~0.36-0.42 GB/s */
  CU_ASSERT(med > 20 && med < 60);      /* us: the direct 4 KiB median was 34 us + 17 us slat */
  snprintf(args, sizeof args, "run --device %s --model qwen3-4b --dataset gsm8k --system lever --prompts 1 --tokens 8",
           out);
  rc = ls_test_cli(args, msg, sizeof msg);
  if (rc)
    fprintf(stderr, "%s\n", msg);
  CU_ASSERT_EQUAL(rc, 0);
  remove(out);
  snprintf(args, sizeof args, "%s/calibrate-flash.png", dir);
  CU_ASSERT(exists(args));
  snprintf(args, sizeof args, "%s/calibrate-flash.gp", dir);
  slurp_into(args, msg, sizeof msg);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "set title"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "read bandwidth (GB/s)"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "set key outside"));
}

#define FIO_HEAD "{\"fio version\": \"fio-3.33\", \"global options\": {\"rw\": \"randread\", \"ioengine\": \"libaio\"}, \"jobs\": ["
/* One fio job's JSON: bs in KiB, iodepth, direct, bandwidth in B/s (deviation 1 %). */
static void fio_job_json(char *buf, size_t size, int kib, int qd, int direct, double bw)
{
  double iops = bw / (kib * 1024.0);
  snprintf(buf, size, "{\"jobname\": \"j\", \"error\": 0, \"job options\": {\"bs\": \"%dk\", \"iodepth\": \"%d\", "
           "\"direct\": \"%d\"}, \"read\": {\"io_bytes\": 1000000, \"bw_bytes\": %.0f, \"bw\": %.0f, \"bw_dev\": %.0f, "
           "\"iops\": %.6f, \"clat_ns\": {}}}", kib, qd, direct, bw, bw / 1024, bw / 1024 * 0.01, iops);
}

/* A fit the model cannot explain is refused (exit 65) naming its worst points, and writes
 * nothing; so are reads that came from the page cache. */
static void refused_fits(void)
{
  char j[4][512], doc[4096], in[512], out[512], args[2048], msg[8192];
  /* link-bound 512 KiB reads: 4 GB/s at QD 32 but 0.4 GB/s at QD 16, 1.5 GB/s at QD 8 */
  fio_job_json(j[0], sizeof j[0], 512, 32, 1, 4.0e9);
  fio_job_json(j[1], sizeof j[1], 512, 16, 1, 0.4e9);
  fio_job_json(j[2], sizeof j[2], 512, 8, 1, 1.5e9);
  fio_job_json(j[3], sizeof j[3], 4, 1, 1, 60e6);
  snprintf(doc, sizeof doc, FIO_HEAD "%s, %s, %s, %s]}", j[0], j[1], j[2], j[3]);
  write_file(tmp_path(in, sizeof in, "nonsense.json"), doc);
  tmp_path(out, sizeof out, "nonsense.yaml");
  snprintf(args, sizeof args, "calibrate --base oneplus-12 --fio '%s' --out '%s'", in, out);
  int rc = ls_test_cli(args, msg, sizeof msg);
  CU_ASSERT_EQUAL(rc, 65);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "the model does not explain the measurements, so no profile is written"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "Worst points:"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "bs 512 KiB qd 16 direct: bandwidth"));
  CU_ASSERT_PTR_NULL(strstr(msg, ".tmp"));
  CU_ASSERT(!exists(out));
  /* buffered large reads twice as fast as the direct ones: the page-cache path cannot beat
   * the link (its efficiency is a fraction in (0, 1)), so these hit the page cache */
  fio_job_json(j[0], sizeof j[0], 512, 32, 1, 1.0e9);
  fio_job_json(j[1], sizeof j[1], 128, 1, 1, 0.7e9);
  fio_job_json(j[2], sizeof j[2], 512, 8, 0, 2.5e9);
  fio_job_json(j[3], sizeof j[3], 1024, 8, 0, 2.6e9);
  snprintf(doc, sizeof doc, FIO_HEAD "%s, %s, %s, %s]}", j[0], j[1], j[2], j[3]);
  write_file(in, doc);
  rc = ls_test_cli(args, msg, sizeof msg);
  CU_ASSERT_EQUAL(rc, 65);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "faster than the flash link"));
  CU_ASSERT(!exists(out));
  /* buffered reads of 2 us and 4 us a request: every one a page-cache hit */
  fio_job_json(j[0], sizeof j[0], 4, 1, 0, 2.0e9);
  fio_job_json(j[1], sizeof j[1], 128, 1, 0, 30.0e9);
  snprintf(doc, sizeof doc, FIO_HEAD "%s, %s]}", j[0], j[1]);
  write_file(in, doc);
  rc = ls_test_cli(args, msg, sizeof msg);
  CU_ASSERT_EQUAL(rc, 65);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "every fio job read from the page cache"));
  CU_ASSERT(!exists(out));
  /* buffered 512 KiB reads at 20 GB/s (over 25 us each): the link would exceed 2 UFS lanes */
  fio_job_json(j[0], sizeof j[0], 512, 8, 0, 20e9);
  fio_job_json(j[1], sizeof j[1], 1024, 8, 0, 21e9);
  snprintf(doc, sizeof doc, FIO_HEAD "%s, %s]}", j[0], j[1]);
  write_file(in, doc);
  rc = ls_test_cli(args, msg, sizeof msg);
  CU_ASSERT_EQUAL(rc, 65);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "exceeds what 2 lanes"));
  CU_ASSERT(!exists(out));
}

/* A fresh capture with the README's loop (short: 1 s a job) when fio is installed: it either
 * calibrates to a profile that validates, or is refused by the rule (65, nothing written);
 * never another exit, never a temporary file named. Skipped plainly without fio. */
static void real_fio(void)
{
  if (system("command -v fio > /dev/null 2>&1") != 0) {
    fprintf(stderr, "skipped: fio is not installed\n");
    return;
  }
  char dir[512], out[600], args[4096], msg[32768];
  tmp_path(dir, sizeof dir, "fio");
  snprintf(out, sizeof out, "%s/fio-profile.yaml", dir);
  snprintf(args, sizeof args, "mkdir -p '%s' && cd '%s' && for d in 1 0; do fio --filename=fio.dat --size=128m "
           "--direct=$d --invalidate=1 --rw=randread --ioengine=libaio --runtime=1 --time_based --stonewall "
           "--output-format=json --name=bs4k-qd1 --bs=4k --iodepth=1 --name=bs128k-qd1 --bs=128k --iodepth=1 "
           "--name=bs512k-qd8 --bs=512k --iodepth=8 --name=bs512k-qd32 --bs=512k --iodepth=32 > fio-direct$d.json "
           "2>/dev/null || exit 1; done; rm -f fio.dat", dir, dir);
  if (system(args) != 0) { /* a file system that refuses O_DIRECT (tmpfs) */
    fprintf(stderr, "skipped: fio could not run the README's loop in %s\n", dir);
    return;
  }
  ls_calib_inputs in;
  memset(&in, 0, sizeof in);
  ls_error err;
  snprintf(args, sizeof args, "%s/fio-direct1.json", dir);
  CU_ASSERT_EQUAL_FATAL(ls_calib_read_fio(&in, args, &err), LS_OK);
  CU_ASSERT_EQUAL(in.n_jobs, 4);
  CU_ASSERT(in.jobs[0].n_pct >= 10 && in.jobs[0].slat_s > 0 && in.jobs[3].eff_qd == 32);
  snprintf(args, sizeof args, "%s/fio-direct0.json", dir);
  CU_ASSERT_EQUAL_FATAL(ls_calib_read_fio(&in, args, &err), LS_OK);
  CU_ASSERT_EQUAL(in.jobs[7].eff_qd, 1); /* buffered random libaio: one request in flight */
  ls_calib_inputs_free(&in);
  snprintf(args, sizeof args, "calibrate --base oneplus-12 --fio '%s/fio-direct1.json' '%s/fio-direct0.json' --out '%s' "
           "--plot '%s'", dir, dir, out, dir);
  int rc = ls_test_cli(args, msg, sizeof msg);
  fprintf(stderr, "(fresh capture: exit %d) ", rc);
  CU_ASSERT(rc == 0 || rc == 65);
  CU_ASSERT_PTR_NULL(strstr(msg, ".tmp"));
  if (rc == 0) {
    snprintf(args, sizeof args, "profiles validate '%s'", out);
    CU_ASSERT_EQUAL(ls_test_cli(args, msg, sizeof msg), 0);
    snprintf(args, sizeof args, "%s/calibrate-flash.png", dir);
    CU_ASSERT(exists(args));
  } else {
    CU_ASSERT(strstr(msg, "no profile is written") != NULL);
    CU_ASSERT(!exists(out));
  }
}

static CU_TestInfo e2e_tests[] = {{"example measurements -> valid profile that runs", examples_end_to_end},
                                  {"this machine's fio capture (fixture) -> sane profile that runs", fixture_fio},
                                  {"fits the model cannot explain, and page-cache reads, are refused", refused_fits},
                                  {"a fresh fio capture (README loop, 1 s a job) when fio is installed", real_fio},
                                  CU_TEST_INFO_NULL};

static CU_SuiteInfo suites[] = {{"synthetic", init, clean, NULL, NULL, synthetic_tests},
                                {"loo", init, clean, NULL, NULL, loo_tests},
                                {"parse", init, clean, NULL, NULL, parse_tests},
                                {"bad_input", init, clean, NULL, NULL, bad_tests},
                                {"end_to_end", init, clean, NULL, NULL, e2e_tests},
                                CU_SUITE_INFO_NULL};

int main(int argc, char **argv) { return ls_test_main(argc, argv, suites); }
