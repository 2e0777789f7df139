/* gst-fx — device choice glue (see gstfxdevice.h and docs/cuda.md).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * device=cpu: the CPU engine. device=cuda: the CUDA backend when a GPU is usable, else one
 * warning with the reason and the CPU. device=auto: the CPU; the rule that would pick the GPU
 * for shapes measured faster there awaits measurements on a GPU (docs/cuda.md), so auto never
 * starts the GPU today. */
#include "gstfxdevice.h"

#include <string.h>

#ifdef FX_HAVE_CUDA
#include "fxcuda.h"
#endif

void gst_fx_device_state_init(GstFxDeviceState *d)
{
  memset(d, 0, sizeof(*d));
}

void gst_fx_device_state_clear(GstFxDeviceState *d, fx_cascade_t *c)
{
#ifdef FX_HAVE_CUDA
  if (d->cuda) {
    fx_cuda_attach(d->cuda, NULL);
    d->launches_prev += fx_cuda_launches(d->cuda);
    fx_cuda_free(d->cuda);
    d->cuda = NULL;
  }
#endif
  fx_cascade_set_offload(c, NULL, NULL);
  d->have_applied = FALSE;
  d->gave_up = FALSE;
}

gchar *gst_fx_device_apply(GstFxDeviceState *d, fx_cascade_t *c, GstFxDevice device,
                           gboolean graphs, guint scan_threshold)
{
  const gboolean want_cuda = device == GST_FX_DEVICE_CUDA;
  if (d->have_applied && d->applied == device) {
#ifdef FX_HAVE_CUDA
    if (d->cuda) {
      fx_cuda_set_graphs(d->cuda, graphs);
      fx_cuda_set_scan_threshold(d->cuda, scan_threshold);
    }
#endif
    return NULL;
  }
  d->have_applied = TRUE;
  d->applied = device;
  if (!want_cuda) { /* the launches of a released backend stay counted (launches_prev) */
    gst_fx_device_state_clear(d, c);
    d->have_applied = TRUE;
    d->applied = device;
    return NULL;
  }
#ifdef FX_HAVE_CUDA
  if (!d->cuda) {
    char why[256] = "";
    d->cuda = fx_cuda_new(why, sizeof(why));
    if (!d->cuda) {
      d->gave_up = TRUE;
      return g_strdup_printf("device=cuda: no usable GPU (%s); processing continues on the CPU",
                             why);
    }
  }
  fx_cuda_set_graphs(d->cuda, graphs);
  fx_cuda_set_scan_threshold(d->cuda, scan_threshold);
  fx_cuda_attach(d->cuda, c);
  d->gave_up = FALSE;
  return NULL;
#else
  (void) graphs;
  (void) scan_threshold;
  d->gave_up = TRUE;
  return g_strdup("device=cuda: the CUDA backend is not built into this plugin (built with "
                  "-Dcuda=disabled); processing continues on the CPU");
#endif
}

gchar *gst_fx_device_check(GstFxDeviceState *d, fx_cascade_t *c)
{
#ifdef FX_HAVE_CUDA
  if (d->cuda && !d->gave_up && fx_cuda_error(d->cuda)) {
    d->gave_up = TRUE;
    fx_cascade_set_offload(c, NULL, NULL);
    return g_strdup_printf("device=cuda: %s; processing continues on the CPU with the filter "
                           "state carried over",
                           fx_cuda_error(d->cuda));
  }
#else
  (void) d;
  (void) c;
#endif
  return NULL;
}

const gchar *gst_fx_device_backend(GstFxDeviceState *d, fx_cascade_t *c)
{
#ifdef FX_HAVE_CUDA
  if (d->cuda && fx_cascade_offload_active(c))
    return fx_cuda_backend(d->cuda, fx_cascade_uses_double(c));
#else
  (void) d;
#endif
  return fx_cascade_backend(c);
}

guint64 gst_fx_device_launches(const GstFxDeviceState *d)
{
  guint64 n = d->launches_prev;
#ifdef FX_HAVE_CUDA
  if (d->cuda)
    n += fx_cuda_launches(d->cuda);
#endif
  return n;
}
