/* gst-fx — what the files of libfxcuda share, and what the GPU benchmark (bench/cuda-timing.c)
 * reaches into. Not part of the library's API (fxcuda.h). C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   driver.c   loading the driver (dlopen, symbols, device, context, module), fault injection
 *   choice.c   which kernel a pass takes and with which scan parameters
 *   fxcuda.c   backend objects: pinned staging, the device mirror, graphs, the per-pass path */
#ifndef FX_CUDA_PRIVATE_H
#define FX_CUDA_PRIVATE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "drv.h"
#include "fxcuda.h"
#include "kernels.h"

/* Returned by a call that FX_CUDA_FAIL made fail (CUDA_ERROR_UNKNOWN). */
#define FX_CU_INJECTED 999

/* ---------------------------------------------------------------------------------------------
 * The driver, process-wide (driver.c) */

#define FX_CU_PTR(name, sym, params) CUresult(*name) params;
typedef struct {
  FX_CU_FUNCS(FX_CU_PTR)
} fx_cu_api_t;
#undef FX_CU_PTR

typedef struct {
  pthread_once_t once;
  int ok;
  char why[256];
  void *lib;
  fx_cu_api_t api;
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  /* [0: sequential, 1: scan][fxk_variant_t][KC] (kernels.h) */
  CUfunction fn[2][FXK_NVARIANTS][FXK_SPEC + 1];
  char name[160];
  /* fault injection */
  char fail_name[64];
  long fail_at;
  long fail_count;
  pthread_mutex_t fail_lock;
} fx_cu_driver_t;

/* Loaded once by fx_cuda_probe() (and by everything that calls it first); fx_cu.api is usable
 * only when fx_cu.ok. */
extern fx_cu_driver_t fx_cu;

/* 1 when FX_CUDA_FAIL names the driver function `name` and this is the call it should fail. */
int fx_cu_fault_hit(const char *name);

/* A driver call through the fault injector. */
#define CU(name, ...) (fx_cu_fault_hit(#name) ? FX_CU_INJECTED : fx_cu.api.name(__VA_ARGS__))

/* "WHAT failed: CUDA_ERROR_NAME (code)" into why. */
void fx_cu_reason(char *why, size_t n, const char *what, CUresult r);

/* ---------------------------------------------------------------------------------------------
 * Kernel choice (choice.c). A variant is an fxk_variant_t, + FXK_NVARIANTS for the scan kernel. */

/* The variant for a stream format and arithmetic, sequential (scan = 0) or scan (scan = 1). */
int fx_cu_variant(fx_sample_format_t format, int dbl, int scan);

/* The kernel for a variant and K sections. */
CUfunction fx_cu_kernel_for(int variant, int K);

/* 1 when a pass of `frames` frames over `channels` channels through K sections takes the
 * time-parallel scan kernel; threshold: fx_cuda_set_scan_threshold()'s value (0: automatic). */
int fx_cu_use_scan(size_t threshold, uint64_t frames, int channels, int K);

/* Frames per chunk of the scan for a pass of `frames` frames through K sections; fixed:
 * fx_cuda_set_scan_chunk()'s value (0: automatic). */
uint64_t fx_cu_scan_chunk(uint64_t fixed, uint64_t frames, int K);

/* Spans (blocks) per channel of the scan: FXK_SCAN_BLOCK chunks of L frames each, the last one
 * shorter; and the blocks of a launch over `channels` channels. */
uint64_t fx_cu_scan_spans(uint64_t frames, uint64_t L);
unsigned fx_cu_scan_blocks(uint64_t frames, int channels, uint64_t L);

/* The powers of the zero-input state transition that kernels.h's scan needs, for sections
 * coef[K][5] and L frames per chunk, into pw (FXK_PW_COUNT(K) x (2K)^2 doubles). 0 on
 * allocation failure. */
int fx_cu_scan_powers(const double *coef, int K, uint64_t L, double *pw);

#endif
