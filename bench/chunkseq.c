/* gst-fx — the chunked against the sequential float kernel, in one process. Never a test.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Why: the engine takes the chunked float kernels only where they are faster than the sequential
 * ones (dsp/cascade.c, fxc_chunk_pays()), and this VM changes speed by 1.8x from minute to
 * minute, so the two are timed alternately, every ~20 ms, on the same input (as
 * bench/ab_chunk.c does for two builds of one kernel). Both are called as the engine calls them:
 * in place, history recorded, the sections balanced as the engine installs them.
 *
 * Usage: fx-bench-chunkseq [--isa NAME] C FRAMES DESIGN [ROUNDS]
 *   DESIGN: seed (the seed chain: Butterworth high-pass 80 Hz order 4, low-pass 12 kHz order 8)
 *   or bK (a Butterworth low-pass of order 2K at 1 kHz: K sections, e.g. b8; ckbench.h)
 * Prints one line: the median time per call of each and chunked/sequential as the median of the
 * rounds' ratios, with quartiles. --isa: the instruction set (default: the best this CPU runs). */
#include "cascade_impl.h"
#include "chunk.h"
#include "ckbench.h"
#include "kernel.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CS_MAX_ROUNDS 401

typedef struct {
  const fx_kernel_t *kn;
  const float *cf;
  const fx_chunk_sec_t *ps;
  fx_chunk_rec_t *rec;
  float **st;
  double **hist;
  const float *x;
  float *y;
  int K;
  size_t F;
  int C;
} cs_ctx_t;

/* One call of the sequential (side 0) or the chunked kernel (side 1) on a fresh copy of the
 * input, each with its own state. */
static void cs_call(void *p, int side)
{
  const cs_ctx_t *c = p;
  memcpy(c->y, c->x, c->F * (size_t) c->C * sizeof(float));
  if (side == 0)
    c->kn->f32_s(c->cf, c->st[0], c->hist[0], c->K, c->K, c->y, c->F, c->C);
  else
    c->kn->ck_f32_s(c->cf, c->ps, c->rec, c->st[1], c->hist[1], c->K, c->K, c->y, c->F, c->C);
}

int main(int argc, char **argv)
{
  const char *isa = NULL;
  if (argc > 2 && !strcmp(argv[1], "--isa")) {
    isa = argv[2];
    argv += 2;
    argc -= 2;
  }
  if (argc < 4) {
    fprintf(stderr, "usage: %s [--isa NAME] C FRAMES seed|bK [ROUNDS]\n", argv[0]);
    return 2;
  }
  const int C = atoi(argv[1]);
  const size_t F = (size_t) atol(argv[2]);
  const int rounds = argc > 4 ? atoi(argv[4]) : 41;
  fx_sos_t sos[FX_DESIGN_MAX_SECTIONS];
  const int seed = !strcmp(argv[3], "seed"), K = seed                ? 6
                                                 : argv[3][0] == 'b' ? atoi(argv[3] + 1)
                                                                     : 0;
  if (C < 1 || C > 64 || F < 1 || F > (1u << 20) || rounds < 3 || rounds > CS_MAX_ROUNDS ||
      !fxb_design(seed ? "seed" : "butter", K, sos)) {
    fprintf(stderr, "%s: bad arguments\n", argv[0]);
    return 2;
  }
  const fx_kernel_t *kn = NULL;
  for (int i = 0; i < fx_isa_count(); i++)
    if (!isa || !strcmp(fx_isa_get(i)->iir->name, isa)) {
      kn = fx_isa_get(i)->iir;
      break;
    }
  if (!kn || !kn->ck_f32_s) {
    fprintf(stderr, "%s: no chunked float kernel for %s here\n", argv[0], isa ? isa : "this CPU");
    return 2;
  }
  double coef[5 * FX_DESIGN_MAX_SECTIONS], ex[FX_DESIGN_MAX_SECTIONS + 1];
  float cf[5 * FX_DESIGN_MAX_SECTIONS];
  fxc_build_coefs(sos, K, 1.0, coef, ex);
  for (int i = 0; i < 5 * K; i++)
    cf[i] = (float) coef[i];
  fx_chunk_sec_t *ps = calloc((size_t) K, sizeof(*ps));
  fx_chunk_rec_t *rec = calloc((size_t) (K * C), sizeof(*rec));
  float *st[2] = {calloc((size_t) (2 * K * C), sizeof(float)),
                  calloc((size_t) (2 * K * C), sizeof(float))};
  double *hist[2] = {calloc((size_t) (2 * (K + 1) * C), sizeof(double)),
                     calloc((size_t) (2 * (K + 1) * C), sizeof(double))};
  const size_t bytes = (F * (size_t) C * sizeof(float) + 63) / 64 * 64;
  float *x = aligned_alloc(64, bytes), *y = aligned_alloc(64, bytes);
  if (!ps || !rec || !st[0] || !st[1] || !hist[0] || !hist[1] || !x || !y)
    return 1;
  for (int k = 0; k < K; k++)
    fx_chunk_sec_build(ps + k, coef + 5 * k);
  uint64_t r = 0x9E3779B97F4A7C15ull; /* fixed noise */
  for (size_t i = 0; i < F * (size_t) C; i++) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    x[i] = (float) ((double) (r >> 11) / 9007199254740992.0 - 0.5);
  }
  static double t[2][CS_MAX_ROUNDS], ratio[CS_MAX_ROUNDS];
  cs_ctx_t ctx = {kn, cf, ps, rec, st, hist, x, y, K, F, C};
  fxb_alternate(cs_call, &ctx, rounds, t[0], t[1], ratio);
  printf("%s %s K=%d C=%d frames=%zu: sequential %.0f ns, chunked %.0f ns per call (medians, with "
         "the copy); chunked/sequential %.3f (quartiles %.3f-%.3f, %d rounds)\n",
         kn->name, argv[3], K, C, F, 1e9 * t[0][rounds / 2], 1e9 * t[1][rounds / 2],
         ratio[rounds / 2], ratio[rounds / 4], ratio[3 * rounds / 4], rounds);
  return 0;
}
