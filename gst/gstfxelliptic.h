/* gst-fx — fxelliptic: Elliptic (Cauer) IIR filter.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_ELLIPTIC_H
#define GST_FX_ELLIPTIC_H

#include "gstfxiirfamily.h"

G_BEGIN_DECLS

#define GST_TYPE_FX_ELLIPTIC (gst_fx_elliptic_get_type())
G_DECLARE_FINAL_TYPE(GstFxElliptic, gst_fx_elliptic, GST, FX_ELLIPTIC, GstFxIirFamily)

GST_ELEMENT_REGISTER_DECLARE(fxelliptic);

G_END_DECLS

#endif
