/* Unit tests of the fusion planner (dsp/plan.c): plan shapes for mixed chains, and the identity
 * that one fused cascade filters exactly like the stages run one after another. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cascade.h"
#include "plan.h"

#include "fxcheck.h"

static fx_sos_t lp_sos[4], hp_sos[2], bq_sos[1];

static fx_plan_entry_t iir(const fx_sos_t *s, int n)
{
  fx_plan_entry_t st = {FX_PLAN_ENTRY_IIR, s, n, 1.0, 0};
  return st;
}

static fx_plan_entry_t gain(double g, int clip)
{
  fx_plan_entry_t st = {FX_PLAN_ENTRY_GAIN, NULL, 0, g, clip};
  return st;
}

static fx_plan_entry_t opaque(void)
{
  fx_plan_entry_t st = {FX_PLAN_ENTRY_OPAQUE, NULL, 0, 1.0, 0};
  return st;
}

static void design(void)
{
  fx_iir_spec_t lp = {FX_FAMILY_BUTTERWORTH, FX_MODE_LOW_PASS, 8, 48000, 12000, 0, 0, 0, 0};
  fx_iir_spec_t hp = {FX_FAMILY_BUTTERWORTH, FX_MODE_HIGH_PASS, 4, 48000, 80, 0, 0, 0, 0};
  int n;
  CHECK(fx_design_iir(&lp, lp_sos, 4, &n) == FX_OK && n == 4, "lp design");
  CHECK(fx_design_iir(&hp, hp_sos, 2, &n) == FX_OK && n == 2, "hp design");
  CHECK(fx_design_biquad(FX_BIQUAD_PEAKING, 3000, 1.4, 4.0, 48000, bq_sos) == FX_OK, "biquad");
}

static void test_shapes(void)
{
  fx_plan_stage_t p[16];
  int n;

  /* hp ! lp : one cascade of 6 sections */
  fx_plan_entry_t c1[] = {iir(hp_sos, 2), iir(lp_sos, 4)};
  n = fx_plan_chain(c1, 2, 1, p, 16);
  CHECK(n == 1 && p[0].is_cascade && p[0].first == 0 && p[0].last == 1 && p[0].n_sections == 6 &&
            p[0].n_iir == 2,
        "two IIR stages fuse (n=%d)", n);
  n = fx_plan_chain(c1, 2, 0, p, 16);
  CHECK(n == 2 && p[0].is_cascade && p[1].is_cascade && p[1].n_sections == 4, "fuse=0 keeps two");

  /* gain ! hp ! gain ! lp ! gain : one cascade, gains folded */
  fx_plan_entry_t c2[] = {gain(2, 0), iir(hp_sos, 2), gain(0.5, 0), iir(lp_sos, 4), gain(3, 0)};
  n = fx_plan_chain(c2, 5, 1, p, 16);
  CHECK(n == 1 && p[0].n_gains == 3 && fabs(p[0].gain - 3.0) < 1e-15 && p[0].first == 0 &&
            p[0].last == 4,
        "gains before, between, after fold (n=%d gain=%g)", n, p[0].gain);

  /* a clipping gain ends the run */
  fx_plan_entry_t c3[] = {iir(hp_sos, 2), gain(2, 1), iir(lp_sos, 4)};
  n = fx_plan_chain(c3, 3, 1, p, 16);
  CHECK(n == 3 && p[0].is_cascade && !p[1].is_cascade && p[2].is_cascade, "clip gain is opaque");

  /* an opaque element in the middle: exactly two cascades */
  fx_plan_entry_t c4[] = {iir(hp_sos, 2), iir(bq_sos, 1), opaque(), iir(lp_sos, 4), iir(bq_sos, 1)};
  n = fx_plan_chain(c4, 5, 1, p, 16);
  int cascades = 0;
  for (int i = 0; i < n && i < 16; i++)
    cascades += p[i].is_cascade;
  CHECK(n == 3 && cascades == 2 && p[1].first == 2 && !p[1].is_cascade, "opaque splits in two");

  /* only opaque stages, and only gains */
  fx_plan_entry_t c5[] = {opaque(), gain(2, 0), opaque()};
  n = fx_plan_chain(c5, 3, 1, p, 16);
  CHECK(n == 3 && !p[0].is_cascade && !p[1].is_cascade && !p[2].is_cascade, "no IIR, no cascade");

  /* empty chain and capacity handling */
  CHECK(fx_plan_chain(NULL, 0, 1, NULL, 0) == 0, "empty chain");
  CHECK(fx_plan_chain(c4, 5, 1, p, 1) == 3, "count returned past capacity");
  CHECK(fx_plan_chain(NULL, 2, 1, p, 16) == -1, "bad args");

  /* collect */
  fx_sos_t all[16];
  int ns;
  double g;
  n = fx_plan_chain(c2, 5, 1, p, 16);
  CHECK(fx_plan_collect(c2, &p[0], all, 16, &ns, &g) == FX_OK && ns == 6 && fabs(g - 3) < 1e-15,
        "collect");
  CHECK(memcmp(&all[0], &hp_sos[0], sizeof(fx_sos_t)) == 0 &&
            memcmp(&all[2], &lp_sos[0], sizeof(fx_sos_t)) == 0,
        "collect keeps chain order");
  CHECK(fx_plan_collect(c2, &p[0], all, 5, &ns, &g) == FX_ERR_CAPACITY, "collect capacity");

  /* stage descriptors for fx_cascade_set_stages() */
  fx_cascade_stage_t d[8];
  int nd = -1;
  CHECK(fx_plan_cascade_stages(c2, &p[0], d, 8, &nd) == FX_OK && nd == 5, "stages (n=%d)", nd);
  CHECK(d[0].kind == FX_CASCADE_STAGE_GAIN && d[0].gain == 2.0 &&
            d[1].kind == FX_CASCADE_STAGE_SECTIONS && d[1].sos == hp_sos && d[1].n == 2 &&
            d[1].gain == 1.0 && d[2].kind == FX_CASCADE_STAGE_GAIN && d[2].gain == 0.5 &&
            d[3].sos == lp_sos && d[3].n == 4 && d[4].kind == FX_CASCADE_STAGE_GAIN &&
            d[4].gain == 3.0,
        "stages keep chain order and kinds");
  CHECK(fx_plan_cascade_stages(c2, &p[0], d, 4, &nd) == FX_ERR_CAPACITY, "stages capacity");
  n = fx_plan_chain(c4, 5, 1, p, 16);
  CHECK(fx_plan_cascade_stages(c4, &p[1], d, 8, &nd) == FX_ERR_TYPE, "opaque is no cascade");
}

/* The fused cascade equals running each stage's cascade in turn (F64 ≤ 1e-12 relative). */
static void test_equivalence(void)
{
  enum { FRAMES = 8192, CH = 3 };
  fx_plan_entry_t chain[] = {gain(0.7, 0), iir(hp_sos, 2), iir(bq_sos, 1), gain(1.9, 0),
                             iir(lp_sos, 4)};
  fx_plan_stage_t p[4];
  fx_sos_t all[16];
  int ns;
  double g;
  double *x = malloc(sizeof(double) * FRAMES * CH);
  double *y_fused = malloc(sizeof(double) * FRAMES * CH);
  double *y_seq = malloc(sizeof(double) * FRAMES * CH);
  unsigned seed = 12345;
  for (int i = 0; i < FRAMES * CH; i++) {
    seed = seed * 1103515245u + 12345u;
    x[i] = ((seed >> 8) & 0xffff) / 32768.0 - 1.0;
  }
  CHECK(fx_plan_chain(chain, 5, 1, p, 4) == 1, "one cascade");
  CHECK(fx_plan_collect(chain, &p[0], all, 16, &ns, &g) == FX_OK, "collect");

  fx_cascade_t *fused = fx_cascade_new();
  fx_cascade_configure(fused, CH, FX_SAMPLE_F64, FX_PRECISION_DOUBLE);
  fx_cascade_set_sections(fused, all, ns, g);
  memcpy(y_fused, x, sizeof(double) * FRAMES * CH);
  fx_cascade_process(fused, y_fused, FRAMES);
  CHECK(fx_cascade_dispatches(fused) == 1, "one dispatch for the fused chain");

  memcpy(y_seq, x, sizeof(double) * FRAMES * CH);
  for (int s = 0; s < 5; s++) {
    if (chain[s].kind == FX_PLAN_ENTRY_GAIN) {
      for (int i = 0; i < FRAMES * CH; i++)
        y_seq[i] *= chain[s].gain;
      continue;
    }
    fx_cascade_t *c = fx_cascade_new();
    fx_cascade_configure(c, CH, FX_SAMPLE_F64, FX_PRECISION_DOUBLE);
    fx_cascade_set_sections(c, chain[s].sos, chain[s].n_sections, 1.0);
    fx_cascade_process(c, y_seq, FRAMES);
    fx_cascade_free(c);
  }
  double num = 0, den = 0;
  for (int i = 0; i < FRAMES * CH; i++) {
    num += (y_fused[i] - y_seq[i]) * (y_fused[i] - y_seq[i]);
    den += y_seq[i] * y_seq[i];
  }
  double rel = sqrt(num / den);
  printf("fused vs sequential: relative error %.3e\n", rel);
  CHECK(den > 0 && rel <= 1e-12, "fused equals sequential (rel %.3e)", rel);

  /* the same with the stages given to the engine */
  fx_cascade_stage_t d[8];
  int nd;
  CHECK(fx_plan_cascade_stages(chain, &p[0], d, 8, &nd) == FX_OK && nd == 5, "stages");
  fx_cascade_t *staged = fx_cascade_new();
  fx_cascade_configure(staged, CH, FX_SAMPLE_F64, FX_PRECISION_DOUBLE);
  CHECK(fx_cascade_set_stages(staged, d, nd) == FX_OK, "set_stages");
  CHECK(fx_cascade_sections(staged) == 7, "sections %d", fx_cascade_sections(staged));
  memcpy(y_fused, x, sizeof(double) * FRAMES * CH);
  fx_cascade_process(staged, y_fused, FRAMES);
  CHECK(fx_cascade_dispatches(staged) == 1, "one dispatch for the staged chain");
  num = den = 0;
  for (int i = 0; i < FRAMES * CH; i++) {
    num += (y_fused[i] - y_seq[i]) * (y_fused[i] - y_seq[i]);
    den += y_seq[i] * y_seq[i];
  }
  rel = sqrt(num / den);
  printf("staged vs sequential: relative error %.3e\n", rel);
  CHECK(den > 0 && rel <= 1e-12, "staged equals sequential (rel %.3e)", rel);
  fx_cascade_free(staged);
  fx_cascade_free(fused);
  free(x);
  free(y_fused);
  free(y_seq);
}

int main(void)
{
  design();
  test_shapes();
  test_equivalence();
  printf("%d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}
