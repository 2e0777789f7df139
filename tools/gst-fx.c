/* gst-fx — command-line front end of the gst-fx plugin.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   gst-fx COMMAND [OPTION...]
 *
 * One table of commands; each command parses its own options (a GOptionContext) and returns an
 * exit status: 0 success, 1 a pipeline failed, 2 bad usage. */
#include "gst-fx.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  FxCommand cmd;
  const char *synopsis;
} FxCommandEntry;

static const FxCommandEntry commands[] = {
    {{"process", "Decode a file or a pipe, run it through a chain, encode it by OUT's extension",
      fx_cmd_process},
     "process --chain DESC|--chain-file FILE [--type T] [--device D] [--precision P]\n"
     "       [--format F32LE|F64LE] [--rate R] [--quiet] [--normalize L [--true-peak TP]]\n"
     "       [--bits 16|24|32|f32|f64] [--dither none|tpdf] [--clip-error]\n"
     "       IN|- OUT|-"},
    {{"batch", "Many files through one fused plan, stacked on the channel axis", fx_cmd_batch},
     "batch --chain DESC|--chain-file FILE -o DIR [--recursive] [--input-ext LIST]\n"
     "       [--shard K/N] [--files-from LIST] [--rate R] [--memory MIB] [--jobs N] [--ext EXT]\n"
     "       [--device D] [--precision P] [--format F32LE|F64LE] [--quiet]\n"
     "       [--normalize L [--true-peak TP]]\n"
     "       [--bits 16|24|32|f32|f64] [--dither none|tpdf] [--clip-error] FILE|DIR..."},
    {{"response", "Magnitude and phase of each stage and the chain: SVG, PNG or CSV",
      fx_cmd_response},
     "response --chain DESC|--chain-file FILE --rate R -o FILE.svg|FILE.png|FILE.csv\n"
     "       [--points N] [--min-frequency F] [--max-frequency F] [--title TEXT]\n"
     "       [--db-range MIN,MAX]"},
    {{"info", "Format, duration, peaks, RMS and EBU R128 loudness of each file", fx_cmd_info},
     "info [--json] FILE..."},
    {{"presets", "List, show, save and delete element presets (ELEMENT @preset=NAME)",
      fx_cmd_presets},
     "presets list [--json] [ELEMENT...] | show [--json] ELEMENT NAME\n"
     "       | save [--comment TEXT] [--force] ELEMENT NAME [PROPERTY=VALUE...]\n"
     "       | delete ELEMENT NAME"},
    {{"plan", "Print the fusion plan of a chain after negotiation", fx_cmd_plan},
     "plan --chain DESC|--chain-file FILE [--rate R] [--channels C] [--format F32LE|F64LE]\n"
     "       [--frames F] [--fuse|--no-fuse] [--device auto|cpu|cuda]\n"
     "       [--precision auto|single|double]"},
    {{"count-dispatches", "Fused vs unfused: native calls and CUDA launches per buffer",
      fx_cmd_count_dispatches},
     "count-dispatches [--depths 2,5,10,20] [--device auto|cpu|cuda] [--buffers N]\n"
     "       [--frames F] [--json]"},
};

static void print_usage(FILE *out)
{
  fprintf(out, "Usage:\n  gst-fx COMMAND [OPTION...]\n\n"
               "Audio filters for GStreamer that fuse chains of IIR stages into one cascade.\n\n"
               "Commands:\n");
  for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
    fprintf(out, "  %-18s %s\n", commands[i].cmd.name, commands[i].cmd.summary);
  fprintf(out, "\nSynopsis:\n");
  for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
    fprintf(out, "  gst-fx %s\n", commands[i].synopsis);
  fprintf(out, "\nOptions:\n"
               "  -h, --help         Show this help (gst-fx COMMAND --help: a command's options)\n"
               "  --version          Print the version and the plugin file in use\n\n"
               "Exit status: 0 success, 1 the pipeline failed (the error is printed on stderr),\n"
               "2 bad usage (one line and a hint on stderr). The plugin is looked up in\n"
               "GST_PLUGIN_PATH_1_0, GStreamer's system plugin path and GST_FX_PLUGIN_DIR, then\n"
               "where gst-fx is installed (from the build tree: the build's plugin, first).\n");
}

int main(int argc, char **argv)
{
  const char *name;

  setlocale(LC_ALL, "");
  /* The sequential kernels for every cascade (dsp/cascade.c, FX_CHUNK): `batch` stacks many
   * files' channels in one cascade, where the channel-vector kernels are fastest, and its output
   * must equal `process`'s byte for byte; the chunked kernels, which the engine takes for one or
   * two channels, round differently. Read when the plugin's engines are configured. */
  setenv("FX_CHUNK", "0", 1);
  if (argc < 2) {
    fprintf(stderr, "gst-fx: no command given\nTry 'gst-fx --help'.\n");
    return FX_EXIT_USAGE;
  }
  name = argv[1];
  if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "help") == 0) {
    print_usage(stdout);
    return FX_EXIT_OK;
  }
  if (strcmp(name, "--version") == 0) {
    gchar *plugin;

    printf("gst-fx %s\n", FX_VERSION);
    fflush(stdout);
    fx_tool_init();
    plugin = fx_tool_plugin_filename();
    printf("plugin: %s\n", plugin != NULL ? plugin : "not found");
    g_free(plugin);
    return FX_EXIT_OK;
  }
  for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
    if (strcmp(name, commands[i].cmd.name) == 0)
      return commands[i].cmd.run(argc - 1, argv + 1);
  /* Not in the help: the per-file baseline of bench/run-batch.sh. */
  if (strcmp(name, "process-many") == 0)
    return fx_cmd_process_many(argc - 1, argv + 1);

  fprintf(stderr, "gst-fx: unknown command \"%s\"\nTry 'gst-fx --help'.\n", name);
  return FX_EXIT_USAGE;
}
