/* gst-fx — gain with a click-free per-sample ramp. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "gain.h"

#include "kernel_fpmode.h"

#include <math.h>

double fx_gain_db_to_linear(double db)
{
  return pow(10.0, db / 20.0);
}

#define FX_GAIN_APPLY(NAME, T)                                                                     \
  size_t NAME(T *data, size_t frames, int channels, double from, double to, int clip)              \
  {                                                                                                \
    size_t clipped = 0;                                                                            \
    if (!data || channels < 1 || frames == 0)                                                      \
      return 0;                                                                                    \
    const size_t ch = (size_t) channels;                                                           \
    /* Flush-to-zero / denormals-are-zero: subnormal input must not slow the loop down. */         \
    fx_fpmode_t fpm;                                                                               \
    fpmode_enter(&fpm);                                                                            \
    const double step = (to - from) / (double) frames;                                             \
    for (size_t f = 0; f < frames; f++) {                                                          \
      /* frame f gets from + step * (f + 1): the last frame lands exactly on `to`. */              \
      const double g = (f + 1 == frames) ? to : from + step * (double) (f + 1);                    \
      T *p = data + f * ch;                                                                        \
      for (size_t c = 0; c < ch; c++) {                                                            \
        T v = (T) ((double) p[c] * g);                                                             \
        if (clip) {                                                                                \
          if (v > (T) 1) {                                                                         \
            v = (T) 1;                                                                             \
            clipped++;                                                                             \
          } else if (v < (T) -1) {                                                                 \
            v = (T) -1;                                                                            \
            clipped++;                                                                             \
          }                                                                                        \
        }                                                                                          \
        p[c] = v;                                                                                  \
      }                                                                                            \
    }                                                                                              \
    fpmode_leave(&fpm);                                                                            \
    return clipped;                                                                                \
  }

FX_GAIN_APPLY(fx_gain_apply_f32, float)
FX_GAIN_APPLY(fx_gain_apply_f64, double)
