/* gst-fx — run-time choice of the SOS cascade kernel. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One table of method sets, best first, each with the CPU features it needs; the first entry
 * this CPU supports wins (PipeWire's filter-graph audio-dsp pattern). The scalar kernel is the
 * last, always-supported entry. FX_KERNEL=<name> forces a supported entry (tests, benchmarks). */
#include "kernel.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const fx_kernel_t *kernel;
  int (*supported)(void);
} fx_kernel_entry_t;

#if defined(FX_KERNELS_X86) && (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
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
#define FX_X86_ENTRIES                                                                             \
  {&fx_kernel_avx512, have_avx512}, {&fx_kernel_avx2, have_avx2}, {&fx_kernel_sse2, have_sse2},
#else
#define FX_X86_ENTRIES
#endif

static int always(void)
{
  return 1;
}

static const fx_kernel_entry_t table[] = {FX_X86_ENTRIES{&fx_kernel_scalar, always}};
#define NTABLE ((int) (sizeof(table) / sizeof(table[0])))

int fx_kernel_count(void)
{
  int n = 0;
  for (int i = 0; i < NTABLE; i++)
    n += table[i].supported() != 0;
  return n;
}

const fx_kernel_t *fx_kernel_get(int i)
{
  if (i < 0)
    return NULL;
  for (int j = 0; j < NTABLE; j++) {
    if (!table[j].supported())
      continue;
    if (i-- == 0)
      return table[j].kernel;
  }
  return NULL;
}

const fx_kernel_t *fx_kernel_find(const char *name)
{
  if (!name)
    return NULL;
  for (int j = 0; j < NTABLE; j++)
    if (strcmp(table[j].kernel->name, name) == 0 && table[j].supported())
      return table[j].kernel;
  return NULL;
}

const fx_kernel_t *fx_kernel_select(void)
{
  const fx_kernel_t *k = fx_kernel_find(getenv("FX_KERNEL"));
  return k ? k : fx_kernel_get(0);
}
