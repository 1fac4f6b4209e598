/* runner/testbed/cmd_testbed: see testbed.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runner/commands.h"
#include "runner/testbed/benchcsv.h"
#include "runner/testbed/gguf.h"
#include "runner/testbed/measure.h"
#include "runner/testbed/tbdb.h"
#include "runner/testbed/testbed.h"
#include "runner/testbed/validate.h"

static const char USAGE[] =
    "usage: leversim testbed model --model ID [--layers L] [--width W] [--seed S] --out FILE.gguf [--yaml OUT.yaml]\n"
    "       leversim testbed measure --lib DIR --target FILE.gguf --model ID --db OUT.db [--csv OUT.csv]\n"
    "                                [--draft FILE.gguf --draft-model ID|FILE.yaml --trace FILE] [--tree FILE.json]\n"
    "                                [--threads T] [--reps R] [--max-n N] [--tg G] [--spec-tokens N] [--spec-k K]\n"
    "                                [--no-repack]\n"
    "       leversim testbed validate --db DB --profile ID|FILE [--run RUN] [--fio-mmap FIO.json] [--mode mapped|serial]\n"
    "                                 [--readahead BYTES] [--plot DIR] [--check]\n"
    "model     a random-weight GGUF v3 (Q4_0 layers, Q6_K head) with the shape of a workloads/models id,\n"
    "          scaled to L layers and width W; --yaml writes that shape as a model file for the simulator\n"
    "measure   times the real llama.cpp in DIR (scripts/testbed/fetch.sh) on it: warm, tg, cold, cold steps,\n"
    "          tree and speculative passes (runner/testbed/measure.h); --csv writes the warm rows as llama-bench CSV\n"
    "validate  predicts every held-out measurement of the run with the profile; prints measured vs predicted\n"
    "          and the error, stores them (tb_prediction, view tb_error) and draws DIR/testbed-validation.png;\n"
    "          --check: exit 2 unless the median absolute error is <= 10 %, no kind above 20 % and the\n"
    "          speculative time per token within 10 %\n"
    "Exit: 0 ok, 2 --check failed, 64 usage, 65 bad input, 66 not found, 70 library error, 74 I/O.\n";

static int need(int argc, char **argv, int i)
{
  return i + 1 < argc ? 0 : ls_usage_error("testbed", "%s needs a value", argv[i]);
}

static int num(const char *opt, const char *s, int lo, int hi, int *out)
{
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (end == s || *end || errno || v < lo || v > hi)
    return ls_usage_error("testbed", "%s '%s': an integer in %d..%d expected", opt, s, lo, hi);
  *out = (int)v;
  return 0;
}

/* A model file for a scaled shape (workloads/models layout; numbers from the scaling). */
static int write_yaml(const char *path, const char *id, const ls_gguf_shape *s, ls_error *err)
{
  FILE *f = fopen(path, "w");
  if (!f)
    return ls_error_set(err, LS_EIO, "%s: cannot create: %s", path, strerror(errno));
  double q = (double)s->n_heads * s->head_dim, kv = (double)s->n_kv_heads * s->head_dim;
  double params = s->n_layers * (s->hidden * (2 * q + 2 * kv) + 3.0 * s->hidden * s->ffn + 2.0 * s->hidden) +
                  (double)s->vocab * s->hidden * (s->tied ? 1 : 2) + s->hidden;
  int bad = fprintf(f,
                    "# %s scaled by leversim testbed model (runner/testbed/gguf.h): the shape of a random-weight file.\n"
                    "id: %s-tb%dl%dw\nfamily: llama3\nrole: draft\ndefault_quant: q4_0\nparams_b: %.6f\narch:\n"
                    "  n_layers: %d\n  hidden: %d\n  ffn: %d\n  n_heads: %d\n  n_kv_heads: %d\n  head_dim: %d\n"
                    "  vocab: %d\n  tied_embeddings: %s\n  qk_norm: false\n",
                    id, id, s->n_layers, s->hidden, params / 1e9, s->n_layers, s->hidden, s->ffn, s->n_heads,
                    s->n_kv_heads, s->head_dim, s->vocab, s->tied ? "true" : "false") < 0;
  if (fclose(f) != 0 || bad)
    return ls_error_set(err, LS_EIO, "%s: write failed: %s", path, strerror(errno));
  return LS_OK;
}

static int cmd_model(int argc, char **argv)
{
  const char *id = NULL, *out = NULL, *yaml = NULL;
  int layers = 0, width = 0, seed = 1;
  for (int i = 1; i < argc; i++) {
    int rc = 0;
    if (!strcmp(argv[i], "--model") && !(rc = need(argc, argv, i)))
      id = argv[++i];
    else if (!strcmp(argv[i], "--out") && !(rc = need(argc, argv, i)))
      out = argv[++i];
    else if (!strcmp(argv[i], "--yaml") && !(rc = need(argc, argv, i)))
      yaml = argv[++i];
    else if (!strcmp(argv[i], "--layers") && !(rc = need(argc, argv, i)))
      rc = num("--layers", argv[++i], 0, 1024, &layers);
    else if (!strcmp(argv[i], "--width") && !(rc = need(argc, argv, i)))
      rc = num("--width", argv[++i], 0, 65536, &width);
    else if (!strcmp(argv[i], "--seed") && !(rc = need(argc, argv, i)))
      rc = num("--seed", argv[++i], 0, 1 << 30, &seed);
    else if (!rc)
      rc = ls_usage_error("testbed", "model: unknown option '%s'", argv[i]);
    if (rc)
      return rc;
  }
  if (!id || !out)
    return ls_usage_error("testbed", "model: --model and --out are required");
  ls_error err = {0};
  ls_gguf_shape s;
  ls_gguf_layout l;
  int rc = ls_gguf_shape_scaled(ls_data_root(), id, layers, width, &s, &err);
  if (!rc)
    rc = ls_gguf_write(out, &s, (uint64_t)seed, &l, &err);
  if (!rc) {
    printf("%s: %d layers, hidden %d, ffn %d, %d/%d heads, vocab %d: %d tensors, %.1f MB\n", out, s.n_layers,
           s.hidden, s.ffn, s.n_heads, s.n_kv_heads, s.vocab, l.n, l.file_bytes / 1e6);
    ls_gguf_layout_free(&l);
    if (yaml)
      rc = write_yaml(yaml, id, &s, &err);
  }
  if (rc) {
    ls_error_print(&err, stderr);
    return ls_status_exit(rc);
  }
  return 0;
}

static int cmd_measure(int argc, char **argv)
{
  ls_tbm_config c = ls_tbm_defaults();
  const char *db = NULL, *csv = NULL, *model = NULL, *draft_model = NULL;
  for (int i = 1; i < argc; i++) {
    int rc = 0;
    const char **s = !strcmp(argv[i], "--lib")           ? &c.lib_dir
                     : !strcmp(argv[i], "--target")      ? &c.target
                     : !strcmp(argv[i], "--draft")       ? &c.draft
                     : !strcmp(argv[i], "--trace")       ? &c.trace
                     : !strcmp(argv[i], "--tree")        ? &c.tree_json
                     : !strcmp(argv[i], "--db")          ? &db
                     : !strcmp(argv[i], "--csv")         ? &csv
                     : !strcmp(argv[i], "--model")       ? &model
                     : !strcmp(argv[i], "--draft-model") ? &draft_model
                                                         : NULL;
    int *n = !strcmp(argv[i], "--threads")       ? &c.threads
             : !strcmp(argv[i], "--reps")        ? &c.reps
             : !strcmp(argv[i], "--max-n")       ? &c.max_n
             : !strcmp(argv[i], "--tg")          ? &c.tg
             : !strcmp(argv[i], "--spec-tokens") ? &c.spec_tokens
             : !strcmp(argv[i], "--spec-k")      ? &c.spec_k
                                                 : NULL;
    if (s && !(rc = need(argc, argv, i)))
      *s = argv[++i];
    else if (n && !(rc = need(argc, argv, i)))
      rc = num(argv[i], argv[i + 1], 0, 256, n), i++;
    else if (!strcmp(argv[i], "--no-repack"))
      c.repack = 0;
    else if (!rc)
      rc = ls_usage_error("testbed", "measure: unknown option '%s'", argv[i]);
    if (rc)
      return rc;
  }
  if (!c.lib_dir || !c.target || !db || !model)
    return ls_usage_error("testbed", "measure: --lib, --target, --model and --db are required");
  if ((c.draft != NULL) != (c.trace != NULL) || (c.draft && !draft_model))
    return ls_usage_error("testbed", "measure: --draft, --draft-model and --trace go together");
  ls_error err = {0};
  ls_tbm_result r;
  ls_tbdb *d = NULL;
  ls_tbdb_meta meta = {0};
  snprintf(meta.target, sizeof meta.target, "%s", c.target);
  snprintf(meta.draft, sizeof meta.draft, "%s", c.draft ? c.draft : "");
  snprintf(meta.model_id, sizeof meta.model_id, "%s", model);
  snprintf(meta.draft_model, sizeof meta.draft_model, "%s", draft_model ? draft_model : "");
  meta.threads = c.threads;
  meta.reps = c.reps;
  ls_gguf_layout l;
  int rc = ls_gguf_read_layout(c.target, &l, &err);
  if (!rc) {
    ls_gguf_layout_free(&l);
    rc = ls_tbm_run(&c, &r, stdout, &err);
  }
  if (!rc) {
    r.target_file_bytes = l.file_bytes;
    rc = ls_tbdb_open(&d, db, &err);
    if (!rc)
      rc = ls_tbdb_store_run(d, &meta, &r, &err);
    if (!rc && csv) {
      const char *base = strrchr(c.target, '/');
      rc = ls_benchcsv_write(csv, &r, base ? base + 1 : c.target, c.threads, &err);
    }
    if (!rc)
      printf("testbed: run %s: %d passes stored in %s%s%s\n", meta.run_id, r.n, db, csv ? ", warm rows in " : "",
             csv ? csv : "");
    ls_tbdb_close(d);
    ls_tbm_result_free(&r);
  }
  if (rc) {
    ls_error_print(&err, stderr);
    return ls_status_exit(rc);
  }
  if (fflush(stdout) != 0)
    return 74;
  return 0;
}

int ls_cmd_testbed(int argc, char **argv)
{
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(USAGE, argc < 2 ? stderr : stdout);
    return argc < 2 ? 64 : 0;
  }
  if (!strcmp(argv[1], "model"))
    return cmd_model(argc - 1, argv + 1);
  if (!strcmp(argv[1], "measure"))
    return cmd_measure(argc - 1, argv + 1);
  if (!strcmp(argv[1], "validate"))
    return ls_tbv_command(argc - 1, argv + 1);
  return ls_usage_error("testbed", "unknown subcommand '%s' (model, measure, validate)", argv[1]);
}
