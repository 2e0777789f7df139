/* gst-fx process — one file through a chain: decode, fxchain, encode by OUT's extension.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   decoder (media.h) → blocks of FX_BLOCK_FRAMES frames → fxchain ! appsink → FxWriter
 *
 * The decoded stream is cut into blocks of FX_BLOCK_FRAMES frames (media.h explains why) by a
 * GstAdapter in this thread and pushed into the processing pipeline from this thread (FxFeeder);
 * what the appsink holds after each push is written out, so the file is streamed, never held in
 * memory. The decoder and the writer are the ones `batch` uses. `process-many` (not in the help)
 * runs the same function for each file of a list, one fxchain pipeline per file. */
#include "media.h"

#include <gst/base/gstadapter.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Creates the output of a stream without frames, in the format the chain negotiated (the input's
 * when it did not get that far). */
static gboolean write_empty(GstAppSink *sink, FxWriter *w, const GstAudioInfo *in, GError **error)
{
  GstPad *pad = gst_element_get_static_pad(GST_ELEMENT(sink), "sink");
  GstCaps *caps = gst_pad_get_current_caps(pad);
  GstAudioInfo info = *in;
  gboolean ok;

  if (caps != NULL && !gst_audio_info_from_caps(&info, caps))
    info = *in;
  ok = fx_writer_write(w, NULL, 0, GST_AUDIO_INFO_CHANNELS(&info), GST_AUDIO_INFO_RATE(&info),
                       error);
  if (caps != NULL)
    gst_caps_unref(caps);
  gst_object_unref(pad);
  return ok;
}

/* Copies standard input whole into a temporary file (removed on a signal as an output's
 * temporary is); returns its name (g_free, fx_tool_temp_discard()), NULL with *error. */
static gchar *spool_stdin(GError **error)
{
  gchar *temp = NULL;
  int fd = fx_tool_spool_create("stdin", &temp, error), err = 0;
  char buf[65536];

  if (fd < 0)
    return NULL;
  for (;;) {
    gssize n = read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      err = n < 0 ? errno : 0;
      break;
    }
    for (gssize done = 0; done < n && err == 0;) {
      gssize m = write(fd, buf + done, (gsize) (n - done));
      if (m < 0 && errno == EINTR)
        continue;
      if (m <= 0)
        err = m < 0 ? errno : EIO;
      else
        done += m;
    }
    if (err != 0)
      break;
  }
  if (close(fd) != 0 && err == 0)
    err = errno;
  if (err != 0) {
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(err),
                "standard input: cannot copy it to %s: %s", g_get_tmp_dir(), g_strerror(err));
    fx_tool_temp_discard(temp);
    g_clear_pointer(&temp, g_free);
  }
  return temp;
}

int fx_process_file(const FxMediaOptions *opts, const char *in_arg, const char *out,
                    FxProgress *progress, GError **error)
{
  gchar *spooled = NULL;
  const char *in = in_arg;     /* for messages */
  const char *source = in_arg; /* what is decoded */
  gchar *desc = NULL;
  FxDecoder *dec = NULL;
  FxFeeder *feeder = NULL;
  FxWriter *writer = NULL;
  GstAppSink *sink;
  GstAdapter *adapter = NULL;
  GPtrArray *warnings = NULL;
  GstCaps *caps = NULL;
  GstAudioInfo info;
  GError *err = NULL;
  int status = FX_EXIT_FAILURE;
  guint64 done = 0;
  gint64 duration;
  gsize block;
  GstBuffer *buf;

  FxSource *src = NULL;
  guint64 clipped = 0;

  if (opts->type == NULL && !g_str_equal(out, "-") && !fx_media_output_supported(out)) {
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
                "%s: no encoder for this file type (use one of %s, or --type)", out,
                FX_MEDIA_EXTENSIONS);
    return FX_EXIT_USAGE;
  }
  gchar *bits_error = fx_media_output_bits_error(out,
                                                 opts->type != NULL      ? opts->type
                                                 : g_str_equal(out, "-") ? "wav"
                                                                         : NULL,
                                                 opts->bits);
  if (bits_error != NULL) {
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED, "%s", bits_error);
    g_free(bits_error);
    return FX_EXIT_USAGE;
  }
  if (g_str_equal(in_arg, "-")) {
    in = "standard input";
    spooled = spool_stdin(error);
    if (spooled == NULL)
      return FX_EXIT_FAILURE;
    source = spooled;
  }
  dec = fx_decoder_new(opts, error);
  if (dec == NULL)
    goto out;
  if (!fx_decoder_start(dec, source, &caps, &err)) {
    g_set_error(error, err->domain, err->code, "%s: %s", in, err->message);
    goto out;
  }
  gchar *warning = fx_decoder_warning(dec);
  if (warning != NULL) {
    fprintf(stderr, "gst-fx: warning: %s: %s\n", in, warning);
    g_free(warning);
  }
  gst_audio_info_from_caps(&info, caps);
  desc = g_strdup_printf("fxchain name=fx ! appsink name=sink sync=false "
                         "caps=\"audio/x-raw,format=%s,layout=interleaved\"",
                         opts->format);
  feeder = fx_feeder_new(desc, error);
  if (feeder == NULL)
    goto out;
  fx_media_setup_chain(fx_feeder_get(feeder, "fx"), opts);
  sink = GST_APP_SINK(fx_feeder_get(feeder, "sink"));
  /* the output keeps the input's sample encoding (unless --bits), tags and metadata */
  src = fx_decoder_source(dec);
  writer = fx_writer_new_typed(out, opts->type, opts, src);
  block = (gsize) FX_BLOCK_FRAMES * GST_AUDIO_INFO_BPF(&info);
  if (!fx_feeder_start(feeder, caps, error))
    goto out;
  duration = fx_decoder_duration(dec);
  adapter = gst_adapter_new();
  for (;;) {
    gboolean end;
    buf = fx_decoder_pull(dec, &err);
    end = buf == NULL;
    if (end && err != NULL) {
      g_set_error(error, err->domain, err->code, "%s: %s", in, err->message);
      goto out;
    }
    if (buf != NULL)
      gst_adapter_push(adapter, buf);
    while (gst_adapter_available(adapter) >= block || (end && gst_adapter_available(adapter) > 0)) {
      gsize n = MIN(block, gst_adapter_available(adapter));
      guint64 frames = n / GST_AUDIO_INFO_BPF(&info);
      GstBuffer *b = gst_adapter_take_buffer(adapter, n);
      b = gst_buffer_make_writable(b);
      fx_media_stamp(b, done, frames, GST_AUDIO_INFO_RATE(&info));
      done += frames;
      if (!fx_feeder_push(feeder, b, error) || !fx_media_drain(sink, writer, error))
        goto out;
    }
    if (progress != NULL && duration > 0)
      fx_progress_update(
          progress,
          (double) gst_util_uint64_scale_int(done, GST_SECOND, GST_AUDIO_INFO_RATE(&info)) /
              (double) duration,
          in);
    if (end)
      break;
  }
  if (!fx_feeder_finish(feeder, &warnings, error) || !fx_media_drain(sink, writer, error))
    goto out;
  /* a file without frames (a valid empty input) gives a valid empty output */
  if (!fx_writer_opened(writer) && !write_empty(sink, writer, &info, error))
    goto out;
  clipped = fx_writer_clipped(writer);
  gchar *name = g_strdup(fx_writer_name(writer));
  if (!fx_writer_close(g_steal_pointer(&writer), TRUE, error)) {
    g_free(name);
    goto out;
  }
  if (progress != NULL) {
    fx_progress_update(progress, 1.0, in);
    fx_progress_done(progress);
  }
  fx_tool_print_warnings(warnings);
  status = FX_EXIT_OK;
  /* samples clipped by the quantisation to an integer output: a warning, or with --clip-error
   * the run's error (the output is kept, as SoX keeps it, but the exit status says it is wrong) */
  if (clipped > 0) {
    gchar *msg = fx_media_clipped_message(opts, clipped);
    if (opts->clip_error) {
      g_set_error(error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED, "%s: %s", name, msg);
      status = FX_EXIT_FAILURE;
    } else {
      fx_media_report(name, msg);
    }
    g_free(msg);
  }
  g_free(name);

out:
  if (status != FX_EXIT_OK && progress != NULL)
    fx_progress_done(progress);
  fx_writer_close(writer, FALSE, NULL); /* a failed run leaves no partial output */
  g_clear_error(&err);
  if (adapter != NULL)
    g_object_unref(adapter);
  fx_feeder_free(feeder);
  fx_decoder_free(dec);
  if (warnings != NULL)
    g_ptr_array_unref(warnings);
  g_free(desc);
  fx_source_free(src);
  fx_tool_temp_discard(spooled);
  g_free(spooled);
  return status;
}

/* Options of `process` and `process-many`. */
typedef struct {
  gchar *chain, *chain_file, *device, *precision, *format, *outdir, *type;
  gchar *normalize, *true_peak;
  gchar *bits, *dither;
  gint rate;
  gboolean quiet, clip_error;
  gchar **args;
} ProcessArgs;

/* The media options of the parsed arguments, checked (fx_media_check_options). */
static int process_check_options(GOptionContext *ctx, ProcessArgs *a, FxMediaOptions *opts)
{
  int status;

  status = fx_tool_chain_from_file(ctx, &a->chain, a->chain_file,
                                   a->args != NULL &&
                                       g_strv_contains((const char *const *) a->args, "-"));
  if (status != FX_EXIT_OK)
    return status;
  status = fx_tool_add_normalize(ctx, &a->chain, a->normalize, a->true_peak);
  if (status != FX_EXIT_OK)
    return status;
  opts->chain = a->chain != NULL ? g_strstrip(a->chain) : NULL;
  opts->device = a->device;
  opts->precision = a->precision;
  opts->rate = a->rate;
  opts->clip_error = a->clip_error;
  return fx_media_check_options(ctx, opts, a->format, a->bits, a->dither);
}

static void process_args_clear(ProcessArgs *a)
{
  g_free(a->chain);
  g_free(a->chain_file);
  g_free(a->type);
  g_free(a->device);
  g_free(a->precision);
  g_free(a->format);
  g_free(a->outdir);
  g_free(a->normalize);
  g_free(a->true_peak);
  g_free(a->bits);
  g_free(a->dither);
  g_strfreev(a->args);
}

static GOptionContext *process_context(ProcessArgs *a, gboolean many)
{
  const GOptionEntry entries[] = {
      {"chain", 'c', 0, G_OPTION_ARG_STRING, &a->chain,
       "The chain in gst-launch syntax, as fxchain's `chain` (this or --chain-file is required)",
       "DESC"},
      FX_TOOL_CHAIN_FILE_ENTRY(a->chain_file),
      {"device", 'd', 0, G_OPTION_ARG_STRING, &a->device,
       "Where the cascades run: auto (default), cpu or cuda", "D"},
      {"precision", 'p', 0, G_OPTION_ARG_STRING, &a->precision,
       "Arithmetic for F32 streams: auto (default), single or double", "P"},
      {"format", 'f', 0, G_OPTION_ARG_STRING, &a->format,
       "Processing sample format of the chain: F32LE (default) or F64LE (the output's samples "
       "are --bits)",
       "F"},
      FX_MEDIA_OUTPUT_ENTRIES(a->bits, a->dither, a->clip_error),
      {"rate", 'r', 0, G_OPTION_ARG_INT, &a->rate,
       "Resample to R Hz (1 to 768000) before processing (default: keep the file's rate)", "R"},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &a->quiet,
       "No progress bar (it is only drawn on stderr, when stderr is a terminal)", NULL},
      {"normalize", 0, 0, G_OPTION_ARG_STRING, &a->normalize,
       "Normalise the integrated loudness (EBU R128) to L LUFS after the chain, e.g. -16LUFS "
       "(fxnormalize mode=lufs; --chain may then be left out)",
       "L"},
      {"true-peak", 0, 0, G_OPTION_ARG_STRING, &a->true_peak,
       "With --normalize: the true-peak ceiling in dBTP (default -1); the gain gives way to it",
       "TP"},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &a->args, NULL,
       many ? "-o DIR FILE..." : "IN OUT"},
      {NULL, 0, 0, 0, NULL, NULL, NULL},
  };
  const GOptionEntry typed[] = {
      {"type", 't', 0, G_OPTION_ARG_STRING, &a->type,
       "OUT's format by extension: wav, flac, ogg, opus, mp3, aiff, ... (default: OUT's "
       "extension; wav when OUT is \"-\")",
       "T"},
      {NULL, 0, 0, 0, NULL, NULL, NULL},
  };
  const GOptionEntry outdir[] = {
      {"output-dir", 'o', 0, G_OPTION_ARG_FILENAME, &a->outdir,
       "Directory for the outputs (required)", "DIR"},
      {NULL, 0, 0, 0, NULL, NULL, NULL},
  };
  GOptionContext *ctx = g_option_context_new(NULL); /* the remaining arguments name themselves */

  g_option_context_add_main_entries(ctx, entries, NULL);
  g_option_context_add_main_entries(ctx, many ? outdir : typed, NULL);
  return ctx;
}

int fx_cmd_process(int argc, char **argv)
{
  ProcessArgs a = {0};
  GOptionContext *ctx = process_context(&a, FALSE);
  FxMediaOptions opts = {0};
  FxProgress progress;
  GError *error = NULL;
  int status;

  g_set_prgname("gst-fx process");
  g_option_context_set_summary(
      ctx,
      "Decodes IN (with libsndfile: wav, flac, ogg, aiff, mp3, ...; anything else GStreamer\n"
      "decodes), runs it through the chain (fxchain syntax) in --format (F32 or F64) and\n"
      "encodes OUT by its extension or --type (any format libsndfile writes: wav, flac, ogg,\n"
      "opus, mp3, aiff, caf, w64, rf64, ...). OUT keeps IN's samples (16-bit in, 16-bit out;\n"
      "float in, float out; lossy in: float, or 24-bit where only integers fit, as in FLAC)\n"
      "unless --bits says otherwise; integer output gets TPDF dither when it has less precision\n"
      "than IN (--dither), and clipped samples are reported (--clip-error). Tags and metadata\n"
      "chunks are carried over.\n"
      "IN \"-\" reads standard input (read whole before processing starts); OUT \"-\" writes\n"
      "standard output (wav unless --type says otherwise), once the output is complete:\n"
      "  cat in.wav | gst-fx process --chain DESC - out.flac\n"
      "  gst-fx process --chain DESC in.flac - | sox -t wav - out.mp3\n"
      "A progress bar with elapsed and remaining time is drawn on stderr when it is a\n"
      "terminal. Exit status: 0 success, 1 failure (one line on stderr; nothing is written to\n"
      "OUT or standard output), 2 bad usage.");
  if (!fx_tool_parse_options(ctx, &argc, &argv)) {
    status = FX_EXIT_USAGE;
    goto out;
  }
  status = process_check_options(ctx, &a, &opts);
  if (status != FX_EXIT_OK)
    goto out;
  if (a.args == NULL || g_strv_length(a.args) != 2) {
    status = fx_tool_usage_error(ctx, "expected IN and OUT, got %u argument(s)",
                                 a.args != NULL ? g_strv_length(a.args) : 0);
    goto out;
  }
  if (a.type != NULL) {
    gchar *probe = g_strdup_printf("x.%s", a.type);
    gboolean known = fx_media_output_supported(probe);
    g_free(probe);
    if (!known) {
      gchar *all = fx_media_output_extensions();
      status = fx_tool_usage_error(ctx, "--type must be one of %s, not \"%s\"", all, a.type);
      g_free(all);
      goto out;
    }
    opts.type = a.type;
  } else if (!g_str_equal(a.args[1], "-") && !fx_media_output_supported(a.args[1])) {
    status =
        fx_tool_usage_error(ctx, "%s: no encoder for this file type (use one of %s, or --type)",
                            a.args[1], FX_MEDIA_EXTENSIONS);
    goto out;
  }
  gchar *bits_error = fx_media_output_bits_error(a.args[1],
                                                 opts.type != NULL             ? opts.type
                                                 : g_str_equal(a.args[1], "-") ? "wav"
                                                                               : NULL,
                                                 opts.bits);
  if (bits_error != NULL) {
    status = fx_tool_usage_error(ctx, "%s", bits_error);
    g_free(bits_error);
    goto out;
  }
  if (g_str_equal(a.args[0], "-") && isatty(STDIN_FILENO)) {
    status = fx_tool_usage_error(ctx, "IN \"-\" is standard input, which is a terminal: "
                                      "pipe or redirect a file into it");
    goto out;
  }
  if (g_str_equal(a.args[1], "-") && isatty(STDOUT_FILENO)) {
    status = fx_tool_usage_error(ctx, "OUT \"-\" is standard output, which is a terminal: "
                                      "redirect it to a file or a pipe");
    goto out;
  }
  /* by device and inode: OUT may be IN through a symbolic or a hard link, or a different path
   * ("-" is a stream, never a file of the other side) */
  gchar *cin = g_canonicalize_filename(a.args[0], NULL);
  gchar *cout = g_canonicalize_filename(a.args[1], NULL);
  gboolean same = !g_str_equal(a.args[0], "-") && !g_str_equal(a.args[1], "-") &&
                  (g_str_equal(cin, cout) || fx_media_same_file(a.args[0], a.args[1]));
  g_free(cin);
  g_free(cout);
  if (same) {
    status = fx_tool_usage_error(ctx,
                                 "IN and OUT are the same file (%s and %s, through a link "
                                 "or another path): the input is never overwritten",
                                 a.args[0], a.args[1]);
    goto out;
  }
  /* a reader of standard output that stops early is a write error (exit 1), not a signal that
   * would leave the temporaries behind */
  if (g_str_equal(a.args[1], "-"))
    signal(SIGPIPE, SIG_IGN);
  fx_tool_init();
  fx_progress_init(&progress);
  if (a.quiet)
    progress.enabled = FALSE;
  status = fx_process_file(&opts, a.args[0], a.args[1], &progress, &error);
  if (status != FX_EXIT_OK)
    fx_tool_print_error(error != NULL ? error->message : NULL);

out:
  g_clear_error(&error);
  g_option_context_free(ctx);
  process_args_clear(&a);
  return status;
}

int fx_cmd_process_many(int argc, char **argv)
{
  ProcessArgs a = {0};
  GOptionContext *ctx = process_context(&a, TRUE);
  FxMediaOptions opts = {0};
  int status, failed = 0;

  g_set_prgname("gst-fx process-many");
  g_option_context_set_summary(ctx, "Runs `process` for each FILE (one fxchain pipeline per "
                                    "file, one after the\nother), writing DIR/<name of FILE>. A "
                                    "per-file baseline of bench/run-batch.sh.");
  if (!fx_tool_parse_options(ctx, &argc, &argv)) {
    status = FX_EXIT_USAGE;
    goto out;
  }
  status = process_check_options(ctx, &a, &opts);
  if (status != FX_EXIT_OK)
    goto out;
  if (a.outdir == NULL || a.args == NULL) {
    status = fx_tool_usage_error(ctx, "-o DIR and at least one FILE are required");
    goto out;
  }
  if (g_mkdir_with_parents(a.outdir, 0777) != 0) {
    fx_media_report(a.outdir, g_strerror(errno));
    status = FX_EXIT_FAILURE;
    goto out;
  }
  fx_tool_init();
  /* no output may be any input (by device and inode, through links too) */
  GHashTable *inputs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (gchar **p = a.args; *p != NULL; p++) {
    gchar *key = fx_media_file_key(*p);
    if (key != NULL)
      g_hash_table_insert(inputs, key, *p);
  }
  for (gchar **p = a.args; *p != NULL; p++) {
    gchar *base = g_path_get_basename(*p);
    gchar *out = g_build_filename(a.outdir, base, NULL);
    gchar *key = fx_media_file_key(out);
    const char *input = key != NULL ? g_hash_table_lookup(inputs, key) : NULL;
    GError *error = NULL;
    g_free(key);
    if (input != NULL) {
      fprintf(stderr,
              "gst-fx: %s: the output %s would overwrite the input %s (choose another -o DIR)\n",
              *p, out, input);
      failed++;
    } else if (fx_process_file(&opts, *p, out, NULL, &error) != FX_EXIT_OK) {
      fx_tool_print_error(error != NULL ? error->message : NULL);
      failed++;
    }
    g_clear_error(&error);
    g_free(out);
    g_free(base);
  }
  g_hash_table_unref(inputs);
  status = failed ? FX_EXIT_FAILURE : FX_EXIT_OK;

out:
  g_option_context_free(ctx);
  process_args_clear(&a);
  return status;
}
