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
