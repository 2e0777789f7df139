/* gst-fx — frequency response of SOS cascades. Pure C11, no GLib.
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
