/* gst-fx — fxeq: N-band parametric EQ (RBJ Audio-EQ-Cookbook bands) as one cascade.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:element-fxeq
 * @title: fxeq
 * @short_description: N-band parametric EQ (RBJ bands), one cascade, fuses inside fxchain
 *
 * A parametric equalizer of `num-bands` (1–32) bands. Every band is one RBJ Audio-EQ-Cookbook
 * biquad; all bands run as ONE second-order-sections cascade (one dispatch per buffer), and inside
 * `fxchain` the EQ fuses with neighbouring IIR stages like any other IIR element.
 *
 * The bands are child objects `band0`, `band1`, ... (#GstChildProxy, as in `equalizer-nbands`),
 * each with the properties `type` (`peaking`, `low-shelf`, `high-shelf`, `low-pass`,
 * `high-pass`, `notch`), `frequency` (centre or corner frequency in Hz), `q` and `gain` (dB,
 * peaking and shelves). All four are controllable: a #GstControlSource bound to a band changes
 * the cascade at the next buffer without a click, also when the EQ is fused inside `fxchain`.
 * `pre-gain` (dB) multiplies the input; it is folded into the first section.
 *
 * `q` is RBJ's Q for every type, the shelves included (not a bandwidth in Hz or octaves, and not
 * the cookbook's shelf slope S): for a shelf, q = 0.7071 (1/sqrt(2), the default) is S = 1, the
 * steepest shelf whose response moves monotonically from one plateau to the other; a smaller q
 * gives a gentler monotonic slope, a larger q a resonant shelf with an overshoot next to the
 * corner and an undershoot on the other side (by design, as in the cookbook). Unlike the shelves
 * of the stock `equalizer-nbands`, a shelf here has no lobe of the opposite sign.
 *
 * Every band is one section, also when it does nothing: a peaking or shelving band at 0 dB is an
 * exact identity section (and its frequency is not checked against the rate), so automating a
 * gain through 0 dB never changes the shape of the cascade. A band that acts (any low-pass,
 * high-pass or notch, and peaking or shelves with a gain) needs a frequency inside
 * (0, rate/2): otherwise negotiation fails with an element error naming the band's property
 * (e.g. `band3::frequency`), its value and the allowed range; the same change while PLAYING is
 * refused with a warning and the previous coefficients stay.
 *
 * `num-bands` can change in NULL and READY only (refused with a warning while PAUSED or
 * PLAYING). Bands that stay keep their settings; new bands start as 0 dB peaking bands at
 * logarithmically spaced centres over 20 Hz–20 kHz for the new count (20 * 1000^((i + 0.5) / N)
 * Hz), q 0.7071.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 audiotestsrc wave=pink-noise ! audioconvert ! fxeq num-bands=3
 *   band0::type=low-shelf band0::frequency=80 band0::q=0.7 band0::gain=3
 *   band1::type=peaking band1::frequency=2500 band1::q=1.4 band1::gain=-4
 *   band2::type=high-pass band2::frequency=30 ! audioconvert ! autoaudiosink
 * ]|
 * |[
 * gst-launch-1.0 audiotestsrc wave=white-noise ! audioconvert ! fxchain chain="fxbutterworth
 *   mode=high-pass cutoff=40 ! fxeq num-bands=2 band0::gain=-3 band1::type=high-shelf
 *   band1::frequency=8000 band1::gain=2" ! audioconvert ! autoaudiosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxeq.h"
#include "gstfxcommon.h"

#include "eq.h"

GST_DEBUG_CATEGORY_STATIC(gst_fx_eq_debug);
#define GST_CAT_DEFAULT gst_fx_eq_debug

#define DEFAULT_NUM_BANDS 10
#define DEFAULT_PRE_GAIN 0.0
#define MIN_PRE_GAIN (-120.0)
#define MAX_PRE_GAIN 60.0

#define DEFAULT_BAND_TYPE GST_FX_EQ_BAND_PEAKING
#define DEFAULT_BAND_FREQUENCY 1000.0
#define DEFAULT_BAND_Q 0.7071
#define DEFAULT_BAND_GAIN 0.0
#define MIN_BAND_Q 0.001
#define MAX_BAND_Q 1000.0
#define MIN_BAND_GAIN (-120.0)
#define MAX_BAND_GAIN 120.0

GType gst_fx_eq_band_type_get_type(void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_FX_EQ_BAND_PEAKING, "Peaking EQ (uses gain)", "peaking"},
      {GST_FX_EQ_BAND_LOW_SHELF, "Low shelf (uses gain)", "low-shelf"},
      {GST_FX_EQ_BAND_HIGH_SHELF, "High shelf (uses gain)", "high-shelf"},
      {GST_FX_EQ_BAND_LOW_PASS, "Low-pass (second order)", "low-pass"},
      {GST_FX_EQ_BAND_HIGH_PASS, "High-pass (second order)", "high-pass"},
      {GST_FX_EQ_BAND_NOTCH, "Notch", "notch"},
      {0, NULL, NULL},
  };
  return gst_fx_enum_register_once(&type, "GstFxEqBandType", values);
}

/* ---- The band object ---- */

enum {
  BAND_PROP_0,
  BAND_PROP_TYPE,
  BAND_PROP_FREQUENCY,
  BAND_PROP_Q,
  BAND_PROP_GAIN,
};

struct _GstFxEqBand {
  GstObject parent;

  /* Guarded by the owning fxeq's object lock (the band's own while it has no parent). */
  GstFxEqBandType type;
  double frequency, q, gain;
};

G_DEFINE_TYPE(GstFxEqBand, gst_fx_eq_band, GST_TYPE_OBJECT)

static const GstFxPropField band_fields[] = {
    {BAND_PROP_TYPE, G_TYPE_ENUM, G_STRUCT_OFFSET(GstFxEqBand, type)},
    {BAND_PROP_FREQUENCY, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxEqBand, frequency)},
    {BAND_PROP_Q, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxEqBand, q)},
    {BAND_PROP_GAIN, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxEqBand, gain)},
};

static void gst_fx_eq_band_set_property(GObject *object, guint prop_id, const GValue *value,
                                        GParamSpec *pspec)
{
  GstObject *eq = gst_object_get_parent(GST_OBJECT(object));

  /* The fields are read by the EQ's design_cascade under the EQ's lock: write them under it. */
  if (gst_fx_props_set(eq ? G_OBJECT(eq) : object, object, band_fields, G_N_ELEMENTS(band_fields),
                       prop_id, value, pspec) &&
      eq)
    gst_fx_iir_parameters_changed(GST_FX_IIR(eq));
  if (eq)
    gst_object_unref(eq);
}

static void gst_fx_eq_band_get_property(GObject *object, guint prop_id, GValue *value,
                                        GParamSpec *pspec)
{
  GstObject *eq = gst_object_get_parent(GST_OBJECT(object));

  gst_fx_props_get(eq ? G_OBJECT(eq) : object, object, band_fields, G_N_ELEMENTS(band_fields),
                   prop_id, value, pspec);
  if (eq)
    gst_object_unref(eq);
}

static void gst_fx_eq_band_class_init(GstFxEqBandClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);

  gobject_class->set_property = gst_fx_eq_band_set_property;
  gobject_class->get_property = gst_fx_eq_band_get_property;

  g_object_class_install_property(
      gobject_class, BAND_PROP_TYPE,
      g_param_spec_enum("type", "Type",
                        "Band type (RBJ Audio-EQ-Cookbook); gain applies to peaking and the "
                        "shelves",
                        GST_TYPE_FX_EQ_BAND_TYPE, DEFAULT_BAND_TYPE, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, BAND_PROP_FREQUENCY,
      g_param_spec_double("frequency", "Frequency",
                          "Centre or corner frequency in Hz; must be inside (0, rate/2) unless "
                          "the band is a 0 dB peaking or shelving band",
                          G_MINDOUBLE, GST_FX_MAX_FREQUENCY, DEFAULT_BAND_FREQUENCY,
                          GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, BAND_PROP_Q,
      g_param_spec_double("q", "Q",
                          "RBJ quality factor (0.001..1000), also for the shelves: 0.7071 is "
                          "the steepest shelf without overshoot (slope S = 1)",
                          MIN_BAND_Q, MAX_BAND_Q, DEFAULT_BAND_Q, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, BAND_PROP_GAIN,
      g_param_spec_double("gain", "Gain",
                          "Boost (positive) or cut (negative) in dB for peaking and shelves "
                          "(-120..120)",
                          MIN_BAND_GAIN, MAX_BAND_GAIN, DEFAULT_BAND_GAIN, GST_FX_DSP_PARAM_FLAGS));
}

static void gst_fx_eq_band_init(GstFxEqBand *band)
{
  band->type = DEFAULT_BAND_TYPE;
  band->frequency = DEFAULT_BAND_FREQUENCY;
  band->q = DEFAULT_BAND_Q;
  band->gain = DEFAULT_BAND_GAIN;
}

/* ---- The element ---- */

enum {
  PROP_0,
  PROP_NUM_BANDS,
  PROP_PRE_GAIN,
};

struct _GstFxEq {
  GstFxIir parent;

  /* Object lock. */
  double pre_gain;
  GPtrArray *bands; /* GstFxEqBand*, each owned through its parent link to this element */
};

static void gst_fx_eq_child_proxy_init(gpointer g_iface, gpointer iface_data);

G_DEFINE_TYPE_WITH_CODE(GstFxEq, gst_fx_eq, GST_TYPE_FX_IIR,
                        G_IMPLEMENT_INTERFACE(GST_TYPE_CHILD_PROXY, gst_fx_eq_child_proxy_init))
GST_ELEMENT_REGISTER_DEFINE(fxeq, "fxeq", GST_RANK_NONE, GST_TYPE_FX_EQ);

static void gst_fx_eq_set_property(GObject *object, guint prop_id, const GValue *value,
                                   GParamSpec *pspec);
static void gst_fx_eq_get_property(GObject *object, guint prop_id, GValue *value,
                                   GParamSpec *pspec);
static void gst_fx_eq_dispose(GObject *object);
static void gst_fx_eq_finalize(GObject *object);
static gboolean gst_fx_eq_design_cascade(GstFxIir *iir, double rate, GstFxCascadeDesign *design,
                                         gchar **error);
static void gst_fx_eq_sync_child_controllers(GstFxIir *iir, const GstSegment *segment,
                                             GstClockTime timestamp);

static void gst_fx_eq_class_init(GstFxEqClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstFxIirClass *iir_class = GST_FX_IIR_CLASS(klass);

  GST_DEBUG_CATEGORY_INIT(gst_fx_eq_debug, "fxeq", 0, "N-band parametric EQ");

  gobject_class->set_property = gst_fx_eq_set_property;
  gobject_class->get_property = gst_fx_eq_get_property;
  gobject_class->dispose = gst_fx_eq_dispose;
  gobject_class->finalize = gst_fx_eq_finalize;
  iir_class->design_cascade = gst_fx_eq_design_cascade;
  iir_class->sync_child_controllers = gst_fx_eq_sync_child_controllers;

  g_object_class_install_property(
      gobject_class, PROP_NUM_BANDS,
      g_param_spec_uint("num-bands", "Number of bands",
                        "Number of bands (1..32), child objects band0, band1, ...; changeable in "
                        "NULL and READY only",
                        1, FX_EQ_MAX_BANDS, DEFAULT_NUM_BANDS,
                        G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property(
      gobject_class, PROP_PRE_GAIN,
      g_param_spec_double("pre-gain", "Pre-gain",
                          "Gain in dB applied before the bands (-120..60), folded into the "
                          "cascade",
                          MIN_PRE_GAIN, MAX_PRE_GAIN, DEFAULT_PRE_GAIN, GST_FX_DSP_PARAM_FLAGS));

  gst_element_class_set_static_metadata(
      element_class, "Parametric equalizer", "Filter/Effect/Audio",
      "N-band parametric EQ: RBJ Audio-EQ-Cookbook peaking, shelving, low/high-pass and notch "
      "bands with Q, run as one second-order-sections cascade",
      "gst-fx developers");

  gst_type_mark_as_plugin_api(GST_TYPE_FX_EQ_BAND, 0);
  gst_type_mark_as_plugin_api(GST_TYPE_FX_EQ_BAND_TYPE, 0);
}

/* A new band for index @i of @n (not parented yet). */
static GstFxEqBand *band_new(guint i, guint n)
{
  gchar *name = g_strdup_printf("band%u", i);
  GstFxEqBand *band = g_object_new(GST_TYPE_FX_EQ_BAND, "name", name, NULL);

  g_free(name);
  band->frequency = fx_eq_default_frequency((int) i, (int) n);
  return band;
}

static void gst_fx_eq_init(GstFxEq *self)
{
  self->pre_gain = DEFAULT_PRE_GAIN;
  self->bands = g_ptr_array_new();
  for (guint i = 0; i < DEFAULT_NUM_BANDS; i++) {
    GstFxEqBand *band = band_new(i, DEFAULT_NUM_BANDS);
    gst_object_set_parent(GST_OBJECT(band), GST_OBJECT(self));
    g_ptr_array_add(self->bands, band);
  }
}

static void gst_fx_eq_dispose(GObject *object)
{
  GstFxEq *self = GST_FX_EQ(object);
  GPtrArray *old;

  GST_OBJECT_LOCK(self);
  old = self->bands;
  self->bands = g_ptr_array_new();
  GST_OBJECT_UNLOCK(self);
  for (guint i = 0; i < old->len; i++)
    gst_object_unparent(g_ptr_array_index(old, i));
  g_ptr_array_unref(old);

  G_OBJECT_CLASS(gst_fx_eq_parent_class)->dispose(object);
}

static void gst_fx_eq_finalize(GObject *object)
{
  g_ptr_array_unref(GST_FX_EQ(object)->bands);
  G_OBJECT_CLASS(gst_fx_eq_parent_class)->finalize(object);
}

/* Sets the number of bands in NULL or READY; refused with a warning while PAUSED or PLAYING. */
static void set_num_bands(GstFxEq *self, guint n)
{
  GPtrArray *added = g_ptr_array_new(), *removed = g_ptr_array_new();
  gboolean busy;
  guint old;

  /* The state lock serialises this with state changes (and with other num-bands changes). */
  GST_STATE_LOCK(self);
  GST_OBJECT_LOCK(self);
  busy = GST_STATE(self) > GST_STATE_READY || GST_STATE_TARGET(self) > GST_STATE_READY ||
         GST_STATE_PENDING(self) > GST_STATE_READY;
  old = self->bands->len;
  GST_OBJECT_UNLOCK(self);
  if (busy) {
    GST_STATE_UNLOCK(self);
    GST_ELEMENT_WARNING(self, CORE, STATE_CHANGE,
                        ("fxeq: num-bands cannot change while PAUSED or PLAYING; num-bands=%u "
                         "was refused (set it in NULL or READY)",
                         n),
                        ("%u band(s) stay", old));
    goto out;
  }
  for (guint i = old; i < n; i++) {
    GstFxEqBand *band = band_new(i, n);
    gst_object_set_parent(GST_OBJECT(band), GST_OBJECT(self));
    g_ptr_array_add(added, band);
  }
  GST_OBJECT_LOCK(self);
  while (self->bands->len > n)
    g_ptr_array_add(removed, g_ptr_array_steal_index(self->bands, self->bands->len - 1));
  for (guint i = 0; i < added->len; i++)
    g_ptr_array_add(self->bands, g_ptr_array_index(added, i));
  GST_OBJECT_UNLOCK(self);

  for (guint i = 0; i < removed->len; i++) {
    GstObject *band = g_ptr_array_index(removed, i);
    gchar *name = gst_object_get_name(band);
    gst_child_proxy_child_removed(GST_CHILD_PROXY(self), G_OBJECT(band), name);
    g_free(name);
    gst_object_unparent(band);
  }
  for (guint i = 0; i < added->len; i++) {
    GstObject *band = g_ptr_array_index(added, i);
    gchar *name = gst_object_get_name(band);
    gst_child_proxy_child_added(GST_CHILD_PROXY(self), G_OBJECT(band), name);
    g_free(name);
  }
  GST_STATE_UNLOCK(self);
  if (old != n) {
    GST_DEBUG_OBJECT(self, "%u band(s) -> %u", old, n);
    gst_fx_iir_parameters_changed(GST_FX_IIR(self));
  }

out:
  g_ptr_array_unref(added);
  g_ptr_array_unref(removed);
}

static void gst_fx_eq_set_property(GObject *object, guint prop_id, const GValue *value,
                                   GParamSpec *pspec)
{
  GstFxEq *self = GST_FX_EQ(object);

  switch (prop_id) {
  case PROP_NUM_BANDS:
    set_num_bands(self, g_value_get_uint(value));
    break;
  case PROP_PRE_GAIN:
    GST_OBJECT_LOCK(self);
    self->pre_gain = g_value_get_double(value);
    GST_OBJECT_UNLOCK(self);
    gst_fx_iir_parameters_changed(GST_FX_IIR(self));
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    break;
  }
}

static void gst_fx_eq_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstFxEq *self = GST_FX_EQ(object);

  switch (prop_id) {
  case PROP_NUM_BANDS:
    GST_OBJECT_LOCK(self);
    g_value_set_uint(value, self->bands->len);
    GST_OBJECT_UNLOCK(self);
    break;
  case PROP_PRE_GAIN:
    GST_OBJECT_LOCK(self);
    g_value_set_double(value, self->pre_gain);
    GST_OBJECT_UNLOCK(self);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    break;
  }
}

/* ---- GstChildProxy: the bands ---- */

static GObject *gst_fx_eq_get_child_by_index(GstChildProxy *proxy, guint index)
{
  GstFxEq *self = GST_FX_EQ(proxy);
  GObject *band = NULL;

  GST_OBJECT_LOCK(self);
  if (index < self->bands->len)
    band = g_object_ref(g_ptr_array_index(self->bands, index));
  GST_OBJECT_UNLOCK(self);
  return band;
}

static guint gst_fx_eq_get_children_count(GstChildProxy *proxy)
{
  GstFxEq *self = GST_FX_EQ(proxy);
  guint n;

  GST_OBJECT_LOCK(self);
  n = self->bands->len;
  GST_OBJECT_UNLOCK(self);
  return n;
}

static void gst_fx_eq_child_proxy_init(gpointer g_iface, gpointer iface_data)
{
  GstChildProxyInterface *iface = g_iface;

  (void) iface_data;
  /* get_child_by_name: the default looks the bands up by their object names. */
  iface->get_child_by_index = gst_fx_eq_get_child_by_index;
  iface->get_children_count = gst_fx_eq_get_children_count;
}

/* ---- Controllers on the bands ---- */

static void gst_fx_eq_sync_child_controllers(GstFxIir *iir, const GstSegment *segment,
                                             GstClockTime timestamp)
{
  GstFxEq *self = GST_FX_EQ(iir);
  GstObject *bound[FX_EQ_MAX_BANDS];
  guint n = 0;
  GstClockTime stream_time;

  /* The unlocked check gst_object_sync_values() makes first, per band: without automation a
   * buffer pays one lock and no stream-time conversion. */
  GST_OBJECT_LOCK(self);
  for (guint i = 0; i < self->bands->len && n < FX_EQ_MAX_BANDS; i++) {
    GstObject *band = g_ptr_array_index(self->bands, i);
    if (band->control_bindings)
      bound[n++] = gst_object_ref(band);
  }
  GST_OBJECT_UNLOCK(self);
  if (n == 0)
    return;

  stream_time = gst_segment_to_stream_time(segment, GST_FORMAT_TIME, timestamp);
  for (guint i = 0; i < n; i++) {
    if (GST_CLOCK_TIME_IS_VALID(stream_time))
      gst_object_sync_values(bound[i], stream_time);
    gst_object_unref(bound[i]);
  }
}

/* ---- Design ---- */

/* Called with the object lock held. One section per band, and one cascade stage per band (as a
 * chain of separate biquads: a change of one band crossfades at that band's output and never
 * re-derives the state of the bands after it). */
static gboolean gst_fx_eq_design_cascade(GstFxIir *iir, double rate, GstFxCascadeDesign *design,
                                         gchar **error)
{
  GstFxEq *self = GST_FX_EQ(iir);
  fx_eq_band_t bands[FX_EQ_MAX_BANDS];
  int n = (int) MIN(self->bands->len, FX_EQ_MAX_BANDS), bad = -1;
  fx_status_t st;

  for (int i = 0; i < n; i++) {
    const GstFxEqBand *b = g_ptr_array_index(self->bands, i);
    bands[i] = (fx_eq_band_t){(fx_biquad_type_t) b->type, b->frequency, b->q, b->gain};
  }
  design->sos = g_new0(fx_sos_t, FX_EQ_MAX_BANDS);
  st = fx_design_eq(bands, n, self->pre_gain, rate, design->sos, FX_EQ_MAX_BANDS,
                    &design->n_sections, &bad);
  if (st == FX_OK) {
    design->stages = g_new0(fx_cascade_stage_t, design->n_sections);
    design->n_stages = design->n_sections;
    for (int i = 0; i < design->n_sections; i++)
      design->stages[i] = (fx_cascade_stage_t){FX_CASCADE_STAGE_SECTIONS, design->sos + i, 1, 1.0};
    return TRUE;
  }

  if (bad >= 0) {
    switch (st) {
    case FX_ERR_FREQUENCY: {
      gchar *prop = g_strdup_printf("band%d::frequency", bad);
      *error = gst_fx_iir_describe_frequency(prop, bands[bad].frequency, rate);
      g_free(prop);
      break;
    }
    case FX_ERR_Q:
      *error = g_strdup_printf("band%d::q=%g is out of range: must be > 0", bad, bands[bad].q);
      break;
    case FX_ERR_GAIN:
      *error = g_strdup_printf("band%d::gain=%g dB is out of range: must be finite", bad,
                               bands[bad].gain_db);
      break;
    default: {
      gchar *what = g_strdup_printf("band%d", bad);
      *error = gst_fx_iir_describe_design_error(st, rate, what);
      g_free(what);
      break;
    }
    }
  } else if (st == FX_ERR_GAIN) {
    *error = g_strdup_printf("pre-gain=%g dB is out of range: must be finite", self->pre_gain);
  } else {
    *error = gst_fx_iir_describe_design_error(st, rate, "equalizer");
  }
  return FALSE;
}
