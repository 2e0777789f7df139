/* gst-fx — subnormal numbers never reach the arithmetic results of the kernels or of the gain
 * (DESIGN §3 Denormals). A deterministic check instead of a timer: subnormal arithmetic is slow
 * only through microcode assists, which no instruction count shows (and valgrind does not emulate
 * MXCSR's FTZ/DAZ; docs/reliability.md). Flush-to-zero + denormals-are-zero are what removes the
 * assists, and their effect is visible: with them no output sample and no state variable is ever
 * subnormal, for subnormal-only input and for decaying tails. Every kernel this CPU supports, every
 * arithmetic path, 1, 2 and 8 channels; the caller's floating-point mode is restored.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <string.h>

#include "design.h"
#include "gain.h"
#include "kernel.h"

#include "fxcheck.h"

#if defined(__SSE2__)
#include <xmmintrin.h>
/* The mode bits only (rounding, FTZ, DAZ, masks): the exception flags are sticky and set by
 * this test's own arithmetic. */
#define CSR() (_mm_getcsr() & ~0x3fu)
#else
#define CSR() 0u
#endif

#define K 8
#define FRAMES 4096

static int subnormal_d(const double *x, size_t n)
{
  int c = 0;
  for (size_t i = 0; i < n; i++)
    c += fpclassify(x[i]) == FP_SUBNORMAL;
  return c;
}

static int subnormal_f(const float *x, size_t n)
{
  int c = 0;
  for (size_t i = 0; i < n; i++)
    c += fpclassify(x[i]) == FP_SUBNORMAL;
  return c;
}

int main(void)
{
  fx_iir_spec_t spec = {FX_FAMILY_BUTTERWORTH, FX_MODE_LOW_PASS, 16, 48000, 20, 0, 0, 0, 0};
  fx_sos_t sos[K];
  int n = 0;
  double coef[5 * K];
  float coeff[5 * K];
  const int chans[] = {1, 2, 8};

  CHECK(fx_design_iir(&spec, sos, K, &n) == FX_OK && n == K, "design");
#if defined(__SSE2__)
  {
    /* valgrind does not emulate FTZ/DAZ: nothing to check there. */
    unsigned int csr = _mm_getcsr();
    volatile double a = 1e-300, b = 1e-10, r;
    _mm_setcsr(csr | 0x8040u);
    r = a * b;
    _mm_setcsr(csr);
    if (r != 0.0) {
      printf("flush-to-zero not honoured in this process (valgrind?): skipped\n");
      return 77;
    }
  }
#endif
  for (int s = 0; s < K; s++) {
    double v[5] = {sos[s].b0, sos[s].b1, sos[s].b2, sos[s].a1, sos[s].a2};
    for (int j = 0; j < 5; j++) {
      coef[5 * s + j] = v[j];
      coeff[5 * s + j] = (float) v[j];
    }
  }
  for (int ki = 0; ki < fx_isa_count(); ki++) {
    const fx_kernel_t *kern = fx_isa_get(ki)->iir;
    for (size_t ci = 0; ci < sizeof chans / sizeof chans[0]; ci++) {
      const int C = chans[ci];
      const size_t N = (size_t) FRAMES * (size_t) C;
      for (int path = 0; path < 3; path++) {
        static double xd[FRAMES * 8], stated[8 * K * 2];
        static float xf[FRAMES * 8], statef[8 * K * 2];
        int sub_out = 0, sub_state = 0;
        unsigned csr = CSR();
        memset(stated, 0, sizeof stated);
        memset(statef, 0, sizeof statef);
        /* Phase 0: subnormal-only input (random signs and mantissas); phase 1: an impulse;
         * phases 2..40: silence, through which the tail decays (~4 s at 48 kHz). */
        for (int phase = 0; phase < 40; phase++) {
          for (size_t i = 0; i < N; i++) {
            double r = rng_uniform();
            double v = phase == 0 ? r * (path == 0 ? 1e-310 : 1e-40)
                                  : (phase == 1 && i < (size_t) C ? 1.0 : 0.0);
            xd[i] = v;
            xf[i] = (float) v;
          }
          if (path == 0) {
            kern->f64(coef, stated, NULL, K, K, xd, FRAMES, C);
            sub_out += subnormal_d(xd, N);
            sub_state += subnormal_d(stated, (size_t) C * K * 2);
          } else if (path == 1) {
            kern->f32_d(coef, stated, NULL, K, K, xf, FRAMES, C);
            sub_out += subnormal_f(xf, N);
            sub_state += subnormal_d(stated, (size_t) C * K * 2);
          } else {
            kern->f32_s(coeff, statef, NULL, K, K, xf, FRAMES, C);
            sub_out += subnormal_f(xf, N);
            sub_state += subnormal_f(statef, (size_t) C * K * 2);
          }
        }
        CHECK(sub_out == 0 && sub_state == 0,
              "kernel %s path %d, %d ch: %d subnormal outputs, %d subnormal state values",
              kern->name, path, C, sub_out, sub_state);
        CHECK(CSR() == csr, "kernel %s path %d: floating-point mode not restored (%#x -> %#x)",
              kern->name, path, csr, CSR());
      }
    }
  }
  /* The gain: subnormal input, a ramp and a constant gain, F32 and F64. */
  {
    static double gd[1024];
    static float gf[1024];
    unsigned csr = CSR();
    for (int i = 0; i < 1024; i++) {
      gd[i] = rng_uniform() * 1e-310;
      gf[i] = (float) (rng_uniform() * 1e-40);
    }
    fx_gain_apply_f64(gd, 512, 2, 1.0, 0.5, 0);
    fx_gain_apply_f32(gf, 512, 2, 0.5, 0.5, 0);
    CHECK(subnormal_d(gd, 1024) == 0, "gain f64: %d subnormal outputs", subnormal_d(gd, 1024));
    CHECK(subnormal_f(gf, 1024) == 0, "gain f32: %d subnormal outputs", subnormal_f(gf, 1024));
    CHECK(CSR() == csr, "gain: floating-point mode not restored");
  }
  printf("%d checks, %d failures (%d kernels)\n", checks, failures, fx_isa_count());
  return failures ? 1 : 0;
}
