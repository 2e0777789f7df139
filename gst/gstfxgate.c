/* gst-fx — fxgate: downward expander and noise gate with hold and a floor.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:element-fxgate
 * @title: fxgate
 * @short_description: downward expander and noise gate with hold and a floor
 *
 * Below `threshold` every dB of input level drop becomes `ratio` dB of output drop (a downward
 * expander; a large ratio is a hard gate), never more attenuation than `range` dB (the floor). The
 * soft knee, the detectors and `link` are as in fxcompressor. The gain opens with the `attack`
 * time constant, stays open `hold` ms after the level last called for it, then closes with the
 * `release` time constant. An optional `look-ahead` opens the gate before the onset (reported as
 * latency).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=voice.wav ! decodebin ! audioconvert ! fxgate threshold=-45
 * ratio=20 range=-60 attack=0.5 hold=20 release=150 ! audioconvert ! autoaudiosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxgate.h"

GST_DEBUG_CATEGORY_STATIC(gst_fx_gate_debug);

struct _GstFxGate {
  GstFxDynamics parent;
};

G_DEFINE_TYPE(GstFxGate, gst_fx_gate, GST_TYPE_FX_DYNAMICS)
GST_ELEMENT_REGISTER_DEFINE(fxgate, "fxgate", GST_RANK_NONE, GST_TYPE_FX_GATE);

static void gst_fx_gate_class_init(GstFxGateClass *klass)
{
  GST_DEBUG_CATEGORY_INIT(gst_fx_gate_debug, "fxgate", 0, "Noise gate / expander");
  gst_fx_dynamics_class_setup(GST_FX_DYNAMICS_CLASS(klass), FX_DYN_GATE, gst_fx_gate_debug);
  gst_element_class_set_static_metadata(
      GST_ELEMENT_CLASS(klass), "Noise gate / expander", "Filter/Effect/Audio",
      "Noise gate and downward expander: below the threshold the level falls by ratio dB per input "
      "dB, down to the range floor, with soft knee, attack, hold and release",
      "gst-fx developers");
}

static void gst_fx_gate_init(GstFxGate *self)
{
  gst_fx_dynamics_instance_setup(GST_FX_DYNAMICS(self));
}
