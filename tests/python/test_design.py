"""libfxdsp filter design (dsp/design.c) against scipy.signal, computed at test time.

- IIR designs, orders 1-8: white noise through scipy.signal.sosfilt with our sections and with
  scipy's own design (butter/cheby1/cheby2/ellip, output='sos'); relative error <= 1e-6. The
  section layout (order and pole/zero pairing of zpk2sos) must be scipy's too.
- IIR designs, orders 9-32 (elliptic 9-24): magnitude responses agree within 0.01 dB wherever
  scipy's is above -100 dB.
- Linkwitz-Riley against the squared Butterworth; RBJ cookbook biquads against the cookbook
  formulas written out in cookbook.py (independently of the C code).

Run: FXDSP_LIB=<build>/tests/libfxdsp_py.so python3 -m pytest -q tests/python/test_design.py
"""

import numpy as np
import pytest
import scipy.signal as ss

import fxdsp
from cookbook import rbj

try:  # worst-case figures in the terminal summary, when the shared conftest provides it
    from conftest import record
except Exception:  # pragma: no cover
    def record(family, metric, value, case):
        pass

RATES = (44100, 48000, 96000)
MODES = ("lowpass", "highpass", "bandpass", "bandstop")
FAMILY_PARAMS = {
    # family -> list of extra positional parameters (rp / rs) as scipy takes them
    "butter": [()],
    "cheby1": [(0.5,), (1.0,), (3.0,)],
    "cheby2": [(40.0,), (60.0,)],
    "ellip": [(0.5, 60.0), (0.1, 40.0), (1.0, 80.0)],
}
MAX_ORDER = {"butter": 32, "cheby1": 32, "cheby2": 32, "ellip": 24}

REL_TOL = 1e-6
DB_TOL = 0.01
FLOOR_DB = -100.0


def edges(mode, fs):
    if mode in ("lowpass", "highpass"):
        return [20.0, 100.0, 1000.0, 5000.0, 0.45 * fs]
    return [(20.0, 200.0), (300.0, 3000.0), (1000.0, 0.45 * fs)]


def scipy_design(family, order, params, wn, mode, fs):
    return getattr(ss, family)(order, *params, wn, btype=mode, output="sos", fs=fs)


def our_design(family, order, params, wn, mode, fs):
    return getattr(fxdsp, family)(order, *params, wn, mode, fs)


@pytest.fixture(scope="module")
def noise():
    return np.random.default_rng(20240611).standard_normal(4096)


def rel_err(y, ref):
    return float(np.linalg.norm(y - ref) / np.linalg.norm(ref))


# ------------------------------------------------------------------------------------------------
# orders 1-8: filtered noise and section layout


@pytest.mark.parametrize("fs", RATES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("family", list(FAMILY_PARAMS))
def test_low_orders_filter_like_scipy(family, mode, fs, noise):
    worst, worst_case, failures = 0.0, None, []
    for order in range(1, 9):
        for wn in edges(mode, fs):
            for params in FAMILY_PARAMS[family]:
                case = (family, mode, order, wn, fs, params)
                ref = scipy_design(family, order, params, wn, mode, fs)
                ours = our_design(family, order, params, wn, mode, fs)
                assert ours.shape == ref.shape, case
                e = rel_err(ss.sosfilt(ours, noise), ss.sosfilt(ref, noise))
                if e > worst:
                    worst, worst_case = e, case
                if not e <= REL_TOL:
                    failures.append((case, e))
                # scipy's layout: same section order and pairing (denominators carry no gain;
                # later numerators neither, the gain sits in the first section)
                np.testing.assert_allclose(ours[:, 3:], ref[:, 3:], rtol=0, atol=1e-9,
                                           err_msg=str(case))
                np.testing.assert_allclose(ours[1:, :3], ref[1:, :3], rtol=0, atol=1e-9,
                                           err_msg=str(case))
                scale = np.max(np.abs(ref[0, :3]))
                np.testing.assert_allclose(ours[0, :3], ref[0, :3], rtol=0, atol=1e-9 * scale,
                                           err_msg=str(case))
    record("design-" + family, "rel(sosfilt)", worst, worst_case)
    assert not failures, "relative error above %g: %s" % (REL_TOL, failures[:5])


# ------------------------------------------------------------------------------------------------
# orders 9-32 (elliptic 9-24): magnitude responses


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("family", list(FAMILY_PARAMS))
def test_high_orders_magnitude_like_scipy(family, mode):
    worst, worst_case, failures = 0.0, None, []
    for order in range(9, MAX_ORDER[family] + 1):
        fs = RATES[order % 3]
        f = np.geomspace(1.0, 0.4999 * fs, 1024)
        # every parameter set, each on a share of the orders (the first set on all of them)
        sets = FAMILY_PARAMS[family]
        chosen = [sets[0]] + ([sets[1 + order % (len(sets) - 1)]] if len(sets) > 1 else [])
        for wn in edges(mode, fs):
            for params in chosen:
                case = (family, mode, order, wn, fs, params)
                ref = scipy_design(family, order, params, wn, mode, fs)
                ours = our_design(family, order, params, wn, mode, fs)
                assert ours.shape == ref.shape, case
                for s in ours:
                    assert fxdsp.sos_is_stable(s), case
                _, hr = ss.sosfreqz(ref, f, fs=fs)
                _, ho = ss.sosfreqz(ours, f, fs=fs)
                with np.errstate(divide="ignore"):
                    dr = 20 * np.log10(np.abs(hr))
                    do = 20 * np.log10(np.abs(ho))
                m = dr > FLOOR_DB
                if not m.any():
                    continue
                d = float(np.max(np.abs(dr[m] - do[m])))
                if d > worst:
                    worst, worst_case = d, case
                if not d <= DB_TOL:
                    failures.append((case, d))
    record("design-" + family, "db(high order)", worst, worst_case)
    assert not failures, "magnitude differs by more than %g dB: %s" % (DB_TOL, failures[:5])


@pytest.mark.parametrize("family", list(FAMILY_PARAMS))
def test_max_order_stable(family):
    """The largest order at extreme edges: finite, stable, passband gain right."""
    order = 64 if family != "ellip" else 24
    params = FAMILY_PARAMS[family][0]
    for fs in (48000, 96000):
        for mode in MODES:
            for wn in ([20.0, 0.49 * fs] if mode in ("lowpass", "highpass")
                       else [(20.0, 40.0), (20.0, 0.49 * fs), (0.4 * fs, 0.49 * fs)]):
                sos = our_design(family, order, params, wn, mode, fs)
                assert np.all(np.isfinite(sos))
                assert sos.shape[0] == (order if mode in ("bandpass", "bandstop")
                                        else (order + 1) // 2)
                for s in sos:
                    assert fxdsp.sos_is_stable(s)
                poles = np.concatenate([np.roots(s[3:]) for s in sos])
                assert np.max(np.abs(poles)) < 1.0


# ------------------------------------------------------------------------------------------------
# response evaluation and parameter errors


def test_sos_response_matches_sosfreqz():
    sos = fxdsp.ellip(6, 0.5, 60, (300.0, 3000.0), "bandpass", 48000)
    f = np.linspace(0, 23999, 300)
    _, h = ss.sosfreqz(sos, f, fs=48000)
    ours = fxdsp.sos_response(sos, f, 48000)
    np.testing.assert_allclose(ours, h, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("kw, status", [
    (dict(order=0), "FX_ERR_ORDER"),
    (dict(order=65), "FX_ERR_ORDER"),
    (dict(rate=0.0), "FX_ERR_RATE"),
    (dict(cutoff=24000.0), "FX_ERR_CUTOFF"),
    (dict(cutoff=0.0), "FX_ERR_CUTOFF"),
    (dict(mode="bandpass", lower=3000.0, upper=300.0), "FX_ERR_BAND"),
    (dict(mode="bandpass", lower=0.0, upper=300.0), "FX_ERR_LOWER"),
    (dict(mode="bandstop", lower=300.0, upper=24000.0), "FX_ERR_UPPER"),
    (dict(family="cheby1", ripple=0.0), "FX_ERR_RIPPLE"),
    (dict(family="cheby2", attenuation=-1.0), "FX_ERR_ATTENUATION"),
    (dict(family="ellip", ripple=1.0, attenuation=1.0), "FX_ERR_ATTENUATION"),
    (dict(family="ellip", order=25, ripple=0.5, attenuation=60.0), "FX_ERR_ORDER"),
])
def test_bad_parameters(kw, status):
    args = dict(family="butter", mode="lowpass", order=4, rate=48000.0, cutoff=1000.0,
                lower=300.0, upper=3000.0, ripple=0.5, attenuation=40.0)
    args.update(kw)
    spec = fxdsp.make_spec(**args)
    assert fxdsp.STATUS_NAMES[fxdsp.spec_check(spec)] == status
    st, sos = fxdsp.design_iir_status(spec)
    assert fxdsp.STATUS_NAMES[st] == status and sos is None
    assert fxdsp.status_string(st)


# ------------------------------------------------------------------------------------------------
# Linkwitz-Riley


@pytest.mark.parametrize("order", range(2, 17, 2))
def test_linkwitz_riley_is_butterworth_squared(order, noise):
    worst = 0.0
    for fs in RATES:
        for fc in (20.0, 80.0, 1000.0, 5000.0, 0.45 * fs):
            half = order // 2
            b_lp = ss.butter(half, fc, "lowpass", output="sos", fs=fs)
            b_hp = ss.butter(half, fc, "highpass", output="sos", fs=fs)
            lp = fxdsp.linkwitz_riley("lowpass", order, fc, fs)
            hp = fxdsp.linkwitz_riley("highpass", order, fc, fs)
            assert lp.shape == (half, 6) and hp.shape == (half, 6)
            sign = -1.0 if half % 2 == 1 else 1.0
            f = np.geomspace(1.0, 0.4999 * fs, 512)
            _, hb_lp = ss.sosfreqz(b_lp, f, fs=fs)
            _, hb_hp = ss.sosfreqz(b_hp, f, fs=fs)
            _, h_lp = ss.sosfreqz(lp, f, fs=fs)
            _, h_hp = ss.sosfreqz(hp, f, fs=fs)
            for h, ref in ((h_lp, hb_lp ** 2), (h_hp, sign * hb_hp ** 2)):
                m = np.abs(ref) > 1e-5  # above -100 dB
                e = np.max(np.abs(h[m] - ref[m]) / np.abs(ref[m]))
                worst = max(worst, e)
                assert e < 1e-6, (order, fc, fs, e)
            # low-pass + high-pass is an all-pass
            np.testing.assert_allclose(np.abs(h_lp + h_hp), 1.0, atol=1e-8)
            # filtered noise equals the Butterworth run twice
            y = ss.sosfilt(lp, noise)
            ref = ss.sosfilt(np.vstack([b_lp, b_lp]), noise)
            assert rel_err(y, ref) < REL_TOL
            y = ss.sosfilt(hp, noise)
            ref = sign * ss.sosfilt(np.vstack([b_hp, b_hp]), noise)
            assert rel_err(y, ref) < REL_TOL
    record("design-linkwitz-riley", "rel(vs butter^2)", worst, order)


# ------------------------------------------------------------------------------------------------
# RBJ Audio-EQ-Cookbook biquads (formulas as published, written out in cookbook.py)


def cookbook(kind, f0, q, gain_db, fs):
    """The cookbook biquad as one scipy SOS row [b0, b1, b2, 1, a1, a2]."""
    b, a = rbj(kind, f0, q, gain_db, fs)
    return np.concatenate([b, a])[np.newaxis, :]


@pytest.mark.parametrize("kind", fxdsp.BIQUAD_TYPES)
def test_biquad_matches_cookbook(kind, noise):
    worst = 0.0
    for fs in RATES:
        for f0 in (20.0, 100.0, 1000.0, 8000.0, 0.45 * fs):
            for q in (0.1, 0.5, 0.7071, 2.0, 10.0):
                for g in (-18.0, -3.0, 0.0, 6.0, 18.0):
                    ours = fxdsp.biquad(kind, f0, q, g, fs)
                    ref = cookbook(kind, f0, q, g, fs)
                    scale = np.max(np.abs(ref))
                    d = np.max(np.abs(ours - ref)) / scale
                    worst = max(worst, d)
                    assert d < 1e-12, (kind, f0, q, g, fs, ours, ref)
                    assert fxdsp.sos_is_stable(ours[0])
                    y, yr = ss.sosfilt(ours, noise), ss.sosfilt(ref, noise)
                    assert rel_err(y, yr) < 1e-9, (kind, f0, q, g, fs)
    record("design-biquad", "rel(coeffs)", worst, kind)


def test_biquad_bad_parameters():
    def name(st):
        return fxdsp.STATUS_NAMES[st]
    assert name(fxdsp.biquad_status("peaking", 24000.0, 1.0, 0.0, 48000)[0]) == "FX_ERR_FREQUENCY"
    assert name(fxdsp.biquad_status("peaking", 0.0, 1.0, 0.0, 48000)[0]) == "FX_ERR_FREQUENCY"
    assert name(fxdsp.biquad_status("peaking", 1000.0, 0.0, 0.0, 48000)[0]) == "FX_ERR_Q"
    assert name(fxdsp.biquad_status("peaking", 1000.0, float("nan"), 0.0, 48000)[0]) == "FX_ERR_Q"
    assert name(fxdsp.biquad_status("low-shelf", 1000.0, 1.0, float("inf"), 48000)[0]) == \
        "FX_ERR_GAIN"
    assert name(fxdsp.biquad_status(99, 1000.0, 1.0, 0.0, 48000)[0]) == "FX_ERR_TYPE"


def test_sos_from_row():
    st, s = fxdsp.sos_from_row([2.0, 4.0, 2.0, 2.0, -1.0, 0.5])
    assert st == 0
    np.testing.assert_array_equal(s, [[1.0, 2.0, 1.0, 1.0, -0.5, 0.25]])
    assert fxdsp.STATUS_NAMES[fxdsp.sos_from_row([1, 0, 0, 0, 0, 0])[0]] == "FX_ERR_A0"
    assert fxdsp.STATUS_NAMES[fxdsp.sos_from_row([1, 0, 0, 1, 0, 1.0])[0]] == "FX_ERR_UNSTABLE"
    assert fxdsp.STATUS_NAMES[fxdsp.sos_from_row([1, np.nan, 0, 1, 0, 0])[0]] == \
        "FX_ERR_NONFINITE"
