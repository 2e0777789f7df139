/* gst-fx — CUDA kernels (compiled by nvcc into the fatbin embedded in libfxcuda).
 * SPDX-License-Identifier: GPL-3.0-or-later
 * The bodies live in kernels.h (shared with the CPU-side fake driver of the tests); here each
 * body becomes a kernel of its own, fxk_<kind>_<variant>_k<KC>. */
#include "kernels.h"

/* Sequential: one thread per channel. */
#define FXK_GLOBAL_SEQ(SFX, IO, TT, KC)                                                            \
  extern "C" __global__ void __launch_bounds__(FXK_SEQ_BLOCK)                                      \
      fxk_seq_##SFX##_k##KC(fxk_seq_args_t a)                                                      \
  {                                                                                                \
    const int64_t ch = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;                            \
    fxk_seq_body_##SFX##_##KC(&a, ch);                                                             \
  }

FXK_SPECIALISE(FXK_GLOBAL_SEQ, f64, double, double)
FXK_SPECIALISE(FXK_GLOBAL_SEQ, f32d, float, double)
FXK_SPECIALISE(FXK_GLOBAL_SEQ, f32s, float, float)
FXK_GLOBAL_SEQ(f64, double, double, 0)
FXK_GLOBAL_SEQ(f32d, float, double, 0)
FXK_GLOBAL_SEQ(f32s, float, float, 0)

/* Scan: a block per span of one channel, its context in shared memory. Blocks take their index
 * from a counter in the workspace, in the order they start, so a block only ever waits on blocks
 * that already run (forward progress of the look-back). */
#define FXK_GLOBAL_SCAN(SFX, IO, TT, KC)                                                           \
  extern "C" __global__ void __launch_bounds__(FXK_SCAN_BLOCK)                                     \
      fxk_scan_##SFX##_k##KC(fxk_seq_args_t a)                                                     \
  {                                                                                                \
    __shared__ fxk_scan_ctx_##SFX##_##KC ctx;                                                      \
    __shared__ unsigned long long blk;                                                             \
    if (threadIdx.x == 0) {                                                                        \
      const uint64_t T_ = a.nblocks * (uint64_t) a.channels;                                       \
      unsigned long long *ctr =                                                                    \
          (unsigned long long *) (uintptr_t) (a.work + FXK_WORK_FLAGS(T_) +                        \
                                              2 * T_ * (uint64_t) (2 * KC) * 8);                   \
      const uint64_t *ctl = (const uint64_t *) (uintptr_t) a.ctl;                                  \
      blk = atomicAdd(ctr, 1ULL) - ctl[3];                                                         \
    }                                                                                              \
    __syncthreads();                                                                               \
    fxk_scan_block_##SFX##_##KC(&a, &ctx, (uint64_t) blk);                                         \
  }

FXK_SPECIALISE(FXK_GLOBAL_SCAN, f64, double, double)
FXK_SPECIALISE(FXK_GLOBAL_SCAN, f32d, float, double)
FXK_SPECIALISE(FXK_GLOBAL_SCAN, f32s, float, float)
