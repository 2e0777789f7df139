/* gst-fx plan — prints an fxchain's fusion plan after negotiation.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs one buffer of white noise through
 *   audiotestsrc ! audio/x-raw,format=F,rate=R,channels=C ! fxchain chain="…" ! fakesink
 * to EOS and prints the bin's `plan` property (one line per stage, with the backend chosen for
 * the negotiated shape). */
#include "gst-fx.h"

#include <stdio.h>
#include <string.h>

static const char *const device_nicks[] = {"auto", "cpu", "cuda", NULL};
static const char *const precision_nicks[] = {"auto", "single", "double", NULL};

/* "F32LE", "f32", "F32" → "F32LE"; likewise F64; NULL otherwise. */
static const char *normalise_format(const char *value)
{
  if (value == NULL)
    return "F32LE";
  if (g_ascii_strcasecmp(value, "F32LE") == 0 || g_ascii_strcasecmp(value, "F32") == 0)
    return "F32LE";
  if (g_ascii_strcasecmp(value, "F64LE") == 0 || g_ascii_strcasecmp(value, "F64") == 0)
    return "F64LE";
  return NULL;
}

int fx_cmd_plan(int argc, char **argv)
{
  gchar *chain = NULL, *chain_file = NULL, *format = NULL, *device = NULL, *precision = NULL;
  gint rate = 48000, channels = 2, frames = 1024;
  gboolean fuse = TRUE;
  const GOptionEntry entries[] = {
      {"chain", 'c', 0, G_OPTION_ARG_STRING, &chain,
       "The chain in gst-launch syntax, e.g. \"fxbiquad ! fxbutterworth order=8\" (required)",
       "DESC"},
      FX_TOOL_CHAIN_FILE_ENTRY(chain_file),
      {"rate", 'r', 0, G_OPTION_ARG_INT, &rate, "Sample rate in Hz (default 48000)", "R"},
      {"channels", 'n', 0, G_OPTION_ARG_INT, &channels, "Number of channels (default 2)", "C"},
      {"format", 'f', 0, G_OPTION_ARG_STRING, &format, "Sample format F32LE (default) or F64LE",
       "F"},
      {"frames", 0, 0, G_OPTION_ARG_INT, &frames, "Frames per buffer (default 1024)", "F"},
      {"fuse", 0, 0, G_OPTION_ARG_NONE, &fuse, "Fuse runs of IIR stages (the default)", NULL},
      {"no-fuse", 0, G_OPTION_FLAG_REVERSE, G_OPTION_ARG_NONE, &fuse,
       "Run every child as its own stage", NULL},
      {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
       "Where the cascades run: auto (default), cpu or cuda", "D"},
      {"precision", 'p', 0, G_OPTION_ARG_STRING, &precision,
       "Arithmetic for F32 streams: auto (default), single or double", "P"},
      {NULL, 0, 0, 0, NULL, NULL, NULL},
  };
  GOptionContext *ctx = g_option_context_new(NULL);
  GstElement *pipeline = NULL, *fxchain = NULL;
  GError *error = NULL;
  GPtrArray *warnings = NULL;
  int status = FX_EXIT_OK;
  const char *fmt;

  g_set_prgname("gst-fx plan");
  g_option_context_set_summary(ctx, "Prints the fusion plan of an fxchain after negotiation: one "
                                    "line per stage, which\nchildren fused, how many sections, "
                                    "which backend.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  status = fx_tool_parse_command_line(ctx, &argc, &argv);
  if (status == FX_EXIT_OK)
    status = fx_tool_chain_from_file(ctx, &chain, chain_file, FALSE);
  if (status != FX_EXIT_OK)
    goto out;
  if (chain == NULL || *g_strstrip(chain) == '\0') {
    status = fx_tool_usage_error(ctx, "--chain is required");
    goto out;
  }
  fmt = normalise_format(format);
  if (fmt == NULL) {
    status = fx_tool_usage_error(ctx, "--format must be F32LE or F64LE, not \"%s\"", format);
    goto out;
  }
  if (rate < 1) {
    status = fx_tool_usage_error(ctx, "--rate must be a positive number of Hz");
    goto out;
  }
  if (channels < 1) {
    status = fx_tool_usage_error(ctx, "--channels must be at least 1");
    goto out;
  }
  if (frames < 1) {
    status = fx_tool_usage_error(ctx, "--frames must be at least 1");
    goto out;
  }
  if (device != NULL && !g_strv_contains(device_nicks, device)) {
    status = fx_tool_usage_error(ctx, "--device must be auto, cpu or cuda, not \"%s\"", device);
    goto out;
  }
  if (precision != NULL && !g_strv_contains(precision_nicks, precision)) {
    status = fx_tool_usage_error(ctx, "--precision must be auto, single or double, not \"%s\"",
                                 precision);
    goto out;
  }

  fx_tool_init();
  FxChainRun run;
  fx_tool_chain_run_init(&run, chain, fuse, device);
  run.precision = precision;
  run.format = fmt;
  run.rate = rate;
  run.channels = channels;
  run.frames = (guint) frames;
  pipeline = fx_tool_chain_pipeline(&run, &fxchain, &error);
  if (pipeline == NULL || !fx_tool_run_to_eos(pipeline, &warnings, &error)) {
    fx_tool_print_error(error->message);
    status = FX_EXIT_FAILURE;
    goto out;
  }
  gchar *plan = NULL;
  g_object_get(fxchain, "plan", &plan, NULL);
  if (plan != NULL && *plan != '\0')
    printf("%s%s", plan, g_str_has_suffix(plan, "\n") ? "" : "\n");
  g_free(plan);
  fx_tool_print_warnings(warnings);

out:
  fx_tool_pipeline_free(pipeline);
  if (warnings != NULL)
    g_ptr_array_unref(warnings);
  g_clear_error(&error);
  g_option_context_free(ctx);
  g_free(chain);
  g_free(chain_file);
  g_free(format);
  g_free(device);
  g_free(precision);
  return status;
}
