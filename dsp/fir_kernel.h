/* gst-fx — FIR inner loops per instruction set (internal to libfxdsp). Pure C11.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FX_FIR_KERNEL_H
#define FX_FIR_KERNEL_H

#include <stddef.h>

/* y[i] = sum_{j<n} hr[j] * w[i + j] for i < len (hr: the kernel reversed), with the kernel given
 * as hv[k * lanes + t] = hr[k - t] (0 outside 0..n-1) for k < n + lanes - 1 (see
 * fx_fir_kernels_t.lanes_*). Every y[i] is accumulated in the same order whatever i is, so
 * results do not depend on the block split. */
typedef void (*fx_fir_dot_f32_fn)(const float *hr, size_t n, const float *w, float *y, size_t len);
typedef void (*fx_fir_dot_f64_fn)(const double *hr, size_t n, const double *w, double *y,
                                  size_t len);
/* Interleaved complex multiply-accumulate over n reals (n/2 complex values):
 * y[2j] += hd[2j] x[2j] + hs[2j] x[2j+1], y[2j+1] += hd[2j+1] x[2j+1] + hs[2j+1] x[2j], with the
 * kernel spectrum stored as hd = (re, re) and hs = (-im, im) per bin. */
typedef void (*fx_fir_cmac_f32_fn)(float *y, const float *hd, const float *hs, const float *x,
                                   size_t n);
typedef void (*fx_fir_cmac_f64_fn)(double *y, const double *hd, const double *hs, const double *x,
                                   size_t n);

typedef struct {
  const char *name;
  int lanes_f32, lanes_f64; /* vector lanes: the layout of the dot kernels' hv */
  fx_fir_dot_f32_fn dot_f32;
  fx_fir_dot_f64_fn dot_f64;
  fx_fir_cmac_f32_fn cmac_f32;
  fx_fir_cmac_f64_fn cmac_f64;
} fx_fir_kernels_t;

extern const fx_fir_kernels_t fx_fir_kernels_base;
#if defined(FX_FIR_X86)
extern const fx_fir_kernels_t fx_fir_kernels_avx2;
extern const fx_fir_kernels_t fx_fir_kernels_avx512;
#endif

#endif
