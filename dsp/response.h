/* gst-fx — frequency responses of the linear stages (SOS cascades, FIR kernels, the feedback delay,
 * gains), what `gst-fx response` plots. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FX_RESPONSE_H
#define FX_RESPONSE_H

#include "design.h"

#include <stddef.h>

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

/* Responses with a pure delay taken out. A long kernel or delay line winds the phase by many
 * turns between neighbouring points of a log-frequency axis, where no unwrapping can follow it.
 * These functions multiply (re, im) by H(f) * exp(+j 2 pi f d / rate) for a delay d (samples) that
 * they choose and return, so that what they multiply in winds little; the caller adds the delays
 * of its stages and puts the linear phase -360 f d / rate back with fx_response_phase_deg_delayed.
 * The magnitude is |H(f)| either way. */

/* A FIR kernel: H(f) = sum_k taps[k] exp(-j 2 pi f k / rate), as scipy.signal.freqz(taps, 1,
 * worN=freqs, fs=rate) (lfilter's convention: taps[0] applies to the newest sample). d is
 * (n_taps - 1) / 2 for a symmetric or antisymmetric kernel, up to rounding (linear phase: what
 * remains is real, or imaginary), else the kernel's energy centroid sum k taps[k]^2 / sum taps[k]^2
 * (0 for an all-zero kernel). Evaluated by Horner's rule in exp(-j 2 pi f / rate). */
double fx_response_multiply_fir(const double *taps, size_t n_taps, const double *freqs, int n,
                                double rate, double *re, double *im);

/* The feedback delay of delay.h on one channel (no ping-pong), with its parameters clamped as
 * fx_delay_set clamps them (delay_samples at least 1, feedback to [0, 0.999], mix to [0, 1]):
 * tap T(z) = (1 - f) z^-i + f z^-(i+1) (i = floor(delay_samples), f its fraction), and
 *   H = (1 - mix) + mix T / (1 - feedback T) = ((1 - mix) + (mix - (1 - mix) feedback) T) / (1 -
 *       feedback T).
 * d is i when the delayed term of the numerator outweighs the direct one (the phase then winds
 * with T), else 0. */
double fx_response_multiply_echo(double delay_samples, double feedback, double mix,
                                 const double *freqs, int n, double rate, double *re, double *im);

/* fx_response_phase_deg of (re, im), then minus 360 f delay / rate at each frequency: the phase of
 * a response that fx_response_multiply_fir/_echo took `delay` samples out of. */
void fx_response_phase_deg_delayed(const double *re, const double *im, const double *freqs, int n,
                                   double rate, double delay, double *phase_deg);

/* Magnitude in dB (20 log10 |H|, -inf for 0) and phase in degrees, unwrapped along the frequency
 * axis as numpy.unwrap does (jumps larger than 180 degrees between neighbours are taken out);
 * the first point's phase lies in (-180, 180]. */
void fx_response_magnitude_db(const double *re, const double *im, int n, double *mag_db);
void fx_response_phase_deg(const double *re, const double *im, int n, double *phase_deg);

#ifdef __cplusplus
}
#endif

#endif
