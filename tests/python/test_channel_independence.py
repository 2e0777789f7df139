"""Channels are independent (issue 14, item 5).

An element that treats channels independently must give each channel exactly what it gives that
channel alone, up to that channel's own rounding. Three channels go through the element with a
troublesome channel 0 — a 1e30 impulse, a signal 120 dB louder than its neighbours, a NaN — and
each other channel's output is compared with the same element run on that channel alone (mono):
relative to that channel's own peak, F32 within 1e-6 and F64 within 1e-12. (The IIR elements in
F32 are compared with a three-channel run whose channel 0 is ordinary noise instead: they may run
chunked kernels for one or two channels and sequential ones for three, which round differently.) fxfir runs its direct
form, its zero-latency partitioned FFT path (a long kernel) and its block-latency FFT path
(max-latency); fxeq, an IIR element, fxdelay (no ping-pong) and fxgain get the same check for the
finite cases (what a NaN does to an element's own state is the non-finite handling's business).
Signals come from a fixed seed; FX_TEST_SEED picks another (printed on failure).
"""

import os

import numpy as np
import pytest

from conftest import Gst, assert_clean, noise, run_pipeline

pytestmark = pytest.mark.usefixtures("fx")

RATE = 48000
SEED = int(os.environ.get("FX_TEST_SEED", "20261201"))
TOL = {np.float32: 1e-6, np.float64: 1e-12}
FRAMES = 12000
C = 3


def troubled(case, dtype):
    """Three channels of noise at -6 dBFS; channel 0 carries the trouble."""
    x = noise(FRAMES, C, seed=SEED, dtype=np.float64)
    if case == "huge":
        x[:, 0] = 0.0
        x[1000, 0] = 1e30
    elif case == "loud":
        x[:, 1:] *= 1e-6  # the neighbours 120 dB below channel 0
    elif case == "nan":
        x[1000, 0] = np.nan
    return x.astype(dtype)


def check_neighbours(desc, x, dtype, configure=None, split=1024, benign=False):
    """Each channel c >= 1 of desc's output on x against that channel alone (mono); with
    `benign`, against the same channel count with channel 0 replaced by ordinary noise: the
    reference for F32 elements whose kernels depend on the channel count (an IIR element in float
    arithmetic runs chunked kernels for one or two channels and sequential ones for three, which
    round differently), so that only the neighbour's influence is measured."""
    multi = run_pipeline(desc, x, RATE, split=split, configure=configure)
    assert not multi.errors, multi.error_text()
    # fxdelay pushes a tail at EOS (its length depends on the signal): compare the first
    # len(x) frames, the filtered input
    assert multi.y.shape[0] >= len(x) and multi.y.shape[1] == x.shape[1]
    calm = None
    if benign:
        xb = x.copy()
        xb[:, 0] = noise(len(x), 1, seed=SEED + 1, dtype=np.float64)[:, 0].astype(x.dtype)
        calm = run_pipeline(desc, xb, RATE, split=split, configure=configure)
        assert_clean(calm)
    for c in range(1, x.shape[1]):
        if calm is not None:
            want = calm.y[:len(x), c].astype(np.float64)
        else:
            mono = run_pipeline(desc, np.ascontiguousarray(x[:, c:c + 1]), RATE, split=split,
                                configure=configure)
            assert_clean(mono)
            assert mono.y.shape[0] >= len(x)
            want = mono.y[:len(x), 0].astype(np.float64)
        got = multi.y[:len(x), c].astype(np.float64)
        assert np.all(np.isfinite(got)), (
            "%s: channel %d is not finite next to channel 0 (seed %d)" % (desc, c, SEED))
        peak = max(np.max(np.abs(want)), np.finfo(dtype).tiny)
        err = np.max(np.abs(got - want)) / peak
        assert err <= TOL[dtype], (
            "%s (%s): channel %d differs from its mono run by %.3g of its peak (tolerance %g); "
            "seed %d" % (desc, np.dtype(dtype).name, c, err, TOL[dtype], SEED))


def kernel(n):
    return np.random.default_rng(SEED + n).standard_normal(n) / np.sqrt(n)


def set_kernel(taps):
    def configure(pipeline):
        pipeline.get_by_name("fx").set_property("kernel",
                                                Gst.ValueArray([float(t) for t in taps]))
    return configure


FIR_PATHS = {
    # direct form: a short kernel
    "direct": ("fxfir name=fx method=direct", 101),
    # zero-latency partitioned: 64 taps direct, the rest through FFT levels
    "partitioned": ("fxfir name=fx method=partitioned", 3001),
    # block latency: everything through FFT blocks
    "latency": ("fxfir name=fx max-latency=2048", 3001),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", ["huge", "loud"])
@pytest.mark.parametrize("path", sorted(FIR_PATHS))
def test_fir_neighbours(path, case, dtype):
    desc, n = FIR_PATHS[path]
    check_neighbours(desc, troubled(case, dtype), dtype, configure=set_kernel(kernel(n)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("path", sorted(FIR_PATHS))
def test_fir_nan_neighbours(path, dtype):
    # One buffer: what the element does with its history after a non-finite buffer is not the
    # point here; within the buffer the NaN must stay in its own channel.
    desc, n = FIR_PATHS[path]
    check_neighbours(desc, troubled("nan", dtype), dtype, configure=set_kernel(kernel(n)),
                     split=None)


OTHERS = {
    "fxeq": "fxeq name=fx num-bands=2 band0::type=peaking band0::frequency=1000 band0::gain=6 "
            "band1::type=high-shelf band1::frequency=4000 band1::gain=-4",
    "fxbutterworth": "fxbutterworth name=fx order=6 cutoff=3000",
    "fxdelay": "fxdelay name=fx delay=5 feedback=0.5 mix=0.5 ping-pong=false",
    "fxgain": "fxgain name=fx gain=-6",
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", ["huge", "loud"])
@pytest.mark.parametrize("element", sorted(OTHERS))
def test_other_elements_neighbours(element, case, dtype):
    # the IIR elements in F32 may run other kernels for one channel than for three (chunked
    # for one or two): their reference keeps the three channels, with a calm channel 0
    iir_f32 = dtype == np.float32 and element in ("fxeq", "fxbutterworth")
    check_neighbours(OTHERS[element], troubled(case, dtype), dtype, benign=iir_f32)
