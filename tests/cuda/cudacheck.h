/* gst-fx — helpers shared by the CUDA tests (no GLib): random stable cascades, random input,
 * running a cascade in buffers, relative errors.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FX_TESTS_CUDACHECK_H
#define FX_TESTS_CUDACHECK_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../dsp/fxcheck.h"
#include "cascade.h"
#include "fxcuda.h"

/* K random stable sections: complex pole pairs of radius r in [0.3, rmax), zeros anywhere
 * within radius 1.2, each section scaled to unit power gain for white noise (the sum of its
 * squared impulse response), so that long cascades stay at signal level. */
static inline void random_sections_r(fx_sos_t *s, int K, double rmin, double rmax)
{
  for (int k = 0; k < K; k++) {
    const double r = rmin + (rmax - rmin) * 0.5 * (rng_uniform() + 1.0);
    const double th = M_PI * 0.5 * (rng_uniform() + 1.0);
    const double rz = 0.6 * (rng_uniform() + 1.0);
    const double ph = M_PI * 0.5 * (rng_uniform() + 1.0);
    s[k].b0 = 1.0;
    s[k].b1 = -2.0 * rz * cos(ph);
    s[k].b2 = rz * rz;
    s[k].a1 = -2.0 * r * cos(th);
    s[k].a2 = r * r;
    double z1 = 0, z2 = 0, e = 0;
    for (int i = 0; i < 20000; i++) {
      const double x = i == 0 ? 1.0 : 0.0;
      const double y = s[k].b0 * x + z1;
      z1 = s[k].b1 * x + z2 - s[k].a1 * y;
      z2 = s[k].b2 * x - s[k].a2 * y;
      e += y * y;
    }
    const double g = 1.0 / sqrt(e);
    s[k].b0 *= g;
    s[k].b1 *= g;
    s[k].b2 *= g;
  }
}

static inline void random_sections(fx_sos_t *s, int K, double rmax)
{
  random_sections_r(s, K, 0.3, rmax);
}

/* Fills n samples of white noise in [-1, 1). */
static inline void random_input(double *x, size_t n)
{
  for (size_t i = 0; i < n; i++)
    x[i] = rng_uniform();
}

/* Processes `frames` frames of `data` (format of the cascade) in buffers of `buf` frames (0: one
 * buffer; (size_t) -1: random sizes from 1 to 3000). */
static inline void process_in_buffers(fx_cascade_t *c, void *data, size_t frames, int channels,
                                      fx_sample_format_t fmt, size_t buf, size_t *nbuf)
{
  const size_t fb = (size_t) channels * (fmt == FX_SAMPLE_F64 ? sizeof(double) : sizeof(float));
  size_t done = 0, count = 0;
  while (done < frames) {
    size_t n = buf == 0 ? frames : buf;
    if (buf == (size_t) -1)
      n = 1 + (size_t) (rng_next() % 3000);
    if (n > frames - done)
      n = frames - done;
    fx_cascade_process(c, (unsigned char *) data + done * fb, n);
    done += n;
    count++;
  }
  if (nbuf)
    *nbuf = count;
}

/* ||a - ref|| / ||ref|| over n values, a given as float or double. */
static inline double rel_err(const void *a, int a_is_f64, const double *ref, size_t n)
{
  long double num = 0, den = 0;
  for (size_t i = 0; i < n; i++) {
    const double v = a_is_f64 ? ((const double *) a)[i] : (double) ((const float *) a)[i];
    const long double d = (long double) v - ref[i];
    num += d * d;
    den += (long double) ref[i] * ref[i];
  }
  if (den == 0)
    return num == 0 ? 0 : INFINITY;
  return (double) sqrtl(num / den);
}

#endif
