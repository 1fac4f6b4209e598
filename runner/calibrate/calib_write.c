/* runner/calib_write: see calib_write.h.
 *
 * The profile is edited as text, line by line, so every comment and every number the fit did
 * not touch stays byte for byte as in the base: the YAML loader (sim/yaml) locates each key
 * to replace (line and column of its value), and the line is rebuilt as
 *   <indentation and key> <new value>   # calibrated: <file> rows <tags>, ±<standard error>
 * Scales (cpu.gemv_scale, cpu.flops_scale) rewrite every cluster's number they multiply. */
#include "runner/calibrate/calib_write.h"
#include "sim/fileio.h"
#include "sim/gnuplot.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim/yaml.h"

#define MAX_EDITS 32
#define COMMENT_COL 32

typedef struct edit {
  int kind;              /* 0: the value replaced; 1: the line commented out; 2: a new line after
                          * it, `value` being "key: value" at the line's indentation */
  int line;              /* 1-based line of the value */
  int col;               /* 1-based column where the value starts */
  char value[64];
  char comment[384];     /* without "# " */
} edit;

const char *ls_calib_format(double si, ls_unit_kind k, char *buf, unsigned size)
{
  double r = si;
  if (si != 0 && isfinite(si)) { /* 4 significant digits */
    double mag = pow(10.0, floor(log10(fabs(si))) - 3);
    r = round(si / mag) * mag;
  }
  if (k == LS_U_RATIO) {
    snprintf(buf, size, "%.4g", r);
    return buf;
  }
  return ls_units_format(r, k, buf, size);
}

/* Node at a dotted path with [i] indexes ("cpu.clusters[2].freq"); 0 when absent. */
static int find_path(ls_ydoc *doc, const char *path, ls_ynode *out)
{
  ls_ynode n = ls_ydoc_root(doc);
  char buf[128];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *tok = strtok(buf, "."); tok; tok = strtok(NULL, ".")) {
    char *br = strchr(tok, '[');
    int idx = br ? atoi(br + 1) : -1;
    if (br)
      *br = '\0';
    ls_ynode next;
    if (ls_ynode_kind(&n) != LS_Y_MAP || !ls_ymap_find(&n, tok, &next))
      return 0;
    n = next;
    if (idx >= 0) {
      if (ls_ynode_kind(&n) != LS_Y_SEQ || idx >= ls_yseq_len(&n))
        return 0;
      n = ls_yseq_at(&n, idx);
    }
  }
  *out = n;
  return 1;
}

static int add_edit(edit *e, int *n, ls_ydoc *doc, const char *path, const char *value, const char *comment,
                    ls_error *err)
{
  ls_ynode node;
  if (!find_path(doc, path, &node) || ls_ynode_kind(&node) != LS_Y_SCALAR)
    return ls_error_set(err, LS_ESCHEMA, "%s: base profile has no scalar '%s' to calibrate", ls_ydoc_name(doc), path);
  if (*n == MAX_EDITS)
    return ls_error_set(err, LS_ESTATE, "calibrate: too many edits");
  edit *x = &e[(*n)++];
  x->kind = 0;
  x->line = ls_ynode_line(&node);
  x->col = ls_ynode_col(&node);
  snprintf(x->value, sizeof x->value, "%s", value);
  snprintf(x->comment, sizeof x->comment, "%s", comment);
  return LS_OK;
}

/* Comment of a fitted parameter: rows and its standard error (in the parameter's unit, or
 * relative for a scale written into several numbers). */
static void fitted_comment(const ls_calib_param *q, const char *extra, char *buf, size_t size)
{
  char se[48];
  if (strstr(q->name, "_scale"))
    snprintf(se, sizeof se, "%.2g %%", 100.0 * q->se / q->value);
  else
    ls_calib_format(q->se, q->unit, se, sizeof se);
  snprintf(buf, size, "calibrated: %s, \u00b1%s%s", q->rows, se, extra);
}

static int group_edits(const ls_calib_result *r, edit *e, int *n, ls_ydoc *doc, ls_error *err)
{
  char v[64], c[384], extra[96], path[96];
  int rc = LS_OK;
  for (int g = 0; g < LS_CALIB_GROUPS && !rc; g++) {
    const ls_calib_group *G = &r->g[g];
    for (int k = 0; k < G->n_par && G->n_pts > 0 && !rc; k++) {
      const ls_calib_param *q = &G->par[k];
      if (q->status != LS_CALIB_FITTED)
        continue;
      if (strcmp(q->name, "cpu.gemv_scale") == 0 || strcmp(q->name, "cpu.flops_scale") == 0) {
        int gemv = q->name[4] == 'g';
        snprintf(extra, sizeof extra, " (x%.4g of the base, one scale for every cluster)", q->value);
        fitted_comment(q, extra, c, sizeof c);
        for (int i = 0; i < r->cpu.n_clusters && !rc; i++) {
          snprintf(path, sizeof path, "cpu.clusters[%d].%s", i, gemv ? "gemv_bandwidth" : "flops_per_cycle");
          if (gemv)
            ls_calib_format(r->cpu.cluster[i].gemv_bw_per_core, LS_U_BANDWIDTH, v, sizeof v);
          else
            ls_calib_format(r->cpu.cluster[i].flops_per_cycle, LS_U_RATIO, v, sizeof v);
          rc = add_edit(e, n, doc, path, v, c, err);
        }
        continue;
      }
      if (q->why[0]) /* a rate written at the cap (calibrate.c, capped()) */
        snprintf(extra, sizeof extra, " (%s)", q->why);
      else
        extra[0] = '\0';
      fitted_comment(q, extra, c, sizeof c);
      rc = add_edit(e, n, doc, q->name, ls_calib_format(q->value, q->unit, v, sizeof v), c, err);
    }
  }
  return rc;
}

/* One edited line (edit.kind) of the base's text s (len bytes, no newline). */
static void write_edit(FILE *f, const char *s, size_t len, const edit *x)
{
  if (x->kind == 1) { /* the key is dropped: the line stays, as a comment that says why */
    size_t ind = strspn(s, " ");
    fprintf(f, "%.*s# %.*s  (%s)", (int)ind, s, (int)(len - ind), s + ind, x->comment);
    return;
  }
  if (x->kind == 2) { /* the line as it was, then a new key at its indentation */
    size_t ind = strspn(s, " ");
    int used = (int)ind + (int)strlen(x->value);
    fprintf(f, "%.*s\n%.*s%s", (int)len, s, (int)ind, s, x->value);
    fprintf(f, "%*s# %s", used < COMMENT_COL ? COMMENT_COL - used + 1 : 1, "", x->comment);
    return;
  }
  int pre = x->col - 1, used = pre + (int)strlen(x->value);
  fprintf(f, "%.*s%s", pre, s, x->value);
  fprintf(f, "%*s# %s", used < COMMENT_COL ? COMMENT_COL - used + 1 : 1, "", x->comment);
}

static int write_lines(FILE *f, char *text, const edit *e, int n, const char *header)
{
  int line = 1, wrote_header = 0;
  for (char *s = text; *s; line++) {
    char *end = strchr(s, '\n');
    size_t len = end ? (size_t)(end - s) : strlen(s);
    if (!wrote_header && len > 0 && s[0] != '#') { /* after the opening comment block */
      fprintf(f, "%s", header);
      wrote_header = 1;
    }
    const edit *x = NULL;
    for (int i = 0; i < n; i++)
      if (e[i].line == line)
        x = &e[i];
    if (!x)
      fwrite(s, 1, len, f);
    else
      write_edit(f, s, len, x);
    fputc('\n', f);
    s = end ? end + 1 : s + len;
  }
  return ferror(f) ? -1 : 0;
}

/* The CPU kernel's form the fit chose (calibrate.c, choose_cpu_form), when it is not the base's:
 * the roofline drops the base's batch_group line (commented out); the sum adds one after
 * cpu.max_bandwidth. */
static int form_edit(const ls_calib_group *C, edit *e, int *n, ls_ydoc *doc, ls_error *err)
{
  ls_ynode node;
  int has = find_path(doc, "cpu.batch_group", &node);
  if (C->n_pts == 0 || (has && C->cpu_group > 0) || (!has && C->cpu_group == 0))
    return LS_OK; /* the base's form (a sum keeps its own batch_group) */
  if (!has && !find_path(doc, "cpu.max_bandwidth", &node))
    return ls_error_set(err, LS_ESCHEMA, "%s: base profile has no cpu.max_bandwidth to add cpu.batch_group after",
                        ls_ydoc_name(doc));
  if (*n == MAX_EDITS)
    return ls_error_set(err, LS_ESTATE, "calibrate: too many edits");
  edit *x = &e[(*n)++];
  x->kind = has ? 1 : 2;
  x->line = ls_ynode_line(&node);
  x->col = 1;
  snprintf(x->value, sizeof x->value, "batch_group: %d", C->cpu_group);
  snprintf(x->comment, sizeof x->comment, "calibrated: %s", C->note);
  return LS_OK;
}

/* What a profile calibrate wrote holds in its first bytes: only such a file is replaced. */
static const char OUT_MARK[] = "Written by `leversim calibrate`";

int ls_calib_check_out(const char *out_path, ls_error *err)
{
  return ls_file_check_output(out_path, "--out", OUT_MARK, err);
}

int ls_calib_write_profile(const char *base_path, const char *base_label, const ls_calib_result *r, const char *id,
                           const char *out_path, ls_error *err)
{
  ls_ydoc *doc;
  int rc = ls_ydoc_load_file(&doc, base_path, err);
  if (rc)
    return rc;
  char *text = ls_calib_slurp(base_path, err);
  edit e[MAX_EDITS];
  int n = 0;
  if (!text)
    rc = err->code;
  ls_ynode name;
  char nm[160];
  if (!rc && find_path(doc, "name", &name))
    snprintf(nm, sizeof nm, "%s (calibrated)", ls_ynode_text(&name));
  else
    snprintf(nm, sizeof nm, "%s", id);
  if (!rc)
    rc = add_edit(e, &n, doc, "id", id, "written by leversim calibrate", err);
  if (!rc)
    rc = add_edit(e, &n, doc, "name", nm, "written by leversim calibrate", err);
  if (!rc)
    rc = group_edits(r, e, &n, doc, err);
  if (!rc)
    rc = form_edit(&r->g[LS_CALIB_GROUP_CPU], e, &n, doc, err);
  const ls_calib_group *N = &r->g[LS_CALIB_GROUP_NPU];
  ls_ynode tnode;
  if (!rc && N->n_pts > 0 && find_path(doc, "npu.q4_0_dynamic.tile", &tnode) &&
      atoi(ls_ynode_text(&tnode)) != N->tile) {
    char v[16], c[600];
    snprintf(c, sizeof c, "calibrated: %s", N->note);
    snprintf(v, sizeof v, "%d", N->tile);
    rc = add_edit(e, &n, doc, "npu.q4_0_dynamic.tile", v, c, err);
    snprintf(v, sizeof v, "%d", N->mat_min);
    if (!rc)
      rc = add_edit(e, &n, doc, "npu.q4_0_dynamic.mat_min", v, c, err);
  }
  ls_ydoc_free(doc);
  char tmp[LS_ERR_FILE + 8], header[600];
  snprintf(tmp, sizeof tmp, "%s.tmp", out_path);
  snprintf(header, sizeof header, "# Written by `leversim calibrate` from the base profile %s: numbers marked `calibrated: <file> rows "
           "<rows>, \u00b1<standard error>` were fitted to those measurements; all others are the base's.\n",
           base_label);
  (void)tmp;
  ls_file_out o; /* atomic, and only over a profile calibrate wrote (or an empty file) */
  o.f = NULL;
  if (!rc)
    rc = ls_file_out_open(&o, out_path, "--out", OUT_MARK, err);
  if (!rc && write_lines(o.f, text, e, n, header))
    rc = ls_error_set(err, LS_EIO, "--out %s: write failed: %s", out_path, strerror(errno));
  if (!rc && fflush(o.f) != 0)
    rc = ls_error_set(err, LS_EIO, "--out %s: write failed: %s", out_path, strerror(errno));
  free(text);
  ls_device *check; /* the temporary passes every check of the profile loader first */
  if (!rc && (rc = ls_device_load(&check, o.tmp, err)) == LS_OK)
    ls_device_free(check);
  else if (rc && o.f && strcmp(err->file, o.tmp) == 0) { /* the written profile fails the loader's checks:
                                                           name the output, never the temporary */
    char msg[LS_ERR_MSG];
    snprintf(msg, sizeof msg, "%s", err->msg);
    int line = err->line;
    /* a fit that left a number's valid range: the measurements do not determine this
     * profile, a refusal like any fit the model does not explain (exit 65), not an internal
     * error */
    rc = ls_error_set(err, LS_ERANGE, "%s: the calibrated profile would be invalid (line %d: %s); nothing written",
                      out_path, line, msg);
  }
  if (!rc)
    rc = ls_file_out_commit(&o, err);
  if (rc && o.f)
    ls_file_out_abort(&o);
  return rc;
}

/* ---- plots ---- */

/* A figure's axes: labels with units, and the factors that bring SI values to those units
 * (gnuplot then prints plain numbers, never 1x10^9). */
typedef struct axes {
  const char *title, *xlabel, *ylabel;
  double xs, ys;
  int logx, logy;
} axes;

static axes group_axes(int g, int latency)
{
  if (g == LS_CALIB_GROUP_FLASH)
    return latency ? (axes){"flash: completion latency of direct QD-1 reads", "percentile",
                            "completion + submission latency (us)", 1, 1e6, 0, 1}
                   : (axes){"flash: read bandwidth by block size", "block size (KiB)", "read bandwidth (GB/s)",
                            1.0 / 1024, 1e-9, 1, 1};
  return (axes){g == LS_CALIB_GROUP_NPU ? "NPU (Hexagon rows): llama-bench throughput"
                                        : "CPU rows: llama-bench throughput",
                "prompt tokens per pass (tg: 1)", "throughput (tokens/s)", 1, 1, 1, 1};
}

static int plot_one(const ls_calib_group *G, int g, int latency, const char *dir, ls_error *err)
{
  char dat[LS_ERR_FILE], gp[LS_ERR_FILE], png[LS_ERR_FILE], stem[64];
  snprintf(stem, sizeof stem, "calibrate-%s%s", G->name, latency ? "-latency" : "");
  snprintf(dat, sizeof dat, "%s/%s.dat", dir, stem);
  snprintf(gp, sizeof gp, "%s/%s.gp", dir, stem);
  snprintf(png, sizeof png, "%s/%s.png", dir, stem);
  /* three outputs under the one rule (sim/fileio.h): only over our own files, never through a
   * link, nothing partial left; gnuplot draws into the image's temporary file */
  ls_file_out od, os, op;
  int rc = ls_file_out_open(&od, dat, "--plot", "# measured: ", err);
  if (rc) return rc;
  if ((rc = ls_file_out_open(&os, gp, "--plot", "# calibrate-", err))) {
    ls_file_out_abort(&od);
    return rc;
  }
  if ((rc = ls_file_out_open(&op, png, "--plot", "PNG", err))) {
    ls_file_out_abort(&od);
    ls_file_out_abort(&os);
    return rc;
  }
  FILE *d = od.f, *s = os.f;
  axes a = group_axes(g, latency);
  fprintf(s, "# %s: measured (points, +-1 sd) vs fitted (lines); data in %s.dat, one block per series\n", stem, stem);
  /* the legend sits outside the plot, on the right: it can cover no point or curve */
  fprintf(s, "set terminal pngcairo size 1200,700 enhanced font 'Sans,12' background rgb 'white'\n"
             "set output '%s'\nset title \"%s\\nmeasured (points, error bars: 1 sd) and fitted (lines); chi2 %.3g, "
             "dof %d\"\nset key outside right top box opaque\nset grid\nset xlabel '%s'\nset ylabel '%s'\n"
             "set format x '%%g'\nset format y '%%g'\n%s%s",
          op.tmp, a.title, G->chi2, G->dof, a.xlabel, a.ylabel, a.logx ? "set logscale x 2\n" : "",
          a.logy ? "set logscale y\n" : "");
  fprintf(s, "plot ");
  int block = 0;
  for (int c = 0; c < G->n_curves; c++) {
    const ls_calib_curve *cv = &G->curves[c];
    if ((strncmp(cv->series, "latency", 7) == 0) != latency)
      continue;
    fprintf(d, "# measured: %s\n", cv->series);
    for (int i = 0; i < G->n_pts; i++)
      if (strcmp(G->pts[i].series, cv->series) == 0)
        fprintf(d, "%.9g %.9g %.9g\n", G->pts[i].px * a.xs, G->pts[i].py * a.ys, G->pts[i].pe * a.ys);
    fprintf(d, "\n\n# fitted: %s\n", cv->series);
    for (int i = 0; i < cv->n; i++)
      fprintf(d, "%.9g %.9g\n", cv->x[i] * a.xs, cv->y[i] * a.ys);
    fprintf(d, "\n\n");
    /* one distinct colour a series (colour-blind-safe Dark2 set), dashed for the page cache */
    static const char *const colour[] = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a",
                                         "#66a61e", "#e6ab02", "#a6761d", "#666666"};
    const char *lc = colour[c % 8];
    int dashed = strstr(cv->series, "page cache") != NULL;
    fprintf(s, "%s'%s' index %d using 1:2:3 with yerrorbars pt 7 ps 1.3 lc rgb '%s' title 'measured: %s', \\\n"
               "  '' index %d using 1:2 with lines lw 2 dt %d lc rgb '%s' title 'fitted: %s'",
            block ? ", \\\n  " : "", dat, block, lc, cv->series, block + 1, dashed ? 2 : 1, lc, cv->series);
    block += 2;
  }
  fprintf(s, "\n");
  if (block == 0) { /* nothing of this kind to draw: no files */
    ls_file_out_abort(&od);
    ls_file_out_abort(&os);
    ls_file_out_abort(&op);
    return LS_OK;
  }
  rc = ls_file_out_commit(&od, err);
  if (rc == LS_OK) rc = ls_file_out_commit(&os, err);
  else ls_file_out_abort(&os);
  if (rc != LS_OK) {
    ls_file_out_abort(&op);
    return rc;
  }
  ls_file_out_release(&op);
  int st = ls_gnuplot_run("gnuplot", NULL, gp, NULL);
  if (st != 0) {
    ls_file_out_abort(&op);
    return ls_error_set(err, LS_EIO, "gnuplot %s on %s", st == LS_GNUPLOT_NOT_FOUND ? "not found"
                        : st == LS_GNUPLOT_TIMED_OUT ? "stopped at its time limit" : "failed", gp);
  }
  return ls_file_out_commit(&op, err);
}

int ls_calib_plot(const ls_calib_result *r, const char *dir, ls_error *err)
{
  int rc = LS_OK;
  for (int g = 0; g < LS_CALIB_GROUPS && !rc; g++) {
    if (r->g[g].n_pts == 0)
      continue;
    rc = plot_one(&r->g[g], g, 0, dir, err);
    if (!rc && g == LS_CALIB_GROUP_FLASH)
      rc = plot_one(&r->g[g], g, 1, dir, err);
  }
  return rc;
}
