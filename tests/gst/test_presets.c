/* gst-fx — GstPreset on the fx elements (gst/gstfxpreset.c), under gst-check, so that the leaks
 * tracer (scripts/leaks.sh) and valgrind (scripts/valgrind.sh) see the preset code: every element
 * implements it and stores settings only; an fxeq preset that changes num-bands reaches every
 * band; string values (fxchain's chain, fxsos' sections) come back as saved; delete.
 * The factory presets come from the source tree (GST_PRESET_PATH), saves go to a temporary
 * XDG_DATA_HOME set before GStreamer starts (GLib caches the user data directory).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <glib/gstdio.h>
#include <string.h>

#include "fxtest.h"

static const gchar *const elements[] = {
    "fxbutterworth", "fxchebyshev1", "fxchebyshev2", "fxelliptic", "fxlinkwitzriley", "fxbiquad",
    "fxsos",         "fxgain",       "fxchain",      "fxeq",       "fxcompressor",    "fxgate",
    "fxlimiter",     "fxnormalize",  "fxdelay",      "fxreverb",   "fxfir",
};

GST_START_TEST(test_every_element_implements_preset)
{
  for (guint i = 0; i < G_N_ELEMENTS(elements); i++) {
    GstElement *e = gst_element_factory_make(elements[i], NULL);
    gchar **props;

    fail_unless(e != NULL, "%s", elements[i]);
    fail_unless(GST_IS_PRESET(e), "%s is not a GstPreset", elements[i]);
    props = gst_preset_get_property_names(GST_PRESET(e));
    fail_unless(props != NULL && props[0] != NULL, "%s: no preset properties", elements[i]);
    for (guint j = 0; props[j] != NULL; j++) {
      const gchar *p = strstr(props[j], "::") ? strstr(props[j], "::") + 2 : props[j];
      fail_if(!strcmp(p, "name") || !strcmp(p, "parent") || !strcmp(p, "qos"), "%s stores %s",
              elements[i], props[j]);
    }
    g_strfreev(props);
    gst_object_unref(e);
  }
}
GST_END_TEST;

static GstObject *band(GstElement *eq, guint i)
{
  gchar *name = g_strdup_printf("band%u", i);
  GObject *b = gst_child_proxy_get_child_by_name(GST_CHILD_PROXY(eq), name);

  g_free(name);
  fail_unless(b != NULL);
  return GST_OBJECT(b);
}

GST_START_TEST(test_eq_preset_changes_num_bands)
{
  static const guint before[] = {1, 2, 32};

  for (guint k = 0; k < G_N_ELEMENTS(before); k++) {
    GstElement *eq = gst_element_factory_make("fxeq", NULL);
    GstObject *b;
    double freq, q;
    guint n;

    g_object_set(eq, "num-bands", before[k], NULL);
    fail_unless(gst_preset_load_preset(GST_PRESET(eq), "flat"));
    g_object_get(eq, "num-bands", &n, NULL);
    fail_unless_equals_int(n, 10);
    b = band(eq, 9);
    g_object_get(b, "frequency", &freq, "q", &q, NULL);
    fail_unless(freq == 16000.0 && q == 1.4142, "band9 after %u bands: %g Hz, q %g", before[k],
                freq, q);
    gst_object_unref(b);

    fail_unless(gst_preset_load_preset(GST_PRESET(eq), "telephone"));
    g_object_get(eq, "num-bands", &n, NULL);
    fail_unless_equals_int(n, 4);
    b = band(eq, 3);
    g_object_get(b, "frequency", &freq, "q", &q, NULL);
    fail_unless(freq == 3400.0 && q == 1.3066, "band3: %g Hz, q %g", freq, q);
    gst_object_unref(b);
    fail_if(gst_preset_load_preset(GST_PRESET(eq), "no-such-preset"));
    gst_object_unref(eq);
  }
}
GST_END_TEST;

/* Saves @prop = @value of a new @factory as preset "mine", loads it into another, compares. */
static void string_round_trip(const gchar *factory, const gchar *prop, const gchar *value)
{
  GstElement *a = gst_element_factory_make(factory, NULL);
  GstElement *b = gst_element_factory_make(factory, NULL);
  gchar *got = NULL;
  gchar **names;

  g_object_set(a, prop, value, NULL);
  fail_unless(gst_preset_save_preset(GST_PRESET(a), "mine"));
  fail_unless(gst_preset_load_preset(GST_PRESET(b), "mine"));
  g_object_get(b, prop, &got, NULL);
  fail_unless_equals_string(got, value);
  g_free(got);

  fail_unless(gst_preset_delete_preset(GST_PRESET(b), "mine"));
  names = gst_preset_get_preset_names(GST_PRESET(a));
  fail_if(names != NULL && g_strv_contains((const gchar *const *) names, "mine"));
  g_strfreev(names);
  gst_object_unref(a);
  gst_object_unref(b);
}

GST_START_TEST(test_string_values_round_trip)
{
  string_round_trip("fxchain", "chain",
                    "fxgain gain=-3 ! fxbutterworth mode=high-pass cutoff=120 ! fxsos "
                    "sections=\"1 0 0 1 0 0\"");
  string_round_trip("fxsos", "sections", "0.5 0 0 1 0 0; 1 0 0 1 0.1 0");
}
GST_END_TEST;

static Suite *fx_presets_suite(void)
{
  Suite *s = suite_create("fx-presets");
  TCase *tc = tcase_create("general");

  suite_add_tcase(s, tc);
  tcase_add_test(tc, test_every_element_implements_preset);
  tcase_add_test(tc, test_eq_preset_changes_num_bands);
  tcase_add_test(tc, test_string_values_round_trip);
  return s;
}

/* Removes @dir and everything below it. */
static void remove_tree(const gchar *dir)
{
  GDir *d = g_dir_open(dir, 0, NULL);
  const gchar *name;

  while (d != NULL && (name = g_dir_read_name(d)) != NULL) {
    gchar *path = g_build_filename(dir, name, NULL);
    if (g_file_test(path, G_FILE_TEST_IS_DIR))
      remove_tree(path);
    else
      g_remove(path);
    g_free(path);
  }
  if (d != NULL)
    g_dir_close(d);
  g_rmdir(dir);
}

int main(int argc, char **argv)
{
  gchar *home = g_dir_make_tmp("fx-presets-XXXXXX", NULL);
  int failed;

  g_assert(home != NULL);
  g_setenv("XDG_DATA_HOME", home, TRUE);
  g_setenv("GST_PRESET_PATH", FX_PRESETS_DIR, TRUE);
  gst_check_init(&argc, &argv);
  failed = gst_check_run_suite(fx_presets_suite(), "fx_presets", __FILE__);
  remove_tree(home);
  g_free(home);
  return failed != 0;
}
