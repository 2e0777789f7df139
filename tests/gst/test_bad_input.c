/* gst-fx — bad input (DESIGN §3): clear messages, no crash, no hang, nothing lost silently.
 * Every test runs a real pipeline and polls its bus with a timeout.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <gst/app/app.h>
#include <gst/controller/controller.h>

#include "fxtest.h"

#define RATE 48000
#define TIMEOUT (20 * GST_SECOND)

/* ---- Negotiation errors ---- */

typedef struct {
  GstElement *pipeline;
  GstBus *bus;
  fx_bus_log_t log;
  gint handoffs;
  gboolean finished;
} fx_run_t;

static void on_handoff(GstElement *sink, GstBuffer *buf, GstPad *pad, gpointer user)
{
  (void) sink;
  (void) buf;
  (void) pad;
  g_atomic_int_inc((gint *) user);
}

/* Runs a launch line to EOS or the first ERROR (with a timeout); a fakesink named "sink" has its
 * buffers counted. */
static void fx_run_launch(fx_run_t *r, const char *desc, gboolean stop_on_error)
{
  GError *err = NULL;
  GstElement *sink;

  memset(r, 0, sizeof(*r));
  fx_bus_log_init(&r->log);
  r->pipeline = gst_parse_launch(desc, &err);
  fail_unless(r->pipeline != NULL && err == NULL, "cannot parse %s: %s", desc,
              err ? err->message : "");
  sink = gst_bin_get_by_name(GST_BIN(r->pipeline), "sink");
  if (sink) {
    g_object_set(sink, "signal-handoffs", TRUE, NULL);
    g_signal_connect(sink, "handoff", G_CALLBACK(on_handoff), &r->handoffs);
    gst_object_unref(sink);
  }
  r->bus = gst_element_get_bus(r->pipeline);
  gst_element_set_state(r->pipeline, GST_STATE_PLAYING);
  r->finished = fx_bus_collect(r->bus, &r->log, TIMEOUT, stop_on_error);
  fail_unless_equals_int(gst_element_set_state(r->pipeline, GST_STATE_NULL),
                         GST_STATE_CHANGE_SUCCESS);
}

static void fx_run_clear(fx_run_t *r)
{
  gst_object_unref(r->bus);
  gst_object_unref(r->pipeline);
  fx_bus_log_clear(&r->log);
}

typedef struct {
  const char *element; /* element with its properties */
  const char *format;
  const char *expect[5]; /* substrings the error text must contain */
} neg_case_t;

static const neg_case_t neg_cases[] = {
    {"fxbutterworth cutoff=30000", "F32LE", {"cutoff", "30000", "24000", NULL}},
    {"fxbutterworth cutoff=30000", "F64LE", {"cutoff", "30000", "24000", NULL}},
    {"fxbutterworth cutoff=24000", "F32LE", {"cutoff", "24000", "(0, 24000)", NULL}},
    {"fxbutterworth mode=high-pass cutoff=48000", "F64LE", {"cutoff", "48000", "24000", NULL}},
    {"fxchebyshev1 cutoff=25000", "F32LE", {"cutoff", "25000", "24000", NULL}},
    {"fxchebyshev2 cutoff=25000", "F32LE", {"cutoff", "25000", "24000", NULL}},
    {"fxelliptic cutoff=25000", "F64LE", {"cutoff", "25000", "24000", NULL}},
    {"fxelliptic ripple=10 attenuation=5", "F64LE", {"attenuation", "5", "ripple", NULL}},
    {"fxlinkwitzriley cutoff=30000", "F32LE", {"cutoff", "30000", "24000", NULL}},
    {"fxbiquad frequency=30000", "F32LE", {"frequency", "30000", "24000", NULL}},
    {"fxbutterworth mode=band-pass lower-frequency=5000 upper-frequency=2000",
     "F32LE",
     {"lower-frequency", "5000", "upper-frequency", "2000", NULL}},
    {"fxchebyshev1 mode=band-reject lower-frequency=3000 upper-frequency=3000",
     "F64LE",
     {"lower-frequency", "3000", "upper-frequency", NULL}},
    {"fxbutterworth mode=band-pass lower-frequency=100 upper-frequency=30000",
     "F32LE",
     {"upper-frequency", "30000", "24000", NULL}},
    {"fxlinkwitzriley order=5", "F32LE", {"order", "5", "even", "2", "16"}},
    {"fxlinkwitzriley order=3 mode=high-pass", "F64LE", {"order", "3", "even", NULL}},
    {"fxsos", "F32LE", {"sections", "no valid sections", NULL}},
    {"fxsos sections=\"1 2 3\"", "F32LE", {"sections", "row 1", NULL}},
};

GST_START_TEST(test_negotiation_errors)
{
  const neg_case_t *c = &neg_cases[__i__];
  gchar *desc = g_strdup_printf("audiotestsrc num-buffers=10 ! audio/x-raw,format=%s,rate=%d,"
                                "channels=2 ! %s name=f ! fakesink name=sink",
                                c->format, RATE, c->element);
  fx_run_t r;
  gchar *all;
  int found = -1;

  fx_run_launch(&r, desc, TRUE);
  all = fx_join(r.log.errors);
  GST_INFO("%s -> errors: %s", desc, all);
  fail_unless(r.finished, "%s: neither EOS nor ERROR within the timeout (hang?)", desc);
  fail_unless(r.log.errors->len >= 1, "%s: no ERROR message", desc);
  for (guint i = 0; i < r.log.errors->len && found < 0; i++) {
    const char *m = g_ptr_array_index(r.log.errors, i);
    gboolean all_in = TRUE;
    for (int k = 0; k < 5 && c->expect[k]; k++)
      if (!strstr(m, c->expect[k]))
        all_in = FALSE;
    if (all_in)
      found = (int) i;
  }
  fail_unless(found >= 0, "%s: no ERROR names the property, value and range: %s", desc, all);
  fail_unless_equals_int(r.handoffs, 0);
  g_free(all);
  g_free(desc);
  fx_run_clear(&r);
}
GST_END_TEST;

/* ---- Streaming through appsrc/appsink ---- */

typedef struct {
  GstElement *pipeline;
  GstAppSrc *src;
  GstAppSink *sink;
  GstElement *f;
  GstBus *bus;
  fx_bus_log_t log;
  fx_fmt_t fmt;
  int channels;
  guint64 offset;
} fx_stream_t;

static void fx_stream_start(fx_stream_t *s, const char *element, fx_fmt_t fmt, int channels)
{
  gchar *caps = fx_caps_string(fmt, RATE, channels);
  gchar *desc = g_strdup_printf("appsrc name=src format=time is-live=false caps=\"%s\" ! %s "
                                "name=f ! appsink name=sink sync=false",
                                caps, element);
  GError *err = NULL;

  memset(s, 0, sizeof(*s));
  fx_bus_log_init(&s->log);
  s->fmt = fmt;
  s->channels = channels;
  s->pipeline = gst_parse_launch(desc, &err);
  fail_unless(s->pipeline != NULL && !err, "cannot parse %s", desc);
  s->src = GST_APP_SRC(gst_bin_get_by_name(GST_BIN(s->pipeline), "src"));
  s->sink = GST_APP_SINK(gst_bin_get_by_name(GST_BIN(s->pipeline), "sink"));
  s->f = gst_bin_get_by_name(GST_BIN(s->pipeline), "f");
  s->bus = gst_element_get_bus(s->pipeline);
  fail_unless(gst_element_set_state(s->pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  g_free(caps);
  g_free(desc);
}

/* Moves pending bus messages into the log without blocking. */
static void fx_stream_poll(fx_stream_t *s)
{
  fx_bus_collect(s->bus, &s->log, 0, FALSE);
}

/* Pushes x (frames) and pulls the processed buffer into y. */
static void fx_stream_process(fx_stream_t *s, const double *x, size_t frames, double *y)
{
  GstSample *sample;
  GstBuffer *buf = fx_buffer_new(s->fmt, x, frames, s->channels, RATE, s->offset);

  s->offset += frames;
  fail_unless_equals_int(gst_app_src_push_buffer(s->src, buf), GST_FLOW_OK);
  sample = gst_app_sink_try_pull_sample(s->sink, TIMEOUT);
  fail_unless(sample != NULL, "no output buffer within the timeout");
  fail_unless_equals_int(
      (int) fx_buffer_read(gst_sample_get_buffer(sample), s->fmt, y, frames * s->channels),
      (int) (frames * s->channels));
  gst_sample_unref(sample);
  fx_stream_poll(s);
}

static void fx_stream_finish(fx_stream_t *s)
{
  fail_unless_equals_int(gst_app_src_end_of_stream(s->src), GST_FLOW_OK);
  fail_unless(fx_bus_collect(s->bus, &s->log, TIMEOUT, TRUE), "no EOS within the timeout");
  fail_unless_equals_int(gst_element_set_state(s->pipeline, GST_STATE_NULL),
                         GST_STATE_CHANGE_SUCCESS);
  gst_object_unref(s->src);
  gst_object_unref(s->sink);
  gst_object_unref(s->f);
  gst_object_unref(s->bus);
  gst_object_unref(s->pipeline);
}

static double level_db(const double *x, const double *y, size_t frames, int channels)
{
  return fx_db(fx_rms(y, channels, 0, 0, frames) / fx_rms(x, channels, 0, 0, frames));
}

GST_START_TEST(test_invalid_change_while_playing)
{
  fx_fmt_t fmt = __i__ ? FX_F64 : FX_F32;
  const size_t frames = 4800;
  /* 10 kHz sine with full periods per buffer; low-pass at 1 kHz, order 4: closed form -85 dB. */
  double *x = fx_sine(10000.0, RATE, 2, frames, 0.5);
  double *y = g_new(double, frames * 2);
  fx_stream_t s;
  gchar *all;
  double db, cutoff = 0;

  fx_stream_start(&s, "fxbutterworth cutoff=1000 order=4", fmt, 2);
  for (int k = 0; k < 4; k++)
    fx_stream_process(&s, x, frames, y);
  db = level_db(x, y, frames, 2);
  fail_unless(db < -70.0, "not filtered before the change: %.1f dB", db);

  /* Invalid while PLAYING: refused with one warning, the previous coefficients stay. */
  g_object_set(s.f, "cutoff", 30000.0, NULL);
  g_object_set(s.f, "cutoff", 30000.0, NULL); /* the same refusal again: no second warning */
  for (int k = 0; k < 6; k++) {
    fx_stream_process(&s, x, frames, y);
    fail_unless(fx_all_finite(y, frames * 2));
    db = level_db(x, y, frames, 2);
    fail_unless(db < -70.0, "the previous coefficients were not kept: %.1f dB", db);
  }
  fx_stream_poll(&s);
  all = fx_join(s.log.warnings);
  GST_INFO("warnings: %s", all);
  fail_unless(fx_find_message(s.log.warnings, "cutoff", "30000", "24000", NULL) >= 0,
              "no WARNING naming cutoff, its value and the range: %s", all);
  fail_unless_equals_int(s.log.warnings->len, 1);
  fail_unless_equals_int(s.log.errors->len, 0);
  g_free(all);
  g_object_get(s.f, "cutoff", &cutoff, NULL);
  GST_INFO("cutoff reads back %g after the refusal", cutoff);

  /* A valid value afterwards is designed and used: 10 kHz through a 5 kHz low-pass. */
  g_object_set(s.f, "cutoff", 5000.0, NULL);
  for (int k = 0; k < 3; k++)
    fx_stream_process(&s, x, frames, y);
  {
    double om = tan(G_PI * 10000.0 / RATE) / tan(G_PI * 5000.0 / RATE);
    double want = -10.0 * log10(1.0 + pow(om, 8));
    db = level_db(x, y, frames, 2);
    fail_unless(fabs(db - want) < 0.3, "after a valid change: %.2f dB, closed form %.2f dB", db,
                want);
  }
  fx_stream_finish(&s);
  fail_unless_equals_int(s.log.errors->len, 0);
  fx_bus_log_clear(&s.log);
  g_free(x);
  g_free(y);
}
GST_END_TEST;

GST_START_TEST(test_band_change_while_playing)
{
  const size_t frames = 4800;
  double *x = fx_sine(1000.0, RATE, 1, frames, 0.5);
  double *y = g_new(double, frames);
  fx_stream_t s;
  double db;

  fx_stream_start(&s, "fxbutterworth mode=band-pass lower-frequency=500 upper-frequency=2000",
                  FX_F64, 1);
  fx_stream_process(&s, x, frames, y);
  /* lower above upper: refused, previous band kept; then a valid band is taken. */
  g_object_set(s.f, "lower-frequency", 5000.0, NULL);
  fx_stream_process(&s, x, frames, y);
  fx_stream_process(&s, x, frames, y);
  db = level_db(x, y, frames, 1);
  fail_unless(fabs(db) < 0.1, "previous band not kept: %.2f dB at 1 kHz", db);
  fail_unless(fx_find_message(s.log.warnings, "lower-frequency", "5000", "upper-frequency", "2000",
                              NULL) >= 0);
  g_object_set(s.f, "upper-frequency", 8000.0, NULL); /* now 5000..8000 is valid */
  for (int k = 0; k < 3; k++)
    fx_stream_process(&s, x, frames, y);
  db = level_db(x, y, frames, 1);
  fail_unless(db < -40.0, "new band 5-8 kHz not used: %.2f dB at 1 kHz", db);
  fx_stream_finish(&s);
  fail_unless_equals_int(s.log.errors->len, 0);
  fail_unless_equals_int(s.log.warnings->len, 1);
  fx_bus_log_clear(&s.log);
  g_free(x);
  g_free(y);
}
GST_END_TEST;

GST_START_TEST(test_sos_bad_rows_while_playing)
{
  fx_fmt_t fmt = __i__ ? FX_F64 : FX_F32;
  const size_t frames = 1024;
  double *x = fx_noise(5, 2, frames, 0.5);
  double *y = g_new(double, frames * 2);
  fx_stream_t s;
  gchar *all, *value;

  /* Gain 0.5 written as a0 = 2: exactly half of the input. */
  fx_stream_start(&s, "fxsos sections=\"1 0 0 2 0 0\"", fmt, 2);
  fx_stream_process(&s, x, frames, y);
  for (size_t i = 0; i < frames * 2; i++)
    fail_unless(fabs(y[i] - 0.5 * x[i]) < 1e-6);

  g_object_set(s.f, "sections", "1 0 0 1 0 0; 1 2", NULL); /* row 2 malformed */
  g_object_set(s.f, "sections", "1 0 0 1 0 0; 1 0 0 1 0 0; 1 0 0 1 -2.5 1.5", NULL); /* row 3 */
  g_object_set(s.f, "sections", "1 0 0 0 0 0", NULL); /* row 1: a0 = 0 */
  for (int k = 0; k < 3; k++) {
    fx_stream_process(&s, x, frames, y);
    for (size_t i = 0; i < frames * 2; i++)
      fail_unless(fabs(y[i] - 0.5 * x[i]) < 1e-6, "the previous sections were not kept");
  }
  fx_stream_poll(&s);
  all = fx_join(s.log.warnings);
  GST_INFO("warnings: %s", all);
  fail_unless(fx_find_message(s.log.warnings, "row 2", NULL) >= 0, "malformed row: %s", all);
  fail_unless(fx_find_message(s.log.warnings, "row 3", "unstable", NULL) >= 0, "unstable row: %s",
              all);
  fail_unless(fx_find_message(s.log.warnings, "row 1", "a0", NULL) >= 0, "a0 = 0: %s", all);
  g_object_get(s.f, "sections", &value, NULL);
  fail_unless_equals_string(value, "1 0 0 2 0 0");
  g_free(value);
  g_free(all);
  fx_stream_finish(&s);
  fail_unless_equals_int(s.log.errors->len, 0);
  fx_bus_log_clear(&s.log);
  g_free(x);
  g_free(y);
}
GST_END_TEST;

GST_START_TEST(test_nonfinite_input)
{
  fx_fmt_t fmt = __i__ ? FX_F64 : FX_F32;
  const size_t frames = 256, n_buffers = 40;
  const int channels = 2;
  double *x = fx_noise(11, channels, frames * n_buffers, 0.5);
  double *y = g_new(double, frames *channels);
  fx_stream_t s;
  gchar *all;
  guint received = 0;

  /* NaN in buffers 5..9, +Inf in 12 and -Inf in 13 (0.2 s of stream in all). */
  for (int b = 5; b <= 9; b++)
    x[(b * frames + 17) * channels] = NAN;
  x[(12 * frames + 3) * channels + 1] = INFINITY;
  x[(13 * frames + 100) * channels] = -INFINITY;

  fx_stream_start(&s, "fxbutterworth cutoff=2000 order=8", fmt, channels);
  for (size_t b = 0; b < n_buffers; b++) {
    fx_stream_process(&s, x + b * frames * channels, frames, y);
    received++;
    /* bad samples are processed as zeros: every buffer comes out finite, the bad ones too */
    fail_unless(fx_all_finite(y, frames * channels), "buffer %u: non-finite output", (guint) b);
  }
  fx_stream_finish(&s);
  all = fx_join(s.log.warnings);
  GST_INFO("warnings: %s", all);
  fail_unless_equals_int(received, n_buffers);
  fail_unless_equals_int(s.log.warnings->len, 1);
  fail_unless(fx_find_message(s.log.warnings, "NaN", NULL) >= 0, "%s", all);
  fail_unless_equals_int(s.log.errors->len, 0);
  g_free(all);
  fx_bus_log_clear(&s.log);
  g_free(x);
  g_free(y);
}
GST_END_TEST;

GST_START_TEST(test_device_cuda_fallback)
{
  const char *elements[] = {"fxbutterworth device=cuda", "fxbiquad device=cuda",
                            "fxsos device=cuda sections=\"1 0 0 1 0 0\""};
  gchar *desc = g_strdup_printf("audiotestsrc num-buffers=25 samplesperbuffer=441 ! "
                                "audio/x-raw,format=%s,rate=44100,channels=2 ! %s name=f ! "
                                "fakesink name=sink",
                                __i__ % 2 ? "F64LE" : "F32LE", elements[__i__ / 2]);
  fx_run_t r;
  gchar *all;

  fx_run_launch(&r, desc, TRUE);
  all = fx_join(r.log.warnings);
  GST_INFO("%s: warnings %s", desc, all);
  fail_unless(r.finished && r.log.eos, "%s: did not reach EOS", desc);
  fail_unless_equals_int(r.log.errors->len, 0);
  fail_unless_equals_int(r.handoffs, 25);
  fail_unless_equals_int(r.log.warnings->len, 1);
  fail_unless(fx_find_message(r.log.warnings, "cuda", "CPU", NULL) >= 0, "%s", all);
  g_free(all);
  g_free(desc);
  fx_run_clear(&r);
}
GST_END_TEST;

GST_START_TEST(test_no_crash_extremes)
{
  /* Extreme but valid settings run to EOS with finite output and no message. */
  const char *elements[] = {
      "fxbutterworth order=64 cutoff=5",
      "fxbutterworth order=64 mode=band-pass lower-frequency=20 upper-frequency=21",
      "fxchebyshev1 order=64 cutoff=23999 ripple=40",
      "fxchebyshev2 order=64 mode=band-reject lower-frequency=1 upper-frequency=23999",
      "fxelliptic order=24 cutoff=10 ripple=0.001 attenuation=200",
      "fxlinkwitzriley order=16 cutoff=1",
      "fxbiquad type=high-shelf frequency=23990 q=1000 gain=120",
  };
  gchar *desc = g_strdup_printf("audiotestsrc num-buffers=20 wave=white-noise ! "
                                "audio/x-raw,format=F64LE,rate=48000,channels=1 ! %s ! "
                                "fakesink name=sink",
                                elements[__i__]);
  fx_run_t r;
  gchar *e;

  fx_run_launch(&r, desc, TRUE);
  e = fx_join(r.log.errors);
  fail_unless(r.finished && r.log.eos, "%s: no EOS: %s", desc, e);
  fail_unless_equals_int(r.handoffs, 20);
  g_free(e);
  g_free(desc);
  fx_run_clear(&r);
}
GST_END_TEST;

/* Automation that runs into an invalid range: the filter keeps the last valid coefficients,
 * every buffer comes out, and the bus gets a warning, not one per buffer. */
GST_START_TEST(test_automation_into_invalid_range)
{
  const size_t frames = 256, n_buffers = 188; /* ~1 s */
  double *x = fx_noise(41, 1, frames, 0.5);
  double *y = g_new(double, frames);
  GstControlSource *cs = gst_interpolation_control_source_new();
  fx_stream_t s;
  gchar *all;

  fx_stream_start(&s, "fxbutterworth cutoff=20000 order=4", FX_F32, 1);
  g_object_set(cs, "mode", GST_INTERPOLATION_MODE_LINEAR, NULL);
  gst_timed_value_control_source_set(GST_TIMED_VALUE_CONTROL_SOURCE(cs), 0, 20000.0);
  gst_timed_value_control_source_set(GST_TIMED_VALUE_CONTROL_SOURCE(cs), GST_SECOND, 30000.0);
  gst_object_add_control_binding(
      GST_OBJECT(s.f), gst_direct_control_binding_new_absolute(GST_OBJECT(s.f), "cutoff", cs));
  for (size_t b = 0; b < n_buffers; b++) {
    fx_stream_process(&s, x, frames, y);
    fail_unless(fx_all_finite(y, frames));
  }
  fx_stream_finish(&s);
  all = fx_join(s.log.warnings);
  GST_INFO("warnings: %s", all);
  fail_unless(s.log.warnings->len >= 1 && s.log.warnings->len <= 2,
              "%u warnings for one excursion (want 1, rate-limited): %s", s.log.warnings->len, all);
  fail_unless(fx_find_message(s.log.warnings, "cutoff", "24000", NULL) >= 0, "%s", all);
  fail_unless_equals_int(s.log.errors->len, 0);
  g_free(all);
  fx_bus_log_clear(&s.log);
  gst_object_unref(cs);
  g_free(x);
  g_free(y);
}
GST_END_TEST;

static Suite *fx_bad_input_suite(void)
{
  Suite *s = suite_create("fx-bad-input");
  TCase *tc = tcase_create("general");

  suite_add_tcase(s, tc);
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_negotiation_errors, 0, G_N_ELEMENTS(neg_cases));
  tcase_add_loop_test(tc, test_invalid_change_while_playing, 0, 2);
  tcase_add_test(tc, test_band_change_while_playing);
  tcase_add_test(tc, test_automation_into_invalid_range);
  tcase_add_loop_test(tc, test_sos_bad_rows_while_playing, 0, 2);
  tcase_add_loop_test(tc, test_nonfinite_input, 0, 2);
  tcase_add_loop_test(tc, test_device_cuda_fallback, 0, 6);
  tcase_add_loop_test(tc, test_no_crash_extremes, 0, 7);
  return s;
}

GST_CHECK_MAIN(fx_bad_input);
