/* gst-fx — what the chunked-kernel benchmarks share (bench/ab_chunk.c, bench/chunkseq.c): a
 * monotonic clock, a comparison for qsort and the designs they run. Never a test.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FX_CKBENCH_H
#define FX_CKBENCH_H

#include "design.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double fxb_now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

static inline int fxb_cmp_double(const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* One call of side 0 or 1 (the caller's context holds the rest). */
typedef void fxb_call_fn(void *ctx, int side);

/* The two sides alternately, `rounds` rounds of at least 20 ms each per side, the side that goes
 * first alternating: t0[q], t1[q] the seconds per call of each side in round q, ratio[q] =
 * t1[q] / t0[q]; on return all three sorted (medians and quartiles by index). Both sides of a
 * round see the same machine: this VM changes speed by 1.8x from minute to minute. */
static inline void fxb_alternate(fxb_call_fn *call, void *ctx, int rounds, double *t0, double *t1,
                                 double *ratio)
{
  double *t[2] = {t0, t1};
  for (int q = 0; q < rounds; q++)
    for (int w = 0; w < 2; w++) {
      const int side = (q + w) % 2;
      size_t n = 0;
      const double start = fxb_now();
      double dt;
      do {
        call(ctx, side);
        n++;
        dt = fxb_now() - start;
      } while (dt < 0.02);
      t[side][q] = dt / (double) n;
    }
  for (int q = 0; q < rounds; q++)
    ratio[q] = t1[q] / t0[q];
  qsort(ratio, (size_t) rounds, sizeof(double), fxb_cmp_double);
  qsort(t0, (size_t) rounds, sizeof(double), fxb_cmp_double);
  qsort(t1, (size_t) rounds, sizeof(double), fxb_cmp_double);
}

/* K sections of a design, in scipy's layout (the callers balance them as the engine does):
 *   allpass: all-pass sections, poles at radius 0.9 (as fx-bench-kernels);
 *   seed: the seed chain, Butterworth high-pass 80 Hz order 4 then low-pass 12 kHz order 8
 *         (K must be 6);
 *   butter: a Butterworth low-pass of order 2K at 1 kHz.
 * 1 on success. */
static inline int fxb_design(const char *name, int K, fx_sos_t *sos)
{
  int n = 0, m = 0;
  if (K < 1 || K > FX_DESIGN_MAX_SECTIONS)
    return 0;
  if (!strcmp(name, "allpass")) {
    for (int k = 0; k < K; k++) {
      const double th = 0.1 + 2.9 * k / (K + 1.0), a1 = -1.8 * cos(th), a2 = 0.81;
      sos[k] = (fx_sos_t){a2, a1, 1.0, a1, a2};
    }
    return 1;
  }
  if (!strcmp(name, "seed") && K == 6) {
    const fx_iir_spec_t hp = {.family = FX_FAMILY_BUTTERWORTH,
                              .mode = FX_MODE_HIGH_PASS,
                              .order = 4,
                              .rate = 48000,
                              .cutoff = 80};
    const fx_iir_spec_t lp = {.family = FX_FAMILY_BUTTERWORTH,
                              .mode = FX_MODE_LOW_PASS,
                              .order = 8,
                              .rate = 48000,
                              .cutoff = 12000};
    return fx_design_iir(&hp, sos, 2, &n) == FX_OK && n == 2 &&
           fx_design_iir(&lp, sos + 2, 4, &m) == FX_OK && m == 4;
  }
  if (!strcmp(name, "butter") && 2 * K <= FX_DESIGN_MAX_SECTIONS) {
    const fx_iir_spec_t bw = {.family = FX_FAMILY_BUTTERWORTH,
                              .mode = FX_MODE_LOW_PASS,
                              .order = 2 * K,
                              .rate = 48000,
                              .cutoff = 1000};
    return fx_design_iir(&bw, sos, K, &n) == FX_OK && n == K;
  }
  return 0;
}

#endif
