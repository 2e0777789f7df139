/* gst-fx — fxdelay: feedback delay (echo) with tempo-synced notes, ping-pong and an EOS tail.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_DELAY_H
#define GST_FX_DELAY_H

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/audio/gstaudiofilter.h>

#include "gstfxeffect.h"

G_BEGIN_DECLS

#define GST_TYPE_FX_DELAY (gst_fx_delay_get_type())
G_DECLARE_FINAL_TYPE(GstFxDelay, gst_fx_delay, GST, FX_DELAY, GstFxEffect)

GST_ELEMENT_REGISTER_DECLARE(fxdelay);

G_END_DECLS

#endif
