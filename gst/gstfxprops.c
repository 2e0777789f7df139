/* gst-fx — table-driven set_property/get_property for plain parameter fields.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxprops.h"

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
