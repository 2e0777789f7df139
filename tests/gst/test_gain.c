/* gst-fx — fxgain: exact levels, clipping, click-free ramps, automation in passthrough.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <gst/controller/controller.h>

#include "fxtest.h"

#define RATE 48000

GST_START_TEST(test_gain_level)
{
  fx_fmt_t fmt = __i__ ? FX_F64 : FX_F32;
  GstHarness *h = fx_harness("fxgain name=f gain=-6", fmt, RATE, 2);
  double *x = fx_noise(1, 2, 1000, 0.9);
  double *y = fx_run(h, fmt, RATE, 2, x, 1000, NULL, 0, 0);
  const double g = pow(10.0, -6.0 / 20.0);

  for (size_t i = 0; i < 2000; i++) {
    double want = fmt == FX_F64 ? x[i] * g : (double) (float) ((double) (float) x[i] * g);
    fail_unless(fabs(y[i] - want) <= 1e-15, "%zu: %.17g vs %.17g", i, y[i], want);
  }
  g_free(x);
  g_free(y);
  gst_harness_teardown(h);
}
GST_END_TEST;

GST_START_TEST(test_gain_clip)
{
  fx_fmt_t fmt = __i__ ? FX_F64 : FX_F32;
  GstHarness *h = fx_harness("fxgain name=f gain=12 clip=true", fmt, RATE, 1);
  double *x = fx_sine(440, RATE, 1, 4800, 0.9);
  double *y = fx_run(h, fmt, RATE, 1, x, 4800, NULL, 0, 0);
  const double g = pow(10.0, 12.0 / 20.0);
  int clipped = 0;

  for (size_t i = 0; i < 4800; i++) {
    double want = CLAMP(x[i] * g, -1.0, 1.0);
    fail_unless(fabs(y[i] - want) < 1e-6, "%zu: %g vs %g", i, y[i], want);
    fail_unless(fabs(y[i]) <= 1.0);
    clipped += fabs(x[i] * g) > 1.0;
  }
  fail_unless(clipped > 100);
  g_free(x);
  g_free(y);
  gst_harness_teardown(h);
}
GST_END_TEST;

/* A gain change ramps linearly over the next buffer: no step. */
GST_START_TEST(test_gain_ramp_no_click)
{
  fx_fmt_t fmt = __i__ ? FX_F64 : FX_F32;
  const size_t n = 480;
  GstHarness *h = fx_harness("fxgain name=f", fmt, RATE, 1);
  GstElement *f = fx_harness_element(h);
  double x[480], *y1, *y2, *y3;
  const double g = pow(10.0, -20.0 / 20.0);

  for (size_t i = 0; i < n; i++)
    x[i] = 0.5;
  y1 = fx_run(h, fmt, RATE, 1, x, n, NULL, 0, 0);
  g_object_set(f, "gain", -20.0, NULL);
  y2 = fx_run(h, fmt, RATE, 1, x, n, NULL, 0, n);
  y3 = fx_run(h, fmt, RATE, 1, x, n, NULL, 0, 2 * n);
  fail_unless(fabs(y1[n - 1] - 0.5) < 1e-7);
  /* Linear from 0.5 to 0.5 g, landing on the new gain at the buffer's last frame. */
  for (size_t i = 0; i < n; i++) {
    double want = 0.5 * (1.0 + (g - 1.0) * (double) (i + 1) / n);
    fail_unless(fabs(y2[i] - want) < 1e-6, "%zu: %g vs %g", i, y2[i], want);
  }
  fail_unless(fabs(y3[0] - 0.5 * g) < 1e-7 && fabs(y3[n - 1] - 0.5 * g) < 1e-7);
  g_free(y1);
  g_free(y2);
  g_free(y3);
  gst_object_unref(f);
  gst_harness_teardown(h);
}
GST_END_TEST;

/* Starting at 0 dB (passthrough), a controller still drives the gain (synced in
 * before_transform, as volume does). */
GST_START_TEST(test_gain_automation_in_passthrough)
{
  fx_fmt_t fmt = __i__ ? FX_F64 : FX_F32;
  const size_t frames = RATE, block = 4800;
  const size_t chunks[] = {block};
  GstHarness *h = fx_harness("fxgain name=f", fmt, RATE, 1);
  GstElement *f = fx_harness_element(h);
  GstControlSource *cs = gst_interpolation_control_source_new();
  double *x = g_new(double, frames), *y;

  for (size_t i = 0; i < frames; i++)
    x[i] = 0.25;
  g_object_set(cs, "mode", GST_INTERPOLATION_MODE_NONE, NULL);
  gst_timed_value_control_source_set(GST_TIMED_VALUE_CONTROL_SOURCE(cs), 0, 0.0);
  gst_timed_value_control_source_set(GST_TIMED_VALUE_CONTROL_SOURCE(cs), GST_SECOND / 2, -20.0);
  fail_unless(gst_object_add_control_binding(
      GST_OBJECT(f), gst_direct_control_binding_new_absolute(GST_OBJECT(f), "gain", cs)));
  y = fx_run(h, fmt, RATE, 1, x, frames, chunks, 1, 0);
  fail_unless(fabs(y[block - 1] - 0.25) < 1e-7, "first half must pass through: %g", y[0]);
  fail_unless(fabs(y[frames - 1] - 0.025) < 1e-7, "automation ignored: %g", y[frames - 1]);
  fail_unless(fx_max_step(y, 1, 0, frames) < 0.25 / (double) block + 1e-6, "gain stepped");
  g_free(x);
  g_free(y);
  gst_object_unref(cs);
  gst_object_unref(f);
  gst_harness_teardown(h);
}
GST_END_TEST;

static Suite *fx_gain_suite(void)
{
  Suite *s = suite_create("fx-gain");
  TCase *tc = tcase_create("general");

  suite_add_tcase(s, tc);
  tcase_add_loop_test(tc, test_gain_level, 0, 2);
  tcase_add_loop_test(tc, test_gain_clip, 0, 2);
  tcase_add_loop_test(tc, test_gain_ramp_no_click, 0, 2);
  tcase_add_loop_test(tc, test_gain_automation_in_passthrough, 0, 2);
  return s;
}

GST_CHECK_MAIN(fx_gain);
