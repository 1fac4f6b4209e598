/* runner/cmd_devices: 'leversim devices curve --device D --model M [--tokens 1,2,4,...]'.
 *
 * Verification latency of the whole target (all layers + LM head, weights already in
 * memory, one pass over n tokens at the compiled shape) vs n, the latency relative to one
 * token, and the speedup over n single-token passes (n * t(1) / t(n)) — the data of the
 * paper's Fig. 4. The computation lives in runner/curve.c (shared with `leversim figures`). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runner/cli_opts.h"
#include "runner/commands.h"
#include "runner/curve.h"

#define MAX_POINTS LS_CURVE_MAX

static void usage(FILE *f)
{
  fprintf(f, "usage: leversim devices curve --device D --model M [--tokens 1,2,4,...,64]\n"
             "                              [--quant Q] [--ctx N] [--csv]\n"
             "Verification latency of all target layers + LM head (weights in memory) vs tokens\n"
             "verified in one pass, and the speedup over one-token passes (paper Fig. 4).\n"
             "  --quant Q  weight format (default: the model's own)\n"
             "  --ctx N    context positions each token attends to (default 256)\n");
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

static int curve(const char *dev_id, const char *model_id, const char *quant, const int *toks, int nt, int ctx,
                 int csv)
{
  ls_curve_point pts[LS_CURVE_MAX];
  ls_curve_info info;
  ls_error err;
  int rc = ls_curve_compute(ls_data_root(), dev_id, model_id, quant, toks, nt, ctx, pts, &info, &err);
  if (rc) {
    ls_error_print(&err, stderr);
    return ls_status_exit(rc);
  }
  if (csv)
    printf("device,model,tokens,padded,latency_ms,relative,speedup\n");
  else
    printf("# %s (%s) verifying %s [%s], ctx %d, weights in memory\n%8s %8s %12s %9s %9s\n", info.device,
           info.processor, info.model, info.quant, ctx, "tokens", "padded", "latency_ms", "relative", "speedup");
  for (int i = 0; i < nt; i++) {
    const ls_curve_point *p = &pts[i];
    if (csv)
      printf("%s,%s,%d,%d,%.4f,%.4f,%.4f\n", info.device, info.model, p->tokens, p->padded, p->latency_ms,
             p->relative, p->speedup);
    else
      printf("%8d %8d %12.3f %9.3f %9.2f\n", p->tokens, p->padded, p->latency_ms, p->relative, p->speedup);
  }
  return 0;
}

int ls_cmd_devices(int argc, char **argv)
{
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 64 : 0;
  }
  if (strcmp(argv[1], "curve") != 0)
    return ls_usage_error("devices", "unknown subcommand '%s' (expected curve)", argv[1]);
  const char *dev = NULL, *model = NULL, *tok = "1,2,4,8,16,32,64", *quant = NULL, *ctx_s = NULL;
  int csv = 0;
  for (int i = 2; i < argc; i++) {
    int r;
    if ((r = ls_opt_value("devices", argc, argv, &i, "--device", &dev)) ||
        (r = ls_opt_value("devices", argc, argv, &i, "--model", &model)) ||
        (r = ls_opt_value("devices", argc, argv, &i, "--tokens", &tok)) ||
        (r = ls_opt_value("devices", argc, argv, &i, "--quant", &quant)) ||
        (r = ls_opt_value("devices", argc, argv, &i, "--ctx", &ctx_s))) {
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
  return curve(dev, model, quant, toks, nt, (int)ctx, csv);
}
