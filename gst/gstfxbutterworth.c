/* gst-fx — fxbutterworth: Butterworth IIR filter.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:element-fxbutterworth
 * @title: fxbutterworth
 * @short_description: Butterworth IIR filter
 *
 * Butterworth filter (maximally flat passband) designed like scipy.signal.butter(order, Wn, btype,
 * output='sos') and run as a cascade of second-order sections, so it stays stable up to order 64 at
 * any cutoff. `cutoff` is the -3 dB frequency for low-pass and high-pass; `lower-frequency` and
 * `upper-frequency` bound the band modes (band modes of order N have 2N poles).
 *
 * A parameter change while playing is redesigned at once and crossfaded in over about 5 ms,
 * keeping the filter history (no clicks); every DSP property can be automated with a
 * #GstControlSource. A value that cannot be designed for the negotiated rate (e.g. a cutoff at or
 * above Nyquist) fails negotiation with an error naming the property, its value and the allowed
 * range; while playing it is refused with a warning and the previous coefficients stay.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 audiotestsrc wave=white-noise ! audioconvert ! fxbutterworth mode=low-pass
 * cutoff=2000 order=8 ! audioconvert ! autoaudiosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxbutterworth.h"

GST_DEBUG_CATEGORY_STATIC(gst_fx_butterworth_debug);
#define GST_CAT_DEFAULT gst_fx_butterworth_debug

struct _GstFxButterworth {
  GstFxIirFamily parent;
};

G_DEFINE_TYPE(GstFxButterworth, gst_fx_butterworth, GST_TYPE_FX_IIR_FAMILY)
GST_ELEMENT_REGISTER_DEFINE(fxbutterworth, "fxbutterworth", GST_RANK_NONE, GST_TYPE_FX_BUTTERWORTH);

static void gst_fx_butterworth_class_init(GstFxButterworthClass *klass)
{
  GST_DEBUG_CATEGORY_INIT(gst_fx_butterworth_debug, "fxbutterworth", 0, "Butterworth IIR filter");

  gst_fx_iir_family_class_setup(
      GST_FX_IIR_FAMILY_CLASS(klass), FX_FAMILY_BUTTERWORTH, FX_MAX_ORDER, 0.5, 40.0,
      "Butterworth IIR filter",
      "Butterworth low-pass, high-pass, band-pass or band-reject filter (maximally flat), order 1 "
      "to 64, as a second-order-sections cascade");
}

static void gst_fx_butterworth_init(GstFxButterworth *self)
{
  (void) self;
}
