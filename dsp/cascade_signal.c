/* gst-fx — the SOS cascade engine: the input ring, junction records, and reconstructing the
 * signal in front of a stage for its warm-up. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A standalone engine warms new sections up on its own recent input; inside a cascade of stages
 * that input is the output of the preceding stages, which the single kernel pass never
 * materialises. fxc_junction_signal() recomputes it exactly from a record or a checkpoint, and
 * approximates it only when neither exists (docs/cascade.md, "Warm-up of an inner stage"). */
#include <stdlib.h>
#include <string.h>

#include "cascade_impl.h"

/* Frames of input the ring holds (at most ring_len). */
size_t fxc_ring_held(const fx_cascade_t *c)
{
  if (!c->history)
    return 0;
  const uint64_t n = c->ring_total - c->ring_from;
  return n < c->ring_len ? (size_t) n : c->ring_len;
}

size_t fxc_ring_fill(const fx_cascade_t *c)
{
  const size_t n = fxc_ring_held(c);
  return n < FX_RING ? n : FX_RING;
}

/* Appends frames of input to the ring (before they are filtered in place). */
void fxc_ring_push(fx_cascade_t *c, const void *data, size_t frames)
{
  const size_t fb = fxc_frame_bytes(c); /* bytes per frame */
  const unsigned char *src = data;
  const size_t L = c->ring_len;
  if (!c->history) {
    c->ring_total += frames;
    return;
  }
  if (frames >= L) {
    memcpy(c->ring, src + (frames - L) * fb, L * fb);
    c->ring_pos = 0;
  } else {
    size_t first = L - c->ring_pos;
    if (first > frames)
      first = frames;
    memcpy((unsigned char *) c->ring + c->ring_pos * fb, src, first * fb);
    if (frames > first)
      memcpy(c->ring, src + first * fb, (frames - first) * fb);
    c->ring_pos = (c->ring_pos + frames) % L;
  }
  c->ring_total += frames;
}

/* Copies the last n (<= ring_len, <= frames received) input frames to dst, oldest first. */
void fxc_ring_copy(const fx_cascade_t *c, void *dst, size_t n)
{
  const size_t fb = fxc_frame_bytes(c);
  const size_t L = c->ring_len;
  size_t start = (c->ring_pos + L - n) % L;
  size_t first = L - start < n ? L - start : n;
  memcpy(dst, (unsigned char *) c->ring + start * fb, first * fb);
  if (n > first)
    memcpy((unsigned char *) dst + first * fb, c->ring, (n - first) * fb);
}

/* Stages j .. s-1 and junctions j0 .. s unchanged since stream frame `pos`. */
static int steady_range(const fx_cascade_t *c, int j, int j0, int s, uint64_t pos)
{
  for (int t = j; t < s; t++)
    if (c->st[t].xf_active || c->st[t].changed_at > pos)
      return 0;
  for (int t = j0; t <= s; t++)
    if (c->jn[t].changed_at > pos)
      return 0;
  return 1;
}

/* Junction j's record holds stream frames [from, now). */
static int rec_covers(const fx_cascade_t *c, const fx_junction_t *jn, uint64_t from)
{
  return jn->rec && jn->rec_start != FX_NONE && jn->rec_start <= from &&
         c->ring_total - from <= FX_RING2;
}

/* Copies stream frames [from, now) of a junction's record to dst. */
static void rec_copy(const fx_cascade_t *c, const fx_junction_t *jn, void *dst, uint64_t from)
{
  const size_t fb = fxc_frame_bytes(c);
  const size_t n = (size_t) (c->ring_total - from);
  const size_t start = (size_t) (from % FX_RING2);
  const size_t first = FX_RING2 - start < n ? FX_RING2 - start : n;
  memcpy(dst, (const unsigned char *) jn->rec + start * fb, first * fb);
  if (n > first)
    memcpy((unsigned char *) dst + first * fb, jn->rec, (n - first) * fb);
}

/* Appends frames (the junction's signal times g) to its record, at their stream positions. */
void fxc_rec_append(const fx_cascade_t *c, fx_junction_t *jn, const void *data, size_t frames,
                    double g, uint64_t pos0)
{
  const size_t C = (size_t) c->channels;
  size_t skip = frames > FX_RING2 ? frames - FX_RING2 : 0;
  if (jn->rec_start == FX_NONE)
    jn->rec_start = pos0;
  for (size_t f = skip; f < frames; f++) {
    const size_t o = (size_t) ((pos0 + f) % FX_RING2) * C;
    if (c->format == FX_SAMPLE_F64) {
      const double *d = (const double *) data + f * C;
      double *r = (double *) jn->rec + o;
      for (size_t ch = 0; ch < C; ch++)
        r[ch] = g == 1.0 ? d[ch] : d[ch] * g;
    } else {
      const float *d = (const float *) data + f * C;
      float *r = (float *) jn->rec + o;
      for (size_t ch = 0; ch < C; ch++)
        r[ch] = g == 1.0 ? d[ch] : (float) ((double) d[ch] * g);
    }
  }
}

/* Double coefficients of the sections of stages j0 .. s-1 as they run in `cur` (each stage's
 * junction gain folded into its first section; not stage j0's when `unfold`). */
static void stages_coefs(const fx_cascade_t *c, int j0, int s, int unfold, double *out)
{
  for (int t = j0; t < s; t++) {
    const fx_stage_rt_t *st = &c->st[t];
    const double g = t == j0 && unfold ? 1.0 : c->jn[t].Gl;
    for (size_t i = 0; i < (size_t) st->K * 5; i++)
      out[i] = i < 3 ? st->pure[i] * g : st->pure[i];
    out += (size_t) st->K * 5;
  }
}

/* Junction s's signal over the last m >= n frames (n <= FX_RING), reconstructed into c->warm
 * (oldest frame first). *post is set when it is the signal after the junction's gains (the
 * stage's input), cleared when before them. Sources, in order: the junction's own record; a
 * record of an earlier junction, or the cascade input, from which the stages in between are
 * re-run from a checkpoint (all of them, and the junctions after the source, unchanged since
 * the checkpoint); otherwise an approximation: the preceding stages as they are now, re-run over
 * the whole input ring from the steady state for its first frame. Returns NULL on allocation
 * failure. */
void *fxc_junction_signal(fx_cascade_t *c, int s, size_t n, size_t *m_out, int *post)
{
  const size_t C = (size_t) c->channels;
  const uint64_t now = c->ring_total;
  const int k1 = c->st[s].k0;

  if (rec_covers(c, &c->jn[s], now - n)) {
    rec_copy(c, &c->jn[s], c->warm, now - n);
    *m_out = n;
    *post = 1;
    return c->warm;
  }
  *post = 0;
  if (k1 == 0 || s == 0) {
    fxc_ring_copy(c, c->warm, n);
    *m_out = n;
    return c->warm;
  }
  /* source j (-1: the cascade input) and checkpoint */
  int src = -2;
  const fx_checkpoint_t *ck = NULL;
  for (int j = s - 1; j >= -1 && src == -2; j--) {
    for (int i = 0; i < 2; i++) {
      const fx_checkpoint_t *k = &c->ck[i];
      if (!k->valid || k->pos + n > now || now - k->pos > fxc_ring_held(c) ||
          (ck && k->pos < ck->pos))
        continue;
      if (j >= 0 ? !rec_covers(c, &c->jn[j], k->pos) || !steady_range(c, j, j + 1, s, k->pos)
                 : !steady_range(c, 0, 0, s, k->pos))
        continue;
      ck = k;
    }
    if (ck)
      src = j;
  }
  const int j0 = src >= 0 ? src : 0;
  const int k0 = c->st[j0].k0;
  const size_t K = (size_t) (k1 - k0);
  fx_path_t p = {0};
  double *coef = malloc(K * 5 * sizeof(double));
  double *h = malloc(fxc_hist_len((int) K, c->channels) * sizeof(double));
  if (!coef || !h || !fxc_path_reserve(&p, (int) K, c->channels)) {
    free(coef);
    free(h);
    fxc_path_free(&p);
    return NULL;
  }
  p.K = (int) K;
  /* a record is after the junction's gains: its stage runs unfolded */
  stages_coefs(c, j0, s, src >= 0, coef);
  fxc_path_load(c, &p, coef);
  size_t m;
  if (ck) {
    m = (size_t) (now - ck->pos);
    for (size_t ch = 0; ch < C; ch++)
      fx_num_copy(p.state, ch * K * 2, ck->state, (ch * (size_t) c->cur.K + (size_t) k0) * 2, K * 2,
                  c->dbl);
    if (src >= 0)
      rec_copy(c, &c->jn[src], c->warm, ck->pos);
    else
      fxc_ring_copy(c, c->warm, m);
    if (m > 0)
      fxc_run_path(c, &p, NULL, c->warm, m);
  } else {
    /* approximation: the preceding stages as they are now, over the whole ring */
    m = fxc_ring_fill(c);
    if (m < n)
      m = n;
    fxc_ring_copy(c, c->warm, m);
    fxc_warm_path(c, &p, coef, h, c->warm, m, c->ring_total <= FX_RING);
  }
  free(coef);
  free(h);
  fxc_path_free(&p);
  *m_out = m;
  return c->warm;
}

/* Makes sure junction s (s < S) has a record that is continuous up to now, so that later
 * warm-ups of the stages after it find their input although the stages before it change: it is
 * reconstructed over the last FX_RING frames or more, and process() extends it while the
 * junction starts a segment (sticky_until). */
int fxc_ensure_record(fx_cascade_t *c, int s)
{
  fx_junction_t *jn = &c->jn[s];
  if (!jn->rec) {
    jn->rec = malloc(FX_RING2 * fxc_frame_bytes(c));
    if (!jn->rec)
      return 0;
    jn->rec_start = FX_NONE;
  }
  if (jn->rec_start != FX_NONE || c->ring_total == 0)
    return 1;
  const size_t n = fxc_ring_fill(c);
  size_t m;
  int post = 0;
  void *w = c->warm;
  if (s == 0) {
    /* The cascade input from the checkpoint position at or before the last n frames, so that a
     * later warm-up of a stage after this junction can re-run the stages in between from a
     * checkpoint the record covers, however soon it comes (records of later junctions start at
     * a checkpoint already, when they are exact). */
    const uint64_t from = (c->ring_total - n) / FX_RING * FX_RING;
    m = c->ring_total - from <= fxc_ring_held(c) ? (size_t) (c->ring_total - from) : n;
    fxc_ring_copy(c, w, m);
  } else {
    w = fxc_junction_signal(c, s, n, &m, &post);
    if (!w)
      return 0;
  }
  jn->rec_start = FX_NONE;
  fxc_rec_append(c, jn, w, m, post ? 1.0 : jn->Gl, c->ring_total - m);
  return 1;
}
