/* gst-fx — AVX2 + FMA SOS cascade kernel, F64 streams (kernel_x256.h; compiled with -mavx2
 * -mfma): 16 vector registers, so groups of 4 sections. SPDX-License-Identifier: GPL-3.0-or-later
 */
#define K_FLAVOUR_F64 1
#define K_NAME fx_kernel_avx2_f64
#define K_SFX avx2_f64
#define K_RANGE fx_range_avx2_f64
#define K_X256_CVG_D 4
#define K_X256_CVG_F 4
#define K_CHUNK_NAME fx_kernel_avx2_f64_chunk
#include "kernel_x256.h"
