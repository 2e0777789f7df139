/* gst-fx — FIR inner loops per instruction set (internal to libfxdsp). Pure C11.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A FIR method set, fx_fir_kernels_t, per instruction set: fir_kernel_impl.h written once with GCC
 * vector extensions, compiled per instruction set (fir_kernel_<isa>.c), chosen at run time with
 * the IIR kernels through the one instruction-set table (kernel.h, kernel_select.c). */
#ifndef FX_FIR_KERNEL_H
#define FX_FIR_KERNEL_H

#include <stddef.h>

/* y[i] = sum_{j<n} hr[j] * w[i + j] for i < len (hr: the kernel reversed), with the kernel given
 * as hv[k * lanes + t] = hr[k - t] (0 outside 0..n-1) for k < n + lanes - 1 (see
 * fx_fir_kernels_t.lanes_*). Every y[i] is accumulated in the same order whatever i is, so
 * results do not depend on the block split. */
typedef void fx_fir_dot_f32_fn_t(const float *hr, size_t n, const float *w, float *y, size_t len);
typedef void fx_fir_dot_f64_fn_t(const double *hr, size_t n, const double *w, double *y,
                                 size_t len);
/* Stereo: deint2 splits n interleaved frames into the channels a and b; int2 interleaves a and
 * b into n frames of out, or adds them to out when add is non-zero. */
typedef void fx_fir_deint2_f32_fn_t(const float *in, float *a, float *b, size_t n);
typedef void fx_fir_deint2_f64_fn_t(const double *in, double *a, double *b, size_t n);
typedef void fx_fir_int2_f32_fn_t(float *out, const float *a, const float *b, size_t n, int add);
typedef void fx_fir_int2_f64_fn_t(double *out, const double *a, const double *b, size_t n, int add);

/* Interleaved complex multiply-accumulate over n reals (n/2 complex values), summed over P
 * partitions: y[2j] = sum_p hd[2j] x[2j] + hs[2j] x[2j+1], y[2j+1] = sum_p hd[2j+1] x[2j+1] +
 * hs[2j+1] x[2j], with partition p's kernel spectrum at hd = H + 2pS stored as hd = (re, re)
 * and hs = hd + S = (-im, im) per bin, and its input spectrum at x = X + qS, q = (slot - p) mod P
 * (a ring of input spectra, newest at slot). y is overwritten; the terms of every element are
 * added in the order p = 0, 1, ... */
typedef void fx_fir_cmac_f32_fn_t(float *y, const float *H, const float *X, size_t S, size_t P,
                                  size_t slot, size_t n);
typedef void fx_fir_cmac_f64_fn_t(double *y, const double *H, const double *X, size_t S, size_t P,
                                  size_t slot, size_t n);

/* The real-input FFT of 2m points of one channel from the m-point complex FFT of its samples
 * taken as m complex values (even + i odd), in place in x (2m + 2 reals): on entry x holds that
 * complex FFT (m complex), on return the m + 1 bins of the real FFT (FFTW's r2c convention).
 * c2r_pre is the way back: x holds m + 1 bins on entry (the imaginary parts of bins 0 and m
 * are ignored) and on return m complex values whose m-point backward complex FFT is 2m times
 * the real sequence (as FFTW's c2r: even samples real parts, odd samples imaginary parts).
 * tu, tv: the twiddles W^k = exp(-i pi k / m), k < m, as tu = (Im W^k, Im W^k) and
 * tv = (-Re W^k, Re W^k) per k. Only this one channel's data is used, so a channel's spectrum
 * never depends on another channel. */
typedef void fx_fir_rfft_f32_fn_t(float *x, const float *tu, const float *tv, size_t m);
typedef void fx_fir_rfft_f64_fn_t(double *x, const double *tu, const double *tv, size_t m);

typedef struct {
  const char *name;         /* the instruction set's name (kernel.h), as in "direct-<name>" */
  int lanes_f32, lanes_f64; /* vector lanes: the layout of the dot kernels' hv */
  fx_fir_dot_f32_fn_t *dot_f32;
  fx_fir_dot_f64_fn_t *dot_f64;
  fx_fir_deint2_f32_fn_t *deint2_f32;
  fx_fir_deint2_f64_fn_t *deint2_f64;
  fx_fir_int2_f32_fn_t *int2_f32;
  fx_fir_int2_f64_fn_t *int2_f64;
  fx_fir_cmac_f32_fn_t *cmac_f32;
  fx_fir_cmac_f64_fn_t *cmac_f64;
  fx_fir_rfft_f32_fn_t *r2c_post_f32, *c2r_pre_f32;
  fx_fir_rfft_f64_fn_t *r2c_post_f64, *c2r_pre_f64;
} fx_fir_kernels_t;

/* Vector width in bytes of each instruction set's FIR code (fir_kernel_<isa>.c): lanes_f32 is a
 * quarter of it, lanes_f64 an eighth. The baseline "scalar" set is portable C whose 16-byte GCC
 * vectors the compiler maps to the baseline target (SSE2 on x86-64). */
#define FX_FIR_VBYTES_SCALAR 16
#define FX_FIR_VBYTES_AVX2 32
#define FX_FIR_VBYTES_AVX512 64

/* The method sets (kernel_select.c; x86-64 ones only when meson targets x86-64). */
extern const fx_fir_kernels_t fx_fir_kernels_scalar;
extern const fx_fir_kernels_t fx_fir_kernels_avx2;
extern const fx_fir_kernels_t fx_fir_kernels_avx512;

/* Their methods (fir_kernel_<isa>.c). */
fx_fir_dot_f32_fn_t fx_fir_scalar_dot_f32;
fx_fir_dot_f64_fn_t fx_fir_scalar_dot_f64;
fx_fir_deint2_f32_fn_t fx_fir_scalar_deint2_f32;
fx_fir_deint2_f64_fn_t fx_fir_scalar_deint2_f64;
fx_fir_int2_f32_fn_t fx_fir_scalar_int2_f32;
fx_fir_int2_f64_fn_t fx_fir_scalar_int2_f64;
fx_fir_cmac_f32_fn_t fx_fir_scalar_cmac_f32;
fx_fir_cmac_f64_fn_t fx_fir_scalar_cmac_f64;
fx_fir_rfft_f32_fn_t fx_fir_scalar_r2c_post_f32, fx_fir_scalar_c2r_pre_f32;
fx_fir_rfft_f64_fn_t fx_fir_scalar_r2c_post_f64, fx_fir_scalar_c2r_pre_f64;

fx_fir_dot_f32_fn_t fx_fir_avx2_dot_f32;
fx_fir_dot_f64_fn_t fx_fir_avx2_dot_f64;
fx_fir_deint2_f32_fn_t fx_fir_avx2_deint2_f32;
fx_fir_deint2_f64_fn_t fx_fir_avx2_deint2_f64;
fx_fir_int2_f32_fn_t fx_fir_avx2_int2_f32;
fx_fir_int2_f64_fn_t fx_fir_avx2_int2_f64;
fx_fir_cmac_f32_fn_t fx_fir_avx2_cmac_f32;
fx_fir_cmac_f64_fn_t fx_fir_avx2_cmac_f64;
fx_fir_rfft_f32_fn_t fx_fir_avx2_r2c_post_f32, fx_fir_avx2_c2r_pre_f32;
fx_fir_rfft_f64_fn_t fx_fir_avx2_r2c_post_f64, fx_fir_avx2_c2r_pre_f64;

fx_fir_dot_f32_fn_t fx_fir_avx512_dot_f32;
fx_fir_dot_f64_fn_t fx_fir_avx512_dot_f64;
fx_fir_deint2_f32_fn_t fx_fir_avx512_deint2_f32;
fx_fir_deint2_f64_fn_t fx_fir_avx512_deint2_f64;
fx_fir_int2_f32_fn_t fx_fir_avx512_int2_f32;
fx_fir_int2_f64_fn_t fx_fir_avx512_int2_f64;
fx_fir_cmac_f32_fn_t fx_fir_avx512_cmac_f32;
fx_fir_cmac_f64_fn_t fx_fir_avx512_cmac_f64;
fx_fir_rfft_f32_fn_t fx_fir_avx512_r2c_post_f32, fx_fir_avx512_c2r_pre_f32;
fx_fir_rfft_f64_fn_t fx_fir_avx512_r2c_post_f64, fx_fir_avx512_c2r_pre_f64;

#endif
