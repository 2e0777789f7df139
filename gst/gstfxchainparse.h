/* gst-fx — fxchain's own parser for the `chain` property (see gstfxchainparse.c).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_CHAIN_PARSE_H
#define GST_FX_CHAIN_PARSE_H

#include <gst/gst.h>

G_BEGIN_DECLS

/* The most elements fxchain takes (in `chain` or as children); more are refused with an error.
 * fxchain's own parsing, linking and planning are linear in the length, but GStreamer's bin sorts
 * its children on every state change in time that grows with the square of the number of
 * unlinked children (the children of a fused run are unlinked), so a bound keeps a long chain's
 * state changes short. Real chains are far shorter. */
#define GST_FX_CHAIN_MAX_ELEMENTS 1024

/* Parses a linear chain "factory prop=value ! factory2 ..." and creates its elements with their
 * properties set. Returns the elements in chain order (a GPtrArray of GstElement refs, not
 * floating, not linked, no parent; empty for a blank description), or NULL with *error set to one
 * line saying what is wrong (syntax, unknown element or property, a value that is invalid or out
 * of range, with the range or the valid names). */
GPtrArray *gst_fx_chain_parse(const gchar *desc, gchar **error);

G_END_DECLS

#endif
