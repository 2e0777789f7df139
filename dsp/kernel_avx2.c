/* gst-fx — AVX2 + FMA SOS cascade kernel (x86-64; this file alone is compiled with -mavx2 -mfma).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Instantiates kernel_simd.h with 256-bit vectors (kernel_x256.h): 8 float lanes, 4 double lanes,
 * 16 vector registers, so groups of 4 sections. (A wavefront on 128-bit vectors, whose lane
 * rotation stays within 128 bits, measured slower on Zen 4.) */
#define K_X256_NAME(f) avx2_##f
#define K_X256_CVG_D 4
#define K_X256_CVG_F 4
#include "kernel_x256.h"

const fx_kernel_t fx_kernel_avx2 = {
    .name = "avx2",
    .f64 = avx2_f64,
    .f32_d = avx2_f32_d,
    .f32_s = avx2_f32_s,
};
