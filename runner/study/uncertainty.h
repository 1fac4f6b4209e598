/* runner/study/uncertainty: how much the paper's claims depend on the replay's open
 * assumptions (issue 34). The assumptions and their plausible values are data
 * (runner/experiments/ranges.yaml, reasoning in docs/SOURCES.md §11); this module reads them,
 * samples them jointly, replays the configurations each claim needs at every sample, and
 * reports per claim its distribution, the share of samples in which it holds and the Sobol
 * indices of every assumption.
 *
 * Design (src:saltelli-2010): two N x k matrices A and B of a 2k-dimensional Sobol sequence
 * (GSL's gsl_qrng_sobol, points 1..N: the first point, all zeros, is skipped), and for each
 * assumption i the matrix AB_i = A with column i taken from B: N (k + 2) points. A point's
 * coordinate u in [0, 1) becomes the assumption's value: low + u (high - low) on a linear
 * range, low (high / low)^u on a log range, alternative floor(u n) of n alternatives.
 * Estimators, with f the claim's value and V the variance of f over A and B together:
 *   first order  S_i  = mean_j (f(B)_j - m) (f(AB_i)_j - f(A)_j) / V  (Saltelli 2010, eq. (b),
 *                with f(B) centred on m, the mean over A and B: E[f(AB_i) - f(A)] = 0, so the
 *                expectation is the same, and a claim whose value sits far from 0 (a speedup
 *                near 2.7) no longer multiplies every difference by that offset)
 *   total        ST_i = mean_j (f(A)_j - f(AB_i)_j)^2 / (2 V)         (Jansen 1999)
 * Both are 0 when V is 0 (the claim does not move). With a few dozen base points they are
 * estimates with a sampling error of about 1 / sqrt(N) of V; a claim's share of holding and
 * its 5-95 % interval are taken over the 2N points of A and B.
 * Runs are pure functions of their configuration and settings, so a run whose settings a
 * swapped column does not change (another device's assumption, a key its system does not
 * read) is made once and shared: the design's cost is far below N (k + 2) full replays. */
#ifndef LS_RUNNER_STUDY_UNCERTAINTY_H
#define LS_RUNNER_STUDY_UNCERTAINTY_H
#include <stdio.h>
#include "sim/error.h"

#define LS_UNC_MAX_ASSUMPTIONS 20 /* k: the design uses 2k dimensions (GSL's Sobol has 40) */
#define LS_UNC_MAX_VALUES 8       /* alternatives of one assumption */
#define LS_UNC_MAX_SCOPE 8        /* devices or systems an assumption is limited to */

typedef struct ls_unc_assumption {
  const char *name, *setting, *claim; /* setting NULL: a choice of how `claim` is counted */
  const char *devices[LS_UNC_MAX_SCOPE], *systems[LS_UNC_MAX_SCOPE];
  int n_devices, n_systems;          /* 0: every device / every system that reads the key */
  const char *dflt, *unit, *sources, *why;
  int is_range, log_scale;
  double lo, hi;                     /* a range, in unit */
  const char *values[LS_UNC_MAX_VALUES];
  int n_values;
} ls_unc_assumption;

typedef struct ls_unc_ranges ls_unc_ranges;

/* Reads a ranges file (runner/experiments/ranges.yaml's format, described at its top). A bad
 * key or value is LS_ESCHEMA/LS_EINVALID naming file, line and column. *out owned by the
 * caller: ls_unc_ranges_free. */
int ls_unc_ranges_load(ls_unc_ranges **out, const char *path, ls_error *err);
void ls_unc_ranges_free(ls_unc_ranges *r);
int ls_unc_ranges_count(const ls_unc_ranges *r);
const ls_unc_assumption *ls_unc_ranges_at(const ls_unc_ranges *r, int i); /* borrowed */
/* The value of assumption a at coordinate u in [0, 1), as the setting's text, into buf. */
void ls_unc_value(const ls_unc_assumption *a, double u, char *buf, size_t size);
/* Prints the assumptions (sampled and not) as a table: name, setting, scope, default, range or
 * alternatives, sources (`leversim settings`). */
void ls_unc_ranges_print(const ls_unc_ranges *r, FILE *out);

/* The design's base matrices: A and B, n x k each (row-major), from points 1..n of a 2k-dim
 * Sobol sequence. LS_EINVALID when k is out of 1..LS_UNC_MAX_ASSUMPTIONS or n < 2. */
int ls_unc_design(int n, int k, double *a, double *b, ls_error *err);
/* First-order and total indices of k inputs from f(A), f(B) (n each) and f(AB_i) (k rows of n,
 * row i for AB_i), by the estimators above. s1 and st get k values each. */
void ls_unc_indices(const double *fa, const double *fb, const double *fab, int n, int k, double *s1,
                    double *st);

/* ---- the study ---- */

typedef struct ls_unc_opts {
  const char *ranges;   /* borrowed: the ranges file */
  const char *db;       /* borrowed: results database to write (NULL: none) */
  const char *csv_dir;  /* borrowed: folder for the figure's CSV (NULL: none) */
  int samples;          /* N, base points of the design */
  int prompts, tokens;  /* each run's workload.prompts and workload.max_tokens */
  int jobs;             /* worker processes */
  int progress;         /* 1: a progress bar on stderr */
  int quick;            /* 1: one device, one model, one dataset (tests) */
} ls_unc_opts;

typedef struct ls_unc_report ls_unc_report;

/* Runs the study; *out owned by the caller (ls_unc_report_free). */
int ls_unc_run(const ls_unc_opts *o, ls_unc_report **out, ls_error *err);
void ls_unc_report_free(ls_unc_report *r);
/* The report as JSON / as a table (one line a claim, then its indices). */
void ls_unc_report_json(const ls_unc_report *r, FILE *out);
void ls_unc_report_print(const ls_unc_report *r, FILE *out);
/* Writes the report's tables and views into the database at path (created when missing;
 * the uncertainty tables of an earlier report are replaced). */
int ls_unc_report_write_db(const ls_unc_report *r, const char *path, ls_error *err);
/* Writes <dir>/uncertainty.csv (claim, assumption, first_order, total) for the figure. */
int ls_unc_report_write_csv(const ls_unc_report *r, const char *dir, ls_error *err);

#endif
