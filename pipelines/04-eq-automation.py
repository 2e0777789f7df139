#!/usr/bin/python3
"""04 — EQ automation from Python (PyGObject + GstController).

What it does: plays pink noise through a two-band fxeq and sweeps band 0 (a +9 dB peaking band,
  Q 2) from 200 Hz to 5 kHz with a GstInterpolationControlSource (linear) bound to the band's
  `frequency` by an absolute GstDirectControlBinding, while a second controller lowers band 1's
  gain from 0 to -6 dB. fxeq syncs its band controllers before every buffer (in before_transform),
  so the sweep is smooth and click-free, and it would reach a fused cascade just the same inside
  fxchain. The result goes to $FX_OUT/04-sweep.wav (with --play to the default audio device).
How to run: /usr/bin/python3 pipelines/04-eq-automation.py [--play]
  (after a build in this checkout it finds the plugin in build/gst; FX_SMOKE=1: 1 s instead of 10)
What to expect: one line per second of stream time with band 0's frequency as fxeq applied it,
  rising linearly from 200 Hz to 5000 Hz, and band 1's gain falling to -6 dB; then "wrote …".
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
if os.path.isdir(os.path.join(REPO, "build", "gst")):
    # Use the plugin built in this checkout (harmless when gst-fx is installed).
    os.environ["GST_PLUGIN_PATH_1_0"] = os.pathsep.join(
        p for p in (os.path.join(REPO, "build", "gst"), os.environ.get("GST_PLUGIN_PATH_1_0"))
        if p)

import gi  # noqa: E402

gi.require_version("Gst", "1.0")
gi.require_version("GstController", "1.0")
from gi.repository import Gst, GstController  # noqa: E402

SMOKE = os.environ.get("FX_SMOKE") == "1"
SECONDS = 1 if SMOKE else 10
OUT_DIR = os.environ.get("FX_OUT", os.path.join(REPO, "out", "pipelines"))


def ramp(obj, prop, points):
    """Binds obj.prop to a linear ramp through (seconds, value) points; returns what must stay
    alive while the pipeline runs."""
    cs = GstController.InterpolationControlSource()
    cs.set_property("mode", GstController.InterpolationMode.LINEAR)
    for t, v in points:
        cs.set(int(t * Gst.SECOND), float(v))
    binding = GstController.DirectControlBinding.new_absolute(obj, prop, cs)
    obj.add_control_binding(binding)
    return cs, binding


def main():
    Gst.init(None)
    if Gst.ElementFactory.find("fxeq") is None:
        sys.exit("fxeq not found: build gst-fx (scripts/test.sh) or set GST_PLUGIN_PATH_1_0")
    os.makedirs(OUT_DIR, exist_ok=True)
    out = os.path.join(OUT_DIR, "04-sweep.wav")
    sink = "autoaudiosink" if "--play" in sys.argv else "wavenc ! filesink location=\"%s\"" % out
    rate, spb = 48000, 1200  # 25 ms buffers: the controller is sampled once per buffer
    pipeline = Gst.parse_launch(
        "audiotestsrc wave=pink-noise volume=0.3 samplesperbuffer=%d num-buffers=%d "
        "! audio/x-raw,format=F32LE,rate=%d,channels=2 "
        "! fxeq name=eq num-bands=2 band0::type=peaking band0::q=2 band0::gain=9 "
        "band1::type=high-shelf band1::frequency=8000 "
        "! audioconvert ! %s" % (spb, SECONDS * rate // spb, rate, sink))
    eq = pipeline.get_by_name("eq")
    band0 = eq.get_child_by_name("band0")
    band1 = eq.get_child_by_name("band1")
    keep = [ramp(band0, "frequency", [(0, 200), (SECONDS, 5000)]),
            ramp(band1, "gain", [(0, 0), (SECONDS, -6)])]

    # Show what fxeq applied: read the bands in a probe on its src pad, once per second.
    next_report = [0]

    def probe(pad, info):
        pts = info.get_buffer().pts
        if pts >= next_report[0]:
            print("t=%5.2f s  band0 frequency %7.1f Hz  band1 gain %5.2f dB"
                  % (pts / Gst.SECOND, band0.get_property("frequency"),
                     band1.get_property("gain")), flush=True)
            next_report[0] += Gst.SECOND // (4 if SMOKE else 1)
        return Gst.PadProbeReturn.OK

    eq.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, probe)
    pipeline.set_state(Gst.State.PLAYING)
    msg = pipeline.get_bus().timed_pop_filtered(
        Gst.CLOCK_TIME_NONE, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    del keep
    if msg.type == Gst.MessageType.ERROR:
        err, dbg = msg.parse_error()
        sys.exit("error: %s (%s)" % (err.message, dbg))
    if "--play" not in sys.argv:
        print("wrote %s" % out)


if __name__ == "__main__":
    main()
