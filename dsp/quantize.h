/* gst-fx — sample format conversion between the integer formats users stream (S16, S32) and the
 * float formats the DSP runs in: exact integer-to-float conversion, and float-to-integer
 * requantisation with round-to-nearest, clipping with a count and optional TPDF dither.
 * Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FX_QUANTIZE_H
#define FX_QUANTIZE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Full scale: an integer sample s stands for the float s / 2^(bits-1) (GStreamer's audioconvert
 * convention), so -1.0 maps to the most negative integer and +1.0 is one step above the largest
 * (and clips). */
#define FX_QUANT_S16_SCALE 32768.0f
#define FX_QUANT_S32_SCALE 2147483648.0

/* The dither added before rounding to an integer format. */
typedef enum {
  FX_DITHER_NONE = 0, /* plain rounding: an unchanged signal goes through bit-exact */
  FX_DITHER_TPDF,     /* triangular noise of +-1 LSB peak (the sum of two uniform +-0.5 LSB) */
} fx_dither_t;

/* A deterministic pseudo-random generator for the dither (xoshiro128+-like quality is not needed:
 * a 64-bit xorshift* gives two independent 32-bit uniforms per call). Seeded explicitly, so a
 * stream's dither is reproducible. */
typedef struct {
  uint64_t state;
} fx_quant_rng_t;

/* Seeds @rng from @seed (any value, 0 included). */
void fx_quant_rng_seed(fx_quant_rng_t *rng, uint64_t seed);

/* Integer to float, exact: out[i] = in[i] / 2^15 (S16 to F32) or in[i] / 2^31 (S32 to F64); every
 * integer sample is representable, so the float path sees exactly the user's samples. */
void fx_quant_s16_to_f32(const int16_t *in, float *out, size_t n);
void fx_quant_s32_to_f64(const int32_t *in, double *out, size_t n);

/* Float to integer: v = in[i] * 2^15 (2^31), plus the dither when @dither is FX_DITHER_TPDF
 * (drawn from @rng, which may be NULL with FX_DITHER_NONE), rounded to the nearest integer (ties
 * to even, as IEEE rint and numpy.rint), then clamped to the format's range. NaN becomes 0.
 * Returns the number of samples that were clamped (their rounded value lay outside the range). */
size_t fx_quant_f32_to_s16(const float *in, int16_t *out, size_t n, fx_dither_t dither,
                           fx_quant_rng_t *rng);
size_t fx_quant_f64_to_s32(const double *in, int32_t *out, size_t n, fx_dither_t dither,
                           fx_quant_rng_t *rng);

/* Float to an integer of @bits bits (2 to 32) held in an int32_t, for file formats whose width is
 * not 16 or 32 (24-bit, 8-bit): v = in[i] * 2^(bits-1), plus the dither (of +-1 LSB of @bits
 * bits), rounded to nearest (ties to even), clamped to [-2^(bits-1), 2^(bits-1) - 1]. NaN becomes
 * 0. The values are not shifted (a 24-bit sample 0x7FFFFF is 8388607). With @bits 16 or 32 it gives
 * what fx_quant_f32_to_s16() (on the same floats) and fx_quant_f64_to_s32() give, and draws the
 * same dither from the same seed. Returns the number of samples that were clamped. */
size_t fx_quant_f64_to_bits(const double *in, int32_t *out, size_t n, unsigned bits,
                            fx_dither_t dither, fx_quant_rng_t *rng);

#ifdef __cplusplus
}
#endif

#endif
