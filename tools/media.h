/* gst-fx — decoding, encoding and feeding pipelines for `process` and `batch`.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Data path of both commands (the same code, so that `batch` equals `process` bit for bit):
 *
 *   decoder:  uridecodebin (for .wav: filesrc ! wavparse) ! audioconvert ! audioresample
 *             ! audio/x-raw,format=F[,rate=R] ! appsink
 *   engine:   fxchain chain="…" ! (process: the encoder tail | batch: appsink)
 *   encoder:  <by extension: wavenc | audioconvert dithering=none ! flacenc |
 *             audioconvert dithering=none ! vorbisenc ! oggmux> ! filesink
 *
 * The engine and encoder pipelines are fed from the calling thread (FxFeeder).
 * The fxchain is always fed blocks of at most FX_BLOCK_FRAMES frames: see FX_BLOCK_FRAMES. */
#ifndef GST_FX_MEDIA_H
#define GST_FX_MEDIA_H

#include "gst-fx.h"

#include <gst/app/gstappsink.h>
#include <gst/audio/audio.h>

G_BEGIN_DECLS

/* Frames per buffer pushed into the fxchain, by `process` and `batch` alike. The CPU kernels are
 * bit-identical across channel counts and across any split of a stream into calls shorter than
 * 8192 frames; the only exception is the time-block path of the AVX2/AVX-512 kernels, taken for
 * 1 or 2 channels in calls of at least 8192 frames (dsp/kernel.h, "Requirements on every
 * implementation"). `batch` runs many channels at once, `process` often 1 or 2: with blocks of
 * 4096 frames both take the per-sample paths, so a file's output is the same bit for bit whether
 * it runs alone or stacked with others. */
#define FX_BLOCK_FRAMES 4096

/* What both commands share. */
typedef struct {
  const char *chain;     /* fxchain `chain` */
  const char *device;    /* enum nick or NULL */
  const char *precision; /* enum nick or NULL */
  const char *format;    /* "F32LE" or "F64LE": decoded and processed format, wav output format */
  gint rate;             /* resample to this rate; 0: keep each file's rate */
} FxMediaOptions;

/* Checks --device/--precision/--format/--rate of a command (usage error on failure). Sets
 * opts->format to the normalised name. */
int fx_media_check_options(GOptionContext *ctx, FxMediaOptions *opts, const char *format_arg);

/* The encoder description for a file name by its extension (wav, flac, ogg, case-insensitive),
 * or NULL. `format` is the wav sample format. */
gchar *fx_media_encoder_tail(const char *path, const char *format);

/* The extensions fx_media_encoder_tail() knows, for messages. */
#define FX_MEDIA_EXTENSIONS "wav, flac, ogg"

/* A reusable decoder pipeline (a new uri is set in NULL state; the elements are kept). */
typedef struct _FxDecoder FxDecoder;

FxDecoder *fx_decoder_new(const FxMediaOptions *opts, GError **error);
void fx_decoder_free(FxDecoder *dec);
/* Starts decoding `path` and waits for the first decoded buffer. Sets *caps (ref owned by the
 * decoder) to the decoded caps. FALSE with *error ("cannot decode: …") on failure. */
gboolean fx_decoder_start(FxDecoder *dec, const char *path, GstCaps **caps, GError **error);
/* The next decoded buffer (the first one after start), or NULL at the end (*error unset) or on a
 * decoding error (*error set). */
GstBuffer *fx_decoder_pull(FxDecoder *dec, GError **error);
/* Duration of the current file in ns, or -1 when unknown. */
gint64 fx_decoder_duration(FxDecoder *dec);
void fx_decoder_stop(FxDecoder *dec);

/* A pipeline fed from the calling thread: `description` (gst-launch syntax) has one unlinked
 * sink pad, to which a pad of ours is linked; buffers pushed with fx_feeder_push() run through
 * the pipeline's elements up to the next queue or sink in this thread, so there is no queue and no
 * thread hand-off per buffer (as GstHarness does it). */
typedef struct _FxFeeder FxFeeder;

FxFeeder *fx_feeder_new(const char *description, GError **error);
void fx_feeder_free(FxFeeder *f);
GstElement *fx_feeder_get(FxFeeder *f, const char *name); /* transfer none */
GstElement *fx_feeder_pipeline(FxFeeder *f);              /* transfer none */
/* Sets PLAYING and sends stream-start, the caps and a time segment. */
gboolean fx_feeder_start(FxFeeder *f, GstCaps *caps, GError **error);
/* Takes ownership of `buffer`. FALSE with the pipeline's error when it refused it. */
gboolean fx_feeder_push(FxFeeder *f, GstBuffer *buffer, GError **error);
/* Sends EOS and waits for it (or an error) on the bus; warnings are collected. */
gboolean fx_feeder_finish(FxFeeder *f, GPtrArray **warnings, GError **error);
/* Back to NULL (keeps the elements for the next run). */
void fx_feeder_stop(FxFeeder *f);
/* Pops the error the pipeline posted, if any (FALSE when none). */
gboolean fx_feeder_failed(FxFeeder *f, GError **error);

/* Sets an fxchain's chain, device and precision. */
void fx_media_setup_chain(GstElement *fxchain, const FxMediaOptions *opts);

/* Time stamps for block `frames_done` frames into the stream. */
void fx_media_stamp(GstBuffer *buf, guint64 frames_done, guint64 frames, gint rate);

/* Progress on a terminal: "[#####-----]  42%  00:03 elapsed  00:04 left  label". Disabled (no
 * output at all) when stdout is not a terminal. */
typedef struct {
  gboolean enabled;
  gint64 start, last;
  gboolean drawn;
} FxProgress;

void fx_progress_init(FxProgress *p);
void fx_progress_update(FxProgress *p, double fraction, const char *label);
void fx_progress_done(FxProgress *p);

/* Runs `process` for one file (used by `process` and the benchmark's per-file path). */
int fx_process_file(const FxMediaOptions *opts, const char *in, const char *out,
                    FxProgress *progress, GError **error);

/* "gst-fx: PATH: MESSAGE" on stderr (one line). */
void fx_media_report(const char *path, const char *message);

G_END_DECLS

#endif
