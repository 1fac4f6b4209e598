/* policies/policy: the public interface of drafting, pruning and mapping policies, built in
 * or loaded from a plug-in (`--plugin FILE.so`; docs/POLICIES.md walks through writing one).
 *
 * A cycle's token tree (ls_tree) is built by a draft policy from an ls_draft_view (draft
 * probabilities only) and an ls_cost_model (device cost queries), pruned at the target's
 * exit layer by a prune policy from predictor scores, and executed on CPU/NPU as a map policy
 * says. Policies never see ground truth: nothing here reaches workloads/oracle.h.
 *
 * Tree conventions (docs/ARCHITECTURE.md, "Trees"): node 0 is the root, the last accepted token, which
 * the target also processes; a tree of n nodes is verified as n tokens. "Budget" counts all
 * verified tokens including the root. Nodes are stored parents-before-children.
 *
 * Draft cost accounting: every draft forward pass is recorded as a step (ls_tree_expand),
 * with the number of nodes it evaluated, whether or not those nodes stay in the final tree.
 * The runner charges draft time per step as the map policy decides (single-node calls,
 * batched calls, CPU or NPU). A step may start once the step it depends on (step_dep: the
 * latest pass that produced one of its nodes) has finished, so two passes mapped to
 * different units run at the same time when neither needs the other's output.
 *
 * The contract every policy keeps (`leversim policy check` tests each rule by name):
 *  - reads-budget: a draft policy reads draft.budget (ls_kv_int) when it is created;
 *  - tree-valid: build leaves a tree made only by ls_tree_init, ls_tree_add and
 *    ls_tree_expand (or equal to one), every node a candidate the view returned with the
 *    probability it returned, every draft pass in the step log;
 *  - within-budget: the tree has at most draft.budget nodes, root included;
 *  - deterministic: all state lives in the state create returns; two instances created from
 *    the same settings, given the same views and feedback, build the same trees (no static or
 *    global variables, no clocks, no rand());
 *  - no-foreign-writes: a policy writes only its state and the tree (or keep[0..n-1]) it is
 *    handed; the view, the cost model, the settings, the scores and the accepted path are
 *    read-only, and it never writes files or prints;
 *  - keep-valid: a prune keeps the root, returns the number of nodes kept and keeps a set
 *    closed under ancestors; exit_layer is in [0, n_layers];
 *  - exec-valid: a map policy's draft_step covers the step's nodes (calls * tokens_per_call
 *    >= n_nodes, both >= 1) on a unit that exists, its lmhead and target_unit are values of
 *    their enums, and its answers depend on its arguments and state only.
 * Ownership: create allocates *state (the caller frees it with destroy, once); ls_kv, view,
 * cost model and error are borrowed for the call; strings in an ops table are static. */
#ifndef LS_POLICIES_POLICY_H
#define LS_POLICIES_POLICY_H
#include <stddef.h>
#include <stdint.h>
#include "sim/error.h"
#include "sim/kv.h"
#include "workloads/view.h"

#define LS_TREE_MAX 1024  /* nodes in one tree, root included */
#define LS_STEPS_MAX 1024 /* draft forward steps in one cycle */

typedef struct ls_tree {
  int n;                          /* nodes, root included */
  int parent[LS_TREE_MAX];        /* -1 for the root */
  int depth[LS_TREE_MAX];         /* root 0 */
  int rank[LS_TREE_MAX];          /* candidate rank within the parent's draft top-k; root -1 */
  double prob[LS_TREE_MAX];       /* draft probability given the parent; root 1 */
  double path_prob[LS_TREE_MAX];  /* product of prob from the root */
  uint64_t key[LS_TREE_MAX];      /* view node key */
  int n_steps;                    /* draft forward passes made while building */
  int step_nodes[LS_STEPS_MAX];   /* nodes evaluated by each pass */
  int step_depth[LS_STEPS_MAX];   /* depth of the nodes evaluated (max, for mixed steps) */
  int step_dep[LS_STEPS_MAX];     /* the latest earlier pass whose output this one needs (-1: none) */
  int node_step[LS_TREE_MAX];     /* the pass that produced each node (-1: the root) */
} ls_tree;

/* Device cost queries a policy may use, filled by the runner (or `leversim tree`) from the
 * device profile, the target and draft models and the map policy. Seconds. */
typedef struct ls_cost_model {
  const void *ctx; /* borrowed */
  /* Wall time of one verification pass over n tree tokens: flash streaming of the
   * non-resident target layers (paid once per pass, overlapped with compute by prefetch),
   * NPU compute at the padded token count, output projection as mapped. */
  double (*verify_s)(const void *ctx, int n_tokens);
  /* Wall time of one draft forward pass evaluating n_nodes nodes at a depth, on the unit
   * and with the batching the map policy picks. */
  double (*draft_step_s)(const void *ctx, int n_nodes, int depth);
  /* Wall time of two passes that do not need each other's output, started together (n1
   * nodes, then n2 at the same depth): the slower one when the map puts them on different
   * units, their sum on the same unit. May be NULL (then passes are taken one after another). */
  double (*draft_pair_s)(const void *ctx, int n1, int n2, int depth);
  /* What one verification pass over n_tokens tree tokens saves when the target layers from
   * exit_layer on (0-based: exit_layer layers were computed over the whole tree) and an eager
   * output projection compute only n_kept tokens, the survivors of pruning at that layer:
   * verify_s(n_tokens) less the pass with the pruned tail, priced with the same terms (a
   * streamed layer whose read is slower than its compute saves nothing). May be NULL (then
   * a prune policy cannot price a prune). */
  double (*verify_saved_s)(const void *ctx, int n_tokens, int n_kept, int exit_layer);
} ls_cost_model;

/* What a prune policy may know of the pass it prunes, besides the tree and the scores: the
 * cost queries the draft policy planned with (NULL: none, e.g. a policy test or a tool that
 * has no device), where pruning happens and the cycle's time so far. */
typedef struct ls_prune_ctx {
  const ls_cost_model *cost; /* borrowed; NULL: no cost queries */
  int n_layers;              /* target layers */
  int exit_layer;            /* layers computed over the whole tree before pruning */
  double spent_s;            /* the cycle's wall time before verification began (drafting), s */
} ls_prune_ctx;

/* ---- tree helpers (policies/tree.c) ---- */
void ls_tree_init(ls_tree *t, const ls_draft_view *v);
/* Adds a child of parent with the given rank and draft probability; returns its index or
 * -1 when the tree is full. */
int ls_tree_add(ls_tree *t, const ls_draft_view *v, int parent, int rank, double prob);
/* One draft forward pass over nodes[0..n-1]: writes each node's top-k candidate
 * probabilities to probs[i*k .. i*k+k-1] (zero-filled past what the view returned) and
 * records the step. Returns LS_OK or LS_ERANGE when the step log is full. */
int ls_tree_expand(ls_tree *t, const ls_draft_view *v, const int *nodes, int n, int k, double *probs);

/* ---- ops tables ---- */

typedef struct ls_draft_ops {
  const char *name;
  const char *summary;
  /* Reads its settings ("draft.*") from kv; *state owned by the caller, freed by destroy. */
  int (*create)(void **state, ls_kv *kv, ls_error *err);
  void (*destroy)(void *state);
  /* Builds this cycle's tree into t (t is initialised by build itself). */
  int (*build)(void *state, ls_tree *t, const ls_draft_view *v, const ls_cost_model *cost,
               ls_error *err);
  /* What was accepted: accepted[0..n-1] are node indices of t on the accepted path in depth
   * order (root excluded). Online statistics only; may be NULL. */
  void (*feedback)(void *state, const ls_tree *t, const int *accepted, int n);
  /* The value setting key (one this policy read) takes in effect when that is not the value
   * read: e.g. a draft.budget above the largest tree the policy's other settings allow. Writes
   * it and why (naming the setting that caps it) and returns 1; returns 0 when key takes
   * effect as read. May be NULL (every setting takes effect as read). */
  int (*effective)(const void *state, const char *key, double *value, char *why, size_t size);
} ls_draft_ops;

typedef struct ls_prune_ops {
  const char *name;
  const char *summary;
  int (*create)(void **state, ls_kv *kv, ls_error *err); /* reads "prune.*" */
  void (*destroy)(void *state);
  /* Exit layer of a target with n_layers layers (0 = never prunes). */
  int (*exit_layer)(const void *state, int n_layers);
  /* score[i]: the early-exit predictor's score of node i (higher = more likely accepted).
   * Sets keep[i] to 1 for surviving nodes (the root always survives); returns the count.
   * pc (may be NULL: no cost queries, no cycle time) says what the prune would save. */
  int (*prune)(void *state, const ls_tree *t, const double *score, unsigned char *keep, const ls_prune_ctx *pc);
} ls_prune_ops;

typedef enum { LS_UNIT_CPU = 0, LS_UNIT_NPU = 1 } ls_unit;
typedef enum {
  LS_LMHEAD_EAGER_NPU = 0,  /* output projection for every tree node, in the NPU graph */
  LS_LMHEAD_DEMAND_NPU = 1, /* only along the accepted path, on the NPU */
  LS_LMHEAD_DEMAND_CPU = 2  /* only along the accepted path, on the CPU */
} ls_lmhead;

/* How one draft step runs: on which unit, in how many separate forward calls, each over how
 * many tokens (calls * tokens_per_call >= the step's nodes; padding is the device's job). */
typedef struct ls_draft_exec {
  ls_unit unit;
  int calls;
  int tokens_per_call;
} ls_draft_exec;

typedef struct ls_map_ops {
  const char *name;
  const char *summary;
  int (*create)(void **state, ls_kv *kv, ls_error *err); /* reads "map.*" */
  void (*destroy)(void *state);
  ls_draft_exec (*draft_step)(const void *state, int n_nodes, int depth);
  ls_lmhead (*lmhead)(const void *state);
  ls_unit (*target_unit)(const void *state); /* where target layers run */
} ls_map_ops;

/* ---- registry (policies/registry.c) ---- */
const ls_draft_ops *ls_draft_find(const char *name);
const ls_prune_ops *ls_prune_find(const char *name);
const ls_map_ops *ls_map_find(const char *name);
/* NULL-terminated name lists, for "valid choices" messages. */
const char *const *ls_draft_names(void);
const char *const *ls_prune_names(void);
const char *const *ls_map_names(void);

/* ---- plug-ins ----
 * A plug-in is a shared object that defines one const data symbol, LS_PLUGIN_SYMBOL, of type
 * ls_plugin: its name and NULL-terminated arrays of ops tables (a family it does not add may
 * be NULL). It calls the tree helpers above and the sim/kv.h getters, which the leversim
 * binary provides; it links nothing of leversim itself. A policy name may not repeat a
 * built-in one or another loaded plug-in's. */
#define LS_PLUGIN_ABI 2 /* raised whenever the meaning of a field changes (2: ls_draft_ops.effective) */
#define LS_PLUGIN_SYMBOL "leversim_plugin"
/* The sizes of everything a plug-in and leversim exchange, in one number: a plug-in built
 * against a header whose ops tables, tree or views differ in size is refused, even when
 * nobody raised LS_PLUGIN_ABI (a table read past its end would call garbage). */
#define LS_PLUGIN_LAYOUT                                                                           \
  ((((((unsigned long)sizeof(ls_tree) * 131u + sizeof(ls_draft_ops)) * 131u + sizeof(ls_prune_ops)) * \
     131u + sizeof(ls_map_ops)) * 131u + sizeof(ls_draft_view)) * 131u + sizeof(ls_cost_model))

typedef struct ls_plugin {
  int abi;                            /* LS_PLUGIN_ABI of the header it was built against */
  unsigned long layout;               /* LS_PLUGIN_LAYOUT there */
  const char *name;                   /* the plug-in's name, e.g. "greedy-example" */
  const char *summary;                /* one line */
  const ls_draft_ops *const *drafts;  /* NULL-terminated; may be NULL */
  const ls_prune_ops *const *prunes;  /* NULL-terminated; may be NULL */
  const ls_map_ops *const *maps;      /* NULL-terminated; may be NULL */
} ls_plugin;

#endif
