/* gst-fx — chunked SOS cascade kernel template (internal to libfxdsp). Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Included once per translation unit and flavour, after the instruction set's vector macros (the
 * same K_* macros as kernel_simd.h: K_T, K_IO, K_V, K_W, K_SET1, K_ZERO, K_LOAD, K_STORE, K_FMA,
 * K_MUL, K_SFMA, K_SFX; a scalar instantiation sets K_V = K_T and K_W = 1) and K_CHUNK_NAME, the
 * function's name (fx_kernel_chunk_fn in kernel.h). The algebra is chunk.h's: each channel is cut
 * into chunks of FX_CHUNK_L frames at fixed stream positions; a block of up to K_CK_NV * K_W full
 * chunks of one channel fills K_CK_NV vectors (lane l of vector v: chunk v * K_W + l), and each
 * section in turn
 *   - filters every chunk of the block from the zero state (the K_CK_NV vectors are independent
 *     recurrences, in flight together),
 *   - carries the true state chunk by chunk in double (chunk.h's c <- e + M c, ck_carry() below),
 *   - corrects every sample: y = fma(h2[i], c2, fma(h1[i], c1, y0)).
 * Chunks cut by the call's start or end (a chunk the previous call began, or one this call begins),
 * and all of a call with fewer than K_CK_MIN_LANES lanes' worth of full chunks, run through the
 * chunk wavefront (ck_wf: the sections in the lanes, sample by sample) with exactly the same
 * operations per sample, and the zero-state recursion and carry stay in the channel's records
 * (fx_chunk_rec_t) for the next call, so every sample's result is the same whatever the buffer
 * boundaries: any split of a stream is bit-identical. A record is used only when the caller's state
 * still holds what this kernel last wrote there (otherwise the engine changed it: a new chunk grid
 * starts at this call, from it).
 *
 * Work per sample and section: 5 operations for the zero-state recursion, 2 for the correction, all
 * in full lanes, against 5 in the sequential kernels' mostly empty lanes for one or two channels.
 * The block path turns the recursion's products by 1 and 2 into additions where a section's
 * numerator is 1, 2, 1 (ck_shape: the same numbers, so the wavefront's plain form agrees bit for
 * bit): 2 multiply-adds there instead of 5, and 1 fewer where b0 = 1 in the state-space form.
 *
 * Two forms of the zero-state recursion, one per section (ck_ss), the same in every path:
 *   - transposed direct form II: y = b0 x + z1; z1 <- b1 x - a1 y + z2; z2 <- b2 x - a2 y;
 *   - state-space form of the same state: z1 <- sb1 x - a1 z1 + z2; z2 <- sb2 x - a2 z1, with
 *     sb1 = b1 - a1 b0, sb2 = b2 - a2 b0 (chunk.h), y = b0 x + z1 as before.
 * With K_CK_SUB (an instruction set with registers for a third state vector per recurrence: the
 * AVX-512 entry's 32), the state-space form runs with z2 substituted into the next step:
 *     z1 <- fma(-a1, z1, fma(-a2, zp, fma(sb1, x, zu))),  zp <- z1,  zu <- sb2 x
 * (zp and zu: z1 and sb2 x one frame back), so that a step waits on the one before through two
 * multiply-adds every two frames (z1 one frame back is known a step early), not three. (The
 * transposed form's own loop, z1 -> y -> z1, does not shorten that way, and substituted it
 * measured up to 2.5 dB less SER behind poles near z = -1: it stays as it is.)
 * Where the lanes hold few recurrences (short calls) that latency sets the pace: 128-frame stereo
 * calls of the seed chain take 0.87 of the time, long calls 1.01-1.015 (bench/ab-chunk.sh;
 * docs/cascade.md, "The recursion's loop on AVX-512"). z2 = fma(-a2, zp, zu) is formed only for
 * the carry at a chunk's end and for the records. Without K_CK_SUB (16 registers: the third
 * vector spills, long calls 1.09-1.10 of the time) the form is the one above,
 * z1 <- fma(-a1, z1, fma(sb1, x, z2)), z2 <- fma(-a2, z1, sb2 x).
 * Behind poles near z = 1 with zeros at z = 1 (high-pass sections) the transposed form rounds
 * b1 x + z2, of the size of 2 x, into a state far smaller than x, and the poles amplify those
 * errors; the state-space form's terms have the size of the state (the sb are small there). In
 * float arithmetic it measured 4 to 25 dB more SER on Butterworth high-pass designs (80 Hz order 4,
 * 20 Hz order 8) and no less on the low-pass, Chebyshev and elliptic ones (docs/cascade.md,
 * "Chunked kernels"). It runs every section but the 1, 2, 1 ones (the same count of multiply-adds
 * for the general ones; one more than the shaped transposed form for 1, b1, 1 and two more for
 * 1, -2, 1 ones), the transposed form the 1, 2, 1 ones (zeros at z = -1), where it is as accurate
 * and cheaper. The 1, b1, 1 sections (zeros on the unit circle) measured up to 6 dB more SER in
 * the state-space form (a Chebyshev II band-stop).
 */

#include "chunk.h"
#include "kernel.h"
#include "kernel_fpmode.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef K_CK_NV
#define K_CK_NV 4
#endif
#define K_CK_NB (K_CK_NV * K_W)
/* Chunks go through the block path when they fill at least this many lanes (chunks times the
 * channels a vector holds: with one or two channels every chunk the call touches, partial ones
 * included; with more, the full ones of each channel). The engine runs every call of a chunked
 * stream here, however short (a call on the sequential kernels would restart the chunk grid), so
 * the block path takes calls from two lanes on: one vector's recursion per section is faster than
 * the wavefront's step per frame from there (measured with bench/chunkseq.c and bench/ab-chunk.sh:
 * docs/cascade.md, "Which kernel" and "Partial chunks in the blocks"). */
#ifndef K_CK_MIN_LANES
#define K_CK_MIN_LANES 2
#endif
#define K_CK_L FX_CHUNK_L
#ifndef K_CK_SUB
#define K_CK_SUB 0
#endif

#define K_CK_CAT2(a, b) a##_##b
#define K_CK_CAT(a, b) K_CK_CAT2(a, b)
#define K_CK_FN(x) K_CK_CAT(x, K_SFX)
#define K_AI_CK static inline __attribute__((always_inline))

#ifdef K_DFMA
/* c <- w + M c (chunk.h, fx_chunk_mstep) with the instruction set's double FMA. */
K_AI_CK void K_CK_FN(ck_fstep)(const double *M, double w1, double w2, double *c1, double *c2)
{
  const double n1 = K_DFMA(M[0], *c1, K_DFMA(M[1], *c2, w1));
  const double n2 = K_DFMA(M[2], *c1, K_DFMA(M[3], *c2, w2));
  *c1 = n1;
  *c2 = n2;
}
#endif

/* The carry across one chunk, c <- e + M c (chunk.h, fx_chunk_carry), and over a pair of
 * chunks, c <- w + M2 c (fx_chunk_carry2), with the instruction set's double FMA where it has
 * one (chunk.h's expressions otherwise): the one expression every path of this kernel uses, so
 * that a chunk's carry is the same whichever path completed it. */
K_AI_CK void K_CK_FN(ck_carry)(const fx_chunk_sec_t *p, double e1, double e2, double *c1,
                               double *c2)
{
#ifdef K_DFMA
  K_CK_FN(ck_fstep)(p->M, e1, e2, c1, c2);
#else
  fx_chunk_carry(p, e1, e2, c1, c2);
#endif
}

K_AI_CK void K_CK_FN(ck_carry2)(const fx_chunk_sec_t *p, double w1, double w2, double *c1,
                                double *c2)
{
#ifdef K_DFMA
  K_CK_FN(ck_fstep)(p->M2, w1, w2, c1, c2);
#else
  fx_chunk_carry2(p, w1, w2, c1, c2);
#endif
}

/* A channel's carry state for one section while a path runs (the record's c, cp, ep, odd). */
typedef struct {
  double c1, c2, cp1, cp2, ep1, ep2;
  int odd;
} K_CK_FN(ck_cy_t);

K_AI_CK K_CK_FN(ck_cy_t) K_CK_FN(ck_cy_load)(const fx_chunk_rec_t *r)
{
  const K_CK_FN(ck_cy_t) y = {r->c1, r->c2, r->cp1, r->cp2, r->ep1, r->ep2, r->odd};
  return y;
}

K_AI_CK void K_CK_FN(ck_cy_save)(fx_chunk_rec_t *r, const K_CK_FN(ck_cy_t) * y)
{
  r->c1 = y->c1;
  r->c2 = y->c2;
  r->cp1 = y->cp1;
  r->cp2 = y->cp2;
  r->ep1 = y->ep1;
  r->ep2 = y->ep2;
  r->odd = y->odd;
}

/* The end of the current chunk, whose zero-state end state is e: the next chunk's carry, two
 * chunks at a time (chunk.h, fx_chunk_carry2). The first chunk of a pair keeps its carry and end
 * state and passes on e + M c (off the carries' chain: the pair's end does not wait on it); the
 * second takes the pair's carry from the first's. Every path of the kernel takes these steps, so
 * a chunk's carry is the same whichever path completed it. */
K_AI_CK void K_CK_FN(ck_first)(const fx_chunk_sec_t *p, double e1, double e2, K_CK_FN(ck_cy_t) * y)
{
  y->cp1 = y->c1;
  y->cp2 = y->c2;
  y->ep1 = e1;
  y->ep2 = e2;
  K_CK_FN(ck_carry)(p, e1, e2, &y->c1, &y->c2);
  y->odd = 1;
}

K_AI_CK void K_CK_FN(ck_second)(const fx_chunk_sec_t *p, double e1, double e2, K_CK_FN(ck_cy_t) * y)
{
  double w1 = y->ep1, w2 = y->ep2;
  K_CK_FN(ck_carry)(p, e1, e2, &w1, &w2); /* e(n+1) + M e(n) */
  y->c1 = y->cp1;
  y->c2 = y->cp2;
  K_CK_FN(ck_carry2)(p, w1, w2, &y->c1, &y->c2);
  y->odd = 0;
}

K_AI_CK void K_CK_FN(ck_step)(const fx_chunk_sec_t *p, double e1, double e2, K_CK_FN(ck_cy_t) * y)
{
  if (y->odd)
    K_CK_FN(ck_second)(p, e1, e2, y);
  else
    K_CK_FN(ck_first)(p, e1, e2, y);
}

/* The section tables in the arithmetic type. */
#ifdef K_FLAVOUR_F32_S
#define K_CK_H1(p) ((p)->h1f)
#define K_CK_H2(p) ((p)->h2f)
#define K_CK_SB(p) ((p)->sbf)
#else
#define K_CK_H1(p) ((p)->h1)
#define K_CK_H2(p) ((p)->h2)
#define K_CK_SB(p) ((p)->sb)
#endif

/* The numerators the zero-state pass specialises. A product by 1 or 2 is exact, so x + z1
 * rounds as b0 x + z1 does with b0 = 1, and z2 + (x + x) as b1 x + z2 with b1 = 2: the same
 * numbers, with additions (which have their own pipes on many cores: on Zen 3 the two FP add
 * pipes beside the two FMA pipes) in place of multiply-adds.
 *   - K_CK_BINP: b = 1, 2, 1 exactly (zeros at z = -1: scipy's Butterworth and Chebyshev I
 *     low-pass sections after the first, where the engine's balancing left them unscaled), the
 *     one shape that keeps the transposed form: 2 multiply-adds and 3 additions;
 *   - K_CK_UNIT: the state-space form with b0 = 1 (y = x + z1): 4 multiply-adds and an addition;
 *   - K_CK_GEN: the state-space form, 5 multiply-adds.
 * The engine's section balancing scales most numerators by a power of two (2^e (1, 2, 1),
 * 2^e (1, b1, 1), ...: docs/cascade.md, "Section balancing"). The passes take that power of two
 * out again (ck_norm below: exact, so the output is bit-identical), which makes those sections
 * K_CK_UNIT ones; the form stays the one the section's own numerator chooses. */
#ifndef K_CK_SHAPES
#define K_CK_SHAPES
enum { K_CK_GEN, K_CK_UNIT /* state-space, b0 = 1 */, K_CK_BINP /* 1, 2, 1, transposed */ };
#endif

/* 1 where a section of this shape runs the state-space form (above). */
K_AI_CK int K_CK_FN(ck_ss)(int shape)
{
  return shape != K_CK_BINP;
}

/* Sections per kernel pass: a longer cascade runs as consecutive passes of this many. */
#define K_CK_SMAX 32

/* One section as the passes run it. The numerator (and sb, its state-space input coefficients)
 * is the section's times 2^m; m takes the power of two out of a numerator whose b0 is one, and
 * the pass's first such-free section (its `absorber`) takes their product, so that the last
 * section's output is the cascade's. Between them each section's signal and state are 2^t times
 * the cascade's (t: the sum of the m up to the section). Powers of two are exact, so every
 * sample and state is the cascade's own times 2^t (away from overflow and the subnormal range,
 * which ck_norm keeps clear of), and the output is bit-identical. */
typedef struct {
  K_T c[5];  /* b0 b1 b2 (times 2^m) a1 a2 */
  K_T sb[2]; /* sb1 sb2 (chunk.h) times 2^m */
  int shape; /* K_CK_GEN, K_CK_UNIT or K_CK_BINP */
  int t;     /* the section's output and state are 2^t times the cascade's */
} K_CK_FN(ck_sec_t);

/* e where v = 2^e (a positive normal power of two), else INT_MIN; from the bits (no libm call
 * in every kernel call). */
K_AI_CK int K_CK_FN(ck_pow2)(double v)
{
  uint64_t b;
  memcpy(&b, &v, sizeof(b));
  const int ef = (int) ((b >> 52) & 0x7ff);
  return (b & 0x800fffffffffffffull) == 0 && ef != 0 && ef != 0x7ff ? ef - 1023 : INT_MIN;
}

/* 2^e for -1022 <= e <= 1023, exactly. */
K_AI_CK double K_CK_FN(ck_exp2)(int e)
{
  const uint64_t b = (uint64_t) (e + 1023) << 52;
  double v;
  memcpy(&v, &b, sizeof(v));
  return v;
}

/* The sections of a pass (K <= K_CK_SMAX) as it runs them (ck_sec_t). Without a power of two to
 * take out, or where a section to scale is not fx_chunk_sec_t's `scalable` or a scale would
 * leave [2^-64, 2^64], every m is 0: the sections as given. */
static void K_CK_FN(ck_norm)(const K_T *coef, const fx_chunk_sec_t *ps, int K,
                             K_CK_FN(ck_sec_t) * q)
{
  int m[K_CK_SMAX], binp[K_CK_SMAX], e[K_CK_SMAX], absorber = -1, any = 0;
  for (int k = 0; k < K; k++) {
    const K_T *c = coef + 5 * (size_t) k;
    binp[k] = c[0] == (K_T) 1 && c[1] == (K_T) 2 && c[2] == (K_T) 1;
    e[k] = K_CK_FN(ck_pow2)((double) c[0]);
    m[k] = 0;
    if (absorber < 0 && !binp[k] && e[k] == INT_MIN)
      absorber = k;
    any |= e[k] != INT_MIN && e[k] != 0;
  }
  for (int k = 0; k < K && absorber < 0; k++)
    if (!binp[k])
      absorber = k;
  int ok = any && absorber >= 0 && ps[absorber].scalable, sum = 0;
  for (int k = 0; k < K && ok; k++)
    if (k != absorber && e[k] != INT_MIN && e[k] != 0) {
      ok = e[k] >= -64 && e[k] <= 64 && ps[k].scalable;
      m[k] = -e[k];
      sum += e[k];
    }
  m[absorber < 0 ? 0 : absorber] = ok ? sum : 0;
  int t = 0;
  for (int k = 0; k < K && ok; k++) {
    t += m[k];
    ok = t >= -64 && t <= 64 && m[k] >= -64 && m[k] <= 64;
  }
  t = 0;
  for (int k = 0; k < K; k++) {
    const int mk = ok ? m[k] : 0;
    const K_T *c = coef + 5 * (size_t) k;
    const K_T *sb = K_CK_SB(ps + k);
    K_CK_FN(ck_sec_t) *r = q + k;
    const K_T g = (K_T) K_CK_FN(ck_exp2)(mk); /* exact in K_T: |mk| <= 64 */
    for (int i = 0; i < 3; i++)
      r->c[i] = c[i] * g;
    r->c[3] = c[3];
    r->c[4] = c[4];
    r->sb[0] = sb[0] * g;
    r->sb[1] = sb[1] * g;
    r->shape = binp[k] ? K_CK_BINP : r->c[0] == (K_T) 1 ? K_CK_UNIT : K_CK_GEN;
    t += mk;
    r->t = t;
  }
}

/* The scale of the history at boundary s (the input of section s) back to the cascade's. */
K_AI_CK double K_CK_FN(ck_hs)(const K_CK_FN(ck_sec_t) * q, int s)
{
  return s > 0 ? K_CK_FN(ck_exp2)(-q[s - 1].t) : 1.0;
}

/* Frames per piece of the chunk wavefront (its local buffer). */
#define K_CK_WFN 256
/* Channels the chunk wavefront runs side by side: independent recurrences, in flight together,
 * so that two channels take about the time of one (each step waits on a chain of dependent
 * operations). */
#define K_CK_WFP 2

/* The chunk wavefront's tables for the sections g0 .. g0+G-1 in the lanes: hs[q][k] is h[(q - k)
 * mod L] of section g0 + k (lane k filters, at a step at chunk position q, the frame k steps
 * earlier), 0 in lanes k >= G. Built with the instruction set's W x W transposes from each
 * section's table rotated by W (ext below), not number by number: built once per wavefront
 * call, so its cost counts in every short call. */
static void K_CK_FN(ck_wf_tables)(const fx_chunk_sec_t *ps, int g0, int G, K_T (*hs1)[K_W],
                                  K_T (*hs2)[K_W])
{
  for (int which = 0; which < 2; which++) {
    K_T(*hs)[K_W] = which ? hs2 : hs1;
    /* ext[k][K_W + j] = h[j] and ext[k][K_W + j] = h[L + j] for -K_W <= j < 0 */
    _Alignas(64) K_T ext[K_W][K_CK_L + K_W];
    for (int k = 0; k < G; k++) {
      const K_T *h = which ? K_CK_H2(ps + g0 + k) : K_CK_H1(ps + g0 + k);
      memcpy(ext[k], h + K_CK_L - K_W, K_W * sizeof(K_T));
      memcpy(ext[k] + K_W, h, K_CK_L * sizeof(K_T));
    }
    for (int q0 = 0; q0 < K_CK_L; q0 += K_W) {
      K_V r[K_W];
      for (int k = 0; k < K_W; k++) {
        _Alignas(64) K_T v[K_W];
        if (k < G)
          memcpy(v, ext[k] + K_W + q0 - k, sizeof(v)); /* h[q0 - k .. q0 - k + W - 1] */
        else
          memset(v, 0, sizeof(v));
        r[k] = K_LOAD(v);
      }
      K_CK_TR1(r); /* r[j], lane k: h[q0 + j - k] of section g0 + k */
      for (int j = 0; j < K_W; j++)
        K_STORE(hs[q0 + j], r[j]);
    }
  }
}

/* The lanes' z2 from the wavefront's state: formed from zp and zu in the substituted lanes SS
 * (ck_zs), held as it is in the others. */
K_AI_CK K_V K_CK_FN(ck_wf_z2)(K_VM SS, K_V NA2, K_V ZP, K_V Z2)
{
#if K_CK_SUB
  return K_SEL(SS, K_FMA(NA2, ZP, Z2), Z2);
#else
  (void) SS, (void) NA2, (void) ZP;
  return Z2;
#endif
}

/* The chunk wavefront, for calls too short to fill the lanes with chunks and for the chunks cut
 * by a call's start or end: the sections of a channel spread over the lanes (lane k: section
 * g0 + k), lane k filtering frame t - k at step t, the corrected outputs shifting up one lane per
 * step, exactly the chunked arithmetic of the block path sample by sample: the zero-state
 * recursion, the correction y0 + h1[i] c1 + h2[i] c2 at the sample's chunk position i (lane k
 * reads its h from the tables skewed by k, ck_wf_tables), and at the end of a section's chunk its
 * carry (a lane event: the lane's end state into the carry, its recursion back to zero). P
 * channels (constant after inlining, up to K_CK_WFP) side by side, one vector each, sharing the
 * tables; rec[p] and hist[p] the channels' records and histories. Sections in groups of up to
 * K_W; buf[p] (n <= K_CK_WFN frames, in place) from chunk position ph. */
K_AI_CK void K_CK_FN(ck_wf_group)(const K_CK_FN(ck_sec_t) * sq, const fx_chunk_sec_t *ps,
                                  fx_chunk_rec_t *const *rec, int g0, int G, K_T (*buf)[K_CK_WFN],
                                  size_t n, int ph, double *const *hist, size_t f, size_t frames,
                                  K_T (*hs1)[K_W], K_T (*hs2)[K_W], const int P)
{
  _Alignas(64) K_T t0[K_W], t1[K_W], t2[K_W], t3[K_W], t4[K_W], ki[K_W], fs[K_W];
  _Alignas(64) K_T a1[K_CK_WFP][K_W], a2[K_CK_WFP][K_W], a3[K_CK_WFP][K_W], c1[K_CK_WFP][K_W],
      c2[K_CK_WFP][K_W];
  K_CK_FN(ck_cy_t) cy[K_CK_WFP][K_W]; /* the carries in double (C1, C2: rounded) */
  for (int k = 0; k < K_W; k++) {
    const int on = k < G;
    const K_T *c = on ? sq[g0 + k].c : NULL, *sb = on ? sq[g0 + k].sb : NULL;
    const int ss = on && K_CK_FN(ck_ss)(sq[g0 + k].shape);
    t0[k] = on ? c[0] : (K_T) 0;
    t1[k] = ss ? sb[0] : on ? c[1] : (K_T) 0;
    t2[k] = ss ? sb[1] : on ? c[2] : (K_T) 0;
    fs[k] = (K_T) ss;
    t3[k] = on ? -c[3] : (K_T) 0;
    t4[k] = on ? -c[4] : (K_T) 0;
    ki[k] = (K_T) k;
    for (int p = 0; p < P; p++) {
      const fx_chunk_rec_t *r = rec[p] + g0 + k;
      /* Z1, Z2 (z2, or zu where substituted) and ZP (ck_zs); a substituted lane whose record
       * holds z2 only (its section ran the other form: a numerator changed) goes on from zp = 0,
       * zu = z2 */
      const int sub = K_CK_SUB && ss, from = sub && r->sub;
      a1[p][k] = on ? (K_T) r->zs1 : (K_T) 0;
      a2[p][k] = on ? (K_T) (from ? r->zu : r->zs2) : (K_T) 0;
      a3[p][k] = from ? (K_T) r->zp : (K_T) 0;
      if (on)
        cy[p][k] = K_CK_FN(ck_cy_load)(r);
      c1[p][k] = on ? (K_T) cy[p][k].c1 : (K_T) 0;
      c2[p][k] = on ? (K_T) cy[p][k].c2 : (K_T) 0;
    }
  }
  const K_V B0 = K_LOAD(t0), B1 = K_LOAD(t1), B2 = K_LOAD(t2), NA1 = K_LOAD(t3), NA2 = K_LOAD(t4);
  const K_V KI = K_LOAD(ki);
  const K_VM SS = K_MASK(K_LOAD(fs), K_ZERO(), K_SET1((K_T) 1)); /* the state-space lanes */
  K_V Z1[K_CK_WFP], Z2[K_CK_WFP], ZP[K_CK_WFP], C1[K_CK_WFP], C2[K_CK_WFP], Y[K_CK_WFP];
  for (int p = 0; p < P; p++) {
    Z1[p] = K_LOAD(a1[p]);
    Z2[p] = K_LOAD(a2[p]);
    ZP[p] = K_LOAD(a3[p]);
    C1[p] = K_LOAD(c1[p]);
    C2[p] = K_LOAD(c2[p]);
    Y[p] = K_ZERO();
  }
  const K_WSEL_T last = K_WSEL_MAKE(G - 1);
  const size_t steps = n + (size_t) G - 1;
  const int rec_hist = hist[0] && f + n + 2 > frames; /* the call's last two frames are here */
  for (size_t t = 0; t < steps; t++) {
    const size_t q = ((size_t) ph + t) % K_CK_L;
    const K_V H1 = K_LOAD(hs1[q]), H2 = K_LOAD(hs2[q]);
    /* the lanes holding a frame: all but at the call's first and last G - 1 steps */
    const int edge = t + 1 < (size_t) G || t >= n;
#pragma GCC unroll 2
    for (int p = 0; p < P; p++) {
      const K_V X = K_INS0(K_ROT(Y[p]), K_SET1(t < n ? buf[p][t] : (K_T) 0));
      if (rec_hist && f + t + 2 >= frames) { /* the inputs of the group's inner sections */
        _Alignas(64) K_T xv[K_W];
        K_STORE(xv, X);
        for (int k = 1; k < G; k++) {
          const size_t fr = f + t - (size_t) k; /* the call's frame in lane k */
          if (t >= (size_t) k && t - (size_t) k < n && fr + 2 >= frames)
            hist[p][2 * (g0 + k) + (int) (frames - 1 - fr)] =
                (double) xv[k] * K_CK_FN(ck_hs)(sq, g0 + k);
        }
      }
      const K_V y0 = K_FMA(B0, X, Z1[p]);
      const K_V w = K_SEL(SS, Z1[p], y0); /* what the poles act on: z1 or y (the two forms) */
#if K_CK_SUB /* the state-space lanes substituted, the others not (ck_zs) */
      const K_V in = K_FMA(B1, X, Z2[p]), u = K_MUL(B2, X);
      const K_V n1 = K_FMA(NA1, w, K_SEL(SS, K_FMA(NA2, ZP[p], in), in));
      const K_V n2 = K_SEL(SS, u, K_FMA(NA2, w, u));
#else
      const K_V n1 = K_FMA(NA1, w, K_FMA(B1, X, Z2[p]));
      const K_V n2 = K_FMA(NA2, w, K_MUL(B2, X));
#endif
      Y[p] = K_FMA(H2, C2[p], K_FMA(H1, C1[p], y0));
      if (edge) {
        const K_VM m = K_MASK(KI, K_SET1((K_T) ((double) t - (double) n)), K_SET1((K_T) t));
        ZP[p] = K_SEL(m, w, ZP[p]);
        Z1[p] = K_SEL(m, n1, Z1[p]);
        Z2[p] = K_SEL(m, n2, Z2[p]);
      } else {
        ZP[p] = w;
        Z1[p] = n1;
        Z2[p] = n2;
      }
      if (t + 1 >= (size_t) G)
        buf[p][t + 1 - (size_t) G] = K_WEXTRACT(Y[p], last);
    }
    /* the lane whose frame ended its chunk: the carry */
    const int kk = (int) ((q + 1) % K_CK_L);
    if (kk < G && t >= (size_t) kk && t - (size_t) kk < n) {
      const K_WSEL_T sel = K_WSEL_MAKE(kk);
      const K_VM lane = K_MASK(KI, K_SET1((K_T) (kk - 1)), K_SET1((K_T) kk));
      for (int p = 0; p < P; p++) {
        const K_V E2 = K_CK_FN(ck_wf_z2)(SS, NA2, ZP[p], Z2[p]);
        K_CK_FN(ck_step)
        (ps + g0 + kk, (double) K_WEXTRACT(Z1[p], sel), (double) K_WEXTRACT(E2, sel), &cy[p][kk]);
        Z1[p] = K_SEL(lane, K_ZERO(), Z1[p]);
        Z2[p] = K_SEL(lane, K_ZERO(), Z2[p]);
        ZP[p] = K_SEL(lane, K_ZERO(), ZP[p]);
        C1[p] = K_SEL(lane, K_SET1((K_T) cy[p][kk].c1), C1[p]);
        C2[p] = K_SEL(lane, K_SET1((K_T) cy[p][kk].c2), C2[p]);
      }
    }
  }
  for (int p = 0; p < P; p++) {
    K_STORE(a1[p], Z1[p]);
    K_STORE(a2[p], Z2[p]);
    K_STORE(a3[p], ZP[p]);
    K_STORE(t0, K_CK_FN(ck_wf_z2)(SS, NA2, ZP[p], Z2[p]));
    for (int k = 0; k < G; k++) {
      fx_chunk_rec_t *r = rec[p] + g0 + k;
      r->zs1 = (double) a1[p][k];
      r->zs2 = (double) t0[k];
      r->zp = (double) a3[p][k];
      r->zu = (double) a2[p][k];
      r->sub = K_CK_SUB && fs[k] != (K_T) 0; /* fs: the state-space lanes */
      K_CK_FN(ck_cy_save)(r, &cy[p][k]);
    }
  }
}

/* Frames [f, f + n) of the call, channels ch0 .. ch0+P-1 (x: frame f of channel ch0, stride C),
 * from chunk position ph: pieces of up to K_CK_WFN frames through every group of sections. rec and
 * hist: channel ch0's (NULL: no history), the next channel's ks and (ks + 1) * 2 further on. */
K_AI_CK void K_CK_FN(ck_wf_p)(const K_CK_FN(ck_sec_t) * q, const fx_chunk_sec_t *ps,
                              fx_chunk_rec_t *rec, size_t ks, int K, K_IO *x, size_t C, size_t f,
                              size_t n, int ph, double *hist, size_t frames, const int P)
{
  _Alignas(64) K_T buf[K_CK_WFP][K_CK_WFN];
  _Alignas(64) K_T hs1[K_CK_L][K_W], hs2[K_CK_L][K_W];
  fx_chunk_rec_t *recp[K_CK_WFP];
  double *hp[K_CK_WFP];
  for (int p = 0; p < P; p++) {
    recp[p] = rec + (size_t) p * ks;
    hp[p] = hist ? hist + (size_t) p * (ks + 1) * 2 : NULL;
  }
  int built = -1; /* the group whose tables hs1, hs2 hold */
  for (size_t i0 = 0; i0 < n; i0 += K_CK_WFN) {
    const size_t m = n - i0 < K_CK_WFN ? n - i0 : K_CK_WFN;
    const size_t fa = f + i0; /* the call's frame of buf[.][0] */
    const int pa = (int) (((size_t) ph + i0) % K_CK_L);
    for (int p = 0; p < P; p++)
      for (size_t i = 0; i < m; i++)
        buf[p][i] = (K_T) x[(i0 + i) * C + (size_t) p];
    for (int g0 = 0; g0 <= K; g0 += K_W) {
      if (hist && fa + m + 2 > frames) /* the input of section g0 at the call's last frames */
        for (int p = 0; p < P; p++)
          for (size_t i = fa + 2 >= frames ? 0 : frames - 2 - fa; i < m; i++)
            hp[p][2 * g0 + (int) (frames - 1 - (fa + i))] =
                (double) buf[p][i] * K_CK_FN(ck_hs)(q, g0);
      if (g0 == K)
        break;
      const int G = K - g0 < K_W ? K - g0 : K_W;
      if (built != g0) {
        K_CK_FN(ck_wf_tables)(ps, g0, G, hs1, hs2);
        built = g0;
      }
      K_CK_FN(ck_wf_group)(q, ps, recp, g0, G, buf, m, pa, hp, fa, frames, hs1, hs2, P);
      if (g0 + G == K && hist && fa + m + 2 > frames) /* the output */
        for (int p = 0; p < P; p++)
          for (size_t i = fa + 2 >= frames ? 0 : frames - 2 - fa; i < m; i++)
            hp[p][2 * K + (int) (frames - 1 - (fa + i))] = (double) buf[p][i];
      if (g0 + G == K)
        break;
    }
    for (int p = 0; p < P; p++)
      for (size_t i = 0; i < m; i++)
        x[(i0 + i) * C + (size_t) p] = (K_IO) buf[p][i];
  }
}

/* Frames [f, f + n) of every channel through the chunk wavefront (x: the call's frame f, channel
 * 0), K_CK_WFP channels at a time. */
static void K_CK_FN(ck_wf)(const K_CK_FN(ck_sec_t) * q, const fx_chunk_sec_t *ps,
                           fx_chunk_rec_t *rec, size_t ks, int K, K_IO *x, size_t C, size_t f,
                           size_t n, int ph, double *hist, size_t frames)
{
  for (size_t ch = 0; ch < C; ch += K_CK_WFP) {
    fx_chunk_rec_t *r = rec + ch * ks;
    double *h = hist ? hist + ch * (ks + 1) * 2 : NULL;
    if (C - ch >= 2)
      K_CK_FN(ck_wf_p)(q, ps, r, ks, K, x + ch, C, f, n, ph, h, frames, 2);
    else
      K_CK_FN(ck_wf_p)(q, ps, r, ks, K, x + ch, C, f, n, ph, h, frames, 1);
  }
}

/* A block: nb (1 .. K_CK_NB / P) full chunks of P channels from frame f of the call (x: that
 * frame, channel c0). P == C (1 or 2, `joint`): vector v holds chunks v * K_W / P .. of both
 * channels, lane m * P + ch for chunk v * K_W / P + m of channel ch, gathered and scattered with
 * the instruction set's transposes (K_CK_TR1 / K_CK_TR2). Otherwise P == 1: one channel of any
 * count, gathered sample by sample. */
/* The lanes' transpose of the gather and the scatter (its own inverse): W x W samples, or
 * (W / 2) x (W / 2) pairs of the two channels' samples. */
K_AI_CK void K_CK_FN(ck_transpose)(K_V *r, int P)
{
#ifdef K_CK_TR2
  if (P == 2) {
    K_CK_TR2(r);
    return;
  }
#endif
  (void) P;
  K_CK_TR1(r);
}

/* Where chunk j (< nb) of a joint block starts: in the call (x: the block's first frame, at row
 * hd of chunk 0), or in the staging copy of a partial first (s0) or last (sl) chunk (ck_block). */
K_AI_CK K_IO *K_CK_FN(ck_chunk_at)(K_IO *x, size_t C, int j, int nb, int hd, K_IO *s0, K_IO *sl)
{
  if (j == 0 && s0)
    return s0;
  if (j == nb - 1 && sl)
    return sl;
  return x + ((size_t) j * K_CK_L - (size_t) hd) * C;
}

K_AI_CK void K_CK_FN(ck_gather)(K_V (*buf)[K_CK_NV], K_IO *x, size_t C, int P, int nb, int nv,
                                int joint, int hd, K_IO *s0, K_IO *sl)
{
  K_T *bt = (K_T *) buf;
  const int per = K_W / P; /* chunks per vector */
  if (joint) {
    for (int v = 0; v < nv; v++)
      for (int i0 = 0; i0 < K_CK_L; i0 += per) {
        K_V r[K_W];
        for (int q = per; q < K_W; q++) /* unread by the transposes of P == 2 */
          r[q] = K_ZERO();
        for (int q = 0; q < per; q++) {
          const int j = v * per + q;
          r[q] = j < nb ? K_LOADIO(K_CK_FN(ck_chunk_at)(x, C, j, nb, hd, s0, sl) + (size_t) i0 * C)
                        : K_ZERO();
        }
        K_CK_FN(ck_transpose)(r, P);
        for (int q = 0; q < per; q++)
          buf[i0 + q][v] = r[q];
      }
    return;
  }
  (void) hd, (void) s0, (void) sl; /* whole chunks only */
  for (int j = 0; j < nv * K_W; j++) {
    const size_t v = (size_t) (j / K_W), l = (size_t) (j % K_W);
    const K_IO *src = x + (size_t) j * K_CK_L * C;
    for (size_t i = 0; i < K_CK_L; i++)
      bt[(i * K_CK_NV + v) * K_W + l] = j < nb ? (K_T) src[i * C] : (K_T) 0;
  }
}

K_AI_CK void K_CK_FN(ck_scatter)(K_V (*buf)[K_CK_NV], K_IO *x, size_t C, int P, int nb, int nv,
                                 int joint, int hd, K_IO *s0, K_IO *sl, const K_T *h1,
                                 const K_T *h2, const K_V *C1, const K_V *C2)
{
  const K_T *bt = (const K_T *) buf;
  const int per = K_W / P;
  if (joint) {
    for (int v = 0; v < nv; v++)
      for (int i0 = 0; i0 < K_CK_L; i0 += per) {
        K_V r[K_W];
        for (int q = per; q < K_W; q++) /* unread by the transposes of P == 2 */
          r[q] = K_ZERO();
        for (int q = 0; q < per; q++) /* with the last section's correction (ck_block) */
          r[q] = h1 ? K_FMA(K_SET1(h2[i0 + q]), C2[v],
                            K_FMA(K_SET1(h1[i0 + q]), C1[v], buf[i0 + q][v]))
                    : buf[i0 + q][v];
        K_CK_FN(ck_transpose)(r, P);
        for (int q = 0; q < per; q++) {
          const int j = v * per + q;
          if (j < nb)
            K_STOREIO(K_CK_FN(ck_chunk_at)(x, C, j, nb, hd, s0, sl) + (size_t) i0 * C, r[q]);
        }
      }
    return;
  }
  (void) h1, (void) h2, (void) C1, (void) C2; /* corrected in ck_block */
  (void) hd, (void) s0, (void) sl;            /* whole chunks only */
  for (int j = 0; j < nb; j++) {
    const size_t v = (size_t) (j / K_W), l = (size_t) (j % K_W);
    K_IO *dst = x + (size_t) j * K_CK_L * C;
    for (size_t i = 0; i < K_CK_L; i++)
      dst[i * C] = (K_IO) bt[(i * K_CK_NV + v) * K_W + l];
  }
}

/* Gather (scatter 0) or scatter (1) with P and joint constant in each call, so that the
 * transposes keep their rows in registers; the scatter with the last section's correction
 * (h1, h2, C1, C2; h1 NULL: none) where joint. */
K_AI_CK void K_CK_FN(ck_move)(K_V (*buf)[K_CK_NV], K_IO *x, size_t C, int P, int nb, int nv,
                              int joint, int hd, K_IO *s0, K_IO *sl, const int scatter,
                              const K_T *h1, const K_T *h2, const K_V *C1, const K_V *C2)
{
#define K_CK_MOVE(PP, JJ)                                                                          \
  do {                                                                                             \
    if (scatter)                                                                                   \
      K_CK_FN(ck_scatter)(buf, x, C, PP, nb, nv, JJ, hd, s0, sl, h1, h2, C1, C2);                  \
    else                                                                                           \
      K_CK_FN(ck_gather)(buf, x, C, PP, nb, nv, JJ, hd, s0, sl);                                   \
  } while (0)
  if (joint && P == 2)
    K_CK_MOVE(2, 1);
  else if (joint)
    K_CK_MOVE(1, 1);
  else
    K_CK_MOVE(1, 0);
#undef K_CK_MOVE
}

/* A block's partial chunks (ck_block): its first chunk from row hd (the call begins inside it),
 * its last one to row tl (the call ends inside it). A chunk's zero-state recursion resumes at row
 * hd from the records' state (rows before hold no frame of the call: their numbers are dropped)
 * and leaves its state at row tl in the records; the rows the pass runs are [r0, r1): all of them
 * unless the block is one partial chunk, and without [tl, hd) where it is two partial chunks that
 * leave those rows out, so that the pass runs as many rows as the call has frames. Exactly the
 * chunk wavefront's arithmetic for those rows. */
typedef struct {
  int hd, tl;          /* 0 and K_CK_L: whole chunks */
  int r0, r1;          /* the rows the passes run (but [tl, hd) where `gap`) */
  int gap;             /* two partial chunks, tl <= hd: rows [tl, hd) hold no frame of the call */
  int vt, lt;          /* the last chunk's vector and its first lane */
  int P;               /* channels in the lanes */
  fx_chunk_rec_t *rec; /* section s of channel ch: rec[ch * kstride + s] */
  size_t kstride;
} K_CK_FN(ck_part_t);

/* Channel ch's record of section s in a block (ck_part_t). */
K_AI_CK fx_chunk_rec_t *K_CK_FN(ck_part_rec)(const K_CK_FN(ck_part_t) * pt, int ch, int s)
{
  return pt->rec + (size_t) ch * pt->kstride + (size_t) s;
}

/* The zero-state pass of one section (s) over the block, nv (constant after inlining) independent
 * recurrences; with `corr`, each input sample first gets the previous section's correction
 * (fused here, so the block is read and written once per section); `shape` (constant after
 * inlining) the section's numerator; pt the block's partial chunks. */
K_AI_CK void K_CK_FN(ck_zs)(K_V (*buf)[K_CK_NV], const K_T *c, const K_T *sb, K_T *e1, K_T *e2,
                            const K_T *h1, const K_T *h2, const K_V *C1, const K_V *C2,
                            const int nv, const int corr, const int shape,
                            const K_CK_FN(ck_part_t) * pt, int s)
{
  K_V z1[K_CK_NV], z2[K_CK_NV], zp[K_CK_NV];
  for (int v = 0; v < K_CK_NV; v++)
    z1[v] = z2[v] = zp[v] = K_ZERO();
  const int ss = K_CK_FN(ck_ss)(shape), sub = K_CK_SUB && ss;
  const K_V b0 = K_SET1(c[0]), b1 = K_SET1(ss ? sb[0] : c[1]), b2 = K_SET1(ss ? sb[1] : c[2]);
  const K_V na1 = K_SET1(-c[3]), na2 = K_SET1(-c[4]);
  /* the rows where the first chunk's recursion resumes (0) and the last one's stops (1) */
  int ev[2], evk[2], ne = 0;
  if (pt->hd > 0) {
    ev[ne] = pt->hd;
    evk[ne++] = 0;
  }
  if (pt->tl < K_CK_L) {
    ev[ne] = pt->tl;
    evk[ne++] = 1;
  }
  if (ne == 2 && ev[1] < ev[0]) {
    ev[0] = pt->tl, ev[1] = pt->hd;
    evk[0] = 1, evk[1] = 0;
  }
  /* the first chunk's state from the records, read before the last chunk's goes there */
  _Alignas(64) K_T a1[K_W] = {0}, a2[K_W] = {0}, ap[K_W] = {0};
  if (pt->hd > 0)
    for (int ch = 0; ch < pt->P; ch++) {
      const fx_chunk_rec_t *r = K_CK_FN(ck_part_rec)(pt, ch, s);
      const int from = sub && r->sub; /* as ck_wf_group */
      a1[ch] = (K_T) r->zs1;
      a2[ch] = (K_T) (from ? r->zu : r->zs2);
      ap[ch] = from ? (K_T) r->zp : (K_T) 0;
    }
  int i = pt->r0;
  for (int g = 0; g <= ne; g++) {
    const int iend = g < ne ? ev[g] : pt->r1;
    for (; i < iend; i++) {
      K_V H1 = K_ZERO(), H2 = K_ZERO();
      if (corr) {
        H1 = K_SET1(h1[i]);
        H2 = K_SET1(h2[i]);
      }
#pragma GCC unroll 4
      for (int v = 0; v < nv; v++) {
        K_V xv = buf[i][v];
        if (corr)
          xv = K_FMA(H2, C2[v], K_FMA(H1, C1[v], xv));
        /* w: what the poles act on (z1 or y); u: the input's term of the next z2. Substituted
         * (`sub`), z2 holds zu (u one frame back) and zp w one frame back; otherwise z2 is z2. */
        K_V y, in, w, u;
        if (ss) { /* the state-space form (b1, b2 hold sb1, sb2) */
          y = shape == K_CK_GEN ? K_FMA(b0, xv, z1[v]) : K_ADD(xv, z1[v]);
          in = K_FMA(b1, xv, z2[v]);
          w = z1[v];
          u = K_MUL(b2, xv);
        } else { /* the shaped transposed form of 1, 2, 1 */
          y = K_ADD(xv, z1[v]);
          in = K_ADD(K_ADD(xv, xv), z2[v]);
          w = y;
          u = xv;
        }
        if (sub) {
          z1[v] = K_FMA(na1, w, K_FMA(na2, zp[v], in));
          zp[v] = w;
          z2[v] = u;
        } else {
          z1[v] = K_FMA(na1, w, in);
          z2[v] = K_FMA(na2, w, u);
        }
        buf[i][v] = y;
      }
    }
    if (g == ne)
      break;
    _Alignas(64) K_T t1[K_W], t2[K_W], tp[K_W], tf[K_W];
    if (evk[g] == 0) { /* chunk 0: vector 0, lanes 0 .. P-1 */
      K_STORE(t1, z1[0]);
      K_STORE(t2, z2[0]);
      K_STORE(tp, zp[0]);
      for (int ch = 0; ch < pt->P; ch++) {
        t1[ch] = a1[ch];
        t2[ch] = a2[ch];
        tp[ch] = ap[ch];
      }
      z1[0] = K_LOAD(t1);
      z2[0] = K_LOAD(t2);
      zp[0] = K_LOAD(tp);
    } else {       /* the last chunk's state into the records, z2 formed (below) */
      if (pt->gap) /* no lane has a frame of the call before row hd */
        i = pt->hd;
      const int vt = pt->vt;
      K_STORE(t1, z1[vt]);
      K_STORE(t2, z2[vt]);
      K_STORE(tp, zp[vt]);
      K_STORE(tf, sub ? K_FMA(na2, zp[vt], z2[vt]) : z2[vt]);
      for (int ch = 0; ch < pt->P; ch++) {
        fx_chunk_rec_t *r = K_CK_FN(ck_part_rec)(pt, ch, s);
        const int l = pt->lt + ch;
        r->zs1 = (double) t1[l];
        r->zs2 = (double) tf[l];
        r->zp = (double) tp[l];
        r->zu = (double) t2[l];
        r->sub = sub;
      }
    }
  }
  if (pt->hd > 0 && pt->tl == K_CK_L) /* the first chunk ended here: its records at a chunk start */
    for (int ch = 0; ch < pt->P; ch++) {
      fx_chunk_rec_t *r = K_CK_FN(ck_part_rec)(pt, ch, s);
      r->zs1 = r->zs2 = r->zp = r->zu = 0.0;
      r->sub = sub;
    }
  for (int v = 0; v < nv; v++) { /* the chunks' end states, z2 formed (above) */
    K_STORE(e1 + v * K_W, z1[v]);
    K_STORE(e2 + v * K_W, sub ? K_FMA(na2, zp[v], z2[v]) : z2[v]);
  }
}

/* Where a block holds the call's last two frames (the history, kernel.h): up to two frames of
 * up to two channels (joint blocks) or one; n entries of the sample's row i and lane in the
 * block and its place in the history at boundary 0 (at; boundary s: at + 2 s). Found once per
 * block, not per boundary. */
typedef struct {
  int n;
  int i[4], lane[4];
  size_t at[4];
} K_CK_FN(ck_hpos_t);

K_AI_CK void K_CK_FN(ck_hpos)(K_CK_FN(ck_hpos_t) * hp, int kstride, size_t f, size_t fend,
                              size_t frames, int P, int per, int hd)
{
  hp->n = 0;
  for (size_t g = frames >= 2 ? frames - 2 : 0; g < frames; g++) {
    if (g < f || g >= fend)
      continue;
    const size_t j = (g - f + (size_t) hd) / K_CK_L, i = (g - f + (size_t) hd) % K_CK_L;
    for (int ch = 0; ch < P; ch++) {
      hp->i[hp->n] = (int) i;
      hp->lane[hp->n] =
          (int) ((j / (size_t) per) * K_W + (j % (size_t) per) * (size_t) P + (size_t) ch);
      hp->at[hp->n] = (size_t) ch * ((size_t) kstride + 1) * 2 + (frames - 1 - g);
      hp->n++;
    }
  }
}

/* The history at boundary s from a block: its samples at the call's last two frames (hp), with
 * the previous section's correction (`corr`: h1/h2 and the lanes' carries cl1/cl2) where the
 * block holds them uncorrected. */
K_AI_CK void K_CK_FN(ck_block_hist)(double *hist, int s, const K_T *bt,
                                    const K_CK_FN(ck_hpos_t) * hp, const K_T *h1, const K_T *h2,
                                    const K_T *cl1, const K_T *cl2, int corr, double scale)
{
  for (int e = 0; e < hp->n; e++) {
    const int i = hp->i[e], lane = hp->lane[e];
    K_T v = bt[(size_t) i * K_CK_NV * K_W + (size_t) lane];
    if (corr)
      v = K_SFMA(h2[i], cl2[lane], K_SFMA(h1[i], cl1[lane], v));
    hist[hp->at[e] + 2 * (size_t) s] = (double) v * scale;
  }
}

#if defined(K_DFMA) && defined(__FMA__)
/* Two channels' carry chains (ck_block_carries, P = 2) in the two lanes of one double vector:
 * the same fused multiply-adds as ck_carry and ck_carry2 in each lane, so the same numbers,
 * with half the instructions (two scalar chains took as long as they issue). */
K_AI_CK __m128d K_CK_FN(ck_ld2)(const K_T *e)
{
  if (sizeof(K_T) == sizeof(float))
    return _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i *) (const void *) e)));
  return _mm_loadu_pd((const double *) (const void *) e);
}

K_AI_CK void K_CK_FN(ck_st2)(K_T *d, __m128d v)
{
  if (sizeof(K_T) == sizeof(float))
    _mm_storel_pi((__m64 *) (void *) d, _mm_cvtpd_ps(v));
  else
    _mm_storeu_pd((double *) (void *) d, v);
}

K_AI_CK void K_CK_FN(ck_block_carries2)(const fx_chunk_sec_t *p, K_CK_FN(ck_cy_t) * y,
                                        const K_T *e1, const K_T *e2, K_T (*cl)[K_CK_NB], int nb,
                                        int tail)
{
  const __m128d m0 = _mm_set1_pd(p->M[0]), m1 = _mm_set1_pd(p->M[1]);
  const __m128d m2 = _mm_set1_pd(p->M[2]), m3 = _mm_set1_pd(p->M[3]);
  const __m128d q0 = _mm_set1_pd(p->M2[0]), q1 = _mm_set1_pd(p->M2[1]);
  const __m128d q2 = _mm_set1_pd(p->M2[2]), q3 = _mm_set1_pd(p->M2[3]);
  __m128d c1 = _mm_set_pd(y[1].c1, y[0].c1), c2 = _mm_set_pd(y[1].c2, y[0].c2);
  __m128d cp1 = _mm_set_pd(y[1].cp1, y[0].cp1), cp2 = _mm_set_pd(y[1].cp2, y[0].cp2);
  __m128d ep1 = _mm_set_pd(y[1].ep1, y[0].ep1), ep2 = _mm_set_pd(y[1].ep2, y[0].ep2);
  int odd = y[0].odd; /* the records' channels are at one chunk position */
  for (int j = 0; j < nb; j++) {
    const int lane = 2 * j;
    K_CK_FN(ck_st2)(cl[0] + lane, c1);
    K_CK_FN(ck_st2)(cl[1] + lane, c2);
    const __m128d f1 = K_CK_FN(ck_ld2)(e1 + lane), f2 = K_CK_FN(ck_ld2)(e2 + lane);
    if (!odd) { /* ck_first */
      cp1 = c1;
      cp2 = c2;
      ep1 = f1;
      ep2 = f2;
      const __m128d n1 = _mm_fmadd_pd(m0, c1, _mm_fmadd_pd(m1, c2, f1));
      c2 = _mm_fmadd_pd(m2, c1, _mm_fmadd_pd(m3, c2, f2));
      c1 = n1;
    } else { /* ck_second */
      const __m128d w1 = _mm_fmadd_pd(m0, ep1, _mm_fmadd_pd(m1, ep2, f1));
      const __m128d w2 = _mm_fmadd_pd(m2, ep1, _mm_fmadd_pd(m3, ep2, f2));
      c1 = _mm_fmadd_pd(q0, cp1, _mm_fmadd_pd(q1, cp2, w1));
      c2 = _mm_fmadd_pd(q2, cp1, _mm_fmadd_pd(q3, cp2, w2));
    }
    odd ^= 1;
  }
  if (tail) { /* the partial chunk after them: its carry, no step past it */
    K_CK_FN(ck_st2)(cl[0] + 2 * nb, c1);
    K_CK_FN(ck_st2)(cl[1] + 2 * nb, c2);
  }
  _Alignas(16) double t[6][2];
  _mm_store_pd(t[0], c1);
  _mm_store_pd(t[1], c2);
  _mm_store_pd(t[2], cp1);
  _mm_store_pd(t[3], cp2);
  _mm_store_pd(t[4], ep1);
  _mm_store_pd(t[5], ep2);
  for (int ch = 0; ch < 2; ch++) {
    const K_CK_FN(ck_cy_t) v = {t[0][ch], t[1][ch], t[2][ch], t[3][ch], t[4][ch], t[5][ch], odd};
    y[ch] = v;
  }
}
#endif

/* A block's carries for one section: chunk j of channel ch (lane j * P + ch) gets the carry
 * cl[.][lane] at its start, the P channels' chains side by side (P constant after inlining, so
 * that their states stay in registers), two chunks at a time from the records' (ck_step), over
 * the nb complete chunks; with `tail`, chunk nb (partial: the call ends in it) gets its carry,
 * which the records keep. */
K_AI_CK void K_CK_FN(ck_block_carries)(const fx_chunk_sec_t *p, fx_chunk_rec_t *rec, int kstride,
                                       const K_T *e1, const K_T *e2, K_T (*cl)[K_CK_NB], int nb,
                                       int tail, const int P)
{
  K_CK_FN(ck_cy_t) y[2];
  for (int ch = 0; ch < P; ch++)
    y[ch] = K_CK_FN(ck_cy_load)(rec + (size_t) ch * (size_t) kstride);
#if defined(K_DFMA) && defined(__FMA__)
  if (P == 2) { /* both channels in one vector: ck_first and ck_second lane by lane */
    K_CK_FN(ck_block_carries2)(p, y, e1, e2, cl, nb, tail);
    for (int ch = 0; ch < 2; ch++)
      K_CK_FN(ck_cy_save)(rec + (size_t) ch * (size_t) kstride, &y[ch]);
    return;
  }
#endif
  int j = 0;
#define K_CK_CY(STEP)                                                                              \
  do {                                                                                             \
    for (int ch = 0; ch < P; ch++) {                                                               \
      const int lane = j * P + ch; /* (j / per) * K_W + (j % per) * P, K_W = per * P */            \
      cl[0][lane] = (K_T) y[ch].c1;                                                                \
      cl[1][lane] = (K_T) y[ch].c2;                                                                \
      K_CK_FN(STEP)(p, (double) e1[lane], (double) e2[lane], &y[ch]);                              \
    }                                                                                              \
    j++;                                                                                           \
  } while (0)
  if (nb > 0 && y[0].odd) /* the records' channels are at one chunk position */
    K_CK_CY(ck_second);
  while (j + 1 < nb) {
    K_CK_CY(ck_first);
    K_CK_CY(ck_second);
  }
  if (j < nb)
    K_CK_CY(ck_first);
#undef K_CK_CY
  for (int ch = 0; ch < P && tail; ch++) {
    cl[0][nb * P + ch] = (K_T) y[ch].c1;
    cl[1][nb * P + ch] = (K_T) y[ch].c2;
  }
  for (int ch = 0; ch < P; ch++)
    K_CK_FN(ck_cy_save)(rec + (size_t) ch * (size_t) kstride, &y[ch]);
}

/* A block of nb chunks of P channels: x the call's frame f, at row hd of chunk 0 (joint blocks:
 * 0 < hd where the call begins inside that chunk), its last chunk to row tl (joint: tl < K_CK_L
 * where the call ends inside it; ck_part_t). */
static void K_CK_FN(ck_block)(const K_CK_FN(ck_sec_t) * q, const fx_chunk_sec_t *ps,
                              fx_chunk_rec_t *rec, int K, int kstride, K_IO *x, size_t C, int P,
                              int joint, size_t f, int nb, double *hist, size_t frames, int hd,
                              int tl)
{
  _Alignas(64) K_V buf[K_CK_L][K_CK_NV];
  _Alignas(64) K_T e1[K_CK_NB], e2[K_CK_NB], cl[2][2][K_CK_NB];
  const K_T *bt = (const K_T *) buf;
  const int per = K_W / P, nv = (nb + per - 1) / per;
  K_CK_FN(ck_part_t) pt;
  pt.hd = hd;
  pt.tl = tl;
  pt.r0 = nb == 1 ? hd : 0;
  pt.r1 = nb == 1 ? tl : K_CK_L;
  pt.gap = nb == 2 && tl <= hd;
  pt.vt = (nb - 1) / per;
  pt.lt = ((nb - 1) % per) * P;
  pt.P = P;
  pt.rec = rec;
  pt.kstride = (size_t) kstride;
  /* a partial chunk's frames go through a copy laid out as a whole chunk of the call, the rows
   * without a frame of the call zero: a[] its first row, b[] its end */
  _Alignas(64) K_IO stg[2][K_CK_L * 2];
  K_IO *s0 = NULL, *sl = NULL, *src[2] = {NULL, NULL};
  int a[2] = {0, 0}, b[2] = {0, 0};
  if (hd > 0 || tl < K_CK_L) {
    if (hd > 0 || nb == 1) { /* chunk 0 */
      s0 = stg[0];
      src[0] = x;
      a[0] = hd;
      b[0] = nb == 1 ? tl : K_CK_L;
    }
    if (tl < K_CK_L && nb > 1) { /* the last chunk */
      sl = stg[1];
      src[1] = x + ((size_t) (nb - 1) * K_CK_L - (size_t) hd) * C;
      b[1] = tl;
    }
    for (int k = 0; k < 2; k++)
      if (src[k]) {
        memset(stg[k], 0, sizeof(stg[k]));
        memcpy(stg[k] + (size_t) a[k] * C, src[k], (size_t) (b[k] - a[k]) * C * sizeof(K_IO));
      }
  }
  K_CK_FN(ck_move)(buf, x, C, P, nb, nv, joint, hd, s0, sl, 0, NULL, NULL, NULL, NULL);
  /* the block's frames that are the call's last two (history) */
  const size_t fend = f + (size_t) nb * K_CK_L - (size_t) hd - (size_t) (K_CK_L - tl);
  const int tailrec = hist && fend + 2 > frames;
  K_CK_FN(ck_hpos_t) hp;
  hp.n = 0;
  if (tailrec)
    K_CK_FN(ck_hpos)(&hp, kstride, f, fend, frames, P, per, hd);
  K_V C1[K_CK_NV], C2[K_CK_NV];
  const K_T *h1 = NULL, *h2 = NULL;
  int cur = 0; /* cl[cur]: the carries of the previous section, per lane */
  for (int s = 0; s <= K; s++) {
    if (tailrec) /* the input of section s: the previous section's corrected output */
      K_CK_FN(ck_block_hist)
    (hist, s, bt, &hp, h1, h2, cl[cur][0], cl[cur][1], s > 0, K_CK_FN(ck_hs)(q, s));
    if (s == K)
      break;
    const fx_chunk_sec_t *p = ps + s;
    const K_T *c = q[s].c, *sb = q[s].sb;
    /* 1. zero-state pass (with the previous section's correction) */
#define K_CK_ZS_SHAPE(NVC, CORR)                                                                   \
  switch (shape) {                                                                                 \
  case K_CK_UNIT:                                                                                  \
    K_CK_FN(ck_zs)(buf, c, sb, e1, e2, h1, h2, C1, C2, NVC, CORR, K_CK_UNIT, &pt, s);              \
    break;                                                                                         \
  case K_CK_BINP:                                                                                  \
    K_CK_FN(ck_zs)(buf, c, sb, e1, e2, h1, h2, C1, C2, NVC, CORR, K_CK_BINP, &pt, s);              \
    break;                                                                                         \
  default:                                                                                         \
    K_CK_FN(ck_zs)(buf, c, sb, e1, e2, h1, h2, C1, C2, NVC, CORR, K_CK_GEN, &pt, s);               \
  }
#define K_CK_ZS(NVC)                                                                               \
  case NVC:                                                                                        \
    if (s == 0) {                                                                                  \
      K_CK_ZS_SHAPE(NVC, 0)                                                                        \
    } else {                                                                                       \
      K_CK_ZS_SHAPE(NVC, 1)                                                                        \
    }                                                                                              \
    break;
    const int shape = q[s].shape;
    switch (nv) {
#if K_CK_NV >= 4
      K_CK_ZS(4)
#endif
#if K_CK_NV >= 3
      K_CK_ZS(3)
#endif
      K_CK_ZS(2)
    default:
      K_CK_ZS(1)
    }
#undef K_CK_ZS
#undef K_CK_ZS_SHAPE
    /* 2. carries, chunk by chunk, in double (the P channels' chains side by side) */
    cur ^= 1;
    for (int l = nb * P; l < nv * K_W; l++) /* the padding lanes of the last vector */
      cl[cur][0][l] = cl[cur][1][l] = (K_T) 0;
    const int nbc = tl < K_CK_L ? nb - 1 : nb, tail = tl < K_CK_L;
    if (P == 2)
      K_CK_FN(ck_block_carries)(p, rec + s, kstride, e1, e2, cl[cur], nbc, tail, 2);
    else
      K_CK_FN(ck_block_carries)(p, rec + s, kstride, e1, e2, cl[cur], nbc, tail, 1);
    for (int v = 0; v < nv; v++) {
      C1[v] = K_LOAD(cl[cur][0] + v * K_W);
      C2[v] = K_LOAD(cl[cur][1] + v * K_W);
    }
    h1 = K_CK_H1(p);
    h2 = K_CK_H2(p);
  }
  /* 3. the last section's correction: in the scatter of joint blocks (it reads every row
   * anyway), otherwise in a pass of its own */
  const int fuse = joint && K > 0;
  if (K > 0 && !fuse)
    for (int i = 0; i < K_CK_L; i++) {
      const K_V H1 = K_SET1(h1[i]), H2 = K_SET1(h2[i]);
      for (int v = 0; v < nv; v++)
        buf[i][v] = K_FMA(H2, C2[v], K_FMA(H1, C1[v], buf[i][v]));
    }
  if (tailrec) /* the output */
    K_CK_FN(ck_block_hist)
  (hist, K, bt, &hp, h1, h2, cl[cur][0], cl[cur][1], fuse, 1.0);
  K_CK_FN(ck_move)(buf, x, C, P, nb, nv, joint, hd, s0, sl, 1, fuse ? h1 : NULL, h2, C1, C2);
  for (int k = 0; k < 2; k++) /* the partial chunks' frames back into the call */
    if (src[k])
      memcpy(src[k], stg[k] + (size_t) a[k] * C, (size_t) (b[k] - a[k]) * C * sizeof(K_IO));
}

/* One pass of up to K_CK_SMAX sections over the call (the kernel below). */
static void K_CK_FN(ck_pass)(const K_T *coef, const fx_chunk_sec_t *ps, fx_chunk_rec_t *rec,
                             K_T *state, double *hist, int K, int kstride, K_IO *data,
                             size_t frames, int channels)
{
  const size_t C = (size_t) channels;
  const size_t ks = (size_t) kstride;
  K_CK_FN(ck_sec_t) q[K_CK_SMAX];
  K_CK_FN(ck_norm)(coef, ps, K, q);
  /* The records hold on only where every channel's state is still what this kernel left there
   * (and all are at the same chunk position); otherwise a new chunk grid starts here. */
  int ph = K > 0 ? rec[0].phase : 0, ok = 1;
  for (size_t ch = 0; ch < C && ok; ch++)
    for (int s = 0; s < K && ok; s++) {
      const fx_chunk_rec_t *r = rec + ch * ks + (size_t) s;
      const K_T *st = state + (ch * ks + (size_t) s) * 2;
      ok = r->valid && r->phase == ph && r->st1 == (double) st[0] && r->st2 == (double) st[1];
    }
  if (!ok) {
    for (size_t ch = 0; ch < C; ch++)
      for (int s = 0; s < K; s++) {
        fx_chunk_rec_t *r = rec + ch * ks + (size_t) s;
        const K_T *st = state + (ch * ks + (size_t) s) * 2;
        memset(r, 0, sizeof(*r));
        r->c1 = (double) st[0] * K_CK_FN(ck_exp2)(q[s].t);
        r->c2 = (double) st[1] * K_CK_FN(ck_exp2)(q[s].t);
        r->t = q[s].t;
        r->valid = 1;
      }
    ph = 0;
  } else /* a record kept at another scale (its sections' numerators changed): to this one */
    for (size_t ch = 0; ch < C; ch++)
      for (int s = 0; s < K; s++) {
        fx_chunk_rec_t *r = rec + ch * ks + (size_t) s;
        if (r->t == q[s].t)
          continue;
        const double d = K_CK_FN(ck_exp2)(q[s].t - r->t);
        r->zs1 *= d;
        r->zs2 *= d;
        r->zp *= d;
        r->zu *= d;
        r->c1 *= d;
        r->c2 *= d;
        r->cp1 *= d;
        r->cp2 *= d;
        r->ep1 *= d;
        r->ep2 *= d;
        r->t = q[s].t;
      }
  const int ph0 = ph;
  ph = (int) (((size_t) ph + frames) % K_CK_L);
#if defined(K_CK_TR2)
  const int joint = C <= 2;
#else
  const int joint = C == 1;
#endif
  const size_t P = joint ? C : 1;
  if (joint) {
    /* All channels in the lanes together, every chunk the call touches (nt) in blocks: the first
     * from row ph0 where the previous call began it, the last to row tl where the next call goes
     * on with it (ck_part_t); calls on fewer than K_CK_MIN_LANES lanes through the chunk
     * wavefront. Both do the same arithmetic. */
    const size_t nt = ((size_t) ph0 + frames + K_CK_L - 1) / K_CK_L;
    if (nt * P < (size_t) K_CK_MIN_LANES) {
      K_CK_FN(ck_wf)(q, ps, rec, ks, K, data, C, 0, frames, ph0, hist, frames);
      goto done;
    }
    const int tl = (int) ((size_t) ph0 + frames - (nt - 1) * K_CK_L);
    const size_t nbmax = (size_t) K_CK_NB / P;
    for (size_t j = 0; j < nt;) {
      const size_t nb = nt - j < nbmax ? nt - j : nbmax;
      const size_t fb = j == 0 ? 0 : j * K_CK_L - (size_t) ph0; /* the block's first frame */
      K_CK_FN(ck_block)
      (q, ps, rec, K, kstride, data + fb * C, C, (int) P, 1, fb, (int) nb, hist, frames,
       j == 0 ? ph0 : 0, j + nb == nt ? tl : K_CK_L);
      j += nb;
    }
    goto done;
  }
  /* Channel by channel: full chunks in the lanes where there are at least K_CK_MIN_LANES of
   * them; the rest (the chunk the previous call began, the one the next call goes on with, or
   * all of a short call) through the chunk wavefront. */
  size_t f = ph0 > 0 ? (size_t) (K_CK_L - ph0) : 0;
  if (f > frames)
    f = frames;
  const size_t full = (frames - f) / K_CK_L;
  if (full < (size_t) K_CK_MIN_LANES) {
    K_CK_FN(ck_wf)(q, ps, rec, ks, K, data, C, 0, frames, ph0, hist, frames);
    goto done;
  }
  if (f) /* the rest of the chunk the previous call began */
    K_CK_FN(ck_wf)(q, ps, rec, ks, K, data, C, 0, f, ph0, hist, frames);
  for (size_t ch = 0; ch < C; ch++)
    for (size_t j = 0; j < full;) {
      const size_t nb = full - j < K_CK_NB ? full - j : K_CK_NB;
      K_CK_FN(ck_block)
      (q, ps, rec + ch * ks, K, kstride, data + (f + j * K_CK_L) * C + ch, C, 1, 0, f + j * K_CK_L,
       (int) nb, hist ? hist + ch * (ks + 1) * 2 : NULL, frames, 0, K_CK_L);
      j += nb;
    }
  f += full * K_CK_L;
  if (f < frames) /* a chunk the next call goes on with */
    K_CK_FN(ck_wf)(q, ps, rec, ks, K, data + f * C, C, f, frames - f, 0, hist, frames);
done:
  /* the true state, for the caller (and for the next call's check) */
  for (size_t ch = 0; ch < C; ch++)
    for (int s = 0; s < K; s++) {
      fx_chunk_rec_t *r = rec + ch * ks + (size_t) s;
      K_T *st = state + (ch * ks + (size_t) s) * 2;
      double z1, z2;
      fx_chunk_true_state(ps + s, ph, r->zs1, r->zs2, r->c1, r->c2, &z1, &z2);
      /* at the cascade's scale (exact: a power of two); read back through a volatile: GCC 12's
       * SLP vectoriser at -O2 otherwise stores the unrounded doubles into the record
       * (double(float(z)) folded to z), and the next call would see a state that is not the one
       * left here */
      const double back = K_CK_FN(ck_exp2)(-q[s].t);
      st[0] = (K_T) (z1 * back);
      st[1] = (K_T) (z2 * back);
      const volatile K_T *sv = st;
      r->st1 = (double) sv[0];
      r->st2 = (double) sv[1];
      r->phase = ph;
    }
}

/* The kernel (fx_kernel_chunk_*_fn; kernel.h): passes of up to K_CK_SMAX sections. */
void K_CHUNK_NAME(const K_T *coef, const fx_chunk_sec_t *ps, fx_chunk_rec_t *rec, K_T *state,
                  double *hist, int K, int kstride, K_IO *data, size_t frames, int channels)
{
  if (frames == 0 || channels <= 0)
    return;
  fx_fpmode_t mode;
  fpmode_enter(&mode);
  if (hist && frames == 1) /* a one-frame call shifts one sample into the history */
    for (size_t ch = 0; ch < (size_t) channels; ch++)
      for (int s = 0; s <= K; s++) {
        double *h = hist + ch * ((size_t) kstride + 1) * 2 + 2 * (size_t) s;
        h[1] = h[0];
      }
  int g0 = 0;
  do {
    const int G = K - g0 < K_CK_SMAX ? K - g0 : K_CK_SMAX;
    K_CK_FN(ck_pass)
    (coef + 5 * (size_t) g0, ps + g0, rec + g0, state + 2 * (size_t) g0,
     hist ? hist + 2 * (size_t) g0 : NULL, G, kstride, data, frames, channels);
    g0 += G;
  } while (g0 < K);
  fpmode_leave(&mode);
}

#undef K_CK_NB
#undef K_CK_L
#undef K_CK_SUB
#undef K_CK_H1
#undef K_CK_H2
#undef K_CK_SB
