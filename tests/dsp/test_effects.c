/* gst-fx — dsp/delay.c and dsp/reverb.c without GStreamer: closed forms (echo positions and
 * gains of an impulse, ping-pong sides, note lengths, the first reflection of each reverb bank
 * at several rates), chunk invariance, non-finite input, the tail bounds and bad arguments.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "delay.h"
#include "finite.h"
#include "fxcheck.h"
#include "reverb.h"

static void test_note_lengths(void)
{
  CHECK(fabs(fx_delay_note_ms(120, 4, FX_NOTE_PLAIN) - 500.0) < 1e-12, "1/4 at 120");
  CHECK(fabs(fx_delay_note_ms(120, 8, FX_NOTE_DOTTED) - 375.0) < 1e-12, "1/8d at 120");
  CHECK(fabs(fx_delay_note_ms(120, 8, FX_NOTE_TRIPLET) - 500.0 / 3.0) < 1e-12, "1/8t at 120");
  CHECK(fabs(fx_delay_note_ms(60, 1, FX_NOTE_PLAIN) - 4000.0) < 1e-12, "1/1 at 60");
  CHECK(fabs(fx_delay_note_ms(90, 32, FX_NOTE_TRIPLET) - 60000.0 / 90 / 8 * 2 / 3) < 1e-9,
        "1/32t at 90");
  CHECK(fx_delay_note_ms(0, 4, 0) < 0, "bpm 0");
  CHECK(fx_delay_note_ms(120, 3, 0) < 0, "1/3");
  CHECK(fx_delay_note_ms(120, 4, 7) < 0, "bad modifier");
  CHECK(fx_delay_note_ms(NAN, 4, 0) < 0, "NaN bpm");
}

/* An impulse through a mono delay of 10 samples, feedback 0.5, all wet: 1, 0.5, 0.25 ... at
 * 10, 20, 30 ...; zero elsewhere. */
static void test_delay_impulse(void)
{
  fx_delay_t *d = fx_delay_new(1, 1000.0, 100.0);
  double x[100] = {0};
  int bad = 0;

  CHECK(d != NULL, "new");
  if (!d)
    return;
  x[0] = 1.0;
  fx_delay_set(d, 10.0, 0.5, 1.0, 0);
  fx_delay_process_f64(d, x, 100);
  for (int n = 0; n < 100; n++) {
    double want = (n > 0 && n % 10 == 0) ? pow(0.5, n / 10 - 1) : 0.0;
    if (fabs(x[n] - want) > 1e-15)
      bad++;
  }
  CHECK(bad == 0, "%d wrong samples", bad);
  CHECK(fx_delay_tail_bound(d) > 0.0, "tail left");
  fx_delay_free(d);
}

static void test_delay_ping_pong(void)
{
  fx_delay_t *d = fx_delay_new(2, 1000.0, 100.0);
  float x[2 * 60] = {0};
  int bad = 0;

  x[0] = 1.0f; /* left only: L + R enters the left line at full level */
  fx_delay_set(d, 5.0, 0.8, 1.0, 1);
  fx_delay_process_f32(d, x, 60);
  for (int n = 0; n < 60; n++)
    for (int c = 0; c < 2; c++) {
      int k = n / 5;
      double want = 0.0;
      if (n > 0 && n % 5 == 0 && (k % 2 == 1 ? c == 0 : c == 1))
        want = pow(0.8, k - 1);
      if (fabs(x[2 * n + c] - want) > 1e-6)
        bad++;
    }
  CHECK(bad == 0, "%d wrong samples", bad);
  fx_delay_free(d);
}

/* Any split of the input gives the same output, bit for bit, for both effects. */
static void test_chunk_invariance(void)
{
  enum { N = 5000, C = 3 };
  double *x = malloc(sizeof(double) * N * C), *a = malloc(sizeof(double) * N * C),
         *b = malloc(sizeof(double) * N * C);
  rng_seed(7);
  for (int i = 0; i < N * C; i++)
    x[i] = 0.5 * rng_uniform();
  for (int which = 0; which < 2; which++) {
    fx_delay_t *d1 = NULL, *d2 = NULL;
    fx_reverb_t *r1 = NULL, *r2 = NULL;
    size_t pos = 0;
    int diff = 0;
    memcpy(a, x, sizeof(double) * N * C);
    memcpy(b, x, sizeof(double) * N * C);
    if (which == 0) {
      d1 = fx_delay_new(C, 48000.0, 50.0);
      d2 = fx_delay_new(C, 48000.0, 50.0);
      fx_delay_set(d1, 3.3, 0.7, 0.6, 0);
      fx_delay_set(d2, 3.3, 0.7, 0.6, 0);
      fx_delay_process_f64(d1, a, N);
    } else {
      r1 = fx_reverb_new(C, 48000.0);
      r2 = fx_reverb_new(C, 48000.0);
      fx_reverb_set(r1, 0.8, 0.3, 0.5, 0.7);
      fx_reverb_set(r2, 0.8, 0.3, 0.5, 0.7);
      fx_reverb_process_f64(r1, a, N);
    }
    while (pos < N) {
      size_t n = 1 + rng_next() % 700;
      if (n > N - pos)
        n = N - pos;
      if (which == 0)
        fx_delay_process_f64(d2, b + pos * C, n);
      else
        fx_reverb_process_f64(r2, b + pos * C, n);
      pos += n;
    }
    for (int i = 0; i < N * C; i++)
      diff += a[i] != b[i];
    CHECK(diff == 0, "%s: %d samples differ between splits", which ? "reverb" : "delay", diff);
    fx_delay_free(d1);
    fx_delay_free(d2);
    fx_reverb_free(r1);
    fx_reverb_free(r2);
  }
  free(x);
  free(a);
  free(b);
}

/* The first non-zero wet sample of each bank of a stereo pair is the shortest comb, scaled. */
static void test_reverb_scaling(void)
{
  const double rates[] = {1, 8000, 44100, 48000, 96000, 384000};
  for (size_t k = 0; k < sizeof(rates) / sizeof(rates[0]); k++) {
    double rate = rates[k];
    size_t l = fx_reverb_scaled_length(1116, rate), r = fx_reverb_scaled_length(1139, rate);
    size_t n = r + 4, first[2] = {0, 0};
    double *x = calloc(n * 2, sizeof(double));
    fx_reverb_t *rv = fx_reverb_new(2, rate);
    CHECK(rv != NULL, "new at %g", rate);
    if (!rv || !x) {
      free(x);
      continue;
    }
    x[0] = x[1] = 0.5;
    fx_reverb_set(rv, 0.5, 0.5, 1.0, 1.0);
    fx_reverb_process_f64(rv, x, n);
    for (int c = 0; c < 2; c++)
      for (size_t i = 0; i < n; i++)
        if (x[2 * i + c] != 0.0) {
          first[c] = i;
          break;
        }
    CHECK(first[0] == l && first[1] == r, "rate %g: first %zu %zu, want %zu %zu", rate, first[0],
          first[1], l, r);
    CHECK(l == (size_t) fmax(1.0, floor(1116 * rate / 44100 + 0.5)), "length at %g", rate);
    fx_reverb_free(rv);
    free(x);
  }
}

static void test_nonfinite_and_tail(void)
{
  double x[64], z[64];
  fx_delay_t *d = fx_delay_new(1, 1000.0, 20.0), *dz = fx_delay_new(1, 1000.0, 20.0);
  fx_reverb_t *r = fx_reverb_new(1, 1000.0), *rz = fx_reverb_new(1, 1000.0);

  /* a non-finite sample is processed as a 0: the output equals that of a 0 there, bit for bit,
   * and the state stays what a 0 leaves (DESIGN: "Bad input") */
  for (int i = 0; i < 64; i++) {
    x[i] = i == 3 ? NAN : 0.1;
    z[i] = i == 3 ? 0.0 : 0.1;
  }
  fx_delay_set(d, 5.0, 0.9, 0.5, 0);
  fx_delay_set(dz, 5.0, 0.9, 0.5, 0);
  CHECK(fx_delay_process_f64(d, x, 64) == 1, "NaN reported");
  CHECK(fx_delay_process_f64(dz, z, 64) == 0, "clean input not reported");
  CHECK(memcmp(x, z, sizeof(x)) == 0, "delay: NaN processed as 0");
  CHECK(fx_delay_tail_bound(d) == fx_delay_tail_bound(dz) && fx_delay_tail_bound(d) > 0.0,
        "delay line as after a 0");
  for (int i = 0; i < 64; i++) {
    x[i] = i == 3 ? INFINITY : 0.1;
    z[i] = i == 3 ? 0.0 : 0.1;
  }
  fx_reverb_set(r, 0.5, 0.5, 0.5, 1.0);
  fx_reverb_set(rz, 0.5, 0.5, 0.5, 1.0);
  CHECK(fx_reverb_process_f64(r, x, 64) == 1, "Inf reported");
  fx_reverb_process_f64(rz, z, 64);
  CHECK(memcmp(x, z, sizeof(x)) == 0, "reverb: Inf processed as 0");
  CHECK(fx_reverb_tail_bound(r) == fx_reverb_tail_bound(rz), "reverb state as after a 0");
  fx_delay_free(dz);
  fx_reverb_free(rz);
  fx_reverb_reset(r);
  CHECK(fx_reverb_tail_bound(r) == 0.0, "state cleared");
  /* silence decays: the bound falls under -90 dBFS */
  for (int i = 0; i < 64; i++)
    x[i] = 0.1;
  fx_reverb_process_f64(r, x, 64);
  CHECK(fx_reverb_tail_bound(r) > 3e-5, "tail after input");
  for (int k = 0; k < 2000 && fx_reverb_tail_bound(r) >= 3e-5; k++) {
    memset(x, 0, sizeof(x));
    fx_reverb_process_f64(r, x, 64);
  }
  CHECK(fx_reverb_tail_bound(r) < 3e-5, "tail decays");
  fx_delay_free(d);
  fx_reverb_free(r);
}

static void test_bad_arguments(void)
{
  CHECK(fx_delay_new(0, 48000, 10) == NULL, "0 channels");
  CHECK(fx_delay_new(2, 0, 10) == NULL, "rate 0");
  CHECK(fx_delay_new(2, 48000, -1) == NULL, "negative max");
  CHECK(fx_delay_new(2, 48000, INFINITY) == NULL, "infinite max");
  CHECK(fx_delay_bytes(1 << 30, 1e9, 1e9) == 0, "overflow");
  CHECK(fx_reverb_new(0, 48000) == NULL, "reverb 0 channels");
  CHECK(fx_reverb_new(2, NAN) == NULL, "reverb NaN rate");
  CHECK(fx_reverb_bytes(2, 1e300) == 0, "reverb absurd rate");
}

/* dsp/finite.c: every NaN/+-Inf becomes +0, wherever it sits relative to the scan's spans,
 * blocks and short blocks; finite extremes (the largest, subnormals, -0) are left alone; the count
 * is exact. Each implementation this CPU runs (one per instruction set), and the public functions.
 */
#define FIN_MAX 2200
static int zero_nonfinite_case(const fx_finite_impl_t *im, size_t n, size_t at, int b)
{
  static const double bads[] = {NAN, -NAN, INFINITY, -INFINITY};
  static const double goods[] = {DBL_MAX, -DBL_MAX, 4.9e-324, -0.0, 1.0};
  static const float goods_f[] = {FLT_MAX, -FLT_MAX, 1.4e-45f, -0.0f, 1.0f};
  static double d[FIN_MAX];
  static float f[FIN_MAX];
  int wrong = 0;
  for (size_t i = 0; i < n; i++) {
    d[i] = goods[i % 5];
    f[i] = goods_f[i % 5];
  }
  wrong += im->has_f64(d, n) != 0 || im->has_f32(f, n) != 0;
  d[at] = bads[b];
  f[at] = (float) bads[b];
  if (n > 1) { /* a second bad sample in another block when there is one */
    d[n - 1 - at / 2] = bads[(b + 1) % 4];
    f[n - 1 - at / 2] = (float) bads[(b + 1) % 4];
  }
  const size_t want = (n > 1 && n - 1 - at / 2 != at) ? 2 : 1;
  wrong += im->has_f64(d, n) != 1 || im->has_f32(f, n) != 1;
  wrong += im->zero_f64(d, n) != want || im->zero_f32(f, n) != want;
  for (size_t i = 0; i < n; i++) {
    const int was_bad = i == at || (n > 1 && i == n - 1 - at / 2);
    const double wd = was_bad ? 0.0 : goods[i % 5];
    const float wf = was_bad ? 0.0f : goods_f[i % 5];
    wrong += memcmp(&d[i], &wd, sizeof(wd)) != 0 || memcmp(&f[i], &wf, sizeof(wf)) != 0;
  }
  wrong += im->has_f64(d, n) != 0 || im->has_f32(f, n) != 0;
  return wrong;
}

static size_t pub_zero_f32(float *x, size_t n)
{
  return fx_zero_nonfinite(x, n, 0);
}
static size_t pub_zero_f64(double *x, size_t n)
{
  return fx_zero_nonfinite(x, n, 1);
}
static int pub_has_f32(const float *x, size_t n)
{
  return fx_has_nonfinite(x, n, 0);
}
static int pub_has_f64(const double *x, size_t n)
{
  return fx_has_nonfinite(x, n, 1);
}

static void test_zero_nonfinite(void)
{
  /* around the short-block (8), block (64) and span (1024) boundaries */
  const size_t sizes[] = {1,  7,  8,   9,    17,   63,   64,   65,  71,
                          72, 73, 200, 1023, 1024, 1025, 1089, 2111};
  const fx_finite_impl_t pub = {pub_zero_f32, pub_zero_f64, pub_has_f32, pub_has_f64};
  const char *name = "public";
  int impls = 0;
  for (int k = -1;; k++) {
    const fx_finite_impl_t *im = k < 0 ? &pub : fx_finite_impl_get(k, &name);
    if (!im)
      break;
    impls++;
    int wrong = 0;
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
      const size_t n = sizes[si];
      for (size_t at = 0; at < n; at++) {
        /* every position up to 200 samples; beyond, those near a block's edges */
        const size_t r = at % 64;
        if (n > 200 && r > 2 && r < 61 && at % 97 != 0)
          continue;
        for (int b = 0; b < 4; b++)
          wrong += zero_nonfinite_case(im, n, at, b);
      }
    }
    CHECK(wrong == 0, "%s: %d wrong results", name, wrong);
  }
  CHECK(impls >= 2, "the public functions and at least the baseline implementation");
  CHECK(fx_zero_nonfinite(NULL, 5, 0) == 0 && fx_has_nonfinite(NULL, 5, 1) == 0, "NULL");
}

int main(void)
{
  test_zero_nonfinite();
  test_note_lengths();
  test_delay_impulse();
  test_delay_ping_pong();
  test_chunk_invariance();
  test_reverb_scaling();
  test_nonfinite_and_tail();
  test_bad_arguments();
  printf("%d checks, %d failures\n", checks, failures);
  return failures > 0;
}
