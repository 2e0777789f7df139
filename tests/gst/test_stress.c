/* gst-fx — stress: every element of the fx plugin (enumerated at run time) through state cycling
 * with data flowing, property changes from other threads while streaming, 16 concurrent
 * pipelines, renegotiation every few buffers, flushing seeks mid-stream and controller ramps on
 * every controllable property. Asserts: no crash, no error message, finite output and the expected
 * number of output samples.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "fxelements.h"

#define RATE 48000

/* ---- output checks on a pad probe (real pipelines) ---- */

typedef struct {
  GMutex lock;
  GCond cond;
  fx_fmt_t fmt;
  guint64 frames;      /* output frames since the last FLUSH_STOP */
  guint64 buffers;     /* output buffers since the start */
  guint64 bad_size;    /* output buffers whose size is not `expect_frames` (when set) */
  guint64 nonfinite;   /* non-finite output samples */
  gsize bpf;           /* bytes per frame */
  gsize expect_frames; /* frames per buffer expected (0: any) */
  gboolean eos;
} fx_probe_t;

static void fx_probe_init(fx_probe_t *p, fx_fmt_t fmt, int channels, gsize expect_frames)
{
  memset(p, 0, sizeof *p);
  g_mutex_init(&p->lock);
  g_cond_init(&p->cond);
  p->fmt = fmt;
  p->bpf = (fmt == FX_F64 ? 8 : 4) * (gsize) channels;
  p->expect_frames = expect_frames;
}

static void fx_probe_clear(fx_probe_t *p)
{
  g_mutex_clear(&p->lock);
  g_cond_clear(&p->cond);
}

static guint64 fx_count_nonfinite(const GstMapInfo *map, fx_fmt_t fmt)
{
  guint64 bad = 0;
  if (fmt == FX_F64) {
    for (gsize i = 0; i < map->size / 8; i++)
      bad += !isfinite(((const double *) map->data)[i]);
  } else {
    for (gsize i = 0; i < map->size / 4; i++)
      bad += !isfinite(((const float *) map->data)[i]);
  }
  return bad;
}

static GstPadProbeReturn fx_probe_cb(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  fx_probe_t *p = data;
  (void) pad;
  g_mutex_lock(&p->lock);
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER(info);
    GstMapInfo map;
    if (gst_buffer_map(buf, &map, GST_MAP_READ)) {
      gsize frames = map.size / p->bpf;
      p->frames += frames;
      p->buffers++;
      if (p->expect_frames && (frames != p->expect_frames || map.size % p->bpf))
        p->bad_size++;
      p->nonfinite += fx_count_nonfinite(&map, p->fmt);
      gst_buffer_unmap(buf, &map);
    }
  } else if (info->type & GST_PAD_PROBE_TYPE_EVENT_BOTH) {
    GstEvent *ev = GST_PAD_PROBE_INFO_EVENT(info);
    GST_LOG("event %s after %" G_GUINT64_FORMAT " frames", GST_EVENT_TYPE_NAME(ev), p->frames);
    if (GST_EVENT_TYPE(ev) == GST_EVENT_FLUSH_STOP)
      p->frames = 0;
    else if (GST_EVENT_TYPE(ev) == GST_EVENT_EOS)
      p->eos = TRUE;
  }
  g_cond_broadcast(&p->cond);
  g_mutex_unlock(&p->lock);
  return GST_PAD_PROBE_OK;
}

/* Waits until at least `buffers` buffers came through (or 10 s); returns whether they did. */
static gboolean fx_probe_wait(fx_probe_t *p, guint64 buffers)
{
  gint64 deadline = g_get_monotonic_time() + 10 * G_TIME_SPAN_SECOND;
  gboolean ok;
  g_mutex_lock(&p->lock);
  while (p->buffers < buffers && g_get_monotonic_time() < deadline)
    g_cond_wait_until(&p->cond, &p->lock, deadline);
  ok = p->buffers >= buffers;
  g_mutex_unlock(&p->lock);
  return ok;
}

/* audiotestsrc ! caps ! <element name=f + setup> ! fakesink, with the probe on f's src pad. */
static GstElement *fx_pipeline(const char *name, fx_fmt_t fmt, int rate, int channels,
                               int num_buffers, int spb, fx_probe_t *probe)
{
  fx_elem_info_t info = fx_elem_info(name);
  gchar *caps = fx_caps_string(fmt, rate, channels);
  gchar *plain = fx_setup_plain(info.setup);
  gchar *desc = g_strdup_printf(
      "audiotestsrc wave=white-noise volume=0.5 num-buffers=%d samplesperbuffer=%d ! %s ! "
      "%s name=f %s ! fakesink sync=false",
      num_buffers, spb, caps, name, plain);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch(desc, &err);
  GstElement *f;
  GstPad *pad;

  fail_unless(pipe != NULL && err == NULL, "%s: %s", desc, err ? err->message : "?");
  f = gst_bin_get_by_name(GST_BIN(pipe), "f");
  fx_setup_children(f, info.setup);
  pad = gst_element_get_static_pad(f, "src");
  gst_pad_add_probe(pad,
                    GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
                        GST_PAD_PROBE_TYPE_EVENT_FLUSH,
                    fx_probe_cb, probe, NULL);
  gst_object_unref(pad);
  gst_object_unref(f);
  g_free(plain);
  g_free(desc);
  g_free(caps);
  return pipe;
}

/* ---- 1. NULL <-> PLAYING 1000 times with data flowing ---- */

GST_START_TEST(test_state_cycling)
{
  gchar *name = fx_element_name(__i__);
  fx_elem_info_t info = fx_elem_info(name);
  const int cycles = fx_scaled(1000), spb = 256;
  fx_probe_t probe;
  GstElement *pipe;
  GstBus *bus;

  fx_probe_init(&probe, FX_F32, 2, info.exact ? (gsize) spb : 0);
  /* Unlimited source: each cycle stops it while buffers are in flight. */
  pipe = fx_pipeline(name, FX_F32, RATE, 2, -1, spb, &probe);
  bus = gst_element_get_bus(pipe);
  for (int i = 0; i < cycles; i++) {
    guint64 before = probe.buffers;
    fail_unless(gst_element_set_state(pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE,
                "%s: cycle %d: PLAYING failed", name, i);
    if (!info.holds)
      fail_unless(fx_probe_wait(&probe, before + 2), "%s: cycle %d: no data", name, i);
    fail_unless_equals_int(gst_element_set_state(pipe, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
    fail_unless_equals_int(fx_bus_errors(bus, NULL), 0);
  }
  GST_INFO("%s: %d cycles, %" G_GUINT64_FORMAT " buffers", name, cycles, probe.buffers);
  fail_unless(info.holds || probe.buffers >= (guint64) cycles * 2);
  fail_unless_equals_int((int) probe.bad_size, 0);
  fail_unless_equals_int((int) probe.nonfinite, 0);
  gst_object_unref(bus);
  gst_object_unref(pipe);
  fx_probe_clear(&probe);
  g_free(name);
}
GST_END_TEST;

/* ---- helpers for harness streams ---- */

/* Pushes `n` buffers of `frames` frames of noise and pulls the output; checks finiteness and
 * (exact elements) the size of every output buffer. Returns the output frames. */
static guint64 fx_push_noise(GstHarness *h, const fx_elem_info_t *info, fx_fmt_t fmt, int rate,
                             int channels, int n, size_t frames, guint64 *offset)
{
  double *x = fx_noise(7 + (guint32) *offset, channels, frames, 0.5);
  guint64 out_frames = 0;
  gsize bpf = (fmt == FX_F64 ? 8 : 4) * (gsize) channels;

  for (int i = 0; i < n; i++) {
    GstBuffer *out;
    fail_unless_equals_int(
        gst_harness_push(h, fx_buffer_new(fmt, x, frames, channels, rate, *offset)), GST_FLOW_OK);
    *offset += frames;
    while ((out = gst_harness_try_pull(h)) != NULL) {
      GstMapInfo map;
      fail_unless(gst_buffer_map(out, &map, GST_MAP_READ));
      if (info->exact)
        fail_unless_equals_int((int) map.size, (int) (frames * bpf));
      fail_unless_equals_int((int) fx_count_nonfinite(&map, fmt), 0);
      out_frames += map.size / bpf;
      gst_buffer_unmap(out, &map);
      gst_buffer_unref(out);
    }
  }
  g_free(x);
  return out_frames;
}

/* Pulls what is queued without pushing (what an element flushed out on a caps change: a
 * look-ahead tail or held audio, in the previous format `fmt`/`channels`); checks it is finite and
 * returns its frames. */
static guint64 fx_pull_pending(GstHarness *h, fx_fmt_t fmt, int channels)
{
  GstBuffer *out;
  guint64 frames = 0;
  gsize bpf = (fmt == FX_F64 ? 8 : 4) * (gsize) channels;
  while ((out = gst_harness_try_pull(h)) != NULL) {
    GstMapInfo map;
    fail_unless(gst_buffer_map(out, &map, GST_MAP_READ));
    fail_unless_equals_int((int) fx_count_nonfinite(&map, fmt), 0);
    frames += map.size / bpf;
    gst_buffer_unmap(out, &map);
    gst_buffer_unref(out);
  }
  return frames;
}

/* Sends EOS and counts the frames of what comes out after it (elements with a tail). */
static guint64 fx_drain(GstHarness *h, fx_fmt_t fmt, int channels)
{
  GstBuffer *out;
  guint64 frames = 0;
  gsize bpf = (fmt == FX_F64 ? 8 : 4) * (gsize) channels;
  gst_harness_push_event(h, gst_event_new_eos());
  while ((out = gst_harness_try_pull(h)) != NULL) {
    frames += gst_buffer_get_size(out) / bpf;
    gst_buffer_unref(out);
  }
  return frames;
}

static void fx_check_count(const fx_elem_info_t *info, guint64 in, guint64 out)
{
  if (info->exact)
    fail_unless(out == in, "%s: %" G_GUINT64_FORMAT " frames out for %" G_GUINT64_FORMAT " in",
                info->name, out, in);
  else
    fail_unless(out >= in, "%s: %" G_GUINT64_FORMAT " frames out for %" G_GUINT64_FORMAT " in",
                info->name, out, in);
}

/* ---- 2. property changes from other threads while streaming ---- */

typedef struct {
  GObject *obj;
  const char *name;
  GValue a, b;
  gint count;
} fx_prop_flip_t;

/* A stress thread of our own that alternates two values and counts its rounds (the harness's
 * property threads give no count until stopped, so the stream keeps going until this one has
 * made enough rounds). */
static void fx_flip_cb(gpointer thread, gpointer data)
{
  fx_prop_flip_t *f = data;
  gint n = g_atomic_int_add(&f->count, 1);
  (void) thread;
  g_object_set_property(f->obj, f->name, n % 2 ? &f->a : &f->b);
}

/* Streams while `flip` (and whatever else) runs, until at least `min_buffers` were pushed and
 * the flip thread made 40 rounds. Returns the output frames. */
static guint64 fx_stream_while(GstHarness *h, const fx_elem_info_t *info, fx_prop_flip_t *flip,
                               int min_buffers, guint64 *offset)
{
  guint64 out = 0;
  int pushed = 0;
  while (pushed < min_buffers || g_atomic_int_get(&flip->count) < 40) {
    out += fx_push_noise(h, info, FX_F32, RATE, 2, 10, 128, offset);
    pushed += 10;
    fail_unless(pushed < 200000, "%s: the stress thread does not run", info->name);
  }
  return out;
}

static void fx_flip_init(fx_prop_flip_t *flip, GObject *obj, GParamSpec *p)
{
  memset(flip, 0, sizeof *flip);
  flip->obj = obj;
  flip->name = p->name;
  fx_param_values(p, &flip->a, &flip->b);
}

static void fx_flip_clear(fx_prop_flip_t *flip)
{
  g_object_set_property(flip->obj, flip->name, &flip->a); /* back to the default */
  g_value_unset(&flip->a);
  g_value_unset(&flip->b);
}

GST_START_TEST(test_stress_properties)
{
  gchar *name = fx_element_name(__i__);
  fx_elem_info_t info = fx_elem_info(name);
  GstElement *e = fx_element_make(name);
  GstBus *bus;
  GstHarness *h = fx_harness_for(e, &bus);
  GPtrArray *params = fx_stress_params(G_OBJECT(e));
  GList *children = fx_children(e);
  guint64 offset = 0, out = 0;
  int stressed = 0;
  const int n_buffers = fx_scaled(150);

  fx_harness_stream(h, FX_F32, RATE, 2);
  for (guint i = 0; i < params->len; i++) {
    GParamSpec *p = g_ptr_array_index(params, i);
    fx_prop_flip_t flip;
    GstHarnessThread *ta, *tb, *tc;

    fx_flip_init(&flip, G_OBJECT(e), p);
    /* Three threads: the harness's property threads, one setting the default and one the
     * alternative value, and our counting one alternating both. */
    ta = gst_harness_stress_property_start_full(h, p->name, &flip.a, 50);
    tb = gst_harness_stress_property_start_full(h, p->name, &flip.b, 70);
    tc = gst_harness_stress_custom_start(h, NULL, fx_flip_cb, &flip, 30);
    out += fx_stream_while(h, &info, &flip, n_buffers, &offset);
    gst_harness_stress_thread_stop(ta);
    gst_harness_stress_thread_stop(tb);
    gst_harness_stress_thread_stop(tc);
    fx_flip_clear(&flip);
    fail_unless_equals_int(fx_bus_errors(bus, NULL), 0);
    stressed++;
  }
  /* A string parameter from the table (fxsos's sections). */
  if (info.string_param) {
    fx_prop_flip_t flip = {G_OBJECT(e), info.string_param, G_VALUE_INIT, G_VALUE_INIT, 0};
    GstHarnessThread *t;
    g_value_init(&flip.a, G_TYPE_STRING);
    g_value_init(&flip.b, G_TYPE_STRING);
    g_object_get_property(G_OBJECT(e), info.string_param, &flip.a);
    g_value_set_string(&flip.b, info.string_alt);
    t = gst_harness_stress_custom_start(h, NULL, fx_flip_cb, &flip, 30);
    out += fx_stream_while(h, &info, &flip, n_buffers, &offset);
    gst_harness_stress_thread_stop(t);
    fx_flip_clear(&flip);
    fail_unless_equals_int(fx_bus_errors(bus, NULL), 0);
    stressed++;
  }
  /* A bin: its children's parameters too (a harness's property threads reach only the element
   * itself). */
  for (GList *l = children; l; l = l->next) {
    GPtrArray *cp = fx_stress_params(G_OBJECT(l->data));
    for (guint i = 0; i < cp->len; i++) {
      fx_prop_flip_t flip;
      GstHarnessThread *t;
      fx_flip_init(&flip, G_OBJECT(l->data), g_ptr_array_index(cp, i));
      t = gst_harness_stress_custom_start(h, NULL, fx_flip_cb, &flip, 30);
      out += fx_stream_while(h, &info, &flip, n_buffers, &offset);
      gst_harness_stress_thread_stop(t);
      fx_flip_clear(&flip);
      fail_unless_equals_int(fx_bus_errors(bus, NULL), 0);
      stressed++;
    }
    g_ptr_array_unref(cp);
  }
  out += fx_drain(h, FX_F32, 2);
  fx_check_count(&info, offset, out);
  GST_INFO("%s: %d parameters stressed", name, stressed);
  fail_unless(stressed > 0, "%s has no parameter changeable while playing", name);
  g_list_free_full(children, gst_object_unref);
  g_ptr_array_unref(params);
  gst_harness_teardown(h);
  gst_element_set_bus(e, NULL);
  gst_object_unref(bus);
  gst_object_unref(e);
  g_free(name);
}
GST_END_TEST;

/* ---- 3. 16 pipelines at once in one process ---- */

GST_START_TEST(test_concurrent_pipelines)
{
  GPtrArray *names = fx_element_names();
  enum { N = 16, BUFFERS = 120 };
  GstElement *pipes[N];
  fx_probe_t probes[N];
  int spb[N], channels[N];
  fx_fmt_t fmts[N];
  const int rates[] = {44100, 48000, 96000, 22050};

  for (int i = 0; i < N; i++) {
    const char *name = g_ptr_array_index(names, (guint) i % names->len);
    fx_elem_info_t info = fx_elem_info(name);
    spb[i] = 173 + 31 * i;
    channels[i] = 1 + i % 3;
    fmts[i] = i % 2 ? FX_F64 : FX_F32;
    fx_probe_init(&probes[i], fmts[i], channels[i], info.exact ? (gsize) spb[i] : 0);
    pipes[i] = fx_pipeline(name, fmts[i], rates[i % 4], channels[i], BUFFERS, spb[i], &probes[i]);
  }
  for (int i = 0; i < N; i++)
    fail_unless(gst_element_set_state(pipes[i], GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  for (int i = 0; i < N; i++) {
    const char *name = g_ptr_array_index(names, (guint) i % names->len);
    fx_elem_info_t info = fx_elem_info(name);
    GstBus *bus = gst_element_get_bus(pipes[i]);
    fx_bus_log_t log;
    fx_bus_log_init(&log);
    fail_unless(fx_bus_collect(bus, &log, 60 * GST_SECOND, TRUE), "%s: no EOS", name);
    fail_unless(log.eos && log.errors->len == 0, "pipeline %d (%s): %s", i, name,
                log.errors->len ? (char *) g_ptr_array_index(log.errors, 0) : "no EOS");
    fx_check_count(&info, (guint64) BUFFERS * (guint64) spb[i], probes[i].frames);
    fail_unless_equals_int((int) probes[i].nonfinite, 0);
    fail_unless_equals_int((int) probes[i].bad_size, 0);
    fx_bus_log_clear(&log);
    gst_object_unref(bus);
  }
  for (int i = 0; i < N; i++) {
    fail_unless_equals_int(gst_element_set_state(pipes[i], GST_STATE_NULL),
                           GST_STATE_CHANGE_SUCCESS);
    gst_object_unref(pipes[i]);
    fx_probe_clear(&probes[i]);
  }
  g_ptr_array_unref(names);
}
GST_END_TEST;

/* ---- 4. new rate and channel count every few buffers ---- */

GST_START_TEST(test_renegotiation)
{
  gchar *name = fx_element_name(__i__);
  fx_elem_info_t info = fx_elem_info(name);
  GstElement *e = fx_element_make(name);
  GstBus *bus;
  GstHarness *h = fx_harness_for(e, &bus);
  const int rates[] = {48000, 8000, 44100, 96000, 22050, 192000, 16000};
  const int chans[] = {2, 1, 6, 3, 8, 1, 2, 5};
  guint64 in = 0, out = 0;
  const int switches = fx_scaled(60);
  fx_fmt_t prev_fmt = FX_F32;
  int prev_ch = 1;

  for (int k = 0; k < switches; k++) {
    int rate = rates[k % G_N_ELEMENTS(rates)], ch = chans[k % G_N_ELEMENTS(chans)];
    fx_fmt_t fmt = (k / 3) % 2 ? FX_F64 : FX_F32;
    guint64 offset = 0;
    /* New caps mid-stream (a new stream every fourth time). */
    if (k % 4 == 0)
      fx_harness_stream(h, fmt, rate, ch);
    else
      gst_harness_set_src_caps(h, fx_caps(fmt, rate, ch));
    out += fx_pull_pending(h, prev_fmt, prev_ch);
    prev_fmt = fmt;
    prev_ch = ch;
    out += fx_push_noise(h, &info, fmt, rate, ch, 3, 100 + (size_t) k, &offset);
    in += offset;
    fail_unless_equals_int(fx_bus_errors(bus, NULL), 0);
  }
  out += fx_drain(h, prev_fmt, prev_ch); /* what is held until EOS (fxnormalize), tails */
  fx_check_count(&info, in, out);
  gst_harness_teardown(h);
  gst_element_set_bus(e, NULL);
  gst_object_unref(bus);
  gst_object_unref(e);
  g_free(name);
}
GST_END_TEST;

/* ---- 5. flushing seeks mid-stream ---- */

GST_START_TEST(test_flushing_seeks)
{
  gchar *name = fx_element_name(__i__);
  fx_elem_info_t info = fx_elem_info(name);
  const int spb = 480, seeks = 6;
  fx_probe_t probe;
  GstElement *pipe;
  GstBus *bus;
  fx_bus_log_t log;
  const GstClockTime len = GST_SECOND / 2;
  GstClockTime start = 0;

  if (info.holds) { /* no preroll before EOS: nothing to seek in */
    g_print("%s: flushing seeks do not apply (holds the stream until EOS)\n", name);
    g_free(name);
    return;
  }
  fx_probe_init(&probe, FX_F64, 2, 0);
  pipe = fx_pipeline(name, FX_F64, RATE, 2, -1, spb, &probe);
  bus = gst_element_get_bus(pipe);
  fail_unless(gst_element_set_state(pipe, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int(gst_element_get_state(pipe, NULL, NULL, 10 * GST_SECOND),
                         GST_STATE_CHANGE_SUCCESS);
  fail_unless(gst_element_set_state(pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  for (int i = 0; i < seeks; i++) {
    guint64 before = probe.buffers;
    fail_unless(fx_probe_wait(&probe, before + 3), "%s: no data after seek %d", name, i);
    start = (GstClockTime) (i + 1) * GST_SECOND / 10;
    /* Each seek lands mid-stream of the previous (open-ended) one; the last one plays
     * [start, start + 0.5 s). */
    fail_unless(gst_element_seek(pipe, 1.0, GST_FORMAT_TIME,
                                 GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, GST_SEEK_TYPE_SET,
                                 (gint64) start, GST_SEEK_TYPE_SET,
                                 i + 1 < seeks ? -1 : (gint64) (start + len)),
                "%s: seek %d refused", name, i);
  }
  fx_bus_log_init(&log);
  fail_unless(fx_bus_collect(bus, &log, 60 * GST_SECOND, TRUE) && log.eos, "%s: no EOS", name);
  fail_unless_equals_int((int) log.errors->len, 0);
  /* After the last flush: exactly the seek segment's samples. */
  fx_check_count(&info, gst_util_uint64_scale(len, RATE, GST_SECOND), probe.frames);
  fail_unless_equals_int((int) probe.nonfinite, 0);
  fx_bus_log_clear(&log);
  fail_unless_equals_int(gst_element_set_state(pipe, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  gst_object_unref(bus);
  gst_object_unref(pipe);
  fx_probe_clear(&probe);
  g_free(name);
}
GST_END_TEST;

/* ---- 6. a controller ramp on every controllable property ---- */

static void fx_ramp(GstObject *obj, GParamSpec *p, GstClockTime t0, GstClockTime t1)
{
  GValue a = G_VALUE_INIT, b = G_VALUE_INIT;
  GstControlSource *cs = gst_interpolation_control_source_new();
  GType t = G_PARAM_SPEC_VALUE_TYPE(p);
  GstTimedValueControlSource *tv = GST_TIMED_VALUE_CONTROL_SOURCE(cs);
  double va, vb;

  fx_param_values(p, &a, &b);
  if (t == G_TYPE_BOOLEAN) {
    va = g_value_get_boolean(&a);
    vb = g_value_get_boolean(&b);
  } else if (G_TYPE_IS_ENUM(t)) {
    va = g_value_get_enum(&a);
    vb = g_value_get_enum(&b);
  } else {
    GValue d = G_VALUE_INIT;
    g_value_init(&d, G_TYPE_DOUBLE);
    g_value_transform(&a, &d);
    va = g_value_get_double(&d);
    g_value_transform(&b, &d);
    vb = g_value_get_double(&d);
    g_value_unset(&d);
  }
  /* Continuous parameters ramp linearly; booleans and enums step half way. */
  g_object_set(cs, "mode",
               (t == G_TYPE_BOOLEAN || G_TYPE_IS_ENUM(t)) ? GST_INTERPOLATION_MODE_NONE
                                                          : GST_INTERPOLATION_MODE_LINEAR,
               NULL);
  gst_timed_value_control_source_set(tv, t0, va);
  if (t == G_TYPE_BOOLEAN || G_TYPE_IS_ENUM(t))
    gst_timed_value_control_source_set(tv, (t0 + t1) / 2, vb);
  else
    gst_timed_value_control_source_set(tv, t1, vb);
  fail_unless(gst_object_add_control_binding(
      obj, gst_direct_control_binding_new_absolute(obj, p->name, cs)));
  g_value_unset(&a);
  g_value_unset(&b);
  gst_object_unref(cs);
}

GST_START_TEST(test_controller_ramps)
{
  gchar *name = fx_element_name(__i__);
  fx_elem_info_t info = fx_elem_info(name);
  GstElement *probe_e = fx_element_make(name);
  GPtrArray *targets = g_ptr_array_new_with_free_func(g_free); /* object names */
  GPtrArray *specs = g_ptr_array_new();                        /* their params */
  GList *children = fx_children(probe_e);
  const size_t frames = 480;
  const int n_buffers = fx_scaled(100);

  /* (object name, parameter) pairs: the element's own, then its children's. */
  {
    GPtrArray *p = fx_dsp_params(G_OBJECT(probe_e));
    for (guint i = 0; i < p->len; i++) {
      g_ptr_array_add(targets, g_strdup("f"));
      g_ptr_array_add(specs, g_ptr_array_index(p, i));
    }
    g_ptr_array_unref(p);
    for (GList *l = children; l; l = l->next) {
      p = fx_dsp_params(G_OBJECT(l->data));
      for (guint i = 0; i < p->len; i++) {
        g_ptr_array_add(targets, g_strdup(GST_OBJECT_NAME(l->data)));
        g_ptr_array_add(specs, g_ptr_array_index(p, i));
      }
      g_ptr_array_unref(p);
    }
  }
  /* fxsos has none: its only parameter is a string (stressed above). */
  fail_unless(specs->len > 0 || info.string_param, "%s has no controllable parameter", name);

  for (guint k = 0; k < specs->len; k++) {
    GParamSpec *p = g_ptr_array_index(specs, k);
    const char *target = g_ptr_array_index(targets, k);
    GstElement *e = fx_element_make(name);
    GstElement *obj =
        strcmp(target, "f") == 0 ? gst_object_ref(e) : gst_bin_get_by_name(GST_BIN(e), target);
    GstBus *bus;
    GstHarness *h;
    guint64 offset = 0, out;

    fail_unless(obj != NULL);
    fx_ramp(GST_OBJECT(obj), p, 0,
            gst_util_uint64_scale(frames * (guint64) n_buffers, GST_SECOND, RATE));
    h = fx_harness_for(e, &bus);
    fx_harness_stream(h, FX_F64, RATE, 2);
    out = fx_push_noise(h, &info, FX_F64, RATE, 2, n_buffers, frames, &offset);
    out += fx_drain(h, FX_F64, 2);
    fx_check_count(&info, offset, out);
    fail_unless_equals_int(fx_bus_errors(bus, NULL), 0);
    GST_INFO("%s: ramp on %s.%s", name, target, p->name);
    gst_harness_teardown(h);
    gst_element_set_bus(e, NULL);
    gst_object_unref(bus);
    gst_object_unref(obj);
    gst_object_unref(e);
  }
  g_list_free_full(children, gst_object_unref);
  g_ptr_array_unref(specs);
  g_ptr_array_unref(targets);
  gst_object_unref(probe_e);
  g_free(name);
}
GST_END_TEST;

static Suite *fx_stress_suite(void)
{
  Suite *s = suite_create("fx-stress");
  TCase *tc = tcase_create("general");
  int n = fx_element_count();

  suite_add_tcase(s, tc);
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_state_cycling, 0, n);
  tcase_add_loop_test(tc, test_stress_properties, 0, n);
  tcase_add_test(tc, test_concurrent_pipelines);
  tcase_add_loop_test(tc, test_renegotiation, 0, n);
  tcase_add_loop_test(tc, test_flushing_seeks, 0, n);
  tcase_add_loop_test(tc, test_controller_ramps, 0, n);
  return s;
}

GST_CHECK_MAIN(fx_stress);
