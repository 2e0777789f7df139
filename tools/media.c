/* gst-fx — the media layer's small shared pieces (see media.h): option checks, file identity,
 * fxchain set-up, time stamps, error reports, the progress line. Decoding is in media-decode.c
 * (GStreamer) and media-sndfile.c (libsndfile), encoding in media-write.c, feeding a pipeline
 * from the calling thread in media-feed.c.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "media-private.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const char *const device_nicks[] = {"auto", "cpu", "cuda", NULL};
static const char *const precision_nicks[] = {"auto", "single", "double", NULL};

int fx_media_check_options(GOptionContext *ctx, FxMediaOptions *opts, const char *format_arg,
                           const char *bits_arg, const char *dither_arg)
{
  static const struct {
    const char *name;
    gint bits;
  } bits_names[] = {{"8", 8},
                    {"16", 16},
                    {"24", 24},
                    {"32", 32},
                    {"f32", FX_BITS_F32},
                    {"f64", FX_BITS_F64},
                    {"float", FX_BITS_F32},
                    {"double", FX_BITS_F64}};

  if (opts->chain == NULL || *opts->chain == '\0')
    return fx_tool_usage_error(ctx, "--chain or --chain-file is required");
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
  opts->bits = FX_BITS_AUTO;
  for (gsize i = 0; bits_arg != NULL && i < G_N_ELEMENTS(bits_names); i++)
    if (g_ascii_strcasecmp(bits_arg, bits_names[i].name) == 0)
      opts->bits = bits_names[i].bits;
  if (bits_arg != NULL && opts->bits == FX_BITS_AUTO)
    return fx_tool_usage_error(ctx, "--bits must be 16, 24, 32, f32 or f64 (or 8), not \"%s\"",
                               bits_arg);
  if (dither_arg == NULL)
    opts->dither = FX_DITHER_AUTO;
  else if (g_ascii_strcasecmp(dither_arg, "none") == 0)
    opts->dither = FX_DITHER_NONE;
  else if (g_ascii_strcasecmp(dither_arg, "tpdf") == 0)
    opts->dither = FX_DITHER_TPDF;
  else
    return fx_tool_usage_error(ctx, "--dither must be none or tpdf, not \"%s\"", dither_arg);
  return FX_EXIT_OK;
}

void fx_media_report(const char *path, const char *message)
{
  gchar *line = g_strdup(message);

  g_strdelimit(line, "\r\n", ' ');
  fprintf(stderr, "gst-fx: %s: %s\n", path, line);
  g_free(line);
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

/* ---------------------------------------------------------------------------------------- */
/* Errors                                                                                    */

void fx_media_error_from_message(GError **error, GstMessage *msg, const char *prefix)
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
/* Progress                                                                                  */

void fx_progress_init(FxProgress *p)
{
  /* stderr: stdout may be the output itself (OUT "-") */
  p->enabled = isatty(STDERR_FILENO);
  p->start = g_get_monotonic_time();
  p->last = 0;
  p->drawn = FALSE;
}

/* The terminal's width in columns: the window size of stderr's terminal, else $COLUMNS, else 80. */
static int terminal_columns(void)
{
  struct winsize ws;
  const char *env;

  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  env = g_getenv("COLUMNS");
  if (env != NULL && g_ascii_strtoll(env, NULL, 10) > 0)
    return (int) MIN(g_ascii_strtoll(env, NULL, 10), 1000);
  return 80;
}

static void format_time(char *out, size_t size, double seconds)
{
  long s = seconds < 0 ? 0 : (long) (seconds + 0.5);

  if (s >= 3600)
    g_snprintf(out, size, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else
    g_snprintf(out, size, "%02ld:%02ld", s / 60, s % 60);
}

/* `label` cut to `width` bytes by dropping its middle ("/data...file-name.wav"): the start of a
 * path and, given two thirds of the room, the end of the file's name stay readable. */
static gchar *middle_truncate(const char *label, int width)
{
  int len = (int) strlen(label);

  if (len <= width)
    return g_strdup(label);
  if (width < 5)
    return g_strndup(label, (gsize) MAX(width, 0));
  int head = (width - 3) / 3, tail = width - 3 - head;
  return g_strdup_printf("%.*s...%s", head, label, label + len - tail);
}

void fx_progress_update(FxProgress *p, double fraction, const char *label)
{
  gint64 now = g_get_monotonic_time();
  char elapsed[32], left[32], bar[64], stats[96];
  double secs;
  int cols, room, bar_width, stats_len, fill;
  gchar *name;

  if (!p->enabled || (p->drawn && now - p->last < 100 * G_TIME_SPAN_MILLISECOND && fraction < 1))
    return;
  p->last = now;
  p->drawn = TRUE;
  fraction = CLAMP(fraction, 0.0, 1.0);
  secs = (double) (now - p->start) / G_USEC_PER_SEC;
  format_time(elapsed, sizeof(elapsed), secs);
  if (fraction > 0.001)
    format_time(left, sizeof(left), secs * (1.0 - fraction) / fraction);
  else
    g_strlcpy(left, "--:--", sizeof(left));
  if (label == NULL)
    label = "";
  /* The whole line stays within the terminal's width less one column (a character in the last
   * column wraps on some terminals), so that \r redraws it in place: the words of the times go
   * first below 72 columns, then the bar shrinks (from 30 to 10 cells), then the label is cut in
   * its middle; below about 30 columns only the percentage and the times are left. */
  cols = terminal_columns();
  room = cols - 1;
  if (cols >= 72)
    stats_len = g_snprintf(stats, sizeof(stats), " %3d%%  %s elapsed  %s left",
                           (int) (fraction * 100.0), elapsed, left);
  else
    stats_len =
        g_snprintf(stats, sizeof(stats), " %3d%% %s<%s", (int) (fraction * 100.0), elapsed, left);
  /* "[" bar "]" stats "  " label */
  bar_width = room - stats_len - 2 - 2 - MIN((int) strlen(label), 30);
  bar_width = CLAMP(bar_width, 10, 30);
  if (room - stats_len - 2 - bar_width < 0)
    bar_width = 0;
  fill = (int) (fraction * bar_width);
  for (int i = 0; i < bar_width; i++)
    bar[i] = i < fill ? '#' : '-';
  bar[bar_width] = '\0';
  int used = stats_len + (bar_width > 0 ? bar_width + 2 : 0);
  name = middle_truncate(label, room - used - 2);
  if (bar_width > 0)
    fprintf(stderr, "\r[%s]%s%s%s\033[K", bar, stats, *name != '\0' ? "  " : "", name);
  else
    fprintf(stderr, "\r%.*s\033[K", MAX(room, 0), stats + 1);
  fflush(stderr);
  g_free(name);
}

void fx_progress_done(FxProgress *p)
{
  if (p->enabled && p->drawn) {
    fprintf(stderr, "\n");
    fflush(stderr);
  }
  p->drawn = FALSE;
}
