/* gst-fx — helpers shared by the commands (and the fusion benchmark): finding the plugin, option
 * parsing, running a pipeline to EOS, the IIR test chains.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "gst-fx.h"

#include <glib-unix.h>
#include <glib/gstdio.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The directory of the running program, symbolic links resolved; NULL when unknown. */
static gchar *fx_tool_exe_dir(void)
{
  gchar *exe = g_file_read_link("/proc/self/exe", NULL);
  gchar *dir = NULL;

  if (exe != NULL) {
    char *real = realpath(exe, NULL);
    dir = g_path_get_dirname(real != NULL ? real : exe);
    free(real);
    g_free(exe);
  }
  return dir;
}

gboolean fx_tool_running_from_build_tree(void)
{
#ifdef FX_TOOL_BUILD_DIR
  gchar *dir = fx_tool_exe_dir();
  char *build = realpath(FX_TOOL_BUILD_DIR, NULL);
  gboolean same = dir != NULL && build != NULL && strcmp(dir, build) == 0;

  free(build);
  g_free(dir);
  return same;
#else
  return FALSE;
#endif
}

/* The plugin directory of an installed gst-fx: first relative to the program's own directory
 * (FX_PLUGIN_RELATIVE_DIR, bindir to the plugin directory), so that an installation moved as a
 * whole or staged under DESTDIR finds its own plugin; then the absolute directory of the
 * configured prefix. NULL when neither exists. */
static gchar *fx_tool_installed_plugin_dir(void)
{
#if defined(FX_PLUGIN_RELATIVE_DIR) && defined(FX_PLUGIN_INSTALL_DIR)
  gchar *exe_dir = fx_tool_exe_dir();

  if (exe_dir != NULL) {
    gchar *dir = g_canonicalize_filename(FX_PLUGIN_RELATIVE_DIR, exe_dir);
    g_free(exe_dir);
    if (g_file_test(dir, G_FILE_TEST_IS_DIR))
      return dir;
    g_free(dir);
  }
  if (g_file_test(FX_PLUGIN_INSTALL_DIR, G_FILE_TEST_IS_DIR))
    return g_strdup(FX_PLUGIN_INSTALL_DIR);
#endif
  return NULL;
}

/* Run from the build tree with no plugin path of the user's, the build's own plugin comes first:
 * GStreamer registers one plugin per file name, GST_PLUGIN_PATH before the system path, so a
 * packaged libgstfx.so must not shadow the one just built. Before gst_init(). */
static void fx_tool_prefer_build_tree(void)
{
#ifdef FX_PLUGIN_DIR
  const char *path = g_getenv("GST_PLUGIN_PATH_1_0");
  const char *fx_dir = g_getenv("GST_FX_PLUGIN_DIR");

  if ((path != NULL && *path != '\0') || (fx_dir != NULL && *fx_dir != '\0'))
    return;
  if (fx_tool_running_from_build_tree() && g_file_test(FX_PLUGIN_DIR, G_FILE_TEST_IS_DIR))
    g_setenv("GST_PLUGIN_PATH_1_0", FX_PLUGIN_DIR, TRUE);
#endif
}

/* The factory presets' directory of this gst-fx: the source tree's presets/ from the build tree;
 * installed, relative to the program (FX_PRESETS_RELATIVE_DIR), then the configured one. NULL
 * when none exists. */
static gchar *fx_tool_presets_dir(void)
{
  gchar *dir = NULL;

  if (fx_tool_running_from_build_tree()) {
#ifdef FX_PRESETS_SOURCE_DIR
    dir = g_strdup(FX_PRESETS_SOURCE_DIR);
#endif
  } else {
#if defined(FX_PRESETS_RELATIVE_DIR) && defined(FX_PRESETS_INSTALL_DIR)
    gchar *exe_dir = fx_tool_exe_dir();
    if (exe_dir != NULL) {
      dir = g_canonicalize_filename(FX_PRESETS_RELATIVE_DIR, exe_dir);
      g_free(exe_dir);
    }
    if (dir == NULL || !g_file_test(dir, G_FILE_TEST_IS_DIR)) {
      g_free(dir);
      dir = g_strdup(FX_PRESETS_INSTALL_DIR);
    }
#endif
  }
  if (dir != NULL && !g_file_test(dir, G_FILE_TEST_IS_DIR))
    g_clear_pointer(&dir, g_free);
  return dir;
}

/* GStreamer reads factory presets from its own prefix's datadir and GST_PRESET_PATH (when an
 * element's presets are first used, so after gst_init() is soon enough): the build tree's and an
 * installation's under another prefix are found only through the variable, so the directory is
 * appended to it (after the user's own entries). */
static void fx_tool_add_presets_dir(void)
{
  gchar *dir = fx_tool_presets_dir();
  const char *old = g_getenv("GST_PRESET_PATH");
  gchar *path;

  if (dir == NULL)
    return;
  path = old != NULL && *old != '\0' ? g_strconcat(old, G_SEARCHPATH_SEPARATOR_S, dir, NULL)
                                     : g_strdup(dir);
  g_setenv("GST_PRESET_PATH", path, TRUE);
  g_free(path);
  g_free(dir);
}

void fx_tool_find_plugin(void)
{
  fx_tool_add_presets_dir();
  GstRegistry *registry = gst_registry_get();
  const char *dir = g_getenv("GST_FX_PLUGIN_DIR");
  GstElementFactory *factory;

  if (dir != NULL && *dir != '\0') {
    gst_registry_scan_path(registry, dir);
    return;
  }
  factory = gst_element_factory_find("fxchain");
  if (factory != NULL) {
    gst_object_unref(factory);
    return;
  }
  if (fx_tool_running_from_build_tree()) {
#ifdef FX_PLUGIN_DIR
    if (g_file_test(FX_PLUGIN_DIR, G_FILE_TEST_IS_DIR))
      gst_registry_scan_path(registry, FX_PLUGIN_DIR);
#endif
  } else {
    gchar *installed = fx_tool_installed_plugin_dir();
    if (installed != NULL)
      gst_registry_scan_path(registry, installed);
    g_free(installed);
  }
}

gchar *fx_tool_plugin_filename(void)
{
  GstPlugin *plugin = NULL;
  GstElementFactory *factory = gst_element_factory_find("fxchain");
  gchar *filename = NULL;

  if (factory != NULL) {
    plugin = gst_plugin_feature_get_plugin(GST_PLUGIN_FEATURE(factory));
    gst_object_unref(factory);
  }
  if (plugin != NULL) {
    filename = g_strdup(gst_plugin_get_filename(plugin));
    gst_object_unref(plugin);
  }
  return filename;
}

/* "gst-fx process" (g_set_prgname() of each command) -> "Try 'gst-fx process --help'." */
static void print_usage_hint(void)
{
  const char *prg = g_get_prgname();

  fprintf(stderr, "Try '%s --help'.\n",
          prg != NULL && g_str_has_prefix(prg, "gst-fx") ? prg : "gst-fx");
}

int fx_tool_usage_error(GOptionContext *ctx, const char *format, ...)
{
  va_list ap;
  gchar *msg;

  (void) ctx; /* the full help is `--help`'s, on stdout */
  va_start(ap, format);
  msg = g_strdup_vprintf(format, ap);
  va_end(ap);
  g_strdelimit(msg, "\r\n", ' ');
  fprintf(stderr, "gst-fx: %s\n", msg);
  print_usage_hint();
  g_free(msg);
  return FX_EXIT_USAGE;
}

gboolean fx_tool_parse_options(GOptionContext *ctx, int *argc, char ***argv)
{
  GError *error = NULL;

  if (!g_option_context_parse(ctx, argc, argv, &error)) {
    fx_tool_usage_error(ctx, "%s", error->message);
    g_error_free(error);
    return FALSE;
  }
  return TRUE;
}

int fx_tool_parse_command_line(GOptionContext *ctx, int *argc, char ***argv)
{
  if (!fx_tool_parse_options(ctx, argc, argv))
    return FX_EXIT_USAGE;
  if (*argc > 1)
    return fx_tool_usage_error(ctx, "unexpected argument \"%s\"", (*argv)[1]);
  return FX_EXIT_OK;
}

void fx_tool_print_warnings(const GPtrArray *warnings)
{
  for (guint i = 0; warnings != NULL && i < warnings->len; i++)
    fprintf(stderr, "gst-fx: warning: %s\n", (const char *) g_ptr_array_index(warnings, i));
}

void fx_tool_pipeline_free(GstElement *pipeline)
{
  if (pipeline == NULL)
    return;
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

GstElement *fx_tool_make(const char *factory, const char *name, GError **error)
{
  GstElement *element = gst_element_factory_make(factory, name);

  if (element == NULL)
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_MISSING_PLUGIN,
                "no element \"%s\" (is the gst-fx plugin installed or built? set "
                "GST_PLUGIN_PATH_1_0 or GST_FX_PLUGIN_DIR to its directory)",
                factory);
  return element;
}

static void add_warning(GPtrArray **warnings, const char *message)
{
  if (warnings == NULL)
    return;
  if (*warnings == NULL)
    *warnings = g_ptr_array_new_with_free_func(g_free);
  if (g_ptr_array_find_with_equal_func(*warnings, message, g_str_equal, NULL))
    return;
  g_ptr_array_add(*warnings, g_strdup(message));
}

/* The bus message as one line: newlines become spaces. */
static void set_one_line_error(GError **error, const GError *err)
{
  gchar *line = g_strdup(err->message != NULL ? err->message : "unknown error");

  g_strdelimit(line, "\r\n", ' ');
  g_set_error_literal(error, err->domain, err->code, line);
  g_free(line);
}

gboolean fx_tool_run_to_eos(GstElement *pipeline, GPtrArray **warnings, GError **error)
{
  GstBus *bus = gst_element_get_bus(pipeline);
  gboolean ok = FALSE;
  gboolean failed_start = FALSE;

  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    failed_start = TRUE;

  for (;;) {
    /* After a failed state change the error (if any) is already on the bus. */
    GstMessage *msg =
        gst_bus_timed_pop_filtered(bus, failed_start ? 0 : GST_CLOCK_TIME_NONE,
                                   GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    GError *err = NULL;

    if (msg == NULL) {
      g_set_error_literal(error, GST_CORE_ERROR, GST_CORE_ERROR_STATE_CHANGE,
                          "the pipeline failed to start");
      break;
    }
    switch (GST_MESSAGE_TYPE(msg)) {
    case GST_MESSAGE_EOS:
      ok = TRUE;
      break;
    case GST_MESSAGE_ERROR:
      gst_message_parse_error(msg, &err, NULL);
      set_one_line_error(error, err);
      g_error_free(err);
      break;
    case GST_MESSAGE_WARNING:
      gst_message_parse_warning(msg, &err, NULL);
      add_warning(warnings, err->message);
      g_error_free(err);
      break;
    default:
      break;
    }
    gboolean done = GST_MESSAGE_TYPE(msg) != GST_MESSAGE_WARNING;
    gst_message_unref(msg);
    if (done)
      break;
  }
  gst_object_unref(bus);
  return ok;
}

gchar *fx_tool_iir_chain(guint depth)
{
  GString *s = g_string_new(NULL);

  for (guint i = 0; i < depth; i++) {
    if (i > 0)
      g_string_append(s, " ! ");
    switch (i % 3) {
    case 0:
      /* peaking bells spread over 100 Hz .. 12.8 kHz, alternating boost and cut */
      g_string_append_printf(s, "fxbiquad name=s%u type=peaking frequency=%u q=1.0 gain=%s", i,
                             100u << ((i / 3) % 8), (i / 3) % 2 ? "-1.5" : "1.5");
      break;
    case 1:
      g_string_append_printf(s, "fxbutterworth name=s%u mode=high-pass cutoff=%u order=2", i,
                             20 + i);
      break;
    default:
      /* scipy.signal.butter(2, 0.8, output='sos'): a 19.2 kHz low-pass at 48 kHz */
      g_string_append_printf(s,
                             "fxsos name=s%u sections=\"0.63894553 1.27789105 0.63894553 1 "
                             "1.1429805 0.4128016\"",
                             i);
      break;
    }
  }
  return g_string_free(s, FALSE);
}

gboolean fx_tool_parse_uint_list(const char *text, guint max, GArray **out)
{
  gchar **parts;
  GArray *values;
  gboolean ok = TRUE;

  if (text == NULL || *text == '\0')
    return FALSE;
  parts = g_strsplit(text, ",", -1);
  values = g_array_new(FALSE, FALSE, sizeof(guint));
  for (gchar **p = parts; *p != NULL; p++) {
    gchar *end = NULL;
    gchar *item = g_strstrip(*p);
    guint64 v;

    if (*item == '\0' || !g_ascii_isdigit(*item)) {
      ok = FALSE;
      break;
    }
    v = g_ascii_strtoull(item, &end, 10);
    if (*end != '\0' || v < 1 || v > max) {
      ok = FALSE;
      break;
    }
    guint u = (guint) v;
    g_array_append_val(values, u);
  }
  g_strfreev(parts);
  if (!ok) {
    g_array_unref(values);
    return FALSE;
  }
  *out = values;
  return TRUE;
}

void fx_tool_init(void)
{
  fx_tool_prefer_build_tree();
  gst_init(NULL, NULL);
  fx_tool_find_plugin();
}

gboolean fx_tool_get_u64(gpointer object, const char *property, guint64 *value)
{
  GParamSpec *pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(object), property);

  if (pspec == NULL || pspec->value_type != G_TYPE_UINT64)
    return FALSE;
  g_object_get(object, property, value, NULL);
  return TRUE;
}

void fx_tool_chain_run_init(FxChainRun *run, const char *chain, gboolean fuse, const char *device)
{
  *run = (FxChainRun){
      .chain = chain,
      .fuse = fuse,
      .device = device,
      .precision = NULL,
      .format = "F32LE",
      .rate = 48000,
      .channels = 2,
      .frames = 1024,
      .buffers = 1,
  };
}

GstElement *fx_tool_chain_pipeline(const FxChainRun *run, GstElement **fxchain, GError **error)
{
  GstElement *pipeline, *src, *filter, *chain, *sink;
  GstCaps *caps;

  chain = fx_tool_make("fxchain", "fxchain", error);
  if (chain == NULL)
    return NULL;
  pipeline = gst_pipeline_new("gst-fx");
  src = gst_element_factory_make("audiotestsrc", NULL);
  filter = gst_element_factory_make("capsfilter", NULL);
  sink = gst_element_factory_make("fakesink", NULL);
  if (src == NULL || filter == NULL || sink == NULL) {
    g_set_error_literal(error, GST_CORE_ERROR, GST_CORE_ERROR_MISSING_PLUGIN,
                        "audiotestsrc, capsfilter or fakesink missing (install "
                        "gstreamer1.0-plugins-base)");
    gst_object_unref(pipeline);
    gst_object_unref(chain);
    g_clear_pointer(&src, gst_object_unref);
    g_clear_pointer(&filter, gst_object_unref);
    g_clear_pointer(&sink, gst_object_unref);
    return NULL;
  }
  gst_util_set_object_arg(G_OBJECT(src), "wave", "white-noise");
  g_object_set(src, "num-buffers", (gint) run->buffers, "samplesperbuffer", (gint) run->frames,
               NULL);
  caps = gst_caps_new_simple("audio/x-raw", "format", G_TYPE_STRING, run->format, "rate",
                             G_TYPE_INT, run->rate, "channels", G_TYPE_INT, run->channels, "layout",
                             G_TYPE_STRING, "interleaved", NULL);
  if (run->channels > 2)
    gst_caps_set_simple(caps, "channel-mask", GST_TYPE_BITMASK, (guint64) 0, NULL);
  g_object_set(filter, "caps", caps, NULL);
  gst_caps_unref(caps);
  g_object_set(sink, "sync", FALSE, NULL);

  g_object_set(chain, "chain", run->chain, "fuse", run->fuse, NULL);
  if (run->device != NULL)
    gst_util_set_object_arg(G_OBJECT(chain), "device", run->device);
  if (run->precision != NULL)
    gst_util_set_object_arg(G_OBJECT(chain), "precision", run->precision);

  gst_bin_add_many(GST_BIN(pipeline), src, filter, chain, sink, NULL);
  if (!gst_element_link_many(src, filter, chain, sink, NULL)) {
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
                "could not link audiotestsrc ! %s,rate=%d,channels=%d ! fxchain ! fakesink",
                run->format, run->rate, run->channels);
    gst_object_unref(pipeline);
    return NULL;
  }
  *fxchain = chain;
  return pipeline;
}

/* ---------------------------------------------------------------------------------------- */
/* Output files under a temporary name (see gst-fx.h)                                       */

/* The temporaries that exist now (path -> TRUE), under temp_lock. The signal thread removes them
 * all under the same lock and then ends the process, so a temporary is never created, renamed
 * or left behind across a signal. */
static GMutex temp_lock;
static GHashTable *temp_paths;
static int temp_pipe[2] = {-1, -1};
static const int temp_signals[] = {SIGINT, SIGTERM, SIGHUP};

/* Async-signal-safe: hands the signal to temp_signal_thread() through the pipe. */
static void temp_on_signal(int sig)
{
  int saved = errno;
  unsigned char c = (unsigned char) sig;

  if (write(temp_pipe[1], &c, 1) < 0) {
    /* nothing else can be done in a signal handler */
  }
  errno = saved;
}

/* Waits for a signal, removes every temporary and ends the process by the same signal (its
 * default action: the shell's status is 128 + the signal's number, 130 for SIGINT). */
static gpointer temp_signal_thread(gpointer data)
{
  unsigned char c = 0;
  GHashTableIter it;
  gpointer path;
  sigset_t set;

  (void) data;
  for (;;) {
    gssize n = read(temp_pipe[0], &c, 1);
    if (n == 1)
      break;
    if (n == 0 || errno != EINTR)
      return NULL;
  }
  g_mutex_lock(&temp_lock); /* held to the end: no temporary is created or renamed from now on */
  g_hash_table_iter_init(&it, temp_paths);
  while (g_hash_table_iter_next(&it, &path, NULL))
    unlink(path);
  signal(c, SIG_DFL);
  sigemptyset(&set);
  sigaddset(&set, c);
  pthread_sigmask(SIG_UNBLOCK, &set, NULL);
  raise(c);
  _exit(128 + c);
  return NULL;
}

/* Once: the registry and, for each of SIGINT, SIGTERM and SIGHUP not ignored when the program
 * started (as under nohup), a handler that starts the clean-up. */
static gpointer temp_init(gpointer data)
{
  (void) data;
  temp_paths = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  if (!g_unix_open_pipe(temp_pipe, FD_CLOEXEC, NULL))
    return NULL;
  g_thread_unref(g_thread_new("gst-fx-signals", temp_signal_thread, NULL));
  for (size_t i = 0; i < G_N_ELEMENTS(temp_signals); i++) {
    struct sigaction sa, old;
    if (sigaction(temp_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
      continue;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = temp_on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(temp_signals[i], &sa, NULL);
  }
  return NULL;
}

/* Where `path` is written: the file a symbolic link there points to (so that a link to another
 * disk keeps working, as when the file was opened through it), else `path` itself. */
static gchar *temp_destination(const char *path)
{
  GStatBuf st;
  char *real;

  if (g_lstat(path, &st) != 0 || !S_ISLNK(st.st_mode) || (real = realpath(path, NULL)) == NULL)
    return g_strdup(path);
  gchar *dest = g_strdup(real);
  free(real);
  return dest;
}

static GOnce temp_once = G_ONCE_INIT;

int fx_tool_temp_create(const char *path, gchar **temp, GError **error)
{
  gchar *dest = temp_destination(path);
  gchar *dir = g_path_get_dirname(dest), *base = g_path_get_basename(dest), *name;
  int fd, err;

  g_free(dest);
  g_once(&temp_once, temp_init, NULL);
  /* hidden, in OUT's directory (the same file system, so that the rename is atomic); a long
   * name is cut so that the suffix fits in a file name */
  if (strlen(base) > 200)
    base[200] = '\0';
  name = g_strdup_printf(".%s.gst-fx-XXXXXX", base);
  *temp = g_build_filename(dir, name, NULL);
  g_free(name);
  g_free(base);
  g_free(dir);
  g_mutex_lock(&temp_lock);
  fd = g_mkstemp_full(*temp, O_RDWR | O_CLOEXEC, 0666);
  err = errno;
  if (fd >= 0)
    g_hash_table_add(temp_paths, g_strdup(*temp));
  g_mutex_unlock(&temp_lock);
  if (fd < 0) {
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(err), "cannot write %s: %s", path,
                g_strerror(err));
    g_clear_pointer(temp, g_free);
  }
  return fd;
}

int fx_tool_spool_create(const char *what, gchar **temp, GError **error)
{
  gchar *name = g_strdup_printf(".gst-fx-%s-XXXXXX", what);
  int fd, err;

  g_once(&temp_once, temp_init, NULL);
  /* no link is followed here: the name is made by mkstemp in the temporary directory itself */
  *temp = g_build_filename(g_get_tmp_dir(), name, NULL);
  g_free(name);
  g_mutex_lock(&temp_lock);
  fd = g_mkstemp_full(*temp, O_RDWR | O_CLOEXEC, 0600);
  err = errno;
  if (fd >= 0)
    g_hash_table_add(temp_paths, g_strdup(*temp));
  g_mutex_unlock(&temp_lock);
  if (fd < 0) {
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(err),
                "cannot create a temporary file in %s: %s", g_get_tmp_dir(), g_strerror(err));
    g_clear_pointer(temp, g_free);
  }
  return fd;
}

gboolean fx_tool_temp_commit(const char *temp, const char *path, GError **error)
{
  gchar *dest = temp_destination(path);
  int r, err;

  g_mutex_lock(&temp_lock);
  r = rename(temp, dest);
  err = errno;
  if (r != 0)
    unlink(temp);
  g_hash_table_remove(temp_paths, temp);
  g_mutex_unlock(&temp_lock);
  g_free(dest);
  if (r != 0)
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(err), "cannot write %s: %s", path,
                g_strerror(err));
  return r == 0;
}

void fx_tool_temp_discard(const char *temp)
{
  if (temp == NULL)
    return;
  g_mutex_lock(&temp_lock);
  unlink(temp);
  g_hash_table_remove(temp_paths, temp);
  g_mutex_unlock(&temp_lock);
}

gboolean fx_tool_write_file(const char *path, const void *data, gsize size, GError **error)
{
  gchar *temp = NULL;
  int fd = fx_tool_temp_create(path, &temp, error);
  gsize done = 0;
  int err = 0;

  if (fd < 0)
    return FALSE;
  while (done < size) {
    gssize n = write(fd, (const guint8 *) data + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      err = n < 0 ? errno : EIO;
      break;
    }
    done += (gsize) n;
  }
  if (close(fd) != 0 && err == 0)
    err = errno;
  if (err != 0) {
    fx_tool_temp_discard(temp);
    g_free(temp);
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(err), "cannot write %s: %s", path,
                g_strerror(err));
    return FALSE;
  }
  gboolean ok = fx_tool_temp_commit(temp, path, error);
  g_free(temp);
  return ok;
}

/* ---------------------------------------------------------------------------------------- */
/* --chain-file (see gst-fx.h)                                                              */

/* The chain file of this run, kept so that an error about one of its elements names its line:
 * the file's name, its text (comments removed, lines kept) and the line on which each element
 * (counted as fxchain counts them, split at '!' outside quotes) starts. */
static struct {
  gchar *path;
  gchar **lines;
  GArray *element_lines; /* guint, 1-based */
} chain_source;

/* Strips `#` comments (outside quotes) from `text` in place, line by line, and records where
 * each element starts. FALSE with *line set where a quote opened and was never closed. */
static gboolean chain_file_scan(gchar *text, GArray *element_lines, guint *line)
{
  char quote = '\0';
  guint quote_line = 0, current = 1;
  gboolean in_comment = FALSE, element_pending = TRUE;

  for (char *p = text; *p != '\0'; p++) {
    if (*p == '\n') {
      current++;
      in_comment = FALSE;
      continue;
    }
    if (in_comment) {
      *p = ' ';
      continue;
    }
    if (quote != '\0') {
      if (*p == '\\' && p[1] != '\0' && p[1] != '\n')
        p++;
      else if (*p == quote)
        quote = '\0';
      continue;
    }
    if (*p == '#') {
      in_comment = TRUE;
      *p = ' ';
      continue;
    }
    if (*p == '"' || *p == '\'') {
      quote = *p;
      quote_line = current;
    }
    if (*p == '!') {
      element_pending = TRUE;
      continue;
    }
    if (element_pending && !g_ascii_isspace(*p)) {
      g_array_append_val(element_lines, current);
      element_pending = FALSE;
    }
  }
  if (quote != '\0') {
    *line = quote_line;
    return FALSE;
  }
  return TRUE;
}

int fx_tool_chain_from_file(GOptionContext *ctx, gchar **chain, const char *file,
                            gboolean stdin_taken)
{
  GError *err = NULL;
  gchar *text = NULL;
  guint bad_line = 0;
  gboolean ok;

  if (file == NULL)
    return FX_EXIT_OK;
  if (*chain != NULL)
    return fx_tool_usage_error(ctx, "--chain and --chain-file exclude each other");
  if (g_str_equal(file, "-") && stdin_taken)
    return fx_tool_usage_error(ctx, "--chain-file - reads standard input, which the input "
                                    "already reads");
  if (g_str_equal(file, "-")) {
    GIOChannel *in = g_io_channel_unix_new(0);
    gsize len = 0;
    ok = g_io_channel_read_to_end(in, &text, &len, &err) == G_IO_STATUS_NORMAL;
    g_io_channel_unref(in);
  } else {
    ok = g_file_get_contents(file, &text, NULL, &err);
  }
  if (!ok) {
    /* GLib's message names the file */
    fprintf(stderr, "gst-fx: --chain-file: %s\n", err != NULL ? err->message : "cannot read");
    g_clear_error(&err);
    g_free(text);
    return FX_EXIT_FAILURE;
  }
  g_free(chain_source.path);
  g_strfreev(chain_source.lines);
  if (chain_source.element_lines != NULL)
    g_array_unref(chain_source.element_lines);
  chain_source.path = g_strdup(g_str_equal(file, "-") ? "<stdin>" : file);
  chain_source.element_lines = g_array_new(FALSE, FALSE, sizeof(guint));
  if (!chain_file_scan(text, chain_source.element_lines, &bad_line)) {
    fprintf(stderr, "gst-fx: %s:%u: the quote opened on this line is not closed\n",
            chain_source.path, bad_line);
    g_free(text);
    return FX_EXIT_FAILURE;
  }
  chain_source.lines = g_strsplit(text, "\n", -1);
  /* line breaks are white space in the chain's syntax */
  g_strdelimit(text, "\r\n\t", ' ');
  g_strstrip(text);
  if (*text == '\0') {
    fprintf(stderr, "gst-fx: %s: no chain in the file (only comments and blank lines)\n",
            chain_source.path);
    g_free(text);
    return FX_EXIT_FAILURE;
  }
  *chain = text;
  return FX_EXIT_OK;
}

/* The line of the chain file an error message is about, 0 when none: the element it numbers
 * ("(element N of the chain)", fxchain's words), else the first line holding one of its words
 * written as PROPERTY=VALUE or in quotes (an error that cites neither, such as a file's, is not
 * the chain's). */
static guint chain_error_line(const char *message)
{
  const GArray *el = chain_source.element_lines;
  const char *p = strstr(message, "(element ");
  guint found = 0;

  if (p != NULL) {
    guint64 n = g_ascii_strtoull(p + 9, NULL, 10);
    if (n >= 1 && n <= el->len)
      return g_array_index(el, guint, n - 1);
  }
  gchar **words = g_strsplit_set(message, " ,;:()", -1);
  for (gchar **w = words; *w != NULL && found == 0; w++) {
    gchar *word = *w;
    gsize len = strlen(word);
    gboolean quoted = len > 2 && word[0] == '"' && word[len - 1] == '"';
    if (quoted) {
      word[len - 1] = '\0';
      word++;
    }
    if (strlen(word) < 2 || (!quoted && strchr(word, '=') == NULL))
      continue;
    for (guint i = 0; chain_source.lines[i] != NULL; i++)
      if (strstr(chain_source.lines[i], word) != NULL) {
        found = i + 1;
        break;
      }
  }
  g_strfreev(words);
  return found;
}

void fx_tool_print_error(const char *message)
{
  guint line;

  if (message == NULL)
    message = "failed";
  if (chain_source.path == NULL || chain_source.lines == NULL ||
      (line = chain_error_line(message)) == 0) {
    fprintf(stderr, "gst-fx: %s\n", message);
    return;
  }
  fprintf(stderr, "gst-fx: %s:%u: %s\n", chain_source.path, line, message);
}

void fx_tool_json_string(GString *s, const char *v)
{
  g_string_append_c(s, '"');
  for (const unsigned char *p = (const unsigned char *) (v != NULL ? v : ""); *p; p++) {
    if (*p == '"' || *p == '\\')
      g_string_append_printf(s, "\\%c", *p);
    else if (*p < 0x20)
      g_string_append_printf(s, "\\u%04x", *p);
    else
      g_string_append_c(s, (char) *p);
  }
  g_string_append_c(s, '"');
}
