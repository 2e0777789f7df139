"""Property ranges a UI can use (issue 18, item 4): every frequency runs 0-100,000 Hz as in the
stock audiocheblimit, audiowsinclimit and equalizer bands, and every other writable number has a
finite, sane maximum, so that GstController's normalised DirectControlBinding (0..1 onto the
whole range) and sliders built from the paramspecs sweep values users can hear."""

import numpy as np
import pytest
import scipy.signal as ss

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstController", "1.0")
from gi.repository import GObject, Gst, GstController  # noqa: E402

from conftest import assert_clean, noise, rel_err, run_pipeline  # noqa: E402

pytestmark = pytest.mark.usefixtures("fx")

MAX_FREQUENCY = 100000.0
# Numbers a slider can cover: no G_MAXDOUBLE, G_MAXINT and the like. The largest writable
# maxima are fxfir's num-taps (2^20) and the common scan-threshold (2^24 frames).
SANE_MAX = float(1 << 24)
# Stated in other units: max-duration is in nanoseconds (at most a day of audio).
SANE_MAX_BY_NAME = {"max-duration": 24 * 3600 * Gst.SECOND}
NUMERIC = (GObject.ParamSpecDouble, GObject.ParamSpecFloat, GObject.ParamSpecInt,
           GObject.ParamSpecUInt, GObject.ParamSpecInt64, GObject.ParamSpecUInt64,
           GObject.ParamSpecLong, GObject.ParamSpecULong)
# Properties of the GStreamer base classes, not ours.
BASE_OWNERS = {"GstObject", "GstElement", "GstBin", "GstBaseTransform", "GstAudioFilter"}


def fx_element_names():
    Gst.init(None)
    feats = Gst.Registry.get().get_feature_list_by_plugin("fx")
    return sorted(f.get_name() for f in feats if isinstance(f, Gst.ElementFactory))


def writable_numeric(obj):
    """(owner name, pspec) of obj's writable numeric properties, fxeq's band children included."""
    out = []
    for ps in obj.list_properties():
        if ps.owner_type.name in BASE_OWNERS or not isinstance(ps, NUMERIC):
            continue
        if ps.flags & GObject.ParamFlags.WRITABLE:
            out.append(ps)
    if isinstance(obj, Gst.ChildProxy) and not isinstance(obj, Gst.Bin):
        for i in range(obj.get_children_count()):
            out += writable_numeric(obj.get_child_by_index(i))
    return out


@pytest.mark.parametrize("name", fx_element_names())
def test_every_number_has_a_sane_range(name):
    el = Gst.ElementFactory.make(name, None)
    assert el is not None
    for ps in writable_numeric(el):
        what = "%s:%s [%r, %r]" % (name, ps.name, ps.minimum, ps.maximum)
        assert np.isfinite(ps.maximum) and np.isfinite(ps.minimum), what
        assert ps.maximum <= SANE_MAX_BY_NAME.get(ps.name, SANE_MAX), what
        assert ps.minimum >= -SANE_MAX, what
        if "frequency" in ps.name or ps.name == "cutoff":
            assert ps.maximum == MAX_FREQUENCY, what
            assert ps.minimum <= 1e-300, what  # from 0 (exclusive: the design needs a positive one)


def normalised_binding(el, prop, points):
    """A 0..1 InterpolationControlSource through (seconds, value) bound with the default,
    normalised DirectControlBinding, as a UI or automation lane would bind it."""
    cs = GstController.InterpolationControlSource()
    cs.set_property("mode", GstController.InterpolationMode.LINEAR)
    for t, v in points:
        assert cs.set(int(t * Gst.SECOND), float(v))
    binding = GstController.DirectControlBinding.new(el, prop, cs)
    assert el.add_control_binding(binding)
    return cs, binding


@pytest.mark.parametrize("name,prop,lo,hi", [
    ("fxbutterworth", "cutoff", 0.0, MAX_FREQUENCY),
    ("fxbiquad", "frequency", 0.0, MAX_FREQUENCY),
    ("fxfir", "cutoff", 0.0, MAX_FREQUENCY),
    ("fxgain", "gain", -120.0, 60.0),
    ("fxcompressor", "attack", 0.0, 5000.0),
    ("fxdelay", "delay", 0.0, 60000.0),
])
def test_normalised_sweep_reads_the_range(name, prop, lo, hi):
    """A 0 -> 1 sweep over one second reads lo + f * (hi - lo): 50,000 Hz at 0.5 for a cutoff."""
    el = Gst.ElementFactory.make(name, None)
    keep = normalised_binding(el, prop, [(0.0, 0.0), (1.0, 1.0)])
    for f in (0.0, 0.25, 0.5, 0.75, 1.0):
        v = el.get_value(prop, int(f * Gst.SECOND))
        assert v == pytest.approx(lo + f * (hi - lo), rel=1e-12, abs=1e-9), (name, prop, f, v)
    del keep


def test_normalised_half_through_a_pipeline():
    """Through a pipeline at 192 kHz: a normalised binding held at 0.5 sets the Butterworth cutoff
    to 50 kHz and the gain to -30 dB, the middle of -120..60 (output against scipy)."""
    rate = 192000
    x = noise(rate // 10, 2, seed=181)
    keep = []

    def configure(p):
        keep.append(normalised_binding(p.get_by_name("lp"), "cutoff", [(0.0, 0.5), (1.0, 0.5)]))
        keep.append(normalised_binding(p.get_by_name("g"), "gain", [(0.0, 0.5), (1.0, 0.5)]))

    res = run_pipeline("fxbutterworth name=lp order=4 ! fxgain name=g", x, rate, split=4800,
                       configure=configure, read_props=[("lp", "cutoff"), ("g", "gain")])
    assert_clean(res, x.shape[0])
    assert res.props[("lp", "cutoff")] == pytest.approx(50000.0, rel=1e-12)
    assert res.props[("g", "gain")] == pytest.approx(-30.0, abs=1e-12)
    want = ss.sosfilt(ss.butter(4, 50000.0, fs=rate, output="sos"), x, axis=0) * 10 ** (-30 / 20)
    assert rel_err(res.y, want) <= 1e-9


@pytest.mark.parametrize("desc", ["fxbutterworth cutoff=150000", "fxgain gain=80",
                                  "fxbiquad frequency=1e308"])
def test_out_of_range_values_are_refused(desc):
    """gst-launch syntax past the range: GObject refuses the value with a warning and the element
    keeps its default, so the pipeline runs (at 48 kHz) with the default."""
    factory, setting = desc.split()
    prop = setting.split("=")[0]
    x = noise(4800, 1, seed=182)
    with pytest.warns(Warning, match="out of range for property '%s'" % prop):
        res = run_pipeline("%s name=fx %s" % (factory, setting), x, 48000,
                           read_props=[("fx", prop)])
    assert_clean(res, x.shape[0])
    assert res.props[("fx", prop)] == Gst.ElementFactory.make(factory, None).get_property(prop)
