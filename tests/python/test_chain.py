"""fxchain, the fusing bin (DESIGN section 2): the fused output equals the unfused chain's
(fuse=false) and scipy.signal.sosfilt with scipy's designs of the same chain, on random chains,
random signals and random buffer splits; also while child parameters change mid-stream and under
a controller on a child inside a fused run; one dispatch per buffer per cascade."""

import numpy as np
import pytest
import scipy.signal as ss

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

from conftest import (assert_clean, noise, record, rel_err, run_pipeline, ser_db,  # noqa: E402
                      split_sizes)
from test_control import attach_ramp, max_step, sine  # noqa: E402
from test_elements import lr_sos, rbj, sos_string  # noqa: E402

pytestmark = pytest.mark.usefixtures("fx")

RATE = 48000
F64_EQ_TOL = 1e-10  # fused vs unfused, F64 (the same sections in the same order)
F64_REF_TOL = 1e-8  # vs scipy sosfilt of scipy's designs (measured <= ~1e-12, see summary)

BTYPES = {"low-pass": "lowpass", "high-pass": "highpass", "band-pass": "bandpass",
          "band-reject": "bandstop"}


# ------------------------------------------------------------------------------------------------
# chains: gst-launch text and scipy's sections for the same stages


def stage(kind, rate, **p):
    """(launch text, scipy sos or None, linear gain) of one stage."""
    name = " name=%s" % p["name"] if "name" in p else ""
    if kind == "gain":
        return "fxgain%s gain=%r" % (name, p["gain"]), None, 10.0 ** (p["gain"] / 20.0)
    if kind == "biquad":
        b, a = rbj(p["type"], p["frequency"], p["q"], p["gain"], rate)
        return ("fxbiquad%s type=%s frequency=%r q=%r gain=%r"
                % (name, p["type"], p["frequency"], p["q"], p["gain"]),
                np.concatenate([b, a])[None, :], 1.0)
    if kind == "sos":
        return 'fxsos%s sections="%s"' % (name, sos_string(p["rows"])), np.asarray(p["rows"]), 1.0
    if kind == "lr":
        return ("fxlinkwitzriley%s mode=%s order=%d cutoff=%r"
                % (name, p["mode"], p["order"], p["cutoff"]),
                lr_sos(p["mode"], p["order"], p["cutoff"], rate), 1.0)
    btype = BTYPES[p["mode"]]
    wn = p["cutoff"]
    text = "mode=%s order=%d cutoff=%r" % (p["mode"], p["order"], p["cutoff"])
    if kind == "butter":
        sos = ss.butter(p["order"], wn, btype, fs=rate, output="sos")
        return "fxbutterworth%s %s" % (name, text), sos, 1.0
    if kind == "cheby1":
        sos = ss.cheby1(p["order"], p["ripple"], wn, btype, fs=rate, output="sos")
        return "fxchebyshev1%s %s ripple=%r" % (name, text, p["ripple"]), sos, 1.0
    if kind == "cheby2":
        sos = ss.cheby2(p["order"], p["attenuation"], wn, btype, fs=rate, output="sos")
        return "fxchebyshev2%s %s attenuation=%r" % (name, text, p["attenuation"]), sos, 1.0
    if kind == "ellip":
        sos = ss.ellip(p["order"], p["ripple"], p["attenuation"], wn, btype, fs=rate,
                       output="sos")
        return ("fxelliptic%s %s ripple=%r attenuation=%r"
                % (name, text, p["ripple"], p["attenuation"]), sos, 1.0)
    raise ValueError(kind)


def build(stages, rate):
    """(chain text, concatenated sos, total gain) of a list of (kind, params) stages."""
    texts, soss, gain = [], [], 1.0
    for kind, p in stages:
        t, s, g = stage(kind, rate, **p)
        texts.append(t)
        if s is not None:
            soss.append(s)
        gain *= g
    return " ! ".join(texts), np.vstack(soss), gain


def random_stages(rng, depth, with_gains=True):
    out = []
    for i in range(depth):
        k = rng.choice(["biquad", "butter", "sos", "cheby1", "cheby2", "ellip", "lr", "gain"]
                       if with_gains else ["biquad", "butter", "sos", "lr"])
        if k == "gain" and (i == 0 or out[-1][0] == "gain"):
            k = "biquad"
        mode = str(rng.choice(["low-pass", "high-pass"]))
        fc = float(np.round(rng.uniform(200, 12000)))
        if k == "gain":
            out.append(("gain", dict(gain=float(np.round(rng.uniform(-9, 6), 2)))))
        elif k == "biquad":
            out.append(("biquad", dict(type=str(rng.choice(["peaking", "low-shelf", "high-shelf",
                                                            "low-pass", "notch", "all-pass"])),
                                       frequency=fc, q=float(np.round(rng.uniform(0.4, 4), 3)),
                                       gain=float(np.round(rng.uniform(-9, 9), 2)))))
        elif k == "sos":
            out.append(("sos", dict(rows=ss.butter(2, fc, "lowpass", fs=RATE, output="sos"))))
        elif k == "lr":
            out.append(("lr", dict(mode=mode, order=int(rng.choice([2, 4, 8])), cutoff=fc)))
        elif k == "butter":
            out.append(("butter", dict(mode=mode, order=int(rng.integers(1, 9)), cutoff=fc)))
        elif k == "cheby1":
            out.append(("cheby1", dict(mode=mode, order=int(rng.integers(1, 7)), cutoff=fc,
                                       ripple=0.5)))
        elif k == "cheby2":
            out.append(("cheby2", dict(mode=mode, order=int(rng.integers(1, 7)), cutoff=fc,
                                       attenuation=40.0)))
        else:
            out.append(("ellip", dict(mode=mode, order=int(rng.integers(1, 6)), cutoff=fc,
                                      ripple=0.5, attenuation=50.0)))
    return out


def with_chain(chain, then=None):
    """configure callback: sets the bin's chain (then calls `then(pipeline)`)."""
    def configure(pipeline):
        pipeline.get_by_name("c").set_property("chain", chain)
        if then is not None:
            then(pipeline)
    return configure


def run_chain(chain, x, rate, fuse, split, rng=None, then=None, precision=None, **kw):
    bin_ = "fxchain name=c fuse=%s" % ("true" if fuse else "false")
    if precision:
        bin_ += " precision=%s" % precision
    res = run_pipeline(bin_, x, rate,
                       split=split, rng=rng, configure=with_chain(chain, then),
                       read_props=[("c", "dispatches"), ("c", "plan")], **kw)
    assert_clean(res, frames=x.shape[0])
    return res


def cascades(res):
    return sum(1 for line in res.props[("c", "plan")].splitlines()
               if line.split(": ", 1)[1].startswith("cascade"))


def scipy_f32_ser(sos, gain, x32, ref):
    y = ss.sosfilt(sos.astype(np.float32), x32, axis=0) * np.float32(gain)
    assert y.dtype == np.float32
    return ser_db(y, ref)


# ------------------------------------------------------------------------------------------------
# fused == unfused == scipy


SEEDS = list(range(8))


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["F64", "F32"])
@pytest.mark.parametrize("seed", SEEDS, ids=["chain%d" % s for s in SEEDS])
def test_fused_equals_unfused_and_scipy(seed, dtype):
    rng = np.random.default_rng(1000 + seed)
    stages = random_stages(rng, int(rng.integers(2, 9)))
    chain, sos, gain = build(stages, RATE)
    x = noise(RATE // 2, int(rng.integers(1, 4)), seed=seed, dtype=dtype)
    fused = run_chain(chain, x, RATE, True, "random", rng=np.random.default_rng(seed))
    # F32: precision=auto decides per cascade, so the unfused children each chose for their own
    # design (their float errors add up along the chain, and none is bound by scipy's float32 on
    # the whole chain); the unfused chain runs in double, the fused cascade under auto must still
    # reach scipy's float32 on the whole chain
    unfused = run_chain(chain, x, RATE, False, "random", rng=np.random.default_rng(seed + 99),
                        precision="double" if dtype == np.float32 else None)
    n_iir = sum(1 for k, _ in stages if k != "gain")
    assert cascades(fused) == 1, fused.props[("c", "plan")]
    assert cascades(unfused) == n_iir
    assert fused.props[("c", "dispatches")] == fused.buffers_in
    assert unfused.props[("c", "dispatches")] == n_iir * unfused.buffers_in

    ref = ss.sosfilt(sos, x.astype(np.float64), axis=0) * gain
    if dtype == np.float64:
        e_fu = rel_err(fused.y, unfused.y)
        e_ref = rel_err(fused.y, ref)
        record("chain fused vs unfused F64", "rel_err", e_fu, chain)
        record("chain fused vs scipy F64", "rel_err", e_ref, chain)
        assert e_fu <= F64_EQ_TOL, "%s: fused vs unfused %.3g" % (chain, e_fu)
        assert e_ref <= F64_REF_TOL, "%s: fused vs scipy %.3g" % (chain, e_ref)
    else:
        bar = scipy_f32_ser(sos, gain, x, ref)
        s_f, s_u = ser_db(fused.y, ref), ser_db(unfused.y, ref)
        record("chain fused F32", "ser", s_f - bar, chain)
        assert s_f >= bar - 1.0, "%s: fused SER %.1f dB < scipy float32 %.1f dB" % (chain, s_f,
                                                                                   bar)
        assert s_u >= bar - 1.0, "%s: unfused SER %.1f dB < scipy float32 %.1f dB" % (chain, s_u,
                                                                                     bar)


@pytest.mark.parametrize("depth", [2, 5, 10, 20])
def test_one_dispatch_per_buffer(depth):
    rng = np.random.default_rng(depth)
    chain, sos, gain = build(random_stages(rng, depth, with_gains=False), RATE)
    x = noise(20000, 2, seed=depth)
    fused = run_chain(chain, x, RATE, True, ("random", 100, 3000), rng=rng)
    assert fused.props[("c", "dispatches")] == fused.buffers_in
    assert cascades(fused) == 1
    assert rel_err(fused.y, ss.sosfilt(sos, x, axis=0) * gain) <= F64_REF_TOL


def test_plan_prints_the_precision_probe():
    """precision=auto on an F32 stream: the plan names the arithmetic that runs (backend) and the
    probe's measured errors behind it; the backend is f32 exactly where the float path beat scipy
    float32 by the 0.5 dB margin (or more), f64 otherwise, chunked where the probe's chunked
    double path reached 140 dB."""
    import re
    x = noise(8192, 2, seed=8, dtype=np.float32)
    # a low cutoff where the chunked float kernels gain (single) and a chain where they do not
    for chain in ("fxbutterworth order=8 cutoff=50",
                  "fxbutterworth mode=high-pass cutoff=80 order=4 ! "
                  "fxbutterworth mode=low-pass cutoff=12000 order=8"):
        res = run_chain(chain, x, RATE, True, 1024)
        plan = res.props[("c", "plan")]
        m = re.search(r"backend (cpu-\S+-f(32|64)(-chunk)?) \(auto: float (-?[0-9.]+|inf) dB, "
                      r"scipy-f32 (-?[0-9.]+|inf) dB(, chunked double (-?[0-9.]+|inf) dB)? "
                      r"SER vs double\)", plan)
        assert m, plan
        single, scipy = float(m.group(4)), float(m.group(5))
        if m.group(2) == "32":
            assert single >= scipy + 0.5, plan
        elif m.group(3):
            assert m.group(7) and float(m.group(7)) >= 140.0, plan
    # double and single: no probe in the plan
    res = run_chain("fxbutterworth order=8 cutoff=50", x, RATE, True, 1024, precision="double")
    assert "auto:" not in res.props[("c", "plan")], res.props[("c", "plan")]


def test_opaque_stage_splits_into_two_cascades():
    chain = ("fxbutterworth cutoff=5000 order=4 ! fxbiquad type=peaking gain=3 ! volume "
             "volume=0.5 ! fxbiquad type=low-shelf gain=-4 frequency=200 ! fxgain gain=2")
    x = noise(24000, 2, seed=4)
    res = run_chain(chain, x, RATE, True, "random", rng=np.random.default_rng(4))
    assert cascades(res) == 2
    assert res.props[("c", "dispatches")] == 2 * res.buffers_in
    s1 = ss.butter(4, 5000, fs=RATE, output="sos")
    b, a = rbj("peaking", 1000.0, 0.7071, 3.0, RATE)
    b2, a2 = rbj("low-shelf", 200.0, 0.7071, -4.0, RATE)
    sos = np.vstack([s1, np.concatenate([b, a]), np.concatenate([b2, a2])])
    ref = ss.sosfilt(sos, x, axis=0) * 0.5 * 10 ** (2 / 20)
    assert rel_err(res.y, ref) <= F64_REF_TOL


def test_renegotiation_redesigns():
    chain = "fxbutterworth cutoff=3000 order=6 ! fxbiquad type=high-shelf frequency=8000 gain=4"
    x1 = noise(9600, 2, seed=1)
    x2 = noise(19200, 1, seed=2)
    res = run_pipeline("fxchain name=c", [(x1, 48000), (x2, 96000)], split="random",
                       configure=with_chain(chain))
    assert not res.errors and res.eos
    for xp, rate, y in [(x1, 48000, res.pieces[0]), (x2, 96000, res.pieces[1])]:
        b, a = rbj("high-shelf", 8000.0, 0.7071, 4.0, rate)
        sos = np.vstack([ss.butter(6, 3000, fs=rate, output="sos"), np.concatenate([b, a])])
        assert rel_err(y, ss.sosfilt(sos, xp, axis=0)) <= F64_REF_TOL


# ------------------------------------------------------------------------------------------------
# parameter changes mid-stream


def change_at(buffer_index, changes):
    """then-callback: at input buffer `buffer_index`, sets (child, property, value) changes from a
    probe on appsrc's pad, i.e. just before that buffer enters the bin."""
    def then(pipeline):
        els = [(pipeline.get_by_name(n), prop, v) for n, prop, v in changes]
        count = [0]

        def probe(pad, info):
            if count[0] == buffer_index:
                for el, prop, v in els:
                    el.set_property(prop, v)
            count[0] += 1
            return Gst.PadProbeReturn.OK

        src = pipeline.get_by_name("fx_test_src").get_static_pad("src")
        src.add_probe(Gst.PadProbeType.BUFFER, probe)
    return then


CHANGE_CASES = [
    # chain, changes at buffer 10
    ("fxbutterworth name=lp cutoff=2000 order=4 ! fxbiquad name=pk type=peaking frequency=800 "
     "gain=6", [("lp", "cutoff", 6000.0)]),
    ("fxbiquad name=pk type=peaking frequency=800 gain=6 ! fxgain name=g gain=-3 ! "
     "fxbutterworth name=lp cutoff=2000 order=4", [("pk", "gain", -6.0)]),
    ("fxbiquad name=pk type=peaking frequency=800 gain=6 ! fxgain name=g gain=-3 ! "
     "fxbutterworth name=lp cutoff=2000 order=4", [("g", "gain", 3.0)]),
    # large jumps (warm-ups), one of them of an inner stage
    ("fxchebyshev1 name=c1 cutoff=5000 order=4 ! fxbiquad name=pk type=peaking frequency=800 "
     "gain=6 ! fxlinkwitzriley name=lr cutoff=300 mode=high-pass",
     [("c1", "cutoff", 1500.0), ("lr", "cutoff", 120.0)]),
    # a section count change of the last stage (warm-up on its input, rebuilt from the cascade's)
    ("fxbutterworth name=lp cutoff=2000 order=4 ! fxbiquad name=pk type=peaking frequency=800 "
     "gain=6 ! fxbutterworth name=hp mode=high-pass cutoff=120 order=2", [("hp", "order", 5)]),
    # gains before, between and after, changing together with a filter
    ("fxgain name=g0 gain=2 ! fxbiquad name=pk type=peaking frequency=800 gain=6 ! fxgain name=g "
     "gain=-3 ! fxbutterworth name=lp cutoff=2000 order=4 ! fxgain name=g2 gain=1",
     [("g0", "gain", -2.0), ("g", "gain", 3.0), ("lp", "cutoff", 3000.0), ("g2", "gain", -4.0)]),
]


@pytest.mark.parametrize("split", ["fixed", "random"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["F64", "F32"])
@pytest.mark.parametrize("chain,changes", CHANGE_CASES, ids=["case%d" % i for i in
                                                              range(len(CHANGE_CASES))])
def test_parameter_change_mid_stream(chain, changes, dtype, split):
    """The same change at the same buffer on the fused and on the unfused chain (both see the same
    buffers: a gain ramps over one buffer).

    The fused cascade runs every child as a stage of its own (fx_cascade_set_stages): only the
    changed child goes through a transition (history transfer or warm-up, crossfade at its own
    output, so the following children filter the faded signal) and a changed fxgain ramps over
    the buffer at its place, as in the unfused chain. So the two are equal throughout, the
    transition included: F64 <= 1e-10 relative over the whole output and over the transition
    alone (measured <= ~1e-14; before the stage-aware engine the transition differed by
    0.02-0.46 of the size of the change); F32: fused within the accuracy of the unfused chain
    against the F64 result (SER no more than 1 dB lower), over the whole output and over the
    transition."""
    k = 10
    x = noise(RATE // 2, 2, seed=17, dtype=dtype)
    # F32 streams in double arithmetic: the transitions are the subject here (precision=auto
    # may choose single for one design and double for another: see test_cascade.py)
    pr = "double" if dtype == np.float32 else None

    sizes = (480 if split == "fixed"
             else split_sizes(x.shape[0], ("random", 1, 1500), rng=np.random.default_rng(23)))
    fused = run_chain(chain, x, RATE, True, sizes, then=change_at(k, changes), precision=pr)
    unfused = run_chain(chain, x, RATE, False, sizes, then=change_at(k, changes), precision=pr)
    old = run_chain(chain, x, RATE, True, sizes, precision=pr).y.astype(np.float64)
    new = run_chain(apply_changes(chain, changes), x, RATE, True, sizes,
                    precision=pr).y.astype(np.float64)
    y_f, y_u = fused.y.astype(np.float64), unfused.y.astype(np.float64)
    n0 = k * 480 if split == "fixed" else int(sum(sizes[:k]))
    n1 = n0 + RATE // 10
    ratio = np.max(np.abs(y_f[n0:n1] - y_u[n0:n1])) / np.max(np.abs(new[n0:n1] - old[n0:n1]))
    record("chain change transition %s" % np.dtype(dtype).name, "ratio_fused_unfused", ratio,
           chain)
    if dtype == np.float64:
        e_all, e_tr = rel_err(y_f, y_u), rel_err(y_f[n0:n1], y_u[n0:n1])
        record("chain change fused vs unfused float64", "rel_err", max(e_all, e_tr), chain)
        assert e_all <= F64_EQ_TOL and e_tr <= F64_EQ_TOL, \
            "whole %.3g transition %.3g" % (e_all, e_tr)
    else:
        ref = run_chain(chain, x.astype(np.float64), RATE, False, sizes,
                        then=change_at(k, changes)).y
        for sl in (slice(None), slice(n0, n1)):
            s_f, s_u = ser_db(y_f[sl], ref[sl]), ser_db(y_u[sl], ref[sl])
            record("chain change fused F32 vs unfused F32", "ser_diff_db", s_f - s_u, chain)
            assert s_f >= s_u - 1.0, "fused SER %.1f dB, unfused %.1f dB" % (s_f, s_u)

    # Both settle on the new design (history carried, transients decayed).
    e_f, e_u = rel_err(y_f[n1:], new[n1:]), rel_err(y_u[n1:], new[n1:])
    record("chain change tail vs new design", "rel_err", max(e_f, e_u), chain)
    assert e_f <= 1e-6 and e_u <= 1e-6, "tail: fused %.3g unfused %.3g" % (e_f, e_u)
    # and neither clicks
    for y in (y_f, y_u):
        assert max_step(y[n0:n1]) <= 2.0 * max(max_step(old[n0:n1]), max_step(new[n0:n1]))


def apply_changes(chain, changes):
    """The chain text with the children's properties replaced by the changed values."""
    parts = chain.split(" ! ")
    for name, prop, v in changes:
        for i, part in enumerate(parts):
            words = part.split()
            if "name=%s" % name in words:
                words = [w for w in words if not w.startswith(prop + "=")] + ["%s=%r" % (prop, v)]
                parts[i] = " ".join(words)
    return " ! ".join(parts)


# ------------------------------------------------------------------------------------------------
# a controller on a child inside a fused run


RAMP = [(0, 500), (0.2, 500), (0.4, 4000), (1.0, 4000)]


def ramp_on_lp(pipeline):
    attach_ramp(pipeline, "lp", "cutoff", RAMP)


def test_controller_on_child_in_fused_run():
    """cutoff of a child inside a fused run automated 500 -> 4000 Hz: the output is that of the
    unfused chain with the same automation, before the ramp the 500 Hz design and after it the
    4000 Hz design (as for the standalone element, test_control.py)."""
    chain = ("fxbutterworth name=lp order=4 cutoff=500 ! fxbiquad name=pk type=peaking "
             "frequency=2000 gain=4")
    x = noise(RATE, 2, seed=51)
    fused = run_chain(chain, x, RATE, True, 480, then=ramp_on_lp)
    unfused = run_chain(chain, x, RATE, False, 480, then=ramp_on_lp)
    assert cascades(fused) == 1 and fused.props[("c", "dispatches")] == fused.buffers_in
    b, a = rbj("peaking", 2000.0, 0.7071, 4.0, RATE)
    pk = np.concatenate([b, a])[None, :]
    before = ss.sosfilt(np.vstack([ss.butter(4, 500, fs=RATE, output="sos"), pk]), x, axis=0)
    after = ss.sosfilt(np.vstack([ss.butter(4, 4000, fs=RATE, output="sos"), pk]), x, axis=0)
    n1, n2 = int(0.19 * RATE), int(0.6 * RATE)
    for y in (fused.y, unfused.y):
        assert rel_err(y[:n1], before[:n1]) <= 1e-9
        assert rel_err(y[n2:], after[n2:]) <= 1e-6
    mid = slice(int(0.29 * RATE), int(0.31 * RATE))
    assert rel_err(fused.y[mid], before[mid]) > 1e-3 and rel_err(fused.y[mid], after[mid]) > 1e-3
    # Fused == unfused, during the ramp too (every buffer brings new coefficients: the changed
    # stage's transitions are the standalone element's; measured: bit-identical).
    outside = np.r_[0:int(0.2 * RATE), int(0.5 * RATE):RATE]
    inside = slice(int(0.2 * RATE), int(0.5 * RATE))
    d_out = rel_err(fused.y[outside], unfused.y[outside])
    d_in = rel_err(fused.y[inside], unfused.y[inside])
    record("chain controller fused vs unfused", "rel_err_ramp", d_in, chain)
    assert d_out <= F64_EQ_TOL, "fused vs unfused outside the ramp: %.3g" % d_out
    assert d_in <= F64_EQ_TOL, "fused vs unfused during the ramp: %.3g" % d_in


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["F64", "F32"])
def test_controllers_on_gain_and_filters_random_split(dtype):
    """Controllers on a filter, on a gain between filters and on a trailing gain of a fused run,
    random buffer sizes (the same for both): fused equals unfused throughout (F64 <= 1e-10; F32
    within the accuracy of the unfused chain against the F64 result)."""
    chain = ("fxbiquad name=pk type=peaking frequency=1000 gain=4 ! fxgain name=g gain=0 ! "
             "fxbutterworth name=lp order=6 cutoff=6000 ! fxbiquad name=hs type=high-shelf "
             "frequency=3000 gain=-3 ! fxgain name=g2 gain=-2")

    def ramps(p):
        attach_ramp(p, "lp", "cutoff", [(0, 6000), (0.1, 6000), (0.4, 800), (1.0, 800)])
        attach_ramp(p, "g", "gain", [(0, 0), (0.15, 0), (0.3, -12), (0.35, 6), (1.0, 6)])
        attach_ramp(p, "g2", "gain", [(0, -2), (0.2, -2), (0.5, 3), (1.0, 3)])
        attach_ramp(p, "hs", "gain", [(0, -3), (0.25, -3), (0.45, 5), (1.0, 5)])

    x = noise(int(0.6 * RATE), 2, seed=61, dtype=dtype)
    sizes = split_sizes(x.shape[0], ("random", 1, 2000), rng=np.random.default_rng(61))
    fused = run_chain(chain, x, RATE, True, sizes, then=ramps)
    unfused = run_chain(chain, x, RATE, False, sizes, then=ramps)
    assert cascades(fused) == 1 and fused.props[("c", "dispatches")] == fused.buffers_in
    if dtype == np.float64:
        e = rel_err(fused.y, unfused.y)
        record("chain controllers random split F64", "rel_err", e, chain)
        assert e <= F64_EQ_TOL, "fused vs unfused %.3g" % e
    else:
        ref = run_chain(chain, x.astype(np.float64), RATE, False, sizes, then=ramps).y
        s_f, s_u = ser_db(fused.y, ref), ser_db(unfused.y, ref)
        record("chain controllers random split F32", "ser_diff_db", s_f - s_u, chain)
        assert s_f >= s_u - 1.0, "fused SER %.1f dB, unfused %.1f dB" % (s_f, s_u)


@pytest.mark.parametrize("v0,v1", [(2000, 12000), (15000, 1000)])
def test_controller_on_child_no_clicks(v0, v1):
    """A 440 Hz sine, the cutoff of an order-8 Butterworth inside a fused run ramped: the largest
    sample-to-sample step stays within 2x that of the input."""
    chain = "fxbiquad type=all-pass frequency=3000 ! fxbutterworth name=lp order=8 cutoff=%d" % v0
    x = sine(RATE)
    res = run_chain(chain, x, RATE, True, 256,
                    then=lambda p: attach_ramp(p, "lp", "cutoff",
                                               [(0, v0), (0.2, v0), (0.8, v1), (1.0, v1)]))
    assert cascades(res) == 1
    ratio = max_step(res.y[int(0.1 * RATE):]) / max_step(x)
    record("chain controller click", "ratio", ratio, "%g->%g" % (v0, v1))
    assert ratio <= 2.0, "largest step %.2fx that of the input" % ratio


SEED_CHAIN = ("fxbutterworth name=hp mode=high-pass cutoff=80 order=4 ! "
              "fxbutterworth name=lp mode=low-pass cutoff=12000 order=8")


def attach_on_buffer(n, element, child, prop, value):
    """configure hook: when the n-th buffer reaches `element`'s sink pad, attaches a controller
    holding `prop` of `child` at `value` (the controller arrives after n - 1 buffers ran with no
    control binding anywhere)."""
    def configure(pipeline):
        count = [0]

        def on_buffer(pad, info):
            count[0] += 1
            if count[0] == n:
                attach_ramp(pipeline, child, prop, [(0, value), (3600, value)])
            return Gst.PadProbeReturn.OK

        pipeline.get_by_name(element).get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER,
                                                                       on_buffer)
    return configure


@pytest.mark.parametrize("fuse", [True, False], ids=["fused", "unfused"])
@pytest.mark.parametrize("child,design", [
    ("hp", lambda: np.vstack([ss.butter(4, 1000, "highpass", fs=RATE, output="sos"),
                              ss.butter(8, 12000, fs=RATE, output="sos")])),
    ("lp", lambda: np.vstack([ss.butter(4, 80, "highpass", fs=RATE, output="sos"),
                              ss.butter(8, 2000, fs=RATE, output="sos")])),
], ids=["first-child", "last-child"])
def test_controller_attached_mid_stream(fuse, child, design):
    """The seed chain in 128-frame buffers runs 200 buffers with no control binding (the per-buffer
    path skips controller work then); a controller attached to a child at buffer 200 still takes
    effect: before it the output is the seed chain's, after the transition the new design's
    (scipy sosfilt of scipy's designs)."""
    n_at, split = 200, 128
    x = noise(RATE, 2, seed=61)
    res = run_pipeline("fxchain name=c fuse=%s" % ("true" if fuse else "false"), x, RATE,
                       split=split,
                       configure=with_chain(SEED_CHAIN, attach_on_buffer(
                           n_at, "c", child, "cutoff", 1000 if child == "hp" else 2000)),
                       read_props=[("c", "dispatches"), ("c", "plan")])
    assert_clean(res, frames=x.shape[0])
    assert cascades(res) == (1 if fuse else 2)
    before = ss.sosfilt(np.vstack([ss.butter(4, 80, "highpass", fs=RATE, output="sos"),
                                   ss.butter(8, 12000, fs=RATE, output="sos")]), x, axis=0)
    after = ss.sosfilt(design(), x, axis=0)
    n1, n2 = (n_at - 1) * split, int(0.8 * RATE)
    e_before = rel_err(res.y[:n1], before[:n1])
    e_after = rel_err(res.y[n2:], after[n2:])
    assert e_before <= 1e-9, "before the controller: %.3g off the seed chain" % e_before
    assert e_after <= 1e-6, "controller attached mid-stream not honoured: %.3g off" % e_after


# ------------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize("chain,expect", [
    ("fxbiquad ! nosuchelement", "nosuchelement"),
    ("fxbiquad ! tee ! fxsos", "tee"),
    ("fxbiquad ! fakesink", "fakesink"),
    ("fxbiquad ! ! fxsos", "does not parse"),
])
def test_bad_chain_is_an_error(chain, expect):
    res = run_pipeline("fxchain name=c", noise(4800, 1, seed=1), RATE, split=480,
                       configure=with_chain(chain), expect_error=True, timeout=10)
    assert res.errors, "no error for %r" % chain
    assert any(expect in e[1] for e in res.errors), res.error_text()


def _range(factory, prop):
    p = Gst.ElementFactory.make(factory, None).find_property(prop)
    return ("[%g, %g]" if isinstance(p.minimum, float) else "[%d, %d]") % (p.minimum, p.maximum)


@pytest.mark.parametrize("chain,expect", [
    ("fxbiquad ! fxgain gain=-200", ["fxgain", "gain=-200", "out of range"]),
    ("fxbutterworth order=65", ["fxbutterworth", "order=65", "out of range"]),
    ("fxbutterworth cutoff=-100", ["fxbutterworth", "cutoff=-100", "out of range", "(0, "]),
    ("fxbutterworth mode=sideways",
     ["fxbutterworth", "mode=sideways", "low-pass", "high-pass", "band-pass", "band-reject"]),
    ("fxgain bogus=1", ["fxgain", "bogus"]),
    ("t. ! queue ! tee name=t t. ! queue", ["t.", "not supported"]),
    ("identity b.identity ! identity) !", ["b.identity", "not supported"]),
    ("fxbiquad ! ( fxgain )", ["brackets", "not supported"]),
])
def test_bad_value_in_chain_posts_an_error_naming_it(chain, expect):
    """A value the property does not take is an error (the element posts it and does not start),
    not a clamped or default value with a GLib warning; references and brackets are refused (the
    two reference descriptions crash GStreamer's own parser). The ranges are the GParamSpecs'."""
    if "gain=-200" in chain:
        expect = expect + [_range("fxgain", "gain")]
    if "order=65" in chain:
        expect = expect + [_range("fxbutterworth", "order")]
    res = run_pipeline("fxchain name=c", noise(4800, 1, seed=1), RATE, split=480,
                       configure=with_chain(chain), expect_error=True, timeout=10)
    assert res.errors, "no error for %r" % chain
    mine = [e for e in res.errors if e[0] == "c"]
    assert mine, res.error_text()
    assert all(x in mine[0][1] for x in expect), (expect, res.error_text())
    assert "\n" not in mine[0][1]
    assert res.y is None or res.y.shape[0] == 0


def test_wiring_does_not_query_caps_through_the_chain():
    """Wiring links each stage with template caps only: linking with the default caps check queried
    the caps of the chain linked so far for every link, which made NULL->READY quadratic in the
    length. Counted, not timed: the CAPS queries seen on the children's pads while a 64-element
    unfused chain goes to READY grow linearly at most (0 expected; quadratic would be ~2000)."""
    n = 64
    c = Gst.ElementFactory.make("fxchain", None)
    c.set_property("fuse", False)
    c.set_property("chain", " ! ".join(["fxgain clip=true"] * n))
    count = [0]

    def on_query(pad, info):
        if info.get_query().type == Gst.QueryType.CAPS:
            count[0] += 1
        return Gst.PadProbeReturn.OK

    it = c.iterate_elements()
    children = []
    while True:
        ok, e = it.next()
        if ok != Gst.IteratorResult.OK:
            break
        children.append(e)
    assert len(children) == n
    for e in children:
        for pad in e.pads:
            pad.add_probe(Gst.PadProbeType.QUERY_BOTH, on_query)
    assert c.set_state(Gst.State.READY) == Gst.StateChangeReturn.SUCCESS
    plan = c.get_property("plan")
    c.set_state(Gst.State.NULL)
    assert len(plan.splitlines()) == n, plan
    assert count[0] <= 2 * n, count[0]


def test_invalid_child_change_is_refused_with_a_warning():
    """An invalid value for a child in a fused run while playing: a warning naming the child, the
    property, its value and the range; the previous coefficients stay."""
    chain = "fxbiquad name=pk type=peaking gain=3 ! fxbutterworth name=lp cutoff=2000 order=4"
    x = noise(9600, 1, seed=3)
    res = run_pipeline("fxchain name=c", x, RATE, split=480,
                       configure=with_chain(chain, change_at(5, [("lp", "cutoff", 30000.0)])))
    assert not res.errors and res.eos
    assert any("lp" in w[1] and "cutoff" in w[1] and "30000" in w[1] and "24000" in w[1]
               for w in res.warnings), res.warning_text()
    b, a = rbj("peaking", 1000.0, 0.7071, 3.0, RATE)
    sos = np.vstack([np.concatenate([b, a]), ss.butter(4, 2000, fs=RATE, output="sos")])
    assert rel_err(res.y, ss.sosfilt(sos, x, axis=0)) <= F64_REF_TOL


def test_clip_on_a_folded_gain_warns():
    """clip=true on an fxgain folded into a fused cascade cannot apply while playing (the plan is
    made on NULL->READY): one warning naming the gain; processing goes on."""
    chain = "fxbiquad ! fxgain name=g gain=-3 ! fxbutterworth cutoff=5000"
    x = noise(9600, 1, seed=5)
    res = run_pipeline("fxchain name=c", x, RATE, split=480,
                       configure=with_chain(chain, change_at(3, [("g", "clip", True)])))
    assert not res.errors and res.eos and res.y.shape[0] == x.shape[0]
    hits = [w for w in res.warnings if "g:" in w[1] and "clip" in w[1]]
    assert len(hits) == 1, res.warning_text()
