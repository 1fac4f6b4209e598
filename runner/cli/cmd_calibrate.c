/* runner/cmd_calibrate: 'leversim calibrate': fits a device profile to measurements taken on
 * a phone (llama-bench, fio; runner/calibrate/calib_input.h), writes the calibrated profile and prints
 * the fit report (parameters with standard errors, each measurement's residual and its
 * leave-one-out cross-prediction error; runner/calibrate/calibrate.h). Bad input is a located error,
 * exit 65, and no profile is written. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "runner/calibrate/calib_input.h"
#include "runner/calibrate/calib_write.h"
#include "runner/calibrate/calibrate.h"
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"
#include "runner/cli/opts.h"

#define MAX_FIX 16

typedef struct opts {
  const char *base, *out, *model, *plot, *cpu_form;
  ls_opt_list bench, fio, fix_args, only_args;
  int json, check;
  char fix_buf[512], only_buf[64];
  const char *fix[MAX_FIX + 1];
  int want[LS_CALIB_GROUPS];
} opts;

static const ls_opt CALIBRATE_OPTS[] = {
    {"--base", LS_OPT_STR, OPT_AT(opts, base), "ID|FILE", "the profile to start from", .flags = LS_OPT_REQUIRED},
    {"--llama-bench", LS_OPT_FILES, OPT_AT(opts, bench), "FILE[:MODEL]", "llama-bench results (its default Markdown table, -o csv|json|jsonl): the cpu and npu groups; FILE:MODEL names the model of that file's rows"},
    {"--fio", LS_OPT_FILES, OPT_AT(opts, fio), "FILE", "fio results (--output-format=json): the flash group"},
    {"--out", LS_OPT_STR, OPT_AT(opts, out), "OUT.yaml", "the calibrated profile", .flags = LS_OPT_REQUIRED},
    {"--model", LS_OPT_STR, OPT_AT(opts, model), "ID", "model id (workloads/models) of every llama-bench file without its own :MODEL, instead of matching model_filename"},
    {"--fix", LS_OPT_MULTI, OPT_AT(opts, fix_args), "NAME[,NAME...]", "hold these parameters at the base value (full names or their last part: op_call,...)"},
    {"--only", LS_OPT_MULTI, OPT_AT(opts, only_args), "cpu,npu,flash", "fit only these groups (and refuse if their measurements are missing)"},
    {"--cpu-form", LS_OPT_CHOICE, OPT_AT(opts, cpu_form), "FORM", "the CPU kernel's form: chosen by the data between the roofline and the sum (auto, the default) or the base's (base)", .choices = "auto,base"},
    {"--plot", LS_OPT_STR, OPT_AT(opts, plot), "DIR", "write measured-vs-fitted figures DIR/calibrate-<group>.png (gnuplot)"},
    {"--json", LS_OPT_FLAG, OPT_AT(opts, json), NULL, "print the fit report as JSON"},
    {"--check", LS_OPT_FLAG, OPT_AT(opts, check), NULL, "compare each fitted number with the base's: exit 2 unless all agree within 1 standard error"},
    {NULL}};

static const ls_cmd_spec CALIBRATE = {
    "calibrate", NULL, 0, 0, 0, "fit a device profile to llama-bench and fio measurements",
    "Fits these parameters of the base profile:\n"
    "  cpu   (CPU rows)     cpu.gemv_scale, cpu.max_bandwidth, cpu.flops_scale\n"
    "  npu   (Hexagon rows) npu.q4_0_dynamic.op_call, weight_bandwidth, vec_flops, mat_flops (+ tile, mat_min)\n"
    "  flash (fio jobs)     flash.link_bandwidth, flash.efficiency.page_cache, flash.latency.median, .sigma\n"
    "OUT.yaml is the base with the fitted numbers replaced (each commented `calibrated: <file> rows <rows>,\n"
    "±<standard error>`); it passes `leversim profiles validate` and runs with `leversim run --device OUT.yaml`.\n"
    "Refitting a shipped profile to the measurements it cites reproduces it (--check; make\n"
    "calibrate-examples). Exit: 0 written, 64 usage, 65 bad or insufficient measurements\n"
    "(nothing written), 66 not found (a file, the base, or a model id given by --model or\n"
    "FILE:MODEL, as `leversim run --model`), 74 I/O.\n",
    NULL, CALIBRATE_OPTS};

/* The repeated --fix and --only values joined by commas, then split into names. */
static int parse_lists(opts *o)
{
  size_t len = 0;
  for (int i = 0; i < o->fix_args.n; i++)
    len += (size_t)snprintf(o->fix_buf + len, len < sizeof o->fix_buf ? sizeof o->fix_buf - len : 0, "%s%s",
                            i ? "," : "", o->fix_args.v[i]);
  len = 0;
  for (int i = 0; i < o->only_args.n; i++)
    len += (size_t)snprintf(o->only_buf + len, len < sizeof o->only_buf ? sizeof o->only_buf - len : 0, "%s%s",
                            i ? "," : "", o->only_args.v[i]);
  int n = 0;
  for (char *t = strtok(o->fix_buf, ","); t && n < MAX_FIX; t = strtok(NULL, ","))
    o->fix[n++] = t;
  o->fix[n] = NULL;
  static const char *const groups[] = {"cpu", "npu", "flash"};
  for (char *t = strtok(o->only_buf, ","); t; t = strtok(NULL, ",")) {
    int k = 0;
    while (k < LS_CALIB_GROUPS && strcmp(t, groups[k]) != 0)
      k++;
    if (k == LS_CALIB_GROUPS)
      return ls_usage_error("calibrate", "--only: unknown group '%s' (expected cpu, npu, flash)", t);
    o->want[k] = 1;
  }
  return 0;
}

/* Returns 0 to go on, else the exit status (0 after --help: *stop set). */
static int parse(int argc, char **argv, opts *o, int *stop)
{
  memset(o, 0, sizeof *o);
  o->cpu_form = "auto";
  int rc = ls_opts_parse(&CALIBRATE, argc, argv, o, NULL);
  *stop = rc != LS_OK;
  if (rc)
    return ls_opts_exit(rc);
  *stop = 1;
  if (o->bench.n + o->fio.n == 0)
    return ls_usage_error("calibrate", "give measurements: --llama-bench FILE... and/or --fio FILE...");
  rc = parse_lists(o);
  *stop = rc != 0;
  return rc;
}

/* Profile id from the output file's name: its stem, characters outside [A-Za-z0-9._-] as '-'. */
static void out_id(const char *out, char *id, size_t size)
{
  const char *b = strrchr(out, '/');
  b = b ? b + 1 : out;
  size_t n = 0;
  for (; *b && n + 1 < size; b++)
    id[n++] = (strchr("._-", *b) || (*b >= 'a' && *b <= 'z') || (*b >= 'A' && *b <= 'Z') || (*b >= '0' && *b <= '9'))
                  ? *b : '-';
  id[n] = '\0';
  char *dot = strrchr(id, '.');
  if (dot && strcmp(dot, ".yaml") == 0)
    *dot = '\0';
}

/* ---- report ---- */

static const char *status_text(const ls_calib_param *q)
{
  return q->status == LS_CALIB_FITTED ? "fitted" : q->status == LS_CALIB_FIXED ? "kept (--fix)" : "kept, not determined";
}

static ls_unit_kind point_unit(const ls_calib_group *g, const ls_calib_point *p)
{
  return (strcmp(g->name, "flash") == 0 && strstr(p->label, "bandwidth")) ? LS_U_BANDWIDTH : LS_U_TIME;
}

static void text_group(const ls_calib_group *g, FILE *f)
{
  int nfit = 0;
  for (int k = 0; k < g->n_par; k++)
    nfit += g->par[k].status == LS_CALIB_FITTED;
  fprintf(f, "\n== %s: %d measurements, %d fitted parameters, chi2 %.3g, dof %d%s\n", g->name, g->n_pts, nfit, g->chi2,
          g->dof, g->dof == 0 ? " (exactly determined: as many measurements as parameters; the standard errors come "
                                "from the measurements' deviations alone)" : "");
  if (g->note[0])
    fprintf(f, "   %s\n", g->note);
  fprintf(f, "  %-36s %14s %14s %12s  %s\n", "parameter", "base", "fitted", "std. error", "status");
  for (int k = 0; k < g->n_par; k++) {
    const ls_calib_param *q = &g->par[k];
    char b[48], v[48], s[48];
    ls_calib_format(q->base, q->unit, b, sizeof b);
    ls_calib_format(q->value, q->unit, v, sizeof v);
    if (q->status == LS_CALIB_FITTED)
      ls_calib_format(q->se, q->unit, s, sizeof s);
    else
      snprintf(s, sizeof s, "-");
    fprintf(f, "  %-36s %14s %14s %12s  %s%s%s\n", q->name, b, v, s, status_text(q), q->why[0] ? ": " : "", q->why);
  }
  fprintf(f, "  %-52s %12s %12s %18s %16s\n", "measurement", "measured", "fitted", "residual", "leave-one-out");
  for (int i = 0; i < g->n_pts; i++) {
    const ls_calib_point *p = &g->pts[i];
    char y[48], fit[48], res[48], loo[48];
    ls_unit_kind u = point_unit(g, p);
    ls_calib_format(p->y, u, y, sizeof y);
    ls_calib_format(p->fit, u, fit, sizeof fit);
    snprintf(res, sizeof res, "%+.2f %% (%+.2f sd)", 100 * (p->fit - p->y) / p->y, (p->fit - p->y) / p->sigma);
    if (isnan(p->loo))
      snprintf(loo, sizeof loo, "n/a (undetermined)");
    else
      snprintf(loo, sizeof loo, "%+.2f %%", 100 * (p->loo - p->y) / p->y);
    fprintf(f, "  %-52s %12s %12s %18s %16s   %s\n", p->label, y, fit, res, loo, p->where);
  }
}

static void text_report(const ls_calib_result *r, const opts *o, const char *base_path, FILE *f)
{
  fprintf(f, "leversim calibrate: base %s -> %s\n", base_path, o->out);
  for (int g = 0; g < LS_CALIB_GROUPS; g++)
    if (r->g[g].n_pts > 0)
      text_group(&r->g[g], f);
    else
      fprintf(f, "\n== %s: not fitted (no measurements for it, or left out by --only): its numbers stay as in the base\n", r->g[g].name);
  fprintf(f, "\nEvery other number of the profile is the base's. Written: %s\n", o->out);
}

static json_t *json_group(const ls_calib_group *g)
{
  json_t *pars = json_array(), *pts = json_array();
  for (int k = 0; k < g->n_par; k++) {
    const ls_calib_param *q = &g->par[k];
    json_array_append_new(pars, json_pack("{s:s, s:s, s:f, s:f, s:f, s:s, s:s, s:s}", "name", q->name, "unit",
                                          ls_units_kind_name(q->unit), "base", q->base, "value", q->value, "se", q->se,
                                          "status", status_text(q), "why", q->why, "rows", q->rows));
  }
  for (int i = 0; i < g->n_pts; i++) {
    const ls_calib_point *p = &g->pts[i];
    json_t *o = json_pack("{s:s, s:s, s:f, s:f, s:f, s:f}", "where", p->where, "label", p->label, "measured", p->y,
                          "sd", p->sigma, "fitted", p->fit, "residual", (p->fit - p->y) / p->y);
    json_object_set_new(o, "loo", isnan(p->loo) ? json_null() : json_real((p->loo - p->y) / p->y));
    json_array_append_new(pts, o);
  }
  return json_pack("{s:s, s:i, s:f, s:i, s:s, s:o, s:o}", "group", g->name, "measurements", g->n_pts, "chi2", g->chi2,
                   "dof", g->dof, "note", g->note, "parameters", pars, "points", pts);
}

static void json_report(const ls_calib_result *r, const opts *o, const char *base_path)
{
  json_t *groups = json_array();
  for (int g = 0; g < LS_CALIB_GROUPS; g++)
    if (r->g[g].n_pts > 0)
      json_array_append_new(groups, json_group(&r->g[g]));
  json_t *doc = json_pack("{s:s, s:s, s:o}", "base", base_path, "out", o->out, "groups", groups);
  char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  if (s)
    puts(s);
  free(s);
  json_decref(doc);
}

/* --check: each fitted number against the base's; returns how many differ by more than 1 se. */
static int check_base(const ls_calib_result *r, FILE *f)
{
  int bad = 0;
  fprintf(f, "\ncheck against the base profile (fitted vs base, in standard errors):\n");
  for (int g = 0; g < LS_CALIB_GROUPS; g++)
    for (int k = 0; k < r->g[g].n_par && r->g[g].n_pts > 0; k++) {
      const ls_calib_param *q = &r->g[g].par[k];
      if (q->status != LS_CALIB_FITTED)
        continue;
      double z = (q->value - q->base) / q->se;
      char v[48], b[48];
      fprintf(f, "  %-36s %14s vs %14s  %+.2f se  %s%s\n", q->name, ls_calib_format(q->value, q->unit, v, sizeof v),
              ls_calib_format(q->base, q->unit, b, sizeof b), z, fabs(z) <= 1.0 ? "ok" : "DIFFERS",
              r->g[g].dof == 0 ? " (exact fit: as many measurements as parameters)" : "");
      bad += !(fabs(z) <= 1.0);
    }
  fprintf(f, "%s\n", bad ? "check: some fitted numbers differ from the base by more than 1 standard error"
                          : "check: the base profile is reproduced within the standard errors");
  return bad;
}

/* ---- the command ---- */

/* --llama-bench FILE:MODEL: the model of this file's rows (over --model). A name that is an
 * existing file is a file, colon or not. *path gets the file part (owned: free). */
static const char *file_model(const char *arg, char **path)
{
  const char *colon = strrchr(arg, ':');
  int split = colon && colon != arg && colon[1] && access(arg, F_OK) != 0 && !strchr(colon, '/');
  *path = split ? strndup(arg, (size_t)(colon - arg)) : strdup(arg);
  return split ? colon + 1 : NULL;
}

static int read_inputs(const opts *o, ls_calib_inputs *in, ls_error *err)
{
  int rc = LS_OK;
  for (int i = 0; i < o->bench.n && !rc; i++) {
    char *path = NULL;
    const char *model = file_model(o->bench.v[i], &path);
    rc = path ? ls_calib_read_bench(in, path, ls_data_root(), model ? model : o->model, err)
              : ls_error_set(err, LS_ENOMEM, "calibrate: out of memory");
    free(path);
  }
  for (int i = 0; i < o->fio.n && !rc; i++)
    rc = ls_calib_read_fio(in, o->fio.v[i], err);
  return rc;
}

/* Checks made before anything is read or written: --fix names exist (else usage, 64), the
 * --plot folder exists or can be made and is writable. (--out is refused by sim/fileio when it
 * names anything but a profile calibrate wrote.) */
static int check_outputs(const opts *o)
{
  char list[512];
  for (int i = 0; o->fix[i]; i++)
    if (!ls_calib_param_known(o->fix[i], list, sizeof list))
      return ls_usage_error("calibrate", "--fix: unknown parameter '%s' (expected one of: %s, or their last part)",
                            o->fix[i], list);
  struct stat st;
  if (o->plot && stat(o->plot, &st) != 0 && mkdir(o->plot, 0777) != 0) {
    fprintf(stderr, "leversim: %s: cannot create the --plot folder: %s\n", o->plot, strerror(errno));
    return ls_status_exit(errno == ENOENT ? LS_ENOTFOUND : LS_EIO);
  }
  if (o->plot && (stat(o->plot, &st) != 0 || !S_ISDIR(st.st_mode) || access(o->plot, W_OK) != 0)) {
    fprintf(stderr, "leversim: %s: --plot needs a writable folder\n", o->plot);
    return ls_status_exit(LS_EIO);
  }
  return 0;
}

int ls_cmd_calibrate(int argc, char **argv)
{
  opts o;
  int stop, rc = parse(argc, argv, &o, &stop);
  if (stop)
    return rc;
  if ((rc = check_outputs(&o)))
    return rc;
  ls_error err;
  ls_error_clear(&err);
  ls_device *base = NULL;
  ls_calib_inputs in;
  memset(&in, 0, sizeof in);
  ls_calib_result res;
  memset(&res, 0, sizeof res);
  ls_calib_options co = {o.fix, {o.want[0], o.want[1], o.want[2]}, strcmp(o.cpu_form, "base") == 0};
  rc = ls_device_load_id(&base, ls_data_root(), o.base, &err);
  if (!rc)
    rc = read_inputs(&o, &in, &err);
  if (!rc)
    rc = ls_calibrate(base, &in, ls_data_root(), &co, &res, &err);
  char id[64];
  out_id(o.out, id, sizeof id);
  /* --out is checked first, the figures drawn next, the profile written last: a refused
   * --plot file leaves no profile behind a failed command */
  if (!rc)
    rc = ls_calib_check_out(o.out, &err);
  if (!rc && o.plot)
    rc = ls_calib_plot(&res, o.plot, &err);
  if (!rc)
    rc = ls_calib_write_profile(ls_device_path(base), o.base, &res, id, o.out, &err);
  if (!rc) {
    if (o.json)
      json_report(&res, &o, o.base);
    else
      text_report(&res, &o, o.base, stdout);
    if (o.check && check_base(&res, stdout))
      rc = LS_EREGRESS;
  } else {
    ls_error_print(&err, stderr);
  }
  ls_calib_result_free(&res);
  ls_calib_inputs_free(&in);
  ls_device_free(base);
  return rc ? ls_status_exit(rc) : 0;
}

