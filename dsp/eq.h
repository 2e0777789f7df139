/* gst-fx — N-band parametric EQ design: one RBJ Audio-EQ-Cookbook section per band (built on
 * fx_design_biquad()), the pre-gain folded into the first section. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FX_EQ_H
#define FX_EQ_H

#include "design.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FX_EQ_MAX_BANDS 32

/* One band: an RBJ biquad type (the EQ uses peaking, low-shelf, high-shelf, low-pass, high-pass
 * and notch), its centre or corner frequency in Hz, RBJ's Q (for the shelves too: Q = 1/sqrt(2)
 * is the cookbook's slope S = 1, the steepest shelf without overshoot) and the gain in dB
 * (peaking and shelves). */
typedef struct {
  fx_biquad_type_t type;
  double frequency;
  double q;
  double gain_db;
} fx_eq_band_t;

/* 1 when the band is an exact identity: peaking or a shelf at 0 dB gain (any frequency, any Q). */
int fx_eq_band_is_identity(const fx_eq_band_t *band);

/* The default centre frequency of band `index` of `n_bands`: logarithmically spaced band centres
 * over 20 Hz .. 20 kHz, 20 * 1000^((index + 0.5) / n_bands). */
double fx_eq_default_frequency(int index, int n_bands);

/* Designs the EQ for sample rate `rate`: exactly one section per band, in band order (an identity
 * band gives the identity section 1 0 0 / 1 0 0, so the cascade's shape does not depend on the
 * gains and its frequency is not checked), with the linear pre-gain 10^(pre_gain_db/20) folded
 * into the first section's numerator. n_bands must be 1..FX_EQ_MAX_BANDS and capacity >=
 * n_bands. On a band's error returns fx_design_biquad()'s status for it and sets *bad_band to its
 * index; *bad_band is -1 for errors that are not a band's (FX_ERR_GAIN then means pre_gain_db is
 * not finite). */
fx_status_t fx_design_eq(const fx_eq_band_t *bands, int n_bands, double pre_gain_db, double rate,
                         fx_sos_t *sos, int capacity, int *n_sections, int *bad_band);

#ifdef __cplusplus
}
#endif

#endif
