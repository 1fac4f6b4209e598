/* runner/cli/cmd_workloads: 'leversim workloads validate FILE': a model or dataset file with the
 * checks a run makes of it (issue 35: `profiles validate` had no peer for the other inputs).
 * A model: its loader (every value against its row of the range table, sim/range.h; the id
 * against the file name; heads and KV heads), its costs at its own quantisation, and, for a
 * target, its default draft found in the data root. A dataset: its loader, then the oracle's
 * check against every target of the data root with its default draft, as `run` would build
 * it. Which kind FILE is follows from its keys (a model has 'arch', a dataset 'prompt_len').
 * Exit 0 with one line, or the located error and its exit status. */
#include <stdio.h>
#include <stdlib.h>
#include "runner/cli/commands.h"
#include "runner/cli/opts.h"
#include "sim/yaml.h"
#include "workloads/dataset.h"
#include "workloads/model.h"
#include "workloads/oracle.h"

#define MAX_MODELS 256

typedef struct workload_args {
  ls_opt_list args;
} workload_args;

static const ls_opt NO_OPTS[] = {{NULL}};
static const ls_cmd_spec VALIDATE = {
    "workloads validate", "FILE", 1, 1, OPT_AT(workload_args, args),
    "check a model or dataset file as a run reads it: ok, or the located error",
    "A model file (it has 'arch') is loaded with every check of the loader, its costs are\n"
    "derived at its own quantisation and a target's default draft must be a model of the data\n"
    "root. A dataset file (it has 'prompt_len') is loaded, then checked as a run's text with\n"
    "every target model of the data root and its default draft. Values are read against the\n"
    "same range table as --set and the profiles ('leversim settings' prints it).\n",
    NULL, NO_OPTS};

static int model_checks(const char *path, ls_error *err)
{
  ls_model *m = NULL, *d = NULL;
  ls_model_costs c;
  int rc = ls_model_load(&m, path, err);
  if (!rc) rc = ls_model_costs_get(m, ls_model_default_quant(m), &c, err);
  if (!rc && ls_model_is_target(m)) {
    ls_error e;
    if ((rc = ls_model_load_id(&d, ls_data_root(), ls_model_default_draft(m), &e)))
      rc = ls_error_set(err, e.code, "%s: default_draft '%s': %s", path, ls_model_default_draft(m), e.msg);
  }
  if (!rc) printf("%s: ok (model %s, %s)\n", path, ls_model_id(m), ls_model_is_target(m) ? "target" : "draft");
  ls_model_free(d);
  ls_model_free(m);
  return rc;
}

/* The oracle's check of ds with target id and its default draft (a run's text). */
static int with_target(const ls_dataset *ds, const char *id, const char *path, ls_error *err)
{
  ls_model *t = NULL, *d = NULL;
  ls_error e;
  int rc = ls_model_load_id(&t, ls_data_root(), id, &e);
  if (!rc && ls_model_is_target(t)) {
    rc = ls_model_load_id(&d, ls_data_root(), ls_model_default_draft(t), &e);
    if (!rc) rc = ls_oracle_check(ds, t, d, NULL, &e);
    if (rc) ls_error_set(err, e.code, "%s: with target %s: %s", path, id, e.msg);
  } else if (rc) {
    ls_error_set(err, e.code, "%s: target %s of the data root: %s", path, id, e.msg);
  }
  ls_model_free(d);
  ls_model_free(t);
  return rc;
}

static int dataset_checks(const char *path, ls_error *err)
{
  ls_dataset *ds = NULL;
  int rc = ls_dataset_load(&ds, path, err);
  char (*ids)[64] = rc ? NULL : malloc(MAX_MODELS * sizeof *ids);
  if (!rc && !ids) rc = ls_error_set(err, LS_ENOMEM, "workloads: out of memory");
  int n = rc ? 0 : ls_model_list(ls_data_root(), ids, MAX_MODELS);
  for (int i = 0; !rc && i < n && i < MAX_MODELS; i++)
    rc = with_target(ds, ids[i], path, err);
  if (!rc) printf("%s: ok (dataset %s, checked with every target of %s)\n", path, ls_dataset_id(ds), ls_data_root());
  free(ids);
  ls_dataset_free(ds);
  return rc;
}

static int validate(int argc, char **argv)
{
  workload_args a = {.args.n = 0};
  int prc = ls_opts_parse(&VALIDATE, argc, argv, &a, NULL);
  if (prc) return ls_opts_exit(prc);
  const char *path = a.args.v[0];
  ls_error err;
  ls_error_clear(&err);
  ls_ydoc *doc = NULL;
  ls_ynode root, k;
  int rc = ls_ydoc_load_file(&doc, path, &err), model = 0, dataset = 0;
  if (!rc) {
    root = ls_ydoc_root(doc);
    rc = ls_ynode_expect(&root, LS_Y_MAP, &err);
  }
  if (!rc) {
    model = ls_ymap_find(&root, "arch", &k);
    dataset = ls_ymap_find(&root, "prompt_len", &k);
    if (model == dataset)
      rc = ls_ynode_error(&root, &err, LS_ESCHEMA, "neither a model (key 'arch') nor a dataset (key 'prompt_len')%s",
                          model ? ": it has both" : "");
  }
  ls_ydoc_free(doc);
  if (!rc) rc = model ? model_checks(path, &err) : dataset_checks(path, &err);
  if (rc) ls_error_print(&err, stderr);
  return rc ? ls_status_exit(rc) : 0;
}

static const ls_subcmd WORKLOADS[] = {
    {"validate", validate, "check a model or dataset file: ok, or the located error"}, {NULL, NULL, NULL}};

int ls_cmd_workloads(int argc, char **argv)
{
  return ls_opts_group("workloads", "Models live in <data>/workloads/models/, datasets in <data>/workloads/datasets/.",
                       WORKLOADS, argc, argv);
}
