/* gst-fx — fxreverb: Freeverb-topology reverb with an EOS tail.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:element-fxreverb
 * @title: fxreverb
 * @short_description: Freeverb reverb (8 damped combs + 4 all-passes per channel)
 *
 * Jezar's Freeverb in double precision: per channel 8 parallel low-pass-feedback combs and 4
 * series all-passes with the classic tunings (combs 1116..1617, all-passes 556/441/341/225
 * samples, the right channel +23), scaled from 44.1 kHz to the stream's rate. `room-size` sets
 * the comb feedback (0.7 + 0.28 * room-size), `damping` the combs' low-pass, `width` the stereo
 * width of the wet signal and `mix` the dry/wet balance: output = (1 - mix) * dry + mix * wet,
 * where wet at mix 1 is Freeverb's wet output at its default wet level (wet = 1/3).
 *
 * Channels are processed in pairs (0,1), (2,3), ... as independent stereo reverbs (each fed the
 * sum of its pair); an odd last channel is a mono reverb. Parameter changes ramp over 20 ms. At
 * EOS the reverb tail is pushed in extra buffers until it has decayed below -90 dBFS (60 s at
 * most).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 audiotestsrc wave=ticks ! audioconvert ! fxreverb room-size=0.8 damping=0.3
 * mix=0.35 ! audioconvert ! autoaudiosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxeffect.h"
#include "gstfxcommon.h"
#include "gstfxreverb.h"

#include "reverb.h"

GST_DEBUG_CATEGORY_STATIC(gst_fx_reverb_debug);
#define GST_CAT_DEFAULT gst_fx_reverb_debug

#define DEFAULT_ROOM_SIZE 0.5
#define DEFAULT_DAMPING 0.5
#define DEFAULT_MIX 0.3
#define DEFAULT_WIDTH 1.0
/* Refuse reverb state larger than this. */
#define MAX_STATE_BYTES ((gsize) 1 << 31)

enum {
  PROP_0,
  PROP_ROOM_SIZE,
  PROP_DAMPING,
  PROP_MIX,
  PROP_WIDTH,
};

typedef struct {
  double room_size;
  double damping;
  double mix;
  double width;
} GstFxReverbSettings;

struct _GstFxReverb {
  GstFxEffect parent;

  /* Settings (object lock). */
  GstFxReverbSettings settings;

  /* Stream state (streaming thread). */
};

G_DEFINE_TYPE(GstFxReverb, gst_fx_reverb, GST_TYPE_FX_EFFECT)
GST_ELEMENT_REGISTER_DEFINE(fxreverb, "fxreverb", GST_RANK_NONE, GST_TYPE_FX_REVERB);

#define S_OFF(f) (G_STRUCT_OFFSET(GstFxReverb, settings) + G_STRUCT_OFFSET(GstFxReverbSettings, f))
static const GstFxPropField reverb_fields[] = {
    {PROP_ROOM_SIZE, G_TYPE_DOUBLE, S_OFF(room_size)},
    {PROP_DAMPING, G_TYPE_DOUBLE, S_OFF(damping)},
    {PROP_MIX, G_TYPE_DOUBLE, S_OFF(mix)},
    {PROP_WIDTH, G_TYPE_DOUBLE, S_OFF(width)},
};

static gboolean gst_fx_reverb_setup(GstAudioFilter *filter, const GstAudioInfo *info);
static void gst_fx_reverb_before_transform(GstBaseTransform *trans, GstBuffer *buffer);

static void gst_fx_reverb_set_property(GObject *object, guint prop_id, const GValue *value,
                                       GParamSpec *pspec)
{
  gst_fx_props_set(object, object, reverb_fields, G_N_ELEMENTS(reverb_fields), prop_id, value,
                   pspec);
}

static void gst_fx_reverb_get_property(GObject *object, guint prop_id, GValue *value,
                                       GParamSpec *pspec)
{
  gst_fx_props_get(object, object, reverb_fields, G_N_ELEMENTS(reverb_fields), prop_id, value,
                   pspec);
}

/* The DSP object's functions, for GstFxEffect. */
GST_FX_EFFECT_DEFINE_OPS(reverb_ops, fx_reverb_t, fx_reverb_process_f32, fx_reverb_process_f64,
                         fx_reverb_tail_bound, fx_reverb_reset, fx_reverb_free);

static void gst_fx_reverb_class_init(GstFxReverbClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  GstAudioFilterClass *filter_class = GST_AUDIO_FILTER_CLASS(klass);
  GstFxEffectClass *effect_class = GST_FX_EFFECT_CLASS(klass);

  GST_DEBUG_CATEGORY_INIT(gst_fx_reverb_debug, "fxreverb", 0, "Freeverb reverb");

  gobject_class->set_property = gst_fx_reverb_set_property;
  gobject_class->get_property = gst_fx_reverb_get_property;

  g_object_class_install_property(
      gobject_class, PROP_ROOM_SIZE,
      g_param_spec_double("room-size", "Room size",
                          "Room size (0..1): comb feedback 0.7 + 0.28 * room-size", 0.0, 1.0,
                          DEFAULT_ROOM_SIZE, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_DAMPING,
      g_param_spec_double("damping", "Damping", "High-frequency damping of the combs (0..1)", 0.0,
                          1.0, DEFAULT_DAMPING, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_MIX,
      g_param_spec_double("mix", "Mix", "Dry/wet balance: output = (1 - mix) * dry + mix * wet",
                          0.0, 1.0, DEFAULT_MIX, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_WIDTH,
      g_param_spec_double("width", "Width", "Stereo width of the wet signal (0 mono .. 1 full)",
                          0.0, 1.0, DEFAULT_WIDTH, GST_FX_DSP_PARAM_FLAGS));

  gst_element_class_set_static_metadata(element_class, "Reverb", "Filter/Effect/Audio",
                                        "Freeverb reverb (8 damped combs and 4 all-passes per "
                                        "channel, scaled to the rate) with the tail rendered "
                                        "at EOS",
                                        "gst-fx developers");

  filter_class->setup = GST_DEBUG_FUNCPTR(gst_fx_reverb_setup);
  trans_class->before_transform = GST_DEBUG_FUNCPTR(gst_fx_reverb_before_transform);
  effect_class->ops = &reverb_ops;
}

static void gst_fx_reverb_init(GstFxReverb *self)
{
  self->settings.room_size = DEFAULT_ROOM_SIZE;
  self->settings.damping = DEFAULT_DAMPING;
  self->settings.mix = DEFAULT_MIX;
  self->settings.width = DEFAULT_WIDTH;
}

static gboolean gst_fx_reverb_setup(GstAudioFilter *filter, const GstAudioInfo *info)
{
  GstFxReverb *self = GST_FX_REVERB(filter);
  gint rate = GST_AUDIO_INFO_RATE(info), channels = GST_AUDIO_INFO_CHANNELS(info);
  gsize bytes = fx_reverb_bytes(channels, rate);
  fx_reverb_t *dsp;

  if (bytes == 0 || bytes > MAX_STATE_BYTES) {
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT,
                      ("reverb state for %d channels at %d Hz is over the limit of %.0f MiB",
                       channels, rate, (double) MAX_STATE_BYTES / 1048576.0),
                      (NULL));
    return FALSE;
  }
  dsp = fx_reverb_new(channels, rate);
  if (!dsp) {
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT,
                      ("cannot allocate %" G_GSIZE_FORMAT " bytes of reverb state", bytes), (NULL));
    return FALSE;
  }
  gst_fx_effect_set_dsp(GST_FX_EFFECT(self), dsp, info);
  return TRUE;
}

static void gst_fx_reverb_before_transform(GstBaseTransform *trans, GstBuffer *buffer)
{
  GstFxReverb *self = GST_FX_REVERB(trans);
  fx_reverb_t *dsp;
  GstFxReverbSettings s;

  gst_fx_sync_controllers(trans, buffer);
  dsp = gst_fx_effect_get_dsp(GST_FX_EFFECT(self));
  if (!dsp)
    return;
  GST_OBJECT_LOCK(self);
  s = self->settings;
  GST_OBJECT_UNLOCK(self);
  fx_reverb_set(dsp, s.room_size, s.damping, s.mix, s.width);
}
