/* gst-fx — decoding, encoding and feeding for `process` and `batch`.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Data path of both commands (the same code, so that `batch` equals `process` bit for bit):
 *
 *   decoder:  libsndfile (sf_readf_float/_double) for every file it opens (wav, flac, ogg/vorbis,
 *             aiff, au, caf, mp3, …) unless --rate asks for another rate than the file's;
 *             otherwise GStreamer: uridecodebin (for .wav: filesrc ! wavparse) ! audioconvert
 *             ! audioresample ! audio/x-raw,format=F[,rate=R] ! appsink
 *   engine:   fxchain chain="…" ! appsink        (fed from the calling thread, FxFeeder)
 *   encoder:  libsndfile by OUT's extension (any major format it writes), in the input's sample
 *             encoding or --bits, quantised by dsp/quantize with TPDF dither where precision is
 *             lost, clipped samples counted, tags and metadata carried over (FxWriter)
 *
 * Which decoder a file gets depends only on the file and the options, never on the command, so
 * `process` and `batch` decode every file the same way. Integer PCM in → float by x / 2^(bits-1)
 * (exact up to 24 bits, in both decoders); float → integer PCM out by fx_quant_f64_to_bits()
 * (round to nearest, ties to even, clamped and counted, dither as fx_writer_new() says).
 *
 * The fxchain is always fed blocks of at most FX_BLOCK_FRAMES frames: see FX_BLOCK_FRAMES. */
#ifndef GST_FX_MEDIA_H
#define GST_FX_MEDIA_H

#include "gst-fx.h"
#include "kernel.h"
#include "quantize.h"

#include <gst/app/gstappsink.h>
#include <gst/audio/audio.h>

G_BEGIN_DECLS

/* Frames per buffer pushed into the fxchain, by `process` and `batch` alike. The CPU kernels are
 * bit-identical across channel counts and across any split of a stream into calls shorter than
 * FX_KERNEL_SPLIT_EXACT_FRAMES; the only exception is the time-block path of the AVX2/AVX-512
 * kernels, taken for 1 or 2 channels in longer calls (dsp/kernel.h, "Requirements on every
 * implementation"). `batch` runs many channels at once, `process` often 1 or 2: with blocks
 * shorter than that both take the per-sample paths, so a file's output is the same bit for bit
 * whether it runs alone or stacked with others. */
#define FX_BLOCK_FRAMES 4096
_Static_assert(FX_BLOCK_FRAMES < FX_KERNEL_SPLIT_EXACT_FRAMES,
               "blocks must stay off the kernels' time-block path (dsp/kernel.h)");

/* Sample encodings of a file: integer PCM of N bits (8 to 32), or float. */
#define FX_BITS_AUTO 0 /* --bits not given: the input's (fx_writer_new_typed()) */
#define FX_BITS_F32 (-32)
#define FX_BITS_F64 (-64)
/* --dither not given: TPDF when the output has less precision than the input */
#define FX_DITHER_AUTO (-1)
/* The dither's seed: fixed, so that the same command writes the same file. */
#define FX_MEDIA_DITHER_SEED 0

/* What both commands share. */
typedef struct {
  const char *chain;     /* fxchain `chain` */
  const char *device;    /* enum nick or NULL */
  const char *precision; /* enum nick or NULL */
  const char *format;    /* "F32LE" or "F64LE": the decoded and processed format */
  gint rate;             /* resample to this rate; 0: keep each file's rate */
  const char *type;      /* OUT's format by extension name (process --type), NULL: OUT's own */
  gint bits;             /* --bits: FX_BITS_AUTO, 8/16/24/32, FX_BITS_F32, FX_BITS_F64 */
  gint dither;           /* --dither: FX_DITHER_AUTO, FX_DITHER_NONE or FX_DITHER_TPDF */
  gboolean clip_error;   /* --clip-error: clipped samples make the file fail (exit status 1) */
} FxMediaOptions;

/* What a file may announce, checked when it is opened (a per-file error beyond these, before
 * any pipeline is built for it): a sample rate from 1 Hz to FX_MEDIA_MAX_RATE (the highest PCM
 * rate of audio interfaces, 16 x 48 kHz), 1 to FX_MEDIA_MAX_CHANNELS channels (libsndfile's
 * limit), and with --rate a ratio between the two rates below FX_MEDIA_MAX_RESAMPLE, in either
 * direction (audioresample's filter grows with the ratio: a header saying 2^31 Hz, resampled to
 * 8 kHz, would need hundreds of GB). --rate itself is from 1 Hz to FX_MEDIA_MAX_RATE. */
#define FX_MEDIA_MAX_RATE 768000
#define FX_MEDIA_MAX_CHANNELS 1024
#define FX_MEDIA_MAX_RESAMPLE 1024

/* Checks --device/--precision/--format/--rate/--bits/--dither of a command (usage error on
 * failure). Sets opts->format to the normalised name, opts->bits and opts->dither. */
int fx_media_check_options(GOptionContext *ctx, FxMediaOptions *opts, const char *format_arg,
                           const char *bits_arg, const char *dither_arg);

/* The option entries of the output format, shared by `process` and `batch`. */
#define FX_MEDIA_OUTPUT_ENTRIES(bits, dither, clip_error)                                          \
  {"bits",                                                                                         \
   'b',                                                                                            \
   0,                                                                                              \
   G_OPTION_ARG_STRING,                                                                            \
   &(bits),                                                                                        \
   "Output samples: 16, 24, 32 (integer PCM), f32 or f64 (float) (default: the input's; "          \
   "lossy outputs ignore it)",                                                                     \
   "B"},                                                                                           \
      {"dither",                                                                                   \
       0,                                                                                          \
       0,                                                                                          \
       G_OPTION_ARG_STRING,                                                                        \
       &(dither),                                                                                  \
       "none or tpdf (default: tpdf when the output has less precision than the input, e.g. "      \
       "float or 24-bit in, 16-bit out; else none)",                                               \
       "D"},                                                                                       \
  {                                                                                                \
    "clip-error", 0, 0, G_OPTION_ARG_NONE, &(clip_error),                                          \
        "A file whose output clipped is an error (exit status 1; the output is kept) instead of "  \
        "a warning",                                                                               \
        NULL                                                                                       \
  }

/* "DEVICE:INODE" of the file `path` names (after following symbolic links), NULL when it does not
 * exist: two paths with the same key are the same file (through a link or not). */
gchar *fx_media_file_key(const char *path);
/* TRUE when both paths exist and are the same file (fx_media_file_key()). */
gboolean fx_media_same_file(const char *a, const char *b);

/* TRUE when OUT's extension names a format FxWriter writes (every major format libsndfile writes
 * here, by its extension or another name of it: wav, flac, ogg/oga (Vorbis), opus, mp3, aiff/aif,
 * au/snd, caf, w64, rf64, ...; any case). */
gboolean fx_media_output_supported(const char *path);
/* NULL when `bits` (FX_BITS_AUTO or an explicit --bits) can be written to OUT's format (OUT's
 * extension, or `type`'s when not NULL), else why not with the widths that can, one line
 * (g_free). Lossy formats take any `bits` (they ignore it). */
gchar *fx_media_output_bits_error(const char *path, const char *type, gint bits);
/* The extensions FxWriter writes, comma-separated (for messages; g_free). */
gchar *fx_media_output_extensions(void);

/* The extensions of the files `batch` takes from an input directory by default: every major
 * format libsndfile reads (its format list's extensions, lower case) and the other names of
 * those formats (aif, oga, opus, mp3, wave). NULL-terminated, g_strfreev(). */
gchar **fx_media_input_extensions(void);

/* The most common extensions FxWriter knows, for short messages (fx_media_output_extensions():
 * all of them). */
#define FX_MEDIA_EXTENSIONS "wav, flac, ogg, opus, mp3, aiff, caf, w64, ..."

/* An output file written with libsndfile, in the format of its extension. Written to a temporary
 * beside it (gst-fx.h: fx_tool_temp_create()) from the first fx_writer_write() on, and renamed
 * over its name by fx_writer_close() with `keep` once complete; a failed or interrupted run
 * removes the temporary and never touches the name. */
typedef struct _FxWriter FxWriter;

/* What the decoder knew of an input that its output keeps: its sample encoding (the default of
 * --bits) and its tags and metadata chunks (fx_decoder_source()). */
typedef struct _FxSource FxSource;

/* The output's samples (see "Output samples" in media-write.c):
 *   bits: opts->bits, or with FX_BITS_AUTO the input's (`src`; float when unknown), mapped to
 *         the nearest the format holds (FLAC: float and 32-bit -> 24-bit);
 *   integer PCM is quantised with dsp/quantize (fx_quant_f64_to_bits()): round to nearest,
 *         clipping counted (fx_writer_clipped()), TPDF dither of +-1 LSB of the output's width
 *         seeded with FX_MEDIA_DITHER_SEED when opts->dither says so (FX_DITHER_AUTO: when the
 *         output has fewer bits than the input, or the input is float);
 *   float outputs and lossy formats (Vorbis, Opus, MP3) get the processed floats as they are.
 * Tags and metadata of `src` (may be NULL) are written before the first samples (an empty
 * output has none). `opts->format` is the format of the frames given to fx_writer_write(). */
FxWriter *fx_writer_new(const char *path, const FxMediaOptions *opts, const FxSource *src);
/* As fx_writer_new(), with the format of `type` (an extension: "wav", "flac", "ogg", ...) instead
 * of the path's when `type` is not NULL. `path` "-" is standard output (default type wav), written
 * only once the whole output is complete (a failed run writes nothing there). */
FxWriter *fx_writer_new_typed(const char *path, const char *type, const FxMediaOptions *opts,
                              const FxSource *src);
/* `frames` interleaved frames of `channels` channels at `rate` in the writer's format (the
 * processing format): the first call fixes channels and rate. */
gboolean fx_writer_write(FxWriter *w, const void *data, gsize frames, gint channels, gint rate,
                         GError **error);
/* TRUE once the first fx_writer_write() (of any number of frames, 0 too) created the file. */
gboolean fx_writer_opened(FxWriter *w);
/* Samples clipped so far by the quantisation to an integer output (0 for float and lossy). */
guint64 fx_writer_clipped(FxWriter *w);
/* The output's name for messages ("standard output" for "-"). */
const char *fx_writer_name(FxWriter *w);
/* After a run that clipped `clipped` (> 0) samples: "clipped N samples; lower the gain" (with
 * opts->clip_error " (--clip-error)"), reported after "gst-fx: OUT: " as a warning, or as the
 * file's error with --clip-error (exit status 1; the output is kept). g_free(). */
gchar *fx_media_clipped_message(const FxMediaOptions *opts, guint64 clipped);
/* Closes the file and, with `keep`, renames it into place (keep = FALSE: removes the temporary;
 * the final name is left as it was), and frees the writer. */
gboolean fx_writer_close(FxWriter *w, gboolean keep, GError **error);

/* A reusable decoder: libsndfile, or a GStreamer pipeline (made when first needed and kept; a new
 * uri is set in NULL state). */
typedef struct _FxDecoder FxDecoder;

FxDecoder *fx_decoder_new(const FxMediaOptions *opts, GError **error);
void fx_decoder_free(FxDecoder *dec);
/* Starts decoding `path` and waits for the first decoded buffer. Sets *caps (ref owned by the
 * decoder) to the decoded caps. FALSE with *error ("cannot decode: …") on failure. */
gboolean fx_decoder_start(FxDecoder *dec, const char *path, GstCaps **caps, GError **error);
/* After start: for a file shorter than its header says, "the file is truncated: N frames found,
 * header says M (...)" (free with g_free()); else NULL. */
gchar *fx_decoder_warning(FxDecoder *dec);
/* The next decoded buffer (the first one after start), or NULL at the end (*error unset) or on a
 * decoding error (*error set). */
GstBuffer *fx_decoder_pull(FxDecoder *dec, GError **error);
/* TRUE when libsndfile reads the current file. */
gboolean fx_decoder_uses_sndfile(FxDecoder *dec);
/* With libsndfile only: reads up to `frames` frames into `dest` (processing format); returns the
 * frames read, 0 at the end, -1 with *error on failure. Not to be mixed with fx_decoder_pull(). */
gssize fx_decoder_read(FxDecoder *dec, gpointer dest, gsize frames, GError **error);
/* TRUE when every sample of the current file is finite by construction: integer PCM (8 to 32
 * bits, A-law, mu-law; in wav, flac, aiff, ...) read by libsndfile. */
gboolean fx_decoder_integer_source(FxDecoder *dec);
/* TRUE when libsndfile reads the current file and its samples are 16-bit PCM stored as they are
 * (wav, wavex, w64, rf64, aiff, au, caf): fx_decoder_read_pcm16() then reads them undecoded. */
gboolean fx_decoder_pcm16(FxDecoder *dec);
/* With fx_decoder_pcm16() only: reads up to `frames` frames as host-order 16-bit integers (the
 * file's bytes with sf_read_raw(), swapped where its byte order is not the host's); returns the
 * frames read, 0 at the end, -1 with *error on failure. x / 32768 (in float or double) is exactly
 * what fx_decoder_read() gives for x: libsndfile multiplies by 1 / 0x8000, and both are exact for
 * 16-bit x. Not to be mixed with the other reads of the same file. */
gssize fx_decoder_read_pcm16(FxDecoder *dec, gint16 *dest, gsize frames, GError **error);
/* With fx_decoder_pcm16() and the host's byte order: finds where the file's samples are stored
 * (where libsndfile reads them: its seek to frame 0 gives their offset; the first and last
 * frames are checked against sf_read_raw()) so that fx_decoder_pread_pcm16() can read any frames
 * of them straight from the descriptor. FALSE where that does not hold (then
 * fx_decoder_read_pcm16() reads them). */
gboolean fx_decoder_locate_pcm16(FxDecoder *dec);
/* After fx_decoder_locate_pcm16(): reads frames [first, first + frames) (all before the end of
 * the file) into `dest`, as fx_decoder_read_pcm16() gives them, with one positioned read (no
 * seek, and no copy through libsndfile); returns the frames read, -1 with *error on failure.
 * May be called from any thread, for different frames at the same time. */
gssize fx_decoder_pread_pcm16(FxDecoder *dec, gint16 *dest, gsize first, gsize frames,
                              GError **error);
/* Frames of the current file when libsndfile reads it and knows its length, else -1. */
gint64 fx_decoder_frames(FxDecoder *dec);
/* After start: a copy of what the output keeps of the current file (its sample encoding, tags and
 * metadata), fx_source_free(). */
FxSource *fx_decoder_source(FxDecoder *dec);
void fx_source_free(FxSource *src);
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
/* Sends EOS and waits for it (or an error) on the bus; warnings are collected. The appsinks take
 * the EOS without waiting to be emptied (fx_feeder_new()): what stages pushed at EOS (tails,
 * held-back audio) is pulled afterwards. */
gboolean fx_feeder_finish(FxFeeder *f, GPtrArray **warnings, GError **error);
/* Writes what `sink` holds to `w` (after a push, or everything after fx_feeder_finish()): the
 * output side of `process`, and of `batch` for chains that run file by file. */
gboolean fx_media_drain(GstAppSink *sink, FxWriter *w, GError **error);
/* Back to NULL (keeps the elements for the next run). */
void fx_feeder_stop(FxFeeder *f);
/* Pops the error the pipeline posted, if any (FALSE when none). */
gboolean fx_feeder_failed(FxFeeder *f, GError **error);

/* Sets an fxchain's chain, device and precision, and warm-up=false: the chain does not change
 * during a run, so no copy of its input is kept for warm-ups. */
void fx_media_setup_chain(GstElement *fxchain, const FxMediaOptions *opts);

/* Time stamps for block `frames_done` frames into the stream. */
void fx_media_stamp(GstBuffer *buf, guint64 frames_done, guint64 frames, gint rate);

/* Progress on stderr's terminal: "[#####-----]  42%  00:03 elapsed  00:04 left  label", redrawn
 * in place with \r, fitted to the terminal's width (TIOCGWINSZ, else $COLUMNS): shorter times,
 * a shorter bar, the label cut in its middle. Disabled (no output at all) when stderr is not a
 * terminal; never on stdout, which may carry the output (OUT "-"). */
typedef struct {
  gboolean enabled;
  gint64 start, last;
  gboolean drawn;
} FxProgress;

void fx_progress_init(FxProgress *p);
void fx_progress_update(FxProgress *p, double fraction, const char *label);
void fx_progress_done(FxProgress *p);

/* Runs `process` for one file (used by `process` and the benchmark's per-file path). IN "-" is
 * standard input, first copied whole to a temporary file (a pipe cannot seek, and the decoders
 * need a length and, for some files, a second look at the header); OUT "-" is standard output
 * (fx_writer_new_typed()). */
int fx_process_file(const FxMediaOptions *opts, const char *in, const char *out,
                    FxProgress *progress, GError **error);

/* "gst-fx: PATH: MESSAGE" on stderr (one line). */
void fx_media_report(const char *path, const char *message);

G_END_DECLS

#endif
