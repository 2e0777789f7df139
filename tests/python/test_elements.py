"""gst-fx elements against independent references computed at test time (DESIGN.md section 2).

IIR design elements vs scipy.signal.{butter,cheby1,cheby2,ellip}(..., output='sos') + sosfilt,
Linkwitz-Riley vs the squared Butterworth, fxbiquad vs the RBJ Audio-EQ-Cookbook formulas written
out below, fxsos vs sosfilt, fxgain vs the dB formula. Noise is pushed in random buffer splits.
"""

import zlib

import numpy as np
import pytest
import scipy.signal as ss

from conftest import (filter_through, noise, record, rel_err, require_fx, ser_db)
from cookbook import rbj

pytestmark = pytest.mark.usefixtures("fx")

F64_REL_TOL = 1e-6  # contract: F64 output within 1e-6 of scipy (expected ~1e-10)
DURATION = 0.25  # seconds of noise per case


def case_rng(case_id):
    return np.random.default_rng(zlib.crc32(case_id.encode()))


# ------------------------------------------------------------------------------------------------
# IIR design elements

FAMILIES = {
    # element, highest order in the grid
    "butter": ("fxbutterworth", 32),
    "cheby1": ("fxchebyshev1", 32),
    "cheby2": ("fxchebyshev2", 32),
    "ellip": ("fxelliptic", 24),
}
MODES = ["low-pass", "high-pass", "band-pass", "band-reject"]
SCIPY_BTYPE = {"low-pass": "lowpass", "high-pass": "highpass", "band-pass": "bandpass",
               "band-reject": "bandstop"}
# (rate, cutoff, lower-frequency, upper-frequency)
FREQS = [
    (48000, 1000.0, 500.0, 2000.0),
    (44100, 5000.0, 2000.0, 8000.0),
    (96000, 200.0, 100.0, 400.0),
    (48000, 15000.0, 8000.0, 16000.0),
    (44100, 120.0, 60.0, 250.0),
]
# Family parameters; None = rely on the documented default (cheby1/ellip ripple 0.5 dB,
# cheby2 attenuation 40 dB, ellip attenuation 60 dB).
PARAMS = {
    "butter": [{}],
    "cheby1": [{"ripple": None}, {"ripple": 1.0}, {"ripple": 0.1}],
    "cheby2": [{"attenuation": None}, {"attenuation": 60.0}, {"attenuation": 80.0}],
    "ellip": [{"ripple": None, "attenuation": None}, {"ripple": 0.1, "attenuation": 80.0},
              {"ripple": 1.0, "attenuation": 40.0}],
}
DEFAULTS = {"ripple": 0.5, "attenuation": {"cheby2": 40.0, "ellip": 60.0}}


def iir_case(family, mode, order, freq, params):
    """Returns (gst description, scipy sos, rate, id)."""
    element, _ = FAMILIES[family]
    rate, fc, lo, hi = freq
    props = ["name=fx", "mode=%s" % mode, "order=%d" % order]
    if mode in ("low-pass", "high-pass"):
        props.append("cutoff=%r" % fc)
        wn = fc
        fdesc = "fc%g" % fc
    else:
        props += ["lower-frequency=%r" % lo, "upper-frequency=%r" % hi]
        wn = [lo, hi]
        fdesc = "%g-%g" % (lo, hi)
    rp = params.get("ripple", None)
    rs = params.get("attenuation", None)
    if "ripple" in params:
        if rp is None:
            rp = DEFAULTS["ripple"]
        else:
            props.append("ripple=%r" % rp)
    if "attenuation" in params:
        if rs is None:
            rs = DEFAULTS["attenuation"][family]
        else:
            props.append("attenuation=%r" % rs)
    btype = SCIPY_BTYPE[mode]
    if family == "butter":
        sos = ss.butter(order, wn, btype, fs=rate, output="sos")
    elif family == "cheby1":
        sos = ss.cheby1(order, rp, wn, btype, fs=rate, output="sos")
    elif family == "cheby2":
        sos = ss.cheby2(order, rs, wn, btype, fs=rate, output="sos")
    else:
        sos = ss.ellip(order, rp, rs, wn, btype, fs=rate, output="sos")
    pdesc = "".join("-%s%g" % (k[:3], v) for k, v in
                    (("rp", rp), ("rs", rs)) if v is not None)
    cid = "%s-%s-N%d-r%d-%s%s" % (family, mode, order, rate, fdesc, pdesc)
    return "%s %s" % (element, " ".join(props)), sos, rate, cid


def iir_grid():
    cases = []
    for family, (_, maxorder) in FAMILIES.items():
        orders = [1, 2, 3, 4, 5, 8, 16, maxorder]
        for mi, mode in enumerate(MODES):
            for oi, order in enumerate(orders):
                for k in (0, 1, 3):
                    freq = FREQS[(oi + mi + k) % len(FREQS)]
                    params = PARAMS[family][(oi + k) % len(PARAMS[family])]
                    cases.append((family, mode, order, freq, params))
    return cases


def _ids(cases):
    return [iir_case(*c)[3] for c in cases]


IIR_CASES = iir_grid()


def sosfilt_ld(sos, x):
    """sosfilt in long double (x86-64: 64-bit mantissa): a reference more precise than float64,
    used to tell an ill-conditioned case (where scipy's own float64 sosfilt is inaccurate) from
    an error of ours."""
    return ss.sosfilt(np.asarray(sos, np.longdouble), np.asarray(x, np.longdouble),
                      axis=0).astype(np.float64)


def check_f64(family, cid, y, sos, x):
    """F64 output vs scipy: relative error <= 1e-6 against scipy's float64 sosfilt. Where the
    cascade is ill-conditioned in float64 (scipy's own float64 result is > 1e-7 off the long
    double one), ours must be within 3x of scipy's own float64 error against long double."""
    ref = ss.sosfilt(sos, x, axis=0)
    assert np.all(np.isfinite(ref))
    assert y.dtype == np.float64
    assert np.all(np.isfinite(y)), "non-finite output"
    err = rel_err(y, ref)
    if err <= F64_REL_TOL:
        record(family + " F64", "rel_err", err, cid)
        return
    ref_ld = sosfilt_ld(sos, x)
    cond = rel_err(ref, ref_ld)
    err_ld = rel_err(y, ref_ld)
    record(family + " F64 ill-conditioned", "rel_err_vs_ld", err_ld,
           "%s (scipy f64: %.3g)" % (cid, cond))
    assert cond > 1e-7 and err_ld <= 3.0 * cond, (
        "%s: relative error %.3g vs scipy sosfilt (%.3g vs a long double sosfilt, where "
        "scipy's float64 sosfilt is off by %.3g)" % (cid, err, err_ld, cond))


def check_iir_case(case):
    """One IIR_CASES-style case through its element (F64, random buffer sizes) against scipy."""
    desc, sos, rate, cid = iir_case(*case)
    x = noise(int(DURATION * rate), 2, seed=zlib.crc32(cid.encode()))
    y = filter_through(desc, x, rate, split="random", rng=case_rng(cid))
    check_f64(case[0], cid, y, sos, x)


@pytest.mark.parametrize("case", IIR_CASES, ids=_ids(IIR_CASES))
def test_iir_f64_matches_scipy(case):
    check_iir_case(case)


MAX_ORDER_CASES = [
    ("butter", "low-pass", 64, (48000, 1000.0, None, None), {}),
    ("butter", "high-pass", 64, (44100, 3000.0, None, None), {}),
    ("butter", "band-pass", 64, (96000, 0, 2000.0, 20000.0), {}),
    ("cheby2", "low-pass", 64, (48000, 5000.0, None, None), {"attenuation": 80.0}),
    ("ellip", "band-reject", 24, (48000, 0, 4000.0, 12000.0), {"ripple": 0.1,
                                                              "attenuation": 80.0}),
]


@pytest.mark.parametrize("case", MAX_ORDER_CASES, ids=_ids(MAX_ORDER_CASES))
def test_iir_max_order(case):
    """Order 64 (elliptic 24), the top of the range: stable, finite, equal to scipy."""
    check_iir_case(case)


def f32_grid():
    cases = []
    for family, (_, maxorder) in FAMILIES.items():
        for mi, mode in enumerate(MODES):
            for oi, order in enumerate(sorted({1, 2, 3, 4, 8, 12, maxorder // 2, maxorder})):
                freq = FREQS[(oi + mi + 1) % len(FREQS)]
                params = PARAMS[family][(oi + mi) % len(PARAMS[family])]
                cases.append((family, mode, order, freq, params))
    # the hard cases of DESIGN section 4
    cases.append(("butter", "low-pass", 8, (48000, 50.0, None, None), {}))
    cases.append(("butter", "high-pass", 4, (48000, 20.0, None, None), {}))
    cases.append(("cheby1", "low-pass", 8, (48000, 50.0, None, None), {"ripple": None}))
    cases.append(("ellip", "band-pass", 8, (44100, 0, 40.0, 80.0), {"ripple": None,
                                                                    "attenuation": None}))
    return cases


F32_CASES = f32_grid()


def scipy_f32_ser(sos, x32, ref):
    y = ss.sosfilt(sos.astype(np.float32), x32, axis=0)
    assert y.dtype == np.float32, "scipy did not run in float32"
    return ser_db(y, ref)


@pytest.mark.parametrize("case", F32_CASES, ids=_ids(F32_CASES))
def test_iir_f32_auto_at_least_scipy_float32(case):
    """precision=auto (default): F32 streams are at least as accurate as scipy's float32 sosfilt
    (the same design's sos as float32, x as float32), within 1 dB."""
    desc, sos, rate, cid = iir_case(*case)
    x32 = noise(int(DURATION * rate), 2, seed=zlib.crc32(cid.encode()), dtype=np.float32)
    ref = sosfilt_ld(sos, x32)
    ser_scipy = scipy_f32_ser(sos, x32, ref)
    y = filter_through(desc, x32, rate, split="random", rng=case_rng(cid))
    assert y.dtype == np.float32
    assert np.all(np.isfinite(y)), "non-finite output (scipy float32: %.1f dB)" % ser_scipy
    ser = ser_db(y, ref)
    record(case[0] + " F32 auto", "ser_dB", ser, cid)
    record(case[0] + " F32 auto", "margin_dB", ser - ser_scipy, cid)
    assert ser >= ser_scipy - 1.0, (
        "%s: SER %.1f dB < scipy float32 sosfilt %.1f dB - 1 dB" % (cid, ser, ser_scipy))


HARD_CASES = [
    ("fxbutterworth mode=low-pass cutoff=50 order=8", ss.butter(8, 50, "lowpass", fs=48000,
                                                                 output="sos")),
    ("fxbutterworth mode=high-pass cutoff=20 order=4", ss.butter(4, 20, "highpass", fs=48000,
                                                                  output="sos")),
]


@pytest.mark.parametrize("desc,sos", HARD_CASES, ids=["lp8-50Hz", "hp4-20Hz"])
def test_f32_precision_double_hard_cases(desc, sos):
    """precision=double with float32 I/O reaches >= 140 dB SER (DESIGN section 4: ~149 dB)."""
    rate = 48000
    x32 = noise(int(0.5 * rate), 2, seed=7, dtype=np.float32)
    ref = ss.sosfilt(sos, x32.astype(np.float64), axis=0)
    y = filter_through(desc + " name=fx precision=double", x32, rate, split="random",
                       rng=np.random.default_rng(7))
    ser = ser_db(y, ref)
    record("precision=double F32", "ser_dB", ser, desc)
    assert ser >= 140.0, "%s precision=double: SER %.1f dB < 140 dB" % (desc, ser)
    # and auto must not be worse than scipy float32 on them (covered above), nor fail: compare
    y_auto = filter_through(desc, x32, rate, split="random", rng=np.random.default_rng(8))
    ser_auto = ser_db(y_auto, ref)
    record("precision=auto F32 hard", "ser_dB", ser_auto, desc)
    assert ser_auto >= scipy_f32_ser(sos, x32, ref) - 1.0


def test_f32_precision_single_easy_case():
    """precision=single on a benign filter is about as accurate as scipy's float32 sosfilt."""
    rate = 48000
    sos = ss.butter(2, 3000, "lowpass", fs=rate, output="sos")
    x32 = noise(int(0.25 * rate), 2, seed=9, dtype=np.float32)
    ref = ss.sosfilt(sos, x32.astype(np.float64), axis=0)
    y = filter_through("fxbutterworth mode=low-pass cutoff=3000 order=2 precision=single",
                       x32, rate, split="random", rng=np.random.default_rng(9))
    ser = ser_db(y, ref)
    ser_scipy = scipy_f32_ser(sos, x32, ref)
    record("precision=single F32", "ser_dB", ser, "butter-lp2-3k")
    assert ser >= ser_scipy - 6.0, "SER %.1f dB vs scipy float32 %.1f dB" % (ser, ser_scipy)


# ------------------------------------------------------------------------------------------------
# Linkwitz-Riley


def lr_sos(mode, order, cutoff, rate):
    half = order // 2
    b = ss.butter(half, cutoff, "lowpass" if mode == "low-pass" else "highpass", fs=rate,
                  output="sos")
    sos = np.vstack([b, b])
    if mode == "high-pass" and half % 2 == 1:
        sos[0, :3] *= -1.0  # negated so that LP + HP is an all-pass
    return sos


LR_ORDERS = [2, 4, 6, 8, 10, 12, 14, 16]
LR_RATES = [44100, 48000, 96000]


@pytest.mark.parametrize("mode", ["low-pass", "high-pass"])
@pytest.mark.parametrize("order", LR_ORDERS, ids=["N%d" % n for n in LR_ORDERS])
def test_linkwitz_riley_matches_squared_butterworth(order, mode):
    rate = LR_RATES[order % 3]
    cutoff = [80.0, 1000.0, 2500.0, 6000.0][(order // 2) % 4]
    cid = "lr-%s-N%d-r%d-fc%g" % (mode, order, rate, cutoff)
    x = noise(int(DURATION * rate), 2, seed=zlib.crc32(cid.encode()))
    ref = ss.sosfilt(lr_sos(mode, order, cutoff, rate), x, axis=0)
    y = filter_through("fxlinkwitzriley mode=%s order=%d cutoff=%r" % (mode, order, cutoff),
                       x, rate, split="random", rng=case_rng(cid))
    err = rel_err(y, ref)
    record("linkwitzriley F64", "rel_err", err, cid)
    assert err <= F64_REL_TOL, "%s: relative error %.3g" % (cid, err)


@pytest.mark.parametrize("order", LR_ORDERS, ids=["N%d" % n for n in LR_ORDERS])
def test_linkwitz_riley_sum_is_allpass(order):
    """LP + HP of one cutoff: |FFT(lp + hp)| == |FFT(x)| (x an impulse, long enough to decay)."""
    rate = 48000
    cutoff = 1000.0
    n = 16384
    x = np.zeros((n, 1))
    x[10, 0] = 1.0
    lp = filter_through("fxlinkwitzriley mode=low-pass order=%d cutoff=%r" % (order, cutoff),
                        x, rate, split=1000)
    hp = filter_through("fxlinkwitzriley mode=high-pass order=%d cutoff=%r" % (order, cutoff),
                        x, rate, split=1000)
    s = (lp + hp)[:, 0]
    assert np.max(np.abs(s[-200:])) < 1e-9, "impulse response did not decay"
    mag = np.abs(np.fft.rfft(s)) / np.abs(np.fft.rfft(x[:, 0]))
    dev = float(np.max(np.abs(mag - 1.0)))
    record("linkwitzriley LP+HP", "rel_mag_dev", dev, "N%d" % order)
    assert dev <= 1e-6, "LP+HP magnitude deviates from flat by %.3g (N=%d)" % (dev, order)
    # and neither part alone is flat (guards against a trivial pass-through)
    mag_lp = np.abs(np.fft.rfft(lp[:, 0]))
    assert mag_lp[-1] < 1e-3 and abs(mag_lp[0] - 1.0) < 1e-6


# ------------------------------------------------------------------------------------------------
# fxbiquad: RBJ Audio-EQ-Cookbook


BIQUAD_TYPES = ["low-pass", "high-pass", "band-pass", "band-pass-peak", "notch", "all-pass",
                "peaking", "low-shelf", "high-shelf"]
# (rate, frequency, q, gain dB)
BIQUAD_PARAMS = [
    (48000, 1000.0, 0.7071, 6.0),
    (44100, 120.0, 4.0, -9.0),
    (96000, 12000.0, 0.4, 12.0),
]


@pytest.mark.parametrize("params", BIQUAD_PARAMS,
                         ids=["r%d-f%g-q%g-g%g" % p for p in BIQUAD_PARAMS])
@pytest.mark.parametrize("btype", BIQUAD_TYPES)
def test_biquad_matches_rbj_cookbook(btype, params):
    rate, f0, q, gain = params
    cid = "biquad-%s-r%d-f%g-q%g-g%g" % (btype, rate, f0, q, gain)
    x = noise(int(DURATION * rate), 2, seed=zlib.crc32(cid.encode()))
    b, a = rbj(btype, f0, q, gain, rate)
    ref = ss.lfilter(b, a, x, axis=0)
    y = filter_through("fxbiquad type=%s frequency=%r q=%r gain=%r" % (btype, f0, q, gain),
                       x, rate, split="random", rng=case_rng(cid))
    err = rel_err(y, ref)
    record("biquad F64", "rel_err", err, cid)
    assert err <= F64_REL_TOL, "%s: relative error %.3g vs RBJ cookbook" % (cid, err)


def test_biquad_defaults_are_butterworth_lowpass():
    """Defaults type=low-pass frequency=1000 q=0.7071: RBJ low-pass with those values."""
    rate = 48000
    x = noise(12000, 2, seed=21)
    b, a = rbj("low-pass", 1000.0, 0.7071, 0.0, rate)
    y = filter_through("fxbiquad", x, rate)
    assert rel_err(y, ss.lfilter(b, a, x, axis=0)) <= F64_REL_TOL


@pytest.mark.parametrize("btype", ["peaking", "low-shelf", "high-shelf", "band-pass",
                                   "band-pass-peak"])
def test_biquad_f32(btype):
    rate, f0, q, gain = 48000, 2000.0, 1.5, -6.0
    x32 = noise(12000, 2, seed=3, dtype=np.float32)
    b, a = rbj(btype, f0, q, gain, rate)
    ref = ss.lfilter(b, a, x32.astype(np.float64), axis=0)
    y = filter_through("fxbiquad type=%s frequency=%r q=%r gain=%r" % (btype, f0, q, gain),
                       x32, rate)
    assert y.dtype == np.float32
    ser = ser_db(y, ref)
    record("biquad F32", "ser_dB", ser, btype)
    y_sp = ss.sosfilt(np.concatenate([b, a])[None, :].astype(np.float32), x32, axis=0)
    assert ser >= ser_db(y_sp, ref) - 1.0


# ------------------------------------------------------------------------------------------------
# fxsos and fxgain


def sos_string(rows):
    return "; ".join(" ".join(repr(float(v)) for v in r) for r in rows)


def test_sos_rows_normalised_by_a0():
    rate = 48000
    base = ss.butter(4, 2000, "lowpass", fs=rate, output="sos")
    peq = rbj("peaking", 300.0, 2.0, 5.0, rate)
    rows = np.vstack([base, np.concatenate(peq)[None, :]])
    # scale rows by a0 != 1 (the filter is unchanged once normalised)
    scales = np.array([2.5, 1.0, -0.75])
    unnorm = rows * scales[:, None]
    x = noise(int(0.25 * rate), 2, seed=31)
    ref = ss.sosfilt(rows, x, axis=0)
    desc = 'fxsos sections="%s"' % sos_string(unnorm)
    y = filter_through(desc, x, rate, split="random", rng=np.random.default_rng(31))
    err = rel_err(y, ref)
    record("sos F64", "rel_err", err, "butter4+peq, a0 scaled")
    assert err <= 1e-9, "relative error %.3g" % err


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["F64", "F32"])
def test_sos_ellip_high_order(dtype):
    rate = 44100
    sos = ss.ellip(10, 0.2, 70, [300, 3000], "bandpass", fs=rate, output="sos")
    x = noise(int(0.25 * rate), 2, seed=32, dtype=dtype)
    ref = ss.sosfilt(sos, x.astype(np.float64), axis=0)
    y = filter_through('fxsos sections="%s"' % sos_string(sos), x, rate, split="random",
                       rng=np.random.default_rng(32))
    assert y.dtype == dtype
    if dtype == np.float64:
        err = rel_err(y, ref)
        record("sos F64", "rel_err", err, "ellip10 band")
        assert err <= F64_REL_TOL
    else:
        ser = ser_db(y, ref)
        record("sos F32 auto", "ser_dB", ser, "ellip10 band")
        assert ser >= scipy_f32_ser(sos, x, ref) - 1.0


@pytest.mark.parametrize("gain", [0.0, -6.0, 3.5, -40.0])
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["F64", "F32"])
def test_gain(gain, dtype):
    rate = 48000
    x = noise(9600, 2, seed=41, dtype=dtype, amplitude=0.9)
    y = filter_through("fxgain gain=%r" % gain, x, rate)
    ref = x.astype(np.float64) * 10.0 ** (gain / 20.0)
    assert y.dtype == dtype
    tol = 1e-12 if dtype == np.float64 else 1e-6
    err = rel_err(y, ref)
    record("gain", "rel_err", err, "%g dB %s" % (gain, np.dtype(dtype).name))
    assert err <= tol


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["F64", "F32"])
def test_gain_clip(dtype):
    rate = 48000
    x = noise(9600, 2, seed=42, dtype=dtype, amplitude=0.9)
    g = 10.0 ** (12.0 / 20.0)
    y = filter_through("fxgain gain=12 clip=true", x, rate)
    ref = np.clip(x.astype(np.float64) * g, -1.0, 1.0)
    assert np.max(np.abs(y)) <= 1.0
    assert np.mean(np.abs(y) == 1.0) > 0.3  # most samples clip at +12 dB
    tol = 1e-12 if dtype == np.float64 else 1e-6
    assert rel_err(y, ref) <= tol
    # without clip: values beyond full scale pass
    y2 = filter_through("fxgain gain=12 clip=false", x, rate)
    assert np.max(np.abs(y2)) > 2.0
    assert rel_err(y2, x.astype(np.float64) * g) <= tol


def test_fx_elements_are_registered():
    """The plugin must be found; a missing plugin fails (never skips)."""
    require_fx()


# ------------------------------------------------------------------------------------------------
# channel counts (interleaving, SIMD lanes) and arithmetic choices

CHANNELS = [1, 3, 8, 9, 16, 33]


@pytest.mark.parametrize("channels", CHANNELS, ids=["%dch" % c for c in CHANNELS])
def test_channels_f64(channels):
    rate = 44100
    sos = ss.ellip(6, 0.5, 60, [400, 4000], "bandpass", fs=rate, output="sos")
    x = noise(8820, channels, seed=channels)
    y = filter_through("fxelliptic mode=band-pass order=6 lower-frequency=400 "
                       "upper-frequency=4000", x, rate, split="random",
                       rng=np.random.default_rng(channels))
    assert y.shape == x.shape
    ref = ss.sosfilt(sos, x, axis=0)
    for c in range(channels):  # per channel: a swapped or shared channel state shows here
        err = rel_err(y[:, c], ref[:, c])
        record("channels F64", "rel_err", err, "%d ch, ch %d" % (channels, c))
        assert err <= F64_REL_TOL, "channel %d of %d: %.3g" % (c, channels, err)


@pytest.mark.parametrize("precision", ["auto", "single", "double"])
@pytest.mark.parametrize("channels", CHANNELS, ids=["%dch" % c for c in CHANNELS])
def test_channels_f32(channels, precision):
    rate = 48000
    sos = ss.butter(4, 2500, "lowpass", fs=rate, output="sos")
    x32 = noise(9600, channels, seed=channels, dtype=np.float32)
    ref = sosfilt_ld(sos, x32)
    y = filter_through("fxbutterworth order=4 cutoff=2500 precision=%s" % precision, x32, rate,
                       split="random", rng=np.random.default_rng(channels))
    assert y.shape == x32.shape and y.dtype == np.float32
    ser_scipy = scipy_f32_ser(sos, x32, ref)
    margin = 6.0 if precision == "single" else 1.0
    for c in range(channels):
        ser = ser_db(y[:, c], ref[:, c])
        record("channels F32 " + precision, "ser_dB", ser, "%d ch, ch %d" % (channels, c))
        assert ser >= ser_scipy - margin, "channel %d of %d: %.1f dB (scipy float32 %.1f dB)" % (
            c, channels, ser, ser_scipy)
    if precision == "double":
        assert ser_db(y, ref) >= 140.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_gain_unity_passthrough_zeroes_nonfinite(dtype, bad):
    """fxgain at 0 dB is in passthrough, yet a NaN/Inf sample still becomes 0 (issue 14 item 6):
    the output equals the input with 0 in that place, bit for bit, and one warning is posted."""
    from conftest import run_pipeline

    x = case_rng("gain-unity-%s-%s" % (dtype.__name__, bad)).standard_normal((4800, 2))
    x = (0.5 * x).astype(dtype)
    x[1234, 1] = bad
    expected = x.copy()
    expected[1234, 1] = 0
    res = run_pipeline("fxgain name=fx gain=0", x, rate=48000, split=480)
    assert not res.errors, res.error_text()
    assert res.y.shape == expected.shape
    assert np.array_equal(res.y, expected)
    assert len(res.warnings) == 1, res.warning_text()
