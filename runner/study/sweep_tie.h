/* runner/study/sweep_tie: the axes of a finished sweep whose values changed nothing, found from
 * the results themselves (runner/study/noeffect.h finds, before any run, only the values a
 * setting's known cap turns into another: a draft.budget above SpecInfer's tree).
 *
 * A value can change nothing without any cap saying so: Lever's stopping rule may end every
 * tree below the smallest budget swept, and a setting the system never reads changes nothing
 * either. After the runs, each axis of the study (a key of the runs' sweep point with two
 * values or more) is judged over its configurations (part, device, model, dataset, system,
 * seed and every other axis value): a configuration ties when all its runs are ok and their
 * per-prompt results (table prompts: every column, bit for bit) are the same. One warning line
 * per axis: when every configuration ties, or, when some systems tie in all their
 * configurations and others do not, naming the systems that do. */
#ifndef LS_RUNNER_SWEEP_TIE_H
#define LS_RUNNER_SWEEP_TIE_H
#include <stdio.h>
#include "results/db.h"
#include "runner/study/experiment.h"

/* Judges the runs of x as db holds them (db: borrowed, read only; the sweep's database) and
 * prints the warnings to f, each line starting with prefix; *count gets their number. Runs
 * missing from db (not run, or failed) are left out of their configuration's comparison. */
int ls_sweep_tie_warn(ls_experiment *x, ls_db *db, FILE *f, const char *prefix, int *count, ls_error *err);

#endif
