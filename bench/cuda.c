/* gst-fx — CUDA backend timings (bench/cuda-check.sh runs it on a GPU machine). Never a test.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Prints, as Markdown tables (wall-clock times; the GPU kernel times with CUDA events):
 *   1. the device-to-device copy bandwidth (the ceiling for a filter that reads and writes each
 *      sample once), in GB/s and in F32 samples/s;
 *   2. the sequential and the time-parallel scan kernels with the data already on the device vs
 *      the CPU engine (this machine's best kernel, one thread) for frames 1e3..1e8, channels
 *      1..512, K = 1, 4, 8, 16 (F32 stream, double arithmetic: the default precision), in G
 *      channel-samples/s; runs predicted to take longer than --budget seconds (from the previous
 *      size) are skipped and marked; then the scan on 1e8 samples, K = 8 (the target);
 *   3. the per-buffer path (pinned staging, copies, launch, state copy-back) through the cascade
 *      engine, graph replay (the automatic kernel choice, and the scan forced) vs eager launches
 *      vs the CPU, stereo F32, K = 8, at 128, 512, 1024 and 4096 frames per buffer, in
 *      microseconds per buffer; then the kernels alone on the 512-frame stereo buffer (data on
 *      the device, CUDA events around back-to-back launches), which tells the kernel's share of
 *      the per-buffer time from the copies' and the launch's.
 * Sections 1 and 3 come first; the grid of 2 stops at --deadline seconds after the start.
 * Usage: fx-bench-cuda [--quick] [--budget SECONDS] [--deadline SECONDS] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cascade.h"
#include "cuda-timing.h"
#include "fxcuda.h"

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

/* K sections of the kind bench/kernels.c uses (all-pass, poles at radius 0.9) */
static void sections(fx_sos_t *s, int K)
{
  for (int k = 0; k < K; k++) {
    const double r = 0.9, th = 0.3 + 0.1 * k;
    s[k].a1 = -2 * r * cos(th);
    s[k].a2 = r * r;
    s[k].b0 = s[k].a2;
    s[k].b1 = s[k].a1;
    s[k].b2 = 1;
  }
}

/* Seconds per call of the CPU engine over frames x C (F32, double arithmetic). */
static double cpu_time(size_t frames, int C, int K, int reps)
{
  fx_sos_t s[16];
  sections(s, K);
  float *x = calloc(frames * (size_t) C, sizeof(float));
  if (!x)
    return -1;
  for (size_t i = 0; i < frames * (size_t) C; i++)
    x[i] = (float) ((i * 2654435761u) % 1000) * 1e-3f - 0.5f;
  fx_cascade_t *c = fx_cascade_new();
  fx_cascade_configure(c, C, FX_SAMPLE_F32, FX_PRECISION_DOUBLE);
  fx_cascade_set_sections(c, s, K, 1.0);
  fx_cascade_process(c, x, frames); /* warm */
  const double t0 = now_s();
  for (int i = 0; i < reps; i++)
    fx_cascade_process(c, x, frames);
  const double t = (now_s() - t0) / reps;
  fx_cascade_free(c);
  free(x);
  return t;
}

/* Microseconds per buffer through the engine: GPU with graphs (1), eager (0), or CPU (-1);
 * scan: the scan kernel forced (scan-threshold=1) instead of the automatic choice. */
static double buffer_us(size_t frames, int mode, int scan, int nbuf)
{
  const int C = 2, K = 8;
  fx_sos_t s[8];
  sections(s, K);
  float *x = calloc(frames * C, sizeof(float));
  fx_cascade_t *c = fx_cascade_new();
  fx_cascade_configure(c, C, FX_SAMPLE_F32, FX_PRECISION_DOUBLE);
  fx_cascade_set_sections(c, s, K, 1.0);
  fx_cuda_t *g = NULL;
  if (mode >= 0) {
    g = fx_cuda_new(NULL, 0);
    if (!g) {
      fx_cascade_free(c);
      free(x);
      return -1;
    }
    fx_cuda_set_graphs(g, mode);
    fx_cuda_set_scan_threshold(g, scan ? 1 : 0);
    fx_cuda_attach(g, c);
  }
  for (int i = 0; i < 20; i++) /* warm (captures the graph) */
    fx_cascade_process(c, x, frames);
  const uint64_t l0 = g ? fx_cuda_launches(g) : 0;
  const double t0 = now_s();
  for (int i = 0; i < nbuf; i++)
    fx_cascade_process(c, x, frames);
  double us = (now_s() - t0) / nbuf * 1e6;
  if (g && (fx_cuda_error(g) || fx_cuda_launches(g) - l0 != (uint64_t) nbuf)) {
    fprintf(stderr, "buffer path: %s, %llu launches for %d buffers\n",
            fx_cuda_error(g) ? fx_cuda_error(g) : "no error",
            (unsigned long long) (fx_cuda_launches(g) - l0), nbuf);
    us = -1;
  }
  fx_cuda_free(g);
  fx_cascade_free(c);
  free(x);
  return us;
}

int main(int argc, char **argv)
{
  int quick = 0;
  double budget = 3.0, deadline = 1e9;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0)
      quick = 1;
    else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc)
      budget = atof(argv[++i]);
    else if (strcmp(argv[i], "--deadline") == 0 && i + 1 < argc)
      deadline = atof(argv[++i]);
  }
  char why[256];
  if (!fx_cuda_probe(why, sizeof(why))) {
    printf("SKIP: no usable GPU: %s\n", why);
    return 77;
  }
  const double t_start = now_s();
  printf("# CUDA backend timings\n\ndevice: %s\n\n", fx_cuda_device_name());

  const double bw = fx_cuda_bench_d2d((size_t) 1 << 30, quick ? 2 : 20);
  printf("## copy bandwidth (device to device, 1 GiB)\n\n%.1f GB/s copied = %.1f G F32 "
         "samples/s (the ceiling for one read and one write per sample)\n\n",
         bw * 1e-9, bw / 4 * 1e-9);

  printf("\n## target: 1e8 samples, K = 8, F32, data on the device (scan kernel)\n\n");
  printf("| arithmetic | G samples/s | of the copy ceiling |\n|---|---:|---:|\n");
  for (int dbl = 0; dbl <= 1; dbl++) {
    const size_t n = quick ? 1000000 : 100000000;
    const double t = fx_cuda_bench_kernel(n, 1, 8, FX_SAMPLE_F32, dbl, 1, quick ? 1 : 3);
    if (t > 0)
      printf("| %s | %.1f | %.1f%% |\n", dbl ? "double" : "single", (double) n / t * 1e-9,
             bw > 0 ? 100.0 * ((double) n / t) / (bw / 4) : 0.0);
    else
      printf("| %s | failed | - |\n", dbl ? "double" : "single");
    fflush(stdout);
  }

  printf("\n## per buffer through the engine (copies included), stereo F32, K = 8, us/buffer\n\n");
  printf("| frames | graph replay | graph replay, scan forced | eager | CPU | eager/graph "
         "|\n|---:|---:|---:|---:|---:|---:|\n");
  static const size_t bf[] = {128, 512, 1024, 4096};
  for (size_t i = 0; i < 4; i++) {
    const int nb = quick ? 100 : 2000;
    const double gr = buffer_us(bf[i], 1, 0, nb), gs = buffer_us(bf[i], 1, 1, nb),
                 ea = buffer_us(bf[i], 0, 0, nb), cp = buffer_us(bf[i], -1, 0, nb);
    printf("| %zu | %.1f | %.1f | %.1f | %.1f | %.2f |\n", bf[i], gr, gs, ea, cp,
           gr > 0 ? ea / gr : 0);
    fflush(stdout);
  }

  printf("\n## kernel alone, 512 frames stereo F32, K = 8, data on the device (events around %d "
         "back-to-back launches; launch gaps included), us/launch\n\n",
         quick ? 20 : 500);
  printf("| arithmetic | sequential | scan |\n|---|---:|---:|\n");
  for (int dbl = 1; dbl >= 0; dbl--) {
    char col[2][24];
    for (int w = 0; w < 2; w++) {
      const double t = fx_cuda_bench_kernel(512, 2, 8, FX_SAMPLE_F32, dbl, w, quick ? 20 : 500);
      if (t > 0)
        snprintf(col[w], sizeof(col[w]), "%.1f", t * 1e6);
      else
        snprintf(col[w], sizeof(col[w]), "failed");
    }
    printf("| %s | %s | %s |\n", dbl ? "double" : "single", col[0], col[1]);
    fflush(stdout);
  }

  printf("\n## kernels with the data on the device vs the CPU engine, F32 stream, double "
         "arithmetic (the default precision), G channel-samples/s\n\n");
  printf("| frames | channels | K | GPU seq | GPU scan | CPU | best GPU / CPU | best GPU / copy "
         "ceiling |\n");
  printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  static const size_t fr[] = {1000, 100000, 10000000, 100000000};
  static const int ch[] = {1, 2, 64, 512};
  static const int ks[] = {1, 4, 8, 16};
  for (size_t ci = 0; ci < 4; ci++)
    for (size_t ki = 0; ki < 4; ki++) {
      double prev[3] = {0, 0, 0}; /* seq, scan, cpu seconds at prev_n */
      size_t prev_n = 0;
      for (size_t fi = 0; fi < 4; fi++) {
        const size_t frames = fr[fi], n = frames * (size_t) ch[ci];
        if (n > 100000000 || (quick && n > 1000000))
          continue;
        if (now_s() - t_start > deadline) {
          printf("| %zu | %d | %d | stopped: --deadline reached | | | | |\n", frames, ch[ci],
                 ks[ki]);
          continue;
        }
        const double scale = prev_n ? (double) n / (double) prev_n : 0;
        const int reps = n >= 10000000 ? 1 : 5;
        char col[3][40];
        double t[3] = {-1, -1, -1};
        for (int w = 0; w < 3; w++) {
          if (w == 1 && ks[ki] > 16) {
            snprintf(col[w], sizeof(col[w]), "-");
            continue;
          }
          if (prev_n && prev[w] > 0 && prev[w] * scale > budget) {
            snprintf(col[w], sizeof(col[w]), "skipped (~%.0f s)", prev[w] * scale);
            prev[w] = prev[w] * scale;
            continue;
          }
          t[w] = w == 2 ? cpu_time(frames, ch[ci], ks[ki], reps)
                        : fx_cuda_bench_kernel(frames, ch[ci], ks[ki], FX_SAMPLE_F32, 1, w, reps);
          if (t[w] > 0)
            snprintf(col[w], sizeof(col[w]), "%.3f", (double) n / t[w] * 1e-9);
          else
            snprintf(col[w], sizeof(col[w]), "failed");
          prev[w] = t[w] > 0 ? t[w] : 1e9;
        }
        const double best = t[0] > 0 && (t[1] <= 0 || t[0] < t[1]) ? t[0] : t[1];
        char rs[32] = "-", es[32] = "-";
        if (best > 0 && t[2] > 0)
          snprintf(rs, sizeof(rs), "%.2f", t[2] / best);
        if (best > 0 && bw > 0)
          snprintf(es, sizeof(es), "%.1f%%", 100.0 * ((double) n / best) / (bw / 4));
        printf("| %zu | %d | %d | %s | %s | %s | %s | %s |\n", frames, ch[ci], ks[ki], col[0],
               col[1], col[2], rs, es);
        fflush(stdout);
        prev_n = n;
      }
    }

  return 0;
}
