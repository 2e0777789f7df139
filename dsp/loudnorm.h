/* gst-fx — live loudness normaliser: gain from the smoothed short-term loudness (measured by
 * libebur128 through loudness.h) and a look-ahead true-peak limiter. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The algorithm (docs/loudness.md has the reasoning and the differences from ffmpeg's loudnorm
 * and gst-plugins-rs' audioloudnorm):
 *
 * 1. Every 100 ms block of input, libebur128 gives the short-term loudness S (the last 3 s) and
 *    the integrated loudness I of everything so far. The block's desired gain is
 *    d = (target - I) - e, where e is how far S - I lies outside +-range/2: a programme keeps
 *    its loudness range up to `range` LU around the target and louder or quieter passages are
 *    pulled back to the edge of that band. Blocks quieter than -70 LUFS or 20 LU under I (pauses,
 *    noise floor) keep the previous block's gain, so a pause is not pumped up. During the first
 *    3 s, S and I are the loudness of what has arrived.
 * 2. The desired gains are smoothed by a Gaussian over +-1.5 s (sigma 0.5 s) centred on the
 *    window each belongs to; this needs 3 s of look-ahead (plus one block for the ramp). The
 *    gain ramps linearly (in dB) across each block.
 * 3. A look-ahead limiter keeps the true peak at or under the ceiling: its detector estimates
 *    the inter-sample peaks by 4x oversampling (a windowed-sinc interpolator), the gain reaches
 *    the needed reduction before the peak (a sliding minimum smoothed by a moving average over
 *    the look-ahead) and recovers with a 100 ms release.
 *
 * The output is the input delayed by fx_loudnorm_latency() frames (the first ones are silence);
 * feeding that many frames of silence after the end pushes out the rest. */
#ifndef FX_LOUDNORM_H
#define FX_LOUDNORM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fx_loudnorm fx_loudnorm_t;

/* target_lufs: target integrated loudness; range_lu: loudness range kept (LU, >= 1);
 * ceiling_dbtp: highest true peak out. NULL for invalid arguments or out of memory. Where
 * libebur128 cannot measure (more than 64 channels, rates under 16 Hz) the loudness stage is left
 * out: the gain is 1 and only the limiter runs, with its own latency (fx_loudnorm_measuring()
 * says which). */
fx_loudnorm_t *fx_loudnorm_new(int channels, unsigned long rate, double target_lufs,
                               double range_lu, double ceiling_dbtp);
void fx_loudnorm_free(fx_loudnorm_t *s);
/* 1 when the loudness stage runs, 0 when only the limiter does (see fx_loudnorm_new()). */
int fx_loudnorm_measuring(const fx_loudnorm_t *s);
/* New settings while running (same meaning as for fx_loudnorm_new(); invalid values are
 * ignored): the target and range apply from the next 100 ms block's desired gain, the ceiling
 * from the next frame the limiter detects. */
void fx_loudnorm_set_params(fx_loudnorm_t *s, double target_lufs, double range_lu,
                            double ceiling_dbtp);
/* Back to the state after creation (measurements, delay lines and gains). */
void fx_loudnorm_reset(fx_loudnorm_t *s);
/* The delay of the output, in frames. */
size_t fx_loudnorm_latency(const fx_loudnorm_t *s);

/* Processes `frames` interleaved frames; in and out may be the same buffer. Non-finite input
 * samples are taken as 0; returns how many there were. */
size_t fx_loudnorm_process_f32(fx_loudnorm_t *s, const float *in, float *out, size_t frames);
size_t fx_loudnorm_process_f64(fx_loudnorm_t *s, const double *in, double *out, size_t frames);

/* The smoothed loudness gain (dB) applied to the last output frame and the limiter's gain (dB,
 * <= 0) on it. */
double fx_loudnorm_gain_db(const fx_loudnorm_t *s);
double fx_loudnorm_limiter_db(const fx_loudnorm_t *s);

#ifdef __cplusplus
}
#endif

#endif
