/* gst-fx — fuzz target: every design function of dsp/design.h with random parameters.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Parameters are mostly drawn from plausible ranges (so designs succeed and their output is
 * checked) and sometimes raw bit patterns (NaN, Inf, negative, subnormal, huge: refusals).
 * Invariants on success: the section count is the one announced (fx_iir_sections_needed, <=
 * capacity), every section is finite and stable by design.c's helper and, independently, by the
 * roots of its denominator, and the response is finite. A refusal is a documented status code.
 * fx_iir_spec_check agrees with the design: a spec it accepts designs (or is refused only as
 * unstable/capacity), a spec it refuses is refused with the same code. */
#include "design.h"
#include "fuzz.h"
#include "roots.h"

static void check_sections(const fx_sos_t *sos, int n, double rate, const char *what)
{
  for (int i = 0; i < n; i++) {
    FUZZ_CHECK(fx_sos_is_finite(&sos[i]), "%s: section %d not finite", what, i);
    FUZZ_CHECK(fx_sos_is_stable(&sos[i]), "%s: section %d unstable (a1 %.17g a2 %.17g)", what, i,
               sos[i].a1, sos[i].a2);
    /* Independent: the roots (the triangle test may accept radius 1 - 1e-16; allow rounding). */
    FUZZ_CHECK(fuzz_max_pole_radius(&sos[i]) < 1.0 + 1e-9, "%s: section %d pole radius %.17g", what,
               i, fuzz_max_pole_radius(&sos[i]));
  }
  int moderate = 1;
  for (int i = 0; i < n; i++)
    moderate &= fabs(sos[i].b0) < 1e100 && fabs(sos[i].b1) < 1e100 && fabs(sos[i].b2) < 1e100;
  /* (Coefficients near DBL_MAX, e.g. a row normalised by a tiny a0, overflow any evaluation.) */
  if (n > 0 && moderate && isfinite(rate) && rate > 0) {
    double re, im;
    fx_sos_response(sos, n, rate * 0.1, rate, &re, &im);
    /* A stable cascade has a finite response on the unit circle unless a zero-free pole pair sits
     * within rounding of it; NaN would mean broken arithmetic. */
    FUZZ_CHECK(!isnan(re) && !isnan(im), "%s: response NaN", what);
  }
}

static int status_ok(fx_status_t st)
{
  return st >= FX_OK && st <= FX_ERR_NONFINITE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fuzz_in_t in = {data, size};
  fx_sos_t sos[FX_DESIGN_MAX_SECTIONS + 2];
  uint8_t which = fuzz_u8(&in) % 4;
  int n = -1, cap;

  if (which == 0) {
    /* Butterworth, Chebyshev I/II, elliptic. */
    fx_iir_spec_t spec;
    fx_status_t chk, st;
    int need;
    uint8_t b = fuzz_u8(&in);
    spec.family = (fx_family_t) (b % 5);        /* 4: unknown family */
    spec.mode = (fx_mode_t) ((b / 5) % 5);      /* 4: unknown mode */
    spec.order = (int) (fuzz_u8(&in) % 70) - 2; /* -2 .. 67 */
    spec.rate = fuzz_param(&in, 1.0, 768000.0);
    spec.cutoff = fuzz_param(&in, 1e-4, 0.6) * (isfinite(spec.rate) ? spec.rate : 1.0);
    spec.lower = fuzz_param(&in, 1e-4, 0.6) * (isfinite(spec.rate) ? spec.rate : 1.0);
    spec.upper = fuzz_param(&in, 1e-4, 0.6) * (isfinite(spec.rate) ? spec.rate : 1.0);
    spec.ripple = fuzz_param(&in, 1e-3, 40.0);
    spec.attenuation = fuzz_param(&in, 0.1, 200.0);
    cap = fuzz_u8(&in) % 2 ? FX_DESIGN_MAX_SECTIONS : (int) (fuzz_u8(&in) % 66);
    chk = fx_iir_spec_check(&spec);
    need = fx_iir_sections_needed(&spec);
    st = fx_design_iir(&spec, sos, cap, &n);
    FUZZ_CHECK(status_ok(chk) && status_ok(st), "status %d / %d", chk, st);
    if (chk != FX_OK)
      FUZZ_CHECK(st == chk, "spec check %d but design %d", chk, st);
    if (st == FX_OK) {
      FUZZ_CHECK(chk == FX_OK, "designed a spec the check refuses (%d)", chk);
      FUZZ_CHECK(n == need && n <= cap && n >= 1, "n %d need %d cap %d", n, need, cap);
      check_sections(sos, n, spec.rate, "iir");
    } else if (chk == FX_OK) {
      /* Parameters the check accepts can still be beyond what double arithmetic designs (an
       * edge at 1e-300 Hz, 1e119 dB of attenuation): a clean refusal, never garbage. The
       * elliptic prototype refuses an attenuation it cannot realise (1e179 dB) that the check
       * lets through (unreachable from the elements, which cap it at 200 dB). */
      FUZZ_CHECK(st == FX_ERR_UNSTABLE || st == FX_ERR_NONFINITE || st == FX_ERR_CAPACITY ||
                     st == FX_ERR_CUTOFF || st == FX_ERR_LOWER || st == FX_ERR_UPPER ||
                     st == FX_ERR_BAND ||
                     (spec.family == FX_FAMILY_ELLIPTIC && st == FX_ERR_ATTENUATION),
                 "valid spec refused: %d (%s)", st, fx_status_string(st));
      if (st == FX_ERR_CAPACITY)
        FUZZ_CHECK(need > cap, "capacity %d refused for %d sections", cap, need);
    }
  } else if (which == 1) {
    fx_mode_t mode = (fx_mode_t) (fuzz_u8(&in) % 5);
    int order = (int) (fuzz_u8(&in) % 22) - 2;
    double rate = fuzz_param(&in, 1.0, 768000.0);
    double cutoff = fuzz_param(&in, 1e-4, 0.6) * (isfinite(rate) ? rate : 1.0);
    fx_status_t st;
    cap = fuzz_u8(&in) % 2 ? FX_DESIGN_MAX_SECTIONS : (int) (fuzz_u8(&in) % 10);
    st = fx_design_linkwitz_riley(mode, order, cutoff, rate, sos, cap, &n);
    FUZZ_CHECK(status_ok(st), "status %d", st);
    if (st == FX_OK) {
      FUZZ_CHECK(n >= 1 && n <= cap && order % 2 == 0 && n == order / 2, "n %d order %d cap %d", n,
                 order, cap);
      check_sections(sos, n, rate, "linkwitz-riley");
    }
  } else if (which == 2) {
    fx_biquad_type_t type = (fx_biquad_type_t) (fuzz_u8(&in) % 10);
    double rate = fuzz_param(&in, 1.0, 768000.0);
    double freq = fuzz_param(&in, 1e-4, 0.6) * (isfinite(rate) ? rate : 1.0);
    double q = fuzz_param(&in, 1e-3, 100.0);
    double gain = fuzz_param(&in, -60.0, 60.0);
    fx_status_t st = fx_design_biquad(type, freq, q, gain, rate, sos);
    FUZZ_CHECK(status_ok(st), "status %d", st);
    if (st == FX_OK)
      check_sections(sos, 1, rate, "biquad");
  } else {
    /* One row b0 b1 b2 a0 a1 a2. */
    double row[6];
    fx_status_t st;
    for (int i = 0; i < 6; i++)
      row[i] = fuzz_param(&in, -3.0, 3.0);
    st = fx_sos_from_row(row, sos);
    FUZZ_CHECK(st == FX_OK || st == FX_ERR_A0 || st == FX_ERR_NONFINITE || st == FX_ERR_UNSTABLE,
               "status %d", st);
    if (st == FX_OK)
      check_sections(sos, 1, 48000.0, "row");
  }
  return 0;
}
