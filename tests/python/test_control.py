"""DESIGN section 3: parameter changes while PLAYING (history kept, no clicks), controllers
(synced per buffer, also in passthrough), renegotiation, properties set from another thread."""

import threading

import numpy as np
import pytest
import scipy.signal as ss

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstController", "1.0")
from gi.repository import Gst, GstController  # noqa: E402

from conftest import (assert_clean, noise, record, rel_err, run_pipeline,  # noqa: E402
                      set_on_buffer)

pytestmark = pytest.mark.usefixtures("fx")

RATE = 48000


def attach_ramp(pipeline, name, prop, points):
    """Linear InterpolationControlSource on name:prop through (seconds, value) points."""
    el = pipeline.get_by_name(name)
    cs = GstController.InterpolationControlSource()
    cs.set_property("mode", GstController.InterpolationMode.LINEAR)
    for t, v in points:
        assert cs.set(int(t * Gst.SECOND), float(v))
    binding = GstController.DirectControlBinding.new_absolute(el, prop, cs)
    assert el.add_control_binding(binding)
    # keep the control source alive as long as the pipeline
    pipeline._fx_keep = getattr(pipeline, "_fx_keep", []) + [cs, binding]


def sine(frames, freq=440.0, amplitude=0.5, channels=2):
    t = np.arange(frames) / RATE
    return np.repeat((amplitude * np.sin(2 * np.pi * freq * t))[:, None], channels, axis=1)


def max_step(y):
    return float(np.max(np.abs(np.diff(y, axis=0))))


def test_controller_ramp_applies_and_settles():
    """cutoff automated 500 -> 4000 Hz between 0.2 s and 0.4 s: before the ramp the output is the
    500 Hz design, long after it the 4000 Hz design (history carried, transients decayed)."""
    x = noise(RATE, 2, seed=51)
    res = run_pipeline("fxbutterworth name=fx order=4 cutoff=500", x, RATE, split=480,
                       configure=lambda p: attach_ramp(p, "fx", "cutoff",
                                                       [(0, 500), (0.2, 500), (0.4, 4000),
                                                        (1.0, 4000)]))
    assert_clean(res, frames=RATE)
    y = res.y
    before = ss.sosfilt(ss.butter(4, 500, fs=RATE, output="sos"), x, axis=0)
    after = ss.sosfilt(ss.butter(4, 4000, fs=RATE, output="sos"), x, axis=0)
    n1 = int(0.19 * RATE)
    e1 = rel_err(y[:n1], before[:n1])
    assert e1 <= 1e-9, "before the ramp: %.3g" % e1
    n2 = int(0.6 * RATE)
    e2 = rel_err(y[n2:], after[n2:])
    record("controller ramp tail", "rel_err", e2, "butter4 500->4000")
    assert e2 <= 1e-6, "after the ramp: %.3g (the controller did not reach the element?)" % e2
    # and the ramp was really applied in between (not a jump at the end)
    mid = slice(int(0.29 * RATE), int(0.31 * RATE))
    assert rel_err(y[mid], before[mid]) > 1e-3 and rel_err(y[mid], after[mid]) > 1e-3


CLICK_CASES = [
    ("fxbutterworth name=fx order=8 cutoff=2000", "cutoff", 2000, 12000),
    ("fxbutterworth name=fx order=4 mode=high-pass cutoff=20", "cutoff", 20, 150),
    ("fxchebyshev1 name=fx order=6 cutoff=3000 ripple=0.1", "cutoff", 3000, 9000),
    ("fxlinkwitzriley name=fx order=8 cutoff=4000", "cutoff", 4000, 1500),
    ("fxbiquad name=fx type=low-pass frequency=3000", "frequency", 3000, 15000),
    ("fxbutterworth name=fx order=8 cutoff=15000", "cutoff", 15000, 1000),
    ("fxbutterworth name=fx order=16 cutoff=15000", "cutoff", 15000, 600),
    ("fxelliptic name=fx order=8 cutoff=15000", "cutoff", 15000, 1000),
]


@pytest.mark.parametrize("desc,prop,v0,v1", CLICK_CASES,
                         ids=["%s-%s-%g-%g" % (c[0].split()[0], c[1], c[2], c[3])
                              for c in CLICK_CASES])
def test_controller_ramp_no_clicks(desc, prop, v0, v1):
    """A 440 Hz sine in the passband, the cutoff ramped: the largest sample-to-sample step of the
    output stays within 2x that of the unfiltered signal (stock elements click: they zero their
    history on every coefficient change)."""
    x = sine(RATE)
    res = run_pipeline(desc, x, RATE, split=256,
                       configure=lambda p: attach_ramp(p, "fx", prop,
                                                       [(0, v0), (0.2, v0), (0.8, v1),
                                                        (1.0, v1)]))
    assert_clean(res, frames=RATE)
    start = int(0.1 * RATE)  # past the onset transient of the filter
    ratio = max_step(res.y[start:]) / max_step(x)
    record("controller ramp click", "ratio", ratio, desc)
    assert ratio <= 2.0, "largest step %.2fx that of the input" % ratio


SET_CASES = [
    # (order, cutoff, property, new value)
    (4, 2000.0, "cutoff", 9000.0),
    (8, 1000.0, "cutoff", 15000.0),
    (8, 15000.0, "cutoff", 1000.0),
    (2, 2000.0, "order", 8),
    (8, 2000.0, "order", 16),
    (8, 2000.0, "order", 2),
]


@pytest.mark.parametrize("order,cutoff,prop,v1", SET_CASES,
                         ids=["N%d-fc%g-%s-%g" % c for c in SET_CASES])
def test_set_property_while_playing_keeps_history(order, cutoff, prop, v1):
    """A property set between buffers while PLAYING (fxbutterworth low-pass, a 440 Hz sine in
    the passband of both designs): no click (largest step within 2x the input's), and the new
    design once the change has settled."""
    x = sine(RATE // 2)
    n_switch = 40  # buffer index

    desc = "fxbutterworth name=fx order=%d cutoff=%r" % (order, cutoff)
    res = run_pipeline(desc, x, RATE, split=256, configure=set_on_buffer(n_switch, prop, v1))
    assert_clean(res, frames=x.shape[0])
    ratio = max_step(res.y[int(0.1 * RATE):]) / max_step(x)
    record("set_property click", "ratio", ratio, "%s %s->%g" % (desc, prop, v1))
    assert ratio <= 2.0, "step after set_property(%s=%g) %.4gx the input's (max |y| %.4g)" % (
        prop, v1, ratio, np.max(np.abs(res.y)))
    final = (ss.butter(v1, cutoff, fs=RATE, output="sos") if prop == "order"
             else ss.butter(order, v1, fs=RATE, output="sos"))
    tail = slice(int(0.4 * RATE), None)
    err = rel_err(res.y[tail], ss.sosfilt(final, x, axis=0)[tail])
    assert err <= 1e-6, "after set_property(%s=%r): %.3g off the new design" % (prop, v1, err)


@pytest.mark.parametrize("desc,prop,points,final", [
    ("fxgain name=fx gain=0", "gain", [(0, 0), (0.3, 0), (0.5, -20), (1, -20)], "gain"),
    ("fxbiquad name=fx type=peaking frequency=1000 q=1 gain=0", "gain",
     [(0, 0), (0.3, 0), (0.5, 9), (1, 9)], "peaking"),
])
def test_controller_works_from_identity(desc, prop, points, final):
    """Elements that start as an identity (gain 0 dB, peaking 0 dB; possibly passthrough) still
    read their controller every buffer (DESIGN: synced in before_transform, as volume does)."""
    x = noise(RATE, 2, seed=52)
    res = run_pipeline(desc, x, RATE, split=480,
                       configure=lambda p: attach_ramp(p, "fx", prop, points))
    assert_clean(res, frames=RATE)
    y = res.y
    head = slice(0, int(0.29 * RATE))
    assert rel_err(y[head], x[head]) <= 1e-12
    tail = slice(int(0.7 * RATE), None)
    if final == "gain":
        ref = x * 10 ** (-20 / 20)
    else:
        w0 = 2 * np.pi * 1000 / RATE
        A = 10 ** (9 / 40)
        alpha = np.sin(w0) / 2
        b = np.array([1 + alpha * A, -2 * np.cos(w0), 1 - alpha * A])
        a = np.array([1 + alpha / A, -2 * np.cos(w0), 1 - alpha / A])
        ref = ss.lfilter(b / a[0], a / a[0], x, axis=0)
    err = rel_err(y[tail], ref[tail])
    assert err <= 1e-6, "controller not applied from identity: %.3g" % err


@pytest.mark.parametrize("second", [(96000, 2), (44100, 3), (48000, 1)],
                         ids=["rate96k", "rate44k-3ch", "mono"])
def test_renegotiation_redesigns(second):
    """New caps mid-stream (rate and/or channels): the filter is redesigned for the new rate."""
    rate2, ch2 = second
    x1 = noise(RATE // 4, 2, seed=53)
    x2 = noise(rate2 // 2, ch2, seed=54)
    res = run_pipeline("fxbutterworth order=4 cutoff=1000", [(x1, RATE), (x2, rate2)],
                       split=1024)
    assert not res.errors, res.error_text()
    assert len(res.pieces) == 2, "expected two caps at the sink"
    y1, y2 = res.pieces
    assert y1.shape == x1.shape and y2.shape == x2.shape
    assert rel_err(y1, ss.sosfilt(ss.butter(4, 1000, fs=RATE, output="sos"), x1, axis=0)) <= 1e-9
    ref2 = ss.sosfilt(ss.butter(4, 1000, fs=rate2, output="sos"), x2, axis=0)
    tail = slice(rate2 // 8, None)  # history across the change may differ; transients decay
    err = rel_err(y2[tail], ref2[tail])
    assert err <= 1e-6, "after renegotiation to %d Hz / %d ch: %.3g" % (rate2, ch2, err)


def test_properties_from_another_thread():
    """Properties set from another thread while streaming: no crash, no error, finite output."""
    x = noise(RATE * 2, 2, seed=55)
    stop = threading.Event()

    def configure(pipeline):
        fx = pipeline.get_by_name("fx")

        def hammer():
            i = 0
            while not stop.is_set():
                fx.set_property("cutoff", 500.0 + (i % 50) * 100.0)
                fx.set_property("order", 2 + (i % 7))
                fx.get_property("dispatches")
                fx.get_property("backend")
                i += 1

        threading.Thread(target=hammer, daemon=True).start()

    try:
        res = run_pipeline("fxbutterworth name=fx", x, RATE, split=("random", 1, 2048),
                           rng=np.random.default_rng(5), configure=configure)
    finally:
        stop.set()
    assert_clean(res, frames=x.shape[0])
    assert np.all(np.isfinite(res.y))


def test_flush_resets_history():
    """FLUSH_START/FLUSH_STOP in the middle of a stream: the history is reset, so the output after
    the flush is the filter applied from zero state to the input after it."""
    x = noise(RATE // 2, 2, seed=56)
    bufsize = 480
    k_flush = 20  # the flush comes before buffer k_flush (0-based)

    def configure(pipeline):
        src = pipeline.get_by_name("fx_test_src")
        fx = pipeline.get_by_name("fx")
        sinkpad = fx.get_static_pad("sink")
        count = [0]

        def on_buffer(pad, info):
            if count[0] == k_flush:
                assert sinkpad.send_event(Gst.Event.new_flush_start())
                assert sinkpad.send_event(Gst.Event.new_flush_stop(True))
                seg = Gst.Segment()
                seg.init(Gst.Format.TIME)
                assert sinkpad.send_event(Gst.Event.new_segment(seg))
            count[0] += 1
            return Gst.PadProbeReturn.OK

        src.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, on_buffer)

    res = run_pipeline("fxbutterworth name=fx order=6 cutoff=300", x, RATE, split=bufsize,
                       configure=configure)
    assert not res.errors, res.error_text()
    t_flush = Gst.util_uint64_scale_int(k_flush * bufsize, Gst.SECOND, RATE)
    # the appsink drops what it held at the flush; keep the buffers from the flush on
    frames_before = sum(n for pts, n in res.out_pts if pts < t_flush)
    y_after = res.y[frames_before:]
    assert y_after.shape[0] == x.shape[0] - k_flush * bufsize
    sos = ss.butter(6, 300, fs=RATE, output="sos")
    ref = ss.sosfilt(sos, x[k_flush * bufsize:], axis=0)
    err = rel_err(y_after, ref)
    assert err <= 1e-9, "output after a flush is not from zero state: %.3g" % err
