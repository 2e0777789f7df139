/* gst-fx — GstFxFused: fxchain's internal fused stage.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:gstfxfused
 * @title: GstFxFused
 * @short_description: fxchain's internal stage: one cascade for a run of IIR children
 *
 * A #GstFxIir that runs one plan stage of an `fxchain` bin: a run of IIR children, with the
 * gains of non-clipping `fxgain` children in the run folded in, as one cascade. It runs once per
 * buffer (one dispatch). The children stay unlinked in the bin and keep their properties: in
 * before_transform the fused stage syncs the children's controllers at the buffer's stream time
 * and, when a child's parameters changed, redesigns and installs the new cascade without
 * resetting the history.
 *
 * Its cascade design (design_cascade) is the children's cascade designs concatenated in chain
 * order: every child keeps its own cascade stages (fx_cascade_set_stages(); one for most
 * elements, one per band for fxeq, one GAIN stage for an fxgain), so that a change behaves
 * exactly as in the unfused chain: only the changed child's sections go through a transition
 * (history transfer or warm-up, and a crossfade of the same length as a standalone element's, at
 * that child's output, so the following children filter the faded signal), and a changed fxgain
 * ramps linearly over the buffer from the gain the previous buffer ended with, at its place in
 * the chain, as a standalone fxgain does. GstFxIir installs the design.
 *
 * Caps, precision, flushes, NaN handling, counters and messages are #GstFxIir's.
 *
 * It is created by `fxchain` only and is not registered as an element factory.
 *
 * Locking: the design runs with this element's object lock held and takes the children's object
 * locks (children never call into this element, so the order is always fused stage, then child).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxfused.h"

#include "gstfxgain.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC(gst_fx_fused_debug);
#define GST_CAT_DEFAULT gst_fx_fused_debug

/* GstFxIirClass.sync_child_controllers */
typedef void GstFxIirSyncChildFunc(GstFxIir *self, const GstSegment *segment,
                                   GstClockTime timestamp);

struct _GstFxFused {
  GstFxIir parent;

  guint n;
  GstElement **children; /* refs, chain order */
  gboolean *is_gain;     /* child i is an fxgain (else a GstFxIir) */
  /* Child i's class's sync_child_controllers (NULL for an fxgain and where the class has none),
   * looked up once: before_transform runs per buffer. */
  GstFxIirSyncChildFunc **sync_child;

  /* Streaming thread: what the last design saw (to tell when to redesign). seen_serial holds the
   * IIR children's parameter serials and the fxgains' serials (gst_fx_gain_get_serial()). */
  guint *seen_serial;
  double *seen_gain;
  gboolean *seen_clip;
  gboolean clip_warned;
};

G_DEFINE_TYPE(GstFxFused, gst_fx_fused, GST_TYPE_FX_IIR)

static void gst_fx_fused_finalize(GObject *object);
static gboolean gst_fx_fused_setup(GstAudioFilter *filter, const GstAudioInfo *info);
static void gst_fx_fused_before_transform(GstBaseTransform *trans, GstBuffer *buffer);
static gboolean gst_fx_fused_design_cascade(GstFxIir *iir, double rate, GstFxCascadeDesign *design,
                                            gchar **error);

static void gst_fx_fused_class_init(GstFxFusedClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  GstAudioFilterClass *filter_class = GST_AUDIO_FILTER_CLASS(klass);
  GstFxIirClass *iir_class = GST_FX_IIR_CLASS(klass);

  GST_DEBUG_CATEGORY_INIT(gst_fx_fused_debug, "fxfused", 0, "fxchain's fused stage");

  gobject_class->finalize = gst_fx_fused_finalize;

  gst_element_class_set_static_metadata(element_class, "Fused IIR stage", "Filter/Effect/Audio",
                                        "fxchain's internal stage: a run of IIR children (and "
                                        "folded gains) as one cascade, one dispatch per buffer",
                                        "gst-fx developers");

  filter_class->setup = GST_DEBUG_FUNCPTR(gst_fx_fused_setup);
  trans_class->before_transform = GST_DEBUG_FUNCPTR(gst_fx_fused_before_transform);
  iir_class->design_cascade = GST_DEBUG_FUNCPTR(gst_fx_fused_design_cascade);
}

static void gst_fx_fused_init(GstFxFused *self)
{
  (void) self;
}

static void gst_fx_fused_finalize(GObject *object)
{
  GstFxFused *self = GST_FX_FUSED(object);

  for (guint i = 0; i < self->n; i++)
    gst_object_unref(self->children[i]);
  g_free(self->children);
  g_free(self->is_gain);
  g_free(self->sync_child);
  g_free(self->seen_serial);
  g_free(self->seen_gain);
  g_free(self->seen_clip);

  G_OBJECT_CLASS(gst_fx_fused_parent_class)->finalize(object);
}

GstElement *gst_fx_fused_new(const gchar *name, GstElement *const *children, guint n_children)
{
  GstFxFused *self;

  g_return_val_if_fail(children != NULL && n_children > 0, NULL);
  for (guint i = 0; i < n_children; i++)
    g_return_val_if_fail(GST_IS_FX_IIR(children[i]) || GST_IS_FX_GAIN(children[i]), NULL);

  self = g_object_new(GST_TYPE_FX_FUSED, "name", name, NULL);
  self->n = n_children;
  self->children = g_new0(GstElement *, n_children);
  self->seen_serial = g_new0(guint, n_children);
  self->seen_gain = g_new0(double, n_children);
  self->seen_clip = g_new0(gboolean, n_children);
  self->is_gain = g_new0(gboolean, n_children);
  self->sync_child = g_new0(GstFxIirSyncChildFunc *, n_children);
  for (guint i = 0; i < n_children; i++) {
    self->children[i] = gst_object_ref(children[i]);
    self->is_gain[i] = GST_IS_FX_GAIN(children[i]);
    if (!self->is_gain[i])
      self->sync_child[i] = GST_FX_IIR_GET_CLASS(children[i])->sync_child_controllers;
  }
  return GST_ELEMENT(self);
}

/* Object lock held (see the locking note above). The children's cascade designs concatenated in
 * chain order: an fxgain contributes one GAIN cascade stage, an IIR child the cascade stages of
 * its own design (one for most elements; fxeq has one per band) with their sections copied, so a
 * change goes through the same transitions as in the unfused chain. */
static gboolean gst_fx_fused_design_cascade(GstFxIir *iir, double rate, GstFxCascadeDesign *design,
                                            gchar **error)
{
  GstFxFused *self = GST_FX_FUSED(iir);
  GstFxCascadeDesign **parts = g_new0(GstFxCascadeDesign *, self->n);
  gboolean ok = FALSE;
  int n_sections = 0, n_stages = 0;

  for (guint i = 0; i < self->n; i++) {
    GstElement *child = self->children[i];
    gchar *err = NULL;

    if (self->is_gain[i]) {
      n_stages++;
      continue;
    }
    if (!gst_fx_iir_get_cascade_design(GST_FX_IIR(child), rate, &parts[i], &err)) {
      gchar *name = gst_object_get_name(GST_OBJECT(child));
      *error = g_strdup_printf("%s: %s", name, err ? err : "cannot be designed");
      g_free(name);
      g_free(err);
      goto out;
    }
    n_stages += parts[i]->n_stages;
    for (int k = 0; k < parts[i]->n_stages; k++)
      if (parts[i]->stages[k].kind == FX_CASCADE_STAGE_SECTIONS)
        n_sections += parts[i]->stages[k].n;
  }

  design->sos = g_new0(fx_sos_t, MAX(n_sections, 1));
  design->stages = g_new0(fx_cascade_stage_t, MAX(n_stages, 1));
  for (guint i = 0; i < self->n; i++) {
    const GstFxCascadeDesign *part = parts[i];

    if (self->is_gain[i]) {
      fx_cascade_stage_t *cs = &design->stages[design->n_stages++];
      cs->kind = FX_CASCADE_STAGE_GAIN;
      /* Folded when the plan was made; a later clip=true waits for a replan (see
       * before_transform). */
      gst_fx_gain_get_linear(GST_FX_GAIN(self->children[i]), &cs->gain, NULL);
      continue;
    }
    for (int k = 0; k < part->n_stages; k++) {
      fx_cascade_stage_t *cs = &design->stages[design->n_stages++];
      *cs = part->stages[k];
      if (cs->kind != FX_CASCADE_STAGE_SECTIONS)
        continue;
      /* into the fused sections: the child's design is freed below */
      cs->sos = design->sos + design->n_sections;
      if (cs->n > 0)
        memcpy(design->sos + design->n_sections, part->stages[k].sos,
               sizeof(fx_sos_t) * (size_t) cs->n);
      design->n_sections += cs->n;
    }
  }
  ok = TRUE;

out:
  for (guint i = 0; i < self->n; i++)
    gst_fx_cascade_design_free(parts[i]);
  g_free(parts);
  return ok;
}

/* Reads the children's parameter serials and gains; returns TRUE when any changed since the last
 * call. Sets *new_clip to the first folded gain that started to clip (transfer none). Per buffer
 * this is one atomic load per child (no type checks: the children's types were checked in
 * gst_fx_fused_new()): an fxgain's settings are read (under its lock) only when its serial moved,
 * or with `all`. */
static gboolean snapshot_children(GstFxFused *self, GstElement **new_clip, gboolean all)
{
  gboolean changed = FALSE;

  for (guint i = 0; i < self->n; i++) {
    GstElement *child = self->children[i];

    if (self->is_gain[i]) {
      guint serial = gst_fx_gain_get_serial((GstFxGain *) child);
      double g;
      gboolean clip;

      if (!all && serial == self->seen_serial[i])
        continue;
      self->seen_serial[i] = serial;
      gst_fx_gain_get_linear((GstFxGain *) child, &g, &clip);
      if (g != self->seen_gain[i])
        changed = TRUE;
      if (clip && !self->seen_clip[i] && new_clip && !*new_clip)
        *new_clip = child;
      self->seen_gain[i] = g;
      self->seen_clip[i] = clip;
    } else {
      guint serial = gst_fx_iir_get_parameters_serial((GstFxIir *) child);

      if (serial != self->seen_serial[i])
        changed = TRUE;
      self->seen_serial[i] = serial;
    }
  }
  return changed;
}

static gboolean gst_fx_fused_setup(GstAudioFilter *filter, const GstAudioInfo *info)
{
  GstFxFused *self = GST_FX_FUSED(filter);

  /* Before designing: a change after this point is seen by the next buffer. */
  snapshot_children(self, NULL, TRUE);
  return GST_AUDIO_FILTER_CLASS(gst_fx_fused_parent_class)->setup(filter, info);
}

static void gst_fx_fused_before_transform(GstBaseTransform *trans, GstBuffer *buffer)
{
  GstFxFused *self = (GstFxFused *) trans;
  GstElement *new_clip = NULL;
  GstClockTime stream_time;

  /* The stage's own controllers (GstFxIir syncs them). Per buffer: unchecked casts here and
   * below (GObject's checked casts cost more than the rest of this function). */
  ((GstBaseTransformClass *) gst_fx_fused_parent_class)->before_transform(trans, buffer);

  /* The children's controllers, at the buffer's stream time, as they would sync themselves. Only
   * children with control bindings (the unlocked check gst_object_sync_values() itself makes
   * first), so a chain without automation pays no stream-time conversion and no calls. */
  stream_time = GST_CLOCK_TIME_NONE;
  for (guint i = 0; i < self->n; i++) {
    GstObject *child = (GstObject *) self->children[i];

    if (!child->control_bindings)
      continue;
    if (!GST_CLOCK_TIME_IS_VALID(stream_time)) {
      stream_time = gst_segment_to_stream_time(&trans->segment, GST_FORMAT_TIME,
                                               GST_BUFFER_TIMESTAMP(buffer));
      if (!GST_CLOCK_TIME_IS_VALID(stream_time))
        break;
    }
    gst_object_sync_values(child, stream_time);
  }
  /* Controllers on the children's own child objects (fxeq's bands). */
  for (guint i = 0; i < self->n; i++)
    if (self->sync_child[i])
      self->sync_child[i]((GstFxIir *) self->children[i], &trans->segment,
                          GST_BUFFER_TIMESTAMP(buffer));

  if (snapshot_children(self, &new_clip, FALSE)) {
    GST_LOG_OBJECT(self, "a child's parameters changed: redesigning the fused cascade");
    gst_fx_iir_parameters_changed((GstFxIir *) self);
  }
  if (new_clip && !self->clip_warned) {
    gchar *name = gst_object_get_name(GST_OBJECT(new_clip));
    self->clip_warned = TRUE;
    GST_ELEMENT_WARNING(self, LIBRARY, SETTINGS,
                        ("%s: clip=true cannot apply while the gain is folded into a fused "
                         "cascade; it takes effect when fxchain is restarted (READY)",
                         name),
                        ("the fusion plan is made on NULL->READY"));
    g_free(name);
  }
}
