/* gst-fx — the SOS cascade engine: coefficient analysis. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Section balancing (why: docs/cascade.md, "Section balancing"): section s's numerator is
 * multiplied by 2^e_s, with sum(e_s) == 0, so that each section's peak gain is close to the K-th
 * root of the product of all section peaks. Powers of two are exact and every operation of a
 * section is linear, so the output is bit-identical to the unbalanced cascade's. Also: how far
 * poles move between two designs, and how long a warm-up of new sections needs. */
#include <math.h>

#include "cascade_impl.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

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

void fxc_build_coefs(const fx_sos_t *sos, int n, double gain, double *out, double *ex)
{
  if (n == 0 && gain != 1.0) {
    out[0] = gain;
    out[1] = out[2] = out[3] = out[4] = 0.0;
    ex[0] = ex[1] = 0.0;
    return;
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

double fxc_pole_distance(const double *a, const double *b, int K)
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

/* Frames a warm-up needs for K sections: until their slowest pole decays by FX_WARM_DECAY (not
 * capped by the window; at most FX_XF_MAX + FX_RING). */
size_t fxc_warm_need(const double *coef, int K)
{
  double rmax = 0.0;
  for (int s = 0; s < K; s++) {
    const double *d = coef + 5 * (size_t) s;
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
  const double cap = (double) (FX_XF_MAX + FX_RING);
  double n = rmax < 1.0 ? ceil(log(FX_WARM_DECAY) / log(rmax)) : cap;
  if (!(n <= cap))
    n = cap;
  return n < 2 ? 2 : (size_t) n;
}

/* Same section count: whether a section that keeps its poles, behind one whose poles move, is slow
 * (its transient outlasts FX_SLOW_FRAMES frames). Its input then changes character while its
 * direct-form-I state, derived from the old input's history, is left ringing for as long (an
 * fxsos whose first row's shelf drops by 10 dB in front of an unchanged 50 Hz notch with q 8
 * rings for seconds, several times louder than its input). A warm-up on the input gives such
 * sections the state the new signal gives them. Controller ramps move every section's poles,
 * so they keep the transfer. */
int fxc_slow_after_change(const double *old, const double *nw, int K)
{
  int moved = 0; /* a section before k moved its poles (by more than rounding: a design
                  * recomputed for the same parameters differs in the last bits) */
  for (int k = 0; k < K; k++) {
    const double *o = old + 5 * (size_t) k, *n = nw + 5 * (size_t) k;
    if (fabs(o[3] - n[3]) + fabs(o[4] - n[4]) > 1e-9)
      moved = 1;
    else if (moved && o[3] == n[3] && o[4] == n[4] && fxc_warm_need(n, 1) > FX_SLOW_FRAMES)
      return 1;
  }
  return 0;
}
