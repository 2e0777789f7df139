/* gst-fx — status codes of libfxdsp (status.h). Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "status.h"

const char *fx_status_string(fx_status_t status)
{
  switch (status) {
  case FX_OK:
    return "ok";
  case FX_ERR_RATE:
    return "sample rate out of range";
  case FX_ERR_ORDER:
    return "order out of range";
  case FX_ERR_CUTOFF:
    return "cutoff out of range";
  case FX_ERR_LOWER:
    return "lower frequency out of range";
  case FX_ERR_UPPER:
    return "upper frequency out of range";
  case FX_ERR_BAND:
    return "lower frequency not below upper frequency";
  case FX_ERR_RIPPLE:
    return "ripple out of range";
  case FX_ERR_ATTENUATION:
    return "attenuation out of range";
  case FX_ERR_FREQUENCY:
    return "frequency out of range";
  case FX_ERR_Q:
    return "q out of range";
  case FX_ERR_GAIN:
    return "gain not finite";
  case FX_ERR_TYPE:
    return "unknown filter type";
  case FX_ERR_CAPACITY:
    return "output array too small";
  case FX_ERR_UNSTABLE:
    return "unstable section";
  case FX_ERR_SYNTAX:
    return "syntax error";
  case FX_ERR_A0:
    return "a0 is zero";
  case FX_ERR_NONFINITE:
    return "coefficient not finite";
  case FX_ERR_NOMEM:
    return "out of memory";
  case FX_ERR_CHANNELS:
    return "channel count out of range";
  case FX_ERR_ARG:
    return "missing argument";
  case FX_ERR_TAPS:
    return "number of taps out of range";
  case FX_ERR_EVEN_TAPS:
    return "high-pass and band-reject designs need an odd number of taps";
  case FX_ERR_BETA:
    return "kaiser-beta out of range";
  case FX_ERR_WINDOW:
    return "unknown window";
  case FX_ERR_SCALE:
    return "the design has zero gain at its scaling frequency";
  }
  return "unknown status";
}
