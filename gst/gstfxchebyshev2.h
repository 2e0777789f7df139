/* gst-fx — fxchebyshev2: Chebyshev type II IIR filter.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_CHEBYSHEV2_H
#define GST_FX_CHEBYSHEV2_H

#include "gstfxiirfamily.h"

G_BEGIN_DECLS

#define GST_TYPE_FX_CHEBYSHEV2 (gst_fx_chebyshev2_get_type())
G_DECLARE_FINAL_TYPE(GstFxChebyshev2, gst_fx_chebyshev2, GST, FX_CHEBYSHEV2, GstFxIirFamily)

GST_ELEMENT_REGISTER_DECLARE(fxchebyshev2);

G_END_DECLS

#endif
