/* gst-fx — the SOS cascade engine: fx_cascade_process(). Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The stages run in chain order, each over the whole buffer; runs of stages that are neither
 * crossfading nor preceded by a ramping (or recording) junction go through one kernel call: in
 * steady state the whole cascade is one call (docs/cascade.md, "Processing"). */
#include <stdlib.h>
#include <string.h>

#include "cascade_impl.h"
#include "finite.h"
#include "gain.h"

/* ---------------------------------------------------------------------------------------------
 * Kernel calls */

static void run_k(const fx_cascade_t *c, const void *coef, void *state, double *hist, int K,
                  int kstride, void *data, size_t frames)
{
  const int C = c->channels;
  if (c->format == FX_SAMPLE_F64)
    c->kernel->f64(coef, state, hist, K, kstride, (double *) data, frames, C);
  else if (c->dbl)
    c->kernel->f32_d(coef, state, hist, K, kstride, (float *) data, frames, C);
  else
    c->kernel->f32_s(coef, state, hist, K, kstride, (float *) data, frames, C);
}

void fxc_run_path(const fx_cascade_t *c, fx_path_t *p, double *hist, void *data, size_t frames)
{
  run_k(c, p->coef, p->state, hist, p->K, p->K, data, frames);
}

/* Hands sections k0 .. k1-1 of `cur` over `frames` frames to the offload hook, with the
 * checkpoints cut[i] (NULL: none) saved into slot[i]. 1 when it did the pass. */
static int offload_pass(fx_cascade_t *c, int k0, int k1, void *data, size_t frames,
                        const size_t *cut, const int *slot)
{
  fx_cascade_offload_call_t call;
  memset(&call, 0, sizeof(call));
  call.format = c->format;
  call.dbl = c->dbl;
  call.channels = c->channels;
  call.kstride = c->cur.K;
  call.k0 = k0;
  call.K = k1 - k0;
  call.coef = c->cur.coef;
  call.state = c->cur.state;
  call.hist = c->hist;
  call.data = data;
  call.frames = frames;
  for (int i = 0; i < 2 && cut; i++) {
    if (cut[i] == 0)
      continue;
    call.cut[i] = cut[i];
    call.ck_state[i] = c->ck[slot[i]].state;
  }
  const int r = c->offload(c->offload_ctx, &call);
  if (r < 0) { /* failed: this call and all later ones on the CPU */
    c->offload = NULL;
    c->offload_ctx = NULL;
  }
  return r == 0;
}

/* ---------------------------------------------------------------------------------------------
 * Chunked kernels: the sections' tables follow the run coefficients */

/* The double coefficients that section k's run coefficients round (to the arithmetic precision):
 * its stage's own, with the junction gain folded into the stage's first section, when they round
 * to the run coefficients; otherwise the run coefficients themselves. */
static void run_coef_double(const fx_cascade_t *c, int k, double *out)
{
  for (int i = 0; i < 5; i++)
    out[i] = fx_num_get(c->cur.coef, c->dbl, 5 * (size_t) k + (size_t) i);
  if (c->dbl)
    return;
  for (int s = 0; s < c->S; s++) {
    const fx_stage_rt_t *st = &c->st[s];
    if (k < st->k0 || k >= st->k0 + st->K || !st->pure)
      continue;
    const double g = k == st->k0 ? c->jn[s].Gl : 1.0;
    double d[5];
    for (int i = 0; i < 5; i++) {
      d[i] = st->pure[5 * (size_t) (k - st->k0) + (size_t) i] * (i < 3 ? g : 1.0);
      if ((double) (float) d[i] != out[i])
        return;
    }
    memcpy(out, d, sizeof(d));
    return;
  }
}

/* Makes the tables of sections k0 .. k1-1 match their run coefficients. */
static void chunk_tables(fx_cascade_t *c, int k0, int k1)
{
  for (int k = k0; k < k1; k++) {
    fx_chunk_sec_t *p = &c->ckp[k];
    int same = 1;
    for (int i = 0; i < 5 && same; i++) {
      const double r = fx_num_get(c->cur.coef, c->dbl, 5 * (size_t) k + (size_t) i);
      same = (c->dbl ? p->coef[i] : (double) (float) p->coef[i]) == r;
    }
    if (same)
      continue;
    double d[5];
    run_coef_double(c, k, d);
    fx_chunk_sec_build(p, d);
    c->ck_builds++;
  }
}

/* Sections k0 .. k1-1 of `cur`. */
static void run_cur(fx_cascade_t *c, int k0, int k1, void *data, size_t frames)
{
  if (c->offload && offload_pass(c, k0, k1, data, frames, NULL, NULL))
    return;
  if (c->chunked) {
    chunk_tables(c, k0, k1);
    const void *coef = fx_num_at(c->cur.coef, c->dbl, 5 * (size_t) k0);
    void *state = fx_num_at(c->cur.state, c->dbl, 2 * (size_t) k0);
    double *hist = c->hist + 2 * (size_t) k0;
    const fx_chunk_sec_t *ps = c->ckp + k0;
    fx_chunk_rec_t *rec = c->ckr + k0;
    const int K = k1 - k0, ks = c->cur.K, C = c->channels;
    if (c->format == FX_SAMPLE_F64)
      c->kernel->ck_f64(coef, ps, rec, state, hist, K, ks, (double *) data, frames, C);
    else if (c->dbl)
      c->kernel->ck_f32_d(coef, ps, rec, state, hist, K, ks, (float *) data, frames, C);
    else
      c->kernel->ck_f32_s(coef, ps, rec, state, hist, K, ks, (float *) data, frames, C);
    return;
  }
  run_k(c, fx_num_at(c->cur.coef, c->dbl, 5 * (size_t) k0),
        fx_num_at(c->cur.state, c->dbl, 2 * (size_t) k0), c->hist + 2 * (size_t) k0, k1 - k0,
        c->cur.K, data, frames);
}

/* hist boundary b of channel ch */
static double *hist_at(fx_cascade_t *c, size_t ch, size_t b)
{
  return c->hist + (ch * ((size_t) c->cur.K + 1) + b) * 2;
}

/* ---------------------------------------------------------------------------------------------
 * Checkpoints: the state of all sections every FX_RING frames (cascades of several stages), for
 * re-running preceding stages exactly in a later warm-up (cascade_signal.c). */

static void save_checkpoint(fx_cascade_t *c, int slot, int k0, int k1)
{
  const size_t KT = (size_t) c->cur.K, n = (size_t) (k1 - k0) * 2;
  for (size_t ch = 0; ch < (size_t) c->channels; ch++) {
    const size_t o = (ch * KT + (size_t) k0) * 2;
    fx_num_copy(c->ck[slot].state, o, c->cur.state, o, n, c->dbl);
  }
}

/* Where this call (frames from stream position pos0) crosses the last two multiples of FX_RING:
 * cut[i] frames in (0: none), into checkpoint slot[i], for stream position P[i]. Those slots are
 * invalid until the call has saved them. */
static void checkpoint_cuts(fx_cascade_t *c, uint64_t pos0, size_t frames, size_t cut[2],
                            int slot[2], uint64_t P[2])
{
  const uint64_t last = ((pos0 + frames) / FX_RING) * FX_RING;
  for (int i = 0; i < 2 && c->S > 1; i++) {
    const uint64_t q = last - (uint64_t) (1 - i) * FX_RING;
    if (last >= (uint64_t) (1 - i) * FX_RING && q > pos0) {
      P[i] = q;
      cut[i] = (size_t) (q - pos0);
      slot[i] = (int) ((q / FX_RING) % 2);
      c->ck[slot[i]].valid = 0;
    }
  }
}

/* Sections k0 .. k1-1 in one kernel pass, split at the checkpoints inside this call (cut[i]
 * frames in, 0: none; cut[0] < cut[1]) to save them. */
static void run_group(fx_cascade_t *c, int k0, int k1, unsigned char *data, size_t frames,
                      const size_t *cut, const int *slot)
{
  const size_t fb = fxc_frame_bytes(c);
  size_t done = 0;
  /* an offloaded pass saves the checkpoints itself: still one pass per buffer */
  if (c->offload && (cut[0] || cut[1]) && offload_pass(c, k0, k1, data, frames, cut, slot))
    return;
  for (int i = 0; i < 2; i++) {
    if (cut[i] == 0)
      continue;
    if (cut[i] > done)
      run_cur(c, k0, k1, data + done * fb, cut[i] - done);
    done = cut[i];
    save_checkpoint(c, slot[i], k0, k1);
  }
  if (done < frames)
    run_cur(c, k0, k1, data + done * fb, frames - done);
}

/* ---------------------------------------------------------------------------------------------
 * Crossfades and gain ramps */

/* data = old + w (new - old), w = (pos + i + 1) / (len + 1) per frame. */
static void mix(const fx_cascade_t *c, const fx_stage_rt_t *st, void *data, const void *olddata,
                size_t frames)
{
  const size_t C = (size_t) c->channels;
  const double inv = 1.0 / ((double) st->xf_len + 1.0);
  if (c->format == FX_SAMPLE_F64) {
    double *d = data;
    const double *o = olddata;
    for (size_t i = 0; i < frames; i++) {
      const double w = (double) (st->xf_pos + i + 1) * inv;
      for (size_t ch = 0; ch < C; ch++) {
        const size_t k = i * C + ch;
        d[k] = o[k] + w * (d[k] - o[k]);
      }
    }
  } else {
    float *d = data;
    const float *o = olddata;
    for (size_t i = 0; i < frames; i++) {
      const double w = (double) (st->xf_pos + i + 1) * inv;
      for (size_t ch = 0; ch < C; ch++) {
        const size_t k = i * C + ch;
        d[k] = (float) ((double) o[k] + w * ((double) d[k] - (double) o[k]));
      }
    }
  }
}

/* A crossfading stage on its own: old path on a copy of the input, new path in place, mix. */
static void run_stage_xf(fx_cascade_t *c, int s, unsigned char *data, size_t frames)
{
  fx_stage_rt_t *st = &c->st[s];
  const size_t C = (size_t) c->channels, ss = fxc_sample_size(c);
  const size_t out = (size_t) st->k0 + (size_t) st->K;
  /* the output boundary holds the stage's own output history while it runs (the next segment
   * sets the junction's) */
  if (st->yh_valid) {
    for (size_t ch = 0; ch < C; ch++) {
      double *h = hist_at(c, ch, out);
      h[0] = st->yh[2 * ch];
      h[1] = st->yh[2 * ch + 1];
    }
  }
  size_t done = 0;
  while (st->xf_active && done < frames) {
    size_t n = frames - done;
    size_t left = st->xf_len - st->xf_pos;
    size_t cap = c->scratch_bytes / (C * sizeof(double));
    if (cap == 0) { /* cannot happen (scratch is sized with the crossfade); be safe */
      st->xf_active = 0;
      st->old.K = 0;
      break;
    }
    if (n > left)
      n = left;
    if (n > cap)
      n = cap;
    unsigned char *p = data + done * C * ss;
    memcpy(c->scratch, p, n * C * ss);
    fxc_run_path(c, &st->old, NULL, c->scratch, n);
    run_cur(c, st->k0, st->k0 + st->K, p, n);
    mix(c, st, p, c->scratch, n);
    st->xf_pos += n;
    done += n;
    if (st->xf_pos >= st->xf_len) {
      st->xf_active = 0;
      st->old.K = 0;
    }
  }
  if (done < frames)
    run_cur(c, st->k0, st->k0 + st->K, data + done * C * ss, frames - done);
  for (size_t ch = 0; ch < C; ch++) {
    const double *h = hist_at(c, ch, out);
    st->yh[2 * ch] = h[0];
    st->yh[2 * ch + 1] = h[1];
  }
  st->yh_valid = 1;
  if (!st->xf_active) {
    st->changed_at = c->ring_total;
    if (s + 1 < c->S && c->jn[s + 1].rec)
      c->jn[s + 1].sticky_until = c->ring_total + FX_RING2;
  }
}

/* Applies junction j's gains to the buffer (dsp/gain.c: a ramp from the applied gain to the
 * target over this call, constant when they are equal). */
static void apply_junction(fx_cascade_t *c, const fx_junction_t *j, void *data, size_t frames)
{
  for (int i = 0; i < j->n; i++) {
    if (c->format == FX_SAMPLE_F64)
      fx_gain_apply_f64(data, frames, c->channels, j->applied[i], j->target[i], 0);
    else
      fx_gain_apply_f32(data, frames, c->channels, j->applied[i], j->target[i], 0);
  }
}

static double frame_value(const fx_cascade_t *c, const void *data, size_t k)
{
  return c->format == FX_SAMPLE_F64 ? ((const double *) data)[k]
                                    : (double) ((const float *) data)[k];
}

/* 1 when the engine's state, history and crossfade state are all finite. Per buffer, on a few
 * dozen numbers: finite.c's scans test the exponent bits (NaN and Inf have them all set), which
 * the compiler unrolls and vectorizes, where a floating-point test per number would be a chain of
 * compares. */
static int all_finite(const fx_cascade_t *c)
{
  const size_t C = (size_t) c->channels;
  int bad = fx_has_nonfinite(c->hist, fxc_hist_len(c->cur.K, c->channels), 1);
  bad |= fx_has_nonfinite(c->cur.state, (size_t) c->cur.K * 2 * C, c->dbl);
  for (int s = 0; s < c->S; s++) {
    const fx_stage_rt_t *st = &c->st[s];
    if (st->yh_valid)
      bad |= fx_has_nonfinite(st->yh, 2 * C, 1);
    if (st->xf_active)
      bad |= fx_has_nonfinite(st->old.state, (size_t) st->old.K * 2 * C, c->dbl);
  }
  return !bad;
}

/* ---------------------------------------------------------------------------------------------
 * One buffer */

/* Splits the stages into segments (c->seg[0 .. n], returns n): runs of stages that go through
 * one kernel call; a crossfading stage, a ramping junction or a recording one starts a new
 * segment. */
static int split_segments(fx_cascade_t *c, uint64_t pos0)
{
  const int S = c->S;
  int nseg = 0;
  for (int s = 0; s < S;) {
    int e = s + 1;
    if (!c->st[s].xf_active)
      while (e < S && !c->st[e].xf_active && !fxc_junction_ramps(&c->jn[e]) &&
             c->jn[e].sticky_until <= pos0)
        e++;
    c->seg[nseg++] = s;
    s = e;
  }
  c->seg[nseg] = S;
  return nseg;
}

/* Segment i (stages seg[i] .. seg[i+1]-1) over the buffer. */
static void run_segment(fx_cascade_t *c, int i, unsigned char *bytes, size_t frames, uint64_t pos0,
                        const size_t *cut, const int *slot)
{
  const size_t C = (size_t) c->channels;
  const int S = c->S, s = c->seg[i], e = c->seg[i + 1];
  fx_stage_rt_t *st = &c->st[s];
  fx_junction_t *jn = &c->jn[s];
  const int ramp = fxc_junction_ramps(jn);
  /* the junction's signal before its gains: what its boundary's history must hold */
  double *jnew = c->tmp;
  for (size_t ch = 0; ch < C; ch++) {
    jnew[2 * ch] = frame_value(c, bytes, (frames - 1) * C + ch);
    jnew[2 * ch + 1] = frames >= 2 ? frame_value(c, bytes, (frames - 2) * C + ch)
                                   : c->jold[((size_t) i * C + ch) * 2];
  }
  if (ramp) {
    apply_junction(c, jn, bytes, frames);
    fxc_fold_stage(c, s, 1.0);
  }
  if (jn->rec)
    fxc_rec_append(c, jn, bytes, frames, ramp ? 1.0 : jn->Gl, pos0);
  for (int t = s + 1; t < e; t++) /* not materialised in this call: records break */
    c->jn[t].rec_start = FX_NONE;
  if (st->xf_active) {
    run_stage_xf(c, s, bytes, frames);
    for (int k = 0; k < 2; k++) /* not usable: the stage changed */
      if (cut[k])
        save_checkpoint(c, slot[k], st->k0, st->k0 + st->K);
  } else {
    const int k1 = e < S ? c->st[e].k0 : c->cur.K;
    run_group(c, st->k0, k1, bytes, frames, cut, slot);
    for (int t = s; t < e; t++) {
      fx_stage_rt_t *u = &c->st[t];
      if (!u->yh_valid)
        continue;
      if (frames >= 2) {
        u->yh_valid = 0;
      } else {
        for (size_t ch = 0; ch < C; ch++) {
          u->yh[2 * ch + 1] = u->yh[2 * ch];
          u->yh[2 * ch] = hist_at(c, ch, (size_t) u->k0 + (size_t) u->K)[0];
        }
      }
    }
  }
  for (size_t ch = 0; ch < C; ch++) {
    double *h = hist_at(c, ch, (size_t) st->k0);
    h[0] = jnew[2 * ch];
    h[1] = jnew[2 * ch + 1];
  }
}

/* After the buffer: the junctions' gains at its last two frames; ramps are over. */
static void finish_junctions(fx_cascade_t *c, size_t frames)
{
  const int S = c->S;
  for (int j = 0; j <= S; j++) {
    fx_junction_t *jn = &c->jn[j];
    const int ramp = fxc_junction_ramps(jn);
    double gp = 1.0;
    for (int i = 0; i < jn->n; i++) {
      const double from = jn->applied[i], to = jn->target[i];
      gp *= from == to ? to : from + (to - from) / (double) frames * (double) (frames - 1);
    }
    jn->Gp = frames >= 2 ? gp : jn->Gl;
    for (int i = 0; i < jn->n; i++)
      jn->applied[i] = jn->target[i];
    jn->Gl = fxc_junction_gain(jn, 0);
    if (ramp) {
      jn->changed_at = c->ring_total;
      if (j < S)
        fxc_fold_stage(c, j, jn->Gl);
      if (jn->rec)
        jn->sticky_until = c->ring_total + FX_RING2;
    }
  }
}

unsigned fx_cascade_process(fx_cascade_t *c, void *data, size_t frames)
{
  if (!c || c->channels < 1 || frames == 0 || !data)
    return 0;
  const size_t C = (size_t) c->channels;
  unsigned char *bytes = data;
  /* NaN and Inf become 0 before the ring, the history or the state see them: the output there
   * is what the filter gives for a 0 input, and nothing else changes. */
  const unsigned in_flags =
      fx_zero_nonfinite(data, frames * C, c->format == FX_SAMPLE_F64) ? FX_PROCESS_NONFINITE : 0;

  c->dispatches++;
  c->fresh = 0;
  const uint64_t pos0 = c->ring_total;
  fxc_ring_push(c, data, frames);
  if (!c->installed)
    return in_flags;

  size_t cut[2] = {0, 0};
  int slot[2] = {0, 1};
  uint64_t P[2] = {0, 0};
  checkpoint_cuts(c, pos0, frames, cut, slot, P);

  const int nseg = split_segments(c, pos0);
  /* The history at the boundaries where segments start, before anything runs: a boundary
   * written by two kernel calls in one process() call (as the output of one segment and as the
   * input of the next) is set explicitly afterwards. */
  for (int i = 0; i < nseg; i++)
    for (size_t ch = 0; ch < C; ch++) {
      const double *h = hist_at(c, ch, (size_t) c->st[c->seg[i]].k0);
      c->jold[((size_t) i * C + ch) * 2] = h[0];
      c->jold[((size_t) i * C + ch) * 2 + 1] = h[1];
    }
  for (int i = 0; i < nseg; i++)
    run_segment(c, i, bytes, frames, pos0, cut, slot);
  /* gains after the last stage */
  const fx_junction_t *out = &c->jn[c->S];
  if (fxc_junction_ramps(out) || fxc_junction_gain(out, 1) != 1.0)
    apply_junction(c, out, bytes, frames);
  finish_junctions(c, frames);
  for (int i = 0; i < 2; i++) {
    if (cut[i]) {
      c->ck[slot[i]].pos = P[i];
      c->ck[slot[i]].valid = 1;
    }
  }

  /* a safety net: finite input with finite, stable coefficients keeps the state finite */
  if (!all_finite(c)) {
    fxc_clear_stream(c);
    return FX_PROCESS_NONFINITE;
  }
  return in_flags;
}
