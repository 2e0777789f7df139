"""fxreverb against a Freeverb reference written here from Jezar's published algorithm (combs
with a one-pole damping filter in the loop, Schroeder all-passes with feedback 0.5, input gain
0.015, stereo spread 23, wet scale 3, dry scale 2), independently of dsp/reverb.c: each comb and
all-pass is computed a delay length at a time with numpy/scipy (within one delay length nothing
depends on itself), not sample by sample. Also: delay lengths scaled to the rate (the first
reflection lands at round(1116 * rate / 44100)), mono / pairs / 1024 channels, the EOS tail,
click-free changes and bad input."""

import math

import numpy as np
import pytest
import scipy.signal as ss

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

from conftest import noise, record, rel_err, require_fx, run_pipeline  # noqa: E402

COMBS = (1116, 1188, 1277, 1356, 1422, 1491, 1557, 1617)
ALLPASSES = (556, 441, 341, 225)
SPREAD = 23
THRESHOLD = 10 ** (-90 / 20)
TAIL_BLOCK = 4096
TOL = {np.float64: 1e-9, np.float32: 1e-5}


@pytest.fixture(autouse=True)
def _fx():
    require_fx("fxreverb")


def scaled(length, rate):
    return max(1, int(math.floor(length * rate / 44100.0 + 0.5)))


def comb(u, L, fb, damp1):
    """Freeverb comb: y[n] = v[n - L]; s[n] = (1 - damp1) y[n] + damp1 s[n-1];
    v[n] = u[n] + fb s[n]. Returns y."""
    N = len(u)
    nb = -(-N // L)
    up = np.zeros(nb * L)
    up[:N] = u
    y = np.zeros(nb * L)
    v_prev = np.zeros(L)
    s_last = 0.0
    for j in range(nb):
        blk = slice(j * L, (j + 1) * L)
        y[blk] = v_prev
        s, _ = ss.lfilter([1.0 - damp1], [1.0, -damp1], v_prev, zi=[damp1 * s_last])
        s_last = s[-1]
        v_prev = up[blk] + fb * s
    return y[:N]


def allpass(u, L):
    """Freeverb all-pass: b[n] = w[n - L]; out = b - u; w[n] = u[n] + 0.5 b[n]."""
    N = len(u)
    nb = -(-N // L)
    up = np.zeros(nb * L)
    up[:N] = u
    out = np.zeros(nb * L)
    w_prev = np.zeros(L)
    for j in range(nb):
        blk = slice(j * L, (j + 1) * L)
        out[blk] = w_prev - up[blk]
        w_prev = up[blk] + 0.5 * w_prev
    return out[:N]


def bank(u, rate, spread, fb, damp1):
    acc = sum(comb(u, scaled(L + spread, rate), fb, damp1) for L in COMBS)
    for L in ALLPASSES:
        acc = allpass(acc, scaled(L + spread, rate))
    return acc


def ref_reverb(x, rate, room=0.5, damping=0.5, mix=0.3, width=1.0, total=None):
    """Freeverb with wet = mix / 3, dry = (1 - mix) / 2 (so the scaled gains are mix and 1 - mix);
    channels in pairs, an odd last one mono (fed 2 x 0.015 x its input)."""
    x = np.asarray(x, dtype=np.float64)
    N, C = x.shape
    total = N if total is None else total
    xx = np.zeros((total, C))
    xx[:N] = x
    fb = 0.7 + 0.28 * room
    d1 = 0.4 * damping
    wet = mix / 3.0 * 3.0
    dry = (1.0 - mix) / 2.0 * 2.0
    wet1 = wet * (width / 2.0 + 0.5)
    wet2 = wet * ((1.0 - width) / 2.0)
    y = np.zeros((total, C))
    for c in range(0, C, 2):
        if c + 1 < C:
            u = (xx[:, c] + xx[:, c + 1]) * 0.015
            wl = bank(u, rate, 0, fb, d1)
            wr = bank(u, rate, SPREAD, fb, d1)
            y[:, c] = wl * wet1 + wr * wet2 + xx[:, c] * dry
            y[:, c + 1] = wr * wet1 + wl * wet2 + xx[:, c + 1] * dry
        else:
            u = 2.0 * xx[:, c] * 0.015
            y[:, c] = bank(u, rate, 0, fb, d1) * wet + xx[:, c] * dry
    return y


def desc_of(room=0.5, damping=0.5, mix=0.3, width=1.0):
    return "fxreverb name=fx room-size=%r damping=%r mix=%r width=%r" % (room, damping, mix, width)


def check_close(y, ref, dtype, case, family="fxreverb vs reference"):
    e = rel_err(y, ref)
    record(family, "rel_err", e, case)
    assert e <= TOL[dtype], "%s: relative error %.3g" % (case, e)


# ------------------------------------------------------------------------------------------------


def test_reference_is_freeverb_impulse():
    """Sanity of the reference itself on a case computed by hand: one comb of length 3 with
    damping 0 and feedback 0.5 echoes an impulse at 3, 6, 9 with gains 1, 0.5, 0.25; an all-pass
    of length 2 maps an impulse to -1 at 0, then 1, 0.5, 0.25 every 2 samples."""
    u = np.zeros(12)
    u[0] = 1.0
    assert np.allclose(comb(u, 3, 0.5, 0.0)[[3, 6, 9]], [1.0, 0.5, 0.25])
    assert np.count_nonzero(comb(u, 3, 0.5, 0.0)) == 3
    a = allpass(u, 2)
    assert np.allclose(a[[0, 2, 4, 6]], [-1.0, 1.0, 0.5, 0.25])
    assert np.count_nonzero(a) == 6


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("split", [None, "random", 1])
@pytest.mark.parametrize("settings", [dict(), dict(room=0.9, damping=0.1, mix=1.0, width=0.3),
                                      dict(room=0.0, damping=1.0, mix=0.7, width=0.0)],
                         ids=["default", "big-room", "dead-room"])
def test_matches_reference(dtype, split, settings):
    rate = 44100
    frames = 2500 if split == 1 else 8000
    x = noise(frames, 2, seed=21, dtype=dtype)
    res = run_pipeline(desc_of(**settings), x, rate, split=split)
    assert not res.errors and not res.warnings, res.error_text() + res.warning_text()
    assert res.eos and res.y.shape[0] >= frames
    ref = ref_reverb(x, rate, total=res.y.shape[0], **settings)
    check_close(res.y, ref, dtype, "%s %s %s" % (settings, np.dtype(dtype).name, split))


@pytest.mark.parametrize("rate", [8000, 44100, 48000, 96000, 384000])
def test_lengths_scale_with_rate(rate):
    """An impulse on both channels, all wet: the left output starts at the shortest comb,
    round(1116 * rate / 44100), the right one at round(1139 * rate / 44100); and the whole
    output matches the reference at that rate."""
    frames = max(int(0.06 * rate), 3000)
    x = np.zeros((frames, 2))
    x[0] = 0.5
    res = run_pipeline(desc_of(mix=1.0, width=1.0), x, rate, split="random")
    assert not res.errors
    y = res.y[:frames]
    first = [int(np.flatnonzero(np.abs(y[:, c]) > 1e-15)[0]) for c in range(2)]
    expect = [int(math.floor(1116 * rate / 44100 + 0.5)),
              int(math.floor(1139 * rate / 44100 + 0.5))]
    assert first == expect, (rate, first, expect)
    ref = ref_reverb(x, rate, mix=1.0, width=1.0, total=res.y.shape[0])
    check_close(res.y, ref, np.float64, "rate %d" % rate)


@pytest.mark.parametrize("channels", [1, 3, 4])
def test_channel_layouts(channels):
    """Mono: one bank fed 2 x 0.015 x x; 3 channels: a stereo pair and a mono reverb; 4: two
    independent pairs."""
    rate = 22050
    x = noise(5000, channels, seed=22)
    s = dict(room=0.7, damping=0.3, mix=0.5, width=0.8)
    res = run_pipeline(desc_of(**s), x, rate, split="random")
    assert not res.errors
    ref = ref_reverb(x, rate, total=res.y.shape[0], **s)
    check_close(res.y, ref, np.float64, "%d channels" % channels)


def test_1024_channels():
    rate = 8000
    x = noise(600, 1024, seed=23)
    res = run_pipeline(desc_of(mix=0.5), x, rate, split=("random", 1, 300))
    assert not res.errors
    n = 2000  # the tail of 1024 channels is long; compare its start
    ref = ref_reverb(x, rate, mix=0.5, total=n)
    check_close(res.y[:n], ref, np.float64, "1024 channels")


@pytest.mark.parametrize("rate", [1, 3, 100])
def test_tiny_rates(rate):
    """At 1 Hz every delay is one sample; nothing crashes and the reference still holds."""
    x = noise(40, 2, seed=24)
    res = run_pipeline(desc_of(mix=0.5), x, rate, split=("random", 1, 7))
    assert not res.errors and res.eos
    ref = ref_reverb(x, rate, mix=0.5, total=res.y.shape[0])
    check_close(res.y, ref, np.float64, "rate %d" % rate)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_tail_at_eos(dtype):
    """The reverb tail comes after the last input buffer in 4096-frame buffers with continuous
    timestamps, equal to the reference continued on silence, until it is below -90 dBFS."""
    rate = 16000
    x = noise(1600, 2, seed=25, dtype=dtype)
    s = dict(room=0.5, damping=0.5, mix=0.5)
    res = run_pipeline(desc_of(**s), x, rate, split=500)
    assert not res.errors and not res.warnings and res.eos
    n_out = res.y.shape[0]
    assert n_out > 1600 and (n_out - 1600) % TAIL_BLOCK == 0
    ref = ref_reverb(x, rate, total=n_out + 2 * rate, **s)
    check_close(res.y, ref[:n_out], dtype, "tail %s" % np.dtype(dtype).name,
                family="fxreverb tail vs reference")
    above = np.flatnonzero(np.max(np.abs(ref), axis=1) >= THRESHOLD)
    assert above[-1] < n_out, "tail cut at %d, reference above -90 dBFS until %d" % (
        n_out, above[-1])
    # the bound is conservative (about 56 dB): at most ~2 s past the last audible sample here
    assert n_out <= above[-1] + 2 * rate + TAIL_BLOCK
    pos = 0
    for pts, n in res.out_pts:
        assert pts == Gst.util_uint64_scale_int(pos, Gst.SECOND, rate)
        pos += n


CHANGES = [("room-size", 0.2, 0.95), ("damping", 0.0, 1.0), ("mix", 0.05, 0.95),
           ("width", 1.0, 0.0)]


@pytest.mark.parametrize("prop,v0,v1", CHANGES, ids=[c[0] for c in CHANGES])
def test_changes_without_clicks(prop, v0, v1):
    """A 220 Hz sine (faded in) with one parameter changed while playing: above 3 kHz the output
    stays under 2e-3 around the change (a reverb of a sine is a sine), while the same change
    applied at once to the reference outputs (switching from the old to the new steady
    output) shows a click well above it."""
    rate, B, n_change = 16000, 400, 21
    frames = 16000
    t = np.arange(frames) / rate
    fade = np.minimum(1.0, t / 0.05)[:, None] ** 2
    x = np.stack([0.5 * np.sin(2 * np.pi * 220 * t), 0.4 * np.sin(2 * np.pi * 220 * t + 1)],
                 1) * fade
    f0 = (n_change - 1) * B
    base = dict(room=0.5, damping=0.5, mix=0.5, width=1.0)
    key = {"room-size": "room"}.get(prop, prop)
    s0 = dict(base, **{key: v0})
    s1 = dict(base, **{key: v1})

    def configure(pipe):
        fx = pipe.get_by_name("fx")
        count = [0]

        def on_buffer(pad, info):
            count[0] += 1
            if count[0] == n_change:
                fx.set_property(prop, v1)
            return Gst.PadProbeReturn.OK

        fx.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, on_buffer)

    res = run_pipeline(desc_of(**s0), x, rate, split=B, configure=configure)
    assert not res.errors
    y = res.y[:frames]
    sos = ss.butter(4, 3000, "highpass", fs=rate, output="sos")

    def click(v):
        return float(np.max(np.abs(ss.sosfilt(sos, v, axis=0)[f0 - 10:f0 + 4000])))

    c = click(y)
    record("fxreverb change click", "ratio hp-peak/2e-3", c / 2e-3, "%s %g->%g" % (prop, v0, v1))
    assert c <= 2e-3, "high-passed peak %.3g after the change" % c
    r0 = ref_reverb(x, rate, **s0)
    r1 = ref_reverb(x, rate, **s1)
    naive = np.concatenate([r0[:f0], r1[f0:]])
    if prop != "damping":  # damping changes the steady state of a 220 Hz sine too little
        assert click(naive) > 5 * 2e-3, click(naive)
    # the element reached the new setting: the output converges to the new steady state (slowly
    # for a big room: comb feedback 0.966 decays by 1/e in ~30 round trips)
    late = slice(frames - 2000, frames)
    assert rel_err(y[late], r1[late]) < rel_err(y[late], r0[late])
    if prop != "room-size":
        assert rel_err(y[late], r1[late]) < 0.05


def test_properties():
    el = Gst.ElementFactory.make("fxreverb")
    for name, lo, hi in (("room-size", 0, 1), ("damping", 0, 1), ("mix", 0, 1), ("width", 0, 1)):
        spec = el.find_property(name)
        assert spec.flags & Gst.PARAM_CONTROLLABLE and spec.flags & Gst.PARAM_MUTABLE_PLAYING
        assert (spec.minimum, spec.maximum) == (lo, hi)
    with pytest.warns(Warning, match="room-size"):
        el.set_property("room-size", 1.5)
    assert el.get_property("room-size") == 0.5


def test_nonfinite_input_costs_one_sample():
    """+Inf is processed as a 0 before the combs see it: the whole output, tail included, is
    the reference's for a 0 there (one warning, nothing reset)."""
    rate = 8000
    x = noise(3000, 2, seed=26)
    x[700, 1] = np.inf
    res = run_pipeline(desc_of(mix=0.5), x, rate, split=500)
    assert not res.errors
    assert len(res.warnings) == 1 and "NaN" in res.warning_text()
    y = res.y
    assert np.all(np.isfinite(y))
    x0 = np.where(np.isfinite(x), x, 0.0)
    ref = ref_reverb(x0, rate, mix=0.5, total=y.shape[0])
    check_close(y, ref, np.float64, "Inf as 0")


def test_inside_fxchain_as_opaque_stage():
    rate = 16000
    x = noise(3000, 2, seed=27)
    alone = run_pipeline(desc_of(mix=0.4), x, rate, split="random").y
    res = run_pipeline('fxchain chain="fxgain gain=0 ! %s ! fxgain gain=0"'
                       % desc_of(mix=0.4).replace("name=fx ", ""), x, rate, split="random")
    assert not res.errors, res.error_text()
    assert res.y.shape == alone.shape
    assert rel_err(res.y, alone) <= 1e-12


def test_renegotiation_rescales():
    """A new rate mid-stream: the delay lengths are rescaled and the state starts afresh."""
    x1, x2 = noise(2000, 2, seed=28), noise(3000, 2, seed=29)
    res = run_pipeline(desc_of(mix=0.5), [(x1, 44100), (x2, 8000)], split=500)
    assert not res.errors and len(res.pieces) == 2
    ref2 = ref_reverb(x2, 8000, mix=0.5, total=res.pieces[1].shape[0])
    check_close(res.pieces[1], ref2, np.float64, "after renegotiation")
