/* gst-fx — stream helpers shared by the effects with a tail (fxdelay, fxreverb).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxeffect.h"

#include <string.h>

void gst_fx_tail_reset(GstFxTail *t)
{
  t->end_pts = GST_CLOCK_TIME_NONE;
  t->end_offset = GST_BUFFER_OFFSET_NONE;
  t->seen = FALSE;
  t->nonfinite_last = GST_CLOCK_TIME_NONE;
  t->nonfinite_warned = FALSE;
}

void gst_fx_tail_track(GstFxTail *t, GstBuffer *buf, gsize frames, gint rate)
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

GstFlowReturn gst_fx_tail_drain(GstBaseTransform *trans, GstFxTail *t, const GstAudioInfo *info,
                                GstFxTailRender render, GstFxTailBound bound)
{
  gint rate = GST_AUDIO_INFO_RATE(info);
  gsize bpf = GST_AUDIO_INFO_BPF(info);
  guint64 done = 0, max_frames;
  GstFlowReturn ret = GST_FLOW_OK;

  if (!t->seen || rate < 1 || bpf == 0)
    return GST_FLOW_OK;
  max_frames = (guint64) rate * GST_FX_TAIL_MAX_SECONDS;
  while (done < max_frames && bound(trans) >= GST_FX_TAIL_THRESHOLD) {
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
    if (!render(trans, map.data, n)) {
      gst_buffer_unmap(buf, &map);
      gst_buffer_unref(buf);
      break;
    }
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

void gst_fx_tail_warn_nonfinite(GstBaseTransform *trans, GstFxTail *t, GstClockTime ts)
{
  gboolean warn = !t->nonfinite_warned;

  if (!warn && GST_CLOCK_TIME_IS_VALID(ts) && GST_CLOCK_TIME_IS_VALID(t->nonfinite_last))
    warn = ts >= t->nonfinite_last + GST_SECOND || ts < t->nonfinite_last;
  if (!warn)
    return;
  t->nonfinite_warned = TRUE;
  t->nonfinite_last = ts;
  GST_ELEMENT_WARNING(trans, STREAM, FAILED, ("NaN or Inf in the input: the effect was reset"),
                      ("non-finite sample in the buffer at %" GST_TIME_FORMAT, GST_TIME_ARGS(ts)));
}
