/* gst-fx — decoding with libsndfile: opening a file, the reads in the processing format, and
 * the raw 16-bit PCM reads of `batch` (see media.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "media-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

const int fx_source_string_ids[FX_SOURCE_STRINGS] = {
    SF_STR_TITLE, SF_STR_COPYRIGHT, SF_STR_SOFTWARE, SF_STR_ARTIST,      SF_STR_COMMENT,
    SF_STR_DATE,  SF_STR_ALBUM,     SF_STR_LICENSE,  SF_STR_TRACKNUMBER, SF_STR_GENRE,
};

gint fx_source_bits_from_sndfile(int format)
{
  switch (format & SF_FORMAT_SUBMASK) {
  case SF_FORMAT_PCM_S8:
  case SF_FORMAT_PCM_U8:
  case SF_FORMAT_DPCM_8:
    return 8;
  case SF_FORMAT_PCM_24:
  case SF_FORMAT_DWVW_24:
  case SF_FORMAT_ALAC_20:
  case SF_FORMAT_ALAC_24:
    return 24;
  case SF_FORMAT_PCM_32:
  case SF_FORMAT_ALAC_32:
    return 32;
  case SF_FORMAT_FLOAT:
    return FX_BITS_F32;
  case SF_FORMAT_DOUBLE:
    return FX_BITS_F64;
  case SF_FORMAT_VORBIS:
  case FX_SF_FORMAT_OPUS:
  case FX_SF_FORMAT_MPEG_LAYER_I:
  case FX_SF_FORMAT_MPEG_LAYER_II:
  case FX_SF_FORMAT_MPEG_LAYER_III:
    /* lossy codecs: their decoders give floats, with more than 16 bits of resolution */
    return FX_BITS_F32;
  default:
    /* 16-bit PCM, and the codecs of 16 bits or fewer: A-law, mu-law, ADPCM, GSM, ... */
    return 16;
  }
}

/* What the output keeps of the file open in `sf`: its sample encoding, string tags, and the bext,
 * cue and instrument chunks where its format has them. */
static void read_source(FxSource *src, SNDFILE *sf, const SF_INFO *info)
{
  src->bits = fx_source_bits_from_sndfile(info->format);
  for (int i = 0; i < FX_SOURCE_STRINGS; i++) {
    const char *v = sf_get_string(sf, fx_source_string_ids[i]);
    if (v != NULL && *v != '\0')
      src->strings[i] = g_strdup(v);
  }
  src->has_bext = sf_command(sf, SFC_GET_BROADCAST_INFO, &src->bext, sizeof src->bext) == SF_TRUE;
  int cues = 0;
  src->has_cues = sf_command(sf, SFC_GET_CUE_COUNT, &cues, sizeof cues) == SF_TRUE && cues > 0 &&
                  sf_command(sf, SFC_GET_CUE, &src->cues, sizeof src->cues) == SF_TRUE;
  src->has_instrument =
      sf_command(sf, SFC_GET_INSTRUMENT, &src->instrument, sizeof src->instrument) == SF_TRUE;
}

gboolean fx_decoder_sndfile_start(FxDecoder *dec, const char *path, GstCaps **caps, GError **error)
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
  if (!fx_media_check_stream(info.samplerate, info.channels, dec->rate,
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
  read_source(&dec->source, sf, &info);
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

gchar **fx_media_input_extensions(void)
{
  /* names libsndfile's format list does not give, for formats it reads (or GStreamer does) */
  static const char *const extra[] = {"aif", "aiff", "oga", "opus", "mp3", "wave", NULL};
  GPtrArray *exts = g_ptr_array_new();
  int count = 0;

  sf_command(NULL, SFC_GET_FORMAT_MAJOR_COUNT, &count, sizeof count);
  for (int i = 0; i < count; i++) {
    SF_FORMAT_INFO info = {.format = i};
    if (sf_command(NULL, SFC_GET_FORMAT_MAJOR, &info, sizeof info) != 0 || info.extension == NULL)
      continue;
    gchar *ext = g_ascii_strdown(info.extension, -1);
    if (g_ptr_array_find_with_equal_func(exts, ext, g_str_equal, NULL))
      g_free(ext);
    else
      g_ptr_array_add(exts, ext);
  }
  for (int i = 0; extra[i] != NULL; i++)
    if (!g_ptr_array_find_with_equal_func(exts, extra[i], g_str_equal, NULL))
      g_ptr_array_add(exts, g_strdup(extra[i]));
  g_ptr_array_add(exts, NULL);
  return (gchar **) g_ptr_array_free(exts, FALSE);
}
