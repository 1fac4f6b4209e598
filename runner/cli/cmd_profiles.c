/* runner/cmd_profiles: 'leversim profiles list | show ID | validate FILE'.
 * list: one line per profile (id, phone, SoC, flash, DRAM); show: the resolved values with
 * units; validate: loads a file with every check of the loader, exit 0 or the located error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "devices/device.h"
#include "runner/cli/commands.h"
#include "runner/cli/opts.h"
#include "sim/kv.h"

#define MAX_PROFILES 256

static int fail(const ls_error *err)
{
  ls_error_print(err, stderr);
  return ls_status_exit(err->code);
}

typedef struct profile_args {
  ls_opt_list args;
} profile_args;

static const ls_opt NO_OPTS[] = {{NULL}};

static const ls_cmd_spec LIST = {"profiles list", NULL, 0, 0, 0,
                                 "one line per device profile: id, phone, SoC, flash, effective read, DRAM",
                                 "Device profiles live in <data>/devices/profiles/<id>.yaml.\n", NULL, NO_OPTS};
static const ls_cmd_spec SHOW = {"profiles show", "ID", 1, 1, OPT_AT(profile_args, args),
                                 "the resolved values of one profile, with units", NULL, NULL, NO_OPTS};
static const ls_cmd_spec VALIDATE = {"profiles validate", "FILE", 1, 1, OPT_AT(profile_args, args),
                                     "load a profile file with every check of the loader: ok, or the located error",
                                     NULL, NULL, NO_OPTS};

#define LIST_COLS 6
typedef char list_row[LIST_COLS][96];

/* Prints the table with every column as wide as its longest cell (a fixed width misaligned
 * every row after a long id, name or flash interface). */
static int print_table(list_row *cell, int rows)
{
  int w[LIST_COLS] = {0};
  for (int r = 0; r < rows; r++)
    for (int k = 0; k < LIST_COLS; k++)
      if ((int)strlen(cell[r][k]) > w[k]) w[k] = (int)strlen(cell[r][k]);
  for (int r = 0; r < rows; r++)
    for (int k = 0; k < LIST_COLS; k++)
      if (k + 1 < LIST_COLS)
        printf("%-*s  ", w[k], cell[r][k]);
      else
        printf("%s\n", cell[r][k]);
  return 0; /* a failed write to stdout is caught when main flushes it (exit 74) */
}

static int list(int argc, char **argv)
{
  profile_args a = {.args.n = 0};
  int prc = ls_opts_parse(&LIST, argc, argv, &a, NULL);
  if (prc)
    return ls_opts_exit(prc);
  char (*ids)[64] = malloc(MAX_PROFILES * sizeof *ids);
  list_row *cell = calloc(MAX_PROFILES + 1, sizeof *cell);
  int n = ids && cell ? ls_device_list(ls_data_root(), ids, MAX_PROFILES) : LS_ENOMEM;
  if (n < 0) {
    free(ids);
    free(cell);
    fprintf(stderr, "leversim profiles: cannot read %s/devices/profiles\n", ls_data_root());
    return ls_status_exit(n);
  }
  static const char *const head[LIST_COLS] = {"id", "phone", "soc", "flash", "eff. read", "dram"};
  for (int k = 0; k < LIST_COLS; k++) snprintf(cell[0][k], 96, "%s", head[k]);
  int rc = 0, rows = 1;
  for (int i = 0; i < n && i < MAX_PROFILES; i++) {
    ls_device *d;
    ls_error err;
    if (ls_device_load_id(&d, ls_data_root(), ids[i], &err)) {
      rc = fail(&err);
      continue;
    }
    char bw[32], cap[32];
    const ls_flash_params *f = ls_device_flash(d);
    const ls_dram_params *m = ls_device_dram(d);
    char (*c)[96] = cell[rows++];
    snprintf(c[0], 96, "%s", ls_device_id(d));
    snprintf(c[1], 96, "%s", ls_device_name(d));
    snprintf(c[2], 96, "%s", ls_device_soc(d));
    snprintf(c[3], 96, "%s", f->interface);
    snprintf(c[4], 96, "%s", ls_units_format(ls_flash_effective_bw(f), LS_U_BANDWIDTH, bw, sizeof bw));
    snprintf(c[5], 96, "%s %s", m->type, ls_units_format(m->capacity, LS_U_BYTES, cap, sizeof cap));
    ls_device_free(d);
  }
  int prt = print_table(cell, rows);
  free(ids);
  free(cell);
  return prt ? prt : rc;
}

/* validate: the profile's values read again as a run reads them (ls_device_apply with no
 * setting given: every device setting at the profile's value, each against its row of the
 * one range table), so a profile that validates is one `run` accepts (issue 35). */
static int as_run_reads(const ls_device *d, const char *path, ls_error *err)
{
  ls_kv *kv = NULL;
  ls_device *c = NULL;
  ls_error inner;
  int rc = ls_kv_create(&kv, err);
  if (!rc) rc = ls_device_clone(&c, d, err);
  if (!rc && (rc = ls_device_apply(c, kv, &inner)) != LS_OK)
    rc = ls_error_set(err, rc == LS_EUSAGE ? LS_ESCHEMA : rc, "%s: a run refuses this profile: %s", path,
                      inner.msg);
  ls_device_free(c);
  ls_kv_free(kv);
  return rc;
}

/* show ID and validate FILE: the same load, by id or by path. */
static int load(const ls_cmd_spec *spec, int argc, char **argv)
{
  profile_args a = {.args.n = 0};
  int prc = ls_opts_parse(spec, argc, argv, &a, NULL);
  if (prc)
    return ls_opts_exit(prc);
  ls_device *d;
  ls_error err;
  int show = spec == &SHOW;
  int rc = show ? ls_device_load_id(&d, ls_data_root(), a.args.v[0], &err) : ls_device_load(&d, a.args.v[0], &err);
  if (!rc && !show) rc = as_run_reads(d, a.args.v[0], &err);
  if (rc) {
    ls_device_free(d);
    return fail(&err);
  }
  if (show)
    ls_device_print(d, stdout);
  else
    printf("%s: ok (%s, %s)\n", a.args.v[0], ls_device_id(d), ls_device_name(d));
  ls_device_free(d);
  return 0;
}

static int show(int argc, char **argv) { return load(&SHOW, argc, argv); }
static int validate(int argc, char **argv) { return load(&VALIDATE, argc, argv); }

static const ls_subcmd PROFILES[] = {
    {"list", list, "one line per device profile"},
    {"show", show, "the resolved values of one profile, with units"},
    {"validate", validate, "check a profile file: ok, or the located error"},
    {NULL, NULL, NULL}};

int ls_cmd_profiles(int argc, char **argv)
{
  return ls_opts_group("profiles", "Device profiles live in <data>/devices/profiles/<id>.yaml.", PROFILES, argc,
                       argv);
}
