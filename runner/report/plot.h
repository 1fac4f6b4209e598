/* runner/report/plot: any metric against any setting of any results database, with each
 * point's 95 % interval — the C API behind `leversim plot`.
 *
 * A key (x, by, where) is a name column of the run (part, device, model, dataset, system,
 * seed) or a setting key: the run's resolved value (table run_settings: given or defaulted,
 * so a key never swept still has its value), else its sweep point (axes_json). The metric
 * (y) is a metric of the run (table metrics); its interval is the run's bootstrap interval
 * over prompts (table metric_ci; none for metrics without one or runs under 5 prompts).
 * One point per ok run that passes every where filter; two runs at one (by, x) are refused
 * (they differ in something else: the message names what and asks for --where or --by). */
#ifndef LS_RUNNER_REPORT_PLOT_H
#define LS_RUNNER_REPORT_PLOT_H
#include <stdio.h>
#include "results/db.h"

typedef struct ls_plot_query {
  const char *x, *y;         /* borrowed: x key, metric name */
  const char *by;            /* borrowed: group key, or NULL (one series); see bys */
  const char *const *where;  /* borrowed: "KEY=VALUE" filters (value as written or a number) */
  int n_where;
  const char *const *bys;    /* borrowed: several group keys (n_by > 0 replaces by): one line per
                                combination, named "v1 / v2" */
  int n_by;
  const char *const *panels; /* borrowed: panel keys: one panel per combination of their values */
  int n_panel;
} ls_plot_query;
#define LS_PLOT_KEYS_MAX 3 /* keys of --by, and of --panel */

typedef struct ls_plot_point {
  char group[128], x[128]; /* the by value ("" without --by) and the x value as text */
  char panel[128];         /* the panel value ("" without panels) */
  double x_num;            /* x as a number (base units for quantities); NaN when not one */
  double y, lo, hi;        /* lo/hi NaN when the run has no interval for y */
  double x_effective;      /* the value x took effect as, when not x (run_settings
                              "effective.<x>": e.g. a budget the policy caps); NaN otherwise */
  char run_id[LS_DB_RUN_ID_LEN + 1];
} ls_plot_point;

typedef struct ls_plot_table {
  ls_plot_point *p;  /* owned: sorted by group, then x (numerically when every x is a number) */
  int n;
  int x_numeric;     /* 1 when every x is a number */
  int n_effective;   /* points whose x took effect as another value */
  char unit[32];     /* the metric's unit as the runs recorded it ("tok/s"); "" when none */
} ls_plot_table;

/* The SQL expression of key's value for the run aliased r (text, or number with want_num),
 * binding key as parameter number param when it is a setting: a name column of the run, else
 * the run's resolved setting (run_settings), else its sweep point (axes_json). 1 when key is
 * one of the name columns (part, device, model, dataset, system, seed). */
int ls_plot_key_sql(const char *key, int param, int want_num, char *buf, size_t size);
/* LS_EUSAGE naming key (for option what, "--x") when no run of db has it. */
int ls_plot_check_key(ls_db *db, const char *key, const char *what, ls_error *err);

/* Fills *t (owned by the caller: ls_plot_table_free, also after an error) from db.
 * LS_EUSAGE: a key or metric no run has (the message lists what there is), a where filter
 * without '=', two runs at one point; LS_ENOTFOUND: no run passes the filters. */
int ls_plot_read(ls_db *db, const ls_plot_query *q, ls_plot_table *t, ls_error *err);
void ls_plot_table_free(ls_plot_table *t);

/* The table as CSV (header group,x,x_num,y,lo,hi,run_id, the group column named by the --by
 * keys and, with panels, a first column named by the panel keys; empty fields for NaN), %.17g; when a
 * point's x took effect as another value, a last column <x>_effective (empty for the others). */
int ls_plot_write_csv(const ls_plot_table *t, const ls_plot_query *q, FILE *out, ls_error *err);

/* Draws the table with gnuplot (plots/plot.gp under data_root) into png_path: one line per
 * group with 95 % error bars, x on a log scale when numeric, positive and spanning >= 16x;
 * the data gnuplot read is left beside it as <png_path>.dat. gnuplot: program name or
 * path (NULL: gnuplot on $PATH). LS_ENOTFOUND when gnuplot is missing, LS_ESTATE when it
 * fails (its output is in <png_path>.log), LS_EIO when a file cannot be written. Points whose
 * x took effect as another value are circled and the plot says so. */
int ls_plot_draw(const ls_plot_table *t, const ls_plot_query *q, const char *db_path,
                 const char *png_path, const char *data_root, const char *gnuplot, ls_error *err);

#endif
