/* gst-fx — fxlimiter: look-ahead brick-wall limiter.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_LIMITER_H
#define GST_FX_LIMITER_H

#include "gstfxdynamics.h"

G_BEGIN_DECLS

#define GST_TYPE_FX_LIMITER (gst_fx_limiter_get_type())
G_DECLARE_FINAL_TYPE(GstFxLimiter, gst_fx_limiter, GST, FX_LIMITER, GstFxDynamics)

GST_ELEMENT_REGISTER_DECLARE(fxlimiter);

G_END_DECLS

#endif
