/* gst-fx — frequency response of SOS cascades (what `gst-fx response` plots). Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FX_RESPONSE_H
#define FX_RESPONSE_H

#include "design.h"

#ifdef __cplusplus
extern "C" {
#endif

/* n >= 2 frequencies spaced evenly on a log axis from fmin to fmax (both > 0), both included
 * (numpy.geomspace). n == 1 gives fmin. */
void fx_response_logspace(double fmin, double fmax, int n, double *freqs);

/* Complex response of a cascade of n_sections sections at each of the n frequencies (Hz) for
 * sample rate `rate`, multiplied into (re, im): callers start from 1 + 0i (fx_response_unity) and
 * multiply stage after stage to get a chain. Equals scipy.signal.sosfreqz(sos, worN=freqs,
 * fs=rate) for one cascade. */
void fx_response_unity(double *re, double *im, int n);
void fx_response_multiply_sos(const fx_sos_t *sos, int n_sections, const double *freqs, int n,
                              double rate, double *re, double *im);
/* Multiplies (re, im) by a real gain (a gain stage). */
void fx_response_multiply_gain(double gain, double *re, double *im, int n);

/* Magnitude in dB (20 log10 |H|, -inf for 0) and phase in degrees, unwrapped along the frequency
 * axis as numpy.unwrap does (jumps larger than 180 degrees between neighbours are taken out);
 * the first point's phase lies in (-180, 180]. */
void fx_response_magnitude_db(const double *re, const double *im, int n, double *mag_db);
void fx_response_phase_deg(const double *re, const double *im, int n, double *phase_deg);

#ifdef __cplusplus
}
#endif

#endif
