/* gst-fx — the SOS cascade engine: life cycle, stream configuration, allocation, queries.
 * Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the engine does and why: docs/cascade.md. The map of its files: cascade_impl.h. */
#include <limits.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cascade_impl.h"

/* ---------------------------------------------------------------------------------------------
 * Allocation helpers (never called from the per-sample path). */

int fxc_grow(void **p, size_t *cap_elems, size_t need, size_t elem)
{
  if (need <= *cap_elems && *p)
    return 1;
  if (need == 0)
    need = 1;
  void *q = realloc(*p, need * elem);
  if (!q)
    return 0;
  *p = q;
  *cap_elems = need;
  return 1;
}

/* Numbers are allocated at sizeof(double) whatever the precision (cascade_impl.h). */
int fxc_path_reserve(fx_path_t *p, int K, int channels)
{
  const size_t k = K > 0 ? (size_t) K : 1;
  if ((k > p->coef_cap || !p->coef) && !fxc_grow(&p->coef, &p->coef_cap, k, 5 * sizeof(double)))
    return 0;
  const size_t n = (size_t) K * 2 * (size_t) (channels > 0 ? channels : 0);
  return fxc_grow(&p->state, &p->state_cap, n, sizeof(double));
}

void fxc_path_free(fx_path_t *p)
{
  free(p->coef);
  free(p->state);
  memset(p, 0, sizeof(*p));
}

void fxc_path_zero_state(const fx_cascade_t *c, fx_path_t *p)
{
  const size_t n = (size_t) p->K * 2 * (size_t) (c->channels > 0 ? c->channels : 0);
  if (n)
    memset(p->state, 0, n * fx_num_size(c->dbl));
}

void fxc_path_load(const fx_cascade_t *c, fx_path_t *p, const double *coef)
{
  for (size_t i = 0; i < (size_t) p->K * 5; i++)
    fx_num_set(p->coef, c->dbl, i, coef[i]);
}

size_t fxc_hist_len(int K, int channels)
{
  return ((size_t) K + 1) * 2 * (size_t) (channels > 0 ? channels : 0);
}

size_t fxc_sample_size(const fx_cascade_t *c)
{
  return c->format == FX_SAMPLE_F64 ? sizeof(double) : sizeof(float);
}

size_t fxc_frame_bytes(const fx_cascade_t *c)
{
  return (size_t) c->channels * fxc_sample_size(c);
}

int fxc_reserve_checkpoints(fx_cascade_t *c, int K, int channels)
{
  const size_t need = (size_t) K * 2 * (size_t) channels;
  for (int i = 0; i < 2; i++)
    if (!fxc_grow(&c->ck[i].state, &c->ck[i].cap, need, sizeof(double)))
      return 0;
  return 1;
}

void fxc_update_backend(fx_cascade_t *c)
{
  snprintf(c->backend, sizeof(c->backend), "cpu-%s-%s%s", c->kernel->name, c->dbl ? "f64" : "f32",
           c->chunked ? "-chunk" : "");
}

/* Whether the chunked kernels can run this cascade in this arithmetic (dbl) where they pay: F32
 * streams whose one or two channels leave most lanes empty in the sequential kernels, on an
 * instruction set with 8 float lanes (float arithmetic), or mono on one with 4 double lanes
 * (double arithmetic: AVX2, AVX-512). Measured (docs/cascade.md, "Chunked kernels"): with fewer
 * lanes (SSE2) the chunked kernels' work per sample costs what the sequential kernels' empty lanes
 * do; F64 streams lose accuracy in them (5e-12 against 2e-13 on an order-8 low-pass at 50 Hz,
 * beyond the 1e-12 of docs/design.md). */
int fxc_chunk_capable(const fx_cascade_t *c, int dbl)
{
  const fx_kernel_t *k = c->kernel;
  const int have = dbl ? k->ck_f32_d != NULL : k->ck_f32_s != NULL;
  /* stereo in double arithmetic: the chunked code has 4 double lanes (AVX-512 runs the 256-bit
   * code), where the in-place wavefront (kernel_simd.h) is as fast and exact */
  return have && c->format == FX_SAMPLE_F32 && c->channels >= 1 && c->channels <= (dbl ? 1 : 2) &&
         (dbl ? k->lanes_f64 >= 4 : k->lanes_f32 >= 8);
}

/* The sequential float kernels run a step of every section of every channel in the lanes of a
 * vector (kernel_simd.h's wavefront; for one or two channels the 256-bit code, 8 float lanes, on
 * AVX2 and AVX-512 alike, as the chunked kernels): one or two such vectors are one or two
 * recurrences whose latency sets the pace, about the same time per frame for 1 to 16
 * section-channels; the chunked kernels' time grows with the sections times the channels.
 * Measured in one process (bench/chunkseq.c; chunked over sequential, AVX2, Butterworth sections
 * as the engine balances them, 1024-frame calls unless said; docs/cascade.md, "Which kernel"):
 * mono 4 sections 0.46, 8 0.77, 10 0.94, 12 1.08 (4096 frames: 0.99), 16 1.39 (1.18); stereo 3
 * 0.59, 4 0.63, 5 0.88, 6 0.92 (the seed chain 0.95; 4096 frames 0.95), 8 1.25. So the chunked
 * kernels pay up to 12 section-channels: 1.5 vectors of 8 lanes. */
int fxc_chunk_pays(const fx_cascade_t *c, int K)
{
  const size_t w = (size_t) fxc_chunk_lanes(c->kernel, 0);
  return c->channels > 0 && 2 * (size_t) K * (size_t) c->channels <= 3 * w;
}

int fxc_chunk_lanes(const fx_kernel_t *k, int dbl)
{
  /* the 256-bit code on AVX-512 as on AVX2 (kernel_avx512n_*.c): 8 float, 4 double lanes */
  return dbl ? (k->lanes_f64 < 4 ? k->lanes_f64 : 4) : (k->lanes_f32 < 8 ? k->lanes_f32 : 8);
}

int fxc_chunk_env(void)
{
  const char *e = getenv("FX_CHUNK");
  return e && (e[0] == '0' || e[0] == '1') && e[1] == 0 ? e[0] - '0' : -1;
}

int fxc_float_chunked(const fx_cascade_t *c, int K, int seq_ok, int ck_ok)
{
  const int env = fxc_chunk_env();
  return env >= 0 ? env : ck_ok && (fxc_chunk_pays(c, K) || !seq_ok);
}

/* Whether `cur` runs through the chunked kernels, unless FX_CHUNK says otherwise. Float
 * arithmetic where capable and either faster (fxc_chunk_pays) or, under FX_PRECISION_AUTO, the
 * one float path its probe found as accurate as scipy's float32 (cascade_precision.c); with both
 * float paths accurate enough under AUTO, the faster. Double arithmetic only under
 * FX_PRECISION_AUTO and where its probe found the chunked double path as accurate as the
 * sequential one to within the F32 output's rounding (the chunk correction cancels large terms
 * behind poles close together near z = 1: an order-31 Chebyshev I at 100 Hz measured 120.8 dB
 * against 137.2), so that FX_PRECISION_DOUBLE keeps the sequential kernels' accuracy. */
int fxc_want_chunked(const fx_cascade_t *c, int dbl)
{
  const fx_kernel_t *k = c->kernel;
  const int have = c->format == FX_SAMPLE_F64 ? k->ck_f64 != NULL
                   : dbl                      ? k->ck_f32_d != NULL
                                              : k->ck_f32_s != NULL;
  const int env = fxc_chunk_env();
  if (!have || c->channels < 1)
    return 0;
  if (env >= 0)
    return env;
  if (!fxc_chunk_capable(c, dbl))
    return 0;
  const int probed = c->precision == FX_PRECISION_AUTO && c->pr_valid;
  if (dbl)
    return probed && c->pr_ck_double;
  return probed ? fxc_float_chunked(c, c->cur.K, c->pr_seq_ok, c->pr_ck_ok)
                : fxc_chunk_pays(c, c->cur.K);
}

void fxc_chunk_policy(fx_cascade_t *c)
{
  c->chunked = fxc_want_chunked(c, c->dbl);
  fxc_update_backend(c);
}

int fxc_chunk_reserve(fx_cascade_t *c, int K, int channels)
{
  const size_t k = K > 0 ? (size_t) K : 1, n = k * (size_t) (channels > 0 ? channels : 1);
  if (!fxc_grow((void **) &c->ckp, &c->ckp_cap, k, sizeof(fx_chunk_sec_t)) ||
      !fxc_grow((void **) &c->ckr, &c->ckr_cap, n, sizeof(fx_chunk_rec_t)))
    return 0;
  memset(c->ckr, 0, c->ckr_cap * sizeof(fx_chunk_rec_t));
  /* NaN coefficients never match: every section's tables are built before first use */
  for (size_t i = 0; i < c->ckp_cap; i++)
    c->ckp[i].coef[0] = NAN;
  return 1;
}

static void stage_free(fx_stage_rt_t *s)
{
  free(s->pure);
  free(s->ex);
  fxc_path_free(&s->old);
  free(s->old_pure);
  free(s->yh);
  memset(s, 0, sizeof(*s));
}

void fxc_junction_free(fx_junction_t *j)
{
  free(j->target);
  free(j->applied);
  free(j->rec);
  memset(j, 0, sizeof(*j));
}

void fxc_structure_free(fx_cascade_t *c)
{
  for (int s = 0; s < c->S; s++)
    stage_free(&c->st[s]);
  if (c->jn)
    for (int s = 0; s <= c->S; s++)
      fxc_junction_free(&c->jn[s]);
  free(c->st);
  free(c->jn);
  c->st = NULL;
  c->jn = NULL;
  c->S = 0;
  c->installed = 0;
}

/* Product of a junction's gains (applied or target), in chain order. */
double fxc_junction_gain(const fx_junction_t *j, int target)
{
  double g = 1.0;
  for (int i = 0; i < j->n; i++)
    g *= target ? j->target[i] : j->applied[i];
  return g;
}

int fxc_junction_ramps(const fx_junction_t *j)
{
  for (int i = 0; i < j->n; i++)
    if (j->applied[i] != j->target[i])
      return 1;
  return 0;
}

void fxc_fold_stage(fx_cascade_t *c, int s, double g)
{
  fx_stage_rt_t *st = &c->st[s];
  const size_t o = 5 * (size_t) st->k0;
  for (size_t k = 0; k < 5; k++)
    fx_num_set(c->cur.coef, c->dbl, o + k, k < 3 ? st->pure[k] * g : st->pure[k]);
  if (st->xf_active && st->old.K > 0)
    for (size_t k = 0; k < 5; k++)
      fx_num_set(st->old.coef, c->dbl, k, k < 3 ? st->old_pure[k] * g : st->old_pure[k]);
}

/* The running coefficients of every stage from its `pure` ones, at the arithmetic precision (the
 * junction gains are folded by fxc_clear_stream()). */
static void load_run_coefs(fx_cascade_t *c)
{
  for (int s = 0; s < c->S; s++) {
    const fx_stage_rt_t *st = &c->st[s];
    for (size_t i = 0; i < (size_t) st->K * 5; i++)
      fx_num_set(c->cur.coef, c->dbl, 5 * (size_t) st->k0 + i, st->pure[i]);
  }
}

/* ---------------------------------------------------------------------------------------------
 * Life cycle */

fx_cascade_t *fx_cascade_new(void)
{
  fx_cascade_t *c = calloc(1, sizeof(*c));
  if (!c)
    return NULL;
  c->format = FX_SAMPLE_F32;
  c->precision = FX_PRECISION_AUTO;
  c->dbl = 1;
  c->kernel = fx_kernel_select();
  c->fresh = 1;
  c->xf_default = FX_DEFAULT_CROSSFADE;
  c->ring_len = FX_RING;
  c->history = 1;
  if (!fxc_path_reserve(&c->cur, 0, 0)) {
    fx_cascade_free(c);
    return NULL;
  }
  fxc_update_backend(c);
  return c;
}

void fx_cascade_free(fx_cascade_t *c)
{
  if (!c)
    return;
  fxc_structure_free(c);
  fxc_path_free(&c->cur);
  free(c->hist);
  free(c->scratch);
  free(c->tmp);
  free(c->jold);
  free(c->seg);
  free(c->ring);
  free(c->warm);
  for (int i = 0; i < 2; i++)
    free(c->ck[i].state);
  free(c->ckp);
  free(c->ckr);
  free(c->pr_coef);
  free(c);
}

void fxc_clear_stream(fx_cascade_t *c)
{
  fxc_path_zero_state(c, &c->cur);
  const size_t hn = fxc_hist_len(c->cur.K, c->channels);
  if (hn && c->hist)
    memset(c->hist, 0, hn * sizeof(double));
  for (int s = 0; s < c->S; s++) {
    c->st[s].xf_active = 0;
    c->st[s].xf_pos = c->st[s].xf_len = 0;
    c->st[s].old.K = 0;
    c->st[s].yh_valid = 0;
    c->st[s].changed_at = 0;
  }
  if (c->jn) {
    for (int s = 0; s <= c->S; s++) {
      fx_junction_t *j = &c->jn[s];
      for (int i = 0; i < j->n; i++)
        j->applied[i] = j->target[i];
      j->Gl = j->Gp = fxc_junction_gain(j, 1);
      j->changed_at = 0;
      j->rec_start = FX_NONE;
      j->sticky_until = 0;
      if (s < c->S)
        fxc_fold_stage(c, s, j->Gl);
    }
  }
  if (c->ckr)
    memset(c->ckr, 0, c->ckr_cap * sizeof(fx_chunk_rec_t));
  c->fresh = 1;
  c->ring_pos = 0;
  c->ring_total = 0;
  c->ring_from = 0;
  /* The zero state at the start of the stream is the first checkpoint. */
  const size_t n = (size_t) c->cur.K * 2 * (size_t) c->channels;
  c->ck[0].valid = c->ck[0].cap >= n;
  c->ck[0].pos = 0;
  if (c->ck[0].valid && n > 0)
    memset(c->ck[0].state, 0, n * fx_num_size(c->dbl));
  c->ck[1].valid = 0;
}

static int reserve_stream(fx_cascade_t *c, int channels, fx_sample_format_t format)
{
  const size_t ss = format == FX_SAMPLE_F64 ? sizeof(double) : sizeof(float);
  c->ring_len = c->S > 1 ? FX_RING2 : FX_RING;
  if (!fxc_path_reserve(&c->cur, c->cur.K, channels) ||
      !fxc_grow((void **) &c->hist, &c->hist_cap, fxc_hist_len(c->cur.K, channels),
                sizeof(double)) ||
      (c->history &&
       !fxc_grow(&c->ring, &c->ring_bytes, c->ring_len * (size_t) channels * ss, 1)) ||
      !fxc_grow((void **) &c->tmp, &c->tmp_cap, (size_t) channels * 2, sizeof(double)) ||
      !fxc_grow((void **) &c->jold, &c->jold_cap, ((size_t) c->S + 1) * (size_t) channels * 2,
                sizeof(double)) ||
      !fxc_grow((void **) &c->seg, &c->seg_cap, (size_t) c->S + 1, sizeof(int)) ||
      !fxc_reserve_checkpoints(c, c->cur.K, channels) || !fxc_chunk_reserve(c, c->cur.K, channels))
    return 0;
  if (c->jn)
    for (int s = 0; s <= c->S; s++) {
      free(c->jn[s].rec);
      c->jn[s].rec = NULL;
    }
  for (int s = 0; s < c->S; s++) {
    double *y = realloc(c->st[s].yh, (size_t) channels * 2 * sizeof(double));
    if (!y)
      return 0;
    c->st[s].yh = y;
  }
  return 1;
}

fx_status_t fx_cascade_configure(fx_cascade_t *c, int channels, fx_sample_format_t format,
                                 fx_precision_t precision)
{
  if (!c)
    return FX_ERR_ARG;
  if (channels < 1)
    return FX_ERR_CHANNELS;
  if (format != FX_SAMPLE_F32 && format != FX_SAMPLE_F64)
    return FX_ERR_TYPE;
  if (precision != FX_PRECISION_AUTO && precision != FX_PRECISION_SINGLE &&
      precision != FX_PRECISION_DOUBLE)
    return FX_ERR_TYPE;
  if (!reserve_stream(c, channels, format))
    return FX_ERR_NOMEM;
  c->channels = channels;
  c->format = format;
  c->precision = precision;
  if (c->pr_valid && (fxc_chunk_capable(c, 0) != c->pr_cks_measured ||
                      fxc_chunk_capable(c, 1) != c->pr_ckd_measured))
    c->pr_valid = 0; /* the probe measured other paths */
  /* AUTO: double until a probe of the installed design says single is as accurate as scipy's
   * float32 sosfilt (cascade_precision.c). */
  c->dbl = format == FX_SAMPLE_F64 || precision == FX_PRECISION_DOUBLE ||
           (precision == FX_PRECISION_AUTO && (c->offload || !(c->pr_valid && c->pr_single)));
  fxc_chunk_policy(c);
  fxc_update_backend(c);
  load_run_coefs(c);
  fxc_clear_stream(c);
  return FX_OK;
}

void fx_cascade_reset(fx_cascade_t *c)
{
  if (c)
    fxc_clear_stream(c);
}

void fx_cascade_set_crossfade(fx_cascade_t *c, size_t frames)
{
  if (c)
    c->xf_default = frames;
}

fx_status_t fx_cascade_set_history(fx_cascade_t *c, int keep)
{
  if (!c)
    return FX_ERR_ARG;
  keep = keep != 0;
  if (keep == c->history)
    return FX_OK;
  if (keep && c->channels > 0 &&
      !fxc_grow(&c->ring, &c->ring_bytes, c->ring_len * fxc_frame_bytes(c), 1))
    return FX_ERR_NOMEM;
  if (!keep) {
    free(c->ring);
    c->ring = NULL;
    c->ring_bytes = 0;
  }
  c->history = keep;
  c->ring_from = c->ring_total; /* turned on: the ring holds nothing yet */
  return FX_OK;
}

void fx_cascade_set_offload(fx_cascade_t *c, fx_cascade_offload_fn_t fn, void *ctx)
{
  if (c) {
    c->offload = fn;
    c->offload_ctx = fn ? ctx : NULL;
    /* FX_PRECISION_AUTO's probe measured the CPU's float path, not the offload's: double there */
    if (fn && c->format == FX_SAMPLE_F32 && c->precision == FX_PRECISION_AUTO && !c->dbl &&
        c->channels > 0)
      fxc_set_arithmetic(c, 1);
  }
}

/* ---------------------------------------------------------------------------------------------
 * Queries */

int fx_cascade_channels(const fx_cascade_t *c)
{
  return c ? c->channels : 0;
}

int fx_cascade_sections(const fx_cascade_t *c)
{
  int n = 0;
  if (c)
    for (int s = 0; s < c->S; s++)
      n += c->st[s].Kn;
  return n;
}

uint64_t fx_cascade_dispatches(const fx_cascade_t *c)
{
  return c ? c->dispatches : 0;
}

void fx_cascade_reset_dispatches(fx_cascade_t *c)
{
  if (c) {
    c->dispatches = 0;
    c->warm_frames = 0;
  }
}

uint64_t fx_cascade_warm_frames(const fx_cascade_t *c)
{
  return c ? c->warm_frames : 0;
}

int fx_cascade_offload_active(const fx_cascade_t *c)
{
  return c && c->offload;
}

const char *fx_cascade_backend(const fx_cascade_t *c)
{
  return c ? c->backend : "none";
}

int fx_cascade_uses_double(const fx_cascade_t *c)
{
  return c ? c->dbl : 0;
}

int fx_cascade_uses_chunked(const fx_cascade_t *c)
{
  return c ? c->chunked : 0;
}

int fx_cascade_padded_channels(int channels, int sample_bytes)
{
  if (channels < 1 || sample_bytes < 1 || sample_bytes > 64 || 64 % sample_bytes != 0)
    return channels;
  const long bytes = (long) channels * sample_bytes;
  if (bytes < 1024)
    return channels;
  long lines = (bytes + 63) / 64;
  if (lines % 2 == 0)
    lines++;
  const long padded = lines * 64 / sample_bytes;
  return padded > INT_MAX ? channels : (int) padded;
}
