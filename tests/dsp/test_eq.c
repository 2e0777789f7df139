/* gst-fx — unit tests of the N-band EQ design (dsp/eq.c): one section per band equal to
 * fx_design_biquad()'s, 0 dB gain bands as exact identities (frequency unchecked), the pre-gain
 * folded into the first section only (checked with closed forms of the response), and the errors
 * naming the band at fault. The response against independent cookbook formulas is tested in
 * tests/python/test_eq.py.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <string.h>

#include "eq.h"
#include "fxcheck.h"

static double mag(const fx_sos_t *sos, int n, double f, double rate)
{
  double re, im;
  fx_sos_response(sos, n, f, rate, &re, &im);
  return hypot(re, im);
}

static void test_sections(void)
{
  fx_eq_band_t bands[4] = {
      {FX_BIQUAD_LOW_SHELF, 80.0, 0.7071, 3.0},
      {FX_BIQUAD_PEAKING, 1000.0, 1.4, 0.0}, /* identity */
      {FX_BIQUAD_NOTCH, 50.0, 8.0, 0.0},     /* not an identity: gain is unused */
      {FX_BIQUAD_HIGH_PASS, 30.0, 0.5, 0.0},
  };
  fx_sos_t sos[FX_EQ_MAX_BANDS], ref;
  int n = -1, bad = 7;
  fx_status_t st = fx_design_eq(bands, 4, -6.0, 48000.0, sos, FX_EQ_MAX_BANDS, &n, &bad);
  double g = pow(10.0, -6.0 / 20.0);

  CHECK(st == FX_OK && n == 4 && bad == -1, "design: %s n=%d bad=%d", fx_status_string(st), n, bad);
  fx_design_biquad(FX_BIQUAD_LOW_SHELF, 80.0, 0.7071, 3.0, 48000.0, &ref);
  CHECK(sos[0].b0 == ref.b0 * g && sos[0].b1 == ref.b1 * g && sos[0].b2 == ref.b2 * g &&
            sos[0].a1 == ref.a1 && sos[0].a2 == ref.a2,
        "band 0 = biquad with the pre-gain in its numerator");
  CHECK(sos[1].b0 == 1.0 && sos[1].b1 == 0.0 && sos[1].b2 == 0.0 && sos[1].a1 == 0.0 &&
            sos[1].a2 == 0.0,
        "0 dB peaking band is the identity section");
  fx_design_biquad(FX_BIQUAD_NOTCH, 50.0, 8.0, 0.0, 48000.0, &ref);
  CHECK(memcmp(&sos[2], &ref, sizeof ref) == 0, "notch band = biquad");
  /* closed forms: DC gain = shelf (+3 dB) x pre-gain x notch (1) x high-pass (0) -> use 1 kHz,
   * where the shelf is ~0 dB, the notch ~1, the high-pass ~1 */
  CHECK(fabs(20 * log10(mag(sos, 4, 1000.0, 48000.0)) + 6.0) < 0.05, "1 kHz gain %.4f dB",
        20 * log10(mag(sos, 4, 1000.0, 48000.0)));
  CHECK(mag(sos, 4, 50.0, 48000.0) < 1e-9, "notch zero at 50 Hz");

  /* every gain type at 0 dB is an identity, whatever its frequency (above Nyquist too) */
  for (int t = FX_BIQUAD_PEAKING; t <= FX_BIQUAD_HIGH_SHELF; t++) {
    fx_eq_band_t b = {(fx_biquad_type_t) t, 30000.0, 0.7071, 0.0};
    st = fx_design_eq(&b, 1, 0.0, 48000.0, sos, 1, &n, &bad);
    CHECK(st == FX_OK && fx_eq_band_is_identity(&b) && sos[0].b0 == 1.0 && sos[0].a1 == 0.0,
          "type %d at 0 dB: %s", t, fx_status_string(st));
  }
  CHECK(fabs(fx_eq_default_frequency(0, 1) - 20.0 * sqrt(1000.0)) < 1e-9, "default centre");
}

static void test_errors(void)
{
  fx_eq_band_t bands[5];
  fx_sos_t sos[FX_EQ_MAX_BANDS];
  int n, bad;
  fx_status_t st;

  for (int i = 0; i < 5; i++)
    bands[i] = (fx_eq_band_t){FX_BIQUAD_PEAKING, 1000.0 * (i + 1), 1.0, 2.0};
  bands[3].frequency = 24000.0;
  st = fx_design_eq(bands, 5, 0.0, 48000.0, sos, FX_EQ_MAX_BANDS, &n, &bad);
  CHECK(st == FX_ERR_FREQUENCY && bad == 3, "band 3 at Nyquist: %s bad=%d", fx_status_string(st),
        bad);
  bands[3].frequency = 4000.0;
  bands[1].q = 0.0;
  st = fx_design_eq(bands, 5, 0.0, 48000.0, sos, FX_EQ_MAX_BANDS, &n, &bad);
  CHECK(st == FX_ERR_Q && bad == 1, "band 1 q=0: %s bad=%d", fx_status_string(st), bad);
  bands[1].q = 1.0;
  st = fx_design_eq(bands, 5, NAN, 48000.0, sos, FX_EQ_MAX_BANDS, &n, &bad);
  CHECK(st == FX_ERR_GAIN && bad == -1, "pre-gain NaN: %s", fx_status_string(st));
  st = fx_design_eq(bands, 0, 0.0, 48000.0, sos, FX_EQ_MAX_BANDS, &n, &bad);
  CHECK(st == FX_ERR_ORDER, "0 bands: %s", fx_status_string(st));
  st = fx_design_eq(bands, FX_EQ_MAX_BANDS + 1, 0.0, 48000.0, sos, FX_EQ_MAX_BANDS + 1, &n, &bad);
  CHECK(st == FX_ERR_ORDER, "33 bands: %s", fx_status_string(st));
  st = fx_design_eq(bands, 5, 0.0, 48000.0, sos, 4, &n, &bad);
  CHECK(st == FX_ERR_CAPACITY, "capacity: %s", fx_status_string(st));
  st = fx_design_eq(bands, 5, 0.0, 0.0, sos, FX_EQ_MAX_BANDS, &n, &bad);
  CHECK(st == FX_ERR_RATE, "rate 0: %s", fx_status_string(st));
}

int main(void)
{
  test_sections();
  test_errors();
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
