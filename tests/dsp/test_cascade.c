/* gst-fx — unit tests of the SOS cascade engine (dsp/cascade.c, dsp/kernel_scalar.c).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Plain C: exits non-zero when a check fails. Coefficients come from a local RBJ/bilinear biquad
 * formula so these tests do not depend on the design module. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cascade.h"
#include "kernel.h"

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "fxcheck.h"

/* ------------------------------------------------------------------------------------------- */
/* helpers */

/* RBJ low/high-pass biquad (bilinear transform with pre-warping). */
static fx_sos_t biquad(int highpass, double f, double q, double fs)
{
  double w0 = 2.0 * M_PI * f / fs, cw = cos(w0), alpha = sin(w0) / (2.0 * q);
  double a0 = 1.0 + alpha;
  fx_sos_t s;
  if (highpass) {
    s.b0 = (1.0 + cw) / 2.0 / a0;
    s.b1 = -(1.0 + cw) / a0;
  } else {
    s.b0 = (1.0 - cw) / 2.0 / a0;
    s.b1 = (1.0 - cw) / a0;
  }
  s.b2 = s.b0;
  s.a1 = -2.0 * cw / a0;
  s.a2 = (1.0 - alpha) / a0;
  return s;
}

/* 4th-order Butterworth as two biquads (Q = 1/(2 cos(pi/8)), 1/(2 cos(3 pi/8))). */
static void butter4(int highpass, double f, double fs, fx_sos_t out[2])
{
  out[0] = biquad(highpass, f, 1.0 / (2.0 * cos(M_PI / 8.0)), fs);
  out[1] = biquad(highpass, f, 1.0 / (2.0 * cos(3.0 * M_PI / 8.0)), fs);
}

/* A test cascade: 8th-order-ish band filter (low-pass 4 + high-pass 4) plus a resonant biquad. */
static int test_sos(fx_sos_t *sos, double fs)
{
  butter4(0, 3000.0, fs, sos);
  butter4(1, 80.0, fs, sos + 2);
  sos[4] = biquad(0, 1200.0, 4.0, fs);
  return 5;
}

static void *noise_buf(fx_sample_format_t fmt, size_t n, uint64_t seed, double amp)
{
  rng_seed(seed);
  if (fmt == FX_SAMPLE_F64) {
    double *d = malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++)
      d[i] = amp * rng_uniform();
    return d;
  }
  float *f = malloc(n * sizeof(float));
  for (size_t i = 0; i < n; i++)
    f[i] = (float) (amp * rng_uniform());
  return f;
}

static size_t ssize(fx_sample_format_t fmt)
{
  return fmt == FX_SAMPLE_F64 ? sizeof(double) : sizeof(float);
}

/* A malloc'ed copy of n samples of src. */
static void *dup_buf(fx_sample_format_t fmt, const void *src, size_t n)
{
  void *d = malloc(n * ssize(fmt));
  memcpy(d, src, n * ssize(fmt));
  return d;
}

static double sample_at(fx_sample_format_t fmt, const void *d, size_t i)
{
  return fmt == FX_SAMPLE_F64 ? ((const double *) d)[i] : (double) ((const float *) d)[i];
}

static fx_cascade_t *make(int C, fx_sample_format_t fmt, fx_precision_t prec, const fx_sos_t *sos,
                          int K, double gain)
{
  fx_cascade_t *c = fx_cascade_new();
  if (!c)
    abort();
  if (fx_cascade_configure(c, C, fmt, prec) != FX_OK)
    abort();
  if (fx_cascade_set_sections(c, sos, K, gain) != FX_OK)
    abort();
  return c;
}

/* Processes frames [from, to) of data with random buffer sizes; with `ones`, most buffers are a
 * single frame. */
static unsigned process_split(fx_cascade_t *c, fx_sample_format_t fmt, void *data, int C,
                              size_t from, size_t to, int ones)
{
  unsigned flags = 0;
  size_t pos = from;
  while (pos < to) {
    size_t n;
    uint64_t r = rng_next();
    if (ones && (r & 3) != 0)
      n = 1;
    else if ((r >> 8) % 5 == 0)
      n = 1 + (r >> 16) % 3;
    else
      n = 1 + (r >> 16) % 700;
    if (n > to - pos)
      n = to - pos;
    flags |= fx_cascade_process(c, (char *) data + pos * (size_t) C * ssize(fmt), n);
    pos += n;
  }
  return flags;
}

static const struct {
  fx_sample_format_t fmt;
  fx_precision_t prec;
  const char *name;
} modes[] = {
    {FX_SAMPLE_F32, FX_PRECISION_SINGLE, "f32-single"},
    {FX_SAMPLE_F32, FX_PRECISION_DOUBLE, "f32-double"},
    {FX_SAMPLE_F32, FX_PRECISION_AUTO, "f32-auto"},
    {FX_SAMPLE_F64, FX_PRECISION_AUTO, "f64"},
};
#define NMODES (int) (sizeof(modes) / sizeof(modes[0]))

/* ------------------------------------------------------------------------------------------- */

/* Any split (random sizes, runs of 1-frame buffers) gives bit-identical output, also across a
 * coefficient change (crossfade, section count change, change during a crossfade): with every
 * call on the sequential kernels (FX_CHUNK=0) and with every call on the chunked ones
 * (FX_CHUNK=1, where the engine takes them: one or two F32 channels), and by default, where the
 * engine takes the chunked kernels for one or two F32 channels in every call, however short. */
static void test_chunk_invariance_in(const char *chunk);
static void test_chunk_invariance(void)
{
  const char *modes_env[] = {"0", "1", NULL};
  for (int i = 0; i < 3; i++)
    test_chunk_invariance_in(modes_env[i]);
  unsetenv("FX_CHUNK");
}

static void test_chunk_invariance_in(const char *chunk)
{
  if (chunk)
    setenv("FX_CHUNK", chunk, 1);
  else
    unsetenv("FX_CHUNK");
  const int chans[] = {1, 2, 3, 7, 67};
  const double fs = 48000.0;
  fx_sos_t sos[8], sos_b[8], sos_c[8];
  int K = test_sos(sos, fs);
  butter4(0, 6000.0, fs, sos_b); /* K = 2: section count changes */
  int Kb = 2;
  butter4(0, 1500.0, fs, sos_c);
  butter4(1, 200.0, fs, sos_c + 2);
  sos_c[4] = biquad(1, 900.0, 2.0, fs);
  int Kc = 5;

  for (int m = 0; m < NMODES; m++) {
    for (size_t ci = 0; ci < sizeof(chans) / sizeof(chans[0]); ci++) {
      const int C = chans[ci];
      const size_t frames = C > 10 ? 1500 : 4000;
      const size_t N = frames * (size_t) C;
      const fx_sample_format_t fmt = modes[m].fmt;
      for (int variant = 0; variant < 3; variant++) {
        /* variant 0: constant coefficients; 1: change mid-stream; 2: change + change during the
         * crossfade, with 1-frame-heavy splits */
        void *ref = noise_buf(fmt, N, 1000 + (uint64_t) C, 0.8);
        void *a = dup_buf(fmt, ref, N);
        fx_cascade_t *c1 = make(C, fmt, modes[m].prec, sos, K, 0.7);
        fx_cascade_t *c2 = make(C, fmt, modes[m].prec, sos, K, 0.7);
        const size_t t1 = frames / 3, t2 = t1 + 100;
        /* one shot per segment */
        if (variant == 0) {
          fx_cascade_process(c1, ref, frames);
        } else {
          fx_cascade_process(c1, ref, t1);
          fx_cascade_set_sections(c1, sos_b, Kb, 1.0);
          if (variant == 2) {
            fx_cascade_process(c1, (char *) ref + t1 * (size_t) C * ssize(fmt), t2 - t1);
            fx_cascade_set_sections(c1, sos_c, Kc, 1.2);
            fx_cascade_process(c1, (char *) ref + t2 * (size_t) C * ssize(fmt), frames - t2);
          } else {
            fx_cascade_process(c1, (char *) ref + t1 * (size_t) C * ssize(fmt), frames - t1);
          }
        }
        rng_seed(77 + (uint64_t) C * 31 + (uint64_t) variant);
        const int ones = variant == 2 || C == 3;
        if (variant == 0) {
          process_split(c2, fmt, a, C, 0, frames, ones);
        } else {
          process_split(c2, fmt, a, C, 0, t1, ones);
          fx_cascade_set_sections(c2, sos_b, Kb, 1.0);
          if (variant == 2) {
            process_split(c2, fmt, a, C, t1, t2, ones);
            fx_cascade_set_sections(c2, sos_c, Kc, 1.2);
            process_split(c2, fmt, a, C, t2, frames, ones);
          } else {
            process_split(c2, fmt, a, C, t1, frames, ones);
          }
        }
        int same = memcmp(ref, a, N * ssize(fmt)) == 0;
        int finite = 1;
        double worst = 0.0, peak = 0.0;
        for (size_t i = 0; i < N; i++) {
          finite &= isfinite(sample_at(fmt, a, i));
          worst = fmax(worst, fabs(sample_at(fmt, a, i) - sample_at(fmt, ref, i)));
          peak = fmax(peak, fabs(sample_at(fmt, ref, i)));
        }
        CHECK(same,
              "%s C=%d variant=%d FX_CHUNK=%s: split output differs from one-shot (%.3g of "
              "peak %.3g)",
              modes[m].name, C, variant, chunk ? chunk : "unset", worst, peak);
        CHECK(finite, "%s C=%d variant=%d: non-finite output", modes[m].name, C, variant);
        fx_cascade_free(c1);
        fx_cascade_free(c2);
        free(ref);
        free(a);
      }
    }
  }
}

/* 0 sections: identity (bit-exact); gain only: a scaled copy. */
static void test_identity_and_gain(void)
{
  for (int m = 0; m < NMODES; m++) {
    const fx_sample_format_t fmt = modes[m].fmt;
    const int C = 3;
    const size_t frames = 1000, N = frames * C;
    void *x = noise_buf(fmt, N, 5, 1.0);
    void *y = dup_buf(fmt, x, N);
    fx_cascade_t *c = make(C, fmt, modes[m].prec, NULL, 0, 1.0);
    CHECK(fx_cascade_sections(c) == 0, "sections %d", fx_cascade_sections(c));
    unsigned fl = fx_cascade_process(c, y, frames);
    CHECK(fl == 0, "flags %u", fl);
    CHECK(memcmp(x, y, N * ssize(fmt)) == 0, "%s: identity changed the signal", modes[m].name);

    /* gain with no sections */
    memcpy(y, x, N * ssize(fmt));
    fx_cascade_reset(c);
    CHECK(fx_cascade_set_sections(c, NULL, 0, 0.5) == FX_OK, "gain-only set");
    fx_cascade_process(c, y, frames);
    double worst = 0;
    for (size_t i = 0; i < N; i++)
      worst = fmax(worst, fabs(sample_at(fmt, y, i) - 0.5 * sample_at(fmt, x, i)));
    CHECK(worst == 0.0, "%s: gain-only cascade off by %g", modes[m].name, worst);
    fx_cascade_free(c);

    /* gain folded into section 0 equals pre-scaled numerator */
    fx_sos_t sos[8], scaled[8];
    int K = test_sos(sos, 48000.0);
    memcpy(scaled, sos, sizeof(sos));
    scaled[0].b0 *= -2.5;
    scaled[0].b1 *= -2.5;
    scaled[0].b2 *= -2.5;
    memcpy(y, x, N * ssize(fmt));
    void *y2 = dup_buf(fmt, x, N);
    fx_cascade_t *g = make(C, fmt, modes[m].prec, sos, K, -2.5);
    fx_cascade_t *h = make(C, fmt, modes[m].prec, scaled, K, 1.0);
    fx_cascade_process(g, y, frames);
    fx_cascade_process(h, y2, frames);
    CHECK(memcmp(y, y2, N * ssize(fmt)) == 0, "%s: gain differs from scaled numerator",
          modes[m].name);
    fx_cascade_free(g);
    fx_cascade_free(h);
    free(y2);
    free(x);
    free(y);
  }
}

/* reset() clears the state: processing the same input again gives the same output. */
static void test_reset(void)
{
  for (int m = 0; m < NMODES; m++) {
    const fx_sample_format_t fmt = modes[m].fmt;
    const int C = 2;
    const size_t frames = 2000, N = frames * C;
    fx_sos_t sos[8];
    int K = test_sos(sos, 48000.0);
    void *x = noise_buf(fmt, N, 9, 1.0);
    void *y1 = dup_buf(fmt, x, N), *y2 = dup_buf(fmt, x, N);
    fx_cascade_t *c = make(C, fmt, modes[m].prec, sos, K, 1.0);
    fx_cascade_process(c, y1, frames);
    fx_cascade_reset(c);
    fx_cascade_process(c, y2, frames);
    CHECK(memcmp(y1, y2, N * ssize(fmt)) == 0, "%s: output after reset differs", modes[m].name);
    CHECK(fx_cascade_sections(c) == K, "coefficients kept over reset");
    fx_cascade_free(c);
    free(x);
    free(y1);
    free(y2);
  }
}

/* A NaN/Inf burst: the flag is returned and the bad samples are processed as zeros: the burst's
 * buffer and the next one equal, bit for bit, what a twin engine gives with zeros in place of the
 * burst (nothing is reset). Also during a crossfade and with 0 sections. */
static void test_nonfinite(void)
{
  for (int m = 0; m < NMODES; m++) {
    for (int kind = 0; kind < 3; kind++) {
      const fx_sample_format_t fmt = modes[m].fmt;
      const int C = 3;
      const size_t frames = 512, N = frames * C;
      fx_sos_t sos[8];
      int K = kind == 2 ? 0 : test_sos(sos, 48000.0);
      fx_cascade_t *c = make(C, fmt, modes[m].prec, sos, K, 1.0);
      fx_cascade_t *twin = make(C, fmt, modes[m].prec, sos, K, 1.0);
      void *a = noise_buf(fmt, N, 21, 1.0);
      void *a2 = dup_buf(fmt, a, N);
      CHECK(fx_cascade_process(c, a, frames) == 0, "clean buffer flagged");
      fx_cascade_process(twin, a2, frames);
      if (kind == 1) { /* a crossfade in flight when the burst comes */
        fx_cascade_set_sections(c, sos, K - 1, 1.0);
        fx_cascade_set_sections(twin, sos, K - 1, 1.0);
      }
      void *b = noise_buf(fmt, N, 22, 1.0);
      void *b2 = dup_buf(fmt, b, N);
      for (size_t i = 100 * C; i < 140 * C; i++) {
        double v = (i % 2) ? NAN : INFINITY;
        if (fmt == FX_SAMPLE_F64) {
          ((double *) b)[i] = v;
          ((double *) b2)[i] = 0.0;
        } else {
          ((float *) b)[i] = (float) v;
          ((float *) b2)[i] = 0.0f;
        }
      }
      /* with no sections only the history sees the burst when it ends the buffer */
      size_t bframes = kind == 2 ? 140 : frames;
      unsigned fl = fx_cascade_process(c, b, bframes);
      CHECK(fl & FX_PROCESS_NONFINITE, "%s kind %d: burst not flagged", modes[m].name, kind);
      CHECK(fx_cascade_process(twin, b2, bframes) == 0, "zeros flagged");
      CHECK(memcmp(b, b2, bframes * C * ssize(fmt)) == 0,
            "%s kind %d: the burst's buffer differs from zeros in its place", modes[m].name, kind);
      void *d = noise_buf(fmt, N, 23, 1.0);
      void *e = dup_buf(fmt, d, N);
      fl = fx_cascade_process(c, d, frames);
      CHECK(fl == 0, "%s kind %d: buffer after the burst flagged", modes[m].name, kind);
      fx_cascade_process(twin, e, frames);
      CHECK(memcmp(d, e, N * ssize(fmt)) == 0,
            "%s kind %d: buffer after the burst differs from zeros in its place", modes[m].name,
            kind);
      fx_cascade_free(twin);
      fx_cascade_free(c);
      free(a);
      free(a2);
      free(b);
      free(b2);
      free(d);
      free(e);
    }
  }
}

/* The engine's safety net: finite input can still overflow the state (huge samples through a
 * gain of 1e10: Inf in float state for F32 single precision, in double state for F64). The call
 * that overflows reports FX_PROCESS_NONFINITE and clears the stream, so the next buffer's output
 * is exactly a fresh cascade's on that buffer; large input that does not overflow is not flagged.
 * F32 in double arithmetic keeps double state, which these samples do not overflow. */
static void test_state_overflow(void)
{
  for (int m = 0; m < NMODES; m++) {
    if (modes[m].prec != FX_PRECISION_SINGLE && modes[m].fmt != FX_SAMPLE_F64)
      continue;
    const fx_sample_format_t fmt = modes[m].fmt;
    const int C = 2;
    const size_t frames = 300, N = frames * C;
    const double huge = fmt == FX_SAMPLE_F64 ? 1e300 : 1e30, large = huge * 1e-20;
    fx_sos_t sos[8];
    const int K = test_sos(sos, 48000.0);
    fx_cascade_t *c = make(C, fmt, modes[m].prec, sos, K, 1e10);
    fx_cascade_t *fresh = make(C, fmt, modes[m].prec, sos, K, 1e10);
    void *a = noise_buf(fmt, N, 31, large);
    CHECK(fx_cascade_process(c, a, frames) == 0, "%s: large finite input flagged", modes[m].name);
    void *b = noise_buf(fmt, N, 32, huge);
    CHECK(fx_cascade_process(c, b, frames) & FX_PROCESS_NONFINITE, "%s: overflow not flagged",
          modes[m].name);
    void *d = noise_buf(fmt, N, 33, 1.0);
    void *e = dup_buf(fmt, d, N);
    CHECK(fx_cascade_process(c, d, frames) == 0, "%s: buffer after the overflow flagged",
          modes[m].name);
    fx_cascade_process(fresh, e, frames);
    CHECK(memcmp(d, e, N * ssize(fmt)) == 0,
          "%s: the buffer after the overflow is not filtered from a cleared state", modes[m].name);
    fx_cascade_free(c);
    fx_cascade_free(fresh);
    free(a);
    free(b);
    free(d);
    free(e);
  }
}

/* Setting the same coefficients mid-stream changes nothing: exactly the same coefficients are a
 * no-op; coefficients one ulp away go through the DF-I state transfer and the crossfade, which in
 * exact arithmetic reproduces the running state (single precision: the transfer computes the
 * state from the signal history, dropping the float recursion's accumulated rounding, so the
 * difference is at the level of single precision's own error). */
static void test_same_coefficients_in(void);
static void test_same_coefficients(void)
{
  /* every call on one path: the sequential kernels, then the chunked ones (with the default
   * policy the path follows the split, which this test does not compare) */
  setenv("FX_CHUNK", "0", 1);
  test_same_coefficients_in();
  setenv("FX_CHUNK", "1", 1);
  test_same_coefficients_in();
  unsetenv("FX_CHUNK");
}

static void test_same_coefficients_in(void)
{
  const int C = 2;
  const size_t frames = 6000, N = frames * C;
  fx_sos_t sos[8], ulp[8];
  int K = test_sos(sos, 48000.0);
  memcpy(ulp, sos, sizeof(sos));
  for (int s = 0; s < K; s++)
    ulp[s].a1 = nextafter(ulp[s].a1, 0.0);
  for (int m = 0; m < NMODES; m++) {
    for (int variant = 0; variant < 2; variant++) {
      const fx_sample_format_t fmt = modes[m].fmt;
      void *x = noise_buf(fmt, N, 31, 1.0);
      void *y = dup_buf(fmt, x, N);
      fx_cascade_t *a = make(C, fmt, modes[m].prec, sos, K, 1.0);
      fx_cascade_t *b = make(C, fmt, modes[m].prec, sos, K, 1.0);
      fx_cascade_process(a, x, frames);
      rng_seed(5);
      process_split(b, fmt, y, C, 0, 1000, 0);
      for (int i = 0; i < 5; i++) {
        const fx_sos_t *set = variant == 0 ? sos : (i % 2 ? sos : ulp);
        CHECK(fx_cascade_set_sections(b, set, K, 1.0) == FX_OK, "set");
        process_split(b, fmt, y, C, 1000 + (size_t) i * 100, 1100 + (size_t) i * 100, i == 3);
      }
      process_split(b, fmt, y, C, 1500, frames, 0);
      double worst = 0, peak = 0;
      for (size_t i = 0; i < N; i++) {
        worst = fmax(worst, fabs(sample_at(fmt, x, i) - sample_at(fmt, y, i)));
        peak = fmax(peak, fabs(sample_at(fmt, x, i)));
      }
      double tol = 0.0;
      /* AUTO runs single where its probe allows: the single bar then */
      if (variant == 1)
        tol = !fx_cascade_uses_double(b) ? 2e-4 : (fmt == FX_SAMPLE_F64 ? 1e-9 : 1e-6);
      CHECK(worst <= tol * peak, "%s %s: same coefficients changed the output by %g (peak %g)",
            modes[m].name, variant ? "1 ulp" : "exact", worst, peak);
      printf("same-coefficients %-10s %-5s max |diff| = %.3g (peak %.3g)\n", modes[m].name,
             variant ? "1 ulp" : "exact", worst, peak);
      fx_cascade_free(a);
      fx_cascade_free(b);
      free(x);
      free(y);
    }
  }
}

/* With crossfade 0, a small coefficient change (same section count, below the engine's warm-up
 * threshold) equals a direct-form-I cascade switching at the same frame. The engine balances the
 * sections' gains (powers of two) and brings the history to the new balancing on a switch; with
 * equal sections that is the identity, so the plain DF-I reference applies exactly. */
static void test_dfi_switch(void)
{
  const size_t frames = 3000, sw = 1234;
  fx_sos_t A[8], B[8];
  const int K = 3;
  for (int s = 0; s < K; s++) {
    A[s] = biquad(0, 3000.0, 1.3, 48000.0);
    B[s] = biquad(0, 3000.0 * 1.03, 1.2, 48000.0);
  }
  double *x = noise_buf(FX_SAMPLE_F64, frames, 41, 1.0);
  double *y = malloc(frames * sizeof(double));
  memcpy(y, x, frames * sizeof(double));
  fx_cascade_t *c = make(1, FX_SAMPLE_F64, FX_PRECISION_AUTO, A, K, 1.0);
  fx_cascade_set_crossfade(c, 0);
  rng_seed(3);
  process_split(c, FX_SAMPLE_F64, y, 1, 0, sw, 1);
  fx_cascade_set_sections(c, B, K, 1.0);
  process_split(c, FX_SAMPLE_F64, y, 1, sw, frames, 0);
  /* DF-I reference */
  double xh[8][2] = {{0}}, yh[8][2] = {{0}};
  double worst = 0, peak = 0;
  for (size_t n = 0; n < frames; n++) {
    const fx_sos_t *S = n < sw ? A : B;
    double v = x[n];
    for (int s = 0; s < K; s++) {
      double o = S[s].b0 * v + S[s].b1 * xh[s][0] + S[s].b2 * xh[s][1] - S[s].a1 * yh[s][0] -
                 S[s].a2 * yh[s][1];
      xh[s][1] = xh[s][0];
      xh[s][0] = v;
      yh[s][1] = yh[s][0];
      yh[s][0] = o;
      v = o;
    }
    worst = fmax(worst, fabs(v - y[n]));
    peak = fmax(peak, fabs(v));
  }
  CHECK(worst <= 1e-10 * peak, "DF-I switch: max |diff| %g (peak %g)", worst, peak);
  printf("dfi-switch max |diff| = %.3g (peak %.3g)\n", worst, peak);
  fx_cascade_free(c);
  free(x);
  free(y);
}

/* A slow cutoff ramp (4th-order Butterworth low-pass redesigned every 64 frames, 200 Hz -> 2 kHz
 * over 1 s of noise): the largest sample-to-sample output step stays within 2x the input's. */
static double ramp_ratio(fx_sample_format_t fmt, fx_precision_t prec, size_t xfade, int vary_k,
                         int highpass)
{
  const double fs = 48000.0;
  const size_t frames = 48000, hop = 64;
  void *x = noise_buf(fmt, frames, 51, 1.0);
  double in_step = 0;
  for (size_t i = 1; i < frames; i++)
    in_step = fmax(in_step, fabs(sample_at(fmt, x, i) - sample_at(fmt, x, i - 1)));
  fx_sos_t sos[4];
  butter4(highpass, 200.0, fs, sos);
  fx_cascade_t *c = make(1, fmt, prec, sos, 2, 1.0);
  fx_cascade_set_crossfade(c, xfade);
  unsigned flags = 0;
  for (size_t pos = 0; pos < frames; pos += hop) {
    double f = 200.0 * pow(10.0, (double) pos / (double) frames);
    butter4(highpass, f, fs, sos);
    int K = 2;
    if (vary_k && (pos / hop) % 3 == 1) {
      sos[2] = biquad(highpass, highpass ? f / 3.0 : 3.0 * f, 0.7071,
                      fs); /* an extra gentle section now and then */
      K = 3;
    }
    CHECK(fx_cascade_set_sections(c, sos, K, 1.0) == FX_OK, "ramp set");
    size_t n = frames - pos < hop ? frames - pos : hop;
    flags |= fx_cascade_process(c, (char *) x + pos * ssize(fmt), n);
  }
  CHECK(flags == 0, "ramp flagged non-finite");
  double out_step = 0;
  for (size_t i = 1; i < frames; i++)
    out_step = fmax(out_step, fabs(sample_at(fmt, x, i) - sample_at(fmt, x, i - 1)));
  fx_cascade_free(c);
  free(x);
  return out_step / in_step;
}

static void test_ramp(void)
{
  double worst = 0;
  for (int hp = 0; hp < 2; hp++) {
    for (int m = 0; m < NMODES; m++) {
      double r = ramp_ratio(modes[m].fmt, modes[m].prec, 256, 0, hp);
      double r0 = ramp_ratio(modes[m].fmt, modes[m].prec, 0, 0, hp);
      double rk = ramp_ratio(modes[m].fmt, modes[m].prec, 256, 1, hp);
      printf("ramp %s %-10s step ratio: crossfade 256 %.4f, no crossfade %.4f, varying K %.4f\n",
             hp ? "high-pass" : "low-pass ", modes[m].name, r, r0, rk);
      CHECK(r <= 2.0, "%s: ramp step ratio %g", modes[m].name, r);
      CHECK(r0 <= 2.0, "%s: ramp step ratio without crossfade %g", modes[m].name, r0);
      CHECK(rk <= 2.0, "%s: ramp step ratio with varying K %g", modes[m].name, rk);
      if (!hp)
        worst = fmax(worst, fmax(r, fmax(r0, rk)));
    }
  }
  printf("ramp (low-pass) worst step ratio %.4f\n", worst);
}

/* Unstable or non-finite sections are refused and nothing changes. */
static void test_refused(void)
{
  const int C = 2;
  const size_t frames = 1000, N = frames * C;
  fx_sos_t sos[8];
  int K = test_sos(sos, 48000.0);
  double *x = noise_buf(FX_SAMPLE_F64, N, 61, 1.0);
  double *y = malloc(N * sizeof(double));
  memcpy(y, x, N * sizeof(double));
  fx_cascade_t *a = make(C, FX_SAMPLE_F64, FX_PRECISION_AUTO, sos, K, 1.0);
  fx_cascade_t *b = make(C, FX_SAMPLE_F64, FX_PRECISION_AUTO, sos, K, 1.0);
  fx_cascade_process(a, x, frames / 2);
  fx_cascade_process(b, y, frames / 2);
  fx_sos_t bad[3] = {sos[0], {1, 0, 0, -2.1, 1.1}, sos[1]};
  CHECK(fx_cascade_set_sections(b, bad, 3, 1.0) == FX_ERR_UNSTABLE, "unstable accepted");
  fx_sos_t circle = {1, 0, 0, 0, 1.0}; /* poles on the unit circle */
  CHECK(fx_cascade_set_sections(b, &circle, 1, 1.0) == FX_ERR_UNSTABLE, "unit circle accepted");
  fx_sos_t nanrow = {1, NAN, 0, 0, 0};
  CHECK(fx_cascade_set_sections(b, &nanrow, 1, 1.0) == FX_ERR_NONFINITE, "NaN accepted");
  CHECK(fx_cascade_set_sections(b, sos, K, INFINITY) == FX_ERR_GAIN, "Inf gain accepted");
  CHECK(fx_cascade_sections(b) == K, "sections changed by a refused set");
  fx_cascade_process(a, x + N / 2, frames / 2);
  fx_cascade_process(b, y + N / 2, frames / 2);
  CHECK(memcmp(x, y, N * sizeof(double)) == 0, "a refused set changed the output");
  fx_cascade_free(a);
  fx_cascade_free(b);
  free(x);
  free(y);
}

/* dispatches, backend, uses_double, configure errors. */
static void test_queries(void)
{
  fx_sos_t sos[8];
  int K = test_sos(sos, 48000.0);
  fx_cascade_t *c = make(2, FX_SAMPLE_F32, FX_PRECISION_SINGLE, sos, K, 1.0);
  char want[64];
  /* two channels in float arithmetic run through the chunked kernels where vectors hold 8 floats */
  const char *ck = fx_kernel_select()->lanes_f32 >= 8 ? "-chunk" : "";
  snprintf(want, sizeof(want), "cpu-%s-f32%s", fx_kernel_select()->name, ck);
  CHECK(strcmp(fx_cascade_backend(c), want) == 0, "backend %s", fx_cascade_backend(c));
  CHECK(!fx_cascade_uses_double(c), "single uses double");
  CHECK(fx_cascade_channels(c) == 2, "channels");
  float buf[64] = {0};
  fx_cascade_process(c, buf, 16);
  fx_cascade_process(c, buf, 0);
  fx_cascade_process(c, buf, 1);
  CHECK(fx_cascade_dispatches(c) == 2, "dispatches %llu",
        (unsigned long long) fx_cascade_dispatches(c));
  fx_cascade_reset_dispatches(c);
  CHECK(fx_cascade_dispatches(c) == 0, "dispatch reset");
  CHECK(fx_cascade_configure(c, 2, FX_SAMPLE_F32, FX_PRECISION_AUTO) == FX_OK, "reconfigure");
  /* AUTO before a probe of the design (none was installed under AUTO): double */
  snprintf(want, sizeof(want), "cpu-%s-f64", fx_kernel_select()->name);
  CHECK(strcmp(fx_cascade_backend(c), want) == 0, "auto backend %s", fx_cascade_backend(c));
  CHECK(fx_cascade_uses_double(c), "auto uses double");
  CHECK(fx_cascade_configure(c, 1, FX_SAMPLE_F64, FX_PRECISION_SINGLE) == FX_OK, "f64");
  CHECK(fx_cascade_uses_double(c), "f64 always double");
  CHECK(fx_cascade_configure(c, 0, FX_SAMPLE_F64, FX_PRECISION_AUTO) != FX_OK, "0 channels");
  /* channel count change keeps coefficients and works */
  CHECK(fx_cascade_configure(c, 5, FX_SAMPLE_F64, FX_PRECISION_AUTO) == FX_OK, "5 channels");
  double d[5 * 100];
  for (int i = 0; i < 500; i++)
    d[i] = (i % 7) - 3.0;
  CHECK(fx_cascade_process(c, d, 100) == 0, "process after reconfigure");
  CHECK(fx_cascade_sections(c) == K, "sections kept over configure");
  fx_cascade_free(c);

  /* set_sections before configure */
  fx_cascade_t *e = fx_cascade_new();
  CHECK(fx_cascade_set_sections(e, sos, K, 1.0) == FX_OK, "set before configure");
  CHECK(fx_cascade_configure(e, 3, FX_SAMPLE_F32, FX_PRECISION_DOUBLE) == FX_OK, "configure");
  float f[300] = {1.0f};
  CHECK(fx_cascade_process(e, f, 100) == 0, "process");
  CHECK(f[0] != 0.0f && isfinite(f[99 * 3]), "filtered");
  fx_cascade_free(e);
  fx_cascade_free(NULL);
}

/* fx_cascade_set_history(): without input history the output of a stream whose coefficients do
 * not change is the same, bit for bit (F32 and F64, one and two stages, random splits); a change
 * that needs a warm-up (the second stage's section count) filters no warm-up frames and starts
 * from the zero state, so the output stays finite and, once the crossfade and the new sections'
 * start-up transient are over, equals the new cascade run over the whole input; with history
 * the same change warms up on recent input (warm frames counted: 374 for that stage), and history
 * turned on again 100 frames before the change warms up on those 100 only. */
static void test_history_off(void)
{
  const int C = 3;
  const size_t N = 40000, cut = 20000, settle = 12000;
  fx_sos_t lp[2], hp[2], hp1;
  butter4(0, 3000.0, 48000.0, lp);
  butter4(1, 80.0, 48000.0, hp);
  hp1 = biquad(1, 200.0, 0.7071, 48000.0);
  for (int f = 0; f < 2; f++) {
    const fx_sample_format_t fmt = f ? FX_SAMPLE_F64 : FX_SAMPLE_F32;
    for (int S = 1; S <= 2; S++) {
      const fx_cascade_stage_t st[2] = {{FX_CASCADE_STAGE_SECTIONS, lp, 2, 1.0},
                                        {FX_CASCADE_STAGE_SECTIONS, hp, 2, 1.0}};
      void *in = noise_buf(fmt, N * C, 91 + (uint64_t) S, 0.5);
      void *a = dup_buf(fmt, in, N * C), *b = dup_buf(fmt, in, N * C);
      fx_cascade_t *on = fx_cascade_new(), *off = fx_cascade_new();
      fx_cascade_configure(on, C, fmt, FX_PRECISION_AUTO);
      fx_cascade_configure(off, C, fmt, FX_PRECISION_AUTO);
      CHECK(fx_cascade_set_history(off, 0) == FX_OK, "history off");
      fx_cascade_set_stages(on, st, S);
      fx_cascade_set_stages(off, st, S);
      rng_seed(5);
      process_split(on, fmt, a, C, 0, N, 0);
      rng_seed(5);
      process_split(off, fmt, b, C, 0, N, 0);
      CHECK(memcmp(a, b, N * C * ssize(fmt)) == 0,
            "fmt %d, %d stage(s): same output without history", f, S);
      fx_cascade_free(on);
      fx_cascade_free(off);
      free(a);
      free(b);
      free(in);
    }
    /* a change of section count in the second stage at `cut` */
    const fx_cascade_stage_t st1[2] = {{FX_CASCADE_STAGE_SECTIONS, lp, 2, 1.0},
                                       {FX_CASCADE_STAGE_SECTIONS, hp, 2, 1.0}};
    const fx_cascade_stage_t st2[2] = {{FX_CASCADE_STAGE_SECTIONS, lp, 2, 1.0},
                                       {FX_CASCADE_STAGE_SECTIONS, &hp1, 1, 1.0}};
    void *in = noise_buf(fmt, N * C, 17, 0.5);
    for (int mode = 0; mode < 3;
         mode++) { /* 0: history, 1: none, 2: none, on again 100 frames before */
      void *y = dup_buf(fmt, in, N * C), *ref = dup_buf(fmt, in, N * C);
      fx_cascade_t *c = fx_cascade_new(), *r = fx_cascade_new();
      fx_cascade_configure(c, C, fmt, FX_PRECISION_AUTO);
      fx_cascade_configure(r, C, fmt, FX_PRECISION_AUTO);
      fx_cascade_set_crossfade(c, 256);
      if (mode > 0)
        fx_cascade_set_history(c, 0);
      fx_cascade_set_stages(c, st1, 2);
      fx_cascade_set_stages(r, st2, 2);
      fx_cascade_process(r, ref, N);
      const size_t fb = (size_t) C * ssize(fmt);
      if (mode == 2) {
        fx_cascade_process(c, y, cut - 100);
        CHECK(fx_cascade_set_history(c, 1) == FX_OK, "history on again");
        fx_cascade_process(c, (char *) y + (cut - 100) * fb, 100);
      } else {
        fx_cascade_process(c, y, cut);
      }
      const uint64_t w0 = fx_cascade_warm_frames(c);
      CHECK(fx_cascade_set_stages(c, st2, 2) == FX_OK, "change");
      const uint64_t warm = fx_cascade_warm_frames(c) - w0;
      fx_cascade_process(c, (char *) y + cut * fb, N - cut);
      double worst = 0.0, late = 0.0, peak = 0.0;
      int finite = 1;
      for (size_t i = cut * (size_t) C; i < N * (size_t) C; i++) {
        const double v = sample_at(fmt, y, i), e = fabs(v - sample_at(fmt, ref, i));
        finite &= isfinite(v);
        peak = fmax(peak, fabs(sample_at(fmt, ref, i)));
        worst = fmax(worst, e);
        if (i >= (cut + settle) * (size_t) C)
          late = fmax(late, e);
      }
      printf("history mode %d fmt %d: warm frames %llu, max diff after the change %.3g, after "
             "%zu frames %.3g (peak %.3g)\n",
             mode, f, (unsigned long long) warm, worst, settle, late, peak);
      CHECK(finite, "mode %d: finite", mode);
      if (mode == 0)
        CHECK(warm > 0, "with history the change warms up (%llu)", (unsigned long long) warm);
      else if (mode == 1)
        CHECK(warm == 0, "without history no warm-up (%llu)", (unsigned long long) warm);
      else
        CHECK(warm > 0 && warm <= cut / 2, "history from cut/2 only: %llu",
              (unsigned long long) warm);
      CHECK(late <= (f ? 1e-9 : 1e-5) * peak, "mode %d fmt %d: settles to the new cascade (%.3g)",
            mode, f, late);
      fx_cascade_free(c);
      fx_cascade_free(r);
      free(y);
      free(ref);
    }
    free(in);
  }
  CHECK(fx_cascade_set_history(NULL, 0) != FX_OK, "NULL");
}

/* fx_cascade_padded_channels: unchanged below 1 KiB per frame; from there a frame of an odd
 * number of cache lines, at most 127 bytes more, never fewer channels. */
static void test_padded_channels(void)
{
  const int sizes[] = {4, 8};
  for (int k = 0; k < 2; k++) {
    const int b = sizes[k];
    for (int ch = 1; ch <= 5000; ch++) {
      const int p = fx_cascade_padded_channels(ch, b);
      if (ch * b < 1024) {
        CHECK(p == ch, "%d-byte samples, %d channels: %d", b, ch, p);
        continue;
      }
      CHECK(p >= ch && (p - ch) * b <= 127 && (p * b) % 64 == 0 && (p * b / 64) % 2 == 1,
            "%d-byte samples, %d channels: %d", b, ch, p);
    }
  }
  CHECK(fx_cascade_padded_channels(1024, 4) == 1040, "1024 F32: %d",
        fx_cascade_padded_channels(1024, 4));
  CHECK(fx_cascade_padded_channels(1040, 4) == 1040, "1040 F32 kept");
  CHECK(fx_cascade_padded_channels(512, 8) == 520, "512 F64: %d",
        fx_cascade_padded_channels(512, 8));
  CHECK(fx_cascade_padded_channels(0, 4) == 0 && fx_cascade_padded_channels(300, 3) == 300,
        "odd arguments unchanged");
}

/* Denormals: a decaying tail never produces subnormal output (flush-to-zero in the kernel) and
 * the caller's floating-point mode is restored. */
static void test_denormals(void)
{
#if defined(__SSE2__) || defined(__aarch64__)
  fx_sos_t sos[8];
  int K = test_sos(sos, 48000.0);
  for (int m = 0; m < NMODES; m++) {
    const fx_sample_format_t fmt = modes[m].fmt;
    const size_t frames = 200000;
    void *x = calloc(frames, ssize(fmt));
    if (fmt == FX_SAMPLE_F64)
      ((double *) x)[0] = 1.0;
    else
      ((float *) x)[0] = 1.0f;
    fx_cascade_t *c = make(1, fmt, modes[m].prec, sos, K, 1.0);
#if defined(__SSE2__)
    unsigned before = _mm_getcsr();
#endif
    fx_cascade_process(c, x, frames);
#if defined(__SSE2__)
    CHECK(_mm_getcsr() == before, "MXCSR not restored");
#endif
    size_t sub = 0;
    for (size_t i = 0; i < frames; i++) {
      double v = sample_at(fmt, x, i);
      if (fmt == FX_SAMPLE_F64)
        sub += fpclassify(v) == FP_SUBNORMAL;
      else
        sub += fpclassify((float) v) == FP_SUBNORMAL;
    }
    CHECK(sub == 0, "%s: %zu subnormal output samples", modes[m].name, sub);
    CHECK(sample_at(fmt, x, frames - 1) == 0.0, "%s: tail did not decay to zero", modes[m].name);
    fx_cascade_free(c);
    free(x);
  }
#endif
}

/* ------------------------------------------------------------------------------------------- */
/* Large parameter jumps and fast ramps with real designs (dsp/design.h), as an element drives
 * the engine: 256-frame buffers, new coefficients between buffers. DESIGN section 3: the largest
 * sample-to-sample output step stays within 2x that of the unfiltered input, and the output stays
 * sane (no burst). The designs put the whole gain in the first section (1e-23 and smaller at low
 * cutoffs), which the engine must cope with. */

typedef struct {
  fx_mode_t mode;
  int order;
  double f1, f2; /* cutoff (f2 unused) or band edges */
} jdesign_t;

static int jdesign(const jdesign_t *d, double fs, fx_sos_t *sos)
{
  fx_iir_spec_t s;
  memset(&s, 0, sizeof(s));
  s.family = FX_FAMILY_BUTTERWORTH;
  s.mode = d->mode;
  s.order = d->order;
  s.rate = fs;
  if (d->mode == FX_MODE_BAND_PASS || d->mode == FX_MODE_BAND_REJECT) {
    s.lower = d->f1;
    s.upper = d->f2;
  } else {
    s.cutoff = d->f1;
  }
  int n = 0;
  if (fx_design_iir(&s, sos, FX_DESIGN_MAX_SECTIONS, &n) != FX_OK)
    abort();
  return n;
}

static void *sine_buf(fx_sample_format_t fmt, size_t frames, int C, double f, double amp, double fs)
{
  void *d = malloc(frames * (size_t) C * ssize(fmt));
  for (size_t i = 0; i < frames; i++)
    for (int ch = 0; ch < C; ch++) {
      double v = amp * sin(2.0 * M_PI * f * (double) i / fs);
      if (fmt == FX_SAMPLE_F64)
        ((double *) d)[i * (size_t) C + (size_t) ch] = v;
      else
        ((float *) d)[i * (size_t) C + (size_t) ch] = (float) v;
    }
  return d;
}

/* Largest step and peak over frames [from, frames) of channel ch. */
static void step_peak(fx_sample_format_t fmt, const void *d, size_t frames, int C, size_t from,
                      double *step, double *peak)
{
  *step = 0;
  *peak = 0;
  for (int ch = 0; ch < C; ch++)
    for (size_t i = from; i < frames; i++) {
      double v = sample_at(fmt, d, i * (size_t) C + (size_t) ch);
      *peak = fmax(*peak, fabs(v));
      if (i > from)
        *step = fmax(*step, fabs(v - sample_at(fmt, d, (i - 1) * (size_t) C + (size_t) ch)));
    }
}

/* One jump: design a until buffer 40 (of 256 frames), then design b. Input: 440 Hz sine of
 * amplitude 0.5 (or white noise), 2 channels. Returns the step ratio, *peak_ratio the output
 * peak over the input peak, both measured from 0.1 s on (past the onset transient). */
static double jump_case(fx_sample_format_t fmt, fx_precision_t prec, const jdesign_t *a,
                        const jdesign_t *b, int use_noise, double *peak_ratio,
                        unsigned long long *warm)
{
  const double fs = 48000.0;
  const int C = 2;
  const size_t frames = 24000, hop = 256, sw = 40;
  void *x =
      use_noise ? noise_buf(fmt, frames * C, 91, 0.5) : sine_buf(fmt, frames, C, 440.0, 0.5, fs);
  double in_step, in_peak;
  step_peak(fmt, x, frames, C, 0, &in_step, &in_peak);
  fx_sos_t sa[FX_DESIGN_MAX_SECTIONS], sb[FX_DESIGN_MAX_SECTIONS];
  int Ka = jdesign(a, fs, sa), Kb = jdesign(b, fs, sb);
  fx_cascade_t *c = make(C, fmt, prec, sa, Ka, 1.0);
  unsigned flags = 0;
  for (size_t k = 0; k * hop < frames; k++) {
    if (k == sw)
      CHECK(fx_cascade_set_sections(c, sb, Kb, 1.0) == FX_OK, "jump set");
    size_t n = frames - k * hop < hop ? frames - k * hop : hop;
    flags |= fx_cascade_process(c, (char *) x + k * hop * (size_t) C * ssize(fmt), n);
  }
  CHECK(flags == 0, "jump flagged non-finite");
  *warm = fx_cascade_warm_frames(c);
  double out_step, out_peak;
  step_peak(fmt, x, frames, C, (size_t) (0.1 * fs), &out_step, &out_peak);
  fx_cascade_free(c);
  free(x);
  *peak_ratio = out_peak / in_peak;
  return out_step / in_step;
}

/* A controller-like ramp: the cutoff moves linearly from f0 to f1 between 0.2 s and 0.8 s, the
 * filter redesigned every 256 frames, white noise or a 440 Hz sine (amplitude 0.5) in, 1 s, 2
 * channels. */
static double ramp_case(fx_sample_format_t fmt, fx_precision_t prec, fx_mode_t mode, int order,
                        double f0, double f1, int use_noise, double *peak_ratio,
                        unsigned long long *warm)
{
  const double fs = 48000.0;
  const int C = 2;
  const size_t frames = 48000, hop = 256;
  void *x =
      use_noise ? noise_buf(fmt, frames * C, 93, 0.5) : sine_buf(fmt, frames, C, 440.0, 0.5, fs);
  double in_step, in_peak;
  step_peak(fmt, x, frames, C, 0, &in_step, &in_peak);
  fx_sos_t sos[FX_DESIGN_MAX_SECTIONS];
  jdesign_t d = {mode, order, f0, 0};
  int K = jdesign(&d, fs, sos);
  fx_cascade_t *c = make(C, fmt, prec, sos, K, 1.0);
  unsigned flags = 0;
  for (size_t pos = 0; pos < frames; pos += hop) {
    double t = (double) pos / fs;
    double u = t < 0.2 ? 0.0 : (t > 0.8 ? 1.0 : (t - 0.2) / 0.6);
    d.f1 = f0 + (f1 - f0) * u;
    K = jdesign(&d, fs, sos);
    CHECK(fx_cascade_set_sections(c, sos, K, 1.0) == FX_OK, "ramp set");
    size_t n = frames - pos < hop ? frames - pos : hop;
    flags |= fx_cascade_process(c, (char *) x + pos * (size_t) C * ssize(fmt), n);
  }
  CHECK(flags == 0, "ramp flagged non-finite");
  *warm = fx_cascade_warm_frames(c);
  double out_step, out_peak;
  step_peak(fmt, x, frames, C, (size_t) (0.1 * fs), &out_step, &out_peak);
  fx_cascade_free(c);
  free(x);
  *peak_ratio = out_peak / in_peak;
  return out_step / in_step;
}

static void test_design_jumps(void)
{
  static const struct {
    const char *name;
    jdesign_t a, b;
    int noise;
    double peak_max; /* output peak / input peak */
  } cases[] = {
      {"lp8 15000->1000", {FX_MODE_LOW_PASS, 8, 15000, 0}, {FX_MODE_LOW_PASS, 8, 1000, 0}, 0, 2.0},
      {"lp8 1000->15000", {FX_MODE_LOW_PASS, 8, 1000, 0}, {FX_MODE_LOW_PASS, 8, 15000, 0}, 0, 2.0},
      {"lp4 2000->9000", {FX_MODE_LOW_PASS, 4, 2000, 0}, {FX_MODE_LOW_PASS, 4, 9000, 0}, 0, 2.0},
      {"lp 2->8 @2k", {FX_MODE_LOW_PASS, 2, 2000, 0}, {FX_MODE_LOW_PASS, 8, 2000, 0}, 0, 2.0},
      {"lp 8->16 @2k", {FX_MODE_LOW_PASS, 8, 2000, 0}, {FX_MODE_LOW_PASS, 16, 2000, 0}, 0, 2.0},
      {"lp 8->2 @2k", {FX_MODE_LOW_PASS, 8, 2000, 0}, {FX_MODE_LOW_PASS, 2, 2000, 0}, 0, 2.0},
      {"lp 16->3 @2k", {FX_MODE_LOW_PASS, 16, 2000, 0}, {FX_MODE_LOW_PASS, 3, 2000, 0}, 0, 2.0},
      {"lp8 4k->lp16 600", {FX_MODE_LOW_PASS, 8, 4000, 0}, {FX_MODE_LOW_PASS, 16, 600, 0}, 0, 2.0},
      {"lp16 600->lp8 4k", {FX_MODE_LOW_PASS, 16, 600, 0}, {FX_MODE_LOW_PASS, 8, 4000, 0}, 0, 2.0},
      {"lp16 15000->600", {FX_MODE_LOW_PASS, 16, 15000, 0}, {FX_MODE_LOW_PASS, 16, 600, 0}, 0, 2.0},
      {"hp4 80->2000", {FX_MODE_HIGH_PASS, 4, 80, 0}, {FX_MODE_HIGH_PASS, 4, 2000, 0}, 0, 2.0},
      {"hp8 80->2000", {FX_MODE_HIGH_PASS, 8, 80, 0}, {FX_MODE_HIGH_PASS, 8, 2000, 0}, 0, 2.0},
      {"hp8 2000->80", {FX_MODE_HIGH_PASS, 8, 2000, 0}, {FX_MODE_HIGH_PASS, 8, 80, 0}, 0, 2.0},
      {"hp8 80->2000 noise",
       {FX_MODE_HIGH_PASS, 8, 80, 0},
       {FX_MODE_HIGH_PASS, 8, 2000, 0},
       1,
       3.0},
      {"lp->hp 8 @1k", {FX_MODE_LOW_PASS, 8, 1000, 0}, {FX_MODE_HIGH_PASS, 8, 1000, 0}, 0, 2.0},
      {"bp4 300-3000->1000-8000",
       {FX_MODE_BAND_PASS, 4, 300, 3000},
       {FX_MODE_BAND_PASS, 4, 1000, 8000},
       0,
       2.0},
      {"bp4 1000-8000->200-600",
       {FX_MODE_BAND_PASS, 4, 1000, 8000},
       {FX_MODE_BAND_PASS, 4, 200, 600},
       0,
       2.0},
      {"bp2 300-3000->bp8 400-480",
       {FX_MODE_BAND_PASS, 2, 300, 3000},
       {FX_MODE_BAND_PASS, 8, 400, 480},
       0,
       2.0},
      {"bp6 noise 100-400->5000-9000",
       {FX_MODE_BAND_PASS, 6, 100, 400},
       {FX_MODE_BAND_PASS, 6, 5000, 9000},
       1,
       3.0},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    for (int m = 0; m < NMODES; m++) {
      double pr;
      unsigned long long wf;
      double r = jump_case(modes[m].fmt, modes[m].prec, &cases[i].a, &cases[i].b, cases[i].noise,
                           &pr, &wf);
      printf("jump %-30s %-10s step ratio %7.4f  peak ratio %7.4f  warm-up frames %llu\n",
             cases[i].name, modes[m].name, r, pr, wf);
      CHECK(r <= 2.0, "jump %s %s: step ratio %g", cases[i].name, modes[m].name, r);
      CHECK(pr <= cases[i].peak_max, "jump %s %s: peak ratio %g", cases[i].name, modes[m].name, pr);
    }
  }
  static const struct {
    const char *name;
    fx_mode_t mode;
    int order;
    double f0, f1;
  } ramps[] = {
      {"lp16 15000->600", FX_MODE_LOW_PASS, 16, 15000, 600},
      {"lp16 600->15000", FX_MODE_LOW_PASS, 16, 600, 15000},
      {"lp8 15000->1000", FX_MODE_LOW_PASS, 8, 15000, 1000},
      {"lp16 2000->50", FX_MODE_LOW_PASS, 16, 2000, 50},
      {"hp8 20->2000", FX_MODE_HIGH_PASS, 8, 20, 2000},
      {"hp8 5000->40", FX_MODE_HIGH_PASS, 8, 5000, 40},
  };
  for (size_t i = 0; i < sizeof(ramps) / sizeof(ramps[0]); i++) {
    for (int m = 0; m < NMODES; m++) {
      for (int nz = 0; nz < 2; nz++) {
        double pr;
        unsigned long long wf;
        double r = ramp_case(modes[m].fmt, modes[m].prec, ramps[i].mode, ramps[i].order,
                             ramps[i].f0, ramps[i].f1, nz, &pr, &wf);
        printf("ramp %-24s %-5s %-10s step ratio %7.4f  peak ratio %7.4f  warm-up frames %llu\n",
               ramps[i].name, nz ? "noise" : "sine", modes[m].name, r, pr, wf);
        /* a controller ramp (small steps) uses the direct-form-I transfer: no warm-up cost */
        CHECK(wf == 0, "ramp %s %s: %llu warm-up frames", ramps[i].name, modes[m].name, wf);
        CHECK(r <= 2.0, "ramp %s %s %s: step ratio %g", ramps[i].name, nz ? "noise" : "sine",
              modes[m].name, r);
        /* white noise through a high-pass peaks above the input's peak by itself */
        CHECK(pr <= (nz ? 3.0 : 2.0), "ramp %s %s %s: peak ratio %g", ramps[i].name,
              nz ? "noise" : "sine", modes[m].name, pr);
      }
    }
  }
}

/* ------------------------------------------------------------------------------------------- */
/* Stages: one engine with fx_cascade_set_stages() against the chain it stands for (a standalone
 * engine per SECTIONS stage, a dsp/gain.c ramp per GAIN stage), on random chains, random splits
 * and random parameter changes. */

#include "gain.h"

#define CH_MAX 12
#define CH_SECS 4

typedef struct {
  int gain;    /* 1: a GAIN stage */
  int type;    /* SECTIONS: 0 low-pass biquad, 1 high-pass biquad, 2 butter4 low, 3 butter4 high */
  double f, q; /* SECTIONS parameters */
  double g;    /* GAIN: target */
  double applied;
  int have;
  fx_sos_t sos[CH_SECS];
  int n;
  fx_cascade_t *e;
} ch_stage_t;

static void ch_design(ch_stage_t *st, double fs)
{
  if (st->type >= 2) {
    butter4(st->type == 3, st->f, fs, st->sos);
    st->n = 2;
  } else {
    st->sos[0] = biquad(st->type == 1, st->f, st->q, fs);
    st->n = 1;
  }
}

static void ch_install(ch_stage_t *cs, int n, fx_cascade_t *fused)
{
  fx_cascade_stage_t d[CH_MAX];
  for (int i = 0; i < n; i++) {
    if (cs[i].gain) {
      d[i] = (fx_cascade_stage_t){FX_CASCADE_STAGE_GAIN, NULL, 0, cs[i].g};
    } else {
      d[i] = (fx_cascade_stage_t){FX_CASCADE_STAGE_SECTIONS, cs[i].sos, cs[i].n, 1.0};
      if (fx_cascade_set_sections(cs[i].e, cs[i].sos, cs[i].n, 1.0) != FX_OK)
        abort();
    }
  }
  if (fx_cascade_set_stages(fused, d, n) != FX_OK)
    abort();
}

static void ch_process(ch_stage_t *cs, int n, fx_sample_format_t fmt, void *data, size_t frames,
                       int C)
{
  for (int i = 0; i < n; i++) {
    if (!cs[i].gain) {
      fx_cascade_process(cs[i].e, data, frames);
      continue;
    }
    double from = cs[i].have ? cs[i].applied : cs[i].g;
    if (fmt == FX_SAMPLE_F64)
      fx_gain_apply_f64(data, frames, C, from, cs[i].g, 0);
    else
      fx_gain_apply_f32(data, frames, C, from, cs[i].g, 0);
    cs[i].applied = cs[i].g;
    cs[i].have = 1;
  }
}

enum { CHG_RAMP, CHG_STEP, CHG_GAIN, CHG_JUMP, CHG_COUNT, CHG_JUMP_AFTER, CHG_MIXED, CHG_N };
static const char *chg_names[CHG_N] = {
    "controller ramp",      "moderate step",           "gain change",
    "large jump (warm-up)", "section count (warm-up)", "jump just after a change",
    "everything at random"};

/* One random chain, one kind of change; returns max |fused - chain| / max |chain| over the
 * whole output and (*win) over the frames within 2000 of a change. */
static double stages_trial_out(int kind, uint64_t seed, fx_sample_format_t fmt, fx_precision_t prec,
                               int big, double *win, void **chain_out);
/* samples (frames x channels) of the last trial's output */
static size_t stages_trial_samples;

static double stages_trial(int kind, uint64_t seed, fx_sample_format_t fmt, fx_precision_t prec,
                           int big, double *win)
{
  return stages_trial_out(kind, seed, fmt, prec, big, win, NULL);
}

/* As stages_trial(); *chain_out (when not NULL) receives the chain's output (free() it). */
static double stages_trial_out(int kind, uint64_t seed, fx_sample_format_t fmt, fx_precision_t prec,
                               int big, double *win, void **chain_out)
{
  const double fs = 48000.0;
  rng_seed(seed);
  const int C = 1 + (int) (rng_next() % 3);
  const size_t frames = 30000;
  ch_stage_t cs[CH_MAX];
  int n = 0;
  const int S = 2 + (int) (rng_next() % 3);
  memset(cs, 0, sizeof(cs));
  for (int s = 0; s < S; s++) {
    if (rng_next() % 3 == 0 || kind == CHG_GAIN) { /* a gain in front */
      cs[n].gain = 1;
      cs[n].g = pow(10.0, (rng_uniform() * 9.0) / 20.0);
      n++;
    }
    cs[n].type = (int) (rng_next() % 4);
    cs[n].f = 200.0 + 6000.0 * (rng_uniform() + 1.0);
    cs[n].q = 0.5 + 2.0 * (rng_uniform() + 1.0);
    ch_design(&cs[n], fs);
    cs[n].e = fx_cascade_new();
    fx_cascade_configure(cs[n].e, C, fmt, prec);
    fx_cascade_set_crossfade(cs[n].e, 240);
    n++;
  }
  if (rng_next() % 2 == 0 || kind == CHG_GAIN) { /* a gain at the end */
    cs[n].gain = 1;
    cs[n].g = pow(10.0, (rng_uniform() * 9.0) / 20.0);
    n++;
  }
  fx_cascade_t *f = fx_cascade_new();
  fx_cascade_configure(f, C, fmt, prec);
  fx_cascade_set_crossfade(f, 240);
  ch_install(cs, n, f);

  void *x = noise_buf(fmt, frames * (size_t) C, seed + 7, 0.5);
  void *y = dup_buf(fmt, x, frames * (size_t) C);
  rng_seed(seed * 31 + 5);
  char *near = calloc(frames, 1);
  size_t pos = 0, next_change = 3000 + rng_next() % 3000;
  int ramp_left = 0, ramp_stage = -1;
  while (pos < frames) {
    /* changes before this buffer, on both */
    int changed = 0;
    if (ramp_left > 0) {
      cs[ramp_stage].f *= cs[ramp_stage].f > 4000.0 ? 0.97 : 1.03;
      ch_design(&cs[ramp_stage], fs);
      ramp_left--;
      changed = 1;
    }
    if (pos >= next_change) {
      int k = kind == CHG_MIXED ? (int) (rng_next() % CHG_MIXED) : kind;
      int iirs[CH_MAX], ni = 0, gains[CH_MAX], ng = 0;
      for (int i = 0; i < n; i++) {
        if (cs[i].gain)
          gains[ng++] = i;
        else
          iirs[ni++] = i;
      }
      int t = iirs[rng_next() % (uint64_t) ni];
      switch (k) {
      case CHG_RAMP:
        ramp_stage = t;
        ramp_left = 20;
        break;
      case CHG_STEP:
        cs[t].f *= cs[t].f > 4000.0 ? 0.8 : 1.25;
        cs[t].q *= 1.1;
        ch_design(&cs[t], fs);
        break;
      case CHG_GAIN:
        if (ng > 0)
          cs[gains[rng_next() % (uint64_t) ng]].g *= pow(10.0, rng_uniform() * 0.5);
        break;
      case CHG_JUMP:
        t = iirs[ni - 1];
        cs[t].f = cs[t].f > 3000 ? cs[t].f / 8.0 : cs[t].f * 6.0;
        ch_design(&cs[t], fs);
        break;
      case CHG_COUNT:
        cs[t].type ^= 2;
        ch_design(&cs[t], fs);
        break;
      case CHG_JUMP_AFTER: {
        /* an earlier stage changes, then, 1000 frames later, a later one jumps */
        t = iirs[ni - 1];
        int u = iirs[0];
        /* up, or down where up would leave the band (repeated changes of one stage must not
         * reach Nyquist, where the design is invalid: FX_TEST_SEED=5 got there) */
        cs[u].f = cs[u].f * 1.2 < 0.4 * fs ? cs[u].f * 1.2 : cs[u].f / 1.2;
        ch_design(&cs[u], fs);
        ch_install(cs, n, f);
        size_t m = 1000 < frames - pos ? 1000 : frames - pos;
        char *p = (char *) y + pos * (size_t) C * ssize(fmt);
        void *q = dup_buf(fmt, p, m * (size_t) C);
        ch_process(cs, n, fmt, p, m, C);
        fx_cascade_process(f, q, m);
        memcpy((char *) x + pos * (size_t) C * ssize(fmt), q, m * (size_t) C * ssize(fmt));
        free(q);
        for (size_t i = pos; i < pos + m; i++)
          near[i] |= 1;
        pos += m;
        cs[t].f = cs[t].f > 3000 ? cs[t].f / 8.0 : cs[t].f * 6.0;
        ch_design(&cs[t], fs);
        break;
      }
      default:
        break;
      }
      changed = 1;
      next_change = pos + 4000 + rng_next() % 6000;
    }
    if (changed) {
      ch_install(cs, n, f);
      for (size_t i = pos; i < pos + 2000 && i < frames; i++)
        near[i] |= 1;
    }
    if (pos >= frames)
      break;
    uint64_t r = rng_next();
    size_t m = (r & 7) == 0 ? 1 + (r >> 8) % 3 : 1 + (r >> 8) % (big ? 9000 : 700);
    if (m > frames - pos)
      m = frames - pos;
    char *p = (char *) y + pos * (size_t) C * ssize(fmt);
    void *q = dup_buf(fmt, p, m * (size_t) C);
    ch_process(cs, n, fmt, p, m, C);
    fx_cascade_process(f, q, m);
    /* keep both outputs: chain in y, fused in x (x's input is no longer needed) */
    memcpy((char *) x + pos * (size_t) C * ssize(fmt), q, m * (size_t) C * ssize(fmt));
    free(q);
    pos += m;
  }
  double emax = 0.0, ewin = 0.0, ymax = 0.0;
  for (size_t i = 0; i < frames; i++) {
    for (int ch = 0; ch < C; ch++) {
      size_t k = i * (size_t) C + (size_t) ch;
      double a = sample_at(fmt, y, k), b = sample_at(fmt, x, k);
      ymax = fmax(ymax, fabs(a));
      emax = fmax(emax, fabs(a - b));
      if (near[i])
        ewin = fmax(ewin, fabs(a - b));
    }
  }
  for (int i = 0; i < n; i++)
    fx_cascade_free(cs[i].e);
  fx_cascade_free(f);
  free(x);
  stages_trial_samples = frames * (size_t) C;
  if (chain_out)
    *chain_out = y;
  else
    free(y);
  free(near);
  /* F32: relative to the output or, when a chain attenuates strongly, to a tenth of the input
   * level (the rounding of the signals between the stages sets the floor) */
  if (fmt == FX_SAMPLE_F32)
    ymax = fmax(ymax, 0.05);
  *win = ewin / ymax;
  return emax / ymax;
}

static void test_stages_equal_chain(void)
{
  for (int k = 0; k < CHG_N; k++) {
    double worst = 0.0, worst_win = 0.0, w;
    for (uint64_t seed = 1; seed <= 12; seed++) {
      double e =
          stages_trial(k, seed * 1000 + (uint64_t) k, FX_SAMPLE_F64, FX_PRECISION_AUTO, 0, &w);
      worst = fmax(worst, e);
      worst_win = fmax(worst_win, w);
    }
    printf("stages vs chain, F64, %-26s: max rel diff %.3g (transition windows %.3g)\n",
           chg_names[k], worst, worst_win);
    CHECK(worst <= 1e-10, "%s: fused vs chain %.3g", chg_names[k], worst);
  }
  /* buffers of up to 9000 frames (checkpoints fall further apart) */
  for (int k = 0; k < CHG_N; k++) {
    double worst = 0.0, w;
    for (uint64_t seed = 1; seed <= 6; seed++)
      worst = fmax(worst, stages_trial(k, seed * 13 + (uint64_t) k, FX_SAMPLE_F64,
                                       FX_PRECISION_AUTO, 1, &w));
    printf("stages vs chain, F64, long buffers, %-26s: max rel diff %.3g\n", chg_names[k], worst);
    CHECK(worst <= 1e-10, "long buffers, %s: fused vs chain %.3g", chg_names[k], worst);
  }
  for (int k = 0; k < CHG_N; k++) {
    double worst = 0.0, w;
    for (uint64_t seed = 1; seed <= 6; seed++) {
      double e =
          stages_trial(k, seed * 77 + (uint64_t) k, FX_SAMPLE_F32, FX_PRECISION_DOUBLE, 0, &w);
      worst = fmax(worst, e);
    }
    printf("stages vs chain, F32 double, %-26s: max rel diff %.3g\n", chg_names[k], worst);
    CHECK(worst <= 1e-5, "F32 %s: fused vs chain %.3g", chg_names[k], worst);
  }
  /* single-precision arithmetic (float state and coefficients): the chain rounds its signals
   * between stages to float as well, the staged engine keeps them in float registers */
  /* The bar: 1e-4, or where float arithmetic loses more on a random chain (poles near the unit
   * circle, a warm-up from rounded samples: some values of FX_TEST_SEED), 4x the chain's own
   * single-precision error, measured against the same chain in double arithmetic (same stream
   * format, same changes and splits). */
  for (int k = 0; k < CHG_N; k++) {
    double worst = 0.0, worst_own = 0.0, w, w2;
    int over = 0;
    for (uint64_t seed = 1; seed <= 4; seed++) {
      void *ys = NULL, *yd = NULL;
      const uint64_t sd = seed * 91 + (uint64_t) k;
      const double e = stages_trial_out(k, sd, FX_SAMPLE_F32, FX_PRECISION_SINGLE, 0, &w, &ys);
      stages_trial_out(k, sd, FX_SAMPLE_F32, FX_PRECISION_DOUBLE, 0, &w2, &yd);
      double d = 0.0, m = 0.05; /* the floor of stages_trial's F32 scale */
      if (ys && yd) {
        const float *a = ys, *b = yd;
        const size_t n = stages_trial_samples;
        for (size_t i = 0; i < n; i++) {
          d = fmax(d, fabs((double) a[i] - (double) b[i]));
          m = fmax(m, fabs((double) b[i]));
        }
      }
      free(ys);
      free(yd);
      const double own = d / m;
      worst = fmax(worst, e);
      worst_own = fmax(worst_own, own);
      over += e > fmax(1e-4, 4.0 * own);
    }
    printf("stages vs chain, F32 single, %-26s: max rel diff %.3g (chain's own float error up to "
           "%.3g)\n",
           chg_names[k], worst, worst_own);
    CHECK(over == 0, "F32 single %s: fused vs chain %.3g (own float error up to %.3g)",
          chg_names[k], worst, worst_own);
  }
}

/* ------------------------------------------------------------------------------------------- */
/* Exact warm-up of an inner stage (docs/cascade.md, "Does exact warm-up earn its keep?"). In a
 * fused chain an earlier stage (a gain, an EQ band) changes, and 1024 frames later a later, slow
 * stage (a 50 Hz notch with q 8) moves to 100 Hz and warms up. Its warm-up needs the signal in
 * front of it over thousands of frames, most of them from before the earlier change: re-running the
 * earlier stages as they are now (the approximation the engine falls back to only without a record
 * or a checkpoint) gets that signal wrong, and the notch then rings for a fraction of a second,
 * where the chain of separate elements does not (docs/cascade.md has the measured levels). The
 * fused engine must equal the chain: F64 <= 1e-10 of the chain's peak over the whole output. */

static fx_sos_t notch(double f, double q, double fs)
{
  const double w0 = 2.0 * M_PI * f / fs, cw = cos(w0), alpha = sin(w0) / (2.0 * q);
  const double a0 = 1.0 + alpha;
  fx_sos_t s = {1.0 / a0, -2.0 * cw / a0, 1.0 / a0, -2.0 * cw / a0, (1.0 - alpha) / a0};
  return s;
}

/* which: 0 a gain of -20 dB goes to 0 dB; 1 a high-pass at 20 Hz jumps to 400 Hz; at buffer b1
 * (256 frames each). Returns max |fused - chain| / max |chain|. */
static double inner_warm_trial(int which, size_t b1)
{
  const double fs = 48000.0;
  const int C = 2;
  const size_t B = 256, NB = 280, N = B * NB;
  fx_sos_t early = biquad(1, 20.0, M_SQRT1_2, fs), late = notch(50.0, 8.0, fs);
  double g = 0.1;
  fx_cascade_t *e_early = make(C, FX_SAMPLE_F64, FX_PRECISION_AUTO, &early, 1, 1.0);
  fx_cascade_t *e_late = make(C, FX_SAMPLE_F64, FX_PRECISION_AUTO, &late, 1, 1.0);
  fx_cascade_t *f = fx_cascade_new();
  fx_cascade_configure(f, C, FX_SAMPLE_F64, FX_PRECISION_AUTO);
  double *y = noise_buf(FX_SAMPLE_F64, N * (size_t) C, 4242, 0.5);
  for (size_t i = 0; i < N; i++) /* mains hum at the notch */
    for (int ch = 0; ch < C; ch++)
      y[i * (size_t) C + (size_t) ch] += 0.2 * sin(2.0 * M_PI * 50.0 * (double) i / fs);
  double *z = dup_buf(FX_SAMPLE_F64, y, N * (size_t) C);
  double applied = g;
  for (size_t b = 0; b < NB; b++) {
    int changed = b == 0;
    if (b == b1) { /* the earlier stage */
      if (which == 0)
        g = 1.0;
      else
        early = biquad(1, 400.0, M_SQRT1_2, fs);
      changed = 1;
    }
    if (b == b1 + 4) { /* the later one, 1024 frames later: a warm-up */
      late = notch(100.0, 8.0, fs);
      changed = 1;
    }
    if (changed) {
      fx_cascade_stage_t st[3] = {{FX_CASCADE_STAGE_GAIN, NULL, 0, g},
                                  {FX_CASCADE_STAGE_SECTIONS, &early, 1, 1.0},
                                  {FX_CASCADE_STAGE_SECTIONS, &late, 1, 1.0}};
      CHECK(fx_cascade_set_stages(f, st, 3) == FX_OK, "set_stages");
      fx_cascade_set_sections(e_early, &early, 1, 1.0);
      fx_cascade_set_sections(e_late, &late, 1, 1.0);
    }
    double *p = y + b * B * (size_t) C;
    fx_gain_apply_f64(p, B, C, applied, g, 0);
    applied = g;
    fx_cascade_process(e_early, p, B);
    fx_cascade_process(e_late, p, B);
    fx_cascade_process(f, z + b * B * (size_t) C, B);
  }
  double emax = 0.0, ymax = 0.0;
  for (size_t i = 0; i < N * (size_t) C; i++) {
    emax = fmax(emax, fabs(z[i] - y[i]));
    ymax = fmax(ymax, fabs(y[i]));
  }
  fx_cascade_free(e_early);
  fx_cascade_free(e_late);
  fx_cascade_free(f);
  free(y);
  free(z);
  return emax / ymax;
}

static void test_inner_stage_warm_up_is_exact(void)
{
  static const char *what[2] = {"gain -20 dB -> 0 dB", "high-pass 20 -> 400 Hz"};
  for (int w = 0; w < 2; w++) {
    /* eight positions of the changes against the checkpoints (every 8192 frames) */
    double worst = 0.0;
    for (size_t o = 0; o < 8; o++)
      worst = fmax(worst, inner_warm_trial(w, 200 + 4 * o));
    printf("inner-stage warm-up after an earlier change (%s): fused vs chain %.3g (%.1f dB)\n",
           what[w], worst, 20.0 * log10(worst + 1e-300));
    CHECK(worst <= 1e-10, "inner-stage warm-up after %s: fused vs chain %.3g", what[w], worst);
  }
}

/* Which kernel a call takes by default (single precision, one or two F32 channels, few enough
 * sections for the chunked kernels to pay): the chunked kernels in every call, also in calls far
 * too short to fill their lanes with chunks (8 float lanes on AVX2 and AVX-512 alike, chunks of
 * 64 frames), so that no call restarts the chunk grid. Each call's output is compared bit for bit
 * with the same call under FX_CHUNK=1 (always chunked) and FX_CHUNK=0 (never), on every
 * instruction set with chunked float kernels. */
static void every_call_run(int C, size_t frames, const char *env, const fx_sos_t *sos, int K,
                           float *out)
{
  if (env)
    setenv("FX_CHUNK", env, 1);
  else
    unsetenv("FX_CHUNK");
  fx_cascade_t *c = make(C, FX_SAMPLE_F32, FX_PRECISION_SINGLE, sos, K, 1.0);
  float *x = noise_buf(FX_SAMPLE_F32, frames * (size_t) C, 77, 0.5);
  fx_cascade_process(c, x, frames);
  memcpy(out, x, frames * (size_t) C * sizeof(float));
  free(x);
  fx_cascade_free(c);
}

static void test_chunk_every_call(void)
{
  const double fs = 48000.0;
  fx_sos_t sos[8];
  butter4(0, 3000.0, fs, sos);
  butter4(1, 80.0, fs, sos + 2);
  sos[4] = biquad(0, 1200.0, 4.0, fs);
  sos[5] = biquad(0, 300.0, 2.0, fs);
  const char *was = getenv("FX_KERNEL");
  char *saved = was ? strdup(was) : NULL;
  int tried = 0;
  for (int i = 0; i < fx_isa_count(); i++) {
    const fx_isa_t *isa = fx_isa_get(i);
    if (!isa->iir->ck_f32_s || isa->iir->lanes_f32 < 8)
      continue;
    setenv("FX_KERNEL", isa->name, 1);
    for (int C = 1; C <= 2; C++) {
      const int K = 6; /* 12 section-channels at most: the chunked kernels pay */
      static const size_t lens[] = {1, 2, 63, 64, 65, 128, 448, 1024, 1088};
      for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
        const size_t n = lens[li], N = n * (size_t) C;
        float *d = malloc(N * sizeof(float)), *ck = malloc(N * sizeof(float)),
              *sq = malloc(N * sizeof(float));
        every_call_run(C, n, NULL, sos, K, d);
        every_call_run(C, n, "1", sos, K, ck);
        every_call_run(C, n, "0", sos, K, sq);
        if (n >= 64)
          CHECK(memcmp(ck, sq, N * sizeof(float)) != 0,
                "%s C=%d: the two paths differ (a test that can tell)", isa->name, C);
        CHECK(memcmp(d, ck, N * sizeof(float)) == 0,
              "%s C=%d %zu frames: the chunked kernels by default", isa->name, C, n);
        free(d);
        free(ck);
        free(sq);
        tried++;
      }
    }
  }
  if (saved) {
    setenv("FX_KERNEL", saved, 1);
    free(saved);
  } else
    unsetenv("FX_KERNEL");
  unsetenv("FX_CHUNK");
  if (tried == 0)
    printf("SKIP test_chunk_every_call: no instruction set with 8-lane chunked float kernels\n");
}

int main(void)
{
  test_chunk_invariance();
  test_chunk_every_call();
  test_identity_and_gain();
  test_reset();
  test_nonfinite();
  test_state_overflow();
  test_same_coefficients();
  test_dfi_switch();
  test_ramp();
  test_refused();
  test_queries();
  test_padded_channels();
  test_history_off();
  test_denormals();
  test_design_jumps();
  test_stages_equal_chain();
  test_inner_stage_warm_up_is_exact();
  printf("test_cascade: %d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}
