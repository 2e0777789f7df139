/* gst-fx — CUDA failure paths (no GLib); runs on every machine.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * meson runs this program several times with different environments (tests/cuda/meson.build):
 *   FX_CUDA_LIB=/nonexistent/...   no driver: probe and new fail with "no CUDA driver"; the
 *                                  cascade runs on the CPU;
 *   FX_CUDA_LIB= (empty), FX_FAULT_EXPECT=nokernels, in a build without nvcc: the real driver is
 *                                  refused, the reason says the build has no CUDA kernels;
 *   FX_CUDA_LIB=<fake driver>, FX_CUDA_FAIL=<call>[:n] (FX_FAULT_EXPECT=init|run):
 *     init: the call fails while the driver is set up: no backend, a reason naming the call;
 *     run:  the call fails mid-stream: the buffer of that call and all later ones are filtered
 *           on the CPU with the state carried over; the whole output matches a CPU-only engine
 *           on the same buffers (<= 1e-10 relative, F64), nothing is dropped, the error names
 *           the call and the cascade's hook is gone.
 * FX_FAULT_GRAPHS=0|1 selects eager launches or graphs for the run case, FX_FAULT_SCAN=1 the
 * time-parallel scan kernel (4096-frame buffers) instead of the sequential one (256 frames). */
#include <inttypes.h>
#include <stdio.h>

#include "cudacheck.h"

int main(void)
{
  const char *lib = getenv("FX_CUDA_LIB");
  const char *fault = getenv("FX_CUDA_FAIL");
  const char *expect = getenv("FX_FAULT_EXPECT");
  const char *gr = getenv("FX_FAULT_GRAPHS");
  char why[256] = "";
  const int ok = fx_cuda_probe(why, sizeof(why));
  printf("FX_CUDA_LIB=%s FX_CUDA_FAIL=%s expect=%s: probe %d (%s)\n", lib ? lib : "(unset)",
         fault ? fault : "(unset)", expect ? expect : "(unset)", ok, ok ? "usable" : why);

  if (!expect || strcmp(expect, "run") != 0) {
    /* the driver is unusable: a reason, no object, CPU processing unchanged */
    /* the failure comes in the process-wide set-up (probe) or in fx_cuda_new() */
    char why2[256] = "";
    fx_cuda_t *g = fx_cuda_new(why2, sizeof(why2));
    CHECK(g == NULL, "fx_cuda_new succeeded although it should not");
    CHECK(ok || strcmp(why, why2) == 0, "probe says '%s', new says '%s'", why, why2);
    fx_cuda_free(g);
    snprintf(why, sizeof(why), "%s", why2);
    CHECK(why[0] != 0, "no reason given");
    if (expect && strcmp(expect, "nodriver") == 0)
      CHECK(strstr(why, "no CUDA driver") != NULL, "reason: %s", why);
    if (expect && strcmp(expect, "nokernels") == 0)
      CHECK(strstr(why, "no CUDA kernels") != NULL && strstr(why, "nvcc") != NULL, "reason: %s",
            why);
    if (fault && strcmp(fault, "dlopen") != 0) {
      char name[64];
      snprintf(name, sizeof(name), "%s", fault);
      char *colon = strchr(name, ':');
      if (colon)
        *colon = 0;
      CHECK(strstr(why, name) != NULL, "reason '%s' does not name %s", why, name);
    }
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
  }

  /* mid-stream failure */
  CHECK(ok, "the fake driver must come up: %s", why);
  if (!ok) {
    printf("%d checks, %d failures\n", checks, failures);
    return 1;
  }
  const char *sc = getenv("FX_FAULT_SCAN");
  const int scan = sc && strcmp(sc, "1") == 0;
  const int C = 3, K = 5, B = scan ? 4096 : 256, NB = 10;
  const size_t n = (size_t) C * B * NB;
  fx_sos_t sos[5];
  rng_seed(12345);
  random_sections(sos, K, 0.99);
  double *x = malloc(n * sizeof(double)), *ref = malloc(n * sizeof(double));
  random_input(x, n);
  memcpy(ref, x, n * sizeof(double));
  fx_cascade_t *r = fx_cascade_new(), *c = fx_cascade_new();
  fx_cascade_configure(r, C, FX_SAMPLE_F64, FX_PRECISION_DOUBLE);
  fx_cascade_configure(c, C, FX_SAMPLE_F64, FX_PRECISION_DOUBLE);
  fx_cascade_set_sections(r, sos, K, 1.0);
  fx_cascade_set_sections(c, sos, K, 1.0);
  fx_cuda_t *g = fx_cuda_new(why, sizeof(why));
  CHECK(g != NULL, "fx_cuda_new: %s", why);
  fx_cuda_set_graphs(g, gr && strcmp(gr, "1") == 0);
  fx_cuda_set_scan_threshold(g, scan ? 2048 : 0);
  fx_cuda_attach(g, c);
  int failed_at = -1;
  for (int i = 0; i < NB; i++) {
    fx_cascade_process(r, ref + (size_t) i * B * C, B);
    fx_cascade_process(c, x + (size_t) i * B * C, B);
    if (failed_at < 0 && fx_cuda_error(g))
      failed_at = i;
  }
  const char *err = fx_cuda_error(g);
  CHECK(err != NULL, "FX_CUDA_FAIL=%s never triggered", fault ? fault : "");
  if (err) {
    char name[64];
    snprintf(name, sizeof(name), "%s", fault);
    char *colon = strchr(name, ':');
    if (colon)
      *colon = 0;
    CHECK(strstr(err, name) != NULL, "error '%s' does not name %s", err, name);
  }
  CHECK(!fx_cascade_offload_active(c), "the hook survived a failure");
  /* the failing buffer's launch may have been issued before the failure */
  CHECK(fx_cuda_launches(g) <= (uint64_t) (failed_at < 0 ? NB : failed_at + 1),
        "%" PRIu64 " launches, failure at buffer %d", fx_cuda_launches(g), failed_at);
  const double e = rel_err(x, 1, ref, n);
  int finite = 1;
  for (size_t i = 0; i < n; i++)
    finite &= isfinite(x[i]);
  CHECK(finite && e <= 1e-10, "output after fallback: rel err %.3g vs the CPU engine", e);
  printf("failure '%s' at buffer %d after %" PRIu64 " launches (%" PRIu64
         " scan); whole output vs CPU: %.2e\n",
         err ? err : "", failed_at, fx_cuda_launches(g), fx_cuda_scans(g), e);
  if (scan)
    CHECK(fx_cuda_scans(g) >= 1 || failed_at == 0, "the scan never ran");
  fx_cuda_free(g);
  fx_cascade_free(c);
  fx_cascade_free(r);
  free(x);
  free(ref);
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
