/* runner/cmd_devices: 'leversim devices curve --device D --model M [--tokens 1,2,4,...]'.
 *
 * Verification latency of the whole target (all layers + LM head, weights already in
 * memory, one pass over n tokens at the compiled shape) vs n, the latency relative to one
 * token, and the speedup over n single-token passes (n * t(1) / t(n)) — the data of the
 * paper's Fig. 4. The computation lives in runner/report/curve.c (shared with `leversim figures`). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runner/cli/commands.h"
#include "runner/cli/opts.h"
#include "devices/device.h"
#include "runner/report/curve.h"

#define MAX_POINTS LS_CURVE_MAX

typedef struct tokens_list {
  int v[MAX_POINTS], n;
} tokens_list;

/* --tokens 1,2,4: whole numbers 1..4096, comma-separated. */
static const char *parse_tokens(const char *text, void *field)
{
  tokens_list *t = field;
  const char *p = text;
  t->n = 0;
  while (*p) {
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (end == p || errno || v < 1 || v > 4096 || t->n >= MAX_POINTS || (*end && *end != ','))
      return "whole numbers 1..4096, comma-separated, at most 64";
    t->v[t->n++] = (int)v;
    p = *end ? end + 1 : end;
  }
  return t->n ? NULL : "empty list";
}

typedef struct curve_opts {
  const char *device, *model, *quant, *regime;
  tokens_list tokens;
  long ctx;
  int csv;
} curve_opts;

static const ls_opt CURVE_OPTS[] = {
    {"--device", LS_OPT_STR, OPT_AT(curve_opts, device), "D", "device profile", .flags = LS_OPT_REQUIRED},
    {"--model", LS_OPT_STR, OPT_AT(curve_opts, model), "M", "target model", .flags = LS_OPT_REQUIRED},
    {"--tokens", LS_OPT_CALL, OPT_AT(curve_opts, tokens), "1,2,4,...", "tokens verified in one pass (default 1,2,4,8,16,32,64)", .call = parse_tokens},
    {"--quant", LS_OPT_STR, OPT_AT(curve_opts, quant), "Q", "weight format (default: the model's own)"},
    {"--ctx", LS_OPT_LONG, OPT_AT(curve_opts, ctx), "N", "context positions each token attends to (default 256)", .lo = 0, .hi = 1 << 20},
    {"--regime", LS_OPT_STR, OPT_AT(curve_opts, regime), "R", "NPU runtime regime: static-graph, q4_0-dynamic, or all (default: every regime the profile gives, one table each)"},
    {"--csv", LS_OPT_FLAG, OPT_AT(curve_opts, csv), NULL, "print CSV"},
    {NULL}};

static const ls_cmd_spec CURVE = {
    "devices curve", NULL, 0, 0, 0, "verification latency vs tokens verified in one pass (paper Fig. 4)",
    "Verification latency of all target layers + LM head (weights in memory) vs tokens\n"
    "verified in one pass, and the speedup over one-token passes (paper Fig. 4).\n",
    NULL, CURVE_OPTS};

/* One regime's curve; header: print the CSV header first. */
static int curve(const char *dev_id, const char *model_id, const char *quant, const char *regime, const int *toks,
                 int nt, int ctx, int csv, int header)
{
  ls_curve_point pts[LS_CURVE_MAX];
  ls_curve_info info;
  ls_error err;
  int rc = ls_curve_compute_regime(ls_data_root(), dev_id, model_id, quant, regime, toks, nt, ctx, pts, &info, &err);
  if (rc) {
    ls_error_print(&err, stderr);
    return ls_status_exit(rc);
  }
  if (csv && header)
    printf("device,model,regime,tokens,padded,latency_ms,relative,speedup\n");
  else if (!csv)
    printf("# %s (%s, %s regime) verifying %s [%s], ctx %d, weights in memory\n%8s %8s %12s %9s %9s\n", info.device,
           info.processor, info.regime, info.model, info.quant, ctx, "tokens", "padded", "latency_ms", "relative",
           "speedup");
  for (int i = 0; i < nt; i++) {
    const ls_curve_point *p = &pts[i];
    if (csv)
      printf("%s,%s,%s,%d,%d,%.4f,%.4f,%.4f\n", info.device, info.model, info.regime, p->tokens, p->padded,
             p->latency_ms, p->relative, p->speedup);
    else
      printf("%8d %8d %12.3f %9.3f %9.2f\n", p->tokens, p->padded, p->latency_ms, p->relative, p->speedup);
  }
  return 0;
}

/* --regime all: every regime the profile gives (static-graph always, q4_0-dynamic when present). */
static int curves(const char *dev, const char *model, const char *quant, const char *regime, const int *toks,
                  int nt, int ctx, int csv)
{
  if (regime && strcmp(regime, "all") != 0)
    return curve(dev, model, quant, regime, toks, nt, ctx, csv, 1);
  int rc = curve(dev, model, quant, "static-graph", toks, nt, ctx, csv, 1);
  if (rc)
    return rc;
  if (!csv)
    printf("\n");
  ls_device *d = NULL;
  ls_error err;
  if (ls_device_load_id(&d, ls_data_root(), dev, &err) == LS_OK && ls_device_npu(d)->dyn.present)
    rc = curve(dev, model, quant, "q4_0-dynamic", toks, nt, ctx, csv, 0);
  ls_device_free(d);
  return rc;
}

static int curve_cmd(int argc, char **argv)
{
  curve_opts o = {NULL, NULL, NULL, "all", {{1, 2, 4, 8, 16, 32, 64}, 7}, 256, 0};
  int rc = ls_opts_parse(&CURVE, argc, argv, &o, NULL);
  if (rc)
    return ls_opts_exit(rc);
  return curves(o.device, o.model, o.quant, o.regime, o.tokens.v, o.tokens.n, (int)o.ctx, o.csv);
}

static const ls_subcmd DEVICES[] = {
    {"curve", curve_cmd, "verification latency vs tokens verified in one pass (paper Fig. 4)"},
    {NULL, NULL, NULL}};

int ls_cmd_devices(int argc, char **argv)
{
  return ls_opts_group("devices", "Device-model queries.", DEVICES, argc, argv);
}
