/* gst-fx — the integer sample formats (S16LE, S32LE) every element accepts besides F32LE/F64LE:
 * the per-element conversion state (GstFxQuant), the `dither`, `dither-seed` and `clipped`
 * properties, the clipping warning, and the converter fxchain puts at its edges.
 * The arithmetic is dsp/quantize.[ch].
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef GST_FX_FORMAT_H
#define GST_FX_FORMAT_H

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/base/gstbasetransform.h>

#include "gstfxcommon.h"
#include "quantize.h"

G_BEGIN_DECLS

/**
 * GstFxDither:
 * @GST_FX_DITHER_NONE: plain rounding to nearest (an unchanged signal goes through bit-exact)
 * @GST_FX_DITHER_TPDF: triangular (TPDF) dither of +-1 LSB before rounding
 *
 * The dither added when the output is an integer format (S16LE, S32LE). Float output is never
 * dithered.
 */
typedef enum {
  GST_FX_DITHER_NONE = FX_DITHER_NONE,
  GST_FX_DITHER_TPDF = FX_DITHER_TPDF,
} GstFxDither;
#define GST_TYPE_FX_DITHER (gst_fx_dither_get_type())
GType gst_fx_dither_get_type(void);

/* The format properties, in this order from the first property id given to
 * gst_fx_install_format_properties(). */
typedef enum {
  GST_FX_FORMAT_PROP_DITHER = 0,
  GST_FX_FORMAT_PROP_DITHER_SEED,
  GST_FX_FORMAT_PROP_CLIPPED,
  GST_FX_FORMAT_PROP_COUNT,
} GstFxFormatProp;

/* Installs `dither`, `dither-seed` and `clipped` with ids @first_prop_id + GstFxFormatProp. */
void gst_fx_install_format_properties(GObjectClass *klass, guint first_prop_id);

/* An element's integer input/output: for S16 the DSP runs on F32, for S32 on F64 (both exact
 * conversions of every input sample); the result is requantised into the buffer with rounding
 * to nearest, clipping (counted) and the chosen dither. For F32/F64 streams it does nothing.
 * Settings under the owner's object lock; the rest belongs to the streaming thread. */
typedef struct {
  /* settings (object lock) */
  GstFxDither dither;
  guint seed;
  guint64 clipped; /* samples clipped since the element started (object lock) */
  gboolean reseed; /* dither-seed changed: reseed before the next buffer (object lock) */

  /* streaming */
  GstAudioFormat format; /* the negotiated format */
  gint channels;
  gpointer scratch; /* the float copy of an integer buffer */
  gsize scratch_frames;
  fx_quant_rng_t rng;
  GstFxNonfiniteLimit limit; /* the clipping warning's rate limit */
  guint64 since_warning;     /* samples clipped since the last warning */
} GstFxQuant;

void gst_fx_quant_init(GstFxQuant *q);
/* Frees the scratch buffer. */
void gst_fx_quant_clear(GstFxQuant *q);
/* A new stream (start, flush): the clip warning comes again on the next clip, the dither
 * restarts from its seed. Streaming thread (or with the stream stopped). */
void gst_fx_quant_reset(GstObject *owner, GstFxQuant *q);
/* set_caps: records @info's format and fills @work with the format the DSP runs in (F32 for S16,
 * F64 for S32, else @info's); allocates the scratch buffer for integer formats. FALSE when out
 * of memory. */
gboolean gst_fx_quant_setup(GstObject *owner, GstFxQuant *q, const GstAudioInfo *info,
                            GstAudioInfo *work);
/* Whether the negotiated format is an integer one. */
static inline gboolean gst_fx_quant_is_int(const GstFxQuant *q)
{
  return q->format == GST_AUDIO_FORMAT_S16 || q->format == GST_AUDIO_FORMAT_S32;
}
/* Per buffer, before the DSP: @data holds @frames frames in the negotiated format. Returns what
 * the DSP processes in place: @data itself for a float format, else the scratch buffer holding
 * the samples as floats (NULL when it cannot grow: out of memory). */
gpointer gst_fx_quant_to_float(GstFxQuant *q, gpointer data, gsize frames);
static inline gpointer gst_fx_quant_begin(GstFxQuant *q, gpointer data, gsize frames)
{
  /* inline: a float stream pays one test per buffer */
  return gst_fx_quant_is_int(q) ? gst_fx_quant_to_float(q, data, frames) : data;
}
/* Per buffer, after the DSP: requantises the scratch buffer into @data (integer formats; nothing
 * for float formats) and counts the clipped samples. Returns the number of buffers to report in a
 * clipping warning now (0 mostly; see gst_fx_quant_warn()). @owner: its object lock is taken for
 * the settings. */
guint gst_fx_quant_store(GstObject *owner, GstFxQuant *q, gconstpointer floats, gpointer out,
                         gsize frames, GstClockTime ts);
static inline guint gst_fx_quant_end(GstObject *owner, GstFxQuant *q, gpointer data, gsize frames,
                                     GstClockTime ts)
{
  return gst_fx_quant_is_int(q) ? gst_fx_quant_store(owner, q, q->scratch, data, frames, ts) : 0;
}
/* gst_fx_quant_store(): as gst_fx_quant_end(), from the floats at @floats (the work format)
 * instead of the scratch buffer into the integer samples at @out (declared above). */
/* Posts the rate-limited warning "output clipped" when @buffers (from gst_fx_quant_end()) is not
 * 0. Call it without the element's stream locks held. */
void gst_fx_quant_post_warning(GstElement *element, GstFxQuant *q, guint buffers);
static inline void gst_fx_quant_warn(GstElement *element, GstFxQuant *q, guint buffers)
{
  if (G_UNLIKELY(buffers != 0))
    gst_fx_quant_post_warning(element, q, buffers);
}

/* Property helpers for an owner whose format properties start at @first_prop_id: TRUE when
 * @prop_id was one of them (handled). */
gboolean gst_fx_quant_set_property(GObject *owner, GstFxQuant *q, guint prop_id,
                                   guint first_prop_id, const GValue *value);
gboolean gst_fx_quant_get_property(GObject *owner, GstFxQuant *q, guint prop_id,
                                   guint first_prop_id, GValue *value);

/* A CAPS query answered with the element's own format order first (F32, F64, S32, S16): a
 * source offering several formats (audiotestsrc) negotiates F32, as GstBaseTransform's default,
 * which keeps the asking peer's order, would give the peer's first (S16). An integer stream from
 * audioconvert stays integer: audioconvert picks the format closest to its input. Returns TRUE
 * with *@ret set when @query was a CAPS query with a filter (answered with @parent's query);
 * FALSE for any other query, which the caller hands on as before. */
gboolean gst_fx_query_caps_ours_first(GstBaseTransform *trans, GstPadDirection direction,
                                      GstQuery *query, GstBaseTransformClass *parent,
                                      gboolean *ret);

/* The query function of an element that delays its output by a look-ahead: CAPS in the element's
 * order (above), everything else by @parent, and a LATENCY query on the src pad answered by the
 * parent with *@latency (read under the object's lock) added. */
gboolean gst_fx_query_with_latency(GstBaseTransform *trans, GstPadDirection direction,
                                   GstQuery *query, GstBaseTransformClass *parent,
                                   const GstClockTime *latency);

/* A look-ahead element's tail at EOS: a zeroed buffer of @frames frames (@bpf bytes each),
 * stamped to follow the stream (@pts, @offset: the next ones, or NONE; @rate for the duration).
 * NULL, with a warning on @self's bus, without memory. */
GstBuffer *gst_fx_lookahead_tail_new(GstElement *self, gsize frames, gsize bpf, gint rate,
                                     GstClockTime pts, guint64 offset);

/* The converter fxchain puts at its edges (not a registered element): with @to_float, S16 in ->
 * F32 out and S32 -> F64 (exact); otherwise F32 in -> S16 out and F64 -> S32 (requantised as
 * above, with its own `dither`, `dither-seed` and `clipped`). F32 and F64 pass through untouched
 * in both directions. */
#define GST_TYPE_FX_REQUANT (gst_fx_requant_get_type())
G_DECLARE_FINAL_TYPE(GstFxRequant, gst_fx_requant, GST, FX_REQUANT, GstBaseTransform)
GstElement *gst_fx_requant_new(const gchar *name, gboolean to_float);
/* The out converter @out prefers, for its output, the format the in converter @in receives. */
void gst_fx_requant_set_partner(GstFxRequant *out, GstFxRequant *in);

G_END_DECLS

#endif
