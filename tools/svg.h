/* gst-fx — a small SVG plot writer for `gst-fx response` (two panels on a log-frequency axis).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_SVG_H
#define GST_FX_SVG_H

#include <glib.h>

G_BEGIN_DECLS

/* One curve: n values of magnitude (dB) and phase (degrees) over the shared frequencies. */
typedef struct {
  const char *label;
  const double *magnitude_db;
  const double *phase_deg;
  gboolean bold; /* drawn thicker and in black (the whole chain) */
} FxPlotCurve;

typedef struct {
  const char *title; /* wrapped at spaces (3 lines at most, then cut at a word with an ellipsis) */
  const char *note;  /* a smaller line under the title (2 lines at most), or NULL */
  int width, height; /* the smallest size in px; the height grows when the legend needs it */
  /* The magnitude axis in dB; NAN for both: from the curves (fx_plot_db_axis) */
  double db_min, db_max;
} FxPlotOptions;

/* The magnitude axis the curves get (n values each, non-finite values left out): from a little
 * below the lowest value to a little above the highest, at most 110 dB below the highest (deeper
 * values are clipped to the panel), at least 6 dB tall, its ends on half tick steps; *step is the
 * tick step (1, 2, 3, 5, 10 or 20 dB: 4 to 9 ticks). */
void fx_plot_db_axis(const FxPlotCurve *curves, int n_curves, int n, double *lo, double *hi,
                     double *step);

/* An SVG document: magnitude in dB above, phase in degrees below, both over log frequency from
 * freqs[0] to freqs[n-1], with grids, tick labels, axis labels, the title and a legend of the
 * curves' labels. Text widths are estimated from the font size and the number of characters; the
 * margins follow the tick labels and the legend (labels longer than about a third of the width
 * are wrapped at spaces), so no text is cut. *width and *height receive the document's size. */
gchar *fx_plot_svg(const FxPlotOptions *opt, const double *freqs, int n, const FxPlotCurve *curves,
                   int n_curves, int *width, int *height);

G_END_DECLS

#endif
