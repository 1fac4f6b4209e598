/* runner/bench_policies: 'leversim bench policies' — median wall time of one tree build per
 * draft policy (a measurement, never a test). Each policy builds --reps trees at
 * draft.budget = --budget on the positional view (--acceptance) with the real cost model of
 * --device/--model (map: lever's for lever, npu for the others), a fresh root key each
 * repetition. Target (issue 5): lever under 20 us at budget 64. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "policies/costmodel.h"
#include "policies/posview.h"
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"
#include "runner/cli/opts.h"


typedef struct {
  ls_device *dev;
  ls_model *tm, *dm;
  ls_model_costs tc, dc;
} bench_hw;

static int load_hw(bench_hw *h, const char *device, const char *model, ls_error *err)
{
  int rc = ls_device_load_id(&h->dev, ls_data_root(), device, err);
  if (rc == LS_OK)
    rc = ls_model_load_id(&h->tm, ls_data_root(), model, err);
  if (rc == LS_OK)
    rc = ls_model_load_id(&h->dm, ls_data_root(), ls_model_default_draft(h->tm), err);
  if (rc == LS_OK)
    rc = ls_model_costs_get(h->tm, NULL, &h->tc, err);
  if (rc == LS_OK)
    rc = ls_model_costs_get(h->dm, NULL, &h->dc, err);
  return rc;
}

static void free_hw(bench_hw *h)
{
  if (h->dm)
    ls_model_free(h->dm);
  if (h->tm)
    ls_model_free(h->tm);
  if (h->dev)
    ls_device_free(h->dev);
}

/* Times one policy; writes median and p90 (seconds) and the last tree's size. */
static int bench_one(const ls_policy_set *ps, const char *name, const bench_hw *h, long budget, long reps,
                     const ls_posview *pv0, double *times, double *med, double *p90, int *nodes, ls_error *err)
{
  const ls_draft_ops *ops = ls_policy_set_draft(ps, name);
  const ls_map_ops *map = ls_map_find(strcmp(name, "lever") == 0 ? "lever" : "npu");
  ls_kv *kv = NULL;
  void *ms = NULL, *st = NULL;
  ls_costmodel *cm = NULL;
  ls_tree *t = malloc(sizeof *t);
  char buf[32];
  snprintf(buf, sizeof buf, "%ld", budget);
  int rc = t ? ls_kv_create(&kv, err) : ls_error_set(err, LS_ENOMEM, "bench: out of memory");
  if (rc == LS_OK)
    rc = ls_kv_set(kv, "draft.budget", buf, "--budget", err);
  if (rc == LS_OK)
    rc = map->create(&ms, kv, err);
  if (rc == LS_OK) {
    int resident = ls_costmodel_resident_layers(h->dev, &h->tc, &h->dc, map->lmhead(ms) == LS_LMHEAD_DEMAND_CPU, 2);
    rc = ls_costmodel_create(&cm, h->dev, &h->tc, &h->dc, map, ms, resident, 0, err);
  }
  if (rc == LS_OK)
    rc = ops->create(&st, kv, err);
  ls_cost_model cost;
  if (rc == LS_OK) {
    ls_costmodel_set_ctx(cm, 512);
    ls_costmodel_bind(cm, &cost);
  }
  for (long r = 0; rc == LS_OK && r < reps; r++) {
    ls_posview pv = *pv0;
    ls_draft_view v;
    ls_posview_init(&pv, pv0->p, pv0->n, (uint64_t)r, &v, NULL);
    double t0 = ls_now_s();
    rc = ops->build(st, t, &v, &cost, err);
    times[r] = ls_now_s() - t0;
  }
  if (rc == LS_OK) {
    qsort(times, (size_t)reps, sizeof times[0], ls_cmp_double);
    *med = times[reps / 2];
    *p90 = times[(reps * 9) / 10];
    *nodes = t->n;
  }
  if (st)
    ops->destroy(st);
  ls_costmodel_free(cm);
  if (ms)
    map->destroy(ms);
  ls_kv_free(kv);
  free(t);
  return rc;
}

typedef struct policies_opts {
  long budget, reps;
  const char *device, *model;
  int json;
  ls_opt_list plugins;
} policies_opts;

static const ls_opt POLICIES_OPTS[] = {
    {"--budget", LS_OPT_LONG, OPT_AT(policies_opts, budget), "N", "draft.budget of every tree (default 64)", .lo = 1, .hi = LS_TREE_MAX},
    {"--reps", LS_OPT_LONG, OPT_AT(policies_opts, reps), "N", "trees built per policy (default 2000)", .lo = 1, .hi = 10000000},
    {"--device", LS_OPT_STR, OPT_AT(policies_opts, device), "D", "device of the cost model (default oneplus-12)"},
    {"--model", LS_OPT_STR, OPT_AT(policies_opts, model), "M", "target of the cost model (default llama-3.1-8b)"},
    {"--json", LS_OPT_FLAG, OPT_AT(policies_opts, json), NULL, "print one JSON document"},
    {"--plugin", LS_OPT_MULTI, OPT_AT(policies_opts, plugins), "FILE.so", LS_CLI_PLUGIN_HELP " (its draft policies are timed too)"},
    {NULL}};

static const ls_cmd_spec POLICIES = {
    "bench policies", NULL, 0, 0, 0, "median wall time of one tree build per draft policy",
    "Each policy builds --reps trees on the positional view 0.6,0.2,0.1,0.05 with the cost\n"
    "model of --device/--model, a fresh root key each repetition. A measurement, not a test.\n",
    NULL, POLICIES_OPTS};

static int bench_all(const policies_opts *o);

int ls_bench_policies(int argc, char **argv)
{
  policies_opts o = {64, 2000, "oneplus-12", "llama-3.1-8b", 0};
  int rc = ls_opts_parse(&POLICIES, argc, argv, &o, NULL);
  return rc ? ls_opts_exit(rc) : bench_all(&o);
}

/* Times every draft policy; returns the exit status. */
static int bench_all(const policies_opts *o)
{
  long budget = o->budget, reps = o->reps;
  const char *device = o->device, *model = o->model;
  int json = o->json;
  ls_error err;
  ls_error_clear(&err);
  bench_hw h = {0};
  double p[4] = {0.6, 0.2, 0.1, 0.05};
  ls_posview pv;
  ls_draft_view v;
  double *times = malloc(sizeof(double) * (size_t)reps);
  ls_policy_set *ps = NULL;
  int rc = times ? load_hw(&h, device, model, &err) : ls_error_set(&err, LS_ENOMEM, "bench: out of memory");
  if (rc == LS_OK)
    rc = ls_cli_plugins(&o->plugins, &ps, &err);
  if (rc == LS_OK)
    rc = ls_posview_init(&pv, p, 4, 0, &v, &err);
  if (rc == LS_OK && !json)
    printf("tree build time, budget %ld, %ld builds each (%s, %s, positional 0.6,0.2,0.1,0.05)\n%-10s %6s %12s %12s\n",
           budget, reps, device, model, "policy", "nodes", "median_us", "p90_us");
  if (json && rc == LS_OK)
    printf("{\"budget\":%ld,\"reps\":%ld,\"policies\":[", budget, reps);
  int first = 1;
  const char *name;
  for (int i = 0; rc == LS_OK && (name = ls_policy_set_name(ps, LS_FAMILY_DRAFT, i)) != NULL; i++) {
    double med = 0.0, p90 = 0.0;
    int nodes = 0;
    rc = bench_one(ps, name, &h, budget, reps, &pv, times, &med, &p90, &nodes, &err);
    if (rc != LS_OK)
      break;
    if (json)
      printf("%s{\"policy\":\"%s\",\"nodes\":%d,\"median_us\":%.3f,\"p90_us\":%.3f}", first ? "" : ",", name, nodes,
             med * 1e6, p90 * 1e6);
    else
      printf("%-10s %6d %12.3f %12.3f\n", name, nodes, med * 1e6, p90 * 1e6);
    first = 0;
  }
  if (json && rc == LS_OK)
    printf("]}\n");
  free(times);
  free_hw(&h);
  ls_policy_set_free(ps);
  if (rc != LS_OK) {
    ls_error_print(&err, stderr);
    return ls_status_exit(rc);
  }
  return 0;
}
