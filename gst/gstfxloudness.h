/* gst-fx — fxloudness: EBU R128 / BS.1770 loudness meter posting messages on the bus.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_LOUDNESS_H
#define GST_FX_LOUDNESS_H

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/audio/gstaudiofilter.h>

#include "loudness.h"

G_BEGIN_DECLS

#define GST_TYPE_FX_LOUDNESS (gst_fx_loudness_get_type())
G_DECLARE_FINAL_TYPE(GstFxLoudness, gst_fx_loudness, GST, FX_LOUDNESS, GstAudioFilter)

GST_ELEMENT_REGISTER_DECLARE(fxloudness);

/* The libebur128 channel type of a GStreamer channel position: LFE channels are left out,
 * surround channels weighted as BS.1770 says. */
int gst_fx_loudness_channel_type(GstAudioChannelPosition pos);

/* Shared with fxnormalize mode=lufs: sets the meter's channel types from the positions of
 * `info` (positioned layouts of more than two channels), and adds `frames` interleaved frames in
 * `info`'s format (F32, F64, S16 or S32; other formats are ignored). */
void gst_fx_loudness_map_channels(fx_loud_t *meter, const GstAudioInfo *info);
void gst_fx_loudness_add(fx_loud_t *meter, GstAudioFormat format, const guint8 *data, gsize frames);

G_END_DECLS

#endif
