/* gst-fx batch — many files through one fused plan, stacked on the channel axis.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The files (sorted by name, byte order; with --shard K/N only those whose 0-based index i has
 * i % N == K-1) are decoded one after the other with one reused decoder pipeline (media.h) into
 * memory, in groups bounded by --memory. The channels of all files of a group are stacked into
 * one interleaved stream (channels = the sum of the files' channels, channel-mask 0), which runs
 * through ONE pipeline
 *
 *   fxchain chain="…" ! appsink     (fed from this thread, media.h: FxFeeder)
 *
 * in blocks of FX_BLOCK_FRAMES frames, so each block is one dispatch for all files together (one
 * launch on a GPU); the summary line reports the fxchain's `dispatches` against the blocks. A
 * file shorter than the group's longest is padded with zeros after its end and its output cut to
 * its length: the stages are causal, so this is exact. Outputs go to DIR/<input's name>, encoded
 * by the input's extension (or --ext), through one reused encoder pipeline per extension.
 *
 * Why the output equals `gst-fx process` bit for bit: the same decoder, the same block length
 * (media.h: FX_BLOCK_FRAMES), and per-channel stages whose arithmetic per channel does not depend
 * on the number of channels. Stages that mix channels would not give that, so the chain may only
 * hold per-channel stages (see stage_is_per_channel()).
 *
 * Sample rates: with --rate R every file is resampled to R; without it the batch runs at the rate
 * of the first file that decodes, and a file at another rate is refused with a message (exit
 * status 1). A file that cannot be decoded or written is reported (one line) and the others are
 * still processed (exit status 1). */
#include "media.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define DEFAULT_MEMORY_MIB 1024

typedef struct {
  const char *path; /* borrowed from argv */
  gchar *out;
  GstCaps *caps;
  gint channels;
  gsize frames, bytes, alloc;
  guint8 *data;
} BatchFile;

typedef struct {
  FxMediaOptions opts;
  const char *ext; /* --ext or NULL */
  const char *outdir;
  gint rate; /* the batch's rate (opts.rate or the first file's) */
  gint bps;  /* bytes per sample */
  FxFeeder *engine;
  GHashTable *encoders; /* "encoder tail | caps" → FxFeeder */
  guint64 blocks, dispatches;
  guint groups, written, failed;
  gchar *backend;
  GPtrArray *warnings;
  FxProgress progress;
  guint total, processed;
} Batch;

static void batch_file_free_data(BatchFile *f)
{
  g_clear_pointer(&f->data, g_free);
  gst_clear_caps(&f->caps);
  f->bytes = f->alloc = f->frames = 0;
}

static void fail_file(Batch *b, const char *path, const char *message)
{
  fx_progress_done(&b->progress);
  fx_media_report(path, message);
  b->failed++;
}

/* ---------------------------------------------------------------------------------------- */
/* Which stages may run on stacked channels                                                  */

/* The rule: a stage may run on stacked files when it processes every channel on its own with
 * causal arithmetic that does not depend on the number of channels. That holds for every IIR
 * element (a GstFxIir subclass: one SOS cascade per channel), for `fxgain` (a per-sample gain)
 * and for GStreamer's `volume`; it is unknown (so refused) for anything else, e.g. a channel-
 * coupled `fxnormalize per-channel=false`, a stereo `fxdelay ping-pong=true`, a `fxreverb`, or
 * `audioconvert` (which may remix channels). */
static gboolean stage_is_per_channel(GstElement *e)
{
  GstElementFactory *factory = gst_element_get_factory(e);
  GType iir = g_type_from_name("GstFxIir");
  const char *name;

  if (iir != 0 && g_type_is_a(G_OBJECT_TYPE(e), iir))
    return TRUE;
  if (factory == NULL)
    return TRUE; /* fxchain's internal fused stages (IIR) */
  name = gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(factory));
  return g_strcmp0(name, "fxgain") == 0 || g_strcmp0(name, "volume") == 0;
}

/* Wires the fxchain (NULL → READY) and refuses channel-coupled stages. */
static gboolean check_chain(Batch *b, GError **error)
{
  GstElement *pipeline = fx_feeder_pipeline(b->engine);
  GstElement *chain = fx_feeder_get(b->engine, "fx");
  GstIterator *it;
  GValue item = G_VALUE_INIT;
  gboolean ok = TRUE;

  if (gst_element_set_state(pipeline, GST_STATE_READY) == GST_STATE_CHANGE_FAILURE) {
    if (!fx_feeder_failed(b->engine, error))
      g_set_error_literal(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
                          "the chain could not be set up");
    fx_feeder_stop(b->engine);
    return FALSE;
  }
  it = gst_bin_iterate_elements(GST_BIN(chain));
  while (ok && gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object(&item);
    if (!stage_is_per_channel(e)) {
      GstElementFactory *factory = gst_element_get_factory(e);
      gchar *name = gst_element_get_name(e);
      g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_NOT_IMPLEMENTED,
                  "stage \"%s\" (%s) is not a per-channel stage: batch stacks the files on the "
                  "channel axis, so it only runs IIR elements, fxgain and volume (use gst-fx "
                  "process for each file)",
                  name,
                  factory != NULL ? gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(factory))
                                  : G_OBJECT_TYPE_NAME(e));
      g_free(name);
      ok = FALSE;
    }
    g_value_reset(&item);
  }
  g_value_unset(&item);
  gst_iterator_free(it);
  fx_feeder_stop(b->engine);
  return ok;
}

/* ---------------------------------------------------------------------------------------- */
/* Decoding                                                                                  */

static gboolean read_file(Batch *b, FxDecoder *dec, BatchFile *f, GError **error)
{
  GstCaps *caps;
  GstAudioInfo info;
  GstBuffer *buf;
  GError *err = NULL;

  if (!fx_decoder_start(dec, f->path, &caps, error))
    return FALSE;
  if (!gst_audio_info_from_caps(&info, caps)) {
    g_set_error_literal(error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                        "cannot decode: unexpected caps");
    fx_decoder_stop(dec);
    return FALSE;
  }
  if (b->rate == 0)
    b->rate = GST_AUDIO_INFO_RATE(&info);
  if (GST_AUDIO_INFO_RATE(&info) != b->rate) {
    g_set_error(error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                "sample rate %d Hz, but the batch runs at %d Hz (the first file's rate); pass "
                "--rate %d to resample",
                GST_AUDIO_INFO_RATE(&info), b->rate, b->rate);
    fx_decoder_stop(dec);
    return FALSE;
  }
  f->caps = gst_caps_ref(caps);
  f->channels = GST_AUDIO_INFO_CHANNELS(&info);
  while ((buf = fx_decoder_pull(dec, &err)) != NULL) {
    gsize n = gst_buffer_get_size(buf);
    if (f->bytes + n > f->alloc) {
      f->alloc = MAX(f->alloc * 2, f->bytes + n);
      f->data = g_realloc(f->data, f->alloc);
    }
    gst_buffer_extract(buf, 0, f->data + f->bytes, n);
    f->bytes += n;
    gst_buffer_unref(buf);
  }
  fx_decoder_stop(dec);
  if (err != NULL) {
    g_propagate_error(error, err);
    batch_file_free_data(f);
    return FALSE;
  }
  f->frames = f->bytes / ((gsize) f->channels * b->bps);
  return TRUE;
}

/* ---------------------------------------------------------------------------------------- */
/* The stacked run                                                                           */

/* Copies frames [off, off+n) of every file into the interleaved block of `stride` channels
 * (zeros past a file's end), or back from it. Frame-major, so the block is walked once in order
 * and each file's samples are read sequentially (with hundreds of files a file-major walk would
 * touch a new cache line for every sample). */
#define DEFINE_STACK(name, T)                                                                      \
  static void name(GPtrArray *group, T *block, gsize off, gsize n, gint stride, gboolean to_block) \
  {                                                                                                \
    for (gsize t = 0; t < n; t++) {                                                                \
      T *bp = block + t * (gsize) stride;                                                          \
      gsize tf = off + t;                                                                          \
      for (guint i = 0; i < group->len; i++) {                                                     \
        const BatchFile *f = g_ptr_array_index(group, i);                                          \
        gint ch = f->channels;                                                                     \
        if (tf < f->frames) {                                                                      \
          T *sp = (T *) f->data + tf * (gsize) ch;                                                 \
          if (to_block)                                                                            \
            for (gint c = 0; c < ch; c++)                                                          \
              bp[c] = sp[c];                                                                       \
          else                                                                                     \
            for (gint c = 0; c < ch; c++)                                                          \
              sp[c] = bp[c];                                                                       \
        } else if (to_block) {                                                                     \
          for (gint c = 0; c < ch; c++)                                                            \
            bp[c] = 0;                                                                             \
        }                                                                                          \
        bp += ch;                                                                                  \
      }                                                                                            \
    }                                                                                              \
  }
DEFINE_STACK(stack_f32, float)
DEFINE_STACK(stack_f64, double)

static void stack_block(const Batch *b, GPtrArray *group, guint8 *block, gsize off, gsize n,
                        gint total_channels, gboolean to_block)
{
  if (b->bps == 4)
    stack_f32(group, (float *) block, off, n, total_channels, to_block);
  else
    stack_f64(group, (double *) block, off, n, total_channels, to_block);
}

static GstBuffer *make_block(const Batch *b, GPtrArray *group, gsize off, gsize n, gint channels)
{
  GstBuffer *buf = gst_buffer_new_allocate(NULL, n * channels * b->bps, NULL);
  GstMapInfo map;

  gst_buffer_map(buf, &map, GST_MAP_WRITE);
  stack_block(b, group, map.data, off, n, channels, TRUE);
  gst_buffer_unmap(buf, &map);
  fx_media_stamp(buf, off, n, b->rate);
  return buf;
}

/* Pulls one processed block and scatters it back into the files. */
static gboolean pull_block(Batch *b, GPtrArray *group, gsize off, gsize n, gint channels,
                           GError **error)
{
  GstElement *sink = fx_feeder_get(b->engine, "sink");
  GstSample *sample = NULL;
  GstMapInfo map;
  GstBuffer *buf;

  while (sample == NULL) {
    sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 100 * GST_MSECOND);
    if (sample == NULL &&
        (fx_feeder_failed(b->engine, error) || gst_app_sink_is_eos(GST_APP_SINK(sink)))) {
      if (error != NULL && *error == NULL)
        g_set_error_literal(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED, "the chain ended early");
      return FALSE;
    }
  }
  buf = gst_sample_get_buffer(sample);
  if (gst_buffer_get_size(buf) != n * channels * b->bps) {
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
                "the chain returned %" G_GSIZE_FORMAT " bytes for a block of %" G_GSIZE_FORMAT,
                gst_buffer_get_size(buf), n * channels * b->bps);
    gst_sample_unref(sample);
    return FALSE;
  }
  gst_buffer_map(buf, &map, GST_MAP_READ);
  stack_block(b, group, map.data, off, n, channels, FALSE);
  gst_buffer_unmap(buf, &map);
  gst_sample_unref(sample);
  return TRUE;
}

static gboolean run_stacked(Batch *b, GPtrArray *group, GError **error)
{
  gint channels = 0;
  gsize length = 0, nblocks;
  GstCaps *caps;
  guint64 dispatches = 0;
  gchar *backend = NULL;

  for (guint i = 0; i < group->len; i++) {
    BatchFile *f = g_ptr_array_index(group, i);
    channels += f->channels;
    length = MAX(length, f->frames);
  }
  if (length == 0)
    return TRUE;
  caps = gst_caps_new_simple("audio/x-raw", "format", G_TYPE_STRING, b->opts.format, "layout",
                             G_TYPE_STRING, "interleaved", "rate", G_TYPE_INT, b->rate, "channels",
                             G_TYPE_INT, channels, "channel-mask", GST_TYPE_BITMASK, (guint64) 0,
                             NULL);
  if (!fx_feeder_start(b->engine, caps, error)) {
    gst_caps_unref(caps);
    return FALSE;
  }
  gst_caps_unref(caps);
  nblocks = (length + FX_BLOCK_FRAMES - 1) / FX_BLOCK_FRAMES;
  /* Each block runs through the fxchain in this thread (FxFeeder) and waits in the appsink. */
  for (gsize k = 0; k < nblocks; k++) {
    gsize off = k * FX_BLOCK_FRAMES, n = MIN(length - off, FX_BLOCK_FRAMES);
    if (!fx_feeder_push(b->engine, make_block(b, group, off, n, channels), error) ||
        !pull_block(b, group, off, n, channels, error))
      goto fail;
  }
  if (!fx_feeder_finish(b->engine, &b->warnings, error))
    goto fail;
  fx_tool_get_u64(fx_feeder_get(b->engine, "fx"), "dispatches", &dispatches);
  g_object_get(fx_feeder_get(b->engine, "fx"), "backend", &backend, NULL);
  if (backend != NULL && b->backend == NULL)
    b->backend = g_steal_pointer(&backend);
  g_free(backend);
  b->dispatches += dispatches;
  b->blocks += nblocks;
  b->groups++;
  fx_feeder_stop(b->engine);
  return TRUE;

fail:
  fx_feeder_stop(b->engine);
  return FALSE;
}

/* ---------------------------------------------------------------------------------------- */
/* Encoding                                                                                  */

static gboolean write_file(Batch *b, BatchFile *f, GError **error)
{
  gchar *tail = fx_media_encoder_tail(f->out, b->opts.format);
  gchar *key = g_strdup_printf("%s | %" GST_PTR_FORMAT, tail, f->caps);
  FxFeeder *enc = g_hash_table_lookup(b->encoders, key);
  GstBuffer *buf;
  gboolean ok;

  /* Encoders keep the caps of their first stream (wavenc refuses others after going through
   * NULL), so a pipeline is reused only for files of the same caps. */
  if (enc == NULL) {
    gchar *desc = g_strdup_printf("%s ! filesink name=out", tail);
    enc = fx_feeder_new(desc, error);
    g_free(desc);
    if (enc == NULL) {
      g_free(tail);
      g_free(key);
      return FALSE;
    }
    g_hash_table_insert(b->encoders, g_strdup(key), enc);
  }
  g_free(tail);
  g_free(key);
  g_object_set(fx_feeder_get(enc, "out"), "location", f->out, NULL);
  if (!fx_feeder_start(enc, f->caps, error))
    return FALSE;
  if (f->bytes > 0) {
    buf = gst_buffer_new_wrapped_full(GST_MEMORY_FLAG_READONLY, f->data, f->alloc, 0, f->bytes,
                                      NULL, NULL);
    fx_media_stamp(buf, 0, f->frames, b->rate);
    if (!fx_feeder_push(enc, buf, error)) {
      fx_feeder_stop(enc);
      return FALSE;
    }
  }
  ok = fx_feeder_finish(enc, &b->warnings, error);
  fx_feeder_stop(enc);
  return ok;
}

/* Runs a group and writes its files; frees their data. */
static void flush_group(Batch *b, GPtrArray *group)
{
  GError *error = NULL;

  if (group->len == 0)
    return;
  fx_progress_update(&b->progress, (double) b->processed / b->total, "filtering");
  if (!run_stacked(b, group, &error)) {
    for (guint i = 0; i < group->len; i++)
      fail_file(b, ((BatchFile *) g_ptr_array_index(group, i))->path, error->message);
    g_clear_error(&error);
  } else {
    for (guint i = 0; i < group->len; i++) {
      BatchFile *f = g_ptr_array_index(group, i);
      fx_progress_update(&b->progress, (double) b->processed / b->total, f->path);
      if (!write_file(b, f, &error)) {
        gchar *msg = g_strdup_printf("cannot write %s: %s", f->out, error->message);
        fail_file(b, f->path, msg);
        g_free(msg);
        g_clear_error(&error);
      } else {
        b->written++;
      }
      b->processed++;
    }
  }
  for (guint i = 0; i < group->len; i++)
    batch_file_free_data(g_ptr_array_index(group, i));
  g_ptr_array_set_size(group, 0);
}

/* ---------------------------------------------------------------------------------------- */

static gint compare_paths(gconstpointer a, gconstpointer b)
{
  return strcmp(*(const char *const *) a, *(const char *const *) b);
}

static gboolean parse_shard(const char *text, guint *k, guint *n)
{
  gchar *end = NULL;
  guint64 kk, nn;

  if (text == NULL || !g_ascii_isdigit(*text))
    return FALSE;
  kk = g_ascii_strtoull(text, &end, 10);
  if (*end != '/' || !g_ascii_isdigit(end[1]))
    return FALSE;
  nn = g_ascii_strtoull(end + 1, &end, 10);
  if (*end != '\0' || nn < 1 || nn > G_MAXINT || kk < 1 || kk > nn)
    return FALSE;
  *k = (guint) kk;
  *n = (guint) nn;
  return TRUE;
}

/* DIR/<name>, with the extension replaced by `ext` when given. */
static gchar *output_path(const char *dir, const char *path, const char *ext)
{
  gchar *base = g_path_get_basename(path), *out;

  if (ext != NULL) {
    char *dot = strrchr(base, '.');
    if (dot != NULL && dot != base)
      *dot = '\0';
    gchar *named = g_strdup_printf("%s.%s", base, ext[0] == '.' ? ext + 1 : ext);
    g_free(base);
    base = named;
  }
  out = g_build_filename(dir, base, NULL);
  g_free(base);
  return out;
}

int fx_cmd_batch(int argc, char **argv)
{
  gchar *chain = NULL, *device = NULL, *precision = NULL, *format = NULL, *outdir = NULL;
  gchar *shard = NULL, *ext = NULL;
  gchar **files = NULL;
  gint rate = 0, memory = DEFAULT_MEMORY_MIB;
  gboolean quiet = FALSE;
  const GOptionEntry entries[] = {
      {"chain", 'c', 0, G_OPTION_ARG_STRING, &chain,
       "The chain in gst-launch syntax, as fxchain's `chain` (required; per-channel stages "
       "only)",
       "DESC"},
      {"output-dir", 'o', 0, G_OPTION_ARG_FILENAME, &outdir,
       "Directory for the outputs, created if missing (required)", "DIR"},
      {"shard", 's', 0, G_OPTION_ARG_STRING, &shard,
       "Process only shard K of N: the files whose index i in the sorted list has i % N == K-1",
       "K/N"},
      {"rate", 'r', 0, G_OPTION_ARG_INT, &rate,
       "Resample every file to R Hz (default: the first file's rate; other rates are refused)",
       "R"},
      {"memory", 'm', 0, G_OPTION_ARG_INT, &memory,
       "Decoded audio held at once, in MiB (default 1024); files are processed in groups of "
       "at most this size",
       "MIB"},
      {"ext", 'e', 0, G_OPTION_ARG_STRING, &ext,
       "Write the outputs with this extension (wav, flac or ogg) instead of the input's", "EXT"},
      {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
       "Where the cascades run: auto (default), cpu or cuda", "D"},
      {"precision", 'p', 0, G_OPTION_ARG_STRING, &precision,
       "Arithmetic for F32 streams: auto (default), single or double", "P"},
      {"format", 'f', 0, G_OPTION_ARG_STRING, &format,
       "Processing sample format, also a wav output's: F32LE (default) or F64LE", "F"},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No summary line and no progress bar", NULL},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "FILE..."},
      {NULL, 0, 0, 0, NULL, NULL, NULL},
  };
  GOptionContext *ctx = g_option_context_new("-o DIR FILE...");
  Batch b = {0};
  GPtrArray *list = NULL, *group = NULL;
  GHashTable *outputs = NULL;
  BatchFile *bf = NULL;
  FxDecoder *dec = NULL;
  GError *error = NULL;
  guint k = 1, n = 1, nsel = 0;
  gsize budget, held = 0;
  int status;

  g_set_prgname("gst-fx batch");
  g_option_context_set_summary(
      ctx,
      "Runs many files through one fused plan: the channels of all files are stacked into one\n"
      "stream, so each block of frames is one dispatch for all files together (one launch on a\n"
      "GPU). Writes DIR/<name of FILE> in the input's format (wav, flac, ogg), identical to\n"
      "`gst-fx process FILE DIR/<name>` with the same options. Prints one summary line (files,\n"
      "groups, blocks, dispatches). A file that cannot be read, decoded or written is reported\n"
      "on stderr and the others are processed. Exit status: 0 all files written, 1 some\n"
      "failed, 2 bad usage.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!fx_tool_parse_options(ctx, &argc, &argv)) {
    status = FX_EXIT_USAGE;
    goto out;
  }
  b.opts.chain = chain != NULL ? g_strstrip(chain) : NULL;
  b.opts.device = device;
  b.opts.precision = precision;
  b.opts.rate = rate;
  status = fx_media_check_options(ctx, &b.opts, format);
  if (status != FX_EXIT_OK)
    goto out;
  if (outdir == NULL || *outdir == '\0') {
    status = fx_tool_usage_error(ctx, "-o DIR is required");
    goto out;
  }
  if (files == NULL || files[0] == NULL) {
    status = fx_tool_usage_error(ctx, "no input files");
    goto out;
  }
  if (shard != NULL && !parse_shard(shard, &k, &n)) {
    status = fx_tool_usage_error(ctx, "--shard must be K/N with 1 <= K <= N, not \"%s\"", shard);
    goto out;
  }
  if (memory < 1) {
    status = fx_tool_usage_error(ctx, "--memory must be at least 1 MiB");
    goto out;
  }
  if (ext != NULL) {
    gchar *probe = g_strdup_printf("x.%s", ext[0] == '.' ? ext + 1 : ext);
    gchar *tail = fx_media_encoder_tail(probe, b.opts.format);
    g_free(probe);
    if (tail == NULL) {
      status =
          fx_tool_usage_error(ctx, "--ext must be one of %s, not \"%s\"", FX_MEDIA_EXTENSIONS, ext);
      goto out;
    }
    g_free(tail);
  }

  /* The shard's files, and their outputs (two inputs must not write the same output). */
  list = g_ptr_array_new();
  for (gchar **p = files; *p != NULL; p++)
    g_ptr_array_add(list, *p);
  g_ptr_array_sort(list, compare_paths);
  outputs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < list->len; i++) {
    const char *path = g_ptr_array_index(list, i);
    gchar *out = output_path(outdir, path, ext);
    gchar *canon = g_canonicalize_filename(out, NULL);
    const char *other = g_hash_table_lookup(outputs, canon);
    g_free(out);
    if (other != NULL) {
      status =
          fx_tool_usage_error(ctx, "%s and %s would both be written to %s", other, path, canon);
      g_free(canon);
      goto out;
    }
    g_hash_table_insert(outputs, canon, (gpointer) path);
  }

  if (g_mkdir_with_parents(outdir, 0777) != 0) {
    fx_media_report(outdir, g_strerror(errno));
    status = FX_EXIT_FAILURE;
    goto out;
  }

  fx_tool_init();
  fx_progress_init(&b.progress);
  if (quiet)
    b.progress.enabled = FALSE;
  b.outdir = outdir;
  b.ext = ext;
  b.rate = rate;
  b.bps = g_str_equal(b.opts.format, "F64LE") ? 8 : 4;
  b.encoders =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify) fx_feeder_free);
  b.engine = fx_feeder_new("fxchain name=fx ! appsink name=sink sync=false", &error);
  if (b.engine == NULL) {
    fprintf(stderr, "gst-fx: %s\n", error->message);
    status = FX_EXIT_FAILURE;
    goto out;
  }
  fx_media_setup_chain(fx_feeder_get(b.engine, "fx"), &b.opts);
  if (!check_chain(&b, &error)) {
    fprintf(stderr, "gst-fx: %s\n", error->message);
    status = FX_EXIT_FAILURE;
    goto out;
  }
  dec = fx_decoder_new(&b.opts, &error);
  if (dec == NULL) {
    fprintf(stderr, "gst-fx: %s\n", error->message);
    status = FX_EXIT_FAILURE;
    goto out;
  }

  for (guint i = 0; i < list->len; i++)
    if (i % n == k - 1)
      nsel++;
  b.total = MAX(nsel, 1);
  bf = g_new0(BatchFile, MAX(nsel, 1));
  group = g_ptr_array_new();
  budget = (gsize) memory << 20;
  for (guint i = 0, j = 0; i < list->len; i++) {
    if (i % n != k - 1)
      continue;
    BatchFile *f = &bf[j++];
    f->path = g_ptr_array_index(list, i);
    f->out = output_path(outdir, f->path, ext);
    gchar *tail = fx_media_encoder_tail(f->out, b.opts.format);
    gchar *cin = g_canonicalize_filename(f->path, NULL);
    gchar *cout = g_canonicalize_filename(f->out, NULL);
    gboolean same = g_str_equal(cin, cout);
    g_free(cin);
    g_free(cout);
    if (tail == NULL) {
      gchar *msg = g_strdup_printf("no encoder for this file type (use one of %s, or --ext)",
                                   FX_MEDIA_EXTENSIONS);
      fail_file(&b, f->path, msg);
      g_free(msg);
      b.processed++;
      continue;
    }
    g_free(tail);
    if (same) {
      fail_file(&b, f->path, "the output would overwrite the input (choose another -o DIR)");
      b.processed++;
      continue;
    }
    fx_progress_update(&b.progress, (double) b.processed / b.total, f->path);
    if (!read_file(&b, dec, f, &error)) {
      fail_file(&b, f->path, error->message);
      g_clear_error(&error);
      b.processed++;
      continue;
    }
    if (group->len > 0 && held + f->bytes > budget) {
      flush_group(&b, group);
      held = 0;
    }
    g_ptr_array_add(group, f);
    held += f->bytes;
  }
  flush_group(&b, group);
  fx_progress_update(&b.progress, 1.0, "done");
  fx_progress_done(&b.progress);
  fx_tool_print_warnings(b.warnings);
  if (!quiet)
    printf(
        "gst-fx batch: %u of %u files written, %u failed; %u group(s) at %d Hz, %" G_GUINT64_FORMAT
        " blocks of up to %d frames, %" G_GUINT64_FORMAT " dispatches, backend %s\n",
        b.written, nsel, b.failed, b.groups, b.rate, b.blocks, FX_BLOCK_FRAMES, b.dispatches,
        b.backend != NULL ? b.backend : "none");
  status = b.failed > 0 ? FX_EXIT_FAILURE : FX_EXIT_OK;

out:
  if (bf != NULL) {
    for (guint i = 0; i < nsel; i++) {
      batch_file_free_data(&bf[i]);
      g_free(bf[i].out);
    }
    g_free(bf);
  }
  if (group != NULL)
    g_ptr_array_unref(group);
  if (list != NULL)
    g_ptr_array_unref(list);
  if (outputs != NULL)
    g_hash_table_unref(outputs);
  if (b.encoders != NULL)
    g_hash_table_unref(b.encoders);
  fx_feeder_free(b.engine);
  fx_decoder_free(dec);
  if (b.warnings != NULL)
    g_ptr_array_unref(b.warnings);
  g_free(b.backend);
  g_clear_error(&error);
  g_option_context_free(ctx);
  g_free(chain);
  g_free(device);
  g_free(precision);
  g_free(format);
  g_free(outdir);
  g_free(shard);
  g_free(ext);
  g_strfreev(files);
  return status;
}
