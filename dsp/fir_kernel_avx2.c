/* gst-fx — FIR inner loops for avx2 (see fir_kernel_impl.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define FIR_ISA avx2
#define FIR_ISA_NAME "avx2"
#define FIR_VBYTES 32
#include "fir_kernel_impl.h"
