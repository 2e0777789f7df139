/* gst-fx — the fusion planner (see plan.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "plan.h"

#include <stddef.h>

static int foldable_gain(const fx_plan_entry_t *s)
{
  return s->kind == FX_PLAN_ENTRY_GAIN && !s->clip;
}

static void emit(fx_plan_stage_t *out, int capacity, int count, const fx_plan_stage_t *ps)
{
  if (count < capacity)
    out[count] = *ps;
}

static fx_plan_stage_t opaque_stage(int i)
{
  fx_plan_stage_t ps = {i, i, 0, 0, 0, 0, 1.0};
  return ps;
}

int fx_plan_chain(const fx_plan_entry_t *stages, int n, int fuse, fx_plan_stage_t *out,
                  int capacity)
{
  int count = 0;
  int i = 0;

  if (n < 0 || (n > 0 && stages == NULL) || capacity < 0 || (capacity > 0 && out == NULL))
    return -1;

  while (i < n) {
    const fx_plan_entry_t *s = &stages[i];
    if (!fuse || (s->kind != FX_PLAN_ENTRY_IIR && !foldable_gain(s))) {
      fx_plan_stage_t ps = opaque_stage(i);
      if (s->kind == FX_PLAN_ENTRY_IIR) {
        ps.is_cascade = 1;
        ps.n_iir = 1;
        ps.n_sections = s->n_sections;
      }
      emit(out, capacity, count++, &ps);
      i++;
      continue;
    }
    /* A maximal run of IIR stages and foldable gains. */
    int j = i;
    int n_iir = 0, n_gains = 0, n_sections = 0;
    double gain = 1.0;
    while (j < n && (stages[j].kind == FX_PLAN_ENTRY_IIR || foldable_gain(&stages[j]))) {
      if (stages[j].kind == FX_PLAN_ENTRY_IIR) {
        n_iir++;
        n_sections += stages[j].n_sections;
      } else {
        n_gains++;
        gain *= stages[j].gain;
      }
      j++;
    }
    if (n_iir == 0) {
      /* Only gains: nothing to fuse them into; each stays its own stage. */
      for (int k = i; k < j; k++) {
        fx_plan_stage_t ps = opaque_stage(k);
        emit(out, capacity, count++, &ps);
      }
    } else {
      fx_plan_stage_t ps = {i, j - 1, 1, n_iir, n_gains, n_sections, gain};
      emit(out, capacity, count++, &ps);
    }
    i = j;
  }
  return count;
}

fx_status_t fx_plan_collect(const fx_plan_entry_t *stages, const fx_plan_stage_t *ps, fx_sos_t *sos,
                            int capacity, int *n_sections, double *gain)
{
  int n = 0;
  double g = 1.0;

  if (stages == NULL || ps == NULL || n_sections == NULL || gain == NULL || !ps->is_cascade)
    return FX_ERR_TYPE;
  for (int i = ps->first; i <= ps->last; i++) {
    const fx_plan_entry_t *s = &stages[i];
    if (s->kind == FX_PLAN_ENTRY_GAIN) {
      g *= s->gain;
      continue;
    }
    if (s->kind != FX_PLAN_ENTRY_IIR)
      return FX_ERR_TYPE;
    if (n + s->n_sections > capacity)
      return FX_ERR_CAPACITY;
    for (int k = 0; k < s->n_sections; k++)
      sos[n++] = s->sos[k];
  }
  *n_sections = n;
  *gain = g;
  return FX_OK;
}

fx_status_t fx_plan_cascade_stages(const fx_plan_entry_t *stages, const fx_plan_stage_t *ps,
                                   fx_cascade_stage_t *out, int capacity, int *n_out)
{
  int n = 0;

  if (stages == NULL || ps == NULL || n_out == NULL || !ps->is_cascade ||
      (capacity > 0 && out == NULL))
    return FX_ERR_TYPE;
  for (int i = ps->first; i <= ps->last; i++) {
    const fx_plan_entry_t *s = &stages[i];
    fx_cascade_stage_t d;
    if (s->kind == FX_PLAN_ENTRY_IIR) {
      d.kind = FX_CASCADE_STAGE_SECTIONS;
      d.sos = s->sos;
      d.n = s->n_sections;
      d.gain = 1.0;
    } else if (s->kind == FX_PLAN_ENTRY_GAIN) {
      d.kind = FX_CASCADE_STAGE_GAIN;
      d.sos = NULL;
      d.n = 0;
      d.gain = s->gain;
    } else {
      return FX_ERR_TYPE;
    }
    if (n >= capacity)
      return FX_ERR_CAPACITY;
    out[n++] = d;
  }
  *n_out = n;
  return FX_OK;
}
