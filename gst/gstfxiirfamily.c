/* gst-fx — GstFxIirFamily: the base class of the classic filter families (fxbutterworth,
 * fxchebyshev1, fxchebyshev2, fxelliptic): their shared properties and design from fx_design_iir().
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxiirfamily.h"
#include "gstfxcommon.h"

GST_DEBUG_CATEGORY_STATIC(gst_fx_iir_family_debug);
#define GST_CAT_DEFAULT gst_fx_iir_family_debug

#define DEFAULT_MODE GST_FX_FILTER_MODE_LOW_PASS
#define DEFAULT_CUTOFF 1000.0
#define DEFAULT_LOWER 500.0
#define DEFAULT_UPPER 2000.0
#define DEFAULT_ORDER 4
#define DEFAULT_RIPPLE 0.5
#define DEFAULT_ATTENUATION 40.0

#define MIN_RIPPLE 0.001
#define MAX_RIPPLE 40.0
#define MIN_ATTENUATION 0.1
#define MAX_ATTENUATION 200.0

enum {
  PROP_0,
  PROP_MODE,
  PROP_CUTOFF,
  PROP_LOWER,
  PROP_UPPER,
  PROP_ORDER,
  PROP_RIPPLE,
  PROP_ATTENUATION,
};

typedef struct {
  GstFxFilterMode mode;
  double cutoff, lower, upper, ripple, attenuation;
  int order;
} GstFxIirFamilyPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE(GstFxIirFamily, gst_fx_iir_family, GST_TYPE_FX_IIR)

#define PRIV(self)                                                                                 \
  ((GstFxIirFamilyPrivate *) gst_fx_iir_family_get_instance_private(GST_FX_IIR_FAMILY(self)))

static gboolean gst_fx_iir_family_design_sections(GstFxIir *iir, double rate, fx_sos_t *sos,
                                                  int capacity, int *n_sections, gchar **error);

static const GstFxPropField iir_family_fields[] = {
    {PROP_MODE, G_TYPE_ENUM, G_STRUCT_OFFSET(GstFxIirFamilyPrivate, mode)},
    {PROP_CUTOFF, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxIirFamilyPrivate, cutoff)},
    {PROP_LOWER, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxIirFamilyPrivate, lower)},
    {PROP_UPPER, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxIirFamilyPrivate, upper)},
    {PROP_ORDER, G_TYPE_INT, G_STRUCT_OFFSET(GstFxIirFamilyPrivate, order)},
    {PROP_RIPPLE, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxIirFamilyPrivate, ripple)},
    {PROP_ATTENUATION, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxIirFamilyPrivate, attenuation)},
};

static void gst_fx_iir_family_set_property(GObject *object, guint prop_id, const GValue *value,
                                           GParamSpec *pspec)
{
  if (gst_fx_props_set(object, PRIV(object), iir_family_fields, G_N_ELEMENTS(iir_family_fields),
                       prop_id, value, pspec))
    gst_fx_iir_parameters_changed(GST_FX_IIR(object));
}

static void gst_fx_iir_family_get_property(GObject *object, guint prop_id, GValue *value,
                                           GParamSpec *pspec)
{
  gst_fx_props_get(object, PRIV(object), iir_family_fields, G_N_ELEMENTS(iir_family_fields),
                   prop_id, value, pspec);
}

static void gst_fx_iir_family_class_init(GstFxIirFamilyClass *klass)
{
  GstFxIirClass *iir_class = GST_FX_IIR_CLASS(klass);

  GST_DEBUG_CATEGORY_INIT(gst_fx_iir_family_debug, "fxiirfamily", 0,
                          "gst-fx IIR filter family base class");

  iir_class->design_sections = gst_fx_iir_family_design_sections;
  klass->family = FX_FAMILY_BUTTERWORTH;
  klass->max_order = FX_MAX_ORDER;

  gst_type_mark_as_plugin_api(GST_TYPE_FX_IIR_FAMILY, 0);
  gst_type_mark_as_plugin_api(GST_TYPE_FX_FILTER_MODE, 0);
}

static void gst_fx_iir_family_init(GstFxIirFamily *self)
{
  GstFxIirFamilyPrivate *priv = PRIV(self);

  priv->mode = DEFAULT_MODE;
  priv->cutoff = DEFAULT_CUTOFF;
  priv->lower = DEFAULT_LOWER;
  priv->upper = DEFAULT_UPPER;
  priv->order = DEFAULT_ORDER;
  priv->ripple = DEFAULT_RIPPLE;
  priv->attenuation = DEFAULT_ATTENUATION;
}

void gst_fx_iir_family_set_defaults(GstFxIirFamily *self, double ripple, double attenuation)
{
  GstFxIirFamilyPrivate *priv = PRIV(self);

  priv->ripple = ripple;
  priv->attenuation = attenuation;
}

void gst_fx_iir_family_class_setup(GstFxIirFamilyClass *klass, fx_family_t family, int max_order,
                                   double default_ripple, double default_attenuation,
                                   const gchar *longname, const gchar *description)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  gchar *blurb;

  klass->family = family;
  klass->max_order = max_order;
  /* GObject does not inherit set_property/get_property: the subclass owns these properties. */
  gobject_class->set_property = gst_fx_iir_family_set_property;
  gobject_class->get_property = gst_fx_iir_family_get_property;

  g_object_class_install_property(
      gobject_class, PROP_MODE,
      g_param_spec_enum("mode", "Mode",
                        "Filter mode: low-pass or high-pass at cutoff, band-pass or band-reject "
                        "between lower-frequency and upper-frequency",
                        GST_TYPE_FX_FILTER_MODE, DEFAULT_MODE, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_CUTOFF,
      g_param_spec_double("cutoff", "Cutoff",
                          family == FX_FAMILY_CHEBYSHEV2
                              ? "Stopband edge in Hz for low-pass and high-pass (as scipy's Wn); "
                                "must be inside (0, rate/2)"
                              : "Cutoff frequency in Hz for low-pass and high-pass (-3 dB for "
                                "Butterworth, end of the ripple band otherwise); must be inside "
                                "(0, rate/2)",
                          G_MINDOUBLE, GST_FX_MAX_FREQUENCY, DEFAULT_CUTOFF,
                          GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_LOWER,
      g_param_spec_double("lower-frequency", "Lower frequency",
                          "Lower band edge in Hz for band-pass and band-reject; must be inside "
                          "(0, upper-frequency)",
                          G_MINDOUBLE, GST_FX_MAX_FREQUENCY, DEFAULT_LOWER,
                          GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_UPPER,
      g_param_spec_double("upper-frequency", "Upper frequency",
                          "Upper band edge in Hz for band-pass and band-reject; must be inside "
                          "(lower-frequency, rate/2)",
                          G_MINDOUBLE, GST_FX_MAX_FREQUENCY, DEFAULT_UPPER,
                          GST_FX_DSP_PARAM_FLAGS));
  blurb = g_strdup_printf("Filter order 1..%d (band modes have twice as many poles)", max_order);
  g_object_class_install_property(gobject_class, PROP_ORDER,
                                  g_param_spec_int("order", "Order", g_intern_string(blurb), 1,
                                                   max_order, MIN(DEFAULT_ORDER, max_order),
                                                   GST_FX_DSP_PARAM_FLAGS));
  g_free(blurb);
  if (family == FX_FAMILY_CHEBYSHEV1 || family == FX_FAMILY_ELLIPTIC) {
    g_object_class_install_property(
        gobject_class, PROP_RIPPLE,
        g_param_spec_double("ripple", "Ripple", "Passband ripple in dB (0.001..40)", MIN_RIPPLE,
                            MAX_RIPPLE, default_ripple, GST_FX_DSP_PARAM_FLAGS));
  }
  if (family == FX_FAMILY_CHEBYSHEV2 || family == FX_FAMILY_ELLIPTIC) {
    g_object_class_install_property(
        gobject_class, PROP_ATTENUATION,
        g_param_spec_double(
            "attenuation", "Attenuation",
            family == FX_FAMILY_ELLIPTIC ? "Stopband attenuation in dB (0.1..200, more than ripple)"
                                         : "Stopband attenuation in dB (0.1..200)",
            MIN_ATTENUATION, MAX_ATTENUATION, default_attenuation, GST_FX_DSP_PARAM_FLAGS));
  }
  gst_element_class_set_static_metadata(GST_ELEMENT_CLASS(klass), longname, "Filter/Effect/Audio",
                                        description, "gst-fx developers");
}

/* Called with the object lock held. */
static gboolean gst_fx_iir_family_design_sections(GstFxIir *iir, double rate, fx_sos_t *sos,
                                                  int capacity, int *n_sections, gchar **error)
{
  GstFxIirFamily *self = GST_FX_IIR_FAMILY(iir);
  GstFxIirFamilyClass *klass = GST_FX_IIR_FAMILY_GET_CLASS(self);
  GstFxIirFamilyPrivate *priv = PRIV(self);
  fx_iir_spec_t spec = {
      .family = klass->family,
      .mode = (fx_mode_t) priv->mode,
      .order = priv->order,
      .rate = rate,
      .cutoff = priv->cutoff,
      .lower = priv->lower,
      .upper = priv->upper,
      .ripple = priv->ripple,
      .attenuation = priv->attenuation,
  };
  fx_status_t st;

  /* `order` is range-checked by its GParamSpec (1..max_order, as fx_iir_spec_check()). */
  st = fx_iir_spec_check(&spec);
  if (st == FX_OK)
    st = fx_design_iir(&spec, sos, capacity, n_sections);

  switch (st) {
  case FX_OK:
    return TRUE;
  case FX_ERR_CUTOFF:
    *error = gst_fx_iir_describe_frequency("cutoff", priv->cutoff, rate);
    break;
  case FX_ERR_LOWER:
    *error = gst_fx_iir_describe_frequency("lower-frequency", priv->lower, rate);
    break;
  case FX_ERR_UPPER:
    *error = gst_fx_iir_describe_frequency("upper-frequency", priv->upper, rate);
    break;
  case FX_ERR_BAND:
    *error = g_strdup_printf("lower-frequency=%g Hz must be below upper-frequency=%g Hz "
                             "(band edges must satisfy 0 < lower-frequency < upper-frequency < "
                             "%g Hz for rate %g Hz)",
                             priv->lower, priv->upper, rate / 2.0, rate);
    break;
  case FX_ERR_ORDER:
    *error =
        g_strdup_printf("order=%d is out of range: must be 1..%d", priv->order, klass->max_order);
    break;
  case FX_ERR_RIPPLE:
    *error = g_strdup_printf("ripple=%g dB is out of range: must be > 0 dB", priv->ripple);
    break;
  case FX_ERR_ATTENUATION:
    if (klass->family == FX_FAMILY_ELLIPTIC)
      *error = g_strdup_printf("attenuation=%g dB is out of range: must be > 0 dB and greater "
                               "than ripple (%g dB)",
                               priv->attenuation, priv->ripple);
    else
      *error =
          g_strdup_printf("attenuation=%g dB is out of range: must be > 0 dB", priv->attenuation);
    break;
  default:
    *error = gst_fx_iir_describe_design_error(st, rate, "filter");
    break;
  }
  return FALSE;
}
