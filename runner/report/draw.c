/* runner/report/draw: the paper's figures redrawn from a results database (the C API behind
 * `leversim figures` and the end of `leversim reproduce`).
 *
 * Redraws the paper's figures from a results database. For each figure: the figure's view
 * (results/schema.c) is exported as CSV into the output folder (<out>/<name>.csv), then
 * gnuplot runs plots/<name>.gp twice (PNG 1200x800 and SVG) with the paths and the category
 * lists found in the CSV (devices, models, datasets, systems, ... in the paper's order)
 * passed as -e variables; the scripts do the drawing, normalising and averaging. fig04 is
 * not in the database: it is computed here from the device and model files
 * (runner/report/curve.h). table1 and summary are Markdown + CSV, no plot.
 *
 * Claims (runner/report/figures.h): each figure that reproduces a claim of the paper has one entry
 * in runner/report/figures.c: the claim's text, its test in words, and the function that applies the
 * test to the figure's CSV. The verdict goes onto the figure (variables claim, verdict,
 * verdict2, holds), onto the figure's stdout line, and into <out>/claims.md.
 *
 * Failure policy (status codes; the CLI maps them to exit codes, docs/ARCHITECTURE.md, "Exit codes"):
 *   missing database file -> 66; database without any ok run -> 65 (nothing exported);
 *   a figure whose view is empty -> one-line note, skipped, exit unaffected;
 *   gnuplot not installed -> CSV and Markdown are still written, a note says which plots
 *   were skipped, exit 0 (so `leversim reproduce` finishes on a machine without it);
 *   gnuplot failing on a script -> its output goes to <out>/<name>.log (never to the
 *   terminal), a one-line note names the log, exit 70 at the end;
 *   unwritable output folder -> 74; unknown figure name or option -> 64.
 * $LEVERSIM_GNUPLOT names the gnuplot program (default: gnuplot on $PATH). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "results/db.h"
#include "runner/decode/paths.h"
#include "runner/report/curve.h"
#include "devices/device.h"
#include "runner/report/figures.h"
#include "runner/report/draw.h"
#include "sim/fileio.h"
#include "sim/gnuplot.h"

extern char **environ;

#define VARS_MAX 8192 /* gnuplot -e text: paths + category lists + caption */
#define LS_FIGURES_MAX 32 /* claim entries a run keeps verdicts for (figures.c has fewer) */

/* ---- categories in the paper's order ---- */
static const char *const canon_order[] = {
    "oneplus-12", "honor-500-pro", "honor-magic-v5", "galaxy-s23", "vivo-x100-pro", "pixel-9",
    "rtx-3090", "llama-3.1-8b", "qwen3-4b", "qwen3-8b", "qwen3-14b", "mt-bench", "humaneval",
    "mbpp", "gsm8k", "ar-mem", "ar-flash", "sd-chain", "specinfer", "sequoia", "eagle2",
    "opt-tree", "lever-conv-draft", "lever-no-prune", "lever-npu-map", "lever-draft-only",
    "lever", "npu", "cpu", "npu-batch", "eager-npu", "demand-npu", "demand-cpu", NULL};

static int canon_rank(const char *s)
{
  for (int i = 0; canon_order[i]; i++)
    if (!strcmp(canon_order[i], s)) return i;
  return 1000;
}
static int cmp_category(const void *a, const void *b)
{
  const char *x = *(const char *const *)a, *y = *(const char *const *)b;
  int rx = canon_rank(x), ry = canon_rank(y);
  return rx != ry ? (rx < ry ? -1 : 1) : strcmp(x, y);
}

/* The distinct non-empty values of column col as "a b c" into out (size bytes). Values with
 * blanks or quotes cannot be gnuplot words and are left out. */
static void category_words(const ls_csvtab *t, int col, char *out, size_t size)
{
  const char **v = malloc((size_t)(t->nrow + 1) * sizeof *v);
  int n = 0;
  out[0] = '\0';
  if (!v) return;
  for (int r = 0; r < t->nrow; r++) {
    const char *s = ls_csvtab_at(t, r, col);
    if (!s[0] || strpbrk(s, " \t'\"")) continue;
    int seen = 0;
    for (int k = 0; k < n && !seen; k++) seen = !strcmp(v[k], s);
    if (!seen) v[n++] = s;
  }
  qsort(v, (size_t)n, sizeof *v, cmp_category);
  size_t len = 0;
  for (int k = 0; k < n && len < size; k++)
    len += (size_t)snprintf(out + len, size - len, "%s%s", k ? " " : "", v[k]);
  free(v);
}

/* ---- the figures ---- */
typedef struct fig_ctx fig_ctx;
typedef struct fig_def {
  const char *name;  /* command-line name and file stem */
  const char *view;  /* exported view, NULL when computed here */
  int plot;          /* 1: plots/<name>.gp draws it */
  const char *about;
  int (*extra)(fig_ctx *, const ls_csvtab *, char *vars, size_t size, ls_error *err); /* or NULL */
} fig_def;

struct fig_ctx {
  ls_db *db;             /* borrowed; NULL when no figure needs it */
  const char *out_dir;   /* borrowed */
  const char *gnuplot;   /* program, NULL when not found */
  FILE *log;             /* borrowed: one line per figure drawn */
  ls_draw_outcome n;     /* counts: plotted, skipped, failed */
  int judged[LS_FIGURES_MAX];          /* 1: verdicts[i] holds this run's verdict on claims[i] */
  ls_verdict verdicts[LS_FIGURES_MAX];
};

static int extra_fig10(fig_ctx *, const ls_csvtab *, char *, size_t, ls_error *);
static int extra_fig11(fig_ctx *, const ls_csvtab *, char *, size_t, ls_error *);
static int extra_sensitivity(fig_ctx *, const ls_csvtab *, char *, size_t, ls_error *);
static int extra_table1(fig_ctx *, const ls_csvtab *, char *, size_t, ls_error *);
static int extra_summary(fig_ctx *, const ls_csvtab *, char *, size_t, ls_error *);
static int extra_regime(fig_ctx *, const ls_csvtab *, char *, size_t, ls_error *);

static const fig_def figs[] = {
    {"table1", "table1", 0, "I/O share of one verification per target on oneplus-12 (Markdown)",
     extra_table1},
    {"summary", "v_summary", 0, "Lever's average speedups, paper vs simulated (Markdown)",
     extra_summary},
    {"fig04", NULL, 1, "verification latency vs tokens, NPU (oneplus-12) vs GPU (rtx-3090)", NULL},
    {"fig05", "fig05", 1, "tree budget 4..64 on oneplus-12: the budget dilemma", NULL},
    {"fig10", "fig10", 1, "decode throughput of every system normalised to Lever (48 configs)",
     extra_fig10},
    {"fig11", "fig11", 1, "throughput and accepted length by draft policy vs SpecInfer",
     extra_fig11},
    {"fig12", "fig12", 1, "pruning ablation: lever vs lever-no-prune", NULL},
    {"fig13", "fig13", 1, "draft-stage latency by draft-stage mapping", NULL},
    {"fig14", "fig14", 1, "output-projection latency by placement", NULL},
    {"regime", "regime", 1, "regime map: the paper's claims under each open assumption", extra_regime},
    {"energy", "energy", 1, "energy per token by system and device", NULL},
    {"sensitivity", "sensitivity", 1, "Lever's speedup vs flash bandwidth", extra_sensitivity},
};
#define N_FIGS ((int)(sizeof figs / sizeof *figs))

/* Appends `name='value'; ` (gnuplot single-quoted: ' doubled) to vars. */
static void add_var(char *vars, size_t size, const char *name, const char *value)
{
  size_t len = strlen(vars);
  len += (size_t)snprintf(vars + len, len < size ? size - len : 0, "%s='", name);
  for (const char *p = value; *p && len + 3 < size; p++) {
    if (*p == '\'') vars[len++] = '\'';
    vars[len++] = *p;
  }
  if (len + 4 < size) memcpy(vars + len, "'; ", 4);
}

/* The last non-empty line of a log file (for the one-line failure note). */
static void last_line(const char *path, char *out, size_t size)
{
  out[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0]) snprintf(out, size, "%s", line);
  }
  fclose(f);
}

static void out_path(const fig_ctx *cx, char *buf, size_t size, const char *stem, const char *ext)
{
  snprintf(buf, size, "%s/%s.%s", cx->out_dir, stem, ext);
}

/* Appends `name=value; ` (a number) to vars. */
static void add_num(char *vars, size_t size, const char *name, double value)
{
  size_t len = strlen(vars);
  snprintf(vars + len, len < size ? size - len : 0, "%s=%.17g; ", name, value);
}

static const char *holds_word(int holds)
{
  return holds > 0 ? "holds" : holds == 0 ? "does NOT hold" : "";
}

/* The verdict line(s) for the figure's face: one line, or split at the last "; " before
 * VERDICT_WIDTH characters into line and line2 (empty when not needed). */
#define VERDICT_WIDTH 125
static void verdict_lines(const ls_verdict *v, char *line, char *line2, size_t size)
{
  snprintf(line, size, "Here: %s%s%s", holds_word(v->holds), v->holds >= 0 ? " — " : "", v->text);
  line2[0] = '\0';
  if (strlen(line) <= VERDICT_WIDTH) return;
  char *cut = NULL;
  for (char *p = strstr(line, "; "); p && p - line < VERDICT_WIDTH; p = strstr(p + 1, "; ")) cut = p;
  if (!cut) return;
  snprintf(line2, size, "%s", cut + 2);
  cut[1] = '\0';
}

/* Judges figure name's claim on t (when the figure has one), keeps the verdict for
 * claims.md, and passes claim, verdict, verdict2 and holds to the script. */
static void add_claim(fig_ctx *cx, const char *name, const ls_csvtab *t, char *vars, size_t size)
{
  int i = ls_figures_index(name);
  if (i < 0 || i >= LS_FIGURES_MAX) return;
  ls_figures_judge_table(name, t, &cx->verdicts[i]);
  cx->judged[i] = 1;
  char line[512], line2[512];
  snprintf(line, sizeof line, "%s%s", ls_figures_from_paper(name) ? "Paper: " : "Beyond the paper: ",
           ls_figures_from_paper(name) ? ls_figures_claim(name) : "no claim of the paper to check");
  add_var(vars, size, "claim", line);
  verdict_lines(&cx->verdicts[i], line, line2, sizeof line);
  add_var(vars, size, "verdict", line);
  add_var(vars, size, "verdict2", line2);
  add_num(vars, size, "holds", cx->verdicts[i].holds);
}

/* "  [claim holds]" etc. for the figure's stdout line; "" without a claim. */
static const char *claim_note(const fig_ctx *cx, const char *name)
{
  int i = ls_figures_index(name);
  if (i < 0 || i >= LS_FIGURES_MAX || !ls_figures_from_paper(name) || !cx->judged[i]) return "";
  int h = cx->verdicts[i].holds;
  return h > 0 ? "  [paper's claim holds]" : h == 0 ? "  [paper's claim does NOT hold]" : "  [claim not checked]";
}

/* Draws figure f (PNG, then SVG) with the variables already in vars. */
static void plot_figure(fig_ctx *cx, const fig_def *f, char *vars, size_t size)
{
  if (!cx->gnuplot) {
    cx->n.skipped_nognuplot++;
    return;
  }
  char script[LS_PATH_MAX], plotdir[LS_PATH_MAX], log[LS_PATH_MAX], img[LS_PATH_MAX];
  snprintf(plotdir, sizeof plotdir, "%s/plots", ls_data_root());
  snprintf(script, sizeof script, "%s/%s.gp", plotdir, f->name);
  out_path(cx, log, sizeof log, f->name, "log");
  if (strcmp(ls_file_kind(log), "a regular file") == 0) /* an old log; never a folder or FIFO */
    unlink(log);
  add_var(vars, size, "plotdir", plotdir);
  size_t base = strlen(vars);
  static const char *const fmts[] = {"png", "svg"};
  for (int k = 0; k < 2; k++) {
    vars[base] = '\0';
    out_path(cx, img, sizeof img, f->name, fmts[k]);
    /* gnuplot writes a temporary file named here, renamed over the image when it succeeded:
     * only over an image leversim drew, never through a link (sim/fileio.h) */
    ls_file_out o;
    ls_error own;
    if (ls_file_out_open(&o, img, "figures --out", k ? "<svg" : "PNG", &own) != LS_OK) {
      fprintf(stderr, "leversim figures: %s: %s\n", f->name, own.msg);
      cx->n.failed++;
      return;
    }
    add_var(vars, size, "fmt", fmts[k]);
    add_var(vars, size, "out", ls_file_out_release(&o));
    int st = ls_gnuplot_run(cx->gnuplot, vars, script, log);
    if (st == 0 && ls_file_out_commit(&o, &own) != LS_OK) {
      fprintf(stderr, "leversim figures: %s: %s\n", f->name, own.msg);
      cx->n.failed++;
      return;
    }
    if (st != 0) {
      ls_file_out_abort(&o);
      char tail[512];
      last_line(log, tail, sizeof tail);
      fprintf(stderr, "leversim figures: %s: gnuplot %s%s%s; full output in %s\n", f->name,
              st == LS_GNUPLOT_TIMED_OUT ? "stopped at its time limit (LEVERSIM_GNUPLOT_LIMIT)"
              : st < 0 ? "failed (did not run" : "failed (exit status, ",
              st == LS_GNUPLOT_TIMED_OUT ? "" : st < 0 ? "" : (tail[0] ? tail : "no message"),
              st == LS_GNUPLOT_TIMED_OUT ? "" : ")", log);
      cx->n.failed++;
      return;
    }
  }
  unlink(log); /* a clean run leaves no log behind */
  cx->n.plotted++;
  fprintf(cx->log, "%-12s %s/%s.png, .svg%s\n", f->name, cx->out_dir, f->name, claim_note(cx, f->name));
}

/* Writes len bytes to <out>/<stem>.<ext>. */
static int write_file(const fig_ctx *cx, const char *stem, const char *ext, const char *data,
                      size_t len, ls_error *err)
{
  char path[LS_PATH_MAX], mark[256];
  out_path(cx, path, sizeof path, stem, ext);
  /* replaces only what an earlier run wrote: the same first line (a CSV's header, claims'
   * table head) */
  const char *nl = memchr(data, '\n', len);
  size_t n = nl ? (size_t)(nl - data) : len;
  snprintf(mark, sizeof mark, "%.*s", (int)(n < sizeof mark - 1 ? n : sizeof mark - 1), data);
  return ls_file_write_atomic(path, "figures --out", mark[0] ? mark : NULL, data, len, err);
}

/* Exports view into memory (owned by caller, free()) and parses it. */
static int export_view(ls_db *db, const char *view, char **text, size_t *len, ls_csvtab *t,
                       ls_error *err)
{
  *text = NULL;
  *len = 0;
  memset(t, 0, sizeof *t);
  FILE *m = open_memstream(text, len);
  if (!m) return ls_error_set(err, LS_ENOMEM, "export %s: out of memory", view);
  int rc = ls_db_export(db, view, "csv", m, err);
  if (fclose(m) != 0 && rc == LS_OK) rc = ls_error_set(err, LS_EIO, "export %s failed", view);
  if (rc == LS_OK) rc = ls_csvtab_parse(t, *text, *len, err);
  if (rc != LS_OK) ls_error_wrap(err, "view %s", view);
  return rc;
}

/* Category lists of the columns a script groups by, as gnuplot variables. */
static void add_categories(const ls_csvtab *t, char *vars, size_t size)
{
  static const char *const cols[][2] = {{"device", "devices"}, {"model", "models"},
                                        {"dataset", "datasets"}, {"system", "systems"},
                                        {"map", "maps"},       {"lmhead", "lmheads"}};
  for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) {
    int c = ls_csvtab_col(t, cols[i][0]);
    if (c < 0) continue;
    char words[2048];
    category_words(t, c, words, sizeof words);
    add_var(vars, size, cols[i][1], words);
  }
}

static int do_view_figure(fig_ctx *cx, const fig_def *f, ls_error *err)
{
  char *text, vars[VARS_MAX] = "", csvp[1024];
  size_t len;
  ls_csvtab t;
  int rc = export_view(cx->db, f->view, &text, &len, &t, err);
  if (rc == LS_OK) rc = write_file(cx, f->name, "csv", text, len, err);
  if (rc == LS_OK && t.nrow == 0) {
    fprintf(stderr, "leversim figures: %s: skipped, view %s is empty (its part was not run)\n",
            f->name, f->view);
    cx->n.skipped_empty++;
  } else if (rc == LS_OK) {
    out_path(cx, csvp, sizeof csvp, f->name, "csv");
    add_var(vars, sizeof vars, "csv", csvp);
    add_categories(&t, vars, sizeof vars);
    add_claim(cx, f->name, &t, vars, sizeof vars);
    if (f->extra) rc = f->extra(cx, &t, vars, sizeof vars, err);
    if (rc == LS_OK && f->plot) plot_figure(cx, f, vars, sizeof vars);
    if (rc == LS_OK && !f->plot) fprintf(cx->log, "%-12s %s/%s.csv, .md\n", f->name, cx->out_dir, f->name);
  }
  ls_csvtab_free(&t);
  free(text);
  return rc;
}

/* ---- fig04: computed from the device models ---- */
/* One curve (device, model, regime: NULL = the profile's own) as CSV rows; *found 0 when the
 * profile does not give that regime (not an error: a profile may give one regime only). */
static int fig04_curve(FILE *m, const char *dev, const char *model, const char *regime, int *found,
                       ls_error *err)
{
  int toks[LS_CURVE_MAX], nt = 0;
  for (int n = 1; n <= 64; n++) toks[nt++] = n;
  ls_curve_point p[LS_CURVE_MAX];
  ls_curve_info info;
  int rc = ls_curve_compute_regime(ls_data_root(), dev, model, NULL, regime, toks, nt, 256, p, &info, err);
  *found = rc == LS_OK;
  if (rc == LS_EINVALID && regime) {
    ls_error_clear(err);
    return LS_OK;
  }
  for (int i = 0; rc == LS_OK && i < nt; i++)
    fprintf(m, "%s,\"%s\",%s,%s,%d,%s,%d,%d,%.6f,%.6f,%.6f\n", info.device, info.processor,
            info.is_gpu ? "GPU" : "NPU", info.regime, regime == NULL, info.model, p[i].tokens,
            p[i].padded, p[i].latency_ms, p[i].relative, p[i].speedup);
  return rc;
}

/* Every curve of fig04: per device and model, the profile's own NPU regime (own = 1), then
 * the other regimes the phone's profile gives. */
static int fig04_csv(FILE *m, const char *const *devs, const char *const *models, ls_error *err)
{
  fprintf(m, "device,processor,kind,regime,own,model,tokens,padded,latency_ms,relative,speedup\n");
  int rc = LS_OK, found;
  for (int d = 0; devs[d] && rc == LS_OK; d++)
    for (int k = 0; models[k] && rc == LS_OK; k++) {
      rc = fig04_curve(m, devs[d], models[k], NULL, &found, err);
      ls_device *dev = NULL;
      if (rc == LS_OK) rc = ls_device_load_id(&dev, ls_data_root(), devs[d], err);
      if (rc == LS_OK && !ls_device_is_gpu(dev)) {
        int own = (int)ls_device_npu(dev)->regime;
        for (int g = 0; ls_npu_regime_names[g] && rc == LS_OK; g++)
          if (g != own) rc = fig04_curve(m, devs[d], models[k], ls_npu_regime_names[g], &found, err);
      }
      ls_device_free(dev);
    }
  return rc;
}

/* The NPU regimes of t's rows, the profile's own first, as gnuplot words. */
static void fig04_regimes(const ls_csvtab *t, char *out, size_t size)
{
  int ck = ls_csvtab_col(t, "kind"), cr = ls_csvtab_col(t, "regime"), co = ls_csvtab_col(t, "own");
  size_t n = 0;
  out[0] = '\0';
  for (int pass = 1; pass >= 0; pass--)
    for (int r = 0; r < t->nrow; r++) {
      const char *g = ls_csvtab_at(t, r, cr);
      if (!ls_csvtab_is(t, r, ck, "NPU") || !ls_csvtab_is(t, r, co, pass ? "1" : "0")) continue;
      char pat[80];
      snprintf(pat, sizeof pat, " %s ", g);
      char have[600];
      snprintf(have, sizeof have, " %s ", out);
      if (!strstr(have, pat) && n < size) n += (size_t)snprintf(out + n, size - n, "%s%s", n ? " " : "", g);
    }
}

static int do_fig04(fig_ctx *cx, ls_error *err)
{
  static const char *const devs[] = {"oneplus-12", "rtx-3090", NULL};
  static const char *const models[] = {"llama-3.1-8b", "qwen3-8b", NULL};
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m) return ls_error_set(err, LS_ENOMEM, "fig04: out of memory");
  int rc = fig04_csv(m, devs, models, err);
  if (fclose(m) != 0 && rc == LS_OK) rc = ls_error_set(err, LS_ENOMEM, "fig04: out of memory");
  if (rc == LS_OK) rc = write_file(cx, "fig04", "csv", text, len, err);
  ls_csvtab t;
  memset(&t, 0, sizeof t);
  if (rc == LS_OK) rc = ls_csvtab_parse(&t, text, len, err);
  if (rc == LS_OK) {
    char vars[VARS_MAX] = "", csvp[1024], words[512];
    out_path(cx, csvp, sizeof csvp, "fig04", "csv");
    add_var(vars, sizeof vars, "csv", csvp);
    add_var(vars, sizeof vars, "devices", "oneplus-12 rtx-3090");
    add_var(vars, sizeof vars, "models", "llama-3.1-8b qwen3-8b");
    fig04_regimes(&t, words, sizeof words);
    add_var(vars, sizeof vars, "regimes", words);
    add_claim(cx, "fig04", &t, vars, sizeof vars);
    plot_figure(cx, &figs[2], vars, sizeof vars);
  }
  ls_csvtab_free(&t);
  free(text);
  return rc;
}

/* ---- Markdown tables ---- */
static void md_pct(FILE *f, double v)
{
  if (v < 0) fprintf(f, " — |");
  else fprintf(f, " %.1f %% |", 100 * v);
}

/* table1.md and table1_vs_paper.csv: paper vs simulated I/O share. The view holds part
 * 'table1' (a dedicated run) and/or 'main' (specinfer inside the main matrix): the dedicated
 * part wins when present. */
static int extra_table1(fig_ctx *cx, const ls_csvtab *t, char *vars, size_t size, ls_error *err)
{
  (void)vars;
  (void)size;
  int cp = ls_csvtab_col(t, "part"), cm = ls_csvtab_col(t, "model"), cn = ls_csvtab_col(t, "datasets"),
      cs = ls_csvtab_col(t, "io_share"), clo = ls_csvtab_col(t, "io_share_min"), chi = ls_csvtab_col(t, "io_share_max");
  if (cp < 0 || cm < 0 || cn < 0 || cs < 0 || clo < 0 || chi < 0)
    return ls_error_set(err, LS_ESCHEMA, "table1: view lacks a column");
  (void)cp;
  (void)cm;
  const char *part = ls_figures_table1_part(t);
  char *md = NULL, *csv = NULL;
  size_t mdl = 0, csvl = 0;
  FILE *m = open_memstream(&md, &mdl), *c = open_memstream(&csv, &csvl);
  if (!m || !c) {
    if (m) fclose(m);
    if (c) fclose(c);
    free(md);
    free(csv);
    return ls_error_set(err, LS_ENOMEM, "table1: out of memory");
  }
  fprintf(m, "| Target (OnePlus 12) | Paper | Simulated (mean) | Simulated range | Datasets |\n"
             "|---|---:|---:|---:|---:|\n");
  fprintf(c, "model,paper_io_share,io_share,io_share_min,io_share_max,datasets\n");
  const char *model, *label;
  double paper;
  for (int k = 0; ls_figures_paper_io(k, &model, &paper, &label); k++) {
    int row = ls_figures_table1_row(t, part, model);
    double s = row >= 0 ? ls_csvtab_num(t, row, cs) : -1;
    double lo = row >= 0 ? ls_csvtab_num(t, row, clo) : -1, hi = row >= 0 ? ls_csvtab_num(t, row, chi) : -1;
    fprintf(m, "| %s |", model);
    if (paper < 0) fprintf(m, " not given |");
    else fprintf(m, " %.1f %%%s |", paper, label);
    md_pct(m, s);
    if (lo < 0) fprintf(m, " — |");
    else fprintf(m, " %.1f–%.1f %% |", 100 * lo, 100 * hi);
    fprintf(m, " %s |\n", row >= 0 ? ls_csvtab_at(t, row, cn) : "0");
    fprintf(c, "%s,", model);
    if (paper >= 0) fprintf(c, "%.3f", paper / 100);
    fprintf(c, ",%s,%s,%s,%s\n", row >= 0 ? ls_csvtab_at(t, row, cs) : "",
            row >= 0 ? ls_csvtab_at(t, row, clo) : "", row >= 0 ? ls_csvtab_at(t, row, chi) : "",
            row >= 0 ? ls_csvtab_at(t, row, cn) : "0");
  }
  const ls_verdict *v = &cx->verdicts[ls_figures_index("table1")];
  fprintf(m, "\nPaper: %s. Simulated: part `%s`.\n\nHere: %s%s%s.\n", ls_figures_claim("table1"),
          part, holds_word(v->holds), v->holds >= 0 ? " — " : "", v->text);
  fclose(m);
  fclose(c);
  int rc = write_file(cx, "table1", "md", md, mdl, err);
  if (rc == LS_OK) rc = write_file(cx, "table1_vs_paper", "csv", csv, csvl, err);
  free(md);
  free(csv);
  return rc;
}

/* Row of v_summary for system, or -1. */
static int summary_row(const ls_csvtab *t, const char *system)
{
  int cs = ls_csvtab_col(t, "system");
  for (int r = 0; cs >= 0 && r < t->nrow; r++)
    if (!strcmp(ls_csvtab_at(t, r, cs), system)) return r;
  return -1;
}

/* summary.md: Lever's speedup over every system, the paper's two averages beside. */
static int extra_summary(fig_ctx *cx, const ls_csvtab *t, char *vars, size_t size, ls_error *err)
{
  (void)vars;
  (void)size;
  int cs = ls_csvtab_col(t, "system"), cn = ls_csvtab_col(t, "configs"), cm = ls_csvtab_col(t, "speedup_mean"),
      cg = ls_csvtab_col(t, "speedup_geomean"), clo = ls_csvtab_col(t, "speedup_min"),
      chi = ls_csvtab_col(t, "speedup_max");
  if (cs < 0 || cn < 0 || cm < 0 || cg < 0 || clo < 0 || chi < 0)
    return ls_error_set(err, LS_ESCHEMA, "summary: view lacks a column");
  char *md = NULL;
  size_t mdl = 0;
  FILE *m = open_memstream(&md, &mdl);
  if (!m) return ls_error_set(err, LS_ENOMEM, "summary: out of memory");
  fprintf(m, "| Lever vs | Configs | Paper (mean) | Simulated mean | Geomean | Min | Max |\n"
             "|---|---:|---:|---:|---:|---:|---:|\n");
  const char **order = malloc((size_t)(t->nrow + 1) * sizeof *order);
  for (int r = 0; order && r < t->nrow; r++) order[r] = ls_csvtab_at(t, r, cs);
  if (order) qsort(order, (size_t)t->nrow, sizeof *order, cmp_category);
  for (int k = 0; order && k < t->nrow; k++) {
    int r = summary_row(t, order[k]);
    double paper = ls_figures_paper_speedup(order[k]);
    fprintf(m, "| %s | %s |", order[k], ls_csvtab_at(t, r, cn));
    if (paper < 0) fprintf(m, " — |");
    else fprintf(m, " %.2f× |", paper);
    fprintf(m, " %.2f× | %.2f× | %.2f× | %.2f× |\n", ls_csvtab_num(t, r, cm),
            ls_csvtab_num(t, r, cg), ls_csvtab_num(t, r, clo), ls_csvtab_num(t, r, chi));
  }
  fprintf(m, "\nSpeedup = Lever's decode throughput / the system's, per configuration of part "
             "`main`; the paper's average is the arithmetic mean (2.93× over flash-offloaded "
             "autoregressive decoding, 1.50× over conventional speculative decoding).\n");
  fclose(m);
  int rc = order ? write_file(cx, "summary", "md", md, mdl, err)
                 : ls_error_set(err, LS_ENOMEM, "summary: out of memory");
  free(order);
  free(md);
  return rc;
}

/* Error bars of Figs. 10 and 11: drawn when the view gives ratio_lo and ratio_hi (the
 * interval of the plotted ratio: vs_lever, tps_vs_specinfer; Fig. 11's tau ratio has
 * tau_ratio_lo and tau_ratio_hi), skipped otherwise. */
static void add_ci(const ls_csvtab *t, char *vars, size_t size)
{
  add_num(vars, size, "has_ci", ls_csvtab_col(t, "ratio_lo") >= 0 && ls_csvtab_col(t, "ratio_hi") >= 0);
}

static int extra_fig10(fig_ctx *cx, const ls_csvtab *t, char *vars, size_t size, ls_error *err)
{
  (void)cx;
  (void)err;
  add_ci(t, vars, size);
  return LS_OK;
}

static int extra_fig11(fig_ctx *cx, const ls_csvtab *t, char *vars, size_t size, ls_error *err)
{
  add_num(vars, size, "has_tau_ci", ls_csvtab_col(t, "tau_ratio_lo") >= 0 && ls_csvtab_col(t, "tau_ratio_hi") >= 0);
  return extra_fig10(cx, t, vars, size, err);
}

/* sensitivity: the effective flash bandwidth of the device's own profile (GB/s), marked on
 * the figure. */
static int extra_sensitivity(fig_ctx *cx, const ls_csvtab *t, char *vars, size_t size, ls_error *err)
{
  (void)cx;
  int cd = ls_csvtab_col(t, "device");
  if (cd < 0 || t->nrow == 0) return LS_OK;
  ls_device *d = NULL;
  int rc = ls_device_load_id(&d, ls_data_root(), ls_csvtab_at(t, 0, cd), err);
  if (rc == LS_OK) add_num(vars, size, "profile_bw", ls_flash_effective_bw(ls_device_flash(d)) / 1e9);
  ls_device_free(d);
  return rc;
}

/* ---- driver ---- */
static int mkdir_p(const char *dir, ls_error *err)
{
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", dir);
  for (char *p = buf + 1;; p++) {
    char c = *p;
    if (c != '/' && c != '\0') continue;
    *p = '\0';
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
      return ls_error_set(err, LS_EIO, "cannot create %s: %s", buf, strerror(errno));
    *p = c;
    if (!c) break;
  }
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return ls_error_set(err, LS_EIO, "%s is not a folder", dir);
  return LS_OK;
}

/* Opens the database only when it exists and holds at least one ok run. */
static int open_db(const char *path, ls_db **db, ls_error *err)
{
  struct stat st;
  if (stat(path, &st) != 0)
    return ls_error_set(err, LS_ENOTFOUND, "database %s: %s (run `leversim reproduce` or "
                        "`leversim sweep` first, or pass --db)", path, strerror(errno));
  int rc = ls_db_open_read(db, path, err); /* an input: never given a schema */
  if (rc != LS_OK) return rc;
  char *text;
  size_t len;
  ls_csvtab t;
  rc = export_view(*db, "v_runs", &text, &len, &t, err);
  if (rc == LS_OK && t.nrow == 0)
    rc = ls_error_set(err, LS_ESCHEMA, "database %s holds no successful run (nothing to draw; "
                      "see `leversim export --db %s --view v_failed`)", path, path);
  ls_csvtab_free(&t);
  free(text);
  return rc;
}

/* The row of figure fig in an earlier claims.md (text, NUL-terminated), or NULL; *n its length
 * with the newline. */
static const char *old_claim_row(const char *text, const char *fig, size_t *n)
{
  char head[80];
  int k = snprintf(head, sizeof head, "| %s |", fig);
  for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
    if (!strncmp(l, head, (size_t)k)) {
      const char *e = strchr(l, '\n');
      *n = e ? (size_t)(e - l) + 1 : strlen(l);
      return l;
    }
  return NULL;
}

/* <out>/claims.md: each figure's claim, its test and this run's verdict (figures judged now);
 * a figure not drawn this time keeps its row from the file an earlier run wrote, so redrawing
 * one figure does not drop the others' verdicts. */
static int write_claims(const fig_ctx *cx, ls_error *err)
{
  char *md = NULL, *old = NULL, path[LS_PATH_MAX];
  size_t len = 0, old_len = 0;
  int any = 0;
  out_path(cx, path, sizeof path, "claims", "md");
  ls_error ignored; /* best effort: a missing or unreadable earlier file only loses its rows */
  if (ls_file_read_all(path, "claims", 1L << 20, &old, &old_len, &ignored) != LS_OK) old = NULL;
  FILE *m = open_memstream(&md, &len);
  if (!m) {
    free(old);
    return ls_error_set(err, LS_ENOMEM, "claims: out of memory");
  }
  fprintf(m, "| Figure | Paper's claim | Holds when | Here |\n|---|---|---|---|\n");
  for (int i = 0; i < ls_figures_count() && i < LS_FIGURES_MAX; i++) {
    size_t n = 0;
    const char *row = !cx->judged[i] && old ? old_claim_row(old, ls_figures_name(i), &n) : NULL;
    if (row) fwrite(row, 1, n, m);
    if (!cx->judged[i]) continue;
    any = 1;
    const ls_verdict *v = &cx->verdicts[i];
    const char *fig = ls_figures_name(i);
    fprintf(m, "| %s | %s | %s | %s%s%s |\n", fig, ls_figures_claim(fig), ls_figures_test(fig), v->holds > 0 ? "**holds**" : v->holds == 0 ? "**does NOT hold**" : "",
            v->holds >= 0 ? ": " : "", v->text);
  }
  int rc = fclose(m) == 0 ? LS_OK : ls_error_set(err, LS_ENOMEM, "claims: out of memory");
  if (rc == LS_OK && any) rc = write_file(cx, "claims", "md", md, len, err);
  free(md);
  free(old);
  return rc;
}

static int wanted(const fig_def *f, int n, const char *const *names)
{
  if (n == 0) return 1;
  for (int i = 0; i < n; i++)
    if (!strcmp(names[i], f->name) || !strcmp(names[i], "all")) return 1;
  return 0;
}

int ls_draw_known(const char *name)
{
  int known = !strcmp(name, "all");
  for (int k = 0; k < N_FIGS; k++) known |= !strcmp(name, figs[k].name);
  return known;
}

void ls_draw_list(FILE *f)
{
  for (int i = 0; i < N_FIGS; i++) fprintf(f, "  %-12s %s\n", figs[i].name, figs[i].about);
}

static int run_figures(fig_ctx *cx, int n_names, const char *const *names, ls_error *err)
{
  int rc = LS_OK;
  for (int k = 0; k < N_FIGS && rc == LS_OK; k++) {
    if (!wanted(&figs[k], n_names, names)) continue;
    rc = figs[k].view ? do_view_figure(cx, &figs[k], err) : do_fig04(cx, err);
  }
  return rc == LS_OK ? write_claims(cx, err) : rc;
}

int ls_draw(const ls_draw_opts *o, ls_draw_outcome *out, ls_error *err)
{
  char prog_buf[LS_PATH_MAX];
  const char *prog = o->gnuplot && o->gnuplot[0] ? o->gnuplot : "gnuplot";
  fig_ctx cx;
  memset(&cx, 0, sizeof cx);
  cx.out_dir = o->out_dir;
  cx.log = o->log ? o->log : stdout;
  cx.gnuplot = ls_gnuplot_find(prog, prog_buf, sizeof prog_buf);
  int need_db = 0;
  for (int k = 0; k < N_FIGS; k++) need_db |= figs[k].view && wanted(&figs[k], o->n_names, o->names);
  int rc = need_db ? open_db(o->db_path, &cx.db, err) : LS_OK;
  if (rc == LS_OK) rc = mkdir_p(o->out_dir, err);
  if (rc == LS_OK) rc = run_figures(&cx, o->n_names, o->names, err);
  ls_db_close(cx.db);
  *out = cx.n;
  return rc;
}

int ls_draw_exit(const char *cmd, const ls_draw_opts *o, const ls_draw_outcome *n, int rc,
                 const ls_error *err)
{
  if (rc != LS_OK) {
    if (err->code != LS_OK) ls_error_print(err, stderr);
    return ls_status_exit(rc);
  }
  if (n->skipped_nognuplot)
    fprintf(stderr, "leversim %s: gnuplot not found (%s): %d plot(s) skipped, CSV written to "
            "%s; install gnuplot-nox (make deps) and rerun `leversim figures`\n", cmd,
            o->gnuplot && o->gnuplot[0] ? o->gnuplot : "gnuplot", n->skipped_nognuplot, o->out_dir);
  return n->failed ? ls_status_exit(LS_ESTATE) : 0;
}

void ls_draw_var(char *vars, size_t size, const char *name, const char *value)
{
  add_var(vars, size, name, value);
}

/* The regime map: the claims' verdicts under each assumption (runner/report/figures.c,
 * ls_figures_regime_map) into <out>/regime_map.csv, passed to the script as `map`. Its
 * default column is the figures' own verdicts when the database has the figures' runs (a
 * figure not drawn in this call is judged on its view first), else the regime study's own
 * default case. */
static int extra_regime(fig_ctx *cx, const ls_csvtab *t, char *vars, size_t size, ls_error *err)
{
  int rc = LS_OK;
  for (int i = 0; rc == LS_OK && ls_figures_regime_claim(i); i++) {
    const char *fig = ls_figures_regime_claim(i);
    int k = ls_figures_index(fig);
    const fig_def *f = NULL;
    for (int j = 0; j < N_FIGS; j++)
      if (!strcmp(figs[j].name, fig)) f = &figs[j];
    if (k < 0 || k >= LS_FIGURES_MAX || cx->judged[k] || !f || !f->view) continue;
    char *text;
    size_t len;
    ls_csvtab ft;
    rc = export_view(cx->db, f->view, &text, &len, &ft, err);
    if (rc == LS_OK && ft.nrow > 0) {
      ls_figures_judge_table(fig, &ft, &cx->verdicts[k]);
      cx->judged[k] = 1;
    }
    ls_csvtab_free(&ft);
    free(text);
  }
  char path[LS_PATH_MAX];
  out_path(cx, path, sizeof path, "regime_map", "csv");
  ls_file_out o; /* the output rule: never through a link, only over our own map */
  if (rc == LS_OK) rc = ls_file_out_open(&o, path, "figures --out", "row,col,fig,claim,", err);
  if (rc == LS_OK) {
    rc = ls_figures_regime_map(t, cx->verdicts, cx->judged, o.f, err);
    if (rc == LS_OK) rc = ls_file_out_commit(&o, err);
    else ls_file_out_abort(&o);
  }
  if (rc == LS_OK) add_var(vars, size, "map", path);
  return rc;
}
