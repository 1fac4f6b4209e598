/* policies/conform: conformance tests of a policy (conform.h), one function per rule family.
 *
 * The hashed view: node (key, depth) has k = 2 + key % 7 candidates; the top one has
 * probability 0.2 + 0.75 u (u uniform from the key), each next one a share 0.3 + 0.5 u' of
 * what is left, so probabilities are descending and sum below 1. Child keys hash (key, depth,
 * rank). The acceptance walk behind the feedback accepts at each accepted node the candidate
 * of rank r with probability equal to its draft probability (a calibrated draft), and moves
 * to that child if the tree has it.
 *
 * The synthetic cost model (used when the caller gives none): verification 60 ms + 0.4 ms a
 * token, a draft pass 1.5 ms + 0.05 ms a node, two independent passes the slower one (two
 * units), a prune saving the pruned tokens' share of the layers after the exit. Round numbers
 * of the order of a phone streaming an 8B target; the rules do not depend on them.
 *
 * "No foreign writes" is watched where it can be seen from outside: canaries around the tree
 * and past keep[n-1], checksums of the view's and cost model's contexts, of the settings, the
 * scores, the accepted path and of the tree a prune or feedback only reads. */
#include "policies/conform.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim/clock.h"
#include "sim/rng.h"

#define CANARY 0x5a5aa5a5c3c33c3cULL
#define GUARD 32
#define N_BUDGETS 4
static const int BUDGETS[N_BUDGETS] = {1, 4, 16, 64};
static const char *const RULES_DRAFT[] = {"create", "reads-budget", "build-ok", "tree-valid", "within-budget",
                                          "deterministic", "no-foreign-writes", NULL};

typedef struct { uint64_t seed; } hview;

static int hv_candidates(const void *ctx, uint64_t key, int depth, double *probs, int k)
{
  uint64_t h = ls_key2(ls_key2(((const hview *)ctx)->seed, key), (uint64_t)depth);
  int n = 2 + (int)(h % 7);
  if (n > k) n = k;
  double left = 1.0;
  for (int i = 0; i < n; i++) {
    h = ls_mix64(h);
    double u = (double)(h >> 11) * 0x1.0p-53;
    double p = i == 0 ? 0.2 + 0.75 * u : left * (0.3 + 0.5 * u);
    if (i > 0 && p > probs[i - 1]) p = probs[i - 1];
    probs[i] = p;
    left -= p;
  }
  return n;
}

static uint64_t hv_child(const void *ctx, uint64_t key, int depth, int rank)
{
  return ls_key2(ls_key2(ls_key2(((const hview *)ctx)->seed ^ 0x9e37ULL, key), (uint64_t)depth), (uint64_t)rank);
}

static double syn_verify(const void *c, int n) { (void)c; return 0.060 + 0.0004 * n; }
static double syn_draft(const void *c, int n, int d) { (void)c; (void)d; return 0.0015 + 0.00005 * n; }
static double syn_pair(const void *c, int a, int b, int d) { return fmax(syn_draft(c, a, d), syn_draft(c, b, d)); }
static double syn_saved(const void *c, int n, int kept, int exit_layer)
{
  (void)c;
  double tail = exit_layer >= 32 ? 0 : (32.0 - exit_layer) / 32.0;
  return 0.0004 * (n - kept) * tail;
}

static uint64_t bytes_hash(const void *p, size_t n)
{
  const unsigned char *b = p;
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}

static uint64_t kv_hash(const ls_kv *kv)
{
  uint64_t h = (uint64_t)ls_kv_count(kv);
  for (int i = 0; i < ls_kv_count(kv); i++)
    h = ls_key_str(ls_key_str(h, ls_kv_key(kv, i)), ls_kv_value(kv, i));
  return h;
}

static uint64_t tree_hash(const ls_tree *t)
{
  uint64_t h = bytes_hash(&t->n, sizeof t->n);
  int n = t->n < 0 ? 0 : t->n > LS_TREE_MAX ? LS_TREE_MAX : t->n;
  h ^= bytes_hash(t->parent, (size_t)n * sizeof t->parent[0]) ^ ls_mix64(bytes_hash(t->rank, (size_t)n * sizeof t->rank[0]));
  h ^= ls_mix64(ls_mix64(bytes_hash(t->key, (size_t)n * sizeof t->key[0])));
  return ls_key2(h, bytes_hash(t->step_nodes, (size_t)(t->n_steps > 0 && t->n_steps <= LS_STEPS_MAX ? t->n_steps : 0) * sizeof(int)));
}

/* The tree with canaries either side: a write past it shows. */
typedef struct guarded {
  uint64_t pre[GUARD];
  ls_tree t;
  uint64_t post[GUARD];
} guarded;

static void guard_set(guarded *g) { for (int i = 0; i < GUARD; i++) g->pre[i] = g->post[i] = CANARY; }
static int guard_ok(const guarded *g)
{
  for (int i = 0; i < GUARD; i++)
    if (g->pre[i] != CANARY || g->post[i] != CANARY) return 0;
  return 1;
}

/* The structural rules of a tree (policy.h, tree.c); NULL or what is wrong. */
static const char *tree_problem(const ls_tree *t, const ls_draft_view *v, char *why, size_t size)
{
  double probs[LS_VIEW_TOPK_MAX];
  if (t->n < 1 || t->n > LS_TREE_MAX) return snprintf(why, size, "%d nodes", t->n), why;
  if (t->n_steps < 0 || t->n_steps > LS_STEPS_MAX) return snprintf(why, size, "%d draft passes", t->n_steps), why;
  if (t->parent[0] != -1 || t->depth[0] != 0 || t->key[0] != v->root_key || t->node_step[0] != -1)
    return snprintf(why, size, "the root is not ls_tree_init's (parent, depth, key or step)"), why;
  for (int s = 0; s < t->n_steps; s++)
    if (t->step_nodes[s] < 1 || t->step_dep[s] >= s || t->step_dep[s] < -1)
      return snprintf(why, size, "draft pass %d: %d nodes, depends on pass %d", s, t->step_nodes[s], t->step_dep[s]), why;
  for (int i = 1; i < t->n; i++) {
    int p = t->parent[i];
    if (p < 0 || p >= i) return snprintf(why, size, "node %d: parent %d is not an earlier node", i, p), why;
    if (t->depth[i] != t->depth[p] + 1) return snprintf(why, size, "node %d: depth %d under a parent at depth %d", i, t->depth[i], t->depth[p]), why;
    if (t->rank[i] < 0 || t->rank[i] >= LS_VIEW_TOPK_MAX) return snprintf(why, size, "node %d: rank %d", i, t->rank[i]), why;
    if (t->key[i] != v->child_key(v->ctx, t->key[p], t->depth[p], t->rank[i]))
      return snprintf(why, size, "node %d: key is not the view's key of rank %d under its parent", i, t->rank[i]), why;
    int got = v->candidates(v->ctx, t->key[p], t->depth[p], probs, LS_VIEW_TOPK_MAX);
    if (t->rank[i] >= got || fabs(t->prob[i] - probs[t->rank[i]]) > 1e-12)
      return snprintf(why, size, "node %d: rank %d probability %.6g is not the view's (%d candidates)", i, t->rank[i], t->prob[i], got), why;
    if (fabs(t->path_prob[i] - t->path_prob[p] * t->prob[i]) > 1e-12)
      return snprintf(why, size, "node %d: path probability is not the parent's times its own", i), why;
    if (t->node_step[i] < 0 || t->node_step[i] >= t->n_steps)
      return snprintf(why, size, "node %d: produced by pass %d of %d (every child needs a draft pass)", i, t->node_step[i], t->n_steps), why;
    for (int j = p + 1; j < i; j++)
      if (t->parent[j] == p && t->rank[j] == t->rank[i]) return snprintf(why, size, "nodes %d and %d: the same candidate twice", j, i), why;
  }
  return NULL;
}

/* Feedback: the accepted path of one walk (calibrated draft, see the top). */
static int walk(const ls_tree *t, const ls_draft_view *v, uint64_t seed, int *acc)
{
  int u = 0, n = 0;
  double probs[LS_VIEW_TOPK_MAX];
  for (;;) {
    int got = v->candidates(v->ctx, t->key[u], t->depth[u], probs, LS_VIEW_TOPK_MAX);
    double x = (double)(ls_key2(seed, t->key[u]) >> 11) * 0x1.0p-53, c = 0;
    int r = -1;
    for (int k = 0; k < got && r < 0; k++)
      if (x < (c += probs[k])) r = k;
    int next = -1;
    for (int i = u + 1; r >= 0 && i < t->n && next < 0; i++)
      if (t->parent[i] == u && t->rank[i] == r) next = i;
    if (next < 0) return n;
    acc[n++] = u = next;
  }
}

typedef struct tally {
  int bad[8];           /* per rule of RULES_DRAFT (or the family's list) */
  char why[8][200];
  long calls;
  double secs;
} tally;

static void fail(tally *ty, int rule, const char *fmt, const char *what)
{
  if (ty->bad[rule]++ == 0) snprintf(ty->why[rule], sizeof ty->why[rule], fmt, what);
}

static void report(FILE *f, const char *fam, const char *name, const char *const *rules, const tally *ty,
                   const char *const *tried, int *failed)
{
  char label[96];
  snprintf(label, sizeof label, "%s/%s", fam, name);
  for (int r = 0; rules[r]; r++) {
    fprintf(f, "  %-4s %-20s %-17s %s\n", ty->bad[r] ? "FAIL" : "ok", label, rules[r],
            ty->bad[r] ? ty->why[r] : tried[r]);
    *failed += ty->bad[r] != 0;
  }
  if (ty->calls)
    fprintf(f, "  time %-20s %-17s %.1f us per call (%ld calls; reported, not judged)\n", label, "",
            1e6 * ty->secs / (double)ty->calls, ty->calls);
}

/* ---- draft policies ---- */

enum { D_CREATE, D_BUDGET, D_BUILD, D_VALID, D_WITHIN, D_DET, D_WRITES };

typedef struct dpair {
  const ls_draft_ops *ops;
  void *a, *b;
  ls_kv *kv;
} dpair;

static int dpair_open(dpair *p, int budget, tally *ty)
{
  ls_error err;
  char val[16];
  ls_error_clear(&err);
  snprintf(val, sizeof val, "%d", budget);
  int rc = ls_kv_create(&p->kv, &err);
  if (!rc) rc = ls_kv_set(p->kv, "draft.budget", val, "policy check", &err);
  if (!rc) rc = p->ops->create(&p->a, p->kv, &err);
  if (!rc && ls_kv_unused(p->kv, "draft.budget"))
    fail(ty, D_BUDGET, "%s", "create did not read draft.budget (a draft policy must honour it)");
  if (!rc) rc = p->ops->create(&p->b, p->kv, &err);
  if (rc) {
    char msg[160];
    snprintf(msg, sizeof msg, "draft.budget=%d: %.120s", budget, err.msg);
    fail(ty, D_CREATE, "%s", msg);
  }
  return rc;
}

static void dpair_close(dpair *p)
{
  if (p->a) p->ops->destroy(p->a);
  if (p->b) p->ops->destroy(p->b);
  ls_kv_free(p->kv);
  p->a = p->b = NULL;
  p->kv = NULL;
}

/* One cycle: both instances build on the same view, the rules are checked, both get the
 * same feedback. Returns 0, or -1 when the pair cannot go on. */
static int draft_cycle(dpair *p, int budget, int c, const ls_cost_model *cost, guarded *ga, guarded *gb, tally *ty)
{
  hview hv = {LS_KEY(0x706f6c696379ULL, (uint64_t)budget, (uint64_t)c)};
  ls_draft_view v = {&hv, ls_key2(hv.seed, 1), hv_candidates, hv_child};
  uint64_t kvh = kv_hash(p->kv), hvh = bytes_hash(&hv, sizeof hv), ch = cost ? bytes_hash(cost, sizeof *cost) : 0;
  ls_error err;
  char why[200];
  guard_set(ga);
  guard_set(gb);
  double t0 = ls_now_s();
  int rc = p->ops->build(p->a, &ga->t, &v, cost, &err);
  ty->secs += ls_now_s() - t0;
  ty->calls++;
  int rcb = p->ops->build(p->b, &gb->t, &v, cost, &err);
  if (rc || rcb) {
    snprintf(why, sizeof why, "draft.budget=%d, cycle %d: build failed: %.120s", budget, c, err.msg);
    fail(ty, D_BUILD, "%s", why);
    return -1;
  }
  if (!guard_ok(ga) || !guard_ok(gb)) fail(ty, D_WRITES, "%s", "build wrote outside the tree it was handed");
  if (bytes_hash(&hv, sizeof hv) != hvh) fail(ty, D_WRITES, "%s", "build wrote into the view's context");
  if (cost && bytes_hash(cost, sizeof *cost) != ch) fail(ty, D_WRITES, "%s", "build wrote into the cost model");
  if (kv_hash(p->kv) != kvh) fail(ty, D_WRITES, "%s", "build changed the settings");
  if (tree_problem(&ga->t, &v, why, sizeof why)) {
    fail(ty, D_VALID, "%s", why);
    return -1;
  }
  if (ga->t.n > budget) {
    snprintf(why, sizeof why, "draft.budget=%d, cycle %d: the tree has %d nodes", budget, c, ga->t.n);
    fail(ty, D_WITHIN, "%s", why);
  }
  if (tree_hash(&ga->t) != tree_hash(&gb->t)) {
    snprintf(why, sizeof why, "draft.budget=%d, cycle %d: two instances built different trees (state outside "
             "the instance: a static variable, a clock, rand()?)", budget, c);
    fail(ty, D_DET, "%s", why);
  }
  if (p->ops->feedback) {
    int acc[LS_TREE_MAX];
    int n = walk(&ga->t, &v, hv.seed, acc);
    uint64_t ah = bytes_hash(acc, (size_t)n * sizeof acc[0]), th = tree_hash(&ga->t);
    p->ops->feedback(p->a, &ga->t, acc, n);
    p->ops->feedback(p->b, &ga->t, acc, n);
    if (bytes_hash(acc, (size_t)n * sizeof acc[0]) != ah || tree_hash(&ga->t) != th)
      fail(ty, D_WRITES, "%s", "feedback wrote into the tree or the accepted path");
  }
  return 0;
}

static void draft_checks(const ls_draft_ops *ops, const ls_cost_model *cost, int cycles, tally *ty)
{
  guarded *ga = malloc(sizeof *ga), *gb = malloc(sizeof *gb);
  if (!ga || !gb) {
    fail(ty, D_CREATE, "%s", "out of memory");
    free(ga);
    free(gb);
    return;
  }
  for (int i = 0; i < N_BUDGETS; i++) {
    dpair p = {ops, NULL, NULL, NULL};
    if (dpair_open(&p, BUDGETS[i], ty) == LS_OK)
      for (int c = 0; c < cycles; c++)
        if (draft_cycle(&p, BUDGETS[i], c, c % 2 ? NULL : cost, ga, gb, ty)) /* both: a runner gives one, `tree` may not */
          break;
    dpair_close(&p);
  }
  free(ga);
  free(gb);
}

/* ---- prune policies ---- */

enum { P_CREATE, P_EXIT, P_KEEP, P_DET, P_WRITES };
static const char *const RULES_PRUNE[] = {"create", "exit-layer-range", "keep-valid", "deterministic",
                                          "no-foreign-writes", NULL};

static const char *keep_problem(const ls_tree *t, const unsigned char *keep, int count, char *why, size_t size)
{
  int n = 0;
  if (!keep[0]) return snprintf(why, size, "the root was not kept"), why;
  for (int i = 0; i < t->n; i++) {
    if (keep[i] > 1) return snprintf(why, size, "keep[%d] = %d (0 or 1 only)", i, keep[i]), why;
    if (i && keep[i] && !keep[t->parent[i]])
      return snprintf(why, size, "node %d kept without its parent %d (a kept set is closed under ancestors)", i, t->parent[i]), why;
    n += keep[i];
  }
  if (n != count) return snprintf(why, size, "returned %d, kept %d", count, n), why;
  return NULL;
}

/* One prune by both instances of a reference tree; checks the rules. */
static void prune_once(const ls_prune_ops *ops, void *a, void *b, const ls_tree *t, uint64_t seed,
                       const ls_prune_ctx *pc, const ls_kv *kv, tally *ty)
{
  double score[LS_TREE_MAX];
  unsigned char ka[LS_TREE_MAX + GUARD], kb[LS_TREE_MAX + GUARD];
  char why[200];
  for (int i = 0; i < t->n; i++)
    score[i] = (double)(ls_key2(seed, (uint64_t)i) >> 11) * 0x1.0p-53 * (t->depth[i] < 3 ? 1.0 : 0.6);
  memset(ka, 0, sizeof ka);
  memset(ka + t->n, 0xa5, GUARD);
  memcpy(kb, ka, sizeof kb);
  uint64_t th = tree_hash(t), sh = bytes_hash(score, (size_t)t->n * sizeof score[0]);
  uint64_t ph = pc ? bytes_hash(pc, sizeof *pc) : 0, kvh = kv_hash(kv);
  double t0 = ls_now_s();
  int na = ops->prune(a, t, score, ka, pc);
  ty->secs += ls_now_s() - t0;
  ty->calls++;
  int nb = ops->prune(b, t, score, kb, pc);
  for (int i = 0; i < GUARD; i++)
    if (ka[t->n + i] != 0xa5) {
      fail(ty, P_WRITES, "%s", "prune wrote past keep[n-1]");
      break;
    }
  if (tree_hash(t) != th || bytes_hash(score, (size_t)t->n * sizeof score[0]) != sh)
    fail(ty, P_WRITES, "%s", "prune wrote into the tree or the scores");
  if ((pc && bytes_hash(pc, sizeof *pc) != ph) || kv_hash(kv) != kvh)
    fail(ty, P_WRITES, "%s", "prune wrote into its context or the settings");
  if (keep_problem(t, ka, na, why, sizeof why)) fail(ty, P_KEEP, "%s", why);
  if (na != nb || memcmp(ka, kb, (size_t)t->n) != 0)
    fail(ty, P_DET, "%s", "two instances kept different nodes of the same tree and scores");
}

static void prune_checks(const ls_prune_ops *ops, const ls_cost_model *cost, int cycles, tally *ty)
{
  static const int LAYERS[] = {1, 2, 28, 32, 40, 80};
  ls_error err;
  ls_kv *kv = NULL, *dkv = NULL;
  void *a = NULL, *b = NULL, *d = NULL;
  ls_tree *t = malloc(sizeof *t);
  const ls_draft_ops *ref = ls_draft_find("eagle2"); /* 60 nodes, wide and deep */
  int rc = t ? ls_kv_create(&kv, &err) : ls_error_set(&err, LS_ENOMEM, "out of memory");
  if (!rc) rc = ops->create(&a, kv, &err);
  if (!rc) rc = ops->create(&b, kv, &err);
  if (!rc) rc = ls_kv_create(&dkv, &err);
  if (!rc) rc = ref->create(&d, dkv, &err);
  if (rc) fail(ty, P_CREATE, "%.150s", err.msg);
  for (int i = 0; !rc && i < (int)(sizeof LAYERS / sizeof LAYERS[0]); i++) {
    int e = ops->exit_layer(a, LAYERS[i]);
    if (e < 0 || e > LAYERS[i]) {
      char why[120];
      snprintf(why, sizeof why, "exit_layer = %d for a target of %d layers", e, LAYERS[i]);
      fail(ty, P_EXIT, "%s", why);
    }
  }
  for (int c = 0; !rc && c < cycles; c++) {
    hview hv = {LS_KEY(0x7072756e65ULL, (uint64_t)c)};
    ls_draft_view v = {&hv, ls_key2(hv.seed, 1), hv_candidates, hv_child};
    if (ref->build(d, t, &v, NULL, &err)) break;
    ls_prune_ctx pc = {cost, 32, 16, 0.01};
    prune_once(ops, a, b, t, hv.seed, c % 2 ? NULL : &pc, kv, ty);
  }
  if (a) ops->destroy(a);
  if (b) ops->destroy(b);
  if (d) ref->destroy(d);
  ls_kv_free(kv);
  ls_kv_free(dkv);
  free(t);
}

/* ---- map policies ---- */

enum { M_CREATE, M_EXEC, M_DET };
static const char *const RULES_MAP[] = {"create", "exec-valid", "deterministic", NULL};

static void map_checks(const ls_map_ops *ops, tally *ty)
{
  ls_error err;
  ls_kv *kv = NULL;
  void *a = NULL, *b = NULL;
  char why[200];
  int rc = ls_kv_create(&kv, &err);
  if (!rc) rc = ops->create(&a, kv, &err);
  if (!rc) rc = ops->create(&b, kv, &err);
  if (rc) fail(ty, M_CREATE, "%.150s", err.msg);
  if (!rc) {
    ls_lmhead h = ops->lmhead(a);
    ls_unit u = ops->target_unit(a);
    if ((int)h < LS_LMHEAD_EAGER_NPU || (int)h > LS_LMHEAD_DEMAND_CPU) fail(ty, M_EXEC, "%s", "lmhead is not a ls_lmhead value");
    if ((int)u != LS_UNIT_CPU && (int)u != LS_UNIT_NPU) fail(ty, M_EXEC, "%s", "target_unit is not a ls_unit value");
    if (h != ops->lmhead(b) || u != ops->target_unit(b)) fail(ty, M_DET, "%s", "two instances place the head or the target differently");
  }
  for (int n = 1; !rc && n <= LS_TREE_MAX; n += n < 64 ? 1 : 61)
    for (int depth = 0; depth <= 12; depth++) {
      double t0 = ls_now_s();
      ls_draft_exec x = ops->draft_step(a, n, depth);
      ty->secs += ls_now_s() - t0;
      ty->calls++;
      ls_draft_exec y = ops->draft_step(b, n, depth);
      if (((int)x.unit != LS_UNIT_CPU && (int)x.unit != LS_UNIT_NPU) || x.calls < 1 || x.tokens_per_call < 1 ||
          (long)x.calls * x.tokens_per_call < n) {
        snprintf(why, sizeof why, "a pass of %d nodes at depth %d: unit %d, %d calls of %d tokens", n, depth,
                 (int)x.unit, x.calls, x.tokens_per_call);
        fail(ty, M_EXEC, "%s", why);
      }
      if (x.unit != y.unit || x.calls != y.calls || x.tokens_per_call != y.tokens_per_call)
        fail(ty, M_DET, "%s", "two instances answer the same pass differently");
    }
  if (a) ops->destroy(a);
  if (b) ops->destroy(b);
  ls_kv_free(kv);
}

int ls_conform_run(const ls_policy_set *s, ls_policy_family f, const char *name,
                   const ls_conform_opts *o, int *failed, ls_error *err)
{
  static const char *const FAM[] = {"draft", "prune", "map"};
  static const ls_cost_model SYN = {NULL, syn_verify, syn_draft, syn_pair, syn_saved};
  const ls_cost_model *cost = o->cost ? o->cost : &SYN;
  int cycles = o->cycles > 0 ? o->cycles : 40;
  tally ty;
  memset(&ty, 0, sizeof ty);
  *failed = 0;
  if (f == LS_FAMILY_DRAFT) {
    const ls_draft_ops *ops = ls_policy_set_draft(s, name);
    if (!ops) return ls_error_set(err, LS_ENOTFOUND, "no draft policy '%s'", name);
    draft_checks(ops, cost, cycles, &ty);
    const char *tried[] = {"created from empty settings and at each budget", "read at create",
                           "every build returned 0", "parents first, the view's keys and probabilities, every pass logged",
                           "at draft.budget = 1, 4, 16, 64", "two instances interleaved, same trees",
                           "tree canaries, view, cost model, settings, accepted path untouched"};
    report(o->out, FAM[f], name, RULES_DRAFT, &ty, tried, failed);
  } else if (f == LS_FAMILY_PRUNE) {
    const ls_prune_ops *ops = ls_policy_set_prune(s, name);
    if (!ops) return ls_error_set(err, LS_ENOTFOUND, "no prune policy '%s'", name);
    prune_checks(ops, cost, cycles, &ty);
    const char *tried[] = {"created from empty settings", "targets of 1 to 80 layers",
                           "root kept, count returned, closed under ancestors",
                           "two instances, same kept sets", "keep past n, tree, scores, context untouched"};
    report(o->out, FAM[f], name, RULES_PRUNE, &ty, tried, failed);
  } else {
    const ls_map_ops *ops = ls_policy_set_map(s, name);
    if (!ops) return ls_error_set(err, LS_ENOTFOUND, "no map policy '%s'", name);
    map_checks(ops, &ty);
    const char *tried[] = {"created from empty settings", "passes of 1 to 1024 nodes, depths 0 to 12",
                           "two instances, same answers"};
    report(o->out, FAM[f], name, RULES_MAP, &ty, tried, failed);
  }
  return LS_OK;
}
