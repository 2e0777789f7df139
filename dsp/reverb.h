/* gst-fx — Freeverb-topology reverb. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FX_REVERB_H
#define FX_REVERB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Jezar's Freeverb (public domain), in double precision, with its delay lengths scaled from
 * 44.1 kHz to the stream's rate: round(L * rate / 44100), at least 1 sample.
 *
 * Channels are taken in pairs (0,1), (2,3), ...: each pair is one stereo Freeverb; an odd last
 * channel is a mono Freeverb (the left bank). For a pair:
 *
 *   in      = (x[L] + x[R]) * 0.015                  (mono: in = 2 * x * 0.015)
 *   bank L  = 8 combs of lengths 1116 1188 1277 1356 1422 1491 1557 1617, in parallel, summed,
 *             then 4 all-passes of lengths 556 441 341 225 in series;
 *   bank R  = the same with every length + 23 (the stereo spread, also scaled)
 *   comb    : out = buf[i]; store = out * (1 - damp1) + store * damp1; buf[i] = in + store * fb
 *   allpass : b = buf[i]; out = b - in; buf[i] = in + 0.5 * b
 *   fb = 0.7 + 0.28 * room_size, damp1 = 0.4 * damping
 *   y[L] = (1 - mix) * x[L] + mix * (wL * (1 + width) / 2 + wR * (1 - width) / 2)
 *   y[R] = (1 - mix) * x[R] + mix * (wR * (1 + width) / 2 + wL * (1 - width) / 2)
 *   mono: y = (1 - mix) * x + mix * wL
 *
 * A mono source rendered as stereo (Freeverb's mono input, and fxreverb's mono-in stereo-out) is
 * a 2-channel reverb fed the interleaved pair (x, x): in = 2 * x * 0.015 as for mono, both banks
 * run, and at width 1 its left channel equals the mono output sample for sample.
 *
 * This is Freeverb's output with wet = mix / 3 and dry = (1 - mix) / 2 (its scalewet 3 and
 * scaledry 2). room_size, damping, mix and width move linearly to new values over
 * FX_REVERB_RAMP_S seconds (per frame, independent of buffer sizes); the first fx_reverb_set()
 * after creation or reset takes effect at once. */
#define FX_REVERB_RAMP_S 0.02
#define FX_REVERB_COMBS 8
#define FX_REVERB_ALLPASSES 4

typedef struct fx_reverb fx_reverb_t;

/* The scaled length of a 44.1 kHz delay length at `rate` (at least 1). */
size_t fx_reverb_scaled_length(size_t len_44k1, double rate);

/* Bytes of state fx_reverb_new() allocates; 0 for invalid arguments or an overflow. */
size_t fx_reverb_bytes(int channels, double rate);

/* NULL for channels < 1, a rate <= 0 or not finite, or when memory runs out. */
fx_reverb_t *fx_reverb_new(int channels, double rate);
void fx_reverb_free(fx_reverb_t *r);
void fx_reverb_reset(fx_reverb_t *r);

/* New targets, each clamped to [0, 1]. */
void fx_reverb_set(fx_reverb_t *r, double room_size, double damping, double mix, double width);

/* In place. NaN and Inf input samples are replaced by 0 before the state sees them. Returns 1
 * when the input held NaN or Inf, else 0. */
int fx_reverb_process_f32(fx_reverb_t *r, float *data, size_t frames);
int fx_reverb_process_f64(fx_reverb_t *r, double *data, size_t frames);

/* An upper bound of |y| for every future frame while the input is silent (from the largest
 * magnitude held in any comb, damping store or all-pass). */
double fx_reverb_tail_bound(const fx_reverb_t *r);

#ifdef __cplusplus
}
#endif

#endif
