/* gst-fx — CUDA cascade kernels, written once for two compilers. No GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The kernel bodies below are plain C with a thread index argument: kernels.cu wraps them in
 * __global__ functions for nvcc (one thread per channel), and the test-only fake driver
 * (tests/cuda/fakecuda.c) runs the very same bodies on the CPU, thread by thread, so the host
 * side of the backend (staging, mirrors, graphs, faults) is exercised on machines without a GPU.
 *
 * Sequential kernel: one thread per channel runs ALL K sections of the cascade over the whole
 * buffer in one launch, with the recurrence dsp/kernel.h documents (TDF-II,
 * y = b0 x + z1; z1 = (b1 x + z2) - a1 y; z2 = b2 x - a2 y), the state in a per-thread array and
 * the boundary history of the last two frames recorded as dsp/kernel.h describes. All indexing is
 * 64-bit. Layouts are those of dsp/kernel.h: coef [kstride][5], state [C][kstride][2],
 * hist [C][kstride+1][2] (double), data [frames][C] interleaved; the launch runs sections
 * k0 .. k0+K-1. Checkpoints: when ctl[i] (read from device memory, so that a replayed graph
 * picks up new positions with the input copy) is non-zero, the state after ctl[i] frames is also
 * stored into snap[i] (the engine keeps such states to re-run earlier stages; dsp/cascade.c).
 * Device addresses travel as 64-bit integers so that the argument block has the
 * same layout in C and CUDA. */
#ifndef FX_CUDA_KERNELS_H
#define FX_CUDA_KERNELS_H

#include <stdint.h>

#ifdef __CUDACC__
#define FXK_DEV __device__ __forceinline__
#else
#define FXK_DEV static inline
#endif

/* Sections one launch can hold in its per-thread state; longer cascades are declined (they run
 * on the CPU). */
#define FXK_KMAX 128
/* Threads per block of the sequential kernel. */
#define FXK_SEQ_BLOCK 128

typedef struct {
  uint64_t coef;    /* T [kstride][5] */
  uint64_t state;   /* T [C][kstride][2] */
  uint64_t hist;    /* double [C][kstride+1][2] */
  uint64_t data;    /* IO [frames][C] */
  uint64_t frames;  /* per channel */
  uint64_t ctl;     /* uint64_t [2]: checkpoint positions for this call (0: none), see snap */
  uint64_t snap[2]; /* T [C][kstride][2]: the state after ctl[i] frames (sections k0..k0+K-1) */
  int32_t channels, k0, K, kstride;
} fxk_seq_args_t;

/* Kernel names in the fatbin (extern "C"), indexed by fxk_variant_t. */
typedef enum {
  FXK_F64 = 0, /* F64 stream, double arithmetic */
  FXK_F32D,    /* F32 stream, double arithmetic */
  FXK_F32S,    /* F32 stream, float arithmetic */
  FXK_NVARIANTS
} fxk_variant_t;

#define FXK_SEQ_NAMES                                                                              \
  {                                                                                                \
    "fxk_seq_f64", "fxk_seq_f32d", "fxk_seq_f32s"                                                  \
  }

#define FXK_STEP(c, v, z, s)                                                                       \
  do {                                                                                             \
    const T y_ = (c)[0] * (v) + (z)[2 * (s)];                                                      \
    (z)[2 * (s)] = ((c)[1] * (v) + (z)[2 * (s) + 1]) - (c)[3] * y_;                                \
    (z)[2 * (s) + 1] = (c)[2] * (v) - (c)[4] * y_;                                                 \
    (v) = y_;                                                                                      \
  } while (0)

/* After frame i: the checkpoint copies of the state. */
#define FXK_SNAP(i)                                                                                \
  do {                                                                                             \
    if ((i) + 1 == cut0)                                                                           \
      for (int s = 0; s < 2 * K; s++)                                                              \
        s0[s] = z[s];                                                                              \
    if ((i) + 1 == cut1)                                                                           \
      for (int s = 0; s < 2 * K; s++)                                                              \
        s1[s] = z[s];                                                                              \
  } while (0)

#define FXK_DEFINE_SEQ(SFX, IO, TT)                                                                \
  FXK_DEV void fxk_seq_body_##SFX(const fxk_seq_args_t *a, int64_t ch)                             \
  {                                                                                                \
    typedef TT T;                                                                                  \
    if (ch >= (int64_t) a->channels)                                                               \
      return;                                                                                      \
    const int K = a->K;                                                                            \
    const int64_t C = a->channels, ks = a->kstride;                                                \
    const uint64_t frames = a->frames;                                                             \
    const T *coef = (const T *) (uintptr_t) a->coef + 5 * (int64_t) a->k0;                         \
    T *st = (T *) (uintptr_t) a->state + (ch * ks + a->k0) * 2;                                    \
    double *h = (double *) (uintptr_t) a->hist + (ch * (ks + 1) + a->k0) * 2;                      \
    IO *d = (IO *) (uintptr_t) a->data + ch;                                                       \
    const uint64_t *ctl = (const uint64_t *) (uintptr_t) a->ctl;                                   \
    const uint64_t cut0 = ctl[0], cut1 = ctl[1];                                                   \
    T *s0 = (T *) (uintptr_t) a->snap[0] + (ch * ks + a->k0) * 2;                                  \
    T *s1 = (T *) (uintptr_t) a->snap[1] + (ch * ks + a->k0) * 2;                                  \
    T z[2 * FXK_KMAX];                                                                             \
    for (int s = 0; s < 2 * K; s++)                                                                \
      z[s] = st[s];                                                                                \
    const uint64_t body = frames < 2 ? 0 : frames - 2;                                             \
    for (uint64_t i = 0; i < body; i++) {                                                          \
      T v = (T) d[i * (uint64_t) C];                                                               \
      for (int s = 0; s < K; s++)                                                                  \
        FXK_STEP(coef + 5 * s, v, z, s);                                                           \
      d[i * (uint64_t) C] = (IO) v;                                                                \
      FXK_SNAP(i);                                                                                 \
    }                                                                                              \
    for (uint64_t i = body; i < frames; i++) {                                                     \
      T v = (T) d[i * (uint64_t) C];                                                               \
      for (int s = 0; s < K; s++) {                                                                \
        h[2 * s + 1] = h[2 * s];                                                                   \
        h[2 * s] = (double) v;                                                                     \
        FXK_STEP(coef + 5 * s, v, z, s);                                                           \
      }                                                                                            \
      h[2 * K + 1] = h[2 * K];                                                                     \
      h[2 * K] = (double) v;                                                                       \
      d[i * (uint64_t) C] = (IO) v;                                                                \
      FXK_SNAP(i);                                                                                 \
    }                                                                                              \
    for (int s = 0; s < 2 * K; s++)                                                                \
      st[s] = z[s];                                                                                \
  }

FXK_DEFINE_SEQ(f64, double, double)
FXK_DEFINE_SEQ(f32d, float, double)
FXK_DEFINE_SEQ(f32s, float, float)

#endif
