/* ls_test: see ls_test.h. */
#include "ls_test.h"
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "results/db.h"
#include "runner/study/driver.h"

const char *ls_test_path(char *buf, unsigned size, const char *rel)
{
  snprintf(buf, size, "%s/%s", LS_TEST_DIR, rel);
  return buf;
}

int ls_test_cli(const char *args, char *out, unsigned size)
{
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", LS_BINARY, args);
  FILE *p = popen(cmd, "r");
  if (!p)
    return -1;
  size_t n = size ? fread(out, 1, size - 1, p) : 0;
  if (size)
    out[n] = '\0';
  char sink[4096]; /* drain what did not fit so the child never blocks on a full pipe */
  while (fread(sink, 1, sizeof sink, p) > 0) {
  }
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int ls_test_main(int argc, char **argv, CU_SuiteInfo *suites)
{
  if (argc > 1 && strcmp(argv[1], "--list") == 0) {
    for (CU_SuiteInfo *s = suites; s->pName; s++)
      puts(s->pName);
    return 0;
  }
  if (CU_initialize_registry() != CUE_SUCCESS || CU_register_suites(suites) != CUE_SUCCESS) {
    fprintf(stderr, "CUnit set-up failed: %s\n", CU_get_error_msg());
    return 2;
  }
  CU_basic_set_mode(CU_BRM_VERBOSE);
  int rc = 0;
  if (argc > 1) {
    CU_pSuite s = CU_get_suite(argv[1]);
    if (!s) {
      fprintf(stderr, "no suite named '%s'\n", argv[1]);
      rc = 2;
    } else {
      CU_basic_run_suite(s);
    }
  } else {
    CU_basic_run_tests();
  }
  unsigned failed = CU_get_number_of_tests_failed();
  unsigned ran = CU_get_number_of_tests_run();
  CU_cleanup_registry();
  if (rc == 0 && ran == 0) {
    fprintf(stderr, "no test ran\n");
    rc = 2;
  }
  return rc ? rc : (failed ? 1 : 0);
}

static int count_row(void *ctx, int n, const char *const *text, const double *num, ls_error *err)
{
  (void)n, (void)text, (void)err;
  *(double *)ctx = num[0];
  return LS_OK;
}

int ls_test_paper_roles(ls_db *db)
{
  double have = 0;
  ls_error err;
  int rc = ls_db_select(db, "SELECT count(*) FROM roles", NULL, 0, count_row, &have, &err);
  if (rc || have > 0) return rc;
  char path[1024];
  snprintf(path, sizeof path, "%s/../runner/experiments/paper.yaml", LS_TEST_DIR);
  ls_kv *roles = NULL;
  rc = ls_kv_create(&roles, &err);
  if (!rc) rc = ls_experiment_roles_file(path, roles, &err);
  /* the names alone: the intervals stay the default (all), which the suites test; the
   * paper's own declaration (intervals.ratios = shown) has a test of its own */
  if (!rc) rc = ls_kv_set(roles, "intervals.metrics", "all", "test", &err);
  if (!rc) rc = ls_kv_set(roles, "intervals.ratios", "all", "test", &err);
  if (!rc) rc = ls_driver_write_roles(db, roles, &err);
  ls_kv_free(roles);
  return rc;
}

char *ls_test_slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
    free(s);
    s = NULL;
  }
  if (s)
    s[n] = '\0';
  fclose(f);
  return s;
}

double ls_test_time_factor(void)
{
  const char *s = getenv("LEVERSIM_TEST_TIME_FACTOR");
  char *end = NULL;
  double f = s && *s ? strtod(s, &end) : 1;
  return end && *end == '\0' && f >= 1 && f <= 1000 ? f : 1;
}
