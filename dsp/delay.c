/* gst-fx — feedback delay (echo). Pure C11, no GLib. See delay.h for the exact processing.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "delay.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "finite.h"
#include "kernel_fpmode.h"
#include "ramp.h"

struct fx_delay {
  int channels;
  double rate;
  double max_ms;
  double max_samples; /* longest delay in samples */
  size_t size;        /* frames in the ring, a power of two > max_samples + 1 */
  size_t mask;
  size_t w;     /* next frame to write */
  double *line; /* size x channels, interleaved */
  double *tap;  /* channels: scratch for one frame's taps */
  size_t ramp_len;

  int fresh; /* the next set() jumps instead of ramping */
  fx_ramp_t feedback, mix, pp;
  double d_cur, d_next, d_target; /* delays in samples */
  size_t fade_left;               /* frames left of the running delay crossfade */

  /* The tail bound's cache: the largest |value| in each segment of SEG frames of the ring, valid
   * for every segment not written since seen_w; `unseen` frames were written since (at most
   * size). So a bound costs the frames written since the last one plus two partial segments,
   * not a scan of the whole readable line. */
  double *seg_max;
  size_t seg, nseg;
  size_t seen_w, unseen;
  uint64_t bound_reads; /* frames the bound has read (cost accounting for tests) */
};

/* Frames per segment of the tail bound's cache (the ring is a multiple: both powers of two). */
#define SEG_FRAMES 4096

double fx_delay_note_ms(double bpm, int denominator, int modifier)
{
  double beats;

  if (!(bpm > 0.0) || !isfinite(bpm))
    return -1.0;
  switch (denominator) {
  case 1:
  case 2:
  case 4:
  case 8:
  case 16:
  case 32:
    beats = 4.0 / denominator;
    break;
  default:
    return -1.0;
  }
  switch (modifier) {
  case FX_NOTE_PLAIN:
    break;
  case FX_NOTE_DOTTED:
    beats *= 1.5;
    break;
  case FX_NOTE_TRIPLET:
    beats *= 2.0 / 3.0;
    break;
  default:
    return -1.0;
  }
  return 60000.0 / bpm * beats;
}

static int ring_frames(int channels, double rate, double max_delay_ms, size_t *frames)
{
  double need;
  size_t n = 4;

  if (channels < 1 || !(rate > 0.0) || !isfinite(rate) || !(max_delay_ms >= 0.0) ||
      !isfinite(max_delay_ms))
    return -1;
  need = floor(max_delay_ms * rate / 1000.0) + 3.0; /* floor(D) + 2 frames readable, +1 slack */
  if (need > (double) (SIZE_MAX / 4))
    return -1;
  while ((double) n < need)
    n <<= 1;
  *frames = n;
  return 0;
}

size_t fx_delay_bytes(int channels, double rate, double max_delay_ms)
{
  size_t n;

  if (ring_frames(channels, rate, max_delay_ms, &n) != 0)
    return 0;
  if (n > SIZE_MAX / sizeof(double) / (size_t) channels)
    return 0;
  return n * (size_t) channels * sizeof(double);
}

fx_delay_t *fx_delay_new(int channels, double rate, double max_delay_ms)
{
  fx_delay_t *d;
  size_t bytes = fx_delay_bytes(channels, rate, max_delay_ms);

  if (bytes == 0)
    return NULL;
  d = calloc(1, sizeof(*d));
  if (!d)
    return NULL;
  d->channels = channels;
  d->rate = rate;
  d->max_ms = max_delay_ms;
  d->max_samples = fmax(1.0, max_delay_ms * rate / 1000.0);
  ring_frames(channels, rate, max_delay_ms, &d->size);
  d->mask = d->size - 1;
  d->line = calloc(1, bytes);
  d->tap = calloc((size_t) channels, sizeof(double));
  d->seg = d->size < SEG_FRAMES ? d->size : SEG_FRAMES;
  d->nseg = d->size / d->seg;
  d->seg_max = calloc(d->nseg, sizeof(double));
  if (!d->line || !d->tap || !d->seg_max) {
    fx_delay_free(d);
    return NULL;
  }
  d->ramp_len = (size_t) fmax(1.0, floor(FX_DELAY_RAMP_S * rate + 0.5));
  /* the line is zero from calloc: leave its pages untouched until they are used */
  d->w = 0;
  d->fresh = 1;
  d->fade_left = 0;
  return d;
}

void fx_delay_free(fx_delay_t *d)
{
  if (!d)
    return;
  free(d->line);
  free(d->tap);
  free(d->seg_max);
  free(d);
}

void fx_delay_reset(fx_delay_t *d)
{
  memset(d->line, 0, d->size * (size_t) d->channels * sizeof(double));
  memset(d->seg_max, 0, d->nseg * sizeof(double));
  d->w = 0;
  d->seen_w = 0;
  d->unseen = 0;
  d->fresh = 1;
  d->fade_left = 0;
}

double fx_delay_samples(const fx_delay_t *d, double delay_ms)
{
  double s = delay_ms * d->rate / 1000.0;

  if (!(s >= 1.0))
    s = 1.0;
  return fmin(s, d->max_samples);
}

double fx_delay_max_ms(const fx_delay_t *d)
{
  return d->max_ms;
}

static double clamp(double v, double lo, double hi)
{
  return v > hi ? hi : (v >= lo ? v : lo);
}

void fx_delay_set(fx_delay_t *d, double delay_ms, double feedback, double mix, int ping_pong)
{
  double ds = fx_delay_samples(d, delay_ms);
  double pp = (ping_pong && d->channels == 2) ? 1.0 : 0.0;

  feedback = clamp(feedback, 0.0, 0.999);
  mix = clamp(mix, 0.0, 1.0);
  if (d->fresh) {
    fx_ramp_jump(&d->feedback, feedback);
    fx_ramp_jump(&d->mix, mix);
    fx_ramp_jump(&d->pp, pp);
    d->d_cur = d->d_next = d->d_target = ds;
    d->fade_left = 0;
    d->fresh = 0;
    return;
  }
  fx_ramp_set(&d->feedback, feedback, d->ramp_len);
  fx_ramp_set(&d->mix, mix, d->ramp_len);
  fx_ramp_set(&d->pp, pp, d->ramp_len);
  d->d_target = ds;
}

/* Row of the line `back` frames before the write position (back >= 1). */
static inline const double *row(const fx_delay_t *d, size_t back)
{
  return d->line + ((d->w - back) & d->mask) * (size_t) d->channels;
}

/* The taps of one frame into d->tap; advances the delay crossfade. */
static inline void read_taps(fx_delay_t *d)
{
  const int C = d->channels;
  double D = d->d_cur, f, g;
  size_t i;
  const double *a, *b;

  if (d->fade_left == 0 && d->d_target != d->d_cur) {
    d->d_next = d->d_target;
    d->fade_left = d->ramp_len;
  }
  i = (size_t) D;
  f = D - (double) i;
  a = row(d, i);
  b = row(d, i + 1);
  for (int c = 0; c < C; c++)
    d->tap[c] = a[c] + f * (b[c] - a[c]);
  if (d->fade_left == 0)
    return;
  /* crossfade towards the tap at d_next */
  g = (double) (d->ramp_len - d->fade_left + 1) / (double) d->ramp_len;
  D = d->d_next;
  i = (size_t) D;
  f = D - (double) i;
  a = row(d, i);
  b = row(d, i + 1);
  for (int c = 0; c < C; c++) {
    double t = a[c] + f * (b[c] - a[c]);
    d->tap[c] += g * (t - d->tap[c]);
  }
  if (--d->fade_left == 0)
    d->d_cur = d->d_next;
}

/* Nothing is moving: no ramp, no crossfade, no ping-pong. */
static inline int steady(const fx_delay_t *d)
{
  return d->feedback.left == 0 && d->mix.left == 0 && d->pp.left == 0 && d->pp.cur == 0.0 &&
         d->fade_left == 0 && d->d_target == d->d_cur;
}

/* Frames that can go through the steady path at once: contiguous in the ring for the write row
 * and both read rows, and at most floor(D) so that no frame reads what the same run writes. */
static inline size_t steady_run(const fx_delay_t *d, size_t want)
{
  size_t i = (size_t) d->d_cur;
  size_t ra = (d->w - i) & d->mask, rb = (d->w - i - 1) & d->mask;
  size_t run = want < i ? want : i;

  if (run > d->size - d->w)
    run = d->size - d->w;
  if (run > d->size - ra)
    run = d->size - ra;
  if (run > d->size - rb)
    run = d->size - rb;
  return run;
}

#define FX_DELAY_PROCESS(NAME, T, ZERO)                                                            \
  int NAME(fx_delay_t *d, T *data, size_t frames)                                                  \
  {                                                                                                \
    const int C = d->channels;                                                                     \
    double bad = 0.0;                                                                              \
    int bad_steady = 0;                                                                            \
    size_t n = 0;                                                                                  \
    fx_fpmode_t fpm;                                                                               \
    /* NaN/Inf become 0 before the line sees them (one bad sample costs one sample) */             \
    const int bad_in = ZERO(data, frames * (size_t) C) > 0;                                        \
                                                                                                   \
    if (d->fresh)                                                                                  \
      fx_delay_set(d, 1000.0 * d->d_target / d->rate, 0.0, 0.0, 0);                                \
    fpmode_enter(&fpm);                                                                            \
    while (n < frames) {                                                                           \
      if (steady(d)) {                                                                             \
        /* the same arithmetic as the per-frame path, over contiguous interleaved samples */       \
        size_t i = (size_t) d->d_cur, run = steady_run(d, frames - n);                             \
        size_t len = run * (size_t) C;                                                             \
        const double f = d->d_cur - (double) i, fb = d->feedback.cur, mix = d->mix.cur;            \
        const double *A = row(d, i), *B = row(d, i + 1);                                           \
        double *W = d->line + d->w * (size_t) C;                                                   \
        T *X = data + n * (size_t) C;                                                              \
        for (size_t e = 0; e < len; e++) {                                                         \
          double xc = X[e], t = A[e] + f * (B[e] - A[e]), v = xc + fb * t;                         \
          W[e] = v;                                                                                \
          bad_steady |= v * 0.0 != 0.0;                                                            \
          X[e] = (T) ((1.0 - mix) * xc + mix * t);                                                 \
        }                                                                                          \
        d->w = (d->w + run) & d->mask;                                                             \
        n += run;                                                                                  \
        continue;                                                                                  \
      }                                                                                            \
      T *x = data + n * (size_t) C;                                                                \
      double *out = d->line + d->w * (size_t) C;                                                   \
      double fb = fx_ramp_next(&d->feedback);                                                      \
      double mix = fx_ramp_next(&d->mix);                                                          \
      double p = fx_ramp_next(&d->pp);                                                             \
      read_taps(d);                                                                                \
      if (p != 0.0) {                                                                              \
        double xl = x[0], xr = x[1], tl = d->tap[0], tr = d->tap[1];                               \
        out[0] = (1.0 - p) * (xl + fb * tl) + p * ((xl + xr) + fb * tr);                           \
        out[1] = (1.0 - p) * (xr + fb * tr) + p * (fb * tl);                                       \
        bad += out[0] * 0.0 + out[1] * 0.0;                                                        \
        x[0] = (T) ((1.0 - mix) * xl + mix * tl);                                                  \
        x[1] = (T) ((1.0 - mix) * xr + mix * tr);                                                  \
      } else {                                                                                     \
        for (int c = 0; c < C; c++) {                                                              \
          double xc = x[c], t = d->tap[c];                                                         \
          out[c] = xc + fb * t;                                                                    \
          bad += out[c] * 0.0;                                                                     \
          x[c] = (T) ((1.0 - mix) * xc + mix * t);                                                 \
        }                                                                                          \
      }                                                                                            \
      d->w = (d->w + 1) & d->mask;                                                                 \
      n++;                                                                                         \
    }                                                                                              \
    fpmode_leave(&fpm);                                                                            \
    d->unseen = frames >= d->size - d->unseen ? d->size : d->unseen + frames;                      \
    if (isnan(bad) || bad_steady) {                                                                \
      size_t w = d->w;                                                                             \
      memset(d->line, 0, d->size *(size_t) C * sizeof(double));                                    \
      d->w = w;                                                                                    \
      d->unseen = d->size;                                                                         \
      return 1;                                                                                    \
    }                                                                                              \
    return bad_in;                                                                                 \
  }

FX_DELAY_PROCESS(fx_delay_process_f32, float, fx_zero_nonfinite_f32)
FX_DELAY_PROCESS(fx_delay_process_f64, double, fx_zero_nonfinite_f64)

/* The largest |value| of `count` frames from ring frame `from` (no wrap). */
static double frames_max(fx_delay_t *d, size_t from, size_t count)
{
  const size_t C = (size_t) d->channels;
  const double *p = d->line + from * C;
  double m = 0.0;

  for (size_t k = 0; k < count * C; k++)
    m = fmax(m, fabs(p[k]));
  d->bound_reads += count;
  return m;
}

/* Brings seg_max up to date for the segments written since the last call. */
static void refresh_segments(fx_delay_t *d)
{
  size_t first, touched;

  if (d->unseen == 0)
    return;
  first = d->seen_w / d->seg;
  touched = (d->seen_w % d->seg + d->unseen - 1) / d->seg + 1;
  if (d->unseen >= d->size || touched > d->nseg)
    touched = d->nseg;
  for (size_t k = 0; k < touched; k++) {
    size_t s = (first + k) % d->nseg;
    d->seg_max[s] = frames_max(d, s * d->seg, d->seg);
  }
  d->seen_w = d->w;
  d->unseen = 0;
}

double fx_delay_tail_bound(fx_delay_t *d)
{
  double D = fmax(d->d_cur, fmax(d->d_next, d->d_target));
  size_t back = (size_t) D + 2, idx, left;
  double m = 0.0;

  if (back > d->size)
    back = d->size;
  refresh_segments(d);
  /* the readable frames, w - back .. w - 1: whole segments from the cache, the partial ones at
   * either end (which also hold frames outside the window) read directly */
  idx = (d->w - back) & d->mask;
  left = back;
  while (left > 0) {
    size_t off = idx % d->seg, run = d->seg - off;
    if (run > left)
      run = left;
    if (off == 0 && run == d->seg)
      m = fmax(m, d->seg_max[idx / d->seg]);
    else
      m = fmax(m, frames_max(d, idx, run));
    idx = (idx + run) & d->mask;
    left -= run;
  }
  /* With silent input every future output is mix * tap, and mix only moves between its current
   * value and its target. */
  return m * fmax(fabs(d->mix.cur), fabs(d->mix.target));
}

uint64_t fx_delay_tail_reads(const fx_delay_t *d)
{
  return d->bound_reads;
}
