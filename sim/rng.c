/* sim/rng: see rng.h.
 * SplitMix64 (Steele, Lea, Flood 2014) constants; the finaliser is a bijection on 64 bits, so
 * distinct keys give distinct outputs before the reduction to 53 bits. */
#include "sim/rng.h"
#include <gsl/gsl_cdf.h>
#include <stdlib.h>

struct ls_rng {
  gsl_rng *g;
  unsigned long seed32;
};

uint64_t ls_key_str(uint64_t h, const char *s)
{
  uint64_t acc = 0xcbf29ce484222325ULL; /* FNV-1a over the bytes, then mixed in */
  for (; *s; s++)
    acc = (acc ^ (unsigned char)*s) * 0x100000001b3ULL;
  return ls_key2(h, acc);
}

uint64_t ls_keyn(uint64_t seed, int n, const uint64_t *vals)
{
  uint64_t h = ls_mix64(seed);
  for (int i = 0; i < n; i++)
    h = ls_key2(h, vals[i]);
  return h;
}

double ls_normal(uint64_t key)
{
  return gsl_cdf_ugaussian_Pinv(ls_uniform_open(key));
}

int ls_rng_create(ls_rng **out, uint64_t seed, const char *name, uint64_t id, ls_error *err)
{
  *out = NULL;
  ls_rng *r = calloc(1, sizeof *r);
  if (!r)
    return ls_error_set(err, LS_ENOMEM, "rng: out of memory");
  r->g = gsl_rng_alloc(gsl_rng_mt19937);
  if (!r->g) {
    free(r);
    return ls_error_set(err, LS_ENOMEM, "rng: gsl_rng_alloc failed");
  }
  uint64_t h = ls_key2(ls_key_str(ls_mix64(seed), name), id);
  r->seed32 = (unsigned long)((h >> 32) ^ (h & 0xffffffffULL));
  gsl_rng_set(r->g, r->seed32);
  *out = r;
  return LS_OK;
}

void ls_rng_free(ls_rng *r)
{
  if (!r)
    return;
  gsl_rng_free(r->g);
  free(r);
}

gsl_rng *ls_rng_gsl(ls_rng *r) { return r->g; }
unsigned long ls_rng_seed32(const ls_rng *r) { return r->seed32; }
