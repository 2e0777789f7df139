/* gst-fx — GstFxIirFamily: the base class of the classic filter families (fxbutterworth,
 * fxchebyshev1, fxchebyshev2, fxelliptic): their shared properties and design from fx_design_iir().
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_IIR_FAMILY_H
#define GST_FX_IIR_FAMILY_H

#include "gstfxiir.h"

G_BEGIN_DECLS

#define GST_TYPE_FX_IIR_FAMILY (gst_fx_iir_family_get_type())
G_DECLARE_DERIVABLE_TYPE(GstFxIirFamily, gst_fx_iir_family, GST, FX_IIR_FAMILY, GstFxIir)

struct _GstFxIirFamilyClass {
  GstFxIirClass parent_class;

  /* Set by subclasses in class_init (through gst_fx_iir_family_class_setup). */
  fx_family_t family;
  int max_order;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
};

/* Sets the family and installs `mode`, `cutoff`, `lower-frequency`, `upper-frequency` and `order`
 * (1..max_order) on the subclass, plus `ripple` (Chebyshev I, elliptic) and `attenuation`
 * (Chebyshev II, elliptic) with the given defaults; then sets the element's metadata (@longname,
 * class "Filter/Effect/Audio", @description). */
void gst_fx_iir_family_class_setup(GstFxIirFamilyClass *klass, fx_family_t family, int max_order,
                                   double default_ripple, double default_attenuation,
                                   const gchar *longname, const gchar *description);

/* Sets the defaults of ripple/attenuation for a subclass instance (from its instance_init). */
void gst_fx_iir_family_set_defaults(GstFxIirFamily *self, double ripple, double attenuation);

G_END_DECLS

#endif
