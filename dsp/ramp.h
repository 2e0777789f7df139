/* gst-fx — a linear parameter ramp of fixed length, advanced once per frame (internal to libfxdsp:
 * the effects smooth their parameter changes with it). Pure C11.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FX_RAMP_H
#define FX_RAMP_H

#include <stddef.h>

/* A parameter that moves from its current value to a new target in a straight line over `len`
 * frames. Semantics (the Python reference tests rely on them): a new target != the current
 * target restarts the ramp from the current value; each frame then adds (target - value) / len,
 * and the len-th frame lands exactly on the target. A ramp never depends on buffer sizes. */
typedef struct {
  double cur;
  double target;
  double inc;
  size_t left; /* frames until the target is reached */
} fx_ramp_t;

static inline void fx_ramp_jump(fx_ramp_t *r, double v)
{
  r->cur = r->target = v;
  r->inc = 0.0;
  r->left = 0;
}

static inline void fx_ramp_set(fx_ramp_t *r, double target, size_t len)
{
  if (target == r->target)
    return;
  r->target = target;
  if (len < 1)
    len = 1;
  r->inc = (target - r->cur) / (double) len;
  r->left = len;
}

/* The value for the next frame. */
static inline double fx_ramp_next(fx_ramp_t *r)
{
  if (r->left > 0) {
    r->left--;
    r->cur = r->left > 0 ? r->cur + r->inc : r->target;
  }
  return r->cur;
}

#endif
