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
  int verbose;
} check_opts;

static const ls_opt CHECK_OPTS[] = {
    {"--db", LS_OPT_STR, OPT_AT(check_opts, db), "FILE", "a results database: a `leversim reproduce [--quick | --regime]` replay or any study", .flags = LS_OPT_REQUIRED},
    {"--baseline", LS_OPT_STR, OPT_AT(check_opts, baseline), "FILE", "compare with this baseline (results/baseline/REPLAY.yaml)"},
    {"--write-baseline", LS_OPT_STR, OPT_AT(check_opts, write), "FILE", "write the database's ratios and metrics as a baseline instead ('-': stdout)"},
    {"--k", LS_OPT_CALL, OPT_AT(check_opts, k), "K", "tolerance in combined half-widths (default: the baseline's; 1 when writing)", .call = parse_k},
    {"--verbose", LS_OPT_FLAG, OPT_AT(check_opts, verbose), NULL, "after the short report, every value checked (the full table)"},
    {NULL}};

static const ls_cmd_spec CHECK = {
    "check", NULL, 0, 0, 0, "compare a replay with its committed baseline (exit 2 when any value moved)",
    "Compares lever's speedup over every system per configuration (view v_speedup), and every\n"
    "run's throughput (every system, AR from DRAM included) and I/O share (Table 1), with a\n"
    "baseline. Written baselines are exact (docs/STATISTICS.md): a replay is deterministic, so\n"
    "a value that moves by more than 1e-9 of itself, higher or lower, or goes missing, is a\n"
    "regression; the report says whether each move lies beyond K x the combined half-width of\n"
    "the two 95 % intervals (plus a 0.1 % floor), the test of a baseline without `compare:`.\n"
    "Give one of --baseline and --write-baseline. The report starts with the verdict and the\n"
    "largest change, the headline (geometric mean throughput of the runs, baseline and now) and\n"
    "the values that moved, largest first; --verbose adds every value. A replay's database must\n"
    "come from the replay its baseline records (quick, full or regime; spec hash), else exit 65\n"
    "naming the baseline that fits; a replay's baseline is written as REPLAY.yaml. Any other\n"
    "database (a sweep, runs: your own study) gets a baseline of replay \"study\" under any name,\n"
    "and a study baseline checks any database, run by run. Exit: 0 ok, 2 regression, 64 usage,\n"
    "65 wrong replay or bad baseline.\n",
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
static int export_to_file(ls_db *db, const char *view, const char *fmt, const char *out, int axes,
                          ls_error *e)
{
  char *text = NULL, mark[256];
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m) return ls_error_set(e, LS_ENOMEM, "export: out of memory");
  int rc = axes ? ls_db_export_axes(db, view, fmt, m, e) : ls_db_export(db, view, fmt, m, e);
  if (fclose(m) != 0 && rc == LS_OK) rc = ls_error_set(e, LS_ENOMEM, "export: out of memory");
  if (rc == LS_OK) {
    size_t n = strcspn(text, "\n");
    snprintf(mark, sizeof mark, "%.*s", (int)(n < sizeof mark - 1 ? n : sizeof mark - 1), text);
    rc = ls_file_write_atomic(out, "--out", mark[0] ? mark : NULL, text, len, e);
  }
  free(text);
  return rc;
}

/* The part roles the figure views read (results/schema.c): an empty view is most often a
 * study whose part is named otherwise. */
static const char *const VIEW_PART[][3] = {
    {"fig05", "part.budget", "axis.budget"}, {"fig10", "part.main", NULL}, {"fig11", "part.main", NULL},
    {"fig12", "part.main", NULL}, {"fig13", "part.mapping", "axis.map"}, {"fig14", "part.lmhead", "axis.lmhead"},
    {"table1", "part.table1", NULL}, {"overlap", "part.overlap", "axis.overlap"}, {"consistency", "part.main", NULL},
    {"lever_tree", "part.main", NULL}, {"energy", "part.main", NULL}, {"sensitivity", "part.sensitivity", "axis.bandwidth"},
    {"throughput", "part.main", NULL}, {"v_speedup", "part.main", NULL}, {"lever_ratios", "part.main", NULL},
    {NULL, NULL, NULL}};

static int first_text(void *ctx, int n, const char *const *text, const double *num, ls_error *err)
{
  (void)n, (void)num, (void)err;
  char *out = ctx;
  size_t len = strlen(out);
  snprintf(out + len, 512 - len, "%s%s", len ? ", " : "", text[0] ? text[0] : "");
  return LS_OK;
}

/* After an export: when the view came out empty though the database has runs, why. */
static void why_empty(ls_db *db, const char *view)
{
  char sql[160], count[512] = "", runs[512] = "", part[512] = "", axis[512] = "", parts[512] = "";
  snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", view); /* view: one of ls_db_view_name */
  ls_db_select(db, sql, NULL, 0, first_text, count, NULL);
  ls_db_select(db, "SELECT count(*) FROM runs WHERE status = 'ok'", NULL, 0, first_text, runs, NULL);
  if (strcmp(count, "0") || !strcmp(runs, "0") || !runs[0])
    return;
  for (int i = 0; VIEW_PART[i][0]; i++) {
    if (strcmp(VIEW_PART[i][0], view)) continue;
    const char *role = VIEW_PART[i][1];
    ls_db_select(db, "SELECT value FROM roles WHERE role = ?1", &role, 1, first_text, part, NULL);
    if (VIEW_PART[i][2]) ls_db_select(db, "SELECT value FROM roles WHERE role = ?1", &VIEW_PART[i][2], 1, first_text, axis, NULL);
    ls_db_select(db, "SELECT part || ' (' || count(*) || ' runs)' FROM runs WHERE status = 'ok' GROUP BY part"
                 " ORDER BY part", NULL, 0, first_text, parts, NULL);
    char ax[600] = "";
    if (VIEW_PART[i][2]) snprintf(ax, sizeof ax, " swept over '%s' (role %s)", axis, VIEW_PART[i][2]);
    fprintf(stderr, "leversim export: %s is empty: it reads the runs of part '%s' (role %s)%s, and this "
            "database's parts are: %s. Name your experiment's part '%s', or set `roles: {%s: YOURPART}` in it; "
            "`--view v_runs --axes` shows every run with its swept settings as columns\n", view,
            part[0] ? part : "?", role, ax, parts, part[0] ? part : "?", role);
    return;
  }
  fprintf(stderr, "leversim export: %s is empty, though the database holds %s ok runs\n", view, runs);
}

int ls_cmd_check(int argc, char **argv)
{
  check_opts o = {NULL, NULL, NULL, -1, 0};
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
  else if (rc == LS_OK) rc = ls_db_check_report(db, o.baseline, o.k, o.verbose, stdout, &regress, &e);
  ls_db_close(db);
  if (rc != LS_OK) return fail(&e);
  if (o.write && strcmp(o.write, "-")) fprintf(stderr, "leversim check: wrote %s\n", o.write);
  return regress ? ls_status_exit(LS_EREGRESS) : 0;
}

typedef struct export_opts {
  const char *db, *view, *format, *out;
  int axes;
} export_opts;

static const char *view_at(int i) { return ls_db_view_name(i); }

static const ls_opt EXPORT_OPTS[] = {
    {"--db", LS_OPT_STR, OPT_AT(export_opts, db), "FILE", "results database", .flags = LS_OPT_REQUIRED},
    {"--view", LS_OPT_CHOICE, OPT_AT(export_opts, view), "NAME", "the view (default v_runs; list below)", .choice_at = view_at},
    {"--format", LS_OPT_CHOICE, OPT_AT(export_opts, format), "F", "output format (default csv)", .choices = "csv,json,table"},
    {"--out", LS_OPT_STR, OPT_AT(export_opts, out), "FILE", "write there instead of stdout"},
    {"--axes", LS_OPT_FLAG, OPT_AT(export_opts, axes), NULL, "add one column per swept setting (draft.budget, ...), from axes_json"},
    {NULL}};

static void views(FILE *f)
{
  fprintf(f, "Views:\n");
  ls_db_list_views(f);
}

static const ls_cmd_spec EXPORT = {
    "export", NULL, 0, 0, 0, "export a results view to CSV, JSON or a table",
    "Writes a view of a results database (opened read-only; it must exist). --axes adds one\n"
    "column per swept setting (its value as written in the run's axes_json, a number when it is\n"
    "one), so SQL and pandas need no json_extract. The figure views read parts and axes by\n"
    "their roles (docs/EXPERIMENTS.md, \"Roles\"): when one comes out empty, export says which\n"
    "part it reads and which parts the database has.\n", views, EXPORT_OPTS};

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
  if (rc == LS_OK && o.out) rc = export_to_file(db, o.view, o.format, o.out, o.axes, &e);
  else if (rc == LS_OK && o.axes) rc = ls_db_export_axes(db, o.view, o.format, stdout, &e);
  else if (rc == LS_OK) rc = ls_db_export(db, o.view, o.format, stdout, &e);
  if (rc == LS_OK) why_empty(db, o.view);
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
