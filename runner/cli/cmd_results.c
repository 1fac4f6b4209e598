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
#include "runner/cli/opts.h"

static int fail(const ls_error *e)
{
  ls_error_print(e, stderr);
  return ls_status_exit(e->code);
}

/* Opens an existing database read-only (never creates one, works on read-only media). */
static int open_existing(const char *path, ls_db **db, ls_error *e)
{
  return ls_db_open_read(db, path, e);
}

/* --k: a number in (0, 100]. */
static const char *parse_k(const char *text, void *field)
{
  const char *end = text, *why;
  double v = -1;
  if (ls_units_decimal(text, &v, &end, &why) != LS_OK || *end || !(v > 0 && v <= 100))
    return "expected a number in (0, 100]";
  *(double *)field = v;
  return NULL;
}

typedef struct check_opts {
  const char *db, *baseline, *write;
  double k; /* -1: the baseline's */
} check_opts;

static const ls_opt CHECK_OPTS[] = {
    {"--db", LS_OPT_STR, OPT_AT(check_opts, db), "FILE", "the database of a `leversim reproduce [--quick | --regime]`", .flags = LS_OPT_REQUIRED},
    {"--baseline", LS_OPT_STR, OPT_AT(check_opts, baseline), "FILE", "compare with this baseline (results/baseline/REPLAY.yaml)"},
    {"--write-baseline", LS_OPT_STR, OPT_AT(check_opts, write), "FILE", "write the database's ratios and metrics as a baseline instead ('-': stdout)"},
    {"--k", LS_OPT_CALL, OPT_AT(check_opts, k), "K", "tolerance in combined half-widths (default: the baseline's; 1 when writing)", .call = parse_k},
    {NULL}};

static const ls_cmd_spec CHECK = {
    "check", NULL, 0, 0, 0, "compare a replay with its committed baseline (exit 2 when any value moved)",
    "Compares lever's speedup over every system per configuration (view v_speedup), and every\n"
    "run's throughput (every system, AR from DRAM included) and I/O share (Table 1), with a\n"
    "baseline. Written baselines are exact (docs/STATISTICS.md): a replay is deterministic, so\n"
    "a value that moves by more than 1e-9 of itself, higher or lower, or goes missing, is a\n"
    "regression; the report says whether each move lies beyond K x the combined half-width of\n"
    "the two 95 % intervals (plus a 0.1 % floor), the test of a baseline without `compare:`.\n"
    "Give one of --baseline and --write-baseline. The database must come from the replay the\n"
    "baseline records (quick, full or regime; spec hash), else exit 65 naming the baseline\n"
    "that fits.\n"
    "Baselines are written only from a `leversim reproduce [--quick | --regime]` database, as\n"
    "REPLAY.yaml. Exit: 0 ok, 2 regression, 64 usage, 65 wrong replay or bad baseline.\n",
    NULL, CHECK_OPTS};

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
  check_opts o = {NULL, NULL, NULL, -1};
  int rc = ls_opts_parse(&CHECK, argc, argv, &o, NULL), regress = 0;
  if (rc)
    return ls_opts_exit(rc);
  if (!o.baseline == !o.write)
    return ls_usage_error("check", "give one of --baseline or --write-baseline");
  ls_error e;
  ls_error_clear(&e);
  ls_db *db = NULL;
  rc = open_existing(o.db, &db, &e);
  if (rc == LS_OK && o.write) rc = write_baseline(db, o.write, o.k < 0 ? 1 : o.k, &e);
  else if (rc == LS_OK) rc = ls_db_check(db, o.baseline, o.k, stdout, &regress, &e);
  ls_db_close(db);
  if (rc != LS_OK) return fail(&e);
  if (o.write && strcmp(o.write, "-")) fprintf(stderr, "leversim check: wrote %s\n", o.write);
  return regress ? ls_status_exit(LS_EREGRESS) : 0;
}

typedef struct export_opts {
  const char *db, *view, *format, *out;
} export_opts;

static const char *view_at(int i) { return ls_db_view_name(i); }

static const ls_opt EXPORT_OPTS[] = {
    {"--db", LS_OPT_STR, OPT_AT(export_opts, db), "FILE", "results database", .flags = LS_OPT_REQUIRED},
    {"--view", LS_OPT_CHOICE, OPT_AT(export_opts, view), "NAME", "the view (default v_runs; list below)", .choice_at = view_at},
    {"--format", LS_OPT_CHOICE, OPT_AT(export_opts, format), "F", "output format (default csv)", .choices = "csv,json,table"},
    {"--out", LS_OPT_STR, OPT_AT(export_opts, out), "FILE", "write there instead of stdout"},
    {NULL}};

static void views(FILE *f)
{
  fprintf(f, "Views:\n");
  ls_db_list_views(f);
}

static const ls_cmd_spec EXPORT = {
    "export", NULL, 0, 0, 0, "export a results view to CSV, JSON or a table",
    "Writes a view of a results database (opened read-only; it must exist).\n", views, EXPORT_OPTS};

int ls_cmd_export(int argc, char **argv)
{
  export_opts o = {NULL, "v_runs", "csv", NULL};
  int rc = ls_opts_parse(&EXPORT, argc, argv, &o, NULL);
  if (rc)
    return ls_opts_exit(rc);
  ls_error e;
  ls_error_clear(&e);
  ls_db *db = NULL;
  rc = open_existing(o.db, &db, &e);
  if (rc == LS_OK && o.out) rc = export_to_file(db, o.view, o.format, o.out, &e);
  else if (rc == LS_OK) rc = ls_db_export(db, o.view, o.format, stdout, &e);
  ls_db_close(db);
  return rc == LS_OK ? 0 : fail(&e);
}

typedef struct merge_opts {
  ls_opt_list dbs; /* OUT.db, then the inputs */
} merge_opts;

static const ls_opt MERGE_OPTS[] = {{NULL}};

static const ls_cmd_spec MERGE = {
    "merge", "OUT.db IN.db...", 2, -1, OPT_AT(merge_opts, dbs), "merge sharded result databases",
    "Copies every run of the inputs into OUT.db (created if absent). Idempotent: runs already\n"
    "present with the same content are skipped; the same run id with different metrics or\n"
    "configuration is an error naming the run.\n",
    NULL, MERGE_OPTS};

int ls_cmd_merge(int argc, char **argv)
{
  merge_opts o;
  o.dbs.n = 0;
  int rc = ls_opts_parse(&MERGE, argc, argv, &o, NULL), added = 0, n = o.dbs.n - 1;
  if (rc)
    return ls_opts_exit(rc);
  ls_error e;
  ls_error_clear(&e);
  rc = ls_db_merge(o.dbs.v[0], o.dbs.v + 1, n, &added, &e);
  if (rc != LS_OK) return fail(&e);
  printf("merged %d input%s into %s: %d run%s added\n", n, n == 1 ? "" : "s", o.dbs.v[0], added,
         added == 1 ? "" : "s");
  return 0;
}
