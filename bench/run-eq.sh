#!/usr/bin/env bash
# fxeq (10 bands) vs the stock equalizer-10bands, same centres and gains, stereo F32 48 kHz, in
# one run (identity subtracted, medians of interleaved repetitions; about 15-60 s). Prints the
# table and writes bench/results/eq.md.
#
#   bench/run-eq.sh [--seconds S] [--reps N] [--out FILE]
#
# BUILD_DIR (default <repo>/build) selects the build; it is configured with the project defaults
# when missing and brought up to date with ninja. Never part of the tests.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${BUILD_DIR:-$ROOT/build}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
# shellcheck source=../scripts/lib.sh
. "$ROOT/scripts/lib.sh"
fx_ensure_packages || exit 1
if [ ! -f "$BUILD/build.ninja" ]; then
  fx_log "configuring $BUILD (project defaults)"
  meson setup "$BUILD" "$ROOT" >/dev/null || { fx_log "meson setup failed"; exit 1; }
fi
fx_log "building $BUILD"
ninja -C "$BUILD" >/dev/null || ninja -C "$BUILD" || { fx_log "build failed"; exit 1; }
export GST_PLUGIN_PATH_1_0="$BUILD/gst"
export GST_REGISTRY_1_0="$BUILD/gst-registry-eq.bin"
rm -f "$GST_REGISTRY_1_0"
FX_BUILD_TYPE="$(meson introspect --buildoptions "$BUILD" 2>/dev/null |
  "$FX_PYTHON" -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="buildtype"))' 2>/dev/null || echo '?')"
export FX_BUILD_TYPE
exec "$FX_PYTHON" "$ROOT/bench/eq.py" "$@"
