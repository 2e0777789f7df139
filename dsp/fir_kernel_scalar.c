/* gst-fx — FIR inner loops for the baseline target (portable C, no instruction-set flags):
 * fx_fir_scalar_* (fir_kernel_impl.h). SPDX-License-Identifier: GPL-3.0-or-later */
#include "fir_kernel.h"

#define FIR_ISA scalar
#define FIR_VBYTES FX_FIR_VBYTES_SCALAR
#include "fir_kernel_impl.h"
