/* gst-fx — CUDA backend: which kernel a pass takes (sequential or time-parallel scan, the variant
 * for its format and arithmetic, the K-specialised entry) and the scan's parameters (chunk length,
 * blocks, the transition-matrix powers it reads). Host arithmetic only: no driver call here.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The thresholds below rest on GPU measurements that docs/cuda.md records ("scan-threshold and
 * device=auto", "Short buffers and staging"); measure again before changing them. */
#include "fxcuda-private.h"

#include <stdlib.h>
#include <string.h>

/* Time-parallel scan (kernels.h): frames per chunk (a power of two; short chunks for short
 * buffers, where the latency of one block is the whole kernel, long ones to spread the scan's
 * cost over more samples and make fewer spans to look back over), and the frame count from which
 * the long chunk is used. Buffers that fit one span of short chunks (up to FXK_SCAN_BLOCK x
 * FX_SCAN_CHUNK_SHORT frames) may take shorter chunks, down to FX_SCAN_CHUNK_MIN, so that more of
 * the block's threads have frames (fx_cu_scan_chunk); 8-frame chunks measured slower than 16 on
 * the 512-frame stereo buffer, so the minimum is 16 (the kernel takes 2..1024 frames, and the
 * tests force the short ones through fx_cuda_set_scan_chunk). */
#define FX_SCAN_CHUNK_SHORT 16
#define FX_SCAN_CHUNK_LONG 128
#define FX_SCAN_CHUNK_SWITCH 65536
#define FX_SCAN_CHUNK_MIN 16
/* Automatic choice between the two kernels (scan-threshold=0): the scan from FX_SCAN_AUTO_FRAMES
 * frames for up to FX_SCAN_AUTO_MAX_CHANNELS channels, from FX_SCAN_AUTO_ALL_FRAMES for any
 * count (below that, many channels keep the sequential kernel busy enough to win). */
#define FX_SCAN_AUTO_FRAMES 256
#define FX_SCAN_AUTO_MAX_CHANNELS 64
#define FX_SCAN_AUTO_ALL_FRAMES 100000
/* device=auto (fx_cuda_auto_prefers): the shapes where the GPU kernels measured faster than the
 * CPU engine: FX_AUTO_MANY_CHANNELS channels from FX_AUTO_MANY_FRAMES frames (sequential
 * kernel), FX_AUTO_SOME_CHANNELS channels from FX_AUTO_SOME_FRAMES frames (scan). */
#define FX_AUTO_MANY_CHANNELS 512
#define FX_AUTO_MANY_FRAMES 1000
#define FX_AUTO_SOME_CHANNELS 64
#define FX_AUTO_SOME_FRAMES 100000

int fx_cu_variant(fx_sample_format_t format, int dbl, int scan)
{
  return (format == FX_SAMPLE_F64 ? FXK_F64 : (dbl ? FXK_F32D : FXK_F32S)) +
         (scan ? FXK_NVARIANTS : 0);
}

/* Kernels specialised for K = 1 .. FXK_SPEC sections, the generic one (index 0) beyond. */
CUfunction fx_cu_kernel_for(int variant, int K)
{
  const int kind = variant >= FXK_NVARIANTS;
  return fx_cu.fn[kind][variant % FXK_NVARIANTS][K >= 1 && K <= FXK_SPEC ? K : 0];
}

/* A buffer that one span of short chunks holds takes the power of two L >= frames /
 * FXK_SCAN_BLOCK (one span) from FX_SCAN_CHUNK_MIN up to FX_SCAN_CHUNK_SHORT that costs a thread
 * the fewest instructions: the two filtering passes take ~2 x 5 K L, the two sweeps
 * ~2 x (chunks) x (2K)^2 x 3 / FXK_SCAN_BLOCK (a 2K-term dot product per row and level, ~3
 * instructions a term, spread over the block): 160 K L + 3 K^2 ceil(frames / L) in 1/16
 * instructions (docs/cuda.md, "Short buffers and staging"). */
uint64_t fx_cu_scan_chunk(uint64_t fixed, uint64_t frames, int K)
{
  if (fixed)
    return fixed;
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

uint64_t fx_cu_scan_spans(uint64_t frames, uint64_t L)
{
  const uint64_t span = L * FXK_SCAN_BLOCK;
  return (frames + span - 1) / span;
}

unsigned fx_cu_scan_blocks(uint64_t frames, int channels, uint64_t L)
{
  return (unsigned) (fx_cu_scan_spans(frames, L) * (uint64_t) channels);
}

int fx_cu_use_scan(size_t threshold, uint64_t frames, int channels, int K)
{
  if (K < 1 || K > FXK_SCAN_KMAX || frames < 2)
    return 0;
  if (threshold)
    return frames >= threshold;
  return frames >= FX_SCAN_AUTO_ALL_FRAMES ||
         (frames >= FX_SCAN_AUTO_FRAMES && channels <= FX_SCAN_AUTO_MAX_CHANNELS);
}

int fx_cuda_auto_prefers(uint64_t frames, int channels)
{
  return (channels >= FX_AUTO_MANY_CHANNELS && frames >= FX_AUTO_MANY_FRAMES) ||
         (channels >= FX_AUTO_SOME_CHANNELS && frames >= FX_AUTO_SOME_FRAMES);
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

/* With P = A^L (A: one zero-input step of the cascade, L frames per chunk, a power of two) and
 * Q = P^FXK_SCAN_BLOCK: Q^m for m = 0 .. FXK_LB_WIN(K), then P^(2^k) for k = 0 .. FXK_SCAN_LOG2B,
 * computed in extended precision and stored as double. */
int fx_cu_scan_powers(const double *coef, int K, uint64_t L, double *pw)
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
