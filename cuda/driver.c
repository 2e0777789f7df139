/* gst-fx — CUDA backend: loading the driver (dlopen, symbols, device, primary context, the
 * embedded kernels), once per process, and the fault injector every driver call goes through.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Test-only environment variables (read once, when the driver is first loaded):
 *   FX_CUDA_LIB=path      load this file instead of libcuda.so.1 (the tests' fake driver)
 *   FX_CUDA_FAIL=name[:n] make the n-th call (default: the first) of driver function `name`
 *                         (cuInit, cuMemAlloc, cuLaunchKernel, cuGraphLaunch, ... as in drv.h)
 *                         return an error; "dlopen" makes loading the driver fail.
 * Built without nvcc (FX_CUDA_NO_KERNELS), the embedded image is a stub that only the fake driver
 * accepts: without FX_CUDA_LIB the backend is refused ("this build has no CUDA kernels").
 * See docs/cuda.md. */
#include "fxcuda-private.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const unsigned char fx_cuda_fatbin[];
extern const size_t fx_cuda_fatbin_size;

#ifdef FX_CUDA_NO_KERNELS
#define FX_CU_IMAGE_WHAT "cuModuleLoadData (stub image: this build has no CUDA kernels, no nvcc)"
#else
#define FX_CU_IMAGE_WHAT "cuModuleLoadData (embedded kernels)"
#endif

fx_cu_driver_t fx_cu = {.once = PTHREAD_ONCE_INIT, .fail_lock = PTHREAD_MUTEX_INITIALIZER};

int fx_cu_fault_hit(const char *name)
{
  if (!fx_cu.fail_name[0] || strcmp(name, fx_cu.fail_name) != 0)
    return 0;
  pthread_mutex_lock(&fx_cu.fail_lock);
  const int hit = ++fx_cu.fail_count == fx_cu.fail_at;
  pthread_mutex_unlock(&fx_cu.fail_lock);
  return hit;
}

void fx_cu_reason(char *why, size_t n, const char *what, CUresult r)
{
  const char *s = NULL;
  if (r == FX_CU_INJECTED)
    s = "injected by FX_CUDA_FAIL";
  else if (!fx_cu.api.cuGetErrorName || fx_cu.api.cuGetErrorName(r, &s) != FX_CUDA_SUCCESS || !s)
    s = "unknown error";
  snprintf(why, n, "%s failed: %s (%d)", what, s, r);
}

static void read_fault_env(void)
{
  const char *f = getenv("FX_CUDA_FAIL");
  fx_cu.fail_name[0] = 0;
  fx_cu.fail_at = 1;
  fx_cu.fail_count = 0;
  if (!f || !*f)
    return;
  snprintf(fx_cu.fail_name, sizeof(fx_cu.fail_name), "%s", f);
  char *colon = strchr(fx_cu.fail_name, ':');
  if (colon) {
    *colon = 0;
    fx_cu.fail_at = strtol(colon + 1, NULL, 10);
    if (fx_cu.fail_at < 1)
      fx_cu.fail_at = 1;
  }
}

static void global_init(void)
{
  CUresult r;
  read_fault_env();
  const char *path = getenv("FX_CUDA_LIB");
#ifdef FX_CUDA_NO_KERNELS
  /* built without nvcc: fx_cuda_fatbin is a stub header only the test-only fake driver accepts */
  if (!path || !*path) {
    snprintf(fx_cu.why, sizeof(fx_cu.why),
             "this build has no CUDA kernels: nvcc was not found when gst-fx was built");
    return;
  }
#endif
  if (!path || !*path)
    path = "libcuda.so.1";
  fx_cu.lib = fx_cu_fault_hit("dlopen") ? NULL : dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!fx_cu.lib) {
    const char *e = dlerror();
    snprintf(fx_cu.why, sizeof(fx_cu.why), "no CUDA driver: cannot load %s (%s)", path,
             e ? e : "injected by FX_CUDA_FAIL");
    return;
  }
#define FX_CU_SYM(name, sym, params)                                                               \
  *(void **) (&fx_cu.api.name) = dlsym(fx_cu.lib, sym);                                            \
  if (!fx_cu.api.name) {                                                                           \
    snprintf(fx_cu.why, sizeof(fx_cu.why), "CUDA driver %s lacks %s (driver too old?)", path,      \
             sym);                                                                                 \
    return;                                                                                        \
  }
  FX_CU_FUNCS(FX_CU_SYM)
#undef FX_CU_SYM
  if ((r = CU(cuInit, 0)) != FX_CUDA_SUCCESS) {
    fx_cu_reason(fx_cu.why, sizeof(fx_cu.why), "cuInit", r);
    return;
  }
  int n = 0;
  if ((r = CU(cuDeviceGetCount, &n)) != FX_CUDA_SUCCESS) {
    fx_cu_reason(fx_cu.why, sizeof(fx_cu.why), "cuDeviceGetCount", r);
    return;
  }
  if (n < 1) {
    snprintf(fx_cu.why, sizeof(fx_cu.why), "no CUDA device");
    return;
  }
  if ((r = CU(cuDeviceGet, &fx_cu.dev, 0)) != FX_CUDA_SUCCESS) {
    fx_cu_reason(fx_cu.why, sizeof(fx_cu.why), "cuDeviceGet", r);
    return;
  }
  int major = 0, minor = 0;
  char name[128] = "";
  if ((r = CU(cuDeviceGetAttribute, &major, FX_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
              fx_cu.dev)) != FX_CUDA_SUCCESS ||
      (r = CU(cuDeviceGetAttribute, &minor, FX_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
              fx_cu.dev)) != FX_CUDA_SUCCESS) {
    fx_cu_reason(fx_cu.why, sizeof(fx_cu.why), "cuDeviceGetAttribute", r);
    return;
  }
  if ((r = CU(cuDeviceGetName, name, (int) sizeof(name) - 1, fx_cu.dev)) != FX_CUDA_SUCCESS)
    snprintf(name, sizeof(name), "CUDA device 0");
  name[sizeof(name) - 1] = 0;
  snprintf(fx_cu.name, sizeof(fx_cu.name), "%s (%d.%d)", name, major, minor);
  if (major * 10 + minor < 75) {
    snprintf(fx_cu.why, sizeof(fx_cu.why),
             "%s: compute capability below 7.5 (the kernels need 7.5+)", fx_cu.name);
    return;
  }
  if ((r = CU(cuDevicePrimaryCtxRetain, &fx_cu.ctx, fx_cu.dev)) != FX_CUDA_SUCCESS) {
    fx_cu_reason(fx_cu.why, sizeof(fx_cu.why), "cuDevicePrimaryCtxRetain", r);
    return;
  }
  if ((r = CU(cuCtxSetCurrent, fx_cu.ctx)) != FX_CUDA_SUCCESS) {
    fx_cu_reason(fx_cu.why, sizeof(fx_cu.why), "cuCtxSetCurrent", r);
    return;
  }
  if ((r = CU(cuModuleLoadData, &fx_cu.mod, fx_cuda_fatbin)) != FX_CUDA_SUCCESS) {
    fx_cu_reason(fx_cu.why, sizeof(fx_cu.why), FX_CU_IMAGE_WHAT, r);
    return;
  }
  static const char *const vn[FXK_NVARIANTS] = FXK_VARIANT_NAMES;
  for (int kind = 0; kind < 2; kind++)
    for (int v = 0; v < FXK_NVARIANTS; v++)
      for (int kc = kind; kc <= FXK_SPEC; kc++) {
        char fname[64];
        snprintf(fname, sizeof(fname), "fxk_%s_%s_k%d", kind ? "scan" : "seq", vn[v], kc);
        if ((r = CU(cuModuleGetFunction, &fx_cu.fn[kind][v][kc], fx_cu.mod, fname)) !=
            FX_CUDA_SUCCESS) {
          fx_cu_reason(fx_cu.why, sizeof(fx_cu.why), "cuModuleGetFunction", r);
          return;
        }
      }
  fx_cu.ok = 1;
}

int fx_cuda_probe(char *why, size_t why_len)
{
  pthread_once(&fx_cu.once, global_init);
  if (!fx_cu.ok && why && why_len)
    snprintf(why, why_len, "%s", fx_cu.why);
  return fx_cu.ok;
}

const char *fx_cuda_device_name(void)
{
  pthread_once(&fx_cu.once, global_init);
  return fx_cu.ok ? fx_cu.name : "";
}
