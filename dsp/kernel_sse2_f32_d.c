/* gst-fx — SSE2 SOS cascade kernel, F32 streams in double arithmetic (kernel_sse2.h; compiled with
 * -msse2). SPDX-License-Identifier: GPL-3.0-or-later */
#define K_FLAVOUR_F32_D 1
#define K_NAME fx_kernel_sse2_f32_d
#define K_SFX sse2_f32_d
#define K_RANGE fx_range_sse2_f32_d
#define K_CHUNK_NAME fx_kernel_sse2_f32_d_chunk
#include "kernel_sse2.h"
