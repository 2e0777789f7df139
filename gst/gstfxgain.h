/* gst-fx — fxgain: gain in dB with a click-free ramp and optional clipping.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_GAIN_H
#define GST_FX_GAIN_H

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/audio/gstaudiofilter.h>

G_BEGIN_DECLS

#define GST_TYPE_FX_GAIN (gst_fx_gain_get_type())
G_DECLARE_FINAL_TYPE(GstFxGain, gst_fx_gain, GST, FX_GAIN, GstAudioFilter)

GST_ELEMENT_REGISTER_DECLARE(fxgain);

/* The current settings, for fxchain: the linear factor 10^(gain/20) (0 when muted) and whether
 * the element clips (a clipping fxgain cannot be folded into a cascade). Thread-safe. */
void gst_fx_gain_get_linear(GstFxGain *self, double *linear_gain, gboolean *clip);

/* A counter that changes whenever `gain`, `clip` or `mute` is set; read without locking, so that
 * fxchain can tell per buffer, at the cost of one atomic load, whether to call
 * gst_fx_gain_get_linear(). Read it before gst_fx_gain_get_linear(): a change in between is seen
 * again next time. */
guint gst_fx_gain_get_serial(GstFxGain *self);

G_END_DECLS

#endif
