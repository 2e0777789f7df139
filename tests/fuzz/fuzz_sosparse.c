/* gst-fx — fuzz target: the fxsos sections parser, fx_sos_parse() (dsp/sosparse.c).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input: the first byte picks the capacity (0..63), the rest is the text. Invariants: success
 * returns 0 <= n <= capacity finite, stable sections (by design.c's helpers and independently by
 * the roots of z^2 + a1 z + a2); failure is one of the documented status codes with a bad row
 * in [-1, rows). Never a crash, an out-of-bounds access or UB (the sanitizers watch). */
#include "design.h"
#include "fuzz.h"
#include "roots.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fx_sos_t sos[64];
  int cap, n = -12345, bad = -12345;
  char *text;
  fx_status_t st;

  if (size == 0)
    return 0;
  cap = data[0] % 64;
  text = malloc(size);
  memcpy(text, data + 1, size - 1);
  text[size - 1] = '\0';
  st = fx_sos_parse(text, sos, cap, &n, &bad);
  FUZZ_CHECK(fx_status_string(st) != NULL, "status %d", st);
  if (st == FX_OK) {
    FUZZ_CHECK(n >= 0 && n <= cap, "n %d cap %d", n, cap);
    for (int i = 0; i < n; i++) {
      FUZZ_CHECK(fx_sos_is_finite(&sos[i]), "row %d not finite", i);
      FUZZ_CHECK(fx_sos_is_stable(&sos[i]), "row %d unstable", i);
      FUZZ_CHECK(fuzz_max_pole_radius(&sos[i]) < 1.0 + 1e-9, "row %d pole radius %.17g", i,
                 fuzz_max_pole_radius(&sos[i]));
    }
  } else {
    FUZZ_CHECK(st == FX_ERR_SYNTAX || st == FX_ERR_A0 || st == FX_ERR_NONFINITE ||
                   st == FX_ERR_UNSTABLE || st == FX_ERR_CAPACITY,
               "unexpected status %d (%s)", st, fx_status_string(st));
    FUZZ_CHECK(bad >= -1, "bad row %d", bad);
  }
  free(text);
  return 0;
}
