/* gst-fx — device choice glue (see gstfxdevice.h and docs/cuda.md).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * device=cpu: the CPU engine. device=cuda: the CUDA backend when a GPU is usable, else one
 * warning with the reason and the CPU. device=auto: the CUDA backend, quietly, when a GPU is
 * usable, taking only the buffer shapes where the GPU was measured faster than the CPU engine
 * (fx_cuda_auto_prefers, docs/cuda.md); every other buffer, and everything without a GPU, runs
 * on the CPU without a warning. */
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
  const gboolean want_auto = device == GST_FX_DEVICE_AUTO;
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
  if (!want_cuda && !want_auto) { /* the launches of a released backend stay counted */
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
      if (want_auto) /* auto without a usable GPU is the CPU, as documented: no warning */
        return NULL;
      return g_strdup_printf("device=cuda: no usable GPU (%s); processing continues on the CPU",
                             why);
    }
  }
  fx_cuda_set_auto(d->cuda, want_auto);
  fx_cuda_set_graphs(d->cuda, graphs);
  fx_cuda_set_scan_threshold(d->cuda, scan_threshold);
  fx_cuda_attach(d->cuda, c);
  d->gave_up = FALSE;
  return NULL;
#else
  (void) graphs;
  (void) scan_threshold;
  d->gave_up = TRUE;
  if (want_auto)
    return NULL;
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
    /* named as set: under auto the GPU was chosen for the shape, and failed */
    return g_strdup_printf("device=%s: %s; processing continues on the CPU with the filter "
                           "state carried over",
                           d->applied == GST_FX_DEVICE_AUTO ? "auto" : "cuda",
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
  if (d->cuda && fx_cascade_offload_active(c) && fx_cuda_last_ran(d->cuda))
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
