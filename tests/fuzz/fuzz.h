/* gst-fx — shared helpers of the libFuzzer targets (tests/fuzz/README.md).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each target defines LLVMFuzzerTestOneInput(). Built with clang -fsanitize=fuzzer it is a
 * libFuzzer binary; built with any compiler and replay.c's main() it replays corpus files (the
 * regression tests of the normal and sanitizer builds). A violated invariant aborts (FUZZ_CHECK),
 * which libFuzzer reports as a crash with the input that caused it. */
#ifndef FX_FUZZ_H
#define FX_FUZZ_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond, ...)                                                                      \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: invariant violated: %s: ", __FILE__, __LINE__, #cond);               \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      abort();                                                                                     \
    }                                                                                              \
  } while (0)

/* Consumes bytes from a fuzz input; past its end every read returns zeros. */
typedef struct {
  const uint8_t *p;
  size_t n;
} fuzz_in_t;

static inline uint8_t fuzz_u8(fuzz_in_t *in)
{
  if (in->n == 0)
    return 0;
  in->n--;
  return *in->p++;
}

static inline uint32_t fuzz_u32(fuzz_in_t *in)
{
  uint32_t v = 0;
  for (int i = 0; i < 4; i++)
    v = (v << 8) | fuzz_u8(in);
  return v;
}

/* A raw double from 8 bytes: any bit pattern (NaN, Inf, subnormal, huge, negative). */
static inline double fuzz_raw_double(fuzz_in_t *in)
{
  uint64_t v = 0;
  double d;
  for (int i = 0; i < 8; i++)
    v = (v << 8) | fuzz_u8(in);
  memcpy(&d, &v, sizeof d);
  return d;
}

/* A double in [lo, hi] from 4 bytes. */
static inline double fuzz_range(fuzz_in_t *in, double lo, double hi)
{
  return lo + (hi - lo) * ((double) fuzz_u32(in) / 4294967295.0);
}

/* Mostly a value in [lo, hi] (log-uniform when lo > 0), sometimes a raw bit pattern, so both the
 * design paths and the refusals are reached. */
static inline double fuzz_param(fuzz_in_t *in, double lo, double hi)
{
  uint8_t sel = fuzz_u8(in);
  if (sel < 24)
    return fuzz_raw_double(in);
  if (lo > 0.0)
    return exp(fuzz_range(in, log(lo), log(hi)));
  return fuzz_range(in, lo, hi);
}

#endif
