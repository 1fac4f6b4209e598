/* runner/cmd_settings: 'leversim settings' — every setting key the systems read, with its
 * type, default, unit, range, reader and the systems that read it (runner/study/validate.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"
#include "runner/cli/opts.h"
#include "runner/decode/system.h"
#include "runner/study/uncertainty.h"
#include "runner/study/validate.h"
#include "sim/range.h"

typedef struct settings_opts {
  const char *system;
} settings_opts;

static const ls_opt SETTINGS_OPTS[] = {
    {"--system", LS_OPT_CHOICE, OPT_AT(settings_opts, system), "S", "only the keys this system reads", .choice_at = ls_cli_system_at},
    {NULL}};

static const ls_cmd_spec SETTINGS = {
    "settings", NULL, 0, 0, 0, "list every setting key: default, unit, range, which systems read it",
    "Lists every key that --set, an experiment's settings or a sweep axis may give: its type,\n"
    "default, accepted range (in the key's own unit), the component that reads it and the\n"
    "systems that read it. The list is collected by setting up each system on every dataset,\n"
    "so it is exactly what the code reads. Defaults that depend on the device, model or\n"
    "dataset are shown for the reference device and target named in the heading ('by input'\n"
    "marks one that also depends on the dataset); 'by system' defaults are listed below the\n"
    "key. A key some system of a run does not read must be scoped (SYSTEM:key).\n"
    "Then the value ranges: one table that a profile, a model, a dataset, an experiment and the\n"
    "command line are all read against (sim/range.h), each bound with its keys and its reason.\n"
    "Then the open assumptions of the paper's setup, each with its plausible values and sources\n"
    "(runner/experiments/ranges.yaml, argued in docs/SOURCES.md §11; `leversim uncertainty`\n"
    "samples them), and the assumed values that are not sampled, with their ranges and why.\n",
    NULL, SETTINGS_OPTS};

static void print_entry(const ls_validate_entry *e, int one_system, int n_systems)
{
  const ls_kv_decl *d = &e->decl;
  char range[160], dflt[300];
  ls_kv_decl_range(d, range, sizeof range);
  if (d->type == LS_KV_CHOICE)
    snprintf(range, sizeof range, "%s", d->choices);
  int by_system = e->varies_by_system && !one_system;
  snprintf(dflt, sizeof dflt, "%s%s", by_system ? "by system" : d->dflt[0] ? d->dflt : "(none)",
           e->varies_by_input ? " (by input)" : "");
  printf("%-26s %-8s %-22s %-28s %-12s %s\n", d->key, ls_kv_type_name(d->type), dflt, range, d->reader,
         one_system ? "" : e->n_systems == n_systems ? "all" : e->systems);
  if (by_system)
    printf("%26s defaults: %s\n", "", e->defaults);
}

/* The open assumptions' plausible values (runner/experiments/ranges.yaml), after the keys. */
static int print_ranges(ls_error *err)
{
  size_t len = strlen(ls_data_root()) + 64;
  char *path = malloc(len);
  if (!path) return ls_error_set(err, LS_ENOMEM, "settings: out of memory");
  snprintf(path, len, "%s/runner/experiments/ranges.yaml", ls_data_root());
  ls_unc_ranges *r = NULL;
  if (access(path, F_OK) != 0 && errno == ENOENT) { /* a data root without the paper's setup */
    printf("\n# no open assumptions: %s is absent\n", path);
    free(path);
    return LS_OK;
  }
  int rc = ls_unc_ranges_load(&r, path, err);
  if (!rc) {
    printf("\n");
    ls_unc_ranges_print(r, stdout);
  }
  ls_unc_ranges_free(r);
  free(path);
  return rc;
}

int ls_cmd_settings(int argc, char **argv)
{
  settings_opts o = {NULL};
  int prc = ls_opts_parse(&SETTINGS, argc, argv, &o, NULL);
  if (prc)
    return ls_opts_exit(prc);
  const char *system = o.system;
  ls_error err;
  ls_error_clear(&err);
  ls_decode_cache *cache = NULL;
  ls_validate_keys *cat = malloc(sizeof *cat);
  int rc = cat ? ls_decode_cache_create(&cache, ls_data_root(), &err)
               : ls_error_set(&err, LS_ENOMEM, "settings: out of memory");
  if (!rc) rc = ls_validate_catalog(cat, cache, ls_data_root(), system, &err);
  int n_systems = 0;
  for (const ls_system *s = ls_system_all(); s->name; s++)
    n_systems++;
  if (!rc) {
    printf("# %d settings%s%s; defaults on %s / %s\n", cat->n, system ? " read by " : "",
           system ? system : "", cat->device, cat->model);
    printf("%-26s %-8s %-22s %-28s %-12s %s\n", "key", "type", "default", "range / choices", "read by",
           system ? "" : "systems");
    for (int i = 0; i < cat->n; i++)
      print_entry(&cat->e[i], system != NULL, n_systems);
    printf("\n");
    ls_range_print(stdout); /* the bounds of every value, wherever it is written, and why */
    rc = print_ranges(&err);
  }
  if (rc) {
    ls_error_print(&err, stderr);
  }
  ls_decode_cache_free(cache);
  free(cat);
  return rc ? ls_status_exit(rc) : 0;
}
