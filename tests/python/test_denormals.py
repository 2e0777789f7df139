"""DESIGN section 3, Denormals: decaying tails must not slow processing down.

An impulse followed by silence drives the state of these filters through the subnormal range
(scipy's sosfilt, which does not flush to zero, leaves 66% (float32, 20 Hz high-pass) and 88%
(float64, 16th-order 2 kHz low-pass) of such a tail subnormal). Subnormal arithmetic costs
10-100x on many x86 cores; the elements must not slow down (DESIGN section 4: flush-to-zero in
kernels). Timing never decides a test: what is checked is the deterministic cause, subnormal
values, which flush-to-zero keeps out of the output (tests/dsp/test_subnormals.c checks the state
of every kernel too)."""

import os
import subprocess

import numpy as np
import pytest

from conftest import filter_through, record

pytestmark = pytest.mark.usefixtures("fx")

RATE = 48000
CASES = [
    ("fxbutterworth mode=high-pass order=4 cutoff=20", np.float32, "single"),
    ("fxbutterworth mode=high-pass order=4 cutoff=20", np.float32, "double"),
    ("fxbutterworth order=16 cutoff=2000", np.float64, "auto"),
    ("fxbutterworth order=16 cutoff=2000", np.float32, "single"),
]


SCIPY_DESIGN = {
    "fxbutterworth mode=high-pass order=4 cutoff=20": (4, 20, "highpass"),
    "fxbutterworth order=16 cutoff=2000": (16, 2000, "lowpass"),
}


def exact_tail_subnormals(order, cutoff, btype, frames, dtype_name):
    """Subnormal samples (of dtype) in the exact impulse response (scipy, float64), computed in a
    fresh interpreter: in this process another library may have left flush-to-zero on in the
    main thread (seen under AddressSanitizer), which would flush the reference itself."""
    code = ("import numpy as np, scipy.signal as ss\n"
            "x = np.zeros(%d); x[0] = 1.0\n"
            "y = ss.sosfilt(ss.butter(%d, %r, %r, fs=%d, output='sos'), x)\n"
            "t = np.finfo(np.%s).tiny\n"
            "print(int(np.count_nonzero((np.abs(y) < t) & (y != 0))))\n"
            % (frames, order, float(cutoff), btype, RATE, dtype_name))
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    r = subprocess.run(["/usr/bin/python3", "-c", code], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return 2 * int(r.stdout.strip())  # two identical channels


def subnormals(y, dtype):
    return int(np.count_nonzero((np.abs(y) < np.finfo(dtype).tiny) & (y != 0)))


@pytest.mark.parametrize("desc,dtype,precision", CASES,
                         ids=["hp4-20Hz-F32-single", "hp4-20Hz-F32-double", "lp16-2k-F64",
                              "lp16-2k-F32-single"])
def test_decaying_tail_flushes_to_zero(desc, dtype, precision):
    """An impulse and 5 s of silence: the exact tail (scipy's sosfilt in float64, no flush-to-zero)
    passes through the subnormal range of the stream's type, which shows the case reaches it; the
    element's output holds no subnormal sample."""
    frames = 5 * RATE
    tail = np.zeros((frames, 2), dtype)
    tail[0, :] = 1.0
    order, cutoff, btype = SCIPY_DESIGN[desc]
    ref_sub = exact_tail_subnormals(order, cutoff, btype, frames, np.dtype(dtype).name)
    y = filter_through("%s precision=%s" % (desc, precision), tail, RATE, split=4800)
    sub = subnormals(y, dtype)
    record("denormal tail", "subnormal_out_scipy", ref_sub, desc)
    record("denormal tail", "subnormal_out", sub, desc)
    assert ref_sub > 0, "the case does not reach the subnormal range"
    assert np.all(np.isfinite(y))
    assert sub == 0, "%d subnormal output samples (scipy: %d)" % (sub, ref_sub)
