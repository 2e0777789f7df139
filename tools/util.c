/* gst-fx — helpers shared by the commands (and the fusion benchmark): finding the plugin, option
 * parsing, running a pipeline to EOS, the IIR test chains.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "gst-fx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void fx_tool_find_plugin(void)
{
  GstRegistry *registry = gst_registry_get();
  const char *dir = g_getenv("GST_FX_PLUGIN_DIR");

  if (dir != NULL && *dir != '\0') {
    gst_registry_scan_path(registry, dir);
    return;
  }
#ifdef FX_PLUGIN_DIR
  GstElementFactory *factory = gst_element_factory_find("fxchain");
  if (factory != NULL) {
    gst_object_unref(factory);
    return;
  }
  if (g_file_test(FX_PLUGIN_DIR, G_FILE_TEST_IS_DIR))
    gst_registry_scan_path(registry, FX_PLUGIN_DIR);
#endif
}

int fx_tool_usage_error(GOptionContext *ctx, const char *format, ...)
{
  va_list ap;
  gchar *msg, *help;

  va_start(ap, format);
  msg = g_strdup_vprintf(format, ap);
  va_end(ap);
  help = g_option_context_get_help(ctx, TRUE, NULL);
  fprintf(stderr, "gst-fx: %s\n\n%s", msg, help);
  g_free(help);
  g_free(msg);
  return FX_EXIT_USAGE;
}

gboolean fx_tool_parse_options(GOptionContext *ctx, int *argc, char ***argv)
{
  GError *error = NULL;

  if (!g_option_context_parse(ctx, argc, argv, &error)) {
    fx_tool_usage_error(ctx, "%s", error->message);
    g_error_free(error);
    return FALSE;
  }
  return TRUE;
}

int fx_tool_parse_command_line(GOptionContext *ctx, int *argc, char ***argv)
{
  if (!fx_tool_parse_options(ctx, argc, argv))
    return FX_EXIT_USAGE;
  if (*argc > 1)
    return fx_tool_usage_error(ctx, "unexpected argument \"%s\"", (*argv)[1]);
  return FX_EXIT_OK;
}

void fx_tool_print_warnings(const GPtrArray *warnings)
{
  for (guint i = 0; warnings != NULL && i < warnings->len; i++)
    fprintf(stderr, "gst-fx: warning: %s\n", (const char *) g_ptr_array_index(warnings, i));
}

void fx_tool_pipeline_free(GstElement *pipeline)
{
  if (pipeline == NULL)
    return;
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

GstElement *fx_tool_make(const char *factory, const char *name, GError **error)
{
  GstElement *element = gst_element_factory_make(factory, name);

  if (element == NULL)
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_MISSING_PLUGIN,
                "no element \"%s\" (is the gst-fx plugin built? set GST_PLUGIN_PATH_1_0 or "
                "GST_FX_PLUGIN_DIR to <build>/gst)",
                factory);
  return element;
}

static void add_warning(GPtrArray **warnings, const char *message)
{
  if (warnings == NULL)
    return;
  if (*warnings == NULL)
    *warnings = g_ptr_array_new_with_free_func(g_free);
  if (g_ptr_array_find_with_equal_func(*warnings, message, g_str_equal, NULL))
    return;
  g_ptr_array_add(*warnings, g_strdup(message));
}

/* The bus message as one line: newlines become spaces. */
static void set_one_line_error(GError **error, const GError *err)
{
  gchar *line = g_strdup(err->message != NULL ? err->message : "unknown error");

  g_strdelimit(line, "\r\n", ' ');
  g_set_error_literal(error, err->domain, err->code, line);
  g_free(line);
}

gboolean fx_tool_run_to_eos(GstElement *pipeline, GPtrArray **warnings, GError **error)
{
  GstBus *bus = gst_element_get_bus(pipeline);
  gboolean ok = FALSE;
  gboolean failed_start = FALSE;

  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    failed_start = TRUE;

  for (;;) {
    /* After a failed state change the error (if any) is already on the bus. */
    GstMessage *msg =
        gst_bus_timed_pop_filtered(bus, failed_start ? 0 : GST_CLOCK_TIME_NONE,
                                   GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    GError *err = NULL;

    if (msg == NULL) {
      g_set_error_literal(error, GST_CORE_ERROR, GST_CORE_ERROR_STATE_CHANGE,
                          "the pipeline failed to start");
      break;
    }
    switch (GST_MESSAGE_TYPE(msg)) {
    case GST_MESSAGE_EOS:
      ok = TRUE;
      break;
    case GST_MESSAGE_ERROR:
      gst_message_parse_error(msg, &err, NULL);
      set_one_line_error(error, err);
      g_error_free(err);
      break;
    case GST_MESSAGE_WARNING:
      gst_message_parse_warning(msg, &err, NULL);
      add_warning(warnings, err->message);
      g_error_free(err);
      break;
    default:
      break;
    }
    gboolean done = GST_MESSAGE_TYPE(msg) != GST_MESSAGE_WARNING;
    gst_message_unref(msg);
    if (done)
      break;
  }
  gst_object_unref(bus);
  return ok;
}

gchar *fx_tool_iir_chain(guint depth)
{
  GString *s = g_string_new(NULL);

  for (guint i = 0; i < depth; i++) {
    if (i > 0)
      g_string_append(s, " ! ");
    switch (i % 3) {
    case 0:
      /* peaking bells spread over 100 Hz .. 12.8 kHz, alternating boost and cut */
      g_string_append_printf(s, "fxbiquad name=s%u type=peaking frequency=%u q=1.0 gain=%s", i,
                             100u << ((i / 3) % 8), (i / 3) % 2 ? "-1.5" : "1.5");
      break;
    case 1:
      g_string_append_printf(s, "fxbutterworth name=s%u mode=high-pass cutoff=%u order=2", i,
                             20 + i);
      break;
    default:
      /* scipy.signal.butter(2, 0.8, output='sos'): a 19.2 kHz low-pass at 48 kHz */
      g_string_append_printf(s,
                             "fxsos name=s%u sections=\"0.63894553 1.27789105 0.63894553 1 "
                             "1.1429805 0.4128016\"",
                             i);
      break;
    }
  }
  return g_string_free(s, FALSE);
}

gboolean fx_tool_parse_uint_list(const char *text, guint max, GArray **out)
{
  gchar **parts;
  GArray *values;
  gboolean ok = TRUE;

  if (text == NULL || *text == '\0')
    return FALSE;
  parts = g_strsplit(text, ",", -1);
  values = g_array_new(FALSE, FALSE, sizeof(guint));
  for (gchar **p = parts; *p != NULL; p++) {
    gchar *end = NULL;
    gchar *item = g_strstrip(*p);
    guint64 v;

    if (*item == '\0' || !g_ascii_isdigit(*item)) {
      ok = FALSE;
      break;
    }
    v = g_ascii_strtoull(item, &end, 10);
    if (*end != '\0' || v < 1 || v > max) {
      ok = FALSE;
      break;
    }
    guint u = (guint) v;
    g_array_append_val(values, u);
  }
  g_strfreev(parts);
  if (!ok) {
    g_array_unref(values);
    return FALSE;
  }
  *out = values;
  return TRUE;
}

void fx_tool_init(void)
{
  gst_init(NULL, NULL);
  fx_tool_find_plugin();
}

gboolean fx_tool_get_u64(gpointer object, const char *property, guint64 *value)
{
  GParamSpec *pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(object), property);

  if (pspec == NULL || pspec->value_type != G_TYPE_UINT64)
    return FALSE;
  g_object_get(object, property, value, NULL);
  return TRUE;
}

void fx_tool_chain_run_init(FxChainRun *run, const char *chain, gboolean fuse, const char *device)
{
  *run = (FxChainRun){
      .chain = chain,
      .fuse = fuse,
      .device = device,
      .precision = NULL,
      .format = "F32LE",
      .rate = 48000,
      .channels = 2,
      .frames = 1024,
      .buffers = 1,
  };
}

GstElement *fx_tool_chain_pipeline(const FxChainRun *run, GstElement **fxchain, GError **error)
{
  GstElement *pipeline, *src, *filter, *chain, *sink;
  GstCaps *caps;

  chain = fx_tool_make("fxchain", "fxchain", error);
  if (chain == NULL)
    return NULL;
  pipeline = gst_pipeline_new("gst-fx");
  src = gst_element_factory_make("audiotestsrc", NULL);
  filter = gst_element_factory_make("capsfilter", NULL);
  sink = gst_element_factory_make("fakesink", NULL);
  if (src == NULL || filter == NULL || sink == NULL) {
    g_set_error_literal(error, GST_CORE_ERROR, GST_CORE_ERROR_MISSING_PLUGIN,
                        "audiotestsrc, capsfilter or fakesink missing (install "
                        "gstreamer1.0-plugins-base)");
    gst_object_unref(pipeline);
    gst_object_unref(chain);
    g_clear_pointer(&src, gst_object_unref);
    g_clear_pointer(&filter, gst_object_unref);
    g_clear_pointer(&sink, gst_object_unref);
    return NULL;
  }
  gst_util_set_object_arg(G_OBJECT(src), "wave", "white-noise");
  g_object_set(src, "num-buffers", (gint) run->buffers, "samplesperbuffer", (gint) run->frames,
               NULL);
  caps = gst_caps_new_simple("audio/x-raw", "format", G_TYPE_STRING, run->format, "rate",
                             G_TYPE_INT, run->rate, "channels", G_TYPE_INT, run->channels, "layout",
                             G_TYPE_STRING, "interleaved", NULL);
  if (run->channels > 2)
    gst_caps_set_simple(caps, "channel-mask", GST_TYPE_BITMASK, (guint64) 0, NULL);
  g_object_set(filter, "caps", caps, NULL);
  gst_caps_unref(caps);
  g_object_set(sink, "sync", FALSE, NULL);

  g_object_set(chain, "chain", run->chain, "fuse", run->fuse, NULL);
  if (run->device != NULL)
    gst_util_set_object_arg(G_OBJECT(chain), "device", run->device);
  if (run->precision != NULL)
    gst_util_set_object_arg(G_OBJECT(chain), "precision", run->precision);

  gst_bin_add_many(GST_BIN(pipeline), src, filter, chain, sink, NULL);
  if (!gst_element_link_many(src, filter, chain, sink, NULL)) {
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
                "could not link audiotestsrc ! %s,rate=%d,channels=%d ! fxchain ! fakesink",
                run->format, run->rate, run->channels);
    gst_object_unref(pipeline);
    return NULL;
  }
  *fxchain = chain;
  return pipeline;
}
