"""Behaviour users compare with the stock elements (issue 18, item 7): fxgain's mute (stock
volume's), fxreverb's mono-in stereo-out (stock freeverb's) and fxchebyshev1's DC gain against
stock audiocheblimit (documented in docs/elements.md)."""

import numpy as np
import pytest
import scipy.signal as ss

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GObject, Gst  # noqa: E402

from conftest import assert_clean, noise, run_pipeline, set_on_buffer  # noqa: E402

pytestmark = pytest.mark.usefixtures("fx")

RATE = 48000


def sine(frames, freq=440.0, amplitude=0.5, channels=2):
    t = np.arange(frames) / RATE
    return np.repeat((amplitude * np.sin(2 * np.pi * freq * t))[:, None], channels, axis=1)


# ------------------------------------------------------------------------------------------------
# fxgain mute

def test_mute_property_is_a_controllable_dsp_parameter():
    p = Gst.ElementFactory.make("fxgain", None).find_property("mute")
    assert p is not None and p.value_type == GObject.TYPE_BOOLEAN and p.default_value is False
    assert p.flags & Gst.PARAM_CONTROLLABLE and p.flags & Gst.PARAM_MUTABLE_PLAYING


@pytest.mark.parametrize("gain_db", [0.0, -6.0])
def test_mute_ramps_to_zeros_and_back(gain_db):
    """mute=true at buffer 20 ramps the gain to 0 over that buffer (no step larger than the
    signal's own plus 1/1024 of its amplitude), then zeros; mute=false at buffer 60 ramps back
    to the gain, which was kept."""
    split, amp = 1024, 0.5
    x = sine(100 * split, amplitude=amp)
    g = 10 ** (gain_db / 20)

    def configure(p):
        set_on_buffer(20, "mute", True)(p)
        set_on_buffer(60, "mute", False)(p)

    res = run_pipeline("fxgain name=fx gain=%r" % gain_db, x, RATE, split=split,
                       configure=configure)
    assert_clean(res, x.shape[0])
    y = res.y
    on, off = 19 * split, 59 * split  # first frames of buffers 20 and 60
    np.testing.assert_allclose(y[:on], x[:on] * g, rtol=0, atol=1e-15)
    assert np.all(y[on + split:off] == 0.0), "not silent after the mute ramp"
    np.testing.assert_allclose(y[off + split:], x[off + split:] * g, rtol=0, atol=1e-15)
    # the ramps: linear in the gain, per frame, over one buffer
    ramp_down = g * (1.0 - np.arange(1, split + 1) / split)
    np.testing.assert_allclose(y[on:on + split], x[on:on + split] * ramp_down[:, None], atol=1e-12)
    natural = np.max(np.abs(np.diff(x, axis=0))) * g
    step = np.max(np.abs(np.diff(y, axis=0)))
    assert step <= natural + amp * g / split * 1.001, (step, natural)


def test_mute_inside_a_fused_chain_silences():
    """fxgain folded into fxchain's cascade: muted at buffer 20, the chain goes silent through the
    cascade's transition, with no step larger than the unmuted output's own."""
    split = 1024
    x = sine(60 * split)

    def configure(p):
        c = p.get_by_name("c")
        c.set_property("chain", "fxbutterworth name=lp cutoff=20000 order=2 ! fxgain name=g")
        count = [0]

        def on_buffer(pad, info):
            count[0] += 1
            if count[0] == 20:
                Gst.ChildProxy.get_child_by_name(c, "g").set_property("mute", True)
            return Gst.PadProbeReturn.OK

        c.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, on_buffer)

    res = run_pipeline("fxchain name=c", x, RATE, split=split, configure=configure,
                       read_props=[("c", "plan")])
    assert_clean(res, x.shape[0])
    assert "cascade lp+g" in res.props[("c", "plan")], res.props
    y = res.y
    assert np.all(y[21 * split:] == 0.0), "not silent after the transition"
    before = np.max(np.abs(np.diff(y[:19 * split], axis=0)))
    assert np.max(np.abs(np.diff(y, axis=0))) <= before * 1.05


# ------------------------------------------------------------------------------------------------
# fxreverb: mono in, stereo out

REVERB = "fxreverb name=fx room-size=0.7 damping=0.3 mix=0.5 width=%r"


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["F64", "F32"])
@pytest.mark.parametrize("width", [1.0, 0.6])
def test_reverb_mono_to_stereo(width, dtype):
    """A mono stream into a stereo capsfilter: the mono signal feeds both tanks of a stereo
    Freeverb (the numpy reference fed [x, x]); the channels differ and both carry a tail; at
    width 1 the left one is the mono->mono output, sample for sample."""
    from test_reverb import ref_reverb

    rate = 22050
    x = noise(4000, 1, seed=184, dtype=dtype)
    stereo = run_pipeline(REVERB % width + " ! audio/x-raw,channels=2", x, rate, split="random")
    mono = run_pipeline(REVERB % width, x, rate, split="random")
    assert_clean(stereo)
    assert_clean(mono)
    y, m = stereo.y, mono.y
    assert y.shape[1] == 2 and m.shape[1] == 1
    ref = ref_reverb(np.repeat(x, 2, axis=1), rate, room=0.7, damping=0.3, mix=0.5, width=width,
                     total=y.shape[0])
    tol = 1e-12 if dtype == np.float64 else 1e-6
    assert np.max(np.abs(y - ref)) <= tol * np.max(np.abs(ref))
    tail = y[x.shape[0]:]
    assert np.all(np.sqrt(np.mean(tail[:rate // 4] ** 2, axis=0)) > 1e-3), "no tail"
    assert np.corrcoef(tail[:rate // 4].T)[0, 1] < 0.9, "the channels do not differ"
    if width == 1.0:
        n = min(m.shape[0], y.shape[0])
        assert np.array_equal(y[:n, 0], m[:n, 0])


def test_reverb_renegotiates_between_mono_and_stereo_output():
    """A stream whose rate changes mid-way keeps the mono -> stereo conversion, each piece equal
    to the reference for its rate."""
    from test_reverb import ref_reverb

    x1, x2 = noise(3000, 1, seed=185), noise(3000, 1, seed=186)
    res = run_pipeline(REVERB % 1.0 + " ! audio/x-raw,channels=2", [(x1, 22050), (x2, 44100)],
                       split=700)
    assert not res.errors and not res.warnings, res.error_text() + res.warning_text()
    assert len(res.pieces) == 2
    for y, x, rate in zip(res.pieces, (x1, x2), (22050, 44100)):
        assert y.shape[1] == 2
        n = min(y.shape[0], x.shape[0])
        ref = ref_reverb(np.repeat(x, 2, axis=1), rate, room=0.7, damping=0.3, mix=0.5,
                         width=1.0)
        assert np.max(np.abs(y[:n] - ref[:n])) <= 1e-12 * np.max(np.abs(ref))


def test_reverb_mono_stays_mono_and_stereo_via_gst_launch():
    """gst-launch-1.0: with downstream free the output stays mono; a stereo capsfilter gets
    stereo from the mono audiotestsrc."""
    import subprocess

    def caps_out(tail):
        out = subprocess.run(["gst-launch-1.0", "-v", "audiotestsrc", "num-buffers=20", "!",
                              "audio/x-raw,channels=1,rate=44100", "!", "fxreverb", "name=r"] +
                             tail + ["!", "fakesink"], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr + out.stdout
        lines = [ln for ln in out.stdout.splitlines() if "/GstFxReverb:r.GstPad:src: caps" in ln]
        assert lines, out.stdout
        return lines[-1]

    assert "channels=(int)1" in caps_out(["!", "audioconvert"])
    assert "channels=(int)2" in caps_out(["!", "audio/x-raw,channels=2"])


# ------------------------------------------------------------------------------------------------
# fxchebyshev1 against stock audiocheblimit (type=1)

def impulse_response(desc, frames=1 << 15):
    x = np.zeros((frames, 1))
    x[0, 0] = 1.0
    res = run_pipeline(desc, x, RATE, split=4096)
    assert_clean(res, frames)
    return res.y[:, 0]


@pytest.mark.parametrize("mode", ["low-pass", "high-pass"])
@pytest.mark.parametrize("order,ripple", [(2, 0.5), (4, 3.0), (6, 1.0)])
def test_chebyshev1_even_order_plus_ripple_is_stock(mode, order, ripple):
    """Even orders: ours peaks at 0 dB in the passband (scipy's cheby1), its DC (low-pass) or
    Nyquist (high-pass) gain is -ripple dB; stock audiocheblimit puts that gain at 0 dB, so it is
    ours raised by exactly +ripple dB everywhere. docs/elements.md's one-liner,
    `fxchebyshev1 ... ! fxgain gain=<ripple>`, gives stock's response."""
    if Gst.ElementFactory.find("audiocheblimit") is None:
        pytest.fail("audiocheblimit (gst-plugins-good) is required for this test")
    common = "mode=%s ripple=%r cutoff=4000" % (mode, ripple)
    stock = impulse_response("audiocheblimit type=1 poles=%d %s" % (order, common))
    ours = impulse_response("fxchebyshev1 order=%d %s" % (order, common))
    matched = impulse_response("fxchebyshev1 order=%d %s ! fxgain gain=%r" % (order, common,
                                                                               ripple))
    edge = 0 if mode == "low-pass" else -1  # DC or Nyquist bin

    def db(h):
        return 20 * np.log10(np.maximum(np.abs(np.fft.rfft(h)), 1e-300))

    assert db(ours)[edge] == pytest.approx(-ripple, abs=1e-6)
    assert db(stock)[edge] == pytest.approx(0.0, abs=1e-6)
    f = np.fft.rfftfreq(ours.size, 1.0 / RATE)
    passband = f <= 4000 if mode == "low-pass" else f >= 4000
    assert np.max(np.abs(db(stock)[passband] - db(ours)[passband] - ripple)) <= 1e-4
    sos = ss.cheby1(order, ripple, 4000, mode.replace("-pass", "pass"), fs=RATE, output="sos")
    ref = ss.sosfilt(sos, np.eye(1, ours.size)[0]) * 10 ** (ripple / 20)
    assert np.max(np.abs(matched - stock)) <= 1e-6 * np.max(np.abs(stock))
    assert np.max(np.abs(matched - ref)) <= 1e-9 * np.max(np.abs(ref))
