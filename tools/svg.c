/* gst-fx — a small SVG plot writer for `gst-fx response` (see svg.h). Formatting only: the
 * responses are computed in dsp/response.c.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "svg.h"

#include <math.h>
#include <string.h>

static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

/* Estimated advance of one character in px at font size `size`: the average width of sans-serif
 * text (DejaVu Sans, what librsvg picks on Debian, is among the wider faces), a little generous,
 * so that what is laid out with it is not cut. Bold text is wider. */
#define CHAR_EM 0.62
#define BOLD_EM 0.68

static double text_width(const char *str, double size, double em)
{
  return (double) g_utf8_strlen(str, -1) * size * em;
}

typedef struct {
  double x0, y0, w, h; /* panel rectangle (px) */
  double lf0, lf1;     /* log10 of the frequency range */
  double v0, v1;       /* value range (bottom, top) */
  double step;         /* tick step */
} Panel;

static double px_x(const Panel *p, double f)
{
  return p->x0 + (log10(f) - p->lf0) / (p->lf1 - p->lf0) * p->w;
}

static double px_y(const Panel *p, double v)
{
  return p->y0 + (p->v1 - v) / (p->v1 - p->v0) * p->h;
}

static void text(GString *s, double x, double y, const char *anchor, int size, const char *str,
                 const char *extra)
{
  gchar *esc = g_markup_escape_text(str, -1);
  g_string_append_printf(s,
                         "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\"%s%s>%s"
                         "</text>\n",
                         x, y, anchor, size, extra != NULL ? " " : "", extra != NULL ? extra : "",
                         esc);
  g_free(esc);
}

/* `str` in lines of at most `max_chars` characters, broken at spaces (a word longer than a line is
 * broken inside), at most `max_lines` lines: when more would be needed, the last line ends at a
 * word with an ellipsis. */
static GPtrArray *wrap(const char *str, glong max_chars, int max_lines)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
  gchar **words = g_strsplit(str, " ", -1);
  GString *line = g_string_new(NULL);
  gboolean cut = FALSE;

  max_chars = MAX(max_chars, 8);
  for (int i = 0; words[i] != NULL && !cut; i++) {
    const char *w = words[i];
    if (*w == '\0')
      continue;
    while (!cut) {
      glong have = g_utf8_strlen(line->str, -1), len = g_utf8_strlen(w, -1);
      if ((have > 0 ? have + 1 : 0) + len <= max_chars) {
        if (have > 0)
          g_string_append_c(line, ' ');
        g_string_append(line, w);
        break;
      }
      if (have == 0) { /* a word longer than a line: break it after a _ - / . : or , if any */
        const char *end = g_utf8_offset_to_pointer(w, max_chars);
        for (const char *q = end - 1; q > w + max_chars / 3; q--)
          if (strchr("_-/.:,", *q) != NULL) {
            end = q + 1;
            break;
          }
        g_string_append_len(line, w, end - w);
        w = end;
      }
      if ((int) lines->len + 1 == max_lines) {
        cut = TRUE;
        break;
      }
      g_ptr_array_add(lines, g_string_free(line, FALSE));
      line = g_string_new(NULL);
      if (*w == '\0')
        break;
    }
  }
  if (cut) {
    /* the last line, ended at a word that leaves room for the ellipsis */
    while (g_utf8_strlen(line->str, -1) + 1 > max_chars) {
      const char *sp = strrchr(line->str, ' ');
      if (sp != NULL)
        g_string_truncate(line, sp - line->str);
      else
        g_string_truncate(line, g_utf8_offset_to_pointer(line->str, max_chars - 1) - line->str);
    }
    g_string_append(line, "\u2026");
  }
  if (line->len > 0 || lines->len == 0)
    g_ptr_array_add(lines, g_string_free(line, FALSE));
  else
    g_string_free(line, TRUE);
  g_strfreev(words);
  return lines;
}

static void freq_label(double f, char *buf, size_t size)
{
  if (f >= 1000.0)
    g_snprintf(buf, size, "%gk", f / 1000.0);
  else
    g_snprintf(buf, size, "%g", f);
}

static void value_label(double v, char *buf, size_t size)
{
  if (fabs(v) < 1e-9)
    v = 0.0; /* no "-0" */
  g_snprintf(buf, size, "%.10g", v);
}

/* The smallest of `steps` giving at most `max_ticks` ticks over `range`; past the list, steps of
 * 1, 2 and 5 times a power of ten. */
static double pick_step(double range, const double *steps, size_t n_steps, double max_ticks)
{
  for (size_t i = 0; i < n_steps; i++)
    if (range / steps[i] <= max_ticks)
      return steps[i];
  double p = pow(10.0, floor(log10(range / max_ticks)));
  for (;; p *= 10.0)
    for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) /* 1, 2, 5 */
      if (range / (m * p) <= max_ticks)
        return m * p;
}

/* Grid, frame and tick labels of a panel. */
static void panel_axes(GString *s, const Panel *p, const char *ylabel, double ylabel_x, int id,
                       gboolean xlabels)
{
  char buf[64];
  double last_end = -INFINITY;

  g_string_append_printf(s,
                         "<defs><clipPath id=\"clip%d\"><rect x=\"%.1f\" y=\"%.1f\" "
                         "width=\"%.1f\" height=\"%.1f\"/></clipPath></defs>\n",
                         id, p->x0, p->y0, p->w, p->h);
  g_string_append_printf(s,
                         "<rect class=\"panel\" id=\"%s\" data-min=\"%.10g\" data-max=\"%.10g\" "
                         "x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                         "fill=\"white\" stroke=\"#333\"/>\n",
                         id == 0 ? "magnitude" : "phase", p->v0, p->v1, p->x0, p->y0, p->w, p->h);
  /* frequency grid: 1..9 per decade (finer under one decade, linear steps over a small fraction
   * of one), labels at 1, 2, 5 (at every line under one decade), left out where one would
   * overlap the previous one */
  static const double wide[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  static const double fine[] = {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9};
  const gboolean narrow = p->lf1 - p->lf0 < 1.0;
  const double *mant = narrow ? fine : wide;
  const int n_mant = narrow ? (int) G_N_ELEMENTS(fine) : (int) G_N_ELEMENTS(wide);
  GArray *grid = g_array_new(FALSE, FALSE, sizeof(double)),
         *major = g_array_new(FALSE, FALSE, sizeof(gboolean));
  for (int dec = (int) floor(p->lf0); dec <= (int) ceil(p->lf1); dec++)
    for (int k = 0; k < n_mant; k++) {
      double f = mant[k] * pow(10.0, dec), lf = log10(f);
      gboolean decade = k == 0;
      if (lf < p->lf0 - 1e-9 || lf > p->lf1 + 1e-9)
        continue;
      g_array_append_val(grid, f);
      g_array_append_val(major, decade);
    }
  if (grid->len < 4) {
    double f0 = pow(10.0, p->lf0), f1 = pow(10.0, p->lf1);
    double step = pick_step(f1 - f0, NULL, 0, 6);
    g_array_set_size(grid, 0);
    g_array_set_size(major, 0);
    for (double f = ceil(f0 / step - 1e-9) * step; f <= f1 * (1 + 1e-12); f += step) {
      gboolean decade = FALSE;
      g_array_append_val(grid, f);
      g_array_append_val(major, decade);
    }
  }
  for (guint k = 0; k < grid->len; k++) {
    double f = g_array_index(grid, double, k), x = px_x(p, f);
    double m = f / pow(10.0, floor(log10(f) + 1e-12));
    gboolean label = narrow || fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9;
    g_string_append_printf(s,
                           "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                           "stroke=\"%s\"/>\n",
                           x, p->y0, x, p->y0 + p->h,
                           g_array_index(major, gboolean, k) ? "#bbb" : "#e6e6e6");
    if (xlabels && label) {
      freq_label(f, buf, sizeof(buf));
      double half = text_width(buf, 11, CHAR_EM) / 2;
      if (x - half < last_end + 4)
        continue;
      text(s, x, p->y0 + p->h + 16, "middle", 11, buf, "class=\"frequency-tick\"");
      last_end = x + half;
    }
  }
  g_array_unref(grid);
  g_array_unref(major);
  for (double v = ceil(p->v0 / p->step - 1e-9) * p->step; v <= p->v1 + 1e-9 * p->step;
       v += p->step) {
    double y = px_y(p, v);
    g_string_append_printf(
        s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", p->x0, y,
        p->x0 + p->w, y);
    value_label(v, buf, sizeof(buf));
    text(s, p->x0 - 6, y + 4, "end", 11, buf,
         id == 0 ? "class=\"magnitude-tick\"" : "class=\"phase-tick\"");
  }
  g_snprintf(buf, sizeof(buf), "transform=\"rotate(-90 %.1f %.1f)\"", ylabel_x, p->y0 + p->h / 2);
  text(s, ylabel_x, p->y0 + p->h / 2, "middle", 13, ylabel, buf);
}

/* A curve's polyline (in a group clipped to panel `id`), broken where v is not finite. With `mask`
 * (the magnitude in dB, for a phase curve) also where the magnitude is below -240 dB or -inf: the
 * phase at a zero of the response (e.g. a low-pass at Nyquist) is meaningless. */
static void panel_curve(GString *s, const Panel *p, const double *freqs, const double *v,
                        const double *mask, int n, const char *color, double width, int id)
{
  gboolean open = FALSE;

  g_string_append_printf(s,
                         "<g clip-path=\"url(#clip%d)\" fill=\"none\" stroke=\"%s\" "
                         "stroke-width=\"%.1f\" stroke-linejoin=\"round\">\n",
                         id, color, width);
  for (int i = 0; i < n; i++) {
    if (!isfinite(v[i]) || (mask != NULL && !(mask[i] > -240.0))) {
      if (open)
        g_string_append(s, "\"/>\n");
      open = FALSE;
      continue;
    }
    /* keep clipped points near the panel so the clip path does the cutting */
    double val = CLAMP(v[i], p->v0 - (p->v1 - p->v0), p->v1 + (p->v1 - p->v0));
    if (!open)
      g_string_append(s, "<polyline points=\"");
    g_string_append_printf(s, "%.2f,%.2f ", px_x(p, freqs[i]), px_y(p, val));
    open = TRUE;
  }
  if (open)
    g_string_append(s, "\"/>\n");
  g_string_append(s, "</g>\n");
}

static double db_step(double range)
{
  static const double steps[] = {1, 2, 3, 5, 10, 20};
  return pick_step(range, steps, G_N_ELEMENTS(steps), 8);
}

/* Lowest and highest finite value of the curves' magnitudes (which = 0) or phases (1; where the
 * magnitude is above -240 dB, as drawn). */
static gboolean curves_extent(const FxPlotCurve *curves, int n_curves, int n, int which, double *lo,
                              double *hi)
{
  *lo = INFINITY;
  *hi = -INFINITY;
  for (int c = 0; c < n_curves; c++) {
    const double *v = which == 0 ? curves[c].magnitude_db : curves[c].phase_deg;
    for (int i = 0; i < n; i++)
      if (isfinite(v[i]) && (which == 0 || curves[c].magnitude_db[i] > -240.0)) {
        *lo = MIN(*lo, v[i]);
        *hi = MAX(*hi, v[i]);
      }
  }
  return isfinite(*hi);
}

void fx_plot_db_axis(const FxPlotCurve *curves, int n_curves, int n, double *lo, double *hi,
                     double *step)
{
  double vmin, vmax;

  if (!curves_extent(curves, n_curves, n, 0, &vmin, &vmax)) {
    vmin = -1.0;
    vmax = 0.0;
  }
  vmin = MAX(vmin, vmax - 110.0);
  if (vmax - vmin < 6.0) {
    double mid = 0.5 * (vmax + vmin);
    vmin = mid - 3.0;
    vmax = mid + 3.0;
  }
  double margin = MAX(0.5, 0.03 * (vmax - vmin));
  *step = db_step(vmax - vmin + 2.0 * margin);
  double half = *step / 2.0;
  *hi = ceil((vmax + margin) / half) * half;
  *lo = floor((vmin - margin) / half) * half;
}

/* The phase axis: whole multiples of its step a little beyond the curves' phases, at least 30
 * degrees tall; steps of 5, 10, 15, 30, 45, 90, 180, 360 or 720 degrees (4 to 8 ticks), then 1,
 * 2, 5 times a power of ten. */
static void phase_axis(const FxPlotCurve *curves, int n_curves, int n, double *lo, double *hi,
                       double *step)
{
  static const double steps[] = {5, 10, 15, 30, 45, 90, 180, 360, 720};
  double vmin, vmax;

  if (!curves_extent(curves, n_curves, n, 1, &vmin, &vmax)) {
    vmin = -1.0;
    vmax = 0.0;
  }
  if (vmax - vmin < 30.0) {
    double mid = 0.5 * (vmax + vmin);
    vmin = mid - 15.0;
    vmax = mid + 15.0;
  }
  double margin = 0.03 * (vmax - vmin);
  *step = pick_step(vmax - vmin + 2.0 * margin, steps, G_N_ELEMENTS(steps), 8);
  *hi = ceil((vmax + margin) / *step) * *step;
  *lo = floor((vmin - margin) / *step) * *step;
}

/* The widest tick label of a value axis, in px at 11 px. */
static double ticks_width(const Panel *p)
{
  char buf[64];
  double w = 0.0;
  for (double v = ceil(p->v0 / p->step - 1e-9) * p->step; v <= p->v1 + 1e-9 * p->step;
       v += p->step) {
    value_label(v, buf, sizeof(buf));
    w = MAX(w, text_width(buf, 11, CHAR_EM));
  }
  return w;
}

gchar *fx_plot_svg(const FxPlotOptions *opt, const double *freqs, int n, const FxPlotCurve *curves,
                   int n_curves, int *width_out, int *height_out)
{
  GString *s = g_string_new(NULL);
  const int width = MAX(opt->width, 480);
  const double gap = 60, bottom = 50, legend_gap = 20, swatch = 30, line_h = 15, entry_gap = 7;
  GPtrArray *title_lines, *note_lines = NULL, **legend = g_new0(GPtrArray *, MAX(n_curves, 1));
  Panel mag = {0}, pha = {0};

  /* value axes */
  if (isfinite(opt->db_min) && isfinite(opt->db_max) && opt->db_min < opt->db_max) {
    mag.v0 = opt->db_min;
    mag.v1 = opt->db_max;
    mag.step = db_step(mag.v1 - mag.v0);
  } else {
    fx_plot_db_axis(curves, n_curves, n, &mag.v0, &mag.v1, &mag.step);
  }
  phase_axis(curves, n_curves, n, &pha.v0, &pha.v1, &pha.step);

  /* title and note on top, wrapped to the width */
  title_lines = wrap(opt->title, (glong) ((width - 40) / (14 * BOLD_EM)), 3);
  if (opt->note != NULL)
    note_lines = wrap(opt->note, (glong) ((width - 40) / (12 * CHAR_EM)), 2);
  const double top =
      22 + 18.0 * title_lines->len + (note_lines != NULL ? 16.0 * note_lines->len : 0) + 14;

  /* left margin: the tick labels, then the rotated axis label */
  const double ticks_w = MAX(ticks_width(&mag), ticks_width(&pha));
  const double left = 6 + ticks_w + 12 + 13 + 10;

  /* legend on the right: labels wrapped at about a third of the width */
  const double legend_cap = width / 3.0 - swatch - legend_gap;
  double legend_w = 0, legend_h = 0;
  for (int c = 0; c < n_curves; c++) {
    legend[c] = wrap(curves[c].label, (glong) (legend_cap / (12 * CHAR_EM)), 4);
    for (guint l = 0; l < legend[c]->len; l++)
      legend_w = MAX(legend_w, text_width(g_ptr_array_index(legend[c], l), 12, CHAR_EM));
    legend_h += line_h * legend[c]->len + entry_gap;
  }
  const double right = legend_gap + swatch + legend_w + 16;

  /* the panels share the height below the title; the legend may make the document taller */
  const int height = (int) ceil(MAX((double) opt->height, top + legend_h + bottom));
  const double ph = (height - top - gap - bottom) / 2.0;
  mag.x0 = left;
  mag.y0 = top;
  mag.w = width - left - right;
  mag.h = ph;
  mag.lf0 = log10(freqs[0]);
  mag.lf1 = log10(freqs[n - 1]);
  if (mag.lf1 <= mag.lf0)
    mag.lf1 = mag.lf0 + 1;
  pha.x0 = mag.x0;
  pha.w = mag.w;
  pha.h = ph;
  pha.y0 = top + ph + gap;
  pha.lf0 = mag.lf0;
  pha.lf1 = mag.lf1;

  g_string_append_printf(s,
                         "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                         "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                         "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
                         "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
                         width, height, width, height);
  double y = 26;
  for (guint l = 0; l < title_lines->len; l++, y += 18)
    text(s, width / 2.0, y, "middle", 14, g_ptr_array_index(title_lines, l),
         "class=\"title\" font-weight=\"bold\"");
  for (guint l = 0; note_lines != NULL && l < note_lines->len; l++, y += 16)
    text(s, width / 2.0, y, "middle", 12, g_ptr_array_index(note_lines, l),
         "class=\"note\" fill=\"#555\"");

  const double ylabel_x = left - 6 - ticks_w - 12;
  panel_axes(s, &mag, "Magnitude (dB)", ylabel_x, 0, FALSE);
  panel_axes(s, &pha, "Phase (degrees)", ylabel_x, 1, TRUE);
  text(s, left + pha.w / 2, pha.y0 + pha.h + 38, "middle", 13, "Frequency (Hz)", NULL);

  /* the bold curves (the whole chain) first, so that a stage it covers stays visible */
  for (int pass = 0; pass < 2; pass++)
    for (int c = 0; c < n_curves; c++) {
      if (curves[c].bold != (pass == 0))
        continue;
      const char *color = curves[c].bold ? "#000" : palette[c % G_N_ELEMENTS(palette)];
      double w = curves[c].bold ? 2.5 : 1.5;
      panel_curve(s, &mag, freqs, curves[c].magnitude_db, NULL, n, color, w, 0);
      panel_curve(s, &pha, freqs, curves[c].phase_deg, curves[c].magnitude_db, n, color, w, 1);
    }
  double ly = top + 8;
  for (int c = 0; c < n_curves; c++) {
    const char *color = curves[c].bold ? "#000" : palette[c % G_N_ELEMENTS(palette)];
    double w = curves[c].bold ? 2.5 : 1.5, lx = width - right + legend_gap;
    g_string_append_printf(s,
                           "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                           "stroke-width=\"%.1f\"/>\n",
                           lx, ly, lx + 24, ly, color, w + 1);
    for (guint l = 0; l < legend[c]->len; l++, ly += line_h)
      text(s, lx + swatch, ly + 4, "start", 12, g_ptr_array_index(legend[c], l),
           "class=\"legend\"");
    ly += entry_gap;
    g_ptr_array_unref(legend[c]);
  }
  g_string_append(s, "</svg>\n");
  g_free(legend);
  g_ptr_array_unref(title_lines);
  if (note_lines != NULL)
    g_ptr_array_unref(note_lines);
  *width_out = width;
  *height_out = height;
  return g_string_free(s, FALSE);
}
