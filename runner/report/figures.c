/* runner/figures: see figures.h. Each claim's test reads the figure's own CSV (the view it
 * plots); thresholds are named below, the paper's numbers beside their sources. */
#include "runner/report/figures.h"
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the paper's claims and their tests ---- */
typedef struct paper_value { const char *key; double value; const char *label; } paper_value;
/* src:lever-notes: Table 1 (OnePlus 12); src:lever-paper: the headline of Fig. 10. */
static const paper_value paper_io[] = {{"qwen3-4b", 78.3, " (likely)"},
                                       {"llama-3.1-8b", 91.4, ""},
                                       {"qwen3-8b", -1, ""},
                                       {"qwen3-14b", 93.3, ""}};
static const paper_value paper_speedup[] = {{"ar-flash", 2.93, "AR-flash"},
                                            {"specinfer", 1.50, "SpecInfer"}};
/* The baselines Fig. 10 draws (its script keeps the same list). */
static const char *const fig10_baselines[] = {"ar-flash", "sd-chain", "specinfer", "sequoia",
                                              "eagle2", "opt-tree", NULL};
/* The draft policies Fig. 11 compares. */
static const char *const fig11_policies[] = {"sd-chain", "specinfer", "sequoia", "eagle2",
                                             "opt-tree", "lever-conv-draft", "lever", NULL};

#define FIG04_NPU_GROWS 2.0   /* NPU: a 64-token pass costs at least this many one-token passes */
#define FIG04_GPU_FLAT 1.25   /* GPU: and at most this many */
#define FIG10_TOL 0.05        /* mean speedups within +-5 % of the paper's */
#define FIG12_MIN_GAIN 0.01   /* pruning must raise throughput by more than 1 % */
#define TABLE1_TOL 3.0        /* I/O share within +-3 points of the paper's */

/* A percentage for "%+.1f": a change that rounds to zero prints +0.0, not -0.0. */
static double pct1(double fraction) { return fabs(fraction) < 0.0005 ? 0.0 : 100 * fraction; }
static int in_list(const char *s, const char *const *list)
{
  for (int i = 0; list[i]; i++)
    if (!strcmp(list[i], s)) return 1;
  return 0;
}

/* Mean of column col over the rows whose column key equals val (key NULL: every row), empty
 * cells skipped; invert: mean of 1/value. NaN when no row has a value. */
static double mean_of(const ls_csvtab *t, const char *col, const char *key, const char *val, int invert)
{
  int c = ls_csvtab_col(t, col), k = key ? ls_csvtab_col(t, key) : -1, n = 0;
  double s = 0;
  for (int r = 0; c >= 0 && r < t->nrow; r++) {
    if (key && !ls_csvtab_is(t, r, k, val)) continue;
    const char *x = ls_csvtab_at(t, r, c);
    if (!x[0]) continue;
    s += invert ? 1 / strtod(x, NULL) : strtod(x, NULL);
    n++;
  }
  return n ? s / n : NAN;
}

static void vset(ls_verdict *v, int holds, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void vset(ls_verdict *v, int holds, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v->text, sizeof v->text, fmt, ap);
  va_end(ap);
  v->holds = holds;
  v->value = v->lo = v->hi = NAN;
}

/* The mean of x[0..n) and its 95 % t-interval (NaN bounds below 2 values). */
static void t_interval(const double *x, int n, double *mean, double *lo, double *hi)
{
  double s = 0, ss = 0;
  for (int i = 0; i < n; i++) s += x[i];
  *mean = n ? s / n : NAN;
  *lo = *hi = NAN;
  if (n < 2) return;
  for (int i = 0; i < n; i++) ss += (x[i] - *mean) * (x[i] - *mean);
  double h = gsl_cdf_tdist_Pinv(0.975, n - 1) * sqrt(ss / (n - 1) / n);
  *lo = *mean - h;
  *hi = *mean + h;
}

/* v's number: the mean of column col (1/value when invert) over the rows whose key column is
 * val, with its t-interval over those rows (one row per configuration). */
static void v_number(const ls_csvtab *t, ls_verdict *v, const char *col, const char *key, const char *val,
                     int invert)
{
  int c = ls_csvtab_col(t, col), k = ls_csvtab_col(t, key), n = 0;
  double *x = malloc((size_t)(t->nrow + 1) * sizeof *x);
  for (int r = 0; x && c >= 0 && r < t->nrow; r++) {
    const char *s = ls_csvtab_at(t, r, c);
    if (!ls_csvtab_is(t, r, k, val) || !s[0]) continue;
    x[n++] = invert ? 1 / strtod(s, NULL) : strtod(s, NULL);
  }
  if (x) t_interval(x, n, &v->value, &v->lo, &v->hi);
  free(x);
}

/* A verdict of -1 naming the first of the columns t lacks; 1 when it has them all. */
static int need_cols(const ls_csvtab *t, ls_verdict *v, const char *const *cols)
{
  for (int i = 0; cols[i]; i++)
    if (ls_csvtab_col(t, cols[i]) < 0) {
      vset(v, -1, "cannot check: the data lack column %s", cols[i]);
      return 0;
    }
  return 1;
}

/* 1 when rows a and b agree on columns c1 (and c2, c3 when >= 0). */
static int same_key(const ls_csvtab *t, int a, int b, int c1, int c2, int c3)
{
  return !strcmp(ls_csvtab_at(t, a, c1), ls_csvtab_at(t, b, c1)) &&
         (c2 < 0 || !strcmp(ls_csvtab_at(t, a, c2), ls_csvtab_at(t, b, c2))) &&
         (c3 < 0 || !strcmp(ls_csvtab_at(t, a, c3), ls_csvtab_at(t, b, c3)));
}
/* 1 when row r is the first with its key (columns c1, c2, c3 as same_key). */
static int first_of_key(const ls_csvtab *t, int r, int c1, int c2, int c3)
{
  for (int q = 0; q < r; q++)
    if (same_key(t, q, r, c1, c2, c3)) return 0;
  return 1;
}

/* Fig. 4: at the largest token count, the NPU curves in the profile's own regime grow by at
 * least FIG04_NPU_GROWS, the GPU curves by at most FIG04_GPU_FLAT. */
static void judge_fig04(const ls_csvtab *t, ls_verdict *v)
{
  static const char *const cols[] = {"kind", "own", "tokens", "relative", NULL};
  if (!need_cols(t, v, cols)) return;
  int ck = ls_csvtab_col(t, "kind"), co = ls_csvtab_col(t, "own"), cn = ls_csvtab_col(t, "tokens"),
      cr = ls_csvtab_col(t, "relative");
  double nmax = 0, npu = INFINITY, gpu = 0;
  for (int r = 0; r < t->nrow; r++) nmax = fmax(nmax, ls_csvtab_num(t, r, cn));
  for (int r = 0; r < t->nrow; r++) {
    if (ls_csvtab_num(t, r, cn) != nmax) continue;
    if (ls_csvtab_is(t, r, ck, "GPU")) gpu = fmax(gpu, ls_csvtab_num(t, r, cr));
    else if (ls_csvtab_is(t, r, co, "1")) npu = fmin(npu, ls_csvtab_num(t, r, cr));
  }
  if (isinf(npu) || gpu == 0) {
    vset(v, -1, "cannot check: the data lack an NPU or a GPU curve");
    return;
  }
  int ok = npu >= FIG04_NPU_GROWS && gpu <= FIG04_GPU_FLAT;
  vset(v, ok, "a %g-token pass costs %.1f× one token on the NPU, %.2f× on the GPU%s", nmax, npu,
       gpu, ok ? "" : npu < FIG04_NPU_GROWS ? " (NPU too flat)" : " (GPU not flat)");
}

/* Fig. 5: one conventional-SD curve (system s, dataset d: rows of that key). */
typedef struct budget_curve { double b0, b1, tau0, tau1, peak_b, peak, tps1; } budget_curve;
static budget_curve fig05_curve(const ls_csvtab *t, int row, int cs, int cd)
{
  int cb = ls_csvtab_col(t, "budget"), ct = ls_csvtab_col(t, "tau"), cp = ls_csvtab_col(t, "throughput_tps");
  budget_curve c = {INFINITY, -INFINITY, 0, 0, 0, -INFINITY, 0};
  for (int r = 0; r < t->nrow; r++) {
    if (!same_key(t, r, row, cs, cd, -1)) continue;
    double b = ls_csvtab_num(t, r, cb), tau = ls_csvtab_num(t, r, ct), tps = ls_csvtab_num(t, r, cp);
    if (b < c.b0) c.b0 = b, c.tau0 = tau;
    if (b > c.b1) c.b1 = b, c.tau1 = tau, c.tps1 = tps;
    if (tps > c.peak) c.peak = tps, c.peak_b = b;
  }
  return c;
}

/* Fig. 5: for every curve of a system that is not Lever's: tau at the largest budget above
 * tau at the smallest; speed peaks at an inner budget and is lower at the largest. */
static void judge_fig05(const ls_csvtab *t, ls_verdict *v)
{
  static const char *const cols[] = {"system", "dataset", "budget", "tau", "throughput_tps", NULL};
  if (!need_cols(t, v, cols)) return;
  int cs = ls_csvtab_col(t, "system"), cd = ls_csvtab_col(t, "dataset"), n = 0, good = 0, shown = -1;
  budget_curve show = {0};
  for (int r = 0; r < t->nrow; r++) {
    if (!strncmp(ls_csvtab_at(t, r, cs), "lever", 5) || !first_of_key(t, r, cs, cd, -1)) continue;
    budget_curve c = fig05_curve(t, r, cs, cd);
    int ok = c.tau1 > c.tau0 && c.peak_b > c.b0 && c.peak_b < c.b1 && c.tps1 < c.peak;
    n++;
    good += ok;
    if (shown < 0 || (!ok && good == n - 1)) shown = r, show = c; /* the first failure, else the first */
  }
  if (!n) {
    vset(v, -1, "cannot check: no conventional-SD curve in the data");
    return;
  }
  const char *sys = ls_csvtab_at(t, shown, cs), *ds = ls_csvtab_at(t, shown, cd);
  if (good == n)
    vset(v, 1, "in %d/%d curves; %s, %s: τ %.1f→%.1f, speed peaks at budget %g then falls %.0f %% by %g",
         good, n, sys, ds, show.tau0, show.tau1, show.peak_b, 100 * (1 - show.tps1 / show.peak), show.b1);
  else
    vset(v, 0, "in %d/%d curves; %s, %s: τ %.1f→%.1f, speed peaks at budget %g%s", good, n, sys, ds,
         show.tau0, show.tau1, show.peak_b,
         show.tau1 <= show.tau0 ? " (τ does not rise)" : " (at the edge of 4–64, no fall inside)");
}

/* Fig. 10: configurations where some drawn baseline is at least as fast as Lever. */
static int fig10_lost(const ls_csvtab *t, const char **who)
{
  int cd = ls_csvtab_col(t, "device"), cm = ls_csvtab_col(t, "model"), cs = ls_csvtab_col(t, "dataset"),
      cy = ls_csvtab_col(t, "system"), cv = ls_csvtab_col(t, "vs_lever"), lost = 0;
  *who = NULL;
  for (int r = 0; r < t->nrow; r++) {
    if (!first_of_key(t, r, cd, cm, cs)) continue;
    int beaten = 0;
    for (int q = r; q < t->nrow; q++)
      if (same_key(t, q, r, cd, cm, cs) && in_list(ls_csvtab_at(t, q, cy), fig10_baselines) &&
          ls_csvtab_num(t, q, cv) >= 1) {
        beaten = 1;
        if (!*who) *who = ls_csvtab_at(t, q, cy);
      }
    lost += beaten;
  }
  return lost;
}

static int fig10_configs(const ls_csvtab *t)
{
  int cd = ls_csvtab_col(t, "device"), cm = ls_csvtab_col(t, "model"), cs = ls_csvtab_col(t, "dataset"), n = 0;
  for (int r = 0; r < t->nrow; r++) n += first_of_key(t, r, cd, cm, cs);
  return n;
}

/* Fig. 10: Lever ahead of every drawn baseline in every configuration, and its mean speedup
 * over each of the paper's two baselines within FIG10_TOL of the paper's. */
static void judge_fig10(const ls_csvtab *t, ls_verdict *v)
{
  static const char *const cols[] = {"device", "model", "dataset", "system", "vs_lever", NULL};
  if (!need_cols(t, v, cols)) return;
  const char *who;
  int lost = fig10_lost(t, &who), n = fig10_configs(t), ok = lost == 0;
  char means[160] = "", *w = means;
  for (size_t p = 0; p < sizeof paper_speedup / sizeof *paper_speedup; p++) {
    double m = mean_of(t, "vs_lever", "system", paper_speedup[p].key, 1);
    double off = m / paper_speedup[p].value - 1;
    ok = ok && fabs(off) <= FIG10_TOL;
    w += snprintf(w, sizeof means - (size_t)(w - means), "; %.2f× vs %s (paper %.2f×, %+.0f %%)", m,
                  paper_speedup[p].label, paper_speedup[p].value, 100 * off);
  }
  if (lost)
    vset(v, 0, "fastest in %d/%d configurations (%s ahead or level in some)%s", n - lost, n, who, means);
  else
    vset(v, ok, "fastest in %d/%d configurations%s%s", n, n, means,
         ok ? "" : " — a mean is off by more than 5 %");
  v_number(t, v, "vs_lever", "system", paper_speedup[0].key, 1);
}

/* Fig. 11: Lever's mean throughput / SpecInfer the highest of the draft policies. */
static void judge_fig11(const ls_csvtab *t, ls_verdict *v)
{
  static const char *const cols[] = {"system", "tps_vs_specinfer", NULL};
  if (!need_cols(t, v, cols)) return;
  double lever = mean_of(t, "tps_vs_specinfer", "system", "lever", 0), best = -INFINITY;
  const char *who = NULL;
  for (int i = 0; fig11_policies[i]; i++) {
    double m = mean_of(t, "tps_vs_specinfer", "system", fig11_policies[i], 0);
    if (strcmp(fig11_policies[i], "lever") && m > best) best = m, who = fig11_policies[i];
  }
  if (isnan(lever) || !who) {
    vset(v, -1, "cannot check: no Lever or no other policy in the data");
    return;
  }
  if (lever > best)
    vset(v, 1, "Lever %.2f× SpecInfer on average, next best %s %.2f×", lever, who, best);
  else
    vset(v, 0, "%s leads at %.2f× SpecInfer on average, Lever %.2f×", who, best, lever);
}

/* Fig. 12: Lever's mean throughput / no pruning above 1 + FIG12_MIN_GAIN and its mean
 * wasted share below that of lever-no-prune. */
static void judge_fig12(const ls_csvtab *t, ls_verdict *v)
{
  static const char *const cols[] = {"system", "tps_vs_no_prune", "wasted_verify", NULL};
  if (!need_cols(t, v, cols)) return;
  double gain = mean_of(t, "tps_vs_no_prune", "system", "lever", 0) - 1;
  double wl = 100 * mean_of(t, "wasted_verify", "system", "lever", 0);
  double wn = 100 * mean_of(t, "wasted_verify", "system", "lever-no-prune", 0);
  if (isnan(gain) || isnan(wn)) {
    vset(v, -1, "cannot check: lever or lever-no-prune missing from the data");
    return;
  }
  int up = gain > FIG12_MIN_GAIN, cut = wl < wn;
  vset(v, up && cut, "%+.1f %% throughput, wasted compute %.1f %%→%.1f %%%s", pct1(gain), wn, wl,
       up && cut ? "" : !up ? " (the gain is not above 1 %)" : " (pruning does not cut the waste)");
  v_number(t, v, "tps_vs_no_prune", "system", "lever", 0);
}

/* Figs. 13 and 14's number: the own variant's throughput over the best rival's, the mean over
 * the configurations (device, model, dataset) that have all of them, with its t-interval. */
static void variants_number(const ls_csvtab *t, ls_verdict *v, const char *col, const char *own,
                            const char *const *rivals)
{
  int cd = ls_csvtab_col(t, "device"), cm = ls_csvtab_col(t, "model"), cs = ls_csvtab_col(t, "dataset");
  int cv = ls_csvtab_col(t, col), ct = ls_csvtab_col(t, "throughput_tps"), n = 0;
  if (cd < 0 || cm < 0 || cs < 0) return;
  double *x = malloc((size_t)(t->nrow + 1) * sizeof *x);
  for (int r = 0; x && r < t->nrow; r++) {
    if (!first_of_key(t, r, cd, cm, cs)) continue;
    double mine = NAN, best = -INFINITY;
    int all = 1;
    for (int i = 0; rivals[i]; i++) {
      double tp = NAN;
      for (int q = r; q < t->nrow; q++)
        if (same_key(t, q, r, cd, cm, cs) && ls_csvtab_is(t, q, cv, rivals[i])) tp = ls_csvtab_num(t, q, ct);
      all = all && !isnan(tp);
      best = fmax(best, tp);
    }
    for (int q = r; q < t->nrow; q++)
      if (same_key(t, q, r, cd, cm, cs) && ls_csvtab_is(t, q, cv, own)) mine = ls_csvtab_num(t, q, ct);
    if (all && !isnan(mine) && best > 0) x[n++] = mine / best;
  }
  if (x) t_interval(x, n, &v->value, &v->lo, &v->hi);
  free(x);
}

/* Figs. 13 and 14: variant `own` (of column col) has a lower mean of `cost` and a higher
 * mean throughput than each of rivals[]. */
static void judge_variants(const ls_csvtab *t, ls_verdict *v, const char *col, const char *cost,
                           const char *own, const char *const *rivals, const char *label)
{
  const char *cols[] = {col, cost, "throughput_tps", NULL};
  if (!need_cols(t, v, cols)) return;
  double c0 = mean_of(t, cost, col, own, 0), t0 = mean_of(t, "throughput_tps", col, own, 0);
  if (isnan(c0)) {
    vset(v, -1, "cannot check: no %s rows in the data", own);
    return;
  }
  int ok = 1;
  char lat[160] = "", thr[160] = "";
  size_t nl = 0, nt = 0;
  for (int i = 0; rivals[i]; i++) {
    double c = mean_of(t, cost, col, rivals[i], 0), tp = mean_of(t, "throughput_tps", col, rivals[i], 0);
    if (isnan(c)) {
      vset(v, -1, "cannot check: no %s rows in the data", rivals[i]);
      return;
    }
    ok = ok && c0 < c && t0 > tp;
    nl += (size_t)snprintf(lat + nl, sizeof lat - nl, "%s %s %.1f", i ? "," : " vs", rivals[i], 1e3 * c);
    nt += (size_t)snprintf(thr + nt, sizeof thr - nt, "%s %+.1f %% vs %s", i ? "," : "", pct1(t0 / tp - 1),
                           rivals[i]);
  }
  vset(v, ok, "%s %s %.1f ms/cycle%s; throughput%s%s", own, label, 1e3 * c0, lat, thr,
       ok ? "" : " (not ahead of each on both)");
  variants_number(t, v, col, own, rivals);
}

static void judge_fig13(const ls_csvtab *t, ls_verdict *v)
{
  static const char *const rivals[] = {"cpu", "npu", NULL};
  judge_variants(t, v, "map", "draft_s_mean", "lever", rivals, "draft");
  if (v->holds < 0) return;
  /* the paper's side remark: batch-aware NPU scheduling lands between NPU and Lever */
  double b = mean_of(t, "draft_s_mean", "map", "npu-batch", 0);
  double l = mean_of(t, "draft_s_mean", "map", "lever", 0), n = mean_of(t, "draft_s_mean", "map", "npu", 0);
  size_t len = strlen(v->text);
  if (!isnan(b))
    snprintf(v->text + len, sizeof v->text - len, "; batch-aware NPU %.1f ms (%s)", 1e3 * b,
             b > l && b < n ? "in between" : "not in between");
}

static void judge_fig14(const ls_csvtab *t, ls_verdict *v)
{
  static const char *const rivals[] = {"eager-npu", "demand-npu", NULL};
  judge_variants(t, v, "lmhead", "lmhead_s_mean", "demand-cpu", rivals, "LM head");
}

/* The part of view table1 that stands for the paper's Table 1: the dedicated run when present. */
const char *ls_figures_table1_part(const ls_csvtab *t)
{
  int cp = ls_csvtab_col(t, "part");
  for (int r = 0; cp >= 0 && r < t->nrow; r++)
    if (!strcmp(ls_csvtab_at(t, r, cp), "table1")) return "table1";
  return "main";
}

int ls_figures_table1_row(const ls_csvtab *t, const char *part, const char *model)
{
  int cp = ls_csvtab_col(t, "part"), cm = ls_csvtab_col(t, "model"), row = -1;
  for (int r = 0; r < t->nrow; r++)
    if (ls_csvtab_is(t, r, cp, part) && ls_csvtab_is(t, r, cm, model)) row = r;
  return row;
}

/* Table 1: every target the paper gives within TABLE1_TOL points of its I/O share. */
static void judge_table1(const ls_csvtab *t, ls_verdict *v)
{
  static const char *const cols[] = {"part", "model", "io_share", NULL};
  if (!need_cols(t, v, cols)) return;
  const char *part = ls_figures_table1_part(t);
  int cs = ls_csvtab_col(t, "io_share"), n = 0, good = 0;
  char what[240] = "", *w = what;
  for (size_t k = 0; k < sizeof paper_io / sizeof *paper_io; k++) {
    int r = ls_figures_table1_row(t, part, paper_io[k].key);
    if (paper_io[k].value < 0 || r < 0) continue;
    double s = 100 * ls_csvtab_num(t, r, cs);
    n++;
    good += fabs(s - paper_io[k].value) <= TABLE1_TOL;
    w += snprintf(w, sizeof what - (size_t)(w - what), "%s%s %.1f %% (paper %.1f %%)", n > 1 ? ", " : "",
                  paper_io[k].key, s, paper_io[k].value);
  }
  if (!n) vset(v, -1, "cannot check: no target of the paper's Table 1 in the data");
  else vset(v, good == n, "%d/%d targets within %.0f points: %s", good, n, TABLE1_TOL, what);
  double x[8];
  int m = 0;
  for (size_t k = 0; n && k < sizeof paper_io / sizeof *paper_io && m < 8; k++) {
    int r = ls_figures_table1_row(t, part, paper_io[k].key);
    if (paper_io[k].value >= 0 && r >= 0) x[m++] = ls_csvtab_num(t, r, cs);
  }
  if (m) t_interval(x, m, &v->value, &v->lo, &v->hi);
}

/* Beyond the paper: where Lever's energy per token is the lowest of the flash-offloaded
 * systems (ar-mem keeps the weights in DRAM and is no rival). */
static void judge_energy(const ls_csvtab *t, ls_verdict *v)
{
  static const char *const cols[] = {"device", "system", "energy_per_token_j", NULL};
  if (!need_cols(t, v, cols)) return;
  int cd = ls_csvtab_col(t, "device"), cy = ls_csvtab_col(t, "system"), ce = ls_csvtab_col(t, "energy_per_token_j");
  int nd = 0, least = 0;
  for (int r = 0; r < t->nrow; r++) {
    if (!first_of_key(t, r, cd, -1, -1)) continue;
    double lever = INFINITY, other = INFINITY;
    for (int q = r; q < t->nrow; q++) {
      if (!same_key(t, q, r, cd, -1, -1)) continue;
      const char *y = ls_csvtab_at(t, q, cy);
      if (!strcmp(y, "lever")) lever = ls_csvtab_num(t, q, ce);
      else if (strcmp(y, "ar-mem")) other = fmin(other, ls_csvtab_num(t, q, ce));
    }
    nd++;
    least += lever <= other;
  }
  vset(v, -1, "Lever's energy per token is the least of the flash-offloaded systems on %d/%d devices",
       least, nd);
}

/* Beyond the paper: Lever's speedup over AR (flash) at the lowest and highest bandwidth. */
static void judge_sensitivity(const ls_csvtab *t, ls_verdict *v)
{
  static const char *const cols[] = {"system", "bandwidth_gbps", "lever_speedup", NULL};
  if (!need_cols(t, v, cols)) return;
  int cy = ls_csvtab_col(t, "system"), cb = ls_csvtab_col(t, "bandwidth_gbps"), cl = ls_csvtab_col(t, "lever_speedup");
  double b0 = INFINITY, b1 = -INFINITY, s0 = NAN, s1 = NAN;
  for (int r = 0; r < t->nrow; r++) {
    if (!ls_csvtab_is(t, r, cy, "ar-flash")) continue;
    double b = ls_csvtab_num(t, r, cb);
    if (b < b0) b0 = b, s0 = ls_csvtab_num(t, r, cl);
    if (b > b1) b1 = b, s1 = ls_csvtab_num(t, r, cl);
  }
  if (isnan(s0)) vset(v, -1, "no AR (flash) rows to compare with");
  else vset(v, -1, "Lever's speedup over AR (flash): %.2f× at %g GB/s, %.2f× at %g GB/s", s0, b0, s1, b1);
}

typedef struct claim {
  const char *fig;
  const char *paper; /* the claim, printed on the figure; NULL: beyond the paper */
  const char *test;  /* what "holds" means, in numbers on the figure's CSV */
  void (*judge)(const ls_csvtab *, ls_verdict *);
  const char *cell;   /* the verdict's number (value, lo, hi), or NULL when it has none */
  const char *regime; /* the rows of view regime the regime map judges it on
                         ('systems', 'map', 'lmhead'); NULL: not on the map */
} claim;

/* Every claim and its test, in one place (the claims: src:lever-paper, its figure captions;
 * Table 1: src:lever-notes). */
static const claim claims[] = {
    {"fig04", "NPU verification latency grows with the tokens verified; the GPU's stays flat",
     "at the largest token count (64), the NPU curves in the profile's own regime cost >= 2x "
     "one token and the GPU curves <= 1.25x", judge_fig04, NULL, NULL},
    {"fig05", "accepted length rises with the tree budget while decode speed peaks, then falls, "
     "inside 4–64", "for every curve of a conventional-SD system (not Lever): tau at the largest "
     "budget > tau at the smallest, and speed peaks at an inner budget and is lower at the "
     "largest", judge_fig05, NULL, NULL},
    {"fig10", "Lever is fastest in every configuration: 2.93× over AR (flash), 1.50× over "
     "conventional SD on average", "Lever out-runs every drawn baseline (vs_lever < 1) in every "
     "configuration, and its mean speedup (mean of 1/vs_lever) over ar-flash and over specinfer "
     "is within +-5 % of 2.93 and 1.50", judge_fig10, "Lever / AR (flash), mean", "systems"},
    {"fig11", "Lever's draft policy leads all draft policies (throughput normalised to SpecInfer)",
     "Lever's mean tps_vs_specinfer over all rows is the highest of the policies drawn",
     judge_fig11, NULL, NULL},
    {"fig12", "early-exit pruning raises throughput and cuts wasted verification compute",
     "Lever's mean tps_vs_no_prune > 1.01 and its mean wasted_verify < lever-no-prune's",
     judge_fig12, "Lever / Lever w/o pruning, mean", "systems"},
    {"fig13", "hybrid CPU+NPU drafting beats single-node CPU and single-node NPU drafting "
     "(batch-aware NPU in between)", "map lever has a lower mean draft_s_mean and a "
     "higher mean throughput than maps cpu and npu (npu-batch between: reported, not tested)",
     judge_fig13, "hybrid map / best single node", "map"},
    {"fig14", "on-demand output projection on the CPU beats eager on the NPU (and on-demand on "
     "the NPU)", "lmhead demand-cpu has a lower mean lmhead_s_mean and a higher mean throughput "
     "than eager-npu and demand-npu", judge_fig14, "CPU head / best NPU head", "lmhead"},
    {"table1", "flash I/O is 78.3–93.3 % of one verification across the targets (OnePlus 12)",
     "every target the paper gives is within +-3 points of its share", judge_table1,
     "I/O share of one verification, mean", "systems"},
    {"energy", NULL, "none (beyond the paper): where Lever's energy per token is least",
     judge_energy, NULL, NULL},
    {"sensitivity", NULL, "none (beyond the paper): Lever's speedup over AR (flash) at the "
     "ends of the bandwidth sweep", judge_sensitivity, NULL, NULL},
};
#define N_CLAIMS ((int)(sizeof claims / sizeof *claims))

static const claim *find_claim(const char *fig)
{
  for (int i = 0; i < N_CLAIMS; i++)
    if (!strcmp(claims[i].fig, fig)) return &claims[i];
  return NULL;
}

const char *ls_figures_claim(const char *fig)
{
  const claim *c = find_claim(fig);
  return c ? (c->paper ? c->paper : "beyond the paper: no claim of the paper to check") : NULL;
}

const char *ls_figures_test(const char *fig)
{
  const claim *c = find_claim(fig);
  return c ? c->test : NULL;
}

int ls_figures_judge(const char *fig, const char *csv, size_t len, ls_verdict *v, ls_error *err)
{
  const claim *c = find_claim(fig);
  if (!c) return ls_error_set(err, LS_ENOTFOUND, "no claim for figure '%s'", fig);
  ls_csvtab t;
  int rc = ls_csvtab_parse(&t, csv, len, err);
  if (rc == LS_OK) c->judge(&t, v);
  ls_csvtab_free(&t);
  return rc;
}

int ls_figures_judge_table(const char *fig, const ls_csvtab *t, ls_verdict *v)
{
  const claim *c = find_claim(fig);
  if (!c) return -1;
  c->judge(t, v);
  return (int)(c - claims);
}

int ls_figures_count(void) { return N_CLAIMS; }

const char *ls_figures_name(int i) { return i >= 0 && i < N_CLAIMS ? claims[i].fig : NULL; }

int ls_figures_index(const char *fig)
{
  const claim *c = find_claim(fig);
  return c ? (int)(c - claims) : -1;
}

int ls_figures_from_paper(const char *fig)
{
  const claim *c = find_claim(fig);
  return c && c->paper;
}

int ls_figures_paper_io(int k, const char **model, double *percent, const char **label)
{
  if (k < 0 || k >= (int)(sizeof paper_io / sizeof *paper_io)) return 0;
  *model = paper_io[k].key;
  *percent = paper_io[k].value;
  *label = paper_io[k].label;
  return 1;
}

double ls_figures_paper_speedup(const char *system)
{
  for (size_t p = 0; p < sizeof paper_speedup / sizeof *paper_speedup; p++)
    if (!strcmp(paper_speedup[p].key, system)) return paper_speedup[p].value;
  return -1;
}

/* ---- the regime map ---- */

const char *ls_figures_regime_claim(int i)
{
  for (int k = 0, n = 0; k < N_CLAIMS; k++)
    if (claims[k].regime && n++ == i) return claims[k].fig;
  return NULL;
}

const char *ls_figures_cell(const char *fig)
{
  const claim *c = find_claim(fig);
  return c ? c->cell : NULL;
}

/* A view of t's rows where column cc is set and column ca is col: the header and those rows,
 * their cells borrowed from t (the caller frees only cell). */
static int subset(const ls_csvtab *t, int cc, const char *set, int ca, const char *col, ls_csvtab *out)
{
  out->buf = NULL;
  out->ncol = t->ncol;
  out->nrow = 0;
  out->cell = malloc((size_t)(t->nrow + 1) * (size_t)t->ncol * sizeof *out->cell);
  if (!out->cell) return LS_ENOMEM;
  memcpy(out->cell, t->cell, (size_t)t->ncol * sizeof *out->cell);
  for (int r = 0; r < t->nrow; r++)
    if (ls_csvtab_is(t, r, cc, set) && ls_csvtab_is(t, r, ca, col))
      memcpy(out->cell + (size_t)(++out->nrow) * (size_t)t->ncol, t->cell + (size_t)(r + 1) * (size_t)t->ncol,
             (size_t)t->ncol * sizeof *out->cell);
  return LS_OK;
}

/* Table 1 under an assumption: view table1's shape (part, model, io_share: the mean over the
 * datasets) from the AR (flash) rows of the device Table 1 is measured on. */
static int table1_of(const ls_csvtab *s, ls_csvtab *out, ls_error *err)
{
  int cy = ls_csvtab_col(s, "system"), cd = ls_csvtab_col(s, "device"), cm = ls_csvtab_col(s, "model"),
      ci = ls_csvtab_col(s, "io_share");
  char text[2048];
  size_t len = (size_t)snprintf(text, sizeof text, "part,model,io_share\n");
  for (size_t k = 0; k < sizeof paper_io / sizeof *paper_io; k++) {
    double sum = 0;
    int n = 0;
    for (int r = 0; r < s->nrow; r++)
      if (ls_csvtab_is(s, r, cy, paper_speedup[0].key) && ls_csvtab_is(s, r, cd, "oneplus-12") &&
          ls_csvtab_is(s, r, cm, paper_io[k].key) && ls_csvtab_at(s, r, ci)[0])
        sum += ls_csvtab_num(s, r, ci), n++;
    if (n && len < sizeof text)
      len += (size_t)snprintf(text + len, sizeof text - len, "table1,%s,%.17g\n", paper_io[k].key, sum / n);
  }
  return ls_csvtab_parse(out, text, len < sizeof text ? len : sizeof text - 1, err);
}

static void regime_row(FILE *out, int row, int col, const char *fig, const char *column, int is_default,
                       const ls_verdict *v)
{
  fprintf(out, "%d,%d,%s,\"%s\",\"%s\",\"%s\",%d", row, col, fig, ls_figures_claim(fig), ls_figures_cell(fig),
          column, is_default);
  const double x[] = {v->value, v->lo, v->hi};
  for (int k = 0; k < 3; k++)
    if (isfinite(x[k])) fprintf(out, ",%.17g", x[k]);
    else fputs(",", out);
  fprintf(out, ",%d\n", v->holds);
}

/* Whether some row of t has column ca equal to col. */
static int has_column(const ls_csvtab *t, int ca, const char *col)
{
  for (int r = 0; r < t->nrow; r++)
    if (ls_csvtab_is(t, r, ca, col)) return 1;
  return 0;
}

/* Claim c judged on the rows of t whose claims column (cc) names c's rows and whose
 * assumption column (ca) is col. */
static int regime_judge(const ls_csvtab *t, const claim *c, int cc, int ca, const char *col, ls_verdict *v,
                        ls_error *err)
{
  ls_csvtab s, tt = {NULL, NULL, 0, 0};
  if (subset(t, cc, c->regime, ca, col, &s)) return ls_error_set(err, LS_ENOMEM, "regime map: out of memory");
  int rc = LS_OK;
  if (!strcmp(c->fig, "table1") && (rc = table1_of(&s, &tt, err)) == LS_OK) c->judge(&tt, v);
  else if (rc == LS_OK) c->judge(&s, v);
  free(s.cell);
  ls_csvtab_free(&tt);
  return rc;
}

int ls_figures_regime_map(const ls_csvtab *t, const ls_verdict *defaults, const int *judged, FILE *out,
                          ls_error *err)
{
  int cc = ls_csvtab_col(t, "claims"), ca = ls_csvtab_col(t, "assumption");
  if (cc < 0 || ca < 0) return ls_error_set(err, LS_EPARSE, "view regime: no claims or assumption column");
  fprintf(out, "row,col,fig,claim,cell,column,is_default,value,lo,hi,holds\n");
  for (int i = 0; ls_figures_regime_claim(i); i++) {
    const char *fig = ls_figures_regime_claim(i);
    const claim *c = find_claim(fig);
    int k = (int)(c - claims);
    ls_verdict v = {-1, "no figure data", NAN, NAN, NAN};
    int rc = LS_OK;
    if (judged[k]) v = defaults[k];
    else if (has_column(t, ca, "default")) rc = regime_judge(t, c, cc, ca, "default", &v, err);
    if (rc) return rc;
    regime_row(out, i, 0, fig, "default", 1, &v);
    for (int r = 0, j = 1; r < t->nrow; r++) {
      const char *col = ls_csvtab_at(t, r, ca);
      int first = !strcmp(col, "default") ? 0 : 1;
      for (int q = 0; first && q < r; q++) first = strcmp(ls_csvtab_at(t, q, ca), col) != 0;
      if (!first) continue;
      if ((rc = regime_judge(t, c, cc, ca, col, &v, err))) return rc;
      regime_row(out, i, j++, fig, col, 0, &v);
    }
  }
  return ferror(out) ? ls_error_set(err, LS_EIO, "regime map: write failed") : LS_OK;
}
