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
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"
#include "devices/device.h"
#include "runner/report/curve.h"

#define MAX_POINTS LS_CURVE_MAX

static void usage(FILE *f)
{
  fprintf(f, "usage: leversim devices curve --device D --model M [--tokens 1,2,4,...,64]\n"
             "                              [--quant Q] [--ctx N] [--regime R|all] [--csv]\n"
             "Verification latency of all target layers + LM head (weights in memory) vs tokens\n"
             "verified in one pass, and the speedup over one-token passes (paper Fig. 4).\n"
             "  --quant Q  weight format (default: the model's own)\n"
             "  --ctx N    context positions each token attends to (default 256)\n"
             "  --regime R NPU runtime regime: static-graph, q4_0-dynamic, or all (default: every\n"
             "             regime the profile gives, one table each)\n");
}

static int parse_tokens(const char *text, int *out, int *n)
{
  const char *p = text;
  *n = 0;
  while (*p) {
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (end == p || errno || v < 1 || v > 4096 || *n >= MAX_POINTS || (*end && *end != ','))
      return ls_usage_error("devices", "--tokens: bad list '%s' (whole numbers 1..4096, comma-separated, at most %d)",
                            text, MAX_POINTS);
    out[(*n)++] = (int)v;
    p = *end ? end + 1 : end;
  }
  return *n ? 0 : ls_usage_error("devices", "--tokens: empty list");
}

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

int ls_cmd_devices(int argc, char **argv)
{
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 64 : 0;
  }
  if (strcmp(argv[1], "curve") != 0)
    return ls_usage_error("devices", "unknown subcommand '%s' (expected curve)", argv[1]);
  const char *dev = NULL, *model = NULL, *tok = "1,2,4,8,16,32,64", *quant = NULL, *ctx_s = NULL, *regime = "all";
  int csv = 0;
  for (int i = 2; i < argc; i++) {
    int r;
    if ((r = ls_opt_value("devices", argc, argv, &i, "--device", &dev)) ||
        (r = ls_opt_value("devices", argc, argv, &i, "--model", &model)) ||
        (r = ls_opt_value("devices", argc, argv, &i, "--tokens", &tok)) ||
        (r = ls_opt_value("devices", argc, argv, &i, "--quant", &quant)) ||
        (r = ls_opt_value("devices", argc, argv, &i, "--ctx", &ctx_s)) ||
        (r = ls_opt_value("devices", argc, argv, &i, "--regime", &regime))) {
      if (r < 0)
        return 64;
      continue;
    }
    if (strcmp(argv[i], "--csv") == 0) {
      csv = 1;
      continue;
    }
    if (strcmp(argv[i], "--help") == 0) {
      usage(stdout);
      return 0;
    }
    return ls_usage_error("devices", "unknown option '%s'", argv[i]);
  }
  if (!dev || !model)
    return ls_usage_error("devices", "curve needs --device and --model");
  int toks[MAX_POINTS], nt;
  long ctx = 256;
  if (parse_tokens(tok, toks, &nt) || (ctx_s && ls_opt_long("devices", "--ctx", ctx_s, 0, 1 << 20, &ctx)))
    return 64;
  return curves(dev, model, quant, regime, toks, nt, (int)ctx, csv);
}
