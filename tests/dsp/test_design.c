/* Unit tests of dsp/design.c: stability over the whole parameter range, parameter validation,
 * closed-form response checks (Butterworth, Chebyshev, elliptic, Linkwitz–Riley, RBJ biquads).
 * Exits non-zero on failure.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "design.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define FXCHECK_MAX_REPORTS 50
#include "fxcheck.h"

static const char *family_name[] = {"butterworth", "chebyshev1", "chebyshev2", "elliptic"};
static const char *mode_name[] = {"low-pass", "high-pass", "band-pass", "band-reject"};

static double mag_db(const fx_sos_t *sos, int n, double f, double rate)
{
  double re, im;
  fx_sos_response(sos, n, f, rate, &re, &im);
  return 20.0 * log10(hypot(re, im));
}

/* Largest pole radius of a cascade, from the roots of z^2 + a1 z + a2 of every section. */
static double max_pole_radius(const fx_sos_t *sos, int n)
{
  double rmax = 0.0;
  for (int i = 0; i < n; i++) {
    double a1 = sos[i].a1, a2 = sos[i].a2;
    double disc = a1 * a1 - 4.0 * a2;
    double r;
    if (disc < 0.0) {
      r = sqrt(a2); /* complex pair: |p|^2 = a2 */
    } else {
      double s = sqrt(disc);
      double q = -0.5 * (a1 + (a1 >= 0 ? s : -s));
      double r1 = fabs(q), r2 = q != 0.0 ? fabs(a2 / q) : 0.0;
      r = r1 > r2 ? r1 : r2;
    }
    if (r > rmax)
      rmax = r;
  }
  return rmax;
}

static fx_iir_spec_t make_spec(fx_family_t fam, fx_mode_t mode, int order, double rate)
{
  fx_iir_spec_t s;
  memset(&s, 0, sizeof s);
  s.family = fam;
  s.mode = mode;
  s.order = order;
  s.rate = rate;
  s.cutoff = 1000.0;
  s.lower = 300.0;
  s.upper = 3000.0;
  s.ripple = 0.5;
  s.attenuation = fam == FX_FAMILY_ELLIPTIC ? 60.0 : 40.0;
  return s;
}

/* Designs s as a 2000 Hz filter into sos (n sections); a failed check, and 0, when it fails. */
static int design_lp_2k(fx_iir_spec_t *s, fx_sos_t *sos, int *n, const char *family)
{
  s->cutoff = 2000.0;
  if (fx_design_iir(s, sos, 64, n) == FX_OK)
    return 1;
  CHECK(0, "%s design failed", family);
  return 0;
}

/* The lowest and the highest gain (dB) over [0, cutoff], 401 points. */
static void passband_range(const fx_sos_t *sos, int n, double cutoff, double rate, double *lo,
                           double *hi)
{
  *lo = 0.0;
  *hi = -1e9;
  for (int i = 0; i <= 400; i++) {
    const double gi = mag_db(sos, n, cutoff * i / 400.0, rate);
    *lo = fmin(*lo, gi);
    *hi = fmax(*hi, gi);
  }
}

static int max_order(fx_family_t fam)
{
  return fam == FX_FAMILY_ELLIPTIC ? FX_ELLIPTIC_MAX_ORDER : FX_MAX_ORDER;
}

/* Passband gain expected at DC (low-pass, band-reject), Nyquist (high-pass) in dB. */
static double passband_ref_db(const fx_iir_spec_t *s)
{
  if ((s->family == FX_FAMILY_CHEBYSHEV1 || s->family == FX_FAMILY_ELLIPTIC) && s->order % 2 == 0)
    return -s->ripple;
  return 0.0;
}

/* Digital frequency that the bilinear transform maps to the analog centre of a band
 * (geometric mean of the pre-warped edges). */
static double band_centre(double lo, double hi, double rate)
{
  double t = sqrt(tan(M_PI * lo / rate) * tan(M_PI * hi / rate));
  return atan(t) * rate / M_PI;
}

/* ------------------------------------------------------------------------------------------ */

static void test_stability(void)
{
  static const double rates[] = {8000.0, 44100.0, 48000.0, 96000.0, 192000.0};
  static const double abs_cut[] = {1.0, 5.0, 20.0, 100.0, 1000.0};
  static const double rel_cut[] = {0.01, 0.1, 0.25, 0.4, 0.45, 0.49, 0.4999};
  /* band edges: absolute pairs and pairs relative to the rate */
  static const double abs_band[][2] = {{1.0, 2.0},       {20.0, 21.0},   {20.0, 40.0},
                                       {20.0, 200.0},    {100.0, 101.0}, {300.0, 3000.0},
                                       {1000.0, 1100.0}, {1.0, 1000.0}};
  static const double rel_band[][2] = {{0.1, 0.11},   {0.2, 0.4},   {0.45, 0.49},    {0.48, 0.4999},
                                       {0.001, 0.49}, {0.01, 0.45}, {0.0001, 0.4999}};
  int designs = 0, worst_order = 0;
  double worst_r = 0.0;
  char worst_desc[160] = "";
  fx_sos_t sos[FX_DESIGN_MAX_SECTIONS];

  printf("stability: every family x mode x order x cutoff/band at 8k..192k\n");
  for (int fam = 0; fam < 4; fam++) {
    for (int mode = 0; mode < 4; mode++) {
      for (size_t ri = 0; ri < sizeof rates / sizeof rates[0]; ri++) {
        double rate = rates[ri];
        /* the full rate list for the main rate, a thinner grid for the others */
        int full = rate == 48000.0;
        for (int order = 1; order <= max_order(fam); order++) {
          if (!full && order % 3 != 0 && order != 1 && order != max_order(fam))
            continue;
          double edges[32][2];
          int ne = 0;
          if (mode <= FX_MODE_HIGH_PASS) {
            for (size_t i = 0; i < sizeof abs_cut / sizeof abs_cut[0]; i++)
              if (abs_cut[i] < 0.5 * rate)
                edges[ne][0] = abs_cut[i], edges[ne++][1] = 0;
            for (size_t i = 0; i < sizeof rel_cut / sizeof rel_cut[0]; i++)
              edges[ne][0] = rel_cut[i] * rate, edges[ne++][1] = 0;
          } else {
            for (size_t i = 0; i < sizeof abs_band / sizeof abs_band[0]; i++)
              if (abs_band[i][1] < 0.5 * rate)
                edges[ne][0] = abs_band[i][0], edges[ne++][1] = abs_band[i][1];
            for (size_t i = 0; i < sizeof rel_band / sizeof rel_band[0]; i++)
              edges[ne][0] = rel_band[i][0] * rate, edges[ne++][1] = rel_band[i][1] * rate;
          }
          for (int e = 0; e < ne; e++) {
            fx_iir_spec_t s = make_spec((fx_family_t) fam, (fx_mode_t) mode, order, rate);
            if (mode <= FX_MODE_HIGH_PASS)
              s.cutoff = edges[e][0];
            else
              s.lower = edges[e][0], s.upper = edges[e][1];
            int n = -1;
            fx_status_t st = fx_design_iir(&s, sos, FX_DESIGN_MAX_SECTIONS, &n);
            designs++;
            CHECK(st == FX_OK, "%s %s order %d rate %g edges %g/%g: status %s", family_name[fam],
                  mode_name[mode], order, rate, edges[e][0], edges[e][1], fx_status_string(st));
            if (st != FX_OK)
              continue;
            CHECK(n == fx_iir_sections_needed(&s), "%s %s order %d: %d sections, expected %d",
                  family_name[fam], mode_name[mode], order, n, fx_iir_sections_needed(&s));
            int stable = 1, finite = 1;
            for (int i = 0; i < n; i++) {
              stable &= fx_sos_is_stable(&sos[i]);
              finite &= isfinite(sos[i].b0) && isfinite(sos[i].b1) && isfinite(sos[i].b2) &&
                        isfinite(sos[i].a1) && isfinite(sos[i].a2);
            }
            double r = max_pole_radius(sos, n);
            CHECK(stable && finite && r < 1.0,
                  "%s %s order %d rate %g edges %g/%g: stable %d finite %d max |p| %.17g",
                  family_name[fam], mode_name[mode], order, rate, edges[e][0], edges[e][1], stable,
                  finite, r);
            if (r > worst_r) {
              worst_r = r;
              worst_order = order;
              snprintf(worst_desc, sizeof worst_desc, "%s %s rate %g edges %g/%g", family_name[fam],
                       mode_name[mode], rate, edges[e][0], edges[e][1]);
            }
            /* the gain is right (no underflow on the way): passband reference point */
            double fref, want = passband_ref_db(&s);
            if (mode == FX_MODE_LOW_PASS || mode == FX_MODE_BAND_REJECT)
              fref = 0.0;
            else if (mode == FX_MODE_HIGH_PASS)
              fref = 0.5 * rate;
            else {
              fref = band_centre(s.lower, s.upper, rate);
              /* Chebyshev I / elliptic band-pass: the centre is a ripple extremum */
              if (fam == FX_FAMILY_CHEBYSHEV1 || fam == FX_FAMILY_ELLIPTIC)
                want = (order % 2 == 0) ? -s.ripple : 0.0;
            }
            double g = mag_db(sos, n, fref, rate);
            /* Poles within ~1e-7 of the unit circle (orders > 40 at 1 Hz / 192 kHz) put the
             * limit of double a1/a2 coefficients at ~1e-4 dB; scipy's sections do the same. */
            double tol = 1.0 - r > 1e-7 ? 1e-4 : 2e-3;
            CHECK(fabs(g - want) < tol,
                  "%s %s order %d rate %g edges %g/%g: gain at %g Hz %g dB, want %g",
                  family_name[fam], mode_name[mode], order, rate, edges[e][0], edges[e][1], fref, g,
                  want);
          }
        }
      }
    }
  }
  printf("  %d designs, largest pole radius %.12f (order %d, %s)\n", designs, worst_r, worst_order,
         worst_desc);

  /* the case the issue names: order 64 at 20 Hz / 96 kHz, every mode */
  for (int mode = 0; mode < 4; mode++) {
    fx_iir_spec_t s = make_spec(FX_FAMILY_BUTTERWORTH, (fx_mode_t) mode, 64, 96000.0);
    s.cutoff = 20.0;
    s.lower = 20.0;
    s.upper = 40.0;
    int n = 0;
    fx_status_t st = fx_design_iir(&s, sos, FX_DESIGN_MAX_SECTIONS, &n);
    CHECK(st == FX_OK && max_pole_radius(sos, n) < 1.0, "butterworth order 64 20 Hz/96k %s",
          mode_name[mode]);
  }
  /* other ripple / attenuation settings */
  static const double params[][2] = {{0.1, 40.0}, {1.0, 80.0}, {3.0, 60.0}, {0.01, 100.0}};
  int extra = 0;
  for (size_t pi = 0; pi < sizeof params / sizeof params[0]; pi++)
    for (int fam = 1; fam < 4; fam++)
      for (int mode = 0; mode < 4; mode++)
        for (int order = 1; order <= max_order(fam); order++) {
          fx_iir_spec_t s = make_spec((fx_family_t) fam, (fx_mode_t) mode, order, 48000.0);
          s.ripple = params[pi][0];
          s.attenuation = params[pi][1];
          s.cutoff = 20.0;
          s.lower = 20.0;
          s.upper = 200.0;
          int n = 0;
          fx_status_t st = fx_design_iir(&s, sos, FX_DESIGN_MAX_SECTIONS, &n);
          extra++;
          CHECK(st == FX_OK && max_pole_radius(sos, n) < 1.0,
                "%s %s order %d ripple %g attenuation %g: %s", family_name[fam], mode_name[mode],
                order, s.ripple, s.attenuation, fx_status_string(st));
        }
  printf("  %d more designs with other ripple/attenuation settings\n", extra);
}

/* ------------------------------------------------------------------------------------------ */

static void test_errors(void)
{
  fx_sos_t sos[FX_DESIGN_MAX_SECTIONS];
  int n;
  printf("errors: every bad parameter gives its code\n");
  for (int fam = 0; fam < 4; fam++) {
    for (int mode = 0; mode < 4; mode++) {
      fx_iir_spec_t good = make_spec((fx_family_t) fam, (fx_mode_t) mode, 4, 48000.0);
      fx_iir_spec_t s;
      int band = mode >= FX_MODE_BAND_PASS;
#define EXPECT(field, value, code)                                                                 \
  do {                                                                                             \
    s = good;                                                                                      \
    s.field = value;                                                                               \
    fx_status_t st1 = fx_iir_spec_check(&s);                                                       \
    fx_status_t st2 = fx_design_iir(&s, sos, FX_DESIGN_MAX_SECTIONS, &n);                          \
    CHECK(st1 == code && st2 == code, "%s %s %s=%g: got %s / %s, want %s", family_name[fam],       \
          mode_name[mode], #field, (double) (value), fx_status_string(st1), fx_status_string(st2), \
          fx_status_string(code));                                                                 \
  } while (0)
      CHECK(fx_iir_spec_check(&good) == FX_OK, "%s %s good spec", family_name[fam],
            mode_name[mode]);
      EXPECT(rate, 0.0, FX_ERR_RATE);
      EXPECT(rate, -48000.0, FX_ERR_RATE);
      EXPECT(rate, NAN, FX_ERR_RATE);
      EXPECT(rate, INFINITY, FX_ERR_RATE);
      EXPECT(order, 0, FX_ERR_ORDER);
      EXPECT(order, -1, FX_ERR_ORDER);
      EXPECT(order, max_order((fx_family_t) fam) + 1, FX_ERR_ORDER);
      EXPECT(order, 1000, FX_ERR_ORDER);
      if (!band) {
        EXPECT(cutoff, 0.0, FX_ERR_CUTOFF);
        EXPECT(cutoff, -5.0, FX_ERR_CUTOFF);
        EXPECT(cutoff, 24000.0, FX_ERR_CUTOFF);
        EXPECT(cutoff, 30000.0, FX_ERR_CUTOFF);
        EXPECT(cutoff, NAN, FX_ERR_CUTOFF);
        EXPECT(cutoff, INFINITY, FX_ERR_CUTOFF);
        /* band edges are not looked at */
        EXPECT(lower, -1.0, FX_OK);
        EXPECT(upper, 99999.0, FX_OK);
      } else {
        EXPECT(lower, 0.0, FX_ERR_LOWER);
        EXPECT(lower, -1.0, FX_ERR_LOWER);
        EXPECT(lower, 24000.0, FX_ERR_LOWER);
        EXPECT(lower, NAN, FX_ERR_LOWER);
        EXPECT(upper, 0.0, FX_ERR_UPPER);
        EXPECT(upper, 24000.0, FX_ERR_UPPER);
        EXPECT(upper, 1e9, FX_ERR_UPPER);
        EXPECT(upper, NAN, FX_ERR_UPPER);
        EXPECT(upper, 300.0, FX_ERR_BAND);
        EXPECT(upper, 100.0, FX_ERR_BAND);
        EXPECT(cutoff, -1.0, FX_OK);
      }
      if (fam == FX_FAMILY_CHEBYSHEV1 || fam == FX_FAMILY_ELLIPTIC) {
        EXPECT(ripple, 0.0, FX_ERR_RIPPLE);
        EXPECT(ripple, -1.0, FX_ERR_RIPPLE);
        EXPECT(ripple, NAN, FX_ERR_RIPPLE);
        EXPECT(ripple, INFINITY, FX_ERR_RIPPLE);
      } else {
        EXPECT(ripple, -1.0, FX_OK);
      }
      if (fam == FX_FAMILY_CHEBYSHEV2 || fam == FX_FAMILY_ELLIPTIC) {
        EXPECT(attenuation, 0.0, FX_ERR_ATTENUATION);
        EXPECT(attenuation, -3.0, FX_ERR_ATTENUATION);
        EXPECT(attenuation, NAN, FX_ERR_ATTENUATION);
        EXPECT(attenuation, INFINITY, FX_ERR_ATTENUATION);
      } else {
        EXPECT(attenuation, -1.0, FX_OK);
      }
      if (fam == FX_FAMILY_ELLIPTIC) {
        EXPECT(attenuation, 0.5, FX_ERR_ATTENUATION);
        EXPECT(attenuation, 0.4, FX_ERR_ATTENUATION);
      }
      EXPECT(family, (fx_family_t) 7, FX_ERR_TYPE);
      EXPECT(mode, (fx_mode_t) 9, FX_ERR_TYPE);
#undef EXPECT
      /* capacity */
      int need = fx_iir_sections_needed(&good);
      fx_status_t st = fx_design_iir(&good, sos, need - 1, &n);
      CHECK(st == FX_ERR_CAPACITY, "%s %s capacity %d: %s", family_name[fam], mode_name[mode],
            need - 1, fx_status_string(st));
      st = fx_design_iir(&good, sos, need, &n);
      CHECK(st == FX_OK && n == need, "%s %s capacity exactly %d", family_name[fam],
            mode_name[mode], need);
    }
  }
  /* sections needed */
  for (int order = 1; order <= 64; order++) {
    fx_iir_spec_t s = make_spec(FX_FAMILY_BUTTERWORTH, FX_MODE_LOW_PASS, order, 48000.0);
    CHECK(fx_iir_sections_needed(&s) == (order + 1) / 2, "sections needed lp %d", order);
    s.mode = FX_MODE_BAND_PASS;
    CHECK(fx_iir_sections_needed(&s) == order, "sections needed bp %d", order);
  }
  CHECK(fx_iir_sections_needed(&(fx_iir_spec_t){.mode = FX_MODE_BAND_REJECT, .order = 64}) == 64,
        "sections needed, band-reject 64");

  /* Linkwitz–Riley */
  fx_status_t st;
  st = fx_design_linkwitz_riley(FX_MODE_LOW_PASS, 3, 1000, 48000, sos, 16, &n);
  CHECK(st == FX_ERR_ORDER, "LR odd order: %s", fx_status_string(st));
  st = fx_design_linkwitz_riley(FX_MODE_LOW_PASS, 0, 1000, 48000, sos, 16, &n);
  CHECK(st == FX_ERR_ORDER, "LR order 0: %s", fx_status_string(st));
  st = fx_design_linkwitz_riley(FX_MODE_LOW_PASS, 18, 1000, 48000, sos, 16, &n);
  CHECK(st == FX_ERR_ORDER, "LR order 18: %s", fx_status_string(st));
  st = fx_design_linkwitz_riley(FX_MODE_LOW_PASS, 4, 24000, 48000, sos, 16, &n);
  CHECK(st == FX_ERR_CUTOFF, "LR cutoff Nyquist: %s", fx_status_string(st));
  st = fx_design_linkwitz_riley(FX_MODE_HIGH_PASS, 4, 0, 48000, sos, 16, &n);
  CHECK(st == FX_ERR_CUTOFF, "LR cutoff 0: %s", fx_status_string(st));
  st = fx_design_linkwitz_riley(FX_MODE_HIGH_PASS, 4, NAN, 48000, sos, 16, &n);
  CHECK(st == FX_ERR_CUTOFF, "LR cutoff NaN: %s", fx_status_string(st));
  st = fx_design_linkwitz_riley(FX_MODE_HIGH_PASS, 4, 1000, -1, sos, 16, &n);
  CHECK(st == FX_ERR_RATE, "LR rate: %s", fx_status_string(st));
  st = fx_design_linkwitz_riley(FX_MODE_BAND_PASS, 4, 1000, 48000, sos, 16, &n);
  CHECK(st == FX_ERR_TYPE, "LR band mode: %s", fx_status_string(st));
  st = fx_design_linkwitz_riley(FX_MODE_LOW_PASS, 8, 1000, 48000, sos, 3, &n);
  CHECK(st == FX_ERR_CAPACITY, "LR capacity: %s", fx_status_string(st));

  /* biquads */
  st = fx_design_biquad(FX_BIQUAD_PEAKING, 0.0, 1.0, 3.0, 48000, sos);
  CHECK(st == FX_ERR_FREQUENCY, "biquad f=0: %s", fx_status_string(st));
  st = fx_design_biquad(FX_BIQUAD_PEAKING, 24000.0, 1.0, 3.0, 48000, sos);
  CHECK(st == FX_ERR_FREQUENCY, "biquad f=Nyquist: %s", fx_status_string(st));
  st = fx_design_biquad(FX_BIQUAD_PEAKING, NAN, 1.0, 3.0, 48000, sos);
  CHECK(st == FX_ERR_FREQUENCY, "biquad f=NaN: %s", fx_status_string(st));
  st = fx_design_biquad(FX_BIQUAD_PEAKING, 1000.0, 0.0, 3.0, 48000, sos);
  CHECK(st == FX_ERR_Q, "biquad q=0: %s", fx_status_string(st));
  st = fx_design_biquad(FX_BIQUAD_PEAKING, 1000.0, -1.0, 3.0, 48000, sos);
  CHECK(st == FX_ERR_Q, "biquad q<0: %s", fx_status_string(st));
  st = fx_design_biquad(FX_BIQUAD_PEAKING, 1000.0, INFINITY, 3.0, 48000, sos);
  CHECK(st == FX_ERR_Q, "biquad q=inf: %s", fx_status_string(st));
  st = fx_design_biquad(FX_BIQUAD_PEAKING, 1000.0, 1.0, NAN, 48000, sos);
  CHECK(st == FX_ERR_GAIN, "biquad gain NaN: %s", fx_status_string(st));
  st = fx_design_biquad(FX_BIQUAD_LOW_SHELF, 1000.0, 1.0, -INFINITY, 48000, sos);
  CHECK(st == FX_ERR_GAIN, "biquad gain -inf: %s", fx_status_string(st));
  st = fx_design_biquad((fx_biquad_type_t) 42, 1000.0, 1.0, 0.0, 48000, sos);
  CHECK(st == FX_ERR_TYPE, "biquad type: %s", fx_status_string(st));
  st = fx_design_biquad(FX_BIQUAD_LOW_PASS, 1000.0, 1.0, 0.0, 0.0, sos);
  CHECK(st == FX_ERR_RATE, "biquad rate: %s", fx_status_string(st));

  /* sections from rows */
  fx_sos_t s1;
  double row_ok[6] = {2.0, 4.0, 2.0, 2.0, -1.0, 0.5};
  st = fx_sos_from_row(row_ok, &s1);
  CHECK(st == FX_OK && s1.b0 == 1.0 && s1.b1 == 2.0 && s1.b2 == 1.0 && s1.a1 == -0.5 &&
            s1.a2 == 0.25,
        "sos row normalised by a0: %s", fx_status_string(st));
  double row_a0[6] = {1, 0, 0, 0, 0.1, 0.1};
  CHECK(fx_sos_from_row(row_a0, &s1) == FX_ERR_A0, "sos row a0 == 0");
  double row_nan[6] = {1, NAN, 0, 1, 0.1, 0.1};
  CHECK(fx_sos_from_row(row_nan, &s1) == FX_ERR_NONFINITE, "sos row NaN");
  double row_inf[6] = {1, 0, 0, 1, INFINITY, 0.1};
  CHECK(fx_sos_from_row(row_inf, &s1) == FX_ERR_NONFINITE, "sos row inf");
  double row_ovf[6] = {1e300, 0, 0, 1e-300, 0, 0};
  CHECK(fx_sos_from_row(row_ovf, &s1) == FX_ERR_NONFINITE, "sos row overflow after /a0");
  double row_unst[6] = {1, 0, 0, 1, 0, 1.0};
  CHECK(fx_sos_from_row(row_unst, &s1) == FX_ERR_UNSTABLE, "sos row poles on the circle");
  double row_unst2[6] = {1, 0, 0, 1, -2.0, 1.0};
  CHECK(fx_sos_from_row(row_unst2, &s1) == FX_ERR_UNSTABLE, "sos row double pole at z=1");
  double row_unst3[6] = {1, 0, 0, 1, 1.5, 0.4};
  CHECK(fx_sos_from_row(row_unst3, &s1) == FX_ERR_UNSTABLE, "sos row real pole below -1");

  /* stability triangle */
  static const struct {
    double a1, a2;
    int stable;
  } tri[] = {{0, 0, 1},           {0, 0.999, 1},   {0, -0.999, 1},  {1.9, 0.95, 1}, {-1.9, 0.95, 1},
             {-1.999, 0.9991, 1}, {0, 1, 0},       {0, -1, 0},      {2, 1, 0},      {-2, 1, 0},
             {1.5, 0.4, 0},       {-1.5, 0.56, 1}, {-1.5, 0.5, 0},  {1.0, 0.0, 0},  {-1.0, 0.0, 0},
             {0.999, 0.0, 1},     {NAN, 0, 0},     {0, INFINITY, 0}};
  for (size_t i = 0; i < sizeof tri / sizeof tri[0]; i++) {
    fx_sos_t s = {1, 0, 0, tri[i].a1, tri[i].a2};
    CHECK(fx_sos_is_stable(&s) == tri[i].stable, "is_stable(a1=%g, a2=%g) != %d", tri[i].a1,
          tri[i].a2, tri[i].stable);
  }

  /* status strings */
  for (int c = FX_OK; c <= FX_ERR_NONFINITE; c++) {
    const char *t = fx_status_string((fx_status_t) c);
    CHECK(t != NULL && t[0] != '\0', "status string %d", c);
    for (int d = FX_OK; d < c; d++)
      CHECK(strcmp(t, fx_status_string((fx_status_t) d)) != 0, "status strings %d and %d equal", c,
            d);
  }
  CHECK(fx_status_string((fx_status_t) 999) != NULL, "status string of an unknown code");
  printf("  cutoff example: \"%s\"\n", fx_status_string(FX_ERR_CUTOFF));
}

/* ------------------------------------------------------------------------------------------ */

static void test_closed_form(void)
{
  fx_sos_t sos[FX_DESIGN_MAX_SECTIONS];
  int n;
  double worst = 0.0;
  printf("closed form: Butterworth -3.01 dB, Chebyshev ripple/attenuation, elliptic ripple\n");
  static const double cuts[] = {20.0, 100.0, 1000.0, 10000.0, 23000.0};
  const double rate = 48000.0;
  const double m3db = 10.0 * log10(0.5);
  for (int order = 1; order <= 64; order++) {
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
      for (int mode = 0; mode < 2; mode++) {
        fx_iir_spec_t s = make_spec(FX_FAMILY_BUTTERWORTH, (fx_mode_t) mode, order, rate);
        s.cutoff = cuts[c];
        if (fx_design_iir(&s, sos, 64, &n) != FX_OK) {
          CHECK(0, "butterworth design failed");
          continue;
        }
        double g = mag_db(sos, n, cuts[c], rate);
        worst = fmax(worst, fabs(g - m3db));
        CHECK(fabs(g - m3db) < 1e-6, "butterworth %s order %d at %g Hz: %.9f dB", mode_name[mode],
              order, cuts[c], g);
      }
      /* band-pass / band-reject: -3.01 dB at both edges */
      for (int mode = 2; mode < 4; mode++) {
        fx_iir_spec_t s = make_spec(FX_FAMILY_BUTTERWORTH, (fx_mode_t) mode, order, rate);
        s.lower = cuts[c] * 0.5;
        s.upper = cuts[c];
        if (fx_design_iir(&s, sos, 64, &n) != FX_OK) {
          CHECK(0, "butterworth band design failed");
          continue;
        }
        double g1 = mag_db(sos, n, s.lower, rate), g2 = mag_db(sos, n, s.upper, rate);
        worst = fmax(worst, fmax(fabs(g1 - m3db), fabs(g2 - m3db)));
        CHECK(fabs(g1 - m3db) < 1e-6 && fabs(g2 - m3db) < 1e-6,
              "butterworth %s order %d %g-%g: %.9f / %.9f dB", mode_name[mode], order, s.lower,
              s.upper, g1, g2);
      }
    }
  }
  printf("  butterworth: largest deviation from -3.0103 dB at the edges %.3g dB\n", worst);

  /* Chebyshev I: -ripple at the cutoff, passband within [-ripple, 0] */
  static const double ripples[] = {0.1, 0.5, 1.0, 3.0};
  worst = 0.0;
  for (size_t ri = 0; ri < 4; ri++)
    for (int order = 1; order <= 64; order++) {
      fx_iir_spec_t s = make_spec(FX_FAMILY_CHEBYSHEV1, FX_MODE_LOW_PASS, order, rate);
      s.ripple = ripples[ri];
      if (!design_lp_2k(&s, sos, &n, "chebyshev1"))
        continue;
      double g = mag_db(sos, n, s.cutoff, rate);
      worst = fmax(worst, fabs(g + s.ripple));
      CHECK(fabs(g + s.ripple) < 1e-6, "chebyshev1 order %d ripple %g: %.9f dB at cutoff", order,
            s.ripple, g);
      double lo, hi;
      passband_range(sos, n, s.cutoff, rate, &lo, &hi);
      CHECK(lo > -s.ripple - 1e-6 && hi < 1e-6,
            "chebyshev1 order %d ripple %g: passband %.6f..%.6f dB", order, s.ripple, lo, hi);
      /* high-pass mirror */
      s.mode = FX_MODE_HIGH_PASS;
      if (fx_design_iir(&s, sos, 64, &n) == FX_OK) {
        g = mag_db(sos, n, s.cutoff, rate);
        CHECK(fabs(g + s.ripple) < 1e-6, "chebyshev1 hp order %d ripple %g: %.9f dB", order,
              s.ripple, g);
      }
    }
  printf("  chebyshev1: largest deviation from -ripple at the cutoff %.3g dB\n", worst);

  /* Chebyshev II: -attenuation at the stopband edge, stopband below -attenuation */
  static const double atts[] = {20.0, 40.0, 60.0, 100.0};
  worst = 0.0;
  for (size_t ai = 0; ai < 4; ai++)
    for (int order = 1; order <= 64; order++) {
      fx_iir_spec_t s = make_spec(FX_FAMILY_CHEBYSHEV2, FX_MODE_LOW_PASS, order, rate);
      s.attenuation = atts[ai];
      if (!design_lp_2k(&s, sos, &n, "chebyshev2"))
        continue;
      double g = mag_db(sos, n, s.cutoff, rate);
      worst = fmax(worst, fabs(g + s.attenuation));
      CHECK(fabs(g + s.attenuation) < 1e-5, "chebyshev2 order %d att %g: %.9f dB at edge", order,
            s.attenuation, g);
      double hi = -1e9;
      for (int i = 0; i <= 400; i++) {
        double f = s.cutoff + (0.5 * rate - s.cutoff) * i / 400.0;
        if (f >= 0.5 * rate)
          f = 0.4999999 * rate;
        hi = fmax(hi, mag_db(sos, n, f, rate));
      }
      CHECK(hi < -s.attenuation + 1e-5, "chebyshev2 order %d att %g: stopband max %.6f dB", order,
            s.attenuation, hi);
      g = mag_db(sos, n, 0.0, rate);
      CHECK(fabs(g) < 1e-9, "chebyshev2 order %d: DC gain %.3g dB", order, g);
    }
  printf("  chebyshev2: largest deviation from -attenuation at the edge %.3g dB\n", worst);

  /* elliptic: -ripple at the cutoff, passband within [-ripple, 0], equiripple stopband */
  static const double ep[][2] = {{0.5, 60.0}, {0.1, 40.0}, {1.0, 80.0}};
  worst = 0.0;
  for (size_t pi = 0; pi < 3; pi++)
    for (int order = 1; order <= FX_ELLIPTIC_MAX_ORDER; order++) {
      fx_iir_spec_t s = make_spec(FX_FAMILY_ELLIPTIC, FX_MODE_LOW_PASS, order, rate);
      s.ripple = ep[pi][0];
      s.attenuation = ep[pi][1];
      if (!design_lp_2k(&s, sos, &n, "elliptic"))
        continue;
      double g = mag_db(sos, n, s.cutoff, rate);
      worst = fmax(worst, fabs(g + s.ripple));
      CHECK(fabs(g + s.ripple) < 1e-6, "elliptic order %d %g/%g: %.9f dB at cutoff", order,
            s.ripple, s.attenuation, g);
      double lo, hi;
      passband_range(sos, n, s.cutoff, rate, &lo, &hi);
      CHECK(lo > -s.ripple - 1e-6 && hi < 1e-6, "elliptic order %d: passband %.6f..%.6f dB", order,
            lo, hi);
      if (order >= 2) {
        /* past the lowest transmission zero the stopband is equiripple at -attenuation */
        double fz = 0.5 * rate;
        for (int i = 0; i < n; i++) {
          if (sos[i].b0 == 0.0 || fabs(sos[i].b2 / sos[i].b0 - 1.0) > 1e-6)
            continue;
          double c = -sos[i].b1 / (2.0 * sos[i].b0);
          if (c > 1.0)
            c = 1.0;
          if (c < -1.0)
            c = -1.0;
          fz = fmin(fz, acos(c) * rate / (2.0 * M_PI));
        }
        double shi = -1e9;
        for (int i = 0; i <= 4000; i++) {
          double f = fz + (0.4999 * rate - fz) * i / 4000.0;
          shi = fmax(shi, mag_db(sos, n, f, rate));
        }
        CHECK(shi < -s.attenuation + 1e-4 && shi > -s.attenuation - 0.01,
              "elliptic order %d %g/%g: stopband max %.6f dB past %g Hz", order, s.ripple,
              s.attenuation, shi, fz);
      }
    }
  printf("  elliptic: largest deviation from -ripple at the cutoff %.3g dB\n", worst);
}

/* ------------------------------------------------------------------------------------------ */

static void test_linkwitz_riley(void)
{
  fx_sos_t lp[16], hp[16];
  int nl, nh;
  double worst_sum = 0.0, worst_6 = 0.0;
  static const double rates[] = {44100.0, 48000.0, 96000.0};
  static const double cuts[] = {20.0, 80.0, 500.0, 2000.0, 10000.0, 20000.0};
  printf("linkwitz-riley: |LP + HP| == 1, LP and HP at cutoff -6.02 dB, orders 2..16\n");
  for (int order = 2; order <= 16; order += 2)
    for (size_t ri = 0; ri < 3; ri++)
      for (size_t ci = 0; ci < sizeof cuts / sizeof cuts[0]; ci++) {
        double rate = rates[ri], fc = cuts[ci];
        if (fc >= 0.5 * rate)
          continue;
        fx_status_t s1 = fx_design_linkwitz_riley(FX_MODE_LOW_PASS, order, fc, rate, lp, 16, &nl);
        fx_status_t s2 = fx_design_linkwitz_riley(FX_MODE_HIGH_PASS, order, fc, rate, hp, 16, &nh);
        CHECK(s1 == FX_OK && s2 == FX_OK && nl == order / 2 && nh == order / 2,
              "LR order %d fc %g: %s %s sections %d %d", order, fc, fx_status_string(s1),
              fx_status_string(s2), nl, nh);
        if (s1 != FX_OK || s2 != FX_OK)
          continue;
        CHECK(max_pole_radius(lp, nl) < 1.0 && max_pole_radius(hp, nh) < 1.0,
              "LR order %d fc %g stable", order, fc);
        double maxdev = 0.0;
        for (int i = 0; i < 200; i++) {
          double f = 1.0 * pow(0.4999 * rate / 1.0, i / 199.0);
          double lr, li, hr, hi;
          fx_sos_response(lp, nl, f, rate, &lr, &li);
          fx_sos_response(hp, nh, f, rate, &hr, &hi);
          double m = hypot(lr + hr, li + hi);
          maxdev = fmax(maxdev, fabs(m - 1.0));
        }
        worst_sum = fmax(worst_sum, maxdev);
        CHECK(maxdev < 1e-9, "LR order %d fc %g rate %g: | |LP+HP| - 1 | = %.3g", order, fc, rate,
              maxdev);
        double gl = mag_db(lp, nl, fc, rate), gh = mag_db(hp, nh, fc, rate);
        double want = 20.0 * log10(0.5);
        worst_6 = fmax(worst_6, fmax(fabs(gl - want), fabs(gh - want)));
        CHECK(fabs(gl - want) < 1e-6 && fabs(gh - want) < 1e-6,
              "LR order %d fc %g: %.9f / %.9f dB at cutoff", order, fc, gl, gh);
      }
  printf("  largest | |LP+HP| - 1 | %.3g, largest deviation from -6.02 dB %.3g dB\n", worst_sum,
         worst_6);
}

/* ------------------------------------------------------------------------------------------ */

/* Direct-form coefficients at low f0 lose a few digits to 1 - cos(w0) cancellation in the
 * cookbook's shelf formulas: ~1e-9 dB at 20 Hz / 44.1 kHz. */
#define BQ_TOL_DB 1e-7

static void test_biquads(void)
{
  fx_sos_t s;
  static const double rates[] = {44100.0, 48000.0, 96000.0};
  static const double freqs[] = {20.0, 100.0, 1000.0, 5000.0, 15000.0};
  static const double qs[] = {0.1, 0.5, 0.7071, 1.0, 4.0, 20.0};
  static const double gains[] = {-24.0, -6.0, -0.5, 0.0, 3.0, 12.0, 24.0};
  double worst = 0.0;
  printf("biquads: peaking/shelf gains, notch zero, all-pass |H| = 1, LP/HP/BP at f0\n");
  for (size_t ri = 0; ri < 3; ri++)
    for (size_t fi = 0; fi < 5; fi++)
      for (size_t qi = 0; qi < 6; qi++) {
        double rate = rates[ri], f0 = freqs[fi], q = qs[qi];
        double re, im;
        for (int t = 0; t <= FX_BIQUAD_HIGH_SHELF; t++) {
          fx_status_t st = fx_design_biquad((fx_biquad_type_t) t, f0, q, 6.0, rate, &s);
          CHECK(st == FX_OK && fx_sos_is_stable(&s), "biquad type %d f0 %g q %g: %s", t, f0, q,
                fx_status_string(st));
        }
        fx_design_biquad(FX_BIQUAD_LOW_PASS, f0, q, 0, rate, &s);
        double g = pow(10.0, mag_db(&s, 1, f0, rate) / 20.0);
        worst = fmax(worst, fabs(g - q) / q);
        CHECK(fabs(g - q) < 1e-9 * q, "LP |H(f0)| %g, want Q %g", g, q);
        CHECK(fabs(mag_db(&s, 1, 0.0, rate)) < BQ_TOL_DB, "LP DC gain");
        fx_design_biquad(FX_BIQUAD_HIGH_PASS, f0, q, 0, rate, &s);
        g = pow(10.0, mag_db(&s, 1, f0, rate) / 20.0);
        CHECK(fabs(g - q) < 1e-9 * q, "HP |H(f0)| %g, want Q %g", g, q);
        CHECK(fabs(mag_db(&s, 1, 0.5 * rate, rate)) < BQ_TOL_DB, "HP Nyquist gain");
        fx_design_biquad(FX_BIQUAD_BAND_PASS, f0, q, 0, rate, &s);
        CHECK(fabs(mag_db(&s, 1, f0, rate)) < BQ_TOL_DB, "BP 0 dB peak at f0");
        fx_design_biquad(FX_BIQUAD_BAND_PASS_PEAK, f0, q, 0, rate, &s);
        g = pow(10.0, mag_db(&s, 1, f0, rate) / 20.0);
        CHECK(fabs(g - q) < 1e-9 * q, "BP-peak |H(f0)| %g, want Q %g", g, q);
        fx_design_biquad(FX_BIQUAD_NOTCH, f0, q, 0, rate, &s);
        fx_sos_response(&s, 1, f0, rate, &re, &im);
        CHECK(hypot(re, im) < 1e-7, "notch |H(f0)| = %.3g", hypot(re, im));
        CHECK(fabs(mag_db(&s, 1, 0.0, rate)) < BQ_TOL_DB, "notch DC gain");
        fx_design_biquad(FX_BIQUAD_ALL_PASS, f0, q, 0, rate, &s);
        double dev = 0.0;
        for (int i = 0; i < 100; i++)
          dev = fmax(dev, fabs(mag_db(&s, 1, 0.4999 * rate * i / 99.0, rate)));
        CHECK(dev < BQ_TOL_DB, "all-pass |H| deviates by %.3g dB", dev);
        for (size_t gi = 0; gi < sizeof gains / sizeof gains[0]; gi++) {
          double gdb = gains[gi];
          fx_design_biquad(FX_BIQUAD_PEAKING, f0, q, gdb, rate, &s);
          double gp = mag_db(&s, 1, f0, rate);
          worst = fmax(worst, fabs(gp - gdb));
          CHECK(fabs(gp - gdb) < BQ_TOL_DB, "peaking f0 %g q %g gain %g: %.12f dB", f0, q, gdb, gp);
          CHECK(fabs(mag_db(&s, 1, 0.0, rate)) < BQ_TOL_DB, "peaking DC gain");
          fx_design_biquad(FX_BIQUAD_LOW_SHELF, f0, q, gdb, rate, &s);
          CHECK(fabs(mag_db(&s, 1, 0.0, rate) - gdb) < BQ_TOL_DB, "low shelf DC gain %g",
                mag_db(&s, 1, 0.0, rate));
          CHECK(fabs(mag_db(&s, 1, 0.5 * rate, rate)) < BQ_TOL_DB, "low shelf Nyquist gain");
          CHECK(fabs(mag_db(&s, 1, f0, rate) - gdb / 2) < BQ_TOL_DB, "low shelf at f0 %g, want %g",
                mag_db(&s, 1, f0, rate), gdb / 2);
          fx_design_biquad(FX_BIQUAD_HIGH_SHELF, f0, q, gdb, rate, &s);
          CHECK(fabs(mag_db(&s, 1, 0.5 * rate, rate) - gdb) < BQ_TOL_DB, "high shelf Nyquist gain");
          CHECK(fabs(mag_db(&s, 1, 0.0, rate)) < BQ_TOL_DB, "high shelf DC gain");
          CHECK(fabs(mag_db(&s, 1, f0, rate) - gdb / 2) < BQ_TOL_DB, "high shelf at f0");
        }
      }
  printf("  largest relative error of a closed-form biquad gain %.3g\n", worst);
}

int main(void)
{
  test_errors();
  test_closed_form();
  test_linkwitz_riley();
  test_biquads();
  test_stability();
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
