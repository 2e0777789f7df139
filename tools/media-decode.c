/* gst-fx — decoding: FxDecoder (see media.h) and its GStreamer pipelines, for the files
 * libsndfile does not read (media-sndfile.c) and for --rate.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "media-private.h"

#include <string.h>
#include <unistd.h>

/* Frames per buffer of fx_decoder_pull() with libsndfile. */
#define SF_PULL_FRAMES (4 * FX_BLOCK_FRAMES)

gboolean fx_media_check_stream(gint rate, gint channels, gint target_rate, gint64 frames,
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

/* The stall limit of the GStreamer path (FX_DECODE_STALL_DEFAULT_S; GST_FX_DECODE_STALL in
 * seconds overrides it). Decoding a local regular file never waits this long for data, but
 * GStreamer can leave a damaged file stuck with no error and no data: decodebin drops the errors
 * an element posts while it is being set to PAUSED, and a demuxer whose streaming thread reads
 * garbage and fails inside that window (AVI, FLV, ... under load: a random-bytes fuzz found
 * several) then leaves the pipeline prerolling forever. Counted in polls, so a process stopped
 * (SIGSTOP, Ctrl-Z) and resumed does not count the time it was stopped. */
#define FX_DECODE_STALL_DEFAULT_S 20
#define FX_DECODE_POLL_MS 50
/* Polls in a row with no streaming thread started before the decode counts as stopped (1 s:
 * between two tasks of a working pipeline none runs for microseconds at most). */
#define FX_DECODE_IDLE_POLLS 20

static guint decode_stall_polls(void)
{
  const char *env = g_getenv("GST_FX_DECODE_STALL");
  guint64 s = FX_DECODE_STALL_DEFAULT_S;

  if (env != NULL && *env != '\0' && !g_ascii_string_to_unsigned(env, 10, 1, 3600, &s, NULL))
    s = FX_DECODE_STALL_DEFAULT_S;
  return (guint) (s * 1000 / FX_DECODE_POLL_MS);
}

/* Test hooks (tests only), so that both ways a decode can get stuck are tested
 * deterministically: GST_FX_TEST_DECODE_BLOCK=NAME blocks the decoded data of the file whose base
 * name is NAME before audioconvert (a streaming thread that never comes back: the stall limit);
 * GST_FX_TEST_DECODE_DROP=NAME drops its data and its EOS there (every streaming thread ends
 * with nothing reaching the appsink: the idle check). */
static GstPadProbeReturn test_block_probe(GstPad *pad, GstPadProbeInfo *info, gpointer user_data)
{
  (void) pad;
  (void) info;
  (void) user_data;
  return GST_PAD_PROBE_OK; /* keeps blocking until the pad flushes (fx_decoder_stop) */
}

static GstPadProbeReturn test_drop_probe(GstPad *pad, GstPadProbeInfo *info, gpointer user_data)
{
  (void) pad;
  (void) user_data;
  if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_BUFFER)
    return GST_PAD_PROBE_DROP;
  return GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info)) == GST_EVENT_EOS ? GST_PAD_PROBE_DROP
                                                                         : GST_PAD_PROBE_OK;
}

static gboolean test_hook_names(const char *var, const char *path)
{
  const char *name = g_getenv(var);
  gchar *base;
  gboolean match;

  if (name == NULL || *name == '\0')
    return FALSE;
  base = g_path_get_basename(path);
  match = strcmp(base, name) == 0;
  g_free(base);
  return match;
}

static void test_hooks_install(FxDecoder *dec, const char *path)
{
  GstPad *pad = gst_element_get_static_pad(dec->cur->convert, "sink");

  if (test_hook_names("GST_FX_TEST_DECODE_BLOCK", path))
    dec->test_probe = gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BLOCK | GST_PAD_PROBE_TYPE_BUFFER,
                                        test_block_probe, NULL, NULL);
  else if (test_hook_names("GST_FX_TEST_DECODE_DROP", path))
    dec->test_probe =
        gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
                          test_drop_probe, NULL, NULL);
  gst_object_unref(pad);
}

/* Whether a streaming thread of the pipeline can still produce: a pad task in the started state
 * (running, or waiting inside a pad block or a full queue). With none, and no sample, error or
 * EOS, nothing will happen any more: the demuxer whose error decodebin dropped has paused its
 * task, and so has everything upstream. */
static gint pad_task_started_cmp(gconstpointer value, gconstpointer unused)
{
  GstPad *pad = g_value_get_object(value);
  GstTask *task;
  gboolean started = FALSE;

  (void) unused;
  GST_OBJECT_LOCK(pad);
  task = GST_PAD_TASK(pad) ? gst_object_ref(GST_PAD_TASK(pad)) : NULL;
  GST_OBJECT_UNLOCK(pad);
  if (task != NULL) {
    started = gst_task_get_state(task) == GST_TASK_STARTED;
    gst_object_unref(task);
  }
  return started ? 0 : 1;
}

/* Whether `it` holds an item that `cmp` matches (returns 0 for); frees the iterator. */
static gboolean iterator_finds(GstIterator *it, GCompareFunc cmp)
{
  GValue found = G_VALUE_INIT;
  gboolean any = gst_iterator_find_custom(it, cmp, &found, NULL);

  if (any)
    g_value_unset(&found);
  gst_iterator_free(it);
  return any;
}

static gint element_task_started_cmp(gconstpointer value, gconstpointer unused)
{
  (void) unused;
  return iterator_finds(gst_element_iterate_pads(GST_ELEMENT(g_value_get_object(value))),
                        pad_task_started_cmp)
             ? 0
             : 1;
}

static gboolean pipeline_tasks_started(GstElement *pipeline)
{
  return iterator_finds(gst_bin_iterate_recurse(GST_BIN(pipeline)), element_task_started_cmp);
}

/* Whether a factory of `list` takes `caps` on its sink pads. */
static gboolean factories_take(GList *list, GstCaps *caps)
{
  GList *l = gst_element_factory_list_filter(list, caps, GST_PAD_SINK, FALSE);

  gst_plugin_feature_list_free(l);
  return l != NULL;
}

/* Whether uridecodebin goes on plugging elements after a stream of these caps: audio and
 * containers (whatever a demuxer takes: AVI, FLV, QuickTime, Matroska, Ogg, MPEG-TS announce
 * video/ or application/ types) yes; video, images and subtitles that a decoder or parser would
 * take no: their pads are exposed undecoded and left unlinked. That skips decoding what is thrown
 * away, and the image and subtitle parsers, which can spin or end their stream without an error
 * on damaged data (a random-bytes fuzz found jpegparse looping on bytes that type-find as JPEG).
 * A type nothing here takes (a container whose demuxer is not installed, such as ASF for WMA
 * without gstreamer1.0-plugins-ugly) goes on, so that decodebin reports the missing plugin. */
static gboolean on_autoplug_continue(GstElement *bin, GstPad *pad, GstCaps *caps,
                                     gpointer user_data)
{
  static const char *const stop[] = {"video/",
                                     "image/",
                                     "text/",
                                     "subpicture/",
                                     "subtitle/",
                                     "closedcaption/",
                                     "application/x-subtitle",
                                     "application/x-ssa",
                                     "application/x-ass",
                                     "application/x-usf"};
  DecodePipe *dp = user_data;
  const gchar *name;

  (void) bin;
  (void) pad;
  if (caps == NULL || gst_caps_is_any(caps) || gst_caps_is_empty(caps))
    return TRUE;
  name = gst_structure_get_name(gst_caps_get_structure(caps, 0));
  for (size_t i = 0; i < G_N_ELEMENTS(stop); i++)
    if (g_str_has_prefix(name, stop[i]))
      return factories_take(dp->demuxers, caps) || !factories_take(dp->decoders, caps);
  return TRUE;
}

/* uridecodebin has exposed every stream of the file: after this, no audio pad means none. */
static void on_no_more_pads(GstElement *element, gpointer user_data)
{
  DecodePipe *dp = user_data;

  (void) element;
  g_atomic_int_set(&dp->pads_done, 1);
}

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
  if (audio && !gst_pad_is_linked(sinkpad) && GST_PAD_LINK_SUCCESSFUL(gst_pad_link(pad, sinkpad)))
    g_atomic_int_set(&dp->audio_linked, 1);
  if (!audio)
    (void) g_atomic_pointer_compare_and_exchange(
        &dp->other_type, NULL,
        g_intern_string(gst_structure_get_name(gst_caps_get_structure(caps, 0))));
  if (caps != NULL)
    gst_caps_unref(caps);
  gst_object_unref(sinkpad);
}

gint fx_source_bits_from_gst(GstAudioFormat format)
{
  const GstAudioFormatInfo *finfo = gst_audio_format_get_info(format);

  if (finfo == NULL || GST_AUDIO_FORMAT_INFO_IS_FLOAT(finfo))
    return finfo != NULL && GST_AUDIO_FORMAT_INFO_DEPTH(finfo) == 64 ? FX_BITS_F64 : FX_BITS_F32;
  return CLAMP(GST_AUDIO_FORMAT_INFO_DEPTH(finfo), 8, 32);
}

/* The common tags of a GStreamer stream, as libsndfile's strings (where not set yet). */
static void source_add_tags(FxSource *src, const GstTagList *tags)
{
  static const struct {
    int id;
    const char *tag;
  } map[] = {
      {SF_STR_TITLE, GST_TAG_TITLE},      {SF_STR_ARTIST, GST_TAG_ARTIST},
      {SF_STR_ALBUM, GST_TAG_ALBUM},      {SF_STR_COMMENT, GST_TAG_COMMENT},
      {SF_STR_GENRE, GST_TAG_GENRE},      {SF_STR_COPYRIGHT, GST_TAG_COPYRIGHT},
      {SF_STR_LICENSE, GST_TAG_LICENSE},  {SF_STR_SOFTWARE, GST_TAG_APPLICATION_NAME},
      {SF_STR_SOFTWARE, GST_TAG_ENCODER}, {SF_STR_DATE, GST_TAG_DATE_TIME},
      {SF_STR_DATE, GST_TAG_DATE},        {SF_STR_TRACKNUMBER, GST_TAG_TRACK_NUMBER},
  };

  for (gsize m = 0; m < G_N_ELEMENTS(map); m++) {
    int i = 0;
    while (i < FX_SOURCE_STRINGS && fx_source_string_ids[i] != map[m].id)
      i++;
    if (i == FX_SOURCE_STRINGS || src->strings[i] != NULL)
      continue;
    const GValue *v = gst_tag_list_get_value_index(tags, map[m].tag, 0);
    gchar *text = NULL;
    if (v == NULL)
      continue;
    if (G_VALUE_HOLDS_STRING(v))
      text = g_value_dup_string(v);
    else if (G_VALUE_HOLDS_UINT(v))
      text = g_strdup_printf("%u", g_value_get_uint(v));
    else if (GST_VALUE_HOLDS_DATE_TIME(v) && g_value_get_boxed(v) != NULL)
      text = gst_date_time_to_iso8601_string(g_value_get_boxed(v));
    else if (G_VALUE_HOLDS(v, G_TYPE_DATE) && g_value_get_boxed(v) != NULL) {
      const GDate *d = g_value_get_boxed(v);
      text = g_strdup_printf("%04u-%02u-%02u", g_date_get_year(d), g_date_get_month(d),
                             g_date_get_day(d));
    }
    if (text != NULL && *text != '\0')
      src->strings[i] = text;
    else
      g_free(text);
  }
}

void fx_source_free(FxSource *src)
{
  if (src == NULL)
    return;
  for (int i = 0; i < FX_SOURCE_STRINGS; i++)
    g_free(src->strings[i]);
  g_free(src);
}

/* Empties `src` (an unknown input: float, no tags). */
static void source_clear(FxSource *src)
{
  for (int i = 0; i < FX_SOURCE_STRINGS; i++)
    g_free(src->strings[i]);
  memset(src, 0, sizeof *src);
  src->bits = FX_BITS_F32;
}

FxSource *fx_decoder_source(FxDecoder *dec)
{
  FxSource *copy = g_new(FxSource, 1);

  g_mutex_lock(&dec->lock);
  *copy = dec->source;
  for (int i = 0; i < FX_SOURCE_STRINGS; i++)
    copy->strings[i] = g_strdup(dec->source.strings[i]);
  g_mutex_unlock(&dec->lock);
  return copy;
}

/* Decoders of plain (non-extensible) multichannel wav files give caps without a channel-mask,
 * which audioconvert refuses for more than two channels: such streams get GStreamer's fallback
 * layout for their channel count (gst_audio_channel_get_fallback_mask(), as the FLAC and Vorbis
 * encoders need one), or channel-mask 0 (unpositioned) when there is none. */
static GstPadProbeReturn add_channel_mask(GstPad *pad, GstPadProbeInfo *info, gpointer user_data)
{
  FxDecoder *dec = user_data;
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
  GstCaps *caps;
  GstStructure *st;
  gint channels = 0;

  /* what the output keeps (fx_decoder_source()): the tags, and the decoder's own sample format
   * (before audioconvert makes it the processing format) */
  if (GST_EVENT_TYPE(event) == GST_EVENT_TAG) {
    GstTagList *tags = NULL;
    gst_event_parse_tag(event, &tags);
    g_mutex_lock(&dec->lock);
    source_add_tags(&dec->source, tags);
    g_mutex_unlock(&dec->lock);
    return GST_PAD_PROBE_OK;
  }
  if (GST_EVENT_TYPE(event) != GST_EVENT_CAPS)
    return GST_PAD_PROBE_OK;
  gst_event_parse_caps(event, &caps);
  if (gst_caps_get_size(caps) != 1)
    return GST_PAD_PROBE_OK;
  GstAudioInfo ainfo;
  if (gst_audio_info_from_caps(&ainfo, caps)) {
    g_mutex_lock(&dec->lock);
    dec->source.bits = fx_source_bits_from_gst(GST_AUDIO_INFO_FORMAT(&ainfo));
    g_mutex_unlock(&dec->lock);
  }
  st = gst_caps_get_structure(caps, 0);
  /* a stream out of bounds never reaches audioconvert and audioresample (a rate of 2^31 Hz
   * resampled would need hundreds of GB): an error instead, which the decoder reports */
  gint rate = 0;
  GError *err = NULL;
  if (gst_structure_get_int(st, "rate", &rate) &&
      gst_structure_get_int(st, "channels", &channels) &&
      !fx_media_check_stream(rate, channels, dec->rate, -1, &err)) {
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
  gst_plugin_feature_list_free(dp->demuxers);
  gst_plugin_feature_list_free(dp->decoders);
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
    g_signal_connect(dp->source, "no-more-pads", G_CALLBACK(on_no_more_pads), dp);
    dp->demuxers =
        gst_element_factory_list_get_elements(GST_ELEMENT_FACTORY_TYPE_DEMUXER, GST_RANK_MARGINAL);
    dp->decoders = gst_element_factory_list_get_elements(
        GST_ELEMENT_FACTORY_TYPE_DECODER | GST_ELEMENT_FACTORY_TYPE_PARSER, GST_RANK_MARGINAL);
    g_signal_connect(dp->source, "autoplug-continue", G_CALLBACK(on_autoplug_continue), dp);
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
  g_mutex_init(&dec->lock);
  source_clear(&dec->source);
  return dec;
}

void fx_decoder_stop(FxDecoder *dec)
{
  if (dec->cur != NULL)
    gst_element_set_state(dec->cur->pipeline, GST_STATE_NULL);
  if (dec->test_probe != 0) {
    GstPad *pad = gst_element_get_static_pad(dec->cur->convert, "sink");
    gst_pad_remove_probe(pad, dec->test_probe);
    gst_object_unref(pad);
    dec->test_probe = 0;
  }
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
  g_mutex_lock(&dec->lock);
  source_clear(&dec->source);
  g_mutex_unlock(&dec->lock);
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
  g_mutex_clear(&dec->lock);
  g_free(dec->format);
  g_free(dec);
}

/* Pulls the next sample, watching the bus for errors. */
static GstSample *decoder_pull_sample(FxDecoder *dec, GError **error)
{
  DecodePipe *dp = dec->cur;

  for (;;) {
    GstSample *sample =
        gst_app_sink_try_pull_sample(GST_APP_SINK(dp->sink), FX_DECODE_POLL_MS * GST_MSECOND);
    GstMessage *msg;

    if (sample != NULL) {
      dec->stall_polls = dec->idle_polls = 0;
      return sample;
    }
    /* pad-added of every stream comes before no-more-pads, so audio_linked is final here;
     * checked before the bus, where the unlinked streams post "Internal data stream error" */
    if (g_atomic_int_get(&dp->pads_done) && !g_atomic_int_get(&dp->audio_linked)) {
      const gchar *other = g_atomic_pointer_get(&dp->other_type);

      if (other != NULL)
        g_set_error(error, GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE,
                    "cannot decode: no audio stream in this file (it holds %s)", other);
      else
        g_set_error_literal(error, GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE,
                            "cannot decode: no audio stream in this file");
      return NULL;
    }
    msg = gst_bus_pop_filtered(dp->bus, GST_MESSAGE_ERROR);
    if (msg != NULL) {
      fx_media_error_from_message(error, msg, "cannot decode: ");
      gst_message_unref(msg);
      return NULL;
    }
    if (gst_app_sink_is_eos(GST_APP_SINK(dp->sink)))
      return NULL;
    if (pipeline_tasks_started(dp->pipeline))
      dec->idle_polls = 0;
    else if (++dec->idle_polls >= FX_DECODE_IDLE_POLLS) {
      g_set_error_literal(error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
                          "cannot decode: GStreamer's decoder stopped without data, an error or "
                          "the end of the stream (a damaged file?)");
      return NULL;
    }
    if (dec->stall_limit > 0 && ++dec->stall_polls >= dec->stall_limit) {
      g_set_error(error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
                  "cannot decode: GStreamer gave neither data nor an error for %u s (a damaged "
                  "file?)",
                  dec->stall_limit * FX_DECODE_POLL_MS / 1000);
      return NULL;
    }
  }
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
  if (fx_decoder_sndfile_start(dec, path, caps, error))
    return TRUE;
  if (error != NULL && *error != NULL)
    return FALSE;
  if (dec->pipes[wav] == NULL) {
    dec->pipes[wav] = decode_pipe_new(dec, wav, error);
    if (dec->pipes[wav] == NULL)
      return FALSE;
  }
  dp = dec->cur = dec->pipes[wav];
  dec->stall_polls = 0;
  dec->stall_limit = g_file_test(path, G_FILE_TEST_IS_REGULAR) ? decode_stall_polls() : 0;
  dec->idle_polls = 0;
  test_hooks_install(dec, path);
  g_atomic_int_set(&dp->audio_linked, 0);
  g_atomic_int_set(&dp->pads_done, 0);
  g_atomic_pointer_set(&dp->other_type, NULL);
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
      fx_media_error_from_message(error, msg, "cannot decode: ");
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
