/* gst-fx — fxchain: a bin that fuses runs of adjacent IIR stages into one cascade.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:element-fxchain
 * @title: fxchain
 * @short_description: a chain of audio filters in which adjacent IIR stages run as one cascade
 *
 * `fxchain` holds a linear chain of audio elements and runs every maximal run of adjacent IIR
 * elements (`fxbutterworth`, `fxchebyshev1`, `fxchebyshev2`, `fxelliptic`, `fxlinkwitzriley`,
 * `fxbiquad`, `fxsos`), together with any non-clipping `fxgain` before, between or after them, as
 * ONE second-order-sections cascade that is called once per buffer (one dispatch), instead of
 * once per element. Any other element with exactly one audio sink pad and one audio src pad
 * (`audioconvert`, `volume`, a clipping `fxgain`, ...) is an opaque stage that runs on its own
 * and ends the run. `fxeq` is an IIR element too: all its bands join the run (each band a stage
 * of its own in the cascade, as in the standalone EQ).
 *
 * The chain is given by the `chain` property, or with gst-launch's bin syntax
 * (`fxchain.( a ! b )`), or by adding and linking elements in the bin. `chain` is one linear chain
 * in gst-launch's element syntax and quoting, read by fxchain's own parser (gstfxchainparse.c):
 * `factory prop=value prop="quoted value" ! factory2 ...`, a caps string such as
 * `audio/x-raw,format=F32LE` as a stage, at most 1024 elements; references (`name.`), brackets
 * and braces are refused. Every value is checked against the property's range or names before it
 * is set. The children keep
 * their names (gst_bin_get_by_name() finds them) and remain the place where parameters are set:
 * setting a child's property, or automating it with a #GstControlSource, changes the fused
 * cascade at the next buffer without resetting the filter history.
 *
 * How it works: on the NULL to READY transition (and whenever `chain` or `fuse` is set in NULL
 * or READY) the bin plans the chain with libfxdsp's fusion planner. For every run it creates an
 * internal fused stage (#GstFxFused, not a registered element) that runs the concatenated
 * cascade; the run's children stay in the bin, unlinked. Opaque stages and IIR elements that
 * run alone are linked as they are. The bin's pads are ghost pads retargeted to the first and
 * last stage. `plan` shows the result, one line per stage:
 * `0: cascade hp+lp: 6 sections, backend cpu-scalar-f64` or `1: opaque conv (audioconvert)`.
 *
 * Sample formats: the pads take F32LE, F64LE, S32LE and S16LE. An S16 (S32) stream is converted
 * to F32 (F64) once on the way in, every stage runs on floats, and the result is requantised once
 * on the way out (rounding to nearest, `clipped`, `dither`: docs/formats.md), by two internal
 * converters that are linked in only while the stream is an integer one.
 *
 * The common properties (`device`, `precision`, `scan-threshold`, `cuda-graphs`) apply to every
 * stage: the fused stages always use the bin's values; an IIR child keeps its own values unless
 * the property has been set on the bin. `dispatches` and `launches` are totals over all stages;
 * `backend` lists what the cascades run on (comma-separated when stages differ).
 *
 * At EOS the bin posts an element message `fxchain-stats` with `plan` (string), `buffers`,
 * `dispatches` and `launches` (guint64) and `backend` (string), so `gst-launch-1.0 -m` or an
 * application's bus handler can see what ran and how many native calls it took.
 *
 * Errors: a `chain` that does not parse or names an unknown element or property, a value that is
 * invalid or out of range or names no enum value, an element without exactly one audio sink pad
 * and one audio src pad, children that do not form one linear chain, more than 1024 elements, and
 * an empty bin make the bin fail to reach READY (or PAUSED, when set in READY) with an element
 * error of one line naming the offending part (for a value: the element, property, value and the
 * valid range or names, e.g. `fxgain: gain=-200 is out of range [-120, 60]`). Changing `chain` or
 * `fuse` while PAUSED or PLAYING is refused with a warning. A folded `fxgain` whose `clip` is
 * switched on while playing keeps being folded (with a warning) until the bin goes through READY
 * again.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 audiotestsrc wave=white-noise ! audioconvert ! fxchain chain="fxbutterworth
 *   mode=high-pass cutoff=80 order=4 ! fxbutterworth mode=low-pass cutoff=12000 order=8" !
 *   audioconvert ! autoaudiosink
 * ]|
 * |[
 * gst-launch-1.0 audiotestsrc ! audio/x-raw,format=F32LE ! fxchain.( fxbiquad type=peaking
 *   gain=3 ! fxgain gain=-3 ! fxlinkwitzriley ) ! audioconvert ! autoaudiosink
 * ]|
 * |[
 * gst-launch-1.0 -v audiotestsrc num-buffers=100 ! audio/x-raw,format=F64LE ! fxchain name=c
 *   fuse=false chain="fxbiquad ! volume ! fxsos sections=\"0.2 0.4 0.2 1 -0.4 0.2\"" ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxchain.h"

#include "gstfxchainparse.h"

#include "gstfxcommon.h"
#include "gstfxformat.h"
#include "gstfxfused.h"
#include "gstfxgain.h"
#include "gstfxiir.h"
#include "gstfxpreset.h"
#include "plan.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC(gst_fx_chain_debug);
#define GST_CAT_DEFAULT gst_fx_chain_debug

#define DEFAULT_FUSE TRUE
/* Rate at which `plan` counts sections before the stream is negotiated. */
#define PLAN_PREVIEW_RATE 48000

enum {
  PROP_0,
  PROP_CHAIN,
  PROP_FUSE,
  PROP_PLAN,
  PROP_DEVICE, /* the common properties, in GstFxCommonProp order */
  PROP_PRECISION,
  PROP_DISPATCHES,
  PROP_BACKEND,
  PROP_SCAN_THRESHOLD,
  PROP_CUDA_GRAPHS,
  PROP_LAUNCHES,
  PROP_WARM_UP,
};
G_STATIC_ASSERT(PROP_WARM_UP == PROP_DEVICE + GST_FX_COMMON_PROP_WARM_UP);
/* dither, dither-seed, clipped: PROP_FORMAT + GstFxFormatProp, forwarded to the out converter */
#define PROP_FORMAT 64

/* A plan stage: one element of the data path, as the fusion planner cut the children (one
 * fx_plan_stage_t of dsp/plan.h). */
typedef struct {
  GstElement *element; /* ref: a fused stage or a child; NULL in a preview */
  gboolean cascade;    /* runs as a cascade (a fused stage or a lone IIR child) */
  GPtrArray *covers;   /* GstElement refs: the children this plan stage stands for */
} PlanStage;

struct _GstFxChain {
  GstBin parent;

  GstPad *sinkpad, *srcpad; /* our own ghost pads (transfer none) */

  /* The format converters at the edges of the data path (refs; in the bin while wired): an
   * integer stream is converted to float once on the way in and requantised once on the way out,
   * so the stages in between (fused cascades, lone elements) all run on floats. They are linked
   * in only while the stream is S16 or S32 (conv_linked): a float stream goes from the ghost pads
   * straight to the stages, without their per-buffer cost. The switch happens on the CAPS event
   * at the sink ghost pad (event_ghost, whose event function is wrapped; sink_event_orig: the
   * one it had). wire_lock. */
  GstElement *conv_in, *conv_out;
  gboolean conv_linked;
  GstPad *event_ghost;
  GstPadEventFunction sink_event_orig;
  GstPadQueryFunction sink_query_orig; /* its query function, wrapped too (ghost_sink_query) */

  /* Settings, object lock. */
  gchar *chain;
  gboolean fuse;
  GstFxCommonSettings common;
  guint explicit_common; /* bits 1 << GstFxCommonProp: set on the bin */

  /* Wiring, wire_lock (recursive: bin signals may call back into get_property). */
  GRecMutex wire_lock;
  GPtrArray *order;       /* GstElement refs: the children in chain order (last wiring) */
  GPtrArray *plan_stages; /* PlanStage*: the data path (empty when not wired) */
  GPtrArray *links;       /* GstPad refs, (src, sink) pairs linked by the wiring */
  gchar *chain_error;     /* why the chain property could not be applied (NULL when fine) */
  gchar *wire_error;      /* why the last wiring failed (NULL when fine) */
  guint fused_counter;

  /* The ghost src pad in use and its internal pad, whose pad functions count the buffers leaving
   * the bin and report at EOS (wire_lock; see stats_install()); stats_probe: the pad probe used
   * instead when those functions are not GStreamer's defaults (0: none). buffers_out: streaming
   * thread only; reset on wiring. */
  GstPad *stats_pad, *stats_internal;
  gulong stats_probe;
  guint64 buffers_out;
};

G_DEFINE_TYPE_WITH_CODE(GstFxChain, gst_fx_chain, GST_TYPE_BIN,
                        G_IMPLEMENT_INTERFACE(GST_TYPE_PRESET, gst_fx_preset_bin_interface_init))
GST_ELEMENT_REGISTER_DEFINE(fxchain, "fxchain", GST_RANK_NONE, GST_TYPE_FX_CHAIN);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE(
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(GST_FX_AUDIO_CAPS));
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(GST_FX_AUDIO_CAPS));

static void gst_fx_chain_set_property(GObject *object, guint prop_id, const GValue *value,
                                      GParamSpec *pspec);
static void gst_fx_chain_get_property(GObject *object, guint prop_id, GValue *value,
                                      GParamSpec *pspec);
static void gst_fx_chain_dispose(GObject *object);
static void gst_fx_chain_finalize(GObject *object);
static GstStateChangeReturn gst_fx_chain_change_state(GstElement *element,
                                                      GstStateChange transition);
static void stats_remove(GstFxChain *self);
static gboolean converter_links(GstFxChain *self, gboolean on);

static void gst_fx_chain_class_init(GstFxChainClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);

  GST_DEBUG_CATEGORY_INIT(gst_fx_chain_debug, "fxchain", 0, "gst-fx fusing bin");

  gobject_class->set_property = gst_fx_chain_set_property;
  gobject_class->get_property = gst_fx_chain_get_property;
  gobject_class->dispose = gst_fx_chain_dispose;
  gobject_class->finalize = gst_fx_chain_finalize;

  g_object_class_install_property(
      gobject_class, PROP_CHAIN,
      g_param_spec_string("chain", "Chain",
                          "A linear chain of audio elements in gst-launch syntax, e.g. "
                          "\"fxbutterworth mode=high-pass cutoff=80 ! fxbiquad type=peaking "
                          "gain=3\" (at most 1024 elements; no references, branches or "
                          "brackets; a value out of range is an error); replaces the bin's "
                          "children (NULL or READY only)",
                          NULL,
                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property(
      gobject_class, PROP_FUSE,
      g_param_spec_boolean("fuse", "Fuse",
                           "Run adjacent IIR stages (and non-clipping fxgain) as one cascade; "
                           "FALSE runs every child as its own stage (NULL or READY only)",
                           DEFAULT_FUSE,
                           G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property(
      gobject_class, PROP_PLAN,
      g_param_spec_string("plan", "Plan",
                          "The fusion plan, one line per stage: the children it covers, its "
                          "sections and backend",
                          NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  gst_fx_install_common_properties(gobject_class, PROP_DEVICE);
  gst_fx_install_format_properties(gobject_class, PROP_FORMAT);

  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_element_class_set_static_metadata(
      element_class, "Fusing filter chain", "Filter/Effect/Audio",
      "A chain of audio filters in which every run of adjacent IIR stages (and non-clipping "
      "gains) runs as one second-order-sections cascade, one dispatch per buffer",
      "gst-fx developers");

  element_class->change_state = GST_DEBUG_FUNCPTR(gst_fx_chain_change_state);
}

static void plan_stage_free(gpointer data)
{
  PlanStage *st = data;

  if (st->element)
    gst_object_unref(st->element);
  g_ptr_array_unref(st->covers);
  g_free(st);
}

static void gst_fx_chain_init(GstFxChain *self)
{
  GstPadTemplate *sink_t = gst_static_pad_template_get(&sink_template);
  GstPadTemplate *src_t = gst_static_pad_template_get(&src_template);

  self->sinkpad = gst_ghost_pad_new_no_target_from_template("sink", sink_t);
  self->srcpad = gst_ghost_pad_new_no_target_from_template("src", src_t);
  gst_object_unref(sink_t);
  gst_object_unref(src_t);
  gst_element_add_pad(GST_ELEMENT(self), self->sinkpad);
  gst_element_add_pad(GST_ELEMENT(self), self->srcpad);

  self->fuse = DEFAULT_FUSE;
  gst_fx_common_settings_init(&self->common);
  self->conv_in = gst_object_ref_sink(gst_fx_requant_new("fxchain-format-in", TRUE));
  self->conv_out = gst_object_ref_sink(gst_fx_requant_new("fxchain-format-out", FALSE));
  gst_fx_requant_set_partner(GST_FX_REQUANT(self->conv_out), GST_FX_REQUANT(self->conv_in));

  g_rec_mutex_init(&self->wire_lock);
  self->order = g_ptr_array_new_with_free_func(gst_object_unref);
  self->plan_stages = g_ptr_array_new_with_free_func(plan_stage_free);
  self->links = g_ptr_array_new_with_free_func(gst_object_unref);
}

static void gst_fx_chain_dispose(GObject *object)
{
  GstFxChain *self = GST_FX_CHAIN(object);

  g_rec_mutex_lock(&self->wire_lock);
  stats_remove(self);
  g_clear_object(&self->event_ghost); /* the sink ghost pad's ref taken while wired */
  g_ptr_array_set_size(self->links, 0);
  g_ptr_array_set_size(self->plan_stages, 0);
  g_ptr_array_set_size(self->order, 0);
  g_rec_mutex_unlock(&self->wire_lock);

  G_OBJECT_CLASS(gst_fx_chain_parent_class)->dispose(object);
  g_clear_object(&self->conv_in);
  g_clear_object(&self->conv_out);
}

static void gst_fx_chain_finalize(GObject *object)
{
  GstFxChain *self = GST_FX_CHAIN(object);

  g_ptr_array_unref(self->links);
  g_ptr_array_unref(self->plan_stages);
  g_ptr_array_unref(self->order);
  g_free(self->chain);
  g_free(self->wire_error);
  g_free(self->chain_error);
  g_rec_mutex_clear(&self->wire_lock);

  G_OBJECT_CLASS(gst_fx_chain_parent_class)->finalize(object);
}

/* ---- Stages: checking an element, ordering the children ---- */

static gchar *element_label(GstElement *e)
{
  GstElementFactory *f = gst_element_get_factory(e);
  gchar *name = gst_object_get_name(GST_OBJECT(e));
  gchar *label = g_strdup_printf("'%s' (%s)", name, f ? GST_OBJECT_NAME(f) : G_OBJECT_TYPE_NAME(e));
  g_free(name);
  return label;
}

/* The element's only sink and src pad (refs), or FALSE with *why set when the element cannot be a
 * child of the chain: it needs exactly one always sink pad and one always src pad, both able to
 * carry audio/x-raw. */
static gboolean element_pads(GstElement *e, GstPad **sink, GstPad **src, gchar **why)
{
  GstCaps *audio = gst_caps_new_empty_simple("audio/x-raw");
  const GList *l;
  gboolean ok = FALSE;

  *sink = *src = NULL;
  for (l = gst_element_class_get_pad_template_list(GST_ELEMENT_GET_CLASS(e)); l; l = l->next) {
    GstPadTemplate *t = l->data;
    if (GST_PAD_TEMPLATE_PRESENCE(t) != GST_PAD_ALWAYS) {
      *why =
          g_strdup_printf("it has %s pads (%s); a stage needs exactly one audio sink pad and "
                          "one audio src pad",
                          GST_PAD_TEMPLATE_PRESENCE(t) == GST_PAD_REQUEST ? "request" : "sometimes",
                          GST_PAD_TEMPLATE_NAME_TEMPLATE(t));
      goto out;
    }
  }

  GST_OBJECT_LOCK(e);
  if (e->numsinkpads != 1 || e->numsrcpads != 1) {
    *why = g_strdup_printf("it has %u sink pad(s) and %u src pad(s); a stage needs exactly one "
                           "audio sink pad and one audio src pad",
                           e->numsinkpads, e->numsrcpads);
    GST_OBJECT_UNLOCK(e);
    goto out;
  }
  *sink = gst_object_ref(e->sinkpads->data);
  *src = gst_object_ref(e->srcpads->data);
  GST_OBJECT_UNLOCK(e);

  for (int i = 0; i < 2; i++) {
    GstPad *pad = i == 0 ? *sink : *src;
    GstCaps *caps = gst_pad_get_pad_template_caps(pad);
    gboolean can = gst_caps_can_intersect(caps, audio);
    if (!can) {
      gchar *s = gst_caps_to_string(caps);
      *why = g_strdup_printf("its %s pad does not take audio/x-raw (it takes %.80s)",
                             i == 0 ? "sink" : "src", s);
      g_free(s);
    }
    gst_caps_unref(caps);
    if (!can)
      goto out;
  }
  ok = TRUE;

out:
  if (!ok) {
    g_clear_object(sink);
    g_clear_object(src);
  }
  gst_caps_unref(audio);
  return ok;
}

/* Checks every element in @elements and orders them by their links (src -> sink) into
 * *order (GstElement refs). FALSE with *error set when an element cannot be a child or the links do
 * not make exactly one linear chain. */
static gboolean order_by_links(GPtrArray *elements, GPtrArray **order, gchar **error)
{
  guint n = elements->len;
  gint *next = g_new(gint, n);
  gboolean *has_prev = g_new0(gboolean, n);
  GPtrArray *out = NULL;
  GHashTable *index = g_hash_table_new(NULL, NULL); /* element -> its index + 1 */
  gint head = -1;
  guint heads = 0;

  for (guint i = 0; i < n; i++)
    g_hash_table_insert(index, g_ptr_array_index(elements, i), GUINT_TO_POINTER(i + 1));

  for (guint i = 0; i < n; i++) {
    GstElement *e = g_ptr_array_index(elements, i);
    GstPad *sink, *src, *peer;
    gchar *why = NULL;

    next[i] = -1;
    if (!element_pads(e, &sink, &src, &why)) {
      gchar *label = element_label(e);
      *error = g_strdup_printf("element %s cannot be a stage of fxchain: %s", label, why);
      g_free(label);
      g_free(why);
      goto fail;
    }
    peer = gst_pad_get_peer(src);
    if (peer) {
      GstElement *pe = gst_pad_get_parent_element(peer);
      guint j = pe ? GPOINTER_TO_UINT(g_hash_table_lookup(index, pe)) : 0;
      if (j > 0)
        next[i] = (gint) j - 1;
      if (pe)
        gst_object_unref(pe);
      gst_object_unref(peer);
    }
    gst_object_unref(sink);
    gst_object_unref(src);
  }
  for (guint i = 0; i < n; i++)
    if (next[i] >= 0)
      has_prev[next[i]] = TRUE;
  for (guint i = 0; i < n; i++) {
    if (!has_prev[i]) {
      heads++;
      if (head < 0)
        head = (gint) i;
    }
  }

  out = g_ptr_array_new_with_free_func(gst_object_unref);
  for (gint i = head; i >= 0 && out->len <= n; i = next[i])
    g_ptr_array_add(out, gst_object_ref(g_ptr_array_index(elements, i)));
  if (heads != 1 || out->len != n) {
    *error = g_strdup_printf("the %u elements in fxchain do not form one linear chain (%u "
                             "unconnected pieces); link them with '!'",
                             n, heads);
    goto fail;
  }
  g_free(next);
  g_free(has_prev);
  g_hash_table_unref(index);
  *order = out;
  return TRUE;

fail:
  if (out)
    g_ptr_array_unref(out);
  g_free(next);
  g_free(has_prev);
  g_hash_table_unref(index);
  return FALSE;
}

/* The bin's children other than its fused stages and format converters (refs): the chain's
 * children. */
static GPtrArray *chain_children(GstFxChain *self)
{
  GPtrArray *a = g_ptr_array_new_with_free_func(gst_object_unref);
  GList *l;

  GST_OBJECT_LOCK(self);
  for (l = GST_BIN_CHILDREN(self); l; l = l->next)
    if (!GST_IS_FX_FUSED(l->data) && !GST_IS_FX_REQUANT(l->data))
      g_ptr_array_add(a, gst_object_ref(l->data));
  GST_OBJECT_UNLOCK(self);
  /* children are prepended: reverse into the order they were added */
  for (guint i = 0, j = a->len; i + 1 < j; i++, j--) {
    gpointer t = a->pdata[i];
    a->pdata[i] = a->pdata[j - 1];
    a->pdata[j - 1] = t;
  }
  return a;
}

/* The sink or src pad (ref) of a plan stage's element, NULL when it has none. */
static GstPad *element_pad(GstElement *e, GstPadDirection dir)
{
  GstPad *sink = NULL, *src = NULL;
  gchar *why = NULL;

  if (GST_IS_FX_FUSED(e))
    return gst_element_get_static_pad(e, dir == GST_PAD_SINK ? "sink" : "src");
  if (!element_pads(e, &sink, &src, &why)) {
    g_free(why);
    return NULL;
  }
  gst_object_unref(dir == GST_PAD_SINK ? src : sink);
  return dir == GST_PAD_SINK ? sink : src;
}

/* Links a's src pad to b's sink pad when both are free. */
static gboolean link_elements(GstElement *a, GstElement *b, GPtrArray *record)
{
  GstPad *src = element_pad(a, GST_PAD_SRC), *sink = element_pad(b, GST_PAD_SINK);
  gboolean ok = FALSE;

  if (src && sink) {
    if (gst_pad_is_linked(src) || gst_pad_is_linked(sink))
      ok = FALSE;
    else
      /* Template caps only: the default check queries the caps of both sides, and each query
       * walks the chain linked so far, which made wiring a long chain quadratic. Negotiation
       * still checks the real caps. */
      ok = GST_PAD_LINK_SUCCESSFUL(gst_pad_link_full(
          src, sink, GST_PAD_LINK_CHECK_HIERARCHY | GST_PAD_LINK_CHECK_TEMPLATE_CAPS));
    if (ok && record) {
      g_ptr_array_add(record, gst_object_ref(src));
      g_ptr_array_add(record, gst_object_ref(sink));
    }
  }
  if (src)
    gst_object_unref(src);
  if (sink)
    gst_object_unref(sink);
  return ok;
}

static void unlink_elements(GstElement *a, GstElement *b)
{
  GstPad *src = element_pad(a, GST_PAD_SRC), *sink = element_pad(b, GST_PAD_SINK);

  if (src && sink) {
    GstPad *peer = gst_pad_get_peer(src);
    if (peer == sink)
      gst_pad_unlink(src, sink);
    if (peer)
      gst_object_unref(peer);
  }
  if (src)
    gst_object_unref(src);
  if (sink)
    gst_object_unref(sink);
}

/* ---- Planning ---- */

/* Cuts the children in @order into plan stages with the fusion planner (no elements created). */
static GPtrArray *plan_stages(GPtrArray *order, gboolean fuse)
{
  guint n = order->len;
  fx_plan_entry_t *st = g_new0(fx_plan_entry_t, MAX(n, 1)); /* the planner's input: one per child */
  fx_plan_stage_t *ps = g_new0(fx_plan_stage_t, MAX(n, 1));
  GPtrArray *stages = g_ptr_array_new_with_free_func(plan_stage_free);
  int count;

  for (guint i = 0; i < n; i++) {
    GstElement *e = g_ptr_array_index(order, i);
    if (GST_IS_FX_IIR(e)) {
      st[i].kind = FX_PLAN_ENTRY_IIR;
    } else if (GST_IS_FX_GAIN(e)) {
      gboolean clip = FALSE;
      st[i].kind = FX_PLAN_ENTRY_GAIN;
      gst_fx_gain_get_linear(GST_FX_GAIN(e), &st[i].gain, &clip);
      st[i].clip = clip ? 1 : 0;
    } else {
      st[i].kind = FX_PLAN_ENTRY_OPAQUE;
    }
  }
  count = fx_plan_chain(st, (int) n, fuse ? 1 : 0, ps, (int) n);
  g_assert(count >= 0 && count <= (int) n);
  for (int k = 0; k < count; k++) {
    PlanStage *s = g_new0(PlanStage, 1);
    s->cascade = ps[k].is_cascade != 0;
    s->covers = g_ptr_array_new_with_free_func(gst_object_unref);
    for (int i = ps[k].first; i <= ps[k].last; i++)
      g_ptr_array_add(s->covers, gst_object_ref(g_ptr_array_index(order, i)));
    g_ptr_array_add(stages, s);
  }
  g_free(st);
  g_free(ps);
  return stages;
}

/* ---- Common properties ---- */

static const char *const common_names[GST_FX_COMMON_PROP_COUNT] = {
    "device", "precision", NULL, NULL, "scan-threshold", "cuda-graphs", NULL, "warm-up",
};

/* Applies the bin's common settings to @e: all of them (fused stages) or only those set on the
 * bin (IIR children). */
static void apply_common(GstFxChain *self, GstElement *e, gboolean all)
{
  GstFxDevice device;
  GstFxPrecision precision;
  guint scan, mask;
  gboolean graphs, warm_up;

  if (!GST_IS_FX_IIR(e))
    return;
  GST_OBJECT_LOCK(self);
  device = self->common.device;
  precision = self->common.precision;
  scan = self->common.scan_threshold;
  graphs = self->common.cuda_graphs;
  warm_up = self->common.warm_up;
  mask = all ? ~0u : self->explicit_common;
  GST_OBJECT_UNLOCK(self);

  if (mask & (1u << GST_FX_COMMON_PROP_DEVICE))
    g_object_set(e, "device", device, NULL);
  if (mask & (1u << GST_FX_COMMON_PROP_PRECISION))
    g_object_set(e, "precision", precision, NULL);
  if (mask & (1u << GST_FX_COMMON_PROP_SCAN_THRESHOLD))
    g_object_set(e, "scan-threshold", scan, NULL);
  if (mask & (1u << GST_FX_COMMON_PROP_CUDA_GRAPHS))
    g_object_set(e, "cuda-graphs", graphs, NULL);
  if (mask & (1u << GST_FX_COMMON_PROP_WARM_UP))
    g_object_set(e, "warm-up", warm_up, NULL);
}

/* wire_lock held. */
static void apply_common_all(GstFxChain *self)
{
  for (guint i = 0; i < self->order->len; i++)
    apply_common(self, g_ptr_array_index(self->order, i), FALSE);
  for (guint i = 0; i < self->plan_stages->len; i++) {
    PlanStage *s = g_ptr_array_index(self->plan_stages, i);
    if (s->element && GST_IS_FX_FUSED(s->element))
      apply_common(self, s->element, TRUE);
  }
}

/* ---- Wiring ---- */

static void set_error(GstFxChain *self, gchar *error)
{
  g_free(self->wire_error);
  self->wire_error = error;
}

/* The bin's ghost pads in @dir: the one linked outside (gst-launch's bin syntax makes its own),
 * else ours. */
static GstPad *pick_ghost(GstFxChain *self, GstPadDirection dir)
{
  GstPad *own = dir == GST_PAD_SINK ? self->sinkpad : self->srcpad;
  GstPad *pick = NULL;
  GList *l;

  GST_OBJECT_LOCK(self);
  for (l = dir == GST_PAD_SINK ? GST_ELEMENT(self)->sinkpads : GST_ELEMENT(self)->srcpads; l;
       l = l->next) {
    if (GST_IS_GHOST_PAD(l->data) && GST_PAD_PEER(l->data) != NULL) {
      pick = l->data;
      break;
    }
  }
  pick = gst_object_ref(pick ? pick : own);
  GST_OBJECT_UNLOCK(self);
  return pick;
}

static void clear_ghost_targets(GstFxChain *self)
{
  GList *pads = NULL, *l;

  GST_OBJECT_LOCK(self);
  for (l = GST_ELEMENT(self)->pads; l; l = l->next)
    if (GST_IS_GHOST_PAD(l->data))
      pads = g_list_prepend(pads, gst_object_ref(l->data));
  GST_OBJECT_UNLOCK(self);
  for (l = pads; l; l = l->next)
    gst_ghost_pad_set_target(GST_GHOST_PAD(l->data), NULL);
  g_list_free_full(pads, gst_object_unref);
}

/* Posts `fxchain-stats` (the EOS report; streaming thread). */
static void stats_post(GstFxChain *self)
{
  gchar *plan = NULL, *backend = NULL;
  guint64 dispatches = 0, launches = 0;

  g_object_get(self, "plan", &plan, "dispatches", &dispatches, "launches", &launches, "backend",
               &backend, NULL);
  gst_element_post_message(
      GST_ELEMENT(self),
      gst_message_new_element(
          GST_OBJECT(self),
          gst_structure_new("fxchain-stats", "plan", G_TYPE_STRING, plan, "buffers", G_TYPE_UINT64,
                            self->buffers_out, "dispatches", G_TYPE_UINT64, dispatches, "launches",
                            G_TYPE_UINT64, launches, "backend", G_TYPE_STRING, backend, NULL)));
  g_free(plan);
  g_free(backend);
}

/* The bin that owns the ghost pad `ghost` (the parent of an internal pad), or NULL. The stats
 * pad functions are installed only on the ghost pads of an fxchain, which stay its own while it
 * streams, so no type check is made (this runs per buffer). */
static GstFxChain *stats_owner(GstObject *ghost)
{
  return ghost ? (GstFxChain *) GST_OBJECT_PARENT(ghost) : NULL;
}

/* The internal pad's chain function: counts the buffer, then does what the ghost pad's internal
 * pad does by default (pushes it out of the ghost pad). */
static GstFlowReturn stats_chain(GstPad *pad, GstObject *parent, GstBuffer *buffer)
{
  GstFxChain *self = stats_owner(parent);

  if (self)
    self->buffers_out++;
  return gst_proxy_pad_chain_default(pad, parent, buffer);
}

/* The internal pad's event function: the report at EOS, before EOS leaves the bin. */
static gboolean stats_event(GstPad *pad, GstObject *parent, GstEvent *event)
{
  GstFxChain *self = stats_owner(parent);

  if (self && GST_EVENT_TYPE(event) == GST_EVENT_EOS)
    stats_post(self);
  return gst_pad_event_default(pad, parent, event);
}

/* The ghost src pad's getrange function (downstream pulling): counts what is pulled. */
static GstFlowReturn stats_getrange(GstPad *pad, GstObject *parent, guint64 offset, guint length,
                                    GstBuffer **buffer)
{
  GstFlowReturn ret = gst_proxy_pad_getrange_default(pad, parent, offset, length, buffer);

  if (ret == GST_FLOW_OK && parent)
    ((GstFxChain *) parent)->buffers_out++;
  return ret;
}

/* The fallback: a probe on the ghost src pad that counts and reports (streaming thread). */
static GstPadProbeReturn stats_probe(GstPad *pad, GstPadProbeInfo *info, gpointer user_data)
{
  GstFxChain *self = GST_FX_CHAIN(user_data);

  (void) pad;
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER)
    self->buffers_out++;
  else if (GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info)) == GST_EVENT_EOS)
    stats_post(self);
  return GST_PAD_PROBE_OK;
}

/* wire_lock held. */
static void stats_remove(GstFxChain *self)
{
  if (self->stats_internal) { /* GStreamer's defaults again */
    gst_pad_set_chain_function(self->stats_internal, gst_proxy_pad_chain_default);
    gst_pad_set_event_function(self->stats_internal, gst_pad_event_default);
    gst_pad_set_getrange_function(self->stats_pad, gst_proxy_pad_getrange_default);
    gst_clear_object(&self->stats_internal);
  }
  if (self->stats_probe) {
    gst_pad_remove_probe(self->stats_pad, self->stats_probe);
    self->stats_probe = 0;
  }
  gst_clear_object(&self->stats_pad);
}

/* wire_lock held; `ghost`: the src ghost pad now in use. The buffer count and the EOS report go
 * into the pad functions of the ghost pad's internal pad (and the ghost pad's getrange), wrapping
 * the defaults GstGhostPad installs, rather than into a pad probe: any probe on a pad makes every
 * push through it walk the pad's probe list, a cost paid per buffer. Where those functions are
 * not the defaults (another GStreamer), a probe does it. Buffer lists are not counted, as
 * before. */
static void stats_install(GstFxChain *self, GstPad *ghost)
{
  GstPad *internal = GST_PAD(gst_proxy_pad_get_internal(GST_PROXY_PAD(ghost)));

  stats_remove(self);
  self->buffers_out = 0;
  self->stats_pad = gst_object_ref(ghost);
  if (internal && GST_PAD_CHAINFUNC(internal) == gst_proxy_pad_chain_default &&
      GST_PAD_EVENTFUNC(internal) == gst_pad_event_default &&
      GST_PAD_EVENTFULLFUNC(internal) == NULL &&
      GST_PAD_GETRANGEFUNC(ghost) == gst_proxy_pad_getrange_default) {
    gst_pad_set_chain_function(internal, stats_chain);
    gst_pad_set_event_function(internal, stats_event);
    gst_pad_set_getrange_function(ghost, stats_getrange);
    self->stats_internal = internal;
    return;
  }
  GST_DEBUG_OBJECT(self, "ghost pad functions are not the defaults: counting with a probe");
  g_clear_object(&internal);
  self->stats_probe =
      gst_pad_add_probe(ghost, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
                        stats_probe, self, NULL);
}

/* Undoes the wiring: fused stages removed, the children linked in chain order again.
 * wire_lock held. */
static void unwire(GstFxChain *self)
{
  GstElement *prev = NULL;

  stats_remove(self);
  if (self->event_ghost) {
    gst_pad_set_event_function(self->event_ghost, self->sink_event_orig);
    gst_pad_set_query_function(self->event_ghost, self->sink_query_orig);
    g_clear_object(&self->event_ghost);
  }
  /* the converters out first (it points the ghost pads back at the stages), then no targets */
  if (self->conv_linked)
    converter_links(self, FALSE);
  self->conv_linked = FALSE;
  clear_ghost_targets(self);
  for (guint i = 0; i + 1 < self->links->len; i += 2)
    gst_pad_unlink(g_ptr_array_index(self->links, i), g_ptr_array_index(self->links, i + 1));
  g_ptr_array_set_size(self->links, 0);

  for (guint i = 0; i < self->plan_stages->len; i++) {
    PlanStage *s = g_ptr_array_index(self->plan_stages, i);
    if (s->element && GST_IS_FX_FUSED(s->element)) {
      gst_element_set_state(s->element, GST_STATE_NULL);
      gst_bin_remove(GST_BIN(self), s->element);
    }
  }
  g_ptr_array_set_size(self->plan_stages, 0);
  for (guint i = 0; i < 2; i++) {
    GstElement *conv = i == 0 ? self->conv_in : self->conv_out;
    if (conv && GST_OBJECT_PARENT(conv) == GST_OBJECT(self)) {
      gst_element_set_state(conv, GST_STATE_NULL);
      gst_bin_remove(GST_BIN(self), conv);
    }
  }

  for (guint i = 0; i < self->order->len; i++) {
    GstElement *e = g_ptr_array_index(self->order, i);
    if (GST_OBJECT_PARENT(e) != GST_OBJECT(self))
      continue;
    if (prev)
      link_elements(prev, e, NULL);
    prev = e;
  }
}

static gchar *fused_name(GstFxChain *self)
{
  for (;;) {
    gchar *name = g_strdup_printf("fxchain-fused%u", self->fused_counter++);
    GstElement *clash = gst_bin_get_by_name(GST_BIN(self), name);
    if (!clash)
      return name;
    gst_object_unref(clash);
    g_free(name);
  }
}

/* Links the format converters in around the stages (@on) or takes them out, pointing the ghost
 * pads at the converters or at the first and last stage. wire_lock held, the bin wired. */
static gboolean converter_links(GstFxChain *self, gboolean on)
{
  GstElement *first = ((PlanStage *) g_ptr_array_index(self->plan_stages, 0))->element;
  GstElement *last =
      ((PlanStage *) g_ptr_array_index(self->plan_stages, self->plan_stages->len - 1))->element;
  GstPad *gsink = pick_ghost(self, GST_PAD_SINK), *gsrc = pick_ghost(self, GST_PAD_SRC);
  GstPad *fsink = element_pad(first, GST_PAD_SINK), *lsrc = element_pad(last, GST_PAD_SRC);
  GstPad *cin_sink = gst_element_get_static_pad(self->conv_in, "sink");
  GstPad *cin_src = gst_element_get_static_pad(self->conv_in, "src");
  GstPad *cout_sink = gst_element_get_static_pad(self->conv_out, "sink");
  GstPad *cout_src = gst_element_get_static_pad(self->conv_out, "src");
  gboolean ok = fsink && lsrc;

  if (ok && on) {
    /* retargeting unlinks the ghost pads from the stages first */
    ok = gst_ghost_pad_set_target(GST_GHOST_PAD(gsink), cin_sink) &&
         GST_PAD_LINK_SUCCESSFUL(gst_pad_link_full(cin_src, fsink, GST_PAD_LINK_CHECK_NOTHING)) &&
         gst_ghost_pad_set_target(GST_GHOST_PAD(gsrc), cout_src) &&
         GST_PAD_LINK_SUCCESSFUL(gst_pad_link_full(lsrc, cout_sink, GST_PAD_LINK_CHECK_NOTHING));
  } else if (ok) {
    if (gst_pad_is_linked(cin_src))
      gst_pad_unlink(cin_src, fsink);
    if (gst_pad_is_linked(cout_sink))
      gst_pad_unlink(lsrc, cout_sink);
    ok = gst_ghost_pad_set_target(GST_GHOST_PAD(gsink), fsink) &&
         gst_ghost_pad_set_target(GST_GHOST_PAD(gsrc), lsrc);
  }
  for (guint i = 0; i < 8; i++) {
    GstPad *pads[8] = {gsink, gsrc, fsink, lsrc, cin_sink, cin_src, cout_sink, cout_src};
    if (pads[i])
      gst_object_unref(pads[i]);
  }
  return ok;
}

/* The sink ghost pad's event function: at a CAPS event, the converters go in for S16/S32 and out
 * for F32/F64 (before the event goes on, so that it reaches the right pads). Streaming thread. */
static gboolean ghost_sink_event(GstPad *pad, GstObject *parent, GstEvent *event)
{
  GstFxChain *self = GST_FX_CHAIN(parent);
  GstPadEventFunction orig;

  g_rec_mutex_lock(&self->wire_lock);
  orig = self->sink_event_orig;
  if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS && self->plan_stages->len > 0) {
    GstCaps *caps;
    GstAudioInfo info;
    gst_event_parse_caps(event, &caps);
    if (gst_audio_info_from_caps(&info, caps)) {
      GstAudioFormat f = GST_AUDIO_INFO_FORMAT(&info);
      gboolean want = f == GST_AUDIO_FORMAT_S16 || f == GST_AUDIO_FORMAT_S32;
      if (want != self->conv_linked) {
        if (converter_links(self, want)) {
          self->conv_linked = want;
          GST_INFO_OBJECT(self, "%s stream: format converters %s", gst_audio_format_to_string(f),
                          want ? "linked in" : "taken out");
        } else {
          GST_WARNING_OBJECT(self, "cannot relink the format converters");
        }
      }
    }
  }
  g_rec_mutex_unlock(&self->wire_lock);
  return orig ? orig(pad, parent, event) : gst_pad_event_default(pad, parent, event);
}

/* The sink ghost pad's query function: a CAPS query is answered in the order of the stages (F32
 * first, as the elements themselves answer: gstfxformat.h), which the ghost pad would otherwise
 * replace by the asking peer's order. Whether the converters are in or not, a source offering
 * every format gets the same answer, so relinking them never makes it switch formats. */
static gboolean ghost_sink_query(GstPad *pad, GstObject *parent, GstQuery *query)
{
  GstFxChain *self = GST_FX_CHAIN(parent);
  GstPadQueryFunction orig = self->sink_query_orig ? self->sink_query_orig : gst_pad_query_default;
  GstCaps *filter = NULL;
  GstQuery *unfiltered;
  gboolean ret;

  if (GST_QUERY_TYPE(query) != GST_QUERY_CAPS)
    return orig(pad, parent, query);
  gst_query_parse_caps(query, &filter);
  if (filter == NULL)
    return orig(pad, parent, query);
  unfiltered = gst_query_new_caps(NULL);
  ret = orig(pad, parent, unfiltered);
  if (ret) {
    GstCaps *ours = NULL, *res;
    gst_query_parse_caps_result(unfiltered, &ours);
    res = ours ? gst_caps_intersect_full(ours, filter, GST_CAPS_INTERSECT_FIRST)
               : gst_caps_new_empty();
    gst_query_set_caps_result(query, res);
    gst_caps_unref(res);
  }
  gst_query_unref(unfiltered);
  return ret;
}

/* Plans the bin's children and links the data path. wire_lock held. FALSE with self->wire_error
 * set when the children cannot run. */
static gboolean wire(GstFxChain *self)
{
  GPtrArray *children, *order = NULL, *stages;
  GstPad *ghost, *target;
  gchar *error = NULL;
  gboolean fuse, ok;

  unwire(self);
  g_clear_pointer(&self->wire_error, g_free);
  if (self->chain_error) {
    set_error(self, g_strdup(self->chain_error));
    return FALSE;
  }

  children = chain_children(self);
  if (children->len == 0) {
    g_ptr_array_unref(children);
    set_error(self, g_strdup("fxchain is empty: set the chain property (e.g. chain=\"fxbiquad ! "
                             "fxbutterworth\") or put elements in the bin"));
    return FALSE;
  }
  if (children->len > GST_FX_CHAIN_MAX_ELEMENTS) {
    set_error(self, g_strdup_printf("fxchain holds %u elements, more than the %d it takes",
                                    children->len, GST_FX_CHAIN_MAX_ELEMENTS));
    g_ptr_array_unref(children);
    return FALSE;
  }
  ok = order_by_links(children, &order, &error);
  g_ptr_array_unref(children);
  if (!ok) {
    set_error(self, error);
    return FALSE;
  }
  g_ptr_array_unref(self->order);
  self->order = order;

  /* The children's links go; the plan stages are linked instead. */
  for (guint i = 0; i + 1 < order->len; i++)
    unlink_elements(g_ptr_array_index(order, i), g_ptr_array_index(order, i + 1));

  GST_OBJECT_LOCK(self);
  fuse = self->fuse;
  GST_OBJECT_UNLOCK(self);
  stages = plan_stages(order, fuse);

  for (guint k = 0; k < stages->len; k++) {
    PlanStage *s = g_ptr_array_index(stages, k);
    if (s->cascade && s->covers->len > 1) {
      gchar *name = fused_name(self);
      s->element = gst_object_ref_sink(
          gst_fx_fused_new(name, (GstElement *const *) s->covers->pdata, s->covers->len));
      g_free(name);
      gst_bin_add(GST_BIN(self), s->element);
    } else {
      s->element = gst_object_ref(g_ptr_array_index(s->covers, 0));
    }
  }
  g_ptr_array_unref(self->plan_stages);
  self->plan_stages = stages;

  for (guint k = 0; k + 1 < stages->len; k++) {
    GstElement *a = ((PlanStage *) g_ptr_array_index(stages, k))->element;
    GstElement *b = ((PlanStage *) g_ptr_array_index(stages, k + 1))->element;
    if (!link_elements(a, b, self->links)) {
      gchar *la = element_label(a), *lb = element_label(b);
      set_error(self, g_strdup_printf("cannot link %s to %s (incompatible caps?)", la, lb));
      g_free(la);
      g_free(lb);
      return FALSE;
    }
  }

  /* The format converters (see conv_in): in the bin, linked in at an integer CAPS event. */
  if (!gst_bin_add(GST_BIN(self), self->conv_in) || !gst_bin_add(GST_BIN(self), self->conv_out)) {
    set_error(self, g_strdup("cannot add fxchain's format converters (a child named "
                             "fxchain-format-in or fxchain-format-out?)"));
    return FALSE;
  }

  ghost = pick_ghost(self, GST_PAD_SINK);
  target = element_pad(((PlanStage *) g_ptr_array_index(stages, 0))->element, GST_PAD_SINK);
  ok = target && gst_ghost_pad_set_target(GST_GHOST_PAD(ghost), target);
  g_clear_object(&target);
  if (ok) {
    self->event_ghost = gst_object_ref(ghost);
    self->sink_event_orig = GST_PAD_EVENTFUNC(ghost);
    self->sink_query_orig = GST_PAD_QUERYFUNC(ghost);
    gst_pad_set_event_function(ghost, ghost_sink_event);
    gst_pad_set_query_function(ghost, ghost_sink_query);
  }
  gst_object_unref(ghost);
  if (ok) {
    ghost = pick_ghost(self, GST_PAD_SRC);
    target = element_pad(((PlanStage *) g_ptr_array_index(stages, stages->len - 1))->element,
                         GST_PAD_SRC);
    ok = target && gst_ghost_pad_set_target(GST_GHOST_PAD(ghost), target);
    if (ok)
      stats_install(self, ghost);
    g_clear_object(&target);
    gst_object_unref(ghost);
  }
  if (!ok) {
    set_error(self, g_strdup("cannot point fxchain's pads at its first and last stage"));
    return FALSE;
  }

  apply_common_all(self);
  GST_INFO_OBJECT(self, "wired %u element(s) as %u stage(s)", order->len, stages->len);
  return TRUE;
}

/* Replaces the bin's children by the elements of @desc (NULL or empty: no children), parsed by
 * gstfxchainparse.c, checked as children and linked in order. Sets or clears self->chain_error.
 * wire_lock held, the state NULL or READY. */
static void apply_chain(GstFxChain *self, const gchar *desc)
{
  GPtrArray *old, *elements = NULL;
  gchar *error = NULL;

  unwire(self);
  g_ptr_array_set_size(self->order, 0);
  old = chain_children(self);
  for (guint i = 0; i < old->len; i++) {
    gst_element_set_state(g_ptr_array_index(old, i), GST_STATE_NULL);
    gst_bin_remove(GST_BIN(self), g_ptr_array_index(old, i));
  }
  g_ptr_array_unref(old);
  g_clear_pointer(&self->chain_error, g_free);
  if (!desc || !*desc)
    return;

  elements = gst_fx_chain_parse(desc, &error);
  if (!elements)
    goto out;
  if (elements->len == 0) {
    error = g_strdup("the chain has no elements");
    goto out;
  }
  for (guint i = 0; i < elements->len; i++) {
    GstElement *e = g_ptr_array_index(elements, i);
    GstPad *sink, *src;
    gchar *why = NULL;
    if (!element_pads(e, &sink, &src, &why)) {
      gchar *label = element_label(e);
      error = g_strdup_printf("element %s cannot be a stage of fxchain: %s", label, why);
      g_free(label);
      g_free(why);
      goto out;
    }
    gst_object_unref(sink);
    gst_object_unref(src);
  }
  for (guint i = 0; i < elements->len; i++) {
    GstElement *e = g_ptr_array_index(elements, i);
    if (!gst_bin_add(GST_BIN(self), e)) {
      gchar *label = element_label(e);
      error = g_strdup_printf("element %s clashes with a name in fxchain", label);
      g_free(label);
      goto out;
    }
  }
  for (guint i = 0; i + 1 < elements->len; i++)
    link_elements(g_ptr_array_index(elements, i), g_ptr_array_index(elements, i + 1), NULL);
  g_ptr_array_unref(self->order);
  self->order = elements;
  elements = NULL;

out:
  if (error) {
    /* Elements already added go again: a refused chain leaves the bin empty. */
    GPtrArray *added = chain_children(self);
    for (guint i = 0; i < added->len; i++)
      gst_bin_remove(GST_BIN(self), g_ptr_array_index(added, i));
    g_ptr_array_unref(added);
    GST_WARNING_OBJECT(self, "%s", error);
    self->chain_error = error;
  }
  if (elements)
    g_ptr_array_unref(elements);
}

static void post_wire_error(GstFxChain *self)
{
  GST_ELEMENT_ERROR(self, CORE, FAILED, ("%s", self->wire_error),
                    ("fxchain cannot build its data path"));
}

static void sync_children_state(GstFxChain *self)
{
  GList *children = NULL, *l;

  GST_OBJECT_LOCK(self);
  for (l = GST_BIN_CHILDREN(self); l; l = l->next)
    children = g_list_prepend(children, gst_object_ref(l->data));
  GST_OBJECT_UNLOCK(self);
  for (l = children; l; l = l->next)
    gst_element_sync_state_with_parent(l->data);
  g_list_free_full(children, gst_object_unref);
}

/* TRUE when the bin is in NULL or READY and not on its way up. */
static gboolean can_rewire(GstFxChain *self, GstState *state)
{
  gboolean ok;

  GST_OBJECT_LOCK(self);
  *state = GST_STATE(self);
  ok = GST_STATE(self) <= GST_STATE_READY && GST_STATE_TARGET(self) <= GST_STATE_READY &&
       GST_STATE_PENDING(self) <= GST_STATE_READY;
  GST_OBJECT_UNLOCK(self);
  return ok;
}

/* Sets `chain` (is_chain) or `fuse` and rewires when allowed; refused with a warning while
 * PAUSED or PLAYING. */
static void change_structure(GstFxChain *self, gboolean is_chain, const GValue *value)
{
  GstState state;

  GST_STATE_LOCK(self);
  if (!can_rewire(self, &state)) {
    GST_STATE_UNLOCK(self);
    if (is_chain) {
      GST_ELEMENT_WARNING(self, CORE, STATE_CHANGE,
                          ("fxchain: the chain cannot change while PAUSED or PLAYING; the change "
                           "was refused (set it in NULL or READY)"),
                          ("refused chain \"%s\"", g_value_get_string(value)));
    } else {
      GST_ELEMENT_WARNING(self, CORE, STATE_CHANGE,
                          ("fxchain: fuse cannot change while PAUSED or PLAYING; the change was "
                           "refused (set it in NULL or READY)"),
                          (NULL));
    }
    return;
  }

  g_rec_mutex_lock(&self->wire_lock);
  GST_OBJECT_LOCK(self);
  if (is_chain) {
    g_free(self->chain);
    self->chain = g_value_dup_string(value);
  } else {
    self->fuse = g_value_get_boolean(value);
  }
  GST_OBJECT_UNLOCK(self);
  if (is_chain)
    apply_chain(self, g_value_get_string(value));
  if (state == GST_STATE_READY) {
    /* No state change is coming: rewire now, and bring new elements to READY. */
    if (wire(self))
      sync_children_state(self);
    else
      post_wire_error(self);
  }
  g_rec_mutex_unlock(&self->wire_lock);
  GST_STATE_UNLOCK(self);
}

static GstStateChangeReturn gst_fx_chain_change_state(GstElement *element,
                                                      GstStateChange transition)
{
  GstFxChain *self = GST_FX_CHAIN(element);
  gboolean ok = TRUE;

  switch (transition) {
  case GST_STATE_CHANGE_NULL_TO_READY:
    g_rec_mutex_lock(&self->wire_lock);
    ok = wire(self);
    if (!ok)
      post_wire_error(self);
    g_rec_mutex_unlock(&self->wire_lock);
    break;
  case GST_STATE_CHANGE_READY_TO_PAUSED:
    g_rec_mutex_lock(&self->wire_lock);
    ok = self->wire_error == NULL && self->plan_stages->len > 0;
    if (!ok) {
      if (!self->wire_error)
        set_error(self, g_strdup("fxchain is not wired"));
      post_wire_error(self);
    }
    g_rec_mutex_unlock(&self->wire_lock);
    break;
  default:
    break;
  }
  if (!ok)
    return GST_STATE_CHANGE_FAILURE;
  return GST_ELEMENT_CLASS(gst_fx_chain_parent_class)->change_state(element, transition);
}

/* ---- Counters and the plan ---- */

/* wire_lock held. Sum of a guint64 property over the plan stages that run a cascade. */
static guint64 sum_plan_stages(GstFxChain *self, const char *prop)
{
  guint64 total = 0;

  for (guint i = 0; i < self->plan_stages->len; i++) {
    PlanStage *s = g_ptr_array_index(self->plan_stages, i);
    if (s->element && GST_IS_FX_IIR(s->element)) {
      guint64 v = 0;
      g_object_get(s->element, prop, &v, NULL);
      total += v;
    }
  }
  return total;
}

static gchar *element_backend(GstElement *e)
{
  gchar *b = NULL;

  if (e && GST_IS_FX_IIR(e))
    g_object_get(e, "backend", &b, NULL);
  return b ? b : g_strdup("none");
}

/* wire_lock held. */
static gchar *backends(GstFxChain *self)
{
  GString *s = g_string_new(NULL);
  GPtrArray *seen = g_ptr_array_new_with_free_func(g_free);

  for (guint i = 0; i < self->plan_stages->len; i++) {
    PlanStage *st = g_ptr_array_index(self->plan_stages, i);
    gchar *b;

    if (!st->element || !GST_IS_FX_IIR(st->element))
      continue;
    b = element_backend(st->element);
    if ((strcmp(b, "none") == 0 && self->plan_stages->len > 1) ||
        g_ptr_array_find_with_equal_func(seen, b, g_str_equal, NULL)) {
      g_free(b);
      continue;
    }
    if (s->len)
      g_string_append_c(s, ',');
    g_string_append(s, b);
    g_ptr_array_add(seen, b);
  }
  g_ptr_array_unref(seen);
  if (s->len == 0)
    g_string_append(s, "none");
  return g_string_free(s, FALSE);
}

/* Sections of the plan stage's IIR children at its rate (or the preview rate). */
static void plan_stage_sections(PlanStage *s, int *sections, gint *rate, gboolean *ok)
{
  *sections = 0;
  *ok = TRUE;
  *rate = 0;
  if (s->element && GST_IS_FX_IIR(s->element))
    *rate = gst_fx_iir_get_rate(GST_FX_IIR(s->element));
  for (guint i = 0; i < s->covers->len; i++) {
    GstElement *e = g_ptr_array_index(s->covers, i);
    fx_sos_t *sos = NULL;
    int n = 0;
    if (!GST_IS_FX_IIR(e))
      continue;
    if (gst_fx_iir_get_sections(GST_FX_IIR(e), *rate > 0 ? *rate : PLAN_PREVIEW_RATE, &sos, &n,
                                NULL))
      *sections += n;
    else
      *ok = FALSE;
    g_free(sos);
  }
}

/* wire_lock held. */
static gchar *plan_text(GstFxChain *self)
{
  GPtrArray *stages = self->plan_stages, *preview = NULL;
  GString *s = g_string_new(NULL);

  if (stages->len == 0) {
    /* Not wired yet: what the wiring would do with the children as they are linked now. */
    GPtrArray *children = chain_children(self), *order = NULL;
    gchar *error = NULL;
    gboolean fuse;

    if (self->chain_error || self->wire_error) {
      g_string_append_printf(s, "error: %s",
                             self->chain_error ? self->chain_error : self->wire_error);
    } else if (children->len == 0) {
      g_string_append(s, "empty");
    } else if (!order_by_links(children, &order, &error)) {
      g_string_append_printf(s, "error: %s", error);
      g_free(error);
    } else {
      GST_OBJECT_LOCK(self);
      fuse = self->fuse;
      GST_OBJECT_UNLOCK(self);
      preview = stages = plan_stages(order, fuse);
      g_ptr_array_unref(order);
    }
    g_ptr_array_unref(children);
  }

  for (guint k = 0; k < stages->len; k++) {
    PlanStage *st = g_ptr_array_index(stages, k);
    if (k > 0)
      g_string_append_c(s, '\n');
    g_string_append_printf(s, "%u: %s ", k, st->cascade ? "cascade" : "opaque");
    for (guint i = 0; i < st->covers->len; i++) {
      gchar *name = gst_object_get_name(g_ptr_array_index(st->covers, i));
      g_string_append_printf(s, "%s%s", i ? "+" : "", name);
      g_free(name);
    }
    if (st->cascade) {
      int sections;
      gint rate;
      gboolean ok;
      gchar *b = element_backend(st->element);
      plan_stage_sections(st, &sections, &rate, &ok);
      if (!ok)
        g_string_append(s, ": ? sections (not designable)");
      else
        g_string_append_printf(s, ": %d section%s", sections, sections == 1 ? "" : "s");
      if (rate <= 0 && ok)
        g_string_append_printf(s, " (at %d Hz, not negotiated)", PLAN_PREVIEW_RATE);
      g_string_append_printf(s, ", backend %s", b);
      g_free(b);
      if (GST_IS_FX_IIR(st->element)) { /* precision=auto's measured errors */
        gchar *p = gst_fx_iir_describe_precision(GST_FX_IIR(st->element));
        if (p)
          g_string_append_printf(s, " (%s)", p);
        g_free(p);
      }
    } else {
      GstElement *e = g_ptr_array_index(st->covers, 0);
      GstElementFactory *f = gst_element_get_factory(e);
      g_string_append_printf(s, " (%s)", f ? GST_OBJECT_NAME(f) : G_OBJECT_TYPE_NAME(e));
    }
  }
  if (preview)
    g_ptr_array_unref(preview);
  return g_string_free(s, FALSE);
}

/* ---- Properties ---- */

static void set_common(GstFxChain *self, guint which, const GValue *value)
{
  GST_OBJECT_LOCK(self);
  gst_fx_common_settings_set(&self->common, which, value);
  self->explicit_common |= 1u << which;
  GST_OBJECT_UNLOCK(self);

  /* Forward to the IIR children and fused stages now (the wiring applies them to new ones). */
  g_rec_mutex_lock(&self->wire_lock);
  for (guint i = 0; i < self->order->len; i++)
    if (GST_IS_FX_IIR(g_ptr_array_index(self->order, i)))
      g_object_set_property(g_ptr_array_index(self->order, i), common_names[which], value);
  for (guint i = 0; i < self->plan_stages->len; i++) {
    PlanStage *s = g_ptr_array_index(self->plan_stages, i);
    if (s->element && GST_IS_FX_FUSED(s->element))
      g_object_set_property(G_OBJECT(s->element), common_names[which], value);
  }
  g_rec_mutex_unlock(&self->wire_lock);
}

static void gst_fx_chain_set_property(GObject *object, guint prop_id, const GValue *value,
                                      GParamSpec *pspec)
{
  GstFxChain *self = GST_FX_CHAIN(object);
  GstFxCommonProp which = gst_fx_common_prop_writable(prop_id, PROP_DEVICE);

  if (prop_id >= PROP_FORMAT && prop_id < PROP_FORMAT + GST_FX_FORMAT_PROP_COUNT)
    g_object_set_property(G_OBJECT(self->conv_out), pspec->name, value);
  else if (which != GST_FX_COMMON_PROP_COUNT)
    set_common(self, which, value);
  else if (prop_id == PROP_CHAIN || prop_id == PROP_FUSE)
    change_structure(self, prop_id == PROP_CHAIN, value);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
}

static void gst_fx_chain_get_property(GObject *object, guint prop_id, GValue *value,
                                      GParamSpec *pspec)
{
  GstFxChain *self = GST_FX_CHAIN(object);

  if (gst_fx_common_settings_get_locked(GST_OBJECT(self), &self->common, prop_id, PROP_DEVICE,
                                        value))
    return;
  if (prop_id >= PROP_FORMAT && prop_id < PROP_FORMAT + GST_FX_FORMAT_PROP_COUNT) {
    g_object_get_property(G_OBJECT(self->conv_out), pspec->name, value);
    return;
  }
  switch (prop_id) {
  case PROP_CHAIN:
    GST_OBJECT_LOCK(self);
    g_value_set_string(value, self->chain);
    GST_OBJECT_UNLOCK(self);
    break;
  case PROP_FUSE:
    GST_OBJECT_LOCK(self);
    g_value_set_boolean(value, self->fuse);
    GST_OBJECT_UNLOCK(self);
    break;
  case PROP_PLAN:
    g_rec_mutex_lock(&self->wire_lock);
    g_value_take_string(value, plan_text(self));
    g_rec_mutex_unlock(&self->wire_lock);
    break;
  case PROP_DISPATCHES:
  case PROP_LAUNCHES:
    g_rec_mutex_lock(&self->wire_lock);
    g_value_set_uint64(
        value, sum_plan_stages(self, prop_id == PROP_DISPATCHES ? "dispatches" : "launches"));
    g_rec_mutex_unlock(&self->wire_lock);
    break;
  case PROP_BACKEND:
    g_rec_mutex_lock(&self->wire_lock);
    g_value_take_string(value, backends(self));
    g_rec_mutex_unlock(&self->wire_lock);
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    break;
  }
}
