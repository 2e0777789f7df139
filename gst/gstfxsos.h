/* gst-fx — fxsos: a cascade of second-order sections given as coefficients.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_SOS_H
#define GST_FX_SOS_H

#include "gstfxiir.h"

G_BEGIN_DECLS

/* Most rows the `sections` property accepts. */
#define GST_FX_SOS_MAX_SECTIONS 512

#define GST_TYPE_FX_SOS (gst_fx_sos_get_type())
G_DECLARE_FINAL_TYPE(GstFxSos, gst_fx_sos, GST, FX_SOS, GstFxIir)

GST_ELEMENT_REGISTER_DECLARE(fxsos);

G_END_DECLS

#endif
