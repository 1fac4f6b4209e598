/* tests/testbed: the testbed's GGUF writer (no library needed) and its llama.cpp driver on
 * the small configuration (8 layers, width 1024: a 180 MB file), which needs the pinned
 * library: the runner fetches it (scripts/testbed/fetch.sh) and, when it cannot, prints a
 * skip and exits 77, which CTest reports as skipped, never as passed.
 * The driver tests check behaviour and exact byte counts, never a time or a ratio of times. */
#define _DEFAULT_SOURCE /* popen */
#include <CUnit/CUnit.h>
#include <dlfcn.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ls_test.h"
#include "runner/testbed/gguf.h"
#include "runner/testbed/llamadrv.h"
#include "devices/cpu.h"
#include "devices/mapread.h"
#include "runner/testbed/calfit.h"
#include "devices/device.h"
#include "workloads/model.h"
#include "runner/decode/paths.h"
#include "runner/decode/cpu_replay.h"

#define PAGE 4096ULL

static char work[1024], lib[1024], small[1200];

/* ---- gguf ---- */

/* Q4_0 by the specification: byte j of the 16 holds weight j (low nibble) and weight j + 16
 * (high nibble), nibble = weight / d + 8, d the fp16 at the front. */
static void test_q4_0_layout(void)
{
  const float d = 0.25f;
  float w[32];
  int q[32];
  for (int j = 0; j < 32; j++) {
    q[j] = (j * 7 + 3) % 16;
    w[j] = d * (float)(q[j] - 8);
  }
  q[5] = 0; /* the extreme, -8 d, sets the scale */
  w[5] = -8 * d;
  uint8_t b[18];
  ls_q4_0_pack(w, b);
  CU_ASSERT_EQUAL(b[0] | (b[1] << 8), ls_gguf_f16(d));
  CU_ASSERT_EQUAL(ls_gguf_f16(d), 0x3400);
  for (int j = 0; j < 16; j++)
    CU_ASSERT_EQUAL(b[2 + j], (uint8_t)(q[j] | (q[j + 16] << 4)));
  float back[32];
  ls_q4_0_unpack(b, back);
  for (int j = 0; j < 32; j++)
    CU_ASSERT_EQUAL(back[j], w[j]);
}

static void test_f16(void)
{
  CU_ASSERT_EQUAL(ls_gguf_f16(1.0f), 0x3c00);
  CU_ASSERT_EQUAL(ls_gguf_f16(-2.0f), 0xc000);
  CU_ASSERT_EQUAL(ls_gguf_f16(65504.0f), 0x7bff);
  CU_ASSERT_EQUAL(ls_gguf_f16(6.103515625e-05f), 0x0400);
  CU_ASSERT_EQUAL(ls_gguf_f16(5.9604644775390625e-08f), 0x0001);
  CU_ASSERT_EQUAL(ls_gguf_f16(0.002f), 0x1819);
  for (unsigned h = 0; h < 0x7c00; h += 37) /* every finite half survives a round trip */
    CU_ASSERT_EQUAL(ls_gguf_f16(ls_gguf_f32((uint16_t)h)), h);
}

static void test_shape(void)
{
  ls_gguf_shape s;
  ls_error err = {0};
  CU_ASSERT_EQUAL(ls_gguf_shape_scaled(LS_TEST_DIR "/..", "llama-3.2-1b", 8, 1024, &s, &err), LS_OK);
  CU_ASSERT_EQUAL(s.n_layers, 8);
  CU_ASSERT_EQUAL(s.hidden, 1024);
  CU_ASSERT_EQUAL(s.n_heads, 16);
  CU_ASSERT_EQUAL(s.n_kv_heads, 4);
  CU_ASSERT_EQUAL(s.ffn, 4096);
  CU_ASSERT_EQUAL(s.vocab, 128256);
  CU_ASSERT_EQUAL(ls_gguf_shape_scaled(LS_TEST_DIR "/..", "llama-3.2-1b", 2, 300, &s, &err), LS_ERANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "multiple of 256"));
}

/* A tiny model written and read back: every tensor where the layout says, aligned, sized by
 * its type, and a Q4_0 block in the file as the specification lays it out. */
static void test_write_read(void)
{
  char path[1200];
  snprintf(path, sizeof path, "%s/tiny.gguf", work);
  ls_gguf_shape s;
  ls_error err = {0};
  CU_ASSERT_EQUAL_FATAL(ls_gguf_shape_scaled(LS_TEST_DIR "/..", "llama-3.2-1b", 2, 256, &s, &err), LS_OK);
  ls_gguf_layout w, r;
  CU_ASSERT_EQUAL_FATAL(ls_gguf_write(path, &s, 7, &w, &err), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_gguf_read_layout(path, &r, &err), LS_OK);
  CU_ASSERT_EQUAL(r.version, 3);
  CU_ASSERT_EQUAL(r.n, 2 * 9 + 2);
  CU_ASSERT_EQUAL(r.n, w.n);
  CU_ASSERT_EQUAL(r.data_start % LS_GGUF_ALIGN, 0);
  CU_ASSERT_EQUAL(r.data_start, w.data_start);
  CU_ASSERT_EQUAL(r.shape.n_layers, 2);
  CU_ASSERT_EQUAL(r.shape.hidden, 256);
  CU_ASSERT_EQUAL(r.shape.vocab, 128256);
  CU_ASSERT_EQUAL(r.shape.tied, 1);
  uint64_t end = r.data_start;
  for (int i = 0; i < r.n; i++) {
    CU_ASSERT_STRING_EQUAL(r.t[i].name, w.t[i].name);
    CU_ASSERT_EQUAL(r.t[i].offset, w.t[i].offset);
    CU_ASSERT_EQUAL(r.t[i].offset % LS_GGUF_ALIGN, 0);
    CU_ASSERT(r.t[i].offset >= end); /* file order, no overlap */
    end = r.t[i].offset + r.t[i].bytes;
  }
  CU_ASSERT_EQUAL(end, r.file_bytes);
  CU_ASSERT_STRING_EQUAL(r.t[0].name, "token_embd.weight");
  CU_ASSERT_EQUAL(r.t[0].type, LS_GGUF_TYPE_Q6_K);
  CU_ASSERT_EQUAL(r.t[0].bytes, 128256ULL * 256 / 256 * 210);
  const ls_gguf_tensor *q = &r.t[2]; /* blk.0.attn_q */
  CU_ASSERT_STRING_EQUAL(q->name, "blk.0.attn_q.weight");
  CU_ASSERT_EQUAL(q->type, LS_GGUF_TYPE_Q4_0);
  CU_ASSERT_EQUAL(q->bytes, 256ULL * 256 / 32 * 18);
  FILE *f = fopen(path, "rb");
  uint8_t blk[18];
  CU_ASSERT_FATAL(f != NULL);
  CU_ASSERT_EQUAL(fseek(f, (long)q->offset, SEEK_SET), 0);
  CU_ASSERT_EQUAL(fread(blk, 1, 18, f), 18);
  fclose(f);
  CU_ASSERT_EQUAL(blk[0] | (blk[1] << 8), ls_gguf_f16(0.002f)); /* the scale first */
  ls_gguf_layout_free(&w);
  ls_gguf_layout_free(&r);
  /* Same seed, same bytes: the file is reproducible. */
  char again[1200];
  snprintf(again, sizeof again, "%s/tiny2.gguf", work);
  CU_ASSERT_EQUAL(ls_gguf_write(again, &s, 7, NULL, &err), LS_OK);
  char cmd[2600];
  snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", path, again);
  CU_ASSERT_EQUAL(system(cmd), 0);
  unlink(again);
}

static void test_bad_files(void)
{
  char path[1200], cut[1200], cmd[2600];
  snprintf(path, sizeof path, "%s/tiny.gguf", work);
  snprintf(cut, sizeof cut, "%s/cut.gguf", work);
  ls_gguf_layout r;
  ls_error err = {0};
  snprintf(cmd, sizeof cmd, "head -c 100000 '%s' > '%s'", path, cut);
  CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
  CU_ASSERT_EQUAL(ls_gguf_read_layout(cut, &r, &err), LS_EPARSE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "truncated"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "byte "));
  snprintf(cmd, sizeof cmd, "printf 'GGUF\\002\\000\\000\\000' > '%s'", cut);
  CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
  CU_ASSERT_EQUAL(ls_gguf_read_layout(cut, &r, &err), LS_EPARSE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "version 2"));
  CU_ASSERT_EQUAL(ls_gguf_write("/nonexistent-dir/x.gguf", &(ls_gguf_shape){1, 256, 256, 4, 1, 64, 300, 1, 4096}, 1,
                                NULL, &err),
                  LS_EIO);
  unlink(cut);
}

/* ---- the command's bad inputs (no library needed: inputs are read before it is loaded) ---- */

static void test_cli_bad_inputs(void)
{
  char out[4096], args[3000], tiny[1200], bad[1200];
  snprintf(tiny, sizeof tiny, "%s/cli-tiny.gguf", work);
  snprintf(bad, sizeof bad, "%s/bad-tree.json", work);
  snprintf(args, sizeof args, "testbed model --model llama-3.2-1b --layers 1 --width 256 --out '%s'", tiny);
  CU_ASSERT_EQUAL_FATAL(ls_test_cli(args, out, sizeof out), 0);
  /* A shape GGUF cannot hold: bad input data, the reason named. */
  CU_ASSERT_EQUAL(ls_test_cli("testbed model --model llama-3.2-1b --width 300 --out /dev/null", out, sizeof out), 65);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "multiple of 256"));
  CU_ASSERT_EQUAL(ls_test_cli("testbed model --model no-such-model --out /dev/null", out, sizeof out), 66);
  /* A model path too long to store is refused before anything is measured, not cut short. */
  char longpath[600];
  memset(longpath, 'm', sizeof longpath - 6);
  strcpy(longpath + sizeof longpath - 6, ".yaml");
  snprintf(args, sizeof args, "testbed measure --lib . --target '%s' --model %s --db /dev/null", tiny, longpath);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 64);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "longer than 511 characters"));
  /* A malformed tree is located (file:line:col) before anything is measured. */
  FILE *f = fopen(bad, "w");
  CU_ASSERT_FATAL(f != NULL);
  fputs("{\"parent\": [-1, 0,\n", f);
  fclose(f);
  snprintf(args, sizeof args, "testbed measure --lib /nonexistent --target '%s' --model llama-3.2-1b --db '%s/x.db' --tree '%s'",
           tiny, work, bad);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 65);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "bad-tree.json:2:"));
  /* A tree whose parents are not before their children. */
  f = fopen(bad, "w");
  CU_ASSERT_FATAL(f != NULL);
  fputs("{\"parent\": [-1, 2, 0]}\n", f);
  fclose(f);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 65);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "$.parent[1]"));
  /* The library folder is checked next: not found. */
  snprintf(args, sizeof args, "testbed measure --lib /nonexistent --target '%s' --model llama-3.2-1b --db '%s/x.db'",
           tiny, work);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 66);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "fetch.sh"));
  /* A missing database is not created. */
  snprintf(args, sizeof args, "testbed validate --db '%s/none.db' --profile oneplus-12", work);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 66);
  snprintf(args, sizeof args, "%s/none.db", work);
  CU_ASSERT_NOT_EQUAL(access(args, F_OK), 0);
  /* Options: a misspelt one and a missing required one are usage errors. */
  CU_ASSERT_EQUAL(ls_test_cli("testbed validate --db x.db --profil p", out, sizeof out), 64);
  CU_ASSERT_EQUAL(ls_test_cli("testbed measure --lib x", out, sizeof out), 64);
  unlink(tiny);
  unlink(bad);
}

/* The committed full run (results/testbed/) validated under both statistics: a point's value is
 * the fastest or the median of its repetitions, the same for the stream that sets the mapped
 * read rate. Cold N = 1's three repetitions there are 0.540, 0.557 and 0.620 s (run F). */
static double printed_measured(const char *out, const char *kind, int n)
{
  char key[64];
  snprintf(key, sizeof key, "\n%-10s %5d ", kind, n);
  const char *at = strstr(out, key);
  double ctx = 0, meas = NAN;
  if (at && sscanf(at + strlen(key), "%lf %lf", &ctx, &meas) != 2)
    meas = NAN;
  return meas;
}

/* A committed run's folder (rel, from the tests' folder) into dir, and a copy of its database
 * at work/name into db (validate stores its predictions, so it runs on a copy); 0 on success. */
static int copy_run(const char *rel, const char *name, char *dir, size_t dn, char *db, size_t dbn)
{
  char args[4096];
  ls_test_path(dir, (unsigned)dn, rel);
  snprintf(db, dbn, "%s/%s", work, name);
  snprintf(args, sizeof args, "cp '%s/testbed.db' '%s'", dir, db);
  return system(args);
}

static void test_cli_validate_stat(void)
{
  static char out[16384];
  char args[4096], db[1200], dir[1200];
  CU_ASSERT_EQUAL_FATAL(copy_run("../results/testbed", "stat.db", dir, sizeof dir, db, sizeof db), 0);
  double cold1[4], spec[4], med[4] = {NAN, NAN, NAN, NAN};
  /* the last: no --stat at all, which is matched (since 2026-11-27, §3.15) */
  static const char *const stat[4] = {"--stat fastest", "--stat median", "--stat matched", ""};
  static const char *const said[4] = {"fastest of the repetitions", "median of the repetitions",
                                      "fastest (storage: expected fastest of as many) of the repetitions",
                                      "fastest (storage: expected fastest of as many) of the repetitions"};
  for (int median = 0; median < 4; median++) {
    snprintf(args, sizeof args, "testbed validate --db '%s' --profile '%s/testbed-vm.yaml' --fio-mmap '%s/fio-mmap.json' "
             "--io-share measured %s", db, dir, dir, stat[median]);
    CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, said[median]));
    cold1[median] = printed_measured(out, "cold", 1);
    spec[median] = printed_measured(out, "spec", 48);
    const char *m = strstr(out, "median absolute error ");
    if (m)
      sscanf(m + strlen("median absolute error "), "%lf", &med[median]);
  }
  /* docs/VALIDATION.md §3.8 quotes these (run F): the median statistic lowers this run's median
   * error (its fastest stream repetition, 0.425 s, is an outlier) */
  LS_ASSERT_CLOSE(med[0], 14.1, 1e-3);
  LS_ASSERT_CLOSE(med[1], 6.5, 1e-3);
  LS_ASSERT_CLOSE(cold1[0], 0.540, 2e-3);
  LS_ASSERT_CLOSE(cold1[1], 0.557, 2e-3);
  CU_ASSERT(spec[1] > spec[0]); /* a sum of per-pass medians exceeds the sum of their minima */
  /* §3.9's matched statistic: the points as the fastest, the stream (0.79, 0.552, 0.521, 0.484,
   * 0.697, 0.425, 0.474 s) at the expected fastest of 3 of its 7: 0.461 s; the median 9.3 % */
  LS_ASSERT_CLOSE(med[2], 9.3, 1e-3);
  LS_ASSERT_CLOSE(med[3], 9.3, 1e-3);
  LS_ASSERT_CLOSE(spec[3], spec[2], 1e-9);
  LS_ASSERT_CLOSE(cold1[2], cold1[0], 1e-9);
  CU_ASSERT(strstr(out, "streamed in 0.461 s") != NULL);
  CU_ASSERT_EQUAL(ls_test_cli("testbed validate --db x.db --profile p --stat mean", out, sizeof out), 64);
  unlink(db);
}

/* Runs H and I (results/testbed/run-h/, run-i/), as docs/VALIDATION.md §3.10 and §3.11 quote
 * them: the same code half an hour apart. H: the head's share 0.606, median 7.6 % and spec
 * -13.1 % with --stat fastest, 5.6 % and -9.9 % (every target met) by default (matched), 7.3 % /
 * -18.5 % with the head's share off. I: share 0.000, 7.6 % / -23.1 %, and -20.9 % matched (not
 * met). Run G at fastest, and in G, H and I the verification pass against the cold pass of its 5
 * tokens (§3.11): measured 0.083 to 0.102 s beyond it, predicted 0.012 to 0.034 s. */
typedef struct run_case {
  const char *run, *extra, *share;
  double median, spec;
  int met;
  const char *gap; /* the spec verification line's numbers (§3.11), NULL: not checked */
} run_case;

/* Validates a copy of a committed run's database as the case says and checks what it prints. */
static void check_run_case(const run_case *c)
{
  static char out[16384];
  char args[4096], db[1200], dir[1200], rel[64];
  snprintf(rel, sizeof rel, "../results/testbed/%s", c->run);
  CU_ASSERT_EQUAL_FATAL(copy_run(rel, "run-hi.db", dir, sizeof dir, db, sizeof db), 0);
  /* The sections these cases come from (§3.10 to §3.15) predate the wait at a pass's start
   * (§3.16), and those up to §3.17 the share slowing only a read waited for (§3.18): without
   * them, as they were made, unless the case says otherwise. */
  snprintf(args, sizeof args, "testbed validate --db '%s' --profile '%s/testbed-vm.yaml' --fio-mmap '%s/fio-mmap.json' %s%s%s%s",
           db, dir, dir, c->extra, strstr(c->extra, "--start") ? "" : " --start off",
           strstr(c->extra, "--io-rule") ? "" : " --io-rule every",
           strstr(c->extra, "--io-share") ? "" : " --io-share measured"); /* the busy share: off by default since issue 32 */
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  double med = NAN, e = NAN, ig;
  const char *m = strstr(out, "median absolute error ");
  if (m)
    sscanf(m + strlen("median absolute error "), "%lf", &med);
  const char *sp = strstr(out, "\nspec ");
  if (sp) /* the printed error, as the docs quote it */
    sscanf(sp + 1, "spec %lf %lf %lf %lf %lf%%", &ig, &ig, &ig, &ig, &e);
  LS_ASSERT_CLOSE(med, c->median, 1e-3);
  CU_ASSERT_DOUBLE_EQUAL(e, c->spec, 1e-6);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, c->met ? "spec <= 10 %): met" : "spec <= 10 %): NOT met"));
  if (c->share)
    CU_ASSERT_PTR_NOT_NULL(strstr(out, c->share));
  if (c->gap) {
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "spec verification: 18 passes of 5 tokens (5 output rows, context 31 to 78): "));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, c->gap));
  }
  if (!strcmp(c->run, "run-j") && !strcmp(c->extra, "--stat fastest")) /* the verification's shape passes (§3.12) */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "verification's shape: 5 tokens cold, 0.2863 s with the last row at context 0 "
                                       "(predicted 0.2706 s); every row +0.0057 s (predicted +0.0101 s); context 56 "
                                       "+0.0053 s (predicted +0.0003 s)"));
  unlink(db);
}

static void test_cli_validate_runs_h_i(void)
{
  static const run_case cases[] = {
      {"run-h", "--stat fastest", "share after it 0.606", 7.6, -13.1, 0,
       "0.6199 s measured a pass, +0.1020 s beyond the cold pass of 5 tokens (1 row, context 0); predicted 0.5273 s, +0.0335 s"},
      {"run-h", "", NULL, 5.6, -9.9, 1, NULL},
      {"run-h", "--stat fastest --head-serial off", NULL, 7.3, -18.5, 0, NULL},
      {"run-i", "--stat fastest", "share after it 0.000", 7.6, -23.1, 0,
       "0.7023 s measured a pass, +0.0867 s beyond the cold pass of 5 tokens (1 row, context 0); predicted 0.5281 s, +0.0124 s"},
      {"run-i", "", NULL, 8.3, -20.9, 0, NULL},
      {"run-g", "--stat fastest", NULL, 16.3, -24.0, 0,
       "0.6660 s measured a pass, +0.0832 s beyond the cold pass of 5 tokens (1 row, context 0); predicted 0.4804 s, +0.0143 s"},
      /* run J (§3.12, §3.14): the AMD host, the one-token kernel's rate, the tiles' remainder */
      {"run-j", "--stat fastest", "share after it 0.000", 7.2, -6.4, 0,
       "0.3067 s measured a pass, +0.0183 s beyond the cold pass of 5 tokens (1 row, context 0); predicted 0.2809 s, +0.0103 s"},
      {"run-j", "", NULL, 6.9, -5.8, 1, NULL},
      /* runs K and L (§3.13): the memory-bound busy streams' share by default, the arithmetic
       * one's beside it, each at --stat fastest, and the default (matched) statistic */
      {"run-k", "--stat fastest", "(io_cpu_share): 0.341, from 3 memory-bound busy streams", 9.6, -7.6, 1, NULL},
      {"run-k", "--stat fastest --io-share arithmetic", "(io_cpu_share): 0.272, from 3 busy streams", 11.7, -9.2, 0, NULL},
      {"run-k", "", NULL, 7.8, -4.7, 1, NULL},
      {"run-l", "--stat fastest", "(io_cpu_share): 0.510, from 3 memory-bound busy streams", 7.1, -10.4, 0, NULL},
      {"run-l", "--stat fastest --io-share arithmetic", "(io_cpu_share): 0.263, from 3 busy streams", 16.1, -23.2, 0, NULL},
      {"run-l", "", NULL, 5.6, -7.2, 1, NULL},
      /* run M (§3.14): the final code, half an hour after run L */
      {"run-m", "--stat fastest", "(io_cpu_share): 0.403, from 3 memory-bound busy streams", 10.1, -11.6, 0, NULL},
      {"run-m", "--stat fastest --io-share arithmetic", "(io_cpu_share): 0.233, from 3 busy streams", 13.7, -18.5, 0, NULL},
      {"run-m", "", NULL, 9.8, -2.1, 1, NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    check_run_case(&cases[i]);
}

/* Runs N to AE (docs/VALIDATION.md §3.15), validated with the final code by default (matched):
 * the median, the speculative error and whether all three targets are met, as §3.15's table
 * gives them; for N, O and P also the memory-bound share and the measured verification a pass. */
static void test_cli_validate_runs_n_ae(void)
{
  static const run_case cases[] = {
      {"run-n", "", "(io_cpu_share): 0.283,", 12.1, -13.4, 0, "0.3408 s measured a pass"},
      {"run-o", "", "(io_cpu_share): 0.536,", 3.2, 1.5, 1, "0.3323 s measured a pass"},
      {"run-p", "", "(io_cpu_share): 0.689,", 8.8, 20.2, 0, "0.3233 s measured a pass"},
      {"run-q", "", NULL, 3.8, -12.8, 0, NULL},
      {"run-r", "", NULL, 3.9, -4.0, 1, NULL},
      {"run-s", "", NULL, 3.0, -1.1, 1, NULL},
      {"run-t", "", NULL, 5.1, 4.4, 1, NULL},
      {"run-u", "", NULL, 4.7, 6.0, 1, NULL},
      {"run-v", "", NULL, 5.3, 0.3, 1, NULL},
      {"run-w", "", NULL, 8.0, -4.5, 1, NULL},
      {"run-x", "", NULL, 5.6, -23.3, 0, NULL},
      {"run-y", "", NULL, 5.1, -9.2, 0, NULL},
      {"run-z", "", "(io_cpu_share): 0.816,", 11.2, 33.8, 0, NULL},
      {"run-aa", "", NULL, 3.2, 3.0, 1, NULL},
      {"run-ab", "", NULL, 7.6, -17.0, 0, NULL},
      {"run-ac", "", "(io_cpu_share): 0.230,", 7.0, -14.6, 0, NULL},
      {"run-ad", "", "(io_cpu_share): 0.372,", 2.8, 0.3, 1, NULL},
      {"run-ae", "", "(io_cpu_share): 0.524,", 5.0, 10.2, 0, NULL},
      {"run-ae", "--stat fastest", NULL, 4.8, 8.5, 1, NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    check_run_case(&cases[i]);
}

/* §3.16: every run with rows-0 passes (H to AI, and AJ of §3.17) validated four ways, as §3.16's table gives them:
 * the default with the wait at a pass's start (and that wait), the model of §3.15 (--start off),
 * the start without the share (--io-share off), and the share from the cold pass without rows
 * as it was tried before the start (--io-share pass --start off); and the busy streams described
 * by a delay per window instead of a share (--io-share delay), with the delay each run gives. */
static void test_cli_validate_start(void)
{
  static const run_case cases[] = {
      {"run-h", "--start measured", "wait at the start 0.0262 s", 6.3, -6.2, 1, NULL},
      {"run-h", "--start off", NULL, 5.6, -9.9, 1, NULL},
      {"run-h", "--start measured --io-share off", NULL, 6.5, -13.9, 0, NULL},
      {"run-h", "--io-share pass --start off", NULL, 9.2, -17.6, 0, NULL},
      {"run-i", "--start measured", "wait at the start 0.0276 s", 8.6, -17.5, 0, NULL},
      {"run-i", "--start off", NULL, 8.3, -20.9, 0, NULL},
      {"run-i", "--start measured --io-share off", NULL, 9.2, -28.5, 0, NULL},
      {"run-i", "--io-share pass --start off", NULL, 8.4, -10.1, 0, NULL},
      {"run-j", "--start measured", "wait at the start 0.0495 s", 9.2, 9.3, 1, NULL},
      {"run-j", "--start off", NULL, 6.9, -5.8, 1, NULL},
      {"run-j", "--start measured --io-share off", NULL, 10.1, 6.6, 0, NULL},
      {"run-j", "--io-share pass --start off", NULL, 7.6, 25.6, 0, NULL},
      {"run-k", "--start measured", "wait at the start 0.0518 s", 8.0, 10.3, 0, NULL},
      {"run-k", "--start off", NULL, 7.8, -4.7, 1, NULL},
      {"run-k", "--start measured --io-share off", NULL, 6.2, 2.2, 1, NULL},
      {"run-k", "--io-share pass --start off", NULL, 7.3, 19.6, 0, NULL},
      {"run-l", "--start measured", "wait at the start 0.0345 s", 7.1, 1.2, 1, NULL},
      {"run-l", "--start off", NULL, 5.6, -7.2, 1, NULL},
      {"run-l", "--start measured --io-share off", NULL, 9.6, -17.2, 0, NULL},
      {"run-l", "--io-share pass --start off", NULL, 6.3, 0.9, 1, NULL},
      {"run-m", "--start measured", "wait at the start 0.0000 s", 9.8, -2.1, 1, NULL},
      {"run-m", "--start off", NULL, 9.8, -2.1, 1, NULL},
      {"run-m", "--start measured --io-share off", NULL, 15.4, -21.3, 0, NULL},
      {"run-m", "--io-share pass --start off", NULL, 8.4, 4.1, 1, NULL},
      {"run-n", "--start measured", "wait at the start 0.0370 s", 5.9, -3.3, 1, NULL},
      {"run-n", "--start off", NULL, 12.1, -13.4, 0, NULL},
      {"run-n", "--start measured --io-share off", NULL, 7.7, -3.6, 1, NULL},
      {"run-n", "--io-share pass --start off", NULL, 7.8, 5, 1, NULL},
      {"run-o", "--start measured", "wait at the start 0.0362 s", 11.1, 11.6, 0, NULL},
      {"run-o", "--start off", NULL, 3.2, 1.5, 1, NULL},
      {"run-o", "--start measured --io-share off", NULL, 3.9, -0.9, 1, NULL},
      {"run-o", "--io-share pass --start off", NULL, 5.3, 7.7, 1, NULL},
      {"run-p", "--start measured", "wait at the start 0.0079 s", 11.4, 22.5, 0, NULL},
      {"run-p", "--start off", NULL, 8.8, 20.2, 0, NULL},
      {"run-p", "--start measured --io-share off", NULL, 5.8, 3, 1, NULL},
      {"run-p", "--io-share pass --start off", NULL, 8.5, 19.5, 0, NULL},
      {"run-q", "--start measured", "wait at the start 0.0270 s", 7.3, -5.5, 0, NULL},
      {"run-q", "--start off", NULL, 3.8, -12.8, 0, NULL},
      {"run-q", "--start measured --io-share off", NULL, 7.1, -6.1, 0, NULL},
      {"run-q", "--io-share pass --start off", NULL, 14.8, 13.9, 0, NULL},
      {"run-r", "--start measured", "wait at the start 0.0335 s", 9.3, 6.2, 1, NULL},
      {"run-r", "--start off", NULL, 3.9, -4, 1, NULL},
      {"run-r", "--start measured --io-share off", NULL, 7.8, 1.1, 1, NULL},
      {"run-r", "--io-share pass --start off", NULL, 14.1, 24, 0, NULL},
      {"run-s", "--start measured", "wait at the start 0.0401 s", 11.9, 11.7, 0, NULL},
      {"run-s", "--start off", NULL, 3.0, -1.1, 1, NULL},
      {"run-s", "--start measured --io-share off", NULL, 11.9, 11.7, 0, NULL},
      {"run-s", "--io-share pass --start off", NULL, 13.6, 29.1, 0, NULL},
      {"run-t", "--start measured", "wait at the start 0.0297 s", 6.2, 13, 0, NULL},
      {"run-t", "--start off", NULL, 5.1, 4.4, 1, NULL},
      {"run-t", "--start measured --io-share off", NULL, 7.6, 8.9, 1, NULL},
      {"run-t", "--io-share pass --start off", NULL, 4.3, 17.4, 0, NULL},
      {"run-u", "--start measured", "wait at the start 0.0546 s", 10.6, 23.3, 0, NULL},
      {"run-u", "--start off", NULL, 4.7, 6, 1, NULL},
      {"run-u", "--start measured --io-share off", NULL, 7.8, 15.6, 0, NULL},
      {"run-u", "--io-share pass --start off", NULL, 6.0, 27, 0, NULL},
      {"run-v", "--start measured", "wait at the start 0.0220 s", 4.4, 6.6, 1, NULL},
      {"run-v", "--start off", NULL, 5.3, 0.3, 1, NULL},
      {"run-v", "--start measured --io-share off", NULL, 7.5, -8.1, 1, NULL},
      {"run-v", "--io-share pass --start off", NULL, 3.6, 9, 1, NULL},
      {"run-w", "--start measured", "wait at the start 0.0121 s", 6.9, -1.8, 1, NULL},
      {"run-w", "--start off", NULL, 8.0, -4.5, 1, NULL},
      {"run-w", "--start measured --io-share off", NULL, 6.1, -20.6, 0, NULL},
      {"run-w", "--io-share pass --start off", NULL, 8.5, -3.7, 1, NULL},
      {"run-x", "--start measured", "wait at the start 0.0340 s", 6.8, -15.3, 0, NULL},
      {"run-x", "--start off", NULL, 5.6, -23.3, 0, NULL},
      {"run-x", "--start measured --io-share off", NULL, 7.7, -15.7, 0, NULL},
      {"run-x", "--io-share pass --start off", NULL, 6.8, -5.6, 1, NULL},
      {"run-y", "--start measured", "wait at the start 0.0637 s", 9.4, 8.1, 1, NULL},
      {"run-y", "--start off", NULL, 5.1, -9.2, 0, NULL},
      {"run-y", "--start measured --io-share off", NULL, 6.6, -0.3, 1, NULL},
      {"run-y", "--io-share pass --start off", NULL, 12.4, 15.3, 0, NULL},
      {"run-z", "--start measured", "wait at the start 0.0000 s", 11.2, 33.8, 0, NULL},
      {"run-z", "--start off", NULL, 11.2, 33.8, 0, NULL},
      {"run-z", "--start measured --io-share off", NULL, 6.5, 6.7, 0, NULL},
      {"run-z", "--io-share pass --start off", NULL, 11.7, 1.9, 0, NULL},
      {"run-aa", "--start measured", "wait at the start 0.0283 s", 4.6, 10.9, 0, NULL},
      {"run-aa", "--start off", NULL, 3.2, 3, 1, NULL},
      {"run-aa", "--start measured --io-share off", NULL, 6.4, 8, 1, NULL},
      {"run-aa", "--io-share pass --start off", NULL, 3.4, 14.3, 0, NULL},
      {"run-ab", "--start measured", "wait at the start 0.0439 s", 9.1, -7.3, 1, NULL},
      {"run-ab", "--start off", NULL, 7.6, -17, 0, NULL},
      {"run-ab", "--start measured --io-share off", NULL, 6.7, -24, 0, NULL},
      {"run-ab", "--io-share pass --start off", NULL, 10.1, -7.3, 0, NULL},
      {"run-ac", "--start measured", "wait at the start 0.0262 s", 2.0, -6.5, 1, NULL},
      {"run-ac", "--start off", NULL, 7.0, -14.6, 0, NULL},
      {"run-ac", "--start measured --io-share off", NULL, 1.6, -9.3, 1, NULL},
      {"run-ac", "--io-share pass --start off", NULL, 3.5, 9.6, 1, NULL},
      {"run-ad", "--start measured", "wait at the start 0.0239 s", 4.6, 8, 1, NULL},
      {"run-ad", "--start off", NULL, 2.8, 0.3, 1, NULL},
      {"run-ad", "--start measured --io-share off", NULL, 4.9, 3.5, 1, NULL},
      {"run-ad", "--io-share pass --start off", NULL, 2.9, 15.1, 0, NULL},
      {"run-ae", "--start measured", "wait at the start 0.0231 s", 7.0, 17.6, 0, NULL},
      {"run-ae", "--start off", NULL, 5.0, 10.2, 0, NULL},
      {"run-ae", "--start measured --io-share off", NULL, 2.5, 1.2, 1, NULL},
      {"run-ae", "--io-share pass --start off", NULL, 3.1, 16, 0, NULL},
      {"run-af", "--start measured", "wait at the start 0.0210 s", 5.5, 15.9, 0, NULL},
      {"run-af", "--start off", NULL, 3.1, 9.3, 1, NULL},
      {"run-af", "--start measured --io-share off", NULL, 6.1, 5.4, 1, NULL},
      {"run-af", "--io-share pass --start off", NULL, 4.5, 18.2, 0, NULL},
      {"run-ag", "--start measured", "wait at the start 0.0259 s", 6.5, -0.3, 1, NULL},
      {"run-ag", "--start off", NULL, 2.5, -7.8, 1, NULL},
      {"run-ag", "--start measured --io-share off", NULL, 6.9, -3.1, 1, NULL},
      {"run-ag", "--io-share pass --start off", NULL, 8.4, 9.5, 1, NULL},
      {"run-ah", "--start measured", "wait at the start 0.0216 s", 2.8, -3, 1, NULL},
      {"run-ah", "--start off", NULL, 5.0, -8.9, 1, NULL},
      {"run-ah", "--start measured --io-share off", NULL, 3.7, -14.4, 0, NULL},
      {"run-ah", "--io-share pass --start off", NULL, 4.2, 4.3, 1, NULL},
      {"run-ai", "--start measured", "wait at the start 0.0201 s", 4.9, 1.1, 1, NULL},
      {"run-ai", "--start off", NULL, 7.3, -4.1, 1, NULL},
      {"run-ai", "--start measured --io-share off", NULL, 7.4, -10.9, 0, NULL},
      {"run-ai", "--io-share pass --start off", NULL, 7.3, -1, 1, NULL},
      {"run-h", "--start measured --io-share delay", "(io_delay_s): 0.80 ms", 7.3, -4.8, 0, NULL},
      {"run-i", "--start measured --io-share delay", "(io_delay_s): 0.87 ms", 8.7, -18.6, 0, NULL},
      {"run-j", "--start measured --io-share delay", "(io_delay_s): 0.30 ms", 10.7, 7.8, 0, NULL},
      {"run-k", "--start measured --io-share delay", "(io_delay_s): 0.60 ms", 9.1, 5.9, 1, NULL},
      {"run-l", "--start measured --io-share delay", "(io_delay_s): 0.86 ms", 4.5, -13.1, 0, NULL},
      {"run-m", "--start measured --io-share delay", "(io_delay_s): 1.11 ms", 8.1, -13.7, 0, NULL},
      {"run-n", "--start measured --io-share delay", "(io_delay_s): 0.52 ms", 7.0, -1.2, 1, NULL},
      {"run-o", "--start measured --io-share delay", "(io_delay_s): 0.85 ms", 6.5, 3.1, 0, NULL},
      {"run-p", "--start measured --io-share delay", "(io_delay_s): 1.42 ms", 23.9, 25.4, 0, NULL},
      {"run-q", "--start measured --io-share delay", "(io_delay_s): 0.00 ms", 7.1, -6.1, 0, NULL},
      {"run-r", "--start measured --io-share delay", "(io_delay_s): 0.14 ms", 8.8, 2.2, 0, NULL},
      {"run-s", "--start measured --io-share delay", "(io_delay_s): 0.00 ms", 11.9, 11.7, 0, NULL},
      {"run-t", "--start measured --io-share delay", "(io_delay_s): 0.57 ms", 6.7, 11.7, 0, NULL},
      {"run-u", "--start measured --io-share delay", "(io_delay_s): 0.64 ms", 9.4, 19.1, 0, NULL},
      {"run-v", "--start measured --io-share delay", "(io_delay_s): 0.81 ms", 5.0, -2.2, 0, NULL},
      {"run-w", "--start measured --io-share delay", "(io_delay_s): 1.08 ms", 6.9, -8.5, 0, NULL},
      {"run-x", "--start measured --io-share delay", "(io_delay_s): 0.40 ms", 7.9, -14.2, 0, NULL},
      {"run-y", "--start measured --io-share delay", "(io_delay_s): 0.71 ms", 10.2, 4.5, 0, NULL},
      {"run-z", "--start measured --io-share delay", "(io_delay_s): 1.73 ms", 6.0, 15.8, 0, NULL},
      {"run-aa", "--start measured --io-share delay", "(io_delay_s): 0.69 ms", 5.9, 11.2, 0, NULL},
      {"run-ab", "--start measured --io-share delay", "(io_delay_s): 0.61 ms", 13.8, -16.4, 0, NULL},
      {"run-ac", "--start measured --io-share delay", "(io_delay_s): 0.43 ms", 4.2, -5.9, 1, NULL},
      {"run-ad", "--start measured --io-share delay", "(io_delay_s): 0.69 ms", 6.5, 7.3, 1, NULL},
      {"run-ae", "--start measured --io-share delay", "(io_delay_s): 0.88 ms", 7.3, 7.7, 1, NULL},
      {"run-af", "--start measured --io-share delay", "(io_delay_s): 0.78 ms", 8.7, 9.5, 1, NULL},
      {"run-ag", "--start measured --io-share delay", "(io_delay_s): 0.64 ms", 9.3, 0, 1, NULL},
      {"run-ah", "--start measured --io-share delay", "(io_delay_s): 0.61 ms", 4.6, -10.3, 0, NULL},
      {"run-ai", "--start measured --io-share delay", "(io_delay_s): 0.94 ms", 7.9, -6.8, 0, NULL},
      /* §3.17: runs AJ to AM, published with the remainder's own rate, the same five ways */
      {"run-aj", "--start measured", "wait at the start 0.0281 s", 5.8, 14.9, 0, NULL},
      {"run-aj", "--start off", NULL, 2.5, 6.2, 1, NULL},
      {"run-aj", "--start measured --io-share off", NULL, 2.1, 2.0, 1, NULL},
      {"run-aj", "--io-share pass --start off", NULL, 3.3, 14.5, 0, NULL},
      {"run-aj", "--start measured --io-share delay", "(io_delay_s): 0.82 ms", 4.1, 6.4, 0, NULL},
      /* and run AK, made after it */
      {"run-ak", "--start measured", "wait at the start 0.0183 s", 3.9, 5.3, 1, NULL},
      {"run-ak", "--start off", NULL, 6.9, -0.1, 1, NULL},
      {"run-ak", "--start measured --io-share off", NULL, 5.6, 4.7, 1, NULL},
      {"run-ak", "--io-share pass --start off", NULL, 9.4, -0.6, 1, NULL},
      {"run-ak", "--start measured --io-share delay", "(io_delay_s): 0.62 ms", 5.2, 7.8, 1, NULL},
      /* and runs AL and AM, made after it */
      {"run-al", "--start measured", "wait at the start 0.0188 s", 2.6, 3.0, 1, NULL},
      {"run-al", "--start off", NULL, 3.3, -2.9, 1, NULL},
      {"run-al", "--start measured --io-share off", NULL, 1.8, -1.0, 1, NULL},
      {"run-al", "--io-share pass --start off", NULL, 3.2, 12.9, 0, NULL},
      {"run-al", "--start measured --io-share delay", "(io_delay_s): 0.52 ms", 2.0, 1.8, 1, NULL},
      {"run-am", "--start measured", "wait at the start 0.0188 s", 2.7, 3.9, 1, NULL},
      {"run-am", "--start off", NULL, 4.4, -1.5, 1, NULL},
      {"run-am", "--start measured --io-share off", NULL, 4.1, -7.0, 1, NULL},
      {"run-am", "--io-share pass --start off", NULL, 4.2, 8.4, 1, NULL},
      {"run-am", "--start measured --io-share delay", "(io_delay_s): 0.78 ms", 2.7, -2.4, 1, NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    check_run_case(&cases[i]);
}

/* §3.15: the memory-bound share is steady within a run. Fitted from the busy streams' first
 * four repetitions (the rest deleted from a copy) and from their last four, runs AC, AD and AE
 * give 0.245 / 0.220, 0.359 / 0.392 and 0.480 / 0.543, against 0.230 to 0.524 between runs. */
static void test_cli_share_halves(void)
{
  static const struct { const char *run, *keep_early, *keep_late; } cases[] = {
      {"run-ac", "(io_cpu_share): 0.245,", "(io_cpu_share): 0.220,"},
      {"run-ad", "(io_cpu_share): 0.359,", "(io_cpu_share): 0.392,"},
      {"run-ae", "(io_cpu_share): 0.480,", "(io_cpu_share): 0.543,"},
  };
  static char out[16384];
  char args[4096], db[1200], dir[1200], rel[64], sql[256];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (int late = 0; late < 2; late++) {
      snprintf(rel, sizeof rel, "../results/testbed/%s", cases[i].run);
      CU_ASSERT_EQUAL_FATAL(copy_run(rel, "halves.db", dir, sizeof dir, db, sizeof db), 0);
      sqlite3 *h = NULL;
      snprintf(sql, sizeof sql, "DELETE FROM tb_pass WHERE kind IN ('stream-busy', 'stream-busy-mem', 'busy-warm', "
               "'busy-mem-warm') AND %s", late ? "rep <= 2" : "rep >= 4");
      CU_ASSERT_EQUAL_FATAL(sqlite3_open(db, &h), SQLITE_OK);
      CU_ASSERT_EQUAL(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
      CU_ASSERT_EQUAL(sqlite3_changes(h), 4 * 3 * 3); /* 4 kinds x 3 levels x 3 repetitions */
      sqlite3_close(h);
      /* fitted as §3.15 fitted them: the share slowing every read (before §3.18) */
      snprintf(args, sizeof args, "testbed validate --db '%s' --profile '%s/testbed-vm.yaml' --fio-mmap '%s/fio-mmap.json' "
               "--io-rule every --io-share measured", db, dir, dir);
      CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
      CU_ASSERT_PTR_NOT_NULL(strstr(out, late ? cases[i].keep_late : cases[i].keep_early));
      unlink(db);
    }
}

/* ---- mapread (devices/mapread) ---- */

static ls_flash_params flash_1gbs(void)
{
  ls_flash_params f;
  memset(&f, 0, sizeof f);
  f.link_bandwidth = 1e9;
  f.efficiency[0] = f.efficiency[1] = 1.0;
  f.path = LS_PATH_PAGE_CACHE;
  f.chunk_bytes = 128 * 1024;
  f.queue_depth = 1;
  f.latency.kind = LS_LAT_PARAMETRIC; /* about no latency: the arithmetic below is link time */
  f.latency.median_s = 1e-12;
  f.latency.sigma = 0.01;
  f.latency.tail_start_s = 1;
  f.latency.tail_alpha = 2;
  return f;
}

/* No compute: the windows are read back to back; all compute: one window, then compute; in
 * between, never below max(read, compute) nor above read + compute. */
static void test_mapread(void)
{
  ls_flash_params f = flash_1gbs();
  ls_mapread_params m = {8e6, 0.75, 0, 0, 0, 0, 0, 0};
  ls_mapread_seg io[2] = {{40e6, 0, 0}, {40e6, 0, 0}};
  CU_ASSERT(fabs(ls_mapread_time_s(&f, &m, io, 2) - 0.080) < 1e-6);
  ls_mapread_seg cpu[1] = {{8e6, 1.0, 0}};
  CU_ASSERT(fabs(ls_mapread_time_s(&f, &m, cpu, 1) - 1.008) < 1e-6);
  ls_mapread_seg mix[4] = {{16e6, 0.010, 0}, {16e6, 0.010, 0}, {16e6, 0.010, 0}, {16e6, 0.010, 0}};
  double t = ls_mapread_time_s(&f, &m, mix, 4), serial = ls_mapread_serial_s(&f, mix, 4);
  CU_ASSERT(t >= 0.064 - 1e-9 && t <= serial + 1e-9);
  CU_ASSERT(fabs(serial - 0.104) < 1e-6);
  /* Read-ahead hides reading behind compute: a later trigger overlaps less. */
  ls_mapread_params late = {8e6, 1.0, 0, 0, 0, 0, 0, 0};
  CU_ASSERT(ls_mapread_time_s(&f, &late, mix, 4) >= t);
  /* Fault CPU adds to compute. */
  ls_mapread_params fault = {8e6, 0.75, 1e-9, 0, 0, 0, 0, 0};
  CU_ASSERT(fabs(ls_mapread_time_s(&f, &fault, cpu, 1) - 1.016) < 1e-6);
  /* A wait at the start delays everything after it: read-bound and compute-bound alike, the
   * pass takes start_s more; a negative one counts as none. */
  ls_mapread_params st = {8e6, 0.75, 0, 0, 0.025, 0, 0, 0}, neg = {8e6, 0.75, 0, 0, -1, 0, 0, 0};
  CU_ASSERT(fabs(ls_mapread_time_s(&f, &st, io, 2) - 0.105) < 1e-6);
  CU_ASSERT(fabs(ls_mapread_time_s(&f, &st, cpu, 1) - 1.033) < 1e-6);
  CU_ASSERT(fabs(ls_mapread_time_s(&f, &st, mix, 4) - (t + 0.025)) < 1e-6);
  CU_ASSERT(fabs(ls_mapread_time_s(&f, &neg, mix, 4) - t) < 1e-12);
}

/* Read-ahead in closed form (devices/mapread.c's recurrence): eight windows of 8 MB, each read
 * in 8 ms at 1 GB/s. Read-bound (5 ms of compute a window): with trigger 0 the next read is
 * issued as a window's compute starts, the reads run back to back, 8 x 8 + 5 = 69 ms; with
 * trigger 0.75 it waits for 3.75 ms of that compute, 8 + 7 x 11.75 + 5 = 95.25 ms. Compute-bound
 * (20 ms a window): trigger 0 hides every read but the first, 8 + 8 x 20 = 168 ms; trigger 0.75
 * issues each read 15 ms into the previous compute, so every window after the first waits 3 ms
 * for its read, 8 + 7 x 23 + 20 = 189 ms. A read is never issued before the previous one is in,
 * and compute never starts before its window is. */
static void test_mapread_readahead_closed_form(void)
{
  ls_flash_params f = flash_1gbs();
  ls_mapread_params t0 = {8e6, 0, 0, 0, 0, 0, 0, 0}, t75 = {8e6, 0.75, 0, 0, 0, 0, 0, 0};
  ls_mapread_seg rb[4], cb[4];
  for (int i = 0; i < 4; i++) {
    rb[i] = (ls_mapread_seg){16e6, 0.010, 0};
    cb[i] = (ls_mapread_seg){16e6, 0.040, 0};
  }
  CU_ASSERT(fabs(ls_mapread_time_s(&f, &t0, rb, 4) - 0.069) < 1e-6);
  CU_ASSERT(fabs(ls_mapread_time_s(&f, &t75, rb, 4) - 0.09525) < 1e-6);
  CU_ASSERT(fabs(ls_mapread_time_s(&f, &t0, cb, 4) - 0.168) < 1e-6);
  CU_ASSERT(fabs(ls_mapread_time_s(&f, &t75, cb, 4) - 0.189) < 1e-6);
}

/* The read path's work beside the compute (contend_s_per_byte, docs/VALIDATION.md §0.8), on
 * test_mapread_readahead_closed_form's passes at trigger 0 with 1 ns a byte (8 ms a window).
 * Compute-bound: each read after the first lies wholly inside the previous window's 20 ms of
 * compute, which grows by 8 ms, 8 + 7 x 28 + 20 = 224 ms. Read-bound: 5 ms of compute overlaps
 * 5/8 of each 8 ms read and grows by 5 ms, so each window after the first starts 10 ms after the
 * last, 8 + 7 x 10 + 5 = 83 ms. The first window's read overlaps no compute; 0 is none. */
static void test_mapread_contention(void)
{
  ls_flash_params f = flash_1gbs();
  ls_mapread_params t0 = {8e6, 0, 0, 0, 0, 0, 0, 0}, k = {8e6, 0, 0, 0, 0, 0, 0, 1e-9};
  ls_mapread_seg rb[4], cb[4], one = {8e6, 0.020, 0};
  for (int i = 0; i < 4; i++) {
    rb[i] = (ls_mapread_seg){16e6, 0.010, 0};
    cb[i] = (ls_mapread_seg){16e6, 0.040, 0};
  }
  CU_ASSERT(fabs(ls_mapread_time_s(&f, &k, cb, 4) - 0.224) < 1e-6);
  /* a segment's compute ends later by its windows' share: the first (two windows) at 8 + 2 x 28 */
  double ends[4];
  CU_ASSERT(fabs(ls_mapread_time_ends_s(&f, &k, cb, 4, ends) - 0.224) < 1e-6);
  CU_ASSERT(fabs(ends[0] - 0.064) < 1e-6 && fabs(ends[3] - 0.224) < 1e-6);
  CU_ASSERT(fabs(ls_mapread_time_s(&f, &k, rb, 4) - 0.083) < 1e-6);
  CU_ASSERT(fabs(ls_mapread_time_s(&f, &k, &one, 1) - ls_mapread_time_s(&f, &t0, &one, 1)) < 1e-12);
  CU_ASSERT(fabs(ls_mapread_time_s(&f, &t0, cb, 4) - 0.168) < 1e-6);
}

/* A model file as a pass reads it (ls_mapread_pass_s): three 16 MB layers of 10 ms and a 16 MB
 * head of 10 ms are the `mix` segments above, so serial reads take 0.104 s at 1 GB/s (every
 * segment read, then computed: 4 x (0.016 + 0.010)) and read-ahead what the recurrence gives;
 * a pass asking for no output row skips the head: 3 x 0.026 = 0.078 s serially. */
static void test_mapread_pass(void)
{
  ls_flash_params f = flash_1gbs();
  ls_mapread_params m = {8e6, 0.75, 0, 0, 0, 0, 0, 0};
  ls_mapread_seg mix[4] = {{16e6, 0.010, 0}, {16e6, 0.010, 0}, {16e6, 0.010, 0}, {16e6, 0.010, 0}};
  ls_mapread_file file = {3, 16e6, 0.010, 16e6, 0.010, 0, 1};
  CU_ASSERT(fabs(ls_mapread_pass_s(&f, &m, 0, &file) - 0.104) < 1e-6);
  CU_ASSERT(fabs(ls_mapread_pass_s(&f, &m, 1, &file) - ls_mapread_time_s(&f, &m, mix, 4)) < 1e-12);
  file.head = 0;
  CU_ASSERT(fabs(ls_mapread_pass_s(&f, &m, 0, &file) - 0.078) < 1e-6);
  CU_ASSERT(fabs(ls_mapread_pass_s(&f, &m, 1, &file) - ls_mapread_time_s(&f, &m, mix, 3)) < 1e-12);
  /* the head's serial share is the head segment's */
  file.head = 1;
  file.head_serial = 1;
  mix[3].serial = 1;
  CU_ASSERT(fabs(ls_mapread_pass_s(&f, &m, 1, &file) - ls_mapread_time_s(&f, &m, mix, 4)) < 1e-12);
}

/* ---- driver (the pinned library) ---- */

static ls_llamadrv *drv;
static ls_llamadrv_model *mdl;

static int driver_init(void)
{
  ls_error err = {0};
  if (access(small, R_OK) != 0) {
    ls_gguf_shape s;
    if (ls_gguf_shape_scaled(LS_TEST_DIR "/..", "llama-3.2-1b", 8, 1024, &s, &err) ||
        ls_gguf_write(small, &s, 1, NULL, &err)) {
      ls_error_print(&err, stderr);
      return 1;
    }
  }
  ls_llamadrv_opts o = ls_llamadrv_defaults();
  if (ls_llamadrv_open(&drv, lib, &err) || ls_llamadrv_load(drv, small, &o, &mdl, &err)) {
    ls_error_print(&err, stderr);
    return 1;
  }
  return 0;
}

static int driver_clean(void)
{
  ls_llamadrv_unload(mdl);
  ls_llamadrv_close(drv);
  return 0;
}

/* ggml's own dequantiser reads the writer's blocks as the writer means them. */
static void test_ggml_reads_q4_0(void)
{
  char path[1200];
  snprintf(path, sizeof path, "%s/libggml-base.so", lib);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(h);
  void *sym = dlsym(h, "dequantize_row_q4_0");
  CU_ASSERT_PTR_NOT_NULL_FATAL(sym);
  void (*deq)(const void *, float *, int64_t);
  memcpy(&deq, &sym, sizeof sym);
  float w[64], mine[64], theirs[64];
  uint8_t b[36];
  for (int j = 0; j < 64; j++)
    w[j] = (float)sin(j * 1.7) * (j < 32 ? 0.5f : 3.0f);
  ls_q4_0_pack(w, b);
  ls_q4_0_pack(w + 32, b + 18);
  ls_q4_0_unpack(b, mine);
  ls_q4_0_unpack(b + 18, mine + 32);
  deq(b, theirs, 64);
  for (int j = 0; j < 64; j++) {
    CU_ASSERT_EQUAL(mine[j], theirs[j]);
    CU_ASSERT(fabsf(theirs[j] - w[j]) <= (j < 32 ? 0.5f : 3.0f) / 8); /* within half a step */
  }
}

static void test_threads(void)
{
  /* The context computes with the threads asked for: one by default, two when asked (the
   * protocol's 2-thread points, runner/testbed/protocol.yaml). Behaviour only: how the CPU
   * time splits between threads depends on the machine and its load, so it is not asserted. */
  CU_ASSERT_EQUAL(ls_llamadrv_threads(mdl), 1);
  ls_error err = {0};
  ls_llamadrv_model *m = NULL;
  ls_llamadrv_opts o = ls_llamadrv_defaults();
  o.threads = 2;
  CU_ASSERT_EQUAL_FATAL(ls_llamadrv_load(drv, small, &o, &m, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_llamadrv_threads(m), 2);
  ls_llamadrv_cost c;
  CU_ASSERT_EQUAL(ls_llamadrv_prompt(m, 8, 0, &c, &err), LS_OK);
  CU_ASSERT(c.cpu_s > 0 && c.thread_cpu_s > 0);
  ls_llamadrv_unload(m);
}

/* The node observer (ls_llamadrv_opts.observe, what `testbed probe --kind nodes` times): on the
 * small model (8 layers) one pass reports every layer's first weighted node once (attn_norm-0 to
 * attn_norm-7) and the head's (result_output) last; without an observer nothing is reported. */
typedef struct seen_nodes {
  int n, norms[8], head, head_last;
} seen_nodes;

static void count_node(const char *node, void *user)
{
  seen_nodes *s = user;
  int l;
  char tail;
  s->n++;
  s->head_last = node && !strcmp(node, "result_output");
  s->head += s->head_last;
  if (node && sscanf(node, "attn_norm-%d%c", &l, &tail) == 1 && l >= 0 && l < 8)
    s->norms[l]++;
}

static void test_observer(void)
{
  seen_nodes seen = {0};
  ls_error err = {0};
  ls_llamadrv_model *m = NULL;
  ls_llamadrv_opts o = ls_llamadrv_defaults();
  o.observe = count_node;
  o.observe_user = &seen;
  CU_ASSERT_EQUAL_FATAL(ls_llamadrv_load(drv, small, &o, &m, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_llamadrv_prompt(m, 4, 0, NULL, &err), LS_OK);
  ls_llamadrv_unload(m);
  CU_ASSERT(seen.n > 8 * 10);
  for (int l = 0; l < 8; l++)
    CU_ASSERT_EQUAL(seen.norms[l], 1);
  CU_ASSERT_EQUAL(seen.head, 1);
  CU_ASSERT(seen.head_last);
  int before = seen.n;
  CU_ASSERT_EQUAL(ls_llamadrv_prompt(mdl, 4, 0, NULL, &err), LS_OK); /* the suite's model: no observer */
  ls_llamadrv_clear(mdl);
  CU_ASSERT_EQUAL(seen.n, before);
}

/* A 32-token batch is one pass, not 32: every output row asked for is computed (the driver
 * checks each row is finite), each layer's first weighted node runs once for the whole batch
 * (the node observer), and a warm pass reads nothing from storage. It fails a driver that
 * decodes the batch token by token (32 reports per layer) or computes only the last row (a
 * missing row fails the finiteness check). No time or ratio of times is asserted: those
 * depend on the machine and its load (they are measured in `make testbed`). */
static void test_batch_one_pass(void)
{
  seen_nodes seen = {0};
  ls_error err = {0};
  ls_llamadrv_model *m = NULL;
  ls_llamadrv_opts o = ls_llamadrv_defaults();
  o.observe = count_node;
  o.observe_user = &seen;
  CU_ASSERT_EQUAL_FATAL(ls_llamadrv_load(drv, small, &o, &m, &err), LS_OK);
  ls_llamadrv_tok t[32];
  for (int i = 0; i < 32; i++)
    t[i] = (ls_llamadrv_tok){.id = 1 + i, .pos = i, .n_seq = 1, .seq = {0}, .logits = 1};
  ls_llamadrv_cost c;
  CU_ASSERT_EQUAL(ls_llamadrv_decode(m, t, 32, &c, &err), LS_OK); /* warms the file */
  ls_llamadrv_clear(m);
  memset(&seen, 0, sizeof seen);
  CU_ASSERT_EQUAL(ls_llamadrv_decode(m, t, 32, &c, &err), LS_OK);
  ls_llamadrv_unload(m);
  for (int l = 0; l < 8; l++)
    CU_ASSERT_EQUAL(seen.norms[l], 1);
  CU_ASSERT_EQUAL(seen.head, 1);
  CU_ASSERT_EQUAL(c.read_bytes, 0);
}

/* Eviction leaves no page of the file in memory (mincore counts pages exactly). A cold pass
 * then brings back every page of the tensor data, and at most the whole file; the process's
 * reads from storage (/proc/self/io) are those pages plus at most 1 MiB of other files (code
 * pages of the libraries faulted back in under memory pressure, measured here: 24 KiB once).
 * A warm pass reads nothing. */
static void test_evict_and_bytes(void)
{
  ls_error err = {0};
  ls_gguf_layout l;
  CU_ASSERT_EQUAL_FATAL(ls_gguf_read_layout(small, &l, &err), LS_OK);
  uint64_t file_pages = (l.file_bytes + PAGE - 1) / PAGE * PAGE;
  uint64_t data_pages = file_pages - l.data_start / PAGE * PAGE;
  ls_gguf_layout_free(&l);
  ls_llamadrv_cost c;
  uint64_t res = 1;
  int maps = 0;
  ls_llamadrv_clear(mdl);
  CU_ASSERT_EQUAL_FATAL(ls_llamadrv_prompt(mdl, 1, 0, &c, &err), LS_OK);
  CU_ASSERT_EQUAL(c.read_bytes, 0);
  CU_ASSERT_EQUAL(ls_llamadrv_evict(mdl, &maps, &err), LS_OK);
  CU_ASSERT(maps >= 1);
  CU_ASSERT_EQUAL(ls_llamadrv_resident(small, &res, &err), LS_OK);
  CU_ASSERT_EQUAL(res, 0);
  ls_llamadrv_clear(mdl);
  CU_ASSERT_EQUAL_FATAL(ls_llamadrv_prompt(mdl, 1, 0, &c, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_llamadrv_resident(small, &res, &err), LS_OK);
  CU_ASSERT(res >= data_pages && res <= file_pages);
  CU_ASSERT(c.read_bytes >= res && c.read_bytes - res <= (1u << 20));
  if (c.read_bytes < res || c.read_bytes - res > (1u << 20) || res < data_pages)
    fprintf(stderr, "read %llu, resident %llu, data %llu, file %llu\n", (unsigned long long)c.read_bytes,
            (unsigned long long)res, (unsigned long long)data_pages, (unsigned long long)file_pages);
  /* By path, as the storage measurements spread over a run evict when no model is loaded: the
   * loaded model's mapping is found by the file's inode, and nothing stays resident. */
  maps = 0;
  CU_ASSERT_EQUAL(ls_llamadrv_evict_file(small, &maps, &err), LS_OK);
  CU_ASSERT(maps >= 1);
  CU_ASSERT_EQUAL(ls_llamadrv_resident(small, &res, &err), LS_OK);
  CU_ASSERT_EQUAL(res, 0);
  CU_ASSERT_EQUAL(ls_llamadrv_evict_file("/nonexistent/model.gguf", NULL, &err), LS_EIO);
  ls_llamadrv_clear(mdl);
}

static CU_TestInfo gguf_tests[] = {
    {"q4_0 block layout", test_q4_0_layout}, {"fp16", test_f16}, {"scaled shapes", test_shape},
    {"write and read back", test_write_read}, {"bad files", test_bad_files}, CU_TEST_INFO_NULL};
/* devices/cpu: below batched_from tokens each token streams the weights; from it on, the
 * roofline; without the key (0 or 1) the roofline for every n, as before. */
static void test_cpu_batched(void)
{
  ls_cpu_params c;
  memset(&c, 0, sizeof c);
  c.n_clusters = 1;
  c.cluster[0].cores = 1;
  c.cluster[0].freq_hz = 1e9;
  c.cluster[0].gemv_bw_per_core = 1e9;
  c.cluster[0].flops_per_cycle = 100; /* 100 GFLOP/s */
  c.max_bw = 1e12;
  ls_layer_work w = {1e8, 1e9, 0, 0};  /* 0.1 s to stream, 0.01 s a token to compute */
  CU_ASSERT_EQUAL(ls_cpu_layer_ns(&c, &w, 1, 0, 1), 100000000);
  CU_ASSERT_EQUAL(ls_cpu_layer_ns(&c, &w, 2, 0, 1), 100000000);
  c.batched_from = 4;
  CU_ASSERT_EQUAL(ls_cpu_layer_ns(&c, &w, 2, 0, 1), 200000000);
  CU_ASSERT_EQUAL(ls_cpu_layer_ns(&c, &w, 3, 0, 1), 300000000);
  CU_ASSERT_EQUAL(ls_cpu_layer_ns(&c, &w, 4, 0, 1), 100000000);
  CU_ASSERT_EQUAL(ls_cpu_layer_ns(&c, &w, 20, 0, 1), 200000000);
  CU_ASSERT_EQUAL(ls_cpu_lmhead_ns(&c, 1e8, 1e9, 3, 1), 100000000); /* the head keeps its own */
  c.head_batched_from = 1000000;
  CU_ASSERT_EQUAL(ls_cpu_lmhead_ns(&c, 1e8, 1e9, 3, 1), 300000000);
  /* cpu.batch_group 4 (the testbed's base profile, docs/VALIDATION.md §3.6): from batched_from
   * on, one pass over the weights per group of four tokens plus every token's arithmetic. */
  c.batch_group = 4;
  CU_ASSERT_EQUAL(ls_cpu_layer_ns(&c, &w, 3, 0, 1), 300000000); /* below batched_from: per token */
  CU_ASSERT_EQUAL(ls_cpu_layer_ns(&c, &w, 4, 0, 1), 140000000);
  CU_ASSERT_EQUAL(ls_cpu_layer_ns(&c, &w, 5, 0, 1), 250000000);
  CU_ASSERT_EQUAL(ls_cpu_layer_ns(&c, &w, 8, 0, 1), 280000000);
  CU_ASSERT_EQUAL(ls_cpu_layer_ns(&c, &w, 20, 0, 1), 700000000);
  c.batched_from = 1;
  CU_ASSERT_EQUAL(ls_cpu_layer_ns(&c, &w, 1, 0, 1), 110000000);
  CU_ASSERT_EQUAL(ls_cpu_layer_ns(&c, &w, 3, 0, 1), 130000000);
}

/* The head's rate from the rows passes (runner/testbed/calfit.h) against its closed form
 * per_row = (t_all - t_one) / (N - 1), bw = head bytes / per_row, for the fastest and the
 * median of the repetitions; other kinds, contexts and sizes are not read; then a CPU profile
 * given that rate reproduces the measured difference of the two passes exactly. */
static void add_pass(ls_tbm_result *r, const char *kind, int n, int ctx, double t)
{
  ls_tbm_pass *p = &r->p[r->n++];
  memset(p, 0, sizeof *p);
  snprintf(p->kind, sizeof p->kind, "%s", kind);
  p->n_tokens = n;
  p->ctx = ctx;
  p->c.time_s = t;
}

/* One core of 1 GHz and 10 FLOP a cycle (a row's 0.3 GFLOP would take 30 ms), the layers
 * streaming at 5 GB/s, and the head never batched (as on the testbed) at the given rates. */
static ls_cpu_params head_cpu(double head_bw, double head_bw_first)
{
  ls_cpu_params c;
  memset(&c, 0, sizeof c);
  c.n_clusters = 1;
  c.cluster[0].cores = 2;
  c.cluster[0].freq_hz = 1e9;
  c.cluster[0].gemv_bw_per_core = 5e9;
  c.cluster[0].flops_per_cycle = 10;
  c.max_bw = 100e9;
  c.call_s = 20e-6;
  c.head_batched_from = 1000000;
  c.head_bw = head_bw;
  c.head_bw_first = head_bw_first;
  return c;
}

static void test_head_rate(void)
{
  ls_tbm_pass buf[16];
  ls_tbm_result r = {.p = buf, .cap = 16};
  ls_tbp_head_rate h;
  ls_error err;
  CU_ASSERT_EQUAL(ls_tbp_head_rate_get(&r, 150e6, 0, &h, &err), LS_ENOTFOUND); /* a run from before */
  add_pass(&r, "warm", 16, 0, 0.050);      /* faster than any rows pass: must not be read */
  add_pass(&r, "tree-warm", 16, 32, 0.020); /* a held-out kind: must not be read */
  add_pass(&r, "rows-1", 16, 0, 0.110);
  add_pass(&r, "rows", 16, 0, 0.290);
  add_pass(&r, "rows-1", 16, 0, 0.100);
  add_pass(&r, "rows", 16, 0, 0.250);
  add_pass(&r, "rows-1", 16, 0, 0.105);
  add_pass(&r, "rows", 16, 0, 0.260);
  add_pass(&r, "rows", 8, 0, 0.001);        /* another N: not paired with the first */
  CU_ASSERT_EQUAL_FATAL(ls_tbp_head_rate_get(&r, 150e6, 0, &h, &err), LS_OK);
  CU_ASSERT_EQUAL(h.n, 16);
  CU_ASSERT(h.reps_all == 3 && h.reps_one == 3);
  CU_ASSERT_DOUBLE_EQUAL(h.per_row_s, (0.250 - 0.100) / 15, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(h.bw, 150e6 / ((0.250 - 0.100) / 15), 1e-3); /* 15 GB/s */
  CU_ASSERT_EQUAL_FATAL(ls_tbp_head_rate_get(&r, 150e6, 1, &h, &err), LS_OK);
  CU_ASSERT_DOUBLE_EQUAL(h.per_row_s, (0.260 - 0.105) / 15, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(h.bw, 150e6 / ((0.260 - 0.105) / 15), 1e-3);

  /* The rate read back by the CPU model: one thread of the first cluster, the head asked for
   * 16 rows and for 1 (never batched, as on the testbed) differs by exactly 15 rows' cost. */
  CU_ASSERT_EQUAL_FATAL(ls_tbp_head_rate_get(&r, 150e6, 0, &h, &err), LS_OK);
  ls_cpu_params c = head_cpu(h.bw, 0.0); /* the layers' rate a third of the head's */
  double d = (double)(ls_cpu_lmhead_ns(&c, 150e6, 0.3e9, 16, 1) - ls_cpu_lmhead_ns(&c, 150e6, 0.3e9, 1, 1)) * 1e-9;
  CU_ASSERT_DOUBLE_EQUAL(d, 0.250 - 0.100, 2e-9);

  /* N rows not slower than one: no per-row cost, refused. */
  r.n = 0;
  add_pass(&r, "rows-1", 16, 0, 0.100);
  add_pass(&r, "rows", 16, 0, 0.100);
  CU_ASSERT_EQUAL(ls_tbp_head_rate_get(&r, 150e6, 0, &h, &err), LS_ERANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no per-row cost"));
  /* Only one of the two kinds: not found. */
  r.n = 0;
  add_pass(&r, "rows", 16, 0, 0.200);
  CU_ASSERT_EQUAL(ls_tbp_head_rate_get(&r, 150e6, 0, &h, &err), LS_ENOTFOUND);
}

/* The first row's rate from the rows-0 passes against its closed form, first_row = t_one -
 * t_none, bw_first = head bytes / first_row, for both statistics; a run without them gives the
 * per-row rate alone; a CPU given both rates reproduces all three passes' differences exactly;
 * one row not slower than none is refused. */
static void test_head_first_rate(void)
{
  ls_tbm_pass buf[32];
  ls_tbm_result r = {.p = buf, .cap = 32};
  ls_tbp_head_rate h;
  ls_error err;
  add_pass(&r, "rows-0", 16, 0, 0.090);
  add_pass(&r, "rows-1", 16, 0, 0.110);
  add_pass(&r, "rows", 16, 0, 0.290);
  add_pass(&r, "rows-0", 16, 0, 0.070);
  add_pass(&r, "rows-1", 16, 0, 0.100);
  add_pass(&r, "rows", 16, 0, 0.250);
  add_pass(&r, "rows-0", 16, 0, 0.080);
  add_pass(&r, "rows-1", 16, 0, 0.105);
  add_pass(&r, "rows", 16, 0, 0.260);
  add_pass(&r, "rows-0", 8, 0, 0.001);      /* another N: not read */
  add_pass(&r, "warm", 16, 0, 0.010);       /* another kind: not read */
  CU_ASSERT_EQUAL_FATAL(ls_tbp_head_rate_get(&r, 150e6, 0, &h, &err), LS_OK);
  CU_ASSERT(h.has_first && h.reps_none == 3);
  CU_ASSERT_DOUBLE_EQUAL(h.t_none_s, 0.070, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(h.first_row_s, 0.100 - 0.070, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(h.bw_first, 150e6 / (0.100 - 0.070), 1e-3); /* 5 GB/s */
  CU_ASSERT_DOUBLE_EQUAL(h.per_row_s, (0.250 - 0.100) / 15, 1e-15); /* unchanged by rows-0 */
  CU_ASSERT_EQUAL_FATAL(ls_tbp_head_rate_get(&r, 150e6, 1, &h, &err), LS_OK);
  CU_ASSERT_DOUBLE_EQUAL(h.first_row_s, 0.105 - 0.080, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(h.bw_first, 150e6 / (0.105 - 0.080), 1e-3);

  /* Both rates read back by the CPU model: 0, 1 and 16 rows differ as the passes did. */
  CU_ASSERT_EQUAL_FATAL(ls_tbp_head_rate_get(&r, 150e6, 0, &h, &err), LS_OK);
  ls_cpu_params c = head_cpu(h.bw, h.bw_first);
  double t0 = (double)ls_cpu_lmhead_ns(&c, 150e6, 0.3e9, 0, 1) * 1e-9;
  double t1 = (double)ls_cpu_lmhead_ns(&c, 150e6, 0.3e9, 1, 1) * 1e-9;
  double t16 = (double)ls_cpu_lmhead_ns(&c, 150e6, 0.3e9, 16, 1) * 1e-9;
  CU_ASSERT_DOUBLE_EQUAL(t0, 0, 0);
  CU_ASSERT_DOUBLE_EQUAL(t1 - c.call_s, 0.100 - 0.070, 2e-9);
  CU_ASSERT_DOUBLE_EQUAL(t16 - t1, 0.250 - 0.100, 2e-9);

  /* The draft's rows passes: read by the draft's getter only, with the draft's head bytes;
   * the target's getter still reads the target's kinds. */
  add_pass(&r, "draft-rows-0", 16, 0, 0.012);
  add_pass(&r, "draft-rows-1", 16, 0, 0.028);
  add_pass(&r, "draft-rows", 16, 0, 0.128);
  add_pass(&r, "draft-rows-0", 16, 0, 0.013);
  add_pass(&r, "draft-rows-1", 16, 0, 0.030);
  add_pass(&r, "draft-rows", 16, 0, 0.140);
  ls_tbp_head_rate hd;
  CU_ASSERT_EQUAL_FATAL(ls_tbp_head_rate_draft_get(&r, 107.7e6, 0, &hd, &err), LS_OK);
  CU_ASSERT(hd.has_first && hd.reps_all == 2 && hd.reps_one == 2 && hd.reps_none == 2);
  CU_ASSERT_DOUBLE_EQUAL(hd.first_row_s, 0.028 - 0.012, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(hd.per_row_s, (0.128 - 0.028) / 15, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(hd.bw_first, 107.7e6 / (0.028 - 0.012), 1e-3);
  CU_ASSERT_EQUAL_FATAL(ls_tbp_head_rate_get(&r, 150e6, 0, &h, &err), LS_OK);
  CU_ASSERT_DOUBLE_EQUAL(h.first_row_s, 0.100 - 0.070, 1e-15); /* the target's, as before */
  r.n = 0;
  add_pass(&r, "rows-1", 16, 0, 0.100);
  add_pass(&r, "rows", 16, 0, 0.250);
  CU_ASSERT_EQUAL(ls_tbp_head_rate_draft_get(&r, 107.7e6, 0, &hd, &err), LS_ENOTFOUND); /* no draft passes */

  /* A run from before the rows-0 passes: the per-row rate alone. */
  r.n = 0;
  add_pass(&r, "rows-1", 16, 0, 0.100);
  add_pass(&r, "rows", 16, 0, 0.250);
  CU_ASSERT_EQUAL_FATAL(ls_tbp_head_rate_get(&r, 150e6, 0, &h, &err), LS_OK);
  CU_ASSERT(!h.has_first && h.first_row_s == 0 && h.bw_first == 0);
  /* One row not slower than none: no first-row cost, refused. */
  add_pass(&r, "rows-0", 16, 0, 0.100);
  CU_ASSERT_EQUAL(ls_tbp_head_rate_get(&r, 150e6, 0, &h, &err), LS_ERANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no cost of the head's first row"));
}

/* A busy thread slows the reads it overlaps (devices/mapread.h, io_cpu_share s). Two windows of
 * r = 8 ms (8 MB at 1 GB/s), c of compute each, trigger 0: window 1's read is issued when window
 * 0's compute starts, and runs at 1 - s during it. Read-bound (c = 4 ms): 2r + s c + c (22 ms
 * at s = 0.5, 20 ms at s = 0); compute-bound (c = 20 ms): r + 2c at either share, the slowed
 * read hiding under the compute. */
static void test_mapread_io_share(void)
{
  ls_flash_params f = flash_1gbs();
  ls_mapread_params none = {8e6, 0, 0, 0, 0, 0, 0, 0}, half = {8e6, 0, 0, 0.5, 0, 0, 0, 0};
  ls_mapread_seg rb[1] = {{16e6, 0.008, 0}}, cb[1] = {{16e6, 0.040, 0}};
  CU_ASSERT_DOUBLE_EQUAL(ls_mapread_time_s(&f, &none, rb, 1), 0.020, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(ls_mapread_time_s(&f, &half, rb, 1), 0.022, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(ls_mapread_time_s(&f, &none, cb, 1), 0.048, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(ls_mapread_time_s(&f, &half, cb, 1), 0.048, 1e-9);
  /* Between: the read finishes after the compute, having run slowed for all of it. */
  ls_mapread_seg mid[1] = {{16e6, 0.020, 0}}; /* c = 10 ms: 8 + 10 + (8 - 5) = 21 ms, then 10 ms more */
  CU_ASSERT_DOUBLE_EQUAL(ls_mapread_time_s(&f, &half, mid, 1), 0.031, 1e-9);
}

/* One busy level as the model gives it at share s under the rule `waited` (1 GB/s, 8 MB windows,
 * the file as one segment of `bytes` with compute c): a busy-warm pass of c x warm_scale and a
 * stream-busy pass of the model's time x cold_scale. */
static void add_busy(ls_tbm_result *r, int level, double bytes, double c, double s, double warm_scale,
                     double cold_scale, int waited)
{
  ls_flash_params f = flash_1gbs();
  ls_mapread_params m = {8e6, 0, 0, s, 0, 0, waited, 0};
  ls_mapread_seg seg = {bytes, c, 0};
  add_pass(r, LS_TBM_BUSY_WARM, level, 0, c * warm_scale);
  add_pass(r, LS_TBM_STREAM_BUSY, level, 0, ls_mapread_time_s(&f, &m, &seg, 1) * cold_scale);
}

/* The share slowing only a read the thread waits for (share_waited, §3.18), on test_mapread_io_share's
 * two windows (r = 8 ms, s = 0.5). Read-bound (c = 4 ms): the read outlasts the compute, so it is
 * slowed as before (22 ms). c = 10 ms: at full rate it ends at 16 ms, inside the compute (8 to
 * 18 ms), so it keeps its rate: 8 + 10 + 10 = 28 ms, where slowing every read gives 31 ms. At the
 * edge (c = r = 8 ms) it ends as the compute does and is not slowed: 24 ms (28 ms slowing it).
 * Compute-bound: 48 ms either way. Then busy streams made under the rule at s = 0.3 (levels 30
 * to 150 %) give 0.3 back; past 100 % the fitted model is the model with no share, and the
 * other rule's value, printed beside it, is slower at 120 %. */
static void test_mapread_share_waited(void)
{
  ls_flash_params f = flash_1gbs();
  ls_mapread_params w = {8e6, 0, 0, 0.5, 0, 0, 1, 0}, every = {8e6, 0, 0, 0.5, 0, 0, 0, 0};
  ls_mapread_seg rb = {16e6, 0.008, 0}, mid = {16e6, 0.020, 0}, edge = {16e6, 0.016, 0}, cb = {16e6, 0.040, 0};
  CU_ASSERT_DOUBLE_EQUAL(ls_mapread_time_s(&f, &w, &rb, 1), 0.022, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(ls_mapread_time_s(&f, &w, &mid, 1), 0.028, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(ls_mapread_time_s(&f, &every, &mid, 1), 0.031, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(ls_mapread_time_s(&f, &w, &edge, 1), 0.024, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(ls_mapread_time_s(&f, &every, &edge, 1), 0.028, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(ls_mapread_time_s(&f, &w, &cb, 1), 0.048, 1e-9);
  const double bytes = 400e6, stream = 0.4; /* 50 windows of 8 ms */
  ls_tbm_pass buf[16];
  ls_tbm_result r = {.p = buf, .cap = 16};
  for (int lv = 30; lv <= 150; lv += 30)
    add_busy(&r, lv, bytes, lv / 100.0 * stream, 0.3, 1, 1, 1);
  ls_mapread_params fit = {8e6, 0, 0, 0, 0, 0, 1, 0};
  ls_tbp_io_share sh;
  ls_tbp_io_share_fit(&r, &f, &fit, bytes, 0, 0, 0, &sh);
  CU_ASSERT_EQUAL(sh.levels, 5);
  CU_ASSERT_DOUBLE_EQUAL(sh.share, 0.3, 1e-4);
  for (int i = 0; i < sh.levels; i++) {
    CU_ASSERT_DOUBLE_EQUAL(sh.model_s[i], sh.measured_s[i], 1e-6);
    if (sh.level[i] > 100)
      CU_ASSERT_DOUBLE_EQUAL(sh.model_s[i], sh.model0_s[i], 1e-9);
    /* slowing every read, 120 % (9.6 ms of compute a window) still waits for reads slowed to
     * 8 / 0.7 = 11.4 ms; 150 % (12 ms) hides them as well */
    if (sh.level[i] == 120)
      CU_ASSERT(sh.model_rule_s[i] > sh.model_s[i] + 0.05);
    if (sh.level[i] == 150)
      CU_ASSERT_DOUBLE_EQUAL(sh.model_rule_s[i], sh.model_s[i], 1e-9);
  }
}

/* A read delayed while the thread computes (io_delay_s, §3.16), against closed forms at 1 GB/s
 * with 8 MB windows (8 ms each): 80 MB with 40 ms of compute (4 ms a window) take the reads,
 * nine delays and the last window's compute, 0.080 + 9 x 0.001 + 0.004 = 0.093 s, with a
 * delay of 1 ms; a delay longer than a window's compute makes the pass serial (0.120 s); a
 * compute-bound pass (0.2 s of compute) hides it (0.208 s). Then the delay fitted back (1 ms)
 * from busy streams generated with it, with no share. */
static void test_mapread_delay(void)
{
  ls_flash_params f = flash_1gbs();
  ls_mapread_params d1 = {8e6, 0, 0, 0, 0, 0.001, 0, 0}, d10 = {8e6, 0, 0, 0, 0, 0.010, 0, 0};
  ls_mapread_seg rb = {80e6, 0.040, 0}, cb = {80e6, 0.2, 0};
  CU_ASSERT_DOUBLE_EQUAL(ls_mapread_time_s(&f, &d1, &rb, 1), 0.093, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(ls_mapread_time_s(&f, &d10, &rb, 1), 0.120, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(ls_mapread_time_s(&f, &d1, &cb, 1), 0.208, 1e-6);
  const double bytes = 400e6, cs[3] = {0.12, 0.24, 0.36};
  ls_tbm_pass buf[8];
  ls_tbm_result r = {.p = buf, .cap = 8};
  for (int i = 0; i < 3; i++) {
    ls_mapread_seg seg = {bytes, cs[i], 0};
    add_pass(&r, LS_TBM_BUSY_WARM, 30 * (i + 1), 0, cs[i]);
    add_pass(&r, LS_TBM_STREAM_BUSY, 30 * (i + 1), 0, ls_mapread_time_s(&f, &d1, &seg, 1));
  }
  ls_mapread_params fit = {8e6, 0, 0, 0, 0, 0, 0, 0};
  ls_tbp_io_share sh;
  ls_tbp_io_share_fit(&r, &f, &fit, bytes, 0, 0, 0, &sh);
  CU_ASSERT_EQUAL(sh.levels, 3);
  CU_ASSERT_DOUBLE_EQUAL(sh.delay, 0.001, 1e-6);
}

/* The share from busy streams generated by the model at s = 0.3 (three levels, each with a
 * faster repetition that must be the one read, and a slower one): the fit gives 0.3 back and
 * reproduces every level; other kinds are not read; a run without busy streams gives 0. */
static void test_io_share_fit(void)
{
  ls_flash_params f = flash_1gbs();
  const double bytes = 400e6, cs[3] = {0.12, 0.24, 0.36};
  ls_tbm_pass buf[32];
  ls_tbm_result r = {.p = buf, .cap = 32};
  for (int i = 0; i < 3; i++) {
    add_busy(&r, 30 * (i + 1), bytes, cs[i], 0.3, 1.1, 1.2, 0);
    add_busy(&r, 30 * (i + 1), bytes, cs[i], 0.3, 1, 1, 0);
  }
  add_pass(&r, "stream", 0, 0, 0.001);
  add_pass(&r, "cold", 30, 0, 0.001);
  ls_mapread_params fit = {8e6, 0, 0, 0, 0, 0, 0, 0};
  ls_tbp_io_share sh;
  ls_tbp_io_share_fit(&r, &f, &fit, bytes, 0, 0, 0, &sh);
  CU_ASSERT_EQUAL(sh.levels, 3);
  CU_ASSERT_DOUBLE_EQUAL(sh.share, 0.3, 1e-4);
  for (int i = 0; i < sh.levels; i++) {
    CU_ASSERT_DOUBLE_EQUAL(sh.compute_s[i], cs[i], 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(sh.model_s[i] / sh.measured_s[i], 1, 1e-4);
    CU_ASSERT(sh.model0_s[i] < sh.measured_s[i]);
  }
  ls_tbm_pass other[2];
  ls_tbm_result none = {0};
  none.p = other;
  none.cap = 2;
  add_pass(&none, "stream", 0, 0, 0.5);
  add_pass(&none, "cold", 30, 0, 0.5);
  ls_tbp_io_share_fit(&none, &f, &fit, bytes, 0, 0, 0, &sh);
  CU_ASSERT_EQUAL(sh.levels, 0);
  CU_ASSERT_EQUAL(sh.share, 0);
}

/* The expected fastest of r from n repetitions against its closed form: every r-subset's
 * smallest, averaged. {5, 1, 4, 2, 3}, r = 3: of the 10 subsets, 6 hold 1, 3 hold 2 but not 1,
 * 1 is {3, 4, 5}: (6 x 1 + 3 x 2 + 1 x 3) / 10 = 1.5. r = 1 is the mean, r >= n the fastest;
 * the input is not reordered. Then the busy streams' share at that statistic: generated at
 * s = 0.3 with every level's three repetitions t, t, t x 1.3 (the fastest-of-2 estimate is
 * t exactly), the fit gives 0.3 back at fastest_of 2 and not at fastest_of 1 (the mean). */
static void test_fastest_of(void)
{
  double v[5] = {5, 1, 4, 2, 3};
  CU_ASSERT_DOUBLE_EQUAL(ls_tbp_fastest_of(v, 5, 3), 1.5, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(ls_tbp_fastest_of(v, 5, 1), 3.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(ls_tbp_fastest_of(v, 5, 5), 1.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(ls_tbp_fastest_of(v, 5, 9), 1.0, 1e-12);
  /* r = 2: pairs' smallest: 4 x 1 + 3 x 2 + 2 x 3 + 1 x 4 over 10 = 2.0 */
  CU_ASSERT_DOUBLE_EQUAL(ls_tbp_fastest_of(v, 5, 2), 2.0, 1e-12);
  CU_ASSERT_EQUAL(v[0], 5);
  CU_ASSERT(isnan(ls_tbp_fastest_of(v, 0, 3)));
  ls_flash_params f = flash_1gbs();
  ls_mapread_params fit = {8e6, 0, 0, 0, 0, 0, 0, 0};
  const double bytes = 400e6, cs[2] = {0.15, 0.30};
  ls_tbm_pass buf[16];
  ls_tbm_result r = {.p = buf, .cap = 16};
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 3; k++)
      add_busy(&r, 45 * (i + 1), bytes, cs[i], 0.3, 1, k == 2 ? 1.3 : 1, 0);
  ls_tbp_io_share sh;
  ls_tbp_io_share_fit(&r, &f, &fit, bytes, 0, 2, 0, &sh);
  CU_ASSERT_DOUBLE_EQUAL(sh.share, 0.3, 1e-4);
  ls_tbp_io_share_fit(&r, &f, &fit, bytes, 0, 1, 0, &sh);
  CU_ASSERT(sh.share > 0.4);
}

/* A segment's serial share (devices/mapread.h): two windows of r = 8 ms and C = 6 ms of compute,
 * trigger 0. serial 0: w0 computes 3 ms while w1 reads, 2r + 3 ms = 19 ms; serial 1: no compute
 * until the last byte, 2r + C = 22 ms; serial 0.5: 1.5 ms in w0, 4.5 ms after: 20.5 ms. */
static void test_mapread_serial(void)
{
  ls_flash_params f = flash_1gbs();
  ls_mapread_params m = {8e6, 0, 0, 0, 0, 0, 0, 0};
  double want[3] = {0.019, 0.0205, 0.022};
  for (int i = 0; i < 3; i++) {
    ls_mapread_seg s[1] = {{16e6, 0.006, 0.5 * i}};
    CU_ASSERT_DOUBLE_EQUAL(ls_mapread_time_s(&f, &m, s, 1), want[i], 1e-9);
  }
}

/* Run G's profile and llama-3.2-1b's costs, what the fits below are tried on; 0 on success. */
static int load_run_g(ls_device **dev, ls_model **mod, ls_model_costs *mc)
{
  char prof[1200];
  ls_test_path(prof, sizeof prof, "../results/testbed/run-g/testbed-vm.yaml");
  ls_error err = {0};
  *dev = NULL;
  *mod = NULL;
  return ls_device_load(dev, prof, &err) || ls_model_load_id(mod, ls_data_root(), "llama-3.2-1b", &err) ||
         ls_model_costs_get(*mod, NULL, mc, &err);
}

/* The read path's work beside the compute from the CPU time of the rows-0 passes (run G's
 * profile: 2 cores, llama-3.2-1b, 16 tokens): two threads occupy both cores, so the cold passes'
 * mean extra CPU over the warm ones (0.30 against 0.20 s) less the model's fault CPU, over the 2
 * cores, per byte of the layers; one thread leaves a core idle: none; a run without the passes
 * gives nothing. A host section's contention_rate is its inverse in the host pass. */
static void test_contention_fit(void)
{
  ls_device *dev;
  ls_model *mod;
  ls_model_costs mc;
  CU_ASSERT_EQUAL_FATAL(load_run_g(&dev, &mod, &mc), 0);
  ls_tbp p = {dev, 2, 1, {8388608, 0, 1e-11, 0, 0, 0, 0, 0}, NULL, 0};
  ls_tbm_pass buf[4];
  ls_tbm_result r = {.p = buf, .cap = 4};
  double cpu[4] = {0.29, 0.31, 0.19, 0.21};
  for (int i = 0; i < 4; i++) {
    add_pass(&r, i < 2 ? LS_TBM_ROWS_NONE_COLD : LS_TBM_ROWS_NONE, 16, 0, 0.5);
    buf[i].c.cpu_s = cpu[i];
  }
  double bytes = mc.n_layers * mc.layer_bytes;
  ls_tbp_contention c;
  CU_ASSERT_EQUAL(ls_tbp_contention_fit(&p, &mc, &r, &c), 1);
  CU_ASSERT_EQUAL(c.active, 1);
  CU_ASSERT_DOUBLE_EQUAL(c.fault_cpu_s, 1e-11 * bytes, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(c.contend_s_per_byte, (0.1 - 1e-11 * bytes) / 2 / bytes, 1e-18);
  p.threads = 1;
  CU_ASSERT_EQUAL(ls_tbp_contention_fit(&p, &mc, &r, &c), 1);
  CU_ASSERT(c.active == 0 && c.contend_s_per_byte == 0);
  r.n = 2; /* no warm passes */
  CU_ASSERT_EQUAL(ls_tbp_contention_fit(&p, &mc, &r, &c), 0);
  ls_model_free(mod);
  ls_device_free(dev);
  /* the host section's key, read by the host pass */
  char prof[1200], path[] = "/tmp/ls-contention-XXXXXX";
  ls_test_path(prof, sizeof prof, "../results/testbed/run-g/testbed-vm.yaml");
  char *text = ls_test_slurp(prof);
  int fd = mkstemp(path);
  CU_ASSERT_FATAL(text != NULL && fd >= 0);
  FILE *f = fdopen(fd, "w");
  CU_ASSERT_FATAL(f != NULL);
  fprintf(f, "%s\nhost:\n  read_ahead: 8388608 B\n  contention_rate: 2e10 B/s\n", text);
  CU_ASSERT_FATAL(fclose(f) == 0);
  free(text);
  ls_error err = {0};
  CU_ASSERT_EQUAL_FATAL(ls_device_load(&dev, path, &err), 0);
  ls_flash_params sf;
  ls_costmodel_pass hp;
  CU_ASSERT_EQUAL(ls_costmodel_pass_host(dev, &sf, &hp), 1);
  CU_ASSERT_DOUBLE_EQUAL(hp.map.contend_s_per_byte, 5e-11, 1e-24);
  ls_device_free(dev);
  unlink(path);
}

/* The head's serial share from cold rows passes generated by the model at 0.6 (run G's profile,
 * llama-3.2-1b, 16 tokens): the fit gives 0.6 back from the fastest repetitions, the measured
 * phase lies between the model's at 0 and 1, and a run without the passes gives nothing. */
static void test_head_serial_fit(void)
{
  ls_device *dev;
  ls_model *mod;
  ls_model_costs mc;
  CU_ASSERT_EQUAL_FATAL(load_run_g(&dev, &mod, &mc), 0);
  ls_tbp p = {dev, 1, 1, {8388608, 0, 0, 0, 0, 0, 0, 0}, NULL, 0.6};
  double all = ls_costmodel_pass_cold_s(&p, &mc, 16, 0, 16), none = ls_costmodel_pass_cold_s(&p, &mc, 16, 0, 0);
  ls_tbm_pass buf[8];
  ls_tbm_result r = {.p = buf, .cap = 8};
  add_pass(&r, LS_TBM_ROWS_COLD, 16, 0, all * 1.2);
  add_pass(&r, LS_TBM_ROWS_NONE_COLD, 16, 0, none);
  add_pass(&r, LS_TBM_ROWS_COLD, 16, 0, all);
  add_pass(&r, LS_TBM_ROWS_NONE_COLD, 16, 0, none * 1.1);
  add_pass(&r, "rows", 16, 0, 0.001); /* the warm kind: not read */
  p.head_serial = 0;
  ls_tbp_head_serial h;
  CU_ASSERT_EQUAL(ls_tbp_head_serial_fit(&p, &mc, &r, 0, &h), 1);
  CU_ASSERT_DOUBLE_EQUAL(h.serial, 0.6, 1e-4);
  CU_ASSERT_DOUBLE_EQUAL(h.measured_s, all - none, 1e-12);
  CU_ASSERT(h.model0_s < h.measured_s && h.measured_s < h.model1_s);
  r.n = 4; /* the cold passes only, taken as the median: other repetitions, another share */
  CU_ASSERT_EQUAL(ls_tbp_head_serial_fit(&p, &mc, &r, 1, &h), 1);
  CU_ASSERT(h.serial > 0.6 + 1e-3);
  ls_tbm_result none_r = {0};
  none_r.p = buf + 4;
  none_r.n = 1;
  CU_ASSERT_EQUAL(ls_tbp_head_serial_fit(&p, &mc, &none_r, 0, &h), 0);
  ls_model_free(mod);
  ls_device_free(dev);
}

/* The share from the cold pass without output rows, generated by the model at a share of 0.5
 * (run G's profile, llama-3.2-1b, 16 tokens, read-ahead 8 MiB): the fit gives 0.5 back from the
 * fastest repetition and, at the expected fastest of 1 (the mean), a larger one from slower
 * repetitions; the measurement lies between the model's at 0 and 0.95; a run without the passes
 * gives nothing. */
static void test_io_share_pass_fit(void)
{
  ls_device *dev;
  ls_model *mod;
  ls_model_costs mc;
  CU_ASSERT_EQUAL_FATAL(load_run_g(&dev, &mod, &mc), 0);
  ls_tbp p = {dev, 1, 1, {8388608, 0, 0, 0.5, 0, 0, 0, 0}, NULL, 0};
  double t = ls_costmodel_pass_cold_s(&p, &mc, 16, 0, 0);
  p.map.io_cpu_share = 0;
  double t0 = ls_costmodel_pass_cold_s(&p, &mc, 16, 0, 0);
  CU_ASSERT_FATAL(t > t0 * 1.01); /* the share moves this pass, or the fit below shows nothing */
  ls_tbm_pass buf[8];
  ls_tbm_result r = {.p = buf, .cap = 8};
  add_pass(&r, LS_TBM_ROWS_NONE_COLD, 16, 0, t * 1.05);
  add_pass(&r, LS_TBM_ROWS_NONE_COLD, 16, 0, t);
  add_pass(&r, LS_TBM_ROWS_NONE_COLD, 16, 0, t * 1.1);
  add_pass(&r, "rows-0", 16, 0, 0.001); /* the warm kind: not read */
  ls_tbp_io_pass f;
  CU_ASSERT_EQUAL(ls_tbp_io_share_pass_fit(&p, &mc, &r, 0, 0, &f), 1);
  CU_ASSERT_DOUBLE_EQUAL(f.share, 0.5, 1e-4);
  CU_ASSERT_EQUAL(f.reps, 3);
  CU_ASSERT_DOUBLE_EQUAL(f.measured_s, t, 1e-12);
  CU_ASSERT(f.model0_s < f.measured_s && f.measured_s < f.model_max_s);
  CU_ASSERT_EQUAL(ls_tbp_io_share_pass_fit(&p, &mc, &r, 0, 1, &f), 1);
  CU_ASSERT_DOUBLE_EQUAL(f.measured_s, t * (1 + 1.05 + 1.1) / 3, 1e-12);
  CU_ASSERT(f.share > 0.5 + 1e-3);
  ls_tbm_result none_r = {0};
  none_r.p = buf + 3;
  none_r.n = 1;
  CU_ASSERT_EQUAL(ls_tbp_io_share_pass_fit(&p, &mc, &none_r, 0, 0, &f), 0);
  ls_model_free(mod);
  ls_device_free(dev);
}

/* The wait at a cold pass's start from rows-0 passes generated by the model with a start of
 * 0.03 s (run G's profile, llama-3.2-1b, 16 tokens, share 0.3 on p): the fit gives 0.03 back from
 * the fastest repetitions; a cold pass no slower than the model's gives 0, not a negative wait;
 * a run without warm rows-0 passes gives nothing. */
static void test_start_fit(void)
{
  ls_device *dev;
  ls_model *mod;
  ls_model_costs mc;
  CU_ASSERT_EQUAL_FATAL(load_run_g(&dev, &mod, &mc), 0);
  ls_tbp p = {dev, 1, 1, {8388608, 0, 0, 0.3, 0.03, 0, 0, 0}, NULL, 0};
  double cold = ls_costmodel_pass_cold_s(&p, &mc, 16, 0, 0), warm = ls_costmodel_pass_warm_s(&p, &mc, 16, 0, 0);
  ls_tbm_pass buf[8];
  ls_tbm_result r = {.p = buf, .cap = 8};
  add_pass(&r, LS_TBM_ROWS_NONE_COLD, 16, 0, cold * 1.1);
  add_pass(&r, LS_TBM_ROWS_NONE_COLD, 16, 0, cold);
  add_pass(&r, LS_TBM_ROWS_NONE, 16, 0, warm);
  add_pass(&r, LS_TBM_ROWS_NONE, 16, 0, warm * 1.2);
  ls_tbp_start st;
  CU_ASSERT_EQUAL(ls_tbp_start_fit(&p, &mc, &r, 0, 0, &st), 1);
  CU_ASSERT_DOUBLE_EQUAL(st.start_s, 0.03, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(st.cold_s - st.warm_s, cold - warm, 1e-12);
  CU_ASSERT(st.model_excess_s > 0 && st.model_excess_s < cold - warm);
  buf[0].c.time_s = buf[1].c.time_s = warm; /* no slower cold than warm: no wait */
  CU_ASSERT_EQUAL(ls_tbp_start_fit(&p, &mc, &r, 0, 0, &st), 1);
  CU_ASSERT_EQUAL(st.start_s, 0);
  r.n = 2; /* no warm passes */
  CU_ASSERT_EQUAL(ls_tbp_start_fit(&p, &mc, &r, 0, 0, &st), 0);
  ls_model_free(mod);
  ls_device_free(dev);
}

/* The busy levels testbed measure runs (LS_TBM_BUSY_LEVELS): rising, at most LS_TBP_BUSY_MAX, and
 * at least one below 100 % (the share) and one past it (where §3.18's rule shows: a share slowing
 * every read and one slowing only a read waited for differ only there). */
static void test_busy_levels(void)
{
  static const int lv[] = {LS_TBM_BUSY_LEVELS};
  const int n = (int)(sizeof lv / sizeof lv[0]);
  CU_ASSERT(n <= LS_TBP_BUSY_MAX);
  for (int i = 1; i < n; i++)
    CU_ASSERT(lv[i] > lv[i - 1]);
  CU_ASSERT(lv[0] < 100);
  CU_ASSERT(lv[n - 1] > 100);
}

/* The storage measurements' slots (measure.h): every repetition lands in a slot, the first in
 * the first and the last in the last, in order, and 2r + 1 = 7 of them one per slot. */
static void test_storage_slots(void)
{
  static const int want5[5] = {0, 2, 3, 5, 6}, want3[3] = {0, 3, 6};
  for (int k = 0; k < 7; k++)
    CU_ASSERT_EQUAL(ls_tbm_storage_slot(k, 7), k);
  for (int k = 0; k < 5; k++)
    CU_ASSERT_EQUAL(ls_tbm_storage_slot(k, 5), want5[k]);
  for (int k = 0; k < 3; k++)
    CU_ASSERT_EQUAL(ls_tbm_storage_slot(k, 3), want3[k]);
  CU_ASSERT_EQUAL(ls_tbm_storage_slot(0, 1), 0);
  for (int reps = 2; reps <= 101; reps++) {
    int prev = -1;
    for (int k = 0; k < reps; k++) {
      int s = ls_tbm_storage_slot(k, reps);
      CU_ASSERT(s >= prev && s >= 0 && s < LS_TBM_STORAGE_SLOTS);
      prev = s;
    }
    CU_ASSERT_EQUAL(ls_tbm_storage_slot(0, reps), 0);
    CU_ASSERT_EQUAL(ls_tbm_storage_slot(reps - 1, reps), LS_TBM_STORAGE_SLOTS - 1);
  }
}


/* The decode library's CPU replay prices recorded passes as the cost model does, pass by pass
 * (run G's profile, llama-3.2-1b as target and draft): a draft pass in memory, a verification
 * from a cold page cache; the sums split by model and add up; a cold pass costs more than the same
 * pass warm, and the serial reads more than the mapped read-ahead's overlap. */
static void test_cpu_replay(void)
{
  ls_device *dev;
  ls_model *mod;
  ls_model_costs mc;
  CU_ASSERT_EQUAL_FATAL(load_run_g(&dev, &mod, &mc), 0);
  ls_costmodel_pass p = {dev, 1, 1, {8388608, 0, 0, 0, 0.01, 0, 1, 0}, NULL, 0.5};
  ls_cpureplay_pass run[] = {{1, 1, 10, 1, 0}, {0, 5, 10, 5, 1}, {1, 1, 14, 1, 0}, {0, 3, 14, 3, 1}};
  double d = 0, t = 0;
  double total = ls_cpureplay_run_s(&p, &mc, &mc, run, 4, &d, &t);
  double want_d = ls_costmodel_pass_warm_s(&p, &mc, 1, 10, 1) + ls_costmodel_pass_warm_s(&p, &mc, 1, 14, 1);
  double want_t = ls_costmodel_pass_cold_s(&p, &mc, 5, 10, 5) + ls_costmodel_pass_cold_s(&p, &mc, 3, 14, 3);
  CU_ASSERT_EQUAL(d, want_d); /* the same arithmetic in the same order: bit for bit */
  CU_ASSERT_EQUAL(t, want_t);
  CU_ASSERT_EQUAL(total, d + t);
  CU_ASSERT(ls_cpureplay_pass_s(&p, &mc, NULL, &run[1]) > ls_costmodel_pass_warm_s(&p, &mc, 5, 10, 5));
  CU_ASSERT_EQUAL(ls_cpureplay_pass_s(&p, &mc, NULL, &run[0]), 0); /* a draft pass without a draft */
  ls_costmodel_pass serial = p;
  serial.mapped = 0;
  CU_ASSERT(ls_cpureplay_run_s(&serial, &mc, &mc, run, 4, NULL, NULL) > total);
  ls_model_free(mod);
  ls_device_free(dev);
}

/* The passes of a llama.cpp-style speculative run along ranks, by hand (runner/decode/cpu_replay.h):
 * k = 2, a prompt of 5 tokens (the target's cache holds 4), ranks 0 0 3 0 1 2. Cycle 0 at T = 0:
 * the draft catches up on 1 token at 4, drafts at 5, the target verifies 3 at 4; ranks 0, 0
 * accept all 2 (the bonus at T = 2 is not read), 3 tokens out. Cycle 1 at T = 3: the draft kept
 * 6 positions (it computed to 5), so it catches up on 2 at 6, drafts at 8; verify 3 at 7; ranks
 * 0, 1 accept 1. Cycle 2 at T = 5: catch-up 1 at 9, draft at 10, verify at 9; rank 2 accepts 0:
 * 6 tokens, done. */
static void test_spec_passes(void)
{
  const int rank[] = {0, 0, 3, 0, 1, 2};
  const ls_cpureplay_pass want[] = {{1, 1, 4, 1, 0}, {1, 1, 5, 1, 0}, {0, 3, 4, 3, 1},
                                    {1, 2, 6, 1, 0}, {1, 1, 8, 1, 0}, {0, 3, 7, 3, 1},
                                    {1, 1, 9, 1, 0}, {1, 1, 10, 1, 0}, {0, 3, 9, 3, 1}};
  ls_cpureplay_pass *q = NULL;
  int n = -1, cycles = -1, gen = -1;
  CU_ASSERT_EQUAL_FATAL(ls_cpureplay_spec_passes(rank, 6, 5, 2, 6, &q, &n, &cycles, &gen), LS_OK);
  CU_ASSERT_EQUAL(n, 9);
  CU_ASSERT_EQUAL(cycles, 3);
  CU_ASSERT_EQUAL(gen, 6);
  for (int i = 0; i < n && i < 9; i++)
    CU_ASSERT(q[i].draft == want[i].draft && q[i].n_tokens == want[i].n_tokens && q[i].ctx == want[i].ctx &&
              q[i].rows == want[i].rows && q[i].cold == want[i].cold);
  free(q);
  /* 5 tokens stop after cycle 1 (5 out); 7 need rank[6], which is not recorded; k out of range */
  CU_ASSERT_EQUAL(ls_cpureplay_spec_passes(rank, 6, 5, 2, 5, &q, &n, &cycles, NULL), LS_OK);
  CU_ASSERT(n == 6 && cycles == 2);
  free(q);
  CU_ASSERT_EQUAL(ls_cpureplay_spec_passes(rank, 6, 5, 2, 7, &q, &n, NULL, NULL), LS_ERANGE);
  CU_ASSERT(q == NULL && n == 0);
  CU_ASSERT_EQUAL(ls_cpureplay_spec_passes(rank, 6, 5, 0, 6, &q, &n, NULL, NULL), LS_ERANGE);
}

static CU_TestInfo cli_tests[] = {{"bad inputs", test_cli_bad_inputs},
                                  {"validate: fastest or median", test_cli_validate_stat},
                                  {"validate: runs H and I", test_cli_validate_runs_h_i},
                                  {"validate: runs N to AE", test_cli_validate_runs_n_ae},
                                  {"the share from either half of a run", test_cli_share_halves},
                                  {"validate: the start's wait, runs H to AI", test_cli_validate_start}, CU_TEST_INFO_NULL};
static CU_TestInfo mapread_tests[] = {{"read-ahead overlap", test_mapread},
                                      {"read-ahead in closed form, one read at a time", test_mapread_readahead_closed_form},
                                      {"a model file as a pass reads it", test_mapread_pass},
                                      {"the read path's work beside the compute", test_mapread_contention},
                                      {"reads slowed by a busy thread", test_mapread_io_share},
                                      {"the share from the busy streams", test_io_share_fit},
                                      {"a read delayed while the thread computes", test_mapread_delay},
                                      {"the share slows only a read the thread waits for", test_mapread_share_waited},
                                      {"the share from the cold pass without rows", test_io_share_pass_fit},
                                      {"the wait at a cold pass's start", test_start_fit},
                                      {"the expected fastest of r repetitions", test_fastest_of},
                                      {"the storage measurements' slots", test_storage_slots},
                                      {"the busy levels reach past 100 %", test_busy_levels},
                                      {"a segment's compute after its last byte", test_mapread_serial},
                                      {"the head's serial share from cold rows passes", test_head_serial_fit},
                                      {"the read path's work beside the compute from the CPU time", test_contention_fit},
                                      {"cpu: weights streamed per token below a batch", test_cpu_batched},
                                      {"the head's rate from the rows passes", test_head_rate},
                                      {"the head's first row from the rows-0 passes", test_head_first_rate},
                                      {"the decode library's CPU replay of recorded passes", test_cpu_replay},
                                      {"a speculative run's passes along ranks, by hand", test_spec_passes},
                                      CU_TEST_INFO_NULL};
static CU_TestInfo driver_tests[] = {
    {"ggml dequantises the writer's Q4_0", test_ggml_reads_q4_0}, {"one thread", test_threads},
    {"the node observer", test_observer},
    {"a batch is one pass", test_batch_one_pass}, {"eviction and bytes read", test_evict_and_bytes},
    CU_TEST_INFO_NULL};
static CU_SuiteInfo suites[] = {{"gguf", NULL, NULL, NULL, NULL, gguf_tests},
                                {"mapread", NULL, NULL, NULL, NULL, mapread_tests},
                                {"cli", NULL, NULL, NULL, NULL, cli_tests},
                                {"driver", driver_init, driver_clean, NULL, NULL, driver_tests},
                                CU_SUITE_INFO_NULL};

/* The library folder from scripts/testbed/fetch.sh; 77 when it cannot be had. */
static int fetch_library(void)
{
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "bash '%s/../scripts/testbed/fetch.sh' '%s/pkg'", LS_TEST_DIR, LS_TB_BUILD);
  FILE *p = popen(cmd, "r");
  if (!p)
    return 77;
  if (!fgets(lib, sizeof lib, p))
    lib[0] = '\0';
  int st = pclose(p);
  lib[strcspn(lib, "\n")] = '\0';
  if (st != 0 || !lib[0]) {
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
    printf("SKIP: the pinned llama.cpp package could not be fetched (fetch.sh exit %d)\n", code);
    return code == 77 ? 77 : 1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  snprintf(work, sizeof work, "%s/test", LS_TB_BUILD);
  mkdir(LS_TB_BUILD, 0755);
  mkdir(work, 0755);
  snprintf(small, sizeof small, "%s/small-8l-1024.gguf", work);
  if (argc > 1 && strcmp(argv[1], "driver") == 0) {
    int rc = fetch_library();
    if (rc)
      return rc;
  }
  return ls_test_main(argc, argv, suites);
}
