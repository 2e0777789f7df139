"""Shared fixtures and helpers for the Python element tests (PyGObject + numpy/scipy).

The central helper is :func:`run_pipeline`: it pushes a numpy array (frames x channels, float32 or
float64) through ``appsrc ! <element description> ! appsink`` in buffers of chosen sizes (one
buffer, fixed sizes, random splits or an explicit list), with timestamps and EOS, and returns the
output array together with every error and warning posted on the bus. A deadline makes a hanging
pipeline fail the test instead of blocking the run.

The GStreamer plugin is found through GST_PLUGIN_PATH_1_0 (the meson suite ``python``,
tests/python/meson.build, sets it to ``<build>/gst``). When the fx elements are missing the element tests FAIL (see
:func:`require_fx`); they never skip.
"""

import os
import sys
import threading
import time

import numpy as np
import pytest

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")  # appsrc/appsink signals need the GstApp typelib
from gi.repository import Gst  # noqa: E402

from fxcascade import noise, rel_err, ser_db  # noqa: E402,F401 (re-exported for the tests)

Gst.init(None)

# ------------------------------------------------------------------------------------------------
# Random test data. Every test builds its generators with np.random.default_rng(<fixed seed>)
# (directly or through fxcascade.noise/random_split), so the data are the same on every run.
# FX_TEST_SEED=<n> draws other data: every seeded generator then starts from (seed, n) instead of
# seed. A failing test's report names the value in use, so that the failure can be repeated.
# A generator without a seed would draw fresh entropy on every run: that is refused.

def _fx_test_seed():
    v = os.environ.get("FX_TEST_SEED", "").strip()
    return int(v, 0) if v else None


FX_TEST_SEED = _fx_test_seed()
_numpy_default_rng = np.random.default_rng


_TESTS_DIR = os.path.dirname(os.path.abspath(__file__))


def _seeded_default_rng(seed=None):
    if seed is None:
        # refused in the tests' own code; libraries (numpy, scipy) may draw fresh entropy
        caller = os.path.abspath(sys._getframe(1).f_code.co_filename)
        if caller.startswith(_TESTS_DIR + os.sep):
            raise AssertionError("np.random.default_rng() without a seed in %s: tests must be "
                                 "reproducible (give a fixed seed; FX_TEST_SEED varies it)"
                                 % caller)
        return _numpy_default_rng()
    if FX_TEST_SEED is not None and isinstance(seed, (int, np.integer)):
        return _numpy_default_rng([int(seed) & (2 ** 64 - 1), FX_TEST_SEED & (2 ** 64 - 1)])
    return _numpy_default_rng(seed)


np.random.default_rng = _seeded_default_rng


def pytest_report_header(config):
    return ("random test data: FX_TEST_SEED=%d" % FX_TEST_SEED if FX_TEST_SEED is not None
            else "random test data: the tests' fixed seeds (FX_TEST_SEED unset)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.failed:
        rep.sections.append(
            ("random test data",
             "FX_TEST_SEED=%d (run again with it to repeat the data)" % FX_TEST_SEED
             if FX_TEST_SEED is not None
             else "the tests' fixed seeds (FX_TEST_SEED unset); FX_TEST_SEED=<n> draws others"))

DEFAULT_TIMEOUT = 30.0  # seconds for one pipeline run

FX_ELEMENTS = (
    "fxbutterworth",
    "fxchebyshev1",
    "fxchebyshev2",
    "fxelliptic",
    "fxlinkwitzriley",
    "fxbiquad",
    "fxsos",
    "fxgain",
    "fxeq",
    "fxcompressor",
    "fxgate",
    "fxlimiter",
    "fxnormalize",
    "fxdelay",
    "fxreverb",
    "fxfir",
)


def require_fx(*names):
    """Fails (never skips) when one of the named fx elements is not registered."""
    names = names or FX_ELEMENTS
    missing = [n for n in names if Gst.ElementFactory.find(n) is None]
    if missing:
        pytest.fail(
            "gst-fx elements not found: %s (GST_PLUGIN_PATH_1_0=%r, GST_REGISTRY_1_0=%r); "
            "build the plugin and point GST_PLUGIN_PATH_1_0 at <build>/gst"
            % (", ".join(missing), os.environ.get("GST_PLUGIN_PATH_1_0"),
               os.environ.get("GST_REGISTRY_1_0")),
            pytrace=False,
        )


@pytest.fixture
def fx():
    """Use in every test that needs the gst-fx plugin (the check runs in the call phase, see
    pytest_runtest_call below, so that a missing plugin is reported as a FAILED test)."""
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    if "fx" in getattr(item, "fixturenames", ()):
        require_fx()


# ------------------------------------------------------------------------------------------------
# buffer splits


def split_sizes(frames, split, rng=None):
    """Buffer sizes (in frames) summing to `frames`.

    split: None -> one buffer; int n -> buffers of n frames (last one shorter);
    'random' -> random sizes in [1, 4096]; ('random', lo, hi) -> random sizes in [lo, hi];
    a list/tuple of ints -> used as given (must sum to frames).
    """
    if split is None:
        return [frames]
    if isinstance(split, int):
        sizes = [split] * (frames // split)
        if frames % split:
            sizes.append(frames % split)
        return sizes
    if split == "random" or (isinstance(split, tuple) and split and split[0] == "random"):
        lo, hi = (1, 4096) if split == "random" else (split[1], split[2])
        rng = rng if rng is not None else np.random.default_rng(12345)
        sizes = []
        left = frames
        while left > 0:
            n = int(min(left, rng.integers(lo, hi + 1)))
            sizes.append(n)
            left -= n
        return sizes
    sizes = [int(s) for s in split]
    assert sum(sizes) == frames, "explicit split does not cover the input"
    return sizes


# ------------------------------------------------------------------------------------------------
# running a pipeline


class RunResult:
    def __init__(self):
        self.y = None  # output array, frames x channels
        self.errors = []  # (element name, message, debug)
        self.warnings = []
        self.props = {}  # (element name, property) -> value read after EOS
        self.buffers_in = 0
        self.buffers_out = 0
        self.eos = False
        self.probe_values = []  # values recorded by a src-pad probe (see run_pipeline)
        self.pieces = []  # output arrays, one per caps
        self.out_pts = []  # (pts, frames) of every output buffer, in order

    def error_text(self):
        return "; ".join("%s: %s (%s)" % e for e in self.errors)

    def warning_text(self):
        return "; ".join("%s: %s (%s)" % w for w in self.warnings)


def _caps_for(dtype, rate, channels):
    fmt = "F32LE" if np.dtype(dtype) == np.float32 else "F64LE"
    return Gst.Caps.from_string(
        "audio/x-raw,format=%s,layout=interleaved,rate=%d,channels=%d,channel-mask=(bitmask)0"
        % (fmt, rate, channels)
    )


def _drain_bus(bus, res):
    while True:
        msg = bus.pop_filtered(Gst.MessageType.ERROR | Gst.MessageType.WARNING)
        if msg is None:
            return
        name = msg.src.get_name() if msg.src is not None else "?"
        if msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            res.errors.append((name, err.message, dbg))
        else:
            err, dbg = msg.parse_warning()
            res.warnings.append((name, err.message, dbg))


def _set_state_with_timeout(pipeline, state, timeout):
    """set_state() in a helper thread so that a deadlocked element cannot block the test run."""
    done = threading.Event()

    def work():
        pipeline.set_state(state)
        done.set()

    t = threading.Thread(target=work, daemon=True)
    t.start()
    return done.wait(timeout)


def _as_frames(x):
    x = np.asarray(x)
    if x.ndim == 1:
        x = x[:, None]
    assert x.dtype in (np.float32, np.float64), x.dtype
    return np.ascontiguousarray(x)


def _caps_info(caps):
    st = caps.get_structure(0)
    fmt = st.get_string("format")
    ok, channels = st.get_int("channels")
    return (np.float32 if fmt == "F32LE" else np.float64), channels


def read_prs_file(path):
    """A .prs (GstPreset keyfile) parsed without GLib: a ConfigParser, keys case-sensitive."""
    import configparser
    cp = configparser.ConfigParser(delimiters=("=",), interpolation=None,
                                   comment_prefixes=("#",), strict=True)
    cp.optionxform = str  # keys are case-sensitive property names
    with open(path, encoding="utf-8") as f:
        cp.read_file(f)
    return cp


def run_pipeline(desc, x, rate=None, split=None, rng=None, timeout=DEFAULT_TIMEOUT,
                 read_props=(), probe=None, expect_error=False, configure=None):
    """Pushes x (frames x channels, float32 or float64) through
    ``appsrc ! <desc> ! appsink`` and returns a :class:`RunResult`.

    desc: gst-launch description of the element(s) under test, e.g.
        ``"fxbutterworth name=fx order=8 cutoff=50"``.
    x: an array at `rate`, or a list of (array, rate) pieces pushed one after the other in one
        stream; every piece sets new caps (renegotiation). The output of each caps lands in
        RunResult.pieces; RunResult.y is the output of the first caps (all of it for one piece).
    split: see :func:`split_sizes` (applied to each piece).
    read_props: (element name, property name) pairs read after EOS, before teardown.
    probe: (element name, property name): read that property in a buffer probe on the element's
        src pad for every output buffer; the values land in RunResult.probe_values.
    expect_error: when True an error on the bus ends the run early without failing.
    configure: callable(pipeline) called before the pipeline starts (e.g. to set properties that
        gst-launch syntax cannot express, to attach controllers or probes).
    Fails the test on a timeout. Errors and warnings are returned, not raised; callers assert on
    them (use :func:`assert_clean`).
    """
    if isinstance(x, list):
        pieces = [(_as_frames(p), int(r)) for p, r in x]
    else:
        pieces = [(_as_frames(x), int(rate))]
    res = RunResult()

    pipeline = Gst.parse_launch(
        "appsrc name=fx_test_src format=time is-live=false block=false ! %s ! "
        "appsink name=fx_test_sink sync=false async=false emit-signals=false" % desc
    )
    src = pipeline.get_by_name("fx_test_src")
    sink = pipeline.get_by_name("fx_test_sink")
    src.set_property("caps", _caps_for(pieces[0][0].dtype, pieces[0][1], pieces[0][0].shape[1]))
    src.set_property("max-bytes", 0)  # unlimited queue: pushing never blocks
    if configure is not None:
        configure(pipeline)

    if probe is not None:
        pel = pipeline.get_by_name(probe[0])
        assert pel is not None, "no element named %r in %r" % (probe[0], desc)

        def on_buffer(pad, info):
            res.probe_values.append(pel.get_property(probe[1]))
            return Gst.PadProbeReturn.OK

        pel.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, on_buffer)

    bus = pipeline.get_bus()
    deadline = time.monotonic() + timeout
    groups = []  # [caps string, dtype, channels, [bytes]]
    try:
        pipeline.set_state(Gst.State.PLAYING)
        t0 = 0  # ns, start of the current piece
        stop = False
        for pi, (xp, prate) in enumerate(pieces):
            frames, channels = xp.shape
            if pi > 0:
                src.set_property("caps", _caps_for(xp.dtype, prate, channels))
            pos = 0
            for n in split_sizes(frames, split, rng):
                buf = Gst.Buffer.new_wrapped(xp[pos:pos + n].tobytes())
                buf.pts = t0 + Gst.util_uint64_scale_int(pos, Gst.SECOND, prate)
                buf.duration = t0 + Gst.util_uint64_scale_int(pos + n, Gst.SECOND, prate) - buf.pts
                buf.offset = pos
                buf.offset_end = pos + n
                ret = src.emit("push-buffer", buf)
                if ret != Gst.FlowReturn.OK:
                    _drain_bus(bus, res)
                    if res.errors or expect_error:
                        stop = True
                        break
                    pytest.fail("appsrc push-buffer returned %s" % ret)
                res.buffers_in += 1
                pos += n
            if stop:
                break
            t0 += Gst.util_uint64_scale_int(frames, Gst.SECOND, prate)
        src.emit("end-of-stream")

        while True:
            if time.monotonic() > deadline:
                _drain_bus(bus, res)
                pytest.fail("pipeline %r timed out after %.0f s (errors: %s)"
                            % (desc, timeout, res.error_text()))
            sample = sink.emit("try-pull-sample", 50 * Gst.MSECOND)
            if sample is not None:
                caps = sample.get_caps()
                cstr = caps.to_string()
                if not groups or groups[-1][0] != cstr:
                    dtype, channels = _caps_info(caps)
                    groups.append([cstr, dtype, channels, []])
                buf = sample.get_buffer()
                ok, info = buf.map(Gst.MapFlags.READ)
                assert ok
                groups[-1][3].append(bytes(info.data))
                res.out_pts.append((buf.pts, len(info.data) // (groups[-1][2] * np.dtype(
                    groups[-1][1]).itemsize)))
                buf.unmap(info)
                res.buffers_out += 1
                continue
            if sink.get_property("eos"):
                res.eos = True
                break
            _drain_bus(bus, res)
            if res.errors:
                break
        for el, prop in read_props:
            e = pipeline.get_by_name(el)
            assert e is not None, "no element named %r in %r" % (el, desc)
            res.props[(el, prop)] = e.get_property(prop)
    finally:
        # drain before NULL: a pipeline going to NULL flushes its bus
        _drain_bus(bus, res)
        if not _set_state_with_timeout(pipeline, Gst.State.NULL, 10.0):
            pytest.fail("pipeline %r did not reach NULL within 10 s (deadlock?)" % desc)
        _drain_bus(bus, res)

    res.pieces = []
    for _, dtype, channels, chunks in groups:
        y = np.frombuffer(b"".join(chunks), dtype=dtype).copy()
        res.pieces.append(y.reshape(-1, channels))
    if res.pieces:
        res.y = res.pieces[0]
    else:
        res.y = np.zeros((0, pieces[0][0].shape[1]), pieces[0][0].dtype)
    return res


def set_on_buffer(n, prop, value, name="fx"):
    """A run_pipeline configure hook: sets prop of the element `name` to value when its n-th
    buffer reaches its sink pad."""

    def configure(pipeline):
        fx = pipeline.get_by_name(name)
        count = [0]

        def on_buffer(pad, info):
            count[0] += 1
            if count[0] == n:
                fx.set_property(prop, value)
            return Gst.PadProbeReturn.OK

        fx.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, on_buffer)

    return configure


def assert_clean(res, frames=None):
    """No error, no warning, EOS reached and (optionally) the expected number of frames out."""
    assert not res.errors, "errors on the bus: " + res.error_text()
    assert not res.warnings, "warnings on the bus: " + res.warning_text()
    assert res.eos, "no EOS at the sink"
    if frames is not None:
        assert res.y.shape[0] == frames, "expected %d frames out, got %d" % (frames,
                                                                             res.y.shape[0])


def filter_through(desc, x, rate, split="random", rng=None, **kw):
    """run_pipeline + assert_clean; returns the output array."""
    res = run_pipeline(desc, x, rate, split=split, rng=rng, **kw)
    assert_clean(res, frames=np.asarray(x).shape[0])
    return res.y


# ------------------------------------------------------------------------------------------------
# numeric helpers


# Worst errors seen per family, printed at the end of the run (pytest's terminal summary).
MEASURED = {}
ALL_VALUES = {}


def record(family, metric, value, case):
    """Keeps the worst value of a metric per family. For rel* and ratio* metrics larger is
    worse; for 'ser' (dB) and 'margin' smaller is worse."""
    key = (family, metric)
    ALL_VALUES.setdefault(key, []).append(value)
    worse_is_larger = metric.startswith(("rel", "ratio"))
    cur = MEASURED.get(key)
    if cur is None or (value > cur[0] if worse_is_larger else value < cur[0]):
        MEASURED[key] = (value, case)


def pytest_terminal_summary(terminalreporter):
    if not MEASURED:
        return
    terminalreporter.section("gst-fx measured errors (worst and median per family)")
    for (family, metric), (value, case) in sorted(MEASURED.items()):
        vals = ALL_VALUES[(family, metric)]
        terminalreporter.write_line("%-28s %-14s worst %10.4g  median %10.4g  n=%-4d %s" % (
            family, metric, value, float(np.median(vals)), len(vals), case))
