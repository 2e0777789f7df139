/* gst-fx — fxchebyshev2: Chebyshev type II IIR filter.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:element-fxchebyshev2
 * @title: fxchebyshev2
 * @short_description: Chebyshev type II IIR filter
 *
 * Chebyshev type II (inverse Chebyshev) filter designed like scipy.signal.cheby2(order,
 * attenuation, Wn, btype, output='sos'): a monotonic passband and an equiripple stopband at least
 * `attenuation` dB down. `cutoff` (and the band edges) are the stopband edges, as scipy's Wn.
 *
 * A parameter change while playing is redesigned at once and crossfaded in over about 5 ms,
 * keeping the filter history (no clicks); every DSP property can be automated with a
 * #GstControlSource. A value that cannot be designed for the negotiated rate (e.g. a cutoff at or
 * above Nyquist) fails negotiation with an error naming the property, its value and the allowed
 * range; while playing it is refused with a warning and the previous coefficients stay.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 audiotestsrc wave=white-noise ! audioconvert ! fxchebyshev2 mode=low-pass
 * cutoff=4000 order=8 attenuation=60 ! audioconvert ! autoaudiosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxchebyshev2.h"

GST_DEBUG_CATEGORY_STATIC(gst_fx_chebyshev2_debug);
#define GST_CAT_DEFAULT gst_fx_chebyshev2_debug

struct _GstFxChebyshev2 {
  GstFxIirFamily parent;
};

G_DEFINE_TYPE(GstFxChebyshev2, gst_fx_chebyshev2, GST_TYPE_FX_IIR_FAMILY)
GST_ELEMENT_REGISTER_DEFINE(fxchebyshev2, "fxchebyshev2", GST_RANK_NONE, GST_TYPE_FX_CHEBYSHEV2);

static void gst_fx_chebyshev2_class_init(GstFxChebyshev2Class *klass)
{
  GST_DEBUG_CATEGORY_INIT(gst_fx_chebyshev2_debug, "fxchebyshev2", 0,
                          "Chebyshev type II IIR filter");

  gst_fx_iir_family_class_setup(
      GST_FX_IIR_FAMILY_CLASS(klass), FX_FAMILY_CHEBYSHEV2, FX_MAX_ORDER, 0.5, 40.0,
      "Chebyshev type II IIR filter",
      "Chebyshev type II filter (equiripple stopband attenuation dB down; cutoff is the stopband "
      "edge), low-pass, high-pass, band-pass or band-reject, order 1 to 64");
}

static void gst_fx_chebyshev2_init(GstFxChebyshev2 *self)
{
  (void) self;
}
