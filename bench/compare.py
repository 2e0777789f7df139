#!/usr/bin/python3
"""gst-fx side by side with its peers, in one run (bench/README.md, "Side-by-side comparison").

Run through bench/run-compare.sh, which builds, finds the peers and calls
    /usr/bin/python3 bench/compare.py --build BUILD [--quick] [--reps N] ...

Layout: the orchestrator (main) starts one worker process per measurement family, pinned with
`taskset -c CPU` when the machine has more than one CPU:
  * `_worker kernel --kernel NAME` (env FX_KERNEL=NAME): the engine through ctypes on
    BUILD/tests/libfxdsp_py.so: the matrix (b) and the chain (a) at kernel level;
  * `_worker gst --kernel NAME|auto` (env FX_KERNEL=NAME): GStreamer pipelines, chain (a) end to
    end (gst-fx for that kernel, plus stock elements and the per-buffer overhead (c) in the `auto`
    worker), each with its own identity baseline;
  * `_worker scipy`: scipy.signal.sosfilt float32/float64 for (a) and (b);
  * `_worker torchfx --threads 1|default` (run by the TorchFX venv's interpreter): TorchFX's
    CPU path for (a), twice: one thread (OMP_NUM_THREADS=1, pinned) and torch's default threads
    (OMP_NUM_THREADS unset, not pinned, wall time);
  * SoX runs as a plain subprocess;
  * a small C helper (compiled at run time with cc) measures the clock and the FMA throughput.
Each worker writes JSON; the orchestrator prints the tables and writes compare.csv, compare.md
and compare.png under bench/results/. Nothing here is a pass/fail test.
"""

import argparse
import datetime
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RATE = 48000
KERNELS = ("scalar", "sse2", "avx2", "avx512")
# CPU flags each kernel path needs (from /proc/cpuinfo), to tell "CPU lacks it" from "not built".
KERNEL_FLAGS = {"scalar": (), "sse2": ("sse2",), "avx2": ("avx2", "fma"),
                "avx512": ("avx512f", "avx512dq", "avx512vl")}
# vector width in bits of each kernel path (scalar: one lane)
KERNEL_BITS = {"scalar": 0, "sse2": 128, "avx2": 256, "avx512": 512}
# the chain of workload (a)
CHAIN_FX = ("fxbutterworth mode=high-pass cutoff=80 order=4 ! "
            "fxbutterworth mode=low-pass cutoff=12000 order=8")
CHEB_CHAIN = ("audiocheblimit mode=high-pass cutoff=80 poles=4 type=1 ripple=0 ! "
              "audiocheblimit mode=low-pass cutoff=12000 poles=8 type=1 ripple=0")
OPS_PER_SECTION = 5  # FMA-equivalent operations per section and sample (TDF-II)
AMPLITUDE = 0.1  # noise standard deviation (peaks stay well inside [-1, 1] for SoX)


def log(*a):
    print("[compare %s]" % time.strftime("%H:%M:%S"), *a, file=sys.stderr, flush=True)


def med(xs):
    return statistics.median(xs) if xs else float("nan")


# The timer of every measurement: "cpu" (default) = CPU time of the measuring process, all its
# threads (CLOCK_PROCESS_CPUTIME_ID); on an idle machine with the worker pinned to one core it
# equals wall time, and it leaves out the time other processes take from that core. "wall" =
# time.perf_counter. Set by --timer (the orchestrator passes it to the workers).
TIMER = os.environ.get("FX_COMPARE_TIMER", "cpu")


def tick_ns():
    return time.process_time_ns() if TIMER == "cpu" else time.perf_counter_ns()


def tick():
    return tick_ns() * 1e-9


# ------------------------------------------------------------------------------------------------
# designs shared by the workers (scipy only where scipy is available)

def chain_sos():
    import numpy as np
    import scipy.signal as ss
    hp = ss.butter(4, 80, "highpass", fs=RATE, output="sos")
    lp = ss.butter(8, 12000, "lowpass", fs=RATE, output="sos")
    return np.vstack([hp, lp]), hp, lp


def matrix_sos(K):
    """K sections: a Butterworth low-pass of order 2K at 0.2 x Nyquist (4.8 kHz at 48 kHz)."""
    import scipy.signal as ss
    return ss.butter(2 * K, 0.2, "lowpass", output="sos")


def butter_qs(order):
    """Q of each biquad of an analog Butterworth prototype of even order (for SoX)."""
    return [1.0 / (2.0 * math.sin((2 * k - 1) * math.pi / (2 * order)))
            for k in range(1, order // 2 + 1)]


def sox_effects():
    """SoX effect chains standing in for chain (a): name -> (effects list, description)."""
    bq = []
    for q in butter_qs(4):
        bq += ["highpass", "80", "%.6fq" % q]
    for q in butter_qs(8):
        bq += ["lowpass", "12000", "%.6fq" % q]
    return {
        "sox-biquads": (bq, "6 RBJ biquads (`highpass 80 Q` x2, `lowpass 12000 Q` x4, "
                            "Butterworth Qs)"),
        "sox-sinc": (["sinc", "80-12000"], "`sinc 80-12000`: windowed-sinc FIR band-pass "
                                           "(a different filter design)"),
    }


# ------------------------------------------------------------------------------------------------
# worker: the engine through ctypes (kernel level)

def _load_engine(build):
    os.environ.setdefault("FXDSP_LIB", os.path.join(build, "tests", "libfxdsp_py.so"))
    sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
    import fxcascade
    return fxcascade


MODES = (("f32-single", "float32", "single"), ("f32-double", "float32", "double"),
         ("f64", "float64", "auto"))


def worker_kernel(a):
    import numpy as np
    fc = _load_engine(a.build)
    out = {"kernel": a.kernel, "matrix": [], "chain": []}
    probe = fc.Cascade(2, np.float32, "single", sos=matrix_sos(1))
    out["backend"] = probe.backend
    probe.close()
    got = out["backend"].split("-")[1] if out["backend"].startswith("cpu-") else "?"
    out["selected"] = got
    if a.kernel != "auto" and got != a.kernel:
        json.dump(out, open(a.out, "w"))
        return
    process = fc.lib().fx_cascade_process
    rng = np.random.default_rng(1)
    # (b) the matrix: one process() call over the whole buffer per repetition
    for K in a.ks:
        sos = matrix_sos(K)
        for C in a.cs:
            frames = max(4096, a.matrix_samples // C)
            base = {"float32": (rng.standard_normal((frames, C)) * AMPLITUDE).astype(np.float32)}
            base["float64"] = base["float32"].astype(np.float64)
            bufs, cas = {}, {}
            for name, dt, prec in MODES:
                cas[name] = fc.Cascade(C, np.dtype(dt), prec, sos=sos)
                bufs[name] = base[dt].copy()
                process(cas[name]._h, bufs[name].ctypes.data, frames)  # warm-up
            times = {name: [] for name, _, _ in MODES}
            for r in range(a.reps):
                order = MODES[r % 3:] + MODES[:r % 3]
                for name, dt, prec in order:
                    np.copyto(bufs[name], base[dt])
                    t0 = tick_ns()
                    process(cas[name]._h, bufs[name].ctypes.data, frames)
                    times[name].append(tick_ns() - t0)
            for name, dt, prec in MODES:
                ns = [t / (frames * C) for t in times[name]]
                out["matrix"].append({"K": K, "C": C, "mode": name, "frames": frames,
                                      "ns": ns, "backend": cas[name].backend})
                cas[name].close()
        log("kernel %s: K=%d done" % (a.kernel, K))
    # (a) the chain at kernel level, on the raw file of workload (a)
    sos, _, _ = chain_sos()
    x = np.fromfile(a.raw, dtype=np.float32).reshape(-1, 2)
    frames = x.shape[0]
    buf = np.empty_like(x)
    # ctypes call overhead: process() with 0 frames returns at once (no dispatch)
    cas = fc.Cascade(2, np.float32, "single", sos=sos)
    h = cas._h
    t0 = tick_ns()
    for _ in range(20000):
        process(h, buf.ctypes.data, 0)
    call_ns = (tick_ns() - t0) / 20000
    cas.close()
    out["call_ns"] = call_ns
    B = 1024
    nblk = frames // B
    for prec in ("auto", "single", "double"):
        cas = fc.Cascade(2, np.float32, prec, sos=sos)
        h = cas._h
        ptrs = [buf.ctypes.data + i * B * 8 for i in range(nblk)]
        whole, blocks = [], []
        for r in range(a.reps):
            np.copyto(buf, x)
            t0 = tick_ns()
            process(h, buf.ctypes.data, frames)
            whole.append(tick_ns() - t0)
            np.copyto(buf, x)
            t0 = tick_ns()
            for p in ptrs:
                process(h, p, B)
            blocks.append(tick_ns() - t0)
        out["chain"].append({"precision": prec, "backend": cas.backend, "frames": frames,
                             "whole_s": [t * 1e-9 for t in whole],
                             "blocks_s": [t * 1e-9 for t in blocks], "blocks": nblk})
        cas.close()
    log("kernel %s: chain done" % a.kernel)
    json.dump(out, open(a.out, "w"))


# ------------------------------------------------------------------------------------------------
# worker: scipy

def worker_scipy(a):
    import numpy as np
    import scipy
    import scipy.signal as ss
    out = {"version": scipy.__version__, "matrix": [], "chain": []}
    rng = np.random.default_rng(1)
    for K in a.ks:
        sos64 = matrix_sos(K)
        sos32 = sos64.astype(np.float32)
        for C in a.cs:
            frames = max(4096, a.matrix_samples // C)
            # channels first, filtered along the last axis: scipy's preferred layout
            x32 = (rng.standard_normal((C, frames)) * AMPLITUDE).astype(np.float32)
            x64 = x32.astype(np.float64)
            cfg = (("f32", sos32, x32), ("f64", sos64, x64))
            for _, s, x in cfg:
                ss.sosfilt(s, x, axis=-1)  # warm-up
            times = {"f32": [], "f64": []}
            for r in range(a.reps):
                for name, s, x in (cfg if r % 2 == 0 else cfg[::-1]):
                    t0 = tick_ns()
                    y = ss.sosfilt(s, x, axis=-1)
                    times[name].append(tick_ns() - t0)
                    assert y.dtype == x.dtype
            for name in ("f32", "f64"):
                out["matrix"].append({"K": K, "C": C, "mode": name, "frames": frames,
                                      "ns": [t / (frames * C) for t in times[name]]})
        log("scipy: K=%d done" % K)
    sos, _, _ = chain_sos()
    x32 = np.ascontiguousarray(np.fromfile(a.raw, dtype=np.float32).reshape(-1, 2).T)
    for name, dt in (("f32", np.float32), ("f64", np.float64)):
        x = x32.astype(dt)
        s = sos.astype(dt)
        ts = []
        for r in range(a.reps):
            t0 = tick_ns()
            y = ss.sosfilt(s, x, axis=-1)
            ts.append((tick_ns() - t0) * 1e-9)
            assert y.dtype == dt
            del y
        out["chain"].append({"mode": name, "frames": x.shape[1], "s": ts})
    log("scipy: chain done")
    json.dump(out, open(a.out, "w"))


# ------------------------------------------------------------------------------------------------
# worker: GStreamer

def _gst():
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
    Gst.init(None)
    return Gst


# How the file reaches the element under test (--source): "thread" (the default) or "queue".
SOURCE = {"mode": "thread"}


def _src(path, C, block_frames):
    # filesrc would be pulled by rawaudioparse in 64 KiB chunks. Both forms put rawaudioparse in
    # push mode, so buffers are exactly `block_frames` frames (filesrc's blocksize):
    #  * "thread": a one-pad tee, which answers the scheduling query with push mode only; filesrc's
    #    own task then runs the whole pipeline in one streaming thread, as scipy and TorchFX run
    #    in one;
    #  * "queue": a second streaming thread. Pinned to one core with a filter slower than the
    #    file source, the full queue wakes the producer for every buffer the consumer pops, and
    #    the two context switches per buffer are counted against the filter
    #    (docs/benchmarking.md, "Where the seed chain's pipeline time went").
    join = "queue" if SOURCE["mode"] == "queue" else "tee"
    return ("filesrc location=%s blocksize=%d ! %s ! rawaudioparse use-sink-caps=false "
            "format=pcm pcm-format=f32le sample-rate=%d num-channels=%d"
            % (path, block_frames * C * 4, join, RATE, C))


def _configure_iir(Gst, pipe):
    import scipy.signal as ss
    for name, args in (("iirhp", (4, 80, "highpass")), ("iirlp", (8, 12000, "lowpass"))):
        b, a = ss.butter(args[0], args[1], args[2], fs=RATE)
        e = pipe.get_by_name(name)
        e.set_property("a", [float(v) for v in a])
        e.set_property("b", [float(v) for v in b])


def _run_pipe(Gst, desc, configure=None, read=None, timeout=600):
    """Runs desc to EOS; returns (seconds, error or None, properties read at EOS)."""
    pipe = Gst.parse_launch(desc)
    if configure:
        configure(Gst, pipe)
    bus = pipe.get_bus()
    t0 = tick()
    pipe.set_state(Gst.State.PLAYING)
    msg = bus.timed_pop_filtered(timeout * Gst.SECOND,
                                 Gst.MessageType.EOS | Gst.MessageType.ERROR)
    dt = tick() - t0
    err = None
    if msg is None:
        err = "timeout"
    elif msg.type == Gst.MessageType.ERROR:
        e, dbg = msg.parse_error()
        err = e.message
    props = {}
    for el, prop in (read or ()):
        e = pipe.get_by_name(el)
        props["%s.%s" % (el, prop)] = e.get_property(prop) if e else None
    pipe.set_state(Gst.State.NULL)
    return dt, err, props


def _validate(Gst, desc, path, C, configure=None, read=None):
    """Runs the validation file through desc into an appsink; returns (output array, error,
    props)."""
    import numpy as np
    gi_desc = "%s ! %s ! appsink name=vsink sync=false" % (_src(path, C, 1024), desc)
    pipe = Gst.parse_launch(gi_desc)
    if configure:
        configure(Gst, pipe)
    sink = pipe.get_by_name("vsink")
    chunks = []
    pipe.set_state(Gst.State.PLAYING)
    err = None
    while True:
        s = sink.emit("try-pull-sample", 20 * Gst.SECOND)
        if s is None:
            break
        b = s.get_buffer()
        ok, info = b.map(Gst.MapFlags.READ)
        chunks.append(bytes(info.data))
        b.unmap(info)
    msg = pipe.get_bus().pop_filtered(Gst.MessageType.ERROR)
    if msg is not None:
        err = msg.parse_error()[0].message
    props = {}
    for el, prop in (read or ()):
        e = pipe.get_by_name(el)
        props["%s.%s" % (el, prop)] = e.get_property(prop) if e else None
    pipe.set_state(Gst.State.NULL)
    y = np.frombuffer(b"".join(chunks), dtype=np.float32).reshape(-1, C)
    return y, err, props


def _rel_err(y, ref):
    import numpy as np
    n = min(len(y), len(ref))
    if n == 0:
        return float("nan")
    return float(np.sqrt(np.mean((y[:n] - ref[:n]) ** 2) / np.mean(ref[:n] ** 2)))


def worker_gst(a):
    import numpy as np
    import scipy.signal as ss
    Gst = _gst()
    out = {"kernel": a.kernel, "version": Gst.version_string(), "chain": [], "overhead": []}
    if not a.no_chain:
        sos, _, _ = chain_sos()
        xv = np.fromfile(a.vraw, dtype=np.float32).reshape(-1, 2)
        ref = ss.sosfilt(sos, xv.astype(np.float64), axis=0)
    configs = [("identity", "identity", None, [])] if not a.no_chain else []
    for prec in ("auto", "single", "double") if not a.no_chain else ():
        configs.append(("gst-fx fxchain %s" % prec,
                        'fxchain name=fx device=cpu precision=%s chain="%s"' % (prec, CHAIN_FX),
                        None, [("fx", "backend"), ("fx", "dispatches")]))
    if a.stock and not a.no_chain:
        configs.append(("audiocheblimit x2", CHEB_CHAIN, None, []))
        configs.append(("audioiirfilter x2", "audioiirfilter name=iirhp ! audioiirfilter name=iirlp",
                        _configure_iir, []))
    runs = []
    for name, desc, conf, read in configs:
        y, err, props = _validate(Gst, desc, a.vraw, 2, conf, read)
        finite = bool(np.all(np.isfinite(y))) and len(y) > 0
        row = {"name": name, "desc": desc, "error": err, "finite": finite,
               "rel_err": _rel_err(y, ref) if finite and name != "identity" else None,
               "backend": props.get("fx.backend"), "s": []}
        if name.startswith("gst-fx") and a.kernel != "auto" and row["backend"] and \
                row["backend"].split("-")[1] != a.kernel:
            row["error"] = "FX_KERNEL=%s not honoured (backend %s)" % (a.kernel, row["backend"])
        if err or not finite:
            log("gst %s: %s: %s" % (a.kernel, name, err or "non-finite output, not timed"))
        else:
            runs.append((row, desc, conf, read))
        out["chain"].append(row)
    full = _src(a.raw, 2, 1024)
    for r in range(a.reps if runs else 0):
        k = r % len(runs)
        for row, desc, conf, read in runs[k:] + runs[:k]:
            dt, err, props = _run_pipe(Gst, "%s ! %s ! fakesink sync=false" % (full, desc), conf,
                                       read)
            if err:
                row["error"] = err
            row["s"].append(dt)
            if props.get("fx.dispatches") is not None:
                row["dispatches"] = props["fx.dispatches"]
                row["backend"] = props["fx.backend"]
    if runs:
        log("gst %s: chain done" % a.kernel)
    if a.overhead:
        # (c) per-buffer overhead, 64-frame (--overhead-frames) stereo buffers
        of = a.overhead_frames
        cfgs = [("identity", "identity"),
                ("fxbutterworth (low-pass order 8)",
                 "fxbutterworth device=cpu mode=low-pass cutoff=12000 order=8"),
                ("fxchain (chain a)", 'fxchain device=cpu chain="%s"' % CHAIN_FX),
                ("audiocheblimit (low-pass 8 poles)",
                 "audiocheblimit mode=low-pass cutoff=12000 poles=8 type=1 ripple=0")]
        rows = [{"name": n, "desc": d, "s": []} for n, d in cfgs]
        src = _src(a.oraw, 2, of)
        nbuf = os.path.getsize(a.oraw) // (of * 2 * 4)
        for r in range(a.reps):
            k = r % len(rows)
            for row in rows[k:] + rows[:k]:
                dt, err, _ = _run_pipe(Gst, "%s ! %s ! fakesink sync=false" % (src, row["desc"]))
                if err:
                    row["error"] = err
                row["s"].append(dt)
        for row in rows:
            row["buffers"] = nbuf
        out["overhead"] = rows
        log("gst %s: overhead done" % a.kernel)
    json.dump(out, open(a.out, "w"))


# ------------------------------------------------------------------------------------------------
# worker: TorchFX (runs under the TorchFX venv's interpreter: numpy + torch + torchfx only)

def worker_torchfx(a):
    import numpy as np
    import torch
    import torchfx as fx
    from torchfx.filter.fused import FusedSOSCascade
    # --threads 1: one thread (the orchestrator also sets OMP_NUM_THREADS=1, because
    # set_num_threads(1) leaves torch's OpenMP pool running); default: torch's own thread count
    # (OMP_NUM_THREADS unset, the worker not pinned).
    if a.threads == "1":
        torch.set_num_threads(1)
    out = {"version": getattr(fx, "__version__", None), "torch": torch.__version__,
           "native": bool(fx.is_native_available()), "chain": [], "threads": a.threads,
           "num_threads": torch.get_num_threads(),
           "omp_num_threads": os.environ.get("OMP_NUM_THREADS")}
    try:
        import importlib.metadata as md
        out["version"] = md.version("torchfx")
    except Exception:
        pass

    def make(dt):
        hp = fx.filter.HiButterworth(cutoff=80, order=4, fs=RATE)
        lp = fx.filter.LoButterworth(cutoff=12000, order=8, fs=RATE)
        return {"chain": hp | lp,
                "fused": FusedSOSCascade(fx.filter.HiButterworth(cutoff=80, order=4, fs=RATE),
                                         fx.filter.LoButterworth(cutoff=12000, order=8, fs=RATE))}

    xv = torch.from_numpy(np.ascontiguousarray(
        np.fromfile(a.vraw, dtype=np.float32).reshape(-1, 2).T))
    x = torch.from_numpy(np.ascontiguousarray(
        np.fromfile(a.raw, dtype=np.float32).reshape(-1, 2).T))
    for dt in (torch.float32, torch.float64):
        for kind in ("chain", "fused"):
            with torch.no_grad():
                m = make(dt)[kind]
                yv = m(xv.to(dt)).to(torch.float32).numpy().T.copy()
                np.save(os.path.join(a.tmp, "torchfx-%s-%s.npy" % (kind, str(dt)[-7:])), yv)
                xd = x.to(dt)
                ts, wall, cpu = [], [], []
                for r in range(a.reps):
                    m = make(dt)[kind]  # fresh state
                    t0, w0, c0 = tick(), time.perf_counter(), time.process_time()
                    y = m(xd)
                    ts.append(tick() - t0)
                    wall.append(time.perf_counter() - w0)
                    cpu.append(time.process_time() - c0)
                    del y
            out["chain"].append({"kind": kind, "dtype": str(dt).replace("torch.", ""),
                                 "frames": x.shape[1], "s": ts, "wall_s": wall, "cpu_s": cpu,
                                 "npy": "torchfx-%s-%s.npy" % (kind, str(dt)[-7:])})
    json.dump(out, open(a.out, "w"))


# ------------------------------------------------------------------------------------------------
# the clock and FMA throughput helper (C, compiled at run time)

CLOCK_C = r"""
#include <stdio.h>
#include <stdint.h>
#include <time.h>
#include <immintrin.h>
/* CPU time of this thread: time other processes take from the core does not count. */
static double now(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec; }
/* GHz: 8 dependent integer adds per iteration (1 cycle latency each); the loop counter and
 * branch run beside them. */
static double clock_ghz(long n) {
  uint64_t x = 0; double t0 = now();
  for (long i = 0; i < n; i++)
    __asm__ volatile("add $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\t"
                     "add $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0" : "+r"(x));
  return 8.0 * n / (now() - t0) / 1e9;
}
#define FMA_LOOP(T, SET1, FMA, ADD, W)                                                         \
  T a0 = SET1(1), a1 = SET1(2), a2 = SET1(3), a3 = SET1(4), a4 = SET1(5), a5 = SET1(6),           \
    a6 = SET1(7), a7 = SET1(8), a8 = SET1(9), a9 = SET1(10), a10 = SET1(11), a11 = SET1(12);      \
  T m = SET1(0.999999f), c = SET1(1e-7f); double t0 = now();                                    \
  for (long i = 0; i < n; i++) {                                                                \
    a0 = FMA(a0, m, c); a1 = FMA(a1, m, c); a2 = FMA(a2, m, c); a3 = FMA(a3, m, c);             \
    a4 = FMA(a4, m, c); a5 = FMA(a5, m, c); a6 = FMA(a6, m, c); a7 = FMA(a7, m, c);             \
    a8 = FMA(a8, m, c); a9 = FMA(a9, m, c); a10 = FMA(a10, m, c); a11 = FMA(a11, m, c); }       \
  double t = now() - t0;                                                                        \
  T s = ADD(ADD(ADD(a0, a1), ADD(a2, a3)), ADD(ADD(a4, a5), ADD(a6, a7)));                      \
  s = ADD(s, ADD(ADD(a8, a9), ADD(a10, a11))); volatile float sink; memcpy((void *) &sink, &s, 4); \
  return 12.0 * n / t / 1e9; /* G instructions per second */
#include <string.h>
static float s1(float v) { return v; }
static float sadd(float a, float b) { return a + b; }
__attribute__((target("fma"))) static float sfma(float a, float b, float c) {
  return __builtin_fmaf(a, b, c); }
__attribute__((target("fma"))) static double fma_scalar(long n) {
  FMA_LOOP(float, s1, sfma, sadd, 1) }
__attribute__((target("fma"))) static double fma_128(long n) {
  FMA_LOOP(__m128, _mm_set1_ps, _mm_fmadd_ps, _mm_add_ps, 4) }
__attribute__((target("avx2,fma"))) static double fma_256(long n) {
  FMA_LOOP(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, 8) }
__attribute__((target("avx512f"))) static double fma_512(long n) {
  FMA_LOOP(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, 16) }
static double best(double (*f)(long), long n) { double b = 0; for (int r = 0; r < 9; r++) {
  double v = f(n); if (v > b) b = v; } return b; }
int main(void) {
  __builtin_cpu_init();
  double ghz = best(clock_ghz, 50000000);
  printf("{\"ghz\": %.4f", ghz);
  if (__builtin_cpu_supports("fma")) {
    printf(", \"scalar\": %.4f", best(fma_scalar, 20000000) / ghz);
    printf(", \"sse2\": %.4f", best(fma_128, 20000000) / ghz);
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    printf(", \"avx2\": %.4f", best(fma_256, 20000000) / ghz);
  if (__builtin_cpu_supports("avx512f"))
    printf(", \"avx512\": %.4f", best(fma_512, 20000000) / ghz);
  printf("}\n");
  return 0;
}
"""


def cpu_info():
    info = {"model": platform.processor() or "?", "flags": set(), "mhz": None, "vendor": "?",
            "family": None, "cpus": os.cpu_count()}
    try:
        for line in open("/proc/cpuinfo"):
            k, _, v = line.partition(":")
            k, v = k.strip(), v.strip()
            if k == "model name":
                info["model"] = v
            elif k == "flags":
                info["flags"] = set(v.split())
            elif k == "cpu MHz":
                info["mhz"] = max(info["mhz"] or 0, float(v))
            elif k == "vendor_id":
                info["vendor"] = v
            elif k == "cpu family":
                info["family"] = int(v)
    except OSError:
        pass
    return info


def measure_clock(tmp, cpu, pin):
    """Clock and FMA instructions per cycle per width; falls back to /proc/cpuinfo + 2 pipes."""
    res = {"method": None}
    cc = os.environ.get("CC", "cc")
    src = os.path.join(tmp, "fxclock.c")
    exe = os.path.join(tmp, "fxclock")
    open(src, "w").write(CLOCK_C)
    try:
        subprocess.run([cc, "-O2", "-o", exe, src], check=True, capture_output=True, timeout=60)
        m = json.loads(subprocess.run(pin + [exe], check=True, capture_output=True, text=True,
                                      timeout=120).stdout)
        res.update(m)
        res["method"] = ("measured in thread CPU time, best of 9: dependent integer-add loop (1 "
                         "add/cycle) for the clock; 12 independent FMA chains per width for FMA "
                         "instructions/cycle")
    except Exception as e:  # no compiler, no x86: assumptions
        res["error"] = str(e)[:200]
    if not res.get("ghz"):
        res["ghz"] = (cpu["mhz"] or 2000.0) / 1000.0
        res["method"] = "/proc/cpuinfo cpu MHz (no C compiler for the measurement)"
    # FMA instructions per cycle for each width: measured (rounded to a pipe count), else assumed
    # 2 pipes; AMD family 25 (Zen 3/4) runs 512-bit FMAs on two 256-bit pipes: 1 per cycle.
    ipc = {}
    for k in KERNELS:
        if k in res and res[k] > 0.2:
            ipc[k] = max(0.5, round(res[k] * 2) / 2)
            src_ = "measured"
        else:
            ipc[k] = 1.0 if (k == "avx512" and cpu["vendor"] == "AuthenticAMD" and
                             cpu["family"] == 25) else 2.0
            src_ = "assumed"
        res.setdefault("ipc_source", {})[k] = src_
    res["ipc"] = ipc
    return res


def fma_bound_ns(clock, kernel, K, double):
    """Minimum ns per channel-sample for K sections: 5 FMA-equivalent ops per section-sample at
    the kernel's vector width (lanes of the arithmetic precision) and its FMA throughput."""
    bits = KERNEL_BITS[kernel]
    lanes = 1 if bits == 0 else bits // (64 if double else 32)
    per_ns = clock["ipc"][kernel] * lanes * clock["ghz"]
    return OPS_PER_SECTION * K / per_ns


# ------------------------------------------------------------------------------------------------
# the orchestrator

def run_worker(kind, args, env_extra, pin, a, python=None, timeout=1800):
    """Runs a worker; returns (result dict, None) or (None, why). env_extra values of None unset
    the variable; FX_KERNEL=auto unsets FX_KERNEL (the engine's own choice)."""
    out = os.path.join(a.tmp, "w-%s-%s.json" % (kind, env_extra.get("FX_KERNEL") or
                                                 env_extra.get("FX_WORKER_TAG") or "x"))
    cmd = pin + [python or "/usr/bin/python3", os.path.abspath(__file__), "_worker", kind,
                 "--out", out] + args
    env = dict(os.environ)
    for k, v in env_extra.items():
        if v is None or (k == "FX_KERNEL" and v == "auto"):
            env.pop(k, None)
        else:
            env[k] = v
    t0 = time.time()
    tail = []
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True, errors="replace")
    try:
        for line in p.stderr:
            if line.startswith("[compare"):
                sys.stderr.write(line)
            tail = (tail + [line.rstrip()])[-6:]
        p.wait(timeout=max(1, timeout - (time.time() - t0)))
    except subprocess.TimeoutExpired:
        p.kill()
        return None, "timed out after %d s" % timeout
    log("%s %s: %.0f s" % (kind, env_extra.get("FX_KERNEL") or "", time.time() - t0))
    if p.returncode != 0 or not os.path.exists(out):
        why = next((l for l in reversed(tail) if l.strip() and not l.startswith(" ")), "")
        return None, "worker exited with %d: %s" % (p.returncode, why[:300])
    r = json.load(open(out))
    if isinstance(r, dict) and r.get("error"):
        return None, r["error"]
    return r, None


def gen_noise(path, seconds, C, seed):
    import numpy as np
    frames = int(seconds * RATE)
    rng = np.random.default_rng(seed)
    with open(path, "wb") as f:
        step = RATE * 10
        for i in range(0, frames, step):
            n = min(step, frames - i)
            (rng.standard_normal((n, C)) * AMPLITUDE).astype(np.float32).tofile(f)
    return frames


def sox_run(a, pin, effects, raw, out="/dev/null"):
    fmt = ["-t", "raw", "-e", "floating-point", "-b", "32", "-r", str(RATE), "-c", "2"]
    cmd = pin + ["sox", "-q", "-D", "-V1"] + fmt + [raw] + fmt + [out] + effects
    import resource

    def child_cpu():
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime
    t0, c0 = time.perf_counter(), child_cpu()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = (child_cpu() - c0) if TIMER == "cpu" else (time.perf_counter() - t0)
    return dt, (p.stderr.strip()[:200] if p.returncode else None)


def overhead_only(a, pin, seconds, reps):
    """Workload (c) alone: per-buffer cost of the elements at --overhead-frames frames, printed
    as a table (µs per buffer, median of the repetitions, and net of identity)."""
    import statistics
    oraw = os.path.join(a.tmp, "noise-overhead.raw")
    gen_noise(oraw, seconds, 2, 9)
    r, err = run_worker("gst", ["--build", a.build, "--reps", str(reps), "--oraw", oraw,
                                "--tmp", a.tmp, "--kernel", "auto", "--overhead", "--no-chain",
                                "--source", a.source,
                                "--overhead-frames", str(a.overhead_frames)],
                        {"FX_KERNEL": "auto"}, pin, a)
    if r is None:
        sys.exit("overhead run failed: %s" % err)
    rows = r["overhead"]
    nbuf = rows[0]["buffers"]
    med = {row["name"]: statistics.median(row["s"]) / nbuf * 1e6 for row in rows}
    print("per-buffer overhead: %d-frame stereo F32 buffers, %d buffers per run, %d repetitions "
          "(timer: %s), build %s" % (a.overhead_frames, nbuf, reps, a.timer, a.build))
    print("| element | µs/buffer | min | net µs/buffer |")
    print("|---|---:|---:|---:|")
    for row in rows:
        m = med[row["name"]]
        net = "–" if row["name"] == "identity" else "%.2f" % (m - med["identity"])
        print("| %s | %.2f | %.2f | %s |" % (row["name"], m, min(row["s"]) / nbuf * 1e6, net))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.environ.get("BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--quick", action="store_true", help="30 s of audio, smaller matrix buffers")
    ap.add_argument("--seconds", type=float, help="length of workload (a) (600; quick: 30)")
    ap.add_argument("--reps", type=int, help="repetitions per measurement (7; quick: 5), >= 5")
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--ks", default="1,2,4,8,16")
    ap.add_argument("--cs", default="1,2,8,16,64")
    ap.add_argument("--matrix-samples", type=int, default=0,
                    help="channel-samples per engine call in the matrix (262144; quick: 131072)")
    ap.add_argument("--source", default="thread", choices=("thread", "queue"),
                    help="how the GStreamer pipelines read the file: one streaming thread "
                         "(filesrc ! tee ! rawaudioparse, default) or two (filesrc ! queue ! "
                         "rawaudioparse), whose hand-off costs a filter slower than its source "
                         "two context switches per buffer on one core")
    ap.add_argument("--cpu", default="1", help="CPU to pin workers to (taskset -c); '' = none")
    ap.add_argument("--torchfx-python", default=os.environ.get("TORCHFX_PYTHON", ""),
                    help="interpreter of a venv with torchfx ('' = skip TorchFX)")
    ap.add_argument("--torchfx-note", default=os.environ.get("TORCHFX_NOTE", ""))
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--label", default="")
    ap.add_argument("--timer", choices=("cpu", "wall"), default="cpu",
                    help="cpu: CPU time of the measuring process (all threads; robust to other "
                         "load on the core); wall: wall-clock time")
    ap.add_argument("--overhead-only", action="store_true",
                    help="measure only workload (c), the per-buffer overhead (default kernel), "
                         "print its table and write no report")
    ap.add_argument("--overhead-frames", type=int, default=64,
                    help="frames per buffer for --overhead-only (default 64)")
    ap.add_argument("--report-only", metavar="JSON",
                    help="rewrite the report from a saved run (default location: "
                         "~/.cache/gst-fx-bench/last-compare.json) without measuring")
    a = ap.parse_args()
    if a.report_only:
        from peers import report
        os.makedirs(a.out, exist_ok=True)
        report.write(json.load(open(a.report_only)), a.out)
        return
    a.build = os.path.abspath(a.build)
    global TIMER
    TIMER = a.timer
    os.environ["FX_COMPARE_TIMER"] = a.timer  # inherited by the workers
    seconds = a.seconds or (30.0 if a.quick else 600.0)
    reps = max(5, a.reps or (5 if a.quick else 7))
    # Matrix calls of 2^18 channel-samples (1 MiB of float32): the working set of a large
    # pipeline buffer, which stays in a core's L2 cache. Calls four or eight times larger stream
    # from L3/DRAM and measured ~8% slower at K=8, C=8 on Zen 4 (--matrix-samples 2097152).
    msamples = a.matrix_samples or ((1 << 17) if a.quick else (1 << 18))
    t_start = time.time()
    os.makedirs(a.out, exist_ok=True)
    a.tmp = tempfile.mkdtemp(prefix="gst-fx-compare-")
    cpu = cpu_info()
    pin = []
    if a.cpu and (os.cpu_count() or 1) > 1 and shutil.which("taskset"):
        pin = ["taskset", "-c", a.cpu]
    load0 = open("/proc/loadavg").read().split()[:3]
    log("machine: %s, %d CPUs; pinned: %s; tmp %s" % (cpu["model"], cpu["cpus"],
                                                       " ".join(pin) or "no", a.tmp))
    if a.overhead_only:
        overhead_only(a, pin, seconds if a.seconds else (5.0 if a.quick else 20.0), reps)
        shutil.rmtree(a.tmp, ignore_errors=True)
        return
    clock = measure_clock(a.tmp, cpu, pin)
    log("clock %.3f GHz (%s); FMA instr/cycle %s" % (clock["ghz"], clock["method"],
                                                     clock["ipc"]))
    raw = os.path.join(a.tmp, "noise-a.raw")
    vraw = os.path.join(a.tmp, "noise-valid.raw")
    oraw = os.path.join(a.tmp, "noise-overhead.raw")
    frames = gen_noise(raw, seconds, 2, 7)
    gen_noise(vraw, 2.0, 2, 8)
    gen_noise(oraw, 5.0 if a.quick else 20.0, 2, 9)
    ks = [int(v) for v in a.ks.split(",")]
    cs = [int(v) for v in a.cs.split(",")]
    bad = [k for k in a.kernels.split(",") if k not in KERNELS]
    if bad:
        ap.error("unknown kernel path(s) %s; known: %s" % (",".join(bad), ",".join(KERNELS)))
    common = ["--build", a.build, "--reps", str(reps), "--raw", raw, "--vraw", vraw,
              "--oraw", oraw, "--tmp", a.tmp, "--matrix-samples", str(msamples),
              "--ks", a.ks, "--cs", a.cs, "--source", a.source]
    res = {"kernels": {}, "gst": {}, "skipped": []}
    # which kernel paths exist: force each, read the backend
    for k in a.kernels.split(","):
        need = [f for f in KERNEL_FLAGS[k] if f not in cpu["flags"]]
        r, err = run_worker("kernel", common + ["--kernel", k], {"FX_KERNEL": k}, pin, a)
        if r is None:
            res["skipped"].append("kernel %s: %s" % (k, err))
            continue
        if r["selected"] != k:
            why = ("the CPU lacks %s" % ",".join(need)) if need else \
                "not built in this engine (FX_KERNEL=%s ran %s)" % (k, r["backend"])
            res["skipped"].append("kernel path %s: %s" % (k, why))
            log("kernel %s skipped: %s" % (k, why))
            continue
        res["kernels"][k] = r
    default = run_worker("kernel", ["--build", a.build, "--probe-only"], {"FX_KERNEL": "auto"},
                         pin, a)[0]
    res["default_backend"] = default["backend"] if default else "?"
    r, err = run_worker("scipy", common, {}, pin, a)
    res["scipy"] = r
    if r is None:
        res["skipped"].append("scipy: %s" % err)
    # GStreamer: stock elements + overhead in the default-kernel worker, then one per kernel
    r, err = run_worker("gst", common + ["--kernel", "auto", "--stock", "--overhead"],
                        {"FX_KERNEL": "auto"}, pin, a)
    if r is None:
        res["skipped"].append("GStreamer (default kernel): %s" % err)
    else:
        res["gst"]["auto"] = r
    for k in res["kernels"]:
        r, err = run_worker("gst", common + ["--kernel", k], {"FX_KERNEL": k}, pin, a)
        if r is None:
            res["skipped"].append("GStreamer FX_KERNEL=%s: %s" % (k, err))
        else:
            res["gst"][k] = r
    # SoX
    res["sox"] = []
    if shutil.which("sox"):
        import numpy as np
        import scipy.signal as ss
        sos, _, _ = chain_sos()
        xv = np.fromfile(vraw, dtype=np.float32).reshape(-1, 2)
        ref = ss.sosfilt(sos, xv.astype(np.float64), axis=0)
        runs = [("sox (no effect)", [], "")]
        for name, (eff, what) in sox_effects().items():
            vout = os.path.join(a.tmp, name + ".raw")
            _, err = sox_run(a, pin, eff, vraw, vout)
            y = np.fromfile(vout, dtype=np.float32).reshape(-1, 2) if not err else None
            runs.append((name, eff, what, err, _rel_err(y, ref) if y is not None else None))
        rows = []
        for run in runs:
            rows.append({"name": run[0], "effects": " ".join(run[1]), "what": run[2],
                         "error": run[3] if len(run) > 3 else None,
                         "rel_err": run[4] if len(run) > 4 else None, "s": []})
        for r_ in range(reps):
            for row, run in zip(rows, runs):
                if row["error"]:
                    continue
                dt, err = sox_run(a, pin, run[1], raw)
                row["s"].append(dt)
                row["error"] = err
        res["sox"] = rows
        res["sox_version"] = " ".join(subprocess.run(
            ["sox", "--version"], capture_output=True, text=True).stdout.split()[1:])
        log("sox done")
    else:
        res["skipped"].append("SoX: `sox` not installed (Debian package sox)")
    # TorchFX
    res["torchfx"] = res["torchfx_mt"] = None
    # Twice, each in its own process: one thread (OMP_NUM_THREADS=1 in the environment, pinned
    # like every worker: torch.set_num_threads(1) alone leaves the OpenMP pool running) and torch's
    # default threads (no OMP_NUM_THREADS, not pinned; its wall time is the figure).
    for key, threads, env_omp, wpin in (("torchfx", "1", "1", pin),
                                        ("torchfx_mt", "default", None, [])):
        if not (a.torchfx_python and os.path.exists(a.torchfx_python)):
            break
        r, err = run_worker("torchfx", common + ["--threads", threads],
                            {"OPENBLAS_CORETYPE": None, "OPENBLAS_L2_SIZE": None,
                             "OMP_NUM_THREADS": env_omp, "FX_WORKER_TAG": key},
                            wpin, a, python=a.torchfx_python)
        if r is None:
            res["skipped"].append("TorchFX (%s threads): %s" % (threads, err))
        else:
            import numpy as np
            import scipy.signal as ss
            sos, _, _ = chain_sos()
            xv = np.fromfile(vraw, dtype=np.float32).reshape(-1, 2)
            ref = ss.sosfilt(sos, xv.astype(np.float64), axis=0)
            for row in r["chain"]:
                y = np.load(os.path.join(a.tmp, row["npy"]))
                row["finite"] = bool(np.all(np.isfinite(y)))
                row["rel_err"] = _rel_err(y, ref)
            res[key] = r
    if not (a.torchfx_python and os.path.exists(a.torchfx_python)):
        res["skipped"].append("TorchFX: %s" % (a.torchfx_note or "no TorchFX interpreter given "
                                                                 "(--torchfx-python)"))
    res.update({"cpu": {k: v for k, v in cpu.items() if k != "flags"}, "clock": clock,
                "frames": frames, "seconds": seconds, "reps": reps, "quick": a.quick,
                "matrix_samples": msamples, "ks": ks, "cs": cs, "pin": " ".join(pin),
                "load": [load0, open("/proc/loadavg").read().split()[:3]],
                "elapsed": time.time() - t_start, "label": a.label, "timer": a.timer,
                "source": a.source,
                "date": datetime.datetime.now(datetime.timezone.utc).strftime(
                    "%Y-%m-%d %H:%M UTC")})
    cache = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                         "gst-fx-bench")
    try:
        os.makedirs(cache, exist_ok=True)
        json.dump(res, open(os.path.join(cache, "last-compare.json"), "w"), default=str)
    except OSError:
        pass
    from peers import report
    report.write(res, a.out)
    shutil.rmtree(a.tmp, ignore_errors=True)


def worker_main():
    ap = argparse.ArgumentParser()
    ap.add_argument("_w")
    ap.add_argument("kind")
    ap.add_argument("--out", required=True)
    ap.add_argument("--build", default="")
    ap.add_argument("--kernel", default="auto")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--raw")
    ap.add_argument("--vraw")
    ap.add_argument("--oraw")
    ap.add_argument("--tmp")
    ap.add_argument("--matrix-samples", type=int, default=1 << 20)
    ap.add_argument("--ks", default="1,2,4,8,16")
    ap.add_argument("--cs", default="1,2,8,16,64")
    ap.add_argument("--stock", action="store_true")
    ap.add_argument("--overhead", action="store_true")
    ap.add_argument("--overhead-frames", type=int, default=64)
    ap.add_argument("--no-chain", action="store_true")
    ap.add_argument("--probe-only", action="store_true")
    ap.add_argument("--threads", default="1", choices=("1", "default"))
    ap.add_argument("--source", default="thread", choices=("thread", "queue"))
    a = ap.parse_args()
    SOURCE["mode"] = a.source
    a.ks = [int(v) for v in a.ks.split(",")]
    a.cs = [int(v) for v in a.cs.split(",")]
    if a.kind == "kernel" and a.probe_only:
        import numpy as np
        fc = _load_engine(a.build)
        c = fc.Cascade(2, np.float32, "single", sos=[[1, 0, 0, 1, 0, 0]])
        json.dump({"backend": c.backend}, open(a.out, "w"))
        return
    fn = {"kernel": worker_kernel, "scipy": worker_scipy, "gst": worker_gst,
          "torchfx": worker_torchfx}[a.kind]
    if a.kind == "torchfx":
        try:
            fn(a)
        except Exception as e:  # an unusable TorchFX is a skip with the reason, not a crash
            msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            json.dump({"error": "TorchFX failed: %s: %s" % (type(e).__name__, msg[:300])},
                      open(a.out, "w"))
    else:
        fn(a)


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    if len(sys.argv) > 1 and sys.argv[1] == "_worker":
        worker_main()
    else:
        main()
