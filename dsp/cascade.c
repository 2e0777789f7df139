/* gst-fx — the SOS cascade engine. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Structure:
 *   - `cur` is the cascade that runs now (coefficients + per-channel TDF-II state).
 *   - `hist` holds, per channel and per section boundary s = 0..K of `cur`, the last two samples
 *     of the signal entering section s (s = K: the output). The kernels record it for free at the
 *     end of every block (see kernel.h).
 *   - When new coefficients arrive after audio has passed, the new cascade's state is derived from
 *     that history with the NEW coefficients, as a direct-form-I filter would switch:
 *         z2 = b2 x[n] - a2 y[n];   z1 = b1 x[n] - a1 y[n] + b2 x[n-1] - a2 y[n-1]
 *     where x is the section's input and y its output. When the section count changes, the
 *     history is remapped (input of section 0 and output of the last section are kept; inner
 *     boundaries come from the old boundary at the closest proportional index).
 *   - In addition the output crossfades linearly from the old cascade (`old`, which keeps running
 *     on the same input with its own copy of the state) to the new one over `xf_len` frames. The
 *     crossfade position persists across buffers. New coefficients arriving during a crossfade
 *     replace only the new path (DF-I transfer again); the old path and the weight ramp go on.
 *
 * Conventions decided here (beyond cascade.h):
 *   - "First call after configure()/reset() takes effect at once" is extended to: any
 *     set_sections() while no frame has been processed since configure()/reset() (or since a
 *     non-finite reset) switches at once, since there is no history to keep.
 *   - set_sections() with exactly the coefficients already running does nothing (no crossfade), so
 *     callers may re-send unchanged coefficients every buffer at no cost.
 *   - Coefficients survive configure() and reset(); only state, history and crossfade are cleared.
 *   - n == 0 with gain != 1 installs one gain-only section (b0 = gain), so the gain is honoured;
 *     fx_cascade_sections() then reports 1.
 *   - dispatches counts every fx_cascade_process() call that runs the kernel: a configured engine
 *     and frames > 0 (K == 0 included: the kernel still records the history). One per call,
 *     however many kernel invocations the crossfade needs internally.
 *   - FX_ERR_CAPACITY is also returned for an invalid channel count and for allocation failure
 *     (fx_status_t has no dedicated code); FX_ERR_TYPE for an unknown format or precision;
 *     FX_ERR_GAIN for a non-finite gain; FX_ERR_NONFINITE for non-finite coefficients.
 *   - Precision: F64 streams always run in double. For F32 streams FX_PRECISION_AUTO runs in
 *     double for now: that is always at least as accurate as scipy's float32 sosfilt and never
 *     unstable. SIMD kernels may refine AUTO to single precision where that is provably safe
 *     (e.g. well-damped poles, cutoffs far from 0 and Nyquist).
 *   - Scratch memory (for the crossfade's old path) is allocated in set_sections()/configure(),
 *     never in process(); it is grown only when needed.
 *   - Non-finite values: after each process() call the state and history (K*C values) are
 *     checked; if any is NaN/Inf, everything is reset and FX_PROCESS_NONFINITE is returned.
 *   - Not thread-safe: callers serialise access. */
#include "cascade.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

/* Frames of the old path filtered per kernel call during a crossfade (bounds the scratch). */
#define FX_XF_CHUNK 1024
#define FX_DEFAULT_CROSSFADE 256

typedef struct {
  int K;
  double *coef;     /* [K][5], double (exact design values, gain folded in) */
  float *coef_f;    /* [K][5], rounded to float for single precision */
  size_t coef_cap;  /* sections allocated for coef / coef_f */
  double *state;    /* [C][K][2], double arithmetic */
  float *state_f;   /* [C][K][2], single arithmetic */
  size_t state_cap; /* elements allocated for state / state_f */
} fx_path_t;

struct fx_cascade {
  int channels; /* 0 until configured */
  fx_sample_format_t format;
  fx_precision_t precision;
  int dbl; /* arithmetic is double */
  const fx_kernel_t *kernel;
  char backend[48];

  fx_path_t cur, old;
  double *hist; /* [C][cur.K + 1][2] */
  size_t hist_cap;

  int fresh; /* no frame processed since configure/reset: switch at once */

  size_t xf_default; /* crossfade length for the next change */
  int xf_active;
  size_t xf_len, xf_pos;

  void *scratch; /* old path's copy of the input: scratch_frames * channels * 8 bytes */
  size_t scratch_bytes;

  uint64_t dispatches;
};

/* ---------------------------------------------------------------------------------------------
 * Allocation helpers (never called from the per-sample path). */

static int grow(void **p, size_t *cap_elems, size_t need, size_t elem)
{
  if (need <= *cap_elems && *p)
    return 1;
  if (need == 0)
    need = 1;
  void *q = realloc(*p, need * elem);
  if (!q)
    return 0;
  *p = q;
  *cap_elems = need;
  return 1;
}

static int path_reserve(fx_path_t *p, int K, int channels)
{
  size_t cc = p->coef_cap;
  if ((size_t) K > cc || !p->coef || !p->coef_f) {
    size_t need = K > 0 ? (size_t) K * 5 : 5;
    double *d = realloc(p->coef, need * sizeof(double));
    if (!d)
      return 0;
    p->coef = d;
    float *f = realloc(p->coef_f, need * sizeof(float));
    if (!f)
      return 0;
    p->coef_f = f;
    p->coef_cap = K > 0 ? (size_t) K : 1;
  }
  size_t need = (size_t) K * 2 * (size_t) (channels > 0 ? channels : 0);
  if (need > p->state_cap || !p->state || !p->state_f) {
    size_t n = need ? need : 1;
    double *d = realloc(p->state, n * sizeof(double));
    if (!d)
      return 0;
    p->state = d;
    float *f = realloc(p->state_f, n * sizeof(float));
    if (!f)
      return 0;
    p->state_f = f;
    p->state_cap = n;
  }
  return 1;
}

static void path_free(fx_path_t *p)
{
  free(p->coef);
  free(p->coef_f);
  free(p->state);
  free(p->state_f);
  memset(p, 0, sizeof(*p));
}

static void path_zero_state(fx_path_t *p, int channels)
{
  size_t n = (size_t) p->K * 2 * (size_t) (channels > 0 ? channels : 0);
  if (n) {
    memset(p->state, 0, n * sizeof(double));
    memset(p->state_f, 0, n * sizeof(float));
  }
}

static void path_swap(fx_path_t *a, fx_path_t *b)
{
  fx_path_t t = *a;
  *a = *b;
  *b = t;
}

static size_t hist_len(int K, int channels)
{
  return ((size_t) K + 1) * 2 * (size_t) (channels > 0 ? channels : 0);
}

static void update_backend(fx_cascade_t *c)
{
  snprintf(c->backend, sizeof(c->backend), "cpu-%s-%s", c->kernel->name, c->dbl ? "f64" : "f32");
}

/* ---------------------------------------------------------------------------------------------
 * Life cycle */

fx_cascade_t *fx_cascade_new(void)
{
  fx_cascade_t *c = calloc(1, sizeof(*c));
  if (!c)
    return NULL;
  c->format = FX_SAMPLE_F32;
  c->precision = FX_PRECISION_AUTO;
  c->dbl = 1;
  c->kernel = fx_kernel_select();
  c->fresh = 1;
  c->xf_default = FX_DEFAULT_CROSSFADE;
  if (!path_reserve(&c->cur, 0, 0) || !path_reserve(&c->old, 0, 0)) {
    fx_cascade_free(c);
    return NULL;
  }
  update_backend(c);
  return c;
}

void fx_cascade_free(fx_cascade_t *c)
{
  if (!c)
    return;
  path_free(&c->cur);
  path_free(&c->old);
  free(c->hist);
  free(c->scratch);
  free(c);
}

static void clear_stream(fx_cascade_t *c)
{
  path_zero_state(&c->cur, c->channels);
  size_t hn = hist_len(c->cur.K, c->channels);
  if (hn && c->hist)
    memset(c->hist, 0, hn * sizeof(double));
  c->xf_active = 0;
  c->xf_pos = 0;
  c->xf_len = 0;
  c->old.K = 0;
  c->fresh = 1;
}

fx_status_t fx_cascade_configure(fx_cascade_t *c, int channels, fx_sample_format_t format,
                                 fx_precision_t precision)
{
  if (!c || channels < 1)
    return FX_ERR_CAPACITY;
  if (format != FX_SAMPLE_F32 && format != FX_SAMPLE_F64)
    return FX_ERR_TYPE;
  if (precision != FX_PRECISION_AUTO && precision != FX_PRECISION_SINGLE &&
      precision != FX_PRECISION_DOUBLE)
    return FX_ERR_TYPE;
  if (!path_reserve(&c->cur, c->cur.K, channels))
    return FX_ERR_CAPACITY;
  if (!grow((void **) &c->hist, &c->hist_cap, hist_len(c->cur.K, channels), sizeof(double)))
    return FX_ERR_CAPACITY;
  c->channels = channels;
  c->format = format;
  c->precision = precision;
  /* AUTO means double for now (see the header comment of this file). */
  c->dbl = format == FX_SAMPLE_F64 || precision != FX_PRECISION_SINGLE;
  update_backend(c);
  clear_stream(c);
  return FX_OK;
}

void fx_cascade_reset(fx_cascade_t *c)
{
  if (c)
    clear_stream(c);
}

void fx_cascade_set_crossfade(fx_cascade_t *c, size_t frames)
{
  if (c)
    c->xf_default = frames;
}

/* ---------------------------------------------------------------------------------------------
 * Coefficient changes */

static int is_finite5(const fx_sos_t *s)
{
  return isfinite(s->b0) && isfinite(s->b1) && isfinite(s->b2) && isfinite(s->a1) &&
         isfinite(s->a2);
}

/* Both poles strictly inside the unit circle (Jury conditions for 1 + a1 z^-1 + a2 z^-2). Local
 * so that the engine does not depend on the design module's behaviour. */
static int stable(const fx_sos_t *s)
{
  return fabs(s->a2) < 1.0 && fabs(s->a1) < 1.0 + s->a2;
}

/* Fills p's coefficients (K sections, gain folded into section 0). */
static void path_set_coefs(fx_path_t *p, const fx_sos_t *sos, int n, double gain)
{
  if (n == 0 && gain != 1.0) {
    p->K = 1;
    p->coef[0] = gain;
    p->coef[1] = p->coef[2] = p->coef[3] = p->coef[4] = 0.0;
  } else {
    p->K = n;
    for (int s = 0; s < n; s++) {
      double g = s == 0 ? gain : 1.0;
      double *d = p->coef + (size_t) s * 5;
      d[0] = sos[s].b0 * g;
      d[1] = sos[s].b1 * g;
      d[2] = sos[s].b2 * g;
      d[3] = sos[s].a1;
      d[4] = sos[s].a2;
    }
  }
  for (size_t i = 0; i < (size_t) p->K * 5; i++)
    p->coef_f[i] = (float) p->coef[i];
}

/* 1 when p already holds exactly these coefficients (as path_set_coefs would store them). */
static int same_coefs(const fx_path_t *p, const fx_sos_t *sos, int n, double gain)
{
  if (n == 0 && gain != 1.0) {
    const double *d = p->coef;
    return p->K == 1 && d[0] == gain && d[1] == 0.0 && d[2] == 0.0 && d[3] == 0.0 && d[4] == 0.0;
  }
  if (p->K != n)
    return 0;
  for (int s = 0; s < n; s++) {
    double g = s == 0 ? gain : 1.0;
    const double *d = p->coef + (size_t) s * 5;
    if (d[0] != sos[s].b0 * g || d[1] != sos[s].b1 * g || d[2] != sos[s].b2 * g ||
        d[3] != sos[s].a1 || d[4] != sos[s].a2)
      return 0;
  }
  return 1;
}

/* Old boundary feeding new boundary j when the section count goes from Ko to Kn. */
static int map_boundary(int j, int Ko, int Kn)
{
  if (j == 0)
    return 0;
  if (j == Kn)
    return Ko;
  /* closest proportional index, rounded half up */
  long num = (long) j * Ko * 2 + Kn;
  int o = (int) (num / (2L * Kn));
  if (o < 0)
    o = 0;
  if (o > Ko)
    o = Ko;
  return o;
}

/* Remaps c->hist (laid out for Ko sections) into `nh` (for p->K sections), then derives p's state
 * from it with p's coefficients (direct-form-I switch). In single precision the coefficients used
 * are the float ones (as the kernel will use them). */
static void transfer(const fx_cascade_t *c, int Ko, const double *oh, double *nh, fx_path_t *p)
{
  const int Kn = p->K;
  const size_t C = (size_t) c->channels;
  for (size_t ch = 0; ch < C; ch++) {
    const double *ho = oh + ch * ((size_t) Ko + 1) * 2;
    double *hn = nh + ch * ((size_t) Kn + 1) * 2;
    for (int j = 0; j <= Kn; j++) {
      int o = map_boundary(j, Ko, Kn);
      hn[2 * j] = ho[2 * o];
      hn[2 * j + 1] = ho[2 * o + 1];
    }
    for (int s = 0; s < Kn; s++) {
      double b1, b2, a1, a2;
      if (c->dbl) {
        const double *cs = p->coef + (size_t) s * 5;
        b1 = cs[1], b2 = cs[2], a1 = cs[3], a2 = cs[4];
      } else {
        const float *cs = p->coef_f + (size_t) s * 5;
        b1 = cs[1], b2 = cs[2], a1 = cs[3], a2 = cs[4];
      }
      const double x0 = hn[2 * s], x1 = hn[2 * s + 1];
      const double y0 = hn[2 * s + 2], y1 = hn[2 * s + 3];
      const double z2 = b2 * x0 - a2 * y0;
      const double z1 = b1 * x0 - a1 * y0 + b2 * x1 - a2 * y1;
      size_t k = (ch * (size_t) Kn + (size_t) s) * 2;
      if (c->dbl) {
        p->state[k] = z1;
        p->state[k + 1] = z2;
      } else {
        p->state_f[k] = (float) z1;
        p->state_f[k + 1] = (float) z2;
      }
    }
  }
}

fx_status_t fx_cascade_set_sections(fx_cascade_t *c, const fx_sos_t *sos, int n, double gain)
{
  if (!c || n < 0 || (n > 0 && !sos))
    return FX_ERR_CAPACITY;
  if (!isfinite(gain))
    return FX_ERR_GAIN;
  for (int s = 0; s < n; s++) {
    if (!is_finite5(&sos[s]))
      return FX_ERR_NONFINITE;
    if (!stable(&sos[s]))
      return FX_ERR_UNSTABLE;
  }
  /* The gain must not overflow the first numerator. */
  if (n > 0 &&
      (!isfinite(sos[0].b0 * gain) || !isfinite(sos[0].b1 * gain) || !isfinite(sos[0].b2 * gain)))
    return FX_ERR_GAIN;

  const int Kn = (n == 0 && gain != 1.0) ? 1 : n;
  const int C = c->channels;
  const int immediate = c->fresh || C == 0;

  if (immediate) {
    if (!path_reserve(&c->cur, Kn, C) ||
        !grow((void **) &c->hist, &c->hist_cap, hist_len(Kn, C), sizeof(double)))
      return FX_ERR_CAPACITY;
    path_set_coefs(&c->cur, sos, n, gain);
    clear_stream(c);
    return FX_OK;
  }

  /* Unchanged coefficients (e.g. a controller re-syncing constant values every buffer): nothing
   * to do, and no crossfade is started. */
  if (same_coefs(&c->cur, sos, n, gain))
    return FX_OK;

  /* Keep the history: prepare everything that can fail before touching the running state. */
  const int start_xf = !c->xf_active && c->xf_default > 0;
  fx_path_t *target = start_xf ? &c->old : &c->cur; /* buffers the new path will use */
  if (!path_reserve(target, Kn, C))
    return FX_ERR_CAPACITY;
  double *nh = malloc((hist_len(Kn, C) ? hist_len(Kn, C) : 1) * sizeof(double));
  if (!nh)
    return FX_ERR_CAPACITY;
  int do_xf = start_xf;
  if (do_xf) {
    size_t frames = c->xf_default < FX_XF_CHUNK ? c->xf_default : FX_XF_CHUNK;
    size_t bytes = frames * (size_t) C * sizeof(double);
    if (bytes > c->scratch_bytes) {
      void *s = realloc(c->scratch, bytes);
      if (s) {
        c->scratch = s;
        c->scratch_bytes = bytes;
      } else {
        do_xf = 0; /* no memory for a crossfade: switch at once (still without losing history) */
      }
    }
  }

  const int Ko = c->cur.K;
  if (do_xf) {
    /* cur becomes the old path (keeps its state); the new path reuses old's buffers. */
    path_swap(&c->cur, &c->old);
    c->xf_active = 1;
    c->xf_len = c->xf_default;
    c->xf_pos = 0;
  } else if (start_xf) {
    /* crossfade wanted but impossible: grow cur instead (old's buffers were reserved). */
    path_swap(&c->cur, &c->old);
    c->old.K = 0;
  }
  path_set_coefs(&c->cur, sos, n, gain);
  transfer(c, Ko, c->hist, nh, &c->cur);
  free(c->hist);
  c->hist = nh;
  c->hist_cap = hist_len(Kn, C) ? hist_len(Kn, C) : 1;
  return FX_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Processing */

static void run_path(const fx_cascade_t *c, fx_path_t *p, double *hist, void *data, size_t frames)
{
  const int C = c->channels;
  if (c->format == FX_SAMPLE_F64)
    c->kernel->f64(p->coef, p->state, hist, p->K, (double *) data, frames, C);
  else if (c->dbl)
    c->kernel->f32_d(p->coef, p->state, hist, p->K, (float *) data, frames, C);
  else
    c->kernel->f32_s(p->coef_f, p->state_f, hist, p->K, (float *) data, frames, C);
}

/* data = old + w (new - old), w = (pos + i + 1) / (len + 1) per frame. */
static void mix(const fx_cascade_t *c, void *data, const void *olddata, size_t frames)
{
  const size_t C = (size_t) c->channels;
  const double inv = 1.0 / ((double) c->xf_len + 1.0);
  if (c->format == FX_SAMPLE_F64) {
    double *d = data;
    const double *o = olddata;
    for (size_t i = 0; i < frames; i++) {
      const double w = (double) (c->xf_pos + i + 1) * inv;
      for (size_t ch = 0; ch < C; ch++) {
        const size_t k = i * C + ch;
        d[k] = o[k] + w * (d[k] - o[k]);
      }
    }
  } else {
    float *d = data;
    const float *o = olddata;
    for (size_t i = 0; i < frames; i++) {
      const double w = (double) (c->xf_pos + i + 1) * inv;
      for (size_t ch = 0; ch < C; ch++) {
        const size_t k = i * C + ch;
        d[k] = (float) ((double) o[k] + w * ((double) d[k] - (double) o[k]));
      }
    }
  }
}

static int all_finite(const fx_cascade_t *c)
{
  const size_t C = (size_t) c->channels;
  double acc = 0.0;
  /* x * 0 is 0 for finite x and NaN for NaN/Inf: one branch at the end. */
  size_t hn = hist_len(c->cur.K, c->channels);
  for (size_t i = 0; i < hn; i++)
    acc += c->hist[i] * 0.0;
  const fx_path_t *paths[2] = {&c->cur, c->xf_active ? &c->old : NULL};
  for (int k = 0; k < 2; k++) {
    const fx_path_t *p = paths[k];
    if (!p)
      continue;
    size_t n = (size_t) p->K * 2 * C;
    if (c->dbl) {
      for (size_t i = 0; i < n; i++)
        acc += p->state[i] * 0.0;
    } else {
      for (size_t i = 0; i < n; i++)
        acc += (double) p->state_f[i] * 0.0;
    }
  }
  return acc == 0.0;
}

unsigned fx_cascade_process(fx_cascade_t *c, void *data, size_t frames)
{
  if (!c || c->channels < 1 || frames == 0 || !data)
    return 0;
  const size_t C = (size_t) c->channels;
  const size_t ss = c->format == FX_SAMPLE_F64 ? sizeof(double) : sizeof(float);
  unsigned char *bytes = data;
  size_t done = 0;

  c->dispatches++;
  c->fresh = 0;

  while (c->xf_active && done < frames) {
    size_t n = frames - done;
    size_t left = c->xf_len - c->xf_pos;
    size_t cap = c->scratch_bytes / (C * sizeof(double));
    if (cap == 0) { /* cannot happen (scratch is sized with the crossfade); be safe */
      c->xf_active = 0;
      c->old.K = 0;
      break;
    }
    if (n > left)
      n = left;
    if (n > cap)
      n = cap;
    void *p = bytes + done * C * ss;
    memcpy(c->scratch, p, n * C * ss);
    run_path(c, &c->old, NULL, c->scratch, n);
    run_path(c, &c->cur, c->hist, p, n);
    mix(c, p, c->scratch, n);
    c->xf_pos += n;
    done += n;
    if (c->xf_pos >= c->xf_len) {
      c->xf_active = 0;
      c->old.K = 0;
    }
  }
  if (done < frames)
    run_path(c, &c->cur, c->hist, bytes + done * C * ss, frames - done);

  if (!all_finite(c)) {
    clear_stream(c);
    return FX_PROCESS_NONFINITE;
  }
  return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Queries */

int fx_cascade_channels(const fx_cascade_t *c)
{
  return c ? c->channels : 0;
}

int fx_cascade_sections(const fx_cascade_t *c)
{
  return c ? c->cur.K : 0;
}

uint64_t fx_cascade_dispatches(const fx_cascade_t *c)
{
  return c ? c->dispatches : 0;
}

void fx_cascade_reset_dispatches(fx_cascade_t *c)
{
  if (c)
    c->dispatches = 0;
}

const char *fx_cascade_backend(const fx_cascade_t *c)
{
  return c ? c->backend : "none";
}

int fx_cascade_uses_double(const fx_cascade_t *c)
{
  return c ? c->dbl : 0;
}
