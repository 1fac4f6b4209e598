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
#include "runner/cli/opts.h"
#include "sim/range.h"
#include "runner/decode/decode.h"
#include "runner/study/experiment.h"

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

static const char *copy_systems(const char *v, void *field)
{
  if (strlen(v) >= sizeof ((cycle_opts *)0)->systems)
    return "list too long";
  strcpy(field, v);
  return NULL;
}

static const ls_opt CYCLE_OPTS[] = {
    {"--device", LS_OPT_STR, OPT_AT(cycle_opts, device), "D", "device profile (default oneplus-12)"},
    {"--model", LS_OPT_STR, OPT_AT(cycle_opts, model), "M", "target model (default llama-3.1-8b)"},
    {"--dataset", LS_OPT_STR, OPT_AT(cycle_opts, dataset), "S", "dataset (default gsm8k)"},
    {"--systems", LS_OPT_CALL, OPT_AT(cycle_opts, systems), "a,b,...", "systems to time (default ar-flash,specinfer,lever)", .call = copy_systems},
    {"--prompts", LS_OPT_SETTING, 0, "N", "prompts per run (default 4)", .range = LS_OPT_RANGE(LS_R_PROMPTS), .key = "workload.prompts"},
    {"--tokens", LS_OPT_SETTING, 0, "N", "tokens per prompt (default 128)", .range = LS_OPT_RANGE(LS_R_TOKENS), .key = "workload.max_tokens"},
    {"--repeats", LS_OPT_LONG, OPT_AT(cycle_opts, repeats), "N", "timed runs per system (default 7)", .lo = 1, .hi = MAX_REPEATS},
    {"--seed", LS_OPT_LONG, OPT_AT(cycle_opts, seed), "N", "master seed (default 1)", .range = LS_OPT_RANGE(LS_R_SEED)},
    {"--set", LS_OPT_SET, 0, "key=value", "a setting, e.g. device.flash.sim=events"},
    {NULL}};

static const ls_cmd_spec CYCLE = {
    "bench cycle", NULL, 0, 0, 0, "wall time per simulated decode cycle, per system",
    "Wall time per simulated decode cycle (run wall time / decode cycles), median and\n"
    "interquartile range over --repeats timed runs after one warm-up run per system.\n"
    "A measurement, not a test.\n",
    NULL, CYCLE_OPTS};

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
  int prc = rc ? LS_OK : ls_opts_parse(&CYCLE, argc, argv, &o, o.kv);
  if (rc || prc) {
    if (rc)
      ls_error_print(&err, stderr);
    ls_kv_free(o.kv);
    return rc ? ls_status_exit(rc) : ls_opts_exit(prc);
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
