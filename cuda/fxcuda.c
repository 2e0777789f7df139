/* gst-fx — CUDA backend: driver loading, fault injection, per-buffer path, graphs.
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
#include "fxcuda.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drv.h"
#include "kernels.h"

extern const unsigned char fx_cuda_fatbin[];
extern const size_t fx_cuda_fatbin_size;

#ifdef FX_CUDA_NO_KERNELS
#define FX_CU_IMAGE_WHAT "cuModuleLoadData (stub image: this build has no CUDA kernels, no nvcc)"
#else
#define FX_CU_IMAGE_WHAT "cuModuleLoadData (embedded kernels)"
#endif

/* Returned by a call that FX_CUDA_FAIL made fail (CUDA_ERROR_UNKNOWN). */
#define FX_CU_INJECTED 999
/* Bytes in front of the samples in the data buffers: the checkpoint positions (kernels.h's ctl),
 * copied in with the samples. */
#define FX_CTL_BYTES 64
/* Time-parallel scan (kernels.h): frames per chunk (a power of two; short chunks for short
 * buffers, where the latency of one block is the whole kernel, long ones to spread the scan's
 * cost over more samples and make fewer spans to look back over), and the frame count from which
 * the long chunk is used. Buffers that fit one span of short chunks (up to FXK_SCAN_BLOCK x
 * FX_SCAN_CHUNK_SHORT frames) could take shorter chunks, down to FX_SCAN_CHUNK_MIN, so that more
 * of the block's threads have frames (scan_chunk); measured on the H200 (2026-11-30, 512-frame
 * stereo buffer, K = 8, double arithmetic) 8-frame chunks took 30.3 us against 25.1 us for 16,
 * so the minimum is 16 until a faster sweep changes that (the kernel takes 2..1024 frames, and
 * the tests force the short ones through fx_cuda_set_scan_chunk). */
#define FX_SCAN_CHUNK_SHORT 16
#define FX_SCAN_CHUNK_LONG 128
#define FX_SCAN_CHUNK_SWITCH 65536
#define FX_SCAN_CHUNK_MIN 16
/* Automatic choice between the two kernels (scan-threshold=0), from the H200 runs of 2026-11-30
 * (docs/cuda.md, "scan-threshold and device=auto"): the scan beat the sequential kernel at every
 * shape of 1e5 frames or more (1 to 512 channels, 4x to 17x), at 1000 frames for 1 to 64
 * channels (1.5x to 4.7x; at 512 channels only for K <= 4), per 512-frame stereo buffer through
 * the engine (39.4 vs 64.0 us) and tied at 128 frames (30.7 vs 30.6 us): the scan from
 * FX_SCAN_AUTO_FRAMES frames for up to FX_SCAN_AUTO_MAX_CHANNELS channels, from
 * FX_SCAN_AUTO_ALL_FRAMES for any count. */
#define FX_SCAN_AUTO_FRAMES 256
#define FX_SCAN_AUTO_MAX_CHANNELS 64
#define FX_SCAN_AUTO_ALL_FRAMES 100000
/* device=auto (fx_cuda_auto_prefers): shapes where the H200 run of 2026-11-30 measured the GPU
 * kernels faster than this machine's CPU engine (docs/cuda.md): 512 channels from 1000 frames
 * (sequential kernel, 2.9x to 3.6x), 64 channels from 100000 frames (scan, 2.5x to 2.6x). */
#define FX_AUTO_MANY_CHANNELS 512
#define FX_AUTO_MANY_FRAMES 1000
#define FX_AUTO_SOME_CHANNELS 64
#define FX_AUTO_SOME_FRAMES 100000
/* Graphs kept per object (least recently used one replaced). */
#define FX_GRAPHS 8

/* ---------------------------------------------------------------------------------------------
 * The driver, process-wide */

#define FX_CU_PTR(name, sym, params) CUresult(*name) params;
typedef struct {
  FX_CU_FUNCS(FX_CU_PTR)
} fx_cu_api_t;
#undef FX_CU_PTR

static struct {
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
} G = {.once = PTHREAD_ONCE_INIT, .fail_lock = PTHREAD_MUTEX_INITIALIZER};

static int fault_hit(const char *name)
{
  if (!G.fail_name[0] || strcmp(name, G.fail_name) != 0)
    return 0;
  pthread_mutex_lock(&G.fail_lock);
  const int hit = ++G.fail_count == G.fail_at;
  pthread_mutex_unlock(&G.fail_lock);
  return hit;
}

/* A driver call through the fault injector. */
#define CU(name, ...) (fault_hit(#name) ? FX_CU_INJECTED : G.api.name(__VA_ARGS__))

static void cu_reason(char *why, size_t n, const char *what, CUresult r)
{
  const char *s = NULL;
  if (r == FX_CU_INJECTED)
    s = "injected by FX_CUDA_FAIL";
  else if (!G.api.cuGetErrorName || G.api.cuGetErrorName(r, &s) != FX_CUDA_SUCCESS || !s)
    s = "unknown error";
  snprintf(why, n, "%s failed: %s (%d)", what, s, r);
}

static void read_fault_env(void)
{
  const char *f = getenv("FX_CUDA_FAIL");
  G.fail_name[0] = 0;
  G.fail_at = 1;
  G.fail_count = 0;
  if (!f || !*f)
    return;
  snprintf(G.fail_name, sizeof(G.fail_name), "%s", f);
  char *colon = strchr(G.fail_name, ':');
  if (colon) {
    *colon = 0;
    G.fail_at = strtol(colon + 1, NULL, 10);
    if (G.fail_at < 1)
      G.fail_at = 1;
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
    snprintf(G.why, sizeof(G.why),
             "this build has no CUDA kernels: nvcc was not found when gst-fx was built");
    return;
  }
#endif
  if (!path || !*path)
    path = "libcuda.so.1";
  G.lib = fault_hit("dlopen") ? NULL : dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!G.lib) {
    const char *e = dlerror();
    snprintf(G.why, sizeof(G.why), "no CUDA driver: cannot load %s (%s)", path,
             e ? e : "injected by FX_CUDA_FAIL");
    return;
  }
#define FX_CU_SYM(name, sym, params)                                                               \
  *(void **) (&G.api.name) = dlsym(G.lib, sym);                                                    \
  if (!G.api.name) {                                                                               \
    snprintf(G.why, sizeof(G.why), "CUDA driver %s lacks %s (driver too old?)", path, sym);        \
    return;                                                                                        \
  }
  FX_CU_FUNCS(FX_CU_SYM)
#undef FX_CU_SYM
  if ((r = CU(cuInit, 0)) != FX_CUDA_SUCCESS) {
    cu_reason(G.why, sizeof(G.why), "cuInit", r);
    return;
  }
  int n = 0;
  if ((r = CU(cuDeviceGetCount, &n)) != FX_CUDA_SUCCESS) {
    cu_reason(G.why, sizeof(G.why), "cuDeviceGetCount", r);
    return;
  }
  if (n < 1) {
    snprintf(G.why, sizeof(G.why), "no CUDA device");
    return;
  }
  if ((r = CU(cuDeviceGet, &G.dev, 0)) != FX_CUDA_SUCCESS) {
    cu_reason(G.why, sizeof(G.why), "cuDeviceGet", r);
    return;
  }
  int major = 0, minor = 0;
  char name[128] = "";
  if ((r = CU(cuDeviceGetAttribute, &major, FX_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
              G.dev)) != FX_CUDA_SUCCESS ||
      (r = CU(cuDeviceGetAttribute, &minor, FX_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
              G.dev)) != FX_CUDA_SUCCESS) {
    cu_reason(G.why, sizeof(G.why), "cuDeviceGetAttribute", r);
    return;
  }
  if ((r = CU(cuDeviceGetName, name, (int) sizeof(name) - 1, G.dev)) != FX_CUDA_SUCCESS)
    snprintf(name, sizeof(name), "CUDA device 0");
  name[sizeof(name) - 1] = 0;
  snprintf(G.name, sizeof(G.name), "%s (%d.%d)", name, major, minor);
  if (major * 10 + minor < 75) {
    snprintf(G.why, sizeof(G.why), "%s: compute capability below 7.5 (the kernels need 7.5+)",
             G.name);
    return;
  }
  if ((r = CU(cuDevicePrimaryCtxRetain, &G.ctx, G.dev)) != FX_CUDA_SUCCESS) {
    cu_reason(G.why, sizeof(G.why), "cuDevicePrimaryCtxRetain", r);
    return;
  }
  if ((r = CU(cuCtxSetCurrent, G.ctx)) != FX_CUDA_SUCCESS) {
    cu_reason(G.why, sizeof(G.why), "cuCtxSetCurrent", r);
    return;
  }
  if ((r = CU(cuModuleLoadData, &G.mod, fx_cuda_fatbin)) != FX_CUDA_SUCCESS) {
    cu_reason(G.why, sizeof(G.why), FX_CU_IMAGE_WHAT, r);
    return;
  }
  static const char *const vn[FXK_NVARIANTS] = FXK_VARIANT_NAMES;
  for (int kind = 0; kind < 2; kind++)
    for (int v = 0; v < FXK_NVARIANTS; v++)
      for (int kc = kind; kc <= FXK_SPEC; kc++) {
        char fname[64];
        snprintf(fname, sizeof(fname), "fxk_%s_%s_k%d", kind ? "scan" : "seq", vn[v], kc);
        if ((r = CU(cuModuleGetFunction, &G.fn[kind][v][kc], G.mod, fname)) != FX_CUDA_SUCCESS) {
          cu_reason(G.why, sizeof(G.why), "cuModuleGetFunction", r);
          return;
        }
      }
  G.ok = 1;
}

int fx_cuda_probe(char *why, size_t why_len)
{
  pthread_once(&G.once, global_init);
  if (!G.ok && why && why_len)
    snprintf(why, why_len, "%s", G.why);
  return G.ok;
}

const char *fx_cuda_device_name(void)
{
  pthread_once(&G.once, global_init);
  return G.ok ? G.name : "";
}

/* ---------------------------------------------------------------------------------------------
 * Backend objects */

typedef struct {
  int used;
  uint64_t frames;
  int channels, kstride, k0, K, variant;
  uint64_t stamp;
  CUgraph graph;
  CUgraphExec exec;
} fx_graph_t;

struct fx_cuda {
  CUstream stream;
  char why[256];
  int broken;
  int graphs;
  int auto_only; /* fx_cuda_set_auto() */
  int last_ran;  /* fx_cuda_last_ran() */
  size_t scan_threshold;
  uint64_t scan_chunk; /* 0: automatic */
  uint64_t launches, captures, stamp, scans;
  char backend[48];
  fx_cascade_t *cascade;

  /* device buffers and their pinned twins; addresses stay fixed until a buffer must grow */
  CUdeviceptr d_data;
  void *h_data;
  size_t data_cap;
  /* [coef][state][hist] in one block each side */
  CUdeviceptr d_small;
  void *h_small;
  size_t small_cap;

  /* what the device holds (the mirror), to upload only when the engine changed something */
  unsigned char *shadow;
  size_t shadow_bytes;
  int shadow_valid;
  int layout_kstride, layout_channels, layout_variant;

  fx_graph_t g[FX_GRAPHS];

  /* scan: powers of the state transition (pinned twin for the upload), workspace, and what they
   * were built for */
  CUdeviceptr d_pw;
  void *h_pw;
  size_t pw_cap;
  double *pw_coef; /* [K][5] the coefficients the powers belong to */
  size_t pw_coef_cap;
  int pw_K, pw_valid;
  uint64_t pw_L;
  CUdeviceptr d_work;
  size_t work_cap;
  uint64_t work_T;
  int work_n2;
  uint64_t scan_base; /* blocks the workspace's counter has handed out */
  uint32_t epoch;
};

static void graphs_drop(fx_cuda_t *g)
{
  for (int i = 0; i < FX_GRAPHS; i++) {
    if (!g->g[i].used)
      continue;
    if (g->g[i].exec)
      G.api.cuGraphExecDestroy(g->g[i].exec);
    if (g->g[i].graph)
      G.api.cuGraphDestroy(g->g[i].graph);
    memset(&g->g[i], 0, sizeof(g->g[i]));
  }
}

static void fail(fx_cuda_t *g, const char *what, CUresult r)
{
  if (!g->broken)
    cu_reason(g->why, sizeof(g->why), what, r);
  g->broken = 1;
}

fx_cuda_t *fx_cuda_new(char *why, size_t why_len)
{
  if (!fx_cuda_probe(why, why_len))
    return NULL;
  fx_cuda_t *g = calloc(1, sizeof(*g));
  if (!g) {
    if (why && why_len)
      snprintf(why, why_len, "out of memory");
    return NULL;
  }
  g->graphs = 1;
  CUresult r = CU(cuCtxSetCurrent, G.ctx);
  if (r == FX_CUDA_SUCCESS)
    r = CU(cuStreamCreate, &g->stream, FX_CU_STREAM_NON_BLOCKING);
  if (r != FX_CUDA_SUCCESS) {
    if (why && why_len)
      cu_reason(why, why_len, "cuStreamCreate", r);
    free(g);
    return NULL;
  }
  return g;
}

static void buffers_free(fx_cuda_t *g)
{
  if (g->d_data)
    G.api.cuMemFree(g->d_data);
  if (g->h_data)
    G.api.cuMemFreeHost(g->h_data);
  if (g->d_small)
    G.api.cuMemFree(g->d_small);
  if (g->h_small)
    G.api.cuMemFreeHost(g->h_small);
  if (g->d_pw)
    G.api.cuMemFree(g->d_pw);
  if (g->h_pw)
    G.api.cuMemFreeHost(g->h_pw);
  if (g->d_work)
    G.api.cuMemFree(g->d_work);
  g->d_data = g->d_small = g->d_pw = g->d_work = 0;
  g->h_data = g->h_small = g->h_pw = NULL;
  g->data_cap = g->small_cap = g->pw_cap = g->work_cap = 0;
}

void fx_cuda_free(fx_cuda_t *g)
{
  if (!g)
    return;
  if (g->cascade)
    fx_cascade_set_offload(g->cascade, NULL, NULL);
  G.api.cuCtxSetCurrent(G.ctx);
  if (g->stream)
    G.api.cuStreamSynchronize(g->stream);
  graphs_drop(g);
  buffers_free(g);
  if (g->stream)
    G.api.cuStreamDestroy(g->stream);
  free(g->shadow);
  free(g->pw_coef);
  free(g);
}

void fx_cuda_set_graphs(fx_cuda_t *g, int on)
{
  if (g)
    g->graphs = on != 0;
}

void fx_cuda_set_scan_threshold(fx_cuda_t *g, size_t frames)
{
  if (g)
    g->scan_threshold = frames;
}

int fx_cuda_last_ran(const fx_cuda_t *g)
{
  return g && g->last_ran;
}

void fx_cuda_set_auto(fx_cuda_t *g, int on)
{
  if (g)
    g->auto_only = on != 0;
}

int fx_cuda_auto_prefers(uint64_t frames, int channels)
{
  return (channels >= FX_AUTO_MANY_CHANNELS && frames >= FX_AUTO_MANY_FRAMES) ||
         (channels >= FX_AUTO_SOME_CHANNELS && frames >= FX_AUTO_SOME_FRAMES);
}

void fx_cuda_set_scan_chunk(fx_cuda_t *g, unsigned frames)
{
  if (g && (frames == 0 || (frames <= 1024 && (frames & (frames - 1)) == 0)) &&
      g->scan_chunk != frames) {
    graphs_drop(g); /* captured launches hold the old chunk length */
    g->scan_chunk = frames;
  }
}

uint64_t fx_cuda_launches(const fx_cuda_t *g)
{
  return g ? g->launches : 0;
}

uint64_t fx_cuda_scans(const fx_cuda_t *g)
{
  return g ? g->scans : 0;
}

uint64_t fx_cuda_captures(const fx_cuda_t *g)
{
  return g ? g->captures : 0;
}

const char *fx_cuda_error(const fx_cuda_t *g)
{
  return g && g->broken ? g->why : NULL;
}

const char *fx_cuda_backend(fx_cuda_t *g, int dbl)
{
  if (!g)
    return "none";
  snprintf(g->backend, sizeof(g->backend), "cuda-%s%s", g->graphs ? "graph-" : "",
           dbl ? "f64" : "f32");
  return g->backend;
}

/* Grows a device buffer and its pinned twin to at least `bytes` (addresses change: graphs and
 * the mirror are dropped). */
static int reserve(fx_cuda_t *g, CUdeviceptr *d, void **h, size_t *cap, size_t bytes)
{
  if (bytes <= *cap)
    return 1;
  size_t want = *cap ? *cap : 4096;
  while (want < bytes)
    want *= 2;
  graphs_drop(g);
  g->shadow_valid = 0;
  if (*d)
    G.api.cuMemFree(*d);
  if (*h)
    G.api.cuMemFreeHost(*h);
  *d = 0;
  *h = NULL;
  *cap = 0;
  CUresult r = CU(cuMemAlloc, d, want);
  if (r != FX_CUDA_SUCCESS) {
    *d = 0;
    fail(g, "cuMemAlloc", r);
    return 0;
  }
  r = CU(cuMemAllocHost, h, want);
  if (r != FX_CUDA_SUCCESS) {
    *h = NULL;
    fail(g, "cuMemAllocHost", r);
    return 0;
  }
  *cap = want;
  return 1;
}

/* The kernel for a variant (fxk_variant_t, + FXK_NVARIANTS for the scan) and K sections. */
static CUfunction kernel_for(int variant, int K)
{
  const int kind = variant >= FXK_NVARIANTS;
  return G.fn[kind][variant % FXK_NVARIANTS][K >= 1 && K <= FXK_SPEC ? K : 0];
}

/* Frames per chunk of the scan for a pass of `frames` frames through K sections (fixed:
 * fx_cuda_set_scan_chunk). A buffer that one span of short chunks holds takes the power of two
 * L >= frames / FXK_SCAN_BLOCK (one span) from FX_SCAN_CHUNK_MIN up to FX_SCAN_CHUNK_SHORT that
 * costs a thread the fewest instructions: the two filtering passes take ~2 x 5 K L, the two
 * sweeps ~2 x (chunks) x (2K)^2 x 3 / FXK_SCAN_BLOCK (a 2K-term dot product per row and level,
 * ~3 instructions a term, spread over the block): 160 K L + 3 K^2 ceil(frames / L) in 1/16
 * instructions. 512 frames, K = 8: L = 8 by this count (1408 vs 1664 for L = 16, 1920 for L = 4),
 * but 16 measured faster (FX_SCAN_CHUNK_MIN). */
static uint64_t scan_chunk(const fx_cuda_t *g, uint64_t frames, int K)
{
  if (g && g->scan_chunk)
    return g->scan_chunk;
  if (frames >= FX_SCAN_CHUNK_SWITCH)
    return FX_SCAN_CHUNK_LONG;
  uint64_t best = FX_SCAN_CHUNK_SHORT, best_cost = UINT64_MAX;
  const uint64_t k = K > 0 ? (uint64_t) K : 1;
  for (uint64_t L = FX_SCAN_CHUNK_MIN; L <= FX_SCAN_CHUNK_SHORT; L *= 2) {
    if (L * FXK_SCAN_BLOCK < frames && L < FX_SCAN_CHUNK_SHORT)
      continue; /* more than one span */
    const uint64_t cost = 160 * k * L + 3 * k * k * ((frames + L - 1) / L);
    if (cost < best_cost) {
      best = L;
      best_cost = cost;
    }
  }
  return best;
}

/* Spans (blocks) per channel of the scan: FXK_SCAN_BLOCK chunks of L frames each, the last one
 * shorter. */
static uint64_t scan_spans(uint64_t frames, uint64_t L)
{
  const uint64_t span = L * FXK_SCAN_BLOCK;
  return (frames + span - 1) / span;
}

static unsigned scan_blocks(uint64_t frames, int channels, uint64_t L)
{
  return (unsigned) (scan_spans(frames, L) * (uint64_t) channels);
}

/* 1 when this pass should take the time-parallel scan kernel. */
static int use_scan(const fx_cuda_t *g, const fx_cascade_offload_call_t *call)
{
  if (call->K < 1 || call->K > FXK_SCAN_KMAX || call->frames < 2)
    return 0;
  if (g->scan_threshold)
    return call->frames >= g->scan_threshold;
  return call->frames >= FX_SCAN_AUTO_ALL_FRAMES ||
         (call->frames >= FX_SCAN_AUTO_FRAMES && call->channels <= FX_SCAN_AUTO_MAX_CHANNELS);
}

/* dst = a b (n x n, row-major), extended precision. */
static void matmul(long double *dst, const long double *a, const long double *b, int n)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      long double t = 0;
      for (int k = 0; k < n; k++)
        t += a[i * n + k] * b[k * n + j];
      dst[i * n + j] = t;
    }
}

/* The powers kernels.h's scan needs, of the zero-input state transition A of sections
 * coef[K][5] (state [K][2]), with P = A^L (L frames per chunk, a power of two) and
 * Q = P^FXK_SCAN_BLOCK: Q^m for m = 0 .. FXK_LB_WIN(K), then P^(2^k) for
 * k = 0 .. FXK_SCAN_LOG2B, into pw (double, computed in extended precision). 0 on allocation
 * failure. */
static int scan_powers(const double *coef, int K, uint64_t L, double *pw)
{
  const int n = 2 * K;
  const size_t nn = (size_t) n * (size_t) n;
  long double *A = calloc(4 * nn, sizeof(long double));
  if (!A)
    return 0;
  long double *P = A + nn, *Q = A + 2 * nn, *T = A + 3 * nn;
  /* column i: one zero-input step of the cascade from the unit state e_i */
  for (int i = 0; i < n; i++) {
    long double z[2 * FXK_SCAN_KMAX] = {0};
    z[i] = 1;
    long double v = 0;
    for (int s = 0; s < K; s++) {
      const double *c = coef + 5 * s;
      const long double y = c[0] * v + z[2 * s];
      z[2 * s] = (c[1] * v + z[2 * s + 1]) - c[3] * y;
      z[2 * s + 1] = c[2] * v - c[4] * y;
      v = y;
    }
    for (int r = 0; r < n; r++)
      A[(size_t) r * n + i] = z[r];
  }
  /* P = A^L by squaring */
  memcpy(P, A, nn * sizeof(long double));
  for (uint64_t b = 1; b < L; b *= 2) {
    matmul(T, P, P, n);
    memcpy(P, T, nn * sizeof(long double));
  }
  /* P^(2^k), k = 0 .. log2 B, after the Q^m; P ends as Q = P^B */
  double *pp = pw + (size_t) (FXK_LB_WIN(K) + 1) * nn;
  for (int k = 0; k <= FXK_SCAN_LOG2B; k++) {
    for (size_t i = 0; i < nn; i++)
      pp[(size_t) k * nn + i] = (double) P[i];
    if (k < FXK_SCAN_LOG2B) {
      matmul(T, P, P, n);
      memcpy(P, T, nn * sizeof(long double));
    }
  }
  /* Q^m: Q = identity, then times P (= Q now) */
  for (size_t i = 0; i < nn; i++)
    Q[i] = (i % (size_t) (n + 1)) == 0;
  for (int m = 0; m <= FXK_LB_WIN(K); m++) {
    for (size_t i = 0; i < nn; i++)
      pw[(size_t) m * nn + i] = (double) Q[i];
    matmul(T, Q, P, n);
    memcpy(Q, T, nn * sizeof(long double));
  }
  free(A);
  return 1;
}

/* Makes the powers and the workspace ready for a scan pass over `call` (uploads enqueued on the
 * stream, before the pass). 0 on failure (g is then broken, or 1 is returned by the caller for
 * host memory trouble). */
static int scan_prepare(fx_cuda_t *g, const fx_cascade_offload_call_t *call)
{
  CUresult r;
  const int K = call->K, n2 = 2 * K;
  const size_t nn = (size_t) n2 * (size_t) n2;
  const size_t pw_bytes = (size_t) FXK_PW_COUNT(K) * nn * sizeof(double);
  const uint64_t L = scan_chunk(g, call->frames, call->K);
  /* the coefficients in double, as the kernel's arithmetic sees them */
  double cf[5 * FXK_SCAN_KMAX];
  for (int i = 0; i < 5 * K; i++)
    cf[i] = call->dbl ? ((const double *) call->coef)[5 * (size_t) call->k0 + i]
                      : (double) ((const float *) call->coef)[5 * (size_t) call->k0 + i];
  if (!reserve(g, &g->d_pw, &g->h_pw, &g->pw_cap, pw_bytes))
    return 0;
  if (!g->pw_valid || g->pw_K != K || g->pw_L != L ||
      memcmp(g->pw_coef, cf, 5 * (size_t) K * sizeof(double))) {
    if (g->pw_coef_cap < (size_t) K) {
      double *p = realloc(g->pw_coef, 5 * (size_t) FXK_SCAN_KMAX * sizeof(double));
      if (!p)
        return 0;
      g->pw_coef = p;
      g->pw_coef_cap = FXK_SCAN_KMAX;
    }
    g->pw_valid = 0;
    if (!scan_powers(cf, K, L, g->h_pw))
      return 0;
    if ((r = CU(cuMemcpyHtoDAsync, g->d_pw, g->h_pw, pw_bytes, g->stream)) != FX_CUDA_SUCCESS) {
      fail(g, "cuMemcpyHtoDAsync", r);
      return 0;
    }
    memcpy(g->pw_coef, cf, 5 * (size_t) K * sizeof(double));
    g->pw_K = K;
    g->pw_L = L;
    g->pw_valid = 1;
  }
  const uint64_t T = scan_blocks(call->frames, call->channels, L);
  const size_t work_bytes = (size_t) FXK_WORK_BYTES(T, n2);
  if (work_bytes > g->work_cap) {
    size_t want = g->work_cap ? g->work_cap : 65536;
    while (want < work_bytes)
      want *= 2;
    graphs_drop(g);
    if (g->d_work)
      G.api.cuMemFree(g->d_work);
    g->d_work = 0;
    g->work_cap = 0;
    if ((r = CU(cuMemAlloc, &g->d_work, want)) != FX_CUDA_SUCCESS) {
      g->d_work = 0;
      fail(g, "cuMemAlloc", r);
      return 0;
    }
    g->work_cap = want;
    g->work_T = 0;
  }
  if (g->work_T != T || g->work_n2 != n2) { /* a new layout: clear flags and counter */
    if ((r = CU(cuMemsetD8Async, g->d_work, 0, work_bytes, g->stream)) != FX_CUDA_SUCCESS) {
      fail(g, "cuMemsetD8Async", r);
      return 0;
    }
    g->work_T = T;
    g->work_n2 = n2;
    g->scan_base = 0;
  }
  return 1;
}

/* The work of one pass, enqueued on the stream (eagerly or while capturing). */
/* variant: fxk_variant_t, + FXK_NVARIANTS for the scan kernel. io_bytes: samples plus
 * FX_CTL_BYTES; the small block is [coef][state][hist][snap0][snap1]. */
static CUresult enqueue(fx_cuda_t *g, const fx_cascade_offload_call_t *call, int variant,
                        size_t io_bytes, size_t coef_bytes, size_t down_bytes, int count,
                        const char **what)
{
  CUresult r;
  fxk_seq_args_t a;
  memset(&a, 0, sizeof(a));
  const size_t ts = call->dbl ? sizeof(double) : sizeof(float);
  const size_t state_bytes = (size_t) call->channels * (size_t) call->kstride * 2 * ts;
  a.coef = g->d_small;
  a.state = g->d_small + coef_bytes;
  a.hist = g->d_small + coef_bytes + state_bytes;
  const size_t hist_bytes =
      (size_t) call->channels * ((size_t) call->kstride + 1) * 2 * sizeof(double);
  a.snap[0] = a.hist + hist_bytes;
  a.snap[1] = a.snap[0] + state_bytes;
  a.ctl = g->d_data;
  a.data = g->d_data + FX_CTL_BYTES;
  a.frames = call->frames;
  a.channels = call->channels;
  a.k0 = call->k0;
  a.K = call->K;
  a.kstride = call->kstride;
  *what = "cuMemcpyHtoDAsync";
  if ((r = CU(cuMemcpyHtoDAsync, g->d_data, g->h_data, io_bytes, g->stream)) != FX_CUDA_SUCCESS)
    return r;
  void *params[] = {&a};
  unsigned blocks = (unsigned) ((call->channels + FXK_SEQ_BLOCK - 1) / FXK_SEQ_BLOCK);
  unsigned threads = FXK_SEQ_BLOCK;
  if (variant >= FXK_NVARIANTS) {
    a.pw = g->d_pw;
    a.work = g->d_work;
    a.chunk = scan_chunk(g, call->frames, call->K);
    a.nblocks = scan_spans(call->frames, a.chunk);
    threads = FXK_SCAN_BLOCK;
    blocks = scan_blocks(call->frames, call->channels, a.chunk);
  }
  *what = "cuLaunchKernel";
  if ((r = CU(cuLaunchKernel, kernel_for(variant, call->K), blocks, 1, 1, threads, 1, 1, 0,
              g->stream, params, NULL)) != FX_CUDA_SUCCESS)
    return r;
  if (count)
    g->launches++;
  *what = "cuMemcpyDtoHAsync";
  if ((r = CU(cuMemcpyDtoHAsync, g->h_data, g->d_data, io_bytes, g->stream)) != FX_CUDA_SUCCESS)
    return r;
  return CU(cuMemcpyDtoHAsync, (unsigned char *) g->h_small + coef_bytes, g->d_small + coef_bytes,
            down_bytes, g->stream);
}

static fx_graph_t *graph_find(fx_cuda_t *g, const fx_cascade_offload_call_t *call, int variant)
{
  for (int i = 0; i < FX_GRAPHS; i++) {
    fx_graph_t *e = &g->g[i];
    if (e->used && e->frames == call->frames && e->channels == call->channels &&
        e->kstride == call->kstride && e->k0 == call->k0 && e->K == call->K &&
        e->variant == variant)
      return e;
  }
  return NULL;
}

static fx_graph_t *graph_slot(fx_cuda_t *g)
{
  fx_graph_t *best = &g->g[0];
  for (int i = 0; i < FX_GRAPHS; i++) {
    if (!g->g[i].used)
      return &g->g[i];
    if (g->g[i].stamp < best->stamp)
      best = &g->g[i];
  }
  if (best->exec)
    G.api.cuGraphExecDestroy(best->exec);
  if (best->graph)
    G.api.cuGraphDestroy(best->graph);
  memset(best, 0, sizeof(*best));
  return best;
}

static int offload_run_pass(fx_cuda_t *g, const fx_cascade_offload_call_t *call);

static int offload_run(void *ctx, const fx_cascade_offload_call_t *call)
{
  fx_cuda_t *g = ctx;
  const int r = offload_run_pass(g, call);
  g->last_ran = r == 0;
  return r;
}

static int offload_run_pass(fx_cuda_t *g, const fx_cascade_offload_call_t *call)
{
  if (g->broken)
    return -1;
  if (call->K > FXK_KMAX || call->K < 0 || call->channels < 1 || call->frames == 0)
    return 1;
  if (g->auto_only && !fx_cuda_auto_prefers(call->frames, call->channels))
    return 1; /* device=auto: a shape the CPU engine was measured faster on */
  const int scan = use_scan(g, call);
  const int variant =
      (call->format == FX_SAMPLE_F64 ? FXK_F64 : (call->dbl ? FXK_F32D : FXK_F32S)) +
      (scan ? FXK_NVARIANTS : 0);
  const size_t C = (size_t) call->channels, KT = (size_t) call->kstride;
  const size_t ts = call->dbl ? sizeof(double) : sizeof(float);
  const size_t ss = call->format == FX_SAMPLE_F64 ? sizeof(double) : sizeof(float);
  const size_t io_bytes = FX_CTL_BYTES + call->frames * C * ss;
  const size_t coef_bytes = (KT * 5 * ts + 15) & ~(size_t) 15;
  const size_t state_bytes = C * KT * 2 * ts;
  const size_t hist_bytes = C * (KT + 1) * 2 * sizeof(double);
  const size_t mirror_bytes = coef_bytes + state_bytes + hist_bytes;
  const size_t small_bytes = mirror_bytes + 2 * state_bytes; /* + the two checkpoint states */
  const void *coef = call->coef;
  void *state = call->state;
  CUresult r;

  if ((r = CU(cuCtxSetCurrent, G.ctx)) != FX_CUDA_SUCCESS) {
    fail(g, "cuCtxSetCurrent", r);
    return -1;
  }
  if (!reserve(g, &g->d_data, &g->h_data, &g->data_cap, io_bytes) ||
      !reserve(g, &g->d_small, &g->h_small, &g->small_cap, small_bytes))
    return -1;
  if (g->shadow_bytes < mirror_bytes) {
    unsigned char *p = realloc(g->shadow, mirror_bytes);
    if (!p)
      return 1; /* host memory: this call on the CPU, try again next time */
    g->shadow = p;
    g->shadow_bytes = mirror_bytes;
    g->shadow_valid = 0;
  }
  /* a new layout moves the state and hist inside the block: graphs hold the old offsets */
  if (g->layout_kstride != call->kstride || g->layout_channels != call->channels ||
      g->layout_variant != variant % FXK_NVARIANTS) {
    graphs_drop(g);
    g->shadow_valid = 0;
    g->layout_kstride = call->kstride;
    g->layout_channels = call->channels;
    g->layout_variant = variant % FXK_NVARIANTS;
  }
  /* upload coefficients, state and history when they differ from what the device holds */
  unsigned char *hs = g->h_small;
  const size_t cb = KT * 5 * ts;
  if (!g->shadow_valid || memcmp(g->shadow, coef, cb) != 0 ||
      memcmp(g->shadow + coef_bytes, state, state_bytes) != 0 ||
      memcmp(g->shadow + coef_bytes + state_bytes, call->hist, hist_bytes) != 0) {
    memset(hs, 0, coef_bytes);
    memcpy(hs, coef, cb);
    memcpy(hs + coef_bytes, state, state_bytes);
    memcpy(hs + coef_bytes + state_bytes, call->hist, hist_bytes);
    g->shadow_valid = 0;
    if ((r = CU(cuMemcpyHtoDAsync, g->d_small, hs, mirror_bytes, g->stream)) != FX_CUDA_SUCCESS) {
      fail(g, "cuMemcpyHtoDAsync", r);
      return -1;
    }
    memcpy(g->shadow, hs, mirror_bytes);
  }
  if (scan && !scan_prepare(g, call))
    return g->broken ? -1 : 1;
  if (scan && ++g->epoch >= (1u << 30))
    g->epoch = 1;
  const uint64_t ctl[4] = {call->cut[0], call->cut[1], scan ? g->epoch : 0,
                           scan ? g->scan_base : 0};
  memcpy(g->h_data, ctl, sizeof(ctl));
  memcpy((unsigned char *) g->h_data + FX_CTL_BYTES, call->data, io_bytes - FX_CTL_BYTES);

  const size_t down_bytes = small_bytes - coef_bytes; /* state, hist, checkpoints */
  const char *what = "";
  if (g->graphs) {
    fx_graph_t *e = graph_find(g, call, variant);
    if (!e) {
      e = graph_slot(g);
      CUgraph graph = NULL;
      CUgraphExec exec = NULL;
      if ((r = CU(cuStreamBeginCapture, g->stream, FX_CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)) !=
          FX_CUDA_SUCCESS) {
        fail(g, "cuStreamBeginCapture", r);
        return -1;
      }
      CUresult rq = enqueue(g, call, variant, io_bytes, coef_bytes, down_bytes, 0, &what);
      r = CU(cuStreamEndCapture, g->stream, &graph);
      if (rq != FX_CUDA_SUCCESS || r != FX_CUDA_SUCCESS) {
        if (graph)
          G.api.cuGraphDestroy(graph);
        fail(g, rq != FX_CUDA_SUCCESS ? what : "cuStreamEndCapture",
             rq != FX_CUDA_SUCCESS ? rq : r);
        return -1;
      }
      if ((r = CU(cuGraphInstantiate, &exec, graph, 0)) != FX_CUDA_SUCCESS) {
        G.api.cuGraphDestroy(graph);
        fail(g, "cuGraphInstantiate", r);
        return -1;
      }
      e->used = 1;
      e->frames = call->frames;
      e->channels = call->channels;
      e->kstride = call->kstride;
      e->k0 = call->k0;
      e->K = call->K;
      e->variant = variant;
      e->graph = graph;
      e->exec = exec;
      g->captures++;
    }
    e->stamp = ++g->stamp;
    if ((r = CU(cuGraphLaunch, e->exec, g->stream)) != FX_CUDA_SUCCESS) {
      fail(g, "cuGraphLaunch", r);
      return -1;
    }
    g->launches++;
  } else if ((r = enqueue(g, call, variant, io_bytes, coef_bytes, down_bytes, 1, &what)) !=
             FX_CUDA_SUCCESS) {
    fail(g, what, r);
    return -1;
  }
  if (scan) {
    g->scan_base += scan_blocks(call->frames, call->channels, scan_chunk(g, call->frames, call->K));
    g->scans++;
  }
  if ((r = CU(cuStreamSynchronize, g->stream)) != FX_CUDA_SUCCESS) {
    fail(g, "cuStreamSynchronize", r);
    return -1;
  }
  /* success: only now the engine's arrays change */
  memcpy(call->data, (unsigned char *) g->h_data + FX_CTL_BYTES, io_bytes - FX_CTL_BYTES);
  memcpy(state, hs + coef_bytes, state_bytes);
  memcpy(call->hist, hs + coef_bytes + state_bytes, hist_bytes);
  memcpy(g->shadow + coef_bytes, hs + coef_bytes, state_bytes + hist_bytes);
  g->shadow_valid = 1;
  for (int i = 0; i < 2; i++) { /* checkpoints: only the sections this pass ran */
    void *dst = call->ck_state[i];
    if (!call->cut[i] || !dst)
      continue;
    const unsigned char *src = hs + mirror_bytes + (size_t) i * state_bytes;
    for (size_t ch = 0; ch < C; ch++) {
      const size_t o = (ch * KT + (size_t) call->k0) * 2 * ts;
      memcpy((unsigned char *) dst + o, src + o, (size_t) call->K * 2 * ts);
    }
  }
  return 0;
}

void fx_cuda_attach(fx_cuda_t *g, fx_cascade_t *c)
{
  if (!g)
    return;
  if (g->cascade && g->cascade != c)
    fx_cascade_set_offload(g->cascade, NULL, NULL);
  g->cascade = c;
  g->shadow_valid = 0;
  if (c)
    fx_cascade_set_offload(c, g->broken ? NULL : offload_run, g);
}

/* ---------------------------------------------------------------------------------------------
 * Bench helpers */

double fx_cuda_bench_d2d(size_t bytes, int reps)
{
  if (!fx_cuda_probe(NULL, 0) || reps < 1)
    return 0;
  CUdeviceptr a = 0, b = 0;
  CUstream s = NULL;
  CUevent e0 = NULL, e1 = NULL;
  double bw = 0;
  float ms = 0;
  G.api.cuCtxSetCurrent(G.ctx);
  if (G.api.cuMemAlloc(&a, bytes) || G.api.cuMemAlloc(&b, bytes) || G.api.cuStreamCreate(&s, 1) ||
      G.api.cuEventCreate(&e0, 0) || G.api.cuEventCreate(&e1, 0))
    goto out;
  G.api.cuMemsetD8Async(a, 0, bytes, s);
  G.api.cuMemcpyDtoDAsync(b, a, bytes, s); /* warm */
  G.api.cuEventRecord(e0, s);
  for (int i = 0; i < reps; i++)
    G.api.cuMemcpyDtoDAsync(b, a, bytes, s);
  G.api.cuEventRecord(e1, s);
  if (G.api.cuEventSynchronize(e1) == FX_CUDA_SUCCESS &&
      G.api.cuEventElapsedTime(&ms, e0, e1) == FX_CUDA_SUCCESS && ms > 0)
    bw = (double) bytes * reps / (ms * 1e-3); /* bytes read (as many written) per second */
out:
  if (e0)
    G.api.cuEventDestroy(e0);
  if (e1)
    G.api.cuEventDestroy(e1);
  if (s)
    G.api.cuStreamDestroy(s);
  if (a)
    G.api.cuMemFree(a);
  if (b)
    G.api.cuMemFree(b);
  return bw;
}

double fx_cuda_bench_kernel(size_t frames, int channels, int K, fx_sample_format_t format, int dbl,
                            int scan, int reps)
{
  if (!fx_cuda_probe(NULL, 0) || reps < 1 || channels < 1 || K < 1 || K > FXK_KMAX ||
      (scan && (K > FXK_SCAN_KMAX || frames < 2)))
    return -1;
  const int variant = (format == FX_SAMPLE_F64 ? FXK_F64 : (dbl ? FXK_F32D : FXK_F32S)) +
                      (scan ? FXK_NVARIANTS : 0);
  const size_t ts = dbl ? sizeof(double) : sizeof(float);
  const size_t ss = format == FX_SAMPLE_F64 ? sizeof(double) : sizeof(float);
  const size_t C = (size_t) channels, KT = (size_t) K, n2 = 2 * KT;
  const size_t io = frames * C * ss, cb = (KT * 5 * ts + 15) & ~(size_t) 15;
  const size_t sb = C * KT * 2 * ts, hb = C * (KT + 1) * 2 * sizeof(double);
  const size_t ctlb = (size_t) (reps + 1) * 4 * sizeof(uint64_t);
  const uint64_t L = scan_chunk(NULL, frames, K), T = scan_blocks(frames, channels, L);
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
  G.api.cuCtxSetCurrent(G.ctx);
  if (G.api.cuMemAlloc(&d, io ? io : 1) || G.api.cuMemAlloc(&sm, cb + 3 * sb + hb) ||
      G.api.cuMemAlloc(&pw, pwb) || G.api.cuMemAlloc(&work, wb) || G.api.cuMemAlloc(&dctl, ctlb) ||
      G.api.cuStreamCreate(&s, 1) || G.api.cuEventCreate(&e0, 0) || G.api.cuEventCreate(&e1, 0))
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
  if (scan && !scan_powers(cf, K, L, hpw))
    goto out;
  /* each launch its own ctl: {no checkpoints, epoch i + 1, block base} */
  const unsigned blocks = scan ? scan_blocks(frames, channels, L)
                               : (unsigned) ((C + FXK_SEQ_BLOCK - 1) / FXK_SEQ_BLOCK);
  for (int i = 0; i <= reps; i++) {
    hctl[4 * i + 2] = (uint64_t) i + 1;
    hctl[4 * i + 3] = (uint64_t) i * blocks;
  }
  G.api.cuMemsetD8Async(d, 0, io, s);
  G.api.cuMemsetD8Async(sm, 0, cb + 3 * sb + hb, s);
  G.api.cuMemsetD8Async(work, 0, wb, s);
  G.api.cuMemcpyHtoDAsync(sm, hc, cb, s);
  G.api.cuMemcpyHtoDAsync(dctl, hctl, ctlb, s);
  if (scan)
    G.api.cuMemcpyHtoDAsync(pw, hpw, pwb, s);
  if (G.api.cuStreamSynchronize(s))
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
  a.nblocks = scan_spans(frames, L);
  a.channels = channels;
  a.k0 = 0;
  a.K = K;
  a.kstride = K;
  void *params[] = {&a};
  const unsigned threads = scan ? FXK_SCAN_BLOCK : FXK_SEQ_BLOCK;
  if (G.api.cuLaunchKernel(kernel_for(variant, K), blocks, 1, 1, threads, 1, 1, 0, s, params,
                           NULL) ||
      G.api.cuStreamSynchronize(s))
    goto out; /* warm */
  G.api.cuEventRecord(e0, s);
  for (int i = 1; i <= reps; i++) {
    a.ctl = dctl + (CUdeviceptr) i * 4 * sizeof(uint64_t);
    G.api.cuLaunchKernel(kernel_for(variant, K), blocks, 1, 1, threads, 1, 1, 0, s, params, NULL);
  }
  G.api.cuEventRecord(e1, s);
  if (G.api.cuEventSynchronize(e1) == FX_CUDA_SUCCESS &&
      G.api.cuEventElapsedTime(&ms, e0, e1) == FX_CUDA_SUCCESS)
    sec = ms * 1e-3 / reps;
out:
  free(hc);
  free(hpw);
  free(hctl);
  if (e0)
    G.api.cuEventDestroy(e0);
  if (e1)
    G.api.cuEventDestroy(e1);
  if (s)
    G.api.cuStreamDestroy(s);
  if (d)
    G.api.cuMemFree(d);
  if (sm)
    G.api.cuMemFree(sm);
  if (pw)
    G.api.cuMemFree(pw);
  if (work)
    G.api.cuMemFree(work);
  if (dctl)
    G.api.cuMemFree(dctl);
  return sec;
}
