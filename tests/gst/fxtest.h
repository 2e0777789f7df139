/* gst-fx — shared helpers of the element tests.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FX_TEST_H
#define FX_TEST_H

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/audio/audio.h>

#include <math.h>
#include <string.h>

typedef enum {
  FX_F32 = 0,
  FX_F64 = 1,
} fx_fmt_t;

static inline const char *fx_fmt_name(fx_fmt_t f)
{
  return f == FX_F64 ? GST_AUDIO_NE(F64) : GST_AUDIO_NE(F32);
}

static inline GstCaps *fx_caps(fx_fmt_t f, int rate, int channels)
{
  GstCaps *caps = gst_caps_new_simple("audio/x-raw", "format", G_TYPE_STRING, fx_fmt_name(f),
                                      "layout", G_TYPE_STRING, "interleaved", "rate", G_TYPE_INT,
                                      rate, "channels", G_TYPE_INT, channels, NULL);
  /* More than two channels need a mask; 0 = unpositioned. */
  if (channels > 2)
    gst_caps_set_simple(caps, "channel-mask", GST_TYPE_BITMASK, (guint64) 0, NULL);
  return caps;
}

static inline gchar *fx_caps_string(fx_fmt_t f, int rate, int channels)
{
  return g_strdup_printf("audio/x-raw,format=%s,layout=interleaved,rate=%d,channels=%d%s",
                         fx_fmt_name(f), rate, channels,
                         channels > 2 ? ",channel-mask=(bitmask)0" : "");
}

/* A buffer of `frames` interleaved frames from doubles, stamped at frame offset `offset`. */
static inline GstBuffer *fx_buffer_new(fx_fmt_t f, const double *x, size_t frames, int channels,
                                       int rate, guint64 offset)
{
  size_t n = frames * (size_t) channels;
  size_t bps = f == FX_F64 ? sizeof(double) : sizeof(float);
  GstBuffer *buf = gst_buffer_new_allocate(NULL, n * bps, NULL);
  GstMapInfo map;

  fail_unless(gst_buffer_map(buf, &map, GST_MAP_WRITE));
  for (size_t i = 0; i < n; i++) {
    if (f == FX_F64)
      ((double *) map.data)[i] = x[i];
    else
      ((float *) map.data)[i] = (float) x[i];
  }
  gst_buffer_unmap(buf, &map);
  GST_BUFFER_PTS(buf) = gst_util_uint64_scale_int(offset, GST_SECOND, rate);
  GST_BUFFER_DURATION(buf) =
      gst_util_uint64_scale_int(offset + frames, GST_SECOND, rate) - GST_BUFFER_PTS(buf);
  GST_BUFFER_OFFSET(buf) = offset;
  GST_BUFFER_OFFSET_END(buf) = offset + frames;
  return buf;
}

/* Appends a buffer's samples to y (as doubles); returns the number of samples. */
static inline size_t fx_buffer_read(GstBuffer *buf, fx_fmt_t f, double *y, size_t room)
{
  GstMapInfo map;
  size_t bps = f == FX_F64 ? sizeof(double) : sizeof(float);
  size_t n;

  fail_unless(gst_buffer_map(buf, &map, GST_MAP_READ));
  n = map.size / bps;
  fail_unless(n <= room, "output longer than input");
  for (size_t i = 0; i < n; i++)
    y[i] = f == FX_F64 ? ((const double *) map.data)[i] : (double) ((const float *) map.data)[i];
  gst_buffer_unmap(buf, &map);
  return n;
}

/* Pushes x (frames x channels, interleaved) in chunks of the given sizes (cycled; NULL = one
 * buffer) starting at frame `offset`, pulls every output buffer; returns a new array of the same
 * length. */
static inline double *fx_run(GstHarness *h, fx_fmt_t f, int rate, int channels, const double *x,
                             size_t frames, const size_t *chunks, int n_chunks, guint64 offset)
{
  double *y = g_new0(double, frames *(size_t) channels);
  size_t done = 0;
  int k = 0;

  while (done < frames) {
    size_t len = chunks ? chunks[k++ % n_chunks] : frames;
    GstBuffer *out;
    size_t got;

    if (len == 0)
      len = 1;
    if (len > frames - done)
      len = frames - done;
    fail_unless_equals_int(gst_harness_push(h, fx_buffer_new(f, x + done * (size_t) channels, len,
                                                             channels, rate, offset + done)),
                           GST_FLOW_OK);
    out = gst_harness_pull(h);
    fail_unless(out != NULL);
    got = fx_buffer_read(out, f, y + done * (size_t) channels, (frames - done) * (size_t) channels);
    fail_unless_equals_int((int) got, (int) (len * (size_t) channels));
    gst_buffer_unref(out);
    done += len;
  }
  return y;
}

/* Interleaved sine: channel c has amplitude amp / (c + 1). */
static inline double *fx_sine(double freq, int rate, int channels, size_t frames, double amp)
{
  double *x = g_new(double, frames *(size_t) channels);
  for (size_t i = 0; i < frames; i++)
    for (int c = 0; c < channels; c++)
      x[i * (size_t) channels + (size_t) c] =
          amp / (c + 1) * sin(2.0 * G_PI * freq * (double) i / rate);
  return x;
}

/* A GRand for a test's fixed seed: the same data on every run, unless FX_TEST_SEED=<n> is set,
 * which mixes n into every seed (the first use prints it, so that the test log of a failure
 * shows which data failed). */
static inline GRand *fx_test_rand(guint32 seed)
{
  static gsize once = 0;
  static guint32 mix = 0;
  static gboolean set = FALSE;
  if (g_once_init_enter(&once)) {
    const char *s = g_getenv("FX_TEST_SEED");
    if (s && *s) {
      const guint64 v = g_ascii_strtoull(s, NULL, 0);
      mix = (guint32) (v ^ (v >> 32)) * 0x9E3779B1u + 0x7F4A7C15u;
      set = TRUE;
      g_printerr("random test data from FX_TEST_SEED=%" G_GUINT64_FORMAT
                 " (the same value repeats them)\n",
                 v);
    }
    g_once_init_leave(&once, 1);
  }
  return g_rand_new_with_seed(set ? seed ^ mix : seed);
}

/* Interleaved uniform white noise in [-amp, amp), reproducible (see fx_test_rand()). */
static inline double *fx_noise(guint32 seed, int channels, size_t frames, double amp)
{
  GRand *r = fx_test_rand(seed);
  double *x = g_new(double, frames *(size_t) channels);
  for (size_t i = 0; i < frames * (size_t) channels; i++)
    x[i] = amp * (2.0 * g_rand_double(r) - 1.0);
  g_rand_free(r);
  return x;
}

/* RMS of channel c over frames [from, to). */
static inline double fx_rms(const double *x, int channels, int c, size_t from, size_t to)
{
  double s = 0.0;
  for (size_t i = from; i < to; i++) {
    double v = x[i * (size_t) channels + (size_t) c];
    s += v * v;
  }
  return sqrt(s / (double) (to - from));
}

static inline double fx_db(double ratio)
{
  return 20.0 * log10(ratio > 1e-300 ? ratio : 1e-300);
}

static inline gboolean fx_all_finite(const double *x, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!isfinite(x[i]))
      return FALSE;
  return TRUE;
}

/* Largest |x[n] - x[n-1]| over channel c. */
static inline double fx_max_step(const double *x, int channels, int c, size_t frames)
{
  double m = 0.0;
  for (size_t i = 1; i < frames; i++) {
    double d =
        fabs(x[i * (size_t) channels + (size_t) c] - x[(i - 1) * (size_t) channels + (size_t) c]);
    if (d > m)
      m = d;
  }
  return m;
}

/* A harness around a launch-line fragment (one element named "f" is expected for property
 * access) with the given input caps. */
static inline GstHarness *fx_harness(const char *desc, fx_fmt_t f, int rate, int channels)
{
  GstHarness *h = gst_harness_new_parse(desc);
  fail_unless(h != NULL, "cannot create %s", desc);
  gst_harness_set_src_caps(h, fx_caps(f, rate, channels));
  return h;
}

static inline GstElement *fx_harness_element(GstHarness *h)
{
  GstElement *e = gst_bin_get_by_name(GST_BIN(h->element), "f");
  fail_unless(e != NULL, "the element must be named f");
  return e; /* transfer full */
}

/* ---- Messages from a real pipeline ---- */

typedef struct {
  GPtrArray *errors;   /* gchar*: "message | debug" */
  GPtrArray *warnings; /* gchar* */
  gboolean eos;
} fx_bus_log_t;

static inline void fx_bus_log_init(fx_bus_log_t *log)
{
  log->errors = g_ptr_array_new_with_free_func(g_free);
  log->warnings = g_ptr_array_new_with_free_func(g_free);
  log->eos = FALSE;
}

static inline void fx_bus_log_clear(fx_bus_log_t *log)
{
  g_ptr_array_unref(log->errors);
  g_ptr_array_unref(log->warnings);
}

/* Collects messages until EOS or ERROR (stop_on_error) or the timeout (0: only the messages
 * already queued); returns FALSE on timeout. */
static inline gboolean fx_bus_collect(GstBus *bus, fx_bus_log_t *log, GstClockTime timeout,
                                      gboolean stop_on_error)
{
  gint64 deadline = g_get_monotonic_time() + (gint64) (timeout / GST_USECOND);

  for (;;) {
    gint64 now = g_get_monotonic_time();
    GstMessage *msg;
    /* timeout 0: only what is already queued. */
    msg = gst_bus_timed_pop_filtered(
        bus, now >= deadline ? 0 : (GstClockTime) (deadline - now) * GST_USECOND,
        GST_MESSAGE_ERROR | GST_MESSAGE_WARNING | GST_MESSAGE_EOS);
    if (!msg)
      return FALSE;
    if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_EOS) {
      log->eos = TRUE;
      gst_message_unref(msg);
      return TRUE;
    } else {
      GError *err = NULL;
      gchar *dbg = NULL;
      gboolean is_error = GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR;
      if (is_error)
        gst_message_parse_error(msg, &err, &dbg);
      else
        gst_message_parse_warning(msg, &err, &dbg);
      g_ptr_array_add(is_error ? log->errors : log->warnings,
                      g_strdup_printf("%s | %s", err ? err->message : "", dbg ? dbg : ""));
      GST_INFO("%s from %s: %s (%s)", is_error ? "ERROR" : "WARNING",
               GST_OBJECT_NAME(GST_MESSAGE_SRC(msg)), err ? err->message : "", dbg);
      g_clear_error(&err);
      g_free(dbg);
      gst_message_unref(msg);
      if (is_error && stop_on_error)
        return TRUE;
    }
  }
}

/* Index of the first message containing every one of the NULL-terminated substrings, or -1. */
static inline int fx_find_message(GPtrArray *msgs, ...)
{
  for (guint i = 0; i < msgs->len; i++) {
    const char *m = g_ptr_array_index(msgs, i);
    gboolean all = TRUE;
    va_list ap;
    va_start(ap, msgs);
    for (const char *s = va_arg(ap, const char *); s; s = va_arg(ap, const char *))
      if (!strstr(m, s))
        all = FALSE;
    va_end(ap);
    if (all)
      return (int) i;
  }
  return -1;
}

static inline gchar *fx_join(GPtrArray *msgs)
{
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < msgs->len; i++)
    g_string_append_printf(s, "[%s] ", (const char *) g_ptr_array_index(msgs, i));
  return g_string_free(s, FALSE);
}

#endif
