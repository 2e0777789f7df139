/* gst-fx — unit tests of the chunked SOS cascade kernels (dsp/kernel_chunk.h, dsp/chunk.h).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For every instruction set this CPU supports and each flavour (F64, F32 with double arithmetic,
 * F32 with float arithmetic), on random stable sections (general numerators and those the
 * kernels specialise) and random signals, channel counts 1-3 and section counts 0-7:
 *   - any split of a stream into calls (1-, 63-, 64-, 65-frame calls, long ones) gives output,
 *     state and history bit-identical to one call: chunks sit at fixed stream positions and a
 *     chunk cut by a call boundary goes on from its record;
 *   - the output, state and history agree with the sequential kernel of the same set within the
 *     arithmetic's rounding (the chunked form is the same filter);
 *   - where the caller's state is no longer what the kernel left (the engine installed another),
 *     a new chunk grid starts from it: the output is that of a fresh record from that state;
 *   - a cascade run as two section ranges (kstride) gives the whole's output where the I/O type
 *     is the arithmetic type;
 *   - the passes' powers of two (kernel_chunk.h, ck_norm): a cascade balanced otherwise is
 *     bit-identical, and numerators that change in mid-stream under kept records agree with the
 *     sequential kernel and stay split-invariant; so do numerators that change a section's form
 *     (1, 2, 1 and general) in mid-chunk;
 *   - the tables: h1/h2 against the zero-input response computed directly, A^L against h. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunk.h"
#include "kernel.h"

#define FXCHECK_MAX_REPORTS 39
#include "fxcheck.h"

enum { FL_F64, FL_F32D, FL_F32S, FL_N };
static const char *fl_name[] = {"f64", "f32_d", "f32_s"};

#define KMAX 7
#define CMAX 3
#define NFRAMES 3000

/* Random stable sections: poles at radius 0.5 .. 0.99 with numerators near unity gain, or (one
 * in two) the numerators the chunked kernels specialise (kernel_chunk.h: b = 1, 2, 1; 1, -2, 1;
 * 1, b1, 1), half of them times a power of two g as the engine's section balancing leaves them
 * (general sections to the kernels), behind poles away from z = +-1, so that the cascade's gain
 * stays moderate. */
static void random_sections(double *coef, int K)
{
  for (int k = 0; k < K; k++) {
    const uint64_t shape = rng_next() % 8;
    double *c = coef + 5 * k;
    if (shape < 4) {
      const double r = 0.5 + 0.3 * (rng_uniform() + 1.0) / 2.0;
      const double th = 0.5 + 0.9 * (rng_uniform() + 1.0);
      c[3] = -2.0 * r * cos(th);
      c[4] = r * r;
      /* times a power of two in half of them, as the engine's section balancing leaves them */
      const double g = rng_next() % 2 ? 1.0 : ldexp(1.0, (int) (rng_next() % 7) - 3);
      c[0] = g;
      c[1] = g * (shape == 0 ? 2.0 : shape == 1 ? -2.0 : 2.0 * rng_uniform());
      c[2] = g;
      continue;
    }
    const double r = 0.745 + 0.245 * rng_uniform();
    const double th = 0.05 + 1.5 * (rng_uniform() + 1.0);
    c[3] = -2.0 * r * cos(th);
    c[4] = r * r;
    const double g = (1.0 + c[3] + c[4]) / (2.0 + fabs(rng_uniform()));
    c[0] = g;
    c[1] = g * (1.0 + rng_uniform());
    c[2] = g * 0.5;
  }
}

typedef struct {
  const fx_kernel_t *kn;
  int fl;
  double coef[5 * KMAX];
  float coef_f[5 * KMAX];
  fx_chunk_sec_t ps[KMAX];
} setup_t;

static size_t ssz(int fl)
{
  return fl == FL_F64 ? sizeof(double) : sizeof(float);
}

/* Chunked call over sections [k0, k0 + K) of a kstride-section layout. */
static void ck_call(const setup_t *u, fx_chunk_rec_t *rec, void *state, double *hist, int k0, int K,
                    int kstride, void *data, size_t frames, int C)
{
  double *h = hist ? hist + 2 * k0 : NULL;
  if (u->fl == FL_F64)
    u->kn->ck_f64(u->coef + 5 * k0, u->ps + k0, rec + k0, (double *) state + 2 * k0, h, K, kstride,
                  data, frames, C);
  else if (u->fl == FL_F32D)
    u->kn->ck_f32_d(u->coef + 5 * k0, u->ps + k0, rec + k0, (double *) state + 2 * k0, h, K,
                    kstride, data, frames, C);
  else
    u->kn->ck_f32_s(u->coef_f + 5 * k0, u->ps + k0, rec + k0, (float *) state + 2 * k0, h, K,
                    kstride, data, frames, C);
}

static void seq_call(const setup_t *u, void *state, double *hist, int K, void *data, size_t frames,
                     int C)
{
  if (u->fl == FL_F64)
    u->kn->f64(u->coef, state, hist, K, K, data, frames, C);
  else if (u->fl == FL_F32D)
    u->kn->f32_d(u->coef, state, hist, K, K, data, frames, C);
  else
    u->kn->f32_s(u->coef_f, state, hist, K, K, data, frames, C);
}

static double at(int fl, const void *p, size_t i)
{
  return fl == FL_F64 ? ((const double *) p)[i] : (double) ((const float *) p)[i];
}
static double st_at(int fl, const void *p, size_t i)
{
  return fl == FL_F32S ? (double) ((const float *) p)[i] : ((const double *) p)[i];
}

static size_t split_size(void)
{
  static const size_t sizes[] = {1, 2, 3, 63, 64, 65, 127, 128, 500, 1000};
  const uint64_t r = rng_next();
  return sizes[r % 10] + (r & 1024 ? (size_t) ((r >> 20) % 700) : 0);
}

/* The float coefficients and the tables of u's first K sections. */
static void setup_build(setup_t *u, int K)
{
  for (int k = 0; k < 5 * K; k++)
    u->coef_f[k] = (float) u->coef[k];
  for (int k = 0; k < K; k++)
    fx_chunk_sec_build(&u->ps[k], u->coef + 5 * k);
}

/* N random samples in [-0.5, 0.5] of the flavour's I/O type. */
static void fill_input(int fl, void *x, size_t N)
{
  for (size_t i = 0; i < N; i++) {
    const double v = 0.5 * rng_uniform();
    if (fl == FL_F64)
      ((double *) x)[i] = v;
    else
      ((float *) x)[i] = (float) v;
  }
}

static void one_case(const fx_kernel_t *kn, int fl, int C, int K)
{
  setup_t u;
  u.kn = kn;
  u.fl = fl;
  random_sections(u.coef, K);
  setup_build(&u, K);
  const size_t N = (size_t) NFRAMES * (size_t) C, es = ssz(fl);
  unsigned char *x = malloc(N * es), *a = malloc(N * es), *b = malloc(N * es), *s = malloc(N * es);
  fill_input(fl, x, N);
  memcpy(a, x, N * es);
  memcpy(b, x, N * es);
  memcpy(s, x, N * es);
  double sta[2 * KMAX * CMAX] = {0}, stb[2 * KMAX * CMAX] = {0}, sts[2 * KMAX * CMAX] = {0};
  double ha[2 * (KMAX + 1) * CMAX] = {0}, hb[2 * (KMAX + 1) * CMAX] = {0};
  double hs[2 * (KMAX + 1) * CMAX] = {0};
  fx_chunk_rec_t ra[KMAX * CMAX], rb[KMAX * CMAX];
  memset(ra, 0, sizeof(ra));
  memset(rb, 0, sizeof(rb));
  /* one call; the same stream in random calls; the sequential kernel */
  ck_call(&u, ra, sta, ha, 0, K, K, a, NFRAMES, C);
  for (size_t pos = 0; pos < NFRAMES;) {
    size_t n = split_size();
    if (n > NFRAMES - pos)
      n = NFRAMES - pos;
    ck_call(&u, rb, stb, hb, 0, K, K, b + pos * (size_t) C * es, n, C);
    pos += n;
  }
  seq_call(&u, sts, hs, K, s, NFRAMES, C);
  const char *isa = kn->name, *fn = fl_name[fl];
  CHECK(memcmp(a, b, N * es) == 0, "%s %s C=%d K=%d: split output differs", isa, fn, C, K);
  CHECK(memcmp(sta, stb, sizeof(sta)) == 0, "%s %s C=%d K=%d: split state differs", isa, fn, C, K);
  CHECK(memcmp(ha, hb, sizeof(ha)) == 0, "%s %s C=%d K=%d: split history differs", isa, fn, C, K);
  /* against the sequential kernel */
  double peak = 0, e = 0, se = 0, speak = 0, he = 0;
  for (size_t i = 0; i < N; i++) {
    peak = fmax(peak, fabs(at(fl, s, i)));
    e = fmax(e, fabs(at(fl, a, i) - at(fl, s, i)));
  }
  for (int i = 0; i < 2 * K * C; i++) {
    speak = fmax(speak, fabs(st_at(fl, sts, (size_t) i)));
    se = fmax(se, fabs(st_at(fl, sta, (size_t) i) - st_at(fl, sts, (size_t) i)));
  }
  for (int i = 0; i < 2 * (K + 1) * C; i++)
    he = fmax(he, fabs(ha[i] - hs[i]));
  const double tol = fl == FL_F64 ? 1e-12 : fl == FL_F32D ? 1e-6 : 1e-4;
  CHECK(e <= tol * fmax(peak, 1e-3), "%s %s C=%d K=%d: output %.3g off the sequential (peak %.3g)",
        isa, fn, C, K, e, peak);
  CHECK(se <= tol * fmax(speak, 1e-3) * 10, "%s %s C=%d K=%d: state %.3g off (peak %.3g)", isa, fn,
        C, K, se, speak);
  CHECK(he <= tol * fmax(peak, 1e-3) * 10, "%s %s C=%d K=%d: history %.3g off", isa, fn, C, K, he);
  /* a foreign state: a new grid from it, exactly as a fresh record would */
  if (K > 0) {
    memcpy(a, x, N * es);
    memcpy(b, x, N * es);
    /* another state than the one the chunked kernel left in sta (3/4 of the sequential's) */
    for (int i = 0; i < 2 * K * C; i++) {
      if (fl == FL_F32S)
        ((float *) sts)[i] *= 0.75f;
      else
        sts[i] *= 0.75;
    }
    double s2[2 * KMAX * CMAX];
    memcpy(s2, sts, sizeof(s2));
    fx_chunk_rec_t rc[KMAX * CMAX];
    memset(rc, 0, sizeof(rc));
    ck_call(&u, ra, sts, NULL, 0, K, K, a, 777, C); /* ra: the records of sta */
    ck_call(&u, rc, s2, NULL, 0, K, K, b, 777, C);
    CHECK(memcmp(a, b, 777 * (size_t) C * es) == 0,
          "%s %s C=%d K=%d: a foreign state did not restart the chunk grid", isa, fn, C, K);
  }
  /* two section ranges of one layout: the whole's output where I/O and arithmetic types agree */
  if (K >= 2 && fl != FL_F32D) {
    memcpy(a, x, N * es);
    memcpy(b, x, N * es);
    double s3[2 * KMAX * CMAX] = {0}, s4[2 * KMAX * CMAX] = {0};
    fx_chunk_rec_t r3[KMAX * CMAX], r4[KMAX * CMAX];
    memset(r3, 0, sizeof(r3));
    memset(r4, 0, sizeof(r4));
    const int k1 = K / 2;
    for (size_t pos = 0; pos < NFRAMES;) {
      size_t n = split_size();
      if (n > NFRAMES - pos)
        n = NFRAMES - pos;
      ck_call(&u, r3, s3, NULL, 0, K, K, a + pos * (size_t) C * es, n, C);
      ck_call(&u, r4, s4, NULL, 0, k1, K, b + pos * (size_t) C * es, n, C);
      ck_call(&u, r4, s4, NULL, k1, K - k1, K, b + pos * (size_t) C * es, n, C);
      pos += n;
    }
    CHECK(memcmp(a, b, N * es) == 0, "%s %s C=%d K=%d: two ranges differ from the whole", isa, fn,
          C, K);
  }
  free(x);
  free(a);
  free(b);
  free(s);
}

/* K = 4 sections: a general first one and three 2^e (1, b1, 1) ones, the layout the engine's
 * balancing leaves and the passes take the powers of two out of (kernel_chunk.h, ck_norm). */
static void pow2_sections(double *coef)
{
  random_sections(coef, 1);
  static const int ex[3] = {-1, 1, -2};
  for (int k = 1; k < 4; k++) {
    double *c = coef + 5 * k;
    const double r = 0.6 + 0.3 * (rng_uniform() + 1.0) / 2.0, th = 0.4 + (rng_uniform() + 1.0);
    c[3] = -2.0 * r * cos(th);
    c[4] = r * r;
    const double g = ldexp(1.0, ex[k - 1]);
    c[0] = g;
    c[1] = g * 1.5 * rng_uniform();
    c[2] = g;
  }
}

/* A change of coefficients in mid-chunk with the records kept (the caller's state untouched),
 * from u's to w's at frame NFRAMES / 2: the output agrees with the sequential kernel given the
 * same change, and any split of the stream is bit-identical to calls cut only at the change. */
static void midstream_change(const setup_t *u, const setup_t *w, int K, int C, const char *what)
{
  const int fl = u->fl;
  const size_t N = (size_t) NFRAMES * (size_t) C, es = ssz(fl), half = NFRAMES / 2;
  unsigned char *x = malloc(N * es), *a = malloc(N * es), *b = malloc(N * es), *s = malloc(N * es);
  fill_input(fl, x, N);
  const char *isa = u->kn->name, *fn = fl_name[fl];
  double sta[2 * KMAX * CMAX] = {0}, stb[2 * KMAX * CMAX] = {0}, sts[2 * KMAX * CMAX] = {0};
  fx_chunk_rec_t ra[KMAX * CMAX], rb[KMAX * CMAX];
  memset(ra, 0, sizeof(ra));
  memset(rb, 0, sizeof(rb));
  memcpy(a, x, N * es);
  memcpy(b, x, N * es);
  memcpy(s, x, N * es);
  ck_call(u, ra, sta, NULL, 0, K, K, a, half, C);
  ck_call(w, ra, sta, NULL, 0, K, K, a + half * (size_t) C * es, NFRAMES - half, C);
  for (size_t pos = 0; pos < NFRAMES;) {
    size_t n = split_size();
    const size_t end = pos < half ? half : NFRAMES;
    if (n > end - pos)
      n = end - pos;
    ck_call(pos < half ? u : w, rb, stb, NULL, 0, K, K, b + pos * (size_t) C * es, n, C);
    pos += n;
  }
  seq_call(u, sts, NULL, K, s, half, C);
  seq_call(w, sts, NULL, K, s + half * (size_t) C * es, NFRAMES - half, C);
  CHECK(memcmp(a, b, N * es) == 0, "%s %s C=%d: split output differs across a change of %s", isa,
        fn, C, what);
  double peak = 0, err = 0;
  for (size_t i = 0; i < N; i++) {
    peak = fmax(peak, fabs(at(fl, s, i)));
    err = fmax(err, fabs(at(fl, a, i) - at(fl, s, i)));
  }
  const double tol = fl == FL_F64 ? 1e-12 : fl == FL_F32D ? 1e-6 : 1e-4;
  CHECK(err <= tol * fmax(peak, 1e-3),
        "%s %s C=%d: across a change of %s, output %.3g off the sequential (peak %.3g)", isa, fn, C,
        what, err, peak);
  free(x);
  free(a);
  free(b);
  free(s);
}

/* Power-of-two identities through the passes' scaling:
 *   - the same cascade balanced otherwise (a section's numerator times 2^e, the next one's
 *     divided by it: exactly the same filter in floating point) gives bit-identical output;
 *   - numerators that change in mid-stream (a section's b0 no longer a power of two, or one more
 *     that is) with the records kept, so the passes' scales change under them
 *     (midstream_change). */
static void pow2_case(const fx_kernel_t *kn, int fl, int C)
{
  const int K = 4;
  setup_t u = {.kn = kn, .fl = fl}, v = {.kn = kn, .fl = fl};
  memset(u.coef, 0, sizeof(u.coef));
  pow2_sections(u.coef);
  memcpy(v.coef, u.coef, sizeof(u.coef));
  const int j = 1 + (int) (rng_next() % 2), e = rng_next() % 2 ? 3 : -2;
  for (int i = 0; i < 3; i++) { /* rebalanced: section j times 2^e, section j + 1 over it */
    v.coef[5 * j + i] = ldexp(v.coef[5 * j + i], e);
    v.coef[5 * (j + 1) + i] = ldexp(v.coef[5 * (j + 1) + i], -e);
  }
  setup_build(&u, K);
  setup_build(&v, K);
  const size_t N = (size_t) NFRAMES * (size_t) C, es = ssz(fl);
  unsigned char *x = malloc(N * es), *a = malloc(N * es), *b = malloc(N * es);
  fill_input(fl, x, N);
  double sta[2 * KMAX * CMAX] = {0}, stb[2 * KMAX * CMAX] = {0};
  fx_chunk_rec_t ra[KMAX * CMAX], rb[KMAX * CMAX];
  memset(ra, 0, sizeof(ra));
  memset(rb, 0, sizeof(rb));
  memcpy(a, x, N * es);
  memcpy(b, x, N * es);
  ck_call(&u, ra, sta, NULL, 0, K, K, a, NFRAMES, C);
  ck_call(&v, rb, stb, NULL, 0, K, K, b, NFRAMES, C);
  CHECK(memcmp(a, b, N * es) == 0, "%s %s C=%d: a rebalanced cascade's output differs", kn->name,
        fl_name[fl], C);
  free(x);
  free(a);
  free(b);
  /* the change in mid-stream: u's section j numerator times 0.75 (or a power of two in j + 1) */
  setup_t w = u;
  const double f = rng_next() % 2 ? 0.75 : 0.5;
  for (int i = 0; i < 3; i++)
    w.coef[5 * (f == 0.75 ? j : 3) + i] *= f;
  setup_build(&w, K);
  midstream_change(&u, &w, K, C, "numerators");
}

/* A section whose numerator changes form in mid-chunk under kept records (a gain folded into
 * it, as the engine does): 1, 2, 1 (the transposed form) to a general one (the state-space form,
 * substituted where the instruction set does: kernel_chunk.h, K_CK_SUB), or back
 * (midstream_change). */
static void form_case(const fx_kernel_t *kn, int fl, int C, int to_general)
{
  const int K = 3;
  setup_t u = {.kn = kn, .fl = fl};
  memset(u.coef, 0, sizeof(u.coef));
  random_sections(u.coef, K);
  double *c = u.coef + 5;
  const double r = 0.6 + 0.3 * (rng_uniform() + 1.0) / 2.0, th = 0.4 + (rng_uniform() + 1.0);
  c[3] = -2.0 * r * cos(th);
  c[4] = r * r;
  const double g = 1.0; /* exactly 1, 2, 1: the transposed form (ck_norm) */
  c[0] = c[2] = g;
  c[1] = 2.0 * g;
  setup_t w = u;
  double *d = (to_general ? w.coef : u.coef) + 5;
  d[1] = 1.3 * g;
  d[2] = 0.6 * g;
  setup_build(&u, K);
  setup_build(&w, K);
  midstream_change(&u, &w, K, C, to_general ? "form (1, 2, 1 to general)" : "form (to 1, 2, 1)");
}

/* h1/h2 are the first row of A^n, and M = A^L. */
static void test_tables(void)
{
  rng_seed(3);
  double coef[5];
  random_sections(coef, 1);
  fx_chunk_sec_t p;
  fx_chunk_sec_build(&p, coef);
  const double a1 = coef[3], a2 = coef[4];
  double A[4] = {1, 0, 0, 1}; /* A^n, row-major */
  double err = 0;
  for (int n = 0; n <= FX_CHUNK_L; n++) {
    err = fmax(err, fabs(A[0] - p.h1[n]) + fabs(A[1] - p.h2[n]));
    if (n == FX_CHUNK_L)
      for (int i = 0; i < 4; i++)
        err = fmax(err, fabs(A[i] - p.M[i]));
    /* A^(n+1) = A A^n, A = [-a1 1; -a2 0] */
    const double B[4] = {-a1 * A[0] + A[2], -a1 * A[1] + A[3], -a2 * A[0], -a2 * A[1]};
    memcpy(A, B, sizeof(A));
  }
  CHECK(err <= 1e-12, "tables off A^n by %.3g", err);
}

int main(void)
{
  fxcheck_print_seed();
  test_tables();
  for (int i = 0; i < fx_isa_count(); i++) {
    const fx_kernel_t *kn = fx_isa_get(i)->iir;
    CHECK(kn->ck_f64 && kn->ck_f32_d && kn->ck_f32_s, "%s: no chunked kernels", kn->name);
    for (int fl = 0; fl < FL_N; fl++)
      for (int C = 1; C <= CMAX; C++)
        for (int K = 0; K <= KMAX; K += K < 1 ? 1 : 3) {
          rng_seed(1000 + (uint64_t) (i * 100 + fl * 10 + C) * 8 + (uint64_t) K);
          one_case(kn, fl, C, K);
        }
    for (int fl = 0; fl < FL_N; fl++)
      for (int C = 1; C <= CMAX; C++)
        for (int rep = 0; rep < 4; rep++) {
          rng_seed(5000 + (uint64_t) (i * 100 + fl * 10 + C) * 8 + (uint64_t) rep);
          pow2_case(kn, fl, C);
          rng_seed(7000 + (uint64_t) (i * 100 + fl * 10 + C) * 8 + (uint64_t) rep);
          form_case(kn, fl, C, rep % 2);
        }
    printf("%s: chunked kernels checked\n", kn->name);
  }
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
