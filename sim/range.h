/* sim/range: the one table of value ranges (issue 35).
 *
 * Every number a device profile, model file, dataset file, experiment file or the command line
 * (--set, --prompts, --tokens) may hold is checked against one row of this table, whichever of
 * them holds it: a value one of them accepts and another refuses cannot be written, because
 * there is only one pair of bounds. (A profile with a flash link of 1 B/s passed `profiles
 * validate` while --set refused it, and its run overflowed.) Each row names the keys that hold
 * the quantity and says why its bounds are what they are: a physical limit, or a numerical one
 * of the simulator (time is kept in int64 nanoseconds; a run must end).
 *
 * Readers do not pass bounds; they pass a row: ls_range_yreq / ls_range_yopt / ls_range_yas for
 * YAML (sim/yaml), ls_range_kv for settings (sim/kv). Relations between values (a budget below
 * its capacity, threads within the cores) stay with the reader that knows both.
 * `leversim settings` prints the table (ls_range_print); results readers re-check stored
 * values against it (ls_range_check), since an input database's CHECK constraints are the
 * file's own and prove nothing. */
#ifndef LS_SIM_RANGE_H
#define LS_SIM_RANGE_H
#include <stdio.h>
#include "sim/error.h"
#include "sim/kv.h"
#include "sim/units.h"
#include "sim/yaml.h"

typedef enum ls_range_id {
  /* device profiles (devices/) */
  LS_R_FLASH_LANES, LS_R_FLASH_BW, LS_R_FLASH_EFF, LS_R_FLASH_CHUNK, LS_R_FLASH_QD,
  LS_R_READ_ENERGY, LS_R_LAT_TIME, LS_R_LAT_SIGMA, LS_R_LAT_TAIL_PROB, LS_R_LAT_TAIL_ALPHA,
  LS_R_DRAM_SIZE, LS_R_DRAM_RESIDENT, LS_R_MEM_BW, LS_R_CORE_BW, LS_R_COMPUTE, LS_R_CALL_TIME,
  LS_R_NPU_TILE, LS_R_CURVE, LS_R_SHAPE, LS_R_CORES, LS_R_THREADS, LS_R_FREQ,
  LS_R_FLOPS_PER_CYCLE, LS_R_BATCH_TOKENS, LS_R_POWER, LS_R_POWER_BUSY,
  LS_R_HOST_READ_AHEAD, LS_R_HOST_FAULT_RATE, LS_R_HOST_STREAM_BYTES, LS_R_HOST_STREAM_TIME, LS_R_HOST_START,
  LS_R_HOST_HEAD_SERIAL, LS_R_HOST_CONTENTION,
  /* models (workloads/models) */
  LS_R_LAYERS, LS_R_HIDDEN, LS_R_FFN, LS_R_HEADS, LS_R_VOCAB, LS_R_EAGLE_INPUT,
  LS_R_EAGLE_FEATURES, LS_R_PARAMS_B,
  /* datasets (workloads/datasets) and the workload settings */
  LS_R_PROMPTS, LS_R_TRACE_PROMPTS, LS_R_TOKENS, LS_R_PROMPT_TOKENS, LS_R_LEN_MEDIAN, LS_R_LEN, LS_R_LEN_SIGMA, LS_R_PROB, LS_R_LOGIT_MEAN,
  LS_R_LOGIT_SD, LS_R_LOGIT_TAIL, LS_R_CALIBRATION, LS_R_OUTPUT_SCALE, LS_R_AUC,
  LS_R_CONF_WEIGHT,
  /* experiments */
  LS_R_SEED,
  LS_R_COUNT
} ls_range_id;



typedef struct ls_range {
  const char *name;   /* "flash read rate" */
  int quantity;       /* 1: a number with a unit of kind .unit; 0: a plain number */
  ls_unit_kind unit;
  int whole;          /* 1: a whole number (never a quantity) */
  double lo, hi;      /* inclusive; lo LS_Y_POS: > 0 */
  const char *where;  /* the keys that hold it, in every place it can be written */
  const char *why;    /* the reason for the bounds */
} ls_range;

/* The row of id (never NULL for a valid id). */
const ls_range *ls_range_at(ls_range_id id);
/* The row a setting key (--set, an experiment's settings) is read against, -1 when none:
 * results re-check stored settings with it, the uncertainty study its sampled ranges. */
int ls_range_of_setting(const char *key);

/* The most tokens one run may generate, prompts x tokens per prompt (the documented maxima
 * of --prompts and --tokens are bounded together; see ls_range_run_tokens). */
#define LS_RANGE_RUN_TOKENS 20000000.0

/* YAML: key of mapping m (required / optional with dflt), or the node n itself, read with
 * row id's type, unit and bounds. Whole numbers arrive as doubles holding integers. */
int ls_range_yreq(const ls_ynode *m, const char *key, ls_range_id id, double *out, ls_error *err);
int ls_range_yopt(const ls_ynode *m, const char *key, ls_range_id id, double dflt, double *out,
                  ls_error *err);
int ls_range_yas(const ls_ynode *n, ls_range_id id, double *out, ls_error *err);
/* A sequence of plain numbers, each within row id: out[0..max-1], *count. */
int ls_range_yas_list(const ls_ynode *n, ls_range_id id, double *out, int max, int *count,
                      ls_error *err);
/* Settings: key of kv (default dflt) read with row id. */
int ls_range_kv(ls_kv *kv, const char *key, ls_range_id id, double dflt, double *out, ls_error *err);
int ls_range_kv_list(ls_kv *kv, const char *key, ls_range_id id, double *out, int max, int *count,
                     ls_error *err);
/* Settings: the tokens a run may generate, prompts x max_tokens, against LS_RANGE_RUN_TOKENS;
 * the error names both keys and where each was given. */
int ls_range_run_tokens(ls_kv *kv, double prompts, double max_tokens, ls_error *err);
/* 0 when v lies in row id (and is whole when the row says so), else -1 (NaN: -1). */
int ls_range_check(ls_range_id id, double v);
/* The bounds as text in the row's unit: "[1 MB/s, 1 TB/s]". */
const char *ls_range_text(ls_range_id id, char *buf, size_t size);
/* The table, one row per quantity: name, range, keys, why. */
void ls_range_print(FILE *o);

#endif
