/* gst-fx — GstFxFused: fxchain's internal fused stage (one cascade for a run of IIR children).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_FUSED_H
#define GST_FX_FUSED_H

#include "gstfxiir.h"

G_BEGIN_DECLS

#define GST_TYPE_FX_FUSED (gst_fx_fused_get_type())
G_DECLARE_FINAL_TYPE(GstFxFused, gst_fx_fused, GST, FX_FUSED, GstFxIir)

/* A fused stage covering @n_children elements in chain order: #GstFxIir elements and
 * non-clipping fxgain elements, at least one of them a #GstFxIir (as fx_plan_chain() cuts a
 * run). The stage holds a reference to each child; the children stay where they are (in the
 * fxchain bin, unlinked) and remain the place where parameters are set. Not registered as an
 * element factory. */
GstElement *gst_fx_fused_new(const gchar *name, GstElement *const *children, guint n_children);

G_END_DECLS

#endif
