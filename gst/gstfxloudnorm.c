/* gst-fx — fxloudnorm: live EBU R128 loudness normaliser with a true-peak limiter.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:element-fxloudnorm
 * @title: fxloudnorm
 * @short_description: live loudness normaliser (target LUFS, loudness range, true-peak ceiling)
 *
 * Normalises a stream as it plays to `target-lufs` integrated loudness, keeps its loudness range
 * within about `loudness-range` LU and its true peak at or under `max-true-peak` dBTP: the
 * behaviour of ffmpeg's `loudnorm` (dynamic mode) and gst-plugins-rs' `audioloudnorm`, whose
 * defaults (-24 LUFS, 7 LU, -2 dBTP) it takes. Unlike fxnormalize it never waits for the end of
 * the stream and works on live sources.
 *
 * Every 100 ms the short-term loudness (3 s) and the integrated loudness so far are measured by
 * libebur128; the gain brings the integrated loudness to the target and pulls passages whose
 * short-term loudness lies more than half the range away from it back to the edge of the range.
 * Pauses (under -70 LUFS or 20 LU under the integrated loudness) keep the gain they had. The
 * gains are smoothed by a Gaussian over 3 s centred on the audio they apply to, then a
 * look-ahead limiter (10 ms, a 4x oversampling true-peak detector, 100 ms release) holds the
 * ceiling. The algorithm and its differences from loudnorm and audioloudnorm are in
 * docs/loudness.md.
 *
 * The output is delayed by the look-ahead, a little over 3.1 s, reported through the LATENCY
 * query (the first 3.1 s out are silence and the end of the input comes out at EOS, as with
 * fxlimiter's look-ahead). The settings are controllable and apply while playing: the target and
 * range from the next 100 ms block (through the 3 s smoothing), the ceiling at once. NaN and Inf
 * input samples are taken as 0 (one rate-limited warning). F32, F64, S16 and S32 (integers run
 * as floats and are requantised with `dither`), interleaved. Where
 * libebur128 cannot measure (more than 64 channels, rates under 16 Hz) a warning says so and only
 * the limiter runs, with only its own latency.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=in.wav ! decodebin ! audioconvert ! fxloudnorm
 * target-lufs=-16 max-true-peak=-1 ! audioconvert ! autoaudiosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstfxloudnorm.h"
#include "gstfxcommon.h"
#include "gstfxformat.h"
#include "gstfxpreset.h"

#include "loudnorm.h"

GST_DEBUG_CATEGORY_STATIC(gst_fx_loudnorm_debug);
#define GST_CAT_DEFAULT gst_fx_loudnorm_debug

#define DEFAULT_TARGET (-24.0)
#define DEFAULT_RANGE 7.0
#define DEFAULT_TRUE_PEAK (-2.0)

enum {
  PROP_0,
  PROP_TARGET_LUFS,
  PROP_LOUDNESS_RANGE,
  PROP_MAX_TRUE_PEAK,
  PROP_GAIN,
  PROP_LIMITER_GAIN,
  PROP_FORMAT, /* dither, dither-seed, clipped: PROP_FORMAT + GstFxFormatProp */
};

struct _GstFxLoudnorm {
  GstAudioFilter parent;

  /* Settings (object lock). */
  double target, range, true_peak;
  GstClockTime latency;

  /* Stream state (streaming thread). */
  fx_loudnorm_t *ln;
  double applied[3]; /* target, range, true peak given to ln */
  gboolean is_f64;
  gint rate;
  GstClockTime next_pts;
  guint64 next_offset;
  GstFxNonfiniteLimit nonfinite;
  GstFxQuant quant; /* integer streams: S16 runs as F32, S32 as F64, requantised on output */
};

G_DEFINE_TYPE_WITH_CODE(GstFxLoudnorm, gst_fx_loudnorm, GST_TYPE_AUDIO_FILTER,
                        G_IMPLEMENT_INTERFACE(GST_TYPE_PRESET, gst_fx_preset_interface_init))
GST_ELEMENT_REGISTER_DEFINE(fxloudnorm, "fxloudnorm", GST_RANK_NONE, GST_TYPE_FX_LOUDNORM);

static const GstFxPropField loudnorm_fields[] = {
    {PROP_TARGET_LUFS, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxLoudnorm, target)},
    {PROP_LOUDNESS_RANGE, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxLoudnorm, range)},
    {PROP_MAX_TRUE_PEAK, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxLoudnorm, true_peak)},
};

static void gst_fx_loudnorm_set_property(GObject *object, guint prop_id, const GValue *value,
                                         GParamSpec *pspec)
{
  GstFxLoudnorm *self = GST_FX_LOUDNORM(object);
  if (gst_fx_quant_set_property(object, &self->quant, prop_id, PROP_FORMAT, value))
    return;
  gst_fx_props_set(object, self, loudnorm_fields, G_N_ELEMENTS(loudnorm_fields), prop_id, value,
                   pspec);
}

static void gst_fx_loudnorm_get_property(GObject *object, guint prop_id, GValue *value,
                                         GParamSpec *pspec)
{
  GstFxLoudnorm *self = GST_FX_LOUDNORM(object);

  if (gst_fx_quant_get_property(object, &self->quant, prop_id, PROP_FORMAT, value))
    return;
  if (prop_id == PROP_GAIN || prop_id == PROP_LIMITER_GAIN) {
    /* read by the streaming thread's last frame; a torn read of a double is not possible on
     * the platforms GStreamer supports, the object lock orders it */
    GST_OBJECT_LOCK(self);
    g_value_set_double(value, self->ln == NULL       ? 0.0
                              : prop_id == PROP_GAIN ? fx_loudnorm_gain_db(self->ln)
                                                     : fx_loudnorm_limiter_db(self->ln));
    GST_OBJECT_UNLOCK(self);
    return;
  }
  gst_fx_props_get(object, self, loudnorm_fields, G_N_ELEMENTS(loudnorm_fields), prop_id, value,
                   pspec);
}

static void free_engine(GstFxLoudnorm *self)
{
  GST_OBJECT_LOCK(self);
  fx_loudnorm_free(self->ln);
  self->ln = NULL;
  GST_OBJECT_UNLOCK(self);
}

static void gst_fx_loudnorm_finalize(GObject *object)
{
  free_engine(GST_FX_LOUDNORM(object));
  gst_fx_quant_clear(&GST_FX_LOUDNORM(object)->quant);
  G_OBJECT_CLASS(gst_fx_loudnorm_parent_class)->finalize(object);
}

static gboolean gst_fx_loudnorm_setup(GstAudioFilter *filter, const GstAudioInfo *info)
{
  GstFxLoudnorm *self = GST_FX_LOUDNORM(filter);
  gint rate = GST_AUDIO_INFO_RATE(info), ch = GST_AUDIO_INFO_CHANNELS(info);
  double target, range, tp;
  fx_loudnorm_t *ln;
  GstClockTime latency;
  gboolean changed;
  GstAudioInfo work;

  GST_OBJECT_LOCK(self);
  target = self->target;
  range = self->range;
  tp = self->true_peak;
  GST_OBJECT_UNLOCK(self);
  if (!gst_fx_quant_setup(GST_OBJECT(self), &self->quant, info, &work)) {
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, (NULL), ("cannot allocate a scratch buffer"));
    return FALSE;
  }
  ln = fx_loudnorm_new(ch, (unsigned long) rate, target, range, tp);
  if (ln == NULL) {
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, (NULL),
                      ("cannot create the normaliser (%d channels at %d Hz)", ch, rate));
    return FALSE;
  }
  if (!fx_loudnorm_measuring(ln))
    GST_ELEMENT_WARNING(
        self, STREAM, FORMAT, ("cannot measure the loudness of this stream"),
        ("libebur128 measures 1 to 64 channels at 16 Hz or more, this stream has %d "
         "channels at %d Hz: only the true-peak limiter runs",
         ch, rate));
  latency = gst_util_uint64_scale_int(fx_loudnorm_latency(ln), GST_SECOND, rate);
  GST_OBJECT_LOCK(self);
  fx_loudnorm_free(self->ln);
  self->ln = ln;
  changed = latency != self->latency;
  self->latency = latency;
  GST_OBJECT_UNLOCK(self);
  self->applied[0] = target;
  self->applied[1] = range;
  self->applied[2] = tp;
  self->is_f64 = GST_AUDIO_INFO_FORMAT(&work) == GST_AUDIO_FORMAT_F64;
  self->rate = rate;
  self->next_pts = GST_CLOCK_TIME_NONE;
  self->next_offset = GST_BUFFER_OFFSET_NONE;
  if (changed)
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_latency(GST_OBJECT(self)));
  return TRUE;
}

static gboolean gst_fx_loudnorm_stop(GstBaseTransform *trans)
{
  GstFxLoudnorm *self = GST_FX_LOUDNORM(trans);

  free_engine(self);
  gst_fx_nonfinite_reset(&self->nonfinite);
  gst_fx_quant_reset(GST_OBJECT(trans), &self->quant);
  return TRUE;
}

/* Runs the engine over a mapped buffer in the negotiated format (an integer buffer runs as floats
 * in the scratch buffer and is requantised). */
static void process(GstFxLoudnorm *self, gpointer data, gsize frames, GstClockTime ts)
{
  gpointer work = gst_fx_quant_begin(&self->quant, data, frames);
  size_t bad;
  guint clip_warn;

  if (!work && frames > 0) { /* (an empty buffer maps to NULL) */
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, (NULL), ("cannot grow the scratch buffer"));
    return;
  }
  GST_OBJECT_LOCK(self);
  if (self->is_f64)
    bad = fx_loudnorm_process_f64(self->ln, work, work, frames);
  else
    bad = fx_loudnorm_process_f32(self->ln, work, work, frames);
  GST_OBJECT_UNLOCK(self);
  /* (takes the object lock itself) */
  clip_warn = gst_fx_quant_end((GstObject *) self, &self->quant, data, frames, ts);
  gst_fx_nonfinite_warn(GST_ELEMENT(self), gst_fx_nonfinite_check(&self->nonfinite, ts, bad > 0),
                        GST_STREAM_ERROR_FORMAT);
  gst_fx_quant_warn((GstElement *) self, &self->quant, clip_warn);
}

/* Settings changed while playing (or by a controller) go to the engine before the buffer. */
static void gst_fx_loudnorm_before_transform(GstBaseTransform *trans, GstBuffer *buf)
{
  GstFxLoudnorm *self = GST_FX_LOUDNORM(trans);
  double now[3];

  gst_fx_sync_controllers(trans, buf);
  GST_OBJECT_LOCK(self);
  now[0] = self->target;
  now[1] = self->range;
  now[2] = self->true_peak;
  if (self->ln && memcmp(now, self->applied, sizeof(now)) != 0) {
    fx_loudnorm_set_params(self->ln, now[0], now[1], now[2]);
    memcpy(self->applied, now, sizeof(now));
  }
  GST_OBJECT_UNLOCK(self);
}

static GstFlowReturn gst_fx_loudnorm_transform_ip(GstBaseTransform *trans, GstBuffer *buf)
{
  GstFxLoudnorm *self = GST_FX_LOUDNORM(trans);
  gsize bpf = GST_AUDIO_INFO_BPF(&GST_AUDIO_FILTER(trans)->info);
  GstMapInfo map;
  GstFlowReturn ret = gst_fx_map_writable(GST_ELEMENT(self), self->ln && bpf > 0, buf, &map);

  if (ret != GST_FLOW_OK)
    return ret;
  process(self, map.data, map.size / bpf, GST_BUFFER_PTS(buf));
  gst_buffer_unmap(buf, &map);
  if (GST_BUFFER_PTS_IS_VALID(buf))
    self->next_pts = GST_BUFFER_PTS(buf) +
                     (GST_BUFFER_DURATION_IS_VALID(buf)
                          ? GST_BUFFER_DURATION(buf)
                          : gst_util_uint64_scale_int(map.size / bpf, GST_SECOND, self->rate));
  if (GST_BUFFER_OFFSET_END_IS_VALID(buf))
    self->next_offset = GST_BUFFER_OFFSET_END(buf);
  return GST_FLOW_OK;
}

/* At EOS or a format change: pushes the look-ahead's tail (what is still in the delay lines). */
static void push_tail(GstFxLoudnorm *self)
{
  gsize la, bpf = GST_AUDIO_INFO_BPF(&GST_AUDIO_FILTER(self)->info);
  GstBuffer *buf;
  GstMapInfo map;

  if (self->ln == NULL || bpf == 0 || (la = fx_loudnorm_latency(self->ln)) == 0)
    return;
  buf = gst_fx_lookahead_tail_new(GST_ELEMENT(self), la, bpf, self->rate, self->next_pts,
                                  self->next_offset);
  if (buf == NULL)
    return;
  if (!gst_buffer_map(buf, &map, GST_MAP_WRITE)) {
    gst_buffer_unref(buf);
    return;
  }
  process(self, map.data, la, GST_CLOCK_TIME_NONE);
  gst_buffer_unmap(buf, &map);
  gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(GST_BASE_TRANSFORM(self)), buf);
  GST_OBJECT_LOCK(self);
  fx_loudnorm_reset(self->ln);
  GST_OBJECT_UNLOCK(self);
}

static gboolean gst_fx_loudnorm_sink_event(GstBaseTransform *trans, GstEvent *event)
{
  GstFxLoudnorm *self = GST_FX_LOUDNORM(trans);

  switch (GST_EVENT_TYPE(event)) {
  case GST_EVENT_EOS:
    push_tail(self);
    break;
  case GST_EVENT_CAPS: {
    GstCaps *caps;
    GstAudioInfo info;
    gst_event_parse_caps(event, &caps);
    if (self->ln && gst_audio_info_from_caps(&info, caps) &&
        !gst_audio_info_is_equal(&info, &GST_AUDIO_FILTER(self)->info))
      push_tail(self);
    break;
  }
  case GST_EVENT_FLUSH_STOP:
  case GST_EVENT_STREAM_START:
    GST_OBJECT_LOCK(self);
    if (self->ln)
      fx_loudnorm_reset(self->ln);
    GST_OBJECT_UNLOCK(self);
    self->next_pts = GST_CLOCK_TIME_NONE;
    self->next_offset = GST_BUFFER_OFFSET_NONE;
    gst_fx_nonfinite_reset(&self->nonfinite);
    gst_fx_quant_reset(GST_OBJECT(self), &self->quant);
    break;
  default:
    break;
  }
  return GST_BASE_TRANSFORM_CLASS(gst_fx_loudnorm_parent_class)->sink_event(trans, event);
}

static gboolean gst_fx_loudnorm_query(GstBaseTransform *trans, GstPadDirection direction,
                                      GstQuery *query)
{
  return gst_fx_query_with_latency(trans, direction, query,
                                   GST_BASE_TRANSFORM_CLASS(gst_fx_loudnorm_parent_class),
                                   &GST_FX_LOUDNORM(trans)->latency);
}

static void gst_fx_loudnorm_class_init(GstFxLoudnormClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  GstAudioFilterClass *filter_class = GST_AUDIO_FILTER_CLASS(klass);
  const GParamFlags setting = GST_FX_DSP_PARAM_FLAGS;

  GST_DEBUG_CATEGORY_INIT(gst_fx_loudnorm_debug, "fxloudnorm", 0, "Loudness normaliser");

  gobject_class->set_property = gst_fx_loudnorm_set_property;
  gobject_class->get_property = gst_fx_loudnorm_get_property;
  gobject_class->finalize = gst_fx_loudnorm_finalize;

  g_object_class_install_property(
      gobject_class, PROP_TARGET_LUFS,
      g_param_spec_double("target-lufs", "Target loudness",
                          "Target integrated loudness in LUFS (-70..-5)", -70.0, -5.0,
                          DEFAULT_TARGET, setting));
  g_object_class_install_property(
      gobject_class, PROP_LOUDNESS_RANGE,
      g_param_spec_double("loudness-range", "Loudness range",
                          "Loudness range kept around the target, in LU (1..20)", 1.0, 20.0,
                          DEFAULT_RANGE, setting));
  g_object_class_install_property(
      gobject_class, PROP_MAX_TRUE_PEAK,
      g_param_spec_double("max-true-peak", "Maximum true peak",
                          "Ceiling of the true peak out, in dBTP (-9..0)", -9.0, 0.0,
                          DEFAULT_TRUE_PEAK, setting));
  g_object_class_install_property(gobject_class, PROP_GAIN,
                                  g_param_spec_double("gain", "Gain",
                                                      "The loudness gain on the last output, in dB",
                                                      -G_MAXDOUBLE, G_MAXDOUBLE, 0.0,
                                                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property(
      gobject_class, PROP_LIMITER_GAIN,
      g_param_spec_double("limiter-gain", "Limiter gain",
                          "The true-peak limiter's gain on the last output, in dB (<= 0)",
                          -G_MAXDOUBLE, 0.0, 0.0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_fx_install_format_properties(gobject_class, PROP_FORMAT);

  gst_element_class_set_static_metadata(
      element_class, "Loudness normaliser", "Filter/Effect/Audio",
      "Live EBU R128 loudness normalisation to a target LUFS with a loudness range and a "
      "true-peak limiter (libebur128 measurement, 3 s look-ahead)",
      "gst-fx developers");

  gst_fx_add_audio_pad_templates(filter_class);

  filter_class->setup = GST_DEBUG_FUNCPTR(gst_fx_loudnorm_setup);
  trans_class->stop = GST_DEBUG_FUNCPTR(gst_fx_loudnorm_stop);
  trans_class->before_transform = GST_DEBUG_FUNCPTR(gst_fx_loudnorm_before_transform);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR(gst_fx_loudnorm_transform_ip);
  trans_class->sink_event = GST_DEBUG_FUNCPTR(gst_fx_loudnorm_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR(gst_fx_loudnorm_query);
  trans_class->transform_ip_on_passthrough = FALSE;
}

static void gst_fx_loudnorm_init(GstFxLoudnorm *self)
{
  self->target = DEFAULT_TARGET;
  self->range = DEFAULT_RANGE;
  self->true_peak = DEFAULT_TRUE_PEAK;
  gst_fx_nonfinite_reset(&self->nonfinite);
  gst_fx_quant_init(&self->quant);
}
