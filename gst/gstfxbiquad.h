/* gst-fx — fxbiquad: RBJ Audio-EQ-Cookbook biquad.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_BIQUAD_H
#define GST_FX_BIQUAD_H

#include "gstfxiir.h"

G_BEGIN_DECLS

/**
 * GstFxBiquadType:
 * @GST_FX_BIQUAD_TYPE_LOW_PASS: low-pass
 * @GST_FX_BIQUAD_TYPE_HIGH_PASS: high-pass
 * @GST_FX_BIQUAD_TYPE_BAND_PASS: band-pass, 0 dB peak gain
 * @GST_FX_BIQUAD_TYPE_BAND_PASS_PEAK: band-pass, constant skirt gain (peak gain = Q)
 * @GST_FX_BIQUAD_TYPE_NOTCH: notch
 * @GST_FX_BIQUAD_TYPE_ALL_PASS: all-pass
 * @GST_FX_BIQUAD_TYPE_PEAKING: peaking EQ (uses gain)
 * @GST_FX_BIQUAD_TYPE_LOW_SHELF: low shelf (uses gain)
 * @GST_FX_BIQUAD_TYPE_HIGH_SHELF: high shelf (uses gain)
 */
typedef enum {
  GST_FX_BIQUAD_TYPE_LOW_PASS = FX_BIQUAD_LOW_PASS,
  GST_FX_BIQUAD_TYPE_HIGH_PASS = FX_BIQUAD_HIGH_PASS,
  GST_FX_BIQUAD_TYPE_BAND_PASS = FX_BIQUAD_BAND_PASS,
  GST_FX_BIQUAD_TYPE_BAND_PASS_PEAK = FX_BIQUAD_BAND_PASS_PEAK,
  GST_FX_BIQUAD_TYPE_NOTCH = FX_BIQUAD_NOTCH,
  GST_FX_BIQUAD_TYPE_ALL_PASS = FX_BIQUAD_ALL_PASS,
  GST_FX_BIQUAD_TYPE_PEAKING = FX_BIQUAD_PEAKING,
  GST_FX_BIQUAD_TYPE_LOW_SHELF = FX_BIQUAD_LOW_SHELF,
  GST_FX_BIQUAD_TYPE_HIGH_SHELF = FX_BIQUAD_HIGH_SHELF,
} GstFxBiquadType;

#define GST_TYPE_FX_BIQUAD_TYPE (gst_fx_biquad_type_get_type())
GType gst_fx_biquad_type_get_type(void);

#define GST_TYPE_FX_BIQUAD (gst_fx_biquad_get_type())
G_DECLARE_FINAL_TYPE(GstFxBiquad, gst_fx_biquad, GST, FX_BIQUAD, GstFxIir)

GST_ELEMENT_REGISTER_DECLARE(fxbiquad);

G_END_DECLS

#endif
