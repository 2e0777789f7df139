"""Tables, CSV, markdown and the chart of bench/compare.py (results dict -> bench/results/)."""

import csv
import math
import os
import statistics
import sys

KERNELS = ("scalar", "sse2", "avx2", "avx512")
KERNEL_BITS = {"scalar": 0, "sse2": 128, "avx2": 256, "avx512": 512}
OPS = 5
MODE_LABEL = {"f32-single": "F32, precision=single", "f32-double": "F32, precision=double",
              "f64": "F64"}


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def mm(xs):
    return (min(xs), max(xs)) if xs else (float("nan"), float("nan"))


def bound_ns(clock, kernel, K, double):
    bits = KERNEL_BITS[kernel]
    lanes = 1 if bits == 0 else bits // (64 if double else 32)
    return OPS * K / (clock["ipc"][kernel] * lanes * clock["ghz"])


def fmt_s(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    if v >= 0.01:
        return "%.3f" % v
    return "%.2g" % v


def fmt_x(v):
    if v is None or (isinstance(v, float) and (math.isnan(v) or math.isinf(v))):
        return "–"
    return "%.1f×" % v if v < 100 else "%.0f×" % v


def fmt_err(v):
    if v is None:
        return "–"
    if v == 0:
        return "0"
    return "%.1e" % v


def table(head, rows, align=None):
    align = align or ["---"] + ["---:"] * (len(head) - 1)
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out)


class Report:
    def __init__(self, res):
        self.res = res
        self.md = []
        self.csv = []
        self.targets = []

    def p(self, s=""):
        self.md.append(s)

    def row(self, section, name, kernel, mode, K, C, xs, unit, backend="", note="", scale=1.0):
        lo, hi = mm(xs)
        self.csv.append([section, name, kernel, mode, K, C, med(xs) * scale, lo * scale,
                         hi * scale, unit, len(xs), backend, note])

    # ------------------------------------------------------------------------------------------
    def header(self):
        r = self.res
        self.p("# gst-fx side by side with its peers")
        self.p()
        self.p("- date: %s; machine: %s (vendor %s, family %s), %s logical CPUs; workers pinned "
               "with `%s`; load average %s at start, %s at end"
               % (r["date"], r["cpu"]["model"], r["cpu"]["vendor"], r["cpu"]["family"],
                  r["cpu"]["cpus"], r["pin"] or "(not pinned)", " ".join(r["load"][0]),
                  " ".join(r["load"][1])))
        if r.get("label"):
            self.p("- %s" % r["label"])
        self.p("- mode: %s; workload (a) = %.0f s of stereo F32 48 kHz white noise (σ = 0.1), "
               "%d frames; %d repetitions of everything, medians (min and max in compare.csv); "
               "matrix buffers of "
               "%d channel-samples per call" % ("quick" if r["quick"] else "full", r["seconds"],
                                                r["frames"], r["reps"], r["matrix_samples"]))
        self.p("- gst-fx engine default backend on this machine: `%s`; kernel paths measured: %s"
               % (r["default_backend"], ", ".join(r["kernels"]) or "none"))
        gst = next(iter(r["gst"].values()), None)
        if gst:
            self.p("- %s; scipy %s; %s" % (gst["version"], (r.get("scipy") or {}).get("version"),
                                          (r.get("sox_version") or "SoX not installed")))
        self.p("- timer: %s" % ("CPU time of the measuring process (all threads), which leaves "
                                "out time other processes take from the core"
                                if r.get("timer", "cpu") == "cpu" else "wall clock"))
        self.p("- total run time %.0f s" % r["elapsed"])
        try:
            busy = float(r["load"][0][0]) > 0.5 * (r["cpu"]["cpus"] or 1) or \
                float(r["load"][1][0]) > 0.5 * (r["cpu"]["cpus"] or 1) + 1
        except (ValueError, IndexError, TypeError):
            busy = False
        if busy:
            self.p("- **the machine was busy** (load average above), so these figures carry "
                   "noise from other processes; rerun on an idle machine before drawing "
                   "conclusions from small differences")
        self.p()

    def fma(self):
        c = self.res["clock"]
        self.p("## FMA-throughput bound")
        self.p()
        self.p("Clock %.3f GHz (%s). Bound = %d FMA-equivalent operations per section and sample "
               "÷ (FMA instructions per cycle × lanes × clock): the minimum ns per "
               "channel-sample a kernel of that width can reach. AMD family 25 (Zen 3/4) executes "
               "512-bit FMAs on two 256-bit pipes, so AVX-512 counts 1 instruction per cycle "
               "there; otherwise 2 pipes are assumed unless measured." % (c["ghz"], c["method"],
                                                                           OPS))
        self.p()
        rows = []
        for k in KERNELS:
            src = c.get("ipc_source", {}).get(k, "assumed")
            meas = c.get(k)
            bits = KERNEL_BITS[k]
            rows.append([k, "%d-bit" % bits if bits else "scalar",
                         "%s" % c["ipc"][k] + (" (measured %.2f)" % meas if meas else
                                               " (%s)" % src),
                         "%.3f" % bound_ns(c, k, 1, False), "%.3f" % bound_ns(c, k, 1, True),
                         "%.3f" % bound_ns(c, k, 8, False), "%.3f" % bound_ns(c, k, 8, True),
                         "yes" if k in self.res["kernels"] else "no"])
            self.csv.append(["fma-bound", k, k, "f32", 1, "", bound_ns(c, k, 1, False), "", "",
                             "ns/ch-sample", "", "", "per section"])
            self.csv.append(["fma-bound", k, k, "f64", 1, "", bound_ns(c, k, 1, True), "", "",
                             "ns/ch-sample", "", "", "per section"])
        self.p(table(["kernel", "width", "FMA instr/cycle", "ns/ch-sample/section f32",
                      "… f64", "K=8 f32", "K=8 f64", "measured here"], rows))
        self.p()

    # ------------------------------------------------------------------------------------------
    def chain_end_to_end(self):
        r = self.res
        secs = r["seconds"]
        self.p("## (a) chain end to end: high-pass 80 Hz order 4 → low-pass 12 kHz order 8")
        self.p()
        if r.get("source", "queue") == "queue":
            src = ("`filesrc blocksize=8192 ! queue ! rawaudioparse ! ELEMENTS ! fakesink "
                   "sync=false` (1024-frame stereo buffers in two streaming threads; the queue "
                   "keeps rawaudioparse in push mode)")
        else:
            src = ("`filesrc blocksize=8192 ! tee ! rawaudioparse ! ELEMENTS ! fakesink "
                   "sync=false` (1024-frame stereo buffers in one streaming thread; the one-pad "
                   "tee keeps rawaudioparse in push mode)")
        self.p("GStreamer: " + src + ", timed from PLAYING to EOS; *net* subtracts the same "
               "worker's identity pipeline. scipy and TorchFX filter the whole signal in memory (channels-first, "
               "their preferred layout). SoX reads the raw file and writes to /dev/null; its net "
               "subtracts a SoX run with no effect. rel. err = RMS error / RMS of scipy float64 "
               "sosfilt on a 2 s validation signal. ×RT = audio seconds per wall second.")
        self.p()
        rows = []
        sc = {}
        for row in (r.get("scipy") or {}).get("chain", []):
            sc[row["mode"]] = med(row["s"])
        base_sc = sc.get("f32")
        cheb = None
        auto = r["gst"].get("auto")
        if auto:
            for row in auto["chain"]:
                if row["name"] == "audiocheblimit x2" and row["s"]:
                    cheb = med(row["s"]) - med(next(x["s"] for x in auto["chain"]
                                                    if x["name"] == "identity"))
                    cheb_raw = med(row["s"])
        self.e2e = {}

        def add(name, kernel, raw, net, backend, err, note, xs, section="chain-e2e"):
            baseline = name in ("identity", "sox (no effect)")
            vs_sc = (base_sc / raw) if (base_sc and raw and not baseline) else None
            vs_cheb = (cheb_raw / raw) if (cheb and raw and not baseline) else None
            rows.append([name, kernel, fmt_s(raw), fmt_s(net),
                         fmt_s(secs / raw) if raw else "–", fmt_x(vs_sc), fmt_x(vs_cheb),
                         backend or "", fmt_err(err), note])
            if xs:
                self.row(section, name, kernel, "", "", 2, xs, "s", backend, note)

        for k, g in r["gst"].items():
            ident = next((x for x in g["chain"] if x["name"] == "identity"), None)
            id_s = med(ident["s"]) if ident and ident["s"] else float("nan")
            for row in g["chain"]:
                if row["name"] != "identity" and not row["name"].startswith("gst-fx") and \
                        k != "auto":
                    continue
                kern = "FX_KERNEL=%s" % k if k != "auto" else "default"
                if row.get("error") or not row.get("finite"):
                    add(row["name"], kern if row["name"].startswith("gst-fx") else "", None,
                        None, row.get("backend"), None,
                        "not timed: " + (row.get("error") or "non-finite output"), [])
                    continue
                raw = med(row["s"])
                net = raw - id_s if row["name"] != "identity" else None
                if row["name"].startswith("gst-fx"):
                    self.e2e[(k, row["name"].split()[-1])] = (raw, net, row.get("backend"))
                note = ""
                if row.get("rel_err") is not None and row["rel_err"] > 0.1:
                    note = "output wrong (rel. err > 0.1) "
                if row.get("dispatches"):
                    note += "%d dispatches" % row["dispatches"]
                add(row["name"], kern if (row["name"].startswith("gst-fx") or
                                          row["name"] == "identity") else "", raw, net,
                    row.get("backend"), row.get("rel_err"), note, row["s"])
                if row["name"] == "audiocheblimit x2":
                    self.cheb_raw = raw
        for m in ("f32", "f64"):
            row = next((x for x in (r.get("scipy") or {}).get("chain", []) if x["mode"] == m),
                       None)
            if row:
                add("scipy sosfilt float%s" % m[1:], "", med(row["s"]), None, "", None,
                    "in memory", row["s"])
        sox = r.get("sox") or []
        sox0 = next((x for x in sox if x["name"] == "sox (no effect)"), None)
        for row in sox:
            if row.get("error"):
                add(row["name"], "", None, None, "", None, "failed: %s" % row["error"], [])
                continue
            raw = med(row["s"])
            net = raw - med(sox0["s"]) if sox0 and row is not sox0 else None
            add(row["name"], "", raw, net, "", row.get("rel_err"), row.get("what", ""),
                row["s"])
        tf = r.get("torchfx")
        if tf:
            for row in tf["chain"]:
                add("TorchFX %s %s" % (row["kind"], row["dtype"]), "", med(row["s"]), None,
                    "torch %s%s" % (tf["torch"], ", native" if tf.get("native") else ""),
                    row.get("rel_err"), "torchfx %s, 1 thread (OMP_NUM_THREADS=1), in memory"
                    % tf.get("version"), row["s"])
        # torch's default threads, unpinned: wall time is the figure (the CPU time of all its
        # threads is in the note)
        tf = r.get("torchfx_mt")
        if tf:
            for row in tf["chain"]:
                xs = row.get("wall_s") or row["s"]
                add("TorchFX %s %s, default threads" % (row["kind"], row["dtype"]), "", med(xs),
                    None, "torch %s%s" % (tf["torch"], ", native" if tf.get("native") else ""),
                    row.get("rel_err"), "torchfx %s, %s threads (OMP_NUM_THREADS unset, not "
                    "pinned), wall time; CPU time of all threads %s s" % (
                        tf.get("version"), tf.get("num_threads"), fmt_s(med(row.get("cpu_s")))),
                    xs, section="chain-e2e-torchfx-default-threads")
        self.p(table(["implementation", "kernel", "raw s", "net s", "×RT (raw)",
                      "vs scipy f32 (raw)", "vs audiocheblimit x2 (raw)", "backend",
                      "rel. err", "note"], rows,
                     ["---", "---", "---:", "---:", "---:", "---:", "---:", "---", "---:",
                      "---"]))
        self.p()
        self.base_sc = base_sc
        self.cheb = cheb
        self.cheb_net = cheb
        self.stdout_chain = rows

    def chain_kernel(self):
        r = self.res
        self.p("## (a) chain at kernel level (engine through ctypes)")
        self.p()
        self.p("One `fx_cascade_process` over the whole signal, and over 1024-frame blocks (a "
               "Python loop of ctypes calls; *blocks net* subtracts the measured cost of a call, "
               "taken with 0 frames). ns = per channel-sample for all 6 sections.")
        self.p()
        rows = []
        self.kchain = {}
        for k, kr in r["kernels"].items():
            for row in kr["chain"]:
                n = row["frames"] * 2
                w = med(row["whole_s"])
                b = med(row["blocks_s"])
                bn = b - row["blocks"] * kr["call_ns"] * 1e-9
                self.kchain[(k, row["precision"])] = w
                dbl = row["backend"].endswith("f64")
                bnd = bound_ns(r["clock"], k, 6, dbl)
                rows.append([k, row["precision"], row["backend"], fmt_s(w), "%.3f" % (w / n * 1e9),
                             fmt_s(b), fmt_s(bn), "%.3f" % (bn / n * 1e9),
                             "%.0f%%" % (100 * bnd / (w / n * 1e9)),
                             fmt_x(self.base_sc / w) if self.base_sc else "–"])
                self.row("chain-kernel", "engine whole", k, row["precision"], 6, 2,
                         row["whole_s"], "s", row["backend"])
                self.row("chain-kernel", "engine 1024-blocks", k, row["precision"], 6, 2,
                         row["blocks_s"], "s", row["backend"],
                         "ctypes call %.0f ns each" % kr["call_ns"])
        self.p(table(["kernel", "precision", "backend", "whole s", "ns/ch-sample",
                      "blocks s", "blocks net s", "ns/ch-sample (blocks net)",
                      "of FMA bound (whole)", "vs scipy f32"], rows,
                     ["---", "---", "---", "---:", "---:", "---:", "---:", "---:", "---:",
                      "---:"]))
        self.p()

    # ------------------------------------------------------------------------------------------
    def matrix(self):
        r = self.res
        self.p("## (b) the matrix: K sections × C channels, ns per channel-sample")
        self.p()
        self.p("Engine: one `fx_cascade_process` call per repetition over %d channel-samples "
               "(frames = max(4096, %d / C); the working set of a large pipeline buffer, within L2), sections = Butterworth low-pass of order 2K at 0.2 × "
               "Nyquist. scipy: `sosfilt` on a (C, frames) array along the last axis, sos and "
               "data in the same dtype. Each cell: median ns (fraction of that kernel's FMA "
               "bound). *best/scipy* = scipy time ÷ fastest kernel."
               % (r["matrix_samples"], r["matrix_samples"]))
        self.p()
        M = {}
        for k, kr in r["kernels"].items():
            for row in kr["matrix"]:
                M[(k, row["mode"], row["K"], row["C"])] = row
                self.row("matrix", "gst-fx engine", k, row["mode"], row["K"], row["C"],
                         row["ns"], "ns/ch-sample", row["backend"])
        S = {}
        for row in (r.get("scipy") or {}).get("matrix", []):
            S[(row["mode"], row["K"], row["C"])] = row
            self.row("matrix", "scipy sosfilt", "", row["mode"], row["K"], row["C"], row["ns"],
                     "ns/ch-sample")
        self.M, self.S = M, S
        ks = list(r["kernels"])
        for mode in ("f32-single", "f32-double", "f64"):
            smode = "f64" if mode == "f64" else "f32"
            self.p("### %s (scipy float%s)" % (MODE_LABEL[mode], smode[1:]))
            self.p()
            rows = []
            for K in r["ks"]:
                for C in r["cs"]:
                    cells = []
                    best = None
                    for k in ks:
                        row = M.get((k, mode, K, C))
                        if not row:
                            cells.append("–")
                            continue
                        ns = med(row["ns"])
                        dbl = row["backend"].endswith("f64")
                        frac = bound_ns(r["clock"], k, K, dbl) / ns
                        flag = "" if row["backend"].split("-")[1] == k else " ⚠%s" % row["backend"]
                        if frac > 1.05:
                            flag += " ‼"
                        cells.append("%.3f (%.0f%%)%s" % (ns, 100 * frac, flag))
                        best = ns if best is None else min(best, ns)
                    srow = S.get((smode, K, C))
                    sns = med(srow["ns"]) if srow else None
                    rows.append([K, C] + cells + ["%.2f" % sns if sns else "–",
                                                   fmt_x(sns / best) if (sns and best) else "–"])
            self.p(table(["K", "C"] + ks + ["scipy", "best/scipy"], rows))
            self.p()
        self.p("‼ = faster than the FMA bound: the bound's assumptions (clock, FMA rate, 5 "
               "operations per section) do not hold for that cell. ⚠ = the engine ran another "
               "backend than the forced kernel.")
        self.p()

    def overhead(self):
        g = self.res["gst"].get("auto")
        if not g or not g.get("overhead"):
            return
        self.p("## (c) per-buffer overhead: 64-frame stereo F32 buffers")
        self.p()
        rows = []
        ident = next(x for x in g["overhead"] if x["name"] == "identity")
        id_us = med(ident["s"]) / ident["buffers"] * 1e6
        n = ident["buffers"]
        self.p("Same pipeline as (a) with 64-frame buffers (filesrc blocksize=512), %d buffers "
               "per run; µs per buffer, *net* subtracts identity; default kernel." % n)
        self.p()
        for row in g["overhead"]:
            if row.get("error"):
                rows.append([row["name"], "–", "–", "failed: %s" % row["error"]])
                continue
            us = med(row["s"]) / row["buffers"] * 1e6
            rows.append([row["name"], "%.2f" % us,
                         "%.2f" % (us - id_us) if row is not ident else "–", row["desc"]])
            self.row("overhead-64", row["name"], "default", "", "", 2,
                     [s / row["buffers"] * 1e6 for s in row["s"]], "us/buffer")
        self.p(table(["element", "µs/buffer", "net µs/buffer", "description"], rows,
                     ["---", "---:", "---:", "---"]))
        self.p()

    # ------------------------------------------------------------------------------------------
    def target(self, what, value, goal, met, note=""):
        self.targets.append([what, value, goal, "met" if met else ("not met" if met is not None
                                                                   else "n/a"), note])

    def targets_section(self):
        r = self.res
        M, S = self.M, self.S
        ks = list(r["kernels"])
        simd = [k for k in ks if k != "scalar"]
        # 1. K=8 C=8 F32 vs scipy f32, FMA bound
        cand = [(med(M[(k, "f32-single", 8, 8)]["ns"]), k) for k in ks
                if (k, "f32-single", 8, 8) in M]
        sc = S.get(("f32", 8, 8))
        if cand and sc:
            ns, k = min(cand)
            sns = med(sc["ns"])
            kmin = min(M[(k, "f32-single", 8, 8)]["ns"])
            self.target("kernel K=8 C=8 F32 vs scipy float32 sosfilt (%s)" % k,
                        "%.1f× (%.3f vs %.2f ns)" % (sns / ns, ns, sns), "≥ 10×", sns / ns >= 10,
                        "fastest runs: %.1f×" % (min(sc["ns"]) / kmin))
            be = M[(k, "f32-single", 8, 8)]["backend"]
            bnd = bound_ns(r["clock"], k, 8, be.endswith("f64"))
            frac = bnd / ns
            self.target("kernel K=8 C=8 F32 fraction of the FMA bound (%s)" % k,
                        "%.0f%%" % (100 * frac), "≥ 75%", frac >= 0.75,
                        "backend %s; bound %.3f ns; fastest run: %.0f%%"
                        % (be, bnd, 100 * bnd / kmin))
        else:
            self.target("kernel K=8 C=8 F32 vs scipy float32", "–", "≥ 10×", None, "missing data")
        # 2. chain end to end (default kernel, precision=auto): raw (the whole pipeline, source
        # and sink included) and net (identity pipeline subtracted) as separate rows
        e = self.e2e.get(("auto", "auto"))
        cheb_raw = getattr(self, "cheb_raw", None)
        if e and self.base_sc:
            raw, net, be = e
            self.target("chain (a) end to end vs scipy float32, raw pipeline time (default "
                        "kernel, precision=auto)", "%.1f×" % (self.base_sc / raw), "≥ 10×",
                        self.base_sc / raw >= 10, "backend %s" % be)
            self.target("… net of the identity pipeline", "%.1f×" % (self.base_sc / net),
                        "≥ 10×", self.base_sc / net >= 10)
            best = min(((v[1], k, p) for (k, p), v in self.e2e.items()), default=None)
            if best and best[1:] != ("auto", "auto"):
                self.target("… net, fastest gst-fx configuration (%s, precision=%s)" % best[1:],
                            "%.1f×" % (self.base_sc / best[0]), "≥ 10×",
                            self.base_sc / best[0] >= 10)
        else:
            self.target("chain (a) end to end vs scipy float32", "–", "≥ 10×", None,
                        "missing data")
        if e and cheb_raw:
            raw, net, be = e
            self.target("chain (a) end to end vs two audiocheblimit, raw (default kernel, auto)",
                        "%.1f×" % (cheb_raw / raw), "≥ 20×", cheb_raw / raw >= 20)
            if net > 0:
                self.target("… net of the identity pipeline", "%.1f×" % (self.cheb_net / net),
                            "≥ 20×", self.cheb_net / net >= 20)
        else:
            self.target("chain (a) end to end vs two audiocheblimit", "–", "≥ 20×", None,
                        "audiocheblimit not timed (non-finite or missing)")
        # 3. mono and stereo K=8 vs the best scalar path
        for C in (1, 2):
            sca = [med(M[("scalar", m, 8, C)]["ns"]) for m in ("f32-single", "f32-double")
                   if ("scalar", m, 8, C) in M]
            vec = [(med(M[(k, "f32-single", 8, C)]["ns"]), k) for k in simd
                   if (k, "f32-single", 8, C) in M]
            if sca and vec:
                ns, k = min(vec)
                fs = min(min(M[("scalar", m, 8, C)]["ns"]) for m in ("f32-single", "f32-double")
                         if ("scalar", m, 8, C) in M)
                self.target("K=8 C=%d F32: best SIMD path (%s) vs best scalar path" % (C, k),
                            "%.2f× (%.3f vs %.3f ns)" % (min(sca) / ns, ns, min(sca)), "≥ 2×",
                            min(sca) / ns >= 2, "fastest runs: %.2f×"
                            % (fs / min(M[(k, "f32-single", 8, C)]["ns"])))
            else:
                self.target("K=8 C=%d F32 vs best scalar path" % C, "–", "≥ 2×", None,
                            "no SIMD kernel path available" if sca else "missing data")
        # 4. precision=double on F32 vs single
        for k in ks:
            a = M.get((k, "f32-single", 8, 8))
            b = M.get((k, "f32-double", 8, 8))
            if a and b:
                ratio = med(b["ns"]) / med(a["ns"])
                self.target("precision=double ÷ single on F32, K=8 C=8 (%s)" % k,
                            "%.2f×" % ratio, "≤ 2×", ratio <= 2,
                            "backends %s / %s; fastest runs: %.2f×"
                            % (a["backend"], b["backend"], min(b["ns"]) / min(a["ns"])))
        e1, e2 = self.e2e.get(("auto", "single")), self.e2e.get(("auto", "double"))
        if e1 and e2:
            self.target("precision=double ÷ single on F32, chain (a) end to end net (default)",
                        "%.2f×" % (e2[1] / e1[1]), "≤ 2×", e2[1] / e1[1] <= 2,
                        "%s / %s" % (e1[2], e2[2]))
        self.targets16_section()
        self.p("## Targets (ratios from this run; not tuned)")
        self.p()
        self.p(table(["target", "measured", "goal", "status", "note"], self.targets,
                     ["---", "---:", "---", "---", "---"]))
        self.p()
        if r["skipped"]:
            self.p("## Skipped")
            self.p()
            for s in r["skipped"]:
                self.p("- %s" % s)
            self.p()
        self.p("Raw samples: `compare.csv`; chart: `compare.png`.")

    def targets16_section(self):
        """The targets of issue #16 (mono/stereo at SIMD speed) that this run measures; the
        128-frame one is in buffers.md (bench/extras.py)."""
        r = self.res
        M = self.M
        rows = []

        def t(what, value, goal, met, note=""):
            rows.append([what, value, goal, "met" if met else ("not met" if met is not None
                                                               else "n/a"), note])
        simd = [k for k in r["kernels"] if k != "scalar"] or list(r["kernels"])
        # the machine's float FMA bound: the best of the paths this CPU has
        bounds = [(bound_ns(r["clock"], k, 1, False), k) for k in simd]
        if not bounds:
            return
        b1 = min(bounds)[0]
        # the label names every path within 2% of that bound (avx2 and avx512 tie where the
        # core runs 512-bit FMAs as two 256-bit halves: Zen 4)
        bk = "/".join(k for b, k in bounds if b <= b1 * 1.02)
        for C in (1, 2):
            cand = [(med(M[(k, "f32-single", 8, C)]["ns"]), k) for k in simd
                    if (k, "f32-single", 8, C) in M]
            if cand:
                ns, k = min(cand)
                frac = 8 * b1 / ns
                t("kernel K=8 C=%d F32 (%s), fraction of the float FMA bound" % (C, k),
                  "%.0f%% (%.3f vs %.3f ns)" % (100 * frac, ns, 8 * b1), "≥ 60%", frac >= 0.6,
                  "bound of %s; fastest run %.0f%%" % (
                      bk, 100 * 8 * b1 / min(M[(k, "f32-single", 8, C)]["ns"])))
            else:
                t("kernel K=8 C=%d F32, fraction of the float FMA bound" % C, "–", "≥ 60%",
                  None, "missing data")
        e = self.e2e.get(("auto", "auto"))
        if e and e[1] and e[1] > 0:
            raw, net, be = e
            bound_s = r["frames"] * 2 * 6 * b1 * 1e-9
            t("seed chain end to end, net, precision=auto: ÷ float FMA bound",
              "%.1f× (%.3f s vs %.4f s)" % (net / bound_s, net, bound_s), "≤ 3×",
              net / bound_s <= 3, "backend %s" % be)
            if self.base_sc:
                t("… vs scipy float32 sosfilt", "%.1f×" % (self.base_sc / net), "≥ 5×",
                  self.base_sc / net >= 5)
            tf = r.get("torchfx")
            row = next((x for x in (tf or {}).get("chain", [])
                        if x["kind"] == "fused" and x["dtype"] == "float32"), None)
            if row and row["s"]:
                v = med(row["s"]) / net
                t("… vs TorchFX fused float32, one thread", "%.1f×" % v, "≥ 3×", v >= 3)
            else:
                t("… vs TorchFX fused float32, one thread", "–", "≥ 3×", None,
                  "TorchFX not measured")
            tf = r.get("torchfx_mt")
            row = next((x for x in (tf or {}).get("chain", [])
                        if x["kind"] == "fused" and x["dtype"] == "float32"), None)
            if row and row.get("wall_s"):
                v = med(row["wall_s"]) / net
                t("… vs TorchFX fused float32, default threads (%s; wall)" % tf.get("num_threads"),
                  "%.1f×" % v, "(none)", None, "for reference")
            if self.cheb_net:
                v = self.cheb_net / net
                t("… vs two audiocheblimit, net", "%.1f×" % v, "≥ 12×", v >= 12)
        else:
            t("seed chain end to end, net, precision=auto", "–", "≤ 3× bound", None,
              "missing data")
        self.p("## Targets of issue #16 (one core; ratios from this run)")
        self.p()
        self.p("The 128-frame target (≤ 2 µs per stereo buffer through the element) is measured "
               "by `bench/extras.py` (`buffers.md`); the accuracy targets by the tests.")
        self.p()
        self.p(table(["target", "measured", "goal", "status", "note"], rows,
                     ["---", "---:", "---", "---", "---"]))
        self.p()

    # ------------------------------------------------------------------------------------------
    def chart(self, path):
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            return "matplotlib missing (Debian python3-matplotlib): no chart"
        r = self.res
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(15, 6.5))
        names, vals, cols = [], [], []
        for row in self.csv:
            if row[0] == "chain-e2e" and row[1] != "identity" and row[1] != "sox (no effect)":
                label = row[1] + (" [%s]" % row[2] if row[2] and row[2] != "default" else "")
                names.append(label)
                vals.append(r["seconds"] / row[6])
                cols.append("tab:blue" if row[1].startswith("gst-fx") else "tab:gray")
        order = sorted(range(len(vals)), key=lambda i: vals[i])
        a1.barh([names[i] for i in order], [vals[i] for i in order],
                color=[cols[i] for i in order])
        for i, j in enumerate(order):
            a1.text(vals[j], i, " %.0f" % vals[j], va="center", fontsize=7)
        a1.set_xscale("log")
        if vals:
            a1.set_xlim(left=min(vals) / 2, right=max(vals) * 3)
        a1.set_xlabel("× real time (raw, higher is faster)")
        a1.set_title("(a) HP 80 Hz o4 → LP 12 kHz o8, %.0f s stereo F32" % r["seconds"])
        a1.tick_params(axis="y", labelsize=7)
        for k in r["kernels"]:
            ys = [med(self.M[(k, "f32-single", 8, C)]["ns"]) for C in r["cs"]
                  if (k, "f32-single", 8, C) in self.M]
            if ys:
                a2.plot(r["cs"][:len(ys)], ys, "o-", label="gst-fx %s" % k)
                a2.axhline(bound_ns(r["clock"], k, 8, False), ls=":", lw=0.8,
                           color=a2.lines[-1].get_color())
        ys = [med(self.S[("f32", 8, C)]["ns"]) for C in r["cs"] if ("f32", 8, C) in self.S]
        if ys:
            a2.plot(r["cs"][:len(ys)], ys, "s--", color="black", label="scipy float32")
        a2.set_xscale("log", base=2)
        a2.set_yscale("log")
        a2.set_xlabel("channels C")
        a2.set_ylabel("ns per channel-sample (lower is faster)")
        a2.set_title("(b) K=8 sections, F32 single; dotted: FMA bound per kernel")
        a2.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return None

    def write(self, out):
        self.header()
        self.fma()
        self.chain_end_to_end()
        self.chain_kernel()
        self.matrix()
        self.overhead()
        self.targets_section()
        note = self.chart(os.path.join(out, "compare.png"))
        if note:
            self.res["skipped"].append(note)
            self.p("- %s" % note)
        text = "\n".join(self.md) + "\n"
        open(os.path.join(out, "compare.md"), "w").write(text)
        with open(os.path.join(out, "compare.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["section", "name", "kernel", "mode", "K", "C", "median", "min", "max",
                        "unit", "n", "backend", "note"])
            for row in self.csv:
                w.writerow([("%.6g" % v) if isinstance(v, float) else v for v in row])
        sys.stdout.write(text)


def write(res, out):
    Report(res).write(out)
