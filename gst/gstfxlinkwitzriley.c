/* gst-fx — fxlinkwitzriley: Linkwitz–Riley crossover filter.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:element-fxlinkwitzriley
 * @title: fxlinkwitzriley
 * @short_description: Linkwitz–Riley crossover low-pass or high-pass
 *
 * One band of a Linkwitz–Riley crossover: the square of a Butterworth filter of half the order,
 * so both bands are -6 dB at `cutoff`, and the low-pass and high-pass of one cutoff and order sum
 * to an all-pass (flat magnitude). `order` is even, 2 to 16 (LR2 … LR16; 4 = the classic LR4,
 * 24 dB/octave).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 audiotestsrc wave=white-noise ! audioconvert ! tee name=t \
 *   t. ! queue ! fxlinkwitzriley mode=low-pass cutoff=2000 order=4 ! audioconvert ! autoaudiosink \
 *   t. ! queue ! fxlinkwitzriley mode=high-pass cutoff=2000 order=4 ! audioconvert ! autoaudiosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxlinkwitzriley.h"
#include "gstfxcommon.h"

GST_DEBUG_CATEGORY_STATIC(gst_fx_linkwitz_riley_debug);
#define GST_CAT_DEFAULT gst_fx_linkwitz_riley_debug

#define DEFAULT_MODE GST_FX_CROSSOVER_MODE_LOW_PASS
#define DEFAULT_CUTOFF 1000.0
#define DEFAULT_ORDER 4

enum {
  PROP_0,
  PROP_MODE,
  PROP_CUTOFF,
  PROP_ORDER,
};

struct _GstFxLinkwitzRiley {
  GstFxIir parent;

  GstFxCrossoverMode mode;
  double cutoff;
  int order;
};

G_DEFINE_TYPE(GstFxLinkwitzRiley, gst_fx_linkwitz_riley, GST_TYPE_FX_IIR)
GST_ELEMENT_REGISTER_DEFINE(fxlinkwitzriley, "fxlinkwitzriley", GST_RANK_NONE,
                            GST_TYPE_FX_LINKWITZ_RILEY);

GType gst_fx_crossover_mode_get_type(void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_FX_CROSSOVER_MODE_LOW_PASS, "Low band (low-pass)", "low-pass"},
      {GST_FX_CROSSOVER_MODE_HIGH_PASS, "High band (high-pass)", "high-pass"},
      {0, NULL, NULL},
  };
  return gst_fx_enum_register_once(&type, "GstFxCrossoverMode", values);
}

static gboolean gst_fx_linkwitz_riley_design_sections(GstFxIir *iir, double rate, fx_sos_t *sos,
                                                      int capacity, int *n_sections, gchar **error);

static const GstFxPropField linkwitz_riley_fields[] = {
    {PROP_MODE, G_TYPE_ENUM, G_STRUCT_OFFSET(GstFxLinkwitzRiley, mode)},
    {PROP_CUTOFF, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxLinkwitzRiley, cutoff)},
    {PROP_ORDER, G_TYPE_INT, G_STRUCT_OFFSET(GstFxLinkwitzRiley, order)},
};

static void gst_fx_linkwitz_riley_set_property(GObject *object, guint prop_id, const GValue *value,
                                               GParamSpec *pspec)
{
  if (gst_fx_props_set(object, object, linkwitz_riley_fields, G_N_ELEMENTS(linkwitz_riley_fields),
                       prop_id, value, pspec))
    gst_fx_iir_parameters_changed(GST_FX_IIR(object));
}

static void gst_fx_linkwitz_riley_get_property(GObject *object, guint prop_id, GValue *value,
                                               GParamSpec *pspec)
{
  gst_fx_props_get(object, object, linkwitz_riley_fields, G_N_ELEMENTS(linkwitz_riley_fields),
                   prop_id, value, pspec);
}

static void gst_fx_linkwitz_riley_class_init(GstFxLinkwitzRileyClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstFxIirClass *iir_class = GST_FX_IIR_CLASS(klass);

  GST_DEBUG_CATEGORY_INIT(gst_fx_linkwitz_riley_debug, "fxlinkwitzriley", 0,
                          "Linkwitz-Riley crossover filter");

  gobject_class->set_property = gst_fx_linkwitz_riley_set_property;
  gobject_class->get_property = gst_fx_linkwitz_riley_get_property;
  iir_class->design_sections = gst_fx_linkwitz_riley_design_sections;
  iir_class->max_sections = FX_LR_MAX_ORDER;

  g_object_class_install_property(
      gobject_class, PROP_MODE,
      g_param_spec_enum("mode", "Mode", "Crossover band: low-pass or high-pass",
                        GST_TYPE_FX_CROSSOVER_MODE, DEFAULT_MODE, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_CUTOFF,
      g_param_spec_double("cutoff", "Cutoff",
                          "Crossover frequency in Hz (both bands -6 dB); must be inside "
                          "(0, rate/2)",
                          G_MINDOUBLE, GST_FX_MAX_FREQUENCY, DEFAULT_CUTOFF,
                          GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_ORDER,
      g_param_spec_int("order", "Order",
                       "Crossover order, an even number 2..16 (4 = LR4, 24 dB/octave)", 2,
                       FX_LR_MAX_ORDER, DEFAULT_ORDER, GST_FX_DSP_PARAM_FLAGS));

  gst_element_class_set_static_metadata(
      element_class, "Linkwitz-Riley crossover filter", "Filter/Effect/Audio",
      "One band of a Linkwitz-Riley crossover (squared Butterworth, even order 2 to 16); the "
      "low-pass and high-pass of one cutoff sum to an all-pass",
      "gst-fx developers");

  gst_type_mark_as_plugin_api(GST_TYPE_FX_CROSSOVER_MODE, 0);
}

static void gst_fx_linkwitz_riley_init(GstFxLinkwitzRiley *self)
{
  self->mode = DEFAULT_MODE;
  self->cutoff = DEFAULT_CUTOFF;
  self->order = DEFAULT_ORDER;
}

/* Called with the object lock held. */
static gboolean gst_fx_linkwitz_riley_design_sections(GstFxIir *iir, double rate, fx_sos_t *sos,
                                                      int capacity, int *n_sections, gchar **error)
{
  GstFxLinkwitzRiley *self = GST_FX_LINKWITZ_RILEY(iir);
  fx_status_t st;

  st = fx_design_linkwitz_riley((fx_mode_t) self->mode, self->order, self->cutoff, rate, sos,
                                capacity, n_sections);
  switch (st) {
  case FX_OK:
    return TRUE;
  case FX_ERR_CUTOFF:
    *error = gst_fx_iir_describe_frequency("cutoff", self->cutoff, rate);
    break;
  case FX_ERR_ORDER:
    *error = g_strdup_printf("order=%d is invalid: must be an even number from 2 to %d",
                             self->order, FX_LR_MAX_ORDER);
    break;
  default:
    *error = gst_fx_iir_describe_design_error(st, rate, "crossover");
    break;
  }
  return FALSE;
}
