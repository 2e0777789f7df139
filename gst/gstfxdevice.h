/* gst-fx — where an element's cascade runs (CPU or CUDA): glue between GstFxIir and libfxcuda.
 * No DSP math: it only creates, attaches and queries the CUDA backend object.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_DEVICE_H
#define GST_FX_DEVICE_H

#include <glib.h>

#include "cascade.h"
#include "gstfxcommon.h"

G_BEGIN_DECLS

typedef struct {
  gpointer cuda;         /* fx_cuda_t * (NULL without one) */
  gboolean gave_up;      /* device=cuda could not start or failed: CPU until the settings change */
  guint64 launches_prev; /* launches of backend objects already released */
  GstFxDevice applied;   /* the device setting applied last */
  gboolean have_applied; /* `applied` is valid */
} GstFxDeviceState;

void gst_fx_device_state_init(GstFxDeviceState *d);
/* Detaches and releases the backend (the cascade keeps running on the CPU). */
void gst_fx_device_state_clear(GstFxDeviceState *d, fx_cascade_t *c);

/* Applies the device settings to the cascade. Returns a warning to post (g_free it) when
 * device=cuda cannot use a GPU, else NULL. Cheap when nothing changed. */
gchar *gst_fx_device_apply(GstFxDeviceState *d, fx_cascade_t *c, GstFxDevice device,
                           gboolean graphs, guint scan_threshold);

/* After processing: a warning to post (g_free it) once a CUDA call failed mid-stream (the
 * cascade already continued on the CPU with its state), else NULL. */
gchar *gst_fx_device_check(GstFxDeviceState *d, fx_cascade_t *c);

/* The backend string (what runs now) and the CUDA launches issued. */
const gchar *gst_fx_device_backend(GstFxDeviceState *d, fx_cascade_t *c);
guint64 gst_fx_device_launches(const GstFxDeviceState *d);

G_END_DECLS

#endif
