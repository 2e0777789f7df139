/* gst-fx — the SOS cascade engine: installing stages (fx_cascade_set_stages()). Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A call goes through named phases (docs/cascade.md, "Installing stages"):
 *   parse_stages()       the stages as the engine will hold them (balanced coefficients, junctions)
 *   install_fresh()      a new structure, or no history to keep: switch at once
 *   record_junctions()   records of the junctions after changing stages (exact later warm-ups)
 *   prepare_changes()    the new state and history of each changed stage (cascade_transfer.c)
 *   reserve_transition() everything the transition allocates, before anything changes
 *   start_crossfades()   the changed stages' running sections become their old paths
 *   relayout()           the new section layout when a stage's section count changes
 *   install_changed()    the changed stages' coefficients, state and history into `cur`
 * and the new gain targets, which ramp over the next process() call. Everything that can fail
 * happens before the running cascade is modified, except records (they only cost exactness). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cascade_impl.h"

/* The stages of one call, parsed. */
typedef struct {
  int S;               /* SECTIONS stages (one identity stage when there is none) */
  int *jn_n;           /* [S + 1] gains per junction */
  const double **jn_g; /* [S + 1] each junction's gains (into `gains`) */
  double *gains;       /* [n_stages + 1] */
  fx_new_stage_t *ns;  /* [S] */
} fx_stage_set_t;

/* The section layout and buffers of a transition (reserve_transition()). */
typedef struct {
  int KT;                     /* sections in the new layout */
  int relayout;               /* a stage's section count changes */
  int do_xf;                  /* crossfade the changes (else switch at once) */
  int *ok0, *nk0, *Ks, *keep; /* [S] old and new first section, sections, count kept */
  fx_path_t ncur;             /* with relayout: the new `cur`, hist and checkpoints */
  double *nhist;
  fx_checkpoint_t nck[2];
} fx_layout_t;

static fx_status_t check_stage(const fx_cascade_stage_t *st)
{
  if (st->kind == FX_CASCADE_STAGE_GAIN)
    return isfinite(st->gain) ? FX_OK : FX_ERR_GAIN;
  if (st->kind != FX_CASCADE_STAGE_SECTIONS)
    return FX_ERR_TYPE;
  if (st->n < 0 || (st->n > 0 && !st->sos))
    return FX_ERR_ARG;
  if (!isfinite(st->gain))
    return FX_ERR_GAIN;
  for (int s = 0; s < st->n; s++) {
    if (!fx_sos_is_finite(&st->sos[s]))
      return FX_ERR_NONFINITE;
    if (!fx_sos_is_stable(&st->sos[s]))
      return FX_ERR_UNSTABLE;
  }
  /* The gain must not overflow the first numerator. */
  if (st->n > 0 && (!isfinite(st->sos[0].b0 * st->gain) || !isfinite(st->sos[0].b1 * st->gain) ||
                    !isfinite(st->sos[0].b2 * st->gain)))
    return FX_ERR_GAIN;
  return FX_OK;
}

static void stage_set_free(fx_stage_set_t *set)
{
  for (int s = 0; set->ns && s < set->S; s++) {
    free(set->ns[s].pure);
    free(set->ns[s].ex);
    free(set->ns[s].state);
    free(set->ns[s].h);
  }
  free(set->ns);
  free(set->jn_n);
  free(set->jn_g);
  free(set->gains);
}

/* A new stage of Kn nominal sections (identity coefficients when Kn == 0). */
static int new_stage(fx_new_stage_t *ns, int Kn)
{
  ns->Kn = Kn;
  ns->K = Kn > 0 ? Kn : 1;
  ns->pure = malloc(((size_t) ns->K + 1) * 5 * sizeof(double));
  ns->ex = malloc(((size_t) ns->K + 2) * sizeof(double));
  if (!ns->pure || !ns->ex)
    return 0;
  if (Kn == 0) {
    const double id[5] = {1.0, 0.0, 0.0, 0.0, 0.0};
    memcpy(ns->pure, id, sizeof(id));
    ns->ex[0] = ns->ex[1] = 0.0;
  }
  return 1;
}

/* The structure: S SECTIONS stages (an identity one when there is none) and S + 1 junctions. */
static fx_status_t parse_stages(const fx_cascade_stage_t *stages, int n_stages, fx_stage_set_t *set)
{
  int S = 0;
  for (int i = 0; i < n_stages; i++)
    S += stages[i].kind == FX_CASCADE_STAGE_SECTIONS;
  const int implicit = S == 0;
  if (implicit)
    S = 1;
  set->S = S;
  set->jn_n = calloc((size_t) S + 1, sizeof(int));
  set->jn_g = calloc((size_t) S + 1, sizeof(double *));
  set->gains = calloc((size_t) n_stages + 1, sizeof(double));
  set->ns = calloc((size_t) S, sizeof(*set->ns));
  if (!set->jn_n || !set->jn_g || !set->gains || !set->ns)
    return FX_ERR_NOMEM;
  int s = 0, ng = 0;
  set->jn_g[0] = set->gains;
  for (int i = 0; i < n_stages; i++) {
    const fx_cascade_stage_t *st = &stages[i];
    if (st->kind == FX_CASCADE_STAGE_GAIN) {
      set->gains[ng++] = st->gain;
      set->jn_n[s]++;
      continue;
    }
    /* n == 0 with a gain: one gain-only section, so that the gain is honoured */
    if (!new_stage(&set->ns[s], st->n == 0 && st->gain != 1.0 ? 1 : st->n))
      return FX_ERR_NOMEM;
    if (set->ns[s].Kn > 0)
      fxc_build_coefs(st->sos, st->n, st->gain, set->ns[s].pure, set->ns[s].ex);
    s++;
    set->jn_g[s] = set->gains + ng;
  }
  if (implicit) {
    if (!new_stage(&set->ns[0], 0))
      return FX_ERR_NOMEM;
    set->jn_g[1] = set->gains + set->jn_n[0];
  }
  return FX_OK;
}

static int same_structure(const fx_cascade_t *c, const fx_stage_set_t *set)
{
  if (!c->installed || c->S != set->S)
    return 0;
  for (int j = 0; j <= set->S; j++)
    if (c->jn[j].n != set->jn_n[j])
      return 0;
  return 1;
}

/* Installs a new structure at once (no history to keep, or a different structure). */
static fx_status_t install_fresh(fx_cascade_t *c, fx_stage_set_t *set)
{
  const int C = c->channels, S = set->S;
  fx_new_stage_t *ns = set->ns;
  int KT = 0;
  for (int s = 0; s < S; s++)
    KT += ns[s].K;
  fx_stage_rt_t *st = calloc((size_t) S, sizeof(*st));
  fx_junction_t *jn = calloc((size_t) S + 1, sizeof(*jn));
  const size_t ring_len = S > 1 ? FX_RING2 : FX_RING;
  int ok = st && jn && fxc_path_reserve(&c->cur, KT, C) &&
           (C == 0 || !c->history ||
            fxc_grow(&c->ring, &c->ring_bytes, ring_len * (size_t) C * fxc_sample_size(c), 1)) &&
           fxc_grow((void **) &c->hist, &c->hist_cap, fxc_hist_len(KT, C), sizeof(double)) &&
           fxc_grow((void **) &c->jold, &c->jold_cap, ((size_t) S + 1) * (size_t) C * 2,
                    sizeof(double)) &&
           fxc_grow((void **) &c->seg, &c->seg_cap, (size_t) S + 1, sizeof(int)) &&
           fxc_reserve_checkpoints(c, KT, C) && fxc_chunk_reserve(c, KT, C);
  for (int s = 0; ok && s < S; s++)
    ok = (st[s].yh = calloc((size_t) (C > 0 ? C : 1) * 2, sizeof(double))) != NULL;
  for (int j = 0; ok && j <= S; j++) {
    jn[j].n = set->jn_n[j];
    ok = (jn[j].target = calloc((size_t) jn[j].n + 1, sizeof(double))) != NULL &&
         (jn[j].applied = calloc((size_t) jn[j].n + 1, sizeof(double))) != NULL;
    for (int i = 0; ok && i < jn[j].n; i++)
      jn[j].target[i] = jn[j].applied[i] = set->jn_g[j][i];
  }
  if (!ok) {
    if (st)
      for (int s = 0; s < S; s++)
        free(st[s].yh);
    if (jn)
      for (int j = 0; j <= S; j++)
        fxc_junction_free(&jn[j]);
    free(st);
    free(jn);
    return FX_ERR_NOMEM;
  }
  fxc_structure_free(c);
  c->st = st;
  c->jn = jn;
  c->S = S;
  c->ring_len = ring_len;
  c->installed = 1;
  c->cur.K = KT;
  int k0 = 0;
  for (int s = 0; s < S; s++) {
    st[s].Kn = ns[s].Kn;
    st[s].K = ns[s].K;
    st[s].k0 = k0;
    st[s].pure = ns[s].pure;
    st[s].ex = ns[s].ex;
    ns[s].pure = ns[s].ex = NULL;
    for (size_t i = 0; i < (size_t) st[s].K * 5; i++)
      fx_num_set(c->cur.coef, c->dbl, 5 * (size_t) k0 + i, st[s].pure[i]);
    k0 += st[s].K;
  }
  fxc_clear_stream(c);
  return FX_OK;
}

/* Records of the junctions after changing stages and of changing junctions, from the running
 * cascade, so that later warm-ups of the stages after them find their input exactly. A record
 * that cannot be made only costs exactness. */
static fx_status_t record_junctions(fx_cascade_t *c, const fx_stage_set_t *set)
{
  if (!fxc_grow(&c->warm, &c->warm_bytes, c->ring_len * fxc_frame_bytes(c), 1))
    return FX_ERR_NOMEM;
  for (int s = 0; s < set->S; s++) {
    for (int i = 0; i < set->jn_n[s]; i++)
      if (c->jn[s].target[i] != set->jn_g[s][i] && fxc_ensure_record(c, s))
        c->jn[s].sticky_until = c->ring_total + FX_RING2;
    if (fxc_stage_differs(c, s, &set->ns[s]) && s + 1 < set->S && fxc_ensure_record(c, s + 1))
      c->jn[s + 1].sticky_until = c->ring_total + FX_RING2;
  }
  return FX_OK;
}

/* The new states and histories of the changed stages, from the running cascade. *any: a stage
 * changed. */
static fx_status_t prepare_changes(fx_cascade_t *c, fx_stage_set_t *set, int *any)
{
  *any = 0;
  for (int s = 0; s < set->S; s++) {
    const fx_status_t ret = fxc_prepare_stage(c, s, &set->ns[s]);
    if (ret != FX_OK)
      return ret;
    *any |= set->ns[s].changed;
  }
  return FX_OK;
}

static void layout_free(fx_layout_t *L)
{
  free(L->ok0);
  fxc_path_free(&L->ncur);
  free(L->nhist);
  for (int i = 0; i < 2; i++)
    free(L->nck[i].state);
  memset(L, 0, sizeof(*L));
}

/* The new layout, and everything the transition allocates: the crossfade scratch, the old paths
 * of the crossfades that start, and with a relayout the new arrays. */
static fx_status_t reserve_transition(fx_cascade_t *c, const fx_stage_set_t *set, fx_layout_t *L)
{
  const int C = c->channels, S = set->S;
  const fx_new_stage_t *ns = set->ns;
  memset(L, 0, sizeof(*L));
  L->ok0 = calloc((size_t) S * 4, sizeof(int));
  if (!L->ok0)
    return FX_ERR_NOMEM;
  L->nk0 = L->ok0 + S;
  L->Ks = L->ok0 + 2 * S;
  L->keep = L->ok0 + 3 * S;
  int want_xf = 0;
  for (int s = 0; s < S; s++) {
    L->ok0[s] = c->st[s].k0;
    L->nk0[s] = L->KT;
    L->Ks[s] = ns[s].K;
    L->keep[s] = c->st[s].K == ns[s].K;
    L->relayout |= !L->keep[s];
    L->KT += ns[s].K;
    want_xf |= ns[s].changed && !c->st[s].xf_active;
  }
  L->do_xf = c->xf_default > 0;
  if (want_xf && L->do_xf) {
    const size_t frames = c->xf_default < FX_XF_CHUNK ? c->xf_default : FX_XF_CHUNK;
    const size_t bytes = frames * (size_t) C * sizeof(double);
    if (bytes > c->scratch_bytes) {
      void *sc = realloc(c->scratch, bytes);
      if (sc) {
        c->scratch = sc;
        c->scratch_bytes = bytes;
      } else {
        L->do_xf = 0; /* no memory for a crossfade: switch at once (keeping the history) */
      }
    }
  }
  for (int s = 0; s < S && L->do_xf; s++) {
    fx_stage_rt_t *st = &c->st[s];
    if (!ns[s].changed || st->xf_active)
      continue;
    if (!fxc_path_reserve(&st->old, st->K, C) ||
        !fxc_grow((void **) &st->old_pure, &st->old_pure_n, (size_t) st->K * 5, sizeof(double))) {
      layout_free(L);
      return FX_ERR_NOMEM;
    }
  }
  if (L->relayout) {
    const size_t n = (size_t) L->KT * 2 * (size_t) C + 1;
    int ok = fxc_path_reserve(&L->ncur, L->KT, C) && fxc_chunk_reserve(c, L->KT, C) &&
             (L->nhist = calloc(fxc_hist_len(L->KT, C) + 1, sizeof(double))) != NULL;
    for (int i = 0; ok && i < 2; i++) {
      ok = (L->nck[i].state = calloc(n, sizeof(double))) != NULL;
      L->nck[i].cap = n;
    }
    if (!ok) {
      layout_free(L);
      return FX_ERR_NOMEM;
    }
  }
  return FX_OK;
}

/* The changed stages that are not crossfading yet start one: their old path takes the running
 * sections and state. Without a crossfade, running crossfades of the changed stages end. */
static void start_crossfades(fx_cascade_t *c, const fx_stage_set_t *set, const fx_layout_t *L)
{
  const size_t C = (size_t) c->channels, KT = (size_t) c->cur.K;
  for (int s = 0; s < set->S; s++) {
    fx_stage_rt_t *st = &c->st[s];
    const fx_new_stage_t *ns = &set->ns[s];
    if (!ns->changed)
      continue;
    if (!L->do_xf) {
      st->xf_active = 0;
      st->old.K = 0;
      continue;
    }
    if (st->xf_active)
      continue;
    const size_t K = (size_t) st->K, k0 = (size_t) st->k0;
    st->old.K = st->K;
    fx_num_copy(st->old.coef, 0, c->cur.coef, 5 * k0, K * 5, c->dbl);
    memcpy(st->old_pure, st->pure, K * 5 * sizeof(double));
    for (size_t ch = 0; ch < C; ch++)
      fx_num_copy(st->old.state, ch * K * 2, c->cur.state, (ch * KT + k0) * 2, K * 2, c->dbl);
    st->xf_active = 1;
    st->xf_len = c->xf_default > ns->xf_min ? c->xf_default : ns->xf_min;
    st->xf_pos = 0;
  }
}

/* Copies the kept stages' regions of a [C][KT][2] state layout into the new layout. */
static void remap_state(const fx_cascade_t *c, const fx_layout_t *L, const void *src, int KTo,
                        void *dst)
{
  for (int s = 0; s < c->S; s++) {
    if (!L->keep[s])
      continue;
    for (size_t ch = 0; ch < (size_t) c->channels; ch++)
      fx_num_copy(dst, (ch * (size_t) L->KT + (size_t) L->nk0[s]) * 2, src,
                  (ch * (size_t) KTo + (size_t) L->ok0[s]) * 2, (size_t) L->Ks[s] * 2, c->dbl);
  }
}

/* Moves `cur`, the history and the checkpoints to the new layout: the kept stages' coefficients
 * and state, the junction boundaries' history and the kept stages' inner boundaries. */
static void relayout(fx_cascade_t *c, fx_layout_t *L)
{
  const int S = c->S, KTo = c->cur.K, KT = L->KT;
  for (int s = 0; s < S; s++)
    if (L->keep[s])
      fx_num_copy(L->ncur.coef, 5 * (size_t) L->nk0[s], c->cur.coef, 5 * (size_t) L->ok0[s],
                  (size_t) L->Ks[s] * 5, c->dbl);
  remap_state(c, L, c->cur.state, KTo, L->ncur.state);
  for (int i = 0; i < 2; i++) {
    L->nck[i].pos = c->ck[i].pos;
    L->nck[i].valid = c->ck[i].valid;
    if (c->ck[i].valid)
      remap_state(c, L, c->ck[i].state, KTo, L->nck[i].state);
  }
  for (size_t ch = 0; ch < (size_t) c->channels; ch++) {
    const double *ho = c->hist + ch * ((size_t) KTo + 1) * 2;
    double *hn = L->nhist + ch * ((size_t) KT + 1) * 2;
    for (int s = 0; s < S; s++) {
      const size_t nb = L->keep[s] ? (size_t) L->Ks[s] : 1;
      memcpy(hn + 2 * (size_t) L->nk0[s], ho + 2 * (size_t) L->ok0[s], nb * 2 * sizeof(double));
    }
    memcpy(hn + 2 * (size_t) KT, ho + 2 * (size_t) KTo, 2 * sizeof(double));
  }
  fxc_path_free(&c->cur);
  c->cur = L->ncur;
  c->cur.K = KT;
  free(c->hist);
  c->hist = L->nhist;
  c->hist_cap = fxc_hist_len(KT, c->channels) + 1;
  for (int i = 0; i < 2; i++) {
    free(c->ck[i].state);
    c->ck[i] = L->nck[i];
  }
  for (int s = 0; s < S; s++)
    c->st[s].k0 = L->nk0[s];
  /* now owned by the engine */
  memset(&L->ncur, 0, sizeof(L->ncur));
  L->nhist = NULL;
  memset(L->nck, 0, sizeof(L->nck));
}

/* The changed stages' coefficients, state and inner history into `cur`. */
static void install_changed(fx_cascade_t *c, fx_stage_set_t *set)
{
  const size_t C = (size_t) c->channels;
  for (int s = 0; s < set->S; s++) {
    fx_stage_rt_t *st = &c->st[s];
    fx_new_stage_t *n = &set->ns[s];
    if (!n->changed)
      continue;
    free(st->pure);
    free(st->ex);
    st->pure = n->pure;
    st->ex = n->ex;
    n->pure = n->ex = NULL;
    st->Kn = n->Kn;
    st->K = n->K;
    const size_t k0 = (size_t) st->k0, K = (size_t) st->K, KT = (size_t) c->cur.K;
    for (size_t i = 0; i < K * 5; i++)
      fx_num_set(c->cur.coef, c->dbl, 5 * k0 + i, st->pure[i]);
    fxc_fold_stage(c, s, c->jn[s].Gl);
    for (size_t ch = 0; ch < C; ch++) {
      fx_num_copy(c->cur.state, (ch * KT + k0) * 2, n->state, ch * K * 2, K * 2, c->dbl);
      const double *h = n->h + ch * (K + 1) * 2;
      /* inner boundaries (the junction boundaries hold the junctions' signals) */
      if (K > 1)
        memcpy(c->hist + (ch * (KT + 1) + k0 + 1) * 2, h + 2, (K - 1) * 2 * sizeof(double));
      if (n->warm) {
        st->yh[2 * ch] = h[2 * K];
        st->yh[2 * ch + 1] = h[2 * K + 1];
      }
    }
    if (n->warm)
      st->yh_valid = 1;
    st->changed_at = c->ring_total;
  }
}

/* A transition of the same structure: the changed stages get their new state and crossfade;
 * unchanged stages go on as they are. */
static fx_status_t transition(fx_cascade_t *c, fx_stage_set_t *set)
{
  fx_status_t ret = record_junctions(c, set);
  int any = 0;
  if (ret == FX_OK)
    ret = prepare_changes(c, set, &any);
  if (ret != FX_OK || !any)
    return ret;
  fx_layout_t L;
  ret = reserve_transition(c, set, &L);
  if (ret != FX_OK)
    return ret;
  start_crossfades(c, set, &L);
  if (L.relayout)
    relayout(c, &L);
  install_changed(c, set);
  layout_free(&L);
  return FX_OK;
}

/* FX_PRECISION_AUTO: the arithmetic for this design (cascade_precision.c), switched before the
 * design is installed, so that its new state is derived in that arithmetic. A GPU offload keeps
 * the arithmetic it was set up with. */
static fx_status_t choose_arithmetic(fx_cascade_t *c, const fx_cascade_stage_t *stages,
                                     int n_stages, const fx_stage_set_t *set)
{
  if (c->format != FX_SAMPLE_F32 || c->precision != FX_PRECISION_AUTO)
    return FX_OK;
  const int S = set->S;
  int nraw = 0;
  for (int i = 0; i < n_stages; i++)
    if (stages[i].kind == FX_CASCADE_STAGE_SECTIONS)
      nraw += stages[i].n > 0 ? stages[i].n : 1;
  int *K = malloc((size_t) S * sizeof(int));
  const double **pure = malloc((size_t) S * sizeof(double *));
  double *g = malloc((size_t) S * sizeof(double));
  double *raw = malloc(((size_t) nraw + 1) * 5 * sizeof(double));
  fx_status_t ret = FX_ERR_NOMEM;
  if (!K || !pure || !g || !raw)
    goto out;
  for (int s = 0; s < S; s++) {
    K[s] = set->ns[s].K;
    pure[s] = set->ns[s].pure;
    g[s] = 1.0;
    for (int i = 0; i < set->jn_n[s]; i++)
      g[s] *= set->jn_g[s][i];
  }
  /* the caller's sections, each gain folded into the next section's numerator */
  double pend = 1.0;
  int r = 0;
  for (int i = 0; i < n_stages; i++) {
    const fx_cascade_stage_t *st = &stages[i];
    if (st->kind == FX_CASCADE_STAGE_GAIN) {
      pend *= st->gain;
      continue;
    }
    pend *= st->gain;
    if (st->n == 0) {
      const double id[5] = {pend, 0.0, 0.0, 0.0, 0.0};
      memcpy(raw + 5 * (size_t) r++, id, sizeof(id));
    }
    for (int k = 0; k < st->n; k++) {
      const fx_sos_t *q = &st->sos[k];
      const double row[5] = {q->b0 * pend, q->b1 * pend, q->b2 * pend, q->a1, q->a2};
      memcpy(raw + 5 * (size_t) r++, row, sizeof(row));
      pend = 1.0;
    }
  }
  const fxc_probe_design_t d = {S, K, pure, g, raw, r};
  const int dbl = fxc_auto_precision(c, &d);
  if (c->channels > 0 && !c->offload && dbl != c->dbl)
    fxc_set_arithmetic(c, dbl);
  ret = FX_OK; /* the chunked calls follow after the install (fx_cascade_set_stages()) */
out:
  free(K);
  free(pure);
  free(g);
  free(raw);
  return ret;
}

fx_status_t fx_cascade_set_stages(fx_cascade_t *c, const fx_cascade_stage_t *stages, int n_stages)
{
  if (!c || n_stages < 0 || (n_stages > 0 && !stages))
    return FX_ERR_ARG;
  for (int i = 0; i < n_stages; i++) {
    const fx_status_t e = check_stage(&stages[i]);
    if (e != FX_OK)
      return e;
  }
  fx_stage_set_t set = {0};
  fx_status_t ret = parse_stages(stages, n_stages, &set);
  if (ret == FX_OK)
    ret = choose_arithmetic(c, stages, n_stages, &set);
  if (ret == FX_OK) {
    if (c->fresh || c->channels == 0 || !same_structure(c, &set)) {
      ret = install_fresh(c, &set);
    } else {
      ret = transition(c, &set);
      /* new gain targets: they ramp over the next process() call */
      for (int j = 0; ret == FX_OK && j <= set.S; j++)
        for (int i = 0; i < set.jn_n[j]; i++)
          c->jn[j].target[i] = set.jn_g[j][i];
    }
  }
  /* which kernels the installed sections take (fxc_chunk_pays() counts them; the probe may have
   * changed its verdict even where the install failed) */
  if (c->channels > 0)
    fxc_chunk_policy(c);
  stage_set_free(&set);
  return ret;
}

fx_status_t fx_cascade_set_sections(fx_cascade_t *c, const fx_sos_t *sos, int n, double gain)
{
  if (!c || n < 0 || (n > 0 && !sos))
    return FX_ERR_ARG;
  const fx_cascade_stage_t st = {FX_CASCADE_STAGE_SECTIONS, sos, n, gain};
  return fx_cascade_set_stages(c, &st, 1);
}
