/* gst-fx — the SOS cascade engine: the new state of a changed stage. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * When a stage's coefficients change after audio has passed, its new sections need a state
 * (docs/cascade.md, "Coefficient changes"): small changes derive it from the stage's boundary
 * history as a direct-form-I filter would switch (fxc_transfer()); a new section count, a large
 * jump or a slow section behind moving poles runs the new sections over the stage's recent
 * input instead (a warm-up, fxc_warm_path()). Either way the running cascade is not modified:
 * cascade_install.c installs the result. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cascade_impl.h"

void fxc_transfer(const fx_cascade_t *c, const double *h, const double *coef, int K, void *state,
                  int kstride)
{
  const size_t C = (size_t) c->channels;
  for (size_t ch = 0; ch < C; ch++) {
    const double *hn = h + ch * ((size_t) K + 1) * 2;
    for (int s = 0; s < K; s++) {
      const double *cs = coef + (size_t) s * 5;
      double b1 = cs[1], b2 = cs[2], a1 = cs[3], a2 = cs[4];
      if (!c->dbl) { /* the coefficients single-precision kernels run with */
        b1 = (float) b1;
        b2 = (float) b2;
        a1 = (float) a1;
        a2 = (float) a2;
      }
      const double x0 = hn[2 * s], x1 = hn[2 * s + 1];
      const double y0 = hn[2 * s + 2], y1 = hn[2 * s + 3];
      const double z2 = b2 * x0 - a2 * y0;
      const double z1 = b1 * x0 - a1 * y0 + b2 * x1 - a2 * y1;
      const size_t k = (ch * (size_t) kstride + (size_t) s) * 2;
      fx_num_set(state, c->dbl, k, z1);
      fx_num_set(state, c->dbl, k + 1, z2);
    }
  }
}

void fxc_warm_path(fx_cascade_t *c, fx_path_t *p, const double *coef, double *h, void *win,
                   size_t n, int zero)
{
  const size_t C = (size_t) c->channels;
  fxc_path_zero_state(c, p);
  memset(h, 0, fxc_hist_len(p->K, c->channels) * sizeof(double));
  if (!zero && n > 0) {
    for (size_t ch = 0; ch < C; ch++) {
      double u = c->format == FX_SAMPLE_F64 ? ((const double *) win)[ch]
                                            : (double) ((const float *) win)[ch];
      double *hn = h + ch * ((size_t) p->K + 1) * 2;
      hn[0] = hn[1] = u;
      for (int s = 0; s < p->K; s++) {
        const double *d = coef + 5 * (size_t) s;
        const double g = (d[0] + d[1] + d[2]) / (1.0 + d[3] + d[4]);
        const double v = g * u;
        hn[2 * s + 2] = hn[2 * s + 3] = v;
        u = v;
      }
    }
    fxc_transfer(c, h, coef, p->K, p->state, p->K);
  }
  if (n > 0)
    fxc_run_path(c, p, h, win, n);
}

/* Stage s's own boundary history ([C][K+1][2]) as a standalone engine would have it: its input
 * (the junction signal times the junction gains), the inner boundaries and its output. */
static void gather_hist(const fx_cascade_t *c, int s, double *h)
{
  const fx_stage_rt_t *st = &c->st[s];
  const fx_junction_t *j = &c->jn[s];
  const size_t C = (size_t) c->channels, K = (size_t) st->K, KT = (size_t) c->cur.K;
  for (size_t ch = 0; ch < C; ch++) {
    const double *src = c->hist + (ch * (KT + 1) + (size_t) st->k0) * 2;
    double *dst = h + ch * (K + 1) * 2;
    memcpy(dst, src, (K + 1) * 2 * sizeof(double));
    dst[0] = src[0] * j->Gl;
    dst[1] = src[1] * j->Gp;
    if (st->yh_valid) {
      dst[2 * K] = st->yh[2 * ch];
      dst[2 * K + 1] = st->yh[2 * ch + 1];
    }
  }
}

int fxc_stage_differs(const fx_cascade_t *c, int s, const fx_new_stage_t *ns)
{
  const fx_stage_rt_t *st = &c->st[s];
  if (st->Kn != ns->Kn)
    return 1;
  for (size_t i = 0; i < (size_t) ns->K * 5; i++)
    if (st->pure[i] != ns->pure[i])
      return 1;
  return 0;
}

/* The DF-I transfer: the stage's history, its inner boundary signals brought to the new
 * balancing scale (cascade_sections.c, balance()), gives the new state. */
static void prepare_transfer(const fx_cascade_t *c, int s, fx_new_stage_t *ns)
{
  const fx_stage_rt_t *st = &c->st[s];
  gather_hist(c, s, ns->h);
  for (int j = 1; j < ns->K; j++) {
    if (fabs(ns->ex[j] - st->ex[j]) < 1e-9) /* same balancing: keep the history exact */
      continue;
    const double g = exp2(ns->ex[j] - st->ex[j]);
    for (size_t ch = 0; ch < (size_t) c->channels; ch++) {
      double *h = ns->h + (ch * ((size_t) ns->K + 1) + (size_t) j) * 2;
      h[0] *= g;
      h[1] *= g;
    }
  }
  fxc_transfer(c, ns->h, ns->pure, ns->K, ns->state, ns->K);
}

/* The warm-up on the stage's recent input: the junction's signal, after its gains (then the
 * sections run as they are) or before them (then with the junction gain folded in). */
static fx_status_t prepare_warm_up(fx_cascade_t *c, int s, fx_new_stage_t *ns)
{
  const int C = c->channels;
  const size_t fill = fxc_ring_fill(c);
  const size_t need = fxc_warm_need(ns->pure, ns->K);
  size_t n = need < FX_RING ? need : FX_RING;
  const int zero = c->ring_total <= FX_RING && n >= fill;
  if (n > fill)
    n = fill;
  /* Sections slower than the window (or than the input kept so far) start with part of their
   * transient left: it decays with their slowest pole, so the crossfade to them lasts until
   * they have run `need` frames in all. Its weight then rises as slowly as the residual decays,
   * which keeps the transient a small fraction of it. From the zero state at the start of the
   * stream the warm-up is exact. */
  ns->xf_min = 0;
  if (!zero && n < need)
    ns->xf_min = need - n < FX_XF_MAX ? need - n : FX_XF_MAX;
  if (!fxc_grow(&c->warm, &c->warm_bytes, c->ring_len * fxc_frame_bytes(c), 1))
    return FX_ERR_NOMEM;
  size_t m = n;
  int post = 1;
  void *win = c->warm;
  if (n > 0) {
    win = fxc_junction_signal(c, s, n, &m, &post);
    if (!win)
      return FX_ERR_NOMEM;
    win = (unsigned char *) win + (m - n) * fxc_frame_bytes(c);
  }
  fx_path_t p = {0};
  const size_t K = (size_t) ns->K;
  double *coef = malloc(K * 5 * sizeof(double));
  if (!coef || !fxc_path_reserve(&p, ns->K, C)) {
    free(coef);
    fxc_path_free(&p);
    return FX_ERR_NOMEM;
  }
  p.K = ns->K;
  const double g = post ? 1.0 : c->jn[s].Gl;
  for (size_t i = 0; i < K * 5; i++)
    coef[i] = i < 3 ? ns->pure[i] * g : ns->pure[i];
  fxc_path_load(c, &p, coef);
  fxc_warm_path(c, &p, coef, ns->h, win, n, zero);
  fx_num_copy(ns->state, 0, p.state, 0, K * 2 * (size_t) C, c->dbl);
  free(coef);
  fxc_path_free(&p);
  c->warm_frames += n;
  return FX_OK;
}

/* Builds the new stage's state and history (changed stages only) from the running cascade,
 * which is not modified. */
fx_status_t fxc_prepare_stage(fx_cascade_t *c, int s, fx_new_stage_t *ns)
{
  const fx_stage_rt_t *st = &c->st[s];
  const int C = c->channels;
  ns->state = NULL;
  ns->h = NULL;
  ns->xf_min = 0;
  ns->changed = fxc_stage_differs(c, s, ns);
  if (!ns->changed)
    return FX_OK;
  const size_t sn = (size_t) ns->K * 2 * (size_t) C;
  ns->state = calloc(sn ? sn : 1, sizeof(double));
  ns->h = calloc(fxc_hist_len(ns->K, C) + 1, sizeof(double));
  if (!ns->state || !ns->h)
    return FX_ERR_NOMEM;
  ns->warm = st->Kn != ns->Kn || fxc_pole_distance(st->pure, ns->pure, ns->K) > FX_WARM_THRESHOLD ||
             fxc_slow_after_change(st->pure, ns->pure, ns->K);
  if (ns->warm)
    return prepare_warm_up(c, s, ns);
  prepare_transfer(c, s, ns);
  return FX_OK;
}
