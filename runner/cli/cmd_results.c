/* runner/cmd_results: 'leversim check', 'export', 'merge' — thin command-line shells over
 * results/db.h. A database given to check/export must exist (opening would create an empty
 * one); errors print "leversim: <message>" and exit via ls_status_exit (64+ for bad input,
 * 2 for a regression). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "results/db.h"
#include "sim/fileio.h"
#include "sim/units.h"
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"

static int fail(const ls_error *e)
{
  ls_error_print(e, stderr);
  return ls_status_exit(e->code);
}

static int is_help(const char *a) { return !strcmp(a, "--help") || !strcmp(a, "-h"); }

/* Opens an existing database read-only (never creates one, works on read-only media). */
static int open_existing(const char *path, ls_db **db, ls_error *e)
{
  return ls_db_open_read(db, path, e);
}

static int parse_k(const char *text, double *k)
{
  const char *end = text, *why;
  double v = -1;
  if (ls_units_decimal(text, &v, &end, &why) != LS_OK || *end || !(v > 0 && v <= 100))
    return ls_usage_error("check", "--k: bad value '%s' (expected a number in (0, 100])", text);
  *k = v;
  return 0;
}

static const char check_help[] =
    "usage: leversim check --db FILE --baseline FILE [--k K]\n"
    "       leversim check --db FILE --write-baseline results/baseline/REPLAY.yaml [--k K]\n"
    "Compares lever's speedup over every system per configuration (view v_speedup, with its\n"
    "95 % interval) with a baseline; prints ratio, baseline, delta, tolerance. Two-sided: a\n"
    "ratio further from the baseline than K x the combined half-width of the two intervals\n"
    "(plus a 0.1 % floor), higher or lower, or a missing configuration, is a regression.\n"
    "K defaults to the baseline's (1 when writing). The database must come from the replay\n"
    "the baseline records (quick or full; spec hash), else exit 65 naming the baseline that\n"
    "fits. Baselines are written only from a `leversim reproduce [--quick]` database, as\n"
    "REPLAY.yaml. Exit: 0 ok, 2 regression, 64 usage, 65 wrong replay or bad baseline.\n";

/* --write-baseline: atomically (sim/fileio), and only over a baseline leversim wrote. */
static int write_baseline(ls_db *db, const char *out, double k, ls_error *e)
{
  if (!strcmp(out, "-")) return ls_db_write_baseline(db, k, NULL, stdout, e);
  ls_file_out o;
  int rc = ls_file_out_open(&o, out, "--write-baseline", "# leversim regression baseline", e);
  if (rc == LS_OK) rc = ls_db_write_baseline(db, k, out, o.f, e);
  if (rc == LS_OK) return ls_file_out_commit(&o, e);
  ls_file_out_abort(&o);
  return rc;
}

/* export --out: the view is rendered in memory first; an existing file is replaced only when
 * its first line is the same header (an earlier export of this view). */
static int export_to_file(ls_db *db, const char *view, const char *fmt, const char *out,
                          ls_error *e)
{
  char *text = NULL, mark[256];
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m) return ls_error_set(e, LS_ENOMEM, "export: out of memory");
  int rc = ls_db_export(db, view, fmt, m, e);
  if (fclose(m) != 0 && rc == LS_OK) rc = ls_error_set(e, LS_ENOMEM, "export: out of memory");
  if (rc == LS_OK) {
    size_t n = strcspn(text, "\n");
    snprintf(mark, sizeof mark, "%.*s", (int)(n < sizeof mark - 1 ? n : sizeof mark - 1), text);
    rc = ls_file_write_atomic(out, "--out", mark[0] ? mark : NULL, text, len, e);
  }
  free(text);
  return rc;
}

int ls_cmd_check(int argc, char **argv)
{
  const char *dbp = NULL, *base = NULL, *wbase = NULL, *k_s = NULL;
  for (int i = 1; i < argc; i++) {
    int r = 0;
    if (is_help(argv[i])) {
      fputs(check_help, stdout);
      return 0;
    }
    if ((r = ls_opt_value("check", argc, argv, &i, "--db", &dbp)) ||
        (r = ls_opt_value("check", argc, argv, &i, "--baseline", &base)) ||
        (r = ls_opt_value("check", argc, argv, &i, "--write-baseline", &wbase)) ||
        (r = ls_opt_value("check", argc, argv, &i, "--k", &k_s))) {
      if (r < 0) return 64;
      continue;
    }
    return ls_usage_error("check", "unknown argument '%s'", argv[i]);
  }
  if (!base == !wbase) return ls_usage_error("check", "give one of --baseline or --write-baseline");
  double k = -1;
  if (k_s && parse_k(k_s, &k)) return 64;
  ls_error e;
  ls_error_clear(&e);
  ls_db *db = NULL;
  if (!dbp) return ls_usage_error("check", "--db FILE is required");
  int rc = open_existing(dbp, &db, &e), regress = 0;
  if (rc == LS_OK && wbase) rc = write_baseline(db, wbase, k < 0 ? 1 : k, &e);
  else if (rc == LS_OK) rc = ls_db_check(db, base, k, stdout, &regress, &e);
  ls_db_close(db);
  if (rc != LS_OK) return fail(&e);
  if (wbase && strcmp(wbase, "-")) fprintf(stderr, "leversim check: wrote %s\n", wbase);
  return regress ? ls_status_exit(LS_EREGRESS) : 0;
}

static const char export_help[] =
    "usage: leversim export --db FILE [--view NAME] [--format csv|json|table] [--out FILE]\n"
    "Writes a view of a results database (default view v_runs, format csv, to stdout).\n"
    "Views:\n";

int ls_cmd_export(int argc, char **argv)
{
  const char *dbp = NULL, *view = "v_runs", *fmt = "csv", *out = NULL;
  for (int i = 1; i < argc; i++) {
    int r = 0;
    if (is_help(argv[i])) {
      fputs(export_help, stdout);
      return ls_db_list_views(stdout);
    }
    if ((r = ls_opt_value("export", argc, argv, &i, "--db", &dbp)) ||
        (r = ls_opt_value("export", argc, argv, &i, "--view", &view)) ||
        (r = ls_opt_value("export", argc, argv, &i, "--format", &fmt)) ||
        (r = ls_opt_value("export", argc, argv, &i, "--out", &out))) {
      if (r < 0) return 64;
      continue;
    }
    return ls_usage_error("export", "unknown argument '%s'", argv[i]);
  }
  if (!dbp) return ls_usage_error("export", "--db FILE is required");
  int known = 0;
  for (int i = 0; ls_db_view_name(i); i++) known |= !strcmp(view, ls_db_view_name(i));
  if (!known) {
    fprintf(stderr, "leversim export: unknown view '%s'; the views are:\n", view);
    ls_db_list_views(stderr);
    return 64;
  }
  if (strcmp(fmt, "csv") && strcmp(fmt, "json") && strcmp(fmt, "table"))
    return ls_usage_error("export", "--format: unknown format '%s' (expected csv, json, table)",
                          fmt);
  ls_error e;
  ls_error_clear(&e);
  ls_db *db = NULL;
  int rc = open_existing(dbp, &db, &e);
  if (rc == LS_OK && out) rc = export_to_file(db, view, fmt, out, &e);
  else if (rc == LS_OK) rc = ls_db_export(db, view, fmt, stdout, &e);
  ls_db_close(db);
  return rc == LS_OK ? 0 : fail(&e);
}

int ls_cmd_merge(int argc, char **argv)
{
  if (argc >= 2 && is_help(argv[1])) {
    fputs("usage: leversim merge OUT.db IN.db...\n"
          "Copies every run of the inputs into OUT.db (created if absent). Idempotent: runs\n"
          "already present with the same content are skipped; the same run id with different\n"
          "metrics or configuration is an error naming the run.\n", stdout);
    return 0;
  }
  if (argc < 3) return ls_usage_error("merge", "expected OUT.db and at least one IN.db");
  for (int i = 1; i < argc; i++)
    if (argv[i][0] == '-') return ls_usage_error("merge", "unknown option '%s'", argv[i]);
  ls_error e;
  ls_error_clear(&e);
  int added = 0;
  int rc = ls_db_merge(argv[1], (const char *const *)(argv + 2), argc - 2, &added, &e);
  if (rc != LS_OK) return fail(&e);
  printf("merged %d input%s into %s: %d run%s added\n", argc - 2, argc == 3 ? "" : "s", argv[1],
         added, added == 1 ? "" : "s");
  return 0;
}
