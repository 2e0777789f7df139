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

/* An SVG document (width x height px): magnitude in dB above, phase in degrees below, both over
 * log frequency from freqs[0] to freqs[n-1], with grids, tick labels, axis labels, a title and a
 * legend of the curves' labels. Non-finite values (e.g. -inf dB at a zero) are left out of the
 * lines; magnitudes far below the largest are clipped to the panel. */
gchar *fx_plot_svg(const char *title, const double *freqs, int n, const FxPlotCurve *curves,
                   int n_curves, int width, int height);

G_END_DECLS

#endif
