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

/* Padding twins. A run whose settings give device.npu.pad_small = true is the padding twin of an
 * earlier run when its resolved configuration with that setting false is the earlier run's
 * (the same reuse id: every other setting, seed and input the same). The two compute the same
 * times call by call unless padding decides an NPU call, which the earlier run's simulation
 * reports exactly (devices/npu.h, ls_npu_report): when it reports none, the twin's results are
 * its results, bit for bit. */

/* Marks the padding twins of x: lead[i] == i for a run simulated by itself (lead as the study
 * driver makes it: lead[j] = i when run j has run i's reuse id, i < j); a twin j of lead i that
 * no other run reuses gets lead[j] = i and lead[n + j] = 1 (lead holds 2n entries, the second
 * half 0 on entry; n = ls_experiment_count(x)). data_root and policies as the study's. Returns
 * the number of twins marked; a twin whose flipped configuration cannot be set up is left alone. */
int ls_noeffect_pad_twins(ls_experiment *x, const char *data_root, const ls_policy_set *policies, int *lead);

/* 1 when lead_res, the simulation of a twin's lead, may stand for the twin: a valid run whose
 * NPU report was kept and counts no call that padding decides. Then *out gets the twin's record:
 * lead_res's results (borrowed: out's steps and prompts are lead_res's) with the twin's own
 * resolved settings, from its check (owned by *chk, which the caller frees with
 * ls_decode_result_free after using out). 0: the twin must be simulated (*chk then holds
 * nothing to free). */
int ls_noeffect_twin_result(ls_decode_cache *cache, ls_run_spec *twin, const ls_decode_result *lead_res,
                            ls_decode_result *chk, ls_decode_result *out);

#endif
