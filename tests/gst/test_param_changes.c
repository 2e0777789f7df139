/* gst-fx — parameter changes while streaming: no clicks, history kept, changes from other threads.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <gst/controller/controller.h>

#include "fxtest.h"

#define RATE 48000

/* Pushes x through h in blocks, calling change(f, block index) before each block. */
typedef void (*change_fn)(GstElement *f, size_t block);

static double *run_blocks(GstHarness *h, GstElement *f, fx_fmt_t fmt, const double *x,
                          size_t frames, size_t block, change_fn change)
{
  double *y = g_new0(double, frames);
  for (size_t done = 0; done < frames; done += block) {
    size_t len = MIN(block, frames - done);
    double *part;
    if (change)
      change(f, done / block);
    part = fx_run(h, fmt, RATE, 1, x + done, len, NULL, 0, done);
    memcpy(y + done, part, len * sizeof(double));
    g_free(part);
  }
  return y;
}

static void toggle_cutoff(GstElement *f, size_t block)
{
  g_object_set(f, "cutoff", block % 2 ? 1500.0 : 2500.0, NULL);
}

/* A loud passband sine through an 8th-order low-pass whose cutoff toggles at every buffer. The
 * sine stays in the passband of both settings, so a clean change leaves it nearly untouched; a
 * filter that zeroes or mis-seeds its history clicks. */
GST_START_TEST(test_toggle_cutoff_passband_sine)
{
  fx_fmt_t fmt = __i__ ? FX_F64 : FX_F32;
  const size_t frames = RATE / 2, block = 512;
  double *x = fx_sine(60.0, RATE, 1, frames, 0.9);
  GstHarness *h =
      fx_harness("fxbutterworth name=f mode=low-pass cutoff=2000 order=8", fmt, RATE, 1);
  GstElement *f = fx_harness_element(h);
  double *y = run_blocks(h, f, fmt, x, frames, block, toggle_cutoff);
  double in_step = fx_max_step(x, 1, 0, frames), out_step = fx_max_step(y, 1, 0, frames);

  fail_unless(fx_all_finite(y, frames));
  GST_INFO("largest step: input %g, output %g", in_step, out_step);
  fail_unless(out_step <= 2.0 * in_step, "output step %g vs input step %g (click)", out_step,
              in_step);
  g_free(x);
  g_free(y);
  gst_object_unref(f);
  gst_harness_teardown(h);
}
GST_END_TEST;

/* The contract's controller ramp (DESIGN §3), on a sine that stays in the passband. */
GST_START_TEST(test_controller_ramp_passband_sine)
{
  fx_fmt_t fmt = __i__ ? FX_F64 : FX_F32;
  const size_t frames = RATE;
  const size_t chunks[] = {256};
  GstHarness *h = fx_harness("fxbutterworth name=f mode=low-pass cutoff=500 order=4", fmt, RATE, 1);
  GstElement *f = fx_harness_element(h);
  GstControlSource *cs = gst_interpolation_control_source_new();
  double *x = fx_sine(100.0, RATE, 1, frames, 0.9);
  double *y, in_step, out_step;

  g_object_set(cs, "mode", GST_INTERPOLATION_MODE_LINEAR, NULL);
  gst_timed_value_control_source_set(GST_TIMED_VALUE_CONTROL_SOURCE(cs), 0, 500.0);
  gst_timed_value_control_source_set(GST_TIMED_VALUE_CONTROL_SOURCE(cs), GST_SECOND, 5000.0);
  gst_object_add_control_binding(
      GST_OBJECT(f), gst_direct_control_binding_new_absolute(GST_OBJECT(f), "cutoff", cs));
  y = fx_run(h, fmt, RATE, 1, x, frames, chunks, 1, 0);
  fail_unless(fx_all_finite(y, frames));
  in_step = fx_max_step(x, 1, 0, frames);
  out_step = fx_max_step(y, 1, 0, frames);
  GST_INFO("largest step: input %g, output %g", in_step, out_step);
  fail_unless(out_step <= 2.0 * in_step, "output step %g vs input step %g", out_step, in_step);
  g_free(x);
  g_free(y);
  gst_object_unref(cs);
  gst_object_unref(f);
  gst_harness_teardown(h);
}
GST_END_TEST;

/* Properties set from another thread while buffers flow: no crash, no deadlock, finite output. */
GST_START_TEST(test_properties_from_other_threads)
{
  const char *factories[] = {"fxbutterworth", "fxbiquad", "fxlinkwitzriley"};
  GstHarness *h = gst_harness_new(factories[__i__]);
  GstElement *f = gst_object_ref(h->element);
  const char *prop = __i__ == 1 ? "frequency" : "cutoff";
  GValue v = G_VALUE_INIT;
  GstHarnessThread *t1, *t2, *t3;
  double *x = fx_noise(21, 2, 480, 0.5);

  gst_harness_set_src_caps(h, fx_caps(FX_F32, RATE, 2));
  g_value_init(&v, G_TYPE_DOUBLE);
  g_value_set_double(&v, 3000.0);
  t1 = gst_harness_stress_property_start_full(h, prop, &v, 100);
  g_value_set_double(&v, 30000.0); /* invalid: refused with a warning each time it changes */
  t2 = gst_harness_stress_property_start_full(h, prop, &v, 170);
  g_value_unset(&v);
  g_value_init(&v, g_object_class_find_property(G_OBJECT_GET_CLASS(f), "precision")->value_type);
  g_value_set_enum(&v, 2); /* double */
  t3 = gst_harness_stress_property_start_full(h, "precision", &v, 1000);
  g_value_unset(&v);
  for (int k = 0; k < 300; k++) {
    double *y = fx_run(h, FX_F32, RATE, 2, x, 480, NULL, 0, (guint64) k * 480);
    guint64 d;
    gchar *b;
    fail_unless(fx_all_finite(y, 960));
    g_object_get(f, "dispatches", &d, "backend", &b, NULL);
    g_free(b);
    g_free(y);
  }
  gst_harness_stress_thread_stop(t1);
  gst_harness_stress_thread_stop(t2);
  gst_harness_stress_thread_stop(t3);
  g_free(x);
  gst_object_unref(f);
  gst_harness_teardown(h);
}
GST_END_TEST;

/* After a flush there is no audio to ramp or crossfade from: a setting made after the flush and
 * before the next buffer applies from that buffer's first sample, exactly (as one made before the
 * first buffer of a stream). Each case: a buffer at the old setting, a flush, the change, then the
 * closed form of the new setting. */
static const struct {
  const char *desc, *prop, *value;
  double amp;  /* input level */
  double gain; /* the output is gain * x after the change */
} flush_cases[] = {
    {"fxgain name=f", "gain", "-12", 0.5, 0.25118864315095796},
    {"fxcompressor name=f threshold=-20 knee=6", "makeup", "12", 0.01, 3.9810717055349722},
    {"fxfir name=f", "kernel", "<0.5>", 0.5, 0.5},
    {"fxfir name=f num-taps=1001", "kernel", "<0.25>", 0.5, 0.25},
    /* the band at its default gain, 0 dB (no band0:: syntax: GStreamer 1.22's parser leaks a
     * reference to a child set that way, see docs/reliability.md) */
    {"fxeq name=f num-bands=1", "pre-gain", "-12", 0.5, 0.25118864315095796},
    {"fxdelay name=f delay=10 feedback=0 mix=0.5", "mix", "0", 0.5, 1.0},
    {"fxreverb name=f mix=0.5", "mix", "0", 0.5, 1.0},
};

GST_START_TEST(test_change_after_flush_applies_at_once)
{
  const size_t n = 4800;
  GstHarness *h = fx_harness(flush_cases[__i__].desc, FX_F64, RATE, 1);
  GstElement *f = fx_harness_element(h);
  double *x = fx_noise(7 + (guint32) __i__, 1, n, flush_cases[__i__].amp), *y;
  GstSegment seg;

  g_free(fx_run(h, FX_F64, RATE, 1, x, n, NULL, 0, 0));
  fail_unless(gst_harness_push_event(h, gst_event_new_flush_start()));
  fail_unless(gst_harness_push_event(h, gst_event_new_flush_stop(TRUE)));
  gst_segment_init(&seg, GST_FORMAT_TIME);
  fail_unless(gst_harness_push_event(h, gst_event_new_segment(&seg)));
  gst_util_set_object_arg(G_OBJECT(f), flush_cases[__i__].prop, flush_cases[__i__].value);
  y = fx_run(h, FX_F64, RATE, 1, x, n, NULL, 0, 0);
  for (size_t i = 0; i < n; i++) {
    double want = flush_cases[__i__].gain * x[i];
    fail_unless(fabs(y[i] - want) <= 1e-12 * flush_cases[__i__].amp,
                "%s: %s=%s after a flush: frame %zu is %.17g, want %.17g", flush_cases[__i__].desc,
                flush_cases[__i__].prop, flush_cases[__i__].value, i, y[i], want);
  }
  g_free(x);
  g_free(y);
  gst_object_unref(f);
  gst_harness_teardown(h);
}
GST_END_TEST;

static Suite *fx_param_suite(void)
{
  Suite *s = suite_create("fx-param-changes");
  TCase *tc = tcase_create("general");

  suite_add_tcase(s, tc);
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_toggle_cutoff_passband_sine, 0, 2);
  tcase_add_loop_test(tc, test_controller_ramp_passband_sine, 0, 2);
  tcase_add_loop_test(tc, test_properties_from_other_threads, 0, 3);
  tcase_add_loop_test(tc, test_change_after_flush_applies_at_once, 0,
                      (int) G_N_ELEMENTS(flush_cases));
  return s;
}

GST_CHECK_MAIN(fx_param);
