/* gst-fx — feedback delay (echo) with fractional, click-free delay changes and ping-pong.
 * Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FX_DELAY_H
#define FX_DELAY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The processing, per frame n and channel c (all arithmetic in double):
 *
 *   tap[c]   = line[c] read D samples back, linearly interpolated:
 *              (1 - f) * line[n - i] + f * line[n - i - 1] with i = floor(D), f = D - i
 *   in[c]    = x[c] + feedback * tap[c]                      (written to line[c] at n)
 *   y[c]     = (1 - mix) * x[c] + mix * tap[c]
 *
 * D is the delay in samples, delay_ms * rate / 1000, at least 1 (shorter delays play as one
 * sample). Ping-pong (stereo only; other channel counts ignore it) routes the echoes so that they
 * alternate: the sum of both inputs, at full level, enters the left line, each line feeds the
 * other one:
 *
 *   in[L] = x[L] + x[R] + feedback * tap[R],   in[R] = feedback * tap[L]
 *
 * so echo k (k = 1, 2, ...) of an input, at k * D, lands on the left for odd k and on the right
 * for even k, with amplitude feedback^(k-1) * (x[L] + x[R]): a source on one side only echoes at
 * its own level (echo 1 = mix * x), a source equal in both channels at twice its level per
 * channel (+6 dB, all of it on one side). Internally ping-pong is a weight p in [0, 1] between
 * the two routings (in[L] = (1-p)(x[L] + fb tap[L]) + p(x[L] + x[R] + fb tap[R]), in[R] =
 * (1-p)(x[R] + fb tap[R]) + p fb tap[L]), ramped like the other parameters.
 *
 * Changes: feedback, mix and p move linearly to their new values over FX_DELAY_RAMP_S seconds
 * (fx_ramp_t); a new delay crossfades linearly from the old tap to the new one over the same time
 * (a delay set during a crossfade starts its own crossfade when the running one ends). The first
 * fx_delay_set() after creation or reset takes effect at once. */
#define FX_DELAY_RAMP_S 0.02

typedef struct fx_delay fx_delay_t;

/* Note modifiers of fx_delay_note_ms(). */
enum { FX_NOTE_PLAIN = 0, FX_NOTE_DOTTED = 1, FX_NOTE_TRIPLET = 2 };

/* The length in ms of the note 1/denominator (1, 2, 4, 8, 16 or 32) at bpm quarter notes per
 * minute: 60000 / bpm * 4 / denominator, times 1.5 when dotted, times 2/3 for a triplet.
 * Returns a negative value for bpm <= 0 or an unknown denominator or modifier. */
double fx_delay_note_ms(double bpm, int denominator, int modifier);

/* Bytes the delay line of fx_delay_new() takes; 0 when the arguments are invalid or the size
 * overflows. */
size_t fx_delay_bytes(int channels, double rate, double max_delay_ms);

/* A delay for interleaved frames of `channels` channels at `rate` Hz holding up to max_delay_ms.
 * NULL for invalid arguments (channels < 1, rate <= 0, max_delay_ms < 0 or not finite) or when
 * memory runs out. Starts silent. */
fx_delay_t *fx_delay_new(int channels, double rate, double max_delay_ms);
void fx_delay_free(fx_delay_t *d);

/* Clears the history; the next fx_delay_set() takes effect at once. */
void fx_delay_reset(fx_delay_t *d);

/* The delay in samples that a delay_ms gives (at least 1). */
double fx_delay_samples(const fx_delay_t *d, double delay_ms);

/* Longest delay in ms the line holds. */
double fx_delay_max_ms(const fx_delay_t *d);

/* New targets. delay_ms is clamped to [0, max], feedback to [0, 0.999], mix to [0, 1]. */
void fx_delay_set(fx_delay_t *d, double delay_ms, double feedback, double mix, int ping_pong);

/* Processes `frames` interleaved frames in place. NaN and Inf input samples are replaced by 0
 * before the line sees them. Returns 1 when the input held NaN or Inf, else 0. (As a safety net
 * the line is cleared if it ever held a non-finite value, which finite input cannot cause.) */
int fx_delay_process_f32(fx_delay_t *d, float *data, size_t frames);
int fx_delay_process_f64(fx_delay_t *d, double *data, size_t frames);

/* An upper bound of |y| for every future frame while the input is silent: mix times the largest
 * magnitude in the part of the line that can still be read (feedback < 1 never grows it). The
 * echo tail is over once it is small. Its cost does not grow with the delay: it reads the frames
 * written since the previous call and at most two segments of 4096 frames (whole segments come
 * from a cache of their maxima). */
double fx_delay_tail_bound(fx_delay_t *d);

/* Frames fx_delay_tail_bound() has read since creation (cost accounting, for tests). */
uint64_t fx_delay_tail_reads(const fx_delay_t *d);

#ifdef __cplusplus
}
#endif

#endif
