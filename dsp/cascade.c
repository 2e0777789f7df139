/* gst-fx — the SOS cascade engine. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Structure:
 *   - `cur` is the cascade that runs now (coefficients + per-channel TDF-II state).
 *   - `hist` holds, per channel and per section boundary s = 0..K of `cur`, the last two samples
 *     of the signal entering section s (s = K: the output). The kernels record it for free at the
 *     end of every block (see kernel.h).
 *   - Every cascade is installed balanced (see "Section balancing" below): each section's
 *     numerator is scaled by a power of two so that the signals between sections have
 *     comparable, signal-level scales whatever the design (scipy-style designs put the whole
 *     gain, 1e-23 and less at low cutoffs, in the first section). The scaling is exact, so the
 *     output is bit-identical to the unbalanced cascade's.
 *   - `ring` holds the last FX_RING input frames (stream format), written at the start of every
 *     process() call.
 *   - When new coefficients arrive after audio has passed, the new cascade needs a state:
 *       - Same section count and no pole moving by more than FX_WARM_THRESHOLD times its
 *         bandwidth (controller ramps): the history is brought to the new balancing (inner
 *         boundaries meet at signal level) and the state is derived from it with the NEW
 *         coefficients, as a direct-form-I filter would switch:
 *             z2 = b2 x[n] - a2 y[n];   z1 = b1 x[n] - a1 y[n] + b2 x[n-1] - a2 y[n-1]
 *         where x is the section's input and y its output. No extra filtering.
 *       - A new section count or a large jump (the history of the old inner boundaries says
 *         little about the new cascade's): warm-up. The new cascade runs over the last input
 *         frames from the ring, as many as its slowest pole needs to decay by FX_WARM_DECAY (at
 *         most FX_RING), starting from the steady state for a constant input equal to the
 *         window's first frame (or from the zero state at the start of the stream, exactly,
 *         when the whole stream since the reset is in the ring). Its state then reflects the
 *         actual recent input, and its history is recorded by the kernel as usual. The cost is
 *         that many frames of extra filtering per change (fx_cascade_warm_frames()), paid in
 *         set_sections(), never in process().
 *   - In addition the output crossfades linearly from the old cascade (`old`, which keeps running
 *     on the same input with its own copy of the state) to the new one over `xf_len` frames. The
 *     crossfade position persists across buffers. New coefficients arriving during a crossfade
 *     replace only the new path (DF-I transfer or warm-up again); the old path and the weight
 *     ramp go on.
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
 *   - Scratch memory (for the crossfade's old path and for warm-ups) and the ring are allocated
 *     in set_sections()/configure(), never in process(); they are grown only when needed.
 *   - The warm-up depends only on the input (the ring) and the coefficients, so the output stays
 *     independent of how the stream is split into buffers, changes included.
 *   - Non-finite values: after each process() call the state and history (K*C values) are
 *     checked; if any is NaN/Inf, everything is reset and FX_PROCESS_NONFINITE is returned.
 *   - Not thread-safe: callers serialise access. */
#include "cascade.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Frames of the old path filtered per kernel call during a crossfade (bounds the scratch). */
#define FX_XF_CHUNK 1024
#define FX_DEFAULT_CROSSFADE 256
/* Input frames kept per channel for warm-ups. */
#define FX_RING 4096
/* A warm-up runs until the slowest pole of the new cascade has decayed by this factor (or over
 * the whole ring). */
#ifndef FX_WARM_DECAY
#define FX_WARM_DECAY 1e-3
#endif
/* Same section count: when a pole moves by more than this many times its distance from the unit
 * circle (its bandwidth), the new state comes from a warm-up instead of the direct-form-I
 * transfer. Controller ramps measured (linear in Hz, 256-frame steps, 15 kHz <-> 40 Hz over
 * 0.6 s, orders 8 and 16) stay below 6; jumps such as 15 kHz -> 1 kHz score 50 and more. */
#ifndef FX_WARM_THRESHOLD
#define FX_WARM_THRESHOLD 10.0
#endif

typedef struct {
  int K;
  double *coef;     /* [K][5], double (design values, gain folded in, balanced) */
  float *coef_f;    /* [K][5], rounded to float for single precision */
  double *ex;       /* [K + 1]: balancing residual of each section boundary (see balance()) */
  size_t coef_cap;  /* sections allocated for coef / coef_f / ex */
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

  /* The last FX_RING frames of input (stream format, interleaved), for warming a new cascade up
   * on the recent signal. ring_pos: next frame written; ring_total: frames since the stream
   * (re)started, saturating at FX_RING + 1. */
  void *ring;
  size_t ring_bytes, ring_pos, ring_total;
  void *warm; /* scratch for a warm-up: FX_RING * channels * 8 bytes, allocated on first use */
  size_t warm_bytes;
  uint64_t warm_frames; /* frames filtered by warm-ups (statistics) */

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
  if ((size_t) K > cc || !p->coef || !p->coef_f || !p->ex) {
    size_t need = K > 0 ? (size_t) K * 5 : 5;
    double *e = realloc(p->ex, (need / 5 + 1) * sizeof(double));
    if (!e)
      return 0;
    p->ex = e;
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
  free(p->ex);
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
  free(c->ring);
  free(c->warm);
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
  c->ring_pos = 0;
  c->ring_total = 0;
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
  const size_t ss = format == FX_SAMPLE_F64 ? sizeof(double) : sizeof(float);
  if (!grow(&c->ring, &c->ring_bytes, (size_t) FX_RING * (size_t) channels * ss, 1))
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

static void run_path(const fx_cascade_t *c, fx_path_t *p, double *hist, void *data, size_t frames);

/* ---------------------------------------------------------------------------------------------
 * Section balancing
 *
 * Designs in scipy's form put the whole gain in the first section (1e-23 and less at low
 * cutoffs) and leave the later sections with huge DC gains, so the signals between sections
 * have design-dependent scales many orders of magnitude apart. That ruins the direct-form-I
 * state transfer between two designs, and float coefficients may even underflow. So every
 * cascade is installed balanced: section s's numerator is multiplied by 2^e_s, with
 * sum(e_s) == 0, chosen so that each section's peak gain is close to the K-th root of the product
 * of all section peaks (the cumulative scale after each section is the power of two nearest the
 * ideal one). Multiplying by powers of two is exact, and every operation of a section is linear,
 * so every intermediate signal is scaled exactly: the output is bit-identical to the unbalanced
 * cascade's (short of overflow/underflow, which the balancing avoids rather than causes). */

/* |H(e^jw)| of one section [b0 b1 b2 a1 a2]. */
static double sec_mag(const double *d, double w)
{
  const double c1 = cos(w), s1 = sin(w), c2 = cos(2.0 * w), s2 = sin(2.0 * w);
  const double nr = d[0] + d[1] * c1 + d[2] * c2, ni = d[1] * s1 + d[2] * s2;
  const double dr = 1.0 + d[3] * c1 + d[4] * c2, di = d[3] * s1 + d[4] * s2;
  return sqrt((nr * nr + ni * ni) / (dr * dr + di * di));
}

/* Angle of a section's complex pole pair, or -1 for real poles. */
static double pole_angle(const double *d)
{
  if (d[4] <= 0.0 || d[3] * d[3] >= 4.0 * d[4])
    return -1.0;
  double c = -d[3] / (2.0 * sqrt(d[4]));
  return acos(c < -1.0 ? -1.0 : (c > 1.0 ? 1.0 : c));
}

#define FX_PEAK_GRID 16
/* Sections balanced at most (the designs produce at most FX_DESIGN_MAX_SECTIONS). */
#define FX_BALANCE_MAX 256

/* Estimated peak magnitude response: DC, Nyquist, the pole angle and a small grid. */
static double sec_peak(const double *d)
{
  double p = fmax(sec_mag(d, 0.0), sec_mag(d, M_PI));
  double th = pole_angle(d);
  if (th >= 0.0)
    p = fmax(p, sec_mag(d, th));
  for (int i = 0; i < FX_PEAK_GRID; i++)
    p = fmax(p, sec_mag(d, M_PI * ((double) i + 0.5) / FX_PEAK_GRID));
  return p;
}

/* Balances K sections in place (see above); leaves them as they are when that is impossible.
 * res[0..K] receives, for each section boundary s, log2 of the ratio of the scale applied (a power
 * of two) to the ideal one (|res| <= 1/2; 0 at the input and output): the transfer between two
 * cascades rescales the history by 2^(res_new - res_old), so that an exponent that flips between
 * two nearly equal designs does not disturb the history, while the boundary signals of two very
 * different designs meet at signal level. */
static void balance(double *coef, int K, double *res)
{
  int ex[FX_BALANCE_MAX + 1];
  for (int s = 0; s <= K; s++)
    res[s] = 0.0;
  if (K < 2 || K > FX_BALANCE_MAX)
    return;
  for (int s = 0; s <= K; s++)
    ex[s] = 0;
  double lsum = 0.0;
  for (int s = 0; s < K; s++) {
    double p = sec_peak(coef + 5 * (size_t) s);
    if (!(p > 0.0) || !isfinite(p))
      return;
    lsum += log2(p);
  }
  const double mean = lsum / K;
  double cum = 0.0;
  for (int s = 0; s < K - 1; s++) {
    cum += mean - log2(sec_peak(coef + 5 * (size_t) s));
    if (!(fabs(cum) < 900.0)) { /* absurd scales: leave the cascade as it is */
      for (int j = 0; j <= K; j++)
        res[j] = 0.0;
      return;
    }
    ex[s + 1] = (int) lround(cum);
    res[s + 1] = (double) ex[s + 1] - cum;
  }
  /* every scaling must be exact (no overflow, nothing near the subnormal range) */
  for (int s = 0; s < K; s++) {
    const int e = ex[s + 1] - ex[s];
    for (int k = 0; k < 3; k++) {
      const double d = coef[5 * (size_t) s + (size_t) k], v = ldexp(d, e);
      if (d != 0.0 && (!isfinite(v) || fabs(v) < 0x1p-900 || fabs(v) > 0x1p900)) {
        for (int j = 0; j <= K; j++)
          res[j] = 0.0;
        return;
      }
    }
  }
  for (int s = 0; s < K; s++)
    for (int k = 0; k < 3; k++)
      coef[5 * (size_t) s + (size_t) k] =
          ldexp(coef[5 * (size_t) s + (size_t) k], ex[s + 1] - ex[s]);
}

/* Builds the coefficients that would be installed (K sections, gain folded into section 0,
 * balanced) into out[K][5]. */
static int build_coefs(const fx_sos_t *sos, int n, double gain, double *out, double *ex)
{
  if (n == 0 && gain != 1.0) {
    out[0] = gain;
    out[1] = out[2] = out[3] = out[4] = 0.0;
    ex[0] = ex[1] = 0.0;
    return 1;
  }
  for (int s = 0; s < n; s++) {
    double g = s == 0 ? gain : 1.0;
    double *d = out + (size_t) s * 5;
    d[0] = sos[s].b0 * g;
    d[1] = sos[s].b1 * g;
    d[2] = sos[s].b2 * g;
    d[3] = sos[s].a1;
    d[4] = sos[s].a2;
  }
  balance(out, n, ex);
  return n;
}

/* Installs K built sections into p. */
static void path_install(fx_path_t *p, const double *coef, const double *ex, int K)
{
  p->K = K;
  memcpy(p->ex, ex, ((size_t) K + 1) * sizeof(double));
  if (K > 0)
    memcpy(p->coef, coef, (size_t) K * 5 * sizeof(double));
  for (size_t i = 0; i < (size_t) K * 5; i++)
    p->coef_f[i] = (float) p->coef[i];
}

/* Poles of a section: the one with non-negative imaginary part, or both real ones. */
static void sec_poles(const double *d, double *re, double *im, int *n)
{
  const double disc = d[3] * d[3] - 4.0 * d[4];
  if (disc < 0.0) {
    re[0] = -d[3] / 2.0;
    im[0] = sqrt(-disc) / 2.0;
    *n = 1;
  } else {
    const double q = sqrt(disc);
    re[0] = (-d[3] + q) / 2.0;
    re[1] = (-d[3] - q) / 2.0;
    im[0] = im[1] = 0.0;
    *n = 2;
  }
}

/* Largest pole movement between two cascades of K sections, relative to the poles' distance from
 * the unit circle (a pole moving by its own bandwidth scores about 1). */
static double pole_distance(const double *a, const double *b, int K)
{
  double worst = 0.0;
  for (int s = 0; s < K; s++) {
    double ar[2], ai[2], br[2], bi[2];
    int na, nb;
    sec_poles(a + 5 * (size_t) s, ar, ai, &na);
    sec_poles(b + 5 * (size_t) s, br, bi, &nb);
    for (int i = 0; i < na; i++) {
      double best = INFINITY;
      for (int j = 0; j < nb; j++) {
        double m = fmax(hypot(ar[i], ai[i]), hypot(br[j], bi[j]));
        best = fmin(best, hypot(ar[i] - br[j], ai[i] - bi[j]) / fmax(1.0 - m, 1e-12));
      }
      worst = fmax(worst, best);
    }
  }
  return worst;
}

/* Derives p's state from the boundary history `h` (laid out for p->K sections) with p's
 * coefficients, as a direct-form-I filter would switch. In single precision the coefficients
 * used are the float ones (as the kernel will use them). */
static void transfer(const fx_cascade_t *c, const double *h, fx_path_t *p)
{
  const int K = p->K;
  const size_t C = (size_t) c->channels;
  for (size_t ch = 0; ch < C; ch++) {
    const double *hn = h + ch * ((size_t) K + 1) * 2;
    for (int s = 0; s < K; s++) {
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
      size_t k = (ch * (size_t) K + (size_t) s) * 2;
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

/* ---------------------------------------------------------------------------------------------
 * Warm-up: the new cascade runs over the recent input (the ring), so that its state reflects the
 * actual signal whatever the old cascade looked like. */

static size_t ring_fill(const fx_cascade_t *c)
{
  return c->ring_total < FX_RING ? c->ring_total : FX_RING;
}

/* Appends frames of input to the ring (before they are filtered in place). */
static void ring_push(fx_cascade_t *c, const void *data, size_t frames)
{
  const size_t ss = c->format == FX_SAMPLE_F64 ? sizeof(double) : sizeof(float);
  const size_t fb = (size_t) c->channels * ss; /* bytes per frame */
  const unsigned char *src = data;
  if (frames >= FX_RING) {
    memcpy(c->ring, src + (frames - FX_RING) * fb, FX_RING * fb);
    c->ring_pos = 0;
  } else {
    size_t first = FX_RING - c->ring_pos;
    if (first > frames)
      first = frames;
    memcpy((unsigned char *) c->ring + c->ring_pos * fb, src, first * fb);
    if (frames > first)
      memcpy(c->ring, src + first * fb, (frames - first) * fb);
    c->ring_pos = (c->ring_pos + frames) % FX_RING;
  }
  c->ring_total = c->ring_total + frames > FX_RING ? FX_RING + 1 : c->ring_total + frames;
}

/* Frames a warm-up needs for p: until its slowest pole decays by FX_WARM_DECAY, at most FX_RING. */
static size_t warm_need(const fx_path_t *p)
{
  double rmax = 0.0;
  for (int s = 0; s < p->K; s++) {
    const double *d = p->coef + 5 * (size_t) s;
    double r;
    if (d[3] * d[3] < 4.0 * d[4]) {
      r = sqrt(d[4]);
    } else {
      double q = sqrt(d[3] * d[3] - 4.0 * d[4]);
      r = fmax(fabs(-d[3] + q), fabs(-d[3] - q)) / 2.0;
    }
    rmax = fmax(rmax, r);
  }
  if (rmax <= 0.0)
    return 2;
  double n = rmax < 1.0 ? ceil(log(FX_WARM_DECAY) / log(rmax)) : (double) FX_RING;
  if (n > FX_RING)
    n = FX_RING;
  return n < 2 ? 2 : (size_t) n;
}

/* Sets p's state (and the boundary history `h`, laid out for p->K sections) by running p over
 * the last frames of input. When the whole stream since the reset is in the ring, it starts from
 * the zero state at the start of the stream (exactly the state p would have had all along);
 * otherwise from the steady state for a constant input equal to the window's first frame.
 * Returns 0 when the scratch memory is missing (nothing changed). */
static int warm_up(fx_cascade_t *c, fx_path_t *p, double *h)
{
  const size_t C = (size_t) c->channels;
  const size_t ss = c->format == FX_SAMPLE_F64 ? sizeof(double) : sizeof(float);
  const size_t fb = C * ss;
  const size_t fill = ring_fill(c);
  size_t n = warm_need(p);
  const int whole = c->ring_total <= FX_RING && n >= fill;
  if (n > fill)
    n = fill;
  if (!grow(&c->warm, &c->warm_bytes, (size_t) FX_RING * fb, 1))
    return 0;
  /* the window, oldest frame first */
  size_t start = (c->ring_pos + FX_RING - n) % FX_RING;
  size_t first = FX_RING - start < n ? FX_RING - start : n;
  memcpy(c->warm, (unsigned char *) c->ring + start * fb, first * fb);
  if (n > first)
    memcpy((unsigned char *) c->warm + first * fb, c->ring, (n - first) * fb);

  path_zero_state(p, c->channels);
  memset(h, 0, hist_len(p->K, c->channels) * sizeof(double));
  if (!whole && n > 0) {
    for (size_t ch = 0; ch < C; ch++) {
      double u = c->format == FX_SAMPLE_F64 ? ((const double *) c->warm)[ch]
                                            : (double) ((const float *) c->warm)[ch];
      double *hn = h + ch * ((size_t) p->K + 1) * 2;
      hn[0] = hn[1] = u;
      for (int s = 0; s < p->K; s++) {
        const double *d = p->coef + 5 * (size_t) s;
        double g = (d[0] + d[1] + d[2]) / (1.0 + d[3] + d[4]);
        double v = g * u;
        hn[2 * s + 2] = hn[2 * s + 3] = v;
        u = v;
      }
    }
    transfer(c, h, p);
  }
  if (n > 0)
    run_path(c, p, h, c->warm, n);
  c->warm_frames += n;
  return 1;
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
  double *nc = malloc(((size_t) Kn * 5 + 5) * sizeof(double));
  double *ne = malloc(((size_t) Kn + 2) * sizeof(double));
  if (!nc || !ne) {
    free(nc);
    free(ne);
    return FX_ERR_CAPACITY;
  }
  build_coefs(sos, n, gain, nc, ne);

  if (immediate) {
    if (!path_reserve(&c->cur, Kn, C) ||
        !grow((void **) &c->hist, &c->hist_cap, hist_len(Kn, C), sizeof(double))) {
      free(nc);
      free(ne);
      return FX_ERR_CAPACITY;
    }
    path_install(&c->cur, nc, ne, Kn);
    free(nc);
    free(ne);
    clear_stream(c);
    return FX_OK;
  }

  /* Unchanged coefficients (e.g. a controller re-syncing constant values every buffer): nothing
   * to do, and no crossfade is started. */
  const int Ko = c->cur.K;
  if (Ko == Kn) {
    int same = 1;
    for (size_t i = 0; i < (size_t) Kn * 5 && same; i++)
      same = c->cur.coef[i] == nc[i];
    if (same) {
      free(nc);
      free(ne);
      return FX_OK;
    }
  }

  /* A new section count, or a change too large for the direct-form-I transfer: warm the new
   * cascade up on the recent input instead. */
  const int warm = Ko != Kn || pole_distance(c->cur.coef, nc, Kn) > FX_WARM_THRESHOLD;

  /* Keep the history: prepare everything that can fail before touching the running state. */
  const int start_xf = !c->xf_active && c->xf_default > 0;
  fx_path_t *target = start_xf ? &c->old : &c->cur; /* buffers the new path will use */
  const size_t ss = c->format == FX_SAMPLE_F64 ? sizeof(double) : sizeof(float);
  double *nh = NULL;
  if (!path_reserve(target, Kn, C) ||
      (warm && !grow(&c->warm, &c->warm_bytes, (size_t) FX_RING * (size_t) C * ss, 1)) ||
      (warm && !(nh = malloc((hist_len(Kn, C) ? hist_len(Kn, C) : 1) * sizeof(double))))) {
    free(nc);
    free(ne);
    return FX_ERR_CAPACITY;
  }
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

  if (!warm) {
    /* Bring the history's inner boundary signals to the new balancing scale (see balance()). */
    for (int j = 1; j < Kn; j++) {
      if (fabs(ne[j] - c->cur.ex[j]) < 1e-9) /* same balancing: keep the history exact */
        continue;
      const double g = exp2(ne[j] - c->cur.ex[j]);
      for (size_t ch = 0; ch < (size_t) C; ch++) {
        double *h = c->hist + (ch * ((size_t) Kn + 1) + (size_t) j) * 2;
        h[0] *= g;
        h[1] *= g;
      }
    }
  }

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
  path_install(&c->cur, nc, ne, Kn);
  free(nc);
  free(ne);
  if (warm) {
    warm_up(c, &c->cur, nh);
    free(c->hist);
    c->hist = nh;
    c->hist_cap = hist_len(Kn, C) ? hist_len(Kn, C) : 1;
  } else {
    transfer(c, c->hist, &c->cur);
  }
  return FX_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Processing */

static void run_path(const fx_cascade_t *c, fx_path_t *p, double *hist, void *data, size_t frames)
{
  const int C = c->channels;
  if (c->format == FX_SAMPLE_F64)
    c->kernel->f64(p->coef, p->state, hist, p->K, p->K, (double *) data, frames, C);
  else if (c->dbl)
    c->kernel->f32_d(p->coef, p->state, hist, p->K, p->K, (float *) data, frames, C);
  else
    c->kernel->f32_s(p->coef_f, p->state_f, hist, p->K, p->K, (float *) data, frames, C);
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
  ring_push(c, data, frames);

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
  if (c) {
    c->dispatches = 0;
    c->warm_frames = 0;
  }
}

uint64_t fx_cascade_warm_frames(const fx_cascade_t *c)
{
  return c ? c->warm_frames : 0;
}

const char *fx_cascade_backend(const fx_cascade_t *c)
{
  return c ? c->backend : "none";
}

int fx_cascade_uses_double(const fx_cascade_t *c)
{
  return c ? c->dbl : 0;
}
