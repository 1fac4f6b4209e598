/* tests/workloads: the CUnit runner for workloads/ — models (sizes vs src:hf-model-configs,
 * FLOPs vs hand computation), datasets (tau ranges and ordering with hand-built chains and
 * trees), the oracle (order independence, iid/positional rates, predictor AUC), traces
 * (round trip, replay, malformed input) and the `leversim trace` command. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ls_test.h"
#include "walk.h"
#include "workloads/dataset.h"
#include "workloads/dataset_int.h" /* the acceptance process, perturbed by the shared-tables test */
#include "workloads/model.h"
#include "workloads/oracle.h"
#include "workloads/trace.h"

#define ROOT LS_SOURCE_DIR
#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * MIB)

/* ---- helpers ---- */

static char tmpdir[256];

static const char *tmp_dir(void)
{
  if (!tmpdir[0]) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ls_test_workloads_XXXXXX");
    if (!mkdtemp(tmpdir))
      tmpdir[0] = '\0';
  }
  return tmpdir;
}

static const char *write_tmp(const char *name, const char *text)
{
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", tmp_dir(), name);
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
  return path;
}


/* Replaces the first occurrence of from by to in a copy of s (caller frees). */
static char *replace(const char *s, const char *from, const char *to)
{
  const char *at = strstr(s, from);
  if (!at)
    return NULL;
  size_t n = strlen(s) - strlen(from) + strlen(to);
  char *r = malloc(n + 1);
  size_t pre = (size_t)(at - s);
  memcpy(r, s, pre);
  strcpy(r + pre, to);
  strcat(r, at + strlen(from));
  return r;
}

/* 1-based line of the first occurrence of needle in s. */
static int line_of(const char *s, const char *needle)
{
  const char *at = strstr(s, needle);
  int line = 1;
  for (const char *p = s; at && p < at; p++)
    line += *p == '\n';
  return at ? line : -1;
}

static ls_oracle *make_oracle(const char *dataset, const char *target, const char *settings[], uint64_t seed)
{
  ls_dataset *d = NULL;
  ls_model *m = NULL;
  ls_oracle *o = NULL;
  ls_kv *kv = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_dataset_load_id(&d, ROOT, dataset, &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_model_load_id(&m, ROOT, target, &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_kv_create(&kv, &e), LS_OK);
  for (int i = 0; settings && settings[i]; i++)
    CU_ASSERT_EQUAL(ls_kv_assign(kv, settings[i], "test", &e), LS_OK);
  int rc = ls_oracle_create(&o, d, m, NULL, seed, kv, &e);
  if (rc)
    fprintf(stderr, "oracle: %s\n", e.msg);
  CU_ASSERT_EQUAL(rc, LS_OK);
  CU_ASSERT_EQUAL(ls_kv_check_used(kv, "", &e), LS_OK);
  ls_kv_free(kv);
  ls_model_free(m);
  ls_dataset_free(d);
  return o;
}

/* ---- models ---- */

static const char *const MODELS[] = {"eagle3-llama-3.1-8b", "eagle3-qwen3-14b", "eagle3-qwen3-4b",
                                     "eagle3-qwen3-8b",     "llama-3.1-8b",     "llama-3.2-1b",
                                     "qwen3-0.6b",          "qwen3-1.7b",       "qwen3-14b",
                                     "qwen3-4b",            "qwen3-8b"};
#define N_MODELS 11

static void test_models_load(void)
{
  char ids[16][64];
  CU_ASSERT_EQUAL(ls_model_list(ROOT, ids, 16), N_MODELS);
  for (int i = 0; i < N_MODELS; i++) {
    ls_model *m = NULL;
    ls_error e;
    CU_ASSERT_STRING_EQUAL(ids[i], MODELS[i]);
    CU_ASSERT_EQUAL_FATAL(ls_model_load_id(&m, ROOT, MODELS[i], &e), LS_OK);
    /* declared parameter count matches the architecture within 1 % */
    LS_ASSERT_CLOSE(ls_model_params(m), ls_model_params_declared(m), 0.01);
    if (ls_model_is_target(m)) {
      ls_model *d = NULL;
      CU_ASSERT_EQUAL(ls_model_load_id(&d, ROOT, ls_model_default_draft(m), &e), LS_OK);
      CU_ASSERT(d && !ls_model_is_target(d) && !strcmp(ls_model_family(d), ls_model_family(m)));
      ls_model_free(d);
    } else {
      CU_ASSERT_PTR_NULL(ls_model_default_draft(m));
    }
    ls_model_free(m);
  }
}

static void test_models_sizes(void)
{
  /* src:hf-model-configs shapes, at 4.5 bits/weight (derived): layer MiB, all layers GiB, LM head MiB
   * (0 = tied), KV cache per token KiB over all layers. */
  static const struct { const char *id; double layer, layers, head, kv; } ref[] = {
      {"llama-3.1-8b", 117, 3.66, 282, 128}, {"qwen3-4b", 54, 1.90, 0, 144},
      {"qwen3-8b", 103.5, 3.64, 334, 144},   {"qwen3-14b", 177, 6.92, 417, 160}};
  /* output projection at q6_k beside q4_0 layers (src:llamacpp-quant), MB: 431 / 319 (tied,
   * the embedding) / 511 / 638 */
  static const double head_q6k_mb[] = {431, 319, 511, 638};
  for (int i = 0; i < 4; i++) {
    ls_model *m = NULL;
    ls_model_costs c;
    ls_error e;
    CU_ASSERT_EQUAL_FATAL(ls_model_load_id(&m, ROOT, ref[i].id, &e), LS_OK);
    CU_ASSERT_EQUAL(ls_model_costs_get(m, "q4_0", &c, &e), LS_OK);
    LS_ASSERT_CLOSE(c.lmhead_bytes / 1e6, head_q6k_mb[i], 0.01);
    CU_ASSERT_EQUAL(ls_model_costs_get(m, "q4_0-pure", &c, &e), LS_OK);
    LS_ASSERT_CLOSE(c.layer_bytes / MIB, ref[i].layer, 0.01);
    LS_ASSERT_CLOSE(c.n_layers * c.layer_bytes / GIB, ref[i].layers, 0.01);
    if (ref[i].head > 0)
      LS_ASSERT_CLOSE(c.lmhead_bytes / MIB, ref[i].head, 0.01);
    LS_ASSERT_CLOSE(c.n_layers * c.kv_bytes_per_token / 1024.0, ref[i].kv, 0.01);
    /* total = layers + embedding (+ untied head) + final norm */
    double expect = c.n_layers * c.layer_bytes + c.embed_bytes + (ref[i].head > 0 ? c.lmhead_bytes : 0.0);
    CU_ASSERT_EQUAL(ls_model_costs_get(m, "q4_0", &c, &e), LS_OK); /* mixed: q4_0 layers, q6_k head */
    expect = c.n_layers * c.layer_bytes + c.embed_bytes + (ref[i].head > 0 ? c.lmhead_bytes : 0.0);
    LS_ASSERT_CLOSE(c.total_bytes, expect, 1e-4);
    /* other quantisations scale by bits per weight (norms aside) */
    ls_model_costs f;
    CU_ASSERT_EQUAL(ls_model_costs_get(m, "fp16", &f, &e), LS_OK);
    LS_ASSERT_CLOSE(f.lmhead_bytes / c.lmhead_bytes, 16.0 / 6.5625, 1e-9);
    LS_ASSERT_CLOSE(f.layer_bytes / c.layer_bytes, 16.0 / 4.5, 1e-3);
    ls_model_free(m);
  }
}

static void test_models_flops(void)
{
  ls_model *m = NULL;
  ls_model_costs c;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_model_load_id(&m, ROOT, "llama-3.1-8b", &e), LS_OK);
  CU_ASSERT_EQUAL(ls_model_costs_get(m, NULL, &c, &e), LS_OK);
  /* by hand: q,o 4096x4096 = 16,777,216 each; k,v 4096x1024 = 4,194,304 each;
   * MLP 3 x 4096 x 14336 = 176,160,768; sum 218,103,808 MACs = 436,207,616 FLOPs */
  CU_ASSERT_DOUBLE_EQUAL(c.layer_flops_per_token, 436207616.0, 0.5);
  CU_ASSERT_DOUBLE_EQUAL(c.attn_flops_per_token_per_ctx, 16384.0, 0.5); /* 4 x 32 x 128 */
  CU_ASSERT_DOUBLE_EQUAL(c.lmhead_flops_per_token, 1050673152.0, 0.5); /* 2 x 128256 x 4096 */
  CU_ASSERT_DOUBLE_EQUAL(c.kv_bytes_per_token, 4096.0, 1e-9);          /* 2 x 8 x 128 x 2 B */
  ls_model_free(m);
  CU_ASSERT_EQUAL_FATAL(ls_model_load_id(&m, ROOT, "qwen3-14b", &e), LS_OK);
  CU_ASSERT_EQUAL(ls_model_costs_get(m, "q8_0", &c, &e), LS_OK);
  /* q 5120x5120, k,v 5120x1024, o 5120x5120, MLP 3 x 5120 x 17408: 330,301,440 MACs */
  CU_ASSERT_DOUBLE_EQUAL(c.layer_flops_per_token, 660602880.0, 0.5);
  CU_ASSERT_EQUAL(ls_model_costs_get(m, "q3_k", &c, &e), LS_EINVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "q4_0"));
  ls_model_free(m);
}

static void test_models_errors(void)
{
  ls_model *m = NULL;
  ls_error e;
  CU_ASSERT_EQUAL(ls_model_load_id(&m, ROOT, "llama-4", &e), LS_ENOTFOUND);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "qwen3-8b"));
  char path[512], *good;
  snprintf(path, sizeof path, "%s/workloads/models/qwen3-8b.yaml", ROOT);
  CU_ASSERT_PTR_NOT_NULL_FATAL(good = ls_test_slurp(path));
  struct { const char *from, *to, *needle; int code; } cases[] = {
      {"  ffn: 12288", "  ffn: 12288\n  fnn: 1", "fnn:", LS_ESCHEMA},   /* unknown key */
      {"n_layers: 36", "n_layers: many", "n_layers:", LS_EPARSE},     /* not a number */
      {"family: qwen3", "family: gpt", "family:", LS_EINVALID},       /* bad enum */
      {"head_dim: 128", "head_dim: 0", "head_dim:", LS_ERANGE},      /* out of range */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *bad = replace(good, cases[i].from, cases[i].to);
    CU_ASSERT_PTR_NOT_NULL_FATAL(bad);
    const char *p = write_tmp("qwen3-8b.yaml", bad);
    ls_error_clear(&e);
    int rc = ls_model_load(&m, p, &e);
    CU_ASSERT(rc < 0);
    CU_ASSERT_EQUAL(e.line, line_of(bad, cases[i].needle));
    CU_ASSERT(e.col > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.file, "qwen3-8b.yaml"));
    if (rc >= 0 || e.line != line_of(bad, cases[i].needle))
      fprintf(stderr, "case %zu: rc %d %s:%d:%d: %s\n", i, rc, e.file, e.line, e.col, e.msg);
    free(bad);
  }
  free(good);
}

/* ---- datasets ---- */

static void test_datasets_load(void)
{
  static const char *const want[] = {"gsm8k", "humaneval", "iid", "mbpp", "mt-bench", "positional"};
  char ids[16][64];
  CU_ASSERT_EQUAL(ls_dataset_list(ROOT, ids, 16), 6);
  for (int i = 0; i < 6; i++) {
    ls_dataset *d = NULL;
    ls_error e;
    CU_ASSERT_STRING_EQUAL(ids[i], want[i]);
    CU_ASSERT_EQUAL(ls_dataset_load_id(&d, ROOT, want[i], &e), LS_OK);
    CU_ASSERT(d && !strcmp(ls_dataset_id(d), want[i]));
    ls_dataset_free(d);
  }
  ls_dataset *d = NULL;
  ls_error e;
  CU_ASSERT_EQUAL(ls_dataset_load_id(&d, ROOT, "mtbench", &e), LS_ENOTFOUND);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "mt-bench"));
}

static void test_datasets_tau(void)
{
  static const char *const ds[] = {"mt-bench", "humaneval", "mbpp", "gsm8k"};
  static const struct { const char *target, *think; } fam[] = {
      {"llama-3.1-8b", "workload.thinking=false"}, {"qwen3-8b", "workload.thinking=false"},
      {"qwen3-8b", "workload.thinking=true"}};
  for (int f = 0; f < 3; f++) {
    double chain[4], tree[4];
    for (int i = 0; i < 4; i++) {
      const char *set[] = {fam[f].think, "workload.prompts=24", NULL};
      ls_oracle *o = make_oracle(ds[i], fam[f].target, set, 7);
      CU_ASSERT_PTR_NOT_NULL_FATAL(o);
      chain[i] = walk_chain_tau(o, 5);
      tree[i] = walk_tree_tau(o, 60, 6, 10); /* EAGLE-2 defaults: 60 tokens, depth 5 + root, top-10 */
      ls_oracle_free(o);
      /* src:spec-bench: chain SD ~2.3, EAGLE-2-like trees ~3.5-4.5 */
      CU_ASSERT(chain[i] >= 1.8 && chain[i] <= 3.0);
      CU_ASSERT(tree[i] >= 3.4 && tree[i] <= 4.6);
      CU_ASSERT(tree[i] > chain[i] + 0.8);
      if (!(chain[i] >= 1.8 && chain[i] <= 3.0 && tree[i] >= 3.4 && tree[i] <= 4.6))
        fprintf(stderr, "%s %s %s: chain %.3f tree %.3f\n", fam[f].target, fam[f].think, ds[i], chain[i], tree[i]);
    }
    for (int i = 1; i < 4; i++) { /* code and math above dialogue (src:lever-paper) */
      CU_ASSERT(chain[i] > chain[0]);
      CU_ASSERT(tree[i] > tree[0]);
    }
  }
}

static void test_datasets_errors(void)
{
  char path[512], *good;
  snprintf(path, sizeof path, "%s/workloads/datasets/gsm8k.yaml", ROOT);
  CU_ASSERT_PTR_NOT_NULL_FATAL(good = ls_test_slurp(path));
  struct { const char *from, *to, *needle; } cases[] = {
      {"    calibration:", "    calibratoin: 1\n    calibration:", "calibratoin:"},
      {"agree: 0.92", "agree: 1.5", "agree: 1.5"},
      {"kind: synthetic", "kind: real", "kind:"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *bad = replace(good, cases[i].from, cases[i].to);
    CU_ASSERT_PTR_NOT_NULL_FATAL(bad);
    ls_dataset *d = NULL;
    ls_error e;
    ls_error_clear(&e);
    CU_ASSERT(ls_dataset_load(&d, write_tmp("gsm8k.yaml", bad), &e) < 0);
    CU_ASSERT_EQUAL(e.line, line_of(bad, cases[i].needle));
    CU_ASSERT(e.col > 0);
    free(bad);
  }
  free(good);
  snprintf(path, sizeof path, "%s/workloads/datasets/positional.yaml", ROOT);
  CU_ASSERT_PTR_NOT_NULL_FATAL(good = ls_test_slurp(path));
  char *bad = replace(good, "[0.6, 0.2, 0.1]", "[0.6, 0.3, 0.2]");
  ls_dataset *d = NULL;
  ls_error e;
  CU_ASSERT_EQUAL(ls_dataset_load(&d, write_tmp("positional.yaml", bad), &e), LS_ERANGE);
  CU_ASSERT_EQUAL(e.line, line_of(bad, "[0.6, 0.3"));
  free(bad);
  /* Regression: a rising p passed the loader and failed later in the oracle, unlocated. */
  bad = replace(good, "[0.6, 0.2, 0.1]", "[0.2, 0.3, 0.1]");
  ls_error_clear(&e);
  CU_ASSERT_EQUAL(ls_dataset_load(&d, write_tmp("positional.yaml", bad), &e), LS_ERANGE);
  CU_ASSERT_EQUAL(e.line, line_of(bad, "[0.2, 0.3"));
  const char *at = strstr(strstr(bad, "[0.2, 0.3"), "0.3"), *bol = at;
  while (bol > bad && bol[-1] != '\n')
    bol--;
  CU_ASSERT_EQUAL(e.col, (int)(at - bol) + 1); /* located at the value that rises */
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "non-increasing"));
  ls_dataset_free(d);
  free(bad);
  free(good);
}

/* ---- oracle ---- */

#define ONODES 40

typedef struct answers {
  double probs[ONODES][LS_VIEW_TOPK_MAX];
  int k[ONODES], rank[ONODES];
  uint64_t key[ONODES];
  double score[ONODES];
} answers;

/* A fixed tree shape: node i's parent is (i-1)/3 with rank (i-1)%3 (a 3-ary tree). Keys are
 * derived first (parents before children), then answers are asked in the given order. */
static void ask(const ls_oracle *o, int prompt, int pos, const int *order, answers *a)
{
  ls_oracle_cycle c;
  ls_draft_view v;
  int depth[ONODES];
  ls_oracle_begin(o, prompt, pos, &c, &v);
  memset(a, 0, sizeof *a);
  a->key[0] = v.root_key;
  depth[0] = 0;
  for (int i = 1; i < ONODES; i++) {
    int p = (i - 1) / 3;
    depth[i] = depth[p] + 1;
    a->key[i] = v.child_key(v.ctx, a->key[p], depth[p], (i - 1) % 3);
  }
  for (int j = 0; j < ONODES; j++) {
    int i = order[j];
    a->k[i] = v.candidates(v.ctx, a->key[i], depth[i], a->probs[i], LS_VIEW_TOPK_MAX);
    a->rank[i] = ls_oracle_true_rank(&c, a->key[i], depth[i]);
    a->score[i] = ls_oracle_exit_score(&c, a->key[i], depth[i], a->probs[i][0]);
  }
}

static void test_oracle_order(void)
{
  const char *set[] = {"workload.prompts=3", NULL};
  ls_oracle *o = make_oracle("mbpp", "llama-3.1-8b", set, 11);
  CU_ASSERT_PTR_NOT_NULL_FATAL(o);
  int fwd[ONODES], rev[ONODES], mix[ONODES];
  for (int i = 0; i < ONODES; i++) {
    fwd[i] = i;
    rev[i] = ONODES - 1 - i;
    mix[i] = (i * 17) % ONODES; /* 17 is coprime with 40 */
  }
  static answers a, b, c;
  ask(o, 1, 20, fwd, &a);
  ask(o, 1, 20, rev, &b);
  ask(o, 1, 20, mix, &c);
  CU_ASSERT(memcmp(&a, &b, sizeof a) == 0);
  CU_ASSERT(memcmp(&a, &c, sizeof a) == 0);
  /* candidates are descending, sum <= 1, and a shorter request is a prefix */
  ls_oracle_cycle cy;
  ls_draft_view v;
  ls_oracle_begin(o, 1, 20, &cy, &v);
  for (int i = 0; i < ONODES; i++) {
    double s = 0.0, four[4];
    for (int r = 0; r < a.k[i]; r++) {
      s += a.probs[i][r];
      if (r > 0)
        CU_ASSERT(a.probs[i][r] <= a.probs[i][r - 1]);
    }
    CU_ASSERT(s <= 1.0 + 1e-12);
    CU_ASSERT_EQUAL(v.candidates(v.ctx, a.key[i], 0, four, 4), 4);
  }
  /* the true path does not depend on where a cycle starts: follow true ranks from pos 20 */
  int depth;
  uint64_t key = a.key[0];
  for (depth = 0; depth < 3; depth++) {
    int r = ls_oracle_true_rank(&cy, key, depth);
    if (r < 0)
      break;
    key = v.child_key(v.ctx, key, depth, r);
  }
  ls_oracle_cycle c2;
  ls_draft_view v2;
  ls_oracle_begin(o, 1, 20 + depth, &c2, &v2);
  CU_ASSERT_NOT_EQUAL(ls_oracle_true_rank(&cy, key, depth), LS_ORACLE_OFF_PATH);
  {
    CU_ASSERT_EQUAL(key, v2.root_key);
    double p1[16], p2[16];
    CU_ASSERT_EQUAL(v.candidates(v.ctx, key, depth, p1, 16), v2.candidates(v2.ctx, v2.root_key, 0, p2, 16));
    CU_ASSERT(memcmp(p1, p2, sizeof p1) == 0);
    CU_ASSERT_EQUAL(ls_oracle_exit_score(&cy, key, depth, 0.5), ls_oracle_exit_score(&c2, key, 0, 0.5));
  }
  /* off-path nodes are never accepted */
  for (int i = 1; i < ONODES; i++)
    if (a.rank[i] != LS_ORACLE_OFF_PATH)
      CU_ASSERT(a.rank[(i - 1) / 3] == (i - 1) % 3);
  ls_oracle_free(o);
  /* same seed, same lengths; another seed, other text */
  ls_oracle *o1 = make_oracle("mbpp", "llama-3.1-8b", set, 11), *o2 = make_oracle("mbpp", "llama-3.1-8b", set, 12);
  ls_oracle *o3 = make_oracle("mbpp", "llama-3.1-8b", set, 11);
  for (int p = 0; p < 3; p++) {
    CU_ASSERT_EQUAL(ls_oracle_output_len(o1, p), ls_oracle_output_len(o3, p));
    CU_ASSERT_EQUAL(ls_oracle_prompt_len(o1, p), ls_oracle_prompt_len(o3, p));
  }
  ls_oracle_free(o3);
  ls_oracle_begin(o1, 0, 0, &cy, &v);
  ls_oracle_begin(o2, 0, 0, &c2, &v2);
  CU_ASSERT_NOT_EQUAL(v.root_key, v2.root_key);
  ls_oracle_free(o1);
  ls_oracle_free(o2);
}

/* The view remembers a parent's true rank and child hash for its next children, and draws a
 * true-path node's rank from the candidates it has just computed: neither may change a key or
 * a rank. Child keys asked parent after parent (each query a new parent) equal those asked
 * with a fresh cycle per query; true ranks drawn after the candidates (asked for 4 of 16)
 * equal those drawn first in a second oracle of the same seed. */
static void test_oracle_memo(void)
{
  const char *set[] = {"workload.prompts=3", NULL};
  ls_oracle *o1 = make_oracle("gsm8k", "llama-3.1-8b", set, 5), *o2 = make_oracle("gsm8k", "llama-3.1-8b", set, 5);
  CU_ASSERT_PTR_NOT_NULL_FATAL(o1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(o2);
  ls_oracle_cycle c, f;
  ls_draft_view v, vf;
  uint64_t keys[13];
  int depth[13], differ = 0;
  ls_oracle_begin(o1, 2, 7, &c, &v);
  keys[0] = v.root_key;
  depth[0] = 0;
  for (int i = 1; i < 13; i++) { /* a 3-ary tree of depth 2 whose true path is in it or not */
    keys[i] = v.child_key(v.ctx, keys[(i - 1) / 3], depth[(i - 1) / 3], (i - 1) % 3);
    depth[i] = depth[(i - 1) / 3] + 1;
  }
  for (int r = 0; r < 5; r++)
    for (int i = 0; i < 13; i++) { /* interleaved: a new parent at every query */
      uint64_t got = v.child_key(v.ctx, keys[i], depth[i], r);
      ls_oracle_begin(o1, 2, 7, &f, &vf);
      CU_ASSERT_EQUAL(got, vf.child_key(vf.ctx, keys[i], depth[i], r));
      differ += i > 0 && got != v.child_key(v.ctx, keys[i - 1], depth[i - 1], r);
    }
  CU_ASSERT(differ > 0);
  int seen[3] = {0, 0, 0}; /* ranks 0, 1.., none */
  for (int p = 0; p < 3; p++)
    for (int t = 0; t < 400; t++) {
      double q[4];
      ls_oracle_cycle c2;
      ls_draft_view v2;
      ls_oracle_begin(o1, p, t, &c, &v);
      ls_oracle_begin(o2, p, t, &c2, &v2);
      CU_ASSERT_EQUAL(v.candidates(v.ctx, v.root_key, 0, q, 4), 4);
      int r1 = ls_oracle_true_rank(&c, v.root_key, 0), r2 = ls_oracle_true_rank(&c2, v2.root_key, 0);
      CU_ASSERT_EQUAL(r1, r2);
      seen[r1 == 0 ? 0 : r1 > 0 ? 1 : 2]++;
    }
  CU_ASSERT(seen[0] > 0 && seen[1] > 0 && seen[2] > 0);
  ls_oracle_free(o1);
  ls_oracle_free(o2);
}

/* The keys and depths of the first n nodes of the w-ary tree under the view's root, breadth
 * first (node i's parent is (i - 1) / w, its rank (i - 1) % w). */
static void wary_tree(const ls_draft_view *v, int w, uint64_t *key, int *depth, int n)
{
  key[0] = v->root_key;
  depth[0] = 0;
  for (int i = 1; i < n; i++) {
    int p = (i - 1) / w;
    depth[i] = depth[p] + 1;
    key[i] = v->child_key(v->ctx, key[p], depth[p], (i - 1) % w);
  }
}

/* Every node's candidates come out descending with the largest first (the stick pieces sorted
 * by a fixed network, oracle.c): 8,000 nodes of a 16-ary tree over two datasets, each list
 * checked in full (no ties but at the top-1's cap), its sum at most 1, and every shorter
 * request its prefix. */
static void test_oracle_candidates_sorted(void)
{
  const char *set[] = {"workload.prompts=2", NULL};
  const char *ds[] = {"mbpp", "gsm8k"};
  enum { NN = 4000 };
  static uint64_t key[NN];
  static int depth[NN];
  int bad = 0, full = 0, prefix_bad = 0;
  for (int d = 0; d < 2; d++) {
    ls_oracle *o = make_oracle(ds[d], "llama-3.1-8b", set, 5);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    ls_oracle_cycle c;
    ls_draft_view v;
    ls_oracle_begin(o, 1, 3, &c, &v);
    wary_tree(&v, LS_VIEW_TOPK_MAX, key, depth, NN);
    for (int i = 0; i < NN; i++) {
      double q[LS_VIEW_TOPK_MAX], s = 0.0;
      int n = v.candidates(v.ctx, key[i], depth[i], q, LS_VIEW_TOPK_MAX);
      full += n == LS_VIEW_TOPK_MAX;
      for (int r = 0; r < n; r++) {
        s += q[r];
        bad += !(q[r] > 0.0) || (r > 0 && q[r] > q[r - 1]);
        /* ties only where pieces are capped at the top-1 (a missorted list capped by its
         * predecessors would tie below it) */
        bad += r > 1 && q[r] == q[r - 1] && q[r] != q[0];
      }
      bad += !(s <= 1.0 + 1e-12);
      /* a request for k < 16 is the prefix of the full list, bit for bit */
      for (int k = 1; k < LS_VIEW_TOPK_MAX; k++) {
        double p[LS_VIEW_TOPK_MAX];
        prefix_bad += v.candidates(v.ctx, key[i], depth[i], p, k) != k || memcmp(p, q, (size_t)k * sizeof *p) != 0;
      }
    }
    ls_oracle_free(o);
  }
  CU_ASSERT_EQUAL(full, 2 * NN);
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT_EQUAL(prefix_bad, 0);
}

/* A request for 1 to 4 candidates asked first, before any longer one (oracle.c, top_few: the
 * list's head without the sorting network), is the head of the full list a second oracle of
 * the same seed gives, bit for bit: 2,000 nodes of a chain-heavy tree (each node's top 3 and
 * the true path's), in two datasets, with nodes where the cap by the top-1 binds; the true
 * ranks of the path are those of the second oracle. */
static void test_oracle_short_requests(void)
{
  const char *set[] = {"workload.prompts=2", NULL};
  const char *ds[] = {"mt-bench", "humaneval"};
  enum { NN = 2000 };
  static uint64_t key[NN];
  static int depth[NN];
  int bad = 0, capped = 0, ranks_bad = 0;
  for (int d = 0; d < 2; d++) {
    ls_oracle *o = make_oracle(ds[d], "qwen3-8b", set, 13), *o2 = make_oracle(ds[d], "qwen3-8b", set, 13);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o2);
    ls_oracle_cycle c, c2;
    ls_draft_view v, v2;
    ls_oracle_begin(o, 0, 7, &c, &v);
    ls_oracle_begin(o2, 0, 7, &c2, &v2);
    wary_tree(&v, 3, key, depth, NN);
    for (int i = 0; i < NN; i++) {
      double q[LS_VIEW_TOPK_MAX], h[4];
      int k = 1 + i % 4;
      CU_ASSERT_EQUAL(v.candidates(v.ctx, key[i], depth[i], h, k), k);
      CU_ASSERT_EQUAL(v2.candidates(v2.ctx, key[i], depth[i], q, LS_VIEW_TOPK_MAX), LS_VIEW_TOPK_MAX);
      bad += memcmp(h, q, (size_t)k * sizeof *h) != 0;
      capped += k > 1 && q[1] == q[0];
    }
    uint64_t tk = v.root_key; /* the true path: each node's true child is its child of the true rank */
    for (int t = 0; t < 40; t++) {
      int r = ls_oracle_true_rank(&c, tk, t);
      ranks_bad += r != ls_oracle_true_rank(&c2, tk, t) || r == LS_ORACLE_OFF_PATH;
      tk = v.child_key(v.ctx, tk, t, r);
    }
    ls_oracle_free(o);
    ls_oracle_free(o2);
  }
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT(capped > 0);
  CU_ASSERT_EQUAL(ranks_bad, 0);
}

/* The regime chain is drawn as far as it is asked, in chunks (oracle.c, regime_at): an oracle
 * asked first at a deep position and one asked position by position hold the same chain, so
 * the root's candidates (which follow the regime) agree at every position, across the chunks'
 * boundaries and past the horizon. */
static void test_oracle_regime_lazy(void)
{
  const char *set[] = {"workload.prompts=2", NULL};
  ls_oracle *deep = make_oracle("gsm8k", "llama-3.1-8b", set, 9), *step = make_oracle("gsm8k", "llama-3.1-8b", set, 9);
  CU_ASSERT_PTR_NOT_NULL_FATAL(deep);
  CU_ASSERT_PTR_NOT_NULL_FATAL(step);
  int end = ls_oracle_output_len(deep, 1) + 1200, bad = 0;
  const int order[] = {700, 3, end - 1, 150};
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) { /* deep jumps first */
    ls_oracle_cycle c;
    ls_draft_view v;
    double q[LS_VIEW_TOPK_MAX];
    ls_oracle_begin(deep, 1, order[i], &c, &v);
    v.candidates(v.ctx, v.root_key, 0, q, LS_VIEW_TOPK_MAX);
  }
  for (int t = 0; t < end; t++) {
    ls_oracle_cycle c, d;
    ls_draft_view v, w;
    double p[LS_VIEW_TOPK_MAX], q[LS_VIEW_TOPK_MAX];
    ls_oracle_begin(deep, 1, t, &c, &v);
    ls_oracle_begin(step, 1, t, &d, &w);
    int n = v.candidates(v.ctx, v.root_key, 0, p, LS_VIEW_TOPK_MAX);
    bad += n != LS_VIEW_TOPK_MAX || n != w.candidates(w.ctx, w.root_key, 0, q, LS_VIEW_TOPK_MAX) ||
           memcmp(p, q, sizeof p) != 0;
  }
  CU_ASSERT_EQUAL(bad, 0);
  ls_oracle_free(deep);
  ls_oracle_free(step);
}

/* Number of answers (candidates at the root and at its first child, the root's true rank)
 * where two oracles differ, over 2 prompts x 400 positions. */
static int oracle_diffs(const ls_oracle *a, const ls_oracle *b)
{
  int bad = 0;
  for (int p = 0; p < 2; p++)
    for (int t = 0; t < 400; t++) {
      ls_oracle_cycle c, d;
      ls_draft_view v, w;
      double x[LS_VIEW_TOPK_MAX], y[LS_VIEW_TOPK_MAX];
      ls_oracle_begin(a, p, t, &c, &v);
      ls_oracle_begin(b, p, t, &d, &w);
      int n = v.candidates(v.ctx, v.root_key, 0, x, LS_VIEW_TOPK_MAX);
      bad += n != w.candidates(w.ctx, w.root_key, 0, y, LS_VIEW_TOPK_MAX) || memcmp(x, y, sizeof x) != 0;
      uint64_t k = v.child_key(v.ctx, v.root_key, 0, 1);
      n = v.candidates(v.ctx, k, 1, x, LS_VIEW_TOPK_MAX);
      bad += n != w.candidates(w.ctx, w.child_key(w.ctx, w.root_key, 0, 1), 1, y, LS_VIEW_TOPK_MAX) ||
             memcmp(x, y, sizeof x) != 0;
      bad += ls_oracle_true_rank(&c, v.root_key, 0) != ls_oracle_true_rank(&d, w.root_key, 0);
    }
  return bad;
}

/* Oracles whose quantile tables come from a shared set answer exactly as one that builds its
 * own; the set builds a table once per distinct process, and a process that differs in any
 * one of the six parameters the tables depend on gets tables of its own. */
static void test_oracle_shared_tables(void)
{
  ls_dataset *d = NULL;
  ls_model *m = NULL;
  ls_oracle_tables *set = NULL;
  ls_kv *kv = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_dataset_load_id(&d, ROOT, "gsm8k", &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_model_load_id(&m, ROOT, "llama-3.1-8b", &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_oracle_tables_create(&set, &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_kv_create(&kv, &e), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_assign(kv, "workload.prompts=2", "test", &e), LS_OK);
  for (int field = -1; field < 6; field++) { /* -1: the dataset as it is */
    ls_wl_regime *r = &d->proc[LS_PROC_LLAMA3].regime[field < 0 ? 0 : field / 3];
    double *param = field % 3 == 0 ? &r->logit_mean : field % 3 == 1 ? &r->logit_sd : &r->tail, was = *param;
    if (field >= 0)
      *param = was * 1.25 + 0.125;
    for (int again = 0; again < 2; again++) {
      ls_oracle *fresh = NULL, *shared = NULL;
      CU_ASSERT_EQUAL_FATAL(ls_oracle_create(&fresh, d, m, NULL, 11, kv, &e), LS_OK);
      CU_ASSERT_EQUAL_FATAL(ls_oracle_create_shared(&shared, set, d, m, NULL, 11, kv, &e), LS_OK);
      CU_ASSERT_EQUAL(oracle_diffs(fresh, shared), 0);
      CU_ASSERT_EQUAL(ls_oracle_tables_count(set), field + 2); /* built once, then found */
      ls_oracle_free(fresh);
      ls_oracle_free(shared);
    }
    *param = was;
  }
  ls_oracle *back = NULL, *fresh = NULL; /* the unperturbed process again: found, not rebuilt */
  CU_ASSERT_EQUAL_FATAL(ls_oracle_create_shared(&back, set, d, m, NULL, 11, kv, &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_oracle_create(&fresh, d, m, NULL, 11, kv, &e), LS_OK);
  CU_ASSERT_EQUAL(ls_oracle_tables_count(set), 7);
  CU_ASSERT_EQUAL(oracle_diffs(fresh, back), 0);
  ls_oracle_free(back);
  ls_oracle_free(fresh);
  ls_oracle_tables_free(set);
  ls_kv_free(kv);
  ls_model_free(m);
  ls_dataset_free(d);
}

static void test_oracle_iid(void)
{
  const char *set[] = {"workload.alpha=0.7", "workload.prompts=1000", NULL};
  ls_oracle *o = make_oracle("iid", "qwen3-4b", set, 3);
  CU_ASSERT_PTR_NOT_NULL_FATAL(o);
  long acc = 0, n = 0;
  for (int p = 0; p < 1000; p++)
    for (int pos = 0; pos < 1000; pos++, n++) {
      ls_oracle_cycle c;
      ls_draft_view v;
      ls_oracle_begin(o, p, pos, &c, &v);
      acc += ls_oracle_true_rank(&c, v.root_key, 0) == 0;
    }
  LS_ASSERT_CLOSE((double)acc / (double)n, 0.7, 0.01);
  /* chain SD closed form (1 - a^(g+1)) / (1 - a) */
  double tau = walk_chain_tau(o, 4), want = (1.0 - pow(0.7, 5)) / 0.3;
  LS_ASSERT_CLOSE(tau, want, 0.02);
  ls_oracle_free(o);
}

static void test_oracle_positional(void)
{
  const char *set[] = {"workload.p=0.5,0.25,0.1", "workload.prompts=1000", NULL};
  const double p[] = {0.5, 0.25, 0.1};
  ls_oracle *o = make_oracle("positional", "llama-3.1-8b", set, 5);
  CU_ASSERT_PTR_NOT_NULL_FATAL(o);
  long cnt[4] = {0}, n = 0;
  for (int pr = 0; pr < 1000; pr++)
    for (int pos = 0; pos < 1000; pos++, n++) {
      ls_oracle_cycle c;
      ls_draft_view v;
      double q[16];
      ls_oracle_begin(o, pr, pos, &c, &v);
      int r = ls_oracle_true_rank(&c, v.root_key, 0);
      cnt[r + 1]++;
      if (pos == 0 && pr == 0) {
        CU_ASSERT_EQUAL(v.candidates(v.ctx, v.root_key, 0, q, 16), 3);
        CU_ASSERT_EQUAL(q[1], 0.25);
      }
    }
  for (int k = 0; k < 3; k++)
    LS_ASSERT_CLOSE((double)cnt[k + 1] / (double)n, p[k], 0.01);
  ls_oracle_free(o);
}

static void test_oracle_settings(void)
{
  ls_dataset *d = NULL;
  ls_model *m = NULL, *dr = NULL;
  ls_oracle *o = NULL;
  ls_kv *kv = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_dataset_load_id(&d, ROOT, "gsm8k", &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_model_load_id(&m, ROOT, "qwen3-8b", &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_model_load_id(&dr, ROOT, "llama-3.2-1b", &e), LS_OK);
  ls_kv_create(&kv, &e);
  CU_ASSERT_EQUAL(ls_oracle_create(&o, d, m, dr, 1, kv, &e), LS_EINVALID); /* family mismatch */
  CU_ASSERT_EQUAL(ls_kv_assign(kv, "workload.alpha=0.5", "t", &e), LS_OK); /* not for gsm8k */
  CU_ASSERT_EQUAL(ls_kv_assign(kv, "workload.thinking=false", "t", &e), LS_OK); /* qwen3-8b's default is true */
  CU_ASSERT_EQUAL(ls_oracle_create(&o, d, m, NULL, 1, kv, &e), LS_OK);
  CU_ASSERT(ls_kv_check_used(kv, "workload.", &e) < 0);
  CU_ASSERT_EQUAL(ls_oracle_prompts(o), 8);
  int plen = ls_oracle_prompt_len(o, 0), olen = ls_oracle_output_len(o, 0);
  ls_oracle_free(o);
  ls_kv_free(kv);
  ls_kv_create(&kv, &e);
  ls_kv_assign(kv, "workload.thinking=true", "t", &e);
  CU_ASSERT_EQUAL(ls_oracle_create(&o, d, m, NULL, 1, kv, &e), LS_OK);
  CU_ASSERT_EQUAL(ls_oracle_prompt_len(o, 0), plen);
  CU_ASSERT(ls_oracle_output_len(o, 0) > olen); /* thinking traces are longer */
  ls_oracle_free(o);
  ls_kv_free(kv);
  ls_dataset_free(d);
  ls_model_free(m);
  ls_model_free(dr);
  CU_ASSERT_EQUAL_FATAL(ls_dataset_load_id(&d, ROOT, "positional", &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_model_load_id(&m, ROOT, "qwen3-8b", &e), LS_OK);
  ls_kv_create(&kv, &e);
  ls_kv_assign(kv, "workload.p=0.6,0.5", "t", &e);
  CU_ASSERT_EQUAL(ls_oracle_create(&o, d, m, NULL, 1, kv, &e), LS_ERANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "workload.p"));
  ls_kv_free(kv);
  ls_model_free(m);
  ls_dataset_free(d);
}

static void test_oracle_auc(void)
{
  const char *set[] = {"workload.prompts=20", "workload.auc=0.8", NULL};
  ls_oracle *o = make_oracle("humaneval", "llama-3.1-8b", set, 9);
  CU_ASSERT_PTR_NOT_NULL_FATAL(o);
  enum { N = 2000 };
  static double on[N], off[N];
  int n_on = 0, n_off = 0;
  for (int p = 0; p < 20 && (n_on < N || n_off < N); p++)
    for (int pos = 0; pos < 100 && (n_on < N || n_off < N); pos++) {
      ls_oracle_cycle c;
      ls_draft_view v;
      ls_oracle_begin(o, p, pos, &c, &v);
      if (n_on < N)
        on[n_on++] = ls_oracle_exit_score(&c, v.root_key, 0, 0.5);
      int tr = ls_oracle_true_rank(&c, v.root_key, 0);
      for (int r = 0; r < 3 && n_off < N; r++)
        if (r != tr)
          off[n_off++] = ls_oracle_exit_score(&c, v.child_key(v.ctx, v.root_key, 0, r), 1, 0.5);
    }
  CU_ASSERT_EQUAL_FATAL(n_on, N);
  CU_ASSERT_EQUAL_FATAL(n_off, N);
  double wins = 0.0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      wins += on[i] > off[j] ? 1.0 : (on[i] == off[j] ? 0.5 : 0.0);
  CU_ASSERT_DOUBLE_EQUAL(wins / ((double)N * N), 0.8, 0.02);
  /* higher draft confidence raises the score (confidence_weight > 0) */
  ls_oracle_cycle c;
  ls_draft_view v;
  ls_oracle_begin(o, 0, 3, &c, &v);
  CU_ASSERT(ls_oracle_exit_score(&c, v.root_key, 0, 0.9) > ls_oracle_exit_score(&c, v.root_key, 0, 0.1));
  ls_oracle_free(o);
}

/* ---- traces ---- */

static ls_trace *record_small(const char *dataset, int prompts)
{
  char buf[64];
  snprintf(buf, sizeof buf, "workload.prompts=%d", prompts);
  const char *set[] = {buf, NULL};
  ls_oracle *o = make_oracle(dataset, "llama-3.1-8b", set, 4);
  ls_trace *t = NULL;
  ls_error e;
  CU_ASSERT_EQUAL(ls_trace_record(&t, o, 6, 2, 8, dataset, "llama-3.1-8b", "llama-3.2-1b", 4, &e), LS_OK);
  ls_oracle_free(o);
  return t;
}

static void test_traces_roundtrip(void)
{
  ls_trace *t = record_small("gsm8k", 2), *r = NULL;
  ls_error e;
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  char path[512];
  snprintf(path, sizeof path, "%s/rt.trace", tmp_dir());
  CU_ASSERT_EQUAL(ls_trace_write(t, path, &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_trace_read(&r, path, &e), LS_OK);
  CU_ASSERT(ls_trace_equal(t, r));
  CU_ASSERT_STRING_EQUAL(ls_trace_meta(r, "dataset"), "gsm8k");
  CU_ASSERT_EQUAL(ls_trace_positions(r, 1), ls_trace_output_len(r, 1) + 8);
  ls_trace_free(r);
  /* the shipped sample reads back */
  snprintf(path, sizeof path, "%s/workloads/traces/sample.trace", ROOT);
  CU_ASSERT_EQUAL(ls_trace_read(&r, path, &e), LS_OK);
  ls_trace_free(r);
  ls_trace_free(t);
}

static void test_traces_replay(void)
{
  const char *set[] = {"workload.prompts=2", NULL};
  ls_oracle *o = make_oracle("gsm8k", "llama-3.1-8b", set, 4);
  ls_trace *t = record_small("gsm8k", 2);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  double tau_o = 0, tau_t = 0;
  for (int pos = 0; pos < ls_oracle_output_len(o, 1); pos += 3) {
    ls_oracle_cycle c;
    ls_trace_cycle tc;
    ls_draft_view v, w;
    ls_oracle_begin(o, 1, pos, &c, &v);
    ls_trace_replay_begin(t, 1, pos, &tc, &w);
    /* a top-6 chain along the true path plus one off-path child: same answers */
    uint64_t kv = v.root_key, kw = w.root_key;
    for (int d = 0; d < 6; d++) {
      double a[16], b[16];
      int na = v.candidates(v.ctx, kv, d, a, 6), nb = w.candidates(w.ctx, kw, d, b, 6);
      CU_ASSERT_EQUAL(na, nb);
      CU_ASSERT(memcmp(a, b, (size_t)na * sizeof a[0]) == 0);
      int ra = ls_oracle_true_rank(&c, kv, d), rb = ls_trace_replay_true_rank(&tc, kw, d);
      CU_ASSERT_EQUAL(ra >= 6 ? -1 : ra, rb);
      int off = ra == 0 ? 1 : 0; /* recorded off-path child */
      double oa[16], ob[16];
      na = v.candidates(v.ctx, v.child_key(v.ctx, kv, d, off), d + 1, oa, 6);
      nb = w.candidates(w.ctx, w.child_key(w.ctx, kw, d, off), d + 1, ob, 6);
      CU_ASSERT_EQUAL(na, nb);
      CU_ASSERT(memcmp(oa, ob, (size_t)na * sizeof oa[0]) == 0);
      CU_ASSERT_EQUAL(ls_trace_replay_true_rank(&tc, w.child_key(w.ctx, kw, d, off), d + 1), LS_ORACLE_OFF_PATH);
      if (rb < 0)
        break;
      tau_o += ra == 0;
      tau_t += rb == 0;
      kv = v.child_key(v.ctx, kv, d, ra);
      kw = w.child_key(w.ctx, kw, d, rb);
    }
  }
  CU_ASSERT_EQUAL(tau_o, tau_t);
  ls_trace_free(t);
  ls_oracle_free(o);
}

static void test_traces_malformed(void)
{
  static const char head[] = "leversim-trace 1\nmeta dataset x\nprompt 0 10 2\n";
  struct { const char *body; int line, col; } cases[] = {
      {"leversim-trace 2\nend\n", 1, 16},
      {"lever 1\n", 1, 1},
      {"pos 0 0 2 0.6 0.3\npos 1 -1 1 0.5\nend\n", 0, 0}, /* valid */
      {"pos 0 0 2 0.6 0.3\npos 2 -1 1 0.5\nend\n", 5, 5},
      {"pos 0 0 2 0.6 0.5\npos 1 -1 1 0.5\nend\n", 4, 11},
      {"pos 0 0 2 0.3 0.6\npos 1 -1 1 0.5\nend\n", 4, 15},
      {"pos 0 0 2 0.6 1.5\npos 1 -1 1 0.5\nend\n", 4, 15},
      {"pos 0 0 3 0.6 0.3\nend\n", 4, 15},
      {"pos 0 2 2 0.6 0.3\nend\n", 4, 7},
      {"pos 0 0 2 0.6 0.3\noff 0 0 1 0.5\nend\n", 5, 7},
      {"pos 0 0 2 0.6 0.3\noff 0 1.x 1 0.5\nend\n", 5, 7},
      {"pos 0 0 2 0.6 0.3\nbogus 1\nend\n", 5, 1},
      {"pos 0 0 2 0.6 0.3\npos 1 -1 1 0.5\n", 6, 1},
      {"pos 0 0 2 0.6 0.3\nend\n", 5, 1}, /* fewer positions than output_len */
      {"pos 0 zero 2 0.6 0.3\nend\n", 4, 7},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[1024];
    if (cases[i].body[0] == 'l')
      snprintf(text, sizeof text, "%s", cases[i].body);
    else
      snprintf(text, sizeof text, "%s%s", head, cases[i].body);
    const char *p = write_tmp("bad.trace", text);
    ls_trace *t = NULL;
    ls_error e;
    ls_error_clear(&e);
    int rc = ls_trace_read(&t, p, &e);
    if (cases[i].line == 0) {
      CU_ASSERT_EQUAL(rc, LS_OK);
    } else {
      CU_ASSERT_EQUAL(rc, LS_EPARSE);
      CU_ASSERT_EQUAL(e.line, cases[i].line);
      CU_ASSERT_EQUAL(e.col, cases[i].col);
      CU_ASSERT_PTR_NOT_NULL(strstr(e.file, "bad.trace"));
      if (e.line != cases[i].line || e.col != cases[i].col)
        fprintf(stderr, "trace case %zu: %d:%d: %s\n", i, e.line, e.col, e.msg);
    }
    ls_trace_free(t);
  }
}

/* Regression (found while fuzzing the reader): a NUL byte hid the rest of its line, and a
 * carriage return inside a line cut it short, so junk after either was silently ignored.
 * CRLF line ends stay valid. */
static void test_traces_nul_cr(void)
{
  static const char head[] = "leversim-trace 1\nprompt 0 10 1\n";
  struct { const char *tail; size_t tail_len; int rc, line, col; } cases[] = {
#define BYTES(lit) lit, sizeof lit - 1
      {BYTES("pos 0 0 1 0.5\0 junk\nend\n"), LS_EPARSE, 3, 14},
      {BYTES("pos 0 0 1 0.5\rjunk\nend\n"), LS_EPARSE, 3, 14},
      {BYTES("pos 0 0 1 0.5\r\nend\r\n"), LS_OK, 0, 0},
#undef BYTES
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/nul.trace", tmp_dir());
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite(head, 1, strlen(head), f);
    fwrite(cases[i].tail, 1, cases[i].tail_len, f);
    fclose(f);
    ls_trace *t = NULL;
    ls_error e;
    ls_error_clear(&e);
    int rc = ls_trace_read(&t, path, &e);
    CU_ASSERT_EQUAL(rc, cases[i].rc);
    if (cases[i].rc != LS_OK) {
      CU_ASSERT_EQUAL(e.line, cases[i].line);
      CU_ASSERT_EQUAL(e.col, cases[i].col);
    } else if (t) {
      CU_ASSERT_EQUAL(ls_trace_positions(t, 0), 1);
    }
    ls_trace_free(t);
  }
}

/* Regression: the reader called getline before checking the length, so /dev/zero (no line
 * end, ever) grew memory without bound and a failed allocation was reported as "empty file".
 * Now the length is bounded before anything is allocated: a 4095-byte line is read, a
 * 4096-byte one is refused at its line, and /dev/zero stops at once. A folder is an I/O error. */
static void test_traces_line_bound(void)
{
  static char text[8192];
  ls_trace *t = NULL;
  ls_error e;
  for (int over = 0; over < 2; over++) {
    int n = snprintf(text, sizeof text, "leversim-trace 1\n# ");
    memset(text + n, 'x', (size_t)(4095 - 2 + over));
    snprintf(text + n + 4095 - 2 + over, sizeof text - (size_t)(n + 4095 - 2 + over),
             "\nprompt 0 10 1\npos 0 0 1 0.5\nend\n");
    const char *p = write_tmp("long.trace", text);
    ls_error_clear(&e);
    int rc = ls_trace_read(&t, p, &e);
    CU_ASSERT_EQUAL(rc, over ? LS_EPARSE : LS_OK);
    if (over) {
      CU_ASSERT_EQUAL(e.line, 2);
      CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "line too long (the limit is 4095 bytes)"));
    }
    ls_trace_free(t);
    t = NULL;
  }
  ls_error_clear(&e);
  /* a device (endless /dev/zero) and a folder are refused before any read: never a hang */
  CU_ASSERT_EQUAL(ls_trace_read(&t, "/dev/zero", &e), LS_EIO);
  CU_ASSERT_STRING_EQUAL(e.file, "/dev/zero");
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "a device, not a regular file"));
  CU_ASSERT_PTR_NULL(t);
  ls_error_clear(&e);
  CU_ASSERT_EQUAL(ls_trace_read(&t, tmp_dir(), &e), LS_EIO);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "a directory"));
  CU_ASSERT_EQUAL(ls_trace_read(&t, "/nonexistent/x.trace", &e), LS_ENOTFOUND);
}

/* ---- cli ---- */

static void test_cli_trace(void)
{
  static char out[1 << 16];
  char args[1024];
  snprintf(args, sizeof args, "trace record --dataset mbpp --model qwen3-4b --prompts 2 --seed 3 --out '%s/cli.trace'",
           tmp_dir());
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  snprintf(args, sizeof args, "trace info '%s/cli.trace'", tmp_dir());
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "prompts: 2"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "meta draft: eagle3-qwen3-4b"));
  /* the same command twice gives byte-identical files (determinism) */
  snprintf(args, sizeof args, "trace record --dataset mbpp --model qwen3-4b --prompts 2 --seed 3 | cmp - '%s/cli.trace'",
           tmp_dir());
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  const char *p = write_tmp("cli-bad.trace", "leversim-trace 1\nprompt 0 5 1\npos 0 0 1 1.2\nend\n");
  snprintf(args, sizeof args, "trace info '%s'", p);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 65);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "cli-bad.trace:3:11:"));
  CU_ASSERT_EQUAL(ls_test_cli("trace record --dataset nope --model qwen3-4b", out, sizeof out), 66);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "humaneval"));
  CU_ASSERT_EQUAL(ls_test_cli("trace record --dataset iid --model qwen3-4b --set workload.alpah=0.5", out, sizeof out),
                  64);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "workload.alpah"));
  CU_ASSERT_EQUAL(ls_test_cli("trace record --model qwen3-4b", out, sizeof out), 64);
  CU_ASSERT_EQUAL(ls_test_cli("trace frobnicate", out, sizeof out), 64);
  CU_ASSERT_EQUAL(ls_test_cli("trace --help", out, sizeof out), 0);
}

static CU_TestInfo models_tests[] = {{"all load, params match", test_models_load},
                                     {"sizes vs model configs", test_models_sizes},
                                     {"FLOPs vs hand computation", test_models_flops},
                                     {"malformed files located", test_models_errors},
                                     CU_TEST_INFO_NULL};
static CU_TestInfo datasets_tests[] = {{"all load", test_datasets_load},
                                       {"tau ranges and ordering", test_datasets_tau},
                                       {"malformed files located", test_datasets_errors},
                                       CU_TEST_INFO_NULL};
static CU_TestInfo oracle_tests[] = {{"order independence", test_oracle_order},
                                     {"candidates descending at many nodes", test_oracle_candidates_sorted},
                                     {"short requests asked first: the full list's head", test_oracle_short_requests},
                                     {"the regime chain drawn lazily is one chain", test_oracle_regime_lazy},
                                     {"shared quantile tables: same answers, one per process", test_oracle_shared_tables},
                                     {"parent memo and ranks from known candidates", test_oracle_memo},
                                     {"iid alpha over 1e6 draws", test_oracle_iid},
                                     {"positional p_k over 1e6 draws", test_oracle_positional},
                                     {"settings", test_oracle_settings},
                                     {"early-exit AUC", test_oracle_auc},
                                     CU_TEST_INFO_NULL};
static CU_TestInfo traces_tests[] = {{"round trip", test_traces_roundtrip},
                                     {"replay matches the oracle", test_traces_replay},
                                     {"malformed traces located", test_traces_malformed},
                                     {"NUL bytes and carriage returns (fuzz regression)", test_traces_nul_cr},
                                     {"line length bounded before reading (/dev/zero)", test_traces_line_bound},
                                     CU_TEST_INFO_NULL};
static CU_TestInfo cli_tests[] = {{"trace record and info", test_cli_trace}, CU_TEST_INFO_NULL};

static CU_SuiteInfo suites[] = {
    {"models", NULL, NULL, NULL, NULL, models_tests},   {"datasets", NULL, NULL, NULL, NULL, datasets_tests},
    {"oracle", NULL, NULL, NULL, NULL, oracle_tests},   {"traces", NULL, NULL, NULL, NULL, traces_tests},
    {"cli", NULL, NULL, NULL, NULL, cli_tests},         CU_SUITE_INFO_NULL,
};

int main(int argc, char **argv)
{
  int rc = ls_test_main(argc, argv, suites);
  if (tmpdir[0]) { /* remove what the tests wrote */
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
      fprintf(stderr, "could not remove %s\n", tmpdir);
  }
  return rc;
}
