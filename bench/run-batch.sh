#!/usr/bin/env bash
# Batch benchmark: `gst-fx batch` (files stacked on the channel axis, one dispatch per block for
# all files) vs one pipeline per file in one process, all in this one run.
#
#   bench/run-batch.sh [FILES [REPS]]        (default 512 files, 3 repetitions)
#
# Generates FILES stereo 16-bit wav files of 2 s at 48 kHz (white noise) in a temporary
# directory on tmpfs (/dev/shm when writable, else $TMPDIR: so that the disk writeback of other
# jobs on a shared machine does not time the disk instead of the programs; FX_BENCH_TMP=DIR
# overrides), runs the chain `fxbutterworth mode=high-pass cutoff=80 order=4 ! fxbutterworth
# mode=low-pass cutoff=12000 order=8` with --device cpu through
#   gst-per-file  fx-bench-per-file (bench/per-file.c): for each file a plain GStreamer pipeline
#                 filesrc ! wavparse ! audioconvert ! F32LE ! fxchain ! audioconvert ! F32LE !
#                 wavenc ! filesink, built, run to EOS and freed: THE BASELINE (what a GStreamer
#                 user runs; one pipeline per file, in one process)
#   process-many  gst-fx process-many: `process` for each file in turn (libsndfile I/O and one
#                 fxchain pipeline per file): the per-file path of gst-fx itself
#   batch-j1      gst-fx batch --jobs 1 (everything on one thread)
#   batch         gst-fx batch (default --jobs: one thread per processor; the file side (opening,
#                 copying the filtered channels out, writing) runs beside the stream side
#                 (stacking, filtering), while the baseline runs its pipelines one after the
#                 other, as a user's loop would)
#   batch-io      gst-fx batch with the chain `volume volume=1` (pass-through): batch without the
#                 filtering, i.e. its reading, stacking and writing alone
# and the per-file peers outside GStreamer (skipped with the reason when missing):
#   sox-per-file  one `sox` process per file (a shell loop), SoX's six RBJ biquads with the
#                 Butterworth Qs standing in for the chain, float wav out
#   scipy-loop    one python3 process reading each file (scipy.io.wavfile), filtering it with
#                 scipy.signal.sosfilt in float32 (the same Butterworth sections) and writing it
#   torchfx-loop  the same with TorchFX's fused cascade, OMP_NUM_THREADS=1 (only when the TorchFX
#                 venv of bench/run-compare.sh exists: TORCHFX_VENV)
# alternating them REPS times, and reports median wall time (min-max) and CPU time (user +
# system), the ratios to the baseline, the dispatches of the stacked run, and checks that batch
# wrote the same bytes as process-many and the same samples as the GStreamer pipelines (their wav
# headers differ: wavenc vs libsndfile). Writes bench/results/batch.md for 512 files and
# bench/results/batch-FILES.md for any other count, with this machine's FMA-throughput bound for
# the filtering (bench/compare.py's measurement).
# BUILD_DIR (default <repo>/build) selects the build; the script configures it with -Dbench=true
# (or turns that on in an existing build) for fx-bench-per-file. Never part of the tests.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=../scripts/lib.sh
. "$ROOT/scripts/lib.sh"
BUILD="${BUILD_DIR:-$ROOT/build}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
FILES="${1:-512}"
REPS="${2:-3}"
CHAIN="fxbutterworth mode=high-pass cutoff=80 order=4 ! fxbutterworth mode=low-pass cutoff=12000 order=8"

# fx-bench-per-file is a benchmark program: the build gets -Dbench=true (scripts/lib.sh)
fx_bench_build "$BUILD"
GSTFX="$BUILD/tools/gst-fx"
PERFILE="$BUILD/tools/fx-bench-per-file"
export GST_PLUGIN_PATH_1_0="$BUILD/gst"
export GST_REGISTRY_1_0="$BUILD/gst-registry-bench.bin"
rm -f "$GST_REGISTRY_1_0"

if [ -n "${FX_BENCH_TMP:-}" ]; then
  TMP="$(mktemp -d -p "$FX_BENCH_TMP")"
elif [ -w /dev/shm ]; then
  TMP="$(mktemp -d -p /dev/shm)"
else
  TMP="$(mktemp -d)"
fi
TMPFS="$(df -T "$TMP" | awk 'NR == 2 { print $2 }')"
trap 'rm -rf "$TMP"' EXIT
/usr/bin/python3 - "$TMP/in" "$FILES" <<'EOF'
import os, sys, wave
import numpy as np
d, n = sys.argv[1], int(sys.argv[2])
os.makedirs(d)
rng = np.random.default_rng(2026)
for i in range(n):
    x = np.clip(rng.standard_normal((96000, 2)) * 0.2 * 32767, -32768, 32767).astype("<i2")
    with wave.open(os.path.join(d, "f%04d.wav" % i), "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(48000)
        w.writeframes(x.tobytes())
EOF
# warm the page cache and the registry
cat "$TMP"/in/*.wav >/dev/null
"$GSTFX" plan --chain "$CHAIN" >/dev/null

# the per-file peers outside GStreamer
SOX="$(command -v sox || true)"
SOX_EFFECTS="$(/usr/bin/python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import compare
print(" ".join(compare.sox_effects()["sox-biquads"][0]))' "$ROOT/bench")"
PY_SCIPY='import os, sys, warnings
import numpy as np, scipy.signal as ss, scipy.io.wavfile as wf
warnings.simplefilter("ignore")
hp = ss.butter(4, 80, "highpass", fs=48000, output="sos")
lp = ss.butter(8, 12000, "lowpass", fs=48000, output="sos")
sos = np.vstack([hp, lp]).astype(np.float32)
os.makedirs(sys.argv[1], exist_ok=True)
for f in sys.argv[2:]:
    r, x = wf.read(f)
    y = ss.sosfilt(sos, x.astype(np.float32) / np.float32(32768), axis=0)
    wf.write(os.path.join(sys.argv[1], os.path.basename(f)), r, y.astype(np.float32))'
PY_TORCHFX='import os, sys
import numpy as np, soundfile as sf, torch, torchfx as fx
from torchfx.filter.fused import FusedSOSCascade
torch.set_num_threads(1)
os.makedirs(sys.argv[1], exist_ok=True)
for f in sys.argv[2:]:
    x, r = sf.read(f, dtype="float32")
    m = FusedSOSCascade(fx.filter.HiButterworth(cutoff=80, order=4, fs=r),
                        fx.filter.LoButterworth(cutoff=12000, order=8, fs=r))
    with torch.no_grad():
        y = m(torch.from_numpy(np.ascontiguousarray(x.T))).numpy().T
    sf.write(os.path.join(sys.argv[1], os.path.basename(f)), y, r, subtype="FLOAT")'
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/gst-fx-bench"
TORCHFX_PY="${TORCHFX_VENV:-$CACHE/torchfx-venv}/bin/python"
peers_skipped=""
[ -n "$SOX" ] || peers_skipped="$peers_skipped sox-per-file (no sox);"
if [ ! -x "$TORCHFX_PY" ] || ! "$TORCHFX_PY" -c 'import torchfx, soundfile' 2>/dev/null; then
  peers_skipped="$peers_skipped torchfx-loop (no TorchFX venv with soundfile at ${TORCHFX_VENV:-$CACHE/torchfx-venv}; bench/run-compare.sh makes it);"
  TORCHFX_PY=""
fi

load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
: >"$TMP/times"
run() { # name, command...
  local name="$1"
  shift
  rm -rf "$TMP/out-$name"
  /usr/bin/time -f "$name %e %U %S" -a -o "$TMP/times" "$@" >"$TMP/stdout-$name"
}
for rep in $(seq 1 "$REPS"); do
  run gst-per-file "$PERFILE" --device cpu --chain "$CHAIN" -o "$TMP/out-gst-per-file" "$TMP"/in/*.wav
  run process-many "$GSTFX" process-many --device cpu --chain "$CHAIN" -o "$TMP/out-process-many" "$TMP"/in/*.wav
  run batch-j1 "$GSTFX" batch --quiet --jobs 1 --device cpu --chain "$CHAIN" -o "$TMP/out-batch-j1" "$TMP"/in/*.wav
  run batch "$GSTFX" batch --device cpu --chain "$CHAIN" -o "$TMP/out-batch" "$TMP"/in/*.wav
  run batch-io "$GSTFX" batch --quiet --device cpu --chain "volume volume=1" -o "$TMP/out-batch-io" "$TMP"/in/*.wav
  if [ -n "$SOX" ]; then
    # shellcheck disable=SC2016 # the inner script expands its own arguments
    run sox-per-file bash -c 'o="$1"; shift; mkdir -p "$o"; for f in "$@"; do
      sox -q -V1 -D "$f" -e floating-point "$o/$(basename "$f")" '"$SOX_EFFECTS"' || exit 1; done' \
      _ "$TMP/out-sox-per-file" "$TMP"/in/*.wav
  fi
  run scipy-loop /usr/bin/python3 -c "$PY_SCIPY" "$TMP/out-scipy-loop" "$TMP"/in/*.wav
  if [ -n "$TORCHFX_PY" ]; then
    OMP_NUM_THREADS=1 run torchfx-loop "$TORCHFX_PY" -c "$PY_TORCHFX" "$TMP/out-torchfx-loop" "$TMP"/in/*.wav
  fi
done
load_end="$(cut -d' ' -f1-3 /proc/loadavg)"

same=yes
for f in "$TMP"/out-process-many/*.wav; do
  b="$TMP/out-batch/$(basename "$f")"
  cmp -s "$f" "$b" || { same=no; break; }
done
[ "$(ls "$TMP/out-batch" | wc -l)" -eq "$FILES" ] || same=no
same_gst="$(/usr/bin/python3 - "$TMP/out-gst-per-file" "$TMP/out-batch" <<'EOF'
import os, sys, warnings
import numpy as np
import scipy.io.wavfile
warnings.simplefilter("ignore")  # libsndfile's fact/PAD chunks
a, b = sys.argv[1:3]
names = sorted(os.listdir(a))
ok = len(names) > 0 and names == sorted(os.listdir(b))
for n in names if ok else []:
    x, y = scipy.io.wavfile.read(os.path.join(a, n)), scipy.io.wavfile.read(os.path.join(b, n))
    if x[0] != y[0] or x[1].dtype != y[1].dtype or not np.array_equal(x[1], y[1]):
        ok = False
        break
print("yes" if ok else "no")
EOF
)"

# the peers' samples against the GStreamer baseline's (rel. RMS difference)
peer_err="$(/usr/bin/python3 - "$TMP" <<'EOF'
import os, sys, warnings
import numpy as np
import scipy.io.wavfile
warnings.simplefilter("ignore")
tmp = sys.argv[1]
base = os.path.join(tmp, "out-gst-per-file")
names = sorted(os.listdir(base))[:16]
out = []
for peer in ("sox-per-file", "scipy-loop", "torchfx-loop"):
    d = os.path.join(tmp, "out-" + peer)
    if not os.path.isdir(d):
        continue
    num = den = 0.0
    try:
        for n in names:
            x = scipy.io.wavfile.read(os.path.join(base, n))[1].astype(np.float64)
            y = scipy.io.wavfile.read(os.path.join(d, n))[1].astype(np.float64)
            m = min(len(x), len(y))
            num += np.sum((x[:m] - y[:m]) ** 2)
            den += np.sum(x[:m] ** 2)
        out.append("%s %.1e" % (peer, (num / den) ** 0.5))
    except Exception as e:
        out.append("%s unreadable (%s)" % (peer, type(e).__name__))
print("; ".join(out))
EOF
)"
# this machine's FMA-throughput bound for the filtering (bench/compare.py's measurement)
bound="$(/usr/bin/python3 - "$ROOT/bench" "$FILES" <<'EOF'
import os, shutil, sys, tempfile
sys.path.insert(0, sys.argv[1])
import compare
files = int(sys.argv[2])
cpu = compare.cpu_info()
tmp = tempfile.mkdtemp()
pin = ["taskset", "-c", "1"] if (os.cpu_count() or 1) > 1 and shutil.which("taskset") else []
cl = compare.measure_clock(tmp, cpu, pin)
shutil.rmtree(tmp, ignore_errors=True)
k = "avx512" if "avx512f" in cpu["flags"] else "avx2" if "avx2" in cpu["flags"] else "sse2"
n = files * 96000 * 2
f = compare.fma_bound_ns(cl, k, 6, False) * n * 1e-9
d = compare.fma_bound_ns(cl, k, 6, True) * n * 1e-9
print("FMA-throughput bound of the filtering on one core (%d channel-samples x 6 sections x 5 "
      "FMA-equivalent operations, %s at %.3f GHz, %s FMA instructions/cycle): %.3f s in float, "
      "%.3f s in double" % (n, k, cl["ghz"], cl["ipc"][k], f, d))
EOF
)"

rev="$(fx_bench_rev)"
cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
mkdir -p "$ROOT/bench/results"
if [ "$FILES" = 512 ]; then RESULT="$ROOT/bench/results/batch.md"; else RESULT="$ROOT/bench/results/batch-$FILES.md"; fi
/usr/bin/python3 - "$TMP/times" "$TMP/stdout-batch" "$RESULT" <<EOF
import statistics, sys
times, summary, out = sys.argv[1:4]
names = ("gst-per-file", "process-many", "batch-j1", "batch", "batch-io", "sox-per-file",
         "scipy-loop", "torchfx-loop")
rows = {}
for line in open(times):
    parts = line.split()
    if len(parts) == 4 and parts[0] in names:
        rows.setdefault(parts[0], []).append(
            (float(parts[1]), float(parts[2]) + float(parts[3]), float(parts[3])))
med = {k: (statistics.median(r[0] for r in v), min(r[0] for r in v), max(r[0] for r in v),
           statistics.median(r[1] for r in v), statistics.median(r[2] for r in v))
       for k, v in rows.items()}
base = med["gst-per-file"]
lines = [
    "# gst-fx batch vs one pipeline per file",
    "",
    "Run by \`bench/run-batch.sh $FILES $REPS\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $rev,",
    "$(nproc) processors ($cpu), files on $TMPFS. Load average (1, 5, 15 min) at start:",
    "$load_start; at end: $load_end.",
    "",
    "$FILES stereo 16-bit wav files of 2 s at 48 kHz through \`$CHAIN\`, \`--device cpu\`, F32",
    "wav out; medians of $REPS alternating runs (min-max), wall and CPU (user + system) seconds",
    "per run including start-up (GStreamer init, plugin loading). Ratios: baseline time / time.",
    "The baseline runs its pipelines one after the other (as a user's loop would); \`batch\` uses",
    "one thread per processor by default (the files' reading and writing beside the stacking and",
    "filtering), \`batch --jobs 1\` one thread. Wall times count the other jobs of a shared",
    "machine (see the load average): on a loaded machine the threads of \`batch\` get less than a",
    "processor each.",
    "",
    "| path | wall s | CPU s (system) | wall speed-up | CPU ratio |",
    "| --- | --- | --- | --- | --- |",
]
labels = {
    "gst-per-file": "baseline: a GStreamer pipeline per file (\`fx-bench-per-file\`)",
    "process-many": "\`gst-fx process\` per file (\`process-many\`)",
    "batch-j1": "\`batch --jobs 1\`",
    "batch": "\`batch\` (default jobs)",
    "batch-io": "\`batch\`, pass-through chain \`volume volume=1\` (no filtering)",
    "sox-per-file": "\`sox\` per file (six RBJ biquads; one process per file)",
    "scipy-loop": "scipy \`sosfilt\` float32, one python3 process looping over the files",
    "torchfx-loop": "TorchFX fused cascade, one process looping over the files, 1 thread",
}
for k in names:
    if k not in med:
        continue
    w, lo, hi, c, sy = med[k]
    lines.append("| %s | %.2f (%.2f-%.2f) | %.2f (%.2f) | %.2fx | %.2fx |" % (
        labels[k], w, lo, hi, c, sy, base[0] / w, base[3] / c))
lines += ["", "Stacked run (last batch): " + open(summary).read().strip().replace("gst-fx batch: ", ""),
          "", "Batch outputs identical to \`process-many\`'s (byte for byte): $same; same samples as",
          "the GStreamer pipelines' (scipy.io.wavfile, exact): $same_gst.",
          "", "$bound.",
          "", "Peers' outputs against the baseline's (RMS difference / RMS, first 16 files): "
          "${peer_err:-none}." + (" Not run:$peers_skipped" if "$peers_skipped" else "")]
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
