/* gst-fx — FIR design and engine against closed forms and identities (plain C).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Design: symmetry (linear phase), unit gain at the scaling frequency, window end points and
 * known values, Kaiser(0) = rectangular, I0 known values. Engine: its impulse response is the
 * kernel; its output equals a naive double-precision convolution; any split of the input gives
 * the same output; direct and partitioned forms agree; the stream primes a new kernel so that
 * after the crossfade the output equals the new kernel's convolution. The per-channel real FFT
 * steps of every instruction set this CPU runs (r2c_post / c2r_pre) against FFTW's own r2c. */
#include <fftw3.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fir.h"
#include "kernel.h"
#include "fxcheck.h"

static double gain_at(const double *h, size_t n, double f_norm) /* |H| at f (1 = Nyquist) */
{
  double re = 0, im = 0;
  for (size_t k = 0; k < n; k++) {
    re += h[k] * cos(M_PI * f_norm * (double) k);
    im -= h[k] * sin(M_PI * f_norm * (double) k);
  }
  return sqrt(re * re + im * im);
}

static void test_design(void)
{
  static const fx_mode_t modes[] = {FX_MODE_LOW_PASS, FX_MODE_HIGH_PASS, FX_MODE_BAND_PASS,
                                    FX_MODE_BAND_REJECT};
  double h[1001];

  CHECK(fabs(fx_fir_bessel_i0(0.0) - 1.0) < 1e-15, "i0(0)");
  CHECK(fabs(fx_fir_bessel_i0(1.0) - 1.2660658777520082) < 1e-15, "i0(1)");
  CHECK(fabs(fx_fir_bessel_i0(10.0) / 2815.716628466254 - 1.0) < 1e-14, "i0(10)");

  for (int w = 0; w <= FX_FIR_WINDOW_RECTANGULAR; w++) {
    for (size_t n = 1; n < 40; n += 3) {
      double win[40];
      CHECK(fx_fir_window((fx_fir_window_t) w, 5.0, n, win) == FX_OK, "window %d", w);
      for (size_t i = 0; i < n; i++)
        CHECK(fabs(win[i] - win[n - 1 - i]) < 1e-15, "window %d symmetric", w);
      if (n > 1 && (w == FX_FIR_WINDOW_HANN || w == FX_FIR_WINDOW_BLACKMAN))
        CHECK(fabs(win[0]) < 1e-15, "window %d ends at 0: %g", w, win[0]);
      if (n > 1 && w == FX_FIR_WINDOW_HAMMING)
        CHECK(fabs(win[0] - 0.08) < 1e-15, "hamming ends at 0.08");
      if (n % 2 == 1)
        CHECK(fabs(win[n / 2] - 1.0) < 1e-15, "window %d peak 1", w);
    }
  }
  {
    double a[31], b[31];
    fx_fir_window(FX_FIR_WINDOW_KAISER, 0.0, 31, a);
    fx_fir_window(FX_FIR_WINDOW_RECTANGULAR, 0.0, 31, b);
    for (int i = 0; i < 31; i++)
      CHECK(fabs(a[i] - b[i]) < 1e-15, "kaiser(0) = rectangular");
  }

  for (int m = 0; m < 4; m++)
    for (int w = 0; w <= FX_FIR_WINDOW_RECTANGULAR; w++)
      for (size_t n = 1; n <= 1001; n = n * 3 + 2) {
        fx_fir_spec_t s = {modes[m], n, 48000.0, 3000.0, 2000.0, 9000.0, (fx_fir_window_t) w, 6.0};
        fx_status_t st = fx_fir_design(&s, h);
        int needs_odd = modes[m] == FX_MODE_HIGH_PASS || modes[m] == FX_MODE_BAND_REJECT;
        if (needs_odd && n % 2 == 0) {
          CHECK(st == FX_ERR_EVEN_TAPS, "even taps refused for mode %d", m);
          continue;
        }
        CHECK(st == FX_OK, "design mode %d window %d n %zu: %s", m, w, n, fx_fir_status_string(st));
        if (st != FX_OK)
          continue;
        for (size_t i = 0; i < n; i++)
          CHECK(fabs(h[i] - h[n - 1 - i]) < 1e-15, "linear phase");
        /* scale=True: unit gain at 0 Hz, at Nyquist, or at the pass band's centre */
        double f = modes[m] == FX_MODE_LOW_PASS || modes[m] == FX_MODE_BAND_REJECT ? 0.0
                   : modes[m] == FX_MODE_HIGH_PASS                                 ? 1.0
                                                   : (2000.0 + 9000.0) / 48000.0;
        if (n > 1 || f == 0.0)
          CHECK(fabs(gain_at(h, n, f) - 1.0) < 1e-12, "unit gain mode %d n %zu: %.17g", m, n,
                gain_at(h, n, f));
        if (n >= 101 && w != FX_FIR_WINDOW_RECTANGULAR) {
          /* well into the stop band the gain is small */
          double fs = modes[m] == FX_MODE_LOW_PASS    ? 0.5
                      : modes[m] == FX_MODE_HIGH_PASS ? 0.05
                      : modes[m] == FX_MODE_BAND_PASS ? 0.9
                                                      : (2000.0 + 9000.0) / 48000.0;
          CHECK(gain_at(h, n, fs) < 0.01, "stop band mode %d window %d n %zu: %g", m, w, n,
                gain_at(h, n, fs));
        }
      }

  {
    fx_fir_spec_t s = {FX_MODE_LOW_PASS, 31, 48000.0, 24000.0, 0, 0, 0, 0};
    CHECK(fx_fir_spec_check(&s) == FX_ERR_CUTOFF, "cutoff at Nyquist refused");
    s.mode = FX_MODE_BAND_PASS, s.lower = 5000, s.upper = 4000;
    CHECK(fx_fir_spec_check(&s) == FX_ERR_BAND, "lower >= upper refused");
    s.lower = 100, s.window = FX_FIR_WINDOW_KAISER, s.beta = -1;
    CHECK(fx_fir_spec_check(&s) == FX_ERR_BETA, "negative beta refused");
    s.beta = 1, s.num_taps = 0;
    CHECK(fx_fir_spec_check(&s) == FX_ERR_TAPS, "0 taps refused");
    double bad[2] = {1.0, NAN};
    CHECK(fx_fir_check_taps(bad, 2) == FX_ERR_NONFINITE, "NaN tap refused");
    CHECK(fx_fir_check_taps(bad, 0) == FX_ERR_TAPS, "empty kernel refused");
  }
}

/* naive y = h * x per channel, double */
static void reference(const double *h, size_t n, const double *x, double *y, size_t frames, int C)
{
  for (size_t i = 0; i < frames; i++)
    for (int c = 0; c < C; c++) {
      double a = 0;
      for (size_t k = 0; k < n && k <= i; k++)
        a += h[k] * x[(i - k) * (size_t) C + (size_t) c];
      y[i * (size_t) C + (size_t) c] = a;
    }
}

static void run_split(fx_fir_engine_t *e, const void *x, void *y, size_t frames, size_t bpf,
                      int mode)
{
  size_t pos = 0;
  fx_fir_engine_reset(e);
  while (pos < frames) {
    size_t n = mode == 0 ? frames : mode == 1 ? 1 : 1 + (size_t) (rng_next() % 3000);
    if (n > frames - pos)
      n = frames - pos;
    fx_fir_engine_process(e, (const char *) x + pos * bpf, (char *) y + pos * bpf, n);
    pos += n;
  }
}

static void test_engine(void)
{
  static const size_t taps[] = {1, 7, 31, 64, 65, 101, 1001, 4097, 16001};
  static const int chans[] = {1, 2, 7};
  size_t frames = 20000;

  rng_seed(7);
  for (size_t ti = 0; ti < sizeof taps / sizeof *taps; ti++)
    for (size_t ci = 0; ci < sizeof chans / sizeof *chans; ci++) {
      size_t n = taps[ti];
      int C = chans[ci];
      if (n > 4097 && C > 2)
        continue;
      double *h = malloc(n * sizeof *h), *x = malloc(frames * C * sizeof *x),
             *ref = malloc(frames * C * sizeof *ref), *y = malloc(frames * C * sizeof *y),
             *y2 = malloc(frames * C * sizeof *y2);
      float *xf = malloc(frames * C * sizeof *xf), *yf = malloc(frames * C * sizeof *yf);
      for (size_t k = 0; k < n; k++)
        h[k] = rng_uniform() / sqrt((double) n);
      for (size_t i = 0; i < frames * (size_t) C; i++) {
        x[i] = rng_uniform();
        xf[i] = (float) x[i];
      }
      reference(h, n, x, ref, frames, C);
      double rn = 0;
      for (size_t i = 0; i < frames * (size_t) C; i++)
        rn += ref[i] * ref[i];
      rn = sqrt(rn);
      for (int method = FX_FIR_METHOD_DIRECT; method <= FX_FIR_METHOD_PARTITIONED; method++) {
        fx_fir_options_t o = {(fx_fir_method_t) method, 0, 0, 0, 0, 0, 0};
        fx_status_t st;
        fx_fir_engine_t *e = fx_fir_engine_new(h, n, C, 1, &o, &st);
        CHECK(e != NULL, "engine %zu taps: %s", n, fx_fir_status_string(st));
        if (!e)
          continue;
        CHECK(fx_fir_engine_latency(e) == 0, "no latency");
        run_split(e, x, y, frames, C * sizeof(double), 0);
        double err = 0, d = 0;
        for (size_t i = 0; i < frames * (size_t) C; i++)
          err += (y[i] - ref[i]) * (y[i] - ref[i]);
        err = sqrt(err) / rn;
        CHECK(err < 1e-13, "f64 %s %zu taps %d ch: rel err %g", fx_fir_engine_method(e), n, C, err);
        for (int mode = 1; mode <= 2; mode++) {
          if (mode == 1 && n > 1001)
            continue;
          run_split(e, x, y2, frames, C * sizeof(double), mode);
          d = 0;
          for (size_t i = 0; i < frames * (size_t) C; i++)
            d = fmax(d, fabs(y2[i] - y[i]));
          CHECK(d == 0.0, "split-invariant %s %zu taps split %d: %g", fx_fir_engine_method(e), n,
                mode, d);
        }
        fx_fir_engine_free(e);

        e = fx_fir_engine_new(h, n, C, 0, &o, &st);
        CHECK(e != NULL, "f32 engine");
        if (!e)
          continue;
        run_split(e, xf, yf, frames, C * sizeof(float), 2);
        err = 0;
        for (size_t i = 0; i < frames * (size_t) C; i++)
          err += ((double) yf[i] - ref[i]) * ((double) yf[i] - ref[i]);
        err = sqrt(err) / rn;
        CHECK(err < 5e-6, "f32 %s %zu taps %d ch: rel err %g", fx_fir_engine_method(e), n, C, err);
        fx_fir_engine_free(e);
      }
      free(h), free(x), free(ref), free(y), free(y2), free(xf), free(yf);
    }

  /* impulse response = kernel */
  {
    size_t n = 3000;
    double *h = malloc(n * sizeof *h), *x = calloc(2 * n, sizeof *x), *y = malloc(2 * n * 8);
    for (size_t k = 0; k < n; k++)
      h[k] = rng_uniform();
    x[0] = 1.0;
    fx_fir_engine_t *e = fx_fir_engine_new(h, n, 1, 1, NULL, NULL);
    fx_fir_engine_process(e, x, y, 2 * n);
    double d = 0;
    for (size_t k = 0; k < 2 * n; k++)
      d = fmax(d, fabs(y[k] - (k < n ? h[k] : 0.0)));
    CHECK(d < 1e-14, "impulse response %s: %g", fx_fir_engine_method(e), d);
    fx_fir_engine_free(e);
    free(h), free(x), free(y);
  }
}

/* A real FFT of 2m points as the engine does it: FFTW's complex FFT of the m values (even + i odd
 * samples) and the kernel's r2c_post, against FFTW's r2c of the same samples in double; and back:
 * c2r_pre and the complex backward FFT give 2m times the samples. Small m take the scalar loops,
 * larger m the vector ones. */
static void test_rfft_kernels(void)
{
  /* the FIR sets of the instruction sets this CPU supports (kernel.h) */
  const fx_fir_kernels_t *ks[8] = {NULL};
  int nks = 0;
  for (int i = 0; i < fx_isa_count() && nks < 8; i++) {
    int seen = 0;
    for (int j = 0; j < nks; j++)
      seen |= ks[j] == fx_isa_get(i)->fir;
    if (!seen)
      ks[nks++] = fx_isa_get(i)->fir;
  }
  rng_seed(11);
  for (int ki = 0; ki < nks; ki++) {
    for (size_t m = 1; m <= 2048; m *= 2) {
      size_t n = 2 * m, S = 2 * m + 16;
      double *x = fftw_malloc(n * sizeof *x), *ref = fftw_malloc((n + 2) * sizeof *ref);
      double *zd = fftw_malloc(S * sizeof *zd), *ad = fftw_malloc(S * sizeof *ad);
      double *tud = fftw_malloc(2 * S * sizeof *tud);
      float *zf = fftwf_malloc(S * sizeof *zf), *af = fftwf_malloc(S * sizeof *af);
      float *tuf = fftwf_malloc(2 * S * sizeof *tuf);
      for (size_t k = 0; k < m; k++) {
        double wr = cos(M_PI * (double) k / (double) m), wi = -sin(M_PI * (double) k / (double) m);
        tud[2 * k] = tud[2 * k + 1] = wi;
        tud[S + 2 * k] = -wr;
        tud[S + 2 * k + 1] = wr;
        for (int j = 0; j < 2; j++) {
          tuf[2 * k + j] = (float) tud[2 * k + j];
          tuf[S + 2 * k + j] = (float) tud[S + 2 * k + j];
        }
      }
      for (size_t i = 0; i < n; i++)
        x[i] = rng_uniform();
      fftw_plan pr = fftw_plan_dft_r2c_1d((int) n, x, (fftw_complex *) ref, FFTW_ESTIMATE);
      fftw_execute(pr);
      fftw_destroy_plan(pr);
      double rn = 0;
      for (size_t k = 0; k < n + 2; k++)
        rn = fmax(rn, fabs(ref[k]));

      /* f64 forward and back */
      memcpy(ad, x, n * sizeof *x);
      fftw_plan pf = fftw_plan_dft_1d((int) m, (fftw_complex *) ad, (fftw_complex *) zd,
                                      FFTW_FORWARD, FFTW_ESTIMATE);
      fftw_plan pb = fftw_plan_dft_1d((int) m, (fftw_complex *) zd, (fftw_complex *) ad,
                                      FFTW_BACKWARD, FFTW_ESTIMATE);
      memcpy(ad, x, n * sizeof *x);
      fftw_execute(pf);
      ks[ki]->r2c_post_f64(zd, tud, tud + S, m);
      double e = 0;
      for (size_t k = 0; k < n + 2; k++)
        e = fmax(e, fabs(zd[k] - ref[k]));
      CHECK(e <= 1e-13 * rn, "%s r2c_post_f64 m=%zu: err %g of %g", ks[ki]->name, m, e, rn);
      memcpy(zd, ref, (n + 2) * sizeof *zd);
      zd[1] = 7.0, zd[n + 1] = -3.0; /* imaginary parts of bins 0 and m are ignored */
      ks[ki]->c2r_pre_f64(zd, tud, tud + S, m);
      fftw_execute(pb);
      e = 0;
      for (size_t i = 0; i < n; i++)
        e = fmax(e, fabs(ad[i] / (double) n - x[i]));
      CHECK(e <= 1e-13, "%s c2r_pre_f64 m=%zu: err %g", ks[ki]->name, m, e);
      fftw_destroy_plan(pf);
      fftw_destroy_plan(pb);

      /* f32 forward and back */
      fftwf_plan qf = fftwf_plan_dft_1d((int) m, (fftwf_complex *) af, (fftwf_complex *) zf,
                                        FFTW_FORWARD, FFTW_ESTIMATE);
      fftwf_plan qb = fftwf_plan_dft_1d((int) m, (fftwf_complex *) zf, (fftwf_complex *) af,
                                        FFTW_BACKWARD, FFTW_ESTIMATE);
      for (size_t i = 0; i < n; i++)
        af[i] = (float) x[i];
      fftwf_execute(qf);
      ks[ki]->r2c_post_f32(zf, tuf, tuf + S, m);
      e = 0;
      for (size_t k = 0; k < n + 2; k++)
        e = fmax(e, fabs((double) zf[k] - ref[k]));
      CHECK(e <= 1e-5 * rn, "%s r2c_post_f32 m=%zu: err %g of %g", ks[ki]->name, m, e, rn);
      for (size_t k = 0; k < n + 2; k++)
        zf[k] = (float) ref[k];
      zf[1] = 7.0f, zf[n + 1] = -3.0f;
      ks[ki]->c2r_pre_f32(zf, tuf, tuf + S, m);
      fftwf_execute(qb);
      e = 0;
      for (size_t i = 0; i < n; i++)
        e = fmax(e, fabs((double) af[i] / (double) n - x[i]));
      CHECK(e <= 1e-5, "%s c2r_pre_f32 m=%zu: err %g", ks[ki]->name, m, e);
      fftwf_destroy_plan(qf);
      fftwf_destroy_plan(qb);
      fftw_free(x), fftw_free(ref), fftw_free(zd), fftw_free(ad), fftw_free(tud);
      fftwf_free(zf), fftwf_free(af), fftwf_free(tuf);
    }
  }
}

/* Partitioned engines with small first blocks (head 1 .. 32: the real-FFT steps' scalar loops
 * and the smallest vector ones) and 1, 2, 3 channels (mono copy, stereo kernels, tiled
 * (de)interleaving), zero latency and with a block latency, against the naive convolution. */
static void test_small_blocks(void)
{
  size_t n = 77, frames = 3000;
  double *h = malloc(n * sizeof *h), *x = malloc(frames * 3 * sizeof *x);
  double *ref = malloc(frames * 3 * sizeof *ref), *y = malloc(frames * 3 * sizeof *y);
  float *xf = malloc(frames * 3 * sizeof *xf), *yf = malloc(frames * 3 * sizeof *yf);

  rng_seed(13);
  for (size_t k = 0; k < n; k++)
    h[k] = rng_uniform() / sqrt((double) n);
  for (size_t i = 0; i < frames * 3; i++)
    xf[i] = (float) (x[i] = rng_uniform());
  for (int C = 1; C <= 3; C++) {
    reference(h, n, x, ref, frames, C);
    for (size_t head = 1; head <= 32; head *= 2)
      for (size_t lat = 0; lat <= 64; lat += 64) {
        fx_fir_options_t o = {FX_FIR_METHOD_PARTITIONED, 0, head, 2, 64, 0, lat};
        for (int f64 = 0; f64 <= 1; f64++) {
          fx_fir_engine_t *e = fx_fir_engine_new(h, n, C, f64, &o, NULL);
          CHECK(e != NULL, "engine head %zu", head);
          if (!e)
            continue;
          size_t L = fx_fir_engine_latency(e);
          CHECK(L == lat, "latency %zu, asked %zu", L, lat);
          run_split(e, f64 ? (void *) x : (void *) xf, f64 ? (void *) y : (void *) yf, frames,
                    (size_t) C * (f64 ? sizeof(double) : sizeof(float)), 2);
          double err = 0, rn = 0;
          for (size_t i = L; i < frames; i++)
            for (int c = 0; c < C; c++) {
              double r = ref[(i - L) * (size_t) C + (size_t) c];
              double v = f64 ? y[i * (size_t) C + (size_t) c] : yf[i * (size_t) C + (size_t) c];
              err = fmax(err, fabs(v - r));
              rn = fmax(rn, fabs(r));
            }
          CHECK(err <= (f64 ? 1e-13 : 1e-6) * rn, "%s head %zu lat %zu %d ch: err %g of %g",
                f64 ? "f64" : "f32", head, lat, C, err, rn);
          fx_fir_engine_free(e);
        }
      }
  }
  free(h), free(x), free(ref), free(y), free(xf), free(yf);
}

/* with a latency budget the output is the convolution delayed by the power of two within it */
static void test_latency(void)
{
  static const size_t taps[] = {5, 100, 1001, 5000};
  static const size_t budgets[] = {64, 100, 1024, 3000};
  size_t frames = 12000;
  double *x = malloc(frames * 3 * 8), *y = malloc(frames * 3 * 8), *ref = malloc(frames * 3 * 8);
  double *h = malloc(5000 * sizeof *h);

  for (size_t i = 0; i < frames * 3; i++)
    x[i] = rng_uniform();
  for (size_t k = 0; k < 5000; k++)
    h[k] = rng_uniform() * 0.02;
  for (int C = 1; C <= 3; C++)
    for (size_t ti = 0; ti < 4; ti++)
      for (size_t bi = 0; bi < 4; bi++) {
        /* the largest power of two within the budget, but no more than the length's best block:
         * next_pow2(n) / 4 kept within 1024..8192 */
        size_t n = taps[ti], best = n == 5000 ? 2048 : 1024;
        size_t L = budgets[bi] >= 2048 ? 2048 : budgets[bi] >= 1024 ? 1024 : 64;
        L = L < best ? L : best;
        fx_fir_options_t o = {FX_FIR_METHOD_PARTITIONED, 0, 0, 0, 0, 0, budgets[bi]};
        fx_fir_engine_t *e = fx_fir_engine_new(h, n, C, 1, &o, NULL);
        CHECK(e && fx_fir_engine_latency(e) == L, "latency %zu for budget %zu: %zu", L, budgets[bi],
              e ? fx_fir_engine_latency(e) : 0);
        if (!e)
          continue;
        run_split(e, x, y, frames, C * sizeof(double), 2);
        reference(h, n, x, ref, frames - L, C);
        double d = 0;
        for (size_t i = 0; i < L * (size_t) C; i++)
          d = fmax(d, fabs(y[i]));
        for (size_t i = L * (size_t) C; i < frames * (size_t) C; i++)
          d = fmax(d, fabs(y[i] - ref[i - L * (size_t) C]));
        CHECK(d < 1e-13, "delayed convolution, %zu taps, %d ch, latency %zu: %g", n, C, L, d);
        fx_fir_engine_free(e);
      }
  {
    /* auto: a short kernel stays direct and adds nothing */
    fx_fir_options_t o = {FX_FIR_METHOD_AUTO, 0, 0, 0, 0, 0, 1024};
    fx_fir_engine_t *e = fx_fir_engine_new(h, 31, 2, 1, &o, NULL);
    CHECK(e && fx_fir_engine_latency(e) == 0, "short kernel: no latency");
    fx_fir_engine_free(e);
  }
  free(x), free(y), free(ref), free(h);
}

static void test_stream(void)
{
  size_t frames = 6000, fade = 240;
  int C = 2;
  double h1[31], h2[301];
  double *x = malloc(frames * C * 8), *y = malloc(frames * C * 8), *ref = malloc(frames * C * 8);

  for (size_t k = 0; k < 31; k++)
    h1[k] = rng_uniform() * 0.1;
  for (size_t k = 0; k < 301; k++)
    h2[k] = rng_uniform() * 0.05;
  for (size_t i = 0; i < frames * (size_t) C; i++)
    x[i] = rng_uniform();
  fx_fir_stream_t *s = fx_fir_stream_new(C, 1, fade);
  CHECK(fx_fir_stream_set_engine(s, fx_fir_engine_new(h1, 31, C, 1, NULL, NULL), 0) == FX_OK,
        "first engine");
  fx_fir_stream_process(s, x, y, 1000);
  CHECK(fx_fir_stream_set_engine(s, fx_fir_engine_new(h2, 301, C, 1, NULL, NULL), 0) == FX_OK,
        "second engine");
  CHECK(fx_fir_engine_taps(fx_fir_stream_engine(s)) == 31, "queued until the next buffer");
  fx_fir_stream_process(s, x + 1000 * C, y + 1000 * C, 100);
  CHECK(fx_fir_stream_fading(s), "fading");
  fx_fir_stream_process(s, x + 1100 * C, y + 1100 * C, frames - 1100);
  CHECK(!fx_fir_stream_fading(s), "fade over");
  CHECK(fx_fir_stream_switches(s) == 2, "two switches");
  /* before the change: h1; after 1000 + fade: h2 (primed with history) */
  reference(h1, 31, x, ref, 1000, C);
  double d = 0;
  for (size_t i = 0; i < 1000 * (size_t) C; i++)
    d = fmax(d, fabs(y[i] - ref[i]));
  CHECK(d < 1e-14, "old kernel before the change: %g", d);
  reference(h2, 301, x, ref, frames, C);
  d = 0;
  for (size_t i = (1000 + fade) * (size_t) C; i < frames * (size_t) C; i++)
    d = fmax(d, fabs(y[i] - ref[i]));
  CHECK(d < 1e-14, "new kernel after the fade: %g", d);
  fx_fir_stream_free(s);
  free(x), free(y), free(ref);
}

static void test_nonfinite(void)
{
  double d[300];
  float f[300];
  for (int i = 0; i < 300; i++)
    d[i] = f[i] = (float) rng_uniform() * 1e30f;
  CHECK(!fx_fir_has_nonfinite(d, 300, 1) && !fx_fir_has_nonfinite(f, 300, 0), "finite");
  for (int at = 0; at < 300; at += 37) {
    double save = d[at];
    float savef = f[at];
    d[at] = at % 2 ? NAN : -INFINITY;
    f[at] = at % 2 ? NAN : INFINITY;
    CHECK(fx_fir_has_nonfinite(d, 300, 1) && fx_fir_has_nonfinite(f, 300, 0), "at %d", at);
    d[at] = save, f[at] = savef;
  }
  d[5] = 1.7e308; /* large but finite */
  CHECK(!fx_fir_has_nonfinite(d, 300, 1), "large finite");
}

int main(void)
{
  test_design();
  test_engine();
  test_rfft_kernels();
  test_small_blocks();
  test_latency();
  test_stream();
  test_nonfinite();
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
