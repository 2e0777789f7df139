#!/usr/bin/env python3
"""Runs the kernel micro-benchmark (fx-bench-kernels, bench/kernels.c) and scipy's sosfilt in the
same session and writes a comparison: ns per channel-sample per kernel and flavour, speed-ups vs
the scalar kernel and vs scipy, the measured FMA-throughput bound, and the issue's targets.

    bench/run-kernels.py [--build BUILD_DIR] [--reps 7] [--ms 20] [--K 1,2,4,8,16] [--C 1,2,8,16,64]

Writes bench/results/kernels.md and bench/results/kernels.csv (overwritten on each run). A
measurement, never a pass/fail test: the exit status is 0 whatever the numbers. Needs a build
with the benchmark programs: meson configure BUILD_DIR -Dbench=true && ninja -C BUILD_DIR.
"""

import argparse
import csv
import io
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLAVOURS = ("f32_s", "f32_d", "f64")
LANES = {"avx2": {"f32_s": 8, "f32_d": 4, "f64": 4}, "avx512": {"f32_s": 16, "f32_d": 8, "f64": 8}}


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def allpass_sos(K):
    """The bench's sections (bench/kernels.c): all-pass, poles at 0.9."""
    rows = []
    for k in range(K):
        th = 0.1 + 2.9 * k / (K + 1.0)
        a1, a2 = -1.8 * np.cos(th), 0.81
        rows.append([a2, a1, 1.0, 1.0, a1, a2])
    return np.array(rows)


def time_scipy(K, C, dtype, reps, frames=48000):
    import scipy.signal as sig

    sos = allpass_sos(K).astype(dtype)
    x = np.random.default_rng(1).uniform(-0.5, 0.5, (frames, C)).astype(dtype)
    sig.sosfilt(sos, x[:1000], axis=0)  # warm-up
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        y = sig.sosfilt(sos, x, axis=0)
        ts.append((time.perf_counter() - t0) * 1e9 / (frames * C))
    assert y.dtype == dtype
    return statistics.median(ts), min(ts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.environ.get("BUILD_DIR", os.path.join(REPO, "build")))
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--ms", type=float, default=20)
    ap.add_argument("--K", default="1,2,4,8,16")
    ap.add_argument("--C", default="1,2,8,16,64")
    ap.add_argument("--frames", type=int, default=1024)
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "results"))
    a = ap.parse_args()
    exe = os.path.join(a.build, "dsp", "fx-bench-kernels")
    if not os.path.exists(exe):
        sys.exit("%s not found: the benchmark programs are built with the meson option bench "
                 "(meson configure %s -Dbench=true && ninja -C %s)" % (exe, a.build, a.build))
    load0 = os.getloadavg()
    cmd = [exe, "--K", a.K, "--C", a.C, "--reps", str(a.reps), "--ms", str(a.ms),
           "--frames", str(a.frames)]
    print("running", " ".join(cmd), file=sys.stderr)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    comments = {}
    lines = []
    for line in out.splitlines():
        if line.startswith("#"):
            k, v = line[1:].split()
            comments[k] = float(v)
        else:
            lines.append(line)
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    ns, ns_min = {}, {}
    for r in rows:
        key = (r["kernel"], r["flavour"], int(r["K"]), int(r["C"]))
        ns[key] = float(r["ns_per_channel_sample_median"])
        ns_min[key] = float(r["ns_min"])
    kernels = []
    for r in rows:
        if r["kernel"] not in kernels:
            kernels.append(r["kernel"])
    Ks = sorted({k[2] for k in ns})
    Cs = sorted({k[3] for k in ns})

    print("timing scipy.signal.sosfilt ...", file=sys.stderr)
    scipy_ns = {}
    for K in Ks:
        for C in Cs:
            for dt, name in ((np.float32, "float32"), (np.float64, "float64")):
                scipy_ns[(name, K, C)] = time_scipy(K, C, dt, max(3, a.reps // 2))[1]
    load1 = os.getloadavg()

    rate = {"avx2": comments.get("fma256_per_ns"), "avx512": comments.get("fma512_per_ns")}

    def bound(kernel, fl, K):
        """FMA-throughput bound, ns per channel-sample: 5 FMA-unit operations (4 FMA + 1 mul)
        per section and sample, lanes channels per operation."""
        if kernel not in LANES or not rate.get(kernel):
            return None
        return 5.0 * K / (LANES[kernel][fl] * rate[kernel])

    md = []
    md.append("# Kernel micro-benchmark\n")
    md.append("- machine: %s, %d CPUs; load average %.2f at start, %.2f at end" % (
        cpu_model(), os.cpu_count() or 0, load0[0], load1[0]))
    md.append("- date: %s; frames per call %d; %d repetitions of >= %g ms, medians" % (
        time.strftime("%Y-%m-%d %H:%M:%S"), a.frames, a.reps, a.ms))
    md.append("- measured FMA throughput: %s" % ", ".join(
        "%s %.2f vector FMAs/ns" % (k, v) for k, v in comments.items()))
    md.append("- sections: all-pass, poles at radius 0.9 (same in scipy); scipy times "
              "`sosfilt(sos, x, axis=0)` on 48000 frames x C (minimum of the runs)\n")
    md.append("## ns per channel-sample (median)\n")
    hdr = "| kernel | flavour | K | " + " | ".join("C=%d" % c for c in Cs) + " |"
    md.append(hdr)
    md.append("|" + "---|" * (3 + len(Cs)))
    for kn in kernels:
        for fl in FLAVOURS:
            for K in Ks:
                cells = []
                for C in Cs:
                    v = ns.get((kn, fl, K, C))
                    cells.append("%.3f" % v if v is not None else "")
                md.append("| %s | %s | %d | %s |" % (kn, fl, K, " | ".join(cells)))
    for name in ("float32", "float64"):
        for K in Ks:
            md.append("| scipy | %s | %d | %s |" % (name, K, " | ".join(
                "%.3f" % scipy_ns[(name, K, C)] for C in Cs)))
    md.append("")

    md.append("## Speed-up vs the scalar kernel (same flavour), and % of the FMA bound\n")
    md.append("| kernel | flavour | K | " + " | ".join("C=%d" % c for c in Cs) + " |")
    md.append("|" + "---|" * (3 + len(Cs)))
    for kn in kernels:
        if kn == "scalar":
            continue
        for fl in FLAVOURS:
            for K in Ks:
                cells = []
                for C in Cs:
                    v, s = ns.get((kn, fl, K, C)), ns.get(("scalar", fl, K, C))
                    b = bound(kn, fl, K)
                    c = "%.1fx" % (s / v) if v and s else ""
                    if b and v and C >= LANES[kn][fl] and C % LANES[kn][fl] == 0:
                        c += " (%.0f%%)" % (100 * b / v)
                    cells.append(c)
                md.append("| %s | %s | %d | %s |" % (kn, fl, K, " | ".join(cells)))
    md.append("")

    # the chunked kernels (kernel_chunk.h) for one and two channels, against the sequential
    # kernel of the same instruction set, in % of the float FMA bound of the best vector width
    ck_frames = max(a.frames, 4096)
    cmd = [exe, "--K", a.K, "--C", "1,2", "--reps", str(a.reps), "--ms", str(a.ms), "--frames",
           str(ck_frames), "--flavours", "f32_s,f32_d", "--chunk"]
    print("running", " ".join(cmd), file=sys.stderr)
    ck_out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    cmd = cmd[:-1]
    sq_out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    ck = {}
    for text_out in (ck_out, sq_out):
        for r in csv.DictReader(io.StringIO("\n".join(
                l for l in text_out.splitlines() if not l.startswith("#")))):
            ck[(r["kernel"], r["flavour"], int(r["K"]), int(r["C"]))] = float(
                r["ns_per_channel_sample_median"])
    widest = "avx512" if rate.get("avx512") else "avx2"
    md.append("## Chunked kernels, one and two channels (%d frames per call)\n" % ck_frames)
    md.append("ns per channel-sample (median); in brackets %% of the float FMA bound of this "
              "machine's widest vectors (%s, %d float lanes): 5 FMA-unit operations per section "
              "and sample (the chunked kernels do 7). `seq`: the sequential kernel of the same "
              "instruction set.\n" % (widest, LANES[widest]["f32_s"]))
    md.append("| kernel | flavour | K | C=1 chunked | C=1 seq | C=2 chunked | C=2 seq |")
    md.append("|---|---|---|---|---|---|---|")
    for kn in [k for k in kernels if k != "scalar"]:
        for fl in ("f32_s", "f32_d"):
            for K in Ks:
                cells = []
                for C in (1, 2):
                    v, q = ck.get((kn + "-chunk", fl, K, C)), ck.get((kn, fl, K, C))
                    b = bound(widest, "f32_s", K)
                    cells.append("%.3f (%.0f%%)" % (v, 100 * b / v) if v and b else
                                 ("%.3f" % v if v else ""))
                    cells.append("%.3f (%.0f%%)" % (q, 100 * b / q) if q and b else
                                 ("%.3f" % q if q else ""))
                md.append("| %s | %s | %d | %s |" % (kn, fl, K, " | ".join(cells)))
    md.append("")

    # the same on a real design: a Butterworth low-pass as scipy lays it out (the gain in the
    # first section, numerators 1, 2, 1 in the others), where the chunked kernels' zero-state
    # pass uses additions for the exact products by 1 and 2 (kernel_chunk.h, ck_shape)
    bw = {}
    for chunk in (True, False):
        cmd = [exe, "--K", a.K, "--C", "1,2", "--reps", str(a.reps), "--ms", str(a.ms),
               "--frames", str(ck_frames), "--flavours", "f32_s", "--design", "butter"]
        cmd += ["--chunk"] if chunk else []
        print("running", " ".join(cmd), file=sys.stderr)
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        for r in csv.DictReader(io.StringIO("\n".join(
                l for l in out.splitlines() if not l.startswith("#")))):
            bw[(r["kernel"], int(r["K"]), int(r["C"]))] = float(r["ns_per_channel_sample_median"])
    md.append("## Chunked kernels on a Butterworth low-pass (order 2K at 1 kHz, scipy's layout; "
              "%d frames per call)\n" % ck_frames)
    md.append("Float arithmetic (f32_s); ns per channel-sample (median), in brackets % of the "
              "float FMA bound as above. The all-pass sections of the table above have general "
              "numerators; scipy's designs leave 1, ±2, 1 or 1, b1, 1 after the first section, "
              "where the chunked kernels add instead of multiplying by 1 and 2 (the same "
              "numbers).\n")
    md.append("| kernel | K | C=1 chunked | C=1 seq | C=2 chunked | C=2 seq |")
    md.append("|---|---|---|---|---|---|")
    for kn in [k for k in kernels if k != "scalar"]:
        for K in Ks:
            cells = []
            for C in (1, 2):
                for key in (kn + "-chunk", kn):
                    v, b = bw.get((key, K, C)), bound(widest, "f32_s", K)
                    cells.append("%.3f (%.0f%%)" % (v, 100 * b / v) if v and b else
                                 ("%.3f" % v if v else ""))
            md.append("| %s | %d | %s |" % (kn, K, " | ".join(cells)))
    md.append("")

    best = kernels[0]
    for stat_name, table in (("medians", ns), ("minima (less disturbed by other load)", ns_min)):
        md.extend(targets(best, kernels, table, scipy_ns, bound, Ks, Cs, stat_name))
    text = "\n".join(md)
    print(text)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "kernels.md"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(a.out, "kernels.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")
        for (name, K, C), v in sorted(scipy_ns.items()):
            f.write("scipy,%s,%d,%d,48000,%.4f,,\n" % (name, K, C, v))


def targets(best, kernels, ns, scipy_ns, bound, Ks, Cs, stat_name):
    md = ["## Targets (issue \"CPU speed\") on %s; best kernel here: %s\n" % (stat_name, best)]
    tgt = []

    def get(kn, fl, K, C):
        return ns.get((kn, fl, K, C))

    if (best, "f32_s", 8, 8) in ns and ("float32", 8, 8) in scipy_ns:
        for fl in ("f32_s", "f32_d"):
            v = min(get(k, fl, 8, 8) for k in kernels if get(k, fl, 8, 8))
            sp = scipy_ns[("float32", 8, 8)] / v
            tgt.append(("K=8 C=8 %s >= 10x scipy float32" % fl, "%.1fx (%.3f vs %.3f ns)" % (
                sp, v, scipy_ns[("float32", 8, 8)]), sp >= 10))
        for kn in kernels:
            b, v = bound(kn, "f32_s", 8), get(kn, "f32_s", 8, 8)
            if b and v and 8 % LANES[kn]["f32_s"] == 0:
                tgt.append(("K=8 C=8 f32_s %s >= 75%% of FMA bound" % kn,
                            "%.0f%% (bound %.3f ns)" % (100 * b / v, b), b / v >= 0.75))
            b, v = bound(kn, "f32_s", 8), get(kn, "f32_s", 8, 16)
            if b and v and 16 % LANES[kn]["f32_s"] == 0:
                tgt.append(("K=8 C=16 f32_s %s >= 75%% of FMA bound" % kn,
                            "%.0f%% (bound %.3f ns)" % (100 * b / v, b), b / v >= 0.75))
    for C in (1, 2):
        if ("scalar", "f32_s", 8, C) not in ns or len(kernels) < 2:
            continue
        for fl in FLAVOURS:
            sc = min(get("scalar", f, 8, C) for f in FLAVOURS if get("scalar", f, 8, C))
            v = min(get(k, fl, 8, C) for k in kernels if k != "scalar" and get(k, fl, 8, C))
            if v:
                tgt.append(("K=8 C=%d %s >= 2x best scalar path" % (C, fl),
                            "%.2fx (%.3f vs %.3f ns)" % (sc / v, v, sc), sc / v >= 2))
    for kn in kernels:
        worst = None
        for K in Ks:
            for C in Cs:
                s, d = get(kn, "f32_s", K, C), get(kn, "f32_d", K, C)
                if s and d and K >= 4:
                    r = d / s
                    if worst is None or r > worst[0]:
                        worst = (r, K, C)
        if worst:
            tgt.append(("%s f32_d <= 2x f32_s (K >= 4, worst)" % kn,
                        "%.2fx at K=%d C=%d" % worst, worst[0] <= 2))
    md.append("| target | measured | met |")
    md.append("|---|---|---|")
    for t, m, ok in tgt:
        md.append("| %s | %s | %s |" % (t, m, "yes" if ok else "**no**"))
    md.append("")
    return md


if __name__ == "__main__":
    main()
