/* policies/conform: the conformance tests of one policy, built in or from a plug-in — the
 * rules of policies/policy.h, each checked and reported by name (`leversim policy check`).
 *
 * A draft policy builds trees over many cycles on a hashed view (candidate probabilities that
 * differ from node to node), at several budgets, with and without a cost model, getting the
 * feedback of a simulated acceptance walk; a prune policy prunes trees of a reference draft
 * policy under hashed scores; a map policy answers every step size and depth. Each rule's line
 * says what was tried; the time per call is reported, never judged. The checks run in the
 * calling process: a policy that crashes takes it down, so the command runs each policy in a
 * child process (runner/cli/cmd_policy.c). */
#ifndef LS_POLICIES_CONFORM_H
#define LS_POLICIES_CONFORM_H
#include <stdio.h>
#include "policies/plugin.h"

typedef struct ls_conform_opts {
  const ls_cost_model *cost; /* borrowed; NULL: a synthetic cost model (conform.c) */
  int cycles;                /* cycles per budget (0: 40) */
  FILE *out;                 /* one line per rule and the timing line */
} ls_conform_opts;

/* Checks policy name of family f (looked up in s; NULL: built-ins). Returns LS_OK and sets
 * *failed to the number of rules broken (0: conforms); LS_ENOTFOUND for an unknown name. */
int ls_conform_run(const ls_policy_set *s, ls_policy_family f, const char *name,
                   const ls_conform_opts *o, int *failed, ls_error *err);

#endif
