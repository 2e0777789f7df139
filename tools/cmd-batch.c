/* gst-fx batch — many files through one fused plan, stacked on the channel axis.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Inputs are files and directories (see "Input folders": a directory gives its files, with -r
 * its whole tree, mirrored under DIR). The files (sorted by name, byte order; with --shard K/N
 * only those whose 0-based index i has i % N == K-1) are opened on --jobs worker threads, each with
 * a decoder (media.h: libsndfile, or a GStreamer pipeline for what libsndfile does not read).
 * Integer PCM that libsndfile reads (16/24-bit wav, flac, aiff, ...) is streamed: the file stays
 * open and is read chunk by chunk while its group runs (uncompressed 16-bit PCM in the host's byte
 * order with one positioned read per chunk, media.h: fx_decoder_pread_pcm16()); anything else is
 * decoded into memory first (and scanned for NaN/Inf). Files are opened up to 2 per job plus
 * FILES_AHEAD ahead of the one consumed (fewer where the open-file limit is low); decoding into
 * memory runs at most 2 files per job ahead. Files form groups of at most --memory MiB of decoded
 * audio (streamed or not) and at most as many files as the open-file limit allows (each holds its
 * output open while its group runs, a streamed one its input too: plan_descriptors()). The channels
 * of all files of a group are stacked into one interleaved stream (channels = the sum of the files'
 * channels, channel-mask 0), which runs through ONE pipeline
 *
 *   fxchain chain="…" ! appsink     (fed from this thread, media.h: FxFeeder)
 *
 * in blocks of FX_BLOCK_FRAMES frames, so each block is one dispatch for all files together (one
 * launch on a GPU); the summary line reports the fxchain's `dispatches` against the blocks. A
 * file shorter than the group's longest is padded with zeros after its end and its output cut to
 * its length: the stages are causal, so this is exact. The files' side (reading the next chunk,
 * copying the filtered channels of the previous one out and writing them to DIR/<input's name>,
 * by the input's extension or --ext, with libsndfile: media.h FxWriter) runs on the --jobs
 * threads beside the stream's side (stacking and filtering, this thread): see "The stacked run".
 * For streamed files only two chunks of stacked audio and of input staging are held.
 *
 * Why the output equals `gst-fx process` bit for bit: the same decoder for the same file and
 * options, the same writer, the same block length (media.h: FX_BLOCK_FRAMES), and per-channel
 * stages whose arithmetic per channel does not depend on the number of channels. Stages that mix
 * channels, render a tail after the stream's end or hold audio back would not give that (a tail
 * would follow the group's longest file, held-back audio would be cut off with the padding, a
 * normaliser would see all files), so only chains of per-channel causal stages are stacked (see
 * stage_is_per_channel()); with any other stage every file runs alone through the same pipeline,
 * as `process` runs it (run_file()).
 *
 * A file with NaN or Inf samples runs in a group of its own: the cascade resets every channel's
 * state when non-finite values reach it, which would otherwise change the other files' outputs.
 *
 * Sample rates: with --rate R every file is resampled to R; without it the batch runs at the rate
 * of the first file that decodes, and a file at another rate is refused with a message (exit
 * status 1). A file that cannot be decoded or written is reported (one line) and the others are
 * still processed (exit status 1). */
#include "media.h"

#include "cascade.h"

#include <glib/gstdio.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <stdio.h>
#include <string.h>

#define DEFAULT_MEMORY_MIB 1024
/* Files opened ahead of the one the main thread consumes, beyond 2 per job (streamed files hold
 * one descriptor each meanwhile: only where the open-file limit leaves room, see
 * plan_descriptors()). */
#define FILES_AHEAD 64
#ifndef CHUNK_FRAMES
#define CHUNK_FRAMES 4096
#endif

/* Memory kept across groups (grown when a group needs more, never shrunk), so that it is
 * faulted in once. */
typedef struct {
  guint8 *p;
  gsize size;
} Area;

typedef struct {
  const char *path; /* borrowed from argv */
  gchar *out;
  const char *skip; /* why the file is not even decoded (static text or skip_text), or NULL */
  gchar *skip_text;
  FxSource *source; /* what its output keeps of it (fx_decoder_source()) */
  guint64 clipped;  /* samples its output clipped (fx_writer_clipped()) */
  GstCaps *caps;
  gint channels, rate;
  gboolean nonfinite; /* has NaN or Inf samples: runs in a group of its own */
  gsize frames, bytes, alloc;
  guint8 *data;         /* the decoded file, unless it is streamed */
  FxDecoder *stream;    /* integer PCM read by libsndfile: open, read block by block */
  gboolean pcm16;       /* streamed as 16-bit integers (fx_decoder_read_pcm16()) */
  gboolean raw;         /* pcm16 and located (fx_decoder_locate_pcm16()): read with pread() */
  gsize in_off;         /* its input staging in the group's (run_stacked()) */
  guint strip, seg0;    /* the strip and segment of its first channel (make_strips()) */
  const guint8 *src[2]; /* where the stacking reads chunks k with k % 2 == i: fill_file() */
  FxWriter *writer;     /* while its group runs */
  /* decoding on a worker thread: set by the worker, read after `done` (Workers.lock); then
   * writing the output (error) */
  gboolean done;
  GError *error;
  guint index;           /* in the shard's files */
  gboolean closed, kept; /* its output was closed after its last frames (finish_file()) */
  gchar *warning;        /* fx_decoder_warning(), set by the worker */
} BatchFile;

typedef struct {
  FxMediaOptions opts;
  const char *ext; /* --ext or NULL */
  const char *outdir;
  gint rate; /* the batch's rate (opts.rate or the first file's) */
  gint bps;  /* bytes per sample */
  FxFeeder *engine;
  /* the chain holds a stage that is not per-channel causal (check_chain()): every file runs on
   * its own through the engine, as `process` runs it (run_file()) */
  gboolean per_file;
  guint64 blocks, dispatches;
  guint groups, written, failed;
  gchar *backend;
  GPtrArray *warnings;
  FxProgress progress;
  guint total, processed;
  gint block_frames; /* the longest block of the runs (summary line) */
  guint jobs;
  GThreadPool *stackers; /* jobs - 1 threads for the file side of a group (NULL with --jobs 1) */
  Area areas[5];         /* the block, the input and output stagings (run_stacked()) */
} Batch;

static void batch_file_free_data(BatchFile *f)
{
  g_clear_pointer(&f->data, g_free);
  g_clear_pointer(&f->stream, fx_decoder_free);
  g_clear_pointer(&f->source, fx_source_free);
  f->raw = FALSE;
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
 * causal arithmetic that does not depend on the number of channels, and gives one output frame
 * per input frame at once. That holds for every IIR element (a GstFxIir subclass: one SOS cascade
 * per channel), for `fxgain` (a per-sample gain) and for GStreamer's `volume`; it is unknown for
 * anything else, e.g. stages with a tail rendered at EOS (`fxdelay`, `fxreverb`), stages that
 * hold audio back (a look-ahead `fxcompressor`, `fxlimiter`, `fxnormalize`, a low-latency
 * `fxfir`), channel-coupled ones (`fxdelay ping-pong=true`, `fxnormalize per-channel=false`) or
 * `audioconvert` (which may remix channels): with any of those the files run one by one. */
static gboolean stage_is_per_channel(GstElement *e)
{
  GstElementFactory *factory = gst_element_get_factory(e);
  GType iir = g_type_from_name("GstFxIir");
  GType requant = g_type_from_name("GstFxRequant");
  const char *name;

  if (iir != 0 && g_type_is_a(G_OBJECT_TYPE(e), iir))
    return TRUE;
  if (requant != 0 && g_type_is_a(G_OBJECT_TYPE(e), requant))
    return TRUE; /* fxchain's format converters: sample by sample */
  if (factory == NULL)
    return FALSE; /* unknown (fxchain's internal fused stages are GstFxIir subclasses) */
  name = gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(factory));
  return g_strcmp0(name, "fxgain") == 0 || g_strcmp0(name, "volume") == 0;
}

/* Wires the fxchain (NULL → READY) and decides how the files run: stacked when every stage is
 * per-channel and causal, else file by file (b->per_file). */
static gboolean check_chain(Batch *b, GError **error)
{
  GstElement *pipeline = fx_feeder_pipeline(b->engine);
  GstElement *chain = fx_feeder_get(b->engine, "fx");
  GstIterator *it;
  GValue item = G_VALUE_INIT;

  if (gst_element_set_state(pipeline, GST_STATE_READY) == GST_STATE_CHANGE_FAILURE) {
    if (!fx_feeder_failed(b->engine, error))
      g_set_error_literal(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
                          "the chain could not be set up");
    fx_feeder_stop(b->engine);
    return FALSE;
  }
  it = gst_bin_iterate_elements(GST_BIN(chain));
  while (!b->per_file && gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
    b->per_file = !stage_is_per_channel(g_value_get_object(&item));
    g_value_reset(&item);
  }
  g_value_unset(&item);
  gst_iterator_free(it);
  fx_feeder_stop(b->engine);
  return TRUE;
}

/* ---------------------------------------------------------------------------------------- */
/* Decoding                                                                                  */

/* Decodes a file into memory (on a worker thread). */
/* Decoding runs on worker threads (see "Worker threads" below). */
typedef struct _Workers Workers;
struct _Workers {
  const Batch *b;
  GThreadPool *pool;
  GAsyncQueue *decoders; /* idle FxDecoder */
  GMutex lock;
  GCond cond;
  guint consumed;     /* the file the main thread waits for or consumes (lock) */
  guint waiting;      /* threads waiting on cond (lock) */
  guint memory_ahead; /* how far ahead of `consumed` a file may be decoded into memory */
};

/* Before a file is decoded into memory (streamed files only hold a descriptor and a mapping),
 * waits until it is at most memory_ahead files ahead of the one the main thread consumes: so
 * streamed files are opened far ahead, and decoded audio waiting in memory stays bounded. The
 * pool takes files in order, so the file the main thread waits for is never held up. */
static void wait_turn(Workers *w, const BatchFile *f)
{
  g_mutex_lock(&w->lock);
  w->waiting++;
  while (f->index >= w->consumed + w->memory_ahead)
    g_cond_wait(&w->cond, &w->lock);
  w->waiting--;
  g_mutex_unlock(&w->lock);
}

static gboolean read_file(Workers *w, FxDecoder *dec, BatchFile *f, GError **error)
{
  const gint bps = w->b->bps;
  GstCaps *caps;
  GstAudioInfo info;
  GstBuffer *buf;
  GError *err = NULL;
  gint64 duration;

  if (!fx_decoder_start(dec, f->path, &caps, error))
    return FALSE;
  f->warning = fx_decoder_warning(dec);
  f->source = fx_decoder_source(dec);
  if (!gst_audio_info_from_caps(&info, caps)) {
    g_set_error_literal(error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                        "cannot decode: unexpected caps");
    fx_decoder_stop(dec);
    return FALSE;
  }
  f->caps = gst_caps_ref(caps);
  f->channels = GST_AUDIO_INFO_CHANNELS(&info);
  f->rate = GST_AUDIO_INFO_RATE(&info);
  /* Integer PCM of a known length that libsndfile reads is streamed: the file stays open and is
   * read block by block while its group runs (it cannot hold NaN or Inf). Its decoded size still
   * counts against --memory, so the groups do not depend on how files are read. */
  if (fx_decoder_integer_source(dec) && fx_decoder_frames(dec) > 0) {
    f->frames = (gsize) fx_decoder_frames(dec);
    f->bytes = f->frames * GST_AUDIO_INFO_BPF(&info);
    f->stream = dec;
    f->pcm16 = fx_decoder_pcm16(dec);
    f->raw = f->pcm16 && fx_decoder_locate_pcm16(dec);
    return TRUE;
  }
  wait_turn(w, f);
  /* room for the announced duration (plus a little), grown by doubling past it */
  duration = fx_decoder_duration(dec);
  if (duration > 0 && duration < 24 * 3600 * GST_SECOND)
    f->alloc = (gst_util_uint64_scale_int_ceil(duration, f->rate, GST_SECOND) + 1024) *
               GST_AUDIO_INFO_BPF(&info);
  f->data = f->alloc > 0 ? g_malloc(f->alloc) : NULL;
  if (fx_decoder_uses_sndfile(dec)) {
    /* straight into memory, no buffers: normally one read of the whole file (the room above is
     * its exact length plus 1024 frames) and one that returns 0 */
    gsize bpf = GST_AUDIO_INFO_BPF(&info);
    for (;;) {
      gssize got;
      if (f->bytes + bpf > f->alloc) {
        f->alloc = MAX(f->alloc * 2, f->bytes + 65536 * bpf);
        f->data = g_realloc(f->data, f->alloc);
      }
      got = fx_decoder_read(dec, f->data + f->bytes, (f->alloc - f->bytes) / bpf, &err);
      if (got <= 0)
        break;
      f->bytes += (gsize) got * bpf;
    }
  }
  while (!fx_decoder_uses_sndfile(dec) && (buf = fx_decoder_pull(dec, &err)) != NULL) {
    gsize n = gst_buffer_get_size(buf);
    if (f->bytes + n > f->alloc) {
      f->alloc = MAX(f->alloc * 2, f->bytes + n);
      f->data = g_realloc(f->data, f->alloc);
    }
    gst_buffer_extract(buf, 0, f->data + f->bytes, n);
    f->bytes += n;
    gst_buffer_unref(buf);
  }
  if (err != NULL) {
    fx_decoder_stop(dec);
    g_propagate_error(error, err);
    batch_file_free_data(f);
    return FALSE;
  }
  f->frames = f->bytes / ((gsize) f->channels * bps);
  /* The cascade resets the state of every channel when non-finite values reach it (DESIGN §3),
   * which would change the other files of a stacked group: such a file runs alone. Integer PCM
   * cannot hold them, so it is not scanned. */
  gsize n = fx_decoder_integer_source(dec) ? 0 : f->frames * f->channels;
  for (gsize i = 0; i < n && !f->nonfinite; i++)
    f->nonfinite = bps == 4 ? !isfinite(((const float *) f->data)[i])
                            : !isfinite(((const double *) f->data)[i]);
  fx_decoder_stop(dec);
  return TRUE;
}

/* ---------------------------------------------------------------------------------------- */
/* The stacked run                                                                           */

/* A group runs chunk by chunk (FX_BLOCK_FRAMES frames of every file) on two sides that overlap:
 *   - the file side (tasks of a few files each, on the --jobs threads; the main thread joins in
 *     when its own part is done): for chunk k+1, every file's frames are read into its input
 *     staging (16-bit PCM as the file's integers, fx_decoder_read_pcm16(): no conversion pass;
 *     anything else in the processing format; zeros past the file's end), and for chunk k-1,
 *     every file's frames are appended to its output (FxWriter, as `process` writes) from its
 *     output staging;
 *   - the stream side (the main thread): chunk k is cut into blocks of `sub` frames; each is
 *     stacked from the input stagings into the interleaved block (16-bit integers become x / 32768
 *     on the way, exactly what libsndfile's float read gives), pushed through the fxchain (one
 *     dispatch) and copied back into the output stagings.
 * Both stagings are double-buffered (chunk k uses buffer k % 2). A file belongs to one task, so
 * its reads and writes stay in order; a round's threads are all joined before the next starts.
 *
 * Stacking and unstacking walk the block in strips one cache line wide (64 bytes: 16 F32 or
 * 8 F64 channels), row by row: each line of the block is written (or read) once and whole, while
 * only the few files of the strip are read (or written), each sequentially, which the hardware
 * prefetcher follows. (A walk by tiles of rows across all files reads hundreds of streams at
 * once and waits for memory on each of them.) */

/* The frames of file f in [off, off+n) that are before its end. */
static gsize valid_frames(const BatchFile *f, gsize off, gsize n)
{
  return off < f->frames ? MIN(n, f->frames - off) : 0;
}

static guint8 *area_get(Area *a, gsize size)
{
  const gsize huge = (gsize) 2 << 20;

  if (size > a->size) {
    g_aligned_free(a->p);
    /* in transparent huge pages where the system allows them (madvise mode): 1/512 of the page
     * faults and TLB entries, which the strided walks over the block and the stagings need */
    a->size = (size + huge - 1) / huge * huge;
    a->p = g_aligned_alloc(a->size, 1, huge);
#ifdef MADV_HUGEPAGE
    madvise(a->p, a->size, MADV_HUGEPAGE);
#endif
  }
  return a->p;
}

/* Channels [fc0, fc0 + nch) of file f are columns [col, col + nch) of the block. */
typedef struct {
  BatchFile *f;
  gint fc0, nch, col;
} Seg;

/* Segments [first, last) lie in one strip of columns. `stereo`: they are whole stereo files that
 * fill the strip (the fast paths); `pcm16`: and all of them are read as 16-bit integers. */
typedef struct {
  guint first, last;
  gboolean stereo, pcm16;
} Strip;

typedef struct {
  Batch *b;
  GPtrArray *group;
  /* channels of the stacked stream: the files' (`used`), then zero ones (see run_stacked()) */
  gint channels, used;
  gsize chunk; /* frames per chunk: a multiple of the block */
  Seg *segs;
  Strip *strips;
  guint nsegs, nstrips;
  guint8 *in[2];      /* input stagings (chunk k in in[k % 2]) */
  guint8 *stacked[2]; /* the stacked chunks (chunk k in stacked[k % 2]), filtered in place */
  /* tasks of the file side: strips [task_strip[i], task_strip[i+1]) and the files that start
   * in them, [task_first[i], task_first[i+1]); each has an output staging in task_out */
  guint ntasks;
  guint *task_strip, *task_first;
  guint8 *task_out;
  gsize task_out_size;
  /* the current round of the file side */
  gboolean fill, write;
  guint8 *fill_area;
  const guint8 *write_area;
  int fill_in;
  gsize fill_off, fill_n, write_off, write_n;
  gint next;              /* the next task to take (atomic) */
  guint pending, helpers; /* tasks not done, helper threads not returned (lock) */
  GMutex lock;
  GCond cond;
} Run;

/* Splits the group's columns into strips one cache line wide. */
static void make_strips(Run *r)
{
  const gint w = 64 / r->b->bps;
  guint nsegs = 0;
  gint col = 0;

  r->segs = g_new(Seg, (gsize) r->channels);
  r->strips = g_new(Strip, (gsize) (r->channels + w - 1) / w);
  r->nstrips = 0;
  for (guint i = 0; i < r->group->len; i++) {
    BatchFile *f = g_ptr_array_index(r->group, i);
    f->strip = (guint) (col / w);
    f->seg0 = nsegs;
    for (gint c = 0; c < f->channels;) {
      gint n = MIN(f->channels - c, w - col % w);
      r->segs[nsegs++] = (Seg){.f = f, .fc0 = c, .nch = n, .col = col};
      c += n;
      col += n;
    }
  }
  r->nsegs = nsegs;
  for (guint s = 0; s < nsegs;) {
    Strip *st = &r->strips[r->nstrips++];
    st->first = s;
    while (s < nsegs && r->segs[s].col / w == r->segs[st->first].col / w)
      s++;
    st->last = s;
    st->stereo = st->last - st->first == (guint) w / 2;
    st->pcm16 = TRUE;
    for (guint i = st->first; i < st->last; i++) {
      st->stereo = st->stereo && r->segs[i].f->channels == 2 && r->segs[i].nch == 2;
      st->pcm16 = st->pcm16 && r->segs[i].f->pcm16;
    }
    st->pcm16 = st->pcm16 && st->stereo;
  }
}

/* Rows converted at a time by the 16-bit fast path of stacking. */
#define STACK_ROWS 64
/* Rows ahead that the fast paths prefetch: rows are a block width apart (4 KiB for 1024 F32
 * channels), which the hardware prefetchers do not follow. (A prefetch past the block is
 * harmless: it does not fault.) */
#define PREFETCH_ROWS 8

/* The fast paths: a strip of whole stereo files. `d` is the strip's first column in row 0 of the
 * block, C the block's width; the files' stagings at `src`/`dst`, from frame s0. */
#define DEFINE_STRIP(T, SUF)                                                                       \
  static void stack_strip_##SUF(T *d, gsize C, const gint16 *const *src, gsize s0, gsize m)        \
  {                                                                                                \
    enum { FILES = 32 / sizeof(T) };                                                               \
    _Alignas(64) T tmp[FILES][2 * STACK_ROWS];                                                     \
    const T k16 = (T) (1.0 / 32768.0);                                                             \
    for (gsize t0 = 0; t0 < m; t0 += STACK_ROWS) {                                                 \
      const gsize tn = MIN(m - t0, STACK_ROWS);                                                    \
      /* converted a few rows at a time (contiguous, with a constant count: vectorised at -O2),    \
       * then copied a whole line per row */                                                       \
      for (int j = 0; j < FILES; j++) {                                                            \
        const gint16 *p = src[j] + 2 * (s0 + t0);                                                  \
        if (tn == STACK_ROWS)                                                                      \
          for (gsize i = 0; i < 2 * STACK_ROWS; i++)                                               \
            tmp[j][i] = (T) p[i] * k16;                                                            \
        else                                                                                       \
          for (gsize i = 0; i < 2 * tn; i++)                                                       \
            tmp[j][i] = (T) p[i] * k16;                                                            \
      }                                                                                            \
      for (gsize t = 0; t < tn; t++) {                                                             \
        T *row = d + (t0 + t) * C;                                                                 \
        __builtin_prefetch(row + PREFETCH_ROWS * C, 1);                                            \
        _Pragma("GCC unroll 8") for (int j = 0; j < FILES; j++)                                    \
            memcpy(row + 2 * j, &tmp[j][2 * t], 2 * sizeof(T));                                    \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  static void unstack_strip_##SUF(const T *d, gsize C, T *const *dst, gsize s0, gsize m)           \
  {                                                                                                \
    enum { FILES = 32 / sizeof(T) };                                                               \
    T *o[FILES];                                                                                   \
    for (int j = 0; j < FILES; j++)                                                                \
      o[j] = dst[j] + 2 * s0;                                                                      \
    for (gsize t = 0; t < m; t++, d += C) {                                                        \
      __builtin_prefetch(d + PREFETCH_ROWS * C);                                                   \
      _Pragma("GCC unroll 8") for (int j = 0; j < FILES; j++)                                      \
          memcpy(o[j] + 2 * t, d + 2 * j, 2 * sizeof(T));                                          \
    }                                                                                              \
  }
DEFINE_STRIP(float, f32)
DEFINE_STRIP(double, f64)

/* Stacks frames [s0, s0 + m) of the chunk in the input stagings `in` into `block` (m rows of the
 * group's channels), strip by strip. */
static void stack_block(const Run *r, int in, guint8 *block, gsize s0, gsize m)
{
  const gint bps = r->b->bps;
  const gsize C = (gsize) r->channels;

  for (guint s = 0; s < r->nstrips; s++) {
    const Strip *st = &r->strips[s];
    const Seg *seg = r->segs + st->first;
    if (st->pcm16) {
      const gint16 *src[8];
      for (guint j = 0; j < st->last - st->first; j++)
        src[j] = (const gint16 *) seg[j].f->src[in];
      /* the next strip's frames, so that they arrive while this one is copied (each file's are
       * only m * 4 bytes, which the hardware prefetchers do not get going on) */
      if (s + 1 < r->nstrips && r->strips[s + 1].pcm16)
        for (guint i = r->strips[s + 1].first; i < r->strips[s + 1].last; i++)
          for (gsize o = 0; o < m * 4; o += 64)
            __builtin_prefetch(r->segs[i].f->src[in] + s0 * 4 + o);
      if (bps == 4)
        stack_strip_f32((float *) block + seg[0].col, C, src, s0, m);
      else
        stack_strip_f64((double *) block + seg[0].col, C, src, s0, m);
      continue;
    }
    for (gsize t = 0; t < m; t++) {
      for (guint i = 0; i < st->last - st->first; i++) {
        const BatchFile *f = seg[i].f;
        const gsize at = (s0 + t) * (gsize) f->channels + (gsize) seg[i].fc0;
        const gsize to = t * C + (gsize) seg[i].col;
        for (gint c = 0; c < seg[i].nch; c++) {
          double x = f->pcm16   ? ((const gint16 *) f->src[in])[at + c] / 32768.0
                     : bps == 4 ? ((const float *) f->src[in])[at + c]
                                : ((const double *) f->src[in])[at + c];
          if (bps == 4)
            ((float *) block)[to + c] = (float) x; /* exact: x is a float or int16 / 2^15 */
          else
            ((double *) block)[to + c] = x;
        }
      }
    }
  }
}

/* Copies the m frames of file f (not in a stereo strip) from the stacked `block` into `dst`. */
static void unstack_file(const Run *r, const BatchFile *f, guint8 *dst, const guint8 *block,
                         gsize m)
{
  const gsize bps = (gsize) r->b->bps, C = (gsize) r->channels;

  for (const Seg *seg = &r->segs[f->seg0]; seg < r->segs + r->nsegs && seg->f == f; seg++) {
    for (gsize t = 0; t < m; t++)
      memcpy(dst + (t * (gsize) f->channels + (gsize) seg->fc0) * bps,
             block + (t * C + (gsize) seg->col) * bps, (gsize) seg->nch * bps);
  }
}

/* Reads frames [off, off+n) of file f into its input staging in `area` (zeros past its end). A
 * file that fails to read is marked (f->error) and gives zeros from then on. */
static void fill_file(const Batch *b, BatchFile *f, guint8 *area, int in, gsize off, gsize n)
{
  const gsize bpf = (gsize) f->channels * (f->pcm16 ? 2 : (gsize) b->bps);
  guint8 *stage = area + f->in_off;
  gsize valid = f->error == NULL ? valid_frames(f, off, n) : 0, got = valid;

  f->src[in] = stage;
  if (valid > 0 && f->raw) {
    gssize r = fx_decoder_pread_pcm16(f->stream, (gint16 *) stage, off, valid, &f->error);
    got = r > 0 ? (gsize) r : 0;
  } else if (valid > 0 && f->stream != NULL) {
    gssize r = f->pcm16 ? fx_decoder_read_pcm16(f->stream, (gint16 *) stage, valid, &f->error)
                        : fx_decoder_read(f->stream, stage, valid, &f->error);
    got = r > 0 ? (gsize) r : 0;
    if (got < valid && f->error == NULL)
      g_set_error(&f->error, GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE,
                  "cannot decode: the file ended after %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
                  " frames",
                  off + got, f->frames);
  } else if (valid > 0) {
    memcpy(stage, f->data + off * bpf, valid * bpf);
  }
  if (got < n)
    memset(stage + got * bpf, 0, (n - got) * bpf);
}

/* Appends frames [off, off+n) of file f before its end from its output staging in `area`. A file
 * whose output (or input) failed is skipped from then on (f->error). */
static void write_file(const Batch *b, BatchFile *f, const guint8 *data, gsize off, gsize n)
{
  gsize valid = valid_frames(f, off, n);

  if (valid > 0 && f->error == NULL)
    fx_writer_write(f->writer, data, valid, f->channels, b->rate, &f->error);
  /* after its last frames: its output is closed (removed when it failed) and its input released
   * here, on the file side, rather than all at the end of the group on the main thread (the
   * stacking only reads its zero-filled staging from now on) */
  if (valid > 0 && off + valid == f->frames) {
    gboolean keep = f->error == NULL;
    f->clipped = fx_writer_clipped(f->writer);
    f->kept = fx_writer_close(g_steal_pointer(&f->writer), keep, keep ? &f->error : NULL) && keep;
    f->closed = TRUE;
    g_clear_pointer(&f->stream, fx_decoder_free);
    f->raw = FALSE;
  }
}

/* Writes task i's files' frames of the current round's stacked chunk: strip by strip (a stereo
 * strip's files are copied out together, then written), other files one by one; the output
 * staging is the task's own, small enough to stay in cache until the writes copy it. */
static void write_task(Run *r, guint i)
{
  const gint bps = r->b->bps;
  const gsize C = (gsize) r->channels, n = r->write_n;
  guint8 *stage = r->task_out + (gsize) i * r->task_out_size;

  for (guint s = r->task_strip[i]; s < r->task_strip[i + 1]; s++) {
    const Strip *st = &r->strips[s];
    void *dst[8];
    if (!st->stereo)
      continue;
    for (guint j = 0; j < st->last - st->first; j++)
      dst[j] = stage + j * n * 2 * bps;
    if (bps == 4)
      unstack_strip_f32((const float *) r->write_area + r->segs[st->first].col, C,
                        (float *const *) dst, 0, n);
    else
      unstack_strip_f64((const double *) r->write_area + r->segs[st->first].col, C,
                        (double *const *) dst, 0, n);
    for (guint j = 0; j < st->last - st->first; j++)
      write_file(r->b, r->segs[st->first + j].f, dst[j], r->write_off, n);
  }
  for (guint j = r->task_first[i]; j < r->task_first[i + 1]; j++) {
    BatchFile *f = g_ptr_array_index(r->group, j);
    if (r->strips[f->strip].stereo || valid_frames(f, r->write_off, n) == 0 || f->error != NULL)
      continue;
    unstack_file(r, f, stage, r->write_area, n);
    write_file(r->b, f, stage, r->write_off, n);
  }
}

/* Takes tasks of the current round until none is left. */
static void run_tasks(Run *r)
{
  for (;;) {
    guint i = (guint) g_atomic_int_add(&r->next, 1);
    if (i >= r->ntasks)
      return;
    if (r->write)
      write_task(r, i);
    for (guint j = r->task_first[i]; j < r->task_first[i + 1] && r->fill; j++)
      fill_file(r->b, g_ptr_array_index(r->group, j), r->fill_area, r->fill_in, r->fill_off,
                r->fill_n);
    g_mutex_lock(&r->lock);
    if (--r->pending == 0)
      g_cond_broadcast(&r->cond);
    g_mutex_unlock(&r->lock);
  }
}

static void helper(gpointer data, gpointer user_data)
{
  Run *r = data;

  (void) user_data;
  run_tasks(r);
  g_mutex_lock(&r->lock);
  if (--r->helpers == 0)
    g_cond_broadcast(&r->cond);
  g_mutex_unlock(&r->lock);
}

/* Starts a round of the file side on the helper threads: writing chunk `write_chunk` and reading
 * chunk `fill_chunk` (-1: none) of a group of `length` frames. */
static void round_start(Run *r, gssize fill_chunk, gssize write_chunk, gsize length)
{
  guint helpers = r->b->stackers != NULL ? MIN(r->b->jobs - 1, r->ntasks) : 0;

  r->fill = fill_chunk >= 0;
  r->write = write_chunk >= 0;
  if (r->fill) {
    r->fill_off = (gsize) fill_chunk * r->chunk;
    r->fill_n = MIN(length - r->fill_off, r->chunk);
    r->fill_in = (int) (fill_chunk % 2);
    r->fill_area = r->in[r->fill_in];
  }
  if (r->write) {
    r->write_off = (gsize) write_chunk * r->chunk;
    r->write_n = MIN(length - r->write_off, r->chunk);
    r->write_area = r->stacked[write_chunk % 2];
  }
  g_atomic_int_set(&r->next, 0);
  r->pending = r->fill || r->write ? r->ntasks : 0;
  if (r->pending == 0) {
    g_atomic_int_set(&r->next, (gint) r->ntasks);
    helpers = 0;
  }
  r->helpers = helpers; /* the previous round's helpers have all returned */
  for (guint i = 0; i < helpers; i++)
    g_thread_pool_push(r->b->stackers, r, NULL);
}

/* Joins the round: takes the tasks left, then waits for the helpers. */
static void round_finish(Run *r)
{
  run_tasks(r);
  g_mutex_lock(&r->lock);
  while (r->pending > 0 || r->helpers > 0)
    g_cond_wait(&r->cond, &r->lock);
  g_mutex_unlock(&r->lock);
}

/* Pulls one processed block (the push ran it through the chain in this thread, so it is
 * normally there already): the fxchain filters in place, so it is normally `block` itself, else it
 * is copied there. */
static gboolean pull_block(Run *r, guint8 *block, gsize m, GError **error)
{
  Batch *b = r->b;
  GstElement *sink = fx_feeder_get(b->engine, "sink");
  const gsize size = m * (gsize) r->channels * (gsize) b->bps;
  GstSample *sample = NULL;
  GstMapInfo map;
  GstBuffer *buf;

  sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), GST_SECOND);
  if (sample == NULL) {
    if (!fx_feeder_failed(b->engine, error))
      g_set_error_literal(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
                          "the chain did not return the block");
    return FALSE;
  }
  buf = gst_sample_get_buffer(sample);
  if (gst_buffer_get_size(buf) != size) {
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
                "the chain returned %" G_GSIZE_FORMAT " bytes for a block of %" G_GSIZE_FORMAT,
                gst_buffer_get_size(buf), size);
    gst_sample_unref(sample);
    return FALSE;
  }
  gst_buffer_map(buf, &map, GST_MAP_READ);
  if (map.data != block)
    memcpy(block, map.data, size);
  gst_buffer_unmap(buf, &map);
  gst_sample_unref(sample);
  return TRUE;
}

/* Frames per block of the stacked run. FX_BLOCK_FRAMES (as `process`) unless every cascade of
 * the chain runs on the CPU: the CPU kernels give the same bits for any split of a stream into
 * calls under 8192 frames (media.h), so there a block is cut to about 1 MiB (at least 256
 * frames; a power of two, so a divisor of FX_BLOCK_FRAMES), which the cascades filter in cache:
 * a wide stack of files in blocks of 4096 frames (16 MiB for 1024 channels) is filtered at
 * memory speed. The backend is known once the stream's caps reached the fxchain. */
static gsize block_frames(const Batch *b, gint channels)
{
  gchar *backend = NULL;
  gboolean cpu = TRUE;
  gsize frames = FX_BLOCK_FRAMES;

  g_object_get(fx_feeder_get(b->engine, "fx"), "backend", &backend, NULL);
  if (backend == NULL || *backend == '\0') {
    cpu = FALSE;
  } else {
    gchar **each = g_strsplit(backend, ",", -1);
    for (gchar **p = each; *p != NULL; p++)
      if (!g_str_has_prefix(g_strstrip(*p), "cpu"))
        cpu = FALSE;
    g_strfreev(each);
  }
  g_free(backend);
  while (cpu && frames > 256 && frames * channels * b->bps > (1u << 20))
    frames /= 2;
  return frames;
}

/* Adds a finished run (a group or one file) to the summary: the engine's dispatches, its
 * backend (the first run's), the blocks pushed and their largest length. */
static void count_run(Batch *b, guint64 nblocks, gint block_frames)
{
  guint64 dispatches = 0;
  gchar *backend = NULL;

  fx_tool_get_u64(fx_feeder_get(b->engine, "fx"), "dispatches", &dispatches);
  g_object_get(fx_feeder_get(b->engine, "fx"), "backend", &backend, NULL);
  if (backend != NULL && b->backend == NULL)
    b->backend = g_steal_pointer(&backend);
  g_free(backend);
  b->dispatches += dispatches;
  b->blocks += nblocks;
  b->block_frames = MAX(b->block_frames, block_frames);
  b->groups++;
}

static gboolean run_stacked(Batch *b, GPtrArray *group, GError **error)
{
  Run r = {.b = b, .group = group};
  gsize length = 0, nchunks, nblocks = 0, sub, in_size = 0;
  GstCaps *caps;
  gint widest = 0;
  gboolean ok = FALSE;

  for (guint i = 0; i < group->len; i++) {
    BatchFile *f = g_ptr_array_index(group, i);
    r.used += f->channels;
    length = MAX(length, f->frames);
  }
  if (length == 0)
    return TRUE;
  /* a few zero channels after the files' where a row of the block would be a power of two of
   * bytes (512 stereo files: 4 KiB), which the kernels walk at about 2/3 of their speed
   * (cascade.h); the zeros filter to zeros and are never written out */
  r.channels = fx_cascade_padded_channels(r.used, b->bps);
  caps = gst_caps_new_simple("audio/x-raw", "format", G_TYPE_STRING, b->opts.format, "layout",
                             G_TYPE_STRING, "interleaved", "rate", G_TYPE_INT, b->rate, "channels",
                             G_TYPE_INT, r.channels, "channel-mask", GST_TYPE_BITMASK, (guint64) 0,
                             NULL);
  if (!fx_feeder_start(b->engine, caps, error)) {
    gst_caps_unref(caps);
    return FALSE;
  }
  gst_caps_unref(caps);
  sub = block_frames(b, r.channels);
  r.chunk = MAX(sub, CHUNK_FRAMES);
  for (guint i = 0; i < group->len; i++) {
    BatchFile *f = g_ptr_array_index(group, i);
    f->in_off = in_size;
    in_size += r.chunk * f->channels * (f->pcm16 ? 2 : (gsize) b->bps);
    widest = MAX(widest, f->channels);
  }
  nchunks = (length + r.chunk - 1) / r.chunk;
  make_strips(&r);
  /* tasks of about equal numbers of strips, a few per thread so that they even out */
  r.ntasks = MIN(r.nstrips, 4 * b->jobs);
  r.task_strip = g_new(guint, r.ntasks + 1);
  r.task_first = g_new(guint, r.ntasks + 1);
  for (guint i = 0, j = 0; i <= r.ntasks; i++) {
    r.task_strip[i] = (guint) ((guint64) r.nstrips * i / r.ntasks);
    while (j < group->len && ((BatchFile *) g_ptr_array_index(group, j))->strip < r.task_strip[i])
      j++;
    r.task_first[i] = i == r.ntasks ? group->len : j;
  }
  r.task_out_size = r.chunk * b->bps * MAX(64 / b->bps, widest);
  r.task_out = area_get(&b->areas[0], r.ntasks * r.task_out_size);
  for (int i = 0; i < 2; i++) {
    r.in[i] = area_get(&b->areas[1 + i], in_size);
    r.stacked[i] = area_get(&b->areas[3 + i], r.chunk * r.channels * b->bps);
    for (gsize t = 0; t < r.chunk && r.used < r.channels; t++)
      memset(r.stacked[i] + (t * r.channels + r.used) * b->bps, 0,
             (gsize) (r.channels - r.used) * b->bps);
  }
  g_mutex_init(&r.lock);
  g_cond_init(&r.cond);
  /* Each block is stacked into its rows of the chunk, runs through the fxchain in this thread
   * (FxFeeder; in place) and waits in the appsink until pulled. */
  round_start(&r, 0, -1, length);
  round_finish(&r);
  for (gsize k = 0; k < nchunks; k++) {
    gsize off = k * r.chunk, n = MIN(length - off, r.chunk);
    gboolean pushed = TRUE;
    round_start(&r, k + 1 < nchunks ? (gssize) k + 1 : -1, (gssize) k - 1, length);
    for (gsize s0 = 0; s0 < n && pushed; s0 += sub) {
      gsize m = MIN(n - s0, sub), size = m * r.channels * b->bps;
      guint8 *block = r.stacked[k % 2] + s0 * r.channels * b->bps;
      GstBuffer *buf;
      stack_block(&r, (int) (k % 2), block, s0, m);
      buf = gst_buffer_new_wrapped_full(0, block, size, 0, size, NULL, NULL);
      fx_media_stamp(buf, off + s0, m, b->rate);
      pushed = fx_feeder_push(b->engine, buf, error) && pull_block(&r, block, m, error);
      nblocks++;
    }
    round_finish(&r);
    if (!pushed)
      goto done;
    fx_progress_update(&b->progress,
                       (b->processed + (double) group->len * (k + 1) / nchunks) / b->total,
                       "filtering");
  }
  round_start(&r, -1, (gssize) nchunks - 1, length);
  round_finish(&r);
  if (!fx_feeder_finish(b->engine, &b->warnings, error))
    goto done;
  count_run(b, nblocks, (gint) sub);
  ok = TRUE;

done:
  fx_feeder_stop(b->engine);
  g_mutex_clear(&r.lock);
  g_cond_clear(&r.cond);
  g_free(r.task_first);
  g_free(r.task_strip);
  g_free(r.segs);
  g_free(r.strips);
  return ok;
}

/* ---------------------------------------------------------------------------------------- */
/* The file-by-file run                                                                      */

/* Runs file f alone through the engine, exactly as `process` runs it: its decoder's caps, blocks
 * of FX_BLOCK_FRAMES frames with the same time stamps, its output written as the chain gives it
 * (so a tail rendered at EOS, a look-ahead flushed at EOS, audio held until EOS all belong to
 * this file and follow its own end). */
static gboolean run_file(Batch *b, BatchFile *f, GError **error)
{
  GstAppSink *sink = GST_APP_SINK(fx_feeder_get(b->engine, "sink"));
  const gsize bpf = (gsize) f->channels * (gsize) b->bps;
  guint64 nblocks = 0;
  gboolean ok = FALSE;

  if (!fx_feeder_start(b->engine, f->caps, error))
    goto done;
  for (gsize off = 0; off < f->frames; off += FX_BLOCK_FRAMES) {
    gsize m = MIN((gsize) FX_BLOCK_FRAMES, f->frames - off);
    GstBuffer *buf = gst_buffer_new_allocate(NULL, m * bpf, NULL);
    GstMapInfo map;
    gssize got = (gssize) m;

    gst_buffer_map(buf, &map, GST_MAP_WRITE);
    if (f->stream != NULL)
      got = fx_decoder_read(f->stream, map.data, m, error);
    else
      memcpy(map.data, f->data + off * bpf, m * bpf);
    gst_buffer_unmap(buf, &map);
    if (got != (gssize) m) {
      gst_buffer_unref(buf);
      if (got >= 0)
        g_set_error(error, GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE,
                    "cannot decode: the file ended after %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
                    " frames",
                    off + (gsize) got, f->frames);
      goto done;
    }
    fx_media_stamp(buf, off, m, b->rate);
    if (!fx_feeder_push(b->engine, buf, error) || !fx_media_drain(sink, f->writer, error))
      goto done;
    nblocks++;
  }
  if (!fx_feeder_finish(b->engine, &b->warnings, error) || !fx_media_drain(sink, f->writer, error))
    goto done;
  count_run(b, nblocks, FX_BLOCK_FRAMES);
  ok = TRUE;

done:
  fx_feeder_stop(b->engine);
  return ok;
}

/* ---------------------------------------------------------------------------------------- */
/* Worker threads: decoding is per file, so it runs on --jobs threads (each with its own reused
 * decoder); the stacked run is one stream on the main thread, beside its file side on the
 * `stackers` (run_stacked()). Results are consumed in file order, so
 * messages, groups and the batch rate do not depend on the threads' timing. */

static void worker(gpointer data, gpointer user_data)
{
  BatchFile *f = data;
  Workers *w = user_data;
  GError *err = NULL;

  FxDecoder *dec = g_async_queue_try_pop(w->decoders);
  if (dec == NULL)
    dec = fx_decoder_new(&w->b->opts, &err);
  if (dec != NULL) {
    read_file(w, dec, f, &err);
    if (f->stream != dec) /* a streamed file keeps its decoder */
      g_async_queue_push(w->decoders, dec);
  }
  g_mutex_lock(&w->lock);
  f->error = err;
  f->done = TRUE;
  if (w->waiting > 0)
    g_cond_broadcast(&w->cond);
  g_mutex_unlock(&w->lock);
}

static void submit(Workers *w, BatchFile *f)
{
  f->done = FALSE;
  g_thread_pool_push(w->pool, f, NULL);
}

/* Waits until file f (the next to consume) is decoded. */
static void wait_done(Workers *w, BatchFile *f)
{
  g_mutex_lock(&w->lock);
  w->consumed = f->index;
  if (w->waiting > 0)
    g_cond_broadcast(&w->cond); /* workers waiting for their turn */
  w->waiting++;
  while (!f->done)
    g_cond_wait(&w->cond, &w->lock);
  w->waiting--;
  g_mutex_unlock(&w->lock);
}

/* Runs a group, writing its files; frees their data. */
static void flush_group(Batch *b, GPtrArray *group)
{
  GError *error = NULL;
  gboolean ran;

  if (group->len == 0)
    return;
  fx_progress_update(&b->progress, (double) b->processed / b->total, "filtering");
  for (guint i = 0; i < group->len; i++) {
    BatchFile *f = g_ptr_array_index(group, i);
    f->writer = fx_writer_new(f->out, &b->opts, f->source);
    f->clipped = 0;
  }
  ran = b->per_file ? run_file(b, g_ptr_array_index(group, 0), &error)
                    : run_stacked(b, group, &error);
  for (guint i = 0; i < group->len; i++) {
    BatchFile *f = g_ptr_array_index(group, i);
    gboolean keep = ran && f->error == NULL;
    /* a file that failed (or a group that did) leaves no partial output */
    if (f->closed) {
      keep = keep && f->kept;
      if (f->kept && !keep)
        g_unlink(f->out);
    } else {
      f->clipped = fx_writer_clipped(f->writer);
      if (!fx_writer_close(g_steal_pointer(&f->writer), keep, keep ? &f->error : NULL))
        keep = FALSE;
    }
    f->closed = f->kept = FALSE;
    if (!ran) {
      fail_file(b, f->path, error->message);
    } else if (!keep) {
      fail_file(b, f->path, f->error != NULL ? f->error->message : "cannot write");
      g_clear_error(&f->error);
    } else if (f->clipped > 0) {
      /* as `process`: a warning, or with --clip-error a failed file whose output is kept */
      gchar *msg = fx_media_clipped_message(&b->opts, f->clipped);
      if (b->opts.clip_error) {
        fail_file(b, f->out, msg);
      } else {
        fx_progress_done(&b->progress);
        fx_media_report(f->out, msg);
        b->written++;
      }
      g_free(msg);
    } else {
      b->written++;
    }
    b->processed++;
    batch_file_free_data(f);
  }
  g_clear_error(&error);
  g_ptr_array_set_size(group, 0);
}

/* A file without frames (a valid empty input): its output is a valid empty file, as `process`
 * writes it, without a group. */
static void write_empty(Batch *b, BatchFile *f)
{
  FxWriter *w = fx_writer_new(f->out, &b->opts, f->source);
  GError *error = NULL;

  if (fx_writer_write(w, NULL, 0, f->channels, b->rate, &error) &&
      fx_writer_close(g_steal_pointer(&w), TRUE, &error)) {
    b->written++;
  } else {
    fx_writer_close(w, FALSE, NULL);
    fail_file(b, f->path, error->message);
    g_clear_error(&error);
  }
  b->processed++;
  batch_file_free_data(f);
}

/* ---------------------------------------------------------------------------------------- */

/* Descriptors open now (those below 4096: the program's own are the first ones). */
static guint descriptors_in_use(rlim_t limit)
{
  guint used = 0;

  for (int fd = 0; fd < (int) MIN(limit, 4096); fd++)
    if (fcntl(fd, F_GETFD) != -1)
      used++;
  return used;
}

/* Sizes the run to the open-file limit, beside the descriptors already open (the engine's, the
 * standard streams): each file submitted to the workers holds at most one (its input, while it
 * is decoded or, streamed, until its group ends), and each worker's GStreamer decoding pipelines
 * hold DECODER_FDS when a file needs them; each file of a running group holds its output, and a
 * streamed one its input. `window`: how many files are submitted ahead (at least 1); `group_fds`:
 * the descriptors a group may hold (at least 2, one streamed file). The window takes at most
 * half of what is left, so that groups stay wide; the group at most 4096 (2048 streamed files). */
#define DECODER_FDS 4
#define FDS_SLACK 16 /* GStreamer loading a plugin, libsndfile probing a file, ... */
static void plan_descriptors(rlim_t limit, guint jobs, guint *window, guint *group_fds)
{
  const guint used = descriptors_in_use(limit);
  const rlim_t cap = 1u << 20;
  const guint avail = (guint) MAX(8, (gint64) MIN(limit, cap) - (gint64) used - (gint64) FDS_SLACK);
  guint w = 2 * jobs + FILES_AHEAD;

  while (w > 1 && w + DECODER_FDS * MIN(jobs, w) > avail / 2)
    w--;
  *window = w;
  *group_fds = CLAMP(avail - MIN(avail - 2, w + DECODER_FDS * MIN(jobs, w)), 2, 4096);
}

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

/* DIR/<name>, with the extension replaced by `ext` when given; <name> is the input's name, or
 * its path below the directory it was found in (`rel`, input folders). */
static gchar *output_path(const char *dir, const char *path, const char *rel, const char *ext)
{
  gchar *base = rel != NULL ? g_strdup(rel) : g_path_get_basename(path), *out;

  if (ext != NULL) {
    char *dot = strrchr(base, '.');
    char *slash = strrchr(base, '/');
    char *name = slash != NULL ? slash + 1 : base;
    if (dot != NULL && dot > name)
      *dot = '\0';
    gchar *named = g_strdup_printf("%s.%s", base, ext[0] == '.' ? ext + 1 : ext);
    g_free(base);
    base = named;
  }
  out = g_build_filename(dir, base, NULL);
  g_free(base);
  return out;
}

/* ---------------------------------------------------------------------------------------- */
/* Input folders                                                                             */

/* The files of the directories among the inputs: those whose extension is picked (--input-ext,
 * default: what the decoders read, fx_media_input_extensions()), at the top of each directory,
 * or in its whole tree with -r, where they keep their path below it in DIR. Names starting with
 * '.' are skipped (hidden files, and the temporaries of outputs being written); so are -o DIR
 * itself when it lies inside an input tree (its outputs are never taken as inputs), symbolic
 * links to directories (links to files are taken) and a directory already walked (a bind mount
 * of its own tree). A directory that cannot be read
 * is reported and counts as a failure; the others are still processed. */
typedef struct {
  GPtrArray *list;     /* the inputs (paths owned by `owned` or argv) */
  GPtrArray *owned;    /* the paths found here (g_free) */
  GHashTable *rel;     /* path -> its name below its input directory (in `owned`) */
  GHashTable *visited; /* directories walked, by fx_media_file_key() */
  gchar **exts;        /* picked extensions, lower case without the dot */
  gchar *outdir_key;   /* -o DIR's key when it exists */
  gboolean recursive;
  guint failed;
} Walk;

static gboolean extension_picked(const Walk *w, const char *name)
{
  const char *dot = strrchr(name, '.');
  gboolean picked = FALSE;

  if (dot == NULL || dot == name)
    return FALSE;
  gchar *ext = g_ascii_strdown(dot + 1, -1);
  picked = g_strv_contains((const char *const *) w->exts, ext);
  g_free(ext);
  return picked;
}

static void walk_dir(Walk *w, const char *dir, const char *rel, gboolean top)
{
  gchar *key = fx_media_file_key(dir);
  GError *err = NULL;
  GPtrArray *names;
  GDir *d;
  const char *name;

  if (key == NULL || g_hash_table_contains(w->visited, key) ||
      (!top && w->outdir_key != NULL && g_str_equal(key, w->outdir_key))) {
    g_free(key);
    return;
  }
  g_hash_table_add(w->visited, key);
  d = g_dir_open(dir, 0, &err);
  if (d == NULL) {
    fx_media_report(dir, err->message);
    g_error_free(err);
    w->failed++;
    return;
  }
  names = g_ptr_array_new_with_free_func(g_free);
  while ((name = g_dir_read_name(d)) != NULL)
    if (name[0] != '.')
      g_ptr_array_add(names, g_strdup(name));
  g_dir_close(d);
  g_ptr_array_sort(names, compare_paths);
  for (guint i = 0; i < names->len; i++) {
    const char *n = g_ptr_array_index(names, i);
    gchar *path = g_build_filename(dir, n, NULL);
    gchar *sub = rel != NULL ? g_build_filename(rel, n, NULL) : g_strdup(n);
    if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
      /* a symbolic link to a directory is not followed (as find and rsync do by default): the
       * tree is mirrored as it is stored, and a link back up the tree cannot loop */
      if (w->recursive && !g_file_test(path, G_FILE_TEST_IS_SYMLINK))
        walk_dir(w, path, sub, FALSE);
      g_free(path);
      g_free(sub);
    } else if (extension_picked(w, n)) {
      g_ptr_array_add(w->owned, path);
      g_ptr_array_add(w->owned, sub);
      g_ptr_array_add(w->list, path);
      g_hash_table_insert(w->rel, path, sub);
    } else {
      g_free(path);
      g_free(sub);
    }
  }
  g_ptr_array_unref(names);
}

int fx_cmd_batch(int argc, char **argv)
{
  gchar *chain = NULL, *device = NULL, *precision = NULL, *format = NULL, *outdir = NULL;
  gchar *shard = NULL, *ext = NULL, *files_from = NULL, *listed = NULL;
  gchar *normalize = NULL, *true_peak = NULL;
  gchar *chain_file = NULL, *input_ext = NULL;
  gchar *bits = NULL, *dither = NULL;
  gboolean recursive = FALSE, clip_error = FALSE;
  Walk walk = {0};
  gchar **listed_lines = NULL;
  gchar **files = NULL;
  gint rate = 0, memory = DEFAULT_MEMORY_MIB, jobs = 0;
  gboolean quiet = FALSE;
  const GOptionEntry entries[] = {
      {"chain", 'c', 0, G_OPTION_ARG_STRING, &chain,
       "The chain in gst-launch syntax, as fxchain's `chain` (required; with stages that are "
       "not per-channel causal, e.g. tails or look-ahead, the files run one by one)",
       "DESC"},
      FX_TOOL_CHAIN_FILE_ENTRY(chain_file),
      {"output-dir", 'o', 0, G_OPTION_ARG_FILENAME, &outdir,
       "Directory for the outputs, created if missing (required)", "DIR"},
      {"recursive", 'r', 0, G_OPTION_ARG_NONE, &recursive,
       "Take the files of input directories' whole trees, mirrored under DIR (default: the files "
       "at the top of each directory)",
       NULL},
      {"input-ext", 'i', 0, G_OPTION_ARG_STRING, &input_ext,
       "The extensions of the files taken from input directories, e.g. wav,flac (default: every "
       "extension the decoders read)",
       "LIST"},
      {"shard", 's', 0, G_OPTION_ARG_STRING, &shard,
       "Process only shard K of N: the files whose index i in the sorted list has i % N == K-1",
       "K/N"},
      {"files-from", 'l', 0, G_OPTION_ARG_FILENAME, &files_from,
       "Also read input files from LIST, one path per line (\"-\": standard input), for corpora "
       "too large for a command line",
       "LIST"},
      {"rate", 0, 0, G_OPTION_ARG_INT, &rate,
       "Resample every file to R Hz, 1 to 768000 (default: the first file's rate; other rates are "
       "refused)",
       "R"},
      {"memory", 'm', 0, G_OPTION_ARG_INT, &memory,
       "Decoded audio per group, in MiB (default 1024): files are processed in groups of at "
       "most this size (a larger file is a group of its own); integer PCM that libsndfile reads "
       "is streamed, anything else is held in memory while its group runs (plus up to 2 files "
       "per job decoded ahead)",
       "MIB"},
      {"jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
       "Threads that decode files and read and write them beside the filtering (default: the "
       "number of processors); the stacking and filtering are one stream",
       "N"},
      {"ext", 'e', 0, G_OPTION_ARG_STRING, &ext,
       "Write the outputs with this extension (wav, flac, ogg, opus, mp3, aiff, ...) instead of "
       "the input's",
       "EXT"},
      {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
       "Where the cascades run: auto (default), cpu or cuda", "D"},
      {"precision", 'p', 0, G_OPTION_ARG_STRING, &precision,
       "Arithmetic for F32 streams: auto (default), single or double", "P"},
      {"format", 'f', 0, G_OPTION_ARG_STRING, &format,
       "Processing sample format of the chain: F32LE (default) or F64LE (the outputs' samples "
       "are --bits)",
       "F"},
      FX_MEDIA_OUTPUT_ENTRIES(bits, dither, clip_error),
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No summary line and no progress bar", NULL},
      {"normalize", 0, 0, G_OPTION_ARG_STRING, &normalize,
       "Normalise each file's integrated loudness (EBU R128) to L LUFS after the chain, e.g. "
       "-16LUFS (fxnormalize mode=lufs: the files run one by one)",
       "L"},
      {"true-peak", 0, 0, G_OPTION_ARG_STRING, &true_peak,
       "With --normalize: the true-peak ceiling in dBTP (default -1); the gain gives way to it",
       "TP"},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, NULL},
      {NULL, 0, 0, 0, NULL, NULL, NULL},
  };
  GOptionContext *ctx = g_option_context_new("-o DIR FILE|DIR...");
  Batch b = {0};
  GPtrArray *list = NULL, *group = NULL;
  GHashTable *outputs = NULL, *inputs = NULL;
  BatchFile *bf = NULL;
  Workers workers = {0};
  GError *error = NULL;
  guint k = 1, n = 1, nsel = 0;
  gsize budget, held = 0;
  guint fds = 0, window, group_fds;
  struct rlimit files_limit = {1024, 1024};
  int status;

  g_set_prgname("gst-fx batch");
  g_option_context_set_summary(
      ctx,
      "Runs many files through one fused plan: the channels of all files are stacked into one\n"
      "stream, so each block of frames is one dispatch for all files together (one launch on a\n"
      "GPU). Writes DIR/<name of FILE> in the input's format and sample encoding (or --ext,\n"
      "--bits; dither, clipping report and tags as `process` does them), identical to\n"
      "`gst-fx process FILE DIR/<name>` with the same options (a chain with stages that are not\n"
      "per-channel causal, e.g. a tail or a look-ahead, runs the files one by one, each as\n"
      "`process` runs it). Prints one summary line (files, groups, blocks, dispatches). A file\n"
      "that cannot be read, decoded or written is reported on stderr and the others are\n"
      "processed. An input directory gives its files (--input-ext; with -r its whole tree,\n"
      "mirrored under DIR: in/a/x.wav is written to DIR/a/x.wav); DIR inside an input tree is\n"
      "skipped. Exit status: 0 all files written, 1 some failed, 2 bad usage.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!fx_tool_parse_options(ctx, &argc, &argv)) {
    status = FX_EXIT_USAGE;
    goto out;
  }
  status = fx_tool_chain_from_file(ctx, &chain, chain_file,
                                   files_from != NULL && g_str_equal(files_from, "-"));
  if (status != FX_EXIT_OK)
    goto out;
  status = fx_tool_add_normalize(ctx, &chain, normalize, true_peak);
  if (status != FX_EXIT_OK)
    goto out;
  b.opts.chain = chain != NULL ? g_strstrip(chain) : NULL;
  b.opts.device = device;
  b.opts.precision = precision;
  b.opts.rate = rate;
  b.opts.clip_error = clip_error;
  status = fx_media_check_options(ctx, &b.opts, format, bits, dither);
  if (status != FX_EXIT_OK)
    goto out;
  if (outdir == NULL || *outdir == '\0') {
    status = fx_tool_usage_error(ctx, "-o DIR is required");
    goto out;
  }
  if (files_from != NULL) {
    GError *err = NULL;
    gboolean ok;
    if (g_str_equal(files_from, "-")) {
      GIOChannel *in = g_io_channel_unix_new(0);
      gsize len = 0;
      ok = g_io_channel_read_to_end(in, &listed, &len, &err) == G_IO_STATUS_NORMAL;
      g_io_channel_unref(in);
    } else {
      ok = g_file_get_contents(files_from, &listed, NULL, &err);
    }
    if (!ok) {
      fx_media_report(files_from, err != NULL ? err->message : "cannot read");
      g_clear_error(&err);
      status = FX_EXIT_FAILURE;
      goto out;
    }
    listed_lines = g_strsplit(listed, "\n", -1);
  }
  if ((files == NULL || files[0] == NULL) && listed_lines == NULL) {
    status = fx_tool_usage_error(ctx, "no input files");
    goto out;
  }
  if (shard != NULL && !parse_shard(shard, &k, &n)) {
    status = fx_tool_usage_error(ctx, "--shard must be K/N with 1 <= K <= N, not \"%s\"", shard);
    goto out;
  }
  if (jobs < 0 || jobs > 256) {
    status = fx_tool_usage_error(ctx, "--jobs must be from 1 to 256");
    goto out;
  }
  if (jobs == 0)
    jobs = (gint) CLAMP(g_get_num_processors(), 1, 64);
  if (memory < 1) {
    status = fx_tool_usage_error(ctx, "--memory must be at least 1 MiB");
    goto out;
  }
  if (ext != NULL) {
    gchar *probe = g_strdup_printf("x.%s", ext[0] == '.' ? ext + 1 : ext);
    gboolean known = fx_media_output_supported(probe);
    g_free(probe);
    if (!known) {
      gchar *all = fx_media_output_extensions();
      status = fx_tool_usage_error(ctx, "--ext must be one of %s, not \"%s\"", all, ext);
      g_free(all);
      goto out;
    }
    gchar *bits_error = fx_media_output_bits_error("x", ext[0] == '.' ? ext + 1 : ext, b.opts.bits);
    if (bits_error != NULL) {
      status = fx_tool_usage_error(ctx, "%s", bits_error);
      g_free(bits_error);
      goto out;
    }
  }

  /* The shard's files, and their outputs (two inputs must not write the same output). */
  list = g_ptr_array_new();
  walk.list = list;
  walk.owned = g_ptr_array_new_with_free_func(g_free);
  walk.rel = g_hash_table_new(g_str_hash, g_str_equal);
  walk.visited = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  walk.recursive = recursive;
  walk.outdir_key = fx_media_file_key(outdir);
  if (input_ext != NULL) {
    gchar *lower = g_ascii_strdown(input_ext, -1);
    walk.exts = g_strsplit_set(lower, ",", -1);
    g_free(lower);
    for (gchar **e = walk.exts; *e != NULL; e++) {
      g_strstrip(*e);
      if (**e == '.')
        memmove(*e, *e + 1, strlen(*e));
      if (**e == '\0') {
        status = fx_tool_usage_error(ctx, "--input-ext must be a list like wav,flac, not \"%s\"",
                                     input_ext);
        goto out;
      }
    }
  } else {
    walk.exts = fx_media_input_extensions();
  }
  for (gchar **p = files; p != NULL && *p != NULL; p++) {
    if (g_file_test(*p, G_FILE_TEST_IS_DIR))
      walk_dir(&walk, *p, NULL, TRUE);
    else
      g_ptr_array_add(list, *p);
  }
  for (gchar **p = listed_lines; p != NULL && *p != NULL; p++) {
    gsize len = strlen(*p);
    if (len > 0 && (*p)[len - 1] == '\r') /* CRLF lists */
      (*p)[len - 1] = '\0';
    if (**p != '\0' && g_file_test(*p, G_FILE_TEST_IS_DIR))
      walk_dir(&walk, *p, NULL, TRUE);
    else if (**p != '\0')
      g_ptr_array_add(list, *p);
  }
  if (list->len == 0) {
    fprintf(stderr, "gst-fx: no input files: the directories hold no file with the extensions "
                    "taken (--input-ext; -r for their subdirectories)\n");
    status = FX_EXIT_FAILURE;
    goto out;
  }
  g_ptr_array_sort(list, compare_paths);
  outputs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < list->len; i++) {
    const char *path = g_ptr_array_index(list, i);
    gchar *out = output_path(outdir, path, g_hash_table_lookup(walk.rel, path), ext);
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
  /* as many descriptors as the hard limit allows (see plan_descriptors()) */
  if (getrlimit(RLIMIT_NOFILE, &files_limit) == 0) {
    files_limit.rlim_cur = files_limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files_limit);
    getrlimit(RLIMIT_NOFILE, &files_limit);
  }
  fx_progress_init(&b.progress);
  if (quiet)
    b.progress.enabled = FALSE;
  b.outdir = outdir;
  b.ext = ext;
  b.rate = rate;
  b.bps = g_str_equal(b.opts.format, "F64LE") ? 8 : 4;
  b.engine = fx_feeder_new("fxchain name=fx ! appsink name=sink sync=false", &error);
  if (b.engine == NULL) {
    fx_tool_print_error(error->message);
    status = FX_EXIT_FAILURE;
    goto out;
  }
  fx_media_setup_chain(fx_feeder_get(b.engine, "fx"), &b.opts);
  if (!check_chain(&b, &error)) {
    fx_tool_print_error(error->message);
    status = FX_EXIT_FAILURE;
    goto out;
  }
  plan_descriptors(files_limit.rlim_cur, (guint) jobs, &window, &group_fds);
  for (guint i = 0; i < list->len; i++)
    if (i % n == k - 1)
      nsel++;
  b.total = MAX(nsel, 1);
  /* every input of the list (of every shard), by device and inode: no output may replace one,
   * whatever path or link leads to it */
  inputs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < list->len; i++) {
    gchar *key = fx_media_file_key(g_ptr_array_index(list, i));
    if (key != NULL)
      g_hash_table_add(inputs, key);
  }
  bf = g_new0(BatchFile, MAX(nsel, 1));
  group = g_ptr_array_new();
  budget = (gsize) memory << 20;
  for (guint i = 0, j = 0; i < list->len; i++) {
    if (i % n != k - 1)
      continue;
    BatchFile *f = &bf[j];
    f->index = j++;
    f->path = g_ptr_array_index(list, i);
    const char *rel = g_hash_table_lookup(walk.rel, f->path);
    f->out = output_path(outdir, f->path, rel, ext);
    gboolean known = fx_media_output_supported(f->out);
    gchar *key = fx_media_file_key(f->out);
    gchar *parent = rel != NULL && strchr(rel, '/') != NULL ? g_path_get_dirname(f->out) : NULL;
    if (parent != NULL && g_mkdir_with_parents(parent, 0777) != 0)
      f->skip = "cannot create the directory of its output";
    else if (!known)
      f->skip = "no encoder for this file type (use one of " FX_MEDIA_EXTENSIONS ", or --ext)";
    else if ((f->skip_text = fx_media_output_bits_error(f->out, NULL, b.opts.bits)) != NULL)
      f->skip = f->skip_text; /* with --ext this was a usage error */
    else if (key != NULL && g_hash_table_contains(inputs, key))
      f->skip = "its output would overwrite an input file, by this name, another path or a link "
                "(choose another -o DIR)";
    g_free(key);
    g_free(parent);
  }
  workers.b = &b;
  g_mutex_init(&workers.lock);
  g_cond_init(&workers.cond);
  workers.decoders = g_async_queue_new_full((GDestroyNotify) fx_decoder_free);
  workers.pool = g_thread_pool_new(worker, &workers, jobs, FALSE, NULL);
  b.jobs = (guint) jobs;
  if (jobs > 1)
    b.stackers = g_thread_pool_new(helper, NULL, jobs - 1, FALSE, NULL);
  /* Files are opened up to `window` files ahead of the one being consumed (2 * jobs +
   * FILES_AHEAD where the open-file limit allows), and decoded into memory up to 2 * jobs ahead
   * (wait_turn()). */
  workers.memory_ahead = 2 * (guint) jobs;
  for (guint j = 0, next = 0; j < nsel; j++) {
    BatchFile *f = &bf[j];
    for (; next < nsel && next < j + window; next++) {
      if (bf[next].skip == NULL)
        submit(&workers, &bf[next]);
      else
        bf[next].done = TRUE;
    }
    wait_done(&workers, f);
    fx_progress_update(&b.progress, (double) b.processed / b.total, f->path);
    if (f->skip != NULL || f->error != NULL) {
      fail_file(&b, f->path, f->skip != NULL ? f->skip : f->error->message);
      g_clear_error(&f->error);
      b.processed++;
      continue;
    }
    if (f->warning != NULL) {
      fx_progress_done(&b.progress);
      fprintf(stderr, "gst-fx: warning: %s: %s\n", f->path, f->warning);
    }
    if (b.rate == 0)
      b.rate = f->rate;
    if (f->rate != b.rate) {
      gchar *msg = g_strdup_printf("sample rate %d Hz, but the batch runs at %d Hz (the first "
                                   "file's rate); pass --rate %d to resample",
                                   f->rate, b.rate, b.rate);
      fail_file(&b, f->path, msg);
      g_free(msg);
      batch_file_free_data(f);
      b.processed++;
      continue;
    }
    if (f->frames == 0) {
      write_empty(&b, f);
      continue;
    }
    if (f->nonfinite || b.per_file) {
      GPtrArray *alone = g_ptr_array_new();
      g_ptr_array_add(alone, f);
      flush_group(&b, alone);
      g_ptr_array_unref(alone);
      continue;
    }
    /* while its group runs, a file holds its output open, and a streamed one its input too */
    guint need = f->stream != NULL ? 2 : 1;
    if (group->len > 0 && (held + f->bytes > budget || fds + need > group_fds)) {
      flush_group(&b, group);
      held = 0;
      fds = 0;
    }
    g_ptr_array_add(group, f);
    held += f->bytes;
    fds += need;
  }
  flush_group(&b, group);
  fx_progress_update(&b.progress, 1.0, "done");
  fx_progress_done(&b.progress);
  fx_tool_print_warnings(b.warnings);
  if (!quiet)
    printf(
        "gst-fx batch: %u of %u files written, %u failed; %u group(s) at %d Hz, %" G_GUINT64_FORMAT
        " blocks of up to %d frames, %" G_GUINT64_FORMAT " dispatches, backend %s\n",
        b.written, nsel, b.failed, b.groups, b.rate, b.blocks,
        b.block_frames > 0 ? b.block_frames : FX_BLOCK_FRAMES, b.dispatches,
        b.backend != NULL ? b.backend : "none");
  status = b.failed > 0 || walk.failed > 0 ? FX_EXIT_FAILURE : FX_EXIT_OK;

out:
  if (b.stackers != NULL)
    g_thread_pool_free(b.stackers, FALSE, TRUE);
  if (workers.pool != NULL) {
    g_thread_pool_free(workers.pool, FALSE, TRUE);
    g_async_queue_unref(workers.decoders);
    g_mutex_clear(&workers.lock);
    g_cond_clear(&workers.cond);
  }
  if (bf != NULL) {
    for (guint i = 0; i < nsel; i++) {
      batch_file_free_data(&bf[i]);
      g_free(bf[i].out);
      g_free(bf[i].skip_text);
      g_free(bf[i].warning);
    }
    g_free(bf);
  }
  if (group != NULL)
    g_ptr_array_unref(group);
  if (list != NULL)
    g_ptr_array_unref(list);
  if (walk.owned != NULL) {
    g_ptr_array_unref(walk.owned);
    g_hash_table_unref(walk.rel);
    g_hash_table_unref(walk.visited);
  }
  g_strfreev(walk.exts);
  g_free(walk.outdir_key);
  g_free(chain_file);
  g_free(input_ext);
  if (outputs != NULL)
    g_hash_table_unref(outputs);
  if (inputs != NULL)
    g_hash_table_unref(inputs);
  fx_feeder_free(b.engine);
  for (guint i = 0; i < G_N_ELEMENTS(b.areas); i++)
    g_aligned_free(b.areas[i].p);
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
  g_strfreev(listed_lines);
  g_free(listed);
  g_free(files_from);
  g_free(normalize);
  g_free(true_peak);
  g_free(bits);
  g_free(dither);
  return status;
}
