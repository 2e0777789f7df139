/* gst-fx — fusion benchmark: fxchain fused vs unfused throughput on the CPU.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For each depth K: a chain of K IIR stages (fx_tool_iir_chain, the chains `gst-fx
 * count-dispatches` uses: fxbiquad, fxbutterworth, fxsos in turn, one section each), stereo F32 at
 * 48 kHz in 1024-frame buffers, through real pipelines
 *
 *   appsrc ! fxchain chain="…" fuse=true|false device=cpu ! fakesink sync=false
 *   appsrc ! identity ! fakesink sync=false                        (baseline)
 *
 * appsrc pushes a copy of one pre-generated white-noise buffer from its need-data callback, so
 * source, filter and sink all run in the one streaming thread and their costs add up; the
 * identity pipeline's cost (source, copy, sink, per-buffer overhead) is subtracted to give the net
 * cost of the fxchain. Time is taken by a probe on fakesink's sink pad between buffer W (warm-up)
 * and the last buffer. Identity, fused and unfused runs are interleaved (their order rotates), the
 * whole set is repeated --reps times, and medians are reported.
 *
 * Writes a table on stdout, every sample to OUT/fusion.csv and the summary to OUT/fusion.md. */
#include "gst-fx.h"

#include <gst/app/gstappsrc.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RATE 48000
#define CHANNELS 2

enum { CONF_IDENTITY = 0, CONF_FUSED, CONF_UNFUSED, N_CONF };
static const char *const conf_names[N_CONF] = {"identity", "fused", "unfused"};

typedef struct {
  /* settings */
  guint frames, buffers, warmup;
  /* state */
  GstAppSrc *src;
  const float *data;
  gsize size;
  guint pushed, seen;
  gint64 t0, t1; /* ns */
} Feed;

static gint64 now_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void need_data(GstAppSrc *src, guint length, gpointer user_data)
{
  Feed *f = user_data;
  (void) length;

  if (f->pushed >= f->buffers) {
    gst_app_src_end_of_stream(src);
    return;
  }
  GstBuffer *buf = gst_buffer_new_allocate(NULL, f->size, NULL);
  gst_buffer_fill(buf, 0, f->data, f->size);
  GST_BUFFER_PTS(buf) =
      gst_util_uint64_scale_int((guint64) f->pushed * f->frames, GST_SECOND, RATE);
  GST_BUFFER_DURATION(buf) = gst_util_uint64_scale_int(f->frames, GST_SECOND, RATE);
  GST_BUFFER_OFFSET(buf) = (guint64) f->pushed * f->frames;
  GST_BUFFER_OFFSET_END(buf) = GST_BUFFER_OFFSET(buf) + f->frames;
  f->pushed++;
  gst_app_src_push_buffer(src, buf);
}

static GstPadProbeReturn on_buffer(GstPad *pad, GstPadProbeInfo *info, gpointer user_data)
{
  Feed *f = user_data;
  (void) pad;
  (void) info;

  f->seen++;
  if (f->seen == f->warmup)
    f->t0 = now_ns();
  else if (f->seen == f->buffers)
    f->t1 = now_ns();
  return GST_PAD_PROBE_OK;
}

typedef struct {
  double ns_per_buffer;
  double dispatches_per_buffer; /* -1 for identity */
  gchar *backend;
  guint plan_stages;
} Sample;

/* One run; FALSE with *error on a pipeline error. */
static gboolean measure(int conf, guint depth, Feed *f, Sample *out, GError **error)
{
  GstElement *pipeline = gst_pipeline_new(NULL);
  GstElement *src = gst_element_factory_make("appsrc", NULL);
  GstElement *mid;
  GstElement *sink = gst_element_factory_make("fakesink", NULL);
  GstCaps *caps;
  GstPad *pad;
  gboolean ok = FALSE;
  GstAppSrcCallbacks cb = {.need_data = need_data};

  if (conf == CONF_IDENTITY) {
    mid = gst_element_factory_make("identity", NULL);
  } else {
    mid = fx_tool_make("fxchain", NULL, error);
    if (mid == NULL) {
      gst_object_unref(pipeline);
      gst_object_unref(src);
      gst_object_unref(sink);
      return FALSE;
    }
    gchar *chain = fx_tool_iir_chain(depth);
    g_object_set(mid, "chain", chain, "fuse", conf == CONF_FUSED, NULL);
    gst_util_set_object_arg(G_OBJECT(mid), "device", "cpu");
    g_free(chain);
  }
  caps = gst_caps_new_simple("audio/x-raw", "format", G_TYPE_STRING, "F32LE", "rate", G_TYPE_INT,
                             RATE, "channels", G_TYPE_INT, CHANNELS, "layout", G_TYPE_STRING,
                             "interleaved", NULL);
  g_object_set(src, "caps", caps, "format", GST_FORMAT_TIME, "is-live", FALSE, NULL);
  gst_caps_unref(caps);
  g_object_set(sink, "sync", FALSE, NULL);
  gst_bin_add_many(GST_BIN(pipeline), src, mid, sink, NULL);
  if (!gst_element_link_many(src, mid, sink, NULL)) {
    g_set_error_literal(error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION, "link failed");
    gst_object_unref(pipeline);
    return FALSE;
  }
  f->src = GST_APP_SRC(src);
  f->pushed = f->seen = 0;
  f->t0 = f->t1 = 0;
  gst_app_src_set_callbacks(f->src, &cb, f, NULL);
  pad = gst_element_get_static_pad(sink, "sink");
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, f, NULL);
  gst_object_unref(pad);

  if (fx_tool_run_to_eos(pipeline, NULL, error)) {
    if (f->seen != f->buffers || f->t1 <= f->t0) {
      g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
                  "%s depth %u: %u of %u buffers reached the sink", conf_names[conf], depth,
                  f->seen, f->buffers);
    } else {
      memset(out, 0, sizeof(*out));
      out->ns_per_buffer = (double) (f->t1 - f->t0) / (f->buffers - f->warmup);
      out->dispatches_per_buffer = -1;
      if (conf != CONF_IDENTITY) {
        guint64 d = 0;
        gchar *plan = NULL;
        if (fx_tool_get_u64(mid, "dispatches", &d))
          out->dispatches_per_buffer = (double) d / f->buffers;
        g_object_get(mid, "backend", &out->backend, "plan", &plan, NULL);
        for (const char *p = plan; p != NULL && *p != '\0'; p++)
          if (*p == '\n' || p[1] == '\0')
            out->plan_stages++;
        g_free(plan);
      }
      ok = TRUE;
    }
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return ok;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Median, min and max of n values (sorts a copy). */
static void stats(const double *v, guint n, double *median, double *min, double *max)
{
  double *c = g_memdup2(v, n * sizeof(double));

  qsort(c, n, sizeof(double), cmp_double);
  *median = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
  *min = c[0];
  *max = c[n - 1];
  g_free(c);
}

static gchar *cpu_model(void)
{
  gchar *text = NULL, *model = NULL;

  if (g_file_get_contents("/proc/cpuinfo", &text, NULL, NULL)) {
    gchar **lines = g_strsplit(text, "\n", -1);
    for (gchar **l = lines; *l != NULL && model == NULL; l++)
      if (g_str_has_prefix(*l, "model name")) {
        const char *colon = strchr(*l, ':');
        if (colon != NULL)
          model = g_strstrip(g_strdup(colon + 1));
      }
    g_strfreev(lines);
    g_free(text);
  }
  return model != NULL ? model : g_strdup("unknown CPU");
}

static gchar *loadavg(void)
{
  gchar *text = NULL;

  if (!g_file_get_contents("/proc/loadavg", &text, NULL, NULL))
    return g_strdup("?");
  gchar **parts = g_strsplit(g_strstrip(text), " ", 4);
  gchar *out = g_strdup_printf("%s %s %s", parts[0], parts[1] ? parts[1] : "?",
                               parts[1] && parts[2] ? parts[2] : "?");
  g_strfreev(parts);
  g_free(text);
  return out;
}

int main(int argc, char **argv)
{
  gchar *depths_text = NULL, *out_dir = NULL, *label = NULL;
  gint reps = 7, buffers = 3000, warmup = 200, frames = 1024;
  gdouble fma_bound = 0; /* ns per channel-sample and section in float, 0 = not given */
  const GOptionEntry entries[] = {
      {"depths", 'k', 0, G_OPTION_ARG_STRING, &depths_text,
       "Comma-separated chain depths (default 2,5,10,20)", "K,K,..."},
      {"reps", 'r', 0, G_OPTION_ARG_INT, &reps, "Repetitions of the whole set (default 7)", "N"},
      {"buffers", 'b', 0, G_OPTION_ARG_INT, &buffers, "Buffers per run (default 3000)", "N"},
      {"warmup", 'w', 0, G_OPTION_ARG_INT, &warmup,
       "Buffers per run before the clock starts (default 200)", "N"},
      {"frames", 'f', 0, G_OPTION_ARG_INT, &frames, "Frames per buffer (default 1024)", "F"},
      {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out_dir,
       "Directory for fusion.csv and fusion.md (default: none written)", "DIR"},
      {"label", 'l', 0, G_OPTION_ARG_STRING, &label, "A note for the report (e.g. the commit)",
       "TEXT"},
      {"fma-bound", 0, 0, G_OPTION_ARG_DOUBLE, &fma_bound,
       "This machine's float FMA-throughput bound in ns per channel-sample and section "
       "(bench/run-fusion.sh measures it), for a column of fused time / bound",
       "NS"},
      {NULL, 0, 0, 0, NULL, NULL, NULL},
  };
  GOptionContext *ctx = g_option_context_new(NULL);
  GArray *depths = NULL;
  GError *error = NULL;

  g_set_prgname("fx-bench-fusion");
  g_option_context_set_summary(ctx, "fxchain fused vs unfused throughput on the CPU (stereo F32, "
                                    "48 kHz), net of an identity pipeline.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!fx_tool_parse_options(ctx, &argc, &argv))
    return FX_EXIT_USAGE;
  if (!fx_tool_parse_uint_list(depths_text ? depths_text : "2,5,10,20", 256, &depths) || reps < 1 ||
      frames < 1 || warmup < 1 || buffers <= warmup || fma_bound < 0)
    return fx_tool_usage_error(ctx, "bad arguments (depths 1..256, reps >= 1, buffers > warmup)");
  g_option_context_free(ctx);

  fx_tool_init();

  guint nd = depths->len, nr = (guint) reps;
  /* samples[(d * N_CONF + c) * nr + r] */
  Sample *samples = g_new0(Sample, nd * N_CONF * nr);
  float *data = g_new(float, (gsize) frames *CHANNELS);
  GRand *rand = g_rand_new_with_seed(12345);
  for (gint i = 0; i < frames * CHANNELS; i++)
    data[i] = (float) g_rand_double_range(rand, -0.5, 0.5);
  g_rand_free(rand);
  Feed feed = {.frames = (guint) frames,
               .buffers = (guint) buffers,
               .warmup = (guint) warmup,
               .data = data,
               .size = (gsize) frames * CHANNELS * sizeof(float)};

  GDateTime *start = g_date_time_new_now_utc();
  gchar *load_start = loadavg();
  gint64 t_start = now_ns();
  for (guint r = 0; r < nr; r++) {
    for (guint d = 0; d < nd; d++) {
      guint depth = g_array_index(depths, guint, d);
      for (guint j = 0; j < N_CONF; j++) {
        int c = (int) ((j + r + d) % N_CONF); /* rotate the order */
        if (!measure(c, depth, &feed, &samples[(d * N_CONF + c) * nr + r], &error)) {
          fprintf(stderr, "fx-bench-fusion: %s\n", error->message);
          return FX_EXIT_FAILURE;
        }
      }
    }
    fprintf(stderr, "rep %u/%u done\n", r + 1, nr);
  }
  double seconds = (now_ns() - t_start) * 1e-9;
  gchar *load_end = loadavg();

  /* The identity baseline: the median over every identity run. */
  double *v = g_new(double, MAX(nr, nd * nr));
  double id_med, id_min, id_max;
  for (guint d = 0; d < nd; d++)
    for (guint r = 0; r < nr; r++)
      v[d * nr + r] = samples[(d * N_CONF + CONF_IDENTITY) * nr + r].ns_per_buffer;
  stats(v, nd * nr, &id_med, &id_min, &id_max);

  gchar *model = cpu_model();
  gchar *date = g_date_time_format(start, "%Y-%m-%d %H:%M UTC");
  gchar *gstver = gst_version_string();
  GString *md = g_string_new(NULL);
  g_string_append_printf(md, "# fxchain fusion benchmark\n\n");
  g_string_append_printf(
      md,
      "- date: %s; machine: %s, %u logical CPUs; load average %s at start, %s at end\n"
      "- %s%s%s\n"
      "- stereo F32LE, 48 kHz, %d-frame buffers; %d buffers per run, the first %d not timed; "
      "%d repetitions, identity/fused/unfused interleaved; medians (min–max)\n"
      "- chains: K IIR stages of one section each (fxbiquad peaking, fxbutterworth order-2 "
      "high-pass, fxsos low-pass row, in turn), `device=cpu`\n"
      "- identity pipeline (appsrc ! identity ! fakesink): %.2f µs/buffer (%.2f–%.2f), "
      "subtracted to give *net*\n"
      "- speed-up = unfused time / fused time (medians; the fastest-runs column uses each "
      "configuration's fastest run, least disturbed by other load); ns/sample = net ns per "
      "channel-sample per "
      "section\n\n",
      date, model, g_get_num_processors(), load_start, load_end, gstver, label ? "; " : "",
      label ? label : "", frames, buffers, warmup, reps, id_med * 1e-3, id_min * 1e-3,
      id_max * 1e-3);
  if (fma_bound > 0)
    g_string_append_printf(md,
                           "FMA-throughput bound of this machine (float, every lane busy; "
                           "measured by bench/run-fusion.sh as bench/compare.py does): %.4f ns "
                           "per channel-sample and section; *× bound* = fused net ns/sample ÷ "
                           "bound.\n\n",
                           fma_bound);
  g_string_append(md, "| depth | fused µs/buf | unfused µs/buf | fused net | unfused net | "
                      "speed-up raw | speed-up net | speed-up (fastest runs, net) | fused "
                      "ns/sample | × bound | dispatches/buf f/u | "
                      "fused backend |\n");
  g_string_append(md, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");

  printf("\n%s, %s\n", model, date);
  printf("identity: %.2f us/buffer (median of %u runs)\n\n", id_med * 1e-3, nd * nr);
  printf("%5s | %17s %17s | %9s %9s | %8s %8s %8s | %9s | %s\n", "depth", "fused us/buf",
         "unfused us/buf", "fused net", "unf. net", "x raw", "x net", "x min", "ns/sample",
         "disp f/u");
  for (guint d = 0; d < nd; d++) {
    guint depth = g_array_index(depths, guint, d);
    double med[N_CONF], lo[N_CONF], hi[N_CONF];
    for (int c = 0; c < N_CONF; c++) {
      for (guint r = 0; r < nr; r++)
        v[r] = samples[(d * N_CONF + c) * nr + r].ns_per_buffer;
      stats(v, nr, &med[c], &lo[c], &hi[c]);
    }
    double fnet = med[CONF_FUSED] - id_med, unet = med[CONF_UNFUSED] - id_med;
    double sp_raw = med[CONF_UNFUSED] / med[CONF_FUSED];
    double sp_net = fnet > 0 ? unet / fnet : NAN;
    /* The fastest run of each: least disturbed by other load on the machine. */
    double sp_min =
        lo[CONF_FUSED] - id_min > 0 ? (lo[CONF_UNFUSED] - id_min) / (lo[CONF_FUSED] - id_min) : NAN;
    double ns_sample = fnet / ((double) frames * CHANNELS * depth);
    const Sample *fs = &samples[(d * N_CONF + CONF_FUSED) * nr];
    const Sample *us = &samples[(d * N_CONF + CONF_UNFUSED) * nr];
    printf("%5u | %7.2f (%3.0f%%) %8.2f (%3.0f%%) | %9.2f %9.2f | %7.2fx %7.2fx %7.2fx | %9.3f | "
           "%.2f/%.2f %s\n",
           depth, med[CONF_FUSED] * 1e-3, 100 * (hi[CONF_FUSED] - lo[CONF_FUSED]) / med[CONF_FUSED],
           med[CONF_UNFUSED] * 1e-3,
           100 * (hi[CONF_UNFUSED] - lo[CONF_UNFUSED]) / med[CONF_UNFUSED], fnet * 1e-3,
           unet * 1e-3, sp_raw, sp_net, sp_min, ns_sample, fs->dispatches_per_buffer,
           us->dispatches_per_buffer, fs->backend ? fs->backend : "?");
    gchar *times_bound =
        fma_bound > 0 ? g_strdup_printf("%.1f×", ns_sample / fma_bound) : g_strdup("–");
    g_string_append_printf(md,
                           "| %u | %.2f (%.2f–%.2f) | %.2f (%.2f–%.2f) | %.2f | %.2f | %.2f× | "
                           "%.2f× | %.2f× | %.3f | %s | %.2f / %.2f | %s |\n",
                           depth, med[CONF_FUSED] * 1e-3, lo[CONF_FUSED] * 1e-3,
                           hi[CONF_FUSED] * 1e-3, med[CONF_UNFUSED] * 1e-3, lo[CONF_UNFUSED] * 1e-3,
                           hi[CONF_UNFUSED] * 1e-3, fnet * 1e-3, unet * 1e-3, sp_raw, sp_net,
                           sp_min, ns_sample, times_bound, fs->dispatches_per_buffer,
                           us->dispatches_per_buffer, fs->backend ? fs->backend : "?");
    g_free(times_bound);
  }
  printf("\n(%% = (max - min) / median over %d repetitions; x = unfused time / fused time, of "
         "medians (raw, net) and of the fastest runs (min, net); "
         "%.0f s in all)\n",
         reps, seconds);
  g_string_append_printf(md, "\nTotal run time %.0f s. Raw samples: `fusion.csv`.\n", seconds);

  if (out_dir != NULL) {
    g_mkdir_with_parents(out_dir, 0755);
    gchar *md_path = g_build_filename(out_dir, "fusion.md", NULL);
    gchar *csv_path = g_build_filename(out_dir, "fusion.csv", NULL);
    GString *csv = g_string_new("rep,depth,config,ns_per_buffer,net_ns_per_buffer,"
                                "dispatches_per_buffer,plan_stages,backend\n");
    for (guint r = 0; r < nr; r++)
      for (guint d = 0; d < nd; d++)
        for (int c = 0; c < N_CONF; c++) {
          const Sample *s = &samples[(d * N_CONF + c) * nr + r];
          g_string_append_printf(csv, "%u,%u,%s,%.1f,%.1f,", r, g_array_index(depths, guint, d),
                                 conf_names[c], s->ns_per_buffer, s->ns_per_buffer - id_med);
          if (c == CONF_IDENTITY)
            g_string_append(csv, ",,\n");
          else
            g_string_append_printf(csv, "%.4f,%u,%s\n", s->dispatches_per_buffer, s->plan_stages,
                                   s->backend ? s->backend : "");
        }
    if (!g_file_set_contents(md_path, md->str, -1, &error) ||
        !g_file_set_contents(csv_path, csv->str, -1, &error)) {
      fprintf(stderr, "fx-bench-fusion: %s\n", error->message);
      return FX_EXIT_FAILURE;
    }
    printf("wrote %s and %s\n", md_path, csv_path);
    g_free(md_path);
    g_free(csv_path);
    g_string_free(csv, TRUE);
  }

  for (guint i = 0; i < nd * N_CONF * nr; i++)
    g_free(samples[i].backend);
  g_free(samples);
  g_free(v);
  g_free(data);
  g_free(model);
  g_free(date);
  g_free(gstver);
  g_free(load_start);
  g_free(load_end);
  g_date_time_unref(start);
  g_string_free(md, TRUE);
  g_array_unref(depths);
  g_free(depths_text);
  g_free(out_dir);
  g_free(label);
  return FX_EXIT_OK;
}
