/* gst-fx — the base class of the effects with a tail (fxdelay, fxreverb): it owns the effect's DSP
 * object and runs it in place per buffer, renders the tail at EOS with continuous timestamps,
 * resets on flush and new streams, and posts the rate-limited non-finite input warning. A
 * subclass makes its DSP object in `setup` (gst_fx_effect_set_dsp()) and hands it its settings in
 * `before_transform`.
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
} GstFxTail;

void gst_fx_tail_reset(GstFxTail *t);

/* Records where @buf (of @frames frames at @rate) ends. */
void gst_fx_tail_track(GstFxTail *t, GstBuffer *buf, gsize frames, gint rate);

/* Renders @frames frames of silence through the effect, in place (@data holds zeros). Returns FALSE
 * when the effect cannot render (no state). */
typedef gboolean (*GstFxTailRender)(GstBaseTransform *trans, gpointer data, gsize frames);
/* An upper bound of the magnitude of every future output sample with silent input. */
typedef double (*GstFxTailBound)(GstBaseTransform *trans);

#define GST_TYPE_FX_EFFECT (gst_fx_effect_get_type())
G_DECLARE_DERIVABLE_TYPE(GstFxEffect, gst_fx_effect, GST, FX_EFFECT, GstAudioFilter)

struct _GstFxEffectClass {
  GstAudioFilterClass parent_class;

  /* Filters @frames interleaved frames of @data in place (F64 when @is_f64, else F32); returns
   * non-zero when the input held NaN or Inf (the DSP object then cleared its state). */
  int (*process)(gpointer dsp, gboolean is_f64, gpointer data, gsize frames);
  /* An upper bound of the magnitude of every future output sample with silent input. */
  double (*tail_bound)(gpointer dsp);
  /* Clears the stream state. */
  void (*reset)(gpointer dsp);
  /* Frees the DSP object. */
  void (*free_dsp)(gpointer dsp);
};

/* Installs @dsp (made for @info; may be NULL), freeing the previous one. Streaming thread. */
void gst_fx_effect_set_dsp(GstFxEffect *self, gpointer dsp, const GstAudioInfo *info);
/* The DSP object, or NULL before caps. Streaming thread. */
gpointer gst_fx_effect_get_dsp(GstFxEffect *self);

/* At EOS: pushes buffers of GST_FX_TAIL_BLOCK frames rendered from silence on @trans's src pad,
 * timestamped on from the end of the last input buffer, until @bound falls below
 * GST_FX_TAIL_THRESHOLD or GST_FX_TAIL_MAX_SECONDS of tail went out. Nothing when no buffer went
 * through. */
GstFlowReturn gst_fx_tail_drain(GstBaseTransform *trans, GstFxTail *t, const GstAudioInfo *info,
                                GstFxTailRender render, GstFxTailBound bound);

G_END_DECLS

#endif
