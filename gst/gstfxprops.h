/* gst-fx — table-driven set_property/get_property for plain parameter fields.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_PROPS_H
#define GST_FX_PROPS_H

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

/* The caps of every gst-fx audio filter: interleaved native-endian F32 or F64, any rate and
 * channel count. */
#define GST_FX_AUDIO_CAPS                                                                          \
  "audio/x-raw, format = (string) { " GST_AUDIO_NE(F32) ", " GST_AUDIO_NE(                         \
      F64) " }, layout = (string) interleaved, rate = (int) [ 1, MAX ], channels = (int) [ 1, "    \
           "MAX ]"

/* The flags of a DSP parameter: controllable and changeable while playing. */
#define GST_FX_DSP_PARAM_FLAGS                                                                     \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING)

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

G_END_DECLS

#endif
