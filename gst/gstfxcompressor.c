/* gst-fx — fxcompressor: feed-forward compressor with soft knee, peak/RMS detector and look-ahead.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:element-fxcompressor
 * @title: fxcompressor
 * @short_description: feed-forward compressor with soft knee, peak/RMS detector and look-ahead
 *
 * Reduces the level above `threshold` by `ratio` with a quadratic soft knee of width `knee` dB
 * (Giannoulis, Massberg and Reiss, JAES 2012). The detector (`peak`: |x|, `rms`: a one-pole mean
 * of x^2 with time constant `rms-window` ms) feeds the static gain computer; the gain in dB is then
 * smoothed by a one-pole whose time constant is `attack` ms while the gain falls and `release` ms
 * while it rises (after a step the gain has covered 1-1/e of it after one time constant). `makeup`
 * dB is added last. With `link` (default) the loudest channel drives one gain for all channels;
 * otherwise each channel is compressed on its own. A `look-ahead` in ms delays the audio so the
 * gain reacts before a transient; the delay is reported as latency (LATENCY query and a latency
 * message) and the delayed tail is pushed at EOS. State is carried across buffers, so any
 * buffer split gives the same output.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=in.wav ! decodebin ! audioconvert ! fxcompressor threshold=-24
 * ratio=4 knee=6 attack=5 release=120 makeup=6 ! audioconvert ! autoaudiosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxcompressor.h"

GST_DEBUG_CATEGORY_STATIC(gst_fx_compressor_debug);

struct _GstFxCompressor {
  GstFxDynamics parent;
};

G_DEFINE_TYPE(GstFxCompressor, gst_fx_compressor, GST_TYPE_FX_DYNAMICS)
GST_ELEMENT_REGISTER_DEFINE(fxcompressor, "fxcompressor", GST_RANK_NONE, GST_TYPE_FX_COMPRESSOR);

static void gst_fx_compressor_class_init(GstFxCompressorClass *klass)
{
  GST_DEBUG_CATEGORY_INIT(gst_fx_compressor_debug, "fxcompressor", 0, "Compressor");
  gst_fx_dynamics_class_setup(GST_FX_DYNAMICS_CLASS(klass), FX_DYN_COMPRESSOR,
                              gst_fx_compressor_debug);
  gst_element_class_set_static_metadata(
      GST_ELEMENT_CLASS(klass), "Compressor", "Filter/Effect/Audio",
      "Feed-forward dynamic range compressor: threshold, ratio, quadratic "
      "soft knee, attack and release in the log domain, makeup gain, peak "
      "or RMS detector, linked or per-channel, optional look-ahead",
      "gst-fx developers");
}

static void gst_fx_compressor_init(GstFxCompressor *self)
{
  gst_fx_dynamics_instance_setup(GST_FX_DYNAMICS(self));
}
