#!/usr/bin/python3
"""Short buffers, fused depth 20 and process start-up: gst-fx beside its peers, in one run.

Run through bench/run-all.sh (or alone, after a build with -Dbench=true):
    /usr/bin/python3 bench/extras.py --build BUILD [--quick] [--reps N] [--only buffers,...]
        [--torchfx-python VENV/bin/python]

Three workloads, each written to its own file under --out (bench/results/):
  buffers   buffers.md: the seed chain (high-pass 80 Hz order 4 -> low-pass 12 kHz order 8), mono
            and stereo F32, in 128- and 512-frame buffers (1024 for reference) with the state
            carried from buffer to buffer: (1) the engine, fx_cascade_process once per buffer
            from a small C loop compiled at run time (no Python between buffers), per precision;
            (2) the element in a GStreamer pipeline (fxchain, and two audiocheblimit), ns per
            buffer net of an identity pipeline; (3) scipy sosfilt per buffer with zi carried.
  depth20   depth20.md: twenty IIR stages (fx_tool_iir_chain's chain: fxbiquad, fxbutterworth,
            fxsos in turn, one section each) fused into one cascade against the same stages
            unfused (twenty cascades called in turn, and fxchain fuse=false) and against scipy
            sosfilt over the same twenty sections, stereo F32, 1024-frame buffers.
  startup   startup.md: wall time of whole processes on a tiny file (0.1 s of stereo 16-bit
            wav): gst-fx process, gst-launch-1.0 with fxchain / identity / audiocheblimit, sox
            with and without effects, python3 with scipy and (when its venv is given) TorchFX.
Every table carries this machine's FMA-throughput bound for the work it measures (clock and FMA
instructions per cycle measured as bench/compare.py does) and the ratios to the peers of the same
run. Repetitions are interleaved (the order rotates), medians are reported with min-max. Timers:
CPU time of the measuring process (as compare.py) except start-up, which is wall time.
"""

import argparse
import ctypes
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import compare  # noqa: E402  (shared helpers: clock, FMA bound, GStreamer runners)

RATE = 48000
SEED_CHAIN = compare.CHAIN_FX
SEED_SECTIONS = 6  # 2 + 4 biquads
CHEB_CHAIN = compare.CHEB_CHAIN


def log(*a):
    print("[extras %s]" % time.strftime("%H:%M:%S"), *a, file=sys.stderr, flush=True)


def med(xs):
    return statistics.median(xs) if xs else float("nan")


# ------------------------------------------------------------------------------------------------
# the twenty-stage chain, as tools/util.c fx_tool_iir_chain() writes it, and its sections

def iir_chain(depth):
    parts = []
    for i in range(depth):
        if i % 3 == 0:
            parts.append("fxbiquad name=s%d type=peaking frequency=%d q=1.0 gain=%s"
                         % (i, 100 << ((i // 3) % 8), "-1.5" if (i // 3) % 2 else "1.5"))
        elif i % 3 == 1:
            parts.append("fxbutterworth name=s%d mode=high-pass cutoff=%d order=2" % (i, 20 + i))
        else:
            parts.append('fxsos name=s%d sections="0.63894553 1.27789105 0.63894553 1 '
                         '1.1429805 0.4128016"' % i)
    return " ! ".join(parts)


def iir_chain_sos(depth):
    """The same sections for scipy and the engine (RBJ peaking bell, scipy Butterworth,
    the literal row)."""
    import math
    import numpy as np
    import scipy.signal as ss
    rows = []
    for i in range(depth):
        if i % 3 == 0:
            f0, gain, q = 100 << ((i // 3) % 8), (-1.5 if (i // 3) % 2 else 1.5), 1.0
            A = 10 ** (gain / 40)
            w0 = 2 * math.pi * f0 / RATE
            al = math.sin(w0) / (2 * q)
            b = [1 + al * A, -2 * math.cos(w0), 1 - al * A]
            a = [1 + al / A, -2 * math.cos(w0), 1 - al / A]
            rows.append([v / a[0] for v in b] + [1.0, a[1] / a[0], a[2] / a[0]])
        elif i % 3 == 1:
            rows.append(list(ss.butter(2, 20 + i, "highpass", fs=RATE, output="sos")[0]))
        else:
            rows.append([0.63894553, 1.27789105, 0.63894553, 1, 1.1429805, 0.4128016])
    return np.array(rows)


# ------------------------------------------------------------------------------------------------
# the C loop: fx_cascade_process over consecutive buffers, no Python in between

LOOP_C = r"""
#include <stddef.h>
#include <time.h>
typedef unsigned (*proc_fn)(void *, void *, size_t);
/* Filters nblk consecutive buffers of `frames` frames (stride bytes apart) through each of the n
 * cascades in turn (state carried from buffer to buffer); returns this thread's CPU ns. */
double fx_loop(proc_fn f, void **h, int n, char *buf, size_t frames, size_t stride, size_t nblk)
{
  struct timespec a, b;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
  for (size_t i = 0; i < nblk; i++)
    for (int j = 0; j < n; j++)
      f(h[j], buf + i * stride, frames);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
  return (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
}
"""


def build_loop(tmp):
    src, so = os.path.join(tmp, "fxloop.c"), os.path.join(tmp, "fxloop.so")
    open(src, "w").write(LOOP_C)
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-shared", "-fPIC", "-o", so, src],
                   check=True, capture_output=True, timeout=60)
    lib = ctypes.CDLL(so)
    lib.fx_loop.restype = ctypes.c_double
    lib.fx_loop.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int,
                            ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_size_t]
    return lib


# ------------------------------------------------------------------------------------------------
# workers (one process each, pinned like compare.py's)

def worker_engine(a):
    """(b) and (c) at engine level."""
    import numpy as np
    fc = compare._load_engine(a.build)
    loop = build_loop(a.tmp)
    proc = ctypes.cast(fc.lib().fx_cascade_process, ctypes.c_void_p).value
    out = {"buffers": [], "depth20": [], "backend": None}
    sos, _, _ = compare.chain_sos()
    rng = np.random.default_rng(3)
    frames_total = int(a.seconds * RATE)
    for C in (1, 2):
        x = (rng.standard_normal((frames_total, C)) * 0.1).astype(np.float32)
        buf = np.empty_like(x)
        confs = []
        for B in a.frames:
            for prec in ("auto", "single", "double"):
                cas = fc.Cascade(C, np.float32, prec, sos=sos)
                confs.append({"C": C, "B": B, "precision": prec, "cas": cas,
                              "backend": cas.backend, "ns": []})
        for r in range(a.reps + 1):  # the first round warms up, not kept
            k = r % len(confs)
            for c in confs[k:] + confs[:k]:
                nblk = frames_total // c["B"]
                np.copyto(buf, x)
                c["cas"].reset()
                h = (ctypes.c_void_p * 1)(c["cas"]._h)
                ns = loop.fx_loop(proc, h, 1, buf.ctypes.data, c["B"], c["B"] * C * 4, nblk)
                if r:
                    c["ns"].append(ns / nblk)
        for c in confs:
            c.pop("cas").close()
            out["buffers"].append(c)
        log("engine: buffers C=%d done" % C)
    # depth 20: one cascade of 20 sections (fused) against 20 cascades of one section (unfused)
    s20 = iir_chain_sos(20)
    B, C = 1024, 2
    x = (rng.standard_normal((frames_total, C)) * 0.1).astype(np.float32)
    buf = np.empty_like(x)
    confs = []
    for prec in ("auto", "single", "double"):
        fused = [fc.Cascade(C, np.float32, prec, sos=s20)]
        unfused = [fc.Cascade(C, np.float32, prec, sos=s20[i:i + 1]) for i in range(20)]
        confs.append({"kind": "fused", "precision": prec, "cas": fused,
                      "backend": fused[0].backend, "ns": []})
        confs.append({"kind": "unfused", "precision": prec, "cas": unfused,
                      "backend": unfused[0].backend, "ns": []})
    nblk = frames_total // B
    for r in range(a.reps + 1):
        k = r % len(confs)
        for c in confs[k:] + confs[:k]:
            np.copyto(buf, x)
            for cas in c["cas"]:
                cas.reset()
            h = (ctypes.c_void_p * len(c["cas"]))(*[cas._h for cas in c["cas"]])
            ns = loop.fx_loop(proc, h, len(c["cas"]), buf.ctypes.data, B, B * C * 4, nblk)
            if r:
                c["ns"].append(ns / nblk)
    for c in confs:
        for cas in c.pop("cas"):
            cas.close()
        c.update({"B": B, "C": C})
        out["depth20"].append(c)
    log("engine: depth 20 done")
    json.dump(out, open(a.out, "w"))


def worker_scipy(a):
    import numpy as np
    import scipy
    import scipy.signal as ss
    out = {"version": scipy.__version__, "buffers": [], "depth20": []}
    sos, _, _ = compare.chain_sos()
    rng = np.random.default_rng(3)
    frames_total = int(a.seconds * RATE)

    def blocks(s, x, B):
        zi = np.zeros((s.shape[0], x.shape[0], 2), dtype=x.dtype)
        t0 = compare.tick_ns()
        for i in range(0, x.shape[1] - B + 1, B):
            _, zi = ss.sosfilt(s, x[:, i:i + B], axis=-1, zi=zi)
        return compare.tick_ns() - t0

    for C in (1, 2):
        x32 = (rng.standard_normal((C, frames_total)) * 0.1).astype(np.float32)
        confs = []
        for B in a.frames + [0]:  # 0: the whole signal in one call
            for dt in ("float32", "float64"):
                confs.append({"C": C, "B": B, "dtype": dt, "ns": []})
        for r in range(a.reps + 1):
            k = r % len(confs)
            for c in confs[k:] + confs[:k]:
                x = x32.astype(c["dtype"])
                s = sos.astype(c["dtype"])
                if c["B"]:
                    ns = blocks(s, x, c["B"]) / (frames_total // c["B"])
                else:
                    t0 = compare.tick_ns()
                    ss.sosfilt(s, x, axis=-1)
                    ns = (compare.tick_ns() - t0) / frames_total  # per frame
                if r:
                    c["ns"].append(ns)
        out["buffers"] += confs
        log("scipy: buffers C=%d done" % C)
    s20 = iir_chain_sos(20)
    x32 = (rng.standard_normal((2, frames_total)) * 0.1).astype(np.float32)
    confs = [{"B": B, "dtype": dt, "ns": []} for B in (1024, 0) for dt in ("float32", "float64")]
    for r in range(a.reps + 1):
        k = r % len(confs)
        for c in confs[k:] + confs[:k]:
            x = x32.astype(c["dtype"])
            s = s20.astype(c["dtype"])
            if c["B"]:
                ns = blocks(s, x, c["B"]) / (frames_total // c["B"])
            else:
                t0 = compare.tick_ns()
                ss.sosfilt(s, x, axis=-1)
                ns = (compare.tick_ns() - t0) / frames_total * 1024  # per 1024 frames
            if r:
                c["ns"].append(ns)
    out["depth20"] = confs
    log("scipy: depth 20 done")
    json.dump(out, open(a.out, "w"))


def worker_gst(a):
    """(b) and (c) through GStreamer: ns per buffer, net of an identity pipeline."""
    Gst = compare._gst()
    out = {"version": Gst.version_string(), "buffers": [], "depth20": []}
    elems = [("identity", "identity")]
    for prec in ("auto", "single", "double"):
        elems.append(("fxchain precision=%s" % prec,
                      'fxchain name=fx device=cpu precision=%s chain="%s"' % (prec, SEED_CHAIN)))
    elems.append(("audiocheblimit x2", CHEB_CHAIN))

    raws = {}
    for C in (1, 2):
        raws[C] = os.path.join(a.tmp, "noise-%d.raw" % C)
        compare.gen_noise(raws[C], a.seconds, C, 11 + C)

    def timed(rows, C, B):
        # one streaming thread, exactly B frames per buffer: compare.py's source (filesrc !
        # tee ! rawaudioparse). A caps filter straight after filesrc would be cheaper, but its
        # BYTES segment makes the stock elements log a GStreamer-CRITICAL for every buffer
        # (gst_segment_to_stream_time), which their time would then include
        nbuf = os.path.getsize(raws[C]) // (B * C * 4)
        src = compare._src(raws[C], C, B)
        for r in range(a.reps + 1):
            k = r % len(rows)
            for row in rows[k:] + rows[:k]:
                dt, err, props = compare._run_pipe(
                    Gst, "%s ! %s ! fakesink sync=false" % (src, row["desc"]),
                    read=[("fx", "backend")] if "name=fx" in row["desc"] else None)
                if err:
                    row["error"] = err
                if props.get("fx.backend"):
                    row["backend"] = props["fx.backend"]
                if r:
                    row["ns"].append(dt * 1e9 / nbuf)
        for row in rows:
            row["buffers"] = nbuf

    for C in (1, 2):
        for B in a.frames:
            rows = [{"name": n, "desc": d, "C": C, "B": B, "ns": []} for n, d in elems]
            timed(rows, C, B)
            out["buffers"] += rows
            log("gst: buffers C=%d B=%d done" % (C, B))
    chain = iir_chain(20)
    rows = [{"name": "identity", "desc": "identity", "ns": []}]
    for fuse in ("true", "false"):
        for prec in ("auto", "single"):
            rows.append({"name": "fxchain fuse=%s precision=%s" % (fuse, prec),
                         "desc": 'fxchain name=fx device=cpu fuse=%s precision=%s chain="%s"'
                         % (fuse, prec, chain.replace('"', '\\"')), "ns": []})
    timed(rows, 2, 1024)
    out["depth20"] = rows
    log("gst: depth 20 done")
    json.dump(out, open(a.out, "w"))


# ------------------------------------------------------------------------------------------------
# start-up (orchestrator: whole processes, wall time)

def startup(a, env, tf_python):
    import resource
    import wave
    import numpy as np
    d = os.path.join(a.tmp, "startup")
    os.makedirs(d, exist_ok=True)
    tiny = os.path.join(d, "tiny.wav")
    x = (np.random.default_rng(5).standard_normal((4800, 2)) * 0.1 * 32767).astype("<i2")
    with wave.open(tiny, "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(x.tobytes())
    out = os.path.join(d, "out.wav")
    gstfx = os.path.join(a.build, "tools", "gst-fx")
    launch = shutil.which("gst-launch-1.0")
    src = "filesrc location=%s ! wavparse ! audioconvert ! audio/x-raw,format=F32LE" % tiny
    sox_bq = []
    for name, (eff, _) in compare.sox_effects().items():
        if name == "sox-biquads":
            sox_bq = eff
    py_scipy = ("import numpy as np, scipy.signal as ss, scipy.io.wavfile as wf, sys\n"
                "r, x = wf.read(sys.argv[1])\n"
                "hp = ss.butter(4, 80, 'highpass', fs=r, output='sos')\n"
                "lp = ss.butter(8, 12000, 'lowpass', fs=r, output='sos')\n"
                "y = ss.sosfilt(np.vstack([hp, lp]).astype(np.float32),"
                " (x / 32768.0).astype(np.float32), axis=0)\n"
                "wf.write(sys.argv[2], r, y.astype(np.float32))\n")
    py_torchfx = ("import wave, sys, numpy as np, torch, torchfx as fx\n"
                  "torch.set_num_threads(1)\n"
                  "w = wave.open(sys.argv[1]); n = w.getnframes()\n"
                  "x = np.frombuffer(w.readframes(n), '<i2').reshape(-1, 2).T / 32768.0\n"
                  "from torchfx.filter.fused import FusedSOSCascade\n"
                  "m = FusedSOSCascade(fx.filter.HiButterworth(cutoff=80, order=4, fs=48000),"
                  " fx.filter.LoButterworth(cutoff=12000, order=8, fs=48000))\n"
                  "with torch.no_grad(): y = m(torch.from_numpy(x.astype(np.float32)))\n"
                  "np.save(sys.argv[2] + '.npy', y.numpy())\n")
    cmds = [
        ("python3 -c pass (interpreter alone)", ["/usr/bin/python3", "-c", "pass"]),
        ("gst-fx process", [gstfx, "process", "--quiet", "--device", "cpu", "--chain",
                            SEED_CHAIN, tiny, out]),
        ("gst-launch-1.0 identity", [launch, "-q"] + (src + " ! identity ! fakesink").split()),
        ("gst-launch-1.0 fxchain", [launch, "-q"] + src.split() + [
            "!", "fxchain", "device=cpu", "chain=" + SEED_CHAIN, "!", "fakesink"]),
        ("gst-launch-1.0 audiocheblimit x2", [launch, "-q"] + (src + " ! " + CHEB_CHAIN +
                                                               " ! fakesink").split()),
        ("sox (no effect)", ["sox", "-q", "-V1", "-D", tiny, "-e", "floating-point", out]),
        ("sox six biquads", ["sox", "-q", "-V1", "-D", tiny, "-e", "floating-point", out] + sox_bq),
        ("python3 scipy sosfilt", ["/usr/bin/python3", "-c", py_scipy, tiny, out]),
    ]
    if tf_python:
        cmds.append(("TorchFX fused (venv python, 1 thread)",
                     [tf_python, "-c", py_torchfx, tiny, out]))
    rows, skipped = [], []
    for name, cmd in cmds:
        if cmd[0] is None or not (os.path.exists(cmd[0]) or shutil.which(cmd[0])):
            skipped.append("%s: %s not found" % (name, cmd[0]))
            continue
        e = dict(env)
        if name.startswith("TorchFX"):
            e["OMP_NUM_THREADS"] = "1"
        p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=300)
        if p.returncode:
            skipped.append("%s: exit %d: %s" % (name, p.returncode,
                                                (p.stderr.strip().splitlines() or [""])[-1][:200]))
            continue
        rows.append({"name": name, "cmd": cmd, "env": e, "wall": [], "cpu": []})
    reps = max(a.nreps * 2 + 1, 11)
    for r in range(reps):
        k = r % len(rows)
        for row in rows[k:] + rows[:k]:
            ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(row["cmd"], env=row["env"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            row["wall"].append(time.perf_counter() - t0)
            ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            row["cpu"].append(ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime)
    for row in rows:
        del row["env"]
    log("startup done")
    return {"rows": rows, "skipped": skipped, "reps": reps, "frames": 4800}


# ------------------------------------------------------------------------------------------------
# reports

def bound_line(clock, kernel, sections, channel_samples):
    """FMA-throughput bound (ns) of `sections` sections over `channel_samples`: f32 and f64."""
    f = compare.fma_bound_ns(clock, kernel, sections, False) * channel_samples
    d = compare.fma_bound_ns(clock, kernel, sections, True) * channel_samples
    return f, d


def header(res, title, what):
    cl = res["clock"]
    k = res["kernel"]
    lines = ["# " + title, "",
             "- date: %s; machine: %s, %d logical CPUs; workers pinned: %s; load average %s at "
             "start, %s at end" % (res["date"], res["cpu"]["model"], res["cpu"]["cpus"],
                                   res["pin"] or "no", " ".join(res["load"][0]),
                                   " ".join(res["load"][1])),
             "- %s; %d repetitions, interleaved (order rotates), medians (min-max)" % (
                 res["label"] or "", res["reps"]),
             "- FMA-throughput bound: clock %.3f GHz, %s FMA instructions/cycle on the default "
             "path `%s` (%d-bit vectors): %.3f ns per channel-sample and section in float, "
             "%.3f in double (5 FMA-equivalent operations per section and sample, every lane "
             "busy; as `compare.md`)" % (
                 cl["ghz"], cl["ipc"][k], k, compare.KERNEL_BITS[k] or 32,
                 compare.fma_bound_ns(cl, k, 1, False), compare.fma_bound_ns(cl, k, 1, True)),
             ]
    if float(res["load"][0][0]) > 0.5 or float(res["load"][1][0]) > 0.5:
        lines.append("- **the machine was shared** (load average above): figures carry noise "
                     "from other processes; rerun on an idle machine for small differences")
    lines += ["", what, ""]
    return lines


def mmfmt(xs, scale=1.0, f="%.2f"):
    if not xs:
        return "–"
    return (f + " (" + f + "–" + f + ")") % (med(xs) * scale, min(xs) * scale, max(xs) * scale)


def write_buffers(res, out):
    eng, sc, gst = res.get("engine"), res.get("scipy"), res.get("gst")
    cl, k = res["clock"], res["kernel"]
    L = header(res, "Short buffers with the state carried: seed chain, mono and stereo",
               "The seed chain (high-pass 80 Hz order 4 → low-pass 12 kHz order 8, 6 sections), "
               "F32, %g s of white noise per run cut into buffers of B frames, the state "
               "carried from each buffer to the next. **Engine**: `fx_cascade_process` once per "
               "buffer from a C loop (no Python between buffers), thread CPU time. **Element**: "
               "`filesrc blocksize=B×C×4 ! tee ! rawaudioparse ! ELEMENT ! fakesink "
               "sync=false` (compare.py's source: one streaming thread, one read() per buffer; "
               "in-place filters copy each buffer, whose memory rawaudioparse shares), process "
               "CPU time from PLAYING to EOS divided by the buffers, *net* = minus the "
               "same run's identity pipeline. **scipy**: `sosfilt(sos, x[:, i:i+B], zi=zi)` per "
               "buffer (a Python loop, as a block-processing scipy user writes it); *whole* = one "
               "call over the whole signal, per B frames. Bound = the FMA-throughput bound of "
               "the B × C channel-samples through 6 sections." % res["seconds"])
    for C in (1, 2):
        for B in res["frames"]:
            bf, bd = bound_line(cl, k, SEED_SECTIONS, B * C)
            L.append("### %s, %d-frame buffers" % ("mono" if C == 1 else "stereo", B))
            L.append("")
            L.append("Bound: %.0f ns (float), %.0f ns (double) per buffer." % (bf, bd))
            L.append("")
            L.append("| what | ns per buffer | net of identity | × float bound | scipy f32 "
                     "per-buffer ÷ this | backend |")
            L.append("|---|---:|---:|---:|---:|---|")
            scb = {}
            for row in (sc or {}).get("buffers", []):
                if row["C"] == C and row["B"] in (B, 0):
                    scb[(row["B"], row["dtype"])] = row
            ref = med(scb[(B, "float32")]["ns"]) if (B, "float32") in scb else None
            for row in (eng or {}).get("buffers", []):
                if row["C"] == C and row["B"] == B:
                    m = med(row["ns"])
                    L.append("| engine, precision=%s | %s | – | %.1f× | %s | %s |" % (
                        row["precision"], mmfmt(row["ns"], 1, "%.0f"), m / bf,
                        "%.1f×" % (ref / m) if ref else "–", row["backend"]))
            rows = [r_ for r_ in (gst or {}).get("buffers", []) if r_["C"] == C and r_["B"] == B]
            ident = next((r_ for r_ in rows if r_["name"] == "identity"), None)
            idm = med(ident["ns"]) if ident else float("nan")
            for row in rows:
                m = med(row["ns"])
                if row.get("error"):
                    L.append("| element: %s | failed: %s | | | | |" % (row["name"],
                                                                       row["error"][:80]))
                    continue
                net = m - idm
                isid = row["name"] == "identity"
                L.append("| element: %s | %s | %s | %s | %s | %s |" % (
                    row["name"], mmfmt(row["ns"], 1, "%.0f"), "–" if isid else "%.0f" % net,
                    "–" if isid else "%.1f×" % (net / bf),
                    "–" if isid or not ref or net <= 0 else "%.1f×" % (ref / net),
                    row.get("backend", "")))
            for (bb, dt), row in sorted(scb.items(), key=lambda kv: (-kv[0][0], kv[0][1])):
                m = med(row["ns"]) * (B if bb == 0 else 1)
                L.append("| scipy sosfilt %s, %s | %s | – | %.1f× | %s | |" % (
                    dt, "per buffer, zi carried" if bb else "whole signal in one call, per B "
                    "frames", mmfmt(row["ns"], B if bb == 0 else 1, "%.0f"), m / bf,
                    "%.1f×" % (ref / m) if ref else "–"))
            L.append("")
    # issue #16's target: 128-frame stereo buffers of the seed chain, <= 2 us through the element
    rows = [r_ for r_ in (gst or {}).get("buffers", []) if r_["C"] == 2 and r_["B"] == 128]
    ident = next((r_ for r_ in rows if r_["name"] == "identity"), None)
    L.append("**Target of issue #16**: 128-frame stereo buffers of the seed chain through the "
             "element, net of identity, ≤ 2 µs per buffer:")
    L.append("")
    for row in rows:
        if row["name"].startswith("fxchain") and ident and row["ns"] and not row.get("error"):
            net = med(row["ns"]) - med(ident["ns"])
            best = min(row["ns"]) - min(ident["ns"])
            L.append("- %s: %.2f µs (fastest runs: %.2f µs): %s" % (
                row["name"], net * 1e-3, best * 1e-3, "met" if net <= 2000 else "not met"))
    L.append("")
    open(os.path.join(out, "buffers.md"), "w").write("\n".join(L) + "\n")
    return L


def write_depth20(res, out):
    eng, sc, gst = res.get("engine"), res.get("scipy"), res.get("gst")
    cl, k = res["clock"], res["kernel"]
    B, C = 1024, 2
    bf, bd = bound_line(cl, k, 20, B * C)
    L = header(res, "Fused depth 20: twenty IIR stages as one cascade, unfused, and scipy",
               "Twenty IIR stages of one section each (`gst-fx count-dispatches`'s chain: "
               "`fxbiquad` peaking bells, `fxbutterworth` order-2 high-passes and `fxsos` "
               "low-pass rows, in turn), stereo F32, 1024-frame buffers, %g s of white noise, "
               "state carried. **Engine**: fused = one cascade of the 20 sections, unfused = 20 "
               "cascades of one section called in turn on each buffer (C loop, thread CPU time). "
               "**Element**: `fxchain fuse=true|false` in a pipeline (as depth 20 of "
               "`fusion.md`, but with the filesrc source above), net of identity. **scipy**: `sosfilt` "
               "over the same 20 sections, per buffer with zi carried, and over the whole "
               "signal in one call (per 1024 frames). Bound: %.0f ns (float), %.0f ns (double) "
               "per buffer (%d channel-samples × 20 sections)." % (res["seconds"], bf, bd, B * C))
    ref = None
    scrows = (sc or {}).get("depth20", [])
    for row in scrows:
        if row["B"] == 0 and row["dtype"] == "float32":
            ref = med(row["ns"])
    L.append("| what | ns per 1024-frame buffer | net of identity | × float bound | scipy f32 "
             "(whole signal) ÷ this | fused ÷ unfused speed-up | backend |")
    L.append("|---|---:|---:|---:|---:|---:|---|")
    er = {(r_["kind"], r_["precision"]): r_ for r_ in (eng or {}).get("depth20", [])}
    for (kind, prec), row in er.items():
        m = med(row["ns"])
        sp = ""
        if kind == "fused" and ("unfused", prec) in er:
            sp = "%.2f×" % (med(er[("unfused", prec)]["ns"]) / m)
        L.append("| engine %s, precision=%s | %s | – | %.1f× | %s | %s | %s |" % (
            kind, prec, mmfmt(row["ns"], 1, "%.0f"), m / bf,
            "%.1f×" % (ref / m) if ref else "–", sp, row["backend"]))
    rows = (gst or {}).get("depth20", [])
    ident = next((r_ for r_ in rows if r_["name"] == "identity"), None)
    idm = med(ident["ns"]) if ident else float("nan")
    byname = {r_["name"]: r_ for r_ in rows}
    for row in rows:
        if row.get("error"):
            L.append("| element: %s | failed: %s | | | | | |" % (row["name"], row["error"][:80]))
            continue
        m = med(row["ns"])
        net = m - idm
        isid = row["name"] == "identity"
        sp = ""
        if "fuse=true" in row["name"]:
            other = byname.get(row["name"].replace("fuse=true", "fuse=false"))
            if other and net > 0:
                sp = "%.2f× net" % ((med(other["ns"]) - idm) / net)
        L.append("| element: %s | %s | %s | %s | %s | %s | %s |" % (
            row["name"], mmfmt(row["ns"], 1, "%.0f"), "–" if isid else "%.0f" % net,
            "–" if isid else "%.1f×" % (net / bf),
            "–" if isid or not ref or net <= 0 else "%.1f×" % (ref / net), sp,
            row.get("backend", "")))
    for row in scrows:
        m = med(row["ns"])
        L.append("| scipy sosfilt %s, %s | %s | – | %.1f× | %s | | |" % (
            row["dtype"], "per buffer, zi carried" if row["B"] else "whole signal, per 1024 "
            "frames", mmfmt(row["ns"], 1, "%.0f"), m / bf, "%.1f×" % (ref / m) if ref else "–"))
    open(os.path.join(out, "depth20.md"), "w").write("\n".join(L) + "\n")
    return L


def write_startup(res, out):
    st = res["startup"]
    cl, k = res["clock"], res["kernel"]
    bf, _ = bound_line(cl, k, SEED_SECTIONS, st["frames"] * 2)
    L = header(res, "Process start-up on a tiny file",
               "Whole processes on 0.1 s of stereo 16-bit wav at 48 kHz (4,800 frames) through "
               "the seed chain (or its stand-in: SoX's six biquads, scipy `sosfilt` float32, "
               "TorchFX's fused cascade), wall time from fork to exit (and the CPU time of the "
               "child, user + system), %d interleaved runs each. GStreamer's registry is warm "
               "(the plugin scanned once before). The filtering itself is negligible: its float "
               "FMA bound is %.1f µs; everything measured is start-up, file I/O and tear-down. "
               "`gst-fx process` writes a float wav; gst-launch-1.0 decodes into fakesink."
               % (st["reps"], bf * 1e-3))
    rows = st["rows"]
    ref = next((r_ for r_ in rows if r_["name"] == "gst-fx process"), None)
    refm = med(ref["wall"]) if ref else None
    L.append("| command | wall ms | CPU ms | ÷ `gst-fx process` (wall) |")
    L.append("|---|---:|---:|---:|")
    for row in rows:
        m = med(row["wall"])
        L.append("| %s | %s | %.1f | %s |" % (row["name"], mmfmt(row["wall"], 1e3, "%.1f"),
                                              med(row["cpu"]) * 1e3,
                                              "%.2f" % (m / refm) if refm else "–"))
    if st["skipped"]:
        L += ["", "Not measured: " + "; ".join(st["skipped"])]
    open(os.path.join(out, "startup.md"), "w").write("\n".join(L) + "\n")
    return L


# ------------------------------------------------------------------------------------------------

def run_worker(kind, args, pin, a, env_extra=None):
    out = os.path.join(a.tmp, "x-%s.json" % kind)
    cmd = pin + ["/usr/bin/python3", os.path.abspath(__file__), "_worker", kind, "--out", out] + args
    env = dict(os.environ)
    env.update(env_extra or {})
    t0 = time.time()
    p = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       errors="replace")
    for line in p.stderr.splitlines():
        if line.startswith("[extras") or line.startswith("[compare"):
            print(line, file=sys.stderr)
    log("%s: %.0f s" % (kind, time.time() - t0))
    if p.returncode or not os.path.exists(out):
        tail = [l for l in p.stderr.splitlines() if l.strip()][-3:]
        log("%s failed: %s" % (kind, " | ".join(tail)))
        return None
    return json.load(open(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.environ.get("BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--quick", action="store_true", help="5 s signals, 5 repetitions")
    ap.add_argument("--reps", type=int, help="repetitions (9; quick: 5)")
    ap.add_argument("--seconds", type=float, help="signal length per run (20; quick: 5)")
    ap.add_argument("--only", default="buffers,depth20,startup")
    ap.add_argument("--cpu", default="1", help="CPU to pin workers to (taskset -c); '' = none")
    ap.add_argument("--torchfx-python", default="")
    ap.add_argument("--label", default="")
    ap.add_argument("--report-only", metavar="JSON",
                    help="rewrite the reports from a saved run (default location: "
                         "~/.cache/gst-fx-bench/last-extras.json) without measuring")
    a = ap.parse_args()
    if a.report_only:
        write_reports(json.load(open(a.report_only)), a.out)
        return
    a.build = os.path.abspath(a.build)
    only = set(a.only.split(","))
    reps = a.nreps = max(3, a.reps or (5 if a.quick else 9))
    seconds = a.seconds or (5.0 if a.quick else 20.0)
    frames = [128, 512, 1024]
    t_start = time.time()
    a.tmp = tempfile.mkdtemp(prefix="gst-fx-extras-")
    cpu = compare.cpu_info()
    pin = []
    if a.cpu and (os.cpu_count() or 1) > 1 and shutil.which("taskset"):
        pin = ["taskset", "-c", a.cpu]
    os.environ.setdefault("GST_PLUGIN_PATH_1_0", os.path.join(a.build, "gst"))
    load0 = open("/proc/loadavg").read().split()[:3]
    clock = compare.measure_clock(a.tmp, cpu, pin)
    log("clock %.3f GHz; FMA instr/cycle %s" % (clock["ghz"], clock["ipc"]))
    common = ["--build", a.build, "--reps", str(reps), "--tmp", a.tmp, "--seconds", str(seconds),
              "--frames", ",".join(map(str, frames))]
    res = {"clock": clock, "reps": reps, "seconds": seconds, "frames": frames}
    probe = run_worker("probe", common, pin, a)
    kern = (probe or {}).get("backend", "cpu-scalar-f32").split("-")[1]
    res["kernel"] = kern if kern in compare.KERNELS else "scalar"
    if only & {"buffers", "depth20"}:
        res["engine"] = run_worker("engine", common, pin, a)
        res["scipy"] = run_worker("scipy", common, pin, a)
        res["gst"] = run_worker("gst", common, pin, a)
    if "startup" in only:
        tf = a.torchfx_python if a.torchfx_python and os.path.exists(a.torchfx_python) else ""
        res["startup"] = startup(a, dict(os.environ), tf)
        if not tf:
            res["startup"]["skipped"].append("TorchFX: no venv interpreter given "
                                             "(--torchfx-python)")
    res.update({"cpu": {k: v for k, v in cpu.items() if k != "flags"}, "pin": " ".join(pin),
                "load": [load0, open("/proc/loadavg").read().split()[:3]], "label": a.label,
                "date": datetime.datetime.now(datetime.timezone.utc).strftime(
                    "%Y-%m-%d %H:%M UTC")})
    elapsed = time.time() - t_start
    res["label"] = (a.label + "; " if a.label else "") + "run time of bench/extras.py %.0f s" % \
        elapsed
    res["only"] = sorted(only)
    cache = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                         "gst-fx-bench")
    try:
        os.makedirs(cache, exist_ok=True)
        json.dump(res, open(os.path.join(cache, "last-extras.json"), "w"), default=str)
    except OSError:
        pass
    shutil.rmtree(a.tmp, ignore_errors=True)
    written = write_reports(res, a.out)
    log("wrote %s under %s (%.0f s)" % (", ".join(written), a.out, elapsed))


def write_reports(res, out):
    os.makedirs(out, exist_ok=True)
    written = []
    only = set(res.get("only", ("buffers", "depth20", "startup")))
    for name, fn in (("buffers", write_buffers), ("depth20", write_depth20),
                     ("startup", write_startup)):
        if name in only:
            print("\n".join(fn(res, out)))
            written.append(name + ".md")
    return written


def worker_main():
    ap = argparse.ArgumentParser()
    ap.add_argument("_w")
    ap.add_argument("kind")
    ap.add_argument("--out", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--frames", default="128,512,1024")
    a = ap.parse_args()
    a.frames = [int(v) for v in a.frames.split(",")]
    if a.kind == "probe":
        import numpy as np
        fc = compare._load_engine(a.build)
        c = fc.Cascade(2, np.float32, "single", sos=[[1, 0, 0, 1, 0, 0]])
        json.dump({"backend": c.backend}, open(a.out, "w"))
        return
    {"engine": worker_engine, "scipy": worker_scipy, "gst": worker_gst}[a.kind](a)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_worker":
        worker_main()
    else:
        main()
