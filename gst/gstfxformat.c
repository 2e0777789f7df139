/* gst-fx — integer sample formats (see gstfxformat.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxformat.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC(gst_fx_format_debug);
#define GST_CAT_DEFAULT gst_fx_format_debug

#define DEFAULT_DITHER GST_FX_DITHER_NONE
#define DEFAULT_DITHER_SEED 0
/* The scratch buffer allocated at set_caps holds this many frames (it grows, rarely, when a
 * longer buffer comes). */
#define SCRATCH_MIN_FRAMES 4096

static void debug_init(void)
{
  static gsize done = 0;

  if (g_once_init_enter(&done)) {
    GST_DEBUG_CATEGORY_INIT(gst_fx_format_debug, "fxformat", 0, "gst-fx integer formats");
    g_once_init_leave(&done, 1);
  }
}

GType gst_fx_dither_get_type(void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_FX_DITHER_NONE, "No dither: round to nearest (bit-exact when nothing changes)", "none"},
      {GST_FX_DITHER_TPDF, "Triangular (TPDF) dither of +-1 LSB, then round to nearest", "tpdf"},
      {0, NULL, NULL},
  };

  return gst_fx_enum_register_once(&type, "GstFxDither", values);
}

void gst_fx_install_format_properties(GObjectClass *klass, guint first_prop_id)
{
  gst_type_mark_as_plugin_api(GST_TYPE_FX_DITHER, 0);
  g_object_class_install_property(
      klass, first_prop_id + GST_FX_FORMAT_PROP_DITHER,
      g_param_spec_enum("dither", "Dither",
                        "Dither added before rounding when the stream is S16LE or S32LE (float "
                        "streams are never dithered); none keeps an unchanged signal bit-exact",
                        GST_TYPE_FX_DITHER, DEFAULT_DITHER, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      klass, first_prop_id + GST_FX_FORMAT_PROP_DITHER_SEED,
      g_param_spec_uint("dither-seed", "Dither seed",
                        "Seed of the dither's pseudo-random generator: the same seed and input "
                        "give the same output (restarts at every new stream)",
                        0, G_MAXUINT, DEFAULT_DITHER_SEED, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      klass, first_prop_id + GST_FX_FORMAT_PROP_CLIPPED,
      g_param_spec_uint64("clipped", "Clipped",
                          "Output samples clipped to the S16LE/S32LE range since the element "
                          "started (0 for float streams, which are never clipped)",
                          0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

void gst_fx_quant_init(GstFxQuant *q)
{
  memset(q, 0, sizeof(*q));
  debug_init();
  q->dither = DEFAULT_DITHER;
  q->seed = DEFAULT_DITHER_SEED;
  q->format = GST_AUDIO_FORMAT_UNKNOWN;
  fx_quant_rng_seed(&q->rng, q->seed);
  gst_fx_nonfinite_reset(&q->limit);
}

void gst_fx_quant_clear(GstFxQuant *q)
{
  g_clear_pointer(&q->scratch, g_free);
  q->scratch_frames = 0;
}

void gst_fx_quant_reset(GstObject *owner, GstFxQuant *q)
{
  guint seed;

  GST_OBJECT_LOCK(owner);
  seed = q->seed;
  q->reseed = FALSE;
  GST_OBJECT_UNLOCK(owner);
  fx_quant_rng_seed(&q->rng, seed);
  gst_fx_nonfinite_reset(&q->limit);
  q->since_warning = 0;
}

static gsize sample_size(const GstFxQuant *q)
{
  return q->format == GST_AUDIO_FORMAT_S16 ? sizeof(float) : sizeof(double);
}

static gboolean grow(GstFxQuant *q, gsize frames)
{
  gpointer p;

  if (frames <= q->scratch_frames && q->scratch)
    return TRUE;
  p = g_try_malloc(frames * (gsize) q->channels * sample_size(q));
  if (!p)
    return FALSE;
  g_free(q->scratch);
  q->scratch = p;
  q->scratch_frames = frames;
  return TRUE;
}

gboolean gst_fx_quant_setup(GstObject *owner, GstFxQuant *q, const GstAudioInfo *info,
                            GstAudioInfo *work)
{
  GstAudioFormat f = GST_AUDIO_INFO_FORMAT(info);

  *work = *info;
  q->format = f;
  q->channels = GST_AUDIO_INFO_CHANNELS(info);
  if (!gst_fx_quant_is_int(q)) {
    gst_fx_quant_clear(q);
    return TRUE;
  }
  gst_audio_info_set_format(
      work, f == GST_AUDIO_FORMAT_S16 ? GST_AUDIO_FORMAT_F32 : GST_AUDIO_FORMAT_F64,
      GST_AUDIO_INFO_RATE(info), GST_AUDIO_INFO_CHANNELS(info), info->position);
  work->flags = info->flags;
  work->layout = info->layout;
  gst_fx_quant_clear(q);
  if (q->channels < 1 || !grow(q, MAX(SCRATCH_MIN_FRAMES, (gsize) GST_AUDIO_INFO_RATE(info) / 10)))
    return FALSE;
  gst_fx_quant_reset(owner, q);
  GST_DEBUG_OBJECT(owner, "%s stream: the DSP runs in %s", gst_audio_format_to_string(f),
                   gst_audio_format_to_string(GST_AUDIO_INFO_FORMAT(work)));
  return TRUE;
}

gpointer gst_fx_quant_to_float(GstFxQuant *q, gpointer data, gsize frames)
{
  gsize n = frames * (gsize) q->channels;

  if (!gst_fx_quant_is_int(q))
    return data;
  /* a buffer longer than any before: the scratch buffer grows (with room to spare) */
  if (frames > q->scratch_frames && !grow(q, frames + frames / 2))
    return NULL;
  if (q->format == GST_AUDIO_FORMAT_S16)
    fx_quant_s16_to_f32(data, q->scratch, n);
  else
    fx_quant_s32_to_f64(data, q->scratch, n);
  return q->scratch;
}

guint gst_fx_quant_store(GstObject *owner, GstFxQuant *q, gconstpointer floats, gpointer data,
                         gsize frames, GstClockTime ts)
{
  gsize n = frames * (gsize) q->channels, clipped;
  fx_dither_t dither;
  gboolean reseed;
  guint seed;

  if (!gst_fx_quant_is_int(q) || n == 0)
    return 0;
  GST_OBJECT_LOCK(owner);
  dither = (fx_dither_t) q->dither;
  reseed = q->reseed;
  seed = q->seed;
  q->reseed = FALSE;
  GST_OBJECT_UNLOCK(owner);
  if (reseed)
    fx_quant_rng_seed(&q->rng, seed);
  if (q->format == GST_AUDIO_FORMAT_S16)
    clipped = fx_quant_f32_to_s16(floats, data, n, dither, &q->rng);
  else
    clipped = fx_quant_f64_to_s32(floats, data, n, dither, &q->rng);
  if (clipped) {
    GST_OBJECT_LOCK(owner);
    q->clipped += clipped;
    GST_OBJECT_UNLOCK(owner);
    q->since_warning += clipped;
  }
  return gst_fx_nonfinite_check(&q->limit, ts, clipped > 0);
}

void gst_fx_quant_post_warning(GstElement *element, GstFxQuant *q, guint buffers)
{
  gchar *text, *debug;
  guint64 total;

  if (buffers == 0)
    return;
  GST_OBJECT_LOCK(element);
  total = q->clipped;
  GST_OBJECT_UNLOCK(element);
  text = g_strdup_printf("Output clipped: the processed signal exceeds the %s range (lower the "
                         "gain or process in F32)",
                         gst_audio_format_to_string(q->format));
  debug = g_strdup_printf("%" G_GUINT64_FORMAT " sample(s) clipped in %u buffer(s) since the "
                          "last warning; %" G_GUINT64_FORMAT " in all (property clipped)",
                          q->since_warning, buffers, total);
  q->since_warning = 0;
  GST_WARNING_OBJECT(element, "%s (%s)", text, debug);
  gst_element_message_full(element, GST_MESSAGE_WARNING, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                           text, debug, __FILE__, GST_FUNCTION, __LINE__);
}

gboolean gst_fx_quant_set_property(GObject *owner, GstFxQuant *q, guint prop_id,
                                   guint first_prop_id, const GValue *value)
{
  if (prop_id < first_prop_id || prop_id >= first_prop_id + GST_FX_FORMAT_PROP_COUNT)
    return FALSE;
  GST_OBJECT_LOCK(owner);
  switch (prop_id - first_prop_id) {
  case GST_FX_FORMAT_PROP_DITHER:
    q->dither = g_value_get_enum(value);
    break;
  case GST_FX_FORMAT_PROP_DITHER_SEED:
    /* a controller sets it before every buffer: only a new value restarts the generator */
    if (q->seed != g_value_get_uint(value)) {
      q->seed = g_value_get_uint(value);
      q->reseed = TRUE;
    }
    break;
  default:
    break;
  }
  GST_OBJECT_UNLOCK(owner);
  return TRUE;
}

gboolean gst_fx_quant_get_property(GObject *owner, GstFxQuant *q, guint prop_id,
                                   guint first_prop_id, GValue *value)
{
  if (prop_id < first_prop_id || prop_id >= first_prop_id + GST_FX_FORMAT_PROP_COUNT)
    return FALSE;
  GST_OBJECT_LOCK(owner);
  switch (prop_id - first_prop_id) {
  case GST_FX_FORMAT_PROP_DITHER:
    g_value_set_enum(value, q->dither);
    break;
  case GST_FX_FORMAT_PROP_DITHER_SEED:
    g_value_set_uint(value, q->seed);
    break;
  case GST_FX_FORMAT_PROP_CLIPPED:
    g_value_set_uint64(value, q->clipped);
    break;
  default:
    break;
  }
  GST_OBJECT_UNLOCK(owner);
  return TRUE;
}

gboolean gst_fx_query_caps_ours_first(GstBaseTransform *trans, GstPadDirection direction,
                                      GstQuery *query, GstBaseTransformClass *parent, gboolean *ret)
{
  GstCaps *filter = NULL, *ours = NULL;
  GstQuery *unfiltered;

  if (GST_QUERY_TYPE(query) != GST_QUERY_CAPS)
    return FALSE;
  gst_query_parse_caps(query, &filter);
  if (filter == NULL)
    return FALSE;
  /* what the element can do through this pad, in its own order; then the asker's filter */
  unfiltered = gst_query_new_caps(NULL);
  *ret = parent->query(trans, direction, unfiltered);
  if (*ret) {
    GstCaps *res;
    gst_query_parse_caps_result(unfiltered, &ours);
    res = gst_caps_intersect_full(ours, filter, GST_CAPS_INTERSECT_FIRST);
    gst_query_set_caps_result(query, res);
    gst_caps_unref(res);
  }
  gst_query_unref(unfiltered);
  return TRUE;
}

/* ---- GstFxRequant: fxchain's edge converter ---- */

enum {
  RQ_PROP_0,
  RQ_PROP_DITHER, /* the format properties, in GstFxFormatProp order */
  RQ_PROP_DITHER_SEED,
  RQ_PROP_CLIPPED,
};

struct _GstFxRequant {
  GstBaseTransform parent;
  gboolean to_float;        /* construct time */
  GstFxRequant *partner;    /* out converter: the in converter (no ref: both belong to one bin) */
  GstAudioFormat in_format; /* negotiated sink format (atomic int) */
  GstAudioInfo in_info, out_info;
  GstFxQuant quant; /* out converter: the requantisation */
};

G_DEFINE_TYPE(GstFxRequant, gst_fx_requant, GST_TYPE_BASE_TRANSFORM)

static GstStaticPadTemplate rq_sink_template = GST_STATIC_PAD_TEMPLATE(
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(GST_FX_AUDIO_CAPS));
static GstStaticPadTemplate rq_src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(GST_FX_AUDIO_CAPS));

static GstAudioFormat float_of(GstAudioFormat f)
{
  switch (f) {
  case GST_AUDIO_FORMAT_S16:
    return GST_AUDIO_FORMAT_F32;
  case GST_AUDIO_FORMAT_S32:
    return GST_AUDIO_FORMAT_F64;
  default:
    return f;
  }
}

static GstAudioFormat int_of(GstAudioFormat f)
{
  switch (f) {
  case GST_AUDIO_FORMAT_F32:
    return GST_AUDIO_FORMAT_S16;
  case GST_AUDIO_FORMAT_F64:
    return GST_AUDIO_FORMAT_S32;
  default:
    return GST_AUDIO_FORMAT_UNKNOWN;
  }
}

static void add_format(GValue *list, GstAudioFormat f)
{
  GValue v = G_VALUE_INIT;
  const gchar *name = gst_audio_format_to_string(f);

  if (f == GST_AUDIO_FORMAT_UNKNOWN)
    return;
  for (guint i = 0; i < gst_value_list_get_size(list); i++)
    if (g_strcmp0(g_value_get_string(gst_value_list_get_value(list, i)), name) == 0)
      return;
  g_value_init(&v, G_TYPE_STRING);
  g_value_set_string(&v, name);
  gst_value_list_append_and_take_value(list, &v);
}

/* The formats on the other side for one format @f on the @float_side (TRUE: the inside of the
 * chain, F32/F64) or outside. From the inside, an F32 inside is reached from F32 or S16 outside;
 * the outside format the stream came in with (@prefer, the in converter's sink format, UNKNOWN
 * before caps) comes first, so the chain's output keeps its input's format. */
static void map_format(GValue *list, GstAudioFormat f, gboolean float_side, GstAudioFormat prefer)
{
  if (!float_side) {
    add_format(list, float_of(f));
    return;
  }
  if (f != GST_AUDIO_FORMAT_F32 && f != GST_AUDIO_FORMAT_F64)
    return;
  if (prefer != GST_AUDIO_FORMAT_UNKNOWN && float_of(prefer) == f)
    add_format(list, prefer);
  add_format(list, f);
  add_format(list, int_of(f));
}

static GstCaps *gst_fx_requant_transform_caps(GstBaseTransform *trans, GstPadDirection direction,
                                              GstCaps *caps, GstCaps *filter)
{
  GstFxRequant *self = GST_FX_REQUANT(trans);
  /* the float side: the src pad of the in converter, the sink pad of the out converter */
  gboolean from_float_side = self->to_float ? direction == GST_PAD_SRC : direction == GST_PAD_SINK;
  GstAudioFormat prefer = GST_AUDIO_FORMAT_UNKNOWN;
  GstCaps *res = gst_caps_new_empty();

  if (!self->to_float && self->partner)
    prefer = (GstAudioFormat) g_atomic_int_get((gint *) &self->partner->in_format);
  for (guint i = 0; i < gst_caps_get_size(caps); i++) {
    GstStructure *s = gst_structure_copy(gst_caps_get_structure(caps, i));
    const GValue *fv = gst_structure_get_value(s, "format");
    GValue list = G_VALUE_INIT;

    g_value_init(&list, GST_TYPE_LIST);
    if (fv == NULL) {
      /* any format: every one of ours */
      static const GstAudioFormat all[] = {GST_AUDIO_FORMAT_F32, GST_AUDIO_FORMAT_S16,
                                           GST_AUDIO_FORMAT_F64, GST_AUDIO_FORMAT_S32};
      for (guint k = 0; k < G_N_ELEMENTS(all); k++)
        add_format(&list, all[k]);
    } else if (G_VALUE_HOLDS_STRING(fv)) {
      map_format(&list, gst_audio_format_from_string(g_value_get_string(fv)), from_float_side,
                 prefer);
    } else if (GST_VALUE_HOLDS_LIST(fv)) {
      for (guint k = 0; k < gst_value_list_get_size(fv); k++) {
        const GValue *e = gst_value_list_get_value(fv, k);
        if (G_VALUE_HOLDS_STRING(e))
          map_format(&list, gst_audio_format_from_string(g_value_get_string(e)), from_float_side,
                     prefer);
      }
    }
    if (gst_value_list_get_size(&list) > 0) {
      gst_structure_take_value(s, "format", &list);
      res = gst_caps_merge_structure(res, s);
    } else {
      g_value_unset(&list);
      gst_structure_free(s);
    }
  }
  if (filter) {
    GstCaps *t = gst_caps_intersect_full(filter, res, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref(res);
    res = t;
  }
  return res;
}

static gboolean gst_fx_requant_get_unit_size(GstBaseTransform *trans, GstCaps *caps, gsize *size)
{
  GstAudioInfo info;

  (void) trans;
  if (!gst_audio_info_from_caps(&info, caps))
    return FALSE;
  *size = GST_AUDIO_INFO_BPF(&info);
  return TRUE;
}

static gboolean gst_fx_requant_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
  GstFxRequant *self = GST_FX_REQUANT(trans);
  GstAudioInfo in, out, work;

  if (!gst_audio_info_from_caps(&in, incaps) || !gst_audio_info_from_caps(&out, outcaps))
    return FALSE;
  self->in_info = in;
  self->out_info = out;
  g_atomic_int_set((gint *) &self->in_format, GST_AUDIO_INFO_FORMAT(&in));
  if (!self->to_float) {
    /* the requantisation runs on the output's format: its scratch stays unused (the input is
     * already float) */
    if (!gst_fx_quant_setup(GST_OBJECT(self), &self->quant, &out, &work))
      return FALSE;
    gst_fx_quant_clear(&self->quant);
  }
  gst_base_transform_set_passthrough(trans,
                                     GST_AUDIO_INFO_FORMAT(&in) == GST_AUDIO_INFO_FORMAT(&out));
  GST_DEBUG_OBJECT(self, "%s -> %s", gst_audio_format_to_string(GST_AUDIO_INFO_FORMAT(&in)),
                   gst_audio_format_to_string(GST_AUDIO_INFO_FORMAT(&out)));
  return TRUE;
}

static GstFlowReturn gst_fx_requant_transform(GstBaseTransform *trans, GstBuffer *inbuf,
                                              GstBuffer *outbuf)
{
  GstFxRequant *self = GST_FX_REQUANT(trans);
  GstAudioFormat fin = GST_AUDIO_INFO_FORMAT(&self->in_info);
  GstAudioFormat fout = GST_AUDIO_INFO_FORMAT(&self->out_info);
  gsize bpf = GST_AUDIO_INFO_BPF(&self->in_info);
  gint channels = GST_AUDIO_INFO_CHANNELS(&self->in_info);
  GstMapInfo im, om;
  gsize frames, n;
  guint warn = 0;

  if (bpf == 0)
    return GST_FLOW_NOT_NEGOTIATED;
  if (!gst_buffer_map(inbuf, &im, GST_MAP_READ))
    return GST_FLOW_ERROR;
  if (!gst_buffer_map(outbuf, &om, GST_MAP_WRITE)) {
    gst_buffer_unmap(inbuf, &im);
    return GST_FLOW_ERROR;
  }
  frames = im.size / bpf;
  n = frames * (gsize) channels;
  if (fin == GST_AUDIO_FORMAT_S16 && fout == GST_AUDIO_FORMAT_F32) {
    fx_quant_s16_to_f32((const int16_t *) im.data, (float *) om.data, n);
  } else if (fin == GST_AUDIO_FORMAT_S32 && fout == GST_AUDIO_FORMAT_F64) {
    fx_quant_s32_to_f64((const int32_t *) im.data, (double *) om.data, n);
  } else {
    /* the out converter */
    warn = gst_fx_quant_store(GST_OBJECT(self), &self->quant, im.data, om.data, frames,
                              GST_BUFFER_PTS(inbuf));
  }
  gst_buffer_unmap(outbuf, &om);
  gst_buffer_unmap(inbuf, &im);
  gst_fx_quant_warn(GST_ELEMENT(self), &self->quant, warn);
  return GST_FLOW_OK;
}

static gboolean gst_fx_requant_start(GstBaseTransform *trans)
{
  GstFxRequant *self = GST_FX_REQUANT(trans);

  gst_fx_quant_reset(GST_OBJECT(self), &self->quant);
  GST_OBJECT_LOCK(self);
  self->quant.clipped = 0;
  GST_OBJECT_UNLOCK(self);
  g_atomic_int_set((gint *) &self->in_format, GST_AUDIO_FORMAT_UNKNOWN);
  return TRUE;
}

static gboolean gst_fx_requant_sink_event(GstBaseTransform *trans, GstEvent *event)
{
  if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP ||
      GST_EVENT_TYPE(event) == GST_EVENT_STREAM_START)
    gst_fx_quant_reset(GST_OBJECT(trans), &GST_FX_REQUANT(trans)->quant);
  return GST_BASE_TRANSFORM_CLASS(gst_fx_requant_parent_class)->sink_event(trans, event);
}

static void gst_fx_requant_set_property(GObject *object, guint prop_id, const GValue *value,
                                        GParamSpec *pspec)
{
  GstFxRequant *self = GST_FX_REQUANT(object);

  if (!gst_fx_quant_set_property(object, &self->quant, prop_id, RQ_PROP_DITHER, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
}

static void gst_fx_requant_get_property(GObject *object, guint prop_id, GValue *value,
                                        GParamSpec *pspec)
{
  GstFxRequant *self = GST_FX_REQUANT(object);

  if (!gst_fx_quant_get_property(object, &self->quant, prop_id, RQ_PROP_DITHER, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
}

static void gst_fx_requant_class_init(GstFxRequantClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);

  debug_init();
  gobject_class->set_property = gst_fx_requant_set_property;
  gobject_class->get_property = gst_fx_requant_get_property;
  gst_fx_install_format_properties(gobject_class, RQ_PROP_DITHER);
  gst_element_class_add_static_pad_template(element_class, &rq_sink_template);
  gst_element_class_add_static_pad_template(element_class, &rq_src_template);
  gst_element_class_set_static_metadata(
      element_class, "fxchain format converter", "Filter/Converter/Audio",
      "fxchain's edges: integer samples to float and back", "gst-fx developers");
  trans_class->transform_caps = GST_DEBUG_FUNCPTR(gst_fx_requant_transform_caps);
  trans_class->get_unit_size = GST_DEBUG_FUNCPTR(gst_fx_requant_get_unit_size);
  trans_class->set_caps = GST_DEBUG_FUNCPTR(gst_fx_requant_set_caps);
  trans_class->transform = GST_DEBUG_FUNCPTR(gst_fx_requant_transform);
  trans_class->start = GST_DEBUG_FUNCPTR(gst_fx_requant_start);
  trans_class->sink_event = GST_DEBUG_FUNCPTR(gst_fx_requant_sink_event);
  trans_class->passthrough_on_same_caps = TRUE;
}

static void gst_fx_requant_init(GstFxRequant *self)
{
  gst_fx_quant_init(&self->quant);
  self->in_format = GST_AUDIO_FORMAT_UNKNOWN;
}

GstElement *gst_fx_requant_new(const gchar *name, gboolean to_float)
{
  GstFxRequant *self = g_object_new(GST_TYPE_FX_REQUANT, "name", name, NULL);

  self->to_float = to_float;
  return GST_ELEMENT(self);
}

void gst_fx_requant_set_partner(GstFxRequant *out, GstFxRequant *in)
{
  out->partner = in;
}

gboolean gst_fx_query_with_latency(GstBaseTransform *trans, GstPadDirection direction,
                                   GstQuery *query, GstBaseTransformClass *parent,
                                   const GstClockTime *latency)
{
  gboolean ret;

  if (gst_fx_query_caps_ours_first(trans, direction, query, parent, &ret))
    return ret;
  ret = parent->query(trans, direction, query);
  if (ret && direction == GST_PAD_SRC && GST_QUERY_TYPE(query) == GST_QUERY_LATENCY) {
    GstClockTime ours;

    GST_OBJECT_LOCK(trans);
    ours = *latency;
    GST_OBJECT_UNLOCK(trans);
    gst_fx_query_add_latency(query, ours);
    GST_DEBUG_OBJECT(trans, "latency query: adding %" GST_TIME_FORMAT, GST_TIME_ARGS(ours));
  }
  return ret;
}

GstBuffer *gst_fx_lookahead_tail_new(GstElement *self, gsize frames, gsize bpf, gint rate,
                                     GstClockTime pts, guint64 offset)
{
  GstBuffer *buf = gst_buffer_new_allocate(NULL, frames * bpf, NULL);

  if (buf == NULL) {
    GST_ELEMENT_WARNING(self, RESOURCE, NO_SPACE_LEFT, (NULL),
                        ("cannot allocate the look-ahead tail: the last %" G_GSIZE_FORMAT
                         " frames are lost",
                         frames));
    return NULL;
  }
  gst_buffer_memset(buf, 0, 0, frames * bpf);
  GST_BUFFER_PTS(buf) = pts;
  GST_BUFFER_DURATION(buf) = gst_util_uint64_scale_int(frames, GST_SECOND, rate);
  if (offset != GST_BUFFER_OFFSET_NONE) {
    GST_BUFFER_OFFSET(buf) = offset;
    GST_BUFFER_OFFSET_END(buf) = offset + frames;
  }
  return buf;
}
