/* tests/results fixture: temporary databases filled with synthetic runs whose ratios are
 * known in closed form, shared by the suites of test_results. */
#ifndef LS_TESTS_RESULTS_FIXTURE_H
#define LS_TESTS_RESULTS_FIXTURE_H
#include <CUnit/CUnit.h>
#include "results/db_int.h"

/* A fresh path "<tmpdir>/<name>" in a per-process temporary directory (static buffer of the
 * caller, size >= 512); any old file of that name (and its -wal/-shm) is removed first. */
const char *fx_path(char *buf, const char *name);
/* Removes the temporary directory and the files fx_path handed out. */
void fx_cleanup(void);

/* FX_PROMPTS prompts of 64 tokens for a run of throughput tps and tau: decode times follow a
 * difficulty shared by every system and a +-2 % jitter of the system's own, scaled so that
 * sum tokens / sum decode_s = tps. */
#define FX_PROMPTS 8
void fx_prompts(const char *system, double tps, double tau, ls_db_prompt *p);
/* Writes one ok run with throughput tps and tau (other metrics derived) and FX_PROMPTS
 * prompts (fx_prompts), returns LS_*. Ratio intervals need ls_db_stats_refresh after. */
int fx_add(ls_db *db, const char *part, const char *device, const char *model,
           const char *dataset, const char *system, const char *axes, uint64_t seed, double tps,
           double tau);
/* fx_add with the given prompts (n of them) instead of fx_prompts' (tps, tau: the metrics
 * written). */
int fx_add_prompts(ls_db *db, const char *part, const char *device, const char *model,
                   const char *dataset, const char *system, const char *axes, uint64_t seed,
                   double tps, double tau, const ls_db_prompt *p, int n);
/* The synthetic 'main' matrix: devices d0,d1 x models m0,m1 x dataset s0, systems lever,
 * ar-flash, specinfer. lever tps = 10 + k, ar-flash = lever / (2 + 0.5 k), specinfer =
 * lever / (1.2 + 0.1 k), k = configuration index 0..3. */
int fx_fill_main(ls_db *db); /* refreshes the intervals */
double fx_main_ratio(const char *system, int k);  /* lever / system of configuration k */
/* One value of a query (first column of the first row), NAN when NULL or no row. */
double fx_query(ls_db *db, const char *sql);

extern CU_TestInfo fx_schema_tests[], fx_write_tests[], fx_export_tests[], fx_views_tests[],
    fx_merge_tests[], fx_concurrency_tests[], fx_check_tests[], fx_cli_tests[], fx_stats_tests[],
    fx_safety_tests[];
#endif
