/* gst-fx — element tests of fxchain, the fusing bin: dispatch counts of fused and unfused chains
 * (deterministic gates, no timing), the plan, opaque stages, gains folded, children's names and
 * properties, gst-launch's bin syntax, bad input, structure changes while playing, flushes,
 * renegotiation and properties from other threads.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "fxtest.h"

#define RATE 48000
#define TIMEOUT (20 * GST_SECOND)
#define FRAMES 256
#define N_BUFFERS 8

/* A stable second-order low-pass (scipy butter(2, 0.1)) for fxsos. */
#define SOS_ROW                                                                                    \
  "0.020083365564211 0.040166731128422 0.020083365564211 1 -1.561018075800718 0.641351538057563"

/* A harness around an fxchain (named "f") with the given chain and fuse. */
static GstHarness *chain_harness(const char *chain, gboolean fuse, fx_fmt_t fmt, int channels)
{
  GstElement *bin = gst_element_factory_make("fxchain", "f");
  GstHarness *h;

  fail_unless(bin != NULL, "fxchain is not registered");
  gst_object_ref_sink(bin);
  g_object_set(bin, "fuse", fuse, "chain", chain, NULL);
  h = gst_harness_new_with_element(bin, "sink", "src");
  gst_object_unref(bin);
  gst_harness_set_src_caps(h, fx_caps(fmt, RATE, channels));
  return h;
}

static guint64 dispatches_of(GstElement *e)
{
  guint64 d = 0;
  g_object_get(e, "dispatches", &d, NULL);
  return d;
}

/* Counts the plan's lines that start with "<k>: <kind>". */
static int plan_count(GstElement *bin, const char *kind, gchar **plan_out)
{
  gchar *plan = NULL, **lines;
  int n = 0;

  g_object_get(bin, "plan", &plan, NULL);
  fail_unless(plan != NULL);
  lines = g_strsplit(plan, "\n", -1);
  for (int i = 0; lines[i]; i++) {
    const char *colon = strchr(lines[i], ':');
    if (colon && g_str_has_prefix(colon + 2, kind))
      n++;
  }
  g_strfreev(lines);
  if (plan_out)
    *plan_out = plan;
  else
    g_free(plan);
  return n;
}

/* A chain of depth K mixing fxbiquad, fxbutterworth and fxsos. */
static gchar *mixed_chain(int depth)
{
  GString *s = g_string_new(NULL);
  for (int i = 0; i < depth; i++) {
    if (i > 0)
      g_string_append(s, " ! ");
    switch (i % 3) {
    case 0:
      g_string_append_printf(s, "fxbiquad name=s%d type=peaking frequency=%d gain=%d", i,
                             500 + 300 * i, (i % 5) - 2);
      break;
    case 1:
      g_string_append_printf(s, "fxbutterworth name=s%d mode=low-pass cutoff=%d order=%d", i,
                             16000 - 100 * i, 2 + i % 4);
      break;
    default:
      g_string_append_printf(s, "fxsos name=s%d sections=\"" SOS_ROW "\"", i);
      break;
    }
  }
  return g_string_free(s, FALSE);
}

/* Pushes N_BUFFERS buffers of noise; returns the output (N_BUFFERS * FRAMES frames). */
static double *push_noise(GstHarness *h, fx_fmt_t fmt, int channels, guint32 seed)
{
  double *x = fx_noise(seed, channels, N_BUFFERS * FRAMES, 0.5);
  size_t chunk = FRAMES;
  double *y = fx_run(h, fmt, RATE, channels, x, N_BUFFERS * FRAMES, &chunk, 1, 0);
  g_free(x);
  return y;
}

/* ---- Dispatch counts: ONE per buffer fused, K per buffer unfused ---- */

static const int depths[] = {2, 5, 10, 20};

GST_START_TEST(test_dispatches_per_buffer)
{
  int depth = depths[__i__ / 2];
  gboolean fuse = __i__ % 2 == 0;
  gchar *chain = mixed_chain(depth);
  GstHarness *h = chain_harness(chain, fuse, FX_F32, 2);
  GstElement *bin = h->element;
  double *y = push_noise(h, FX_F32, 2, 7);
  gchar *plan = NULL;
  int cascades = plan_count(bin, "cascade", &plan);

  fail_unless(fx_all_finite(y, N_BUFFERS * FRAMES * 2));
  if (fuse) {
    fail_unless_equals_uint64(dispatches_of(bin), N_BUFFERS);
    fail_unless_equals_int(cascades, 1);
  } else {
    fail_unless_equals_uint64(dispatches_of(bin), (guint64) depth * N_BUFFERS);
    fail_unless_equals_int(cascades, depth);
  }
  GST_INFO("depth %d fuse %d plan:\n%s", depth, fuse, plan);
  g_free(plan);
  g_free(y);
  g_free(chain);
  gst_harness_teardown(h);
}
GST_END_TEST;

/* Fused and unfused outputs agree (F64: the same cascade sections, in the same order). */
GST_START_TEST(test_fused_equals_unfused)
{
  fx_fmt_t fmt = __i__ ? FX_F64 : FX_F32;
  gchar *chain = mixed_chain(10);
  GstHarness *a = chain_harness(chain, TRUE, fmt, 3);
  GstHarness *b = chain_harness(chain, FALSE, fmt, 3);
  double *ya = push_noise(a, fmt, 3, 11), *yb = push_noise(b, fmt, 3, 11);
  double err = 0.0, peak = 0.0;

  for (size_t i = 0; i < N_BUFFERS * FRAMES * 3; i++) {
    err = MAX(err, fabs(ya[i] - yb[i]));
    peak = MAX(peak, fabs(yb[i]));
  }
  fail_unless(peak > 1e-3);
  fail_unless(err <= (fmt == FX_F64 ? 1e-12 : 1e-5) * peak, "fused vs unfused: %g (peak %g)", err,
              peak);
  g_free(ya);
  g_free(yb);
  g_free(chain);
  gst_harness_teardown(a);
  gst_harness_teardown(b);
}
GST_END_TEST;

/* ---- Gains fold, clipping gains and other elements split ---- */

GST_START_TEST(test_gain_folds)
{
  GstHarness *h = chain_harness("fxgain gain=2 ! fxbiquad ! fxgain name=g gain=-6 ! "
                                "fxbutterworth cutoff=9000 ! fxgain gain=1",
                                TRUE, FX_F32, 2);
  double *y = push_noise(h, FX_F32, 2, 3);

  fail_unless_equals_uint64(dispatches_of(h->element), N_BUFFERS);
  fail_unless_equals_int(plan_count(h->element, "cascade", NULL), 1);
  fail_unless_equals_int(plan_count(h->element, "opaque", NULL), 0);
  g_free(y);
  gst_harness_teardown(h);
}
GST_END_TEST;

GST_START_TEST(test_clipping_gain_splits)
{
  GstHarness *h = chain_harness("fxbiquad ! fxgain gain=-6 clip=true ! fxbutterworth cutoff=9000",
                                TRUE, FX_F32, 2);
  double *y = push_noise(h, FX_F32, 2, 3);

  fail_unless_equals_uint64(dispatches_of(h->element), 2 * N_BUFFERS);
  fail_unless_equals_int(plan_count(h->element, "cascade", NULL), 2);
  fail_unless_equals_int(plan_count(h->element, "opaque", NULL), 1);
  g_free(y);
  gst_harness_teardown(h);
}
GST_END_TEST;

static const char *const opaque_middle[] = {"audioconvert", "volume volume=0.5"};

GST_START_TEST(test_opaque_in_the_middle)
{
  gchar *chain =
      g_strdup_printf("fxbiquad type=peaking gain=3 ! fxbutterworth cutoff=8000 ! %s name=mid ! "
                      "fxsos sections=\"" SOS_ROW "\" ! fxlinkwitzriley cutoff=3000",
                      opaque_middle[__i__]);
  GstHarness *h = chain_harness(chain, TRUE, FX_F32, 2);
  double *y = push_noise(h, FX_F32, 2, 5);
  gchar *plan = NULL;

  fail_unless_equals_uint64(dispatches_of(h->element), 2 * N_BUFFERS);
  fail_unless_equals_int(plan_count(h->element, "cascade", &plan), 2);
  fail_unless(strstr(plan, "opaque mid") != NULL, "plan: %s", plan);
  fail_unless_equals_int(plan_count(h->element, "opaque", NULL), 1);
  g_free(plan);
  g_free(y);
  g_free(chain);
  gst_harness_teardown(h);
}
GST_END_TEST;

GST_START_TEST(test_only_opaque)
{
  GstHarness *h = chain_harness("audioconvert ! volume volume=0.5", TRUE, FX_F32, 1);
  double *x = fx_noise(9, 1, FRAMES, 0.5);
  double *y = fx_run(h, FX_F32, RATE, 1, x, FRAMES, NULL, 0, 0);

  for (size_t i = 0; i < FRAMES; i++)
    fail_unless(fabs(y[i] - 0.5 * (float) x[i]) <= 1e-6);
  fail_unless_equals_uint64(dispatches_of(h->element), 0);
  fail_unless_equals_int(plan_count(h->element, "opaque", NULL), 2);
  g_free(x);
  g_free(y);
  gst_harness_teardown(h);
}
GST_END_TEST;

/* ---- Children keep their names; a property change applies at the next buffer ---- */

GST_START_TEST(test_child_property_changes_output)
{
  GstHarness *h = chain_harness("fxbiquad name=eq type=peaking frequency=1000 gain=0 ! "
                                "fxbutterworth name=lp cutoff=20000",
                                TRUE, FX_F64, 1);
  GstElement *eq = gst_bin_get_by_name(GST_BIN(h->element), "eq");
  GstElement *lp = gst_bin_get_by_name(GST_BIN(h->element), "lp");
  double *x = fx_sine(1000.0, RATE, 1, 4096, 0.25);
  double *y0, *y1;
  double r0, r1;

  fail_unless(eq != NULL && lp != NULL, "children lost their names");
  y0 = fx_run(h, FX_F64, RATE, 1, x, 2048, NULL, 0, 0);
  g_object_set(eq, "gain", 12.0, NULL);
  y1 = fx_run(h, FX_F64, RATE, 1, x + 2048, 2048, NULL, 0, 2048);
  r0 = fx_rms(y0, 1, 0, 1024, 2048);
  r1 = fx_rms(y1, 1, 0, 1024, 2048); /* past the 5 ms crossfade */
  fail_unless(fabs(fx_db(r1 / r0) - 12.0) < 0.5, "+12 dB peaking gave %.2f dB", fx_db(r1 / r0));
  fail_unless_equals_uint64(dispatches_of(h->element), 2);
  g_free(x);
  g_free(y0);
  g_free(y1);
  gst_object_unref(eq);
  gst_object_unref(lp);
  gst_harness_teardown(h);
}
GST_END_TEST;

/* ---- gst-launch's bin syntax ---- */

static void run_launch(const char *desc, fx_bus_log_t *log, gboolean *finished,
                       GstStateChangeReturn *ret, GstElement **pipeline_out)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch(desc, &err);
  GstBus *bus;

  fail_unless(pipeline != NULL && err == NULL, "cannot parse %s: %s", desc,
              err ? err->message : "");
  bus = gst_element_get_bus(pipeline);
  fx_bus_log_init(log);
  *ret = gst_element_set_state(pipeline, GST_STATE_PLAYING);
  *finished = fx_bus_collect(bus, log, TIMEOUT, TRUE);
  gst_object_unref(bus);
  *pipeline_out = pipeline;
}

GST_START_TEST(test_bin_syntax_reaches_eos)
{
  fx_bus_log_t log;
  gboolean finished;
  GstStateChangeReturn ret;
  GstElement *pipeline, *c;

  run_launch("audiotestsrc num-buffers=10 ! audio/x-raw,format=F32LE ! fxchain.( name=c "
             "fxbiquad name=pk type=peaking gain=3 ! fxlinkwitzriley ) ! fakesink",
             &log, &finished, &ret, &pipeline);
  fail_unless(finished && log.eos, "no EOS: %s", fx_join(log.errors));
  fail_unless_equals_int(log.errors->len, 0);
  c = gst_bin_get_by_name(GST_BIN(pipeline), "c");
  fail_unless(c != NULL);
  fail_unless_equals_uint64(dispatches_of(c), 10);
  fail_unless_equals_int(plan_count(c, "cascade", NULL), 1);
  gst_object_unref(c);
  c = gst_bin_get_by_name(GST_BIN(pipeline), "pk");
  fail_unless(c != NULL, "the child is not found by name");
  gst_object_unref(c);
  fail_unless_equals_int(gst_element_set_state(pipeline, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  /* Again from NULL: the bin rewires itself. */
  fx_bus_log_clear(&log);
  fx_bus_log_init(&log);
  {
    GstBus *bus = gst_element_get_bus(pipeline);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    fail_unless(fx_bus_collect(bus, &log, TIMEOUT, TRUE) && log.eos);
    gst_object_unref(bus);
  }
  fail_unless_equals_int(gst_element_set_state(pipeline, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  fx_bus_log_clear(&log);
  gst_object_unref(pipeline);
}
GST_END_TEST;

/* ---- fxchain-stats: the buffer count without a pad probe ---- */

static GstPadProbeReturn count_probe(GstPad *pad, GstPadProbeInfo *info, gpointer user_data)
{
  (void) pad;
  (void) info;
  (*(guint64 *) user_data)++;
  return GST_PAD_PROBE_OK;
}

/* Runs the pipeline to EOS; returns the `buffers` of its fxchain-stats message (fails without
 * one). */
static guint64 run_for_stats(GstElement *pipeline)
{
  GstBus *bus = gst_element_get_bus(pipeline);
  gboolean have = FALSE, eos = FALSE;
  guint64 buffers = 0;

  fail_unless(gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  while (!eos) {
    GstMessage *m = gst_bus_timed_pop_filtered(
        bus, TIMEOUT, GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless(m != NULL, "pipeline hung");
    fail_if(GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR, "error on the bus");
    if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ELEMENT &&
        gst_structure_has_name(gst_message_get_structure(m), "fxchain-stats")) {
      fail_if(have, "two fxchain-stats messages in one run");
      have = gst_structure_get_uint64(gst_message_get_structure(m), "buffers", &buffers);
    }
    eos = GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS;
    gst_message_unref(m);
  }
  gst_object_unref(bus);
  fail_unless(have, "no fxchain-stats message before EOS");
  fail_unless_equals_int(gst_element_set_state(pipeline, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  return buffers;
}

static const char *const stats_chains[] = {
    "fxbutterworth mode=high-pass cutoff=80 order=4 ! fxbutterworth cutoff=12000 order=8",
    "fxbiquad type=peaking gain=3 ! audioconvert", /* the last stage is not a cascade */
};

/* fxchain counts the buffers leaving it in its src ghost pad's internal pad functions: the count
 * equals what the sink receives, fused and unfused, on a first run and on a second one (the bin
 * rewires itself from NULL and counts from zero); an application's probe on the bin's src pad
 * still sees every buffer. */
GST_START_TEST(test_stats_counts_buffers)
{
  const char *chain = stats_chains[__i__ / 2];
  const gboolean fuse = __i__ % 2 == 0;
  gchar *desc = g_strdup_printf(
      "audiotestsrc num-buffers=37 samplesperbuffer=100 ! audio/x-raw,format=F32LE,channels=2 ! "
      "fxchain name=c fuse=%s chain=\"%s\" ! fakesink name=s",
      fuse ? "true" : "false", chain);
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch(desc, &err);
  GstElement *c, *sink;
  GstPad *src, *sinkpad;
  guint64 at_src = 0, at_sink = 0;

  fail_unless(pipeline != NULL && err == NULL, "cannot parse %s", desc);
  c = gst_bin_get_by_name(GST_BIN(pipeline), "c");
  sink = gst_bin_get_by_name(GST_BIN(pipeline), "s");
  src = gst_element_get_static_pad(c, "src");
  sinkpad = gst_element_get_static_pad(sink, "sink");
  gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, count_probe, &at_src, NULL);
  gst_pad_add_probe(sinkpad, GST_PAD_PROBE_TYPE_BUFFER, count_probe, &at_sink, NULL);
  for (int run = 0; run < 2; run++) {
    at_src = at_sink = 0;
    fail_unless_equals_uint64(run_for_stats(pipeline), 37);
    fail_unless_equals_uint64(at_src, 37);
    fail_unless_equals_uint64(at_sink, 37);
  }
  gst_object_unref(src);
  gst_object_unref(sinkpad);
  gst_object_unref(sink);
  gst_object_unref(c);
  gst_object_unref(pipeline);
  g_free(desc);
}
GST_END_TEST;

/* GstHarness around the bin syntax (gst_harness_new_parse). */
GST_START_TEST(test_harness_bin_syntax)
{
  GstHarness *h = fx_harness("fxchain.( name=f fxbiquad type=peaking gain=3 ! fxgain gain=-2 ! "
                             "fxlinkwitzriley )",
                             FX_F64, RATE, 2);
  GstElement *bin = fx_harness_element(h);
  double *y = push_noise(h, FX_F64, 2, 8);

  fail_unless(fx_all_finite(y, N_BUFFERS * FRAMES * 2));
  fail_unless_equals_uint64(dispatches_of(bin), N_BUFFERS);
  fail_unless_equals_int(plan_count(bin, "cascade", NULL), 1);
  g_free(y);
  gst_object_unref(bin);
  gst_harness_teardown(h);
}
GST_END_TEST;

/* ---- Bad input: an ERROR naming the offending part, no hang ---- */

typedef struct {
  const char *chain; /* NULL: leave the bin empty */
  const char *expect;
} bad_case_t;

static const bad_case_t bad_cases[] = {
    {"fxbiquad ! nosuchelement", "nosuchelement"},
    {"fxbiquad ! ! fxsos", "does not parse"},
    {"fxbiquad nosuchproperty=3", "nosuchproperty"},
    {"fxbiquad ! tee ! fxbutterworth", "tee"},
    {"audiotestsrc", "audiotestsrc"},
    {"fxbiquad ! fakesink", "fakesink"},
    {"fxbiquad ! videoconvert", "videoconvert"},
    {"fxbiquad fxbutterworth", "linear chain"},
    {NULL, "empty"},
};

GST_START_TEST(test_bad_chain_errors)
{
  const bad_case_t *bc = &bad_cases[__i__];
  GError *err = NULL;
  GstElement *pipeline =
      gst_parse_launch("audiotestsrc num-buffers=5 ! audio/x-raw,format=F32LE ! fxchain name=c ! "
                       "fakesink",
                       &err);
  GstElement *c = gst_bin_get_by_name(GST_BIN(pipeline), "c");
  GstBus *bus = gst_element_get_bus(pipeline);
  fx_bus_log_t log;
  gchar *all;

  fail_unless(err == NULL);
  if (bc->chain)
    g_object_set(c, "chain", bc->chain, NULL);
  fx_bus_log_init(&log);
  fail_unless_equals_int(gst_element_set_state(pipeline, GST_STATE_PLAYING),
                         GST_STATE_CHANGE_FAILURE);
  fx_bus_collect(bus, &log, 2 * GST_SECOND, TRUE);
  all = fx_join(log.errors);
  fail_unless(log.errors->len >= 1, "no error for chain %s", bc->chain);
  fail_unless(fx_find_message(log.errors, bc->expect, NULL) >= 0, "chain %s: %s", bc->chain, all);
  GST_INFO("chain %s: %s", bc->chain, all);
  g_free(all);
  fail_unless_equals_int(gst_element_set_state(pipeline, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  fx_bus_log_clear(&log);
  gst_object_unref(c);
  gst_object_unref(bus);
  gst_object_unref(pipeline);
}
GST_END_TEST;

/* A child with a design that fails at the negotiated rate: negotiation fails with an error that
 * names the child, the property, its value and range. */
GST_START_TEST(test_negotiation_error_names_child)
{
  fx_bus_log_t log;
  gboolean finished;
  GstStateChangeReturn ret;
  GstElement *pipeline;

  run_launch("audiotestsrc num-buffers=5 ! audio/x-raw,format=F32LE,rate=48000 ! fxchain.( "
             "fxbiquad name=ok ! fxbutterworth name=bad cutoff=30000 ) ! fakesink",
             &log, &finished, &ret, &pipeline);
  fail_unless(finished);
  fail_unless(fx_find_message(log.errors, "bad", "cutoff", "30000", "24000", NULL) >= 0, "%s",
              fx_join(log.errors));
  fail_unless_equals_int(gst_element_set_state(pipeline, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  fx_bus_log_clear(&log);
  gst_object_unref(pipeline);
}
GST_END_TEST;

/* ---- Structure changes: refused while playing, applied in READY ---- */

GST_START_TEST(test_chain_change_while_playing_warns)
{
  GError *err = NULL;
  GstElement *pipeline =
      gst_parse_launch("audiotestsrc is-live=true ! audio/x-raw,format=F32LE ! fxchain name=c "
                       "chain=\"fxbiquad ! fxbutterworth\" ! fakesink sync=false",
                       &err);
  GstElement *c = gst_bin_get_by_name(GST_BIN(pipeline), "c");
  GstBus *bus = gst_element_get_bus(pipeline);
  fx_bus_log_t log;
  gchar *chain = NULL;
  gboolean fuse;

  fail_unless(err == NULL);
  fx_bus_log_init(&log);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  fail_unless_equals_int(gst_element_get_state(pipeline, NULL, NULL, TIMEOUT),
                         GST_STATE_CHANGE_SUCCESS);
  g_object_set(c, "chain", "fxsos", "fuse", FALSE, NULL);
  fx_bus_collect(bus, &log, GST_SECOND / 2, TRUE);
  fail_unless_equals_int(log.errors->len, 0);
  fail_unless(fx_find_message(log.warnings, "chain", "PLAYING", NULL) >= 0, "%s",
              fx_join(log.warnings));
  fail_unless(fx_find_message(log.warnings, "fuse", NULL) >= 0, "%s", fx_join(log.warnings));
  g_object_get(c, "chain", &chain, "fuse", &fuse, NULL);
  fail_unless_equals_string(chain, "fxbiquad ! fxbutterworth");
  fail_unless(fuse);
  g_free(chain);
  fail_unless_equals_int(gst_element_set_state(pipeline, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  fx_bus_log_clear(&log);
  gst_object_unref(c);
  gst_object_unref(bus);
  gst_object_unref(pipeline);
}
GST_END_TEST;

GST_START_TEST(test_chain_change_in_ready_rewires)
{
  GError *err = NULL;
  GstElement *pipeline =
      gst_parse_launch("audiotestsrc num-buffers=6 ! audio/x-raw,format=F32LE ! fxchain name=c "
                       "chain=\"fxbiquad ! volume\" ! fakesink",
                       &err);
  GstElement *c = gst_bin_get_by_name(GST_BIN(pipeline), "c"), *child;
  GstBus *bus = gst_element_get_bus(pipeline);
  fx_bus_log_t log;

  fail_unless(err == NULL);
  fx_bus_log_init(&log);
  fail_unless_equals_int(gst_element_set_state(pipeline, GST_STATE_READY),
                         GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int(plan_count(c, "opaque", NULL), 1);
  g_object_set(c, "chain", "fxbiquad name=a ! fxgain gain=-1 ! fxbutterworth name=b", NULL);
  fail_unless_equals_int(plan_count(c, "cascade", NULL), 1);
  fail_unless_equals_int(plan_count(c, "opaque", NULL), 0);
  child = gst_bin_get_by_name(GST_BIN(c), "b");
  fail_unless(child != NULL);
  gst_object_unref(child);
  g_object_set(c, "fuse", FALSE, NULL);
  fail_unless_equals_int(plan_count(c, "cascade", NULL), 2);
  g_object_set(c, "fuse", TRUE, NULL);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  fail_unless(fx_bus_collect(bus, &log, TIMEOUT, TRUE) && log.eos, "%s", fx_join(log.errors));
  fail_unless_equals_uint64(dispatches_of(c), 6);
  fail_unless_equals_int(gst_element_set_state(pipeline, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  fx_bus_log_clear(&log);
  gst_object_unref(c);
  gst_object_unref(bus);
  gst_object_unref(pipeline);
}
GST_END_TEST;

/* ---- Flush, NaN, renegotiation, common properties, threads ---- */

GST_START_TEST(test_flush_resets_fused_state)
{
  const char *chain = "fxbutterworth cutoff=300 order=8 ! fxbiquad type=peaking gain=6";
  GstHarness *h = chain_harness(chain, TRUE, FX_F64, 2);
  GstHarness *fresh = chain_harness(chain, TRUE, FX_F64, 2);
  double *a = fx_noise(1, 2, 4096, 0.8), *b = fx_noise(2, 2, 4096, 0.5);
  double *ya, *yb, *yf, worst = 0.0, peak = 0.0;
  GstSegment seg;

  ya = fx_run(h, FX_F64, RATE, 2, a, 4096, NULL, 0, 0);
  fail_unless(gst_harness_push_event(h, gst_event_new_flush_start()));
  fail_unless(gst_harness_push_event(h, gst_event_new_flush_stop(TRUE)));
  gst_segment_init(&seg, GST_FORMAT_TIME);
  fail_unless(gst_harness_push_event(h, gst_event_new_segment(&seg)));
  yb = fx_run(h, FX_F64, RATE, 2, b, 4096, NULL, 0, 0);
  yf = fx_run(fresh, FX_F64, RATE, 2, b, 4096, NULL, 0, 0);
  for (size_t i = 0; i < 4096 * 2; i++) {
    worst = MAX(worst, fabs(yb[i] - yf[i]));
    peak = MAX(peak, fabs(yf[i]));
  }
  fail_unless(peak > 1e-3);
  fail_unless(worst <= 1e-12 * peak, "after a flush: %g", worst);
  g_free(a);
  g_free(b);
  g_free(ya);
  g_free(yb);
  g_free(yf);
  gst_harness_teardown(h);
  gst_harness_teardown(fresh);
}
GST_END_TEST;

GST_START_TEST(test_nan_recovers)
{
  GstHarness *h = chain_harness("fxbiquad ! fxbutterworth cutoff=2000", TRUE, FX_F32, 2);
  double *x = fx_noise(4, 2, 3 * FRAMES, 0.5), *y;

  x[10] = NAN;
  x[21] = INFINITY;
  y = fx_run(h, FX_F32, RATE, 2, x, 3 * FRAMES, (size_t[]){FRAMES}, 1, 0);
  fail_unless(fx_all_finite(y + 2 * FRAMES, 2 * FRAMES * 2), "not clean after a NaN buffer");
  g_free(x);
  g_free(y);
  gst_harness_teardown(h);
}
GST_END_TEST;

GST_START_TEST(test_renegotiation)
{
  GstHarness *h =
      chain_harness("fxbutterworth cutoff=1000 order=4 ! fxbiquad type=all-pass", TRUE, FX_F32, 2);
  double *x = fx_sine(1000.0, 96000, 1, 8192, 0.5), *y0, *y1;

  y0 = push_noise(h, FX_F32, 2, 1);
  gst_harness_set_src_caps(h, fx_caps(FX_F64, 96000, 1));
  y1 = fx_run(h, FX_F64, 96000, 1, x, 8192, NULL, 0, 0);
  /* 1000 Hz at the cutoff of a Butterworth: -3 dB whatever the rate. */
  fail_unless(fabs(fx_db(fx_rms(y1, 1, 0, 4096, 8192) / fx_rms(x, 1, 0, 4096, 8192)) + 3.01) < 0.1);
  fail_unless_equals_uint64(dispatches_of(h->element), N_BUFFERS + 1);
  g_free(x);
  g_free(y0);
  g_free(y1);
  gst_harness_teardown(h);
}
GST_END_TEST;

GST_START_TEST(test_common_properties_apply)
{
  GstElement *bin = gst_object_ref_sink(gst_element_factory_make("fxchain", "f"));
  GstHarness *h;
  gchar *backend = NULL;
  double *y;

  g_object_set(
      bin, "precision", 2 /* double */, "chain",
      "fxbiquad name=a ! fxbutterworth ! volume ! fxsos name=alone sections=\"" SOS_ROW "\"", NULL);
  h = gst_harness_new_with_element(bin, "sink", "src");
  gst_harness_set_src_caps(h, fx_caps(FX_F32, RATE, 2));
  y = push_noise(h, FX_F32, 2, 2);
  g_object_get(bin, "backend", &backend, NULL);
  fail_unless(backend && strstr(backend, "f64") && !strstr(backend, "f32"), "backend %s", backend);
  g_free(backend);
  {
    GstElement *alone = gst_bin_get_by_name(GST_BIN(bin), "alone");
    gint p;
    g_object_get(alone, "precision", &p, NULL);
    fail_unless_equals_int(p, 2);
    gst_object_unref(alone);
  }
  g_free(y);
  gst_harness_teardown(h);
  gst_object_unref(bin);
}
GST_END_TEST;

typedef struct {
  GstElement *child;
  gint stop;
} hammer_t;

static gpointer hammer(gpointer data)
{
  hammer_t *hm = data;
  int k = 0;

  while (!g_atomic_int_get(&hm->stop)) {
    g_object_set(hm->child, "frequency", (k++ % 2) ? 3000.0 : 800.0, NULL);
    g_usleep(100);
  }
  return NULL;
}

GST_START_TEST(test_child_properties_from_another_thread)
{
  GstHarness *h =
      chain_harness("fxbiquad name=eq type=peaking gain=6 ! fxbutterworth", TRUE, FX_F32, 2);
  hammer_t hm = {gst_bin_get_by_name(GST_BIN(h->element), "eq"), 0};
  GThread *t = g_thread_new("hammer", hammer, &hm);
  double *x = fx_noise(21, 2, 480, 0.5);

  for (int k = 0; k < 200; k++) {
    double *y = fx_run(h, FX_F32, RATE, 2, x, 480, NULL, 0, (guint64) k * 480);
    fail_unless(fx_all_finite(y, 960));
    g_free(y);
  }
  g_atomic_int_set(&hm.stop, 1);
  g_thread_join(t);
  fail_unless_equals_uint64(dispatches_of(h->element), 200);
  g_free(x);
  gst_object_unref(hm.child);
  gst_harness_teardown(h);
}
GST_END_TEST;

static Suite *fx_chain_suite(void)
{
  Suite *s = suite_create("fx-chain");
  TCase *tc = tcase_create("general");

  suite_add_tcase(s, tc);
  tcase_add_loop_test(tc, test_dispatches_per_buffer, 0, 2 * G_N_ELEMENTS(depths));
  tcase_add_loop_test(tc, test_fused_equals_unfused, 0, 2);
  tcase_add_test(tc, test_gain_folds);
  tcase_add_test(tc, test_clipping_gain_splits);
  tcase_add_loop_test(tc, test_opaque_in_the_middle, 0, G_N_ELEMENTS(opaque_middle));
  tcase_add_test(tc, test_only_opaque);
  tcase_add_test(tc, test_child_property_changes_output);
  tcase_add_test(tc, test_bin_syntax_reaches_eos);
  tcase_add_test(tc, test_harness_bin_syntax);
  tcase_add_loop_test(tc, test_stats_counts_buffers, 0, 2 * G_N_ELEMENTS(stats_chains));
  tcase_add_loop_test(tc, test_bad_chain_errors, 0, G_N_ELEMENTS(bad_cases));
  tcase_add_test(tc, test_negotiation_error_names_child);
  tcase_add_test(tc, test_chain_change_while_playing_warns);
  tcase_add_test(tc, test_chain_change_in_ready_rewires);
  tcase_add_test(tc, test_flush_resets_fused_state);
  tcase_add_test(tc, test_nan_recovers);
  tcase_add_test(tc, test_renegotiation);
  tcase_add_test(tc, test_common_properties_apply);
  tcase_add_test(tc, test_child_properties_from_another_thread);
  return s;
}

GST_CHECK_MAIN(fx_chain);
