/* gst-fx — `gst-fx info FILE…`: format, rate, channels, duration, sample peak, true peak, RMS,
 * integrated loudness and loudness range of each file, as text or JSON.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Files are decoded as `process` decodes them (media.h: libsndfile, else GStreamer) to F64; the
 * loudness and peaks are measured by libebur128 through dsp/loudness.h (the same measurement as
 * the fxloudness element), the RMS by dsp/normalize.h. A file that fails is reported on stderr
 * (and as {"file", "error"} in the JSON) and the others are still measured; the exit status is 1
 * when any failed. */
#include "gst-fx.h"
#include "media.h"

#include "loudness.h"
#include "normalize.h"

#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  gchar *format;  /* container, e.g. "WAV (Microsoft)" */
  gchar *subtype; /* sample encoding, e.g. "Signed 16 bit PCM" */
  gint rate, channels;
  guint64 frames;
  double sample_peak, true_peak, rms, integrated, range; /* dB / LUFS / LU */
} FxInfo;

/* The container and encoding names libsndfile gives, or what GStreamer decoded. */
static void read_format(const char *path, FxInfo *info)
{
  SF_INFO sfi = {0};
  SNDFILE *sf = sf_open(path, SFM_READ, &sfi);
  SF_FORMAT_INFO fi;

  if (sf == NULL) {
    info->format = g_strdup("decoded by GStreamer");
    info->subtype = g_strdup("");
    return;
  }
  fi.format = sfi.format & SF_FORMAT_TYPEMASK;
  info->format = g_strdup(
      sf_command(sf, SFC_GET_FORMAT_INFO, &fi, sizeof(fi)) == 0 && fi.name ? fi.name : "?");
  fi.format = sfi.format & SF_FORMAT_SUBMASK;
  info->subtype = g_strdup(
      sf_command(sf, SFC_GET_FORMAT_INFO, &fi, sizeof(fi)) == 0 && fi.name ? fi.name : "?");
  sf_close(sf);
}

static gboolean measure_file(const char *path, FxInfo *info, GError **error)
{
  FxMediaOptions opts = {.format = "F64LE"};
  FxDecoder *dec = fx_decoder_new(&opts, error);
  GstCaps *caps = NULL;
  GstAudioInfo ai;
  fx_loud_t *meter = NULL;
  fx_norm_t *stats = NULL;
  GError *err = NULL;
  gboolean ok = FALSE;
  GstBuffer *buf;

  if (dec == NULL)
    return FALSE;
  if (!fx_decoder_start(dec, path, &caps, &err) || !gst_audio_info_from_caps(&ai, caps)) {
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED, "%s: %s", path,
                err ? err->message : "cannot decode");
    goto out;
  }
  info->rate = GST_AUDIO_INFO_RATE(&ai);
  info->channels = GST_AUDIO_INFO_CHANNELS(&ai);
  meter = fx_loud_new(info->channels, (unsigned long) info->rate);
  stats = fx_norm_new(info->channels);
  if (meter == NULL || stats == NULL) {
    g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED, "%s: cannot measure %d channels",
                path, info->channels);
    goto out;
  }
  while ((buf = fx_decoder_pull(dec, &err)) != NULL) {
    GstMapInfo map;
    if (gst_buffer_map(buf, &map, GST_MAP_READ)) {
      gsize frames = map.size / GST_AUDIO_INFO_BPF(&ai);
      fx_loud_add_f64(meter, (const double *) map.data, frames);
      fx_norm_add_f64(stats, (const double *) map.data, frames);
      info->frames += frames;
      gst_buffer_unmap(buf, &map);
    }
    gst_buffer_unref(buf);
  }
  if (err != NULL) {
    g_set_error(error, err->domain, err->code, "%s: %s", path, err->message);
    goto out;
  }
  read_format(path, info);
  info->sample_peak = fx_loud_db(fx_loud_sample_peak(meter, -1));
  info->true_peak = fx_loud_db(fx_loud_true_peak(meter, -1));
  info->rms = fx_loud_db(fx_norm_rms(stats, -1));
  info->integrated = fx_loud_integrated(meter);
  info->range = fx_loud_range(meter);
  ok = TRUE;
out:
  g_clear_error(&err);
  fx_loud_free(meter);
  fx_norm_free(stats);
  fx_decoder_free(dec);
  return ok;
}

/* A JSON number, null when not finite (silence: -inf dB). */
static void json_number(GString *s, double v, int decimals)
{
  if (isfinite(v))
    g_string_append_printf(s, "%.*f", decimals, v);
  else
    g_string_append(s, "null");
}

static void print_json_entry(GString *s, const char *path, const FxInfo *info, const GError *e)
{
  g_string_append(s, "  {\"file\": ");
  fx_tool_json_string(s, path);
  if (e != NULL) {
    g_string_append(s, ", \"error\": ");
    fx_tool_json_string(s, e->message);
    g_string_append(s, "}");
    return;
  }
  g_string_append(s, ", \"format\": ");
  fx_tool_json_string(s, info->format);
  g_string_append(s, ", \"encoding\": ");
  fx_tool_json_string(s, info->subtype);
  g_string_append_printf(
      s, ", \"rate\": %d, \"channels\": %d, \"frames\": %" G_GUINT64_FORMAT ", \"duration\": ",
      info->rate, info->channels, info->frames);
  json_number(s, info->rate > 0 ? (double) info->frames / info->rate : 0.0, 6);
  g_string_append(s, ", \"sample_peak_dbfs\": ");
  json_number(s, info->sample_peak, 2);
  g_string_append(s, ", \"true_peak_dbtp\": ");
  json_number(s, info->true_peak, 2);
  g_string_append(s, ", \"rms_dbfs\": ");
  json_number(s, info->rms, 2);
  g_string_append(s, ", \"integrated_lufs\": ");
  json_number(s, info->integrated, 2);
  g_string_append(s, ", \"loudness_range_lu\": ");
  json_number(s, info->range, 2);
  g_string_append(s, "}");
}

static gchar *db_text(double v, const char *unit)
{
  return isfinite(v) ? g_strdup_printf("%.2f %s", v, unit) : g_strdup_printf("-inf %s", unit);
}

static void print_text(const char *path, const FxInfo *info)
{
  double secs = info->rate > 0 ? (double) info->frames / info->rate : 0.0;
  int h = (int) (secs / 3600), m = (int) (fmod(secs, 3600) / 60);
  gchar *sp = db_text(info->sample_peak, "dBFS"), *tp = db_text(info->true_peak, "dBTP");
  gchar *rms = db_text(info->rms, "dBFS"), *il = db_text(info->integrated, "LUFS");

  printf("%s\n", path);
  printf("  format:            %s%s%s\n", info->format, *info->subtype ? ", " : "", info->subtype);
  printf("  rate:              %d Hz\n", info->rate);
  printf("  channels:          %d\n", info->channels);
  printf("  duration:          %02d:%02d:%06.3f (%" G_GUINT64_FORMAT " frames)\n", h, m,
         fmod(secs, 60.0), info->frames);
  printf("  sample peak:       %s\n", sp);
  printf("  true peak:         %s\n", tp);
  printf("  RMS:               %s\n", rms);
  printf("  loudness:          %s (integrated)\n", il);
  printf("  loudness range:    %.2f LU\n", info->range);
  g_free(sp);
  g_free(tp);
  g_free(rms);
  g_free(il);
}

int fx_cmd_info(int argc, char **argv)
{
  gboolean json = FALSE;
  gchar **files = NULL;
  const GOptionEntry entries[] = {
      {"json", 'j', 0, G_OPTION_ARG_NONE, &json, "Print a JSON array, one object per file", NULL},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "FILE..."},
      {NULL, 0, 0, 0, NULL, NULL, NULL},
  };
  GOptionContext *ctx = g_option_context_new(NULL);
  GString *out = g_string_new("[\n");
  int status = FX_EXIT_OK, failed = 0;

  g_set_prgname("gst-fx info");
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_option_context_set_summary(
      ctx, "Prints the format, rate, channels and duration of each FILE and measures its sample\n"
           "peak (dBFS), true peak (dBTP, 4x oversampled), RMS (dBFS, all channels), integrated\n"
           "loudness (LUFS) and loudness range (LU) as ITU-R BS.1770-4 / EBU R128 define them\n"
           "(libebur128). A file that cannot be read is reported and the others still are.\n"
           "Exit status: 0 success, 1 some file failed, 2 bad usage.");
  if (!fx_tool_parse_options(ctx, &argc, &argv)) {
    status = FX_EXIT_USAGE;
    goto out;
  }
  if (files == NULL || files[0] == NULL) {
    status = fx_tool_usage_error(ctx, "expected at least one FILE");
    goto out;
  }
  fx_tool_init();
  for (gchar **p = files; *p != NULL; p++) {
    FxInfo info = {0};
    GError *error = NULL;
    if (!measure_file(*p, &info, &error)) {
      failed++;
      fprintf(stderr, "gst-fx: %s\n", error ? error->message : "failed");
    } else if (!json) {
      print_text(*p, &info);
    }
    if (json) {
      print_json_entry(out, *p, &info, error);
      g_string_append(out, p[1] != NULL ? ",\n" : "\n");
    }
    g_clear_error(&error);
    g_free(info.format);
    g_free(info.subtype);
  }
  if (json) {
    g_string_append(out, "]\n");
    fputs(out->str, stdout);
  }
  status = failed ? FX_EXIT_FAILURE : FX_EXIT_OK;
out:
  g_string_free(out, TRUE);
  g_strfreev(files);
  g_option_context_free(ctx);
  return status;
}

/* Parses "-16", "-16LUFS", "-16 LUFS" (or LKFS) / "-1", "-1dBTP" into *v; FALSE when it is not a
 * number followed by nothing but one of the units. */
static gboolean parse_level(const char *text, const char *const *units, double lo, double hi,
                            double *v)
{
  gchar *end;

  if (text == NULL)
    return FALSE;
  *v = g_ascii_strtod(text, &end);
  if (end == text || !isfinite(*v))
    return FALSE;
  while (*end == ' ')
    end++;
  if (*end != '\0') {
    gboolean known = FALSE;
    for (const char *const *u = units; *u && !known; u++)
      known = g_ascii_strcasecmp(end, *u) == 0;
    if (!known)
      return FALSE;
  }
  return *v >= lo && *v <= hi;
}

int fx_tool_add_normalize(GOptionContext *ctx, gchar **chain, const char *normalize,
                          const char *true_peak)
{
  static const char *const lufs_units[] = {"LUFS", "LKFS", NULL};
  static const char *const tp_units[] = {"dBTP", "dB", NULL};
  double target, tp = -1.0;
  gchar *stage, *joined;

  if (normalize == NULL) {
    if (true_peak != NULL)
      return fx_tool_usage_error(ctx, "--true-peak applies to --normalize; give both");
    return FX_EXIT_OK;
  }
  if (!parse_level(normalize, lufs_units, -70.0, 0.0, &target))
    return fx_tool_usage_error(ctx,
                               "--normalize %s: expected a loudness in LUFS from -70 to 0, "
                               "e.g. -16LUFS, -16 or -23",
                               normalize);
  if (true_peak != NULL && !parse_level(true_peak, tp_units, -30.0, 0.0, &tp))
    return fx_tool_usage_error(ctx,
                               "--true-peak %s: expected a true peak in dBTP from -30 to 0, "
                               "e.g. -1 or -1dBTP",
                               true_peak);
  stage = g_strdup_printf("fxnormalize mode=lufs target-lufs=%.6g true-peak-limit=%.6g "
                          "max-duration=0",
                          target, tp);
  if (*chain != NULL && **chain != '\0')
    joined = g_strdup_printf("%s ! %s", *chain, stage);
  else
    joined = g_strdup(stage);
  g_free(stage);
  g_free(*chain);
  *chain = joined;
  return FX_EXIT_OK;
}
