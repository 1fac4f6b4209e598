/* runner/cmd_trace: 'leversim trace record|info' — record a trace from the synthetic oracle
 * and summarise trace files (format: workloads/TRACE_FORMAT.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runner/cli/commands.h"
#include "sim/kv.h"
#include "workloads/dataset.h"
#include "workloads/model.h"
#include "workloads/oracle.h"
#include "workloads/trace.h"

static const char USAGE[] =
    "usage: leversim trace record --dataset S --model M [--draft D] [--prompts N] [--seed N]\n"
    "                             [--topk K] [--off N] [--set workload.key=value]... [--out FILE]\n"
    "       leversim trace info FILE\n"
    "record: replays the synthetic oracle along each prompt's text and writes a trace (stdout\n"
    "        without --out): top-K draft probabilities (default 8) per position, the rank the\n"
    "        target chose, and the candidate sets of N off-path children (default 2).\n"
    "info:   validates a trace and prints a summary.\n";

typedef struct rec_args {
  const char *dataset, *model, *draft, *out;
  long prompts, seed, topk, off;
} rec_args;

static int fail(const ls_error *e)
{
  ls_error_print(e, stderr);
  return ls_status_exit(e->code);
}

static int parse_long(const char *name, const char *text, long lo, long hi, long *out)
{
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (end == text || *end || errno || v < lo || v > hi)
    return ls_usage_error("trace", "%s: bad value '%s' (expected a whole number in [%ld, %ld])", name, text, lo, hi);
  *out = v;
  return 0;
}

static int parse_record(int argc, char **argv, rec_args *a, ls_kv *kv)
{
  ls_error e;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    if (i + 1 >= argc)
      return ls_usage_error("trace", "%s: unknown option or missing value", o);
    const char *v = argv[++i];
    int rc = 0;
    if (!strcmp(o, "--dataset")) a->dataset = v;
    else if (!strcmp(o, "--model")) a->model = v;
    else if (!strcmp(o, "--draft")) a->draft = v;
    else if (!strcmp(o, "--out")) a->out = v;
    else if (!strcmp(o, "--prompts")) rc = parse_long(o, v, 1, 100000, &a->prompts);
    else if (!strcmp(o, "--seed")) rc = parse_long(o, v, 0, 0x7fffffffL, &a->seed);
    else if (!strcmp(o, "--topk")) rc = parse_long(o, v, 1, LS_VIEW_TOPK_MAX, &a->topk);
    else if (!strcmp(o, "--off")) rc = parse_long(o, v, 0, LS_VIEW_TOPK_MAX, &a->off);
    else if (!strcmp(o, "--set")) {
      if (ls_kv_assign(kv, v, "--set", &e))
        return fail(&e);
    } else
      return ls_usage_error("trace", "unknown option '%s'", o);
    if (rc)
      return rc;
  }
  if (!a->dataset || !a->model)
    return ls_usage_error("trace", "record needs --dataset and --model");
  return 0;
}

static int record(const rec_args *a, ls_kv *kv)
{
  ls_error e;
  ls_error_clear(&e);
  ls_dataset *ds = NULL;
  ls_model *tg = NULL, *dr = NULL;
  ls_oracle *o = NULL;
  ls_trace *t = NULL;
  char buf[32];
  int rc = ls_dataset_load_id(&ds, ls_data_root(), a->dataset, &e);
  if (!rc) rc = ls_model_load_id(&tg, ls_data_root(), a->model, &e);
  if (!rc && !ls_model_is_target(tg))
    rc = ls_error_set(&e, LS_EINVALID, "--model %s is a draft model; give a target", a->model);
  if (!rc) rc = ls_model_load_id(&dr, ls_data_root(), a->draft ? a->draft : ls_model_default_draft(tg), &e);
  if (!rc && a->prompts > 0) {
    snprintf(buf, sizeof buf, "%ld", a->prompts);
    rc = ls_kv_set(kv, "workload.prompts", buf, "--prompts", &e);
  }
  if (!rc) rc = ls_oracle_create(&o, ds, tg, dr, (uint64_t)a->seed, kv, &e);
  if (!rc) rc = ls_kv_check_used(kv, "", &e);
  if (!rc) rc = ls_trace_record(&t, o, (int)a->topk, (int)a->off, 8, a->dataset, a->model, ls_model_id(dr),
                                (uint64_t)a->seed, &e);
  if (!rc) rc = a->out ? ls_trace_write(t, a->out, &e) : ls_trace_write_file(t, stdout, &e);
  ls_trace_free(t);
  ls_oracle_free(o);
  ls_model_free(dr);
  ls_model_free(tg);
  ls_dataset_free(ds);
  return rc ? fail(&e) : 0;
}

static int info(int argc, char **argv)
{
  if (argc != 2)
    return ls_usage_error("trace", "info needs exactly one FILE");
  ls_error e;
  ls_error_clear(&e);
  ls_trace *t = NULL;
  if (ls_trace_read(&t, argv[1], &e))
    return fail(&e);
  ls_trace_info(t, stdout);
  ls_trace_free(t);
  return 0;
}

int ls_cmd_trace(int argc, char **argv)
{
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(USAGE, argc < 2 ? stderr : stdout);
    return argc < 2 ? 64 : 0;
  }
  if (!strcmp(argv[1], "info"))
    return info(argc - 1, argv + 1);
  if (strcmp(argv[1], "record") != 0)
    return ls_usage_error("trace", "unknown action '%s' (expected record or info)", argv[1]);
  rec_args a = {NULL, NULL, NULL, NULL, 0, 1, 8, 2};
  ls_kv *kv = NULL;
  ls_error e;
  if (ls_kv_create(&kv, &e))
    return fail(&e);
  int rc = parse_record(argc - 1, argv + 1, &a, kv);
  if (!rc)
    rc = record(&a, kv);
  ls_kv_free(kv);
  return rc;
}
