/* gst-fx — fxsos: a cascade of second-order sections given as coefficients.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:element-fxsos
 * @title: fxsos
 * @short_description: IIR filter from second-order-section coefficients
 *
 * Runs any cascade of second-order sections. `sections` holds K rows `b0 b1 b2 a0 a1 a2`
 * (scipy.signal's sos layout, e.g. the output of `butter(..., output='sos')`), rows separated by
 * `;` and numbers by spaces or commas. GStreamer's serialised array form
 * `< < b0, b1, b2, a0, a1, a2 >, ... >` works too, and so does setting the property from a
 * #GValue holding a #GstValueArray of rows (each a #GstValueArray of six numbers). Every row is
 * normalised by a0. A row that does not parse, has a0 = 0, a non-finite coefficient or a pole on
 * or outside the unit circle is refused with a warning that names the row, and the previous
 * sections stay; starting without any valid sections is an error.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 audiotestsrc wave=white-noise ! audioconvert ! fxsos sections="0.0675 0.1349
 * 0.0675 1 -1.143 0.4128" ! audioconvert ! autoaudiosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxsos.h"
#include "gstfxcommon.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC(gst_fx_sos_debug);
#define GST_CAT_DEFAULT gst_fx_sos_debug

enum {
  PROP_0,
  PROP_SECTIONS,
};

struct _GstFxSos {
  GstFxIir parent;

  gchar *text; /* the last accepted value */
  fx_sos_t *sos;
  int n_sections; /* 0 until a valid value has been accepted */
  gchar *last_refusal;
};

G_DEFINE_TYPE(GstFxSos, gst_fx_sos, GST_TYPE_FX_IIR)
GST_ELEMENT_REGISTER_DEFINE(fxsos, "fxsos", GST_RANK_NONE, GST_TYPE_FX_SOS);

static void gst_fx_sos_set_property(GObject *object, guint prop_id, const GValue *value,
                                    GParamSpec *pspec);
static void gst_fx_sos_get_property(GObject *object, guint prop_id, GValue *value,
                                    GParamSpec *pspec);
static void gst_fx_sos_finalize(GObject *object);
static gboolean gst_fx_sos_start(GstBaseTransform *trans);
static gboolean gst_fx_sos_design_sections(GstFxIir *iir, double rate, fx_sos_t *sos, int capacity,
                                           int *n_sections, gchar **error);

/* GStreamer's own GstValueArray -> string transform prints doubles with "%f" (six decimals), which
 * would silently turn a coefficient such as 1.2e-9 into 0. Setting `sections` from a GValue holding
 * a GstValueArray goes through that transform, so replace it with one that writes the same
 * "< a, b, ... >" form but round-trip precise numbers (everything else as before). */
static void append_value_contents(GString *s, const GValue *v)
{
  if (GST_VALUE_HOLDS_ARRAY(v)) {
    guint n = gst_value_array_get_size(v);
    g_string_append(s, "< ");
    for (guint i = 0; i < n; i++) {
      if (i > 0)
        g_string_append(s, ", ");
      append_value_contents(s, gst_value_array_get_value(v, i));
    }
    g_string_append(s, " >");
  } else if (G_VALUE_HOLDS_DOUBLE(v) || G_VALUE_HOLDS_FLOAT(v)) {
    gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
    double d = G_VALUE_HOLDS_DOUBLE(v) ? g_value_get_double(v) : (double) g_value_get_float(v);
    g_string_append(s, g_ascii_dtostr(buf, sizeof buf, d));
  } else {
    gchar *c = g_strdup_value_contents(v);
    g_string_append(s, c);
    g_free(c);
  }
}

static void transform_array_string_precise(const GValue *src, GValue *dest)
{
  GString *s = g_string_new(NULL);
  append_value_contents(s, src);
  g_value_take_string(dest, g_string_free(s, FALSE));
}

static void gst_fx_sos_class_init(GstFxSosClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  GstFxIirClass *iir_class = GST_FX_IIR_CLASS(klass);

  GST_DEBUG_CATEGORY_INIT(gst_fx_sos_debug, "fxsos", 0, "Second-order-sections filter");

  gobject_class->set_property = gst_fx_sos_set_property;
  gobject_class->get_property = gst_fx_sos_get_property;
  gobject_class->finalize = gst_fx_sos_finalize;
  trans_class->start = GST_DEBUG_FUNCPTR(gst_fx_sos_start);
  iir_class->design_sections = gst_fx_sos_design_sections;
  iir_class->max_sections = GST_FX_SOS_MAX_SECTIONS;

  g_object_class_install_property(
      gobject_class, PROP_SECTIONS,
      g_param_spec_string("sections", "Sections",
                          "Second-order sections as rows \"b0 b1 b2 a0 a1 a2\" separated by ';' "
                          "(scipy's sos layout, normalised by a0; at most 512 rows), or a "
                          "GstValueArray of rows; invalid or unstable rows are refused with a "
                          "warning",
                          NULL, GST_FX_DSP_PARAM_FLAGS));

  gst_element_class_set_static_metadata(
      element_class, "Second-order-sections filter", "Filter/Effect/Audio",
      "IIR filter from explicit second-order-section coefficients (rows b0 b1 b2 a0 a1 a2, as "
      "scipy's sos)",
      "gst-fx developers");

  g_value_register_transform_func(GST_TYPE_ARRAY, G_TYPE_STRING, transform_array_string_precise);
}

static void gst_fx_sos_init(GstFxSos *self)
{
  self->sos = g_new0(fx_sos_t, GST_FX_SOS_MAX_SECTIONS);
}

static void gst_fx_sos_finalize(GObject *object)
{
  GstFxSos *self = GST_FX_SOS(object);

  g_free(self->text);
  g_free(self->sos);
  g_free(self->last_refusal);
  G_OBJECT_CLASS(gst_fx_sos_parent_class)->finalize(object);
}

static gchar *describe_refusal(fx_status_t st, int bad_row, int n_rows)
{
  const char *why;

  switch (st) {
  case FX_ERR_UNSTABLE:
    why = "is unstable (a pole on or outside the unit circle)";
    break;
  case FX_ERR_SYNTAX:
    why = "is malformed (expected six numbers b0 b1 b2 a0 a1 a2)";
    break;
  case FX_ERR_A0:
    why = "has a0 = 0";
    break;
  case FX_ERR_NONFINITE:
    why = "has a NaN or infinite coefficient";
    break;
  default:
    why = fx_status_string(st);
    break;
  }
  if (st == FX_ERR_CAPACITY)
    return g_strdup_printf("sections has too many rows: at most %d are allowed",
                           GST_FX_SOS_MAX_SECTIONS);
  if (bad_row >= 0)
    return g_strdup_printf("sections row %d %s", bad_row + 1, why);
  if (n_rows == 0 && st == FX_OK)
    return g_strdup("sections is empty: at least one row b0 b1 b2 a0 a1 a2 is needed");
  return g_strdup_printf("sections %s", why);
}

static void gst_fx_sos_set_property(GObject *object, guint prop_id, const GValue *value,
                                    GParamSpec *pspec)
{
  GstFxSos *self = GST_FX_SOS(object);

  switch (prop_id) {
  case PROP_SECTIONS: {
    const gchar *text = g_value_get_string(value);
    fx_sos_t *parsed = g_new0(fx_sos_t, GST_FX_SOS_MAX_SECTIONS);
    int n = 0, bad_row = -1;
    fx_status_t st = FX_ERR_SYNTAX;
    gchar *refusal = NULL;

    if (text)
      st = fx_sos_parse(text, parsed, GST_FX_SOS_MAX_SECTIONS, &n, &bad_row);
    if (st != FX_OK || n <= 0)
      refusal = describe_refusal(st, bad_row, n);

    GST_OBJECT_LOCK(self);
    if (!refusal) {
      memcpy(self->sos, parsed, sizeof(fx_sos_t) * (size_t) n);
      self->n_sections = n;
      g_free(self->text);
      self->text = g_strdup(text);
      g_clear_pointer(&self->last_refusal, g_free);
    } else {
      g_free(self->last_refusal);
      self->last_refusal = g_strdup(refusal);
    }
    GST_OBJECT_UNLOCK(self);
    g_free(parsed);

    if (refusal) {
      GST_ELEMENT_WARNING(self, LIBRARY, SETTINGS, ("%s; the previous sections stay", refusal),
                          ("sections=\"%s\"", text));
      g_free(refusal);
    } else {
      GST_DEBUG_OBJECT(self, "%d section(s) accepted", n);
      gst_fx_iir_parameters_changed(GST_FX_IIR(self));
    }
    break;
  }
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    break;
  }
}

static void gst_fx_sos_get_property(GObject *object, guint prop_id, GValue *value,
                                    GParamSpec *pspec)
{
  GstFxSos *self = GST_FX_SOS(object);

  switch (prop_id) {
  case PROP_SECTIONS:
    GST_OBJECT_LOCK(self);
    g_value_set_string(value, self->text);
    GST_OBJECT_UNLOCK(self);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    break;
  }
}

/* Why nothing can run before a valid value was set. Object lock held. */
static gchar *describe_no_sections_locked(GstFxSos *self)
{
  const gchar *why = self->last_refusal;

  return g_strdup_printf("sections: no valid sections were set%s%s%s",
                         why ? " (last refusal: " : "", why ? why : "", why ? ")" : "");
}

static gboolean gst_fx_sos_start(GstBaseTransform *trans)
{
  GstFxSos *self = GST_FX_SOS(trans);
  gchar *error = NULL;

  GST_OBJECT_LOCK(self);
  if (self->n_sections == 0)
    error = describe_no_sections_locked(self);
  GST_OBJECT_UNLOCK(self);

  if (error) {
    GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("%s", error),
                      ("set sections to rows \"b0 b1 b2 a0 a1 a2; ...\""));
    g_free(error);
    return FALSE;
  }
  return GST_BASE_TRANSFORM_CLASS(gst_fx_sos_parent_class)->start(trans);
}

/* Called with the object lock held. */
static gboolean gst_fx_sos_design_sections(GstFxIir *iir, double rate, fx_sos_t *sos, int capacity,
                                           int *n_sections, gchar **error)
{
  GstFxSos *self = GST_FX_SOS(iir);

  (void) rate;
  if (self->n_sections == 0) {
    *error = describe_no_sections_locked(self);
    return FALSE;
  }
  if (self->n_sections > capacity) {
    *error =
        g_strdup_printf("sections has %d rows: at most %d are allowed", self->n_sections, capacity);
    return FALSE;
  }
  memcpy(sos, self->sos, sizeof(fx_sos_t) * (size_t) self->n_sections);
  *n_sections = self->n_sections;
  return TRUE;
}
