/* gst-fx — unit tests of the FIR method sets (dsp/fir_kernel_*.c) on every instruction set this
 * CPU supports, against independent references and against the baseline "scalar" set.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For each entry of the instruction-set table (kernel.h) that this CPU supports (the others are
 * reported as SKIP lines) and each precision, on random data:
 *   - dot: against the sum evaluated in long double (within a bound of n roundings of the terms'
 *     magnitudes) and against the scalar set (within twice that bound); the FMA sets (avx2,
 *     avx512) accumulate every output in the same order with the same fused operations, so they
 *     are bit-identical to each other;
 *   - deint2 / int2 (copies and one addition per sample): bit-identical to plain loops;
 *   - cmac: against the partition sum in long double, and the scalar set, within a bound;
 *   - r2c_post / c2r_pre: against the formulas of fir_kernel.h evaluated in complex long double,
 *     and the scalar set, within a bound;
 * on lengths that cover the vector tiles and the scalar tails of every width. The same methods
 * against FFTW are in test_fir.c. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

#define FXCHECK_MAX_REPORTS 39
#include "fxcheck.h"

enum { P32, P64 };

static double worst[2]; /* worst error / bound of the current set, per precision */

/* Checks |got - ref| <= bound, element by element; records the worst ratio. */
static int within(int prec, const double *got, const long double *ref, const double *bound,
                  size_t n, const char *what, const char *isa, size_t a, size_t b)
{
  for (size_t i = 0; i < n; i++) {
    const double e = fabs(got[i] - (double) ref[i]);
    const double r = bound[i] > 0 ? e / bound[i] : (e > 0 ? INFINITY : 0);
    worst[prec] = r > worst[prec] ? r : worst[prec];
    if (!(e <= bound[i])) {
      CHECK(0, "%s %s %s (%zu, %zu): element %zu: %.17g vs %.17Lg (bound %g)", isa, what,
            prec == P64 ? "f64" : "f32", a, b, i, got[i], ref[i], bound[i]);
      return 0;
    }
  }
  checks++;
  return 1;
}

static double eps(int prec)
{
  return prec == P64 ? 0x1p-52 : 0x1p-23;
}

/* ---- dot ---- */

/* y[i] = sum_j hr[j] w[i + j] through set k, in precision prec; results as doubles in y. */
static void run_dot(const fx_fir_kernels_t *k, int prec, const double *hr, size_t n,
                    const double *w, size_t len, double *y)
{
  const size_t L = (size_t) (prec == P64 ? k->lanes_f64 : k->lanes_f32), nk = n + L - 1;
  const size_t nw = len + n - 1;
  if (prec == P64) {
    double *hv = calloc(nk * L, sizeof(double)), *yy = malloc(len * sizeof(double));
    for (size_t kk = 0; kk < nk; kk++)
      for (size_t t = 0; t < L; t++)
        hv[kk * L + t] = kk >= t && kk - t < n ? hr[kk - t] : 0.0;
    k->dot_f64(hv, n, w, yy, len);
    memcpy(y, yy, len * sizeof(double));
    free(hv), free(yy);
  } else {
    float *hv = calloc(nk * L, sizeof(float)), *wf = malloc(nw * sizeof(float));
    float *yy = malloc(len * sizeof(float));
    for (size_t kk = 0; kk < nk; kk++)
      for (size_t t = 0; t < L; t++)
        hv[kk * L + t] = kk >= t && kk - t < n ? (float) hr[kk - t] : 0.0f;
    for (size_t i = 0; i < nw; i++)
      wf[i] = (float) w[i];
    k->dot_f32(hv, n, wf, yy, len);
    for (size_t i = 0; i < len; i++)
      y[i] = yy[i];
    free(hv), free(wf), free(yy);
  }
}

static void test_dot(const fx_fir_kernels_t *k, const fx_fir_kernels_t *fma_ref)
{
  static const size_t ns[] = {1, 2, 3, 7, 16, 31, 64, 100};
  static const size_t lens[] = {1, 3, 17, 64, 100, 257, 1031};
  for (int prec = P32; prec <= P64; prec++)
    for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
      for (size_t b = 0; b < sizeof(lens) / sizeof(lens[0]); b++) {
        const size_t n = ns[a], len = lens[b], nw = len + n - 1;
        double *hr = malloc(n * sizeof(double)), *w = malloc(nw * sizeof(double));
        double *y = malloc(len * sizeof(double)), *ys = malloc(len * sizeof(double));
        double *bound = malloc(len * sizeof(double)), *bound2 = malloc(len * sizeof(double));
        long double *ref = malloc(len * sizeof(long double));
        long double *refs = malloc(len * sizeof(long double));
        for (size_t j = 0; j < n; j++)
          hr[j] = prec == P64 ? rng_uniform() : (double) (float) rng_uniform();
        for (size_t i = 0; i < nw; i++)
          w[i] = prec == P64 ? rng_uniform() : (double) (float) rng_uniform();
        for (size_t i = 0; i < len; i++) {
          long double s = 0, m = 0;
          for (size_t j = 0; j < n; j++) {
            s += (long double) hr[j] * w[i + j];
            m += fabsl((long double) hr[j] * w[i + j]);
          }
          ref[i] = s;
          bound[i] = (double) ((long double) (n + 1) * eps(prec) * m) + 1e-300;
          bound2[i] = 2 * bound[i];
        }
        run_dot(k, prec, hr, n, w, len, y);
        within(prec, y, ref, bound, len, "dot vs long double", k->name, n, len);
        run_dot(&fx_fir_kernels_scalar, prec, hr, n, w, len, ys);
        for (size_t i = 0; i < len; i++)
          refs[i] = ys[i];
        within(prec, y, refs, bound2, len, "dot vs scalar", k->name, n, len);
        if (fma_ref && fma_ref != k) {
          run_dot(fma_ref, prec, hr, n, w, len, ys);
          CHECK(memcmp(y, ys, len * sizeof(double)) == 0,
                "%s dot %s (%zu, %zu): not bit-identical to %s", k->name,
                prec == P64 ? "f64" : "f32", n, len, fma_ref->name);
        }
        free(hr), free(w), free(y), free(ys), free(bound), free(bound2), free(ref), free(refs);
      }
}

/* ---- deint2 / int2 ---- */

static void test_planar(const fx_fir_kernels_t *k)
{
  static const size_t ns[] = {0, 1, 2, 5, 8, 15, 16, 33, 64, 127, 1000};
  for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++) {
    const size_t n = ns[a];
    double *in = malloc((2 * n + 1) * sizeof(double)), *d1 = malloc((n + 1) * sizeof(double));
    double *d2 = malloc((n + 1) * sizeof(double)), *out = malloc((2 * n + 1) * sizeof(double));
    double *o2 = malloc((2 * n + 1) * sizeof(double));
    float *fin = malloc((2 * n + 1) * sizeof(float)), *f1 = malloc((n + 1) * sizeof(float));
    float *f2 = malloc((n + 1) * sizeof(float)), *fout = malloc((2 * n + 1) * sizeof(float));
    float *fo2 = malloc((2 * n + 1) * sizeof(float));
    for (size_t i = 0; i < 2 * n; i++) {
      in[i] = rng_uniform();
      fin[i] = (float) rng_uniform();
    }
    k->deint2_f64(in, d1, d2, n);
    k->deint2_f32(fin, f1, f2, n);
    int ok = 1;
    for (size_t i = 0; i < n; i++)
      ok &= d1[i] == in[2 * i] && d2[i] == in[2 * i + 1] && f1[i] == fin[2 * i] &&
            f2[i] == fin[2 * i + 1];
    CHECK(ok, "%s deint2 n=%zu", k->name, n);
    for (int add = 0; add <= 1; add++) {
      for (size_t i = 0; i < 2 * n; i++) {
        out[i] = o2[i] = rng_uniform();
        fout[i] = fo2[i] = (float) rng_uniform();
      }
      k->int2_f64(out, d2, d1, n, add);
      k->int2_f32(fout, f2, f1, n, add);
      ok = 1;
      for (size_t i = 0; i < n; i++) {
        const double e0 = add ? o2[2 * i] + d2[i] : d2[i], e1 = add ? o2[2 * i + 1] + d1[i] : d1[i];
        const float g0 = add ? fo2[2 * i] + f2[i] : f2[i],
                    g1 = add ? fo2[2 * i + 1] + f1[i] : f1[i];
        ok &=
            out[2 * i] == e0 && out[2 * i + 1] == e1 && fout[2 * i] == g0 && fout[2 * i + 1] == g1;
      }
      CHECK(ok, "%s int2 n=%zu add=%d", k->name, n, add);
    }
    free(in), free(d1), free(d2), free(out), free(o2);
    free(fin), free(f1), free(f2), free(fout), free(fo2);
  }
}

/* ---- cmac ---- */

static void run_cmac(const fx_fir_kernels_t *k, int prec, const double *H, const double *X,
                     size_t S, size_t P, size_t slot, size_t n, double *y)
{
  if (prec == P64) {
    k->cmac_f64(y, H, X, S, P, slot, n);
    return;
  }
  float *Hf = malloc(2 * P * S * sizeof(float)), *Xf = malloc(P * S * sizeof(float));
  float *yf = malloc(n * sizeof(float));
  for (size_t i = 0; i < 2 * P * S; i++)
    Hf[i] = (float) H[i];
  for (size_t i = 0; i < P * S; i++)
    Xf[i] = (float) X[i];
  k->cmac_f32(yf, Hf, Xf, S, P, slot, n);
  for (size_t i = 0; i < n; i++)
    y[i] = yf[i];
  free(Hf), free(Xf), free(yf);
}

static void test_cmac(const fx_fir_kernels_t *k)
{
  static const size_t ns[] = {2, 6, 16, 34, 64, 130, 512, 1026};
  static const size_t Ps[] = {1, 2, 3, 8};
  for (int prec = P32; prec <= P64; prec++)
    for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
      for (size_t b = 0; b < sizeof(Ps) / sizeof(Ps[0]); b++) {
        const size_t n = ns[a], P = Ps[b], S = n + 8, slot = P / 2;
        double *H = malloc(2 * P * S * sizeof(double)), *X = malloc(P * S * sizeof(double));
        double *y = malloc(n * sizeof(double)), *ys = malloc(n * sizeof(double));
        double *bound = malloc(n * sizeof(double)), *bound2 = malloc(n * sizeof(double));
        long double *ref = malloc(n * sizeof(long double)), *refs = malloc(n * sizeof(long double));
        for (size_t i = 0; i < 2 * P * S; i++)
          H[i] = prec == P64 ? rng_uniform() : (double) (float) rng_uniform();
        for (size_t i = 0; i < P * S; i++)
          X[i] = prec == P64 ? rng_uniform() : (double) (float) rng_uniform();
        for (size_t e = 0; e < n; e++) {
          long double s = 0, m = 0;
          for (size_t p = 0; p < P; p++) {
            const size_t q = (slot + P - p) % P;
            const double *hd = H + 2 * p * S, *hs = hd + S, *x = X + q * S;
            const size_t o = e ^ 1; /* the other part of the same complex value */
            const long double t1 = (long double) hd[e] * x[e], t2 = (long double) hs[e] * x[o];
            s += t1 + t2;
            m += fabsl(t1) + fabsl(t2);
          }
          ref[e] = s;
          bound[e] = (double) ((long double) (2 * P + 2) * eps(prec) * m) + 1e-300;
          bound2[e] = 2 * bound[e];
        }
        run_cmac(k, prec, H, X, S, P, slot, n, y);
        within(prec, y, ref, bound, n, "cmac vs long double", k->name, n, P);
        run_cmac(&fx_fir_kernels_scalar, prec, H, X, S, P, slot, n, ys);
        for (size_t i = 0; i < n; i++)
          refs[i] = ys[i];
        within(prec, y, refs, bound2, n, "cmac vs scalar", k->name, n, P);
        free(H), free(X), free(y), free(ys), free(bound), free(bound2), free(ref), free(refs);
      }
}

/* ---- r2c_post / c2r_pre ---- */

/* Runs r2c_post (dir 0) or c2r_pre (dir 1) of set k on x (2m + 2 reals, in place), with the
 * twiddle tables of fir_kernel.h. */
static void run_rfft(const fx_fir_kernels_t *k, int prec, int dir, double *x, size_t m)
{
  double *tu = malloc(m * 2 * sizeof(double)), *tv = malloc(m * 2 * sizeof(double));
  for (size_t j = 0; j < m; j++) {
    const double wr = cos(M_PI * (double) j / (double) m),
                 wi = -sin(M_PI * (double) j / (double) m);
    tu[2 * j] = tu[2 * j + 1] = wi;
    tv[2 * j] = -wr;
    tv[2 * j + 1] = wr;
  }
  if (prec == P64) {
    (dir ? k->c2r_pre_f64 : k->r2c_post_f64)(x, tu, tv, m);
  } else {
    float *xf = malloc((2 * m + 2) * sizeof(float)), *tuf = calloc(2 * m, sizeof(float));
    float *tvf = calloc(2 * m, sizeof(float));
    for (size_t i = 0; i < 2 * m + 2; i++)
      xf[i] = (float) x[i];
    for (size_t i = 0; i < 2 * m; i++) {
      tuf[i] = (float) tu[i];
      tvf[i] = (float) tv[i];
    }
    (dir ? k->c2r_pre_f32 : k->r2c_post_f32)(xf, tuf, tvf, m);
    for (size_t i = 0; i < 2 * m + 2; i++)
      x[i] = xf[i];
    free(xf), free(tuf), free(tvf);
  }
  free(tu), free(tv);
}

/* The formulas of fir_kernel.h in complex long double: out (2m + 2 reals; c2r_pre fills 2m). */
static void ref_rfft(int dir, const double *x, size_t m, long double *out)
{
  const size_t h = m / 2;
  typedef long double complex cld;
  cld *z = malloc((m + 1) * sizeof(cld));
  for (size_t j = 0; j <= m; j++)
    z[j] = x[2 * j] + I * (long double) x[2 * j + 1];
  cld *o = calloc(m + 1, sizeof(cld));
  for (size_t j = 1; j <= h; j++) {
    const long double th = acosl(-1.0L) * (long double) j / (long double) m;
    const cld W = cosl(th) - I * sinl(th);
    const cld a = z[j], b = conjl(z[m - j]), s = a + b, d = a - b;
    if (dir == 0) {
      const cld q = -I * W * d;
      o[j] = (s + q) / 2;
      o[m - j] = conjl(s - q) / 2;
    } else {
      const cld p = I * conjl(W) * d;
      o[j] = s + p;
      o[m - j] = conjl(s - p);
    }
  }
  if (dir == 0) {
    o[0] = creall(z[0]) + cimagl(z[0]);
    o[m] = creall(z[0]) - cimagl(z[0]);
  } else {
    o[0] = (creall(z[0]) + creall(z[m])) + I * (creall(z[0]) - creall(z[m]));
  }
  for (size_t j = 0; j <= m; j++) {
    out[2 * j] = creall(o[j]);
    out[2 * j + 1] = cimagl(o[j]);
  }
  free(z), free(o);
}

static void test_rfft(const fx_fir_kernels_t *k)
{
  static const size_t ms[] = {1, 2, 4, 8, 16, 32, 64, 256, 2048};
  for (int prec = P32; prec <= P64; prec++)
    for (int dir = 0; dir <= 1; dir++)
      for (size_t a = 0; a < sizeof(ms) / sizeof(ms[0]); a++) {
        const size_t m = ms[a], nx = 2 * m + 2, nout = dir ? 2 * m : nx;
        double *x0 = malloc(nx * sizeof(double)), *x = malloc(nx * sizeof(double));
        double *xs = malloc(nx * sizeof(double)), *bound = malloc(nx * sizeof(double));
        double *bound2 = malloc(nx * sizeof(double));
        long double *ref = malloc(nx * sizeof(long double)),
                    *refs = malloc(nx * sizeof(long double));
        for (size_t i = 0; i < nx; i++)
          x0[i] = prec == P64 ? rng_uniform() : (double) (float) rng_uniform();
        if (dir)
          x0[1] = x0[2 * m + 1] = 0; /* ignored imaginary parts (fir_kernel.h) */
        double mx = 0;
        for (size_t i = 0; i < nx; i++)
          mx = fmax(mx, fabs(x0[i]));
        ref_rfft(dir, x0, m, ref);
        for (size_t i = 0; i < nx; i++) {
          bound[i] = 32 * eps(prec) * mx;
          bound2[i] = 2 * bound[i];
        }
        memcpy(x, x0, nx * sizeof(double));
        run_rfft(k, prec, dir, x, m);
        const char *what = dir ? "c2r_pre" : "r2c_post";
        within(prec, x, ref, bound, nout, what, k->name, m, 0);
        memcpy(xs, x0, nx * sizeof(double));
        run_rfft(&fx_fir_kernels_scalar, prec, dir, xs, m);
        for (size_t i = 0; i < nx; i++)
          refs[i] = xs[i];
        within(prec, x, refs, bound2, nout, dir ? "c2r_pre vs scalar" : "r2c_post vs scalar",
               k->name, m, 0);
        free(x0), free(x), free(xs), free(bound), free(bound2), free(ref), free(refs);
      }
}

int main(void)
{
  fxcheck_seed(0x5EED0F1Bull);
  static const char *all[] = {"avx512", "avx2", "sse2", "scalar"};
  printf("instruction sets on this CPU:");
  for (int i = 0; i < fx_isa_count(); i++)
    printf(" %s (FIR set %s)", fx_isa_get(i)->name, fx_isa_get(i)->fir->name);
  printf("\n");
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
    if (!fx_isa_find(all[i]))
      printf("SKIP %s: not supported by this CPU (or not built)\n", all[i]);
  /* the first FMA set tested is the reference of "bit-identical dot" for the others */
  const fx_fir_kernels_t *fma_ref = NULL;
  for (int i = fx_isa_count() - 1; i >= 0; i--) {
    const fx_isa_t *isa = fx_isa_get(i);
    const fx_fir_kernels_t *k = isa->fir;
    const int before = failures;
    const int fma = strcmp(k->name, "avx2") == 0 || strcmp(k->name, "avx512") == 0;
    memset(worst, 0, sizeof(worst));
    test_dot(k, fma ? fma_ref : NULL);
    test_planar(k);
    test_cmac(k);
    test_rfft(k);
    if (fma && !fma_ref)
      fma_ref = k;
    printf("%s (FIR set %s): %s (worst error / bound: f32 %.3g, f64 %.3g)\n", isa->name, k->name,
           failures == before ? "ok" : "FAILED", worst[P32], worst[P64]);
  }
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
