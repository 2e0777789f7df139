/* gst-fx — a small SVG plot writer for `gst-fx response` (see svg.h). Formatting only: the
 * responses are computed in dsp/response.c.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "svg.h"

#include <math.h>

static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

typedef struct {
  double x0, y0, w, h; /* panel rectangle (px) */
  double lf0, lf1;     /* log10 of the frequency range */
  double v0, v1;       /* value range (bottom, top) */
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

static void freq_label(double f, char *buf, size_t size)
{
  if (f >= 1000.0)
    g_snprintf(buf, size, "%gk", f / 1000.0);
  else
    g_snprintf(buf, size, "%g", f);
}

/* Grid, frame and tick labels of a panel; values ticked every `step`. */
static void panel_axes(GString *s, const Panel *p, double step, const char *ylabel, int id,
                       gboolean xlabels)
{
  char buf[64];

  g_string_append_printf(s,
                         "<defs><clipPath id=\"clip%d\"><rect x=\"%.1f\" y=\"%.1f\" "
                         "width=\"%.1f\" height=\"%.1f\"/></clipPath></defs>\n",
                         id, p->x0, p->y0, p->w, p->h);
  g_string_append_printf(s,
                         "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                         "fill=\"white\" stroke=\"#333\"/>\n",
                         p->x0, p->y0, p->w, p->h);
  /* frequency grid: 1, 2, 5 per decade */
  for (int dec = (int) floor(p->lf0); dec <= (int) ceil(p->lf1); dec++) {
    for (int m = 1; m <= 9; m++) {
      double f = m * pow(10.0, dec), lf = log10(f);
      if (lf < p->lf0 - 1e-9 || lf > p->lf1 + 1e-9)
        continue;
      double x = px_x(p, f);
      g_string_append_printf(
          s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", x, p->y0, x,
          p->y0 + p->h, m == 1 ? "#bbb" : "#e6e6e6");
      if (xlabels && (m == 1 || m == 2 || m == 5)) {
        freq_label(f, buf, sizeof(buf));
        text(s, x, p->y0 + p->h + 16, "middle", 11, buf, NULL);
      }
    }
  }
  for (double v = ceil(p->v0 / step) * step; v <= p->v1 + 1e-9; v += step) {
    double y = px_y(p, v);
    g_string_append_printf(
        s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", p->x0, y,
        p->x0 + p->w, y);
    g_snprintf(buf, sizeof(buf), "%g", v);
    text(s, p->x0 - 6, y + 4, "end", 11, buf, NULL);
  }
  g_snprintf(buf, sizeof(buf), "transform=\"rotate(-90 %.1f %.1f)\"", p->x0 - 48, p->y0 + p->h / 2);
  text(s, p->x0 - 48, p->y0 + p->h / 2, "middle", 13, ylabel, buf);
}

static void panel_curve(GString *s, const Panel *p, const double *freqs, const double *v, int n,
                        const char *color, double width, int id)
{
  gboolean open = FALSE;

  g_string_append_printf(s,
                         "<g clip-path=\"url(#clip%d)\" fill=\"none\" stroke=\"%s\" "
                         "stroke-width=\"%.1f\" stroke-linejoin=\"round\">\n",
                         id, color, width);
  for (int i = 0; i < n; i++) {
    if (!isfinite(v[i])) {
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

/* A tick step giving at most about 8 ticks over `range`, a multiple of `unit`. */
static double nice_step(double range, double unit)
{
  static const double mult[] = {1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 500, 1000};
  for (size_t i = 0; i < G_N_ELEMENTS(mult); i++)
    if (range / (unit * mult[i]) <= 8)
      return unit * mult[i];
  return unit * 1000;
}

gchar *fx_plot_svg(const char *title, const double *freqs, int n, const FxPlotCurve *curves,
                   int n_curves, int width, int height)
{
  GString *s = g_string_new(NULL);
  double mmax = -INFINITY, mmin = INFINITY, pmax = -INFINITY, pmin = INFINITY;
  const double left = 80, right = 230, top = 50, gap = 60, bottom = 50;
  double ph = (height - top - gap - bottom) / 2.0;
  Panel mag, pha;

  for (int c = 0; c < n_curves; c++)
    for (int i = 0; i < n; i++) {
      if (isfinite(curves[c].magnitude_db[i])) {
        mmax = MAX(mmax, curves[c].magnitude_db[i]);
        mmin = MIN(mmin, curves[c].magnitude_db[i]);
      }
      if (isfinite(curves[c].phase_deg[i])) {
        pmax = MAX(pmax, curves[c].phase_deg[i]);
        pmin = MIN(pmin, curves[c].phase_deg[i]);
      }
    }
  if (!isfinite(mmax)) {
    mmax = 0;
    mmin = -1;
  }
  if (!isfinite(pmax)) {
    pmax = 0;
    pmin = -1;
  }
  mag = (Panel){left, top, width - left - right, ph, log10(freqs[0]), log10(freqs[n - 1]), 0, 0};
  if (mag.lf1 <= mag.lf0)
    mag.lf1 = mag.lf0 + 1;
  mag.v1 = ceil((mmax + 3.0) / 10.0) * 10.0;
  mag.v0 = MAX(floor((mmin - 3.0) / 10.0) * 10.0, mag.v1 - 120.0);
  pha = mag;
  pha.y0 = top + ph + gap;
  pha.v1 = ceil((pmax + 1.0) / 90.0) * 90.0;
  pha.v0 = floor((pmin - 1.0) / 90.0) * 90.0;

  g_string_append_printf(s,
                         "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                         "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                         "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
                         "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
                         width, height, width, height);
  /* the title on one line: long chains are shortened with an ellipsis */
  glong chars = g_utf8_strlen(title, -1), fit = (glong) (width / 8.0);
  gchar *shown = g_utf8_substring(title, 0, chars > fit ? fit - 1 : chars);
  if (chars > fit) {
    gchar *cut = shown;
    shown = g_strconcat(cut, "\u2026", NULL);
    g_free(cut);
  }
  text(s, width / 2.0, 28, "middle", 14, shown, "font-weight=\"bold\"");
  g_free(shown);
  panel_axes(s, &mag, nice_step(mag.v1 - mag.v0, 1.0), "Magnitude (dB)", 0, FALSE);
  panel_axes(s, &pha, nice_step(pha.v1 - pha.v0, 90.0), "Phase (degrees)", 1, TRUE);
  text(s, left + pha.w / 2, pha.y0 + pha.h + 38, "middle", 13, "Frequency (Hz)", NULL);

  /* the bold curves (the whole chain) first, so that a stage it covers stays visible */
  for (int pass = 0; pass < 2; pass++)
    for (int c = 0; c < n_curves; c++) {
      if (curves[c].bold != (pass == 0))
        continue;
      const char *color = curves[c].bold ? "#000" : palette[c % G_N_ELEMENTS(palette)];
      double w = curves[c].bold ? 2.5 : 1.5;
      panel_curve(s, &mag, freqs, curves[c].magnitude_db, n, color, w, 0);
      panel_curve(s, &pha, freqs, curves[c].phase_deg, n, color, w, 1);
    }
  for (int c = 0; c < n_curves; c++) {
    const char *color = curves[c].bold ? "#000" : palette[c % G_N_ELEMENTS(palette)];
    double w = curves[c].bold ? 2.5 : 1.5;
    /* legend entry */
    double ly = top + 10 + c * 22, lx = width - right + 20;
    g_string_append_printf(s,
                           "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                           "stroke-width=\"%.1f\"/>\n",
                           lx, ly, lx + 24, ly, color, w + 1);
    text(s, lx + 30, ly + 4, "start", 12, curves[c].label, NULL);
  }
  g_string_append(s, "</svg>\n");
  return g_string_free(s, FALSE);
}
