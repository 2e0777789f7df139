/* gst-fx — GstPreset for the fx elements (GStreamer's default .prs keyfile implementation).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_PRESET_H
#define GST_FX_PRESET_H

#include <gst/gst.h>

G_BEGIN_DECLS

/* Interface init for G_IMPLEMENT_INTERFACE(GST_TYPE_PRESET, ...) on an fx element: the default
 * implementation, storing the element's own settings (and those of its GstChildProxy children,
 * as `child::property`), and loading presets that change the number of children. */
void gst_fx_preset_interface_init(gpointer g_iface, gpointer iface_data);

/* The same for a bin whose children are described by its own properties (fxchain's `chain`):
 * a preset stores the bin's own properties only. */
void gst_fx_preset_bin_interface_init(gpointer g_iface, gpointer iface_data);

G_END_DECLS

#endif
