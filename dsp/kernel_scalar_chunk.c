/* gst-fx — the portable chunked SOS cascade kernels (kernel_chunk.h with one lane): the chunk
 * arithmetic without vectors, for the baseline instruction set. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "kernel.h"

/* One lane: a vector is a number. a*b + c is never contracted (C11's default -ffp-contract=off in
 * GCC, and no FMA in the baseline target), the same in the block and per-sample code. */
#define K_W 1
#define K_SET1(s) (s)
#define K_ZERO() 0
#define K_LOAD(p) (*(p))
#define K_STORE(p, v) (*(p) = (v))
#define K_FMA(a, b, c) ((a) * (b) + (c))
#define K_MUL(a, b) ((a) * (b))
#define K_ADD(a, b) ((a) + (b))
#define K_SUB(a, b) ((a) - (b))
#define K_SFMA(a, b, c) ((a) * (b) + (c))
#define K_CK_NV 4
#define K_LOADIO(p) ((K_T) * (p))
#define K_STOREIO(p, v) (*(p) = (K_IO) (v))
#define K_CK_TR1(r) ((void) (r)) /* one lane: nothing to transpose */
/* the chunk wavefront's lane operations, on one lane */
#define K_VM int
#define K_ROT(v) (v)
#define K_INS0(a, b) (b)
#define K_MASK(ki, lo, hi) ((lo) < (ki) && (ki) <= (hi))
#define K_SEL(m, a, b) ((m) ? (a) : (b))
#define K_WSEL_T int
#define K_WSEL_MAKE(l) (l)
#define K_WEXTRACT(v, s) ((void) (s), (v))

#define K_FLAVOUR_F64 1
#define K_T double
#define K_V double
#define K_IO double
#define K_SFX scalar_f64
#define K_CHUNK_NAME fx_kernel_scalar_f64_chunk
#include "kernel_chunk.h"
#undef K_FLAVOUR_F64
#undef K_T
#undef K_V
#undef K_IO
#undef K_SFX
#undef K_CHUNK_NAME

#define K_FLAVOUR_F32_D 1
#define K_T double
#define K_V double
#define K_IO float
#define K_SFX scalar_f32_d
#define K_CHUNK_NAME fx_kernel_scalar_f32_d_chunk
#include "kernel_chunk.h"
#undef K_FLAVOUR_F32_D
#undef K_T
#undef K_V
#undef K_IO
#undef K_SFX
#undef K_CHUNK_NAME

#define K_FLAVOUR_F32_S 1
#define K_T float
#define K_V float
#define K_IO float
#define K_SFX scalar_f32_s
#define K_CHUNK_NAME fx_kernel_scalar_f32_s_chunk
#include "kernel_chunk.h"
