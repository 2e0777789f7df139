/* gst-fx — precomputed tables of the time-block kernel path (internal to libfxdsp). Pure C11.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The time-block path (kernel_simd.h) filters the frames of one or two channels as K_W / C
 * consecutive time blocks side by side in the vector lanes, every block but the first from zero
 * state, then corrects each block by the zero-input response (ZIR) of the cascade from the
 * block's true initial state s (a 2K vector laid out as the kernels' state, [K][2]):
 *     y[n] = y_zero_state[n] + C A^n s,        s_next = s_end_zero_state + A^len s,
 * A being the cascade's 2K x 2K state transition with zero input, C its output row. Only the
 * F32-with-double-arithmetic kernels take this path (kernel.h). A plan holds, for one coefficient
 * set, in double:
 *   Tt [2K][FX_TB_B]   column r = C A^r: the output after r zero-input steps from each unit
 *                      state (and interleaved for stereo);
 *   P0 [2K][2K]        A^FX_TB_B, row-major (to advance a ZIR state by one sub-block);
 *   powers A^(FX_TB_B 2^i), built on demand, to advance a state by a whole block (fx_tb_advance).
 * So a block of any length q * FX_TB_B needs only FX_TB_B table columns: at each sub-block
 * boundary the ZIR state advances by P0 (s <- A^B s) and the columns start again.
 *
 * Plans live in a small per-thread cache keyed by the coefficients' values (an LRU of
 * FX_TB_SLOTS entries), built when a coefficient set is first seen by a time-block call and freed
 * when the thread exits. No locking; allocation only when a new coefficient set is seen. */
#ifndef FX_KERNEL_TBLOCK_H
#define FX_KERNEL_TBLOCK_H

#include <stddef.h>

/* Sub-block length (columns of Tt); block lengths are multiples of it. */
#define FX_TB_B 64
/* Largest section count the time-block path takes, stereo (state vectors of 2 * FX_TB_KMAX) and
 * mono. */
#define FX_TB_KMAX 12
#define FX_TB_KMAX_MONO 10
/* Powers A^(FX_TB_B 2^i), i < FX_TB_NPOW: blocks of up to FX_TB_B (2^FX_TB_NPOW - 1) frames. */
#define FX_TB_NPOW 16
#define FX_TB_QMAX (((size_t) 1 << FX_TB_NPOW) - 1)

typedef struct {
  int K, n2;       /* sections, n2 = 2K */
  int npow;        /* powers built so far */
  double *Tt[2];   /* Tt[P-1]: [n2][FX_TB_B * P]: Tt[P-1][m][r * P + c] = (C A^r)[m] (P channels) */
  double *P0;      /* [n2][n2] A^FX_TB_B */
  long double *pw; /* [FX_TB_NPOW][n2][n2]: pw[i] = A^(FX_TB_B 2^i), extended precision */
} fx_tb_plan_t;

/* The plan of these K sections (coef [K][5]), from this thread's cache, built on a miss; NULL when
 * K is out of range or memory runs out. */
fx_tb_plan_t *fx_tb_plan(const double *coef, int K);

/* s <- A^(q FX_TB_B) s (s: n2 doubles); q <= FX_TB_QMAX. Builds the powers it needs. */
void fx_tb_advance(fx_tb_plan_t *p, size_t q, double *s);

#endif
