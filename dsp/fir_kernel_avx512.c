/* gst-fx — FIR inner loops for avx512 (see fir_kernel_impl.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define FIR_ISA avx512
#define FIR_ISA_NAME "avx512"
#define FIR_VBYTES 64
#include "fir_kernel_impl.h"
