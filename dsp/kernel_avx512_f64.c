/* gst-fx — AVX-512 SOS cascade kernel, F64 streams (kernel_avx512.h; compiled with the AVX-512
 * flags). Ranges of up to half a vector go to fx_range_avx512n_f64 (kernel_avx512n_f64.c).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define K_FLAVOUR_F64 1
#define K_NAME fx_kernel_avx512_f64
#define K_SFX avx512_f64
#define K_RANGE fx_range_avx512_f64
#define K_NARROW_RANGE fx_range_avx512n_f64
#include "kernel_avx512.h"
