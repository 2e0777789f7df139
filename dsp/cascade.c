/* gst-fx — the SOS cascade engine. Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Structure:
 *   - A cascade is a chain of stages (fx_cascade_set_stages(); fx_cascade_set_sections() installs
 *     one stage): SECTIONS stages, each behaving exactly like a standalone cascade of its own, and
 *     GAIN stages, each behaving like dsp/gain.c's per-buffer ramp. The gains between two SECTIONS
 *     stages form a "junction"; junction s is in front of SECTIONS stage s, junction S (S stages)
 *     after the last one.
 *   - `cur` holds the running coefficients and per-channel TDF-II state of ALL sections, stage
 *     after stage, in one array (stage s covers sections k0 .. k0+K-1), so that in steady state one
 *     kernel call filters a buffer through the whole cascade. A stage without sections runs as one
 *     identity section (exact: y = x). The gains of junction s (s < S) are folded into the
 *     numerator of stage s's first section (the TDF-II state does not depend on that folding);
 *     the gains of junction S are applied to the output.
 *   - `hist` holds, per channel and per section boundary of `cur`, the last two samples of the
 *     signal entering that section (the kernels record it for free). At the boundary in front of
 *     stage s it holds junction s's signal BEFORE its gains (the previous stage's output after its
 *     crossfade); the stage's own input is that times the junction gains of those two frames
 *     (tracked as Gl/Gp). While a stage's output differs from the junction signal (during its
 *     crossfade: the new path's output vs the mix), the stage keeps its own output history in yh.
 *   - Every stage is installed balanced (see "Section balancing" below), each on its own, exactly
 *     as a standalone cascade with its sections: each section's numerator is scaled by a power of
 *     two so that the signals between sections have comparable, signal-level scales whatever the
 *     design. The scaling is exact, so the output is bit-identical to the unbalanced cascade's.
 *   - `ring` holds the last FX_RING frames of cascade input (stream format), written at the start
 * of every process() call.
 *   - When a stage's coefficients change after audio has passed, its new sections need a state:
 *       - Same section count and no pole moving by more than FX_WARM_THRESHOLD times its
 *         bandwidth (controller ramps): the stage's history is brought to the new balancing
 *         (inner boundaries meet at signal level) and the state is derived from it with the NEW
 *         coefficients, as a direct-form-I filter would switch:
 *             z2 = b2 x[n] - a2 y[n];   z1 = b1 x[n] - a1 y[n] + b2 x[n-1] - a2 y[n-1]
 *         where x is the section's input and y its output. No extra filtering.
 *       - A new section count, a large jump, or a slow section that keeps its poles behind one
 *         whose poles move (see slow_after_change()): warm-up. The new sections run over the last
 *         input frames of the stage, as many as its slowest pole needs to decay by
 *         FX_WARM_DECAY (at most FX_RING, the window; where they need more, the crossfade below
 *         lasts until they have run that many frames in all), starting from the steady state
 *         for a constant input equal to the window's first frame (or from the zero state at the
 *         start of the stream, exactly, when the whole stream since the reset is in the ring).
 *         The cost is that many frames of extra filtering per change (fx_cascade_warm_frames()),
 *         paid in set_stages(), never in process(). The stage's input is reconstructed exactly
 *         (see "Warm-up of an inner stage" below).
 *   - In addition the stage's output crossfades linearly from its old sections (`old`, which keep
 *     running on the same input with their own copy of the state) to the new ones over `xf_len`
 *     frames, at the stage's own output: the following stages filter the faded signal, as in a
 *     chain of separate elements. The crossfade position persists across buffers. New
 *     coefficients arriving during a crossfade replace only the new path (DF-I transfer or warm-up
 *     again); the old path and the weight ramp go on.
 *   - A GAIN stage's change ramps linearly over the next process() call, from the gain the
 *     previous call ended with, applied with dsp/gain.c at the gain's position (its junction).
 *   - process(): the stages are processed in chain order, each over the whole buffer; runs of
 *     stages that are neither crossfading nor preceded by a ramping (or recorded, see below)
 *     junction go through ONE kernel call. In steady state that is the whole cascade: one call
 *     (plus the output gains, if any: one multiplication pass, as a standalone fxgain).
 *     A crossfading stage runs on its own (old path, new path, mix); a ramping junction applies its
 *     gains to the buffer and the stage after it runs with its unfolded first section.
 *
 * Warm-up of an inner stage: a standalone engine warms up on its own recent input; inside the
 * cascade that is the output of the preceding stages, which the single pass never materialises.
 * It is recomputed exactly (to rounding: measured <= 1e-11 relative in F64; see
 * junction_signal()):
 *   - The engine keeps 2 FX_RING frames of cascade input and, every FX_RING frames (the pass
 *     splits there; splits do not change results), a checkpoint of the state of all sections
 *     (the latest two are kept).
 *     When the preceding stages and the junctions up to the stage did not change since the
 *     checkpoint before the warm-up window, they are re-run from it over the input.
 *   - When a stage changes (or a junction's gain), the signal after it (the next junction's; the
 *     junction's own for a gain) is first reconstructed that way over the last FX_RING frames or
 *     more, then recorded by process() while the stage's transition lasts and 2 FX_RING frames
 *     more: the junction then starts a kernel call of its own ("sticky"; two calls per buffer
 *     instead of one for that time, never in steady state). A later warm-up re-runs only the
 *     stages after the latest suitable record, from a checkpoint, or takes the record as it is.
 *     So warm-ups stay exact however the stages before the warmed one change.
 *   - Only when no such source exists (a record could not be allocated; buffers longer than
 *     2 FX_RING frames) the preceding stages are re-run as they are now over
 *     the whole ring, starting from the steady state for its first frame: an approximation (its
 *     error decays with the preceding stages' slowest pole over the ring; measured before
 *     records existed, for a warm-up 1000 frames after a step of an earlier stage, 4e-8
 *     relative, for one during a controller ramp of an earlier stage, 2e-4).
 *
 * Conventions decided here (beyond cascade.h):
 *   - "First call after configure()/reset() takes effect at once" is extended to: any
 *     set_stages() while no frame has been processed since configure()/reset() (or since a
 *     non-finite reset) switches at once, since there is no history to keep.
 *   - set_stages()/set_sections() with exactly the coefficients already running does nothing (no
 *     crossfade), so callers may re-send unchanged coefficients every buffer at no cost.
 *   - Coefficients survive configure() and reset(); only state, history, crossfades and gain ramps
 *     are cleared.
 *   - n == 0 with gain != 1 installs one gain-only section (b0 = gain), so the gain is honoured;
 *     fx_cascade_sections() then reports 1. fx_cascade_sections() counts the stages' sections
 *     (identity stages count 0).
 *   - dispatches counts every fx_cascade_process() call that runs the kernel: a configured engine
 *     and frames > 0. One per call, however many kernel invocations transitions need internally.
 *   - FX_ERR_CAPACITY is also returned for an invalid channel count and for allocation failure
 *     (fx_status_t has no dedicated code); FX_ERR_TYPE for an unknown format, precision or stage
 *     kind; FX_ERR_GAIN for a non-finite gain; FX_ERR_NONFINITE for non-finite coefficients.
 *   - Precision: F64 streams always run in double. For F32 streams FX_PRECISION_AUTO runs in
 *     double: that is always at least as accurate as scipy's float32 sosfilt and never unstable.
 *     Single precision (balanced sections, float coefficients and state, FMA kernels) was
 *     measured against scipy's float32 sosfilt (SER vs float64) on 2140 random designs (all
 *     families and modes, orders 1-64, 10 Hz to 0.98 Nyquist, 8-96 kHz): its median is 1 dB
 *     better, but in every pole-radius band some designs are worse than scipy (8% of those with
 *     all poles inside radius 0.9, by up to 0.7 dB; 12-16% inside 0.999, by up to 3.3 dB; a
 *     quarter of those closer to the unit circle, by up to 150 dB), and 3 of the 128 F32 cases of
 * tests/python/test_elements.py fall below scipy - 1 dB. Both round the same coefficients to float
 * (checked bit for bit); the difference is rounding in the recurrence, so no criterion on the
 * coefficients (pole radii, section sensitivity) selects single safely.
 *   - Scratch memory (for the crossfade's old path and for warm-ups), the ring, the checkpoints and
 *     the junction records are allocated in set_stages()/configure(), never in process(); they
 *     are grown only when needed.
 *   - The warm-up depends only on the input (the ring) and the coefficients, so the output stays
 *     independent of how the stream is split into buffers, changes included (gain ramps excepted:
 *     like dsp/gain.c they span one buffer).
 *   - Non-finite values: NaN/Inf input samples are replaced by 0 before anything else sees them
 *     (FX_PROCESS_NONFINITE is returned). As a safety net, after each process() call the state
 *     and history are checked; if any is NaN/Inf, everything is reset (same bit).
 *   - Not thread-safe: callers serialise access. */
#include "cascade.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "finite.h"
#include "gain.h"
#include "kernel.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Frames of the old path filtered per kernel call during a crossfade (bounds the scratch). */
#define FX_XF_CHUNK 1024
#define FX_DEFAULT_CROSSFADE 256
/* Input frames a warm-up may use per channel (the engine's window, c->win): the same for every
 * channel count, so that each channel of a wide stream gets exactly what it gets alone, changes
 * included (a window that shrank with the channel count made a 12-channel stream's transitions
 * differ from its channels' mono runs). 8192 frames warm most stages fully; where the new sections
 * need more (a 50 Hz notch with q 8, an order-16 Butterworth at 20 Hz) the crossfade lengthens
 * instead (see prepare_stage()). The ring keeps FX_WIN frames per channel (twice that in fused
 * chains). */
#define FX_WIN 8192
/* A section is slow (see slow_after_change()) when its transient outlasts this many frames. */
#define FX_SLOW_FRAMES 4096
#define FX_RING (c->win)
/* Input frames kept per channel (warm-up window plus the distance to the checkpoint before it). */
#define FX_RING2 (2 * FX_RING)
/* A warm-up runs until the slowest pole of the new cascade has decayed by this factor (or over
 * the whole ring). */
#ifndef FX_WARM_DECAY
#define FX_WARM_DECAY 1e-3
#endif
/* Same section count: when a pole moves by more than this many times its distance from the unit
 * circle (its bandwidth), the new state comes from a warm-up instead of the direct-form-I
 * transfer. Controller ramps measured (linear in Hz, 256-frame steps, 15 kHz <-> 40 Hz over
 * 0.6 s, orders 8 and 16) stay below 6; jumps such as 15 kHz -> 1 kHz score 50 and more. */
#ifndef FX_WARM_THRESHOLD
#define FX_WARM_THRESHOLD 10.0
#endif

typedef struct {
  int K;
  double *coef;     /* [K][5], double (run coefficients) */
  float *coef_f;    /* [K][5], rounded to float for single precision */
  size_t coef_cap;  /* sections allocated for coef / coef_f */
  double *state;    /* [C][K][2], double arithmetic */
  float *state_f;   /* [C][K][2], single arithmetic */
  size_t state_cap; /* elements allocated for state / state_f */
} fx_path_t;

/* One SECTIONS stage. */
typedef struct {
  int Kn;        /* nominal sections (0: identity) */
  int K;         /* sections in `cur`: max(Kn, 1) */
  int k0;        /* first section in `cur` */
  double *pure;  /* [K][5]: balanced, the stage's own gain folded in, not the junction's */
  double *ex;    /* [K + 1]: balancing residuals (see balance()) */
  int xf_active; /* crossfading from `old` */
  size_t xf_len, xf_pos;
  fx_path_t old;     /* old path: run coefficients (junction gain folded in) and state */
  double *old_pure;  /* [old.K][5] */
  size_t old_pure_n; /* sections allocated in old_pure */
  double *yh;        /* [C][2]: the stage's own output history when it differs from hist */
  int yh_valid;
  uint64_t changed_at; /* stream frame at which its last transition ended (or was started) */
} fx_stage_rt_t;

/* The gains in front of SECTIONS stage s (s == S: after the last one). */
typedef struct {
  int n;
  double *target;  /* [n] the gains to reach */
  double *applied; /* [n] the gains the last process() call ended with */
  double Gl, Gp;   /* product of the gains applied at the last and the second last frame */
  uint64_t changed_at;
  /* The junction's signal after its gains (stage s's input), recorded at stream positions modulo
   * FX_RING2 (stream format), continuous since rec_start (FX_NONE: nothing valid). Kept while
   * earlier stages change (see junction_signal()). */
  void *rec;
  uint64_t rec_start;
  uint64_t sticky_until; /* process() starts a segment here (and records) until this frame */
} fx_junction_t;

#define FX_NONE UINT64_MAX

/* State of all sections at a stream frame position (for re-running preceding stages). */
typedef struct {
  uint64_t pos;
  int valid;
  double *state; /* [C][K][2] */
  float *state_f;
  size_t cap;
} fx_checkpoint_t;

struct fx_cascade {
  int channels; /* 0 until configured */
  fx_sample_format_t format;
  fx_precision_t precision;
  int dbl; /* arithmetic is double */
  const fx_kernel_t *kernel;
  char backend[48];

  fx_path_t cur; /* all sections (K = total) */
  double *hist;  /* [C][cur.K + 1][2] */
  size_t hist_cap;

  int S;             /* SECTIONS stages (>= 1 once installed) */
  fx_stage_rt_t *st; /* [S] */
  fx_junction_t *jn; /* [S + 1] */
  int installed;     /* a structure is installed */

  int fresh; /* no frame processed since configure/reset: switch at once */

  size_t xf_default; /* crossfade length for the next change */

  void *scratch; /* old path's copy of the input: scratch_bytes */
  size_t scratch_bytes;
  double *tmp; /* [C][2] x 2 */
  size_t tmp_cap;
  double *jold; /* [S][C][2]: junction boundaries' history at the start of process() */
  size_t jold_cap;
  int *seg; /* [S + 1]: where process() splits the pass */
  size_t seg_cap;

  /* The last ring_len frames of input (stream format, interleaved): FX_RING for one stage (a
   * standalone cascade), FX_RING2 for more (checkpoint replays). ring_pos: next frame written;
   * ring_total: frames since the stream (re)started; the ring holds the frames since ring_from
   * (the last ring_len of them). Without `history` (fx_cascade_set_history()) nothing is copied
   * and the ring is not even allocated; turning it on sets ring_from. */
  void *ring;
  size_t ring_bytes, ring_pos, ring_len;
  size_t win; /* warm-up window (FX_RING): FX_WIN */
  uint64_t ring_total, ring_from;
  int history;
  void *warm; /* scratch for warm-ups: ring_len frames, allocated on first use */
  size_t warm_bytes;
  uint64_t warm_frames; /* frames filtered by warm-ups (statistics) */

  fx_checkpoint_t ck[2]; /* the two latest checkpoints (positions multiple of FX_RING) */

  uint64_t dispatches;

  fx_cascade_offload_fn offload; /* see fx_cascade_set_offload() */
  void *offload_ctx;
};

/* ---------------------------------------------------------------------------------------------
 * Allocation helpers (never called from the per-sample path). */

static int grow(void **p, size_t *cap_elems, size_t need, size_t elem)
{
  if (need <= *cap_elems && *p)
    return 1;
  if (need == 0)
    need = 1;
  void *q = realloc(*p, need * elem);
  if (!q)
    return 0;
  *p = q;
  *cap_elems = need;
  return 1;
}

static int path_reserve(fx_path_t *p, int K, int channels)
{
  if ((size_t) K > p->coef_cap || !p->coef || !p->coef_f) {
    size_t need = K > 0 ? (size_t) K * 5 : 5;
    double *d = realloc(p->coef, need * sizeof(double));
    if (!d)
      return 0;
    p->coef = d;
    float *f = realloc(p->coef_f, need * sizeof(float));
    if (!f)
      return 0;
    p->coef_f = f;
    p->coef_cap = K > 0 ? (size_t) K : 1;
  }
  size_t need = (size_t) K * 2 * (size_t) (channels > 0 ? channels : 0);
  if (need > p->state_cap || !p->state || !p->state_f) {
    size_t n = need ? need : 1;
    double *d = realloc(p->state, n * sizeof(double));
    if (!d)
      return 0;
    p->state = d;
    float *f = realloc(p->state_f, n * sizeof(float));
    if (!f)
      return 0;
    p->state_f = f;
    p->state_cap = n;
  }
  return 1;
}

static void path_free(fx_path_t *p)
{
  free(p->coef);
  free(p->coef_f);
  free(p->state);
  free(p->state_f);
  memset(p, 0, sizeof(*p));
}

static void path_zero_state(fx_path_t *p, int channels)
{
  size_t n = (size_t) p->K * 2 * (size_t) (channels > 0 ? channels : 0);
  if (n) {
    memset(p->state, 0, n * sizeof(double));
    memset(p->state_f, 0, n * sizeof(float));
  }
}

static size_t hist_len(int K, int channels)
{
  return ((size_t) K + 1) * 2 * (size_t) (channels > 0 ? channels : 0);
}

static void update_backend(fx_cascade_t *c)
{
  snprintf(c->backend, sizeof(c->backend), "cpu-%s-%s", c->kernel->name, c->dbl ? "f64" : "f32");
}

static size_t sample_size(const fx_cascade_t *c)
{
  return c->format == FX_SAMPLE_F64 ? sizeof(double) : sizeof(float);
}

static void stage_free(fx_stage_rt_t *s)
{
  free(s->pure);
  free(s->ex);
  path_free(&s->old);
  free(s->old_pure);
  free(s->yh);
  memset(s, 0, sizeof(*s));
}

static void junction_free(fx_junction_t *j)
{
  free(j->target);
  free(j->applied);
  free(j->rec);
  memset(j, 0, sizeof(*j));
}

static void structure_free(fx_cascade_t *c)
{
  for (int s = 0; s < c->S; s++)
    stage_free(&c->st[s]);
  if (c->jn)
    for (int s = 0; s <= c->S; s++)
      junction_free(&c->jn[s]);
  free(c->st);
  free(c->jn);
  c->st = NULL;
  c->jn = NULL;
  c->S = 0;
  c->installed = 0;
}

/* Product of a junction's gains (applied or target), in chain order. */
static double junction_gain(const fx_junction_t *j, int target)
{
  double g = 1.0;
  for (int i = 0; i < j->n; i++)
    g *= target ? j->target[i] : j->applied[i];
  return g;
}

static int junction_ramps(const fx_junction_t *j)
{
  for (int i = 0; i < j->n; i++)
    if (j->applied[i] != j->target[i])
      return 1;
  return 0;
}

/* Writes stage s's first section into `cur` (and into its old path) with the junction gain g
 * folded into the numerator. */
static void fold_stage(fx_cascade_t *c, int s, double g)
{
  fx_stage_rt_t *st = &c->st[s];
  double *d = c->cur.coef + 5 * (size_t) st->k0;
  float *f = c->cur.coef_f + 5 * (size_t) st->k0;
  for (int k = 0; k < 5; k++) {
    d[k] = k < 3 ? st->pure[k] * g : st->pure[k];
    f[k] = (float) d[k];
  }
  if (st->xf_active && st->old.K > 0) {
    for (int k = 0; k < 5; k++) {
      st->old.coef[k] = k < 3 ? st->old_pure[k] * g : st->old_pure[k];
      st->old.coef_f[k] = (float) st->old.coef[k];
    }
  }
}

/* ---------------------------------------------------------------------------------------------
 * Life cycle */

fx_cascade_t *fx_cascade_new(void)
{
  fx_cascade_t *c = calloc(1, sizeof(*c));
  if (!c)
    return NULL;
  c->format = FX_SAMPLE_F32;
  c->precision = FX_PRECISION_AUTO;
  c->dbl = 1;
  c->kernel = fx_kernel_select();
  c->fresh = 1;
  c->xf_default = FX_DEFAULT_CROSSFADE;
  c->win = FX_WIN;
  c->ring_len = FX_RING;
  c->history = 1;
  if (!path_reserve(&c->cur, 0, 0)) {
    fx_cascade_free(c);
    return NULL;
  }
  update_backend(c);
  return c;
}

void fx_cascade_free(fx_cascade_t *c)
{
  if (!c)
    return;
  structure_free(c);
  path_free(&c->cur);
  free(c->hist);
  free(c->scratch);
  free(c->tmp);
  free(c->jold);
  free(c->seg);
  free(c->ring);
  free(c->warm);
  for (int i = 0; i < 2; i++) {
    free(c->ck[i].state);
    free(c->ck[i].state_f);
  }
  free(c);
}

static void clear_stream(fx_cascade_t *c)
{
  path_zero_state(&c->cur, c->channels);
  size_t hn = hist_len(c->cur.K, c->channels);
  if (hn && c->hist)
    memset(c->hist, 0, hn * sizeof(double));
  for (int s = 0; s < c->S; s++) {
    c->st[s].xf_active = 0;
    c->st[s].xf_pos = c->st[s].xf_len = 0;
    c->st[s].old.K = 0;
    c->st[s].yh_valid = 0;
    c->st[s].changed_at = 0;
  }
  if (c->jn) {
    for (int s = 0; s <= c->S; s++) {
      fx_junction_t *j = &c->jn[s];
      for (int i = 0; i < j->n; i++)
        j->applied[i] = j->target[i];
      j->Gl = j->Gp = junction_gain(j, 1);
      j->changed_at = 0;
      j->rec_start = FX_NONE;
      j->sticky_until = 0;
      if (s < c->S)
        fold_stage(c, s, j->Gl);
    }
  }
  c->fresh = 1;
  c->ring_pos = 0;
  c->ring_total = 0;
  c->ring_from = 0;
  /* The zero state at the start of the stream is the first checkpoint. */
  c->ck[0].valid = c->ck[0].cap >= (size_t) c->cur.K * 2 * (size_t) c->channels;
  c->ck[0].pos = 0;
  if (c->ck[0].valid && c->cur.K > 0) {
    memset(c->ck[0].state, 0, (size_t) c->cur.K * 2 * (size_t) c->channels * sizeof(double));
    memset(c->ck[0].state_f, 0, (size_t) c->cur.K * 2 * (size_t) c->channels * sizeof(float));
  }
  c->ck[1].valid = 0;
}

static int reserve_checkpoints(fx_cascade_t *c, int K, int channels)
{
  size_t need = (size_t) K * 2 * (size_t) channels;
  for (int i = 0; i < 2; i++) {
    fx_checkpoint_t *k = &c->ck[i];
    if (need > k->cap || !k->state) {
      size_t n = need ? need : 1;
      double *d = realloc(k->state, n * sizeof(double));
      if (!d)
        return 0;
      k->state = d;
      float *f = realloc(k->state_f, n * sizeof(float));
      if (!f)
        return 0;
      k->state_f = f;
      k->cap = n;
    }
  }
  return 1;
}

static int reserve_stream(fx_cascade_t *c, int channels, fx_sample_format_t format)
{
  const size_t ss = format == FX_SAMPLE_F64 ? sizeof(double) : sizeof(float);
  c->ring_len = c->S > 1 ? FX_RING2 : FX_RING;
  if (!path_reserve(&c->cur, c->cur.K, channels) ||
      !grow((void **) &c->hist, &c->hist_cap, hist_len(c->cur.K, channels), sizeof(double)) ||
      (c->history && !grow(&c->ring, &c->ring_bytes, c->ring_len * (size_t) channels * ss, 1)) ||
      !grow((void **) &c->tmp, &c->tmp_cap, (size_t) channels * 4, sizeof(double)) ||
      !grow((void **) &c->jold, &c->jold_cap, ((size_t) c->S + 1) * (size_t) channels * 2,
            sizeof(double)) ||
      !grow((void **) &c->seg, &c->seg_cap, (size_t) c->S + 1, sizeof(int)) ||
      !reserve_checkpoints(c, c->cur.K, channels))
    return 0;
  if (c->jn)
    for (int s = 0; s <= c->S; s++) {
      free(c->jn[s].rec);
      c->jn[s].rec = NULL;
    }
  for (int s = 0; s < c->S; s++) {
    size_t n = (size_t) channels * 2;
    double *y = realloc(c->st[s].yh, n * sizeof(double));
    if (!y)
      return 0;
    c->st[s].yh = y;
  }
  return 1;
}

fx_status_t fx_cascade_configure(fx_cascade_t *c, int channels, fx_sample_format_t format,
                                 fx_precision_t precision)
{
  if (!c || channels < 1)
    return FX_ERR_CAPACITY;
  if (format != FX_SAMPLE_F32 && format != FX_SAMPLE_F64)
    return FX_ERR_TYPE;
  if (precision != FX_PRECISION_AUTO && precision != FX_PRECISION_SINGLE &&
      precision != FX_PRECISION_DOUBLE)
    return FX_ERR_TYPE;
  if (!reserve_stream(c, channels, format))
    return FX_ERR_CAPACITY;
  c->channels = channels;
  c->format = format;
  c->precision = precision;
  /* AUTO means double for now (see the header comment of this file). */
  c->dbl = format == FX_SAMPLE_F64 || precision != FX_PRECISION_SINGLE;
  update_backend(c);
  clear_stream(c);
  return FX_OK;
}

void fx_cascade_reset(fx_cascade_t *c)
{
  if (c)
    clear_stream(c);
}

void fx_cascade_set_crossfade(fx_cascade_t *c, size_t frames)
{
  if (c)
    c->xf_default = frames;
}

/* ---------------------------------------------------------------------------------------------
 * Section balancing
 *
 * Designs in scipy's form put the whole gain in the first section (1e-23 and less at low
 * cutoffs) and leave the later sections with huge DC gains, so the signals between sections
 * have design-dependent scales many orders of magnitude apart. That ruins the direct-form-I
 * state transfer between two designs, and float coefficients may even underflow. So every
 * cascade is installed balanced: section s's numerator is multiplied by 2^e_s, with
 * sum(e_s) == 0, chosen so that each section's peak gain is close to the K-th root of the product
 * of all section peaks (the cumulative scale after each section is the power of two nearest the
 * ideal one). Multiplying by powers of two is exact, and every operation of a section is linear,
 * so every intermediate signal is scaled exactly: the output is bit-identical to the unbalanced
 * cascade's (short of overflow/underflow, which the balancing avoids rather than causes). */

/* |H(e^jw)| of one section [b0 b1 b2 a1 a2]. */
static double sec_mag(const double *d, double w)
{
  const double c1 = cos(w), s1 = sin(w), c2 = cos(2.0 * w), s2 = sin(2.0 * w);
  const double nr = d[0] + d[1] * c1 + d[2] * c2, ni = d[1] * s1 + d[2] * s2;
  const double dr = 1.0 + d[3] * c1 + d[4] * c2, di = d[3] * s1 + d[4] * s2;
  return sqrt((nr * nr + ni * ni) / (dr * dr + di * di));
}

/* Angle of a section's complex pole pair, or -1 for real poles. */
static double pole_angle(const double *d)
{
  if (d[4] <= 0.0 || d[3] * d[3] >= 4.0 * d[4])
    return -1.0;
  double c = -d[3] / (2.0 * sqrt(d[4]));
  return acos(c < -1.0 ? -1.0 : (c > 1.0 ? 1.0 : c));
}

#define FX_PEAK_GRID 16
/* Sections balanced at most (the designs produce at most FX_DESIGN_MAX_SECTIONS). */
#define FX_BALANCE_MAX 256

/* Estimated peak magnitude response: DC, Nyquist, the pole angle and a small grid. */
static double sec_peak(const double *d)
{
  double p = fmax(sec_mag(d, 0.0), sec_mag(d, M_PI));
  double th = pole_angle(d);
  if (th >= 0.0)
    p = fmax(p, sec_mag(d, th));
  for (int i = 0; i < FX_PEAK_GRID; i++)
    p = fmax(p, sec_mag(d, M_PI * ((double) i + 0.5) / FX_PEAK_GRID));
  return p;
}

/* Balances K sections in place (see above); leaves them as they are when that is impossible.
 * res[0..K] receives, for each section boundary s, log2 of the ratio of the scale applied (a power
 * of two) to the ideal one (|res| <= 1/2; 0 at the input and output): the transfer between two
 * cascades rescales the history by 2^(res_new - res_old), so that an exponent that flips between
 * two nearly equal designs does not disturb the history, while the boundary signals of two very
 * different designs meet at signal level. */
static void balance(double *coef, int K, double *res)
{
  int ex[FX_BALANCE_MAX + 1];
  for (int s = 0; s <= K; s++)
    res[s] = 0.0;
  if (K < 2 || K > FX_BALANCE_MAX)
    return;
  for (int s = 0; s <= K; s++)
    ex[s] = 0;
  double lsum = 0.0;
  for (int s = 0; s < K; s++) {
    double p = sec_peak(coef + 5 * (size_t) s);
    if (!(p > 0.0) || !isfinite(p))
      return;
    lsum += log2(p);
  }
  const double mean = lsum / K;
  double cum = 0.0;
  for (int s = 0; s < K - 1; s++) {
    cum += mean - log2(sec_peak(coef + 5 * (size_t) s));
    if (!(fabs(cum) < 900.0)) { /* absurd scales: leave the cascade as it is */
      for (int j = 0; j <= K; j++)
        res[j] = 0.0;
      return;
    }
    ex[s + 1] = (int) lround(cum);
    res[s + 1] = (double) ex[s + 1] - cum;
  }
  /* every scaling must be exact (no overflow, nothing near the subnormal range) */
  for (int s = 0; s < K; s++) {
    const int e = ex[s + 1] - ex[s];
    for (int k = 0; k < 3; k++) {
      const double d = coef[5 * (size_t) s + (size_t) k], v = ldexp(d, e);
      if (d != 0.0 && (!isfinite(v) || fabs(v) < 0x1p-900 || fabs(v) > 0x1p900)) {
        for (int j = 0; j <= K; j++)
          res[j] = 0.0;
        return;
      }
    }
  }
  for (int s = 0; s < K; s++)
    for (int k = 0; k < 3; k++)
      coef[5 * (size_t) s + (size_t) k] =
          ldexp(coef[5 * (size_t) s + (size_t) k], ex[s + 1] - ex[s]);
}

/* Builds the coefficients that would be installed (K sections, gain folded into section 0,
 * balanced) into out[K][5]. */
static int build_coefs(const fx_sos_t *sos, int n, double gain, double *out, double *ex)
{
  if (n == 0 && gain != 1.0) {
    out[0] = gain;
    out[1] = out[2] = out[3] = out[4] = 0.0;
    ex[0] = ex[1] = 0.0;
    return 1;
  }
  for (int s = 0; s < n; s++) {
    double g = s == 0 ? gain : 1.0;
    double *d = out + (size_t) s * 5;
    d[0] = sos[s].b0 * g;
    d[1] = sos[s].b1 * g;
    d[2] = sos[s].b2 * g;
    d[3] = sos[s].a1;
    d[4] = sos[s].a2;
  }
  balance(out, n, ex);
  return n;
}

/* Poles of a section: the one with non-negative imaginary part, or both real ones. */
static void sec_poles(const double *d, double *re, double *im, int *n)
{
  const double disc = d[3] * d[3] - 4.0 * d[4];
  if (disc < 0.0) {
    re[0] = -d[3] / 2.0;
    im[0] = sqrt(-disc) / 2.0;
    *n = 1;
  } else {
    const double q = sqrt(disc);
    re[0] = (-d[3] + q) / 2.0;
    re[1] = (-d[3] - q) / 2.0;
    im[0] = im[1] = 0.0;
    *n = 2;
  }
}

/* Largest pole movement between two cascades of K sections, relative to the poles' distance from
 * the unit circle (a pole moving by its own bandwidth scores about 1). */
static double pole_distance(const double *a, const double *b, int K)
{
  double worst = 0.0;
  for (int s = 0; s < K; s++) {
    double ar[2], ai[2], br[2], bi[2];
    int na, nb;
    sec_poles(a + 5 * (size_t) s, ar, ai, &na);
    sec_poles(b + 5 * (size_t) s, br, bi, &nb);
    for (int i = 0; i < na; i++) {
      double best = INFINITY;
      for (int j = 0; j < nb; j++) {
        double m = fmax(hypot(ar[i], ai[i]), hypot(br[j], bi[j]));
        best = fmin(best, hypot(ar[i] - br[j], ai[i] - bi[j]) / fmax(1.0 - m, 1e-12));
      }
      worst = fmax(worst, best);
    }
  }
  return worst;
}

/* ---------------------------------------------------------------------------------------------
 * Kernel calls */

static void run_k(const fx_cascade_t *c, const double *coef, const float *coef_f, double *state,
                  float *state_f, double *hist, int K, int kstride, void *data, size_t frames)
{
  const int C = c->channels;
  if (c->format == FX_SAMPLE_F64)
    c->kernel->f64(coef, state, hist, K, kstride, (double *) data, frames, C);
  else if (c->dbl)
    c->kernel->f32_d(coef, state, hist, K, kstride, (float *) data, frames, C);
  else
    c->kernel->f32_s(coef_f, state_f, hist, K, kstride, (float *) data, frames, C);
}

/* A path with its own layout (kstride == K). */
static void run_path(const fx_cascade_t *c, fx_path_t *p, double *hist, void *data, size_t frames)
{
  run_k(c, p->coef, p->coef_f, p->state, p->state_f, hist, p->K, p->K, data, frames);
}

/* Hands sections k0 .. k1-1 of `cur` over `frames` frames to the offload hook, with the
 * checkpoints cut[i] (NULL: none) saved into slot[i]. 1 when it did the pass. */
static int offload_pass(fx_cascade_t *c, int k0, int k1, void *data, size_t frames,
                        const size_t *cut, const int *slot)
{
  fx_cascade_offload_call_t call;
  memset(&call, 0, sizeof(call));
  call.format = c->format;
  call.dbl = c->dbl;
  call.channels = c->channels;
  call.kstride = c->cur.K;
  call.k0 = k0;
  call.K = k1 - k0;
  call.coef = c->cur.coef;
  call.coef_f = c->cur.coef_f;
  call.state = c->cur.state;
  call.state_f = c->cur.state_f;
  call.hist = c->hist;
  call.data = data;
  call.frames = frames;
  for (int i = 0; i < 2 && cut; i++) {
    if (cut[i] == 0)
      continue;
    call.cut[i] = cut[i];
    call.ck_state[i] = c->ck[slot[i]].state;
    call.ck_state_f[i] = c->ck[slot[i]].state_f;
  }
  const int r = c->offload(c->offload_ctx, &call);
  if (r < 0) { /* failed: this call and all later ones on the CPU */
    c->offload = NULL;
    c->offload_ctx = NULL;
  }
  return r == 0;
}

/* Sections k0 .. k1-1 of `cur`. */
static void run_cur(fx_cascade_t *c, int k0, int k1, void *data, size_t frames)
{
  const size_t o5 = 5 * (size_t) k0, o2 = 2 * (size_t) k0;
  if (c->offload && offload_pass(c, k0, k1, data, frames, NULL, NULL))
    return;
  run_k(c, c->cur.coef + o5, c->cur.coef_f + o5, c->cur.state + o2, c->cur.state_f + o2,
        c->hist + o2, k1 - k0, c->cur.K, data, frames);
}

/* ---------------------------------------------------------------------------------------------
 * History transfer and warm-up */

/* Derives the state of K sections (coefficients coef / coef_f) from the boundary history `h`
 * ([C][K+1][2]) into state / state_f laid out [C][kstride][2], as a direct-form-I filter would
 * switch. In single precision the coefficients used are the float ones (as the kernel will use
 * them). */
static void transfer(const fx_cascade_t *c, const double *h, const double *coef,
                     const float *coef_f, int K, double *state, float *state_f, int kstride)
{
  const size_t C = (size_t) c->channels;
  for (size_t ch = 0; ch < C; ch++) {
    const double *hn = h + ch * ((size_t) K + 1) * 2;
    for (int s = 0; s < K; s++) {
      double b1, b2, a1, a2;
      if (c->dbl) {
        const double *cs = coef + (size_t) s * 5;
        b1 = cs[1], b2 = cs[2], a1 = cs[3], a2 = cs[4];
      } else {
        const float *cs = coef_f + (size_t) s * 5;
        b1 = cs[1], b2 = cs[2], a1 = cs[3], a2 = cs[4];
      }
      const double x0 = hn[2 * s], x1 = hn[2 * s + 1];
      const double y0 = hn[2 * s + 2], y1 = hn[2 * s + 3];
      const double z2 = b2 * x0 - a2 * y0;
      const double z1 = b1 * x0 - a1 * y0 + b2 * x1 - a2 * y1;
      size_t k = (ch * (size_t) kstride + (size_t) s) * 2;
      if (c->dbl) {
        state[k] = z1;
        state[k + 1] = z2;
      } else {
        state_f[k] = (float) z1;
        state_f[k + 1] = (float) z2;
      }
    }
  }
}

/* Frames of input the ring holds (at most ring_len). */
static size_t ring_held(const fx_cascade_t *c)
{
  if (!c->history)
    return 0;
  const uint64_t n = c->ring_total - c->ring_from;
  return n < c->ring_len ? (size_t) n : c->ring_len;
}

static size_t ring_fill(const fx_cascade_t *c)
{
  const size_t n = ring_held(c);
  return n < FX_RING ? n : FX_RING;
}

/* Appends frames of input to the ring (before they are filtered in place). */
static void ring_push(fx_cascade_t *c, const void *data, size_t frames)
{
  const size_t fb = (size_t) c->channels * sample_size(c); /* bytes per frame */
  const unsigned char *src = data;
  const size_t L = c->ring_len;
  if (!c->history) {
    c->ring_total += frames;
    return;
  }
  if (frames >= L) {
    memcpy(c->ring, src + (frames - L) * fb, L * fb);
    c->ring_pos = 0;
  } else {
    size_t first = L - c->ring_pos;
    if (first > frames)
      first = frames;
    memcpy((unsigned char *) c->ring + c->ring_pos * fb, src, first * fb);
    if (frames > first)
      memcpy(c->ring, src + first * fb, (frames - first) * fb);
    c->ring_pos = (c->ring_pos + frames) % L;
  }
  c->ring_total += frames;
}

/* Copies the last n (<= ring_len, <= frames received) input frames to dst, oldest first. */
static void ring_copy(const fx_cascade_t *c, void *dst, size_t n)
{
  const size_t fb = (size_t) c->channels * sample_size(c);
  const size_t L = c->ring_len;
  size_t start = (c->ring_pos + L - n) % L;
  size_t first = L - start < n ? L - start : n;
  memcpy(dst, (unsigned char *) c->ring + start * fb, first * fb);
  if (n > first)
    memcpy((unsigned char *) dst + first * fb, c->ring, (n - first) * fb);
}

/* Longest crossfade a change lengthens to where its warm-up falls short of the need (frames). */
#define FX_XF_MAX ((size_t) 1 << 18)

/* Frames a warm-up needs for K sections: until their slowest pole decays by FX_WARM_DECAY (not
 * capped by the window; at most FX_XF_MAX + FX_WIN). */
static size_t warm_need(const double *coef, int K)
{
  double rmax = 0.0;
  for (int s = 0; s < K; s++) {
    const double *d = coef + 5 * (size_t) s;
    double r;
    if (d[3] * d[3] < 4.0 * d[4]) {
      r = sqrt(d[4]);
    } else {
      double q = sqrt(d[3] * d[3] - 4.0 * d[4]);
      r = fmax(fabs(-d[3] + q), fabs(-d[3] - q)) / 2.0;
    }
    rmax = fmax(rmax, r);
  }
  if (rmax <= 0.0)
    return 2;
  const double cap = (double) (FX_XF_MAX + FX_WIN);
  double n = rmax < 1.0 ? ceil(log(FX_WARM_DECAY) / log(rmax)) : cap;
  if (!(n <= cap))
    n = cap;
  return n < 2 ? 2 : (size_t) n;
}

/* Runs p (its own layout) over n frames of `win` (filtered in place) from the zero state (`zero`)
 * or from the steady state for a constant input equal to win's first frame; h ([C][K+1][2])
 * receives the boundary history. */
static void warm_path(fx_cascade_t *c, fx_path_t *p, double *h, void *win, size_t n, int zero)
{
  const size_t C = (size_t) c->channels;
  path_zero_state(p, c->channels);
  memset(h, 0, hist_len(p->K, c->channels) * sizeof(double));
  if (!zero && n > 0) {
    for (size_t ch = 0; ch < C; ch++) {
      double u = c->format == FX_SAMPLE_F64 ? ((const double *) win)[ch]
                                            : (double) ((const float *) win)[ch];
      double *hn = h + ch * ((size_t) p->K + 1) * 2;
      hn[0] = hn[1] = u;
      for (int s = 0; s < p->K; s++) {
        const double *d = p->coef + 5 * (size_t) s;
        double g = (d[0] + d[1] + d[2]) / (1.0 + d[3] + d[4]);
        double v = g * u;
        hn[2 * s + 2] = hn[2 * s + 3] = v;
        u = v;
      }
    }
    transfer(c, h, p->coef, p->coef_f, p->K, p->state, p->state_f, p->K);
  }
  if (n > 0)
    run_path(c, p, h, win, n);
}

/* Stages j .. s-1 and junctions j0 .. s unchanged since stream frame `pos`. */
static int steady_range(const fx_cascade_t *c, int j, int j0, int s, uint64_t pos)
{
  for (int t = j; t < s; t++)
    if (c->st[t].xf_active || c->st[t].changed_at > pos)
      return 0;
  for (int t = j0; t <= s; t++)
    if (c->jn[t].changed_at > pos)
      return 0;
  return 1;
}

/* Junction j's record holds stream frames [from, now). */
static int rec_covers(const fx_cascade_t *c, const fx_junction_t *jn, uint64_t from)
{
  return jn->rec && jn->rec_start != FX_NONE && jn->rec_start <= from &&
         c->ring_total - from <= FX_RING2;
}

/* Copies stream frames [from, now) of a junction's record to dst. */
static void rec_copy(const fx_cascade_t *c, const fx_junction_t *jn, void *dst, uint64_t from)
{
  const size_t fb = (size_t) c->channels * sample_size(c);
  const size_t n = (size_t) (c->ring_total - from);
  const size_t start = (size_t) (from % FX_RING2);
  const size_t first = FX_RING2 - start < n ? FX_RING2 - start : n;
  memcpy(dst, (const unsigned char *) jn->rec + start * fb, first * fb);
  if (n > first)
    memcpy((unsigned char *) dst + first * fb, jn->rec, (n - first) * fb);
}

/* Appends frames (the junction's signal times g) to its record, at their stream positions. */
static void rec_append(const fx_cascade_t *c, fx_junction_t *jn, const void *data, size_t frames,
                       double g, uint64_t pos0)
{
  const size_t C = (size_t) c->channels;
  size_t skip = frames > FX_RING2 ? frames - FX_RING2 : 0;
  if (jn->rec_start == FX_NONE)
    jn->rec_start = pos0;
  for (size_t f = skip; f < frames; f++) {
    const size_t o = (size_t) ((pos0 + f) % FX_RING2) * C;
    if (c->format == FX_SAMPLE_F64) {
      const double *d = (const double *) data + f * C;
      double *r = (double *) jn->rec + o;
      for (size_t ch = 0; ch < C; ch++)
        r[ch] = g == 1.0 ? d[ch] : d[ch] * g;
    } else {
      const float *d = (const float *) data + f * C;
      float *r = (float *) jn->rec + o;
      for (size_t ch = 0; ch < C; ch++)
        r[ch] = g == 1.0 ? d[ch] : (float) ((double) d[ch] * g);
    }
  }
}

/* Junction s's signal over the last m >= n frames (n <= FX_RING), reconstructed into c->warm
 * (oldest frame first; see "Warm-up of an inner stage" at the top). *post is set when it is the
 * signal after the junction's gains (the stage's input), cleared when before them. Sources, in
 * order: the junction's own record; a record of an earlier junction, or the cascade input, from
 * which the stages in between are re-run from a checkpoint (all of them, and the junctions
 * after the source, unchanged since the checkpoint); otherwise an approximation: the preceding
 * stages as they are now, re-run over the whole input ring from the steady state for its first
 * frame. Returns NULL on allocation failure. */
static void *junction_signal(fx_cascade_t *c, int s, size_t n, size_t *m_out, int *post, int *exact)
{
  const size_t C = (size_t) c->channels;
  const uint64_t now = c->ring_total;
  const int k1 = c->st[s].k0;

  *exact = 1;
  if (rec_covers(c, &c->jn[s], now - n)) {
    rec_copy(c, &c->jn[s], c->warm, now - n);
    *m_out = n;
    *post = 1;
    return c->warm;
  }
  if (k1 == 0 || s == 0) {
    ring_copy(c, c->warm, n);
    *m_out = n;
    *post = 0;
    *exact = steady_range(c, 0, 0, 0, now - n);
    return c->warm;
  }
  /* source j (-1: the cascade input) and checkpoint */
  int src = -2;
  const fx_checkpoint_t *ck = NULL;
  for (int j = s - 1; j >= -1 && src == -2; j--) {
    for (int i = 0; i < 2; i++) {
      const fx_checkpoint_t *k = &c->ck[i];
      if (!k->valid || k->pos + n > now || now - k->pos > ring_held(c) || (ck && k->pos < ck->pos))
        continue;
      if (j >= 0 ? !rec_covers(c, &c->jn[j], k->pos) || !steady_range(c, j, j + 1, s, k->pos)
                 : !steady_range(c, 0, 0, s, k->pos))
        continue;
      ck = k;
    }
    if (ck)
      src = j;
  }
  const int j0 = src >= 0 ? src : 0;
  const int k0 = c->st[j0].k0;
  fx_path_t p = {0};
  size_t m;
  if (!path_reserve(&p, k1 - k0, c->channels))
    return NULL;
  p.K = k1 - k0;
  memcpy(p.coef, c->cur.coef + 5 * (size_t) k0, (size_t) p.K * 5 * sizeof(double));
  memcpy(p.coef_f, c->cur.coef_f + 5 * (size_t) k0, (size_t) p.K * 5 * sizeof(float));
  if (src >= 0) { /* the record is after the junction's gains: its stage runs unfolded */
    for (int k = 0; k < 5; k++) {
      p.coef[k] = c->st[src].pure[k];
      p.coef_f[k] = (float) p.coef[k];
    }
  }
  double *h = malloc(hist_len(p.K, c->channels) * sizeof(double));
  if (!h) {
    path_free(&p);
    return NULL;
  }
  if (ck) {
    m = (size_t) (now - ck->pos);
    for (size_t ch = 0; ch < C; ch++) {
      memcpy(p.state + ch * (size_t) p.K * 2, ck->state + (ch * (size_t) c->cur.K + k0) * 2,
             (size_t) p.K * 2 * sizeof(double));
      memcpy(p.state_f + ch * (size_t) p.K * 2, ck->state_f + (ch * (size_t) c->cur.K + k0) * 2,
             (size_t) p.K * 2 * sizeof(float));
    }
    if (src >= 0)
      rec_copy(c, &c->jn[src], c->warm, ck->pos);
    else
      ring_copy(c, c->warm, m);
    if (m > 0)
      run_path(c, &p, NULL, c->warm, m);
  } else {
    /* approximation: the preceding stages as they are now, over the whole ring */
    *exact = 0;
    m = ring_fill(c);
    if (m < n)
      m = n;
    ring_copy(c, c->warm, m);
    warm_path(c, &p, h, c->warm, m, c->ring_total <= FX_RING);
  }
  free(h);
  path_free(&p);
  *m_out = m;
  *post = 0;
  return c->warm;
}

/* Makes sure junction s (s < S) has a record that is continuous up to now, so that later
 * warm-ups of the stages after it find their input although the stages before it change: it is
 * reconstructed over the last FX_RING frames or more, and process() extends it while the
 * junction starts a segment (sticky_until). */
static int ensure_record(fx_cascade_t *c, int s)
{
  fx_junction_t *jn = &c->jn[s];
  const size_t fb = (size_t) c->channels * sample_size(c);
  if (!jn->rec) {
    jn->rec = malloc((size_t) FX_RING2 * fb);
    if (!jn->rec)
      return 0;
    jn->rec_start = FX_NONE;
  }
  if (jn->rec_start != FX_NONE || c->ring_total == 0)
    return 1;
  size_t n = ring_fill(c), m;
  int post, exact;
  void *w = junction_signal(c, s, n, &m, &post, &exact);
  if (!w)
    return 0;
  jn->rec_start = FX_NONE;
  rec_append(c, jn, w, m, post ? 1.0 : jn->Gl, c->ring_total - m);
  return 1;
}

/* ---------------------------------------------------------------------------------------------
 * Installing stages */

/* A SECTIONS stage as it will be installed. */
typedef struct {
  int Kn, K;
  double *pure, *ex; /* [K][5], [K + 1] */
  int changed, warm;
  size_t xf_min; /* shortest crossfade for the warm-up's residual (0: the default) */
  double *state; /* [C][K][2] new state (changed stages) */
  float *state_f;
  double *h; /* [C][K + 1][2] new boundary history (changed stages) */
} fx_new_stage_t;

static void new_stages_free(fx_new_stage_t *ns, int S)
{
  if (!ns)
    return;
  for (int s = 0; s < S; s++) {
    free(ns[s].pure);
    free(ns[s].ex);
    free(ns[s].state);
    free(ns[s].state_f);
    free(ns[s].h);
  }
  free(ns);
}

static fx_status_t check_stage(const fx_cascade_stage_t *st)
{
  if (st->kind == FX_CASCADE_STAGE_GAIN)
    return isfinite(st->gain) ? FX_OK : FX_ERR_GAIN;
  if (st->kind != FX_CASCADE_STAGE_SECTIONS)
    return FX_ERR_TYPE;
  if (st->n < 0 || (st->n > 0 && !st->sos))
    return FX_ERR_CAPACITY;
  if (!isfinite(st->gain))
    return FX_ERR_GAIN;
  for (int s = 0; s < st->n; s++) {
    if (!fx_sos_is_finite(&st->sos[s]))
      return FX_ERR_NONFINITE;
    if (!fx_sos_is_stable(&st->sos[s]))
      return FX_ERR_UNSTABLE;
  }
  /* The gain must not overflow the first numerator. */
  if (st->n > 0 && (!isfinite(st->sos[0].b0 * st->gain) || !isfinite(st->sos[0].b1 * st->gain) ||
                    !isfinite(st->sos[0].b2 * st->gain)))
    return FX_ERR_GAIN;
  return FX_OK;
}

/* Stage s's own boundary history ([C][K+1][2]) as a standalone engine would have it: its input
 * (the junction signal times the junction gains), the inner boundaries and its output. */
static void gather_hist(const fx_cascade_t *c, int s, double *h)
{
  const fx_stage_rt_t *st = &c->st[s];
  const fx_junction_t *j = &c->jn[s];
  const size_t C = (size_t) c->channels, K = (size_t) st->K, KT = (size_t) c->cur.K;
  for (size_t ch = 0; ch < C; ch++) {
    const double *src = c->hist + (ch * (KT + 1) + (size_t) st->k0) * 2;
    double *dst = h + ch * (K + 1) * 2;
    memcpy(dst, src, (K + 1) * 2 * sizeof(double));
    dst[0] = src[0] * j->Gl;
    dst[1] = src[1] * j->Gp;
    if (st->yh_valid) {
      dst[2 * K] = st->yh[2 * ch];
      dst[2 * K + 1] = st->yh[2 * ch + 1];
    }
  }
}

/* Same section count: whether a section that keeps its poles, behind one whose poles move, is slow
 * (its transient outlasts FX_SLOW_FRAMES frames). Its input then changes character while its
 * direct-form-I state, derived from the old input's history, is left ringing for as long (an
 * fxsos whose first row's shelf drops by 10 dB in front of an unchanged 50 Hz notch with q 8
 * rings for seconds, several times louder than its input). A warm-up on the input gives such
 * sections the state the new signal gives them. Controller ramps move every section's poles,
 * so they keep the transfer. */
static int slow_after_change(const double *old, const double *nw, int K)
{
  int moved = 0; /* a section before k moved its poles (by more than rounding: a design
                  * recomputed for the same parameters differs in the last bits) */
  for (int k = 0; k < K; k++) {
    const double *o = old + 5 * (size_t) k, *n = nw + 5 * (size_t) k;
    if (fabs(o[3] - n[3]) + fabs(o[4] - n[4]) > 1e-9)
      moved = 1;
    else if (moved && o[3] == n[3] && o[4] == n[4] && warm_need(n, 1) > FX_SLOW_FRAMES)
      return 1;
  }
  return 0;
}

/* Builds the new stage: balanced coefficients, and for a changed stage its new state and history
 * (DF-I transfer or warm-up), from the running cascade, which is not modified. */
static fx_status_t prepare_stage(fx_cascade_t *c, int s, fx_new_stage_t *ns, int compare)
{
  const int C = c->channels;
  ns->state = NULL;
  ns->state_f = NULL;
  ns->h = NULL;
  ns->xf_min = 0;
  if (compare) {
    const fx_stage_rt_t *st = &c->st[s];
    ns->changed = st->Kn != ns->Kn;
    for (size_t i = 0; i < (size_t) ns->K * 5 && !ns->changed; i++)
      ns->changed = st->pure[i] != ns->pure[i];
  } else {
    ns->changed = 1;
  }
  if (!compare || !ns->changed)
    return FX_OK;

  const fx_stage_rt_t *st = &c->st[s];
  const size_t sn = (size_t) ns->K * 2 * (size_t) C;
  ns->state = calloc(sn ? sn : 1, sizeof(double));
  ns->state_f = calloc(sn ? sn : 1, sizeof(float));
  ns->h = calloc(hist_len(ns->K, C) + 1, sizeof(double));
  if (!ns->state || !ns->state_f || !ns->h)
    return FX_ERR_CAPACITY;
  float *pf = malloc((size_t) ns->K * 5 * sizeof(float));
  if (!pf)
    return FX_ERR_CAPACITY;
  for (size_t i = 0; i < (size_t) ns->K * 5; i++)
    pf[i] = (float) ns->pure[i];

  ns->warm = st->Kn != ns->Kn || pole_distance(st->pure, ns->pure, ns->K) > FX_WARM_THRESHOLD ||
             slow_after_change(st->pure, ns->pure, ns->K);
  if (!ns->warm) {
    gather_hist(c, s, ns->h);
    /* Bring the history's inner boundary signals to the new balancing scale (see balance()). */
    for (int j = 1; j < ns->K; j++) {
      if (fabs(ns->ex[j] - st->ex[j]) < 1e-9) /* same balancing: keep the history exact */
        continue;
      const double g = exp2(ns->ex[j] - st->ex[j]);
      for (size_t ch = 0; ch < (size_t) C; ch++) {
        double *h = ns->h + (ch * ((size_t) ns->K + 1) + (size_t) j) * 2;
        h[0] *= g;
        h[1] *= g;
      }
    }
    transfer(c, ns->h, ns->pure, pf, ns->K, ns->state, ns->state_f, ns->K);
    free(pf);
    return FX_OK;
  }
  free(pf);

  /* Warm-up on the stage's recent input: the junction's signal, after its gains (then the
   * sections run as they are) or before them (then with the junction gain folded in). */
  const size_t fill = ring_fill(c);
  const size_t need = warm_need(ns->pure, ns->K);
  size_t n = need < FX_RING ? need : FX_RING;
  const int zero = c->ring_total <= FX_RING && n >= fill;
  if (n > fill)
    n = fill;
  /* Sections slower than the window (or than the input kept so far) start with part of their
   * transient left: it decays with their slowest pole, so the crossfade to them lasts until
   * they have run `need` frames in all. Its weight then rises as slowly as the residual decays,
   * which keeps the transient a small fraction of it. From the zero state at the start of the
   * stream the warm-up is exact. */
  ns->xf_min = 0;
  if (!zero && n < need)
    ns->xf_min = need - n < FX_XF_MAX ? need - n : FX_XF_MAX;
  if (!grow(&c->warm, &c->warm_bytes, c->ring_len * (size_t) C * sample_size(c), 1))
    return FX_ERR_CAPACITY;
  size_t m = n;
  int post = 1, exact = 1;
  void *win = c->warm;
  if (n > 0) {
    win = junction_signal(c, s, n, &m, &post, &exact);
    if (!win)
      return FX_ERR_CAPACITY;
    win = (unsigned char *) win + (m - n) * (size_t) C * sample_size(c);
  }
  fx_path_t p = {0};
  if (!path_reserve(&p, ns->K, C))
    return FX_ERR_CAPACITY;
  p.K = ns->K;
  const double g = post ? 1.0 : c->jn[s].Gl;
  for (size_t i = 0; i < (size_t) ns->K * 5; i++) {
    p.coef[i] = i < 3 ? ns->pure[i] * g : ns->pure[i];
    p.coef_f[i] = (float) p.coef[i];
  }
  (void) exact;
  warm_path(c, &p, ns->h, win, n, zero);
  memcpy(ns->state, p.state, sn * sizeof(double));
  memcpy(ns->state_f, p.state_f, sn * sizeof(float));
  path_free(&p);
  c->warm_frames += n;
  return FX_OK;
}

/* Copies stage regions of a [C][KT][2] state layout into another layout, for the stages whose
 * section count stays (old_k0/new_k0/K per stage, keep[s] non-zero). */
static void remap_state(const fx_cascade_t *c, const double *src, const float *src_f, int KTo,
                        double *dst, float *dst_f, int KTn, const int *old_k0, const int *new_k0,
                        const int *K, const int *keep)
{
  const size_t C = (size_t) c->channels;
  for (int s = 0; s < c->S; s++) {
    if (!keep[s])
      continue;
    for (size_t ch = 0; ch < C; ch++) {
      const size_t so = (ch * (size_t) KTo + (size_t) old_k0[s]) * 2;
      const size_t sd = (ch * (size_t) KTn + (size_t) new_k0[s]) * 2;
      memcpy(dst + sd, src + so, (size_t) K[s] * 2 * sizeof(double));
      memcpy(dst_f + sd, src_f + so, (size_t) K[s] * 2 * sizeof(float));
    }
  }
}

/* Installs a new structure at once (no history to keep, or a different structure). */
static fx_status_t install_fresh(fx_cascade_t *c, fx_new_stage_t *ns, int S, int *jn_n,
                                 const double **jn_g)
{
  const int C = c->channels;
  int KT = 0;
  for (int s = 0; s < S; s++)
    KT += ns[s].K;
  fx_stage_rt_t *st = calloc((size_t) S, sizeof(*st));
  fx_junction_t *jn = calloc((size_t) S + 1, sizeof(*jn));
  const size_t ring_len = S > 1 ? FX_RING2 : FX_RING;
  int ok =
      st && jn && path_reserve(&c->cur, KT, C) &&
      (C == 0 || !c->history ||
       grow(&c->ring, &c->ring_bytes, ring_len * (size_t) C * sample_size(c), 1)) &&
      grow((void **) &c->hist, &c->hist_cap, hist_len(KT, C), sizeof(double)) &&
      grow((void **) &c->jold, &c->jold_cap, ((size_t) S + 1) * (size_t) C * 2, sizeof(double)) &&
      grow((void **) &c->seg, &c->seg_cap, (size_t) S + 1, sizeof(int)) &&
      reserve_checkpoints(c, KT, C);
  for (int s = 0; ok && s < S; s++)
    ok = (st[s].yh = calloc((size_t) (C > 0 ? C : 1) * 2, sizeof(double))) != NULL;
  for (int j = 0; ok && j <= S; j++) {
    jn[j].n = jn_n[j];
    ok = (jn[j].target = calloc((size_t) jn_n[j] + 1, sizeof(double))) != NULL &&
         (jn[j].applied = calloc((size_t) jn_n[j] + 1, sizeof(double))) != NULL;
    for (int i = 0; ok && i < jn_n[j]; i++)
      jn[j].target[i] = jn[j].applied[i] = jn_g[j][i];
  }
  if (!ok) {
    if (st)
      for (int s = 0; s < S; s++)
        free(st[s].yh);
    if (jn)
      for (int j = 0; j <= S; j++)
        junction_free(&jn[j]);
    free(st);
    free(jn);
    return FX_ERR_CAPACITY;
  }
  structure_free(c);
  c->st = st;
  c->jn = jn;
  c->S = S;
  c->ring_len = ring_len;
  c->installed = 1;
  c->cur.K = KT;
  int k0 = 0;
  for (int s = 0; s < S; s++) {
    st[s].Kn = ns[s].Kn;
    st[s].K = ns[s].K;
    st[s].k0 = k0;
    st[s].pure = ns[s].pure;
    st[s].ex = ns[s].ex;
    ns[s].pure = ns[s].ex = NULL;
    memcpy(c->cur.coef + 5 * (size_t) k0, st[s].pure, (size_t) st[s].K * 5 * sizeof(double));
    for (size_t i = 0; i < (size_t) st[s].K * 5; i++)
      c->cur.coef_f[5 * (size_t) k0 + i] = (float) st[s].pure[i];
    k0 += st[s].K;
  }
  clear_stream(c);
  return FX_OK;
}

fx_status_t fx_cascade_set_stages(fx_cascade_t *c, const fx_cascade_stage_t *stages, int n_stages)
{
  if (!c || n_stages < 0 || (n_stages > 0 && !stages))
    return FX_ERR_CAPACITY;
  for (int i = 0; i < n_stages; i++) {
    fx_status_t e = check_stage(&stages[i]);
    if (e != FX_OK)
      return e;
  }

  /* Structure: S SECTIONS stages (an identity one when there is none) and S + 1 junctions. */
  int S = 0;
  for (int i = 0; i < n_stages; i++)
    S += stages[i].kind == FX_CASCADE_STAGE_SECTIONS;
  const int implicit = S == 0;
  if (implicit)
    S = 1;
  int *jn_n = calloc((size_t) S + 1, sizeof(int));
  const double **jn_g = calloc((size_t) S + 1, sizeof(double *));
  double *gains = calloc((size_t) n_stages + 1, sizeof(double));
  fx_new_stage_t *ns = calloc((size_t) S, sizeof(*ns));
  fx_status_t ret = FX_OK;
  if (!jn_n || !jn_g || !gains || !ns) {
    ret = FX_ERR_CAPACITY;
    goto out;
  }
  {
    int s = 0, ng = 0;
    jn_g[0] = gains;
    for (int i = 0; i < n_stages; i++) {
      if (stages[i].kind == FX_CASCADE_STAGE_GAIN) {
        gains[ng++] = stages[i].gain;
        jn_n[s]++;
        continue;
      }
      const int n = stages[i].n;
      const double g = stages[i].gain;
      ns[s].Kn = (n == 0 && g != 1.0) ? 1 : n;
      ns[s].K = ns[s].Kn > 0 ? ns[s].Kn : 1;
      ns[s].pure = malloc((size_t) ns[s].K * 5 * sizeof(double) + 5 * sizeof(double));
      ns[s].ex = malloc(((size_t) ns[s].K + 2) * sizeof(double));
      if (!ns[s].pure || !ns[s].ex) {
        ret = FX_ERR_CAPACITY;
        goto out;
      }
      if (ns[s].Kn == 0) {
        const double id[5] = {1.0, 0.0, 0.0, 0.0, 0.0};
        memcpy(ns[s].pure, id, sizeof(id));
        ns[s].ex[0] = ns[s].ex[1] = 0.0;
      } else {
        build_coefs(stages[i].sos, n, g, ns[s].pure, ns[s].ex);
      }
      s++;
      jn_g[s] = gains + ng;
    }
    if (implicit) {
      ns[0].Kn = 0;
      ns[0].K = 1;
      ns[0].pure = malloc(10 * sizeof(double));
      ns[0].ex = malloc(3 * sizeof(double));
      if (!ns[0].pure || !ns[0].ex) {
        ret = FX_ERR_CAPACITY;
        goto out;
      }
      const double id[5] = {1.0, 0.0, 0.0, 0.0, 0.0};
      memcpy(ns[0].pure, id, sizeof(id));
      ns[0].ex[0] = ns[0].ex[1] = 0.0;
      jn_g[1] = gains + jn_n[0];
    }
  }

  int same = c->installed && c->S == S;
  for (int j = 0; same && j <= S; j++)
    same = c->jn[j].n == jn_n[j];
  if (c->fresh || c->channels == 0 || !same) {
    ret = install_fresh(c, ns, S, jn_n, jn_g);
    goto out;
  }

  /* Phase 0: records of the junctions after changing stages and of changing junctions (so that
   * later warm-ups of the stages after them find their input exactly), from the running cascade.
   * A failure here only costs exactness. */
  if (!grow(&c->warm, &c->warm_bytes, c->ring_len * (size_t) c->channels * sample_size(c), 1)) {
    ret = FX_ERR_CAPACITY;
    goto out;
  }
  for (int s = 0; s < S; s++) {
    const fx_stage_rt_t *st = &c->st[s];
    int changed = st->Kn != ns[s].Kn;
    for (size_t i = 0; i < (size_t) ns[s].K * 5 && !changed; i++)
      changed = st->pure[i] != ns[s].pure[i];
    for (int i = 0; i < jn_n[s]; i++)
      if (c->jn[s].target[i] != jn_g[s][i] && ensure_record(c, s))
        c->jn[s].sticky_until = c->ring_total + FX_RING2;
    if (changed && s + 1 < S && ensure_record(c, s + 1))
      c->jn[s + 1].sticky_until = c->ring_total + FX_RING2;
  }

  /* Phase 1: new states and histories of the changed stages, from the running cascade. */
  int any = 0;
  for (int s = 0; s < S; s++) {
    ret = prepare_stage(c, s, &ns[s], 1);
    if (ret != FX_OK)
      goto out;
    any |= ns[s].changed;
  }

  if (any) {
    const int C = c->channels;
    /* Phase 2: layout, crossfades, installation. Everything that can fail first. */
    int KT = 0, relayout = 0, want_xf = 0;
    int *ok0 = calloc((size_t) S * 4, sizeof(int));
    if (!ok0) {
      ret = FX_ERR_CAPACITY;
      goto out;
    }
    int *nk0 = ok0 + S, *Ks = ok0 + 2 * S, *keep = ok0 + 3 * S;
    for (int s = 0; s < S; s++) {
      ok0[s] = c->st[s].k0;
      nk0[s] = KT;
      Ks[s] = ns[s].K;
      keep[s] = c->st[s].K == ns[s].K;
      relayout |= !keep[s];
      KT += ns[s].K;
      want_xf |= ns[s].changed && !c->st[s].xf_active;
    }
    int do_xf = c->xf_default > 0;
    if (want_xf && do_xf) {
      size_t frames = c->xf_default < FX_XF_CHUNK ? c->xf_default : FX_XF_CHUNK;
      size_t bytes = frames * (size_t) C * sizeof(double);
      if (bytes > c->scratch_bytes) {
        void *sc = realloc(c->scratch, bytes);
        if (sc) {
          c->scratch = sc;
          c->scratch_bytes = bytes;
        } else {
          do_xf = 0; /* no memory for a crossfade: switch at once (keeping the history) */
        }
      }
    }
    /* old paths for the crossfades that start */
    for (int s = 0; s < S && do_xf; s++) {
      fx_stage_rt_t *st = &c->st[s];
      if (!ns[s].changed || st->xf_active)
        continue;
      if (!path_reserve(&st->old, st->K, C) ||
          !grow((void **) &st->old_pure, &st->old_pure_n, (size_t) st->K * 5, sizeof(double))) {
        free(ok0);
        ret = FX_ERR_CAPACITY;
        goto out;
      }
    }
    fx_path_t ncur = {0};
    double *nhist = NULL;
    fx_checkpoint_t nck[2] = {{0}};
    if (relayout) {
      int ok = path_reserve(&ncur, KT, C) &&
               (nhist = calloc(hist_len(KT, C) + 1, sizeof(double))) != NULL;
      for (int i = 0; ok && i < 2; i++) {
        size_t n = (size_t) KT * 2 * (size_t) C + 1;
        ok = (nck[i].state = calloc(n, sizeof(double))) != NULL &&
             (nck[i].state_f = calloc(n, sizeof(float))) != NULL;
        nck[i].cap = n;
      }
      if (!ok) {
        path_free(&ncur);
        free(nhist);
        for (int i = 0; i < 2; i++) {
          free(nck[i].state);
          free(nck[i].state_f);
        }
        free(ok0);
        ret = FX_ERR_CAPACITY;
        goto out;
      }
    }

    /* start crossfades: the old path takes the running sections and state */
    for (int s = 0; s < S && do_xf; s++) {
      fx_stage_rt_t *st = &c->st[s];
      if (!ns[s].changed || st->xf_active)
        continue;
      st->old.K = st->K;
      memcpy(st->old.coef, c->cur.coef + 5 * (size_t) st->k0, (size_t) st->K * 5 * sizeof(double));
      memcpy(st->old.coef_f, c->cur.coef_f + 5 * (size_t) st->k0,
             (size_t) st->K * 5 * sizeof(float));
      memcpy(st->old_pure, st->pure, (size_t) st->K * 5 * sizeof(double));
      for (size_t ch = 0; ch < (size_t) C; ch++) {
        const size_t so = (ch * (size_t) c->cur.K + (size_t) st->k0) * 2;
        memcpy(st->old.state + ch * (size_t) st->K * 2, c->cur.state + so,
               (size_t) st->K * 2 * sizeof(double));
        memcpy(st->old.state_f + ch * (size_t) st->K * 2, c->cur.state_f + so,
               (size_t) st->K * 2 * sizeof(float));
      }
      st->xf_active = 1;
      st->xf_len = c->xf_default > ns[s].xf_min ? c->xf_default : ns[s].xf_min;
      st->xf_pos = 0;
    }
    if (!do_xf) {
      /* switching at once also ends running crossfades of the changed stages */
      for (int s = 0; s < S; s++)
        if (ns[s].changed && c->st[s].xf_active) {
          c->st[s].xf_active = 0;
          c->st[s].old.K = 0;
        }
    }

    if (relayout) {
      const int KTo = c->cur.K;
      /* coefficients of the unchanged stages, state, history, checkpoints */
      for (int s = 0; s < S; s++) {
        if (keep[s]) {
          memcpy(ncur.coef + 5 * (size_t) nk0[s], c->cur.coef + 5 * (size_t) ok0[s],
                 (size_t) Ks[s] * 5 * sizeof(double));
          memcpy(ncur.coef_f + 5 * (size_t) nk0[s], c->cur.coef_f + 5 * (size_t) ok0[s],
                 (size_t) Ks[s] * 5 * sizeof(float));
        }
      }
      remap_state(c, c->cur.state, c->cur.state_f, KTo, ncur.state, ncur.state_f, KT, ok0, nk0, Ks,
                  keep);
      for (int i = 0; i < 2; i++) {
        nck[i].pos = c->ck[i].pos;
        nck[i].valid = c->ck[i].valid;
        if (c->ck[i].valid)
          remap_state(c, c->ck[i].state, c->ck[i].state_f, KTo, nck[i].state, nck[i].state_f, KT,
                      ok0, nk0, Ks, keep);
      }
      for (size_t ch = 0; ch < (size_t) C; ch++) {
        const double *ho = c->hist + ch * ((size_t) KTo + 1) * 2;
        double *hn = nhist + ch * ((size_t) KT + 1) * 2;
        for (int s = 0; s < S; s++) {
          /* junction boundary, and a kept stage's inner boundaries */
          size_t nb = keep[s] ? (size_t) Ks[s] : 1;
          memcpy(hn + 2 * (size_t) nk0[s], ho + 2 * (size_t) ok0[s], nb * 2 * sizeof(double));
        }
        memcpy(hn + 2 * (size_t) KT, ho + 2 * (size_t) KTo, 2 * sizeof(double));
      }
      path_free(&c->cur);
      c->cur = ncur;
      c->cur.K = KT;
      free(c->hist);
      c->hist = nhist;
      c->hist_cap = hist_len(KT, C) + 1;
      for (int i = 0; i < 2; i++) {
        free(c->ck[i].state);
        free(c->ck[i].state_f);
        c->ck[i] = nck[i];
      }
      for (int s = 0; s < S; s++)
        c->st[s].k0 = nk0[s];
    }

    /* install the changed stages */
    for (int s = 0; s < S; s++) {
      fx_stage_rt_t *st = &c->st[s];
      fx_new_stage_t *n = &ns[s];
      if (!n->changed)
        continue;
      free(st->pure);
      free(st->ex);
      st->pure = n->pure;
      st->ex = n->ex;
      n->pure = n->ex = NULL;
      st->Kn = n->Kn;
      st->K = n->K;
      const size_t k0 = (size_t) st->k0, K = (size_t) st->K, KTn = (size_t) c->cur.K;
      memcpy(c->cur.coef + 5 * k0, st->pure, K * 5 * sizeof(double));
      for (size_t i = 0; i < K * 5; i++)
        c->cur.coef_f[5 * k0 + i] = (float) st->pure[i];
      fold_stage(c, s, c->jn[s].Gl);
      for (size_t ch = 0; ch < (size_t) C; ch++) {
        memcpy(c->cur.state + (ch * KTn + k0) * 2, n->state + ch * K * 2, K * 2 * sizeof(double));
        memcpy(c->cur.state_f + (ch * KTn + k0) * 2, n->state_f + ch * K * 2,
               K * 2 * sizeof(float));
        const double *h = n->h + ch * (K + 1) * 2;
        /* inner boundaries (the junction boundaries hold the junctions' signals) */
        if (K > 1)
          memcpy(c->hist + (ch * (KTn + 1) + k0 + 1) * 2, h + 2, (K - 1) * 2 * sizeof(double));
        if (n->warm) {
          st->yh[2 * ch] = h[2 * K];
          st->yh[2 * ch + 1] = h[2 * K + 1];
        }
      }
      if (n->warm)
        st->yh_valid = 1;
      st->changed_at = c->ring_total;
    }
    free(ok0);
  }

  /* new gain targets: they ramp over the next process() call */
  for (int j = 0; j <= S; j++)
    for (int i = 0; i < jn_n[j]; i++)
      c->jn[j].target[i] = jn_g[j][i];

out:
  new_stages_free(ns, S);
  free(jn_n);
  free(jn_g);
  free(gains);
  return ret;
}

fx_status_t fx_cascade_set_sections(fx_cascade_t *c, const fx_sos_t *sos, int n, double gain)
{
  if (!c || n < 0 || (n > 0 && !sos))
    return FX_ERR_CAPACITY;
  const fx_cascade_stage_t st = {FX_CASCADE_STAGE_SECTIONS, sos, n, gain};
  return fx_cascade_set_stages(c, &st, 1);
}

/* ---------------------------------------------------------------------------------------------
 * Processing */

/* data = old + w (new - old), w = (pos + i + 1) / (len + 1) per frame. */
static void mix(const fx_cascade_t *c, const fx_stage_rt_t *st, void *data, const void *olddata,
                size_t frames)
{
  const size_t C = (size_t) c->channels;
  const double inv = 1.0 / ((double) st->xf_len + 1.0);
  if (c->format == FX_SAMPLE_F64) {
    double *d = data;
    const double *o = olddata;
    for (size_t i = 0; i < frames; i++) {
      const double w = (double) (st->xf_pos + i + 1) * inv;
      for (size_t ch = 0; ch < C; ch++) {
        const size_t k = i * C + ch;
        d[k] = o[k] + w * (d[k] - o[k]);
      }
    }
  } else {
    float *d = data;
    const float *o = olddata;
    for (size_t i = 0; i < frames; i++) {
      const double w = (double) (st->xf_pos + i + 1) * inv;
      for (size_t ch = 0; ch < C; ch++) {
        const size_t k = i * C + ch;
        d[k] = (float) ((double) o[k] + w * ((double) d[k] - (double) o[k]));
      }
    }
  }
}

/* hist boundary b of channel ch */
static double *hist_at(fx_cascade_t *c, size_t ch, size_t b)
{
  return c->hist + (ch * ((size_t) c->cur.K + 1) + b) * 2;
}

static void save_checkpoint(fx_cascade_t *c, int slot, int k0, int k1)
{
  fx_checkpoint_t *ck = &c->ck[slot];
  const size_t KT = (size_t) c->cur.K;
  for (size_t ch = 0; ch < (size_t) c->channels; ch++) {
    const size_t o = (ch * KT + (size_t) k0) * 2, n = (size_t) (k1 - k0) * 2;
    if (c->dbl)
      memcpy(ck->state + o, c->cur.state + o, n * sizeof(double));
    else
      memcpy(ck->state_f + o, c->cur.state_f + o, n * sizeof(float));
  }
}

/* Stages [s, e) in one kernel pass, split at the checkpoints inside this call (cut[i] frames in,
 * 0: none; cut[0] < cut[1]) to save them. */
static void run_group(fx_cascade_t *c, int k0, int k1, unsigned char *data, size_t frames,
                      const size_t *cut, const int *slot)
{
  const size_t fb = (size_t) c->channels * sample_size(c);
  size_t done = 0;
  /* an offloaded pass saves the checkpoints itself: still one pass per buffer */
  if (c->offload && (cut[0] || cut[1]) && offload_pass(c, k0, k1, data, frames, cut, slot))
    return;
  for (int i = 0; i < 2; i++) {
    if (cut[i] == 0)
      continue;
    if (cut[i] > done)
      run_cur(c, k0, k1, data + done * fb, cut[i] - done);
    done = cut[i];
    save_checkpoint(c, slot[i], k0, k1);
  }
  if (done < frames)
    run_cur(c, k0, k1, data + done * fb, frames - done);
}

/* A crossfading stage on its own: old path on a copy of the input, new path in place, mix. */
static void run_stage_xf(fx_cascade_t *c, int s, unsigned char *data, size_t frames)
{
  fx_stage_rt_t *st = &c->st[s];
  const size_t C = (size_t) c->channels, ss = sample_size(c);
  const size_t out = (size_t) st->k0 + (size_t) st->K;
  /* the output boundary holds the stage's own output history while it runs (the next segment
   * sets the junction's) */
  if (st->yh_valid) {
    for (size_t ch = 0; ch < C; ch++) {
      double *h = hist_at(c, ch, out);
      h[0] = st->yh[2 * ch];
      h[1] = st->yh[2 * ch + 1];
    }
  }
  size_t done = 0;
  while (st->xf_active && done < frames) {
    size_t n = frames - done;
    size_t left = st->xf_len - st->xf_pos;
    size_t cap = c->scratch_bytes / (C * sizeof(double));
    if (cap == 0) { /* cannot happen (scratch is sized with the crossfade); be safe */
      st->xf_active = 0;
      st->old.K = 0;
      break;
    }
    if (n > left)
      n = left;
    if (n > cap)
      n = cap;
    unsigned char *p = data + done * C * ss;
    memcpy(c->scratch, p, n * C * ss);
    run_path(c, &st->old, NULL, c->scratch, n);
    run_cur(c, st->k0, st->k0 + st->K, p, n);
    mix(c, st, p, c->scratch, n);
    st->xf_pos += n;
    done += n;
    if (st->xf_pos >= st->xf_len) {
      st->xf_active = 0;
      st->old.K = 0;
    }
  }
  if (done < frames)
    run_cur(c, st->k0, st->k0 + st->K, data + done * C * ss, frames - done);
  for (size_t ch = 0; ch < C; ch++) {
    const double *h = hist_at(c, ch, out);
    st->yh[2 * ch] = h[0];
    st->yh[2 * ch + 1] = h[1];
  }
  st->yh_valid = 1;
  if (!st->xf_active) {
    st->changed_at = c->ring_total;
    if (s + 1 < c->S && c->jn[s + 1].rec)
      c->jn[s + 1].sticky_until = c->ring_total + FX_RING2;
  }
}

/* Applies junction j's gains to the buffer (dsp/gain.c: a ramp from the applied gain to the
 * target over this call, constant when they are equal). */
static void apply_junction(fx_cascade_t *c, const fx_junction_t *j, void *data, size_t frames)
{
  for (int i = 0; i < j->n; i++) {
    if (c->format == FX_SAMPLE_F64)
      fx_gain_apply_f64(data, frames, c->channels, j->applied[i], j->target[i], 0);
    else
      fx_gain_apply_f32(data, frames, c->channels, j->applied[i], j->target[i], 0);
  }
}

static double frame_value(const fx_cascade_t *c, const void *data, size_t k)
{
  return c->format == FX_SAMPLE_F64 ? ((const double *) data)[k]
                                    : (double) ((const float *) data)[k];
}

/* 1 when all n values are finite. x * 0 == 0 holds for every finite x and fails for NaN and Inf;
 * the comparisons are independent (ORed, not a chain of floating-point additions as before), so
 * the scan after every process() call runs at throughput, not at one addition latency per value. */
static int finite_d(const double *v, size_t n)
{
  unsigned bad = 0;
  for (size_t i = 0; i < n; i++)
    bad |= !(v[i] * 0.0 == 0.0);
  return !bad;
}

static int finite_f(const float *v, size_t n)
{
  unsigned bad = 0;
  for (size_t i = 0; i < n; i++)
    bad |= !(v[i] * 0.0f == 0.0f);
  return !bad;
}

static int all_finite(const fx_cascade_t *c)
{
  const size_t C = (size_t) c->channels;
  int ok = finite_d(c->hist, hist_len(c->cur.K, c->channels));
  const size_t n = (size_t) c->cur.K * 2 * C;
  ok &= c->dbl ? finite_d(c->cur.state, n) : finite_f(c->cur.state_f, n);
  for (int s = 0; s < c->S; s++) {
    const fx_stage_rt_t *st = &c->st[s];
    if (st->yh_valid)
      ok &= finite_d(st->yh, 2 * C);
    if (!st->xf_active)
      continue;
    const size_t m = (size_t) st->old.K * 2 * C;
    ok &= c->dbl ? finite_d(st->old.state, m) : finite_f(st->old.state_f, m);
  }
  return ok;
}

unsigned fx_cascade_process(fx_cascade_t *c, void *data, size_t frames)
{
  if (!c || c->channels < 1 || frames == 0 || !data)
    return 0;
  const size_t C = (size_t) c->channels;
  unsigned char *bytes = data;
  /* NaN and Inf become 0 before the ring, the history or the state see them: the output there
   * is what the filter gives for a 0 input, and nothing else changes. */
  const unsigned in_flags =
      fx_zero_nonfinite(data, frames * C, c->format == FX_SAMPLE_F64) ? FX_PROCESS_NONFINITE : 0;

  c->dispatches++;
  c->fresh = 0;
  const uint64_t pos0 = c->ring_total;
  ring_push(c, data, frames);
  if (!c->installed)
    return in_flags;

  /* Checkpoints at the last two multiples of FX_RING inside this call (cut[i] frames in; only
   * with several stages: a single one never re-runs anything). */
  size_t cut[2] = {0, 0};
  int slot[2] = {0, 1};
  uint64_t P[2] = {0, 0};
  {
    const uint64_t last = ((pos0 + frames) / FX_RING) * FX_RING;
    for (int i = 0; i < 2 && c->S > 1; i++) {
      const uint64_t q = last - (uint64_t) (1 - i) * FX_RING;
      if (last >= (uint64_t) (1 - i) * FX_RING && q > pos0) {
        P[i] = q;
        cut[i] = (size_t) (q - pos0);
        slot[i] = (int) ((q / FX_RING) % 2);
        c->ck[slot[i]].valid = 0;
      }
    }
  }
  const int any_cut = cut[0] || cut[1];

  /* Segments: runs of stages that go through one kernel call; a crossfading stage or a ramping
   * junction starts a new one. */
  const int S = c->S;
  int nseg = 0;
  for (int s = 0; s < S;) {
    int e = s + 1;
    if (!c->st[s].xf_active)
      while (e < S && !c->st[e].xf_active && !junction_ramps(&c->jn[e]) &&
             c->jn[e].sticky_until <= pos0)
        e++;
    c->seg[nseg++] = s;
    s = e;
  }
  c->seg[nseg] = S;
  /* The history at the boundaries where segments start, before anything runs: a boundary
   * written by two kernel calls in one process() call (as the output of one segment and as the
   * input of the next) is set explicitly afterwards. */
  for (int i = 0; i < nseg; i++)
    for (size_t ch = 0; ch < C; ch++) {
      const double *h = hist_at(c, ch, (size_t) c->st[c->seg[i]].k0);
      c->jold[((size_t) i * C + ch) * 2] = h[0];
      c->jold[((size_t) i * C + ch) * 2 + 1] = h[1];
    }
  for (int i = 0; i < nseg; i++) {
    const int s = c->seg[i], e = c->seg[i + 1];
    fx_stage_rt_t *st = &c->st[s];
    const fx_junction_t *jn = &c->jn[s];
    const int ramp = junction_ramps(jn);
    /* the junction's signal before its gains: what its boundary's history must hold */
    double *jnew = c->tmp;
    for (size_t ch = 0; ch < C; ch++) {
      jnew[2 * ch] = frame_value(c, bytes, (frames - 1) * C + ch);
      jnew[2 * ch + 1] = frames >= 2 ? frame_value(c, bytes, (frames - 2) * C + ch)
                                     : c->jold[((size_t) i * C + ch) * 2];
    }
    if (ramp) {
      apply_junction(c, jn, bytes, frames);
      fold_stage(c, s, 1.0);
    }
    if (jn->rec)
      rec_append(c, &c->jn[s], bytes, frames, ramp ? 1.0 : jn->Gl, pos0);
    for (int t = s + 1; t < e; t++) /* not materialised in this call: records break */
      c->jn[t].rec_start = FX_NONE;
    if (st->xf_active) {
      run_stage_xf(c, s, bytes, frames);
      for (int i = 0; i < 2 && any_cut; i++) /* not usable: the stage changed */
        if (cut[i])
          save_checkpoint(c, slot[i], st->k0, st->k0 + st->K);
    } else {
      const int k1 = e < S ? c->st[e].k0 : c->cur.K;
      run_group(c, st->k0, k1, bytes, frames, cut, slot);
      for (int t = s; t < e; t++) {
        fx_stage_rt_t *u = &c->st[t];
        if (!u->yh_valid)
          continue;
        if (frames >= 2) {
          u->yh_valid = 0;
        } else {
          for (size_t ch = 0; ch < C; ch++) {
            u->yh[2 * ch + 1] = u->yh[2 * ch];
            u->yh[2 * ch] = hist_at(c, ch, (size_t) u->k0 + (size_t) u->K)[0];
          }
        }
      }
    }
    for (size_t ch = 0; ch < C; ch++) {
      double *h = hist_at(c, ch, (size_t) st->k0);
      h[0] = jnew[2 * ch];
      h[1] = jnew[2 * ch + 1];
    }
  }
  /* gains after the last stage */
  {
    const fx_junction_t *jn = &c->jn[S];
    if (junction_ramps(jn) || junction_gain(jn, 1) != 1.0)
      apply_junction(c, jn, bytes, frames);
  }
  /* the junctions' gains at the last two frames; ramps are over */
  for (int j = 0; j <= S; j++) {
    fx_junction_t *jn = &c->jn[j];
    const int ramp = junction_ramps(jn);
    double gp = 1.0;
    for (int i = 0; i < jn->n; i++) {
      const double from = jn->applied[i], to = jn->target[i];
      gp *= from == to ? to : from + (to - from) / (double) frames * (double) (frames - 1);
    }
    jn->Gp = frames >= 2 ? gp : jn->Gl;
    for (int i = 0; i < jn->n; i++)
      jn->applied[i] = jn->target[i];
    jn->Gl = junction_gain(jn, 0);
    if (ramp) {
      jn->changed_at = c->ring_total;
      if (j < S)
        fold_stage(c, j, jn->Gl);
      if (jn->rec)
        jn->sticky_until = c->ring_total + FX_RING2;
    }
  }
  for (int i = 0; i < 2; i++) {
    if (cut[i]) {
      c->ck[slot[i]].pos = P[i];
      c->ck[slot[i]].valid = 1;
    }
  }

  /* a safety net: finite input with finite, stable coefficients keeps the state finite */
  if (!all_finite(c)) {
    clear_stream(c);
    return FX_PROCESS_NONFINITE;
  }
  return in_flags;
}

/* ---------------------------------------------------------------------------------------------
 * Queries */

int fx_cascade_channels(const fx_cascade_t *c)
{
  return c ? c->channels : 0;
}

int fx_cascade_sections(const fx_cascade_t *c)
{
  int n = 0;
  if (c)
    for (int s = 0; s < c->S; s++)
      n += c->st[s].Kn;
  return n;
}

uint64_t fx_cascade_dispatches(const fx_cascade_t *c)
{
  return c ? c->dispatches : 0;
}

void fx_cascade_reset_dispatches(fx_cascade_t *c)
{
  if (c) {
    c->dispatches = 0;
    c->warm_frames = 0;
  }
}

uint64_t fx_cascade_warm_frames(const fx_cascade_t *c)
{
  return c ? c->warm_frames : 0;
}

void fx_cascade_set_offload(fx_cascade_t *c, fx_cascade_offload_fn fn, void *ctx)
{
  if (c) {
    c->offload = fn;
    c->offload_ctx = fn ? ctx : NULL;
  }
}

int fx_cascade_offload_active(const fx_cascade_t *c)
{
  return c && c->offload;
}

const char *fx_cascade_backend(const fx_cascade_t *c)
{
  return c ? c->backend : "none";
}

int fx_cascade_uses_double(const fx_cascade_t *c)
{
  return c ? c->dbl : 0;
}

fx_status_t fx_cascade_set_history(fx_cascade_t *c, int keep)
{
  if (!c)
    return FX_ERR_CAPACITY;
  keep = keep != 0;
  if (keep == c->history)
    return FX_OK;
  if (keep && c->channels > 0 &&
      !grow(&c->ring, &c->ring_bytes, c->ring_len * (size_t) c->channels * sample_size(c), 1))
    return FX_ERR_CAPACITY;
  if (!keep) {
    free(c->ring);
    c->ring = NULL;
    c->ring_bytes = 0;
  }
  c->history = keep;
  c->ring_from = c->ring_total; /* turned on: the ring holds nothing yet */
  return FX_OK;
}

int fx_cascade_padded_channels(int channels, int sample_bytes)
{
  if (channels < 1 || sample_bytes < 1 || sample_bytes > 64 || 64 % sample_bytes != 0)
    return channels;
  const long bytes = (long) channels * sample_bytes;
  if (bytes < 1024)
    return channels;
  long lines = (bytes + 63) / 64;
  if (lines % 2 == 0)
    lines++;
  const long padded = lines * 64 / sample_bytes;
  return padded > INT_MAX ? channels : (int) padded;
}
