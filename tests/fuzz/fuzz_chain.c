/* gst-fx — fuzz target: fxchain's chain handling through the bin's own code path (parse the
 * description, order the elements by their links, check pads, wire ghost pads, build the plan).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The description is assembled from the input by a small grammar over a fixed vocabulary — the fx
 * elements (and names of elements still to come), a few harmless core elements (identity, queue,
 * fakesink, audioconvert), links, brackets, nested fxchains, properties with fuzzed names and
 * values — so the fuzzer explores structure (unlinked parts, sinks in the middle, bracketed and
 * nested chains, name clashes, unknown elements and properties) and values, but can never name an
 * element that touches files or devices. Arbitrary text is not fed: GStreamer 1.22's own parser
 * crashes on some malformed descriptions before fxchain sees anything (a link cycle through a tee
 * recurses without end; "identity b.identity ! identity) !" dereferences NULL) — found by an
 * earlier version of this target, reproduced with Gst.parse_bin_from_description() alone, listed in
 * docs/reliability.md. Each input: set `chain`,
 * go to READY and back to NULL, read `plan`. Invariants: no crash (sanitizers), the state change
 * either succeeds or fails with an error message on the bus; never a hang. */
#include <gst/gst.h>

#include "fuzz.h"

static const char *const elements[] = {
    "fxbutterworth", "fxchebyshev1", "fxchebyshev2", "fxelliptic", "fxlinkwitzriley",
    "fxbiquad",      "fxsos",        "fxgain",       "fxchain",    "identity",
    "queue",         "fakesink",     "audioconvert", "fxfir",      "fxdelay",
    "fxreverb",      "fxnormalize",  "fxcompressor",
};

static const char *const props[] = {
    "mode",           "order", "cutoff",         "lower-frequency", "upper-frequency",
    "gain",           "q",     "type",           "ripple",          "attenuation",
    "sections",       "clip",  "fuse",           "device",          "precision",
    "frequency",      "name",  "scan-threshold", "cuda-graphs",     "warm-up",
    "bogus-property",
};

static const char *const values[] = {
    "high-pass",
    "band-pass",
    "band-reject",
    "peaking",
    "low-shelf",
    "true",
    "false",
    "cuda",
    "single",
    "double",
    "a",
    "b",
    "1e308",
    "-1",
    "0",
    "nan",
    "inf",
    "\"1 0 0 1 0 0\"",
    "\"1 2 1 1 -1.9 0.95; 1 0 0\"",
    "\"< < 1, 0, 0, 1, 0, 0 > >\"",
};

/* A well-formed description: stages separated by " ! " (sometimes a space: unlinked parts),
 * each an element with properties (fuzzed names and values), sometimes a bracketed sub-chain or a
 * nested fxchain with a chain of its own. References ("name.") are left out: GStreamer 1.22's
 * parser crashes on some of them by itself (docs/reliability.md). */
static void fuzz_chain_desc(fuzz_in_t *in, GString *d, int depth)
{
  int stages = 1 + fuzz_u8(in) % 5;
  for (int i = 0; i < stages && in->n > 0 && d->len < 600; i++) {
    uint8_t k = fuzz_u8(in);
    if (i > 0)
      g_string_append(d, k % 11 == 0 ? " " : " ! ");
    if (k % 13 == 1 && depth < 2) {
      g_string_append(d, "( ");
      fuzz_chain_desc(in, d, depth + 1);
      g_string_append(d, " )");
      continue;
    }
    if (k % 13 == 2 && depth < 1) {
      GString *inner = g_string_new(NULL);
      fuzz_chain_desc(in, inner, depth + 1);
      /* Quotes inside the inner chain are escaped for the outer string. */
      g_string_append(d, "fxchain chain=\"");
      for (const char *c = inner->str; *c; c++) {
        if (*c == '"' || *c == '\\')
          g_string_append_c(d, '\\');
        g_string_append_c(d, *c);
      }
      g_string_append(d, "\"");
      g_string_free(inner, TRUE);
      continue;
    }
    g_string_append(d, elements[fuzz_u8(in) % G_N_ELEMENTS(elements)]);
    for (int p = fuzz_u8(in) % 4; p > 0; p--) {
      uint8_t v = fuzz_u8(in);
      g_string_append_printf(d, " %s=", props[fuzz_u8(in) % G_N_ELEMENTS(props)]);
      if (v < 128)
        g_string_append_printf(d, "%.6g", fuzz_range(in, -10.0, 30000.0));
      else
        g_string_append(d, values[v % G_N_ELEMENTS(values)]);
    }
  }
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

  fuzz_chain_desc(&in, desc, 0);
  if (getenv("FUZZ_VERBOSE"))
    fprintf(stderr, "chain: %s\n", desc->str);
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
