/* gst-fx — independent stability check for the fuzz targets: the largest pole radius of a
 * section, from the roots of z^2 + a1 z + a2 (not design.c's stability triangle).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FX_FUZZ_ROOTS_H
#define FX_FUZZ_ROOTS_H

#include <math.h>

#include "design.h"

static inline double fuzz_max_pole_radius(const fx_sos_t *s)
{
  double a1 = s->a1, a2 = s->a2;
  double disc = a1 * a1 - 4.0 * a2;
  if (!isfinite(a1) || !isfinite(a2))
    return INFINITY;
  if (disc < 0.0)
    return sqrt(a2); /* complex pair: |r|^2 = a2 */
  {
    /* Real roots, computed without cancellation. */
    double q = -0.5 * (a1 + (a1 >= 0 ? 1.0 : -1.0) * sqrt(disc));
    double r1 = fabs(q), r2 = q != 0.0 ? fabs(a2 / q) : 0.0;
    return r1 > r2 ? r1 : r2;
  }
}

#endif
