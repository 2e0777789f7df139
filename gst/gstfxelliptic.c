/* gst-fx — fxelliptic: Elliptic (Cauer) IIR filter.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:element-fxelliptic
 * @title: fxelliptic
 * @short_description: Elliptic (Cauer) IIR filter
 *
 * Elliptic (Cauer) filter designed like scipy.signal.ellip(order, ripple, attenuation, Wn, btype,
 * output='sos'): equiripple in both bands, the steepest transition for a given order. `order` is
 * limited to 24 (past that the design itself degenerates).
 *
 * A parameter change while playing is redesigned at once and crossfaded in over about 5 ms,
 * keeping the filter history (no clicks); every DSP property can be automated with a
 * #GstControlSource. A value that cannot be designed for the negotiated rate (e.g. a cutoff at or
 * above Nyquist) fails negotiation with an error naming the property, its value and the allowed
 * range; while playing it is refused with a warning and the previous coefficients stay.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 audiotestsrc wave=white-noise ! audioconvert ! fxelliptic mode=band-pass
 * lower-frequency=300 upper-frequency=3400 order=6 ripple=0.5 attenuation=60 ! audioconvert !
 * autoaudiosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxelliptic.h"

GST_DEBUG_CATEGORY_STATIC(gst_fx_elliptic_debug);
#define GST_CAT_DEFAULT gst_fx_elliptic_debug

struct _GstFxElliptic {
  GstFxIirFamily parent;
};

G_DEFINE_TYPE(GstFxElliptic, gst_fx_elliptic, GST_TYPE_FX_IIR_FAMILY)
GST_ELEMENT_REGISTER_DEFINE(fxelliptic, "fxelliptic", GST_RANK_NONE, GST_TYPE_FX_ELLIPTIC);

static void gst_fx_elliptic_class_init(GstFxEllipticClass *klass)
{
  GST_DEBUG_CATEGORY_INIT(gst_fx_elliptic_debug, "fxelliptic", 0, "Elliptic (Cauer) IIR filter");

  gst_fx_iir_family_class_setup(
      GST_FX_IIR_FAMILY_CLASS(klass), FX_FAMILY_ELLIPTIC, FX_ELLIPTIC_MAX_ORDER, 0.5, 60.0,
      "Elliptic (Cauer) IIR filter",
      "Elliptic (Cauer) filter with ripple dB passband ripple and attenuation dB stopband "
      "attenuation, low-pass, high-pass, band-pass or band-reject, order 1 to 24");
}

static void gst_fx_elliptic_init(GstFxElliptic *self)
{
  gst_fx_iir_family_set_defaults(GST_FX_IIR_FAMILY(self), 0.5, 60.0);
}
