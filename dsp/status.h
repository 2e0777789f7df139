/* gst-fx — status codes of libfxdsp. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One enum for every dsp/ function that can fail. The parameter codes name the parameter that is
 * out of range, so that the caller (an element) can name the property, its value and the allowed
 * range; the others say what went wrong. New codes go at the end: tests/python's ctypes shims
 * list the names by value. */
#ifndef FX_STATUS_H
#define FX_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  FX_OK = 0,
  FX_ERR_RATE,        /* rate not finite or <= 0 */
  FX_ERR_ORDER,       /* order outside the family's range */
  FX_ERR_CUTOFF,      /* cutoff not inside (0, rate/2) */
  FX_ERR_LOWER,       /* lower-frequency not inside (0, rate/2) */
  FX_ERR_UPPER,       /* upper-frequency not inside (0, rate/2) */
  FX_ERR_BAND,        /* lower-frequency >= upper-frequency */
  FX_ERR_RIPPLE,      /* ripple not > 0 and finite */
  FX_ERR_ATTENUATION, /* attenuation not > 0 and finite (elliptic: must exceed ripple) */
  FX_ERR_FREQUENCY,   /* biquad frequency not inside (0, rate/2) */
  FX_ERR_Q,           /* q not > 0 and finite */
  FX_ERR_GAIN,        /* gain not finite */
  FX_ERR_TYPE,        /* unknown mode / type / family / format / precision / stage kind */
  FX_ERR_CAPACITY,    /* the caller's output array is too small */
  FX_ERR_UNSTABLE,    /* a section has a pole on or outside the unit circle */
  FX_ERR_SYNTAX,      /* text could not be parsed */
  FX_ERR_A0,          /* a0 == 0 in a section row */
  FX_ERR_NONFINITE,   /* a coefficient is NaN or Inf */
  FX_ERR_NOMEM,       /* an allocation failed */
  FX_ERR_CHANNELS,    /* channel count out of range */
  FX_ERR_ARG,         /* a required argument is missing (NULL object or array) */
  FX_ERR_TAPS,        /* FIR: number of taps out of range */
  FX_ERR_EVEN_TAPS,   /* FIR: high-pass / band-reject need an odd number of taps */
  FX_ERR_BETA,        /* FIR: kaiser-beta out of range */
  FX_ERR_WINDOW,      /* FIR: unknown window */
  FX_ERR_SCALE,       /* FIR: the design's gain at the scaling frequency is zero */
} fx_status_t;

/* Human-readable name of a status, e.g. "cutoff out of range". Never NULL. */
const char *fx_status_string(fx_status_t status);

#ifdef __cplusplus
}
#endif

#endif
