#!/usr/bin/env bash
# Every CPU benchmark of issue #16 in one command, on one build, one after the other:
#
#   bench/run-all.sh [--quick] [--no-torchfx]
#
#   1. bench/run-compare.sh   gst-fx beside audiocheblimit/audioiirfilter, scipy, SoX and TorchFX
#                             (one thread with OMP_NUM_THREADS=1, and its default threads):
#                             chain (a) end to end and at kernel level, the K x C matrix with the
#                             FMA bound, 64-frame overhead, targets  -> compare.md/.csv/.png
#   2. bench/extras.py        128/512-frame buffers with the state carried (engine, element,
#                             scipy; mono and stereo)                  -> buffers.md
#                             fused depth 20 vs unfused vs scipy       -> depth20.md
#                             process start-up on a tiny file          -> startup.md
#   3. bench/run-fusion.sh    fxchain fused vs unfused, depths 2..20   -> fusion.md/.csv
#   4. bench/run-batch.sh 64  gst-fx batch of 64 files vs the per-file peers (a GStreamer
#                             pipeline per file, process-many, sox, scipy, TorchFX)
#                                                                     -> batch-64.md
# and writes bench/results/run-all.md (what ran, each step's run time, where the results are).
#
# BUILD_DIR (default <repo>/build-bench) is configured when missing as a release build with the
# benchmark programs (meson setup --buildtype=release -Dbench=true $FX_BENCH_MESON_OPTS, where
# FX_BENCH_MESON_OPTS defaults to -Dgpu_kernels=false: these are CPU benchmarks, and nvcc would
# take minutes) and brought up to date. TorchFX
# is installed by run-compare.sh into its venv (see there; --no-torchfx skips it). --quick runs
# every step short (minutes) for a try; the figures to keep come from a run without it, on an
# idle machine. Never part of the tests.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=../scripts/lib.sh
. "$ROOT/scripts/lib.sh"
BUILD="${BUILD_DIR:-$ROOT/build-bench}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
export BUILD_DIR="$BUILD"

quick=()
compare_args=()
for a in "$@"; do
  case "$a" in
    --quick) quick=(--quick) ;;
    --no-torchfx) compare_args+=(--no-torchfx) ;;
    -h | --help)
      sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "run-all.sh: unknown argument $a (see --help)" >&2
      exit 2
      ;;
  esac
done

t_all=$(date +%s)
if [ ! -f "$BUILD/build.ninja" ]; then
  opts="${FX_BENCH_MESON_OPTS--Dgpu_kernels=false}"
  fx_log "configuring $BUILD (release, -Dbench=true $opts)"
  # shellcheck disable=SC2086 # the options are words
  meson setup "$BUILD" "$ROOT" --buildtype=release -Dbench=true $opts \
    >/dev/null || { fx_log "meson setup failed"; exit 1; }
fi
fx_bench_build "$BUILD" || { fx_log "build failed"; exit 1; }

RES="$ROOT/bench/results"
steps=()
step() { # name, results, command...
  local name="$1" files="$2" t0 rc
  shift 2
  fx_log "=== $name: $*"
  t0=$(date +%s)
  "$@"
  rc=$?
  steps+=("| $name | \`$(printf '%s ' "$@" | sed "s|$ROOT/||g; s/ $//")\` | $(($(date +%s) - t0)) | $rc | $files |")
  fx_log "=== $name: exit $rc after $(($(date +%s) - t0)) s"
}

step compare "compare.md, compare.csv, compare.png" "$ROOT/bench/run-compare.sh" \
  "${quick[@]}" "${compare_args[@]}"

CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/gst-fx-bench"
TFPY="${TORCHFX_VENV:-$CACHE/torchfx-venv}/bin/python"
tf_args=()
if [ "${#compare_args[@]}" -eq 0 ] && [ -x "$TFPY" ] && "$TFPY" -c 'import torchfx' 2>/dev/null; then
  tf_args=(--torchfx-python "$TFPY")
fi
export GST_PLUGIN_PATH_1_0="$BUILD/gst"
export GST_REGISTRY_1_0="$BUILD/gst-registry-bench.bin"
rm -f "$GST_REGISTRY_1_0"
export FXDSP_LIB="$BUILD/tests/libfxdsp_py.so"
rev="$(fx_bench_rev)"
step extras "buffers.md, depth20.md, startup.md" /usr/bin/python3 "$ROOT/bench/extras.py" \
  --build "$BUILD" --label "commit $rev, buildtype $(fx_build_option "$BUILD" buildtype)" "${quick[@]}" "${tf_args[@]}"

if [ "${#quick[@]}" -gt 0 ]; then
  step fusion "fusion.md, fusion.csv" "$ROOT/bench/run-fusion.sh" --reps 3
  step batch "batch-64.md" "$ROOT/bench/run-batch.sh" 64 1
else
  step fusion "fusion.md, fusion.csv" "$ROOT/bench/run-fusion.sh" --reps 15
  step batch "batch-64.md" "$ROOT/bench/run-batch.sh" 64 5
fi

total=$(($(date +%s) - t_all))
{
  echo "# bench/run-all.sh"
  echo
  echo "Run on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $rev, build $BUILD, $(nproc) processors"
  echo "($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')); load average at end"
  echo "$(cut -d' ' -f1-3 /proc/loadavg); ${quick[*]:-full} mode. Total run time $total s"
  echo "(build included)."
  echo
  echo "| step | command | s | exit | results (bench/results/) |"
  echo "| --- | --- | ---: | ---: | --- |"
  printf '%s\n' "${steps[@]}"
} >"$RES/run-all.md"
cat "$RES/run-all.md"
fx_log "results under $RES: compare.md, buffers.md, depth20.md, startup.md, fusion.md, batch-64.md, run-all.md ($total s in all)"
