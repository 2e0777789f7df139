/* gst-fx — loudness measurement (ITU-R BS.1770-4 / EBU R128) through libebur128. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A thin wrapper over libebur128 (the maintained implementation of BS.1770 and EBU Tech 3341/3342):
 * the measurement itself is libebur128's; this file only fixes the modes every gst-fx user needs
 * (momentary, short-term, integrated, loudness range, sample peak and true peak) and converts
 * its results to the units the elements report. Loudness is in LUFS, the range in LU, peaks are
 * linear (1.0 = full scale); -HUGE_VAL is returned for silence or a window not yet full, as
 * libebur128 does. */
#ifndef FX_LOUDNESS_H
#define FX_LOUDNESS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fx_loud fx_loud_t;

/* A meter for `channels` interleaved channels at `rate` Hz; NULL for invalid arguments or out of
 * memory. Channels follow libebur128's default map: 0 left, 1 right, 2 centre, 3 unused (LFE),
 * 4 left surround, 5 right surround, further channels weighted as front channels. */
fx_loud_t *fx_loud_new(int channels, unsigned long rate);
/* A lighter meter for a live normaliser: short-term, window and integrated loudness only, the
 * integrated one from libebur128's histogram (constant memory and time however long the stream
 * runs). The peaks, the momentary loudness and the range read as 0 / -HUGE_VAL. */
fx_loud_t *fx_loud_new_live(int channels, unsigned long rate);
void fx_loud_free(fx_loud_t *s);
/* Forgets everything measured (the integrated loudness and range start again). 0 on success. */
int fx_loud_reset(fx_loud_t *s);
int fx_loud_channels(const fx_loud_t *s);

/* What a channel is for the BS.1770 weighting (libebur128's channel types). */
typedef enum {
  FX_LOUD_CH_UNUSED = 0, /* left out of the measurement (LFE) */
  FX_LOUD_CH_LEFT = 1,
  FX_LOUD_CH_RIGHT = 2,
  FX_LOUD_CH_CENTER = 3,
  FX_LOUD_CH_LEFT_SURROUND = 4,
  FX_LOUD_CH_RIGHT_SURROUND = 5,
  FX_LOUD_CH_DUAL_MONO = 6, /* a mono channel meant to be played on two loudspeakers */
} fx_loud_channel_t;

/* Sets the type of one channel; 0 on success. */
int fx_loud_set_channel(fx_loud_t *s, int channel, fx_loud_channel_t type);

/* Adds `frames` interleaved frames (integers at their full scale); 0 on success. */
int fx_loud_add_f32(fx_loud_t *s, const float *x, size_t frames);
int fx_loud_add_f64(fx_loud_t *s, const double *x, size_t frames);
int fx_loud_add_s16(fx_loud_t *s, const short *x, size_t frames);
int fx_loud_add_s32(fx_loud_t *s, const int *x, size_t frames);

/* The momentary (400 ms), short-term (3 s) and integrated (gated, whole stream) loudness in
 * LUFS, and the loudness range (EBU Tech 3342) in LU. */
double fx_loud_momentary(fx_loud_t *s);
double fx_loud_shortterm(fx_loud_t *s);
double fx_loud_integrated(fx_loud_t *s);
double fx_loud_range(fx_loud_t *s);
/* The loudness of the last `ms` milliseconds (at most 3000) in LUFS. */
double fx_loud_window(fx_loud_t *s, unsigned long ms);

/* The largest |x| (sample peak) and the largest true peak (4x oversampled below 96 kHz, as
 * BS.1770-4 annex 2) of one channel since the start or the last reset; linear. channel < 0: the
 * largest over all channels. The prev_ variants cover only the frames of the last add call. */
double fx_loud_sample_peak(fx_loud_t *s, int channel);
double fx_loud_true_peak(fx_loud_t *s, int channel);
double fx_loud_prev_sample_peak(fx_loud_t *s, int channel);
double fx_loud_prev_true_peak(fx_loud_t *s, int channel);

/* Linear amplitude to dB (20 log10), -HUGE_VAL for 0. */
double fx_loud_db(double linear);

/* The linear gain that takes a stream of integrated loudness `lufs` and true peak `true_peak`
 * (linear) to `target_lufs`, reduced when needed so that the true peak stays at or below
 * `ceiling_dbtp` (the linear mode of ffmpeg's loudnorm). 1 when the loudness is not finite
 * (silence, or shorter than one 400 ms block): silence is never amplified without bound. */
double fx_loud_norm_gain(double lufs, double true_peak, double target_lufs, double ceiling_dbtp);

#ifdef __cplusplus
}
#endif

#endif
