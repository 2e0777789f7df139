/* gst-fx — the SOS cascade engine. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One object per cascade: K sections, per-channel state, a backend (kernel). Processes
 * interleaved F32 or F64 buffers of any channel count in place. Output does not depend on how a
 * stream is split into buffers. New coefficients can be installed at any time without losing the
 * stream's history: the new cascade's state is derived from the signal history (as a direct-form-I
 * filter would switch), and the output crossfades from the old to the new cascade over a short
 * window, so parameter changes do not click. How it works and why: docs/cascade.md. */
#ifndef FX_CASCADE_H
#define FX_CASCADE_H

#include <stddef.h>
#include <stdint.h>

#include "design.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  FX_SAMPLE_F32 = 0,
  FX_SAMPLE_F64,
} fx_sample_format_t;

typedef enum {
  FX_PRECISION_AUTO = 0,
  FX_PRECISION_SINGLE,
  FX_PRECISION_DOUBLE,
} fx_precision_t;

/* Bits returned by fx_cascade_process(). */
enum {
  /* NaN/Inf input samples were replaced by 0 (or, never with finite input and coefficients,
   * non-finite values reached the state and it was reset) */
  FX_PROCESS_NONFINITE = 1 << 0,
};

typedef struct fx_cascade fx_cascade_t;

fx_cascade_t *fx_cascade_new(void);
void fx_cascade_free(fx_cascade_t *c);

/* Sets the stream shape (channels >= 1, else FX_ERR_CHANNELS) and arithmetic. Resets the state. F64
 * streams always run in double. With FX_PRECISION_AUTO an F32 stream runs in double whenever single
 * precision could be unstable or less accurate than scipy's float32 sosfilt. */
fx_status_t fx_cascade_configure(fx_cascade_t *c, int channels, fx_sample_format_t format,
                                 fx_precision_t precision);

/* Installs new coefficients (n >= 0 sections; n == 0 is an identity). `gain` multiplies the
 * output (folded into the first section). Keeps the history: the first call after configure()
 * or reset() takes effect at once; later calls crossfade over the crossfade length.
 * Every section must be stable; otherwise FX_ERR_UNSTABLE and nothing changes. */
fx_status_t fx_cascade_set_sections(fx_cascade_t *c, const fx_sos_t *sos, int n, double gain);

/* A cascade made of stages, as a chain of separate elements would be: each
 * FX_CASCADE_STAGE_SECTIONS stage behaves exactly like a cascade of its own
 * (fx_cascade_set_sections(sos, n, gain)), each FX_CASCADE_STAGE_GAIN stage like dsp/gain.c's ramp
 * (a change ramps linearly over the next fx_cascade_process() call, from the gain the previous call
 * ended with). */
typedef enum {
  FX_CASCADE_STAGE_SECTIONS = 0,
  FX_CASCADE_STAGE_GAIN,
} fx_cascade_stage_kind_t;

typedef struct {
  fx_cascade_stage_kind_t kind;
  const fx_sos_t *sos; /* SECTIONS: n sections (a0 == 1) */
  int n;               /* SECTIONS: n >= 0 */
  double gain;         /* SECTIONS: folded into the stage (as set_sections' gain); GAIN: linear */
} fx_cascade_stage_t;

/* Installs a cascade of `n_stages` stages in chain order. The output equals that of a chain of
 * standalone engines (one per SECTIONS stage, same crossfade length) and dsp/gain.c ramps (one per
 * GAIN stage) fed the same buffers, also while stages change: each stage keeps its own balancing,
 * history transfer, warm-up and crossfade, at its own boundaries. In steady state process() still
 * runs all sections in one kernel pass (gains are folded into the next stage's first section;
 * gains after the last SECTIONS stage are applied to the output). Only the stages whose
 * coefficients or gain changed go through a transition; a call with the same stages does nothing.
 * The stage structure (the sequence of kinds) is fixed by the first call after configure() or
 * reset() (or while no frame has been processed); a later call with another structure switches
 * at once and clears the history. Validation as for set_sections (every stage is checked before
 * anything changes). n_stages == 0 is an identity. */
fx_status_t fx_cascade_set_stages(fx_cascade_t *c, const fx_cascade_stage_t *stages, int n_stages);

/* Crossfade length in frames for coefficient changes (0 = switch at once). Default 256. */
void fx_cascade_set_crossfade(fx_cascade_t *c, size_t frames);

/* Clears all state (flush, new stream). Pending crossfades are dropped. */
void fx_cascade_reset(fx_cascade_t *c);

/* Filters `frames` interleaved frames in place. `data` is float * or double * according to the
 * configured format. Returns 0 or FX_PROCESS_* bits. One call = one dispatch. */
unsigned fx_cascade_process(fx_cascade_t *c, void *data, size_t frames);

int fx_cascade_channels(const fx_cascade_t *c);
int fx_cascade_sections(const fx_cascade_t *c);
/* Calls into the backend since creation or the last reset of the counter. */
uint64_t fx_cascade_dispatches(const fx_cascade_t *c);
void fx_cascade_reset_dispatches(fx_cascade_t *c);
/* Frames filtered to warm a new cascade up after coefficient changes (a section count change or
 * a large jump runs the new cascade over recent input, at most the warm-up window, before the
 * crossfade), counted per channel, since creation or the last reset of the dispatch counter.
 * Statistics. */
uint64_t fx_cascade_warm_frames(const fx_cascade_t *c);
/* Offloading (dsp/ knows no GPU; cuda/ implements this hook). When set, every kernel pass over the
 * running cascade (steady state: one per fx_cascade_process() call) is handed to `fn` with the
 * engine's own arrays. fn returns 0 when it filtered the call (data, state and hist updated, as
 * the CPU kernel would: kernel.h's contract), 1 when it declines this call (the CPU kernel runs
 * it), or -1 on failure: it must then have left data, state and hist untouched; the engine runs
 * the CPU kernel for that call and clears the hook, so no buffer is lost and the state carries
 * over. Crossfades' old paths, warm-ups and gains always run on the CPU. */
typedef struct {
  fx_sample_format_t format;
  int dbl;          /* coef, state and ck_state hold double (1) or float (0) numbers */
  int channels;     /* C */
  int kstride;      /* sections of the whole cascade (array layout) */
  int k0, K;        /* sections k0 .. k0+K-1 run */
  const void *coef; /* [kstride][5] */
  void *state;      /* [C][kstride][2] */
  double *hist;     /* [C][kstride+1][2] */
  void *data;       /* [frames][C], float or double per format, in place */
  size_t frames;
  /* Checkpoints (only in cascades of several stages): for i = 0, 1 with cut[i] != 0, the state
   * of sections k0 .. k0+K-1 after cut[i] frames (1 <= cut[i] <= frames) is stored into
   * ck_state[i], laid out as `state`; other sections there are left alone. */
  size_t cut[2];
  void *ck_state[2];
} fx_cascade_offload_call_t;

typedef int (*fx_cascade_offload_fn_t)(void *ctx, const fx_cascade_offload_call_t *call);

/* Installs (fn != NULL) or removes the hook. */
void fx_cascade_set_offload(fx_cascade_t *c, fx_cascade_offload_fn_t fn, void *ctx);
/* 1 while a hook is installed (it is removed when it fails). */
int fx_cascade_offload_active(const fx_cascade_t *c);

/* Input history (default on): the engine keeps a copy of recent input (the warm-up window; twice
 * that with several stages), so that a coefficient change that needs a warm-up (a new section
 * count or a large jump) runs the new sections over recent input and switches without a click.
 * Off: no copy of the input is made (one memcpy of every buffer and that much memory less;
 * docs/cascade.md has its cost) and such a change starts the new sections from the zero state
 * instead (still crossfaded; the DF-I switch of small changes is unaffected): for streams whose
 * coefficients do not change while they run. Turning it on again mid-stream keeps only the input
 * from then on. FX_ERR_NOMEM when the ring cannot be allocated (then it stays off). */
fx_status_t fx_cascade_set_history(fx_cascade_t *c, int keep);

/* The channel count to lay a wide stream out with, for a producer that is free to add unused
 * (zero) channels after its own: `channels` or a little more (at most 127 bytes per frame), so
 * that a frame of `sample_bytes`-byte samples spans an odd number of 64-byte cache lines once it
 * spans 1 KiB or more. The kernels walk down a column of channels, one frame apart; with frames a
 * power of two of bytes long (1024 F32 channels: 4 KiB) every frame's line falls into the same L1
 * cache set, and the walk misses the cache on every frame (docs/cascade.md has the measurement). */
int fx_cascade_padded_channels(int channels, int sample_bytes);

/* What runs now, e.g. "cpu-scalar-f64" (arithmetic precision, not the stream format). */
const char *fx_cascade_backend(const fx_cascade_t *c);

/* FX_PRECISION_AUTO on an F32 stream: the probe behind the arithmetic of the installed design,
 * as signal-to-error ratios in dB against the engine's double arithmetic: the float path this
 * cascade runs (ser_single) and scipy-style float32 sosfilt (ser_scipy). Single precision runs
 * when ser_single beats ser_scipy by a margin (0.5 dB, more behind slow poles). 0 (nothing
 * written) where no probe applies. */
int fx_cascade_precision_probe(const fx_cascade_t *c, double *ser_single, double *ser_scipy);
/* The same probe's SER of the chunked double path (one or two channels, 4 double lanes), which
 * double arithmetic under AUTO takes at 140 dB or more. 0 (nothing written) where it was not
 * measured. */
int fx_cascade_precision_probe_chunked_double(const fx_cascade_t *c, double *ser);
/* 1 when the configured arithmetic is double. */
int fx_cascade_uses_double(const fx_cascade_t *c);
/* 1 when the cascade runs the chunked kernels (kernel.h, fx_kernel_chunk_fn) on the CPU. */
int fx_cascade_uses_chunked(const fx_cascade_t *c);

#ifdef __cplusplus
}
#endif

#endif
