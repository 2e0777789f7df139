/* gst-fx — the AVX-512 kernel's 256-bit range function, F64 streams (kernel_x256.h, the AVX2
 * kernel's code, compiled with the AVX-512 flags: 32 vector registers, so larger register-resident
 * groups than AVX2's). Only fx_kernel_avx512_f64 calls it (kernel_avx512.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define K_FLAVOUR_F64 1
#define K_SFX avx512n_f64
#define K_RANGE fx_range_avx512n_f64
#define K_X256_CVG_D 4
#define K_X256_CVG_F 8
#define K_CHUNK_NAME fx_kernel_avx512_f64_chunk
#define K_CK_SUB 1 /* kernel_chunk.h, "Two forms": 32 registers */
#include "kernel_x256.h"
