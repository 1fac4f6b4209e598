/* tests/sim/test_rng: named streams and counter-based draws (sim/rng). */
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdint.h>
#include "ls_test.h"
#include "sim/rng.h"
#include "sim/stats.h"
#include "sim_suites.h"

static void first_draws(uint64_t seed, const char *name, uint64_t id, unsigned long out[8],
                        unsigned long *seed32)
{
  ls_rng *r = NULL;
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_rng_create(&r, seed, name, id, &err), LS_OK);
  *seed32 = ls_rng_seed32(r);
  for (int i = 0; i < 8; i++)
    out[i] = gsl_rng_get(ls_rng_gsl(r));
  ls_rng_free(r);
}

static int same(const unsigned long a[8], const unsigned long b[8])
{
  for (int i = 0; i < 8; i++)
    if (a[i] != b[i])
      return 0;
  return 1;
}

static void test_streams(void)
{
  unsigned long a[8], b[8], s1, s2;
  first_draws(42, "flash.latency", 3, a, &s1);
  first_draws(42, "flash.latency", 3, b, &s2);
  CU_ASSERT_EQUAL(s1, s2);
  CU_ASSERT(same(a, b)); /* deterministic */
  CU_ASSERT(s1 <= 0xffffffffUL); /* GSL keeps 32 bits of a seed: the fold must fit */
  /* Distinct names, ids and seeds give distinct streams. */
  first_draws(42, "flash.latencY", 3, b, &s2);
  CU_ASSERT_NOT_EQUAL(s1, s2);
  CU_ASSERT(!same(a, b));
  first_draws(42, "flash.latency", 4, b, &s2);
  CU_ASSERT_NOT_EQUAL(s1, s2);
  CU_ASSERT(!same(a, b));
  first_draws(43, "flash.latency", 3, b, &s2);
  CU_ASSERT_NOT_EQUAL(s1, s2);
  CU_ASSERT(!same(a, b));
  /* 1000 (name, id) streams: seeds pairwise distinct and in 32 bits. */
  static unsigned long seeds[1000];
  static const char *const names[] = {"arrivals", "service", "oracle", "npu"};
  int bad_width = 0, collisions = 0;
  for (int i = 0; i < 1000; i++) {
    ls_rng *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ls_rng_create(&r, 1, names[i % 4], (uint64_t)(i / 4), NULL), LS_OK);
    seeds[i] = ls_rng_seed32(r);
    bad_width += seeds[i] > 0xffffffffUL;
    ls_rng_free(r);
  }
  for (int i = 0; i < 1000; i++)
    for (int j = i + 1; j < 1000; j++)
      collisions += seeds[i] == seeds[j];
  CU_ASSERT_EQUAL(bad_width, 0);
  CU_ASSERT_EQUAL(collisions, 0);
}

static void test_keys(void)
{
  uint64_t k12 = LS_KEY(7, 1, 2), k21 = LS_KEY(7, 2, 1);
  CU_ASSERT_NOT_EQUAL(k12, k21);                 /* order matters */
  CU_ASSERT_EQUAL(k12, LS_KEY(7, 1, 2));         /* deterministic */
  CU_ASSERT_NOT_EQUAL(LS_KEY(7, 1), LS_KEY(7, 1, 0)); /* length matters */
  CU_ASSERT_NOT_EQUAL(LS_KEY(7, 1, 2), LS_KEY(8, 1, 2));
  const uint64_t v[2] = {1, 2};
  CU_ASSERT_EQUAL(ls_keyn(7, 2, v), k12);
  CU_ASSERT_NOT_EQUAL(ls_key_str(5, "ab"), ls_key_str(5, "ba"));
  CU_ASSERT_NOT_EQUAL(ls_key2(ls_key2(0, 1), 2), ls_key2(ls_key2(0, 2), 1));
  /* ls_mix64 is a bijection: a small sample has no collisions and 0 does not map to 0. */
  CU_ASSERT_NOT_EQUAL(ls_mix64(0), 0);
  CU_ASSERT_NOT_EQUAL(ls_mix64(1), ls_mix64(2));
}

static void test_uniform_moments(void)
{
  ls_stats u = {0}, uo = {0}, z = {0};
  int out_of_range = 0;
  for (uint64_t i = 0; i < 1000000; i++) {
    uint64_t k = LS_KEY(2026, i);
    double x = ls_uniform(k), y = ls_uniform_open(k);
    out_of_range += !(x >= 0.0 && x < 1.0) + !(y > 0.0 && y < 1.0);
    ls_stats_add(&u, x);
    ls_stats_add(&uo, y);
    if (i < 200000)
      ls_stats_add(&z, ls_normal(LS_KEY(99, i)));
  }
  CU_ASSERT_EQUAL(out_of_range, 0);
  /* U(0,1): mean 1/2 (s.e. 2.9e-4), variance 1/12 (s.e. about 7.5e-5); 5 s.e. bands. */
  CU_ASSERT(fabs(u.mean - 0.5) < 5 * sqrt(1.0 / 12 / 1e6));
  CU_ASSERT(fabs(ls_stats_var(&u) - 1.0 / 12) < 5 * sqrt(1.0 / 180 / 1e6));
  CU_ASSERT(fabs(uo.mean - 0.5) < 5 * sqrt(1.0 / 12 / 1e6));
  /* N(0,1) from 2e5 draws: mean s.e. 2.2e-3, variance s.e. 3.2e-3. */
  CU_ASSERT(fabs(z.mean) < 5 * sqrt(1.0 / 2e5));
  CU_ASSERT(fabs(ls_stats_var(&z) - 1.0) < 5 * sqrt(2.0 / 2e5));
  /* Counter-based: the same key always gives the same value, whatever was drawn before. */
  CU_ASSERT_EQUAL(ls_uniform(LS_KEY(2026, 17)), ls_uniform(LS_KEY(2026, 17)));
}

static void test_stream_distribution(void)
{
  /* Exponential(mean 2) from a named stream: mean 2 (s.e. 2e-3 for 10^6 draws). */
  ls_rng *r = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_rng_create(&r, 3, "test.exp", 0, NULL), LS_OK);
  ls_stats s = {0};
  for (int i = 0; i < 1000000; i++)
    ls_stats_add(&s, gsl_ran_exponential(ls_rng_gsl(r), 2.0));
  CU_ASSERT(fabs(s.mean - 2.0) < 5 * 2.0 / 1000.0);
  CU_ASSERT(fabs(ls_stats_sd(&s) - 2.0) < 0.02);
  CU_ASSERT_STRING_EQUAL(gsl_rng_name(ls_rng_gsl(r)), "mt19937");
  ls_rng_free(r);
}

CU_TestInfo ls_t_rng[] = {
    {"named streams: deterministic, distinct, 32-bit seeds", test_streams},
    {"keys: order and length sensitive", test_keys},
    {"ls_uniform / ls_normal moments of 10^6 draws", test_uniform_moments},
    {"a GSL distribution from a named stream", test_stream_distribution},
    CU_TEST_INFO_NULL,
};
