/* gst-fx — CUDA kernels (compiled by nvcc into the fatbin embedded in libfxcuda).
 * SPDX-License-Identifier: GPL-3.0-or-later
 * The bodies live in kernels.h (shared with the CPU-side fake driver of the tests). */
#include "kernels.h"

#define FXK_GLOBAL_SEQ(SFX)                                                                        \
  extern "C" __global__ void __launch_bounds__(FXK_SEQ_BLOCK) fxk_seq_##SFX(fxk_seq_args_t a)      \
  {                                                                                                \
    const int64_t ch = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;                            \
    fxk_seq_body_##SFX(&a, ch);                                                                    \
  }

FXK_GLOBAL_SEQ(f64)
FXK_GLOBAL_SEQ(f32d)
FXK_GLOBAL_SEQ(f32s)
