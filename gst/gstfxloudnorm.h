/* gst-fx — fxloudnorm: live EBU R128 loudness normaliser with a true-peak limiter.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_LOUDNORM_H
#define GST_FX_LOUDNORM_H

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/audio/gstaudiofilter.h>

G_BEGIN_DECLS

#define GST_TYPE_FX_LOUDNORM (gst_fx_loudnorm_get_type())
G_DECLARE_FINAL_TYPE(GstFxLoudnorm, gst_fx_loudnorm, GST, FX_LOUDNORM, GstAudioFilter)

GST_ELEMENT_REGISTER_DECLARE(fxloudnorm);

G_END_DECLS

#endif
