/* gst-fx — GstFxDynamics: the shared base of fxcompressor, fxgate and fxlimiter.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Thin: properties (one table for the three elements, defaults from fx_dyn_params_default()),
 * controller sync, the LATENCY query, the latency message, the look-ahead tail at EOS and the
 * non-finite input warning. The DSP is dsp/dynamics.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxdynamics.h"
#include "gstfxcommon.h"
#include "gstfxpreset.h"
#include "gstfxformat.h"

#include <math.h>
#include <string.h>

#define GST_CAT_DEFAULT (GST_FX_DYNAMICS_GET_CLASS(self)->debug)

enum {
  PROP_0,
  PROP_THRESHOLD,
  PROP_RATIO,
  PROP_KNEE,
  PROP_ATTACK,
  PROP_HOLD,
  PROP_RELEASE,
  PROP_MAKEUP,
  PROP_RANGE,
  PROP_DETECTOR,
  PROP_RMS_WINDOW,
  PROP_LOOKAHEAD,
  PROP_LINK,
  PROP_FORMAT, /* dither, dither-seed, clipped: PROP_FORMAT + GstFxFormatProp */
};

#define M_C (1u << FX_DYN_COMPRESSOR)
#define M_G (1u << FX_DYN_GATE)
#define M_L (1u << FX_DYN_LIMITER)

typedef struct {
  /* Settings (object lock). */
  fx_dyn_params_t params;
  double lookahead_ms;
  gboolean link;

  /* Stream state (streaming thread). */
  fx_dyn_t *dyn;
  fx_dyn_params_t applied;
  gboolean flowed; /* a frame has run since the engine was made or reset (see before_transform) */
  gboolean is_f64;
  gint rate;
  GstClockTime latency;  /* what the LATENCY query adds (ns) */
  GstClockTime next_pts; /* end of the last buffer, for the tail at EOS */
  guint64 next_offset;
  GstFxNonfiniteLimit nonfinite;
  GstFxQuant quant; /* integer streams */
} GstFxDynamicsPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_CODE(GstFxDynamics, gst_fx_dynamics, GST_TYPE_AUDIO_FILTER,
                                 G_ADD_PRIVATE(GstFxDynamics)
                                     G_IMPLEMENT_INTERFACE(GST_TYPE_PRESET,
                                                           gst_fx_preset_interface_init))

#define PRIV(self) ((GstFxDynamicsPrivate *) gst_fx_dynamics_get_instance_private(self))

static const GstFxPropField dyn_fields[] = {
    {PROP_THRESHOLD, G_TYPE_DOUBLE,
     G_STRUCT_OFFSET(GstFxDynamicsPrivate, params) +
         G_STRUCT_OFFSET(fx_dyn_params_t, threshold_db)},
    {PROP_RATIO, G_TYPE_DOUBLE,
     G_STRUCT_OFFSET(GstFxDynamicsPrivate, params) + G_STRUCT_OFFSET(fx_dyn_params_t, ratio)},
    {PROP_KNEE, G_TYPE_DOUBLE,
     G_STRUCT_OFFSET(GstFxDynamicsPrivate, params) + G_STRUCT_OFFSET(fx_dyn_params_t, knee_db)},
    {PROP_ATTACK, G_TYPE_DOUBLE,
     G_STRUCT_OFFSET(GstFxDynamicsPrivate, params) + G_STRUCT_OFFSET(fx_dyn_params_t, attack_ms)},
    {PROP_HOLD, G_TYPE_DOUBLE,
     G_STRUCT_OFFSET(GstFxDynamicsPrivate, params) + G_STRUCT_OFFSET(fx_dyn_params_t, hold_ms)},
    {PROP_RELEASE, G_TYPE_DOUBLE,
     G_STRUCT_OFFSET(GstFxDynamicsPrivate, params) + G_STRUCT_OFFSET(fx_dyn_params_t, release_ms)},
    {PROP_MAKEUP, G_TYPE_DOUBLE,
     G_STRUCT_OFFSET(GstFxDynamicsPrivate, params) + G_STRUCT_OFFSET(fx_dyn_params_t, makeup_db)},
    {PROP_RANGE, G_TYPE_DOUBLE,
     G_STRUCT_OFFSET(GstFxDynamicsPrivate, params) + G_STRUCT_OFFSET(fx_dyn_params_t, range_db)},
    {PROP_DETECTOR, G_TYPE_ENUM,
     G_STRUCT_OFFSET(GstFxDynamicsPrivate, params) + G_STRUCT_OFFSET(fx_dyn_params_t, detector)},
    {PROP_RMS_WINDOW, G_TYPE_DOUBLE,
     G_STRUCT_OFFSET(GstFxDynamicsPrivate, params) + G_STRUCT_OFFSET(fx_dyn_params_t, rms_ms)},
    {PROP_LOOKAHEAD, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxDynamicsPrivate, lookahead_ms)},
    {PROP_LINK, G_TYPE_BOOLEAN, G_STRUCT_OFFSET(GstFxDynamicsPrivate, link)},
};

/* The double properties: id, name, nick, range, and per element (indexed by fx_dyn_mode_t) the
 * description, NULL where the element lacks the property. The defaults come from
 * fx_dyn_params_default(). */
typedef struct {
  guint id;
  const gchar *name, *nick;
  double min, max;
  const gchar *blurb[3];
} DynDoubleProp;

G_STATIC_ASSERT(FX_DYN_COMPRESSOR == 0 && FX_DYN_GATE == 1 && FX_DYN_LIMITER == 2);

static const DynDoubleProp double_props[] = {
    {PROP_THRESHOLD,
     "threshold",
     "Threshold",
     -120.0,
     20.0,
     {"Threshold in dBFS above which the level is reduced",
      "Threshold in dBFS below which the level is reduced",
      "Ceiling in dBFS: the output never exceeds it"}},
    {PROP_RATIO,
     "ratio",
     "Ratio",
     1.0,
     1000.0,
     {"Input dB above the threshold per output dB (1 = off, large = limiting)",
      "Output dB per input dB below the threshold (downward expansion; large = hard gate)", NULL}},
    {PROP_KNEE,
     "knee",
     "Knee",
     0.0,
     48.0,
     {"Soft-knee width in dB around the threshold (0 = hard knee)",
      "Soft-knee width in dB around the threshold (0 = hard knee)", NULL}},
    {PROP_ATTACK,
     "attack",
     "Attack",
     0.0,
     5000.0,
     {"Attack time constant in ms while the gain falls: 1-1/e of a step after this time",
      "Attack time constant in ms while the gate opens: 1-1/e of a step after this time", NULL}},
    {PROP_HOLD,
     "hold",
     "Hold",
     0.0,
     5000.0,
     {NULL, "ms the gate stays open after the level falls below the threshold", NULL}},
    {PROP_RELEASE,
     "release",
     "Release",
     0.0,
     10000.0,
     {"Release time constant in ms while the gain rises back",
      "Release time constant in ms while the gate closes (after hold)",
      "Release time constant in ms while the gain rises back"}},
    {PROP_MAKEUP,
     "makeup",
     "Makeup gain",
     -60.0,
     60.0,
     {"Gain in dB applied after the gain computer", "Gain in dB applied after the gain computer",
      NULL}},
    {PROP_RANGE,
     "range",
     "Range",
     -200.0,
     0.0,
     {NULL, "The floor in dB: the most attenuation the gate applies", NULL}},
    {PROP_RMS_WINDOW,
     "rms-window",
     "RMS window",
     0.0,
     1000.0,
     {"Time constant in ms of the RMS detector's one-pole mean of x^2",
      "Time constant in ms of the RMS detector's one-pole mean of x^2", NULL}},
};

#define MAX_LOOKAHEAD_MS 100.0

GType gst_fx_dynamics_detector_get_type(void);
#define GST_TYPE_FX_DYNAMICS_DETECTOR (gst_fx_dynamics_detector_get_type())
GType gst_fx_dynamics_detector_get_type(void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
      {FX_DYN_PEAK, "Peak: the instantaneous |x|", "peak"},
      {FX_DYN_RMS, "RMS: a one-pole mean of x^2 over rms-window", "rms"},
      {0, NULL, NULL},
  };
  return gst_fx_enum_register_once(&type, "GstFxDynamicsDetector", values);
}

static double default_of(const fx_dyn_params_t *p, guint id)
{
  switch (id) {
  case PROP_THRESHOLD:
    return p->threshold_db;
  case PROP_RATIO:
    return p->ratio;
  case PROP_KNEE:
    return p->knee_db;
  case PROP_ATTACK:
    return p->attack_ms;
  case PROP_HOLD:
    return p->hold_ms;
  case PROP_RELEASE:
    return p->release_ms;
  case PROP_MAKEUP:
    return p->makeup_db;
  case PROP_RANGE:
    return p->range_db;
  case PROP_RMS_WINDOW:
    return p->rms_ms;
  default:
    return 0.0;
  }
}

static void gst_fx_dynamics_set_property(GObject *object, guint prop_id, const GValue *value,
                                         GParamSpec *pspec)
{
  GstFxDynamics *self = GST_FX_DYNAMICS(object);

  if (gst_fx_quant_set_property(object, &PRIV(self)->quant, prop_id, PROP_FORMAT, value))
    return;
  /* look-ahead and link shape the engine's memory: only while not streaming */
  if (prop_id == PROP_LOOKAHEAD || prop_id == PROP_LINK) {
    GstState state;
    GST_OBJECT_LOCK(self);
    state = MAX(GST_STATE(self), GST_STATE_PENDING(self));
    GST_OBJECT_UNLOCK(self);
    if (state > GST_STATE_READY) {
      GST_ELEMENT_WARNING(self, LIBRARY, SETTINGS, (NULL),
                          ("'%s' can only change in the NULL or READY state; the change is "
                           "ignored",
                           pspec->name));
      return;
    }
  }
  gst_fx_props_set(object, PRIV(self), dyn_fields, G_N_ELEMENTS(dyn_fields), prop_id, value, pspec);
}

static void gst_fx_dynamics_get_property(GObject *object, guint prop_id, GValue *value,
                                         GParamSpec *pspec)
{
  GstFxDynamics *self = GST_FX_DYNAMICS(object);

  if (gst_fx_quant_get_property(object, &PRIV(self)->quant, prop_id, PROP_FORMAT, value))
    return;
  gst_fx_props_get(object, PRIV(self), dyn_fields, G_N_ELEMENTS(dyn_fields), prop_id, value, pspec);
}

void gst_fx_dynamics_class_setup(GstFxDynamicsClass *klass, fx_dyn_mode_t mode,
                                 GstDebugCategory *debug)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  fx_dyn_params_t def;

  klass->mode = mode;
  klass->debug = debug;
  /* GObject does not inherit these (g_object_base_class_init resets them) */
  gobject_class->set_property = gst_fx_dynamics_set_property;
  gobject_class->get_property = gst_fx_dynamics_get_property;
  fx_dyn_params_default(mode, &def);

  for (guint i = 0; i < G_N_ELEMENTS(double_props); i++) {
    const DynDoubleProp *d = &double_props[i];
    if (d->blurb[mode] == NULL)
      continue;
    g_object_class_install_property(gobject_class, d->id,
                                    g_param_spec_double(d->name, d->nick, d->blurb[mode], d->min,
                                                        d->max, default_of(&def, d->id),
                                                        GST_FX_DSP_PARAM_FLAGS));
  }
  if (mode != FX_DYN_LIMITER)
    g_object_class_install_property(
        gobject_class, PROP_DETECTOR,
        g_param_spec_enum("detector", "Detector", "Level detector: peak or rms",
                          GST_TYPE_FX_DYNAMICS_DETECTOR, def.detector, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_LOOKAHEAD,
      g_param_spec_double("look-ahead", "Look-ahead",
                          "Look-ahead in ms: the output is delayed (and the latency reported) by "
                          "this much so the gain can react before a peak (NULL/READY only)",
                          0.0, MAX_LOOKAHEAD_MS, mode == FX_DYN_LIMITER ? 5.0 : 0.0,
                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property(
      gobject_class, PROP_LINK,
      g_param_spec_boolean("link", "Link channels",
                           "One gain for all channels from the loudest channel (TRUE) or one "
                           "gain per channel (FALSE) (NULL/READY only)",
                           TRUE,
                           G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  gst_fx_install_format_properties(gobject_class, PROP_FORMAT);

  gst_fx_add_audio_pad_templates(GST_AUDIO_FILTER_CLASS(klass));
}

static void gst_fx_dynamics_finalize(GObject *object)
{
  GstFxDynamics *self = GST_FX_DYNAMICS(object);

  fx_dyn_free(PRIV(self)->dyn);
  PRIV(self)->dyn = NULL;
  gst_fx_quant_clear(&PRIV(self)->quant);
  G_OBJECT_CLASS(gst_fx_dynamics_parent_class)->finalize(object);
}

static void gst_fx_dynamics_init(GstFxDynamics *self)
{
  GstFxDynamicsPrivate *priv = PRIV(self);

  priv->link = TRUE;
  priv->latency = 0;
  priv->next_pts = GST_CLOCK_TIME_NONE;
  gst_fx_quant_init(&priv->quant);
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
}

void gst_fx_dynamics_instance_setup(GstFxDynamics *self)
{
  GstFxDynamicsPrivate *priv = PRIV(self);
  fx_dyn_mode_t mode = GST_FX_DYNAMICS_GET_CLASS(self)->mode;

  fx_dyn_params_default(mode, &priv->params);
  priv->lookahead_ms = mode == FX_DYN_LIMITER ? 5.0 : 0.0;
}

static gboolean gst_fx_dynamics_setup(GstAudioFilter *filter, const GstAudioInfo *info)
{
  GstFxDynamics *self = GST_FX_DYNAMICS(filter);
  GstFxDynamicsPrivate *priv = PRIV(self);
  fx_dyn_mode_t mode = GST_FX_DYNAMICS_GET_CLASS(self)->mode;
  gint rate = GST_AUDIO_INFO_RATE(info), channels = GST_AUDIO_INFO_CHANNELS(info);
  fx_dyn_params_t params;
  double la_ms;
  gboolean link;
  size_t la;
  GstClockTime latency;
  GstAudioInfo work;
  fx_dyn_t *dyn;

  GST_OBJECT_LOCK(self);
  params = priv->params;
  la_ms = priv->lookahead_ms;
  link = priv->link;
  GST_OBJECT_UNLOCK(self);

  if (rate < 1 || channels < 1) {
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, (NULL),
                      ("bad caps: rate %d, channels %d", rate, channels));
    return FALSE;
  }
  la = (size_t) floor(la_ms * 1e-3 * rate + 0.5);
  dyn = fx_dyn_new(mode, channels, (double) rate, la, link, &params);
  if (dyn == NULL) {
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, (NULL),
                      ("cannot allocate the look-ahead of %" G_GSIZE_FORMAT
                       " frames x %d channels (look-ahead=%g ms at %d Hz)",
                       la, channels, la_ms, rate));
    return FALSE;
  }
  fx_dyn_free(priv->dyn);
  priv->dyn = dyn;
  priv->applied = params;
  priv->flowed = FALSE;
  /* S16 runs as F32 and S32 as F64, requantised on output (gstfxformat.h) */
  if (!gst_fx_quant_setup(GST_OBJECT(self), &priv->quant, info, &work)) {
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, (NULL), ("cannot allocate a scratch buffer"));
    return FALSE;
  }
  priv->is_f64 = GST_AUDIO_INFO_FORMAT(&work) == GST_AUDIO_FORMAT_F64;
  priv->rate = rate;
  priv->next_pts = GST_CLOCK_TIME_NONE;
  priv->next_offset = GST_BUFFER_OFFSET_NONE;

  latency = gst_util_uint64_scale_int(la, GST_SECOND, rate);
  GST_OBJECT_LOCK(self);
  if (latency != priv->latency) {
    priv->latency = latency;
    GST_OBJECT_UNLOCK(self);
    GST_INFO_OBJECT(self, "latency now %" GST_TIME_FORMAT " (%" G_GSIZE_FORMAT " frames)",
                    GST_TIME_ARGS(latency), la);
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_latency(GST_OBJECT(self)));
  } else {
    GST_OBJECT_UNLOCK(self);
  }
  return TRUE;
}

static gboolean gst_fx_dynamics_start(GstBaseTransform *trans)
{
  GstFxDynamicsPrivate *priv = PRIV(GST_FX_DYNAMICS(trans));

  gst_fx_quant_reset(GST_OBJECT(trans), &priv->quant);
  GST_OBJECT_LOCK(trans);
  priv->quant.clipped = 0;
  GST_OBJECT_UNLOCK(trans);
  return TRUE;
}

static gboolean gst_fx_dynamics_stop(GstBaseTransform *trans)
{
  GstFxDynamics *self = GST_FX_DYNAMICS(trans);
  GstFxDynamicsPrivate *priv = PRIV(self);

  fx_dyn_free(priv->dyn);
  priv->dyn = NULL;
  gst_fx_nonfinite_reset(&priv->nonfinite);
  return TRUE;
}

static void gst_fx_dynamics_before_transform(GstBaseTransform *trans, GstBuffer *buffer)
{
  GstFxDynamics *self = GST_FX_DYNAMICS(trans);
  GstFxDynamicsPrivate *priv = PRIV(self);
  fx_dyn_params_t params;

  gst_fx_sync_controllers(trans, buffer);

  GST_OBJECT_LOCK(self);
  params = priv->params;
  GST_OBJECT_UNLOCK(self);
  if (priv->dyn && memcmp(&params, &priv->applied, sizeof(params)) != 0) {
    fx_dyn_set_params(priv->dyn, &params);
    /* Before any audio (since caps, a flush or a new stream) there is nothing to glide from: a
     * setting made then applies from the first sample (the makeup gain does not glide up from
     * its old value). Only the streaming thread reads and writes `flowed`. */
    if (!priv->flowed)
      fx_dyn_reset(priv->dyn);
    priv->applied = params;
  }
}

/* Runs the engine over a mapped buffer (at stream time @ts, in the negotiated format: an integer
 * buffer runs as floats in the scratch buffer and is requantised); NaN/Inf input is replaced by
 * silence and reported with the shared rate limit (gstfxcommon.h). */
static void process(GstFxDynamics *self, gpointer data, gsize frames, GstClockTime ts)
{
  GstFxDynamicsPrivate *priv = PRIV(self);
  gpointer work = gst_fx_quant_begin(&priv->quant, data, frames);
  size_t bad;
  guint clip_warn;

  if (!work && frames > 0) { /* (an empty buffer maps to NULL) */
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, (NULL), ("cannot grow the scratch buffer"));
    return;
  }
  if (priv->is_f64)
    bad = fx_dyn_process_f64(priv->dyn, work, work, frames);
  else
    bad = fx_dyn_process_f32(priv->dyn, work, work, frames);
  clip_warn = gst_fx_quant_end((GstObject *) self, &priv->quant, data, frames, ts);
  gst_fx_nonfinite_warn(GST_ELEMENT(self), gst_fx_nonfinite_check(&priv->nonfinite, ts, bad > 0),
                        GST_STREAM_ERROR_FORMAT);
  gst_fx_quant_warn((GstElement *) self, &priv->quant, clip_warn);
}

static GstFlowReturn gst_fx_dynamics_transform_ip(GstBaseTransform *trans, GstBuffer *buf)
{
  GstFxDynamics *self = GST_FX_DYNAMICS(trans);
  GstFxDynamicsPrivate *priv = PRIV(self);
  gsize bpf = GST_AUDIO_INFO_BPF(&GST_AUDIO_FILTER(trans)->info);
  GstMapInfo map;
  GstFlowReturn ret = gst_fx_map_writable(GST_ELEMENT(self), priv->dyn && bpf > 0, buf, &map);

  if (ret != GST_FLOW_OK)
    return ret;
  process(self, map.data, map.size / bpf, GST_BUFFER_PTS(buf));
  if (map.size / bpf > 0)
    priv->flowed = TRUE;
  gst_buffer_unmap(buf, &map);

  if (GST_BUFFER_PTS_IS_VALID(buf))
    priv->next_pts = GST_BUFFER_PTS(buf) +
                     (GST_BUFFER_DURATION_IS_VALID(buf)
                          ? GST_BUFFER_DURATION(buf)
                          : gst_util_uint64_scale_int(map.size / bpf, GST_SECOND, priv->rate));
  if (GST_BUFFER_OFFSET_END_IS_VALID(buf))
    priv->next_offset = GST_BUFFER_OFFSET_END(buf);
  return GST_FLOW_OK;
}

/* At EOS: pushes the look-ahead's tail (the last `latency` frames still in the delay line). */
static void push_tail(GstFxDynamics *self)
{
  GstFxDynamicsPrivate *priv = PRIV(self);
  GstBaseTransform *trans = GST_BASE_TRANSFORM(self);
  gsize la, bpf = GST_AUDIO_INFO_BPF(&GST_AUDIO_FILTER(self)->info);
  GstBuffer *buf;
  GstMapInfo map;

  if (priv->dyn == NULL || bpf == 0 || (la = fx_dyn_latency(priv->dyn)) == 0)
    return;
  buf = gst_fx_lookahead_tail_new(GST_ELEMENT(self), la, bpf, priv->rate, priv->next_pts,
                                  priv->next_offset);
  if (buf == NULL)
    return;
  if (!gst_buffer_map(buf, &map, GST_MAP_WRITE)) {
    gst_buffer_unref(buf);
    return;
  }
  process(self, map.data, la, GST_CLOCK_TIME_NONE);
  gst_buffer_unmap(buf, &map);
  GST_DEBUG_OBJECT(self, "pushing the %" G_GSIZE_FORMAT "-frame look-ahead tail", la);
  gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(trans), buf);
  fx_dyn_reset(priv->dyn);
}

static gboolean gst_fx_dynamics_sink_event(GstBaseTransform *trans, GstEvent *event)
{
  GstFxDynamics *self = GST_FX_DYNAMICS(trans);
  GstFxDynamicsPrivate *priv = PRIV(self);

  switch (GST_EVENT_TYPE(event)) {
  case GST_EVENT_EOS:
    push_tail(self);
    break;
  case GST_EVENT_CAPS: {
    /* a new format: the look-ahead's tail of the old one goes out first (in the old format) */
    GstCaps *caps;
    GstAudioInfo info;
    gst_event_parse_caps(event, &caps);
    if (priv->dyn && gst_audio_info_from_caps(&info, caps) &&
        !gst_audio_info_is_equal(&info, &GST_AUDIO_FILTER(self)->info))
      push_tail(self);
    break;
  }
  case GST_EVENT_FLUSH_STOP:
  case GST_EVENT_STREAM_START:
    if (priv->dyn)
      fx_dyn_reset(priv->dyn);
    priv->flowed = FALSE;
    priv->next_pts = GST_CLOCK_TIME_NONE;
    priv->next_offset = GST_BUFFER_OFFSET_NONE;
    gst_fx_nonfinite_reset(&priv->nonfinite);
    gst_fx_quant_reset(GST_OBJECT(self), &priv->quant);
    break;
  default:
    break;
  }
  return GST_BASE_TRANSFORM_CLASS(gst_fx_dynamics_parent_class)->sink_event(trans, event);
}

static gboolean gst_fx_dynamics_query(GstBaseTransform *trans, GstPadDirection direction,
                                      GstQuery *query)
{
  return gst_fx_query_with_latency(trans, direction, query,
                                   GST_BASE_TRANSFORM_CLASS(gst_fx_dynamics_parent_class),
                                   &PRIV(GST_FX_DYNAMICS(trans))->latency);
}

static void gst_fx_dynamics_class_init(GstFxDynamicsClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  GstAudioFilterClass *filter_class = GST_AUDIO_FILTER_CLASS(klass);

  gobject_class->set_property = gst_fx_dynamics_set_property;
  gobject_class->get_property = gst_fx_dynamics_get_property;
  gobject_class->finalize = gst_fx_dynamics_finalize;

  filter_class->setup = GST_DEBUG_FUNCPTR(gst_fx_dynamics_setup);
  trans_class->start = GST_DEBUG_FUNCPTR(gst_fx_dynamics_start);
  trans_class->stop = GST_DEBUG_FUNCPTR(gst_fx_dynamics_stop);
  trans_class->before_transform = GST_DEBUG_FUNCPTR(gst_fx_dynamics_before_transform);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR(gst_fx_dynamics_transform_ip);
  trans_class->sink_event = GST_DEBUG_FUNCPTR(gst_fx_dynamics_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR(gst_fx_dynamics_query);
  trans_class->transform_ip_on_passthrough = FALSE;

  gst_type_mark_as_plugin_api(GST_TYPE_FX_DYNAMICS, 0);
  gst_type_mark_as_plugin_api(GST_TYPE_FX_DYNAMICS_DETECTOR, 0);
}
