/* gst-fx — loudness normalisation statistics: peak, RMS and percentile of |x|. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "normalize.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct fx_norm {
  int channels;
  size_t nonfinite;
  double *peak;  /* per channel */
  double *sumsq; /* per channel */
  size_t *count; /* finite samples per channel */
};

fx_norm_t *fx_norm_new(int channels)
{
  fx_norm_t *s;

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

void fx_norm_free(fx_norm_t *s)
{
  if (!s)
    return;
  free(s->peak);
  free(s->sumsq);
  free(s->count);
  free(s);
}

void fx_norm_reset(fx_norm_t *s)
{
  if (!s)
    return;
  s->nonfinite = 0;
  memset(s->peak, 0, (size_t) s->channels * sizeof(double));
  memset(s->sumsq, 0, (size_t) s->channels * sizeof(double));
  memset(s->count, 0, (size_t) s->channels * sizeof(size_t));
}

#define FX_NORM_ADD(NAME, T)                                                                       \
  void NAME(fx_norm_t *s, const T *x, size_t frames)                                               \
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
  }

FX_NORM_ADD(fx_norm_add_f32, float)
FX_NORM_ADD(fx_norm_add_f64, double)

size_t fx_norm_nonfinite(const fx_norm_t *s)
{
  return s ? s->nonfinite : 0;
}

double fx_norm_peak(const fx_norm_t *s, int channel)
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

double fx_norm_rms(const fx_norm_t *s, int channel)
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

/* ---- order statistics of |x| without a copy (radix selection) ----
 *
 * For x >= 0 the IEEE-754 bit pattern, read as an unsigned integer, orders like the value. The
 * k-th smallest |x| is found digit by digit from the top, 16 bits per pass: a pass counts, among
 * the samples whose higher digits match the ones fixed so far, how many have each value of the
 * next digit; the digit that holds rank k is fixed and k becomes the rank inside it. 2 passes for
 * F32, 4 for F64, each a read of the data; memory: one 2^16-entry histogram per rank. */

#define SEL_DIGIT 16
#define SEL_BINS ((size_t) 1 << SEL_DIGIT)

struct fx_norm_select {
  int is_f64, channels, channel;
  int bits, pass, passes;
  int nt;             /* ranks searched: 1, or 2 when interpolating between ranks k and k + 1 */
  double frac;        /* weight of rank k + 1 */
  uint64_t prefix[2]; /* the digits fixed so far */
  uint64_t rank[2];   /* the rank among the samples that match prefix */
  uint64_t *hist[2];  /* SEL_BINS each */
  uint64_t n;
  int shared; /* this pass: both ranks have the same prefix, hist[0] serves both */
  int done;   /* every digit is fixed */
};

fx_norm_select_t *fx_norm_select_new(int is_f64, int channels, int channel, uint64_t n, double q)
{
  fx_norm_select_t *s;
  double rank;
  uint64_t k;

  if (channels < 1 || channel >= channels)
    return NULL;
  s = calloc(1, sizeof(*s));
  if (!s)
    return NULL;
  s->is_f64 = is_f64 != 0;
  s->channels = channels;
  s->channel = channel;
  s->bits = s->is_f64 ? 64 : 32;
  s->passes = n > 0 ? s->bits / SEL_DIGIT : 0;
  s->n = n;
  if (!(q >= 0.0))
    q = 0.0;
  if (q > 100.0)
    q = 100.0;
  rank = n > 0 ? q / 100.0 * (double) (n - 1) : 0.0;
  k = (uint64_t) floor(rank);
  if (n > 0 && k > n - 1)
    k = n - 1;
  s->frac = rank - (double) k;
  s->rank[0] = k;
  s->rank[1] = k + 1;
  s->nt = (s->frac > 0.0 && k + 1 < n) ? 2 : 1;
  for (int t = 0; t < s->nt; t++) {
    s->hist[t] = malloc(SEL_BINS * sizeof(uint64_t));
    if (!s->hist[t]) {
      fx_norm_select_free(s);
      return NULL;
    }
  }
  return s;
}

void fx_norm_select_free(fx_norm_select_t *s)
{
  if (!s)
    return;
  free(s->hist[0]);
  free(s->hist[1]);
  free(s);
}

/* Fixes the digit of each rank from the histogram of the pass that ended. */
static void select_resolve(fx_norm_select_t *s)
{
  for (int t = 0; t < s->nt; t++) {
    const uint64_t *h = s->hist[s->shared ? 0 : t];
    uint64_t cum = 0, r = s->rank[t];
    size_t d;
    for (d = 0; d < SEL_BINS - 1; d++) {
      if (r < cum + h[d])
        break;
      cum += h[d];
    }
    s->prefix[t] = (s->prefix[t] << SEL_DIGIT) | (uint64_t) d;
    s->rank[t] = r - cum;
  }
}

int fx_norm_select_pass(fx_norm_select_t *s)
{
  if (!s || s->done)
    return 0;
  if (s->pass > 0)
    select_resolve(s);
  if (s->pass >= s->passes) {
    s->done = 1;
    return 0;
  }
  s->pass++;
  s->shared = s->nt == 2 && s->prefix[0] == s->prefix[1];
  for (int t = 0; t < s->nt; t++)
    memset(s->hist[t], 0, SEL_BINS * sizeof(uint64_t));
  return 1;
}

/* Counts the keys of one pass: `shift` puts the digit of this pass at the bottom; in passes after
 * the first only keys whose higher digits equal prefix[t] count. */
#define FX_SELECT_FEED(NAME, T, U, ABSMASK)                                                        \
  static void NAME(fx_norm_select_t *s, const T *x, size_t frames)                                 \
  {                                                                                                \
    const size_t ch = (size_t) s->channels;                                                        \
    const size_t n = s->channel < 0 ? frames * ch : frames;                                        \
    const size_t step = s->channel < 0 ? 1 : ch;                                                   \
    const unsigned char *base = (const unsigned char *) (s->channel < 0 ? x : x + s->channel);     \
    const int shift = s->bits - SEL_DIGIT * s->pass;                                               \
    for (int t = 0; t < s->nt; t++) {                                                              \
      uint64_t *h = s->hist[t];                                                                    \
      if (t == 1 && s->shared)                                                                     \
        break; /* the same samples match both prefixes: rank k + 1 reads the counts of rank k */   \
      for (size_t i = 0; i < n; i++) {                                                             \
        U key;                                                                                     \
        memcpy(&key, base + i * step * sizeof(T), sizeof(U));                                      \
        key &= ABSMASK;                                                                            \
        if (s->pass > 1 && (uint64_t) (key >> (shift + SEL_DIGIT)) != s->prefix[t])                \
          continue;                                                                                \
        h[(key >> shift) & (SEL_BINS - 1)]++;                                                      \
      }                                                                                            \
    }                                                                                              \
  }

FX_SELECT_FEED(select_feed_f32, float, uint32_t, 0x7fffffffu)
FX_SELECT_FEED(select_feed_f64, double, uint64_t, 0x7fffffffffffffffull)

void fx_norm_select_feed(fx_norm_select_t *s, const void *x, size_t frames)
{
  if (!s || !x || s->pass < 1 || s->pass > s->passes)
    return;
  if (s->is_f64)
    select_feed_f64(s, x, frames);
  else
    select_feed_f32(s, x, frames);
}

static double key_value(const fx_norm_select_t *s, uint64_t key)
{
  if (s->is_f64) {
    double v;
    memcpy(&v, &key, sizeof(v));
    return v;
  }
  uint32_t k32 = (uint32_t) key;
  float f;
  memcpy(&f, &k32, sizeof(f));
  return (double) f;
}

double fx_norm_select_result(const fx_norm_select_t *s)
{
  double a, b, frac;

  if (!s || s->n == 0 || !s->done)
    return 0.0;
  a = key_value(s, s->prefix[0]);
  if (s->nt < 2)
    return a;
  b = key_value(s, s->prefix[1]);
  frac = s->frac;
  /* numpy's lerp, as fx_norm_percentile() */
  return frac < 0.5 ? a + (b - a) * frac : b - (b - a) * (1.0 - frac);
}
