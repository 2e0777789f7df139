/* gst-fx — filter design (scipy.signal conventions). Pure C11, no GLib.
 *
 * IIR designs follow scipy.signal.iirfilter step by step, entirely in the zero/pole/gain domain
 * (a polynomial is never formed beyond one second-order section):
 *   analog prototype (buttap, cheb1ap, cheb2ap, ellipap)
 *   -> frequency transform (lp2lp_zpk, lp2hp_zpk, lp2bp_zpk, lp2bs_zpk) with pre-warped edges
 *   -> bilinear_zpk (fs = 2, Wn normalised by Nyquist)
 *   -> zpk2sos with scipy's default 'nearest' pairing, gain in the first section.
 * The gain is carried as mantissa and binary exponent so that high orders at low cutoffs neither
 * underflow nor overflow on the way.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "design.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <string.h>

typedef double complex cplx;

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#ifndef M_LN10
#define M_LN10 2.30258509299404568402
#endif

/* Largest number of poles or zeros on the way: band modes of order 64 have 128, zpk2sos may pad
 * one more. */
#define ZPK_MAX (2 * FX_MAX_ORDER + 2)

/* |log2(gain)| beyond which zpk2sos spreads the gain over all sections (about 1e+-100). */
#define GAIN_SPREAD_LOG2 332.0

/* ------------------------------------------------------------------------------------------ */
/* Status strings                                                                               */

/* ------------------------------------------------------------------------------------------ */
/* Extended-range gain: value = m * 2^e                                                         */

typedef struct {
  double m;
  int e;
} xgain_t;

static xgain_t xg_norm(double m, int e)
{
  xgain_t g;
  int ex = 0;
  if (m == 0.0 || !isfinite(m)) {
    g.m = m;
    g.e = 0;
    return g;
  }
  g.m = frexp(m, &ex);
  g.e = e + ex;
  return g;
}

static xgain_t xg_mul(xgain_t g, double v)
{
  return xg_norm(g.m * v, g.e);
}

static xgain_t xg_mulg(xgain_t a, xgain_t b)
{
  return xg_norm(a.m * b.m, a.e + b.e);
}

static double xg_value(xgain_t g)
{
  return ldexp(g.m, g.e);
}

/* Complex product with the same extended range. */
typedef struct {
  cplx m;
  int e;
} xcplx_t;

static xcplx_t xc_one(void)
{
  xcplx_t c = {1.0, 0};
  return c;
}

static xcplx_t xc_mul(xcplx_t c, cplx v)
{
  double mag;
  int ex = 0;
  c.m *= v;
  mag = fmax(fabs(creal(c.m)), fabs(cimag(c.m)));
  if (mag != 0.0 && isfinite(mag)) {
    frexp(mag, &ex);
    c.m = ldexp(creal(c.m), -ex) + I * ldexp(cimag(c.m), -ex);
    c.e += ex;
  }
  return c;
}

/* Real part of a / b as an extended gain. */
static xgain_t xc_ratio_real(xcplx_t a, xcplx_t b)
{
  return xg_norm(creal(a.m / b.m), a.e - b.e);
}

/* ------------------------------------------------------------------------------------------ */
/* Zeros, poles, gain                                                                           */

typedef struct {
  cplx z[ZPK_MAX];
  cplx p[ZPK_MAX];
  int nz, np;
  xgain_t k;
} zpk_t;

/* prod(-z) and prod(-p) in extended range. */
static void prod_neg(const zpk_t *f, xcplx_t *nz, xcplx_t *np)
{
  *nz = xc_one();
  *np = xc_one();
  for (int i = 0; i < f->nz; i++)
    *nz = xc_mul(*nz, -f->z[i]);
  for (int i = 0; i < f->np; i++)
    *np = xc_mul(*np, -f->p[i]);
}

/* real(prod(-z) / prod(-p)) */
static xgain_t prod_neg_ratio(const zpk_t *f)
{
  xcplx_t nz, np;
  prod_neg(f, &nz, &np);
  return xc_ratio_real(nz, np);
}

/* real(prod(-p) / prod(-z)), the prototypes' gain */
static xgain_t proto_gain(const zpk_t *f)
{
  xcplx_t nz, np;
  prod_neg(f, &nz, &np);
  return xc_ratio_real(np, nz);
}

/* ------------------------------------------------------------------------------------------ */
/* Analog prototypes (scipy.signal buttap, cheb1ap, cheb2ap, ellipap)                          */

static void buttap(int n, zpk_t *f)
{
  f->nz = 0;
  f->np = n;
  for (int i = 0; i < n; i++) {
    int m = -n + 1 + 2 * i;
    double t = M_PI * m / (2.0 * n);
    /* -exp(j t); the middle value (m == 0) is exactly real */
    f->p[i] = -cos(t) - I * sin(t);
  }
  f->k = xg_norm(1.0, 0);
}

static void cheb1ap(int n, double rp, zpk_t *f)
{
  double eps = sqrt(pow(10.0, 0.1 * rp) - 1.0);
  double mu = 1.0 / n * asinh(1.0 / eps);
  xcplx_t prod = xc_one();
  f->nz = 0;
  f->np = n;
  for (int i = 0; i < n; i++) {
    int m = -n + 1 + 2 * i;
    double t = M_PI * m / (2.0 * n);
    /* -sinh(mu + j t) */
    f->p[i] = -(sinh(mu) * cos(t)) - I * (cosh(mu) * sin(t));
    prod = xc_mul(prod, -f->p[i]);
  }
  f->k = xg_norm(creal(prod.m), prod.e);
  if (n % 2 == 0)
    f->k = xg_mul(f->k, 1.0 / sqrt(1.0 + eps * eps));
}

static void cheb2ap(int n, double rs, zpk_t *f)
{
  double de = 1.0 / sqrt(pow(10.0, 0.1 * rs) - 1.0);
  double mu = asinh(1.0 / de) / n;
  int nz = 0;
  for (int m = -n + 1; m < n; m += 2) {
    if (m == 0)
      continue; /* odd orders: no zero at infinity's mirror */
    /* -conj(1j / sin(m pi / 2n)) == j / sin(m pi / 2n) */
    f->z[nz++] = I * (1.0 / sin(m * M_PI / (2.0 * n)));
  }
  f->nz = nz;
  f->np = n;
  for (int i = 0; i < n; i++) {
    int m = -n + 1 + 2 * i;
    double t = M_PI * m / (2.0 * n);
    double re = -cos(t), im = -sin(t);
    cplx w = sinh(mu) * re + I * (cosh(mu) * im);
    f->p[i] = 1.0 / w;
  }
  f->k = proto_gain(f);
}

/* Complete elliptic integral of the first kind K from the complementary parameter m1 = 1 - m:
 * K = pi / (2 AGM(1, sqrt(m1))). */
static double ellipk_from_m1(double m1)
{
  double a = 1.0, b = sqrt(m1);
  if (m1 <= 0.0)
    return INFINITY;
  for (int i = 0; i < 64 && fabs(a - b) > DBL_EPSILON * a; i++) {
    double an = 0.5 * (a + b);
    b = sqrt(a * b);
    a = an;
  }
  return M_PI / (a + b);
}

static double ellipk(double m)
{
  return ellipk_from_m1(1.0 - m);
}

/* Jacobi elliptic functions sn, cn, dn of u with parameter m (descending Landen / AGM scale,
 * DLMF 22.20(ii)), with the small- and large-parameter expansions of A&S 16.13 and 16.15. */
static void ellipj(double u, double m, double *sn, double *cn, double *dn)
{
  if (m < 1.0e-9) {
    double t = sin(u), b = cos(u);
    double ai = 0.25 * m * (u - t * b);
    *sn = t - ai * b;
    *cn = b + ai * t;
    *dn = 1.0 - 0.5 * m * t * t;
    return;
  }
  if (m >= 0.9999999999) {
    double ai = 0.25 * (1.0 - m);
    double b = cosh(u), t = tanh(u);
    double phi = 1.0 / b;
    double twon = b * sinh(u);
    *sn = t + ai * (twon - u) / (b * b);
    ai *= t * phi;
    *cn = phi - ai * (twon - u);
    *dn = phi + ai * (twon + u);
    return;
  }
  double a[16], c[16];
  double b = sqrt(1.0 - m), twon = 1.0;
  int i = 0;
  a[0] = 1.0;
  c[0] = sqrt(m);
  while (fabs(c[i] / a[i]) > DBL_EPSILON / 2 && i < 15) {
    double ai = a[i];
    i++;
    c[i] = 0.5 * (ai - b);
    double t = sqrt(ai * b);
    a[i] = 0.5 * (ai + b);
    b = t;
    twon *= 2.0;
  }
  double phi = twon * a[i] * u, prev = phi;
  for (; i > 0; i--) {
    double t = c[i] * sin(phi) / a[i];
    prev = phi;
    phi = 0.5 * (asin(t) + phi);
  }
  *sn = sin(phi);
  *cn = cos(phi);
  double dnfac = cos(phi - prev);
  if (fabs(dnfac) < 0.1)
    *dn = sqrt(1.0 - m * (*sn) * (*sn));
  else
    *dn = *cn / dnfac;
}

/* Solve the degree equation n K(m)/K'(m) = K(m1)/K'(m1) for m using nomes (Orfanidis eq. 49). */
static double ellipdeg(int n, double m1)
{
  double k1 = ellipk(m1);
  double k1p = ellipk_from_m1(m1);
  double q1 = exp(-M_PI * k1p / k1);
  double q = pow(q1, 1.0 / n);
  double num = 0.0, den = 0.0;
  for (int i = 0; i <= 7; i++)
    num += pow(q, (double) (i * (i + 1)));
  for (int i = 1; i <= 8; i++)
    den += pow(q, (double) (i * i));
  den = 1.0 + 2.0 * den;
  double r = num / den;
  return 16.0 * q * r * r * r * r;
}

static cplx complement(cplx kx)
{
  return csqrt((1.0 - kx) * (1.0 + kx));
}

/* Inverse Jacobi sn: z with w = sn(z, m), by descending Landen transformations (Orfanidis 56). */
static cplx arc_jac_sn(cplx w, double m)
{
  double k = sqrt(m);
  double ks[16];
  int nk = 0;
  if (k > 1.0)
    return NAN;
  if (k == 1.0)
    return catanh(w);
  ks[nk++] = k;
  while (ks[nk - 1] != 0.0) {
    if (nk >= 12)
      return NAN; /* Landen transformation not converging */
    double kp = creal(complement(ks[nk - 1]));
    ks[nk] = (1.0 - kp) / (1.0 + kp);
    nk++;
  }
  double kk = M_PI / 2;
  for (int i = 1; i < nk; i++)
    kk *= 1.0 + ks[i];
  cplx wn = w;
  for (int i = 0; i + 1 < nk; i++)
    wn = 2.0 * wn / ((1.0 + ks[i + 1]) * (1.0 + complement(ks[i] * wn)));
  cplx u = 2.0 / M_PI * casin(wn);
  return kk * u;
}

/* Real inverse Jacobi sc with complementary parameter: z with w = sc(z, 1 - m). */
static double arc_jac_sc1(double w, double m)
{
  cplx z = arc_jac_sn(I * w, m);
  return cimag(z);
}

static int ellipap(int n, double rp, double rs, zpk_t *f)
{
  if (n == 1) {
    double p = -sqrt(1.0 / expm1(M_LN10 * 0.1 * rp));
    f->nz = 0;
    f->np = 1;
    f->p[0] = p;
    f->k = xg_norm(-p, 0);
    return 0;
  }
  double eps_sq = expm1(M_LN10 * 0.1 * rp);
  double eps = sqrt(eps_sq);
  double ck1_sq = eps_sq / expm1(M_LN10 * 0.1 * rs);
  if (!(ck1_sq > 0.0) || !(ck1_sq < 1.0))
    return -1;
  double val0 = ellipk(ck1_sq);
  double m = ellipdeg(n, ck1_sq);
  if (!(m > 0.0) || !(m < 1.0))
    return -2;
  double capk = ellipk(m);
  double r = arc_jac_sc1(1.0 / eps, ck1_sq);
  double v0 = capk * r / (n * val0);
  double sv, cv, dv;
  ellipj(v0, 1.0 - m, &sv, &cv, &dv);
  if (!isfinite(capk) || !isfinite(v0))
    return -2;

  int nz = 0, np = 0;
  cplx praw[FX_ELLIPTIC_MAX_ORDER];
  int nraw = 0;
  for (int j = 1 - n % 2; j < n; j += 2) {
    double s, c, d;
    ellipj(j * capk / n, m, &s, &c, &d);
    if (fabs(s) > 2e-16)
      f->z[nz++] = I * (1.0 / (sqrt(m) * s));
    praw[nraw++] = -(c * d * sv * cv + I * (s * dv)) / (1.0 - (d * sv) * (d * sv));
  }
  for (int i = 0, n0 = nz; i < n0; i++)
    f->z[nz++] = conj(f->z[i]);
  for (int i = 0; i < nraw; i++)
    f->p[np++] = praw[i];
  if (n % 2) {
    double norm = 0.0;
    for (int i = 0; i < nraw; i++)
      norm += creal(praw[i] * conj(praw[i]));
    norm = sqrt(norm);
    for (int i = 0; i < nraw; i++)
      if (fabs(cimag(praw[i])) > 2e-16 * norm)
        f->p[np++] = conj(praw[i]);
  } else {
    for (int i = 0; i < nraw; i++)
      f->p[np++] = conj(praw[i]);
  }
  f->nz = nz;
  f->np = np;
  f->k = proto_gain(f);
  if (n % 2 == 0)
    f->k = xg_mul(f->k, 1.0 / sqrt(1.0 + eps_sq));
  return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Frequency transforms and the bilinear transform (scipy.signal lp2*_zpk, bilinear_zpk)       */

static void lp2lp_zpk(zpk_t *f, double wo)
{
  int degree = f->np - f->nz;
  for (int i = 0; i < f->nz; i++)
    f->z[i] *= wo;
  for (int i = 0; i < f->np; i++)
    f->p[i] *= wo;
  for (int i = 0; i < degree; i++)
    f->k = xg_mul(f->k, wo);
}

static void lp2hp_zpk(zpk_t *f, double wo)
{
  int degree = f->np - f->nz;
  f->k = xg_mulg(f->k, prod_neg_ratio(f));
  for (int i = 0; i < f->nz; i++)
    f->z[i] = wo / f->z[i];
  for (int i = 0; i < f->np; i++)
    f->p[i] = wo / f->p[i];
  for (int i = 0; i < degree; i++)
    f->z[f->nz++] = 0.0;
}

/* The two roots x of x^2 - 2 a x + wo^2 = 0, i.e. a +- sqrt(a^2 - wo^2); the smaller one comes
 * from the product of the roots, avoiding cancellation. */
static void shift_pair(cplx a, double wo, cplx *plus, cplx *minus)
{
  double w2 = wo * wo;
  if (cimag(a) == 0.0) {
    double x = creal(a);
    if (x * x >= w2) {
      /* two real roots: the larger directly, the smaller from the product */
      double big = x + copysign(sqrt(x * x - w2), x);
      double small = big != 0.0 ? w2 / big : 0.0;
      *plus = x >= 0 ? big : small;
      *minus = x >= 0 ? small : big;
    } else {
      /* an exact conjugate pair */
      double y = sqrt(w2 - x * x);
      *plus = x + I * y;
      *minus = x - I * y;
    }
    return;
  }
  cplx s = csqrt(a * a - w2);
  cplx r1 = a + s, r2 = a - s;
  if (cabs(r1) >= cabs(r2)) {
    if (r1 != 0.0)
      r2 = w2 / r1;
  } else {
    r1 = w2 / r2;
  }
  *plus = r1;
  *minus = r2;
}

/* Replaces the n roots v by the 2n roots of the band transform: each root r (lp2bp: r bw/2;
 * lp2bs, `invert`: (bw/2) / r) shifted by +-sqrt(.^2 - wo^2), the + roots first. */
static void band_shift(cplx *v, int *n, double wo, double bw, int invert)
{
  cplx t[ZPK_MAX];
  const int k = *n;
  for (int i = 0; i < k; i++)
    shift_pair(invert ? (bw / 2) / v[i] : v[i] * (bw / 2), wo, &t[i], &t[k + i]);
  memcpy(v, t, sizeof(cplx) * 2 * k);
  *n = 2 * k;
}

static void lp2bp_zpk(zpk_t *f, double wo, double bw)
{
  int degree = f->np - f->nz;
  band_shift(f->z, &f->nz, wo, bw, 0);
  band_shift(f->p, &f->np, wo, bw, 0);
  for (int i = 0; i < degree; i++)
    f->z[f->nz++] = 0.0;
  for (int i = 0; i < degree; i++)
    f->k = xg_mul(f->k, bw);
}

static void lp2bs_zpk(zpk_t *f, double wo, double bw)
{
  int degree = f->np - f->nz;
  f->k = xg_mulg(f->k, prod_neg_ratio(f));
  band_shift(f->z, &f->nz, wo, bw, 1);
  band_shift(f->p, &f->np, wo, bw, 1);
  for (int i = 0; i < degree; i++)
    f->z[f->nz++] = I * wo;
  for (int i = 0; i < degree; i++)
    f->z[f->nz++] = -I * wo;
}

static void bilinear_zpk(zpk_t *f, double fs)
{
  double fs2 = 2.0 * fs;
  int degree = f->np - f->nz;
  xcplx_t num = xc_one(), den = xc_one();
  for (int i = 0; i < f->nz; i++)
    num = xc_mul(num, fs2 - f->z[i]);
  for (int i = 0; i < f->np; i++)
    den = xc_mul(den, fs2 - f->p[i]);
  f->k = xg_mulg(f->k, xc_ratio_real(num, den));
  for (int i = 0; i < f->nz; i++)
    f->z[i] = (fs2 + f->z[i]) / (fs2 - f->z[i]);
  for (int i = 0; i < f->np; i++)
    f->p[i] = (fs2 + f->p[i]) / (fs2 - f->p[i]);
  for (int i = 0; i < degree; i++)
    f->z[f->nz++] = -1.0;
}

/* ------------------------------------------------------------------------------------------ */
/* zpk2sos, scipy's 'nearest' pairing                                                          */

#define CPLX_TOL (100.0 * DBL_EPSILON)

/* scipy.signal._filter_design._cplxreal: one representative (positive imaginary part, pair
 * averaged) per conjugate pair, sorted by real part then |imag|, followed by the real values
 * sorted. The representatives of pairs have imag > 0, reals exactly imag == 0. Returns the new
 * count, or -1 when a complex value has no conjugate. */
static int cplxreal(cplx *v, int n)
{
  cplx pos[ZPK_MAX], neg[ZPK_MAX];
  double re[ZPK_MAX];
  int npos = 0, nneg = 0, nre = 0;
  int used[ZPK_MAX];

  for (int i = 0; i < n; i++) {
    if (fabs(cimag(v[i])) <= CPLX_TOL * cabs(v[i]))
      re[nre++] = creal(v[i]);
    else if (cimag(v[i]) > 0)
      pos[npos++] = v[i];
    else
      neg[nneg++] = v[i];
  }
  if (npos != nneg)
    return -1;
  /* sort reals ascending (insertion sort; n is small) */
  for (int i = 1; i < nre; i++) {
    double x = re[i];
    int j = i - 1;
    for (; j >= 0 && re[j] > x; j--)
      re[j + 1] = re[j];
    re[j + 1] = x;
  }
  /* sort positives by real part, then |imag| */
  for (int i = 1; i < npos; i++) {
    cplx x = pos[i];
    int j = i - 1;
    for (; j >= 0 &&
           (creal(pos[j]) > creal(x) || (creal(pos[j]) == creal(x) && cimag(pos[j]) > cimag(x)));
         j--)
      pos[j + 1] = pos[j];
    pos[j + 1] = x;
  }
  /* runs of (nearly) the same real part are ordered by |imag| */
  for (int s = 0; s < npos;) {
    int e = s + 1;
    while (e < npos && creal(pos[e]) - creal(pos[e - 1]) <= CPLX_TOL * cabs(pos[e - 1]))
      e++;
    for (int i = s + 1; i < e; i++) {
      cplx x = pos[i];
      int j = i - 1;
      for (; j >= s && cimag(pos[j]) > cimag(x); j--)
        pos[j + 1] = pos[j];
      pos[j + 1] = x;
    }
    s = e;
  }
  /* match each positive with the nearest unused conjugate of a negative and average */
  for (int i = 0; i < nneg; i++)
    used[i] = 0;
  for (int i = 0; i < npos; i++) {
    int best = -1;
    double bd = INFINITY;
    for (int j = 0; j < nneg; j++) {
      if (used[j])
        continue;
      double d = cabs(pos[i] - conj(neg[j]));
      if (d < bd) {
        bd = d;
        best = j;
      }
    }
    if (best < 0 || bd > CPLX_TOL * cabs(neg[best]) * 4.0 + 1e-300)
      return -1;
    used[best] = 1;
    pos[i] = (pos[i] + conj(neg[best])) / 2.0;
  }
  for (int i = 0; i < npos; i++)
    v[i] = pos[i];
  for (int i = 0; i < nre; i++)
    v[npos + i] = re[i];
  return npos + nre;
}

static int is_real(cplx v)
{
  return cimag(v) == 0.0;
}

static void delete_at(cplx *v, int *n, int idx)
{
  memmove(v + idx, v + idx + 1, sizeof(cplx) * (size_t) (*n - idx - 1));
  (*n)--;
}

/* Index of the element closest to the unit circle (first on ties); only elements with
 * realness `want_real` (-1: any). */
static int idx_worst(const cplx *p, int n, int want_real)
{
  int best = -1;
  double bd = INFINITY;
  for (int i = 0; i < n; i++) {
    if (want_real >= 0 && is_real(p[i]) != want_real)
      continue;
    double d = fabs(1.0 - cabs(p[i]));
    if (d < bd) {
      bd = d;
      best = i;
    }
  }
  return best;
}

/* _nearest_real_complex_idx: nearest element of `fro` to `to`, restricted to real (1), complex (0)
 * or any (-1). */
static int idx_nearest(const cplx *fro, int n, cplx to, int want_real)
{
  int best = -1;
  double bd = INFINITY;
  for (int i = 0; i < n; i++) {
    if (want_real >= 0 && is_real(fro[i]) != want_real)
      continue;
    double d = cabs(fro[i] - to);
    if (d < bd) {
      bd = d;
      best = i;
    }
  }
  return best;
}

static int count_real(const cplx *v, int n)
{
  int c = 0;
  for (int i = 0; i < n; i++)
    c += is_real(v[i]);
  return c;
}

/* Monic polynomial of up to two roots, right-aligned into out[0..2] as scipy's _single_zpksos.
 * `pair` means r2 == conj(r1). */
static void quad_from_roots(int nroots, cplx r1, cplx r2, int pair, double out[3])
{
  out[0] = out[1] = out[2] = 0.0;
  if (nroots == 0) {
    out[2] = 1.0;
  } else if (nroots == 1) {
    out[1] = 1.0;
    out[2] = -creal(r1);
  } else if (pair) {
    double a = creal(r1), b = cimag(r1);
    out[0] = 1.0;
    out[1] = -2.0 * a;
    out[2] = a * a + b * b;
  } else {
    out[0] = 1.0;
    out[1] = -(creal(r1) + creal(r2));
    out[2] = creal(r1) * creal(r2);
  }
}

static void set_section(fx_sos_t *s, int nz, cplx z1, cplx z2, int zpair, int np, cplx p1, cplx p2,
                        int ppair)
{
  double b[3], a[3];
  quad_from_roots(nz, z1, z2, zpair, b);
  quad_from_roots(np, p1, p2, ppair, a);
  /* a is always monic of degree 2 here (two poles per section) */
  s->b0 = b[0] / a[0];
  s->b1 = b[1] / a[0];
  s->b2 = b[2] / a[0];
  s->a1 = a[1] / a[0];
  s->a2 = a[2] / a[0];
}

/* Converts digital zpk to sections; returns the number of sections or -1. The gain goes into
 * section 0. The zpk is consumed. */
static int zpk2sos(zpk_t *f, fx_sos_t *sos, int capacity)
{
  cplx *z = f->z, *p = f->p;
  int nz = f->nz, np = f->np;
  double k = xg_value(f->k);

  if (nz == 0 && np == 0) {
    if (capacity < 1)
      return -1;
    sos[0].b0 = k;
    sos[0].b1 = sos[0].b2 = sos[0].a1 = sos[0].a2 = 0.0;
    return 1;
  }
  while (np < nz)
    p[np++] = 0.0;
  while (nz < np)
    z[nz++] = 0.0;
  int n_sections = (np + 1) / 2;
  if (np % 2 == 1) {
    p[np++] = 0.0;
    z[nz++] = 0.0;
  }
  if (n_sections > capacity)
    return -1;
  nz = cplxreal(z, nz);
  np = cplxreal(p, np);
  if (nz < 0 || np < 0)
    return -1;

  for (int si = n_sections - 1; si >= 0; si--) {
    int i1 = idx_worst(p, np, -1);
    if (i1 < 0)
      return -1;
    cplx p1 = p[i1];
    delete_at(p, &np, i1);

    if (is_real(p1) && count_real(p, np) == 0) {
      /* last remaining real pole: first-order section padded with the origin */
      int zi = idx_nearest(z, nz, p1, 1);
      if (zi < 0)
        return -1;
      cplx z1 = z[zi];
      delete_at(z, &nz, zi);
      set_section(&sos[si], 2, z1, 0.0, 0, 2, p1, 0.0, 0);
    } else if (np + 1 == nz && !is_real(p1) && count_real(p, np) == 1 && count_real(z, nz) == 1) {
      /* one real pole and one real zero left: pair with a complex zero */
      int zi = idx_nearest(z, nz, p1, 0);
      if (zi < 0)
        return -1;
      cplx z1 = z[zi];
      delete_at(z, &nz, zi);
      set_section(&sos[si], 2, z1, conj(z1), 1, 2, p1, conj(p1), 1);
    } else {
      cplx p2;
      int ppair;
      if (is_real(p1)) {
        int i2 = idx_worst(p, np, 1);
        if (i2 < 0)
          return -1;
        p2 = p[i2];
        delete_at(p, &np, i2);
        ppair = 0;
      } else {
        p2 = conj(p1);
        ppair = 1;
      }
      if (nz > 0) {
        int zi = idx_nearest(z, nz, p1, -1);
        cplx z1 = z[zi];
        delete_at(z, &nz, zi);
        if (!is_real(z1)) {
          set_section(&sos[si], 2, z1, conj(z1), 1, 2, p1, p2, ppair);
        } else if (nz > 0) {
          int zj = idx_nearest(z, nz, p1, 1);
          if (zj < 0)
            return -1;
          cplx z2 = z[zj];
          delete_at(z, &nz, zj);
          set_section(&sos[si], 2, z1, z2, 0, 2, p1, p2, ppair);
        } else {
          set_section(&sos[si], 1, z1, 0.0, 0, 2, p1, p2, ppair);
        }
      } else {
        set_section(&sos[si], 0, 0.0, 0.0, 0, 2, p1, p2, ppair);
      }
    }
  }
  if (np != 0 || nz != 0)
    return -1;
  /* scipy puts the whole gain into the first section. A gain so small (or large) that it, or a
   * quiet signal multiplied by it, would leave the normal double range (high orders at very low
   * cutoffs) is spread evenly over the sections instead. */
  double lg = log2(fabs(f->k.m)) + f->k.e;
  if (f->k.m != 0.0 && n_sections > 1 && fabs(lg) > GAIN_SPREAD_LOG2) {
    double per = exp2(lg / n_sections);
    for (int i = 0; i < n_sections; i++) {
      double g = i == 0 ? copysign(per, f->k.m) : per;
      sos[i].b0 *= g;
      sos[i].b1 *= g;
      sos[i].b2 *= g;
    }
    return n_sections;
  }
  sos[0].b0 *= k;
  sos[0].b1 *= k;
  sos[0].b2 *= k;
  return n_sections;
}

/* ------------------------------------------------------------------------------------------ */
/* Section helpers                                                                              */

int fx_sos_is_stable(const fx_sos_t *s)
{
  double a1 = s->a1, a2 = s->a2;
  if (!isfinite(a1) || !isfinite(a2))
    return 0;
  /* Schur–Cohn / stability triangle for z^2 + a1 z + a2: both roots strictly inside. */
  return fabs(a2) < 1.0 && fabs(a1) < 1.0 + a2;
}

int fx_sos_is_finite(const fx_sos_t *s)
{
  return isfinite(s->b0) && isfinite(s->b1) && isfinite(s->b2) && isfinite(s->a1) &&
         isfinite(s->a2);
}

fx_status_t fx_sos_from_row(const double row[6], fx_sos_t *out)
{
  if (!row || !out)
    return FX_ERR_SYNTAX;
  for (int i = 0; i < 6; i++)
    if (!isfinite(row[i]))
      return FX_ERR_NONFINITE;
  if (row[3] == 0.0)
    return FX_ERR_A0;
  fx_sos_t s;
  s.b0 = row[0] / row[3];
  s.b1 = row[1] / row[3];
  s.b2 = row[2] / row[3];
  s.a1 = row[4] / row[3];
  s.a2 = row[5] / row[3];
  if (!fx_sos_is_finite(&s))
    return FX_ERR_NONFINITE;
  if (!fx_sos_is_stable(&s))
    return FX_ERR_UNSTABLE;
  *out = s;
  return FX_OK;
}

void fx_sos_response(const fx_sos_t *sos, int n, double f, double rate, double *re, double *im)
{
  double w = 2.0 * M_PI * f / rate;
  cplx z1 = cos(w) - I * sin(w); /* z^-1 */
  cplx z2 = z1 * z1;
  cplx h = 1.0;
  for (int i = 0; i < n; i++) {
    cplx num = sos[i].b0 + sos[i].b1 * z1 + sos[i].b2 * z2;
    cplx den = 1.0 + sos[i].a1 * z1 + sos[i].a2 * z2;
    h *= num / den;
  }
  if (re)
    *re = creal(h);
  if (im)
    *im = cimag(h);
}

/* ------------------------------------------------------------------------------------------ */
/* IIR designs                                                                                  */

static int freq_ok(double f, double rate)
{
  return isfinite(f) && f > 0.0 && f < 0.5 * rate;
}

fx_status_t fx_iir_spec_check(const fx_iir_spec_t *spec)
{
  if (!spec)
    return FX_ERR_TYPE;
  if ((int) spec->family < FX_FAMILY_BUTTERWORTH || (int) spec->family > FX_FAMILY_ELLIPTIC)
    return FX_ERR_TYPE;
  if ((int) spec->mode < FX_MODE_LOW_PASS || (int) spec->mode > FX_MODE_BAND_REJECT)
    return FX_ERR_TYPE;
  if (!isfinite(spec->rate) || !(spec->rate > 0.0))
    return FX_ERR_RATE;
  int max_order = spec->family == FX_FAMILY_ELLIPTIC ? FX_ELLIPTIC_MAX_ORDER : FX_MAX_ORDER;
  if (spec->order < 1 || spec->order > max_order)
    return FX_ERR_ORDER;
  if (spec->mode == FX_MODE_LOW_PASS || spec->mode == FX_MODE_HIGH_PASS) {
    if (!freq_ok(spec->cutoff, spec->rate))
      return FX_ERR_CUTOFF;
  } else {
    if (!freq_ok(spec->lower, spec->rate))
      return FX_ERR_LOWER;
    if (!freq_ok(spec->upper, spec->rate))
      return FX_ERR_UPPER;
    if (!(spec->lower < spec->upper))
      return FX_ERR_BAND;
  }
  if (spec->family == FX_FAMILY_CHEBYSHEV1 || spec->family == FX_FAMILY_ELLIPTIC) {
    if (!isfinite(spec->ripple) || !(spec->ripple > 0.0))
      return FX_ERR_RIPPLE;
  }
  if (spec->family == FX_FAMILY_CHEBYSHEV2 || spec->family == FX_FAMILY_ELLIPTIC) {
    if (!isfinite(spec->attenuation) || !(spec->attenuation > 0.0))
      return FX_ERR_ATTENUATION;
  }
  if (spec->family == FX_FAMILY_ELLIPTIC && !(spec->attenuation > spec->ripple))
    return FX_ERR_ATTENUATION;
  return FX_OK;
}

int fx_iir_sections_needed(const fx_iir_spec_t *spec)
{
  if (!spec || spec->order < 1)
    return 0;
  int poles = spec->order;
  if (spec->mode == FX_MODE_BAND_PASS || spec->mode == FX_MODE_BAND_REJECT)
    poles *= 2;
  return (poles + 1) / 2;
}

/* Pre-warped analog edge for a digital frequency f (Hz) with scipy's fs = 2 normalisation. */
static double prewarp(double f, double rate)
{
  double wn = f / (0.5 * rate);
  return 2.0 * 2.0 * tan(M_PI * wn / 2.0);
}

/* Final checks of a digital design: poles inside, sections finite and stable. */
static fx_status_t finish(zpk_t *f, fx_sos_t *sos, int capacity, int *n_sections)
{
  for (int i = 0; i < f->np; i++) {
    if (!isfinite(creal(f->p[i])) || !isfinite(cimag(f->p[i])))
      return FX_ERR_NONFINITE;
    if (!(cabs(f->p[i]) < 1.0))
      return FX_ERR_UNSTABLE;
  }
  for (int i = 0; i < f->nz; i++)
    if (!isfinite(creal(f->z[i])) || !isfinite(cimag(f->z[i])))
      return FX_ERR_NONFINITE;
  if (!isfinite(f->k.m))
    return FX_ERR_NONFINITE;
  int n = zpk2sos(f, sos, capacity);
  if (n < 0)
    return FX_ERR_NONFINITE;
  for (int i = 0; i < n; i++) {
    if (!fx_sos_is_finite(&sos[i]))
      return FX_ERR_NONFINITE;
    if (!fx_sos_is_stable(&sos[i]))
      return FX_ERR_UNSTABLE;
  }
  *n_sections = n;
  return FX_OK;
}

/* A design whose poles land on (or beyond) the unit circle although the spec check accepted its
 * frequencies has an edge so close to 0 or to Nyquist (or band edges so close together) that the
 * bilinear transform rounds its poles onto the circle: that is a frequency out of the range this
 * order can be designed in, reported as such (the element names the property), not as an
 * unstable section. Other statuses pass through. */
static fx_status_t edge_status(const fx_iir_spec_t *spec, fx_status_t st)
{
  if (st != FX_ERR_UNSTABLE)
    return st;
  if (spec->mode == FX_MODE_LOW_PASS || spec->mode == FX_MODE_HIGH_PASS)
    return FX_ERR_CUTOFF;
  const double ny = 0.5 * spec->rate;
  const double dl = fmin(spec->lower, ny - spec->lower), du = fmin(spec->upper, ny - spec->upper);
  if (spec->upper - spec->lower < fmin(dl, du))
    return FX_ERR_BAND;
  return dl <= du ? FX_ERR_LOWER : FX_ERR_UPPER;
}

fx_status_t fx_design_iir(const fx_iir_spec_t *spec, fx_sos_t *sos, int capacity, int *n_sections)
{
  zpk_t f;
  int dummy;
  memset(&f, 0, sizeof f);
  if (!n_sections)
    n_sections = &dummy;
  *n_sections = 0;
  fx_status_t st = fx_iir_spec_check(spec);
  if (st != FX_OK)
    return st;
  if (!sos || capacity < fx_iir_sections_needed(spec))
    return FX_ERR_CAPACITY;

  switch (spec->family) {
  case FX_FAMILY_BUTTERWORTH:
    buttap(spec->order, &f);
    break;
  case FX_FAMILY_CHEBYSHEV1:
    cheb1ap(spec->order, spec->ripple, &f);
    break;
  case FX_FAMILY_CHEBYSHEV2:
    cheb2ap(spec->order, spec->attenuation, &f);
    break;
  case FX_FAMILY_ELLIPTIC:
    switch (ellipap(spec->order, spec->ripple, spec->attenuation, &f)) {
    case 0:
      break;
    case -1:
      return FX_ERR_ATTENUATION;
    default:
      return FX_ERR_UNSTABLE; /* the design degenerates (parameter m reaches 1) */
    }
    break;
  default:
    return FX_ERR_TYPE;
  }

  switch (spec->mode) {
  case FX_MODE_LOW_PASS:
    lp2lp_zpk(&f, prewarp(spec->cutoff, spec->rate));
    break;
  case FX_MODE_HIGH_PASS:
    lp2hp_zpk(&f, prewarp(spec->cutoff, spec->rate));
    break;
  case FX_MODE_BAND_PASS:
  case FX_MODE_BAND_REJECT: {
    double w1 = prewarp(spec->lower, spec->rate), w2 = prewarp(spec->upper, spec->rate);
    double bw = w2 - w1, wo = sqrt(w1 * w2);
    if (spec->mode == FX_MODE_BAND_PASS)
      lp2bp_zpk(&f, wo, bw);
    else
      lp2bs_zpk(&f, wo, bw);
    break;
  }
  default:
    return FX_ERR_TYPE;
  }
  bilinear_zpk(&f, 2.0);
  return edge_status(spec, finish(&f, sos, capacity, n_sections));
}

fx_status_t fx_design_linkwitz_riley(fx_mode_t mode, int order, double cutoff, double rate,
                                     fx_sos_t *sos, int capacity, int *n_sections)
{
  zpk_t f;
  int dummy;
  memset(&f, 0, sizeof f);
  if (!n_sections)
    n_sections = &dummy;
  *n_sections = 0;
  if (mode != FX_MODE_LOW_PASS && mode != FX_MODE_HIGH_PASS)
    return FX_ERR_TYPE;
  if (!isfinite(rate) || !(rate > 0.0))
    return FX_ERR_RATE;
  if (order < 2 || order > FX_LR_MAX_ORDER || order % 2 != 0)
    return FX_ERR_ORDER;
  if (!freq_ok(cutoff, rate))
    return FX_ERR_CUTOFF;
  if (!sos || capacity < order / 2)
    return FX_ERR_CAPACITY;

  int half = order / 2;
  buttap(half, &f);
  double wo = prewarp(cutoff, rate);
  if (mode == FX_MODE_LOW_PASS)
    lp2lp_zpk(&f, wo);
  else
    lp2hp_zpk(&f, wo);
  bilinear_zpk(&f, 2.0);
  /* square it */
  for (int i = 0; i < f.nz; i++)
    f.z[f.nz + i] = f.z[i];
  for (int i = 0; i < f.np; i++)
    f.p[f.np + i] = f.p[i];
  f.nz *= 2;
  f.np *= 2;
  f.k = xg_mulg(f.k, f.k);
  if (mode == FX_MODE_HIGH_PASS && half % 2 == 1)
    f.k.m = -f.k.m;
  {
    /* poles rounded onto the unit circle: the cutoff is out of the designable range */
    const fx_status_t st = finish(&f, sos, capacity, n_sections);
    return st == FX_ERR_UNSTABLE ? FX_ERR_CUTOFF : st;
  }
}

/* ------------------------------------------------------------------------------------------ */
/* RBJ Audio-EQ-Cookbook biquads                                                                */

fx_status_t fx_design_biquad(fx_biquad_type_t type, double frequency, double q, double gain_db,
                             double rate, fx_sos_t *sos)
{
  if ((int) type < FX_BIQUAD_LOW_PASS || (int) type > FX_BIQUAD_HIGH_SHELF)
    return FX_ERR_TYPE;
  if (!isfinite(rate) || !(rate > 0.0))
    return FX_ERR_RATE;
  if (!freq_ok(frequency, rate))
    return FX_ERR_FREQUENCY;
  if (!isfinite(q) || !(q > 0.0))
    return FX_ERR_Q;
  if (!isfinite(gain_db))
    return FX_ERR_GAIN;
  if (!sos)
    return FX_ERR_CAPACITY;

  double w0 = 2.0 * M_PI * frequency / rate;
  double cw = cos(w0), sw = sin(w0);
  double sh = sin(0.5 * w0);
  double omc = 2.0 * sh * sh; /* 1 - cos(w0) without cancellation */
  double alpha = sw / (2.0 * q);
  double A = pow(10.0, gain_db / 40.0);
  double b0, b1, b2, a0, a1, a2;

  switch (type) {
  case FX_BIQUAD_LOW_PASS:
    b0 = omc / 2;
    b1 = omc;
    b2 = omc / 2;
    a0 = 1 + alpha;
    a1 = -2 * cw;
    a2 = 1 - alpha;
    break;
  case FX_BIQUAD_HIGH_PASS:
    b0 = (1 + cw) / 2;
    b1 = -(1 + cw);
    b2 = (1 + cw) / 2;
    a0 = 1 + alpha;
    a1 = -2 * cw;
    a2 = 1 - alpha;
    break;
  case FX_BIQUAD_BAND_PASS:
    b0 = alpha;
    b1 = 0;
    b2 = -alpha;
    a0 = 1 + alpha;
    a1 = -2 * cw;
    a2 = 1 - alpha;
    break;
  case FX_BIQUAD_BAND_PASS_PEAK:
    b0 = sw / 2;
    b1 = 0;
    b2 = -sw / 2;
    a0 = 1 + alpha;
    a1 = -2 * cw;
    a2 = 1 - alpha;
    break;
  case FX_BIQUAD_NOTCH:
    b0 = 1;
    b1 = -2 * cw;
    b2 = 1;
    a0 = 1 + alpha;
    a1 = -2 * cw;
    a2 = 1 - alpha;
    break;
  case FX_BIQUAD_ALL_PASS:
    b0 = 1 - alpha;
    b1 = -2 * cw;
    b2 = 1 + alpha;
    a0 = 1 + alpha;
    a1 = -2 * cw;
    a2 = 1 - alpha;
    break;
  case FX_BIQUAD_PEAKING:
    b0 = 1 + alpha * A;
    b1 = -2 * cw;
    b2 = 1 - alpha * A;
    a0 = 1 + alpha / A;
    a1 = -2 * cw;
    a2 = 1 - alpha / A;
    break;
  case FX_BIQUAD_LOW_SHELF: {
    double sa = 2 * sqrt(A) * alpha;
    b0 = A * ((A + 1) - (A - 1) * cw + sa);
    b1 = 2 * A * ((A - 1) - (A + 1) * cw);
    b2 = A * ((A + 1) - (A - 1) * cw - sa);
    a0 = (A + 1) + (A - 1) * cw + sa;
    a1 = -2 * ((A - 1) + (A + 1) * cw);
    a2 = (A + 1) + (A - 1) * cw - sa;
    break;
  }
  case FX_BIQUAD_HIGH_SHELF: {
    double sa = 2 * sqrt(A) * alpha;
    b0 = A * ((A + 1) + (A - 1) * cw + sa);
    b1 = -2 * A * ((A - 1) + (A + 1) * cw);
    b2 = A * ((A + 1) + (A - 1) * cw - sa);
    a0 = (A + 1) - (A - 1) * cw + sa;
    a1 = 2 * ((A - 1) - (A + 1) * cw);
    a2 = (A + 1) - (A - 1) * cw - sa;
    break;
  }
  default:
    return FX_ERR_TYPE;
  }
  double row[6] = {b0, b1, b2, a0, a1, a2};
  return fx_sos_from_row(row, sos);
}
