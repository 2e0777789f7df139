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

#include "delay.h"
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
  double delay; /* samples of pure delay taken out of (re, im) */
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

/* What a stage is to the response: drawn (its response multiplied in), or left out (no linear
 * time-invariant response to draw). */
typedef enum { STAGE_DRAWN, STAGE_SKIPPED, STAGE_FAILED } StageKind;

/* The delay of an fxdelay as the element computes it: `delay` (ms), or the note at `bpm` when
 * bpm > 0 (the note's nick: 1/N, 1/Nd dotted, 1/Nt triplet), through libfxdsp's fx_delay_note_ms.
 */
static double delay_element_ms(GstElement *e)
{
  double ms = 0.0, bpm = 0.0;
  gint note = 0;
  GEnumClass *notes;
  GEnumValue *v;
  int denominator = 0;
  char modifier = '\0';

  g_object_get(e, "delay", &ms, "bpm", &bpm, "note", &note, NULL);
  if (!(bpm > 0.0))
    return ms;
  notes = g_type_class_ref(
      G_PARAM_SPEC_VALUE_TYPE(g_object_class_find_property(G_OBJECT_GET_CLASS(e), "note")));
  v = g_enum_get_value(notes, note);
  if (v != NULL && sscanf(v->value_nick, "1/%d%c", &denominator, &modifier) >= 1)
    ms = fx_delay_note_ms(bpm, denominator,
                          modifier == 'd'   ? FX_NOTE_DOTTED
                          : modifier == 't' ? FX_NOTE_TRIPLET
                                            : FX_NOTE_PLAIN);
  g_type_class_unref(notes);
  return ms;
}

/* Multiplies a stage's own response into (s->re, s->im) and sets s->delay (samples taken out of
 * it, see response.h). STAGE_SKIPPED for an element without a linear response (s->re, s->im
 * untouched: unity). */
static StageKind stage_response(GstElement *e, Stage *s, const double *freqs, int n, double rate,
                                GError **error)
{
  GObjectClass *klass = G_OBJECT_GET_CLASS(e);

  fx_response_unity(s->re, s->im, n);
  s->delay = 0.0;
  if (g_object_class_find_property(klass, "designed-sections") != NULL) {
    gchar *text = NULL;
    fx_sos_t *sos;
    int cap = 1, count = 0, bad = -1;
    fx_status_t st;

    g_object_get(e, "designed-sections", &text, NULL);
    if (text == NULL) {
      g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
                  "stage \"%s\" (%s) has no design at %g Hz", s->name, s->factory, rate);
      return STAGE_FAILED;
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
      return STAGE_FAILED;
    }
    fx_response_multiply_sos(sos, count, freqs, n, rate, s->re, s->im);
    g_free(sos);
    return STAGE_DRAWN;
  }
  if (g_object_class_find_property(klass, "designed-taps") != NULL) {
    GValue taps = G_VALUE_INIT;
    guint len;
    double *h;

    g_value_init(&taps, GST_TYPE_ARRAY);
    g_object_get_property(G_OBJECT(e), "designed-taps", &taps);
    len = gst_value_array_get_size(&taps);
    if (len == 0) {
      g_value_unset(&taps);
      g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
                  "stage \"%s\" (%s) has no kernel at %g Hz", s->name, s->factory, rate);
      return STAGE_FAILED;
    }
    h = g_new(double, len);
    for (guint i = 0; i < len; i++)
      h[i] = g_value_get_double(gst_value_array_get_value(&taps, i));
    g_value_unset(&taps);
    s->delay = fx_response_multiply_fir(h, len, freqs, n, rate, s->re, s->im);
    g_free(h);
    return STAGE_DRAWN;
  }
  if (g_str_equal(s->factory, "fxgain")) {
    double gain_db = 0.0;
    gboolean mute = FALSE;
    g_object_get(e, "gain", &gain_db, "mute", &mute, NULL);
    fx_response_multiply_gain(mute ? 0.0 : pow(10.0, gain_db / 20.0), s->re, s->im, n);
    return STAGE_DRAWN;
  }
  if (g_str_equal(s->factory, "volume")) {
    double volume = 1.0;
    gboolean mute = FALSE;
    g_object_get(e, "volume", &volume, "mute", &mute, NULL);
    fx_response_multiply_gain(mute ? 0.0 : volume, s->re, s->im, n);
    return STAGE_DRAWN;
  }
  if (g_str_equal(s->factory, "fxdelay")) {
    double feedback = 0.0, mix = 0.0;
    g_object_get(e, "feedback", &feedback, "mix", &mix, NULL);
    s->delay = fx_response_multiply_echo(delay_element_ms(e) * rate / 1000.0, feedback, mix, freqs,
                                         n, rate, s->re, s->im);
    return STAGE_DRAWN;
  }
  /* a meter: the audio passes untouched */
  if (g_str_equal(s->factory, "fxloudness"))
    return STAGE_DRAWN;
  return STAGE_SKIPPED;
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

/* The plot's size in px (the height grows when the legend needs it). */
#define PLOT_WIDTH 1000
#define PLOT_HEIGHT 720

/* "MIN,MAX" (dB, finite, MIN < MAX; spaces allowed around the numbers). */
static gboolean parse_db_range(const char *text, double *lo, double *hi)
{
  gchar **parts = g_strsplit(text, ",", -1);
  gboolean ok = g_strv_length(parts) == 2;
  double v[2] = {0, 0};

  for (int i = 0; ok && i < 2; i++) {
    gchar *end = NULL, *p = g_strstrip(parts[i]);
    v[i] = g_ascii_strtod(p, &end);
    ok = *p != '\0' && end != NULL && *end == '\0' && isfinite(v[i]);
  }
  g_strfreev(parts);
  if (!ok || !(v[0] < v[1]))
    return FALSE;
  *lo = v[0];
  *hi = v[1];
  return TRUE;
}

int fx_cmd_response(int argc, char **argv)
{
  gchar *chain = NULL, *chain_file = NULL, *output = NULL, *title = NULL;
  gchar *db_range = NULL;
  gint rate = 48000, points = 512, plot_w = PLOT_WIDTH, plot_h = PLOT_HEIGHT;
  double fmin = 0.0, fmax = 0.0, db_lo = NAN, db_hi = NAN;
  GString *skipped = NULL;
  const GOptionEntry entries[] = {
      {"chain", 'c', 0, G_OPTION_ARG_STRING, &chain,
       "The chain in gst-launch syntax (required); its linear stages are drawn (every IIR "
       "element, fxeq, fxfir, fxdelay, fxgain, volume), the others left out with a note",
       "DESC"},
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
      {"db-range", 0, 0, G_OPTION_ARG_STRING, &db_range,
       "Magnitude axis of the plot in dB, e.g. -60,12 (default: from the curves, at most 120 dB "
       "below their peak)",
       "MIN,MAX"},
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
           "names (name=… in the chain). Phase is unwrapped along frequency. Stages without a\n"
           "linear time-invariant response (dynamics, reverb, normalisers, other elements) are\n"
           "left out of the plot and of the chain curve, named in one line on stderr.");
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
  if (db_range != NULL && !parse_db_range(db_range, &db_lo, &db_hi)) {
    status = fx_tool_usage_error(
        ctx, "--db-range must be MIN,MAX in dB with MIN < MAX (e.g. -60,12), not \"%s\"", db_range);
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
  stages = g_new0(Stage, children->len + 1);
  freqs = g_new(double, points);
  fx_response_logspace(fmin, fmax, points, freqs);
  skipped = g_string_new(NULL);
  for (guint c = 0; c <= children->len; c++) {
    Stage *st = &stages[n_stages];
    st->re = g_new(double, points);
    st->im = g_new(double, points);
    st->mag = g_new(double, points);
    st->phase = g_new(double, points);
    if (c < children->len) {
      GstElement *e = g_ptr_array_index(children, c);
      GstElementFactory *f = gst_element_get_factory(e);
      StageKind k;
      st->name = gst_element_get_name(e);
      st->factory = g_strdup(f != NULL ? gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(f))
                                       : G_OBJECT_TYPE_NAME(e));
      k = stage_response(e, st, freqs, points, rate, &error);
      if (k == STAGE_FAILED) {
        fprintf(stderr, "gst-fx: %s\n", error->message);
        status = FX_EXIT_FAILURE;
        goto out;
      }
      if (k == STAGE_SKIPPED) {
        g_string_append_printf(skipped, "%s%s (%s)", skipped->len > 0 ? ", " : "", st->name,
                               st->factory);
        stage_clear(st);
        memset(st, 0, sizeof(*st));
        continue;
      }
    } else {
      if (n_stages == 0) {
        fprintf(stderr,
                "gst-fx: no stage of the chain has a linear frequency response to draw: %s\n",
                skipped->str);
        status = FX_EXIT_FAILURE;
        goto out;
      }
      st->name = g_strdup("chain");
      st->factory = g_strdup(skipped->len > 0 ? "drawn stages" : "all stages");
      fx_response_unity(st->re, st->im, points);
      st->delay = 0.0;
      for (int j = 0; j < n_stages; j++) {
        st->delay += stages[j].delay;
        for (int i = 0; i < points; i++) {
          double r = st->re[i] * stages[j].re[i] - st->im[i] * stages[j].im[i];
          double m = st->re[i] * stages[j].im[i] + st->im[i] * stages[j].re[i];
          st->re[i] = r;
          st->im[i] = m;
        }
      }
    }
    fx_response_magnitude_db(st->re, st->im, points, st->mag);
    fx_response_phase_deg_delayed(st->re, st->im, freqs, points, rate, st->delay, st->phase);
    n_stages++;
  }
  if (skipped->len > 0)
    fprintf(stderr,
            "gst-fx: not drawn (no linear time-invariant response): %s; the chain curve leaves "
            "them out\n",
            skipped->str);

  if (g_str_equal(kind, "csv")) {
    doc = format_csv(freqs, points, stages, n_stages);
  } else {
    gchar *t = g_strdup_printf("%s at %d Hz", title != NULL ? title : chain, rate);
    gchar *note = skipped->len > 0 ? g_strdup_printf("Not drawn: %s", skipped->str) : NULL;
    FxPlotOptions opt = {t, note, PLOT_WIDTH, PLOT_HEIGHT, db_lo, db_hi};
    curves = g_new0(FxPlotCurve, n_stages);
    gchar **labels = g_new0(gchar *, n_stages + 1);
    for (int s = 0; s < n_stages; s++) {
      labels[s] = g_strdup_printf("%s (%s)", stages[s].name, stages[s].factory);
      curves[s] = (FxPlotCurve){labels[s], stages[s].mag, stages[s].phase, s == n_stages - 1};
    }
    doc = fx_plot_svg(&opt, freqs, points, curves, n_stages, &plot_w, &plot_h);
    g_strfreev(labels);
    g_free(note);
    g_free(t);
  }
#ifdef FX_HAVE_RSVG
  if (g_str_equal(kind, "png")) {
    if (!write_png(doc, plot_w, plot_h, output, &error)) {
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
  for (guint s = 0; stages != NULL && s <= children->len; s++)
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
  g_free(db_range);
  if (skipped != NULL)
    g_string_free(skipped, TRUE);
  return status;
}
