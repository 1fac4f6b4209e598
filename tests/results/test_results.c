/* tests/results: the CUnit runner for results/ (schema, writer, export, views, merge,
 * concurrent writers, regression check, intervals) and the check/export/merge commands. */
#include "ls_test.h"
#include "fixture.h"

static int cleanup(void)
{
  fx_cleanup();
  return 0;
}

static CU_SuiteInfo suites[] = {
    {"schema", NULL, cleanup, NULL, NULL, fx_schema_tests},
    {"write", NULL, cleanup, NULL, NULL, fx_write_tests},
    {"export", NULL, cleanup, NULL, NULL, fx_export_tests},
    {"views", NULL, cleanup, NULL, NULL, fx_views_tests},
    {"merge", NULL, cleanup, NULL, NULL, fx_merge_tests},
    {"concurrency", NULL, cleanup, NULL, NULL, fx_concurrency_tests},
    {"check", NULL, cleanup, NULL, NULL, fx_check_tests},
    {"cli", NULL, cleanup, NULL, NULL, fx_cli_tests},
    {"stats", NULL, cleanup, NULL, NULL, fx_stats_tests},
    {"safety", NULL, cleanup, NULL, NULL, fx_safety_tests},
    CU_SUITE_INFO_NULL,
};

int main(int argc, char **argv) { return ls_test_main(argc, argv, suites); }
