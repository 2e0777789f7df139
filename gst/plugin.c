/* gst-fx — the fx plugin: registers every element.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "gstfxbiquad.h"
#include "gstfxbutterworth.h"
#include "gstfxchain.h"
#include "gstfxchebyshev1.h"
#include "gstfxchebyshev2.h"
#include "gstfxdelay.h"
#include "gstfxelliptic.h"
#include "gstfxeq.h"
#include "gstfxfir.h"
#include "gstfxgain.h"
#include "gstfxprof.h"
#include "gstfxlinkwitzriley.h"
#include "gstfxreverb.h"
#include "gstfxsos.h"
#include "gstfxcompressor.h"
#include "gstfxgate.h"
#include "gstfxlimiter.h"
#include "gstfxnormalize.h"
#include "gstfxloudness.h"
#include "gstfxloudnorm.h"

static gboolean plugin_init(GstPlugin *plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER(fxbutterworth, plugin);
  ret |= GST_ELEMENT_REGISTER(fxchebyshev1, plugin);
  ret |= GST_ELEMENT_REGISTER(fxchebyshev2, plugin);
  ret |= GST_ELEMENT_REGISTER(fxelliptic, plugin);
  ret |= GST_ELEMENT_REGISTER(fxlinkwitzriley, plugin);
  ret |= GST_ELEMENT_REGISTER(fxbiquad, plugin);
  ret |= GST_ELEMENT_REGISTER(fxsos, plugin);
  ret |= GST_ELEMENT_REGISTER(fxgain, plugin);
  ret |= GST_ELEMENT_REGISTER(fxchain, plugin);
  ret |= GST_ELEMENT_REGISTER(fxeq, plugin);
  ret |= GST_ELEMENT_REGISTER(fxcompressor, plugin);
  ret |= GST_ELEMENT_REGISTER(fxgate, plugin);
  ret |= GST_ELEMENT_REGISTER(fxlimiter, plugin);
  ret |= GST_ELEMENT_REGISTER(fxnormalize, plugin);
  ret |= GST_ELEMENT_REGISTER(fxloudness, plugin);
  ret |= GST_ELEMENT_REGISTER(fxloudnorm, plugin);
  /* The profiling tracer (GST_TRACERS=fxprof). */
  ret |= gst_fx_prof_register(plugin);
  ret |= GST_ELEMENT_REGISTER(fxdelay, plugin);
  ret |= GST_ELEMENT_REGISTER(fxreverb, plugin);
  ret |= GST_ELEMENT_REGISTER(fxfir, plugin);

  return ret;
}

/* GstPluginDesc's reserved padding is left zero-initialised by GST_PLUGIN_DEFINE. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, fx,
                  "gst-fx audio effects: IIR designs (Butterworth, Chebyshev I/II, elliptic) run "
                  "as second-order-section cascades; biquad, SOS, parametric EQ and "
                  "Linkwitz-Riley crossover; FIR (windowed-sinc designs and custom kernels); "
                  "gain; normalise; EBU R128 loudness meter and live loudness normaliser; dynamics "
                  "(compressor, limiter, gate); "
                  "delay; reverb; the "
                  "fusing bin fxchain; and the fxprof profiling tracer",
                  plugin_init, FX_VERSION, "GPL", FX_PACKAGE, FX_ORIGIN)
#pragma GCC diagnostic pop
