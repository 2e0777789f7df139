/* gst-fx — fxdelay: feedback delay (echo) with tempo-synced notes, ping-pong and an EOS tail.
 * SPDX-License-Identifier: GPL-3.0-or-later */

/**
 * SECTION:element-fxdelay
 * @title: fxdelay
 * @short_description: feedback delay (echo), tempo-synced, ping-pong, tail rendered at EOS
 *
 * A feedback delay line per channel: y = (1 - mix) * x + mix * tap, where the line holds
 * x + feedback * tap and tap is the line `delay` ms back. The delay is either `delay` (ms) or,
 * when `bpm` is above 0, the length of `note` at that tempo (`1/8d` dotted is x1.5, `1/8t`
 * triplet x2/3: at 120 bpm `1/4` is 500 ms, `1/8d` 375 ms, `1/8t` 166.7 ms). Fractional delays
 * are read with linear interpolation; delays under one sample play as one sample.
 *
 * `ping-pong` (stereo streams; other channel counts ignore it) feeds the sum of both inputs, at
 * full level, into the left line and cross-feeds the lines (left line <- L + R + feedback * right
 * tap, right line <- feedback * left tap), so echo k of a sound lands on the left for odd k and on
 * the right for even k, with amplitude mix * feedback^(k-1) * (L + R): a sound panned hard to
 * either side echoes at its own level; a centred sound (equal in L and R) echoes at twice its
 * per-channel level, all on one side.
 *
 * Changes of `feedback`, `mix` and `ping-pong` ramp linearly over 20 ms; a new delay crossfades
 * from the old tap to the new one over 20 ms, so automation never clicks. Buffers keep their
 * length; at EOS the echo tail is pushed in extra buffers (timestamps continuing the stream)
 * until it has decayed below -90 dBFS (60 s at most). `max-delay` sizes the line (set it in
 * READY); a delay beyond it is refused: an error when the stream starts, a warning (keeping the
 * previous delay) while playing.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 audiotestsrc wave=ticks ! audioconvert ! fxdelay bpm=120 note=1/8d feedback=0.4
 * mix=0.4 ping-pong=true ! audioconvert ! autoaudiosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfxdelay.h"
#include "gstfxeffect.h"
#include "gstfxcommon.h"

#include "delay.h"

GST_DEBUG_CATEGORY_STATIC(gst_fx_delay_debug);
#define GST_CAT_DEFAULT gst_fx_delay_debug

#define DEFAULT_DELAY 250.0
#define DEFAULT_BPM 0.0
#define DEFAULT_NOTE GST_FX_NOTE_1_4
#define DEFAULT_FEEDBACK 0.35
#define DEFAULT_MIX 0.5
#define DEFAULT_PING_PONG FALSE
#define DEFAULT_MAX_DELAY 2000.0
#define MAX_DELAY_MS 60000.0
#define MAX_BPM 1000.0
#define MAX_FEEDBACK 0.95
/* Refuse delay lines larger than this (max-delay x rate x channels x 8 bytes). */
#define MAX_LINE_BYTES ((gsize) 1 << 31)

/* Values: index = 3 * log2(denominator) + modifier (FX_NOTE_PLAIN/DOTTED/TRIPLET). */
typedef enum {
  GST_FX_NOTE_1_1,
  GST_FX_NOTE_1_1D,
  GST_FX_NOTE_1_1T,
  GST_FX_NOTE_1_2,
  GST_FX_NOTE_1_2D,
  GST_FX_NOTE_1_2T,
  GST_FX_NOTE_1_4,
  GST_FX_NOTE_1_4D,
  GST_FX_NOTE_1_4T,
  GST_FX_NOTE_1_8,
  GST_FX_NOTE_1_8D,
  GST_FX_NOTE_1_8T,
  GST_FX_NOTE_1_16,
  GST_FX_NOTE_1_16D,
  GST_FX_NOTE_1_16T,
  GST_FX_NOTE_1_32,
  GST_FX_NOTE_1_32D,
  GST_FX_NOTE_1_32T,
} GstFxDelayNote;

#define GST_TYPE_FX_DELAY_NOTE (gst_fx_delay_note_get_type())
static GType gst_fx_delay_note_get_type(void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_FX_NOTE_1_1, "Whole note", "1/1"},
      {GST_FX_NOTE_1_1D, "Dotted whole note (x1.5)", "1/1d"},
      {GST_FX_NOTE_1_1T, "Whole-note triplet (x2/3)", "1/1t"},
      {GST_FX_NOTE_1_2, "Half note", "1/2"},
      {GST_FX_NOTE_1_2D, "Dotted half note (x1.5)", "1/2d"},
      {GST_FX_NOTE_1_2T, "Half-note triplet (x2/3)", "1/2t"},
      {GST_FX_NOTE_1_4, "Quarter note (one beat)", "1/4"},
      {GST_FX_NOTE_1_4D, "Dotted quarter note (x1.5)", "1/4d"},
      {GST_FX_NOTE_1_4T, "Quarter-note triplet (x2/3)", "1/4t"},
      {GST_FX_NOTE_1_8, "Eighth note", "1/8"},
      {GST_FX_NOTE_1_8D, "Dotted eighth note (x1.5)", "1/8d"},
      {GST_FX_NOTE_1_8T, "Eighth-note triplet (x2/3)", "1/8t"},
      {GST_FX_NOTE_1_16, "Sixteenth note", "1/16"},
      {GST_FX_NOTE_1_16D, "Dotted sixteenth note (x1.5)", "1/16d"},
      {GST_FX_NOTE_1_16T, "Sixteenth-note triplet (x2/3)", "1/16t"},
      {GST_FX_NOTE_1_32, "Thirty-second note", "1/32"},
      {GST_FX_NOTE_1_32D, "Dotted thirty-second note (x1.5)", "1/32d"},
      {GST_FX_NOTE_1_32T, "Thirty-second-note triplet (x2/3)", "1/32t"},
      {0, NULL, NULL},
  };
  return gst_fx_enum_register_once(&type, "GstFxDelayNote", values);
}

enum {
  PROP_0,
  PROP_DELAY,
  PROP_BPM,
  PROP_NOTE,
  PROP_FEEDBACK,
  PROP_MIX,
  PROP_PING_PONG,
  PROP_MAX_DELAY,
};

typedef struct {
  double delay_ms;
  double bpm;
  gint note;
  double feedback;
  double mix;
  gboolean ping_pong;
  double max_delay_ms;
} GstFxDelaySettings;

struct _GstFxDelay {
  GstFxEffect parent;

  /* Settings (object lock). */
  GstFxDelaySettings settings;

  /* Stream state (streaming thread). */
  double applied_ms; /* the delay in use */
  double refused_ms; /* the last refused delay (warned once), or -1 */
};

G_DEFINE_TYPE(GstFxDelay, gst_fx_delay, GST_TYPE_FX_EFFECT)
GST_ELEMENT_REGISTER_DEFINE(fxdelay, "fxdelay", GST_RANK_NONE, GST_TYPE_FX_DELAY);

#define S_OFF(f) (G_STRUCT_OFFSET(GstFxDelay, settings) + G_STRUCT_OFFSET(GstFxDelaySettings, f))
static const GstFxPropField delay_fields[] = {
    {PROP_DELAY, G_TYPE_DOUBLE, S_OFF(delay_ms)},
    {PROP_BPM, G_TYPE_DOUBLE, S_OFF(bpm)},
    {PROP_NOTE, G_TYPE_ENUM, S_OFF(note)},
    {PROP_FEEDBACK, G_TYPE_DOUBLE, S_OFF(feedback)},
    {PROP_MIX, G_TYPE_DOUBLE, S_OFF(mix)},
    {PROP_PING_PONG, G_TYPE_BOOLEAN, S_OFF(ping_pong)},
    {PROP_MAX_DELAY, G_TYPE_DOUBLE, S_OFF(max_delay_ms)},
};

static gboolean gst_fx_delay_setup(GstAudioFilter *filter, const GstAudioInfo *info);
static void gst_fx_delay_before_transform(GstBaseTransform *trans, GstBuffer *buffer);

static void gst_fx_delay_set_property(GObject *object, guint prop_id, const GValue *value,
                                      GParamSpec *pspec)
{
  gst_fx_props_set(object, object, delay_fields, G_N_ELEMENTS(delay_fields), prop_id, value, pspec);
}

static void gst_fx_delay_get_property(GObject *object, guint prop_id, GValue *value,
                                      GParamSpec *pspec)
{
  gst_fx_props_get(object, object, delay_fields, G_N_ELEMENTS(delay_fields), prop_id, value, pspec);
}

/* The DSP object's functions, for GstFxEffect. */
GST_FX_EFFECT_DEFINE_OPS(delay_ops, fx_delay_t, fx_delay_process_f32, fx_delay_process_f64,
                         fx_delay_tail_bound, fx_delay_reset, fx_delay_free);

static void gst_fx_delay_class_init(GstFxDelayClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  GstAudioFilterClass *filter_class = GST_AUDIO_FILTER_CLASS(klass);
  GstFxEffectClass *effect_class = GST_FX_EFFECT_CLASS(klass);

  GST_DEBUG_CATEGORY_INIT(gst_fx_delay_debug, "fxdelay", 0, "Feedback delay");

  gobject_class->set_property = gst_fx_delay_set_property;
  gobject_class->get_property = gst_fx_delay_get_property;

  g_object_class_install_property(
      gobject_class, PROP_DELAY,
      g_param_spec_double("delay", "Delay",
                          "Delay in ms (used when bpm is 0); at most max-delay; changes "
                          "crossfade over 20 ms",
                          0.0, MAX_DELAY_MS, DEFAULT_DELAY, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_BPM,
      g_param_spec_double("bpm", "BPM",
                          "Tempo in quarter notes per minute; above 0 the delay is the length "
                          "of note at this tempo, 0 uses delay",
                          0.0, MAX_BPM, DEFAULT_BPM, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_NOTE,
      g_param_spec_enum("note", "Note",
                        "Delay as a note length at bpm (dotted d: x1.5, triplet t: x2/3)",
                        GST_TYPE_FX_DELAY_NOTE, DEFAULT_NOTE, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_FEEDBACK,
      g_param_spec_double("feedback", "Feedback",
                          "Share of the echo fed back into the line (0..0.95)", 0.0, MAX_FEEDBACK,
                          DEFAULT_FEEDBACK, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_MIX,
      g_param_spec_double("mix", "Mix", "Dry/wet balance: output = (1 - mix) * dry + mix * echo",
                          0.0, 1.0, DEFAULT_MIX, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_PING_PONG,
      g_param_spec_boolean("ping-pong", "Ping-pong",
                           "Stereo only: echoes alternate left (odd) and right (even)",
                           DEFAULT_PING_PONG, GST_FX_DSP_PARAM_FLAGS));
  g_object_class_install_property(
      gobject_class, PROP_MAX_DELAY,
      g_param_spec_double("max-delay", "Maximum delay",
                          "Longest delay in ms the line holds (changeable in NULL/READY only)", 1.0,
                          MAX_DELAY_MS, DEFAULT_MAX_DELAY,
                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));

  gst_element_class_set_static_metadata(element_class, "Delay", "Filter/Effect/Audio",
                                        "Feedback delay (echo) with tempo-synced notes, "
                                        "ping-pong, click-free changes and the echo tail "
                                        "rendered at EOS",
                                        "gst-fx developers");

  filter_class->setup = GST_DEBUG_FUNCPTR(gst_fx_delay_setup);
  trans_class->before_transform = GST_DEBUG_FUNCPTR(gst_fx_delay_before_transform);
  effect_class->ops = &delay_ops;

  gst_type_mark_as_plugin_api(GST_TYPE_FX_DELAY_NOTE, 0);
}

static void gst_fx_delay_init(GstFxDelay *self)
{
  self->settings.delay_ms = DEFAULT_DELAY;
  self->settings.bpm = DEFAULT_BPM;
  self->settings.note = DEFAULT_NOTE;
  self->settings.feedback = DEFAULT_FEEDBACK;
  self->settings.mix = DEFAULT_MIX;
  self->settings.ping_pong = DEFAULT_PING_PONG;
  self->settings.max_delay_ms = DEFAULT_MAX_DELAY;
  self->refused_ms = -1.0;
}

static GstFxDelaySettings get_settings(GstFxDelay *self)
{
  GstFxDelaySettings s;

  GST_OBJECT_LOCK(self);
  s = self->settings;
  GST_OBJECT_UNLOCK(self);
  return s;
}

/* The delay the settings ask for, in ms, and the property (or properties) it comes from. */
static double requested_ms(const GstFxDelaySettings *s, const char **from)
{
  if (s->bpm > 0.0) {
    *from = "bpm/note";
    return fx_delay_note_ms(s->bpm, 1 << (s->note / 3), s->note % 3);
  }
  *from = "delay";
  return s->delay_ms;
}

static gboolean gst_fx_delay_setup(GstAudioFilter *filter, const GstAudioInfo *info)
{
  GstFxDelay *self = GST_FX_DELAY(filter);
  GstFxDelaySettings s = get_settings(self);
  gint rate = GST_AUDIO_INFO_RATE(info), channels = GST_AUDIO_INFO_CHANNELS(info);
  const char *from;
  double ms = requested_ms(&s, &from);
  gsize bytes;
  fx_delay_t *dsp;

  if (ms > s.max_delay_ms) {
    GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS,
                      ("%s: a delay of %g ms exceeds max-delay (%g ms)", from, ms, s.max_delay_ms),
                      ("raise max-delay (in READY) or shorten the delay"));
    return FALSE;
  }
  bytes = fx_delay_bytes(channels, rate, s.max_delay_ms);
  if (bytes == 0 || bytes > MAX_LINE_BYTES) {
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT,
                      ("max-delay: a line of %g ms at %d Hz x %d channels takes %.0f MiB, over "
                       "the limit of %.0f MiB",
                       s.max_delay_ms, rate, channels,
                       (double) s.max_delay_ms / 1000.0 * rate * channels * 8.0 / 1048576.0,
                       (double) MAX_LINE_BYTES / 1048576.0),
                      ("lower max-delay"));
    return FALSE;
  }
  dsp = fx_delay_new(channels, rate, s.max_delay_ms);
  if (!dsp) {
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT,
                      ("cannot allocate a delay line of %" G_GSIZE_FORMAT " bytes", bytes),
                      ("lower max-delay"));
    return FALSE;
  }
  gst_fx_effect_set_dsp(GST_FX_EFFECT(self), dsp, info);
  self->applied_ms = ms;
  self->refused_ms = -1.0;
  return TRUE;
}

static void gst_fx_delay_before_transform(GstBaseTransform *trans, GstBuffer *buffer)
{
  GstFxDelay *self = GST_FX_DELAY(trans);
  fx_delay_t *dsp;
  GstFxDelaySettings s;
  const char *from;
  double ms;

  gst_fx_sync_controllers(trans, buffer);
  dsp = gst_fx_effect_get_dsp(GST_FX_EFFECT(self));
  if (!dsp)
    return;
  s = get_settings(self);
  ms = requested_ms(&s, &from);
  if (ms > fx_delay_max_ms(dsp)) {
    if (ms != self->refused_ms)
      GST_ELEMENT_WARNING(
          self, LIBRARY, SETTINGS,
          ("%s: a delay of %g ms exceeds max-delay (%g ms)", from, ms, fx_delay_max_ms(dsp)),
          ("parameter change refused; the delay stays at %g ms", self->applied_ms));
    self->refused_ms = ms;
    ms = self->applied_ms;
  } else {
    self->refused_ms = -1.0;
    self->applied_ms = ms;
  }
  fx_delay_set(dsp, ms, s.feedback, s.mix, s.ping_pong);
}
