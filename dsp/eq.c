/* gst-fx — N-band parametric EQ design (see eq.h). Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "eq.h"

#include <math.h>

#include "gain.h"

int fx_eq_band_is_identity(const fx_eq_band_t *band)
{
  switch (band->type) {
  case FX_BIQUAD_PEAKING:
  case FX_BIQUAD_LOW_SHELF:
  case FX_BIQUAD_HIGH_SHELF:
    return band->gain_db == 0.0;
  default:
    return 0;
  }
}

double fx_eq_default_frequency(int index, int n_bands)
{
  if (n_bands < 1)
    n_bands = 1;
  return 20.0 * pow(1000.0, (index + 0.5) / n_bands);
}

fx_status_t fx_design_eq(const fx_eq_band_t *bands, int n_bands, double pre_gain_db, double rate,
                         fx_sos_t *sos, int capacity, int *n_sections, int *bad_band)
{
  double g;

  *bad_band = -1;
  if (!isfinite(rate) || !(rate > 0.0))
    return FX_ERR_RATE;
  if (!isfinite(pre_gain_db))
    return FX_ERR_GAIN;
  if (n_bands < 1 || n_bands > FX_EQ_MAX_BANDS || !bands)
    return FX_ERR_ORDER;
  if (!sos || capacity < n_bands)
    return FX_ERR_CAPACITY;

  for (int i = 0; i < n_bands; i++) {
    fx_status_t st;

    if (fx_eq_band_is_identity(&bands[i])) {
      sos[i] = (fx_sos_t){1.0, 0.0, 0.0, 0.0, 0.0};
      continue;
    }
    st = fx_design_biquad(bands[i].type, bands[i].frequency, bands[i].q, bands[i].gain_db, rate,
                          &sos[i]);
    if (st != FX_OK) {
      *bad_band = i;
      return st;
    }
  }
  g = fx_gain_db_to_linear(pre_gain_db);
  sos[0].b0 *= g;
  sos[0].b1 *= g;
  sos[0].b2 *= g;
  *n_sections = n_bands;
  return FX_OK;
}
