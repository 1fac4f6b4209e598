/* tests/sim: the one range table (sim/range.h). Every row is well formed, and for every row the
 * YAML reader and the settings reader give the same verdict as the row itself at its bounds
 * and just past them: a value a file may hold is a value the command line may give. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "ls_test.h"
#include "sim/range.h"
#include "sim_suites.h"

static void test_rows_well_formed(void)
{
  for (int i = 0; i < LS_R_COUNT; i++) {
    const ls_range *r = ls_range_at((ls_range_id)i);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->name);
    CU_ASSERT(r->lo <= r->hi);
    CU_ASSERT(r->where && r->where[0] && r->why && r->why[0]);
    CU_ASSERT(!(r->whole && r->quantity)); /* a whole number carries no unit */
    if (r->whole) CU_ASSERT(r->lo == floor(r->lo) && r->hi == floor(r->hi));
    for (int j = 0; j < i; j++)
      CU_ASSERT(strcmp(r->name, ls_range_at((ls_range_id)j)->name) != 0);
  }
}

/* v as text in the row's base unit. */
static void text_of(const ls_range *r, double v, char *buf, size_t size)
{
  /* units the parser knows; energy per byte has no plain "J/B" */
  static const char *const BASE[LS_U_KIND_COUNT] = {"", "B", "B/s", "s", "Hz", "W", "J", "nJ/B", "FLOP/s", "1/s"};
  double scale = r->quantity && r->unit == LS_U_ENERGY_PER_BYTE ? 1e9 : 1;
  snprintf(buf, size, "%.17g%s%s", v * scale, r->quantity ? " " : "", r->quantity ? BASE[r->unit] : "");
}

/* The verdicts of the YAML reader and of the settings reader on text. */
static void verdicts(ls_range_id id, const char *text, int *in_file, int *on_line)
{
  char doc[128], set[160];
  double v;
  ls_error err;
  ls_ydoc *d = NULL;
  snprintf(doc, sizeof doc, "v: %s\n", text);
  CU_ASSERT_EQUAL_FATAL(ls_ydoc_load_string(&d, "t.yaml", doc, &err), LS_OK);
  ls_ynode root = ls_ydoc_root(d);
  *in_file = ls_range_yreq(&root, "v", id, &v, &err);
  ls_ydoc_free(d);
  ls_kv *kv = NULL;
  snprintf(set, sizeof set, "k=%s", text);
  CU_ASSERT_EQUAL_FATAL(ls_kv_create(&kv, &err), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_kv_assign(kv, set, "--set", &err), LS_OK);
  *on_line = ls_range_kv(kv, "k", id, 0, &v, &err);
  ls_kv_free(kv);
}

static void test_readers_agree_with_rows(void)
{
  char text[64];
  for (int i = 0; i < LS_R_COUNT; i++) {
    const ls_range *r = ls_range_at((ls_range_id)i);
    double below = r->whole ? r->lo - 1 : r->lo > 0 ? r->lo / 2 : r->lo - (r->hi - r->lo) / 2;
    /* a unit written with a scale (nJ/B) rounds at its last bit: step inside by a hair */
    double hair = r->quantity && r->unit == LS_U_ENERGY_PER_BYTE ? 1e-12 : 0;
    double vals[4] = {r->lo * (1 + hair), r->hi * (1 - hair), below, r->whole ? r->hi + 1 : r->hi * 2 + 1};
    for (int k = 0; k < 4; k++) {
      int in_file, on_line, want = k < 2;
      text_of(r, vals[k], text, sizeof text);
      CU_ASSERT_EQUAL(ls_range_check((ls_range_id)i, vals[k]) == 0, want);
      verdicts((ls_range_id)i, text, &in_file, &on_line);
      if ((in_file == LS_OK) != want || (on_line == LS_OK) != want)
        fprintf(stderr, "%s: '%s': file %d, --set %d, want %s\n", r->name, text, in_file, on_line,
                want ? "accepted" : "refused");
      CU_ASSERT_EQUAL(in_file == LS_OK, want);
      CU_ASSERT_EQUAL(on_line == LS_OK, want);
    }
  }
}

/* The run bound: prompts x tokens at LS_RANGE_RUN_TOKENS passes, one more prompt's worth is
 * refused: a usage error when typed, bad input data when read from a file. */
static void test_run_tokens_bound(void)
{
  ls_kv *kv = NULL;
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_kv_create(&kv, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_range_run_tokens(kv, 20, 1e6, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_range_run_tokens(kv, 1, LS_RANGE_RUN_TOKENS, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_range_run_tokens(kv, 21, 1e6, &err), LS_ERANGE); /* defaults: not typed */
  CU_ASSERT_EQUAL(ls_kv_set(kv, "workload.prompts", "21", "--prompts", &err), LS_OK);
  CU_ASSERT_EQUAL(ls_range_run_tokens(kv, 21, 1e6, &err), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--prompts"));
  ls_kv_free(kv);
  CU_ASSERT_EQUAL_FATAL(ls_kv_create(&kv, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_set(kv, "workload.max_tokens", "1000000", "x.yaml:9:5", &err), LS_OK);
  CU_ASSERT_EQUAL(ls_range_run_tokens(kv, 21, 1e6, &err), LS_ERANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "x.yaml:9:5"));
  ls_kv_free(kv);
}

/* Each setting the table maps to a row is named in that row's keys, so `leversim settings`
 * tells where it is read; and a key it does not know maps to none. */
static void test_settings_named_in_rows(void)
{
  static const char *const keys[] = {"device.flash.bandwidth", "device.flash.chunk", "device.flash.queue_depth",
                                     "device.dram.budget", "device.npu.dispatch", "device.npu.vec_flops",
                                     "device.npu.mat_min", "device.cpu.threads", "run.threads",
                                     "workload.prompts", "workload.max_tokens", "workload.auc",
                                     "workload.alpha", "workload.p"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    int id = ls_range_of_setting(keys[i]);
    CU_ASSERT_FATAL(id >= 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(ls_range_at((ls_range_id)id)->where, keys[i]));
  }
  CU_ASSERT_EQUAL(ls_range_of_setting("draft.budget"), -1);
}

CU_TestInfo ls_t_range[] = {{"the settings' rows name them", test_settings_named_in_rows},{"every row is well formed", test_rows_well_formed},
                            {"a file and the command line accept exactly a row's values", test_readers_agree_with_rows},
                            {"a run's prompts x tokens are bounded", test_run_tokens_bound},
                            CU_TEST_INFO_NULL};
