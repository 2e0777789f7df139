/* gst-fx — fuzz target: the SOS cascade engine (dsp/cascade.h) with random buffer splits compared
 * with one-shot processing.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * From the input: kernel (FX_KERNEL), format, precision, channels, stable sections (random poles
 * inside the unit circle, random zeros, random gains; as sections or as stages with gains),
 * coefficient changes at random frames, the signal, and a random split. Two engines get the same
 * stream and the same changes at the same frames; one processes each segment between changes in
 * one call, the other in the random pieces (empty calls included). Invariant (kernel.h): the
 * outputs are bit-identical when every call is shorter than 8192 frames, and agree within
 * rounding otherwise (the time-block path). Then a NaN is fed: the engine must report it and
 * come back clean (a zero buffer gives zeros). */
#include "cascade.h"
#include "fuzz.h"
#include "kernel.h"
#include "roots.h"

#define MAX_K 12
/* kernel.h: calls of at least this many frames may take the time-block path */
#define TB_MIN FX_KERNEL_SPLIT_EXACT_FRAMES

typedef struct {
  fx_sos_t sos[MAX_K];
  int k;
  double gain;
  int staged; /* 1: set as stages (sections, gain, sections) */
  int split;  /* stage split point */
} fuzz_design_t;

static void make_design(fuzz_in_t *in, fuzz_design_t *d)
{
  d->k = fuzz_u8(in) % (MAX_K + 1);
  d->gain = fuzz_range(in, -2.0, 2.0);
  d->staged = fuzz_u8(in) % 3 == 0;
  d->split = d->k ? fuzz_u8(in) % (d->k + 1) : 0;
  for (int i = 0; i < d->k; i++) {
    double r = fuzz_range(in, 0.0, 0.999), th = fuzz_range(in, 0.0, M_PI);
    fx_sos_t *s = &d->sos[i];
    if (fuzz_u8(in) % 4 == 0) {
      /* Two real poles. */
      double p1 = fuzz_range(in, -0.999, 0.999), p2 = fuzz_range(in, -0.999, 0.999);
      s->a1 = -(p1 + p2);
      s->a2 = p1 * p2;
    } else {
      s->a1 = -2.0 * r * cos(th);
      s->a2 = r * r;
    }
    s->b0 = fuzz_range(in, -2.0, 2.0);
    s->b1 = fuzz_range(in, -2.0, 2.0);
    s->b2 = fuzz_range(in, -2.0, 2.0);
  }
}

static fx_status_t install(fx_cascade_t *c, const fuzz_design_t *d)
{
  if (!d->staged)
    return fx_cascade_set_sections(c, d->sos, d->k, d->gain);
  {
    fx_cascade_stage_t st[3] = {
        {FX_CASCADE_STAGE_SECTIONS, d->sos, d->split, 1.0},
        {FX_CASCADE_STAGE_GAIN, NULL, 0, d->gain},
        {FX_CASCADE_STAGE_SECTIONS, d->sos + d->split, d->k - d->split, 1.0},
    };
    return fx_cascade_set_stages(c, st, 3);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const char *kernels[] = {"scalar", "sse2", "avx2", "avx512"};
  fuzz_in_t in = {data, size};
  uint8_t b = fuzz_u8(&in);
  fx_sample_format_t fmt = (b & 1) ? FX_SAMPLE_F64 : FX_SAMPLE_F32;
  fx_precision_t prec = (fx_precision_t) ((b >> 1) % 3);
  int channels = 1 + (fuzz_u8(&in) % 4 == 0 ? fuzz_u8(&in) % 16 : fuzz_u8(&in) % 2);
  size_t frames = fuzz_u8(&in) % 8 == 0 ? 8192 + fuzz_u32(&in) % 12000 : fuzz_u32(&in) % 3000;
  size_t bps = fmt == FX_SAMPLE_F64 ? 8 : 4, n = frames * (size_t) channels;
  size_t xfade = fuzz_u8(&in) % 2 ? 256 : fuzz_u8(&in) % 64;
  int n_changes = fuzz_u8(&in) % 4, long_call = 0;
  size_t change_at[4];
  fuzz_design_t designs[4];
  unsigned char *x, *y1, *y2;
  fx_cascade_t *c1 = fx_cascade_new(), *c2 = fx_cascade_new();
  double peak[16] = {0};

  setenv("FX_KERNEL", kernels[(b >> 3) % 4], 1);
  FUZZ_CHECK(c1 && c2, "allocation");
  FUZZ_CHECK(fx_cascade_configure(c1, channels, fmt, prec) == FX_OK, "configure");
  FUZZ_CHECK(fx_cascade_configure(c2, channels, fmt, prec) == FX_OK, "configure");
  fx_cascade_set_crossfade(c1, xfade);
  fx_cascade_set_crossfade(c2, xfade);
  for (int i = 0; i <= n_changes; i++) {
    make_design(&in, &designs[i]);
    change_at[i] = i == 0 ? 0 : (frames ? fuzz_u32(&in) % (frames + 1) : 0);
    if (i > 0 && change_at[i] < change_at[i - 1])
      change_at[i] = change_at[i - 1];
    /* A GAIN stage ramps over the next process() call (cascade.h, as fxgain does over the next
     * buffer), so a gain stage change depends on the split by design: staged designs keep one
     * gain. (Gains folded into sections crossfade over a fixed length like any other change.) */
    if (i > 0 && designs[i].staged)
      designs[i].gain = designs[0].gain;
  }

  if (getenv("FUZZ_VERBOSE")) {
    fprintf(stderr, "fmt %s prec %d ch %d frames %zu xfade %zu kernel %s changes %d\n",
            fmt == FX_SAMPLE_F64 ? "f64" : "f32", (int) prec, channels, frames, xfade,
            kernels[(b >> 3) % 4], n_changes);
    for (int i = 0; i <= n_changes; i++)
      fprintf(stderr, "  at %zu: k %d gain %g staged %d split %d\n", change_at[i], designs[i].k,
              designs[i].gain, designs[i].staged, designs[i].split);
    for (int i = 0; i <= n_changes; i++)
      for (int k = 0; k < designs[i].k; k++) {
        const fx_sos_t *q = &designs[i].sos[k];
        fprintf(stderr, "    sos %d: %.17g %.17g %.17g 1 %.17g %.17g\n", k, q->b0, q->b1, q->b2,
                q->a1, q->a2);
      }
  }
  x = malloc(n * bps + 1);
  y1 = malloc(n * bps + 1);
  y2 = malloc(n * bps + 1);
  {
    /* The signal: bytes of the input (cycled) as samples in [-1, 1], or a sine if none left. */
    const uint8_t *sig = in.p;
    size_t sig_n = in.n;
    for (size_t i = 0; i < n; i++) {
      double v = sig_n ? ((double) sig[i % sig_n] - 127.5) / 127.5 : sin(0.01 * (double) i);
      if (fmt == FX_SAMPLE_F64)
        ((double *) x)[i] = v;
      else
        ((float *) x)[i] = (float) v;
    }
  }
  memcpy(y1, x, n * bps);
  memcpy(y2, x, n * bps);

  /* Engine 1: one call per segment. Engine 2: random pieces. Same changes at the same frames. */
  for (int i = 0; i <= n_changes; i++) {
    size_t from = change_at[i], to = i < n_changes ? change_at[i + 1] : frames;
    fx_status_t s1 = install(c1, &designs[i]), s2 = install(c2, &designs[i]);
    FUZZ_CHECK(s1 == FX_OK && s2 == FX_OK, "stable design refused: %d %d", s1, s2);
    if (to - from >= TB_MIN)
      long_call = 1;
    fx_cascade_process(c1, y1 + from * channels * bps, to - from);
    for (size_t pos = from; pos < to;) {
      uint8_t r = fuzz_u8(&in);
      size_t len = r < 16 ? 0 : r < 200 ? (size_t) (r - 15) : (size_t) (r - 199) * 997;
      if (len > to - pos || in.n == 0) /* input used up: the rest in one call */
        len = to - pos;
      if (len >= TB_MIN)
        long_call = 1;
      if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "  call %zu+%zu\n", pos, len);
      fx_cascade_process(c2, y2 + pos * channels * bps, len);
      pos += len;
    }
  }

  /* F64 streams never take the time-block path (kernel.h): bit-identical. */
  if (!long_call || fmt == FX_SAMPLE_F64) {
    FUZZ_CHECK(memcmp(y1, y2, n * bps) == 0, "split output differs (%zu frames, %d ch, %s)", frames,
               channels, fx_cascade_backend(c1));
  } else {
    /* The time-block path's state correction loses accuracy as poles approach the unit circle
     * (found by this target: a double pole at -0.999 gives 1e-9 of the peak; see
     * docs/reliability.md): the tolerance grows with 1 / (1 - largest pole radius). */
    double tol = fmt == FX_SAMPLE_F64 ? 1e-9 : 1e-5, cond = 1.0;
    for (int i = 0; i <= n_changes; i++)
      for (int k = 0; k < designs[i].k; k++) {
        double r = fuzz_max_pole_radius(&designs[i].sos[k]);
        if (r < 1.0 && 1.0 / (1.0 - r) > cond)
          cond = 1.0 / (1.0 - r);
      }
    tol *= cond;
    for (size_t i = 0; i < n; i++) {
      double a = fmt == FX_SAMPLE_F64 ? ((double *) y1)[i] : ((float *) y1)[i];
      if (isfinite(a) && fabs(a) > peak[i % (size_t) channels])
        peak[i % (size_t) channels] = fabs(a);
    }
    for (size_t i = 0; i < n; i++) {
      double a = fmt == FX_SAMPLE_F64 ? ((double *) y1)[i] : ((float *) y1)[i];
      double c = fmt == FX_SAMPLE_F64 ? ((double *) y2)[i] : ((float *) y2)[i];
      double pk = peak[i % (size_t) channels];
      if (!isfinite(a) || !isfinite(c) || !isfinite(pk) || pk > 1e100)
        continue; /* overflowing designs: nothing to compare */
      FUZZ_CHECK(fabs(a - c) <= tol * (pk + 1e-300), "sample %zu: %.17g vs %.17g (peak %g, %s)", i,
                 a, c, pk, fx_cascade_backend(c1));
    }
  }

  /* A NaN: reported, and replaced by 0 before any state sees it (DESIGN, bad input): engine 1
   * fed a NaN and then silence gives what engine 2 gives for a 0 and then silence, bit for bit
   * wherever the two engines have run bit-identically so far. */
  if (frames > 0) {
    const int same = !long_call || fmt == FX_SAMPLE_F64;
    unsigned flags;
    memset(y1, 0, n * bps);
    memset(y2, 0, n * bps);
    if (fmt == FX_SAMPLE_F64)
      ((double *) y1)[0] = NAN;
    else
      ((float *) y1)[0] = NAN;
    flags = fx_cascade_process(c1, y1, 1);
    fx_cascade_process(c2, y2, 1);
    if (fx_cascade_sections(c1) > 0)
      FUZZ_CHECK(flags & FX_PROCESS_NONFINITE, "NaN not reported");
    if (same)
      FUZZ_CHECK(memcmp(y1, y2, (size_t) channels * bps) == 0,
                 "the NaN frame differs from a 0 frame (%d ch, %s)", channels,
                 fx_cascade_backend(c1));
    memset(y1, 0, n * bps);
    memset(y2, 0, n * bps);
    fx_cascade_process(c1, y1, frames);
    fx_cascade_process(c2, y2, frames);
    if (same)
      FUZZ_CHECK(memcmp(y1, y2, n * bps) == 0,
                 "after a NaN the output differs from that after a 0 (%zu frames, %d ch, %s)",
                 frames, channels, fx_cascade_backend(c1));
  }

  free(x);
  free(y1);
  free(y2);
  fx_cascade_free(c1);
  fx_cascade_free(c2);
  return 0;
}
