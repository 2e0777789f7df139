"""fxcompressor, fxgate and fxlimiter against reference implementations written here in numpy
(DESIGN section 2, issue 7 item 6).

The references follow the published algorithms, not the C code: the static gain computers are
Giannoulis, Massberg and Reiss (JAES 2012) eq. (4) and its mirror image for the expander, the
RMS detector is scipy.signal.lfilter of x^2, the limiter's window minimum comes from
numpy's sliding_window_view and its moving average from np.convolve.

Time-constant convention (documented in the elements): a one-pole with alpha = exp(-1/(tau*rate))
on the gain in dB, so after a step of the static gain the gain has covered 1 - 1/e of the step
after tau = attack (or release) seconds.
"""

import math
import subprocess
import sys

import numpy as np
import pytest
import scipy.signal as ss

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

from conftest import (_caps_for, assert_clean, record, rel_err, require_fx,  # noqa: E402
                      run_pipeline)

DYN = ("fxcompressor", "fxgate", "fxlimiter")


@pytest.fixture(autouse=True)
def _need_dyn():
    require_fx(*DYN)


# ------------------------------------------------------------------------------------------------
# references


def comp_curve(xdb, T, R, W):
    """Compressor output level (dB) for input level xdb: Giannoulis et al. 2012, eq. (4)."""
    xdb = np.asarray(xdb, float)
    y = np.where(2 * (xdb - T) < -W, xdb, T + (xdb - T) / R)
    if W > 0:
        knee = 2 * np.abs(xdb - T) <= W
        y = np.where(knee, xdb + (1 / R - 1) * (xdb - T + W / 2) ** 2 / (2 * W), y)
    return y


def gate_curve(xdb, T, R, W, floor):
    """Downward expander output level (dB): slope R below T, the mirrored quadratic knee, and a
    gain never below `floor` dB."""
    xdb = np.asarray(xdb, float)
    y = np.where(2 * (xdb - T) > W, xdb, T + (xdb - T) * R)
    if W > 0:
        knee = 2 * np.abs(xdb - T) <= W
        y = np.where(knee, xdb + (1 - R) * (xdb - T - W / 2) ** 2 / (2 * W), y)
    return np.maximum(y, xdb + floor)


def alpha(ms, rate):
    return math.exp(-1.0 / (ms * 1e-3 * rate)) if ms > 0 else 0.0


def lookahead_frames(ms, rate):
    return int(math.floor(ms * 1e-3 * rate + 0.5))


def ref_dynamics(x, rate, kind, threshold, ratio=4.0, knee=0.0, attack=10.0, release=100.0,
                 hold=0.0, makeup=0.0, range_db=-80.0, detector="peak", rms_window=10.0,
                 link=True, look_ahead=0.0):
    """Compressor ('comp') or gate ('gate'); returns the output with the look-ahead tail
    (len(x) + L frames)."""
    x = np.asarray(x, float)
    n, c = x.shape
    L = lookahead_frames(look_ahead, rate)
    xp = np.vstack([x, np.zeros((L, c))])
    if detector == "rms":
        b = alpha(rms_window, rate)
        p2 = ss.lfilter([1 - b], [1, -b], xp ** 2, axis=0)
    else:
        p2 = xp ** 2
    if link:
        p2 = p2.max(axis=1, keepdims=True)
    with np.errstate(divide="ignore"):
        xdb = np.maximum(10 * np.log10(p2), -400.0)
    xdb[p2 <= 1e-40] = -400.0
    if kind == "comp":
        gc = comp_curve(xdb, threshold, ratio, knee) - xdb
    else:
        gc = gate_curve(xdb, threshold, ratio, knee, range_db) - xdb
    aa, ar = alpha(attack, rate), alpha(release, rate)
    hold_n = int(math.floor(hold * 1e-3 * rate + 0.5))
    gs = np.zeros(gc.shape[1])
    cnt = np.zeros(gc.shape[1], int)
    out_g = np.empty_like(gc)
    for i in range(gc.shape[0]):
        for k in range(gc.shape[1]):
            g = gc[i, k]
            if kind == "comp":
                a = aa if g < gs[k] else ar
                gs[k] = a * gs[k] + (1 - a) * g
            elif g >= gs[k]:
                gs[k] = aa * gs[k] + (1 - aa) * g
                cnt[k] = hold_n
            elif cnt[k] > 0:
                cnt[k] -= 1
            else:
                gs[k] = ar * gs[k] + (1 - ar) * g
        out_g[i] = gs
    lin = 10.0 ** ((out_g + makeup) / 20.0)
    delayed = np.vstack([np.zeros((L, c)), x])
    return delayed * lin


def ref_limiter(x, rate, threshold, look_ahead=5.0, release=50.0, link=True, clamp=True):
    x = np.asarray(x, float)
    n, c = x.shape
    L = lookahead_frames(look_ahead, rate)
    T = 10.0 ** (threshold / 20.0)
    xp = np.vstack([x, np.zeros((L, c))])
    peak = np.abs(xp)
    if link:
        peak = peak.max(axis=1, keepdims=True)
    with np.errstate(divide="ignore"):
        gr = np.where(peak > T, T / np.where(peak > 0, peak, 1), 1.0)
    # minimum over frames [i - L, i] (before the start: no constraint = 1)
    padded = np.vstack([np.ones((L, gr.shape[1])), gr])
    m = np.lib.stride_tricks.sliding_window_view(padded, L + 1, axis=0).min(axis=-1)
    a = alpha(release, rate)
    r = np.empty_like(m)
    cur = np.ones(m.shape[1])
    for i in range(m.shape[0]):
        cur = np.where(m[i] < cur, m[i], np.minimum(cur + (1 - a) * (m[i] - cur), m[i]))
        r[i] = cur
    rp = np.vstack([np.ones((L, r.shape[1])), r])
    # moving average over L + 1 frames (np.convolve sums each window on its own: no drift)
    g = np.column_stack([np.convolve(rp[:, k], np.ones(L + 1), "valid") / (L + 1)
                         for k in range(rp.shape[1])])
    y = np.vstack([np.zeros((L, c)), x]) * g
    return np.clip(y, -T, T) if clamp else y


# ------------------------------------------------------------------------------------------------
# signals


def bursty(rate, seconds, channels, seed, lo_db=-50.0, hi_db=6.0):
    """Noise whose level jumps between lo_db and hi_db every ~30 ms (excites attack/release)."""
    rng = np.random.default_rng(seed)
    n = int(rate * seconds)
    seg = max(1, int(0.03 * rate))
    levels = rng.uniform(lo_db, hi_db, size=(n // seg + 1, channels))
    env = np.repeat(10.0 ** (levels / 20.0), seg, axis=0)[:n]
    return rng.standard_normal((n, channels)) * env * 0.5


def dc(levels_db, frames_each, channels=1):
    """A piecewise-constant positive signal: each level (dBFS) for frames_each frames."""
    v = np.concatenate([np.full(frames_each, 10.0 ** (l / 20.0)) for l in levels_db])
    return np.repeat(v[:, None], channels, axis=1)


def props(d):
    return " ".join("%s=%s" % (k, ("true" if v else "false") if isinstance(v, bool) else v)
                    for k, v in d.items())


def run_el(element, p, x, rate, split="random", dtype=np.float64):
    res = run_pipeline("%s name=fx %s" % (element, props(p)), x.astype(dtype), rate, split=split)
    assert_clean(res)
    return res.y.astype(float)


# ------------------------------------------------------------------------------------------------
# compressor / gate vs the reference

COMP_CASES = [
    dict(threshold=-20, ratio=4, knee=0, attack=5, release=50),
    dict(threshold=-24, ratio=8, knee=6, attack=1, release=120, makeup=6),
    dict(threshold=-18, ratio=3, knee=12, attack=10, release=200, detector="rms", rms_window=5),
    dict(threshold=-20, ratio=20, knee=4, attack=0, release=30, link=False),
    dict(threshold=-30, ratio=2.5, knee=6, attack=2, release=80, **{"look-ahead": 3}),
    dict(threshold=-15, ratio=1000, knee=0, attack=0.5, release=20, detector="rms",
         rms_window=2, link=False),
]


def ref_kw(p):
    kw = {k.replace("-", "_"): v for k, v in p.items()}
    if "range" in kw:
        kw["range_db"] = kw.pop("range")
    return kw


@pytest.mark.parametrize("case", range(len(COMP_CASES)))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_compressor_matches_reference(case, dtype):
    p = COMP_CASES[case]
    rate = 48000
    x = bursty(rate, 0.25, 2, seed=10 + case).astype(dtype)
    y = run_el("fxcompressor", p, x, rate, dtype=dtype)
    ref = ref_dynamics(x.astype(float), rate, "comp", **ref_kw(p))
    assert y.shape == ref.shape
    err = np.max(np.abs(y - ref)) / np.max(np.abs(ref))
    record("compressor", "rel_" + np.dtype(dtype).name, err, "case %d" % case)
    assert err < (1e-10 if dtype == np.float64 else 2e-6), err


GATE_CASES = [
    dict(threshold=-30, ratio=10, knee=0, attack=1, hold=10, release=100, range=-60),
    dict(threshold=-25, ratio=2, knee=6, attack=0.2, hold=0, release=40, range=-80),
    dict(threshold=-35, ratio=100, knee=3, attack=2, hold=25, release=60, range=-40,
         detector="rms", rms_window=5, link=False),
    dict(threshold=-28, ratio=4, knee=0, attack=1, hold=5, release=50, range=-30, makeup=3,
         **{"look-ahead": 2}),
]


@pytest.mark.parametrize("case", range(len(GATE_CASES)))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_gate_matches_reference(case, dtype):
    p = GATE_CASES[case]
    rate = 44100
    x = bursty(rate, 0.25, 2, seed=30 + case, lo_db=-70, hi_db=-5).astype(dtype)
    y = run_el("fxgate", p, x, rate, dtype=dtype)
    ref = ref_dynamics(x.astype(float), rate, "gate", **ref_kw(p))
    assert y.shape == ref.shape
    err = np.max(np.abs(y - ref)) / np.max(np.abs(ref))
    record("gate", "rel_" + np.dtype(dtype).name, err, "case %d" % case)
    assert err < (1e-10 if dtype == np.float64 else 2e-6), err


# ------------------------------------------------------------------------------------------------
# static curves, time constants, makeup, detectors (closed forms, no reference loop)


@pytest.mark.parametrize("ratio,knee", [(4.0, 0.0), (4.0, 10.0), (10.0, 6.0), (2.0, 20.0)])
def test_compressor_static_curve_dc(ratio, knee):
    """Steady levels (DC steps, peak detector): the settled gain is the eq. (4) curve, so above
    the knee the output rises 1/ratio dB per input dB and inside the knee it is quadratic."""
    rate, T = 8000, -20.0
    levels = np.arange(-50.0, 0.1, 2.5)
    frames = 400  # 50 ms each; attack 1 ms, release 2 ms settle well within it
    x = dc(levels, frames)
    y = run_el("fxcompressor", dict(threshold=T, ratio=ratio, knee=knee, attack=1, release=2),
               x, rate)
    settled = 20 * np.log10(y[frames - 1::frames, 0] / x[frames - 1::frames, 0])
    expect = comp_curve(levels, T, ratio, knee) - levels
    assert np.max(np.abs(settled - expect)) < 1e-6, (settled, expect)
    above = levels > T + knee / 2 + 1e-9
    slope = np.diff(levels[above] + settled[above]) / np.diff(levels[above])
    assert np.allclose(slope, 1.0 / ratio, atol=1e-6)


def test_compressor_static_curve_sine_rms():
    """Steady sines with the RMS detector: output RMS vs input RMS follows the curve of the
    input's RMS level (ripple of the 10 ms detector at 1 kHz stays below 0.05 dB)."""
    rate, T, R, W = 48000, -24.0, 4.0, 6.0
    t = np.arange(int(0.3 * rate)) / rate
    for level in (-40.0, -27.0, -24.0, -21.0, -10.0, -3.0):
        amp = 10 ** (level / 20) * math.sqrt(2)  # RMS = level dBFS
        x = (amp * np.sin(2 * np.pi * 1000 * t))[:, None]
        y = run_el("fxcompressor", dict(threshold=T, ratio=R, knee=W, attack=1, release=5,
                                        detector="rms", **{"rms-window": 10}), x, rate)
        tail = slice(int(0.2 * rate), None)
        out_db = 10 * np.log10(np.mean(y[tail, 0] ** 2))
        expect = comp_curve(level, T, R, W)
        assert abs(out_db - expect) < 0.05, (level, out_db, expect)


def test_gate_static_curve_and_floor():
    rate, T, R, W, floor = 8000, -40.0, 3.0, 8.0, -30.0
    levels = np.arange(-80.0, -19.0, 2.5)
    frames = 800
    x = dc(levels, frames)
    y = run_el("fxgate", dict(threshold=T, ratio=R, knee=W, attack=0.5, hold=0, release=2,
                              range=floor), x, rate)
    settled = 20 * np.log10(y[frames - 1::frames, 0] / x[frames - 1::frames, 0])
    expect = gate_curve(levels, T, R, W, floor) - levels
    assert np.max(np.abs(settled - expect)) < 1e-6, (settled, expect)
    assert np.isclose(settled.min(), floor, atol=1e-9), "floor not reached"
    # hard gate: a huge ratio closes to exactly the floor just below the threshold
    y = run_el("fxgate", dict(threshold=T, ratio=1000, attack=0.5, hold=0, release=1,
                              range=-50), dc([-41.0], 800), rate)
    assert np.isclose(20 * np.log10(y[-1, 0] / 10 ** (-41 / 20)), -50.0, atol=1e-9)


def first_index(mask):
    idx = np.flatnonzero(mask)
    return int(idx[0]) if idx.size else -1


@pytest.mark.parametrize("attack,release", [(5.0, 50.0), (1.0, 200.0)])
def test_compressor_time_constants(attack, release):
    """DC step up: the gain (dB) covers 1-1/e of its step after `attack`; step down: it covers
    1-1/e of the way back after `release` (frame exact, +-1)."""
    rate, T, R = 48000, -20.0, 4.0
    n1 = int(0.5 * rate)
    x = dc([-40.0, -10.0, -40.0], n1)
    y = run_el("fxcompressor", dict(threshold=T, ratio=R, knee=0, attack=attack,
                                    release=release), x, rate)
    g = 20 * np.log10(y[:, 0] / x[:, 0])
    step = (1 / R - 1) * (-10.0 - T)  # -7.5 dB
    k = first_index(g[n1:2 * n1] <= step * (1 - 1 / math.e))
    # sample i after the step carries (1 - alpha^(i+1)) of it
    assert abs((k + 1) - attack * 1e-3 * rate) <= 1, (k, attack)
    assert abs(g[2 * n1 - 1] - step) < 1e-6
    k = first_index(g[2 * n1:] >= step / math.e)
    assert abs((k + 1) - release * 1e-3 * rate) <= 1, (k, release)


def test_gate_attack_hold_release():
    """Gate: opens with the attack time constant, stays open exactly `hold` ms after the level
    drops, then closes with the release time constant towards the floor."""
    rate, T, floor = 48000, -40.0, -60.0
    attack, hold, release = 2.0, 10.0, 30.0
    n1 = int(0.4 * rate)
    x = dc([-90.0, -20.0, -90.0], n1)
    y = run_el("fxgate", dict(threshold=T, ratio=1000, attack=attack, hold=hold,
                              release=release, range=floor), x, rate)
    g = 20 * np.log10(y[:, 0] / x[:, 0])
    assert abs(g[n1 - 1] - floor) < 1e-3  # closed (it starts open, then releases)
    k = first_index(g[n1:2 * n1] >= floor * (1 / math.e))
    assert abs((k + 1) - attack * 1e-3 * rate) <= 1, k
    # after the drop: flat for hold frames, then falling
    hold_n = int(hold * 1e-3 * rate)
    seg = g[2 * n1:]
    assert np.all(np.abs(seg[:hold_n] - seg[0]) < 1e-12), "gate closed during hold"
    assert seg[hold_n + 1] < seg[0] - 1e-6, "gate did not start closing after hold"
    k = first_index(seg[hold_n:] <= floor * (1 - 1 / math.e))
    assert abs((k + 1) - release * 1e-3 * rate) <= 1, k


def test_makeup_below_threshold():
    rate = 48000
    x = bursty(rate, 0.1, 2, seed=5, lo_db=-60, hi_db=-45)
    y = run_el("fxcompressor", dict(threshold=-20, makeup=7.5), x, rate)
    assert np.allclose(y, x * 10 ** (7.5 / 20), rtol=1e-12, atol=0)


def test_detector_peak_vs_rms():
    """A sine whose peak is 2.7 dB over the threshold but whose RMS is 0.3 dB under it: the peak
    detector compresses, the RMS detector does not (hard knee)."""
    rate, T = 48000, -20.0
    t = np.arange(int(0.2 * rate)) / rate
    amp = 10 ** ((T - 0.3) / 20) * math.sqrt(2)
    x = (amp * np.sin(2 * np.pi * 500 * t))[:, None]
    base = dict(threshold=T, ratio=10, knee=0, attack=0.1, release=500)
    yp = run_el("fxcompressor", dict(base, detector="peak"), x, rate)
    yr = run_el("fxcompressor", dict(base, detector="rms", **{"rms-window": 50}), x, rate)
    tail = slice(int(0.1 * rate), None)
    gp = 10 * np.log10(np.mean(yp[tail] ** 2) / np.mean(x[tail] ** 2))
    gr = 10 * np.log10(np.mean(yr[tail] ** 2) / np.mean(x[tail] ** 2))
    assert gp < -1.0, gp
    assert abs(gr) < 1e-9, gr


def test_link_and_per_channel():
    """Linked: the loud channel's gain applies to the quiet one; unlinked: the quiet channel is
    untouched."""
    rate = 48000
    n = int(0.2 * rate)
    x = np.column_stack([np.full(n, 0.5), np.full(n, 0.01)])
    p = dict(threshold=-20, ratio=4, knee=0, attack=0, release=0)
    yl = run_el("fxcompressor", dict(p, link=True), x, rate)
    yu = run_el("fxcompressor", dict(p, link=False), x, rate)
    g = (1 / 4 - 1) * (20 * math.log10(0.5) + 20)
    assert np.allclose(yl / x, 10 ** (g / 20), rtol=1e-12)
    assert np.allclose(yu[:, 1], x[:, 1], rtol=1e-12)
    assert np.allclose(yu[:, 0] / x[:, 0], 10 ** (g / 20), rtol=1e-12)


# ------------------------------------------------------------------------------------------------
# limiter


LIMITER_CASES = [
    (-1.0, 5.0, 50.0, True),
    (-6.0, 1.5, 20.0, True),
    (-12.0, 10.0, 200.0, False),
    (-3.0, 0.0, 10.0, True),
    (-0.1, 2.0, 0.0, False),
]


@pytest.mark.parametrize("case", range(len(LIMITER_CASES)))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_limiter_ceiling_and_reference(case, dtype):
    thr, la, rel, link = LIMITER_CASES[case]
    rate = 48000
    rng = np.random.default_rng(100 + case)
    x = bursty(rate, 0.3, 2, seed=50 + case, lo_db=-30, hi_db=20)
    # single-sample spikes far above the ceiling
    spikes = rng.integers(0, x.shape[0], 40)
    x[spikes] *= 30.0
    x = x.astype(dtype)
    p = {"threshold": thr, "look-ahead": la, "release": rel, "link": link}
    y = run_el("fxlimiter", p, x, rate, dtype=dtype)
    T = 10 ** (thr / 20)
    ceiling = T if dtype == np.float64 else float(np.float32(T))
    if dtype == np.float32 and np.float32(T) > T:
        ceiling = float(np.nextafter(np.float32(T), np.float32(0)))
    peak = np.max(np.abs(y))
    record("limiter", "margin_db", 20 * np.log10(T / peak), "case %d %s" % (case, dtype.__name__))
    assert peak <= ceiling, (peak, T)
    ref = ref_limiter(x.astype(float), rate, thr, la, rel, link)
    assert y.shape == ref.shape
    err = np.max(np.abs(y - ref)) / T
    record("limiter", "rel_" + np.dtype(dtype).name, err, "case %d" % case)
    assert err < (1e-10 if dtype == np.float64 else 2e-6), err
    # the envelope does the limiting, not the final clamp: the reference without its clamp
    # already stays within rounding of the ceiling
    raw = ref_limiter(x.astype(float), rate, thr, la, rel, link, clamp=False)
    assert np.max(np.abs(raw)) <= T * (1 + 1e-12), np.max(np.abs(raw)) / T - 1


def test_limiter_delay_is_exactly_the_lookahead():
    rate, la = 44100, 4.0
    L = lookahead_frames(la, rate)
    x = bursty(rate, 0.2, 2, seed=7, lo_db=-40, hi_db=-10)  # never reaches the -1 dB ceiling
    y = run_el("fxlimiter", {"threshold": -1.0, "look-ahead": la}, x, rate)
    assert y.shape[0] == x.shape[0] + L
    assert np.all(y[:L] == 0)
    assert np.array_equal(y[L:], x)


def limiter_latency(la, rate):
    """(latency query min, max, number of latency messages) of appsrc ! fxlimiter ! appsink."""
    pipeline = Gst.parse_launch(
        "appsrc name=src format=time ! fxlimiter name=fx look-ahead=%r ! "
        "appsink name=sink sync=false" % la)
    src = pipeline.get_by_name("src")
    src.set_property("caps", _caps_for(np.float32, rate, 2))
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    buf = Gst.Buffer.new_wrapped(np.zeros((256, 2), np.float32).tobytes())
    buf.pts = 0
    src.emit("push-buffer", buf)
    sample = pipeline.get_by_name("sink").emit("try-pull-sample", 5 * Gst.SECOND)
    assert sample is not None
    q = Gst.Query.new_latency()
    assert pipeline.get_by_name("fx").get_static_pad("src").query(q)
    live, lmin, lmax = q.parse_latency()
    n_msgs = 0
    while True:
        msg = bus.pop_filtered(Gst.MessageType.LATENCY)
        if msg is None:
            break
        if msg.src.get_name() == "fx":
            n_msgs += 1
    src.emit("end-of-stream")
    pipeline.set_state(Gst.State.NULL)
    return lmin, lmax, n_msgs


@pytest.mark.parametrize("la,rate", [(5.0, 48000), (1.0, 44100), (0.0, 48000)])
def test_limiter_latency_query_and_message(la, rate):
    lmin, lmax, n_msgs = limiter_latency(la, rate)
    L = lookahead_frames(la, rate)
    expect = Gst.util_uint64_scale_int(L, Gst.SECOND, rate)
    assert lmin == expect, (lmin, expect)
    assert lmax == Gst.CLOCK_TIME_NONE or lmax >= expect
    assert n_msgs == (1 if L > 0 else 0)


def test_lookahead_change_refused_while_playing():
    pipeline = Gst.parse_launch("audiotestsrc is-live=false ! fxlimiter name=fx ! fakesink")
    pipeline.set_state(Gst.State.PLAYING)
    pipeline.get_state(5 * Gst.SECOND)
    fx = pipeline.get_by_name("fx")
    fx.set_property("look-ahead", 20.0)
    assert fx.get_property("look-ahead") == 5.0
    msg = pipeline.get_bus().timed_pop_filtered(2 * Gst.SECOND, Gst.MessageType.WARNING)
    pipeline.set_state(Gst.State.NULL)
    assert msg is not None
    err, dbg = msg.parse_warning()
    assert "look-ahead" in dbg


# ------------------------------------------------------------------------------------------------
# streaming, bad input


@pytest.mark.parametrize("desc", [
    "fxcompressor threshold=-30 ratio=6 knee=6 attack=2 release=40 detector=rms",
    "fxcompressor threshold=-30 ratio=3 look-ahead=1 link=false",
    "fxgate threshold=-30 ratio=10 hold=2 release=20",
    "fxlimiter threshold=-6 look-ahead=2 release=30",
])
def test_chunk_invariance_bitwise(desc):
    rate = 16000
    x = bursty(rate, 0.15, 2, seed=3, lo_db=-60, hi_db=10)
    outs = []
    for split in (None, 1, 7, ("random", 1, 300)):
        res = run_pipeline(desc, x, rate, split=split)
        assert_clean(res)
        outs.append(res.y)
    for y in outs[1:]:
        assert np.array_equal(y, outs[0])


def test_nonfinite_input_warns_and_recovers():
    rate = 48000
    x = bursty(rate, 0.1, 2, seed=9)
    x[100, 0] = np.nan
    x[200, 1] = np.inf
    for el in DYN:
        res = run_pipeline(el, x, rate, split=480)
        assert not res.errors
        assert len(res.warnings) == 1 and "NaN" in res.warnings[0][2], res.warnings
        assert np.all(np.isfinite(res.y))


BAD_VALUES = [
    ("fxcompressor", "ratio", "0.5"),
    ("fxcompressor", "attack", "-1"),
    ("fxcompressor", "knee", "100"),
    ("fxgate", "range", "5"),
    ("fxgate", "hold", "-3"),
    ("fxlimiter", "threshold", "30"),
    ("fxlimiter", "look-ahead", "1000"),
]


@pytest.mark.parametrize("el,prop,value", BAD_VALUES)
def test_out_of_range_property_refused(el, prop, value):
    """gst-launch: the value is refused with a message naming the property; the default stays."""
    code = (
        "import gi, sys\n"
        "gi.require_version('Gst', '1.0')\n"
        "from gi.repository import Gst\n"
        "Gst.init(None)\n"
        "e = Gst.ElementFactory.make(%r)\n"
        "d = e.get_property(%r)\n"
        "Gst.util_set_object_arg(e, %r, %r)\n"
        "print('UNCHANGED' if e.get_property(%r) == d else 'CHANGED')\n" % (el, prop, prop, value,
                                                                            prop))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "UNCHANGED" in r.stdout, r.stdout + r.stderr
    assert "'%s'" % prop in r.stderr, r.stderr


@pytest.mark.parametrize("el", DYN)
@pytest.mark.parametrize("rate,channels,frames,split", [
    (1, 1, 40, 1),
    (1, 2, 7, None),
    (384000, 2, 20000, ("random", 1, 2000)),
    (48000, 1024, 300, ("random", 1, 64)),
])
def test_extreme_shapes_do_not_crash(el, rate, channels, frames, split):
    rng = np.random.default_rng(rate + channels)
    x = rng.standard_normal((frames, channels)) * 0.5
    res = run_pipeline("%s name=fx" % el, x, rate, split=split, timeout=120)
    assert_clean(res)
    L = lookahead_frames(5.0 if el == "fxlimiter" else 0.0, rate)
    assert res.y.shape == (frames + L, channels)
    assert np.all(np.isfinite(res.y))
    if el == "fxlimiter":
        assert np.max(np.abs(res.y)) <= 10 ** (-1 / 20)


def test_inside_fxchain_as_opaque_stages():
    """In fxchain the dynamics elements are opaque stages: same output (tail included) as the
    same elements linked in a pipeline."""
    rate = 48000
    x = bursty(rate, 0.2, 2, seed=77, lo_db=-40, hi_db=12)
    stages = ("fxbutterworth cutoff=5000 ! fxcompressor threshold=-30 ratio=4 ! "
              "fxgate threshold=-45 ! fxlimiter threshold=-6 look-ahead=2")
    a = run_pipeline("fxchain chain=\"%s\"" % stages, x, rate, split=("random", 1, 2000))
    b = run_pipeline(stages, x, rate, split=("random", 1, 2000))
    assert_clean(a)
    assert_clean(b)
    assert a.y.shape == (x.shape[0] + lookahead_frames(2, rate), 2)
    assert np.array_equal(a.y, b.y)
    assert np.max(np.abs(a.y)) <= 10 ** (-6 / 20)


@pytest.mark.parametrize("la", [0.5, 2.0])
def test_limiter_decaying_overload(la):
    """A long decaying overload: the required gain rises every frame for far longer than the
    look-ahead window (the sliding minimum's worst case), then silence and a second burst."""
    rate = 48000
    n = 3000
    env = np.concatenate([np.linspace(4.0, 1.0, n), np.zeros(500), np.linspace(1.0, 3.0, n)])
    sign = np.where(np.arange(env.size) % 2 == 0, 1.0, -1.0)
    x = np.column_stack([env * sign, 0.5 * env * sign])
    p = {"threshold": -6.0, "look-ahead": la, "release": 5.0}
    y = run_el("fxlimiter", p, x, rate, split=("random", 1, 700))
    ref = ref_limiter(x, rate, -6.0, la, 5.0, True)
    T = 10 ** (-6 / 20)
    assert np.max(np.abs(y)) <= T
    assert np.max(np.abs(y - ref)) / T < 1e-10


def test_renegotiation_pushes_the_old_tail():
    """A rate change mid-stream: the look-ahead tail of the first format comes out before the
    new caps, and the second part starts from a fresh state."""
    a = bursty(48000, 0.1, 2, seed=21, lo_db=-30, hi_db=10)
    b = bursty(44100, 0.1, 2, seed=22, lo_db=-30, hi_db=10)
    res = run_pipeline("fxlimiter threshold=-3 look-ahead=3", [(a, 48000), (b, 44100)],
                       split=("random", 1, 900))
    assert not res.errors and not res.warnings
    assert len(res.pieces) == 2
    for piece, x, rate in zip(res.pieces, (a, b), (48000, 44100)):
        ref = ref_limiter(x, rate, -3.0, 3.0, 50.0, True)
        assert piece.shape == ref.shape
        assert np.max(np.abs(piece - ref)) < 1e-10
