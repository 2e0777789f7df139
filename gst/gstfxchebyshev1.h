/* gst-fx — fxchebyshev1: Chebyshev type I IIR filter.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_CHEBYSHEV1_H
#define GST_FX_CHEBYSHEV1_H

#include "gstfxiirfamily.h"

G_BEGIN_DECLS

#define GST_TYPE_FX_CHEBYSHEV1 (gst_fx_chebyshev1_get_type())
G_DECLARE_FINAL_TYPE(GstFxChebyshev1, gst_fx_chebyshev1, GST, FX_CHEBYSHEV1, GstFxIirFamily)

GST_ELEMENT_REGISTER_DECLARE(fxchebyshev1);

G_END_DECLS

#endif
