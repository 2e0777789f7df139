"""Tests of the fxprof tracer (gst/gstfxprof.c), enabled with GST_TRACERS=fxprof.

Each test runs a pipeline in a child process (the tracer is chosen when GStreamer initialises)
with GST_DEBUG=GST_TRACER:7 and parses the `fxprof` records it logs. The child pushes buffers of
known sizes through ``appsrc ! ... ! fakesink`` and prints, after EOS, the `dispatches` property
of every element it was asked about, so the records are checked against what was pushed and
against the elements themselves, never against earlier output of the tracer.
"""

import json
import os
import re
import subprocess
import sys

import pytest

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

Gst.init(None)

PYTHON = "/usr/bin/python3"
TIMEOUT = 60

# The child: pushes buffers of the given sizes (frames) of stereo F32 noise into `desc`, then EOS
# (or, with stop="teardown", sets the pipeline to NULL once every buffer reached the sink), and
# prints {"props": {name: dispatches}} on stdout.
CHILD = r'''
import json, sys, time
import numpy as np
import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init(None)
cfg = json.loads(sys.argv[1])
ch = cfg.get("channels", 2)
fmt = cfg.get("format", "F32LE")
dtype = np.float32 if fmt == "F32LE" else np.float64
p = Gst.parse_launch("appsrc name=src format=time ! " + cfg["desc"] +
                     " ! fakesink name=sink sync=false signal-handoffs=true")
src = p.get_by_name("src")
src.set_property("caps", Gst.Caps.from_string(
    "audio/x-raw,format=%s,layout=interleaved,rate=48000,channels=%d" % (fmt, ch)))
got = [0]
p.get_by_name("sink").connect("handoff", lambda *a: got.__setitem__(0, got[0] + 1))
p.set_state(Gst.State.PLAYING)
rng = np.random.default_rng(1)
pts = 0
def make(n):
    global pts
    x = (rng.standard_normal(n * ch) * 0.1).astype(dtype)
    b = Gst.Buffer.new_wrapped(x.tobytes())
    b.pts = pts
    b.duration = n * Gst.SECOND // 48000
    pts += b.duration
    return b
if "lists" in cfg:
    # Buffer lists: each inner list is pushed as one GstBufferList.
    for sizes in cfg["lists"]:
        bl = Gst.BufferList.new()
        for n in sizes:
            bl.insert(-1, make(n))
        src.emit("push-buffer-list", bl)
else:
    for n in cfg["sizes"]:
        src.emit("push-buffer", make(n))
bus = p.get_bus()
if cfg.get("stop", "eos") == "eos":
    src.emit("end-of-stream")
    msg = bus.timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    assert msg is not None and msg.type == Gst.MessageType.EOS, msg and msg.parse_error()
else:
    deadline = time.time() + 30
    while got[0] < cfg.get("expect_out", len(cfg["sizes"])) and time.time() < deadline:
        time.sleep(0.01)
props = {}
for name in cfg.get("props", []):
    props[name] = p.get_by_name(name).get_property("dispatches")
sys.stdout.write(json.dumps({"props": props}) + "\n")
sys.stdout.flush()
p.set_state(Gst.State.NULL)
'''

RECORD_RE = re.compile(r"GST_TRACER\s+:0::\s+(fxprof(?:-buffer)?, .*;)\s*$")


def run_child(cfg, tracers="fxprof", extra_env=None):
    env = dict(os.environ)
    env.pop("GST_TRACERS", None)
    if tracers is not None:
        env["GST_TRACERS"] = tracers
    env["GST_DEBUG"] = "GST_TRACER:7"
    env["GST_DEBUG_NO_COLOR"] = "1"
    env.pop("GST_DEBUG_FILE", None)
    env.update(extra_env or {})
    r = subprocess.run([PYTHON, "-c", CHILD, json.dumps(cfg)], capture_output=True, text=True,
                       env=env, timeout=TIMEOUT)
    assert r.returncode == 0, "child failed (rc %d):\n%s" % (r.returncode, r.stderr[-4000:])
    out = json.loads(r.stdout.strip().splitlines()[-1])
    records = []
    for line in r.stderr.splitlines():
        m = RECORD_RE.search(line)
        if m:
            st, _ = Gst.Structure.from_string(m.group(1))
            assert st is not None, "unparsable record: %r" % line
            records.append(st)
    return out, records, r.stderr


def element_records(records):
    """{element name: [record fields as a dict, ...]} of the `fxprof` records."""
    res = {}
    for st in records:
        if st.get_name() != "fxprof":
            continue
        d = {st.nth_field_name(i): st.get_value(st.nth_field_name(i))
             for i in range(st.n_fields())}
        res.setdefault(d["element"], []).append(d)
    return res


def check_times(rec):
    n = rec["buffers"]
    assert rec["time-min"] <= rec["time-median"] <= rec["time-max"], rec
    # The total is the sum of the per-buffer times.
    assert n * rec["time-min"] <= rec["time-total"] <= n * rec["time-max"], rec


SIZES = [1024, 512, 1, 4096, 333, 1024, 7, 2048, 1000, 64]


def test_plain_element_counts_match_what_was_pushed(fx):
    out, records, _ = run_child({"desc": "fxbiquad name=f type=peaking gain=3",
                                 "sizes": SIZES, "props": ["f"]})
    recs = element_records(records)
    assert list(recs) == ["f"], recs
    (rec,) = recs["f"]
    assert rec["factory"] == "fxbiquad"
    assert rec["reason"] == "eos"
    assert rec["buffers"] == len(SIZES)
    assert rec["frames"] == sum(SIZES)
    assert rec["have-dispatches"] and rec["dispatches"] == out["props"]["f"]
    # One dispatch per buffer for a standalone IIR element.
    assert rec["dispatches"] == len(SIZES)
    assert rec["have-launches"] and rec["launches"] == 0
    assert rec["have-backend"] and rec["backend"].startswith("cpu-")
    assert not rec["have-plan"]
    check_times(rec)


def test_f64_mono_frames(fx):
    sizes = [100, 3, 4097]
    _, records, _ = run_child({"desc": "fxbutterworth name=b order=8 cutoff=200",
                               "sizes": sizes, "channels": 1, "format": "F64LE"})
    (rec,) = element_records(records)["b"]
    assert (rec["buffers"], rec["frames"]) == (3, sum(sizes))
    assert rec["backend"].endswith("f64")


CHAIN = ("fxbutterworth mode=high-pass cutoff=80 order=4 ! fxgain gain=-2 "
         "! fxbiquad type=peaking frequency=2000 gain=4 ! volume volume=0.5 "
         "! fxbutterworth mode=low-pass cutoff=12000 order=8")


@pytest.mark.parametrize("fuse", [True, False])
def test_fxchain_reported_as_a_whole(fx, fuse):
    desc = "audioconvert ! fxchain name=c fuse=%s chain=\"%s\" ! identity name=i" % (
        "true" if fuse else "false", CHAIN)
    out, records, stderr = run_child({"desc": desc, "sizes": SIZES, "props": ["c"]})
    recs = element_records(records)
    # Only the bin: its children (fx or not) and the non-fx elements around it have no record.
    assert list(recs) == ["c"], recs
    (rec,) = recs["c"]
    assert rec["factory"] == "fxchain"
    assert (rec["buffers"], rec["frames"]) == (len(SIZES), sum(SIZES))
    assert rec["dispatches"] == out["props"]["c"]
    # Fused: one cascade before the volume and one after it; unfused: the four IIR children.
    assert rec["dispatches"] == (2 if fuse else 3) * len(SIZES)
    assert rec["have-plan"]
    stages = rec["plan"].split(" | ")
    assert len(stages) == (3 if fuse else 5), stages
    assert "fxprof: c (fxchain) at eos" in stderr
    check_times(rec)


def test_several_elements_and_no_records_for_others(fx):
    desc = ("identity ! fxgain name=g gain=-3 ! audioconvert ! fxeq name=e num-bands=2 "
            "! volume ! fxsos name=s sections=\"0.2 0.4 0.2 1 -0.37 0.2\" ! queue")
    out, records, _ = run_child({"desc": desc, "sizes": SIZES, "props": ["e", "s"]})
    recs = element_records(records)
    assert sorted(recs) == ["e", "g", "s"], recs
    for name in ("e", "g", "s"):
        (rec,) = recs[name]
        assert (rec["buffers"], rec["frames"]) == (len(SIZES), sum(SIZES)), rec
        check_times(rec)
    # fxgain has no dispatches property: the record says so rather than inventing a count.
    assert not recs["g"][0]["have-dispatches"]
    assert recs["e"][0]["dispatches"] == out["props"]["e"] == len(SIZES)
    assert recs["s"][0]["dispatches"] == out["props"]["s"] == len(SIZES)


def test_buffer_lists_count_as_their_buffers(fx):
    lists = [[1024, 512], [7], [100, 200, 300, 400]]
    flat = [n for l in lists for n in l]
    out, records, _ = run_child({"desc": "fxbiquad name=f", "lists": lists, "sizes": flat,
                                 "props": ["f"]})
    (rec,) = element_records(records)["f"]
    assert (rec["buffers"], rec["frames"]) == (len(flat), sum(flat))
    assert rec["dispatches"] == out["props"]["f"] == len(flat)
    check_times(rec)


def test_per_buffer_records_of_lists(fx):
    lists = [[1024, 512], [7], [100, 200, 300, 400]]
    _, records, _ = run_child({"desc": "fxbiquad name=f", "lists": lists, "sizes": []},
                              tracers="fxprof(per-buffer=true,summary=false)")
    per = [(st.get_value("buffers"), st.get_value("frames")) for st in records
           if st.get_name() == "fxprof-buffer"]
    assert per == [(len(l), sum(l)) for l in lists]


def test_downstream_time_is_excluded(fx):
    # identity sleeps 50 ms per buffer downstream of the fx elements; had the tracer counted the
    # time of the push downstream, every buffer would take at least that long. (A structural
    # check with a large margin, not a speed test.)
    sleep_us = 50000
    desc = ("fxbiquad name=f ! fxchain name=c chain=\"fxbiquad ! fxbiquad\" "
            "! identity sleep-time=%d" % sleep_us)
    _, records, _ = run_child({"desc": desc, "sizes": [256] * 5})
    recs = element_records(records)
    for name in ("f", "c"):
        (rec,) = recs[name]
        assert rec["buffers"] == 5
        assert rec["time-median"] < sleep_us * 1000, rec


def test_teardown_without_eos(fx):
    sizes = [480] * 6
    _, records, stderr = run_child({"desc": "fxlinkwitzriley name=l", "sizes": sizes,
                                    "stop": "teardown"})
    (rec,) = element_records(records)["l"]
    assert rec["reason"] == "teardown"
    assert (rec["buffers"], rec["frames"]) == (6, 2880)
    assert rec["dispatches"] == 6
    assert "fxprof: l (fxlinkwitzriley) at teardown" in stderr


def test_per_buffer_records_and_quiet_summary(fx):
    _, records, stderr = run_child({"desc": "fxbiquad name=f", "sizes": SIZES},
                                   tracers="fxprof(per-buffer=true,summary=false)")
    per = [st for st in records if st.get_name() == "fxprof-buffer"]
    assert [st.get_value("frames") for st in per] == SIZES
    assert all(st.get_value("buffers") == 1 for st in per)
    assert all(st.get_value("element") == "f" for st in per)
    ts = [st.get_value("ts") for st in per]
    assert ts == sorted(ts)
    (rec,) = element_records(records)["f"]
    assert rec["time-total"] == sum(st.get_value("time") for st in per)
    assert rec["time-min"] == min(st.get_value("time") for st in per)
    assert rec["time-max"] == max(st.get_value("time") for st in per)
    times = sorted(st.get_value("time") for st in per)
    assert rec["time-median"] == times[(len(times) - 1) // 2]
    assert "fxprof:" not in stderr


def test_nothing_without_the_tracer(fx):
    _, records, stderr = run_child({"desc": "fxbiquad name=f", "sizes": SIZES}, tracers=None)
    assert records == []
    assert "fxprof:" not in stderr


def test_gst_stats_reads_the_log(fx, tmp_path):
    log = tmp_path / "trace.log"
    run_child({"desc": "fxbiquad name=f", "sizes": SIZES}, tracers="stats;rusage;fxprof",
              extra_env={"GST_DEBUG_FILE": str(log)})
    text = log.read_text()
    assert "fxprof, element=(string)f" in text
    r = subprocess.run(["gst-stats-1.0", str(log)], capture_output=True, text=True,
                       timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    assert re.search(r"GstFxBiquad:f\s+: buffers in/out\s+%d/\s+%d" % (len(SIZES), len(SIZES)),
                     r.stdout), r.stdout


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))


@pytest.mark.parametrize("opts,complaint", [
    ("summry=false", 'fxprof: unknown option "summry" ignored'),
    ("per_buffer=true", 'fxprof: unknown option "per_buffer" ignored'),
    ("summary=0", "fxprof: option summary=0 ignored: it takes true or false"),
    ("per-buffer=maybe", "fxprof: option per-buffer=maybe ignored: it takes true or false"),
    ("summary=false,verbose=true", 'fxprof: unknown option "verbose" ignored'),
])
def test_bad_options_are_reported(fx, opts, complaint):
    """GST_TRACERS="fxprof(...)" with an unknown option or a non-boolean value: a message naming
    it on stderr (before, such options were dropped silently); the tracer still runs, and the
    options that are valid still apply."""
    _, records, stderr = run_child({"desc": "fxbiquad name=f", "sizes": SIZES},
                                   tracers="fxprof(%s)" % opts)
    assert complaint in stderr, stderr[-2000:]
    (rec,) = element_records(records)["f"]
    assert rec["buffers"] == len(SIZES)
    summary = "fxprof: f (fxbiquad)" in stderr
    assert summary == ("summary=false" not in opts), stderr[-2000:]


def test_good_options_are_not_reported(fx):
    _, _, stderr = run_child({"desc": "fxbiquad name=f", "sizes": SIZES},
                             tracers="fxprof(summary=true,per-buffer=false)")
    assert "ignored" not in stderr and "cannot parse" not in stderr
