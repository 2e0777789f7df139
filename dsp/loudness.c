/* gst-fx — loudness measurement through libebur128 (see loudness.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "loudness.h"

#include <ebur128.h>
#include <math.h>
#include <stdlib.h>

#define FX_LOUD_MODE                                                                               \
  (EBUR128_MODE_M | EBUR128_MODE_S | EBUR128_MODE_I | EBUR128_MODE_LRA |                           \
   EBUR128_MODE_SAMPLE_PEAK | EBUR128_MODE_TRUE_PEAK)

#define FX_LOUD_MAX_MAPPED 64

#define FX_LOUD_MODE_LIVE (EBUR128_MODE_S | EBUR128_MODE_I | EBUR128_MODE_HISTOGRAM)

struct fx_loud {
  ebur128_state *st;
  int mode;
  int channels;
  unsigned long rate;
  /* the channel types set, kept so that a reset keeps them (-1: libebur128's default) */
  int map[FX_LOUD_MAX_MAPPED];
};

static int apply_map(fx_loud_t *s)
{
  static const int types[] = {EBUR128_UNUSED,   EBUR128_LEFT,          EBUR128_RIGHT,
                              EBUR128_CENTER,   EBUR128_LEFT_SURROUND, EBUR128_RIGHT_SURROUND,
                              EBUR128_DUAL_MONO};
  for (int c = 0; c < s->channels && c < FX_LOUD_MAX_MAPPED; c++)
    if (s->map[c] >= 0 && ebur128_set_channel(s->st, (unsigned) c, types[s->map[c]]) != 0)
      return -1;
  return 0;
}

int fx_loud_set_channel(fx_loud_t *s, int channel, fx_loud_channel_t type)
{
  if (channel < 0 || channel >= s->channels || channel >= FX_LOUD_MAX_MAPPED || (int) type < 0 ||
      type > FX_LOUD_CH_DUAL_MONO)
    return -1;
  s->map[channel] = (int) type;
  return apply_map(s);
}

static fx_loud_t *loud_new(int channels, unsigned long rate, int mode)
{
  fx_loud_t *s;

  if (channels < 1 || rate < 16 || rate > 2822400)
    return NULL;
  if ((s = calloc(1, sizeof(*s))) == NULL)
    return NULL;
  s->channels = channels;
  s->rate = rate;
  s->mode = mode;
  for (int c = 0; c < FX_LOUD_MAX_MAPPED; c++)
    s->map[c] = -1;
  if ((s->st = ebur128_init((unsigned) channels, rate, mode)) == NULL) {
    free(s);
    return NULL;
  }
  return s;
}

fx_loud_t *fx_loud_new(int channels, unsigned long rate)
{
  return loud_new(channels, rate, FX_LOUD_MODE);
}

fx_loud_t *fx_loud_new_live(int channels, unsigned long rate)
{
  return loud_new(channels, rate, FX_LOUD_MODE_LIVE);
}

void fx_loud_free(fx_loud_t *s)
{
  if (s == NULL)
    return;
  ebur128_destroy(&s->st);
  free(s);
}

int fx_loud_reset(fx_loud_t *s)
{
  ebur128_state *st = ebur128_init((unsigned) s->channels, s->rate, s->mode);

  if (st == NULL)
    return -1;
  ebur128_destroy(&s->st);
  s->st = st;
  return apply_map(s);
}

int fx_loud_channels(const fx_loud_t *s)
{
  return s->channels;
}

int fx_loud_add_f32(fx_loud_t *s, const float *x, size_t frames)
{
  return frames ? (ebur128_add_frames_float(s->st, x, frames) == EBUR128_SUCCESS ? 0 : -1) : 0;
}

int fx_loud_add_f64(fx_loud_t *s, const double *x, size_t frames)
{
  return frames ? (ebur128_add_frames_double(s->st, x, frames) == EBUR128_SUCCESS ? 0 : -1) : 0;
}

int fx_loud_add_s16(fx_loud_t *s, const short *x, size_t frames)
{
  return frames ? (ebur128_add_frames_short(s->st, x, frames) == EBUR128_SUCCESS ? 0 : -1) : 0;
}

int fx_loud_add_s32(fx_loud_t *s, const int *x, size_t frames)
{
  return frames ? (ebur128_add_frames_int(s->st, x, frames) == EBUR128_SUCCESS ? 0 : -1) : 0;
}

double fx_loud_momentary(fx_loud_t *s)
{
  double v = -HUGE_VAL;
  return ebur128_loudness_momentary(s->st, &v) == EBUR128_SUCCESS ? v : -HUGE_VAL;
}

double fx_loud_shortterm(fx_loud_t *s)
{
  double v = -HUGE_VAL;
  return ebur128_loudness_shortterm(s->st, &v) == EBUR128_SUCCESS ? v : -HUGE_VAL;
}

double fx_loud_integrated(fx_loud_t *s)
{
  double v = -HUGE_VAL;
  return ebur128_loudness_global(s->st, &v) == EBUR128_SUCCESS ? v : -HUGE_VAL;
}

double fx_loud_range(fx_loud_t *s)
{
  double v = 0.0;
  return ebur128_loudness_range(s->st, &v) == EBUR128_SUCCESS ? v : 0.0;
}

double fx_loud_window(fx_loud_t *s, unsigned long ms)
{
  double v = -HUGE_VAL;
  if (ms < 1 || ms > 3000)
    return -HUGE_VAL;
  return ebur128_loudness_window(s->st, ms, &v) == EBUR128_SUCCESS ? v : -HUGE_VAL;
}

typedef int (*peak_fn)(ebur128_state *, unsigned int, double *);

static double peak_of(fx_loud_t *s, int channel, peak_fn fn)
{
  double best = 0.0;

  for (int c = channel < 0 ? 0 : channel; c < (channel < 0 ? s->channels : channel + 1); c++) {
    double v = 0.0;
    if (c < s->channels && fn(s->st, (unsigned) c, &v) == EBUR128_SUCCESS && v > best)
      best = v;
  }
  return best;
}

double fx_loud_sample_peak(fx_loud_t *s, int channel)
{
  return peak_of(s, channel, ebur128_sample_peak);
}

double fx_loud_true_peak(fx_loud_t *s, int channel)
{
  return peak_of(s, channel, ebur128_true_peak);
}

double fx_loud_prev_sample_peak(fx_loud_t *s, int channel)
{
  return peak_of(s, channel, ebur128_prev_sample_peak);
}

double fx_loud_prev_true_peak(fx_loud_t *s, int channel)
{
  return peak_of(s, channel, ebur128_prev_true_peak);
}

double fx_loud_db(double linear)
{
  return linear > 0.0 ? 20.0 * log10(linear) : -HUGE_VAL;
}

double fx_loud_norm_gain(double lufs, double true_peak, double target_lufs, double ceiling_dbtp)
{
  double gain_db, tp_db;

  if (!isfinite(lufs))
    return 1.0;
  gain_db = target_lufs - lufs;
  /* the true peak after the gain must not pass the ceiling: the gain gives way (linear mode) */
  if (true_peak > 0.0 && isfinite(true_peak)) {
    tp_db = 20.0 * log10(true_peak);
    if (tp_db + gain_db > ceiling_dbtp)
      gain_db = ceiling_dbtp - tp_db;
  }
  return pow(10.0, gain_db / 20.0);
}
