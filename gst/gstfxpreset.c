/* gst-fx — GstPreset for the fx elements.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GStreamer's default implementation does the work: presets are GKeyFile files named after the
 * element's GType (GstFxEq.prs, ...), read from GST_DATADIR/gstreamer-1.0/presets (factory
 * presets, installed from presets/), every directory of GST_PRESET_PATH, and the user's
 * $XDG_DATA_HOME/gstreamer-1.0/presets, where saved presets go. Two adjustments:
 *
 * - The stored properties are the element's settings: GstObject's `name` and `parent`, GstBin's
 *   message handling and GstBaseTransform's `qos` are left out (the default stores them, and
 *   loading such a preset would rename the element). For a GstChildProxy (fxeq's bands) the
 *   children's settings are stored as `child::property`, as in equalizer-nbands.
 * - The default load lists the children before it sets anything, so a preset that changes their
 *   number (fxeq's `num-bands`) would miss the children it creates: such a load runs a second
 *   pass, which sets every key again on the final children (setting a value twice is harmless).
 * - The default save writes values with g_key_file_set_string(), which escapes backslashes, but
 *   the default load reads them with g_key_file_get_value(), which does not unescape: a string
 *   whose serialization holds a backslash (any space: fxchain's `chain`, fxsos' `sections`)
 *   would come back with its escapes in it. String properties are therefore set again from
 *   g_key_file_get_string() of the keyfile the default implementation keeps on the type (its
 *   "GstPreset::presets" qdata). Where that keyfile is not found, the default's value stays. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxpreset.h"

#include <gst/base/gstbasetransform.h>
#include <string.h>

/* The default implementation's functions, from the interface's default vtable. */
static gchar **(*default_get_property_names)(GstPreset *preset);
static gboolean (*default_load_preset)(GstPreset *preset, const gchar *name);

/* Whether @name (a property, or `child::property` of a child proxy) is an fx setting. */
static gboolean is_setting(GstPreset *preset, const gchar *name, gboolean with_children)
{
  GParamSpec *pspec = NULL;
  GObject *target = NULL;
  GType owner;

  if (strstr(name, "::") != NULL) {
    if (!with_children || !GST_IS_CHILD_PROXY(preset) ||
        !gst_child_proxy_lookup(GST_CHILD_PROXY(preset), name, &target, &pspec))
      return FALSE;
    g_object_unref(target);
  } else {
    pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(preset), name);
    if (pspec == NULL)
      return FALSE;
  }
  owner = pspec->owner_type;
  return owner != GST_TYPE_OBJECT && owner != GST_TYPE_BIN && owner != GST_TYPE_BASE_TRANSFORM;
}

static gchar **filter_property_names(GstPreset *preset, gboolean with_children)
{
  gchar **names = default_get_property_names(preset);
  guint i, j = 0;

  if (names == NULL)
    return NULL;
  for (i = 0; names[i] != NULL; i++) {
    if (is_setting(preset, names[i], with_children))
      names[j++] = names[i];
    else
      g_free(names[i]);
  }
  names[j] = NULL;
  return names;
}

static gchar **gst_fx_preset_get_property_names(GstPreset *preset)
{
  return filter_property_names(preset, TRUE);
}

static gchar **gst_fx_preset_bin_get_property_names(GstPreset *preset)
{
  return filter_property_names(preset, FALSE);
}

static guint children_count(GstPreset *preset)
{
  return GST_IS_CHILD_PROXY(preset) ? gst_child_proxy_get_children_count(GST_CHILD_PROXY(preset))
                                    : 0;
}

/* Sets the string properties of preset @name again from their unescaped keyfile values. */
static void reload_strings(GstPreset *preset, const gchar *name)
{
  GQuark quark = g_quark_try_string("GstPreset::presets");
  GKeyFile *presets = quark ? g_type_get_qdata(G_OBJECT_TYPE(preset), quark) : NULL;
  gchar **props;

  if (presets == NULL || !g_key_file_has_group(presets, name))
    return;
  props = gst_preset_get_property_names(preset);
  for (guint i = 0; props != NULL && props[i] != NULL; i++) {
    GValue value = G_VALUE_INIT;
    GParamSpec *pspec = NULL;
    GObject *target = NULL;
    gchar *text;

    if (strstr(props[i], "::") != NULL) {
      if (!gst_child_proxy_lookup(GST_CHILD_PROXY(preset), props[i], &target, &pspec))
        continue;
    } else {
      target = g_object_ref(G_OBJECT(preset));
      pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(preset), props[i]);
    }
    text = pspec != NULL && pspec->value_type == G_TYPE_STRING
               ? g_key_file_get_string(presets, name, props[i], NULL)
               : NULL;
    if (text != NULL) {
      g_value_init(&value, G_TYPE_STRING);
      if (gst_value_deserialize(&value, text))
        g_object_set_property(target, pspec->name, &value);
      g_value_unset(&value);
      g_free(text);
    }
    g_object_unref(target);
  }
  g_strfreev(props);
}

static gboolean gst_fx_preset_load_preset(GstPreset *preset, const gchar *name)
{
  guint before = children_count(preset);

  if (!default_load_preset(preset, name))
    return FALSE;
  if (children_count(preset) != before && !default_load_preset(preset, name))
    return FALSE;
  reload_strings(preset, name);
  return TRUE;
}

static gboolean gst_fx_preset_bin_load_preset(GstPreset *preset, const gchar *name)
{
  if (!default_load_preset(preset, name))
    return FALSE;
  reload_strings(preset, name);
  return TRUE;
}

void gst_fx_preset_interface_init(gpointer g_iface, gpointer iface_data)
{
  GstPresetInterface *iface = g_iface;

  (void) iface_data;
  /* The vtable arrives filled with the defaults (GstPreset's default_init). */
  if (default_get_property_names == NULL) {
    default_get_property_names = iface->get_property_names;
    default_load_preset = iface->load_preset;
  }
  iface->get_property_names = gst_fx_preset_get_property_names;
  iface->load_preset = gst_fx_preset_load_preset;
}

void gst_fx_preset_bin_interface_init(gpointer g_iface, gpointer iface_data)
{
  GstPresetInterface *iface = g_iface;

  (void) iface_data;
  if (default_get_property_names == NULL) {
    default_get_property_names = iface->get_property_names;
    default_load_preset = iface->load_preset;
  }
  iface->get_property_names = gst_fx_preset_bin_get_property_names;
  iface->load_preset = gst_fx_preset_bin_load_preset;
}
