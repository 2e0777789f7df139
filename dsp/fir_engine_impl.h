/* gst-fx — the FIR engine for one sample type, included twice by fir.c with FIR_T (float or
 * double), FIR_SUF (f32 or f64) and FIR_FFTW(x) (fftwf_x or fftw_x) defined. Internal.
 * SPDX-License-Identifier: GPL-3.0-or-later */

#define FE_CAT2(a, b) a##_##b
#define FE_CAT(a, b) FE_CAT2(a, b)
#define FE(x) FE_CAT(x, FIR_SUF)

/* One FFT level: block B, P partitions of the kernel segment [B, B + P*B) ∩ [B, end). Its
 * output for input block m (available when block m is complete) is the segment's contribution to
 * output block m + 1, because the segment starts B taps in. Every channel has its own real-input
 * transforms of 2B points (r2c/c2r, B + 1 bins): channels never share a transform, so a channel's
 * output depends on that channel's input alone, with that channel's own rounding (a loud, NaN or
 * Inf neighbour cannot leak into it as it would through a shared complex transform). A channel's
 * real transform is FFTW's complex transform of B points of its block read as B complex values
 * (even + i odd samples) plus the kernels' r2c_post / c2r_pre (fir_kernel.h): what FFTW's own
 * r2c/c2r do, with the O(B) steps in the vector kernels. */
typedef struct {
  size_t B, P, S; /* block, partitions, spectrum stride (>= 2B + 2 reals, 64-byte multiple) */
  size_t pos;     /* frames of the current block received */
  size_t slot;    /* ring slot the next spectrum goes to */
  const fir_plan_t *plan; /* complex, B points (a real transform of 2B points) */
  FIR_T *tw;              /* twiddles for r2c_post / c2r_pre (fir_kernel.h): tu at 0, tv at S */
  FIR_T *H;               /* P spectra of the segment as (re, re) and (-im, im) per bin, S reals
                           * each, scaled by 1/(2B) */
  FIR_T **in2;            /* per channel: previous and current input block (2B reals) */
  FIR_T **X;              /* per channel: ring of P input spectra (B + 1 complex, stride S) */
  FIR_T **out;            /* per channel: this level's contribution to the current block (B) */
} FE(fir_level_t);

typedef struct {
  int channels, nlev;
  size_t nh;      /* taps done directly (head); 0 with a block latency (the head is all zeros) */
  size_t nh1;     /* history frames kept for the head: nh - 1, or 0 */
  FIR_T *hr;      /* head taps reversed, in the dot kernel's layout (fir_kernel.h) */
  FIR_T **work;   /* per channel: nh - 1 frames of history + FIR_CHUNK */
  FIR_T **y;      /* per channel: output of a chunk */
  FIR_T **zp;     /* per channel: scratch pointers for (de)interleaving */
  FIR_T *Y, *tmp; /* level scratch (largest level): one spectrum, one block pair */
  FE(fir_level_t) lev[32];
  void (*dot)(const FIR_T *, size_t, const FIR_T *, FIR_T *, size_t);
  void (*cmac)(FIR_T *, const FIR_T *, const FIR_T *, size_t, size_t, size_t, size_t);
  void (*deint2)(const FIR_T *, FIR_T *, FIR_T *, size_t);
  void (*int2)(FIR_T *, const FIR_T *, const FIR_T *, size_t, int);
  void (*post)(FIR_T *, const FIR_T *, const FIR_T *, size_t);
  void (*pre)(FIR_T *, const FIR_T *, const FIR_T *, size_t);
} FE(fir_impl_t);

static FIR_T *FE(fir_alloc)(size_t n)
{
  FIR_T *p = FIR_FFTW(malloc)((n ? n : 1) * sizeof(FIR_T));
  if (p)
    memset(p, 0, (n ? n : 1) * sizeof(FIR_T));
  return p;
}

static FIR_T **FE(fir_alloc_per_channel)(int channels, size_t n)
{
  FIR_T **a = calloc((size_t) channels, sizeof *a);
  if (!a)
    return NULL;
  for (int c = 0; c < channels; c++) {
    a[c] = FE(fir_alloc)(n);
    if (!a[c]) {
      for (int k = 0; k < c; k++)
        FIR_FFTW(free)(a[k]);
      free(a);
      return NULL;
    }
  }
  return a;
}

static void FE(fir_free_per_channel)(FIR_T **a, int channels)
{
  if (!a)
    return;
  for (int c = 0; c < channels; c++)
    FIR_FFTW(free)(a[c]);
  free(a);
}

static void FE(fir_destroy)(void *impl)
{
  FE(fir_impl_t) *f = impl;

  if (!f)
    return;
  FIR_FFTW(free)(f->hr);
  FE(fir_free_per_channel)(f->work, f->channels);
  FE(fir_free_per_channel)(f->y, f->channels);
  free(f->zp);
  FIR_FFTW(free)(f->Y);
  FIR_FFTW(free)(f->tmp);
  for (int l = 0; l < f->nlev; l++) {
    FE(fir_level_t) *L = &f->lev[l];
    FIR_FFTW(free)(L->H);
    FIR_FFTW(free)(L->tw);
    FE(fir_free_per_channel)(L->in2, f->channels);
    FE(fir_free_per_channel)(L->X, f->channels);
    FE(fir_free_per_channel)(L->out, f->channels);
  }
  free(f);
}

static void FE(fir_reset)(void *impl)
{
  FE(fir_impl_t) *f = impl;

  for (int c = 0; c < f->channels; c++)
    memset(f->work[c], 0, (f->nh1 + FIR_CHUNK) * sizeof(FIR_T));
  for (int l = 0; l < f->nlev; l++) {
    FE(fir_level_t) *L = &f->lev[l];
    L->pos = 0;
    L->slot = 0;
    for (int c = 0; c < f->channels; c++) {
      memset(L->in2[c], 0, 2 * L->B * sizeof(FIR_T));
      memset(L->X[c], 0, L->P * L->S * sizeof(FIR_T));
      memset(L->out[c], 0, L->B * sizeof(FIR_T));
    }
  }
}

/* Input block complete for channel c of level L: spectrum into the ring, the sum over the
 * partitions, back to time: the level's output for the next block. */
static void FE(fir_level_step)(FE(fir_impl_t) * f, FE(fir_level_t) * L, int c)
{
  size_t B = L->B, nr = 2 * B + 2, S = L->S, slot = L->slot;
  FIR_T *x = L->X[c], *Y = f->Y;

  FIR_FFTW(execute_dft)
  (L->plan->fwd, (FIR_FFTW(complex) *) L->in2[c], (FIR_FFTW(complex) *) (x + slot * S));
  f->post(x + slot * S, L->tw, L->tw + S, B);
  f->cmac(Y, L->H, x, S, L->P, slot, nr);
  /* c2r_pre works in place: Y is scratch, overwritten by the next cmac */
  f->pre(Y, L->tw, L->tw + S, B);
  FIR_FFTW(execute_dft)(L->plan->bwd, (FIR_FFTW(complex) *) Y, (FIR_FFTW(complex) *) f->tmp);
  memcpy(L->out[c], f->tmp + B, B * sizeof(FIR_T));
  memcpy(L->in2[c], L->in2[c] + B, B * sizeof(FIR_T));
}

/* More than two channels: frames split into (and merged from) the per-channel arrays in tiles
 * of FIR_TILE frames, all channels per tile, so the tile of interleaved data stays in L1 while
 * every channel is taken from it (one strided pass per channel over a whole chunk of many
 * channels runs from L2). */
#define FIR_TILE 64
static void FE(fir_deint)(const FIR_T *in, size_t C, FIR_T *const *z, size_t n)
{
  for (size_t i0 = 0; i0 < n; i0 += FIR_TILE) {
    size_t i1 = n - i0 < FIR_TILE ? n : i0 + FIR_TILE;
    for (size_t c = 0; c < C; c++) {
      FIR_T *zc = z[c];
      for (size_t i = i0; i < i1; i++)
        zc[i] = in[i * C + c];
    }
  }
}

static void FE(fir_interl)(FIR_T *out, size_t C, FIR_T *const *o, size_t n, int add)
{
  for (size_t i0 = 0; i0 < n; i0 += FIR_TILE) {
    size_t i1 = n - i0 < FIR_TILE ? n : i0 + FIR_TILE;
    for (size_t c = 0; c < C; c++) {
      const FIR_T *oc = o[c];
      if (add)
        for (size_t i = i0; i < i1; i++)
          out[i * C + c] += oc[i];
      else
        for (size_t i = i0; i < i1; i++)
          out[i * C + c] = oc[i];
    }
  }
}
#undef FIR_TILE

/* No head (a block latency): the levels read the interleaved input and write the interleaved
 * output directly. in may equal out: every level takes its input before any output is written. */
static void FE(fir_chunk_levels_only)(FE(fir_impl_t) * f, const FIR_T *in, FIR_T *out,
                                      size_t frames)
{
  size_t C = (size_t) f->channels;

  for (int l = 0; l < f->nlev; l++) {
    FE(fir_level_t) *L = &f->lev[l];
    if (C == 2) {
      f->deint2(in, L->in2[0] + L->B + L->pos, L->in2[1] + L->B + L->pos, frames);
      continue;
    }
    if (C == 1) {
      memcpy(L->in2[0] + L->B + L->pos, in, frames * sizeof(FIR_T));
      continue;
    }
    for (size_t c = 0; c < C; c++)
      f->zp[c] = L->in2[c] + L->B + L->pos;
    FE(fir_deint)(in, C, f->zp, frames);
  }
  for (int l = 0; l < f->nlev; l++) {
    FE(fir_level_t) *L = &f->lev[l];
    if (C == 2) {
      f->int2(out, L->out[0] + L->pos, L->out[1] + L->pos, frames, l > 0);
      continue;
    }
    if (C == 1 && l == 0) {
      memcpy(out, L->out[0] + L->pos, frames * sizeof(FIR_T));
      continue;
    }
    for (size_t c = 0; c < C; c++)
      f->zp[c] = L->out[c] + L->pos;
    FE(fir_interl)(out, C, f->zp, frames, l > 0);
  }
  for (int l = 0; l < f->nlev; l++) {
    FE(fir_level_t) *L = &f->lev[l];
    if (L->pos + frames == L->B)
      for (int c = 0; c < f->channels; c++)
        FE(fir_level_step)(f, L, c);
    L->pos += frames;
    if (L->pos == L->B) {
      L->pos = 0;
      L->slot = (L->slot + 1) % L->P;
    }
  }
}

/* frames <= FIR_CHUNK, and no level boundary inside (except at the end). */
static void FE(fir_chunk)(FE(fir_impl_t) * f, const FIR_T *in, FIR_T *out, size_t frames)
{
  int C = f->channels;
  size_t nh1 = f->nh1;

  if (f->nh == 0) {
    FE(fir_chunk_levels_only)(f, in, out, frames);
    return;
  }

  if (C == 2) {
    f->deint2(in, f->work[0] + nh1, f->work[1] + nh1, frames);
  } else {
    for (int c = 0; c < C; c++)
      f->zp[c] = f->work[c] + nh1;
    FE(fir_deint)(in, (size_t) C, f->zp, frames);
  }
  for (int c = 0; c < C; c++)
    f->dot(f->hr, f->nh, f->work[c], f->y[c], frames);
  for (int l = 0; l < f->nlev; l++) {
    FE(fir_level_t) *L = &f->lev[l];
    for (int c = 0; c < C; c++) {
      const FIR_T *x = f->work[c] + nh1, *o = L->out[c] + L->pos;
      FIR_T *y = f->y[c];
      for (size_t i = 0; i < frames; i++)
        y[i] += o[i];
      memcpy(L->in2[c] + L->B + L->pos, x, frames * sizeof(FIR_T));
      if (L->pos + frames == L->B)
        FE(fir_level_step)(f, L, c);
    }
    L->pos += frames;
    if (L->pos == L->B) {
      L->pos = 0;
      L->slot = (L->slot + 1) % L->P;
    }
  }
  if (C == 2)
    f->int2(out, f->y[0], f->y[1], frames, 0);
  else
    FE(fir_interl)(out, (size_t) C, f->y, frames, 0);
  for (int c = 0; c < C && nh1; c++)
    memmove(f->work[c], f->work[c] + frames, nh1 * sizeof(FIR_T));
}

static void FE(fir_process)(void *impl, const void *vin, void *vout, size_t frames)
{
  FE(fir_impl_t) *f = impl;
  const FIR_T *in = vin;
  FIR_T *out = vout;
  size_t C = (size_t) f->channels;

  while (frames > 0) {
    size_t n = frames < FIR_CHUNK ? frames : FIR_CHUNK;
    if (f->nlev > 0 && n > f->lev[0].B - f->lev[0].pos)
      n = f->lev[0].B - f->lev[0].pos;
    FE(fir_chunk)(f, in, out, n);
    in += n * C;
    out += n * C;
    frames -= n;
  }
}

static const fir_engine_ops_t FE(fir_ops) = {FE(fir_process), FE(fir_reset), FE(fir_destroy)};

static fx_status_t FE(fir_engine_init)(fx_fir_engine_t *e, const double *taps, size_t n,
                                       int channels, int partitioned, size_t lat,
                                       const fx_fir_options_t *o, const fx_fir_kernels_t *k)
{
  FE(fir_impl_t) *f = calloc(1, sizeof *f);
  size_t maxB = 0;

  if (!f)
    return FX_ERR_NOMEM;
  f->channels = channels;
  f->dot = k->FE(dot);
  f->cmac = k->FE(cmac);
  f->deint2 = k->FE(deint2);
  f->int2 = k->FE(int2);
  f->post = k->FE(r2c_post);
  f->pre = k->FE(c2r_pre);
  /* With a block latency lat the engine runs the kernel delayed by lat taps (lat zeros first):
   * the first level's block is lat and there are no head taps to run directly. */
  size_t n0 = n;
  n += lat;
  f->nh = lat ? 0 : partitioned ? o->head : n;
  if (f->nh > n)
    f->nh = n;
  f->nh1 = f->nh ? f->nh - 1 : 0;
  {
    size_t lanes = (size_t) k->FE(lanes), K = f->nh + lanes - 1;
    f->hr = FE(fir_alloc)(K * lanes);
    if (f->hr)
      for (size_t kk = 0; kk < K; kk++)
        for (size_t t = 0; t < lanes; t++)
          if (kk >= t && kk - t < f->nh)
            f->hr[kk * lanes + t] = (FIR_T) taps[f->nh - 1 - (kk - t)];
  }
  f->work = FE(fir_alloc_per_channel)(channels, f->nh1 + FIR_CHUNK);
  f->y = FE(fir_alloc_per_channel)(channels, FIR_CHUNK);
  f->zp = calloc((size_t) channels, sizeof *f->zp);
  if (!f->hr || !f->work || !f->y || !f->zp)
    goto nomem;

  if (partitioned) {
    size_t B = lat ? lat : o->head;
    while (B < n && f->nlev < 32) {
      FE(fir_level_t) *L = &f->lev[f->nlev];
      /* a level ends where the next would start (B * factor), or at the kernel's end when it is
       * the largest block or when the next level would get at most one partition (one more FFT
       * size for so few taps costs more than a few more partitions here) */
      size_t end = (B >= o->max_block || B * o->factor * 2 >= n) ? n : B * o->factor;
      L->B = B;
      L->P = (end - B + B - 1) / B;
      L->S = round_elems(2 * B + 2, sizeof(FIR_T));
      L->plan = get_plans(sizeof(FIR_T) == sizeof(double), 2 * B, o->fftw_measure);
      L->H = FE(fir_alloc)(2 * L->P * L->S);
      L->tw = FE(fir_alloc)(2 * L->S);
      L->in2 = FE(fir_alloc_per_channel)(channels, 2 * B);
      L->X = FE(fir_alloc_per_channel)(channels, L->P * L->S);
      L->out = FE(fir_alloc_per_channel)(channels, B);
      f->nlev++;
      if (!L->plan || !L->H || !L->tw || !L->in2 || !L->X || !L->out)
        goto nomem;
      /* W^k = exp(-i pi k / B), exact at k = 0 and B / 2 */
      for (size_t j = 0; j < B; j++) {
        double a = M_PI * (double) j / (double) B;
        double wr = 2 * j == B ? 0.0 : cos(a), wi = 2 * j == B ? -1.0 : -sin(a);
        L->tw[2 * j] = L->tw[2 * j + 1] = (FIR_T) wi;
        L->tw[L->S + 2 * j] = (FIR_T) -wr;
        L->tw[L->S + 2 * j + 1] = (FIR_T) wr;
      }
      if (B > maxB)
        maxB = B;
      if (end == n)
        break;
      B *= o->factor;
    }
    f->Y = FE(fir_alloc)(round_elems(2 * maxB + 2, sizeof(FIR_T)));
    f->tmp = FE(fir_alloc)(round_elems(2 * maxB, sizeof(FIR_T)));
    if (!f->Y || !f->tmp)
      goto nomem;
    /* the segment spectra: partition p of level l holds taps [B + pB, B + (p+1)B) */
    for (int l = 0; l < f->nlev; l++) {
      FE(fir_level_t) *L = &f->lev[l];
      for (size_t p = 0; p < L->P; p++) {
        size_t first = L->B + p * L->B;
        memset(f->tmp, 0, 2 * L->B * sizeof(FIR_T));
        for (size_t i = 0; i < L->B && first + i < n; i++)
          if (first + i >= lat)
            f->tmp[i] = (FIR_T) (taps[first + i - lat] / (2.0 * (double) L->B));
        FIR_T *hd = L->H + 2 * p * L->S, *hs = hd + L->S;
        FIR_FFTW(execute_dft)
        (L->plan->fwd, (FIR_FFTW(complex) *) f->tmp, (FIR_FFTW(complex) *) f->Y);
        f->post(f->Y, L->tw, L->tw + L->S, L->B);
        for (size_t j = 0; j <= L->B; j++) {
          FIR_T re = f->Y[2 * j], im = f->Y[2 * j + 1];
          hd[2 * j] = hd[2 * j + 1] = re;
          hs[2 * j] = -im;
          hs[2 * j + 1] = im;
        }
      }
    }
  }
  e->impl = f;
  e->ops = &FE(fir_ops);
  e->levels = f->nlev;
  e->latency = lat;
  (void) n0;
  FE(fir_reset)(f);
  return FX_OK;

nomem:
  FE(fir_destroy)(f);
  return FX_ERR_NOMEM;
}

#undef FE
#undef FE_CAT
#undef FE_CAT2
