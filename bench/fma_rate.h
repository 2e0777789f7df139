/* gst-fx — the float FMA throughput of this core, for the benchmarks' bounds (bench/kernels.c,
 * bench/segments.c). Include <immintrin.h> and <stdio.h> first; x86-64 with GCC or clang only.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FX_BENCH_FMA_RATE_H
#define FX_BENCH_FMA_RATE_H

/* Independent FMA chains (12 accumulators): vector FMAs per ns. One function per vector width:
 * V the vector type, P the intrinsics' prefix (_mm256 / _mm512), R the asm register constraint,
 * NOW a clock in seconds. */
#define FX_FMA_RATE(fn, tgt, V, P, R, NOW)                                                         \
  __attribute__((target(tgt), noinline)) static double fn(void)                                    \
  {                                                                                                \
    const V a = P##_set1_ps(0.999f), b = P##_set1_ps(1e-3f);                                       \
    V c0 = P##_set1_ps(0.0f), c1 = P##_set1_ps(0.1f), c2 = P##_set1_ps(0.2f),                      \
      c3 = P##_set1_ps(0.3f), c4 = P##_set1_ps(0.4f), c5 = P##_set1_ps(0.5f),                      \
      c6 = P##_set1_ps(0.6f), c7 = P##_set1_ps(0.7f), c8 = P##_set1_ps(0.8f),                      \
      c9 = P##_set1_ps(0.9f), c10 = P##_set1_ps(1.0f), c11 = P##_set1_ps(1.1f);                    \
    const long n = 5000000;                                                                        \
    const double t0 = NOW();                                                                       \
    for (long k = 0; k < n; k++) {                                                                 \
      c0 = P##_fmadd_ps(c0, a, b);                                                                 \
      c1 = P##_fmadd_ps(c1, a, b);                                                                 \
      c2 = P##_fmadd_ps(c2, a, b);                                                                 \
      c3 = P##_fmadd_ps(c3, a, b);                                                                 \
      c4 = P##_fmadd_ps(c4, a, b);                                                                 \
      c5 = P##_fmadd_ps(c5, a, b);                                                                 \
      c6 = P##_fmadd_ps(c6, a, b);                                                                 \
      c7 = P##_fmadd_ps(c7, a, b);                                                                 \
      c8 = P##_fmadd_ps(c8, a, b);                                                                 \
      c9 = P##_fmadd_ps(c9, a, b);                                                                 \
      c10 = P##_fmadd_ps(c10, a, b);                                                               \
      c11 = P##_fmadd_ps(c11, a, b);                                                               \
      __asm__ volatile("" : R(c0), R(c1), R(c2), R(c3), R(c4), R(c5));                             \
      __asm__ volatile("" : R(c6), R(c7), R(c8), R(c9), R(c10), R(c11));                           \
    }                                                                                              \
    const double t = NOW() - t0;                                                                   \
    V s = P##_add_ps(P##_add_ps(P##_add_ps(c0, c1), P##_add_ps(c2, c3)),                           \
                     P##_add_ps(P##_add_ps(c4, c5), P##_add_ps(c6, c7)));                          \
    s = P##_add_ps(s, P##_add_ps(P##_add_ps(c8, c9), P##_add_ps(c10, c11)));                       \
    float sink[16];                                                                                \
    P##_storeu_ps(sink, s);                                                                        \
    if (sink[0] == 12345.0f)                                                                       \
      printf("#\n");                                                                               \
    return (double) n * 12 / (t * 1e9);                                                            \
  }

#endif
