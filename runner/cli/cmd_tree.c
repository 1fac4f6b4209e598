/* runner/cmd_tree: 'leversim tree' builds one token tree with a draft policy on the
 * positional view (policies/posview.h) and draws it, indented, one node a line: its rank,
 * its draft probability, its path probability and its gain; then size, depth, draft passes
 * and the expected accepted length (bonus included) under the acceptance vector. With
 * --device and --model the policy gets the real cost model (map policy --map, default:
 * lever's for lever, npu otherwise); without, it gets none (costs unknown: cost-aware
 * policies build their largest tree).
 *
 * The input, as the positional view reads it: p_k = probability that the target's token is
 * the draft's rank-k candidate (exclusive events, sum <= 1). The draft's own candidate
 * probabilities are the p_k scaled to sum 1 (q_k = p_k / sum p), the same at every node;
 * the command says so when sum p < 1. Per node: draft p = q of its rank; path p = product
 * of q from the root (what a policy ranks by); gain = product of p from the root = the
 * probability the node is accepted = its share of the expected accepted length (the gains
 * of all nodes, root included for the bonus token, sum to it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "policies/costmodel.h"
#include "policies/posview.h"
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"
#include "runner/cli/opts.h"

#define CMD "tree"

typedef struct {
  const char *policy, *acceptance, *device, *model, *map;
  long budget, ctx, seed;
  int json, ascii;
  ls_opt_list plugins;
} tree_opts;

static const ls_opt TREE_OPTS[] = {
    {"--policy", LS_OPT_STR, OPT_AT(tree_opts, policy), "P", "draft policy (default lever; leversim policy list)"},
    {"--acceptance", LS_OPT_STR, OPT_AT(tree_opts, acceptance), "p1,p2,...", "positional acceptance by rank (default 0.6,0.2,0.1); the draft's candidate probabilities are these scaled to sum 1"},
    {"--budget", LS_OPT_LONG, OPT_AT(tree_opts, budget), "N", "draft.budget: nodes of the tree", .lo = 1, .hi = LS_TREE_MAX},
    {"--device", LS_OPT_STR, OPT_AT(tree_opts, device), "D", "with --model: the real cost model of this device"},
    {"--model", LS_OPT_STR, OPT_AT(tree_opts, model), "M", "with --device: the target (its default draft drafts)"},
    {"--map", LS_OPT_STR, OPT_AT(tree_opts, map), "M", "map policy of the cost model (default lever's for lever, npu otherwise)"},
    {"--ctx", LS_OPT_LONG, OPT_AT(tree_opts, ctx), "N", "context length for attention costs (default 512)", .lo = 0, .hi = 1 << 24},
    {"--seed", LS_OPT_LONG, OPT_AT(tree_opts, seed), "N", "seed of the positional view (default 1)", .lo = 0, .hi = 0x7fffffffL},
    {"--set", LS_OPT_SET, 0, "key=value", "a policy setting (draft.*, map.*, device.*)"},
    {"--json", LS_OPT_FLAG, OPT_AT(tree_opts, json), NULL, "print one JSON document"},
    {"--ascii", LS_OPT_FLAG, OPT_AT(tree_opts, ascii), NULL, "draw the tree with |- and `- instead of box-drawing characters"},
    {"--plugin", LS_OPT_MULTI, OPT_AT(tree_opts, plugins), "FILE.so", LS_CLI_PLUGIN_HELP},
    {NULL}};

static const ls_cmd_spec TREE = {
    "tree", NULL, 0, 0, 0, "build and print one draft tree with a policy",
    "Prints each node's rank, draft probability, path probability and gain (its share of the\n"
    "expected accepted length), then size, depth, draft passes and the expected accepted\n"
    "length. Without --device/--model the policy gets no cost model (cost-aware policies\n"
    "build their largest tree).\n",
    NULL, TREE_OPTS};

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
  int resident = ls_costmodel_resident_layers(r->dev, &tc, &dc, r->map->lmhead(r->map_state) == LS_LMHEAD_DEMAND_CPU, 2);
  rc = ls_costmodel_create(&r->cm, r->dev, &tc, &dc, r->map, r->map_state, resident, 0, err);
  if (rc != LS_OK)
    return rc;
  ls_costmodel_set_ctx(r->cm, (int)o->ctx);
  ls_costmodel_bind(r->cm, cost);
  return LS_OK;
}

/* gain[i]: product of the acceptance p along node i's path (root 1). */
static void node_gains(const ls_posview *pv, const ls_tree *t, double *gain)
{
  gain[0] = 1.0;
  for (int i = 1; i < t->n; i++) {
    int r = t->rank[i];
    gain[i] = gain[t->parent[i]] * (r >= 0 && r < pv->n ? pv->p[r] : 0.0);
  }
}

static void json_array(const char *name, const double *v, int n)
{
  printf(",\"%s\":[", name);
  for (int i = 0; i < n; i++)
    printf("%s%.6f", i ? "," : "", v[i]);
  printf("]");
}

static void print_json(const tree_opts *o, const ls_tree *t, const ls_posview *pv, double expected, int maxd,
                       const double *gain, double draft_s, double verify_s, int costed)
{
  printf("{\"policy\":\"%s\",\"nodes\":%d,\"depth\":%d,\"draft_steps\":%d,\"expected_accepted\":%.6f", o->policy,
         t->n, maxd, t->n_steps, expected);
  if (costed)
    printf(",\"draft_s\":%.9f,\"verify_s\":%.9f,\"tokens_per_s\":%.6f", draft_s, verify_s,
           expected / (draft_s + verify_s));
  json_array("acceptance", pv->p, pv->n);
  json_array("draft_probabilities", pv->q, pv->n);
  const char *names[3] = {"parent", "depth_of", "rank"};
  const int *arrays[3] = {t->parent, t->depth, t->rank};
  for (int a = 0; a < 3; a++) {
    printf(",\"%s\":[", names[a]);
    for (int i = 0; i < t->n; i++)
      printf("%s%d", i ? "," : "", arrays[a][i]);
    printf("]");
  }
  json_array("draft_p", t->prob, t->n);
  json_array("path_p", t->path_prob, t->n);
  json_array("gain", gain, t->n);
  printf(",\"step_nodes\":[");
  for (int s = 0; s < t->n_steps; s++)
    printf("%s%d", s ? "," : "", t->step_nodes[s]);
  printf("]}\n");
}

/* The input line(s): the acceptance vector and how the draft probabilities follow from it. */
static void print_input(const ls_posview *pv)
{
  double sum = 0.0;
  printf("input: acceptance by rank p =");
  for (int k = 0; k < pv->n; k++) {
    printf("%s %.4g", k ? "," : "", pv->p[k]);
    sum += pv->p[k];
  }
  printf(" (sum %.4g)\n", sum);
  if (sum < 1.0 - 1e-12)
    printf("note: the draft's candidate probabilities are p scaled to sum 1 (q_k = p_k / %.4g);\n"
           "      gain = product of p along the path (the node's share of the expected accepted length)\n",
           sum);
  else
    printf("note: the draft's candidate probabilities are p itself (sum 1); gain = product of p along the path\n");
}

/* One node's line, then its children (indices ascending), drawn under prefix; the numbers
 * start at column col. */
static void draw_node(const ls_tree *t, const double *gain, int node, char *prefix, size_t len, int last, int ascii,
                      int col)
{
  char head[160];
  const char *branch = node == 0 ? "" : ascii ? (last ? "`- " : "|- ") : (last ? "└─ " : "├─ ");
  int w = node == 0 ? snprintf(head, sizeof head, "root (0)")
                    : snprintf(head, sizeof head, "%s%s%d", prefix, branch, node);
  int glyphs = 0; /* box-drawing characters are 3 bytes and one column */
  for (const char *c = head; *c; c++)
    glyphs += ((unsigned char)*c & 0xC0) == 0x80;
  printf("%s%*s", head, col - (w - glyphs) > 1 ? col - (w - glyphs) : 1, "");
  if (node == 0)
    printf("%4s %8.4f %8.4f %8.4f\n", "-", 1.0, 1.0, gain[0]);
  else
    printf("%4d %8.4f %8.4f %8.4f\n", t->rank[node], t->prob[node], t->path_prob[node], gain[node]);
  size_t add = 0;
  if (node != 0) {
    const char *pipe = ascii ? (last ? "   " : "|  ") : (last ? "   " : "│  ");
    add = strlen(pipe);
    if (len + add + 1 > 4096)
      return;
    memcpy(prefix + len, pipe, add + 1);
  }
  int lastchild = -1;
  for (int i = node + 1; i < t->n; i++)
    if (t->parent[i] == node)
      lastchild = i;
  for (int i = node + 1; i < t->n; i++)
    if (t->parent[i] == node)
      draw_node(t, gain, i, prefix, len + add, i == lastchild, ascii, col);
  prefix[len] = '\0';
}

static void print_tree(const tree_opts *o, const ls_tree *t, const ls_posview *pv, double expected,
                       const ls_cost_model *cost)
{
  int maxd = 0;
  for (int i = 0; i < t->n; i++)
    maxd = t->depth[i] > maxd ? t->depth[i] : maxd;
  double draft_s = 0.0, verify_s = 0.0, gain[LS_TREE_MAX];
  if (cost) {
    for (int s = 0; s < t->n_steps; s++)
      draft_s += cost->draft_step_s(cost->ctx, t->step_nodes[s], t->step_depth[s]);
    verify_s = cost->verify_s(cost->ctx, t->n);
  }
  node_gains(pv, t, gain);
  if (o->json) {
    print_json(o, t, pv, expected, maxd, gain, draft_s, verify_s, cost != NULL);
    return;
  }
  printf("policy %s: %d nodes (root included), depth %d, %d draft passes\n", o->policy, t->n, maxd, t->n_steps);
  print_input(pv);
  printf("expected accepted length (bonus included) = sum of the gains: %.4f\n", expected);
  if (cost)
    printf("cycle: draft %.3f ms + verify %.3f ms -> %.3f tokens/s\n", draft_s * 1e3, verify_s * 1e3,
           expected / (draft_s + verify_s));
  int col = 3 * maxd + 8 > 20 ? 3 * maxd + 8 : 20; /* 3 columns per level, then the node id */
  printf("\n%-*s%4s %8s %8s %8s\n", col, "node", "rank", "draft p", "path p", "gain");
  char prefix[4096] = "";
  draw_node(t, gain, 0, prefix, 0, 1, o->ascii, col);
}

/* The usage checks the table cannot make: the vector, --device with --model. Returns
 * 0 or the exit status of a usage error. */
static int check_args(const tree_opts *o, double *p, int *np)
{
  if ((o->device == NULL) != (o->model == NULL))
    return ls_usage_error(CMD, "--device and --model go together");
  if (parse_vector(o->acceptance, p, np) < 0)
    return ls_usage_error(CMD, "--acceptance: bad vector '%s' (expected p1,p2,... numbers)", o->acceptance);
  return 0;
}

/* Builds and prints the tree; returns a status. */
static int build(const tree_opts *o, const ls_policy_set *ps, ls_kv *kv, const double *p, int np, ls_error *err)
{
  tree_res r = {0};
  ls_tree *t = NULL;
  ls_posview pv;
  ls_draft_view view;
  ls_cost_model cost;
  char buf[32];
  int rc = LS_OK;
  r.ops = ls_policy_set_draft(ps, o->policy);
  const char *map = o->map ? o->map : (strcmp(o->policy, "lever") == 0 ? "lever" : "npu");
  r.map = ls_policy_set_map(ps, map);
  if (!r.ops || !r.map)
    return ls_error_set(err, LS_EUSAGE, "%s %s: unknown %s policy (leversim policy list%s)",
                        r.ops ? "--map" : "--policy", r.ops ? map : o->policy, r.ops ? "map" : "draft",
                        o->plugins.n ? "" : "; a plug-in's needs --plugin");
  if (o->budget > 0) {
    snprintf(buf, sizeof buf, "%ld", o->budget);
    rc = ls_kv_set(kv, "draft.budget", buf, "--budget", err);
  }
  if (rc == LS_OK && !ls_kv_find(kv, "draft.acceptance")) /* sequoia's vector: the view's */
    rc = ls_kv_set(kv, "draft.acceptance", o->acceptance, "--acceptance", err);
  if (rc == LS_OK && ls_posview_init(&pv, p, np, (uint64_t)o->seed, &view, err) != LS_OK)
    rc = LS_EUSAGE; /* the vector was typed on the command line: a usage error, as in --set */
  if (rc == LS_OK) {
    rc = r.map->create(&r.map_state, kv, err);
  }
  if (rc == LS_OK && o->device)
    rc = load_costs(o, kv, &r, &cost, err);
  if (rc == LS_OK && (rc = r.ops->create(&r.state, kv, err)) == LS_OK)
    r.has_state = 1;
  (void)ls_kv_find(kv, "draft.acceptance");
  if (rc == LS_OK)
    rc = ls_kv_check_used(kv, "", err);
  if (rc == LS_OK && !(t = malloc(sizeof *t)))
    rc = ls_error_set(err, LS_ENOMEM, "tree: out of memory");
  if (rc == LS_OK)
    rc = r.ops->build(r.state, t, &view, o->device ? &cost : NULL, err);
  if (rc == LS_OK)
    print_tree(o, t, &pv, ls_posview_expected(&pv, t), o->device ? &cost : NULL);
  free(t);
  release(&r);
  return rc;
}

int ls_cmd_tree(int argc, char **argv)
{
  tree_opts o = {"lever", "0.6,0.2,0.1", NULL, NULL, NULL, 0, 512, 1, 0, 0};
  ls_kv *kv = NULL;
  ls_error err;
  ls_error_clear(&err);
  double p[LS_VIEW_TOPK_MAX];
  ls_policy_set *ps = NULL;
  int np = 0, status = 0, rc = ls_kv_create(&kv, &err);
  if (rc == LS_OK) {
    int prc = ls_opts_parse(&TREE, argc, argv, &o, kv);
    if (prc != LS_OK)
      status = ls_opts_exit(prc);
    else if ((status = check_args(&o, p, &np)) == 0 && (rc = ls_cli_plugins(&o.plugins, &ps, &err)) == LS_OK)
      rc = build(&o, ps, kv, p, np, &err);
  }
  if (rc != LS_OK) {
    ls_error_print(&err, stderr);
    status = ls_status_exit(rc);
  }
  ls_kv_free(kv);
  ls_policy_set_free(ps);
  return status;
}
