/* gst-fx — dynamics engine: compressor, gate/expander and look-ahead brick-wall limiter.
 * Pure C11, no GLib. See dynamics.h for the algorithms.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "dynamics.h"

#include "kernel_fpmode.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Levels are floored here (dB) so that silence gives a finite level. */
#define FX_DYN_FLOOR_DB (-400.0)
#define FX_DYN_FLOOR_POW 1e-40 /* 10^(FLOOR_DB / 10) */
/* Time constant (ms) of the glide of a changed makeup gain. */
#define FX_DYN_MAKEUP_MS 5.0

struct fx_dyn {
  fx_dyn_mode_t mode;
  int channels;
  int groups; /* gain groups: 1 when linked, else channels */
  double rate;
  size_t la; /* look-ahead, frames */
  fx_dyn_params_t p;

  /* coefficients */
  double a_att, a_rel, b_rms, makeup_lin, thr_lin;
  double a_mk; /* makeup glide: one-pole, FX_DYN_MAKEUP_MS */
  double mk;   /* the makeup gain (linear) now: glides to makeup_lin without clicks */
  long hold_n;

  /* state */
  double *x;     /* one frame (channels), scratch */
  double *ms;    /* RMS detector: mean square per channel */
  double *gs;    /* smoothed gain per group: dB (compressor, gate) or linear release (limiter) */
  double *lin;   /* linear gain per group for the current frame */
  long *hold;    /* gate: hold countdown per group */
  double *delay; /* look-ahead line: la frames x channels (NULL when la == 0) */
  size_t dpos;   /* delay position (frames) */
  uint64_t n;    /* frames processed since reset */
  /* limiter */
  size_t win;     /* la + 1 */
  double *dq_val; /* sliding-minimum deque per group: win entries each */
  uint64_t *dq_idx;
  size_t *dq_head, *dq_len;
  double *box; /* moving-average ring per group: win entries each */
  double *sum; /* its running sum per group */
  size_t bpos;
};

static double clampd(double v, double lo, double hi)
{
  if (!(v >= lo)) /* also NaN */
    return lo;
  return v > hi ? hi : v;
}

void fx_dyn_params_default(fx_dyn_mode_t mode, fx_dyn_params_t *p)
{
  if (!p)
    return;
  memset(p, 0, sizeof(*p));
  p->rms_ms = 10.0;
  p->detector = FX_DYN_PEAK;
  p->range_db = -80.0;
  switch (mode) {
  case FX_DYN_GATE:
    p->threshold_db = -50.0;
    p->ratio = 10.0;
    p->knee_db = 0.0;
    p->attack_ms = 1.0;
    p->hold_ms = 10.0;
    p->release_ms = 100.0;
    break;
  case FX_DYN_LIMITER:
    p->threshold_db = -1.0;
    p->ratio = 1.0;
    p->release_ms = 50.0;
    break;
  case FX_DYN_COMPRESSOR:
  default:
    p->threshold_db = -20.0;
    p->ratio = 4.0;
    p->knee_db = 6.0;
    p->attack_ms = 10.0;
    p->release_ms = 100.0;
    break;
  }
}

/* One-pole coefficient for a time constant of `ms` milliseconds at `rate`. */
static double pole(double ms, double rate)
{
  double n = ms * 1e-3 * rate; /* time constant in frames */
  return n > 0.0 ? exp(-1.0 / n) : 0.0;
}

void fx_dyn_set_params(fx_dyn_t *d, const fx_dyn_params_t *p)
{
  fx_dyn_params_t q;

  if (!d || !p)
    return;
  q = *p;
  q.threshold_db = clampd(q.threshold_db, -400.0, 400.0);
  q.ratio = clampd(q.ratio, 1.0, 1e12);
  q.knee_db = clampd(q.knee_db, 0.0, 400.0);
  q.attack_ms = clampd(q.attack_ms, 0.0, 1e9);
  q.release_ms = clampd(q.release_ms, 0.0, 1e9);
  q.hold_ms = clampd(q.hold_ms, 0.0, 1e9);
  q.makeup_db = clampd(q.makeup_db, -400.0, 400.0);
  q.range_db = clampd(q.range_db, -400.0, 0.0);
  q.rms_ms = clampd(q.rms_ms, 0.0, 1e9);
  if (q.detector != FX_DYN_RMS)
    q.detector = FX_DYN_PEAK;
  d->p = q;
  d->a_att = pole(q.attack_ms, d->rate);
  d->a_rel = pole(q.release_ms, d->rate);
  d->b_rms = pole(q.rms_ms, d->rate);
  d->a_mk = pole(FX_DYN_MAKEUP_MS, d->rate);
  d->makeup_lin = pow(10.0, q.makeup_db / 20.0);
  d->thr_lin = pow(10.0, q.threshold_db / 20.0);
  {
    double h = floor(q.hold_ms * 1e-3 * d->rate + 0.5);
    d->hold_n = h > 1e15 ? (long) 1e15 : (long) h;
  }
}

void fx_dyn_free(fx_dyn_t *d)
{
  if (!d)
    return;
  free(d->x);
  free(d->ms);
  free(d->gs);
  free(d->lin);
  free(d->hold);
  free(d->delay);
  free(d->dq_val);
  free(d->dq_idx);
  free(d->dq_head);
  free(d->dq_len);
  free(d->box);
  free(d->sum);
  free(d);
}

/* calloc with an overflow check on n * size. */
static void *alloc0(size_t n, size_t size)
{
  if (n == 0)
    n = 1;
  if (size && n > SIZE_MAX / size)
    return NULL;
  return calloc(n, size);
}

fx_dyn_t *fx_dyn_new(fx_dyn_mode_t mode, int channels, double rate, size_t lookahead, int link,
                     const fx_dyn_params_t *p)
{
  fx_dyn_t *d;
  size_t ch, g;
  fx_dyn_params_t def;

  if (channels < 1 || !(rate > 0.0) || mode < FX_DYN_COMPRESSOR || mode > FX_DYN_LIMITER)
    return NULL;
  if (lookahead >= SIZE_MAX / 4)
    return NULL;
  d = calloc(1, sizeof(*d));
  if (!d)
    return NULL;
  d->mode = mode;
  d->channels = channels;
  d->groups = link ? 1 : channels;
  d->rate = rate;
  d->la = lookahead;
  d->win = lookahead + 1;
  ch = (size_t) channels;
  g = (size_t) d->groups;
  d->x = alloc0(ch, sizeof(double));
  d->ms = alloc0(ch, sizeof(double));
  d->gs = alloc0(g, sizeof(double));
  d->lin = alloc0(g, sizeof(double));
  d->hold = alloc0(g, sizeof(long));
  if (!d->x || !d->ms || !d->gs || !d->lin || !d->hold)
    goto fail;
  if (lookahead > 0) {
    if (lookahead > SIZE_MAX / ch)
      goto fail;
    d->delay = alloc0(lookahead * ch, sizeof(double));
    if (!d->delay)
      goto fail;
  }
  if (mode == FX_DYN_LIMITER) {
    if (d->win > SIZE_MAX / g)
      goto fail;
    d->dq_val = alloc0(d->win * g, sizeof(double));
    d->dq_idx = alloc0(d->win * g, sizeof(uint64_t));
    d->dq_head = alloc0(g, sizeof(size_t));
    d->dq_len = alloc0(g, sizeof(size_t));
    d->box = alloc0(d->win * g, sizeof(double));
    d->sum = alloc0(g, sizeof(double));
    if (!d->dq_val || !d->dq_idx || !d->dq_head || !d->dq_len || !d->box || !d->sum)
      goto fail;
  }
  if (!p) {
    fx_dyn_params_default(mode, &def);
    p = &def;
  }
  fx_dyn_set_params(d, p);
  fx_dyn_reset(d);
  return d;
fail:
  fx_dyn_free(d);
  return NULL;
}

void fx_dyn_reset(fx_dyn_t *d)
{
  size_t ch, g;

  if (!d)
    return;
  ch = (size_t) d->channels;
  g = (size_t) d->groups;
  memset(d->ms, 0, ch * sizeof(double));
  for (size_t i = 0; i < g; i++) {
    d->gs[i] = d->mode == FX_DYN_LIMITER ? 1.0 : 0.0;
    d->lin[i] = 1.0;
    d->hold[i] = 0;
  }
  if (d->delay)
    memset(d->delay, 0, d->la * ch * sizeof(double));
  d->dpos = 0;
  d->n = 0;
  d->mk = d->makeup_lin;
  d->bpos = 0;
  if (d->mode == FX_DYN_LIMITER) {
    for (size_t i = 0; i < g; i++) {
      d->dq_head[i] = 0;
      d->dq_len[i] = 0;
      for (size_t k = 0; k < d->win; k++)
        d->box[i * d->win + k] = 1.0;
      d->sum[i] = (double) d->win;
    }
  }
}

size_t fx_dyn_latency(const fx_dyn_t *d)
{
  return d ? d->la : 0;
}

double fx_dyn_static_gain_db(fx_dyn_mode_t mode, const fx_dyn_params_t *p, double x)
{
  double t = p->threshold_db, w = p->knee_db, r = p->ratio < 1.0 ? 1.0 : p->ratio;
  double e = x - t, g;

  if (mode == FX_DYN_GATE) {
    if (w > 0.0 && 2.0 * fabs(e) <= w) {
      double u = e - w / 2.0;
      g = -(r - 1.0) * u * u / (2.0 * w);
    } else if (e > 0.0) {
      g = 0.0;
    } else {
      g = (r - 1.0) * e;
    }
    return g < p->range_db ? p->range_db : g;
  }
  if (w > 0.0 && 2.0 * fabs(e) <= w) {
    double u = e + w / 2.0;
    return (1.0 / r - 1.0) * u * u / (2.0 * w);
  }
  return e > 0.0 ? (1.0 / r - 1.0) * e : 0.0;
}

/* The level (dB) of group k for the current frame in d->x. */
static double group_level_db(fx_dyn_t *d, int k)
{
  double p2 = 0.0;
  int c0 = d->groups == 1 ? 0 : k, c1 = d->groups == 1 ? d->channels : k + 1;

  for (int c = c0; c < c1; c++) {
    double v = d->p.detector == FX_DYN_RMS ? d->ms[c] : d->x[c] * d->x[c];
    if (v > p2)
      p2 = v;
  }
  return p2 > FX_DYN_FLOOR_POW ? 10.0 * log10(p2) : FX_DYN_FLOOR_DB;
}

/* Compressor and gate gains for the frame in d->x, into d->lin. */
static void gains_log(fx_dyn_t *d)
{
  const double ln10_20 = log(10.0) / 20.0;

  if (d->mk != d->makeup_lin) {
    double m = d->makeup_lin + d->a_mk * (d->mk - d->makeup_lin);
    d->mk = fabs(m - d->makeup_lin) <= 1e-12 * d->makeup_lin ? d->makeup_lin : m;
  }

  if (d->p.detector == FX_DYN_RMS) {
    const double b = d->b_rms;
    for (int c = 0; c < d->channels; c++) {
      double m = b * d->ms[c] + (1.0 - b) * d->x[c] * d->x[c];
      /* below the level floor every value reads the same: flush it (no denormals in silence) */
      d->ms[c] = m > FX_DYN_FLOOR_POW ? m : 0.0;
    }
  }
  for (int k = 0; k < d->groups; k++) {
    double gc = fx_dyn_static_gain_db(d->mode, &d->p, group_level_db(d, k));
    double gs = d->gs[k];
    if (d->mode == FX_DYN_GATE) {
      if (gc >= gs) {
        gs = d->a_att * gs + (1.0 - d->a_att) * gc;
        d->hold[k] = d->hold_n;
      } else if (d->hold[k] > 0) {
        d->hold[k]--;
      } else {
        gs = d->a_rel * gs + (1.0 - d->a_rel) * gc;
      }
    } else {
      double a = gc < gs ? d->a_att : d->a_rel;
      gs = a * gs + (1.0 - a) * gc;
    }
    /* a release decaying towards 0 dB would end in denormals; 1e-30 dB is far below any
     * audible or representable gain difference */
    if (fabs(gs) < 1e-30)
      gs = 0.0;
    d->gs[k] = gs;
    d->lin[k] = exp(gs * ln10_20) * d->mk;
  }
}

/* Limiter gains for the frame in d->x, into d->lin. */
static void gains_limiter(fx_dyn_t *d)
{
  const size_t win = d->win;
  const double t = d->thr_lin, a = d->a_rel;
  const uint64_t n = d->n;

  for (int k = 0; k < d->groups; k++) {
    int c0 = d->groups == 1 ? 0 : k, c1 = d->groups == 1 ? d->channels : k + 1;
    double peak = 0.0, gr, m, r;
    double *val = d->dq_val + (size_t) k * win, *box = d->box + (size_t) k * win;
    uint64_t *idx = d->dq_idx + (size_t) k * win;
    size_t head = d->dq_head[k], len = d->dq_len[k];

    for (int c = c0; c < c1; c++) {
      double v = fabs(d->x[c]);
      if (v > peak)
        peak = v;
    }
    gr = peak > t ? t / peak : 1.0;
    /* sliding minimum over frames [n - la, n]: a deque of increasing values. Expired entries
     * leave first, so at most win - 1 remain and the new one always fits. */
    while (len > 0 && idx[head] + win <= n) {
      head = (head + 1) % win;
      len--;
    }
    while (len > 0 && val[(head + len - 1) % win] >= gr)
      len--;
    val[(head + len) % win] = gr;
    idx[(head + len) % win] = n;
    len++;
    d->dq_head[k] = head;
    d->dq_len[k] = len;
    m = val[head];
    /* release: falls at once, rises with the release time constant, never above m */
    r = d->gs[k];
    r = m < r ? m : r + (1.0 - a) * (m - r);
    if (r > m)
      r = m;
    d->gs[k] = r;
    /* moving average over win frames */
    d->sum[k] += r - box[d->bpos];
    box[d->bpos] = r;
    d->lin[k] = d->sum[k] / (double) win;
  }
  if (++d->bpos == win) {
    /* recompute the running sums exactly once per window, so rounding never drifts */
    d->bpos = 0;
    for (int k = 0; k < d->groups; k++) {
      const double *box = d->box + (size_t) k * win;
      double s = 0.0;
      for (size_t i = 0; i < win; i++)
        s += box[i];
      d->sum[k] = s;
    }
  }
}

/* Processes the frame in d->x: gains from the current input, output (the delayed input times
 * the gain) written back into d->x. */
static void frame(fx_dyn_t *d)
{
  const int ch = d->channels;

  if (d->mode == FX_DYN_LIMITER)
    gains_limiter(d);
  else
    gains_log(d);
  if (d->la > 0) {
    double *line = d->delay + d->dpos * (size_t) ch;
    for (int c = 0; c < ch; c++) {
      double v = line[c];
      line[c] = d->x[c];
      d->x[c] = v;
    }
    if (++d->dpos == d->la)
      d->dpos = 0;
  }
  for (int c = 0; c < ch; c++)
    d->x[c] *= d->lin[d->groups == 1 ? 0 : c];
  if (d->mode == FX_DYN_LIMITER) {
    const double t = d->thr_lin;
    for (int c = 0; c < ch; c++) {
      if (d->x[c] > t)
        d->x[c] = t;
      else if (d->x[c] < -t)
        d->x[c] = -t;
    }
  }
  d->n++;
}

#define FX_DYN_PROCESS(NAME, T, NEXT)                                                              \
  size_t NAME(fx_dyn_t *d, const T *in, T *out, size_t frames)                                     \
  {                                                                                                \
    size_t bad = 0;                                                                                \
    if (!d || !in || !out)                                                                         \
      return 0;                                                                                    \
    const size_t ch = (size_t) d->channels;                                                        \
    /* the limiter's ceiling in T, rounded towards zero: rounding never lifts a sample above it */ \
    T ceil_t = (T) d->thr_lin;                                                                     \
    if ((double) ceil_t > d->thr_lin)                                                              \
      ceil_t = NEXT(ceil_t, (T) 0);                                                                \
    const int limit = d->mode == FX_DYN_LIMITER;                                                   \
    fx_fpmode_t fpm; /* subnormals flush to zero: decaying envelopes and quiet input stay fast */  \
    fpmode_enter(&fpm);                                                                            \
    for (size_t f = 0; f < frames; f++) {                                                          \
      const T *src = in + f * ch;                                                                  \
      T *dst = out + f * ch;                                                                       \
      for (size_t c = 0; c < ch; c++) {                                                            \
        double v = (double) src[c];                                                                \
        if (!isfinite(v)) {                                                                        \
          v = 0.0;                                                                                 \
          bad++;                                                                                   \
        }                                                                                          \
        d->x[c] = v;                                                                               \
      }                                                                                            \
      frame(d);                                                                                    \
      for (size_t c = 0; c < ch; c++) {                                                            \
        T y = (T) d->x[c];                                                                         \
        if (limit) {                                                                               \
          if (y > ceil_t)                                                                          \
            y = ceil_t;                                                                            \
          else if (y < -ceil_t)                                                                    \
            y = -ceil_t;                                                                           \
        }                                                                                          \
        dst[c] = y;                                                                                \
      }                                                                                            \
    }                                                                                              \
    fpmode_leave(&fpm);                                                                            \
    return bad;                                                                                    \
  }

FX_DYN_PROCESS(fx_dyn_process_f32, float, nextafterf)
FX_DYN_PROCESS(fx_dyn_process_f64, double, nextafter)
