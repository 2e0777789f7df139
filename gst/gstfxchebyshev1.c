/* gst-fx — fxchebyshev1: Chebyshev type I IIR filter.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:element-fxchebyshev1
 * @title: fxchebyshev1
 * @short_description: Chebyshev type I IIR filter
 *
 * Chebyshev type I filter designed like scipy.signal.cheby1(order, ripple, Wn, btype,
 * output='sos'): an equiripple passband with `ripple` dB of ripple, a monotonic stopband. `cutoff`
 * is where the response leaves the ripple band.
 *
 * A parameter change while playing is redesigned at once and crossfaded in over about 5 ms,
 * keeping the filter history (no clicks); every DSP property can be automated with a
 * #GstControlSource. A value that cannot be designed for the negotiated rate (e.g. a cutoff at or
 * above Nyquist) fails negotiation with an error naming the property, its value and the allowed
 * range; while playing it is refused with a warning and the previous coefficients stay.
 *
 * Coming from stock audiocheblimit (type=1): an even order here peaks at 0 dB in the passband, as
 * scipy's, so its gain at DC (low-pass; at Nyquist for high-pass) is -ripple dB. audiocheblimit
 * puts that point at 0 dB instead (its passband peaks at +ripple dB): its response is this one
 * raised by exactly `ripple` dB. To get it, add an fxgain of +ripple dB, e.g. audiocheblimit
 * type=1 poles=4 ripple=3 cutoff=4000 is `fxchebyshev1 order=4 ripple=3 cutoff=4000 ! fxgain
 * gain=3` (inside fxchain the gain folds into the cascade). Odd orders have 0 dB at DC in both;
 * audiocheblimit rounds `poles` up to an even number (poles=3 runs 4 poles).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 audiotestsrc wave=white-noise ! audioconvert ! fxchebyshev1 mode=high-pass
 * cutoff=500 order=6 ripple=1 ! audioconvert ! autoaudiosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxchebyshev1.h"

GST_DEBUG_CATEGORY_STATIC(gst_fx_chebyshev1_debug);
#define GST_CAT_DEFAULT gst_fx_chebyshev1_debug

struct _GstFxChebyshev1 {
  GstFxIirFamily parent;
};

G_DEFINE_TYPE(GstFxChebyshev1, gst_fx_chebyshev1, GST_TYPE_FX_IIR_FAMILY)
GST_ELEMENT_REGISTER_DEFINE(fxchebyshev1, "fxchebyshev1", GST_RANK_NONE, GST_TYPE_FX_CHEBYSHEV1);

static void gst_fx_chebyshev1_class_init(GstFxChebyshev1Class *klass)
{
  GST_DEBUG_CATEGORY_INIT(gst_fx_chebyshev1_debug, "fxchebyshev1", 0,
                          "Chebyshev type I IIR filter");

  gst_fx_iir_family_class_setup(
      GST_FX_IIR_FAMILY_CLASS(klass), FX_FAMILY_CHEBYSHEV1, FX_MAX_ORDER, 0.5, 40.0,
      "Chebyshev type I IIR filter",
      "Chebyshev type I filter (equiripple passband of ripple dB), low-pass, high-pass, band-pass "
      "or band-reject, order 1 to 64, as a second-order-sections cascade");
}

static void gst_fx_chebyshev1_init(GstFxChebyshev1 *self)
{
  (void) self;
}
