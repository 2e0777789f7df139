/* gst-fx — replacing non-finite input samples by 0. Pure C11, no GLib. See finite.h.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "finite.h"

#include <stdint.h>
#include <string.h>

/* Samples per block of the scan: the test is ORed over a block of a fixed size (integer operations
 * on the exponent field only, so the compiler vectorizes it without reassociating floating point),
 * and only a block with a hit is walked sample by sample. Short arrays (the engine's state and
 * history, a few dozen numbers) and the tails of long ones go by blocks of SHORT, also of a fixed
 * size, so they are unrolled rather than walked one number at a time. */
#define BLOCK 64
#define SHORT 8

#define FX_FINITE_FUNCS(SUFFIX, T, U, MASK, LOW)                                                   \
  /* 1 when one of the len samples has an all-ones exponent (NaN or Inf). (b & MASK) + LOW, LOW    \
   * the exponent's lowest bit, reaches the sign bit exactly for an all-ones exponent, so the      \
   * scan is an AND, an ADD and an OR per sample, tested once at the end. */                       \
  static inline int bad_##SUFFIX(const T *x, size_t len)                                           \
  {                                                                                                \
    U acc = 0;                                                                                     \
    for (size_t k = 0; k < len; k++) {                                                             \
      U b;                                                                                         \
      memcpy(&b, x + k, sizeof(b));                                                                \
      acc |= (b & (MASK)) + (LOW);                                                                 \
    }                                                                                              \
    return (acc & ((MASK) + (LOW))) != 0;                                                          \
  }                                                                                                \
  static int block_bad_##SUFFIX(const T *x)                                                        \
  {                                                                                                \
    return bad_##SUFFIX(x, BLOCK);                                                                 \
  }                                                                                                \
  /* the same below BLOCK: blocks of SHORT, then the rest (< SHORT) */                             \
  static int tail_bad_##SUFFIX(const T *x, size_t len)                                             \
  {                                                                                                \
    size_t i = 0;                                                                                  \
    int bad = 0;                                                                                   \
    for (; i + SHORT <= len; i += SHORT)                                                           \
      bad |= bad_##SUFFIX(x + i, SHORT);                                                           \
    return bad | (i < len && bad_##SUFFIX(x + i, len - i));                                        \
  }                                                                                                \
  static size_t zero_##SUFFIX(T *x, size_t len)                                                    \
  {                                                                                                \
    size_t replaced = 0;                                                                           \
    for (size_t k = 0; k < len; k++) {                                                             \
      U b;                                                                                         \
      memcpy(&b, x + k, sizeof(b));                                                                \
      if ((b & (MASK)) == (MASK)) {                                                                \
        x[k] = (T) 0;                                                                              \
        replaced++;                                                                                \
      }                                                                                            \
    }                                                                                              \
    return replaced;                                                                               \
  }                                                                                                \
  size_t fx_zero_nonfinite_##SUFFIX(T *x, size_t n)                                                \
  {                                                                                                \
    size_t i = 0, replaced = 0;                                                                    \
    for (; i + BLOCK <= n; i += BLOCK)                                                             \
      if (block_bad_##SUFFIX(x + i))                                                               \
        replaced += zero_##SUFFIX(x + i, BLOCK);                                                   \
    if (i < n && tail_bad_##SUFFIX(x + i, n - i))                                                  \
      replaced += zero_##SUFFIX(x + i, n - i);                                                     \
    return replaced;                                                                               \
  }                                                                                                \
  static int has_nonfinite_##SUFFIX(const T *x, size_t n)                                          \
  {                                                                                                \
    size_t i = 0;                                                                                  \
    for (; i + BLOCK <= n; i += BLOCK)                                                             \
      if (block_bad_##SUFFIX(x + i))                                                               \
        return 1;                                                                                  \
    return i < n && tail_bad_##SUFFIX(x + i, n - i);                                               \
  }

FX_FINITE_FUNCS(f32, float, uint32_t, 0x7f800000u, 0x00800000u)
FX_FINITE_FUNCS(f64, double, uint64_t, 0x7ff0000000000000ull, 0x0010000000000000ull)

size_t fx_zero_nonfinite(void *x, size_t n, int is_f64)
{
  if (!x || n == 0)
    return 0;
  return is_f64 ? fx_zero_nonfinite_f64(x, n) : fx_zero_nonfinite_f32(x, n);
}

int fx_has_nonfinite(const void *x, size_t n, int is_f64)
{
  if (!x || n == 0)
    return 0;
  return is_f64 ? has_nonfinite_f64(x, n) : has_nonfinite_f32(x, n);
}
