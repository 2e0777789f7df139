/* gst-fx count-dispatches — fused vs unfused: native calls and CUDA launches per buffer.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The GStreamer counterpart of TorchFX's count_kernel_launches. For each depth K it builds a
 * chain of K IIR stages (fx_tool_iir_chain: fxbiquad, fxbutterworth and fxsos in turn, one
 * section each), runs N buffers of F frames of stereo F32 white noise at 48 kHz through an
 * fxchain with fuse=true and with fuse=false, and reads the bin's `dispatches` and `launches`
 * (totals over its stages) after EOS. */
#include "gst-fx.h"

#include <stdio.h>
#include <string.h>

#define MAX_DEPTH 256

static const char *const device_nicks[] = {"auto", "cpu", "cuda", NULL};

typedef struct {
  guint64 dispatches;
  guint64 launches;
  gboolean has_launches;
  gchar *backend;
  guint plan_stages;
} Count;

static void count_clear(Count *c)
{
  g_clear_pointer(&c->backend, g_free);
}

static guint count_lines(const char *text)
{
  guint n = 0;

  if (text == NULL)
    return 0;
  for (const char *p = text; *p != '\0';) {
    const char *end = strchr(p, '\n');
    size_t len = end != NULL ? (size_t) (end - p) : strlen(p);
    gboolean blank = TRUE;
    for (size_t i = 0; i < len; i++)
      if (!g_ascii_isspace(p[i]))
        blank = FALSE;
    if (!blank)
      n++;
    if (end == NULL)
      break;
    p = end + 1;
  }
  return n;
}

static gboolean count_one(guint depth, gboolean fuse, const char *device, guint buffers,
                          guint frames, GPtrArray **warnings, Count *out, GError **error)
{
  gchar *chain = fx_tool_iir_chain(depth);
  FxChainRun run;
  GstElement *fxchain = NULL, *pipeline;
  gboolean ok = FALSE;

  fx_tool_chain_run_init(&run, chain, fuse, device);
  run.frames = frames;
  run.buffers = buffers;
  pipeline = fx_tool_chain_pipeline(&run, &fxchain, error);
  if (pipeline != NULL && fx_tool_run_to_eos(pipeline, warnings, error)) {
    gchar *plan = NULL;

    memset(out, 0, sizeof(*out));
    if (!fx_tool_get_u64(fxchain, "dispatches", &out->dispatches)) {
      g_set_error_literal(error, GST_CORE_ERROR, GST_CORE_ERROR_NOT_IMPLEMENTED,
                          "fxchain has no \"dispatches\" property");
    } else {
      out->has_launches = fx_tool_get_u64(fxchain, "launches", &out->launches);
      g_object_get(fxchain, "backend", &out->backend, "plan", &plan, NULL);
      out->plan_stages = count_lines(plan);
      g_free(plan);
      ok = TRUE;
    }
  }
  fx_tool_pipeline_free(pipeline);
  g_free(chain);
  return ok;
}

/* A JSON string literal of `s` on standard output. */
static void print_json_string(const char *s)
{
  GString *t = g_string_new(NULL);
  fx_tool_json_string(t, s);
  fputs(t->str, stdout);
  g_string_free(t, TRUE);
}

static void print_json_count(const char *key, const Count *c, guint buffers)
{
  printf("\"%s\": {\"dispatches\": %" G_GUINT64_FORMAT ", \"dispatches_per_buffer\": %.6f, ", key,
         c->dispatches, (double) c->dispatches / buffers);
  if (c->has_launches)
    printf("\"launches\": %" G_GUINT64_FORMAT ", \"launches_per_buffer\": %.6f, ", c->launches,
           (double) c->launches / buffers);
  else
    printf("\"launches\": null, \"launches_per_buffer\": null, ");
  printf("\"plan_stages\": %u, \"backend\": ", c->plan_stages);
  print_json_string(c->backend);
  printf("}");
}

static void print_launches_cell(const Count *c, guint buffers)
{
  if (c->has_launches)
    printf(" %9.2f", (double) c->launches / buffers);
  else
    printf(" %9s", "n/a");
}

int fx_cmd_count_dispatches(int argc, char **argv)
{
  gchar *depths_text = NULL, *device = NULL;
  gint buffers = 100, frames = 1024;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
      {"depths", 'k', 0, G_OPTION_ARG_STRING, &depths_text,
       "Comma-separated chain depths, IIR stages per chain (default 2,5,10,20)", "K,K,..."},
      {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
       "Where the cascades run: auto, cpu (default) or cuda", "D"},
      {"buffers", 'b', 0, G_OPTION_ARG_INT, &buffers, "Buffers per run (default 100)", "N"},
      {"frames", 'f', 0, G_OPTION_ARG_INT, &frames, "Frames per buffer (default 1024)", "F"},
      {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON instead of a table", NULL},
      {NULL, 0, 0, 0, NULL, NULL, NULL},
  };
  GOptionContext *ctx = g_option_context_new(NULL);
  GArray *depths = NULL;
  GPtrArray *warnings = NULL;
  GError *error = NULL;
  int status = FX_EXIT_OK;
  Count *fused = NULL, *unfused = NULL;

  g_set_prgname("gst-fx count-dispatches");
  g_option_context_set_summary(
      ctx, "For each depth K, runs N buffers of F frames of stereo F32 white noise at 48 kHz\n"
           "through an fxchain of K IIR stages (fxbiquad, fxbutterworth and fxsos in turn, one\n"
           "section each), fused and with fuse=false, and reports native calls (dispatches) and\n"
           "CUDA launches per buffer.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  status = fx_tool_parse_command_line(ctx, &argc, &argv);
  if (status != FX_EXIT_OK)
    goto out;
  if (!fx_tool_parse_uint_list(depths_text != NULL ? depths_text : "2,5,10,20", MAX_DEPTH,
                               &depths)) {
    status = fx_tool_usage_error(
        ctx, "--depths must be a comma-separated list of depths from 1 to %d, not \"%s\"",
        MAX_DEPTH, depths_text);
    goto out;
  }
  if (buffers < 1) {
    status = fx_tool_usage_error(ctx, "--buffers must be at least 1");
    goto out;
  }
  if (frames < 1) {
    status = fx_tool_usage_error(ctx, "--frames must be at least 1");
    goto out;
  }
  if (device == NULL)
    device = g_strdup("cpu");
  if (!g_strv_contains(device_nicks, device)) {
    status = fx_tool_usage_error(ctx, "--device must be auto, cpu or cuda, not \"%s\"", device);
    goto out;
  }

  fx_tool_init();
  fused = g_new0(Count, depths->len);
  unfused = g_new0(Count, depths->len);
  for (guint i = 0; i < depths->len; i++) {
    guint k = g_array_index(depths, guint, i);
    if (!count_one(k, TRUE, device, (guint) buffers, (guint) frames, &warnings, &fused[i],
                   &error) ||
        !count_one(k, FALSE, device, (guint) buffers, (guint) frames, &warnings, &unfused[i],
                   &error)) {
      fprintf(stderr, "gst-fx: %s\n", error->message);
      status = FX_EXIT_FAILURE;
      goto out;
    }
  }

  if (json) {
    printf("{\"rate\": 48000, \"channels\": 2, \"format\": \"F32LE\", \"frames\": %d, "
           "\"buffers\": %d, \"device\": ",
           frames, buffers);
    print_json_string(device);
    printf(", \"results\": [");
    for (guint i = 0; i < depths->len; i++) {
      printf("%s\n  {\"depth\": %u, ", i ? "," : "", g_array_index(depths, guint, i));
      print_json_count("fused", &fused[i], (guint) buffers);
      printf(", ");
      print_json_count("unfused", &unfused[i], (guint) buffers);
      printf("}");
    }
    printf("\n]}\n");
  } else {
    printf("fxchain, fused vs unfused: %d buffers of %d frames, 2 channels F32LE at 48000 Hz, "
           "device=%s\n\n",
           buffers, frames, device);
    printf("%5s | %21s | %21s | %s\n", "", "dispatches / buffer", "CUDA launches / buffer",
           "backend");
    printf("%5s | %9s %11s | %9s %11s | %s\n", "depth", "fused", "unfused", "fused", "unfused",
           "(fused / unfused)");
    for (guint i = 0; i < depths->len; i++) {
      printf("%5u | %9.2f %11.2f |", g_array_index(depths, guint, i),
             (double) fused[i].dispatches / buffers, (double) unfused[i].dispatches / buffers);
      print_launches_cell(&fused[i], (guint) buffers);
      printf("  ");
      print_launches_cell(&unfused[i], (guint) buffers);
      printf(" | %s / %s\n", fused[i].backend ? fused[i].backend : "?",
             unfused[i].backend ? unfused[i].backend : "?");
    }
  }
  fx_tool_print_warnings(warnings);

out:
  for (guint i = 0; depths != NULL && fused != NULL && i < depths->len; i++) {
    count_clear(&fused[i]);
    count_clear(&unfused[i]);
  }
  g_free(fused);
  g_free(unfused);
  if (depths != NULL)
    g_array_unref(depths);
  if (warnings != NULL)
    g_ptr_array_unref(warnings);
  g_clear_error(&error);
  g_option_context_free(ctx);
  g_free(depths_text);
  g_free(device);
  return status;
}
