/* workloads/oracle: the token oracle — the synthetic "text" every system decodes.
 *
 * For prompt p and text position t it answers, from counter-based draws keyed by
 * (seed, p, t, path): the draft's top-K candidate probabilities at any tree node (through the
 * ls_draft_view of workloads/view.h, which policies see), and — for the runner's acceptance
 * step only — which candidate the target picks on the true path, and an early-exit predictor
 * score per node. Nodes on the true path have canonical keys per (seed, p, t), so every
 * system sees the same text whatever position its cycles start at; off-path keys hash
 * (parent key, rank). Answers never depend on query order. The model and its equations are
 * at the top of workloads/oracle.c.
 *
 * Settings read from kv (all optional):
 *   workload.prompts   prompts in a run (default 8)
 *   workload.thinking  Qwen3 targets: true|false (default false: non-thinking)
 *   workload.alpha     iid: top-1 acceptance (default 0.7)
 *   workload.p         positional: p_1,p_2,... (default 0.6,0.2,0.1)
 *   workload.auc       early-exit predictor AUC (default: the dataset's value)
 * Hot path (candidates, child_key, true_rank, exit_score): no allocation, no GSL objects. */
#ifndef LS_WORKLOADS_ORACLE_H
#define LS_WORKLOADS_ORACLE_H
#include <stdint.h>
#include "sim/error.h"
#include "sim/kv.h"
#include "workloads/dataset.h"
#include "workloads/model.h"
#include "workloads/view.h"

#define LS_ORACLE_OFF_PATH (-2)

typedef struct ls_oracle ls_oracle;

/* ds, target and draft are borrowed (only read during create). kv: "workload.*" settings are
 * read and marked used; unknown ones are left for ls_kv_check_used. kv may be NULL.
 * *out owned by caller (ls_oracle_free). */
int ls_oracle_create(ls_oracle **out, const ls_dataset *ds, const ls_model *target,
                     const ls_model *draft, uint64_t seed, ls_kv *kv, ls_error *err);
void ls_oracle_free(ls_oracle *o);
/* A set of the oracle's quantile tables shared by many oracles (a worker's runs): a table is
 * a pure function of the acceptance process's parameters, and is built the first time an
 * oracle of those parameters is created in the set. Oracles made with a set borrow its tables,
 * so the set must outlive them. Not for concurrent use. */
typedef struct ls_oracle_tables ls_oracle_tables;
int ls_oracle_tables_create(ls_oracle_tables **out, ls_error *err);
void ls_oracle_tables_free(ls_oracle_tables *t);
int ls_oracle_tables_count(const ls_oracle_tables *t); /* distinct tables built so far */
/* ls_oracle_create, with the tables taken from (or added to) tabs (borrowed; NULL: the oracle
 * builds and owns its own). The oracle is the same, answer for answer. */
int ls_oracle_create_shared(ls_oracle **out, ls_oracle_tables *tabs, const ls_dataset *ds,
                            const ls_model *target, const ls_model *draft, uint64_t seed,
                            ls_kv *kv, ls_error *err);
/* ls_oracle_create's reading and checking of the settings and inputs, without building the
 * text (fast: for checking a run before it is simulated). */
int ls_oracle_check(const ls_dataset *ds, const ls_model *target, const ls_model *draft, ls_kv *kv,
                    ls_error *err);

int ls_oracle_prompts(const ls_oracle *o);               /* prompts in the run */
int ls_oracle_prompt_len(const ls_oracle *o, int prompt); /* tokens, per (seed, prompt) */
int ls_oracle_output_len(const ls_oracle *o, int prompt); /* tokens to generate */

/* One cycle's handle: plain, caller storage. The view filled by ls_oracle_begin points at
 * cyc (view->ctx == cyc), so cyc must stay in place while the view is used. */
typedef struct ls_oracle_cycle {
  const ls_oracle *o;
  int prompt;
  int pos;
  uint64_t root_key;
  /* the last parent the view's child_key was asked about (a builder asks for a parent's
   * children one after another): its key and depth, the true rank there (or a value no rank
   * takes, off the true path), the key of the true child, and ls_mix64(key2(key, CHILD)) */
  int memo_ok, memo_depth, memo_rank;
  uint64_t memo_key, memo_next, memo_child;
} ls_oracle_cycle;

/* The view for a cycle whose root is text position pos (the last accepted token) of prompt
 * (0 <= prompt < prompts, pos >= 0). */
void ls_oracle_begin(const ls_oracle *o, int prompt, int pos, ls_oracle_cycle *cyc,
                     ls_draft_view *view);
/* Ground truth, for the runner's acceptance step only: for a node on the true path, the rank
 * of the target's next token among the draft's candidates there (>= 0), or -1 when it is
 * not among them; LS_ORACLE_OFF_PATH (-2) for a node that is not on the true path. */
int ls_oracle_true_rank(const ls_oracle_cycle *cyc, uint64_t key, int depth);
/* Early-exit predictor score of a node (higher = more likely accepted), drawn conditional on
 * whether the node is on the true path; separation set by the AUC, plus a dependence on the
 * draft's confidence draft_prob (the node's probability given its parent). */
double ls_oracle_exit_score(const ls_oracle_cycle *cyc, uint64_t key, int depth,
                            double draft_prob);
/* The early-exit AUC in use (dataset value or workload.auc). */
double ls_oracle_auc(const ls_oracle *o);

#endif
