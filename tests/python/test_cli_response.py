"""Tests of `gst-fx response` and of the IIR elements' `designed-sections` property.

References: scipy.signal.butter / cheby1 (designs) and scipy.signal.sosfreqz (responses), the RBJ
cookbook biquad written out in tests/python/cookbook.py.
"""

import csv
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import scipy.signal

from cookbook import rbj
from conftest import run_pipeline
from test_tool import gst_fx, lines

RATE = 48000
NS = "{http://www.w3.org/2000/svg}"
CHAIN = ("fxbutterworth name=hp mode=high-pass cutoff=80 order=4 ! fxgain name=trim gain=-6 ! "
         "fxbiquad name=bell type=peaking frequency=1000 q=2 gain=6 ! "
         "fxbutterworth name=lp mode=low-pass cutoff=12000 order=8")


def reference_stages(rate):
    hp = scipy.signal.butter(4, 80, "highpass", fs=rate, output="sos")
    b, a = rbj("peaking", 1000, 2, 6, rate)
    bell = np.hstack([np.asarray(b) / a[0], np.asarray(a) / a[0]])[None, :]
    lp = scipy.signal.butter(8, 12000, "lowpass", fs=rate, output="sos")
    trim = np.array([[10 ** (-6 / 20), 0, 0, 1, 0, 0]])
    return {"hp": hp, "trim": trim, "bell": bell, "lp": lp}


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, data = rows[0], np.array([[float(v) for v in r] for r in rows[1:]])
    return header, data


def complex_from(mag_db, phase_deg):
    return 10 ** (mag_db / 20) * np.exp(1j * np.deg2rad(phase_deg))


@pytest.mark.parametrize("rate", [48000, 44100])
def test_csv_agrees_with_scipy_sosfreqz(tmp_path, rate):
    out = tmp_path / "r.csv"
    r = gst_fx("response", "--chain", CHAIN, "--rate", str(rate), "-o", str(out),
               "--points", "300")
    assert r.returncode == 0, r.stderr
    header, data = read_csv(out)
    names = ["hp", "trim", "bell", "lp", "chain"]
    assert header == ["frequency_hz"] + [n + s for n in names
                                         for s in (":magnitude_db", ":phase_deg")], header
    f = data[:, 0]
    assert len(f) == 300
    np.testing.assert_allclose(f, np.geomspace(10, rate / 2, 300), rtol=1e-12)
    stages = reference_stages(rate)
    stages["chain"] = np.vstack([stages[n] for n in names[:-1]])
    for i, name in enumerate(names):
        _, h = scipy.signal.sosfreqz(stages[name], worN=f, fs=rate)
        mag, phase = data[:, 1 + 2 * i], data[:, 2 + 2 * i]
        got = complex_from(mag, phase)
        ok = np.abs(h) > 1e-9  # away from the zeros at Nyquist
        assert ok.sum() > 250
        err = np.abs(got[ok] - h[ok]) / np.abs(h[ok])
        assert err.max() < 1e-8, (name, err.max())
        # the magnitude column itself, in dB
        np.testing.assert_allclose(mag[ok], 20 * np.log10(np.abs(h[ok])), atol=1e-7)
        # the phase is unwrapped: no jump larger than 180 degrees between neighbours
        assert np.all(np.abs(np.diff(phase)) < 180), name
        # and equals numpy's unwrap of the reference up to a multiple of 360 degrees
        ref = np.rad2deg(np.unwrap(np.angle(h)))
        shift = np.round((phase[0] - ref[0]) / 360) * 360
        np.testing.assert_allclose(phase[ok], (ref + shift)[ok], atol=1e-6)


def test_frequency_range_options(tmp_path):
    out = tmp_path / "r.csv"
    r = gst_fx("response", "--chain", "fxbiquad name=q", "--rate", "16000", "-o", str(out),
               "--points", "5", "--min-frequency", "100", "--max-frequency", "4000")
    assert r.returncode == 0, r.stderr
    _, data = read_csv(out)
    np.testing.assert_allclose(data[:, 0], np.geomspace(100, 4000, 5), rtol=1e-12)


def test_svg_has_axes_labels_and_legend(tmp_path):
    out = tmp_path / "r.svg"
    r = gst_fx("response", "--chain", CHAIN, "--rate", str(RATE), "-o", str(out))
    assert r.returncode == 0, r.stderr
    root = ET.parse(out).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == ns + "svg"
    texts = [t.text for t in root.iter(ns + "text")]
    for label in ("Magnitude (dB)", "Phase (degrees)", "Frequency (Hz)", "1k", "10k", "100"):
        assert label in texts, label
    for stage in ("hp (fxbutterworth)", "trim (fxgain)", "bell (fxbiquad)",
                  "lp (fxbutterworth)", "chain (all stages)"):
        assert stage in texts, stage
    # one curve per stage and the chain, in each of the two panels
    assert len(list(root.iter(ns + "polyline"))) >= 2 * 5


def test_png(tmp_path):
    out = tmp_path / "r.png"
    r = gst_fx("response", "--chain", CHAIN, "--rate", str(RATE), "-o", str(out))
    if r.returncode == 2 and "librsvg" in r.stderr:
        pytest.skip("gst-fx built without librsvg (PNG output off)")
    assert r.returncode == 0, r.stderr
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 10000


@pytest.mark.parametrize("args,code,needle", [
    (("response", "--rate", "48000", "-o", "x.csv"), 2, "--chain"),
    (("response", "--chain", "fxbiquad"), 2, "-o"),
    (("response", "--chain", "fxbiquad", "-o", "x.txt"), 2, ".svg"),
    (("response", "--chain", "fxbiquad", "-o", "x.csv", "--rate", "0"), 2, "--rate"),
    (("response", "--chain", "fxbiquad", "-o", "x.csv", "--points", "1"), 2, "--points"),
    (("response", "--chain", "fxbiquad", "-o", "x.csv", "--max-frequency", "30000"), 2,
     "frequenc"),
    (("response", "--chain", "fxbiquad", "-o", "x.csv", "--bogus"), 2, "bogus"),
    (("response", "--chain", "fxbiquad", "-o", "x.svg", "--db-range", "12,-60"), 2, "--db-range"),
    (("response", "--chain", "fxbiquad", "-o", "x.svg", "--db-range", "-60"), 2, "--db-range"),
    (("response", "--chain", "fxbiquad", "-o", "x.svg", "--db-range", "a,b"), 2, "--db-range"),
])
def test_bad_arguments(args, code, needle):
    r = gst_fx(*args)
    assert r.returncode == code, (args, r.stdout, r.stderr)
    err = r.stderr.splitlines()
    assert len(err) == 2 and needle in err[0], r.stderr
    assert err[1] == "Try 'gst-fx response --help'.", r.stderr


def test_stages_without_linear_response_are_left_out(tmp_path):
    """Nonlinear or time-variant stages (and elements without a known response) are left out of
    the plot and of the chain curve, named in one line on stderr; the linear ones are drawn."""
    out = tmp_path / "x.csv"
    r = gst_fx("response", "--chain",
               "fxbiquad name=q ! fxcompressor name=comp ! audioconvert name=conv ! "
               "fxreverb name=rv", "-o", str(out), "--points", "50")
    assert r.returncode == 0, r.stderr
    err = lines(r.stderr)
    assert len(err) == 1, err
    for needle in ("comp (fxcompressor)", "conv (audioconvert)", "rv (fxreverb)"):
        assert needle in err[0], err
    assert "q (" not in err[0], err
    header, data = read_csv(out)
    assert header == ["frequency_hz", "q:magnitude_db", "q:phase_deg", "chain:magnitude_db",
                      "chain:phase_deg"], header
    np.testing.assert_array_equal(data[:, 1:3], data[:, 3:5])
    # the plot says so too
    svg = tmp_path / "x.svg"
    r = gst_fx("response", "--chain", "fxbiquad name=q ! fxlimiter name=lim", "-o", str(svg))
    assert r.returncode == 0, r.stderr
    notes = [t.text for t in ET.parse(svg).getroot().iter(NS + "text")
             if t.get("class") == "note"]
    assert notes == ["Not drawn: lim (fxlimiter)"], notes
    # nothing left to draw: an error
    r = gst_fx("response", "--chain", "fxcompressor name=comp", "-o", str(out))
    assert r.returncode == 1
    err = lines(r.stderr)
    assert len(err) == 1 and "comp (fxcompressor)" in err[0], err


def test_bad_chain_and_output(tmp_path):
    r = gst_fx("response", "--chain", "fxbiquad frequency=30000", "--rate", "48000", "-o",
               str(tmp_path / "x.csv"))
    assert r.returncode == 1
    err = lines(r.stderr)
    assert len(err) == 1 and "frequency" in err[0], err
    r = gst_fx("response", "--chain", "fxfir cutoff=30000", "--rate", "48000", "-o",
               str(tmp_path / "x.csv"))
    assert r.returncode == 1
    err = lines(r.stderr)
    assert len(err) == 1 and "cutoff" in err[0], err
    r = gst_fx("response", "--chain", "fxbiquad", "-o", str(tmp_path / "no" / "x.csv"))
    assert r.returncode == 1
    assert len(lines(r.stderr)) == 1, r.stderr


def test_help_mentions_every_option():
    r = gst_fx("response", "--help")
    assert r.returncode == 0
    for opt in ("--chain", "--rate", "--output", "--points", "--min-frequency",
                "--max-frequency", "--title", "--db-range"):
        assert opt in r.stdout, opt


# ------------------------------------------------------------------------------------------------
# the property the tool reads


def test_designed_sections_property(fx):
    x = np.zeros((64, 1), np.float32)
    res = run_pipeline("fxchebyshev1 name=c mode=high-pass cutoff=300 order=5 ripple=1", x,
                       rate=44100, read_props=[("c", "designed-sections")])
    text = res.props[("c", "designed-sections")]
    rows = np.array([[float(v) for v in row.split()] for row in text.split(";")])
    ref = scipy.signal.cheby1(5, 1, 300, "highpass", fs=44100, output="sos")
    assert rows.shape == ref.shape
    # same filter (section order/pairing may differ): compare the responses
    w = np.geomspace(5, 22000, 200)
    _, h = scipy.signal.sosfreqz(rows, worN=w, fs=44100)
    _, h_ref = scipy.signal.sosfreqz(ref, worN=w, fs=44100)
    assert np.max(np.abs(h - h_ref) / np.abs(h_ref)) < 1e-9


def test_designed_sections_null_before_negotiation(fx):
    from gi.repository import Gst
    e = Gst.ElementFactory.make("fxbutterworth", None)
    assert e.get_property("designed-sections") is None


# ------------------------------------------------------------------------------------------------
# dsp/response.c directly (through the ctypes build of libfxdsp)


def _response_lib():
    import ctypes
    import fxdsp
    lib = fxdsp.lib()
    D = ctypes.POINTER(ctypes.c_double)
    lib.fx_response_logspace.argtypes = [ctypes.c_double, ctypes.c_double, ctypes.c_int, D]
    lib.fx_response_phase_deg.argtypes = [D, D, ctypes.c_int, D]
    lib.fx_response_magnitude_db.argtypes = [D, D, ctypes.c_int, D]
    for f in (lib.fx_response_logspace, lib.fx_response_phase_deg,
              lib.fx_response_magnitude_db):
        f.restype = None
    return lib, D


def test_dsp_logspace_and_unwrap_match_numpy():
    lib, D = _response_lib()
    out = np.zeros(257)
    lib.fx_response_logspace(3.0, 20000.0, 257, out.ctypes.data_as(D))
    np.testing.assert_allclose(out, np.geomspace(3.0, 20000.0, 257), rtol=1e-13)
    assert out[0] == 3.0 and out[-1] == 20000.0
    # a phase that winds many times, with steps below 180 degrees: unwrap == numpy.unwrap
    rng = np.random.default_rng(5)
    true = np.cumsum(rng.uniform(-170, 170, 2000)) * np.pi / 180
    mag = rng.uniform(0.1, 3, 2000)
    re, im = mag * np.cos(true), mag * np.sin(true)
    ph, db = np.zeros(2000), np.zeros(2000)
    lib.fx_response_phase_deg(re.ctypes.data_as(D), im.ctypes.data_as(D), 2000,
                              ph.ctypes.data_as(D))
    lib.fx_response_magnitude_db(re.ctypes.data_as(D), im.ctypes.data_as(D), 2000,
                                 db.ctypes.data_as(D))
    np.testing.assert_allclose(ph, np.rad2deg(np.unwrap(np.arctan2(im, re))), atol=1e-9)
    np.testing.assert_allclose(ph, np.rad2deg(true - 2 * np.pi * np.round(true[0] / (2 * np.pi))),
                               atol=1e-9)
    np.testing.assert_allclose(db, 20 * np.log10(mag), atol=1e-12)


# ------------------------------------------------------------------------------------------------
# FIR, EQ and delay stages, the chain product


def response_csv(tmp_path, chain, rate=RATE, points=400, extra=()):
    out = tmp_path / "r.csv"
    r = gst_fx("response", "--chain", chain, "--rate", str(rate), "-o", str(out), "--points",
               str(points), *extra)
    assert r.returncode == 0, r.stderr
    assert r.stderr == "", r.stderr
    header, data = read_csv(out)
    cols = {}
    for i, name in enumerate(header[1:]):
        stage, what = name.rsplit(":", 1)
        cols.setdefault(stage, {})[what] = data[:, 1 + i]
    return data[:, 0], cols


def assert_complex_close(col, h, rtol):
    got = complex_from(col["magnitude_db"], col["phase_deg"])
    err = np.abs(got - h)
    assert err.max() <= rtol * np.abs(h).max(), err.max() / np.abs(h).max()


def test_fir_design_agrees_with_scipy_firwin_freqz(tmp_path):
    n = 101
    f, cols = response_csv(
        tmp_path, "fxfir name=lp cutoff=3000 num-taps=%d window=kaiser kaiser-beta=8 ! "
        "fxfir name=bp mode=band-pass lower-frequency=500 upper-frequency=4000 num-taps=64 "
        "window=hann" % n)
    taps = {"lp": scipy.signal.firwin(n, 3000, window=("kaiser", 8), fs=RATE),
            "bp": scipy.signal.firwin(64, [500, 4000], window="hann", pass_zero=False, fs=RATE)}
    for name, t in taps.items():
        _, h = scipy.signal.freqz(t, 1, worN=f, fs=RATE)
        assert_complex_close(cols[name], h, 1e-12)
        ok = np.abs(h) > 1e-5
        np.testing.assert_allclose(cols[name]["magnitude_db"][ok], 20 * np.log10(np.abs(h[ok])),
                                   atol=1e-8)
    # linear phase, unwrapped through the whole band however fast it turns: the passband's phase
    # is the delay of (N - 1) / 2 samples exactly
    ph = cols["lp"]["phase_deg"]
    pb = f < 2000
    np.testing.assert_allclose(ph[pb], -360 * f[pb] * (n - 1) / 2 / RATE, atol=1e-6)
    # and the chain is the product of the two
    _, h = scipy.signal.freqz(np.convolve(taps["lp"], taps["bp"]), 1, worN=f, fs=RATE)
    assert_complex_close(cols["chain"], h, 1e-12)


def test_fir_kernel_agrees_with_freqz(tmp_path):
    rng = np.random.default_rng(11)
    taps = np.round(rng.normal(size=23) * np.exp(-np.arange(23) / 5), 6)  # not symmetric
    kernel = ", ".join(repr(float(t)) for t in taps)
    f, cols = response_csv(tmp_path, 'fxfir name=k kernel="<%s>"' % kernel, rate=44100)
    _, h = scipy.signal.freqz(taps, 1, worN=f, fs=44100)
    assert_complex_close(cols["k"], h, 1e-12)
    # an unwrapped phase: no jump of 180 degrees or more between neighbours
    assert np.all(np.abs(np.diff(cols["k"]["phase_deg"])) < 180)


def test_eq_agrees_with_the_rbj_cookbook(tmp_path):
    bands = [("low-shelf", 100, 0.7071, 3), ("peaking", 1000, 1.4, -4),
             ("high-shelf", 8000, 0.7071, 4), ("notch", 15000, 4, 0)]
    desc = "fxeq name=eq num-bands=%d pre-gain=-1.5 " % len(bands) + " ".join(
        "band%d::type=%s band%d::frequency=%g band%d::q=%g band%d::gain=%g"
        % (i, t, i, fr, i, q, i, g) for i, (t, fr, q, g) in enumerate(bands))
    f, cols = response_csv(tmp_path, desc)
    h = np.full(len(f), 10 ** (-1.5 / 20), complex)
    for t, fr, q, g in bands:
        b, a = rbj(t, fr, q, g, RATE)
        h *= scipy.signal.freqz(b, a, worN=f, fs=RATE)[1]
    ok = np.abs(h) > 1e-6  # away from the notch's zero
    got = complex_from(cols["eq"]["magnitude_db"], cols["eq"]["phase_deg"])
    assert np.max(np.abs(got[ok] - h[ok]) / np.abs(h[ok])) < 1e-9


def echo_reference(f, rate, delay_samples, feedback, mix):
    """(1 - mix) + mix T / (1 - feedback T), T the linearly interpolated tap, as polynomials."""
    i = int(np.floor(delay_samples))
    frac = delay_samples - i
    t = np.zeros(i + 2)
    t[i], t[i + 1] = 1 - frac, frac
    den = -feedback * t
    den[0] += 1
    num = (1 - mix) * den + mix * t
    return scipy.signal.freqz(num, den, worN=f, fs=rate)[1]


def test_delay_agrees_with_its_impulse_response_and_closed_form(tmp_path, fx):
    rate = 48000
    chain = ("fxdelay name=d delay=1.01 feedback=0.5 mix=0.3 ! "
             "fxdelay name=pure delay=2 feedback=0 mix=1 ! "
             "fxdelay name=note bpm=600 note=1/16t feedback=0.2 mix=0.6")
    f, cols = response_csv(tmp_path, chain, rate=rate, points=300)
    # 1.01 ms = 48.48 samples; 1/16 triplet at 600 bpm = 100 / 4 * 2/3 ms = 800 samples
    for name, args in (("d", (48.48, 0.5, 0.3)), ("pure", (96, 0, 1)),
                       ("note", (800, 0.2, 0.6))):
        assert_complex_close(cols[name], echo_reference(f, rate, *args), 1e-9)
    # the pure delay: flat, and its phase is the delay's, unwrapped over the whole band
    np.testing.assert_allclose(cols["pure"]["magnitude_db"], 0, atol=1e-9)
    np.testing.assert_allclose(cols["pure"]["phase_deg"], -360 * f * 96 / rate, atol=1e-6)
    # the element itself: its impulse response, transformed at the same frequencies
    x = np.zeros((4096, 1))
    x[0] = 1
    res = run_pipeline("fxdelay delay=1.01 feedback=0.5 mix=0.3", x, rate=rate)
    y = res.y[:, 0]
    k = np.arange(len(y))
    h = np.exp(-2j * np.pi * np.outer(f, k) / rate) @ y
    assert_complex_close(cols["d"], h, 1e-9)


def test_chain_is_the_sum_of_its_stages_in_db(tmp_path):
    chain = ("fxeq name=eq num-bands=2 band0::gain=4 band0::frequency=200 band1::gain=-3 "
             "band1::frequency=3000 ! fxfir name=fir cutoff=8000 num-taps=31 ! fxgain name=g "
             "gain=-2.5 ! fxdelay name=d delay=0.5 feedback=0.3 mix=0.4 ! "
             "fxelliptic name=el mode=high-pass cutoff=60 order=4 ! volume name=v volume=0.5")
    f, cols = response_csv(tmp_path, chain, points=200)
    names = ["eq", "fir", "g", "d", "el", "v"]
    assert list(cols) == names + ["chain"]
    mags = np.array([cols[n]["magnitude_db"] for n in names])
    ok = np.all(np.isfinite(mags), axis=0)
    np.testing.assert_allclose(cols["chain"]["magnitude_db"][ok], mags[:, ok].sum(axis=0),
                               atol=1e-9)
    np.testing.assert_allclose(cols["g"]["magnitude_db"], -2.5, atol=1e-12)
    np.testing.assert_allclose(cols["v"]["magnitude_db"], 20 * np.log10(0.5), atol=1e-12)
    phases = np.array([cols[n]["phase_deg"] for n in names]).sum(axis=0)
    d = np.deg2rad(cols["chain"]["phase_deg"] - phases)
    np.testing.assert_allclose(np.angle(np.exp(1j * d))[ok], 0, atol=1e-9)


# ------------------------------------------------------------------------------------------------
# the plot: axis ranges and text that fits


EQ4 = ("fxeq name=eq num-bands=3 band0::type=low-shelf band0::frequency=100 band0::gain=3 "
       "band1::frequency=1000 band1::q=1.4 band1::gain=-4 band2::type=high-shelf "
       "band2::frequency=8000 band2::gain=4")


def svg_plot(tmp_path, chain, *extra):
    out = tmp_path / "r.svg"
    r = gst_fx("response", "--chain", chain, "-o", str(out), *extra)
    assert r.returncode == 0, r.stderr
    return ET.parse(out).getroot()


def panel(root, which):
    rect = [e for e in root.iter(NS + "rect") if e.get("id") == which][0]
    ticks = [float(t.text) for t in root.iter(NS + "text") if t.get("class") == which + "-tick"]
    return rect, float(rect.get("data-min")), float(rect.get("data-max")), ticks


def polyline_ys(root, clip):
    ys = []
    for g in root.iter(NS + "g"):
        if g.get("clip-path") == "url(#%s)" % clip:
            for pl in g.iter(NS + "polyline"):
                ys += [float(p.split(",")[1]) for p in pl.get("points").split()]
    return np.array(ys)


def test_magnitude_axis_fits_a_small_eq_curve(tmp_path):
    f, cols = response_csv(tmp_path, EQ4)
    lo, hi = cols["eq"]["magnitude_db"].min(), cols["eq"]["magnitude_db"].max()
    assert -4.01 < lo < -3.9 and 3.9 < hi < 4.01
    root = svg_plot(tmp_path, EQ4)
    rect, vmin, vmax, ticks = panel(root, "magnitude")
    assert vmin < lo and vmax > hi
    assert vmax - vmin <= 20, (vmin, vmax)
    assert min(ticks) <= lo + 2 and max(ticks) >= hi - 2, ticks
    assert all(vmin <= t <= vmax for t in ticks)
    steps = np.diff(sorted(ticks))
    assert 4 <= len(ticks) <= 12 and np.allclose(steps, steps[0]), ticks
    # the curve fills the panel: drawn inside it, over most of its height
    ys = polyline_ys(root, "clip0")
    y0, h = float(rect.get("y")), float(rect.get("height"))
    assert ys.min() >= y0 and ys.max() <= y0 + h
    assert ys.max() - ys.min() > 0.6 * h


def test_magnitude_axis_of_a_deep_stopband_and_db_range(tmp_path):
    chain = "fxbutterworth mode=low-pass cutoff=2000 order=8"
    _, vmin, vmax, ticks = panel(svg_plot(tmp_path, chain), "magnitude")
    assert 0 < vmax <= 10 and -130 <= vmin <= -100, (vmin, vmax)
    assert len(ticks) <= 10
    rect, vmin, vmax, ticks = panel(svg_plot(tmp_path, chain, "--db-range", "-60,12"),
                                    "magnitude")
    assert (vmin, vmax) == (-60, 12)
    assert min(ticks) >= -60 and max(ticks) <= 12 and 0 in ticks and -60 in ticks, ticks
    # a flat gain gets a few dB around it, not a 1 dB or 120 dB axis
    _, vmin, vmax, _ = panel(svg_plot(tmp_path, "fxgain gain=-6"), "magnitude")
    assert vmin < -6 < vmax and 6 <= vmax - vmin <= 12, (vmin, vmax)


def est_width(el):
    """An estimate of a text's width in px: 0.6 em per character (sans-serif)."""
    size = float(el.get("font-size"))
    return len(el.text) * size * (0.66 if el.get("font-weight") == "bold" else 0.6)


def assert_texts_fit(root):
    width, height = float(root.get("width")), float(root.get("height"))
    for el in root.iter(NS + "text"):
        if el.get("transform"):
            continue  # the rotated axis labels
        x, w = float(el.get("x")), est_width(el)
        left = {"start": x, "middle": x - w / 2, "end": x - w}[el.get("text-anchor")]
        assert left >= 0 and left + w <= width, (el.text, left, w, width)
        assert 0 < float(el.get("y")) <= height, el.text
    # tick labels do not overlap their neighbours
    fticks = [e for e in root.iter(NS + "text") if e.get("class") == "frequency-tick"]
    for a, b in zip(fticks, fticks[1:]):
        assert float(a.get("x")) + est_width(a) / 2 < float(b.get("x")) - est_width(b) / 2, (
            a.text, b.text)


def test_long_labels_and_titles_fit(tmp_path):
    names = ["highpass_rumble_filter_for_the_vocal_track", "anti_alias_lowpass_before_decimation"]
    chain = ("fxbutterworth name=%s mode=high-pass cutoff=80 order=8 ! fxchebyshev1 name=%s "
             "mode=low-pass cutoff=10000 order=6 ripple=0.5" % tuple(names))
    root = svg_plot(tmp_path, chain)
    assert_texts_fit(root)
    legend = "".join(e.text for e in root.iter(NS + "text") if e.get("class") == "legend")
    want = "".join("%s (%s)" % lab for lab in [(names[0], "fxbutterworth"),
                                               (names[1], "fxchebyshev1"),
                                               ("chain", "all stages")])
    assert legend.replace(" ", "") == want.replace(" ", "")  # every label whole, maybe wrapped
    title = " ".join(e.text for e in root.iter(NS + "text") if e.get("class") == "title")
    assert title == chain + " at 48000 Hz"  # wrapped at spaces, not cut


def test_many_stages_fit(tmp_path):
    stages = ["fxbiquad name=peaking_band_number_%d type=peaking frequency=%d gain=%d"
              % (i, 30 * 1.6 ** i, 2 - 4 * (i % 2)) for i in range(14)]
    root = svg_plot(tmp_path, " ! ".join(stages))
    assert_texts_fit(root)
    legend = [e for e in root.iter(NS + "text") if e.get("class") == "legend"]
    assert len(legend) >= 15
    ys = [float(e.get("y")) for e in legend]
    assert np.all(np.diff(ys) >= 12)  # one line each, none on top of another
    title = [e.text for e in root.iter(NS + "text") if e.get("class") == "title"]
    assert len(title) == 3 and title[-1].endswith("\u2026"), title  # long: cut at a word
    assert title[-1][:-1].split()[-1] in " ".join(stages).split()


def test_dsp_fir_and_echo_responses_match_freqz():
    import ctypes
    lib, D = _response_lib()
    lib.fx_response_multiply_fir.argtypes = [D, ctypes.c_size_t, D, ctypes.c_int, ctypes.c_double,
                                             D, D]
    lib.fx_response_multiply_fir.restype = ctypes.c_double
    lib.fx_response_multiply_echo.argtypes = [ctypes.c_double] * 3 + [D, ctypes.c_int,
                                                                      ctypes.c_double, D, D]
    lib.fx_response_multiply_echo.restype = ctypes.c_double
    rate = 44100.0
    f = np.geomspace(1, rate / 2, 300)
    rng = np.random.default_rng(3)

    def run(fn, *args):
        re, im = np.ones(len(f)), np.zeros(len(f))
        d = fn(*args, f.ctypes.data_as(D), len(f), rate, re.ctypes.data_as(D),
               im.ctypes.data_as(D))
        return (re + 1j * im) * np.exp(-2j * np.pi * f * d / rate), d

    sym = scipy.signal.firwin(255, 5000, fs=rate)
    for taps, want_d in ((rng.normal(size=3001), None), (sym, 127.0), (np.array([0.5]), 0.0)):
        taps = np.ascontiguousarray(taps)
        h, d = run(lib.fx_response_multiply_fir, taps.ctypes.data_as(D), len(taps))
        _, ref = scipy.signal.freqz(taps, 1, worN=f, fs=rate)
        assert np.max(np.abs(h - ref)) < 1e-11 * np.abs(taps).sum(), len(taps)
        if want_d is not None:
            assert d == want_d
    # the echo, clamped as fx_delay_set clamps: delay >= 1 sample, feedback <= 0.999, mix <= 1
    for args, ref_args in (((10.25, 0.7, 0.4), (10.25, 0.7, 0.4)),
                           ((0.2, 2.0, 1.5), (1.0, 0.999, 1.0))):
        h, _ = run(lib.fx_response_multiply_echo, *args)
        np.testing.assert_allclose(h, echo_reference(f, rate, *ref_args), rtol=1e-9, atol=1e-12)
