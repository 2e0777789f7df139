/* gst-fx — the small check harness shared by the tests in tests/dsp (plain C, no framework).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * CHECK(cond, fmt, ...) counts a check and, when cond is false, a failure, reporting the first
 * FXCHECK_MAX_REPORTS failures (define it before including this header to cap them) on stderr.
 * A test's main() prints `checks` / `failures` and returns non-zero when failures > 0. Also a
 * small deterministic random generator (xorshift64), so test data do not depend on libc.
 *
 * Random test data are the same on every run: the generator starts from a fixed default seed and
 * every rng_seed(s) in a test is a fixed value. FX_TEST_SEED=<n> (decimal or 0x hex) draws other
 * data: the default start becomes n and every rng_seed(s) is mixed with n (so a test that reseeds
 * twice with the same s still gets the same data twice). The first failure prints the seed in
 * use, so that a failure found with another seed can be repeated. */
#ifndef FX_TESTS_FXCHECK_H
#define FX_TESTS_FXCHECK_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#ifndef FXCHECK_MAX_REPORTS
#define FXCHECK_MAX_REPORTS INT_MAX
#endif

static int failures = 0;
static int checks = 0;

/* FX_TEST_SEED: *v receives its value when it is set (returns 1), else returns 0. */
static inline int fxcheck_env_seed(uint64_t *v)
{
  static int done = 0, set = 0;
  static uint64_t val = 0;
  if (!done) {
    const char *s = getenv("FX_TEST_SEED");
    if (s && *s) {
      val = strtoull(s, NULL, 0);
      set = 1;
    }
    done = 1;
  }
  if (set && v)
    *v = val;
  return set;
}

static inline void fxcheck_print_seed(void)
{
  uint64_t v;
  if (fxcheck_env_seed(&v))
    fprintf(stderr, "(random test data from FX_TEST_SEED=%llu; the same value repeats them)\n",
            (unsigned long long) v);
  else
    fprintf(stderr, "(random test data from the fixed default seeds: FX_TEST_SEED unset)\n");
}

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    checks++;                                                                                      \
    if (!(cond)) {                                                                                 \
      failures++;                                                                                  \
      if (failures == 1)                                                                           \
        fxcheck_print_seed();                                                                      \
      if (failures <= FXCHECK_MAX_REPORTS) {                                                       \
        fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                            \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
      }                                                                                            \
    }                                                                                              \
  } while (0)

#define FXCHECK_DEFAULT_SEED 0x9E3779B97F4A7C15ull
static uint64_t rng_state = 0;

/* splitmix64's finaliser: a seed from (s, FX_TEST_SEED) with every bit of both mattering */
static inline uint64_t fxcheck_mix(uint64_t s, uint64_t e)
{
  uint64_t z = s ^ (e * 0xBF58476D1CE4E5B9ull) ^ 0x94D049BB133111EBull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Seeds the generator with a test's fixed value s (mixed with FX_TEST_SEED when that is set). */
static inline void rng_seed(uint64_t s)
{
  uint64_t e;
  if (fxcheck_env_seed(&e))
    s = fxcheck_mix(s, e);
  rng_state = s ? s : 1;
}

/* Seeds the generator with a value drawn from it (derived seeds already depend on the test's
 * seed, FX_TEST_SEED included: not mixed again). */
static inline void rng_seed_raw(uint64_t s)
{
  rng_state = s ? s : 1;
}

/* Seeds the generator for a test's main stream of random data: FX_TEST_SEED itself when it is
 * set, else the test's default. Returns the seed. */
static inline uint64_t fxcheck_seed(uint64_t dflt)
{
  uint64_t e;
  const uint64_t s = fxcheck_env_seed(&e) ? e : dflt;
  rng_state = s ? s : 1;
  return s;
}

static inline uint64_t rng_next(void)
{
  if (rng_state == 0)
    fxcheck_seed(FXCHECK_DEFAULT_SEED);
  uint64_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  rng_state = x;
  return x;
}

static inline double rng_uniform(void) /* [-1, 1) */
{
  return (double) (rng_next() >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

#endif
