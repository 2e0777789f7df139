/* gst-fx — the glue every element shares (see gstfxcommon.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxcommon.h"

#define DEFAULT_DEVICE GST_FX_DEVICE_AUTO
#define DEFAULT_PRECISION GST_FX_PRECISION_AUTO
#define DEFAULT_SCAN_THRESHOLD 0
/* 2^24 frames (about 6 minutes at 48 kHz): longer than any buffer a pipeline carries. */
#define MAX_SCAN_THRESHOLD (1u << 24)
#define DEFAULT_CUDA_GRAPHS TRUE
#define DEFAULT_WARM_UP TRUE

void gst_fx_add_audio_pad_templates(GstAudioFilterClass *klass)
{
  GstCaps *caps = gst_caps_from_string(GST_FX_AUDIO_CAPS);

  gst_audio_filter_class_add_pad_templates(klass, caps);
  gst_caps_unref(caps);
}

static const GstFxPropField *find_field(const GstFxPropField *fields, guint n_fields, guint prop_id)
{
  for (guint i = 0; i < n_fields; i++)
    if (fields[i].prop_id == prop_id)
      return &fields[i];
  return NULL;
}

gboolean gst_fx_props_set(GObject *object, gpointer base, const GstFxPropField *fields,
                          guint n_fields, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  const GstFxPropField *f = find_field(fields, n_fields, prop_id);
  gpointer field;

  if (f == NULL) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    return FALSE;
  }
  field = G_STRUCT_MEMBER_P(base, f->offset);
  GST_OBJECT_LOCK(object);
  if (f->kind == G_TYPE_DOUBLE)
    *(double *) field = g_value_get_double(value);
  else if (f->kind == G_TYPE_INT)
    *(gint *) field = g_value_get_int(value);
  else if (f->kind == G_TYPE_BOOLEAN)
    *(gboolean *) field = g_value_get_boolean(value);
  else
    *(gint *) field = g_value_get_enum(value);
  GST_OBJECT_UNLOCK(object);
  return TRUE;
}

void gst_fx_props_get(GObject *object, gconstpointer base, const GstFxPropField *fields,
                      guint n_fields, guint prop_id, GValue *value, GParamSpec *pspec)
{
  const GstFxPropField *f = find_field(fields, n_fields, prop_id);
  gconstpointer field;

  if (f == NULL) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    return;
  }
  field = (const guint8 *) base + f->offset;
  GST_OBJECT_LOCK(object);
  if (f->kind == G_TYPE_DOUBLE)
    g_value_set_double(value, *(const double *) field);
  else if (f->kind == G_TYPE_INT)
    g_value_set_int(value, *(const gint *) field);
  else if (f->kind == G_TYPE_BOOLEAN)
    g_value_set_boolean(value, *(const gboolean *) field);
  else
    g_value_set_enum(value, *(const gint *) field);
  GST_OBJECT_UNLOCK(object);
}

GType gst_fx_enum_register_once(GType *type, const gchar *name, const GEnumValue *values)
{
  if (g_once_init_enter(type)) {
    GType t = g_enum_register_static(name, values);
    g_once_init_leave(type, t);
  }
  return *type;
}

GType gst_fx_filter_mode_get_type(void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_FX_FILTER_MODE_LOW_PASS, "Low-pass at cutoff", "low-pass"},
      {GST_FX_FILTER_MODE_HIGH_PASS, "High-pass at cutoff", "high-pass"},
      {GST_FX_FILTER_MODE_BAND_PASS, "Band-pass from lower-frequency to upper-frequency",
       "band-pass"},
      {GST_FX_FILTER_MODE_BAND_REJECT, "Band-reject from lower-frequency to upper-frequency",
       "band-reject"},
      {0, NULL, NULL},
  };
  return gst_fx_enum_register_once(&type, "GstFxFilterMode", values);
}

GType gst_fx_device_get_type(void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_FX_DEVICE_AUTO, "Fastest backend for the negotiated shape (CPU without a GPU)", "auto"},
      {GST_FX_DEVICE_CPU, "CPU", "cpu"},
      {GST_FX_DEVICE_CUDA, "NVIDIA GPU through CUDA", "cuda"},
      {0, NULL, NULL},
  };
  return gst_fx_enum_register_once(&type, "GstFxDevice", values);
}

GType gst_fx_precision_get_type(void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_FX_PRECISION_AUTO,
       "Single where a probe of the design finds it at least as accurate as scipy's float32 "
       "sosfilt, double otherwise",
       "auto"},
      {GST_FX_PRECISION_SINGLE, "Single precision for F32 streams", "single"},
      {GST_FX_PRECISION_DOUBLE, "Double precision", "double"},
      {0, NULL, NULL},
  };
  return gst_fx_enum_register_once(&type, "GstFxPrecision", values);
}

void gst_fx_common_settings_init(GstFxCommonSettings *settings)
{
  settings->device = DEFAULT_DEVICE;
  settings->precision = DEFAULT_PRECISION;
  settings->scan_threshold = DEFAULT_SCAN_THRESHOLD;
  settings->cuda_graphs = DEFAULT_CUDA_GRAPHS;
  settings->warm_up = DEFAULT_WARM_UP;
}

gboolean gst_fx_common_settings_set(GstFxCommonSettings *settings, GstFxCommonProp which,
                                    const GValue *value)
{
  GstFxCommonSettings old = *settings;

  switch (which) {
  case GST_FX_COMMON_PROP_DEVICE:
    settings->device = g_value_get_enum(value);
    return settings->device != old.device;
  case GST_FX_COMMON_PROP_PRECISION:
    settings->precision = g_value_get_enum(value);
    return settings->precision != old.precision;
  case GST_FX_COMMON_PROP_SCAN_THRESHOLD:
    settings->scan_threshold = g_value_get_uint(value);
    return settings->scan_threshold != old.scan_threshold;
  case GST_FX_COMMON_PROP_CUDA_GRAPHS:
    settings->cuda_graphs = g_value_get_boolean(value);
    return settings->cuda_graphs != old.cuda_graphs;
  case GST_FX_COMMON_PROP_WARM_UP:
    settings->warm_up = g_value_get_boolean(value);
    return settings->warm_up != old.warm_up;
  default:
    return FALSE;
  }
}

static gboolean common_settings_get(const GstFxCommonSettings *settings, GstFxCommonProp which,
                                    GValue *value)
{
  switch (which) {
  case GST_FX_COMMON_PROP_DEVICE:
    g_value_set_enum(value, settings->device);
    return TRUE;
  case GST_FX_COMMON_PROP_PRECISION:
    g_value_set_enum(value, settings->precision);
    return TRUE;
  case GST_FX_COMMON_PROP_SCAN_THRESHOLD:
    g_value_set_uint(value, settings->scan_threshold);
    return TRUE;
  case GST_FX_COMMON_PROP_CUDA_GRAPHS:
    g_value_set_boolean(value, settings->cuda_graphs);
    return TRUE;
  case GST_FX_COMMON_PROP_WARM_UP:
    g_value_set_boolean(value, settings->warm_up);
    return TRUE;
  default:
    return FALSE;
  }
}

GstFxCommonProp gst_fx_common_prop_writable(guint prop_id, guint first_prop_id)
{
  if (prop_id < first_prop_id)
    return GST_FX_COMMON_PROP_COUNT;
  switch (prop_id - first_prop_id) {
  case GST_FX_COMMON_PROP_DEVICE:
  case GST_FX_COMMON_PROP_PRECISION:
  case GST_FX_COMMON_PROP_SCAN_THRESHOLD:
  case GST_FX_COMMON_PROP_CUDA_GRAPHS:
  case GST_FX_COMMON_PROP_WARM_UP:
    return (GstFxCommonProp) (prop_id - first_prop_id);
  default:
    return GST_FX_COMMON_PROP_COUNT;
  }
}

gboolean gst_fx_common_settings_get_locked(GstObject *owner, const GstFxCommonSettings *settings,
                                           guint prop_id, guint first_prop_id, GValue *value)
{
  GstFxCommonProp which = gst_fx_common_prop_writable(prop_id, first_prop_id);

  if (which == GST_FX_COMMON_PROP_COUNT)
    return FALSE;
  GST_OBJECT_LOCK(owner);
  common_settings_get(settings, which, value);
  GST_OBJECT_UNLOCK(owner);
  return TRUE;
}

void gst_fx_install_common_properties(GObjectClass *klass, guint first_prop_id)
{
  g_object_class_install_property(
      klass, first_prop_id + GST_FX_COMMON_PROP_DEVICE,
      g_param_spec_enum("device", "Device",
                        "Where the cascade runs: auto (the faster backend for the negotiated "
                        "shape, the CPU when there is no GPU), cpu or cuda",
                        GST_TYPE_FX_DEVICE, DEFAULT_DEVICE,
                        G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property(
      klass, first_prop_id + GST_FX_COMMON_PROP_PRECISION,
      g_param_spec_enum("precision", "Precision",
                        "Internal arithmetic for F32 and S16 streams (F64 and S32 streams always "
                        "run in double); changing it while playing resets the filter history",
                        GST_TYPE_FX_PRECISION, DEFAULT_PRECISION,
                        G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property(
      klass, first_prop_id + GST_FX_COMMON_PROP_DISPATCHES,
      g_param_spec_uint64(
          "dispatches", "Dispatches",
          "Calls into the processing backend since start (one per buffer and cascade)", 0,
          G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property(
      klass, first_prop_id + GST_FX_COMMON_PROP_BACKEND,
      g_param_spec_string("backend", "Backend",
                          "What runs now, e.g. cpu-scalar-f64 (\"none\" before negotiation)", NULL,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property(
      klass, first_prop_id + GST_FX_COMMON_PROP_SCAN_THRESHOLD,
      g_param_spec_uint("scan-threshold", "Scan threshold",
                        "Buffers at least this long (frames per channel) use the time-parallel "
                        "scan on the GPU (0 = automatic)",
                        0, MAX_SCAN_THRESHOLD, DEFAULT_SCAN_THRESHOLD,
                        G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property(
      klass, first_prop_id + GST_FX_COMMON_PROP_CUDA_GRAPHS,
      g_param_spec_boolean("cuda-graphs", "CUDA graphs",
                           "Replay a captured CUDA graph per fixed buffer shape",
                           DEFAULT_CUDA_GRAPHS,
                           G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property(
      klass, first_prop_id + GST_FX_COMMON_PROP_LAUNCHES,
      g_param_spec_uint64("launches", "Launches",
                          "CUDA launches issued since start (a graph replay counts as one)", 0,
                          G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property(
      klass, first_prop_id + GST_FX_COMMON_PROP_WARM_UP,
      g_param_spec_boolean(
          "warm-up", "Warm-up",
          "Keep a copy of recent input (up to 8192 frames per channel) "
          "so that a parameter change that needs new filter sections (another order, a large "
          "jump) warms them up on it and "
          "switches without a click. FALSE saves that copy of every buffer, for streams whose "
          "parameters do not change while they run (file conversion, gst-fx batch); such a "
          "change then starts the new sections from silence (still crossfaded)",
          DEFAULT_WARM_UP, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
}

GstFlowReturn gst_fx_map_writable(GstElement *element, gboolean negotiated, GstBuffer *buf,
                                  GstMapInfo *map)
{
  if (!negotiated) {
    GST_ELEMENT_ERROR(element, CORE, NEGOTIATION, (NULL), ("buffer before caps"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (!gst_buffer_map(buf, map, GST_MAP_READWRITE)) {
    GST_ELEMENT_ERROR(element, RESOURCE, WRITE, (NULL), ("cannot map the buffer writable"));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

void gst_fx_refusal_clear(GstFxRefusalLimit *l)
{
  g_clear_pointer(&l->last, g_free);
}

gboolean gst_fx_refusal_due(GstFxRefusalLimit *l, const gchar *error)
{
  gint64 now = g_get_monotonic_time();

  if (l->last && (g_strcmp0(error, l->last) == 0 || now - l->last_time < G_USEC_PER_SEC))
    return FALSE;
  g_free(l->last);
  l->last = g_strdup(error);
  l->last_time = now;
  return TRUE;
}

void gst_fx_query_add_latency(GstQuery *query, GstClockTime ours)
{
  gboolean live;
  GstClockTime min, max;

  gst_query_parse_latency(query, &live, &min, &max);
  if (GST_CLOCK_TIME_IS_VALID(max))
    max += ours;
  gst_query_set_latency(query, live, min + ours, max);
}

void gst_fx_sync_controllers(GstBaseTransform *trans, GstBuffer *buffer)
{
  GstClockTime timestamp, stream_time;

  /* Nothing to sync (the unlocked check gst_object_sync_values() makes first): skip the
   * stream-time conversion too. */
  if (!GST_OBJECT_CAST(trans)->control_bindings)
    return;

  timestamp = GST_BUFFER_TIMESTAMP(buffer);
  stream_time = gst_segment_to_stream_time(&trans->segment, GST_FORMAT_TIME, timestamp);

  GST_LOG_OBJECT(trans, "sync to %" GST_TIME_FORMAT, GST_TIME_ARGS(timestamp));

  if (GST_CLOCK_TIME_IS_VALID(stream_time))
    gst_object_sync_values(GST_OBJECT(trans), stream_time);
}

void gst_fx_nonfinite_reset(GstFxNonfiniteLimit *l)
{
  l->warned = FALSE;
  l->last_ts = GST_CLOCK_TIME_NONE;
  l->buffers_since = 0;
  l->count = 0;
}

guint gst_fx_nonfinite_check(GstFxNonfiniteLimit *l, GstClockTime ts, gboolean nonfinite)
{
  gboolean warn;
  guint count;

  l->buffers_since++;
  if (!nonfinite)
    return 0;
  l->count++;
  if (!l->warned)
    warn = TRUE;
  else if (GST_CLOCK_TIME_IS_VALID(ts) && GST_CLOCK_TIME_IS_VALID(l->last_ts))
    warn = ts >= l->last_ts + GST_FX_NONFINITE_INTERVAL || ts < l->last_ts;
  else
    warn = l->buffers_since >= GST_FX_NONFINITE_BUFFERS;
  if (!warn)
    return 0;
  count = l->count;
  l->warned = TRUE;
  l->last_ts = ts;
  l->buffers_since = 0;
  l->count = 0;
  return count;
}

void gst_fx_nonfinite_warn(GstElement *element, guint count, GstStreamError code)
{
  gchar *text, *debug;

  if (count == 0)
    return;
  text = g_strdup("NaN or Inf in the input: replaced by silence");
  debug = g_strdup_printf("%u buffer(s) with NaN or Inf samples since the last warning", count);
  GST_WARNING_OBJECT(element, "%s (%s)", text, debug);
  gst_element_message_full(element, GST_MESSAGE_WARNING, GST_STREAM_ERROR, code, text, debug,
                           __FILE__, GST_FUNCTION, __LINE__);
}
