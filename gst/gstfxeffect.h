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

/* The functions of an effect's DSP object (a libfxdsp type such as fx_delay_t), which the base
 * class calls with the object as @dsp. */
typedef struct {
  /* Filter @frames interleaved frames of @data in place; return non-zero when the input held NaN
   * or Inf (the DSP object then cleared its state). */
  int (*process_f32)(gpointer dsp, float *data, gsize frames);
  int (*process_f64)(gpointer dsp, double *data, gsize frames);
  /* An upper bound of the magnitude of every future output sample with silent input. */
  double (*tail_bound)(gpointer dsp);
  /* Clears the stream state. */
  void (*reset)(gpointer dsp);
  /* Frees the DSP object. */
  void (*free)(gpointer dsp);
} GstFxEffectOps;

/* Defines `static const GstFxEffectOps name` from the libfxdsp functions of the DSP type @type
 * (each takes a @type * first). The table calls them through one-line typed wrappers, never
 * through a function pointer of another type. */
#define GST_FX_EFFECT_DEFINE_OPS(name, type, process_f32, process_f64, tail_bound, reset, free_fn) \
  static int name##_process_f32(gpointer dsp, float *data, gsize frames)                           \
  {                                                                                                \
    return process_f32((type *) dsp, data, frames);                                                \
  }                                                                                                \
  static int name##_process_f64(gpointer dsp, double *data, gsize frames)                          \
  {                                                                                                \
    return process_f64((type *) dsp, data, frames);                                                \
  }                                                                                                \
  static double name##_tail_bound(gpointer dsp)                                                    \
  {                                                                                                \
    return tail_bound((type *) dsp);                                                               \
  }                                                                                                \
  static void name##_reset(gpointer dsp)                                                           \
  {                                                                                                \
    reset((type *) dsp);                                                                           \
  }                                                                                                \
  static void name##_free(gpointer dsp)                                                            \
  {                                                                                                \
    free_fn((type *) dsp);                                                                         \
  }                                                                                                \
  static const GstFxEffectOps name = {name##_process_f32, name##_process_f64, name##_tail_bound,   \
                                      name##_reset, name##_free}

#define GST_TYPE_FX_EFFECT (gst_fx_effect_get_type())
G_DECLARE_DERIVABLE_TYPE(GstFxEffect, gst_fx_effect, GST, FX_EFFECT, GstAudioFilter)

struct _GstFxEffectClass {
  GstAudioFilterClass parent_class;

  /* The DSP object's functions (set in the subclass's class_init). */
  const GstFxEffectOps *ops;
};

/* Installs @dsp (made for @info, the format it runs on, which is the src pad's; may be NULL),
 * freeing the previous one. The in-place path and the EOS tail use @info. Streaming thread. */
void gst_fx_effect_set_dsp(GstFxEffect *self, gpointer dsp, const GstAudioInfo *info);
/* The DSP object, or NULL before caps. Streaming thread. */
gpointer gst_fx_effect_get_dsp(GstFxEffect *self);

G_END_DECLS

#endif
