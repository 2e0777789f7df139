/* gst-fx — SIMD SOS cascade kernel template (internal to libfxdsp). Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Included once per translation unit, by an instruction set's header (kernel_sse2.h,
 * kernel_x256.h, kernel_avx512.h) for one flavour (F64, F32 with double arithmetic, F32 with
 * float arithmetic), after defining the K_* macros below. It defines the range function K_RANGE
 * and, when K_NAME is defined, the kernel function K_NAME with the fx_kernel_t signature.
 *
 *   K_NAME           kernel function name (optional: a narrow instantiation used only as a wider
 *                    kernel's K_NARROW_RANGE has none)
 *   K_RANGE          range function name (below)
 *   K_SFX            suffix of the static helper functions' names (<isa>_<flavour>)
 *   K_IO, K_T        I/O sample type, arithmetic type
 *   K_V, K_W         vector type of K_T, lanes     K_VM        mask type (for VSEL)
 *   K_CVG            sections per register-resident group of the channel-vector path
 *   K_WFM            vectors per channel of the wavefront path (K_WFM * K_W sections per pass)
 *   K_SET1(s) K_ZERO() K_LOAD(p) K_STORE(p,v)        (p aligned, K_T)
 *   K_LOADIO(p) K_STOREIO(p,v)                       (K_W samples of K_IO, unaligned)
 *   K_LOADIO_PART(p,n) K_STOREIO_PART(p,v,n)         optional: the first n lanes only (masked)
 *   K_NARROW_RANGE   optional: a narrower kernel's range function for the same flavour, which
 *                    takes every range of at most K_W / 2 channels (so this instantiation has no
 *                    wavefront: it only ever sees 1 to 3 leftover channels through that one)
 *   K_FMA(a,b,c) = a*b+c   K_MUL(a,b)                (vector)
 *   K_SFMA(a,b,c)                                    (scalar, the same arithmetic per lane)
 *   the wavefront's operations (not needed with K_NARROW_RANGE: K_VM, K_WFM and these):
 *   K_ROT(v)      lane l <- lane l-1, lane 0 <- lane W-1
 *   K_INS0(a,b)   a with lane 0 replaced by lane 0 of b
 *   K_WSEL_T K_WSEL_MAKE(l) K_WEXTRACT(v,sel)   lane l of a wavefront vector as a K_T (sel is
 *                 made once per pass, outside the loop).
 *   K_MASK(ki,lo,hi)   lanes where lo < ki <= hi      K_SEL(m,a,b)  m ? a : b
 *   K_TB          optional, only for the F32-with-double-arithmetic flavour (kernel.h): the
 *                 time-block path, with K_TB_TR1(r) K_TB_TR2(r) K_TB_BCAST2(p) below.
 *
 * Every path computes, per section and sample, exactly
 *     y = fma(b0, x, z1);  z1 = fma(-a1, y, fma(b1, x, z2));  z2 = fma(-a2, y, b2 * x)
 * (fma(a,b,c) being a*b+c rounded once on FMA hardware, or a*b rounded then +c without it), lane
 * by lane. IEEE arithmetic is the same in a vector lane as in a scalar register, so a sample's
 * result does not depend on which path filtered it, where the block or call boundaries fell or
 * in which lane its channel ran: any split of a stream is bit-identical, and the paths can be
 * chosen freely per call and per channel. The exception is the time-block path below, whose
 * blocks start from a computed state: its results depend on the call's length by rounding.
 *
 * Paths:
 *   - channel vectors (C >= 3): K_W adjacent channels in the lanes of one vector; a block of
 *     frames is gathered into a vector buffer (converted to K_T), the sections run over it in
 *     groups of up to K_CVG with coefficients broadcast and state in registers, skewed: in
 *     step i section s filters frame i-s, so the section updates of one step are independent
 *     (without the skew the CPU's scheduler fills up with updates waiting on the previous
 *     section and the FMA units idle); then the block is scattered back. Channels left over
 *     (C mod K_W) run in a partly filled vector (masked loads where the ISA has them), through
 *     the wavefront when there are one to three of them and K is large enough, or through a
 *     narrower kernel (K_NARROW_RANGE) when they fill at most half a vector.
 *   - wavefront (C <= 2): the sections of one channel are spread over the lanes of up to K_WFM
 *     vectors (longer cascades in several passes over the block); lane k runs section k one
 *     sample behind lane k-1 (step t: lane k filters sample t-k), the lanes' outputs shifting
 *     up one lane per step. Two channels run interleaved. The first and last K-1 steps of a
 *     block update only the lanes that hold a sample.
 *   - time blocks (where K_TB is defined: the F32-with-double-arithmetic flavour of the 256-bit
 *     code, which AVX-512 hands mono and stereo to; C <= 2, K <= FX_TB_KMAX_MONO / FX_TB_KMAX,
 *     ranges of >= FX_KERNEL_SPLIT_EXACT_FRAMES frames): the frames are cut
 *     into nb = K_W / C consecutive blocks, one per lane (two lanes per block in stereo), and
 *     all blocks are filtered at once by the channel-vector code (transposed in and out of the
 *     lanes, K_TB_TR1 / K_TB_TR2), block 0 from the true state, the others from zero state; the
 *     true initial state of each block follows in sequence (s_{j+1} = end_j + A^len s_j) and a
 *     second pass adds each block's zero-input response C A^n s_j from precomputed tables
 *     (kernel_tblock.h). This costs 2K multiply-adds per sample more than the lanes path, but
 *     fills the lanes; the result differs from the other paths by rounding only (kernel.h).
 *   - the last (up to) two frames of a call go through a scalar per-frame loop that also records
 *     the boundary history (kernel.h) when a history is wanted. */

#include "kernel.h"
#include "kernel_fpmode.h"

#include <stddef.h>
#include <string.h>

/* The static helpers' names: x_<K_SFX> (unique per instantiation, so that profiles tell them
 * apart). */
#define K_CAT2(a, b) a##_##b
#define K_CAT(a, b) K_CAT2(a, b)
#define K_FN(x) K_CAT(x, K_SFX)
#define K_AI static inline __attribute__((always_inline))

/* Frames per block: the channel-vector buffer and the wavefront buffers. */
#ifndef K_CV_BLOCK
#define K_CV_BLOCK 256
#endif
#ifndef K_WF_BLOCK
#define K_WF_BLOCK 512
#endif

/* The recursion's form (docs/cascade.md, "Two forms"). Double arithmetic runs the transposed
 * direct form II, y = b0 x + z1; z1 <- b1 x - a1 y + z2; z2 <- b2 x - a2 y. Float arithmetic
 * runs the state-space form of the same state, z1 <- sb1 x - a1 z1 + z2; z2 <- sb2 x - a2 z1 with
 * sb1 = b1 - a1 b0 and sb2 = b2 - a2 b0 (one rounding each, from the float coefficients): behind
 * poles near z = 1 with zeros there (high-pass sections) the transposed form rounds b1 x + z2,
 * of the size of 2 x, into a state far smaller than x, which the poles then amplify, where the
 * state-space form's terms have the size of the state (its sb are small there). The same count
 * of operations; every path below uses these three macros, so each sample sees the same
 * arithmetic whichever path filters it. K_PW(y, z1): what the poles act on (z1 before its
 * update in the state-space form). */
#ifdef K_FLAVOUR_F32_S
#define K_CB1(c) K_SFMA(-(c)[3], (c)[0], (c)[1])
#define K_CB2(c) K_SFMA(-(c)[4], (c)[0], (c)[2])
#define K_PW(y, z1) (z1)
#else
#define K_CB1(c) ((c)[1])
#define K_CB2(c) ((c)[2])
#define K_PW(y, z1) (y)
#endif

/* Channel vectors, one step of a skewed group: section s filters frame i-s (when 0 <= i-s < n),
 * taking as input the output section s-1 produced in the previous step (p[s]), so that the G
 * section updates of a step are independent of each other and the CPU runs them side by side.
 * `full`: every section has a frame (G-1 <= i < n). */
K_AI void K_FN(cv_step)(const K_V *cb0, const K_V *cb1, const K_V *cb2, const K_V *ca1,
                        const K_V *ca2, K_V *z1, K_V *z2, K_V *p, K_V *buf, size_t i, size_t n,
                        const int G, const int full)
{
  K_V y[K_CVG];
  if (full || i < n)
    p[0] = buf[i];
#pragma GCC unroll 16
  for (int s = 0; s < G; s++) {
    if (full || ((size_t) s <= i && i - (size_t) s < n)) {
      const K_V x = p[s];
      y[s] = K_FMA(cb0[s], x, z1[s]);
      const K_V w = K_PW(y[s], z1[s]);
      z1[s] = K_FMA(ca1[s], w, K_FMA(cb1[s], x, z2[s]));
      z2[s] = K_FMA(ca2[s], w, K_MUL(cb2[s], x));
    } else {
      y[s] = p[s];
    }
  }
  if (full || i + 1 >= (size_t) G)
    buf[i + 1 - (size_t) G] = y[G - 1];
#pragma GCC unroll 16
  for (int s = 1; s < G; s++)
    p[s] = y[s - 1];
}

/* Channel vectors: sections 0 .. G-1 of coef over n frames of buf (lanes = channels; nch of
 * them real, their state at st + lane * sstride). G is a constant after inlining. */
K_AI void K_FN(cv_group)(const K_T *coef, K_T *st, size_t sstride, int nch, K_V *buf, size_t n,
                         const int G)
{
  K_V cb0[K_CVG], cb1[K_CVG], cb2[K_CVG], ca1[K_CVG], ca2[K_CVG], z1[K_CVG], z2[K_CVG], p[K_CVG];
  _Alignas(64) K_T t1[K_W], t2[K_W];
#pragma GCC unroll 16
  for (int s = 0; s < G; s++) {
    cb0[s] = K_SET1(coef[5 * s]);
    cb1[s] = K_SET1(K_CB1(coef + 5 * s));
    cb2[s] = K_SET1(K_CB2(coef + 5 * s));
    ca1[s] = K_SET1(-coef[5 * s + 3]);
    ca2[s] = K_SET1(-coef[5 * s + 4]);
    for (int l = 0; l < K_W; l++) {
      t1[l] = l < nch ? st[(size_t) l * sstride + 2 * (size_t) s] : (K_T) 0;
      t2[l] = l < nch ? st[(size_t) l * sstride + 2 * (size_t) s + 1] : (K_T) 0;
    }
    z1[s] = K_LOAD(t1);
    z2[s] = K_LOAD(t2);
    p[s] = K_ZERO();
  }
  const size_t g1 = (size_t) G - 1, steps = n + g1;
  size_t i = 0;
  for (; i < g1; i++) /* filling */
    K_FN(cv_step)(cb0, cb1, cb2, ca1, ca2, z1, z2, p, buf, i, n, G, 0);
  for (; i < n; i++)
    K_FN(cv_step)(cb0, cb1, cb2, ca1, ca2, z1, z2, p, buf, i, n, G, 1);
  for (; i < steps; i++) /* draining */
    K_FN(cv_step)(cb0, cb1, cb2, ca1, ca2, z1, z2, p, buf, i, n, G, 0);
#pragma GCC unroll 16
  for (int s = 0; s < G; s++) {
    K_STORE(t1, z1[s]);
    K_STORE(t2, z2[s]);
    for (int l = 0; l < nch; l++) {
      st[(size_t) l * sstride + 2 * (size_t) s] = t1[l];
      st[(size_t) l * sstride + 2 * (size_t) s + 1] = t2[l];
    }
  }
}

static void K_FN(cv_sections)(const K_T *coef, K_T *st, size_t sstride, int nch, K_V *buf, size_t n,
                              int G)
{
  switch (G) {
#define K_CV_CASE(g)                                                                               \
  case g:                                                                                          \
    K_FN(cv_group)(coef, st, sstride, nch, buf, n, g);                                             \
    break;
#if K_CVG >= 8
    K_CV_CASE(8)
    K_CV_CASE(7)
    K_CV_CASE(6)
    K_CV_CASE(5)
#endif
    K_CV_CASE(4)
    K_CV_CASE(3)
    K_CV_CASE(2)
#undef K_CV_CASE
  default:
    K_FN(cv_group)(coef, st, sstride, nch, buf, n, 1);
    break;
  }
}

/* Channel vectors: channels c0 .. c0+nch-1 (nch <= K_W), frames [0, frames). */
static void K_FN(cv)(const K_T *coef, K_T *state, int K, int kstride, K_IO *data, size_t frames,
                     size_t C, size_t c0, int nch)
{
  _Alignas(64) K_V buf[K_CV_BLOCK];
#if !defined(K_LOADIO_PART) || !defined(K_STOREIO_PART)
  _Alignas(64) K_T tmp[K_W];
#endif
  const size_t sstride = 2 * (size_t) kstride;
  K_T *st = state + c0 * sstride;
  /* Balanced groups: ceil(K / K_CVG) groups of nearly equal size. */
  const int ngroups = (K + K_CVG - 1) / K_CVG;
  for (size_t f0 = 0; f0 < frames; f0 += K_CV_BLOCK) {
    const size_t n = frames - f0 < K_CV_BLOCK ? frames - f0 : K_CV_BLOCK;
    K_IO *p = data + f0 * C + c0;
    if (nch == K_W) {
      for (size_t i = 0; i < n; i++)
        buf[i] = K_LOADIO(p + i * C);
    } else {
#ifdef K_LOADIO_PART
      for (size_t i = 0; i < n; i++)
        buf[i] = K_LOADIO_PART(p + i * C, nch);
#else
      for (size_t i = 0; i < n; i++) {
        for (int l = 0; l < K_W; l++)
          tmp[l] = l < nch ? (K_T) p[i * C + (size_t) l] : (K_T) 0;
        buf[i] = K_LOAD(tmp);
      }
#endif
    }
    int s = 0;
    for (int g = 0; g < ngroups; g++) {
      const int G = (K - s) / (ngroups - g) + ((K - s) % (ngroups - g) != 0);
      K_FN(cv_sections)(coef + 5 * (size_t) s, st + 2 * (size_t) s, sstride, nch, buf, n, G);
      s += G;
    }
    if (nch == K_W) {
      for (size_t i = 0; i < n; i++)
        K_STOREIO(p + i * C, buf[i]);
    } else {
#ifdef K_STOREIO_PART
      for (size_t i = 0; i < n; i++)
        K_STOREIO_PART(p + i * C, buf[i], nch);
#else
      for (size_t i = 0; i < n; i++) {
        K_STORE(tmp, buf[i]);
        for (int l = 0; l < nch; l++)
          p[i * C + (size_t) l] = (K_IO) tmp[l];
      }
#endif
    }
  }
}

#ifndef K_NARROW_RANGE
/* (An instantiation with K_NARROW_RANGE hands every range of up to K_W / 2 channels to it: the
 * wavefront, for one to three channels, would never run.) */
/* Wavefront: one step for P channels with M vectors each. `masked`: update only lanes holding a
 * sample (lo < k <= hi). Writes the output of the last section (lane G-1) to buf[p][t-G+1] when
 * t >= G-1, then shifts the outputs up one lane and feeds sample t+1 into lane 0. */
K_AI void K_FN(wf_step)(const K_WSEL_T lsel, const K_V *cb0, const K_V *cb1, const K_V *cb2,
                        const K_V *ca1, const K_V *ca2, const K_V *ki, K_V (*x)[K_WFM],
                        K_V (*z1)[K_WFM], K_V (*z2)[K_WFM], K_T **buf, size_t t, size_t n, int G,
                        const int M, const int P, const int masked)
{
  K_V y[2][K_WFM];
  K_VM m[K_WFM];
  if (masked) {
    const K_V lo = K_SET1((K_T) ((double) t - (double) n)), hi = K_SET1((K_T) t);
#pragma GCC unroll 8
    for (int j = 0; j < M; j++)
      m[j] = K_MASK(ki[j], lo, hi);
  }
#pragma GCC unroll 2
  for (int p = 0; p < P; p++) {
#pragma GCC unroll 8
    for (int j = 0; j < M; j++) {
      const K_V xv = x[p][j];
      y[p][j] = K_FMA(cb0[j], xv, z1[p][j]);
      const K_V w = K_PW(y[p][j], z1[p][j]);
      const K_V n1 = K_FMA(ca1[j], w, K_FMA(cb1[j], xv, z2[p][j]));
      const K_V n2 = K_FMA(ca2[j], w, K_MUL(cb2[j], xv));
      if (masked) {
        z1[p][j] = K_SEL(m[j], n1, z1[p][j]);
        z2[p][j] = K_SEL(m[j], n2, z2[p][j]);
      } else {
        z1[p][j] = n1;
        z2[p][j] = n2;
      }
    }
  }
  const size_t next = t + 1 < n ? t + 1 : n - 1;
#pragma GCC unroll 2
  for (int p = 0; p < P; p++) {
    if (!masked || t + 1 >= (size_t) G) {
      buf[p][t + 1 - (size_t) G] = K_WEXTRACT(y[p][M - 1], lsel);
    }
    K_V r[K_WFM];
#pragma GCC unroll 8
    for (int j = 0; j < M; j++)
      r[j] = K_ROT(y[p][j]);
    x[p][0] = K_INS0(r[0], K_SET1(buf[p][next]));
#pragma GCC unroll 8
    for (int j = 1; j < M; j++)
      x[p][j] = K_INS0(r[j], r[j - 1]);
  }
}

/* Wavefront over n samples of buf[0..P-1] for sections 0..G-1 (G <= M * K_W) of coef, the
 * state of channel p at st[p]. */
K_AI void K_FN(wf_group)(const K_T *coef, K_T **st, K_T **buf, size_t n, int G, const int M,
                         const int P)
{
  K_V cb0[K_WFM], cb1[K_WFM], cb2[K_WFM], ca1[K_WFM], ca2[K_WFM], ki[K_WFM];
  K_V x[2][K_WFM], z1[2][K_WFM], z2[2][K_WFM];
  _Alignas(64) K_T t[6][K_W];
#pragma GCC unroll 8
  for (int j = 0; j < M; j++) {
    for (int l = 0; l < K_W; l++) {
      const int k = j * K_W + l;
      const int on = k < G;
      t[0][l] = on ? coef[5 * k] : (K_T) 0;
      t[1][l] = on ? K_CB1(coef + 5 * k) : (K_T) 0;
      t[2][l] = on ? K_CB2(coef + 5 * k) : (K_T) 0;
      t[3][l] = on ? -coef[5 * k + 3] : (K_T) 0;
      t[4][l] = on ? -coef[5 * k + 4] : (K_T) 0;
      t[5][l] = (K_T) k;
    }
    cb0[j] = K_LOAD(t[0]);
    cb1[j] = K_LOAD(t[1]);
    cb2[j] = K_LOAD(t[2]);
    ca1[j] = K_LOAD(t[3]);
    ca2[j] = K_LOAD(t[4]);
    ki[j] = K_LOAD(t[5]);
#pragma GCC unroll 2
    for (int p = 0; p < P; p++) {
      for (int l = 0; l < K_W; l++) {
        const int k = j * K_W + l;
        t[0][l] = k < G ? st[p][2 * k] : (K_T) 0;
        t[1][l] = k < G ? st[p][2 * k + 1] : (K_T) 0;
        t[2][l] = (K_T) 0;
      }
      z1[p][j] = K_LOAD(t[0]);
      z2[p][j] = K_LOAD(t[1]);
      x[p][j] = K_LOAD(t[2]);
    }
  }
#pragma GCC unroll 2
  for (int p = 0; p < P; p++)
    x[p][0] = K_INS0(x[p][0], K_SET1(buf[p][0]));
  /* The last section, G-1, is lane (G-1) % K_W of vector M-1. */
  const K_WSEL_T lsel = K_WSEL_MAKE((G - 1) % K_W);
  /* Steps 0 .. n+G-2: masked while the wavefront fills (t < G-1) and drains (t >= n). */
  const size_t g1 = (size_t) G - 1, steps = n + g1;
  const size_t a = g1 < n ? g1 : n;
  size_t t0 = 0;
  for (; t0 < a; t0++)
    K_FN(wf_step)(lsel, cb0, cb1, cb2, ca1, ca2, ki, x, z1, z2, buf, t0, n, G, M, P, 1);
  for (; t0 < n; t0++)
    K_FN(wf_step)(lsel, cb0, cb1, cb2, ca1, ca2, ki, x, z1, z2, buf, t0, n, G, M, P, 0);
  for (; t0 < steps; t0++)
    K_FN(wf_step)(lsel, cb0, cb1, cb2, ca1, ca2, ki, x, z1, z2, buf, t0, n, G, M, P, 1);
#pragma GCC unroll 8
  for (int j = 0; j < M; j++) {
#pragma GCC unroll 2
    for (int p = 0; p < P; p++) {
      K_STORE(t[0], z1[p][j]);
      K_STORE(t[1], z2[p][j]);
      for (int l = 0; l < K_W; l++) {
        const int k = j * K_W + l;
        if (k < G) {
          st[p][2 * k] = t[0][l];
          st[p][2 * k + 1] = t[1][l];
        }
      }
    }
  }
}

/* One case of wf_sections' switch: M = m vectors per channel, P = p channels (constants). */
#define K_WF_CASE(m, p)                                                                            \
  case m:                                                                                          \
    K_FN(wf_group)(coef, st, buf, n, G, m, p);                                                     \
    return;
#if K_WFM >= 4
#define K_WF_CASES(p) K_WF_CASE(4, p) K_WF_CASE(3, p) K_WF_CASE(2, p)
#elif K_WFM >= 2
#define K_WF_CASES(p) K_WF_CASE(2, p)
#else
#define K_WF_CASES(p)
#endif

static void K_FN(wf_sections)(const K_T *coef, K_T **st, K_T **buf, size_t n, int G, int P)
{
  const int M = (G + K_W - 1) / K_W;
  if (P == 2) {
    switch (M) {
      K_WF_CASES(2)
    default:
      K_FN(wf_group)(coef, st, buf, n, G, 1, 2);
      return;
    }
  }
  switch (M) {
    K_WF_CASES(1)
  default:
    K_FN(wf_group)(coef, st, buf, n, G, 1, 1);
    return;
  }
}
#undef K_WF_CASES
#undef K_WF_CASE

#ifdef K_PJOIN
/* In-place wavefront: one or two channels (P) of one cascade of G <= K_PWM * K_W / P sections,
 * in one pass over the call's frames, read from and written to the stream in place. A lane group
 * (P lanes: one section of each channel) holds one position of the pipeline; with M vectors of
 * S = K_W / P groups, group l of vector j is position l * M + j, so each position's input is the
 * output of the same group of the vector before (no lane movement at all) except in vector 0,
 * which takes vector M-1's outputs one group up and the frame's P samples in group 0 (one join:
 * K_SJOIN one lane, K_PJOIN two). The join's latency thus falls once per M steps, not in every
 * step's recursion. The cascade fills the last G positions; the U = M * S - G first ones pass
 * their input through unchanged (b0 = 1, the rest 0: exact), so the last section is always
 * group S-1 of vector M-1. Frames enter as one broadcast and leave as one store; no block buffer,
 * no conversion loops: short calls pay only the fill and drain steps. The arithmetic per section
 * and sample is every path's. */
#define K_IW_JOIN(P, a, b) ((P) == 2 ? K_PJOIN(a, b) : K_SJOIN(a, b))
#define K_IW_IN(P, p) ((P) == 2 ? K_PIN(p) : K_SET1((K_T) * (p)))

/* One step t: position q (group l of vector j, q = l * M + j) filters frame t - q. `masked`:
 * update only the positions holding a frame of the call (t - n < q <= t; the bounds given as
 * small numbers, exact in K_T however long the call). `last`: the last position, M * S - 1,
 * whose outputs are stored to frame t - last when that is a frame of the call. Returns vector
 * M-1's outputs. */
K_AI K_V K_FN(iw_step)(const K_PSEL_T osel, const K_V *cb0, const K_V *cb1, const K_V *cb2,
                       const K_V *ca1, const K_V *ca2, const K_V *ki, K_V *x, K_V *z1, K_V *z2,
                       K_IO *d, size_t C, size_t t, size_t n, const int M, const int P,
                       const int masked)
{
  const size_t last = (size_t) (M * (K_W / P) - 1);
  const size_t next = t + 1 < n ? t + 1 : n - 1;
  K_V lo = K_ZERO(), hi = K_ZERO(), yl = K_ZERO();
  if (masked) {
    lo = K_SET1(t < n ? (K_T) -1 : (K_T) (int) (t - n));
    hi = K_SET1(t <= last ? (K_T) (int) t : (K_T) (int) last);
  }
  /* from the last vector down, so that each output replaces an input already used */
#pragma GCC unroll 8
  for (int j = M - 1; j >= 0; j--) {
    const K_V xv = x[j];
    const K_V y = K_FMA(cb0[j], xv, z1[j]);
    const K_V w = K_PW(y, z1[j]);
    const K_V n1 = K_FMA(ca1[j], w, K_FMA(cb1[j], xv, z2[j]));
    const K_V n2 = K_FMA(ca2[j], w, K_MUL(cb2[j], xv));
    if (masked) {
      const K_VM m = K_MASK(ki[j], lo, hi);
      z1[j] = K_SEL(m, n1, z1[j]);
      z2[j] = K_SEL(m, n2, z2[j]);
    } else {
      z1[j] = n1;
      z2[j] = n2;
    }
    if (j == M - 1)
      yl = y;
    else
      x[j + 1] = y;
  }
  x[0] = K_IW_JOIN(P, K_IW_IN(P, d + next * C), yl);
  if (!masked || t >= last) {
    K_IO *o = d + (t - last) * C;
    if (P == 2)
      K_PSTORE(o, yl, osel);
    else
      *o = (K_IO) K_WEXTRACT(yl, osel);
  }
  return yl;
}

/* Sections 0 .. G-1 at positions U .. U+G-1 (M vectors, U = M * S - G) over frames [0, n) of the
 * P channels at d (frame stride C), channel p's state at s[p]. With h[0] (and n >= 2), also the
 * history of each channel (kernel.h: h[p] as the kernel's hist for channel p, boundaries
 * 0 .. G): the sections' inputs and the last outputs at frames n-2 and n-1, taken from the lanes
 * in the steps that filter them (steps n-2+U .. n-2+U+G), as the scalar per-frame loop would
 * record them. */
K_AI void K_FN(iw_group)(const K_T *coef, K_T *const *s, K_IO *d, size_t C, size_t n, int G,
                         const int M, const int P, double *const *h)
{
  const int S = K_W / P, U = M * S - G;
  K_V cb0[K_PWM], cb1[K_PWM], cb2[K_PWM], ca1[K_PWM], ca2[K_PWM], ki[K_PWM];
  K_V x[K_PWM], z1[K_PWM], z2[K_PWM];
  _Alignas(64) K_T t[8][K_W];
#pragma GCC unroll 8
  for (int j = 0; j < M; j++) {
    for (int l = 0; l < K_W; l++) {
      const int q = (l / P) * M + j, k = q - U;
      const int on = k >= 0;
      const K_T *st = s[l % P];
      t[0][l] = on ? coef[5 * k] : (K_T) 1;
      t[1][l] = on ? K_CB1(coef + 5 * k) : (K_T) 0;
      t[2][l] = on ? K_CB2(coef + 5 * k) : (K_T) 0;
      t[3][l] = on ? -coef[5 * k + 3] : (K_T) 0;
      t[4][l] = on ? -coef[5 * k + 4] : (K_T) 0;
      t[5][l] = (K_T) q;
      t[6][l] = on ? st[2 * k] : (K_T) 0;
      t[7][l] = on ? st[2 * k + 1] : (K_T) 0;
    }
    cb0[j] = K_LOAD(t[0]);
    cb1[j] = K_LOAD(t[1]);
    cb2[j] = K_LOAD(t[2]);
    ca1[j] = K_LOAD(t[3]);
    ca2[j] = K_LOAD(t[4]);
    ki[j] = K_LOAD(t[5]);
    z1[j] = K_LOAD(t[6]);
    z2[j] = K_LOAD(t[7]);
    x[j] = K_ZERO();
  }
  x[0] = K_IW_JOIN(P, K_IW_IN(P, d), x[0]);
  /* the last position is group S-1 of vector M-1 */
  const K_PSEL_T osel = P == 2 ? K_PSEL_MAKE(S - 1) : K_WSEL_MAKE(S - 1);
  const size_t last = (size_t) (M * S - 1), steps = n + last;
  /* from step cap on (with a history), every step goes through the masked form and is recorded */
  const int rec = h[0] != NULL && n >= 2;
  const size_t cap = rec ? n - 2 + (size_t) U : steps;
  const size_t a = last < n ? last : n, b = n < cap ? n : cap;
  size_t t0 = 0;
  for (; t0 < a && t0 < cap; t0++)
    K_FN(iw_step)(osel, cb0, cb1, cb2, ca1, ca2, ki, x, z1, z2, d, C, t0, n, M, P, 1);
  for (; t0 < b; t0++)
    K_FN(iw_step)(osel, cb0, cb1, cb2, ca1, ca2, ki, x, z1, z2, d, C, t0, n, M, P, 0);
  /* the inputs of positions U .. last (x, before each recorded step) and the last outputs */
  _Alignas(64) K_T xs[K_PWM * K_W + 1][K_PWM][K_W], ys[K_PWM * K_W + 1][K_W];
  for (; t0 < steps; t0++) {
    const int keep = rec && t0 >= cap; /* (cap may lie past n: the drain's first steps) */
    const size_t r = t0 - cap;
    if (keep)
#pragma GCC unroll 8
      for (int j = 0; j < M; j++)
        K_STORE(xs[r][j], x[j]);
    const K_V y = K_FN(iw_step)(osel, cb0, cb1, cb2, ca1, ca2, ki, x, z1, z2, d, C, t0, n, M, P, 1);
    if (keep)
      K_STORE(ys[r], y);
  }
  if (rec)
    for (int p = 0; p < P; p++) {
      double *hp = h[p];
      for (int k = 0; k < G; k++) {
        const int q = k + U, lane = P * (q / M) + p;
        hp[2 * k + 1] = (double) xs[k][q % M][lane];
        hp[2 * k] = (double) xs[k + 1][q % M][lane];
      }
      hp[2 * G + 1] = (double) ys[G - 1][P * (S - 1) + p];
      hp[2 * G] = (double) ys[G][P * (S - 1) + p];
    }
#pragma GCC unroll 8
  for (int j = 0; j < M; j++) {
    K_STORE(t[6], z1[j]);
    K_STORE(t[7], z2[j]);
    for (int l = 0; l < K_W; l++) {
      const int k = (l / P) * M + j - U;
      K_T *st = s[l % P];
      if (k >= 0) {
        st[2 * k] = t[6][l];
        st[2 * k + 1] = t[7][l];
      }
    }
  }
}

/* Whether the in-place wavefront takes K sections of P channels (one pass). */
#define K_IW_TAKES(P, K) ((K) >= 1 && (K) <= K_PWM * K_W / (P))

/* The in-place wavefront (K_IW_TAKES(P, K)), M and P constants in each case. Mono takes at least
 * two vectors where it can: with one, every step would wait on the lane join. */
static void K_FN(iw)(const K_T *coef, K_T *const *s, K_IO *d, size_t C, size_t n, int K, int P,
                     double *const *h)
{
#define K_IW_CASE(m, p)                                                                            \
  case m:                                                                                          \
    K_FN(iw_group)(coef, s, d, C, n, K, m, p, h);                                                  \
    return;
  if (P == 2) {
    switch ((2 * K + K_W - 1) / K_W) {
#if K_PWM >= 4
      K_IW_CASE(4, 2)
      K_IW_CASE(3, 2)
#endif
#if K_PWM >= 2
      K_IW_CASE(2, 2)
#endif
    default:
      K_FN(iw_group)(coef, s, d, C, n, K, 1, 2, h);
      return;
    }
  }
  switch ((K + K_W - 1) / K_W) {
#if K_PWM >= 4
    K_IW_CASE(4, 1)
    K_IW_CASE(3, 1)
#endif
#if K_PWM >= 2
  default:
    K_FN(iw_group)(coef, s, d, C, n, K, 2, 1, h);
    return;
#else
  default:
    K_FN(iw_group)(coef, s, d, C, n, K, 1, 1, h);
    return;
#endif
  }
#undef K_IW_CASE
}
#endif /* K_PJOIN */

/* Wavefront: channels c0 .. c0+P-1 (P = 1 or 2), frames [0, frames). */
static void K_FN(wf)(const K_T *coef, K_T *state, int K, int kstride, K_IO *data, size_t frames,
                     size_t C, size_t c0, int P)
{
  K_T b[2][K_WF_BLOCK];
  const size_t sstride = 2 * (size_t) kstride;
  /* sections per pass: two channels interleaved hold twice the vectors, so half as many */
  const int cap = (P == 2 && K_WFM > 2 ? K_WFM / 2 : K_WFM) * K_W;
  const int ngroups = (K + cap - 1) / cap;
#ifdef K_PJOIN
  if (K_IW_TAKES(P, K)) {
    K_T *const s[2] = {state + c0 * sstride, state + (c0 + P - 1) * sstride};
    double *const h[2] = {NULL, NULL};
    K_FN(iw)(coef, s, data + c0, C, frames, K, P, h);
    return;
  }
#endif
  for (size_t f0 = 0; f0 < frames; f0 += K_WF_BLOCK) {
    const size_t n = frames - f0 < K_WF_BLOCK ? frames - f0 : K_WF_BLOCK;
    const K_IO *p = data + f0 * C + c0;
    for (size_t i = 0; i < n; i++)
      b[0][i] = (K_T) p[i * C];
    if (P == 2)
      for (size_t i = 0; i < n; i++)
        b[1][i] = (K_T) p[i * C + 1];
    int s = 0;
    for (int g = 0; g < ngroups; g++) {
      const int G = (K - s) / (ngroups - g) + ((K - s) % (ngroups - g) != 0);
      K_T *st0 = state + c0 * sstride + 2 * (size_t) s;
      K_T *stp[2] = {st0, P == 2 ? st0 + sstride : st0};
      K_T *bp[2] = {b[0], b[1]};
      K_FN(wf_sections)(coef + 5 * (size_t) s, stp, bp, n, G, P);
      s += G;
    }
    K_IO *q = data + f0 * C + c0;
    for (size_t i = 0; i < n; i++)
      q[i * C] = (K_IO) b[0][i];
    if (P == 2)
      for (size_t i = 0; i < n; i++)
        q[i * C + 1] = (K_IO) b[1][i];
  }
}

#endif /* !K_NARROW_RANGE */

#ifdef K_TB
#include "kernel_tblock.h"

/* Time blocks (see kernel_tblock.h): the frames [0, nb * len) of P = 1 or 2 channels (the whole
 * call) as nb = K_W / P consecutive blocks of len frames, block j of channel c in lane j*P+c.
 * Steps per chunk of the vector buffer: */
#ifndef K_TB_CH
#define K_TB_CH 256
#endif
/* Shortest range (frames) that takes the time-block path: shorter calls stay on the
 * lanes/wavefront arithmetic, so that splits of such streams stay bit-identical (kernel.h). It
 * beats the wavefront from shorter ranges on (bench/results/kernels-tblock.md). */
#define K_TB_MIN FX_KERNEL_SPLIT_EXACT_FRAMES

/* nb x nb transpose of P-sample units (nb = K_W / P) of the vectors r. */
K_AI void K_FN(tb_transpose)(K_V *r, const int P)
{
  if (P == 1)
    K_TB_TR1(r);
  else
    K_TB_TR2(r);
}

/* Steps [i0, i0+n) of every block into buf (n a multiple of nb): nb vectors of K_W I/O samples
 * (nb frames) of each block, transposed as an nb x nb matrix of P-sample units
 * (K_TB_TR1 / K_TB_TR2). */
K_AI void K_FN(tb_gather)(K_V *buf, const K_IO *data, const int P, size_t len, size_t i0, size_t n)
{
  const int nb = K_W / P;
  for (size_t i = 0; i < n; i += (size_t) nb) {
    K_V r[K_W];
#pragma GCC unroll 16
    for (int j = 0; j < nb; j++)
      r[j] = K_LOADIO(data + ((size_t) j * len + i0 + i) * (size_t) P);
    K_FN(tb_transpose)(r, P);
#pragma GCC unroll 16
    for (int j = 0; j < nb; j++)
      buf[i + (size_t) j] = r[j];
  }
}

K_AI void K_FN(tb_scatter)(const K_V *buf, K_IO *data, const int P, size_t len, size_t i0, size_t n)
{
  const int nb = K_W / P;
  for (size_t i = 0; i < n; i += (size_t) nb) {
    K_V r[K_W];
#pragma GCC unroll 16
    for (int j = 0; j < nb; j++)
      r[j] = buf[i + (size_t) j];
    K_FN(tb_transpose)(r, P);
#pragma GCC unroll 16
    for (int j = 0; j < nb; j++)
      K_STOREIO(data + ((size_t) j * len + i0 + i) * (size_t) P, r[j]);
  }
}

/* Correction pass, in the data's own layout: for blocks 1 .. nb-1 and each sub-block of
 * FX_TB_B frames, y += sum_m Tt[m][.] * s[m], s being the block's ZIR state at the start of the
 * sub-block (S: lanes = blocks, advanced by P0 = A^B from one sub-block to the next). */
K_AI void K_FN(tb_fix)(K_IO *data, const int P, size_t len, const K_T *Tt, const K_T *P0,
                       K_T (*st0)[K_W], const int n2)
{
  const int nb = K_W / P;
  const size_t rowlen = (size_t) FX_TB_B * (size_t) P;
  K_V S[2 * FX_TB_KMAX];
  _Alignas(64) K_T sq[2 * FX_TB_KMAX][K_W];
#pragma GCC unroll 32
  for (int m = 0; m < n2; m++)
    S[m] = K_LOAD(st0[m]);
  for (size_t g = 0; g < len; g += FX_TB_B) {
    if (g) {
      K_V t[2 * FX_TB_KMAX];
#pragma GCC unroll 32
      for (int a = 0; a < n2; a++) {
        K_V acc = K_MUL(K_SET1(P0[a * n2]), S[0]);
#pragma GCC unroll 32
        for (int m = 1; m < n2; m++)
          acc = K_FMA(K_SET1(P0[a * n2 + m]), S[m], acc);
        t[a] = acc;
      }
#pragma GCC unroll 32
      for (int m = 0; m < n2; m++)
        S[m] = t[m];
    }
#pragma GCC unroll 32
    for (int m = 0; m < n2; m++)
      K_STORE(sq[m], S[m]);
    for (int j = 1; j < nb; j++) {
      const K_T *sj = &sq[0][(size_t) j * (size_t) P];
      K_IO *p = data + ((size_t) j * len + g) * (size_t) P;
      /* 8 independent accumulators (the sum over m is a dependent chain per vector) */
      for (size_t v = 0; v < rowlen; v += 8 * K_W) {
        K_V a[8];
#pragma GCC unroll 8
        for (int u = 0; u < 8; u++)
          a[u] = K_LOADIO(p + v + (size_t) u * K_W);
#pragma GCC unroll 32
        for (int m = 0; m < n2; m++) {
          const K_V b = P == 1 ? K_SET1(sj[(size_t) m * K_W]) : K_TB_BCAST2(sj + (size_t) m * K_W);
          const K_T *t = Tt + (size_t) m * rowlen + v;
#pragma GCC unroll 8
          for (int u = 0; u < 8; u++)
            a[u] = K_FMA(K_LOAD(t + (size_t) u * K_W), b, a[u]);
        }
#pragma GCC unroll 8
        for (int u = 0; u < 8; u++)
          K_STOREIO(p + v + (size_t) u * K_W, a[u]);
      }
    }
  }
}

_Static_assert(FX_TB_KMAX_MONO == 10 && FX_TB_KMAX == 12, "tb_fix_k's cases list these counts");
static void K_FN(tb_fix_k)(K_IO *data, int P, size_t len, const K_T *Tt, const K_T *P0,
                           K_T (*st0)[K_W], int K)
{
  switch (K * 2 + (P == 2)) {
#define K_TB_CASE(k)                                                                               \
  case 2 * (k):                                                                                    \
    K_FN(tb_fix)(data, 1, len, Tt, P0, st0, 2 * (k));                                              \
    return;                                                                                        \
  case 2 * (k) + 1:                                                                                \
    K_FN(tb_fix)(data, 2, len, Tt, P0, st0, 2 * (k));                                              \
    return;
#define K_TB_CASE2(k)                                                                              \
  case 2 * (k) + 1:                                                                                \
    K_FN(tb_fix)(data, 2, len, Tt, P0, st0, 2 * (k));                                              \
    return;
    /* mono up to FX_TB_KMAX_MONO sections, stereo up to FX_TB_KMAX */
    K_TB_CASE(1)
    K_TB_CASE(2)
    K_TB_CASE(3)
    K_TB_CASE(4)
    K_TB_CASE(5)
    K_TB_CASE(6)
    K_TB_CASE(7)
    K_TB_CASE(8)
    K_TB_CASE(9)
    K_TB_CASE(10)
    K_TB_CASE2(11)
    K_TB_CASE2(12)
#undef K_TB_CASE
#undef K_TB_CASE2
  default:
    return;
  }
}

/* The sections over n steps of buf, the lanes' states at lst ([lane][K][2]). */
static void K_FN(tb_filter)(const K_T *coef, K_T *lst, int K, int lanes, K_V *buf, size_t n)
{
  const int ngroups = (K + K_CVG - 1) / K_CVG;
  int s = 0;
  for (int g = 0; g < ngroups; g++) {
    const int G = (K - s) / (ngroups - g) + ((K - s) % (ngroups - g) != 0);
    K_FN(cv_sections)
    (coef + 5 * (size_t) s, lst + 2 * (size_t) s, 2 * (size_t) K, lanes, buf, n, G);
    s += G;
  }
}

/* One pass over the blocks: gather, filter from the lanes' states, scatter. */
static void K_FN(tb_pass)(const K_T *coef, K_T *lst, int K, K_IO *data, int P, size_t len)
{
  _Alignas(64) K_V buf[K_TB_CH];
  for (size_t i0 = 0; i0 < len; i0 += K_TB_CH) {
    const size_t n = len - i0 < K_TB_CH ? len - i0 : K_TB_CH;
    if (P == 1)
      K_FN(tb_gather)(buf, data, 1, len, i0, n);
    else
      K_FN(tb_gather)(buf, data, 2, len, i0, n);
    K_FN(tb_filter)(coef, lst, K, K_W, buf, n);
    if (P == 1)
      K_FN(tb_scatter)(buf, data, 1, len, i0, n);
    else
      K_FN(tb_scatter)(buf, data, 2, len, i0, n);
  }
}

/* Time blocks over the first nb * len frames of the call (P = C channels, 1 <= K <= FX_TB_KMAX):
 * block 0 of each channel from its state, the others from zero state; then the blocks' true
 * initial states in sequence (s_{j+1} = end_j + A^len s_j, in double: the new state), and a
 * correction pass (y += C A^n s_j). Returns the frames done (0: no plan, nothing done). */
static size_t K_FN(tb)(const K_T *coef, K_T *state, int K, int kstride, K_IO *data, size_t frames,
                       int P)
{
  fx_tb_plan_t *pl = fx_tb_plan(coef, K);
  if (!pl)
    return 0;
  const int nb = K_W / P, n2 = 2 * K;
  size_t q = frames / ((size_t) nb * FX_TB_B);
  if (q > FX_TB_QMAX)
    q = FX_TB_QMAX;
  if (q == 0)
    return 0;
  const size_t len = q * FX_TB_B;
  const size_t sstride = 2 * (size_t) kstride;
  _Alignas(64) K_T lst[K_W * 2 * FX_TB_KMAX];
  _Alignas(64) K_T st0[2 * FX_TB_KMAX][K_W];
  memset(lst, 0, sizeof(lst));
  memset(st0, 0, sizeof(st0));
  for (int c = 0; c < P; c++)
    for (int m = 0; m < n2; m++)
      lst[c * n2 + m] = state[(size_t) c * sstride + (size_t) m];
  /* pass 1: every block from its start state (block 0: the true one; others: zero) */
  K_FN(tb_pass)(coef, lst, K, data, P, len);
  /* the true initial state of each block, in double */
  for (int c = 0; c < P; c++) {
    double s[2 * FX_TB_KMAX];
    for (int m = 0; m < n2; m++) {
      s[m] = (double) lst[c * n2 + m];
    }
    for (int j = 1; j < nb; j++) {
      const int l = j * P + c;
      for (int m = 0; m < n2; m++)
        st0[m][l] = (K_T) s[m];
      fx_tb_advance(pl, q, s);
      for (int m = 0; m < n2; m++)
        s[m] += (double) lst[l * n2 + m];
    }
    for (int m = 0; m < n2; m++)
      state[(size_t) c * sstride + (size_t) m] = (K_T) s[m];
  }
  /* pass 2: add the zero-input responses (block 0 has none) */
  K_FN(tb_fix_k)(data, P, len, pl->Tt[P - 1], pl->P0, st0, K);
  return (size_t) nb * len;
}
#endif

/* Channels c0 .. c0+nch-1, frames [0, frames), no history, the caller's FP mode (the kernel sets
 * FTZ/DAZ). Not static: a wider kernel hands narrow channel ranges to a narrower one of the same
 * arithmetic (K_NARROW_RANGE; e.g. AVX-512 -> AVX2, bit-identical). Groups of K_W channels run
 * as channel vectors; one or two channels (alone, or left over with K >= 4) through the
 * wavefront (three with K >= 8 as a pair and a single); other leftovers in a partly filled
 * vector (or the narrower kernel's range). */
void K_RANGE(const K_T *coef, K_T *state, int K, int kstride, K_IO *data, size_t frames, size_t C,
             size_t c0, size_t nch);
#ifdef K_NARROW_RANGE
void K_NARROW_RANGE(const K_T *coef, K_T *state, int K, int kstride, K_IO *data, size_t frames,
                    size_t C, size_t c0, size_t nch);
#endif
void K_RANGE(const K_T *coef, K_T *state, int K, int kstride, K_IO *data, size_t frames, size_t C,
             size_t c0, size_t nch)
{
#ifdef K_TB
  if (c0 == 0 && nch == C && nch <= 2 && K >= 1 && K <= (nch == 1 ? FX_TB_KMAX_MONO : FX_TB_KMAX)) {
    while (frames >= K_TB_MIN) {
      const size_t done = K_FN(tb)(coef, state, K, kstride, data, frames, (int) nch);
      if (!done)
        break;
      data += done * C;
      frames -= done;
    }
    if (!frames)
      return;
  }
#endif
  size_t c = c0;
  const size_t end = c0 + nch;
  if (nch > 2)
    for (; c + K_W <= end; c += K_W)
      K_FN(cv)(coef, state, K, kstride, data, frames, C, c, K_W);
  const size_t r = end - c;
  if (r == 0)
    return;
#ifdef K_NARROW_RANGE
  _Static_assert(K_W / 2 >= 3, "the narrow kernel must take every range the wavefront would");
  if (r <= K_W / 2) {
    K_NARROW_RANGE(coef, state, K, kstride, data, frames, C, c, r);
    return;
  }
#else
  if (r <= 2 && (nch <= 2 || K >= 4)) {
    K_FN(wf)(coef, state, K, kstride, data, frames, C, c, (int) r);
    return;
  }
  if (r == 3 && K >= 8) { /* two wavefronts beat one vector with 3 of K_W lanes busy */
    K_FN(wf)(coef, state, K, kstride, data, frames, C, c, 2);
    K_FN(wf)(coef, state, K, kstride, data, frames, C, c + 2, 1);
    return;
  }
#endif
  K_FN(cv)(coef, state, K, kstride, data, frames, C, c, (int) r);
}

#ifdef K_NAME
/* One frame through all sections in scalar arithmetic, recording each boundary's history. */
static K_T K_FN(rec_frame)(const K_T *coef, K_T *st, int K, double *h, K_T v)
{
  for (int s = 0; s < K; s++) {
    const K_T *c = coef + 5 * (size_t) s;
    h[2 * s + 1] = h[2 * s];
    h[2 * s] = (double) v;
    const K_T y = K_SFMA(c[0], v, st[2 * s]), w = K_PW(y, st[2 * s]);
    st[2 * s] = K_SFMA(-c[3], w, K_SFMA(K_CB1(c), v, st[2 * s + 1]));
    st[2 * s + 1] = K_SFMA(-c[4], w, K_CB2(c) * v);
    v = y;
  }
  h[2 * K + 1] = h[2 * K];
  h[2 * K] = (double) v;
  return v;
}

/* The kernel (fx_kernel_t; declared in kernel.h). */
void K_NAME(const K_T *coef, K_T *state, double *hist, int K, int kstride, K_IO *data,
            size_t frames, int channels)
{
  if (frames == 0 || channels <= 0)
    return;
  fx_fpmode_t mode;
  fpmode_enter(&mode);
  const size_t C = (size_t) channels;
#ifdef K_PJOIN
  /* One or two channels through the in-place wavefront in one pass, the history recorded from
   * its lanes (the same numbers as the body-and-tail split below, which the time-block path
   * needs). */
  if (C <= 2 && K_IW_TAKES((int) C, K) && frames >= 2
#ifdef K_TB
      && frames - 2 < K_TB_MIN
#endif
  ) {
    const size_t sh = (size_t) kstride * 2 * (C - 1), hh = ((size_t) kstride + 1) * 2 * (C - 1);
    K_T *const s[2] = {state, state + sh};
    double *const h[2] = {hist, hist ? hist + hh : NULL};
    K_FN(iw)(coef, s, data, C, frames, K, (int) C, h);
    fpmode_leave(&mode);
    return;
  }
#endif
  /* The last (up to) two frames always go apart, so that the body (and the time-block path's
   * blocks) are the same with or without a history. */
  const size_t tail = frames < 2 ? frames : 2;
  const size_t body = frames - tail;
  if (body && K > 0)
    K_RANGE(coef, state, K, kstride, data, body, C, 0, C);
  if (tail && !hist) {
    if (K > 0)
      K_RANGE(coef, state, K, kstride, data + body * C, tail, C, 0, C);
  } else if (tail) {
    for (size_t ch = 0; ch < C; ch++) {
      K_T *st = state + ch * (size_t) kstride * 2;
      double *h = hist + ch * ((size_t) kstride + 1) * 2;
      for (size_t i = body; i < frames; i++) {
        K_IO *p = data + i * C + ch;
        *p = (K_IO) K_FN(rec_frame)(coef, st, K, h, (K_T) *p);
      }
    }
  }
  fpmode_leave(&mode);
}

#endif /* K_NAME */

/* The chunked kernel of this flavour (kernel_chunk.h), where the flavour's file names one
 * (K_CHUNK_NAME: fx_kernel_<isa>_<flavour>_chunk). */
#ifdef K_CHUNK_NAME
#include "kernel_chunk.h"
#endif
