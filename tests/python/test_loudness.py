"""Loudness (ITU-R BS.1770-4 / EBU R128, measured by libebur128) through pipelines: fxloudness's
bus messages and properties against EBU Tech 3341 (loudness, true peak) and Tech 3342 (loudness
range) test signals generated here with numpy, and fxnormalize mode=lufs / fxloudnorm output
measured again against the targets.

The signals follow the specifications: a "-23 dBFS" 1 kHz sine has the peak amplitude
10^(-23/20) in each channel of a stereo pair (Tech 3341 section 2.9), which reads -23.0 LUFS."""

import numpy as np
import pytest

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

from conftest import assert_clean, record, require_fx, run_pipeline  # noqa: E402

RATE = 48000


@pytest.fixture(autouse=True)
def _need_loudness():
    require_fx("fxloudness")


def sine(dbfs, seconds, freq=1000.0, rate=RATE, phase_deg=0.0, channels=2):
    n = int(round(seconds * rate))
    t = np.arange(n) / rate
    x = 10 ** (dbfs / 20) * np.sin(2 * np.pi * freq * t + np.deg2rad(phase_deg))
    return np.repeat(x[:, None], channels, axis=1)


def steps(*parts, **kw):
    """A sine whose level changes: parts are (dBFS, seconds)."""
    return np.concatenate([sine(d, s, **kw) for d, s in parts])


def measure(x, rate=RATE, interval=None, dtype=np.float32, desc=""):
    """Runs x through `[desc !] fxloudness name=m` and returns (messages, properties, result)."""
    msgs = []

    def configure(pipeline):
        bus = pipeline.get_bus()
        bus.enable_sync_message_emission()

        def on_sync(bus, msg):
            s = msg.get_structure()
            if s is not None and s.get_name() == "loudness":
                d = {k: s.get_value(k) for k in (
                    "timestamp", "duration", "running-time", "momentary", "short-term",
                    "integrated", "loudness-range", "max-true-peak", "max-sample-peak")}
                d["true-peak"] = list(s.get_value("true-peak"))
                d["sample-peak"] = list(s.get_value("sample-peak"))
                msgs.append(d)

        bus.connect("sync-message::element", on_sync)

    props = ("momentary", "short-term", "integrated", "loudness-range", "true-peak",
             "sample-peak")
    el = "fxloudness name=m" + ("" if interval is None else " interval=%d" % interval)
    res = run_pipeline((desc + " ! " if desc else "") + el, x.astype(dtype), rate,
                       split=[len(x) // 2, len(x) - len(x) // 2] if len(x) > 1 else None,
                       read_props=[("m", p) for p in props], configure=configure)
    assert_clean(res)
    return msgs, {p: res.props[("m", p)] for p in props}, res


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("level", [-23.0, -33.0])
def test_3341_cases_1_2_steady_sine(level, dtype):
    """Tech 3341 cases 1 and 2: M, S and I of a 1 kHz stereo sine at -23 / -33 dBFS read
    -23.0 / -33.0 LUFS +- 0.1 (shortened to 5 s: every window is full)."""
    x = sine(level, 5.0)
    msgs, props, res = measure(x, dtype=dtype)
    assert np.array_equal(res.y, x.astype(dtype)), "fxloudness must pass audio through untouched"
    for key in ("momentary", "short-term", "integrated"):
        assert abs(props[key] - level) <= 0.1, (key, props[key])
        assert abs(msgs[-1][key] - level) <= 0.1, (key, msgs[-1][key])
        record("loudness", "abs_" + key, abs(props[key] - level), "sine %g" % level)
    # the sample peak of a sine sampled at 48 kHz reaches its amplitude within 0.01 dB
    assert abs(props["sample-peak"] - level) < 0.01
    assert all(abs(p - level) < 0.01 for p in msgs[-1]["sample-peak"])
    assert len(msgs[-1]["true-peak"]) == 2


def test_messages_every_interval():
    """A message per 100 ms of audio by default (a partial last one at EOS), timestamps contiguous;
    momentary reads the level once 400 ms are in, short-term once 3 s are."""
    x = sine(-23.0, 3.25)
    msgs, _, _ = measure(x)
    assert len(msgs) == 33
    for i, m in enumerate(msgs[:-1]):
        assert m["timestamp"] == i * Gst.SECOND // 10
        assert m["duration"] == Gst.SECOND // 10
    assert msgs[-1]["duration"] == Gst.SECOND // 20
    assert msgs[2]["momentary"] < -23.5  # the 400 ms window is not full yet
    assert abs(msgs[3]["momentary"] + 23.0) < 0.1
    assert msgs[28]["short-term"] < -23.1
    assert abs(msgs[29]["short-term"] + 23.0) < 0.1
    msgs, _, _ = measure(x, interval=Gst.SECOND)
    assert [m["duration"] for m in msgs] == [Gst.SECOND] * 3 + [Gst.SECOND // 4]


def test_3341_gating():
    """Tech 3341 case 3 (shortened: 2 s, 12 s, 2 s instead of 10 s, 60 s, 10 s) and case 5 (as
    specified): the relative gate leaves the quiet parts of -36/-23/-36 dBFS out, and keeps the
    three parts of -26/-20/-26 dBFS (20 s, 20.1 s, 20 s): both read I = -23.0 +- 0.1 LUFS."""
    _, props, _ = measure(steps((-36, 2.0), (-23, 12.0), (-36, 2.0)))
    assert abs(props["integrated"] + 23.0) <= 0.1, props
    _, props, _ = measure(steps((-26, 20.0), (-20, 20.1), (-26, 20.0)))
    assert abs(props["integrated"] + 23.0) <= 0.1, props


@pytest.mark.parametrize("freq_div, phase, amp_db", [
    (4, 45.0, -6.0),   # Tech 3341 case 16: fs/4 at 45 degrees, samples 3 dB under the peak
    (6, 60.0, -6.0),   # case 17: fs/6 at 60 degrees
    (8, 67.5, -6.0),   # case 18: fs/8 at 67.5 degrees
    (4, 45.0, 0.0),    # case 19: fs/4 at 45 degrees reaching 0 dBTP (+3 dB over the samples)
])
def test_3341_true_peak(freq_div, phase, amp_db):
    """Inter-sample peaks: the true peak is the sine's amplitude within the +0.2/-0.4 dB that
    Tech 3341 allows at 48 kHz, while the sample peak is lower."""
    x = sine(amp_db, 1.0, freq=RATE / freq_div, phase_deg=phase)
    # a 20 ms raised-cosine fade in and out: the onset of a sine cut at a non-zero sample is a
    # step whose own overshoot (a real true peak) would hide the steady inter-sample peak
    n = int(0.02 * RATE)
    ramp = 0.5 - 0.5 * np.cos(np.pi * np.arange(n) / n)
    x[:n] *= ramp[:, None]
    x[-n:] *= ramp[::-1, None]
    _, props, res = measure(x, dtype=np.float64)
    sample_db = 20 * np.log10(np.abs(x).max())
    assert sample_db < amp_db - 0.5
    assert amp_db - 0.4 <= props["true-peak"] <= amp_db + 0.2, props
    assert abs(props["sample-peak"] - sample_db) < 1e-6
    record("loudness", "abs_true_peak", abs(props["true-peak"] - amp_db), str(freq_div))


def test_3342_loudness_range():
    """Tech 3342 cases 1-3: steps of 20 s at two levels read LRA 10, 5 and 20 LU +- 1 (each run
    40 s of 48 kHz stereo; the three cases are measured in one stream each, F32)."""
    for a, b, lra in ((-20, -30, 10.0), (-20, -15, 5.0), (-40, -20, 20.0)):
        _, props, _ = measure(steps((a, 20.0), (b, 20.0)))
        assert abs(props["loudness-range"] - lra) <= 1.0, (a, b, props)
        record("loudness", "abs_lra", abs(props["loudness-range"] - lra), "%d/%d" % (a, b))


def test_lfe_left_out_and_surround_weighted():
    """5.1 by channel positions: the LFE channel does not count, the surround channels weigh
    +1.5 dB (BS.1770): only the LFE carrying a loud sine leaves the loudness -inf."""
    x = np.zeros((RATE, 6))
    x[:, 3] = 0.5 * np.sin(2 * np.pi * 50 * np.arange(RATE) / RATE)
    caps = ("audio/x-raw,format=F32LE,layout=interleaved,rate=48000,channels=6,"
            "channel-mask=(bitmask)0x3f")
    _, props, _ = measure(x, desc="capssetter join=false replace=true caps=\"%s\"" % caps)
    assert props["integrated"] == float("-inf"), props


def test_s16_input():
    """S16 passes through and reads the same loudness."""
    x = sine(-23.0, 2.0)
    _, props, _ = measure(x, desc="audioconvert ! audio/x-raw,format=S16LE")
    assert abs(props["integrated"] + 23.0) <= 0.1, props


# ------------------------------------------------------------------------------------------------
# an independent reference: BS.1770-4 integrated loudness in numpy (K-weighting at 48 kHz with the
# coefficients the Recommendation gives, 400 ms blocks every 100 ms, -70 LUFS absolute and -10 LU
# relative gates) and the true peak by 4x polyphase oversampling (scipy)

K_STAGES = (
    ([1.53512485958697, -2.69169618940638, 1.19839281085285],
     [1.0, -1.69065929318241, 0.73248077421585]),
    ([1.0, -2.0, 1.0], [1.0, -1.99004745483398, 0.99007225036621]),
)


def bs1770_integrated(x, weights=None):
    from scipy.signal import lfilter
    y = np.asarray(x, dtype=np.float64)
    for b, a in K_STAGES:
        y = lfilter(b, a, y, axis=0)
    w = np.ones(y.shape[1]) if weights is None else np.asarray(weights)
    block, hop = int(0.4 * RATE), int(0.1 * RATE)
    z = np.array([np.mean(y[i:i + block] ** 2, axis=0)
                  for i in range(0, len(y) - block + 1, hop)])
    lk = -0.691 + 10 * np.log10(np.maximum(z @ w, 1e-300))
    z = z[lk > -70]
    lk = lk[lk > -70]
    rel = -0.691 + 10 * np.log10(np.mean(z @ w)) - 10
    return -0.691 + 10 * np.log10(np.mean(z[lk > rel] @ w))


def true_peak_db(x):
    from scipy.signal import resample_poly
    return 20 * np.log10(np.abs(resample_poly(np.asarray(x, np.float64), 4, 1, axis=0)).max())


def test_reference_reads_3341():
    """The numpy reference itself reads the 3341 sine at -23.0 LUFS."""
    assert abs(bs1770_integrated(sine(-23.0, 3.0)) + 23.0) < 0.05


def programme(seed=1, seconds=6.0):
    """Speech-like test programme: band-limited noise bursts with pauses, two channels."""
    rng = np.random.default_rng(seed)
    n = int(seconds * RATE)
    from scipy.signal import butter, sosfilt
    noise = sosfilt(butter(4, [200, 4000], "bandpass", fs=RATE, output="sos"),
                    rng.standard_normal((n, 2)), axis=0)
    env = np.repeat(rng.uniform(0.05, 1.0, int(seconds * 4)), n // int(seconds * 4))
    env[rng.random(env.size) < 0.15] = 0.0  # pauses (left out by the gates)
    return 0.05 * noise * np.resize(env, n)[:, None]


def normalize(x, props, dtype=np.float32):
    res = run_pipeline("fxnormalize name=n mode=lufs " + props, x.astype(dtype), RATE,
                       split="random", read_props=[("n", "gains")])
    assert_clean(res, frames=len(x))
    return res.y.astype(np.float64), list(res.props[("n", "gains")])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("target", [-23.0, -16.0])
def test_normalize_lufs_reaches_target(target, dtype):
    """mode=lufs: the output's integrated loudness (numpy BS.1770 reference) is the target
    +- 0.1 LU, with one gain for both channels; the programme's true peak stays under the
    default -1 dBTP ceiling."""
    require_fx("fxnormalize")
    x = programme()
    y, gains = normalize(x, "target-lufs=%g" % target, dtype)
    out = bs1770_integrated(y)
    assert abs(out - target) <= 0.1, (out, target)
    assert gains[0] == gains[1]
    assert true_peak_db(y) <= -1.0 + 0.05
    record("loudness", "abs_norm_lufs", abs(out - target), "target %g" % target)


def test_normalize_lufs_true_peak_ceiling():
    """A peaky programme (clicks over quiet noise) cannot reach -16 LUFS under -1 dBTP: the gain
    gives way so that the true peak sits at the ceiling (within the oversampling estimates'
    difference), and the loudness stays under the target by the same amount."""
    require_fx("fxnormalize")
    x = programme(seed=2) * 0.5
    x[RATE // 2::RATE, :] = 0.5  # a click every second
    tp_in, lufs_in = true_peak_db(x), bs1770_integrated(x)
    y, gains = normalize(x, "target-lufs=-16 true-peak-limit=-1", np.float64)
    tp_out, lufs_out = true_peak_db(y), bs1770_integrated(y)
    assert lufs_in + (-1.0 - tp_in) < -16.0, "the case must hit the ceiling"
    assert tp_out <= -1.0 + 0.1, tp_out
    assert abs(tp_out - (-1.0)) <= 0.2, tp_out
    assert lufs_out < -16.0 - 1.0
    assert abs((lufs_out - lufs_in) - 20 * np.log10(gains[0])) < 0.01


def test_normalize_lufs_silence_and_message():
    """Silence keeps gain 1 (never an unbounded gain); the message carries loudness and
    true-peak."""
    require_fx("fxnormalize")
    msgs = []

    def configure(pipeline):
        bus = pipeline.get_bus()
        bus.enable_sync_message_emission()
        bus.connect("sync-message::element", lambda b, m: msgs.append(m.get_structure().copy())
                    if m.get_structure().get_name() == "fxnormalize" else None)

    y = run_pipeline("fxnormalize mode=lufs", np.zeros((RATE, 2), np.float32), RATE,
                     configure=configure)
    assert_clean(y)
    assert not y.y.any()
    assert msgs and msgs[0].get_value("loudness") == float("-inf")
    assert list(msgs[0].get_value("gains")) == [1.0, 1.0]
    x = sine(-30.0, 2.0)
    res = run_pipeline("fxnormalize mode=lufs", x.astype(np.float32), RATE, configure=configure)
    assert_clean(res)
    assert abs(msgs[-1].get_value("loudness") + 30.0) < 0.1
    assert abs(msgs[-1].get_value("true-peak") + 30.0) < 0.2


# ------------------------------------------------------------------------------------------------
# fxloudnorm (live)


def loudnorm(x, props, dtype=np.float32):
    require_fx("fxloudnorm")
    lat = []

    def configure(pipeline):
        el = pipeline.get_by_name("l")

        def on_buffer(pad, info):
            if not lat:
                q = Gst.Query.new_latency()
                if el.get_static_pad("src").query(q):
                    lat.append(q.parse_latency())
            return Gst.PadProbeReturn.OK

        el.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, on_buffer)

    res = run_pipeline("fxloudnorm name=l " + props, x.astype(dtype), RATE, split="random",
                       configure=configure)
    assert not res.errors and res.eos, res.error_text()
    return res, lat


@pytest.mark.parametrize("seed, target, ceiling", [(1, -16.0, -1.0), (3, -24.0, -2.0)])
def test_loudnorm_live(seed, target, ceiling):
    """A 30 s programme 10-18 LU under the target: after the look-ahead (reported by the LATENCY
    query, the output is the input delayed by it plus the tail at EOS) the output's integrated
    loudness (numpy BS.1770 reference) is the target +- 1 LU, its true peak (libebur128 through
    fxloudness, 4x oversampled) at most the ceiling + 0.1 dB."""
    x = programme(seed=seed, seconds=30.0)
    res, lat = loudnorm(x, "target-lufs=%g max-true-peak=%g" % (target, ceiling))
    la = res.y.shape[0] - x.shape[0]
    assert 3.1 * RATE <= la < 3.2 * RATE
    assert not res.y[:la - RATE // 50].any(), "the look-ahead starts with silence"
    y = res.y[la:].astype(np.float64)
    out = bs1770_integrated(y)
    assert abs(out - target) <= 1.0, (out, target)
    _, props, _ = measure(y, dtype=np.float64)
    assert props["true-peak"] <= ceiling + 0.1, props
    record("loudness", "abs_loudnorm_lufs", abs(out - target), "seed %d" % seed)


def test_loudnorm_reports_latency():
    """The LATENCY query adds the look-ahead (3.1 s and the limiter's 10 ms and taps)."""
    x = programme(seconds=4.0)
    res, lat = loudnorm(x, "")
    la = res.y.shape[0] - x.shape[0]
    assert lat, "no answer to the LATENCY query"
    live, lo, hi = lat[0]
    assert lo == Gst.util_uint64_scale_int(la, Gst.SECOND, RATE), (lo, la)


def test_loudnorm_silence_stays_silent():
    """Silence and NaN in: silence out, never an unbounded gain."""
    x = np.zeros((4 * RATE, 2))
    x[RATE, 0] = np.nan
    res, _ = loudnorm(x, "")
    assert not res.y.any()


def test_loudness_nonfinite_and_unmeasurable():
    """NaN/Inf become 0 in the output and are measured as 0 (one warning), so the integrated
    loudness of a sine with a NaN stays -23; a 65-channel stream passes with a warning saying
    libebur128 cannot measure it."""
    x = sine(-23.0, 2.0)
    x[RATE // 2, 0] = np.nan
    x[RATE, 1] = np.inf
    res = run_pipeline("fxloudness name=m", x.astype(np.float32), RATE,
                       read_props=[("m", "integrated")])
    assert not res.errors and res.eos
    assert len(res.warnings) == 1, res.warning_text()
    assert np.isfinite(res.y).all()
    assert res.y[RATE // 2, 0] == 0.0 and res.y[RATE, 1] == 0.0
    assert abs(res.props[("m", "integrated")] + 23.0) <= 0.1
    y = np.zeros((4800, 65), np.float32)
    y[:, 0] = 0.5
    res = run_pipeline("fxloudness name=m", y, RATE, read_props=[("m", "integrated")])
    assert not res.errors and res.eos and np.array_equal(res.y, y)
    assert any("64 channels" in w[2] for w in res.warnings), res.warning_text()
    assert res.props[("m", "integrated")] == float("-inf")


def test_loudnorm_target_changes_while_playing():
    """target-lufs is controllable: set from -30 to -20 LUFS after 8 s of a steady programme,
    the last 8 s of output read -20 +- 1 LUFS (numpy reference), the first 8 s -30 +- 1."""
    from conftest import set_on_buffer
    x = sine(-40.0, 24.0, freq=500.0)
    n = 240  # buffers of 100 ms
    res = run_pipeline("fxloudnorm name=fx target-lufs=-30 max-true-peak=0", x.astype(np.float32),
                       RATE, split=[RATE // 10] * n, configure=set_on_buffer(n // 2 + 1, "target-lufs",
                                                                           -20.0))
    assert not res.errors and res.eos
    y = res.y[res.y.shape[0] - x.shape[0]:].astype(np.float64)
    assert abs(bs1770_integrated(y[2 * RATE:10 * RATE]) + 30.0) <= 1.0
    assert abs(bs1770_integrated(y[-8 * RATE:]) + 20.0) <= 1.0


def test_loudnorm_over_64_channels_limits_only():
    """65 channels (beyond libebur128): a warning, unity gain, the true-peak limiter still holds
    the ceiling, and the latency is only the limiter's."""
    x = np.zeros((RATE, 65))
    x[:, :] = 0.9 * np.sin(2 * np.pi * 100 * np.arange(RATE) / RATE)[:, None]
    res, lat = loudnorm(x, "max-true-peak=-6")
    assert any("64 channels" in w[2] for w in res.warnings), res.warning_text()
    la = res.y.shape[0] - x.shape[0]
    assert la < RATE // 50
    y = res.y[la:].astype(np.float64)
    assert np.abs(y).max() <= 10 ** (-6 / 20) * 1.01
    assert np.abs(y[RATE // 2:]).max() >= 10 ** (-6 / 20) * 0.97  # limited, not muted


@pytest.mark.parametrize("fmt", ["S16LE", "S32LE"])
def test_integer_streams(fmt):
    """Integer streams (issue 18's formats): fxnormalize mode=lufs (held as floats) reaches
    -16 LUFS +- 0.1 and fxloudnorm runs as floats, requantised, its output finite and under the
    ceiling."""
    x = programme(seconds=6.0)
    conv = "audioconvert ! audio/x-raw,format=%s ! " % fmt
    back = " ! audioconvert ! audio/x-raw,format=F64LE"
    res = run_pipeline(conv + "fxnormalize mode=lufs target-lufs=-16" + back, x, RATE)
    assert_clean(res, frames=len(x))
    assert abs(bs1770_integrated(res.y) + 16.0) <= 0.1
    res = run_pipeline(conv + "fxloudnorm max-true-peak=-1" + back, x, RATE)
    assert not res.errors and res.eos
    la = res.y.shape[0] - x.shape[0]
    assert 3.1 * RATE <= la < 3.2 * RATE
    assert np.isfinite(res.y).all() and np.abs(res.y).max() <= 10 ** (-1 / 20)
