/* gst-fx — fxeq: N-band parametric EQ (RBJ Audio-EQ-Cookbook bands) as one cascade.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_EQ_H
#define GST_FX_EQ_H

#include "gstfxiir.h"

G_BEGIN_DECLS

/**
 * GstFxEqBandType:
 * @GST_FX_EQ_BAND_PEAKING: peaking EQ (uses gain)
 * @GST_FX_EQ_BAND_LOW_SHELF: low shelf (uses gain)
 * @GST_FX_EQ_BAND_HIGH_SHELF: high shelf (uses gain)
 * @GST_FX_EQ_BAND_LOW_PASS: second-order low-pass
 * @GST_FX_EQ_BAND_HIGH_PASS: second-order high-pass
 * @GST_FX_EQ_BAND_NOTCH: notch
 */
typedef enum {
  GST_FX_EQ_BAND_PEAKING = FX_BIQUAD_PEAKING,
  GST_FX_EQ_BAND_LOW_SHELF = FX_BIQUAD_LOW_SHELF,
  GST_FX_EQ_BAND_HIGH_SHELF = FX_BIQUAD_HIGH_SHELF,
  GST_FX_EQ_BAND_LOW_PASS = FX_BIQUAD_LOW_PASS,
  GST_FX_EQ_BAND_HIGH_PASS = FX_BIQUAD_HIGH_PASS,
  GST_FX_EQ_BAND_NOTCH = FX_BIQUAD_NOTCH,
} GstFxEqBandType;

#define GST_TYPE_FX_EQ_BAND_TYPE (gst_fx_eq_band_type_get_type())
GType gst_fx_eq_band_type_get_type(void);

/* One band: a GstObject child of the fxeq (name "band<i>"), found through GstChildProxy. */
#define GST_TYPE_FX_EQ_BAND (gst_fx_eq_band_get_type())
G_DECLARE_FINAL_TYPE(GstFxEqBand, gst_fx_eq_band, GST, FX_EQ_BAND, GstObject)

#define GST_TYPE_FX_EQ (gst_fx_eq_get_type())
G_DECLARE_FINAL_TYPE(GstFxEq, gst_fx_eq, GST, FX_EQ, GstFxIir)

GST_ELEMENT_REGISTER_DECLARE(fxeq);

G_END_DECLS

#endif
