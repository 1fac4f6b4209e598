/* tests/plots fixture: a synthetic results database with every part the figures read, and
 * temporary folders. See fixture.h for the closed forms of the synthetic numbers. */
#include "fixture.h"
#include "ls_test.h"
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const px_devices[3] = {"oneplus-12", "honor-500-pro", "honor-magic-v5"};
const char *const px_models[4] = {"llama-3.1-8b", "qwen3-4b", "qwen3-8b", "qwen3-14b"};
const char *const px_datasets[4] = {"mt-bench", "humaneval", "mbpp", "gsm8k"};
const char *const px_systems[PX_N_SYSTEMS] = {"ar-mem",    "ar-flash", "sd-chain",
                                              "specinfer", "sequoia",  "eagle2",
                                              "opt-tree",  "lever",    "lever-no-prune"};

/* Lever's throughput divided by each system's (index as px_systems); ar-flash and specinfer
 * vary around the paper's 2.93 and 1.50 by configuration. */
double px_ratio(int sys, int k)
{
  static const double base[PX_N_SYSTEMS] = {0.4, 2.93, 1.9, 1.5, 1.35, 1.3, 1.4, 1, 1.15};
  double wiggle = (sys == 7) ? 0 : 0.02 * (double)(k % 5 - 2);
  return base[sys] + wiggle;
}

double px_io_share(int model, int dataset)
{
  static const double io[4] = {0.914, 0.783, 0.905, 0.933};
  return io[model] + 0.004 * (double)(dataset - 1);
}

static int add_run(ls_db *db, const char *part, const char *dev, const char *model,
                   const char *dataset, const char *system, const char *axes, double tps,
                   double tau, double extra)
{
  char cfg[512], id[LS_DB_RUN_ID_LEN + 1];
  snprintf(cfg, sizeof cfg, "{\"device\":\"%s\",\"model\":\"%s\",\"dataset\":\"%s\",\"system\":"
                            "\"%s\",\"axes\":%s}", dev, model, dataset, system, axes);
  ls_db_hash_run(part, cfg, 7, id);
  ls_db_run r = {id, part, dev, model, dataset, system, axes, cfg, NULL, "test", "ok", NULL, 7, 0.1, NULL, 0, NULL, 0};
  ls_db_metric m[] = {
      {"throughput_tps", tps, "tok/s"},        {"tau", tau, NULL},
      {"io_share", extra, NULL},               {"wasted_verify", 0.3 - 0.1 * (tau > 3), NULL},
      {"energy_per_token_j", 4.0 / tps, "J"},  {"verify_s_mean", 0.4 + 0.01 * tau, "s"},
      {"verify_tokens_mean", 4 * tau, NULL},   {"draft_s_mean", 0.02 + 0.1 * extra, "s"},
      {"lmhead_s_mean", 0.005 + 0.05 * extra, "s"}, {"share_lmhead", 0.1 * extra, NULL},
      {"target_calls_per_token", 1 / tau, NULL},    {"decode_s", 96 / tps, "s"},
      {"tree_size_mean", 3 * tau, NULL},       {"util_npu", 0.5, NULL},
      {"util_cpu", 0.3, NULL}};
  return ls_db_write_run(db, &r, m, (int)(sizeof m / sizeof *m), NULL, 0, NULL);
}

static int fill_main(ls_db *db)
{
  int rc = LS_OK, k = 0;
  for (int d = 0; d < 3; d++)
    for (int m = 0; m < 4; m++)
      for (int s = 0; s < 4; s++, k++) {
        double lever = (m == 1 ? 3.0 : m == 3 ? 0.8 : 1.5) * (1 + 0.1 * d) * (1 + 0.05 * s);
        for (int y = 0; y < PX_N_SYSTEMS && rc == LS_OK; y++)
          rc = add_run(db, "main", px_devices[d], px_models[m], px_datasets[s], px_systems[y], "{}",
                       lever / px_ratio(y, k), y < 2 ? 1 : 2 + 0.3 * y, px_io_share(m, s));
      }
  return rc;
}

static int fill_studies(ls_db *db)
{
  int rc = LS_OK;
  char axes[384];
  static const int budgets[] = {4, 8, 16, 32, 64};
  for (int b = 0; b < 5; b++)
    for (int s = 0; s < 2; s++) {
      snprintf(axes, sizeof axes, "{\"draft.budget\":\"%d\"}", budgets[b]);
      double tau = 1 + log2(budgets[b]) * (s ? 0.7 : 0.6);
      if (rc == LS_OK) rc = add_run(db, "budget", "oneplus-12", "llama-3.1-8b", px_datasets[3 * s],
                                    "eagle2", axes, 2 + b - 0.5 * b * b / 2, tau, 0.9);
      if (rc == LS_OK) rc = add_run(db, "budget", "oneplus-12", "llama-3.1-8b", px_datasets[3 * s],
                                    "lever", axes, 2 + 0.5 * b, tau, 0.9);
    }
  static const char *const maps[] = {"npu", "cpu", "npu-batch", "lever"};
  static const char *const heads[] = {"eager-npu", "demand-npu", "demand-cpu"};
  for (int m = 0; m < 4; m++)
    for (int s = 2; s < 4; s++) {
      if (m == 1) continue; /* Fig. 13/14 use llama-3.1-8b, qwen3-8b, qwen3-14b */
      for (int p = 0; p < 4 && rc == LS_OK; p++) {
        snprintf(axes, sizeof axes, "{\"policy.map\":\"%s\"}", maps[p]);
        rc = add_run(db, "mapping", "oneplus-12", px_models[m], px_datasets[s], "lever", axes,
                     1.5, 3, 0.5 / (1 + p));
      }
      for (int p = 0; p < 3 && rc == LS_OK; p++) {
        snprintf(axes, sizeof axes, "{\"map.lmhead\":\"%s\"}", heads[p]);
        rc = add_run(db, "lmhead", "oneplus-12", px_models[m], px_datasets[s], "lever", axes,
                     1.5, 3, 0.6 / (1 + 2 * p));
      }
    }
  static const char *const bws[] = {"0.5 GB/s", "1 GB/s", "2 GB/s", "4 GB/s", "8 GB/s"};
  static const char *const sens[] = {"ar-flash", "specinfer", "lever"};
  for (int b = 0; b < 5; b++)
    for (int y = 0; y < 3 && rc == LS_OK; y++) {
      snprintf(axes, sizeof axes, "{\"device.flash.bandwidth\":\"%s\"}", bws[b]);
      double bw = 0.5 * (1 << b), tps = bw * (y == 2 ? 1.0 : y == 1 ? 0.7 : 0.35) + 0.1 * y;
      rc = add_run(db, "sensitivity", "oneplus-12", "llama-3.1-8b", "gsm8k", sens[y], axes, tps,
                   1 + y, 0.9);
    }
  /* regime map: two cases (one assumption changed each), every system its claims compare */
  static const char *const cases[] = {"\"device.npu.regime\":\"static-graph\"", "\"verify.overlap\":\"prefetch\""};
  static const char *const reg[] = {"ar-flash", "specinfer", "lever", "lever-no-prune"};
  for (int c = 0; c < 2; c++) {
    const char *base = cases[c];
    for (int y = 0; y < 4 && rc == LS_OK; y++) {
      snprintf(axes, sizeof axes, "{%s}", base);
      rc = add_run(db, "regime", "oneplus-12", "llama-3.1-8b", "gsm8k", reg[y], axes, 1 + y + c, 1 + y, 0.85);
    }
    for (int p = 0; p < 3 && rc == LS_OK; p++) {
      static const char *const rmaps[] = {"cpu", "npu", "lever"};
      snprintf(axes, sizeof axes, "{%s,\"policy.map\":\"%s\"}", base, rmaps[p]);
      rc = add_run(db, "regime-map", "oneplus-12", "llama-3.1-8b", "gsm8k", "lever", axes, 3 + p, 3, 0.85);
    }
    for (int p = 0; p < 3 && rc == LS_OK; p++) {
      static const char *const rheads[] = {"eager-npu", "demand-npu", "demand-cpu"};
      snprintf(axes, sizeof axes, "{%s,\"map.lmhead\":\"%s\"}", base, rheads[p]);
      rc = add_run(db, "regime-lmhead", "oneplus-12", "llama-3.1-8b", "gsm8k", "lever", axes, 3 + c * p, 3, 0.85);
    }
  }  return rc;
}

int px_make_db(const char *path, int parts)
{
  ls_db *db = NULL;
  int rc = ls_db_open(&db, path, NULL);
  if (rc == LS_OK) rc = ls_test_paper_roles(db);
  if (rc == LS_OK && (parts & PX_MAIN)) rc = fill_main(db);
  if (rc == LS_OK && (parts & PX_STUDIES)) rc = fill_studies(db);
  ls_db_close(db);
  return rc;
}

const char *px_tmpdir(char *buf, size_t size)
{
  snprintf(buf, size, "/tmp/ls_plots_XXXXXX");
  return mkdtemp(buf) ? buf : NULL;
}

void px_rmdir(const char *dir)
{
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  char p[1024];
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) px_rmdir(p);
    else unlink(p);
  }
  closedir(d);
  rmdir(dir);
}

char *px_read(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  size_t cap = 0, n = 0, r;
  do {
    if (n + 4096 + 1 > cap) {
      char *b = realloc(buf, cap = 2 * cap + 8192);
      if (!b) break;
      buf = b;
    }
    r = fread(buf + n, 1, cap - n - 1, f);
    n += r;
  } while (r > 0);
  fclose(f);
  if (buf) buf[n] = '\0';
  if (len) *len = n;
  return buf;
}

int px_png_size(const char *path, unsigned *w, unsigned *h, size_t *bytes)
{
  size_t n;
  unsigned char *b = (unsigned char *)px_read(path, &n);
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  int ok = b && n > 24 && !memcmp(b, sig, 8) && !memcmp(b + 12, "IHDR", 4);
  if (ok) {
    *w = (unsigned)b[16] << 24 | (unsigned)b[17] << 16 | (unsigned)b[18] << 8 | b[19];
    *h = (unsigned)b[20] << 24 | (unsigned)b[21] << 16 | (unsigned)b[22] << 8 | b[23];
    *bytes = n;
  }
  free(b);
  return ok;
}
