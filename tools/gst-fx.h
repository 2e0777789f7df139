/* gst-fx — the command-line program: shared declarations.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The program drives the plugin only through GStreamer (element factories, properties, the bus);
 * it never includes gst/ headers. Every command is a function in the table in gst-fx.c. */
#ifndef GST_FX_TOOL_H
#define GST_FX_TOOL_H

#include <gst/gst.h>

G_BEGIN_DECLS

/* Exit status of every command: 0 success, 1 a pipeline failed (the bus error is printed as one
 * line on stderr), 2 bad usage (the usage is printed on stderr). */
enum { FX_EXIT_OK = 0, FX_EXIT_FAILURE = 1, FX_EXIT_USAGE = 2 };

/* A command: argv[0] is the command's name; returns an exit status. */
typedef int (*FxCommandFunc)(int argc, char **argv);

typedef struct {
  const char *name;
  const char *summary;
  FxCommandFunc run;
} FxCommand;

int fx_cmd_plan(int argc, char **argv);
int fx_cmd_count_dispatches(int argc, char **argv);
int fx_cmd_process(int argc, char **argv);
int fx_cmd_process_many(int argc, char **argv);
int fx_cmd_batch(int argc, char **argv);
int fx_cmd_response(int argc, char **argv);
int fx_cmd_info(int argc, char **argv);
int fx_cmd_presets(int argc, char **argv);

/* --normalize LUFS [--true-peak DBTP] of `process` and `batch` (cmd-info.c): appends
 * `fxnormalize mode=lufs` with that target and ceiling (default -1 dBTP) to *chain (replaced; may
 * be NULL or empty: the stage alone). FX_EXIT_OK, or FX_EXIT_USAGE after printing the error. */
int fx_tool_add_normalize(GOptionContext *ctx, gchar **chain, const char *normalize,
                          const char *true_peak);

/* Makes the plugin visible when GStreamer's own paths (GST_PLUGIN_PATH_1_0, the system path) do
 * not have it: scans $GST_FX_PLUGIN_DIR when set; otherwise, when no fx element is registered, the
 * plugin build directory compiled in as FX_PLUGIN_DIR if this program runs from the build tree,
 * else the installed plugin directory (relative to the program's own directory, then the
 * configured prefix's). Call after gst_init() (fx_tool_init() does both). */
void fx_tool_find_plugin(void);

/* TRUE when this program is the one in the build tree (its directory is the one compiled in as
 * FX_TOOL_BUILD_DIR), FALSE for an installed copy. */
gboolean fx_tool_running_from_build_tree(void);

/* The file the registered `fxchain` element comes from (g_free), NULL when there is none. */
gchar *fx_tool_plugin_filename(void);

/* Parses the GOptionContext of a command. On a bad option prints the one line "gst-fx: MESSAGE"
 * and the hint "Try 'gst-fx COMMAND --help'." on stderr and returns FALSE (exit with
 * FX_EXIT_USAGE). --help prints the full help on stdout and exits 0 (GLib's behaviour). */
gboolean fx_tool_parse_options(GOptionContext *ctx, int *argc, char ***argv);

/* fx_tool_parse_options(), then refuses any argument left over. Returns FX_EXIT_OK, or
 * FX_EXIT_USAGE after printing the message and the hint on stderr. */
int fx_tool_parse_command_line(GOptionContext *ctx, int *argc, char ***argv);

/* A usage error: prints "gst-fx: MESSAGE" (one line) and "Try 'gst-fx COMMAND --help'." (the
 * command from g_get_prgname()) on stderr, never the whole help; returns FX_EXIT_USAGE. */
int fx_tool_usage_error(GOptionContext *ctx, const char *format, ...) G_GNUC_PRINTF(2, 3);

/* --chain-file FILE, for every command that takes --chain: the same syntax as --chain, where a
 * `#` outside quotes starts a comment to the end of its line and line breaks are spaces; "-"
 * reads standard input. Add FX_TOOL_CHAIN_FILE_ENTRY(var) to the command's options, then call
 * fx_tool_chain_from_file(ctx, &chain, var, stdin_taken) before checking --chain: with
 * file == NULL it does nothing; otherwise *chain (which must be NULL: both options are a usage
 * error) receives the file's chain. "-" when `stdin_taken` (the input is standard input) is a
 * usage error. A file that cannot be read, holds no chain or leaves a quote open prints one line
 * naming the file (and the line) and returns FX_EXIT_FAILURE. */
#define FX_TOOL_CHAIN_FILE_ENTRY(var)                                                              \
  {                                                                                                \
    "chain-file", 0, 0, G_OPTION_ARG_FILENAME, &(var),                                             \
        "Read the chain from FILE (\"-\": standard input): --chain's syntax, # comments, line "    \
        "breaks",                                                                                  \
        "FILE"                                                                                     \
  }
int fx_tool_chain_from_file(GOptionContext *ctx, gchar **chain, const char *file,
                            gboolean stdin_taken);

/* Prints "gst-fx: MESSAGE" on stderr; when the chain came from --chain-file and MESSAGE is about
 * one of its elements (fxchain numbers it, or quotes a name or PROPERTY=VALUE found in the file),
 * "gst-fx: FILE:LINE: MESSAGE". */
void fx_tool_print_error(const char *message);

/* Creates an element or sets *error naming the missing factory (and the plugin hint). */
GstElement *fx_tool_make(const char *factory, const char *name, GError **error);

/* Runs a pipeline from NULL to EOS. Returns TRUE on EOS; on an error message sets *error to the
 * bus message (the debug string is dropped). Warnings posted on the bus are collected in
 * *warnings (unique messages, may be NULL) when warnings is not NULL. The pipeline is left in
 * PLAYING (or wherever it stopped) so that properties can be read before the caller sets NULL. */
gboolean fx_tool_run_to_eos(GstElement *pipeline, GPtrArray **warnings, GError **error);

/* Prints each collected warning (may be NULL) as "gst-fx: warning: MESSAGE" on stderr. */
void fx_tool_print_warnings(const GPtrArray *warnings);

/* Sets a pipeline (may be NULL) to NULL and drops it. */
void fx_tool_pipeline_free(GstElement *pipeline);

/* A chain of `depth` IIR stages of one second-order section each, cycling through fxbiquad
 * (peaking), fxbutterworth (order-2 high-pass) and fxsos (order-2 low-pass row), in gst-launch
 * syntax. Stage i is named "sI". Free with g_free(). */
gchar *fx_tool_iir_chain(guint depth);

/* A test pipeline around an fxchain:
 *   audiotestsrc wave=white-noise num-buffers=N samplesperbuffer=F
 *   ! audio/x-raw,format=…,rate=…,channels=…,layout=interleaved ! fxchain ! fakesink */
typedef struct {
  const char *chain;     /* the fxchain's `chain` */
  gboolean fuse;         /* the fxchain's `fuse` */
  const char *device;    /* enum nick or NULL (default) */
  const char *precision; /* enum nick or NULL (default) */
  const char *format;    /* "F32LE" or "F64LE" */
  gint rate, channels;
  guint frames, buffers;
} FxChainRun;

/* Sets the defaults: @chain, @fuse and @device as given, no precision, F32LE, 48000 Hz, 2
 * channels, one buffer of 1024 frames. */
void fx_tool_chain_run_init(FxChainRun *run, const char *chain, gboolean fuse, const char *device);

/* Builds the pipeline above; *fxchain receives the bin (owned by the pipeline). */
GstElement *fx_tool_chain_pipeline(const FxChainRun *run, GstElement **fxchain, GError **error);

/* Reads a guint64 property; FALSE when the object has no such property. */
gboolean fx_tool_get_u64(gpointer object, const char *property, guint64 *value);

/* Initialises GStreamer and finds the plugin (fx_tool_find_plugin); run from the build tree
 * without GST_PLUGIN_PATH_1_0 or GST_FX_PLUGIN_DIR, the build's plugin is put first on
 * GStreamer's plugin path, before any installed copy. */
void fx_tool_init(void);

/* Parses "2,5,10,20" into an array of guint (each in [1, max]); FALSE on a malformed list. */
gboolean fx_tool_parse_uint_list(const char *text, guint max, GArray **out);

/* Output files are written under a temporary name in their directory and renamed over their
 * final name only when complete, so a final name never holds a partial file. While a temporary
 * exists, SIGINT, SIGTERM and SIGHUP remove every temporary before the process ends by that
 * signal (exit status 128 + its number in a shell).
 *
 * A symbolic link at `path` is followed: the file it points to is the one replaced.
 *
 * fx_tool_temp_create(): creates ".NAME.gst-fx-XXXXXX" beside `path` (exclusive, mode 0666 less
 * the umask) and returns its descriptor (the caller closes it), *temp its name; -1 with *error
 * ("cannot write PATH: ...") on failure. fx_tool_temp_commit(): renames *temp over `path` (the
 * temporary is removed when that fails). fx_tool_temp_discard(): removes it (NULL: nothing). */
/* Appends `v` (NULL: "") to `s` as a JSON string literal. */
void fx_tool_json_string(GString *s, const char *v);

int fx_tool_temp_create(const char *path, gchar **temp, GError **error);
gboolean fx_tool_temp_commit(const char *temp, const char *path, GError **error);
void fx_tool_temp_discard(const char *temp);
/* A private temporary file (mode 0600) ".gst-fx-WHAT-XXXXXX" in the temporary directory ($TMPDIR,
 * else /tmp), removed on the same signals: the copy of standard input, or standard output's
 * content until it is complete. Returns its descriptor, *temp its name (remove it with
 * fx_tool_temp_discard()); -1 with *error on failure. */
int fx_tool_spool_create(const char *what, gchar **temp, GError **error);
/* Writes `size` bytes to `path` through a temporary as above. */
gboolean fx_tool_write_file(const char *path, const void *data, gsize size, GError **error);

G_END_DECLS

#endif
