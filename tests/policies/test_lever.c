/* tests/policies/test_lever: properties of Lever's gain/cost tree builder.
 *
 * Why the monotonicity properties hold (draft_lever.c): the order of candidates and batches
 * depends on gains only; costs choose n* = argmax E(n) / (D + V(n)) and whether to run the
 * next round. If V'(n) = V(n) + c(n) with c >= 0 non-increasing in n (slower flash: every
 * layer waits longer for I/O; max(io', x) - max(io, x) falls as compute x grows), a larger n
 * preferred under V stays preferred under V' (E2 T1 >= E1 T2 and E2 c1 >= E1 c2). Per-token
 * compute growth adds c(n) rising with n at least as fast as E(n), the reverse. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ls_test.h"
#include "ptest.h"

static int lever_size(const ls_draft_view *v, ptest_cost *pc, const char *settings)
{
  ls_cost_model c;
  ptest_cost_bind(pc, &c);
  ls_tree *t = malloc(sizeof *t);
  int rc = ptest_build("lever", settings, t, v, &c);
  int n = rc == LS_OK && ptest_tree_ok(t) ? t->n : -1;
  free(t);
  return n;
}

static void test_lever_flash(void)
{
  const double io[] = {0.0, 0.001, 0.002, 0.004, 0.008, 0.016, 0.03, 0.06, 0.12, 0.25};
  int grew = 0;
  for (int seed = 1; seed <= 12; seed++) {
    ptest_rview rv;
    ls_draft_view v;
    ptest_rview_init(&rv, (uint64_t)seed, 10, 0.0, &v);
    for (int pad = 1; pad <= 16; pad *= 4) {
      int prev = 0;
      for (int i = 0; i < 10; i++) {
        ptest_cost pc = {32, pad, io[i], 0.0005, 0.00005, 0.004, 0.0005};
        int n = lever_size(&v, &pc, "draft.budget=64");
        CU_ASSERT(n >= prev);
        CU_ASSERT(n <= 64);
        grew += n > prev && i > 0;
        prev = n;
      }
    }
  }
  CU_ASSERT(grew > 0); /* the property is not vacuous */
}

static void test_lever_npu_cost(void)
{
  const double c1[] = {0.0, 0.00001, 0.00003, 0.0001, 0.0003, 0.001, 0.003};
  int shrank = 0;
  for (int seed = 1; seed <= 12; seed++) {
    ptest_rview rv;
    ls_draft_view v;
    ptest_rview_init(&rv, (uint64_t)seed, 10, 0.0, &v);
    int prev = LS_TREE_MAX;
    for (int i = 0; i < 7; i++) {
      ptest_cost pc = {32, 1, 0.02, 0.001, c1[i], 0.004, 0.0005};
      int n = lever_size(&v, &pc, "draft.budget=64");
      CU_ASSERT(n >= 1 && n <= prev);
      shrank += n < prev && i > 0;
      prev = n;
    }
  }
  CU_ASSERT(shrank > 0);
}

static void test_lever_free_verification(void)
{
  for (int seed = 1; seed <= 10; seed++) {
    ptest_rview rv;
    ls_draft_view v;
    ptest_rview_init(&rv, (uint64_t)seed, 10, 0.0, &v);
    ptest_cost free_verify = {32, 1, 0.05, 0.0, 0.0, 0.0005, 0.00001}; /* V constant, cheap drafting */
    CU_ASSERT_EQUAL(lever_size(&v, &free_verify, "draft.budget=64"), 64);
    CU_ASSERT_EQUAL(lever_size(&v, &free_verify, "draft.budget=20"), 20);
    ls_tree *t = malloc(sizeof *t);
    CU_ASSERT_EQUAL(ptest_build("lever", "draft.budget=40", t, &v, NULL), LS_OK); /* no costs */
    CU_ASSERT_EQUAL(t->n, 40);
    free(t);
  }
}

/* The gains are the draft path probabilities before any feedback; the tree is the top n-1
 * of them, so its value is at least that of every other policy's tree of the same size on a
 * positional view, and the kept nodes are connected. */
static void test_lever_best_of_pool(void)
{
  double p[4] = {0.5, 0.25, 0.15, 0.1}; /* sums to 1: draft probabilities = acceptance */
  ls_posview pv;
  ls_draft_view v;
  ls_posview_init(&pv, p, 4, 3, &v, NULL);
  ls_tree *t = malloc(sizeof *t), *s = malloc(sizeof *s);
  CU_ASSERT_EQUAL(ptest_build("lever", "draft.budget=24;draft.topk=4", t, &v, NULL), LS_OK);
  CU_ASSERT_EQUAL(ptest_build("sequoia", "draft.budget=24;draft.width=4;draft.max_depth=12;draft.acceptance=0.5,0.25,0.15,0.1",
                              s, &v, NULL),
                  LS_OK);
  CU_ASSERT_EQUAL(t->n, s->n);
  LS_ASSERT_CLOSE(ls_posview_expected(&pv, t), ls_posview_expected(&pv, s), 1e-9);
  free(t);
  free(s);
}

/* Equal gains keep the order of creation (the pool is sorted by gain, then node index): with
 * every candidate equally likely and room for five nodes, the root's three children come
 * first, are expanded in rank order, and the two places left go to the first children of
 * the root's rank-0 child. Kills a pool insertion that puts a new node before its equals. */
static void test_lever_ties(void)
{
  double p[3] = {0.25, 0.25, 0.25};
  ls_posview pv;
  ls_draft_view v;
  ls_posview_init(&pv, p, 3, 3, &v, NULL);
  ls_tree *t = malloc(sizeof *t);
  CU_ASSERT_EQUAL_FATAL(ptest_build("lever", "draft.budget=6;draft.topk=3", t, &v, NULL), LS_OK);
  CU_ASSERT_EQUAL_FATAL(t->n, 6);
  CU_ASSERT(ptest_tree_ok(t));
  int first = -1, deep = 0;
  for (int i = 1; i < t->n; i++)
    if (t->depth[i] == 1 && t->rank[i] == 0)
      first = i;
  for (int i = 1; i < t->n; i++)
    if (t->depth[i] == 2) {
      deep++;
      CU_ASSERT_EQUAL(t->parent[i], first);
    }
  CU_ASSERT_EQUAL(deep, 2);
  free(t);
}

/* Equal gains of an old pool entry and a new node (the new ones merged at the end of a round,
 * merge_new): the new node goes after its equals. Draft probabilities 1/2, 1/4, 1/4, one node
 * per pass, no cost, depth cap 3: the root's rank-1 and rank-2 children (gain 1/4) join first,
 * then the rank-0 child's rank-0 child (1/2 x 1/2 = 1/4, exact); the next pass expands the
 * root's rank-1 child, so its children are created before the grandchild's. Kills a merge that
 * puts a new node before an old one of equal gain, and an unstable sort of the new ones. */
static void test_lever_merge_ties(void)
{
  double p[3] = {0.5, 0.25, 0.25};
  ls_posview pv;
  ls_draft_view v;
  ls_posview_init(&pv, p, 3, 3, &v, NULL);
  ls_tree *t = malloc(sizeof *t);
  CU_ASSERT_EQUAL_FATAL(ptest_build("lever", "draft.budget=64;draft.topk=3;draft.width=1;draft.max_depth=3", t, &v, NULL),
                        LS_OK);
  CU_ASSERT_EQUAL_FATAL(t->n, 40); /* 1 + 3 + 9 + 27: every node below the cap expanded */
  CU_ASSERT(ptest_tree_ok(t));
  int kid[3] = {-1, -1, -1}, grand = -1, first_of_kid1 = -1, first_of_grand = -1;
  for (int i = 1; i < t->n; i++)
    if (t->depth[i] == 1)
      kid[t->rank[i]] = i;
  for (int i = 1; i < t->n; i++)
    if (t->depth[i] == 2 && t->parent[i] == kid[0] && t->rank[i] == 0)
      grand = i;
  CU_ASSERT_FATAL(kid[1] > 0 && grand > 0);
  for (int i = t->n - 1; i > 0; i--) {
    if (t->parent[i] == kid[1])
      first_of_kid1 = i;
    if (t->parent[i] == grand)
      first_of_grand = i;
  }
  CU_ASSERT(first_of_kid1 > 0 && first_of_grand > 0);
  CU_ASSERT(first_of_kid1 < first_of_grand);
  free(t);
}

/* Feedback: if nothing is ever accepted, the corrected gains collapse and the tree shrinks
 * under a cost model where verification has a per-token price. */
static void test_lever_feedback(void)
{
  ptest_rview rv;
  ls_draft_view v;
  ptest_rview_init(&rv, 5, 10, 0.0, &v);
  ls_kv *kv = ptest_kv("draft.budget=64");
  void *st = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_draft_lever.create(&st, kv, NULL), LS_OK);
  ptest_cost pc = {32, 1, 0.0, 0.001, 0.00005, 0.002, 0.0002};
  ls_cost_model c;
  ptest_cost_bind(&pc, &c);
  ls_tree *t = malloc(sizeof *t);
  CU_ASSERT_EQUAL(ls_draft_lever.build(st, t, &v, &c, NULL), LS_OK);
  int first = t->n;
  for (int i = 0; i < 300; i++) {
    ls_draft_lever.feedback(st, t, NULL, 0);
    CU_ASSERT_EQUAL(ls_draft_lever.build(st, t, &v, &c, NULL), LS_OK);
  }
  CU_ASSERT(t->n < first);
  CU_ASSERT(ptest_tree_ok(t));
  ls_draft_lever.destroy(st);
  ls_kv_free(kv);
  free(t);
}

CU_TestInfo ls_t_lever[] = {{"slower flash never shrinks the tree", test_lever_flash},
                            {"costlier NPU tokens never grow the tree", test_lever_npu_cost},
                            {"free verification grows to the budget", test_lever_free_verification},
                            {"tree = best of its candidate pool", test_lever_best_of_pool},
                            {"online statistics shrink an unrewarded tree", test_lever_feedback},
                            {"equal gains keep the order of creation", test_lever_ties},
                            {"a merged node goes after its old equals", test_lever_merge_ties},
                            CU_TEST_INFO_NULL};
