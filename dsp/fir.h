/* gst-fx — FIR filters: windowed-sinc design (scipy.signal.firwin) and a streaming convolution
 * engine for interleaved F32/F64 audio (direct form for short kernels, zero-latency uniformly
 * partitioned FFT convolution with FFTW for long ones). Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef FX_FIR_H
#define FX_FIR_H

#include <stddef.h>

#include "design.h" /* fx_mode_t */

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  FX_FIR_WINDOW_HAMMING = 0,
  FX_FIR_WINDOW_HANN,
  FX_FIR_WINDOW_BLACKMAN,
  FX_FIR_WINDOW_KAISER,
  FX_FIR_WINDOW_RECTANGULAR,
} fx_fir_window_t;

/* Human-readable text of a status (dsp/status.h), in the FIR elements' property names where they
 * differ from fx_status_string(). Never NULL. */
const char *fx_fir_status_string(fx_status_t st);

#define FX_FIR_MAX_TAPS ((size_t) 1 << 20)
#define FX_FIR_MAX_BETA 100.0

typedef struct {
  fx_mode_t mode; /* low-pass, high-pass, band-pass, band-reject */
  size_t num_taps;
  double rate;   /* Hz */
  double cutoff; /* Hz, low/high-pass */
  double lower;  /* Hz, band modes */
  double upper;  /* Hz, band modes */
  fx_fir_window_t window;
  double beta; /* Kaiser window's beta */
} fx_fir_spec_t;

/* Validates the parameters the spec's mode and window use; FX_OK or the first error. */
fx_status_t fx_fir_spec_check(const fx_fir_spec_t *spec);

/* Windowed-sinc design with the semantics of scipy.signal.firwin(num_taps, cutoff(s),
 * window=..., pass_zero=..., scale=True, fs=rate): low-pass is pass_zero=True with [cutoff],
 * high-pass pass_zero=False with [cutoff], band-pass pass_zero=False with [lower, upper],
 * band-reject pass_zero=True with [lower, upper]. Writes num_taps taps. */
fx_status_t fx_fir_design(const fx_fir_spec_t *spec, double *taps);

/* The symmetric window of n points (scipy.signal.get_window(..., fftbins=False)). */
fx_status_t fx_fir_window(fx_fir_window_t window, double beta, size_t n, double *out);

/* Modified Bessel function of the first kind, order 0 (for the Kaiser window). */
double fx_fir_bessel_i0(double x);

/* FX_OK when 1 <= n <= FX_FIR_MAX_TAPS and every tap is finite. */
fx_status_t fx_fir_check_taps(const double *taps, size_t n);

/* ---------------------------------------------------------------------------------------------
 * Convolution engine: one fixed kernel, C interleaved channels, F32 or F64 samples. Output is
 * y[n] = sum_k h[k] x[n-k] per channel (scipy.signal.lfilter(h, 1, x)), independent of how the
 * stream is split into calls, with no added latency. Direct form computes every output sample
 * as a dot product; the partitioned form computes the first `head` taps directly and the rest
 * with uniformly partitioned overlap-save FFT convolution in levels of growing block size
 * (level l, block B_l, covers taps [B_l, B_{l+1}); its output for a block only needs input up to
 * the previous block, so nothing waits and the latency stays zero). Optionally (a latency
 * budget) the kernel runs delayed by a power-of-two block instead, for speed. */

typedef enum {
  FX_FIR_METHOD_AUTO = 0, /* direct up to `crossover` taps, partitioned above */
  FX_FIR_METHOD_DIRECT,
  FX_FIR_METHOD_PARTITIONED,
} fx_fir_method_t;

typedef struct {
  fx_fir_method_t method;
  size_t crossover; /* AUTO: largest kernel that runs direct (0 = default) */
  size_t head;   /* partitioned: first block size = taps done directly, power of 2 (0 = default) */
  size_t factor; /* partitioned: block growth per level, power of 2 >= 2 (0 = default) */
  size_t max_block; /* partitioned: largest block, power of 2 (0 = default) */
  int fftw_measure; /* plan with FFTW_MEASURE (1) or FFTW_ESTIMATE (0); -1 = default: ESTIMATE
                     * unless the environment has FX_FIR_FFTW_MEASURE=1 */
  size_t latency;   /* frames of latency allowed (0: none). From 64 on, the partitioned form runs
                     * the kernel delayed by a power-of-two block L within it (the fastest for the
                     * length: see fx_fir_engine_new; at most FX_FIR_MAX_LATENCY) with a first FFT
                     * block of L and no direct part: output y[n - L], much cheaper for long
                     * kernels */
} fx_fir_options_t;

/* Defaults chosen from fx-bench-fir measurements (bench/fir_engine.c, bench/results/fir.md,
 * stereo, AVX-512 on Zen 4): the direct form is faster up to about 160 taps in F32 and 128 taps
 * in F64; head 64 with growth 8 was the best or within noise of the best schedule at every
 * length. */
#define FX_FIR_DEFAULT_CROSSOVER_F32 160
#define FX_FIR_DEFAULT_CROSSOVER_F64 128
#define FX_FIR_DEFAULT_HEAD 64
#define FX_FIR_DEFAULT_FACTOR 8
#define FX_FIR_DEFAULT_MAX_BLOCK 4096
/* With a latency budget, the partitioned form (about 4.5 ns per stereo F32 frame whatever the
 * length up to a few thousand taps) is faster than the direct form above about this many taps. */
#define FX_FIR_DEFAULT_CROSSOVER_LATENCY 64
#define FX_FIR_MAX_LATENCY ((size_t) 1 << 16)

typedef struct fx_fir_engine fx_fir_engine_t;

/* Creates an engine for n taps (copied). Plans FFTs (serialised internally; plans are cached and
 * shared), so call it outside a real-time thread when possible. NULL on error (*status says
 * why; status may be NULL). opt may be NULL for the defaults. */
fx_fir_engine_t *fx_fir_engine_new(const double *taps, size_t n, int channels, int is_f64,
                                   const fx_fir_options_t *opt, fx_status_t *status);
void fx_fir_engine_free(fx_fir_engine_t *e);
/* Clears the history (zero input before the next sample). */
void fx_fir_engine_reset(fx_fir_engine_t *e);
/* Filters frames interleaved frames of in into out (F32 or F64 as created; in == out allowed). */
void fx_fir_engine_process(fx_fir_engine_t *e, const void *in, void *out, size_t frames);
size_t fx_fir_engine_taps(const fx_fir_engine_t *e);
/* Frames of latency the engine adds: 0 unless created with a latency budget (see
 * fx_fir_options_t.latency); its output is then y[n - latency]. */
size_t fx_fir_engine_latency(const fx_fir_engine_t *e);
/* "direct" or "partitioned", followed by the instruction set, e.g. "partitioned-avx2". */
const char *fx_fir_engine_method(const fx_fir_engine_t *e);

/* 1 when any of the samples (F32 or F64) is NaN or infinite, else 0. A vectorizable scan. */
int fx_fir_has_nonfinite(const void *samples, size_t n, int is_f64);

/* ---------------------------------------------------------------------------------------------
 * Stream: an engine plus click-free kernel changes. A new engine is primed with the recent input
 * history and crossfaded in linearly over `fade_frames`; an engine handed over during a fade
 * waits until the fade ends (a later one replaces it). Not thread-safe: one streaming thread. */

typedef struct fx_fir_stream fx_fir_stream_t;

fx_fir_stream_t *fx_fir_stream_new(int channels, int is_f64, size_t fade_frames);
void fx_fir_stream_free(fx_fir_stream_t *s);
/* Takes ownership of e (same channels/format as the stream). The first engine, or any engine
 * when `immediate` is set, applies at once without a fade (e.g. after a reset). Returns
 * FX_ERR_CHANNELS (and frees e) on a shape mismatch, FX_ERR_NOMEM on allocation failure. */
fx_status_t fx_fir_stream_set_engine(fx_fir_stream_t *s, fx_fir_engine_t *e, int immediate);
/* Clears all history (flush, new stream); a pending engine becomes the current one. */
void fx_fir_stream_reset(fx_fir_stream_t *s);
/* FX_OK, or FX_ERR_NOMEM when no engine has been set (output is then silence). */
fx_status_t fx_fir_stream_process(fx_fir_stream_t *s, const void *in, void *out, size_t frames);
/* The engine that runs now (the one fading in during a fade), or NULL. */
const fx_fir_engine_t *fx_fir_stream_engine(const fx_fir_stream_t *s);
/* Kernel changes completed (fades finished or immediate switches) since creation. */
unsigned long fx_fir_stream_switches(const fx_fir_stream_t *s);
int fx_fir_stream_fading(const fx_fir_stream_t *s);

#ifdef __cplusplus
}
#endif

#endif
