/* gst-fx — a fake CUDA driver for tests on machines without a GPU. No GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Loaded by libfxcuda instead of libcuda.so.1 when FX_CUDA_LIB points at it. It exports the
 * driver functions cuda/drv.h lists with their real symbol names and emulates them on the CPU:
 * device memory is host memory (filled with 0xff bytes, i.e. NaN, when allocated, so nothing is
 * read before it was written), streams run their work at once, a stream capture records copies
 * and launches (with the kernel arguments copied at capture time, as CUDA does) and a graph
 * launch replays them, and a kernel launch runs the kernel bodies of cuda/kernels.h (the very
 * code nvcc compiles) thread by thread (the scan kernel block by block: its block body runs the
 * threads of each phase one after the other, a barrier after each phase, with the block's shared
 * context in a buffer poisoned with NaN before each block). So the host side of the backend
 * (staging, the device mirror, graphs, fault fallback) is tested here; the kernels' results on a
 * real GPU are checked by tests/cuda/test_cuda.c on a GPU machine (bench/cuda-check.sh).
 *
 * FAKE_CUDA_DEVICES=0 makes it report no device. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drv.h"

/* The scan's look-back sees only the aggregates of earlier spans except every
 * FAKE_CUDA_SCAN_HIDE-th (default 200; 0: all inclusive states), so that it combines aggregates
 * and walks over more than one window of FXK_LB_WIN(K) spans (kernels.h, FXK_HIDE_INCLUSIVE):
 * blocks here run in order, so without this every earlier span would already be inclusive. */
static int fake_hide = -1;
#define FXK_HIDE_INCLUSIVE(back) (fake_hide > 0 && (back) % (uint64_t) fake_hide != 0)
#include "kernels.h"

/* the block context of every scan kernel fits the 48 KiB run_op gives it */
#define CTX_FITS(SFX, IO, TT, KC)                                                                  \
  _Static_assert(sizeof(fxk_scan_ctx_##SFX##_##KC) <= 48 * 1024, "scan context too large");
FXK_SPECIALISE(CTX_FITS, f64, , )

#define EXPORT __attribute__((visibility("default")))

enum { OP_H2D, OP_D2H, OP_D2D, OP_SET, OP_LAUNCH };

typedef struct {
  int kind;
  void *dst;
  const void *src;
  size_t n;
  unsigned char v;
  int fn; /* launches: fxk_variant_t, kernel kind and section count (kernels.h) */
  int kind_scan, kc;
  unsigned threads, blocks, block;
  fxk_seq_args_t args;
} op_t;

struct CUstream_st {
  int capturing;
  op_t *ops;
  size_t n, cap;
};

struct CUgraph_st {
  op_t *ops;
  size_t n;
};

struct CUgraphExec_st {
  op_t *ops;
  size_t n;
};

static int ctx_token, event_token, module_token;

/* The kernel bodies by [variant][KC] (kernels.h). */
typedef void (*seq_fn_t)(const fxk_seq_args_t *, int64_t);
typedef void (*scan_fn_t)(const fxk_seq_args_t *, void *, uint64_t);
#define SEQ_ENTRY(SFX, IO, TT, KC) [KC] = fxk_seq_body_##SFX##_##KC,
#define SCAN_ENTRY(SFX, IO, TT, KC) [KC] = fxk_scan_block_##SFX##_##KC,
static const seq_fn_t seq_fns[FXK_NVARIANTS][FXK_SPEC + 1] = {
    {FXK_SPECIALISE(SEQ_ENTRY, f64, , )[0] = fxk_seq_body_f64_0},
    {FXK_SPECIALISE(SEQ_ENTRY, f32d, , )[0] = fxk_seq_body_f32d_0},
    {FXK_SPECIALISE(SEQ_ENTRY, f32s, , )[0] = fxk_seq_body_f32s_0},
};
static const scan_fn_t scan_fns[FXK_NVARIANTS][FXK_SPEC + 1] = {
    {FXK_SPECIALISE(SCAN_ENTRY, f64, , )},
    {FXK_SPECIALISE(SCAN_ENTRY, f32d, , )},
    {FXK_SPECIALISE(SCAN_ENTRY, f32s, , )},
};

static void run_op(const op_t *o)
{
  switch (o->kind) {
  case OP_H2D:
  case OP_D2H:
  case OP_D2D:
    memmove(o->dst, o->src, o->n);
    break;
  case OP_SET:
    memset(o->dst, o->v, o->n);
    break;
  case OP_LAUNCH:
    if (o->kind_scan) {
      if (fake_hide < 0) {
        const char *e = getenv("FAKE_CUDA_SCAN_HIDE");
        fake_hide = e ? atoi(e) : 200;
      }
      /* blocks one after the other in index order: a block's predecessors have finished (the
       * look-back never waits); the shared context of the largest kernel, NaN before each block
       * so that nothing is read before it was written */
      /* 48 KiB: the static shared memory a block may have (nvcc refuses more) */
      unsigned char *ctx = malloc(48 * 1024);
      if (!ctx)
        abort(); /* (a real launch has its shared memory or does not start) */
      for (unsigned b = 0; b < o->blocks; b++) {
        memset(ctx, 0xff, 48 * 1024);
        scan_fns[o->fn][o->kc](&o->args, ctx, b);
      }
      free(ctx);
      break;
    }
    for (int64_t t = 0; t < (int64_t) o->threads; t++)
      seq_fns[o->fn][o->kc](&o->args, t);
    break;
  }
}

static CUresult submit(CUstream s, const op_t *o)
{
  if (s && s->capturing) {
    if (s->n == s->cap) {
      size_t nc = s->cap ? 2 * s->cap : 8;
      op_t *p = realloc(s->ops, nc * sizeof(op_t));
      if (!p)
        return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
      s->ops = p;
      s->cap = nc;
    }
    s->ops[s->n++] = *o;
    return 0;
  }
  run_op(o);
  return 0;
}

EXPORT CUresult cuInit(unsigned flags)
{
  return flags == 0 ? 0 : 1;
}

EXPORT CUresult cuDeviceGetCount(int *count)
{
  const char *e = getenv("FAKE_CUDA_DEVICES");
  *count = e ? atoi(e) : 1;
  return 0;
}

EXPORT CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
  *dev = ordinal;
  return 0;
}

EXPORT CUresult cuDeviceGetAttribute(int *v, int attrib, CUdevice dev)
{
  (void) dev;
  *v = attrib == FX_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? 9 : 0;
  return 0;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
  (void) dev;
  strncpy(name, "fake CUDA device (CPU emulation)", (size_t) len);
  return 0;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
  (void) dev;
  *ctx = (CUcontext) (void *) &ctx_token;
  return 0;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
  (void) dev;
  return 0;
}

EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
  return ctx == (CUcontext) (void *) &ctx_token ? 0 : 201; /* CUDA_ERROR_INVALID_CONTEXT */
}

EXPORT CUresult cuModuleLoadData(CUmodule *mod, const void *image)
{
  /* a fatbin starts with the magic 0xba55ed50 (little endian) */
  const unsigned char *p = image;
  if (!p || p[0] != 0x50 || p[1] != 0xed || p[2] != 0x55 || p[3] != 0xba)
    return 200; /* CUDA_ERROR_INVALID_IMAGE */
  *mod = (CUmodule) (void *) &module_token;
  return 0;
}

/* Handles encode kind, variant and KC of fxk_<kind>_<variant>_k<KC>. */
EXPORT CUresult cuModuleGetFunction(CUfunction *f, CUmodule mod, const char *name)
{
  static const char *const vn[FXK_NVARIANTS] = FXK_VARIANT_NAMES;
  (void) mod;
  for (int kind = 0; kind < 2; kind++)
    for (int v = 0; v < FXK_NVARIANTS; v++)
      for (int kc = kind; kc <= FXK_SPEC; kc++) {
        char want[64];
        snprintf(want, sizeof(want), "fxk_%s_%s_k%d", kind ? "scan" : "seq", vn[v], kc);
        if (strcmp(name, want) == 0) {
          *f = (CUfunction) (intptr_t) (1 + kind * 10000 + v * 100 + kc);
          return 0;
        }
      }
  return 500; /* CUDA_ERROR_NOT_FOUND */
}

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes)
{
  void *m = malloc(bytes ? bytes : 1);
  if (!m)
    return 2;
  memset(m, 0xff, bytes);
  *p = (CUdeviceptr) (uintptr_t) m;
  return 0;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr p)
{
  free((void *) (uintptr_t) p);
  return 0;
}

EXPORT CUresult cuMemAllocHost_v2(void **p, size_t bytes)
{
  *p = malloc(bytes ? bytes : 1);
  return *p ? 0 : 2;
}

EXPORT CUresult cuMemFreeHost(void *p)
{
  free(p);
  return 0;
}

EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
  const op_t o = {.kind = OP_H2D, .dst = (void *) (uintptr_t) dst, .src = src, .n = bytes};
  return submit(s, &o);
}

EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
  const op_t o = {.kind = OP_D2H, .dst = dst, .src = (const void *) (uintptr_t) src, .n = bytes};
  return submit(s, &o);
}

EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s)
{
  const op_t o = {.kind = OP_D2D,
                  .dst = (void *) (uintptr_t) dst,
                  .src = (const void *) (uintptr_t) src,
                  .n = bytes};
  return submit(s, &o);
}

EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream s)
{
  const op_t o = {.kind = OP_SET, .dst = (void *) (uintptr_t) dst, .v = v, .n = n};
  return submit(s, &o);
}

EXPORT CUresult cuStreamCreate(CUstream *s, unsigned flags)
{
  (void) flags;
  *s = calloc(1, sizeof(**s));
  return *s ? 0 : 2;
}

EXPORT CUresult cuStreamDestroy_v2(CUstream s)
{
  if (s)
    free(s->ops);
  free(s);
  return 0;
}

EXPORT CUresult cuStreamSynchronize(CUstream s)
{
  return s && s->capturing ? 900 : 0; /* CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED */
}

EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                               unsigned by, unsigned bz, unsigned shared, CUstream s, void **params,
                               void **extra)
{
  const intptr_t h = (intptr_t) f - 1, kind = h / 10000, fn = (h % 10000) / 100, kc = h % 100;
  if (h < 0 || kind > 1 || fn >= FXK_NVARIANTS || kc > FXK_SPEC || (kind && kc == 0) || !params ||
      extra || gy != 1 || gz != 1 || by != 1 || bz != 1 || shared != 0 || bx > 1024 ||
      (kind && bx != FXK_SCAN_BLOCK))
    return 1; /* CUDA_ERROR_INVALID_VALUE (the scan's block body assumes FXK_SCAN_BLOCK threads) */
  op_t o = {.kind = OP_LAUNCH,
            .fn = (int) fn,
            .kind_scan = (int) kind,
            .kc = (int) kc,
            .threads = gx * bx,
            .blocks = gx,
            .block = bx};
  memcpy(&o.args, params[0], sizeof(o.args));
  return submit(s, &o);
}

EXPORT CUresult cuStreamBeginCapture_v2(CUstream s, int mode)
{
  (void) mode;
  if (!s || s->capturing)
    return 1;
  s->capturing = 1;
  s->n = 0;
  return 0;
}

EXPORT CUresult cuStreamEndCapture(CUstream s, CUgraph *g)
{
  if (!s || !s->capturing)
    return 1;
  s->capturing = 0;
  *g = calloc(1, sizeof(**g));
  if (!*g)
    return 2;
  (*g)->ops = malloc((s->n ? s->n : 1) * sizeof(op_t));
  if (s->n) /* an empty capture has no ops array (memcpy's pointers must not be NULL) */
    memcpy((*g)->ops, s->ops, s->n * sizeof(op_t));
  (*g)->n = s->n;
  s->n = 0;
  return 0;
}

EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *e, CUgraph g, unsigned long long flags)
{
  (void) flags;
  *e = calloc(1, sizeof(**e));
  if (!*e)
    return 2;
  (*e)->ops = malloc((g->n ? g->n : 1) * sizeof(op_t));
  memcpy((*e)->ops, g->ops, g->n * sizeof(op_t));
  (*e)->n = g->n;
  return 0;
}

EXPORT CUresult cuGraphLaunch(CUgraphExec e, CUstream s)
{
  if (!e || (s && s->capturing))
    return 1;
  for (size_t i = 0; i < e->n; i++)
    run_op(&e->ops[i]);
  return 0;
}

EXPORT CUresult cuGraphExecDestroy(CUgraphExec e)
{
  if (e)
    free(e->ops);
  free(e);
  return 0;
}

EXPORT CUresult cuGraphDestroy(CUgraph g)
{
  if (g)
    free(g->ops);
  free(g);
  return 0;
}

EXPORT CUresult cuEventCreate(CUevent *e, unsigned flags)
{
  (void) flags;
  *e = (CUevent) (void *) &event_token;
  return 0;
}

EXPORT CUresult cuEventRecord(CUevent e, CUstream s)
{
  (void) e;
  (void) s;
  return 0;
}

EXPORT CUresult cuEventSynchronize(CUevent e)
{
  (void) e;
  return 0;
}

EXPORT CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b)
{
  (void) a;
  (void) b;
  *ms = 1.0f;
  return 0;
}

EXPORT CUresult cuEventDestroy_v2(CUevent e)
{
  (void) e;
  return 0;
}

EXPORT CUresult cuGetErrorName(CUresult r, const char **name)
{
  *name = r == 0 ? "CUDA_SUCCESS" : "CUDA_ERROR_FAKE";
  return 0;
}
