/* gst-fx — CPU kernels and their run-time dispatch (internal to libfxdsp). Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One table of instruction sets (kernel_select.c), best first: each entry, an fx_isa_t, has a
 * name, its CPU-feature test, its SOS cascade (IIR) method set, fx_kernel_t, and its FIR method
 * set, fx_fir_kernels_t (fir_kernel.h). fx_isa_select() takes the first entry this CPU supports,
 * the way PipeWire's filter-graph picks its audio-dsp method set, unless FX_KERNEL names another
 * supported one. The baseline entry, "scalar", is portable C built for the baseline target and is
 * always supported. Every method of every set is a plain, non-static function named
 * fx_kernel_<isa>_<flavour> (IIR) or fx_fir_<isa>_<method>_<precision> (FIR), declared below and
 * in fir_kernel.h and listed in kernel_select.c's tables.
 *
 * An IIR kernel filters an interleaved buffer in place through K second-order sections in
 * transposed direct form II. Data layout shared by every kernel (K sections, C channels):
 *   coef   [K][5]        b0, b1, b2, a1, a2 of each section (a0 == 1)
 *   state  [C][K][2]     z1, z2 of each section, per channel
 *   hist   [C][K+1][2]   optional (may be NULL): for each section boundary s = 0..K (s = K is the
 *                        cascade output), the last two samples of the signal entering section s,
 *                        most recent first: hist[c][s][0] = x[n], hist[c][s][1] = x[n-1].
 *                        Stored as double whatever the arithmetic (float values convert exactly).
 *                        The engine uses it to derive a new cascade's state when coefficients
 *                        change (as a direct-form-I filter would switch).
 *   data   [frames][C]   interleaved samples, filtered in place.
 *
 * Requirements on every implementation:
 *   - The result of each sample must not depend on how a stream is split into calls beyond what
 *     DESIGN.md §3 allows (F64: 1e-12 relative; F32: rounding). The per-sample paths (scalar,
 *     channel vectors, wavefront: the same arithmetic for every sample of every call) are
 *     bit-identical across splits. One path is not: the time-block path of the AVX2 kernel (and
 *     of AVX-512, which hands it mono and stereo), taken only by F32 streams in double arithmetic
 *     (f32_d), for 1 or 2 channels, K <= 12 (10 for mono) and calls whose frames, without their
 *     last two, number at least FX_KERNEL_SPLIT_EXACT_FRAMES. It filters consecutive time blocks
 *     side by side in the vector lanes from zero state and adds each block's zero-input response
 *     from the state computed for its start (kernel_tblock.h), so a sample's rounding depends on
 *     where its call began and ended; its results agree with the other paths within DESIGN's
 *     bar for F32 (F32 with double arithmetic >= 150 dB SER). F64 streams never take it (its
 *     split differences on nearly repeated poles near the unit circle exceed DESIGN's 1e-12 for
 *     F64), nor do F32 streams in float arithmetic (f32_s: single precision's own rounding in
 *     the block correction exceeds the F32 split bar of tests/python/test_streaming.py on
 *     high-gain designs).
 *   - Recurrence per section, y = b0 x + z1; z1 = (b1 x + z2) - a1 y; z2 = b2 x - a2 y, so the
 *     loop-carried chain is short (two FMA latencies where FMA is used).
 *   - Denormals must not slow decaying tails: set flush-to-zero / denormals-are-zero for the
 *     duration of the call and restore the caller's mode afterwards.
 *   - K == 0 is allowed (only hist[.][0] is updated).
 *   - A call may cover a range of a larger cascade: `kstride` (>= K) is the number of sections
 *     per channel that the state and hist arrays are laid out for ([C][kstride][2] and
 *     [C][kstride+1][2]); the caller offsets coef by 5*k0, state and hist by 2*k0 to run sections
 *     k0 .. k0+K-1. A whole cascade passes kstride == K.
 *   - No locking. No allocation, except that the time-block path builds its tables for a
 *     coefficient set it has not seen (a per-thread cache of a few sets; kernel_tblock.h) and
 *     falls back to the other paths when that allocation fails. */
#ifndef FX_KERNEL_H
#define FX_KERNEL_H

#include <stddef.h>

#include "chunk.h"
#include "fir_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Calls of fewer frames than this never take the time-block path (the shortest range it takes,
 * kernel_simd.h), so any split of a stream into such calls gives bit-identical output on every
 * kernel. Callers that need that (tools/media.h's FX_BLOCK_FRAMES) assert their block length
 * against it. */
#define FX_KERNEL_SPLIT_EXACT_FRAMES 8192

/* The three IIR kernel flavours (see fx_kernel_t). */
typedef void fx_kernel_f64_fn(const double *coef, double *state, double *hist, int K, int kstride,
                              double *data, size_t frames, int channels);
typedef void fx_kernel_f32_d_fn(const double *coef, double *state, double *hist, int K, int kstride,
                                float *data, size_t frames, int channels);
typedef void fx_kernel_f32_s_fn(const float *coef, float *state, double *hist, int K, int kstride,
                                float *data, size_t frames, int channels);

/* The chunked flavours (kernel_chunk.h, chunk.h): the same filtering with the chunk tables of the
 * K sections (ps[K]) and the channels' chunk records (rec[C][kstride], offset like state). The
 * caller keeps ps in step with coef (ps built from the double coefficients that coef rounds). */
typedef void fx_kernel_chunk_f64_fn(const double *coef, const fx_chunk_sec_t *ps,
                                    fx_chunk_rec_t *rec, double *state, double *hist, int K,
                                    int kstride, double *data, size_t frames, int channels);
typedef void fx_kernel_chunk_f32_d_fn(const double *coef, const fx_chunk_sec_t *ps,
                                      fx_chunk_rec_t *rec, double *state, double *hist, int K,
                                      int kstride, float *data, size_t frames, int channels);
typedef void fx_kernel_chunk_f32_s_fn(const float *coef, const fx_chunk_sec_t *ps,
                                      fx_chunk_rec_t *rec, float *state, double *hist, int K,
                                      int kstride, float *data, size_t frames, int channels);

/* An IIR (SOS cascade) method set. */
typedef struct {
  /* The instruction set's name, used in the engine's backend string ("cpu-<name>-f32" /
   * "cpu-<name>-f64"). */
  const char *name;
  /* F64 stream, double coefficients and state. */
  fx_kernel_f64_fn *f64;
  /* F32 stream, double coefficients and state (float I/O, double arithmetic). */
  fx_kernel_f32_d_fn *f32_d;
  /* F32 stream, float coefficients and state. */
  fx_kernel_f32_s_fn *f32_s;
  /* The chunked kernels of the three flavours. */
  fx_kernel_chunk_f64_fn *ck_f64;
  fx_kernel_chunk_f32_d_fn *ck_f32_d;
  fx_kernel_chunk_f32_s_fn *ck_f32_s;
  /* Vector lanes in double and in float arithmetic (1 for the scalar set). */
  int lanes_f64, lanes_f32;
} fx_kernel_t;

/* One instruction set: an entry of kernel_select.c's table. */
typedef struct {
  const char *name;            /* FX_KERNEL value: "avx512", "avx2", "sse2", "scalar" */
  int (*supported)(void);      /* non-zero when this CPU has the features the code needs */
  const fx_kernel_t *iir;      /* its IIR method set (iir->name == name) */
  const fx_fir_kernels_t *fir; /* its FIR method set */
} fx_isa_t;

/* The instruction sets this CPU supports, best first; the baseline "scalar" is always the last. */
int fx_isa_count(void);
/* Entry i of fx_isa_count(), or NULL when i is out of range. */
const fx_isa_t *fx_isa_get(int i);
/* The supported entry with this name, or NULL. */
const fx_isa_t *fx_isa_find(const char *name);
/* The one FX_KERNEL rule: the entry that the environment variable FX_KERNEL
 * (scalar|sse2|avx2|avx512), read at each call, names when this CPU supports it, otherwise (unset,
 * unknown or unsupported, silently) the best supported entry. Never NULL. */
const fx_isa_t *fx_isa_select(void);
/* fx_isa_select()->iir: what an engine takes when it is created. */
const fx_kernel_t *fx_kernel_select(void);

/* The IIR method sets (kernel_select.c). Call a set only where fx_isa_get() lists its
 * instruction set (the CPU has the features).
 *   scalar: portable C (kernel_scalar.c).
 *   sse2:   x86-64, 128-bit vectors, no FMA: bit-identical to the scalar kernel.
 *   avx2:   x86-64, AVX2 + FMA, 256-bit vectors (8 float / 4 double lanes).
 *   avx512: x86-64, AVX-512F/DQ/VL + FMA, 512-bit vectors (16 float / 8 double lanes);
 *           bit-identical to avx2 (same FMA arithmetic per lane; mono, stereo and narrow channel
 *           ranges, the time-block path included, run avx2's 256-bit code, kernel_x256.h,
 *           compiled with AVX-512VL's 32 registers). */
extern const fx_kernel_t fx_kernel_scalar;
extern const fx_kernel_t fx_kernel_sse2;
extern const fx_kernel_t fx_kernel_avx2;
extern const fx_kernel_t fx_kernel_avx512;

/* Their methods, one translation unit each (kernel_<isa>_<flavour>.c; x86-64 ones only when meson
 * targets x86-64, FX_KERNELS_X86). */
fx_kernel_f64_fn fx_kernel_scalar_f64;
fx_kernel_f32_d_fn fx_kernel_scalar_f32_d;
fx_kernel_f32_s_fn fx_kernel_scalar_f32_s;
fx_kernel_f64_fn fx_kernel_sse2_f64;
fx_kernel_f32_d_fn fx_kernel_sse2_f32_d;
fx_kernel_f32_s_fn fx_kernel_sse2_f32_s;
fx_kernel_f64_fn fx_kernel_avx2_f64;
fx_kernel_f32_d_fn fx_kernel_avx2_f32_d;
fx_kernel_f32_s_fn fx_kernel_avx2_f32_s;
fx_kernel_f64_fn fx_kernel_avx512_f64;
fx_kernel_f32_d_fn fx_kernel_avx512_f32_d;
fx_kernel_f32_s_fn fx_kernel_avx512_f32_s;
fx_kernel_chunk_f64_fn fx_kernel_scalar_f64_chunk;
fx_kernel_chunk_f32_d_fn fx_kernel_scalar_f32_d_chunk;
fx_kernel_chunk_f32_s_fn fx_kernel_scalar_f32_s_chunk;
fx_kernel_chunk_f64_fn fx_kernel_sse2_f64_chunk;
fx_kernel_chunk_f32_d_fn fx_kernel_sse2_f32_d_chunk;
fx_kernel_chunk_f32_s_fn fx_kernel_sse2_f32_s_chunk;
fx_kernel_chunk_f64_fn fx_kernel_avx2_f64_chunk;
fx_kernel_chunk_f32_d_fn fx_kernel_avx2_f32_d_chunk;
fx_kernel_chunk_f32_s_fn fx_kernel_avx2_f32_s_chunk;
fx_kernel_chunk_f64_fn fx_kernel_avx512_f64_chunk;
fx_kernel_chunk_f32_d_fn fx_kernel_avx512_f32_d_chunk;
fx_kernel_chunk_f32_s_fn fx_kernel_avx512_f32_s_chunk;

#ifdef __cplusplus
}
#endif

#endif
