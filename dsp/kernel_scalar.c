/* gst-fx — portable scalar SOS cascade kernel. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Per channel, the buffer is taken in blocks of up to FX_BLOCK frames: the block is gathered
 * from the interleaved buffer into a local array in the arithmetic type, the sections run over
 * the block in groups of four (then two, then one) with the group's coefficients and state in
 * locals, frame by frame, so that four independent recurrences are in flight at once; then the
 * block is scattered back. Intermediate signals between sections are never rounded to the I/O
 * type. The last two frames of each call go through a plain per-frame loop that also records the
 * boundary history (see kernel.h). Each sample sees the same operations whatever the block or
 * call boundaries, so any split of a stream gives bit-identical output. */
#include "kernel.h"

#include "kernel_fpmode.h"

/* Frames per block: the local arrays are 256 * 8 = 2 KiB. */
#define FX_BLOCK 256

/* One section step: y from x, state (z1, z2) updated. Every code path below uses this one
 * expression, so each sample sees the same arithmetic whichever path filters it. Double
 * arithmetic (SFX d) runs the transposed direct form II (w = y, b1 and b2 as given); float (f)
 * the state-space form of the same state (w = z1 before its update, b1 and b2 replaced by
 * sb1 = b1 - a1 b0 and sb2 = b2 - a2 b0: FX_CB1, FX_CB2), which rounds far less behind poles near
 * z = 1 with zeros there (kernel_simd.h, "The recursion's form"). */
#define FX_STEP(SFX, b0, b1, b2, a1, a2, z1, z2, x, y)                                             \
  do {                                                                                             \
    (y) = (b0) * (x) + (z1);                                                                       \
    const FX_T_##SFX w_ = FX_PW_##SFX((y), (z1));                                                  \
    (z1) = ((b1) * (x) + (z2)) - (a1) * (w_);                                                      \
    (z2) = (b2) * (x) - (a2) * (w_);                                                               \
  } while (0)
#define FX_T_d double
#define FX_T_f float
#define FX_PW_d(y, z1) (y)
#define FX_PW_f(y, z1) (z1)
#define FX_CB1_d(c) ((c)[1])
#define FX_CB2_d(c) ((c)[2])
#define FX_CB1_f(c) ((c)[1] - (c)[3] * (c)[0])
#define FX_CB2_f(c) ((c)[2] - (c)[4] * (c)[0])

/* Section k of a group: coefficients and state in locals. */
#define FX_SEC_LOAD(SFX, T, k)                                                                     \
  const T b0_##k = c[5 * (k)], b1_##k = FX_CB1_##SFX(c + 5 * (k)),                                 \
          b2_##k = FX_CB2_##SFX(c + 5 * (k)), a1_##k = c[5 * (k) + 3], a2_##k = c[5 * (k) + 4];    \
  T z1_##k = st[2 * (k)], z2_##k = st[2 * (k) + 1]
#define FX_SEC_RUN(SFX, T, k)                                                                      \
  do {                                                                                             \
    T y_;                                                                                          \
    FX_STEP(SFX, b0_##k, b1_##k, b2_##k, a1_##k, a2_##k, z1_##k, z2_##k, v, y_);                   \
    v = y_;                                                                                        \
  } while (0)
#define FX_SEC_STORE(k)                                                                            \
  do {                                                                                             \
    st[2 * (k)] = z1_##k;                                                                          \
    st[2 * (k) + 1] = z2_##k;                                                                      \
  } while (0)

/* Groups of 1, 2 and 4 sections run frame by frame with their state in locals: the sections'
 * recurrences are independent loop-carried chains, so the CPU overlaps them (section k on frame
 * i alongside section k+1 on frame i-1) instead of waiting on one chain at a time. */
#define FX_DEFINE_GROUPS(SFX, T)                                                                   \
  static void group1_##SFX(const T *c, T *st, T *buf, size_t n)                                    \
  {                                                                                                \
    FX_SEC_LOAD(SFX, T, 0);                                                                        \
    for (size_t i = 0; i < n; i++) {                                                               \
      T v = buf[i];                                                                                \
      FX_SEC_RUN(SFX, T, 0);                                                                       \
      buf[i] = v;                                                                                  \
    }                                                                                              \
    FX_SEC_STORE(0);                                                                               \
  }                                                                                                \
  static void group2_##SFX(const T *c, T *st, T *buf, size_t n)                                    \
  {                                                                                                \
    FX_SEC_LOAD(SFX, T, 0);                                                                        \
    FX_SEC_LOAD(SFX, T, 1);                                                                        \
    for (size_t i = 0; i < n; i++) {                                                               \
      T v = buf[i];                                                                                \
      FX_SEC_RUN(SFX, T, 0);                                                                       \
      FX_SEC_RUN(SFX, T, 1);                                                                       \
      buf[i] = v;                                                                                  \
    }                                                                                              \
    FX_SEC_STORE(0);                                                                               \
    FX_SEC_STORE(1);                                                                               \
  }                                                                                                \
  static void group4_##SFX(const T *c, T *st, T *buf, size_t n)                                    \
  {                                                                                                \
    FX_SEC_LOAD(SFX, T, 0);                                                                        \
    FX_SEC_LOAD(SFX, T, 1);                                                                        \
    FX_SEC_LOAD(SFX, T, 2);                                                                        \
    FX_SEC_LOAD(SFX, T, 3);                                                                        \
    for (size_t i = 0; i < n; i++) {                                                               \
      T v = buf[i];                                                                                \
      FX_SEC_RUN(SFX, T, 0);                                                                       \
      FX_SEC_RUN(SFX, T, 1);                                                                       \
      FX_SEC_RUN(SFX, T, 2);                                                                       \
      FX_SEC_RUN(SFX, T, 3);                                                                       \
      buf[i] = v;                                                                                  \
    }                                                                                              \
    FX_SEC_STORE(0);                                                                               \
    FX_SEC_STORE(1);                                                                               \
    FX_SEC_STORE(2);                                                                               \
    FX_SEC_STORE(3);                                                                               \
  }                                                                                                \
  /* All K sections over a block, in groups of 4, then 2, then 1. */                               \
  static void cascade_##SFX(const T *coef, T *st, int K, T *buf, size_t n)                         \
  {                                                                                                \
    int s = 0;                                                                                     \
    for (; s + 4 <= K; s += 4)                                                                     \
      group4_##SFX(coef + 5 * (size_t) s, st + 2 * (size_t) s, buf, n);                            \
    if (s + 2 <= K) {                                                                              \
      group2_##SFX(coef + 5 * (size_t) s, st + 2 * (size_t) s, buf, n);                            \
      s += 2;                                                                                      \
    }                                                                                              \
    if (s < K)                                                                                     \
      group1_##SFX(coef + 5 * (size_t) s, st + 2 * (size_t) s, buf, n);                            \
  }                                                                                                \
  /* One frame through all sections, recording each boundary's history (shifting it). */           \
  static inline T record_frame_##SFX(const T *coef, T *st, int K, double *h, T v)                  \
  {                                                                                                \
    for (int s = 0; s < K; s++) {                                                                  \
      const T *c = coef + 5 * (size_t) s;                                                          \
      T y_;                                                                                        \
      h[2 * s + 1] = h[2 * s];                                                                     \
      h[2 * s] = (double) v;                                                                       \
      FX_STEP(SFX, c[0], FX_CB1_##SFX(c), FX_CB2_##SFX(c), c[3], c[4], st[2 * s], st[2 * s + 1],   \
              v, y_);                                                                              \
      v = y_;                                                                                      \
    }                                                                                              \
    h[2 * K + 1] = h[2 * K];                                                                       \
    h[2 * K] = (double) v;                                                                         \
    return v;                                                                                      \
  }

FX_DEFINE_GROUPS(d, double)
FX_DEFINE_GROUPS(f, float)

/* One kernel: NAME, I/O sample type IO, arithmetic type T (suffix SFX). Per channel: all but the
 * last (up to) two frames go through the block loop; those last frames, when a history is
 * wanted, go through record_frame so the boundary histories end up holding the last two samples
 * of the call (one-frame calls shift in one sample). */
#define FX_DEFINE_KERNEL(NAME, IO, T, SFX)                                                         \
  void NAME(const T *coef, T *state, double *hist, int K, int kstride, IO *data, size_t frames,    \
            int channels)                                                                          \
  {                                                                                                \
    fx_fpmode_t mode;                                                                              \
    T buf[FX_BLOCK];                                                                               \
    const size_t C = (size_t) channels;                                                            \
    if (frames == 0 || channels <= 0)                                                              \
      return;                                                                                      \
    const size_t tail = hist ? (frames < 2 ? frames : 2) : 0;                                      \
    const size_t body = frames - tail;                                                             \
    fpmode_enter(&mode);                                                                           \
    for (size_t ch = 0; ch < C; ch++) {                                                            \
      T *st = state + ch * (size_t) kstride * 2;                                                   \
      for (size_t f0 = 0; f0 < body; f0 += FX_BLOCK) {                                             \
        const size_t n = body - f0 < FX_BLOCK ? body - f0 : FX_BLOCK;                              \
        IO *p = data + f0 * C + ch;                                                                \
        for (size_t i = 0; i < n; i++)                                                             \
          buf[i] = (T) p[i * C];                                                                   \
        cascade_##SFX(coef, st, K, buf, n);                                                        \
        for (size_t i = 0; i < n; i++)                                                             \
          p[i * C] = (IO) buf[i];                                                                  \
      }                                                                                            \
      if (tail) {                                                                                  \
        double *h = hist + ch * ((size_t) kstride + 1) * 2;                                        \
        for (size_t i = body; i < frames; i++) {                                                   \
          IO *p = data + i * C + ch;                                                               \
          *p = (IO) record_frame_##SFX(coef, st, K, h, (T) *p);                                    \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    fpmode_leave(&mode);                                                                           \
  }

/* The three kernels (declared in kernel.h). */
FX_DEFINE_KERNEL(fx_kernel_scalar_f64, double, double, d)
FX_DEFINE_KERNEL(fx_kernel_scalar_f32_d, float, double, d)
FX_DEFINE_KERNEL(fx_kernel_scalar_f32_s, float, float, f)
