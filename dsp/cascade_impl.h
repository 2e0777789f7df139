/* gst-fx — the SOS cascade engine's private header (dsp/cascade*.c only). Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * How the engine works (stages, junctions, history, warm-ups, crossfades, records and
 * checkpoints) and why it is built that way: docs/cascade.md. The files:
 *   cascade.c          life cycle, stream configuration, allocation helpers, queries
 *   cascade_sections.c coefficient analysis: balancing, pole movement, warm-up length
 *   cascade_install.c  fx_cascade_set_stages(): parsing, then the phases of a transition
 *   cascade_transfer.c the new state of a changed stage: direct-form-I transfer or warm-up
 *   cascade_signal.c   the input ring, junction records, reconstructing a stage's input
 *   cascade_process.c  fx_cascade_process(): kernel passes, crossfades, gain ramps, checkpoints
 *
 * Numbers at the arithmetic precision. The run coefficients and the TDF-II state (of `cur`, of a
 * crossfade's old path, of checkpoints, of a stage being prepared) are stored once, as double or
 * as float according to c->dbl, in a buffer allocated at sizeof(double) per element so that a
 * precision change in fx_cascade_configure() needs no reallocation. fx_num_* read and write
 * them; the kernels take them as double * or float * (run_k()). The coefficients of record are
 * the stages' `pure` arrays (always double): the run coefficients are derived from them, rounded
 * to float for single precision. History (`hist`, `yh`) is double whatever the arithmetic. */
#ifndef FX_CASCADE_IMPL_H
#define FX_CASCADE_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cascade.h"
#include "chunk.h"
#include "kernel.h"

/* Frames of the old path filtered per kernel call during a crossfade (bounds the scratch). */
#define FX_XF_CHUNK 1024
#define FX_DEFAULT_CROSSFADE 256
/* Input frames a warm-up may use per channel (the window, FX_RING): the same for every channel
 * count, so that each channel of a wide stream gets exactly what it gets alone, changes
 * included. Where the new sections need more, the crossfade lengthens instead
 * (prepare_stage()). The ring keeps FX_RING frames per channel (FX_RING2 in cascades of several
 * stages, for checkpoint replays). */
#define FX_RING ((size_t) 8192)
#define FX_RING2 (2 * FX_RING)
/* A section is slow (see fxc_slow_after_change()) when its transient outlasts this many frames. */
#define FX_SLOW_FRAMES 4096
/* A warm-up runs until the slowest pole of the new cascade has decayed by this factor (or over
 * the whole window). */
#ifndef FX_WARM_DECAY
#define FX_WARM_DECAY 1e-3
#endif
/* Same section count: when a pole moves by more than this many times its distance from the unit
 * circle (its bandwidth), the new state comes from a warm-up instead of the direct-form-I
 * transfer: controller ramps stay well below it, jumps far above (docs/cascade.md). */
#ifndef FX_WARM_THRESHOLD
#define FX_WARM_THRESHOLD 10.0
#endif
/* Longest crossfade a change lengthens to where its warm-up falls short of the need (frames). */
#define FX_XF_MAX ((size_t) 1 << 18)

#define FX_NONE UINT64_MAX

/* ---- numbers at the arithmetic precision ---- */

static inline size_t fx_num_size(int dbl)
{
  return dbl ? sizeof(double) : sizeof(float);
}

static inline double fx_num_get(const void *a, int dbl, size_t i)
{
  return dbl ? ((const double *) a)[i] : (double) ((const float *) a)[i];
}

static inline void fx_num_set(void *a, int dbl, size_t i, double v)
{
  if (dbl)
    ((double *) a)[i] = v;
  else
    ((float *) a)[i] = (float) v;
}

static inline void *fx_num_at(void *a, int dbl, size_t i)
{
  return (unsigned char *) a + i * fx_num_size(dbl);
}

/* n numbers from src[j] to dst[i]. */
static inline void fx_num_copy(void *dst, size_t i, const void *src, size_t j, size_t n, int dbl)
{
  const size_t es = fx_num_size(dbl);
  memcpy((unsigned char *) dst + i * es, (const unsigned char *) src + j * es, n * es);
}

/* ---- engine types ---- */

/* Sections with their own coefficients and state. */
typedef struct {
  int K;
  void *coef;       /* [K][5] run coefficients (fx_num) */
  void *state;      /* [C][K][2] (fx_num) */
  size_t coef_cap;  /* sections allocated for coef */
  size_t state_cap; /* numbers allocated for state */
} fx_path_t;

/* One SECTIONS stage. */
typedef struct {
  int Kn;        /* nominal sections (0: identity) */
  int K;         /* sections in `cur`: max(Kn, 1) */
  int k0;        /* first section in `cur` */
  double *pure;  /* [K][5]: balanced, the stage's own gain folded in, not the junction's */
  double *ex;    /* [K + 1]: balancing residuals (cascade_sections.c, balance()) */
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
   * earlier stages change (see fxc_junction_signal()). */
  void *rec;
  uint64_t rec_start;
  uint64_t sticky_until; /* process() starts a segment here (and records) until this frame */
} fx_junction_t;

/* State of all sections at a stream frame position (for re-running preceding stages). */
typedef struct {
  uint64_t pos;
  int valid;
  void *state; /* [C][K][2] (fx_num) */
  size_t cap;  /* numbers allocated */
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
  double *tmp; /* [C][2] */
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
  uint64_t ring_total, ring_from;
  int history;
  void *warm; /* scratch for warm-ups: ring_len frames, allocated on first use */
  size_t warm_bytes;
  uint64_t warm_frames; /* frames filtered by warm-ups (statistics) */

  fx_checkpoint_t ck[2]; /* the two latest checkpoints (positions multiple of FX_RING) */

  uint64_t dispatches;

  fx_cascade_offload_fn_t offload; /* see fx_cascade_set_offload() */
  void *offload_ctx;

  /* The chunked kernels (kernel_chunk.h, docs/cascade.md "Chunked kernels"): used for `cur` when
   * `chunked`; ckp[cur.K] the sections' tables (rebuilt in process() where a section's run
   * coefficients no longer match them), ckr[C][cur.K] the channels' chunk records. */
  int chunked;
  /* Every process() call of a chunked cascade takes them, however short (the kernels' chunk
   * wavefront does the same arithmetic per sample as their block path): a call that ran the
   * sequential kernels would restart the chunk grid from its state and change the rounding of
   * everything after it, so the output would depend on the buffer split. */
  fx_chunk_sec_t *ckp;
  size_t ckp_cap;
  fx_chunk_rec_t *ckr;
  size_t ckr_cap;
  uint64_t ck_builds; /* section tables built (statistics, tests) */

  /* FX_PRECISION_AUTO's last probe (cascade_precision.c): the design it measured (pr_K sections,
   * engine coefficients in double), its errors (SER in dB against double) and the decision. */
  double *pr_coef;
  int pr_K, pr_valid, pr_single;
  /* the float paths: sequential and chunked as accurate as scipy's float32 (pr_seq_ok,
   * pr_ck_ok); whether the chunked one was probed (it is where it can run) */
  int pr_seq_ok, pr_ck_ok, pr_cks_measured;
  int pr_ckd_measured, pr_ck_double; /* the chunked double path: probed; as accurate as double */
  double pr_ser_single, pr_ser_scipy, pr_ser_ck_double;
  uint64_t probes;
};

/* A design as FX_PRECISION_AUTO's probe sees it (fx_cascade_set_stages()). */
typedef struct {
  int S;               /* SECTIONS stages */
  const int *K;        /* [S] sections of each */
  const double **pure; /* [S] each stage's [K][5] balanced sections, its own gain folded in */
  const double *g;     /* [S] the junction gains in front of each stage */
  const double *raw;   /* [nraw][5] the caller's sections, every gain folded into the next one */
  int nraw;
} fxc_probe_design_t;

/* ---- cascade.c: allocation and small helpers ---- */

int fxc_grow(void **p, size_t *cap_elems, size_t need, size_t elem);
/* Room for K sections over `channels` channels (coefficients and state). */
int fxc_path_reserve(fx_path_t *p, int K, int channels);
void fxc_path_free(fx_path_t *p);
void fxc_path_zero_state(const fx_cascade_t *c, fx_path_t *p);
/* Sets p's K run coefficients from double ones (rounded for single precision). */
void fxc_path_load(const fx_cascade_t *c, fx_path_t *p, const double *coef);
size_t fxc_hist_len(int K, int channels);
size_t fxc_sample_size(const fx_cascade_t *c);
/* Bytes per frame of the stream. */
size_t fxc_frame_bytes(const fx_cascade_t *c);
int fxc_reserve_checkpoints(fx_cascade_t *c, int K, int channels);
void fxc_junction_free(fx_junction_t *j);
void fxc_structure_free(fx_cascade_t *c);
double fxc_junction_gain(const fx_junction_t *j, int target);
int fxc_junction_ramps(const fx_junction_t *j);
/* Writes stage s's first section into `cur` (and into its old path) with the junction gain g
 * folded into the numerator. */
void fxc_fold_stage(fx_cascade_t *c, int s, double g);
/* The backend string from the kernel, the arithmetic and the chunked choice. */
void fxc_update_backend(fx_cascade_t *c);
/* Whether the chunked kernels can run this cascade in this arithmetic (dbl), and whether `cur`
 * runs through them. */
int fxc_chunk_capable(const fx_cascade_t *c, int dbl);
/* Whether the chunked float kernels are faster than the sequential ones for K sections over the
 * configured channels (cascade.c). */
int fxc_chunk_pays(const fx_cascade_t *c, int K);
/* The chunked kernels' lanes in this arithmetic (dbl) on kernel set k. */
int fxc_chunk_lanes(const fx_kernel_t *k, int dbl);
/* FX_CHUNK, read at configure: -1 unset, 0 never chunked, 1 always (tests, benchmarks). */
int fxc_chunk_env(void);
/* Whether float arithmetic over K sections runs chunked, given which float paths the probe found
 * accurate enough: FX_CHUNK where set, else the chunked path where it passes and is the faster or
 * the only one that passes. */
int fxc_float_chunked(const fx_cascade_t *c, int K, int seq_ok, int ck_ok);
int fxc_want_chunked(const fx_cascade_t *c, int dbl);
/* Sets chunked for the configured channels and arithmetic, and the backend string. */
void fxc_chunk_policy(fx_cascade_t *c);

/* ---- cascade_precision.c: FX_PRECISION_AUTO ---- */

/* The probe (`frames` long): SER (dB, against double) of the sequential and the chunked float
 * paths (NaN where this cascade is not chunked), of the chunked double path (NaN where it cannot
 * run) and of scipy-style float32 sosfilt on design d, whose engine coefficients (double, [K][5])
 * are coef. 0 when out of memory. */
int fxc_probe_single(fx_cascade_t *c, const fxc_probe_design_t *d, const double *coef, int K,
                     size_t frames, double *ser_seq, double *ser_chunk, double *ser_ck_double,
                     double *ser_scipy);
/* The arithmetic (1: double) for design d: the stream's own unless it is F32 under
 * FX_PRECISION_AUTO; then the last decision while the poles stay near the probed ones, otherwise a
 * new probe. */
int fxc_auto_precision(fx_cascade_t *c, const fxc_probe_design_t *d);
/* Switches the arithmetic of a configured engine, converting the stored numbers in place and
 * re-deriving the run coefficients; a new chunk grid starts at the next call. */
void fxc_set_arithmetic(fx_cascade_t *c, int dbl);

/* Room for the chunk tables and records of K sections over `channels` channels; the records are
 * cleared (a new chunk grid starts at the next call). 0 when out of memory. */
int fxc_chunk_reserve(fx_cascade_t *c, int K, int channels);
/* Clears state, history, crossfades, gain ramps and records (configure, reset, new structure). */
void fxc_clear_stream(fx_cascade_t *c);

/* ---- cascade_sections.c: coefficient analysis ---- */

/* Builds the coefficients that would be installed (gain folded into section 0, balanced) into
 * out[K][5] and the balancing residuals into ex[K + 1]. */
void fxc_build_coefs(const fx_sos_t *sos, int n, double gain, double *out, double *ex);
/* Largest pole movement between two cascades of K sections, relative to the poles' distance
 * from the unit circle (a pole moving by its own bandwidth scores about 1). */
double fxc_pole_distance(const double *a, const double *b, int K);
/* Frames a warm-up needs for K sections (not capped by the window). */
size_t fxc_warm_need(const double *coef, int K);
int fxc_slow_after_change(const double *old, const double *nw, int K);

/* ---- cascade_signal.c: input ring, records, a stage's input ---- */

size_t fxc_ring_held(const fx_cascade_t *c);
/* Frames of input a warm-up may use now (at most FX_RING). */
size_t fxc_ring_fill(const fx_cascade_t *c);
void fxc_ring_push(fx_cascade_t *c, const void *data, size_t frames);
void fxc_ring_copy(const fx_cascade_t *c, void *dst, size_t n);
void fxc_rec_append(const fx_cascade_t *c, fx_junction_t *jn, const void *data, size_t frames,
                    double g, uint64_t pos0);
void *fxc_junction_signal(fx_cascade_t *c, int s, size_t n, size_t *m_out, int *post);
int fxc_ensure_record(fx_cascade_t *c, int s);

/* ---- cascade_transfer.c: the new state of a changed stage ---- */

/* A SECTIONS stage as it will be installed. */
typedef struct {
  int Kn, K;
  double *pure, *ex; /* [K][5], [K + 1] */
  int changed, warm;
  size_t xf_min; /* shortest crossfade for the warm-up's residual (0: the default) */
  void *state;   /* [C][K][2] new state (changed stages; fx_num) */
  double *h;     /* [C][K + 1][2] new boundary history (changed stages) */
} fx_new_stage_t;

/* Derives the state of K sections (double coefficients, rounded as the kernel sees them) from
 * the boundary history h ([C][K+1][2]) into state laid out [C][kstride][2] (fx_num). */
void fxc_transfer(const fx_cascade_t *c, const double *h, const double *coef, int K, void *state,
                  int kstride);
/* Runs p over n frames of win (in place) from the zero state (`zero`) or from the steady state
 * for a constant input equal to win's first frame; coef: p's coefficients in double. */
void fxc_warm_path(fx_cascade_t *c, fx_path_t *p, const double *coef, double *h, void *win,
                   size_t n, int zero);
/* 1 when stage s changes with ns (compare: a running stage to compare with). */
int fxc_stage_differs(const fx_cascade_t *c, int s, const fx_new_stage_t *ns);
fx_status_t fxc_prepare_stage(fx_cascade_t *c, int s, fx_new_stage_t *ns);

/* ---- cascade_process.c ---- */

/* A path with its own layout (kstride == K). */
void fxc_run_path(const fx_cascade_t *c, fx_path_t *p, double *hist, void *data, size_t frames);

#endif
