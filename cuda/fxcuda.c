/* gst-fx — CUDA backend objects: one stream each, pinned staging and device buffers, the mirror
 * of what the device holds, the graph cache, and the per-pass path the cascade engine's offload
 * hook calls (copy in, one launch, copy out, eagerly or as a replayed graph). The driver is loaded
 * by driver.c, the kernel for a pass chosen by choice.c.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "fxcuda-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes in front of the samples in the data buffers: the checkpoint positions (kernels.h's ctl),
 * copied in with the samples. */
#define FX_CTL_BYTES 64
/* Graphs kept per object (least recently used one replaced). */
#define FX_GRAPHS 8

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
      fx_cu.api.cuGraphExecDestroy(g->g[i].exec);
    if (g->g[i].graph)
      fx_cu.api.cuGraphDestroy(g->g[i].graph);
    memset(&g->g[i], 0, sizeof(g->g[i]));
  }
}

static void fail(fx_cuda_t *g, const char *what, CUresult r)
{
  if (!g->broken)
    fx_cu_reason(g->why, sizeof(g->why), what, r);
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
  CUresult r = CU(cuCtxSetCurrent, fx_cu.ctx);
  if (r == FX_CUDA_SUCCESS)
    r = CU(cuStreamCreate, &g->stream, FX_CU_STREAM_NON_BLOCKING);
  if (r != FX_CUDA_SUCCESS) {
    if (why && why_len)
      fx_cu_reason(why, why_len, "cuStreamCreate", r);
    free(g);
    return NULL;
  }
  return g;
}

static void buffers_free(fx_cuda_t *g)
{
  if (g->d_data)
    fx_cu.api.cuMemFree(g->d_data);
  if (g->h_data)
    fx_cu.api.cuMemFreeHost(g->h_data);
  if (g->d_small)
    fx_cu.api.cuMemFree(g->d_small);
  if (g->h_small)
    fx_cu.api.cuMemFreeHost(g->h_small);
  if (g->d_pw)
    fx_cu.api.cuMemFree(g->d_pw);
  if (g->h_pw)
    fx_cu.api.cuMemFreeHost(g->h_pw);
  if (g->d_work)
    fx_cu.api.cuMemFree(g->d_work);
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
  fx_cu.api.cuCtxSetCurrent(fx_cu.ctx);
  if (g->stream)
    fx_cu.api.cuStreamSynchronize(g->stream);
  graphs_drop(g);
  buffers_free(g);
  if (g->stream)
    fx_cu.api.cuStreamDestroy(g->stream);
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
    fx_cu.api.cuMemFree(*d);
  if (*h)
    fx_cu.api.cuMemFreeHost(*h);
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

/* Makes the powers and the workspace ready for a scan pass over `call` (uploads enqueued on the
 * stream, before the pass). 0 on failure (g is then broken, or 1 is returned by the caller for
 * host memory trouble). */
static int scan_prepare(fx_cuda_t *g, const fx_cascade_offload_call_t *call)
{
  CUresult r;
  const int K = call->K, n2 = 2 * K;
  const size_t nn = (size_t) n2 * (size_t) n2;
  const size_t pw_bytes = (size_t) FXK_PW_COUNT(K) * nn * sizeof(double);
  const uint64_t L = fx_cu_scan_chunk(g->scan_chunk, call->frames, call->K);
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
    if (!fx_cu_scan_powers(cf, K, L, g->h_pw))
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
  const uint64_t T = fx_cu_scan_blocks(call->frames, call->channels, L);
  const size_t work_bytes = (size_t) FXK_WORK_BYTES(T, n2);
  if (work_bytes > g->work_cap) {
    size_t want = g->work_cap ? g->work_cap : 65536;
    while (want < work_bytes)
      want *= 2;
    graphs_drop(g);
    if (g->d_work)
      fx_cu.api.cuMemFree(g->d_work);
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
    a.chunk = fx_cu_scan_chunk(g->scan_chunk, call->frames, call->K);
    a.nblocks = fx_cu_scan_spans(call->frames, a.chunk);
    threads = FXK_SCAN_BLOCK;
    blocks = fx_cu_scan_blocks(call->frames, call->channels, a.chunk);
  }
  *what = "cuLaunchKernel";
  if ((r = CU(cuLaunchKernel, fx_cu_kernel_for(variant, call->K), blocks, 1, 1, threads, 1, 1, 0,
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
    fx_cu.api.cuGraphExecDestroy(best->exec);
  if (best->graph)
    fx_cu.api.cuGraphDestroy(best->graph);
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
  const int scan = fx_cu_use_scan(g->scan_threshold, call->frames, call->channels, call->K);
  const int variant = fx_cu_variant(call->format, call->dbl, scan);
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

  if ((r = CU(cuCtxSetCurrent, fx_cu.ctx)) != FX_CUDA_SUCCESS) {
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
          fx_cu.api.cuGraphDestroy(graph);
        fail(g, rq != FX_CUDA_SUCCESS ? what : "cuStreamEndCapture",
             rq != FX_CUDA_SUCCESS ? rq : r);
        return -1;
      }
      if ((r = CU(cuGraphInstantiate, &exec, graph, 0)) != FX_CUDA_SUCCESS) {
        fx_cu.api.cuGraphDestroy(graph);
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
    g->scan_base += fx_cu_scan_blocks(call->frames, call->channels,
                                      fx_cu_scan_chunk(g->scan_chunk, call->frames, call->K));
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
