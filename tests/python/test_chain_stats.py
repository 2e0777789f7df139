"""fxchain's EOS message `fxchain-stats`: the plan and the counters an application (or
`gst-launch-1.0 -m`, as the demo does) sees at the end of a stream."""

import pytest

from conftest import Gst, require_fx

CHAIN = ("fxbutterworth mode=high-pass cutoff=80 order=4 ! "
         "fxbutterworth mode=low-pass cutoff=12000 order=8")


def run_stats(chain, fuse=True, buffers=25, extra=""):
    require_fx("fxbutterworth")
    assert Gst.ElementFactory.find("fxchain") is not None, "fxchain not registered"
    p = Gst.parse_launch(
        "audiotestsrc wave=white-noise num-buffers=%d samplesperbuffer=1024 "
        "! audio/x-raw,format=F32LE,rate=48000,channels=2 ! fxchain name=c fuse=%s chain=\"%s\" %s"
        "! fakesink" % (buffers, "true" if fuse else "false", chain, extra))
    bus = p.get_bus()
    p.set_state(Gst.State.PLAYING)
    stats = None
    try:
        while True:
            msg = bus.timed_pop_filtered(
                10 * Gst.SECOND,
                Gst.MessageType.ELEMENT | Gst.MessageType.EOS | Gst.MessageType.ERROR)
            assert msg is not None, "pipeline hung"
            if msg.type == Gst.MessageType.ERROR:
                pytest.fail(msg.parse_error()[0].message)
            if msg.type == Gst.MessageType.ELEMENT:
                s = msg.get_structure()
                if s.get_name() == "fxchain-stats":
                    assert msg.src.get_name() == "c"
                    stats = s
            if msg.type == Gst.MessageType.EOS:
                break
    finally:
        p.set_state(Gst.State.NULL)
    assert stats is not None, "no fxchain-stats message before EOS"
    return stats


@pytest.mark.parametrize("fuse,per_buffer", [(True, 1), (False, 2)])
def test_stats_message_counts(fx, fuse, per_buffer):
    s = run_stats(CHAIN, fuse=fuse)
    assert s.get_value("buffers") == 25
    assert s.get_value("dispatches") == 25 * per_buffer
    assert s.get_value("launches") == 0
    plan = s.get_value("plan")
    assert plan.count("\n") + 1 == (1 if fuse else 2), plan
    assert plan.count("fxbutterworth") == 2, plan  # both children named in the plan
    assert s.get_value("backend").startswith("cpu-")
