#!/usr/bin/env bash
# fxreverb vs freeverb and fxdelay vs audioecho in one run (under a minute with the defaults).
# Writes bench/results/effects.md.
#
#   bench/run-effects.sh [effects.py options: --seconds S --reps N --block FRAMES]
#
# BUILD_DIR (default <repo>/build) selects the build directory (configured with the project
# defaults when missing, brought up to date with ninja). The stock freeverb lives in
# gstreamer1.0-plugins-bad, installed here when missing (it is reported as not measured if that
# fails). Never part of the tests.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${BUILD_DIR:-$ROOT/build}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
# shellcheck source=../scripts/lib.sh
. "$ROOT/scripts/lib.sh"

FX_PACKAGES+=(gstreamer1.0-plugins-bad)
if ! fx_ensure_packages; then
  fx_log "could not install every package; missing peers are reported as not measured"
fi
if [ ! -f "$BUILD/build.ninja" ]; then
  fx_log "configuring $BUILD (project defaults)"
  meson setup "$BUILD" "$ROOT" >/dev/null || { fx_log "meson setup failed"; exit 1; }
fi
ninja -C "$BUILD" >/dev/null || { fx_log "build failed"; exit 1; }

export GST_PLUGIN_PATH_1_0="$BUILD/gst"
export GST_REGISTRY_1_0="$BUILD/gst-registry-bench.bin"
export FX_BENCH_BUILD="$BUILD ($(meson introspect --buildoptions "$BUILD" 2>/dev/null |
  "$FX_PYTHON" -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="buildtype"))' 2>/dev/null || echo '?'))"
pin=()
if command -v taskset >/dev/null && [ "$(nproc)" -gt 1 ]; then pin=(taskset -c 1); fi
exec "${pin[@]}" nice -n 10 "$FX_PYTHON" "$ROOT/bench/effects.py" "$@"
