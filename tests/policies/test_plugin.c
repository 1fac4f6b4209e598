/* tests/policies/test_plugin: policy plug-ins (policies/plugin.c), their conformance tests
 * (policies/conform.c) and the commands that use them: `policy check`, `run --plugin`, and
 * the example's Makefile (examples/policy-greedy). The plug-ins are built by CMake into
 * LS_PLUGIN_DIR: the example and tests/policies/plugins (one broken rule per policy). */
#define _GNU_SOURCE /* open_memstream is POSIX 2008; keep the test portable to older libcs */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <unistd.h>
#include "ls_test.h"
#include "policies/conform.h"
#include "policies/plugin.h"

#define PLUG(name) LS_PLUGIN_DIR "/lib" name ".so"

static ls_policy_set *set_with(const char *path, int *rc, ls_error *err)
{
  ls_policy_set *s = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_policy_set_create(&s, err), LS_OK);
  *rc = path ? ls_policy_set_load(s, path, err) : LS_OK;
  return s;
}

/* sha256sum(1), an implementation independent of the one under test. */
static void sha256_of(const char *path, char out[65])
{
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "sha256sum '%s'", path);
  FILE *p = popen(cmd, "r");
  out[0] = '\0';
  if (p) {
    if (fscanf(p, "%64s", out) != 1) out[0] = '\0';
    pclose(p);
  }
}

static void test_load(void)
{
  ls_error err;
  int rc;
  ls_policy_set *s = set_with(PLUG("greedy"), &rc, &err);
  CU_ASSERT_EQUAL(rc, LS_OK);
  const ls_draft_ops *g = ls_policy_set_draft(s, "greedy");
  CU_ASSERT_PTR_NOT_NULL_FATAL(g);
  CU_ASSERT_PTR_NULL(ls_draft_find("greedy")); /* the built-in registry is untouched */
  CU_ASSERT_PTR_EQUAL(ls_policy_set_draft(s, "lever"), ls_draft_find("lever"));
  CU_ASSERT_PTR_NULL(ls_policy_set_prune(s, "greedy")); /* a draft policy only */
  CU_ASSERT_EQUAL(ls_policy_set_origin(s, g), 0);
  CU_ASSERT_EQUAL(ls_policy_set_origin(s, ls_draft_find("lever")), -1);
  /* names: the built-ins, then the plug-in's */
  int n = 0;
  while (ls_policy_set_name(s, LS_FAMILY_DRAFT, n)) n++;
  CU_ASSERT_STRING_EQUAL(ls_policy_set_name(s, LS_FAMILY_DRAFT, n - 1), "greedy");
  char sha[65], prov[640];
  sha256_of(PLUG("greedy"), sha);
  CU_ASSERT_EQUAL(strlen(sha), 64);
  CU_ASSERT_STRING_EQUAL(ls_policy_set_plugin(s, 0).sha256, sha);
  CU_ASSERT_STRING_EQUAL(ls_policy_set_plugin(s, 0).name, "greedy-example");
  CU_ASSERT_EQUAL(ls_policy_set_provenance(s, g, ls_prune_find("none"), ls_map_find("npu"), prov, sizeof prov), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(prov, "\"policy\":\"greedy\""));
  CU_ASSERT_PTR_NOT_NULL(strstr(prov, sha));
  CU_ASSERT_EQUAL(ls_policy_set_provenance(s, ls_draft_find("lever"), NULL, NULL, prov, sizeof prov), 0);
  CU_ASSERT_STRING_EQUAL(prov, ""); /* built-ins name no plug-in */
  /* the same names twice: refused, naming the plug-in that has them */
  CU_ASSERT_EQUAL(ls_policy_set_load(s, PLUG("greedy"), &err), LS_EINVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "already provided by plug-in 'greedy-example'"));
  CU_ASSERT_EQUAL(ls_policy_set_plugins(s), 1);
  ls_policy_set_free(s);
}

static void test_refusals(void)
{
  const struct { const char *path; int rc; const char *says; } cases[] = {
      {PLUG("lsclash"), LS_EINVALID, "'lever' clashes with the built-in"},
      {PLUG("lsnosym"), LS_EINVALID, "not a leversim plug-in"},
      {PLUG("lsoldabi"), LS_EINVALID, "built against another policy.h"},
      {PLUG("lsoldlayout"), LS_EINVALID, "rebuild it"},
      {LS_PLUGIN_DIR "/libnone.so", LS_ENOTFOUND, "libnone.so"},
      {LS_TEST_DIR "/policies/SUITES", LS_EINVALID, "cannot load it"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ls_error err;
    int rc;
    ls_policy_set *s = set_with(cases[i].path, &rc, &err);
    CU_ASSERT_EQUAL(rc, cases[i].rc);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, cases[i].says));
    CU_ASSERT_EQUAL(ls_policy_set_plugins(s), 0);
    CU_ASSERT_PTR_NULL(ls_policy_set_draft(s, "nothing"));
    ls_policy_set_free(s);
  }
}

/* The conformance report of one policy, in memory. */
static char *conform(const ls_policy_set *s, ls_policy_family f, const char *name, int *failed)
{
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  ls_conform_opts o = {NULL, 12, m};
  ls_error err;
  CU_ASSERT_EQUAL(ls_conform_run(s, f, name, &o, failed, &err), LS_OK);
  fclose(m);
  return text;
}

static void test_conform_builtins(void)
{
  for (int f = 0; f < 3; f++)
    for (int i = 0; ls_policy_set_name(NULL, (ls_policy_family)f, i); i++) {
      int failed = -1;
      char *t = conform(NULL, (ls_policy_family)f, ls_policy_set_name(NULL, (ls_policy_family)f, i), &failed);
      CU_ASSERT_EQUAL(failed, 0);
      if (failed) fprintf(stderr, "%s", t);
      CU_ASSERT_PTR_NULL(strstr(t, "FAIL"));
      free(t);
    }
}

/* Every rule-breaker fails its own rule, and only that one. */
static void test_conform_breakers(void)
{
  const struct { ls_policy_family f; const char *name, *rule; } cases[] = {
      {LS_FAMILY_DRAFT, "overbudget", "within-budget"}, {LS_FAMILY_DRAFT, "leaky", "deterministic"},
      {LS_FAMILY_DRAFT, "scribbler", "no-foreign-writes"}, {LS_FAMILY_DRAFT, "forger", "tree-valid"},
      {LS_FAMILY_DRAFT, "deaf", "reads-budget"}, {LS_FAMILY_PRUNE, "orphan", "keep-valid"},
      {LS_FAMILY_MAP, "short", "exec-valid"}};
  ls_error err;
  int rc;
  ls_policy_set *s = set_with(PLUG("lsbad"), &rc, &err);
  CU_ASSERT_EQUAL_FATAL(rc, LS_OK);
  int failed = 0;
  ls_conform_opts o = {NULL, 1, stderr};
  CU_ASSERT_EQUAL(ls_conform_run(s, LS_FAMILY_DRAFT, "orphan", &o, &failed, &err), LS_ENOTFOUND); /* a prune */
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *t = conform(s, cases[i].f, cases[i].name, &failed), want[128];
    CU_ASSERT_EQUAL(failed, 1);
    snprintf(want, sizeof want, "/%s", cases[i].name);
    char *line = strstr(t, "FAIL");
    CU_ASSERT_PTR_NOT_NULL_FATAL(line);
    CU_ASSERT_PTR_NOT_NULL(strstr(line, cases[i].rule));
    CU_ASSERT_PTR_NOT_NULL(strstr(line, want));
    free(t);
  }
  ls_policy_set_free(s);
}

static void test_cli_check(void)
{
  static char out[65536];
  CU_ASSERT_EQUAL(ls_test_cli("policy check '" PLUG("greedy") "'", out, sizeof out), 0);
  const char *rules[] = {"create", "reads-budget", "build-ok", "tree-valid", "within-budget", "deterministic",
                         "no-foreign-writes", "no-crash", "terminates", "us per call", "1 policy checked, 1 conform"};
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
    CU_ASSERT_PTR_NOT_NULL(strstr(out, rules[i]));
  CU_ASSERT_PTR_NULL(strstr(out, "FAIL"));
  /* the rule-breakers: exit 1, each rule named, the crash caught */
  CU_ASSERT_EQUAL(ls_test_cli("policy check '" PLUG("lsbad") "'", out, sizeof out), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "FAIL draft/crasher        no-crash"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "FAIL draft/overbudget     within-budget"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "8 policies checked, 0 conform, 8 break a rule"));
  CU_ASSERT_EQUAL(ls_test_cli("policy check --policy orphan '" PLUG("lsbad") "'", out, sizeof out), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "FAIL prune/orphan         keep-valid"));
  CU_ASSERT_EQUAL(ls_test_cli("policy check '" PLUG("lsclash") "'", out, sizeof out), 65);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "clashes with the built-in"));
  CU_ASSERT_EQUAL(ls_test_cli("policy check --policy medusa", out, sizeof out), 64);
  CU_ASSERT_EQUAL(ls_test_cli("policy check --policy lever --cycles 3", out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "ok   draft/lever"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "ok   map/lever"));
  CU_ASSERT_EQUAL(ls_test_cli("policy list '" PLUG("greedy") "'", out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "greedy-example"));
}

/* A run with a plug-in's policy stores the plug-in's name and file hash; another build of
 * the plug-in is another run. */
static void test_cli_run(void)
{
  static char out[65536];
  char dir[] = "/tmp/ls_plugin_XXXXXX", db[256], args[1024], sha[65];
  CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
  snprintf(db, sizeof db, "%s/g.db", dir);
  snprintf(args, sizeof args, "run --plugin '%s' --system lever --set policy.draft=greedy --device oneplus-12 "
           "--model llama-3.1-8b --dataset mt-bench --prompts 2 --tokens 16 --db '%s' --json", PLUG("greedy"), db);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  sha256_of(PLUG("greedy"), sha);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, sha));
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  CU_ASSERT_EQUAL_FATAL(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(h, "SELECT json_extract(config_json,'$.plugins[0].plugin'), "
                        "json_extract(config_json,'$.plugins[0].sha256'), status FROM runs", -1, &st, NULL), SQLITE_OK);
  CU_ASSERT_EQUAL_FATAL(sqlite3_step(st), SQLITE_ROW);
  CU_ASSERT_STRING_EQUAL((const char *)sqlite3_column_text(st, 0), "greedy-example");
  CU_ASSERT_STRING_EQUAL((const char *)sqlite3_column_text(st, 1), sha);
  CU_ASSERT_STRING_EQUAL((const char *)sqlite3_column_text(st, 2), "ok");
  sqlite3_finalize(st);
  /* the same plug-in again: the same run; another build of it (other bytes): another run */
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "already holds this run"));
  char other[512], cmd[1200];
  snprintf(other, sizeof other, "%s/libgreedy2.so", dir);
  snprintf(cmd, sizeof cmd, "cp '%s' '%s' && printf 'rebuilt' >> '%s'", PLUG("greedy"), other, other);
  CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
  snprintf(args, sizeof args, "run --plugin '%s' --system lever --set policy.draft=greedy --device oneplus-12 "
           "--model llama-3.1-8b --dataset mt-bench --prompts 2 --tokens 16 --db '%s/g.db'", other, dir);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_PTR_NULL(strstr(out, "already holds this run"));
  CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(h, "SELECT count(DISTINCT json_extract(config_json,'$.plugins[0].sha256'))"
                                             " FROM runs", -1, &st, NULL), SQLITE_OK);
  CU_ASSERT_EQUAL(sqlite3_step(st), SQLITE_ROW);
  CU_ASSERT_EQUAL(sqlite3_column_int(st, 0), 2);
  sqlite3_finalize(st);
  sqlite3_close(h);
  /* without the plug-in the name is unknown: a usage error */
  snprintf(args, sizeof args, "run --system lever --set policy.draft=greedy --device oneplus-12 "
           "--model llama-3.1-8b --dataset mt-bench --prompts 2 --tokens 16");
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 64);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "unknown draft policy"));
  snprintf(args, sizeof args, "rm -rf '%s'", dir);
  CU_ASSERT_EQUAL(system(args), 0);
}

/* The example's Makefile, as a user runs it, on a copy (the checkout stays clean), against
 * the in-tree headers through LEVERSIM_INCLUDE. */
static void test_example_makefile(void)
{
  static char out[16384];
  char dir[] = "/tmp/ls_greedy_XXXXXX", cmd[2048];
  CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
  snprintf(cmd, sizeof cmd, "cp '%s/../examples/policy-greedy/greedy.c' '%s/../examples/policy-greedy/Makefile' '%s' && "
           "make -s -C '%s' LEVERSIM_INCLUDE='%s/..' >/dev/null 2>&1", LS_TEST_DIR, LS_TEST_DIR, dir, dir, LS_TEST_DIR);
  CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "policy check '%s/libgreedy.so' --cycles 5", dir);
  CU_ASSERT_EQUAL(ls_test_cli(cmd, out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "1 policy checked, 1 conform"));
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CU_ASSERT_EQUAL(system(cmd), 0);
}

CU_TestInfo ls_t_plugin[] = {{"load, look up, hash, provenance", test_load},
                             {"refusals: clash, no symbol, ABI, missing, not a library", test_refusals},
                             {"policy check: built-ins conform", test_conform_builtins},
                             {"policy check: each rule-breaker fails its rule", test_conform_breakers},
                             {"leversim policy check / list", test_cli_check},
                             {"run --plugin stores name and hash", test_cli_run},
                             {"examples/policy-greedy Makefile", test_example_makefile},
                             CU_TEST_INFO_NULL};
