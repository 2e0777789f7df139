/* gst-fx — fxgate: downward expander and noise gate with hold and a floor.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_GATE_H
#define GST_FX_GATE_H

#include "gstfxdynamics.h"

G_BEGIN_DECLS

#define GST_TYPE_FX_GATE (gst_fx_gate_get_type())
G_DECLARE_FINAL_TYPE(GstFxGate, gst_fx_gate, GST, FX_GATE, GstFxDynamics)

GST_ELEMENT_REGISTER_DECLARE(fxgate);

G_END_DECLS

#endif
