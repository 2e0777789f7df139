/* gst-fx — precomputed tables of the time-block kernel path (see kernel_tblock.h). Pure C11.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "kernel_tblock.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

/* Slots per thread (LRU). A cascade whose coefficients change on every long buffer (a controller
 * ramp with buffers of 8192 frames or more) rebuilds its tables per call: tens of microseconds at
 * K = 6, about a millisecond at K = 12. */
#define FX_TB_SLOTS 32

typedef struct {
  int used;       /* 0: empty */
  int K;          /* key: sections */
  uint64_t stamp; /* last use (LRU) */
  double key[5 * FX_TB_KMAX];
  fx_tb_plan_t plan;
  void *mem;
} fx_tb_slot_t;

typedef struct {
  fx_tb_slot_t slot[FX_TB_SLOTS];
  uint64_t clock;
} fx_tb_cache_t;

static _Thread_local fx_tb_cache_t *tls_cache;
static tss_t cache_key;
static int cache_key_ok;
static once_flag cache_once = ONCE_FLAG_INIT;

static void cache_free(void *p)
{
  fx_tb_cache_t *c = p;
  if (!c)
    return;
  for (int i = 0; i < FX_TB_SLOTS; i++)
    free(c->slot[i].mem);
  free(c);
}

static void cache_init(void)
{
  cache_key_ok = tss_create(&cache_key, cache_free) == thrd_success;
}

static fx_tb_cache_t *cache_get(void)
{
  if (tls_cache)
    return tls_cache;
  call_once(&cache_once, cache_init);
  fx_tb_cache_t *c = calloc(1, sizeof(*c));
  if (!c)
    return NULL;
  if (cache_key_ok)
    tss_set(cache_key, c); /* freed when the thread exits */
  tls_cache = c;
  return c;
}

/* Builds Tt, P0 from the coefficients: the cascade run with zero input from
 * each unit state, in extended precision. */
static void plan_build(fx_tb_plan_t *p, const double *cd)
{
  const int K = p->K, n2 = p->n2;
  long double z[2 * FX_TB_KMAX];
  for (int m = 0; m < n2; m++) {
    memset(z, 0, sizeof(z));
    z[m] = 1.0;
    const int k0 = m / 2; /* sections before k0 stay at rest */
    for (int r = 0; r < FX_TB_B; r++) {
      long double v = 0.0L;
      for (int k = k0; k < K; k++) {
        const double *c = cd + 5 * k;
        const long double y = c[0] * v + z[2 * k];
        z[2 * k] = c[1] * v + z[2 * k + 1] - c[3] * y;
        z[2 * k + 1] = c[2] * v - c[4] * y;
        v = y;
      }
      const double t = (double) v;
      p->Tt[0][(size_t) m * FX_TB_B + (size_t) r] = t;
      for (int c = 0; c < 2; c++)
        p->Tt[1][(size_t) m * 2 * FX_TB_B + 2 * (size_t) r + (size_t) c] = t;
    }
    for (int i = 0; i < n2; i++) {
      p->P0[(size_t) i * (size_t) n2 + (size_t) m] = (double) z[i];
      p->pw[(size_t) i * (size_t) n2 + (size_t) m] = z[i];
    }
  }
  p->npow = 1;
}

fx_tb_plan_t *fx_tb_plan(const double *cd, int K)
{
  if (K < 1 || K > FX_TB_KMAX)
    return NULL;
  fx_tb_cache_t *c = cache_get();
  if (!c)
    return NULL;
  const size_t nk = 5 * (size_t) K * sizeof(double);
  fx_tb_slot_t *victim = &c->slot[0];
  for (int i = 0; i < FX_TB_SLOTS; i++) {
    fx_tb_slot_t *s = &c->slot[i];
    if (s->used && s->K == K && memcmp(s->key, cd, nk) == 0) {
      s->stamp = ++c->clock;
      return &s->plan;
    }
    if (!s->used || (victim->used && s->stamp < victim->stamp))
      victim = s;
  }
  /* build into the least recently used slot */
  if (victim->used && victim->K < K) {
    free(victim->mem);
    victim->mem = NULL;
  }
  const size_t n2 = 2 * (size_t) K;
  const size_t nT = (size_t) FX_TB_B * n2, nP = n2 * n2;
  const size_t bytes =
      (3 * nT + nP) * sizeof(double) + (size_t) FX_TB_NPOW * nP * sizeof(long double);
  if (!victim->mem) /* 64-byte aligned: the kernels load table rows as aligned vectors */
    victim->mem = aligned_alloc(64, (bytes + 63) / 64 * 64);
  victim->used = 0;
  if (!victim->mem)
    return NULL;
  double *d = victim->mem;
  fx_tb_plan_t *p = &victim->plan;
  p->K = K;
  p->n2 = (int) n2;
  p->Tt[0] = d;
  p->Tt[1] = d + nT;
  p->P0 = d + 3 * nT;
  p->pw = (long double *) (p->P0 + nP);
  plan_build(p, cd);
  memcpy(victim->key, cd, nk);
  victim->K = K;
  victim->used = 1;
  victim->stamp = ++c->clock;
  return p;
}

void fx_tb_advance(fx_tb_plan_t *p, size_t q, double *s)
{
  const size_t n2 = (size_t) p->n2, nP = n2 * n2;
  long double t[2 * FX_TB_KMAX];
  for (size_t r = 0; r < n2; r++)
    t[r] = s[r];
  for (int i = 0; q && i < FX_TB_NPOW; i++, q >>= 1) {
    if (i >= p->npow) { /* pw[i] = pw[i-1]^2 */
      const long double *a = p->pw + (size_t) (i - 1) * nP;
      long double *o = p->pw + (size_t) i * nP;
      for (size_t r = 0; r < n2; r++)
        for (size_t col = 0; col < n2; col++) {
          long double acc = 0.0L;
          for (size_t k = 0; k < n2; k++)
            acc += a[r * n2 + k] * a[k * n2 + col];
          o[r * n2 + col] = acc;
        }
      p->npow = i + 1;
    }
    if (!(q & 1))
      continue;
    const long double *a = p->pw + (size_t) i * nP;
    long double u[2 * FX_TB_KMAX];
    for (size_t r = 0; r < n2; r++) {
      long double acc = 0.0L;
      for (size_t k = 0; k < n2; k++)
        acc += a[r * n2 + k] * t[k];
      u[r] = acc;
    }
    memcpy(t, u, n2 * sizeof(long double));
  }
  for (size_t r = 0; r < n2; r++)
    s[r] = (double) t[r];
}
