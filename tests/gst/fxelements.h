/* gst-fx — the elements of the fx plugin enumerated at run time, for tests that must cover every
 * element, including elements added later (stress and extreme-input tests).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Elements come from the registry (the features of the plugin "fx" that are element factories
 * with one always sink and one always src pad). Their DSP parameters come from their GParamSpecs
 * (writable and GST_PARAM_CONTROLLABLE). Only elements that need special setup to run, or whose
 * output is not one buffer of the input's size per input buffer, need a line in fx_known[]; an
 * element without one is still covered with weaker assertions (no error, no crash, finite output,
 * at least as many output samples as input samples once EOS has been handled). */
#ifndef FX_ELEMENTS_H
#define FX_ELEMENTS_H

#include <gst/controller/controller.h>

#include "fxtest.h"

typedef struct {
  const char *name;
  /* Launch-line properties the element needs to run (e.g. fxsos's sections). */
  const char *setup;
  /* One output buffer of the input buffer's size per input buffer, in the streaming thread. */
  gboolean exact;
  /* Each channel is filtered independently by the same filter (a 1024-channel stream equals 1024
   * mono streams). */
  gboolean independent;
  /* Non-finite input samples are replaced by 0 and post exactly one (rate-limited) warning per
   * burst window (DESIGN: "Bad input"). */
  gboolean warns_nonfinite;
  /* A string parameter changeable while playing and a second valid value for it (stress). */
  const char *string_param, *string_alt;
  /* Holds the whole stream until EOS (fxnormalize): nothing comes out before EOS, so it cannot
   * preroll; state cycling then waits for no output and flushing seeks do not apply. */
  gboolean holds;
} fx_elem_info_t;

static const fx_elem_info_t fx_known[] = {
    {"fxbutterworth", "", TRUE, TRUE, TRUE, NULL, NULL, FALSE},
    {"fxchebyshev1", "", TRUE, TRUE, TRUE, NULL, NULL, FALSE},
    {"fxchebyshev2", "", TRUE, TRUE, TRUE, NULL, NULL, FALSE},
    {"fxelliptic", "", TRUE, TRUE, TRUE, NULL, NULL, FALSE},
    {"fxlinkwitzriley", "", TRUE, TRUE, TRUE, NULL, NULL, FALSE},
    {"fxbiquad", "type=peaking gain=6", TRUE, TRUE, TRUE, NULL, NULL, FALSE},
    {"fxsos", "sections=\"0.2 0.4 0.2 1 -0.3 0.1; 1 -2 1 1 -1.8 0.81\"", TRUE, TRUE, TRUE,
     "sections", "1 0 0 1 0 0; 0.5 0.5 0 1 -0.5 0", FALSE},
    {"fxgain", "gain=-6", TRUE, TRUE, TRUE, NULL, NULL, FALSE},
    {"fxchain",
     "chain=\"fxbutterworth name=c1 mode=high-pass cutoff=80 ! fxgain name=c2 gain=-3 ! "
     "fxbiquad name=c3 type=peaking gain=3 ! fxchebyshev1 name=c4 order=6\"",
     TRUE, TRUE, TRUE, NULL, NULL, FALSE},
    /* name, setup, exact, independent, warns_nonfinite, string param, alt, holds */
    {"fxeq", "num-bands=3 band0::type=low-shelf band0::gain=4 band2::gain=-3", TRUE, TRUE, TRUE,
     NULL, NULL, FALSE},
    {"fxfir", "", TRUE, TRUE, TRUE, NULL, NULL, FALSE},
    /* The dynamics elements link their channels by default (one gain for all). */
    {"fxcompressor", "threshold=-20 ratio=4", TRUE, FALSE, TRUE, NULL, NULL, FALSE},
    {"fxgate", "threshold=-40", TRUE, FALSE, TRUE, NULL, NULL, FALSE},
    /* Look-ahead: the output is delayed and its tail pushed at EOS. */
    {"fxlimiter", "threshold=-3", FALSE, FALSE, TRUE, NULL, NULL, FALSE},
    /* Effects with a tail rendered at EOS. */
    {"fxdelay", "delay=20 feedback=0.3 mix=0.5", FALSE, TRUE, TRUE, NULL, NULL, FALSE},
    {"fxreverb", "", FALSE, FALSE, TRUE, NULL, NULL, FALSE},
    {"fxnormalize", "", FALSE, FALSE, TRUE, NULL, NULL, TRUE},
    /* A meter: the audio passes unchanged (NaN/Inf become 0). */
    {"fxloudness", "", TRUE, TRUE, TRUE, NULL, NULL, FALSE},
    /* 3.1 s of look-ahead (the tail at EOS); one gain for all channels. */
    {"fxloudnorm", "", FALSE, FALSE, TRUE, NULL, NULL, FALSE},
};

/* The table line of an element, or a default (no setup, weak assertions) for one not listed. */
static inline fx_elem_info_t fx_elem_info(const char *name)
{
  fx_elem_info_t d = {NULL, "", FALSE, FALSE, FALSE, NULL, NULL, FALSE};
  for (gsize i = 0; i < G_N_ELEMENTS(fx_known); i++)
    if (strcmp(fx_known[i].name, name) == 0)
      return fx_known[i];
  d.name = name;
  return d;
}

static inline gint fx_cmp_str(gconstpointer a, gconstpointer b)
{
  return strcmp(*(const char *const *) a, *(const char *const *) b);
}

static inline gboolean fx_factory_is_audio_filter(GstElementFactory *f)
{
  int sinks = 0, srcs = 0;
  for (const GList *l = gst_element_factory_get_static_pad_templates(f); l; l = l->next) {
    GstStaticPadTemplate *t = l->data;
    if (t->presence != GST_PAD_ALWAYS)
      continue;
    if (t->direction == GST_PAD_SINK)
      sinks++;
    else if (t->direction == GST_PAD_SRC)
      srcs++;
  }
  return sinks == 1 && srcs == 1;
}

/* Names of the fx plugin's filter elements, sorted (a GPtrArray of gchar*, free with
 * g_ptr_array_unref). Fails the test when the plugin is missing. */
static inline GPtrArray *fx_element_names(void)
{
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  GList *feats = gst_registry_get_feature_list_by_plugin(gst_registry_get(), "fx");

  for (GList *l = feats; l; l = l->next) {
    if (!GST_IS_ELEMENT_FACTORY(l->data))
      continue;
    if (fx_factory_is_audio_filter(GST_ELEMENT_FACTORY(l->data)))
      g_ptr_array_add(names, g_strdup(gst_plugin_feature_get_name(l->data)));
  }
  gst_plugin_feature_list_free(feats);
  g_ptr_array_sort(names, fx_cmp_str);
  /* Every element listed in fx_known[] must be found (a registry problem would otherwise make the
   * tests cover nothing). */
  for (gsize i = 0; i < G_N_ELEMENTS(fx_known); i++) {
    gboolean found = FALSE;
    for (guint j = 0; j < names->len; j++)
      found |= strcmp(g_ptr_array_index(names, j), fx_known[i].name) == 0;
    if (!found)
      g_error("element %s of the fx plugin not found in the registry", fx_known[i].name);
  }
  return names;
}

/* Number of elements, for tcase_add_loop_test (called after gst_check_init). */
static inline int fx_element_count(void)
{
  GPtrArray *n = fx_element_names();
  int count = (int) n->len;
  g_ptr_array_unref(n);
  return count;
}

/* The i-th element name (transfer full). */
static inline gchar *fx_element_name(int i)
{
  GPtrArray *n = fx_element_names();
  gchar *name;
  fail_unless(i >= 0 && (guint) i < n->len);
  name = g_strdup(g_ptr_array_index(n, i));
  g_ptr_array_unref(n);
  return name;
}

/* A new element named "f" with its setup applied (transfer full, floating ref sunk). */
/* gst_parse_launch (GStreamer 1.22) leaks a reference to a child whose property is set with the
 * child-proxy syntax (`band0::gain=4`; the stock equalizer-nbands shows the same under the leaks
 * tracer and valgrind), so setups keep "child::property=value" words out of launch lines:
 * fx_setup_plain() is the setup without them, fx_setup_children() sets them on the made element.
 * (Setups with such words have no quoted spaces.) */
static inline gchar *fx_setup_plain(const char *setup)
{
  gchar **words;
  GString *plain;
  if (!strstr(setup, "::"))
    return g_strdup(setup);
  words = g_strsplit(setup, " ", -1);
  plain = g_string_new("");
  for (gchar **w = words; *w; w++)
    if (!strstr(*w, "::"))
      g_string_append_printf(plain, " %s", *w);
  g_strfreev(words);
  return g_string_free(plain, FALSE);
}

static inline void fx_setup_children(GstElement *e, const char *setup)
{
  gchar **words = strstr(setup, "::") ? g_strsplit(setup, " ", -1) : NULL;
  for (gchar **w = words; w && *w; w++) {
    gchar **kv = strstr(*w, "::") ? g_strsplit(*w, "=", 2) : NULL;
    GObject *target = NULL;
    GParamSpec *pspec = NULL;
    if (!kv)
      continue;
    fail_unless(kv[1] && gst_child_proxy_lookup(GST_CHILD_PROXY(e), kv[0], &target, &pspec),
                "%s: no child property %s", GST_OBJECT_NAME(e), kv[0]);
    gst_util_set_object_arg(target, pspec->name, kv[1]);
    g_object_unref(target);
    g_strfreev(kv);
  }
  g_strfreev(words);
}

static inline GstElement *fx_element_make(const char *name)
{
  fx_elem_info_t info = fx_elem_info(name);
  gchar *plain = fx_setup_plain(info.setup);
  gchar *desc = g_strdup_printf("%s name=f %s", name, plain);
  GError *err = NULL;
  GstElement *e = gst_parse_launch(desc, &err);

  fail_unless(e != NULL && err == NULL, "cannot create \"%s\": %s", desc, err ? err->message : "?");
  gst_object_ref_sink(e);
  fx_setup_children(e, info.setup);
  g_free(plain);
  g_free(desc);
  return e;
}

/* The writable numeric, boolean or enum properties of an object that carry one of the `any`
 * flags. */
static inline GPtrArray *fx_params_flagged(GObject *obj, GParamFlags any)
{
  guint n = 0;
  GParamSpec **specs = g_object_class_list_properties(G_OBJECT_GET_CLASS(obj), &n);
  GPtrArray *out = g_ptr_array_new();

  for (guint i = 0; i < n; i++) {
    GParamSpec *p = specs[i];
    GType t = G_PARAM_SPEC_VALUE_TYPE(p);
    if (!(p->flags & G_PARAM_WRITABLE) || (p->flags & G_PARAM_CONSTRUCT_ONLY) || !(p->flags & any))
      continue;
    if (t == G_TYPE_DOUBLE || t == G_TYPE_FLOAT || t == G_TYPE_INT || t == G_TYPE_UINT ||
        t == G_TYPE_INT64 || t == G_TYPE_UINT64 || t == G_TYPE_BOOLEAN || G_TYPE_IS_ENUM(t))
      g_ptr_array_add(out, p);
  }
  g_free(specs);
  return out;
}

/* The DSP parameters of an object: writable, controllable, of a type a controller can drive. */
static inline GPtrArray *fx_dsp_params(GObject *obj)
{
  return fx_params_flagged(obj, GST_PARAM_CONTROLLABLE);
}

/* The parameters to change from other threads while streaming: the DSP parameters plus every
 * other writable numeric, boolean or enum property flagged GST_PARAM_MUTABLE_PLAYING (device,
 * precision, ...). */
static inline GPtrArray *fx_stress_params(GObject *obj)
{
  return fx_params_flagged(obj, GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING);
}

static inline double fx_clampd(double v, double lo, double hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

/* A second valid-looking value for a parameter besides its default (the element may still refuse
 * it for the stream, e.g. an odd Linkwitz-Riley order: a warning, never an error): half a non-zero
 * floating default, 3 for a zero one; integer default + 2; the other boolean; the next enum
 * value. Also returns the default. Both values are initialised. */
static inline void fx_param_values(GParamSpec *p, GValue *def, GValue *alt)
{
  GType t = G_PARAM_SPEC_VALUE_TYPE(p);

  g_value_init(def, t);
  g_value_init(alt, t);
  g_param_value_set_default(p, def);
  if (t == G_TYPE_DOUBLE) {
    GParamSpecDouble *d = G_PARAM_SPEC_DOUBLE(p);
    double v = g_value_get_double(def);
    g_value_set_double(alt, fx_clampd(v != 0.0 ? v * 0.5 : 3.0, d->minimum, d->maximum));
  } else if (t == G_TYPE_FLOAT) {
    GParamSpecFloat *d = G_PARAM_SPEC_FLOAT(p);
    double v = g_value_get_float(def);
    g_value_set_float(alt, (float) fx_clampd(v != 0.0 ? v * 0.5 : 3.0, d->minimum, d->maximum));
  } else if (t == G_TYPE_INT) {
    GParamSpecInt *d = G_PARAM_SPEC_INT(p);
    gint v = g_value_get_int(def);
    g_value_set_int(alt, v + 2 <= d->maximum ? v + 2 : MAX(d->minimum, v - 2));
  } else if (t == G_TYPE_UINT) {
    GParamSpecUInt *d = G_PARAM_SPEC_UINT(p);
    guint v = g_value_get_uint(def);
    g_value_set_uint(alt, v + 2 <= d->maximum ? v + 2 : MAX(d->minimum, v - 2));
  } else if (t == G_TYPE_INT64) {
    GParamSpecInt64 *d = G_PARAM_SPEC_INT64(p);
    gint64 v = g_value_get_int64(def);
    g_value_set_int64(alt, v + 2 <= d->maximum ? v + 2 : MAX(d->minimum, v - 2));
  } else if (t == G_TYPE_UINT64) {
    GParamSpecUInt64 *d = G_PARAM_SPEC_UINT64(p);
    guint64 v = g_value_get_uint64(def);
    g_value_set_uint64(alt, v + 2 <= d->maximum ? v + 2 : MAX(d->minimum, v - 2));
  } else if (t == G_TYPE_BOOLEAN) {
    g_value_set_boolean(alt, !g_value_get_boolean(def));
  } else if (G_TYPE_IS_ENUM(t)) {
    GEnumClass *ec = g_type_class_ref(t);
    gint v = g_value_get_enum(def);
    guint i = 0;
    while (i < ec->n_values && ec->values[i].value != v)
      i++;
    g_value_set_enum(alt, ec->values[(i + 1) % ec->n_values].value);
    g_type_class_unref(ec);
  } else {
    g_assert_not_reached();
  }
}

/* Frequency parameters (cutoff, frequency, *-frequency) of obj and, for a bin, of its children,
 * scaled from their defaults by rate / 48000 (only down), so a design fits below a low Nyquist. */
static inline void fx_scale_frequencies(GstElement *e, int rate)
{
  guint n = 0;
  GParamSpec **specs = g_object_class_list_properties(G_OBJECT_GET_CLASS(e), &n);
  double k = MIN(1.0, rate / 48000.0);

  for (guint i = 0; i < n; i++) {
    GParamSpec *p = specs[i];
    if (G_PARAM_SPEC_VALUE_TYPE(p) != G_TYPE_DOUBLE || !(p->flags & G_PARAM_WRITABLE))
      continue;
    if (strcmp(p->name, "cutoff") == 0 || strcmp(p->name, "frequency") == 0 ||
        g_str_has_suffix(p->name, "-frequency")) {
      double v;
      g_object_get(e, p->name, &v, NULL);
      g_object_set(e, p->name, v * k, NULL);
    }
  }
  g_free(specs);
  if (GST_IS_CHILD_PROXY(e) && !GST_IS_BIN(e)) { /* fxeq's bands */
    guint nc = gst_child_proxy_get_children_count(GST_CHILD_PROXY(e));
    for (guint c = 0; c < nc; c++) {
      GObject *child = gst_child_proxy_get_child_by_index(GST_CHILD_PROXY(e), c);
      if (child && g_object_class_find_property(G_OBJECT_GET_CLASS(child), "frequency")) {
        double v;
        g_object_get(child, "frequency", &v, NULL);
        g_object_set(child, "frequency", v * k, NULL);
      }
      if (child)
        g_object_unref(child);
    }
  }
  if (GST_IS_BIN(e)) {
    GList *children = NULL;
    GST_OBJECT_LOCK(e);
    for (GList *l = GST_BIN_CHILDREN(e); l; l = l->next)
      children = g_list_prepend(children, gst_object_ref(l->data));
    GST_OBJECT_UNLOCK(e);
    for (GList *l = children; l; l = l->next)
      fx_scale_frequencies(l->data, rate);
    g_list_free_full(children, gst_object_unref);
  }
}

/* The children of a bin (transfer full list of refs); NULL for a plain element. */
static inline GList *fx_children(GstElement *e)
{
  GList *children = NULL;
  if (!GST_IS_BIN(e))
    return NULL;
  GST_OBJECT_LOCK(e);
  for (GList *l = GST_BIN_CHILDREN(e); l; l = l->next)
    children = g_list_prepend(children, gst_object_ref(l->data));
  GST_OBJECT_UNLOCK(e);
  return children;
}

/* A harness around the element itself (not a bin around it), so gst_harness_stress_property_*
 * reaches its properties; a bus is attached for the messages. */
static inline GstHarness *fx_harness_for(GstElement *e, GstBus **bus)
{
  GstHarness *h = gst_harness_new_with_element(e, "sink", "src");
  /* A harness reports a live upstream by default; these streams stand for files (fxnormalize
   * refuses live sources). */
  gst_harness_set_live(h, FALSE);
  *bus = gst_bus_new();
  gst_element_set_bus(e, *bus);
  return h;
}

/* Starts a (new) stream on a harness: stream-start, caps, segment. */
static inline void fx_harness_stream(GstHarness *h, fx_fmt_t f, int rate, int channels)
{
  static int counter;
  gchar *id = g_strdup_printf("fx-stream-%d", g_atomic_int_add(&counter, 1));
  gst_harness_push_event(h, gst_event_new_stream_start(id));
  g_free(id);
  gst_harness_set_src_caps(h, fx_caps(f, rate, channels));
}

/* Counts ERROR messages queued on the bus (and logs them); WARNINGs are counted into *warnings
 * when not NULL. */
static inline int fx_bus_errors(GstBus *bus, int *warnings)
{
  fx_bus_log_t log;
  int n;
  fx_bus_log_init(&log);
  fx_bus_collect(bus, &log, 0, FALSE);
  n = (int) log.errors->len;
  if (n) {
    gchar *s = fx_join(log.errors);
    GST_ERROR("errors: %s", s);
    g_free(s);
  }
  if (warnings)
    *warnings += (int) log.warnings->len;
  fx_bus_log_clear(&log);
  return n;
}

/* Test scale: FX_STRESS_SCALE (default 1) divides loop counts, for slow runs (valgrind). */
static inline int fx_scaled(int n)
{
  const char *s = g_getenv("FX_STRESS_SCALE");
  int k = s ? atoi(s) : 1;
  if (k < 1)
    k = 1;
  return MAX(1, n / k);
}

#endif
