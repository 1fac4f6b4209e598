/* runner/study/unc_int: what the uncertainty study's files share (uncertainty.h is the API). */
#ifndef LS_RUNNER_STUDY_UNC_INT_H
#define LS_RUNNER_STUDY_UNC_INT_H
#include "runner/study/uncertainty.h"

/* The paper's claims the study judges at every point (unc_claims.c). */
enum { UNC_AR, UNC_SPEC, UNC_FASTEST, UNC_T1_Q4, UNC_T1_L8, UNC_T1_Q14, UNC_FIG12, UNC_WASTED, UNC_FIG14, UNC_NCLAIMS };
/* Metrics a run gives the claims. */
enum { UM_TPS, UM_WASTED, UM_WASTED_TOK, UM_IO_BUSY, UM_LMHEAD, UNC_NMETRICS };

typedef struct unc_claim_def {
  const char *id, *label, *test; /* test: when it holds, in words */
} unc_claim_def;
extern const unc_claim_def ls_unc_claims[UNC_NCLAIMS];

/* The configurations each point replays: the main matrix for the systems the claims compare,
 * and Fig. 14's projection placements. */
typedef struct unc_matrix {
  const char *const *devices, *const *models, *const *datasets, *const *systems, *const *lmheads;
  int nd, nm, ns, nsys, nl;         /* main: nd x nm x ns x nsys; then lmhead: 1 x nm x 2 x nl */
  const char *const *lm_models, *const *lm_datasets;
  int nlm_m, nlm_s;
} unc_matrix;

typedef struct unc_job {
  const char *device, *model, *dataset, *system, *extra; /* extra: a setting of the job itself */
} unc_job;

typedef struct unc_claim_out {
  double median, p05, p95, p_holds;
  int n; /* points of A and B where the claim could be checked */
  double s1[LS_UNC_MAX_ASSUMPTIONS], st[LS_UNC_MAX_ASSUMPTIONS];   /* of the claim's value */
  double s1h[LS_UNC_MAX_ASSUMPTIONS], sth[LS_UNC_MAX_ASSUMPTIONS]; /* of whether it holds */
  int lvl_n[LS_UNC_MAX_ASSUMPTIONS][LS_UNC_MAX_VALUES];
  double lvl_p[LS_UNC_MAX_ASSUMPTIONS][LS_UNC_MAX_VALUES];
  const char *verdict; /* "holds", "fails", "depends", "cannot check" */
  int depends_on;      /* the assumption it depends on most (-1: none) */
  char flip[400];
} unc_claim_out;

struct ls_unc_report {
  ls_unc_ranges *ranges; /* owned */
  ls_unc_opts opts;
  int n, k, points;      /* N, k, N (k + 2) */
  double *u;             /* points x k coordinates */
  double *val;           /* UNC_NCLAIMS x points: each claim's value (NaN: cannot check) */
  signed char *holds;    /* UNC_NCLAIMS x points: 1, 0, -1 (cannot check) */
  unc_claim_out c[UNC_NCLAIMS];
  long runs, runs_unique;
  double cpu_s;
};

/* The jobs of a matrix (count, and job i). */
int ls_unc_jobs(const unc_matrix *m);
unc_job ls_unc_job(const unc_matrix *m, int i);
/* Each claim's value and verdict at one point from the metrics of its jobs (met[job][metric]),
 * with the counting choices of the point (wasted_tokens: 1 counts tokens). */
void ls_unc_claims_at(const unc_matrix *m, const double (*met)[UNC_NMETRICS], int wasted_tokens, double *val,
                      signed char *holds);
/* The summaries of every claim from r's values (distribution, indices, levels, verdict). */
void ls_unc_summarise(ls_unc_report *r);
/* Level j of assumption a at coordinate u (its alternative, or the half of its range). */
int ls_unc_level(const ls_unc_assumption *a, double u);
int ls_unc_levels(const ls_unc_assumption *a);
void ls_unc_level_name(const ls_unc_assumption *a, int level, char *buf, size_t size);

#endif
