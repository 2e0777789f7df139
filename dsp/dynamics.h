/* gst-fx — dynamics engine: compressor, gate/expander and look-ahead brick-wall limiter.
 * Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One engine, three modes, processing interleaved frames sample by sample with all state carried
 * between calls, so any split of a stream gives the same output.
 *
 * Compressor and gate (feed-forward, log domain, after Giannoulis, Massberg and Reiss, "Digital
 * Dynamic Range Compressor Design — A Tutorial and Analysis", JAES 60(6), 2012):
 *  1. detector level in dB per frame: `peak` = 20 log10 |x|, `rms` = 10 log10 of a one-pole mean
 *     of x^2 with time constant rms_ms. Linked: the largest level over the channels drives one
 *     gain for all channels; unlinked: each channel has its own detector and gain.
 *  2. static gain computer (dB) with threshold T, ratio R and a quadratic soft knee of width W:
 *     compressor: 0 below T - W/2; (1/R - 1)(x - T + W/2)^2 / (2W) inside the knee;
 *                 (1/R - 1)(x - T) above T + W/2.
 *     gate (downward expander): 0 above T + W/2; -(R - 1)(x - T - W/2)^2 / (2W) inside the knee;
 *                 (R - 1)(x - T) below T - W/2; never below `range_db` (the floor, <= 0).
 *  3. gain smoothing in dB, a one-pole with separate coefficients for falling and rising gain,
 *     alpha = exp(-1 / (tau * rate)): after a step of the static gain the smoothed gain has
 *     covered 1 - 1/e of the step after tau seconds (tau = attack_ms or release_ms / 1000).
 *     Compressor: a falling gain (more reduction) uses attack, a rising gain uses release.
 *     Gate: a rising gain (opening) uses attack; a falling gain (closing) first waits hold_ms
 *     after the last time the gate wanted to be at least as open, then uses release.
 *  4. output = x delayed by the look-ahead * 10^(gain / 20) * makeup, where the linear makeup
 *     gain 10^(makeup_db / 20) glides to a changed value with a 5 ms one-pole (no click); it
 *     starts at its value on reset.
 *
 * Limiter (brick wall, linear domain): per frame the required gain is g = min(1, T / peak); a
 * sliding-window minimum over the last L + 1 frames (L = look-ahead), a release one-pole that may
 * only rise (falls are instant), then a moving average over L + 1 frames. Every value averaged
 * at frame n is <= the required gain of frame n - L, so the gain applied to the delayed sample
 * x[n - L] never lets it exceed T; a final clamp to [-T, T] only catches rounding.
 *
 * Non-finite input samples are replaced by 0 (and counted) so the state never holds NaN or Inf.
 */
#ifndef FX_DYNAMICS_H
#define FX_DYNAMICS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  FX_DYN_COMPRESSOR = 0,
  FX_DYN_GATE = 1,
  FX_DYN_LIMITER = 2,
} fx_dyn_mode_t;

typedef enum {
  FX_DYN_PEAK = 0,
  FX_DYN_RMS = 1,
} fx_dyn_detector_t;

/* Parameters that may change between any two calls (no state is lost). */
typedef struct {
  double threshold_db; /* compressor/gate threshold; limiter ceiling (dBFS) */
  double ratio;        /* >= 1 */
  double knee_db;      /* >= 0, full knee width */
  double attack_ms;    /* >= 0 */
  double release_ms;   /* >= 0 */
  double hold_ms;      /* gate only, >= 0 */
  double makeup_db;    /* compressor and gate */
  double range_db;     /* gate floor, <= 0 */
  double rms_ms;       /* time constant of the RMS detector, >= 0 */
  int detector;        /* fx_dyn_detector_t (compressor and gate) */
} fx_dyn_params_t;

typedef struct fx_dyn fx_dyn_t;

/* Defaults of each mode (those the elements use). */
void fx_dyn_params_default(fx_dyn_mode_t mode, fx_dyn_params_t *p);

/* A new engine for `channels` interleaved channels at `rate` Hz with a look-ahead of `lookahead`
 * frames (the output is delayed by that many frames). `link` non-zero: one gain for all channels
 * from the loudest; zero: each channel on its own. NULL on bad arguments or out of memory. */
fx_dyn_t *fx_dyn_new(fx_dyn_mode_t mode, int channels, double rate, size_t lookahead, int link,
                     const fx_dyn_params_t *p);
void fx_dyn_free(fx_dyn_t *d);

/* Takes new parameters (clamped to their valid ranges); the state is kept. */
void fx_dyn_set_params(fx_dyn_t *d, const fx_dyn_params_t *p);

/* Back to the initial state: silence in the look-ahead line, unity gain. */
void fx_dyn_reset(fx_dyn_t *d);

/* The look-ahead in frames: the delay of the output. */
size_t fx_dyn_latency(const fx_dyn_t *d);

/* Processes `frames` interleaved frames; `out` may equal `in`. Returns the number of non-finite
 * input samples that were replaced by 0. */
size_t fx_dyn_process_f32(fx_dyn_t *d, const float *in, float *out, size_t frames);
size_t fx_dyn_process_f64(fx_dyn_t *d, const double *in, double *out, size_t frames);

/* The static gain computer of the compressor or gate (dB of gain for a level in dB). */
double fx_dyn_static_gain_db(fx_dyn_mode_t mode, const fx_dyn_params_t *p, double level_db);

#ifdef __cplusplus
}
#endif

#endif
