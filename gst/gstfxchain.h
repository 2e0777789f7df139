/* gst-fx — fxchain: a bin that fuses runs of adjacent IIR stages into one cascade.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_CHAIN_H
#define GST_FX_CHAIN_H

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_FX_CHAIN (gst_fx_chain_get_type())
G_DECLARE_FINAL_TYPE(GstFxChain, gst_fx_chain, GST, FX_CHAIN, GstBin)

GST_ELEMENT_REGISTER_DECLARE(fxchain);

G_END_DECLS

#endif
