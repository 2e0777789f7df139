#!/usr/bin/env bash
# Batch benchmark: `gst-fx batch` (files stacked on the channel axis, one dispatch per block for
# all files, reused pipelines) vs one pipeline per file (`gst-fx process-many`: exactly what
# `gst-fx process` does, for each file in turn, in one process), both in this one run.
#
#   bench/run-batch.sh [FILES [REPS]]        (default 512 files, 3 repetitions)
#
# Generates FILES stereo 16-bit wav files of 2 s at 48 kHz (white noise) in a temporary
# directory, runs the chain `fxbutterworth mode=high-pass cutoff=80 order=4 ! fxbutterworth
# mode=low-pass cutoff=12000 order=8` with --device cpu through
#   per-file   gst-fx process-many            (one decoder, fxchain and encoder pipeline per file)
#   batch -j1  gst-fx batch --jobs 1          (everything on one thread)
#   batch      gst-fx batch                   (decode/encode on one thread per processor)
# alternating the three REPS times, and reports median wall time (min-max) and CPU time (user +
# system), the ratios to the per-file path, the dispatches of the stacked run, and checks that
# batch wrote the same bytes as the per-file path. Writes bench/results/batch.md.
# BUILD_DIR (default <repo>/build) selects the build. Never part of the tests.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${BUILD_DIR:-$ROOT/build}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
FILES="${1:-512}"
REPS="${2:-3}"
CHAIN="fxbutterworth mode=high-pass cutoff=80 order=4 ! fxbutterworth mode=low-pass cutoff=12000 order=8"

if [ ! -f "$BUILD/build.ninja" ]; then
  meson setup "$BUILD" "$ROOT" >/dev/null
fi
ninja -C "$BUILD" >/dev/null || ninja -C "$BUILD"
GSTFX="$BUILD/tools/gst-fx"
export GST_PLUGIN_PATH_1_0="$BUILD/gst"
export GST_REGISTRY_1_0="$BUILD/gst-registry-bench.bin"
rm -f "$GST_REGISTRY_1_0"

TMP="$(mktemp -d)"
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
  run per-file "$GSTFX" process-many --device cpu --chain "$CHAIN" -o "$TMP/out-per-file" "$TMP"/in/*.wav
  run batch-j1 "$GSTFX" batch --quiet --jobs 1 --device cpu --chain "$CHAIN" -o "$TMP/out-batch-j1" "$TMP"/in/*.wav
  run batch "$GSTFX" batch --device cpu --chain "$CHAIN" -o "$TMP/out-batch" "$TMP"/in/*.wav
done
load_end="$(cut -d' ' -f1-3 /proc/loadavg)"

same=yes
for f in "$TMP"/out-per-file/*.wav; do
  b="$TMP/out-batch/$(basename "$f")"
  cmp -s "$f" "$b" || { same=no; break; }
done
[ "$(ls "$TMP/out-batch" | wc -l)" -eq "$FILES" ] || same=no

rev="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  rev="$rev (with uncommitted changes)"
fi
cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
mkdir -p "$ROOT/bench/results"
/usr/bin/python3 - "$TMP/times" "$TMP/stdout-batch" "$ROOT/bench/results/batch.md" <<EOF
import statistics, sys
times, summary, out = sys.argv[1:4]
rows = {}
for line in open(times):
    parts = line.split()
    if len(parts) == 4 and parts[0] in ("per-file", "batch-j1", "batch"):
        rows.setdefault(parts[0], []).append((float(parts[1]), float(parts[2]) + float(parts[3])))
med = {k: (statistics.median(w for w, _ in v), min(w for w, _ in v), max(w for w, _ in v),
           statistics.median(c for _, c in v)) for k, v in rows.items()}
base = med["per-file"]
lines = [
    "# gst-fx batch vs one pipeline per file",
    "",
    "Run by \`bench/run-batch.sh $FILES $REPS\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $rev,",
    "$(nproc) processors ($cpu). Load average (1, 5, 15 min) at start: $load_start; at end: $load_end.",
    "",
    "$FILES stereo 16-bit wav files of 2 s at 48 kHz through \`$CHAIN\`, \`--device cpu\`;",
    "medians of $REPS alternating runs (min-max), wall and CPU (user + system) seconds per run",
    "including start-up (GStreamer init, plugin loading).",
    "",
    "| path | wall s | CPU s | wall speed-up | CPU ratio |",
    "| --- | --- | --- | --- | --- |",
]
for k, label in (("per-file", "one pipeline per file (\`process-many\`)"),
                 ("batch-j1", "\`batch --jobs 1\`"), ("batch", "\`batch\` (default jobs)")):
    w, lo, hi, c = med[k]
    lines.append("| %s | %.2f (%.2f-%.2f) | %.2f | %.2fx | %.2fx |" % (
        label, w, lo, hi, c, base[0] / w, base[3] / c))
lines += ["", "Stacked run (last batch): " + open(summary).read().strip().replace("gst-fx batch: ", ""),
          "", "Batch outputs identical to the per-file outputs (byte for byte): $same."]
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
