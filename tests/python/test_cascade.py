"""The SOS cascade engine (dsp/cascade.c) against scipy.signal.sosfilt, through ctypes.

Run: FXDSP_LIB=<build>/tests/libfxdsp_py.so python3 -m pytest -q tests/python/test_cascade.py
Sections are designed here with scipy (output='sos'), so these tests do not depend on the design
module.
"""

import re

import numpy as np
import pytest
import scipy.signal as sig

import fxcascade as fc
from fxcascade import noise, random_split, rel_err, ser_db

FS = 48000.0

DESIGNS = {
    "butter8-lp-1k": lambda: sig.butter(8, 1000, "lowpass", fs=FS, output="sos"),
    "butter4-hp-80": lambda: sig.butter(4, 80, "highpass", fs=FS, output="sos"),
    "cheby1-6-bp": lambda: sig.cheby1(6, 0.5, [300, 3000], "bandpass", fs=FS, output="sos"),
    "cheby2-8-lp": lambda: sig.cheby2(8, 40, 5000, "lowpass", fs=FS, output="sos"),
    "ellip-6-bs": lambda: sig.ellip(6, 0.5, 60, [1000, 2000], "bandstop", fs=FS, output="sos"),
    "butter8-lp-50": lambda: sig.butter(8, 50, "lowpass", fs=FS, output="sos"),
}

# the hard cases of the F32 precision requirement
HARD = {
    "butter8-lp-50": lambda: sig.butter(8, 50, "lowpass", fs=FS, output="sos"),
    "butter4-hp-20": lambda: sig.butter(4, 20, "highpass", fs=FS, output="sos"),
}
EASY = {
    "butter4-lp-1k": lambda: sig.butter(4, 1000, "lowpass", fs=FS, output="sos"),
    "cheby1-4-hp-500": lambda: sig.cheby1(4, 1, 500, "highpass", fs=FS, output="sos"),
}

MEASURED = {}


def teardown_module(module):
    if MEASURED:
        print("\nengine SER (dB) vs float64 reference:")
        for k in sorted(MEASURED):
            print("  %-40s %8.2f" % (k, MEASURED[k]))


# ------------------------------------------------------------------------------------------------
# F64 against scipy


@pytest.mark.parametrize("design", sorted(DESIGNS))
@pytest.mark.parametrize("channels", [1, 2, 5, 67])
def test_f64_matches_sosfilt(design, channels):
    sos = DESIGNS[design]()
    frames = 6000 if channels < 10 else 2000
    x = noise(frames, channels, seed=channels * 7 + len(design))
    ref = sig.sosfilt(sos, x, axis=0)
    c = fc.Cascade(channels, np.float64, sos=sos)
    y = c.filter(x, split=random_split(frames, seed=channels))
    assert c.last_flags == 0
    fc.assert_f64_matches_sosfilt(y, ref, sos, x)


def test_f64_gain_folds_into_first_section():
    sos = DESIGNS["cheby1-6-bp"]()
    x = noise(3000, 3, seed=3)
    ref = -0.25 * sig.sosfilt(sos, x, axis=0)
    y = fc.Cascade(3, np.float64, sos=sos, gain=-0.25).filter(x)
    assert rel_err(y, ref) <= 1e-12


def test_split_invariance_bit_exact():
    sos = DESIGNS["ellip-6-bs"]()
    for dtype, prec in ((np.float64, "auto"), (np.float32, "auto"), (np.float32, "single"),
                        (np.float32, "double")):
        x = noise(4000, 67, seed=11, dtype=dtype)
        y1 = fc.Cascade(67, dtype, prec, sos=sos).filter(x)
        y2 = fc.Cascade(67, dtype, prec, sos=sos).filter(x, split=random_split(4000, 5, hi=300))
        assert np.array_equal(y1, y2), (dtype, prec)


# ------------------------------------------------------------------------------------------------
# F32 precision


def _f32_case(sos, frames=48000, channels=2, seed=1):
    x32 = noise(frames, channels, seed, dtype=np.float32)
    ref = sig.sosfilt(sos, x32.astype(np.float64), axis=0)
    scipy32 = sig.sosfilt(sos.astype(np.float32), x32, axis=0)
    assert scipy32.dtype == np.float32
    out = {"scipy-f32": ser_db(scipy32, ref)}
    for prec in ("auto", "single", "double"):
        c = fc.Cascade(channels, np.float32, prec, sos=sos)
        y = c.filter(x32, split=random_split(frames, seed=2))
        assert y.dtype == np.float32
        out[prec] = ser_db(y, ref)
        out[prec + "-backend"] = c.backend
    return out


@pytest.mark.parametrize("design", sorted(HARD))
def test_f32_precision_hard_cases(design):
    sos = HARD[design]()
    r = _f32_case(sos)
    for k in ("scipy-f32", "auto", "single", "double"):
        MEASURED["%s %s" % (design, k)] = r[k]
    assert r["auto"] >= r["scipy-f32"], r
    assert r["double"] >= 140.0, r
    # cpu-<kernel>-<arithmetic>[-chunk]: the kernel is the best one for this CPU (or FX_KERNEL's);
    # two channels in float arithmetic run through the chunked kernels where vectors hold 8 floats
    m = re.fullmatch(r"cpu-([a-z0-9]+)-f(32|64)(-chunk)?", r["auto-backend"])
    assert m, r
    assert r["double-backend"] == "cpu-%s-f64" % m.group(1), r
    assert re.fullmatch("cpu-%s-f32(-chunk)?" % m.group(1), r["single-backend"]), r
    # AUTO ran what its probe chose: single's path, or double's, chunked where the probe found
    # the chunked double path as accurate as the sequential one (then at double's bar too)
    assert r["auto-backend"] in (r["double-backend"], r["double-backend"] + "-chunk",
                                 r["single-backend"]), r
    if r["auto-backend"] == r["double-backend"] + "-chunk":
        assert r["auto"] >= 140.0, r


@pytest.mark.parametrize("design", sorted(EASY))
def test_f32_single_precision_easy_cases(design):
    sos = EASY[design]()
    r = _f32_case(sos, frames=20000)
    for k in ("scipy-f32", "auto", "single", "double"):
        MEASURED["%s %s" % (design, k)] = r[k]
    assert np.isfinite(r["single"]) and r["single"] >= 80.0, r
    assert r["auto"] >= r["scipy-f32"], r
    assert r["double"] >= 140.0, r


# ------------------------------------------------------------------------------------------------
# behaviour


def test_unstable_refused_and_nothing_changes():
    sos = DESIGNS["butter8-lp-1k"]()
    x = noise(2000, 2, seed=4)
    a = fc.Cascade(2, np.float64, sos=sos)
    b = fc.Cascade(2, np.float64, sos=sos)
    ya = a.filter(x)
    yb1 = b.filter(x[:1000])
    bad = np.array(sos, copy=True)
    bad[2, 4:] = [-2.1, 1.1]  # poles outside the unit circle
    assert b.set_sections(bad, check=False) == fc.FX_ERR_UNSTABLE
    assert b.sections == len(sos)
    yb2 = b.filter(x[1000:])
    assert np.array_equal(ya, np.concatenate([yb1, yb2]))


def test_nonfinite_input_replaced_by_zero():
    """NaN/Inf input samples are processed as zeros (DESIGN: "Bad input"): the output, the
    burst's buffer and everything after it, equals that of zeros in their place, bit for bit
    against a twin cascade, and at least as accurate as scipy's float32 sosfilt of the zeros
    (precision=auto's promise; its probe runs this design in float arithmetic)."""
    sos = DESIGNS["butter4-hp-80"]()
    c = fc.Cascade(2, np.float32, "auto", sos=sos)
    twin = fc.Cascade(2, np.float32, "auto", sos=sos)
    x = [noise(1000, 2, seed=1, dtype=np.float32), noise(512, 2, seed=2, dtype=np.float32),
         noise(512, 2, seed=3, dtype=np.float32)]
    zeros = [v.copy() for v in x]
    x[1][100:110, 0] = np.nan
    x[1][105, 1] = np.inf
    zeros[1][100:110, 0] = 0.0
    zeros[1][105, 1] = 0.0
    y, yz = [], []
    for k in range(3):
        y.append(c.filter(x[k]))
        assert bool(c.last_flags & fc.PROCESS_NONFINITE) == (k == 1), (k, c.last_flags)
        yz.append(twin.filter(zeros[k]))
    y, yz = np.concatenate(y), np.concatenate(yz)
    assert np.all(np.isfinite(y)) and np.array_equal(y, yz)
    z = np.concatenate(zeros)
    fc.assert_f32_auto(y, z, sos, sig.sosfilt(sos, z.astype(np.float64), axis=0), slack_db=0.0)


def test_dispatches_one_per_call():
    sos = DESIGNS["butter8-lp-1k"]()
    c = fc.Cascade(4, np.float64, sos=sos)
    c.filter(noise(1000, 4, seed=1), split=[100] * 10)
    assert c.dispatches == 10


def test_coefficient_change_keeps_history_and_converges():
    """After a change and the crossfade, the output equals a cascade that ran the new
    coefficients all along (the old input's influence dies out as the filter's own memory)."""
    sos_a = sig.butter(4, 2000, "lowpass", fs=FS, output="sos")
    sos_b = sig.butter(4, 3000, "lowpass", fs=FS, output="sos")
    x = noise(8000, 2, seed=9)
    c = fc.Cascade(2, np.float64, sos=sos_a)
    y1 = c.filter(x[:4000])
    c.set_sections(sos_b)
    y2 = c.filter(x[4000:])
    y = np.concatenate([y1, y2])
    ref_b = sig.sosfilt(sos_b, x, axis=0)
    ref_a = sig.sosfilt(sos_a, x, axis=0)
    assert rel_err(y1, ref_a[:4000]) <= 1e-12
    # right after the switch the output stays close to both (no click)
    step = np.max(np.abs(np.diff(y, axis=0)))
    assert step <= 2 * np.max(np.abs(np.diff(x, axis=0)))
    # well after the crossfade, only the new filter remains
    assert rel_err(y[6000:], ref_b[6000:]) <= 1e-9


def test_f32_single_precision_tiny_first_section_gain():
    """scipy's designs put the whole gain in the first section: 1e-35 (order 16, 50 Hz) and 1e-70
    (order 32, 100 Hz) underflow in float. The engine balances the sections by exact powers of two,
    so single precision still works (as well as scipy's float32 where that works at all)."""
    x32 = noise(20000, 1, seed=21, dtype=np.float32)
    for order, fc_hz in ((16, 50), (32, 100)):
        sos = sig.butter(order, fc_hz, fs=FS, output="sos")
        ref = sig.sosfilt(sos, x32.astype(np.float64), axis=0)
        y = fc.Cascade(1, np.float32, "single", sos=sos).filter(x32)
        ser = ser_db(y, ref)
        MEASURED["butter%d-lp-%d single" % (order, fc_hz)] = ser
        assert ser >= 45.0, (order, fc_hz, ser)


def _sine(frames, channels=2, freq=440.0, amplitude=0.5):
    t = np.arange(frames) / FS
    return np.repeat((amplitude * np.sin(2 * np.pi * freq * t))[:, None], channels, axis=1)


def _max_step(y):
    return float(np.max(np.abs(np.diff(y, axis=0))))


@pytest.mark.parametrize("a,b", [
    ((8, 15000), (8, 1000)),
    ((2, 2000), (8, 2000)),
    ((8, 2000), (16, 2000)),
    ((8, 4000), (16, 600)),
    ((16, 2000), (3, 2000)),
], ids=lambda v: "N%d-%g" % v)
def test_large_jump_no_click_and_new_design(a, b):
    """A large change between 256-frame buffers (a sine in the passband of both designs): no click
    (largest step within 2x the input's), sane level, and the new design shortly after."""
    sos_a = sig.butter(a[0], a[1], fs=FS, output="sos")
    sos_b = sig.butter(b[0], b[1], fs=FS, output="sos")
    x = _sine(24000)
    c = fc.Cascade(2, np.float64, sos=sos_a)
    y = np.empty_like(x)
    for k in range(0, 24000, 256):
        if k == 40 * 256:
            c.set_sections(sos_b)
        y[k:k + 256] = c.filter(x[k:k + 256])
    assert c.last_flags == 0
    start = int(0.1 * FS)
    assert _max_step(y[start:]) <= 2 * _max_step(x), _max_step(y[start:]) / _max_step(x)
    assert np.max(np.abs(y[start:])) <= 2 * np.max(np.abs(x))
    assert c.warm_frames > 0  # section count change or large jump: warmed up on the input
    tail = slice(40 * 256 + 4000, None)
    assert rel_err(y[tail], sig.sosfilt(sos_b, x, axis=0)[tail]) <= 1e-6


def test_section_count_change_early_is_exact():
    """While the whole stream since the start is still in the engine's input ring (4096 frames),
    a new section count warms the new cascade up from the start of the stream: once the crossfade
    is over, the output is the new design applied to the whole input."""
    sos_a = sig.butter(2, 2000, fs=FS, output="sos")
    sos_b = sig.cheby1(6, 0.5, [300, 3000], "bandpass", fs=FS, output="sos")
    x = noise(6000, 3, seed=23)
    for split in (None, random_split(2000, seed=4)):
        c = fc.Cascade(3, np.float64, sos=sos_a)
        y1 = c.filter(x[:2000], split=split)
        c.set_sections(sos_b)
        assert c.sections == len(sos_b)
        y2 = c.filter(x[2000:])
        y = np.concatenate([y1, y2])
        assert c.warm_frames == 2000
        assert rel_err(y[:2000], sig.sosfilt(sos_a, x[:2000], axis=0)) <= 1e-12
        ref = sig.sosfilt(sos_b, x, axis=0)
        assert rel_err(y[2256:], ref[2256:]) <= 1e-12


def test_ramp_does_not_warm_up_small_steps():
    """A slow controller ramp (small change per buffer) uses the direct-form-I transfer only: no
    warm-up cost per buffer, and no click."""
    x = noise(48000, 1, seed=24)
    c = fc.Cascade(1, np.float64, sos=sig.butter(4, 1000, fs=FS, output="sos"))
    y = np.empty_like(x)
    for k in range(0, 48000, 256):
        f = 1000 * 2 ** (k / 48000)  # one octave per second
        c.set_sections(sig.butter(4, f, fs=FS, output="sos"))
        y[k:k + 256] = c.filter(x[k:k + 256])
    assert c.warm_frames == 0
    assert _max_step(y) <= 2 * _max_step(x)


# ------------------------------------------------------------------------------------------------
# stages: one engine for a whole chain (fx_cascade_set_stages) == the chain of standalone engines
# and dsp/gain.c ramps, on random chains, random splits and random parameter changes


def _design(kind, fc_hz, order):
    btype = "lowpass" if kind == 0 else "highpass"
    if kind == 2:
        return sig.cheby1(order, 0.5, fc_hz, "lowpass", fs=FS, output="sos")
    return sig.butter(order, fc_hz, btype, fs=FS, output="sos")


class _Chain:
    """The reference: one engine per SECTIONS stage, gain.c ramps per GAIN stage."""

    def __init__(self, stages, channels, dtype, xfade, precision="auto"):
        self.stages = [list(s) for s in stages]
        self.engines = {}
        self.applied = {}
        for i, st in enumerate(self.stages):
            if st[0] == "sections":
                e = fc.Cascade(channels, dtype, precision)
                e.set_crossfade(xfade)
                e.set_sections(st[1])
                self.engines[i] = e

    def set(self, i, value):
        self.stages[i][1] = value
        if i in self.engines:
            self.engines[i].set_sections(value)

    def process(self, y):
        for i, st in enumerate(self.stages):
            if i in self.engines:
                self.engines[i].process(y)
            else:
                fc.gain_apply(y, self.applied.get(i, st[1]), st[1])
                self.applied[i] = st[1]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("seed", range(10))
def test_stages_equal_chain_of_engines(seed, dtype):
    """Random chains of scipy designs and gains; controller-like ramps (a new design every
    buffer), steps, order changes (warm-ups, also while other stages change) and gain changes at
    random buffers. The staged
    engine's output equals the chain's: F64 <= 1e-10 relative over the whole output and over
    each transition (measured <= ~1e-12); F32 within the chain's accuracy against the F64 chain
    (SER no more than 1 dB lower), both in double arithmetic (precision=auto decides per engine:
    the fused engine and the chain's engines may choose differently, each at least as accurate as
    scipy's float32; test_auto_at_least_scipy_f32_on_hard_cases checks that)."""
    rng = np.random.default_rng(500 + seed)
    channels = int(rng.integers(1, 4))
    spec, stages = [], []
    for s in range(int(rng.integers(2, 6))):
        if rng.random() < 0.4:
            stages.append(["gain", float(10 ** rng.uniform(-0.4, 0.4))])
            spec.append(None)
        kind, f, order = int(rng.integers(0, 3)), float(rng.uniform(300, 8000)), int(
            rng.integers(1, 7))
        spec.append([kind, f, order])
        stages.append(["sections", _design(kind, f, order)])
    if rng.random() < 0.5:
        stages.append(["gain", float(10 ** rng.uniform(-0.4, 0.4))])
        spec.append(None)
    x = noise(48000, channels, seed=seed + 70, dtype=dtype)
    split = random_split(x.shape[0], seed + 3, hi=900)

    def run(dt):
        chain = _Chain(stages, channels, dt, 240, "double")
        eng = fc.Cascade(channels, dt, "double")
        eng.set_crossfade(240)
        eng.set_stages(stages)
        sp = [None if s is None else list(s) for s in spec]
        y = np.ascontiguousarray(x.astype(dt))
        z = y.copy()
        r = np.random.default_rng(seed)
        pos, ramp, windows = 0, None, []
        for b, n in enumerate(split):
            changed = False
            if ramp is not None and ramp[1] > 0:
                i = ramp[0]
                sp[i][1] *= 0.97 if sp[i][1] > 3000 else 1.03
                chain.set(i, _design(*sp[i]))
                ramp[1] -= 1
                changed = True
            if b > 5 and r.random() < 0.08:
                iirs = [i for i, s in enumerate(sp) if s is not None]
                gains = [i for i, s in enumerate(sp) if s is None]
                what = r.integers(0, 4)
                i = iirs[int(r.integers(0, len(iirs)))]
                if what == 0:
                    ramp = [i, 15]
                elif what == 1:  # a step, small or large (a warm-up)
                    sp[i][1] = float(r.uniform(300, 8000))
                    chain.set(i, _design(*sp[i]))
                elif what == 2:  # an order change (a warm-up)
                    sp[i][2] = 1 + sp[i][2] % 6
                    chain.set(i, _design(*sp[i]))
                elif gains:
                    g = gains[int(r.integers(0, len(gains)))]
                    chain.set(g, float(10 ** r.uniform(-0.5, 0.5)))
                changed = True
            if changed:
                eng.set_stages([tuple(s) for s in chain.stages])
                windows.append((pos, pos + 2000))
            chain.process(y[pos:pos + n])
            eng.process(z[pos:pos + n])
            pos += n
        return y, z, windows

    y, z, windows = run(dtype)
    if dtype == np.float64:
        e = rel_err(z, y)
        e_win = max([rel_err(z[a:b], y[a:b]) for a, b in windows if b - a > 0] + [0.0])
        assert e <= 1e-10 and e_win <= 1e-10, "whole %.3g transitions %.3g" % (e, e_win)
    else:
        ref, _, _ = run(np.float64)

        def ser(a):
            return 20 * np.log10(np.linalg.norm(ref) / np.linalg.norm(a.astype(np.float64) - ref))
        assert ser(z) >= ser(y) - 1.0, "staged %.1f dB, chain %.1f dB" % (ser(z), ser(y))


def test_stages_steady_state_is_one_cascade():
    """Without changes a staged engine filters exactly like one cascade of all sections with the
    gains folded (F64 <= 1e-12), in one dispatch per buffer, whatever the split."""
    s1 = sig.butter(4, 2000, fs=FS, output="sos")
    s2 = sig.butter(3, 150, "highpass", fs=FS, output="sos")
    x = noise(12000, 2, seed=9)
    eng = fc.Cascade(2)
    eng.set_stages([("gain", 0.5), ("sections", s1), ("gain", 2.5), ("sections", s2),
                    ("gain", 0.8)])
    assert eng.sections == 4
    split = random_split(x.shape[0], 9)
    y = eng.filter(x, split)
    assert eng.dispatches == len(split)
    ref = sig.sosfilt(np.vstack([s1, s2]), x, axis=0) * (0.5 * 2.5 * 0.8)
    assert rel_err(y, ref) <= 1e-12


# ------------------------------------------------------------------------------------------------
# precision=auto: at least scipy float32's accuracy on the hard-case set


def _hard_case_set(n, seed=16):
    """n designs drawn from all families and modes, orders 1-32 (band modes 1-16, elliptic 1-12),
    cutoffs 10 Hz .. 0.46 fs at 48 kHz (log-uniform), plus the five hard designs of the chunked
    cascade's measurements (DESIGN.md §4)."""
    out = [
        ("butter16-lp-50", sig.butter(16, 50, fs=FS, output="sos")),
        ("butter16-lp-1k", sig.butter(16, 1000, fs=FS, output="sos")),
        ("butter8-hp-20", sig.butter(8, 20, "highpass", fs=FS, output="sos")),
        ("cheby1-16-lp-12k", sig.cheby1(16, 1, 12000, fs=FS, output="sos")),
        ("ellip8-lp-200", sig.ellip(8, 1, 60, 200, fs=FS, output="sos")),
        ("butter32-lp-10", sig.butter(32, 10, fs=FS, output="sos")),
    ]
    rng = np.random.default_rng(seed)
    while len(out) < n + 6:
        fam = str(rng.choice(["butter", "cheby1", "cheby2", "ellip", "bessel"]))
        mode = str(rng.choice(["lowpass", "highpass", "bandpass", "bandstop"]))
        band = mode in ("bandpass", "bandstop")
        maxo = 12 if fam == "ellip" else (16 if band else 32)
        order = int(rng.integers(1, maxo + 1))
        f = float(np.exp(rng.uniform(np.log(10.0), np.log(0.46 * FS))))
        wn = [f, min(f * float(np.exp(rng.uniform(0.2, 2.0))), 0.47 * FS)] if band else f
        if band and wn[1] <= 1.05 * wn[0]:
            continue
        args = {"cheby1": (order, 1.0, wn), "cheby2": (order, 60.0, wn),
                "ellip": (order, 1.0, 60.0, wn)}.get(fam, (order, wn))
        sos = getattr(sig, fam)(*args, btype=mode, fs=FS, output="sos")
        out.append(("%s-%s-%d-%s" % (fam, mode, order, np.round(wn, 1)), sos))
    return out


@pytest.mark.parametrize("C", [1, 2])
def test_auto_double_runs_chunked_only_where_as_accurate(C):
    """Under precision=auto, a design the probe sends to double runs the chunked double kernels
    where their probe error reaches double's bar (140 dB against the sequential double): an
    order-12 Butterworth low-pass at 15 kHz (neither float path more accurate than scipy's float32
    there, so double) then gives precision=double's output to within the F32 output's rounding.
    An order-31
    Chebyshev I at 100 Hz, where the chunk correction cancels large terms, keeps the sequential
    kernels; precision=double never runs chunked. Stereo keeps the sequential kernels too (the
    in-place wavefront is as fast as the chunked double code's 4 lanes): precision=double's
    output."""
    x = noise(32768, C, seed=31, dtype=np.float32)
    lp = sig.butter(12, 15000, fs=FS, output="sos")
    cheb = sig.cheby1(31, 1, 100, fs=FS, output="sos")
    for name, sos, chunked in (("butter12-lp-15k", lp, True), ("cheby1-31-100", cheb, False)):
        ref = sig.sosfilt(sos, x.astype(np.float64), axis=0)
        a = fc.Cascade(C, np.float32, "auto", sos=sos)
        d = fc.Cascade(C, np.float32, "double", sos=sos)
        ya = a.filter(x, split=random_split(len(x), seed=5))
        yd = d.filter(x, split=random_split(len(x), seed=5))
        kernel = re.fullmatch(r"cpu-([a-z0-9]+)-f64", d.backend)
        assert kernel, (name, d.backend)
        if kernel.group(1) not in ("avx2", "avx512"):
            pytest.skip("the chunked double kernels run with 4 double lanes (AVX2, AVX-512)")
        if C == 2:
            chunked = False
        assert a.backend == d.backend + ("-chunk" if chunked else ""), (name, a.backend)
        if chunked:
            # the same output as double's, but for the F32 output's rounding of a value
            # computed slightly differently: at most one float ulp of each sample
            ulp = np.spacing(np.abs(yd).astype(np.float32))
            assert np.all(np.abs(ya - yd) <= ulp), (name, np.max(np.abs(ya - yd) / ulp))
            assert ser_db(ya, ref) >= 140.0, name
        else:
            assert np.array_equal(ya, yd), name


@pytest.mark.parametrize("C, order, chunked", [(1, 8, True), (1, 24, True), (1, 32, False),
                                               (2, 8, True), (2, 12, True), (2, 16, False)])
def test_single_takes_the_faster_float_kernel(C, order, chunked):
    """precision=single takes the chunked float kernels where they are faster than the sequential
    ones: up to 1.5 vectors of section-channels (12 on AVX2's 8 float lanes: mono up to 12
    sections, stereo up to 6), where the sequential kernels' one or two recurrences set the pace
    (docs/cascade.md, "Which kernel"); beyond that the sequential ones. Either way the output is
    the same filter: within float's rounding of scipy's float64."""
    sos = sig.butter(order, 2000, fs=FS, output="sos")
    c = fc.Cascade(C, np.float32, "single", sos=sos)
    m = re.fullmatch(r"cpu-([a-z0-9]+)-f32(-chunk)?", c.backend)
    assert m, c.backend
    if m.group(1) != "avx2":
        pytest.skip("the boundary is measured for AVX2's 8 float lanes (this CPU: %s)" % m.group(1))
    assert (m.group(2) is not None) == chunked, (C, order, c.backend)
    x = noise(16384, C, seed=order, dtype=np.float32)
    y = c.filter(x, split=random_split(len(x), seed=order))
    ref = sig.sosfilt(sos, x.astype(np.float64), axis=0)
    assert ser_db(y, ref) >= 90.0, (C, order, ser_db(y, ref))


def test_auto_at_least_scipy_f32_on_hard_cases():
    """precision=auto on F32 stereo: the SER against float64 is never below scipy float32
    sosfilt's on the same input, whichever arithmetic its probe chose (the probe's own input is
    another noise), and single runs on a fair share of the designs. (Double's own bar, 140 dB, is
    test_f32_precision_hard_cases': against scipy's float64 as the reference, the extreme designs
    here, order 30 and more at 10-100 Hz, measure scipy's float64 error as much as the engine's.)"""
    x = noise(65536, 2, seed=23, dtype=np.float32)
    worse, single, n = [], 0, 0
    for name, sos in _hard_case_set(120):
        ref = sig.sosfilt(sos, x.astype(np.float64), axis=0)
        s32 = ser_db(sig.sosfilt(sos.astype(np.float32), x, axis=0), ref)
        c = fc.Cascade(2, np.float32, "auto", sos=sos)
        y = c.filter(x, split=random_split(len(x), seed=3))
        a = ser_db(y, ref)
        probe = c.probe
        assert probe is not None, name
        n += 1
        if "-f32" in c.backend:
            single += 1
            assert probe[0] >= probe[1] + 0.5, (name, probe)  # the probe's margin
        if a < s32:
            worse.append((name, "auto %.1f dB < scipy-f32 %.1f dB (%s, probe %s)" % (
                a, s32, c.backend, probe)))
    print("precision=auto: single on %d of %d designs" % (single, n))
    assert not worse, worse
    assert single >= n // 10, (single, n)
