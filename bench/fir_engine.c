/* gst-fx — FIR engine micro-benchmark: direct vs partitioned (and the partition schedule) per
 * kernel length, to choose the crossover and the defaults in dsp/fir.h. Never a test.
 *   fx-bench-fir [seconds-of-audio] [channels] [f32|f64]
 * Prints one line per (taps, configuration): ns per frame (all channels), median of 5 runs.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fir.h"

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: the machine is shared */
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double run(const double *h, size_t n, int C, int f64, const fx_fir_options_t *o, void *buf,
                  size_t frames, size_t block)
{
  double t[5];
  fx_fir_engine_t *e = fx_fir_engine_new(h, n, C, f64, o, NULL);
  if (!e)
    return -1;
  for (int r = 0; r < 5; r++) {
    double t0 = now();
    for (size_t pos = 0; pos < frames; pos += block) {
      size_t len = frames - pos < block ? frames - pos : block;
      char *p = (char *) buf + pos * (size_t) C * (f64 ? 8 : 4);
      fx_fir_engine_process(e, p, p, len);
    }
    t[r] = (now() - t0) * 1e9 / (double) frames;
  }
  fx_fir_engine_free(e);
  qsort(t, 5, sizeof *t, cmp);
  return t[2];
}

int main(int argc, char **argv)
{
  double secs = argc > 1 ? atof(argv[1]) : 0.5;
  int C = argc > 2 ? atoi(argv[2]) : 2;
  int f64 = argc > 3 && !strcmp(argv[3], "f64");
  size_t frames = (size_t) (secs * 48000), block = 1024;
  static const size_t taps[] = {16, 32, 64, 128, 192, 256, 320, 384, 512, 1001, 4096, 16001};
  static const size_t heads[] = {32, 64, 128};
  static const size_t factors[] = {4, 8};
  static const size_t maxb[] = {2048, 4096, 8192};
  void *buf = calloc(frames * (size_t) C, f64 ? 8 : 4);
  double *h = malloc(16001 * sizeof *h);

  for (size_t i = 0; i < 16001; i++)
    h[i] = 1.0 / (1.0 + (double) i);
  for (size_t i = 0; i < frames * (size_t) C; i++) {
    double v = (double) ((i * 2654435761u) % 1000) / 1000.0 - 0.5;
    if (f64)
      ((double *) buf)[i] = v;
    else
      ((float *) buf)[i] = (float) v;
  }
  printf("# %s, %d channel(s), %zu-frame buffers, CPU ns per frame (median of 5)\n",
         f64 ? "f64" : "f32", C, block);
  printf("taps,config,ns_per_frame\n");
  for (size_t ti = 0; ti < sizeof taps / sizeof *taps; ti++) {
    size_t n = taps[ti];
    fx_fir_options_t od = {FX_FIR_METHOD_DIRECT, 0, 0, 0, 0, -1, 0};
    if (n <= 4096)
      printf("%zu,direct,%.2f\n", n, run(h, n, C, f64, &od, buf, frames, block));
    for (size_t hi = 0; hi < 3; hi++)
      for (size_t fi = 0; fi < 2; fi++)
        for (size_t mi = 0; mi < 3; mi++) {
          fx_fir_options_t o = {
              FX_FIR_METHOD_PARTITIONED, 0, heads[hi], factors[fi], maxb[mi], -1, 0};
          if (heads[hi] >= n)
            continue;
          if (n <= 1001 && mi > 0) /* max block only matters for long kernels */
            continue;
          printf("%zu,partitioned h%zu f%zu m%zu,%.2f\n", n, heads[hi], factors[fi], maxb[mi],
                 run(h, n, C, f64, &o, buf, frames, block));
          fflush(stdout);
        }
    /* with a latency budget: first block = latency, no direct part */
    for (size_t lat = 256; lat <= 4096; lat *= 2) {
      fx_fir_options_t o = {FX_FIR_METHOD_PARTITIONED, 0, 0, 0, 0, -1, lat};
      printf("%zu,latency %zu,%.2f\n", n, lat, run(h, n, C, f64, &o, buf, frames, block));
      fflush(stdout);
    }
  }
  free(buf);
  free(h);
  return 0;
}
