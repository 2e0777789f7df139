/* gst-fx response — magnitude and phase of each stage of a chain and of the whole chain.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * How the sections are found: one short buffer at --rate runs through
 *   audiotestsrc ! audio/x-raw,rate=R,channels=1 ! fxchain fuse=false chain="…" ! fakesink
 * so every child is negotiated at that rate on its own (a design that is invalid at R fails here
 * with the element's message). Then the children are walked in chain order (pad links) and each
 * one's response is taken from:
 *   - an IIR element: its read-only `designed-sections` (the sections at the negotiated rate, in
 *     fxsos syntax, parsed with libfxdsp's fx_sos_parse);
 *   - `fxgain`: its `gain` (dB), a flat response; `volume`: its `volume` (linear) and `mute`;
 *   - anything else has no known response and is refused with a message.
 * The responses are computed by dsp/response.c (the product over sections of
 * (b0 + b1 z^-1 + b2 z^-2) / (1 + a1 z^-1 + a2 z^-2), as scipy.signal.sosfreqz); this file only
 * formats them: CSV (full precision), SVG (svg.c) or PNG (the SVG rendered by librsvg, when the
 * program was built with it). */
#include "gst-fx.h"
#include "svg.h"

#include "response.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#ifdef FX_HAVE_RSVG
#include <cairo.h>
#include <librsvg/rsvg.h>
#endif

typedef struct {
  gchar *name, *factory;
  double *re, *im, *mag, *phase;
} Stage;

static void stage_clear(Stage *s)
{
  g_free(s->name);
  g_free(s->factory);
  g_free(s->re);
  g_free(s->im);
  g_free(s->mag);
  g_free(s->phase);
}

static const char *output_kind(const char *path)
{
  const char *dot = strrchr(path, '.');

  if (dot == NULL)
    return NULL;
  if (g_ascii_strcasecmp(dot, ".csv") == 0)
    return "csv";
  if (g_ascii_strcasecmp(dot, ".svg") == 0)
    return "svg";
  if (g_ascii_strcasecmp(dot, ".png") == 0)
    return "png";
  return NULL;
}

/* The children of a wired fxchain in chain order (element refs), without its format
 * converters. */
static GPtrArray *chain_children(GstElement *fxchain)
{
  GPtrArray *out = g_ptr_array_new_with_free_func(gst_object_unref);
  GstPad *ghost = gst_element_get_static_pad(fxchain, "sink");
  GstPad *pad = ghost != NULL ? gst_ghost_pad_get_target(GST_GHOST_PAD(ghost)) : NULL;

  while (pad != NULL) {
    GstElement *e = gst_pad_get_parent_element(pad);
    GstPad *src, *peer;

    gst_object_unref(pad);
    pad = NULL;
    if (e == NULL || out->len > 1024)
      break;
    /* fxchain's format converters (S16/S32 <-> float at its edges) are not stages */
    if (g_strcmp0(G_OBJECT_TYPE_NAME(e), "GstFxRequant") != 0)
      g_ptr_array_add(out, gst_object_ref(e));
    src = gst_element_get_static_pad(e, "src");
    peer = src != NULL ? gst_pad_get_peer(src) : NULL;
    if (src != NULL)
      gst_object_unref(src);
    gst_object_unref(e);
    pad = peer; /* the ghost src pad's proxy has no parent element: the walk ends */
  }
  if (ghost != NULL)
    gst_object_unref(ghost);
  return out;
}

/* Multiplies a stage's own response into (s->re, s->im). */
static gboolean stage_response(GstElement *e, Stage *s, const double *freqs, int n, double rate,
                               GError **error)
{
  GObjectClass *klass = G_OBJECT_GET_CLASS(e);

  fx_response_unity(s->re, s->im, n);
  if (g_object_class_find_property(klass, "designed-sections") != NULL) {
    gchar *text = NULL;
    fx_sos_t *sos;
    int cap = 1, count = 0, bad = -1;
    fx_status_t st;

    g_object_get(e, "designed-sections", &text, NULL);
    if (text == NULL) {
      g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
                  "stage \"%s\" (%s) has no design at %g Hz", s->name, s->factory, rate);
      return FALSE;
    }
    for (const char *p = text; *p != '\0'; p++)
      cap += *p == ';';
    sos = g_new0(fx_sos_t, cap);
    st = *g_strstrip(text) == '\0' ? FX_OK : fx_sos_parse(text, sos, cap, &count, &bad);
    g_free(text);
    if (st != FX_OK) {
      g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
                  "stage \"%s\" (%s): its designed sections do not parse (row %d: %s)", s->name,
                  s->factory, bad, fx_status_string(st));
      g_free(sos);
      return FALSE;
    }
    fx_response_multiply_sos(sos, count, freqs, n, rate, s->re, s->im);
    g_free(sos);
    return TRUE;
  }
  if (g_str_equal(s->factory, "fxgain")) {
    double gain_db = 0.0;
    g_object_get(e, "gain", &gain_db, NULL);
    fx_response_multiply_gain(pow(10.0, gain_db / 20.0), s->re, s->im, n);
    return TRUE;
  }
  if (g_str_equal(s->factory, "volume")) {
    double volume = 1.0;
    gboolean mute = FALSE;
    g_object_get(e, "volume", &volume, "mute", &mute, NULL);
    fx_response_multiply_gain(mute ? 0.0 : volume, s->re, s->im, n);
    return TRUE;
  }
  g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_NOT_IMPLEMENTED,
              "stage \"%s\" (%s) has no known frequency response (IIR elements, fxgain and "
              "volume have one)",
              s->name, s->factory);
  return FALSE;
}

static void csv_cell(GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isinf(v))
    g_string_append(out, v < 0 ? "-inf" : "inf");
  else
    g_string_append(out, g_ascii_formatd(buf, sizeof(buf), "%.17g", v));
}

/* "name" quoted for CSV when needed. */
static void csv_name(GString *out, const char *name, const char *suffix)
{
  gchar *joined = g_strconcat(name, suffix, NULL);

  if (strpbrk(joined, ",\"\n") != NULL) {
    g_string_append_c(out, '"');
    for (const char *p = joined; *p != '\0'; p++) {
      if (*p == '"')
        g_string_append_c(out, '"');
      g_string_append_c(out, *p);
    }
    g_string_append_c(out, '"');
  } else {
    g_string_append(out, joined);
  }
  g_free(joined);
}

static gchar *format_csv(const double *freqs, int n, Stage *stages, int n_stages)
{
  GString *out = g_string_new("frequency_hz");

  for (int s = 0; s < n_stages; s++) {
    g_string_append_c(out, ',');
    csv_name(out, stages[s].name, ":magnitude_db");
    g_string_append_c(out, ',');
    csv_name(out, stages[s].name, ":phase_deg");
  }
  g_string_append_c(out, '\n');
  for (int i = 0; i < n; i++) {
    csv_cell(out, freqs[i]);
    for (int s = 0; s < n_stages; s++) {
      g_string_append_c(out, ',');
      csv_cell(out, stages[s].mag[i]);
      g_string_append_c(out, ',');
      csv_cell(out, stages[s].phase[i]);
    }
    g_string_append_c(out, '\n');
  }
  return g_string_free(out, FALSE);
}

#ifdef FX_HAVE_RSVG
static cairo_status_t write_png_chunk(void *closure, const unsigned char *data, unsigned int len)
{
  g_byte_array_append(closure, data, len);
  return CAIRO_STATUS_SUCCESS;
}

/* Renders the SVG into memory, then writes the PNG through a temporary (fx_tool_write_file()). */
static gboolean write_png(const char *svg, int width, int height, const char *path, GError **error)
{
  RsvgHandle *handle = rsvg_handle_new_from_data((const guint8 *) svg, strlen(svg), error);
  cairo_surface_t *surface;
  cairo_t *cr;
  RsvgRectangle viewport = {0, 0, width, height};
  GByteArray *png;
  gboolean ok;

  if (handle == NULL)
    return FALSE;
  surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
  cr = cairo_create(surface);
  ok = rsvg_handle_render_document(handle, cr, &viewport, error);
  cairo_destroy(cr);
  png = g_byte_array_new();
  if (ok &&
      cairo_surface_write_to_png_stream(surface, write_png_chunk, png) != CAIRO_STATUS_SUCCESS) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot write %s: PNG encoding failed", path);
    ok = FALSE;
  }
  if (ok)
    ok = fx_tool_write_file(path, png->data, png->len, error);
  g_byte_array_unref(png);
  cairo_surface_destroy(surface);
  g_object_unref(handle);
  return ok;
}
#endif

int fx_cmd_response(int argc, char **argv)
{
  gchar *chain = NULL, *chain_file = NULL, *output = NULL, *title = NULL;
  gint rate = 48000, points = 512;
  double fmin = 0.0, fmax = 0.0;
  const GOptionEntry entries[] = {
      {"chain", 'c', 0, G_OPTION_ARG_STRING, &chain,
       "The chain in gst-launch syntax (required); IIR elements, fxgain and volume", "DESC"},
      FX_TOOL_CHAIN_FILE_ENTRY(chain_file),
      {"rate", 'r', 0, G_OPTION_ARG_INT, &rate,
       "Sample rate the filters are designed for "
       "(default 48000)",
       "R"},
      {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
       "Output file: .svg or .png (a plot) or .csv (frequency_hz, then <stage>:magnitude_db and "
       "<stage>:phase_deg per stage and for \"chain\") (required)",
       "FILE"},
      {"points", 'n', 0, G_OPTION_ARG_INT, &points, "Frequencies, log-spaced (default 512)", "N"},
      {"min-frequency", 0, 0, G_OPTION_ARG_DOUBLE, &fmin,
       "Lowest frequency in Hz (default 10, or rate/1000 when lower)", "F"},
      {"max-frequency", 0, 0, G_OPTION_ARG_DOUBLE, &fmax,
       "Highest frequency in Hz (default and at most rate/2)", "F"},
      {"title", 't', 0, G_OPTION_ARG_STRING, &title, "Plot title (default: the chain)", "TEXT"},
      {NULL, 0, 0, 0, NULL, NULL, NULL},
  };
  GOptionContext *ctx = g_option_context_new(NULL);
  GstElement *pipeline = NULL, *fxchain = NULL;
  GPtrArray *children = NULL, *warnings = NULL;
  GError *error = NULL;
  Stage *stages = NULL;
  int n_stages = 0, status;
  double *freqs = NULL;
  const char *kind;
  gchar *doc = NULL;
  FxPlotCurve *curves = NULL;

  g_set_prgname("gst-fx response");
  g_option_context_set_summary(
      ctx, "Computes the frequency response (magnitude in dB, phase in degrees, unwrapped) of\n"
           "each stage of the chain and of the whole chain at --rate over a log-frequency axis,\n"
           "and writes it as a plot (SVG, PNG) or a table (CSV). Stage names are the elements'\n"
           "names (name=… in the chain). Phase is unwrapped along frequency.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  status = fx_tool_parse_command_line(ctx, &argc, &argv);
  if (status == FX_EXIT_OK)
    status = fx_tool_chain_from_file(ctx, &chain, chain_file, FALSE);
  if (status != FX_EXIT_OK)
    goto out;
  if (chain == NULL || *g_strstrip(chain) == '\0') {
    status = fx_tool_usage_error(ctx, "--chain is required");
    goto out;
  }
  if (output == NULL) {
    status = fx_tool_usage_error(ctx, "-o FILE is required");
    goto out;
  }
  kind = output_kind(output);
  if (kind == NULL) {
    status = fx_tool_usage_error(ctx, "-o FILE must end in .svg, .png or .csv, not \"%s\"", output);
    goto out;
  }
#ifndef FX_HAVE_RSVG
  if (g_str_equal(kind, "png")) {
    status = fx_tool_usage_error(ctx, "PNG output needs librsvg, which this gst-fx was built "
                                      "without; write .svg or .csv");
    goto out;
  }
#endif
  if (rate < 2) {
    status = fx_tool_usage_error(ctx, "--rate must be at least 2 Hz");
    goto out;
  }
  if (points < 2 || points > 1000000) {
    status = fx_tool_usage_error(ctx, "--points must be from 2 to 1000000");
    goto out;
  }
  if (fmax == 0.0)
    fmax = rate / 2.0;
  if (fmin == 0.0)
    fmin = MIN(10.0, rate / 1000.0);
  if (!(fmin > 0.0) || !(fmax > fmin) || fmax > rate / 2.0) {
    status = fx_tool_usage_error(
        ctx, "the frequencies must satisfy 0 < --min-frequency < --max-frequency <= rate/2");
    goto out;
  }

  fx_tool_init();
  FxChainRun run;
  fx_tool_chain_run_init(&run, chain, FALSE, "cpu");
  run.rate = rate;
  run.channels = 1;
  run.frames = 64;
  pipeline = fx_tool_chain_pipeline(&run, &fxchain, &error);
  if (pipeline == NULL || !fx_tool_run_to_eos(pipeline, &warnings, &error)) {
    fx_tool_print_error(error->message);
    status = FX_EXIT_FAILURE;
    goto out;
  }
  children = chain_children(fxchain);
  n_stages = (int) children->len + 1;
  stages = g_new0(Stage, n_stages);
  freqs = g_new(double, points);
  fx_response_logspace(fmin, fmax, points, freqs);
  for (int s = 0; s < n_stages; s++) {
    Stage *st = &stages[s];
    st->re = g_new(double, points);
    st->im = g_new(double, points);
    st->mag = g_new(double, points);
    st->phase = g_new(double, points);
    if (s < (int) children->len) {
      GstElement *e = g_ptr_array_index(children, s);
      GstElementFactory *f = gst_element_get_factory(e);
      st->name = gst_element_get_name(e);
      st->factory = g_strdup(f != NULL ? gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(f))
                                       : G_OBJECT_TYPE_NAME(e));
      if (!stage_response(e, st, freqs, points, rate, &error)) {
        fprintf(stderr, "gst-fx: %s\n", error->message);
        status = FX_EXIT_FAILURE;
        goto out;
      }
    } else {
      st->name = g_strdup("chain");
      st->factory = g_strdup("all stages");
      fx_response_unity(st->re, st->im, points);
      for (int j = 0; j < s; j++)
        for (int i = 0; i < points; i++) {
          double r = st->re[i] * stages[j].re[i] - st->im[i] * stages[j].im[i];
          double m = st->re[i] * stages[j].im[i] + st->im[i] * stages[j].re[i];
          st->re[i] = r;
          st->im[i] = m;
        }
    }
    fx_response_magnitude_db(st->re, st->im, points, st->mag);
    fx_response_phase_deg(st->re, st->im, points, st->phase);
  }

  if (g_str_equal(kind, "csv")) {
    doc = format_csv(freqs, points, stages, n_stages);
  } else {
    gchar *t = g_strdup_printf("%s at %d Hz", title != NULL ? title : chain, rate);
    curves = g_new0(FxPlotCurve, n_stages);
    gchar **labels = g_new0(gchar *, n_stages + 1);
    for (int s = 0; s < n_stages; s++) {
      labels[s] = g_strdup_printf("%s (%s)", stages[s].name, stages[s].factory);
      curves[s] = (FxPlotCurve){labels[s], stages[s].mag, stages[s].phase, s == n_stages - 1};
    }
    doc = fx_plot_svg(t, freqs, points, curves, n_stages, 1000, 720);
    g_strfreev(labels);
    g_free(t);
  }
#ifdef FX_HAVE_RSVG
  if (g_str_equal(kind, "png")) {
    if (!write_png(doc, 1000, 720, output, &error)) {
      fprintf(stderr, "gst-fx: %s\n", error->message);
      status = FX_EXIT_FAILURE;
    }
    goto out;
  }
#endif
  if (!fx_tool_write_file(output, doc, strlen(doc), &error)) {
    fprintf(stderr, "gst-fx: %s\n", error->message);
    status = FX_EXIT_FAILURE;
    goto out;
  }
  fx_tool_print_warnings(warnings);

out:
  for (int s = 0; stages != NULL && s < n_stages; s++)
    stage_clear(&stages[s]);
  g_free(stages);
  g_free(curves);
  g_free(freqs);
  g_free(doc);
  if (children != NULL)
    g_ptr_array_unref(children);
  if (warnings != NULL)
    g_ptr_array_unref(warnings);
  fx_tool_pipeline_free(pipeline);
  g_clear_error(&error);
  g_option_context_free(ctx);
  g_free(chain);
  g_free(chain_file);
  g_free(output);
  g_free(title);
  return status;
}
