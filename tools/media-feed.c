/* gst-fx — FxFeeder: a pipeline fed from the calling thread, and draining its appsinks into an
 * FxWriter (see media.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "media-private.h"

struct _FxFeeder {
  GstElement *pipeline;
  GstPad *src; /* ours: not in any element, linked to the pipeline's unlinked sink pad */
  GstBus *bus;
  guint streams; /* for unique stream ids */
};

FxFeeder *fx_feeder_new(const char *description, GError **error)
{
  GError *err = NULL;
  GstElement *pipeline =
      gst_parse_launch_full(description, NULL, GST_PARSE_FLAG_FATAL_ERRORS, &err);
  GstPad *sinkpad;
  FxFeeder *f;

  if (pipeline == NULL) {
    g_propagate_error(error, err);
    return NULL;
  }
  sinkpad =
      GST_IS_BIN(pipeline) ? gst_bin_find_unlinked_pad(GST_BIN(pipeline), GST_PAD_SINK) : NULL;
  if (sinkpad == NULL) {
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED, "no unlinked sink pad in \"%s\"",
                description);
    gst_object_unref(pipeline);
    return NULL;
  }
  /* An appsink that receives EOS waits (by default) until the application has pulled every
   * sample it holds. Here the application is the thread that pushes the EOS (fx_feeder_finish()),
   * and stages with a tail or a latency (fxdelay, fxreverb, fxnormalize, a look-ahead, a
   * low-latency fxfir) push their last buffers while handling that EOS: the appsink would wait for
   * a pull that cannot come. It must take the EOS at once; what it holds is pulled afterwards. */
  GstIterator *it = gst_bin_iterate_sinks(GST_BIN(pipeline));
  GValue item = G_VALUE_INIT;
  while (gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object(&item);
    if (GST_IS_APP_SINK(e))
      gst_app_sink_set_wait_on_eos(GST_APP_SINK(e), FALSE);
    g_value_reset(&item);
  }
  g_value_unset(&item);
  gst_iterator_free(it);
  f = g_new0(FxFeeder, 1);
  f->pipeline = pipeline;
  f->src = gst_pad_new("src", GST_PAD_SRC);
  gst_pad_link(f->src, sinkpad);
  gst_object_unref(sinkpad);
  f->bus = gst_element_get_bus(pipeline);
  return f;
}

GstElement *fx_feeder_get(FxFeeder *f, const char *name)
{
  GstElement *e = gst_bin_get_by_name(GST_BIN(f->pipeline), name);

  if (e != NULL)
    gst_object_unref(e); /* the pipeline keeps it */
  return e;
}

GstElement *fx_feeder_pipeline(FxFeeder *f)
{
  return f->pipeline;
}

void fx_feeder_stop(FxFeeder *f)
{
  gst_pad_set_active(f->src, FALSE);
  gst_element_set_state(f->pipeline, GST_STATE_NULL);
}

void fx_feeder_free(FxFeeder *f)
{
  if (f == NULL)
    return;
  fx_feeder_stop(f);
  gst_object_unref(f->bus);
  gst_object_unref(f->src);
  gst_object_unref(f->pipeline);
  g_free(f);
}

gboolean fx_feeder_failed(FxFeeder *f, GError **error)
{
  GstMessage *msg = gst_bus_pop_filtered(f->bus, GST_MESSAGE_ERROR);

  if (msg == NULL)
    return FALSE;
  fx_media_error_from_message(error, msg, "");
  gst_message_unref(msg);
  return TRUE;
}

/* After a refused push or event: the bus error, or a generic message. */
static void feeder_set_error(FxFeeder *f, GError **error, const char *what)
{
  if (!fx_feeder_failed(f, error))
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED, "the pipeline refused %s", what);
}

gboolean fx_feeder_start(FxFeeder *f, GstCaps *caps, GError **error)
{
  GstSegment segment;
  gchar *id;
  gboolean ok;

  fx_feeder_stop(f);
  if (gst_element_set_state(f->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    feeder_set_error(f, error, "to start");
    return FALSE;
  }
  gst_pad_set_active(f->src, TRUE);
  id = g_strdup_printf("gst-fx/%u", f->streams++);
  gst_segment_init(&segment, GST_FORMAT_TIME);
  ok = gst_pad_push_event(f->src, gst_event_new_stream_start(id)) &&
       gst_pad_push_event(f->src, gst_event_new_caps(caps)) &&
       gst_pad_push_event(f->src, gst_event_new_segment(&segment));
  g_free(id);
  if (!ok)
    feeder_set_error(f, error, "the stream format");
  return ok;
}

gboolean fx_feeder_push(FxFeeder *f, GstBuffer *buffer, GError **error)
{
  GstFlowReturn ret = gst_pad_push(f->src, buffer);

  if (ret != GST_FLOW_OK) {
    if (!fx_feeder_failed(f, error))
      g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED, "the pipeline stopped (%s)",
                  gst_flow_get_name(ret));
    return FALSE;
  }
  return TRUE;
}

gboolean fx_feeder_finish(FxFeeder *f, GPtrArray **warnings, GError **error)
{
  gboolean ok = FALSE;

  gst_pad_push_event(f->src, gst_event_new_eos());
  for (;;) {
    GstMessage *msg = gst_bus_timed_pop_filtered(
        f->bus, GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    GstMessageType type = GST_MESSAGE_TYPE(msg);

    if (type == GST_MESSAGE_EOS) {
      ok = TRUE;
    } else if (type == GST_MESSAGE_ERROR) {
      fx_media_error_from_message(error, msg, "");
    } else if (warnings != NULL) {
      GError *err = NULL;
      gst_message_parse_warning(msg, &err, NULL);
      if (*warnings == NULL)
        *warnings = g_ptr_array_new_with_free_func(g_free);
      if (!g_ptr_array_find_with_equal_func(*warnings, err->message, g_str_equal, NULL))
        g_ptr_array_add(*warnings, g_strdup(err->message));
      g_error_free(err);
    }
    gst_message_unref(msg);
    if (type != GST_MESSAGE_WARNING)
      break;
  }
  return ok;
}

gboolean fx_media_drain(GstAppSink *sink, FxWriter *w, GError **error)
{
  GstSample *sample;

  while ((sample = gst_app_sink_try_pull_sample(sink, 0)) != NULL) {
    GstBuffer *buf = gst_sample_get_buffer(sample);
    GstAudioInfo info;
    GstMapInfo map;
    gboolean ok;

    if (!gst_audio_info_from_caps(&info, gst_sample_get_caps(sample))) {
      g_set_error_literal(error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
                          "the chain produced unexpected caps");
      gst_sample_unref(sample);
      return FALSE;
    }
    gst_buffer_map(buf, &map, GST_MAP_READ);
    ok = fx_writer_write(w, map.data, map.size / GST_AUDIO_INFO_BPF(&info),
                         GST_AUDIO_INFO_CHANNELS(&info), GST_AUDIO_INFO_RATE(&info), error);
    gst_buffer_unmap(buf, &map);
    gst_sample_unref(sample);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}
