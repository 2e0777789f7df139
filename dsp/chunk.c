/* gst-fx — the chunked cascade's tables (chunk.h). Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "chunk.h"

#include <math.h>
#include <string.h>

void fx_chunk_sec_build(fx_chunk_sec_t *p, const double *coef)
{
  memcpy(p->coef, coef, sizeof(p->coef));
  const double a1 = coef[3], a2 = coef[4];
  /* The zero-input response from the unit states (1, 0) and (0, 1): y[n] = z1[n];
   * z1[n+1] = z2[n] - a1 y[n]; z2[n+1] = -a2 y[n]. */
  double u1 = 1.0, u2 = 0.0, v1 = 0.0, v2 = 1.0;
  for (int n = 0; n <= FX_CHUNK_L; n++) {
    p->h1[n] = u1;
    p->h2[n] = v1;
    p->h1f[n] = (float) u1;
    p->h2f[n] = (float) v1;
    const double nu1 = u2 - a1 * u1, nv1 = v2 - a1 * v1;
    u2 = -a2 * u1;
    v2 = -a2 * v1;
    u1 = nu1;
    v1 = nv1;
  }
  /* A^L: first row (h1[L], h2[L]); second row -a2 (h1[L-1], h2[L-1]). */
  p->M[0] = p->h1[FX_CHUNK_L];
  p->M[1] = p->h2[FX_CHUNK_L];
  p->M[2] = -a2 * p->h1[FX_CHUNK_L - 1];
  p->M[3] = -a2 * p->h2[FX_CHUNK_L - 1];
  p->M2[0] = p->M[0] * p->M[0] + p->M[1] * p->M[2];
  p->M2[1] = p->M[0] * p->M[1] + p->M[1] * p->M[3];
  p->M2[2] = p->M[2] * p->M[0] + p->M[3] * p->M[2];
  p->M2[3] = p->M[2] * p->M[1] + p->M[3] * p->M[3];
  p->sb[0] = coef[1] - a1 * coef[0];
  p->sb[1] = coef[2] - a2 * coef[0];
  p->sbf[0] = (float) p->sb[0];
  p->sbf[1] = (float) p->sb[1];
  const double v[5] = {coef[0], coef[1], coef[2], p->sb[0], p->sb[1]};
  p->scalable = 1;
  for (int i = 0; i < 5; i++) {
    const double a = fabs(v[i]);
    if (a != 0.0 && !(a >= 0x1p-60 && a <= 0x1p60))
      p->scalable = 0;
  }
}
