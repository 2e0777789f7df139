/* gst-fx — fxreverb: Freeverb-topology reverb with an EOS tail.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_REVERB_H
#define GST_FX_REVERB_H

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/audio/gstaudiofilter.h>

#include "gstfxeffect.h"

G_BEGIN_DECLS

#define GST_TYPE_FX_REVERB (gst_fx_reverb_get_type())
G_DECLARE_FINAL_TYPE(GstFxReverb, gst_fx_reverb, GST, FX_REVERB, GstFxEffect)

GST_ELEMENT_REGISTER_DECLARE(fxreverb);

G_END_DECLS

#endif
