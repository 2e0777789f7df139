"""Properties and element metadata per DESIGN section 2, plus the bad-input rows of section 3
that a Python test can observe on the bus."""

import numpy as np
import pytest
import scipy.signal as ss

import fxcascade as fc

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GObject, Gst  # noqa: E402

from conftest import (FX_ELEMENTS, assert_clean, filter_through, noise, rel_err,  # noqa: E402
                      run_pipeline, set_on_buffer)

pytestmark = pytest.mark.usefixtures("fx")

DESIGN_ELEMENTS = ["fxbutterworth", "fxchebyshev1", "fxchebyshev2", "fxelliptic"]
IIR_ELEMENTS = DESIGN_ELEMENTS + ["fxlinkwitzriley", "fxbiquad", "fxsos"]

MODE_NICKS = {"low-pass", "high-pass", "band-pass", "band-reject"}
BIQUAD_NICKS = {"low-pass", "high-pass", "band-pass", "band-pass-peak", "notch", "all-pass",
                "peaking", "low-shelf", "high-shelf"}

# DSP parameters that must be GST_PARAM_CONTROLLABLE, per element
DSP_PROPS = {
    "fxbutterworth": ["mode", "cutoff", "lower-frequency", "upper-frequency", "order"],
    "fxchebyshev1": ["mode", "cutoff", "lower-frequency", "upper-frequency", "order", "ripple"],
    "fxchebyshev2": ["mode", "cutoff", "lower-frequency", "upper-frequency", "order",
                     "attenuation"],
    "fxelliptic": ["mode", "cutoff", "lower-frequency", "upper-frequency", "order", "ripple",
                   "attenuation"],
    "fxlinkwitzriley": ["mode", "cutoff", "order"],
    "fxbiquad": ["type", "frequency", "q", "gain"],
    "fxsos": ["sections"],
    "fxgain": ["gain", "clip"],
}

DEFAULTS = {
    "fxbutterworth": {"mode": "low-pass", "cutoff": 1000.0, "order": 4},
    "fxchebyshev1": {"mode": "low-pass", "cutoff": 1000.0, "order": 4, "ripple": 0.5},
    "fxchebyshev2": {"mode": "low-pass", "cutoff": 1000.0, "order": 4, "attenuation": 40.0},
    "fxelliptic": {"mode": "low-pass", "cutoff": 1000.0, "order": 4, "ripple": 0.5,
                   "attenuation": 60.0},
    "fxlinkwitzriley": {"mode": "low-pass", "order": 4},
    "fxbiquad": {"type": "low-pass", "frequency": 1000.0, "q": 0.7071, "gain": 0.0},
    "fxgain": {"gain": 0.0, "clip": False},
}
COMMON_DEFAULTS = {"device": "auto", "precision": "auto", "scan-threshold": 0,
                   "cuda-graphs": True, "warm-up": True}


def make(name):
    el = Gst.ElementFactory.make(name, None)
    assert el is not None, "cannot create %s" % name
    return el


def value_of(v):
    return v.value_nick if isinstance(v, (GObject.GEnum,)) else v


def enum_nicks(el, prop):
    return {v.value_nick for v in type(el.get_property(prop)).__enum_values__.values()}


@pytest.mark.parametrize("name", FX_ELEMENTS)
def test_metadata(name):
    f = Gst.ElementFactory.find(name)
    assert f is not None
    assert f.get_metadata("klass") == "Filter/Effect/Audio"
    assert f.get_rank() == Gst.Rank.NONE
    for tmpl in f.get_static_pad_templates():
        caps = tmpl.get_caps()
        s = caps.to_string()
        assert "audio/x-raw" in s and "F32LE" in s and "F64LE" in s, (tmpl.name_template, s)


@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_defaults(name):
    el = make(name)
    for prop, want in DEFAULTS[name].items():
        got = value_of(el.get_property(prop))
        if isinstance(want, float):
            assert got == pytest.approx(want, rel=1e-6), (name, prop, got)
        else:
            assert got == want, (name, prop, got)


@pytest.mark.parametrize("name", IIR_ELEMENTS)
def test_common_properties(name):
    el = make(name)
    for prop, want in COMMON_DEFAULTS.items():
        assert el.find_property(prop) is not None, "%s lacks %s" % (name, prop)
        assert value_of(el.get_property(prop)) == want, (name, prop)
    assert enum_nicks(el, "device") == {"auto", "cpu", "cuda"}
    assert enum_nicks(el, "precision") == {"auto", "single", "double"}
    for prop, vtype in (("dispatches", GObject.TYPE_UINT64), ("launches", GObject.TYPE_UINT64),
                        ("backend", GObject.TYPE_STRING)):
        p = el.find_property(prop)
        assert p is not None, "%s lacks %s" % (name, prop)
        assert p.value_type == vtype, (name, prop, p.value_type)
        assert p.flags & GObject.ParamFlags.READABLE
        assert not p.flags & GObject.ParamFlags.WRITABLE, "%s:%s must be read-only" % (name, prop)
    p = el.find_property("scan-threshold")
    assert p.value_type == GObject.TYPE_UINT
    assert el.get_property("dispatches") == 0


@pytest.mark.parametrize("name", sorted(DSP_PROPS))
def test_dsp_properties_controllable(name):
    el = make(name)
    for prop in DSP_PROPS[name]:
        p = el.find_property(prop)
        assert p is not None, "%s lacks %s" % (name, prop)
        assert int(p.flags) & Gst.PARAM_CONTROLLABLE, "%s:%s is not controllable" % (name, prop)
        assert p.flags & GObject.ParamFlags.WRITABLE


@pytest.mark.parametrize("name", DESIGN_ELEMENTS)
def test_mode_nicks_and_order_range(name):
    el = make(name)
    assert enum_nicks(el, "mode") == MODE_NICKS
    for nick in sorted(MODE_NICKS):
        Gst.util_set_object_arg(el, "mode", nick)
        assert el.get_property("mode").value_nick == nick
    p = el.find_property("order")
    assert p.minimum == 1
    assert p.maximum == (24 if name == "fxelliptic" else 64)


def test_linkwitz_riley_mode_and_order():
    el = make("fxlinkwitzriley")
    assert enum_nicks(el, "mode") == {"low-pass", "high-pass"}
    p = el.find_property("order")
    assert (p.minimum, p.maximum) == (2, 16)


def test_biquad_type_nicks():
    el = make("fxbiquad")
    assert enum_nicks(el, "type") == BIQUAD_NICKS
    for nick in sorted(BIQUAD_NICKS):
        Gst.util_set_object_arg(el, "type", nick)
        assert el.get_property("type").value_nick == nick


@pytest.mark.parametrize("desc", [
    "fxbutterworth name=fx order=6 cutoff=300",
    "fxelliptic name=fx mode=band-pass lower-frequency=200 upper-frequency=900",
    "fxbiquad name=fx type=notch",
    "fxlinkwitzriley name=fx",
    'fxsos name=fx sections="1 0 0 1 -0.5 0"',
])
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["F64", "F32"])
def test_dispatches_one_per_buffer_and_backend(desc, dtype):
    x = noise(10000, 2, seed=1, dtype=dtype)
    res = run_pipeline(desc, x, 48000, split="random", rng=np.random.default_rng(4),
                       probe=("fx", "dispatches"), read_props=[("fx", "dispatches"),
                                                               ("fx", "backend")])
    assert_clean(res, frames=10000)
    n = res.buffers_in
    assert n > 2
    vals = res.probe_values
    assert len(vals) == n
    assert np.all(np.diff(vals) == 1), "dispatches per buffer: %r" % (vals,)
    assert res.props[("fx", "dispatches")] == n, (res.props, n)
    backend = res.props[("fx", "backend")]
    assert isinstance(backend, str) and backend.strip(), "backend %r" % (backend,)


def test_sos_sections_value_array_syntax():
    """fxsos sections are also settable in GstValueArray form."""
    rate = 48000
    sos = ss.butter(4, 3000, fs=rate, output="sos")
    arr = "< %s >" % ", ".join("< %s >" % ", ".join(repr(float(v)) for v in r) for r in sos)
    x = noise(8000, 2, seed=2)
    y = filter_through("fxsos sections=\"%s\"" % arr, x, rate)
    assert rel_err(y, ss.sosfilt(sos, x, axis=0)) <= 1e-9


# ---- bad input (DESIGN section 3) --------------------------------------------------------------


def _bus_text(entries):
    return " ".join("%s %s" % (m, d or "") for _, m, d in entries)


@pytest.mark.parametrize("desc,prop,value", [
    ("fxbutterworth cutoff=30000", "cutoff", "30000"),
    ("fxchebyshev1 cutoff=24000", "cutoff", "24000"),
    ("fxbiquad frequency=25000", "frequency", "25000"),
    ("fxlinkwitzriley cutoff=40000", "cutoff", "40000"),
])
def test_frequency_at_or_above_nyquist_is_an_error(desc, prop, value):
    x = noise(4800, 2, seed=3)
    res = run_pipeline(desc, x, 48000, expect_error=True, timeout=10)
    assert res.errors, "no error for %s at 48 kHz" % desc
    text = _bus_text(res.errors)
    assert prop in text and value in text, "error does not name %s=%s: %s" % (prop, value, text)
    assert "24000" in text, "error does not give the allowed range: %s" % text


def test_band_edges_inverted_is_an_error():
    x = noise(4800, 2, seed=3)
    res = run_pipeline("fxbutterworth mode=band-pass lower-frequency=3000 upper-frequency=1000",
                       x, 48000, expect_error=True, timeout=10)
    assert res.errors
    text = _bus_text(res.errors)
    assert "lower-frequency" in text or "upper-frequency" in text, text


def test_change_to_invalid_while_playing_is_refused():
    """A change to an invalid value while PLAYING: a warning, the previous coefficients stay."""
    rate = 48000
    x = noise(12000, 2, seed=8)
    sos = ss.butter(4, 1000, fs=rate, output="sos")

    configure = set_on_buffer(3, "cutoff", 30000.0)
    res = run_pipeline("fxbutterworth name=fx cutoff=1000 order=4", x, rate, split=1000,
                       configure=configure)
    assert not res.errors, res.error_text()
    assert res.warnings, "no warning for cutoff=30000 at 48 kHz"
    assert "cutoff" in _bus_text(res.warnings)
    assert rel_err(res.y, ss.sosfilt(sos, x, axis=0)) <= 1e-6


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["F64", "F32"])
def test_nonfinite_input_costs_one_sample(dtype):
    """NaN/Inf are processed as zeros before the state sees them: the whole output (the rest of
    the bad buffer and both channels included) is scipy's for zeros there; one warning."""
    rate = 48000
    x = noise(10000, 2, seed=9, dtype=dtype)
    x[2500, 0] = np.nan
    x[2600, 1] = np.inf
    res = run_pipeline("fxbutterworth cutoff=500 order=8", x, rate, split=1000)
    assert not res.errors, res.error_text()
    assert res.y.shape == x.shape
    assert len(res.warnings) == 1, "expected one (rate-limited) warning, got %r" % res.warnings
    assert np.all(np.isfinite(res.y)), "the bad samples cost more than themselves"
    x0 = np.where(np.isfinite(x), x, 0.0).astype(np.float64)
    sos = ss.butter(8, 500, fs=rate, output="sos")
    ref = ss.sosfilt(sos, x0, axis=0)
    if dtype == np.float64:
        assert rel_err(res.y, ref) <= 1e-9
    else:  # precision=auto: single where it is at least as accurate as scipy's float32
        fc.assert_f32_auto(res.y, x, sos, ref)


@pytest.mark.parametrize("sections,row", [
    ("1 0 0 1 -2.5 1.5", 0),  # poles outside the unit circle
    ("1 0 0 1 0 0; 1 0 0 1 -1.9 1.0; 1 0 0 1 0 0", 1),  # a pole on the unit circle
    ("1 0 0 0 0.5 0", 0),  # a0 == 0
    ("1 2 3", 0),  # malformed
])
def test_sos_invalid_sections_error_on_start(sections, row):
    """No valid sections ever set: an error on start that names the bad row."""
    x = noise(4800, 2, seed=6)
    res = run_pipeline('fxsos sections="%s"' % sections, x, 48000, expect_error=True,
                       timeout=10)
    bus = res.errors + res.warnings
    assert res.errors, "no error for sections=%r (warnings: %s)" % (sections, res.warning_text())
    text = _bus_text(bus)
    # rows are counted from 1 in messages, as a user reads them
    assert "row %d" % (row + 1) in text.lower(), "bad row %d not named: %s" % (row + 1, text)


def test_sos_invalid_sections_while_playing_refused():
    """Unstable sections set while PLAYING: a warning naming the row; previous ones stay."""
    rate = 48000
    x = noise(12000, 2, seed=7)
    sos = ss.butter(2, 1500, fs=rate, output="sos")

    configure = set_on_buffer(4, "sections", "1 0 0 1 0 0; 1 0 0 1 -2.5 1.5")
    res = run_pipeline('fxsos name=fx sections="%s"' % " ".join(repr(float(v)) for v in sos[0]),
                       x, rate, split=1000, configure=configure)
    assert not res.errors, res.error_text()
    assert res.warnings, "no warning for unstable sections"
    assert "row 2" in _bus_text(res.warnings).lower()
    assert rel_err(res.y, ss.sosfilt(sos, x, axis=0)) <= 1e-9


def test_linkwitz_riley_odd_order_is_an_error():
    x = noise(4800, 2, seed=3)
    res = run_pipeline("fxlinkwitzriley order=5", x, 48000, expect_error=True, timeout=10)
    assert res.errors, "order=5 accepted (warnings: %s)" % res.warning_text()
    assert "order" in _bus_text(res.errors)


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["F64", "F32"])
def test_device_cpu_and_cuda_fallback(dtype):
    """device=cpu: no CUDA launches. device=cuda: runs on the GPU, or (no usable GPU / no CUDA
    backend) warns with a reason and continues on the CPU without dropping a buffer. Either
    way the output matches scipy."""
    rate = 48000
    sos = ss.butter(6, 700, fs=rate, output="sos")
    x = noise(12000, 2, seed=12, dtype=dtype)
    ref = ss.sosfilt(sos, x.astype(np.float64), axis=0)
    tol = 1e-9 if dtype == np.float64 else 1e-6

    def check(y):  # F32 under precision=auto: single where as accurate as scipy's float32
        if dtype == np.float64:
            assert rel_err(y, ref) <= tol
        else:
            fc.assert_f32_auto(y, x, sos, ref)

    props = [("fx", "backend"), ("fx", "launches"), ("fx", "dispatches")]

    res = run_pipeline("fxbutterworth name=fx order=6 cutoff=700 device=cpu", x, rate,
                       split=1000, read_props=props)
    assert_clean(res, frames=x.shape[0])
    assert res.props[("fx", "launches")] == 0
    assert res.props[("fx", "backend")].startswith("cpu"), res.props
    check(res.y)

    res = run_pipeline("fxbutterworth name=fx order=6 cutoff=700 device=cuda", x, rate,
                       split=1000, read_props=props)
    assert not res.errors, res.error_text()
    assert res.eos and res.y.shape == x.shape, "buffers dropped on the CUDA fallback"
    check(res.y)
    backend = res.props[("fx", "backend")]
    if backend.startswith("cuda"):
        assert not res.warnings, res.warning_text()
        assert res.props[("fx", "launches")] >= 1
    else:
        assert backend.startswith("cpu"), backend
        assert len(res.warnings) >= 1, "device=cuda fell back to %s without a warning" % backend
        text = _bus_text(res.warnings).lower()
        assert "cuda" in text or "gpu" in text, text
        assert res.props[("fx", "launches")] == 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_warm_up_false_keeps_fixed_streams_and_still_switches(dtype):
    """warm-up=false (no input copy for warm-ups): a stream whose parameters stay fixed comes out
    bit for bit as with the default, also through fxchain (which passes the setting to its
    children); a change of order mid-stream (which would warm the new sections up) starts them
    from silence instead: the output stays finite, and once the crossfade and the new sections'
    start-up are over it is scipy's new filter over the whole input."""
    rate = 48000
    x = noise(30000, 2, seed=3, dtype=dtype)
    for desc in ("fxbutterworth name=fx mode=high-pass cutoff=120 order=6",
                 "fxchain name=fx chain=\"fxbutterworth mode=high-pass cutoff=120 order=6 ! "
                 "fxbiquad type=peaking frequency=2000 gain=6\""):
        a = filter_through(desc, x, rate)
        b = filter_through(desc + " warm-up=false", x, rate)
        assert np.array_equal(a, b), desc
    el = Gst.parse_launch("fxchain chain=\"fxbutterworth name=bw ! fxgain\" warm-up=false")
    assert el.get_property("warm-up") is False
    assert el.get_by_name("bw").get_property("warm-up") is False
    ref = ss.sosfilt(ss.butter(2, 120, "highpass", fs=rate, output="sos"),
                     x.astype(np.float64), axis=0)
    ys = []
    for extra in ("", " warm-up=false"):
        res = run_pipeline("fxbutterworth name=fx mode=high-pass cutoff=120 order=6" + extra,
                           x, rate, split=1000, configure=set_on_buffer(10, "order", 2))
        assert_clean(res, frames=x.shape[0])
        y = res.y.astype(np.float64)
        assert np.all(np.isfinite(y)), extra
        late = slice(9000 + 12000, None)  # the change at frame 9000, settled 12000 frames later
        if dtype == np.float32:
            # precision=auto's promise: at least scipy float32's accuracy (its probe runs this
            # high-pass in float arithmetic)
            ref32 = ss.sosfilt(ss.butter(2, 120, "highpass", fs=rate, output="sos")
                               .astype(np.float32), x, axis=0).astype(np.float64)
            got, bar = fc.ser_db(y[late], ref[late]), fc.ser_db(ref32[late], ref[late])
            assert got >= bar, (extra, got, bar)
        else:
            err = np.max(np.abs(y[late] - ref[late])) / np.max(np.abs(ref))
            assert err < 1e-9, (extra, err)
        ys.append(y)
    # the setting reaches the engine: the new sections start from another state
    assert np.array_equal(ys[0][:9000], ys[1][:9000])
    assert not np.array_equal(ys[0][9000:10000], ys[1][9000:10000])
