/* gst-fx — fxcompressor: feed-forward compressor with soft knee, peak/RMS detector and look-ahead.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_COMPRESSOR_H
#define GST_FX_COMPRESSOR_H

#include "gstfxdynamics.h"

G_BEGIN_DECLS

#define GST_TYPE_FX_COMPRESSOR (gst_fx_compressor_get_type())
G_DECLARE_FINAL_TYPE(GstFxCompressor, gst_fx_compressor, GST, FX_COMPRESSOR, GstFxDynamics)

GST_ELEMENT_REGISTER_DECLARE(fxcompressor);

G_END_DECLS

#endif
