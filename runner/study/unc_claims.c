/* runner/study/unc_claims: the paper's claims judged at one point of the uncertainty study,
 * and their summaries over the points (uncertainty.h). Each claim's test is the figure's own
 * (runner/report/figures.c) where one exists:
 *   ar, specinfer  Lever's mean speedup over the 48 configurations within 5 % of 2.93 / 1.50
 *   fastest        configurations where Lever is faster than every flash system of Fig. 10
 *                  (AR, chain SD, SpecInfer, Sequoia, EAGLE-2, OPT-Tree): holds at 48 of 48
 *   table1-*       the flash-busy share of a one-token verification on the OnePlus 12 (mean over
 *                  the datasets) within 3 points of the paper's 78.3 / 91.4 / 93.3 %
 *   fig12          pruning's mean throughput gain above 1 %
 *   wasted         SpecInfer's wasted verification within 10 points of "about 20 %"
 *   fig14          the on-demand CPU head: lower mean head time and higher mean throughput
 *                  than both NPU placements; its value the mean throughput over the best rival's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include "runner/study/unc_int.h"

const unc_claim_def ls_unc_claims[UNC_NCLAIMS] = {
    {"ar", "Lever vs AR (flash), mean speedup (paper 2.93x)", "within 5 % of 2.93"},
    {"specinfer", "Lever vs SpecInfer, mean speedup (paper 1.50x)", "within 5 % of 1.50"},
    {"fastest", "Lever fastest of the flash systems, configurations of 48", "48 of 48"},
    {"table1-qwen3-4b", "Table 1, Qwen3-4B flash share of a verification, % (paper 78.3)", "within 3 points"},
    {"table1-llama-3.1-8b", "Table 1, Llama-3.1-8B, % (paper 91.4)", "within 3 points"},
    {"table1-qwen3-14b", "Table 1, Qwen3-14B, % (paper 93.3)", "within 3 points"},
    {"fig12", "Fig. 12, pruning's mean throughput gain, %", "above 1 %"},
    {"wasted", "SpecInfer's wasted verification, % (paper about 20)", "10 to 30 %"},
    {"fig14", "Fig. 14, on-demand CPU head: throughput over the best NPU placement", "faster, and less head time, than both"}};

int ls_unc_jobs(const unc_matrix *m)
{
  return m->nd * m->nm * m->ns * m->nsys + m->nlm_m * m->nlm_s * m->nl;
}

unc_job ls_unc_job(const unc_matrix *m, int i)
{
  int main = m->nd * m->nm * m->ns * m->nsys;
  if (i < main) {
    int sys = i % m->nsys, c = i / m->nsys;
    return (unc_job){m->devices[c / (m->nm * m->ns)], m->models[c / m->ns % m->nm], m->datasets[c % m->ns],
                     m->systems[sys], NULL};
  }
  i -= main;
  return (unc_job){m->devices[0], m->lm_models[i / (m->nlm_s * m->nl)], m->lm_datasets[i / m->nl % m->nlm_s],
                   "lever", m->lmheads[i % m->nl]};
}

static int sys_index(const unc_matrix *m, const char *s)
{
  for (int i = 0; i < m->nsys; i++)
    if (!strcmp(m->systems[i], s)) return i;
  return -1;
}

/* Lever's mean speedup over system s across the main configurations; NaN when none. */
static double mean_speedup(const unc_matrix *m, const double (*met)[UNC_NMETRICS], int s)
{
  int lv = sys_index(m, "lever"), nc = m->nd * m->nm * m->ns, n = 0;
  double sum = 0;
  if (lv < 0 || s < 0) return NAN;
  for (int c = 0; c < nc; c++) {
    double l = met[c * m->nsys + lv][UM_TPS], o = met[c * m->nsys + s][UM_TPS];
    if (l > 0 && o > 0) sum += l / o, n++;
  }
  return n ? sum / n : NAN;
}

static void claims_main(const unc_matrix *m, const double (*met)[UNC_NMETRICS], int wasted_tokens, double *val)
{
  static const char *const flash[] = {"ar-flash", "sd-chain", "specinfer", "sequoia", "eagle2", "opt-tree"};
  int lv = sys_index(m, "lever"), nc = m->nd * m->nm * m->ns, fastest = 0, nf = 0, sp = sys_index(m, "specinfer");
  val[UNC_AR] = mean_speedup(m, met, sys_index(m, "ar-flash"));
  val[UNC_SPEC] = mean_speedup(m, met, sp);
  double gain = 0, waste = 0;
  int ng = 0, nw = 0, np_i = sys_index(m, "lever-no-prune");
  for (int c = 0; c < nc && lv >= 0; c++) {
    double l = met[c * m->nsys + lv][UM_TPS];
    int ahead = l > 0;
    for (int f = 0; f < 6; f++) {
      int s = sys_index(m, flash[f]);
      if (s >= 0) ahead = ahead && met[c * m->nsys + s][UM_TPS] < l, nf += c == 0;
    }
    fastest += ahead;
    if (np_i >= 0 && met[c * m->nsys + np_i][UM_TPS] > 0) gain += l / met[c * m->nsys + np_i][UM_TPS], ng++;
    if (sp >= 0 && !isnan(met[c * m->nsys + sp][UM_WASTED]))
      waste += met[c * m->nsys + sp][wasted_tokens ? UM_WASTED_TOK : UM_WASTED], nw++;
  }
  val[UNC_FASTEST] = lv >= 0 && nf ? fastest : NAN;
  val[UNC_FIG12] = ng ? 100 * (gain / ng - 1) : NAN;
  val[UNC_WASTED] = nw ? 100 * waste / nw : NAN;
}

/* Table 1: ar-flash on the first device (the OnePlus 12), mean over datasets, per model. */
static double table1(const unc_matrix *m, const double (*met)[UNC_NMETRICS], const char *model)
{
  int ar = sys_index(m, "ar-flash"), n = 0;
  double sum = 0;
  for (int mi = 0; mi < m->nm && ar >= 0; mi++) {
    if (strcmp(m->models[mi], model)) continue;
    for (int s = 0; s < m->ns; s++) {
      double v = met[(mi * m->ns + s) * m->nsys + ar][UM_IO_BUSY];
      if (!isnan(v)) sum += v, n++;
    }
  }
  return n ? 100 * sum / n : NAN;
}

/* Fig. 14: the lmhead jobs (after the main ones); lmheads[0] is the one judged. */
static void fig14(const unc_matrix *m, const double (*met)[UNC_NMETRICS], double *val, signed char *holds)
{
  int base = m->nd * m->nm * m->ns * m->nsys, cfgs = m->nlm_m * m->nlm_s, ok = cfgs > 0, n = 0;
  double cost[8] = {0}, tps[8] = {0}, ratio = 0;
  for (int c = 0; c < cfgs; c++) {
    double best = 0;
    for (int l = 0; l < m->nl; l++) {
      const double *x = met[base + c * m->nl + l];
      ok = ok && x[UM_TPS] > 0;
      cost[l] += x[UM_LMHEAD] / cfgs, tps[l] += x[UM_TPS] / cfgs;
      if (l) best = fmax(best, x[UM_TPS]);
    }
    if (best > 0) ratio += met[base + c * m->nl][UM_TPS] / best, n++;
  }
  val[UNC_FIG14] = ok && n ? ratio / n : NAN;
  int h = ok;
  for (int l = 1; l < m->nl; l++) h = h && cost[0] < cost[l] && tps[0] > tps[l];
  holds[UNC_FIG14] = ok ? (signed char)h : -1;
}

void ls_unc_claims_at(const unc_matrix *m, const double (*met)[UNC_NMETRICS], int wasted_tokens, double *val,
                      signed char *holds)
{
  static const double t1_paper[3] = {78.3, 91.4, 93.3};
  static const char *const t1_model[3] = {"qwen3-4b", "llama-3.1-8b", "qwen3-14b"};
  claims_main(m, met, wasted_tokens, val);
  for (int i = 0; i < 3; i++) val[UNC_T1_Q4 + i] = table1(m, met, t1_model[i]);
  fig14(m, met, val, holds);
  holds[UNC_AR] = (signed char)(fabs(val[UNC_AR] / 2.93 - 1) <= 0.05);
  holds[UNC_SPEC] = (signed char)(fabs(val[UNC_SPEC] / 1.50 - 1) <= 0.05);
  holds[UNC_FASTEST] = (signed char)(val[UNC_FASTEST] == m->nd * m->nm * m->ns);
  for (int i = 0; i < 3; i++) holds[UNC_T1_Q4 + i] = (signed char)(fabs(val[UNC_T1_Q4 + i] - t1_paper[i]) <= 3.0);
  holds[UNC_FIG12] = (signed char)(val[UNC_FIG12] > 1.0);
  holds[UNC_WASTED] = (signed char)(fabs(val[UNC_WASTED] - 20) <= 10);
  for (int c = 0; c < UNC_NCLAIMS; c++)
    if (isnan(val[c])) holds[c] = -1;
}

int ls_unc_levels(const ls_unc_assumption *a) { return a->is_range ? 4 : a->n_values; } /* a range: quarters */

int ls_unc_level(const ls_unc_assumption *a, double u)
{
  int n = ls_unc_levels(a), l = (int)(u * n);
  return l < 0 ? 0 : (l >= n ? n - 1 : l);
}

void ls_unc_level_name(const ls_unc_assumption *a, int level, char *buf, size_t size)
{
  if (!a->is_range) {
    snprintf(buf, size, "%s", a->values[level]);
    return;
  }
  double q0 = level / 4.0, q1 = (level + 1) / 4.0;
  double v0 = a->log_scale ? a->lo * pow(a->hi / a->lo, q0) : a->lo + q0 * (a->hi - a->lo);
  double v1 = a->log_scale ? a->lo * pow(a->hi / a->lo, q1) : a->lo + q1 * (a->hi - a->lo);
  snprintf(buf, size, "%.4g-%.4g%s%s", v0, v1, a->unit[0] ? " " : "", a->unit);
}

/* Distribution and share of holding over A and B (the first 2N points). */
static void distribution(const ls_unc_report *r, int c, unc_claim_out *o)
{
  double *x = malloc((size_t)(2 * r->n) * sizeof *x);
  int n = 0, yes = 0;
  for (int p = 0; x && p < 2 * r->n; p++) {
    double v = r->val[(size_t)c * r->points + p];
    if (isnan(v)) continue;
    x[n++] = v;
    yes += r->holds[(size_t)c * r->points + p] == 1;
  }
  o->n = n;
  o->median = o->p05 = o->p95 = o->p_holds = NAN;
  if (n) {
    gsl_sort(x, 1, (size_t)n);
    o->median = gsl_stats_quantile_from_sorted_data(x, 1, (size_t)n, 0.5);
    o->p05 = gsl_stats_quantile_from_sorted_data(x, 1, (size_t)n, 0.05);
    o->p95 = gsl_stats_quantile_from_sorted_data(x, 1, (size_t)n, 0.95);
    o->p_holds = (double)yes / n;
  }
  free(x);
}

/* Indices of claim c's value (holds = 0) or of its verdict (holds = 1); NaN when a point of
 * the design could not be checked. */
static void indices(const ls_unc_report *r, int c, int holds, double *s1, double *st)
{
  size_t np = (size_t)r->points;
  double *f = malloc(np * sizeof *f);
  int ok = f != NULL;
  for (size_t p = 0; ok && p < np; p++) {
    f[p] = holds ? (double)r->holds[c * np + p] : r->val[c * np + p];
    ok = holds ? f[p] >= 0 : !isnan(f[p]);
  }
  if (ok) ls_unc_indices(f, f + r->n, f + 2 * r->n, r->n, r->k, s1, st);
  for (int i = 0; !ok && i < r->k; i++) s1[i] = st[i] = NAN;
  free(f);
}

/* Share of holding per level of every assumption, over all points (each row of AB_i is a
 * draw of the joint distribution too). */
static void levels(const ls_unc_report *r, int c, unc_claim_out *o)
{
  int yes[LS_UNC_MAX_ASSUMPTIONS][LS_UNC_MAX_VALUES] = {{0}};
  memset(o->lvl_n, 0, sizeof o->lvl_n);
  for (int p = 0; p < r->points; p++) {
    int h = r->holds[(size_t)c * r->points + p];
    if (h < 0) continue;
    for (int i = 0; i < r->k; i++) {
      int l = ls_unc_level(ls_unc_ranges_at(r->ranges, i), r->u[(size_t)p * r->k + i]);
      o->lvl_n[i][l]++, yes[i][l] += h;
    }
  }
  for (int i = 0; i < r->k; i++)
    for (int l = 0; l < LS_UNC_MAX_VALUES; l++) o->lvl_p[i][l] = o->lvl_n[i][l] ? (double)yes[i][l] / o->lvl_n[i][l] : NAN;
}

/* The verdict and, for one that depends, the assumption whose levels part it most (the
 * largest spread of the share of holding between its levels) and that share per level. */
static void verdict(const ls_unc_report *r, unc_claim_out *o)
{
  o->depends_on = -1;
  o->flip[0] = '\0';
  if (!o->n) { o->verdict = "cannot check"; return; }
  if (o->p_holds == 1 || o->p_holds == 0) { o->verdict = o->p_holds == 1 ? "holds" : "fails"; return; }
  o->verdict = "depends";
  double best = -1;
  for (int i = 0; i < r->k; i++) {
    double lo = 2, hi = -1;
    for (int l = 0; l < ls_unc_levels(ls_unc_ranges_at(r->ranges, i)); l++)
      if (!isnan(o->lvl_p[i][l])) lo = fmin(lo, o->lvl_p[i][l]), hi = fmax(hi, o->lvl_p[i][l]);
    if (hi - lo > best) best = hi - lo, o->depends_on = i;
  }
  const ls_unc_assumption *a = ls_unc_ranges_at(r->ranges, o->depends_on);
  size_t n = 0;
  for (int l = 0; l < ls_unc_levels(a) && n < sizeof o->flip; l++) {
    char name[96];
    ls_unc_level_name(a, l, name, sizeof name);
    n += (size_t)snprintf(o->flip + n, sizeof o->flip - n, "%sholds in %.0f %% at %s", l ? ", " : "",
                          100 * o->lvl_p[o->depends_on][l], name);
  }
}

void ls_unc_summarise(ls_unc_report *r)
{
  for (int c = 0; c < UNC_NCLAIMS; c++) {
    unc_claim_out *o = &r->c[c];
    distribution(r, c, o);
    indices(r, c, 0, o->s1, o->st);
    indices(r, c, 1, o->s1h, o->sth);
    levels(r, c, o);
    verdict(r, o);
  }
}
