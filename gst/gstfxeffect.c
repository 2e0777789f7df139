/* gst-fx — GstFxEffect: the base class of the effects with a tail (fxdelay, fxreverb).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxeffect.h"
#include "gstfxcommon.h"
#include "gstfxpreset.h"
#include "gstfxformat.h"

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
  GstFxQuant quant; /* integer streams */
} GstFxEffectPrivate;

enum {
  PROP_0,
  PROP_FORMAT, /* dither, dither-seed, clipped: PROP_FORMAT + GstFxFormatProp */
};

G_DEFINE_ABSTRACT_TYPE_WITH_CODE(GstFxEffect, gst_fx_effect, GST_TYPE_AUDIO_FILTER,
                                 G_ADD_PRIVATE(GstFxEffect)
                                     G_IMPLEMENT_INTERFACE(GST_TYPE_PRESET,
                                                           gst_fx_preset_interface_init))

/* Runs the DSP object over @frames interleaved frames of @data (in the negotiated format) in
 * place; non-zero when the input held NaN or Inf. An integer buffer runs as floats in the scratch
 * buffer and is requantised; *@clip_warn: the buffers to report in a clipping warning (see
 * gst_fx_quant_end()). */
static int process(GstFxEffect *self, gpointer data, gsize frames, GstClockTime ts,
                   guint *clip_warn)
{
  GstFxEffectPrivate *priv = gst_fx_effect_get_instance_private(self);
  const GstFxEffectOps *ops = GST_FX_EFFECT_GET_CLASS(self)->ops;
  gpointer work = gst_fx_quant_begin(&priv->quant, data, frames);
  int bad;

  *clip_warn = 0;
  if (!work)
    return 0; /* out of memory: the buffer goes out unprocessed */
  bad = priv->is_f64 ? ops->process_f64(priv->dsp, work, frames)
                     : ops->process_f32(priv->dsp, work, frames);
  *clip_warn = gst_fx_quant_end((GstObject *) self, &priv->quant, data, frames, ts);
  return bad;
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
    guint clip_warn;

    if (!buf || !gst_buffer_map(buf, &map, GST_MAP_WRITE)) {
      if (buf)
        gst_buffer_unref(buf);
      GST_ELEMENT_ERROR(trans, RESOURCE, FAILED, (NULL), ("cannot allocate a tail buffer"));
      return GST_FLOW_ERROR;
    }
    memset(map.data, 0, map.size);
    process(self, map.data, n, GST_CLOCK_TIME_NONE, &clip_warn);
    gst_buffer_unmap(buf, &map);
    gst_fx_quant_warn((GstElement *) self, &priv->quant, clip_warn);
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
  GstAudioInfo work;

  free_dsp(self);
  priv->dsp = dsp;
  priv->info = *info;
  /* S16 runs as F32 and S32 as F64, requantised on output (gstfxformat.h); without memory for
   * the scratch buffer the stream fails here rather than pass unprocessed audio */
  if (!gst_fx_quant_setup(GST_OBJECT(self), &priv->quant, info, &work))
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, (NULL), ("cannot allocate a scratch buffer"));
  priv->is_f64 = GST_AUDIO_INFO_FORMAT(&work) == GST_AUDIO_FORMAT_F64;
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
  gst_fx_quant_reset(GST_OBJECT(self), &priv->quant);
  if (priv->dsp)
    GST_FX_EFFECT_GET_CLASS(self)->ops->reset(priv->dsp);
}

static gboolean gst_fx_effect_start(GstBaseTransform *trans)
{
  GstFxEffectPrivate *priv = gst_fx_effect_get_instance_private(GST_FX_EFFECT(trans));

  reset_stream(GST_FX_EFFECT(trans));
  GST_OBJECT_LOCK(trans);
  priv->quant.clipped = 0;
  GST_OBJECT_UNLOCK(trans);
  return TRUE;
}

static gboolean gst_fx_effect_stop(GstBaseTransform *trans)
{
  free_dsp(GST_FX_EFFECT(trans));
  return TRUE;
}

static void gst_fx_effect_finalize(GObject *object)
{
  GstFxEffectPrivate *priv = gst_fx_effect_get_instance_private(GST_FX_EFFECT(object));

  free_dsp(GST_FX_EFFECT(object));
  gst_fx_quant_clear(&priv->quant);
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
  guint clip_warn;
  GstFlowReturn ret = gst_fx_map_writable(GST_ELEMENT(self), bpf > 0 && priv->dsp, buf, &map);

  if (ret != GST_FLOW_OK)
    return ret;
  frames = map.size / bpf;
  bad = process(self, map.data, frames, GST_BUFFER_PTS(buf), &clip_warn);
  gst_buffer_unmap(buf, &map);
  gst_fx_quant_warn((GstElement *) self, &priv->quant, clip_warn);
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

/* CAPS: the element's format order first (gstfxformat.h). */
static gboolean gst_fx_effect_query(GstBaseTransform *trans, GstPadDirection direction,
                                    GstQuery *query)
{
  gboolean ret;

  if (gst_fx_query_caps_ours_first(trans, direction, query,
                                   GST_BASE_TRANSFORM_CLASS(gst_fx_effect_parent_class), &ret))
    return ret;
  return GST_BASE_TRANSFORM_CLASS(gst_fx_effect_parent_class)->query(trans, direction, query);
}

static void gst_fx_effect_set_property(GObject *object, guint prop_id, const GValue *value,
                                       GParamSpec *pspec)
{
  GstFxEffectPrivate *priv = gst_fx_effect_get_instance_private(GST_FX_EFFECT(object));

  if (!gst_fx_quant_set_property(object, &priv->quant, prop_id, PROP_FORMAT, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
}

static void gst_fx_effect_get_property(GObject *object, guint prop_id, GValue *value,
                                       GParamSpec *pspec)
{
  GstFxEffectPrivate *priv = gst_fx_effect_get_instance_private(GST_FX_EFFECT(object));

  if (!gst_fx_quant_get_property(object, &priv->quant, prop_id, PROP_FORMAT, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
}

static void gst_fx_effect_class_init(GstFxEffectClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);

  /* Inherited by the subclasses. */
  gst_fx_add_audio_pad_templates(GST_AUDIO_FILTER_CLASS(klass));
  gobject_class->finalize = gst_fx_effect_finalize;
  gobject_class->set_property = gst_fx_effect_set_property;
  gobject_class->get_property = gst_fx_effect_get_property;
  gst_fx_install_format_properties(gobject_class, PROP_FORMAT);
  trans_class->start = GST_DEBUG_FUNCPTR(gst_fx_effect_start);
  trans_class->stop = GST_DEBUG_FUNCPTR(gst_fx_effect_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR(gst_fx_effect_sink_event);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR(gst_fx_effect_transform_ip);
  trans_class->query = GST_DEBUG_FUNCPTR(gst_fx_effect_query);
  trans_class->transform_ip_on_passthrough = FALSE;
}

static void gst_fx_effect_init(GstFxEffect *self)
{
  GstFxEffectPrivate *priv = gst_fx_effect_get_instance_private(self);

  tail_reset(&priv->tail);
  gst_fx_nonfinite_reset(&priv->nonfinite);
  gst_audio_info_init(&priv->info);
  gst_fx_quant_init(&priv->quant);
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
}
