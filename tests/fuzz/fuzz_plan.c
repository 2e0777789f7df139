/* gst-fx — fuzz target: the fusion planner (dsp/plan.h), fxchain's chain handling below
 * GStreamer.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Random chains of IIR (0..8 sections), gain (clipping or not, any value) and opaque stages, with
 * fusion on or off and random output capacities. Invariants: the plan stages tile the chain in
 * order; a cascade covers IIR and non-clipping gain stages only and at least one IIR stage; its
 * counts and folded gain match what it covers; an opaque plan stage covers one stage; every
 * IIR stage is in a cascade; with fusion on no two cascades are adjacent; fx_plan_collect and
 * fx_plan_cascade_stages return what the stage covers or a clean FX_ERR_CAPACITY. */
#include "plan.h"
#include "fuzz.h"

#define MAX_STAGES 40

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fuzz_in_t in = {data, size};
  fx_plan_entry_t st[MAX_STAGES];
  fx_sos_t pool[MAX_STAGES][8], out_sos[MAX_STAGES * 8];
  fx_plan_stage_t plan[MAX_STAGES + 1];
  fx_cascade_stage_t cst[MAX_STAGES + 1];
  int n = fuzz_u8(&in) % (MAX_STAGES + 1), fuse = fuzz_u8(&in) & 1;
  int cap = fuzz_u8(&in) % (MAX_STAGES + 2), total, next = 0;

  for (int i = 0; i < n; i++) {
    uint8_t k = fuzz_u8(&in);
    memset(&st[i], 0, sizeof st[i]);
    st[i].kind = (fx_plan_entry_kind_t) (k % 3);
    if (st[i].kind == FX_PLAN_ENTRY_IIR) {
      st[i].n_sections = (k >> 2) % 9;
      for (int s = 0; s < st[i].n_sections; s++)
        pool[i][s] = (fx_sos_t){1.0 + i, 0.5, 0.25, -0.5, 0.25 * s / 8.0};
      st[i].sos = pool[i];
    } else if (st[i].kind == FX_PLAN_ENTRY_GAIN) {
      st[i].gain = fuzz_u8(&in) % 8 ? fuzz_range(&in, -4.0, 4.0) : fuzz_raw_double(&in);
      st[i].clip = (k >> 2) & 1;
    }
  }
  total = fx_plan_chain(st, n, fuse, plan, cap);
  FUZZ_CHECK(total >= (n > 0 ? 1 : 0) && total <= n, "plan of %d stages for %d", total, n);
  if (total > cap)
    total = fx_plan_chain(st, n, fuse, plan, MAX_STAGES + 1);
  FUZZ_CHECK(fx_plan_chain(NULL, 3, fuse, plan, cap) == -1, "NULL stages accepted");
  FUZZ_CHECK(fx_plan_chain(st, -1, fuse, plan, cap) == -1, "negative count accepted");

  for (int p = 0; p < total; p++) {
    const fx_plan_stage_t *ps = &plan[p];
    int iir = 0, gains = 0, secs = 0, m = 0, got = -1;
    double gain = 1.0, g = -1.0;
    fx_status_t s;
    FUZZ_CHECK(ps->first == next && ps->last >= ps->first && ps->last < n, "stage %d: %d..%d", p,
               ps->first, ps->last);
    next = ps->last + 1;
    for (int i = ps->first; i <= ps->last; i++) {
      if (st[i].kind == FX_PLAN_ENTRY_IIR) {
        iir++;
        secs += st[i].n_sections;
      } else if (st[i].kind == FX_PLAN_ENTRY_GAIN && !st[i].clip) {
        gains++;
        gain *= st[i].gain;
      }
    }
    if (ps->is_cascade) {
      FUZZ_CHECK(iir >= 1 && iir + gains == ps->last - ps->first + 1,
                 "cascade %d covers %d IIR, %d gains of %d", p, iir, gains,
                 ps->last - ps->first + 1);
      FUZZ_CHECK(ps->n_iir == iir && ps->n_gains == gains && ps->n_sections == secs,
                 "cascade %d counts", p);
      FUZZ_CHECK(ps->gain == gain || (isnan(ps->gain) && isnan(gain)), "gain %g vs %g", ps->gain,
                 gain);
      if (!fuse)
        FUZZ_CHECK(iir == 1 && gains == 0, "fusion off fused %d stages", iir + gains);
      if (fuse && p > 0)
        FUZZ_CHECK(!plan[p - 1].is_cascade, "adjacent cascades %d, %d", p - 1, p);
      s = fx_plan_collect(st, ps, out_sos, m = fuzz_u8(&in) % (MAX_STAGES * 8 + 1), &got, &g);
      if (secs <= m) {
        FUZZ_CHECK(s == FX_OK && got == secs, "collect: %d, %d sections of %d", s, got, secs);
      } else {
        FUZZ_CHECK(s == FX_ERR_CAPACITY, "collect: %d with capacity %d < %d", s, m, secs);
      }
      m = fuzz_u8(&in) % (MAX_STAGES + 2);
      s = fx_plan_cascade_stages(st, ps, cst, m, &got);
      if (iir + gains <= m)
        FUZZ_CHECK(s == FX_OK && got == iir + gains, "stages: %d, %d", s, got);
      else
        FUZZ_CHECK(s == FX_ERR_CAPACITY, "stages: %d with capacity %d < %d", s, m, iir + gains);
    } else {
      FUZZ_CHECK(ps->first == ps->last, "opaque plan stage %d covers %d stages", p,
                 ps->last - ps->first + 1);
      FUZZ_CHECK(st[ps->first].kind != FX_PLAN_ENTRY_IIR, "IIR stage %d left opaque", ps->first);
      FUZZ_CHECK(fx_plan_cascade_stages(st, ps, cst, MAX_STAGES + 1, &got) == FX_ERR_TYPE,
                 "opaque stage as cascade");
    }
  }
  FUZZ_CHECK(next == n, "plan ends at %d of %d", next, n);
  return 0;
}
