/* runner/study/noeffect: which points of a study change nothing — swept values of a setting
 * that take effect at another value (ls_decode_effective: a draft.budget above the tree
 * SpecInfer's draft.expansion allows), so several points of an axis are the same run.
 *
 * Checks every run of the study (ls_decode_check: set-up only, no simulation) and prints one
 * warning line per (setting, system, reason), naming the values, the value they take and the
 * setting that caps them, with the number of configurations it holds in. */
#ifndef LS_RUNNER_NOEFFECT_H
#define LS_RUNNER_NOEFFECT_H
#include <stdio.h>
#include "runner/decode/decode.h"
#include "runner/study/experiment.h"

/* Prints the warnings to f, each line starting with prefix; *count gets their number. policies:
 * borrowed, NULL for the built-ins. */
int ls_noeffect_warn(ls_experiment *x, const ls_policy_set *policies, FILE *f, const char *prefix,
                     int *count, ls_error *err);

#endif
