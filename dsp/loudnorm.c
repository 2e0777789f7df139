/* gst-fx — live loudness normaliser (see loudnorm.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "loudnorm.h"
#include "loudness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* blocks of 100 ms; the Gaussian reaches H blocks either side with sigma SIGMA blocks */
#define H 15
#define SIGMA 5.0
/* the short-term window (3 s) is centred 1.5 s = H blocks before the end of its last block */
#define HIST_BLOCKS (2 * H + 2)
#define DRING 64
/* interpolator half length (taps either side) and oversampling of the true-peak detector */
#define T 8
#define OVER 4
#define QUIET_LU 20.0
#define ABS_GATE (-70.0)
#define MAX_GAIN_DB 60.0

struct fx_loudnorm {
  int ch;
  unsigned long rate;
  double target, range, ceiling;
  size_t block;     /* frames per block */
  size_t lookahead; /* limiter look-ahead L, frames */
  size_t dg;        /* latency of the gain stage */
  fx_loud_t *meter;
  double w[2 * H + 1];                /* Gaussian weights, sum 1 */
  double interp[2 * OVER - 1][2 * T]; /* windowed-sinc taps for the fractions f/OVER, f=1..3 */
  double release;                     /* one-pole coefficient of the limiter's release */

  /* gain stage */
  double *hist;         /* HIST_BLOCKS blocks of input */
  double *gout;         /* 2 blocks of gained output */
  unsigned long long n; /* input frames seen */
  long long k;          /* blocks completed */
  double dring[DRING];  /* desired gains d_k (dB) */
  int have_valid;
  double g_prev; /* G_m of the last emitted block, dB */
  double g_last; /* the gain on the last output frame (dB) */

  /* limiter stage: ring of gained frames, ring of r values, sliding min deque, moving sum */
  size_t lring; /* frames in the ring (power of two) */
  double *lx;   /* lring x ch gained frames */
  double *r;    /* lring required gains (linear) */
  size_t *dq;   /* deque of indices into r (monotonic min), lring entries */
  size_t dq_head, dq_len;
  double *m; /* lring sliding minima, for the moving average */
  double msum;
  unsigned long long ln;       /* frames entered into the limiter */
  double gf;                   /* the released limiter gain */
  double *xin, *gained, *yout; /* one frame each */
  double lim_last;
};

static double sinc(double x)
{
  return fabs(x) < 1e-12 ? 1.0 : sin(M_PI * x) / (M_PI * x);
}

fx_loudnorm_t *fx_loudnorm_new(int channels, unsigned long rate, double target_lufs,
                               double range_lu, double ceiling_dbtp)
{
  fx_loudnorm_t *s;
  double sum = 0.0;

  if (channels < 1 || rate < 1 || rate > 768000 || !isfinite(target_lufs) || !(range_lu >= 1.0) ||
      !isfinite(ceiling_dbtp))
    return NULL;
  if ((s = calloc(1, sizeof(*s))) == NULL)
    return NULL;
  s->ch = channels;
  s->rate = rate;
  s->target = target_lufs;
  s->range = range_lu;
  s->ceiling = pow(10.0, ceiling_dbtp / 20.0);
  s->block = rate >= 10 ? rate / 10 : 1;
  s->lookahead = rate / 100;
  s->meter = fx_loud_new_live(channels, rate);
  s->dg = s->meter ? (size_t) (2 * H + 1) * s->block : 0;
  for (int i = -H; i <= H; i++)
    sum += s->w[i + H] = exp(-0.5 * (i / SIGMA) * (i / SIGMA));
  for (int i = 0; i <= 2 * H; i++)
    s->w[i] /= sum;
  /* interp[f-1][j]: the weight of x[k + j - T + 1] for the value at k + f/OVER */
  for (int f = 1; f < OVER; f++)
    for (int j = 0; j < 2 * T; j++) {
      double t = (double) f / OVER - (double) (j - T + 1);
      s->interp[f - 1][j] = sinc(t) * (0.5 + 0.5 * cos(M_PI * t / T));
    }
  s->release = 1.0 - exp(-1.0 / (0.1 * (double) rate));
  for (s->lring = 1; s->lring < s->lookahead + 2 * T + 4; s->lring <<= 1)
    ;
  /* without a meter there is no gain stage: its delay lines are not needed */
  s->hist = malloc(sizeof(double) * (s->meter ? HIST_BLOCKS * s->block * (size_t) channels : 1));
  s->gout = malloc(sizeof(double) * (s->meter ? 2 * s->block * (size_t) channels : 1));
  s->lx = malloc(sizeof(double) * s->lring * (size_t) channels);
  s->r = malloc(sizeof(double) * s->lring);
  s->m = malloc(sizeof(double) * s->lring);
  s->dq = malloc(sizeof(size_t) * s->lring);
  s->xin = malloc(sizeof(double) * 3 * (size_t) channels);
  s->gained = s->xin ? s->xin + channels : NULL;
  s->yout = s->xin ? s->xin + 2 * channels : NULL;
  if (!s->xin || !s->hist || !s->gout || !s->lx || !s->r || !s->m || !s->dq) {
    fx_loudnorm_free(s);
    return NULL;
  }
  fx_loudnorm_reset(s);
  return s;
}

void fx_loudnorm_free(fx_loudnorm_t *s)
{
  if (s == NULL)
    return;
  fx_loud_free(s->meter);
  free(s->hist);
  free(s->gout);
  free(s->lx);
  free(s->r);
  free(s->m);
  free(s->dq);
  free(s->xin);
  free(s);
}

int fx_loudnorm_measuring(const fx_loudnorm_t *s)
{
  return s->meter != NULL;
}

void fx_loudnorm_set_params(fx_loudnorm_t *s, double target_lufs, double range_lu,
                            double ceiling_dbtp)
{
  if (isfinite(target_lufs))
    s->target = target_lufs;
  if (range_lu >= 1.0 && isfinite(range_lu))
    s->range = range_lu;
  if (isfinite(ceiling_dbtp))
    s->ceiling = pow(10.0, ceiling_dbtp / 20.0);
}

void fx_loudnorm_reset(fx_loudnorm_t *s)
{
  size_t ch = (size_t) s->ch;

  if (s->meter) {
    fx_loud_reset(s->meter);
    memset(s->hist, 0, sizeof(double) * HIST_BLOCKS * s->block * ch);
    memset(s->gout, 0, sizeof(double) * 2 * s->block * ch);
  }
  memset(s->lx, 0, sizeof(double) * s->lring * ch);
  for (size_t i = 0; i < s->lring; i++)
    s->r[i] = s->m[i] = 1.0;
  s->msum = (double) (s->lookahead + 1);
  s->dq_head = s->dq_len = 0;
  s->n = 0;
  s->k = 0;
  s->ln = 0;
  memset(s->dring, 0, sizeof(s->dring));
  s->have_valid = 0;
  s->g_prev = s->g_last = 0.0;
  s->gf = 1.0;
  s->lim_last = 0.0;
}

size_t fx_loudnorm_latency(const fx_loudnorm_t *s)
{
  return s->dg + T + s->lookahead;
}

double fx_loudnorm_gain_db(const fx_loudnorm_t *s)
{
  return s->g_last;
}

double fx_loudnorm_limiter_db(const fx_loudnorm_t *s)
{
  return s->lim_last;
}

static double d_at(const fx_loudnorm_t *s, long long j)
{
  return s->dring[(j < 0 ? 0 : j) % DRING];
}

/* G_m: the Gaussian-smoothed gain of block m (dB). */
static double smoothed(const fx_loudnorm_t *s, long long m)
{
  double g = 0.0;
  for (int i = -H; i <= H; i++)
    g += s->w[i + H] * d_at(s, m + H - 1 + i);
  return g;
}

/* End of input block k: its desired gain, then (3 s later) a block of gained output. */
static void end_block(fx_loudnorm_t *s)
{
  size_t B = s->block, ch = (size_t) s->ch;
  long long k = s->k, m;
  const double *blk = s->hist + (size_t) (k % HIST_BLOCKS) * B * ch;
  double S, I, d;

  fx_loud_add_f64(s->meter, blk, B);
  S = k + 1 < 2 * H ? fx_loud_window(s->meter, (unsigned long) (k + 1) * 100)
                    : fx_loud_shortterm(s->meter);
  I = fx_loud_integrated(s->meter);
  if (!isfinite(I))
    I = S;
  if (isfinite(S) && S > ABS_GATE && S > I - QUIET_LU) {
    double e = S - I, h = 0.5 * s->range;
    double excess = e > h ? e - h : (e < -h ? e + h : 0.0);
    d = s->target - I - excess;
    d = d > MAX_GAIN_DB ? MAX_GAIN_DB : (d < -MAX_GAIN_DB ? -MAX_GAIN_DB : d);
    if (!s->have_valid) /* the gain before the first measurable block is this one */
      for (int i = 0; i < DRING; i++)
        s->dring[i] = d;
    s->have_valid = 1;
  } else {
    d = k > 0 ? s->dring[(k - 1) % DRING] : 0.0; /* a pause keeps the gain */
  }
  s->dring[k % DRING] = d;

  m = k - 2 * H;
  if (m >= 0) {
    const double *src = s->hist + (size_t) (m % HIST_BLOCKS) * B * ch;
    double *dst = s->gout + (size_t) (m % 2) * B * ch;
    double g0 = m == 0 ? smoothed(s, 0) : s->g_prev, g1 = smoothed(s, m + 1);
    for (size_t i = 0; i < B; i++) {
      double g = pow(10.0, (g0 + (g1 - g0) * (double) i / (double) B) / 20.0);
      for (size_t c = 0; c < ch; c++)
        dst[i * ch + c] = src[i * ch + c] * g;
    }
    s->g_prev = g1;
  }
  s->k++;
}

/* The limiter: takes one gained frame, gives the frame T + L earlier, limited. */
static void limit(fx_loudnorm_t *s, const double *x, double *y)
{
  size_t ch = (size_t) s->ch, mask = s->lring - 1, L = s->lookahead;
  unsigned long long n = s->ln;
  double peak = 0.0, r, g;
  size_t j;

  memcpy(s->lx + (size_t) (n & mask) * ch, x, sizeof(double) * ch);
  s->ln++;
  if (n < T)
    goto out_zero;
  /* detection at k = n - T: |x[k]| and the interpolated values on both sides of it */
  j = (size_t) (n - T);
  for (size_t c = 0; c < ch; c++) {
    double v = fabs(s->lx[(j & mask) * ch + c]);
    if (v > peak)
      peak = v;
    for (int side = 0; side < 2; side++) {
      /* the interval (k - 1 + side, k + side) */
      unsigned long long base = j - 1 + (unsigned long long) side;
      for (int f = 0; f < OVER - 1; f++) {
        double a = 0.0;
        for (int t = 0; t < 2 * T; t++) {
          long long idx = (long long) base + t - T + 1;
          if (idx >= 0 && (unsigned long long) idx <= n)
            a += s->interp[f][t] * s->lx[((size_t) idx & mask) * ch + c];
        }
        if (fabs(a) > peak)
          peak = fabs(a);
      }
    }
  }
  r = peak > s->ceiling ? s->ceiling / peak : 1.0;
  s->r[j & mask] = r;
  /* sliding minimum of r over [j - L, j] */
  while (s->dq_len > 0 && s->r[s->dq[(s->dq_head + s->dq_len - 1) & mask] & mask] >= r)
    s->dq_len--;
  s->dq[(s->dq_head + s->dq_len) & mask] = j;
  s->dq_len++;
  while (s->dq[s->dq_head & mask] + L < j) {
    s->dq_head++;
    s->dq_len--;
  }
  {
    double mn = s->r[s->dq[s->dq_head & mask] & mask];
    /* moving average of the minima over [j - L, j]: the gain of frame j - L */
    s->msum += mn - s->m[(j - L - 1) & mask];
    s->m[j & mask] = mn;
  }
  if (j < L)
    goto out_zero;
  g = s->msum / (double) (L + 1);
  s->gf = s->gf + (1.0 - s->gf) * s->release;
  if (g < s->gf)
    s->gf = g;
  for (size_t c = 0; c < ch; c++)
    y[c] = s->lx[((j - L) & mask) * ch + c] * s->gf;
  s->lim_last = 20.0 * log10(s->gf);
  return;
out_zero:
  for (size_t c = 0; c < ch; c++)
    y[c] = 0.0;
}

static void step(fx_loudnorm_t *s, const double *x, double *y)
{
  size_t B = s->block, ch = (size_t) s->ch;
  double *gp = s->gained;
  unsigned long long q;

  if (s->meter == NULL) { /* no loudness stage: the limiter alone */
    limit(s, x, y);
    return;
  }
  memcpy(s->hist + ((size_t) (s->k % HIST_BLOCKS) * B + (size_t) (s->n % B)) * ch, x,
         sizeof(double) * ch);
  s->n++;
  if (s->n % B == 0)
    end_block(s);
  if (s->n <= s->dg) {
    for (size_t c = 0; c < ch; c++)
      gp[c] = 0.0;
  } else {
    q = s->n - 1 - s->dg;
    memcpy(gp, s->gout + ((size_t) ((q / B) % 2) * B + (size_t) (q % B)) * ch, sizeof(double) * ch);
    s->g_last = s->g_prev;
  }
  limit(s, gp, y);
}

#define PROCESS(NAME, T_)                                                                          \
  size_t NAME(fx_loudnorm_t *s, const T_ *in, T_ *out, size_t frames)                              \
  {                                                                                                \
    size_t ch = (size_t) s->ch, bad = 0;                                                           \
    for (size_t i = 0; i < frames; i++) {                                                          \
      for (size_t c = 0; c < ch; c++) {                                                            \
        double v = (double) in[i * ch + c];                                                        \
        if (!isfinite(v)) {                                                                        \
          v = 0.0;                                                                                 \
          bad++;                                                                                   \
        }                                                                                          \
        s->xin[c] = v;                                                                             \
      }                                                                                            \
      step(s, s->xin, s->yout);                                                                    \
      for (size_t c = 0; c < ch; c++)                                                              \
        out[i * ch + c] = (T_) s->yout[c];                                                         \
    }                                                                                              \
    return bad;                                                                                    \
  }

PROCESS(fx_loudnorm_process_f32, float)
PROCESS(fx_loudnorm_process_f64, double)
