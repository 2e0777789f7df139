/* gst-fx — stream helpers shared by the effects with a tail (fxdelay, fxreverb): the echo tail
 * rendered at EOS with continuous timestamps, and the rate-limited non-finite input warning.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_EFFECT_H
#define GST_FX_EFFECT_H

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

/* The tail ends once the effect's bound on its future output falls below this (-90 dBFS)... */
#define GST_FX_TAIL_THRESHOLD 3.1622776601683795e-05
/* ...or after this much audio, whichever comes first. */
#define GST_FX_TAIL_MAX_SECONDS 60
/* Frames per tail buffer. */
#define GST_FX_TAIL_BLOCK 4096

typedef struct {
  GstClockTime end_pts; /* end of the last input buffer (NONE when unknown) */
  guint64 end_offset;   /* offset_end of the last input buffer (NONE when unknown) */
  gboolean seen;        /* a buffer went through since the last reset */
  /* non-finite input warning: at most one per second of stream time */
  GstClockTime nonfinite_last;
  gboolean nonfinite_warned;
} GstFxTail;

void gst_fx_tail_reset(GstFxTail *t);

/* Records where @buf (of @frames frames at @rate) ends. */
void gst_fx_tail_track(GstFxTail *t, GstBuffer *buf, gsize frames, gint rate);

/* Renders @frames frames of silence through the effect, in place (@data holds zeros). Returns FALSE
 * when the effect cannot render (no state). */
typedef gboolean (*GstFxTailRender)(GstBaseTransform *trans, gpointer data, gsize frames);
/* An upper bound of the magnitude of every future output sample with silent input. */
typedef double (*GstFxTailBound)(GstBaseTransform *trans);

/* At EOS: pushes buffers of GST_FX_TAIL_BLOCK frames rendered from silence on @trans's src pad,
 * timestamped on from the end of the last input buffer, until @bound falls below
 * GST_FX_TAIL_THRESHOLD or GST_FX_TAIL_MAX_SECONDS of tail went out. Nothing when no buffer went
 * through. */
GstFlowReturn gst_fx_tail_drain(GstBaseTransform *trans, GstFxTail *t, const GstAudioInfo *info,
                                GstFxTailRender render, GstFxTailBound bound);

/* Called after a buffer at @ts held NaN or Inf (the effect cleared its state): posts a warning,
 * at most one per second of stream time. */
void gst_fx_tail_warn_nonfinite(GstBaseTransform *trans, GstFxTail *t, GstClockTime ts);

G_END_DECLS

#endif
