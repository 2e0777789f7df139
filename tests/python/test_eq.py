"""fxeq, the N-band parametric EQ (issue 7, item 2).

References are independent of the C code: the RBJ Audio-EQ-Cookbook formulas written out in
tests/python/cookbook.py, filtered with scipy.signal.sosfilt, and responses from
scipy.signal.sosfreqz. Covered: every band type, 1/10/32 bands, random buffer splits, F64 and
F32, pre-gain, 0 dB bands as identities, the shelves' monotonic response (formula, and the
element's measured impulse response and sines) against the stock equalizer-nbands' shelves
(measured opposite-sign lobe), fusion inside fxchain with fxbutterworth (one dispatch per buffer,
equal to the unfused chain), band changes and controllers on bands while playing (no clicks; also
fused), and bad input (frequency at/above Nyquist, q <= 0, num-bands out of range or changed while
playing, 1-frame buffers, 1024 channels, extreme rates)."""

import numpy as np
import pytest
import scipy.signal as ss

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstController", "1.0")
from gi.repository import GObject, Gst, GstController  # noqa: E402

from conftest import (assert_clean, noise, record, rel_err, require_fx, run_pipeline,  # noqa: E402
                      ser_db, split_sizes)
from cookbook import rbj  # noqa: E402

RATE = 48000
TYPES = ["peaking", "low-shelf", "high-shelf", "low-pass", "high-pass", "notch"]
GAIN_TYPES = ("peaking", "low-shelf", "high-shelf")
F64_TOL = 1e-9  # element vs scipy sosfilt of the cookbook sections (relative, 2-norm)
FUSED_TOL = 1e-12  # fused vs unfused fxchain


@pytest.fixture(autouse=True)
def _fxeq():
    require_fx("fxeq", "fxchain", "fxbutterworth")


# ------------------------------------------------------------------------------------------------
# bands: launch text and the reference sections


def band_text(i, b):
    return ("band{0}::type={1} band{0}::frequency={2!r} band{0}::q={3!r} band{0}::gain={4!r}"
            .format(i, b["type"], float(b["frequency"]), float(b["q"]), float(b["gain"])))


def eq_text(bands, pre_gain=0.0, name="fx"):
    return "fxeq name=%s num-bands=%d pre-gain=%r %s" % (
        name, len(bands), float(pre_gain), " ".join(band_text(i, b) for i, b in enumerate(bands)))


def eq_sos(bands, rate):
    """Cookbook sections, one row [b0 b1 b2 a0 a1 a2] per band (a 0 dB peaking/shelf band is an
    identity: the cookbook's b equals its a then)."""
    rows = []
    for b in bands:
        bb, aa = rbj(b["type"], b["frequency"], b["q"], b["gain"], rate)
        rows.append(np.concatenate([bb, aa]))
    return np.array(rows)


def reference(bands, pre_gain, x, rate):
    return ss.sosfilt(eq_sos(bands, rate), x.astype(np.float64), axis=0) * 10.0 ** (pre_gain / 20)


def random_band(rng, btype=None):
    btype = btype or TYPES[int(rng.integers(len(TYPES)))]
    if btype == "low-pass":  # keep a random cascade's output well above rounding noise
        f = float(np.exp(rng.uniform(np.log(2000), np.log(20000))))
    elif btype == "high-pass":
        f = float(np.exp(rng.uniform(np.log(20), np.log(500))))
    else:
        f = float(np.exp(rng.uniform(np.log(20), np.log(20000))))
    gain = float(rng.uniform(-12, 12)) if rng.uniform() > 0.15 else 0.0
    return dict(type=btype, frequency=f, q=float(rng.uniform(0.3, 4.0)), gain=gain)


def check_against_reference(y, ref, x, sos, pre_gain, dtype, case):
    if dtype == np.float64:
        err = rel_err(y, ref)
        record("fxeq F64 vs cookbook sosfilt", "rel_err", err, case)
        assert err <= F64_TOL, "%s: relative error %.3g" % (case, err)
    else:
        assert y.dtype == np.float32
        s = ser_db(y, ref)
        s_sp = ser_db(ss.sosfilt(sos.astype(np.float32), x, axis=0)
                      * np.float32(10.0 ** (pre_gain / 20)), ref)
        record("fxeq F32 SER", "ser", s, case)
        # at least scipy's float32 sosfilt (minus 1 dB), and never worse than 1e-5 relative
        assert s >= min(s_sp - 1.0, 100.0), "%s: SER %.1f dB (scipy float32 %.1f)" % (case, s, s_sp)


# ------------------------------------------------------------------------------------------------
# properties


def test_properties_and_bands():
    el = Gst.ElementFactory.make("fxeq", None)
    f = Gst.ElementFactory.find("fxeq")
    assert f.get_metadata("klass") == "Filter/Effect/Audio" and f.get_rank() == Gst.Rank.NONE
    p = el.find_property("num-bands")
    assert (p.minimum, p.maximum, p.default_value) == (1, 32, 10)
    assert not int(p.flags) & Gst.PARAM_CONTROLLABLE
    assert int(el.find_property("pre-gain").flags) & Gst.PARAM_CONTROLLABLE
    for prop in ("device", "precision", "dispatches", "backend", "scan-threshold", "cuda-graphs",
                 "launches", "warm-up"):
        assert el.find_property(prop) is not None, prop
    assert el.get_children_count() == 10
    names = [el.get_child_by_index(i).get_name() for i in range(10)]
    assert names == ["band%d" % i for i in range(10)]
    assert el.get_child_by_index(10) is None
    b = el.get_child_by_name("band3")
    assert b is not None and b.get_parent() == el
    nicks = {v.value_nick for v in type(b.get_property("type")).__enum_values__.values()}
    assert nicks == set(TYPES)
    for prop in ("type", "frequency", "q", "gain"):
        assert int(b.find_property(prop).flags) & Gst.PARAM_CONTROLLABLE, prop
    assert b.get_property("type").value_nick == "peaking"
    assert b.get_property("q") == pytest.approx(0.7071)
    assert b.get_property("gain") == 0.0
    # default centres: log-spaced over 20 Hz .. 20 kHz
    centres = [el.get_child_by_index(i).get_property("frequency") for i in range(10)]
    assert np.allclose(centres, 20 * 1000.0 ** ((np.arange(10) + 0.5) / 10), rtol=1e-12)
    # gst-launch's child syntax, as equalizer-nbands
    Gst.ChildProxy.set_property(el, "band3::gain", 4.5)
    assert b.get_property("gain") == 4.5
    for nick in TYPES:
        Gst.util_set_object_arg(b, "type", nick)
        assert b.get_property("type").value_nick == nick
    # fewer bands in NULL: the rest keep their settings, extra bands are gone
    el.set_property("num-bands", 4)
    assert el.get_children_count() == 4 and el.get_child_by_name("band4") is None
    assert el.get_child_by_name("band3").get_property("gain") == 4.5
    el.set_property("num-bands", 6)
    assert el.get_child_by_name("band5").get_property("gain") == 0.0
    assert el.get_child_by_name("band5").get_property("frequency") == pytest.approx(
        20 * 1000.0 ** (5.5 / 6))


# ------------------------------------------------------------------------------------------------
# output vs scipy


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["F64", "F32"])
@pytest.mark.parametrize("btype", TYPES)
def test_every_type_matches_cookbook(btype, dtype):
    rng = np.random.default_rng(TYPES.index(btype) + (10 if dtype == np.float32 else 0))
    x = noise(RATE // 4, 2, seed=5, dtype=dtype)
    for q, gain, f0 in ((0.7071, 6.0, 1000.0), (3.0, -9.0, 150.0), (0.4, 3.0, 12000.0)):
        bands = [dict(type=btype, frequency=f0, q=q, gain=gain)]
        res = run_pipeline(eq_text(bands), x, RATE, split="random", rng=rng)
        assert_clean(res, frames=x.shape[0])
        check_against_reference(res.y, reference(bands, 0.0, x, RATE), x, eq_sos(bands, RATE),
                                0.0, dtype, "%s f0=%g q=%g g=%g" % (btype, f0, q, gain))


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["F64", "F32"])
@pytest.mark.parametrize("n,split", [(1, None), (10, "random"), (10, 1), (32, "random"),
                                     (32, 4096)], ids=["1-one", "10-random", "10-frame",
                                                       "32-random", "32-4096"])
def test_many_bands_match_cookbook(n, split, dtype):
    """n random bands (all types, some at 0 dB) with a random pre-gain, any buffer split."""
    rng = np.random.default_rng(100 + n)
    bands = [random_band(rng) for _ in range(n)]
    pre = float(rng.uniform(-12, 6))
    frames = 3000 if split == 1 else RATE // 2
    x = noise(frames, 2, seed=n, dtype=dtype)
    res = run_pipeline(eq_text(bands, pre), x, RATE, split=split, rng=rng,
                       read_props=[("fx", "dispatches")])
    assert_clean(res, frames=frames)
    assert res.props[("fx", "dispatches")] == res.buffers_in  # one cascade, one call per buffer
    check_against_reference(res.y, reference(bands, pre, x, RATE), x, eq_sos(bands, RATE), pre,
                            dtype, "%d bands split=%s" % (n, split))


def test_zero_db_bands_are_identities():
    """0 dB peaking/shelving bands are exact identity sections, whatever their frequency (one
    above Nyquist included: it does nothing, so it is not refused); the pre-gain alone is left."""
    x = noise(RATE // 10, 2, seed=7)
    bands = [dict(type="peaking", frequency=1000.0, q=2.0, gain=0.0),
             dict(type="low-shelf", frequency=30000.0, q=0.7, gain=0.0),
             dict(type="high-shelf", frequency=50.0, q=0.5, gain=0.0)]
    res = run_pipeline(eq_text(bands, -6.0), x, RATE, split="random")
    assert_clean(res, frames=x.shape[0])
    assert rel_err(res.y, x * 10 ** (-6 / 20)) <= 1e-15


# ------------------------------------------------------------------------------------------------
# shelves: monotonic, no opposite-sign lobe


SHELF_Q = [0.3, 0.5, 0.6, 0.7071]
SHELF_GAINS = [-24.0, -12.0, -3.0, 3.0, 12.0, 24.0]


def assert_monotonic_shelf(mag_db, gain, btype, tol, case):
    """From the 0 dB plateau to the gain plateau (low shelf: gain at DC, 0 dB at Nyquist) without
    leaving [min(0, gain), max(0, gain)] and without turning back."""
    lo, hi = min(0.0, gain), max(0.0, gain)
    assert mag_db.min() >= lo - tol and mag_db.max() <= hi + tol, \
        "%s: response spans [%.4f, %.4f] dB, outside [%g, %g]" % (case, mag_db.min(),
                                                                 mag_db.max(), lo, hi)
    d = np.diff(mag_db)
    # low shelf with a boost falls with frequency; a cut rises; the high shelf the other way
    falling = (gain > 0) == (btype == "low-shelf")
    worst = d.max() if falling else -d.min()
    assert worst <= tol, "%s: response turns back by %.3g dB" % (case, worst)


@pytest.mark.parametrize("btype", ["low-shelf", "high-shelf"])
def test_shelf_formula_is_monotonic_up_to_q_0_7071(btype):
    """The cookbook shelf (written out in the test) through scipy.signal.sosfreqz: monotonic
    between its plateaus for every q <= 1/sqrt(2) (the slope S <= 1), with an overshoot above it
    (q is RBJ's Q: larger values resonate by design)."""
    w = np.geomspace(1.0, RATE / 2 * 0.999, 4000)
    for f0 in (50.0, 1000.0, 10000.0):
        for q in SHELF_Q:
            for g in SHELF_GAINS:
                sos = eq_sos([dict(type=btype, frequency=f0, q=q, gain=g)], RATE)
                _, h = ss.sosfreqz(sos, worN=w, fs=RATE)
                assert_monotonic_shelf(20 * np.log10(np.abs(h)), g, btype, 1e-9,
                                       "%s f0=%g q=%g g=%g" % (btype, f0, q, g))
        sos = eq_sos([dict(type=btype, frequency=f0, q=2.0, gain=12.0)], RATE)
        _, h = ss.sosfreqz(sos, worN=w, fs=RATE)
        assert 20 * np.log10(np.abs(h)).max() > 12.5, "q=2 should overshoot"


def impulse_response_db(desc, n=1 << 15):
    x = np.zeros((n, 1))
    x[0, 0] = 1.0
    res = run_pipeline(desc, x, RATE)
    assert_clean(res, frames=n)
    h = np.fft.rfft(res.y[:, 0])
    return np.fft.rfftfreq(n, 1.0 / RATE), 20 * np.log10(np.abs(h))


@pytest.mark.parametrize("btype", ["low-shelf", "high-shelf"])
def test_element_shelf_response_is_monotonic(btype):
    """The element's measured response (FFT of its impulse response, F64): equal to sosfreqz of the
    cookbook shelf and monotonic between the plateaus for q <= 0.7071."""
    for f0, q, g in ((1000.0, 0.7071, 12.0), (1000.0, 0.7071, -12.0), (100.0, 0.5, 6.0),
                     (5000.0, 0.3, -24.0), (300.0, 0.7071, 24.0)):
        bands = [dict(type=btype, frequency=f0, q=q, gain=g)]
        f, mag = impulse_response_db(eq_text(bands))
        _, h = ss.sosfreqz(eq_sos(bands, RATE), worN=f, fs=RATE)
        case = "%s f0=%g q=%g g=%g" % (btype, f0, q, g)
        assert np.max(np.abs(mag - 20 * np.log10(np.abs(h)))) <= 1e-6, case
        assert_monotonic_shelf(mag, g, btype, 1e-6, case)


def sine_gains_db(desc, freqs, dtype=np.float64):
    """Steady-state gain of the element at each frequency, measured with sines (least-squares fit
    of a sine and a cosine to the second half of the output)."""
    n = RATE // 2
    t = np.arange(n) / RATE
    out = []
    for f in freqs:
        x = (0.5 * np.sin(2 * np.pi * f * t))[:, None].astype(dtype)
        res = run_pipeline(desc, x, RATE, split=1024)
        assert_clean(res, frames=n)
        half = slice(n // 2, None)
        basis = np.stack([np.sin(2 * np.pi * f * t[half]), np.cos(2 * np.pi * f * t[half])], 1)
        coef, *_ = np.linalg.lstsq(basis, res.y[half, 0].astype(np.float64), rcond=None)
        out.append(20 * np.log10(np.hypot(*coef) / 0.5))
    return np.array(out)


def test_element_shelf_with_sines_and_stock_lobe():
    """Sines through fxeq's low shelf (+12 dB at 1 kHz, q 0.7071) and through the stock
    equalizer-nbands low shelf (+12 dB at 1 kHz, bandwidth 500 Hz): fxeq's gains fall
    monotonically from 12 dB to 0 dB and match sosfreqz; the stock shelf dips below 0 dB above the
    corner (the opposite-sign lobe; measured about -4.6 dB at 1.56 kHz)."""
    freqs = np.geomspace(30, 20000, 14)
    bands = [dict(type="low-shelf", frequency=1000.0, q=0.7071, gain=12.0)]
    g = sine_gains_db(eq_text(bands), freqs)
    _, h = ss.sosfreqz(eq_sos(bands, RATE), worN=freqs, fs=RATE)
    assert np.max(np.abs(g - 20 * np.log10(np.abs(h)))) <= 0.01
    assert_monotonic_shelf(g, 12.0, "low-shelf", 1e-3, "fxeq sines")

    stock = ("equalizer-nbands num-bands=1 band0::type=1 band0::freq=1000 band0::bandwidth=500 "
             "band0::gain=12")
    assert Gst.ElementFactory.find("equalizer-nbands") is not None, "gst-plugins-good missing"
    f, mag = impulse_response_db(stock)
    record("stock equalizer low shelf +12 dB", "opposite_lobe_db", float(mag.min()), "bw=500")
    assert mag.min() < -3.0, "stock shelf lobe not reproduced (min %.2f dB)" % mag.min()
    gs = sine_gains_db(stock, np.array([1560.0, 2000.0]))
    assert gs.min() < -2.0, "stock shelf lobe with sines: %s dB" % gs
    # the same request from fxeq has no lobe at all
    f, mag = impulse_response_db(eq_text(bands))
    assert mag.min() >= -1e-6


# ------------------------------------------------------------------------------------------------
# fxchain: fusion, changes, controllers


def attach_ramp(obj, prop, points, keep):
    cs = GstController.InterpolationControlSource()
    cs.set_property("mode", GstController.InterpolationMode.LINEAR)
    for t, v in points:
        assert cs.set(int(t * Gst.SECOND), float(v))
    binding = GstController.DirectControlBinding.new_absolute(obj, prop, cs)
    assert obj.add_control_binding(binding)
    keep += [cs, binding]


def run_chain(chain, x, fuse, split, configure=None, rng=None):
    def conf(p):
        p.get_by_name("c").set_property("chain", chain)
        if configure is not None:
            configure(p)
    res = run_pipeline("fxchain name=c fuse=%s" % ("true" if fuse else "false"), x, RATE,
                       split=split, rng=rng, configure=conf,
                       read_props=[("c", "dispatches"), ("c", "plan")])
    assert_clean(res, frames=x.shape[0])
    return res


CHAIN_BANDS = [dict(type="low-shelf", frequency=90.0, q=0.7071, gain=4.0),
               dict(type="peaking", frequency=700.0, q=1.4, gain=-5.0),
               dict(type="peaking", frequency=3000.0, q=2.0, gain=3.0),
               dict(type="high-shelf", frequency=9000.0, q=0.6, gain=-2.0),
               dict(type="notch", frequency=50.0, q=8.0, gain=0.0)]


def chain_text(bands=CHAIN_BANDS, pre=-2.0):
    return ("fxbutterworth name=bw mode=high-pass cutoff=30 order=4 ! %s"
            % eq_text(bands, pre, name="e"))


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["F64", "F32"])
def test_fused_with_butterworth(dtype):
    """fxbutterworth ! fxeq inside fxchain: one cascade, one dispatch per buffer, equal to the
    unfused chain (two dispatches per buffer) and to scipy. F32 (precision=auto): at least as
    accurate as scipy's float32 sosfilt of the same sections, auto's promise. (Not necessarily as
    the unfused chain: the fused 7 sections in stereo run the sequential float kernels, faster
    there, where the two stages alone, 2 and 5 sections, run the chunked ones, which carry their
    state in double: docs/cascade.md, "Which kernel".)"""
    x = noise(RATE // 2, 2, seed=11, dtype=dtype)
    sizes = split_sizes(x.shape[0], ("random", 1, 3000), rng=np.random.default_rng(3))
    fused = run_chain(chain_text(), x, True, sizes)
    unfused = run_chain(chain_text(), x, False, sizes)
    plan = fused.props[("c", "plan")]
    assert plan.count("\n") == 0 and "cascade bw+e: 7 sections" in plan, plan
    assert fused.props[("c", "dispatches")] == fused.buffers_in
    assert unfused.props[("c", "dispatches")] == 2 * unfused.buffers_in
    sos = np.vstack([ss.butter(4, 30, "highpass", fs=RATE, output="sos"),
                     eq_sos(CHAIN_BANDS, RATE)])
    ref = ss.sosfilt(sos, x.astype(np.float64), axis=0) * 10 ** (-2 / 20)
    if dtype == np.float64:
        e = rel_err(fused.y, unfused.y)
        record("fxeq fused vs unfused F64", "rel_err", e, "bw+eq")
        assert e <= FUSED_TOL, "fused vs unfused %.3g" % e
        assert rel_err(fused.y, ref) <= F64_TOL
    else:
        s32 = ser_db(ss.sosfilt(sos.astype(np.float32), x, axis=0) * np.float32(10 ** (-2 / 20)),
                     ref)
        record("fxeq fused F32 SER over scipy float32", "dB", ser_db(fused.y, ref) - s32, "bw+eq")
        assert ser_db(fused.y, ref) >= s32, (ser_db(fused.y, ref), s32)


def band_change_at(k, changes):
    """At input buffer k, sets (element name, band index, property, value) on the bands."""
    def configure(p):
        els = [(p.get_by_name(n).get_child_by_index(i), prop, v) for n, i, prop, v in changes]
        count = [0]

        def probe(pad, info):
            if count[0] == k:
                for band, prop, v in els:
                    band.set_property(prop, v)
            count[0] += 1
            return Gst.PadProbeReturn.OK
        p.get_by_name("fx_test_src").get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER,
                                                                     probe)
    return configure


def max_step(y):
    return float(np.max(np.abs(np.diff(y, axis=0))))


def sine(frames, freq=440.0, amplitude=0.5):
    t = np.arange(frames) / RATE
    return np.repeat((amplitude * np.sin(2 * np.pi * freq * t))[:, None], 2, axis=1)


@pytest.mark.parametrize("changes", [
    [("e", 2, "gain", -6.0)],
    [("e", 1, "frequency", 2500.0), ("e", 3, "type", "peaking")],
    [("e", 4, "q", 0.5), ("e", 0, "gain", -3.0)],
], ids=["gain", "frequency+type", "q+gain"])
def test_band_change_in_fused_chain(changes):
    """A band property set while PLAYING on a fused fxeq reaches the fused cascade: the output
    equals the unfused chain's with the same change (F64 <= 1e-12), settles on the new design
    (after 0.3 s: the 50 Hz notch with q 8 rings for about 50 ms per neper) and does not
    click."""
    k = 10
    x = noise(int(0.8 * RATE), 2, seed=13)
    fused = run_chain(chain_text(), x, True, 480, configure=band_change_at(k, changes))
    unfused = run_chain(chain_text(), x, False, 480, configure=band_change_at(k, changes))
    assert fused.props[("c", "dispatches")] == fused.buffers_in
    e = rel_err(fused.y, unfused.y)
    record("fxeq fused band change vs unfused", "rel_err", e, str(changes))
    assert e <= FUSED_TOL, "fused vs unfused %.3g" % e
    new = [dict(b) for b in CHAIN_BANDS]
    for _, i, prop, v in changes:
        new[i][prop] = v
    sos = np.vstack([ss.butter(4, 30, "highpass", fs=RATE, output="sos"), eq_sos(new, RATE)])
    ref = ss.sosfilt(sos, x, axis=0) * 10 ** (-2 / 20)
    n1 = k * 480 + int(0.3 * RATE)
    assert rel_err(fused.y[n1:], ref[n1:]) <= 1e-6, "did not settle on the new design"
    old = ss.sosfilt(np.vstack([ss.butter(4, 30, "highpass", fs=RATE, output="sos"),
                                eq_sos(CHAIN_BANDS, RATE)]), x, axis=0) * 10 ** (-2 / 20)
    assert rel_err(fused.y[:k * 480], old[:k * 480]) <= F64_TOL
    assert max_step(fused.y[k * 480:n1]) <= 2.0 * max(max_step(old), max_step(ref))


def test_band_change_equals_chain_of_biquads():
    """Every band is a stage of its own in the cascade: a change of band0 (a low shelf, +4 -> -6
    dB) in front of a 50 Hz notch with q 8 behaves exactly as in a chain of separate fxbiquad
    elements (<= 1e-12 over the whole output, the transition included). (With all bands in one
    engine stage the notch's state had to be re-derived by a 4096-frame warm-up, too short for
    its poles: measured a transient 6.8x the signal.)"""
    k = 10
    x = noise(RATE // 2, 2, seed=13)
    biquads = " ! ".join("fxbiquad name=q%d type=%s frequency=%r q=%r gain=%r"
                         % (i, b["type"], b["frequency"], b["q"], b["gain"])
                         for i, b in enumerate(CHAIN_BANDS))
    eq = run_pipeline(eq_text(CHAIN_BANDS, name="e"), x, RATE, split=480,
                      configure=band_change_at(k, [("e", 0, "gain", -6.0)]))
    assert_clean(eq, frames=x.shape[0])

    def conf(p):
        p.get_by_name("c").set_property("chain", biquads)
        q0, count = p.get_by_name("q0"), [0]

        def probe(pad, info):
            if count[0] == k:
                q0.set_property("gain", -6.0)
            count[0] += 1
            return Gst.PadProbeReturn.OK
        p.get_by_name("fx_test_src").get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER,
                                                                     probe)
    chain = run_pipeline("fxchain name=c fuse=false", x, RATE, split=480, configure=conf)
    assert_clean(chain, frames=x.shape[0])
    e = rel_err(eq.y, chain.y)
    record("fxeq change vs chain of fxbiquad", "rel_err", e, "band0 gain 4 -> -6")
    assert e <= FUSED_TOL, "fxeq vs separate biquads: %.3g" % e
    old = reference(CHAIN_BANDS, 0.0, x, RATE)
    assert max_step(eq.y[k * 480:]) <= 2.0 * max_step(old)


def test_band_change_standalone_no_click():
    """A 440 Hz sine; a low-pass band moved 3 kHz -> 15 kHz and a peaking band at 6 kHz moved
    from +9 to -9 dB while PLAYING: no click (largest step within 2x the input's); then the new
    design."""
    bands = [dict(type="low-pass", frequency=3000.0, q=0.7071, gain=0.0),
             dict(type="peaking", frequency=6000.0, q=1.0, gain=9.0)]
    x = sine(RATE // 2)
    changes = [("fx", 0, "frequency", 15000.0), ("fx", 1, "gain", -9.0)]
    res = run_pipeline(eq_text(bands), x, RATE, split=256, configure=band_change_at(20, changes))
    assert_clean(res, frames=x.shape[0])
    ratio = max_step(res.y[int(0.05 * RATE):]) / max_step(x)
    record("fxeq band change click", "ratio", ratio, "lp 3k->15k, pk +9->-9")
    assert ratio <= 2.0, "largest step %.2fx the input's" % ratio
    new = [dict(bands[0], frequency=15000.0), dict(bands[1], gain=-9.0)]
    tail = slice(int(0.3 * RATE), None)
    assert rel_err(res.y[tail], reference(new, 0.0, x, RATE)[tail]) <= 1e-6


RAMP = [(0, 0), (0.2, 0), (0.4, 9), (1.0, 9)]


@pytest.mark.parametrize("fused", [False, True], ids=["standalone", "fused"])
def test_controller_on_band(fused):
    """An InterpolationControlSource on band1::gain (0 -> 9 dB between 0.2 s and 0.4 s) and one on
    pre-gain: before the ramp the output is the 0 dB design, after it the 9 dB design; inside
    fxchain the fused output equals the unfused one during the ramp too."""
    bands = [dict(type="high-pass", frequency=40.0, q=0.7071, gain=0.0),
             dict(type="peaking", frequency=1200.0, q=1.0, gain=0.0),
             dict(type="high-shelf", frequency=6000.0, q=0.7071, gain=-3.0)]
    x = noise(int(0.6 * RATE), 2, seed=23)
    keep = []

    def ramps(p):
        e = p.get_by_name("e")
        attach_ramp(e.get_child_by_name("band1"), "gain", RAMP, keep)
        attach_ramp(e, "pre-gain", [(0, -1), (0.25, -1), (0.35, -4), (1.0, -4)], keep)

    if fused:
        chain = "fxbutterworth name=bw cutoff=15000 order=2 ! " + eq_text(bands, -1.0, name="e")
        res = run_chain(chain, x, True, 480, configure=ramps)
        unf = run_chain(chain, x, False, 480, configure=ramps)
        assert res.props[("c", "dispatches")] == res.buffers_in
        e = rel_err(res.y, unf.y)
        record("fxeq controller fused vs unfused", "rel_err", e, "band1::gain ramp")
        assert e <= FUSED_TOL, "fused vs unfused during the ramp: %.3g" % e
        pre = ss.butter(2, 15000, fs=RATE, output="sos")
    else:
        res = run_pipeline(eq_text(bands, -1.0, name="e"), x, RATE, split=480, configure=ramps)
        assert_clean(res, frames=x.shape[0])
        pre = np.zeros((0, 6))

    def design(g1, pg):
        b = [dict(bands[0]), dict(bands[1], gain=g1), dict(bands[2])]
        return ss.sosfilt(np.vstack([pre, eq_sos(b, RATE)]), x, axis=0) * 10 ** (pg / 20)

    n1, n2 = int(0.19 * RATE), int(0.5 * RATE)
    assert rel_err(res.y[:n1], design(0.0, -1.0)[:n1]) <= F64_TOL
    assert rel_err(res.y[n2:], design(9.0, -4.0)[n2:]) <= 1e-6, "controller did not reach"
    mid = slice(int(0.29 * RATE), int(0.31 * RATE))
    assert rel_err(res.y[mid], design(0.0, -1.0)[mid]) > 1e-3
    assert rel_err(res.y[mid], design(9.0, -4.0)[mid]) > 1e-3


def test_controller_on_band_frequency_no_click():
    """A 440 Hz sine; band0 (low-pass) frequency ramped 2 kHz -> 12 kHz by a controller: no click."""
    x = sine(RATE)
    keep = []
    bands = [dict(type="low-pass", frequency=2000.0, q=0.7071, gain=0.0),
             dict(type="peaking", frequency=8000.0, q=1.0, gain=6.0)]
    res = run_pipeline(eq_text(bands, name="e"), x, RATE, split=256,
                       configure=lambda p: attach_ramp(
                           p.get_by_name("e").get_child_by_name("band0"), "frequency",
                           [(0, 2000), (0.2, 2000), (0.8, 12000), (1, 12000)], keep))
    assert_clean(res, frames=RATE)
    ratio = max_step(res.y[int(0.1 * RATE):]) / max_step(x)
    record("fxeq controller click", "ratio", ratio, "band0 lp 2k->12k")
    assert ratio <= 2.0, "largest step %.2fx the input's" % ratio


@pytest.mark.parametrize("fused", [False, True], ids=["standalone", "fused"])
def test_band_properties_from_another_thread(fused):
    """Band and pre-gain properties set from another thread while buffers stream (DESIGN:
    properties may be set from any thread): no error, no deadlock, finite output; once the thread
    has stopped and the changes have settled, the output is that of the final settings."""
    import threading
    bands = [dict(type="peaking", frequency=500.0, q=1.0, gain=3.0),
             dict(type="low-shelf", frequency=120.0, q=0.7071, gain=-2.0),
             dict(type="low-pass", frequency=9000.0, q=0.7071, gain=0.0)]
    x = noise(RATE, 2, seed=31)
    stop, started = threading.Event(), threading.Event()

    def hammer(e):
        rng = np.random.default_rng(5)
        b = [e.get_child_by_index(i) for i in range(3)]
        started.set()
        while not stop.is_set():
            b[0].set_property("gain", float(rng.uniform(-6, 6)))
            b[1].set_property("frequency", float(rng.uniform(60, 300)))
            b[2].set_property("q", float(rng.uniform(0.5, 1.0)))
            e.set_property("pre-gain", float(rng.uniform(-3, 0)))
        for band, prop, v in ((b[0], "gain", 3.0), (b[1], "frequency", 120.0),
                              (b[2], "q", 0.7071)):
            band.set_property(prop, v)
        e.set_property("pre-gain", 0.0)

    def configure(p):
        e = p.get_by_name("e")
        t = threading.Thread(target=hammer, args=(e,), daemon=True)
        count = [0]

        def probe(pad, info):
            if count[0] == 0:
                t.start()
                started.wait(5)
            if count[0] == 40:  # of 100 buffers: stop, the final values apply from here on
                stop.set()
                t.join(5)
            count[0] += 1
            return Gst.PadProbeReturn.OK
        p.get_by_name("fx_test_src").get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER,
                                                                     probe)
    if fused:
        res = run_chain("fxbutterworth name=bw cutoff=15000 order=2 ! " + eq_text(bands, name="e"),
                        x, True, 480, configure=configure)
        pre = ss.butter(2, 15000, fs=RATE, output="sos")
    else:
        res = run_pipeline(eq_text(bands, name="e"), x, RATE, split=480, configure=configure)
        assert_clean(res, frames=x.shape[0])
        pre = np.zeros((0, 6))
    stop.set()
    assert np.all(np.isfinite(res.y))
    ref = ss.sosfilt(np.vstack([pre, eq_sos(bands, RATE)]), x, axis=0)
    tail = slice(int(0.7 * RATE), None)
    assert rel_err(res.y[tail], ref[tail]) <= 1e-6


# ------------------------------------------------------------------------------------------------
# bad input


def _bus_text(entries):
    return " ".join("%s %s" % (m, d or "") for _, m, d in entries)


@pytest.mark.parametrize("btype", ["peaking", "low-pass", "notch"])
def test_frequency_at_or_above_nyquist_is_an_error(btype):
    bands = [dict(type="peaking", frequency=1000.0 * (i + 1), q=1.0, gain=2.0) for i in range(5)]
    bands[3] = dict(type=btype, frequency=24000.0, q=1.0, gain=3.0)
    res = run_pipeline(eq_text(bands), noise(4800, 2, seed=3), RATE, expect_error=True,
                       timeout=10)
    assert res.errors, "no error for band3::frequency=24000 at 48 kHz"
    text = _bus_text(res.errors)
    assert "band3::frequency" in text and "24000" in text, text


def test_change_to_invalid_while_playing_is_refused():
    """band2::frequency set to 30 kHz at 48 kHz while PLAYING: a warning naming it; the previous
    coefficients stay."""
    bands = [dict(type="peaking", frequency=300.0, q=1.0, gain=4.0),
             dict(type="low-shelf", frequency=100.0, q=0.7071, gain=-3.0),
             dict(type="peaking", frequency=5000.0, q=2.0, gain=6.0)]
    x = noise(12000, 2, seed=8)
    res = run_pipeline(eq_text(bands), x, RATE, split=1000,
                       configure=band_change_at(3, [("fx", 2, "frequency", 30000.0)]))
    assert not res.errors, res.error_text()
    assert res.warnings and "band2::frequency" in _bus_text(res.warnings), res.warning_text()
    assert rel_err(res.y, reference(bands, 0.0, x, RATE)) <= F64_TOL


def test_out_of_range_values_are_refused():
    el = Gst.ElementFactory.make("fxeq", None)
    band = el.get_child_by_name("band0")
    assert band.find_property("q").minimum > 0.0
    for q in (0.0, -1.0):
        with pytest.warns(Warning, match="'q'"):
            band.set_property("q", q)
        assert band.get_property("q") == pytest.approx(0.7071)
    for n in (0, 33):
        with pytest.warns(Warning, match="num-bands"):
            el.set_property("num-bands", n)
        assert el.get_property("num-bands") == 10
    with pytest.warns(Warning, match="'q'"):
        Gst.util_set_object_arg(band, "q", "0")


def test_num_bands_change_while_playing_is_refused_and_ready_works():
    """num-bands set while PLAYING: a warning, the bands stay; set in READY: the next run uses the
    new count."""
    bands = [dict(type="peaking", frequency=1000.0, q=1.0, gain=5.0),
             dict(type="high-pass", frequency=100.0, q=0.7071, gain=0.0)]
    x = noise(9600, 2, seed=4)

    def configure(p):
        e = p.get_by_name("fx")
        count = [0]

        def probe(pad, info):
            if count[0] == 2:
                e.set_property("num-bands", 1)
            count[0] += 1
            return Gst.PadProbeReturn.OK
        p.get_by_name("fx_test_src").get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER,
                                                                     probe)
    res = run_pipeline(eq_text(bands), x, RATE, split=960, configure=configure,
                       read_props=[("fx", "num-bands")])
    assert not res.errors, res.error_text()
    assert "num-bands" in _bus_text(res.warnings), res.warning_text()
    assert res.props[("fx", "num-bands")] == 2
    assert rel_err(res.y, reference(bands, 0.0, x, RATE)) <= F64_TOL

    # in READY: applies
    pipeline = Gst.parse_launch("appsrc name=src ! %s ! fakesink" % eq_text(bands))
    pipeline.set_state(Gst.State.READY)
    e = pipeline.get_by_name("fx")
    e.set_property("num-bands", 1)
    assert e.get_property("num-bands") == 1
    pipeline.set_state(Gst.State.NULL)


@pytest.mark.parametrize("rate,channels,split", [
    (1, 1, 1), (8000, 1, 1), (384000, 2, "random"), (48000, 1024, 7), (22050, 3, 1)])
def test_odd_shapes_do_not_crash(rate, channels, split):
    """1-frame buffers, 1024 channels, rates from 1 Hz to 384 kHz: the default EQ (10 bands at
    0 dB) runs at any rate; acting bands inside (0, rate/2) match the cookbook."""
    frames = 64 if channels > 100 else (40 if rate == 1 else 2000)
    x = noise(frames, channels, seed=rate % 97)
    res = run_pipeline("fxeq", x, rate, split=split)
    assert_clean(res, frames=frames)
    assert rel_err(res.y, x) <= 1e-15
    # frequencies are bounded at 100 kHz (as the stock equalizer's): at 384 kHz the low-pass sits
    # there, 0.26 of the rate
    bands = [dict(type="low-pass", frequency=min(rate * 0.3, 100000.0), q=0.7071, gain=0.0),
             dict(type="peaking", frequency=rate * 0.05, q=1.0, gain=6.0),
             dict(type="high-shelf", frequency=rate * 0.2, q=0.5, gain=-4.0)]
    res = run_pipeline(eq_text(bands, 3.0), x, rate, split=split)
    assert_clean(res, frames=frames)
    assert rel_err(res.y, reference(bands, 3.0, x, rate)) <= F64_TOL


def test_nonfinite_input_warns_and_recovers():
    bands = [dict(type="peaking", frequency=1000.0, q=1.0, gain=6.0)]
    x = noise(9600, 2, seed=12)
    x[1000, 0] = np.nan
    res = run_pipeline(eq_text(bands), x, RATE, split=960)
    assert not res.errors and len(res.warnings) == 1 and "NaN" in res.warning_text()
    # the NaN is processed as a 0: one sample lost, nothing reset
    assert np.all(np.isfinite(res.y))
    x0 = np.where(np.isfinite(x), x, 0.0)
    assert rel_err(res.y, reference(bands, 0.0, x0, RATE)) <= F64_TOL


def test_gobject_types():
    """The band type enum and the band object are registered GTypes (documented plugin API)."""
    assert GObject.type_from_name("GstFxEqBandType") != 0
    assert GObject.type_from_name("GstFxEqBand") != 0
