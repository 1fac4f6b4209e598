/* sim/rng: deterministic random numbers, named streams and counter-based draws.
 *
 * Two kinds, both pure functions of their keys (no global state):
 *  - counter-based draws: ls_uniform(key) maps a 64-bit key to [0,1) through the SplitMix64
 *    finaliser. Keys are built by hashing (seed, ids...) with ls_key*. Used wherever common
 *    random numbers matter (the token oracle): the answer never depends on call order.
 *  - named streams: ls_rng_create(seed, name, id) seeds GSL's gsl_rng_mt19937 (named
 *    explicitly; gsl_rng_env_setup is never called) from the hash of (seed, name, id). GSL's
 *    MT19937 keeps only the low 32 bits of a seed, so the 64-bit hash is folded to 32 bits
 *    (high xor low) first; distinct streams may therefore collide with probability ~2^-32.
 * Never hash swept policy parameters into a key: every system must see the same "text". */
#ifndef LS_SIM_RNG_H
#define LS_SIM_RNG_H
#include <stdint.h>
#include <gsl/gsl_rng.h>
#include "sim/error.h"

/* SplitMix64 finaliser: a bijective 64-bit mix. Inline (with ls_key2 and the uniforms): the
 * oracle, the flash model and the bootstrap call them hundreds of millions of times a replay. */
static inline uint64_t ls_mix64(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
/* ls_key2(h, v) given ls_mix64(h) (for many v with one h: one mix fewer each). */
static inline uint64_t ls_key2_mixed(uint64_t mixed_h, uint64_t v)
{
  return ls_mix64(mixed_h ^ (v + 0x632be59bd9b4e019ULL));
}
/* Combines a running hash with one more value (order matters). */
static inline uint64_t ls_key2(uint64_t h, uint64_t v)
{
  /* Mixing h before adding v makes (a,b) and (b,a) differ. */
  return ls_key2_mixed(ls_mix64(h), v);
}
/* Combines a running hash with a NUL-terminated string. */
uint64_t ls_key_str(uint64_t h, const char *s);
/* ls_key(seed, a, b, c...) with n trailing values. */
uint64_t ls_keyn(uint64_t seed, int n, const uint64_t *vals);
#define LS_KEY(seed, ...) \
  ls_keyn((seed), (int)(sizeof((uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t)), (uint64_t[]){__VA_ARGS__})

/* Uniform on [0,1) with 53 random bits. */
static inline double ls_uniform(uint64_t key)
{
  return (double)(ls_mix64(key) >> 11) * 0x1.0p-53;
}
/* Uniform on (0,1): never 0, never 1 (safe for logs and inverse CDFs). */
static inline double ls_uniform_open(uint64_t key)
{
  return ((double)(ls_mix64(key) >> 12) + 0.5) * 0x1.0p-52;
}
/* Standard normal by inverse CDF of ls_uniform_open(key). */
double ls_normal(uint64_t key);

typedef struct ls_rng ls_rng; /* a named GSL stream */

/* Creates the stream for (seed, name, id). *out is owned by the caller: free with ls_rng_free. */
int ls_rng_create(ls_rng **out, uint64_t seed, const char *name, uint64_t id, ls_error *err);
void ls_rng_free(ls_rng *r);
/* The GSL generator inside (borrowed; valid until ls_rng_free). */
gsl_rng *ls_rng_gsl(ls_rng *r);
/* The 32-bit seed actually given to GSL (for logs and tests). */
unsigned long ls_rng_seed32(const ls_rng *r);

#endif
