#!/usr/bin/env bash
# fxfir against the stock audiofirfilter and audiowsinclimit at 31, 101, 1001 and 16001 taps, in
# one run (bench/fir.py), plus the engine-level crossover sweep (fx-bench-fir: direct vs
# partitioned and the partition schedule). Writes bench/results/fir.{md,csv} and
# bench/results/fir-engine-{f32,f64}.csv. About 1-2 minutes.
#
#   bench/run-fir.sh [--no-engine] [fir.py options: --seconds S --reps N --taps LIST ...]
#
# BUILD_DIR (default <repo>/build) selects the build directory, configured with -Dbench=true (or
# that turned on in an existing build) for fx-bench-fir.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${BUILD_DIR:-$ROOT/build}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
# shellcheck source=../scripts/lib.sh
. "$ROOT/scripts/lib.sh"
engine=1
args=()
for a in "$@"; do
  case "$a" in
    --no-engine) engine=0 ;;
    *) args+=("$a") ;;
  esac
done
fx_ensure_packages || exit 1
# fx-bench-fir is a benchmark program: the build gets -Dbench=true (scripts/lib.sh)
fx_bench_build "$BUILD" || exit 1
fx_gst_env "${BUILD#"$ROOT"/}"
if [ $engine -eq 1 ]; then
  for fmt in f32 f64; do
    fx_log "engine sweep ($fmt, stereo)"
    "$BUILD/dsp/fx-bench-fir" 0.25 2 $fmt >"$ROOT/bench/results/fir-engine-$fmt.csv" || exit 1
  done
fi
fx_log "fxfir vs audiofirfilter / audiowsinclimit"
exec "$FX_PYTHON" "$ROOT/bench/fir.py" "${args[@]}"
