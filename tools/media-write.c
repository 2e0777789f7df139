/* gst-fx — encoding: FxWriter writes the output file with libsndfile, in the format of its
 * extension (see media.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "media-private.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------- */
/* Output formats                                                                            */

/* An output extension: libsndfile's major format, and the subtype when the extension fixes it
 * (the lossy codecs: .ogg/.oga Vorbis, .opus Opus, .mp3 MPEG layer III), else 0: the subtype then
 * follows the samples (--bits or the input's). */
typedef struct {
  gchar *ext;
  int major, subtype;
} OutFormat;

static GPtrArray *out_formats; /* OutFormat, built once (output_formats()) */

/* TRUE when libsndfile writes major | subtype with 1 channel (some formats are mono only) or 2. */
static gboolean writable(int format)
{
  for (int channels = 1; channels <= 2; channels++) {
    SF_INFO info = {.samplerate = 48000, .channels = channels, .format = format};
    if (sf_format_check(&info))
      return TRUE;
  }
  return FALSE;
}

static void add_format(GPtrArray *all, const char *ext, int major, int subtype)
{
  OutFormat *f;
  int count = 0;
  gboolean ok = FALSE;

  for (guint i = 0; i < all->len; i++)
    if (g_ascii_strcasecmp(((OutFormat *) g_ptr_array_index(all, i))->ext, ext) == 0)
      return; /* the first major format of an extension keeps it (wav: Microsoft WAV) */
  if (subtype != 0) {
    ok = writable(major | subtype);
  } else {
    sf_command(NULL, SFC_GET_FORMAT_SUBTYPE_COUNT, &count, sizeof count);
    for (int j = 0; j < count && !ok; j++) {
      SF_FORMAT_INFO sub = {.format = j};
      if (sf_command(NULL, SFC_GET_FORMAT_SUBTYPE, &sub, sizeof sub) == 0)
        ok = writable(major | sub.format);
    }
  }
  if (!ok)
    return;
  f = g_new(OutFormat, 1);
  f->ext = g_ascii_strdown(ext, -1);
  f->major = major;
  f->subtype = subtype;
  g_ptr_array_add(all, f);
}

/* Every major format libsndfile writes here, by the extension of its format list, and the other
 * names users give them (aif, wave, snd, ogg, opus, mp3). */
static GPtrArray *output_formats(void)
{
  static gsize once = 0;

  if (g_once_init_enter(&once)) {
    GPtrArray *all = g_ptr_array_new();
    int count = 0;
    /* the lossy codecs first, so that their majors' own extensions (oga, m1a) get them too */
    add_format(all, "ogg", SF_FORMAT_OGG, SF_FORMAT_VORBIS);
    add_format(all, "oga", SF_FORMAT_OGG, SF_FORMAT_VORBIS);
    add_format(all, "opus", SF_FORMAT_OGG, FX_SF_FORMAT_OPUS);
    add_format(all, "mp3", FX_SF_FORMAT_MPEG, FX_SF_FORMAT_MPEG_LAYER_III);
    add_format(all, "m1a", FX_SF_FORMAT_MPEG, FX_SF_FORMAT_MPEG_LAYER_III);
    sf_command(NULL, SFC_GET_FORMAT_MAJOR_COUNT, &count, sizeof count);
    for (int i = 0; i < count; i++) {
      SF_FORMAT_INFO info = {.format = i};
      int major;
      if (sf_command(NULL, SFC_GET_FORMAT_MAJOR, &info, sizeof info) != 0 || info.extension == NULL)
        continue;
      major = info.format & SF_FORMAT_TYPEMASK;
      /* Sound Designer II keeps its header in a resource fork, which libsndfile writes only by
       * file name, never to the descriptor of a temporary */
      if (major != SF_FORMAT_OGG && major != FX_SF_FORMAT_MPEG && major != SF_FORMAT_SD2)
        add_format(all, info.extension, major, 0);
    }
    add_format(all, "aif", SF_FORMAT_AIFF, 0);
    add_format(all, "aiff", SF_FORMAT_AIFF, 0);
    add_format(all, "wave", SF_FORMAT_WAV, 0);
    add_format(all, "snd", SF_FORMAT_AU, 0);
    out_formats = all;
    g_once_init_leave(&once, 1);
  }
  return out_formats;
}

/* The output format of OUT's extension (or of `type`), or NULL. */
static const OutFormat *find_format(const char *path, const char *type)
{
  GPtrArray *all = output_formats();
  const char *ext = type;

  if (ext == NULL) {
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (dot == NULL || (slash != NULL && dot < slash))
      return NULL;
    ext = dot + 1;
  }
  for (guint i = 0; i < all->len; i++) {
    const OutFormat *f = g_ptr_array_index(all, i);
    if (g_ascii_strcasecmp(f->ext, ext) == 0)
      return f;
  }
  return NULL;
}

gboolean fx_media_output_supported(const char *path)
{
  return find_format(path, NULL) != NULL;
}

gchar *fx_media_output_extensions(void)
{
  GPtrArray *all = output_formats();
  GString *s = g_string_new(NULL);

  for (guint i = 0; i < all->len; i++)
    g_string_append_printf(s, "%s%s", i ? ", " : "",
                           ((OutFormat *) g_ptr_array_index(all, i))->ext);
  return g_string_free(s, FALSE);
}

/* ---------------------------------------------------------------------------------------- */
/* Output samples                                                                            */

/* libsndfile's subtype for samples of `bits` (as FxMediaOptions.bits) in `major`, or 0 when the
 * format cannot hold them. 8 bits: signed where the format has it, else unsigned (wav). */
static int subtype_for_bits(int major, gint bits)
{
  int candidates[2] = {0, 0};

  switch (bits) {
  case 8:
    candidates[0] = SF_FORMAT_PCM_S8;
    candidates[1] = SF_FORMAT_PCM_U8;
    break;
  case 16:
    candidates[0] = SF_FORMAT_PCM_16;
    break;
  case 24:
    candidates[0] = SF_FORMAT_PCM_24;
    break;
  case 32:
    candidates[0] = SF_FORMAT_PCM_32;
    break;
  case FX_BITS_F32:
    candidates[0] = SF_FORMAT_FLOAT;
    break;
  case FX_BITS_F64:
    candidates[0] = SF_FORMAT_DOUBLE;
    break;
  default:
    return 0;
  }
  for (int i = 0; i < 2; i++)
    if (candidates[i] != 0 && writable(major | candidates[i]))
      return candidates[i];
  return 0;
}

static const char *bits_name(gint bits)
{
  switch (bits) {
  case 8:
    return "8";
  case 16:
    return "16";
  case 24:
    return "24";
  case 32:
    return "32";
  case FX_BITS_F32:
    return "f32";
  case FX_BITS_F64:
    return "f64";
  default:
    return "?";
  }
}

/* The samples of an output of major format `major` for the input's `src_bits` when --bits is
 * not given: the input's own where the format holds them, else the nearest it holds (float and
 * 32-bit into FLAC: 24-bit), else 0 (a format with none of these: libsndfile's own encoding). */
static gint auto_bits(int major, gint src_bits)
{
  static const gint f32[] = {FX_BITS_F32, FX_BITS_F64, 24, 32, 16, 8, 0};
  static const gint f64[] = {FX_BITS_F64, FX_BITS_F32, 24, 32, 16, 8, 0};
  static const gint i32[] = {32, FX_BITS_F64, 24, FX_BITS_F32, 16, 8, 0};
  static const gint i24[] = {24, 32, FX_BITS_F32, 16, 8, 0};
  static const gint i16[] = {16, 24, 32, FX_BITS_F32, 8, 0};
  static const gint i8[] = {8, 16, 24, 32, FX_BITS_F32, 0};
  const gint *order = src_bits == FX_BITS_F64 ? f64
                      : src_bits == 32        ? i32
                      : src_bits == 24        ? i24
                      : src_bits == 16        ? i16
                      : src_bits == 8         ? i8
                                              : f32;

  for (; *order != 0; order++)
    if (subtype_for_bits(major, *order) != 0)
      return *order;
  return 0;
}

gchar *fx_media_output_bits_error(const char *path, const char *type, gint bits)
{
  const OutFormat *f = find_format(path, type);
  static const gint all[] = {8, 16, 24, 32, FX_BITS_F32, FX_BITS_F64};
  GString *can;

  if (f == NULL || f->subtype != 0 || bits == FX_BITS_AUTO || subtype_for_bits(f->major, bits))
    return NULL;
  can = g_string_new(NULL);
  for (gsize i = 0; i < G_N_ELEMENTS(all); i++)
    if (subtype_for_bits(f->major, all[i]) != 0)
      g_string_append_printf(can, "%s%s", can->len ? ", " : "", bits_name(all[i]));
  gchar *msg = g_strdup_printf("--bits %s: a .%s file cannot hold %s samples (%s%s)",
                               bits_name(bits), f->ext, bits_name(bits),
                               can->len ? "use --bits " : "it holds none of 8 to 32 bits or float",
                               can->str);
  g_string_free(can, TRUE);
  return msg;
}

/* The output is written to a temporary beside OUT (fx_tool_temp_create()), renamed over OUT by
 * fx_writer_close() once libsndfile has closed it: OUT never holds a partial file, and a failed
 * run leaves whatever was there before. OUT "-" is standard output: the temporary is in the
 * temporary directory and is copied to standard output once complete (the header of a wav or flac
 * file is finished at its end, which a pipe cannot seek back to), so a failed run writes nothing
 * there at all. */
struct _FxWriter {
  gchar *path;
  gchar *temp; /* while it is being written */
  int fd;
  gboolean f64;         /* the frames given are F64 (else F32) */
  const OutFormat *out; /* NULL: no encoder for the name */
  gint bits;            /* the file's samples: 8..32 (quantised here), float, or 0 (lossy) */
  fx_dither_t dither;   /* for integer samples */
  fx_quant_rng_t rng;   /* seeded with FX_MEDIA_DITHER_SEED */
  guint64 clipped;      /* integer samples clamped so far */
  double *scratch_f64;  /* an F32 block as doubles, for the quantiser */
  gint32 *scratch_int;  /* the quantised block, left-aligned in 32 bits for sf_write_int() */
  FxSource *src;        /* tags and metadata written at the start (NULL: none) */
  gboolean metadata_written;
  SNDFILE *sf;
  gint channels, rate;
  gboolean to_stdout; /* OUT "-" */
};

/* Samples per quantisation block. */
#define QUANT_BLOCK 16384

FxWriter *fx_writer_new(const char *path, const FxMediaOptions *opts, const FxSource *src)
{
  return fx_writer_new_typed(path, NULL, opts, src);
}

FxWriter *fx_writer_new_typed(const char *path, const char *type, const FxMediaOptions *opts,
                              const FxSource *src)
{
  FxWriter *w = g_new0(FxWriter, 1);
  gint src_bits = src != NULL ? src->bits : FX_BITS_F32;

  w->to_stdout = g_str_equal(path, "-");
  w->path = g_strdup(w->to_stdout ? "standard output" : path);
  w->fd = -1;
  w->f64 = g_str_equal(opts->format, "F64LE");
  /* standard output without a type: wav, what `sox -t wav -` and most readers of a pipe expect */
  w->out = find_format(path, type != NULL ? type : w->to_stdout ? "wav" : NULL);
  if (w->out != NULL && w->out->subtype == 0) {
    w->bits = opts->bits != FX_BITS_AUTO ? opts->bits : auto_bits(w->out->major, src_bits);
    /* the default is SoX's: dither where precision is lost against the input (a float input,
     * or more bits than the output's), and at output widths under 24 bits, where the chain's
     * float result is finer than the output (`--dither none` writes an unchanged 16-bit signal
     * back bit-exact) */
    if (opts->dither != FX_DITHER_AUTO)
      w->dither = (fx_dither_t) opts->dither;
    else
      w->dither = w->bits > 0 && (src_bits < 0 || src_bits > w->bits || w->bits < 24)
                      ? FX_DITHER_TPDF
                      : FX_DITHER_NONE;
  }
  fx_quant_rng_seed(&w->rng, FX_MEDIA_DITHER_SEED);
  if (src != NULL) {
    w->src = g_new(FxSource, 1);
    *w->src = *src;
    for (int i = 0; i < FX_SOURCE_STRINGS; i++)
      w->src->strings[i] = g_strdup(src->strings[i]);
  }
  return w;
}

/* libsndfile's format of the output. */
static int writer_sf_format(const FxWriter *w)
{
  int count = 0;

  if (w->out->subtype != 0)
    return w->out->major | w->out->subtype;
  if (w->bits != 0)
    return w->out->major | subtype_for_bits(w->out->major, w->bits);
  /* none of the PCM or float encodings: libsndfile's first encoding of this format, given floats */
  sf_command(NULL, SFC_GET_FORMAT_SUBTYPE_COUNT, &count, sizeof count);
  for (int j = 0; j < count; j++) {
    SF_FORMAT_INFO sub = {.format = j};
    if (sf_command(NULL, SFC_GET_FORMAT_SUBTYPE, &sub, sizeof sub) == 0 &&
        writable(w->out->major | sub.format))
      return w->out->major | sub.format;
  }
  return w->out->major;
}

/* Tags and metadata chunks of the input, where the output's format has them (libsndfile refuses
 * the others, which is not an error). SF_STR_SOFTWARE names gst-fx when the input names nothing. */
static void write_metadata(FxWriter *w)
{
  const FxSource *src = w->src;
  gboolean software = FALSE;

  for (int i = 0; src != NULL && i < FX_SOURCE_STRINGS; i++) {
    if (src->strings[i] == NULL)
      continue;
    sf_set_string(w->sf, fx_source_string_ids[i], src->strings[i]);
    software |= fx_source_string_ids[i] == SF_STR_SOFTWARE;
  }
  if (!software)
    sf_set_string(w->sf, SF_STR_SOFTWARE, "gst-fx");
  if (src == NULL)
    return;
  /* the size that holds its coding history (libsndfile refuses the 16 KiB of the whole struct) */
  if (src->has_bext)
    sf_command(w->sf, SFC_SET_BROADCAST_INFO, (void *) &src->bext,
               (int) (G_STRUCT_OFFSET(FxBroadcastInfo, coding_history) +
                      MIN(src->bext.coding_history_size, sizeof src->bext.coding_history - 1) + 1));
  if (src->has_cues)
    sf_command(w->sf, SFC_SET_CUE, (void *) &src->cues, sizeof src->cues);
  if (src->has_instrument)
    sf_command(w->sf, SFC_SET_INSTRUMENT, (void *) &src->instrument, sizeof src->instrument);
}

/* Integer output: quantises `n` samples (F32 or F64) to w->bits with dsp/quantize and writes them
 * (left-aligned in 32 bits: libsndfile keeps the top w->bits bits exactly). */
static gboolean write_quantised(FxWriter *w, const void *data, gsize n)
{
  const unsigned shift = 32u - (unsigned) w->bits;

  if (w->scratch_int == NULL) {
    w->scratch_int = g_new(gint32, QUANT_BLOCK);
    if (!w->f64)
      w->scratch_f64 = g_new(double, QUANT_BLOCK);
  }
  for (gsize done = 0; done < n;) {
    gsize m = MIN(n - done, (gsize) QUANT_BLOCK);
    const double *in;
    if (w->f64) {
      in = (const double *) data + done;
    } else {
      const float *f = (const float *) data + done;
      for (gsize i = 0; i < m; i++)
        w->scratch_f64[i] = f[i]; /* exact */
      in = w->scratch_f64;
    }
    w->clipped +=
        fx_quant_f64_to_bits(in, w->scratch_int, m, (unsigned) w->bits, w->dither, &w->rng);
    for (gsize i = 0; i < m; i++)
      w->scratch_int[i] = (gint32) ((guint32) w->scratch_int[i] << shift);
    if (sf_write_int(w->sf, w->scratch_int, (sf_count_t) m) != (sf_count_t) m)
      return FALSE;
    done += m;
  }
  return TRUE;
}

/* Copies the complete output in the temporary `fd` to standard output. */
static gboolean copy_to_stdout(int fd, GError **error)
{
  char buf[65536];
  gssize n;

  if (lseek(fd, 0, SEEK_SET) != 0)
    goto fail;
  while ((n = read(fd, buf, sizeof buf)) != 0) {
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      goto fail;
    for (gssize done = 0; done < n;) {
      gssize m = write(STDOUT_FILENO, buf + done, (gsize) (n - done));
      if (m < 0 && errno == EINTR)
        continue;
      if (m <= 0)
        goto fail;
      done += m;
    }
  }
  return TRUE;

fail:
  g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
              "cannot write standard output: %s", g_strerror(errno));
  return FALSE;
}

gboolean fx_writer_write(FxWriter *w, const void *data, gsize frames, gint channels, gint rate,
                         GError **error)
{
  sf_count_t n;

  if (w->sf == NULL) {
    SF_INFO info = {0};

    if (w->out == NULL) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                  "cannot write %s: no encoder for this file type (use one of %s)", w->path,
                  FX_MEDIA_EXTENSIONS);
      return FALSE;
    }
    info.samplerate = rate;
    info.channels = channels;
    info.format = writer_sf_format(w);
    /* Psion WVE is 8 kHz only, but libsndfile writes that header for any rate */
    if (!sf_format_check(&info) ||
        ((info.format & SF_FORMAT_TYPEMASK) == SF_FORMAT_WVE && rate != 8000)) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                  "cannot write %s: this format cannot hold %d channel(s) at %d Hz", w->path,
                  channels, rate);
      return FALSE;
    }
    if (w->fd < 0 && w->to_stdout) {
      w->fd = fx_tool_spool_create("stdout", &w->temp, error);
      if (w->fd < 0)
        return FALSE;
    } else if (w->fd < 0) {
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
    /* where libsndfile gives back other parameters than asked for (what the header says), a
     * file at the wrong speed is refused */
    if (info.samplerate != rate || info.channels != channels) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                  "cannot write %s: this format holds %d channel(s) at %d Hz only, not %d at %d Hz",
                  w->path, info.channels, info.samplerate, channels, rate);
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
  /* before the first samples (libsndfile takes them only then); an empty output gets none: with
   * no data libsndfile writes a wav whose RIFF size leaves out the data chunk after a LIST */
  if (!w->metadata_written) {
    write_metadata(w);
    w->metadata_written = TRUE;
  }
  if (w->out->subtype == 0 && w->bits > 0)
    n = write_quantised(w, data, frames * (gsize) channels) ? (sf_count_t) frames : -1;
  else
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

guint64 fx_writer_clipped(FxWriter *w)
{
  return w->clipped;
}

const char *fx_writer_name(FxWriter *w)
{
  return w->path;
}

gchar *fx_media_clipped_message(const FxMediaOptions *opts, guint64 clipped)
{
  return g_strdup_printf("clipped %" G_GUINT64_FORMAT " sample%s; lower the gain%s", clipped,
                         clipped == 1 ? "" : "s", opts->clip_error ? " (--clip-error)" : "");
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
  if (w->to_stdout && w->fd >= 0 && keep && ok && w->sf != NULL)
    ok = copy_to_stdout(w->fd, error);
  if (w->fd >= 0 && close(w->fd) != 0 && keep && ok) {
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "cannot write %s: %s", w->path,
                g_strerror(errno));
    ok = FALSE;
  }
  if (w->temp != NULL) {
    if (keep && ok && w->sf != NULL && !w->to_stdout)
      ok = fx_tool_temp_commit(w->temp, w->path, error);
    else
      fx_tool_temp_discard(w->temp);
  }
  g_free(w->temp);
  g_free(w->path);
  g_free(w->scratch_f64);
  g_free(w->scratch_int);
  fx_source_free(w->src);
  g_free(w);
  return ok;
}
