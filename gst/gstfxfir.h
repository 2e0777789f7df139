/* gst-fx — fxfir: FIR filter from a kernel or a windowed-sinc design.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_FIR_H
#define GST_FX_FIR_H

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/audio/gstaudiofilter.h>

G_BEGIN_DECLS

#define GST_TYPE_FX_FIR (gst_fx_fir_get_type())
G_DECLARE_FINAL_TYPE(GstFxFir, gst_fx_fir, GST, FX_FIR, GstAudioFilter)

#define GST_TYPE_FX_FIR_WINDOW (gst_fx_fir_window_get_type())
GType gst_fx_fir_window_get_type(void);
#define GST_TYPE_FX_FIR_METHOD (gst_fx_fir_method_get_type())
GType gst_fx_fir_method_get_type(void);

GST_ELEMENT_REGISTER_DECLARE(fxfir);

G_END_DECLS

#endif
