/* gst-fx — fxnormalize: whole-stream peak, RMS or percentile normalisation.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_NORMALIZE_H
#define GST_FX_NORMALIZE_H

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/audio/gstaudiofilter.h>

G_BEGIN_DECLS

#define GST_TYPE_FX_NORMALIZE (gst_fx_normalize_get_type())
G_DECLARE_FINAL_TYPE(GstFxNormalize, gst_fx_normalize, GST, FX_NORMALIZE, GstAudioFilter)

GST_ELEMENT_REGISTER_DECLARE(fxnormalize);

G_END_DECLS

#endif
