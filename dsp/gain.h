/* gst-fx — gain with a click-free per-sample ramp. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FX_GAIN_H
#define FX_GAIN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Linear factor of a gain in dB: 10^(db/20). */
double fx_gain_db_to_linear(double db);

/* Multiplies `frames` interleaved frames of `channels` channels in place by a gain that moves
 * linearly, per frame, from `from` (the gain the previous buffer ended with) to `to` (reached at
 * the last frame of this buffer), so a gain change never steps. When from == to the gain is
 * constant. With `clip` non-zero every output sample is then clamped to [-1, 1] (NaN stays NaN).
 * Returns the number of samples that were clipped. */
size_t fx_gain_apply_f32(float *data, size_t frames, int channels, double from, double to,
                         int clip);
size_t fx_gain_apply_f64(double *data, size_t frames, int channels, double from, double to,
                         int clip);

#ifdef __cplusplus
}
#endif

#endif
