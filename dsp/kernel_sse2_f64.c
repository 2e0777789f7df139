/* gst-fx — SSE2 SOS cascade kernel, F64 streams (kernel_sse2.h; compiled with -msse2).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define K_FLAVOUR_F64 1
#define K_NAME fx_kernel_sse2_f64
#define K_SFX sse2_f64
#define K_RANGE fx_range_sse2_f64
#define K_CHUNK_NAME fx_kernel_sse2_f64_chunk
#include "kernel_sse2.h"
