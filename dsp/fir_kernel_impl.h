/* gst-fx — FIR inner loops, written once with GCC vector extensions and compiled per instruction
 * set (fir_kernel_scalar.c, fir_kernel_avx2.c, fir_kernel_avx512.c define FIR_ISA and
 * FIR_VBYTES before including this file). It defines the set's methods, fx_fir_<isa>_<method>,
 * declared in fir_kernel.h and listed in kernel_select.c's fx_fir_kernels_<isa>. Internal to
 * libfxdsp. Pure C11 + GNU vector types. SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "fir_kernel.h"

#define FIR_CAT2(a, b) a##_##b
#define FIR_CAT(a, b) FIR_CAT2(a, b)
#define FIR_NAME3(isa, x) fx_fir_##isa##_##x
#define FIR_NAME2(isa, x) FIR_NAME3(isa, x)
/* fx_fir_<isa>_<x> */
#define FIR_NAME(x) FIR_NAME2(FIR_ISA, x)

typedef float fx_fir_vf_t __attribute__((vector_size(FIR_VBYTES)));
typedef double fx_fir_vd_t __attribute__((vector_size(FIR_VBYTES)));
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
#define FIR_VFMA_f32(a, b, c)                                                                      \
  ((fx_fir_vf_t) _mm512_fmadd_ps((__m512) (a), (__m512) (b), (__m512) (c)))
#define FIR_VFMA_f64(a, b, c)                                                                      \
  ((fx_fir_vd_t) _mm512_fmadd_pd((__m512d) (a), (__m512d) (b), (__m512d) (c)))
#elif defined(__FMA__) && FIR_VBYTES == 32
#include <immintrin.h>
#define FIR_VFMA_f32(a, b, c)                                                                      \
  ((fx_fir_vf_t) _mm256_fmadd_ps((__m256) (a), (__m256) (b), (__m256) (c)))
#define FIR_VFMA_f64(a, b, c)                                                                      \
  ((fx_fir_vd_t) _mm256_fmadd_pd((__m256d) (a), (__m256d) (b), (__m256d) (c)))
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
  void FIR_NAME(dot_##SUF)(const T *restrict hv, size_t n, const T *restrict w, T *restrict y,     \
                           size_t len)                                                             \
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
  }

/* pair swap (1, 0, 3, 2, ...); __builtin_shufflevector is understood by GCC >= 12 and clang */
#if FIR_VBYTES == 16
#define FIR_SWAP_f32(v) __builtin_shufflevector(v, v, 1, 0, 3, 2)
#define FIR_SWAP_f64(v) __builtin_shufflevector(v, v, 1, 0)
#define FIR_REVC_f32(v) __builtin_shufflevector(v, v, 2, 3, 0, 1)
#define FIR_REVC_f64(v) (v)
#elif FIR_VBYTES == 32
#define FIR_SWAP_f32(v) __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6)
#define FIR_SWAP_f64(v) __builtin_shufflevector(v, v, 1, 0, 3, 2)
#define FIR_REVC_f32(v) __builtin_shufflevector(v, v, 6, 7, 4, 5, 2, 3, 0, 1)
#define FIR_REVC_f64(v) __builtin_shufflevector(v, v, 2, 3, 0, 1)
#else
#define FIR_SWAP_f32(v)                                                                            \
  __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14)
#define FIR_SWAP_f64(v) __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6)
#define FIR_REVC_f32(v)                                                                            \
  __builtin_shufflevector(v, v, 14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1)
#define FIR_REVC_f64(v) __builtin_shufflevector(v, v, 6, 7, 4, 5, 2, 3, 0, 1)
#endif

/* Stereo frames to and from two planar channels (fir_kernel.h); plain loops that the compiler
 * vectorizes with the per-ISA flags of this file. */
#define FIR_DEFINE_PLANAR(SUF, T)                                                                  \
  void FIR_NAME(deint2_##SUF)(const T *restrict in, T *restrict a, T *restrict b, size_t n)        \
  {                                                                                                \
    for (size_t i = 0; i < n; i++) {                                                               \
      a[i] = in[2 * i];                                                                            \
      b[i] = in[2 * i + 1];                                                                        \
    }                                                                                              \
  }                                                                                                \
  void FIR_NAME(int2_##SUF)(T *restrict out, const T *restrict a, const T *restrict b, size_t n,   \
                            int add)                                                               \
  {                                                                                                \
    if (add)                                                                                       \
      for (size_t i = 0; i < n; i++) {                                                             \
        out[2 * i] += a[i];                                                                        \
        out[2 * i + 1] += b[i];                                                                    \
      }                                                                                            \
    else                                                                                           \
      for (size_t i = 0; i < n; i++) {                                                             \
        out[2 * i] = a[i];                                                                         \
        out[2 * i + 1] = b[i];                                                                     \
      }                                                                                            \
  }

/* The sum over P partitions in one pass (fir_kernel.h): tiles of the spectrum kept in registers
 * across the partitions, so y is written once instead of read and written per partition. */
#define FIR_DEFINE_CMAC(SUF, T, V, NV)                                                             \
  void FIR_NAME(cmac_##SUF)(T *restrict y, const T *restrict H, const T *restrict X, size_t S,     \
                            size_t P, size_t slot, size_t n)                                       \
  {                                                                                                \
    size_t k = 0;                                                                                  \
    for (; k + 4 * NV <= n; k += 4 * NV) {                                                         \
      V a[4] = {{0}};                                                                              \
      for (size_t p = 0, q = slot; p < P; p++, q = q ? q - 1 : P - 1) {                            \
        const T *hd = H + 2 * p * S + k, *hs = hd + S, *x = X + q * S + k;                         \
        for (int t = 0; t < 4; t++) {                                                              \
          V xv = FIR_CAT(load, SUF)(x + t * NV);                                                   \
          a[t] = a[t] + FIR_CAT(load, SUF)(hd + t * NV) * xv +                                     \
                 FIR_CAT(load, SUF)(hs + t * NV) * FIR_SWAP_##SUF(xv);                             \
        }                                                                                          \
      }                                                                                            \
      for (int t = 0; t < 4; t++)                                                                  \
        FIR_CAT(store, SUF)(y + k + t * NV, a[t]);                                                 \
    }                                                                                              \
    for (; k + NV <= n; k += NV) {                                                                 \
      V a = {0};                                                                                   \
      for (size_t p = 0, q = slot; p < P; p++, q = q ? q - 1 : P - 1) {                            \
        const T *hd = H + 2 * p * S + k, *hs = hd + S, *x = X + q * S + k;                         \
        V xv = FIR_CAT(load, SUF)(x);                                                              \
        a = a + FIR_CAT(load, SUF)(hd) * xv + FIR_CAT(load, SUF)(hs) * FIR_SWAP_##SUF(xv);         \
      }                                                                                            \
      FIR_CAT(store, SUF)(y + k, a);                                                               \
    }                                                                                              \
    for (; k + 1 < n; k += 2) {                                                                    \
      T ar = 0, ai = 0;                                                                            \
      for (size_t p = 0, q = slot; p < P; p++, q = q ? q - 1 : P - 1) {                            \
        const T *hd = H + 2 * p * S + k, *hs = hd + S, *x = X + q * S + k;                         \
        ar = ar + hd[0] * x[0] + hs[0] * x[1];                                                     \
        ai = ai + hd[1] * x[1] + hs[1] * x[0];                                                     \
      }                                                                                            \
      y[k] = ar;                                                                                   \
      y[k + 1] = ai;                                                                               \
    }                                                                                              \
  }

/* Real FFT from a half-size complex one (fir_kernel.h): bins k and m - k come from the complex
 * values k and m - k, so each step takes a vector at k and the mirrored vector at m - k
 * (complex order reversed), for k = 1 .. m/2; bin 0 and bin m from value 0. With a = z[k],
 * b = conj z[m-k], s = a + b, d = a - b and W = W^k: bin k = (s + q) / 2 and bin m - k =
 * conj(s - q) / 2 with q = -i W d; back, z[k] = s + p and z[m-k] = conj(s - p) with
 * p = i conj(W) d. Both q and p are u d + v swap(d) (swap: re <-> im) with u = (Im W, Im W) and
 * v = (-Re W, Re W), negated for q: the twiddle table (tu, tv). */
#define FIR_DEFINE_RFFT(SUF, T, V, NV)                                                             \
  void FIR_NAME(r2c_post_##SUF)(T *restrict x, const T *restrict tu, const T *restrict tv,         \
                                size_t m)                                                          \
  {                                                                                                \
    size_t NC = NV / 2, h = m / 2, k = 1;                                                          \
    T z0r = x[0], z0i = x[1];                                                                      \
    V cm, half, hcm;                                                                               \
    for (size_t t = 0; t < NV; t++) {                                                              \
      cm[t] = (t & 1) ? (T) -1 : (T) 1;                                                            \
      half[t] = (T) 0.5;                                                                           \
      hcm[t] = (t & 1) ? (T) -0.5 : (T) 0.5;                                                       \
    }                                                                                              \
    if (h >= NC && h % NC == 0)                                                                    \
      for (; k + NC <= h + 1; k += NC) {                                                           \
        T *xj = x + 2 * (m - k - NC + 1);                                                          \
        V a = FIR_CAT(load, SUF)(x + 2 * k);                                                       \
        V b = FIR_REVC_##SUF(FIR_CAT(load, SUF)(xj)) * cm;                                         \
        V s = a + b, d = a - b;                                                                    \
        V q = FIR_CAT(load, SUF)(tu + 2 * k) * d -                                                 \
              FIR_CAT(load, SUF)(tv + 2 * k) * FIR_SWAP_##SUF(d);                                  \
        FIR_CAT(store, SUF)(x + 2 * k, half * (s + q));                                            \
        FIR_CAT(store, SUF)(xj, FIR_REVC_##SUF(hcm * (s - q)));                                    \
      }                                                                                            \
    for (; k <= h; k++) {                                                                          \
      size_t j = m - k;                                                                            \
      T ar = x[2 * k], ai = x[2 * k + 1], br = x[2 * j], bi = -x[2 * j + 1];                       \
      T sr = ar + br, si = ai + bi, dr = ar - br, di = ai - bi;                                    \
      T qr = tu[2 * k] * dr - tv[2 * k] * di, qi = tu[2 * k + 1] * di - tv[2 * k + 1] * dr;        \
      x[2 * k] = (T) 0.5 * (sr + qr);                                                              \
      x[2 * k + 1] = (T) 0.5 * (si + qi);                                                          \
      x[2 * j] = (T) 0.5 * (sr - qr);                                                              \
      x[2 * j + 1] = (T) -0.5 * (si - qi);                                                         \
    }                                                                                              \
    x[0] = z0r + z0i;                                                                              \
    x[1] = 0;                                                                                      \
    x[2 * m] = z0r - z0i;                                                                          \
    x[2 * m + 1] = 0;                                                                              \
  }                                                                                                \
  void FIR_NAME(c2r_pre_##SUF)(T *restrict x, const T *restrict tu, const T *restrict tv,          \
                               size_t m)                                                           \
  {                                                                                                \
    size_t NC = NV / 2, h = m / 2, k = 1;                                                          \
    T y0 = x[0], ym = x[2 * m];                                                                    \
    V cm;                                                                                          \
    for (size_t t = 0; t < NV; t++)                                                                \
      cm[t] = (t & 1) ? (T) -1 : (T) 1;                                                            \
    if (h >= NC && h % NC == 0)                                                                    \
      for (; k + NC <= h + 1; k += NC) {                                                           \
        T *xj = x + 2 * (m - k - NC + 1);                                                          \
        V a = FIR_CAT(load, SUF)(x + 2 * k);                                                       \
        V b = FIR_REVC_##SUF(FIR_CAT(load, SUF)(xj)) * cm;                                         \
        V s = a + b, d = a - b;                                                                    \
        V p = FIR_CAT(load, SUF)(tu + 2 * k) * d +                                                 \
              FIR_CAT(load, SUF)(tv + 2 * k) * FIR_SWAP_##SUF(d);                                  \
        FIR_CAT(store, SUF)(x + 2 * k, s + p);                                                     \
        FIR_CAT(store, SUF)(xj, FIR_REVC_##SUF(cm * (s - p)));                                     \
      }                                                                                            \
    for (; k <= h; k++) {                                                                          \
      size_t j = m - k;                                                                            \
      T ar = x[2 * k], ai = x[2 * k + 1], br = x[2 * j], bi = -x[2 * j + 1];                       \
      T sr = ar + br, si = ai + bi, dr = ar - br, di = ai - bi;                                    \
      T pr = tu[2 * k] * dr + tv[2 * k] * di, pi = tu[2 * k + 1] * di + tv[2 * k + 1] * dr;        \
      x[2 * k] = sr + pr;                                                                          \
      x[2 * k + 1] = si + pi;                                                                      \
      x[2 * j] = sr - pr;                                                                          \
      x[2 * j + 1] = -(si - pi);                                                                   \
    }                                                                                              \
    x[0] = y0 + ym;                                                                                \
    x[1] = y0 - ym;                                                                                \
  }

#define FIR_FMA_f32 FIR_FMAF
#define FIR_FMA_f64 FIR_FMA

FIR_DEFINE_DOT(f32, float, fx_fir_vf_t, FIR_NF)
FIR_DEFINE_DOT(f64, double, fx_fir_vd_t, FIR_ND)
FIR_DEFINE_PLANAR(f32, float)
FIR_DEFINE_PLANAR(f64, double)
FIR_DEFINE_CMAC(f32, float, fx_fir_vf_t, FIR_NF)
FIR_DEFINE_CMAC(f64, double, fx_fir_vd_t, FIR_ND)
FIR_DEFINE_RFFT(f32, float, fx_fir_vf_t, FIR_NF)
FIR_DEFINE_RFFT(f64, double, fx_fir_vd_t, FIR_ND)
