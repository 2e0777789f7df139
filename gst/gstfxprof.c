/* gst-fx — fxprof: a GStreamer tracer that profiles the gst-fx elements of a pipeline.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:tracer-fxprof
 * @title: fxprof
 * @short_description: per-element buffers, frames, dispatches, launches, backend and processing
 *   time of the gst-fx elements in a pipeline
 *
 * Enable it with `GST_TRACERS=fxprof`. It watches every element whose factory belongs to the `fx`
 * plugin and is not inside another such element: an `fxchain` is profiled as a whole (its fused
 * and opaque stages together; the `plan` field shows which children fused), its children are not
 * reported on their own.
 *
 * What it measures, per input buffer of such an element: the time from the moment the upstream
 * pad starts pushing the buffer into the element (`pad-push-pre` on the peer of the element's sink
 * pad) until that push returns (`pad-push-post`), minus the time spent inside the element's own
 * pushes downstream (from `pad-push-pre` to `pad-push-post` of its src pad). That is the time the
 * streaming thread spends in the element's chain function, downstream excluded: pad and
 * GstBaseTransform bookkeeping, controller sync, the transform (the dispatch), and for an
 * `fxchain` everything between its ghost sink pad and its ghost src pad. Work done on another
 * thread (after a queue inside an `fxchain`) and work done in event handlers (such as a tail
 * rendered at EOS) is not counted. A buffer list counts as its buffers, sharing its time equally.
 *
 * At EOS (when the element pushes EOS downstream) and when the element goes from PAUSED to READY
 * with buffers not yet reported, it logs one `fxprof` record per element (category GST_TRACER,
 * level TRACE, so `GST_DEBUG=GST_TRACER:7` shows it) and prints a short summary on stderr.
 * Counts are since the element last went from READY to PAUSED. Fields: `element`, `factory`,
 * `reason` (`eos` or `teardown`), `buffers`, `frames`, `time-min`, `time-median`, `time-max`,
 * `time-total` (ns) and, where the element has such a property, `dispatches`, `launches`,
 * `backend` and `plan` (one stage per `|`-separated part). Properties are read only then, never
 * per buffer.
 *
 * Options: `GST_TRACERS="fxprof(summary=false)"` logs the records without printing the summary;
 * `GST_TRACERS="fxprof(per-buffer=true)"` also logs one `fxprof-buffer` record per buffer
 * (`element`, `ts`, `time`, `frames`, `buffers`: 1, or for a buffer list pushed at once one
 * record for the whole list with its length). Both take true or false; an unknown option or
 * another value is reported on stderr and ignored (the other options still apply).
 *
 * Cost: two hook calls per buffer and pad push, a cached per-element lookup, an uncontended mutex
 * and 8 bytes of memory per profiled buffer (kept for the exact median). None when not enabled.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxprof.h"

#include <gst/audio/audio.h>

#include <string.h>

GST_DEBUG_CATEGORY_STATIC(gst_fx_prof_debug);
#define GST_CAT_DEFAULT gst_fx_prof_debug

/* The plugin whose elements are profiled. */
#define FX_PLUGIN_NAME "fx"

struct _GstFxProf {
  GstTracer parent;

  gboolean summary;
  gboolean per_buffer;
  GMutex lock; /* creating entries */
};

G_DEFINE_TYPE(GstFxProf, gst_fx_prof, GST_TYPE_TRACER)

static GstTracerRecord *record_element;
static GstTracerRecord *record_buffer;
static GQuark entry_quark;
/* The qdata of elements that are not profiled. */
static gchar untracked_marker;

/* Per profiled element, as its qdata. */
typedef struct {
  GstElement *element; /* not reffed: the entry lives as long as the element */
  gchar *factory;
  gchar *quoted_name; /* the element's name as a record field value */

  /* The current input buffer: written and read by the streaming thread that pushes into the
   * element (GstPad's stream lock serialises it). */
  GThread *thread;
  gboolean active;
  GstClockTime t_in, t_out, downstream;
  guint64 in_bytes;
  guint in_buffers;
  guint bpf; /* bytes per frame at the sink; 0 = read the caps again */

  GMutex lock; /* the counters below */
  guint64 buffers, frames, total;
  GArray *times; /* guint64 ns per buffer */
  guint64 reported_buffers;
  gboolean reported;
} FxProfEntry;

static void entry_free(gpointer data)
{
  FxProfEntry *en = data;

  g_free(en->factory);
  g_free(en->quoted_name);
  g_array_unref(en->times);
  g_mutex_clear(&en->lock);
  g_free(en);
}

/* @str as a record field value: quoted and escaped as GstStructure's parser expects, since the
 * record's format inserts strings as they are ("(string)%s"). Newly allocated. */
static gchar *quote(const gchar *str)
{
  GValue v = G_VALUE_INIT;
  gchar *res;

  g_value_init(&v, G_TYPE_STRING);
  g_value_set_string(&v, str ? str : "");
  res = gst_value_serialize(&v);
  g_value_unset(&v);
  return res;
}

/* Whether @element is made by the fx plugin's factories. */
static gboolean is_fx_element(GstElement *element)
{
  GstElementFactory *factory = gst_element_get_factory(element);
  const gchar *plugin;

  if (!factory)
    return FALSE;
  plugin = gst_plugin_feature_get_plugin_name(GST_PLUGIN_FEATURE(factory));
  return plugin && strcmp(plugin, FX_PLUGIN_NAME) == 0;
}

/* The profiling entry of @element, or NULL when it is not profiled. The decision is made once,
 * at first sight (from a streaming thread, once data flows, so the element sits in its bin). */
static FxProfEntry *lookup(GstFxProf *self, GstElement *element)
{
  gpointer data = g_object_get_qdata(G_OBJECT(element), entry_quark);
  GstObject *parent;
  gboolean tracked;
  FxProfEntry *en;

  if (G_LIKELY(data))
    return data == &untracked_marker ? NULL : data;

  g_mutex_lock(&self->lock);
  data = g_object_get_qdata(G_OBJECT(element), entry_quark);
  if (data) {
    g_mutex_unlock(&self->lock);
    return data == &untracked_marker ? NULL : data;
  }
  tracked = is_fx_element(element);
  /* Inside another fx element (an fxchain's child): that one is profiled as a whole. */
  for (parent = GST_OBJECT_PARENT(element); tracked && parent; parent = GST_OBJECT_PARENT(parent))
    if (GST_IS_ELEMENT(parent) && is_fx_element(GST_ELEMENT(parent)))
      tracked = FALSE;
  if (!tracked) {
    g_object_set_qdata(G_OBJECT(element), entry_quark, &untracked_marker);
    g_mutex_unlock(&self->lock);
    return NULL;
  }
  en = g_new0(FxProfEntry, 1);
  en->element = element;
  en->factory = g_strdup(GST_OBJECT_NAME(GST_PLUGIN_FEATURE(gst_element_get_factory(element))));
  en->quoted_name = quote(GST_OBJECT_NAME(element));
  en->times = g_array_new(FALSE, FALSE, sizeof(guint64));
  g_mutex_init(&en->lock);
  g_object_set_qdata_full(G_OBJECT(element), entry_quark, en, entry_free);
  g_mutex_unlock(&self->lock);
  GST_DEBUG_OBJECT(element, "profiling %s", en->factory);
  return en;
}

/* The element a pad belongs to (a ghost pad belongs to its bin); NULL for a proxy pad. Unlocked:
 * pads do not change parents while data flows through them. */
static inline GstElement *pad_element(GstPad *pad)
{
  GstObject *parent = pad ? GST_OBJECT_PARENT(pad) : NULL;

  return parent && GST_IS_ELEMENT(parent) ? GST_ELEMENT_CAST(parent) : NULL;
}

static inline FxProfEntry *pad_entry(GstFxProf *self, GstPad *pad)
{
  GstElement *element = pad_element(pad);

  return element ? lookup(self, element) : NULL;
}

static guint read_bpf(GstPad *sinkpad)
{
  GstCaps *caps = sinkpad ? gst_pad_get_current_caps(sinkpad) : NULL;
  GstAudioInfo info;
  guint bpf = 0;

  if (caps && gst_audio_info_from_caps(&info, caps))
    bpf = GST_AUDIO_INFO_BPF(&info);
  if (caps)
    gst_caps_unref(caps);
  return bpf;
}

static void reset_counters(FxProfEntry *en)
{
  g_mutex_lock(&en->lock);
  en->buffers = en->frames = en->total = 0;
  g_array_set_size(en->times, 0);
  en->reported_buffers = 0;
  en->reported = FALSE;
  g_mutex_unlock(&en->lock);
}

/* The upstream pad @pad starts pushing @n_buffers buffers (@bytes bytes) into its peer. Also: the
 * element of @pad pushes downstream. */
static void push_start(GstFxProf *self, GstClockTime ts, GstPad *pad, guint64 bytes,
                       guint n_buffers)
{
  FxProfEntry *up = pad_entry(self, pad);
  FxProfEntry *down;

  if (up && up->active && up->thread == g_thread_self())
    up->t_out = ts;
  down = pad_entry(self, GST_PAD_PEER(pad));
  if (down) {
    down->thread = g_thread_self();
    down->active = TRUE;
    down->t_in = ts;
    down->t_out = GST_CLOCK_TIME_NONE;
    down->downstream = 0;
    down->in_bytes = bytes;
    down->in_buffers = n_buffers;
  }
}

static void push_end(GstFxProf *self, GstClockTime ts, GstPad *pad)
{
  FxProfEntry *up = pad_entry(self, pad);
  GstPad *peer = GST_PAD_PEER(pad);
  FxProfEntry *down;
  GstClockTime elapsed, each;
  guint64 frames;
  guint i;

  if (up && up->active && up->thread == g_thread_self() && GST_CLOCK_TIME_IS_VALID(up->t_out)) {
    up->downstream += ts - up->t_out;
    up->t_out = GST_CLOCK_TIME_NONE;
  }
  down = pad_entry(self, peer);
  if (!down || !down->active || down->thread != g_thread_self())
    return;
  down->active = FALSE;
  elapsed = ts - down->t_in;
  elapsed = elapsed > down->downstream ? elapsed - down->downstream : 0;
  if (!down->bpf)
    down->bpf = read_bpf(peer);
  frames = down->bpf ? down->in_bytes / down->bpf : 0;
  each = elapsed / MAX(down->in_buffers, 1);

  g_mutex_lock(&down->lock);
  down->buffers += down->in_buffers;
  down->frames += frames;
  down->total += elapsed;
  for (i = 0; i < down->in_buffers; i++)
    g_array_append_val(down->times, each);
  g_mutex_unlock(&down->lock);

  if (self->per_buffer)
    gst_tracer_record_log(record_buffer, down->quoted_name, (guint64) down->t_in, (guint64) elapsed,
                          frames, (guint64) down->in_buffers);
}

static void do_push_buffer_pre(GstFxProf *self, GstClockTime ts, GstPad *pad, GstBuffer *buffer)
{
  push_start(self, ts, pad, gst_buffer_get_size(buffer), 1);
}

static void do_push_list_pre(GstFxProf *self, GstClockTime ts, GstPad *pad, GstBufferList *list)
{
  guint i, n = gst_buffer_list_length(list);
  guint64 bytes = 0;

  for (i = 0; i < n; i++)
    bytes += gst_buffer_get_size(gst_buffer_list_get(list, i));
  push_start(self, ts, pad, bytes, n);
}

static void do_push_post(GstFxProf *self, GstClockTime ts, GstPad *pad, GstFlowReturn res)
{
  (void) res;
  push_end(self, ts, pad);
}

static int cmp_u64(gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

static gboolean has_property(GstElement *element, const gchar *name)
{
  return g_object_class_find_property(G_OBJECT_GET_CLASS(element), name) != NULL;
}

static void print_time(GString *s, const gchar *label, guint64 ns)
{
  if (ns < 10000)
    g_string_append_printf(s, "%s %.2f us", label, ns / 1e3);
  else if (ns < 10000000)
    g_string_append_printf(s, "%s %.1f us", label, ns / 1e3);
  else
    g_string_append_printf(s, "%s %.1f ms", label, ns / 1e6);
}

/* Logs the record of @en and prints its summary (@reason: "eos" or "teardown"). */
static void report(GstFxProf *self, FxProfEntry *en, const gchar *reason)
{
  GstElement *element = en->element;
  guint64 buffers, frames, total, tmin = 0, tmed = 0, tmax = 0;
  guint64 dispatches = 0, launches = 0;
  gboolean has_dispatches = has_property(element, "dispatches");
  gboolean has_launches = has_property(element, "launches");
  gboolean has_backend = has_property(element, "backend");
  gboolean has_plan = has_property(element, "plan");
  gchar *backend = NULL, *plan = NULL, *plan_line = NULL, **lines, **l;
  gchar *q_factory, *q_backend, *q_plan;
  GArray *times;
  GString *s;

  g_mutex_lock(&en->lock);
  buffers = en->buffers;
  frames = en->frames;
  total = en->total;
  times = g_array_copy(en->times);
  en->reported_buffers = buffers;
  en->reported = TRUE;
  g_mutex_unlock(&en->lock);

  if (times->len) {
    g_array_sort(times, cmp_u64);
    tmin = g_array_index(times, guint64, 0);
    tmax = g_array_index(times, guint64, times->len - 1);
    /* The lower median for an even count: a time some buffer actually took. */
    tmed = g_array_index(times, guint64, (times->len - 1) / 2);
  }
  g_array_unref(times);

  if (has_dispatches)
    g_object_get(element, "dispatches", &dispatches, NULL);
  if (has_launches)
    g_object_get(element, "launches", &launches, NULL);
  if (has_backend)
    g_object_get(element, "backend", &backend, NULL);
  if (has_plan)
    g_object_get(element, "plan", &plan, NULL);
  has_backend = has_backend && backend;
  has_plan = has_plan && plan;
  if (has_plan) {
    lines = g_strsplit(g_strstrip(plan), "\n", -1);
    plan_line = g_strjoinv(" | ", lines);
    g_strfreev(lines);
  }

  q_factory = quote(en->factory);
  q_backend = quote(has_backend ? backend : "");
  q_plan = quote(has_plan ? plan_line : "");
  gst_tracer_record_log(record_element, en->quoted_name, q_factory, reason, buffers, frames, tmin,
                        tmed, tmax, total, has_dispatches, dispatches, has_launches, launches,
                        has_backend, q_backend, has_plan, q_plan);
  g_free(q_factory);
  g_free(q_backend);
  g_free(q_plan);

  if (self->summary) {
    s = g_string_new(NULL);
    g_string_append_printf(
        s, "fxprof: %s (%s) at %s: %" G_GUINT64_FORMAT " buffers, %" G_GUINT64_FORMAT " frames",
        GST_OBJECT_NAME(element), en->factory, reason, buffers, frames);
    if (has_dispatches)
      g_string_append_printf(s, ", %" G_GUINT64_FORMAT " dispatches", dispatches);
    if (has_launches)
      g_string_append_printf(s, ", %" G_GUINT64_FORMAT " CUDA launches", launches);
    if (has_backend)
      g_string_append_printf(s, ", backend %s", backend);
    g_string_append(s, "\nfxprof:   time per buffer:");
    print_time(s, " min", tmin);
    print_time(s, ", median", tmed);
    print_time(s, ", max", tmax);
    print_time(s, "; total", total);
    if (frames)
      g_string_append_printf(s, " (%.1f ns per frame)", (double) total / (double) frames);
    if (has_plan) {
      lines = g_strsplit(plan, "\n", -1);
      for (l = lines; *l; l++)
        if (**l)
          g_string_append_printf(s, "\nfxprof:   stage %s", *l);
      g_strfreev(lines);
    }
    g_printerr("%s\n", s->str);
    g_string_free(s, TRUE);
  }
  g_free(backend);
  g_free(plan);
  g_free(plan_line);
}

static void do_push_event_pre(GstFxProf *self, GstClockTime ts, GstPad *pad, GstEvent *event)
{
  FxProfEntry *en;

  (void) ts;
  switch (GST_EVENT_TYPE(event)) {
  case GST_EVENT_CAPS:
    /* New caps into a profiled element: read its bytes per frame again at the next buffer. */
    en = pad_entry(self, GST_PAD_PEER(pad));
    if (en)
      en->bpf = 0;
    break;
  case GST_EVENT_EOS:
    /* The element is done with its stream and says so downstream. */
    en = pad_entry(self, pad);
    if (en && GST_PAD_IS_SRC(pad))
      report(self, en, "eos");
    break;
  default:
    break;
  }
}

static void do_change_state_pre(GstFxProf *self, GstClockTime ts, GstElement *element,
                                GstStateChange transition)
{
  FxProfEntry *en;
  gboolean pending;

  (void) ts;
  if (transition != GST_STATE_CHANGE_READY_TO_PAUSED &&
      transition != GST_STATE_CHANGE_PAUSED_TO_READY)
    return;
  en = lookup(self, element);
  if (!en)
    return;
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    reset_counters(en);
    return;
  }
  /* Teardown: report what EOS did not (an error, an interrupted run, buffers after a report). */
  g_mutex_lock(&en->lock);
  pending = en->buffers > 0 && (!en->reported || en->buffers != en->reported_buffers);
  g_mutex_unlock(&en->lock);
  if (pending)
    report(self, en, "teardown");
}

/* One option of GST_TRACERS="fxprof(...)": a known name with a boolean value, or a message on
 * stderr naming what is wrong (that option is ignored, the others apply). */
static gboolean apply_option(GQuark field, const GValue *value, gpointer user_data)
{
  GstFxProf *self = user_data;
  const gchar *name = g_quark_to_string(field);
  gboolean *target = NULL;

  if (g_str_equal(name, "summary"))
    target = &self->summary;
  else if (g_str_equal(name, "per-buffer"))
    target = &self->per_buffer;
  if (!target) {
    g_printerr("fxprof: unknown option \"%s\" ignored (the options are summary and "
               "per-buffer)\n",
               name);
    GST_WARNING_OBJECT(self, "unknown option \"%s\" ignored", name);
    return TRUE;
  }
  if (G_VALUE_HOLDS_BOOLEAN(value)) {
    *target = g_value_get_boolean(value);
    return TRUE;
  }
  {
    gchar *v = gst_value_serialize(value);
    g_printerr("fxprof: option %s=%s ignored: it takes true or false\n", name, v ? v : "?");
    GST_WARNING_OBJECT(self, "option %s=%s ignored: it takes true or false", name, v ? v : "?");
    g_free(v);
  }
  return TRUE;
}

static void gst_fx_prof_constructed(GObject *object)
{
  GstFxProf *self = GST_FX_PROF(object);
  gchar *params = NULL, *desc;
  GstStructure *st = NULL;

  G_OBJECT_CLASS(gst_fx_prof_parent_class)->constructed(object);

  g_object_get(self, "params", &params, NULL);
  if (params) {
    desc = g_strdup_printf("fxprof,%s", params);
    st = gst_structure_from_string(desc, NULL);
    if (!st)
      g_printerr("fxprof: cannot parse the options \"%s\" (expected e.g. summary=false, "
                 "per-buffer=true)\n",
                 params);
    g_free(desc);
  }
  if (st) {
    gst_structure_foreach(st, apply_option, self);
    gst_structure_free(st);
  }
  g_free(params);

  gst_tracing_register_hook(GST_TRACER(self), "pad-push-pre", G_CALLBACK(do_push_buffer_pre));
  gst_tracing_register_hook(GST_TRACER(self), "pad-push-post", G_CALLBACK(do_push_post));
  gst_tracing_register_hook(GST_TRACER(self), "pad-push-list-pre", G_CALLBACK(do_push_list_pre));
  gst_tracing_register_hook(GST_TRACER(self), "pad-push-list-post", G_CALLBACK(do_push_post));
  gst_tracing_register_hook(GST_TRACER(self), "pad-push-event-pre", G_CALLBACK(do_push_event_pre));
  gst_tracing_register_hook(GST_TRACER(self), "element-change-state-pre",
                            G_CALLBACK(do_change_state_pre));
}

static void gst_fx_prof_finalize(GObject *object)
{
  GstFxProf *self = GST_FX_PROF(object);

  g_mutex_clear(&self->lock);
  G_OBJECT_CLASS(gst_fx_prof_parent_class)->finalize(object);
}

static GstStructure *field(GType type, const gchar *description)
{
  return gst_structure_new("value", "type", G_TYPE_GTYPE, type, "related-to",
                           GST_TYPE_TRACER_VALUE_SCOPE, GST_TRACER_VALUE_SCOPE_ELEMENT,
                           "description", G_TYPE_STRING, description, NULL);
}

static GstStructure *optional_field(GType type, const gchar *description)
{
  GstStructure *st = field(type, description);

  gst_structure_set(st, "flags", GST_TYPE_TRACER_VALUE_FLAGS, GST_TRACER_VALUE_FLAGS_OPTIONAL,
                    NULL);
  return st;
}

static void gst_fx_prof_class_init(GstFxProfClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);

  gobject_class->constructed = gst_fx_prof_constructed;
  gobject_class->finalize = gst_fx_prof_finalize;

  GST_DEBUG_CATEGORY_INIT(gst_fx_prof_debug, "fxprof", 0, "gst-fx profiling tracer");
  entry_quark = g_quark_from_static_string("gst-fx-prof-entry");

  /* One record per element at EOS / teardown. */
  record_element = gst_tracer_record_new(
      "fxprof.class", "element", GST_TYPE_STRUCTURE, field(G_TYPE_STRING, "element name"),
      "factory", GST_TYPE_STRUCTURE, field(G_TYPE_STRING, "element factory"), "reason",
      GST_TYPE_STRUCTURE, field(G_TYPE_STRING, "eos or teardown"), "buffers", GST_TYPE_STRUCTURE,
      field(G_TYPE_UINT64, "input buffers since READY to PAUSED"), "frames", GST_TYPE_STRUCTURE,
      field(G_TYPE_UINT64, "input frames since READY to PAUSED"), "time-min", GST_TYPE_STRUCTURE,
      field(G_TYPE_UINT64, "shortest processing time of a buffer (ns)"), "time-median",
      GST_TYPE_STRUCTURE,
      field(G_TYPE_UINT64, "median processing time per buffer (ns, lower median)"), "time-max",
      GST_TYPE_STRUCTURE, field(G_TYPE_UINT64, "longest processing time of a buffer (ns)"),
      "time-total", GST_TYPE_STRUCTURE, field(G_TYPE_UINT64, "total processing time (ns)"),
      "dispatches", GST_TYPE_STRUCTURE,
      optional_field(G_TYPE_UINT64, "the element's dispatches property"), "launches",
      GST_TYPE_STRUCTURE,
      optional_field(G_TYPE_UINT64, "the element's launches property (CUDA launches)"), "backend",
      GST_TYPE_STRUCTURE, optional_field(G_TYPE_STRING, "the element's backend property"), "plan",
      GST_TYPE_STRUCTURE, optional_field(G_TYPE_STRING, "fxchain's plan, stages separated by |"),
      NULL);
  GST_OBJECT_FLAG_SET(record_element, GST_OBJECT_FLAG_MAY_BE_LEAKED);

  /* With per-buffer=true: one record per buffer (per buffer list pushed at once). */
  record_buffer = gst_tracer_record_new(
      "fxprof-buffer.class", "element", GST_TYPE_STRUCTURE, field(G_TYPE_STRING, "element name"),
      "ts", GST_TYPE_STRUCTURE,
      field(G_TYPE_UINT64, "when the buffer entered the element (ns since start)"), "time",
      GST_TYPE_STRUCTURE, field(G_TYPE_UINT64, "processing time of the buffer (ns)"), "frames",
      GST_TYPE_STRUCTURE, field(G_TYPE_UINT64, "frames in the buffer"), "buffers",
      GST_TYPE_STRUCTURE, field(G_TYPE_UINT64, "1, or the length of a buffer list pushed at once"),
      NULL);
  GST_OBJECT_FLAG_SET(record_buffer, GST_OBJECT_FLAG_MAY_BE_LEAKED);
}

static void gst_fx_prof_init(GstFxProf *self)
{
  self->summary = TRUE;
  self->per_buffer = FALSE;
  g_mutex_init(&self->lock);
}

gboolean gst_fx_prof_register(GstPlugin *plugin)
{
  return gst_tracer_register(plugin, "fxprof", GST_TYPE_FX_PROF);
}
