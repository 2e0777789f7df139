/* gst-fx — what the files of the media layer (media*.c) share; media.h is the interface the
 * commands use.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_MEDIA_PRIVATE_H
#define GST_FX_MEDIA_PRIVATE_H

#include "media.h"

#include <sndfile.h>

G_BEGIN_DECLS

/* One decoding pipeline: SOURCE ! audioconvert ! audioresample ! capsfilter ! appsink, where
 * SOURCE is `uridecodebin` (anything GStreamer decodes) or, for names ending in .wav,
 * `filesrc ! wavparse`, which skips type finding and autoplugging (the same wavparse that
 * uridecodebin would plug, so the same samples) and is much cheaper to restart per file. */
typedef struct {
  GstElement *pipeline, *source, *convert, *sink;
  GstBus *bus;
  /* uridecodebin's streams of the current file (atomic: set on its streaming threads, read by
   * the puller): an audio pad linked, all pads exposed, and the first other stream's media type
   * (an interned string). A file with no audio stream (a subtitle, an image) ends no other way:
   * its streams end on unlinked pads and the appsink never sees EOS. */
  gint audio_linked, pads_done;
  const gchar *other_type;
  /* the registry's demuxers, and its decoders and parsers (on_autoplug_continue) */
  GList *demuxers, *decoders;
} DecodePipe;

/* libsndfile 1.1's subtypes and major format, by value: the build requires only 1.0.28 (where a
 * file of these formats is then neither read nor written by libsndfile). */
#define FX_SF_FORMAT_OPUS 0x0064
#define FX_SF_FORMAT_MPEG_LAYER_I 0x0080
#define FX_SF_FORMAT_MPEG_LAYER_II 0x0081
#define FX_SF_FORMAT_MPEG_LAYER_III 0x0082
#define FX_SF_FORMAT_MPEG 0x230000

/* The string tags libsndfile reads and writes (sf_get_string()/sf_set_string()). */
#define FX_SOURCE_STRINGS 10
extern const int fx_source_string_ids[FX_SOURCE_STRINGS];

/* A broadcast extension (bext) chunk with room for a long coding history. */
typedef SF_BROADCAST_INFO_VAR(16384) FxBroadcastInfo;

struct _FxSource {
  /* the input's samples: integer bits (8 to 32), FX_BITS_F32 or FX_BITS_F64 (lossy codecs, whose
   * decoders give floats, and anything unknown: FX_BITS_F32) */
  gint bits;
  gchar *strings[FX_SOURCE_STRINGS]; /* by fx_source_string_ids; NULL where absent */
  gboolean has_bext, has_cues, has_instrument;
  FxBroadcastInfo bext;
  SF_CUES cues;
  SF_INSTRUMENT instrument;
};

/* The input's sample encoding, from libsndfile's subtype (media-sndfile.c) or the decoder's raw
 * format (media-decode.c). */
gint fx_source_bits_from_sndfile(int format);
gint fx_source_bits_from_gst(GstAudioFormat format);

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
  /* the stall limit of the GStreamer path, in 50 ms polls without a sample, bus error or EOS
   * (0: none, for a file that is not a regular file, where waiting for data is normal) */
  guint stall_polls, stall_limit;
  guint idle_polls;  /* polls in a row with no streaming thread started (media-decode.c) */
  gulong test_probe; /* a test hook's probe on cur's audioconvert (media-decode.c), or 0 */
  gint64 found_frames, header_frames; /* a truncated file: the frames there and announced */
  /* what the output keeps of the current file: filled at start (libsndfile), or by the pad probe
   * on the GStreamer pipeline's audioconvert (the decoder's raw format and tag events; lock) */
  FxSource source;
  GMutex lock;
};

/* An error message from a bus as a GError with a one-line text, after `prefix` (media.c). */
void fx_media_error_from_message(GError **error, GstMessage *msg, const char *prefix);

/* What a file's header may announce, checked before anything is built for it (see media.h:
 * FX_MEDIA_MAX_RATE). `frames` < 0: unknown (media-decode.c). */
gboolean fx_media_check_stream(gint rate, gint channels, gint target_rate, gint64 frames,
                               GError **error);

/* Opens `path` with libsndfile when it reads the file and, with --rate, the file has that rate
 * (media-sndfile.c). FALSE with *error unset: use GStreamer; FALSE with *error set: a header out
 * of bounds. */
gboolean fx_decoder_sndfile_start(FxDecoder *dec, const char *path, GstCaps **caps, GError **error);

G_END_DECLS

#endif
