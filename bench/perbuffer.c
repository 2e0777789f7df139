/* gst-fx — per-buffer cost of the seed chain on short buffers, and where it goes.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The seed chain (Butterworth high-pass 80 Hz order 4, then low-pass 12 kHz order 8; stereo F32,
 * 48 kHz) on short buffers (128 and 512 frames by default), measured in layers, each as the
 * median time of one call:
 *
 *   element layer: a src pad and a sink pad of this program, linked around the element, and one
 *     gst_pad_push() per buffer, timed alone (the buffer is allocated and filled before the
 *     clock starts; the sink's chain function unrefs it, inside the timed call):
 *       direct     src pad linked straight to the sink pad (the harness's own cost)
 *       identity   GStreamer's identity
 *       fxchain    `fxchain chain="<seed chain>"` (fused: one cascade), default properties
 *       fxchain-nowarm  the same with warm-up=false (no input copy)
 *       fxsos      `fxsos` with the chain's six sections: one element, no bin and no ghost pads
 *   engine layer (libfxdsp called directly, on the same buffers):
 *       cascade    fx_cascade_process() of the same two-stage cascade the fused stage runs
 *       cascade-nowarm  the same without the input copy (fx_cascade_set_history(0))
 *       cascade1   the six sections as one stage (what fxsos runs)
 *       kernel     the kernel call alone that the cascade makes (same flavour, sequential or
 *                  chunked as the cascade runs, six sections balanced as it installs them,
 *                  history on)
 *       finite     fx_zero_nonfinite() over the buffer
 *       fpmode     reading, setting and restoring MXCSR (flush-to-zero), as a kernel call does
 *                  (x86 only; 0 elsewhere)
 *       map        gst_buffer_map(READWRITE) + gst_buffer_unmap() of a fresh buffer
 *       mutex      a GMutex lock + unlock, uncontended
 *       timer      two clock reads (subtracted from every figure above)
 *
 * Every configuration runs --buffers calls after --warmup untimed ones; the configurations of
 * one repetition run in a rotating order, the whole set is repeated --reps times, and the median
 * over repetitions of each run's median is reported. Element figures net of `direct` are the
 * element's own cost per buffer (GStreamer's base class and pads included). */
#include "gst-fx.h"

#include "cascade.h"
#include "cascade_impl.h" /* fxc_build_coefs: the sections as the engine installs them */
#include "chunk.h"
#include "finite.h"
#include "kernel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#define RATE 48000
#define CHANNELS 2
#define SEED_CHAIN                                                                                 \
  "fxbutterworth mode=high-pass cutoff=80 order=4 ! fxbutterworth mode=low-pass cutoff=12000 "     \
  "order=8"

enum {
  CONF_DIRECT = 0,
  CONF_IDENTITY,
  CONF_FXCHAIN,
  CONF_FXCHAIN_NOWARM,
  CONF_FXSOS,
  CONF_CASCADE,
  CONF_CASCADE_NOWARM,
  CONF_CASCADE_ONE,
  CONF_KERNEL,
  CONF_FINITE,
  CONF_FPMODE,
  CONF_MAP,
  CONF_MUTEX,
  CONF_TIMER,
  N_CONF
};
static const char *const conf_names[N_CONF] = {
    "direct",   "identity", "fxchain", "fxchain-nowarm", "fxsos", "cascade", "cascade-nowarm",
    "cascade1", "kernel",   "finite",  "fpmode",         "map",   "mutex",   "timer"};

typedef struct {
  guint frames, buffers, warmup;
  const float *noise; /* noise_frames frames of stereo white noise */
  gsize noise_frames;
  gsize at; /* next frame of noise to use */
  fx_sos_t sos[6];
  gchar *sos_text; /* the six sections in fxsos syntax */
  double *times;   /* [buffers] */
} Bench;

static inline gint64 now_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double median(double *v, guint n)
{
  qsort(v, n, sizeof(double), cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The next buffer's samples (consecutive stretches of the noise, wrapping). */
static const float *next_noise(Bench *b)
{
  if (b->at + b->frames > b->noise_frames)
    b->at = 0;
  const float *p = b->noise + b->at * CHANNELS;
  b->at += b->frames;
  return p;
}

static GstBuffer *make_buffer(Bench *b, guint64 index)
{
  const gsize size = (gsize) b->frames * CHANNELS * sizeof(float);
  GstBuffer *buf = gst_buffer_new_allocate(NULL, size, NULL);

  gst_buffer_fill(buf, 0, next_noise(b), size);
  GST_BUFFER_PTS(buf) = gst_util_uint64_scale_int(index * b->frames, GST_SECOND, RATE);
  GST_BUFFER_DURATION(buf) = gst_util_uint64_scale_int(b->frames, GST_SECOND, RATE);
  GST_BUFFER_OFFSET(buf) = index * b->frames;
  GST_BUFFER_OFFSET_END(buf) = (index + 1) * b->frames;
  return buf;
}

/* ---- element layer ---- */

static GstFlowReturn sink_chain(GstPad *pad, GstObject *parent, GstBuffer *buf)
{
  (void) pad;
  (void) parent;
  gst_buffer_unref(buf);
  return GST_FLOW_OK;
}

static gboolean sink_event(GstPad *pad, GstObject *parent, GstEvent *event)
{
  (void) pad;
  (void) parent;
  gst_event_unref(event);
  return TRUE;
}

static GstElement *make_element(int conf, const Bench *b, GError **error)
{
  GstElement *e = NULL;

  switch (conf) {
  case CONF_IDENTITY:
    e = gst_element_factory_make("identity", NULL);
    break;
  case CONF_FXCHAIN:
  case CONF_FXCHAIN_NOWARM:
    e = fx_tool_make("fxchain", NULL, error);
    if (e)
      g_object_set(e, "chain", SEED_CHAIN, "warm-up", conf == CONF_FXCHAIN, NULL);
    break;
  case CONF_FXSOS:
    e = fx_tool_make("fxsos", NULL, error);
    if (e)
      g_object_set(e, "sections", b->sos_text, NULL);
    break;
  default:
    break;
  }
  if (!e && error && !*error)
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_MISSING_PLUGIN, "cannot make %s",
                conf_names[conf]);
  return e;
}

/* One run of an element configuration: fills b->times; FALSE with *error on failure. */
static gboolean run_element(int conf, Bench *b, GError **error)
{
  GstPad *src = gst_pad_new("src", GST_PAD_SRC), *sink = gst_pad_new("sink", GST_PAD_SINK);
  GstElement *e = NULL;
  GstPad *esink = NULL, *esrc = NULL;
  gboolean ok = FALSE;
  GstCaps *caps;
  GstSegment seg;

  gst_pad_set_chain_function(sink, sink_chain);
  gst_pad_set_event_function(sink, sink_event);
  gst_pad_set_active(src, TRUE);
  gst_pad_set_active(sink, TRUE);
  if (conf == CONF_DIRECT) {
    if (gst_pad_link(src, sink) != GST_PAD_LINK_OK)
      goto link_failed;
  } else {
    e = make_element(conf, b, error);
    if (!e)
      goto out;
    esink = gst_element_get_static_pad(e, "sink");
    esrc = gst_element_get_static_pad(e, "src");
    if (gst_pad_link(src, esink) != GST_PAD_LINK_OK || gst_pad_link(esrc, sink) != GST_PAD_LINK_OK)
      goto link_failed;
    if (gst_element_set_state(e, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
      g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_STATE_CHANGE, "%s: cannot start",
                  conf_names[conf]);
      goto out;
    }
  }
  gst_pad_push_event(src, gst_event_new_stream_start("perbuffer"));
  caps = gst_caps_new_simple("audio/x-raw", "format", G_TYPE_STRING, "F32LE", "rate", G_TYPE_INT,
                             RATE, "channels", G_TYPE_INT, CHANNELS, "layout", G_TYPE_STRING,
                             "interleaved", NULL);
  gst_pad_push_event(src, gst_event_new_caps(caps));
  gst_caps_unref(caps);
  gst_segment_init(&seg, GST_FORMAT_TIME);
  gst_pad_push_event(src, gst_event_new_segment(&seg));

  for (guint i = 0; i < b->warmup + b->buffers; i++) {
    GstBuffer *buf = make_buffer(b, i);
    gint64 t0 = now_ns();
    GstFlowReturn r = gst_pad_push(src, buf);
    gint64 t1 = now_ns();
    if (r != GST_FLOW_OK) {
      g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED, "%s: push returned %s",
                  conf_names[conf], gst_flow_get_name(r));
      goto out;
    }
    if (i >= b->warmup)
      b->times[i - b->warmup] = (double) (t1 - t0);
  }
  ok = TRUE;
  goto out;

link_failed:
  g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION, "%s: link failed",
              conf_names[conf]);
out:
  if (e) {
    gst_element_set_state(e, GST_STATE_NULL);
    gst_object_unref(esink);
    gst_object_unref(esrc);
    gst_object_unref(e);
  }
  gst_pad_set_active(src, FALSE);
  gst_pad_set_active(sink, FALSE);
  gst_object_unref(src);
  gst_object_unref(sink);
  return ok;
}

/* ---- engine layer ---- */

/* What a kernel call does around its loops to flush subnormals: read MXCSR, set FTZ and DAZ,
 * restore it (dsp/kernel_fpmode.h). */
static void fpmode_pair(void)
{
#if defined(__SSE2__)
  const unsigned int m = _mm_getcsr();
  _mm_setcsr(m | 0x8040u);
  __asm__ volatile("" ::: "memory");
  _mm_setcsr(m);
#endif
}

/* The fused stage's cascade (two stages), or with `one` fxsos's (one stage of six sections). */
static fx_cascade_t *make_cascade(const Bench *b, int history, int one)
{
  fx_cascade_t *c = fx_cascade_new();
  const fx_cascade_stage_t stages[2] = {
      {FX_CASCADE_STAGE_SECTIONS, b->sos, one ? 6 : 2, 1.0},
      {FX_CASCADE_STAGE_SECTIONS, b->sos + 2, 4, 1.0},
  };

  fx_cascade_set_history(c, history);
  if (fx_cascade_configure(c, CHANNELS, FX_SAMPLE_F32, FX_PRECISION_AUTO) != FX_OK ||
      fx_cascade_set_stages(c, stages, one ? 1 : 2) != FX_OK) {
    fx_cascade_free(c);
    return NULL;
  }
  fx_cascade_set_crossfade(c, 240); /* GstFxIir's 5 ms */
  return c;
}

static gboolean run_engine(int conf, Bench *b, GError **error)
{
  fx_cascade_t *c = NULL;
  /* the kernel's arrays, as the cascade lays them out for six sections */
  double coef[6 * 5], state[CHANNELS * 6 * 2] = {0}, hist[CHANNELS * 7 * 2] = {0};
  float coef_f[6 * 5], state_f[CHANNELS * 6 * 2] = {0};
  fx_chunk_sec_t ps[6];
  fx_chunk_rec_t rec[CHANNELS * 6];
  const fx_kernel_t *kn = fx_kernel_select();
  int dbl = 1, chunked = 0;
  GMutex mutex;

  g_mutex_init(&mutex);
  if (conf == CONF_CASCADE || conf == CONF_CASCADE_NOWARM || conf == CONF_CASCADE_ONE ||
      conf == CONF_KERNEL) {
    c = make_cascade(b, conf != CONF_CASCADE_NOWARM, conf == CONF_CASCADE_ONE);
    if (!c) {
      g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED, "cannot set up the cascade");
      g_mutex_clear(&mutex);
      return FALSE;
    }
    dbl = fx_cascade_uses_double(c);
    chunked = fx_cascade_uses_chunked(c);
  }
  double ex[7];
  fxc_build_coefs(b->sos, 6, 1.0, coef, ex);
  memset(rec, 0, sizeof(rec));
  for (int k = 0; k < 6; k++) {
    for (int j = 0; j < 5; j++)
      coef_f[5 * k + j] = (float) coef[5 * k + j];
    fx_chunk_sec_build(ps + k, coef + 5 * k);
  }
  /* Each call gets a fresh buffer made as the element layer's are (the same allocations, so the
   * same relative addresses of buffer and engine), mapped before the clock starts except for
   * `map`, which times that. */
  for (guint i = 0; i < b->warmup + b->buffers; i++) {
    GstBuffer *buf = make_buffer(b, i);
    GstMapInfo map;
    float *data = NULL;
    if (conf != CONF_MAP) {
      if (!gst_buffer_map(buf, &map, GST_MAP_READWRITE)) {
        g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED, "cannot map a buffer");
        gst_buffer_unref(buf);
        break;
      }
      data = (float *) map.data;
    }
    gint64 t0 = now_ns();
    switch (conf) {
    case CONF_CASCADE:
    case CONF_CASCADE_NOWARM:
    case CONF_CASCADE_ONE:
      fx_cascade_process(c, data, b->frames);
      break;
    case CONF_KERNEL:
      if (chunked && dbl)
        kn->ck_f32_d(coef, ps, rec, state, hist, 6, 6, data, b->frames, CHANNELS);
      else if (chunked)
        kn->ck_f32_s(coef_f, ps, rec, state_f, hist, 6, 6, data, b->frames, CHANNELS);
      else if (dbl)
        kn->f32_d(coef, state, hist, 6, 6, data, b->frames, CHANNELS);
      else
        kn->f32_s(coef_f, state_f, hist, 6, 6, data, b->frames, CHANNELS);
      break;
    case CONF_FINITE:
      fx_zero_nonfinite(data, (size_t) b->frames * CHANNELS, 0);
      break;
    case CONF_FPMODE:
      fpmode_pair();
      break;
    case CONF_MAP:
      if (gst_buffer_map(buf, &map, GST_MAP_READWRITE))
        gst_buffer_unmap(buf, &map);
      break;
    case CONF_MUTEX:
      g_mutex_lock(&mutex);
      g_mutex_unlock(&mutex);
      break;
    default:
      break;
    }
    gint64 t1 = now_ns();
    if (conf != CONF_MAP)
      gst_buffer_unmap(buf, &map);
    gst_buffer_unref(buf);
    if (i >= b->warmup)
      b->times[i - b->warmup] = (double) (t1 - t0);
  }
  g_mutex_clear(&mutex);
  fx_cascade_free(c);
  return error == NULL || *error == NULL;
}

static gboolean run_conf(int conf, Bench *b, double *out, GError **error)
{
  gboolean ok = conf <= CONF_FXSOS ? run_element(conf, b, error) : run_engine(conf, b, error);

  if (ok)
    *out = median(b->times, b->buffers);
  return ok;
}

/* The six sections of the seed chain at 48 kHz, as its two fxbutterworth elements design them. */
static gboolean design_seed(Bench *b)
{
  const fx_iir_spec_t hp = {.family = FX_FAMILY_BUTTERWORTH,
                            .mode = FX_MODE_HIGH_PASS,
                            .order = 4,
                            .rate = RATE,
                            .cutoff = 80};
  const fx_iir_spec_t lp = {.family = FX_FAMILY_BUTTERWORTH,
                            .mode = FX_MODE_LOW_PASS,
                            .order = 8,
                            .rate = RATE,
                            .cutoff = 12000};
  int n1 = 0, n2 = 0;
  GString *s = g_string_new(NULL);

  if (fx_design_iir(&hp, b->sos, 2, &n1) != FX_OK || n1 != 2 ||
      fx_design_iir(&lp, b->sos + 2, 4, &n2) != FX_OK || n2 != 4)
    return FALSE;
  for (int k = 0; k < 6; k++) {
    const double row[6] = {b->sos[k].b0, b->sos[k].b1, b->sos[k].b2,
                           1.0,          b->sos[k].a1, b->sos[k].a2};
    for (int j = 0; j < 6; j++) {
      char t[G_ASCII_DTOSTR_BUF_SIZE];
      g_string_append(s, k == 0 && j == 0 ? "" : j == 0 ? "; " : " ");
      g_string_append(s, g_ascii_formatd(t, sizeof(t), "%.17g", row[j]));
    }
  }
  b->sos_text = g_string_free(s, FALSE);
  return TRUE;
}

static gchar *loadavg(void)
{
  gchar *text = NULL;

  if (!g_file_get_contents("/proc/loadavg", &text, NULL, NULL))
    return g_strdup("?");
  g_strstrip(text);
  gchar **parts = g_strsplit(text, " ", 4);
  gchar *out = g_strdup_printf("%s %s %s", parts[0], parts[1] ? parts[1] : "?",
                               parts[1] && parts[2] ? parts[2] : "?");
  g_strfreev(parts);
  g_free(text);
  return out;
}

int main(int argc, char **argv)
{
  gchar *frames_text = NULL, *only = NULL, *label = NULL;
  gint reps = 9, buffers = 4000, warmup = 300;
  gboolean csv = FALSE;
  const GOptionEntry entries[] = {
      {"frames", 'f', 0, G_OPTION_ARG_STRING, &frames_text,
       "Comma-separated frames per buffer (default 128,512)", "F,F,..."},
      {"reps", 'r', 0, G_OPTION_ARG_INT, &reps, "Repetitions of the whole set (default 9)", "N"},
      {"buffers", 'b', 0, G_OPTION_ARG_INT, &buffers, "Timed calls per run (default 4000)", "N"},
      {"warmup", 'w', 0, G_OPTION_ARG_INT, &warmup, "Untimed calls first (default 300)", "N"},
      {"only", 'o', 0, G_OPTION_ARG_STRING, &only,
       "Comma-separated configurations to run (default all; e.g. fxchain for a perf record)",
       "NAMES"},
      {"csv", 0, 0, G_OPTION_ARG_NONE, &csv, "Print one CSV row per configuration and size", NULL},
      {"label", 'l', 0, G_OPTION_ARG_STRING, &label, "A label for the CSV rows (e.g. A or B)",
       "TEXT"},
      {NULL, 0, 0, 0, NULL, NULL, NULL},
  };
  GOptionContext *ctx = g_option_context_new(NULL);
  GArray *frames = NULL;
  GError *error = NULL;
  gboolean run[N_CONF];
  Bench b = {0};

  g_set_prgname("fx-bench-perbuffer");
  g_option_context_set_summary(ctx, "Per-buffer cost of the seed chain on short stereo F32 "
                                    "buffers, by layer (element, engine, kernel, scan, map).");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (fx_tool_parse_command_line(ctx, &argc, &argv) != FX_EXIT_OK)
    return FX_EXIT_USAGE;
  if (!fx_tool_parse_uint_list(frames_text ? frames_text : "128,512", 1 << 20, &frames) ||
      reps < 1 || buffers < 1 || warmup < 0)
    return fx_tool_usage_error(ctx, "bad arguments (frames 1..1048576, reps >= 1, buffers >= 1)");
  for (int c = 0; c < N_CONF; c++) {
    run[c] = only == NULL;
    if (only) {
      gchar **names = g_strsplit(only, ",", -1);
      for (gchar **n = names; *n; n++)
        run[c] |= strcmp(*n, conf_names[c]) == 0;
      g_strfreev(names);
    }
  }
  g_option_context_free(ctx);
  fx_tool_init();

  if (!design_seed(&b)) {
    fprintf(stderr, "fx-bench-perbuffer: the seed chain cannot be designed\n");
    return FX_EXIT_FAILURE;
  }
  b.buffers = (guint) buffers;
  b.warmup = (guint) warmup;
  b.times = g_new(double, b.buffers);
  b.noise_frames = (gsize) RATE * 2;
  float *noise = g_new(float, b.noise_frames *CHANNELS);
  GRand *rand = g_rand_new_with_seed(12345);
  for (gsize i = 0; i < b.noise_frames * CHANNELS; i++)
    noise[i] = (float) g_rand_double_range(rand, -0.5, 0.5);
  g_rand_free(rand);
  b.noise = noise;

  const guint nf = frames->len, nr = (guint) reps;
  double *res = g_new0(double, (gsize) nf *N_CONF *nr); /* [f][conf][rep] */
  gchar *load_start = loadavg();
  for (guint r = 0; r < nr; r++)
    for (guint f = 0; f < nf; f++) {
      b.frames = g_array_index(frames, guint, f);
      for (int j = 0; j < N_CONF; j++) {
        int c = (int) ((j + r) % N_CONF);
        if (!run[c])
          continue;
        if (!run_conf(c, &b, &res[((gsize) f * N_CONF + (gsize) c) * nr + r], &error)) {
          fprintf(stderr, "fx-bench-perbuffer: %s\n", error->message);
          return FX_EXIT_FAILURE;
        }
      }
    }
  gchar *load_end = loadavg();

  if (!csv)
    printf("seed chain, stereo F32 %d Hz; median over %u repetitions of each run's median of %u "
           "calls (ns per call, timer pair subtracted); load %s -> %s\n",
           RATE, nr, b.buffers, load_start, load_end);
  for (guint f = 0; f < nf; f++) {
    double med[N_CONF];
    for (int c = 0; c < N_CONF; c++)
      med[c] = run[c] ? median(&res[((gsize) f * N_CONF + (gsize) c) * nr], nr) : NAN;
    const double timer = run[CONF_TIMER] ? med[CONF_TIMER] : 0.0;
    if (!csv)
      printf("\n%u frames:\n", g_array_index(frames, guint, f));
    for (int c = 0; c < N_CONF; c++) {
      if (!run[c])
        continue;
      const double v = c == CONF_TIMER ? med[c] : med[c] - timer;
      const double net = c >= CONF_IDENTITY && c <= CONF_FXSOS && run[CONF_DIRECT]
                             ? med[c] - med[CONF_DIRECT]
                             : NAN;
      if (csv)
        printf("%s,%u,%s,%.1f,%.1f\n", label ? label : "", g_array_index(frames, guint, f),
               conf_names[c], v, net);
      else if (isnan(net))
        printf("  %-15s %8.1f ns\n", conf_names[c], v);
      else
        printf("  %-15s %8.1f ns   net of direct %8.1f ns\n", conf_names[c], v, net);
    }
  }
  g_free(res);
  g_free(noise);
  g_free(b.times);
  g_free(b.sos_text);
  g_free(load_start);
  g_free(load_end);
  g_array_unref(frames);
  g_free(frames_text);
  g_free(only);
  g_free(label);
  return FX_EXIT_OK;
}
