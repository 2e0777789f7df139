/* gst-fx — fxlinkwitzriley: Linkwitz–Riley crossover filter.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_LINKWITZ_RILEY_H
#define GST_FX_LINKWITZ_RILEY_H

#include "gstfxiir.h"

G_BEGIN_DECLS

/**
 * GstFxCrossoverMode:
 * @GST_FX_CROSSOVER_MODE_LOW_PASS: the low band
 * @GST_FX_CROSSOVER_MODE_HIGH_PASS: the high band
 */
typedef enum {
  GST_FX_CROSSOVER_MODE_LOW_PASS = FX_MODE_LOW_PASS,
  GST_FX_CROSSOVER_MODE_HIGH_PASS = FX_MODE_HIGH_PASS,
} GstFxCrossoverMode;

#define GST_TYPE_FX_CROSSOVER_MODE (gst_fx_crossover_mode_get_type())
GType gst_fx_crossover_mode_get_type(void);

#define GST_TYPE_FX_LINKWITZ_RILEY (gst_fx_linkwitz_riley_get_type())
G_DECLARE_FINAL_TYPE(GstFxLinkwitzRiley, gst_fx_linkwitz_riley, GST, FX_LINKWITZ_RILEY, GstFxIir)

GST_ELEMENT_REGISTER_DECLARE(fxlinkwitzriley);

G_END_DECLS

#endif
