/* gst-fx — fxfir: FIR filter from a kernel or a windowed-sinc design.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:element-fxfir
 * @title: fxfir
 * @short_description: FIR filter: a kernel of taps or a windowed-sinc design (scipy firwin)
 *
 * Convolves every channel with a kernel: either the taps given in `kernel` (as
 * `audiofirfilter`'s), or a windowed-sinc design from `mode`, `cutoff` (low-pass, high-pass),
 * `lower-frequency`/`upper-frequency` (band-pass, band-reject), `num-taps`, `window` and
 * `kaiser-beta`, with the taps of `scipy.signal.firwin` (scale=True; high-pass and band-reject
 * need an odd `num-taps`). When `kernel` is set it wins: the design properties are then ignored
 * (an empty or non-finite kernel is refused, so a kernel cannot be unset; use a new element).
 * The output is `scipy.signal.lfilter(taps, 1, x)` per channel. The read-only `designed-taps`
 * holds the kernel for the negotiated rate (what `gst-fx response` evaluates).
 *
 * Short kernels (up to 160 taps in F32, 128 in F64: the measured crossover) run in direct form
 * (SIMD, chosen at run time); longer ones as a zero-latency partitioned convolution: the first 64
 * taps direct, the rest by uniformly partitioned overlap-save FFT convolution (FFTW) in levels of
 * growing block size (64, 512, 4096 frames). Neither adds latency (the LATENCY query adds 0).
 * With `max-latency` (frames) the element may trade latency for speed: kernels longer than 64
 * taps then run entirely as FFT convolution in power-of-two blocks within it (the fastest for
 * the length: 1024-2048 frames when allowed), several times cheaper for long kernels; the output is
 * delayed by that block, which the LATENCY query reports (a latency message is posted when it
 * changes) and the delayed tail is pushed at EOS. A kernel change once audio has flowed is
 * crossfaded over 5 ms; one made before the first buffer (after caps, a flush or a new stream)
 * applies from the first sample. Channels are filtered independently (each has its own
 * real-input transforms), so a channel's output never depends on its neighbours. The output
 * never depends on how the input is split into buffers.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 audiotestsrc wave=white-noise ! audioconvert ! fxfir cutoff=2000 num-taps=255 !
 * audioconvert ! autoaudiosink gst-launch-1.0 audiotestsrc ! audioconvert ! fxfir kernel="<0.25,
 * 0.5, 0.25>" ! audioconvert ! autoaudiosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstfxfir.h"
#include "gstfxcommon.h"
#include "gstfxpreset.h"
#include "gstfxformat.h"

#include "finite.h"
#include "fir.h"

GST_DEBUG_CATEGORY_STATIC(gst_fx_fir_debug);
#define GST_CAT_DEFAULT gst_fx_fir_debug

#define DEFAULT_MODE FX_MODE_LOW_PASS
#define DEFAULT_CUTOFF 1000.0
#define DEFAULT_LOWER 500.0
#define DEFAULT_UPPER 2000.0
#define DEFAULT_NUM_TAPS 101
#define DEFAULT_WINDOW FX_FIR_WINDOW_HAMMING
#define DEFAULT_BETA 8.6
#define DEFAULT_METHOD FX_FIR_METHOD_AUTO
#define DEFAULT_MAX_LATENCY 0
#define FADE_SECONDS 0.005

enum {
  PROP_0,
  PROP_KERNEL,
  PROP_MODE,
  PROP_CUTOFF,
  PROP_LOWER,
  PROP_UPPER,
  PROP_NUM_TAPS,
  PROP_WINDOW,
  PROP_KAISER_BETA,
  PROP_METHOD,
  PROP_MAX_LATENCY,
  PROP_BACKEND,
  PROP_TAPS,
  PROP_DESIGNED_TAPS,
};

struct _GstFxFir {
  GstAudioFilter parent;

  /* Settings (object lock). */
  gint mode, window, method, num_taps, max_latency;
  double cutoff, lower, upper, beta;
  GArray *kernel; /* doubles; NULL: use the design */
  guint serial;   /* bumped by every accepted change */

  /* Negotiated shape (object lock): rate 0 = not negotiated. */
  gint rate, channels;
  gboolean is_f64;
  fx_fir_engine_t *pending; /* built by a setter, installed by the streaming thread */
  guint pending_serial;
  GstFxRefusalLimit refusal; /* refused changes posted while playing */
  gchar *backend;            /* method of the engine running now */
  guint64 taps_now;
  guint64 latency_frames; /* latency of the engine running now */

  /* Streaming (engine_lock). */
  GMutex engine_lock;
  fx_fir_stream_t *stream;
  /* A frame has run through the stream since it was made or reset (caps, start, flush, stream
   * start). Until then a new kernel applies at once, from the first sample: there is no audio to
   * crossfade from. */
  gboolean flowed;
  GstFxNonfiniteLimit nonfinite;
  GstClockTime next_ts; /* end of the last input buffer, for the tail pushed at EOS */
  guint64 next_offset;
  GstFxQuant quant; /* integer streams (engine_lock; its settings under the object lock) */
};

/* dither, dither-seed, clipped: PROP_FORMAT + GstFxFormatProp (after the element's own ids) */
#define PROP_FORMAT 64

G_DEFINE_TYPE_WITH_CODE(GstFxFir, gst_fx_fir, GST_TYPE_AUDIO_FILTER,
                        G_IMPLEMENT_INTERFACE(GST_TYPE_PRESET, gst_fx_preset_interface_init))
GST_ELEMENT_REGISTER_DEFINE(fxfir, "fxfir", GST_RANK_NONE, GST_TYPE_FX_FIR);

GType gst_fx_fir_window_get_type(void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
      {FX_FIR_WINDOW_HAMMING, "Hamming", "hamming"},
      {FX_FIR_WINDOW_HANN, "Hann", "hann"},
      {FX_FIR_WINDOW_BLACKMAN, "Blackman", "blackman"},
      {FX_FIR_WINDOW_KAISER, "Kaiser (beta from kaiser-beta)", "kaiser"},
      {FX_FIR_WINDOW_RECTANGULAR, "Rectangular (no window)", "rectangular"},
      {0, NULL, NULL},
  };
  return gst_fx_enum_register_once(&type, "GstFxFirWindow", values);
}

GType gst_fx_fir_method_get_type(void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
      {FX_FIR_METHOD_AUTO,
       "Direct form up to 160 taps (F32) or 128 (F64), partitioned FFT convolution above", "auto"},
      {FX_FIR_METHOD_DIRECT, "Direct form (dot product per sample)", "direct"},
      {FX_FIR_METHOD_PARTITIONED, "Zero-latency partitioned FFT convolution", "partitioned"},
      {0, NULL, NULL},
  };
  return gst_fx_enum_register_once(&type, "GstFxFirMethod", values);
}

static void gst_fx_fir_finalize(GObject *object);
static gboolean gst_fx_fir_setup(GstAudioFilter *filter, const GstAudioInfo *info);
static gboolean gst_fx_fir_start(GstBaseTransform *trans);
static gboolean gst_fx_fir_stop(GstBaseTransform *trans);
static gboolean gst_fx_fir_sink_event(GstBaseTransform *trans, GstEvent *event);
static gboolean gst_fx_fir_query(GstBaseTransform *trans, GstPadDirection direction,
                                 GstQuery *query);
static void gst_fx_fir_before_transform(GstBaseTransform *trans, GstBuffer *buffer);
static GstFlowReturn gst_fx_fir_transform_ip(GstBaseTransform *trans, GstBuffer *buf);

static const GstFxPropField fir_fields[] = {
    {PROP_MODE, G_TYPE_ENUM, G_STRUCT_OFFSET(GstFxFir, mode)},
    {PROP_CUTOFF, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxFir, cutoff)},
    {PROP_LOWER, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxFir, lower)},
    {PROP_UPPER, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxFir, upper)},
    {PROP_NUM_TAPS, G_TYPE_INT, G_STRUCT_OFFSET(GstFxFir, num_taps)},
    {PROP_WINDOW, G_TYPE_ENUM, G_STRUCT_OFFSET(GstFxFir, window)},
    {PROP_KAISER_BETA, G_TYPE_DOUBLE, G_STRUCT_OFFSET(GstFxFir, beta)},
    {PROP_METHOD, G_TYPE_ENUM, G_STRUCT_OFFSET(GstFxFir, method)},
    {PROP_MAX_LATENCY, G_TYPE_INT, G_STRUCT_OFFSET(GstFxFir, max_latency)},
};

/* ------------------------------------------------------------------------------------------- */
/* taps: the kernel or the design, validated against the rate */

/* Object lock held. Returns the taps (g_free) or NULL with *error set (names the property, its
 * value and the allowed range). */
static double *taps_locked(GstFxFir *self, gint rate, size_t *n_taps, gchar **error)
{
  fx_fir_spec_t spec;
  fx_status_t st;
  double *taps, nyq = 0.5 * rate;

  if (self->kernel) {
    *n_taps = self->kernel->len;
    return g_memdup2(self->kernel->data, self->kernel->len * sizeof(double));
  }
  spec.mode = (fx_mode_t) self->mode;
  spec.num_taps = (size_t) self->num_taps;
  spec.rate = rate;
  spec.cutoff = self->cutoff;
  spec.lower = self->lower;
  spec.upper = self->upper;
  spec.window = (fx_fir_window_t) self->window;
  spec.beta = self->beta;
  st = fx_fir_spec_check(&spec);
  switch (st) {
  case FX_OK:
    break;
  case FX_ERR_CUTOFF:
    *error = g_strdup_printf("cutoff=%g Hz is out of range at %d Hz: must be inside (0, %g) Hz",
                             self->cutoff, rate, nyq);
    return NULL;
  case FX_ERR_LOWER:
    *error =
        g_strdup_printf("lower-frequency=%g Hz is out of range at %d Hz: must be inside (0, %g) Hz",
                        self->lower, rate, nyq);
    return NULL;
  case FX_ERR_UPPER:
    *error =
        g_strdup_printf("upper-frequency=%g Hz is out of range at %d Hz: must be inside (0, %g) Hz",
                        self->upper, rate, nyq);
    return NULL;
  case FX_ERR_BAND:
    *error = g_strdup_printf("lower-frequency=%g Hz must be below upper-frequency=%g Hz",
                             self->lower, self->upper);
    return NULL;
  case FX_ERR_EVEN_TAPS:
    *error = g_strdup_printf("num-taps=%d must be odd for mode=%s (the filter passes Nyquist); "
                             "allowed: odd values in 1..%d",
                             self->num_taps,
                             self->mode == FX_MODE_HIGH_PASS ? "high-pass" : "band-reject",
                             (int) FX_FIR_MAX_TAPS - 1);
    return NULL;
  case FX_ERR_TAPS:
    *error = g_strdup_printf("num-taps=%d is out of range: must be 1..%d", self->num_taps,
                             (int) FX_FIR_MAX_TAPS);
    return NULL;
  case FX_ERR_BETA:
    *error = g_strdup_printf("kaiser-beta=%g is out of range: must be 0..%g", self->beta,
                             FX_FIR_MAX_BETA);
    return NULL;
  default:
    *error =
        g_strdup_printf("cannot design the filter at %d Hz: %s", rate, fx_fir_status_string(st));
    return NULL;
  }
  taps = g_new(double, spec.num_taps);
  st = fx_fir_design(&spec, taps);
  if (st != FX_OK) {
    g_free(taps);
    *error =
        g_strdup_printf("cannot design the filter at %d Hz: %s", rate, fx_fir_status_string(st));
    return NULL;
  }
  *n_taps = spec.num_taps;
  return taps;
}

static fx_fir_engine_t *build_engine(const double *taps, size_t n, gint channels, gboolean is_f64,
                                     gint method, gint max_latency, gchar **error)
{
  fx_fir_options_t opt = {(fx_fir_method_t) method, 0, 0, 0, 0, -1, (size_t) max_latency};
  fx_status_t st;
  fx_fir_engine_t *e = fx_fir_engine_new(taps, n, channels, is_f64, &opt, &st);

  if (!e)
    *error = g_strdup_printf("cannot run %zu taps on %d channel(s): %s", n, channels,
                             fx_fir_status_string(st));
  return e;
}

/* After an accepted property change: when negotiated, designs and builds the new engine in this
 * thread (the streaming thread installs it with a crossfade); a design refused at the current
 * rate is posted as a warning (rate-limited) and the previous kernel stays. */
static void parameters_changed(GstFxFir *self)
{
  gchar *err = NULL, *warn = NULL;
  double *taps = NULL;
  size_t n = 0;
  gint rate, channels, method, max_latency;
  gboolean is_f64;
  guint serial;
  fx_fir_engine_t *e = NULL;

  GST_OBJECT_LOCK(self);
  serial = ++self->serial;
  rate = self->rate;
  channels = self->channels;
  is_f64 = self->is_f64;
  method = self->method;
  max_latency = self->max_latency;
  if (rate > 0)
    taps = taps_locked(self, rate, &n, &err);
  GST_OBJECT_UNLOCK(self);
  if (rate <= 0)
    return;
  if (taps) {
    e = build_engine(taps, n, channels, is_f64, method, max_latency, &err);
    g_free(taps);
  }
  GST_OBJECT_LOCK(self);
  if (e) {
    /* a later change (or a negotiation, which designs from all settings so far) may have
     * overtaken this one while it was being built: only a newer build replaces what was handed
     * over last */
    if (serial - self->pending_serial - 1 < G_MAXUINT / 2) {
      fx_fir_engine_free(self->pending);
      self->pending = e;
      self->pending_serial = serial;
    } else {
      fx_fir_engine_free(e);
    }
    gst_fx_refusal_clear(&self->refusal);
  } else if (err && gst_fx_refusal_due(&self->refusal, err)) {
    warn = g_steal_pointer(&err);
  }
  GST_OBJECT_UNLOCK(self);
  if (warn) {
    GST_ELEMENT_WARNING(self, LIBRARY, SETTINGS, ("%s", warn),
                        ("parameter change refused; the previous kernel stays in use"));
    g_free(warn);
  } else if (err) {
    GST_DEBUG_OBJECT(self, "parameter change refused (warning rate-limited): %s", err);
  }
  g_free(err);
}

/* ------------------------------------------------------------------------------------------- */
/* properties */

static gboolean set_kernel(GstFxFir *self, const GValue *value)
{
  guint n = gst_value_array_get_size(value);
  GArray *k;
  gchar *refusal = NULL;

  if (n == 0)
    refusal = g_strdup("kernel is empty: it needs at least one tap");
  else if (n > FX_FIR_MAX_TAPS)
    refusal =
        g_strdup_printf("kernel has %u taps: at most %u are allowed", n, (guint) FX_FIR_MAX_TAPS);
  k = g_array_sized_new(FALSE, FALSE, sizeof(double), n);
  for (guint i = 0; i < n && !refusal; i++) {
    const GValue *v = gst_value_array_get_value(value, i);
    double d;
    if (G_VALUE_HOLDS_DOUBLE(v))
      d = g_value_get_double(v);
    else if (G_VALUE_HOLDS_FLOAT(v))
      d = g_value_get_float(v);
    else if (G_VALUE_HOLDS_INT(v))
      d = g_value_get_int(v);
    else {
      refusal = g_strdup_printf("kernel tap %u is not a number (%s)", i, G_VALUE_TYPE_NAME(v));
      break;
    }
    if (!isfinite(d)) {
      refusal = g_strdup_printf("kernel tap %u is %g: every tap must be finite", i, d);
      break;
    }
    g_array_append_val(k, d);
  }
  if (refusal) {
    g_array_unref(k);
    GST_WARNING_OBJECT(self, "%s", refusal);
    GST_ELEMENT_WARNING(self, LIBRARY, SETTINGS, ("%s; the previous kernel stays", refusal),
                        ("property kernel refused"));
    g_free(refusal);
    return FALSE;
  }
  GST_OBJECT_LOCK(self);
  if (self->kernel)
    g_array_unref(self->kernel);
  self->kernel = k;
  GST_OBJECT_UNLOCK(self);
  return TRUE;
}

static void gst_fx_fir_set_property(GObject *object, guint prop_id, const GValue *value,
                                    GParamSpec *pspec)
{
  GstFxFir *self = GST_FX_FIR(object);

  if (gst_fx_quant_set_property(object, &self->quant, prop_id, PROP_FORMAT, value))
    return;
  if (prop_id == PROP_KERNEL) {
    if (set_kernel(self, value))
      parameters_changed(self);
    return;
  }
  {
    /* A controller sets its properties before every buffer: an unchanged value must not rebuild
     * the engine (and crossfade to an identical kernel). */
    GValue old = G_VALUE_INIT;
    gboolean same;
    g_value_init(&old, G_PARAM_SPEC_VALUE_TYPE(pspec));
    gst_fx_props_get(object, object, fir_fields, G_N_ELEMENTS(fir_fields), prop_id, &old, pspec);
    same = g_param_values_cmp(pspec, &old, value) == 0;
    g_value_unset(&old);
    if (same)
      return;
  }
  if (gst_fx_props_set(object, self, fir_fields, G_N_ELEMENTS(fir_fields), prop_id, value, pspec))
    parameters_changed(self);
}

static void gst_fx_fir_get_property(GObject *object, guint prop_id, GValue *value,
                                    GParamSpec *pspec)
{
  GstFxFir *self = GST_FX_FIR(object);

  if (gst_fx_quant_get_property(object, &self->quant, prop_id, PROP_FORMAT, value))
    return;
  switch (prop_id) {
  case PROP_KERNEL:
    GST_OBJECT_LOCK(self);
    if (self->kernel) {
      for (guint i = 0; i < self->kernel->len; i++) {
        GValue v = G_VALUE_INIT;
        g_value_init(&v, G_TYPE_DOUBLE);
        g_value_set_double(&v, g_array_index(self->kernel, double, i));
        gst_value_array_append_and_take_value(value, &v);
      }
    }
    GST_OBJECT_UNLOCK(self);
    break;
  case PROP_BACKEND:
    GST_OBJECT_LOCK(self);
    g_value_set_string(value, self->backend ? self->backend : "none");
    GST_OBJECT_UNLOCK(self);
    break;
  case PROP_TAPS:
    GST_OBJECT_LOCK(self);
    g_value_set_uint64(value, self->taps_now);
    GST_OBJECT_UNLOCK(self);
    break;
  case PROP_DESIGNED_TAPS: {
    /* the kernel the settings give at the negotiated rate (what `gst-fx response` evaluates) */
    double *taps = NULL;
    size_t n = 0;
    gchar *err = NULL;
    GST_OBJECT_LOCK(self);
    if (self->rate > 0)
      taps = taps_locked(self, self->rate, &n, &err);
    GST_OBJECT_UNLOCK(self);
    for (size_t i = 0; taps != NULL && i < n; i++) {
      GValue v = G_VALUE_INIT;
      g_value_init(&v, G_TYPE_DOUBLE);
      g_value_set_double(&v, taps[i]);
      gst_value_array_append_and_take_value(value, &v);
    }
    g_free(taps);
    g_free(err);
    break;
  }
  default:
    gst_fx_props_get(object, object, fir_fields, G_N_ELEMENTS(fir_fields), prop_id, value, pspec);
    break;
  }
}

static void gst_fx_fir_class_init(GstFxFirClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  GstAudioFilterClass *filter_class = GST_AUDIO_FILTER_CLASS(klass);

  GST_DEBUG_CATEGORY_INIT(gst_fx_fir_debug, "fxfir", 0, "FIR filter");

  gobject_class->set_property = gst_fx_fir_set_property;
  gobject_class->get_property = gst_fx_fir_get_property;
  gobject_class->finalize = gst_fx_fir_finalize;

  /* No element spec: GLib would refuse a NaN tap with a g_warning on stderr only; set_kernel()
   * checks every tap and refuses a non-number or non-finite one with a bus warning naming the
   * property. */
  g_object_class_install_property(
      gobject_class, PROP_KERNEL,
      gst_param_spec_array("kernel", "Kernel",
                           "Filter taps (doubles; the first tap applies to the newest sample); "
                           "when set, it is used instead of the design properties. Empty or "
                           "non-finite kernels are refused",
                           NULL,
                           G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property(
      gobject_class, PROP_MODE,
      g_param_spec_enum("mode", "Mode",
                        "Design mode: low-pass or high-pass at cutoff, band-pass or band-reject "
                        "between lower-frequency and upper-frequency",
                        GST_TYPE_FX_FILTER_MODE, DEFAULT_MODE, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_CUTOFF,
      g_param_spec_double("cutoff", "Cutoff",
                          "Cutoff frequency in Hz (-6 dB) for low-pass and high-pass designs; "
                          "must be inside (0, rate/2)",
                          G_MINDOUBLE, GST_FX_MAX_FREQUENCY, DEFAULT_CUTOFF,
                          GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_LOWER,
      g_param_spec_double("lower-frequency", "Lower frequency",
                          "Lower band edge in Hz for band-pass and band-reject designs; must be "
                          "inside (0, upper-frequency)",
                          G_MINDOUBLE, GST_FX_MAX_FREQUENCY, DEFAULT_LOWER,
                          GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_UPPER,
      g_param_spec_double("upper-frequency", "Upper frequency",
                          "Upper band edge in Hz for band-pass and band-reject designs; must be "
                          "inside (lower-frequency, rate/2)",
                          G_MINDOUBLE, GST_FX_MAX_FREQUENCY, DEFAULT_UPPER,
                          GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_NUM_TAPS,
      g_param_spec_int("num-taps", "Number of taps",
                       "Length of the designed kernel (odd for high-pass and band-reject)", 1,
                       (gint) FX_FIR_MAX_TAPS, DEFAULT_NUM_TAPS, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(gobject_class, PROP_WINDOW,
                                  g_param_spec_enum("window", "Window", "Window of the design",
                                                    GST_TYPE_FX_FIR_WINDOW, DEFAULT_WINDOW,
                                                    GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_KAISER_BETA,
      g_param_spec_double("kaiser-beta", "Kaiser beta", "Shape parameter of the Kaiser window", 0.0,
                          FX_FIR_MAX_BETA, DEFAULT_BETA, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_METHOD,
      g_param_spec_enum("method", "Method",
                        "Convolution algorithm (auto picks by kernel length; both add no "
                        "latency and give the same output up to rounding)",
                        GST_TYPE_FX_FIR_METHOD, DEFAULT_METHOD,
                        G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property(
      gobject_class, PROP_MAX_LATENCY,
      g_param_spec_int("max-latency", "Maximum latency",
                       "Frames of latency the element may add for speed (0: none). From 64 on, "
                       "kernels longer than 64 taps run as FFT convolution in power-of-two "
                       "blocks within it (the fastest for the length, 1024-2048 frames when "
                       "allowed): the output is delayed by that block (reported in the LATENCY "
                       "query; the tail is pushed at EOS)",
                       0, (gint) FX_FIR_MAX_LATENCY, DEFAULT_MAX_LATENCY,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property(
      gobject_class, PROP_BACKEND,
      g_param_spec_string("backend", "Backend",
                          "What runs now: direct-<isa> or partitioned-<isa>, or none", "none",
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property(
      gobject_class, PROP_TAPS,
      g_param_spec_uint64("taps", "Taps", "Length of the kernel that runs now (0 before caps)", 0,
                          G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property(
      gobject_class, PROP_DESIGNED_TAPS,
      gst_param_spec_array("designed-taps", "Designed taps",
                           "The kernel for the negotiated rate: kernel when set, else the design "
                           "(doubles, the first tap applies to the newest sample; empty before "
                           "negotiation or when the design is refused at that rate)",
                           NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_set_static_metadata(
      element_class, "FIR filter", "Filter/Effect/Audio",
      "FIR filter from a kernel of taps or a windowed-sinc design (scipy firwin); direct form "
      "for short kernels, zero-latency partitioned FFT convolution for long ones",
      "gst-fx developers");

  gst_fx_install_format_properties(gobject_class, PROP_FORMAT);
  gst_fx_add_audio_pad_templates(filter_class);

  filter_class->setup = GST_DEBUG_FUNCPTR(gst_fx_fir_setup);
  trans_class->start = GST_DEBUG_FUNCPTR(gst_fx_fir_start);
  trans_class->stop = GST_DEBUG_FUNCPTR(gst_fx_fir_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR(gst_fx_fir_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR(gst_fx_fir_query);
  trans_class->before_transform = GST_DEBUG_FUNCPTR(gst_fx_fir_before_transform);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR(gst_fx_fir_transform_ip);
  trans_class->transform_ip_on_passthrough = FALSE;

  gst_type_mark_as_plugin_api(GST_TYPE_FX_FIR_WINDOW, 0);
  gst_type_mark_as_plugin_api(GST_TYPE_FX_FIR_METHOD, 0);
}

static void gst_fx_fir_init(GstFxFir *self)
{
  self->mode = DEFAULT_MODE;
  self->cutoff = DEFAULT_CUTOFF;
  self->lower = DEFAULT_LOWER;
  self->upper = DEFAULT_UPPER;
  self->num_taps = DEFAULT_NUM_TAPS;
  self->window = DEFAULT_WINDOW;
  self->beta = DEFAULT_BETA;
  self->method = DEFAULT_METHOD;
  self->max_latency = DEFAULT_MAX_LATENCY;
  self->next_ts = GST_CLOCK_TIME_NONE;
  g_mutex_init(&self->engine_lock);
  gst_fx_quant_init(&self->quant);
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
}

static void gst_fx_fir_finalize(GObject *object)
{
  GstFxFir *self = GST_FX_FIR(object);

  if (self->kernel)
    g_array_unref(self->kernel);
  fx_fir_engine_free(self->pending);
  fx_fir_stream_free(self->stream);
  gst_fx_refusal_clear(&self->refusal);
  g_free(self->backend);
  g_mutex_clear(&self->engine_lock);
  gst_fx_quant_clear(&self->quant);
  G_OBJECT_CLASS(gst_fx_fir_parent_class)->finalize(object);
}

/* ------------------------------------------------------------------------------------------- */
/* streaming */

/* engine_lock held: what runs now, for the read-only properties and the latency query.
 * Returns TRUE when the latency changed (the caller posts a latency message, unlocked). */
static gboolean update_backend_locked(GstFxFir *self)
{
  const fx_fir_engine_t *e = self->stream ? fx_fir_stream_engine(self->stream) : NULL;
  guint64 latency = e ? fx_fir_engine_latency(e) : 0;
  gboolean changed;

  GST_OBJECT_LOCK(self);
  g_free(self->backend);
  self->backend = g_strdup(e ? fx_fir_engine_method(e) : "none");
  self->taps_now = e ? fx_fir_engine_taps(e) : 0;
  changed = latency != self->latency_frames;
  self->latency_frames = latency;
  GST_OBJECT_UNLOCK(self);
  return changed;
}

static gboolean gst_fx_fir_setup(GstAudioFilter *filter, const GstAudioInfo *info)
{
  GstFxFir *self = GST_FX_FIR(filter);
  gint rate = GST_AUDIO_INFO_RATE(info), channels = GST_AUDIO_INFO_CHANNELS(info);
  /* S16 runs as F32 and S32 as F64, requantised on output (gstfxformat.h) */
  GstAudioFormat afmt = GST_AUDIO_INFO_FORMAT(info);
  gboolean is_f64 = afmt == GST_AUDIO_FORMAT_F64 || afmt == GST_AUDIO_FORMAT_S32;
  GstAudioInfo work;
  gchar *err = NULL;
  double *taps;
  size_t n = 0;
  gint method, max_latency;
  fx_fir_engine_t *e = NULL;
  fx_fir_stream_t *stream;
  gboolean latency_changed, changed_meanwhile;
  guint design_serial;

  if (afmt != GST_AUDIO_FORMAT_F64 && afmt != GST_AUDIO_FORMAT_F32 &&
      afmt != GST_AUDIO_FORMAT_S16 && afmt != GST_AUDIO_FORMAT_S32)
    return FALSE;

  GST_OBJECT_LOCK(self);
  taps = taps_locked(self, rate, &n, &err);
  method = self->method;
  max_latency = self->max_latency;
  design_serial = self->serial;
  GST_OBJECT_UNLOCK(self);
  if (taps) {
    e = build_engine(taps, n, channels, is_f64, method, max_latency, &err);
    g_free(taps);
  }
  if (!e) {
    GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("%s", err),
                      ("cannot negotiate %d Hz, %d channel(s)", rate, channels));
    g_free(err);
    return FALSE;
  }
  stream = fx_fir_stream_new(channels, is_f64, MAX(1, (size_t) lround(rate * FADE_SECONDS)));
  if (!stream || fx_fir_stream_set_engine(stream, e, TRUE) != FX_OK) {
    if (!stream)
      fx_fir_engine_free(e);
    fx_fir_stream_free(stream);
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, ("out of memory"),
                      ("%zu taps, %d channel(s)", n, channels));
    return FALSE;
  }

  g_mutex_lock(&self->engine_lock);
  if (!gst_fx_quant_setup(GST_OBJECT(self), &self->quant, info, &work)) {
    g_mutex_unlock(&self->engine_lock);
    fx_fir_stream_free(stream);
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, (NULL), ("cannot allocate a scratch buffer"));
    return FALSE;
  }
  fx_fir_stream_free(self->stream);
  self->stream = stream;
  self->flowed = FALSE;
  GST_OBJECT_LOCK(self);
  self->rate = rate;
  self->channels = channels;
  self->is_f64 = is_f64;
  g_clear_pointer(&self->pending, fx_fir_engine_free);
  /* builds started before this design are stale; a change since it was made (seen by its setter
   * before the rate was known, or built for the old shape) is built again below */
  self->pending_serial = design_serial;
  changed_meanwhile = self->serial != design_serial;
  gst_fx_refusal_clear(&self->refusal);
  GST_OBJECT_UNLOCK(self);
  latency_changed = update_backend_locked(self);
  g_mutex_unlock(&self->engine_lock);
  if (changed_meanwhile)
    parameters_changed(self);
  if (latency_changed)
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_latency(GST_OBJECT(self)));
  GST_INFO_OBJECT(self, "configured %d Hz, %d channel(s), %s, %zu taps, %s", rate, channels,
                  is_f64 ? "F64" : "F32", n, self->backend);
  return TRUE;
}

static void reset_locked(GstFxFir *self)
{
  if (self->stream)
    fx_fir_stream_reset(self->stream);
  gst_fx_nonfinite_reset(&self->nonfinite);
  gst_fx_quant_reset(GST_OBJECT(self), &self->quant);
  self->flowed = FALSE;
  self->next_ts = GST_CLOCK_TIME_NONE;
  self->next_offset = 0;
}

static gboolean gst_fx_fir_start(GstBaseTransform *trans)
{
  GstFxFir *self = GST_FX_FIR(trans);

  g_mutex_lock(&self->engine_lock);
  reset_locked(self);
  g_mutex_unlock(&self->engine_lock);
  GST_OBJECT_LOCK(self);
  self->quant.clipped = 0;
  GST_OBJECT_UNLOCK(self);
  return TRUE;
}

static gboolean gst_fx_fir_stop(GstBaseTransform *trans)
{
  GstFxFir *self = GST_FX_FIR(trans);

  g_mutex_lock(&self->engine_lock);
  g_clear_pointer(&self->stream, fx_fir_stream_free);
  GST_OBJECT_LOCK(self);
  self->rate = 0;
  g_clear_pointer(&self->pending, fx_fir_engine_free);
  GST_OBJECT_UNLOCK(self);
  (void) update_backend_locked(self);
  g_mutex_unlock(&self->engine_lock);
  return TRUE;
}

/* With a latency (max-latency) the output is the filtered signal delayed by that many frames:
 * at EOS the last of it is still inside the engine, so push it as one more buffer (the filter's
 * response to that many frames of silence) so that nothing is lost. */
static void drain(GstFxFir *self)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM(self);
  GstAudioFilter *filter = GST_AUDIO_FILTER(self);
  gsize bpf = GST_AUDIO_INFO_BPF(&filter->info);
  gint rate = GST_AUDIO_INFO_RATE(&filter->info);
  GstBuffer *buf = NULL;
  GstMapInfo map;
  guint64 frames;
  guint clip_warn = 0;

  g_mutex_lock(&self->engine_lock);
  GST_OBJECT_LOCK(self);
  frames = self->latency_frames;
  GST_OBJECT_UNLOCK(self);
  if (self->stream && frames > 0 && bpf > 0 && rate > 0) {
    buf = gst_buffer_new_allocate(NULL, frames * bpf, NULL);
    if (buf && gst_buffer_map(buf, &map, GST_MAP_READWRITE)) {
      gpointer work;
      memset(map.data, 0, map.size);
      work = gst_fx_quant_begin(&self->quant, map.data, frames);
      if (work) {
        fx_fir_stream_process(self->stream, work, work, frames);
        clip_warn =
            gst_fx_quant_end((GstObject *) self, &self->quant, map.data, frames, self->next_ts);
      }
      gst_buffer_unmap(buf, &map);
      GST_BUFFER_PTS(buf) = self->next_ts;
      if (GST_CLOCK_TIME_IS_VALID(self->next_ts))
        GST_BUFFER_DURATION(buf) = gst_util_uint64_scale_int(frames, GST_SECOND, rate);
      GST_BUFFER_OFFSET(buf) = self->next_offset;
      GST_BUFFER_OFFSET_END(buf) = self->next_offset + frames;
    } else {
      g_clear_pointer(&buf, gst_buffer_unref);
    }
  }
  g_mutex_unlock(&self->engine_lock);
  gst_fx_quant_warn((GstElement *) self, &self->quant, clip_warn);
  if (buf) {
    GstFlowReturn ret = gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(trans), buf);
    GST_DEBUG_OBJECT(self, "pushed the %" G_GUINT64_FORMAT "-frame tail at EOS: %s", frames,
                     gst_flow_get_name(ret));
  }
}

static gboolean gst_fx_fir_sink_event(GstBaseTransform *trans, GstEvent *event)
{
  GstFxFir *self = GST_FX_FIR(trans);

  if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP ||
      GST_EVENT_TYPE(event) == GST_EVENT_STREAM_START) {
    g_mutex_lock(&self->engine_lock);
    reset_locked(self);
    g_mutex_unlock(&self->engine_lock);
  } else if (GST_EVENT_TYPE(event) == GST_EVENT_EOS) {
    drain(self);
  }
  return GST_BASE_TRANSFORM_CLASS(gst_fx_fir_parent_class)->sink_event(trans, event);
}

/* Answers the upstream latency plus ours: 0 unless max-latency lets a long kernel run with FFT
 * blocks (then the block size, see fx_fir_engine_latency()). */
static gboolean gst_fx_fir_query(GstBaseTransform *trans, GstPadDirection direction,
                                 GstQuery *query)
{
  GstFxFir *self = GST_FX_FIR(trans);
  gboolean ret;

  if (gst_fx_query_caps_ours_first(trans, direction, query,
                                   GST_BASE_TRANSFORM_CLASS(gst_fx_fir_parent_class), &ret))
    return ret;
  ret = GST_BASE_TRANSFORM_CLASS(gst_fx_fir_parent_class)->query(trans, direction, query);

  if (ret && GST_QUERY_TYPE(query) == GST_QUERY_LATENCY && direction == GST_PAD_SRC) {
    GstClockTime ours = 0;
    gint rate;
    size_t frames = 0;

    GST_OBJECT_LOCK(self);
    rate = self->rate;
    frames = self->latency_frames;
    GST_OBJECT_UNLOCK(self);
    if (rate > 0)
      ours = gst_util_uint64_scale_int(frames, GST_SECOND, rate);
    gst_fx_query_add_latency(query, ours);
  }
  return ret;
}

static void gst_fx_fir_before_transform(GstBaseTransform *trans, GstBuffer *buffer)
{
  gst_fx_sync_controllers(trans, buffer);
}

static GstFlowReturn gst_fx_fir_transform_ip(GstBaseTransform *trans, GstBuffer *buf)
{
  GstFxFir *self = GST_FX_FIR(trans);
  GstAudioFilter *filter = GST_AUDIO_FILTER(trans);
  gsize bpf = GST_AUDIO_INFO_BPF(&filter->info);
  gint channels = GST_AUDIO_INFO_CHANNELS(&filter->info);
  gboolean is_f64 = self->is_f64;
  fx_fir_engine_t *pending;
  GstMapInfo map;
  gboolean nonfinite = FALSE, latency_changed = FALSE;
  guint warn = 0, clip_warn = 0;
  gpointer data;
  size_t frames;
  gint rate = GST_AUDIO_INFO_RATE(&filter->info);

  g_mutex_lock(&self->engine_lock);
  if (!self->stream || bpf == 0) {
    g_mutex_unlock(&self->engine_lock);
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, (NULL), ("buffer before caps"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  GST_OBJECT_LOCK(self);
  pending = self->pending;
  self->pending = NULL;
  GST_OBJECT_UNLOCK(self);
  if (pending) {
    /* A kernel set after caps but before any audio (or since a flush) applies from the first
     * sample; once audio has run, it is crossfaded in. The setter hands the engine over before
     * its set_property returns, so a setting made before the first buffer is always seen here,
     * whichever thread made it. */
    if (fx_fir_stream_set_engine(self->stream, pending, !self->flowed) != FX_OK)
      GST_WARNING_OBJECT(self, "new kernel could not be installed (shape or memory)");
  }
  if (!gst_buffer_map(buf, &map, GST_MAP_READWRITE)) {
    g_mutex_unlock(&self->engine_lock);
    GST_ELEMENT_ERROR(self, RESOURCE, WRITE, (NULL), ("cannot map the buffer writable"));
    return GST_FLOW_ERROR;
  }
  frames = map.size / bpf;
  /* an integer buffer is processed as floats in the scratch buffer, then requantised */
  data = frames > 0 ? gst_fx_quant_begin(&self->quant, map.data, frames) : NULL;
  if (data) {
    /* NaN/Inf become 0 before the history sees them: one bad sample costs one output sample */
    nonfinite = fx_zero_nonfinite(data, frames * (size_t) channels, is_f64) > 0;
    fx_fir_stream_process(self->stream, data, data, frames);
    warn = gst_fx_nonfinite_check(&self->nonfinite, GST_BUFFER_PTS(buf), nonfinite);
    clip_warn =
        gst_fx_quant_end((GstObject *) self, &self->quant, map.data, frames, GST_BUFFER_PTS(buf));
  } else if (frames > 0) {
    g_mutex_unlock(&self->engine_lock);
    gst_buffer_unmap(buf, &map);
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, (NULL), ("cannot grow the scratch buffer"));
    return GST_FLOW_ERROR;
  }
  if (pending || fx_fir_stream_fading(self->stream))
    latency_changed = update_backend_locked(self);
  if (GST_BUFFER_PTS_IS_VALID(buf) && GST_BUFFER_DURATION_IS_VALID(buf))
    self->next_ts = GST_BUFFER_PTS(buf) + GST_BUFFER_DURATION(buf);
  else if (GST_BUFFER_PTS_IS_VALID(buf) && rate > 0)
    self->next_ts = GST_BUFFER_PTS(buf) + gst_util_uint64_scale_int(frames, GST_SECOND, rate);
  if (GST_BUFFER_OFFSET_IS_VALID(buf))
    self->next_offset = GST_BUFFER_OFFSET(buf) + frames;
  if (frames > 0)
    self->flowed = TRUE; /* from now on a kernel change is crossfaded */
  g_mutex_unlock(&self->engine_lock);
  gst_buffer_unmap(buf, &map);
  if (latency_changed)
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_latency(GST_OBJECT(self)));
  gst_fx_nonfinite_warn(GST_ELEMENT(self), warn, GST_STREAM_ERROR_DECODE);
  gst_fx_quant_warn((GstElement *) self, &self->quant, clip_warn);
  return GST_FLOW_OK;
}
