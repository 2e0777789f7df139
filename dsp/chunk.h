/* gst-fx — the chunked cascade's algebra, shared by the CPU kernels and the CUDA backend. Pure C11.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A chunked cascade cuts each channel into chunks of FX_CHUNK_L frames at fixed stream positions
 * (multiples of FX_CHUNK_L since the stream, or the last reset of the chunk records, began) and
 * filters many chunks side by side (in the vector lanes of a CPU kernel, in the threads of a GPU
 * kernel). Section by section, for one transposed-direct-form-II section with state z = (z1, z2):
 *   1. every chunk is filtered from the zero state: its zero-state output y0[n] and end state e;
 *   2. the true state at each chunk's start, the carry c, follows chunk by chunk in double:
 *          c_next = e + M c,       M = A^L,   A = [-a1 1; -a2 0]  (zero-input state transition),
 *      the CPU kernels two chunks at a time on the chunk grid (fx_chunk_carry2);
 *   3. each sample is corrected by the zero-input response from c:
 *          y[n] = y0[n] + h1[n] c1 + h2[n] c2,     (h1[n], h2[n]) = first row of A^n;
 *   and the corrected output is the next section's input. In double arithmetic this is the
 *   sequential cascade to rounding. In float arithmetic with the tables and carries in double (from
 *   the double coefficients), float's coefficient quantisation acts only within a chunk, so the
 *   result is more accurate than the sequential float cascade (docs/cascade.md, "Chunked
 *   kernels"). The zero-state recursion runs the transposed form (y = b0 x + z1;
 *   z1 <- b1 x - a1 y + z2; z2 <- b2 x - a2 y) or the state-space form of the same state
 *   (z1 <- sb1 x - a1 z1 + z2; z2 <- sb2 x - a2 z1), which rounds far less behind poles near z = 1
 *   with zeros there (high-pass sections); the tables are the same for both.
 *
 * The true state after p frames of a chunk (0 <= p < L) is z = zs + A^p c, zs the zero-state
 * recursion's state: A^p c = (h1[p] c1 + h2[p] c2, -a2 (h1[p-1] c1 + h2[p-1] c2)) for p >= 1
 * (fx_chunk_true_state()). A chunk record (fx_chunk_rec_t) keeps, per channel and section, zs, c
 * (with the first carry and end state of a pair half done) and p between calls, so a chunk cut by a
 * buffer boundary continues exactly: any split of a stream gives bit-identical output. */
#ifndef FX_CHUNK_H
#define FX_CHUNK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Frames per chunk. */
#ifndef FX_CHUNK_L
#define FX_CHUNK_L 64
#endif

/* One section's tables, from its double coefficients. */
typedef struct {
  double coef[5];            /* b0, b1, b2, a1, a2 the tables were built from */
  double M[4];               /* A^L, row-major */
  double M2[4];              /* A^2L = M M: the carry two chunks at a time (fx_chunk_carry2) */
  double h1[FX_CHUNK_L + 1]; /* h1[n] = (A^n)[0][0], n = 0 .. L */
  double h2[FX_CHUNK_L + 1]; /* h2[n] = (A^n)[0][1] */
  float h1f[FX_CHUNK_L + 1]; /* the same, rounded to float (float-arithmetic kernels) */
  float h2f[FX_CHUNK_L + 1];
  /* The input coefficients of the state-space form of the same recursion (kernel_chunk.h,
   * "Two forms"): sb[0] = b1 - a1 b0, sb[1] = b2 - a2 b0, in double and rounded to float. */
  double sb[2];
  float sbf[2];
  /* 1 where b0, b1, b2, sb[0] and sb[1] are each 0 or of a magnitude in [2^-60, 2^60]: the
   * kernels may scale them by powers of two up to 2^64 either way and stay clear of overflow and
   * the subnormal range in float (kernel_chunk.h, ck_norm). */
  int scalable;
} fx_chunk_sec_t;

/* One channel's record of one section between calls. All values are exact copies of what the
 * kernel's arithmetic type holds (float values convert to double exactly). */
typedef struct {
  double zs1, zs2; /* the zero-state recursion's state inside the current chunk */
  /* Where `sub`, the substituted state-space recursion's state (kernel_chunk.h, "Two forms"): z1
   * one frame back and sb2 times the last input, from which zs2 = -a2 zp + zu (one rounding).
   * zs2 holds z2 either way, so a section whose numerator changes its form while its record
   * holds goes on from it. */
  double zp, zu;
  int sub;
  double c1, c2; /* the carry: the true state at the current chunk's start */
  /* The carries go two chunks at a time (fx_chunk_carry2): where the current chunk is the
   * second of its pair (`odd`), the carry and the zero-state end state of the pair's first. */
  double cp1, cp2, ep1, ep2;
  int odd;
  double st1, st2; /* the true state the kernel last wrote to the caller's state array */
  int phase;       /* frames of the current chunk done (0 .. L-1) */
  int valid;       /* 0: restart from the caller's state at the next call */
  int t; /* zs and c are 2^t times the cascade's (the kernels' pass scale, kernel_chunk.h) */
} fx_chunk_rec_t;

/* The tables of a section with coefficients coef[5] (b0, b1, b2, a1, a2; a0 == 1). */
void fx_chunk_sec_build(fx_chunk_sec_t *p, const double *coef);

/* c <- w + M c for a 2x2 matrix M (row-major), in double: the carries below. */
static inline void fx_chunk_mstep(const double *M, double w1, double w2, double *c1, double *c2)
{
  const double n1 = w1 + (M[0] * *c1 + M[1] * *c2);
  const double n2 = w2 + (M[2] * *c1 + M[3] * *c2);
  *c1 = n1;
  *c2 = n2;
}

/* The carry across one chunk: c <- e + M c, in double. The CPU kernels evaluate the same
 * expression with their instruction set's FMA where it has one (kernel_chunk.h, ck_carry), one
 * expression for every path of a kernel, so that a chunk's carry does not depend on which path
 * completed it; this plain form is the reference (and the GPU kernels' starting point). */
static inline void fx_chunk_carry(const fx_chunk_sec_t *p, double e1, double e2, double *c1,
                                  double *c2)
{
  fx_chunk_mstep(p->M, e1, e2, c1, c2);
}

/* The carry over a pair of chunks n, n + 1 (n even since the chunk grid began), from chunk n's
 * carry c and the two chunks' zero-state end states e(n), e(n+1):
 *   c(n+2) = (e(n+1) + M e(n)) + M2 c(n),
 * where chunk by chunk it is c(n+2) = e(n+1) + M (e(n) + M c(n)): the same sum, and the carries
 * wait on each other once per pair, not once per chunk (the pair's middle carry, c(n+1) =
 * fx_chunk_carry() of c(n), branches off). w = e(n+1) + M e(n) is fx_chunk_carry() of e(n). */
static inline void fx_chunk_carry2(const fx_chunk_sec_t *p, double w1, double w2, double *c1,
                                   double *c2)
{
  fx_chunk_mstep(p->M2, w1, w2, c1, c2);
}

/* The true state p frames into a chunk (z = zs + A^p c), in double. */
static inline void fx_chunk_true_state(const fx_chunk_sec_t *p, int phase, double zs1, double zs2,
                                       double c1, double c2, double *z1, double *z2)
{
  if (phase == 0) {
    *z1 = zs1 + c1;
    *z2 = zs2 + c2;
    return;
  }
  *z1 = zs1 + (p->h1[phase] * c1 + p->h2[phase] * c2);
  *z2 = zs2 - p->coef[4] * (p->h1[phase - 1] * c1 + p->h2[phase - 1] * c2);
}

#ifdef __cplusplus
}
#endif

#endif
