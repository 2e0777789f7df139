/* gst-fx — replacing non-finite input samples by 0. Pure C11, no GLib. See finite.h.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "finite.h"

#include <stdint.h>
#include <string.h>

/* Samples per block of the scan: the test is ORed over a block of exponent fields (integer
 * operations only, so the compiler vectorizes it without reassociating floating point), and only
 * a block with a hit is walked sample by sample. */
#define BLOCK 64

#define FX_ZERO_NONFINITE(NAME, T, U, MASK)                                                        \
  size_t NAME(T *x, size_t n)                                                                      \
  {                                                                                                \
    const U mask = MASK;                                                                           \
    size_t replaced = 0;                                                                           \
    for (size_t i = 0; i < n; i += BLOCK) {                                                        \
      const size_t len = n - i < BLOCK ? n - i : BLOCK;                                            \
      U bits[BLOCK];                                                                               \
      unsigned bad = 0;                                                                            \
      memcpy(bits, x + i, len * sizeof(T));                                                        \
      for (size_t k = 0; k < len; k++)                                                             \
        bad |= (bits[k] & mask) == mask;                                                           \
      if (!bad)                                                                                    \
        continue;                                                                                  \
      for (size_t k = 0; k < len; k++)                                                             \
        if ((bits[k] & mask) == mask) {                                                            \
          x[i + k] = (T) 0;                                                                        \
          replaced++;                                                                              \
        }                                                                                          \
    }                                                                                              \
    return replaced;                                                                               \
  }

FX_ZERO_NONFINITE(fx_zero_nonfinite_f32, float, uint32_t, 0x7f800000u)
FX_ZERO_NONFINITE(fx_zero_nonfinite_f64, double, uint64_t, 0x7ff0000000000000ull)

size_t fx_zero_nonfinite(void *x, size_t n, int is_f64)
{
  if (!x || n == 0)
    return 0;
  return is_f64 ? fx_zero_nonfinite_f64(x, n) : fx_zero_nonfinite_f32(x, n);
}

#define FX_HAS_NONFINITE(NAME, T, U, MASK)                                                         \
  static int NAME(const T *x, size_t n)                                                            \
  {                                                                                                \
    const U mask = MASK;                                                                           \
    for (size_t i = 0; i < n; i += BLOCK) {                                                        \
      const size_t len = n - i < BLOCK ? n - i : BLOCK;                                            \
      U bits[BLOCK];                                                                               \
      unsigned bad = 0;                                                                            \
      memcpy(bits, x + i, len * sizeof(T));                                                        \
      for (size_t k = 0; k < len; k++)                                                             \
        bad |= (bits[k] & mask) == mask;                                                           \
      if (bad)                                                                                     \
        return 1;                                                                                  \
    }                                                                                              \
    return 0;                                                                                      \
  }

FX_HAS_NONFINITE(has_nonfinite_f32, float, uint32_t, 0x7f800000u)
FX_HAS_NONFINITE(has_nonfinite_f64, double, uint64_t, 0x7ff0000000000000ull)

int fx_has_nonfinite(const void *x, size_t n, int is_f64)
{
  if (!x || n == 0)
    return 0;
  return is_f64 ? has_nonfinite_f64(x, n) : has_nonfinite_f32(x, n);
}
