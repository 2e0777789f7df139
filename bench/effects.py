#!/usr/bin/python3
"""fxreverb vs the stock freeverb and fxdelay vs the stock audioecho, in one process, one run
(bench/README.md, "Effects"). Run through bench/run-effects.sh, which builds and sets the plugin
path:
    /usr/bin/python3 bench/effects.py [--seconds S] [--reps N] [--block FRAMES] [--out FILE]

Pipelines: `filesrc blocksize=B ! queue ! rawaudioparse ! X ! fakesink sync=false` on stereo
F32LE 48 kHz white noise (the queue keeps rawaudioparse in push mode, so buffers are exactly B
frames), timed from PLAYING to EOS in CPU time of this process (all its threads). `identity` in
place of X is the baseline; its median is subtracted (*net*). Configurations alternate within
each repetition (order rotated); medians over the repetitions. The fx elements render their tail
at EOS (extra audio the stock elements do not produce); the tail frames are counted in a
validation run and reported, and `ns/frame` divides the net time by the frames each element
outputs. Nothing here is a pass/fail test.
"""

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

RATE = 48000
C = 2

# (name, element description, the peer it is compared with or None)
CONFIGS = [
    ("identity", "identity", None),
    ("fxreverb", "fxreverb room-size=0.5 damping=0.5 width=1 mix=0.3", "freeverb"),
    ("freeverb", "freeverb room-size=0.5 damping=0.2 width=1 level=0.3", None),
    ("fxdelay", "fxdelay delay=250 feedback=0.35 mix=0.5 max-delay=1000", "audioecho"),
    ("audioecho", "audioecho delay=250000000 max-delay=1000000000 intensity=0.5 feedback=0.35",
     None),
]
SETTINGS_NOTE = {
    "fxreverb": "Jezar's Freeverb in double precision (both banks fed the channel sum); "
                "mix 0.3 = the stock level 0.3 (wet gain mix, dry gain 1 - mix)",
    "freeverb": "gst-plugins-bad freeverb (float; no 0.4 damping scale, so its damping 0.2 = "
                "our 0.5; each bank is fed its own channel, not the sum, so the outputs differ "
                "by design; the work per frame is the same: 16 combs + 8 all-passes)",
    "fxdelay": "250 ms, feedback 0.35, mix 0.5, linear interpolation, 20 ms ramps",
    "audioecho": "gst-plugins-good audioecho, 250 ms, feedback 0.35, intensity 0.5",
}


def tick():
    return time.process_time()


def src(path, block):
    return ("filesrc location=%s blocksize=%d ! queue ! rawaudioparse use-sink-caps=false "
            "format=pcm pcm-format=f32le sample-rate=%d num-channels=%d"
            % (path, block * C * 4, RATE, C))


def run(desc):
    pipe = Gst.parse_launch(desc)
    bus = pipe.get_bus()
    t0 = tick()
    pipe.set_state(Gst.State.PLAYING)
    msg = bus.timed_pop_filtered(120 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    dt = tick() - t0
    err = None
    if msg is None:
        err = "timeout"
    elif msg.type == Gst.MessageType.ERROR:
        err = msg.parse_error()[0].message
    pipe.set_state(Gst.State.NULL)
    return dt, err


def output_frames(path, block, element):
    """Frames the element outputs for the whole file (input plus any tail)."""
    pipe = Gst.parse_launch("%s ! %s ! appsink name=s sync=false" % (src(path, block), element))
    sink = pipe.get_by_name("s")
    pipe.set_state(Gst.State.PLAYING)
    n = 0
    while True:
        smp = sink.emit("try-pull-sample", 30 * Gst.SECOND)
        if smp is None:
            break
        n += smp.get_buffer().get_size() // (4 * C)
    pipe.set_state(Gst.State.NULL)
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=20.0, help="audio per run (20)")
    ap.add_argument("--reps", type=int, default=5, help="repetitions (5)")
    ap.add_argument("--block", type=int, default=1024, help="frames per buffer (1024)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                  "effects.md"))
    a = ap.parse_args()
    Gst.init(None)
    t_start = time.monotonic()
    load0 = os.getloadavg()

    missing = [n for _, d, _ in CONFIGS for n in [d.split()[0]]
               if Gst.ElementFactory.find(n) is None]
    configs = [c for c in CONFIGS if c[1].split()[0] not in missing]
    frames = int(a.seconds * RATE)
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((frames, C)) * 0.1).astype(np.float32)
    with tempfile.NamedTemporaryFile(suffix=".f32", delete=False) as f:
        path = f.name
        f.write(x.tobytes())
    try:
        out_frames = {name: output_frames(path, a.block, d) for name, d, _ in configs}
        times = {name: [] for name, _, _ in configs}
        errors = {}
        for r in range(a.reps):
            order = configs[r % len(configs):] + configs[:r % len(configs)]
            for name, d, _ in order:
                dt, err = run("%s ! %s ! fakesink sync=false" % (src(path, a.block), d))
                if err:
                    errors[name] = err
                times[name].append(dt)
    finally:
        os.unlink(path)

    med = {k: statistics.median(v) for k, v in times.items()}
    base = med.get("identity", 0.0)
    net = {k: med[k] - base for k in med}
    rows = []
    for name, d, peer in configs:
        ns = net[name] / max(1, out_frames[name]) * 1e9 if name != "identity" else None
        ratio = ""
        if peer and peer in net and net[name] > 0:
            ratio = "%.2f× (net), %.2f× (raw)" % (net[peer] / net[name], med[peer] / med[name])
        rows.append((name, d, med[name], min(times[name]), max(times[name]),
                     net[name] if name != "identity" else None, out_frames[name], ns, ratio))

    try:
        commit = subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(__file__)),
                                 "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
    except OSError:
        commit = "?"
    lines = ["# Effects: fxreverb vs freeverb, fxdelay vs audioecho", ""]
    lines.append("- date: %s UTC; machine: %s, %d logical CPUs; load average %s at start, %s "
                 "at end" % (datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"),
                             platform.processor() or platform.machine(), os.cpu_count(),
                             " ".join("%.2f" % v for v in load0),
                             " ".join("%.2f" % v for v in os.getloadavg())))
    lines.append("- commit %s, build %s; %s" % (commit, os.environ.get(
        "FX_BENCH_BUILD", "?"), Gst.version_string()))
    lines.append("- workload: %.0f s of stereo F32LE %d Hz white noise (σ = 0.1), %d frames, "
                 "%d-frame buffers; `filesrc ! queue ! rawaudioparse ! X ! fakesink sync=false`; "
                 "CPU time of the process (all threads), PLAYING to EOS; %d repetitions, "
                 "interleaved; medians; *net* = raw − identity" % (a.seconds, RATE, frames,
                                                                   a.block, a.reps))
    lines.append("- `out frames` includes the tail the fx elements render at EOS (the stock "
                 "elements stop with the input); ns/frame = net / out frames")
    lines.append("- total run time %.0f s" % (time.monotonic() - t_start))
    if missing:
        lines.append("- not measured (element missing): %s" % ", ".join(missing))
    if errors:
        lines.append("- errors: %s" % "; ".join("%s: %s" % kv for kv in errors.items()))
    if max(load0) > 0.7 * (os.cpu_count() or 1):
        lines.append("- **the machine was busy** (load average above): figures carry noise from "
                     "other processes")
    lines += ["", "| element | settings | raw s (min–max) | net s | out frames | ns/frame (net) "
              "| stock / fx |", "|---|---|---:|---:|---:|---:|---|"]
    for name, d, m, lo, hi, n, of, ns, ratio in rows:
        lines.append("| %s | `%s` | %.3f (%.3f–%.3f) | %s | %d | %s | %s |" % (
            name, d, m, lo, hi, "–" if n is None else "%.3f" % n, of,
            "–" if ns is None else "%.1f" % ns, ratio))
    lines.append("")
    for k, v in SETTINGS_NOTE.items():
        lines.append("- %s: %s" % (k, v))
    text = "\n".join(lines) + "\n"
    print(text)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
