/* tests/policies/test_readme: the defaults policies/README.md documents are the registry's.
 *
 * The README holds one machine-readable table, `| family | policy | key | default |`, one row
 * per setting a policy reads (key "—" for a policy that reads none; default "(none)" when the
 * reader offers none). Each registered policy is created on an empty kv; the kv's read log
 * (sim/kv.h) then holds every key it read with the default it used. The test fails when a
 * policy reads a key the table lacks, the table lists a key the policy does not read, the two
 * defaults differ, or a policy of the table is not registered. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ls_test.h"
#include "ptest.h"

#define ROWS_MAX 128

typedef struct {
  char family[16], policy[32], key[48], dflt[64];
  int seen;
} doc_row;

/* Copies the text of a table cell between bars, trimmed and without backquotes. */
static void cell(const char *from, const char *to, char *out, size_t cap)
{
  while (from < to && (*from == ' ' || *from == '`'))
    from++;
  while (to > from && (to[-1] == ' ' || to[-1] == '`'))
    to--;
  size_t n = (size_t)(to - from) < cap - 1 ? (size_t)(to - from) : cap - 1;
  memcpy(out, from, n);
  out[n] = '\0';
}

/* Reads the defaults table; returns the number of rows, -1 when the file or the table is missing. */
static int read_table(doc_row *rows, int max)
{
  FILE *f = fopen(LS_TEST_DIR "/../policies/README.md", "r");
  if (!f)
    return -1;
  char line[512];
  int in = 0, n = 0;
  while (fgets(line, sizeof line, f)) {
    if (!in) {
      in = strncmp(line, "| family | policy | key | default |", 35) == 0;
      continue;
    }
    if (line[0] != '|')
      break;
    if (strncmp(line, "|---", 4) == 0)
      continue;
    const char *bar[5];
    const char *p = line;
    int k = 0;
    while (k < 5 && (p = strchr(p, '|')))
      bar[k++] = p++;
    if (k < 5 || n == max)
      continue;
    cell(bar[0] + 1, bar[1], rows[n].family, sizeof rows[n].family);
    cell(bar[1] + 1, bar[2], rows[n].policy, sizeof rows[n].policy);
    cell(bar[2] + 1, bar[3], rows[n].key, sizeof rows[n].key);
    cell(bar[3] + 1, bar[4], rows[n].dflt, sizeof rows[n].dflt);
    rows[n].seen = 0;
    n++;
  }
  fclose(f);
  return in ? n : -1;
}

/* Numbers compare as numbers ("0.5" = "0.50"), everything else as text. */
static int same_default(const char *doc, const char *code)
{
  if (strcmp(doc, "(none)") == 0)
    return code[0] == '\0';
  char *e1, *e2;
  double a = strtod(doc, &e1), b = strtod(code, &e2);
  if (e1 != doc && !*e1 && e2 != code && !*e2)
    return a == b;
  return strcmp(doc, code) == 0;
}

static doc_row *find_row(doc_row *rows, int n, const char *family, const char *policy, const char *key)
{
  for (int i = 0; i < n; i++)
    if (!strcmp(rows[i].family, family) && !strcmp(rows[i].policy, policy) && !strcmp(rows[i].key, key))
      return &rows[i];
  return NULL;
}

/* Creates one policy on an empty kv and checks each key it read against the table. */
static void check_policy(doc_row *rows, int n, const char *family, const char *policy,
                         int (*create)(void **, ls_kv *, ls_error *), void (*destroy)(void *))
{
  ls_kv *kv = ptest_kv(NULL);
  void *st = NULL;
  ls_error err;
  ls_error_clear(&err);
  CU_ASSERT_EQUAL_FATAL(create(&st, kv, &err), LS_OK);
  destroy(st);
  int reads = ls_kv_read_count(kv);
  for (int i = 0; i < reads; i++) {
    const char *key = ls_kv_read_key(kv, i), *dflt = ls_kv_read_default(kv, i);
    doc_row *r = find_row(rows, n, family, policy, key);
    if (!r || !same_default(r->dflt, dflt))
      fprintf(stderr, "policies/README.md: %s %s reads %s (default '%s'), documented as %s\n", family,
              policy, key, dflt, r ? r->dflt : "absent");
    CU_ASSERT(r && same_default(r->dflt, dflt));
    if (r)
      r->seen = 1;
  }
  doc_row *none = find_row(rows, n, family, policy, "—");
  if (none)
    none->seen = reads == 0;
  if (reads == 0 && !none)
    fprintf(stderr, "policies/README.md: %s %s reads no setting; give it a row with key —\n", family, policy);
  CU_ASSERT(reads > 0 || none);
  ls_kv_free(kv);
}

static void test_readme_defaults(void)
{
  doc_row rows[ROWS_MAX];
  int n = read_table(rows, ROWS_MAX);
  CU_ASSERT_FATAL(n > 0);
  for (const char *const *p = ls_draft_names(); *p; p++) {
    const ls_draft_ops *o = ls_draft_find(*p);
    check_policy(rows, n, "draft", *p, o->create, o->destroy);
  }
  for (const char *const *p = ls_prune_names(); *p; p++) {
    const ls_prune_ops *o = ls_prune_find(*p);
    check_policy(rows, n, "prune", *p, o->create, o->destroy);
  }
  for (const char *const *p = ls_map_names(); *p; p++) {
    const ls_map_ops *o = ls_map_find(*p);
    check_policy(rows, n, "map", *p, o->create, o->destroy);
  }
  for (int i = 0; i < n; i++) {
    if (!rows[i].seen)
      fprintf(stderr, "policies/README.md: %s %s %s is documented but not read (or not registered)\n",
              rows[i].family, rows[i].policy, rows[i].key);
    CU_ASSERT(rows[i].seen);
  }
}

CU_TestInfo ls_t_readme[] = {{"README defaults = what each policy reads", test_readme_defaults},
                             CU_TEST_INFO_NULL};
