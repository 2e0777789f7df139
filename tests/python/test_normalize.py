"""fxnormalize against numpy (DESIGN section 2, issue 7 item 5): peak, RMS and percentile levels
over multi-buffer streams, one gain or one per channel, timestamps preserved, max-duration and
live-source errors, silence, the percentile selection vs numpy.percentile, bad input."""

import ctypes

import numpy as np
import pytest

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

import fxdsp  # noqa: E402
from conftest import (assert_clean, record, require_fx, run_pipeline,  # noqa: E402
                      split_sizes)


@pytest.fixture(autouse=True)
def _need_norm():
    require_fx("fxnormalize")


def np_level(x, mode, pct):
    a = np.abs(x)
    if mode == "peak":
        return a.max()
    if mode == "rms":
        return np.sqrt(np.mean(x ** 2))
    return np.percentile(a, pct)


def expected_gains(x, mode, target, pct, per_channel):
    c = x.shape[1]
    if per_channel:
        levels = np.array([np_level(x[:, k], mode, pct) for k in range(c)])
    else:
        levels = np.full(c, np_level(x, mode, pct))
    gains = np.where(levels > 0, 10 ** (target / 20) / np.where(levels > 0, levels, 1), 1.0)
    return levels, gains


def collect_message(res_holder):
    """A configure hook that records the fxnormalize element messages."""

    def configure(pipeline):
        bus = pipeline.get_bus()
        bus.enable_sync_message_emission()

        def on_sync(bus, msg):
            s = msg.get_structure()
            if msg.type == Gst.MessageType.ELEMENT and s is not None and \
                    s.get_name() == "fxnormalize":
                res_holder.append({
                    "mode": s.get_string("mode"),
                    "frames": s.get_value("frames"),
                    "gains": list(s.get_value("gains")),
                    "levels": list(s.get_value("levels")),
                })

        bus.connect("sync-message::element", on_sync)

    return configure


def signal(rate, seconds, channels, seed):
    rng = np.random.default_rng(seed)
    n = int(rate * seconds)
    scales = 0.05 * (1 + np.arange(channels))
    x = rng.standard_normal((n, channels)) * scales
    x[rng.integers(0, n, 5), 0] = 0.9  # a few peaks
    return x


CASES = [
    ("peak", -1.0, 99.9, False),
    ("peak", -6.0, 99.9, True),
    ("rms", -20.0, 99.9, False),
    ("rms", -18.0, 99.9, True),
    ("percentile", -3.0, 99.9, False),
    ("percentile", -10.0, 95.0, True),
    ("percentile", -2.0, 50.0, False),
    ("percentile", 0.0, 100.0, True),
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_gains_match_numpy(case, dtype):
    mode, target, pct, per_channel = CASES[case]
    rate = 48000
    x = signal(rate, 0.5, 3, seed=case).astype(dtype)
    msgs = []
    desc = ("fxnormalize name=fx mode=%s target=%r percentile=%r per-channel=%s"
            % (mode, target, pct, "true" if per_channel else "false"))
    res = run_pipeline(desc, x, rate, split="random", configure=collect_message(msgs),
                       read_props=[("fx", "gains")])
    assert_clean(res, frames=x.shape[0])
    levels, gains = expected_gains(x.astype(float), mode, target, pct, per_channel)
    assert len(msgs) == 1 and msgs[0]["mode"] == mode and msgs[0]["frames"] == x.shape[0]
    gerr = np.max(np.abs(np.array(msgs[0]["gains"]) - gains) / gains)
    lerr = np.max(np.abs(np.array(msgs[0]["levels"]) - levels) / levels)
    record("normalize", "rel_gain_" + np.dtype(dtype).name, gerr, "%s %s" % (mode, per_channel))
    tol = 1e-12 if dtype == np.float64 else 1e-6  # rms sums in double either way
    assert gerr < tol and lerr < tol, (msgs[0], gains, levels)
    assert np.allclose(list(res.props[("fx", "gains")]), msgs[0]["gains"], rtol=0, atol=0)
    expect = x.astype(float) * gains
    yerr = np.max(np.abs(res.y - expect)) / np.max(np.abs(expect))
    assert yerr < (1e-12 if dtype == np.float64 else 2e-7), yerr
    # the measured level of the output is the target
    if mode == "peak":
        out = np.abs(res.y).max(axis=0) if per_channel else np.abs(res.y).max()
        assert np.allclose(20 * np.log10(out), target, atol=1e-5)


def test_timestamps_durations_offsets_preserved():
    rate = 44100
    x = signal(rate, 0.3, 2, seed=1)
    rng = np.random.default_rng(4)
    res = run_pipeline("fxnormalize", x, rate, split=("random", 1, 3000), rng=rng)
    assert_clean(res, frames=x.shape[0])
    sizes = split_sizes(x.shape[0], ("random", 1, 3000), np.random.default_rng(4))
    pos = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    expect = [(Gst.util_uint64_scale_int(int(p), Gst.SECOND, rate), n) for p, n in zip(pos, sizes)]
    assert res.out_pts == expect


def test_silence_keeps_unity_gain():
    msgs = []
    x = np.zeros((4800, 2))
    for mode in ("peak", "rms", "percentile"):
        msgs.clear()
        res = run_pipeline("fxnormalize mode=%s" % mode, x, 48000, split=1000,
                           configure=collect_message(msgs))
        assert_clean(res, frames=4800)
        assert np.all(res.y == 0)
        assert msgs[0]["gains"] == [1.0, 1.0]


def test_max_duration_error():
    rate = 48000
    x = signal(rate, 0.5, 1, seed=2)
    res = run_pipeline("fxnormalize max-duration=%d" % (200 * Gst.MSECOND), x, rate, split=4800,
                       expect_error=True)
    assert res.errors, "no error past max-duration"
    assert "max-duration" in res.errors[0][1] + res.errors[0][2]
    assert res.y.shape[0] == 0, "held audio leaked out after the error"
    # within the bound: fine
    res = run_pipeline("fxnormalize max-duration=%d" % (600 * Gst.MSECOND), x, rate, split=4800)
    assert_clean(res, frames=x.shape[0])


def test_live_source_refused():
    pipeline = Gst.parse_launch(
        "audiotestsrc is-live=true num-buffers=50 ! audio/x-raw,format=F32LE ! "
        "fxnormalize ! fakesink")
    pipeline.set_state(Gst.State.PLAYING)
    msg = pipeline.get_bus().timed_pop_filtered(10 * Gst.SECOND,
                                                Gst.MessageType.ERROR | Gst.MessageType.EOS)
    pipeline.set_state(Gst.State.NULL)
    assert msg is not None and msg.type == Gst.MessageType.ERROR
    err, dbg = msg.parse_error()
    assert msg.src.get_name().startswith("fxnormalize")
    assert "live" in err.message


def test_nonfinite_samples_warned_and_left_out():
    x = signal(48000, 0.1, 2, seed=8)
    x[10, 1] = np.nan
    msgs = []
    res = run_pipeline("fxnormalize mode=peak target=-1", x, 48000, split=500,
                       configure=collect_message(msgs))
    assert not res.errors and res.warnings and "NaN" in res.warnings[0][2]
    finite = np.where(np.isfinite(x), x, 0.0)
    assert np.isclose(msgs[0]["levels"][0], np.abs(finite).max(), rtol=1e-15)
    assert np.all(np.isfinite(res.y))


@pytest.mark.parametrize("rate,channels,frames,split", [
    (1, 1, 10, 1),
    (384000, 2, 40000, ("random", 1, 5000)),
    (48000, 1024, 200, ("random", 1, 50)),
])
def test_extreme_shapes(rate, channels, frames, split):
    x = np.random.default_rng(channels).standard_normal((frames, channels)) * 0.1
    res = run_pipeline("fxnormalize per-channel=true target=-3", x, rate, split=split,
                       timeout=120)
    assert_clean(res, frames=frames)
    assert np.allclose(np.abs(res.y).max(axis=0), 10 ** (-3 / 20), rtol=1e-12)


def test_unknown_mode_refused():
    from gi.repository import GLib
    with pytest.raises(GLib.Error) as e:
        Gst.parse_launch("fakesrc ! fxnormalize mode=loudness ! fakesink")
    assert "mode" in str(e.value)


@pytest.mark.parametrize("prop,value", [("target", "40"), ("percentile", "101"),
                                        ("target", "-200")])
def test_out_of_range_refused(prop, value):
    import subprocess
    import sys
    code = ("import gi\ngi.require_version('Gst', '1.0')\nfrom gi.repository import Gst\n"
            "Gst.init(None)\ne = Gst.ElementFactory.make('fxnormalize')\n"
            "d = e.get_property(%r)\nGst.util_set_object_arg(e, %r, %r)\n"
            "print('UNCHANGED' if e.get_property(%r) == d else 'CHANGED')\n"
            % (prop, prop, value, prop))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "UNCHANGED" in r.stdout, r.stdout + r.stderr
    assert prop in r.stderr, r.stderr


# ------------------------------------------------------------------------------------------------
# the percentile selection in libfxdsp vs numpy.percentile


def c_percentile(v, q):
    lib = fxdsp.lib()
    f = lib.fx_norm_percentile
    f.restype = ctypes.c_double
    f.argtypes = [ctypes.POINTER(ctypes.c_double), ctypes.c_size_t, ctypes.c_double]
    a = np.ascontiguousarray(v, dtype=np.float64).copy()
    return f(a.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), a.size, q)


def test_percentile_selection_vs_numpy():
    rng = np.random.default_rng(0)
    worst = 0.0
    for trial in range(300):
        n = int(rng.integers(1, 2000))
        kind = trial % 3
        if kind == 0:
            v = rng.random(n)
        elif kind == 1:
            v = rng.integers(0, 5, n).astype(float)  # many ties
        else:
            v = np.sort(rng.random(n))[::-1].copy()  # sorted (worst case for naive pivots)
        for q in (0.0, 1.0, 25.0, 50.0, 99.9, 100.0, float(rng.uniform(0, 100))):
            got, want = c_percentile(v, q), np.percentile(v, q)
            worst = max(worst, abs(got - want) / max(abs(want), 1e-300))
    record("normalize", "rel_percentile", worst, "300 arrays")
    assert worst <= 1e-15, worst


def test_caps_change_normalises_each_part():
    """A format change mid-stream: what was held under the old caps is normalised on its own."""
    a = signal(48000, 0.2, 2, seed=11)
    b = signal(44100, 0.2, 2, seed=12) * 0.3
    res = run_pipeline("fxnormalize mode=peak target=-2", [(a, 48000), (b, 44100)], split=1000)
    assert not res.errors
    assert len(res.pieces) == 2
    for piece, x in zip(res.pieces, (a, b)):
        assert np.allclose(piece, x * 10 ** (-2 / 20) / np.abs(x).max(), rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", ["fxnormalize", "fxcompressor", "fxgate", "fxlimiter"])
def test_element_contract(name):
    """Classification, rank, kebab-case names; DSP parameters controllable; the structural ones
    (look-ahead, link, max-duration) are documented as such."""
    import re
    f = Gst.ElementFactory.find(name)
    assert f.get_metadata("klass") == "Filter/Effect/Audio"
    assert f.get_rank() == Gst.Rank.NONE
    el = f.create(None)
    structural = {"look-ahead", "link", "max-duration"}
    n_dsp = 0
    for p in el.list_properties():
        if not p.owner_type.name.startswith("GstFx"):
            continue
        assert re.match(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$", p.name), p.name
        if not p.flags & gi.repository.GObject.ParamFlags.WRITABLE or p.name in structural:
            continue
        n_dsp += 1
        assert p.flags & Gst.PARAM_CONTROLLABLE, "%s:%s not controllable" % (name, p.name)
        assert p.flags & Gst.PARAM_MUTABLE_PLAYING, p.name
    assert n_dsp >= 2


def test_inside_fxchain_as_opaque_stage():
    """Inside fxchain, fxnormalize is an opaque stage between fused IIR runs: the output equals
    the same elements linked in a pipeline, and its peak is the target (numpy)."""
    rate = 48000
    x = signal(rate, 0.4, 2, seed=21)
    stages = ("fxbutterworth mode=high-pass cutoff=40 ! fxnormalize mode=peak target=-3 ! "
              "fxbiquad type=peaking frequency=1000 gain=0")
    a = run_pipeline("fxchain chain=\"%s\"" % stages, x, rate, split=("random", 1, 3000))
    b = run_pipeline(stages, x, rate, split=("random", 1, 3000))
    assert_clean(a, frames=x.shape[0])
    assert_clean(b, frames=x.shape[0])
    assert np.array_equal(a.y, b.y)
    assert np.allclose(20 * np.log10(np.abs(a.y).max()), -3.0, atol=1e-9)


# ------------------------------------------------------------------------------------------------
# issue 14 item 8c: the percentile from the held audio itself (no copy), a byte limit, and
# NaN/Inf processed as zeros


def _select_lib():
    lib = fxdsp.lib()
    vp = ctypes.c_void_p
    lib.fx_norm_select_new.restype = vp
    lib.fx_norm_select_new.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_uint64,
                                       ctypes.c_double]
    lib.fx_norm_select_free.argtypes = [vp]
    lib.fx_norm_select_pass.restype = ctypes.c_int
    lib.fx_norm_select_pass.argtypes = [vp]
    lib.fx_norm_select_feed.argtypes = [vp, vp, ctypes.c_size_t]
    lib.fx_norm_select_result.restype = ctypes.c_double
    lib.fx_norm_select_result.argtypes = [vp]
    return lib


def select_percentile(x, channel, q, pieces):
    """The radix selection over x (frames x channels, float32 or float64) fed in `pieces`."""
    lib = _select_lib()
    x = np.ascontiguousarray(x)
    frames, ch = x.shape
    n = frames * ch if channel < 0 else frames
    s = lib.fx_norm_select_new(int(x.dtype == np.float64), ch, channel, n, q)
    assert s
    try:
        passes = 0
        while lib.fx_norm_select_pass(s):
            passes += 1
            for a, b in pieces:
                lib.fx_norm_select_feed(s, x[a:b].ctypes.data, b - a)
        return lib.fx_norm_select_result(s), passes
    finally:
        lib.fx_norm_select_free(s)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_select_percentile_vs_numpy(dtype):
    """The multi-pass selection equals numpy.percentile of |x| exactly (same ranks, numpy's
    interpolation), over random data, many ties, zeros and subnormals, one channel or all,
    whatever the pieces it is fed in; 2 passes for F32, 4 for F64."""
    seed = int(__import__("os").environ.get("FX_TEST_SEED", "14"))
    rng = np.random.default_rng(seed)
    worst = 0.0
    for trial in range(60):
        frames, ch = int(rng.integers(1, 3000)), int(rng.integers(1, 4))
        kind = trial % 4
        if kind == 0:
            x = rng.standard_normal((frames, ch))
        elif kind == 1:
            x = rng.integers(-4, 5, (frames, ch)).astype(float) * 0.25  # ties, zeros, signs
        elif kind == 2:
            x = rng.standard_normal((frames, ch)) * 1e-310 if dtype == np.float64 else \
                rng.standard_normal((frames, ch)) * 1e-40  # subnormals
        else:
            x = np.sort(rng.random((frames, ch)), axis=0)
        x = x.astype(dtype)
        cuts = np.sort(rng.integers(0, frames + 1, 3))
        edges = [0] + [int(c) for c in cuts] + [frames]
        pieces = [(edges[i], edges[i + 1]) for i in range(len(edges) - 1)]
        for channel in [-1] + list(range(ch)):
            v = np.abs(x.astype(np.float64)) if channel < 0 else \
                np.abs(x[:, channel].astype(np.float64))
            for q in (0.0, 50.0, 99.9, 100.0, float(rng.uniform(0, 100))):
                got, passes = select_percentile(x, channel, q, pieces)
                want = np.percentile(v, q)
                assert passes == (4 if dtype == np.float64 else 2)
                err = abs(got - want) / max(abs(want), 1e-320)
                worst = max(worst, err)
                assert err <= 1e-15, "seed %d trial %d channel %d q %r: %r vs %r" % (
                    seed, trial, channel, q, got, want)
    record("normalize", "rel_select_" + np.dtype(dtype).name, worst, "60 arrays")


@pytest.mark.parametrize("per_channel", [False, True])
def test_percentile_nonfinite_as_zero(per_channel):
    """NaN/Inf become 0 before the statistics: the percentile level is numpy's over |x| with
    zeros there, one warning, and those samples come out as 0."""
    x = signal(48000, 0.2, 2, seed=21).astype(np.float32)
    x[:500, 0] = np.nan  # enough zeros to move the 5th percentile
    x[700, 1] = np.inf
    msgs = []
    desc = "fxnormalize mode=percentile percentile=5 target=-20 per-channel=%s" % (
        "true" if per_channel else "false")
    res = run_pipeline(desc, x, 48000, split=1000, configure=collect_message(msgs))
    assert not res.errors and len(res.warnings) == 1 and "NaN" in res.warnings[0][2]
    x0 = np.where(np.isfinite(x), x, 0.0).astype(np.float64)
    levels, gains = expected_gains(x0, "percentile", -20.0, 5.0, per_channel)
    assert np.allclose(msgs[0]["levels"], levels, rtol=1e-12, atol=0), (msgs[0], levels)
    assert np.all(res.y[~np.isfinite(x)] == 0.0) and np.all(np.isfinite(res.y))


def test_held_bytes_limit():
    """More than 2048 MiB held: an error from fxnormalize naming the limit (as fxdelay and
    fxreverb refuse larger lines). The same 1 MiB buffer is pushed 2049 times (the element holds
    references, so the test itself needs only 1 MiB)."""
    pipeline = Gst.parse_launch(
        "appsrc name=src format=time block=false "
        "caps=audio/x-raw,format=F32LE,rate=48000,channels=2,layout=interleaved ! "
        "fxnormalize name=fx mode=peak max-duration=0 ! fakesink sync=false")
    src = pipeline.get_by_name("src")
    frames = 1 << 17  # 1 MiB of F32 stereo
    buf = Gst.Buffer.new_wrapped(np.zeros(frames * 2, dtype=np.float32).tobytes())
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    msg = None
    try:
        for k in range(2049):
            src.emit("push-buffer", buf)
            msg = bus.pop_filtered(Gst.MessageType.ERROR)
            if msg is not None:
                break
        src.emit("end-of-stream")
        if msg is None:
            msg = bus.timed_pop_filtered(60 * Gst.SECOND,
                                         Gst.MessageType.ERROR | Gst.MessageType.EOS)
    finally:
        pipeline.set_state(Gst.State.NULL)
    assert msg is not None and msg.type == Gst.MessageType.ERROR, "no error past 2048 MiB"
    err, dbg = msg.parse_error()
    assert msg.src.get_name() == "fx"
    assert "2048 MiB" in err.message, (err.message, dbg)
