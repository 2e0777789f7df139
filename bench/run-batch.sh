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
# alternating them REPS times, and reports median wall time (min-max) and CPU time (user +
# system), the ratios to the baseline, the dispatches of the stacked run, and checks that batch
# wrote the same bytes as process-many and the same samples as the GStreamer pipelines (their wav
# headers differ: wavenc vs libsndfile). Writes bench/results/batch.md.
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

rev="$(fx_bench_rev)"
cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
mkdir -p "$ROOT/bench/results"
/usr/bin/python3 - "$TMP/times" "$TMP/stdout-batch" "$ROOT/bench/results/batch.md" <<EOF
import statistics, sys
times, summary, out = sys.argv[1:4]
names = ("gst-per-file", "process-many", "batch-j1", "batch", "batch-io")
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
}
for k in names:
    w, lo, hi, c, sy = med[k]
    lines.append("| %s | %.2f (%.2f-%.2f) | %.2f (%.2f) | %.2fx | %.2fx |" % (
        labels[k], w, lo, hi, c, sy, base[0] / w, base[3] / c))
lines += ["", "Stacked run (last batch): " + open(summary).read().strip().replace("gst-fx batch: ", ""),
          "", "Batch outputs identical to \`process-many\`'s (byte for byte): $same; same samples as",
          "the GStreamer pipelines' (scipy.io.wavfile, exact): $same_gst."]
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
