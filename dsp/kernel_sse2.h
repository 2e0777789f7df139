/* gst-fx — SSE2 SOS cascade kernel (x86-64 baseline; compiled with -msse2). Pure C11.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Instantiates kernel_simd.h with 128-bit vectors: 4 float lanes, 2 double lanes. Without FMA,
 * fma(a, b, c) is a*b rounded, then + c: the same operations, in the same order, as the scalar
 * kernel's, so this kernel's output is bit-identical to the scalar kernel's.
 *
 * Included once by each of kernel_sse2_f64.c, kernel_sse2_f32_d.c and kernel_sse2_f32_s.c (one
 * flavour per translation unit, so that they compile in parallel), which define K_NAME, K_RANGE
 * and one of K_FLAVOUR_F64, K_FLAVOUR_F32_D, K_FLAVOUR_F32_S. */
#include "kernel.h"

#include <emmintrin.h>

/* a*b rounded, then + c (rounded): never contracted (the build uses -ffp-contract=off too). */
static inline double fx_sse2_fmad(double a, double b, double c)
{
  const double p = a * b;
  return p + c;
}
static inline float fx_sse2_fmaf(float a, float b, float c)
{
  const float p = a * b;
  return p + c;
}

static inline double fx_sse2_lane_pd(__m128d v, int l)
{
  return l ? _mm_cvtsd_f64(_mm_unpackhi_pd(v, v)) : _mm_cvtsd_f64(v);
}
static inline float fx_sse2_lane_ps(__m128 v, int l)
{
  _Alignas(16) float o[4];
  _mm_store_ps(o, v);
  return o[l];
}

/* Chunked kernel transposes (kernel_chunk.h K_CK_TR1 / K_CK_TR2). */
static inline void fx_sse2_tr2x2_pd(__m128d *r)
{
  const __m128d a = _mm_unpacklo_pd(r[0], r[1]), b = _mm_unpackhi_pd(r[0], r[1]);
  r[0] = a;
  r[1] = b;
}
static inline void fx_sse2_tr4x4_ps(__m128 *r)
{
  _MM_TRANSPOSE4_PS(r[0], r[1], r[2], r[3]);
}
static inline void fx_sse2_tr2x2_ps2(__m128 *r)
{
  const __m128d a = _mm_castps_pd(r[0]), b = _mm_castps_pd(r[1]);
  r[0] = _mm_castpd_ps(_mm_unpacklo_pd(a, b));
  r[1] = _mm_castpd_ps(_mm_unpackhi_pd(a, b));
}

#if defined(K_FLAVOUR_F64) || defined(K_FLAVOUR_F32_D)
/* ---- double arithmetic: 2 lanes ---- */
#define K_T double
#define K_V __m128d
#define K_W 2
#define K_VM __m128d
#define K_CVG 4
#define K_WFM 4
#define K_SET1(s) _mm_set1_pd(s)
#define K_ZERO() _mm_setzero_pd()
#define K_LOAD(p) _mm_load_pd(p)
#define K_STORE(p, v) _mm_store_pd(p, v)
#define K_FMA(a, b, c) _mm_add_pd(_mm_mul_pd(a, b), c)
#define K_MUL(a, b) _mm_mul_pd(a, b)
#define K_ADD(a, b) _mm_add_pd(a, b)
#define K_SUB(a, b) _mm_sub_pd(a, b)
#define K_SFMA(a, b, c) fx_sse2_fmad(a, b, c)
#define K_ROT(v) _mm_shuffle_pd(v, v, 1)
#define K_INS0(a, b) _mm_move_sd(a, b)
#define K_MASK(ki, lo, hi) _mm_and_pd(_mm_cmpgt_pd(ki, lo), _mm_cmple_pd(ki, hi))
#define K_SEL(m, a, b) _mm_or_pd(_mm_and_pd(m, a), _mm_andnot_pd(m, b))
#define K_WSEL_T int
#define K_WSEL_MAKE(l) (l)
#define K_WEXTRACT(v, l) fx_sse2_lane_pd(v, l)
#define K_CK_TR1(r) fx_sse2_tr2x2_pd(r)
#define K_CK_TR2(r) ((void) (r)) /* one frame of two channels per vector already */

#if defined(K_FLAVOUR_F64)
#define K_IO double
#define K_LOADIO(p) _mm_loadu_pd(p)
#define K_STOREIO(p, v) _mm_storeu_pd(p, v)
#else
#define K_IO float
#define K_LOADIO(p) _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i *) (p))))
#define K_STOREIO(p, v) _mm_storel_epi64((__m128i *) (p), _mm_castps_si128(_mm_cvtpd_ps(v)))
#endif

#elif defined(K_FLAVOUR_F32_S)
/* ---- float arithmetic: 4 lanes ---- */
#define K_T float
#define K_V __m128
#define K_W 4
#define K_VM __m128
#define K_CVG 4
#define K_WFM 4
#define K_SET1(s) _mm_set1_ps(s)
#define K_ZERO() _mm_setzero_ps()
#define K_LOAD(p) _mm_load_ps(p)
#define K_STORE(p, v) _mm_store_ps(p, v)
#define K_FMA(a, b, c) _mm_add_ps(_mm_mul_ps(a, b), c)
#define K_MUL(a, b) _mm_mul_ps(a, b)
#define K_ADD(a, b) _mm_add_ps(a, b)
#define K_SUB(a, b) _mm_sub_ps(a, b)
#define K_SFMA(a, b, c) fx_sse2_fmaf(a, b, c)
#define K_ROT(v) _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 1, 0, 3))
#define K_INS0(a, b) _mm_move_ss(a, b)
#define K_MASK(ki, lo, hi) _mm_and_ps(_mm_cmpgt_ps(ki, lo), _mm_cmple_ps(ki, hi))
#define K_SEL(m, a, b) _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b))
#define K_WSEL_T int
#define K_WSEL_MAKE(l) (l)
#define K_WEXTRACT(v, l) fx_sse2_lane_ps(v, l)
#define K_CK_TR1(r) fx_sse2_tr4x4_ps(r)
#define K_CK_TR2(r) fx_sse2_tr2x2_ps2(r)

#define K_IO float
#define K_LOADIO(p) _mm_loadu_ps(p)
#define K_STOREIO(p, v) _mm_storeu_ps(p, v)
#else
#error "define K_FLAVOUR_F64, K_FLAVOUR_F32_D or K_FLAVOUR_F32_S"
#endif

#include "kernel_simd.h"
