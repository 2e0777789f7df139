/* gst-fx — AVX-512 SOS cascade kernel (x86-64; its files alone are compiled with -mavx512f
 * -mavx512dq -mavx512vl -mfma). SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Instantiates kernel_simd.h with 512-bit vectors: 16 float lanes, 8 double lanes; 32 vector
 * registers allow groups of 8 sections with their state in registers. Channel ranges of at most
 * half a vector (mono, stereo, C < 16 floats / 8 doubles, leftovers) go to a 256-bit
 * instantiation (kernel_x256.h, the AVX2 kernel's code) compiled with the same flags
 * (kernel_avx512n_<flavour>.c, fx_range_avx512n_<flavour>), where AVX-512VL gives it 32 registers
 * and so larger register-resident groups than the AVX2 kernel (bench/results/kernels.md). The
 * arithmetic per lane is the same FMA sequence in all of them, so the output is identical to the
 * AVX2 kernel's; on cores that split 512-bit operations in two (Zen 4) a half-empty 512-bit
 * vector or a 512-bit lane rotation costs more than the 256-bit path. The AVX-512 kernel is only
 * listed where AVX2 and FMA exist.
 *
 * Included once by each of kernel_avx512_f64.c, kernel_avx512_f32_d.c and kernel_avx512_f32_s.c,
 * which define K_NAME, K_SFX, K_RANGE, K_NARROW_RANGE and one of K_FLAVOUR_F64, K_FLAVOUR_F32_D,
 * K_FLAVOUR_F32_S. With K_NARROW_RANGE it has no wavefront, so none of the wavefront's
 * operations (kernel_simd.h). */
#include "kernel.h"

#include <immintrin.h>

#if defined(K_FLAVOUR_F64) || defined(K_FLAVOUR_F32_D)
/* ---- double arithmetic: 8 lanes ---- */
#define K_T double
#define K_V __m512d
#define K_W 8
#define K_CVG 8
#define K_SET1(s) _mm512_set1_pd(s)
#define K_ZERO() _mm512_setzero_pd()
#define K_LOAD(p) _mm512_load_pd(p)
#define K_STORE(p, v) _mm512_store_pd(p, v)
#define K_FMA(a, b, c) _mm512_fmadd_pd(a, b, c)
#define K_MUL(a, b) _mm512_mul_pd(a, b)
#define K_SFMA(a, b, c) __builtin_fma(a, b, c)

#if defined(K_FLAVOUR_F64)
#define K_IO double
#define K_LOADIO(p) _mm512_loadu_pd(p)
#define K_STOREIO(p, v) _mm512_storeu_pd(p, v)
#define K_LOADIO_PART(p, n) _mm512_maskz_loadu_pd((__mmask8) ((1u << (n)) - 1u), p)
#define K_STOREIO_PART(p, v, n) _mm512_mask_storeu_pd(p, (__mmask8) ((1u << (n)) - 1u), v)
#else
#define K_IO float
#define K_LOADIO(p) _mm512_cvtps_pd(_mm256_loadu_ps(p))
#define K_STOREIO(p, v) _mm256_storeu_ps(p, _mm512_cvtpd_ps(v))
#define K_LOADIO_PART(p, n) _mm512_cvtps_pd(_mm256_maskz_loadu_ps((__mmask8) ((1u << (n)) - 1u), p))
#define K_STOREIO_PART(p, v, n)                                                                    \
  _mm256_mask_storeu_ps(p, (__mmask8) ((1u << (n)) - 1u), _mm512_cvtpd_ps(v))
#endif

#elif defined(K_FLAVOUR_F32_S)
/* ---- float arithmetic: 16 lanes ---- */
#define K_T float
#define K_V __m512
#define K_W 16
#define K_CVG 8
#define K_SET1(s) _mm512_set1_ps(s)
#define K_ZERO() _mm512_setzero_ps()
#define K_LOAD(p) _mm512_load_ps(p)
#define K_STORE(p, v) _mm512_store_ps(p, v)
#define K_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define K_MUL(a, b) _mm512_mul_ps(a, b)
#define K_SFMA(a, b, c) __builtin_fmaf(a, b, c)

#define K_IO float
#define K_LOADIO(p) _mm512_loadu_ps(p)
#define K_STOREIO(p, v) _mm512_storeu_ps(p, v)
#define K_LOADIO_PART(p, n) _mm512_maskz_loadu_ps((__mmask16) ((1u << (n)) - 1u), p)
#define K_STOREIO_PART(p, v, n) _mm512_mask_storeu_ps(p, (__mmask16) ((1u << (n)) - 1u), v)
#else
#error "define K_FLAVOUR_F64, K_FLAVOUR_F32_D or K_FLAVOUR_F32_S"
#endif

#include "kernel_simd.h"
