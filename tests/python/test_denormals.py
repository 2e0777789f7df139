"""DESIGN section 3, Denormals: decaying tails must not slow processing down.

An impulse followed by silence drives the state of these filters through the subnormal range
(scipy's sosfilt, which does not flush to zero, leaves 66% (float32, 20 Hz high-pass) and 88%
(float64, 16th-order 2 kHz low-pass) of such a tail subnormal). Subnormal arithmetic costs
10-100x on many x86 cores; the elements must not slow down (DESIGN section 4: flush-to-zero in
kernels)."""

import time

import numpy as np
import pytest

from conftest import filter_through, noise, record

pytestmark = pytest.mark.usefixtures("fx")

RATE = 48000
CASES = [
    ("fxbutterworth mode=high-pass order=4 cutoff=20", np.float32, "single"),
    ("fxbutterworth mode=high-pass order=4 cutoff=20", np.float32, "double"),
    ("fxbutterworth order=16 cutoff=2000", np.float64, "auto"),
    ("fxbutterworth order=16 cutoff=2000", np.float32, "single"),
]


def timed(desc, x):
    best = float("inf")
    y = None
    for _ in range(3):
        t = time.perf_counter()
        y = filter_through(desc, x, RATE, split=4800)
        best = min(best, time.perf_counter() - t)
    return best, y


@pytest.mark.parametrize("desc,dtype,precision", CASES,
                         ids=["hp4-20Hz-F32-single", "hp4-20Hz-F32-double", "lp16-2k-F64",
                              "lp16-2k-F32-single"])
def test_decaying_tail_not_slower(desc, dtype, precision):
    """An impulse and 5 s of silence take at most 3x as long as 5 s of noise."""
    frames = 5 * RATE
    desc = "%s precision=%s" % (desc, precision)
    tail = np.zeros((frames, 2), dtype)
    tail[0, :] = 1.0
    t_noise, _ = timed(desc, noise(frames, 2, seed=1, dtype=dtype))
    t_tail, y = timed(desc, tail)
    sub = float(np.mean((np.abs(y) < np.finfo(dtype).tiny) & (y != 0)))
    record("denormal tail", "ratio_time", t_tail / t_noise, desc)
    record("denormal tail", "ratio_subnormal_out", sub, desc)
    assert np.all(np.isfinite(y))
    assert t_tail <= 3.0 * t_noise + 0.02, "silence tail %.3f s vs noise %.3f s" % (t_tail,
                                                                                      t_noise)
