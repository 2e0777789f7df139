/* gst-fx — unit tests of the SOS cascade kernels (dsp/kernel_*.c) against the scalar kernel.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For every kernel this CPU supports and each flavour (F64, F32 with double arithmetic, F32 with
 * float arithmetic), on random stable sections and random signals, for many channel counts and
 * section counts:
 *   - the output, state and history of one call match the scalar kernel's (within rounding: FMA
 *     kernels round differently; SSE2 must be bit-identical to scalar, AVX-512 to AVX2);
 *   - splitting the stream into calls of random sizes, 1- and 2-frame calls included, gives
 *     bit-identical output, state and history to the one call (within one kernel), for calls
 *     short enough to stay off the time-block path (kernel.h);
 *   - mono and stereo calls long enough for the time-block path: the same checks against the
 *     scalar kernel, splits within DESIGN.md's bar (F64 <= 1e-12 relative, F32 within rounding)
 *     instead of bit-identical, hist == NULL and AVX-512 == AVX2 still bit-identical;
 *   - hist == NULL gives the same output and state;
 *   - a cascade run as two section ranges (kstride) matches the whole (bit-identical where the
 *     I/O type is the arithmetic type);
 *   - the caller's MXCSR is restored; the instruction-set table, FX_KERNEL selection and
 *     fallback. The FIR sets' tests are in test_fir_kernels.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#define FXCHECK_MAX_REPORTS 39
#include "fxcheck.h"

/* Random stable sections (poles at radius 0.3 .. 0.97) with gains near one, so that the signal
 * keeps its size through long cascades: all-pass, unit-DC-gain low-pass and near-unity
 * (peaking-like) sections in turn. */
static void random_sections(double *coef, int K)
{
  for (int k = 0; k < K; k++) {
    const double r = 0.3 + 0.335 * (rng_uniform() + 1.0);
    const double th = 3.14159 * 0.5 * (rng_uniform() + 1.0);
    double *c = coef + 5 * k;
    c[3] = -2.0 * r * cos(th);
    c[4] = r * r;
    if (k % 3 == 0) { /* all-pass */
      c[0] = c[4];
      c[1] = c[3];
      c[2] = 1.0;
    } else if (k % 3 == 1) { /* low-pass, unit gain at DC */
      const double g = (1.0 + c[3] + c[4]) / 4.0;
      c[0] = g;
      c[1] = 2.0 * g;
      c[2] = g;
    } else { /* numerator near the denominator */
      c[0] = 1.0 + 0.3 * rng_uniform();
      c[1] = c[3] + 0.3 * rng_uniform();
      c[2] = c[4] + 0.3 * rng_uniform();
    }
  }
}

enum { FL_F64, FL_F32D, FL_F32S, FL_N };
static const char *fl_name[FL_N] = {"f64", "f32_d", "f32_s"};

/* One test case's buffers. Data are stored as doubles here and converted per flavour. */
typedef struct {
  int C, K, kstride;
  size_t frames;
  double *coef;  /* [K][5] */
  float *coef_f; /* [K][5] */
  double *x;     /* [frames][C] input */
  void *data;    /* [frames][C] IO */
  void *state;   /* [C][kstride][2] T */
  double *hist;  /* [C][kstride+1][2] */
} run_t;

static size_t io_size(int fl)
{
  return fl == FL_F64 ? sizeof(double) : sizeof(float);
}
static size_t t_size(int fl)
{
  return fl == FL_F32S ? sizeof(float) : sizeof(double);
}

static void run_init(run_t *r, int fl, const double *coef, int K, int kstride, int C,
                     const double *x, size_t frames)
{
  r->C = C;
  r->K = K;
  r->kstride = kstride;
  r->frames = frames;
  r->coef = malloc((size_t) (K ? K : 1) * 5 * sizeof(double));
  r->coef_f = malloc((size_t) (K ? K : 1) * 5 * sizeof(float));
  for (int i = 0; i < 5 * K; i++) {
    r->coef[i] = coef[i];
    r->coef_f[i] = (float) coef[i];
  }
  r->x = NULL;
  r->data = malloc(frames * (size_t) C * io_size(fl) + 64);
  for (size_t i = 0; i < frames * (size_t) C; i++) {
    if (fl == FL_F64)
      ((double *) r->data)[i] = x[i];
    else
      ((float *) r->data)[i] = (float) x[i];
  }
  r->state = calloc((size_t) C * (size_t) kstride * 2 + 1, t_size(fl));
  r->hist = calloc((size_t) C * ((size_t) kstride + 1) * 2, sizeof(double));
}

static void run_free(run_t *r)
{
  free(r->coef);
  free(r->coef_f);
  free(r->data);
  free(r->state);
  free(r->hist);
}

/* Runs sections k0 .. k0+K-1 over frames [f0, f0+n) of r. */
static void run_call(const fx_kernel_t *kn, int fl, run_t *r, int k0, int K, size_t f0, size_t n,
                     int with_hist)
{
  double *h = with_hist ? r->hist + 2 * (size_t) k0 : NULL;
  const size_t off = f0 * (size_t) r->C;
  switch (fl) {
  case FL_F64:
    kn->f64(r->coef + 5 * k0, (double *) r->state + 2 * k0, h, K, r->kstride,
            (double *) r->data + off, n, r->C);
    break;
  case FL_F32D:
    kn->f32_d(r->coef + 5 * k0, (double *) r->state + 2 * k0, h, K, r->kstride,
              (float *) r->data + off, n, r->C);
    break;
  default:
    kn->f32_s(r->coef_f + 5 * k0, (float *) r->state + 2 * k0, h, K, r->kstride,
              (float *) r->data + off, n, r->C);
    break;
  }
}

static double get_io(int fl, const run_t *r, size_t i)
{
  return fl == FL_F64 ? ((const double *) r->data)[i] : (double) ((const float *) r->data)[i];
}
static double get_st(int fl, const run_t *r, size_t i)
{
  return fl == FL_F32S ? (double) ((const float *) r->state)[i] : ((const double *) r->state)[i];
}

/* Relative error of a vs b over n values read by `get` (norm of difference / norm of b). */
static double rel_io(int fl, const run_t *a, const run_t *b)
{
  double e = 0, s = 0;
  for (size_t i = 0; i < a->frames * (size_t) a->C; i++) {
    const double d = get_io(fl, a, i) - get_io(fl, b, i);
    e += d * d;
    s += get_io(fl, b, i) * get_io(fl, b, i);
  }
  if (!isfinite(e))
    return INFINITY;
  return s > 0 ? sqrt(e / s) : sqrt(e);
}
static double rel_st(int fl, const run_t *a, const run_t *b)
{
  double e = 0, s = 0;
  for (size_t i = 0; i < (size_t) a->C * (size_t) a->kstride * 2; i++) {
    const double d = get_st(fl, a, i) - get_st(fl, b, i);
    e += d * d;
    s += get_st(fl, b, i) * get_st(fl, b, i);
  }
  return s > 0 ? sqrt(e / s) : sqrt(e);
}
static double rel_hist(const run_t *a, const run_t *b)
{
  double e = 0, s = 0;
  for (size_t i = 0; i < (size_t) a->C * ((size_t) a->kstride + 1) * 2; i++) {
    const double d = a->hist[i] - b->hist[i];
    e += d * d;
    s += b->hist[i] * b->hist[i];
  }
  return s > 0 ? sqrt(e / s) : sqrt(e);
}

static int same_bits(int fl, const run_t *a, const run_t *b)
{
  const size_t nio = a->frames * (size_t) a->C * io_size(fl);
  const size_t nst = (size_t) a->C * (size_t) a->kstride * 2 * t_size(fl);
  const size_t nh = (size_t) a->C * ((size_t) a->kstride + 1) * 2 * sizeof(double);
  return memcmp(a->data, b->data, nio) == 0 && memcmp(a->state, b->state, nst) == 0 &&
         memcmp(a->hist, b->hist, nh) == 0;
}

/* Tolerances vs the scalar kernel (relative norm of the difference). */
static double tol(int fl)
{
  return fl == FL_F64 ? 1e-12 : fl == FL_F32D ? 2e-7 : 2e-4;
}

static const fx_kernel_t *first_fma = NULL; /* reference for "avx512 == avx2" */
static double worst[FL_N];                  /* worst relative output error vs scalar, per kernel */

/* Random sections and input of a case: coef [K][5], x [frames][C] (malloc'ed). */
static void case_data(int C, int K, size_t frames, double **coef, double **x)
{
  *coef = malloc((size_t) (K ? K : 1) * 5 * sizeof(double));
  *x = malloc(frames * (size_t) C * sizeof(double));
  random_sections(*coef, K);
  for (size_t i = 0; i < frames * (size_t) C; i++)
    (*x)[i] = 0.5 * rng_uniform();
}

/* The scalar kernel (into ref) and kn (into one) over the whole range in one call with history:
 * kn against the scalar kernel and, when vs_fma, bit for bit against the first FMA kernel. `tag`
 * follows the flavour's name in the messages. */
static void check_one_call(const fx_kernel_t *kn, int fl, int C, int K, const double *coef,
                           const double *x, size_t frames, const char *tag, int vs_fma, run_t *ref,
                           run_t *one)
{
  run_init(ref, fl, coef, K, K, C, x, frames);
  run_init(one, fl, coef, K, K, C, x, frames);
  run_call(&fx_kernel_scalar, fl, ref, 0, K, 0, frames, 1);
  run_call(kn, fl, one, 0, K, 0, frames, 1);
  const double eo = rel_io(fl, one, ref), es = rel_st(fl, one, ref), eh = rel_hist(one, ref);
  worst[fl] = eo > worst[fl] ? eo : worst[fl];
  CHECK(eo <= tol(fl) && es <= tol(fl) * 10 && eh <= tol(fl),
        "%s %s%s C=%d K=%d: vs scalar out %g state %g hist %g", kn->name, fl_name[fl], tag, C, K,
        eo, es, eh);
  if (vs_fma && first_fma && first_fma != kn) {
    run_t fref;
    run_init(&fref, fl, coef, K, K, C, x, frames);
    run_call(first_fma, fl, &fref, 0, K, 0, frames, 1);
    CHECK(same_bits(fl, one, &fref), "%s %s%s C=%d K=%d: not bit-identical to %s", kn->name,
          fl_name[fl], tag, C, K, first_fma->name);
    run_free(&fref);
  }
}

/* kn without history (into nh): the same output and state as with it (one). */
static void check_no_hist(const fx_kernel_t *kn, int fl, int C, int K, const double *coef,
                          const double *x, size_t frames, const char *tag, const run_t *one)
{
  run_t nh;
  run_init(&nh, fl, coef, K, K, C, x, frames);
  run_call(kn, fl, &nh, 0, K, 0, frames, 0);
  memcpy(nh.hist, one->hist, (size_t) C * ((size_t) K + 1) * 2 * sizeof(double));
  CHECK(same_bits(fl, &nh, one), "%s %s%s C=%d K=%d: hist=NULL changes the result", kn->name,
        fl_name[fl], tag, C, K);
  run_free(&nh);
}

static void test_case(const fx_kernel_t *kn, int fl, int C, int K)
{
  const size_t frames = C <= 2 ? 1300 : (C <= 17 ? 400 : 150);
  double *coef, *x;
  case_data(C, K, frames, &coef, &x);
  const int fma_kernel = strcmp(kn->name, "scalar") != 0 && strcmp(kn->name, "sse2") != 0;

  /* vs scalar */
  run_t ref, one, part, rng;
  check_one_call(kn, fl, C, K, coef, x, frames, "", fma_kernel, &ref, &one);
  if (!fma_kernel)
    CHECK(same_bits(fl, &one, &ref), "%s %s C=%d K=%d: not bit-identical to scalar", kn->name,
          fl_name[fl], C, K);

  /* split into calls of random sizes, with 1- and 2-frame calls */
  run_init(&part, fl, coef, K, K, C, x, frames);
  size_t f = 0;
  while (f < frames) {
    size_t n;
    const uint64_t u = rng_next() % 10;
    if (u < 3)
      n = 1;
    else if (u < 4)
      n = 2;
    else if (u < 5)
      n = 3;
    else
      n = 1 + (size_t) (rng_next() % 700);
    if (n > frames - f)
      n = frames - f;
    run_call(kn, fl, &part, 0, K, f, n, 1);
    f += n;
  }
  CHECK(same_bits(fl, &part, &one), "%s %s C=%d K=%d: split not bit-identical (out %g state %g)",
        kn->name, fl_name[fl], C, K, rel_io(fl, &part, &one), rel_st(fl, &part, &one));

  /* no history: same output and state */
  check_no_hist(kn, fl, C, K, coef, x, frames, "", &one);

  /* two section ranges of a cascade laid out for kstride = K (+ 3 spare sections) */
  if (K >= 2) {
    const int ks = K + 3, k1 = K / 2 + (K % 3 == 0);
    run_init(&rng, fl, coef, K, ks, C, x, frames);
    run_t rref;
    run_init(&rref, fl, coef, K, ks, C, x, frames);
    run_call(kn, fl, &rng, 0, k1, 0, frames, 1);
    run_call(kn, fl, &rng, k1, K - k1, 0, frames, 1);
    run_call(&fx_kernel_scalar, fl, &rref, 0, k1, 0, frames, 1);
    run_call(&fx_kernel_scalar, fl, &rref, k1, K - k1, 0, frames, 1);
    CHECK(rel_io(fl, &rng, &rref) <= tol(fl) && rel_st(fl, &rng, &rref) <= tol(fl) * 10 &&
              rel_hist(&rng, &rref) <= tol(fl),
          "%s %s C=%d K=%d: ranges vs scalar ranges out %g state %g hist %g", kn->name, fl_name[fl],
          C, K, rel_io(fl, &rng, &rref), rel_st(fl, &rng, &rref), rel_hist(&rng, &rref));
    if (fl != FL_F32D) { /* the I/O type is the arithmetic type: ranges == whole */
      int same = memcmp(rng.data, one.data, frames * (size_t) C * io_size(fl)) == 0;
      for (int c = 0; c < C && same; c++) {
        same = memcmp((char *) rng.state + (size_t) c * (size_t) ks * 2 * t_size(fl),
                      (char *) one.state + (size_t) c * (size_t) K * 2 * t_size(fl),
                      (size_t) K * 2 * t_size(fl)) == 0 &&
               memcmp(rng.hist + (size_t) c * ((size_t) ks + 1) * 2,
                      one.hist + (size_t) c * ((size_t) K + 1) * 2,
                      ((size_t) K + 1) * 2 * sizeof(double)) == 0;
        /* the spare sections are untouched */
        for (size_t i = (size_t) K * 2; i < (size_t) ks * 2 && same; i++)
          same = get_st(fl, &rng, (size_t) c * (size_t) ks * 2 + i) == 0.0;
      }
      CHECK(same, "%s %s C=%d K=%d: ranges not bit-identical to the whole", kn->name, fl_name[fl],
            C, K);
    }
    run_free(&rng);
    run_free(&rref);
  }

  run_free(&ref);
  run_free(&one);
  run_free(&part);
  free(coef);
  free(x);
}

/* Long mono/stereo calls (the time-block path of the FMA kernels; kernel.h). */
static void test_long(const fx_kernel_t *kn, int fl, int C, int K)
{
  const size_t frames = 24000 + 37;
  double *coef, *x;
  case_data(C, K, frames, &coef, &x);
  run_t ref, one, part;
  check_one_call(kn, fl, C, K, coef, x, frames, " long", 1, &ref, &one);
  /* calls of random sizes, long and short */
  run_init(&part, fl, coef, K, K, C, x, frames);
  size_t f = 0;
  while (f < frames) {
    const uint64_t u = rng_next() % 4;
    size_t n = u == 0 ? 1 + (size_t) (rng_next() % 3) : 1 + (size_t) (rng_next() % 12000);
    if (n > frames - f)
      n = frames - f;
    run_call(kn, fl, &part, 0, K, f, n, 1);
    f += n;
  }
  const double po = rel_io(fl, &part, &one), ps = rel_st(fl, &part, &one);
  CHECK(po <= tol(fl) && ps <= tol(fl) * 10 && rel_hist(&part, &one) <= tol(fl),
        "%s %s long C=%d K=%d: split vs one call out %g state %g", kn->name, fl_name[fl], C, K, po,
        ps);
  check_no_hist(kn, fl, C, K, coef, x, frames, " long", &one);
  run_free(&ref);
  run_free(&one);
  run_free(&part);
  free(coef);
  free(x);
}

static void test_k0(const fx_kernel_t *kn)
{
  float data[6] = {1, 2, 3, 4, 5, 6};
  double hist[4] = {0};
  float st[1] = {0};
  double std_[1] = {0};
  kn->f32_s(NULL, st, hist, 0, 0, data, 3, 2);
  CHECK(data[4] == 5 && data[5] == 6 && hist[0] == 5 && hist[1] == 3 && hist[2] == 6 &&
            hist[3] == 4,
        "%s K=0 f32_s: hist %g %g %g %g", kn->name, hist[0], hist[1], hist[2], hist[3]);
  memset(hist, 0, sizeof(hist));
  kn->f32_d(NULL, std_, hist, 0, 0, data, 1, 2);
  CHECK(hist[0] == 1 && hist[2] == 2, "%s K=0 f32_d 1 frame", kn->name);
}

static void test_mxcsr(const fx_kernel_t *kn)
{
#if defined(__SSE2__)
  const unsigned int before = _mm_getcsr();
  double coef[5] = {0.5, 0.1, 0.2, -0.3, 0.1}, st[2 * 3] = {0}, data[3 * 100];
  for (int i = 0; i < 300; i++)
    data[i] = rng_uniform();
  kn->f64(coef, st, NULL, 1, 1, data, 100, 3);
  CHECK(_mm_getcsr() == before, "%s: MXCSR %x -> %x", kn->name, before, _mm_getcsr());
#else
  (void) kn;
#endif
}

/* The instruction-set table (kernel.h) and the FX_KERNEL rule. */
static void test_select(void)
{
  const int n = fx_isa_count();
  CHECK(n >= 1, "count %d", n);
  CHECK(fx_isa_get(n - 1) && fx_isa_get(n - 1)->iir == &fx_kernel_scalar &&
            fx_isa_get(n - 1)->fir == &fx_fir_kernels_scalar &&
            strcmp(fx_isa_get(n - 1)->name, "scalar") == 0,
        "last entry is not the scalar baseline");
  CHECK(fx_isa_get(n) == NULL && fx_isa_get(-1) == NULL, "out of range");
  for (int i = 0; i < n; i++) {
    const fx_isa_t *isa = fx_isa_get(i);
    CHECK(strcmp(isa->iir->name, isa->name) == 0, "entry %s: IIR set %s", isa->name,
          isa->iir->name);
    CHECK(strcmp(isa->fir->name, isa->name) == 0 ||
              (strcmp(isa->name, "sse2") == 0 && isa->fir == &fx_fir_kernels_scalar),
          "entry %s: FIR set %s", isa->name, isa->fir->name);
    CHECK(isa->supported(), "entry %s listed but not supported", isa->name);
  }
  unsetenv("FX_KERNEL");
  CHECK(fx_isa_select() == fx_isa_get(0), "default is not the best");
  CHECK(fx_kernel_select() == fx_isa_get(0)->iir, "fx_kernel_select is not the best");
  for (int i = 0; i < n; i++) {
    setenv("FX_KERNEL", fx_isa_get(i)->name, 1);
    CHECK(fx_isa_select() == fx_isa_get(i), "FX_KERNEL=%s gives %s", fx_isa_get(i)->name,
          fx_isa_select()->name);
    CHECK(fx_kernel_select() == fx_isa_get(i)->iir, "FX_KERNEL=%s: IIR %s", fx_isa_get(i)->name,
          fx_kernel_select()->name);
  }
  static const char *all[] = {"scalar", "sse2", "avx2", "avx512", "bogus", ""};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
    setenv("FX_KERNEL", all[i], 1);
    const fx_isa_t *k = fx_isa_find(all[i]);
    CHECK(fx_isa_select() == (k ? k : fx_isa_get(0)), "FX_KERNEL=%s: %s", all[i],
          fx_isa_select()->name);
    if (!k)
      printf("FX_KERNEL=%s not supported here: falls back to %s\n", all[i], fx_isa_select()->name);
  }
  unsetenv("FX_KERNEL");
}

int main(void)
{
  static const int Cs[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 67};
  static const int Ks[] = {0, 1, 2, 3, 4, 5, 8, 13, 16, 40};
  test_select();
  printf("kernels on this CPU:");
  for (int i = 0; i < fx_isa_count(); i++)
    printf(" %s", fx_isa_get(i)->name);
  printf("\n");
  static const char *names[] = {"sse2", "avx2", "avx512"};
  for (size_t i = 0; i < 3; i++)
    if (!fx_isa_find(names[i]))
      printf("SKIP %s: not supported by this CPU (or not built)\n", names[i]);
  for (int i = fx_isa_count() - 1; i >= 0; i--) {
    const fx_kernel_t *kn = fx_isa_get(i)->iir;
    const int before = failures;
    memset(worst, 0, sizeof(worst));
    test_k0(kn);
    test_mxcsr(kn);
    for (int fl = 0; fl < FL_N; fl++)
      for (size_t ci = 0; ci < sizeof(Cs) / sizeof(Cs[0]); ci++)
        for (size_t ki = 0; ki < sizeof(Ks) / sizeof(Ks[0]); ki++)
          test_case(kn, fl, Cs[ci], Ks[ki]);
    static const int Kl[] = {1, 2, 3, 6, 8, 10, 12, 13};
    for (int fl = 0; fl < FL_N; fl++)
      for (int C = 1; C <= 2; C++)
        for (size_t ki = 0; ki < sizeof(Kl) / sizeof(Kl[0]); ki++)
          test_long(kn, fl, C, Kl[ki]);
    if (strcmp(kn->name, "scalar") != 0 && strcmp(kn->name, "sse2") != 0 && !first_fma)
      first_fma = kn;
    printf("%s: %s (worst relative output error vs scalar: f64 %.3g, f32_d %.3g, f32_s %.3g)\n",
           kn->name, failures == before ? "ok" : "FAILED", worst[FL_F64], worst[FL_F32D],
           worst[FL_F32S]);
  }
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
