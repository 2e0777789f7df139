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
 *   - carries the true state chunk by chunk in double (fx_chunk_carry()),
 *   - corrects every sample: y = fma(h2[i], c2, fma(h1[i], c1, y0)).
 * Chunks cut by the call's start or end (a chunk the previous call began, or one this call begins)
 * run one sample at a time with exactly the same operations (K_SFMA is the lanes' arithmetic), and
 * their zero-state recursion and carry stay in the channel's records (fx_chunk_rec_t) for the next
 * call, so every sample's result is the same whatever the buffer boundaries: any split of a stream
 * is bit-identical. A record is used only when the caller's state still holds what this kernel last
 * wrote there (otherwise the engine changed it: a new chunk grid starts at this call, from it).
 *
 * Work per sample and section: 5 operations for the zero-state recursion, 2 for the correction, all
 * in full lanes, against 5 in the sequential kernels' mostly empty lanes for one or two channels.
 */

#include "chunk.h"
#include "kernel.h"
#include "kernel_fpmode.h"

#include <stddef.h>
#include <string.h>

#ifndef K_CK_NV
#define K_CK_NV 4
#endif
#define K_CK_NB (K_CK_NV * K_W)
#define K_CK_L FX_CHUNK_L

#define K_CK_CAT2(a, b) a##_##b
#define K_CK_CAT(a, b) K_CK_CAT2(a, b)
#define K_CK_FN(x) K_CK_CAT(x, K_SFX)
#define K_AI_CK static inline __attribute__((always_inline))

/* The carry across one chunk, c <- e + M c (chunk.h), with the instruction set's double FMA where
 * it has one (K_DFMA; a*b + c rounded twice otherwise): the one expression every path of this
 * kernel uses, so that a chunk's carry is the same whichever path completed it. */
#ifndef K_DFMA
#define K_DFMA(a, b, c) ((a) * (b) + (c))
#endif
K_AI_CK void K_CK_FN(ck_carry)(const fx_chunk_sec_t *p, double e1, double e2, double *c1,
                               double *c2)
{
  const double n1 = K_DFMA(p->M[0], *c1, K_DFMA(p->M[1], *c2, e1));
  const double n2 = K_DFMA(p->M[2], *c1, K_DFMA(p->M[3], *c2, e2));
  *c1 = n1;
  *c2 = n2;
}

/* The section tables in the arithmetic type. */
#ifdef K_FLAVOUR_F32_S
#define K_CK_H1(p) ((p)->h1f)
#define K_CK_H2(p) ((p)->h2f)
#else
#define K_CK_H1(p) ((p)->h1)
#define K_CK_H2(p) ((p)->h2)
#endif

/* Where the call's last two frames are (hist): frame index f of the call, input of section s. */
static inline void K_CK_FN(ck_note)(double *h, size_t f, size_t frames, double v)
{
  if (h && f + 2 >= frames)
    h[frames - 1 - f] = v; /* [0]: frame frames-1, [1]: frames-2 */
}

/* n frames (n < L, or the rest of a chunk) of one channel, one at a time, from chunk position ph
 * (0 <= ph, ph + n <= L), frames [f, f + n) of the call. Completes the chunk when ph + n == L. */
static void K_CK_FN(ck_partial)(const K_T *coef, const fx_chunk_sec_t *ps, fx_chunk_rec_t *rec,
                                int K, K_IO *x, size_t C, size_t f, size_t n, int ph, double *hist,
                                size_t frames)
{
  K_T t[K_CK_L];
  for (size_t i = 0; i < n; i++)
    t[i] = (K_T) x[i * C];
  for (int s = 0; s < K; s++) {
    const K_T *c = coef + 5 * (size_t) s;
    const fx_chunk_sec_t *p = ps + s;
    fx_chunk_rec_t *r = rec + s;
    const K_T *h1 = K_CK_H1(p) + ph, *h2 = K_CK_H2(p) + ph;
    K_T z1 = (K_T) r->zs1, z2 = (K_T) r->zs2;
    const K_T c1 = (K_T) r->c1, c2 = (K_T) r->c2;
    for (size_t i = 0; i < n; i++) {
      const K_T v = t[i];
      K_CK_FN(ck_note)(hist ? hist + 2 * s : NULL, f + i, frames, (double) v);
      const K_T y = K_SFMA(c[0], v, z1);
      z1 = K_SFMA(-c[3], y, K_SFMA(c[1], v, z2));
      z2 = K_SFMA(-c[4], y, c[2] * v);
      t[i] = K_SFMA(h2[i], c2, K_SFMA(h1[i], c1, y));
    }
    if (ph + (int) n == K_CK_L) {
      K_CK_FN(ck_carry)(p, (double) z1, (double) z2, &r->c1, &r->c2);
      r->zs1 = r->zs2 = 0.0;
    } else {
      r->zs1 = (double) z1;
      r->zs2 = (double) z2;
    }
  }
  for (size_t i = 0; i < n; i++) {
    K_CK_FN(ck_note)(hist ? hist + 2 * K : NULL, f + i, frames, (double) t[i]);
    x[i * C] = (K_IO) t[i];
  }
}

/* A block: nb (1 .. K_CK_NB / P) full chunks of P channels from frame f of the call (x: that
 * frame, channel c0). P == C (1 or 2, `joint`): vector v holds chunks v * K_W / P .. of both
 * channels, lane m * P + ch for chunk v * K_W / P + m of channel ch, gathered and scattered with
 * the instruction set's transposes (K_CK_TR1 / K_CK_TR2). Otherwise P == 1: one channel of any
 * count, gathered sample by sample. */
K_AI_CK void K_CK_FN(ck_gather)(K_V (*buf)[K_CK_NV], const K_IO *x, size_t C, int P, int nb, int nv,
                                int joint)
{
  K_T *bt = (K_T *) buf;
  const int per = K_W / P; /* chunks per vector */
  if (joint) {
    for (int v = 0; v < nv; v++)
      for (int i0 = 0; i0 < K_CK_L; i0 += per) {
        K_V r[K_W];
        for (int q = 0; q < per; q++) {
          const int j = v * per + q;
          r[q] = j < nb ? K_LOADIO(x + ((size_t) j * K_CK_L + (size_t) i0) * C) : K_ZERO();
        }
#ifdef K_CK_TR2
        if (P == 2)
          K_CK_TR2(r);
        else
#endif
          K_CK_TR1(r);
        for (int q = 0; q < per; q++)
          buf[i0 + q][v] = r[q];
      }
    return;
  }
  for (int j = 0; j < nv * K_W; j++) {
    const size_t v = (size_t) (j / K_W), l = (size_t) (j % K_W);
    const K_IO *src = x + (size_t) j * K_CK_L * C;
    for (size_t i = 0; i < K_CK_L; i++)
      bt[(i * K_CK_NV + v) * K_W + l] = j < nb ? (K_T) src[i * C] : (K_T) 0;
  }
}

K_AI_CK void K_CK_FN(ck_scatter)(K_V (*buf)[K_CK_NV], K_IO *x, size_t C, int P, int nb, int nv,
                                 int joint)
{
  const K_T *bt = (const K_T *) buf;
  const int per = K_W / P;
  if (joint) {
    for (int v = 0; v < nv; v++)
      for (int i0 = 0; i0 < K_CK_L; i0 += per) {
        K_V r[K_W];
        for (int q = 0; q < per; q++)
          r[q] = buf[i0 + q][v];
#ifdef K_CK_TR2
        if (P == 2)
          K_CK_TR2(r);
        else
#endif
          K_CK_TR1(r);
        for (int q = 0; q < per; q++) {
          const int j = v * per + q;
          if (j < nb)
            K_STOREIO(x + ((size_t) j * K_CK_L + (size_t) i0) * C, r[q]);
        }
      }
    return;
  }
  for (int j = 0; j < nb; j++) {
    const size_t v = (size_t) (j / K_W), l = (size_t) (j % K_W);
    K_IO *dst = x + (size_t) j * K_CK_L * C;
    for (size_t i = 0; i < K_CK_L; i++)
      dst[i * C] = (K_IO) bt[(i * K_CK_NV + v) * K_W + l];
  }
}

/* The zero-state pass of one section over the block, nv (constant after inlining) independent
 * recurrences; with `corr`, each input sample first gets the previous section's correction
 * (fused here, so the block is read and written once per section). */
K_AI_CK void K_CK_FN(ck_zs)(K_V (*buf)[K_CK_NV], const K_T *c, K_V *z1, K_V *z2, const K_T *h1,
                            const K_T *h2, const K_V *C1, const K_V *C2, const int nv,
                            const int corr)
{
  const K_V b0 = K_SET1(c[0]), b1 = K_SET1(c[1]), b2 = K_SET1(c[2]);
  const K_V na1 = K_SET1(-c[3]), na2 = K_SET1(-c[4]);
  for (int i = 0; i < K_CK_L; i++) {
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
      const K_V y = K_FMA(b0, xv, z1[v]);
      z1[v] = K_FMA(na1, y, K_FMA(b1, xv, z2[v]));
      z2[v] = K_FMA(na2, y, K_MUL(b2, xv));
      buf[i][v] = y;
    }
  }
}

static void K_CK_FN(ck_block)(const K_T *coef, const fx_chunk_sec_t *ps, fx_chunk_rec_t *rec, int K,
                              int kstride, K_IO *x, size_t C, int P, int joint, size_t f, int nb,
                              double *hist, size_t frames)
{
  _Alignas(64) K_V buf[K_CK_L][K_CK_NV];
  _Alignas(64) K_T e1[K_CK_NB], e2[K_CK_NB], cl[2][2][K_CK_NB];
  const K_T *bt = (const K_T *) buf;
  const int per = K_W / P, nv = (nb + per - 1) / per;
  K_CK_FN(ck_gather)(buf, x, C, P, nb, nv, joint);
  /* the block's frames that are the call's last two (history) */
  const size_t fend = f + (size_t) nb * K_CK_L;
  const int tailrec = hist && fend + 2 > frames;
  K_V C1[K_CK_NV], C2[K_CK_NV];
  const K_T *h1 = NULL, *h2 = NULL;
  int cur = 0; /* cl[cur]: the carries of the previous section, per lane */
  for (int s = 0; s <= K; s++) {
    if (tailrec) /* the input of section s: the previous section's corrected output */
      for (size_t g = frames >= 2 ? frames - 2 : 0; g < frames; g++) {
        if (g < f || g >= fend)
          continue;
        const size_t j = (g - f) / K_CK_L, i = (g - f) % K_CK_L;
        for (int ch = 0; ch < P; ch++) {
          const size_t lane =
              (j / (size_t) per) * K_W + (j % (size_t) per) * (size_t) P + (size_t) ch;
          K_T v = bt[i * K_CK_NV * K_W + lane];
          if (s > 0)
            v = K_SFMA(h2[i], cl[cur][1][lane], K_SFMA(h1[i], cl[cur][0][lane], v));
          hist[(size_t) ch * ((size_t) kstride + 1) * 2 + 2 * (size_t) s + (frames - 1 - g)] =
              (double) v;
        }
      }
    if (s == K)
      break;
    const fx_chunk_sec_t *p = ps + s;
    K_V z1[K_CK_NV], z2[K_CK_NV];
    for (int v = 0; v < K_CK_NV; v++)
      z1[v] = z2[v] = K_ZERO();
    const K_T *c = coef + 5 * (size_t) s;
    /* 1. zero-state pass (with the previous section's correction) */
#define K_CK_ZS(NVC)                                                                               \
  case NVC:                                                                                        \
    if (s == 0)                                                                                    \
      K_CK_FN(ck_zs)(buf, c, z1, z2, h1, h2, C1, C2, NVC, 0);                                      \
    else                                                                                           \
      K_CK_FN(ck_zs)(buf, c, z1, z2, h1, h2, C1, C2, NVC, 1);                                      \
    break;
    switch (nv) {
#if K_CK_NV >= 4
      K_CK_ZS(4)
      K_CK_ZS(3)
#endif
      K_CK_ZS(2)
    default:
      K_CK_ZS(1)
    }
#undef K_CK_ZS
    for (int v = 0; v < nv; v++) {
      K_STORE(e1 + v * K_W, z1[v]);
      K_STORE(e2 + v * K_W, z2[v]);
    }
    /* 2. carries, chunk by chunk, in double (the P channels' chains side by side) */
    cur ^= 1;
    memset(cl[cur], 0, sizeof(cl[cur]));
    double c1[2], c2[2];
    for (int ch = 0; ch < P; ch++) {
      c1[ch] = rec[(size_t) ch * (size_t) kstride + (size_t) s].c1;
      c2[ch] = rec[(size_t) ch * (size_t) kstride + (size_t) s].c2;
    }
    for (int j = 0; j < nb; j++)
      for (int ch = 0; ch < P; ch++) {
        const int lane = (j / per) * K_W + (j % per) * P + ch;
        cl[cur][0][lane] = (K_T) c1[ch];
        cl[cur][1][lane] = (K_T) c2[ch];
        K_CK_FN(ck_carry)(p, (double) e1[lane], (double) e2[lane], &c1[ch], &c2[ch]);
      }
    for (int ch = 0; ch < P; ch++) {
      rec[(size_t) ch * (size_t) kstride + (size_t) s].c1 = c1[ch];
      rec[(size_t) ch * (size_t) kstride + (size_t) s].c2 = c2[ch];
    }
    for (int v = 0; v < nv; v++) {
      C1[v] = K_LOAD(cl[cur][0] + v * K_W);
      C2[v] = K_LOAD(cl[cur][1] + v * K_W);
    }
    h1 = K_CK_H1(p);
    h2 = K_CK_H2(p);
  }
  /* 3. the last section's correction */
  if (K > 0)
    for (int i = 0; i < K_CK_L; i++) {
      const K_V H1 = K_SET1(h1[i]), H2 = K_SET1(h2[i]);
      for (int v = 0; v < nv; v++)
        buf[i][v] = K_FMA(H2, C2[v], K_FMA(H1, C1[v], buf[i][v]));
    }
  if (tailrec) /* the output */
    for (size_t g = frames >= 2 ? frames - 2 : 0; g < frames; g++) {
      if (g < f || g >= fend)
        continue;
      const size_t j = (g - f) / K_CK_L, i = (g - f) % K_CK_L;
      for (int ch = 0; ch < P; ch++) {
        const size_t lane =
            (j / (size_t) per) * K_W + (j % (size_t) per) * (size_t) P + (size_t) ch;
        hist[(size_t) ch * ((size_t) kstride + 1) * 2 + 2 * (size_t) K + (frames - 1 - g)] =
            (double) bt[i * K_CK_NV * K_W + lane];
      }
    }
  K_CK_FN(ck_scatter)(buf, x, C, P, nb, nv, joint);
}

/* The kernel (fx_kernel_chunk_*_fn; kernel.h). */
void K_CHUNK_NAME(const K_T *coef, const fx_chunk_sec_t *ps, fx_chunk_rec_t *rec, K_T *state,
                  double *hist, int K, int kstride, K_IO *data, size_t frames, int channels)
{
  if (frames == 0 || channels <= 0)
    return;
  fx_fpmode_t mode;
  fpmode_enter(&mode);
  const size_t C = (size_t) channels;
  const size_t ks = (size_t) kstride;
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
        r->c1 = (double) st[0];
        r->c2 = (double) st[1];
        r->valid = 1;
      }
    ph = 0;
  }
  if (hist && frames == 1) /* a one-frame call shifts one sample into the history */
    for (size_t ch = 0; ch < C; ch++)
      for (int s = 0; s <= K; s++) {
        double *h = hist + ch * (ks + 1) * 2 + 2 * (size_t) s;
        h[1] = h[0];
      }
  size_t f = 0;
  if (ph > 0) { /* the rest of the chunk the previous call began */
    f = (size_t) (K_CK_L - ph);
    if (f > frames)
      f = frames;
    for (size_t ch = 0; ch < C; ch++)
      K_CK_FN(ck_partial)
    (coef, ps, rec + ch * ks, K, data + ch, C, 0, f, ph, hist ? hist + ch * (ks + 1) * 2 : NULL,
     frames);
  }
  const size_t full = (frames - f) / K_CK_L;
#if defined(K_CK_TR2)
  const int joint = C <= 2;
#else
  const int joint = C == 1;
#endif
  if (full && joint) { /* all channels in the lanes together */
    const int P = (int) C;
    const size_t nbmax = (size_t) K_CK_NB / (size_t) P;
    for (size_t j = 0; j < full;) {
      const size_t nb = full - j < nbmax ? full - j : nbmax;
      K_CK_FN(ck_block)
      (coef, ps, rec, K, kstride, data + (f + j * K_CK_L) * C, C, P, 1, f + j * K_CK_L, (int) nb,
       hist, frames);
      j += nb;
    }
  } else if (full) { /* channel by channel */
    for (size_t ch = 0; ch < C; ch++)
      for (size_t j = 0; j < full;) {
        const size_t nb = full - j < K_CK_NB ? full - j : K_CK_NB;
        K_CK_FN(ck_block)
        (coef, ps, rec + ch * ks, K, kstride, data + (f + j * K_CK_L) * C + ch, C, 1, 0,
         f + j * K_CK_L, (int) nb, hist ? hist + ch * (ks + 1) * 2 : NULL, frames);
        j += nb;
      }
  }
  f += full * K_CK_L;
  if (f < frames) { /* a chunk the next call goes on with */
    for (size_t ch = 0; ch < C; ch++)
      K_CK_FN(ck_partial)
    (coef, ps, rec + ch * ks, K, data + f * C + ch, C, f, frames - f, 0,
     hist ? hist + ch * (ks + 1) * 2 : NULL, frames);
    ph = (int) (frames - f);
  } else if (full) {
    ph = 0;
  } else {
    ph = (int) ((size_t) ph + frames) % K_CK_L;
  }
  /* the true state, for the caller (and for the next call's check) */
  for (size_t ch = 0; ch < C; ch++)
    for (int s = 0; s < K; s++) {
      fx_chunk_rec_t *r = rec + ch * ks + (size_t) s;
      K_T *st = state + (ch * ks + (size_t) s) * 2;
      double z1, z2;
      fx_chunk_true_state(ps + s, ph, r->zs1, r->zs2, r->c1, r->c2, &z1, &z2);
      /* read back through a volatile: GCC 12's SLP vectoriser at -O2 otherwise stores the
       * unrounded doubles into the record (double(float(z)) folded to z), and the next call
       * would see a state that is not the one left here */
      st[0] = (K_T) z1;
      st[1] = (K_T) z2;
      const volatile K_T *sv = st;
      r->st1 = (double) sv[0];
      r->st2 = (double) sv[1];
      r->phase = ph;
    }
  fpmode_leave(&mode);
}

#undef K_CK_NB
#undef K_CK_L
#undef K_CK_H1
#undef K_CK_H2
