/* gst-fx — flush-to-zero / denormals-are-zero for the duration of a kernel call (internal to
 * libfxdsp; kernel.h requires every kernel to set it and restore the caller's mode). Pure C11.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FX_KERNEL_FPMODE_H
#define FX_KERNEL_FPMODE_H

#include <stdint.h>

#if defined(__SSE2__) || (defined(_M_X64) && !defined(_M_ARM64EC))
#include <xmmintrin.h>
#define FX_HAVE_MXCSR 1
#endif

/* Flush-to-zero and denormals-are-zero for the duration of a kernel call, restoring the caller's
 * mode. x86: MXCSR FTZ (bit 15) and DAZ (bit 6). AArch64: FPCR.FZ (bit 24). Elsewhere nothing is
 * changed (decaying tails may then hit subnormals on hardware that handles them slowly). */
typedef struct {
#if defined(FX_HAVE_MXCSR)
  unsigned int mxcsr;
#elif defined(__aarch64__) && defined(__GNUC__)
  uint64_t fpcr;
#else
  int unused;
#endif
} fx_fpmode_t;

static inline void fpmode_enter(fx_fpmode_t *m)
{
#if defined(FX_HAVE_MXCSR)
  m->mxcsr = _mm_getcsr();
  _mm_setcsr(m->mxcsr | 0x8040u);
#elif defined(__aarch64__) && defined(__GNUC__)
  uint64_t v;
  __asm__ volatile("mrs %0, fpcr" : "=r"(v));
  m->fpcr = v;
  __asm__ volatile("msr fpcr, %0" : : "r"(v | ((uint64_t) 1 << 24)));
#else
  m->unused = 0;
#endif
}

static inline void fpmode_leave(const fx_fpmode_t *m)
{
#if defined(FX_HAVE_MXCSR)
  _mm_setcsr(m->mxcsr);
#elif defined(__aarch64__) && defined(__GNUC__)
  __asm__ volatile("msr fpcr, %0" : : "r"(m->fpcr));
#else
  (void) m;
#endif
}

#endif
