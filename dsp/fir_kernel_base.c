/* gst-fx — FIR inner loops for generic (see fir_kernel_impl.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define FIR_ISA base
#define FIR_ISA_NAME "generic"
#define FIR_VBYTES 16
#include "fir_kernel_impl.h"
