/* gst-fx — SOS cascade kernels (internal to libfxdsp). Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A kernel filters an interleaved buffer in place through K second-order sections in transposed
 * direct form II. Several implementations (scalar C, SSE2, AVX2+FMA, AVX-512; CUDA later) fill
 * the same method set, fx_kernel_t, and fx_kernel_select() picks one at run time, the way
 * PipeWire's filter-graph picks its audio-dsp method set (one table, first entry whose CPU
 * features match; kernel_select.c).
 *
 * Data layout shared by every kernel (K sections, C channels):
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
 *     bit-identical across splits. The time-block path of the AVX2 kernel (and of AVX-512, which
 *     hands it mono and stereo) is not: on F32 streams in double arithmetic (f32_d;
 *     f64 only when built with FX_TB_F64=1, f32_s only with FX_TB_F32S=1), for 1 or 2 channels, K
 * <= 12 (10 for mono) and a call of at least 8192 frames (without its last two frames), it filters
 * consecutive time blocks side by side in the vector lanes from zero state and adds each block's
 *     zero-input response from the state computed for its start (kernel_tblock.h), so a sample's
 *     rounding depends on where its call began and ended. Calls shorter than that, and every
 *     other shape, stay bit-identical across splits; the time-block results agree with them
 *     within DESIGN's bar for F32 (F32 with double arithmetic >= 150 dB SER). F64 streams stay off
 *     it: its split differences reach 1.5e-12 of the peak on a 20 Hz order-4 high-pass and 3.7e-9
 *     on a double pole at -0.9999 (kernel_x256.h), beyond DESIGN's 1e-12.
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

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  /* Short name used in the engine's backend string ("cpu-<name>-f32" / "cpu-<name>-f64"). */
  const char *name;
  /* F64 stream, double coefficients and state. */
  void (*f64)(const double *coef, double *state, double *hist, int K, int kstride, double *data,
              size_t frames, int channels);
  /* F32 stream, double coefficients and state (float I/O, double arithmetic). */
  void (*f32_d)(const double *coef, double *state, double *hist, int K, int kstride, float *data,
                size_t frames, int channels);
  /* F32 stream, float coefficients and state. */
  void (*f32_s)(const float *coef, float *state, double *hist, int K, int kstride, float *data,
                size_t frames, int channels);
} fx_kernel_t;

/* The portable scalar implementation (kernel_scalar.c). */
extern const fx_kernel_t fx_kernel_scalar;

/* x86-64 only (built when meson targets x86-64; FX_KERNELS_X86 is then defined for
 * kernel_select.c). Call them only where fx_kernel_get() lists them (the CPU has the features).
 *   sse2:   128-bit vectors, no FMA: bit-identical to the scalar kernel.
 *   avx2:   AVX2 + FMA, 256-bit vectors (8 float / 4 double lanes).
 *   avx512: AVX-512F/DQ/VL + FMA, 512-bit vectors (16 float / 8 double lanes); bit-identical to
 *           avx2 (same FMA arithmetic per lane; mono, stereo and narrow channel ranges, the
 *           time-block path included, run avx2's 256-bit code, kernel_x256.h, compiled with
 *           AVX-512VL's 32 registers). */
extern const fx_kernel_t fx_kernel_sse2;
extern const fx_kernel_t fx_kernel_avx2;
extern const fx_kernel_t fx_kernel_avx512;

/* The best kernel for this machine, never NULL. The environment variable FX_KERNEL
 * (scalar|sse2|avx2|avx512), read at each call, forces one; a name this CPU does not support (or
 * an unknown one) falls back silently to the best supported kernel: check the returned ->name. */
const fx_kernel_t *fx_kernel_select(void);

/* The kernels this CPU supports, best first (the scalar kernel is always the last one). */
int fx_kernel_count(void);
/* Kernel i of fx_kernel_count(), or NULL when i is out of range. */
const fx_kernel_t *fx_kernel_get(int i);
/* The supported kernel with this name, or NULL. */
const fx_kernel_t *fx_kernel_find(const char *name);

#ifdef __cplusplus
}
#endif

#endif
