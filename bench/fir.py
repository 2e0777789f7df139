#!/usr/bin/python3
"""fxfir against the stock FIR elements (gst-plugins-good's audiofx: audiofirfilter,
audiowsinclimit) in one run (bench/run-fir.sh; issue 7, item 7).

Stereo F32 at 48 kHz, the same low-pass taps for every element (scipy.signal.firwin, Hamming,
4 kHz): fxfir designs them itself (num-taps, cutoff), audiofirfilter gets them as its `kernel`,
audiowsinclimit designs its own (length, cutoff; the same window). Each pipeline is
    filesrc blocksize=1024 frames ! queue ! rawaudioparse ! X ! fakesink
timed to EOS in this process, with X = identity as the baseline that is subtracted. The runs are
interleaved (round-robin over the elements) and each figure is the median of --reps runs; the
time measured is the CPU time of this process (getrusage, all threads: the machine is shared, so
wall time counts other people's work) and, for reference, the wall time. The stock elements run
in their default mode (FFT block latency) and, up to 101 taps, with low-latency=true (no added
latency, like fxfir; time-domain, far too slow to run at 1001 taps and more). fxfir adds no latency in either of its paths. Writes results/fir.md and
results/fir.csv. Never a test.
"""

import argparse
import datetime
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RATE = 48000
C = 2
BLOCK = 1024
CUTOFF = 4000.0


def log(*a):
    print("[fir-bench %s]" % time.strftime("%H:%M:%S"), *a, file=sys.stderr, flush=True)


def cpu_s():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def engine_summary(out):
    """The crossover measurements (fx-bench-fir, written by run-fir.sh before this script) as a
    table: CPU ns per stereo frame of the direct form, of the default zero-latency partitioned
    schedule (head 64, x8, largest block 4096) and of the latency mode's blocks."""
    lines = []
    for fmt in ("f32", "f64"):
        path = os.path.join(out, "fir-engine-%s.csv" % fmt)
        if not os.path.exists(path):
            continue
        rows = {}
        for line in open(path):
            parts = line.strip().split(",")
            if len(parts) != 3 or not parts[0].isdigit():
                continue
            rows.setdefault(int(parts[0]), {})[parts[1]] = float(parts[2])
        cols = ["direct", "partitioned h64 f8 m2048", "partitioned h64 f8 m4096", "latency 1024",
                "latency 2048"]
        lines += ["", "Engine alone (`fx-bench-fir`, %s, stereo, 1024-frame calls, CPU ns per "
                  "frame, median of 5; `fir-engine-%s.csv` has every schedule tried). Default "
                  "zero-latency schedule: head 64, x8 levels; latency rows: the block a "
                  "`max-latency` budget of that size gives." % (fmt.upper(), fmt), "",
                  "| taps | direct | partitioned (max block 2048) | partitioned (max block 4096) "
                  "| latency 1024 | latency 2048 |",
                  "| ---: | ---: | ---: | ---: | ---: | ---: |"]
        for n in sorted(rows):
            r = rows[n]
            lines.append("| %d | %s |" % (n, " | ".join(
                "%.1f" % r[c] if c in r else "—" for c in cols)))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=8.0, help="seconds of audio per run")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--taps", default="31,101,1001,16001")
    ap.add_argument("--no-low-latency", action="store_true",
                    help="skip the stock elements' low-latency rows")
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    a = ap.parse_args()

    import numpy as np
    import scipy.signal as ss
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
    Gst.init(None)
    for name in ("fxfir", "audiofirfilter", "audiowsinclimit"):
        if Gst.ElementFactory.find(name) is None:
            sys.exit("element %s not found (GST_PLUGIN_PATH_1_0=%r)"
                     % (name, os.environ.get("GST_PLUGIN_PATH_1_0")))

    frames = int(a.seconds * RATE)
    rng = np.random.default_rng(1)
    x = (0.1 * rng.standard_normal((frames, C))).astype(np.float32)
    tmp = tempfile.mkdtemp(prefix="fx-fir-bench-")
    path = os.path.join(tmp, "noise.f32")
    x.tofile(path)
    src = ("filesrc location=%s blocksize=%d ! queue ! rawaudioparse use-sink-caps=false "
           "format=pcm pcm-format=f32le sample-rate=%d num-channels=%d"
           % (path, BLOCK * C * 4, RATE, C))

    def run(desc, configure=None):
        pipe = Gst.parse_launch("%s ! %s ! fakesink sync=false" % (src, desc))
        if configure:
            configure(pipe)
        bus = pipe.get_bus()
        c0, t0 = cpu_s(), time.perf_counter()
        pipe.set_state(Gst.State.PLAYING)
        msg = bus.timed_pop_filtered(600 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
        c1, t1 = cpu_s(), time.perf_counter()
        pipe.set_state(Gst.State.NULL)
        if msg is None or msg.type == Gst.MessageType.ERROR:
            raise RuntimeError("%s: %s" % (desc, msg.parse_error()[0].message if msg else
                                           "timeout"))
        return c1 - c0, t1 - t0

    def own_latency(desc, configure=None):
        """Frames of latency the element named fir adds (its LATENCY answer minus upstream's)."""
        pipe = Gst.parse_launch("%s ! %s ! fakesink" % (src, desc))
        if configure:
            configure(pipe)
        pipe.set_state(Gst.State.PAUSED)
        pipe.get_state(10 * Gst.SECOND)
        el = pipe.get_by_name("fir")
        q_up, q = Gst.Query.new_latency(), Gst.Query.new_latency()
        el.get_static_pad("sink").peer_query(q_up)
        el.get_static_pad("src").query(q)
        pipe.set_state(Gst.State.NULL)
        ns = q.parse_latency()[1] - q_up.parse_latency()[1]
        return int(round(ns * RATE / 1e9))

    taps_list = [int(t) for t in a.taps.split(",")]
    cases = [("identity", "identity", None, 0)]
    latency = {}
    for n in taps_list:
        h = ss.firwin(n, CUTOFF, fs=RATE)
        kernel = [float(v) for v in h]

        def cfg(pipe, kernel=kernel):
            pipe.get_by_name("fir").set_property("kernel", kernel)

        stock_lat = own_latency("audiofirfilter name=fir", cfg)
        latency[("audiofirfilter", n)] = stock_lat
        latency[("audiowsinclimit", n)] = own_latency(
            "audiowsinclimit name=fir mode=low-pass cutoff=%g length=%d" % (CUTOFF, n))
        latency[("fxfir", n)] = 0
        cases.append(("fxfir", "fxfir num-taps=%d cutoff=%g" % (n, CUTOFF), None, n))
        if stock_lat >= 64:
            name = "fxfir max-latency=%d" % stock_lat
            d = "fxfir name=fir num-taps=%d cutoff=%g max-latency=%d" % (n, CUTOFF, stock_lat)
            latency[(name, n)] = own_latency(d)
            cases.append((name, d, None, n))
        cases.append(("audiofirfilter", "audiofirfilter name=fir", cfg, n))
        cases.append(("audiowsinclimit", "audiowsinclimit mode=low-pass cutoff=%g length=%d "
                      "window=hamming" % (CUTOFF, n), None, n))
        if not a.no_low_latency and n <= 101:  # time-domain: far too slow for long kernels
            latency[("audiofirfilter low-latency", n)] = 0
            latency[("audiowsinclimit low-latency", n)] = 0
            cases.append(("audiofirfilter low-latency", "audiofirfilter name=fir low-latency=true",
                          cfg, n))
            cases.append(("audiowsinclimit low-latency", "audiowsinclimit mode=low-pass "
                          "cutoff=%g length=%d window=hamming low-latency=true" % (CUTOFF, n),
                          None, n))
    res = {i: [] for i in range(len(cases))}
    log("%d cases x %d reps, %.0f s of stereo audio each" % (len(cases), a.reps, a.seconds))
    for r in range(a.reps):
        for i, (_, desc, cfg, _) in enumerate(cases):
            res[i].append(run(desc, cfg))
        log("rep %d done" % (r + 1))

    base_cpu = statistics.median(c for c, _ in res[0])
    base_wall = statistics.median(w for _, w in res[0])
    rows = []
    for i, (name, desc, _, n) in enumerate(cases):
        if i == 0:
            continue
        cpu = statistics.median(c for c, _ in res[i]) - base_cpu
        wall = statistics.median(w for _, w in res[i]) - base_wall
        rows.append(dict(element=name, taps=n, cpu_s=cpu, wall_s=wall,
                         ns_per_frame=cpu * 1e9 / frames, latency=latency.get((name, n), -1),
                         index=i))

    def ratio(i, j, k):
        """Median over the repetitions of (case i - identity) / (case j - identity), measure k
        (0: cpu, 1: wall): the cases of one repetition ran back to back under the same load, so
        the per-repetition ratio is steadier than the ratio of medians on a shared machine."""
        return statistics.median((res[i][r][k] - res[0][r][k]) / (res[j][r][k] - res[0][r][k])
                                 for r in range(a.reps))

    fx = {r["taps"]: r for r in rows if r["element"] == "fxfir"}
    for r in rows:
        r["speedup_cpu"] = ratio(r["index"], fx[r["taps"]]["index"], 0)
        r["speedup_wall"] = ratio(r["index"], fx[r["taps"]]["index"], 1)

    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "fir.csv"), "w") as f:
        f.write("element,taps,latency_frames,cpu_s,wall_s,ns_per_frame,fxfir_speedup_cpu,"
                "fxfir_speedup_wall\n")
        for r in rows:
            f.write("%s,%d,%d,%.4f,%.4f,%.2f,%.2f,%.2f\n" % (
                r["element"], r["taps"], r["latency"], r["cpu_s"], r["wall_s"],
                r["ns_per_frame"], r["speedup_cpu"], r["speedup_wall"]))
    cpu = ""
    try:
        cpu = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
               if l.startswith("model name")][0]
    except (OSError, IndexError):
        pass
    backend = {}
    for n in taps_list:
        p = Gst.parse_launch("%s ! fxfir name=f num-taps=%d cutoff=%g ! fakesink" % (
            src.replace("filesrc", "filesrc num-buffers=1"), n, CUTOFF))
        p.set_state(Gst.State.PLAYING)
        p.get_bus().timed_pop_filtered(10 * Gst.SECOND, Gst.MessageType.EOS |
                                       Gst.MessageType.ERROR)
        backend[n] = p.get_by_name("f").get_property("backend")
        p.set_state(Gst.State.NULL)
    lines = [
        "# fxfir vs stock FIR elements",
        "",
        "Run by `bench/run-fir.sh` on %s (%s, %s, %d CPUs), %s UTC. Stereo F32, 48 kHz, %d-frame "
        "buffers, %.0f s of noise per run, median of %d interleaved runs; identity pipeline "
        "subtracted. **cpu** = CPU time of the process (all threads), the primary figure on this "
        "shared machine; wall for reference. Speed-up = element time / fxfir time at the same "
        "taps (higher = fxfir faster), the median over the repetitions of the per-repetition ratio." % (
            platform.node(), cpu, platform.machine(), os.cpu_count(),
            datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"), BLOCK, a.seconds, a.reps),
        "",
        "Stock elements in default mode add an FFT block of latency; `low-latency` rows (run up "
        "to 101 taps only: time-domain, far too slow beyond) add none, like fxfir (zero latency "
        "on both of its paths).",
        "",
        "Speed-up is against the zero-latency fxfir row; rows `fxfir max-latency=L` give fxfir the "
        "latency the stock element takes at that length (measured with the LATENCY query) and "
        "show its own time (speed-up column: stock time / that row's time is in the text below).",
        "",
        "| taps | element | latency (frames) | fxfir backend | cpu ms | ns/frame | "
        "fxfir speed-up (cpu) | speed-up (wall) |",
        "| ---: | --- | ---: | --- | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append("| %d | %s | %d | %s | %.1f | %.1f | %s | %s |" % (
            r["taps"], r["element"], r["latency"],
            backend[r["taps"]] if r["element"] == "fxfir" else "",
            r["cpu_s"] * 1e3, r["ns_per_frame"],
            "—" if r["element"] == "fxfir" else "%.1f×" % r["speedup_cpu"],
            "—" if r["element"] == "fxfir" else "%.1f×" % r["speedup_wall"]))
    lines += ["", "At equal latency (stock default mode vs `fxfir max-latency=` the stock latency), "
              "fxfir speed-up (cpu / wall):", ""]
    for n in taps_list:
        lat = [r for r in rows if r["taps"] == n and r["element"].startswith("fxfir max-latency")]
        if not lat:
            continue
        for stock in ("audiofirfilter", "audiowsinclimit"):
            st = [r for r in rows if r["taps"] == n and r["element"] == stock][0]
            lines.append("- %d taps, %s: %.1f× / %.1f×" % (
                n, stock, ratio(st["index"], lat[0]["index"], 0),
                ratio(st["index"], lat[0]["index"], 1)))
    lines.append("")
    lines += engine_summary(a.out)
    open(os.path.join(a.out, "fir.md"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))
    os.remove(path)
    os.rmdir(tmp)


if __name__ == "__main__":
    main()
