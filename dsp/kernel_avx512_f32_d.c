/* gst-fx — AVX-512 SOS cascade kernel, F32 streams in double arithmetic (kernel_avx512.h; compiled
 * with the AVX-512 flags). Ranges of up to half a vector go to fx_range_avx512n_f32_d
 * (kernel_avx512n_f32_d.c). SPDX-License-Identifier: GPL-3.0-or-later */
#define K_FLAVOUR_F32_D 1
#define K_NAME fx_kernel_avx512_f32_d
#define K_SFX avx512_f32_d
#define K_RANGE fx_range_avx512_f32_d
#define K_NARROW_RANGE fx_range_avx512n_f32_d
#include "kernel_avx512.h"
