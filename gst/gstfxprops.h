/* gst-fx — table-driven set_property/get_property for plain parameter fields.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_PROPS_H
#define GST_FX_PROPS_H

#include <gst/gst.h>

G_BEGIN_DECLS

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

G_END_DECLS

#endif
