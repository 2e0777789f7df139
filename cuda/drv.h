/* gst-fx — the subset of the CUDA driver API that libfxcuda uses, declared here (the driver is
 * loaded at run time with dlopen("libcuda.so.1"); nothing links against libcuda or libcudart).
 * Types and values as in CUDA 13's cuda.h; the symbol names to look up are the versioned ones
 * cuda.h maps the API names to (cuMemAlloc -> cuMemAlloc_v2, ...), listed in FX_CU_FUNCS.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FX_CUDA_DRV_H
#define FX_CUDA_DRV_H

#include <stddef.h>

typedef int CUresult; /* 0 == CUDA_SUCCESS */
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUevent_st *CUevent;

#define FX_CUDA_SUCCESS 0
#define FX_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define FX_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define FX_CU_STREAM_NON_BLOCKING 1
#define FX_CU_STREAM_CAPTURE_MODE_THREAD_LOCAL 1

/* X(name used in code and in FX_CUDA_FAIL, exported symbol, return, parameters) */
#define FX_CU_FUNCS(X)                                                                             \
  X(cuInit, "cuInit", (unsigned flags))                                                            \
  X(cuDeviceGetCount, "cuDeviceGetCount", (int *count))                                            \
  X(cuDeviceGet, "cuDeviceGet", (CUdevice * dev, int ordinal))                                     \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", (int *v, int attrib, CUdevice dev))              \
  X(cuDeviceGetName, "cuDeviceGetName", (char *name, int len, CUdevice dev))                       \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext * ctx, CUdevice dev))         \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (CUdevice dev))                     \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", (CUcontext ctx))                                           \
  X(cuModuleLoadData, "cuModuleLoadData", (CUmodule * mod, const void *image))                     \
  X(cuModuleGetFunction, "cuModuleGetFunction", (CUfunction * f, CUmodule mod, const char *name))  \
  X(cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr * p, size_t bytes))                                  \
  X(cuMemFree, "cuMemFree_v2", (CUdeviceptr p))                                                    \
  X(cuMemAllocHost, "cuMemAllocHost_v2", (void **p, size_t bytes))                                 \
  X(cuMemFreeHost, "cuMemFreeHost", (void *p))                                                     \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2",                                                     \
    (CUdeviceptr dst, const void *src, size_t bytes, CUstream s))                                  \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2",                                                     \
    (void *dst, CUdeviceptr src, size_t bytes, CUstream s))                                        \
  X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2",                                                     \
    (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s))                                  \
  X(cuMemsetD8Async, "cuMemsetD8Async", (CUdeviceptr dst, unsigned char v, size_t n, CUstream s))  \
  X(cuStreamCreate, "cuStreamCreate", (CUstream * s, unsigned flags))                              \
  X(cuStreamDestroy, "cuStreamDestroy_v2", (CUstream s))                                           \
  X(cuStreamSynchronize, "cuStreamSynchronize", (CUstream s))                                      \
  X(cuLaunchKernel, "cuLaunchKernel",                                                              \
    (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,   \
     unsigned shared, CUstream s, void **params, void **extra))                                    \
  X(cuStreamBeginCapture, "cuStreamBeginCapture_v2", (CUstream s, int mode))                       \
  X(cuStreamEndCapture, "cuStreamEndCapture", (CUstream s, CUgraph * g))                           \
  X(cuGraphInstantiate, "cuGraphInstantiateWithFlags",                                             \
    (CUgraphExec * e, CUgraph g, unsigned long long flags))                                        \
  X(cuGraphLaunch, "cuGraphLaunch", (CUgraphExec e, CUstream s))                                   \
  X(cuGraphExecDestroy, "cuGraphExecDestroy", (CUgraphExec e))                                     \
  X(cuGraphDestroy, "cuGraphDestroy", (CUgraph g))                                                 \
  X(cuEventCreate, "cuEventCreate", (CUevent * e, unsigned flags))                                 \
  X(cuEventRecord, "cuEventRecord", (CUevent e, CUstream s))                                       \
  X(cuEventSynchronize, "cuEventSynchronize", (CUevent e))                                         \
  X(cuEventElapsedTime, "cuEventElapsedTime_v2", (float *ms, CUevent a, CUevent b))                \
  X(cuEventDestroy, "cuEventDestroy_v2", (CUevent e))                                              \
  X(cuGetErrorName, "cuGetErrorName", (CUresult r, const char **name))

#endif
