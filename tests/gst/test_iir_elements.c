/* gst-fx — element tests of the IIR elements: levels against closed forms, streaming invariance,
 * controller automation, renegotiation, flushing, counters.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <gst/controller/controller.h>

#include "fxtest.h"

#define RATE 48000

/* ---- Independent references: closed-form magnitude responses ----
 * Every digital design here is the bilinear transform (pre-warped at the design frequencies) of
 * an analog prototype, so |H(f)| is the prototype's |H(jW)| at W = tan(pi f / rate) normalised
 * like the design frequencies. These formulas do not use libfxdsp. */

typedef enum { FAM_BW, FAM_C1, FAM_C2, FAM_EL, FAM_LR, FAM_BQ, FAM_SOS } fam_t;
typedef enum { M_LP, M_HP, M_BP, M_BR } fmode_t;
typedef enum { BQ_LP, BQ_PEAK, BQ_NOTCH, BQ_ALLPASS } bq_t;

static double warp(double f, double rate)
{
  return tan(G_PI * f / rate);
}

/* Frequency of the prototype low-pass that `f` maps to. */
static double proto_omega(fmode_t m, double rate, double f, double fc, double f1, double f2)
{
  double w = warp(f, rate), wc = warp(fc, rate), w1 = warp(f1, rate), w2 = warp(f2, rate);
  switch (m) {
  case M_LP:
    return w / wc;
  case M_HP:
    return wc / w;
  case M_BP:
    return fabs((w * w - w1 * w2) / (w * (w2 - w1)));
  case M_BR: {
    double d = w * w - w1 * w2;
    return d == 0.0 ? INFINITY : fabs(w * (w2 - w1) / d);
  }
  }
  return 0.0;
}

static double cheb_t(int n, double x)
{
  x = fabs(x);
  return x <= 1.0 ? cos(n * acos(x)) : cosh(n * acosh(x));
}

/* Power gain in dB of the prototype of `order` at normalised frequency om. */
static double proto_db(fam_t fam, int order, double rp, double rs, double om)
{
  switch (fam) {
  case FAM_BW:
    return -10.0 * log10(1.0 + pow(om, 2.0 * order));
  case FAM_C1: {
    double eps2 = pow(10.0, rp / 10.0) - 1.0, t = cheb_t(order, om);
    return -10.0 * log10(1.0 + eps2 * t * t);
  }
  case FAM_C2: {
    double eps2 = 1.0 / (pow(10.0, rs / 10.0) - 1.0);
    double t, p;
    if (om == 0.0)
      return 0.0;
    t = cheb_t(order, 1.0 / om);
    p = eps2 * t * t;
    return 10.0 * log10(p / (1.0 + p));
  }
  case FAM_LR:
    /* Linkwitz-Riley of order N = Butterworth of order N/2, squared. */
    return -20.0 * log10(1.0 + pow(om, order));
  default:
    return NAN;
  }
}

/* RBJ cookbook: the analog prototypes at W = tan(pi f/rate) / tan(pi f0/rate). */
static double biquad_db(bq_t t, double rate, double f, double f0, double q, double gain_db)
{
  double om = warp(f, rate) / warp(f0, rate);
  double re = 1.0 - om * om;
  double den = re * re + (om / q) * (om / q);
  switch (t) {
  case BQ_LP:
    return 10.0 * log10(1.0 / den);
  case BQ_NOTCH:
    return 10.0 * log10(re * re / den);
  case BQ_ALLPASS:
    return 0.0;
  case BQ_PEAK: {
    double a = pow(10.0, gain_db / 40.0);
    double num = re * re + (om * a / q) * (om * a / q);
    double d = re * re + (om / (a * q)) * (om / (a * q));
    return 10.0 * log10(num / d);
  }
  }
  return NAN;
}

/* Second-order Butterworth low-pass by the textbook bilinear formulas (K = tan(pi fc / rate)). */
static void butter2_lowpass(double fc, double rate, double row[6])
{
  double k = tan(G_PI * fc / rate);
  double norm = 1.0 / (1.0 + G_SQRT2 * k + k * k);
  row[0] = k * k * norm;
  row[1] = 2.0 * row[0];
  row[2] = row[0];
  row[3] = 1.0;
  row[4] = 2.0 * (k * k - 1.0) * norm;
  row[5] = (1.0 - G_SQRT2 * k + k * k) * norm;
}

static gchar *sos_text(double fc, double rate)
{
  double r[6];
  butter2_lowpass(fc, rate, r);
  /* Two identical sections (a Linkwitz-Riley LR4); the second row scaled by 2 to test the
   * normalisation by a0. */
  return g_strdup_printf("%.17g %.17g %.17g %.17g %.17g %.17g; %.17g, %.17g, %.17g, %.17g, "
                         "%.17g, %.17g",
                         r[0], r[1], r[2], r[3], r[4], r[5], 2 * r[0], 2 * r[1], 2 * r[2], 2 * r[3],
                         2 * r[4], 2 * r[5]);
}

typedef struct {
  fam_t fam;
  fmode_t mode;
  int order;
  double fc, f1, f2, rp, rs;
  bq_t bq;
  double q, gain;
  double freqs[6]; /* 0-terminated */
} level_case_t;

static const char *mode_nick(fmode_t m)
{
  static const char *n[] = {"low-pass", "high-pass", "band-pass", "band-reject"};
  return n[m];
}

static gchar *case_desc(const level_case_t *c)
{
  GString *d = g_string_new(NULL);
  static const char *bq[] = {"low-pass", "peaking", "notch", "all-pass"};

  switch (c->fam) {
  case FAM_BW:
    g_string_append(d, "fxbutterworth name=f");
    break;
  case FAM_C1:
    g_string_append_printf(d, "fxchebyshev1 name=f ripple=%g", c->rp);
    break;
  case FAM_C2:
    g_string_append_printf(d, "fxchebyshev2 name=f attenuation=%g", c->rs);
    break;
  case FAM_EL:
    g_string_append_printf(d, "fxelliptic name=f ripple=%g attenuation=%g", c->rp, c->rs);
    break;
  case FAM_LR:
    g_string_append(d, "fxlinkwitzriley name=f");
    break;
  case FAM_BQ:
    g_string_append_printf(d, "fxbiquad name=f type=%s frequency=%g q=%g gain=%g", bq[c->bq], c->fc,
                           c->q, c->gain);
    return g_string_free(d, FALSE);
  case FAM_SOS: {
    gchar *s = sos_text(c->fc, RATE);
    g_string_append_printf(d, "fxsos name=f sections=\"%s\"", s);
    g_free(s);
    return g_string_free(d, FALSE);
  }
  }
  g_string_append_printf(d, " mode=%s order=%d", mode_nick(c->mode), c->order);
  if (c->mode == M_LP || c->mode == M_HP)
    g_string_append_printf(d, " cutoff=%g", c->fc);
  else
    g_string_append_printf(d, " lower-frequency=%g upper-frequency=%g", c->f1, c->f2);
  return g_string_free(d, FALSE);
}

static const level_case_t level_cases[] = {
    {FAM_BW, M_LP, 4, 1000, 0, 0, 0, 0, 0, 0, 0, {100, 500, 1000, 2000, 8000, 0}},
    {FAM_BW, M_HP, 4, 1000, 0, 0, 0, 0, 0, 0, 0, {100, 500, 1000, 4000, 12000, 0}},
    {FAM_BW, M_BP, 4, 0, 500, 2000, 0, 0, 0, 0, 0, {100, 500, 1000, 2000, 8000, 0}},
    {FAM_BW, M_BR, 2, 0, 500, 2000, 0, 0, 0, 0, 0, {100, 500, 1000, 2000, 8000, 0}},
    {FAM_BW, M_LP, 12, 300, 0, 0, 0, 0, 0, 0, 0, {50, 300, 600, 0}},
    {FAM_C1, M_LP, 5, 2000, 0, 0, 0.5, 0, 0, 0, 0, {200, 1000, 2000, 4000, 10000, 0}},
    {FAM_C1, M_HP, 4, 1000, 0, 0, 1.0, 0, 0, 0, 0, {200, 1000, 3000, 10000, 0}},
    {FAM_C2, M_LP, 4, 4000, 0, 0, 0, 40, 0, 0, 0, {500, 1000, 4000, 6000, 10000, 0}},
    {FAM_C2, M_BP, 3, 0, 400, 4000, 0, 50, 0, 0, 0, {100, 400, 1300, 4000, 12000, 0}},
    {FAM_EL, M_LP, 4, 1000, 0, 0, 0.5, 60, 0, 0, 0, {200, 500, 1000, 8000, 16000, 0}},
    {FAM_EL, M_BP, 3, 0, 1000, 3000, 1.0, 50, 0, 0, 0, {100, 1500, 2000, 12000, 0}},
    {FAM_LR, M_LP, 4, 1000, 0, 0, 0, 0, 0, 0, 0, {100, 1000, 4000, 12000, 0}},
    {FAM_LR, M_HP, 8, 2000, 0, 0, 0, 0, 0, 0, 0, {200, 2000, 8000, 0}},
    {FAM_BQ, M_LP, 0, 1000, 0, 0, 0, 0, BQ_LP, 0.7071, 0, {100, 1000, 8000, 0}},
    {FAM_BQ, M_LP, 0, 3000, 0, 0, 0, 0, BQ_PEAK, 1.4, 6, {300, 3000, 10000, 0}},
    {FAM_BQ, M_LP, 0, 1000, 0, 0, 0, 0, BQ_NOTCH, 2.0, 0, {100, 1000, 5000, 0}},
    {FAM_BQ, M_LP, 0, 1000, 0, 0, 0, 0, BQ_ALLPASS, 0.7071, 0, {100, 1000, 10000, 0}},
    {FAM_SOS, M_LP, 0, 1000, 0, 0, 0, 0, 0, 0, 0, {100, 1000, 4000, 12000, 0}},
};
#define N_LEVEL_CASES G_N_ELEMENTS(level_cases)

/* Measured level (dB) of a sine at `freq` through the harness, after the transient. */
static double measure_db(GstHarness *h, fx_fmt_t fmt, int rate, int channels, double freq,
                         guint64 *offset, double *worst_channel_delta)
{
  const size_t frames = (size_t) rate; /* 1 s */
  const size_t chunks[] = {4096};
  double *x = fx_sine(freq, rate, channels, frames, 0.5);
  double *y = fx_run(h, fmt, rate, channels, x, frames, chunks, 1, *offset);
  double db0 = 0.0;

  *offset += frames;
  fail_unless(fx_all_finite(y, frames * (size_t) channels), "non-finite output at %g Hz", freq);
  *worst_channel_delta = 0.0;
  for (int c = 0; c < channels; c++) {
    double db = fx_db(fx_rms(y, channels, c, frames / 2, frames) /
                      fx_rms(x, channels, c, frames / 2, frames));
    if (c == 0)
      db0 = db;
    else if (fabs(db - db0) > *worst_channel_delta && db0 > -60.0)
      *worst_channel_delta = fabs(db - db0);
  }
  g_free(x);
  g_free(y);
  return db0;
}

static double case_expected_db(const level_case_t *c, double rate, double f)
{
  switch (c->fam) {
  case FAM_BQ:
    return biquad_db(c->bq, rate, f, c->fc, c->q, c->gain);
  case FAM_SOS:
    return proto_db(FAM_LR, 4, 0, 0, proto_omega(M_LP, rate, f, c->fc, 0, 0));
  case FAM_EL:
    return NAN; /* bounds only (see below) */
  default:
    return proto_db(c->fam, c->order, c->rp, c->rs,
                    proto_omega(c->mode, rate, f, c->fc, c->f1, c->f2));
  }
}

/* Checks one measured level against the closed form (or the elliptic bounds). */
static void check_level(const level_case_t *c, const char *desc, fx_fmt_t fmt, double f, double got)
{
  if (c->fam == FAM_EL) {
    double om = proto_omega(c->mode, RATE, f, c->fc, c->f1, c->f2);
    if (om <= 1.0 + 1e-9) {
      /* Passband: within the ripple; exactly -ripple at the edge. */
      fail_unless(got <= 0.02 && got >= -c->rp - 0.02,
                  "%s %s: %g Hz at %.3f dB, outside the passband ripple [-%g, 0] dB", desc,
                  fx_fmt_name(fmt), f, got, c->rp);
      if (fabs(om - 1.0) < 1e-9)
        fail_unless(fabs(got + c->rp) < 0.05, "%s: %.3f dB at the band edge, expected -%g", desc,
                    got, c->rp);
    } else {
      fail_unless(got <= -c->rs + 0.5, "%s %s: %g Hz at %.2f dB, stopband must be <= -%g dB", desc,
                  fx_fmt_name(fmt), f, got, c->rs);
    }
    return;
  }
  {
    double want = case_expected_db(c, RATE, f);
    if (want > -20.0)
      fail_unless(fabs(got - want) < 0.05, "%s %s: %g Hz at %.4f dB, closed form %.4f dB", desc,
                  fx_fmt_name(fmt), f, got, want);
    else if (want > -50.0)
      fail_unless(fabs(got - want) < 0.3, "%s %s: %g Hz at %.3f dB, closed form %.3f dB", desc,
                  fx_fmt_name(fmt), f, got, want);
    else
      fail_unless(got <= MAX(want, -100.0) + 1.0,
                  "%s %s: %g Hz at %.2f dB, stopband closed form %.2f dB", desc, fx_fmt_name(fmt),
                  f, got, want);
  }
}

GST_START_TEST(test_levels)
{
  const level_case_t *c = &level_cases[__i__ / 2];
  fx_fmt_t fmt = (__i__ % 2) ? FX_F64 : FX_F32;
  gchar *desc = case_desc(c);
  GstHarness *h = fx_harness(desc, fmt, RATE, 2);
  guint64 offset = 0;

  for (int k = 0; c->freqs[k] > 0; k++) {
    double delta;
    double got = measure_db(h, fmt, RATE, 2, c->freqs[k], &offset, &delta);
    GST_INFO("%s %s %g Hz: %.4f dB (expected %.4f)", desc, fx_fmt_name(fmt), c->freqs[k], got,
             case_expected_db(c, RATE, c->freqs[k]));
    check_level(c, desc, fmt, c->freqs[k], got);
    fail_unless(delta < 0.01, "%s: channels differ by %g dB", desc, delta);
  }
  gst_harness_teardown(h);
  g_free(desc);
}
GST_END_TEST;

/* ---- Streaming: any split gives the same output ---- */

static const char *invariance_descs[] = {
    "fxbutterworth name=f order=8 cutoff=200",
    "fxbutterworth name=f order=4 cutoff=1000 precision=single",
    "fxbutterworth name=f mode=band-reject order=6 lower-frequency=300 upper-frequency=900",
    "fxchebyshev1 name=f mode=band-pass order=6 ripple=1",
    "fxchebyshev2 name=f mode=high-pass cutoff=3000 order=10",
    "fxelliptic name=f order=7",
    "fxlinkwitzriley name=f order=16 cutoff=300",
    "fxbiquad name=f type=peaking gain=9 q=3",
    "fxsos name=f sections=\"0.0675 0.1349 0.0675 1 -1.143 0.4128; 1 -2 1 1 -1.9 0.9025\"",
};

GST_START_TEST(test_chunk_invariance)
{
  const char *desc = invariance_descs[__i__ / 2];
  fx_fmt_t fmt = (__i__ % 2) ? FX_F64 : FX_F32;
  const int channels = 3;
  const size_t frames = 20000;
  double *x = fx_noise(1234 + __i__, channels, frames, 0.5);
  size_t splits[64];
  GRand *r = fx_test_rand(99 + (guint32) __i__);
  GstHarness *h1, *h2;
  double *y1, *y2, peak = 0.0, worst = 0.0;

  for (int k = 0; k < 64; k++)
    splits[k] = (size_t) g_rand_int_range(r, 1, 1500);
  splits[0] = 1; /* a one-frame buffer first */
  g_rand_free(r);

  h1 = fx_harness(desc, fmt, RATE, channels);
  h2 = fx_harness(desc, fmt, RATE, channels);
  y1 = fx_run(h1, fmt, RATE, channels, x, frames, NULL, 0, 0);
  y2 = fx_run(h2, fmt, RATE, channels, x, frames, splits, 64, 0);
  fail_unless(fx_all_finite(y1, frames * channels));
  for (size_t i = 0; i < frames * channels; i++) {
    peak = MAX(peak, fabs(y1[i]));
    worst = MAX(worst, fabs(y1[i] - y2[i]));
  }
  GST_INFO("%s %s: peak %g, largest split difference %g", desc, fx_fmt_name(fmt), peak, worst);
  fail_unless(peak > 1e-3, "%s: output is (nearly) silent", desc);
  if (fmt == FX_F64)
    fail_unless(worst <= 1e-12 * peak, "%s F64: split changes the output by %g (peak %g)", desc,
                worst, peak);
  else
    fail_unless(worst <= 4.0 * FLT_EPSILON * peak, "%s F32: split changes the output by %g", desc,
                worst);
  g_free(x);
  g_free(y1);
  g_free(y2);
  gst_harness_teardown(h1);
  gst_harness_teardown(h2);
}
GST_END_TEST;

/* ---- Controller automation ---- */

GST_START_TEST(test_controller_ramp)
{
  fx_fmt_t fmt = __i__ ? FX_F64 : FX_F32;
  const size_t frames = RATE; /* 1 s */
  const size_t chunks[] = {256};
  GstHarness *h = fx_harness("fxbutterworth name=f mode=low-pass cutoff=500 order=4", fmt, RATE, 1);
  GstElement *f = fx_harness_element(h);
  GstControlSource *cs = gst_interpolation_control_source_new();
  double *x = fx_noise(7, 1, frames, 0.5);
  double *y, in_step, out_step, early, late, cutoff;

  g_object_set(cs, "mode", GST_INTERPOLATION_MODE_LINEAR, NULL);
  fail_unless(gst_timed_value_control_source_set(GST_TIMED_VALUE_CONTROL_SOURCE(cs), 0, 500.0));
  fail_unless(
      gst_timed_value_control_source_set(GST_TIMED_VALUE_CONTROL_SOURCE(cs), GST_SECOND, 5000.0));
  fail_unless(gst_object_add_control_binding(
      GST_OBJECT(f), gst_direct_control_binding_new_absolute(GST_OBJECT(f), "cutoff", cs)));

  y = fx_run(h, fmt, RATE, 1, x, frames, chunks, 1, 0);
  fail_unless(fx_all_finite(y, frames));
  in_step = fx_max_step(x, 1, 0, frames);
  out_step = fx_max_step(y, 1, 0, frames);
  GST_INFO("largest step: input %g, output %g", in_step, out_step);
  fail_unless(out_step <= 2.0 * in_step, "output step %g exceeds 2x the input's %g", out_step,
              in_step);

  /* The automation really happened: the cutoff moved, and the output passes more noise late. */
  g_object_get(f, "cutoff", &cutoff, NULL);
  fail_unless(cutoff > 4500.0 && cutoff <= 5000.0, "cutoff ended at %g", cutoff);
  early = fx_rms(y, 1, 0, 2400, 9600);
  late = fx_rms(y, 1, 0, frames - 7200, frames);
  fail_unless(late > 2.0 * early, "automation had no audible effect (%g vs %g)", early, late);

  g_free(x);
  g_free(y);
  gst_object_unref(cs);
  gst_object_unref(f);
  gst_harness_teardown(h);
}
GST_END_TEST;

/* ---- Renegotiation ---- */

GST_START_TEST(test_renegotiation)
{
  const level_case_t c = {FAM_BW, M_LP, 4, 1000, 0, 0, 0, 0, 0, 0, 0, {0}};
  struct {
    fx_fmt_t fmt;
    int rate, channels;
  } shapes[] = {{FX_F32, 48000, 2}, {FX_F64, 8000, 1}, {FX_F32, 16000, 3}, {FX_F64, 48000, 6}};
  GstHarness *h = fx_harness("fxbutterworth name=f mode=low-pass cutoff=1000 order=4",
                             shapes[0].fmt, shapes[0].rate, shapes[0].channels);
  guint64 offset = 0;

  for (guint s = 0; s < G_N_ELEMENTS(shapes); s++) {
    const double freqs[] = {100, 2000};
    if (s > 0)
      gst_harness_set_src_caps(h, fx_caps(shapes[s].fmt, shapes[s].rate, shapes[s].channels));
    for (int k = 0; k < 2; k++) {
      double delta;
      double got = measure_db(h, shapes[s].fmt, shapes[s].rate, shapes[s].channels, freqs[k],
                              &offset, &delta);
      double want =
          proto_db(FAM_BW, 4, 0, 0, proto_omega(M_LP, shapes[s].rate, freqs[k], c.fc, 0, 0));
      GST_INFO("%d Hz x %d: %g Hz at %.3f dB (closed form %.3f)", shapes[s].rate,
               shapes[s].channels, freqs[k], got, want);
      fail_unless(fabs(got - want) < 0.3,
                  "after renegotiation to %d Hz x %d: %g Hz at %.3f dB, "
                  "closed form %.3f dB",
                  shapes[s].rate, shapes[s].channels, freqs[k], got, want);
      fail_unless(delta < 0.01);
    }
  }
  gst_harness_teardown(h);
}
GST_END_TEST;

/* ---- Flush resets the history ---- */

GST_START_TEST(test_flush_resets_state)
{
  fx_fmt_t fmt = __i__ ? FX_F64 : FX_F32;
  const char *desc = "fxchebyshev1 name=f mode=low-pass cutoff=300 order=8 ripple=1";
  const size_t frames = 6000;
  double *a = fx_noise(1, 2, frames, 0.8);
  double *b = fx_noise(2, 2, frames, 0.5);
  GstHarness *h = fx_harness(desc, fmt, RATE, 2);
  GstHarness *fresh = fx_harness(desc, fmt, RATE, 2);
  double *ya, *yb, *yfresh, worst = 0.0, peak = 0.0;
  GstSegment seg;

  ya = fx_run(h, fmt, RATE, 2, a, frames, NULL, 0, 0);
  fail_unless(gst_harness_push_event(h, gst_event_new_flush_start()));
  fail_unless(gst_harness_push_event(h, gst_event_new_flush_stop(TRUE)));
  gst_segment_init(&seg, GST_FORMAT_TIME);
  fail_unless(gst_harness_push_event(h, gst_event_new_segment(&seg)));
  yb = fx_run(h, fmt, RATE, 2, b, frames, NULL, 0, 0);
  yfresh = fx_run(fresh, fmt, RATE, 2, b, frames, NULL, 0, 0);
  for (size_t i = 0; i < frames * 2; i++) {
    worst = MAX(worst, fabs(yb[i] - yfresh[i]));
    peak = MAX(peak, fabs(yfresh[i]));
  }
  fail_unless(peak > 1e-3);
  fail_unless(worst <= 1e-12 * peak, "output after a flush differs from a fresh element by %g",
              worst);
  /* Without a flush the history would carry over: check that the test can tell. */
  {
    GstHarness *h2 = fx_harness(desc, fmt, RATE, 2);
    double *y2a = fx_run(h2, fmt, RATE, 2, a, frames, NULL, 0, 0);
    double *y2b = fx_run(h2, fmt, RATE, 2, b, frames, NULL, 0, frames);
    double d = 0.0;
    for (size_t i = 0; i < frames * 2; i++)
      d = MAX(d, fabs(y2b[i] - yfresh[i]));
    fail_unless(d > 1e-6, "history does not matter for this test (%g)", d);
    g_free(y2a);
    g_free(y2b);
    gst_harness_teardown(h2);
  }
  g_free(a);
  g_free(b);
  g_free(ya);
  g_free(yb);
  g_free(yfresh);
  gst_harness_teardown(h);
  gst_harness_teardown(fresh);
}
GST_END_TEST;

/* ---- Counters and backend ---- */

GST_START_TEST(test_counters)
{
  GstHarness *h = fx_harness("fxbutterworth name=f order=6", FX_F32, RATE, 2);
  GstElement *f = fx_harness_element(h);
  const size_t chunks[] = {480};
  double *x = fx_noise(3, 2, 4800, 0.5);
  double *y = fx_run(h, FX_F32, RATE, 2, x, 4800, chunks, 1, 0);
  guint64 dispatches = 0, launches = 1;
  gchar *backend = NULL;

  g_object_get(f, "dispatches", &dispatches, "launches", &launches, "backend", &backend, NULL);
  GST_INFO("dispatches %" G_GUINT64_FORMAT ", backend %s", dispatches, backend);
  fail_unless_equals_uint64(dispatches, 10);
  fail_unless_equals_uint64(launches, 0);
  fail_unless(backend != NULL && g_str_has_prefix(backend, "cpu"), "backend %s", backend);
  g_free(backend);
  g_free(x);
  g_free(y);
  gst_object_unref(f);
  gst_harness_teardown(h);
}
GST_END_TEST;

/* ---- precision=single still filters to the closed form (F32 streams) ---- */

GST_START_TEST(test_single_precision_levels)
{
  const level_case_t c = {FAM_BW, M_LP, 4, 1000, 0, 0, 0, 0, 0, 0, 0, {100, 1000, 2000, 8000, 0}};
  GstHarness *h = fx_harness(
      "fxbutterworth name=f mode=low-pass cutoff=1000 order=4 precision=single", FX_F32, RATE, 2);
  GstElement *f = fx_harness_element(h);
  guint64 offset = 0;
  gchar *backend = NULL;

  for (int k = 0; c.freqs[k] > 0; k++) {
    double delta, got = measure_db(h, FX_F32, RATE, 2, c.freqs[k], &offset, &delta);
    check_level(&c, "fxbutterworth precision=single", FX_F32, c.freqs[k], got);
  }
  g_object_get(f, "backend", &backend, NULL);
  GST_INFO("precision=single runs on %s", backend);
  g_free(backend);
  gst_object_unref(f);
  gst_harness_teardown(h);
}
GST_END_TEST;

/* ---- Linkwitz-Riley: low-pass + high-pass of one cutoff sum to an all-pass ---- */

GST_START_TEST(test_linkwitz_riley_sum_allpass)
{
  const int orders[] = {2, 4, 6, 8, 16};
  int order = orders[__i__ / 2];
  fx_fmt_t fmt = (__i__ % 2) ? FX_F64 : FX_F32;
  gchar *lp = g_strdup_printf("fxlinkwitzriley name=f mode=low-pass cutoff=1500 order=%d", order);
  gchar *hp = g_strdup_printf("fxlinkwitzriley name=f mode=high-pass cutoff=1500 order=%d", order);
  const double freqs[] = {100, 1000, 1500, 2250, 8000};

  for (guint k = 0; k < G_N_ELEMENTS(freqs); k++) {
    const size_t frames = RATE;
    GstHarness *hl = fx_harness(lp, fmt, RATE, 1), *hh = fx_harness(hp, fmt, RATE, 1);
    double *x = fx_sine(freqs[k], RATE, 1, frames, 0.5);
    double *yl = fx_run(hl, fmt, RATE, 1, x, frames, NULL, 0, 0);
    double *yh = fx_run(hh, fmt, RATE, 1, x, frames, NULL, 0, 0);
    double db;
    for (size_t i = 0; i < frames; i++)
      yl[i] += yh[i];
    db = fx_db(fx_rms(yl, 1, 0, frames / 2, frames) / fx_rms(x, 1, 0, frames / 2, frames));
    fail_unless(fabs(db) < 0.01, "LR%d low + high at %g Hz: %.4f dB, must be 0 (all-pass)", order,
                freqs[k], db);
    g_free(x);
    g_free(yl);
    g_free(yh);
    gst_harness_teardown(hl);
    gst_harness_teardown(hh);
  }
  g_free(lp);
  g_free(hp);
}
GST_END_TEST;

/* ---- NaN/Inf: processed as zeros, nothing is reset (DESIGN: "Bad input") ---- */

GST_START_TEST(test_nonfinite_as_zero)
{
  fx_fmt_t fmt = __i__ ? FX_F64 : FX_F32;
  const char *desc = "fxchebyshev2 name=f mode=high-pass cutoff=500 order=6";
  const size_t n = 1024;
  double *a = fx_noise(31, 2, n, 0.5), *b = fx_noise(32, 2, 4 * n, 0.5);
  double *a0 = g_memdup2(a, 2 * n * sizeof(double));
  GstHarness *h = fx_harness(desc, fmt, RATE, 2), *twin = fx_harness(desc, fmt, RATE, 2);
  double *ya, *yb, *za, *zb;

  a[2 * 300] = NAN;
  a[2 * 700 + 1] = INFINITY;
  a0[2 * 300] = 0.0;
  a0[2 * 700 + 1] = 0.0;
  ya = fx_run(h, fmt, RATE, 2, a, n, NULL, 0, 0);
  yb = fx_run(h, fmt, RATE, 2, b, 4 * n, NULL, 0, n);
  za = fx_run(twin, fmt, RATE, 2, a0, n, NULL, 0, 0);
  zb = fx_run(twin, fmt, RATE, 2, b, 4 * n, NULL, 0, n);
  fail_unless(fx_all_finite(ya, 2 * n) && fx_all_finite(yb, 8 * n), "non-finite output");
  fail_unless(memcmp(ya, za, 2 * n * sizeof(double)) == 0,
              "the bad buffer differs from the one with zeros in place");
  fail_unless(memcmp(yb, zb, 8 * n * sizeof(double)) == 0,
              "the buffers after differ from those after zeros in place");
  g_free(a);
  g_free(a0);
  g_free(b);
  g_free(ya);
  g_free(yb);
  g_free(za);
  g_free(zb);
  gst_harness_teardown(h);
  gst_harness_teardown(twin);
}
GST_END_TEST;

static Suite *fx_iir_suite(void)
{
  Suite *s = suite_create("fx-iir-elements");
  TCase *tc = tcase_create("general");

  suite_add_tcase(s, tc);
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_levels, 0, 2 * N_LEVEL_CASES);
  tcase_add_loop_test(tc, test_chunk_invariance, 0, 2 * G_N_ELEMENTS(invariance_descs));
  tcase_add_loop_test(tc, test_controller_ramp, 0, 2);
  tcase_add_test(tc, test_renegotiation);
  tcase_add_loop_test(tc, test_flush_resets_state, 0, 2);
  tcase_add_test(tc, test_counters);
  tcase_add_test(tc, test_single_precision_levels);
  tcase_add_loop_test(tc, test_linkwitz_riley_sum_allpass, 0, 10);
  tcase_add_loop_test(tc, test_nonfinite_as_zero, 0, 2);
  return s;
}

GST_CHECK_MAIN(fx_iir);
