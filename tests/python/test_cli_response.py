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
])
def test_bad_arguments(args, code, needle):
    r = gst_fx(*args)
    assert r.returncode == code, (args, r.stdout, r.stderr)
    err = r.stderr.splitlines()
    assert len(err) == 2 and needle in err[0], r.stderr
    assert err[1] == "Try 'gst-fx response --help'.", r.stderr


def test_stage_without_response_and_bad_chain(tmp_path):
    r = gst_fx("response", "--chain", "fxbiquad ! audioconvert name=conv", "-o",
               str(tmp_path / "x.csv"))
    assert r.returncode == 1
    err = lines(r.stderr)
    assert len(err) == 1 and "conv" in err[0] and "audioconvert" in err[0], err
    r = gst_fx("response", "--chain", "fxbiquad frequency=30000", "--rate", "48000", "-o",
               str(tmp_path / "x.csv"))
    assert r.returncode == 1
    err = lines(r.stderr)
    assert len(err) == 1 and "frequency" in err[0], err
    r = gst_fx("response", "--chain", "fxbiquad", "-o", str(tmp_path / "no" / "x.csv"))
    assert r.returncode == 1
    assert len(lines(r.stderr)) == 1, r.stderr


def test_help_mentions_every_option():
    r = gst_fx("response", "--help")
    assert r.returncode == 0
    for opt in ("--chain", "--rate", "--output", "--points", "--min-frequency",
                "--max-frequency", "--title"):
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
