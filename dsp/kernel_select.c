/* gst-fx — the instruction-set table: run-time choice of the CPU kernels. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One table of instruction sets, best first, each with the CPU features it needs, its IIR method
 * set and its FIR method set (kernel.h); the first entry this CPU supports wins (PipeWire's
 * filter-graph audio-dsp pattern). The baseline "scalar" is the last, always-supported entry.
 * FX_KERNEL=<name> forces a supported entry (tests, benchmarks): fx_isa_select() is the one place
 * that reads it. Every method is named here in full, so a grep for a kernel's name finds where it
 * is defined (kernel_<isa>_<flavour>.c, fir_kernel_<isa>.c) and where it is chosen.
 *
 * To add an instruction set: its IIR kernel files (copy kernel_avx2_*.c and its header), its FIR
 * file (copy fir_kernel_avx2.c), their static libraries and flags in dsp/meson.build, its method
 * declarations in kernel.h and fir_kernel.h, its method sets and its entry in the table below. */
#include "kernel.h"

#include <stdlib.h>
#include <string.h>

/* ---- IIR method sets ---- */

const fx_kernel_t fx_kernel_scalar = {
    .name = "scalar",
    .f64 = fx_kernel_scalar_f64,
    .f32_d = fx_kernel_scalar_f32_d,
    .f32_s = fx_kernel_scalar_f32_s,
    .ck_f64 = fx_kernel_scalar_f64_chunk,
    .ck_f32_d = fx_kernel_scalar_f32_d_chunk,
    .ck_f32_s = fx_kernel_scalar_f32_s_chunk,
    .lanes_f64 = 1,
    .lanes_f32 = 1,
};

/* ---- FIR method sets ---- */

const fx_fir_kernels_t fx_fir_kernels_scalar = {
    .name = "scalar",
    .lanes_f32 = FX_FIR_VBYTES_SCALAR / 4,
    .lanes_f64 = FX_FIR_VBYTES_SCALAR / 8,
    .dot_f32 = fx_fir_scalar_dot_f32,
    .dot_f64 = fx_fir_scalar_dot_f64,
    .deint2_f32 = fx_fir_scalar_deint2_f32,
    .deint2_f64 = fx_fir_scalar_deint2_f64,
    .int2_f32 = fx_fir_scalar_int2_f32,
    .int2_f64 = fx_fir_scalar_int2_f64,
    .cmac_f32 = fx_fir_scalar_cmac_f32,
    .cmac_f64 = fx_fir_scalar_cmac_f64,
    .r2c_post_f32 = fx_fir_scalar_r2c_post_f32,
    .c2r_pre_f32 = fx_fir_scalar_c2r_pre_f32,
    .r2c_post_f64 = fx_fir_scalar_r2c_post_f64,
    .c2r_pre_f64 = fx_fir_scalar_c2r_pre_f64,
};

#if defined(FX_KERNELS_X86) && (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define FX_ISA_X86 1

const fx_kernel_t fx_kernel_sse2 = {
    .name = "sse2",
    .f64 = fx_kernel_sse2_f64,
    .f32_d = fx_kernel_sse2_f32_d,
    .f32_s = fx_kernel_sse2_f32_s,
    .ck_f64 = fx_kernel_sse2_f64_chunk,
    .ck_f32_d = fx_kernel_sse2_f32_d_chunk,
    .ck_f32_s = fx_kernel_sse2_f32_s_chunk,
    .lanes_f64 = 2,
    .lanes_f32 = 4,
};

const fx_kernel_t fx_kernel_avx2 = {
    .name = "avx2",
    .f64 = fx_kernel_avx2_f64,
    .f32_d = fx_kernel_avx2_f32_d,
    .f32_s = fx_kernel_avx2_f32_s,
    .ck_f64 = fx_kernel_avx2_f64_chunk,
    .ck_f32_d = fx_kernel_avx2_f32_d_chunk,
    .ck_f32_s = fx_kernel_avx2_f32_s_chunk,
    .lanes_f64 = 4,
    .lanes_f32 = 8,
};

const fx_kernel_t fx_kernel_avx512 = {
    .name = "avx512",
    .f64 = fx_kernel_avx512_f64,
    .f32_d = fx_kernel_avx512_f32_d,
    .f32_s = fx_kernel_avx512_f32_s,
    .ck_f64 = fx_kernel_avx512_f64_chunk,
    .ck_f32_d = fx_kernel_avx512_f32_d_chunk,
    .ck_f32_s = fx_kernel_avx512_f32_s_chunk,
    .lanes_f64 = 8,
    .lanes_f32 = 16,
};

const fx_fir_kernels_t fx_fir_kernels_avx2 = {
    .name = "avx2",
    .lanes_f32 = FX_FIR_VBYTES_AVX2 / 4,
    .lanes_f64 = FX_FIR_VBYTES_AVX2 / 8,
    .dot_f32 = fx_fir_avx2_dot_f32,
    .dot_f64 = fx_fir_avx2_dot_f64,
    .deint2_f32 = fx_fir_avx2_deint2_f32,
    .deint2_f64 = fx_fir_avx2_deint2_f64,
    .int2_f32 = fx_fir_avx2_int2_f32,
    .int2_f64 = fx_fir_avx2_int2_f64,
    .cmac_f32 = fx_fir_avx2_cmac_f32,
    .cmac_f64 = fx_fir_avx2_cmac_f64,
    .r2c_post_f32 = fx_fir_avx2_r2c_post_f32,
    .c2r_pre_f32 = fx_fir_avx2_c2r_pre_f32,
    .r2c_post_f64 = fx_fir_avx2_r2c_post_f64,
    .c2r_pre_f64 = fx_fir_avx2_c2r_pre_f64,
};

const fx_fir_kernels_t fx_fir_kernels_avx512 = {
    .name = "avx512",
    .lanes_f32 = FX_FIR_VBYTES_AVX512 / 4,
    .lanes_f64 = FX_FIR_VBYTES_AVX512 / 8,
    .dot_f32 = fx_fir_avx512_dot_f32,
    .dot_f64 = fx_fir_avx512_dot_f64,
    .deint2_f32 = fx_fir_avx512_deint2_f32,
    .deint2_f64 = fx_fir_avx512_deint2_f64,
    .int2_f32 = fx_fir_avx512_int2_f32,
    .int2_f64 = fx_fir_avx512_int2_f64,
    .cmac_f32 = fx_fir_avx512_cmac_f32,
    .cmac_f64 = fx_fir_avx512_cmac_f64,
    .r2c_post_f32 = fx_fir_avx512_r2c_post_f32,
    .c2r_pre_f32 = fx_fir_avx512_c2r_pre_f32,
    .r2c_post_f64 = fx_fir_avx512_r2c_post_f64,
    .c2r_pre_f64 = fx_fir_avx512_c2r_pre_f64,
};

/* ---- CPU-feature tests ---- */

static int have_avx512(void)
{
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx2") &&
         __builtin_cpu_supports("fma");
}
static int have_avx2(void)
{
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
static int have_sse2(void)
{
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse2");
}
#endif

static int always(void)
{
  return 1;
}

/* ---- the table, best first ---- */

static const fx_isa_t table[] = {
#if defined(FX_ISA_X86)
    {"avx512", have_avx512, &fx_kernel_avx512, &fx_fir_kernels_avx512},
    {"avx2", have_avx2, &fx_kernel_avx2, &fx_fir_kernels_avx2},
    /* No FIR code of its own: the baseline FIR code already uses SSE2 on x86-64. */
    {"sse2", have_sse2, &fx_kernel_sse2, &fx_fir_kernels_scalar},
#endif
    {"scalar", always, &fx_kernel_scalar, &fx_fir_kernels_scalar},
};
#define NTABLE ((int) (sizeof(table) / sizeof(table[0])))

int fx_isa_count(void)
{
  int n = 0;
  for (int i = 0; i < NTABLE; i++)
    n += table[i].supported() != 0;
  return n;
}

const fx_isa_t *fx_isa_get(int i)
{
  if (i < 0)
    return NULL;
  for (int j = 0; j < NTABLE; j++) {
    if (!table[j].supported())
      continue;
    if (i-- == 0)
      return &table[j];
  }
  return NULL;
}

const fx_isa_t *fx_isa_find(const char *name)
{
  if (!name)
    return NULL;
  for (int j = 0; j < NTABLE; j++)
    if (strcmp(table[j].name, name) == 0 && table[j].supported())
      return &table[j];
  return NULL;
}

const fx_isa_t *fx_isa_select(void)
{
  const fx_isa_t *isa = fx_isa_find(getenv("FX_KERNEL"));
  return isa ? isa : fx_isa_get(0);
}

const fx_kernel_t *fx_kernel_select(void)
{
  return fx_isa_select()->iir;
}
