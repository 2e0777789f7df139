/* gst-fx — the 256-bit instantiation of kernel_simd.h (internal to libfxdsp). Pure C11.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Included, one flavour per translation unit, by kernel_avx2_<flavour>.c (compiled with -mavx2
 * -mfma: 16 vector registers) and by kernel_avx512n_<flavour>.c (compiled with AVX-512F/VL as
 * well: the same 256-bit code, but the compiler has 32 vector registers, so larger groups of
 * sections keep their state and coefficients in registers). Both instantiations do the same FMA
 * arithmetic per lane, so their results are bit-identical. (A wavefront on 128-bit vectors, whose
 * lane rotation stays within 128 bits, measured slower on Zen 4.) Before including, define:
 *   K_NAME, K_RANGE  as kernel_simd.h (K_NAME only where the kernel function is wanted)
 *   one of K_FLAVOUR_F64, K_FLAVOUR_F32_D, K_FLAVOUR_F32_S
 *   K_X256_CVG_D     sections per register-resident group, double arithmetic (4 lanes)
 *   K_X256_CVG_F     the same for float arithmetic (8 lanes)
 * F32 streams in double arithmetic (K_FLAVOUR_F32_D) get the time-block path (kernel.h). */
#include "kernel.h"

#include <immintrin.h>
#include <string.h>

/* Lane masks for partly filled vectors: the first n lanes. */
static inline __m256i fx_avx2_mask32(int n)
{
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
static inline __m128i fx_avx2_mask32x4(int n)
{
  return _mm_cmpgt_epi32(_mm_set1_epi32(n), _mm_setr_epi32(0, 1, 2, 3));
}
static inline __m256i fx_avx2_mask64(int n)
{
  return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3));
}

/* Time-block transposes (kernel_simd.h K_TB_TR1 / K_TB_TR2): 4x4 doubles, 2x2 double pairs. */
static inline void fx_avx2_tr4x4_pd(__m256d *r)
{
  const __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
  const __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
  r[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
  r[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
  r[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
  r[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}
static inline void fx_avx2_tr2x2_pd2(__m256d *r)
{
  const __m256d a = _mm256_permute2f128_pd(r[0], r[1], 0x20);
  const __m256d b = _mm256_permute2f128_pd(r[0], r[1], 0x31);
  r[0] = a;
  r[1] = b;
}

/* Chunked kernel transposes (kernel_chunk.h K_CK_TR1 / K_CK_TR2): 8x8 floats, 4x4 float pairs. */
static inline void fx_avx2_tr8x8_ps(__m256 *r)
{
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 s1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 s3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 s4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 s5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 s6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 s7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
  r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
  r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
  r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
  r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
  r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
  r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
  r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
  r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}
static inline void fx_avx2_tr4x4_ps2(__m256 *r)
{
  __m256d d[4];
  for (int i = 0; i < 4; i++)
    d[i] = _mm256_castps_pd(r[i]);
  fx_avx2_tr4x4_pd(d);
  for (int i = 0; i < 4; i++)
    r[i] = _mm256_castpd_ps(d[i]);
}

/* The chunked kernels' carries in double (kernel_chunk.h). */
#define K_DFMA(a, b, c) __builtin_fma(a, b, c)

#if defined(K_FLAVOUR_F64) || defined(K_FLAVOUR_F32_D)
/* ---- double arithmetic: 4 lanes ---- */
#define K_T double
#define K_V __m256d
#define K_W 4
#define K_VM __m256d
#define K_CVG K_X256_CVG_D
#define K_WFM 4
#define K_SET1(s) _mm256_set1_pd(s)
#define K_ZERO() _mm256_setzero_pd()
#define K_LOAD(p) _mm256_load_pd(p)
#define K_STORE(p, v) _mm256_store_pd(p, v)
#define K_FMA(a, b, c) _mm256_fmadd_pd(a, b, c)
#define K_MUL(a, b) _mm256_mul_pd(a, b)
#define K_ADD(a, b) _mm256_add_pd(a, b)
#define K_SUB(a, b) _mm256_sub_pd(a, b)
#define K_SFMA(a, b, c) __builtin_fma(a, b, c)
#define K_ROT(v) _mm256_permute4x64_pd(v, _MM_SHUFFLE(2, 1, 0, 3))
#define K_INS0(a, b) _mm256_blend_pd(a, b, 1)
#define K_MASK(ki, lo, hi)                                                                         \
  _mm256_and_pd(_mm256_cmp_pd(ki, lo, _CMP_GT_OQ), _mm256_cmp_pd(ki, hi, _CMP_LE_OQ))
#define K_SEL(m, a, b) _mm256_blendv_pd(b, a, m)
#define K_WSEL_T __m256i
#define K_WSEL_MAKE(l) _mm256_setr_epi32(2 * (l), 2 * (l) + 1, 0, 0, 0, 0, 0, 0)
#define K_WEXTRACT(v, s)                                                                           \
  _mm256_cvtsd_f64(_mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(v), s)))
#define K_CK_TR1(r) fx_avx2_tr4x4_pd(r)
#define K_CK_TR2(r) fx_avx2_tr2x2_pd2(r)
/* The in-place wavefront's joins (kernel_simd.h): lanes a3 b0 b1 b2 (one lane up, mono), a2 a3 b0
 * b1 (two: two sections of two channels per vector), and its pair load and store. */
#define K_PWM 4
#define K_PJOIN(a, b) _mm256_permute2f128_pd(a, b, 0x21)
#define K_SJOIN(a, b) _mm256_shuffle_pd(_mm256_permute2f128_pd(a, b, 0x21), b, 5)
#define K_PSEL_T __m256i
#define K_PSEL_MAKE(q) _mm256_setr_epi32(4 * (q), 4 * (q) + 1, 4 * (q) + 2, 4 * (q) + 3, 0, 0, 0, 0)
#define K_PPAIR(v, s)                                                                              \
  _mm256_castpd256_pd128(_mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(v), s)))

#if defined(K_FLAVOUR_F64)
#define K_IO double
#define K_LOADIO(p) _mm256_loadu_pd(p)
#define K_STOREIO(p, v) _mm256_storeu_pd(p, v)
#define K_LOADIO_PART(p, n) _mm256_maskload_pd(p, fx_avx2_mask64(n))
#define K_STOREIO_PART(p, v, n) _mm256_maskstore_pd(p, fx_avx2_mask64(n), v)
#define K_PIN(p) _mm256_broadcast_pd((const __m128d *) (p))
#define K_PSTORE(p, v, s) _mm_storeu_pd(p, K_PPAIR(v, s))
#else
#define K_IO float
#define K_LOADIO(p) _mm256_cvtps_pd(_mm_loadu_ps(p))
#define K_STOREIO(p, v) _mm_storeu_ps(p, _mm256_cvtpd_ps(v))
#define K_LOADIO_PART(p, n) _mm256_cvtps_pd(_mm_maskload_ps(p, fx_avx2_mask32x4(n)))
#define K_STOREIO_PART(p, v, n) _mm_maskstore_ps(p, fx_avx2_mask32x4(n), _mm256_cvtpd_ps(v))
#define K_TB 1
#define K_TB_TR1(r) fx_avx2_tr4x4_pd(r)
#define K_TB_TR2(r) fx_avx2_tr2x2_pd2(r)
#define K_TB_BCAST2(p) _mm256_broadcast_pd((const __m128d *) (p))
#define K_PIN(p) _mm256_cvtps_pd(_mm_castpd_ps(_mm_loaddup_pd((const double *) (p))))
#define K_PSTORE(p, v, s) _mm_storel_pi((__m64 *) (p), _mm_cvtpd_ps(K_PPAIR(v, s)))
#endif

#elif defined(K_FLAVOUR_F32_S)
/* ---- float arithmetic: 8 lanes ---- */
#define K_T float
#define K_V __m256
#define K_W 8
#define K_VM __m256
#define K_CVG K_X256_CVG_F
#define K_WFM 2
#define K_SET1(s) _mm256_set1_ps(s)
#define K_ZERO() _mm256_setzero_ps()
#define K_LOAD(p) _mm256_load_ps(p)
#define K_STORE(p, v) _mm256_store_ps(p, v)
#define K_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define K_MUL(a, b) _mm256_mul_ps(a, b)
#define K_ADD(a, b) _mm256_add_ps(a, b)
#define K_SUB(a, b) _mm256_sub_ps(a, b)
#define K_SFMA(a, b, c) __builtin_fmaf(a, b, c)
#define K_ROT(v) _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6))
#define K_INS0(a, b) _mm256_blend_ps(a, b, 1)
#define K_MASK(ki, lo, hi)                                                                         \
  _mm256_and_ps(_mm256_cmp_ps(ki, lo, _CMP_GT_OQ), _mm256_cmp_ps(ki, hi, _CMP_LE_OQ))
#define K_SEL(m, a, b) _mm256_blendv_ps(b, a, m)
#define K_WSEL_T __m256i
#define K_WSEL_MAKE(l) _mm256_set1_epi32(l)
#define K_WEXTRACT(v, s) _mm256_cvtss_f32(_mm256_permutevar8x32_ps(v, s))
#define K_CK_TR1(r) fx_avx2_tr8x8_ps(r)
#define K_CK_TR2(r) fx_avx2_tr4x4_ps2(r)
/* The in-place wavefront's operations (kernel_simd.h): lanes a7 b0 .. b6 (mono), a6 a7 b0 .. b5
 * (four sections of two channels per vector). */
#define K_PWM 2
#define K_PJOIN(a, b)                                                                              \
  _mm256_shuffle_ps(_mm256_permute2f128_ps(a, b, 0x21), b, _MM_SHUFFLE(1, 0, 3, 2))
#define K_SJOIN(a, b)                                                                              \
  _mm256_castsi256_ps(_mm256_alignr_epi8(                                                          \
      _mm256_castps_si256(b), _mm256_castps_si256(_mm256_permute2f128_ps(a, b, 0x21)), 12))
#define K_PSEL_T __m256i
#define K_PSEL_MAKE(q) _mm256_setr_epi32(2 * (q), 2 * (q) + 1, 0, 0, 0, 0, 0, 0)
#define K_PIN(p) _mm256_castpd_ps(_mm256_broadcast_sd((const double *) (p)))
#define K_PSTORE(p, v, s)                                                                          \
  _mm_storel_pi((__m64 *) (p), _mm256_castps256_ps128(_mm256_permutevar8x32_ps(v, s)))

#define K_IO float
#define K_LOADIO(p) _mm256_loadu_ps(p)
#define K_STOREIO(p, v) _mm256_storeu_ps(p, v)
#define K_LOADIO_PART(p, n) _mm256_maskload_ps(p, fx_avx2_mask32(n))
#define K_STOREIO_PART(p, v, n) _mm256_maskstore_ps(p, fx_avx2_mask32(n), v)
#else
#error "define K_FLAVOUR_F64, K_FLAVOUR_F32_D or K_FLAVOUR_F32_S"
#endif

#include "kernel_simd.h"
