/* gst-fx — GstFxIir: base class of every IIR element (a GstAudioFilter around one SOS cascade).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_IIR_H
#define GST_FX_IIR_H

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/audio/gstaudiofilter.h>

#include "cascade.h"
#include "design.h"

G_BEGIN_DECLS

/**
 * GstFxDevice:
 * @GST_FX_DEVICE_AUTO: the faster backend for the negotiated shape (the CPU when there is no GPU)
 * @GST_FX_DEVICE_CPU: always the CPU
 * @GST_FX_DEVICE_CUDA: an NVIDIA GPU through CUDA (falls back to the CPU with a warning)
 */
typedef enum {
  GST_FX_DEVICE_AUTO = 0,
  GST_FX_DEVICE_CPU,
  GST_FX_DEVICE_CUDA,
} GstFxDevice;

/**
 * GstFxPrecision:
 * @GST_FX_PRECISION_AUTO: double whenever single precision could be unstable or inaccurate
 * @GST_FX_PRECISION_SINGLE: single-precision arithmetic for F32 streams
 * @GST_FX_PRECISION_DOUBLE: double-precision arithmetic
 */
typedef enum {
  GST_FX_PRECISION_AUTO = 0,
  GST_FX_PRECISION_SINGLE,
  GST_FX_PRECISION_DOUBLE,
} GstFxPrecision;

#define GST_TYPE_FX_DEVICE (gst_fx_device_get_type())
GType gst_fx_device_get_type(void);
#define GST_TYPE_FX_PRECISION (gst_fx_precision_get_type())
GType gst_fx_precision_get_type(void);

/* A designed cascade: the sections in chain order and the stage layout over them, as
 * fx_cascade_set_stages() installs it. */
typedef struct {
  fx_sos_t *sos; /* g_malloc'ed, n_sections */
  int n_sections;
  fx_cascade_stage_t *stages; /* g_malloc'ed, n_stages; SECTIONS stages point into sos */
  int n_stages;
} GstFxDesign;

void gst_fx_design_free(GstFxDesign *design);

#define GST_TYPE_FX_IIR (gst_fx_iir_get_type())
G_DECLARE_DERIVABLE_TYPE(GstFxIir, gst_fx_iir, GST, FX_IIR, GstAudioFilter)

/**
 * GstFxIirClass:
 * @design: designs the cascade for sample rate @rate into @sos (room for @capacity sections) and
 *   sets *@n_sections. Called with the object lock held; must not post messages or take other
 *   locks. On failure returns %FALSE and sets *@error to a newly allocated message that names the
 *   property, its value and the allowed range.
 * @max_sections: the most sections @design can produce (set in class_init; default
 *   FX_DESIGN_MAX_SECTIONS).
 * @design_cascade: optional, replaces @design: designs the cascade for @rate into @design
 *   (zeroed on entry): g_malloc'ed sections (any number) and, optionally, the stage layout over
 *   them (fx_cascade_set_stages(); without one the sections form one stage). Called with the
 *   object lock held; it may take the object locks of other elements that never call back into
 *   this one (fxchain's fused stage reads its children), and must not post messages. Errors as for
 *   @design.
 * @sync_child_controllers: optional: syncs the controllers of the element's own child objects
 *   (fxeq's bands, #GstChildProxy children) to the stream time of @timestamp in @segment. Called
 *   without locks from before_transform after the element's own controllers were synced, and by
 *   fxchain's fused stage for a fused child. Should cost nothing when no child has a control
 *   binding.
 */
struct _GstFxIirClass {
  GstAudioFilterClass parent_class;

  gboolean (*design)(GstFxIir *self, double rate, fx_sos_t *sos, int capacity, int *n_sections,
                     gchar **error);
  int max_sections;

  gboolean (*design_cascade)(GstFxIir *self, double rate, GstFxDesign *design, gchar **error);

  void (*sync_child_controllers)(GstFxIir *self, const GstSegment *segment, GstClockTime timestamp);

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
};

/* Designs the element's current sections for sample rate @rate without touching the streaming
 * state (for fxchain and tools). On success *@sos is a g_malloc'ed array of *@n_sections
 * sections (free with g_free). On failure returns FALSE and, when @error is not NULL, sets it to a
 * message naming the property, its value and the allowed range. Thread-safe. */
gboolean gst_fx_iir_get_sections(GstFxIir *self, double rate, fx_sos_t **sos, int *n_sections,
                                 gchar **error);

/* As gst_fx_iir_get_sections(), with the stage layout: on success *@design is a new design
 * (free with gst_fx_design_free()) whose stages point into its own sections. For containers
 * (fxchain's fused stage) that keep a child's stages apart, as the child itself runs them. */
gboolean gst_fx_iir_get_design(GstFxIir *self, double rate, GstFxDesign **design, gchar **error);

/* Subclasses call this after changing a DSP parameter (without holding the object lock). When the
 * rate is known the sections are redesigned at once and installed on the next buffer; when the
 * new parameters are invalid an element warning names the property, value and range, and the
 * previous coefficients stay. */
void gst_fx_iir_parameters_changed(GstFxIir *self);

/* A counter that changes whenever a DSP parameter changes (valid or not), so that a container
 * (fxchain) can tell cheaply, per buffer, whether to call gst_fx_iir_get_sections() again. One
 * atomic load, no lock. */
guint gst_fx_iir_get_parameters_serial(GstFxIir *self);

/* The negotiated sample rate, or 0 when none. */
gint gst_fx_iir_get_rate(GstFxIir *self);

/* The common properties of every IIR element and of fxchain, in this order from the first
 * property id given to gst_fx_install_common_properties(). */
typedef enum {
  GST_FX_COMMON_PROP_DEVICE = 0,
  GST_FX_COMMON_PROP_PRECISION,
  GST_FX_COMMON_PROP_DISPATCHES,
  GST_FX_COMMON_PROP_BACKEND,
  GST_FX_COMMON_PROP_SCAN_THRESHOLD,
  GST_FX_COMMON_PROP_CUDA_GRAPHS,
  GST_FX_COMMON_PROP_LAUNCHES,
  GST_FX_COMMON_PROP_WARM_UP,
  GST_FX_COMMON_PROP_COUNT,
} GstFxCommonProp;

/* The writable common properties' values (guarded by the owner's object lock). */
typedef struct {
  GstFxDevice device;
  GstFxPrecision precision;
  guint scan_threshold;
  gboolean cuda_graphs;
  gboolean warm_up;
} GstFxCommonSettings;

/* Sets the defaults. */
void gst_fx_common_settings_init(GstFxCommonSettings *settings);
/* Stores a writable common property (`which`: device, precision, scan-threshold, cuda-graphs or
 * warm-up);
 * returns TRUE when the value changed. FALSE for the read-only ones. Object lock held. */
gboolean gst_fx_common_settings_set(GstFxCommonSettings *settings, GstFxCommonProp which,
                                    const GValue *value);
/* Reads a writable common property into @value; FALSE for the read-only ones. Object lock held. */
gboolean gst_fx_common_settings_get(const GstFxCommonSettings *settings, GstFxCommonProp which,
                                    GValue *value);

/* For an owner whose common properties start at @first_prop_id: the writable common property that
 * @prop_id names, or GST_FX_COMMON_PROP_COUNT when it names none. */
GstFxCommonProp gst_fx_common_prop_writable(guint prop_id, guint first_prop_id);
/* Reads the writable common property that @prop_id names (as above) into @value under @owner's
 * object lock and returns TRUE; FALSE, reading nothing, when it names none. */
gboolean gst_fx_common_settings_get_locked(GstObject *owner, const GstFxCommonSettings *settings,
                                           guint prop_id, guint first_prop_id, GValue *value);

/* Installs `device`, `precision`, `dispatches`, `backend`, `scan-threshold`, `cuda-graphs`,
 * `launches` and `warm-up` with ids @first_prop_id + GstFxCommonProp. */
void gst_fx_install_common_properties(GObjectClass *klass, guint first_prop_id);

/* Helpers for subclasses' error messages (newly allocated). */
gchar *gst_fx_iir_describe_frequency(const char *property, double value, double rate);
/* The message for a design status no property explains: "rate R Hz is invalid" for FX_ERR_RATE,
 * otherwise "the @what cannot be designed: STATUS". */
gchar *gst_fx_iir_describe_design_error(fx_status_t status, double rate, const char *what);

G_END_DECLS

#endif
