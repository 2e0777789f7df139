/* gst-fx — the per-file baseline of bench/run-batch.sh: one plain GStreamer pipeline per file.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   fx-bench-per-file --chain DESC [--device D] -o DIR FILE.wav...
 *
 * For each FILE, in this one process and one after the other, what a GStreamer user would run:
 *
 *   filesrc location=FILE ! wavparse ! audioconvert ! audio/x-raw,format=F32LE
 *     ! fxchain chain=DESC device=D warm-up=false ! audioconvert ! audio/x-raw,format=F32LE
 *     ! wavenc ! filesink location=DIR/<name of FILE>
 *
 * (warm-up=false as `process` and `batch` set it: the chain does not change during a run, so the
 * baseline keeps no input copy either) built with gst_parse_launch(), run to EOS
 * (fx_tool_run_to_eos) and freed. The samples it writes are those of `gst-fx process`/`batch` with
 * --format F32LE (the wav headers differ: wavenc vs libsndfile); bench/run-batch.sh checks that.
 * Never part of the tests. */
#include "gst-fx.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
  gchar *chain = NULL, *device = NULL, *outdir = NULL;
  gchar **files = NULL;
  const GOptionEntry entries[] = {
      {"chain", 'c', 0, G_OPTION_ARG_STRING, &chain, "The chain (fxchain's `chain`)", "DESC"},
      {"device", 'd', 0, G_OPTION_ARG_STRING, &device, "fxchain's `device`", "D"},
      {"output-dir", 'o', 0, G_OPTION_ARG_FILENAME, &outdir, "Directory for the outputs", "DIR"},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, NULL},
      {NULL, 0, 0, 0, NULL, NULL, NULL},
  };
  GOptionContext *ctx = g_option_context_new("-o DIR FILE.wav...");
  int failed = 0;

  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!fx_tool_parse_options(ctx, &argc, &argv))
    return FX_EXIT_USAGE;
  if (chain == NULL || outdir == NULL || files == NULL)
    return fx_tool_usage_error(ctx, "--chain, -o DIR and at least one FILE are required");
  g_mkdir_with_parents(outdir, 0777);
  fx_tool_init();
  for (gchar **p = files; *p != NULL; p++) {
    GError *error = NULL;
    GstElement *pipeline = gst_parse_launch(
        "filesrc name=in ! wavparse ! audioconvert ! audio/x-raw,format=F32LE ! fxchain name=fx "
        "! audioconvert ! audio/x-raw,format=F32LE ! wavenc ! filesink name=out",
        &error);
    gchar *base = g_path_get_basename(*p), *out = g_build_filename(outdir, base, NULL);
    if (pipeline == NULL) {
      fprintf(stderr, "fx-bench-per-file: %s\n", error->message);
      return FX_EXIT_FAILURE;
    }
    GstElement *in = gst_bin_get_by_name(GST_BIN(pipeline), "in");
    GstElement *fx = gst_bin_get_by_name(GST_BIN(pipeline), "fx");
    GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "out");
    g_object_set(in, "location", *p, NULL);
    g_object_set(sink, "location", out, NULL);
    g_object_set(fx, "chain", chain, "warm-up", FALSE, NULL);
    if (device != NULL)
      gst_util_set_object_arg(G_OBJECT(fx), "device", device);
    if (!fx_tool_run_to_eos(pipeline, NULL, &error)) {
      fprintf(stderr, "fx-bench-per-file: %s: %s\n", *p, error->message);
      g_clear_error(&error);
      failed++;
    }
    gst_object_unref(in);
    gst_object_unref(fx);
    gst_object_unref(sink);
    fx_tool_pipeline_free(pipeline);
    g_free(out);
    g_free(base);
  }
  g_option_context_free(ctx);
  g_strfreev(files);
  g_free(chain);
  g_free(device);
  g_free(outdir);
  return failed ? FX_EXIT_FAILURE : FX_EXIT_OK;
}
