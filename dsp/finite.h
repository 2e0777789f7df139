/* gst-fx — replacing non-finite input samples (NaN, +-Inf) by 0 before they reach any state.
 * Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every element runs its input through fx_zero_nonfinite() before its state sees it (DESIGN:
 * "Bad input"): a bad sample then costs exactly the output sample the filter gives for a 0
 * input, nothing else in the buffer, no other channel and no later buffer. */
#ifndef FX_FINITE_H
#define FX_FINITE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Replaces every NaN, +Inf and -Inf among the n samples by +0. Returns the number replaced.
 * Clean input (the common case) costs one vectorizable read-only scan. */
size_t fx_zero_nonfinite_f32(float *x, size_t n);
size_t fx_zero_nonfinite_f64(double *x, size_t n);
/* The same for F64 samples when is_f64, else F32. */
size_t fx_zero_nonfinite(void *x, size_t n, int is_f64);
/* 1 when any of the n samples (F64 when is_f64, else F32) is NaN or infinite, else 0; reads only
 * (for data that must be made writable first). */
int fx_has_nonfinite(const void *x, size_t n, int is_f64);

/* The scan's implementations, one per instruction set (the results are the same on each): entry
 * i of those this CPU supports, best first, with its name in *name when name is not NULL; NULL
 * past the last. The functions above take entry 0. For the tests. */
typedef struct {
  size_t (*zero_f32)(float *x, size_t n);
  size_t (*zero_f64)(double *x, size_t n);
  int (*has_f32)(const float *x, size_t n);
  int (*has_f64)(const double *x, size_t n);
} fx_finite_impl_t;
const fx_finite_impl_t *fx_finite_impl_get(int i, const char **name);

#ifdef __cplusplus
}
#endif

#endif
