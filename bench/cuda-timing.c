/* gst-fx — GPU timings for bench/cuda.c that reach past libfxcuda's API (fx-bench-cuda only, never
 * part of the library): the device-to-device copy bandwidth, and kernel launches over data already
 * on the device, timed with CUDA events. Driver calls go straight to the loaded driver (no fault
 * injection).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "cuda-timing.h"

#include <stdlib.h>
#include <string.h>

#include "fxcuda-private.h"

double fx_cuda_bench_d2d(size_t bytes, int reps)
{
  if (!fx_cuda_probe(NULL, 0) || reps < 1)
    return 0;
  CUdeviceptr a = 0, b = 0;
  CUstream s = NULL;
  CUevent e0 = NULL, e1 = NULL;
  double bw = 0;
  float ms = 0;
  fx_cu.api.cuCtxSetCurrent(fx_cu.ctx);
  if (fx_cu.api.cuMemAlloc(&a, bytes) || fx_cu.api.cuMemAlloc(&b, bytes) ||
      fx_cu.api.cuStreamCreate(&s, 1) || fx_cu.api.cuEventCreate(&e0, 0) ||
      fx_cu.api.cuEventCreate(&e1, 0))
    goto out;
  fx_cu.api.cuMemsetD8Async(a, 0, bytes, s);
  fx_cu.api.cuMemcpyDtoDAsync(b, a, bytes, s); /* warm */
  fx_cu.api.cuEventRecord(e0, s);
  for (int i = 0; i < reps; i++)
    fx_cu.api.cuMemcpyDtoDAsync(b, a, bytes, s);
  fx_cu.api.cuEventRecord(e1, s);
  if (fx_cu.api.cuEventSynchronize(e1) == FX_CUDA_SUCCESS &&
      fx_cu.api.cuEventElapsedTime(&ms, e0, e1) == FX_CUDA_SUCCESS && ms > 0)
    bw = (double) bytes * reps / (ms * 1e-3); /* bytes read (as many written) per second */
out:
  if (e0)
    fx_cu.api.cuEventDestroy(e0);
  if (e1)
    fx_cu.api.cuEventDestroy(e1);
  if (s)
    fx_cu.api.cuStreamDestroy(s);
  if (a)
    fx_cu.api.cuMemFree(a);
  if (b)
    fx_cu.api.cuMemFree(b);
  return bw;
}

double fx_cuda_bench_kernel(size_t frames, int channels, int K, fx_sample_format_t format, int dbl,
                            int scan, int reps)
{
  if (!fx_cuda_probe(NULL, 0) || reps < 1 || channels < 1 || K < 1 || K > FXK_KMAX ||
      (scan && (K > FXK_SCAN_KMAX || frames < 2)))
    return -1;
  const int variant = fx_cu_variant(format, dbl, scan);
  const size_t ts = dbl ? sizeof(double) : sizeof(float);
  const size_t ss = format == FX_SAMPLE_F64 ? sizeof(double) : sizeof(float);
  const size_t C = (size_t) channels, KT = (size_t) K, n2 = 2 * KT;
  const size_t io = frames * C * ss, cb = (KT * 5 * ts + 15) & ~(size_t) 15;
  const size_t sb = C * KT * 2 * ts, hb = C * (KT + 1) * 2 * sizeof(double);
  const size_t ctlb = (size_t) (reps + 1) * 4 * sizeof(uint64_t);
  const uint64_t L = fx_cu_scan_chunk(0, frames, K), T = fx_cu_scan_blocks(frames, channels, L);
  const size_t pwb = scan ? (size_t) FXK_PW_COUNT(K) * n2 * n2 * sizeof(double) : 8;
  const size_t wb = scan ? (size_t) FXK_WORK_BYTES(T, n2) : 8;
  CUdeviceptr d = 0, sm = 0, pw = 0, work = 0, dctl = 0;
  CUstream s = NULL;
  CUevent e0 = NULL, e1 = NULL;
  double sec = -1;
  float ms = 0;
  void *hc = NULL;
  double *hpw = NULL, cf[5 * FXK_SCAN_KMAX];
  uint64_t *hctl = NULL;
  fx_cu.api.cuCtxSetCurrent(fx_cu.ctx);
  if (fx_cu.api.cuMemAlloc(&d, io ? io : 1) || fx_cu.api.cuMemAlloc(&sm, cb + 3 * sb + hb) ||
      fx_cu.api.cuMemAlloc(&pw, pwb) || fx_cu.api.cuMemAlloc(&work, wb) ||
      fx_cu.api.cuMemAlloc(&dctl, ctlb) || fx_cu.api.cuStreamCreate(&s, 1) ||
      fx_cu.api.cuEventCreate(&e0, 0) || fx_cu.api.cuEventCreate(&e1, 0))
    goto out;
  /* a stable low-pass-like section (b = 0.25, 0.5, 0.25; a1 = -0.5, a2 = 0.25) everywhere */
  hc = calloc(1, cb);
  hpw = malloc(pwb);
  hctl = calloc(1, ctlb);
  if (!hc || !hpw || !hctl)
    goto out;
  for (size_t k = 0; k < KT; k++) {
    const double v[5] = {0.25, 0.5, 0.25, -0.5, 0.25};
    for (int i = 0; i < 5; i++) {
      if (k < FXK_SCAN_KMAX)
        cf[5 * k + i] = v[i];
      if (dbl)
        ((double *) hc)[5 * k + i] = v[i];
      else
        ((float *) hc)[5 * k + i] = (float) v[i];
    }
  }
  if (scan && !fx_cu_scan_powers(cf, K, L, hpw))
    goto out;
  /* each launch its own ctl: {no checkpoints, epoch i + 1, block base} */
  const unsigned blocks = scan ? fx_cu_scan_blocks(frames, channels, L)
                               : (unsigned) ((C + FXK_SEQ_BLOCK - 1) / FXK_SEQ_BLOCK);
  for (int i = 0; i <= reps; i++) {
    hctl[4 * i + 2] = (uint64_t) i + 1;
    hctl[4 * i + 3] = (uint64_t) i * blocks;
  }
  fx_cu.api.cuMemsetD8Async(d, 0, io, s);
  fx_cu.api.cuMemsetD8Async(sm, 0, cb + 3 * sb + hb, s);
  fx_cu.api.cuMemsetD8Async(work, 0, wb, s);
  fx_cu.api.cuMemcpyHtoDAsync(sm, hc, cb, s);
  fx_cu.api.cuMemcpyHtoDAsync(dctl, hctl, ctlb, s);
  if (scan)
    fx_cu.api.cuMemcpyHtoDAsync(pw, hpw, pwb, s);
  if (fx_cu.api.cuStreamSynchronize(s))
    goto out;
  /* [coef][state][hist][snap0][snap1] */
  fxk_seq_args_t a;
  memset(&a, 0, sizeof(a));
  a.coef = sm;
  a.state = sm + cb;
  a.hist = sm + cb + sb;
  a.snap[0] = sm + cb + sb + hb;
  a.snap[1] = sm + cb + 2 * sb + hb;
  a.data = d;
  a.frames = frames;
  a.ctl = dctl;
  a.pw = pw;
  a.work = work;
  a.chunk = L;
  a.nblocks = fx_cu_scan_spans(frames, L);
  a.channels = channels;
  a.k0 = 0;
  a.K = K;
  a.kstride = K;
  void *params[] = {&a};
  const unsigned threads = scan ? FXK_SCAN_BLOCK : FXK_SEQ_BLOCK;
  if (fx_cu.api.cuLaunchKernel(fx_cu_kernel_for(variant, K), blocks, 1, 1, threads, 1, 1, 0, s,
                               params, NULL) ||
      fx_cu.api.cuStreamSynchronize(s))
    goto out; /* warm */
  fx_cu.api.cuEventRecord(e0, s);
  for (int i = 1; i <= reps; i++) {
    a.ctl = dctl + (CUdeviceptr) i * 4 * sizeof(uint64_t);
    fx_cu.api.cuLaunchKernel(fx_cu_kernel_for(variant, K), blocks, 1, 1, threads, 1, 1, 0, s,
                             params, NULL);
  }
  fx_cu.api.cuEventRecord(e1, s);
  if (fx_cu.api.cuEventSynchronize(e1) == FX_CUDA_SUCCESS &&
      fx_cu.api.cuEventElapsedTime(&ms, e0, e1) == FX_CUDA_SUCCESS)
    sec = ms * 1e-3 / reps;
out:
  free(hc);
  free(hpw);
  free(hctl);
  if (e0)
    fx_cu.api.cuEventDestroy(e0);
  if (e1)
    fx_cu.api.cuEventDestroy(e1);
  if (s)
    fx_cu.api.cuStreamDestroy(s);
  if (d)
    fx_cu.api.cuMemFree(d);
  if (sm)
    fx_cu.api.cuMemFree(sm);
  if (pw)
    fx_cu.api.cuMemFree(pw);
  if (work)
    fx_cu.api.cuMemFree(work);
  if (dctl)
    fx_cu.api.cuMemFree(dctl);
  return sec;
}
