/* gst-fx — Freeverb-topology reverb. Pure C11, no GLib. See reverb.h for the exact processing.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "reverb.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "finite.h"
#include "kernel_fpmode.h"
#include "ramp.h"

/* Jezar's tunings at 44.1 kHz. */
static const size_t comb_tuning[FX_REVERB_COMBS] = {1116, 1188, 1277, 1356, 1422, 1491, 1557, 1617};
static const size_t allpass_tuning[FX_REVERB_ALLPASSES] = {556, 441, 341, 225};
#define STEREO_SPREAD 23
#define FIXED_GAIN 0.015
#define SCALE_ROOM 0.28
#define OFFSET_ROOM 0.7
#define SCALE_DAMP 0.4
#define ALLPASS_FEEDBACK 0.5
#define BLOCK 256

typedef struct {
  double *buf;
  size_t len, idx;
} line_t;

typedef struct {
  line_t comb[FX_REVERB_COMBS];
  double store[FX_REVERB_COMBS];
  line_t allpass[FX_REVERB_ALLPASSES];
} bank_t;

struct fx_reverb {
  int channels;
  double rate;
  bank_t *banks; /* one per channel: even channels use the left tunings, odd ones the right */
  double *mem;
  size_t mem_len; /* doubles in mem */
  size_t ramp_len;
  int fresh;
  fx_ramp_t room, damp, mix, width;
  /* per-block scratch */
  double fb[BLOCK], d1[BLOCK], m[BLOCK], wd[BLOCK], in[BLOCK], acc[2][BLOCK];
};

size_t fx_reverb_scaled_length(size_t len_44k1, double rate)
{
  double v = floor((double) len_44k1 * rate / 44100.0 + 0.5);

  return v >= 1.0 ? (size_t) v : 1;
}

/* Doubles of state of one bank; 0 on overflow. */
static size_t bank_len(double rate, int right)
{
  size_t spread = right ? STEREO_SPREAD : 0, total = 0;

  if (!(rate > 0.0) || !isfinite(rate) || rate > 1e12)
    return 0;
  for (int k = 0; k < FX_REVERB_COMBS; k++)
    total += fx_reverb_scaled_length(comb_tuning[k] + spread, rate);
  for (int k = 0; k < FX_REVERB_ALLPASSES; k++)
    total += fx_reverb_scaled_length(allpass_tuning[k] + spread, rate);
  return total;
}

size_t fx_reverb_bytes(int channels, double rate)
{
  size_t l = bank_len(rate, 0), r = bank_len(rate, 1), per_pair, n;

  if (channels < 1 || l == 0)
    return 0;
  per_pair = l + r;
  n = (size_t) channels / 2;
  if (per_pair > SIZE_MAX / sizeof(double) / ((size_t) channels + 1))
    return 0;
  return (n * per_pair + ((size_t) channels % 2) * l) * sizeof(double) +
         (size_t) channels * sizeof(bank_t);
}

fx_reverb_t *fx_reverb_new(int channels, double rate)
{
  fx_reverb_t *r;
  size_t bytes = fx_reverb_bytes(channels, rate), off = 0;

  if (bytes == 0)
    return NULL;
  r = calloc(1, sizeof(*r));
  if (!r)
    return NULL;
  r->channels = channels;
  r->rate = rate;
  r->mem_len = (bytes - (size_t) channels * sizeof(bank_t)) / sizeof(double);
  r->mem = calloc(r->mem_len, sizeof(double));
  r->banks = calloc((size_t) channels, sizeof(bank_t));
  if (!r->mem || !r->banks) {
    fx_reverb_free(r);
    return NULL;
  }
  for (int c = 0; c < channels; c++) {
    bank_t *b = &r->banks[c];
    size_t spread = (c % 2) ? STEREO_SPREAD : 0;
    for (int k = 0; k < FX_REVERB_COMBS; k++) {
      b->comb[k].len = fx_reverb_scaled_length(comb_tuning[k] + spread, rate);
      b->comb[k].buf = r->mem + off;
      off += b->comb[k].len;
    }
    for (int k = 0; k < FX_REVERB_ALLPASSES; k++) {
      b->allpass[k].len = fx_reverb_scaled_length(allpass_tuning[k] + spread, rate);
      b->allpass[k].buf = r->mem + off;
      off += b->allpass[k].len;
    }
  }
  r->ramp_len = (size_t) fmax(1.0, floor(FX_REVERB_RAMP_S * rate + 0.5));
  r->fresh = 1; /* the state is zero from calloc */
  return r;
}

void fx_reverb_free(fx_reverb_t *r)
{
  if (!r)
    return;
  free(r->mem);
  free(r->banks);
  free(r);
}

void fx_reverb_reset(fx_reverb_t *r)
{
  memset(r->mem, 0, r->mem_len * sizeof(double));
  for (int c = 0; c < r->channels; c++) {
    bank_t *b = &r->banks[c];
    for (int k = 0; k < FX_REVERB_COMBS; k++) {
      b->comb[k].idx = 0;
      b->store[k] = 0.0;
    }
    for (int k = 0; k < FX_REVERB_ALLPASSES; k++)
      b->allpass[k].idx = 0;
  }
  r->fresh = 1;
}

static double clamp01(double v)
{
  return v > 1.0 ? 1.0 : (v >= 0.0 ? v : 0.0);
}

void fx_reverb_set(fx_reverb_t *r, double room_size, double damping, double mix, double width)
{
  room_size = clamp01(room_size);
  damping = clamp01(damping);
  mix = clamp01(mix);
  width = clamp01(width);
  if (r->fresh) {
    fx_ramp_jump(&r->room, room_size);
    fx_ramp_jump(&r->damp, damping);
    fx_ramp_jump(&r->mix, mix);
    fx_ramp_jump(&r->width, width);
    r->fresh = 0;
    return;
  }
  fx_ramp_set(&r->room, room_size, r->ramp_len);
  fx_ramp_set(&r->damp, damping, r->ramp_len);
  fx_ramp_set(&r->mix, mix, r->ramp_len);
  fx_ramp_set(&r->width, width, r->ramp_len);
}

/* The combs of nb banks (1 or 2, fed the same input) over n frames of r->in, summed per bank
 * into acc[b]. All combs advance together sample by sample, so that their independent
 * recursions overlap (one comb alone would be bound by the latency of its damping filter); the
 * frames go in runs in which no comb's index wraps. */
static void run_combs(fx_reverb_t *r, bank_t **banks, int nb, size_t n)
{
  const double *in = r->in, *fb = r->fb, *d1 = r->d1;
  size_t j = 0;

  while (j < n) {
    size_t run = n - j;
    double *p[2][FX_REVERB_COMBS];
    double s[2][FX_REVERB_COMBS];

    for (int b = 0; b < nb; b++)
      for (int k = 0; k < FX_REVERB_COMBS; k++) {
        line_t *l = &banks[b]->comb[k];
        if (run > l->len - l->idx)
          run = l->len - l->idx;
        p[b][k] = l->buf + l->idx;
        s[b][k] = banks[b]->store[k];
      }
    for (int b = 0; b < nb; b++) {
      double *acc = r->acc[b] + j;
      const double *u = in + j, *g = fb + j, *dd = d1 + j;
      double s0 = s[b][0], s1 = s[b][1], s2 = s[b][2], s3 = s[b][3];
      double s4 = s[b][4], s5 = s[b][5], s6 = s[b][6], s7 = s[b][7];
      double *p0 = p[b][0], *p1 = p[b][1], *p2 = p[b][2], *p3 = p[b][3];
      double *p4 = p[b][4], *p5 = p[b][5], *p6 = p[b][6], *p7 = p[b][7];
      for (size_t t = 0; t < run; t++) {
        double damp1 = dd[t], damp2 = 1.0 - damp1, fbt = g[t], ut = u[t], o, sum;
#define FX_COMB(P, S)                                                                              \
  o = P[t];                                                                                        \
  S = o * damp2 + S * damp1;                                                                       \
  P[t] = ut + S * fbt;
        FX_COMB(p0, s0)
        sum = o;
        FX_COMB(p1, s1)
        sum += o;
        FX_COMB(p2, s2)
        sum += o;
        FX_COMB(p3, s3)
        sum += o;
        FX_COMB(p4, s4)
        sum += o;
        FX_COMB(p5, s5)
        sum += o;
        FX_COMB(p6, s6)
        sum += o;
        FX_COMB(p7, s7)
        sum += o;
#undef FX_COMB
        acc[t] = sum;
      }
      s[b][0] = s0, s[b][1] = s1, s[b][2] = s2, s[b][3] = s3;
      s[b][4] = s4, s[b][5] = s5, s[b][6] = s6, s[b][7] = s7;
    }
    for (int b = 0; b < nb; b++)
      for (int k = 0; k < FX_REVERB_COMBS; k++) {
        line_t *l = &banks[b]->comb[k];
        banks[b]->store[k] = s[b][k];
        l->idx += run;
        if (l->idx == l->len)
          l->idx = 0;
      }
    j += run;
  }
}

/* The all-passes of one bank, in place over acc: one all-pass after the other over the block
 * (they are in series), each in runs in which its index does not wrap. */
static void run_allpasses(bank_t *b, double *acc, size_t n)
{
  for (int k = 0; k < FX_REVERB_ALLPASSES; k++) {
    line_t *l = &b->allpass[k];
    size_t j = 0;
    while (j < n) {
      size_t run = n - j;
      double *buf = l->buf + l->idx, *a = acc + j;
      if (run > l->len - l->idx)
        run = l->len - l->idx;
      for (size_t t = 0; t < run; t++) {
        double v = buf[t], x = a[t];
        a[t] = v - x;
        buf[t] = x + ALLPASS_FEEDBACK * v;
      }
      l->idx += run;
      if (l->idx == l->len)
        l->idx = 0;
      j += run;
    }
  }
}

#define FX_REVERB_PROCESS(NAME, T, ZERO)                                                           \
  int NAME(fx_reverb_t *r, T *data, size_t frames)                                                 \
  {                                                                                                \
    const int C = r->channels;                                                                     \
    double bad = 0.0;                                                                              \
    fx_fpmode_t fpm;                                                                               \
    /* NaN/Inf become 0 before the combs see them (one bad sample costs one sample) */             \
    const int bad_in = ZERO(data, frames * (size_t) C) > 0;                                        \
                                                                                                   \
    if (r->fresh)                                                                                  \
      fx_reverb_set(r, 0.5, 0.5, 0.0, 1.0);                                                        \
    fpmode_enter(&fpm);                                                                            \
    for (size_t start = 0; start < frames; start += BLOCK) {                                       \
      size_t n = frames - start < BLOCK ? frames - start : BLOCK;                                  \
      T *blk = data + start * (size_t) C;                                                          \
      for (size_t j = 0; j < n; j++) {                                                             \
        r->fb[j] = OFFSET_ROOM + SCALE_ROOM * fx_ramp_next(&r->room);                              \
        r->d1[j] = SCALE_DAMP * fx_ramp_next(&r->damp);                                            \
        r->m[j] = fx_ramp_next(&r->mix);                                                           \
        r->wd[j] = fx_ramp_next(&r->width);                                                        \
      }                                                                                            \
      for (int c = 0; c < C; c += 2) {                                                             \
        T *x = blk + c;                                                                            \
        if (c + 1 < C) {                                                                           \
          for (size_t j = 0; j < n; j++) {                                                         \
            r->in[j] = ((double) x[j * C] + (double) x[j * C + 1]) * FIXED_GAIN;                   \
            bad += r->in[j] * 0.0;                                                                 \
          }                                                                                        \
          bank_t *pair[2] = {&r->banks[c], &r->banks[c + 1]};                                      \
          run_combs(r, pair, 2, n);                                                                \
          run_allpasses(pair[0], r->acc[0], n);                                                    \
          run_allpasses(pair[1], r->acc[1], n);                                                    \
          for (size_t j = 0; j < n; j++) {                                                         \
            double m = r->m[j], w1 = 0.5 * (1.0 + r->wd[j]), w2 = 0.5 * (1.0 - r->wd[j]);          \
            double wl = r->acc[0][j], wr = r->acc[1][j];                                           \
            x[j * C] = (T) ((1.0 - m) * (double) x[j * C] + m * (wl * w1 + wr * w2));              \
            x[j * C + 1] = (T) ((1.0 - m) * (double) x[j * C + 1] + m * (wr * w1 + wl * w2));      \
          }                                                                                        \
        } else {                                                                                   \
          for (size_t j = 0; j < n; j++) {                                                         \
            r->in[j] = 2.0 * (double) x[j * C] * FIXED_GAIN;                                       \
            bad += r->in[j] * 0.0;                                                                 \
          }                                                                                        \
          bank_t *one[1] = {&r->banks[c]};                                                         \
          run_combs(r, one, 1, n);                                                                 \
          run_allpasses(one[0], r->acc[0], n);                                                     \
          for (size_t j = 0; j < n; j++)                                                           \
            x[j * C] = (T) ((1.0 - r->m[j]) * (double) x[j * C] + r->m[j] * r->acc[0][j]);         \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    fpmode_leave(&fpm);                                                                            \
    if (isnan(bad)) {                                                                              \
      int fresh = r->fresh;                                                                        \
      fx_reverb_reset(r);                                                                          \
      r->fresh = fresh;                                                                            \
      return 1;                                                                                    \
    }                                                                                              \
    return bad_in;                                                                                 \
  }

FX_REVERB_PROCESS(fx_reverb_process_f32, float, fx_zero_nonfinite_f32)
FX_REVERB_PROCESS(fx_reverb_process_f64, double, fx_zero_nonfinite_f64)

double fx_reverb_tail_bound(const fx_reverb_t *r)
{
  double m = 0.0;

  for (size_t i = 0; i < r->mem_len; i++)
    m = fmax(m, fabs(r->mem[i]));
  for (int c = 0; c < r->channels; c++)
    for (int k = 0; k < FX_REVERB_COMBS; k++)
      m = fmax(m, fabs(r->banks[c].store[k]));
  /* The combs never grow their content with silent input (|fb| < 1, damping is a convex mix), so
   * each comb output stays <= m and their sum <= 8 m. An all-pass fed with |x| <= a whose buffer
   * holds <= B keeps its buffer <= max(B, 2a) and outputs <= a + max(B, 2a): 8m -> 24m -> 72m ->
   * 216m -> 648m. The wet mix is a convex combination scaled by mix <= 1. */
  return 648.0 * m;
}
