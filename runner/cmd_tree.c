/* runner/cmd_tree: 'leversim tree' builds one token tree with a draft policy on the
 * positional view (policies/posview.h) and prints it: parent, depth and rank of each node,
 * size, depth, draft passes and the expected accepted length (bonus included) under the
 * acceptance vector. With --device and --model the policy gets the real cost model (map
 * policy --map, default: lever's for lever, npu otherwise); without, it gets none (costs
 * unknown: cost-aware policies build their largest tree). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "policies/costmodel.h"
#include "policies/posview.h"
#include "runner/cli_opts.h"
#include "runner/commands.h"

#define CMD "tree"

typedef struct {
  const char *policy, *acceptance, *device, *model, *map;
  long budget, ctx, seed;
  int json;
} tree_opts;

static int usage(void)
{
  printf("usage: leversim tree --policy P [--acceptance p1,p2,...] [--budget N] [--device D --model M]\n"
         "                     [--map M] [--ctx N] [--seed N] [--set key=value]... [--json]\n"
         "  P: ar, chain, specinfer, sequoia, eagle2, opt-tree, lever (default lever)\n"
         "  --acceptance  positional acceptance by rank (default 0.6,0.2,0.1)\n"
         "  --ctx         context length for attention costs (default 512)\n");
  return 0;
}

static int parse(int argc, char **argv, tree_opts *o, ls_kv *kv)
{
  *o = (tree_opts){"lever", "0.6,0.2,0.1", NULL, NULL, NULL, 0, 512, 1, 0};
  for (int i = 1; i < argc; i++) {
    const char *v = NULL;
    int r;
    if (strcmp(argv[i], "--json") == 0) {
      o->json = 1;
      continue;
    }
    if ((r = ls_opt_value(CMD, argc, argv, &i, "--policy", &o->policy)) ||
        (r = ls_opt_value(CMD, argc, argv, &i, "--acceptance", &o->acceptance)) ||
        (r = ls_opt_value(CMD, argc, argv, &i, "--device", &o->device)) ||
        (r = ls_opt_value(CMD, argc, argv, &i, "--model", &o->model)) ||
        (r = ls_opt_value(CMD, argc, argv, &i, "--map", &o->map))) {
      if (r < 0)
        return -1;
      continue;
    }
    if ((r = ls_opt_value(CMD, argc, argv, &i, "--budget", &v)) != 0) {
      if (r < 0 || ls_opt_long(CMD, "--budget", v, 1, LS_TREE_MAX, &o->budget) < 0)
        return -1;
      continue;
    }
    if ((r = ls_opt_value(CMD, argc, argv, &i, "--ctx", &v)) != 0) {
      if (r < 0 || ls_opt_long(CMD, "--ctx", v, 0, 1 << 24, &o->ctx) < 0)
        return -1;
      continue;
    }
    if ((r = ls_opt_value(CMD, argc, argv, &i, "--seed", &v)) != 0) {
      if (r < 0 || ls_opt_long(CMD, "--seed", v, 0, 0x7fffffffL, &o->seed) < 0)
        return -1;
      continue;
    }
    if ((r = ls_opt_value(CMD, argc, argv, &i, "--set", &v)) != 0) {
      if (r < 0 || ls_opt_set(CMD, kv, v, i + 1) < 0)
        return -1;
      continue;
    }
    ls_usage_error(CMD, "unknown argument '%s'", argv[i]);
    return -1;
  }
  if ((o->device == NULL) != (o->model == NULL)) {
    ls_usage_error(CMD, "--device and --model go together");
    return -1;
  }
  return 0;
}

static int parse_vector(const char *text, double *p, int *n)
{
  *n = 0;
  const char *s = text;
  while (*s) {
    char *end;
    if (*n >= LS_VIEW_TOPK_MAX)
      return -1;
    p[(*n)++] = strtod(s, &end);
    if (end == s || (*end && *end != ','))
      return -1;
    s = *end ? end + 1 : end;
  }
  return *n > 0 ? 0 : -1;
}

/* Everything `tree` holds, freed in one place. */
typedef struct {
  ls_device *dev;
  ls_model *target, *draft;
  ls_costmodel *cm;
  const ls_map_ops *map;
  void *map_state;
  const ls_draft_ops *ops;
  void *state;
  int has_state;
} tree_res;

static void release(tree_res *r)
{
  if (r->has_state)
    r->ops->destroy(r->state);
  ls_costmodel_free(r->cm);
  if (r->map_state)
    r->map->destroy(r->map_state);
  if (r->draft)
    ls_model_free(r->draft);
  if (r->target)
    ls_model_free(r->target);
  if (r->dev)
    ls_device_free(r->dev);
}

static int load_costs(const tree_opts *o, ls_kv *kv, tree_res *r, ls_cost_model *cost, ls_error *err)
{
  ls_model_costs tc, dc;
  int rc = ls_device_load_id(&r->dev, ls_data_root(), o->device, err);
  if (rc == LS_OK)
    rc = ls_device_apply(r->dev, kv, err);
  if (rc == LS_OK)
    rc = ls_model_load_id(&r->target, ls_data_root(), o->model, err);
  if (rc == LS_OK && !ls_model_is_target(r->target))
    rc = ls_error_set(err, LS_EINVALID, "--model %s is a draft model (expected a target)", o->model);
  if (rc == LS_OK)
    rc = ls_model_load_id(&r->draft, ls_data_root(), ls_model_default_draft(r->target), err);
  if (rc == LS_OK)
    rc = ls_model_costs_get(r->target, NULL, &tc, err);
  if (rc == LS_OK)
    rc = ls_model_costs_get(r->draft, NULL, &dc, err);
  if (rc != LS_OK)
    return rc;
  int resident = (int)(ls_dram_resident_budget(ls_device_dram(r->dev)) / tc.layer_bytes);
  rc = ls_costmodel_create(&r->cm, r->dev, &tc, &dc, r->map, r->map_state, resident, 0, err);
  if (rc != LS_OK)
    return rc;
  ls_costmodel_set_ctx(r->cm, (int)o->ctx);
  ls_costmodel_bind(r->cm, cost);
  return LS_OK;
}

static void print_tree(const tree_opts *o, const ls_tree *t, double expected, const ls_cost_model *cost)
{
  int maxd = 0;
  for (int i = 0; i < t->n; i++)
    maxd = t->depth[i] > maxd ? t->depth[i] : maxd;
  double draft_s = 0.0, verify_s = 0.0;
  if (cost) {
    for (int s = 0; s < t->n_steps; s++)
      draft_s += cost->draft_step_s(cost->ctx, t->step_nodes[s], t->step_depth[s]);
    verify_s = cost->verify_s(cost->ctx, t->n);
  }
  if (o->json) {
    printf("{\"policy\":\"%s\",\"nodes\":%d,\"depth\":%d,\"draft_steps\":%d,\"expected_accepted\":%.6f", o->policy,
           t->n, maxd, t->n_steps, expected);
    if (cost)
      printf(",\"draft_s\":%.9f,\"verify_s\":%.9f,\"tokens_per_s\":%.6f", draft_s, verify_s,
             expected / (draft_s + verify_s));
    const char *names[3] = {"parent", "depth_of", "rank"};
    const int *arrays[3] = {t->parent, t->depth, t->rank};
    for (int a = 0; a < 3; a++) {
      printf(",\"%s\":[", names[a]);
      for (int i = 0; i < t->n; i++)
        printf("%s%d", i ? "," : "", arrays[a][i]);
      printf("]");
    }
    printf(",\"step_nodes\":[");
    for (int s = 0; s < t->n_steps; s++)
      printf("%s%d", s ? "," : "", t->step_nodes[s]);
    printf("]}\n");
    return;
  }
  printf("policy %s: %d nodes (root included), depth %d, %d draft passes\n", o->policy, t->n, maxd, t->n_steps);
  printf("expected accepted length (bonus included): %.4f\n", expected);
  if (cost)
    printf("cycle: draft %.3f ms + verify %.3f ms -> %.3f tokens/s\n", draft_s * 1e3, verify_s * 1e3,
           expected / (draft_s + verify_s));
  printf("%5s %6s %5s %4s %9s\n", "node", "parent", "depth", "rank", "draft_p");
  for (int i = 0; i < t->n; i++)
    printf("%5d %6d %5d %4d %9.4f\n", i, t->parent[i], t->depth[i], t->rank[i], t->prob[i]);
}

int ls_cmd_tree(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "--help") == 0)
    return usage();
  ls_kv *kv = NULL;
  ls_error err;
  ls_error_clear(&err);
  if (ls_kv_create(&kv, &err) != LS_OK) {
    ls_error_print(&err, stderr);
    return ls_status_exit(err.code);
  }
  tree_opts o;
  tree_res r = {0};
  ls_tree *t = NULL;
  int rc = parse(argc, argv, &o, kv) < 0 ? LS_EUSAGE : LS_OK, status = 64;
  double p[LS_VIEW_TOPK_MAX];
  int np = 0;
  char buf[32];
  if (rc == LS_OK && parse_vector(o.acceptance, p, &np) < 0) {
    ls_usage_error(CMD, "--acceptance: bad vector '%s' (expected p1,p2,... numbers)", o.acceptance);
    rc = LS_EUSAGE;
  }
  if (rc == LS_OK && !(r.ops = ls_draft_find(o.policy))) {
    ls_usage_error(CMD, "unknown draft policy '%s' (expected ar, chain, specinfer, sequoia, eagle2, opt-tree, lever)",
                   o.policy);
    rc = LS_EUSAGE;
  }
  if (rc == LS_OK && o.map && !ls_map_find(o.map)) {
    ls_usage_error(CMD, "unknown map policy '%s' (expected npu, cpu, npu-batch, lever)", o.map);
    rc = LS_EUSAGE;
  }
  if (rc == LS_EUSAGE)
    goto done;
  status = 0;
  if (o.budget > 0) {
    snprintf(buf, sizeof buf, "%ld", o.budget);
    rc = ls_kv_set(kv, "draft.budget", buf, "--budget", &err);
  }
  if (rc == LS_OK && !ls_kv_find(kv, "draft.acceptance")) /* sequoia's vector: the view's */
    rc = ls_kv_set(kv, "draft.acceptance", o.acceptance, "--acceptance", &err);
  ls_posview pv;
  ls_draft_view view;
  ls_cost_model cost;
  if (rc == LS_OK)
    rc = ls_posview_init(&pv, p, np, (uint64_t)o.seed, &view, &err);
  if (rc == LS_OK) {
    r.map = ls_map_find(o.map ? o.map : (strcmp(o.policy, "lever") == 0 ? "lever" : "npu"));
    rc = r.map->create(&r.map_state, kv, &err);
  }
  if (rc == LS_OK && o.device)
    rc = load_costs(&o, kv, &r, &cost, &err);
  if (rc == LS_OK && (rc = r.ops->create(&r.state, kv, &err)) == LS_OK)
    r.has_state = 1;
  (void)ls_kv_find(kv, "draft.acceptance");
  if (rc == LS_OK)
    rc = ls_kv_check_used(kv, "", &err);
  if (rc == LS_OK && !(t = malloc(sizeof *t)))
    rc = ls_error_set(&err, LS_ENOMEM, "tree: out of memory");
  if (rc == LS_OK)
    rc = r.ops->build(r.state, t, &view, o.device ? &cost : NULL, &err);
  if (rc == LS_OK)
    print_tree(&o, t, ls_posview_expected(&pv, t), o.device ? &cost : NULL);
  if (rc != LS_OK) {
    ls_error_print(&err, stderr);
    status = ls_status_exit(rc);
  }
done:
  free(t);
  release(&r);
  ls_kv_free(kv);
  return status;
}
