/* gst-fx — micro-benchmark of the SOS cascade kernels (dsp/kernel_*.c). Never a pass/fail test.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For every kernel this CPU supports (or those named by --kernels), each flavour (f32_s: F32
 * stream with float arithmetic, f32_d: F32 stream with double arithmetic, f64), each section
 * count K and channel count C: the time per channel-sample of filtering buffers of --frames
 * frames in place, the way the engine calls the kernel (history recorded). The sections are
 * all-pass (poles at radius 0.9), so the signal keeps its size however often it is filtered;
 * with --design butter, the K sections of a Butterworth low-pass of order 2K at 1 kHz (48 kHz),
 * balanced as the engine installs them (fxc_build_coefs: scipy's layout, the gain in the first
 * section and 1, 2, 1 in the others, with the numerators scaled by powers of two; the chunked
 * kernels take those out again, kernel_chunk.h).
 * Each configuration is timed --reps times (each repetition at least --ms milliseconds of this
 * thread's CPU time, or wall-clock time with --wall) and the median and minimum are printed, one
 * CSV row per configuration:
 *     kernel,flavour,K,C,frames,ns_per_channel_sample_median,ns_min,ns_per_section_sample
 * Lines starting with '#' are comments: the measured FMA throughput of this core (independent
 * FMAs per ns for 256- and 512-bit vectors) for the FMA-bound column of bench/run-kernels.py. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cascade_impl.h"
#include "design.h"
#include "kernel.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define FX_BENCH_X86 1
#endif

/* Thread CPU time by default: on a shared machine the time this thread spends descheduled does
 * not count (--wall: CLOCK_MONOTONIC). */
static clockid_t bench_clock = CLOCK_THREAD_CPUTIME_ID;

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(bench_clock, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static int parse_list(const char *s, int *out, int max)
{
  int n = 0;
  while (*s && n < max) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s)
      break;
    out[n++] = (int) v;
    s = *end == ',' ? end + 1 : end;
  }
  return n;
}

#if defined(FX_BENCH_X86)
#include "fma_rate.h"

FX_FMA_RATE(fma_rate_256, "avx2,fma", __m256, _mm256, "+x", now_s)
FX_FMA_RATE(fma_rate_512, "avx512f,fma", __m512, _mm512, "+v", now_s)
#endif

enum { FL_F32S, FL_F32D, FL_F64 };
static const char *fl_names[] = {"f32_s", "f32_d", "f64"};

/* --chunk: the chunked kernels (kernel_chunk.h), with the sections' tables and the records. */
static int use_chunk;
static fx_chunk_sec_t *ck_ps;
static fx_chunk_rec_t *ck_rec;

/* Times `calls` kernel calls on one buffer; returns seconds. */
static double run(const fx_kernel_t *kn, int fl, const double *coef, const float *coef_f,
                  void *state, double *hist, int K, void *data, size_t frames, int C, long calls)
{
  const double t0 = now_s();
  for (long i = 0; i < calls; i++) {
    if (use_chunk && fl == FL_F64)
      kn->ck_f64(coef, ck_ps, ck_rec, state, hist, K, K, data, frames, C);
    else if (use_chunk && fl == FL_F32D)
      kn->ck_f32_d(coef, ck_ps, ck_rec, state, hist, K, K, data, frames, C);
    else if (use_chunk)
      kn->ck_f32_s(coef_f, ck_ps, ck_rec, state, hist, K, K, data, frames, C);
    else if (fl == FL_F64)
      kn->f64(coef, state, hist, K, K, data, frames, C);
    else if (fl == FL_F32D)
      kn->f32_d(coef, state, hist, K, K, data, frames, C);
    else
      kn->f32_s(coef_f, state, hist, K, K, data, frames, C);
  }
  return now_s() - t0;
}

int main(int argc, char **argv)
{
  int Ks[16] = {1, 2, 4, 8, 16}, nK = 5;
  int Cs[16] = {1, 2, 8, 16, 64}, nC = 5;
  int fls[3] = {FL_F32S, FL_F32D, FL_F64}, nfl = 3;
  size_t frames = 1024;
  int reps = 7;
  double ms = 20;
  const char *kernels = NULL;
  int butter = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
    if (!strcmp(a, "--K")) {
      nK = parse_list(v, Ks, 16);
      i++;
    } else if (!strcmp(a, "--C")) {
      nC = parse_list(v, Cs, 16);
      i++;
    } else if (!strcmp(a, "--frames")) {
      frames = (size_t) atol(v);
      i++;
    } else if (!strcmp(a, "--reps")) {
      reps = atoi(v);
      i++;
    } else if (!strcmp(a, "--ms")) {
      ms = atof(v);
      i++;
    } else if (!strcmp(a, "--chunk")) {
      use_chunk = 1;
    } else if (!strcmp(a, "--design")) {
      butter = !strcmp(v, "butter");
      i++;
    } else if (!strcmp(a, "--wall")) {
      bench_clock = CLOCK_MONOTONIC;
    } else if (!strcmp(a, "--kernels")) {
      kernels = v;
      i++;
    } else if (!strcmp(a, "--flavours")) {
      nfl = 0;
      for (int f = 0; f < 3; f++)
        if (strstr(v, fl_names[f]))
          fls[nfl++] = f;
      i++;
    } else {
      printf("usage: %s [--kernels avx512,avx2,sse2,scalar] [--flavours f32_s,f32_d,f64]\n"
             "          [--K 1,2,4,8,16] [--C 1,2,8,16,64] [--frames 1024] [--reps 7] [--ms 20]\n"
             "          [--design allpass|butter]\n"
             "          [--wall]  (wall-clock time instead of this thread's CPU time)\n"
             "          [--chunk] (the chunked kernels)\n",
             argv[0]);
      return !strcmp(a, "--help") ? 0 : 2;
    }
  }
  if (reps < 1 || reps > 101 || frames < 1)
    return 2;
#if defined(FX_BENCH_X86)
  __builtin_cpu_init();
  /* best of 5 (other load on the machine only makes a run slower) */
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    double best = 0;
    for (int i = 0; i < 5; i++) {
      const double r = fma_rate_256();
      best = r > best ? r : best;
    }
    printf("# fma256_per_ns %.4f\n", best);
  }
  if (__builtin_cpu_supports("avx512f")) {
    double best = 0;
    for (int i = 0; i < 5; i++) {
      const double r = fma_rate_512();
      best = r > best ? r : best;
    }
    printf("# fma512_per_ns %.4f\n", best);
  }
#endif
  printf("kernel,flavour,K,C,frames,ns_per_channel_sample_median,ns_min,ns_per_section_sample\n");
  int maxK = 1, maxC = 1;
  for (int i = 0; i < nK; i++)
    maxK = Ks[i] > maxK ? Ks[i] : maxK;
  for (int i = 0; i < nC; i++)
    maxC = Cs[i] > maxC ? Cs[i] : maxC;
  double *coef = malloc((size_t) maxK * 5 * sizeof(double));
  float *coef_f = malloc((size_t) maxK * 5 * sizeof(float));
  fx_sos_t bw[FX_DESIGN_MAX_SECTIONS];
  int nbw = 0;
  if (butter) {
    const fx_iir_spec_t spec = {.family = FX_FAMILY_BUTTERWORTH,
                                .mode = FX_MODE_LOW_PASS,
                                .order = 2 * maxK,
                                .rate = 48000,
                                .cutoff = 1000};
    if (maxK > FX_DESIGN_MAX_SECTIONS || fx_design_iir(&spec, bw, maxK, &nbw) != FX_OK ||
        nbw != maxK) {
      fprintf(stderr, "--design butter: cannot design %d sections\n", maxK);
      return 2;
    }
  }
  for (int k = 0; k < maxK; k++) { /* all-pass, poles at 0.9 e^{+-j th} */
    const double th = 0.1 + 2.9 * k / (maxK + 1.0), a1 = -1.8 * cos(th), a2 = 0.81;
    const double c[5] = {a2, a1, 1.0, a1, a2};
    memcpy(coef + 5 * k, c, sizeof(c));
  }
  if (butter) { /* balanced as the engine installs it (its numerators scaled by powers of two) */
    double ex[FX_DESIGN_MAX_SECTIONS + 1];
    fxc_build_coefs(bw, maxK, 1.0, coef, ex);
  }
  for (int j = 0; j < 5 * maxK; j++)
    coef_f[j] = (float) coef[j];
  ck_ps = malloc((size_t) maxK * sizeof(*ck_ps));
  ck_rec = calloc((size_t) maxC * (size_t) maxK, sizeof(*ck_rec));
  for (int k = 0; k < maxK; k++)
    fx_chunk_sec_build(ck_ps + k, coef + 5 * k);
  const size_t n = frames * (size_t) maxC;
  double *data = malloc(n * sizeof(double) + 64);
  double *state = calloc((size_t) maxC * (size_t) maxK * 2, sizeof(double));
  double *hist = calloc((size_t) maxC * ((size_t) maxK + 1) * 2, sizeof(double));
  double *t = malloc((size_t) reps * sizeof(double));
  uint64_t r = 0x9E3779B97F4A7C15ull;
  for (int ki = 0; ki < fx_isa_count(); ki++) {
    const fx_kernel_t *kn = fx_isa_get(ki)->iir;
    if (kernels && !strstr(kernels, kn->name))
      continue;
    for (int f = 0; f < nfl; f++) {
      const int fl = fls[f];
      for (int a = 0; a < nK; a++) {
        for (int b = 0; b < nC; b++) {
          const int K = Ks[a], C = Cs[b];
          const size_t m = frames * (size_t) C;
          for (size_t i = 0; i < m; i++) {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            const double v = (double) (r >> 11) * (1.0 / 9007199254740992.0) - 0.5;
            if (fl == FL_F64)
              data[i] = v;
            else
              ((float *) data)[i] = (float) v;
          }
          memset(state, 0, (size_t) C * (size_t) K * 2 * sizeof(double));
          /* calibrate: calls per repetition */
          long calls = 1;
          for (;;) {
            const double s = run(kn, fl, coef, coef_f, state, hist, K, data, frames, C, calls);
            if (s * 1e3 >= ms / 4 || calls > (1l << 30))
              break;
            calls *= 2;
          }
          const double s1 = run(kn, fl, coef, coef_f, state, hist, K, data, frames, C, calls);
          calls = (long) ((double) calls * (ms * 1e-3) / (s1 > 1e-9 ? s1 : 1e-9)) + 1;
          for (int i = 0; i < reps; i++)
            t[i] = run(kn, fl, coef, coef_f, state, hist, K, data, frames, C, calls) * 1e9 /
                   ((double) calls * (double) m);
          qsort(t, (size_t) reps, sizeof(double), cmp_double);
          printf("%s%s,%s,%d,%d,%zu,%.4f,%.4f,%.4f\n", kn->name, use_chunk ? "-chunk" : "",
                 fl_names[fl], K, C, frames, t[reps / 2], t[0], t[reps / 2] / K);
          fflush(stdout);
        }
      }
    }
  }
  free(coef);
  free(coef_f);
  free(data);
  free(state);
  free(hist);
  free(t);
  return 0;
}
