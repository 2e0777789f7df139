/* gst-fx — fuzz target: fxchain's chain handling through the bin's own code path (parse the
 * description, order the elements by their links, check pads, wire ghost pads, build the plan).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The description is assembled from the input out of a fixed vocabulary — the fx elements, a few
 * harmless core elements (identity, queue, tee, fakesink, audioconvert), links, bin brackets,
 * names, references, properties with fuzzed values — so the fuzzer explores structure (unlinked,
 * branched, bracketed, self-referencing, empty chains) and property values, but can never name an
 * element that touches files or devices. Free text is limited to characters that cannot spell an
 * element name. Each input: set `chain`, go to READY and back to NULL, read `plan`. Invariants:
 * no crash (sanitizers), the state change either succeeds or fails with an error message on the
 * bus; never a hang. */
#include <gst/gst.h>

#include "fuzz.h"

static const char *const words[] = {
    "fxbutterworth",
    "fxchebyshev1",
    "fxchebyshev2",
    "fxelliptic",
    "fxlinkwitzriley",
    "fxbiquad",
    "fxsos",
    "fxgain",
    "fxchain",
    "identity",
    "queue",
    "tee",
    "fakesink",
    "audioconvert",
    " ! ",
    " ! ",
    " ! ",
    " ",
    "(",
    ")",
    "fxchain.(",
    "name=a",
    "name=b",
    "a.",
    "b.",
    "t.",
    "name=t",
    ".",
    "mode=high-pass",
    "mode=band-pass",
    "type=peaking",
    "clip=true",
    "fuse=false",
    "device=cuda",
    "precision=single",
    "order=",
    "cutoff=",
    "lower-frequency=",
    "upper-frequency=",
    "gain=",
    "q=",
    "frequency=",
    "ripple=",
    "attenuation=",
    "sections=\"",
    "\"",
    "chain=\"",
    ", ",
    ";",
};

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
  fuzz_in_t in = {data, size};
  GString *desc = g_string_new(NULL);
  GstStateChangeReturn ret;
  GstMessage *msg;
  gboolean error = FALSE;
  gchar *plan = NULL;

  while (in.n > 0 && desc->len < 400) {
    uint8_t b = fuzz_u8(&in);
    if (b < 200) {
      g_string_append(desc, words[b % G_N_ELEMENTS(words)]);
    } else if (b < 240) {
      /* A number. */
      g_string_append_printf(desc, "%.6g", fuzz_range(&in, -100.0, 30000.0));
    } else {
      /* Free text that cannot spell an element name. */
      static const char safe[] = "0123456789 .,;-+<>!()\"=e";
      g_string_append_c(desc, safe[fuzz_u8(&in) % (sizeof safe - 1)]);
    }
  }
  g_object_set(chain, "chain", desc->str, NULL);
  ret = gst_element_set_state(chain, GST_STATE_READY);
  g_object_get(chain, "plan", &plan, NULL);
  gst_element_set_state(chain, GST_STATE_NULL);
  while ((msg = gst_bus_pop(bus)) != NULL) {
    error |= GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR;
    gst_message_unref(msg);
  }
  FUZZ_CHECK(ret != GST_STATE_CHANGE_FAILURE || error,
             "READY failed without an error message for \"%s\"", desc->str);
  g_free(plan);
  g_string_free(desc, TRUE);
  return 0;
}
