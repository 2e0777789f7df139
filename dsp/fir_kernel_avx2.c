/* gst-fx — FIR inner loops for AVX2 + FMA (compiled with -mavx2 -mfma): fx_fir_avx2_*
 * (fir_kernel_impl.h). SPDX-License-Identifier: GPL-3.0-or-later */
#include "fir_kernel.h"

#define FIR_ISA avx2
#define FIR_VBYTES FX_FIR_VBYTES_AVX2
#include "fir_kernel_impl.h"
