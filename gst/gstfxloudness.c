/* gst-fx — fxloudness: EBU R128 / BS.1770 loudness meter posting messages on the bus.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:element-fxloudness
 * @title: fxloudness
 * @short_description: EBU R128 loudness meter (momentary, short-term, integrated, range, peaks)
 *
 * A passthrough analyser, like the stock `level`, that measures loudness as ITU-R BS.1770-4 and
 * EBU R128 define it, through libebur128 (the measurement is libebur128's, verified in the test
 * suite against EBU Tech 3341 and 3342 test signals). Every `interval` ns of audio it posts an
 * element message named `loudness` with the fields
 *
 * - `timestamp`, `stream-time`, `running-time`, `duration` (GstClockTime): the interval the
 *   message covers (timestamp: its start, running-time: its end);
 * - `momentary` (400 ms window), `short-term` (3 s window), `integrated` (gated, since the start
 *   of the stream) in LUFS and `loudness-range` (EBU Tech 3342) in LU, all gdouble; -inf while a
 *   window is not yet full or the audio is silent;
 * - `true-peak` (dBTP, 4x oversampled) and `sample-peak` (dBFS), GstValueArray of gdouble, one
 *   per channel, the largest since the start; `max-true-peak` and `max-sample-peak` the largest
 *   over all channels.
 *
 * The same values are in read-only properties. The integrated loudness, range and peaks start
 * again at a flush, at a format change and when the element stops. LFE channels (by the channel
 * positions) are left out of the loudness, surround channels are weighted +1.5 dB as BS.1770
 * says. libebur128 measures 1 to 64 channels at 16 Hz or more: other streams pass with a warning
 * and no values.
 *
 * Audio passes through untouched (F32, F64, S16 and S32, interleaved), except NaN and Inf
 * samples, which become 0 as in every gst-fx element (one rate-limited warning) and are measured
 * as 0. The interval and post-messages are controllable.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -m filesrc location=in.wav ! decodebin ! audioconvert ! fxloudness
 * interval=1000000000 ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "gstfxloudness.h"
#include "gstfxcommon.h"
#include "gstfxpreset.h"

#include "finite.h"
#include "loudness.h"

GST_DEBUG_CATEGORY_STATIC(gst_fx_loudness_debug);
#define GST_CAT_DEFAULT gst_fx_loudness_debug

#define DEFAULT_INTERVAL (GST_SECOND / 10)
#define DEFAULT_POST_MESSAGES TRUE

#define LOUDNESS_CAPS                                                                              \
  "audio/x-raw, format=(string){ " GST_AUDIO_NE(F32) ", " GST_AUDIO_NE(F64) ", " GST_AUDIO_NE(     \
      S16) ", " GST_AUDIO_NE(S32) " }, rate=(int)[ 1, MAX ], channels=(int)[ 1, MAX ], "           \
                                  "layout=(string)interleaved"

enum {
  PROP_0,
  PROP_INTERVAL,
  PROP_POST_MESSAGES,
  PROP_MOMENTARY,
  PROP_SHORT_TERM,
  PROP_INTEGRATED,
  PROP_LOUDNESS_RANGE,
  PROP_TRUE_PEAK,
  PROP_SAMPLE_PEAK,
};

struct _GstFxLoudness {
  GstAudioFilter parent;

  /* Settings and last values (object lock). */
  guint64 interval;
  gboolean post_messages;
  double momentary, short_term, integrated, range, true_peak, sample_peak;

  /* Stream state (streaming thread; the meter is also read under the object lock). */
  fx_loud_t *meter;
  guint64 interval_frames; /* frames measured since the last message */
  GstClockTime interval_start;
  /* timestamps are counted in frames from the PTS of the first buffer (or of a discontinuity),
   * so that rounded buffer timestamps do not make intervals overlap */
  GstClockTime base_pts;
  guint64 base_frames;
  GstFxNonfiniteLimit nonfinite;
};

G_DEFINE_TYPE_WITH_CODE(GstFxLoudness, gst_fx_loudness, GST_TYPE_AUDIO_FILTER,
                        G_IMPLEMENT_INTERFACE(GST_TYPE_PRESET, gst_fx_preset_interface_init))
GST_ELEMENT_REGISTER_DEFINE(fxloudness, "fxloudness", GST_RANK_NONE, GST_TYPE_FX_LOUDNESS);

int gst_fx_loudness_channel_type(GstAudioChannelPosition pos)
{
  switch (pos) {
  case GST_AUDIO_CHANNEL_POSITION_LFE1:
  case GST_AUDIO_CHANNEL_POSITION_LFE2:
    return FX_LOUD_CH_UNUSED;
  case GST_AUDIO_CHANNEL_POSITION_FRONT_LEFT:
    return FX_LOUD_CH_LEFT;
  case GST_AUDIO_CHANNEL_POSITION_FRONT_RIGHT:
    return FX_LOUD_CH_RIGHT;
  case GST_AUDIO_CHANNEL_POSITION_FRONT_CENTER:
  case GST_AUDIO_CHANNEL_POSITION_MONO:
    return FX_LOUD_CH_CENTER;
  case GST_AUDIO_CHANNEL_POSITION_REAR_LEFT:
  case GST_AUDIO_CHANNEL_POSITION_SIDE_LEFT:
    return FX_LOUD_CH_LEFT_SURROUND;
  case GST_AUDIO_CHANNEL_POSITION_REAR_RIGHT:
  case GST_AUDIO_CHANNEL_POSITION_SIDE_RIGHT:
    return FX_LOUD_CH_RIGHT_SURROUND;
  default:
    return FX_LOUD_CH_CENTER; /* weight 1, as a front channel */
  }
}

static void gst_fx_loudness_set_property(GObject *object, guint prop_id, const GValue *value,
                                         GParamSpec *pspec)
{
  GstFxLoudness *self = GST_FX_LOUDNESS(object);

  GST_OBJECT_LOCK(self);
  switch (prop_id) {
  case PROP_INTERVAL:
    self->interval = g_value_get_uint64(value);
    break;
  case PROP_POST_MESSAGES:
    self->post_messages = g_value_get_boolean(value);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK(self);
}

static void gst_fx_loudness_get_property(GObject *object, guint prop_id, GValue *value,
                                         GParamSpec *pspec)
{
  GstFxLoudness *self = GST_FX_LOUDNESS(object);

  GST_OBJECT_LOCK(self);
  switch (prop_id) {
  case PROP_INTERVAL:
    g_value_set_uint64(value, self->interval);
    break;
  case PROP_POST_MESSAGES:
    g_value_set_boolean(value, self->post_messages);
    break;
  case PROP_MOMENTARY:
    g_value_set_double(value, self->momentary);
    break;
  case PROP_SHORT_TERM:
    g_value_set_double(value, self->short_term);
    break;
  case PROP_INTEGRATED:
    g_value_set_double(value, self->integrated);
    break;
  case PROP_LOUDNESS_RANGE:
    g_value_set_double(value, self->range);
    break;
  case PROP_TRUE_PEAK:
    g_value_set_double(value, self->true_peak);
    break;
  case PROP_SAMPLE_PEAK:
    g_value_set_double(value, self->sample_peak);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK(self);
}

static void clear_values(GstFxLoudness *self)
{
  GST_OBJECT_LOCK(self);
  self->momentary = self->short_term = self->integrated = -HUGE_VAL;
  self->true_peak = self->sample_peak = -HUGE_VAL;
  self->range = 0.0;
  GST_OBJECT_UNLOCK(self);
  self->interval_frames = 0;
  self->interval_start = GST_CLOCK_TIME_NONE;
  self->base_pts = GST_CLOCK_TIME_NONE;
  self->base_frames = 0;
}

static void free_meter(GstFxLoudness *self)
{
  fx_loud_free(self->meter);
  self->meter = NULL;
}

static void gst_fx_loudness_finalize(GObject *object)
{
  free_meter(GST_FX_LOUDNESS(object));
  G_OBJECT_CLASS(gst_fx_loudness_parent_class)->finalize(object);
}

static gboolean gst_fx_loudness_setup(GstAudioFilter *filter, const GstAudioInfo *info)
{
  GstFxLoudness *self = GST_FX_LOUDNESS(filter);
  int ch = GST_AUDIO_INFO_CHANNELS(info), rate = GST_AUDIO_INFO_RATE(info);

  free_meter(self);
  clear_values(self);
  self->meter = fx_loud_new(ch, (unsigned long) rate);
  if (self->meter == NULL) {
    /* the audio still passes; the values stay -inf */
    GST_ELEMENT_WARNING(self, STREAM, FORMAT, ("cannot measure the loudness of this stream"),
                        ("libebur128 measures 1 to 64 channels at 16 Hz or more, this stream has "
                         "%d channels at %d Hz",
                         ch, rate));
    return TRUE;
  }
  gst_fx_loudness_map_channels(self->meter, info);
  return TRUE;
}

static gboolean gst_fx_loudness_stop(GstBaseTransform *trans)
{
  GstFxLoudness *self = GST_FX_LOUDNESS(trans);

  free_meter(self);
  clear_values(self);
  gst_fx_nonfinite_reset(&self->nonfinite);
  return TRUE;
}

static GValue peaks_array(fx_loud_t *meter, int ch, gboolean true_peak)
{
  GValue a = G_VALUE_INIT;

  g_value_init(&a, GST_TYPE_ARRAY);
  for (int c = 0; c < ch; c++) {
    GValue v = G_VALUE_INIT;
    g_value_init(&v, G_TYPE_DOUBLE);
    g_value_set_double(
        &v, fx_loud_db(true_peak ? fx_loud_true_peak(meter, c) : fx_loud_sample_peak(meter, c)));
    gst_value_array_append_and_take_value(&a, &v);
  }
  return a;
}

/* Reads the meter into the properties and, when asked, posts the message of the interval that
 * ends at frame `end_frames` after interval_start. */
static void report(GstFxLoudness *self, gboolean post)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM(self);
  const GstAudioInfo *info = &GST_AUDIO_FILTER(self)->info;
  int ch = GST_AUDIO_INFO_CHANNELS(info);
  double m = fx_loud_momentary(self->meter), st = fx_loud_shortterm(self->meter);
  double i = fx_loud_integrated(self->meter), lra = fx_loud_range(self->meter);
  double tp = fx_loud_db(fx_loud_true_peak(self->meter, -1));
  double sp = fx_loud_db(fx_loud_sample_peak(self->meter, -1));
  GstClockTime duration =
      gst_util_uint64_scale_int(self->interval_frames, GST_SECOND, GST_AUDIO_INFO_RATE(info));
  GstClockTime start = self->interval_start, end = GST_CLOCK_TIME_NONE, stream_time;
  GstStructure *s;
  GValue a;

  GST_OBJECT_LOCK(self);
  self->momentary = m;
  self->short_term = st;
  self->integrated = i;
  self->range = lra;
  self->true_peak = tp;
  self->sample_peak = sp;
  GST_OBJECT_UNLOCK(self);
  if (!post)
    return;

  if (GST_CLOCK_TIME_IS_VALID(start))
    end = gst_segment_to_running_time(&trans->segment, GST_FORMAT_TIME, start + duration);
  stream_time = GST_CLOCK_TIME_IS_VALID(start)
                    ? gst_segment_to_stream_time(&trans->segment, GST_FORMAT_TIME, start)
                    : GST_CLOCK_TIME_NONE;
  s = gst_structure_new("loudness", "timestamp", G_TYPE_UINT64, start, "stream-time", G_TYPE_UINT64,
                        stream_time, "running-time", G_TYPE_UINT64, end, "duration", G_TYPE_UINT64,
                        duration, "momentary", G_TYPE_DOUBLE, m, "short-term", G_TYPE_DOUBLE, st,
                        "integrated", G_TYPE_DOUBLE, i, "loudness-range", G_TYPE_DOUBLE, lra,
                        "max-true-peak", G_TYPE_DOUBLE, tp, "max-sample-peak", G_TYPE_DOUBLE, sp,
                        NULL);
  a = peaks_array(self->meter, ch, TRUE);
  gst_structure_take_value(s, "true-peak", &a);
  a = peaks_array(self->meter, ch, FALSE);
  gst_structure_take_value(s, "sample-peak", &a);
  gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), s));
}

void gst_fx_loudness_map_channels(fx_loud_t *meter, const GstAudioInfo *info)
{
  int ch = GST_AUDIO_INFO_CHANNELS(info);

  if (!GST_AUDIO_INFO_IS_UNPOSITIONED(info) && ch > 2)
    for (int c = 0; c < ch; c++)
      fx_loud_set_channel(meter, c, gst_fx_loudness_channel_type(info->position[c]));
}

void gst_fx_loudness_add(fx_loud_t *meter, GstAudioFormat fmt, const guint8 *data, gsize frames)
{
  switch (fmt) {
  case GST_AUDIO_FORMAT_F32:
    fx_loud_add_f32(meter, (const float *) data, frames);
    break;
  case GST_AUDIO_FORMAT_F64:
    fx_loud_add_f64(meter, (const double *) data, frames);
    break;
  case GST_AUDIO_FORMAT_S16:
    fx_loud_add_s16(meter, (const short *) data, frames);
    break;
  case GST_AUDIO_FORMAT_S32:
    fx_loud_add_s32(meter, (const int *) data, frames);
    break;
  default:
    break;
  }
}

static GstFlowReturn gst_fx_loudness_transform_ip(GstBaseTransform *trans, GstBuffer *buf)
{
  GstFxLoudness *self = GST_FX_LOUDNESS(trans);
  const GstAudioInfo *info = &GST_AUDIO_FILTER(trans)->info;
  GstAudioFormat fmt = GST_AUDIO_INFO_FORMAT(info);
  gsize bpf = GST_AUDIO_INFO_BPF(info);
  gint rate = GST_AUDIO_INFO_RATE(info);
  int ch = GST_AUDIO_INFO_CHANNELS(info);
  gboolean is_float = fmt == GST_AUDIO_FORMAT_F32 || fmt == GST_AUDIO_FORMAT_F64;
  guint64 interval, interval_frames;
  gboolean post;
  GstMapInfo map;
  const guint8 *data;
  gsize frames, done = 0;
  GstFlowReturn ret;

  gst_fx_sync_controllers(trans, buf);
  if (GST_BUFFER_FLAG_IS_SET(buf, GST_BUFFER_FLAG_GAP) && gst_buffer_get_size(buf) == 0)
    return GST_FLOW_OK;
  ret = gst_fx_map_writable(GST_ELEMENT(self), bpf > 0, buf, &map);
  if (ret != GST_FLOW_OK)
    return ret;
  GST_OBJECT_LOCK(self);
  interval = self->interval;
  post = self->post_messages;
  GST_OBJECT_UNLOCK(self);
  interval_frames = MAX(1, gst_util_uint64_scale_int(interval, rate, GST_SECOND));

  frames = map.size / bpf;
  data = map.data;
  if (GST_BUFFER_PTS_IS_VALID(buf) &&
      (!GST_CLOCK_TIME_IS_VALID(self->base_pts) || GST_BUFFER_IS_DISCONT(buf))) {
    self->base_pts = GST_BUFFER_PTS(buf);
    self->base_frames = 0;
  }
  /* NaN/Inf become 0, as in every gst-fx element (they would also poison the gated mean for the
   * rest of the stream); only these samples are changed */
  if (is_float) {
    gboolean bad = fx_has_nonfinite(map.data, frames * (gsize) ch, fmt == GST_AUDIO_FORMAT_F64);
    if (bad)
      fx_zero_nonfinite(map.data, frames * (gsize) ch, fmt == GST_AUDIO_FORMAT_F64);
    gst_fx_nonfinite_warn(GST_ELEMENT(self),
                          gst_fx_nonfinite_check(&self->nonfinite, GST_BUFFER_PTS(buf), bad),
                          GST_STREAM_ERROR_FORMAT);
  }
  if (self->meter == NULL) {
    gst_buffer_unmap(buf, &map);
    return GST_FLOW_OK;
  }

  /* the buffer is cut where intervals end, so that each message covers exactly its interval */
  while (done < frames) {
    gsize n = MIN(frames - done, interval_frames - MIN(self->interval_frames, interval_frames));
    if (n == 0)
      n = frames - done;
    if (self->interval_frames == 0 && GST_CLOCK_TIME_IS_VALID(self->base_pts))
      self->interval_start =
          self->base_pts + gst_util_uint64_scale_int(self->base_frames + done, GST_SECOND, rate);
    gst_fx_loudness_add(self->meter, fmt, data + done * bpf, n);
    done += n;
    self->interval_frames += n;
    if (self->interval_frames >= interval_frames) {
      report(self, post);
      self->interval_frames = 0;
    }
  }
  self->base_frames += frames;
  gst_buffer_unmap(buf, &map);
  return GST_FLOW_OK;
}

static gboolean gst_fx_loudness_sink_event(GstBaseTransform *trans, GstEvent *event)
{
  GstFxLoudness *self = GST_FX_LOUDNESS(trans);

  switch (GST_EVENT_TYPE(event)) {
  case GST_EVENT_EOS:
    /* the last, partial interval: its message, so the final integrated value is on the bus */
    if (self->meter && self->interval_frames > 0) {
      gboolean post;
      GST_OBJECT_LOCK(self);
      post = self->post_messages;
      GST_OBJECT_UNLOCK(self);
      report(self, post);
      self->interval_frames = 0;
    }
    break;
  case GST_EVENT_FLUSH_STOP:
    if (self->meter)
      fx_loud_reset(self->meter);
    clear_values(self);
    gst_fx_nonfinite_reset(&self->nonfinite);
    break;
  default:
    break;
  }
  return GST_BASE_TRANSFORM_CLASS(gst_fx_loudness_parent_class)->sink_event(trans, event);
}

static void install_value(GObjectClass *klass, guint id, const gchar *name, const gchar *nick,
                          const gchar *blurb, double dflt)
{
  g_object_class_install_property(klass, id,
                                  g_param_spec_double(name, nick, blurb, -HUGE_VAL, G_MAXDOUBLE,
                                                      dflt,
                                                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

static void gst_fx_loudness_class_init(GstFxLoudnessClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  GstAudioFilterClass *filter_class = GST_AUDIO_FILTER_CLASS(klass);
  GstCaps *caps;

  GST_DEBUG_CATEGORY_INIT(gst_fx_loudness_debug, "fxloudness", 0, "Loudness meter");

  gobject_class->set_property = gst_fx_loudness_set_property;
  gobject_class->get_property = gst_fx_loudness_get_property;
  gobject_class->finalize = gst_fx_loudness_finalize;

  g_object_class_install_property(
      gobject_class, PROP_INTERVAL,
      g_param_spec_uint64("interval", "Interval",
                          "Interval of time between messages, in ns of audio (as level's)", 1,
                          G_MAXUINT64, DEFAULT_INTERVAL, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean("post-messages", "Post messages",
                           "Post a loudness element message every interval", DEFAULT_POST_MESSAGES,
                           G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  install_value(gobject_class, PROP_MOMENTARY, "momentary", "Momentary loudness",
                "Momentary loudness (400 ms) in LUFS at the last interval", -HUGE_VAL);
  install_value(gobject_class, PROP_SHORT_TERM, "short-term", "Short-term loudness",
                "Short-term loudness (3 s) in LUFS at the last interval", -HUGE_VAL);
  install_value(gobject_class, PROP_INTEGRATED, "integrated", "Integrated loudness",
                "Integrated (gated) loudness since the start in LUFS", -HUGE_VAL);
  install_value(gobject_class, PROP_LOUDNESS_RANGE, "loudness-range", "Loudness range",
                "Loudness range (EBU Tech 3342) since the start in LU", 0.0);
  install_value(gobject_class, PROP_TRUE_PEAK, "true-peak", "True peak",
                "Largest true peak of all channels since the start in dBTP", -HUGE_VAL);
  install_value(gobject_class, PROP_SAMPLE_PEAK, "sample-peak", "Sample peak",
                "Largest sample peak of all channels since the start in dBFS", -HUGE_VAL);

  gst_element_class_set_static_metadata(
      element_class, "Loudness meter", "Filter/Analyzer/Audio",
      "EBU R128 / ITU-R BS.1770 loudness meter (libebur128): momentary, short-term, integrated "
      "loudness, loudness range, true and sample peaks as bus messages",
      "gst-fx developers");

  caps = gst_caps_from_string(LOUDNESS_CAPS);
  gst_audio_filter_class_add_pad_templates(filter_class, caps);
  gst_caps_unref(caps);

  trans_class->transform_ip = GST_DEBUG_FUNCPTR(gst_fx_loudness_transform_ip);
  trans_class->stop = GST_DEBUG_FUNCPTR(gst_fx_loudness_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR(gst_fx_loudness_sink_event);
  filter_class->setup = GST_DEBUG_FUNCPTR(gst_fx_loudness_setup);
}

static void gst_fx_loudness_init(GstFxLoudness *self)
{
  self->interval = DEFAULT_INTERVAL;
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->interval_start = GST_CLOCK_TIME_NONE;
  self->base_pts = GST_CLOCK_TIME_NONE;
  self->momentary = self->short_term = self->integrated = -HUGE_VAL;
  self->true_peak = self->sample_peak = -HUGE_VAL;
  gst_base_transform_set_gap_aware(GST_BASE_TRANSFORM(self), TRUE);
  gst_fx_nonfinite_reset(&self->nonfinite);
}
