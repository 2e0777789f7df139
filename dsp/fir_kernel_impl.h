/* gst-fx — FIR inner loops, written once with GCC vector extensions and compiled per instruction
 * set (fir_kernel_base.c, fir_kernel_avx2.c, fir_kernel_avx512.c define FIR_ISA and
 * FIR_VBYTES before including this file). Internal to libfxdsp. Pure C11 + GNU vector types.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "fir_kernel.h"

#define FIR_CAT2(a, b) a##_##b
#define FIR_CAT(a, b) FIR_CAT2(a, b)
#define FIR_NAME(x) FIR_CAT(x, FIR_ISA)

typedef float fir_vf __attribute__((vector_size(FIR_VBYTES)));
typedef double fir_vd __attribute__((vector_size(FIR_VBYTES)));
#define FIR_NF (FIR_VBYTES / 4)
#define FIR_ND (FIR_VBYTES / 8)

#if defined(__FMA__)
#define FIR_FMAF(a, b, c) __builtin_fmaf((a), (b), (c))
#define FIR_FMA(a, b, c) __builtin_fma((a), (b), (c))
#else
#define FIR_FMAF(a, b, c) ((a) * (b) + (c))
#define FIR_FMA(a, b, c) ((a) * (b) + (c))
#endif

/* The vector code uses an explicit FMA exactly when the scalar macros above do, so a sample's
 * value does not depend on whether it fell in a vector tile or in the scalar tail (whatever the
 * compiler's contraction settings). */
#if defined(__FMA__) && FIR_VBYTES == 64 && defined(__AVX512F__)
#include <immintrin.h>
#define FIR_VFMA_f32(a, b, c) ((fir_vf) _mm512_fmadd_ps((__m512) (a), (__m512) (b), (__m512) (c)))
#define FIR_VFMA_f64(a, b, c)                                                                      \
  ((fir_vd) _mm512_fmadd_pd((__m512d) (a), (__m512d) (b), (__m512d) (c)))
#elif defined(__FMA__) && FIR_VBYTES == 32
#include <immintrin.h>
#define FIR_VFMA_f32(a, b, c) ((fir_vf) _mm256_fmadd_ps((__m256) (a), (__m256) (b), (__m256) (c)))
#define FIR_VFMA_f64(a, b, c)                                                                      \
  ((fir_vd) _mm256_fmadd_pd((__m256d) (a), (__m256d) (b), (__m256d) (c)))
#else
#define FIR_VFMA_f32(a, b, c) ((a) * (b) + (c))
#define FIR_VFMA_f64(a, b, c) ((a) * (b) + (c))
#endif
#define FIR_DEFINE_DOT(SUF, T, V, NV)                                                              \
  static inline V FIR_CAT(load, SUF)(const T *p)                                                   \
  {                                                                                                \
    V v;                                                                                           \
    memcpy(&v, p, sizeof v);                                                                       \
    return v;                                                                                      \
  }                                                                                                \
  static inline void FIR_CAT(store, SUF)(T * p, V v)                                               \
  {                                                                                                \
    memcpy(p, &v, sizeof v);                                                                       \
  }                                                                                                \
  static void FIR_NAME(dot_##SUF)(const T *restrict hv, size_t n, const T *restrict w,             \
                                  T *restrict y, size_t len)                                       \
  {                                                                                                \
    /* hv[k*NV + t] = hr[k - t] (0 outside the kernel), k < n + NV - 1: output lane t of a vector  \
     * at i sums w[i + k] * hv[k][t] over k, the same terms in the same order as the scalar        \
     * y[i + t] = sum_j hr[j] w[i + t + j]; the input is broadcast (no unaligned vector loads). */ \
    size_t K = n + NV - 1, i = 0;                                                                  \
    for (; i + 8 * NV <= len; i += 8 * NV) {                                                       \
      V a[8] = {{0}};                                                                              \
      const T *p = w + i;                                                                          \
      for (size_t k = 0; k < K; k++) {                                                             \
        V h = FIR_CAT(load, SUF)(hv + k * NV);                                                     \
        for (int t = 0; t < 8; t++)                                                                \
          a[t] = FIR_VFMA_##SUF((V){0} + p[k + (size_t) t * NV], h, a[t]);                         \
      }                                                                                            \
      for (int t = 0; t < 8; t++)                                                                  \
        FIR_CAT(store, SUF)(y + i + (size_t) t * NV, a[t]);                                        \
    }                                                                                              \
    for (; i + 2 * NV <= len; i += 2 * NV) {                                                       \
      V a[2] = {{0}};                                                                              \
      const T *p = w + i;                                                                          \
      for (size_t k = 0; k < K; k++) {                                                             \
        V h = FIR_CAT(load, SUF)(hv + k * NV);                                                     \
        for (int t = 0; t < 2; t++)                                                                \
          a[t] = FIR_VFMA_##SUF((V){0} + p[k + (size_t) t * NV], h, a[t]);                         \
      }                                                                                            \
      for (int t = 0; t < 2; t++)                                                                  \
        FIR_CAT(store, SUF)(y + i + (size_t) t * NV, a[t]);                                        \
    }                                                                                              \
    for (; i < len; i++) {                                                                         \
      T a = 0;                                                                                     \
      const T *p = w + i;                                                                          \
      for (size_t j = 0; j < n; j++)                                                               \
        a = FIR_FMA_##SUF(hv[j * NV], p[j], a);                                                    \
      y[i] = a;                                                                                    \
    }                                                                                              \
  }                                                                                                \
  static void FIR_NAME(cmac_##SUF)(T *restrict y, const T *restrict hd, const T *restrict hs,      \
                                   const T *restrict x, size_t n)                                  \
  {                                                                                                \
    size_t k = 0;                                                                                  \
    for (; k + NV <= n; k += NV) {                                                                 \
      V xv = FIR_CAT(load, SUF)(x + k);                                                            \
      V xs = FIR_SWAP_##SUF(xv);                                                                   \
      FIR_CAT(store, SUF)                                                                          \
      (y + k, FIR_CAT(load, SUF)(y + k) + FIR_CAT(load, SUF)(hd + k) * xv +                        \
                  FIR_CAT(load, SUF)(hs + k) * xs);                                                \
    }                                                                                              \
    for (; k + 1 < n; k += 2) {                                                                    \
      T xr = x[k], xi = x[k + 1];                                                                  \
      y[k] += hd[k] * xr + hs[k] * xi;                                                             \
      y[k + 1] += hd[k + 1] * xi + hs[k + 1] * xr;                                                 \
    }                                                                                              \
  }

/* pair swap (1, 0, 3, 2, ...); __builtin_shufflevector is understood by GCC >= 12 and clang */
#if FIR_VBYTES == 16
#define FIR_SWAP_f32(v) __builtin_shufflevector(v, v, 1, 0, 3, 2)
#define FIR_SWAP_f64(v) __builtin_shufflevector(v, v, 1, 0)
#elif FIR_VBYTES == 32
#define FIR_SWAP_f32(v) __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6)
#define FIR_SWAP_f64(v) __builtin_shufflevector(v, v, 1, 0, 3, 2)
#else
#define FIR_SWAP_f32(v)                                                                            \
  __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14)
#define FIR_SWAP_f64(v) __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6)
#endif

#define FIR_FMA_f32 FIR_FMAF
#define FIR_FMA_f64 FIR_FMA

FIR_DEFINE_DOT(f32, float, fir_vf, FIR_NF)
FIR_DEFINE_DOT(f64, double, fir_vd, FIR_ND)

const fx_fir_kernels_t FIR_CAT(fx_fir_kernels, FIR_ISA) = {
    .name = FIR_ISA_NAME,
    .lanes_f32 = FIR_NF,
    .lanes_f64 = FIR_ND,
    .dot_f32 = FIR_NAME(dot_f32),
    .dot_f64 = FIR_NAME(dot_f64),
    .cmac_f32 = FIR_NAME(cmac_f32),
    .cmac_f64 = FIR_NAME(cmac_f64),
};
