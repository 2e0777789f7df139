/* gst-fx — dsp/quantize.c against closed forms: exact integer-to-float conversion, round to
 * nearest with ties to even (rint), clipping and its count at the range edges, NaN, and the TPDF
 * dither's range, mean, variance and reproducibility.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "fxcheck.h"
#include "quantize.h"

#include <math.h>
#include <string.h>

#define N 4096

static void test_int_to_float(void)
{
  static int16_t s16[65536];
  static float f32[65536];
  int32_t s32[6] = {INT32_MIN, -1, 0, 1, INT32_MAX, 123456789};
  double f64[6];

  for (int i = 0; i < 65536; i++)
    s16[i] = (int16_t) (i - 32768);
  fx_quant_s16_to_f32(s16, f32, 65536);
  for (int i = 0; i < 65536; i++)
    CHECK(f32[i] == (float) (i - 32768) / 32768.0f, "s16 %d -> %g", i - 32768, f32[i]);
  fx_quant_s32_to_f64(s32, f64, 6);
  for (int i = 0; i < 6; i++)
    CHECK(f64[i] == (double) s32[i] / 2147483648.0, "s32 %d -> %.17g", s32[i], f64[i]);
  /* and back without change */
  {
    static int16_t back[65536];
    int32_t back32[6];
    CHECK(fx_quant_f32_to_s16(f32, back, 65536, FX_DITHER_NONE, NULL) == 0, "clipped");
    CHECK(memcmp(back, s16, sizeof(back)) == 0, "s16 round trip");
    CHECK(fx_quant_f64_to_s32(f64, back32, 6, FX_DITHER_NONE, NULL) == 0, "clipped");
    CHECK(memcmp(back32, s32, sizeof(back32)) == 0, "s32 round trip");
  }
}

static void test_rounding_and_clipping(void)
{
  /* values in LSB: ties go to even, never truncated; -32768.5 rounds to -32768 (even), which is
   * in range: not a clip */
  const double lsb[] = {0.5,     1.5,     2.5,      -0.5,     -1.5,     0.49,
                        0.51,    -0.51,   100.7,    -100.7,   32766.5,  32767.4,
                        32767.5, 40000.0, -32768.4, -32768.5, -40000.0, 1e30};
  const int16_t want16[] = {0,    2,     2,     0,     -2,    0,      1,      -1,     101,
                            -101, 32766, 32767, 32767, 32767, -32768, -32768, -32768, 32767};
  const int clips16[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1};
  for (size_t i = 0; i < sizeof(lsb) / sizeof(lsb[0]); i++) {
    float in = (float) (lsb[i] / 32768.0);
    int16_t out;
    size_t c;
    /* the tests' values are exact in float where it matters (ties) */
    c = fx_quant_f32_to_s16(&in, &out, 1, FX_DITHER_NONE, NULL);
    CHECK(out == want16[i] && (int) c == clips16[i], "%g LSB -> %d (clipped %zu), want %d (%d)",
          lsb[i], out, c, want16[i], clips16[i]);
  }
  {
    const double v[] = {0.5,          1.5,          -2.5,          2147483646.5,
                        2147483647.4, 2147483647.5, -2147483648.5, -3e9};
    const int32_t want[] = {0, 2, -2, 2147483646, 2147483647, 2147483647, INT32_MIN, INT32_MIN};
    const int clips[] = {0, 0, 0, 0, 0, 1, 0, 1};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
      double in = v[i] / 2147483648.0;
      int32_t out;
      size_t c = fx_quant_f64_to_s32(&in, &out, 1, FX_DITHER_NONE, NULL);
      CHECK(out == want[i] && (int) c == clips[i], "%.1f LSB -> %d (clipped %zu)", v[i], out, c);
    }
  }
  {
    float nf = NAN;
    double nd = NAN;
    int16_t o16 = 7;
    int32_t o32 = 7;
    fx_quant_f32_to_s16(&nf, &o16, 1, FX_DITHER_NONE, NULL);
    fx_quant_f64_to_s32(&nd, &o32, 1, FX_DITHER_NONE, NULL);
    CHECK(o16 == 0 && o32 == 0, "NaN -> %d, %d", o16, o32);
  }
  /* a long run against rint() and a clip count */
  {
    static float in[N];
    static int16_t out[N];
    size_t want_clips = 0, c;
    rng_seed(11);
    for (int i = 0; i < N; i++)
      in[i] = (float) (1.2 * rng_uniform());
    c = fx_quant_f32_to_s16(in, out, N, FX_DITHER_NONE, NULL);
    for (int i = 0; i < N; i++) {
      double r = rint((double) in[i] * 32768.0);
      want_clips += r > 32767.0 || r < -32768.0;
      r = r > 32767.0 ? 32767.0 : r < -32768.0 ? -32768.0 : r;
      CHECK(out[i] == (int16_t) r, "sample %d: %g -> %d, rint %g", i, in[i], out[i], r);
    }
    CHECK(c == want_clips, "clipped %zu, want %zu", c, want_clips);
  }
}

static void test_dither(void)
{
  enum { M = 1 << 18 };
  static float in[M];
  static int16_t a[M], b[M];
  static double d[M];
  static int32_t a32[M];
  fx_quant_rng_t r1, r2;
  double sum = 0.0, sq = 0.0, mean, var;

  rng_seed(12);
  for (int i = 0; i < M; i++)
    in[i] = (float) (0.25 * rng_uniform());
  fx_quant_rng_seed(&r1, 5);
  fx_quant_rng_seed(&r2, 5);
  fx_quant_f32_to_s16(in, a, M, FX_DITHER_TPDF, &r1);
  fx_quant_f32_to_s16(in, b, M, FX_DITHER_TPDF, &r2);
  CHECK(memcmp(a, b, sizeof(a)) == 0, "same seed, same output");
  for (int i = 0; i < M; i++) {
    double e = a[i] - (double) in[i] * 32768.0;
    CHECK(fabs(e) < 1.5, "sample %d: error %g LSB", i, e);
    sum += e;
    sq += e * e;
  }
  mean = sum / M;
  var = sq / M - mean * mean;
  /* TPDF (variance 1/6) plus rounding (1/12): 1/4 LSB^2; M = 2^18 gives standard errors near
   * 0.001 (mean) and 0.0006 (variance) */
  CHECK(fabs(mean) < 0.005 && fabs(var - 0.25) < 0.004, "TPDF error mean %g, variance %g", mean,
        var);
  fx_quant_rng_seed(&r2, 6);
  fx_quant_f32_to_s16(in, b, M, FX_DITHER_TPDF, &r2);
  CHECK(memcmp(a, b, sizeof(a)) != 0, "another seed, another output");

  for (int i = 0; i < M; i++)
    d[i] = in[i];
  fx_quant_rng_seed(&r1, 5);
  fx_quant_f64_to_s32(d, a32, M, FX_DITHER_TPDF, &r1);
  sum = sq = 0.0;
  for (int i = 0; i < M; i++) {
    double e = a32[i] - d[i] * 2147483648.0;
    sum += e;
    sq += e * e;
  }
  mean = sum / M;
  var = sq / M - mean * mean;
  CHECK(fabs(mean) < 0.005 && fabs(var - 0.25) < 0.004, "S32 TPDF error mean %g, variance %g", mean,
        var);
}

/* fx_quant_f64_to_bits(): against rint() and the range of each width, the widths 16 and 32
 * against the fixed-width functions (same values and the same dither from the same seed), and the
 * 24-bit TPDF at the 24-bit LSB (error variance 1/4 LSB^2 of 2^-23, not of 2^-31). */
static void test_bits(void)
{
  enum { M = 1 << 17 };
  static double in[M];
  static float inf[M];
  static int32_t out[M], ref32[M];
  static int16_t ref16[M];
  const unsigned widths[] = {8, 16, 20, 24, 32};
  fx_quant_rng_t r1, r2;
  double sum = 0.0, sq = 0.0, mean, var;

  rng_seed(13);
  for (int i = 0; i < M; i++) {
    inf[i] = (float) (1.2 * rng_uniform());
    in[i] = inf[i];
  }
  for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
    const double scale = ldexp(1.0, (int) widths[w] - 1);
    size_t want_clips = 0, c = fx_quant_f64_to_bits(in, out, M, widths[w], FX_DITHER_NONE, NULL);
    int bad = 0;
    for (int i = 0; i < M; i++) {
      double r = rint(in[i] * scale);
      want_clips += r > scale - 1.0 || r < -scale;
      r = r > scale - 1.0 ? scale - 1.0 : r < -scale ? -scale : r;
      bad += out[i] != (int32_t) r;
    }
    CHECK(bad == 0 && c == want_clips, "%u bits: %d samples differ from rint, clipped %zu want %zu",
          widths[w], bad, c, want_clips);
  }
  {
    const double edge[] = {-1.0, 1.0, 0.5 / 8388608.0, 1.5 / 8388608.0, NAN};
    const int32_t want[] = {-8388608, 8388607, 0, 2, 0};
    const int clips[] = {0, 1, 0, 0, 0};
    for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
      size_t c = fx_quant_f64_to_bits(&edge[i], out, 1, 24, FX_DITHER_NONE, NULL);
      CHECK(out[0] == want[i] && (int) c == clips[i], "24 bits: %g -> %d (clipped %zu)", edge[i],
            out[0], c);
    }
  }
  /* 16 and 32 bits equal the fixed-width functions, dithered from the same seed too */
  fx_quant_rng_seed(&r1, 9);
  fx_quant_rng_seed(&r2, 9);
  fx_quant_f32_to_s16(inf, ref16, M, FX_DITHER_TPDF, &r1);
  fx_quant_f64_to_bits(in, out, M, 16, FX_DITHER_TPDF, &r2);
  int differ = 0;
  for (int i = 0; i < M; i++)
    differ += out[i] != ref16[i];
  CHECK(differ == 0, "16 bits: %d samples differ from fx_quant_f32_to_s16", differ);
  fx_quant_rng_seed(&r1, 9);
  fx_quant_rng_seed(&r2, 9);
  fx_quant_f64_to_s32(in, ref32, M, FX_DITHER_TPDF, &r1);
  fx_quant_f64_to_bits(in, out, M, 32, FX_DITHER_TPDF, &r2);
  CHECK(memcmp(out, ref32, sizeof(out)) == 0, "32 bits: differs from fx_quant_f64_to_s32");
  /* 24-bit TPDF: the error in 24-bit LSBs, inside the range */
  for (int i = 0; i < M; i++)
    in[i] *= 0.5;
  fx_quant_rng_seed(&r1, 5);
  fx_quant_f64_to_bits(in, out, M, 24, FX_DITHER_TPDF, &r1);
  for (int i = 0; i < M; i++) {
    double e = out[i] - in[i] * 8388608.0;
    CHECK(fabs(e) < 1.5, "24 bits, sample %d: error %g LSB", i, e);
    sum += e;
    sq += e * e;
  }
  mean = sum / M;
  var = sq / M - mean * mean;
  CHECK(fabs(mean) < 0.007 && fabs(var - 0.25) < 0.006, "24-bit TPDF error mean %g, variance %g",
        mean, var);
  CHECK(fx_quant_f64_to_bits(in, out, 1, 33, FX_DITHER_NONE, NULL) == 0, "33 bits refused");
}

int main(void)
{
  test_int_to_float();
  test_rounding_and_clipping();
  test_dither();
  test_bits();
  printf("%d checks, %d failures\n", checks, failures);
  return failures > 0;
}
