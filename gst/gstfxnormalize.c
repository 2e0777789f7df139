/* gst-fx — fxnormalize: whole-stream peak, RMS or percentile normalisation.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:element-fxnormalize
 * @title: fxnormalize
 * @short_description: whole-stream peak, RMS, percentile or loudness (LUFS) normalisation
 *
 * Non-causal: holds the whole stream until EOS, then pushes every buffer (timestamps, durations
 * and offsets unchanged) multiplied by the gain that brings the stream's level to `target` dBFS.
 * The level is the peak |x| (`mode=peak`), the RMS (`rms`) or the `percentile`-th percentile of
 * |x| (`percentile`, linear interpolation between ranks as numpy.percentile), over all channels
 * together (one gain) or, with `per-channel`, per channel (one gain each). Silence keeps gain 1.
 * Nothing is clipped: rms and percentile targets can put peaks above 0 dBFS.
 *
 * `mode=lufs` normalises the integrated loudness (ITU-R BS.1770-4, EBU R128; measured by
 * libebur128 over the held stream at EOS, all channels together, LFE left out) to `target-lufs`
 * (default -23 LUFS, the EBU R128 programme level; -16 is a usual podcast/streaming target and
 * -14 a music streaming one). One gain for all channels (`per-channel` does not apply). When that
 * gain would take the true peak (4x oversampled) above `true-peak-limit` dBTP (default -1, the
 * EBU R128 maximum), the gain is lowered until the true peak sits at the limit and the loudness
 * stays under the target, as the linear mode of ffmpeg's loudnorm does; nothing is compressed or
 * limited (for that, fxloudnorm). A stream that is silent or shorter than one 400 ms block keeps
 * gain 1. The message then also has `loudness` (LUFS, before) and `true-peak` (dBTP, before).
 *
 * The held stream is bounded by `max-duration` (ns of audio, 0 = unbounded) and by 2048 MiB of
 * audio whatever `max-duration` says: past either the element posts an error instead of growing
 * without limit. Nothing but the held buffers grows with the stream: the percentile is selected
 * from them in place (2 reads of the held audio for F32, 4 for F64, per level computed). NaN and
 * Inf input samples become 0 before they reach the statistics (one rate-limited warning). Live
 * sources are refused with an error (a live pipeline cannot wait for EOS). A flush discards what is
 * held; a caps change normalises and pushes what was held under the old caps first.
 *
 * After each EOS the gains are in the read-only `gains` property and in an element message
 * `fxnormalize` with fields `mode` (string), `frames` (guint64), `levels` and `gains`
 * (GstValueArray of gdouble, linear, one per channel).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=in.wav ! decodebin ! audioconvert ! fxnormalize mode=peak
 * target=-1 ! audioconvert ! wavenc ! filesink location=out.wav
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "gstfxnormalize.h"
#include "gstfxcommon.h"
#include "gstfxloudness.h"
#include "gstfxpreset.h"
#include "gstfxformat.h"

#include "finite.h"
#include "loudness.h"
#include "normalize.h"

GST_DEBUG_CATEGORY_STATIC(gst_fx_normalize_debug);
#define GST_CAT_DEFAULT gst_fx_normalize_debug

#define DEFAULT_MODE FX_NORM_PEAK
#define DEFAULT_TARGET (-1.0)
#define DEFAULT_PERCENTILE 99.9
#define DEFAULT_PER_CHANNEL FALSE
#define DEFAULT_TARGET_LUFS (-23.0)
#define DEFAULT_TRUE_PEAK_LIMIT (-1.0)
#define DEFAULT_MAX_DURATION (3600 * GST_SECOND)
/* A day of audio: far beyond what the held-memory limit admits at any usual rate (0 still means
 * unbounded). */
#define MAX_MAX_DURATION (24 * 3600 * GST_SECOND)
/* Refuse to hold more audio than this (the same limit as fxdelay's line and fxreverb's state). */
#define MAX_HELD_BYTES ((guint64) 1 << 31)

enum {
  PROP_0,
  PROP_MODE,
  PROP_TARGET,
  PROP_PERCENTILE,
  PROP_PER_CHANNEL,
  PROP_MAX_DURATION,
  PROP_GAINS,
  PROP_TARGET_LUFS,
  PROP_TRUE_PEAK_LIMIT,
};

struct _GstFxNormalize {
  GstAudioFilter parent;

  /* Settings (object lock). */
  gint mode;
  double target;
  double percentile;
  gboolean per_channel;
  double target_lufs;
  double true_peak_limit;
  guint64 max_duration;
  GArray *gains; /* doubles: the last computed gains, one per channel */

  /* Stream state (streaming thread). */
  GQueue held; /* GstBuffer, in order */
  fx_norm_t *stats;
  GstAudioInfo held_info; /* the negotiated format of what is held */
  GstAudioInfo held_work; /* the format it is held in: F32 for S16, F64 for S32, else the same */
  GstFxQuant quant;       /* integer streams: requantisation at release */
  guint64 held_frames;
  GstFxNonfiniteLimit nonfinite;
  gboolean live_checked;
  gboolean failed;
};

/* dither, dither-seed, clipped: PROP_FORMAT + GstFxFormatProp (after the element's own ids) */
#define PROP_FORMAT 64

G_DEFINE_TYPE_WITH_CODE(GstFxNormalize, gst_fx_normalize, GST_TYPE_AUDIO_FILTER,
                        G_IMPLEMENT_INTERFACE(GST_TYPE_PRESET, gst_fx_preset_interface_init))
GST_ELEMENT_REGISTER_DEFINE(fxnormalize, "fxnormalize", GST_RANK_NONE, GST_TYPE_FX_NORMALIZE);

static const GstFxPropField norm_fields[] = {
    {PROP_MODE, G_TYPE_ENUM, G_STRUCT_OFFSET(GstFxNormalize, mode)},
    {PROP_TARGET, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxNormalize, target)},
    {PROP_PERCENTILE, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxNormalize, percentile)},
    {PROP_PER_CHANNEL, G_TYPE_BOOLEAN, G_STRUCT_OFFSET(GstFxNormalize, per_channel)},
    {PROP_TARGET_LUFS, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxNormalize, target_lufs)},
    {PROP_TRUE_PEAK_LIMIT, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxNormalize, true_peak_limit)},
};

#define GST_TYPE_FX_NORMALIZE_MODE (gst_fx_normalize_mode_get_type())
static GType gst_fx_normalize_mode_get_type(void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
      {FX_NORM_PEAK, "Peak: the largest |x|", "peak"},
      {FX_NORM_RMS, "RMS: the root mean square", "rms"},
      {FX_NORM_PERCENTILE, "Percentile: the percentile-th percentile of |x|", "percentile"},
      {FX_NORM_LUFS, "Loudness: integrated LUFS (EBU R128) with a true-peak ceiling", "lufs"},
      {0, NULL, NULL},
  };
  return gst_fx_enum_register_once(&type, "GstFxNormalizeMode", values);
}

static const gchar *mode_nick(gint mode)
{
  GEnumClass *ec = g_type_class_ref(GST_TYPE_FX_NORMALIZE_MODE);
  GEnumValue *v = g_enum_get_value(ec, mode);
  const gchar *nick = v ? v->value_nick : "?";
  g_type_class_unref(ec);
  return nick;
}

static void gst_fx_normalize_set_property(GObject *object, guint prop_id, const GValue *value,
                                          GParamSpec *pspec)
{
  GstFxNormalize *self = GST_FX_NORMALIZE(object);

  if (gst_fx_quant_set_property(object, &self->quant, prop_id, PROP_FORMAT, value))
    return;
  if (prop_id == PROP_MAX_DURATION) {
    GST_OBJECT_LOCK(self);
    self->max_duration = g_value_get_uint64(value);
    GST_OBJECT_UNLOCK(self);
    return;
  }
  gst_fx_props_set(object, self, norm_fields, G_N_ELEMENTS(norm_fields), prop_id, value, pspec);
}

static void gst_fx_normalize_get_property(GObject *object, guint prop_id, GValue *value,
                                          GParamSpec *pspec)
{
  GstFxNormalize *self = GST_FX_NORMALIZE(object);

  if (gst_fx_quant_get_property(object, &self->quant, prop_id, PROP_FORMAT, value))
    return;
  if (prop_id == PROP_MAX_DURATION) {
    GST_OBJECT_LOCK(self);
    g_value_set_uint64(value, self->max_duration);
    GST_OBJECT_UNLOCK(self);
    return;
  }
  if (prop_id == PROP_GAINS) {
    GST_OBJECT_LOCK(self);
    for (guint i = 0; i < self->gains->len; i++) {
      GValue v = G_VALUE_INIT;
      g_value_init(&v, G_TYPE_DOUBLE);
      g_value_set_double(&v, g_array_index(self->gains, double, i));
      gst_value_array_append_and_take_value(value, &v);
    }
    GST_OBJECT_UNLOCK(self);
    return;
  }
  gst_fx_props_get(object, self, norm_fields, G_N_ELEMENTS(norm_fields), prop_id, value, pspec);
}

static void drop_held(GstFxNormalize *self)
{
  g_queue_clear_full(&self->held, (GDestroyNotify) gst_buffer_unref);
  self->held_frames = 0;
  if (self->stats)
    fx_norm_reset(self->stats);
}

static void gst_fx_normalize_finalize(GObject *object)
{
  GstFxNormalize *self = GST_FX_NORMALIZE(object);

  drop_held(self);
  fx_norm_free(self->stats);
  g_array_unref(self->gains);
  G_OBJECT_CLASS(gst_fx_normalize_parent_class)->finalize(object);
}

static gboolean gst_fx_normalize_start(GstBaseTransform *trans)
{
  GST_OBJECT_LOCK(trans);
  GST_FX_NORMALIZE(trans)->quant.clipped = 0;
  GST_OBJECT_UNLOCK(trans);
  return TRUE;
}

static gboolean gst_fx_normalize_stop(GstBaseTransform *trans)
{
  GstFxNormalize *self = GST_FX_NORMALIZE(trans);

  drop_held(self);
  fx_norm_free(self->stats);
  self->stats = NULL;
  self->live_checked = FALSE;
  self->failed = FALSE;
  gst_fx_nonfinite_reset(&self->nonfinite);
  gst_fx_quant_reset(GST_OBJECT(self), &self->quant);
  return TRUE;
}

/* The level of one channel (or all, channel < 0) in `mode`, from the statistics or, for the
 * percentile, from every held sample. FALSE when out of memory. */
static gboolean level_of(GstFxNormalize *self, gint mode, double pct, int channel, double *level)
{
  const GstAudioInfo *info = &self->held_work;
  int ch = GST_AUDIO_INFO_CHANNELS(info);
  gboolean f64 = GST_AUDIO_INFO_FORMAT(info) == GST_AUDIO_FORMAT_F64;
  gsize bpf = GST_AUDIO_INFO_BPF(info);
  guint64 n = channel < 0 ? self->held_frames * (guint64) ch : self->held_frames;
  fx_norm_select_t *sel;

  if (mode == FX_NORM_PEAK) {
    *level = fx_norm_peak(self->stats, channel);
    return TRUE;
  }
  if (mode == FX_NORM_RMS) {
    *level = fx_norm_rms(self->stats, channel);
    return TRUE;
  }
  /* selected from the held buffers themselves, a few reads over them: no copy of the audio */
  if ((sel = fx_norm_select_new(f64, ch, channel, n, pct)) == NULL)
    return FALSE;
  while (fx_norm_select_pass(sel)) {
    for (GList *l = self->held.head; l; l = l->next) {
      GstBuffer *buf = l->data;
      GstMapInfo map;
      if (!gst_buffer_map(buf, &map, GST_MAP_READ)) {
        fx_norm_select_free(sel);
        return FALSE;
      }
      fx_norm_select_feed(sel, map.data, map.size / bpf);
      gst_buffer_unmap(buf, &map);
    }
  }
  *level = fx_norm_select_result(sel);
  fx_norm_select_free(sel);
  return TRUE;
}

/* The integrated loudness (LUFS) and the true peak (linear) of the held stream, measured by
 * libebur128 in one read of the held buffers. FALSE when the meter cannot be made. */
static gboolean loudness_of(GstFxNormalize *self, double *lufs, double *true_peak)
{
  const GstAudioInfo *info = &self->held_work; /* integer streams are held as floats */
  int ch = GST_AUDIO_INFO_CHANNELS(info);
  gsize bpf = GST_AUDIO_INFO_BPF(info);
  fx_loud_t *meter = fx_loud_new(ch, (unsigned long) GST_AUDIO_INFO_RATE(info));

  if (meter == NULL)
    return FALSE;
  gst_fx_loudness_map_channels(meter, info);
  for (GList *l = self->held.head; l; l = l->next) {
    GstBuffer *buf = l->data;
    GstMapInfo map;
    if (!gst_buffer_map(buf, &map, GST_MAP_READ))
      continue;
    gst_fx_loudness_add(meter, GST_AUDIO_INFO_FORMAT(info), map.data, map.size / bpf);
    gst_buffer_unmap(buf, &map);
  }
  *lufs = fx_loud_integrated(meter);
  *true_peak = fx_loud_true_peak(meter, -1);
  fx_loud_free(meter);
  return TRUE;
}

/* An integer stream is held as floats (the statistics and the gains then run on the float
 * path); at release each buffer is requantised into one of the negotiated format. Takes @buf
 * (@bpf: bytes per frame of its float format); NULL when out of memory (an error is posted). */
static GstBuffer *requantise(GstFxNormalize *self, GstBuffer *buf, gsize bpf)
{
  gsize frames = gst_buffer_get_size(buf) / bpf;
  GstBuffer *out =
      gst_buffer_new_allocate(NULL, frames * GST_AUDIO_INFO_BPF(&self->held_info), NULL);
  GstMapInfo im, om;
  guint warn = 0;

  if (out && gst_buffer_map(buf, &im, GST_MAP_READ)) {
    if (gst_buffer_map(out, &om, GST_MAP_WRITE)) {
      warn = gst_fx_quant_store(GST_OBJECT(self), &self->quant, im.data, om.data, frames,
                                GST_BUFFER_PTS(buf));
      gst_buffer_unmap(out, &om);
      gst_buffer_copy_into(out, buf, GST_BUFFER_COPY_METADATA, 0, -1);
      gst_buffer_unmap(buf, &im);
      gst_buffer_unref(buf);
      gst_fx_quant_warn((GstElement *) self, &self->quant, warn);
      return out;
    }
    gst_buffer_unmap(buf, &im);
  }
  if (out)
    gst_buffer_unref(out);
  gst_buffer_unref(buf);
  GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, (NULL), ("cannot allocate an output buffer"));
  return NULL;
}

/* The float copy (F32 for S16, F64 for S32) of the integer buffer @buf, which it takes; NULL when
 * out of memory. */
static GstBuffer *to_float(GstFxNormalize *self, GstBuffer *buf, gsize frames)
{
  gsize n = frames * (gsize) GST_AUDIO_INFO_CHANNELS(&self->held_work);
  GstBuffer *out =
      gst_buffer_new_allocate(NULL, frames * GST_AUDIO_INFO_BPF(&self->held_work), NULL);
  GstMapInfo im, om;
  gboolean ok = FALSE;

  if (out && gst_buffer_map(buf, &im, GST_MAP_READ)) {
    if (gst_buffer_map(out, &om, GST_MAP_WRITE)) {
      if (GST_AUDIO_INFO_FORMAT(&self->held_info) == GST_AUDIO_FORMAT_S16)
        fx_quant_s16_to_f32((const int16_t *) im.data, (float *) om.data, n);
      else
        fx_quant_s32_to_f64((const int32_t *) im.data, (double *) om.data, n);
      gst_buffer_unmap(out, &om);
      gst_buffer_copy_into(out, buf, GST_BUFFER_COPY_METADATA, 0, -1);
      ok = TRUE;
    }
    gst_buffer_unmap(buf, &im);
  }
  gst_buffer_unref(buf);
  if (!ok && out)
    gst_buffer_unref(out);
  return ok ? out : NULL;
}

/* Computes the gains, applies them to every held buffer and pushes them downstream. */
static GstFlowReturn release_held(GstFxNormalize *self)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM(self);
  const GstAudioInfo *info = &self->held_work;
  int ch;
  gboolean f64;
  gsize bpf;
  gint mode;
  double target, pct, target_lufs, tp_limit, lufs = -HUGE_VAL, true_peak = 0.0;
  gboolean per_channel;
  GArray *gains, *levels;
  GstFlowReturn ret = GST_FLOW_OK;
  GstBuffer *buf;
  GstStructure *s;
  GValue ga = G_VALUE_INIT, la = G_VALUE_INIT;

  if (self->held.length == 0 || self->stats == NULL)
    return GST_FLOW_OK;
  ch = GST_AUDIO_INFO_CHANNELS(info);
  f64 = GST_AUDIO_INFO_FORMAT(info) == GST_AUDIO_FORMAT_F64;
  bpf = GST_AUDIO_INFO_BPF(info);

  GST_OBJECT_LOCK(self);
  mode = self->mode;
  target = self->target;
  pct = self->percentile;
  per_channel = self->per_channel;
  target_lufs = self->target_lufs;
  tp_limit = self->true_peak_limit;
  GST_OBJECT_UNLOCK(self);
  if (mode == FX_NORM_LUFS) {
    per_channel = FALSE; /* loudness is a measure of all channels together */
    if (!loudness_of(self, &lufs, &true_peak)) {
      GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, (NULL), ("cannot create the meter"));
      drop_held(self);
      return GST_FLOW_ERROR;
    }
  }

  gains = g_array_sized_new(FALSE, TRUE, sizeof(double), ch);
  levels = g_array_sized_new(FALSE, TRUE, sizeof(double), ch);
  for (int c = 0; c < ch; c++) {
    double level = 0.0, g;
    if (mode == FX_NORM_LUFS) {
      level = isfinite(lufs) ? pow(10.0, lufs / 20.0) : 0.0;
    } else if (per_channel || c == 0) {
      if (!level_of(self, mode, pct, per_channel ? c : -1, &level)) {
        GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, (NULL),
                          ("out of memory computing the percentile of %" G_GUINT64_FORMAT " frames",
                           self->held_frames));
        g_array_unref(gains);
        g_array_unref(levels);
        drop_held(self);
        return GST_FLOW_ERROR;
      }
    } else {
      level = g_array_index(levels, double, 0);
    }
    g = mode == FX_NORM_LUFS ? fx_loud_norm_gain(lufs, true_peak, target_lufs, tp_limit)
                             : fx_norm_gain(level, target);
    g_array_append_val(levels, level);
    g_array_append_val(gains, g);
  }
  GST_INFO_OBJECT(self, "%s over %" G_GUINT64_FORMAT " frames: level %g -> gain %g",
                  mode_nick(mode), self->held_frames, g_array_index(levels, double, 0),
                  g_array_index(gains, double, 0));

  GST_OBJECT_LOCK(self);
  g_array_set_size(self->gains, 0);
  g_array_append_vals(self->gains, gains->data, gains->len);
  GST_OBJECT_UNLOCK(self);

  g_value_init(&ga, GST_TYPE_ARRAY);
  g_value_init(&la, GST_TYPE_ARRAY);
  for (int c = 0; c < ch; c++) {
    GValue v = G_VALUE_INIT;
    g_value_init(&v, G_TYPE_DOUBLE);
    g_value_set_double(&v, g_array_index(gains, double, c));
    gst_value_array_append_value(&ga, &v);
    g_value_set_double(&v, g_array_index(levels, double, c));
    gst_value_array_append_value(&la, &v);
    g_value_unset(&v);
  }
  s = gst_structure_new("fxnormalize", "mode", G_TYPE_STRING, mode_nick(mode), "frames",
                        G_TYPE_UINT64, self->held_frames, NULL);
  gst_structure_take_value(s, "levels", &la);
  gst_structure_take_value(s, "gains", &ga);
  if (mode == FX_NORM_LUFS)
    gst_structure_set(s, "loudness", G_TYPE_DOUBLE, lufs, "true-peak", G_TYPE_DOUBLE,
                      fx_loud_db(true_peak), NULL);
  gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), s));

  while ((buf = g_queue_pop_head(&self->held)) != NULL) {
    GstMapInfo map;
    if (ret != GST_FLOW_OK) {
      gst_buffer_unref(buf);
      continue;
    }
    buf = gst_buffer_make_writable(buf);
    if (gst_buffer_map(buf, &map, GST_MAP_READWRITE)) {
      if (f64)
        fx_norm_apply_f64((double *) map.data, map.size / bpf, ch, (const double *) gains->data);
      else
        fx_norm_apply_f32((float *) map.data, map.size / bpf, ch, (const double *) gains->data);
      gst_buffer_unmap(buf, &map);
    }
    if (gst_fx_quant_is_int(&self->quant))
      buf = requantise(self, buf, bpf);
    if (!buf) {
      ret = GST_FLOW_ERROR;
      continue;
    }
    ret = gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(trans), buf);
  }
  g_array_unref(gains);
  g_array_unref(levels);
  drop_held(self);
  return ret;
}

static gboolean upstream_is_live(GstFxNormalize *self)
{
  GstQuery *q = gst_query_new_latency();
  gboolean live = FALSE;

  if (gst_pad_peer_query(GST_BASE_TRANSFORM_SINK_PAD(self), q))
    gst_query_parse_latency(q, &live, NULL, NULL);
  gst_query_unref(q);
  return live;
}

static GstFlowReturn gst_fx_normalize_submit_input_buffer(GstBaseTransform *trans,
                                                          gboolean is_discont, GstBuffer *buf)
{
  GstFxNormalize *self = GST_FX_NORMALIZE(trans);
  const GstAudioInfo *info = &GST_AUDIO_FILTER(trans)->info;
  gsize bpf = GST_AUDIO_INFO_BPF(info);
  gint rate = GST_AUDIO_INFO_RATE(info);
  guint64 max_duration, frames, max_frames;
  GstMapInfo map;

  (void) is_discont;
  if (self->failed) {
    gst_buffer_unref(buf);
    return GST_FLOW_ERROR;
  }
  if (bpf == 0 || rate < 1) {
    gst_buffer_unref(buf);
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, (NULL), ("buffer before caps"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (!self->live_checked) {
    self->live_checked = TRUE;
    if (upstream_is_live(self)) {
      gst_buffer_unref(buf);
      self->failed = TRUE;
      GST_ELEMENT_ERROR(self, STREAM, FAILED, ("fxnormalize cannot work on a live source"),
                        ("it holds the whole stream until EOS, which a live pipeline never "
                         "waits for; use a file or a non-live source, or a compressor/limiter"));
      return GST_FLOW_ERROR;
    }
  }
  gst_fx_sync_controllers(trans, buf);

  if (self->stats == NULL || self->held.length == 0) {
    fx_norm_free(self->stats);
    self->stats = fx_norm_new(GST_AUDIO_INFO_CHANNELS(info));
    self->held_info = *info;
    self->held_frames = 0;
    /* the work format; no scratch buffer: integer buffers are held as float copies */
    if (!gst_fx_quant_setup(GST_OBJECT(self), &self->quant, info, &self->held_work))
      self->held_work = *info;
    gst_fx_quant_clear(&self->quant);
    if (self->stats == NULL) {
      gst_buffer_unref(buf);
      GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, (NULL), ("out of memory"));
      return GST_FLOW_ERROR;
    }
  }

  frames = gst_buffer_get_size(buf) / bpf;
  GST_OBJECT_LOCK(self);
  max_duration = self->max_duration;
  GST_OBJECT_UNLOCK(self);
  max_frames = max_duration ? gst_util_uint64_scale_int(max_duration, rate, GST_SECOND) : 0;
  if (max_duration && self->held_frames + frames > max_frames) {
    gst_buffer_unref(buf);
    drop_held(self);
    self->failed = TRUE;
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("the stream is longer than max-duration"),
                      ("fxnormalize holds the whole stream until EOS and the stream exceeded "
                       "max-duration=%" G_GUINT64_FORMAT " ns (%" GST_TIME_FORMAT
                       ", %" G_GUINT64_FORMAT " frames at %d Hz); raise max-duration "
                       "(0 = unbounded) or normalise shorter pieces",
                       max_duration, GST_TIME_ARGS(max_duration), max_frames, rate));
    return GST_FLOW_ERROR;
  }

  if ((self->held_frames + frames) * (guint64) GST_AUDIO_INFO_BPF(&self->held_work) >
      MAX_HELD_BYTES) {
    guint64 held = self->held_frames;
    gst_buffer_unref(buf);
    drop_held(self);
    self->failed = TRUE;
    GST_ELEMENT_ERROR(
        self, RESOURCE, NO_SPACE_LEFT,
        ("the stream is too large to hold: over %.0f MiB", (double) MAX_HELD_BYTES / 1048576.0),
        ("fxnormalize holds the whole stream until EOS; %" G_GUINT64_FORMAT
         " frames of %" G_GSIZE_FORMAT " bytes at %d Hz were held and the next "
         "buffer would exceed the limit of %.0f MiB; normalise shorter pieces",
         held, bpf, rate, (double) MAX_HELD_BYTES / 1048576.0));
    return GST_FLOW_ERROR;
  }

  /* An integer stream is held as float copies (which belong to no pool). */
  if (gst_fx_quant_is_int(&self->quant)) {
    buf = to_float(self, buf, frames);
    if (!buf) {
      GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, (NULL), ("out of memory"));
      return GST_FLOW_ERROR;
    }
    info = &self->held_work;
  }
  /* Never sit on buffers of an upstream pool (it could run dry): keep a copy of those. */
  if (buf->pool != NULL) {
    GstBuffer *copy = gst_buffer_copy_deep(buf);
    gst_buffer_unref(buf);
    buf = copy;
  }
  /* NaN/Inf become 0 before the statistics see them; only a buffer that has some is made
   * writable (a copy when it is shared). */
  if (gst_buffer_map(buf, &map, GST_MAP_READ)) {
    gboolean bad = fx_has_nonfinite(map.data, frames * (gsize) GST_AUDIO_INFO_CHANNELS(info),
                                    GST_AUDIO_INFO_FORMAT(info) == GST_AUDIO_FORMAT_F64);
    gst_buffer_unmap(buf, &map);
    if (bad) {
      buf = gst_buffer_make_writable(buf);
      if (gst_buffer_map(buf, &map, GST_MAP_READWRITE)) {
        fx_zero_nonfinite(map.data, frames * (gsize) GST_AUDIO_INFO_CHANNELS(info),
                          GST_AUDIO_INFO_FORMAT(info) == GST_AUDIO_FORMAT_F64);
        gst_buffer_unmap(buf, &map);
      }
    }
    gst_fx_nonfinite_warn(GST_ELEMENT(self),
                          gst_fx_nonfinite_check(&self->nonfinite, GST_BUFFER_PTS(buf), bad),
                          GST_STREAM_ERROR_FORMAT);
  }
  if (gst_buffer_map(buf, &map, GST_MAP_READ)) {
    if (GST_AUDIO_INFO_FORMAT(info) == GST_AUDIO_FORMAT_F64)
      fx_norm_add_f64(self->stats, (const double *) map.data, frames);
    else
      fx_norm_add_f32(self->stats, (const float *) map.data, frames);
    gst_buffer_unmap(buf, &map);
  }
  self->held_frames += frames;
  g_queue_push_tail(&self->held, buf);
  return GST_FLOW_OK;
}

static GstFlowReturn gst_fx_normalize_generate_output(GstBaseTransform *trans, GstBuffer **outbuf)
{
  (void) trans;
  *outbuf = NULL; /* everything is held until EOS */
  return GST_FLOW_OK;
}

static gboolean gst_fx_normalize_sink_event(GstBaseTransform *trans, GstEvent *event)
{
  GstFxNormalize *self = GST_FX_NORMALIZE(trans);

  switch (GST_EVENT_TYPE(event)) {
  case GST_EVENT_EOS:
    if (!self->failed)
      release_held(self);
    break;
  case GST_EVENT_CAPS: {
    /* at a format change, what was held under the old caps is normalised on its own */
    GstCaps *caps;
    GstAudioInfo info;
    gst_event_parse_caps(event, &caps);
    if (!self->failed && self->held.length > 0 &&
        (!gst_audio_info_from_caps(&info, caps) ||
         !gst_audio_info_is_equal(&info, &self->held_info)))
      release_held(self);
    break;
  }
  case GST_EVENT_FLUSH_STOP:
    gst_fx_nonfinite_reset(&self->nonfinite);
    drop_held(self);
    self->failed = FALSE;
    self->live_checked = FALSE;
    break;
  default:
    break;
  }
  return GST_BASE_TRANSFORM_CLASS(gst_fx_normalize_parent_class)->sink_event(trans, event);
}

/* CAPS: the element's format order first (gstfxformat.h). */
static gboolean gst_fx_normalize_query(GstBaseTransform *trans, GstPadDirection direction,
                                       GstQuery *query)
{
  gboolean ret;

  if (gst_fx_query_caps_ours_first(trans, direction, query,
                                   GST_BASE_TRANSFORM_CLASS(gst_fx_normalize_parent_class), &ret))
    return ret;
  return GST_BASE_TRANSFORM_CLASS(gst_fx_normalize_parent_class)->query(trans, direction, query);
}

static void gst_fx_normalize_class_init(GstFxNormalizeClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);

  GST_DEBUG_CATEGORY_INIT(gst_fx_normalize_debug, "fxnormalize", 0, "Normalize");

  gobject_class->set_property = gst_fx_normalize_set_property;
  gobject_class->get_property = gst_fx_normalize_get_property;
  gobject_class->finalize = gst_fx_normalize_finalize;
  trans_class->query = GST_DEBUG_FUNCPTR(gst_fx_normalize_query);
  gst_fx_install_format_properties(gobject_class, PROP_FORMAT);

  g_object_class_install_property(
      gobject_class, PROP_MODE,
      g_param_spec_enum("mode", "Mode",
                        "Level measured over the whole stream: peak, rms, "
                        "percentile or lufs (integrated loudness, to target-lufs)",
                        GST_TYPE_FX_NORMALIZE_MODE, DEFAULT_MODE, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_TARGET,
      g_param_spec_double("target", "Target", "Target level in dBFS (-120..20)", -120.0, 20.0,
                          DEFAULT_TARGET, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_PERCENTILE,
      g_param_spec_double("percentile", "Percentile",
                          "For mode=percentile: the percentile of |x| (0..100) taken as the level",
                          0.0, 100.0, DEFAULT_PERCENTILE, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_PER_CHANNEL,
      g_param_spec_boolean("per-channel", "Per channel",
                           "One gain per channel (TRUE) or one gain for all channels (FALSE)",
                           DEFAULT_PER_CHANNEL, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_TARGET_LUFS,
      g_param_spec_double("target-lufs", "Target loudness",
                          "For mode=lufs: the target integrated loudness in LUFS (-70..0; EBU "
                          "R128: -23)",
                          -70.0, 0.0, DEFAULT_TARGET_LUFS, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_TRUE_PEAK_LIMIT,
      g_param_spec_double("true-peak-limit", "True-peak limit",
                          "For mode=lufs: the highest true peak in dBTP (-30..0) the gain may "
                          "reach; a lower gain is taken when the target would exceed it",
                          -30.0, 0.0, DEFAULT_TRUE_PEAK_LIMIT, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_MAX_DURATION,
      g_param_spec_uint64("max-duration", "Maximum duration",
                          "The longest stream held until EOS, in ns of audio (0 = unbounded); "
                          "longer streams end with an error",
                          0, MAX_MAX_DURATION, DEFAULT_MAX_DURATION,
                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property(
      gobject_class, PROP_GAINS,
      gst_param_spec_array("gains", "Gains",
                           "The linear gains applied at the last EOS, one per channel",
                           g_param_spec_double("gain", "Gain", "Linear gain", 0.0, G_MAXDOUBLE, 1.0,
                                               G_PARAM_READABLE | G_PARAM_STATIC_STRINGS),
                           G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_set_static_metadata(
      element_class, "Normalize", "Filter/Effect/Audio",
      "Whole-stream normalisation to a target peak, RMS or percentile level in dBFS or to a "
      "target loudness in LUFS with a true-peak ceiling (holds the stream until EOS)",
      "gst-fx developers");

  gst_fx_add_audio_pad_templates(GST_AUDIO_FILTER_CLASS(klass));

  trans_class->start = GST_DEBUG_FUNCPTR(gst_fx_normalize_start);
  trans_class->stop = GST_DEBUG_FUNCPTR(gst_fx_normalize_stop);
  trans_class->submit_input_buffer = GST_DEBUG_FUNCPTR(gst_fx_normalize_submit_input_buffer);
  trans_class->generate_output = GST_DEBUG_FUNCPTR(gst_fx_normalize_generate_output);
  trans_class->sink_event = GST_DEBUG_FUNCPTR(gst_fx_normalize_sink_event);

  gst_type_mark_as_plugin_api(GST_TYPE_FX_NORMALIZE_MODE, 0);
}

static void gst_fx_normalize_init(GstFxNormalize *self)
{
  self->mode = DEFAULT_MODE;
  self->target = DEFAULT_TARGET;
  self->percentile = DEFAULT_PERCENTILE;
  self->per_channel = DEFAULT_PER_CHANNEL;
  self->target_lufs = DEFAULT_TARGET_LUFS;
  self->true_peak_limit = DEFAULT_TRUE_PEAK_LIMIT;
  self->max_duration = DEFAULT_MAX_DURATION;
  self->gains = g_array_new(FALSE, TRUE, sizeof(double));
  g_queue_init(&self->held);
  gst_fx_nonfinite_reset(&self->nonfinite);
  gst_fx_quant_init(&self->quant);
}
