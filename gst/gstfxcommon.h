/* gst-fx — the glue every element shares: caps, enums, the common properties, table-driven
 * set_property/get_property, controller sync and the non-finite input warning.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_COMMON_H
#define GST_FX_COMMON_H

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/audio/gstaudiofilter.h>
#include <gst/base/gstbasetransform.h>

#include "design.h"

G_BEGIN_DECLS

/* ---- Caps ---- */

/* The caps of every gst-fx audio filter: interleaved native-endian F32, F64, S32 or S16, any rate
 * and channel count. F32 comes first, so that a float source offering several formats
 * negotiates F32; an integer stream stays integer (its samples are processed as F32 for S16 and
 * F64 for S32 and requantised on output: gstfxformat.h). */
#define GST_FX_AUDIO_CAPS                                                                          \
  "audio/x-raw, format = (string) { " GST_AUDIO_NE(F32) ", " GST_AUDIO_NE(F64) ", " GST_AUDIO_NE(  \
      S32) ", " GST_AUDIO_NE(S16) " }, layout = (string) interleaved, rate = (int) [ 1, MAX ], "   \
                                  "channels = (int) [ 1, MAX ]"

/* Adds sink and src pad templates with GST_FX_AUDIO_CAPS to @klass (from its class_init). */
void gst_fx_add_audio_pad_templates(GstAudioFilterClass *klass);

/* ---- Properties ---- */

/* The flags of a DSP parameter: controllable and changeable while playing. */
#define GST_FX_DSP_PARAM_FLAGS                                                                     \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING)

/* The top of every frequency property, in Hz, as the stock audiocheblimit, audiowsinclimit and
 * equalizer bands: a bounded range that sliders and GstController's normalised bindings (0..1 onto
 * the whole range) can use. The rate's Nyquist frequency is checked when the filter is designed. */
#define GST_FX_MAX_FREQUENCY 100000.0

/* One property stored in a struct field: its id, its value type (G_TYPE_DOUBLE, G_TYPE_INT,
 * G_TYPE_BOOLEAN or G_TYPE_ENUM; an enum field is stored as an int) and the field's offset from
 * the base pointer given to the helpers. */
typedef struct {
  guint prop_id;
  GType kind;
  gsize offset;
} GstFxPropField;

/* Stores @value into the field of @prop_id under @object's lock and returns TRUE; for an id not
 * in the table warns (G_OBJECT_WARN_INVALID_PROPERTY_ID) and returns FALSE. */
gboolean gst_fx_props_set(GObject *object, gpointer base, const GstFxPropField *fields,
                          guint n_fields, guint prop_id, const GValue *value, GParamSpec *pspec);

/* Reads the field of @prop_id into @value under @object's lock; warns for an unknown id. */
void gst_fx_props_get(GObject *object, gconstpointer base, const GstFxPropField *fields,
                      guint n_fields, guint prop_id, GValue *value, GParamSpec *pspec);

/* Registers the enum type @name with @values once (thread-safe) into *@type and returns it: the
 * body of an enum's get_type function. */
GType gst_fx_enum_register_once(GType *type, const gchar *name, const GEnumValue *values);

/* ---- Enums shared by several elements ---- */

/**
 * GstFxFilterMode:
 * @GST_FX_FILTER_MODE_LOW_PASS: low-pass at `cutoff`
 * @GST_FX_FILTER_MODE_HIGH_PASS: high-pass at `cutoff`
 * @GST_FX_FILTER_MODE_BAND_PASS: band-pass from `lower-frequency` to `upper-frequency`
 * @GST_FX_FILTER_MODE_BAND_REJECT: band-reject from `lower-frequency` to `upper-frequency`
 */
typedef enum {
  GST_FX_FILTER_MODE_LOW_PASS = FX_MODE_LOW_PASS,
  GST_FX_FILTER_MODE_HIGH_PASS = FX_MODE_HIGH_PASS,
  GST_FX_FILTER_MODE_BAND_PASS = FX_MODE_BAND_PASS,
  GST_FX_FILTER_MODE_BAND_REJECT = FX_MODE_BAND_REJECT,
} GstFxFilterMode;
#define GST_TYPE_FX_FILTER_MODE (gst_fx_filter_mode_get_type())
GType gst_fx_filter_mode_get_type(void);

/* ---- The common properties of every IIR element and of fxchain ---- */

/**
 * GstFxDevice:
 * @GST_FX_DEVICE_AUTO: the faster backend for the negotiated shape (the CPU when there is no GPU)
 * @GST_FX_DEVICE_CPU: always the CPU
 * @GST_FX_DEVICE_CUDA: an NVIDIA GPU through CUDA (falls back to the CPU with a warning)
 */
typedef enum {
  GST_FX_DEVICE_AUTO = 0,
  GST_FX_DEVICE_CPU,
  GST_FX_DEVICE_CUDA,
} GstFxDevice;

/**
 * GstFxPrecision:
 * @GST_FX_PRECISION_AUTO: double whenever single precision could be unstable or inaccurate
 * @GST_FX_PRECISION_SINGLE: single-precision arithmetic for F32 streams
 * @GST_FX_PRECISION_DOUBLE: double-precision arithmetic
 */
typedef enum {
  GST_FX_PRECISION_AUTO = 0,
  GST_FX_PRECISION_SINGLE,
  GST_FX_PRECISION_DOUBLE,
} GstFxPrecision;

#define GST_TYPE_FX_DEVICE (gst_fx_device_get_type())
GType gst_fx_device_get_type(void);
#define GST_TYPE_FX_PRECISION (gst_fx_precision_get_type())
GType gst_fx_precision_get_type(void);

/* The common properties, in this order from the first property id given to
 * gst_fx_install_common_properties(). */
typedef enum {
  GST_FX_COMMON_PROP_DEVICE = 0,
  GST_FX_COMMON_PROP_PRECISION,
  GST_FX_COMMON_PROP_DISPATCHES,
  GST_FX_COMMON_PROP_BACKEND,
  GST_FX_COMMON_PROP_SCAN_THRESHOLD,
  GST_FX_COMMON_PROP_CUDA_GRAPHS,
  GST_FX_COMMON_PROP_LAUNCHES,
  GST_FX_COMMON_PROP_WARM_UP,
  GST_FX_COMMON_PROP_COUNT,
} GstFxCommonProp;

/* The writable common properties' values (guarded by the owner's object lock). */
typedef struct {
  GstFxDevice device;
  GstFxPrecision precision;
  guint scan_threshold;
  gboolean cuda_graphs;
  gboolean warm_up;
} GstFxCommonSettings;

/* Installs `device`, `precision`, `dispatches`, `backend`, `scan-threshold`, `cuda-graphs`,
 * `launches` and `warm-up` with ids @first_prop_id + GstFxCommonProp. */
void gst_fx_install_common_properties(GObjectClass *klass, guint first_prop_id);

/* Sets the defaults. */
void gst_fx_common_settings_init(GstFxCommonSettings *settings);
/* Stores a writable common property (`which`: device, precision, scan-threshold, cuda-graphs or
 * warm-up); returns TRUE when the value changed. FALSE for the read-only ones. Object lock
 * held. */
gboolean gst_fx_common_settings_set(GstFxCommonSettings *settings, GstFxCommonProp which,
                                    const GValue *value);

/* For an owner whose common properties start at @first_prop_id: the writable common property that
 * @prop_id names, or GST_FX_COMMON_PROP_COUNT when it names none. */
GstFxCommonProp gst_fx_common_prop_writable(guint prop_id, guint first_prop_id);
/* Reads the writable common property that @prop_id names (as above) into @value under @owner's
 * object lock and returns TRUE; FALSE, reading nothing, when it names none. */
gboolean gst_fx_common_settings_get_locked(GstObject *owner, const GstFxCommonSettings *settings,
                                           guint prop_id, guint first_prop_id, GValue *value);

/* ---- Messages and queries ---- */

/* The start of a transform_ip: maps @buf read-write into @map and returns GST_FLOW_OK when
 * @negotiated; otherwise posts the element error "buffer before caps" and returns
 * GST_FLOW_NOT_NEGOTIATED. A buffer that cannot be mapped posts an error: GST_FLOW_ERROR. */
GstFlowReturn gst_fx_map_writable(GstElement *element, gboolean negotiated, GstBuffer *buf,
                                  GstMapInfo *map);

/* Rate limit of an element's "parameter change refused" warnings, so that automation through an
 * invalid range does not flood the bus: after an accepted change the first refusal is posted;
 * then at most one per second, never the same text twice in a row. Guarded by the owner's object
 * lock; zero-initialised. */
typedef struct {
  gchar *last; /* the last refusal posted; NULL after an accepted change */
  gint64 last_time;
} GstFxRefusalLimit;

/* A change was accepted (or the stream restarts): the next refusal is posted. */
void gst_fx_refusal_clear(GstFxRefusalLimit *l);
/* Whether to post the refusal @error now (then it is recorded as the last one posted). */
gboolean gst_fx_refusal_due(GstFxRefusalLimit *l, const gchar *error);

/* Answers a LATENCY query that the parent class answered: adds @ours to its minimum and (when
 * bounded) maximum latency. */
void gst_fx_query_add_latency(GstQuery *query, GstClockTime ours);

/* ---- Streaming ---- */

/* The body of a before_transform: as gst-plugins-base's volume, syncs @trans's controlled
 * properties to @buffer's stream time (so automation also works in passthrough). */
void gst_fx_sync_controllers(GstBaseTransform *trans, GstBuffer *buffer);

/* Rate limit of the "NaN or Inf in the input" warning every element posts: the first buffer with
 * non-finite samples warns, later ones at most once per GST_FX_NONFINITE_INTERVAL of stream time
 * (or, for buffers without timestamps, once per GST_FX_NONFINITE_BUFFERS buffers). Reset it on a
 * new stream or a flush. Streaming thread. */
#define GST_FX_NONFINITE_INTERVAL GST_SECOND
#define GST_FX_NONFINITE_BUFFERS 1000
typedef struct {
  gboolean warned;
  GstClockTime last_ts;
  guint buffers_since;
  guint count; /* buffers with non-finite samples since the last warning */
} GstFxNonfiniteLimit;

void gst_fx_nonfinite_reset(GstFxNonfiniteLimit *l);
/* Counts a processed buffer at @ts (NONE when unknown); @nonfinite: it held NaN or Inf. Returns
 * the number of such buffers to report when a warning is due now, else 0. */
guint gst_fx_nonfinite_check(GstFxNonfiniteLimit *l, GstClockTime ts, gboolean nonfinite);
/* Posts the warning "NaN or Inf in the input: replaced by silence" (a stream error @code, the
 * details count the buffers) when @count (from gst_fx_nonfinite_check()) is not 0. Call it
 * without the element's stream locks held: a bus handler may read the element's properties. */
void gst_fx_nonfinite_warn(GstElement *element, guint count, GstStreamError code);

G_END_DECLS

#endif
