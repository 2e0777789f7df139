/* gst-fx — GstFxEffect: the base class of the effects with a tail (fxdelay, fxreverb).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxeffect.h"
#include "gstfxcommon.h"
#include "gstfxpreset.h"

#include <string.h>

typedef struct {
  GstClockTime end_pts; /* end of the last input buffer (NONE when unknown) */
  guint64 end_offset;   /* offset_end of the last input buffer (NONE when unknown) */
  gboolean seen;        /* a buffer went through since the last reset */
} GstFxTail;

typedef struct {
  gpointer dsp;      /* streaming thread */
  GstAudioInfo info; /* the format dsp runs on: the src pad's (fxreverb's mono to stereo: stereo) */
  gboolean is_f64;
  GstFxTail tail;
  GstFxNonfiniteLimit nonfinite;
} GstFxEffectPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_CODE(GstFxEffect, gst_fx_effect, GST_TYPE_AUDIO_FILTER,
                                 G_ADD_PRIVATE(GstFxEffect)
                                     G_IMPLEMENT_INTERFACE(GST_TYPE_PRESET,
                                                           gst_fx_preset_interface_init))

/* Runs the DSP object over @frames interleaved frames of @data in place; non-zero when the input
 * held NaN or Inf. */
static int process(GstFxEffect *self, gpointer data, gsize frames)
{
  GstFxEffectPrivate *priv = gst_fx_effect_get_instance_private(self);
  const GstFxEffectOps *ops = GST_FX_EFFECT_GET_CLASS(self)->ops;

  return priv->is_f64 ? ops->process_f64(priv->dsp, data, frames)
                      : ops->process_f32(priv->dsp, data, frames);
}

static void tail_reset(GstFxTail *t)
{
  t->end_pts = GST_CLOCK_TIME_NONE;
  t->end_offset = GST_BUFFER_OFFSET_NONE;
  t->seen = FALSE;
}

/* Records where @buf (of @frames frames at @rate) ends. */
static void tail_track(GstFxTail *t, GstBuffer *buf, gsize frames, gint rate)
{
  GstClockTime pts = GST_BUFFER_PTS(buf), dur = GST_BUFFER_DURATION(buf);

  t->seen = TRUE;
  if (!GST_CLOCK_TIME_IS_VALID(pts))
    t->end_pts = GST_CLOCK_TIME_NONE;
  else if (GST_CLOCK_TIME_IS_VALID(dur))
    t->end_pts = pts + dur;
  else
    t->end_pts = pts + gst_util_uint64_scale_int(frames, GST_SECOND, rate);
  if (GST_BUFFER_OFFSET_END_IS_VALID(buf))
    t->end_offset = GST_BUFFER_OFFSET_END(buf);
  else if (GST_BUFFER_OFFSET_IS_VALID(buf))
    t->end_offset = GST_BUFFER_OFFSET(buf) + frames;
  else
    t->end_offset = GST_BUFFER_OFFSET_NONE;
}

/* At EOS: pushes buffers of GST_FX_TAIL_BLOCK frames rendered from silence, timestamped on from
 * the end of the last input buffer, until the effect's tail bound falls below
 * GST_FX_TAIL_THRESHOLD or GST_FX_TAIL_MAX_SECONDS of tail went out. Nothing when no buffer went
 * through since the last reset. The DSP object exists. */
static GstFlowReturn tail_drain(GstFxEffect *self)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM(self);
  GstFxEffectPrivate *priv = gst_fx_effect_get_instance_private(self);
  const GstFxEffectOps *ops = GST_FX_EFFECT_GET_CLASS(self)->ops;
  const GstAudioInfo *info = &priv->info;
  GstFxTail *t = &priv->tail;
  gint rate = GST_AUDIO_INFO_RATE(info);
  gsize bpf = GST_AUDIO_INFO_BPF(info);
  guint64 done = 0, max_frames;
  GstFlowReturn ret = GST_FLOW_OK;

  if (!t->seen || rate < 1 || bpf == 0)
    return GST_FLOW_OK;
  max_frames = (guint64) rate * GST_FX_TAIL_MAX_SECONDS;
  while (done < max_frames && ops->tail_bound(priv->dsp) >= GST_FX_TAIL_THRESHOLD) {
    gsize n = GST_FX_TAIL_BLOCK;
    GstBuffer *buf = gst_buffer_new_allocate(NULL, n * bpf, NULL);
    GstMapInfo map;

    if (!buf || !gst_buffer_map(buf, &map, GST_MAP_WRITE)) {
      if (buf)
        gst_buffer_unref(buf);
      GST_ELEMENT_ERROR(trans, RESOURCE, FAILED, (NULL), ("cannot allocate a tail buffer"));
      return GST_FLOW_ERROR;
    }
    memset(map.data, 0, map.size);
    process(self, map.data, n);
    gst_buffer_unmap(buf, &map);
    if (GST_CLOCK_TIME_IS_VALID(t->end_pts)) {
      GstClockTime a = t->end_pts + gst_util_uint64_scale_int(done, GST_SECOND, rate);
      GstClockTime b = t->end_pts + gst_util_uint64_scale_int(done + n, GST_SECOND, rate);
      GST_BUFFER_PTS(buf) = a;
      GST_BUFFER_DURATION(buf) = b - a;
    }
    if (t->end_offset != GST_BUFFER_OFFSET_NONE) {
      GST_BUFFER_OFFSET(buf) = t->end_offset + done;
      GST_BUFFER_OFFSET_END(buf) = t->end_offset + done + n;
    }
    done += n;
    GST_LOG_OBJECT(trans, "pushing %" G_GSIZE_FORMAT " tail frames", n);
    ret = gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(trans), buf);
    if (ret != GST_FLOW_OK)
      break;
  }
  GST_DEBUG_OBJECT(trans, "tail: %" G_GUINT64_FORMAT " frames", done);
  t->seen = FALSE;
  return ret;
}

static void free_dsp(GstFxEffect *self)
{
  GstFxEffectPrivate *priv = gst_fx_effect_get_instance_private(self);

  if (priv->dsp)
    GST_FX_EFFECT_GET_CLASS(self)->ops->free(priv->dsp);
  priv->dsp = NULL;
}

void gst_fx_effect_set_dsp(GstFxEffect *self, gpointer dsp, const GstAudioInfo *info)
{
  GstFxEffectPrivate *priv = gst_fx_effect_get_instance_private(self);

  free_dsp(self);
  priv->dsp = dsp;
  priv->info = *info;
  priv->is_f64 = GST_AUDIO_INFO_FORMAT(info) == GST_AUDIO_FORMAT_F64;
}

gpointer gst_fx_effect_get_dsp(GstFxEffect *self)
{
  GstFxEffectPrivate *priv = gst_fx_effect_get_instance_private(self);

  return priv->dsp;
}

static void reset_stream(GstFxEffect *self)
{
  GstFxEffectPrivate *priv = gst_fx_effect_get_instance_private(self);

  tail_reset(&priv->tail);
  gst_fx_nonfinite_reset(&priv->nonfinite);
  if (priv->dsp)
    GST_FX_EFFECT_GET_CLASS(self)->ops->reset(priv->dsp);
}

static gboolean gst_fx_effect_start(GstBaseTransform *trans)
{
  reset_stream(GST_FX_EFFECT(trans));
  return TRUE;
}

static gboolean gst_fx_effect_stop(GstBaseTransform *trans)
{
  free_dsp(GST_FX_EFFECT(trans));
  return TRUE;
}

static void gst_fx_effect_finalize(GObject *object)
{
  free_dsp(GST_FX_EFFECT(object));
  G_OBJECT_CLASS(gst_fx_effect_parent_class)->finalize(object);
}

static GstFlowReturn gst_fx_effect_transform_ip(GstBaseTransform *trans, GstBuffer *buf)
{
  GstFxEffect *self = GST_FX_EFFECT(trans);
  GstFxEffectPrivate *priv = gst_fx_effect_get_instance_private(self);
  gsize bpf = GST_AUDIO_INFO_BPF(&priv->info);
  GstMapInfo map;
  gsize frames;
  int bad;
  GstFlowReturn ret = gst_fx_map_writable(GST_ELEMENT(self), bpf > 0 && priv->dsp, buf, &map);

  if (ret != GST_FLOW_OK)
    return ret;
  frames = map.size / bpf;
  bad = process(self, map.data, frames);
  gst_buffer_unmap(buf, &map);
  tail_track(&priv->tail, buf, frames, GST_AUDIO_INFO_RATE(&priv->info));
  gst_fx_nonfinite_warn(GST_ELEMENT(self),
                        gst_fx_nonfinite_check(&priv->nonfinite, GST_BUFFER_PTS(buf), bad != 0),
                        GST_STREAM_ERROR_FAILED);
  return GST_FLOW_OK;
}

static gboolean gst_fx_effect_sink_event(GstBaseTransform *trans, GstEvent *event)
{
  GstFxEffect *self = GST_FX_EFFECT(trans);
  GstFxEffectPrivate *priv = gst_fx_effect_get_instance_private(self);

  switch (GST_EVENT_TYPE(event)) {
  case GST_EVENT_EOS:
    if (priv->dsp)
      tail_drain(self);
    break;
  case GST_EVENT_FLUSH_STOP:
  case GST_EVENT_STREAM_START:
    reset_stream(self);
    break;
  default:
    break;
  }
  return GST_BASE_TRANSFORM_CLASS(gst_fx_effect_parent_class)->sink_event(trans, event);
}

static void gst_fx_effect_class_init(GstFxEffectClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);

  /* Inherited by the subclasses. */
  gst_fx_add_audio_pad_templates(GST_AUDIO_FILTER_CLASS(klass));
  gobject_class->finalize = gst_fx_effect_finalize;
  trans_class->start = GST_DEBUG_FUNCPTR(gst_fx_effect_start);
  trans_class->stop = GST_DEBUG_FUNCPTR(gst_fx_effect_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR(gst_fx_effect_sink_event);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR(gst_fx_effect_transform_ip);
  trans_class->transform_ip_on_passthrough = FALSE;
}

static void gst_fx_effect_init(GstFxEffect *self)
{
  GstFxEffectPrivate *priv = gst_fx_effect_get_instance_private(self);

  tail_reset(&priv->tail);
  gst_fx_nonfinite_reset(&priv->nonfinite);
  gst_audio_info_init(&priv->info);
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
}
