/* gst-fx — undefines the type operations of kernel_simd.h (see there).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#undef K_T
#undef K_V
#undef K_W
#undef K_VM
#undef K_CVG
#undef K_WFM
#undef K_SET1
#undef K_ZERO
#undef K_LOAD
#undef K_STORE
#undef K_FMA
#undef K_MUL
#undef K_SFMA
#undef K_ROT
#undef K_INS0
#undef K_MASK
#undef K_SEL
#undef K_WSEL_T
#undef K_WSEL_MAKE
#undef K_WEXTRACT
#undef K_TB_TR1
#undef K_TB_TR2
#undef K_TB_BCAST2
