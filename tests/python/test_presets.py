"""GstPreset on the fx elements and the factory presets of presets/ (issue 18, item 5).

Every element implements GstPreset (GStreamer's default keyfile implementation, gst/gstfxpreset.c).
Every factory preset is loaded on a fresh element; every key of its file, parsed here with
configparser independently of GLib, must be the element's property value afterwards; then its
output is checked against an independent reference: scipy's sosfilt/sosfreqz of the designs the
preset's parameters describe (fxeq through the RBJ cookbook formulas, fxbutterworth through
scipy.signal.butter, fxlinkwitzriley as a squared Butterworth, and the low and high presets of one
crossover summing to an all-pass), the numpy references of test_dynamics.py and test_reverb.py
for the dynamics and the reverb, and closed forms: the compressor's and gate's static curves at
steady levels, the limiter's ceiling, and the reverb's low-frequency decay time against the comb
feedback (RT60 = 3 L / (rate * -log10 fb)), with the rooms ordered by size. Saving, loading and
deleting a user preset run in a child process whose XDG_DATA_HOME is a temporary directory, so
nothing is written to the real home (GLib caches the user data directory at the first use).

The factory presets are read from the source tree's presets/ (GST_PRESET_PATH, set below before
any preset is touched). A user's own preset file for an fx element (in
$XDG_DATA_HOME/gstreamer-1.0/presets) replaces the factory presets of that element, as GStreamer's
default implementation does: the factory tests fail then, naming the file.
"""

import configparser
import glob
import json
import math
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.signal as ss

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, GObject, Gst  # noqa: E402

from conftest import (FX_ELEMENTS, assert_clean, read_prs_file, record, rel_err,  # noqa: E402
                      require_fx, run_pipeline)
from cookbook import rbj  # noqa: E402
from test_dynamics import (bursty, comp_curve, dc, gate_curve, ref_dynamics,  # noqa: E402
                           ref_limiter)
from test_reverb import COMBS, SPREAD, ref_reverb, scaled  # noqa: E402

PRESETS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "presets")
os.environ["GST_PRESET_PATH"] = PRESETS_DIR + (
    ":" + os.environ["GST_PRESET_PATH"] if os.environ.get("GST_PRESET_PATH") else "")

ALL_ELEMENTS = FX_ELEMENTS + ("fxchain",)
# GstObject/GstBin/GstBaseTransform properties that are not settings of an fx element
NOT_SETTINGS = {"name", "parent", "qos", "async-handling", "message-forward"}


def read_prs(path):
    """{preset: {key: value string}} and the header of a .prs file, parsed without GLib."""
    cp = read_prs_file(path)
    header = dict(cp["_presets_"])
    presets = {s: dict(cp[s]) for s in cp.sections() if not s.startswith("_")}
    return header, presets


def factory_files():
    return sorted(glob.glob(os.path.join(PRESETS_DIR, "*.prs")))


def factory_cases():
    cases = []
    for path in factory_files():
        header, presets = read_prs(path)
        for name in presets:
            cases.append((header["element-name"], name))
    return cases


def factory(type_name):
    return {"GstFxEq": "fxeq", "GstFxReverb": "fxreverb", "GstFxCompressor": "fxcompressor",
            "GstFxGate": "fxgate", "GstFxLimiter": "fxlimiter",
            "GstFxButterworth": "fxbutterworth",
            "GstFxLinkwitzRiley": "fxlinkwitzriley", "GstFxChain": "fxchain"}[type_name]


def settings(type_name, preset):
    _, presets = read_prs(os.path.join(PRESETS_DIR, type_name + ".prs"))
    return {k: v for k, v in presets[preset].items() if not k.startswith("_meta/")}


@pytest.fixture(autouse=True)
def _fx():
    require_fx(*ALL_ELEMENTS)


def user_preset_files():
    return sorted(glob.glob(os.path.join(GLib.get_user_data_dir(), "gstreamer-1.0", "presets",
                                         "GstFx*.prs")))


@pytest.fixture
def factory_only():
    found = user_preset_files()
    if found:
        pytest.fail("user preset files replace the factory presets of these elements: %s "
                    "(run with XDG_DATA_HOME=<an empty directory> to test the factory presets)"
                    % ", ".join(found), pytrace=False)


def target(el, key):
    """(object, property name) that a preset key addresses (`child::property` on a child)."""
    if "::" in key:
        child, prop = key.split("::", 1)
        obj = el.get_child_by_name(child)
        assert obj is not None, "%s: no child %r" % (el.get_name(), child)
        return obj, prop
    return el, key


def assert_value(el, key, text):
    """The property value equals the keyfile string, converted by the property's type."""
    obj, prop = target(el, key)
    pspec = obj.find_property(prop)
    assert pspec is not None, "%s has no property %r" % (el.get_name(), key)
    got = obj.get_property(prop)
    vt = pspec.value_type
    if vt in (GObject.TYPE_DOUBLE, GObject.TYPE_FLOAT):
        assert got == float(text), "%s: %r != %s" % (key, got, text)
    elif vt in (GObject.TYPE_INT, GObject.TYPE_UINT, GObject.TYPE_INT64, GObject.TYPE_UINT64):
        assert got == int(text), "%s: %r != %s" % (key, got, text)
    elif vt == GObject.TYPE_BOOLEAN:
        assert text in ("true", "false"), "%s: %r is not a keyfile boolean" % (key, text)
        assert got == (text == "true"), "%s: %r != %s" % (key, got, text)
    elif vt.is_a(GObject.TYPE_ENUM):
        assert got.value_nick == text, "%s: %s != %s" % (key, got.value_nick, text)
    elif vt == GObject.TYPE_STRING:
        # a hand-written keyfile string is gst_value_serialize's quoted form; ours have no escapes
        assert "\\" not in text, "%s: escapes in %r" % (key, text)
        if len(text) >= 2 and text[0] == text[-1] == '"':
            text = text[1:-1]
        assert got == text, "%s: %r != %r" % (key, got, text)
    else:
        assert str(got) == text, "%s: %r != %s" % (key, got, text)


def loaded(type_name, preset, before=None):
    """A fresh element of the type with the preset loaded (before: called on it first)."""
    el = Gst.ElementFactory.make(factory(type_name), None)
    if before is not None:
        before(el)
    assert Gst.Preset.load_preset(el, preset), "load_preset(%s, %r) failed" % (type_name, preset)
    return el


# ------------------------------------------------------------------------------------------------
# the interface on every element


@pytest.mark.parametrize("name", ALL_ELEMENTS)
def test_every_element_implements_gstpreset(name):
    el = Gst.ElementFactory.make(name, None)
    assert isinstance(el, Gst.Preset), "%s does not implement GstPreset" % name
    assert Gst.Preset.is_editable(el)
    props = Gst.Preset.get_property_names(el)
    assert props, "%s: no preset properties" % name
    plain = [p.split("::")[-1] for p in props]
    assert not NOT_SETTINGS & set(plain), "%s stores %s" % (name, NOT_SETTINGS & set(plain))
    # every listed property is readable and writable on the element or one of its children
    for p in props:
        obj, prop = target(el, p)
        pspec = obj.find_property(prop)
        assert pspec.flags & GObject.ParamFlags.READWRITE == GObject.ParamFlags.READWRITE, p
    if name == "fxeq":  # the bands, as equalizer-nbands' band0::gain
        assert {"band0::type", "band0::frequency", "band0::q", "band9::gain"} <= set(props)
    if name == "fxchain":  # the chain text describes the children: no child::property keys
        assert "chain" in props and not any("::" in p for p in props), props


@pytest.mark.parametrize("type_name,preset", factory_cases())
def test_factory_preset_through_the_pipeline_parser(type_name, preset, factory_only):
    """`@preset=NAME` in a pipeline description (gst-launch-1.0, gst_parse_launch) loads it: the
    names are kebab-case, since the parser keeps quotes and backslashes in a preset name."""
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", preset), preset
    el = Gst.parse_launch("%s @preset=%s" % (factory(type_name), preset))
    for k, v in settings(type_name, preset).items():
        assert_value(el, k, v)


def test_gst_launch_runs_presets(factory_only):
    out = subprocess.run(
        ["gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=20", "!", "audioconvert", "!",
         "fxchain", "@preset=voice-cleanup", "!", "fxeq", "@preset=telephone", "!", "fxreverb",
         "@preset=small-room", "!", "fakesink"],
        capture_output=True, text=True, timeout=60,
        env=dict(os.environ, GST_PRESET_PATH=PRESETS_DIR))
    assert out.returncode == 0 and "preset" not in out.stdout + out.stderr, out.stdout + out.stderr


def test_factory_files_are_well_formed():
    files = factory_files()
    assert files, "no presets in %s" % PRESETS_DIR
    for path in files:
        header, presets = read_prs(path)
        type_name = os.path.basename(path)[:-len(".prs")]
        # the default implementation reads <GType name>.prs and checks element-name against it
        assert header.get("element-name") == type_name, path
        assert header.get("version"), path
        el = Gst.ElementFactory.make(factory(type_name), None)
        assert GObject.type_name(el.__gtype__) == type_name
        assert presets, path
        for preset, kv in presets.items():
            assert kv.get("_meta/comment"), "%s [%s]: no _meta/comment" % (path, preset)


def build_dir():
    """The build whose plugin the tests use (GST_PLUGIN_PATH_1_0=<build>/gst)."""
    for p in os.environ.get("GST_PLUGIN_PATH_1_0", "").split(os.pathsep):
        if p and os.path.basename(os.path.normpath(p)) == "gst" and os.path.isdir(p):
            return os.path.dirname(os.path.normpath(p))
    return os.path.join(os.path.dirname(PRESETS_DIR), "build")


def test_factory_files_install_where_gstreamer_looks():
    """meson install puts every presets/*.prs into <datadir>/gstreamer-1.0/presets."""
    r = subprocess.run(["meson", "introspect", build_dir(), "--installed"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    installed = json.loads(r.stdout)
    r = subprocess.run(["meson", "introspect", build_dir(), "--buildoptions"],
                       capture_output=True, text=True, timeout=60)
    opts = {o["name"]: o["value"] for o in json.loads(r.stdout)}
    datadir = os.path.join(opts["prefix"], opts["datadir"])
    for path in factory_files():
        assert installed.get(path) == os.path.join(datadir, "gstreamer-1.0", "presets",
                                                   os.path.basename(path)), (path, installed)


@pytest.mark.parametrize("type_name", sorted({c[0] for c in factory_cases()}))
def test_factory_presets_listed(type_name, factory_only):
    el = Gst.ElementFactory.make(factory(type_name), None)
    _, presets = read_prs(os.path.join(PRESETS_DIR, type_name + ".prs"))
    assert sorted(Gst.Preset.get_preset_names(el)) == sorted(presets)
    for p, kv in presets.items():
        ok, comment = Gst.Preset.get_meta(el, p, "comment")
        assert ok and comment == kv["_meta/comment"]


@pytest.mark.parametrize("type_name", sorted({c[0] for c in factory_cases()}))
def test_gst_inspect_lists_presets(type_name, factory_only):
    name = factory(type_name)
    out = subprocess.run(["gst-inspect-1.0", name], capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, GST_PRESET_PATH=PRESETS_DIR))
    assert out.returncode == 0, out.stderr
    assert "Presets:" in out.stdout, out.stdout[-2000:]
    section = out.stdout.split("Presets:", 1)[1]
    _, presets = read_prs(os.path.join(PRESETS_DIR, type_name + ".prs"))
    for p, kv in presets.items():
        assert '"%s": %s' % (p, kv["_meta/comment"]) in section, (p, section[:2000])


# ------------------------------------------------------------------------------------------------
# every factory preset: its keys applied


@pytest.mark.parametrize("type_name,preset", factory_cases())
def test_factory_preset_sets_every_key(type_name, preset, factory_only):
    kv = settings(type_name, preset)
    el = loaded(type_name, preset)
    for k, v in kv.items():
        assert_value(el, k, v)
    if type_name == "GstFxEq":
        # a complete description: every band of the preset fully set
        n = int(kv["num-bands"])
        assert el.get_property("num-bands") == n
        for i in range(n):
            for p in ("type", "frequency", "q", "gain"):
                assert "band%d::%s" % (i, p) in kv, (preset, i, p)


@pytest.mark.parametrize("bands_before", [1, 2, 32])
def test_fxeq_preset_changing_num_bands_reaches_every_band(bands_before, factory_only):
    """The default load lists the children first: the bands a preset creates are set too."""
    for preset in ("flat", "telephone", "bass-boost"):
        kv = settings("GstFxEq", preset)
        el = loaded("GstFxEq", preset, before=lambda e: e.set_property("num-bands", bands_before))
        for k, v in kv.items():
            assert_value(el, k, v)


# ------------------------------------------------------------------------------------------------
# outputs: filters against scipy

RATE = 48000
IR_FRAMES = 1 << 16


def impulse_response(type_name, preset, rate=RATE, frames=IR_FRAMES):
    x = np.zeros((frames, 1))
    x[0, 0] = 1.0

    def configure(pipeline):
        assert Gst.Preset.load_preset(pipeline.get_by_name("fx"), preset)

    res = run_pipeline("%s name=fx" % factory(type_name), x, rate, split=4096, configure=configure)
    assert_clean(res, frames)
    return res.y[:, 0].astype(np.float64)


def eq_reference_sos(kv, rate):
    rows = []
    for i in range(int(kv["num-bands"])):
        b, a = rbj(kv["band%d::type" % i], float(kv["band%d::frequency" % i]),
                   float(kv["band%d::q" % i]), float(kv["band%d::gain" % i]), rate)
        rows.append(np.concatenate([b, a]) / a[0])
    sos = np.array(rows)
    sos[0, :3] *= 10.0 ** (float(kv.get("pre-gain", "0")) / 20.0)
    return sos


def filter_reference_sos(type_name, kv, rate):
    order = int(kv["order"])
    if type_name == "GstFxButterworth":
        mode = kv["mode"]
        if mode in ("band-pass", "band-reject"):
            wn = [float(kv["lower-frequency"]), float(kv["upper-frequency"])]
            btype = "bandpass" if mode == "band-pass" else "bandstop"
        else:
            wn, btype = float(kv["cutoff"]), {"low-pass": "lowpass", "high-pass": "highpass"}[mode]
        return ss.butter(order, wn, btype, fs=rate, output="sos")
    # Linkwitz-Riley of order n: the square of a Butterworth of order n/2
    half = ss.butter(order // 2, float(kv["cutoff"]),
                     {"low-pass": "lowpass", "high-pass": "highpass"}[kv["mode"]], fs=rate,
                     output="sos")
    return np.vstack([half, half])


def check_response(h, sos, case, rate=RATE):
    """The element's impulse response against sosfilt (time domain) and its FFT magnitude against
    sosfreqz (dB, where the reference is above -60 dB)."""
    x = np.zeros(len(h))
    x[0] = 1.0
    ref = ss.sosfilt(sos, x)
    e = rel_err(h, ref)
    record("presets: filters vs scipy", "rel_err", e, case)
    assert e <= 1e-9, "%s: impulse response relative error %.3g" % (case, e)
    w, H = ss.sosfreqz(sos, worN=np.fft.rfftfreq(len(h), 1.0 / rate), fs=rate)
    mag_ref = 20 * np.log10(np.maximum(np.abs(H), 1e-300))
    mag = 20 * np.log10(np.maximum(np.abs(np.fft.rfft(h)), 1e-300))
    sel = mag_ref > -60
    dev = float(np.max(np.abs(mag[sel] - mag_ref[sel])))
    record("presets: filters vs scipy", "ratio_db_dev", dev, case)
    assert dev <= 0.01, "%s: magnitude off by %.4f dB" % (case, dev)
    return w, mag


EQ_CASES = [c for c in factory_cases() if c[0] == "GstFxEq"]
FILTER_CASES = [c for c in factory_cases() if c[0] in ("GstFxButterworth", "GstFxLinkwitzRiley")]


@pytest.mark.parametrize("type_name,preset", EQ_CASES)
def test_fxeq_preset_response(type_name, preset, factory_only):
    kv = settings(type_name, preset)
    h = impulse_response(type_name, preset)
    w, mag = check_response(h, eq_reference_sos(kv, RATE), "fxeq %r" % preset)
    if preset == "flat":
        assert np.array_equal(h[:1], [1.0]) and not np.any(h[1:]), "flat is not an identity"
    if preset in ("hum-removal-50hz", "hum-removal-60hz"):
        f0 = float(kv["band0::frequency"])  # the notches remove the hum and its harmonics
        n = np.arange(len(h))
        for k in range(1, 5):  # |H| exactly at the hum frequencies (DTFT of the response)
            tone = abs(np.sum(h * np.exp(-2j * np.pi * k * f0 * n / RATE)))
            assert tone < 1e-6, (preset, k * f0, tone)


@pytest.mark.parametrize("type_name,preset", FILTER_CASES)
def test_filter_preset_response(type_name, preset, factory_only):
    kv = settings(type_name, preset)
    h = impulse_response(type_name, preset)
    check_response(h, filter_reference_sos(type_name, kv, RATE), "%s %r" % (type_name, preset))


@pytest.mark.parametrize("freq", ["crossover-2khz", "subwoofer-80hz"])
def test_crossover_presets_sum_to_allpass(freq, factory_only):
    lo = impulse_response("GstFxLinkwitzRiley", freq + "-low")
    hi = impulse_response("GstFxLinkwitzRiley", freq + "-high")
    mag = 20 * np.log10(np.abs(np.fft.rfft(lo + hi)))
    dev = float(np.max(np.abs(mag)))
    record("presets: crossover sum", "ratio_db_dev", dev, freq)
    assert dev <= 0.01, "%s: low + high deviates from flat by %.4f dB" % (freq, dev)


# ------------------------------------------------------------------------------------------------
# outputs: dynamics against the references of test_dynamics.py and the static curves


def dyn_kwargs(kv):
    kw = {}
    for k, v in kv.items():
        key = {"range": "range_db"}.get(k, k.replace("-", "_"))
        if k == "detector":
            kw[key] = v
        elif k == "link":
            kw[key] = v == "true"
        else:
            kw[key] = float(v)
    return kw


def run_preset(type_name, preset, x, rate, dtype=np.float64):
    def configure(pipeline):
        assert Gst.Preset.load_preset(pipeline.get_by_name("fx"), preset)

    res = run_pipeline("%s name=fx" % factory(type_name), x.astype(dtype), rate, split="random",
                       configure=configure)
    assert_clean(res)
    return res.y.astype(np.float64)


DYN_CASES = [c for c in factory_cases() if c[0] in ("GstFxCompressor", "GstFxGate")]
LIMITER_CASES = [c for c in factory_cases() if c[0] == "GstFxLimiter"]


@pytest.mark.parametrize("type_name,preset", DYN_CASES)
def test_dynamics_preset_output(type_name, preset, factory_only):
    kv = settings(type_name, preset)
    kind = "comp" if type_name == "GstFxCompressor" else "gate"
    kw = dyn_kwargs(kv)
    # against the reference on noise whose level jumps (attack, hold and release all act)
    x = bursty(RATE, 0.4, 2, seed=1801, lo_db=-70.0, hi_db=0.0)
    y = run_preset(type_name, preset, x, RATE)
    ref = ref_dynamics(x, RATE, kind, **kw)
    e = rel_err(y, ref)
    record("presets: dynamics vs reference", "rel_err", e, "%s %r" % (type_name, preset))
    assert e <= 1e-9, "%s %r: relative error %.3g" % (type_name, preset, e)

    # static curve: the gain at the end of each steady level against the closed form. The
    # levels rise, so after the first one the gain moves only through attack, settled after
    # 0.5 s; the first level lasts 4 s (a gate starts open and closes through hold and release).
    rate = 8000
    levels = [-80.0, -60.0, -45.0, -35.0, -28.0, -22.0, -16.0, -10.0, -5.0, -1.0]
    each = rate // 2
    first = 4 * rate
    x = np.vstack([dc(levels[:1], first - each), dc(levels, each)])
    y = run_preset(type_name, preset, x, rate)
    L = int(math.floor(kw["look_ahead"] * 1e-3 * rate + 0.5))
    T, R, W = kw["threshold"], kw["ratio"], kw["knee"]
    for i, lv in enumerate(levels):
        # output frame k: input k - L, gain from the detector at input k (the look-ahead)
        k = first + i * each - 1
        got = 20 * math.log10(y[k, 0] / x[k - L, 0])
        if kind == "comp":
            want = float(comp_curve(lv, T, R, W)) - lv + kw["makeup"]
        else:
            want = float(gate_curve(lv, T, R, W, kw["range_db"])) - lv + kw["makeup"]
        assert abs(got - want) <= 0.01, "%s %r at %g dBFS: gain %.4f dB, curve %.4f dB" % (
            type_name, preset, lv, got, want)


@pytest.mark.parametrize("type_name,preset", LIMITER_CASES)
def test_limiter_preset_output(type_name, preset, factory_only):
    kw = dyn_kwargs(settings(type_name, preset))
    x = bursty(RATE, 0.4, 2, seed=1802, lo_db=-20.0, hi_db=12.0)
    y = run_preset(type_name, preset, x, RATE)
    ceiling = 10.0 ** (kw["threshold"] / 20.0)
    peak = float(np.max(np.abs(y)))
    assert peak <= ceiling * (1 + 1e-12), "%r: peak %.6f above the ceiling %.6f" % (
        preset, peak, ceiling)
    assert peak >= ceiling * 0.99, "%r: never reached the ceiling (peak %.6f)" % (preset, peak)
    ref = ref_limiter(x, RATE, kw["threshold"], look_ahead=kw["look_ahead"],
                      release=kw["release"], link=kw["link"])
    e = rel_err(y, ref)
    record("presets: limiter vs reference", "rel_err", e, repr(preset))
    assert e <= 1e-9, "%r: relative error %.3g" % (preset, e)


# ------------------------------------------------------------------------------------------------
# outputs: reverb

REVERB_RATE = 44100
ROOMS_BY_SIZE = ["ambience", "small-room", "medium-room", "large-hall", "cathedral"]


def lf_decay_time(y, mix, rate):
    """RT60 (s) of the wet signal's low frequencies (below 150 Hz; the dry impulse removed, left +
    right) from Schroeder's backward integral, extrapolated from the -5 to -25 dB decay."""
    h = y[:, 0] + y[:, 1]
    h[0] -= 1.0 - mix  # the dry path: (1 - mix) x on the left
    lf = ss.sosfilt(ss.butter(4, 150, "lowpass", fs=rate, output="sos"), h)
    edc = np.cumsum((lf ** 2)[::-1])[::-1]
    edc_db = 10 * np.log10(edc / edc[0])
    i5 = int(np.argmax(edc_db <= -5))
    i25 = int(np.argmax(edc_db <= -25))
    assert i25 > i5 > 0, "decay does not reach -25 dB"
    t = np.arange(i5, i25) / rate
    slope = np.polyfit(t, edc_db[i5:i25], 1)[0]
    return -60.0 / slope


@pytest.fixture(scope="module")
def reverb_irs():
    """The stereo impulse response (impulse on the left) of every reverb preset, tail included."""
    _, presets = read_prs(os.path.join(PRESETS_DIR, "GstFxReverb.prs"))
    x = np.zeros((REVERB_RATE // 4, 2))
    x[0, 0] = 1.0
    return {p: run_preset("GstFxReverb", p, x, REVERB_RATE) for p in presets}


@pytest.mark.parametrize("preset", [c[1] for c in factory_cases() if c[0] == "GstFxReverb"])
def test_reverb_preset_output(preset, reverb_irs, factory_only):
    kv = {k: float(v) for k, v in settings("GstFxReverb", preset).items()}
    y = reverb_irs[preset]
    n = REVERB_RATE // 4
    x = np.zeros((n, 2))
    x[0, 0] = 1.0
    ref = ref_reverb(x, REVERB_RATE, room=kv["room-size"], damping=kv["damping"], mix=kv["mix"],
                     width=kv["width"])
    e = rel_err(y[:n], ref)
    record("presets: reverb vs reference", "rel_err", e, repr(preset))
    assert e <= 1e-9, "%r: relative error %.3g" % (preset, e)
    # the low-frequency decay lies between those of the shortest and the longest comb
    fb = 0.7 + 0.28 * kv["room-size"]
    lengths = [scaled(L + s, REVERB_RATE) for L in COMBS for s in (0, SPREAD)]
    rt = [3.0 * L / (REVERB_RATE * -math.log10(fb)) for L in (min(lengths), max(lengths))]
    got = lf_decay_time(y, kv["mix"], REVERB_RATE)
    record("presets: reverb RT60 (s)", "value", got, repr(preset))
    assert 0.9 * rt[0] <= got <= 1.1 * rt[1], "%r: RT60 %.3f s outside [%.3f, %.3f]" % (
        preset, got, rt[0], rt[1])


def test_reverb_rooms_ordered_by_size(reverb_irs, factory_only):
    rts = [lf_decay_time(reverb_irs[p], float(settings("GstFxReverb", p)["mix"]), REVERB_RATE)
           for p in ROOMS_BY_SIZE]
    assert all(a < b for a, b in zip(rts, rts[1:])), dict(zip(ROOMS_BY_SIZE, rts))
    # and the tails, pushed at EOS until -90 dBFS, are longer the larger the room
    lens = [len(reverb_irs[p]) for p in ROOMS_BY_SIZE]
    assert all(a < b for a, b in zip(lens, lens[1:])), dict(zip(ROOMS_BY_SIZE, lens))


# ------------------------------------------------------------------------------------------------
# user presets: save, load, delete (child process, temporary XDG_DATA_HOME)

ROUND_TRIP = textwrap.dedent(r"""
    import json, os, sys
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import GLib, Gst
    Gst.init(None)
    assert GLib.get_user_data_dir() == os.environ["XDG_DATA_HOME"]
    out = {}

    def make(name, **props):
        e = Gst.ElementFactory.make(name, None)
        for k, v in props.items():
            e.set_property(k.replace("_", "-"), v)
        return e

    # fxeq: 3 bands, the last a notch, saved from an element and loaded into a 10-band one
    eq = make("fxeq", num_bands=3, pre_gain=-2.5)
    b2 = eq.get_child_by_name("band2")
    b2.set_property("frequency", 1234.5)
    b2.set_property("gain", 4.25)
    Gst.util_set_object_arg(b2, "type", "notch")
    out["eq_saved"] = Gst.Preset.save_preset(eq, "my eq")  # any name works from code
    eq2 = make("fxeq")
    out["eq_loaded"] = Gst.Preset.load_preset(eq2, "my eq")
    c = eq2.get_child_by_name("band2")
    out["eq"] = [eq2.get_property("num-bands"), eq2.get_property("pre-gain"),
                 c.get_property("frequency"), c.get_property("gain"),
                 c.get_property("type").value_nick]
    out["eq_names"] = Gst.Preset.get_preset_names(eq2)

    comp = make("fxcompressor", threshold=-33.0, ratio=7.0, link=False)
    out["comp_saved"] = Gst.Preset.save_preset(comp, "my comp")
    comp2 = make("fxcompressor")
    out["comp_loaded"] = Gst.Preset.load_preset(comp2, "my comp")
    out["comp"] = [comp2.get_property("threshold"), comp2.get_property("ratio"),
                   comp2.get_property("link")]

    # spaces and quotes: GStreamer's default load would keep the keyfile's escapes in a string
    chain = 'fxgain gain=-3 ! fxbutterworth mode=high-pass cutoff=120 ! fxsos sections="1 0 0 1 0 0"'
    ch = make("fxchain", chain=chain, fuse=False)
    out["chain_saved"] = Gst.Preset.save_preset(ch, "my chain")
    ch2 = make("fxchain")
    out["chain_loaded"] = Gst.Preset.load_preset(ch2, "my chain")
    out["chain"] = [ch2.get_property("chain"), ch2.get_property("fuse")]
    cut = [e for e in ch2.iterate_elements()
           if e.get_factory().get_name() == "fxbutterworth"][0]
    out["chain_child_cutoff"] = cut.get_property("cutoff")

    g = make("fxgain", gain=-7.5)
    out["gain_saved"] = Gst.Preset.save_preset(g, "quieter")

    d = os.path.join(os.environ["XDG_DATA_HOME"], "gstreamer-1.0", "presets")
    out["files"] = sorted(os.listdir(d))
    with open(os.path.join(d, "GstFxEq.prs")) as f:
        out["eq_file"] = f.read()
    with open(os.path.join(d, "GstFxChain.prs")) as f:
        out["chain_file"] = f.read()

    out["deleted"] = Gst.Preset.delete_preset(eq2, "my eq")
    out["eq_names_after"] = Gst.Preset.get_preset_names(make("fxeq"))
    print(json.dumps(out))
""")

ROUND_TRIP_RELOAD = textwrap.dedent(r"""
    import json, os
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
    Gst.init(None)
    eq = Gst.ElementFactory.make("fxeq", None)
    g = Gst.ElementFactory.make("fxgain", None)
    print(json.dumps({"eq_names": Gst.Preset.get_preset_names(eq),
                      "gain_loaded": Gst.Preset.load_preset(g, "quieter"),
                      "gain": g.get_property("gain")}))
""")


def test_user_preset_save_load_delete_round_trip(tmp_path):
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path), GST_PRESET_PATH=PRESETS_DIR)

    def child(code):
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=120, env=env)
        assert p.returncode == 0, p.stderr[-4000:]
        assert "CRITICAL" not in p.stderr and "WARNING" not in p.stderr, p.stderr[-4000:]
        return json.loads(p.stdout.strip().splitlines()[-1])

    out = child(ROUND_TRIP)
    assert out["eq_saved"] and out["eq_loaded"]
    assert out["eq"] == [3, -2.5, 1234.5, 4.25, "notch"]
    # the factory presets stay listed beside the user's (the user file starts from them)
    _, factory_eq = read_prs(os.path.join(PRESETS_DIR, "GstFxEq.prs"))
    assert set(out["eq_names"]) == set(factory_eq) | {"my eq"}
    assert out["comp_saved"] and out["comp_loaded"] and out["comp"] == [-33.0, 7.0, False]
    assert out["chain_saved"] and out["chain_loaded"]
    assert out["chain"] == ['fxgain gain=-3 ! fxbutterworth mode=high-pass cutoff=120 ! '
                            'fxsos sections="1 0 0 1 0 0"', False]
    assert out["chain_child_cutoff"] == 120.0
    assert out["gain_saved"]
    assert {"GstFxEq.prs", "GstFxCompressor.prs", "GstFxChain.prs",
            "GstFxGain.prs"} <= set(out["files"])
    # the saved file: settings only (no name/parent), the bands as child::property
    cp = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    cp.optionxform = str
    cp.read_string(out["eq_file"])
    mine = dict(cp["my eq"])
    assert mine["num-bands"] == "3" and mine["band2::type"] == "notch"
    assert not any(k.split("::")[-1] in NOT_SETTINGS for k in mine), sorted(mine)
    assert not any(k.startswith("band3::") for k in mine)
    cp = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    cp.optionxform = str
    cp.read_string(out["chain_file"])
    assert not any("::" in k for k in cp["my chain"]), sorted(cp["my chain"])
    # delete
    assert out["deleted"] and "my eq" not in out["eq_names_after"]
    assert set(out["eq_names_after"]) == set(factory_eq)
    # a new process reads the user's file
    again = child(ROUND_TRIP_RELOAD)
    assert "my eq" not in again["eq_names"] and set(again["eq_names"]) == set(factory_eq)
    assert again["gain_loaded"] and again["gain"] == -7.5


# ------------------------------------------------------------------------------------------------
# outputs: fxchain presets against the chain of the stages' references

CHAIN_CASES = [c[1] for c in factory_cases() if c[0] == "GstFxChain"]


def chain_stages(text):
    """[(factory, {property: value string})] of a chain without quoted values."""
    stages = []
    for part in text.split(" ! "):
        words = part.split()
        stages.append((words[0], dict(w.split("=", 1) for w in words[1:])))
    return stages


def chain_reference(text, x, rate):
    y = np.asarray(x, np.float64)
    for factory_name, kv in chain_stages(text):
        if factory_name == "fxbutterworth":
            y = ss.sosfilt(filter_reference_sos("GstFxButterworth", kv, rate), y, axis=0)
        elif factory_name == "fxeq":
            y = ss.sosfilt(eq_reference_sos(kv, rate), y, axis=0)
        elif factory_name == "fxcompressor":
            y = ref_dynamics(y, rate, "comp", **dyn_kwargs(kv))
        elif factory_name == "fxlimiter":
            kw = dyn_kwargs(kv)
            y = ref_limiter(y, rate, kw["threshold"], look_ahead=kw["look_ahead"],
                            release=kw["release"])
        else:
            raise AssertionError("no reference for %s" % factory_name)
    return y


@pytest.mark.parametrize("preset", CHAIN_CASES)
def test_chain_preset_output(preset, factory_only):
    text = settings("GstFxChain", preset)["chain"].strip('"')
    x = bursty(RATE, 0.4, 2, seed=1803, lo_db=-50.0, hi_db=0.0)
    y = run_preset("GstFxChain", preset, x, RATE)
    ref = chain_reference(text, x, RATE)
    assert y.shape == ref.shape, (y.shape, ref.shape)
    e = rel_err(y, ref)
    record("presets: fxchain vs stage references", "rel_err", e, repr(preset))
    assert e <= 1e-9, "%r: relative error %.3g" % (preset, e)
    # the limiter at the end holds its ceiling
    ceiling = 10.0 ** (float(chain_stages(text)[-1][1]["threshold"]) / 20.0)
    assert float(np.max(np.abs(y))) <= ceiling * (1 + 1e-12)


# ------------------------------------------------------------------------------------------------
# @preset=NAME in fxchain's chain text (and so in gst-fx --chain)


def chain_bin(text):
    pipeline = Gst.Pipeline()
    ch = Gst.ElementFactory.make("fxchain", None)
    pipeline.add(ch)
    ch.set_property("chain", text)
    ret = pipeline.set_state(Gst.State.READY)
    msg = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
    return pipeline, ch, ret, (msg.parse_error()[0].message + " " + msg.parse_error()[1]
                               if msg else None)


def test_chain_text_loads_presets(factory_only):
    pipeline, ch, ret, err = chain_bin(
        "fxeq name=eq @preset=voice ! fxcompressor name=comp threshold=-40 @preset=vocal ! "
        "fxlimiter name=lim @preset=\"mastering\"")
    try:
        assert ret == Gst.StateChangeReturn.SUCCESS, err
        for name, type_name, preset in (("eq", "GstFxEq", "voice"),
                                        ("comp", "GstFxCompressor", "vocal"),
                                        ("lim", "GstFxLimiter", "mastering")):
            el = ch.get_by_name(name)
            for k, v in settings(type_name, preset).items():
                assert_value(el, k, v)  # the preset after the properties, as gst_parse_launch
    finally:
        pipeline.set_state(Gst.State.NULL)


@pytest.mark.parametrize("text,message", [
    ("fxeq @preset=no-such-preset", 'fxeq: no preset "no-such-preset" (gst-inspect-1.0 fxeq'),
    ("audioconvert @preset=flat", "audioconvert: @preset=flat: the element has no presets"),
    ("fxeq @presets=flat", "'@' starts a preset, written @preset=NAME"),
    ("fxeq @preset= ! fxgain", "@preset has no name"),
])
def test_chain_text_preset_errors(text, message, factory_only):
    pipeline, ch, ret, err = chain_bin(text)
    pipeline.set_state(Gst.State.NULL)
    assert ret == Gst.StateChangeReturn.FAILURE and err and message in err, err


def test_gst_fx_chain_loads_presets(factory_only):
    tool = os.environ.get("GST_FX") or os.path.join(os.path.dirname(PRESETS_DIR), "build",
                                                    "tools", "gst-fx")
    out = subprocess.run([tool, "plan", "--chain",
                          "fxbutterworth @preset=rumble-filter ! fxeq @preset=telephone"],
                         capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, GST_PRESET_PATH=PRESETS_DIR))
    assert out.returncode == 0, out.stderr
    # rumble-filter: order 4 high-pass = 2 sections; telephone: 4 bands = 4 sections
    assert "6 sections" in out.stdout, out.stdout
