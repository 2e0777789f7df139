/* gst-fx — A/B of two builds of one chunked kernel in one process (bench/ab-chunk.sh builds it).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Why: this benchmark machine (a shared VM) switches between two speeds 1.8x apart from minute to
 * minute, so two benchmark runs of two builds compare the machine's moods as much as the code.
 * Here both builds of the kernel (ab_a_chunk, ab_b_chunk: the same source file compiled from two
 * trees, its symbols renamed) run in one process, alternating every ~20 ms on the same input,
 * record and layout, for ROUNDS rounds; the ratio B/A of each round's per-call times is what is
 * reported, as a median with quartiles: both halves of a round see the same machine.
 *
 * Usage: fx-ab-chunk K C FRAMES DESIGN [ROUNDS]
 *   DESIGN: allpass (K all-pass sections, poles at radius 0.9, as fx-bench-kernels), seed (the
 *   seed chain: Butterworth high-pass 80 Hz order 4, low-pass 12 kHz order 8; K must be 6), or
 *   butter (a Butterworth low-pass of order 2K at 1 kHz); the sections are balanced as the engine
 *   installs them (fxc_build_coefs), since that decides which shapes the kernels specialise.
 * Prints one line: per-call medians and minima of A and B, and B/A with its quartiles. Only the
 * F32 float-arithmetic flavour (f32_s) is compared. */
#include "cascade_impl.h"
#include "chunk.h"
#include "ckbench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The two kernels, and each one's chunk tables and records (bench/ab_chunk_side.c: built with
 * its own tree's chunk.c and layout, opaque here). */
typedef void ab_fn_t(const float *coef, const void *ps, void *rec, float *state, double *hist,
                     int K, int kstride, float *data, size_t frames, int channels);
ab_fn_t ab_a_chunk, ab_b_chunk;
void *ab_a_tables(const double *coef, int K), *ab_b_tables(const double *coef, int K);
void *ab_a_records(size_t n), *ab_b_records(size_t n);

#define AB_MAX_ROUNDS 401

typedef struct {
  ab_fn_t **fn;
  const float *coef_f;
  void **ps, **rec;
  float **st;
  const float *x;
  float *y;
  int K;
  size_t F;
  int C;
} ab_ctx_t;

/* One call of kernel A (side 0) or B (side 1) on a fresh copy of the input. */
static void ab_call(void *p, int side)
{
  const ab_ctx_t *c = p;
  memcpy(c->y, c->x, c->F * (size_t) c->C * sizeof(float));
  c->fn[side](c->coef_f, c->ps[side], c->rec[side], c->st[side], NULL, c->K, c->K, c->y, c->F,
              c->C);
}

int main(int argc, char **argv)
{
  if (argc < 5) {
    fprintf(stderr, "usage: %s K C FRAMES allpass|seed|butter [ROUNDS]\n", argv[0]);
    return 2;
  }
  const int K = atoi(argv[1]), C = atoi(argv[2]);
  const size_t F = (size_t) atol(argv[3]);
  const int rounds = argc > 5 ? atoi(argv[5]) : 41;
  fx_sos_t sos[FX_DESIGN_MAX_SECTIONS];
  if (K < 1 || K > FX_DESIGN_MAX_SECTIONS || C < 1 || C > 64 || F < 1 || F > (1u << 20) ||
      rounds < 3 || rounds > AB_MAX_ROUNDS || !fxb_design(argv[4], K, sos)) {
    fprintf(stderr, "%s: bad arguments (seed needs K = 6)\n", argv[0]);
    return 2;
  }
  double coef[5 * FX_DESIGN_MAX_SECTIONS], ex[FX_DESIGN_MAX_SECTIONS + 1];
  float coef_f[5 * FX_DESIGN_MAX_SECTIONS];
  fxc_build_coefs(sos, K, 1.0, coef, ex);
  for (int i = 0; i < 5 * K; i++)
    coef_f[i] = (float) coef[i];
  void *ps[2] = {ab_a_tables(coef, K), ab_b_tables(coef, K)};
  void *rec[2] = {ab_a_records((size_t) (K * C)), ab_b_records((size_t) (K * C))};
  float *st[2] = {calloc((size_t) (2 * K * C), sizeof(float)),
                  calloc((size_t) (2 * K * C), sizeof(float))};
  float *x = aligned_alloc(64, (F * (size_t) C * sizeof(float) + 63) / 64 * 64);
  float *y = aligned_alloc(64, (F * (size_t) C * sizeof(float) + 63) / 64 * 64);
  if (!ps[0] || !ps[1] || !rec[0] || !rec[1] || !st[0] || !st[1] || !x || !y)
    return 1;
  uint64_t r = 0x9E3779B97F4A7C15ull; /* fixed noise: the same input for both */
  for (size_t i = 0; i < F * (size_t) C; i++) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    x[i] = (float) ((double) (r >> 11) / 9007199254740992.0 - 0.5);
  }
  ab_fn_t *fn[2] = {ab_a_chunk, ab_b_chunk};
  /* Do A and B compute the same? Four consecutive calls from fresh records, the output and the
   * state compared bit for bit (a speed change that keeps the arithmetic should say identical). */
  float *ya = aligned_alloc(64, (F * (size_t) C * sizeof(float) + 63) / 64 * 64);
  if (!ya)
    return 1;
  size_t ndiff = 0;
  double dmax = 0.0, amax = 0.0;
  for (int call = 0; call < 4; call++) {
    memcpy(ya, x, F * (size_t) C * sizeof(float));
    memcpy(y, x, F * (size_t) C * sizeof(float));
    fn[0](coef_f, ps[0], rec[0], st[0], NULL, K, K, ya, F, C);
    fn[1](coef_f, ps[1], rec[1], st[1], NULL, K, K, y, F, C);
    for (size_t i = 0; i < F * (size_t) C; i++) {
      ndiff += memcmp(&ya[i], &y[i], sizeof(float)) != 0;
      dmax = fmax(dmax, fabs((double) y[i] - (double) ya[i]));
      amax = fmax(amax, fabs((double) ya[i]));
    }
  }
  ndiff += memcmp(st[0], st[1], (size_t) (2 * K * C) * sizeof(float)) != 0;
  if (ndiff == 0)
    printf("A and B: bit-identical output and state over 4 calls\n");
  else
    printf(
        "A and B differ in %zu samples or states over 4 calls: max |B - A| %.3g (max |A| %.3g)\n",
        ndiff, dmax, amax);
  free(ya);
  static double t[2][AB_MAX_ROUNDS], ratio[AB_MAX_ROUNDS];
  ab_ctx_t ctx = {fn, coef_f, ps, rec, st, x, y, K, F, C};
  fxb_alternate(ab_call, &ctx, rounds, t[0], t[1], ratio);
  printf("K=%d C=%d frames=%zu %s: A median %.0f ns (min %.0f), B median %.0f ns (min %.0f) per "
         "call with its copy; B/A %.3f (quartiles %.3f-%.3f, %d rounds)\n",
         K, C, F, argv[4], 1e9 * t[0][rounds / 2], 1e9 * t[0][0], 1e9 * t[1][rounds / 2],
         1e9 * t[1][0], ratio[rounds / 2], ratio[rounds / 4], ratio[3 * rounds / 4], rounds);
  return 0;
}
