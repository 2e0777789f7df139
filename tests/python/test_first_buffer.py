"""A setting made before the first buffer applies from the first sample (issue 14, item 7).

Every element with ramped or crossfaded parameters (fxfir's kernel crossfade, the dynamics'
makeup glide, fxgain's ramp, the IIR elements' and fxeq's cascade crossfades, fxdelay's and
fxreverb's ramps) is set up with caps negotiated, and the property is changed before any audio
reaches it, through the two paths a user has:

- from the streaming thread, in a probe on the element's sink pad when the first buffer arrives
  (after the caps event: the element is configured);
- from the application thread while the streaming thread is held in that probe (so the change
  lands between caps and the first buffer whatever the scheduling).

The output must equal an independent reference of the new setting from sample 0 (scipy's lfilter
of firwin / of the kernel, sosfilt of the new design, closed forms), with no crossfade, glide or
ramp from the old setting. Each case runs several times (nothing relies on a thread race).
Signals come from a fixed seed; FX_TEST_SEED picks another (printed on failure).
"""

import os
import threading

import numpy as np
import pytest
import scipy.signal as ss

from conftest import Gst, assert_clean, noise, run_pipeline, set_on_buffer

pytestmark = pytest.mark.usefixtures("fx")

RATE = 48000
SEED = int(os.environ.get("FX_TEST_SEED", "20261201"))
REPEATS = 3


def set_from_app_thread(prop, value, name="fx"):
    """A run_pipeline configure hook: holds the streaming thread in a probe on the element's sink
    pad when the first buffer arrives (caps are negotiated by then), sets prop from another
    (application) thread meanwhile, and lets the buffer through once set_property returned."""

    def configure(pipeline):
        el = pipeline.get_by_name(name)
        arrived, done = threading.Event(), threading.Event()
        count = [0]

        def on_buffer(pad, info):
            count[0] += 1
            if count[0] == 1:
                arrived.set()
                assert done.wait(30.0), "the application thread did not set %s" % prop
            return Gst.PadProbeReturn.OK

        def app():
            if arrived.wait(30.0):
                if "::" in prop:
                    Gst.ChildProxy.set_property(el, prop, value)
                else:
                    el.set_property(prop, value)
            done.set()

        el.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, on_buffer)
        threading.Thread(target=app, daemon=True).start()

    return configure


def set_in_streaming_thread(prop, value, name="fx"):
    if "::" not in prop:
        return set_on_buffer(1, prop, value, name)

    def configure(pipeline):
        el = pipeline.get_by_name(name)
        count = [0]

        def on_buffer(pad, info):
            count[0] += 1
            if count[0] == 1:
                Gst.ChildProxy.set_property(el, prop, value)
            return Gst.PadProbeReturn.OK

        el.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, on_buffer)

    return configure


HOOKS = {"streaming-thread": set_in_streaming_thread, "app-thread": set_from_app_thread}


def signal(frames=6000, channels=2, dtype=np.float64, amplitude=0.5, salt=0):
    return noise(frames, channels, seed=SEED + salt, dtype=dtype, amplitude=amplitude)


def check(desc, x, prop, value, ref, hook, tol, split=1024):
    """Runs desc with prop set before the first buffer, REPEATS times; the output must match ref
    (relative to ref's peak) from sample 0, the first 5 ms (the crossfade/ramp time) included."""
    for rep in range(REPEATS):
        res = run_pipeline(desc, x, RATE, split=split, configure=HOOKS[hook](prop, value))
        assert_clean(res)
        # fxdelay pushes its tail at EOS: the first len(x) frames are the filtered input
        assert res.y.shape[0] >= len(x)
        y = res.y[:len(x)].astype(np.float64)
        peak = np.max(np.abs(ref))
        head = int(0.02 * RATE)
        err_head = np.max(np.abs(y[:head] - ref[:head])) / peak
        err = np.max(np.abs(y - ref)) / peak
        assert err_head <= tol and err <= tol, (
            "%s: %s=%r set before the first buffer (%s, run %d): relative error %.3g in the "
            "first 20 ms, %.3g overall (tolerance %g); seed %d"
            % (desc, prop, value, hook, rep, err_head, err, tol, SEED))


# ------------------------------------------------------------------------------------------------
# fxfir: no crossfade from the default kernel


@pytest.mark.parametrize("hook", sorted(HOOKS))
@pytest.mark.parametrize("num_taps", [101, 1001])
def test_fir_cutoff_before_first_buffer(num_taps, hook):
    x = signal()
    taps = ss.firwin(num_taps, 5000.0, window="hamming", fs=RATE)
    ref = ss.lfilter(taps, 1.0, x, axis=0)
    check("fxfir name=fx num-taps=%d cutoff=1000" % num_taps, x, "cutoff", 5000.0, ref, hook,
          1e-10)


@pytest.mark.parametrize("hook", sorted(HOOKS))
@pytest.mark.parametrize("n_taps", [7, 2001])
def test_fir_kernel_before_first_buffer(n_taps, hook):
    x = signal(salt=1)
    taps = np.random.default_rng(SEED + n_taps).standard_normal(n_taps) / np.sqrt(n_taps)
    ref = ss.lfilter(taps, 1.0, x, axis=0)
    check("fxfir name=fx", x, "kernel", Gst.ValueArray([float(t) for t in taps]), ref, hook,
          1e-10)


# ------------------------------------------------------------------------------------------------
# dynamics: the makeup gain does not glide up from its old value


@pytest.mark.parametrize("hook", sorted(HOOKS))
@pytest.mark.parametrize("element", ["fxcompressor", "fxgate"])
def test_makeup_before_first_buffer(element, hook):
    # compressor: a signal far below the threshold (and its knee) gets no gain reduction;
    # gate: a signal far above the threshold is never attenuated (hold keeps it open); the
    # output is then exactly x * 10^(makeup/20)
    if element == "fxcompressor":
        desc = "fxcompressor name=fx threshold=-20 knee=6 attack=0 release=10"
        amp = 0.01  # -40 dB peak
    else:
        desc = "fxgate name=fx threshold=-80 knee=0 attack=0 hold=1000 release=1000 range=-80"
        amp = 0.5
    x = signal(amplitude=amp, salt=2)
    if element == "fxgate":
        # keep every sample above the threshold (-80 dB), so the detector never falls below it
        x = np.sign(x) * np.maximum(np.abs(x), 0.01)
        x[x == 0] = 0.01
    ref = x * 10.0 ** (12.0 / 20.0)
    check(desc, x, "makeup", 12.0, ref, hook, 1e-12)


# ------------------------------------------------------------------------------------------------
# fxgain: no ramp from unity


@pytest.mark.parametrize("hook", sorted(HOOKS))
def test_gain_before_first_buffer(hook):
    x = signal(salt=3)
    check("fxgain name=fx", x, "gain", -12.0, x * 10.0 ** (-12.0 / 20.0), hook, 1e-12)


# ------------------------------------------------------------------------------------------------
# IIR elements and fxeq: no crossfade from the old sections


@pytest.mark.parametrize("hook", sorted(HOOKS))
@pytest.mark.parametrize("order", [2, 8])
def test_iir_cutoff_before_first_buffer(order, hook):
    x = signal(salt=4)
    sos = ss.butter(order, 5000.0, fs=RATE, output="sos")
    ref = ss.sosfilt(sos, x, axis=0)
    check("fxbutterworth name=fx order=%d cutoff=500" % order, x, "cutoff", 5000.0, ref, hook,
          1e-9)


@pytest.mark.parametrize("hook", sorted(HOOKS))
def test_eq_band_gain_before_first_buffer(hook):
    from test_eq import eq_text, reference

    x = signal(salt=5)
    bands = [dict(type="peaking", frequency=1000.0, q=1.0, gain=0.0)]
    new = [dict(bands[0], gain=9.0)]
    check(eq_text(bands), x, "band0::gain", 9.0, reference(new, 0.0, x, RATE), hook, 1e-9)


@pytest.mark.parametrize("hook", sorted(HOOKS))
def test_eq_pre_gain_before_first_buffer(hook):
    from test_eq import eq_text, reference

    x = signal(salt=6)
    bands = [dict(type="peaking", frequency=1000.0, q=1.0, gain=6.0)]
    check(eq_text(bands), x, "pre-gain", -9.0, reference(bands, -9.0, x, RATE), hook, 1e-9)


# ------------------------------------------------------------------------------------------------
# fxdelay, fxreverb: no ramp from the old setting


@pytest.mark.parametrize("hook", sorted(HOOKS))
def test_delay_before_first_buffer(hook):
    # feedback 0: the output is (1 - mix) x + mix x[n - D]; mix set before the first buffer
    x = signal(salt=7)
    d = int(0.010 * RATE)
    delayed = np.zeros_like(x)
    delayed[d:] = x[:-d]
    ref = 0.0 * x + 1.0 * delayed
    check("fxdelay name=fx delay=10 feedback=0 mix=0.5", x, "mix", 1.0, ref, hook, 1e-12)


@pytest.mark.parametrize("hook", sorted(HOOKS))
def test_reverb_before_first_buffer(hook):
    # mix 0: the output is the dry signal
    x = signal(salt=8)
    check("fxreverb name=fx mix=0.5", x, "mix", 0.0, x, hook, 1e-12)


# ------------------------------------------------------------------------------------------------
# fxchain: a fused (or unfused) chain's children, changed before the first buffer


@pytest.mark.parametrize("fuse", [True, False])
def test_chain_children_before_first_buffer(fuse):
    x = signal(salt=9)
    chain = "fxgain name=g gain=0 ! fxbutterworth name=lp order=4 cutoff=500"
    ref = ss.sosfilt(ss.butter(4, 5000.0, fs=RATE, output="sos"), x, axis=0) * 10 ** (-12 / 20)

    def configure(pipeline):
        c = pipeline.get_by_name("c")
        c.set_property("chain", chain)
        count = [0]

        def on_buffer(pad, info):
            count[0] += 1
            if count[0] == 1:
                c.get_by_name("g").set_property("gain", -12.0)
                c.get_by_name("lp").set_property("cutoff", 5000.0)
            return Gst.PadProbeReturn.OK

        c.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, on_buffer)

    for rep in range(REPEATS):
        res = run_pipeline("fxchain name=c fuse=%s" % ("true" if fuse else "false"), x, RATE,
                           split=1024, configure=configure)
        assert_clean(res, len(x))
        err = np.max(np.abs(res.y - ref)) / np.max(np.abs(ref))
        assert err <= 1e-9, ("fxchain fuse=%s: children changed before the first buffer (run %d): "
                             "relative error %.3g; seed %d" % (fuse, rep, err, SEED))
