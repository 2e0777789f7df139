/* gst-fx — GstFxIirDesign: shared base of fxbutterworth, fxchebyshev1, fxchebyshev2, fxelliptic.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_IIR_DESIGN_H
#define GST_FX_IIR_DESIGN_H

#include "gstfxiir.h"

G_BEGIN_DECLS

/**
 * GstFxFilterMode:
 * @GST_FX_FILTER_MODE_LOW_PASS: low-pass at `cutoff`
 * @GST_FX_FILTER_MODE_HIGH_PASS: high-pass at `cutoff`
 * @GST_FX_FILTER_MODE_BAND_PASS: band-pass from `lower-frequency` to `upper-frequency`
 * @GST_FX_FILTER_MODE_BAND_REJECT: band-reject from `lower-frequency` to `upper-frequency`
 */
typedef enum {
  GST_FX_FILTER_MODE_LOW_PASS = FX_MODE_LOW_PASS,
  GST_FX_FILTER_MODE_HIGH_PASS = FX_MODE_HIGH_PASS,
  GST_FX_FILTER_MODE_BAND_PASS = FX_MODE_BAND_PASS,
  GST_FX_FILTER_MODE_BAND_REJECT = FX_MODE_BAND_REJECT,
} GstFxFilterMode;

#define GST_TYPE_FX_FILTER_MODE (gst_fx_filter_mode_get_type())
GType gst_fx_filter_mode_get_type(void);

#define GST_TYPE_FX_IIR_DESIGN (gst_fx_iir_design_get_type())
G_DECLARE_DERIVABLE_TYPE(GstFxIirDesign, gst_fx_iir_design, GST, FX_IIR_DESIGN, GstFxIir)

struct _GstFxIirDesignClass {
  GstFxIirClass parent_class;

  /* Set by subclasses in class_init (through gst_fx_iir_design_class_setup). */
  fx_family_t family;
  int max_order;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
};

/* Sets the family and installs `mode`, `cutoff`, `lower-frequency`, `upper-frequency` and `order`
 * (1..max_order) on the subclass, plus `ripple` (Chebyshev I, elliptic) and `attenuation`
 * (Chebyshev II, elliptic) with the given defaults; then sets the element's metadata (@longname,
 * class "Filter/Effect/Audio", @description). */
void gst_fx_iir_design_class_setup(GstFxIirDesignClass *klass, fx_family_t family, int max_order,
                                   double default_ripple, double default_attenuation,
                                   const gchar *longname, const gchar *description);

/* Sets the defaults of ripple/attenuation for a subclass instance (from its instance_init). */
void gst_fx_iir_design_set_defaults(GstFxIirDesign *self, double ripple, double attenuation);

G_END_DECLS

#endif
