/* gst-fx — the fusion planner. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A linear chain is described by one planner entry (fx_plan_entry_t) per element: IIR, gain or
 * opaque. It is cut into plan stages (fx_plan_stage_t): every maximal run of consecutive IIR
 * entries (with any non-clipping gain entries before, between or after them) becomes one cascade
 * that runs once per buffer; anything else — a clipping gain, any other element — ends the run
 * and stays an opaque plan stage that runs on its own. A run of gains with no IIR entry in it is
 * not a cascade: its gains stay opaque. With fusion off every IIR entry is a cascade of its own
 * and every other entry is opaque. (Inside a cascade, fx_cascade_stage_t is the engine's own
 * unit: a run of sections or a gain.) */
#ifndef FX_PLAN_H
#define FX_PLAN_H

#include "cascade.h"
#include "design.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  FX_PLAN_ENTRY_IIR = 0, /* second-order sections (n_sections may be 0: an identity) */
  FX_PLAN_ENTRY_GAIN,    /* a linear gain; foldable unless it clips */
  FX_PLAN_ENTRY_OPAQUE,  /* anything else */
} fx_plan_entry_kind_t;

typedef struct {
  fx_plan_entry_kind_t kind;
  const fx_sos_t *sos; /* FX_PLAN_ENTRY_IIR: the stage's sections (a0 == 1) */
  int n_sections;      /* FX_PLAN_ENTRY_IIR */
  double gain;         /* FX_PLAN_ENTRY_GAIN: linear gain */
  int clip;            /* FX_PLAN_ENTRY_GAIN: 1 when the gain clips (then it cannot fold) */
} fx_plan_entry_t;

typedef struct {
  int first, last; /* indices of the chain's stages this plan stage covers, inclusive */
  int is_cascade;  /* 1: runs as one cascade; 0: one opaque stage (first == last) */
  int n_iir;       /* IIR stages fused into the cascade */
  int n_gains;     /* gain stages folded into the cascade */
  int n_sections;  /* total sections of the cascade */
  double gain;     /* product of the folded gains */
} fx_plan_stage_t;

/* Plans `n` stages. Writes at most `capacity` plan stages and returns how many the plan has
 * (which may exceed capacity: call again with a larger array), or -1 on invalid arguments. */
int fx_plan_chain(const fx_plan_entry_t *stages, int n, int fuse, fx_plan_stage_t *out,
                  int capacity);

/* Concatenates the sections of the IIR stages covered by `ps` into sos[0..capacity) in chain
 * order; *n_sections receives the count and *gain the folded gain (apply it with
 * fx_cascade_set_sections' gain argument). FX_ERR_CAPACITY when sos is too small. */
fx_status_t fx_plan_collect(const fx_plan_entry_t *stages, const fx_plan_stage_t *ps, fx_sos_t *sos,
                            int capacity, int *n_sections, double *gain);

/* The stages covered by `ps` as engine stage descriptors (fx_cascade_set_stages()), in chain
 * order: each IIR stage as a SECTIONS stage (pointing at its sections, gain 1), each gain stage as
 * a GAIN stage. Writes at most `capacity` descriptors; *n_out receives the count. FX_ERR_CAPACITY
 * when out is too small, FX_ERR_TYPE when `ps` is not a cascade or covers an opaque stage. */
fx_status_t fx_plan_cascade_stages(const fx_plan_entry_t *stages, const fx_plan_stage_t *ps,
                                   fx_cascade_stage_t *out, int capacity, int *n_out);

#ifdef __cplusplus
}
#endif

#endif
