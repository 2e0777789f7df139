/* gst-fx — GPU timings for the CUDA benchmark (bench/cuda.c; built only into fx-bench-cuda).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FX_BENCH_CUDA_TIMING_H
#define FX_BENCH_CUDA_TIMING_H

#include <stddef.h>

#include "fxcuda.h"

/* Measured device-to-device copy bandwidth in bytes/s over `bytes`; 0 on failure. */
double fx_cuda_bench_d2d(size_t bytes, int reps);

/* Runs `reps` launches of the sequential kernel (scan = 0) or of the time-parallel scan kernel
 * (scan = 1) over data already on the device (frames x channels, K sections, F32 or F64 stream,
 * dbl arithmetic) and returns the mean seconds per launch measured with CUDA events; < 0 on
 * failure or an unsupported shape. */
double fx_cuda_bench_kernel(size_t frames, int channels, int K, fx_sample_format_t format, int dbl,
                            int scan, int reps);

#endif
