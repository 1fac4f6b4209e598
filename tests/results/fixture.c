/* tests/results fixture: temporary files and synthetic runs (see fixture.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fixture.h"
#include "ls_test.h"
#include "sim/rng.h"

static char tmpdir[256];
static char made[64][512];
static int n_made;

static void rm_db_files(const char *p)
{
  char b[600];
  unlink(p);
  snprintf(b, sizeof b, "%s-wal", p);
  unlink(b);
  snprintf(b, sizeof b, "%s-shm", p);
  unlink(b);
  snprintf(b, sizeof b, "%s.tmp", p);
  unlink(b);
}

const char *fx_path(char *buf, const char *name)
{
  if (!tmpdir[0]) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ls_results_XXXXXX");
    if (!mkdtemp(tmpdir)) tmpdir[0] = '\0';
  }
  snprintf(buf, 512, "%s/%s", tmpdir, name);
  rm_db_files(buf);
  int seen = 0;
  for (int i = 0; i < n_made; i++) seen |= !strcmp(made[i], buf);
  if (!seen && n_made < 64) snprintf(made[n_made++], sizeof made[0], "%s", buf);
  return buf;
}

void fx_cleanup(void)
{
  for (int i = 0; i < n_made; i++) rm_db_files(made[i]);
  n_made = 0;
  if (tmpdir[0]) rmdir(tmpdir);
  tmpdir[0] = '\0';
}

int fx_add(ls_db *db, const char *part, const char *device, const char *model,
           const char *dataset, const char *system, const char *axes, uint64_t seed, double tps,
           double tau)
{
  ls_db_prompt pr[FX_PROMPTS];
  fx_prompts(system, tps, tau, pr);
  return fx_add_prompts(db, part, device, model, dataset, system, axes, seed, tps, tau, pr, FX_PROMPTS);
}

int fx_add_prompts(ls_db *db, const char *part, const char *device, const char *model,
                   const char *dataset, const char *system, const char *axes, uint64_t seed,
                   double tps, double tau, const ls_db_prompt *pr, int n)
{
  char cfg[512], id[LS_DB_RUN_ID_LEN + 1];
  snprintf(cfg, sizeof cfg, "{\"device\":\"%s\",\"model\":\"%s\",\"dataset\":\"%s\","
                            "\"system\":\"%s\",\"axes\":%s}", device, model, dataset, system, axes);
  ls_db_hash_run(part, cfg, seed, id);
  if (ls_test_paper_roles(db)) return LS_EDB;
  ls_db_run r = {id, part, device, model, dataset, system, axes, cfg, "abc123", "0.1.0", "ok",
                 NULL, seed, 0.5, NULL, 0, pr, n};
  ls_db_metric m[] = {{"throughput_tps", tps, "tok/s"}, {"tau", tau, NULL},
                      {"io_share", 0.9 - 0.01 * tau, NULL}, {"energy_per_token_j", 1.0 / tps, "J"},
                      {"verify_s_mean", 0.1 * tau, "s"}, {"decode_s", 100 / tps, "s"}};
  ls_db_step st[] = {{0, 8, 8, 2, 0.01, 0.2, 0.001}, {1, 8, 6, 3, 0.01, 0.2, 0.001}};
  return ls_db_write_run(db, &r, m, 6, st, 2, NULL);
}

void fx_prompts(const char *system, double tps, double tau, ls_db_prompt *p)
{
  double sum = 0;
  for (int j = 0; j < FX_PROMPTS; j++) {
    memset(&p[j], 0, sizeof p[j]);
    p[j].prompt = j;
    p[j].tokens = 64;
    p[j].cycles = 64 / tau;
    p[j].tau_sum = 64;
    double noise = ls_uniform(ls_key_str((uint64_t)j + 1, system)) - 0.5;
    p[j].decode_s = (0.6 + 0.1 * j) * (1 + 0.04 * noise); /* shared difficulty, own jitter */
    sum += p[j].decode_s;
  }
  for (int j = 0; j < FX_PROMPTS; j++) p[j].decode_s *= 64 * FX_PROMPTS / tps / sum;
}

double fx_main_ratio(const char *system, int k)
{
  if (!strcmp(system, "ar-flash")) return 2 + 0.5 * k;
  if (!strcmp(system, "specinfer")) return 1.2 + 0.1 * k;
  return 1;
}

int fx_fill_main(ls_db *db)
{
  static const char *const sys[] = {"lever", "ar-flash", "specinfer"};
  int rc = LS_OK;
  for (int k = 0; k < 4 && rc == LS_OK; k++) {
    char dev[8], mod[8];
    snprintf(dev, sizeof dev, "d%d", k / 2);
    snprintf(mod, sizeof mod, "m%d", k % 2);
    double lever = 10 + k;
    for (int s = 0; s < 3 && rc == LS_OK; s++)
      rc = fx_add(db, "main", dev, mod, "s0", sys[s], "{}", 7, lever / fx_main_ratio(sys[s], k),
                  2 + s);
  }
  return rc == LS_OK ? ls_db_stats_refresh(db, NULL) : rc;
}

double fx_query(ls_db *db, const char *sql)
{
  sqlite3_stmt *st = NULL;
  double v = NAN;
  if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "fx_query: %s: %s\n", sql, sqlite3_errmsg(db->h));
    return v;
  }
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
    v = sqlite3_column_double(st, 0);
  sqlite3_finalize(st);
  return v;
}
