/* gst-fx — fxgain: gain in dB with a click-free ramp and optional clipping.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:element-fxgain
 * @title: fxgain
 * @short_description: gain in dB, click-free, optional hard clip
 *
 * Multiplies the signal by `gain` dB. A gain change (set directly or by a #GstControlSource) is
 * ramped linearly sample by sample over the next buffer, so it never steps or clicks. With `clip`
 * the output is hard-clipped to [-1, 1]. `mute`, as stock volume's, silences the output without
 * losing `gain`; muting and unmuting ramp like a gain change (to and from 0 over the next buffer),
 * so they do not click either. NaN and Inf input samples become 0 (one rate-limited
 * warning). At 0 dB without clipping the element is in passthrough (controllers are still synced)
 * and buffers pass untouched after a read-only scan; a buffer with NaN or Inf is copied if
 * needed and its bad samples become 0 as at any other gain. Inside `fxchain` a non-clipping fxgain
 * folds into the fused cascade.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 audiotestsrc ! audioconvert ! fxgain gain=-6 ! audioconvert ! autoaudiosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxgain.h"
#include "gstfxcommon.h"
#include "gstfxpreset.h"
#include "gstfxformat.h"

#include "finite.h"
#include "gain.h"

GST_DEBUG_CATEGORY_STATIC(gst_fx_gain_debug);
#define GST_CAT_DEFAULT gst_fx_gain_debug

#define DEFAULT_GAIN 0.0
#define DEFAULT_CLIP FALSE
#define DEFAULT_MUTE FALSE
#define MIN_GAIN (-120.0)
#define MAX_GAIN 60.0

enum {
  PROP_0,
  PROP_GAIN,
  PROP_CLIP,
  PROP_MUTE,
};

struct _GstFxGain {
  GstAudioFilter parent;

  /* Settings (object lock). */
  double gain_db;
  gboolean clip;
  gboolean mute;
  gint serial; /* atomic: bumped by every change of gain, clip or mute (lock-free check per
                * buffer) */

  /* Stream state (streaming thread). */
  double target;     /* the linear gain for this buffer (set by before_transform) */
  gboolean clip_now; /* clip for this buffer (set by before_transform) */
  double current;    /* the linear gain the last buffer ended with */
  gboolean have_current;
  gboolean is_f64;
  GstFxNonfiniteLimit nonfinite;
  GstFxQuant quant; /* integer streams */
};

/* dither, dither-seed, clipped: PROP_FORMAT + GstFxFormatProp (after the element's own ids) */
#define PROP_FORMAT 64

G_DEFINE_TYPE_WITH_CODE(GstFxGain, gst_fx_gain, GST_TYPE_AUDIO_FILTER,
                        G_IMPLEMENT_INTERFACE(GST_TYPE_PRESET, gst_fx_preset_interface_init))
GST_ELEMENT_REGISTER_DEFINE(fxgain, "fxgain", GST_RANK_NONE, GST_TYPE_FX_GAIN);

guint gst_fx_gain_get_serial(GstFxGain *self)
{
  return (guint) g_atomic_int_get(&self->serial);
}

static gboolean gst_fx_gain_setup(GstAudioFilter *filter, const GstAudioInfo *info);
static gboolean gst_fx_gain_start(GstBaseTransform *trans);
static gboolean gst_fx_gain_stop(GstBaseTransform *trans);
static void gst_fx_gain_before_transform(GstBaseTransform *trans, GstBuffer *buffer);
static gboolean gst_fx_gain_sink_event(GstBaseTransform *trans, GstEvent *event);
static GstFlowReturn gst_fx_gain_transform_ip(GstBaseTransform *trans, GstBuffer *buf);

static const GstFxPropField gain_fields[] = {
    {PROP_GAIN, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxGain, gain_db)},
    {PROP_CLIP, G_TYPE_BOOLEAN, G_STRUCT_OFFSET(GstFxGain, clip)},
    {PROP_MUTE, G_TYPE_BOOLEAN, G_STRUCT_OFFSET(GstFxGain, mute)},
};

/* The linear gain of the settings: 0 when muted. Object lock held. */
static double linear_of(const GstFxGain *self)
{
  return self->mute ? 0.0 : fx_gain_db_to_linear(self->gain_db);
}

static void gst_fx_gain_set_property(GObject *object, guint prop_id, const GValue *value,
                                     GParamSpec *pspec)
{
  GstFxGain *self = GST_FX_GAIN(object);

  if (gst_fx_quant_set_property(object, &self->quant, prop_id, PROP_FORMAT, value))
    return;
  if (gst_fx_props_set(object, self, gain_fields, G_N_ELEMENTS(gain_fields), prop_id, value, pspec))
    g_atomic_int_inc(&self->serial);
}

static void gst_fx_gain_get_property(GObject *object, guint prop_id, GValue *value,
                                     GParamSpec *pspec)
{
  if (gst_fx_quant_get_property(object, &GST_FX_GAIN(object)->quant, prop_id, PROP_FORMAT, value))
    return;
  gst_fx_props_get(object, object, gain_fields, G_N_ELEMENTS(gain_fields), prop_id, value, pspec);
}

/* CAPS: the element's format order first (gstfxformat.h). */
static gboolean gst_fx_gain_query(GstBaseTransform *trans, GstPadDirection direction,
                                  GstQuery *query)
{
  gboolean ret;

  if (gst_fx_query_caps_ours_first(trans, direction, query,
                                   GST_BASE_TRANSFORM_CLASS(gst_fx_gain_parent_class), &ret))
    return ret;
  return GST_BASE_TRANSFORM_CLASS(gst_fx_gain_parent_class)->query(trans, direction, query);
}

static void gst_fx_gain_class_init(GstFxGainClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  GstAudioFilterClass *filter_class = GST_AUDIO_FILTER_CLASS(klass);

  GST_DEBUG_CATEGORY_INIT(gst_fx_gain_debug, "fxgain", 0, "Gain");

  gobject_class->set_property = gst_fx_gain_set_property;
  gobject_class->get_property = gst_fx_gain_get_property;

  g_object_class_install_property(
      gobject_class, PROP_GAIN,
      g_param_spec_double("gain", "Gain",
                          "Gain in dB (-120..60); changes are ramped over one buffer", MIN_GAIN,
                          MAX_GAIN, DEFAULT_GAIN, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(gobject_class, PROP_CLIP,
                                  g_param_spec_boolean("clip", "Clip",
                                                       "Hard-clip the output to [-1, 1]",
                                                       DEFAULT_CLIP, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_MUTE,
      g_param_spec_boolean("mute", "Mute",
                           "Silence the output, keeping gain; ramped like a gain change",
                           DEFAULT_MUTE, GST_FX_DSP_PARAM_FLAGS));

  gst_element_class_set_static_metadata(element_class, "Gain", "Filter/Effect/Audio",
                                        "Gain in dB with a click-free per-sample ramp on "
                                        "changes and optional hard clipping to [-1, 1]",
                                        "gst-fx developers");

  gst_fx_install_format_properties(gobject_class, PROP_FORMAT);
  gst_fx_add_audio_pad_templates(filter_class);

  filter_class->setup = GST_DEBUG_FUNCPTR(gst_fx_gain_setup);
  trans_class->start = GST_DEBUG_FUNCPTR(gst_fx_gain_start);
  trans_class->stop = GST_DEBUG_FUNCPTR(gst_fx_gain_stop);
  trans_class->before_transform = GST_DEBUG_FUNCPTR(gst_fx_gain_before_transform);
  trans_class->sink_event = GST_DEBUG_FUNCPTR(gst_fx_gain_sink_event);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR(gst_fx_gain_transform_ip);
  trans_class->query = GST_DEBUG_FUNCPTR(gst_fx_gain_query);
  trans_class->transform_ip_on_passthrough = FALSE;
}

static void gst_fx_gain_init(GstFxGain *self)
{
  self->gain_db = DEFAULT_GAIN;
  self->clip = DEFAULT_CLIP;
  self->mute = DEFAULT_MUTE;
  self->target = 1.0;
  self->current = 1.0;
  gst_fx_nonfinite_reset(&self->nonfinite);
  gst_fx_quant_init(&self->quant);
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
  gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), TRUE);
}

void gst_fx_gain_get_linear(GstFxGain *self, double *linear_gain, gboolean *clip)
{
  g_return_if_fail(GST_IS_FX_GAIN(self));

  GST_OBJECT_LOCK(self);
  if (linear_gain)
    *linear_gain = linear_of(self);
  if (clip)
    *clip = self->clip;
  GST_OBJECT_UNLOCK(self);
}

static gboolean gst_fx_gain_setup(GstAudioFilter *filter, const GstAudioInfo *info)
{
  GstFxGain *self = GST_FX_GAIN(filter);
  GstAudioInfo work;

  /* S16 runs as F32 and S32 as F64, requantised on output (gstfxformat.h) */
  if (!gst_fx_quant_setup(GST_OBJECT(self), &self->quant, info, &work)) {
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, (NULL), ("cannot allocate a scratch buffer"));
    return FALSE;
  }
  self->is_f64 = GST_AUDIO_INFO_FORMAT(&work) == GST_AUDIO_FORMAT_F64;
  return TRUE;
}

static gboolean gst_fx_gain_start(GstBaseTransform *trans)
{
  GstFxGain *self = GST_FX_GAIN(trans);

  self->have_current = FALSE;
  gst_fx_nonfinite_reset(&self->nonfinite);
  gst_fx_quant_reset(GST_OBJECT(self), &self->quant);
  GST_OBJECT_LOCK(self);
  self->quant.clipped = 0;
  GST_OBJECT_UNLOCK(self);
  return TRUE;
}

/* The scratch buffer goes with the stream (set_caps allocates it again). */
static gboolean gst_fx_gain_stop(GstBaseTransform *trans)
{
  gst_fx_quant_clear(&GST_FX_GAIN(trans)->quant);
  return TRUE;
}

/* As gst-plugins-base's volume: sync the controllers to the buffer's stream time, then decide on
 * passthrough, so automation also works while the element is in passthrough. */
static void gst_fx_gain_before_transform(GstBaseTransform *trans, GstBuffer *buffer)
{
  GstFxGain *self = GST_FX_GAIN(trans);
  double target;
  gboolean clip, passthrough;

  gst_fx_sync_controllers(trans, buffer);

  GST_OBJECT_LOCK(self);
  target = linear_of(self);
  clip = self->clip;
  GST_OBJECT_UNLOCK(self);
  self->target = target;
  self->clip_now = clip;

  /* Passthrough only when nothing changes: unity gain now and at the end of the last buffer,
   * and no NaN or Inf in this buffer (a read-only scan; a buffer with one goes through
   * transform_ip, which replaces it by 0 as for any other gain). */
  passthrough = !clip && target == 1.0 && (!self->have_current || self->current == 1.0);
  /* (integer samples cannot be NaN or Inf) */
  if (passthrough && !gst_fx_quant_is_int(&self->quant)) {
    GstMapInfo map;
    if (gst_buffer_map(buffer, &map, GST_MAP_READ)) {
      gsize width = self->is_f64 ? sizeof(double) : sizeof(float);
      if (fx_has_nonfinite(map.data, map.size / width, self->is_f64))
        passthrough = FALSE;
      gst_buffer_unmap(buffer, &map);
    }
  }
  if (passthrough != gst_base_transform_is_passthrough(trans))
    gst_base_transform_set_passthrough(trans, passthrough);
  if (passthrough) {
    self->current = 1.0;
    self->have_current = TRUE;
  }
}

/* After a flush or at a new stream there is no audio to ramp from: the gain set when the next
 * buffer comes applies from its first sample, as at the start. Streaming thread, like the
 * buffers' before_transform and transform_ip that read have_current. */
static gboolean gst_fx_gain_sink_event(GstBaseTransform *trans, GstEvent *event)
{
  GstFxGain *self = GST_FX_GAIN(trans);

  if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP ||
      GST_EVENT_TYPE(event) == GST_EVENT_STREAM_START)
    self->have_current = FALSE;
  return GST_BASE_TRANSFORM_CLASS(gst_fx_gain_parent_class)->sink_event(trans, event);
}

static GstFlowReturn gst_fx_gain_transform_ip(GstBaseTransform *trans, GstBuffer *buf)
{
  GstFxGain *self = GST_FX_GAIN(trans);
  GstAudioFilter *filter = GST_AUDIO_FILTER(trans);
  gint channels = GST_AUDIO_INFO_CHANNELS(&filter->info);
  gsize bpf = GST_AUDIO_INFO_BPF(&filter->info);
  GstMapInfo map;
  double target = self->target, from;
  size_t frames, bad = 0;
  guint clip_warn = 0;
  gpointer data;
  GstFlowReturn ret = gst_fx_map_writable(GST_ELEMENT(self), bpf > 0 && channels > 0, buf, &map);

  if (ret != GST_FLOW_OK)
    return ret;
  /* target and clip_now: set by before_transform for this buffer. */
  from = self->have_current ? self->current : target;
  frames = map.size / bpf;
  /* an integer buffer is processed as floats in the scratch buffer, then requantised */
  data = frames > 0 ? gst_fx_quant_begin(&self->quant, map.data, frames) : NULL;
  if (data) {
    bad = fx_zero_nonfinite(data, frames * (size_t) channels, self->is_f64);
    if (self->is_f64)
      fx_gain_apply_f64((double *) data, frames, channels, from, target, self->clip_now);
    else
      fx_gain_apply_f32((float *) data, frames, channels, from, target, self->clip_now);
    self->current = target;
    self->have_current = TRUE;
    clip_warn =
        gst_fx_quant_end((GstObject *) self, &self->quant, map.data, frames, GST_BUFFER_PTS(buf));
  } else if (frames > 0) {
    gst_buffer_unmap(buf, &map);
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, (NULL), ("cannot grow the scratch buffer"));
    return GST_FLOW_ERROR;
  }
  gst_buffer_unmap(buf, &map);
  gst_fx_quant_warn((GstElement *) self, &self->quant, clip_warn);
  gst_fx_nonfinite_warn(GST_ELEMENT(self),
                        gst_fx_nonfinite_check(&self->nonfinite, GST_BUFFER_PTS(buf), bad > 0),
                        GST_STREAM_ERROR_FORMAT);
  return GST_FLOW_OK;
}
