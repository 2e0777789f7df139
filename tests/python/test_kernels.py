"""The CPU kernels of every instruction set (dsp/kernel.h's table: the SOS cascade kernels,
dsp/kernel_*.c, and the FIR sets, dsp/fir_kernel_*.c), each forced through FX_KERNEL, against
scipy.signal.sosfilt / lfilter and against the baseline "scalar" set, through ctypes.

Run: FXDSP_LIB=<build>/tests/libfxdsp_py.so python3 -m pytest -q tests/python/test_kernels.py

An engine picks its instruction set (fx_isa_select(), which reads FX_KERNEL at each call) when it
is created, so each test sets FX_KERNEL before creating its engines. An instruction set this CPU
does not support is skipped with a SKIP line (the library falls back silently to the best one).
"""

import ctypes
import re

import numpy as np
import pytest
import scipy.signal as sig

import fxcascade as fc
from fxcascade import noise, rel_err, ser_db
from test_cascade import EASY, FS, HARD  # the F32 precision cases of the engine tests

KERNELS = ("scalar", "sse2", "avx2", "avx512")

DESIGNS = {
    "butter8-lp-1k": lambda: sig.butter(8, 1000, "lowpass", fs=FS, output="sos"),
    "cheby1-6-bp": lambda: sig.cheby1(6, 0.5, [300, 3000], "bandpass", fs=FS, output="sos"),
    "ellip-6-bs": lambda: sig.ellip(6, 0.5, 60, [1000, 2000], "bandstop", fs=FS, output="sos"),
    "butter8-lp-50": lambda: sig.butter(8, 50, "lowpass", fs=FS, output="sos"),
    "butter32-bp": lambda: sig.butter(16, [200, 4000], "bandpass", fs=FS, output="sos"),
    "biquad": lambda: sig.butter(2, 3000, "highpass", fs=FS, output="sos"),
}
CHANNELS = (1, 2, 3, 8, 9, 17, 67)


def _find(name):
    l = fc.lib()
    f = l.fx_isa_find
    f.restype = ctypes.c_void_p
    f.argtypes = [ctypes.c_char_p]
    return f(name.encode())


def supported(name):
    return bool(_find(name))


@pytest.fixture(params=KERNELS)
def kernel(request, monkeypatch):
    name = request.param
    if not supported(name):
        print("SKIP kernel %s: not supported by this CPU (or not built)" % name)
        pytest.skip("kernel %s not supported by this CPU" % name)
    monkeypatch.setenv("FX_KERNEL", name)
    return name


def random_split(frames, seed, lo=1, hi=1500):
    return fc.random_split(frames, seed, lo, hi, p_tiny=0.2)


def engine(kernel_name, channels, dtype, prec, sos):
    c = fc.Cascade(channels, dtype, prec, sos=sos)
    assert re.fullmatch(r"cpu-%s-f(32|64)(-chunk)?" % kernel_name, c.backend), c.backend
    return c


def test_kernel_list_and_fallback(monkeypatch):
    l = fc.lib()
    l.fx_isa_count.restype = ctypes.c_int
    n = l.fx_isa_count()
    names = [k for k in KERNELS if supported(k)]
    assert n == len(names) and "scalar" in names
    for k in KERNELS:
        if k not in names:
            print("SKIP kernel %s: not supported by this CPU" % k)
    best = [k for k in ("avx512", "avx2", "sse2", "scalar") if k in names][0]
    monkeypatch.delenv("FX_KERNEL", raising=False)
    monkeypatch.delenv("FX_CHUNK", raising=False)
    # AUTO before a probe: double, on the sequential kernels (chunked only in float arithmetic)
    want = "cpu-%s-f64" % best
    assert fc.Cascade(2, np.float32).backend == want
    monkeypatch.setenv("FX_KERNEL", "no-such-kernel")
    assert fc.Cascade(2, np.float32).backend == want


@pytest.mark.parametrize("design", sorted(DESIGNS))
@pytest.mark.parametrize("channels", CHANNELS)
def test_f64_matches_sosfilt(kernel, design, channels):
    sos = DESIGNS[design]()
    frames = 5000 if channels < 10 else 1500
    x = noise(frames, channels, seed=channels * 7 + len(design))
    ref = sig.sosfilt(sos, x, axis=0)
    c = engine(kernel, channels, np.float64, "auto", sos)
    y = c.filter(x, split=random_split(frames, seed=channels))
    fc.assert_f64_matches_sosfilt(y, ref, sos, x)


@pytest.mark.parametrize("design", sorted(HARD))
@pytest.mark.parametrize("channels", (1, 2, 8, 9))
def test_f32_double_hard_cases(kernel, design, channels):
    sos = HARD[design]()
    frames = 48000 if channels <= 2 else 12000
    x32 = noise(frames, channels, seed=1, dtype=np.float32)
    ref = sig.sosfilt(sos, x32.astype(np.float64), axis=0)
    c = engine(kernel, channels, np.float32, "double", sos)
    y = c.filter(x32, split=random_split(frames, seed=2))
    assert y.dtype == np.float32
    s = ser_db(y, ref)
    assert s >= 140.0, "SER %.1f dB" % s


@pytest.mark.parametrize("design", sorted(EASY))
@pytest.mark.parametrize("channels", (1, 2, 8, 17))
def test_f32_single_comparable_to_scalar(kernel, design, channels, monkeypatch):
    sos = EASY[design]()
    frames = 24000
    x32 = noise(frames, channels, seed=3, dtype=np.float32)
    ref = sig.sosfilt(sos, x32.astype(np.float64), axis=0)
    y = engine(kernel, channels, np.float32, "single", sos).filter(x32)
    monkeypatch.setenv("FX_KERNEL", "scalar")
    ys = fc.Cascade(channels, np.float32, "single", sos=sos).filter(x32)
    s, s_scalar = ser_db(y, ref), ser_db(ys, ref)
    assert s >= 80.0 and s >= s_scalar - 6.0, (s, s_scalar)


@pytest.mark.parametrize("channels", (1, 2, 5, 16, 67))
def test_split_bit_exact(kernel, channels, monkeypatch):
    """With every call on one path, the sequential kernels (FX_CHUNK=0) or the chunked ones
    (FX_CHUNK=1, which the engine takes for one or two F32 channels), any split is
    bit-identical. (By default short calls take the sequential kernels and long ones the chunked
    kernels: test_long_split_within_design_bar.)"""
    sos = DESIGNS["ellip-6-bs"]()
    frames = 3000
    for chunk in ("0", "1"):
        monkeypatch.setenv("FX_CHUNK", chunk)
        for dtype, prec in ((np.float64, "auto"), (np.float32, "single"), (np.float32, "double")):
            x = noise(frames, channels, seed=11, dtype=dtype)
            y1 = engine(kernel, channels, dtype, prec, sos).filter(x)
            y2 = engine(kernel, channels, dtype, prec, sos).filter(
                x, split=random_split(frames, 5, hi=300))
            assert np.array_equal(y1, y2), (chunk, dtype, prec)


@pytest.mark.parametrize("pair", (("sse2", "scalar"), ("avx512", "avx2")))
def test_same_arithmetic_bit_identical(pair, monkeypatch):
    """SSE2 does the scalar kernel's operations; AVX-512 does AVX2's (FMA) lane by lane, but for
    the chunked kernels' recursion, which AVX-512 runs in the substituted form (kernel_chunk.h,
    K_CK_SUB: its 32 registers hold the third state vector). There the two round differently,
    and the substituted form is no less accurate against scipy's float64: its SER at most 1 dB
    below AVX2's, or both beyond 200 dB (double arithmetic: the reference's own rounding)."""
    for k in pair:
        if not supported(k):
            print("SKIP kernel %s: not supported by this CPU" % k)
            pytest.skip("kernel %s not supported" % k)
    sos = DESIGNS["butter8-lp-50"]()
    # the same path on both: the sequential kernels, then the chunked ones (which the engine
    # takes by itself only where a vector has two lanes or more)
    for chunk in ("0", "1"):
        monkeypatch.setenv("FX_CHUNK", chunk)
        for channels in (1, 2, 9, 33):
            for dtype, prec in ((np.float64, "auto"), (np.float32, "single"),
                                (np.float32, "double")):
                x = noise(2000, channels, seed=channels, dtype=dtype)
                ys = []
                for k in pair:
                    monkeypatch.setenv("FX_KERNEL", k)
                    ys.append(engine(k, channels, dtype, prec, sos).filter(
                        x, split=random_split(2000, 9)))
                if chunk == "1" and pair[0] == "avx512":
                    ref = sig.sosfilt(sos, x.astype(np.float64), axis=0)
                    s0, s1 = ser_db(ys[0], ref), ser_db(ys[1], ref)
                    assert s0 >= s1 - 1.0 or min(s0, s1) >= 200.0, (
                        chunk, channels, dtype, prec, s0, s1)
                else:
                    assert np.array_equal(ys[0], ys[1]), (chunk, channels, dtype, prec)


# ------------------------------------------------------------------------------------------------
# Time-block path (kernel.h): mono and stereo calls of 8192 frames or more on the FMA kernels.
# Its blocks start from a computed state, so splits agree within DESIGN.md's bar (F64 <= 1e-12
# relative, F32 within rounding) rather than bit for bit.

LONG = {
    "butter8-lp-50": lambda: sig.butter(8, 50, "lowpass", fs=FS, output="sos"),
    "butter4-hp-20": lambda: sig.butter(4, 20, "highpass", fs=FS, output="sos"),
    "butter4-hp-80": lambda: sig.butter(4, 80, "highpass", fs=FS, output="sos"),
    "chain-a": lambda: np.vstack([sig.butter(4, 80, "highpass", fs=FS, output="sos"),
                                  sig.butter(8, 12000, "lowpass", fs=FS, output="sos")]),
}


def short_split(frames, seed):
    """Buffers of at most 4000 frames: the lanes/wavefront paths only."""
    return random_split(frames, seed, lo=500, hi=4000)


@pytest.mark.parametrize("design", sorted(LONG))
@pytest.mark.parametrize("channels", (1, 2))
def test_long_buffers_hard_cases(kernel, design, channels):
    sos = LONG[design]()
    frames = 96000
    x = noise(frames, channels, seed=21 + channels)
    # extended-precision reference: over 96000 frames scipy's own float64 result is ~7e-13 off
    ref = np.asarray(sig.sosfilt(sos.astype(np.longdouble), x.astype(np.longdouble), axis=0),
                     dtype=np.float64)
    y = engine(kernel, channels, np.float64, "auto", sos).filter(x)
    e = rel_err(y, ref)
    assert e <= 1e-12, "F64 relative error %g" % e
    x32 = x.astype(np.float32)
    ref32 = np.asarray(sig.sosfilt(sos.astype(np.longdouble), x32.astype(np.longdouble), axis=0),
                       dtype=np.float64)
    s_d = ser_db(engine(kernel, channels, np.float32, "double", sos).filter(x32), ref32)
    assert s_d >= 140.0, "F32 double SER %.1f dB" % s_d
    # single precision: comparable to the same kernel on short buffers (lanes/wavefront)
    s_s = ser_db(engine(kernel, channels, np.float32, "single", sos).filter(x32), ref32)
    s_w = ser_db(engine(kernel, channels, np.float32, "single", sos).filter(
        x32, split=short_split(frames, 3)), ref32)
    assert s_s >= s_w - 3.0, (s_s, s_w)
    print("%s %s C=%d: F64 rel %.2e, F32 double SER %.1f dB, single %.1f dB (short buffers %.1f)"
          % (kernel, design, channels, e, s_d, s_s, s_w))


@pytest.mark.parametrize("channels", (1, 2))
def test_long_split_within_design_bar(kernel, channels, monkeypatch):
    """Calls of 1 to 20000 frames, so that one or two F32 channels take the chunked kernels in
    long calls and the sequential ones in short calls: F64 within 1e-12, F32 in double arithmetic
    within the output's rounding, in float arithmetic within twice the larger of the two paths'
    own distances from double arithmetic (measured on the whole signal)."""
    sos = LONG["chain-a"]()
    frames = 60000
    split = random_split(frames, 17, lo=1, hi=20000)
    for dtype, prec in ((np.float64, "auto"), (np.float32, "single"), (np.float32, "double")):
        x = noise(frames, channels, seed=13, dtype=dtype)
        y1 = engine(kernel, channels, dtype, prec, sos).filter(x)
        y2 = engine(kernel, channels, dtype, prec, sos).filter(x, split=split)
        e = rel_err(y2, y1)
        bar = 1e-12 if dtype == np.float64 else (1e-4 if prec == "single" else 2e-7)
        if prec == "single":
            yd = engine(kernel, channels, dtype, "double", sos).filter(x)
            monkeypatch.setenv("FX_CHUNK", "0")
            ys = engine(kernel, channels, dtype, prec, sos).filter(x)
            monkeypatch.delenv("FX_CHUNK")
            bar = max(bar, 2 * max(rel_err(y1, yd), rel_err(ys, yd)))
        assert e <= bar, (dtype, prec, e, bar)


# ------------------------------------------------------------------------------------------------
# FIR sets (dsp/fir_kernel.h) through the FIR engine (dsp/fir.h), each instruction set forced by
# FX_KERNEL: against scipy.signal.lfilter and against the scalar set. The engine's method string
# names the FIR set that runs: the instruction set's own, or the baseline's for sse2 (no FIR
# code of its own: the baseline FIR code is SSE2 on x86-64).


class FirOptions(ctypes.Structure):
    _fields_ = [("method", ctypes.c_int), ("crossover", ctypes.c_size_t),
                ("head", ctypes.c_size_t), ("factor", ctypes.c_size_t),
                ("max_block", ctypes.c_size_t), ("fftw_measure", ctypes.c_int),
                ("latency", ctypes.c_size_t)]


FIR_METHODS = {"direct": 1, "partitioned": 2}


def fir_filter(taps, x, method, split):
    """x (frames, C) float32/float64 through a new FIR engine; returns (y, method string)."""
    l = fc.lib()
    l.fx_fir_engine_new.restype = ctypes.c_void_p
    l.fx_fir_engine_new.argtypes = [ctypes.POINTER(ctypes.c_double), ctypes.c_size_t, ctypes.c_int,
                                    ctypes.c_int, ctypes.POINTER(FirOptions),
                                    ctypes.POINTER(ctypes.c_int)]
    l.fx_fir_engine_process.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                        ctypes.c_size_t]
    l.fx_fir_engine_method.restype = ctypes.c_char_p
    l.fx_fir_engine_method.argtypes = [ctypes.c_void_p]
    l.fx_fir_engine_free.argtypes = [ctypes.c_void_p]
    h = np.ascontiguousarray(taps, dtype=np.float64)
    opt = FirOptions(FIR_METHODS[method], 0, 0, 0, 0, 0, 0)
    st = ctypes.c_int(0)
    e = l.fx_fir_engine_new(h.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), len(h),
                            x.shape[1], int(x.dtype == np.float64), ctypes.byref(opt),
                            ctypes.byref(st))
    assert e, "fx_fir_engine_new: status %d" % st.value
    try:
        y = np.ascontiguousarray(x.copy())
        pos = 0
        for n in split:
            seg = y[pos:pos + n]
            l.fx_fir_engine_process(e, seg.ctypes.data, seg.ctypes.data, n)
            pos += n
        assert pos == len(y)
        return y, l.fx_fir_engine_method(e).decode()
    finally:
        l.fx_fir_engine_free(e)


@pytest.mark.parametrize("method", sorted(FIR_METHODS))
@pytest.mark.parametrize("channels", (1, 2, 3))
@pytest.mark.parametrize("dtype", (np.float32, np.float64))
def test_fir_set_matches_lfilter_and_scalar(kernel, method, channels, dtype, monkeypatch):
    taps = sig.firwin(301, 3000, fs=FS)
    frames = 6000
    x = noise(frames, channels, seed=31 + channels, dtype=dtype)
    split = random_split(frames, seed=7, hi=2000)
    y, name = fir_filter(taps, x, method, split)
    fir_set = "scalar" if kernel == "sse2" else kernel
    assert name == "%s-%s" % (method, fir_set), name
    ref = sig.lfilter(taps, 1.0, x.astype(np.float64), axis=0)
    tol = 1e-12 if dtype == np.float64 else 1e-5  # test_fir.py's bars are 1e-10 and 1e-5
    e = rel_err(y, ref)
    assert e <= tol, "%s vs lfilter: %g" % (name, e)
    monkeypatch.setenv("FX_KERNEL", "scalar")
    ys, sname = fir_filter(taps, x, method, split)
    assert sname == "%s-scalar" % method, sname
    es = rel_err(y, ys)
    assert es <= tol, "%s vs %s: %g" % (name, sname, es)
    if fir_set == "scalar":
        assert np.array_equal(y, ys), "%s: the same FIR set, not bit-identical" % name
