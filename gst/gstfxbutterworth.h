/* gst-fx — fxbutterworth: Butterworth IIR filter.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_BUTTERWORTH_H
#define GST_FX_BUTTERWORTH_H

#include "gstfxiirfamily.h"

G_BEGIN_DECLS

#define GST_TYPE_FX_BUTTERWORTH (gst_fx_butterworth_get_type())
G_DECLARE_FINAL_TYPE(GstFxButterworth, gst_fx_butterworth, GST, FX_BUTTERWORTH, GstFxIirFamily)

GST_ELEMENT_REGISTER_DECLARE(fxbutterworth);

G_END_DECLS

#endif
