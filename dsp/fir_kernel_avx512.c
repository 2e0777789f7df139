/* gst-fx — FIR inner loops for AVX-512F/DQ/VL + FMA (compiled with the AVX-512 flags):
 * fx_fir_avx512_* (fir_kernel_impl.h). SPDX-License-Identifier: GPL-3.0-or-later */
#include "fir_kernel.h"

#define FIR_ISA avx512
#define FIR_VBYTES FX_FIR_VBYTES_AVX512
#include "fir_kernel_impl.h"
