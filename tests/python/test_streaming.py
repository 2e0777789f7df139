"""DESIGN section 3, Streaming: output never depends on buffer boundaries (F64 <= 1e-12 relative,
F32 within rounding, bit-identical on the chunked kernels). The same input in one buffer, in
random splits and in 1-frame buffers."""

import numpy as np
import pytest

from conftest import assert_clean, filter_through, noise, record, rel_err, run_pipeline

pytestmark = pytest.mark.usefixtures("fx")

ELEMENTS = [
    "fxbutterworth mode=low-pass cutoff=200 order=8",
    "fxbutterworth mode=band-pass lower-frequency=300 upper-frequency=3000 order=16",
    "fxchebyshev1 mode=high-pass cutoff=500 order=6 ripple=1",
    "fxchebyshev2 mode=band-reject lower-frequency=1000 upper-frequency=2000 order=5",
    "fxelliptic mode=low-pass cutoff=4000 order=12",
    "fxlinkwitzriley mode=high-pass cutoff=2000 order=8",
    "fxbiquad type=peaking frequency=700 q=3 gain=9",
    'fxsos sections="1 2 1 1 -1.6 0.7; 0.5 0 -0.5 2 -1.8 0.9"',
    "fxgain gain=-3",
]
IDS = ["butter-lp8", "butter-bp16", "cheby1-hp6", "cheby2-br5", "ellip-lp12", "lr-hp8",
       "biquad-peaking", "sos-2rows", "gain"]


def _splits(frames, seed):
    return [("random", np.random.default_rng(seed)),
            (("random", 1, 64), np.random.default_rng(seed + 1)),
            ([frames // 2 - 1, 1, frames - frames // 2], None)]


@pytest.mark.parametrize("channels", [1, 2, 5])
@pytest.mark.parametrize("desc", ELEMENTS, ids=IDS)
def test_split_invariance_f64(desc, channels):
    rate = 48000
    frames = 12000
    x = noise(frames, channels, seed=channels)
    whole = filter_through(desc, x, rate, split=None)
    assert np.all(np.isfinite(whole))
    for split, rng in _splits(frames, 100 + channels):
        y = filter_through(desc, x, rate, split=split, rng=rng)
        err = rel_err(y, whole)
        record("streaming F64", "rel_err", err, desc)
        assert err <= 1e-12, "%s split %r: relative difference %.3g" % (desc, split, err)


@pytest.mark.parametrize("desc", ELEMENTS, ids=IDS)
def test_one_frame_buffers_f64(desc):
    """A short signal pushed one frame per buffer."""
    rate = 48000
    frames = 1500
    x = noise(frames, 2, seed=5)
    whole = filter_through(desc, x, rate, split=None)
    y = filter_through(desc, x, rate, split=1)
    err = rel_err(y, whole)
    record("streaming 1-frame F64", "rel_err", err, desc)
    assert err <= 1e-12, "%s: 1-frame buffers differ by %.3g" % (desc, err)


@pytest.mark.parametrize("desc", ELEMENTS[:3] + ELEMENTS[6:8], ids=IDS[:3] + IDS[6:8])
@pytest.mark.parametrize("precision", ["auto", "single", "double"])
def test_split_invariance_f32(desc, precision):
    """F32, stereo: where the element runs the chunked kernels (its backend ends in "-chunk"),
    every split gives bit-identical output: every call, however short, runs them, and a chunk cut
    by a buffer boundary goes on from its record. Elsewhere within rounding: the sequential
    kernels' time-block path for long calls (three or more section-channels per lane group)
    rounds differently from short calls; in double arithmetic that is the output's rounding
    (1e-5 relative), in float arithmetic also the arithmetic's own (twice the whole run's
    distance from double arithmetic)."""
    rate = 48000
    frames = 9600
    x = noise(frames, 2, seed=11, dtype=np.float32)
    base = desc
    name = "f"
    if not desc.startswith("fxgain"):
        desc = "%s name=%s precision=%s" % (desc, name, precision)
    res = run_pipeline(desc, x, rate, split=None,
                       read_props=[(name, "backend")] if desc != base else ())
    assert_clean(res, frames=frames)
    whole = res.y
    backend = res.props.get((name, "backend"), "")
    exact = backend.endswith("-chunk")
    bar = 1e-5
    if not exact and desc != base and precision != "double":
        ref = filter_through(base + " precision=double", x, rate, split=None)
        bar = max(bar, 2.0 * rel_err(whole, ref))
    for split, rng in _splits(frames, 200)[:2] + [(1, None)]:
        xs, w = (x, whole) if split != 1 else (x[:1500], whole[:1500])
        y = filter_through(desc, xs, rate, split=split, rng=rng)
        if exact:
            assert np.array_equal(y, w), "%s (%s) split %r: %d samples differ" % (
                desc, backend, split, int(np.sum(y != w)))
            continue
        err = rel_err(y, w)
        record("streaming F32 " + precision, "rel_err", err, desc)
        assert err <= bar, "%s split %r: relative difference %.3g (bar %.3g)" % (desc, split, err,
                                                                               bar)
