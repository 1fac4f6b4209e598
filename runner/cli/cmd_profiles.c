/* runner/cmd_profiles: 'leversim profiles list | show ID | validate FILE'.
 * list: one line per profile (id, phone, SoC, flash, DRAM); show: the resolved values with
 * units; validate: loads a file with every check of the loader, exit 0 or the located error. */
#include <stdio.h>
#include <string.h>
#include "devices/device.h"
#include "runner/cli/commands.h"

#define MAX_PROFILES 256

static void usage(FILE *f)
{
  fprintf(f, "usage: leversim profiles list\n"
             "       leversim profiles show ID\n"
             "       leversim profiles validate FILE\n"
             "Device profiles live in <data>/devices/profiles/<id>.yaml.\n");
}

static int fail(const ls_error *err)
{
  ls_error_print(err, stderr);
  return ls_status_exit(err->code);
}

#define LIST_COLS 6

/* One table, every column as wide as its longest cell (a fixed width misaligned every row
 * after a long id, name or flash interface). */
static int list(void)
{
  static char ids[MAX_PROFILES][64];
  static char cell[MAX_PROFILES + 1][LIST_COLS][96] = {{"id", "phone", "soc", "flash", "eff. read", "dram"}};
  int n = ls_device_list(ls_data_root(), ids, MAX_PROFILES);
  if (n < 0) {
    fprintf(stderr, "leversim profiles: cannot read %s/devices/profiles\n", ls_data_root());
    return ls_status_exit(n);
  }
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
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "leversim profiles: writing the list failed\n");
    return ls_status_exit(LS_EIO);
  }
  return rc;
}

int ls_cmd_profiles(int argc, char **argv)
{
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 64 : 0;
  }
  const char *sub = argv[1];
  if (strcmp(sub, "list") == 0) {
    if (argc != 2)
      return ls_usage_error("profiles", "list takes no arguments");
    return list();
  }
  if (strcmp(sub, "show") != 0 && strcmp(sub, "validate") != 0)
    return ls_usage_error("profiles", "unknown subcommand '%s' (expected list, show or validate)", sub);
  if (argc != 3)
    return ls_usage_error("profiles", "%s needs exactly one argument", sub);
  ls_device *d;
  ls_error err;
  int rc = strcmp(sub, "show") == 0 ? ls_device_load_id(&d, ls_data_root(), argv[2], &err)
                                    : ls_device_load(&d, argv[2], &err);
  if (rc)
    return fail(&err);
  if (strcmp(sub, "show") == 0)
    ls_device_print(d, stdout);
  else
    printf("%s: ok (%s, %s)\n", argv[2], ls_device_id(d), ls_device_name(d));
  ls_device_free(d);
  return 0;
}
