/* gst-fx — fxprof: a GStreamer tracer that profiles the gst-fx elements of a pipeline.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_PROF_H
#define GST_FX_PROF_H

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_FX_PROF (gst_fx_prof_get_type())
G_DECLARE_FINAL_TYPE(GstFxProf, gst_fx_prof, GST, FX_PROF, GstTracer)

/* Registers the `fxprof` tracer factory with @plugin (GStreamer 1.22 has no
 * GST_TRACER_REGISTER_DEFINE; this is its equivalent). */
gboolean gst_fx_prof_register(GstPlugin *plugin);

G_END_DECLS

#endif
