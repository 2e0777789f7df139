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
 * sum of its pair); an odd last channel is a mono reverb. A mono input can also come out as
 * stereo, as with stock freeverb: when downstream asks for two channels (a capsfilter
 * `audio/x-raw,channels=2` after the element), the mono signal feeds both tanks of a stereo reverb
 * (the right one with the +23 spread) and `width` spreads them; mono stays mono when downstream
 * accepts it. Parameter changes ramp over 20 ms. At
 * EOS the reverb tail is pushed in extra buffers until it has decayed below -90 dBFS (60 s at
 * most).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 audiotestsrc wave=ticks ! audioconvert ! fxreverb room-size=0.8 damping=0.3
 * mix=0.35 ! audioconvert ! autoaudiosink
 * ]|
 * A mono source reverberated into stereo:
 * |[
 * gst-launch-1.0 audiotestsrc wave=ticks ! audio/x-raw,channels=1 ! audioconvert ! fxreverb
 * room-size=0.8 ! audio/x-raw,channels=2 ! audioconvert ! autoaudiosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxeffect.h"
#include "gstfxcommon.h"
#include "gstfxreverb.h"

#include "reverb.h"

#include <string.h>

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
  GstAudioInfo out_info; /* the src caps, set before setup() runs */
  gboolean upmix;        /* mono in, stereo out */
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
static GstCaps *gst_fx_reverb_transform_caps(GstBaseTransform *trans, GstPadDirection direction,
                                             GstCaps *caps, GstCaps *filter);
static gboolean gst_fx_reverb_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps);
static GstFlowReturn gst_fx_reverb_transform(GstBaseTransform *trans, GstBuffer *inbuf,
                                             GstBuffer *outbuf);

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
  trans_class->transform_caps = GST_DEBUG_FUNCPTR(gst_fx_reverb_transform_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR(gst_fx_reverb_set_caps);
  trans_class->transform = GST_DEBUG_FUNCPTR(gst_fx_reverb_transform);
  effect_class->ops = &reverb_ops;
}

static void gst_fx_reverb_init(GstFxReverb *self)
{
  self->settings.room_size = DEFAULT_ROOM_SIZE;
  self->settings.damping = DEFAULT_DAMPING;
  self->settings.mix = DEFAULT_MIX;
  self->settings.width = DEFAULT_WIDTH;
  gst_audio_info_init(&self->out_info);
}

/* The caps on the other side: the same caps first (so mono stays mono when downstream accepts
 * it), then, from a mono sink, stereo on the src pad (as stock freeverb), and from a stereo src,
 * mono on the sink pad. The channel-mask goes: mono has none, stereo takes the default. */
static GstCaps *gst_fx_reverb_transform_caps(GstBaseTransform *trans, GstPadDirection direction,
                                             GstCaps *caps, GstCaps *filter)
{
  const gint from = direction == GST_PAD_SINK ? 1 : 2, to = direction == GST_PAD_SINK ? 2 : 1;
  GstCaps *res = gst_caps_copy(caps), *other = gst_caps_new_empty();

  for (guint i = 0; i < gst_caps_get_size(caps); i++) {
    const GstStructure *s = gst_caps_get_structure(caps, i);
    const GValue *ch = gst_structure_get_value(s, "channels");
    GValue want = G_VALUE_INIT;
    GstStructure *t;
    gboolean admits;

    if (!ch)
      continue;
    g_value_init(&want, G_TYPE_INT);
    g_value_set_int(&want, from);
    admits = gst_value_can_intersect(ch, &want);
    g_value_unset(&want);
    if (!admits)
      continue;
    t = gst_structure_copy(s);
    gst_structure_set(t, "channels", G_TYPE_INT, to, NULL);
    gst_structure_remove_field(t, "channel-mask");
    gst_caps_append_structure(other, t);
  }
  res = gst_caps_merge(res, other);
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full(filter, res, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref(res);
    res = tmp;
  }
  GST_DEBUG_OBJECT(trans, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
                   direction == GST_PAD_SINK ? "sink" : "src", caps, res);
  return res;
}

/* Keeps the src format for setup() (GstAudioFilter hands it only the sink's) and runs in place
 * unless a mono input becomes stereo. */
static gboolean gst_fx_reverb_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
  GstFxReverb *self = GST_FX_REVERB(trans);
  GstAudioInfo in;

  if (!gst_audio_info_from_caps(&in, incaps) ||
      !gst_audio_info_from_caps(&self->out_info, outcaps) ||
      GST_AUDIO_INFO_FORMAT(&in) != GST_AUDIO_INFO_FORMAT(&self->out_info) ||
      GST_AUDIO_INFO_RATE(&in) != GST_AUDIO_INFO_RATE(&self->out_info)) {
    GST_WARNING_OBJECT(self, "cannot convert %" GST_PTR_FORMAT " to %" GST_PTR_FORMAT, incaps,
                       outcaps);
    return FALSE;
  }
  self->upmix = GST_AUDIO_INFO_CHANNELS(&in) == 1 && GST_AUDIO_INFO_CHANNELS(&self->out_info) == 2;
  if (!self->upmix && GST_AUDIO_INFO_CHANNELS(&in) != GST_AUDIO_INFO_CHANNELS(&self->out_info))
    return FALSE;
  gst_base_transform_set_in_place(trans, !self->upmix);
  return GST_BASE_TRANSFORM_CLASS(gst_fx_reverb_parent_class)->set_caps(trans, incaps, outcaps);
}

/* Mono to stereo: each input sample goes to both channels of the output (Freeverb's mono input:
 * the stereo pair fed the same signal twice), then the stereo reverb runs in place on the output
 * like any other buffer. The copy moves whole samples, whatever their format. */
static GstFlowReturn gst_fx_reverb_transform(GstBaseTransform *trans, GstBuffer *inbuf,
                                             GstBuffer *outbuf)
{
  GstFxReverb *self = GST_FX_REVERB(trans);
  gsize width = (gsize) GST_AUDIO_INFO_BPF(&GST_AUDIO_FILTER(trans)->info), frames;
  GstMapInfo in, out;

  g_return_val_if_fail(self->upmix && width > 0, GST_FLOW_NOT_NEGOTIATED);
  if (!gst_buffer_map(inbuf, &in, GST_MAP_READ))
    return GST_FLOW_ERROR;
  if (!gst_buffer_map(outbuf, &out, GST_MAP_WRITE)) {
    gst_buffer_unmap(inbuf, &in);
    return GST_FLOW_ERROR;
  }
  frames = MIN(in.size / width, out.size / (2 * width));
  for (gsize f = 0; f < frames; f++) {
    memcpy(out.data + 2 * f * width, in.data + f * width, width);
    memcpy(out.data + (2 * f + 1) * width, in.data + f * width, width);
  }
  gst_buffer_unmap(inbuf, &in);
  gst_buffer_unmap(outbuf, &out);
  gst_buffer_resize(outbuf, 0, (gssize) (frames * 2 * width));
  return GST_BASE_TRANSFORM_CLASS(gst_fx_reverb_parent_class)->transform_ip(trans, outbuf);
}

/* @info is the sink's format; the engine is made for the src's (stereo for a mono input that
 * becomes stereo). */
static gboolean gst_fx_reverb_setup(GstAudioFilter *filter, const GstAudioInfo *sink_info)
{
  GstFxReverb *self = GST_FX_REVERB(filter);
  const GstAudioInfo *info = &self->out_info;
  gint rate = GST_AUDIO_INFO_RATE(info), channels = GST_AUDIO_INFO_CHANNELS(info);
  gsize bytes = fx_reverb_bytes(channels, rate);
  fx_reverb_t *dsp;

  (void) sink_info; /* the same as self->out_info but for the channels */
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
