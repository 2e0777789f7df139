#!/usr/bin/python3
"""fxeq (10 bands) against the stock equalizer-10bands, side by side in one run
(bench/README.md, "fxeq vs equalizer-10bands"). Run through bench/run-eq.sh.

Both equalizers get the same ten bands: equalizer-10bands' own centre frequencies (read from its
band children), its shelf at the first and last band and peaking bands in between, with the same
gains (all non-zero, so the stock element is never in passthrough); fxeq's peaking bands use
q = centre / bandwidth of the stock band (RBJ's Q of a band of that width in Hz), its shelves
q = 0.7071. Pipelines, as bench/compare.py times them (its helpers are reused):

    filesrc blocksize=1024 frames ! tee ! rawaudioparse (stereo F32LE, 48 kHz) ! X ! fakesink

(one streaming thread: compare.py's default source)

with X = identity (baseline, subtracted), equalizer-10bands, fxeq, fxeq precision=single, and the
configurations interleaved per repetition (the order rotates). Reported: medians over the
repetitions of the CPU time of the process (all threads) per buffer, raw and net of identity,
and the ratio stock / fxeq (net). Nothing here is a pass/fail test.
"""

import argparse
import datetime
import os
import platform
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import compare  # noqa: E402  (bench/compare.py: _gst, _src, _run_pipe, tick, med, RATE)

GAINS = [4.0, 3.0, 2.0, 0.5, -1.0, -2.0, -1.5, 1.5, 3.0, 2.0]
BLOCK = 1024
C = 2


def stock_bands(Gst):
    e = Gst.ElementFactory.make("equalizer-10bands", None)
    if e is None:
        raise SystemExit("equalizer-10bands not found (gstreamer1.0-plugins-good)")
    out = []
    for i in range(10):
        b = e.get_child_by_index(i)
        out.append((b.get_property("freq"), b.get_property("bandwidth"),
                    b.get_property("type").value_nick))
    return out


def configs(Gst):
    bands = stock_bands(Gst)
    stock = "equalizer-10bands " + " ".join("band%d=%r" % (i, g) for i, g in enumerate(GAINS))
    fx = []
    for i, ((f, bw, kind), g) in enumerate(zip(bands, GAINS)):
        if "low" in kind:
            t, q = "low-shelf", 0.7071
        elif "high" in kind:
            t, q = "high-shelf", 0.7071
        else:
            t, q = "peaking", f / bw
        fx.append("band{0}::type={1} band{0}::frequency={2!r} band{0}::q={3!r} band{0}::gain={4!r}"
                  .format(i, t, f, q, g))
    fxeq = "fxeq name=fx device=cpu num-bands=10 " + " ".join(fx)
    return bands, [
        ("identity", "identity", []),
        ("equalizer-10bands", stock, []),
        ("fxeq (auto)", fxeq, [("fx", "backend"), ("fx", "dispatches")]),
        ("fxeq precision=single", fxeq.replace("device=cpu", "device=cpu precision=single"),
         [("fx", "backend"), ("fx", "dispatches")]),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="audio per run (default 60)")
    ap.add_argument("--reps", type=int, default=9, help="repetitions (default 9)")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "eq.md"))
    a = ap.parse_args()

    import numpy as np
    Gst = compare._gst()
    bands, cfgs = configs(Gst)
    frames = int(a.seconds * compare.RATE) // BLOCK * BLOCK
    nbuf = frames // BLOCK
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "noise.f32")
        rng = np.random.default_rng(1)
        (0.1 * rng.standard_normal((frames, C))).astype(np.float32).tofile(raw)
        src = compare._src(raw, C, BLOCK)
        rows = [{"name": n, "desc": d, "read": r, "s": [], "props": {}} for n, d, r in cfgs]
        for rep in range(a.reps):
            k = rep % len(rows)
            for row in rows[k:] + rows[:k]:
                dt, err, props = compare._run_pipe(
                    Gst, "%s ! %s ! fakesink sync=false" % (src, row["desc"]), read=row["read"])
                if err:
                    raise SystemExit("%s: %s" % (row["name"], err))
                row["s"].append(dt)
                row["props"] = props
            compare.log("eq: repetition %d/%d done" % (rep + 1, a.reps))
    load1 = os.getloadavg()

    base = compare.med(rows[0]["s"]) / nbuf
    lines = []
    lines.append("| pipeline element | µs/buf raw median (min–max) | net µs/buf | "
                 "ns per channel-sample (net) | stock / this (net) | backend | dispatches/buf |")
    lines.append("| --- | --- | --- | --- | --- | --- | --- |")
    stock_net = compare.med(rows[1]["s"]) / nbuf - base
    for row in rows:
        per = [s / nbuf * 1e6 for s in row["s"]]
        m = compare.med(row["s"]) / nbuf
        net = m - base
        is_base = row["name"] == "identity"
        d = row["props"].get("fx.dispatches")
        lines.append("| %s | %.2f (%.2f–%.2f) | %s | %s | %s | %s | %s |" % (
            row["name"], m * 1e6, min(per), max(per),
            "–" if is_base else "%.2f" % (net * 1e6),
            "–" if is_base else "%.2f" % (net * 1e9 / (BLOCK * C)),
            "–" if is_base or row["name"].startswith("equalizer") else "%.2f×" % (stock_net / net),
            row["props"].get("fx.backend") or "–",
            "–" if d is None else "%.2f" % (d / nbuf)))
    try:
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = "?"
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    band_lines = ["| band | centre Hz | stock bandwidth Hz | stock type | fxeq type, q | gain dB |",
                  "| --- | --- | --- | --- | --- | --- |"]
    for i, ((f, bw, kind), g) in enumerate(zip(bands, GAINS)):
        fxk = ("low-shelf, 0.7071" if "low" in kind else "high-shelf, 0.7071" if "high" in kind
               else "peaking, %.3f" % (f / bw))
        band_lines.append("| %d | %.1f | %.1f | %s | %s | %g |" % (i, f, bw, kind, fxk, g))
    text = "\n".join([
        "# fxeq (10 bands) vs equalizer-10bands",
        "",
        "Written by `bench/run-eq.sh` (bench/eq.py) on %s, commit %s, build %s." % (
            datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), commit,
            os.environ.get("FX_BUILD_TYPE", "?")),
        "Machine: %s, %d CPU(s), %s; %s; load average %.2f at start, %.2f at end." % (
            cpu, os.cpu_count() or 0, platform.platform(), Gst.version_string(), load0[0],
            load1[0]),
        "",
        "Stereo F32LE 48 kHz white noise, %d buffers of %d frames (%.0f s) per run, %d "
        "repetitions interleaved; timer: CPU time of the process (all threads); `net` = raw − "
        "identity (median). `filesrc blocksize ! tee ! rawaudioparse ! X ! fakesink "
        "sync=false` (one streaming thread)." % (nbuf, BLOCK, frames / compare.RATE, a.reps),
        "",
    ] + lines + ["", "Bands (the same centres and gains for both):", ""] + band_lines + [""])
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
