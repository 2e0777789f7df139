/* gst-fx — the element contract as gst-inspect shows it (DESIGN §2): names, kebab-case property
 * names, controllable DSP parameters, enum nicks, defaults, ranges, metadata; fxsos from a
 * GstValueArray.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "fxtest.h"

static const char *elements[] = {
    "fxbutterworth", "fxchebyshev1", "fxchebyshev2", "fxelliptic",   "fxlinkwitzriley", "fxbiquad",
    "fxsos",         "fxgain",       "fxeq",         "fxcompressor", "fxgate",          "fxlimiter",
    "fxnormalize",   "fxdelay",      "fxreverb",     "fxfir"};

/* Properties that are settings of the processing backend, or structural settings that change
 * only in NULL/READY (band count, look-ahead and its channel linking, buffer bounds, FIR method and
 * latency budget), not DSP parameters; fxfir's `kernel` is an array (a controller cannot drive
 * it). */
static const char *non_dsp[] = {"device",       "precision", "scan-threshold", "cuda-graphs",
                                "warm-up",      "num-bands", "look-ahead",     "link",
                                "max-duration", "max-delay", "kernel",         "method",
                                "max-latency",  NULL};

static gboolean is_kebab(const char *name)
{
  return g_regex_match_simple("^[a-z][a-z0-9]*(-[a-z0-9]+)*$", name, 0, 0);
}

GST_START_TEST(test_property_flags_and_names)
{
  const char *name = elements[__i__];
  GstElement *e = gst_element_factory_make(name, NULL);
  GParamSpec **props;
  guint n, n_dsp = 0;

  fail_unless(e != NULL, "no element %s", name);
  props = g_object_class_list_properties(G_OBJECT_GET_CLASS(e), &n);
  for (guint i = 0; i < n; i++) {
    GParamSpec *p = props[i];
    gboolean ours = g_str_has_prefix(g_type_name(p->owner_type), "GstFx");
    fail_unless(is_kebab(p->name), "%s: property '%s' is not kebab-case", name, p->name);
    if (!ours || !(p->flags & G_PARAM_WRITABLE) || g_strv_contains(non_dsp, p->name))
      continue;
    n_dsp++;
    fail_unless(p->flags & GST_PARAM_CONTROLLABLE, "%s: DSP property '%s' is not controllable",
                name, p->name);
    fail_unless(p->flags & GST_PARAM_MUTABLE_PLAYING,
                "%s: DSP property '%s' cannot change while PLAYING", name, p->name);
    fail_unless(g_param_spec_get_blurb(p) && strlen(g_param_spec_get_blurb(p)) > 10,
                "%s: '%s' has no useful blurb", name, p->name);
  }
  fail_unless(n_dsp >= 1, "%s has no DSP property", name);
  g_free(props);
  gst_object_unref(e);
}
GST_END_TEST;

GST_START_TEST(test_metadata)
{
  const char *name = elements[__i__];
  GstElementFactory *f = gst_element_factory_find(name);
  GstPlugin *plugin;

  fail_unless(f != NULL);
  fail_unless_equals_string(gst_element_factory_get_metadata(f, GST_ELEMENT_METADATA_KLASS),
                            "Filter/Effect/Audio");
  fail_unless_equals_int(gst_plugin_feature_get_rank(GST_PLUGIN_FEATURE(f)), GST_RANK_NONE);
  fail_unless(strlen(gst_element_factory_get_metadata(f, GST_ELEMENT_METADATA_DESCRIPTION)) > 20);
  plugin = gst_plugin_feature_get_plugin(GST_PLUGIN_FEATURE(f));
  fail_unless(plugin != NULL);
  fail_unless_equals_string(gst_plugin_get_name(plugin), "fx");
  fail_unless_equals_string(gst_plugin_get_license(plugin), "GPL");
  gst_object_unref(plugin);
  gst_object_unref(f);
}
GST_END_TEST;

static GParamSpec *find(GstElement *e, const char *prop)
{
  GParamSpec *p = g_object_class_find_property(G_OBJECT_GET_CLASS(e), prop);
  fail_unless(p != NULL, "%s has no property %s", GST_OBJECT_NAME(e), prop);
  return p;
}

/* The enum property's nicks are exactly `nicks` (NULL-terminated) and its default is `def`. */
static void check_enum(GstElement *e, const char *prop, const char *const *nicks, const char *def)
{
  GParamSpec *p = find(e, prop);
  GEnumClass *ec;
  guint k = 0;

  fail_unless(G_IS_PARAM_SPEC_ENUM(p), "%s is not an enum", prop);
  ec = G_PARAM_SPEC_ENUM(p)->enum_class;
  for (; nicks[k]; k++)
    fail_unless(g_enum_get_value_by_nick(ec, nicks[k]) != NULL, "%s: no nick %s", prop, nicks[k]);
  fail_unless_equals_int(ec->n_values, k);
  fail_unless_equals_string(g_enum_get_value(ec, G_PARAM_SPEC_ENUM(p)->default_value)->value_nick,
                            def);
}

static void check_double(GstElement *e, const char *prop, double def, double min, double max)
{
  GParamSpec *p = find(e, prop);
  fail_unless(G_IS_PARAM_SPEC_DOUBLE(p), "%s is not a double", prop);
  fail_unless(fabs(G_PARAM_SPEC_DOUBLE(p)->default_value - def) < 1e-12, "%s default %g", prop,
              G_PARAM_SPEC_DOUBLE(p)->default_value);
  if (!isnan(min))
    fail_unless(G_PARAM_SPEC_DOUBLE(p)->minimum <= min && G_PARAM_SPEC_DOUBLE(p)->maximum >= max,
                "%s range [%g, %g]", prop, G_PARAM_SPEC_DOUBLE(p)->minimum,
                G_PARAM_SPEC_DOUBLE(p)->maximum);
}

/* A frequency in Hz: from 0 (exclusive) to 100 kHz, as the stock audiocheblimit's, so that
 * normalised control bindings and sliders sweep a usable range. */
static void check_frequency(GstElement *e, const char *prop, double def)
{
  GParamSpec *p = find(e, prop);

  check_double(e, prop, def, NAN, NAN);
  fail_unless(G_PARAM_SPEC_DOUBLE(p)->minimum <= 1e-3 && G_PARAM_SPEC_DOUBLE(p)->minimum > 0.0 &&
                  G_PARAM_SPEC_DOUBLE(p)->maximum == 100000.0,
              "%s range [%g, %g]", prop, G_PARAM_SPEC_DOUBLE(p)->minimum,
              G_PARAM_SPEC_DOUBLE(p)->maximum);
}

static void check_int(GstElement *e, const char *prop, int def, int min, int max)
{
  GParamSpec *p = find(e, prop);
  fail_unless(G_IS_PARAM_SPEC_INT(p), "%s is not an int", prop);
  fail_unless_equals_int(G_PARAM_SPEC_INT(p)->default_value, def);
  fail_unless_equals_int(G_PARAM_SPEC_INT(p)->minimum, min);
  fail_unless_equals_int(G_PARAM_SPEC_INT(p)->maximum, max);
}

static void check_common(GstElement *e)
{
  static const char *const device[] = {"auto", "cpu", "cuda", NULL};
  static const char *const precision[] = {"auto", "single", "double", NULL};
  GParamSpec *p;

  check_enum(e, "device", device, "auto");
  check_enum(e, "precision", precision, "auto");
  p = find(e, "dispatches");
  fail_unless(G_IS_PARAM_SPEC_UINT64(p) && !(p->flags & G_PARAM_WRITABLE));
  p = find(e, "launches");
  fail_unless(G_IS_PARAM_SPEC_UINT64(p) && !(p->flags & G_PARAM_WRITABLE));
  p = find(e, "backend");
  fail_unless(G_IS_PARAM_SPEC_STRING(p) && !(p->flags & G_PARAM_WRITABLE));
  p = find(e, "scan-threshold");
  fail_unless(G_IS_PARAM_SPEC_UINT(p) && G_PARAM_SPEC_UINT(p)->default_value == 0);
  p = find(e, "cuda-graphs");
  fail_unless(G_IS_PARAM_SPEC_BOOLEAN(p) && G_PARAM_SPEC_BOOLEAN(p)->default_value);
  p = find(e, "warm-up");
  fail_unless(G_IS_PARAM_SPEC_BOOLEAN(p) && G_PARAM_SPEC_BOOLEAN(p)->default_value);
}

GST_START_TEST(test_contract)
{
  static const char *const modes[] = {"low-pass", "high-pass", "band-pass", "band-reject", NULL};
  static const char *const xo[] = {"low-pass", "high-pass", NULL};
  static const char *const bq[] = {"low-pass", "high-pass", "band-pass", "band-pass-peak", "notch",
                                   "all-pass", "peaking",   "low-shelf", "high-shelf",     NULL};
  const char *families[] = {"fxbutterworth", "fxchebyshev1", "fxchebyshev2", "fxelliptic"};

  for (int k = 0; k < 4; k++) {
    GstElement *e = gst_element_factory_make(families[k], NULL);
    check_common(e);
    check_enum(e, "mode", modes, "low-pass");
    check_frequency(e, "cutoff", 1000);
    check_frequency(e, "lower-frequency", 500);
    check_frequency(e, "upper-frequency", 2000);
    check_int(e, "order", 4, 1, k == 3 ? 24 : 64);
    if (k == 1 || k == 3)
      check_double(e, "ripple", 0.5, NAN, NAN);
    else
      fail_unless(g_object_class_find_property(G_OBJECT_GET_CLASS(e), "ripple") == NULL);
    if (k == 2)
      check_double(e, "attenuation", 40, NAN, NAN);
    else if (k == 3)
      check_double(e, "attenuation", 60, NAN, NAN);
    else
      fail_unless(g_object_class_find_property(G_OBJECT_GET_CLASS(e), "attenuation") == NULL);
    gst_object_unref(e);
  }
  {
    GstElement *e = gst_element_factory_make("fxlinkwitzriley", NULL);
    check_common(e);
    check_enum(e, "mode", xo, "low-pass");
    check_frequency(e, "cutoff", 1000);
    check_int(e, "order", 4, 2, 16);
    gst_object_unref(e);
  }
  {
    GstElement *e = gst_element_factory_make("fxbiquad", NULL);
    check_common(e);
    check_enum(e, "type", bq, "low-pass");
    check_frequency(e, "frequency", 1000);
    check_double(e, "q", 0.7071, NAN, NAN);
    check_double(e, "gain", 0, -60, 60);
    gst_object_unref(e);
  }
  {
    GstElement *e = gst_element_factory_make("fxsos", NULL);
    check_common(e);
    fail_unless(G_IS_PARAM_SPEC_STRING(find(e, "sections")));
    gst_object_unref(e);
  }
  {
    GstElement *e = gst_element_factory_make("fxgain", NULL);
    check_double(e, "gain", 0, -60, 12);
    fail_unless(G_IS_PARAM_SPEC_BOOLEAN(find(e, "clip")));
    fail_if(G_PARAM_SPEC_BOOLEAN(find(e, "clip"))->default_value);
    gst_object_unref(e);
  }
}
GST_END_TEST;

/* ---- fxsos from a GstValueArray (as from Python or C), with full precision ---- */

static void append_row(GValue *arr, const double r[6], GType t)
{
  GValue row = G_VALUE_INIT, v = G_VALUE_INIT;
  g_value_init(&row, GST_TYPE_ARRAY);
  for (int k = 0; k < 6; k++) {
    g_value_init(&v, t);
    if (t == G_TYPE_DOUBLE)
      g_value_set_double(&v, r[k]);
    else if (t == G_TYPE_FLOAT)
      g_value_set_float(&v, (float) r[k]);
    else
      g_value_set_int(&v, (int) r[k]);
    gst_value_array_append_value(&row, &v);
    g_value_unset(&v);
  }
  gst_value_array_append_value(arr, &row);
  g_value_unset(&row);
}

GST_START_TEST(test_sos_from_value_array)
{
  /* Second-order Butterworth low-pass at 20 Hz / 48 kHz by the bilinear formulas: b0 ~ 1.7e-6, so
   * anything that prints six decimals would lose it. DC gain must be exactly 1. */
  const double rate = 48000, k = tan(G_PI * 20.0 / rate), norm = 1.0 / (1.0 + G_SQRT2 * k + k * k);
  const double r[6] = {
      k * k * norm, 2 * k * k * norm,           k * k * norm,
      1.0,          2.0 * (k * k - 1.0) * norm, (1.0 - G_SQRT2 * k + k * k) * norm};
  const double unity[6] = {2, 0, 0, 2, 0, 0};
  GValue arr = G_VALUE_INIT;
  GstElement *sos = gst_element_factory_make("fxsos", NULL);
  GstHarness *h;
  gchar *text = NULL;
  const size_t frames = 96000;
  double *x = g_new(double, frames), *y;

  g_value_init(&arr, GST_TYPE_ARRAY);
  append_row(&arr, r, G_TYPE_DOUBLE);
  append_row(&arr, unity, G_TYPE_DOUBLE);
  g_object_set_property(G_OBJECT(sos), "sections", &arr);
  g_value_unset(&arr);
  g_object_get(sos, "sections", &text, NULL);
  GST_INFO("sections from a GstValueArray: %s", text);
  fail_unless(text != NULL);
  g_free(text);

  /* Rows of integers or floats are accepted as well. */
  {
    GstElement *e = gst_element_factory_make("fxsos", NULL);
    const double half[6] = {1, 0, 0, 2, 0, 0};
    g_value_init(&arr, GST_TYPE_ARRAY);
    append_row(&arr, half, G_TYPE_INT);
    g_object_set_property(G_OBJECT(e), "sections", &arr);
    g_value_unset(&arr);
    g_object_get(e, "sections", &text, NULL);
    fail_unless(text && strstr(text, "2"), "int rows refused: %s", text);
    g_free(text);
    g_value_init(&arr, GST_TYPE_ARRAY);
    append_row(&arr, r, G_TYPE_FLOAT);
    g_object_set_property(G_OBJECT(e), "sections", &arr);
    g_value_unset(&arr);
    g_object_get(e, "sections", &text, NULL);
    fail_unless(text && strstr(text, "e-"), "float rows refused or truncated: %s", text);
    g_free(text);
    gst_object_unref(e);
  }

  /* The harness starts the element: it has valid sections now. */
  h = gst_harness_new_with_element(sos, "sink", "src");
  gst_object_unref(sos);
  gst_harness_set_src_caps(h, fx_caps(FX_F64, (int) rate, 1));
  for (size_t i = 0; i < frames; i++)
    x[i] = 0.5;
  y = fx_run(h, FX_F64, (int) rate, 1, x, frames, NULL, 0, 0);
  fail_unless(fabs(y[frames - 1] - 0.5) < 1e-9, "DC gain %.12g: coefficients lost precision",
              y[frames - 1] / 0.5);
  g_free(x);
  g_free(y);
  gst_harness_teardown(h);
}
GST_END_TEST;

GST_START_TEST(test_sos_serialised_array_string)
{
  /* GStreamer's serialised array form, as gst-launch users write it. */
  GstHarness *h = gst_harness_new_parse("fxsos name=f sections=\"< < 1, 0, 0, 4, 0, 0 >, "
                                        "< 3, 0, 0, 1.5, 0, 0 > >\"");
  double x[4] = {1, -1, 0.5, 0.25}, *y;

  gst_harness_set_src_caps(h, fx_caps(FX_F64, 48000, 1));
  y = fx_run(h, FX_F64, 48000, 1, x, 4, NULL, 0, 0);
  for (int i = 0; i < 4; i++)
    fail_unless(fabs(y[i] - 0.5 * x[i]) < 1e-15, "%g", y[i]);
  g_free(y);
  gst_harness_teardown(h);
}
GST_END_TEST;

static Suite *fx_properties_suite(void)
{
  Suite *s = suite_create("fx-properties");
  TCase *tc = tcase_create("general");

  suite_add_tcase(s, tc);
  tcase_add_loop_test(tc, test_property_flags_and_names, 0, G_N_ELEMENTS(elements));
  tcase_add_loop_test(tc, test_metadata, 0, G_N_ELEMENTS(elements));
  tcase_add_test(tc, test_contract);
  tcase_add_test(tc, test_sos_from_value_array);
  tcase_add_test(tc, test_sos_serialised_array_string);
  return s;
}

GST_CHECK_MAIN(fx_properties);
