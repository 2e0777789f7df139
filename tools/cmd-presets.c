/* gst-fx presets — lists, shows, saves and deletes element presets (GstPreset).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   gst-fx presets list [--json] [ELEMENT...]
 *   gst-fx presets show [--json] ELEMENT NAME
 *   gst-fx presets save [--comment TEXT] [--force] ELEMENT NAME [PROPERTY=VALUE...]
 *   gst-fx presets delete ELEMENT NAME
 *
 * Everything goes through GStreamer's GstPreset API on an instance of the element: the names
 * (gst_preset_get_preset_names), the comment (gst_preset_get_meta), the values (loaded with
 * gst_preset_load_preset, read back as properties), saving (gst_preset_save_preset and
 * gst_preset_set_meta, which write the user's file $XDG_DATA_HOME/gstreamer-1.0/presets/
 * <GType>.prs) and deleting (gst_preset_delete_preset). GStreamer has no API for where a preset
 * comes from, so the preset files are read here as keyfiles only to tell that, and which
 * properties a preset names: factory files are <dir>/<GType>.prs for every directory of
 * GST_PRESET_PATH (where fx_tool_init() puts this installation's presets), the application
 * directory (gst_preset_get_app_dir) and the system data directories (GStreamer's own prefix
 * among them); the user's file is the one above. A preset is "factory" when a factory file
 * holds it (GStreamer's first save copies every factory preset into the user's file, so a copy
 * there with the same keys and values is still the factory one), "modified" when the user's file
 * holds another version of it, "user" when only the user's file does.
 *
 * PROPERTY=VALUE of `save` is read by fxchain's parser (the `chain` property of an fxchain that
 * is never played): the same syntax, conversions and range checks as --chain, and the stage it
 * creates is the instance whose settings are saved. The factory files are never written: saving
 * is refused when the user's file would be one of them. */
#include "gst-fx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { ORIGIN_FACTORY, ORIGIN_USER, ORIGIN_MODIFIED } Origin;
static const char *const origin_names[] = {"factory", "user", "modified"};

/* The preset files of one element type. */
typedef struct {
  gchar *user_path;         /* the user's file, where GStreamer saves (may not exist) */
  GKeyFile *user;           /* its content, NULL when absent or not this type's */
  GPtrArray *factory_paths; /* the factory files of the type that exist (gchar *) */
  GPtrArray *factory;       /* their content (GKeyFile *), in the same order */
} Sources;

/* The user's presets directory, as GStreamer's default implementation builds it. */
static gchar *user_presets_dir(void)
{
  return g_build_filename(g_get_user_data_dir(), "gstreamer-1.0", "presets", NULL);
}

/* @path as an absolute path with symbolic links resolved (the path itself when it does not
 * exist). */
static gchar *real_path(const char *path)
{
  char *real = realpath(path, NULL);
  gchar *out = g_strdup(real != NULL ? real : path);

  free(real);
  return out;
}

/* The factory presets directories, each once, the user's own directory left out. */
static GPtrArray *factory_dirs(void)
{
  GPtrArray *dirs = g_ptr_array_new_with_free_func(g_free);
  GPtrArray *seen = g_ptr_array_new_with_free_func(g_free);
  const char *env = g_getenv("GST_PRESET_PATH");
  gchar *user = user_presets_dir();
  gchar **env_dirs = g_strsplit(env != NULL ? env : "", G_SEARCHPATH_SEPARATOR_S, -1);
  const gchar *const *sys = g_get_system_data_dirs();

  g_ptr_array_add(seen, real_path(user));
  for (gchar **d = env_dirs; *d != NULL; d++)
    if (**d != '\0')
      g_ptr_array_add(dirs, g_strdup(*d));
  if (gst_preset_get_app_dir() != NULL)
    g_ptr_array_add(dirs, g_strdup(gst_preset_get_app_dir()));
  for (; sys != NULL && *sys != NULL; sys++)
    g_ptr_array_add(dirs, g_build_filename(*sys, "gstreamer-1.0", "presets", NULL));
  for (guint i = 0; i < dirs->len;) {
    gchar *real = real_path(g_ptr_array_index(dirs, i));
    gboolean dup = FALSE;
    for (guint j = 0; j < seen->len && !dup; j++)
      dup = strcmp(g_ptr_array_index(seen, j), real) == 0;
    if (dup) {
      g_free(real);
      g_ptr_array_remove_index(dirs, i);
    } else {
      g_ptr_array_add(seen, real);
      i++;
    }
  }
  g_strfreev(env_dirs);
  g_free(user);
  g_ptr_array_unref(seen);
  return dirs;
}

/* The keyfile at @path when it is a preset file of @type_name, else NULL. */
static GKeyFile *open_presets(const char *path, const char *type_name)
{
  GKeyFile *kf = g_key_file_new();
  gchar *element = NULL;

  if (!g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, NULL) ||
      (element = g_key_file_get_value(kf, "_presets_", "element-name", NULL)) == NULL ||
      strcmp(element, type_name) != 0)
    g_clear_pointer(&kf, g_key_file_free);
  g_free(element);
  return kf;
}

static void sources_init(Sources *src, const char *type_name)
{
  gchar *file = g_strconcat(type_name, ".prs", NULL);
  gchar *dir = user_presets_dir();
  GPtrArray *dirs = factory_dirs();

  src->user_path = g_build_filename(dir, file, NULL);
  src->user = open_presets(src->user_path, type_name);
  src->factory_paths = g_ptr_array_new_with_free_func(g_free);
  src->factory = g_ptr_array_new_with_free_func((GDestroyNotify) g_key_file_free);
  for (guint i = 0; i < dirs->len; i++) {
    gchar *path = g_build_filename(g_ptr_array_index(dirs, i), file, NULL);
    GKeyFile *kf = open_presets(path, type_name);
    if (kf != NULL) {
      g_ptr_array_add(src->factory_paths, path);
      g_ptr_array_add(src->factory, kf);
    } else {
      g_free(path);
    }
  }
  g_ptr_array_unref(dirs);
  g_free(dir);
  g_free(file);
}

static void sources_clear(Sources *src)
{
  g_free(src->user_path);
  if (src->user != NULL)
    g_key_file_free(src->user);
  g_ptr_array_unref(src->factory_paths);
  g_ptr_array_unref(src->factory);
}

/* Whether group @name has the same keys with the same values in @a and @b. */
static gboolean same_group(GKeyFile *a, GKeyFile *b, const char *name)
{
  gsize na = 0, nb = 0;
  gchar **ka = g_key_file_get_keys(a, name, &na, NULL);
  gchar **kb = g_key_file_get_keys(b, name, &nb, NULL);
  gboolean same = ka != NULL && kb != NULL && na == nb;

  for (gsize i = 0; same && i < na; i++) {
    gchar *va = g_key_file_get_value(a, name, ka[i], NULL);
    gchar *vb = g_key_file_get_value(b, name, ka[i], NULL);
    same = va != NULL && vb != NULL && strcmp(va, vb) == 0;
    g_free(va);
    g_free(vb);
  }
  g_strfreev(ka);
  g_strfreev(kb);
  return same;
}

/* Where preset @name comes from; *file (may be NULL) receives the file whose group GStreamer
 * uses (the user's when it has one) and *group that file's keyfile (owned by @src), or NULL
 * when neither file holds it. */
static Origin preset_origin(const Sources *src, const char *name, const char **file,
                            GKeyFile **group)
{
  GKeyFile *factory = NULL;
  const char *factory_path = NULL;
  gboolean in_user = src->user != NULL && g_key_file_has_group(src->user, name);

  for (guint i = 0; i < src->factory->len && factory == NULL; i++)
    if (g_key_file_has_group(g_ptr_array_index(src->factory, i), name)) {
      factory = g_ptr_array_index(src->factory, i);
      factory_path = g_ptr_array_index(src->factory_paths, i);
    }
  if (file != NULL)
    *file = in_user ? src->user_path : factory_path;
  if (group != NULL)
    *group = in_user ? src->user : factory;
  if (in_user && factory == NULL)
    return ORIGIN_USER;
  if (in_user && !same_group(src->user, factory, name))
    return ORIGIN_MODIFIED;
  return ORIGIN_FACTORY;
}

/* ---- Output helpers ---- */

/* The shortest decimal text that reads back as @x (as a float when @single), without an
 * exponent from 1e-4 up to 1e15 (100, not 1e+02). */
static gchar *shortest_number(double x, gboolean single)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  int min_digits = 1;

  if (isfinite(x) && fabs(x) >= 1.0 && fabs(x) < 1e15)
    min_digits = (int) floor(log10(fabs(x))) + 1;
  for (int digits = min_digits; digits <= 17; digits++) {
    char format[8];
    g_snprintf(format, sizeof format, "%%.%dg", digits);
    g_ascii_formatd(buf, sizeof buf, format, x);
    double back = g_ascii_strtod(buf, NULL);
    if (single ? (float) back == (float) x : back == x)
      break;
  }
  return g_strdup(buf);
}

/* A property value as text that the property's deserialisation reads back: enum nicks, true and
 * false, the shortest exact decimal for floating point, strings as they are. */
static gchar *value_text(const GValue *v)
{
  GType type = G_VALUE_TYPE(v);

  if (type == G_TYPE_DOUBLE)
    return shortest_number(g_value_get_double(v), FALSE);
  if (type == G_TYPE_FLOAT)
    return shortest_number(g_value_get_float(v), TRUE);
  if (type == G_TYPE_STRING)
    return g_strdup(g_value_get_string(v) != NULL ? g_value_get_string(v) : "");
  if (type == G_TYPE_BOOLEAN)
    return g_strdup(g_value_get_boolean(v) ? "true" : "false");
  if (G_TYPE_IS_ENUM(type)) {
    GEnumClass *klass = g_type_class_ref(type);
    GEnumValue *e = g_enum_get_value(klass, g_value_get_enum(v));
    gchar *text = e != NULL ? g_strdup(e->value_nick) : g_strdup_printf("%d", g_value_get_enum(v));
    g_type_class_unref(klass);
    return text;
  }
  return gst_value_serialize(v);
}

/* @text as one VALUE of the chain syntax: as it is when it has nothing special, else in double
 * quotes with '"' and '\' escaped ('#' is quoted too: it starts a comment in a --chain-file). */
static void append_chain_value(GString *s, const char *text)
{
  if (*text != '\0' && strpbrk(text, " \t\r\n\f\v\"\\!#'") == NULL) {
    g_string_append(s, text);
    return;
  }
  g_string_append_c(s, '"');
  for (const char *p = text; *p; p++) {
    if (*p == '"' || *p == '\\')
      g_string_append_c(s, '\\');
    g_string_append_c(s, *p);
  }
  g_string_append_c(s, '"');
}

/* ---- Elements ---- */

/* An instance of @factory_name that implements GstPreset, or NULL after printing the usage
 * error (unknown element, or one without presets). */
static GstElement *preset_element(GOptionContext *ctx, const char *factory_name)
{
  GstElement *e = gst_element_factory_make(factory_name, NULL);

  if (e == NULL) {
    fx_tool_usage_error(ctx, "no element \"%s\" (gst-fx presets list shows the elements)",
                        factory_name);
    return NULL;
  }
  gst_object_ref_sink(e);
  if (!GST_IS_PRESET(e)) {
    fx_tool_usage_error(ctx, "%s has no presets (it does not implement GstPreset)", factory_name);
    gst_object_unref(e);
    return NULL;
  }
  return e;
}

static gint compare_names(gconstpointer a, gconstpointer b)
{
  return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* The factory names of the plugin's elements that implement GstPreset, sorted. */
static GPtrArray *plugin_preset_elements(void)
{
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  GstElementFactory *chain = gst_element_factory_find("fxchain");
  GList *features, *l;
  const char *plugin;

  if (chain == NULL)
    return names;
  plugin = gst_plugin_feature_get_plugin_name(GST_PLUGIN_FEATURE(chain));
  features = gst_registry_get_feature_list_by_plugin(gst_registry_get(), plugin);
  for (l = features; l != NULL; l = l->next) {
    GstPluginFeature *loaded;
    if (!GST_IS_ELEMENT_FACTORY(l->data))
      continue;
    loaded = gst_plugin_feature_load(l->data);
    if (loaded == NULL)
      continue;
    if (g_type_is_a(gst_element_factory_get_element_type(GST_ELEMENT_FACTORY(loaded)),
                    GST_TYPE_PRESET))
      g_ptr_array_add(names, g_strdup(gst_plugin_feature_get_name(loaded)));
    gst_object_unref(loaded);
  }
  gst_plugin_feature_list_free(features);
  gst_object_unref(chain);
  g_ptr_array_sort(names, compare_names);
  return names;
}

/* Whether @e has a preset called @name. */
static gboolean has_preset(GstElement *e, const char *name)
{
  gchar **names = gst_preset_get_preset_names(GST_PRESET(e));
  gboolean found = names != NULL && g_strv_contains((const gchar *const *) names, name);

  g_strfreev(names);
  return found;
}

static gchar *preset_comment(GstElement *e, const char *name)
{
  gchar *comment = NULL;

  if (!gst_preset_get_meta(GST_PRESET(e), name, "comment", &comment))
    g_clear_pointer(&comment, g_free);
  return comment;
}

/* ---- list ---- */

static void list_element(GstElement *e, const char *factory_name, gboolean json, GString *out)
{
  const char *type_name = G_OBJECT_TYPE_NAME(e);
  gchar **names = gst_preset_get_preset_names(GST_PRESET(e));
  guint n = names != NULL ? g_strv_length(names) : 0;
  Sources src;

  sources_init(&src, type_name);
  if (json) {
    g_string_append(out, "  {\"element\": ");
    fx_tool_json_string(out, factory_name);
    g_string_append(out, ", \"type\": ");
    fx_tool_json_string(out, type_name);
    g_string_append(out, ", \"user_file\": ");
    fx_tool_json_string(out, src.user_path);
    g_string_append(out, ", \"factory_files\": [");
    for (guint i = 0; i < src.factory_paths->len; i++) {
      g_string_append(out, i ? ", " : "");
      fx_tool_json_string(out, g_ptr_array_index(src.factory_paths, i));
    }
    g_string_append(out, "], \"presets\": [");
  } else if (n == 0) {
    g_string_append_printf(out, "%s (%s): no presets\n", factory_name, type_name);
  } else {
    g_string_append_printf(out, "%s (%s): %u preset%s\n", factory_name, type_name, n,
                           n == 1 ? "" : "s");
  }
  for (guint i = 0; i < n; i++) {
    gchar *comment = preset_comment(e, names[i]);
    Origin origin = preset_origin(&src, names[i], NULL, NULL);
    if (json) {
      g_string_append(out, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
      fx_tool_json_string(out, names[i]);
      g_string_append_printf(out, ", \"origin\": \"%s\", \"comment\": ", origin_names[origin]);
      if (comment != NULL)
        fx_tool_json_string(out, comment);
      else
        g_string_append(out, "null");
      g_string_append_c(out, '}');
    } else if (comment != NULL) {
      g_string_append_printf(out, "  %-22s %-9s%s\n", names[i], origin_names[origin], comment);
    } else {
      g_string_append_printf(out, "  %-22s %s\n", names[i], origin_names[origin]);
    }
    g_free(comment);
  }
  if (json)
    g_string_append(out, n ? "\n  ]}" : "]}");
  sources_clear(&src);
  g_strfreev(names);
}

/* The element of ELEMENT NAME (args, exactly two), which has preset NAME (a new ref), or NULL
 * after a usage error naming `verb`. */
static GstElement *named_preset(GOptionContext *ctx, gchar **args, const char *verb)
{
  GstElement *e;

  if (args[0] == NULL || args[1] == NULL || args[2] != NULL) {
    fx_tool_usage_error(ctx, "%s takes ELEMENT NAME", verb);
    return NULL;
  }
  if ((e = preset_element(ctx, args[0])) == NULL)
    return NULL;
  if (!has_preset(e, args[1])) {
    fx_tool_usage_error(ctx, "%s has no preset \"%s\" (gst-fx presets list %s)", args[0], args[1],
                        args[0]);
    gst_object_unref(e);
    return NULL;
  }
  return e;
}

static int presets_list(GOptionContext *ctx, gchar **args, gboolean json)
{
  GPtrArray *elements = NULL;
  GPtrArray *instances = g_ptr_array_new_with_free_func(gst_object_unref);
  GString *out = g_string_new(json ? "[\n" : "");
  int status = FX_EXIT_OK;

  if (args[0] == NULL) {
    elements = plugin_preset_elements();
    if (elements->len == 0) {
      fprintf(stderr, "gst-fx: the gst-fx plugin is not found (set GST_PLUGIN_PATH_1_0 or "
                      "GST_FX_PLUGIN_DIR to its directory)\n");
      status = FX_EXIT_FAILURE;
      goto out;
    }
  } else {
    elements = g_ptr_array_new_with_free_func(g_free);
    for (gchar **a = args; *a != NULL; a++)
      g_ptr_array_add(elements, g_strdup(*a));
  }
  /* Every name is checked before anything is printed. */
  for (guint i = 0; i < elements->len; i++) {
    GstElement *e = preset_element(ctx, g_ptr_array_index(elements, i));
    if (e == NULL) {
      status = FX_EXIT_USAGE;
      goto out;
    }
    g_ptr_array_add(instances, e);
  }
  for (guint i = 0; i < instances->len; i++) {
    list_element(g_ptr_array_index(instances, i), g_ptr_array_index(elements, i), json, out);
    if (json)
      g_string_append(out, i + 1 < instances->len ? ",\n" : "\n");
  }
  if (json) {
    g_string_append(out, "]\n");
  } else {
    gchar *dir = user_presets_dir();
    g_string_append_printf(out, "Your presets (gst-fx presets save) are kept in %s.\n", dir);
    g_free(dir);
  }
  fputs(out->str, stdout);
out:
  if (elements != NULL)
    g_ptr_array_unref(elements);
  g_ptr_array_unref(instances);
  g_string_free(out, TRUE);
  return status;
}

/* ---- show ---- */

/* Reads setting @key (a property, or child::property) of @e into @value (unset by the caller);
 * FALSE when @e has no such setting. */
static gboolean read_setting(GstElement *e, const char *key, GValue *value)
{
  GObject *target = NULL;
  GParamSpec *pspec = NULL;

  if (strstr(key, "::") != NULL && GST_IS_CHILD_PROXY(e)) {
    if (!gst_child_proxy_lookup(GST_CHILD_PROXY(e), key, &target, &pspec))
      return FALSE;
  } else {
    pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(e), key);
    if (pspec == NULL)
      return FALSE;
    target = g_object_ref(G_OBJECT(e));
  }
  g_value_init(value, pspec->value_type);
  g_object_get_property(target, pspec->name, value);
  g_object_unref(target);
  return TRUE;
}

static void json_setting(GString *s, const GValue *v, const char *text)
{
  GType type = G_VALUE_TYPE(v);

  if (type == G_TYPE_BOOLEAN || type == G_TYPE_INT || type == G_TYPE_UINT || type == G_TYPE_INT64 ||
      type == G_TYPE_UINT64 || type == G_TYPE_LONG || type == G_TYPE_ULONG)
    g_string_append(s, text);
  else if ((type == G_TYPE_DOUBLE || type == G_TYPE_FLOAT) && isfinite(g_ascii_strtod(text, NULL)))
    g_string_append(s, text);
  else
    fx_tool_json_string(s, text);
}

static int presets_show(GOptionContext *ctx, gchar **args, gboolean json)
{
  GstElement *e;
  Sources src;
  const char *file = NULL;
  GKeyFile *group = NULL;
  gchar **props, *comment;
  Origin origin;
  GString *chain, *text = g_string_new(NULL);

  if ((e = named_preset(ctx, args, "show")) == NULL)
    return FX_EXIT_USAGE;
  if (!gst_preset_load_preset(GST_PRESET(e), args[1])) {
    fprintf(stderr, "gst-fx: %s: preset \"%s\" does not load\n", args[0], args[1]);
    gst_object_unref(e);
    return FX_EXIT_FAILURE;
  }
  sources_init(&src, G_OBJECT_TYPE_NAME(e));
  origin = preset_origin(&src, args[1], &file, &group);
  comment = preset_comment(e, args[1]);
  /* The settings the preset names: its group's keys (in the file's order) that are settings of
   * the element after loading (gst_preset_get_property_names; fxeq's bands exist by now). */
  props = gst_preset_get_property_names(GST_PRESET(e));
  chain = g_string_new(args[0]);
  gchar **keys = group != NULL ? g_key_file_get_keys(group, args[1], NULL, NULL) : NULL;
  if (keys == NULL) /* no file known: every setting */
    keys = g_strdupv(props);
  if (json) {
    g_string_append(text, "{\"element\": ");
    fx_tool_json_string(text, args[0]);
    g_string_append(text, ", \"type\": ");
    fx_tool_json_string(text, G_OBJECT_TYPE_NAME(e));
    g_string_append(text, ", \"name\": ");
    fx_tool_json_string(text, args[1]);
    g_string_append_printf(text, ", \"origin\": \"%s\", \"file\": ", origin_names[origin]);
    if (file != NULL)
      fx_tool_json_string(text, file);
    else
      g_string_append(text, "null");
    g_string_append(text, ", \"comment\": ");
    if (comment != NULL)
      fx_tool_json_string(text, comment);
    else
      g_string_append(text, "null");
    g_string_append(text, ",\n \"properties\": {");
  } else {
    g_string_append_printf(text, "%s (%s) preset \"%s\": %s%s%s\n", args[0], G_OBJECT_TYPE_NAME(e),
                           args[1], origin_names[origin], file != NULL ? ", " : "",
                           file != NULL ? file : "");
    if (comment != NULL)
      g_string_append_printf(text, "  %s\n", comment);
  }
  guint shown = 0;
  for (gchar **k = keys; *k != NULL; k++) {
    GValue value = G_VALUE_INIT;
    gchar *v;
    if (props == NULL || !g_strv_contains((const gchar *const *) props, *k) ||
        !read_setting(e, *k, &value))
      continue;
    v = value_text(&value);
    if (json) {
      g_string_append(text, shown ? ",\n  " : "\n  ");
      fx_tool_json_string(text, *k);
      g_string_append(text, ": ");
      json_setting(text, &value, v);
    } else {
      g_string_append_printf(text, "  %s = %s\n", *k, v);
    }
    g_string_append_printf(chain, " %s=", *k);
    append_chain_value(chain, v);
    shown++;
    g_free(v);
    g_value_unset(&value);
  }
  if (json) {
    g_string_append(text, shown ? "\n },\n \"chain\": " : "},\n \"chain\": ");
    fx_tool_json_string(text, chain->str);
    g_string_append(text, "}\n");
  } else {
    g_string_append_printf(text, "chain: %s\n", chain->str);
  }
  fputs(text->str, stdout);
  g_strfreev(keys);
  g_strfreev(props);
  g_free(comment);
  g_string_free(chain, TRUE);
  g_string_free(text, TRUE);
  sources_clear(&src);
  gst_object_unref(e);
  return FX_EXIT_OK;
}

/* ---- save and delete ---- */

/* A preset name that keyfiles, GStreamer's launch syntax (@preset=NAME keeps quotes) and the
 * chain syntax take as it is: a letter or digit, then letters, digits, '-', '_', '.' and '+'. */
static gboolean valid_name(const char *name)
{
  if (!g_ascii_isalnum(*name))
    return FALSE;
  for (const char *p = name; *p; p++)
    if (!g_ascii_isalnum(*p) && strchr("-_.+", *p) == NULL)
      return FALSE;
  return TRUE;
}

/* PROPERTY=VALUE with PROPERTY an identifier of the chain syntax (child::property allowed). */
static gboolean valid_assignment(const char *arg)
{
  const char *eq = strchr(arg, '=');

  if (eq == NULL || eq == arg || !(g_ascii_isalnum(*arg) || *arg == '_'))
    return FALSE;
  for (const char *p = arg; p < eq; p++)
    if (!g_ascii_isalnum(*p) && strchr("_-%:", *p) == NULL)
      return FALSE;
  return TRUE;
}

/* Whether the user's file @src->user_path is one of the factory files. */
static gboolean user_file_is_factory(const Sources *src)
{
  gchar *user = real_path(src->user_path);
  gboolean same = FALSE;

  for (guint i = 0; i < src->factory_paths->len && !same; i++) {
    gchar *f = real_path(g_ptr_array_index(src->factory_paths, i));
    same = strcmp(f, user) == 0;
    g_free(f);
  }
  g_free(user);
  return same;
}

static int presets_save(GOptionContext *ctx, gchar **args, const char *comment, gboolean force)
{
  GstElement *probe = NULL, *fxchain = NULL;
  GObject *stage = NULL;
  GString *desc;
  gchar *plan = NULL, *note = NULL;
  GError *error = NULL;
  Sources src;
  gboolean have_src = FALSE;
  int status = FX_EXIT_OK;

  if (args[0] == NULL || args[1] == NULL)
    return fx_tool_usage_error(ctx, "save takes ELEMENT NAME [PROPERTY=VALUE...]");
  if (!valid_name(args[1]))
    return fx_tool_usage_error(ctx,
                               "\"%s\" is not a preset name (a letter or digit, then letters, "
                               "digits, '-', '_', '.', '+')",
                               args[1]);
  for (gchar **a = args + 2; *a != NULL; a++)
    if (!valid_assignment(*a))
      return fx_tool_usage_error(ctx, "\"%s\" is not PROPERTY=VALUE", *a);
  if ((probe = preset_element(ctx, args[0])) == NULL)
    return FX_EXIT_USAGE;

  /* The stage, with its properties set by fxchain's parser. */
  desc = g_string_new(args[0]);
  for (gchar **a = args + 2; *a != NULL; a++) {
    const char *eq = strchr(*a, '=');
    g_string_append_printf(desc, " %.*s=", (int) (eq - *a), *a);
    append_chain_value(desc, eq + 1);
  }
  if ((fxchain = fx_tool_make("fxchain", NULL, &error)) == NULL) {
    fprintf(stderr, "gst-fx: %s\n", error->message);
    status = FX_EXIT_FAILURE;
    goto out;
  }
  gst_object_ref_sink(fxchain);
  g_object_set(fxchain, "chain", desc->str, NULL);
  g_object_get(fxchain, "plan", &plan, NULL);
  if (plan != NULL && g_str_has_prefix(plan, "error: ")) {
    status = fx_tool_usage_error(ctx, "%s", plan + strlen("error: "));
    goto out;
  }
  if (gst_child_proxy_get_children_count(GST_CHILD_PROXY(fxchain)) != 1 ||
      (stage = gst_child_proxy_get_child_by_index(GST_CHILD_PROXY(fxchain), 0)) == NULL ||
      !GST_IS_PRESET(stage)) {
    fprintf(stderr, "gst-fx: %s: the element cannot be set up to save a preset\n", args[0]);
    status = FX_EXIT_FAILURE;
    goto out;
  }

  sources_init(&src, G_OBJECT_TYPE_NAME(stage));
  have_src = TRUE;
  if (user_file_is_factory(&src)) {
    fprintf(stderr,
            "gst-fx: %s is a factory presets file, which gst-fx never writes (set "
            "XDG_DATA_HOME to another directory)\n",
            src.user_path);
    status = FX_EXIT_FAILURE;
    goto out;
  }
  if (has_preset(GST_ELEMENT(stage), args[1])) {
    if (!force) {
      status = fx_tool_usage_error(ctx,
                                   "%s already has a preset \"%s\" (%s); --force replaces it in "
                                   "your presets",
                                   args[0], args[1],
                                   origin_names[preset_origin(&src, args[1], NULL, NULL)]);
      goto out;
    }
    /* Saving sets the keys of an existing group and keeps the others (an old comment, the
     * bands of a larger fxeq): the old preset goes first. */
    gst_preset_delete_preset(GST_PRESET(stage), args[1]);
  }
  if (comment != NULL)
    note = g_strdelimit(g_strdup(comment), "\r\n\t\f\v", ' ');
  if (!gst_preset_save_preset(GST_PRESET(stage), args[1]) ||
      (note != NULL && *note != '\0' &&
       !gst_preset_set_meta(GST_PRESET(stage), args[1], "comment", note))) {
    fprintf(stderr, "gst-fx: cannot write %s\n", src.user_path);
    status = FX_EXIT_FAILURE;
    goto out;
  }
  printf("%s: saved preset \"%s\" in %s\n", args[0], args[1], src.user_path);

out:
  if (have_src)
    sources_clear(&src);
  g_clear_error(&error);
  g_free(plan);
  g_free(note);
  g_string_free(desc, TRUE);
  if (stage != NULL)
    g_object_unref(stage);
  if (fxchain != NULL)
    gst_object_unref(fxchain);
  gst_object_unref(probe);
  return status;
}

static int presets_delete(GOptionContext *ctx, gchar **args)
{
  GstElement *e;
  Sources src;
  Origin origin;
  int status = FX_EXIT_OK;

  if ((e = named_preset(ctx, args, "delete")) == NULL)
    return FX_EXIT_USAGE;
  sources_init(&src, G_OBJECT_TYPE_NAME(e));
  origin = preset_origin(&src, args[1], NULL, NULL);
  if (origin == ORIGIN_FACTORY) {
    status = fx_tool_usage_error(ctx,
                                 "\"%s\" is a factory preset of %s; only your own presets are "
                                 "deleted",
                                 args[1], args[0]);
  } else if (origin == ORIGIN_MODIFIED) {
    /* Deleting it from the user's file would hide the factory version too: that file replaces
     * the factory files of the element. */
    status = fx_tool_usage_error(ctx,
                                 "\"%s\" is a factory preset of %s that you saved over; removing "
                                 "%s restores every factory preset of %s",
                                 args[1], args[0], src.user_path, args[0]);
  } else if (user_file_is_factory(&src) || !gst_preset_delete_preset(GST_PRESET(e), args[1])) {
    fprintf(stderr, "gst-fx: cannot write %s\n", src.user_path);
    status = FX_EXIT_FAILURE;
  } else {
    printf("%s: deleted preset \"%s\" from %s\n", args[0], args[1], src.user_path);
  }
  sources_clear(&src);
  gst_object_unref(e);
  return status;
}

int fx_cmd_presets(int argc, char **argv)
{
  gboolean json = FALSE, force = FALSE;
  gchar *comment = NULL, **args = NULL;
  const GOptionEntry entries[] = {
      {"json", 'j', 0, G_OPTION_ARG_NONE, &json, "list, show: print JSON", NULL},
      {"comment", 0, 0, G_OPTION_ARG_STRING, &comment, "save: the preset's description", "TEXT"},
      {"force", 'f', 0, G_OPTION_ARG_NONE, &force, "save: replace a preset of the same name", NULL},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &args, NULL,
       "list|show|save|delete ..."},
      {NULL, 0, 0, 0, NULL, NULL, NULL},
  };
  GOptionContext *ctx = g_option_context_new(NULL);
  const char *sub;
  int status;

  g_set_prgname("gst-fx presets");
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_option_context_set_summary(
      ctx,
      "Element presets (GstPreset): named sets of an element's settings, which a chain loads\n"
      "with ELEMENT @preset=NAME.\n\n"
      "  list [--json] [ELEMENT...]   the presets of each element (default: every element of\n"
      "                               the plugin) with their origin: factory (installed with\n"
      "                               gst-fx), user (yours) or modified (a factory preset you\n"
      "                               saved over), and their comments\n"
      "  show [--json] ELEMENT NAME   the preset's comment and the settings it sets, and the\n"
      "                               same as a chain element (chain: ...)\n"
      "  save [--comment TEXT] [--force] ELEMENT NAME [PROPERTY=VALUE...]\n"
      "                               saves the element's settings, PROPERTY=VALUE as in\n"
      "                               --chain and the defaults elsewhere, as your preset NAME\n"
      "                               (in $XDG_DATA_HOME/gstreamer-1.0/presets; an existing\n"
      "                               NAME only with --force)\n"
      "  delete ELEMENT NAME          deletes one of your presets\n\n"
      "Factory preset files are never written. Exit status: 0 success, 1 a presets file cannot\n"
      "be written, 2 bad usage.");
  if (!fx_tool_parse_options(ctx, &argc, &argv)) {
    status = FX_EXIT_USAGE;
    goto out;
  }
  sub = args != NULL ? args[0] : NULL;
  if (sub == NULL) {
    status = fx_tool_usage_error(ctx, "expected list, show, save or delete");
    goto out;
  }
  if (strcmp(sub, "list") != 0 && strcmp(sub, "show") != 0 && strcmp(sub, "save") != 0 &&
      strcmp(sub, "delete") != 0) {
    status =
        fx_tool_usage_error(ctx, "unknown presets command \"%s\" (list, show, save, delete)", sub);
    goto out;
  }
  if (json && strcmp(sub, "list") != 0 && strcmp(sub, "show") != 0) {
    status = fx_tool_usage_error(ctx, "--json is an option of list and show");
    goto out;
  }
  if ((comment != NULL || force) && strcmp(sub, "save") != 0) {
    status = fx_tool_usage_error(ctx, "%s is an option of save",
                                 comment != NULL ? "--comment" : "--force");
    goto out;
  }
  fx_tool_init();
  if (strcmp(sub, "list") == 0)
    status = presets_list(ctx, args + 1, json);
  else if (strcmp(sub, "show") == 0)
    status = presets_show(ctx, args + 1, json);
  else if (strcmp(sub, "save") == 0)
    status = presets_save(ctx, args + 1, comment, force);
  else
    status = presets_delete(ctx, args + 1);
out:
  g_option_context_free(ctx);
  g_strfreev(args);
  g_free(comment);
  return status;
}
