/* gst-fx — frequency responses of the linear stages (see response.h). Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "response.h"

#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

void fx_response_logspace(double fmin, double fmax, int n, double *freqs)
{
  if (n <= 0)
    return;
  freqs[0] = fmin;
  if (n == 1)
    return;
  double l0 = log(fmin), l1 = log(fmax);
  for (int i = 1; i < n - 1; i++)
    freqs[i] = exp(l0 + (l1 - l0) * (double) i / (double) (n - 1));
  freqs[n - 1] = fmax;
}

void fx_response_unity(double *re, double *im, int n)
{
  for (int i = 0; i < n; i++) {
    re[i] = 1.0;
    im[i] = 0.0;
  }
}

void fx_response_multiply_sos(const fx_sos_t *sos, int n_sections, const double *freqs, int n,
                              double rate, double *re, double *im)
{
  for (int i = 0; i < n; i++) {
    double hr, hi;
    fx_sos_response(sos, n_sections, freqs[i], rate, &hr, &hi);
    double r = re[i] * hr - im[i] * hi;
    double m = re[i] * hi + im[i] * hr;
    re[i] = r;
    im[i] = m;
  }
}

void fx_response_multiply_gain(double gain, double *re, double *im, int n)
{
  for (int i = 0; i < n; i++) {
    re[i] *= gain;
    im[i] *= gain;
  }
}

void fx_response_magnitude_db(const double *re, const double *im, int n, double *mag_db)
{
  for (int i = 0; i < n; i++)
    mag_db[i] = 20.0 * log10(hypot(re[i], im[i]));
}

void fx_response_phase_deg(const double *re, const double *im, int n, double *phase_deg)
{
  double offset = 0.0, prev = 0.0;
  for (int i = 0; i < n; i++) {
    double p = atan2(im[i], re[i]) * (180.0 / M_PI);
    if (i > 0) {
      double d = p + offset - prev;
      offset -= 360.0 * floor((d + 180.0) / 360.0);
    }
    phase_deg[i] = p + offset;
    prev = phase_deg[i];
  }
}

/* 1 when taps[k] == sign * taps[n - 1 - k] for every k (sign +1 or -1), up to rounding (a
 * designed kernel may be symmetric only to within an ulp). */
static int is_symmetric(const double *taps, size_t n, double sign)
{
  double peak = 0.0;
  for (size_t k = 0; k < n; k++)
    peak = fmax(peak, fabs(taps[k]));
  for (size_t k = 0; k < n / 2; k++)
    if (fabs(taps[k] - sign * taps[n - 1 - k]) > 1e-12 * peak)
      return 0;
  return 1;
}

/* (re, im) times (hr + j hi) times e^{+j ph}: one stage's response with its delay's phase ph
 * taken out. */
static void mul_undelayed(double *re, double *im, double hr, double hi, double ph)
{
  const double cr = cos(ph), ci = sin(ph);
  const double sr = hr * cr - hi * ci, si = hr * ci + hi * cr;
  const double r = *re * sr - *im * si, m = *re * si + *im * sr;
  *re = r;
  *im = m;
}

double fx_response_multiply_fir(const double *taps, size_t n_taps, const double *freqs, int n,
                                double rate, double *re, double *im)
{
  double d = 0.0;

  if (n_taps == 0) {
    fx_response_multiply_gain(0.0, re, im, n);
    return 0.0;
  }
  if (is_symmetric(taps, n_taps, 1.0) || is_symmetric(taps, n_taps, -1.0)) {
    d = 0.5 * (double) (n_taps - 1);
  } else {
    double e = 0.0, m = 0.0;
    for (size_t k = 0; k < n_taps; k++) {
      e += taps[k] * taps[k];
      m += (double) k * taps[k] * taps[k];
    }
    d = e > 0.0 ? m / e : 0.0;
  }
  for (int i = 0; i < n; i++) {
    double w = 2.0 * M_PI * freqs[i] / rate;
    double zr = cos(w), zi = -sin(w); /* z^-1 on the unit circle */
    double hr = taps[n_taps - 1], hi = 0.0;
    for (size_t k = n_taps - 1; k-- > 0;) {
      double r = hr * zr - hi * zi + taps[k];
      hi = hr * zi + hi * zr;
      hr = r;
    }
    /* take the delay d out: times exp(+j w d) */
    mul_undelayed(re + i, im + i, hr, hi, w * d);
  }
  return d;
}

static double clampd(double v, double lo, double hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

double fx_response_multiply_echo(double delay_samples, double feedback, double mix,
                                 const double *freqs, int n, double rate, double *re, double *im)
{
  double ds = delay_samples >= 1.0 ? delay_samples : 1.0;
  double fb = clampd(feedback, 0.0, 0.999), mx = clampd(mix, 0.0, 1.0);
  double ip = floor(ds), f = ds - ip;
  double a = 1.0 - mx, b = mx - (1.0 - mx) * fb;
  double d = fabs(b) > fabs(a) ? ip : 0.0;

  for (int i = 0; i < n; i++) {
    double w = 2.0 * M_PI * freqs[i] / rate;
    double ur = (1.0 - f) + f * cos(w), ui = -f * sin(w);  /* (1 - f) + f e^{-jw} */
    double pr = cos(w * ip), pi = -sin(w * ip);            /* e^{-jw i} */
    double tr = ur * pr - ui * pi, ti = ur * pi + ui * pr; /* T */
    double nr = a + b * tr, ni = b * ti;                   /* a + b T */
    double dr = 1.0 - fb * tr, di = -fb * ti;              /* 1 - fb T */
    double den = dr * dr + di * di;
    double qr = (nr * dr + ni * di) / den, qi = (ni * dr - nr * di) / den;
    mul_undelayed(re + i, im + i, qr, qi, w * d); /* e^{+jwd}: the delay taken out */
  }
  return d;
}

void fx_response_phase_deg_delayed(const double *re, const double *im, const double *freqs, int n,
                                   double rate, double delay, double *phase_deg)
{
  fx_response_phase_deg(re, im, n, phase_deg);
  for (int i = 0; i < n; i++)
    phase_deg[i] -= 360.0 * freqs[i] * delay / rate;
}
