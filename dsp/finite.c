/* gst-fx — replacing non-finite input samples by 0. Pure C11, no GLib. See finite.h.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "finite.h"
#include "kernel.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

/* Samples per block of the scan: the test is ORed over a block of a fixed size (integer operations
 * on the exponent field only, so the compiler vectorizes it without reassociating floating point),
 * and only a block with a hit is walked sample by sample. A clean buffer is read in spans of SPAN
 * samples, each reduced to one flag once (a vector's lanes ORed together cost about as much as
 * the scan of a 64-sample block); a span with a hit is then walked block by block. Short arrays
 * (the engine's state and history, a few dozen numbers) and the tails of long ones go by blocks of
 * SHORT, also of a fixed size, so they are unrolled rather than walked one number at a time. */
#define SPAN 1024
#define BLOCK 64
#define SHORT 8

/* One instantiation per instruction set (ISA, ATTR: the name and the target attribute), each
 * plain integer code the compiler vectorizes for that set: the results are the same on every one
 * (tests/dsp/test_effects.c checks each this CPU runs against the rules). */
#define FX_FINITE_FUNCS(SUFFIX, T, U, MASK, LOW, ISA, ATTR)                                        \
  /* 1 when one of the len samples has an all-ones exponent (NaN or Inf). (b & MASK) + LOW, LOW    \
   * the exponent's lowest bit, reaches the sign bit exactly for an all-ones exponent, so the      \
   * scan is an AND, an ADD and an OR per sample, tested once at the end. */                       \
  ATTR static inline int bad_##SUFFIX##_##ISA(const T *x, size_t len)                              \
  {                                                                                                \
    U acc = 0;                                                                                     \
    for (size_t k = 0; k < len; k++) {                                                             \
      U b;                                                                                         \
      memcpy(&b, x + k, sizeof(b));                                                                \
      acc |= (b & (MASK)) + (LOW);                                                                 \
    }                                                                                              \
    return (acc & ((MASK) + (LOW))) != 0;                                                          \
  }                                                                                                \
  ATTR static int span_bad_##SUFFIX##_##ISA(const T *x)                                            \
  {                                                                                                \
    return bad_##SUFFIX##_##ISA(x, SPAN);                                                          \
  }                                                                                                \
  ATTR static int block_bad_##SUFFIX##_##ISA(const T *x)                                           \
  {                                                                                                \
    return bad_##SUFFIX##_##ISA(x, BLOCK);                                                         \
  }                                                                                                \
  /* the same below BLOCK: blocks of SHORT, then the rest (< SHORT) */                             \
  ATTR static int tail_bad_##SUFFIX##_##ISA(const T *x, size_t len)                                \
  {                                                                                                \
    size_t i = 0;                                                                                  \
    int bad = 0;                                                                                   \
    for (; i + SHORT <= len; i += SHORT)                                                           \
      bad |= bad_##SUFFIX##_##ISA(x + i, SHORT);                                                   \
    return bad | (i < len && bad_##SUFFIX##_##ISA(x + i, len - i));                                \
  }                                                                                                \
  /* [i, end) by blocks, the blocks with a hit walked; end - i a multiple of BLOCK */              \
  ATTR static size_t blocks_##SUFFIX##_##ISA(T *x, size_t i, size_t end)                           \
  {                                                                                                \
    size_t replaced = 0;                                                                           \
    for (; i < end; i += BLOCK)                                                                    \
      if (block_bad_##SUFFIX##_##ISA(x + i))                                                       \
        replaced += zero_##SUFFIX(x + i, BLOCK);                                                   \
    return replaced;                                                                               \
  }                                                                                                \
  ATTR static size_t zero_nonfinite_##SUFFIX##_##ISA(T *x, size_t n)                               \
  {                                                                                                \
    size_t i = 0, replaced = 0;                                                                    \
    for (; i + SPAN <= n; i += SPAN)                                                               \
      if (span_bad_##SUFFIX##_##ISA(x + i))                                                        \
        replaced += blocks_##SUFFIX##_##ISA(x, i, i + SPAN);                                       \
    const size_t nb = i + (n - i) / BLOCK * BLOCK;                                                 \
    replaced += blocks_##SUFFIX##_##ISA(x, i, nb);                                                 \
    if (nb < n && tail_bad_##SUFFIX##_##ISA(x + nb, n - nb))                                       \
      replaced += zero_##SUFFIX(x + nb, n - nb);                                                   \
    return replaced;                                                                               \
  }                                                                                                \
  ATTR static int has_nonfinite_##SUFFIX##_##ISA(const T *x, size_t n)                             \
  {                                                                                                \
    size_t i = 0;                                                                                  \
    for (; i + SPAN <= n; i += SPAN)                                                               \
      if (span_bad_##SUFFIX##_##ISA(x + i))                                                        \
        return 1;                                                                                  \
    for (; i + BLOCK <= n; i += BLOCK)                                                             \
      if (block_bad_##SUFFIX##_##ISA(x + i))                                                       \
        return 1;                                                                                  \
    return i < n && tail_bad_##SUFFIX##_##ISA(x + i, n - i);                                       \
  }

/* The walk of a block with a hit: rare, so one plain version. */
#define FX_FINITE_ZERO(SUFFIX, T, U, MASK)                                                         \
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
  }

#define FX_FINITE_ISA(ISA, ATTR)                                                                   \
  FX_FINITE_FUNCS(f32, float, uint32_t, 0x7f800000u, 0x00800000u, ISA, ATTR)                       \
  FX_FINITE_FUNCS(f64, double, uint64_t, 0x7ff0000000000000ull, 0x0010000000000000ull, ISA, ATTR)

FX_FINITE_ZERO(f32, float, uint32_t, 0x7f800000u)
FX_FINITE_ZERO(f64, double, uint64_t, 0x7ff0000000000000ull)
FX_FINITE_ISA(base, )

/* The x86-64 sets of the kernels' table (kernel_select.c): 256-bit and 512-bit integer vectors
 * (the baseline build has SSE2's 128). A 1024-frame stereo F32 buffer, the pipelines' usual one,
 * scanned in 190 ns with SSE2 on a Zen 4 core (docs/benchmarking.md). */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define FX_FINITE_X86 1
FX_FINITE_ISA(avx2, __attribute__((target("avx2"))))
/* 512-bit vectors where the compiler would otherwise keep 256 (GCC and clang say it each their
 * own way) */
#ifdef __clang__
#define FX_FINITE_AVX512 __attribute__((target("avx512f"), min_vector_width(512)))
#else
#define FX_FINITE_AVX512 __attribute__((target("avx512f,prefer-vector-width=512")))
#endif
FX_FINITE_ISA(avx512, FX_FINITE_AVX512)
#endif

#define FX_FINITE_ENTRY(ISA)                                                                       \
  {                                                                                                \
#ISA,                                                                                          \
    {                                                                                              \
      zero_nonfinite_f32_##ISA, zero_nonfinite_f64_##ISA, has_nonfinite_f32_##ISA,                 \
          has_nonfinite_f64_##ISA                                                                  \
    }                                                                                              \
  }

/* Best first, named as the kernels' instruction sets (kernel_select.c), whose CPU-feature tests
 * say which this CPU runs; "base", the baseline build, always. */
static const struct {
  const char *name;
  fx_finite_impl_t impl;
} finite_table[] = {
#ifdef FX_FINITE_X86
    FX_FINITE_ENTRY(avx512),
    FX_FINITE_ENTRY(avx2),
#endif
    FX_FINITE_ENTRY(base),
};
#define FINITE_N ((int) (sizeof(finite_table) / sizeof(finite_table[0])))

const fx_finite_impl_t *fx_finite_impl_get(int i, const char **name)
{
  for (int j = 0; j < FINITE_N; j++) {
    if (j < FINITE_N - 1 && !fx_isa_find(finite_table[j].name))
      continue;
    if (i-- == 0) {
      if (name)
        *name = finite_table[j].name;
      return &finite_table[j].impl;
    }
  }
  return NULL;
}

/* The best set this CPU has, found at the first call (every thread finds the same one, so the
 * relaxed race on the pointer only ever stores that one value). */
static const fx_finite_impl_t *finite_best(void)
{
  static _Atomic(const fx_finite_impl_t *) best;
  const fx_finite_impl_t *b = atomic_load_explicit(&best, memory_order_relaxed);
  if (!b) {
    b = fx_finite_impl_get(0, NULL);
    atomic_store_explicit(&best, b, memory_order_relaxed);
  }
  return b;
}

size_t fx_zero_nonfinite_f32(float *x, size_t n)
{
  return finite_best()->zero_f32(x, n);
}

size_t fx_zero_nonfinite_f64(double *x, size_t n)
{
  return finite_best()->zero_f64(x, n);
}

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
  return is_f64 ? finite_best()->has_f64(x, n) : finite_best()->has_f32(x, n);
}
