/* gst-fx — fxlimiter: look-ahead brick-wall limiter.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:element-fxlimiter
 * @title: fxlimiter
 * @short_description: look-ahead brick-wall limiter
 *
 * A true brick wall: no output sample ever exceeds `threshold` dBFS. Per frame the gain the
 * loudest channel needs is min(1, threshold / |x|); a sliding minimum over the look-ahead window,
 * a release one-pole (time constant `release` ms, gain rising only) and a moving average over the
 * window make a smooth gain that has fully reached its value when the peak leaves the look-ahead
 * delay. The output is delayed by `look-ahead` ms (default 5); that latency is answered in the
 * LATENCY query, announced with a latency message and the delayed tail is pushed at EOS. With
 * `link` = FALSE each channel is limited on its own.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=in.wav ! decodebin ! audioconvert ! fxlimiter threshold=-1
 * look-ahead=5 release=60 ! audioconvert ! autoaudiosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxlimiter.h"

GST_DEBUG_CATEGORY_STATIC(gst_fx_limiter_debug);

struct _GstFxLimiter {
  GstFxDynamics parent;
};

G_DEFINE_TYPE(GstFxLimiter, gst_fx_limiter, GST_TYPE_FX_DYNAMICS)
GST_ELEMENT_REGISTER_DEFINE(fxlimiter, "fxlimiter", GST_RANK_NONE, GST_TYPE_FX_LIMITER);

static void gst_fx_limiter_class_init(GstFxLimiterClass *klass)
{
  GST_DEBUG_CATEGORY_INIT(gst_fx_limiter_debug, "fxlimiter", 0, "Look-ahead limiter");
  gst_fx_dynamics_class_setup(GST_FX_DYNAMICS_CLASS(klass), FX_DYN_LIMITER, gst_fx_limiter_debug);
  gst_element_class_set_static_metadata(
      GST_ELEMENT_CLASS(klass), "Look-ahead limiter", "Filter/Effect/Audio",
      "Brick-wall look-ahead limiter: the output never exceeds the threshold; smooth gain from a "
      "sliding minimum, a release and a moving average over the look-ahead; latency reported",
      "gst-fx developers");
}

static void gst_fx_limiter_init(GstFxLimiter *self)
{
  gst_fx_dynamics_instance_setup(GST_FX_DYNAMICS(self));
}
