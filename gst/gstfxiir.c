/* gst-fx — GstFxIir: base class of every IIR element.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:gstfxiir
 * @title: GstFxIir
 * @short_description: base class of the gst-fx IIR elements
 *
 * #GstFxIir is a #GstAudioFilter that runs one second-order-sections cascade of libfxdsp in
 * place on interleaved F32 or F64 audio. Subclasses design its sections
 * (#GstFxIirClass.design_sections or #GstFxIirClass.design_cascade);
 * this class handles caps, the common properties (`device`, `precision`, `dispatches`,
 * `backend`, `scan-threshold`, `cuda-graphs`, `launches`), locking, controller sync in
 * before_transform, click-free coefficient changes, flushes and bus messages.
 *
 * Every IIR element also has the read-only string `designed-sections`: the sections it designs
 * for the negotiated sample rate, in `fxsos` syntax (`b0 b1 b2 a0 a1 a2` rows separated by `; `,
 * a0 = 1, 17 significant digits so the text parses back to the same doubles), or %NULL before the
 * caps are negotiated or when the parameters cannot be designed at that rate. To read it for a
 * given rate, run one buffer at that rate through the element (or through an `fxchain` with
 * `fuse=false`, whose children are negotiated one by one); `gst-fx response` does that.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxiir.h"
#include "gstfxdevice.h"
#include "gstfxpreset.h"
#include "gstfxformat.h"

#include <math.h>

GST_DEBUG_CATEGORY_STATIC(gst_fx_iir_debug);
#define GST_CAT_DEFAULT gst_fx_iir_debug

/* Crossfade length for coefficient changes. */
#define FX_CROSSFADE_SECONDS 0.005

enum {
  PROP_0,
  PROP_COMMON, /* the common properties: PROP_COMMON + GstFxCommonProp */
  PROP_DESIGNED_SECTIONS = PROP_COMMON + GST_FX_COMMON_PROP_COUNT,
  PROP_FORMAT, /* dither, dither-seed, clipped: PROP_FORMAT + GstFxFormatProp */
};

typedef struct {
  /* Settings, guarded by the object lock. */
  GstFxCommonSettings common;
  gint rate;                   /* negotiated rate (0 = none) */
  GstFxCascadeDesign *pending; /* designed, not yet installed (NULL when none) */
  gboolean reconfigure;        /* precision changed: reconfigure the cascade */
  GstFxRefusalLimit refusal;   /* design refusals posted while playing */
  gchar *last_error;           /* last negotiation error posted (basetransform retries set_caps) */
  gint serial; /* atomic (written under the object lock): bumped by every DSP parameter change */
  /* Atomic: set (under the object lock) whenever transform_ip has something to pick up under the
   * object lock (pending coefficients, a precision change, a CUDA warning to post), cleared by
   * transform_ip under the object lock. Lets a buffer skip the object lock in steady state. */
  gint dirty;

  /* Stream state, guarded by engine_lock. */
  GMutex engine_lock;
  fx_cascade_t *cascade;
  GstFxDeviceState dev; /* CPU or CUDA (gstfxdevice.c) */
  gboolean configured;
  gint channels;
  fx_sample_format_t format;
  GstFxCascadeDesign *current; /* what the cascade runs (for reconfiguration) */
  GstFxNonfiniteLimit nonfinite;

  /* Integer streams (streaming thread; its settings under the object lock). */
  GstFxQuant quant;
} GstFxIirPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_CODE(GstFxIir, gst_fx_iir, GST_TYPE_AUDIO_FILTER,
                                 G_ADD_PRIVATE(GstFxIir)
                                     G_IMPLEMENT_INTERFACE(GST_TYPE_PRESET,
                                                           gst_fx_preset_interface_init))

/* Unchecked cast: callers are this class's own vfuncs and functions that checked the type. */
#define PRIV(self) ((GstFxIirPrivate *) gst_fx_iir_get_instance_private((GstFxIir *) (self)))

static void gst_fx_iir_set_property(GObject *object, guint prop_id, const GValue *value,
                                    GParamSpec *pspec);
static void gst_fx_iir_get_property(GObject *object, guint prop_id, GValue *value,
                                    GParamSpec *pspec);
static void gst_fx_iir_finalize(GObject *object);
static gboolean gst_fx_iir_setup(GstAudioFilter *filter, const GstAudioInfo *info);
static gboolean gst_fx_iir_start(GstBaseTransform *trans);
static gboolean gst_fx_iir_stop(GstBaseTransform *trans);
static gboolean gst_fx_iir_sink_event(GstBaseTransform *trans, GstEvent *event);
static GstFlowReturn gst_fx_iir_transform_ip(GstBaseTransform *trans, GstBuffer *buf);
static void gst_fx_iir_before_transform(GstBaseTransform *trans, GstBuffer *buffer);

/* CAPS: the element's format order first (gstfxformat.h). */
static gboolean gst_fx_iir_query(GstBaseTransform *trans, GstPadDirection direction,
                                 GstQuery *query)
{
  gboolean ret;

  if (gst_fx_query_caps_ours_first(trans, direction, query,
                                   GST_BASE_TRANSFORM_CLASS(gst_fx_iir_parent_class), &ret))
    return ret;
  return GST_BASE_TRANSFORM_CLASS(gst_fx_iir_parent_class)->query(trans, direction, query);
}

static void gst_fx_iir_class_init(GstFxIirClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  GstAudioFilterClass *filter_class = GST_AUDIO_FILTER_CLASS(klass);

  GST_DEBUG_CATEGORY_INIT(gst_fx_iir_debug, "fxiir", 0, "gst-fx IIR base class");

  gobject_class->set_property = gst_fx_iir_set_property;
  gobject_class->get_property = gst_fx_iir_get_property;
  gobject_class->finalize = gst_fx_iir_finalize;

  gst_fx_install_common_properties(gobject_class, PROP_COMMON);
  g_object_class_install_property(
      gobject_class, PROP_DESIGNED_SECTIONS,
      g_param_spec_string("designed-sections", "Designed sections",
                          "The sections designed for the negotiated rate, in fxsos syntax "
                          "\"b0 b1 b2 a0 a1 a2; ...\" (NULL before negotiation)",
                          NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  gst_fx_install_format_properties(gobject_class, PROP_FORMAT);

  gst_fx_add_audio_pad_templates(filter_class);

  filter_class->setup = GST_DEBUG_FUNCPTR(gst_fx_iir_setup);
  trans_class->start = GST_DEBUG_FUNCPTR(gst_fx_iir_start);
  trans_class->stop = GST_DEBUG_FUNCPTR(gst_fx_iir_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR(gst_fx_iir_sink_event);
  trans_class->before_transform = GST_DEBUG_FUNCPTR(gst_fx_iir_before_transform);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR(gst_fx_iir_transform_ip);
  trans_class->query = GST_DEBUG_FUNCPTR(gst_fx_iir_query);
  trans_class->transform_ip_on_passthrough = FALSE;

  klass->max_sections = FX_DESIGN_MAX_SECTIONS;

  gst_type_mark_as_plugin_api(GST_TYPE_FX_IIR, 0);
  gst_type_mark_as_plugin_api(GST_TYPE_FX_DEVICE, 0);
  gst_type_mark_as_plugin_api(GST_TYPE_FX_PRECISION, 0);
}

static void gst_fx_iir_init(GstFxIir *self)
{
  GstFxIirPrivate *priv = PRIV(self);

  gst_fx_common_settings_init(&priv->common);
  gst_fx_nonfinite_reset(&priv->nonfinite);
  gst_fx_quant_init(&priv->quant);
  g_mutex_init(&priv->engine_lock);
  priv->cascade = fx_cascade_new();
  gst_fx_device_state_init(&priv->dev);

  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
  gst_base_transform_set_gap_aware(GST_BASE_TRANSFORM(self), FALSE);
}

static void gst_fx_iir_finalize(GObject *object)
{
  GstFxIirPrivate *priv = PRIV(object);

  gst_fx_device_state_clear(&priv->dev, priv->cascade);
  fx_cascade_free(priv->cascade);
  gst_fx_cascade_design_free(priv->pending);
  gst_fx_cascade_design_free(priv->current);
  gst_fx_refusal_clear(&priv->refusal);
  g_free(priv->last_error);
  g_mutex_clear(&priv->engine_lock);
  gst_fx_quant_clear(&priv->quant);

  G_OBJECT_CLASS(gst_fx_iir_parent_class)->finalize(object);
}

static fx_precision_t to_fx_precision(GstFxPrecision p)
{
  switch (p) {
  case GST_FX_PRECISION_SINGLE:
    return FX_PRECISION_SINGLE;
  case GST_FX_PRECISION_DOUBLE:
    return FX_PRECISION_DOUBLE;
  default:
    return FX_PRECISION_AUTO;
  }
}

gchar *gst_fx_iir_describe_frequency(const char *property, double value, double rate)
{
  /* Inside (0, Nyquist) but refused by the design: so close to an end of the range that the
   * filter's poles round onto the unit circle (all digits shown: %g would print 23999.9999 as
   * 24000). */
  if (isfinite(value) && value > 0.0 && value < rate / 2.0)
    return g_strdup_printf("%s=%.12g Hz is out of range: too close to %s for a stable design "
                           "(must be inside (0, %g) Hz for rate %g Hz, with some distance from "
                           "both ends)",
                           property, value, value < rate / 4.0 ? "0 Hz" : "Nyquist", rate / 2.0,
                           rate);
  return g_strdup_printf("%s=%g Hz is out of range: must be inside (0, %g) Hz for rate %g Hz",
                         property, value, rate / 2.0, rate);
}

gchar *gst_fx_iir_describe_design_error(fx_status_t status, double rate, const char *what)
{
  if (status == FX_ERR_RATE)
    return g_strdup_printf("rate %g Hz is invalid", rate);
  return g_strdup_printf("the %s cannot be designed: %s", what, fx_status_string(status));
}

void gst_fx_cascade_design_free(GstFxCascadeDesign *design)
{
  if (!design)
    return;
  g_free(design->sos);
  g_free(design->stages);
  g_free(design);
}

/* Designs the cascade design with the object lock held. Returns it, or NULL with *error set. */
static GstFxCascadeDesign *design_locked(GstFxIir *self, double rate, gchar **error)
{
  GstFxIirClass *klass = GST_FX_IIR_GET_CLASS(self);
  int cap = klass->max_sections > 0 ? klass->max_sections : FX_DESIGN_MAX_SECTIONS;
  GstFxCascadeDesign *d = g_new0(GstFxCascadeDesign, 1);
  gchar *err = NULL;
  gboolean ok = FALSE;

  if (klass->design_cascade) {
    ok = klass->design_cascade(self, rate, d, &err);
  } else if (!klass->design_sections) {
    err = g_strdup("no design_sections function");
  } else {
    d->sos = g_new0(fx_sos_t, cap);
    ok = klass->design_sections(self, rate, d->sos, cap, &d->n_sections, &err);
    if (ok && (d->n_sections < 0 || d->n_sections > cap)) {
      err = g_strdup_printf("design produced %d sections (at most %d allowed)", d->n_sections, cap);
      ok = FALSE;
    }
  }
  if (!ok) {
    gst_fx_cascade_design_free(d);
    if (!err)
      err = g_strdup("the filter could not be designed");
    if (error)
      *error = err;
    else
      g_free(err);
    return NULL;
  }
  if (!d->stages) { /* the sections form one cascade stage */
    d->stages = g_new0(fx_cascade_stage_t, 1);
    d->stages[0] = (fx_cascade_stage_t){FX_CASCADE_STAGE_SECTIONS, d->sos, d->n_sections, 1.0};
    d->n_stages = 1;
  }
  return d;
}

gboolean gst_fx_iir_get_sections(GstFxIir *self, double rate, fx_sos_t **sos, int *n_sections,
                                 gchar **error)
{
  GstFxCascadeDesign *d;

  g_return_val_if_fail(GST_IS_FX_IIR(self), FALSE);
  g_return_val_if_fail(sos != NULL && n_sections != NULL, FALSE);

  GST_OBJECT_LOCK(self);
  d = design_locked(self, rate, error);
  GST_OBJECT_UNLOCK(self);
  *sos = NULL;
  *n_sections = 0;
  if (!d)
    return FALSE;
  *n_sections = d->n_sections;
  /* zero sections: a non-NULL empty array */
  *sos = d->sos ? g_steal_pointer(&d->sos) : g_new0(fx_sos_t, 1);
  gst_fx_cascade_design_free(d);
  return TRUE;
}

gboolean gst_fx_iir_get_cascade_design(GstFxIir *self, double rate, GstFxCascadeDesign **design,
                                       gchar **error)
{
  g_return_val_if_fail(GST_IS_FX_IIR(self), FALSE);
  g_return_val_if_fail(design != NULL, FALSE);

  GST_OBJECT_LOCK(self);
  *design = design_locked(self, rate, error);
  GST_OBJECT_UNLOCK(self);
  return *design != NULL;
}

guint gst_fx_iir_get_parameters_serial(GstFxIir *self)
{
  /* Lock-free and unchecked (fxchain reads it per buffer and child, and checked the children's
   * types when it planned): a change racing this read is seen by the next buffer, as it would be
   * with the lock. */
  return (guint) g_atomic_int_get(&PRIV(self)->serial);
}

gint gst_fx_iir_get_rate(GstFxIir *self)
{
  gint rate;

  g_return_val_if_fail(GST_IS_FX_IIR(self), 0);
  GST_OBJECT_LOCK(self);
  rate = PRIV(self)->rate;
  GST_OBJECT_UNLOCK(self);
  return rate;
}

gchar *gst_fx_iir_describe_precision(GstFxIir *self)
{
  GstFxIirPrivate *priv;
  double single, scipy, ckd;
  int have, have_ckd;

  g_return_val_if_fail(GST_IS_FX_IIR(self), NULL);
  priv = PRIV(self);
  g_mutex_lock(&priv->engine_lock);
  have = priv->configured && fx_cascade_precision_probe(priv->cascade, &single, &scipy);
  have_ckd = have && fx_cascade_precision_probe_chunked_double(priv->cascade, &ckd);
  g_mutex_unlock(&priv->engine_lock);
  if (!have)
    return NULL;
  if (have_ckd)
    return g_strdup_printf("auto: float %.1f dB, scipy-f32 %.1f dB, chunked double %.1f dB SER "
                           "vs double",
                           single, scipy, ckd);
  return g_strdup_printf("auto: float %.1f dB, scipy-f32 %.1f dB SER vs double", single, scipy);
}

void gst_fx_iir_parameters_changed(GstFxIir *self)
{
  GstFxIirPrivate *priv = PRIV(self);
  gchar *err = NULL, *warn = NULL;

  GST_OBJECT_LOCK(self);
  g_atomic_int_inc(&priv->serial);
  if (priv->rate > 0) {
    GstFxCascadeDesign *d = design_locked(self, priv->rate, &err);
    if (d) {
      gst_fx_cascade_design_free(priv->pending);
      priv->pending = d;
      g_atomic_int_set(&priv->dirty, 1);
      gst_fx_refusal_clear(&priv->refusal);
    } else if (gst_fx_refusal_due(&priv->refusal, err)) {
      warn = g_steal_pointer(&err);
    }
  }
  GST_OBJECT_UNLOCK(self);

  if (warn) {
    GST_ELEMENT_WARNING(self, LIBRARY, SETTINGS, ("%s", warn),
                        ("parameter change refused; the previous coefficients stay in use"));
    g_free(warn);
  } else if (err) {
    GST_DEBUG_OBJECT(self, "parameter change refused (warning rate-limited): %s", err);
  }
  g_free(err);
}

static void gst_fx_iir_set_property(GObject *object, guint prop_id, const GValue *value,
                                    GParamSpec *pspec)
{
  GstFxIirPrivate *priv = PRIV(object);
  GstFxCommonProp which = gst_fx_common_prop_writable(prop_id, PROP_COMMON);

  if (gst_fx_quant_set_property(object, &priv->quant, prop_id, PROP_FORMAT, value))
    return;
  if (which == GST_FX_COMMON_PROP_COUNT) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    return;
  }
  GST_OBJECT_LOCK(object);
  if (gst_fx_common_settings_set(&priv->common, which, value)) {
    if (which == GST_FX_COMMON_PROP_PRECISION)
      priv->reconfigure = TRUE;
    g_atomic_int_set(&priv->dirty, 1);
  }
  GST_OBJECT_UNLOCK(object);
}

/* `designed-sections`: the design at the negotiated rate in fxsos syntax, or NULL. */
static gchar *designed_sections_string(GstFxIir *self)
{
  gint rate = gst_fx_iir_get_rate(self);
  fx_sos_t *sos = NULL;
  int n = 0;
  GString *s;

  if (rate <= 0 || !gst_fx_iir_get_sections(self, rate, &sos, &n, NULL))
    return NULL;
  s = g_string_new(NULL);
  for (int i = 0; i < n; i++) {
    const double row[6] = {sos[i].b0, sos[i].b1, sos[i].b2, 1.0, sos[i].a1, sos[i].a2};
    for (int j = 0; j < 6; j++) {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_string_append(s, i == 0 && j == 0 ? "" : j == 0 ? "; " : " ");
      g_string_append(s, g_ascii_formatd(buf, sizeof(buf), "%.17g", row[j]));
    }
  }
  g_free(sos);
  return g_string_free(s, FALSE);
}

static void gst_fx_iir_get_property(GObject *object, guint prop_id, GValue *value,
                                    GParamSpec *pspec)
{
  GstFxIirPrivate *priv = PRIV(object);

  if (gst_fx_common_settings_get_locked(GST_OBJECT(object), &priv->common, prop_id, PROP_COMMON,
                                        value))
    return;
  if (gst_fx_quant_get_property(object, &priv->quant, prop_id, PROP_FORMAT, value))
    return;
  switch (prop_id) {
  case PROP_DESIGNED_SECTIONS:
    g_value_take_string(value, designed_sections_string(GST_FX_IIR(object)));
    break;
  case PROP_COMMON + GST_FX_COMMON_PROP_DISPATCHES:
    g_mutex_lock(&priv->engine_lock);
    g_value_set_uint64(value, fx_cascade_dispatches(priv->cascade));
    g_mutex_unlock(&priv->engine_lock);
    break;
  case PROP_COMMON + GST_FX_COMMON_PROP_BACKEND:
    g_mutex_lock(&priv->engine_lock);
    g_value_set_string(value, priv->configured ? gst_fx_device_backend(&priv->dev, priv->cascade)
                                               : "none");
    g_mutex_unlock(&priv->engine_lock);
    break;
  case PROP_COMMON + GST_FX_COMMON_PROP_LAUNCHES:
    g_mutex_lock(&priv->engine_lock);
    g_value_set_uint64(value, gst_fx_device_launches(&priv->dev));
    g_mutex_unlock(&priv->engine_lock);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    break;
  }
}

/* engine_lock held. */
static fx_status_t install_locked(GstFxIir *self, const GstFxCascadeDesign *d)
{
  return fx_cascade_set_stages(PRIV(self)->cascade, d->stages, d->n_stages);
}

/* engine_lock held. */
static void reset_stream_locked(GstFxIir *self)
{
  GstFxIirPrivate *priv = PRIV(self);

  fx_cascade_reset(priv->cascade);
  /* History is gone, so the current sections apply at once again (no crossfade from zero). */
  if (priv->configured && priv->current)
    install_locked(self, priv->current);
  gst_fx_nonfinite_reset(&priv->nonfinite);
}

static gboolean gst_fx_iir_setup(GstAudioFilter *filter, const GstAudioInfo *info)
{
  GstFxIir *self = GST_FX_IIR(filter);
  GstFxIirPrivate *priv = PRIV(self);
  gint rate = GST_AUDIO_INFO_RATE(info);
  gint channels = GST_AUDIO_INFO_CHANNELS(info);
  GstAudioFormat afmt;
  GstAudioInfo work;
  fx_sample_format_t format;
  GstFxPrecision precision;
  gboolean warm_up;
  GstFxCascadeDesign *d;
  gchar *err = NULL;
  gboolean repeat = FALSE;
  fx_status_t st;

  /* S16 runs as F32 and S32 as F64, requantised on output (gstfxformat.h) */
  if (!gst_fx_quant_setup(GST_OBJECT(self), &priv->quant, info, &work)) {
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, (NULL), ("cannot allocate a scratch buffer"));
    return FALSE;
  }
  afmt = GST_AUDIO_INFO_FORMAT(&work);
  if (afmt == GST_AUDIO_FORMAT_F64)
    format = FX_SAMPLE_F64;
  else if (afmt == GST_AUDIO_FORMAT_F32)
    format = FX_SAMPLE_F32;
  else {
    GST_ERROR_OBJECT(self, "unsupported format %s", gst_audio_format_to_string(afmt));
    return FALSE;
  }

  g_mutex_lock(&priv->engine_lock);
  GST_OBJECT_LOCK(self);
  precision = priv->common.precision;
  warm_up = priv->common.warm_up;
  priv->reconfigure = FALSE;
  d = design_locked(self, rate, &err);
  if (d) {
    priv->rate = rate;
    g_clear_pointer(&priv->pending, gst_fx_cascade_design_free);
    gst_fx_refusal_clear(&priv->refusal);
    g_clear_pointer(&priv->last_error, g_free);
  } else {
    priv->rate = 0;
    repeat = g_strcmp0(priv->last_error, err) == 0;
    if (!repeat) {
      g_free(priv->last_error);
      priv->last_error = g_strdup(err);
    }
  }
  GST_OBJECT_UNLOCK(self);

  if (!d) {
    priv->configured = FALSE;
    g_mutex_unlock(&priv->engine_lock);
    if (repeat)
      GST_DEBUG_OBJECT(self, "same negotiation error again: %s", err);
    else
      GST_ELEMENT_ERROR(
          self, LIBRARY, SETTINGS, ("%s", err),
          ("cannot negotiate %d Hz, %d channel(s): the filter cannot be designed", rate, channels));
    g_free(err);
    return FALSE;
  }

  /* without warm-up the engine does not even allocate its input copy */
  fx_cascade_set_history(priv->cascade, warm_up);
  st = fx_cascade_configure(priv->cascade, channels, format, to_fx_precision(precision));
  if (st == FX_OK)
    st = install_locked(self, d);
  if (st != FX_OK) {
    priv->configured = FALSE;
    gst_fx_cascade_design_free(d);
    g_mutex_unlock(&priv->engine_lock);
    GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS,
                      ("the filter cannot run at %d Hz with %d channel(s): %s", rate, channels,
                       fx_status_string(st)),
                      (NULL));
    return FALSE;
  }
  fx_cascade_set_crossfade(priv->cascade, MAX(1, (size_t) lround(rate * FX_CROSSFADE_SECONDS)));
  gst_fx_cascade_design_free(priv->current);
  priv->current = d;
  priv->channels = channels;
  priv->format = format;
  priv->configured = TRUE;
  GST_INFO_OBJECT(self, "configured %d Hz, %d channel(s), %s, %d section(s), backend %s", rate,
                  channels, format == FX_SAMPLE_F64 ? "F64" : "F32", d->n_sections,
                  fx_cascade_backend(priv->cascade));
  g_mutex_unlock(&priv->engine_lock);
  return TRUE;
}

static gboolean gst_fx_iir_start(GstBaseTransform *trans)
{
  GstFxIirPrivate *priv = PRIV(trans);

  g_mutex_lock(&priv->engine_lock);
  reset_stream_locked(GST_FX_IIR(trans));
  fx_cascade_reset_dispatches(priv->cascade);
  gst_fx_quant_reset(GST_OBJECT(trans), &priv->quant);
  GST_OBJECT_LOCK(trans);
  priv->quant.clipped = 0;
  GST_OBJECT_UNLOCK(trans);
  gst_fx_device_state_clear(&priv->dev, priv->cascade);
  priv->dev.launches_prev = 0;
  g_mutex_unlock(&priv->engine_lock);
  GST_OBJECT_LOCK(trans);
  g_atomic_int_set(&priv->dirty, 1);
  g_clear_pointer(&priv->last_error, g_free);
  GST_OBJECT_UNLOCK(trans);
  return TRUE;
}

static gboolean gst_fx_iir_stop(GstBaseTransform *trans)
{
  GstFxIirPrivate *priv = PRIV(trans);

  g_mutex_lock(&priv->engine_lock);
  reset_stream_locked(GST_FX_IIR(trans));
  priv->configured = FALSE;
  gst_fx_device_state_clear(&priv->dev, priv->cascade); /* releases the GPU's resources */
  g_mutex_unlock(&priv->engine_lock);
  GST_OBJECT_LOCK(trans);
  priv->rate = 0;
  g_clear_pointer(&priv->pending, gst_fx_cascade_design_free);
  gst_fx_refusal_clear(&priv->refusal);
  g_clear_pointer(&priv->last_error, g_free);
  GST_OBJECT_UNLOCK(trans);
  return TRUE;
}

/* Per buffer: unchecked casts here and in transform_ip (GObject's checked casts are a visible
 * part of the per-buffer cost on short buffers; see docs/benchmarking.md). */
static void gst_fx_iir_before_transform(GstBaseTransform *trans, GstBuffer *buffer)
{
  GstFxIirClass *klass = GST_FX_IIR_GET_CLASS(trans);

  gst_fx_sync_controllers(trans, buffer);
  if (klass->sync_child_controllers)
    klass->sync_child_controllers((GstFxIir *) trans, &trans->segment,
                                  GST_BUFFER_TIMESTAMP(buffer));
}

static gboolean gst_fx_iir_sink_event(GstBaseTransform *trans, GstEvent *event)
{
  GstFxIirPrivate *priv = PRIV(trans);

  if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP) {
    GST_DEBUG_OBJECT(trans, "flush: resetting the filter history");
    g_mutex_lock(&priv->engine_lock);
    reset_stream_locked(GST_FX_IIR(trans));
    g_mutex_unlock(&priv->engine_lock);
  }
  return GST_BASE_TRANSFORM_CLASS(gst_fx_iir_parent_class)->sink_event(trans, event);
}

static GstFlowReturn gst_fx_iir_transform_ip(GstBaseTransform *trans, GstBuffer *buf)
{
  GstFxIir *self = (GstFxIir *) trans;
  GstFxIirPrivate *priv = PRIV(self);
  GstMapInfo map;
  GstFxCascadeDesign *pending = NULL;
  gboolean reconfigure, have_dev = FALSE;
  GstFxDevice device = GST_FX_DEVICE_AUTO;
  gboolean graphs = TRUE;
  guint scan_threshold = 0;
  gchar *warn_dev = NULL, *warn_fail = NULL;
  GstFxPrecision precision;
  gboolean warm_up;
  unsigned flags;
  guint count = 0, clipped;
  gsize bpf;
  size_t frames;
  gpointer data;
  GstClockTime ts = GST_BUFFER_PTS(buf);
  GstFlowReturn ret;

  bpf = GST_AUDIO_INFO_BPF(&((GstAudioFilter *) self)->info);
  ret = gst_fx_map_writable((GstElement *) self, bpf > 0, buf, &map);
  if (ret != GST_FLOW_OK)
    return ret;
  frames = map.size / bpf;
  /* an integer buffer is processed as floats in the scratch buffer */
  data = gst_fx_quant_begin(&priv->quant, map.data, frames);
  if (!data && frames > 0) { /* (an empty buffer maps to NULL) */
    gst_buffer_unmap(buf, &map);
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, (NULL), ("cannot grow the scratch buffer"));
    return GST_FLOW_ERROR;
  }

  g_mutex_lock(&priv->engine_lock);
  if (!priv->configured) {
    g_mutex_unlock(&priv->engine_lock);
    gst_buffer_unmap(buf, &map);
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, (NULL), ("the filter is not configured"));
    return GST_FLOW_NOT_NEGOTIATED;
  }

  /* Steady state: nothing to pick up, no object lock (see `dirty`). */
  reconfigure = FALSE;
  precision = GST_FX_PRECISION_AUTO;
  if (g_atomic_int_get(&priv->dirty)) {
    GST_OBJECT_LOCK(self);
    g_atomic_int_set(&priv->dirty, 0);
    if (priv->pending) {
      pending = g_steal_pointer(&priv->pending);
    }
    reconfigure = priv->reconfigure;
    priv->reconfigure = FALSE;
    precision = priv->common.precision;
    device = priv->common.device;
    graphs = priv->common.cuda_graphs;
    scan_threshold = priv->common.scan_threshold;
    warm_up = priv->common.warm_up;
    have_dev = TRUE;
    GST_OBJECT_UNLOCK(self);
    if (fx_cascade_set_history(priv->cascade, warm_up) != FX_OK)
      GST_WARNING_OBJECT(self, "warm-up: no memory for the input copy, staying without it");
  }

  if (reconfigure) {
    GST_INFO_OBJECT(self, "precision changed: reconfiguring (history reset)");
    fx_cascade_configure(priv->cascade, priv->channels, priv->format, to_fx_precision(precision));
    install_locked(self, priv->current);
  }
  if (pending) {
    fx_status_t st = install_locked(self, pending);
    if (st == FX_OK) {
      gst_fx_cascade_design_free(priv->current);
      priv->current = g_steal_pointer(&pending);
    } else {
      GST_WARNING_OBJECT(self, "new sections refused by the engine: %s", fx_status_string(st));
    }
  }

  if (have_dev)
    warn_dev = gst_fx_device_apply(&priv->dev, priv->cascade, device, graphs, scan_threshold);

  flags = fx_cascade_process(priv->cascade, data, frames);
  warn_fail = gst_fx_device_check(&priv->dev, priv->cascade);

  count = gst_fx_nonfinite_check(&priv->nonfinite, ts, (flags & FX_PROCESS_NONFINITE) != 0);
  g_mutex_unlock(&priv->engine_lock);
  clipped = gst_fx_quant_end((GstObject *) self, &priv->quant, map.data, frames, ts);
  gst_buffer_unmap(buf, &map);
  gst_fx_cascade_design_free(pending);

  if (warn_dev) {
    GST_ELEMENT_WARNING(self, RESOURCE, NOT_FOUND, ("%s", warn_dev), ("device=cuda: no GPU"));
    g_free(warn_dev);
  }
  if (warn_fail) {
    GST_ELEMENT_WARNING(self, RESOURCE, FAILED, ("%s", warn_fail), ("CUDA failure mid-stream"));
    g_free(warn_fail);
  }
  gst_fx_nonfinite_warn((GstElement *) self, count, GST_STREAM_ERROR_FAILED);
  gst_fx_quant_warn((GstElement *) self, &priv->quant, clipped);
  return GST_FLOW_OK;
}
