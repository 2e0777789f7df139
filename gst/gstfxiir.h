/* gst-fx — GstFxIir: base class of every IIR element (a GstAudioFilter around one SOS cascade).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_IIR_H
#define GST_FX_IIR_H

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/audio/gstaudiofilter.h>

#include "cascade.h"
#include "design.h"

#include "gstfxcommon.h"

G_BEGIN_DECLS

/* A cascade design: what an IIR element designs for one sample rate and installs with
 * fx_cascade_set_stages(): its sections in chain order and the cascade stages over them (a run of
 * sections or a gain, each with its own transitions; see dsp/cascade.h). */
typedef struct {
  fx_sos_t *sos; /* g_malloc'ed, n_sections */
  int n_sections;
  fx_cascade_stage_t *stages; /* g_malloc'ed, n_stages; SECTIONS stages point into sos */
  int n_stages;
} GstFxCascadeDesign;

void gst_fx_cascade_design_free(GstFxCascadeDesign *design);

#define GST_TYPE_FX_IIR (gst_fx_iir_get_type())
G_DECLARE_DERIVABLE_TYPE(GstFxIir, gst_fx_iir, GST, FX_IIR, GstAudioFilter)

/**
 * GstFxIirClass:
 * @design_sections: designs the element's sections for sample rate @rate into @sos (room for
 *   @capacity sections) and sets *@n_sections; they run as one cascade stage. Called with the
 *   object lock held; must not post messages or take other locks. On failure returns %FALSE and
 *   sets *@error to a newly allocated message that names the property, its value and the allowed
 *   range.
 * @max_sections: the most sections @design_sections can produce (set in class_init; default
 *   FX_DESIGN_MAX_SECTIONS).
 * @design_cascade: optional, replaces @design_sections: designs the whole cascade design for
 *   @rate into @design (zeroed on entry): g_malloc'ed sections (any number) and, optionally, the
 *   cascade stages over them (without them the sections form one cascade stage). Called with the
 *   object lock held; it may take the object locks of other elements that never call back into
 *   this one (fxchain's fused stage reads its children), and must not post messages. Errors as for
 *   @design_sections.
 * @sync_child_controllers: optional: syncs the controllers of the element's own child objects
 *   (fxeq's bands, #GstChildProxy children) to the stream time of @timestamp in @segment. Called
 *   without locks from before_transform after the element's own controllers were synced, and by
 *   fxchain's fused stage for a fused child. Should cost nothing when no child has a control
 *   binding.
 */
struct _GstFxIirClass {
  GstAudioFilterClass parent_class;

  gboolean (*design_sections)(GstFxIir *self, double rate, fx_sos_t *sos, int capacity,
                              int *n_sections, gchar **error);
  int max_sections;

  gboolean (*design_cascade)(GstFxIir *self, double rate, GstFxCascadeDesign *design,
                             gchar **error);

  void (*sync_child_controllers)(GstFxIir *self, const GstSegment *segment, GstClockTime timestamp);

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
};

/* Designs the element's current sections for sample rate @rate without touching the streaming
 * state (for fxchain's plan text and `designed-sections`). On success *@sos is a g_malloc'ed
 * array of *@n_sections sections (free with g_free). On failure returns FALSE and, when @error is
 * not NULL, sets it to a message naming the property, its value and the allowed range.
 * Thread-safe. */
gboolean gst_fx_iir_get_sections(GstFxIir *self, double rate, fx_sos_t **sos, int *n_sections,
                                 gchar **error);

/* As gst_fx_iir_get_sections(), the whole cascade design: on success *@design is new (free with
 * gst_fx_cascade_design_free()) and its cascade stages point into its own sections. For fxchain's
 * fused stage, which keeps a child's cascade stages apart, as the child itself runs them. */
gboolean gst_fx_iir_get_cascade_design(GstFxIir *self, double rate, GstFxCascadeDesign **design,
                                       gchar **error);

/* Subclasses call this after changing a DSP parameter (without holding the object lock). When the
 * rate is known the sections are redesigned at once and installed on the next buffer; when the
 * new parameters are invalid an element warning names the property, value and range, and the
 * previous coefficients stay. */
void gst_fx_iir_parameters_changed(GstFxIir *self);

/* A counter that changes whenever a DSP parameter changes (valid or not), so that a container
 * (fxchain) can tell cheaply, per buffer, whether to call gst_fx_iir_get_sections() again. One
 * atomic load, no lock, no type check (@self must be a #GstFxIir). */
guint gst_fx_iir_get_parameters_serial(GstFxIir *self);

/* The negotiated sample rate, or 0 when none. */
gint gst_fx_iir_get_rate(GstFxIir *self);

/* precision=auto on an F32 stream: the probe behind the running arithmetic, e.g. "auto: single
 * 91.3 dB, scipy-f32 54.7 dB SER vs double" (newly allocated), or NULL where no probe applies. */
gchar *gst_fx_iir_describe_precision(GstFxIir *self);

/* Helpers for subclasses' error messages (newly allocated). */
gchar *gst_fx_iir_describe_frequency(const char *property, double value, double rate);
/* The message for a design status no property explains: "rate R Hz is invalid" for FX_ERR_RATE,
 * otherwise "the @what cannot be designed: STATUS". */
gchar *gst_fx_iir_describe_design_error(fx_status_t status, double rate, const char *what);

G_END_DECLS

#endif
