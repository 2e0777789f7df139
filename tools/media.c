/* gst-fx — decoding, encoding and feeding pipelines for `process` and `batch` (see media.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "media.h"

#include <glib/gstdio.h>
#include <sndfile.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const device_nicks[] = {"auto", "cpu", "cuda", NULL};
static const char *const precision_nicks[] = {"auto", "single", "double", NULL};

int fx_media_check_options(GOptionContext *ctx, FxMediaOptions *opts, const char *format_arg)
{
  if (opts->chain == NULL || *opts->chain == '\0')
    return fx_tool_usage_error(ctx, "--chain is required");
  if (format_arg == NULL || g_ascii_strcasecmp(format_arg, "F32LE") == 0 ||
      g_ascii_strcasecmp(format_arg, "F32") == 0)
    opts->format = "F32LE";
  else if (g_ascii_strcasecmp(format_arg, "F64LE") == 0 ||
           g_ascii_strcasecmp(format_arg, "F64") == 0)
    opts->format = "F64LE";
  else
    return fx_tool_usage_error(ctx, "--format must be F32LE or F64LE, not \"%s\"", format_arg);
  if (opts->rate < 0 || opts->rate > FX_MEDIA_MAX_RATE)
    return fx_tool_usage_error(ctx, "--rate must be from 1 to %d Hz", FX_MEDIA_MAX_RATE);
  if (opts->device != NULL && !g_strv_contains(device_nicks, opts->device))
    return fx_tool_usage_error(ctx, "--device must be auto, cpu or cuda, not \"%s\"", opts->device);
  if (opts->precision != NULL && !g_strv_contains(precision_nicks, opts->precision))
    return fx_tool_usage_error(ctx, "--precision must be auto, single or double, not \"%s\"",
                               opts->precision);
  return FX_EXIT_OK;
}

void fx_media_report(const char *path, const char *message)
{
  gchar *line = g_strdup(message);

  g_strdelimit(line, "\r\n", ' ');
  fprintf(stderr, "gst-fx: %s: %s\n", path, line);
  g_free(line);
}

/* libsndfile's major format and subtype for OUT's extension, or 0. */
static int output_format(const char *path, const char *format)
{
  const char *dot = strrchr(path, '.');
  const char *slash = strrchr(path, '/');

  if (dot == NULL || (slash != NULL && dot < slash))
    return 0;
  dot++;
  if (g_ascii_strcasecmp(dot, "wav") == 0)
    return SF_FORMAT_WAV | (g_str_equal(format, "F64LE") ? SF_FORMAT_DOUBLE : SF_FORMAT_FLOAT);
  if (g_ascii_strcasecmp(dot, "flac") == 0)
    return SF_FORMAT_FLAC | SF_FORMAT_PCM_24;
  if (g_ascii_strcasecmp(dot, "ogg") == 0 || g_ascii_strcasecmp(dot, "oga") == 0)
    return SF_FORMAT_OGG | SF_FORMAT_VORBIS;
  return 0;
}

gboolean fx_media_output_supported(const char *path)
{
  return output_format(path, "F32LE") != 0;
}

gchar *fx_media_file_key(const char *path)
{
  GStatBuf st;

  if (g_stat(path, &st) != 0)
    return NULL;
  return g_strdup_printf("%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT, (guint64) st.st_dev,
                         (guint64) st.st_ino);
}

gboolean fx_media_same_file(const char *a, const char *b)
{
  gchar *ka = fx_media_file_key(a), *kb = ka != NULL ? fx_media_file_key(b) : NULL;
  gboolean same = kb != NULL && g_str_equal(ka, kb);

  g_free(ka);
  g_free(kb);
  return same;
}

/* The output is written to a temporary beside OUT (fx_tool_temp_create()), renamed over OUT by
 * fx_writer_close() once libsndfile has closed it: OUT never holds a partial file, and a failed
 * run leaves whatever was there before. */
struct _FxWriter {
  gchar *path;
  gchar *temp; /* while it is being written */
  int fd;
  gboolean f64;
  int sf_format;
  SNDFILE *sf;
  gint channels, rate;
};

FxWriter *fx_writer_new(const char *path, const char *format)
{
  FxWriter *w = g_new0(FxWriter, 1);

  w->path = g_strdup(path);
  w->fd = -1;
  w->f64 = g_str_equal(format, "F64LE");
  w->sf_format = output_format(path, format);
  return w;
}

gboolean fx_writer_write(FxWriter *w, const void *data, gsize frames, gint channels, gint rate,
                         GError **error)
{
  sf_count_t n;

  if (w->sf == NULL) {
    SF_INFO info = {0};

    if (w->sf_format == 0) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                  "cannot write %s: no encoder for this file type (use one of %s)", w->path,
                  FX_MEDIA_EXTENSIONS);
      return FALSE;
    }
    info.samplerate = rate;
    info.channels = channels;
    info.format = w->sf_format;
    if (!sf_format_check(&info)) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                  "cannot write %s: this format cannot hold %d channel(s) at %d Hz", w->path,
                  channels, rate);
      return FALSE;
    }
    if (w->fd < 0) {
      w->fd = fx_tool_temp_create(w->path, &w->temp, error);
      if (w->fd < 0)
        return FALSE;
    }
    /* the descriptor stays ours (closed by fx_writer_close()) */
    w->sf = sf_open_fd(w->fd, SFM_WRITE, &info, SF_FALSE);
    if (w->sf == NULL) {
      gchar *line = g_strdup(sf_strerror(NULL));
      g_strdelimit(line, "\r\n", ' ');
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "cannot write %s: %s", w->path,
                  g_strstrip(line));
      g_free(line);
      return FALSE;
    }
    w->channels = channels;
    w->rate = rate;
    /* deterministic output: no PEAK chunk (it holds a time stamp); float -> integer conversions
     * clip instead of wrapping around, with the scale 2^(bits-1) of the decoders */
    sf_command(w->sf, SFC_SET_ADD_PEAK_CHUNK, NULL, SF_FALSE);
    sf_command(w->sf, SFC_SET_CLIPPING, NULL, SF_TRUE);
  }
  if (channels != w->channels || rate != w->rate) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "cannot write %s: the stream changed to %d channel(s) at %d Hz", w->path, channels,
                rate);
    return FALSE;
  }
  if (frames == 0)
    return TRUE;
  n = w->f64 ? sf_writef_double(w->sf, data, (sf_count_t) frames)
             : sf_writef_float(w->sf, data, (sf_count_t) frames);
  if (n != (sf_count_t) frames) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot write %s: %s", w->path,
                sf_strerror(w->sf));
    return FALSE;
  }
  return TRUE;
}

gboolean fx_writer_opened(FxWriter *w)
{
  return w->sf != NULL;
}

gboolean fx_writer_close(FxWriter *w, gboolean keep, GError **error)
{
  gboolean ok = TRUE;

  if (w == NULL)
    return TRUE;
  if (w->sf != NULL && sf_close(w->sf) != 0 && keep) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot write %s: closing failed", w->path);
    ok = FALSE;
  }
  if (w->fd >= 0 && close(w->fd) != 0 && keep && ok) {
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "cannot write %s: %s", w->path,
                g_strerror(errno));
    ok = FALSE;
  }
  if (w->temp != NULL) {
    if (keep && ok && w->sf != NULL)
      ok = fx_tool_temp_commit(w->temp, w->path, error);
    else
      fx_tool_temp_discard(w->temp);
  }
  g_free(w->temp);
  g_free(w->path);
  g_free(w);
  return ok;
}

void fx_media_setup_chain(GstElement *fxchain, const FxMediaOptions *opts)
{
  /* the chain's parameters are fixed for the whole run: no input copy for warm-ups */
  g_object_set(fxchain, "chain", opts->chain, "warm-up", FALSE, NULL);
  if (opts->device != NULL)
    gst_util_set_object_arg(G_OBJECT(fxchain), "device", opts->device);
  if (opts->precision != NULL)
    gst_util_set_object_arg(G_OBJECT(fxchain), "precision", opts->precision);
}

void fx_media_stamp(GstBuffer *buf, guint64 frames_done, guint64 frames, gint rate)
{
  GST_BUFFER_PTS(buf) = gst_util_uint64_scale_int(frames_done, GST_SECOND, rate);
  GST_BUFFER_DURATION(buf) =
      gst_util_uint64_scale_int(frames_done + frames, GST_SECOND, rate) - GST_BUFFER_PTS(buf);
  GST_BUFFER_OFFSET(buf) = frames_done;
  GST_BUFFER_OFFSET_END(buf) = frames_done + frames;
}

/* An error message as a GError with a one-line text. */
static void set_error_from_message(GError **error, GstMessage *msg, const char *prefix)
{
  GError *err = NULL;
  gchar *line;

  gst_message_parse_error(msg, &err, NULL);
  line = g_strdup(err->message != NULL ? err->message : "unknown error");
  g_strdelimit(line, "\r\n", ' ');
  g_set_error(error, err->domain, err->code, "%s%s", prefix, line);
  g_free(line);
  g_error_free(err);
}

/* ---------------------------------------------------------------------------------------- */
/* Decoder                                                                                   */

/* What a file's header may announce, checked before anything is built for it (see media.h:
 * FX_MEDIA_MAX_RATE). `frames` < 0: unknown. */
static gboolean check_stream(gint rate, gint channels, gint target_rate, gint64 frames,
                             GError **error)
{
  if (rate < 1 || rate > FX_MEDIA_MAX_RATE) {
    g_set_error(error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                "sample rate %d Hz in the header is out of range (1 to %d Hz)", rate,
                FX_MEDIA_MAX_RATE);
    return FALSE;
  }
  if (channels < 1 || channels > FX_MEDIA_MAX_CHANNELS) {
    g_set_error(error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                "%d channels in the header is out of range (1 to %d)", channels,
                FX_MEDIA_MAX_CHANNELS);
    return FALSE;
  }
  if (target_rate > 0 && target_rate != rate &&
      (rate / target_rate >= FX_MEDIA_MAX_RESAMPLE ||
       target_rate / rate >= FX_MEDIA_MAX_RESAMPLE)) {
    g_set_error(error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                "resampling from %d Hz to %d Hz is beyond a ratio of %d", rate, target_rate,
                FX_MEDIA_MAX_RESAMPLE);
    return FALSE;
  }
  /* the decoded (and resampled) stream in the processing format must be addressable: batch
   * holds such a file in memory */
  if (frames > 0) {
    guint64 out = target_rate > 0
                      ? gst_util_uint64_scale_int_ceil((guint64) frames, target_rate, rate)
                      : (guint64) frames;
    if (out == G_MAXUINT64 || out > (guint64) (G_MAXSSIZE / 8 / channels)) {
      g_set_error(error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                  "%" G_GINT64_FORMAT " frames in the header is more than can be "
                  "held",
                  frames);
      return FALSE;
    }
  }
  return TRUE;
}

/* Frames the header of a wav, w64 or aiff file announces (libsndfile reads the frames there, so a
 * truncated file has fewer than this; its log gives the size of the sample chunk), or -1. */
static gint64 announced_frames(SNDFILE *sf, const SF_INFO *info)
{
  char log[4096];
  gchar **lines;
  const char *chunk;
  gint64 announced, overhead, frames = -1;
  int width;

  switch (info->format & SF_FORMAT_SUBMASK) {
  case SF_FORMAT_PCM_S8:
  case SF_FORMAT_PCM_U8:
  case SF_FORMAT_ULAW:
  case SF_FORMAT_ALAW:
    width = 1;
    break;
  case SF_FORMAT_PCM_16:
    width = 2;
    break;
  case SF_FORMAT_PCM_24:
    width = 3;
    break;
  case SF_FORMAT_PCM_32:
  case SF_FORMAT_FLOAT:
    width = 4;
    break;
  case SF_FORMAT_DOUBLE:
    width = 8;
    break;
  default:
    return -1;
  }
  /* the chunk holding the samples, as libsndfile logs it, and the bytes of that size that are
   * not samples: wav's "data" counts samples only, w64's includes its 24-byte chunk header,
   * aiff's "SSND" its 8 bytes of offset and block size */
  switch (info->format & SF_FORMAT_TYPEMASK) {
  case SF_FORMAT_WAV:
  case SF_FORMAT_WAVEX:
    chunk = "data : ";
    overhead = 0;
    break;
  case SF_FORMAT_W64:
    chunk = "data : ";
    overhead = 24;
    break;
  case SF_FORMAT_AIFF:
    chunk = "SSND : ";
    overhead = 8;
    break;
  default:
    return -1;
  }
  log[0] = '\0';
  sf_command(sf, SFC_GET_LOG_INFO, log, sizeof log);
  lines = g_strsplit(log, "\n", -1);
  for (gchar **l = lines; *l != NULL && frames < 0; l++) {
    const char *line = *l + strspn(*l, " ");
    if (g_str_has_prefix(line, chunk) &&
        sscanf(line + strlen(chunk), "%" G_GINT64_FORMAT, &announced) == 1 && announced >= overhead)
      frames = (announced - overhead) / ((gint64) width * info->channels);
  }
  g_strfreev(lines);
  return frames;
}

/* One decoding pipeline: SOURCE ! audioconvert ! audioresample ! capsfilter ! appsink, where
 * SOURCE is `uridecodebin` (anything GStreamer decodes) or, for names ending in .wav,
 * `filesrc ! wavparse`, which skips type finding and autoplugging (the same wavparse that
 * uridecodebin would plug, so the same samples) and is much cheaper to restart per file. */
typedef struct {
  GstElement *pipeline, *source, *convert, *sink;
  GstBus *bus;
} DecodePipe;

struct _FxDecoder {
  gchar *format;
  gint rate;
  DecodePipe *pipes[2]; /* [0] uridecodebin, [1] filesrc ! wavparse; made when first needed */
  DecodePipe *cur;
  SNDFILE *sf; /* the current file when libsndfile reads it (then cur is NULL) */
  SF_INFO sf_info;
  int fd;          /* sf's descriptor (closed after sf) */
  goffset raw_off; /* fx_decoder_locate_pcm16(): where the samples start, or -1 */
  GstBuffer *first;
  GstCaps *caps;
  gint64 found_frames, header_frames; /* a truncated file: the frames there and announced */
};

/* Frames per buffer of fx_decoder_pull() with libsndfile. */
#define SF_PULL_FRAMES (4 * FX_BLOCK_FRAMES)

static void on_pad_added(GstElement *element, GstPad *pad, gpointer user_data)
{
  DecodePipe *dp = user_data;
  GstPad *sinkpad = gst_element_get_static_pad(dp->convert, "sink");
  GstCaps *caps = gst_pad_get_current_caps(pad);
  gboolean audio = TRUE;

  (void) element;
  if (caps == NULL)
    caps = gst_pad_query_caps(pad, NULL);
  if (caps != NULL && gst_caps_get_size(caps) > 0)
    audio = g_str_has_prefix(gst_structure_get_name(gst_caps_get_structure(caps, 0)), "audio/");
  if (audio && !gst_pad_is_linked(sinkpad))
    gst_pad_link(pad, sinkpad);
  if (caps != NULL)
    gst_caps_unref(caps);
  gst_object_unref(sinkpad);
}

/* Decoders of plain (non-extensible) multichannel wav files give caps without a channel-mask,
 * which audioconvert refuses for more than two channels: such streams get GStreamer's fallback
 * layout for their channel count (gst_audio_channel_get_fallback_mask(), as the FLAC and Vorbis
 * encoders need one), or channel-mask 0 (unpositioned) when there is none. */
static GstPadProbeReturn add_channel_mask(GstPad *pad, GstPadProbeInfo *info, gpointer user_data)
{
  const FxDecoder *dec = user_data;
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
  GstCaps *caps;
  GstStructure *st;
  gint channels = 0;

  if (GST_EVENT_TYPE(event) != GST_EVENT_CAPS)
    return GST_PAD_PROBE_OK;
  gst_event_parse_caps(event, &caps);
  if (gst_caps_get_size(caps) != 1)
    return GST_PAD_PROBE_OK;
  st = gst_caps_get_structure(caps, 0);
  /* a stream out of bounds never reaches audioconvert and audioresample (a rate of 2^31 Hz
   * resampled would need hundreds of GB): an error instead, which the decoder reports */
  gint rate = 0;
  GError *err = NULL;
  if (gst_structure_get_int(st, "rate", &rate) &&
      gst_structure_get_int(st, "channels", &channels) &&
      !check_stream(rate, channels, dec->rate, -1, &err)) {
    GstObject *parent = gst_pad_get_parent(pad);
    gst_element_post_message(GST_ELEMENT(parent),
                             gst_message_new_error(parent, err, "stream out of bounds"));
    gst_object_unref(parent);
    g_error_free(err);
    return GST_PAD_PROBE_DROP;
  }
  if (!gst_structure_get_int(st, "channels", &channels) || channels <= 2 ||
      gst_structure_has_field(st, "channel-mask"))
    return GST_PAD_PROBE_OK;
  caps = gst_caps_copy(caps);
  gst_caps_set_simple(caps, "channel-mask", GST_TYPE_BITMASK,
                      gst_audio_channel_get_fallback_mask(channels), NULL);
  gst_event_unref(event);
  GST_PAD_PROBE_INFO_DATA(info) = gst_event_new_caps(caps);
  gst_caps_unref(caps);
  return GST_PAD_PROBE_OK;
}

static void decode_pipe_free(DecodePipe *dp)
{
  if (dp == NULL)
    return;
  gst_element_set_state(dp->pipeline, GST_STATE_NULL);
  gst_object_unref(dp->bus);
  gst_object_unref(dp->pipeline);
  g_free(dp);
}

static DecodePipe *decode_pipe_new(const FxDecoder *dec, gboolean wav, GError **error)
{
  DecodePipe *dp = g_new0(DecodePipe, 1);
  GstElement *parse = NULL, *resample, *filter;
  GstCaps *caps;
  gboolean ok;

  dp->pipeline = gst_pipeline_new(wav ? "gst-fx-wav-decoder" : "gst-fx-decoder");
  dp->source = gst_element_factory_make(wav ? "filesrc" : "uridecodebin", NULL);
  if (wav)
    parse = gst_element_factory_make("wavparse", NULL);
  dp->convert = gst_element_factory_make("audioconvert", NULL);
  resample = gst_element_factory_make("audioresample", NULL);
  filter = gst_element_factory_make("capsfilter", NULL);
  dp->sink = gst_element_factory_make("appsink", NULL);
  ok = dp->source != NULL && (!wav || parse != NULL) && dp->convert != NULL && resample != NULL &&
       filter != NULL && dp->sink != NULL;
  if (!ok) {
    g_set_error_literal(error, GST_CORE_ERROR, GST_CORE_ERROR_MISSING_PLUGIN,
                        "uridecodebin, wavparse, audioconvert, audioresample or appsink missing "
                        "(install gstreamer1.0-plugins-base and -good)");
    GstElement *all[] = {dp->source, parse, dp->convert, resample, filter, dp->sink};
    for (size_t i = 0; i < G_N_ELEMENTS(all); i++)
      if (all[i] != NULL)
        gst_object_unref(all[i]);
    gst_object_unref(dp->pipeline);
    g_free(dp);
    return NULL;
  }
  caps = gst_caps_new_simple("audio/x-raw", "format", G_TYPE_STRING, dec->format, "layout",
                             G_TYPE_STRING, "interleaved", NULL);
  if (dec->rate > 0)
    gst_caps_set_simple(caps, "rate", G_TYPE_INT, dec->rate, NULL);
  g_object_set(filter, "caps", caps, NULL);
  /* a bounded queue (process streams files), deep enough that the decoder thread and this one
   * rarely wait for each other */
  g_object_set(dp->sink, "caps", caps, "sync", FALSE, "max-buffers", 64u, NULL);
  gst_caps_unref(caps);
  gst_bin_add_many(GST_BIN(dp->pipeline), dp->source, dp->convert, resample, filter, dp->sink,
                   NULL);
  if (wav) {
    gst_bin_add(GST_BIN(dp->pipeline), parse);
    gst_element_link(dp->source, parse);
    gst_element_link(parse, dp->convert); /* wavparse's src pad is an always pad */
  } else {
    g_signal_connect(dp->source, "pad-added", G_CALLBACK(on_pad_added), dp);
  }
  gst_element_link_many(dp->convert, resample, filter, dp->sink, NULL);
  GstPad *pad = gst_element_get_static_pad(dp->convert, "sink");
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, add_channel_mask, (gpointer) dec,
                    NULL);
  gst_object_unref(pad);
  dp->bus = gst_element_get_bus(dp->pipeline);
  return dp;
}

FxDecoder *fx_decoder_new(const FxMediaOptions *opts, GError **error)
{
  FxDecoder *dec = g_new0(FxDecoder, 1);

  (void) error; /* the GStreamer pipelines are made when a file needs one */
  dec->format = g_strdup(opts->format);
  dec->rate = opts->rate;
  dec->fd = -1;
  dec->raw_off = -1;
  dec->found_frames = dec->header_frames = -1;
  return dec;
}

void fx_decoder_stop(FxDecoder *dec)
{
  if (dec->cur != NULL)
    gst_element_set_state(dec->cur->pipeline, GST_STATE_NULL);
  dec->cur = NULL;
  dec->raw_off = -1;
  if (dec->sf != NULL)
    sf_close(dec->sf);
  dec->sf = NULL;
  if (dec->fd >= 0)
    close(dec->fd);
  dec->fd = -1;
  gst_clear_buffer(&dec->first);
  gst_clear_caps(&dec->caps);
  dec->found_frames = dec->header_frames = -1;
}

gchar *fx_decoder_warning(FxDecoder *dec)
{
  if (dec->header_frames < 0)
    return NULL;
  return g_strdup_printf("the file is truncated: %" G_GINT64_FORMAT
                         " frames found, header says %" G_GINT64_FORMAT
                         " (the frames found are processed)",
                         dec->found_frames, dec->header_frames);
}

void fx_decoder_free(FxDecoder *dec)
{
  if (dec == NULL)
    return;
  fx_decoder_stop(dec);
  decode_pipe_free(dec->pipes[0]);
  decode_pipe_free(dec->pipes[1]);
  g_free(dec->format);
  g_free(dec);
}

/* Pulls the next sample, watching the bus for errors. */
static GstSample *decoder_pull_sample(FxDecoder *dec, GError **error)
{
  DecodePipe *dp = dec->cur;

  for (;;) {
    GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(dp->sink), 50 * GST_MSECOND);
    GstMessage *msg;

    if (sample != NULL)
      return sample;
    msg = gst_bus_pop_filtered(dp->bus, GST_MESSAGE_ERROR);
    if (msg != NULL) {
      set_error_from_message(error, msg, "cannot decode: ");
      gst_message_unref(msg);
      return NULL;
    }
    if (gst_app_sink_is_eos(GST_APP_SINK(dp->sink)))
      return NULL;
  }
}

/* libsndfile reads the file when it opens it and, with --rate, the file has that rate. FALSE
 * with *error unset: use GStreamer. */
static gboolean sndfile_start(FxDecoder *dec, const char *path, GstCaps **caps, GError **error)
{
  SF_INFO info = {0};
  /* opened here so that fx_decoder_pread_pcm16() can read it (and closed here: libsndfile does
   * not); by name where that fails (libsndfile also guesses from the file name, which it lacks
   * here) */
  int fd = g_open(path, O_RDONLY | O_CLOEXEC, 0);
  SNDFILE *sf = fd >= 0 ? sf_open_fd(fd, SFM_READ, &info, SF_FALSE) : NULL;
  GstCaps *c;

  if (sf == NULL) {
    if (fd >= 0)
      close(fd);
    fd = -1;
    memset(&info, 0, sizeof info);
    sf = sf_open(path, SFM_READ, &info);
  }
  if (sf == NULL)
    return FALSE;
  /* a hostile or corrupt header is refused before anything is built for it; a truncated file is
   * read as far as it goes (libsndfile counts the frames there), with a warning */
  if (!check_stream(info.samplerate, info.channels, dec->rate,
                    info.frames == SF_COUNT_MAX ? -1 : (gint64) info.frames, error)) {
    g_prefix_error(error, "cannot decode: ");
    sf_close(sf);
    if (fd >= 0)
      close(fd);
    return FALSE;
  }
  gint64 announced = announced_frames(sf, &info);
  if (announced > info.frames) {
    dec->found_frames = info.frames;
    dec->header_frames = announced;
  }
  /* resampled by GStreamer, unless there is nothing to resample: a valid empty file gives an
   * empty stream at the rate asked for */
  if (dec->rate > 0 && info.samplerate != dec->rate && info.frames != 0) {
    sf_close(sf);
    if (fd >= 0)
      close(fd);
    return FALSE;
  }
  if (info.frames == 0 && dec->rate > 0)
    info.samplerate = dec->rate;
  /* integer PCM is scaled by 1 / 2^(bits-1) (libsndfile's default normalisation) */
  sf_command(sf, SFC_SET_NORM_FLOAT, NULL, SF_TRUE);
  sf_command(sf, SFC_SET_NORM_DOUBLE, NULL, SF_TRUE);
  c = gst_caps_new_simple("audio/x-raw", "format", G_TYPE_STRING, dec->format, "layout",
                          G_TYPE_STRING, "interleaved", "rate", G_TYPE_INT, info.samplerate,
                          "channels", G_TYPE_INT, info.channels, NULL);
  if (info.channels > 2) /* as add_channel_mask() does for the GStreamer decoders */
    gst_caps_set_simple(c, "channel-mask", GST_TYPE_BITMASK,
                        gst_audio_channel_get_fallback_mask(info.channels), NULL);
  dec->sf = sf;
  dec->fd = fd;
  dec->sf_info = info;
  dec->caps = c;
  *caps = c;
  return TRUE;
}

gssize fx_decoder_read(FxDecoder *dec, gpointer dest, gsize frames, GError **error)
{
  sf_count_t n;

  g_return_val_if_fail(dec->sf != NULL, -1);
  n = g_str_equal(dec->format, "F64LE") ? sf_readf_double(dec->sf, dest, (sf_count_t) frames)
                                        : sf_readf_float(dec->sf, dest, (sf_count_t) frames);
  if (n < (sf_count_t) frames && sf_error(dec->sf) != SF_ERR_NO_ERROR) {
    g_set_error(error, GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE, "cannot decode: %s",
                sf_strerror(dec->sf));
    return -1;
  }
  return (gssize) n;
}

gboolean fx_decoder_uses_sndfile(FxDecoder *dec)
{
  return dec->sf != NULL;
}

gboolean fx_decoder_integer_source(FxDecoder *dec)
{
  if (dec->sf == NULL)
    return FALSE;
  switch (dec->sf_info.format & SF_FORMAT_SUBMASK) {
  case SF_FORMAT_PCM_S8:
  case SF_FORMAT_PCM_16:
  case SF_FORMAT_PCM_24:
  case SF_FORMAT_PCM_32:
  case SF_FORMAT_PCM_U8:
  case SF_FORMAT_ULAW:
  case SF_FORMAT_ALAW:
    return TRUE;
  default:
    return FALSE;
  }
}

gboolean fx_decoder_pcm16(FxDecoder *dec)
{
  if (dec->sf == NULL || (dec->sf_info.format & SF_FORMAT_SUBMASK) != SF_FORMAT_PCM_16)
    return FALSE;
  switch (dec->sf_info.format & SF_FORMAT_TYPEMASK) {
  case SF_FORMAT_WAV:
  case SF_FORMAT_WAVEX:
  case SF_FORMAT_W64:
  case SF_FORMAT_RF64:
  case SF_FORMAT_AIFF:
  case SF_FORMAT_AU:
  case SF_FORMAT_CAF:
    return TRUE;
  default:
    return FALSE;
  }
}

/* Frames compared at each end of the data by fx_decoder_locate_pcm16(). */
#define RAW_CHECK_FRAMES 64

gboolean fx_decoder_locate_pcm16(FxDecoder *dec)
{
  const gsize bpf = (gsize) dec->sf_info.channels * 2;
  gsize frames, len, n;
  goffset off;
  struct stat st;
  guint8 *check, *got;
  gboolean same;

  if (dec->raw_off >= 0)
    return TRUE;
  if (!fx_decoder_pcm16(dec) || dec->fd < 0 || fx_decoder_frames(dec) <= 0 ||
      sf_command(dec->sf, SFC_RAW_DATA_NEEDS_ENDSWAP, NULL, 0))
    return FALSE;
  frames = (gsize) dec->sf_info.frames;
  len = frames * bpf;
  /* where libsndfile reads the first frame: its seek to frame 0 sets the descriptor's offset */
  if (sf_seek(dec->sf, 0, SEEK_SET) != 0 || (off = lseek(dec->fd, 0, SEEK_CUR)) < 0 ||
      fstat(dec->fd, &st) != 0 || (guint64) off + len > (guint64) st.st_size)
    return FALSE;
  /* a check that the bytes there are what libsndfile reads: the first and the last frames */
  n = MIN(frames, RAW_CHECK_FRAMES);
  check = g_malloc(2 * n * bpf);
  got = check + n * bpf;
  same = sf_read_raw(dec->sf, check, (sf_count_t) (n * bpf)) == (sf_count_t) (n * bpf) &&
         pread(dec->fd, got, n * bpf, off) == (gssize) (n * bpf) &&
         memcmp(check, got, n * bpf) == 0 &&
         sf_seek(dec->sf, (sf_count_t) (frames - n), SEEK_SET) >= 0 &&
         sf_read_raw(dec->sf, check, (sf_count_t) (n * bpf)) == (sf_count_t) (n * bpf) &&
         pread(dec->fd, got, n * bpf, off + (goffset) (len - n * bpf)) == (gssize) (n * bpf) &&
         memcmp(check, got, n * bpf) == 0;
  g_free(check);
  sf_seek(dec->sf, 0, SEEK_SET);
  if (same)
    dec->raw_off = off;
  return same;
}

gssize fx_decoder_pread_pcm16(FxDecoder *dec, gint16 *dest, gsize first, gsize frames,
                              GError **error)
{
  const gsize bpf = (gsize) dec->sf_info.channels * 2;
  gsize done = 0;

  g_return_val_if_fail(dec->raw_off >= 0, -1);
  while (done < frames * bpf) {
    gssize n = pread(dec->fd, (guint8 *) dest + done, frames * bpf - done,
                     dec->raw_off + (goffset) (first * bpf + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      g_set_error(error, GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE, "cannot decode: %s",
                  n < 0 ? g_strerror(errno) : "the file is shorter than its header says");
      return -1;
    }
    done += (gsize) n;
  }
  return (gssize) frames;
}

gssize fx_decoder_read_pcm16(FxDecoder *dec, gint16 *dest, gsize frames, GError **error)
{
  const gsize bpf = (gsize) dec->sf_info.channels * 2;
  sf_count_t n;

  g_return_val_if_fail(fx_decoder_pcm16(dec), -1);
  n = sf_read_raw(dec->sf, dest, (sf_count_t) (frames * bpf));
  if (n < 0 || ((gsize) n < frames * bpf && sf_error(dec->sf) != SF_ERR_NO_ERROR)) {
    g_set_error(error, GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE, "cannot decode: %s",
                sf_strerror(dec->sf));
    return -1;
  }
  n /= (sf_count_t) bpf;
  if (sf_command(dec->sf, SFC_RAW_DATA_NEEDS_ENDSWAP, NULL, 0))
    for (gsize i = 0; i < (gsize) n * dec->sf_info.channels; i++)
      dest[i] = (gint16) GUINT16_SWAP_LE_BE((guint16) dest[i]);
  return (gssize) n;
}

gint64 fx_decoder_frames(FxDecoder *dec)
{
  if (dec->sf == NULL || dec->sf_info.frames < 0 || dec->sf_info.frames == SF_COUNT_MAX)
    return -1;
  return (gint64) dec->sf_info.frames;
}

gboolean fx_decoder_start(FxDecoder *dec, const char *path, GstCaps **caps, GError **error)
{
  GError *err = NULL;
  GstSample *sample;
  gboolean wav = g_str_has_suffix(path, ".wav") || g_str_has_suffix(path, ".WAV");
  DecodePipe *dp;

  fx_decoder_stop(dec);
  if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
    g_set_error_literal(error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "no such file");
    return FALSE;
  }
  if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
    g_set_error_literal(error, G_FILE_ERROR, G_FILE_ERROR_ISDIR, "is a directory");
    return FALSE;
  }
  if (sndfile_start(dec, path, caps, error))
    return TRUE;
  if (error != NULL && *error != NULL)
    return FALSE;
  if (dec->pipes[wav] == NULL) {
    dec->pipes[wav] = decode_pipe_new(dec, wav, error);
    if (dec->pipes[wav] == NULL)
      return FALSE;
  }
  dp = dec->cur = dec->pipes[wav];
  if (wav) {
    g_object_set(dp->source, "location", path, NULL);
  } else {
    gchar *uri = gst_filename_to_uri(path, &err);
    if (uri == NULL) {
      g_propagate_error(error, err);
      return FALSE;
    }
    g_object_set(dp->source, "uri", uri, NULL);
    g_free(uri);
  }
  if (gst_element_set_state(dp->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    GstMessage *msg = gst_bus_pop_filtered(dp->bus, GST_MESSAGE_ERROR);
    if (msg != NULL) {
      set_error_from_message(error, msg, "cannot decode: ");
      gst_message_unref(msg);
    } else {
      g_set_error_literal(error, GST_CORE_ERROR, GST_CORE_ERROR_STATE_CHANGE,
                          "cannot decode: the decoder failed to start");
    }
    fx_decoder_stop(dec);
    return FALSE;
  }
  sample = decoder_pull_sample(dec, &err);
  if (sample == NULL) {
    if (err == NULL)
      g_set_error_literal(error, GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE,
                          "cannot decode: no audio in this file");
    else
      g_propagate_error(error, err);
    fx_decoder_stop(dec);
    return FALSE;
  }
  dec->first = gst_buffer_ref(gst_sample_get_buffer(sample));
  dec->caps = gst_caps_ref(gst_sample_get_caps(sample));
  gst_sample_unref(sample);
  *caps = dec->caps;
  return TRUE;
}

GstBuffer *fx_decoder_pull(FxDecoder *dec, GError **error)
{
  GstSample *sample;
  GstBuffer *buf;

  if (dec->first != NULL)
    return g_steal_pointer(&dec->first);
  if (dec->sf != NULL) {
    gsize bpf = (gsize) dec->sf_info.channels * (g_str_equal(dec->format, "F64LE") ? 8 : 4);
    GstMapInfo map;
    gssize n;

    buf = gst_buffer_new_allocate(NULL, SF_PULL_FRAMES * bpf, NULL);
    gst_buffer_map(buf, &map, GST_MAP_WRITE);
    n = fx_decoder_read(dec, map.data, SF_PULL_FRAMES, error);
    gst_buffer_unmap(buf, &map);
    if (n <= 0) {
      gst_buffer_unref(buf);
      return NULL;
    }
    gst_buffer_set_size(buf, (gssize) ((gsize) n * bpf));
    return buf;
  }
  sample = decoder_pull_sample(dec, error);
  if (sample == NULL)
    return NULL;
  buf = gst_buffer_ref(gst_sample_get_buffer(sample));
  gst_sample_unref(sample);
  return buf;
}

gint64 fx_decoder_duration(FxDecoder *dec)
{
  gint64 d = -1;

  if (dec->sf != NULL)
    return fx_decoder_frames(dec) > 0
               ? (gint64) gst_util_uint64_scale_int((guint64) fx_decoder_frames(dec), GST_SECOND,
                                                    dec->sf_info.samplerate)
               : -1;
  if (dec->cur == NULL || !gst_element_query_duration(dec->cur->pipeline, GST_FORMAT_TIME, &d))
    return -1;
  return d;
}

/* ---------------------------------------------------------------------------------------- */
/* Feeder                                                                                    */

struct _FxFeeder {
  GstElement *pipeline;
  GstPad *src; /* ours: not in any element, linked to the pipeline's unlinked sink pad */
  GstBus *bus;
  guint streams; /* for unique stream ids */
};

FxFeeder *fx_feeder_new(const char *description, GError **error)
{
  GError *err = NULL;
  GstElement *pipeline =
      gst_parse_launch_full(description, NULL, GST_PARSE_FLAG_FATAL_ERRORS, &err);
  GstPad *sinkpad;
  FxFeeder *f;

  if (pipeline == NULL) {
    g_propagate_error(error, err);
    return NULL;
  }
  sinkpad =
      GST_IS_BIN(pipeline) ? gst_bin_find_unlinked_pad(GST_BIN(pipeline), GST_PAD_SINK) : NULL;
  if (sinkpad == NULL) {
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED, "no unlinked sink pad in \"%s\"",
                description);
    gst_object_unref(pipeline);
    return NULL;
  }
  /* An appsink that receives EOS waits (by default) until the application has pulled every
   * sample it holds. Here the application is the thread that pushes the EOS (fx_feeder_finish()),
   * and stages with a tail or a latency (fxdelay, fxreverb, fxnormalize, a look-ahead, a
   * low-latency fxfir) push their last buffers while handling that EOS: the appsink would wait for
   * a pull that cannot come. It must take the EOS at once; what it holds is pulled afterwards. */
  GstIterator *it = gst_bin_iterate_sinks(GST_BIN(pipeline));
  GValue item = G_VALUE_INIT;
  while (gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object(&item);
    if (GST_IS_APP_SINK(e))
      gst_app_sink_set_wait_on_eos(GST_APP_SINK(e), FALSE);
    g_value_reset(&item);
  }
  g_value_unset(&item);
  gst_iterator_free(it);
  f = g_new0(FxFeeder, 1);
  f->pipeline = pipeline;
  f->src = gst_pad_new("src", GST_PAD_SRC);
  gst_pad_link(f->src, sinkpad);
  gst_object_unref(sinkpad);
  f->bus = gst_element_get_bus(pipeline);
  return f;
}

GstElement *fx_feeder_get(FxFeeder *f, const char *name)
{
  GstElement *e = gst_bin_get_by_name(GST_BIN(f->pipeline), name);

  if (e != NULL)
    gst_object_unref(e); /* the pipeline keeps it */
  return e;
}

GstElement *fx_feeder_pipeline(FxFeeder *f)
{
  return f->pipeline;
}

void fx_feeder_stop(FxFeeder *f)
{
  gst_pad_set_active(f->src, FALSE);
  gst_element_set_state(f->pipeline, GST_STATE_NULL);
}

void fx_feeder_free(FxFeeder *f)
{
  if (f == NULL)
    return;
  fx_feeder_stop(f);
  gst_object_unref(f->bus);
  gst_object_unref(f->src);
  gst_object_unref(f->pipeline);
  g_free(f);
}

gboolean fx_feeder_failed(FxFeeder *f, GError **error)
{
  GstMessage *msg = gst_bus_pop_filtered(f->bus, GST_MESSAGE_ERROR);

  if (msg == NULL)
    return FALSE;
  set_error_from_message(error, msg, "");
  gst_message_unref(msg);
  return TRUE;
}

/* After a refused push or event: the bus error, or a generic message. */
static void feeder_set_error(FxFeeder *f, GError **error, const char *what)
{
  if (!fx_feeder_failed(f, error))
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED, "the pipeline refused %s", what);
}

gboolean fx_feeder_start(FxFeeder *f, GstCaps *caps, GError **error)
{
  GstSegment segment;
  gchar *id;
  gboolean ok;

  fx_feeder_stop(f);
  if (gst_element_set_state(f->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    feeder_set_error(f, error, "to start");
    return FALSE;
  }
  gst_pad_set_active(f->src, TRUE);
  id = g_strdup_printf("gst-fx/%u", f->streams++);
  gst_segment_init(&segment, GST_FORMAT_TIME);
  ok = gst_pad_push_event(f->src, gst_event_new_stream_start(id)) &&
       gst_pad_push_event(f->src, gst_event_new_caps(caps)) &&
       gst_pad_push_event(f->src, gst_event_new_segment(&segment));
  g_free(id);
  if (!ok)
    feeder_set_error(f, error, "the stream format");
  return ok;
}

gboolean fx_feeder_push(FxFeeder *f, GstBuffer *buffer, GError **error)
{
  GstFlowReturn ret = gst_pad_push(f->src, buffer);

  if (ret != GST_FLOW_OK) {
    if (!fx_feeder_failed(f, error))
      g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED, "the pipeline stopped (%s)",
                  gst_flow_get_name(ret));
    return FALSE;
  }
  return TRUE;
}

gboolean fx_feeder_finish(FxFeeder *f, GPtrArray **warnings, GError **error)
{
  gboolean ok = FALSE;

  gst_pad_push_event(f->src, gst_event_new_eos());
  for (;;) {
    GstMessage *msg = gst_bus_timed_pop_filtered(
        f->bus, GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    GstMessageType type = GST_MESSAGE_TYPE(msg);

    if (type == GST_MESSAGE_EOS) {
      ok = TRUE;
    } else if (type == GST_MESSAGE_ERROR) {
      set_error_from_message(error, msg, "");
    } else if (warnings != NULL) {
      GError *err = NULL;
      gst_message_parse_warning(msg, &err, NULL);
      if (*warnings == NULL)
        *warnings = g_ptr_array_new_with_free_func(g_free);
      if (!g_ptr_array_find_with_equal_func(*warnings, err->message, g_str_equal, NULL))
        g_ptr_array_add(*warnings, g_strdup(err->message));
      g_error_free(err);
    }
    gst_message_unref(msg);
    if (type != GST_MESSAGE_WARNING)
      break;
  }
  return ok;
}

gboolean fx_media_drain(GstAppSink *sink, FxWriter *w, GError **error)
{
  GstSample *sample;

  while ((sample = gst_app_sink_try_pull_sample(sink, 0)) != NULL) {
    GstBuffer *buf = gst_sample_get_buffer(sample);
    GstAudioInfo info;
    GstMapInfo map;
    gboolean ok;

    if (!gst_audio_info_from_caps(&info, gst_sample_get_caps(sample))) {
      g_set_error_literal(error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
                          "the chain produced unexpected caps");
      gst_sample_unref(sample);
      return FALSE;
    }
    gst_buffer_map(buf, &map, GST_MAP_READ);
    ok = fx_writer_write(w, map.data, map.size / GST_AUDIO_INFO_BPF(&info),
                         GST_AUDIO_INFO_CHANNELS(&info), GST_AUDIO_INFO_RATE(&info), error);
    gst_buffer_unmap(buf, &map);
    gst_sample_unref(sample);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

/* ---------------------------------------------------------------------------------------- */
/* Progress                                                                                  */

void fx_progress_init(FxProgress *p)
{
  p->enabled = isatty(STDOUT_FILENO);
  p->start = g_get_monotonic_time();
  p->last = 0;
  p->drawn = FALSE;
}

static void format_time(char *out, size_t size, double seconds)
{
  long s = seconds < 0 ? 0 : (long) (seconds + 0.5);

  if (s >= 3600)
    g_snprintf(out, size, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else
    g_snprintf(out, size, "%02ld:%02ld", s / 60, s % 60);
}

void fx_progress_update(FxProgress *p, double fraction, const char *label)
{
  gint64 now = g_get_monotonic_time();
  char elapsed[32], left[32], bar[31];
  double secs;
  int fill;

  if (!p->enabled || (p->drawn && now - p->last < 100 * G_TIME_SPAN_MILLISECOND && fraction < 1))
    return;
  p->last = now;
  p->drawn = TRUE;
  fraction = CLAMP(fraction, 0.0, 1.0);
  secs = (double) (now - p->start) / G_USEC_PER_SEC;
  fill = (int) (fraction * 30.0);
  for (int i = 0; i < 30; i++)
    bar[i] = i < fill ? '#' : '-';
  bar[30] = '\0';
  format_time(elapsed, sizeof(elapsed), secs);
  if (fraction > 0.001)
    format_time(left, sizeof(left), secs * (1.0 - fraction) / fraction);
  else
    g_strlcpy(left, "--:--", sizeof(left));
  printf("\r[%s] %3d%%  %s elapsed  %s left  %.30s\033[K", bar, (int) (fraction * 100.0), elapsed,
         left, label != NULL ? label : "");
  fflush(stdout);
}

void fx_progress_done(FxProgress *p)
{
  if (p->enabled && p->drawn) {
    printf("\n");
    fflush(stdout);
  }
  p->drawn = FALSE;
}
