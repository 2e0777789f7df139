/* gst-fx — the SOS cascade engine: the arithmetic of an F32 stream under FX_PRECISION_AUTO.
 * Pure C11, no GLib. SPDX-License-Identifier: GPL-3.0-or-later
 *
 * At design time (fx_cascade_set_stages()), a fixed probe measures the error of the float path this
 * cascade would run (the chunked float kernel for one or two channels, the sequential one
 * otherwise) and of scipy-style float32 sosfilt (sequential float TDF-II, no FMA, on the caller's
 * sections with the gains folded in, rounded to float), both against the engine's double
 * arithmetic on the same input; single precision runs when its error is no larger than scipy's,
 * double otherwise (docs/cascade.md, "Precision"). The decision is kept while the poles stay near
 * the probed ones, so that automation does not probe every buffer. A change of arithmetic while
 * streaming converts the stored numbers in place (they are allocated at sizeof(double)). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cascade_impl.h"

/* Probe length (frames, one channel). The error of float arithmetic behind poles near z = 1 is a
 * slow wander with few independent values per second: shorter probes (16384 frames) misjudged
 * a 20 Hz high-pass by 3 dB either way. */
#define FX_PROBE_FRAMES 65536
/* Shorter where the slowest pole is fast: at least this many, and 256 time constants. */
#define FX_PROBE_MIN_FRAMES 16384
/* Single must beat scipy's float32 on the probe by a margin (dB): a design on the edge runs in
 * double, so that a signal other than the probe does not find single below scipy. The errors
 * behind a pole near the unit circle wander with its time constant tau, so the probe holds only
 * about FX_PROBE_FRAMES / tau independent values of them and its SER estimates scatter by a few
 * dB where tau is long (a pole at radius 0.99986: 4.9 dB better on the probe, 1.7 dB worse on
 * another noise): the margin grows with sqrt(tau / frames). Where tau is short the estimate is
 * tight and a small constant suffices (docs/cascade.md, "Precision", for the designs it was
 * checked on). */
#define FX_PROBE_MARGIN_DB 0.5
#define FX_PROBE_MARGIN_TAU_DB 20.0
/* The chunked double path runs under AUTO where its probe SER against the sequential double
 * arithmetic reaches the bar the project holds double to on F32 streams (dB). */
#define FX_PROBE_CK_DOUBLE_DB 140.0
/* Probe again once a pole has moved by this many times its distance from the unit circle. */
#define FX_PROBE_MOVE 0.5

/* Signal-to-error ratio (dB) of y against ref. */
static double ser_db(const double *ref, const float *y, size_t n)
{
  double s = 0.0, e = 0.0;
  for (size_t i = 0; i < n; i++) {
    const double d = (double) y[i] - ref[i];
    s += ref[i] * ref[i];
    e += d * d;
  }
  if (!isfinite(e) || !isfinite(s))
    return -INFINITY;
  if (e == 0.0)
    return INFINITY;
  return 10.0 * log10(s / e);
}

/* The probe: uniform white noise in [-0.5, 0.5) from a fixed xorshift sequence. */
static void probe_input(float *x, size_t n)
{
  uint64_t r = 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < n; i++) {
    r ^= r << 13;
    r ^= r >> 7;
    r ^= r << 17;
    x[i] = (float) ((double) (r >> 40) * (1.0 / 16777216.0) - 0.5);
  }
}

/* scipy's float32 sosfilt (its C loop's order of operations, float arithmetic, no FMA, and the
 * caller's floating-point mode: denormals are not flushed, as scipy does not flush them) over x
 * in place, K sections coef[K][5] (b0, b1, b2, a1, a2) rounded to float. */
static void scipy_sosfilt_f32(const double *coef, int K, float *x, size_t n, float *z)
{
  for (int k = 0; k < 2 * K; k++)
    z[k] = 0.0f;
  for (size_t i = 0; i < n; i++) {
    float v = x[i];
    for (int k = 0; k < K; k++) {
      const double *c = coef + 5 * (size_t) k;
      const float b0 = (float) c[0], b1 = (float) c[1], b2 = (float) c[2];
      const float a1 = (float) c[3], a2 = (float) c[4];
      const float y = b0 * v + z[2 * k];
      z[2 * k] = b1 * v - a1 * y + z[2 * k + 1];
      z[2 * k + 1] = b2 * v - a2 * y;
      v = y;
    }
    x[i] = v;
  }
}

/* The engine's run coefficients of a parsed design, in double: each stage's `pure` sections with
 * the gains in front of it folded into its first section (as fxc_fold_stage()). */
static double *engine_coefs(const fxc_probe_design_t *d, int *K_out)
{
  int K = 0;
  for (int s = 0; s < d->S; s++)
    K += d->K[s];
  double *coef = malloc(((size_t) K + 1) * 5 * sizeof(double));
  if (!coef)
    return NULL;
  int k = 0;
  for (int s = 0; s < d->S; s++) {
    memcpy(coef + 5 * (size_t) k, d->pure[s], (size_t) d->K[s] * 5 * sizeof(double));
    for (int i = 0; i < 3; i++)
      coef[5 * (size_t) k + (size_t) i] *= d->g[s];
    k += d->K[s];
  }
  *K_out = K;
  return coef;
}

int fxc_probe_single(fx_cascade_t *c, const fxc_probe_design_t *d, const double *coef, int K,
                     size_t n, double *ser_seq, double *ser_chunk, double *ser_ck_double,
                     double *ser_scipy)
{
  int ok = 0;
  float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float));
  float *sp = malloc(n * sizeof(float));
  double *ref = malloc(n * sizeof(double));
  const size_t Kr = (size_t) (d->nraw > K ? d->nraw : K) + 1;
  float *cf = malloc(Kr * 5 * sizeof(float));
  double *st = calloc(Kr * 2, sizeof(double));
  fx_chunk_sec_t *ps = malloc(Kr * sizeof(*ps));
  fx_chunk_rec_t *rec = calloc(Kr, sizeof(*rec));
  if (!x || !y || !sp || !ref || !cf || !st || !ps || !rec)
    goto out;
  probe_input(x, n);
  const fx_kernel_t *kn = c->kernel;
  /* the reference: the engine's double arithmetic, sequential */
  for (size_t i = 0; i < n; i++)
    ref[i] = (double) x[i];
  kn->f64(coef, st, NULL, K, K, ref, n, 1);
  /* the float paths this cascade may run: sequential, and chunked where it can run */
  for (int k = 0; k < 5 * K; k++)
    cf[k] = (float) coef[k];
  memcpy(y, x, n * sizeof(float));
  memset(st, 0, Kr * 2 * sizeof(double));
  kn->f32_s(cf, (float *) st, NULL, K, K, y, n, 1);
  *ser_seq = ser_db(ref, y, n);
  *ser_chunk = NAN;
  const int env = fxc_chunk_env();
  if (env == 1 || (env < 0 && fxc_chunk_capable(c, 0))) {
    memcpy(y, x, n * sizeof(float));
    memset(st, 0, Kr * 2 * sizeof(double));
    for (int k = 0; k < K; k++)
      fx_chunk_sec_build(&ps[k], coef + 5 * (size_t) k);
    kn->ck_f32_s(cf, ps, rec, (float *) st, NULL, K, K, y, n, 1);
    *ser_chunk = ser_db(ref, y, n);
  }
  /* the chunked double path, where it can run */
  *ser_ck_double = NAN;
  if (fxc_chunk_capable(c, 1)) {
    memcpy(y, x, n * sizeof(float));
    memset(st, 0, Kr * 2 * sizeof(double));
    memset(rec, 0, Kr * sizeof(*rec));
    for (int k = 0; k < K; k++)
      fx_chunk_sec_build(&ps[k], coef + 5 * (size_t) k);
    kn->ck_f32_d(coef, ps, rec, st, NULL, K, K, y, n, 1);
    *ser_ck_double = ser_db(ref, y, n);
  }
  /* scipy-style float32 sosfilt: the caller's sections, plain float arithmetic */
  memcpy(sp, x, n * sizeof(float));
  scipy_sosfilt_f32(d->raw, d->nraw, sp, n, (float *) st);
  *ser_scipy = ser_db(ref, sp, n);
  ok = 1;
out:
  free(x);
  free(y);
  free(sp);
  free(ref);
  free(cf);
  free(st);
  free(ps);
  free(rec);
  return ok;
}

/* Converts n stored numbers in place from float to double (to_dbl) or back. */
static void convert(void *a, size_t n, int to_dbl)
{
  if (!a || n == 0)
    return;
  if (to_dbl) {
    for (size_t i = n; i-- > 0;)
      ((double *) a)[i] = (double) ((float *) a)[i];
  } else {
    for (size_t i = 0; i < n; i++)
      ((float *) a)[i] = (float) ((double *) a)[i];
  }
}

void fxc_set_arithmetic(fx_cascade_t *c, int dbl)
{
  if (c->dbl == dbl)
    return;
  const size_t C = (size_t) (c->channels > 0 ? c->channels : 0);
  const size_t KT = (size_t) c->cur.K;
  convert(c->cur.state, C * KT * 2, dbl);
  for (int i = 0; i < 2; i++)
    if (c->ck[i].valid)
      convert(c->ck[i].state, C * KT * 2, dbl);
  for (int s = 0; s < c->S; s++)
    if (c->st[s].xf_active && c->st[s].old.K > 0)
      convert(c->st[s].old.state, C * (size_t) c->st[s].old.K * 2, dbl);
  c->dbl = dbl;
  fxc_chunk_policy(c);
  /* the run coefficients again from the coefficients of record */
  for (int s = 0; s < c->S; s++) {
    fx_stage_rt_t *st = &c->st[s];
    if (!st->pure)
      continue;
    for (size_t i = 0; i < (size_t) st->K * 5; i++)
      fx_num_set(c->cur.coef, c->dbl, 5 * (size_t) st->k0 + i, st->pure[i]);
    if (st->xf_active && st->old.K > 0 && st->old_pure)
      for (size_t i = 0; i < (size_t) st->old.K * 5; i++)
        fx_num_set(st->old.coef, c->dbl, i, st->old_pure[i]);
    fxc_fold_stage(c, s, c->jn[s].Gl);
  }
  if (c->ckr)
    memset(c->ckr, 0, c->ckr_cap * sizeof(fx_chunk_rec_t));
  fxc_update_backend(c);
}

int fxc_auto_precision(fx_cascade_t *c, const fxc_probe_design_t *d)
{
  if (c->format != FX_SAMPLE_F32 || c->precision != FX_PRECISION_AUTO)
    return c->dbl;
  if (c->offload) /* the probe measures the CPU's float path: an offload runs double */
    return 1;
  int K = 0;
  double *coef = engine_coefs(d, &K);
  if (!coef)
    return 1;
  const int same = c->pr_valid && c->pr_K == K &&
                   fxc_pole_distance(c->pr_coef, coef, K) < FX_PROBE_MOVE &&
                   fxc_pole_distance(coef, c->pr_coef, K) < FX_PROBE_MOVE;
  if (!same) {
    double sq, sc, scd, b;
    /* tau: frames for the slowest pole to decay by e (fxc_warm_need(): by 1e-3); the probe's
     * length: 256 tau, a power of two within [FX_PROBE_MIN_FRAMES, FX_PROBE_FRAMES] */
    const double tau = (double) fxc_warm_need(coef, K) / 6.9;
    size_t n = FX_PROBE_MIN_FRAMES;
    while (n < FX_PROBE_FRAMES && (double) n < 256.0 * tau)
      n *= 2;
    double *keep = realloc(c->pr_coef, ((size_t) K + 1) * 5 * sizeof(double));
    if (keep && fxc_probe_single(c, d, coef, K, n, &sq, &sc, &scd, &b)) {
      c->pr_coef = keep;
      memcpy(c->pr_coef, coef, (size_t) K * 5 * sizeof(double));
      c->pr_K = K;
      c->pr_valid = 1;
      c->pr_ser_scipy = b;
      const double bar = b + FX_PROBE_MARGIN_DB + FX_PROBE_MARGIN_TAU_DB * sqrt(tau / (double) n);
      /* Single where a float path passes: the sequential one, the chunked one (measured where
       * it can run), or both; fxc_want_chunked() then takes the faster of those that pass (the
       * chunked one for every call where it passes alone), and double otherwise. */
      const int seq_ok = isfinite(sq) && sq >= bar, ck_ok = isfinite(sc) && sc >= bar;
      c->pr_seq_ok = seq_ok;
      c->pr_ck_ok = ck_ok;
      c->pr_cks_measured = fxc_chunk_capable(c, 0);
      const int env = fxc_chunk_env();
      c->pr_single = env == 1 ? ck_ok : env == 0 ? seq_ok : seq_ok || ck_ok;
      /* the error of what runs: both paths where short calls run the sequential one */
      const int chunked = fxc_float_chunked(c, K, seq_ok, ck_ok);
      c->pr_ser_single = !chunked ? sq : !seq_ok || env == 1 ? sc : fmin(sq, sc);
      /* the chunked double path where it keeps double's accuracy to within the F32 output's
       * rounding (the sequential double path measures about 150 dB here, F32's own floor) */
      c->pr_ckd_measured = fxc_chunk_capable(c, 1);
      c->pr_ser_ck_double = scd;
      c->pr_ck_double = isfinite(scd) && scd >= FX_PROBE_CK_DOUBLE_DB;
      c->probes++;
    } else {
      if (keep)
        c->pr_coef = keep;
      c->pr_valid = 0;
      free(coef);
      return 1;
    }
  }
  free(coef);
  return !c->pr_single;
}

int fx_cascade_precision_probe(const fx_cascade_t *c, double *ser_single, double *ser_scipy)
{
  if (!c || c->format != FX_SAMPLE_F32 || c->precision != FX_PRECISION_AUTO || !c->pr_valid)
    return 0;
  if (ser_single)
    *ser_single = c->pr_ser_single;
  if (ser_scipy)
    *ser_scipy = c->pr_ser_scipy;
  return 1;
}

int fx_cascade_precision_probe_chunked_double(const fx_cascade_t *c, double *ser)
{
  if (!fx_cascade_precision_probe(c, NULL, NULL) || !c->pr_ckd_measured)
    return 0;
  if (ser)
    *ser = c->pr_ser_ck_double;
  return 1;
}
