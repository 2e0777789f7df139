/* gst-fx — loudness normalisation statistics: peak, RMS and percentile of |x|. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "normalize.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct fx_norm {
  int channels;
  size_t frames;
  size_t nonfinite;
  double *peak;  /* per channel */
  double *sumsq; /* per channel */
  size_t *count; /* finite samples per channel */
};

fx_norm *fx_norm_new(int channels)
{
  fx_norm *s;

  if (channels < 1)
    return NULL;
  s = calloc(1, sizeof(*s));
  if (!s)
    return NULL;
  s->channels = channels;
  s->peak = calloc((size_t) channels, sizeof(double));
  s->sumsq = calloc((size_t) channels, sizeof(double));
  s->count = calloc((size_t) channels, sizeof(size_t));
  if (!s->peak || !s->sumsq || !s->count) {
    fx_norm_free(s);
    return NULL;
  }
  return s;
}

void fx_norm_free(fx_norm *s)
{
  if (!s)
    return;
  free(s->peak);
  free(s->sumsq);
  free(s->count);
  free(s);
}

void fx_norm_reset(fx_norm *s)
{
  if (!s)
    return;
  s->frames = 0;
  s->nonfinite = 0;
  memset(s->peak, 0, (size_t) s->channels * sizeof(double));
  memset(s->sumsq, 0, (size_t) s->channels * sizeof(double));
  memset(s->count, 0, (size_t) s->channels * sizeof(size_t));
}

#define FX_NORM_ADD(NAME, T)                                                                       \
  void NAME(fx_norm *s, const T *x, size_t frames)                                                 \
  {                                                                                                \
    if (!s || !x)                                                                                  \
      return;                                                                                      \
    const size_t ch = (size_t) s->channels;                                                        \
    for (size_t c = 0; c < ch; c++) {                                                              \
      double peak = s->peak[c], sum = 0.0;                                                         \
      size_t n = 0;                                                                                \
      for (size_t f = 0; f < frames; f++) {                                                        \
        double v = (double) x[f * ch + c];                                                         \
        if (!isfinite(v)) {                                                                        \
          s->nonfinite++;                                                                          \
          continue;                                                                                \
        }                                                                                          \
        v = fabs(v);                                                                               \
        if (v > peak)                                                                              \
          peak = v;                                                                                \
        sum += v * v;                                                                              \
        n++;                                                                                       \
      }                                                                                            \
      s->peak[c] = peak;                                                                           \
      s->sumsq[c] += sum;                                                                          \
      s->count[c] += n;                                                                            \
    }                                                                                              \
    s->frames += frames;                                                                           \
  }

FX_NORM_ADD(fx_norm_add_f32, float)
FX_NORM_ADD(fx_norm_add_f64, double)

size_t fx_norm_frames(const fx_norm *s)
{
  return s ? s->frames : 0;
}

size_t fx_norm_nonfinite(const fx_norm *s)
{
  return s ? s->nonfinite : 0;
}

double fx_norm_peak(const fx_norm *s, int channel)
{
  double p = 0.0;

  if (!s || channel >= s->channels)
    return 0.0;
  if (channel >= 0)
    return s->peak[channel];
  for (int c = 0; c < s->channels; c++)
    if (s->peak[c] > p)
      p = s->peak[c];
  return p;
}

double fx_norm_rms(const fx_norm *s, int channel)
{
  double sum = 0.0;
  size_t n = 0;

  if (!s || channel >= s->channels)
    return 0.0;
  for (int c = channel >= 0 ? channel : 0; c < (channel >= 0 ? channel + 1 : s->channels); c++) {
    sum += s->sumsq[c];
    n += s->count[c];
  }
  return n > 0 ? sqrt(sum / (double) n) : 0.0;
}

#define FX_NORM_COLLECT(NAME, T)                                                                   \
  size_t NAME(const T *x, size_t frames, int channels, int channel, double *dst)                   \
  {                                                                                                \
    size_t w = 0;                                                                                  \
    if (!x || !dst || channels < 1 || channel >= channels)                                         \
      return 0;                                                                                    \
    const size_t ch = (size_t) channels;                                                           \
    const size_t n = channel < 0 ? frames * ch : frames;                                           \
    const size_t step = channel < 0 ? 1 : ch;                                                      \
    const T *p = channel < 0 ? x : x + channel;                                                    \
    for (size_t i = 0; i < n; i++) {                                                               \
      double v = (double) p[i * step];                                                             \
      if (isfinite(v))                                                                             \
        dst[w++] = fabs(v);                                                                        \
    }                                                                                              \
    return w;                                                                                      \
  }

FX_NORM_COLLECT(fx_norm_collect_abs_f32, float)
FX_NORM_COLLECT(fx_norm_collect_abs_f64, double)

static void swap(double *a, double *b)
{
  double t = *a;
  *a = *b;
  *b = t;
}

/* Moves the k-th smallest of v[0..n) to v[k], smaller ones before it, larger ones after it
 * (Hoare's quickselect with a median-of-three pivot). */
static void select_kth(double *v, size_t n, size_t k)
{
  size_t lo = 0, hi = n - 1;

  while (hi > lo) {
    size_t mid = lo + (hi - lo) / 2, i, j;
    double pivot;
    if (v[mid] < v[lo])
      swap(&v[mid], &v[lo]);
    if (v[hi] < v[lo])
      swap(&v[hi], &v[lo]);
    if (v[hi] < v[mid])
      swap(&v[hi], &v[mid]);
    pivot = v[mid];
    i = lo;
    j = hi;
    while (i <= j) {
      while (v[i] < pivot)
        i++;
      while (v[j] > pivot)
        j--;
      if (i <= j) {
        swap(&v[i], &v[j]);
        i++;
        if (j == 0)
          break;
        j--;
      }
    }
    /* now v[lo..j] <= pivot <= v[i..hi] and j < i */
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      return;
  }
}

double fx_norm_percentile(double *v, size_t n, double q)
{
  double rank, frac, a, b;
  size_t k;

  if (!v || n == 0)
    return 0.0;
  if (!(q >= 0.0))
    q = 0.0;
  if (q > 100.0)
    q = 100.0;
  rank = q / 100.0 * (double) (n - 1);
  k = (size_t) floor(rank);
  if (k > n - 1)
    k = n - 1;
  frac = rank - (double) k;
  select_kth(v, n, k);
  a = v[k];
  if (frac <= 0.0 || k + 1 >= n)
    return a;
  b = v[k + 1];
  for (size_t i = k + 2; i < n; i++)
    if (v[i] < b)
      b = v[i];
  /* numpy's lerp: exact at both ends */
  return frac < 0.5 ? a + (b - a) * frac : b - (b - a) * (1.0 - frac);
}

double fx_norm_gain(double level, double target_db)
{
  double g;

  if (!(level > 0.0) || !isfinite(level))
    return 1.0;
  g = pow(10.0, target_db / 20.0) / level;
  return isfinite(g) ? g : 1.0;
}

#define FX_NORM_APPLY(NAME, T)                                                                     \
  void NAME(T *x, size_t frames, int channels, const double *gains)                                \
  {                                                                                                \
    if (!x || !gains || channels < 1)                                                              \
      return;                                                                                      \
    const size_t ch = (size_t) channels;                                                           \
    for (size_t f = 0; f < frames; f++) {                                                          \
      T *p = x + f * ch;                                                                           \
      for (size_t c = 0; c < ch; c++) {                                                            \
        double v = (double) p[c];                                                                  \
        p[c] = isfinite(v) ? (T) (v * gains[c]) : (T) 0;                                           \
      }                                                                                            \
    }                                                                                              \
  }

FX_NORM_APPLY(fx_norm_apply_f32, float)
FX_NORM_APPLY(fx_norm_apply_f64, double)
