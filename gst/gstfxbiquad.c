/* gst-fx — fxbiquad: RBJ Audio-EQ-Cookbook biquad.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:element-fxbiquad
 * @title: fxbiquad
 * @short_description: one RBJ Audio-EQ-Cookbook biquad
 *
 * A single second-order section from Robert Bristow-Johnson's Audio-EQ-Cookbook: low-pass,
 * high-pass, band-pass (0 dB peak or peak gain = Q), notch, all-pass, peaking EQ and shelves.
 * `frequency` is the centre or corner frequency, `q` the quality factor (for the shelves it sets
 * the slope) and `gain` the boost or cut in dB of the peaking and shelving types. A frequency at
 * or above Nyquist is refused (never silently unstable).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 audiotestsrc wave=pink-noise ! audioconvert ! fxbiquad type=peaking frequency=3000
 * q=1.4 gain=6 ! audioconvert ! autoaudiosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxbiquad.h"
#include "gstfxcommon.h"

GST_DEBUG_CATEGORY_STATIC(gst_fx_biquad_debug);
#define GST_CAT_DEFAULT gst_fx_biquad_debug

#define DEFAULT_TYPE GST_FX_BIQUAD_TYPE_LOW_PASS
#define DEFAULT_FREQUENCY 1000.0
#define DEFAULT_Q 0.7071
#define DEFAULT_GAIN 0.0
#define MIN_Q 0.001
#define MAX_Q 1000.0
#define MIN_GAIN (-120.0)
#define MAX_GAIN 120.0

enum {
  PROP_0,
  PROP_TYPE,
  PROP_FREQUENCY,
  PROP_Q,
  PROP_GAIN,
};

struct _GstFxBiquad {
  GstFxIir parent;

  GstFxBiquadType type;
  double frequency, q, gain;
};

G_DEFINE_TYPE(GstFxBiquad, gst_fx_biquad, GST_TYPE_FX_IIR)
GST_ELEMENT_REGISTER_DEFINE(fxbiquad, "fxbiquad", GST_RANK_NONE, GST_TYPE_FX_BIQUAD);

GType gst_fx_biquad_type_get_type(void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_FX_BIQUAD_TYPE_LOW_PASS, "Low-pass", "low-pass"},
      {GST_FX_BIQUAD_TYPE_HIGH_PASS, "High-pass", "high-pass"},
      {GST_FX_BIQUAD_TYPE_BAND_PASS, "Band-pass, 0 dB peak gain", "band-pass"},
      {GST_FX_BIQUAD_TYPE_BAND_PASS_PEAK, "Band-pass, constant skirt gain (peak gain = Q)",
       "band-pass-peak"},
      {GST_FX_BIQUAD_TYPE_NOTCH, "Notch", "notch"},
      {GST_FX_BIQUAD_TYPE_ALL_PASS, "All-pass", "all-pass"},
      {GST_FX_BIQUAD_TYPE_PEAKING, "Peaking EQ (uses gain)", "peaking"},
      {GST_FX_BIQUAD_TYPE_LOW_SHELF, "Low shelf (uses gain)", "low-shelf"},
      {GST_FX_BIQUAD_TYPE_HIGH_SHELF, "High shelf (uses gain)", "high-shelf"},
      {0, NULL, NULL},
  };
  return gst_fx_enum_register_once(&type, "GstFxBiquadType", values);
}

static gboolean gst_fx_biquad_design_sections(GstFxIir *iir, double rate, fx_sos_t *sos,
                                              int capacity, int *n_sections, gchar **error);

static const GstFxPropField biquad_fields[] = {
    {PROP_TYPE, G_TYPE_ENUM, G_STRUCT_OFFSET(GstFxBiquad, type)},
    {PROP_FREQUENCY, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxBiquad, frequency)},
    {PROP_Q, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxBiquad, q)},
    {PROP_GAIN, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxBiquad, gain)},
};

static void gst_fx_biquad_set_property(GObject *object, guint prop_id, const GValue *value,
                                       GParamSpec *pspec)
{
  if (gst_fx_props_set(object, object, biquad_fields, G_N_ELEMENTS(biquad_fields), prop_id, value,
                       pspec))
    gst_fx_iir_parameters_changed(GST_FX_IIR(object));
}

static void gst_fx_biquad_get_property(GObject *object, guint prop_id, GValue *value,
                                       GParamSpec *pspec)
{
  gst_fx_props_get(object, object, biquad_fields, G_N_ELEMENTS(biquad_fields), prop_id, value,
                   pspec);
}

static void gst_fx_biquad_class_init(GstFxBiquadClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstFxIirClass *iir_class = GST_FX_IIR_CLASS(klass);

  GST_DEBUG_CATEGORY_INIT(gst_fx_biquad_debug, "fxbiquad", 0, "RBJ biquad filter");

  gobject_class->set_property = gst_fx_biquad_set_property;
  gobject_class->get_property = gst_fx_biquad_get_property;
  iir_class->design_sections = gst_fx_biquad_design_sections;
  iir_class->max_sections = 1;

  g_object_class_install_property(
      gobject_class, PROP_TYPE,
      g_param_spec_enum("type", "Type",
                        "Filter type (RBJ Audio-EQ-Cookbook); gain applies to peaking and the "
                        "shelves",
                        GST_TYPE_FX_BIQUAD_TYPE, DEFAULT_TYPE, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_FREQUENCY,
      g_param_spec_double(
          "frequency", "Frequency", "Centre or corner frequency in Hz; must be inside (0, rate/2)",
          G_MINDOUBLE, GST_FX_MAX_FREQUENCY, DEFAULT_FREQUENCY, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_Q,
      g_param_spec_double("q", "Q",
                          "Quality factor (0.001..1000; 0.7071 = Butterworth; the slope for "
                          "shelves)",
                          MIN_Q, MAX_Q, DEFAULT_Q, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_GAIN,
      g_param_spec_double("gain", "Gain",
                          "Boost (positive) or cut (negative) in dB for peaking and shelves "
                          "(-120..120)",
                          MIN_GAIN, MAX_GAIN, DEFAULT_GAIN, GST_FX_DSP_PARAM_FLAGS));

  gst_element_class_set_static_metadata(
      element_class, "Biquad filter", "Filter/Effect/Audio",
      "One RBJ Audio-EQ-Cookbook biquad: low-pass, high-pass, band-pass, notch, all-pass, "
      "peaking or shelving EQ",
      "gst-fx developers");

  gst_type_mark_as_plugin_api(GST_TYPE_FX_BIQUAD_TYPE, 0);
}

static void gst_fx_biquad_init(GstFxBiquad *self)
{
  self->type = DEFAULT_TYPE;
  self->frequency = DEFAULT_FREQUENCY;
  self->q = DEFAULT_Q;
  self->gain = DEFAULT_GAIN;
}

/* Called with the object lock held. */
static gboolean gst_fx_biquad_design_sections(GstFxIir *iir, double rate, fx_sos_t *sos,
                                              int capacity, int *n_sections, gchar **error)
{
  GstFxBiquad *self = GST_FX_BIQUAD(iir);
  fx_status_t st;

  if (capacity < 1) {
    *error = g_strdup("no room for a section");
    return FALSE;
  }
  st = fx_design_biquad((fx_biquad_type_t) self->type, self->frequency, self->q, self->gain, rate,
                        sos);
  switch (st) {
  case FX_OK:
    *n_sections = 1;
    return TRUE;
  case FX_ERR_FREQUENCY:
    *error = gst_fx_iir_describe_frequency("frequency", self->frequency, rate);
    break;
  case FX_ERR_Q:
    *error = g_strdup_printf("q=%g is out of range: must be > 0", self->q);
    break;
  case FX_ERR_GAIN:
    *error = g_strdup_printf("gain=%g dB is out of range: must be finite", self->gain);
    break;
  default:
    *error = gst_fx_iir_describe_design_error(st, rate, "biquad");
    break;
  }
  return FALSE;
}
