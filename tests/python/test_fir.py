"""fxfir and libfxdsp's FIR design against independent references (DESIGN section 2, issue 7).

Taps vs scipy.signal.firwin (<= 1e-12) for many random designs through ctypes; the element's
output vs scipy.signal.lfilter(taps, 1, x) (F64 <= 1e-10 relative, F32 <= 1e-5) for the direct
and the partitioned FFT paths (31 ... 16001 taps), random buffer splits including 1-frame
buffers, 1, 2, 7 and 64 channels; the latency query; a kernel change without a click; fxfir as an
opaque stage of fxchain; bad input.
"""

import ctypes
import os
import zlib

import numpy as np
import pytest
import scipy.signal as ss

from conftest import (Gst, assert_clean, filter_through, noise, record, rel_err, require_fx,
                      run_pipeline, set_on_buffer)

pytestmark = pytest.mark.usefixtures("fx")

RATE = 48000
F64_TOL = 1e-10
F32_TOL = 1e-5
MODES = ["low-pass", "high-pass", "band-pass", "band-reject"]
WINDOWS = ["hamming", "hann", "blackman", "kaiser", "rectangular"]
PASS_ZERO = {"low-pass": True, "high-pass": False, "band-pass": False, "band-reject": True}


def case_rng(case_id):
    return np.random.default_rng(zlib.crc32(case_id.encode()))


def scipy_taps(mode, num_taps, rate, cutoff=None, lower=None, upper=None, window="hamming",
               beta=8.6):
    win = ("kaiser", beta) if window == "kaiser" else ("boxcar" if window == "rectangular"
                                                       else window)
    edges = cutoff if mode in ("low-pass", "high-pass") else [lower, upper]
    return ss.firwin(num_taps, edges, window=win, pass_zero=PASS_ZERO[mode], scale=True, fs=rate)


def lfilter(taps, x):
    return ss.lfilter(taps, [1.0], np.asarray(x, dtype=np.float64), axis=0)


# ------------------------------------------------------------------------------------------------
# libfxdsp's design through ctypes


class FirSpec(ctypes.Structure):
    _fields_ = [("mode", ctypes.c_int), ("num_taps", ctypes.c_size_t), ("rate", ctypes.c_double),
                ("cutoff", ctypes.c_double), ("lower", ctypes.c_double),
                ("upper", ctypes.c_double), ("window", ctypes.c_int), ("beta", ctypes.c_double)]


_LIB = None


def fxdsp():
    global _LIB
    if _LIB is None:
        path = os.environ.get("FXDSP_LIB") or os.path.join(
            os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
            "build", "tests", "libfxdsp_py.so")
        _LIB = ctypes.CDLL(path)
        _LIB.fx_fir_design.argtypes = [ctypes.POINTER(FirSpec), ctypes.POINTER(ctypes.c_double)]
        _LIB.fx_fir_design.restype = ctypes.c_int
    return _LIB


def fx_taps(mode, num_taps, rate, cutoff=0.0, lower=0.0, upper=0.0, window="hamming", beta=8.6):
    spec = FirSpec(MODES.index(mode), num_taps, rate, cutoff or 0.0, lower or 0.0, upper or 0.0,
                   WINDOWS.index(window), beta)
    out = np.zeros(num_taps)
    st = fxdsp().fx_fir_design(ctypes.byref(spec), out.ctypes.data_as(
        ctypes.POINTER(ctypes.c_double)))
    return st, out


def random_design(rng):
    mode = MODES[rng.integers(4)]
    window = WINDOWS[rng.integers(5)]
    rate = float(rng.choice([8000, 22050, 44100, 48000, 96000, 192000]))
    n = int(rng.integers(1, 400))
    if mode in ("high-pass", "band-reject") and n % 2 == 0:
        n += 1
    if window in ("hann", "blackman") and n == 2:
        n = 3  # both taps of these windows are zero at length 2: no design (FX_TEST_SEED=5 drew it)
    lo, hi = sorted(rng.uniform(0.001, 0.999, 2) * rate / 2)
    beta = float(rng.uniform(0, 20))
    return dict(mode=mode, num_taps=n, rate=rate, cutoff=lo, lower=lo, upper=hi, window=window,
                beta=beta)


def test_design_matches_firwin():
    rng = np.random.default_rng(2024)
    worst = 0.0
    for i in range(600):
        d = random_design(rng)
        st, h = fx_taps(**d)
        assert st == 0, d
        ref = scipy_taps(d["mode"], d["num_taps"], d["rate"], d["cutoff"], d["lower"],
                         d["upper"], d["window"], d["beta"])
        err = float(np.max(np.abs(h - ref)))
        worst = max(worst, err)
        assert err <= 1e-12, (d, err)
    record("fir design", "rel taps max", worst, "600 random firwin designs")


@pytest.mark.parametrize("n", [1000, 4001, 16001])
def test_design_long_kernels_match_firwin(n):
    for mode in MODES:
        for window in WINDOWS:
            st, h = fx_taps(mode, n, 48000.0, 3000.0, 500.0, 7000.0, window, 5.0)
            if mode in ("high-pass", "band-reject") and n % 2 == 0:
                assert st != 0
                with pytest.raises(ValueError):
                    scipy_taps(mode, n, 48000.0, 3000.0, 500.0, 7000.0, window, 5.0)
                continue
            assert st == 0
            ref = scipy_taps(mode, n, 48000.0, 3000.0, 500.0, 7000.0, window, 5.0)
            assert np.max(np.abs(h - ref)) <= 1e-12, (mode, window)


# ------------------------------------------------------------------------------------------------
# element output vs lfilter


def kernel_prop(taps):
    return Gst.ValueArray([float(t) for t in taps])


def set_kernel(taps, name="fx"):
    def configure(pipeline):
        pipeline.get_by_name(name).set_property("kernel", kernel_prop(taps))
    return configure


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("method", ["direct", "partitioned", "auto"])
@pytest.mark.parametrize("n_taps", [31, 101, 1001, 4097, 16001])
def test_kernel_vs_lfilter(n_taps, method, dtype):
    if method == "direct" and n_taps > 4097:
        pytest.skip("direct form of 16001 taps: covered by the partitioned path")
    case = "k%d-%s-%s" % (n_taps, method, np.dtype(dtype).name)
    rng = case_rng(case)
    taps = rng.standard_normal(n_taps) / np.sqrt(n_taps)
    frames = max(3 * n_taps, 9000)
    channels = 2
    x = noise(frames, channels, seed=n_taps).astype(dtype)
    res = run_pipeline("fxfir name=fx method=%s" % method, x, RATE, split="random", rng=rng,
                       configure=set_kernel(taps), read_props=[("fx", "backend"),
                                                               ("fx", "taps")])
    assert_clean(res, frames=frames)
    backend = res.props[("fx", "backend")]
    # the partitioned form does its first 64 taps directly: a kernel that short is direct anyway;
    # auto runs up to 128 (F64) / 160 (F32) taps direct
    expect = "direct" if (method == "direct" or n_taps <= 64 or
                          (method == "auto" and n_taps <= 128)) else "partitioned"
    assert backend.startswith(expect), backend
    assert res.props[("fx", "taps")] == n_taps
    err = rel_err(res.y, lfilter(taps, x))
    record("fir %s %s" % (expect, np.dtype(dtype).name), "rel", err, case)
    assert err <= (F64_TOL if dtype == np.float64 else F32_TOL), (case, err)


@pytest.mark.parametrize("channels", [1, 2, 7, 64])
@pytest.mark.parametrize("n_taps", [31, 257])
def test_design_vs_lfilter_channels_and_splits(channels, n_taps):
    case = "ch%d-k%d" % (channels, n_taps)
    rng = case_rng(case)
    frames = 3000 if channels == 64 else 12000
    x = noise(frames, channels, seed=channels)
    # 1-frame buffers mixed with random sizes
    sizes = []
    left = frames
    while left > 0:
        n = int(min(left, 1 if rng.random() < 0.3 else rng.integers(1, 700)))
        sizes.append(n)
        left -= n
    y = filter_through("fxfir name=fx mode=band-pass lower-frequency=300 upper-frequency=5000 "
                       "num-taps=%d window=blackman" % n_taps, x, RATE, split=sizes)
    taps = scipy_taps("band-pass", n_taps, RATE, lower=300, upper=5000, window="blackman")
    err = rel_err(y, lfilter(taps, x))
    record("fir design f64", "rel", err, case)
    assert err <= F64_TOL, (case, err)


def test_one_frame_buffers_partitioned():
    x = noise(2500, 2, seed=3)
    y = filter_through("fxfir name=fx num-taps=301 cutoff=3000 window=kaiser kaiser-beta=6",
                       x, RATE, split=1)
    taps = scipy_taps("low-pass", 301, RATE, cutoff=3000, window="kaiser", beta=6)
    assert rel_err(y, lfilter(taps, x)) <= F64_TOL


def test_split_invariance_is_exact():
    x = noise(20000, 2, seed=5)
    desc = "fxfir num-taps=2001 mode=high-pass cutoff=150"
    a = filter_through(desc, x, RATE, split=None)
    b = filter_through(desc, x, RATE, split="random", rng=np.random.default_rng(1))
    c = filter_through(desc, x, RATE, split=("random", 1, 40), rng=np.random.default_rng(2))
    assert np.max(np.abs(a - b)) <= 1e-12 * np.max(np.abs(a))
    assert np.max(np.abs(a - c)) <= 1e-12 * np.max(np.abs(a))


@pytest.mark.parametrize("mode,props", [
    ("low-pass", "cutoff=5000"), ("high-pass", "cutoff=200"),
    ("band-pass", "lower-frequency=400 upper-frequency=4000"),
    ("band-reject", "lower-frequency=400 upper-frequency=4000")])
@pytest.mark.parametrize("window", WINDOWS)
def test_design_element_matches_firwin(mode, props, window):
    n = 151
    x = noise(6000, 1, seed=11).astype(np.float32)
    y = filter_through("fxfir mode=%s %s num-taps=%d window=%s kaiser-beta=7.5"
                       % (mode, props, n, window), x, 44100)
    kw = dict(p.split("=") for p in props.split())
    taps = scipy_taps(mode, n, 44100, cutoff=float(kw.get("cutoff", 0)),
                      lower=float(kw.get("lower-frequency", 0)),
                      upper=float(kw.get("upper-frequency", 0)), window=window, beta=7.5)
    err = rel_err(y, lfilter(taps, x))
    record("fir design f32", "rel", err, "%s %s" % (mode, window))
    assert err <= F32_TOL


# ------------------------------------------------------------------------------------------------
# latency, kernel changes, fxchain


@pytest.mark.parametrize("n_taps", [31, 16001])
def test_latency_query_adds_nothing(n_taps):
    pipeline = Gst.parse_launch(
        "audiotestsrc num-buffers=5 is-live=true ! audio/x-raw,format=F32LE,rate=48000 ! "
        "fxfir name=fx num-taps=%d ! fakesink name=sink sync=true" % n_taps)
    pipeline.set_state(Gst.State.PLAYING)
    try:
        pipeline.get_state(5 * Gst.SECOND)
        fx = pipeline.get_by_name("fx")
        q_up = Gst.Query.new_latency()
        assert fx.get_static_pad("sink").peer_query(q_up)
        q = Gst.Query.new_latency()
        assert fx.get_static_pad("src").query(q)
        assert q.parse_latency() == q_up.parse_latency()
        assert fx.get_property("backend").startswith("direct" if n_taps <= 128 else "partitioned")
    finally:
        pipeline.set_state(Gst.State.NULL)


def test_kernel_change_is_crossfaded_without_click():
    """A kernel swap from a delta to a delta 24 samples later flips the phase of a 1 kHz sine:
    switched at once it would step by twice the amplitude. Before the change the output is the
    old kernel's, after the 5 ms fade the new kernel's (exactly), in between the largest step stays
    within 2x of the input's."""
    frames = 9600
    t = np.arange(frames) / RATE
    x = (0.5 * np.sin(2 * np.pi * 1000 * t))[:, None]
    k_old = np.zeros(64)
    k_old[0] = 1.0
    k_new = np.zeros(64)
    k_new[24] = 1.0

    def configure(pipeline):
        set_kernel(k_old)(pipeline)
        set_on_buffer(5, "kernel", kernel_prop(k_new))(pipeline)

    res = run_pipeline("fxfir name=fx", x, RATE, split=480, configure=configure)
    assert_clean(res, frames=frames)
    y = res.y
    change = 4 * 480
    fade = int(round(RATE * 0.005))
    assert np.max(np.abs(y[:change] - lfilter(k_old, x)[:change])) <= 1e-7
    assert np.max(np.abs(y[change + fade:] - lfilter(k_new, x)[change + fade:])) <= 1e-7
    step_in = float(np.max(np.abs(np.diff(x[:, 0]))))
    step_out = float(np.max(np.abs(np.diff(y[:, 0]))))
    record("fir change", "ratio step", step_out / step_in, "delta swap")
    assert step_out <= 2.0 * step_in, (step_out, step_in)


def test_cutoff_change_while_playing_reaches_new_design():
    x = noise(24000, 2, seed=8)
    res = run_pipeline("fxfir name=fx num-taps=201 cutoff=1000", x, RATE, split=1000,
                       configure=set_on_buffer(3, "cutoff", 6000.0))
    assert_clean(res, frames=x.shape[0])
    ref = lfilter(scipy_taps("low-pass", 201, RATE, cutoff=6000.0), x)
    assert rel_err(res.y[4000:], ref[4000:]) <= F64_TOL


def test_opaque_stage_in_fxchain():
    x = noise(20000, 2, seed=4)

    def configure(pipeline):
        pipeline.get_by_name("c").set_property(
            "chain", "fxbutterworth name=hp mode=high-pass cutoff=100 order=2 ! "
            "fxfir name=f num-taps=301 cutoff=4000 window=hann")

    res = run_pipeline("fxchain name=c", x, RATE, split="random",
                       rng=np.random.default_rng(3), configure=configure,
                       read_props=[("c", "plan")])
    assert_clean(res, frames=x.shape[0])
    assert "opaque" in res.props[("c", "plan")], res.props[("c", "plan")]
    sos = ss.butter(2, 100, "highpass", fs=RATE, output="sos")
    ref = lfilter(scipy_taps("low-pass", 301, RATE, cutoff=4000, window="hann"),
                  ss.sosfilt(sos, x, axis=0))
    assert rel_err(res.y, ref) <= 1e-8


# ------------------------------------------------------------------------------------------------
# bad input


def test_cutoff_at_nyquist_fails_negotiation_naming_it():
    res = run_pipeline("fxfir name=fx cutoff=24000", noise(1000, 1), RATE, expect_error=True)
    assert res.errors
    msg = res.error_text()
    assert "cutoff=24000" in msg and "(0, 24000)" in msg, msg


def test_even_taps_high_pass_fails_naming_num_taps():
    res = run_pipeline("fxfir name=fx mode=high-pass num-taps=100", noise(1000, 1), RATE,
                       expect_error=True)
    assert res.errors and "num-taps=100" in res.error_text(), res.error_text()


def test_band_edges_refused_while_playing_previous_kernel_stays():
    x = noise(12000, 1, seed=2)
    res = run_pipeline("fxfir name=fx mode=band-pass lower-frequency=500 upper-frequency=2000",
                       x, RATE, split=1000,
                       configure=set_on_buffer(2, "lower-frequency", 3000.0))
    assert not res.errors
    assert res.warnings and "lower-frequency=3000" in res.warning_text(), res.warning_text()
    ref = lfilter(scipy_taps("band-pass", 101, RATE, lower=500, upper=2000), x)
    assert rel_err(res.y, ref) <= F64_TOL


@pytest.mark.parametrize("kernel", [[], [1.0, float("nan")], [float("inf")]])
def test_bad_kernel_refused(kernel):
    x = noise(6000, 1, seed=1)
    good = [0.5, 0.25, 0.125]

    def configure(pipeline):
        set_kernel(good)(pipeline)
        set_on_buffer(2, "kernel", kernel_prop(kernel))(pipeline)

    res = run_pipeline("fxfir name=fx", x, RATE, split=1000, configure=configure,
                       read_props=[("fx", "kernel")])
    assert not res.errors
    assert res.warnings and "kernel" in res.warning_text()
    assert list(res.props[("fx", "kernel")]) == good
    assert rel_err(res.y, lfilter(good, x)) <= F64_TOL


def test_out_of_range_properties_refused():
    fx = Gst.ElementFactory.make("fxfir", None)
    for prop, bad in (("num-taps", 0), ("kaiser-beta", -1.0), ("cutoff", -5.0)):
        before = fx.get_property(prop)
        with pytest.warns(Warning, match=prop):
            fx.set_property(prop, bad)
        assert fx.get_property(prop) == before


def test_extreme_shapes_do_not_crash():
    # 1024 channels, 1-frame and odd buffers
    x = noise(300, 1024, seed=9).astype(np.float32)
    y = filter_through("fxfir num-taps=101 cutoff=3000", x, RATE, split=[1, 2, 97, 200])
    taps = scipy_taps("low-pass", 101, RATE, cutoff=3000)
    assert rel_err(y[:, :8], lfilter(taps, x[:, :8])) <= F32_TOL
    # ... and through the partitioned path (one real-input FFT per channel), F64
    x = noise(700, 1024, seed=10)
    y = filter_through("fxfir num-taps=301 cutoff=3000", x, RATE, split=[1, 63, 64, 572])
    taps = scipy_taps("low-pass", 301, RATE, cutoff=3000)
    assert rel_err(y[:, -9:], lfilter(taps, x[:, -9:])) <= F64_TOL
    # 384 kHz with the default design
    x = noise(5000, 2, seed=1)
    y = filter_through("fxfir num-taps=1001 cutoff=20000", x, 384000, split="random")
    assert rel_err(y, lfilter(scipy_taps("low-pass", 1001, 384000, cutoff=20000), x)) <= F64_TOL
    # 1 Hz: the default design cannot exist (cutoff above Nyquist): a clean error
    res = run_pipeline("fxfir", noise(50, 1), 1, expect_error=True)
    assert res.errors and "cutoff" in res.error_text()
    # 1 Hz with a kernel works
    x = noise(50, 1, seed=2)
    y = filter_through("fxfir name=fx", x, 1, split=1, configure=set_kernel([0.5, 0.5]))
    assert rel_err(y, lfilter([0.5, 0.5], x)) <= F64_TOL


def test_nonfinite_input_costs_one_sample():
    """A NaN is processed as a 0 before the history sees it: the whole output is the
    reference's for a 0 there (nothing reset, one warning)."""
    x = noise(6000, 1, seed=7)
    x[1500, 0] = np.nan
    res = run_pipeline("fxfir name=fx num-taps=301", x, RATE, split=1000)
    assert not res.errors
    assert len(res.warnings) == 1 and "NaN" in res.warning_text()
    y = res.y
    assert np.all(np.isfinite(y))
    taps = scipy_taps("low-pass", 301, RATE, cutoff=1000)
    x0 = np.where(np.isfinite(x), x, 0.0)
    assert rel_err(y, lfilter(taps, x0)) <= F64_TOL


# ------------------------------------------------------------------------------------------------
# max-latency: FFT blocks for speed, the latency reported, the tail pushed at EOS


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_max_latency_delays_by_one_block_and_keeps_the_tail(dtype):
    n_taps, block = 2001, 1024
    rng = case_rng("lat-%s" % np.dtype(dtype).name)
    taps = rng.standard_normal(n_taps) / np.sqrt(n_taps)
    x = noise(15000, 2, seed=21).astype(dtype)
    res = run_pipeline("fxfir name=fx max-latency=1500", x, RATE, split="random", rng=rng,
                       configure=set_kernel(taps), read_props=[("fx", "backend")])
    assert not res.errors and not res.warnings and res.eos
    assert res.props[("fx", "backend")].startswith("partitioned")
    assert res.y.shape[0] == x.shape[0] + block, res.y.shape
    assert np.max(np.abs(res.y[:block])) == 0.0
    full = np.vstack([x, np.zeros((block, 2), dtype)])
    err = rel_err(res.y[block:], lfilter(taps, full)[:x.shape[0]])
    record("fir latency %s" % np.dtype(dtype).name, "rel", err, "2001 taps, block 1024")
    assert err <= (F64_TOL if dtype == np.float64 else F32_TOL)
    # timestamps continue into the tail
    (pts_last, n_last) = res.out_pts[-1]
    assert n_last == block and pts_last == Gst.util_uint64_scale_int(x.shape[0], Gst.SECOND, RATE)


def test_max_latency_reported_and_message_on_change():
    pipeline = Gst.parse_launch(
        "audiotestsrc is-live=true samplesperbuffer=480 ! audio/x-raw,format=F32LE,rate=48000 ! "
        "fxfir name=fx num-taps=31 max-latency=4096 ! fakesink sync=true")
    bus = pipeline.get_bus()
    fx = pipeline.get_by_name("fx")
    pipeline.set_state(Gst.State.PLAYING)
    try:
        assert pipeline.get_state(5 * Gst.SECOND)[0] == Gst.StateChangeReturn.SUCCESS

        def ours():
            q_up = Gst.Query.new_latency()
            assert fx.get_static_pad("sink").peer_query(q_up)
            q = Gst.Query.new_latency()
            assert fx.get_static_pad("src").query(q)
            return q.parse_latency()[1] - q_up.parse_latency()[1]

        assert ours() == 0  # 31 taps: direct form, no latency
        bus.set_flushing(True)
        bus.set_flushing(False)
        fx.set_property("num-taps", 3001)
        msg = bus.timed_pop_filtered(5 * Gst.SECOND, Gst.MessageType.LATENCY)
        assert msg is not None and msg.src == fx
        # 3001 taps: the fastest block for the length within the 4096 allowed is 1024
        assert ours() == Gst.util_uint64_scale_int(1024, Gst.SECOND, RATE)
        assert fx.get_property("backend").startswith("partitioned")
    finally:
        pipeline.set_state(Gst.State.NULL)


# ------------------------------------------------------------------------------------------------
# conventions and automation


def test_property_conventions():
    import re
    fx = Gst.ElementFactory.make("fxfir", None)
    dsp = {"mode", "cutoff", "lower-frequency", "upper-frequency", "num-taps", "window",
           "kaiser-beta"}
    seen = set()
    for p in fx.list_properties():
        assert re.match(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$", p.name), p.name
        if p.name in dsp:
            seen.add(p.name)
            assert p.flags & Gst.PARAM_CONTROLLABLE, p.name
            assert p.flags & Gst.PARAM_MUTABLE_PLAYING, p.name
    assert seen == dsp
    f = Gst.ElementFactory.find("fxfir")
    assert f.get_metadata("klass") == "Filter/Effect/Audio"
    assert f.get_rank() == Gst.Rank.NONE
    # the nicks work from gst-launch syntax
    for w in WINDOWS:
        e = Gst.parse_launch("fxfir window=%s" % w)
        assert e.get_property("window").value_nick == w


def test_cutoff_automation_is_click_free():
    gi_ctrl = pytest.importorskip("gi.repository.GstController")
    frames = RATE
    t = np.arange(frames) / RATE
    x = np.repeat((0.5 * np.sin(2 * np.pi * 440 * t))[:, None], 2, axis=1)

    def configure(pipeline):
        el = pipeline.get_by_name("fx")
        cs = gi_ctrl.InterpolationControlSource()
        cs.set_property("mode", gi_ctrl.InterpolationMode.LINEAR)
        assert cs.set(0, 2000.0)
        assert cs.set(int(0.8 * Gst.SECOND), 8000.0)
        binding = gi_ctrl.DirectControlBinding.new_absolute(el, "cutoff", cs)
        assert el.add_control_binding(binding)
        pipeline._fx_keep = [cs, binding]

    res = run_pipeline("fxfir name=fx num-taps=101", x, RATE, split=480, configure=configure)
    assert_clean(res, frames=frames)
    step_in = float(np.max(np.abs(np.diff(x[:, 0]))))
    step_out = float(np.max(np.abs(np.diff(res.y[200:, 0]))))
    record("fir automation", "ratio step", step_out / step_in, "cutoff 2k->8k")
    assert step_out <= 2.0 * step_in
    # after the ramp the output is the final design's
    ref = lfilter(scipy_taps("low-pass", 101, RATE, cutoff=8000.0), x)
    assert rel_err(res.y[int(0.9 * RATE):], ref[int(0.9 * RATE):]) <= 1e-9


def test_renegotiation_redesigns_for_the_new_rate():
    x1 = noise(6000, 2, seed=31)
    x2 = noise(9000, 1, seed=32)
    res = run_pipeline("fxfir name=fx num-taps=401 cutoff=5000", [(x1, 48000), (x2, 96000)],
                       split="random", rng=np.random.default_rng(4))
    assert not res.errors and not res.warnings and len(res.pieces) == 2
    ref1 = lfilter(scipy_taps("low-pass", 401, 48000, cutoff=5000), x1)
    ref2 = lfilter(scipy_taps("low-pass", 401, 96000, cutoff=5000), x2)
    assert rel_err(res.pieces[0], ref1) <= F64_TOL
    assert rel_err(res.pieces[1], ref2) <= F64_TOL
