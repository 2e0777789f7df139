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
  /* time-parallel scan kernel only (see below) */
  uint64_t pw;      /* double [lookback + 1][2K][2K]: A^(m chunk), m = 0 .. lookback */
  uint64_t work;    /* fxk_work layout: flags, aggregates, inclusive states, block counter */
  uint64_t chunk;   /* frames per chunk */
  uint64_t nchunks; /* chunks per channel */
  int32_t channels, k0, K, kstride;
  int32_t lookback; /* chunks a thread may look back over aggregates before it waits */
  int32_t pad_;
} fxk_seq_args_t;

/* Time-parallel scan kernel: sections up to FXK_SCAN_KMAX (state vectors of 2K <= 32). */
#define FXK_SCAN_KMAX 16
#define FXK_SCAN_N2 (2 * FXK_SCAN_KMAX)
#define FXK_SCAN_BLOCK 128
/* ctl[2]: the call's epoch (flags of older calls do not count); ctl[3]: the block counter's value
 * when this launch started (blocks take their index from an atomic counter, in launch order). */

/* Workspace of the scan for T threads (channels x chunks), state vectors of n2 doubles:
 *   uint32_t flags[T] (epoch << 2 | 1: aggregate ready, | 2: inclusive state ready), padded to
 *   8 bytes; double agg[T][n2]; double inc[T][n2]; uint64_t counter. */
#define FXK_WORK_FLAGS(T) ((((uint64_t) (T) *4) + 7) & ~(uint64_t) 7)
#define FXK_WORK_BYTES(T, n2) (FXK_WORK_FLAGS(T) + 2 * (uint64_t) (T) * (uint64_t) (n2) *8 + 8)

/* Kernel names in the fatbin (extern "C"), indexed by fxk_variant_t. */
typedef enum {
  FXK_F64 = 0, /* F64 stream, double arithmetic */
  FXK_F32D,    /* F32 stream, double arithmetic */
  FXK_F32S,    /* F32 stream, float arithmetic */
  FXK_NVARIANTS
} fxk_variant_t;

/* Kernels: fxk_<kind>_<variant>_k<KC>, kind seq (KC = 0 .. FXK_SPEC, 0: any K up to FXK_KMAX)
 * or scan (KC = 1 .. FXK_SPEC); the host picks KC = K when K <= FXK_SPEC, else 0. */
#define FXK_SPEC 16
#define FXK_VARIANT_NAMES                                                                          \
  {                                                                                                \
    "f64", "f32d", "f32s"                                                                          \
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

#define FXK_DEFINE_SEQ(SFX, IO, TT, KC)                                                            \
  FXK_DEV void fxk_seq_body_##SFX##_##KC(const fxk_seq_args_t *a, int64_t ch)                      \
  {                                                                                                \
    typedef TT T;                                                                                  \
    if (ch >= (int64_t) a->channels)                                                               \
      return;                                                                                      \
    const int K = KC > 0 ? KC : a->K;                                                              \
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
    T z[KC > 0 ? 2 * KC : 2 * FXK_KMAX];                                                           \
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

/* Bodies with the section count fixed at compile time (KC = 1 .. 16: the loops over sections
 * unroll and the state stays in registers) and one for any K (KC = 0, state in local memory).
 * Each becomes its own kernel (own register allocation), named by fxk_kernel_name(). */
#define FXK_SPECIALISE(DEF, SFX, IO, TT)                                                           \
  DEF(SFX, IO, TT, 1)                                                                              \
  DEF(SFX, IO, TT, 2)                                                                              \
  DEF(SFX, IO, TT, 3)                                                                              \
  DEF(SFX, IO, TT, 4)                                                                              \
  DEF(SFX, IO, TT, 5)                                                                              \
  DEF(SFX, IO, TT, 6)                                                                              \
  DEF(SFX, IO, TT, 7)                                                                              \
  DEF(SFX, IO, TT, 8)                                                                              \
  DEF(SFX, IO, TT, 9)                                                                              \
  DEF(SFX, IO, TT, 10)                                                                             \
  DEF(SFX, IO, TT, 11)                                                                             \
  DEF(SFX, IO, TT, 12)                                                                             \
  DEF(SFX, IO, TT, 13)                                                                             \
  DEF(SFX, IO, TT, 14)                                                                             \
  DEF(SFX, IO, TT, 15)                                                                             \
  DEF(SFX, IO, TT, 16)

#define FXK_DEFINE_SEQ_ALL(SFX, IO, TT)                                                            \
  FXK_SPECIALISE(FXK_DEFINE_SEQ, SFX, IO, TT)                                                      \
  FXK_DEFINE_SEQ(SFX, IO, TT, 0)

FXK_DEFINE_SEQ_ALL(f64, double, double)
FXK_DEFINE_SEQ_ALL(f32d, float, double)
FXK_DEFINE_SEQ_ALL(f32s, float, float)

/* Memory ordering between the threads of the look-back. On the CPU (the tests' fake driver runs
 * threads one after the other, in order) a predecessor has always finished: waiting would never
 * end, so it aborts. */
#ifdef __CUDACC__
#define FXK_FENCE() __threadfence()
#define FXK_LOAD_FLAG(p) (*(volatile const uint32_t *) (p))
#define FXK_STORE_FLAG(p, v) atomicExch((unsigned int *) (p), (unsigned int) (v))
#define FXK_LOAD_VEC(p) (*(volatile const double *) (p))
#else
#define FXK_FENCE() ((void) 0)
#define FXK_LOAD_FLAG(p) (*(p))
#define FXK_STORE_FLAG(p, v) (*(p) = (uint32_t) (v))
#define FXK_LOAD_VEC(p) (*(p))
#endif
#ifdef __CUDACC__
#define FXK_SPIN_CHECK(ready) ((void) 0)
#else
#include <stdlib.h>
#define FXK_SPIN_CHECK(ready)                                                                      \
  do {                                                                                             \
    if (!(ready))                                                                                  \
      abort();                                                                                     \
  } while (0)
#endif

/* acc += M v, M n2 x n2 row-major (double). Rows are not unrolled (registers). */
#ifdef __CUDACC__
#define FXK_NO_UNROLL _Pragma("unroll 1")
#else
#define FXK_NO_UNROLL
#endif
FXK_DEV void fxk_matvec_add(double *acc, const double *M, const double *v, int n2)
{
  FXK_NO_UNROLL
  for (int r = 0; r < n2; r++) {
    double t = 0;
    for (int c = 0; c < n2; c++)
      t += M[r * n2 + c] * v[c];
    acc[r] += t;
  }
}

/* Time-parallel scan kernel, thread t = channel * nchunks + chunk j (chunks of `chunk` frames,
 * the last one shorter). Each thread
 *   A. filters its chunk from the zero state and publishes the end state e_j (its aggregate);
 *      chunk 0 starts from the cascade's state instead and publishes its true end state;
 *   B. gets its incoming state s_j = S_{j-1} by decoupled look-back: walking back over the
 *      chunks k < j of its channel, acc += A^((j-1-k) chunk) e_k while only aggregates are
 *      ready, until a chunk's inclusive state S_k is ready (acc += A^(...) S_k) or the
 *      precomputed powers run out (then it waits for that chunk's inclusive state); then it
 *      publishes S_j = A^chunk s_j + e_j;
 *   C. filters its chunk again from s_j, writing the output (and the boundary history, the
 *      checkpoints and the final state where they fall in its chunk).
 * The state vector is [K][2] (z1, z2 per section), the recurrence that of the sequential kernel.
 * Chunk 0 does A and C in one pass. One launch per buffer whatever K. */
#define FXK_DEFINE_SCAN(SFX, IO, TT, KC)                                                           \
  FXK_DEV void fxk_scan_body_##SFX##_##KC(const fxk_seq_args_t *a, uint64_t t)                     \
  {                                                                                                \
    typedef TT T;                                                                                  \
    const uint64_t nch = a->nchunks, L = a->chunk, frames = a->frames;                             \
    if (t >= nch * (uint64_t) a->channels)                                                         \
      return;                                                                                      \
    const int64_t ch = (int64_t) (t / nch);                                                        \
    const uint64_t j = t % nch;                                                                    \
    const int K = KC, n2 = 2 * KC;                                                                 \
    const int64_t C = a->channels, ks = a->kstride;                                                \
    const T *coef = (const T *) (uintptr_t) a->coef + 5 * (int64_t) a->k0;                         \
    T *st = (T *) (uintptr_t) a->state + (ch * ks + a->k0) * 2;                                    \
    double *h = (double *) (uintptr_t) a->hist + (ch * (ks + 1) + a->k0) * 2;                      \
    IO *d = (IO *) (uintptr_t) a->data + ch;                                                       \
    const uint64_t *ctl = (const uint64_t *) (uintptr_t) a->ctl;                                   \
    const uint64_t cut0 = ctl[0], cut1 = ctl[1];                                                   \
    const uint32_t epoch = (uint32_t) ctl[2];                                                      \
    T *s0 = (T *) (uintptr_t) a->snap[0] + (ch * ks + a->k0) * 2;                                  \
    T *s1 = (T *) (uintptr_t) a->snap[1] + (ch * ks + a->k0) * 2;                                  \
    const uint64_t TT_ = nch * (uint64_t) C;                                                       \
    uint32_t *flags = (uint32_t *) (uintptr_t) a->work;                                            \
    double *agg = (double *) (uintptr_t) (a->work + FXK_WORK_FLAGS(TT_));                          \
    double *inc = agg + TT_ * (uint64_t) n2;                                                       \
    const double *pw = (const double *) (uintptr_t) a->pw;                                         \
    const uint64_t f0 = j * L, f1 = j + 1 == nch ? frames : f0 + L;                                \
    const uint64_t body = frames < 2 ? 0 : frames - 2;                                             \
    T z[2 * KC];                                                                                   \
    double e[2 * KC], acc[2 * KC];                                                                 \
    /* A: from zero state (chunk 0: from the cascade's state, then it is done) */                  \
    for (int s = 0; s < n2; s++)                                                                   \
      z[s] = j == 0 ? st[s] : (T) 0;                                                               \
    if (j > 0) {                                                                                   \
      for (uint64_t i = f0; i < f1; i++) {                                                         \
        T v = (T) d[i * (uint64_t) C];                                                             \
        for (int s = 0; s < K; s++)                                                                \
          FXK_STEP(coef + 5 * s, v, z, s);                                                         \
      }                                                                                            \
      for (int s = 0; s < n2; s++)                                                                 \
        e[s] = (double) z[s];                                                                      \
      for (int s = 0; s < n2; s++)                                                                 \
        agg[t * (uint64_t) n2 + s] = e[s];                                                         \
      FXK_FENCE();                                                                                 \
      FXK_STORE_FLAG(&flags[t], (epoch << 2) | 1u);                                                \
      /* B: decoupled look-back over the chunks of this channel */                                 \
      for (int s = 0; s < n2; s++)                                                                 \
        acc[s] = 0;                                                                                \
      uint64_t k = t - 1;                                                                          \
      int m = 0;                                                                                   \
      for (;;) {                                                                                   \
        const uint32_t f = FXK_LOAD_FLAG(&flags[k]);                                               \
        const int ready = (f >> 2) == epoch ? (int) (f & 3u) : 0;                                  \
        if (ready == 2 || (ready == 1 && m < a->lookback)) {                                       \
          const double *src = (ready == 2 ? inc : agg) + k * (uint64_t) n2;                        \
          double v[2 * KC];                                                                        \
          FXK_FENCE();                                                                             \
          for (int s = 0; s < n2; s++)                                                             \
            v[s] = FXK_LOAD_VEC(&src[s]);                                                          \
          if (m == 0)                                                                              \
            for (int s = 0; s < n2; s++)                                                           \
              acc[s] += v[s];                                                                      \
          else                                                                                     \
            fxk_matvec_add(acc, pw + (uint64_t) m * n2 * n2, v, n2);                               \
          if (ready == 2)                                                                          \
            break;                                                                                 \
          m++;                                                                                     \
          k--;                                                                                     \
        }                                                                                          \
        FXK_SPIN_CHECK(ready);                                                                     \
      }                                                                                            \
      /* S_j = A^L s_j + e_j, published for the chunks after this one */                           \
      if (j + 1 < nch) {                                                                           \
        double S[2 * KC];                                                                          \
        for (int s = 0; s < n2; s++)                                                               \
          S[s] = e[s];                                                                             \
        fxk_matvec_add(S, pw + (uint64_t) n2 * n2, acc, n2);                                       \
        for (int s = 0; s < n2; s++)                                                               \
          inc[t * (uint64_t) n2 + s] = S[s];                                                       \
        FXK_FENCE();                                                                               \
        FXK_STORE_FLAG(&flags[t], (epoch << 2) | 2u);                                              \
      }                                                                                            \
      for (int s = 0; s < n2; s++)                                                                 \
        z[s] = (T) acc[s];                                                                         \
    }                                                                                              \
    /* C: the chunk from its true incoming state, writing the output */                            \
    for (uint64_t i = f0; i < f1; i++) {                                                           \
      T v = (T) d[i * (uint64_t) C];                                                               \
      if (i < body) {                                                                              \
        for (int s = 0; s < K; s++)                                                                \
          FXK_STEP(coef + 5 * s, v, z, s);                                                         \
      } else {                                                                                     \
        for (int s = 0; s < K; s++) {                                                              \
          h[2 * s + 1] = h[2 * s];                                                                 \
          h[2 * s] = (double) v;                                                                   \
          FXK_STEP(coef + 5 * s, v, z, s);                                                         \
        }                                                                                          \
        h[2 * K + 1] = h[2 * K];                                                                   \
        h[2 * K] = (double) v;                                                                     \
      }                                                                                            \
      d[i * (uint64_t) C] = (IO) v;                                                                \
      FXK_SNAP(i);                                                                                 \
      if (j == 0 && j + 1 < nch && i + 1 == f1) { /* chunk 0 publishes its true end state */       \
        for (int s = 0; s < n2; s++)                                                               \
          inc[t * (uint64_t) n2 + s] = (double) z[s];                                              \
        FXK_FENCE();                                                                               \
        FXK_STORE_FLAG(&flags[t], (epoch << 2) | 2u);                                              \
      }                                                                                            \
    }                                                                                              \
    if (j + 1 == nch)                                                                              \
      for (int s = 0; s < n2; s++)                                                                 \
        st[s] = z[s];                                                                              \
  }

/* the scan takes 1 .. FXK_SCAN_KMAX sections; the host never launches it for others */
FXK_SPECIALISE(FXK_DEFINE_SCAN, f64, double, double)
FXK_SPECIALISE(FXK_DEFINE_SCAN, f32d, float, double)
FXK_SPECIALISE(FXK_DEFINE_SCAN, f32s, float, float)

#endif
