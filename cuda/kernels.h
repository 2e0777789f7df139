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
  uint64_t pw;      /* double [FXK_PW_COUNT][2K][2K]: the powers (see the scan) */
  uint64_t work;    /* fxk_work layout: flags, aggregates, inclusive states, block counter */
  uint64_t chunk;   /* frames per chunk */
  uint64_t nblocks; /* blocks (spans of FXK_SCAN_BLOCK chunks) per channel */
  int32_t channels, k0, K, kstride;
  int32_t pad_[2];
} fxk_seq_args_t;

/* Time-parallel scan kernel: sections up to FXK_SCAN_KMAX (state vectors of 2K <= 32). */
#define FXK_SCAN_KMAX 16
#define FXK_SCAN_N2 (2 * FXK_SCAN_KMAX)
/* ctl[2]: the call's epoch (flags of older calls do not count); ctl[3]: the block counter's value
 * when this launch started (blocks take their index from an atomic counter, in launch order). */

/* Workspace of the scan for T blocks (channels x spans), state vectors of n2 doubles:
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

/* Pointers that alias nothing else in a body: the compiler may keep loaded values in registers
 * across stores (C11 restrict; nvcc spells it __restrict__). */
#ifdef __CUDACC__
#define FXK_RESTRICT __restrict__
#define FXK_UNROLL _Pragma("unroll")
#define FXK_NO_UNROLL _Pragma("unroll 1")
#define FXK_UNROLL8 _Pragma("unroll 8")
#else
#define FXK_RESTRICT restrict
#define FXK_UNROLL
#define FXK_NO_UNROLL
#define FXK_UNROLL8
#endif

/* Coefficients copied into registers once per thread when they fit (5 K values of T in at most
 * 320 bytes: K <= 8 in double, K <= 16 in float); otherwise read through a restrict pointer to
 * const (loop-invariant, the same address in every thread: L1 hits that the compiler may issue
 * ahead of the FMA chain). */
#define FXK_CREG(KC, T) ((KC) > 0 && (KC) *5 * sizeof(T) <= 320)
/* Frames the sequential kernel loads ahead: a register ring refilled one group ahead, so that the
 * loads of group g + 1 are in flight while group g runs through the sections. */
#define FXK_PF 8

/* One section step. c: coefficient array (b0 b1 b2 a1 a2), v: input in, output out; z: state.
 * The chain from v to the next section's v is one FMA (y); the state updates hang off it. */
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

/* The coefficients of the launch: `cp` points at registers (FXK_CREG) or at device memory. */
#define FXK_COEFS(KC)                                                                              \
  const T *FXK_RESTRICT cg = (const T *) (uintptr_t) a->coef + 5 * (int64_t) a->k0;                \
  T cl[FXK_CREG(KC, T) ? 5 * (KC) : 1];                                                            \
  if (FXK_CREG(KC, T)) {                                                                           \
    FXK_UNROLL                                                                                     \
    for (int s = 0; s < (FXK_CREG(KC, T) ? 5 * (KC) : 1); s++)                                     \
      cl[s] = cg[s];                                                                               \
  }                                                                                                \
  const T *const cp = FXK_CREG(KC, T) ? cl : cg

#define FXK_DEFINE_SEQ(SFX, IO, TT, KC)                                                            \
  FXK_DEV void fxk_seq_body_##SFX##_##KC(const fxk_seq_args_t *a, int64_t ch)                      \
  {                                                                                                \
    typedef TT T;                                                                                  \
    if (ch >= (int64_t) a->channels)                                                               \
      return;                                                                                      \
    const int K = KC > 0 ? KC : a->K;                                                              \
    const int64_t C = a->channels, ks = a->kstride;                                                \
    const uint64_t frames = a->frames, uC = (uint64_t) C;                                          \
    FXK_COEFS(KC);                                                                                 \
    T *FXK_RESTRICT st = (T *) (uintptr_t) a->state + (ch * ks + a->k0) * 2;                       \
    double *FXK_RESTRICT h = (double *) (uintptr_t) a->hist + (ch * (ks + 1) + a->k0) * 2;         \
    IO *FXK_RESTRICT d = (IO *) (uintptr_t) a->data + ch;                                          \
    const uint64_t *FXK_RESTRICT ctl = (const uint64_t *) (uintptr_t) a->ctl;                      \
    const uint64_t cut0 = ctl[0], cut1 = ctl[1];                                                   \
    T *FXK_RESTRICT s0 = (T *) (uintptr_t) a->snap[0] + (ch * ks + a->k0) * 2;                     \
    T *FXK_RESTRICT s1 = (T *) (uintptr_t) a->snap[1] + (ch * ks + a->k0) * 2;                     \
    T z[KC > 0 ? 2 * KC : 2 * FXK_KMAX];                                                           \
    for (int s = 0; s < 2 * K; s++)                                                                \
      z[s] = st[s];                                                                                \
    const uint64_t body = frames < 2 ? 0 : frames - 2;                                             \
    uint64_t i = 0;                                                                                \
    if (body >= FXK_PF) {                                                                          \
      IO nx[FXK_PF];                                                                               \
      FXK_UNROLL                                                                                   \
      for (int u = 0; u < FXK_PF; u++)                                                             \
        nx[u] = d[(uint64_t) u * uC];                                                              \
      for (; i + FXK_PF <= body; i += FXK_PF) {                                                    \
        IO cx[FXK_PF];                                                                             \
        FXK_UNROLL                                                                                 \
        for (int u = 0; u < FXK_PF; u++)                                                           \
          cx[u] = nx[u];                                                                           \
        if (i + 2 * FXK_PF <= body) {                                                              \
          FXK_UNROLL                                                                               \
          for (int u = 0; u < FXK_PF; u++)                                                         \
            nx[u] = d[(i + FXK_PF + (uint64_t) u) * uC];                                           \
        }                                                                                          \
        FXK_UNROLL                                                                                 \
        for (int u = 0; u < FXK_PF; u++) {                                                         \
          T v = (T) cx[u];                                                                         \
          for (int s = 0; s < K; s++)                                                              \
            FXK_STEP(cp + 5 * s, v, z, s);                                                         \
          d[(i + (uint64_t) u) * uC] = (IO) v;                                                     \
          FXK_SNAP(i + (uint64_t) u);                                                              \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    for (; i < body; i++) {                                                                        \
      T v = (T) d[i * uC];                                                                         \
      for (int s = 0; s < K; s++)                                                                  \
        FXK_STEP(cp + 5 * s, v, z, s);                                                             \
      d[i * uC] = (IO) v;                                                                          \
      FXK_SNAP(i);                                                                                 \
    }                                                                                              \
    for (i = body; i < frames; i++) {                                                              \
      T v = (T) d[i * uC];                                                                         \
      for (int s = 0; s < K; s++) {                                                                \
        h[2 * s + 1] = h[2 * s];                                                                   \
        h[2 * s] = (double) v;                                                                     \
        FXK_STEP(cp + 5 * s, v, z, s);                                                             \
      }                                                                                            \
      h[2 * K + 1] = h[2 * K];                                                                     \
      h[2 * K] = (double) v;                                                                       \
      d[i * uC] = (IO) v;                                                                          \
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

/* Memory ordering between the blocks of the look-back. On the CPU (the tests' fake driver runs
 * blocks one after the other, in order) a predecessor has always finished: waiting would never
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

/* The fake driver (which runs blocks in order, so that every earlier span has its inclusive
 * state) may pretend that a span `back` spans back has only its aggregate, to exercise the
 * look-back's longer walks; on the GPU this never applies. */
#ifndef FXK_HIDE_INCLUSIVE
#define FXK_HIDE_INCLUSIVE(back) 0
#endif

/* Block cooperation, written once for both compilers: FXK_ALL_THREADS(tid, statements) runs the
 * statements for every thread tid of the block, then a block barrier. On the GPU every thread
 * runs its own tid and meets the others at __syncthreads(); on the CPU (the fake driver calls a
 * block body once per block) a loop runs the threads one after the other, which is exactly a
 * barrier after the phase. Values that cross a phase live in the block context (shared memory
 * on the GPU), never in a thread's locals. */
#ifdef __CUDACC__
#define FXK_ALL_THREADS(tid, ...)                                                                  \
  do {                                                                                             \
    {                                                                                              \
      const int tid = (int) threadIdx.x;                                                           \
      __VA_ARGS__                                                                                  \
    }                                                                                              \
    __syncthreads();                                                                               \
  } while (0)
#else
#define FXK_ALL_THREADS(tid, ...)                                                                  \
  do {                                                                                             \
    for (int tid = 0; tid < FXK_SCAN_BLOCK; tid++) {                                               \
      __VA_ARGS__                                                                                  \
    }                                                                                              \
  } while (0)
#endif
/* The same with a warp barrier (__syncwarp) for phases whose threads share data only within
 * their warp; on the CPU the same loop over the block's threads. */
#ifdef __CUDACC__
#define FXK_WARP_PHASE(tid, ...)                                                                   \
  do {                                                                                             \
    {                                                                                              \
      const int tid = (int) threadIdx.x;                                                           \
      __VA_ARGS__                                                                                  \
    }                                                                                              \
    __syncwarp();                                                                                  \
  } while (0)
#else
#define FXK_WARP_PHASE(tid, ...) FXK_ALL_THREADS(tid, __VA_ARGS__)
#endif

/* Time-parallel scan kernel, hierarchical. A block handles a span of FXK_SCAN_BLOCK chunks of
 * L = a->chunk frames of one channel (block b: channel b / nblocks, span b % nblocks; the last
 * span of a channel may end early, its chunks then shorter or empty). The state vector is [K][2]
 * (z1, z2 per section), the recurrence that of the sequential kernel; the zero-input transition
 * over one frame is A (2K x 2K), P = A^L over a chunk, Q = P^B over a span. Phases:
 *   A. each thread filters its chunk from the zero state: e_j, into S[j] (shared);
 *   B. up-sweep (Brent-Kung) of the affine maps x -> P x + e over the block: after it,
 *      S[2^k - 1] is the (zero-start) end state of chunks 0 .. 2^k - 1, S[B - 1] the block's
 *      aggregate;
 *   C. the block's incoming state x: the cascade's state for the first span of a channel;
 *      otherwise the block publishes its aggregate and does a decoupled look-back over the
 *      earlier spans of the channel, FXK_LB_WIN spans at a time (one thread per span):
 *      x = sum Q^m agg over the spans that have only their aggregate ready, up to the nearest
 *      one with its inclusive state (Q^m inc), which ends the walk (the first span of a channel
 *      always has one); then it publishes its inclusive state Q x + agg;
 *   D. the prefixes that start at chunk 0 take x in: S[2^k - 1] += P^(2^k) x (log B + 1 threads);
 *   E. down-sweep: S[j] becomes the true end state of chunk j for every j;
 *   F. each thread filters its chunk again from its true incoming state (S[j - 1], chunk 0: x),
 *      writing the output (and the boundary history, checkpoints and final state where they fall
 *      in its chunk).
 * Partial chunks occur only in the last span, where only empty chunks follow them: the maps of
 * full chunks are all the S values that are used. Cost per sample: two filtering passes plus
 * about 2 (2K)^2 / L multiply-adds of the scan. One launch per buffer whatever K. */
#define FXK_SCAN_BLOCK 128
#define FXK_SCAN_LOG2B 7
/* Spans of one look-back window (threads that read one span each) for K sections: as many as
 * the block has threads where the window's terms fit in shared memory beside S (48 KiB). */
#define FXK_LB_WIN(K) ((K) <= 8 ? 128 : (K) <= 12 ? 64 : 32)
/* powers in a->pw (double, n2 x n2 each): Q^m, m = 0 .. FXK_LB_WIN(K), then P^(2^k),
 * k = 0 .. log2 B */
#define FXK_PW_COUNT(K) (FXK_LB_WIN(K) + 1 + FXK_SCAN_LOG2B + 1)

/* Frames of each chunk a warp stages at a time through its tile in shared memory (FXK_TILE_IO):
 * the tile shares its space with the look-back window, which it fits for K = 4 (8) and K = 8
 * (16); where the window is smaller the tile adds at most 9 KiB (K = 1..3, 9..16). */
#define FXK_TW(K) ((K) > 4 && (K) <= 12 ? 16 : 8)
/* Coalesced loads and stores of the chunks (tile columns t0 .. t0 + tw - 1 of the warp's 32
 * chunks): element e = j 32 + lane of the tile, j = 0 .. tw - 1, is row r_ = e / tw (the warp's
 * chunk) and column c_ = e % tw, frame i_ (both linear in j: 32 / tw rows per j); with tw = L the
 * warp's accesses are consecutive frames, else runs of tw frames. `op` moves
 * tile[warp][r_][c_] <-> d[i_ C]. Unrolled 8: up to 8 loads in flight per thread (16 costs
 * registers: K = 8 in double then spills). */
#define FXK_TILE_IO(tid, t0, op)                                                                   \
  do {                                                                                             \
    const unsigned ln_ = (unsigned) (tid) % 32, rs_ = 32u >> tsh, c_ = ln_ & (tw - 1);             \
    unsigned r_ = ln_ >> tsh;                                                                      \
    uint64_t i_ = base + ((uint64_t) ((tid) / 32) * 32 + r_) * L + (t0) + c_;                      \
    const uint64_t di_ = (uint64_t) rs_ * L;                                                       \
    FXK_UNROLL8                                                                                    \
    for (unsigned j_ = 0; j_ < tw; j_++, r_ += rs_, i_ += di_)                                     \
      if (i_ < frames)                                                                             \
        op;                                                                                        \
  } while (0)
/* A hint: the 128-byte line at address p into L1 (no effect on the CPU). */
#ifdef __CUDACC__
#define FXK_PREFETCH_L1(p) asm volatile("prefetch.global.L1 [%0];" ::"l"(p))
#else
#define FXK_PREFETCH_L1(p) ((void) (p))
#endif
/* A thread's own array across phases: registers on the GPU; on the CPU, where the phases run the
 * threads in turn, one row per thread. */
#ifdef __CUDACC__
#define FXK_TSTATE(name, T, n) T name[n]
#define FXK_TS(name, tid) ((void) (tid), name)
#else
#define FXK_TSTATE(name, T, n) T name[FXK_SCAN_BLOCK][n]
#define FXK_TS(name, tid) (name[tid])
#endif

#define FXK_DEFINE_SCAN(SFX, IO, TT, KC)                                                           \
  typedef struct {                                                                                 \
    double S[FXK_SCAN_BLOCK][2 * KC + 1]; /* + 1: odd row stride, fewer bank conflicts */          \
    double x[2 * KC];                                                                              \
    union {                                                                                        \
      double lv[FXK_LB_WIN(KC)][2 * KC + 1];            /* the look-back window's terms (C) */     \
      IO tile[FXK_SCAN_BLOCK / 32][32][FXK_TW(KC) + 1]; /* per warp, A and F (FXK_TILE_IO) */      \
    } u;                                                                                           \
    int lf[FXK_LB_WIN(KC)]; /* their flags (1: aggregate, 2: inclusive, 0: unused) */              \
    int w, done;            /* windows walked; the walk ended */                                   \
  } fxk_scan_ctx_##SFX##_##KC;                                                                     \
  /* acc += M v, M (2K x 2K) row-major: column-outer, so that the 2K row sums are independent      \
   * chains (registers) */                                                                         \
  FXK_DEV void fxk_mv_##SFX##_##KC(double *acc, const double *FXK_RESTRICT M, const double *v)     \
  {                                                                                                \
    double t[2 * KC];                                                                              \
    FXK_UNROLL                                                                                     \
    for (int r = 0; r < 2 * KC; r++)                                                               \
      t[r] = 0;                                                                                    \
    FXK_NO_UNROLL                                                                                  \
    for (int c = 0; c < 2 * KC; c++) {                                                             \
      const double vc = v[c];                                                                      \
      FXK_UNROLL                                                                                   \
      for (int r = 0; r < 2 * KC; r++)                                                             \
        t[r] += M[r * 2 * KC + c] * vc;                                                            \
    }                                                                                              \
    FXK_UNROLL                                                                                     \
    for (int r = 0; r < 2 * KC; r++)                                                               \
      acc[r] += t[r];                                                                              \
  }                                                                                                \
  /* *acc += row . v over 2K terms (two partial sums) */                                           \
  FXK_DEV void fxk_dot_##SFX##_##KC(double *acc, const double *FXK_RESTRICT row, const double *v)  \
  {                                                                                                \
    double t0 = 0, t1 = 0;                                                                         \
    FXK_UNROLL                                                                                     \
    for (int c = 0; c < 2 * KC; c += 2) {                                                          \
      t0 += row[c] * v[c];                                                                         \
      t1 += row[c + 1] * v[c + 1];                                                                 \
    }                                                                                              \
    *acc += t0 + t1;                                                                               \
  }                                                                                                \
  FXK_DEV void fxk_scan_block_##SFX##_##KC(const fxk_seq_args_t *a, void *ctxp, uint64_t b)        \
  {                                                                                                \
    typedef TT T;                                                                                  \
    fxk_scan_ctx_##SFX##_##KC *const cx = (fxk_scan_ctx_##SFX##_##KC *) ctxp;                      \
    const uint64_t nb = a->nblocks, L = a->chunk, frames = a->frames;                              \
    if (b >= nb * (uint64_t) a->channels)                                                          \
      return; /* the whole block */                                                                \
    const int K = KC, n2 = 2 * KC, B = FXK_SCAN_BLOCK;                                             \
    const int64_t C = a->channels, ks = a->kstride, ch = (int64_t) (b / nb);                       \
    const uint64_t q = b % nb, base = q * L * (uint64_t) B, uC = (uint64_t) C;                     \
    /* the S values used (see B) */                                                                \
    const int need = q + 1 < nb ? B : (int) ((frames - base + L - 1) / L) - 1;                     \
    FXK_COEFS(KC);                                                                                 \
    T *FXK_RESTRICT st = (T *) (uintptr_t) a->state + (ch * ks + a->k0) * 2;                       \
    double *FXK_RESTRICT h = (double *) (uintptr_t) a->hist + (ch * (ks + 1) + a->k0) * 2;         \
    IO *FXK_RESTRICT d = (IO *) (uintptr_t) a->data + ch;                                          \
    const uint64_t *ctl = (const uint64_t *) (uintptr_t) a->ctl;                                   \
    const uint64_t cut0 = ctl[0], cut1 = ctl[1];                                                   \
    T *FXK_RESTRICT s0 = (T *) (uintptr_t) a->snap[0] + (ch * ks + a->k0) * 2;                     \
    T *FXK_RESTRICT s1 = (T *) (uintptr_t) a->snap[1] + (ch * ks + a->k0) * 2;                     \
    const uint64_t body = frames - 2; /* the host launches the scan for 2 frames or more */        \
    const size_t nn = (size_t) n2 * (size_t) n2;                                                   \
    const double *pwQ = (const double *) (uintptr_t) a->pw;                                        \
    const double *pwP = pwQ + (size_t) (FXK_LB_WIN(KC) + 1) * nn;                                  \
    const uint64_t TT_ = nb * uC;                                                                  \
    uint32_t *flags = (uint32_t *) (uintptr_t) a->work;                                            \
    double *agg = (double *) (uintptr_t) (a->work + FXK_WORK_FLAGS(TT_));                          \
    double *inc = agg + TT_ * (uint64_t) n2;                                                       \
    const uint32_t epoch = (uint32_t) ctl[2];                                                      \
    /* the chunks' frames pass through the warp's tile, FXK_TW(KC) frames of each chunk at a       \
     * time (tw of them when L is shorter, tsh = log2 tw) */                                       \
    const unsigned tw = L < FXK_TW(KC) ? (unsigned) L : FXK_TW(KC);                                \
    int tsh = 0;                                                                                   \
    while ((1u << tsh) < tw)                                                                       \
      tsh++;                                                                                       \
    FXK_TSTATE(zs, T, 2 * KC);                                                                     \
    /* the sweeps' powers P^(2^k) (one 2K-term row per task and level) into L1 now, while A        \
     * waits on its samples, rather than an L2 round trip at each of the ~14 levels */             \
    FXK_WARP_PHASE(tid, {                                                                          \
      const uintptr_t p0 = (uintptr_t) pwP & ~(uintptr_t) 127;                                     \
      const uintptr_t p1 = (uintptr_t) (pwP + (size_t) (FXK_SCAN_LOG2B + 1) * nn);                 \
      for (uintptr_t p = p0 + (uintptr_t) tid * 128; p < p1; p += 128 * FXK_SCAN_BLOCK)            \
        FXK_PREFETCH_L1(p);                                                                        \
    });                                                                                            \
    /* A: each chunk from the zero state */                                                        \
    FXK_WARP_PHASE(tid, {                                                                          \
      T *const z = FXK_TS(zs, tid);                                                                \
      for (int s = 0; s < n2; s++)                                                                 \
        z[s] = 0;                                                                                  \
    });                                                                                            \
    for (uint64_t t0 = 0; t0 < L; t0 += tw) {                                                      \
      FXK_WARP_PHASE(tid, { FXK_TILE_IO(tid, t0, cx->u.tile[tid / 32][r_][c_] = d[i_ * uC]); });   \
      FXK_WARP_PHASE(tid, {                                                                        \
        T *const z = FXK_TS(zs, tid);                                                              \
        const IO *row = cx->u.tile[tid / 32][tid % 32];                                            \
        const uint64_t f0 = base + (uint64_t) tid * L + t0;                                        \
        for (unsigned c = 0; c < tw && f0 + c < frames; c++) {                                     \
          T v = (T) row[c];                                                                        \
          FXK_UNROLL                                                                               \
          for (int s = 0; s < K; s++)                                                              \
            FXK_STEP(cp + 5 * s, v, z, s);                                                         \
        }                                                                                          \
      });                                                                                          \
    }                                                                                              \
    FXK_ALL_THREADS(tid, {                                                                         \
      const T *const z = FXK_TS(zs, tid);                                                          \
      for (int s = 0; s < n2; s++)                                                                 \
        cx->S[tid][s] = (double) z[s];                                                             \
    });                                                                                            \
    /* B: up-sweep; level k joins segments of dd = 2^k chunks: S[i] += P^dd S[i - dd] for          \
     * i = 2 dd m - 1 (read and written indices disjoint: in place). One (segment, row) task per   \
     * thread at a time, so that a level costs one 2K-term dot product per task. Only the S that   \
     * are used are computed: in the last span of a channel, those of the chunks before the last   \
     * chunk with frames; elsewhere all (S[B - 1] is the span's aggregate). */                     \
    for (int k = 0, dd = 1; dd < B; k++, dd *= 2)                                                  \
      FXK_ALL_THREADS(tid, {                                                                       \
        for (int w = tid; w < (B / (2 * dd)) * n2; w += B) {                                       \
          const int i = 2 * dd * (w / n2 + 1) - 1;                                                 \
          if (i < need)                                                                            \
            fxk_dot_##SFX##_##KC(&cx->S[i][w % n2],                                                \
                                 pwP + (size_t) k * nn + (size_t) (w % n2) * n2, cx->S[i - dd]);   \
        }                                                                                          \
      });                                                                                          \
    /* C: the span's incoming state x. The first span of a channel: the cascade's state. Others    \
     * publish their aggregate, then look back in windows of FXK_LB_WIN spans, one thread per      \
     * span of the window: each waits until its span has published (aggregates are published       \
     * right after B, so no wait depends on another look-back), and the window's terms             \
     * Q^m agg (Q^m inc for the nearest inclusive state, which ends the walk) are summed into x.   \
     */                                                                                            \
    FXK_ALL_THREADS(tid, {                                                                         \
      if (tid < n2)                                                                                \
        cx->x[tid] = q == 0 ? (double) st[tid] : 0.0;                                              \
      if (tid == 0) {                                                                              \
        cx->w = 0;                                                                                 \
        cx->done = q == 0;                                                                         \
        if (q > 0 && q + 1 < nb) {                                                                 \
          for (int s = 0; s < n2; s++)                                                             \
            agg[b * (uint64_t) n2 + s] = cx->S[B - 1][s];                                          \
          FXK_FENCE();                                                                             \
          FXK_STORE_FLAG(&flags[b], (epoch << 2) | 1u);                                            \
        }                                                                                          \
      }                                                                                            \
    });                                                                                            \
    while (!cx->done) {                                                                            \
      FXK_ALL_THREADS(tid, {                                                                       \
        const uint64_t back = (uint64_t) cx->w * FXK_LB_WIN(KC) + (uint64_t) tid + 1;              \
        if (tid < FXK_LB_WIN(KC)) {                                                                \
          int ready = 0;                                                                           \
          if (back <= q) { /* a span of this channel */                                            \
            const uint64_t kb = b - back;                                                          \
            for (;;) {                                                                             \
              const uint32_t f = FXK_LOAD_FLAG(&flags[kb]);                                        \
              ready = (f >> 2) == epoch ? (int) (f & 3u) : 0;                                      \
              if (ready == 2 && back < q && FXK_HIDE_INCLUSIVE(back))                              \
                ready = 1; /* (tests: as if only the aggregate were there yet) */                  \
              if (ready)                                                                           \
                break;                                                                             \
              FXK_SPIN_CHECK(ready);                                                               \
            }                                                                                      \
            const double *src = (ready == 2 ? inc : agg) + kb * (uint64_t) n2;                     \
            FXK_FENCE();                                                                           \
            for (int s = 0; s < n2; s++)                                                           \
              cx->u.lv[tid][s] = FXK_LOAD_VEC(&src[s]);                                            \
          }                                                                                        \
          cx->lf[tid] = ready;                                                                     \
        }                                                                                          \
      });                                                                                          \
      FXK_ALL_THREADS(tid, {                                                                       \
        if (tid < FXK_LB_WIN(KC) && cx->lf[tid]) { /* lv = Q^(distance - 1) lv */                  \
          double t[2 * KC];                                                                        \
          for (int s = 0; s < n2; s++)                                                             \
            t[s] = 0;                                                                              \
          fxk_mv_##SFX##_##KC(t, pwQ + (size_t) tid * nn, cx->u.lv[tid]);                          \
          for (int s = 0; s < n2; s++)                                                             \
            cx->u.lv[tid][s] = t[s];                                                               \
        }                                                                                          \
      });                                                                                          \
      FXK_ALL_THREADS(tid, {                                                                       \
        if (tid ==                                                                                 \
            0) { /* x += Q^(FXK_LB_WIN w) (the window's terms up to the nearest inclusive) */      \
          int j = FXK_LB_WIN(KC);                                                                  \
          for (int l = FXK_LB_WIN(KC) - 1; l >= 0; l--)                                            \
            if (cx->lf[l] == 2)                                                                    \
              j = l;                                                                               \
          double t[2 * KC];                                                                        \
          for (int s = 0; s < n2; s++)                                                             \
            t[s] = 0;                                                                              \
          for (int l = 0; l < FXK_LB_WIN(KC) && l <= j; l++)                                       \
            if (cx->lf[l])                                                                         \
              for (int s = 0; s < n2; s++)                                                         \
                t[s] += cx->u.lv[l][s];                                                            \
          for (int r = 0; r < cx->w; r++) {                                                        \
            double u[2 * KC];                                                                      \
            for (int s = 0; s < n2; s++)                                                           \
              u[s] = 0;                                                                            \
            fxk_mv_##SFX##_##KC(u, pwQ + (size_t) FXK_LB_WIN(KC) * nn, t);                         \
            for (int s = 0; s < n2; s++)                                                           \
              t[s] = u[s];                                                                         \
          }                                                                                        \
          for (int s = 0; s < n2; s++)                                                             \
            cx->x[s] += t[s];                                                                      \
          cx->w++;                                                                                 \
          cx->done = j < FXK_LB_WIN(KC);                                                           \
        }                                                                                          \
      });                                                                                          \
    }                                                                                              \
    /* the span's inclusive state Q x + agg, for the spans after it */                             \
    FXK_ALL_THREADS(tid, {                                                                         \
      if (tid == 0 && q + 1 < nb) {                                                                \
        double S[2 * KC];                                                                          \
        for (int s = 0; s < n2; s++)                                                               \
          S[s] = cx->S[B - 1][s];                                                                  \
        fxk_mv_##SFX##_##KC(S, pwQ + nn, cx->x);                                                   \
        for (int s = 0; s < n2; s++)                                                               \
          inc[b * (uint64_t) n2 + s] = S[s];                                                       \
        FXK_FENCE();                                                                               \
        FXK_STORE_FLAG(&flags[b], (epoch << 2) | 2u);                                              \
      }                                                                                            \
    });                                                                                            \
    /* D: the prefixes from chunk 0 (S[2^k - 1], 2^k chunks) take the incoming state in:           \
     * S[2^k - 1] += P^(2^k) x, k = 0 .. log2 B, one (k, row) task per thread */                   \
    FXK_ALL_THREADS(tid, {                                                                         \
      for (int w = tid; w < (FXK_SCAN_LOG2B + 1) * n2; w += B) {                                   \
        const int k = w / n2, i = (1 << k) - 1;                                                    \
        if (i < need)                                                                              \
          fxk_dot_##SFX##_##KC(&cx->S[i][w % n2], pwP + (size_t) k * nn + (size_t) (w % n2) * n2,  \
                               cx->x);                                                             \
      }                                                                                            \
    });                                                                                            \
    /* E: down-sweep; S[i] += P^dd S[i - dd] for i = 2 dd m + dd - 1, m >= 1 */                    \
    for (int k = FXK_SCAN_LOG2B - 2, dd = B / 4; dd >= 1; k--, dd /= 2)                            \
      FXK_ALL_THREADS(tid, {                                                                       \
        for (int w = tid; w < (B / (2 * dd) - 1) * n2; w += B) {                                   \
          const int i = 2 * dd * (w / n2 + 1) + dd - 1;                                            \
          if (i < need)                                                                            \
            fxk_dot_##SFX##_##KC(&cx->S[i][w % n2],                                                \
                                 pwP + (size_t) k * nn + (size_t) (w % n2) * n2, cx->S[i - dd]);   \
        }                                                                                          \
      });                                                                                          \
    /* F: each chunk from its true incoming state, writing the output (through the tile) */        \
    FXK_WARP_PHASE(tid, {                                                                          \
      const double *src = tid ? cx->S[tid - 1] : cx->x;                                            \
      T *const z = FXK_TS(zs, tid);                                                                \
      for (int s = 0; s < n2; s++)                                                                 \
        z[s] = (T) src[s];                                                                         \
    });                                                                                            \
    for (uint64_t t0 = 0; t0 < L; t0 += tw) {                                                      \
      FXK_WARP_PHASE(tid, { FXK_TILE_IO(tid, t0, cx->u.tile[tid / 32][r_][c_] = d[i_ * uC]); });   \
      FXK_WARP_PHASE(tid, {                                                                        \
        T *const z = FXK_TS(zs, tid);                                                              \
        IO *row = cx->u.tile[tid / 32][tid % 32];                                                  \
        const uint64_t f0 = base + (uint64_t) tid * L + t0;                                        \
        for (unsigned c = 0; c < tw && f0 + c < frames; c++) {                                     \
          const uint64_t i = f0 + c;                                                               \
          T v = (T) row[c];                                                                        \
          if (i < body) {                                                                          \
            FXK_UNROLL                                                                             \
            for (int s = 0; s < K; s++)                                                            \
              FXK_STEP(cp + 5 * s, v, z, s);                                                       \
          } else { /* history: frame frames-1 in slot 0, frames-2 in slot 1 */                     \
            const int o = i + 1 == frames ? 0 : 1;                                                 \
            for (int s = 0; s < K; s++) {                                                          \
              h[2 * s + o] = (double) v;                                                           \
              FXK_STEP(cp + 5 * s, v, z, s);                                                       \
            }                                                                                      \
            h[2 * K + o] = (double) v;                                                             \
          }                                                                                        \
          row[c] = (IO) v;                                                                         \
          FXK_SNAP(i);                                                                             \
        }                                                                                          \
      });                                                                                          \
      FXK_WARP_PHASE(tid, { FXK_TILE_IO(tid, t0, d[i_ * uC] = cx->u.tile[tid / 32][r_][c_]); });   \
    }                                                                                              \
    FXK_WARP_PHASE(tid, { /* the chunk with the last frame: the cascade's state */                 \
                          const T *const z = FXK_TS(zs, tid);                                      \
                          const uint64_t c0 = base + (uint64_t) tid * L;                           \
                          if (c0 < frames && c0 + L >= frames)                                     \
                            for (int s = 0; s < n2; s++)                                           \
                              st[s] = z[s];                                                        \
    });                                                                                            \
  }

/* the scan takes 1 .. FXK_SCAN_KMAX sections; the host never launches it for others */
FXK_SPECIALISE(FXK_DEFINE_SCAN, f64, double, double)
FXK_SPECIALISE(FXK_DEFINE_SCAN, f32d, float, double)
FXK_SPECIALISE(FXK_DEFINE_SCAN, f32s, float, float)

#endif
