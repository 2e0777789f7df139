/* gst-fx — AVX-512 SOS cascade kernel (x86-64; this file alone is compiled with -mavx512f
 * -mavx512dq -mavx512vl -mfma). SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Instantiates kernel_simd.h with 512-bit vectors: 16 float lanes, 8 double lanes; 32 vector
 * registers allow groups of 8 sections with their state in registers. Channel ranges of at most
 * half a vector (mono, stereo, C < 16 floats / 8 doubles, leftovers) go to a 256-bit
 * instantiation (kernel_x256.h, the AVX2 kernel's code) compiled here, where AVX-512VL gives it
 * 32 registers and so larger register-resident groups than the AVX2 kernel (measured on Zen 4,
 * K=8, 8 channels, float: 0.82 vs 0.89 ns per channel-sample). The arithmetic per lane is the same
 * FMA sequence in all of them, so the output is identical to the AVX2 kernel's; on cores that
 * split 512-bit operations in two (Zen 4) a half-empty 512-bit vector or a 512-bit lane rotation
 * costs more than the 256-bit path. The AVX-512 kernel is only listed where AVX2 and FMA exist. */
#include "kernel.h"

#include <immintrin.h>

#define K_X256_NAME(f) avx512n_##f
#define K_X256_CVG_D 4
#define K_X256_CVG_F 8
#include "kernel_x256.h"

/* ---- double arithmetic: 8 lanes ---- */
#define K_T double
#define K_V __m512d
#define K_W 8
#define K_VM __mmask8
#define K_CVG 8
#define K_WFM 2
#define K_SET1(s) _mm512_set1_pd(s)
#define K_ZERO() _mm512_setzero_pd()
#define K_LOAD(p) _mm512_load_pd(p)
#define K_STORE(p, v) _mm512_store_pd(p, v)
#define K_FMA(a, b, c) _mm512_fmadd_pd(a, b, c)
#define K_MUL(a, b) _mm512_mul_pd(a, b)
#define K_SFMA(a, b, c) __builtin_fma(a, b, c)
#define K_ROT(v) _mm512_permutexvar_pd(_mm512_setr_epi64(7, 0, 1, 2, 3, 4, 5, 6), v)
#define K_INS0(a, b) _mm512_mask_blend_pd(1, a, b)
#define K_MASK(ki, lo, hi)                                                                         \
  ((__mmask8) (_mm512_cmp_pd_mask(ki, lo, _CMP_GT_OQ) & _mm512_cmp_pd_mask(ki, hi, _CMP_LE_OQ)))
#define K_SEL(m, a, b) _mm512_mask_blend_pd(m, b, a)
#define K_WSEL_T __m512i
#define K_WSEL_MAKE(l) _mm512_set1_epi64(l)
#define K_WEXTRACT(v, s) _mm512_cvtsd_f64(_mm512_permutexvar_pd(s, v))

#define K_NAME avx512_f64
#define K_SFX f64
#define K_IO double
#define K_LOADIO(p) _mm512_loadu_pd(p)
#define K_STOREIO(p, v) _mm512_storeu_pd(p, v)
#define K_LOADIO_PART(p, n) _mm512_maskz_loadu_pd((__mmask8) ((1u << (n)) - 1u), p)
#define K_STOREIO_PART(p, v, n) _mm512_mask_storeu_pd(p, (__mmask8) ((1u << (n)) - 1u), v)
#define K_NARROW_RANGE fx_range_avx512n_f64
#include "kernel_simd.h"

#define K_NAME avx512_f32_d
#define K_SFX f32d
#define K_IO float
#define K_LOADIO(p) _mm512_cvtps_pd(_mm256_loadu_ps(p))
#define K_STOREIO(p, v) _mm256_storeu_ps(p, _mm512_cvtpd_ps(v))
#define K_LOADIO_PART(p, n) _mm512_cvtps_pd(_mm256_maskz_loadu_ps((__mmask8) ((1u << (n)) - 1u), p))
#define K_STOREIO_PART(p, v, n)                                                                    \
  _mm256_mask_storeu_ps(p, (__mmask8) ((1u << (n)) - 1u), _mm512_cvtpd_ps(v))
#define K_NARROW_RANGE fx_range_avx512n_f32_d
#include "kernel_simd.h"
#include "kernel_simd_end.h"

/* ---- float arithmetic: 16 lanes ---- */
#define K_T float
#define K_V __m512
#define K_W 16
#define K_VM __mmask16
#define K_CVG 8
#define K_WFM 1
#define K_SET1(s) _mm512_set1_ps(s)
#define K_ZERO() _mm512_setzero_ps()
#define K_LOAD(p) _mm512_load_ps(p)
#define K_STORE(p, v) _mm512_store_ps(p, v)
#define K_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define K_MUL(a, b) _mm512_mul_ps(a, b)
#define K_SFMA(a, b, c) __builtin_fmaf(a, b, c)
#define K_ROT(v)                                                                                   \
  _mm512_permutexvar_ps(_mm512_setr_epi32(15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14), v)
#define K_INS0(a, b) _mm512_mask_blend_ps(1, a, b)
#define K_MASK(ki, lo, hi)                                                                         \
  ((__mmask16) (_mm512_cmp_ps_mask(ki, lo, _CMP_GT_OQ) & _mm512_cmp_ps_mask(ki, hi, _CMP_LE_OQ)))
#define K_SEL(m, a, b) _mm512_mask_blend_ps(m, b, a)
#define K_WSEL_T __m512i
#define K_WSEL_MAKE(l) _mm512_set1_epi32(l)
#define K_WEXTRACT(v, s) _mm512_cvtss_f32(_mm512_permutexvar_ps(s, v))

#define K_NAME avx512_f32_s
#define K_SFX f32s
#define K_IO float
#define K_LOADIO(p) _mm512_loadu_ps(p)
#define K_STOREIO(p, v) _mm512_storeu_ps(p, v)
#define K_LOADIO_PART(p, n) _mm512_maskz_loadu_ps((__mmask16) ((1u << (n)) - 1u), p)
#define K_STOREIO_PART(p, v, n) _mm512_mask_storeu_ps(p, (__mmask16) ((1u << (n)) - 1u), v)
#define K_NARROW_RANGE fx_range_avx512n_f32_s
#include "kernel_simd.h"
#include "kernel_simd_end.h"

const fx_kernel_t fx_kernel_avx512 = {
    .name = "avx512",
    .f64 = avx512_f64,
    .f32_d = avx512_f32_d,
    .f32_s = avx512_f32_s,
};
