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

/* The vector code below contracts a*b+c into an FMA exactly when the scalar macros above do
 * (the files with FMA are compiled with -ffp-contract=fast), so a sample's value does not depend
 * on whether it fell in a vector tile or in the scalar tail. */
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
  static void FIR_NAME(dot_##SUF)(const T *restrict hr, size_t n, const T *restrict w,             \
                                  T *restrict y, size_t len)                                       \
  {                                                                                                \
    size_t i = 0;                                                                                  \
    for (; i + 4 * NV <= len; i += 4 * NV) {                                                       \
      V a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};                                                    \
      const T *p = w + i;                                                                          \
      for (size_t j = 0; j < n; j++) {                                                             \
        V h = (V){0} + hr[j];                                                                      \
        a0 = h * FIR_CAT(load, SUF)(p + j) + a0;                                                   \
        a1 = h * FIR_CAT(load, SUF)(p + j + NV) + a1;                                              \
        a2 = h * FIR_CAT(load, SUF)(p + j + 2 * NV) + a2;                                          \
        a3 = h * FIR_CAT(load, SUF)(p + j + 3 * NV) + a3;                                          \
      }                                                                                            \
      FIR_CAT(store, SUF)(y + i, a0);                                                              \
      FIR_CAT(store, SUF)(y + i + NV, a1);                                                         \
      FIR_CAT(store, SUF)(y + i + 2 * NV, a2);                                                     \
      FIR_CAT(store, SUF)(y + i + 3 * NV, a3);                                                     \
    }                                                                                              \
    for (; i + NV <= len; i += NV) {                                                               \
      V a0 = {0};                                                                                  \
      const T *p = w + i;                                                                          \
      for (size_t j = 0; j < n; j++)                                                               \
        a0 = ((V){0} + hr[j]) * FIR_CAT(load, SUF)(p + j) + a0;                                    \
      FIR_CAT(store, SUF)(y + i, a0);                                                              \
    }                                                                                              \
    for (; i < len; i++) {                                                                         \
      T a = 0;                                                                                     \
      const T *p = w + i;                                                                          \
      for (size_t j = 0; j < n; j++)                                                               \
        a = FIR_FMA_##SUF(hr[j], p[j], a);                                                         \
      y[i] = a;                                                                                    \
    }                                                                                              \
  }                                                                                                \
  static void FIR_NAME(cmac_##SUF)(T *restrict yr, T *restrict yi, const T *restrict hr,           \
                                   const T *restrict hi, const T *restrict xr,                     \
                                   const T *restrict xi, size_t n)                                 \
  {                                                                                                \
    size_t k = 0;                                                                                  \
    for (; k + NV <= n; k += NV) {                                                                 \
      V a = FIR_CAT(load, SUF)(hr + k), b = FIR_CAT(load, SUF)(hi + k);                            \
      V c = FIR_CAT(load, SUF)(xr + k), d = FIR_CAT(load, SUF)(xi + k);                            \
      FIR_CAT(store, SUF)(yr + k, FIR_CAT(load, SUF)(yr + k) + a * c - b * d);                     \
      FIR_CAT(store, SUF)(yi + k, FIR_CAT(load, SUF)(yi + k) + a * d + b * c);                     \
    }                                                                                              \
    for (; k < n; k++) {                                                                           \
      yr[k] += hr[k] * xr[k] - hi[k] * xi[k];                                                      \
      yi[k] += hr[k] * xi[k] + hi[k] * xr[k];                                                      \
    }                                                                                              \
  }

#define FIR_FMA_f32 FIR_FMAF
#define FIR_FMA_f64 FIR_FMA

FIR_DEFINE_DOT(f32, float, fir_vf, FIR_NF)
FIR_DEFINE_DOT(f64, double, fir_vd, FIR_ND)

const fx_fir_kernels_t FIR_CAT(fx_fir_kernels, FIR_ISA) = {
    .name = FIR_ISA_NAME,
    .dot_f32 = FIR_NAME(dot_f32),
    .dot_f64 = FIR_NAME(dot_f64),
    .cmac_f32 = FIR_NAME(cmac_f32),
    .cmac_f64 = FIR_NAME(cmac_f64),
};
