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

/* Writes one ok run with throughput tps and tau (other metrics derived), returns LS_*. */
int fx_add(ls_db *db, const char *part, const char *device, const char *model,
           const char *dataset, const char *system, const char *axes, uint64_t seed, double tps,
           double tau);
/* The synthetic 'main' matrix: devices d0,d1 x models m0,m1 x dataset s0, systems lever,
 * ar-flash, specinfer. lever tps = 10 + k, ar-flash = lever / (2 + 0.5 k), specinfer =
 * lever / (1.2 + 0.1 k), k = configuration index 0..3. */
int fx_fill_main(ls_db *db);
double fx_main_ratio(const char *system, int k);  /* lever / system of configuration k */
/* One value of a query (first column of the first row), NAN when NULL or no row. */
double fx_query(ls_db *db, const char *sql);

extern CU_TestInfo fx_schema_tests[], fx_write_tests[], fx_export_tests[], fx_views_tests[],
    fx_merge_tests[], fx_concurrency_tests[], fx_check_tests[], fx_cli_tests[];
#endif
