/* gst-fx — GstFxDynamics: the shared base of fxcompressor, fxgate and fxlimiter.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_DYNAMICS_H
#define GST_FX_DYNAMICS_H

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/audio/gstaudiofilter.h>

#include "dynamics.h"

G_BEGIN_DECLS

#define GST_TYPE_FX_DYNAMICS (gst_fx_dynamics_get_type())
G_DECLARE_DERIVABLE_TYPE(GstFxDynamics, gst_fx_dynamics, GST, FX_DYNAMICS, GstAudioFilter)

/**
 * GstFxDynamicsClass:
 * @mode: which engine the subclass runs (set by gst_fx_dynamics_class_setup())
 * @debug: the subclass's debug category
 */
struct _GstFxDynamicsClass {
  GstAudioFilterClass parent_class;

  fx_dyn_mode_t mode;
  GstDebugCategory *debug;
};

/* Called from a subclass's class_init: installs the properties of @mode (with the defaults of
 * fx_dyn_params_default() and descriptions written for that element) and the pad templates. The
 * subclass sets its own element metadata. */
void gst_fx_dynamics_class_setup(GstFxDynamicsClass *klass, fx_dyn_mode_t mode,
                                 GstDebugCategory *debug);

/* Called from a subclass's instance init (where the instance's class is the subclass's): sets the
 * defaults of the subclass's mode. */
void gst_fx_dynamics_instance_setup(GstFxDynamics *self);

G_END_DECLS

#endif
