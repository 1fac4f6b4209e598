/* workloads/dataset_int: the dataset record, shared by dataset.c, oracle.c, trace code and
 * tests/workloads only. The meaning of every field is at the top of oracle.c. */
#ifndef LS_WORKLOADS_DATASET_INT_H
#define LS_WORKLOADS_DATASET_INT_H
#include "workloads/dataset.h"
#include "workloads/view.h"

/* Acceptance processes: per target family and mode, for a small draft model and (offset by
 * LS_PROC_EAGLE3_OFFSET) for the target's EAGLE-3 head. */
enum {
  LS_PROC_LLAMA3 = 0, LS_PROC_QWEN3_THINK, LS_PROC_QWEN3_NOTHINK,
  LS_PROC_LLAMA3_E3, LS_PROC_QWEN3_THINK_E3, LS_PROC_QWEN3_NOTHINK_E3, LS_PROC_COUNT
};
#define LS_PROC_EAGLE3_OFFSET 3
extern const char *const ls_wl_process_names[LS_PROC_COUNT + 1];

typedef struct ls_wl_lendist {
  double median, sigma; /* lognormal: exp(log(median) + sigma * z) */
  int min, max;         /* clamp, inclusive */
} ls_wl_lendist;

typedef struct ls_wl_regime {
  double logit_mean, logit_sd; /* draft top-1 probability = logistic(mean + sd * z) */
  double tail;                 /* stick-breaking concentration of ranks 2.. (Beta(1, tail)) */
  double agree;                /* kappa: scale of P(target picks rank i) = kappa * q_i^gamma */
} ls_wl_regime;

typedef struct ls_wl_process {
  int present;
  double easy_to_hard, hard_to_easy; /* regime Markov chain transition probabilities per token */
  ls_wl_regime regime[2];            /* 0 easy, 1 hard */
  double calibration;                /* gamma */
  double output_scale;               /* multiplies the dataset's output lengths (thinking) */
} ls_wl_process;

struct ls_dataset {
  char id[64];
  ls_dataset_kind kind;
  ls_wl_lendist prompt_len, output_len;
  int default_prompts;
  double auc;         /* early-exit predictor AUC at equal draft confidence */
  double conf_weight; /* predictor score's weight on logit(draft probability) */
  double alpha;       /* iid default */
  double p[LS_VIEW_TOPK_MAX]; /* positional default */
  int np;
  ls_wl_process proc[LS_PROC_COUNT];
};

#endif
