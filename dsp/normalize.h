/* gst-fx — loudness normalisation statistics: peak, RMS and percentile of |x|. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A whole-stream normaliser accumulates the peak and the sum of squares per channel while it
 * holds the stream, then computes one gain (or one per channel) that brings the level to a
 * target in dBFS. The percentile level needs every sample: fx_norm_percentile() selects it from
 * an array of |x| in O(n), fx_norm_select_*() from the held data itself in a few passes, without
 * a copy. Non-finite samples are left out of the statistics (and counted). */
#ifndef FX_NORMALIZE_H
#define FX_NORMALIZE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  FX_NORM_PEAK = 0,
  FX_NORM_RMS = 1,
  FX_NORM_PERCENTILE = 2,
  /* integrated loudness (BS.1770 / EBU R128) with a true-peak ceiling: measured by libebur128
   * through loudness.h, the gain from fx_loud_norm_gain() */
  FX_NORM_LUFS = 3,
} fx_norm_mode_t;

typedef struct fx_norm fx_norm_t;

fx_norm_t *fx_norm_new(int channels);
void fx_norm_free(fx_norm_t *s);
void fx_norm_reset(fx_norm_t *s);

/* Adds `frames` interleaved frames to the statistics. */
void fx_norm_add_f32(fx_norm_t *s, const float *x, size_t frames);
void fx_norm_add_f64(fx_norm_t *s, const double *x, size_t frames);

/* Non-finite samples seen since the last reset (left out of the statistics). */
size_t fx_norm_nonfinite(const fx_norm_t *s);

/* The peak |x| and the RMS of one channel, or of all channels together for channel < 0. */
double fx_norm_peak(const fx_norm_t *s, int channel);
double fx_norm_rms(const fx_norm_t *s, int channel);

/* Appends |x| of one channel (channel >= 0) or of every sample (channel < 0) of `frames`
 * interleaved frames to dst, leaving non-finite samples out; returns the number written. */
size_t fx_norm_collect_abs_f32(const float *x, size_t frames, int channels, int channel,
                               double *dst);
size_t fx_norm_collect_abs_f64(const double *x, size_t frames, int channels, int channel,
                               double *dst);

/* The q-th percentile (0..100) of v[0..n) with linear interpolation between the closest ranks,
 * as numpy.percentile's default; reorders v. 0 for n == 0. */
double fx_norm_percentile(double *v, size_t n, double q);

/* The q-th percentile (0..100) of |x| over a stream that is read in several passes, without a
 * copy of it (the memory is two 2^16-entry histograms): for samples that are all finite, the
 * same value as fx_norm_percentile() on the array of their |x|.
 *
 *   fx_norm_select_t *s = fx_norm_select_new(is_f64, channels, channel, n, q);
 *   while (fx_norm_select_pass(s))
 *     for each piece of the data, in any order: fx_norm_select_feed(s, data, frames);
 *   level = fx_norm_select_result(s);
 *
 * Samples are F64 when is_f64, else F32, interleaved with `channels` channels; channel >= 0 takes
 * that channel, channel < 0 every sample. n: how many samples the passes see (frames x channels
 * or frames); every pass must see the same samples. 2 passes for F32, 4 for F64. NULL for invalid
 * arguments or when memory runs out. */
typedef struct fx_norm_select fx_norm_select_t;
fx_norm_select_t *fx_norm_select_new(int is_f64, int channels, int channel, uint64_t n, double q);
void fx_norm_select_free(fx_norm_select_t *s);
/* 1 when another pass over all the data is needed (feed it), 0 when the result is ready. */
int fx_norm_select_pass(fx_norm_select_t *s);
void fx_norm_select_feed(fx_norm_select_t *s, const void *x, size_t frames);
/* The percentile once fx_norm_select_pass() returned 0; 0 for n == 0. */
double fx_norm_select_result(const fx_norm_select_t *s);

/* The linear gain that takes `level` to `target_db` dBFS; 1 when the level is 0 or not finite
 * (silence stays silence, never an infinite gain). */
double fx_norm_gain(double level, double target_db);

/* Multiplies frames in place by a gain per channel; non-finite samples become 0. */
void fx_norm_apply_f32(float *x, size_t frames, int channels, const double *gains);
void fx_norm_apply_f64(double *x, size_t frames, int channels, const double *gains);

#ifdef __cplusplus
}
#endif

#endif
