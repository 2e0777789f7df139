/* gst-fx — FIR design (scipy.signal.firwin) and the streaming convolution engine. Pure C11.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "fir.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

#include "kernel.h"
#include "kernel_fpmode.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

const char *fx_fir_status_string(fx_status_t st)
{
  switch (st) {
  case FX_ERR_LOWER:
    return "lower-frequency out of range";
  case FX_ERR_UPPER:
    return "upper-frequency out of range";
  case FX_ERR_BAND:
    return "lower-frequency must be below upper-frequency";
  case FX_ERR_TYPE:
    return "unknown mode";
  case FX_ERR_NONFINITE:
    return "a tap is not finite";
  case FX_ERR_CHANNELS:
    return "channel count or format mismatch";
  default:
    return fx_status_string(st);
  }
}

/* ------------------------------------------------------------------------------------------- */
/* design */

static int in_open_band(double f, double nyq)
{
  return isfinite(f) && f > 0.0 && f < nyq;
}

fx_status_t fx_fir_spec_check(const fx_fir_spec_t *s)
{
  double nyq;

  if (!s)
    return FX_ERR_TYPE;
  if (s->num_taps < 1 || s->num_taps > FX_FIR_MAX_TAPS)
    return FX_ERR_TAPS;
  if (!isfinite(s->rate) || s->rate <= 0.0)
    return FX_ERR_RATE;
  nyq = 0.5 * s->rate;
  switch (s->mode) {
  case FX_MODE_LOW_PASS:
  case FX_MODE_HIGH_PASS:
    if (!in_open_band(s->cutoff, nyq))
      return FX_ERR_CUTOFF;
    break;
  case FX_MODE_BAND_PASS:
  case FX_MODE_BAND_REJECT:
    if (!in_open_band(s->lower, nyq))
      return FX_ERR_LOWER;
    if (!in_open_band(s->upper, nyq))
      return FX_ERR_UPPER;
    if (!(s->lower < s->upper))
      return FX_ERR_BAND;
    break;
  default:
    return FX_ERR_TYPE;
  }
  /* firwin: a filter that passes Nyquist needs a type I (odd-length) kernel. */
  if ((s->mode == FX_MODE_HIGH_PASS || s->mode == FX_MODE_BAND_REJECT) && s->num_taps % 2 == 0)
    return FX_ERR_EVEN_TAPS;
  if ((unsigned) s->window > FX_FIR_WINDOW_RECTANGULAR)
    return FX_ERR_WINDOW;
  if (s->window == FX_FIR_WINDOW_KAISER &&
      !(isfinite(s->beta) && s->beta >= 0.0 && s->beta <= FX_FIR_MAX_BETA))
    return FX_ERR_BETA;
  return FX_OK;
}

double fx_fir_bessel_i0(double x)
{
  /* Power series sum_k ((x/2)^k / k!)^2: every term is positive, so it converges to full double
   * precision for the |x| <= FX_FIR_MAX_BETA used here. */
  double q = 0.25 * x * x, term = 1.0, sum = 1.0;

  for (int k = 1; k < 1000; k++) {
    term *= q / ((double) k * (double) k);
    sum += term;
    if (term < sum * 1e-17)
      break;
  }
  return sum;
}

/* numpy.linspace(-pi, pi, n)[i], computed as numpy does. */
static double linspace_pi(size_t i, size_t n)
{
  double step = (2.0 * M_PI) / (double) (n - 1);

  if (i == n - 1)
    return M_PI;
  return (double) i * step + (-M_PI);
}

fx_status_t fx_fir_window(fx_fir_window_t window, double beta, size_t n, double *out)
{
  double a[3] = {0, 0, 0};
  int na = 0;

  if (n < 1 || !out)
    return FX_ERR_TAPS;
  if (n == 1 || window == FX_FIR_WINDOW_RECTANGULAR) {
    if ((unsigned) window > FX_FIR_WINDOW_RECTANGULAR)
      return FX_ERR_WINDOW;
    for (size_t i = 0; i < n; i++)
      out[i] = 1.0;
    return FX_OK;
  }
  switch (window) {
  case FX_FIR_WINDOW_HAMMING:
    a[0] = 0.54, a[1] = 1.0 - 0.54, na = 2;
    break;
  case FX_FIR_WINDOW_HANN:
    a[0] = 0.5, a[1] = 1.0 - 0.5, na = 2;
    break;
  case FX_FIR_WINDOW_BLACKMAN:
    a[0] = 0.42, a[1] = 0.50, a[2] = 0.08, na = 3;
    break;
  case FX_FIR_WINDOW_KAISER: {
    double alpha = 0.5 * (double) (n - 1), i0b;
    if (!(isfinite(beta) && beta >= 0.0 && beta <= FX_FIR_MAX_BETA))
      return FX_ERR_BETA;
    i0b = fx_fir_bessel_i0(beta);
    for (size_t i = 0; i < n; i++) {
      double r = ((double) i - alpha) / alpha;
      double t = 1.0 - r * r;
      out[i] = fx_fir_bessel_i0(beta * sqrt(t > 0.0 ? t : 0.0)) / i0b;
    }
    return FX_OK;
  }
  default:
    return FX_ERR_WINDOW;
  }
  /* scipy.signal.windows.general_cosine: sum_k a_k cos(k * linspace(-pi, pi, n)). */
  for (size_t i = 0; i < n; i++) {
    double fac = linspace_pi(i, n), w = 0.0;
    for (int k = 0; k < na; k++)
      w += a[k] * cos((double) k * fac);
    out[i] = w;
  }
  return FX_OK;
}

/* numpy.sinc */
static double np_sinc(double x)
{
  double y = M_PI * (x == 0.0 ? 1.0e-20 : x);
  return sin(y) / y;
}

fx_status_t fx_fir_design(const fx_fir_spec_t *s, double *taps)
{
  fx_status_t st = fx_fir_spec_check(s);
  double nyq, edges[4], alpha, scale_f, sum;
  int ne = 0;
  size_t n;

  if (st != FX_OK)
    return st;
  if (!taps)
    return FX_ERR_TAPS;
  n = s->num_taps;
  nyq = 0.5 * s->rate;
  switch (s->mode) {
  case FX_MODE_LOW_PASS: /* pass_zero=True, [fc] */
    edges[ne++] = 0.0, edges[ne++] = s->cutoff / nyq;
    break;
  case FX_MODE_HIGH_PASS: /* pass_zero=False, [fc]: passes Nyquist */
    edges[ne++] = s->cutoff / nyq, edges[ne++] = 1.0;
    break;
  case FX_MODE_BAND_PASS: /* pass_zero=False, [lo, hi] */
    edges[ne++] = s->lower / nyq, edges[ne++] = s->upper / nyq;
    break;
  default: /* band-reject: pass_zero=True, [lo, hi]: passes Nyquist */
    edges[ne++] = 0.0, edges[ne++] = s->lower / nyq;
    edges[ne++] = s->upper / nyq, edges[ne++] = 1.0;
    break;
  }
  alpha = 0.5 * (double) (n - 1);
  for (size_t i = 0; i < n; i++) {
    double m = (double) i - alpha, h = 0.0;
    for (int b = 0; b < ne; b += 2) {
      double left = edges[b], right = edges[b + 1];
      h += right * np_sinc(right * m);
      h -= left * np_sinc(left * m);
    }
    taps[i] = h;
  }
  {
    double *w = malloc(n * sizeof *w);
    if (!w)
      return FX_ERR_NOMEM;
    st = fx_fir_window(s->window, s->beta, n, w);
    if (st != FX_OK) {
      free(w);
      return st;
    }
    for (size_t i = 0; i < n; i++)
      taps[i] *= w[i];
    free(w);
  }
  /* scale=True: unit gain at 0 (first band starts at 0), at Nyquist (first band ends at 1) or
   * at the centre of the first pass band. */
  if (edges[0] == 0.0)
    scale_f = 0.0;
  else if (edges[1] == 1.0)
    scale_f = 1.0;
  else
    scale_f = 0.5 * (edges[0] + edges[1]);
  sum = 0.0;
  for (size_t i = 0; i < n; i++)
    sum += taps[i] * cos(M_PI * ((double) i - alpha) * scale_f);
  if (!(isfinite(sum) && sum != 0.0))
    return FX_ERR_SCALE;
  for (size_t i = 0; i < n; i++)
    taps[i] /= sum;
  return FX_OK;
}

fx_status_t fx_fir_check_taps(const double *taps, size_t n)
{
  if (n < 1 || n > FX_FIR_MAX_TAPS || !taps)
    return FX_ERR_TAPS;
  for (size_t i = 0; i < n; i++)
    if (!isfinite(taps[i]))
      return FX_ERR_NONFINITE;
  return FX_OK;
}

/* ------------------------------------------------------------------------------------------- */
/* FFT plans */

/* Stride (in elements) of arrays carved from one allocation: multiples of 64 bytes keep the
 * alignment fftw_malloc gives the first one. */
static size_t round_elems(size_t n, size_t elem)
{
  size_t per = 64 / elem;
  return (n + per - 1) / per * per;
}

/* FFTW's planner is not thread-safe: every planner call goes through plan_lock. Plans are
 * cached per (precision, size, flags) for the life of the process and executed with the
 * new-array interface (thread-safe), so engines share them and never destroy them. */
typedef struct {
  int is_f64, measure;
  size_t n;
  void *fwd, *bwd;
} fir_plan_t;

#define FIR_MAX_PLANS 128
static pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;
static fir_plan_t plan_cache[FIR_MAX_PLANS];
static int plan_count;

/* For real transforms of n points: complex forward and backward plans of n / 2 points, out of
 * place, that transform one channel's block read as n / 2 complex values; the kernels'
 * r2c_post / c2r_pre turn that into the real transform (see fir_engine_impl.h). FFTW's new-array
 * execute needs the planning arrays' alignment: every array the engine passes is fftw_malloc'd or a
 * 64-byte multiple into one. */
static const fir_plan_t *get_plans(int is_f64, size_t n, int measure)
{
  const fir_plan_t *found = NULL;
  unsigned flags = (measure ? FFTW_MEASURE : FFTW_ESTIMATE);
  int nc = (int) (n / 2);

  pthread_mutex_lock(&plan_lock);
  for (int i = 0; i < plan_count; i++)
    if (plan_cache[i].is_f64 == is_f64 && plan_cache[i].n == n &&
        plan_cache[i].measure == measure) {
      found = &plan_cache[i];
      break;
    }
  if (!found && plan_count < FIR_MAX_PLANS) {
    fir_plan_t p = {is_f64, measure, n, NULL, NULL};
    if (is_f64) {
      fftw_complex *a = fftw_malloc((size_t) nc * sizeof *a);
      fftw_complex *b = fftw_malloc((size_t) nc * sizeof *b);
      if (a && b) {
        p.fwd = fftw_plan_dft_1d(nc, a, b, FFTW_FORWARD, flags);
        p.bwd = fftw_plan_dft_1d(nc, a, b, FFTW_BACKWARD, flags);
      }
      fftw_free(a), fftw_free(b);
      if (!(p.fwd && p.bwd)) {
        if (p.fwd)
          fftw_destroy_plan(p.fwd);
        if (p.bwd)
          fftw_destroy_plan(p.bwd);
        p.fwd = p.bwd = NULL;
      }
    } else {
      fftwf_complex *a = fftwf_malloc((size_t) nc * sizeof *a);
      fftwf_complex *b = fftwf_malloc((size_t) nc * sizeof *b);
      if (a && b) {
        p.fwd = fftwf_plan_dft_1d(nc, a, b, FFTW_FORWARD, flags);
        p.bwd = fftwf_plan_dft_1d(nc, a, b, FFTW_BACKWARD, flags);
      }
      fftwf_free(a), fftwf_free(b);
      if (!(p.fwd && p.bwd)) {
        if (p.fwd)
          fftwf_destroy_plan(p.fwd);
        if (p.bwd)
          fftwf_destroy_plan(p.bwd);
        p.fwd = p.bwd = NULL;
      }
    }
    if (p.fwd) {
      plan_cache[plan_count] = p;
      found = &plan_cache[plan_count++];
    }
  }
  pthread_mutex_unlock(&plan_lock);
  return found;
}

#define FIR_CHUNK 1024 /* frames per inner pass of the direct part */

/* ------------------------------------------------------------------------------------------- */
/* engine, templated over the sample type */

typedef struct fir_engine_ops {
  void (*process)(void *impl, const void *in, void *out, size_t frames);
  void (*reset)(void *impl);
  void (*destroy)(void *impl);
} fir_engine_ops_t;

struct fx_fir_engine {
  int channels, is_f64, levels;
  size_t taps, latency;
  char method[48];
  const fir_engine_ops_t *ops;
  void *impl;
};

#define FIR_T double
#define FIR_SUF f64
#define FIR_FFTW(x) fftw_##x
#include "fir_engine_impl.h"
#undef FIR_T
#undef FIR_SUF
#undef FIR_FFTW

#define FIR_T float
#define FIR_SUF f32
#define FIR_FFTW(x) fftwf_##x
#include "fir_engine_impl.h"
#undef FIR_T
#undef FIR_SUF
#undef FIR_FFTW

fx_fir_engine_t *fx_fir_engine_new(const double *taps, size_t n, int channels, int is_f64,
                                   const fx_fir_options_t *opt, fx_status_t *status)
{
  fx_fir_options_t o = {FX_FIR_METHOD_AUTO, 0, 0, 0, 0, -1, 0};
  size_t lat = 0;
  fx_status_t st = fx_fir_check_taps(taps, n);
  fx_fir_engine_t *e = NULL;
  int partitioned;
  const fx_fir_kernels_t *k = fx_isa_select()->fir; /* kernel.h: the FX_KERNEL rule */

  if (opt)
    o = *opt;
  if (!o.crossover)
    o.crossover = is_f64 ? FX_FIR_DEFAULT_CROSSOVER_F64 : FX_FIR_DEFAULT_CROSSOVER_F32;
  if (!o.head)
    o.head = FX_FIR_DEFAULT_HEAD;
  if (!o.factor)
    o.factor = FX_FIR_DEFAULT_FACTOR;
  if (!o.max_block)
    o.max_block = FX_FIR_DEFAULT_MAX_BLOCK;
  if (o.fftw_measure < 0) {
    /* FFTW_MEASURE plans a size in 0.2-2 s here (every new size would stall the first
     * negotiation for seconds) and gains little over FFTW_ESTIMATE at the sizes used (measured
     * in bench/results/fir.md); FX_FIR_FFTW_MEASURE=1 asks for it. */
    const char *m = getenv("FX_FIR_FFTW_MEASURE");
    o.fftw_measure = m && atoi(m) > 0;
  }
  if (st == FX_OK && channels < 1)
    st = FX_ERR_CHANNELS;
  if (st == FX_OK) {
    /* sizes must be powers of two, head <= max_block */
    if ((o.head & (o.head - 1)) || (o.factor & (o.factor - 1)) || o.factor < 2 ||
        (o.max_block & (o.max_block - 1)) || o.max_block < o.head || o.head < 1)
      st = FX_ERR_TAPS;
  }
  if (st == FX_OK) {
    /* A latency budget: a power-of-two block within it, at least 64 frames: the block that
     * measured fastest for the length (a quarter of the kernel rounded up to a power of two,
     * kept within 1024..2048: fewer, larger FFTs for short kernels, a few partitions for long
     * ones), or the largest within the budget when that is smaller. */
    if (o.latency >= 64) {
      size_t ideal = 1;
      while (ideal < n)
        ideal *= 2;
      ideal /= 4;
      ideal = ideal < 1024 ? 1024 : ideal > 2048 ? 2048 : ideal;
      lat = 64;
      while (lat * 2 <= o.latency && lat * 2 <= ideal && lat < FX_FIR_MAX_LATENCY)
        lat *= 2;
    }
    partitioned = o.method == FX_FIR_METHOD_PARTITIONED ||
                  (o.method == FX_FIR_METHOD_AUTO &&
                   n > (lat ? FX_FIR_DEFAULT_CROSSOVER_LATENCY : o.crossover));
    if (n <= o.head && !(lat && o.method == FX_FIR_METHOD_PARTITIONED))
      partitioned = 0;
    if (!partitioned)
      lat = 0;
    e = calloc(1, sizeof *e);
    if (!e)
      st = FX_ERR_NOMEM;
  }
  if (e) {
    e->channels = channels;
    e->is_f64 = is_f64 ? 1 : 0;
    e->taps = n;
    if (is_f64)
      st = fir_engine_init_f64(e, taps, n, channels, partitioned, lat, &o, k);
    else
      st = fir_engine_init_f32(e, taps, n, channels, partitioned, lat, &o, k);
    if (st != FX_OK) {
      free(e);
      e = NULL;
    } else {
      snprintf(e->method, sizeof e->method, "%s-%s", e->levels ? "partitioned" : "direct", k->name);
    }
  }
  if (status)
    *status = st;
  return e;
}

void fx_fir_engine_free(fx_fir_engine_t *e)
{
  if (!e)
    return;
  e->ops->destroy(e->impl);
  free(e);
}

void fx_fir_engine_reset(fx_fir_engine_t *e)
{
  if (e)
    e->ops->reset(e->impl);
}

void fx_fir_engine_process(fx_fir_engine_t *e, const void *in, void *out, size_t frames)
{
  fx_fpmode_t m;

  if (!e || frames == 0)
    return;
  fpmode_enter(&m);
  e->ops->process(e->impl, in, out, frames);
  fpmode_leave(&m);
}

size_t fx_fir_engine_taps(const fx_fir_engine_t *e)
{
  return e ? e->taps : 0;
}

size_t fx_fir_engine_latency(const fx_fir_engine_t *e)
{
  return e ? e->latency : 0;
}

const char *fx_fir_engine_method(const fx_fir_engine_t *e)
{
  return e ? e->method : "none";
}

/* The exponent bits all set means Inf or NaN; OR-ing the test over fixed-size blocks lets the
 * compiler vectorize the scan (integer operations, no reassociation needed). */
int fx_fir_has_nonfinite(const void *samples, size_t n, int is_f64)
{
  const unsigned char *p = samples;
  size_t i = 0;

  if (is_f64) {
    const uint64_t mask = 0x7ff0000000000000ull;
    for (; i + 64 <= n; i += 64) {
      uint64_t bits[64];
      int bad = 0;
      memcpy(bits, p + i * 8, sizeof bits);
      for (int k = 0; k < 64; k++)
        bad |= (bits[k] & mask) == mask;
      if (bad)
        return 1;
    }
    for (; i < n; i++) {
      uint64_t b;
      memcpy(&b, p + i * 8, 8);
      if ((b & mask) == mask)
        return 1;
    }
  } else {
    const uint32_t mask = 0x7f800000u;
    for (; i + 64 <= n; i += 64) {
      uint32_t bits[64];
      int bad = 0;
      memcpy(bits, p + i * 4, sizeof bits);
      for (int k = 0; k < 64; k++)
        bad |= (bits[k] & mask) == mask;
      if (bad)
        return 1;
    }
    for (; i < n; i++) {
      uint32_t b;
      memcpy(&b, p + i * 4, 4);
      if ((b & mask) == mask)
        return 1;
    }
  }
  return 0;
}

/* ------------------------------------------------------------------------------------------- */
/* stream: crossfaded kernel changes */

#define FIR_STREAM_SCRATCH 1024 /* frames */

struct fx_fir_stream {
  int channels, is_f64;
  size_t bpf; /* bytes per frame */
  size_t fade_frames, fade_pos;
  fx_fir_engine_t *cur, *next, *pending;
  unsigned long switches;
  /* ring of the last hist_cap input frames (to prime a new engine) */
  unsigned char *hist;
  size_t hist_cap, hist_len, hist_w;
  unsigned char *s_old, *s_new;
};

fx_fir_stream_t *fx_fir_stream_new(int channels, int is_f64, size_t fade_frames)
{
  fx_fir_stream_t *s;

  if (channels < 1)
    return NULL;
  s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  s->channels = channels;
  s->is_f64 = is_f64 ? 1 : 0;
  s->bpf = (size_t) channels * (is_f64 ? sizeof(double) : sizeof(float));
  s->fade_frames = fade_frames ? fade_frames : 1;
  s->s_old = malloc(FIR_STREAM_SCRATCH * s->bpf);
  s->s_new = malloc(FIR_STREAM_SCRATCH * s->bpf);
  if (!s->s_old || !s->s_new) {
    fx_fir_stream_free(s);
    return NULL;
  }
  return s;
}

void fx_fir_stream_free(fx_fir_stream_t *s)
{
  if (!s)
    return;
  fx_fir_engine_free(s->cur);
  fx_fir_engine_free(s->next);
  fx_fir_engine_free(s->pending);
  free(s->hist);
  free(s->s_old);
  free(s->s_new);
  free(s);
}

/* Makes room for the last `frames` input frames, keeping what is there (oldest dropped). */
static int hist_reserve(fx_fir_stream_t *s, size_t frames)
{
  unsigned char *h;
  size_t keep;

  if (frames <= s->hist_cap)
    return 1;
  h = malloc(frames * s->bpf);
  if (!h)
    return 0;
  /* linearise: oldest first */
  keep = s->hist_len;
  for (size_t i = 0; i < keep; i++) {
    size_t src = (s->hist_w + s->hist_cap - keep + i) % s->hist_cap;
    memcpy(h + i * s->bpf, s->hist + src * s->bpf, s->bpf);
  }
  free(s->hist);
  s->hist = h;
  s->hist_cap = frames;
  s->hist_w = keep % frames;
  return 1;
}

static void hist_push(fx_fir_stream_t *s, const unsigned char *in, size_t frames)
{
  size_t cap = s->hist_cap;

  if (cap == 0)
    return;
  if (frames >= cap) {
    memcpy(s->hist, in + (frames - cap) * s->bpf, cap * s->bpf);
    s->hist_w = 0;
    s->hist_len = cap;
    return;
  }
  while (frames > 0) {
    size_t n = cap - s->hist_w;
    if (n > frames)
      n = frames;
    memcpy(s->hist + s->hist_w * s->bpf, in, n * s->bpf);
    s->hist_w = (s->hist_w + n) % cap;
    in += n * s->bpf;
    frames -= n;
    s->hist_len = s->hist_len + n > cap ? cap : s->hist_len + n;
  }
}

/* Runs e over the last taps-1 frames of history (output discarded), so that it continues the
 * stream as if it had run all along (up to the history kept). */
static void prime(fx_fir_stream_t *s, fx_fir_engine_t *e)
{
  size_t want = e->taps - 1, n = s->hist_len < want ? s->hist_len : want;
  size_t start = (s->hist_w + s->hist_cap - n) % (s->hist_cap ? s->hist_cap : 1);

  fx_fir_engine_reset(e);
  while (n > 0) {
    size_t run = s->hist_cap - start;
    if (run > n)
      run = n;
    if (run > FIR_STREAM_SCRATCH)
      run = FIR_STREAM_SCRATCH;
    fx_fir_engine_process(e, s->hist + start * s->bpf, s->s_new, run);
    start = (start + run) % s->hist_cap;
    n -= run;
  }
}

#define FIR_HIST_SAMPLES ((size_t) 1 << 20)

static size_t hist_floor(const fx_fir_stream_t *s, size_t frames)
{
  size_t floor_frames = FIR_HIST_SAMPLES / (size_t) s->channels;
  if (floor_frames > 16384)
    floor_frames = 16384;
  return frames > floor_frames ? frames : floor_frames;
}

fx_status_t fx_fir_stream_set_engine(fx_fir_stream_t *s, fx_fir_engine_t *e, int immediate)
{
  if (!s || !e)
    return FX_ERR_CHANNELS;
  if (e->channels != s->channels || e->is_f64 != s->is_f64) {
    fx_fir_engine_free(e);
    return FX_ERR_CHANNELS;
  }
  /* The history kept is at least taps - 1 frames of the largest engine so far, and at least
   * FIR_HIST_SAMPLES samples (up to 16384 frames), so that a kernel that grows also starts with
   * its full history (a longer one lacks the oldest part until it has run that long). */
  if (!hist_reserve(s, hist_floor(s, e->taps - 1))) {
    fx_fir_engine_free(e);
    return FX_ERR_NOMEM;
  }
  if (!s->cur || immediate) {
    prime(s, e);
    fx_fir_engine_free(s->cur);
    fx_fir_engine_free(s->next);
    fx_fir_engine_free(s->pending);
    s->next = s->pending = NULL;
    s->cur = e;
    s->switches++;
    return FX_OK;
  }
  /* queued: primed when its fade starts (the history is then up to date) */
  fx_fir_engine_free(s->pending);
  s->pending = e;
  return FX_OK;
}

void fx_fir_stream_reset(fx_fir_stream_t *s)
{
  if (!s)
    return;
  if (s->next) {
    fx_fir_engine_free(s->cur);
    s->cur = s->next;
    s->next = NULL;
    s->switches++;
  }
  if (s->pending) {
    fx_fir_engine_free(s->cur);
    s->cur = s->pending;
    s->pending = NULL;
    s->switches++;
  }
  fx_fir_engine_reset(s->cur);
  s->hist_len = 0;
  s->hist_w = 0;
  s->fade_pos = 0;
}

#define FIR_DEFINE_MIX(SUF, T)                                                                     \
  static void mix_##SUF(T *out, const T *a, const T *b, size_t frames, size_t C, size_t pos,       \
                        size_t len)                                                                \
  {                                                                                                \
    for (size_t i = 0; i < frames; i++) {                                                          \
      T w = (T) ((double) (pos + i + 1) / (double) len);                                           \
      for (size_t c = 0; c < C; c++) {                                                             \
        size_t k = i * C + c;                                                                      \
        out[k] = a[k] + (b[k] - a[k]) * w;                                                         \
      }                                                                                            \
    }                                                                                              \
  }
FIR_DEFINE_MIX(f32, float)
FIR_DEFINE_MIX(f64, double)

fx_status_t fx_fir_stream_process(fx_fir_stream_t *s, const void *vin, void *vout, size_t frames)
{
  const unsigned char *in = vin;
  unsigned char *out = vout;

  if (!s->cur) {
    memset(out, 0, frames * s->bpf);
    return FX_ERR_NOMEM;
  }
  while (frames > 0) {
    size_t n;
    if (!s->next && s->pending) {
      prime(s, s->pending);
      s->next = s->pending;
      s->pending = NULL;
      s->fade_pos = 0;
    }
    if (!s->next) {
      hist_push(s, in, frames);
      fx_fir_engine_process(s->cur, in, out, frames);
      return FX_OK;
    }
    n = s->fade_frames - s->fade_pos;
    if (n > frames)
      n = frames;
    if (n > FIR_STREAM_SCRATCH)
      n = FIR_STREAM_SCRATCH;
    hist_push(s, in, n);
    fx_fir_engine_process(s->cur, in, s->s_old, n);
    fx_fir_engine_process(s->next, in, s->s_new, n);
    if (s->is_f64)
      mix_f64((double *) (void *) out, (const double *) (void *) s->s_old,
              (const double *) (void *) s->s_new, n, (size_t) s->channels, s->fade_pos,
              s->fade_frames);
    else
      mix_f32((float *) (void *) out, (const float *) (void *) s->s_old,
              (const float *) (void *) s->s_new, n, (size_t) s->channels, s->fade_pos,
              s->fade_frames);
    s->fade_pos += n;
    if (s->fade_pos >= s->fade_frames) {
      fx_fir_engine_free(s->cur);
      s->cur = s->next;
      s->next = NULL;
      s->fade_pos = 0;
      s->switches++;
    }
    in += n * s->bpf;
    out += n * s->bpf;
    frames -= n;
  }
  return FX_OK;
}

const fx_fir_engine_t *fx_fir_stream_engine(const fx_fir_stream_t *s)
{
  if (!s)
    return NULL;
  return s->next ? s->next : s->cur;
}

unsigned long fx_fir_stream_switches(const fx_fir_stream_t *s)
{
  return s ? s->switches : 0;
}

int fx_fir_stream_fading(const fx_fir_stream_t *s)
{
  return s && s->next ? 1 : 0;
}
