/* gst-fx — fuzz target: fxchain's chain handling through the bin's own code path (its own parser
 * of the description, value checks against the GParamSpecs, pad checks, linking, wiring of ghost
 * pads, the plan).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The input is the description itself, as free text (arbitrary bytes up to the first NUL):
 * fxchain reads `chain` with its own parser (gst/gstfxchainparse.c), which must refuse anything
 * malformed with an error and never crash. (An earlier version of this target assembled
 * well-formed descriptions from a vocabulary because GStreamer 1.22's own parser, which fxchain
 * used then, crashes on some malformed descriptions: "t. ! queue ! tee name=t t. ! queue"
 * recurses without end, "identity b.identity ! identity) !" dereferences NULL; both are in the
 * corpus.) The registry holds only our plugin, audioconvert and the core elements, less those that
 * open files or file descriptors (filesrc, filesink, fdsrc, fdsink, queue2, downloadbuffer), so
 * that no input can name an element that touches files or devices. Each input: set `chain`, go to
 * READY and back to NULL, read `plan`. Invariants: no crash (sanitizers), the state change either
 * succeeds or fails with an error message on the bus; no GLib critical or warning; never a hang. */
#include <gst/gst.h>
#include <string.h>

#include "fuzz.h"

/* Longest description tried: longer inputs are cut here (the parser is linear in the length). */
#define MAX_DESC 4096

/* Core elements that open files or file descriptors when they start. */
static const char *const removed[] = {
    "filesrc", "filesink", "fdsrc", "fdsink", "queue2", "downloadbuffer",
};

/* A GLib critical or warning is a finding too: a bad description must be an error message, not
 * noise on stderr. */
static void abort_on_log(const gchar *domain, GLogLevelFlags level, const gchar *message,
                         gpointer user_data)
{
  (void) user_data;
  fprintf(stderr, "%s: %s\n", domain ? domain : "", message);
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    abort();
}

static GstElement *chain;
static GstBus *bus;

/* GStreamer with only our plugin and the core elements, registry in a temporary directory; no
 * fork for the scanner (the fuzzer's process is instrumented). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  char dir[] = "/tmp/fx-fuzz-chain-XXXXXX";
  char *path;
  (void) argc;
  (void) argv;
  if (!mkdtemp(dir))
    abort();
  path = g_build_filename(dir, "libgstcoreelements.so", NULL);
  if (symlink(FX_GST_PLUGINS_DIR "/libgstcoreelements.so", path) != 0)
    abort();
  g_free(path);
  path = g_build_filename(dir, "libgstaudioconvert.so", NULL);
  if (symlink(FX_GST_PLUGINS_DIR "/libgstaudioconvert.so", path) != 0)
    abort();
  g_free(path);
  g_setenv("GST_PLUGIN_SYSTEM_PATH_1_0", dir, TRUE);
  if (!g_getenv("GST_PLUGIN_PATH_1_0"))
    g_setenv("GST_PLUGIN_PATH_1_0", FX_PLUGIN_DIR, TRUE);
  path = g_build_filename(dir, "registry.bin", NULL);
  g_setenv("GST_REGISTRY_1_0", path, TRUE);
  g_free(path);
  g_setenv("GST_REGISTRY_FORK", "no", TRUE);
  gst_init(NULL, NULL);
  g_log_set_default_handler(abort_on_log, NULL);
  for (size_t i = 0; i < G_N_ELEMENTS(removed); i++) {
    GstPluginFeature *f = gst_registry_lookup_feature(gst_registry_get(), removed[i]);
    if (f) {
      gst_registry_remove_feature(gst_registry_get(), f);
      gst_object_unref(f);
    }
  }
  chain = gst_element_factory_make("fxchain", NULL);
  if (!chain) {
    fprintf(stderr, "fxchain not found (GST_PLUGIN_PATH_1_0=%s)\n",
            g_getenv("GST_PLUGIN_PATH_1_0"));
    abort();
  }
  gst_object_ref_sink(chain);
  bus = gst_bus_new();
  gst_element_set_bus(chain, bus);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  gchar *desc = g_strndup((const gchar *) data, MIN(size, MAX_DESC));
  GstStateChangeReturn ret;
  GstMessage *msg;
  gboolean error = FALSE;
  gchar *plan = NULL;

  if (getenv("FUZZ_VERBOSE"))
    fprintf(stderr, "chain: %s\n", desc);
  g_object_set(chain, "chain", desc, NULL);
  ret = gst_element_set_state(chain, GST_STATE_READY);
  g_object_get(chain, "plan", &plan, NULL);
  gst_element_set_state(chain, GST_STATE_NULL);
  while ((msg = gst_bus_pop(bus)) != NULL) {
    error |= GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR;
    gst_message_unref(msg);
  }
  FUZZ_CHECK(ret != GST_STATE_CHANGE_FAILURE || error,
             "READY failed without an error message for \"%s\"", desc);
  g_free(plan);
  g_free(desc);
  return 0;
}
