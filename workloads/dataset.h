/* workloads/dataset: a workload (workloads/datasets/<id>.yaml) — prompt and output length
 * distributions and the acceptance process the token oracle draws from.
 *
 * Real datasets (mt-bench, humaneval, mbpp, gsm8k) carry one synthetic acceptance process per
 * draft/target family and mode: "llama3", "qwen3-think", "qwen3-nothink" (the Qwen3 mode is
 * the setting workload.thinking, read by the oracle). Validation pseudo-datasets: "iid"
 * (the drafted top-1 token is accepted with probability workload.alpha) and "positional"
 * (the k-th child of an accepted node is accepted with probability workload.p[k]).
 * Parameters and their sources are documented in each YAML file; the process itself is
 * described at the top of workloads/oracle.c. */
#ifndef LS_WORKLOADS_DATASET_H
#define LS_WORKLOADS_DATASET_H
#include "sim/error.h"

typedef struct ls_dataset ls_dataset;

/* Loads data_root/workloads/datasets/<id>.yaml; unknown id -> LS_ENOTFOUND listing the valid
 * ids. *out owned by caller (ls_dataset_free). */
int ls_dataset_load_id(ls_dataset **out, const char *data_root, const char *id, ls_error *err);
/* Loads one dataset file; errors name file:line:col. *out owned by caller. */
int ls_dataset_load(ls_dataset **out, const char *path, ls_error *err);
/* Writes up to max ids (sorted); returns how many exist, or a negative status. */
int ls_dataset_list(const char *data_root, char (*ids)[64], int max);
void ls_dataset_free(ls_dataset *d);
const char *ls_dataset_id(const ls_dataset *d); /* borrowed */
/* Prompts of a run that names none (workload.prompts). */
int ls_dataset_default_prompts(const ls_dataset *d);

typedef enum { LS_DATASET_SYNTH = 0, LS_DATASET_IID, LS_DATASET_POSITIONAL } ls_dataset_kind;

#endif
