/* gst-fx — filter design (scipy.signal conventions). Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FX_DESIGN_H
#define FX_DESIGN_H

#include <stddef.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One second-order section, normalised so that a0 == 1:
 *   H(z) = (b0 + b1 z^-1 + b2 z^-2) / (1 + a1 z^-1 + a2 z^-2)
 * A design's overall gain is folded into the first section's numerator, as scipy does. */
typedef struct {
  double b0, b1, b2, a1, a2;
} fx_sos_t;

typedef enum {
  FX_MODE_LOW_PASS = 0,
  FX_MODE_HIGH_PASS,
  FX_MODE_BAND_PASS,
  FX_MODE_BAND_REJECT,
} fx_mode_t;

typedef enum {
  FX_FAMILY_BUTTERWORTH = 0,
  FX_FAMILY_CHEBYSHEV1,
  FX_FAMILY_CHEBYSHEV2,
  FX_FAMILY_ELLIPTIC,
} fx_family_t;

#define FX_MAX_ORDER 64
#define FX_ELLIPTIC_MAX_ORDER 24
#define FX_LR_MAX_ORDER 16
/* Largest number of sections any design here produces (band modes of order 64: 128 poles). */
#define FX_DESIGN_MAX_SECTIONS 64

typedef struct {
  fx_family_t family;
  fx_mode_t mode;
  int order;          /* prototype order N; band modes have 2N poles */
  double rate;        /* sample rate, Hz */
  double cutoff;      /* Hz, low/high-pass (Chebyshev II: the stopband edge, as scipy's Wn) */
  double lower;       /* Hz, band modes */
  double upper;       /* Hz, band modes */
  double ripple;      /* dB, Chebyshev I and elliptic passband ripple */
  double attenuation; /* dB, Chebyshev II and elliptic stopband attenuation */
} fx_iir_spec_t;

/* Validates every parameter the spec's family and mode use. Returns FX_OK or the first
 * FX_ERR_* code that applies. */
fx_status_t fx_iir_spec_check(const fx_iir_spec_t *spec);

/* Number of sections fx_design_iir() produces for this spec: ceil(poles / 2). */
int fx_iir_sections_needed(const fx_iir_spec_t *spec);

/* Designs the filter like scipy.signal.{butter,cheby1,cheby2,ellip}(N, Wn, btype, output='sos',
 * fs=rate) (digital, bilinear transform with pre-warping, zpk2sos pairing). Writes *n_sections
 * sections to sos[0..capacity). */
fx_status_t fx_design_iir(const fx_iir_spec_t *spec, fx_sos_t *sos, int capacity, int *n_sections);

/* Linkwitz–Riley crossover of even order 2..16 (mode FX_MODE_LOW_PASS or FX_MODE_HIGH_PASS):
 * the square of a Butterworth of order/2. For order/2 odd the high-pass is negated so that
 * low-pass + high-pass of one cutoff always sum to an all-pass. */
fx_status_t fx_design_linkwitz_riley(fx_mode_t mode, int order, double cutoff, double rate,
                                     fx_sos_t *sos, int capacity, int *n_sections);

typedef enum {
  FX_BIQUAD_LOW_PASS = 0,
  FX_BIQUAD_HIGH_PASS,
  FX_BIQUAD_BAND_PASS,      /* constant 0 dB peak gain */
  FX_BIQUAD_BAND_PASS_PEAK, /* constant skirt gain, peak gain = Q */
  FX_BIQUAD_NOTCH,
  FX_BIQUAD_ALL_PASS,
  FX_BIQUAD_PEAKING,
  FX_BIQUAD_LOW_SHELF,
  FX_BIQUAD_HIGH_SHELF,
} fx_biquad_type_t;

/* RBJ Audio-EQ-Cookbook biquad (shelves with the slope parameterised by Q). gain_db is used by
 * peaking and the shelves only. */
fx_status_t fx_design_biquad(fx_biquad_type_t type, double frequency, double q, double gain_db,
                             double rate, fx_sos_t *sos);

/* Normalises one row b0 b1 b2 a0 a1 a2 (scipy's sos layout) by a0 and checks it. */
fx_status_t fx_sos_from_row(const double row[6], fx_sos_t *out);

/* 1 when all five coefficients of the section are finite. */
int fx_sos_is_finite(const fx_sos_t *s);

/* 1 when both poles of the section lie strictly inside the unit circle. */
int fx_sos_is_stable(const fx_sos_t *s);

/* Parses K rows "b0 b1 b2 a0 a1 a2" separated by ';' (numbers separated by spaces and/or commas),
 * and also GStreamer's serialised array form "< < b0, b1, b2, a0, a1, a2 >, < ... > >".
 * Every row is normalised by a0 and checked (finite, a0 != 0, stable). On failure returns the
 * status and sets *bad_row to the 0-based row index at fault (-1 when not row-specific). */
fx_status_t fx_sos_parse(const char *text, fx_sos_t *sos, int capacity, int *n_sections,
                         int *bad_row);

/* Complex response of a cascade at frequency f (Hz) for sample rate `rate`. */
void fx_sos_response(const fx_sos_t *sos, int n, double f, double rate, double *re, double *im);

#ifdef __cplusplus
}
#endif

#endif
