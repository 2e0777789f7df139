/* gst-fx — the small check harness shared by the tests in tests/dsp (plain C, no framework).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * CHECK(cond, fmt, ...) counts a check and, when cond is false, a failure, reporting the first
 * FXCHECK_MAX_REPORTS failures (define it before including this header to cap them) on stderr.
 * A test's main() prints `checks` / `failures` and returns non-zero when failures > 0. Also a
 * small deterministic random generator (xorshift64), so test data do not depend on libc. */
#ifndef FX_TESTS_FXCHECK_H
#define FX_TESTS_FXCHECK_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#ifndef FXCHECK_MAX_REPORTS
#define FXCHECK_MAX_REPORTS INT_MAX
#endif

static int failures = 0;
static int checks = 0;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    checks++;                                                                                      \
    if (!(cond)) {                                                                                 \
      failures++;                                                                                  \
      if (failures <= FXCHECK_MAX_REPORTS) {                                                       \
        fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                            \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
      }                                                                                            \
    }                                                                                              \
  } while (0)

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static inline void rng_seed(uint64_t s)
{
  rng_state = s ? s : 1;
}

static inline uint64_t rng_next(void)
{
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
