/* gst-fx — fxcompressor, fxgate, fxlimiter, fxnormalize in a GstHarness: flushes discard held
 * data and reset state, controller automation, properties set from other threads, the limiter's
 * ceiling on a full-scale sine.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <gst/controller/controller.h>

#include "fxtest.h"

#define RATE 48000

static void flush(GstHarness *h)
{
  fail_unless(gst_harness_push_event(h, gst_event_new_flush_start()));
  fail_unless(gst_harness_push_event(h, gst_event_new_flush_stop(TRUE)));
  {
    GstSegment seg;
    gst_segment_init(&seg, GST_FORMAT_TIME);
    fail_unless(gst_harness_push_event(h, gst_event_new_segment(&seg)));
  }
}

/* fxnormalize holds everything until EOS; a flush drops what it held. */
GST_START_TEST(test_normalize_flush_discards)
{
  const fx_fmt_t fmt = (fx_fmt_t) __i__;
  GstHarness *h = fx_harness("fxnormalize name=f mode=peak target=-6", fmt, RATE, 1);
  double x[256], y[256];
  GstBuffer *out;

  gst_harness_set_live(h, FALSE); /* the harness reports a live source by default */
  for (int i = 0; i < 256; i++)
    x[i] = 0.9 * sin(0.05 * i);
  for (int k = 0; k < 3; k++)
    fail_unless_equals_int(gst_harness_push(h, fx_buffer_new(fmt, x, 256, 1, RATE, k * 256)),
                           GST_FLOW_OK);
  fail_unless_equals_int(gst_harness_buffers_received(h), 0);
  flush(h);
  for (int i = 0; i < 256; i++)
    x[i] *= 0.25; /* peak 0.225 */
  fail_unless_equals_int(gst_harness_push(h, fx_buffer_new(fmt, x, 256, 1, RATE, 0)), GST_FLOW_OK);
  fail_unless(gst_harness_push_event(h, gst_event_new_eos()));
  fail_unless_equals_int(gst_harness_buffers_received(h), 1);
  out = gst_harness_pull(h);
  fail_unless_equals_int((int) fx_buffer_read(out, fmt, y, 256), 256);
  fail_unless_equals_uint64(GST_BUFFER_PTS(out), 0);
  gst_buffer_unref(out);
  {
    double peak = 0.0, want = pow(10.0, -6.0 / 20.0);
    for (int i = 0; i < 256; i++)
      peak = MAX(peak, fabs(y[i]));
    fail_unless(fabs(peak - want) < 1e-6, "peak %g, want %g (held data leaked?)", peak, want);
  }
  gst_harness_teardown(h);
}
GST_END_TEST;

/* After a flush the dynamics elements start from scratch: the same input gives the same output
 * as on a fresh element. */
GST_START_TEST(test_flush_resets_state)
{
  const char *descs[] = {"fxcompressor name=f threshold=-30 ratio=8 release=500",
                         "fxgate name=f threshold=-20 release=500",
                         "fxlimiter name=f threshold=-12 release=500"};
  GstHarness *h = fx_harness(descs[__i__], FX_F64, RATE, 2);
  size_t chunk = 480;
  double *x = fx_noise(7, 2, 4800, 0.9), *y1, *y2;

  y1 = fx_run(h, FX_F64, RATE, 2, x, 4800, &chunk, 1, 0);
  flush(h);
  /* the limiter's look-ahead line is part of the state: fx_run pulls one buffer per push, which
   * holds as long as each buffer is longer than the look-ahead */
  y2 = fx_run(h, FX_F64, RATE, 2, x, 4800, &chunk, 1, 0);
  for (size_t i = 0; i < 9600; i++)
    fail_unless(y1[i] == y2[i], "sample %zu differs after the flush: %g vs %g", i, y1[i], y2[i]);
  g_free(x);
  g_free(y1);
  g_free(y2);
  gst_harness_teardown(h);
}
GST_END_TEST;

/* A controller on `makeup` (synced in before_transform) moves the gain; the makeup glides, so
 * the output never steps. */
GST_START_TEST(test_makeup_automation)
{
  GstHarness *h = fx_harness("fxcompressor name=f threshold=0", FX_F64, RATE, 1);
  GstElement *f = fx_harness_element(h);
  GstControlSource *cs = gst_interpolation_control_source_new();
  size_t frames = RATE, chunk = 480;
  double *x = g_new(double, frames), *y;

  for (size_t i = 0; i < frames; i++)
    x[i] = 0.1;
  g_object_set(cs, "mode", GST_INTERPOLATION_MODE_NONE, NULL);
  gst_timed_value_control_source_set(GST_TIMED_VALUE_CONTROL_SOURCE(cs), 0, 0.0);
  gst_timed_value_control_source_set(GST_TIMED_VALUE_CONTROL_SOURCE(cs), GST_SECOND / 2, 12.0);
  fail_unless(gst_object_add_control_binding(
      GST_OBJECT(f), gst_direct_control_binding_new_absolute(GST_OBJECT(f), "makeup", cs)));
  y = fx_run(h, FX_F64, RATE, 1, x, frames, &chunk, 1, 0);
  fail_unless(fabs(y[RATE / 2 - 1] - 0.1) < 1e-12, "before: %g", y[RATE / 2 - 1]);
  fail_unless(fabs(y[frames - 1] - 0.1 * pow(10.0, 12.0 / 20.0)) < 1e-9, "after: %g",
              y[frames - 1]);
  /* the 12 dB step glides over ~5 ms: no sample-to-sample jump near the step's size */
  fail_unless(fx_max_step(y, 1, 0, frames) < 0.01, "makeup stepped: %g",
              fx_max_step(y, 1, 0, frames));
  g_free(x);
  g_free(y);
  gst_object_unref(cs);
  gst_object_unref(f);
  gst_harness_teardown(h);
}
GST_END_TEST;

GST_START_TEST(test_properties_from_other_threads)
{
  const char *factories[] = {"fxcompressor", "fxgate", "fxlimiter"};
  GstHarness *h = gst_harness_new(factories[__i__]);
  GValue v = G_VALUE_INIT;
  GstHarnessThread *t1, *t2;
  double *x = fx_noise(21, 2, 480, 0.9);

  gst_harness_set_src_caps(h, fx_caps(FX_F32, RATE, 2));
  g_value_init(&v, G_TYPE_DOUBLE);
  g_value_set_double(&v, -30.0);
  t1 = gst_harness_stress_property_start_full(h, "threshold", &v, 100);
  g_value_set_double(&v, 3.0);
  t2 = gst_harness_stress_property_start_full(h, "release", &v, 170);
  g_value_unset(&v);
  for (int k = 0; k < 200; k++) {
    GstBuffer *out;
    fail_unless_equals_int(
        gst_harness_push(h, fx_buffer_new(FX_F32, x, 480, 2, RATE, (guint64) k * 480)),
        GST_FLOW_OK);
    out = gst_harness_pull(h);
    fail_unless(out != NULL);
    gst_buffer_unref(out);
  }
  gst_harness_stress_thread_stop(t1);
  gst_harness_stress_thread_stop(t2);
  g_free(x);
  gst_harness_teardown(h);
}
GST_END_TEST;

/* A full-scale sine 12 dB over the ceiling: no output sample above it, and the limiter does not
 * simply clip: the output keeps the sine's shape (its gain is smooth). */
GST_START_TEST(test_limiter_sine_ceiling)
{
  const fx_fmt_t fmt = (fx_fmt_t) __i__;
  GstHarness *h = fx_harness("fxlimiter name=f threshold=-12 look-ahead=5", fmt, RATE, 1);
  size_t frames = RATE / 2, chunk = 1000;
  double *x = fx_sine(100.0, RATE, 1, frames, 1.0), *y;
  double ceiling = pow(10.0, -12.0 / 20.0), peak = 0.0;
  size_t at_ceiling = 0;

  y = fx_run(h, fmt, RATE, 1, x, frames, &chunk, 1, 0);
  for (size_t i = 0; i < frames; i++) {
    peak = MAX(peak, fabs(y[i]));
    if (fabs(y[i]) >= ceiling * (1.0 - 1e-9))
      at_ceiling++;
  }
  fail_unless(peak <= ceiling, "peak %.17g above the ceiling %.17g", peak, ceiling);
  fail_unless(peak >= ceiling * 0.999, "peak %g far below the ceiling", peak);
  /* a clipper would sit at the ceiling for a third of every period; the limiter touches it at
   * the sine's crests only */
  fail_unless(at_ceiling < frames / 100, "%zu samples at the ceiling: clipping, not limiting",
              at_ceiling);
  g_free(x);
  g_free(y);
  gst_harness_teardown(h);
}
GST_END_TEST;

/* The harness's default upstream is live: fxnormalize refuses it with an error. */
GST_START_TEST(test_normalize_refuses_live)
{
  GstHarness *h = fx_harness("fxnormalize name=f", FX_F32, RATE, 1);
  double x[16] = {0};

  fail_unless_equals_int(gst_harness_push(h, fx_buffer_new(FX_F32, x, 16, 1, RATE, 0)),
                         GST_FLOW_ERROR);
  gst_harness_teardown(h);
}
GST_END_TEST;

static Suite *fx_dynamics_suite(void)
{
  Suite *s = suite_create("fx-dynamics");
  TCase *tc = tcase_create("general");

  suite_add_tcase(s, tc);
  tcase_add_loop_test(tc, test_normalize_flush_discards, 0, 2);
  tcase_add_test(tc, test_normalize_refuses_live);
  tcase_add_loop_test(tc, test_flush_resets_state, 0, 3);
  tcase_add_test(tc, test_makeup_automation);
  tcase_add_loop_test(tc, test_properties_from_other_threads, 0, 3);
  tcase_add_loop_test(tc, test_limiter_sine_ceiling, 0, 2);
  return s;
}

GST_CHECK_MAIN(fx_dynamics);
