/* gst-fx — a throughput model of the sequential wavefront run on several time segments at once.
 * Never a test, and not a filter: it does the operations and dependencies such a kernel would
 * do, on arbitrary coefficients and tables, to measure what the idea is worth before building it.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Why: the sequential float kernels run the cascade as a wavefront (the sections in the vector
 * lanes, each lane a sample behind the one before). For one or two channels at K = 8 that is
 * latency- and shuffle-bound, well under the FMA units' rate (docs/benchmarking.md, issue #16).
 * Cutting the call into S segments and running S independent wavefronts side by side fills the
 * pipes; segments 1 .. S-1 start from the zero state and are corrected afterwards by the joint
 * zero-input responses of the whole cascade (y[n] += sum over the 2K states j of H_j[n] c_j: 2K
 * multiply-adds per channel-sample, vectorised over time), where c is the previous segment's true
 * end state. This program times that, per S, against the float FMA bound of the machine.
 *
 * Layout as in the product kernels (256-bit vectors, state-space form: 5 FMA-unit operations per
 * section-sample): stereo, sections 0-3 in one vector and 4-7 in another (lane 2k + channel), the
 * second fed from the first's last lanes; mono, the 8 sections in one vector. Input enters with
 * `valignd` (AVX-512VL), the last section's output leaves with a masked store. Segment lengths
 * avoid multiples of 4 KiB (at F / 2 and F / 4 exactly, the streams' loads and stores alias and
 * two or four streams ran slower than one).
 *
 * Usage: fx-bench-segments [FRAMES] (default 4096): CSV lines, per channel count, correction on
 * or off and S, of the best time per channel-sample over 300 rounds and its fraction of the bound.
 * x86-64 with AVX-512VL only (prints SKIP elsewhere). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "fma_rate.h"

/* Built without global instruction-set flags, so that main() can print SKIP on any x86-64 CPU;
 * everything that runs AVX-512VL carries this. */
#define SG_TGT __attribute__((target("avx512f,avx512vl,avx2,fma")))

#define SG_K 8
#define SG_MAXS 8
#define SG_REPS 300

static double sg_now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec * 1e9 + (double) t.tv_nsec;
}

typedef struct {
  __m256 b0, sb1, sb2, na1, na2;
} sg_co_t;

/* One step of the state-space form on a vector of sections. */
static inline __attribute__((always_inline)) SG_TGT __m256 sg_step(const sg_co_t *c, __m256 x,
                                                                   __m256 *z1, __m256 *z2)
{
  const __m256 y = _mm256_fmadd_ps(c->b0, x, *z1);
  const __m256 t = _mm256_fmadd_ps(c->sb1, x, *z2);
  const __m256 u = _mm256_mul_ps(c->sb2, x);
  const __m256 nz1 = _mm256_fmadd_ps(c->na1, *z1, t);
  *z2 = _mm256_fmadd_ps(c->na2, *z1, u);
  *z1 = nz1;
  return y;
}

#define SG_ALIGN(a, b, n)                                                                          \
  _mm256_castsi256_ps(_mm256_alignr_epi32(_mm256_castps_si256(a), _mm256_castps_si256(b), n))

/* Frames per segment: all of them for one, else a multiple of 8 that is not one of 1024. */
static int sg_seg_frames(int frames, int S)
{
  if (S == 1)
    return frames;
  int n = (frames / S) & ~7;
  if (n % 1024 == 0)
    n -= 8;
  return n;
}

/* y[n] += sum_j H_j[n] c_j over segments 1 .. S-1 (C interleaved channels, 8 / C frames per
 * vector). */
static SG_TGT void sg_correct(float *out, const float *H, int S, int n, int C)
{
  for (int s = 1; s < S; s++) {
    __m256 cj[2 * SG_K];
    for (int j = 0; j < 2 * SG_K; j++)
      cj[j] = _mm256_set1_ps(1e-3f * (float) (j + 1));
    for (int i = 0; i < n * C; i += 8) {
      float *o = out + (size_t) s * (size_t) n * (size_t) C + (size_t) i;
      __m256 acc = _mm256_loadu_ps(o);
      for (int j = 0; j < 2 * SG_K; j++)
        acc = _mm256_fmadd_ps(
            _mm256_loadu_ps(H + (size_t) j * (size_t) n * (size_t) C + (size_t) i), cj[j], acc);
      _mm256_storeu_ps(o, acc);
    }
  }
}

/* Stereo: S wavefronts of two vectors each. */
static inline __attribute__((always_inline)) SG_TGT void
sg_stereo(const sg_co_t *ca, const sg_co_t *cb, const float *in, float *out, const float *H,
          const int S, int frames, int corr)
{
  const int n = sg_seg_frames(frames, S);
  __m256 z1a[SG_MAXS], z2a[SG_MAXS], ya[SG_MAXS], z1b[SG_MAXS], z2b[SG_MAXS], yb[SG_MAXS];
  for (int s = 0; s < S; s++)
    z1a[s] = z2a[s] = ya[s] = z1b[s] = z2b[s] = yb[s] = _mm256_setzero_ps();
  for (int i = 0; i < n + SG_K - 1; i++) {
#pragma GCC unroll 8
    for (int s = 0; s < S; s++) {
      const int f = s * n + (i < n ? i : 0);
      double pair;
      memcpy(&pair, in + 2 * (size_t) f, sizeof(pair));
      const __m256 v = _mm256_castpd_ps(_mm256_set1_pd(pair));
      const __m256 xa = SG_ALIGN(ya[s], v, 6), xb = SG_ALIGN(yb[s], ya[s], 6);
      ya[s] = sg_step(ca, xa, &z1a[s], &z2a[s]);
      yb[s] = sg_step(cb, xb, &z1b[s], &z2b[s]);
      /* lanes 6-7 (section 7) are frame s * n + i - 7; out has 8 floats of room before it */
      _mm256_mask_storeu_ps(out + 2 * ((ptrdiff_t) s * n + i - (SG_K - 1)) - 6, 0xC0, yb[s]);
    }
  }
  if (corr)
    sg_correct(out, H, S, n, 2);
}

/* Mono: S wavefronts of one vector each. */
static inline __attribute__((always_inline)) SG_TGT void sg_mono(const sg_co_t *c, const float *in,
                                                                 float *out, const float *H,
                                                                 const int S, int frames, int corr)
{
  const int n = sg_seg_frames(frames, S);
  __m256 z1[SG_MAXS], z2[SG_MAXS], y[SG_MAXS];
  for (int s = 0; s < S; s++)
    z1[s] = z2[s] = y[s] = _mm256_setzero_ps();
  for (int i = 0; i < n + SG_K - 1; i++) {
#pragma GCC unroll 8
    for (int s = 0; s < S; s++) {
      const int f = s * n + (i < n ? i : 0);
      const __m256 x = SG_ALIGN(y[s], _mm256_broadcast_ss(in + f), 7);
      y[s] = sg_step(c, x, &z1[s], &z2[s]);
      _mm256_mask_storeu_ps(out + ((ptrdiff_t) s * n + i - (SG_K - 1)) - 7, 0x80, y[s]);
    }
  }
  if (corr)
    sg_correct(out, H, S, n, 1);
}

static const int sg_counts[] = {1, 2, 3, 4, 8};
#define SG_NCOUNTS ((int) (sizeof(sg_counts) / sizeof(sg_counts[0])))

static SG_TGT void sg_run(int C, int S, const sg_co_t *ca, const sg_co_t *cb, const float *in,
                          float *out, const float *H, int frames, int corr)
{
#define SG_CASE(SS)                                                                                \
  case SS:                                                                                         \
    if (C == 2)                                                                                    \
      sg_stereo(ca, cb, in, out, H, SS, frames, corr);                                             \
    else                                                                                           \
      sg_mono(ca, in, out, H, SS, frames, corr);                                                   \
    break;
  switch (S) {
    SG_CASE(1)
    SG_CASE(2)
    SG_CASE(3)
    SG_CASE(4)
  default:
    SG_CASE(8)
  }
#undef SG_CASE
}

static double sg_now_s(void)
{
  return sg_now() * 1e-9;
}

/* 256-bit FMAs per ns on this core (fma_rate.h, as fx-bench-kernels measures it), best of 5. */
FX_FMA_RATE(sg_fma_rate_once, "avx512f,avx512vl,avx2,fma", __m256, _mm256, "+x", sg_now_s)

static double sg_fma_rate(void)
{
  double best = 0;
  for (int i = 0; i < 5; i++) {
    const double r = sg_fma_rate_once();
    best = r > best ? r : best;
  }
  return best;
}

static SG_TGT int sg_measure(int frames)
{
  float *in = aligned_alloc(64, (size_t) frames * 2 * sizeof(float));
  float *outb = aligned_alloc(64, ((size_t) frames * 2 + 64) * sizeof(float));
  float *H = aligned_alloc(64, (size_t) 2 * SG_K * (size_t) frames * 2 * sizeof(float));
  if (!in || !outb || !H)
    return 1;
  float *out = outb + 32;
  uint32_t r = 12345u;
  for (size_t i = 0; i < (size_t) frames * 2; i++) {
    r = r * 1664525u + 1013904223u;
    in[i] = (float) (r >> 8) / 16777216.0f - 0.5f;
  }
  for (size_t i = 0; i < (size_t) 2 * SG_K * (size_t) frames * 2; i++)
    H[i] = 1e-3f * (float) (i % 97) / 97.0f;
  sg_co_t a = {_mm256_set1_ps(0.1f), _mm256_set1_ps(0.05f), _mm256_set1_ps(0.02f),
               _mm256_set1_ps(1.8f), _mm256_set1_ps(-0.81f)};
  sg_co_t b = a;
  b.na1 = _mm256_set1_ps(1.7f);
  const double rate = sg_fma_rate();
  /* the float FMA bound: 5 multiply-adds per section and channel-sample, 8 lanes per FMA */
  const double bound = SG_K * 5.0 / (rate * 8.0);
  printf("# fma256_per_ns %.4f; bound %.3f ns per channel-sample (K = %d); %d frames per call\n",
         rate, bound, SG_K, frames);
  printf("channels,segments,correction,ns_per_channel_sample_min,fraction_of_bound\n");
  for (int C = 1; C <= 2; C++)
    for (int corr = 1; corr >= 0; corr--) {
      double best[SG_NCOUNTS];
      for (int k = 0; k < SG_NCOUNTS; k++)
        best[k] = 1e300;
      for (int rep = 0; rep < SG_REPS; rep++)
        for (int k = 0; k < SG_NCOUNTS; k++) {
          const double t0 = sg_now();
          sg_run(C, sg_counts[k], &a, &b, in, out, H, frames, corr);
          const double t1 = sg_now();
          if (t1 - t0 < best[k])
            best[k] = t1 - t0;
        }
      for (int k = 0; k < SG_NCOUNTS; k++) {
        const int n = sg_seg_frames(frames, sg_counts[k]);
        const double per = best[k] / ((double) n * sg_counts[k] * C);
        printf("%d,%d,%s,%.4f,%.2f\n", C, sg_counts[k], corr ? "yes" : "no", per, bound / per);
      }
    }
  free(in);
  free(outb);
  free(H);
  return 0;
}

int main(int argc, char **argv)
{
  const int frames = argc > 1 ? atoi(argv[1]) : 4096;
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512vl")) {
    puts("SKIP: fx-bench-segments needs AVX-512VL");
    return 0;
  }
  if (frames < 64 || frames > 1 << 20) {
    fprintf(stderr, "fx-bench-segments: FRAMES from 64 to 1048576\n");
    return 2;
  }
  return sg_measure(frames);
}

#else
int main(void)
{
  puts("SKIP: fx-bench-segments needs x86-64 with AVX-512VL");
  return 0;
}
#endif
