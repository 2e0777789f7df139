/* gst-fx — encoding: FxWriter writes the output file with libsndfile, in the format of its
 * extension (see media.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "media-private.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

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
  gboolean f64;
  int sf_format;
  SNDFILE *sf;
  gint channels, rate;
  gboolean to_stdout; /* OUT "-" */
};

FxWriter *fx_writer_new(const char *path, const char *format)
{
  return fx_writer_new_typed(path, NULL, format);
}

FxWriter *fx_writer_new_typed(const char *path, const char *type, const char *format)
{
  FxWriter *w = g_new0(FxWriter, 1);
  gchar *typed = type != NULL ? g_strdup_printf("out.%s", type) : NULL;

  w->to_stdout = g_str_equal(path, "-");
  w->path = g_strdup(w->to_stdout ? "standard output" : path);
  w->fd = -1;
  w->f64 = g_str_equal(format, "F64LE");
  /* standard output without a type: wav, what `sox -t wav -` and most readers of a pipe expect */
  w->sf_format = output_format(typed != NULL ? typed : w->to_stdout ? "out.wav" : path, format);
  g_free(typed);
  return w;
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
  g_free(w);
  return ok;
}
