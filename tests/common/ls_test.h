/* ls_test: the shared CUnit driver. Each tests/<folder> runner lists its suites in one
 * CU_SuiteInfo array and calls ls_test_main; ctest runs one process per suite
 * (`test_<folder> SUITE`, names from tests/<folder>/SUITES) and the runner exits non-zero
 * when any test failed, read before CU_cleanup_registry(). */
#ifndef LS_TEST_H
#define LS_TEST_H
#include <CUnit/CUnit.h>

/* Runs the suite named argv[1] (all suites when absent; `--list` prints their names).
 * Returns the process exit status: 0 when every test passed. */
int ls_test_main(int argc, char **argv, CU_SuiteInfo *suites);

/* Path of a fixture under tests/ (static buffer per call site is the caller's). */
const char *ls_test_path(char *buf, unsigned size, const char *rel);

/* The whole of the file at path, NUL-terminated (owned: free), or NULL when unreadable. */
char *ls_test_slurp(const char *path);

/* Runs the leversim binary with args (a shell-quoted string); captures stdout+stderr into
 * out (truncated to size) and returns the exit status, or -1 if it did not exit normally. */
int ls_test_cli(const char *args, char *out, unsigned size);

/* Records the paper experiment's roles (runner/experiments/paper.yaml) in db unless it has
 * roles already: the views of a database written by hand compare what the replay's do. The
 * intervals roles are recorded as "all" (the default), not as the paper declares them. */
typedef struct ls_db ls_db;
int ls_test_paper_roles(ls_db *db);

/* The factor every time limit of a test harness is multiplied by: LEVERSIM_TEST_TIME_FACTOR
 * (a number >= 1; default 1), which CI or a loaded machine raises. A limit only tells a hang
 * or a minute's wait from "at once"; no test asserts how fast anything is. */
double ls_test_time_factor(void);

#define LS_ASSERT_CLOSE(a, b, rel) \
  CU_ASSERT(fabs((double)(a) - (double)(b)) <= (rel) * fabs((double)(b)))
#endif
