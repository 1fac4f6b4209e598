/* runner/bench_cycle: 'leversim bench cycle' — wall time per simulated decode cycle.
 *
 * For each system (default ar-flash, specinfer, lever) on one configuration (default
 * OnePlus 12 / Llama-3.1-8B / gsm8k), one untimed run warms the loaded data, then --repeats
 * runs are timed with CLOCK_MONOTONIC around ls_decode_run. A repeat's figure is its wall
 * time divided by the run's decode cycles (metric "cycles"), so prefill is charged to the
 * cycles too (it is one pass per prompt against tens of cycles). Printed: median and
 * interquartile range over the repeats. --set passes settings through, e.g.
 * device.flash.sim=events to time the per-request event model. A measurement, never a test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"
#include "runner/decode/decode.h"
#include "runner/study/experiment.h"

#define CMD "bench cycle"
#define MAX_SYSTEMS 16
#define MAX_REPEATS 1000

/* Quantile q of sorted x[0..n-1], linear between order statistics. */
static double quantile(const double *x, int n, double q)
{
  double pos = q * (n - 1);
  int i = (int)pos;
  if (i + 1 >= n)
    return x[n - 1];
  return x[i] + (pos - i) * (x[i + 1] - x[i]);
}

typedef struct {
  const char *device, *model, *dataset;
  char systems[256];
  long repeats, seed;
  ls_kv *kv; /* --set, --prompts, --tokens */
} cycle_opts;

static int usage(void)
{
  printf("usage: leversim bench cycle [--device D] [--model M] [--dataset S] [--systems a,b,...]\n"
         "                            [--prompts N] [--tokens N] [--repeats N] [--seed N]\n"
         "                            [--set key=value]...\n"
         "  Wall time per simulated decode cycle (run wall time / decode cycles), median and\n"
         "  interquartile range over --repeats timed runs after one warm-up run per system.\n"
         "  Defaults: oneplus-12, llama-3.1-8b, gsm8k, ar-flash,specinfer,lever, 4 prompts x\n"
         "  128 tokens, 7 repeats, seed 1.\n");
  return 0;
}

/* One run; writes wall seconds and cycles. */
static int run_once(ls_decode_cache *cache, const cycle_opts *o, const char *sys, double *wall,
                    double *cycles, ls_error *err)
{
  ls_experiment *x = NULL;
  ls_decode_result res;
  memset(&res, 0, sizeof res);
  int rc = ls_experiment_single(&x, o->device, o->model, o->dataset, sys, o->kv, (uint64_t)o->seed,
                                ls_data_root(), err);
  double t0 = ls_now_s();
  if (rc == LS_OK)
    rc = ls_decode_run(cache, ls_experiment_run(x, 0), 0, &res, err);
  *wall = ls_now_s() - t0;
  *cycles = 0;
  for (int i = 0; rc == LS_OK && i < res.n_metrics; i++)
    if (strcmp(res.metrics[i].name, "cycles") == 0)
      *cycles = res.metrics[i].value;
  if (rc == LS_OK && (!res.valid || *cycles < 1))
    rc = ls_error_set(err, LS_EINVALID, "%s: not valid on this configuration (%s)", sys,
                      res.valid ? "no decode cycle" : res.message);
  ls_decode_result_free(&res);
  ls_experiment_free(x);
  return rc;
}

static int bench_system(ls_decode_cache *cache, const cycle_opts *o, const char *sys, ls_error *err)
{
  double wall, cycles, us[MAX_REPEATS];
  int rc = run_once(cache, o, sys, &wall, &cycles, err); /* warm-up */
  for (long k = 0; rc == LS_OK && k < o->repeats; k++) {
    rc = run_once(cache, o, sys, &wall, &cycles, err);
    us[k] = wall / cycles * 1e6;
  }
  if (rc)
    return rc;
  qsort(us, (size_t)o->repeats, sizeof *us, ls_cmp_double);
  int n = (int)o->repeats;
  printf("%-12s %8.0f %12.1f %10.1f %10.1f\n", sys, cycles, quantile(us, n, 0.5), quantile(us, n, 0.25),
         quantile(us, n, 0.75));
  fflush(stdout);
  return LS_OK;
}

static int parse(int argc, char **argv, cycle_opts *o, ls_error *err)
{
  for (int i = 1; i < argc; i++) {
    const char *v = NULL;
    int m;
    long n;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
      return usage(), 1;
    if ((m = ls_opt_value(CMD, argc, argv, &i, "--device", &o->device)) ||
        (m = ls_opt_value(CMD, argc, argv, &i, "--model", &o->model)) ||
        (m = ls_opt_value(CMD, argc, argv, &i, "--dataset", &o->dataset))) {
      if (m < 0)
        return 64;
    } else if ((m = ls_opt_value(CMD, argc, argv, &i, "--systems", &v))) {
      if (m < 0)
        return 64;
      if (strlen(v) >= sizeof o->systems)
        return ls_usage_error(CMD, "--systems: list too long");
      strcpy(o->systems, v);
    } else if ((m = ls_opt_value(CMD, argc, argv, &i, "--repeats", &v))) {
      if (m < 0 || ls_opt_long(CMD, "--repeats", v, 1, MAX_REPEATS, &o->repeats))
        return 64;
    } else if ((m = ls_opt_value(CMD, argc, argv, &i, "--seed", &v))) {
      if (m < 0 || ls_opt_long(CMD, "--seed", v, 0, 0x7fffffffL, &o->seed))
        return 64;
    } else if ((m = ls_opt_value(CMD, argc, argv, &i, "--prompts", &v))) {
      if (m < 0 || ls_opt_long(CMD, "--prompts", v, 1, 100000, &n) ||
          ls_kv_set(o->kv, "workload.prompts", v, "--prompts", err))
        return 64;
    } else if ((m = ls_opt_value(CMD, argc, argv, &i, "--tokens", &v))) {
      if (m < 0 || ls_opt_long(CMD, "--tokens", v, 1, 1000000, &n) ||
          ls_kv_set(o->kv, "workload.max_tokens", v, "--tokens", err))
        return 64;
    } else if ((m = ls_opt_value(CMD, argc, argv, &i, "--set", &v))) {
      if (m < 0 || ls_opt_set(CMD, o->kv, v, i + 1))
        return 64;
    } else {
      return ls_usage_error(CMD, "unknown argument '%s'", argv[i]);
    }
  }
  return 0;
}

int ls_bench_cycle(int argc, char **argv)
{
  ls_error err;
  ls_error_clear(&err);
  cycle_opts o = {"oneplus-12", "llama-3.1-8b", "gsm8k", "ar-flash,specinfer,lever", 7, 1, NULL};
  if (ls_kv_create(&o.kv, &err))
    return ls_status_exit(err.code);
  int rc = ls_kv_set(o.kv, "workload.prompts", "4", "bench cycle", &err);
  if (!rc)
    rc = ls_kv_set(o.kv, "workload.max_tokens", "128", "bench cycle", &err);
  int prc = rc ? 0 : parse(argc, argv, &o, &err);
  if (rc || prc) {
    if (rc)
      ls_error_print(&err, stderr);
    ls_kv_free(o.kv);
    return rc ? ls_status_exit(rc) : (prc == 1 ? 0 : prc);
  }
  ls_decode_cache *cache = NULL;
  rc = ls_decode_cache_create(&cache, ls_data_root(), &err);
  if (!rc)
    printf("%s / %s / %s, %ld repeats; microseconds of wall time per decode cycle\n"
           "%-12s %8s %12s %10s %10s\n",
           o.device, o.model, o.dataset, o.repeats, "system", "cycles", "median_us", "q25_us", "q75_us");
  char *save = NULL;
  for (char *s = strtok_r(o.systems, ",", &save); !rc && s; s = strtok_r(NULL, ",", &save))
    rc = bench_system(cache, &o, s, &err);
  if (rc)
    ls_error_print(&err, stderr);
  ls_decode_cache_free(cache);
  ls_kv_free(o.kv);
  return rc ? ls_status_exit(rc) : 0;
}
