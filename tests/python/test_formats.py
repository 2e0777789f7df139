"""Integer sample formats (S16LE, S32LE): every element keeps the user's format, processes it as
F32 (S16) or F64 (S32) and requantises once on output (round to nearest, counted clipping,
optional TPDF dither); fxchain requantises once at its output. References are numpy: the element's
own float output on the same (exactly converted) input, scaled, rounded and clipped."""
import os
import wave

import numpy as np
import pytest

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

from conftest import FX_TEST_SEED  # noqa: E402,F401  (varies the seeds below)

RATE = 48000
FRAMES = 2048
SPLIT = 512
SCALE = {"S16LE": 32768.0, "S32LE": 2147483648.0}
DTYPE = {"S16LE": np.int16, "S32LE": np.int32, "F32LE": np.float32, "F64LE": np.float64}
# the format each integer format runs in
WORK = {"S16LE": "F32LE", "S32LE": "F64LE"}

# Every filter element, with settings that change the signal (a gain or a boost so that some
# output clips).
ELEMENTS = [
    "fxbutterworth cutoff=3000 order=4",
    "fxchebyshev1 cutoff=3000 order=4",
    "fxchebyshev2 cutoff=3000 order=4",
    "fxelliptic cutoff=3000 order=4",
    "fxlinkwitzriley",
    "fxbiquad type=peaking gain=9 frequency=1000",
    "fxsos sections=\"0.2 0.4 0.2 1 -0.4 0.2\"",
    "fxgain gain=4",
    "fxeq",
    "fxcompressor",
    "fxgate",
    "fxlimiter",
    "fxnormalize",
    "fxdelay",
    "fxreverb",
    "fxfir",
    "fxchain chain=\"fxbiquad type=peaking gain=6 ! fxgain gain=2\"",
    "fxchain fuse=false chain=\"fxgain gain=3 ! fxbutterworth cutoff=5000\"",
]


def _int_input(fmt, frames=FRAMES, channels=2, seed=1818):
    rng = np.random.default_rng(seed)
    x = 0.45 * rng.standard_normal((frames, channels))
    x[::97] = 0.999  # peaks that a gain or a boost pushes over full scale
    return np.clip(np.rint(x * SCALE[fmt]), -SCALE[fmt], SCALE[fmt] - 1).astype(DTYPE[fmt])


def run(desc, x, fmt, props=()):
    """appsrc (caps @fmt) ! desc name=fx ! appsink, buffers of SPLIT frames; returns the output
    (frames x channels, in the format that reached the sink), its format, the properties read
    after EOS and the warnings posted."""
    channels = x.shape[1]
    name_desc = desc if "name=" in desc else desc.replace(" ", " name=fx ", 1) if " " in desc \
        else desc + " name=fx"
    p = Gst.parse_launch(
        "appsrc name=src format=time caps=audio/x-raw,format=%s,layout=interleaved,rate=%d,"
        "channels=%d,channel-mask=(bitmask)0 ! %s ! appsink name=sink sync=false" %
        (fmt, RATE, channels, name_desc))
    src, sink = p.get_by_name("src"), p.get_by_name("sink")
    chunks, fmts, warnings = [], [], []
    assert p.set_state(Gst.State.PLAYING) != Gst.StateChangeReturn.FAILURE
    t = 0
    for i in range(0, len(x), SPLIT):
        piece = np.ascontiguousarray(x[i:i + SPLIT])
        buf = Gst.Buffer.new_wrapped(piece.tobytes())
        buf.pts = Gst.util_uint64_scale(t, Gst.SECOND, RATE)
        buf.duration = Gst.util_uint64_scale(len(piece), Gst.SECOND, RATE)
        t += len(piece)
        assert src.emit("push-buffer", buf) == Gst.FlowReturn.OK
    src.emit("end-of-stream")
    while True:
        s = sink.emit("try-pull-sample", 10 * Gst.SECOND)
        if s is None:
            break
        fmts.append(s.get_caps().get_structure(0).get_string("format"))
        b = s.get_buffer()
        chunks.append(b.extract_dup(0, b.get_size()))
    bus = p.get_bus()
    while True:
        m = bus.pop_filtered(Gst.MessageType.ERROR | Gst.MessageType.WARNING)
        if m is None:
            break
        if m.type == Gst.MessageType.ERROR:
            p.set_state(Gst.State.NULL)
            pytest.fail("%s: %s" % (desc, m.parse_error()[0].message))
        warnings.append(m.parse_warning()[0].message)
    fx = p.get_by_name("fx")
    values = {k: fx.get_property(k) for k in props}
    p.set_state(Gst.State.NULL)
    assert fmts and len(set(fmts)) == 1, fmts
    y = np.frombuffer(b"".join(chunks), dtype=DTYPE[fmts[0]]).reshape(-1, channels)
    return y, fmts[0], values, warnings


def reference(y_float, fmt):
    """numpy: the float output scaled to the integer range, rounded to nearest (ties to even, like
    np.rint) and clipped; and how many samples clipped."""
    v = np.rint(y_float.astype(np.float64) * SCALE[fmt])
    clipped = int(np.count_nonzero((v > SCALE[fmt] - 1) | (v < -SCALE[fmt])))
    return np.clip(v, -SCALE[fmt], SCALE[fmt] - 1).astype(DTYPE[fmt]), clipped


@pytest.mark.parametrize("fmt", ["S16LE", "S32LE"])
@pytest.mark.parametrize("desc", ELEMENTS)
def test_integer_output_is_the_float_output_rounded_and_clipped(fx, desc, fmt):
    """S16 runs as F32 and S32 as F64 (both exact conversions of every input sample): the integer
    output equals numpy's rounding of the element's own F32 (F64) output on the same samples,
    exactly, and `clipped` counts what numpy clips. Against the F64 output an S16 result is within
    1 LSB (the F32 arithmetic differs from F64 by far less than an LSB, but can move a value
    across a rounding boundary)."""
    x = _int_input(fmt)
    y, got_fmt, props, warnings = run(desc, x, fmt, props=("clipped",))
    assert got_fmt == fmt, "%s: %s in, %s out" % (desc, fmt, got_fmt)
    xf = (x.astype(np.float64) / SCALE[fmt]).astype(DTYPE[WORK[fmt]])
    yf, _, _, _ = run(desc, xf, WORK[fmt])
    ref, clipped = reference(yf, fmt)
    assert y.shape == ref.shape, (y.shape, ref.shape)
    diff = np.flatnonzero(y != ref)
    assert diff.size == 0, "%s %s: %d samples differ, first at %d: %d vs %d (seed %d)" % (
        desc, fmt, diff.size, diff[0], y.flat[diff[0]], ref.flat[diff[0]], FX_TEST_SEED)
    assert props["clipped"] == clipped, (desc, props["clipped"], clipped)
    if clipped:
        assert any("clipped" in w for w in warnings), warnings
    if fmt == "S16LE":
        y64, _, _, _ = run(desc, x.astype(np.float64) / SCALE[fmt], "F64LE")
        ref64, _ = reference(y64, fmt)
        assert np.max(np.abs(y.astype(np.int64) - ref64)) <= 1


def test_clipping_warns_once_per_second_and_counts(fx):
    x = _int_input("S16LE", frames=8192)
    y, _, props, warnings = run("fxgain gain=12", x, "S16LE", props=("clipped",))
    assert props["clipped"] > 100
    # 8192 frames at 48 kHz: under a second of stream time, so one warning
    assert sum("clipped" in w for w in warnings) == 1, warnings


@pytest.mark.parametrize("fmt", ["S16LE", "S32LE"])
def test_unity_gain_is_bit_exact(fx, fmt):
    """dither=none (the default, like volume): an unchanged signal goes through bit-exact, through a
    passthrough fxgain and through processing elements whose output equals their input."""
    x = _int_input(fmt)
    for desc in ("fxgain gain=0", "fxdelay delay=0 mix=0"):
        y, _, _, _ = run(desc, x, fmt)
        assert np.array_equal(y, x), desc


@pytest.mark.parametrize("fmt", ["S16LE", "S32LE"])
def test_tpdf_dither_statistics_and_determinism(fx, fmt):
    """TPDF dither (two uniform +-0.5 LSB summed, variance 1/6 LSB^2) before rounding (uniform
    error, variance 1/12, independent of the dithered value): the total error has mean 0 and
    variance 1/6 + 1/12 = 1/4 LSB^2. The same seed gives the same output; another seed another."""
    rng = np.random.default_rng(1819)
    n = 1 << 16
    x = np.clip(np.rint(0.3 * rng.standard_normal((n, 1)) * SCALE[fmt]), -SCALE[fmt],
                SCALE[fmt] - 1).astype(DTYPE[fmt])
    desc = "fxgain gain=-3.1 dither=tpdf dither-seed=%d"
    y1, _, _, _ = run(desc % 7, x, fmt)
    y2, _, _, _ = run(desc % 7, x, fmt)
    y3, _, _, _ = run(desc % 8, x, fmt)
    assert np.array_equal(y1, y2)
    assert not np.array_equal(y1, y3)
    yf, _, _, _ = run("fxgain gain=-3.1", (x / SCALE[fmt]).astype(DTYPE[WORK[fmt]]), WORK[fmt])
    err = y1.astype(np.float64) - yf.astype(np.float64) * SCALE[fmt]
    # n = 65536: the standard error of the mean is 0.002, of the variance about 0.0015
    assert abs(err.mean()) < 0.01, (err.mean(), FX_TEST_SEED)
    assert abs(err.var() - 0.25) < 0.01, (err.var(), FX_TEST_SEED)
    assert np.max(np.abs(err)) < 1.5
    # without dither: plain rounding, error within half an LSB, variance 1/12
    y0, _, _, _ = run("fxgain gain=-3.1", x, fmt)
    e0 = y0.astype(np.float64) - yf.astype(np.float64) * SCALE[fmt]
    assert np.max(np.abs(e0)) <= 0.5 and abs(e0.var() - 1 / 12) < 0.01


@pytest.mark.parametrize("fuse", ["true", "false"])
def test_fxchain_requantises_once(fx, fuse):
    """Two gain stages in fxchain on S16: the output is one rounding of the product (the F32
    chain's output rounded), not a rounding after each stage."""
    x = _int_input("S16LE")
    desc = "fxchain fuse=%s chain=\"fxgain gain=-7.3 ! fxgain gain=5.1\"" % fuse
    y, fmt, _, _ = run(desc, x, "S16LE")
    assert fmt == "S16LE"
    yf, _, _, _ = run(desc, (x / 32768.0).astype(np.float32), "F32LE")
    once, _ = reference(yf, "S16LE")
    assert np.array_equal(y, once)
    g1, g2 = 10 ** (-7.3 / 20), 10 ** (5.1 / 20)
    twice = np.clip(np.rint(np.rint(x * g1) * g2), -32768, 32767)
    assert np.count_nonzero(y != twice) > 100  # two roundings would differ from this output


def test_sixteen_bit_wav_stays_sixteen_bit(fx, tmp_path):
    src, out = str(tmp_path / "in.wav"), str(tmp_path / "out.wav")
    for desc in ("audiotestsrc num-buffers=10 ! audio/x-raw,format=S16LE,rate=44100 ! wavenc ! "
                 "filesink location=%s" % src,
                 "filesrc location=%s ! decodebin ! audioconvert ! fxgain gain=-3 ! "
                 "fxbutterworth cutoff=5000 ! audioconvert ! wavenc ! filesink location=%s"
                 % (src, out)):
        p = Gst.parse_launch(desc)
        p.set_state(Gst.State.PLAYING)
        m = p.get_bus().timed_pop_filtered(30 * Gst.SECOND,
                                           Gst.MessageType.EOS | Gst.MessageType.ERROR)
        p.set_state(Gst.State.NULL)
        assert m is not None and m.type == Gst.MessageType.EOS, desc
    with wave.open(out) as w:
        assert w.getsampwidth() == 2
    assert os.path.getsize(out) <= os.path.getsize(src) + 1024


@pytest.mark.parametrize("desc", ["fxgain", "fxbutterworth", "fxcompressor", "fxreverb",
                                  "fxchain chain=fxgain"])
def test_float_source_negotiates_f32(fx, desc):
    """audiotestsrc offers every format: the elements' F32 comes first."""
    p = Gst.parse_launch("audiotestsrc num-buffers=1 ! %s ! fakesink name=sink" % desc)
    p.set_state(Gst.State.PAUSED)
    p.get_state(10 * Gst.SECOND)
    caps = p.get_by_name("sink").get_static_pad("sink").get_current_caps()
    p.set_state(Gst.State.NULL)
    assert caps.get_structure(0).get_string("format") == "F32LE", caps.to_string()


def test_fxchain_follows_a_format_change(fx):
    """A stream that changes format mid-way (S16, then F32, then S16 again): fxchain links its
    converters in for the integer parts and takes them out for the float part; each part comes out
    in its own format, the integer parts as one rounding of the float chain's output."""
    desc = "fxchain name=fx chain=\"fxgain gain=-7.3 ! fxgain gain=5.1\""
    p = Gst.parse_launch("appsrc name=src format=time ! %s ! appsink name=sink sync=false" % desc)
    src, sink = p.get_by_name("src"), p.get_by_name("sink")
    x = _int_input("S16LE", frames=1024)
    xf = (x / 32768.0).astype(np.float32)
    parts = [("S16LE", x), ("F32LE", xf), ("S16LE", x)]
    p.set_state(Gst.State.PLAYING)
    for fmt, data in parts:
        src.set_property("caps", Gst.Caps.from_string(
            "audio/x-raw,format=%s,layout=interleaved,rate=%d,channels=2,"
            "channel-mask=(bitmask)0" % (fmt, RATE)))
        for i in range(0, len(data), SPLIT):
            assert src.emit("push-buffer", Gst.Buffer.new_wrapped(
                np.ascontiguousarray(data[i:i + SPLIT]).tobytes())) == Gst.FlowReturn.OK
    src.emit("end-of-stream")
    got = []
    while True:
        s = sink.emit("try-pull-sample", 10 * Gst.SECOND)
        if s is None:
            break
        fmt = s.get_caps().get_structure(0).get_string("format")
        b = s.get_buffer()
        got.append((fmt, np.frombuffer(b.extract_dup(0, b.get_size()), DTYPE[fmt])))
    m = p.get_bus().pop_filtered(Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    assert m is None, m.parse_error()[0].message
    fmts = [f for f, _ in got]
    n = FRAMES // 2 // SPLIT
    assert fmts == ["S16LE"] * n + ["F32LE"] * n + ["S16LE"] * n, fmts
    yf = np.concatenate([a for f, a in got[n:2 * n]]).reshape(-1, 2)
    g = np.float32(10 ** (-7.3 / 20)) * np.float32(10 ** (5.1 / 20))
    assert np.allclose(yf, xf * g, rtol=1e-6, atol=0)
    once, _ = reference(yf, "S16LE")
    for part in (got[:n], got[2 * n:]):
        assert np.array_equal(np.concatenate([a for f, a in part]).reshape(-1, 2), once)


def test_fxchain_rewires_after_an_integer_stream(fx):
    """One fxchain: an S16 run (converters linked in), back to NULL (unwired), then a float run
    (wired again, converters out): the float run's output is the F32 chain's, and the S16 run's
    its rounding."""
    desc = "fxchain name=fx fuse=false chain=\"fxgain gain=-6 ! fxbutterworth cutoff=5000\""
    p = Gst.parse_launch("appsrc name=src format=time ! %s ! appsink name=sink sync=false" % desc)
    src, sink = p.get_by_name("src"), p.get_by_name("sink")
    x = _int_input("S16LE", frames=1024)
    xf = (x / 32768.0).astype(np.float32)
    outs = []
    for fmt, data in (("S16LE", x), ("F32LE", xf)):
        src.set_property("caps", Gst.Caps.from_string(
            "audio/x-raw,format=%s,layout=interleaved,rate=%d,channels=2,"
            "channel-mask=(bitmask)0" % (fmt, RATE)))
        assert p.set_state(Gst.State.PLAYING) != Gst.StateChangeReturn.FAILURE
        assert src.emit("push-buffer", Gst.Buffer.new_wrapped(data.tobytes())) == \
            Gst.FlowReturn.OK
        src.emit("end-of-stream")
        s = sink.emit("try-pull-sample", 10 * Gst.SECOND)
        assert s is not None
        f = s.get_caps().get_structure(0).get_string("format")
        b = s.get_buffer()
        outs.append((f, np.frombuffer(b.extract_dup(0, b.get_size()), DTYPE[f]).reshape(-1, 2)))
        m = p.get_bus().pop_filtered(Gst.MessageType.ERROR)
        assert m is None, m.parse_error()[0].message
        p.set_state(Gst.State.NULL)
    assert [f for f, _ in outs] == ["S16LE", "F32LE"]
    assert np.array_equal(outs[0][1], reference(outs[1][1], "S16LE")[0])


@pytest.mark.parametrize("desc", ELEMENTS)
def test_empty_and_one_frame_integer_buffers(fx, desc):
    """Empty and 1-frame S16 buffers go through without an error (the scratch buffer handles any
    length)."""
    name_desc = desc.replace(" ", " name=fx ", 1) if " " in desc else desc + " name=fx"
    p = Gst.parse_launch(
        "appsrc name=src format=time caps=audio/x-raw,format=S16LE,layout=interleaved,rate=%d,"
        "channels=2,channel-mask=(bitmask)0 ! %s ! fakesink" % (RATE, name_desc))
    src = p.get_by_name("src")
    p.set_state(Gst.State.PLAYING)
    x = _int_input("S16LE", frames=8)
    for n in (0, 1, 0, 3, 1, 0):
        buf = Gst.Buffer.new_wrapped(x[:n].tobytes()) if n else Gst.Buffer.new()
        assert src.emit("push-buffer", buf) == Gst.FlowReturn.OK
    src.emit("end-of-stream")
    m = p.get_bus().timed_pop_filtered(10 * Gst.SECOND,
                                       Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    assert m is not None and m.type == Gst.MessageType.EOS, desc
