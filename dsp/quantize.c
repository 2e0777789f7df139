/* gst-fx — integer/float sample conversion (see quantize.h). Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "quantize.h"

/* Adding and subtracting 1.5 * 2^(mantissa bits) rounds a float of magnitude below 2^22 (a
 * double below 2^51) to the nearest integer, ties to even, in the default rounding mode: the
 * vectorisable form of rintf()/rint() (which need SSE4.1 to vectorise on x86-64). The operands are
 * clamped into that range first. volatile-free: the build does not allow reassociation. */
#define ROUND_MAGIC_F32 12582912.0f
#define ROUND_MAGIC_F64 6755399441055744.0

void fx_quant_rng_seed(fx_quant_rng_t *rng, uint64_t seed)
{
  /* splitmix64 of the seed: nearby seeds give unrelated streams; the state is never 0 */
  uint64_t z = seed + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  rng->state = z ? z : 0x9E3779B97F4A7C15ull;
}

/* xorshift64*: one 64-bit draw = two independent uniform 32-bit halves. */
static inline uint64_t rng_next(fx_quant_rng_t *rng)
{
  uint64_t x = rng->state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  rng->state = x;
  return x * 0x2545F4914F6CDD1Dull;
}

/* Triangular dither in LSB: the sum of two uniforms on [-0.5, 0.5), i.e. on (-1, 1) with
 * variance 1/6 LSB^2 and mean 0. */
static inline double tpdf(fx_quant_rng_t *rng)
{
  uint64_t r = rng_next(rng);
  double a = (double) (uint32_t) r, b = (double) (uint32_t) (r >> 32);
  return (a + b) * (1.0 / 4294967296.0) - 1.0 + (1.0 / 4294967296.0);
}

void fx_quant_s16_to_f32(const int16_t *in, float *out, size_t n)
{
  for (size_t i = 0; i < n; i++)
    out[i] = (float) in[i] * (1.0f / FX_QUANT_S16_SCALE);
}

void fx_quant_s32_to_f64(const int32_t *in, double *out, size_t n)
{
  for (size_t i = 0; i < n; i++)
    out[i] = (double) in[i] * (1.0 / FX_QUANT_S32_SCALE);
}

/* v (finite) rounded to the nearest integer, ties to even, and clamped to [lo, hi]; *clipped
 * counts a value outside. First held within one step beyond the range, so that the magic-number
 * rounding stays exact for any input. */
static inline double round_clamp_f64(double v, double lo, double hi, size_t *clipped)
{
  v = v > lo - 1.0 ? v : lo - 1.0;
  v = v < hi + 1.0 ? v : hi + 1.0;
  v = (v + ROUND_MAGIC_F64) - ROUND_MAGIC_F64;
  *clipped += (v > hi) | (v < lo);
  v = v < hi ? v : hi;
  return v > lo ? v : lo;
}

size_t fx_quant_f32_to_s16(const float *in, int16_t *out, size_t n, fx_dither_t dither,
                           fx_quant_rng_t *rng)
{
  size_t clipped = 0;

  if (dither == FX_DITHER_TPDF && rng) {
    /* in double: the dither keeps its resolution at full scale */
    for (size_t i = 0; i < n; i++) {
      double v = (double) in[i] * FX_QUANT_S16_SCALE;
      v = v == v ? v : 0.0;
      v += tpdf(rng);
      out[i] = (int16_t) round_clamp_f64(v, -32768.0, 32767.0, &clipped);
    }
    return clipped;
  }
  for (size_t i = 0; i < n; i++) {
    float v = in[i] * FX_QUANT_S16_SCALE; /* exact: a power of two */
    v = v == v ? v : 0.0f;
    v = v > -32769.0f ? v : -32769.0f;
    v = v < 32768.0f ? v : 32768.0f;
    v = (v + ROUND_MAGIC_F32) - ROUND_MAGIC_F32;
    clipped += (v > 32767.0f) | (v < -32768.0f);
    v = v < 32767.0f ? v : 32767.0f;
    v = v > -32768.0f ? v : -32768.0f;
    out[i] = (int16_t) v;
  }
  return clipped;
}

size_t fx_quant_f64_to_bits(const double *in, int32_t *out, size_t n, unsigned bits,
                            fx_dither_t dither, fx_quant_rng_t *rng)
{
  const int dith = dither == FX_DITHER_TPDF && rng;
  /* 2^(bits-1): exact, and so is the scaling by it */
  const double scale = (double) (UINT64_C(1) << (bits - 1));
  size_t clipped = 0;

  if (bits < 2 || bits > 32)
    return 0;
  for (size_t i = 0; i < n; i++) {
    double v = in[i] * scale;
    v = v == v ? v : 0.0;
    if (dith)
      v += tpdf(rng);
    out[i] = (int32_t) round_clamp_f64(v, -scale, scale - 1.0, &clipped);
  }
  return clipped;
}

size_t fx_quant_f64_to_s32(const double *in, int32_t *out, size_t n, fx_dither_t dither,
                           fx_quant_rng_t *rng)
{
  return fx_quant_f64_to_bits(in, out, n, 32, dither, rng); /* scale 2^31 = FX_QUANT_S32_SCALE */
}
